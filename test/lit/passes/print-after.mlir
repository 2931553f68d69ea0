// RUN: %swage-opt %s --passes=fold,cse,dce --print-after=all 2>&1 | FileCheck %s
// RUN: %swage-opt %s --passes=fold,cse,dce --print-after=cse 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not %swage-opt %s --passes=fold --print-after=fold,nope 2>&1 | FileCheck %s --check-prefix=BAD
// --print-after dumps the module after the named passes (or all of them),
// each dump headed by a line naming the pass, in text that parses back.

// CHECK: // -----// IR Dump After fold //----- //
// CHECK-NEXT: module {
// CHECK: "sw.constant"() {value = 5 : i32}
// CHECK: "sw.add"(%x, %{{[0-9]+}})
// CHECK: "sw.add"(%x, %{{[0-9]+}})
// CHECK: // -----// IR Dump After cse //----- //
// CHECK-NEXT: module {
// CHECK: "sw.add"(%x, %{{[0-9]+}})
// CHECK-NOT: "sw.add"
// CHECK: // -----// IR Dump After dce //----- //
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @k
// CHECK-NEXT: "sw.constant"() {value = 5 : i32}
// CHECK-NEXT: "sw.add"(%x, %{{[0-9]+}})
// CHECK-NEXT: "sw.store"
// CHECK-NEXT: "sw.store"
// CHECK-NEXT: "func.return"

// ONE-NOT: IR Dump After fold
// ONE: // -----// IR Dump After cse //----- //
// ONE-NOT: IR Dump After

// BAD: unknown pass 'nope' (known: fold, dce, cse, stages, lower-simt, lower-segments, lower-segments-subwarp, lower-segments-warp, lower-segments-cta, lower-segments-split, lower-segments-persistent, plan-link)

module {
  func.func @k(%o: !sw.ptr<i32>, %x: i32) {
    %a = "sw.constant"() {value = 2 : i32} : () -> i32
    %b = "sw.constant"() {value = 3 : i32} : () -> i32
    %c = "sw.add"(%a, %b) : (i32, i32) -> i32
    %d = "sw.add"(%x, %c) : (i32, i32) -> i32
    %e = "sw.add"(%x, %c) : (i32, i32) -> i32
    "sw.store"(%o, %d) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %e) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}
