// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// Scans along an axis and gathers along an axis at the SIMT level
// (docs/simt.md, "Lowering a scan"): each line along the axis takes
// consecutive positions in shared memory, in scan order; the warp scan
// stops at the line's lanes.

// A reverse row scan of a 4 x 8 tile over 32 threads: position e xor 7,
// 8 lanes per line, so shuffles 1, 2, 4 only and no warp step.
// CHECK-LABEL: func.func @rows(
// CHECK:         %[[POS:[0-9]+]] = "sw.xor"(%{{[0-9]+}}, %{{[0-9]+}}) : (vector<1xi32>, vector<1xi32>) -> vector<1xi32>
// CHECK:         "simt.smem_store"(%[[POS]], %{{[0-9]+}}) {offset = 0 : i32} : (vector<1xi32>, vector<1xi32>) -> ()
// CHECK:         "simt.shfl_up"(%{{[0-9]+}}) {offset = 4 : i32} : (i32) -> i32
// CHECK-NOT:     "simt.shfl_up"(%{{[0-9]+}}) {offset = 8 : i32}
// CHECK:         "simt.smem_load"(%[[POS]]) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xi32>
// PTX-LABEL:   .entry rows(
// PTX:         shfl.sync.up.b32
func.func @rows(%p: !sw.ptr<i32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<32x!sw.ptr<i32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<32x!sw.ptr<i32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<i32>>
  %x = "sw.load"(%pp) : (tensor<32x!sw.ptr<i32>>) -> tensor<32xi32>
  %y = "sw.reshape"(%x) : (tensor<32xi32>) -> tensor<4x8xi32>
  %s = "sw.scan"(%y) ({
  ^bb0(%a: i32, %b: i32):
    %c = "sw.add"(%a, %b) : (i32, i32) -> i32
    "sw.yield"(%c) : (i32) -> ()
  }) {axis = 1 : i32, reverse = true} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %z = "sw.reshape"(%s) : (tensor<4x8xi32>) -> tensor<32xi32>
  "sw.store"(%pp, %z) : (tensor<32x!sw.ptr<i32>>, tensor<32xi32>) -> ()
  "func.return"() : () -> ()
}

// -----

// A column scan of a 256 x 4 tile over 128 threads (8 positions each):
// every line of 256 positions spans 32 threads, one warp: the field of the
// axis moves down (shifts and ors), then shuffles 1 .. 16 and no warp step.
// CHECK-LABEL: func.func @columns(
// CHECK-SAME:    simt.num_threads = 128 : i32
// CHECK:         "sw.shl"
// CHECK:         "sw.or"
// CHECK:         "simt.smem_store"(%{{[0-9]+}}, %{{[0-9]+}}) {offset = 0 : i32} : (vector<8xi32>, vector<8xf32>) -> ()
// CHECK-COUNT-7: "sw.add"(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, f32) -> f32
// CHECK:         "simt.shfl_up"(%{{[0-9]+}}) {offset = 16 : i32} : (f32) -> f32
// CHECK-NOT:     "simt.smem_store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {offset = 4096 : i32}
// CHECK:         "simt.smem_load"(%{{[0-9]+}}) {offset = 0 : i32} : (vector<8xi32>) -> vector<8xf32>
func.func @columns(%p: !sw.ptr<f32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
  %x = "sw.load"(%pp) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
  %y = "sw.reshape"(%x) : (tensor<1024xf32>) -> tensor<256x4xf32>
  %s = "sw.scan"(%y) ({
  ^bb0(%a: f32, %b: f32):
    %c = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%c) : (f32) -> ()
  }) {axis = 0 : i32, reverse = false} : (tensor<256x4xf32>) -> tensor<256x4xf32>
  %z = "sw.reshape"(%s) : (tensor<256x4xf32>) -> tensor<1024xf32>
  "sw.store"(%pp, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>) -> ()
  "func.return"() : () -> ()
}

// -----

// A row scan of a 256 x 4 tile over 128 threads: each line of 4 lies in
// one thread's 8 positions, so it is a loop of 3 combines per line in the
// thread, and no shuffle.
// CHECK-LABEL: func.func @short_rows(
// CHECK-COUNT-6: "sw.add"(%{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32) -> i32
// CHECK-NOT:     "simt.shfl_up"
// CHECK:         "simt.smem_load"(%{{[0-9]+}}) {offset = 0 : i32} : (vector<8xi32>) -> vector<8xi32>
func.func @short_rows(%p: !sw.ptr<i32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 1024 : i32} : () -> tensor<1024xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<1024x!sw.ptr<i32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<1024x!sw.ptr<i32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<i32>>
  %x = "sw.load"(%pp) : (tensor<1024x!sw.ptr<i32>>) -> tensor<1024xi32>
  %y = "sw.reshape"(%x) : (tensor<1024xi32>) -> tensor<256x4xi32>
  %s = "sw.scan"(%y) ({
  ^bb0(%a: i32, %b: i32):
    %c = "sw.add"(%a, %b) : (i32, i32) -> i32
    "sw.yield"(%c) : (i32) -> ()
  }) {axis = 1 : i32} : (tensor<256x4xi32>) -> tensor<256x4xi32>
  %z = "sw.reshape"(%s) : (tensor<256x4xi32>) -> tensor<1024xi32>
  "sw.store"(%pp, %z) : (tensor<1024x!sw.ptr<i32>>, tensor<1024xi32>) -> ()
  "func.return"() : () -> ()
}

// -----

// A gather along axis 0 of an 8 x 4 tile: position (index << 2) | (e & 3).
// CHECK-LABEL: func.func @gather_rows(
// CHECK:         "simt.smem_store"
// CHECK:         "simt.barrier"
// CHECK:         "sw.shl"
// CHECK:         "sw.or"
// CHECK:         "simt.smem_load"(%{{[0-9]+}}) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xf32>
func.func @gather_rows(%p: !sw.ptr<f32>, %q: !sw.ptr<i32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<32x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<32x!sw.ptr<f32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<f32>>
  %qs = "sw.splat"(%q) : (!sw.ptr<i32>) -> tensor<32x!sw.ptr<i32>>
  %qq = "sw.addptr"(%qs, %i) : (tensor<32x!sw.ptr<i32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<i32>>
  %x = "sw.load"(%pp) : (tensor<32x!sw.ptr<f32>>) -> tensor<32xf32>
  %j = "sw.load"(%qq) : (tensor<32x!sw.ptr<i32>>) -> tensor<32xi32>
  %src = "sw.reshape"(%x) : (tensor<32xf32>) -> tensor<8x4xf32>
  %idx = "sw.reshape"(%j) : (tensor<32xi32>) -> tensor<8x4xi32>
  %g = "sw.gather"(%src, %idx) {axis = 0 : i32} : (tensor<8x4xf32>, tensor<8x4xi32>) -> tensor<8x4xf32>
  %z = "sw.reshape"(%g) : (tensor<8x4xf32>) -> tensor<32xf32>
  "sw.store"(%pp, %z) : (tensor<32x!sw.ptr<f32>>, tensor<32xf32>) -> ()
  "func.return"() : () -> ()
}
