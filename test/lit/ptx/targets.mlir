// REQUIRES: emit-ptx
// RUN: %swage-opt %s --emit-ptx=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: %swage-opt %s --emit-ptx=sm_80 | FileCheck %s --check-prefix=SM80
// .version and .target are bound last: the lowest PTX ISA version that has
// the target and every instruction used (cvt.f32.bf16 needs 7.1).

// SM90:      .version 7.8
// SM90-NEXT: .target sm_90
// SM80:      .version 7.1
// SM80-NEXT: .target sm_80
// SM80:      cvt.f32.bf16
module {
  func.func @widen(%b: bf16, %out: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %f = "sw.cast"(%b) : (bf16) -> f32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> vector<1xi32>
    %v = "sw.splat"(%f) : (f32) -> vector<1xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %c0) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
    "simt.store"(%op, %v) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()
    "func.return"() : () -> ()
  }
}
