// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_80 | FileCheck %s --check-prefix=PTX
// The atomics at the SIMT level (docs/simt.md): a tile atomic becomes the
// same op per slot, keeping its attributes, masked to the owners when the
// tile is replicated; a scalar one is made by the program's first thread,
// and its old value, when used, is broadcast to the program (f16 too).

// 16 elements over 32 threads: threads 16..31 hold copies and must not
// apply the atomic again.
// CHECK-LABEL: func.func @replicated(
// CHECK:         %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK:         %[[OWNER:[0-9]+]] = "sw.cmp"(%[[TID]], %{{[0-9]+}}) {predicate = "lt"} : (i32, i32) -> i1
// CHECK-NEXT:    %[[OWNERS:[0-9]+]] = "sw.splat"(%[[OWNER]]) : (i1) -> vector<1xi1>
// CHECK-NEXT:    %[[MASK:[0-9]+]] = "sw.and"(%{{[0-9]+}}, %[[OWNERS]]) : (vector<1xi1>, vector<1xi1>) -> vector<1xi1>
// CHECK-NEXT:    "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}, %[[MASK]]) {kind = "max", scope = "cta", sem = "release"} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> vector<1xf32>
// CHECK:         "simt.atomic_cas"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[OWNERS2:[0-9]+]]) {scope = "gpu", sem = "acq_rel"} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xf32>, vector<1xi1>) -> vector<1xf32>
// PTX-LABEL:   .entry replicated(
// Float max: the sign of the value picks the signed max or the unsigned min.
// PTX:         setp.ge.s32 %p[[POS:[0-9]+]], %r[[BITS:[0-9]+]], 0;
// PTX-NEXT:    setp.lt.s32 %p[[NEG:[0-9]+]], %r[[BITS]], 0;
// PTX-NEXT:    and.pred %p[[POS]], %p[[POS]], %p{{[0-9]+}};
// PTX-NEXT:    and.pred %p[[NEG]], %p[[NEG]], %p{{[0-9]+}};
// PTX-NEXT:    mov.b32 %r[[OLD:[0-9]+]], 0;
// PTX-NEXT:    @%p[[POS]] atom.release.cta.global.max.s32 %r[[OLD]], [%rd{{[0-9]+}}], %r[[BITS]];
// PTX-NEXT:    @%p[[NEG]] atom.release.cta.global.min.u32 %r[[OLD]], [%rd{{[0-9]+}}], %r[[BITS]];
// PTX-NEXT:    mov.b32 %f{{[0-9]+}}, %r[[OLD]];
// PTX:         mov.b32 %f[[CAS:[0-9]+]], 0;
// PTX-NEXT:    @%p{{[0-9]+}} atom.acq_rel.gpu.global.cas.b32 %f[[CAS]], [%rd{{[0-9]+}}], %f{{[0-9]+}}, %f{{[0-9]+}};
func.func @replicated(%p: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32) {
  %i = "sw.arange"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %ns = "sw.splat"(%n) : (i32) -> tensor<16xi32>
  %m = "sw.cmp"(%i, %ns) {predicate = "lt"} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
  %x = "sw.cast"(%i) : (tensor<16xi32>) -> tensor<16xf32>
  %old = "sw.atomic_rmw"(%pp, %x, %m) {kind = "max", sem = "release", scope = "cta"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  %c = "sw.atomic_cas"(%pp, %x, %old) {sem = "acq_rel", scope = "gpu"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
  %op = "sw.addptr"(%os, %i) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
  "sw.store"(%op, %c) : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// A scalar atomic: thread 0 applies it; its used old value is shuffled from
// lane 0 (an f16 moves as 16 bits, unchanged); an unused one is not.
// CHECK-LABEL: func.func @scalar(
// CHECK:         %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK:         %[[FIRST:[0-9]+]] = "sw.cmp"(%[[TID]], %{{[0-9]+}}) {predicate = "eq"} : (i32, i32) -> i1
// CHECK:         %[[OLD:[0-9]+]] = "simt.atomic_cas"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {scope = "gpu", sem = "acq_rel"} : (vector<1x!sw.ptr<f16>>, vector<1xf16>, vector<1xf16>, vector<1xi1>) -> vector<1xf16>
// CHECK-NEXT:    %[[SLOT:[0-9]+]] = "simt.vreduce"(%[[OLD]]) {kind = "max"} : (vector<1xf16>) -> f16
// CHECK-NEXT:    %[[ALL:[0-9]+]] = "simt.shfl_idx"(%[[SLOT]]) {lane = 0 : i32, width = 32 : i32} : (f16) -> f16
// CHECK:         "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "sys", sem = "relaxed"} : (vector<1x!sw.ptr<f16>>, vector<1xf16>, vector<1xi1>) -> vector<1xf16>
// CHECK-NOT:     "simt.vreduce"
// CHECK-NOT:     "simt.shfl_idx"
// CHECK:         "simt.store"
// PTX-LABEL:   .entry scalar(
// PTX:         mov.b16 %h[[OLD:[0-9]+]], 0;
// PTX-NEXT:    @%p{{[0-9]+}} atom.acq_rel.gpu.global.cas.b16 %h[[OLD]], [%rd{{[0-9]+}}], %h{{[0-9]+}}, %h{{[0-9]+}};
// PTX:         cvt.u32.u16 %r{{[0-9]+}}, %h{{[0-9]+}};
// PTX-NEXT:    shfl.sync.idx.b32
// An unused old value under relaxed order: red, no result.
// PTX:         @%p{{[0-9]+}} red.relaxed.sys.global.add.noftz.f16 [%rd{{[0-9]+}}], %h{{[0-9]+}};
func.func @scalar(%p: !sw.ptr<f16>, %v: f16) {
  %old = "sw.atomic_cas"(%p, %v, %v) {sem = "acq_rel", scope = "gpu"} : (!sw.ptr<f16>, f16, f16) -> f16
  %unused = "sw.atomic_rmw"(%p, %old) {kind = "add", sem = "relaxed", scope = "sys"} : (!sw.ptr<f16>, f16) -> f16
  "sw.store"(%p, %old) : (!sw.ptr<f16>, f16) -> ()
  "func.return"() : () -> ()
}

// -----
// i64 bitwise ops and exchange over 4 slots a thread: one instruction per
// slot, no owner mask (every thread owns its slots).
// CHECK-LABEL: func.func @slots(
// CHECK-NOT:     "sw.cmp"
// CHECK:         "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "xor", scope = "gpu", sem = "acquire"} : (vector<4x!sw.ptr<i64>>, vector<4xi64>) -> vector<4xi64>
// CHECK:         "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "xchg", scope = "gpu", sem = "relaxed"} : (vector<4x!sw.ptr<i64>>, vector<4xi64>) -> vector<4xi64>
// PTX-LABEL:   .entry slots(
// PTX-COUNT-4: atom.acquire.gpu.global.xor.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}};
// Exchange has no red form.
// PTX-COUNT-4: atom.relaxed.gpu.global.exch.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}};
func.func @slots(%p: !sw.ptr<i64>, %out: !sw.ptr<i64>) {
  %i = "sw.arange"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<i64>) -> tensor<128x!sw.ptr<i64>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<128x!sw.ptr<i64>>, tensor<128xi32>) -> tensor<128x!sw.ptr<i64>>
  %x = "sw.cast"(%i) : (tensor<128xi32>) -> tensor<128xi64>
  %old = "sw.atomic_rmw"(%pp, %x) {kind = "xor", sem = "acquire", scope = "gpu"} : (tensor<128x!sw.ptr<i64>>, tensor<128xi64>) -> tensor<128xi64>
  %unused = "sw.atomic_rmw"(%pp, %old) {kind = "xchg", sem = "relaxed", scope = "gpu"} : (tensor<128x!sw.ptr<i64>>, tensor<128xi64>) -> tensor<128xi64>
  "func.return"() : () -> ()
}
