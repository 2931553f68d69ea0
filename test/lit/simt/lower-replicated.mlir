// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt > %t.simt
// RUN: %swage-opt %t.simt --split-input-file > %t.again
// RUN: diff %t.simt %t.again
// Replication: a tile of N elements with N / V < T is held by copies; only
// the owners (tid < N / V) store.

// maxN = 1024 fixes T = 128; the 64-element tile has V = 1 and 64 owners.
// Its store is masked by tid < 64 (and-ed with its own mask); the
// 1024-element store needs no owner mask.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME: attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 0 : i32}
// CHECK-NEXT: %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK:      %[[SMALL:[0-9]+]] = "simt.tile_index"() {len = 64 : i32, start = 0 : i32} : () -> vector<1xi32>
// CHECK:      %[[SP:[0-9]+]] = "sw.addptr"(%{{[0-9]+}}, %[[SMALL]]) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>
// CHECK:      %[[M:[0-9]+]] = "sw.cmp"(%[[SMALL]], %{{[0-9]+}}) {predicate = "lt"} : (vector<1xi32>, vector<1xi32>) -> vector<1xi1>
// CHECK:      %[[V:[0-9]+]] = "simt.load"(%[[SP]], %[[M]], %{{[0-9]+}}) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xi1>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT: %[[N64:[0-9]+]] = "sw.constant"() {value = 64 : i32} : () -> i32
// CHECK-NEXT: %[[OWN:[0-9]+]] = "sw.cmp"(%[[TID]], %[[N64]]) {predicate = "lt"} : (i32, i32) -> i1
// CHECK-NEXT: %[[OWNV:[0-9]+]] = "sw.splat"(%[[OWN]]) : (i1) -> vector<1xi1>
// CHECK-NEXT: %[[MASK:[0-9]+]] = "sw.and"(%[[M]], %[[OWNV]]) : (vector<1xi1>, vector<1xi1>) -> vector<1xi1>
// CHECK-NEXT: "simt.store"(%[[SP]], %[[V]], %[[MASK]]) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> ()
// CHECK:      "simt.tile_index"() {len = 1024 : i32, start = 0 : i32} : () -> vector<8xi32>
// CHECK:      "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}) {vec = 4 : i32, vec_all = true} : (vector<8x!sw.ptr<f32>>, vector<8xf32>) -> ()
// CHECK-NEXT: "func.return"() : () -> ()
module {
  func.func @mixed(%small_ptr: !sw.ptr<f32>, %big_ptr: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.arange"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %1 = "sw.splat"(%small_ptr) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
    %3 = "sw.splat"(%n) : (i32) -> tensor<64xi32>
    %4 = "sw.cmp"(%0, %3) {predicate = "lt"} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
    %5 = "sw.constant"() {value = 0.0 : f32} : () -> tensor<64xf32>
    %6 = "sw.load"(%2, %4, %5) : (tensor<64x!sw.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
    "sw.store"(%2, %6, %4) : (tensor<64x!sw.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
    %7 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %8 = "sw.splat"(%big_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %9 = "sw.addptr"(%8, %7) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %10 = "sw.constant"() {value = 1.0 : f32} : () -> tensor<1024xf32>
    "sw.store"(%9, %10) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// A tile shorter than T with V = 1 and no mask: the owner mask is the
// store's mask. Tiles of 8 elements in one warp: 8 owners, 24 copies.
// CHECK-LABEL: func.func @tiny
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK-NEXT: %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK-NEXT: %[[IDX:[0-9]+]] = "simt.tile_index"() {len = 8 : i32, start = 16 : i32} : () -> vector<1xi32>
// CHECK:      %[[N8:[0-9]+]] = "sw.constant"() {value = 8 : i32} : () -> i32
// CHECK-NEXT: %[[OWN:[0-9]+]] = "sw.cmp"(%[[TID]], %[[N8]]) {predicate = "lt"} : (i32, i32) -> i1
// CHECK-NEXT: %[[OWNV:[0-9]+]] = "sw.splat"(%[[OWN]]) : (i1) -> vector<1xi1>
// CHECK-NEXT: "simt.store"(%{{[0-9]+}}, %[[IDX]], %[[OWNV]]) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>, vector<1xi1>) -> ()
module {
  func.func @tiny(%p: !sw.ptr<i32>) {
    %0 = "sw.arange"() {end = 24 : i32, start = 16 : i32} : () -> tensor<8xi32>
    %1 = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<8x!sw.ptr<i32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<8x!sw.ptr<i32>>, tensor<8xi32>) -> tensor<8x!sw.ptr<i32>>
    "sw.store"(%2, %0) : (tensor<8x!sw.ptr<i32>>, tensor<8xi32>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// 256 elements over T = 64 threads: V = 4, every thread an owner; a
// 128-element tile in the same kernel has V = 2 and 64 owners: no mask.
// CHECK-LABEL: func.func @two_lengths
// CHECK-SAME: attributes {simt.num_threads = 64 : i32, simt.smem_bytes = 0 : i32}
// CHECK-NOT:  simt.thread_id
// CHECK:      "simt.tile_index"() {len = 256 : i32, start = 0 : i32} : () -> vector<4xi32>
// CHECK:      "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}) {vec = 4 : i32} : (vector<4x!sw.ptr<i32>>, vector<4xi32>) -> ()
// CHECK:      "simt.tile_index"() {len = 128 : i32, start = 0 : i32} : () -> vector<2xi32>
// CHECK:      "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}) {vec = 2 : i32} : (vector<2x!sw.ptr<i32>>, vector<2xi32>) -> ()
module {
  func.func @two_lengths(%p: !sw.ptr<i32>) {
    %0 = "sw.arange"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
    %1 = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<256x!sw.ptr<i32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<256x!sw.ptr<i32>>, tensor<256xi32>) -> tensor<256x!sw.ptr<i32>>
    "sw.store"(%2, %0) : (tensor<256x!sw.ptr<i32>>, tensor<256xi32>) -> ()
    %3 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %4 = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<128x!sw.ptr<i32>>
    %5 = "sw.addptr"(%4, %3) : (tensor<128x!sw.ptr<i32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<i32>>
    "sw.store"(%5, %3) : (tensor<128x!sw.ptr<i32>>, tensor<128xi32>) -> ()
    "func.return"() : () -> ()
  }
}
