// REQUIRES: emit-ptx
// RUN: %swage-opt %s --emit-ptx=sm_90 | FileCheck %s
// sw.while keeps its condition in a predicate register: the loop is
// skipped when the first condition is false, and the body's sw.yield
// writes the next condition and the carried values (whose registers are
// the results') before the branch back.

// CHECK-LABEL: .entry count(
// CHECK:       mov.pred [[P:%p[0-9]+]], [[C0:%p[0-9]+]];
// CHECK:       mov.b32 [[I:%r[0-9]+]], {{%r[0-9]+}};
// CHECK-NEXT:  @![[P]] bra [[EXIT:\$L__[0-9]+]];
// CHECK-NEXT: [[HEAD:\$L__[0-9]+]]:
// CHECK:       add.s32 [[NEXT:%r[0-9]+]], [[I]],
// CHECK:       setp.lt.s32 [[C:%p[0-9]+]], [[NEXT]],
// CHECK:       mov.pred [[P]], [[C]];
// CHECK-NEXT:  mov.b32 [[I]], [[NEXT]];
// CHECK-NEXT:  @[[P]] bra [[HEAD]];
// CHECK-NEXT: [[EXIT]]:
module {
  func.func @count(%n: i32, %out: !sw.ptr<i32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %zero = "sw.constant"() {value = 0 : i32} : () -> i32
    %one = "sw.constant"() {value = 1 : i32} : () -> i32
    %c0 = "sw.cmp"(%zero, %n) {predicate = "lt"} : (i32, i32) -> i1
    %r = "sw.while"(%c0, %zero) ({
    ^bb0(%i: i32):
      %next = "sw.add"(%i, %one) : (i32, i32) -> i32
      %c = "sw.cmp"(%next, %n) {predicate = "lt"} : (i32, i32) -> i1
      "sw.yield"(%c, %next) : (i1, i32) -> ()
    }) : (i1, i32) -> i32
    %t = "simt.thread_id"() : () -> i32
    %first = "sw.cmp"(%t, %zero) {predicate = "eq"} : (i32, i32) -> i1
    %p = "sw.splat"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>
    %v = "sw.splat"(%r) : (i32) -> vector<1xi32>
    %m = "sw.splat"(%first) : (i1) -> vector<1xi1>
    "simt.store"(%p, %v, %m) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>, vector<1xi1>) -> ()
    "func.return"() : () -> ()
  }
}
