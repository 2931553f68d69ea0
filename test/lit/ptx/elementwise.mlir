// REQUIRES: emit-ptx
// RUN: %swage-opt %s --split-input-file --emit-ptx=sm_90 | FileCheck %s
// Elementwise ops render through the op table: IEEE float arithmetic,
// Python // and % on integers (division by 0 or -1 guarded), f16/bf16
// computed in f32 and rounded back once, i8/ui8 wrapped after 32-bit
// arithmetic, i1 as predicates, NaN-propagating minimum, unordered `ne`.
// `approx = true` (Triton's '/' and tl.exp): div.full.f32 on f32 only, and
// ex2.approx.f32 of x * log2(e) on f32 and on f16/bf16 computed in f32;
// f64 keeps div.rn.f64 and its software exp.

// CHECK-LABEL: .entry floats(
// CHECK:       div.rn.f32
// CHECK:       min.NaN.f32
// CHECK:       setp.neu.f32
// CHECK-NOT:   div.approx
module {
  func.func @floats(%a: f32, %b: f32, %out: !sw.ptr<i1>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %q = "sw.div"(%a, %b) : (f32, f32) -> f32
    %m = "sw.minimum"(%q, %b) : (f32, f32) -> f32
    %ne = "sw.cmp"(%m, %a) {predicate = "ne"} : (f32, f32) -> i1
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%ne) : (i1) -> vector<1xi1>
    %os = "sw.splat"(%out) : (!sw.ptr<i1>) -> vector<1x!sw.ptr<i1>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<i1>>, vector<1xi32>) -> vector<1x!sw.ptr<i1>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<i1>>, vector<1xi1>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// CHECK-LABEL: .entry ints(
// CHECK:       setp.eq.s32 [[ZERO:%p[0-9]+]], [[B:%r[0-9]+]], 0;
// CHECK-NEXT:  setp.eq.s32 [[MINUS1:%p[0-9]+]], [[B]], -1;
// CHECK:       div.s32
// CHECK:       rem.s32
// CHECK:       selp.b32 {{%r[0-9]+}}, 0, {{%r[0-9]+}}, [[ZERO]];
// CHECK:       add.s32 [[S:%r[0-9]+]],
// CHECK-NEXT:  cvt.s32.s8 [[S]], [[S]];
module {
  func.func @ints(%a: i32, %b: i32, %c: i8, %out: !sw.ptr<i32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %q = "sw.floordiv"(%a, %b) : (i32, i32) -> i32
    %s = "sw.add"(%c, %c) : (i8, i8) -> i8
    %w = "sw.cast"(%s) : (i8) -> i32
    %r = "sw.add"(%q, %w) : (i32, i32) -> i32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%r) : (i32) -> vector<1xi32>
    %os = "sw.splat"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// CHECK-LABEL: .entry halves(
// CHECK:       .param .b16 halves_param_0,
// CHECK:       ld.param.b16 [[H:%h[0-9]+]], [halves_param_0];
// CHECK:       cvt.f32.f16 [[F:%f[0-9]+]], [[H]];
// CHECK:       mul.rn.f32 [[P:%f[0-9]+]], [[F]], {{%f[0-9]+}};
// CHECK-NEXT:  cvt.rn.f16.f32 {{%h[0-9]+}}, [[P]];
// CHECK:       cvt.f32.bf16
// CHECK:       cvt.rn.bf16.f32
// CHECK:       and.pred
module {
  func.func @halves(%h: f16, %b: bf16, %p: i1, %q: i1, %out: !sw.ptr<f16>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %hh = "sw.mul"(%h, %h) : (f16, f16) -> f16
    %bb = "sw.sqrt"(%b) : (bf16) -> bf16
    %bh = "sw.cast"(%bb) : (bf16) -> f16
    %pq = "sw.mul"(%p, %q) : (i1, i1) -> i1
    %r = "sw.select"(%pq, %hh, %bh) : (i1, f16, f16) -> f16
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%r) : (f16) -> vector<1xf16>
    %os = "sw.splat"(%out) : (!sw.ptr<f16>) -> vector<1x!sw.ptr<f16>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<f16>>, vector<1xi32>) -> vector<1x!sw.ptr<f16>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f16>>, vector<1xf16>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// CHECK-LABEL: .entry approx(
// CHECK:       div.full.f32
// CHECK:       mul.rn.f32 [[T:%f[0-9]+]], {{%f[0-9]+}}, 0f3FB8AA3B;
// CHECK-NEXT:  ex2.approx.f32 {{%f[0-9]+}}, [[T]];
// CHECK:       cvt.f32.f16
// CHECK-NEXT:  mul.rn.f32 [[H:%f[0-9]+]], {{%f[0-9]+}}, 0f3FB8AA3B;
// CHECK-NEXT:  ex2.approx.f32 {{%f[0-9]+}}, [[H]];
// CHECK-NEXT:  cvt.rn.f16.f32
// CHECK:       div.rn.f32
// CHECK-NOT:   div.full
// CHECK:       div.rn.f64
// CHECK-NOT:   ex2.approx
// CHECK:       ret;
module {
  func.func @approx(%a: f32, %b: f32, %h: f16, %d: f64, %out: !sw.ptr<f32>, %outd: !sw.ptr<f64>, %outh: !sw.ptr<f16>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %q = "sw.div"(%a, %b) {approx = true} : (f32, f32) -> f32
    %e = "sw.exp"(%q) {approx = true} : (f32) -> f32
    %eh = "sw.exp"(%h) {approx = true} : (f16) -> f16
    %qh = "sw.div"(%eh, %h) {approx = true} : (f16, f16) -> f16
    %qd = "sw.div"(%d, %d) {approx = true} : (f64, f64) -> f64
    %ed = "sw.exp"(%qd) {approx = true} : (f64) -> f64
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%e) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()
    %vd = "sw.splat"(%ed) : (f64) -> vector<1xf64>
    %osd = "sw.splat"(%outd) : (!sw.ptr<f64>) -> vector<1x!sw.ptr<f64>>
    %opd = "sw.addptr"(%osd, %c0) : (vector<1x!sw.ptr<f64>>, vector<1xi32>) -> vector<1x!sw.ptr<f64>>
    "simt.store"(%opd, %vd) {vec = 1 : i32} : (vector<1x!sw.ptr<f64>>, vector<1xf64>) -> ()
    %vh = "sw.splat"(%qh) : (f16) -> vector<1xf16>
    %osh = "sw.splat"(%outh) : (!sw.ptr<f16>) -> vector<1x!sw.ptr<f16>>
    %oph = "sw.addptr"(%osh, %c0) : (vector<1x!sw.ptr<f16>>, vector<1xi32>) -> vector<1x!sw.ptr<f16>>
    "simt.store"(%oph, %vh) {vec = 1 : i32} : (vector<1x!sw.ptr<f16>>, vector<1xf16>) -> ()
    "func.return"() : () -> ()
  }
}
