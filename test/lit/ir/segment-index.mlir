// RUN: %swage-opt %s --split-input-file | %swage-opt --split-input-file | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s --check-prefix=SIMT
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// sw.segment_index (docs/ir-format.md): each position of a row of a flat
// kernel's window gives the segment holding it (-1: none, or left out);
// sw.gather then takes per-segment values to the positions. In a program of
// one warp inside a CTA of four, both go through the warp's region of
// shared memory between warp barriers (docs/simt.md).

// CHECK-LABEL: func.func @row(
// CHECK:         %[[I:[0-9]+]] = "sw.segment_index"(%{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}) : (i32, tensor<64xi32>, i32, tensor<64xi1>) -> tensor<512xi32>
// CHECK:         "sw.gather"(%{{[0-9a-z_]+}}, %{{[0-9a-z_]+}}) : (tensor<64xf32>, tensor<512xi32>) -> tensor<512xf32>
// SIMT-LABEL: func.func @row(
// SIMT:         "simt.warp_barrier"() : () -> ()
// SIMT:         "simt.smem_store"
// SIMT:         "simt.warp_barrier"() : () -> ()
// SIMT:         "simt.smem_load"(%{{[0-9a-z_]+}}) {offset = 0 : i32} : (vector<16xi32>) -> vector<16xui8>
// SIMT:         "simt.shfl_up"
// SIMT:         "simt.warp_barrier"() : () -> ()
// SIMT:         "simt.smem_load"(%{{[0-9a-z_]+}}) {offset = 0 : i32} : (vector<16xi32>) -> vector<16xf32>
// SIMT-NOT:     "simt.barrier"
// PTX-LABEL: .entry row(
// PTX:         bar.warp.sync -1;
// PTX:         ld.shared.u8
// PTX-NOT:     bar.sync
func.func @row(%p: !sw.ptr<f32>, %q: !sw.ptr<f32>, %base: i32, %start: i32) attributes {sw.block_threads = 128 : i32, sw.program_threads = 32 : i32} {
  %k = "sw.arange"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %three = "sw.constant"() {value = 3 : i32} : () -> tensor<64xi32>
  %ends = "sw.mul"(%k, %three) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %seven = "sw.constant"() {value = 7 : i32} : () -> tensor<64xi32>
  %skip = "sw.cmp"(%k, %seven) {predicate = "eq"} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
  %idx = "sw.segment_index"(%base, %ends, %start, %skip) : (i32, tensor<64xi32>, i32, tensor<64xi1>) -> tensor<512xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %k) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
  %v = "sw.load"(%pp) : (tensor<64x!sw.ptr<f32>>) -> tensor<64xf32>
  %zero = "sw.constant"() {value = 0 : i32} : () -> tensor<512xi32>
  %safe = "sw.maximum"(%idx, %zero) : (tensor<512xi32>, tensor<512xi32>) -> tensor<512xi32>
  %g = "sw.gather"(%v, %safe) : (tensor<64xf32>, tensor<512xi32>) -> tensor<512xf32>
  %i = "sw.arange"() {start = 0 : i32, end = 512 : i32} : () -> tensor<512xi32>
  %qs = "sw.splat"(%q) : (!sw.ptr<f32>) -> tensor<512x!sw.ptr<f32>>
  %qq = "sw.addptr"(%qs, %i) : (tensor<512x!sw.ptr<f32>>, tensor<512xi32>) -> tensor<512x!sw.ptr<f32>>
  %has = "sw.cmp"(%idx, %zero) {predicate = "ge"} : (tensor<512xi32>, tensor<512xi32>) -> tensor<512xi1>
  "sw.store"(%qq, %g, %has) : (tensor<512x!sw.ptr<f32>>, tensor<512xf32>, tensor<512xi1>) -> ()
  "func.return"() : () -> ()
}
