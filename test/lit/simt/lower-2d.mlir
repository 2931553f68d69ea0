// RUN: %swage-opt %s --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --passes=lower-simt | %swage-opt | FileCheck %s
// Tiles of two dimensions at the SIMT level (docs/simt.md, "Tiles of
// several dimensions"): a 16x32 tile over 128 threads is the layout of 512
// elements (4 slots a thread); the broadcast index tiles are recomputed from
// simt.tile_index, the reshapes vanish, and the row sum folds each
// thread's chunk (simt.vslots), then its lanes (simt.shfl_xor 1, 2, 4), then
// moves each row's total to its holder through shared memory.

// CHECK-LABEL: func.func @rows(
// CHECK-SAME:  attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 64 : i32}
// CHECK-NOT:   sw.reshape
// CHECK-NOT:   sw.broadcast
// CHECK:       %[[E:[0-9]+]] = "simt.tile_index"() {len = 512 : i32, start = 0 : i32} : () -> vector<4xi32>
// CHECK:       "sw.shr"(%[[E]]
// CHECK:       "sw.and"(%{{[0-9]+}}
// CHECK:       "simt.load"({{.*}}) {vec = 4 : i32}
// CHECK:       "simt.vslots"({{.*}}) {slots = "0"} : (vector<4xf32>) -> vector<1xf32>
// CHECK:       "simt.vslots"({{.*}}) {slots = "3"} : (vector<4xf32>) -> vector<1xf32>
// CHECK:       "simt.shfl_xor"({{.*}}) {offset = 1 : i32} : (vector<1xf32>) -> vector<1xf32>
// CHECK:       "simt.shfl_xor"({{.*}}) {offset = 4 : i32} : (vector<1xf32>) -> vector<1xf32>
// CHECK-NOT:   "simt.shfl_xor"({{.*}}) {offset = 8
// CHECK:       "simt.smem_store"
// CHECK-NEXT:  "simt.barrier"
// CHECK:       "simt.tile_index"() {len = 16 : i32, start = 0 : i32} : () -> vector<1xi32>
// CHECK:       "simt.smem_load"
// CHECK-NOT:   "simt.barrier"
// CHECK:       "simt.store"
module {
  func.func @rows(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
    %m = "sw.arange"() {end = 16 : i32, start = 0 : i32} : () -> tensor<16xi32>
    %n = "sw.arange"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %m1 = "sw.reshape"(%m) : (tensor<16xi32>) -> tensor<16x1xi32>
    %c32 = "sw.constant"() {value = 32 : i32} : () -> tensor<16x1xi32>
    %r = "sw.mul"(%m1, %c32) : (tensor<16x1xi32>, tensor<16x1xi32>) -> tensor<16x1xi32>
    %n1 = "sw.reshape"(%n) : (tensor<32xi32>) -> tensor<1x32xi32>
    %rb = "sw.broadcast"(%r) : (tensor<16x1xi32>) -> tensor<16x32xi32>
    %nb = "sw.broadcast"(%n1) : (tensor<1x32xi32>) -> tensor<16x32xi32>
    %o = "sw.add"(%rb, %nb) : (tensor<16x32xi32>, tensor<16x32xi32>) -> tensor<16x32xi32>
    %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<16x32x!sw.ptr<f32>>
    %p = "sw.addptr"(%xs, %o) : (tensor<16x32x!sw.ptr<f32>>, tensor<16x32xi32>) -> tensor<16x32x!sw.ptr<f32>>
    %v = "sw.load"(%p) : (tensor<16x32x!sw.ptr<f32>>) -> tensor<16x32xf32>
    %s = "sw.reduce"(%v) {axis = 1 : i32, kind = "sum"} : (tensor<16x32xf32>) -> tensor<16xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %m) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
    "sw.store"(%op, %s) : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>) -> ()
    "func.return"() : () -> ()
  }
}
