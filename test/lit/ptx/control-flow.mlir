// REQUIRES: emit-ptx
// RUN: %swage-opt %s --emit-ptx=sm_90 | FileCheck %s
// sw.for runs a counted loop: the trip count of range(lb, ub, step) is
// computed once, in 32 bits for 32-bit bounds and in 64 bits otherwise
// (exact for any sign and width; a constant step needs no sign test; a
// power-of-two step shifts, as ptxas calls a routine for div.u64), then the body repeats with the induction variable
// and the carried values in registers copied at the back edge. sw.if
// branches around each region; both write the results' registers.

// CHECK-LABEL: .entry flow(
// CHECK:       mov.b32 [[STEP:%r[0-9]+]], 0xFFFFFFFE;
// CHECK:       mov.b32 [[IV:%r[0-9]+]], [[LB:%r[0-9]+]];
// CHECK-NEXT:  setp.gt.s32 [[ANY:%p[0-9]+]], [[LB]], [[HI:%r[0-9]+]];
// CHECK-NEXT:  sub.s32 [[D:%r[0-9]+]], [[LB]], [[HI]];
// CHECK-NEXT:  sub.s32 [[D]], [[D]], 1;
// CHECK-NEXT:  shr.u32 [[D]], [[D]], 1;
// CHECK-NEXT:  add.s32 [[D]], [[D]], 1;
// CHECK-NEXT:  selp.b32 [[TRIPS:%r[0-9]+]], [[D]], 0, [[ANY]];
// CHECK-NEXT:  setp.eq.s32 [[NONE:%p[0-9]+]], [[TRIPS]], 0;
// CHECK-NEXT:  @[[NONE]] bra [[EXIT:\$L__[0-9]+]];
// CHECK-NEXT: [[HEAD:\$L__[0-9]+]]:
// CHECK:       add.rn.f32 [[NEXT:%f[0-9]+]], [[ACC:%f[0-9]+]],
// CHECK-NEXT:  mov.f32 [[ACC]], [[NEXT]];
// CHECK-NEXT:  add.s32 [[IV]], [[IV]], [[STEP]];
// CHECK-NEXT:  sub.s32 [[TRIPS]], [[TRIPS]], 1;
// CHECK-NEXT:  setp.ne.s32 [[NONE]], [[TRIPS]], 0;
// CHECK-NEXT:  @[[NONE]] bra [[HEAD]];
// CHECK-NEXT: [[EXIT]]:
// CHECK:       @!{{%p[0-9]+}} bra [[ELSE:\$L__[0-9]+]];
// CHECK:       mov.f32 [[R:%f[0-9]+]], [[ACC]];
// CHECK-NEXT:  bra [[END:\$L__[0-9]+]];
// CHECK-NEXT: [[ELSE]]:
// CHECK-NEXT:  mov.f32 [[R]], {{%f[0-9]+}};
// CHECK-NEXT: [[END]]:

// 64-bit bounds count in 64 bits; a step that is no power of two divides.
// CHECK-LABEL: .entry wide(
// CHECK:       setp.gt.s64 [[ANY:%p[0-9]+]], [[HI:%rd[0-9]+]], [[LO:%rd[0-9]+]];
// CHECK-NEXT:  sub.s64 [[D:%rd[0-9]+]], [[HI]], [[LO]];
// CHECK-NEXT:  sub.s64 [[D]], [[D]], 1;
// CHECK-NEXT:  div.u64 [[D]], [[D]], 3;
// CHECK-NEXT:  add.s64 [[D]], [[D]], 1;
// CHECK-NEXT:  selp.b64 [[TRIPS:%rd[0-9]+]], [[D]], 0, [[ANY]];
// CHECK-NEXT:  setp.eq.s64 [[NONE:%p[0-9]+]], [[TRIPS]], 0;
// CHECK:       sub.s64 [[TRIPS]], [[TRIPS]], 1;
// CHECK-NEXT:  setp.ne.s64 [[NONE]], [[TRIPS]], 0;

// 32-bit bounds and a step of 3: div.u32 (ptxas multiplies by a reciprocal).
// CHECK-LABEL: .entry narrow3(
// CHECK:       sub.s32 [[D:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT:  sub.s32 [[D]], [[D]], 1;
// CHECK-NEXT:  div.u32 [[D]], [[D]], 3;
module {
  func.func @flow(%n: i32, %out: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %c10 = "sw.constant"() {value = 10 : i32} : () -> i32
    %cm2 = "sw.constant"() {value = -2 : i32} : () -> i32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %acc = "sw.for"(%c10, %n, %cm2, %zero) ({
    ^bb0(%i: i32, %a: f32):
      %fi = "sw.cast"(%i) : (i32) -> f32
      %next = "sw.add"(%a, %fi) : (f32, f32) -> f32
      "sw.yield"(%next) : (f32) -> ()
    }) : (i32, i32, i32, f32) -> f32
    %pos = "sw.cmp"(%n, %c10) {predicate = "lt"} : (i32, i32) -> i1
    %r = "sw.if"(%pos) ({
      "sw.yield"(%acc) : (f32) -> ()
    }, {
      "sw.yield"(%zero) : (f32) -> ()
    }) : (i1) -> f32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%r) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()
    "func.return"() : () -> ()
  }
  func.func @wide(%n: i64, %out: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %c0 = "sw.constant"() {value = 0 : i64} : () -> i64
    %c3 = "sw.constant"() {value = 3 : i64} : () -> i64
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %acc = "sw.for"(%c0, %n, %c3, %zero) ({
    ^bb0(%i: i64, %a: f32):
      %fi = "sw.cast"(%i) : (i64) -> f32
      %next = "sw.add"(%a, %fi) : (f32, f32) -> f32
      "sw.yield"(%next) : (f32) -> ()
    }) : (i64, i64, i64, f32) -> f32
    %ci = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%acc) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %ci) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()
    "func.return"() : () -> ()
  }
  func.func @narrow3(%n: i32, %out: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c3 = "sw.constant"() {value = 3 : i32} : () -> i32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %acc = "sw.for"(%c0, %n, %c3, %zero) ({
    ^bb0(%i: i32, %a: f32):
      %fi = "sw.cast"(%i) : (i32) -> f32
      %next = "sw.add"(%a, %fi) : (f32, f32) -> f32
      "sw.yield"(%next) : (f32) -> ()
    }) : (i32, i32, i32, f32) -> f32
    %ci = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%acc) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %ci) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()
    "func.return"() : () -> ()
  }
}
