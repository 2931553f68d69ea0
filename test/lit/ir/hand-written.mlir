// RUN: %swage-opt %s | FileCheck %s
// Hand-written IR: any value names, comments, free whitespace, no module,
// the pretty `return`, result lists, optional locations and attributes.

// CHECK:      module {
// CHECK-NEXT:   func.func @k(%arg0: i32, %0: f32, %x.y: f32, %1: f32) {
// CHECK-NEXT:     %2:3 = "sw.for"(%arg0, %arg0, %arg0, %0, %x.y, %1) ({
// CHECK-NEXT:     ^bb0(%3: i32, %4: f32, %5: f32, %6: f32):
// CHECK-NEXT:       "sw.yield"(%4, %5, %6) : (f32, f32, f32) -> ()
// CHECK-NEXT:     }) : (i32, i32, i32, f32, f32, f32) -> (f32, f32, f32)
// CHECK-NEXT:     %7 = "sw.add"(%2#0, %2#2) : (f32, f32) -> f32
// CHECK-NEXT:     "func.return"() : () -> ()
// CHECK-NEXT:   }
// CHECK-NEXT: }
func.func   @k(   %arg0 : i32,%1:f32, %x.y: f32 loc(unknown),   %2: f32)
{   // the body
  %first, %rest:2 = "sw.for"  ( %arg0,%arg0 , %arg0, %1, %x.y, %2 ) (
    {
      ^bb7 ( %iv : i32 , %a: f32, %b: f32, %c: f32 ) :
        "sw.yield"(%a, %b, %c) : (f32, f32, f32) -> ()   // carried on
    }
  ) : (i32, i32, i32, f32, f32, f32)
      -> (f32, f32, f32)
  %sum = "sw.add"(%first, %rest#1) : (f32, f32) -> f32 loc("k.py":3:4)
  return
}
