// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// A scan at the SIMT level (docs/simt.md, "Lowering a scan"): owners store
// their slots to shared memory, barrier, each thread scans its positions
// sequentially, then the warp by simt.shfl_up 1..16, then the warps
// through shared memory; results go back through shared memory.

// 1024 elements over 128 threads: 8 positions per thread, 4 warps.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME:    simt.num_threads = 128 : i32, simt.smem_bytes = 4232 : i32
// CHECK:         "simt.smem_store"(%{{[0-9]+}}, %{{[0-9]+}}) {offset = 0 : i32} : (vector<8xi32>, vector<8xi32>) -> ()
// CHECK-NEXT:    "simt.barrier"() : () -> ()
// CHECK-COUNT-7: "sw.add"(%{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32) -> i32
// CHECK:         "simt.shfl_up"(%{{[0-9]+}}) {offset = 1 : i32} : (i32) -> i32
// CHECK:         "simt.shfl_up"(%{{[0-9]+}}) {offset = 2 : i32} : (i32) -> i32
// CHECK:         "simt.shfl_up"(%{{[0-9]+}}) {offset = 16 : i32} : (i32) -> i32
// CHECK:         "simt.smem_store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {offset = 4096 : i32} : (i32, i32, i1) -> ()
// CHECK:         "simt.smem_load"(%{{[0-9]+}}) {offset = 0 : i32} : (vector<8xi32>) -> vector<8xi32>
// (no barrier after the last use of shared memory)
// CHECK-NOT:     "simt.barrier"
// PTX-LABEL:   .entry cumsum(
// PTX:         shfl.sync.up.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 0x0, 0xffffffff;
// PTX:         bar.sync 0;
func.func @cumsum(%p: !sw.ptr<i32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<1024x!sw.ptr<i32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<1024x!sw.ptr<i32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<i32>>
  %x = "sw.load"(%pp) : (tensor<1024x!sw.ptr<i32>>) -> tensor<1024xi32>
  %s = "sw.scan"(%x) ({
  ^bb0(%a: i32, %b: i32):
    %v = "sw.add"(%a, %b) : (i32, i32) -> i32
    "sw.yield"(%v) : (i32) -> ()
  }) {reverse = false} : (tensor<1024xi32>) -> tensor<1024xi32>
  "sw.store"(%pp, %s) : (tensor<1024x!sw.ptr<i32>>, tensor<1024xi32>) -> ()
  "func.return"() : () -> ()
}

// -----

// A reverse scan of 16 elements over 32 threads: position 15 - i, copies
// masked off the first store, threads past 15 read position 15.
// CHECK-LABEL: func.func @reverse(
// CHECK:         %[[POS:[0-9]+]] = "sw.sub"(%{{[0-9]+}}, %{{[0-9]+}}) : (vector<1xi32>, vector<1xi32>) -> vector<1xi32>
// CHECK:         "simt.smem_store"(%[[POS]], %{{[0-9]+}}, %{{[0-9]+}}) {offset = 0 : i32} : (vector<1xi32>, vector<1xf32>, vector<1xi1>) -> ()
// CHECK:         "sw.minimum"
// CHECK-NOT:     "simt.shfl_xor"
// CHECK:         "simt.smem_load"(%[[POS]]) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xf32>
func.func @reverse(%p: !sw.ptr<f32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
  %x = "sw.load"(%pp) : (tensor<16x!sw.ptr<f32>>) -> tensor<16xf32>
  %s = "sw.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %v = "sw.mul"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%v) : (f32) -> ()
  }) {reverse = true} : (tensor<16xf32>) -> tensor<16xf32>
  "sw.store"(%pp, %s) : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>) -> ()
  "func.return"() : () -> ()
}
