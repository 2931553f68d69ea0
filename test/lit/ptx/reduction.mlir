// REQUIRES: emit-ptx
// RUN: %swage-opt %s --emit-ptx=sm_90 | FileCheck %s
// A CTA sum as docs/simt.md lowers it: per-thread slots, a butterfly of
// warp shuffles, warp partials through shared memory between barriers.
// Shared memory is one array declared in the entry; smem ops address it
// as [base + index*size + offset].

// CHECK-LABEL: .entry reduce(
// CHECK:       .shared .align 16 .b8 smem[32];
// CHECK:       mov.u32 [[BASE:%r[0-9]+]], smem;
// CHECK:       add.rn.f32
// CHECK:       shfl.sync.bfly.b32 [[S:%f[0-9]+]], [[P:%f[0-9]+]], 16, 0x1f, 0xffffffff;
// CHECK-NEXT:  add.rn.f32 {{%f[0-9]+}}, [[P]], [[S]];
// CHECK:       mad.lo.s32 [[A:%r[0-9]+]], {{%r[0-9]+}}, 4, [[BASE]];
// CHECK-NEXT:  @{{%p[0-9]+}} st.shared.f32 [[[A]]+0],
// CHECK-NEXT:  bar.sync 0;
// CHECK:       ld.shared.f32
// CHECK:       bar.sync 0;
module {
  func.func @reduce(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) attributes {simt.num_threads = 64 : i32, simt.smem_bytes = 32 : i32} {
    %r = "simt.tile_index"() {len = 128 : i32, start = 0 : i32} : () -> vector<2xi32>
    %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> vector<2x!sw.ptr<f32>>
    %xp = "sw.addptr"(%xs, %r) : (vector<2x!sw.ptr<f32>>, vector<2xi32>) -> vector<2x!sw.ptr<f32>>
    %v = "simt.load"(%xp) {vec = 2 : i32} : (vector<2x!sw.ptr<f32>>) -> vector<2xf32>
    %p = "simt.vreduce"(%v) {kind = "sum"} : (vector<2xf32>) -> f32
    %s = "simt.shfl_xor"(%p) {offset = 16 : i32} : (f32) -> f32
    %p1 = "sw.add"(%p, %s) : (f32, f32) -> f32
    %tid = "simt.thread_id"() : () -> i32
    %c31 = "sw.constant"() {value = 31 : i32} : () -> i32
    %c5 = "sw.constant"() {value = 5 : i32} : () -> i32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %lane = "sw.and"(%tid, %c31) : (i32, i32) -> i32
    %warp = "sw.shr"(%tid, %c5) : (i32, i32) -> i32
    %lead = "sw.cmp"(%lane, %c0) {predicate = "eq"} : (i32, i32) -> i1
    "simt.smem_store"(%warp, %p1, %lead) {offset = 0 : i32} : (i32, f32, i1) -> ()
    "simt.barrier"() : () -> ()
    %a = "simt.smem_load"(%c0) {offset = 0 : i32} : (i32) -> f32
    %b = "simt.smem_load"(%c1) {offset = 0 : i32} : (i32) -> f32
    %t = "sw.add"(%a, %b) : (f32, f32) -> f32
    "simt.barrier"() : () -> ()
    %first = "sw.cmp"(%tid, %c0) {predicate = "eq"} : (i32, i32) -> i1
    %fv = "sw.splat"(%first) : (i1) -> vector<1xi1>
    %tv = "sw.splat"(%t) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%os, %tv, %fv) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> ()
    "func.return"() : () -> ()
  }
}
