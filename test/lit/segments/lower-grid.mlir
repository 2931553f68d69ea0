// RUN: %swage-opt %s --passes=lower-segments | FileCheck %s
// Grid programs are left exactly as they are: no hidden parameters.

// CHECK-LABEL: func.func @add(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
// CHECK-NEXT:    %0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %1 = "sw.addptr"(%x, %0) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    %2 = "sw.load"(%1) : (!sw.ptr<f32>) -> f32
// CHECK-NEXT:    %3 = "sw.addptr"(%out, %0) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    "sw.store"(%3, %2) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
func.func @add(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
  %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
  %xp = "sw.addptr"(%x, %pid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %v = "sw.load"(%xp) : (!sw.ptr<f32>) -> f32
  %op = "sw.addptr"(%out, %pid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%op, %v) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
