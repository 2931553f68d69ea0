// RUN: %swage-opt %s --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s
// An sw.cmp whose uses are all in its block, one of them the mask of a
// vector access (which computes its bits again from the compare's
// operands), is emitted just before its first other use: here the
// select's compares come after the loads and their per-group fallback, so
// no predicate lives across those branches; a compare only the accesses
// use is not emitted at all (the load's and the store's mask).

// CHECK-LABEL: .entry where_after_load(
// CHECK-NOT:   setp.lt.s32
// CHECK:       setp.eq.s64
// CHECK-NEXT:  add.s32 [[LAST:%r[0-9]+]], [[FIRST:%r[0-9]+]], 3;
// CHECK-NEXT:  setp.lt.s32 {{%p[0-9]+}}, [[LAST]], [[N:%r[0-9]+]];
// CHECK:       ld.global.v4.f32
// CHECK:       @{{%p[0-9]+}} ld.global.f32
// CHECK:       sub.rn.f32
// CHECK:       setp.lt.s32 [[M0:%p[0-9]+]], [[FIRST]], [[N]];
// CHECK:       selp.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, [[M0]];
// CHECK-NOT:   setp.lt.s32
// CHECK:       and.b64
// CHECK:       st.global.v4.f32
// CHECK:       ret;
module {
  func.func @where_after_load(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.arange"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
    %ns = "sw.splat"(%n) : (i32) -> tensor<256xi32>
    %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<256x!sw.ptr<f32>>
    %p = "sw.addptr"(%xs, %0) : (tensor<256x!sw.ptr<f32>>, tensor<256xi32>) -> tensor<256x!sw.ptr<f32>>
    %z = "sw.constant"() {value = 0.0 : f32} : () -> tensor<256xf32>
    %one = "sw.constant"() {value = 1.0 : f32} : () -> tensor<256xf32>
    %m = "sw.cmp"(%0, %ns) {predicate = "lt"} : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi1>
    %l = "sw.load"(%p, %m, %z) : (tensor<256x!sw.ptr<f32>>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
    %d = "sw.sub"(%l, %one) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %w = "sw.select"(%m, %d, %z) : (tensor<256xi1>, tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<256x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %0) : (tensor<256x!sw.ptr<f32>>, tensor<256xi32>) -> tensor<256x!sw.ptr<f32>>
    %m2 = "sw.cmp"(%0, %ns) {predicate = "lt"} : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi1>
    "sw.store"(%op, %w, %m2) : (tensor<256x!sw.ptr<f32>>, tensor<256xf32>, tensor<256xi1>) -> ()
    "func.return"() : () -> ()
  }
}
