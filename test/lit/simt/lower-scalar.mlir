// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt > %t.simt
// RUN: %swage-opt %t.simt --split-input-file > %t.again
// RUN: diff %t.simt %t.again
// Scalar memory (docs/simt.md, "Scalar memory"): a store through a scalar
// pointer is a one-slot simt.store made by thread 0 only (its mask and-ed
// with tid == 0); a scalar load is a one-slot simt.load made by every
// thread, whose slot simt.vreduce {kind = "max"} returns unchanged.

// CHECK-LABEL: func.func @scalars
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK-NEXT: %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK-NEXT: %[[PV:[0-9]+]] = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
// CHECK-NEXT: %[[L:[0-9]+]] = "simt.load"(%[[PV]]) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>) -> vector<1xf32>
// CHECK-NEXT: %[[X:[0-9]+]] = "simt.vreduce"(%[[L]]) {kind = "max"} : (vector<1xf32>) -> f32
// CHECK-NEXT: %[[PV2:[0-9]+]] = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
// CHECK-NEXT: %[[CV:[0-9]+]] = "sw.splat"(%c) : (i1) -> vector<1xi1>
// CHECK-NEXT: %[[XV:[0-9]+]] = "sw.splat"(%x) : (f32) -> vector<1xf32>
// CHECK-NEXT: %[[L2:[0-9]+]] = "simt.load"(%[[PV2]], %[[CV]], %[[XV]]) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xi1>, vector<1xf32>) -> vector<1xf32>
// CHECK-NEXT: %[[Y:[0-9]+]] = "simt.vreduce"(%[[L2]]) {kind = "max"} : (vector<1xf32>) -> f32
// CHECK-NEXT: %[[S:[0-9]+]] = "sw.add"(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Z:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: %[[FIRST:[0-9]+]] = "sw.cmp"(%[[TID]], %[[Z]]) {predicate = "eq"} : (i32, i32) -> i1
// CHECK-NEXT: %[[M:[0-9]+]] = "sw.and"(%c, %[[FIRST]]) : (i1, i1) -> i1
// CHECK-NEXT: %[[PV3:[0-9]+]] = "sw.splat"(%q) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
// CHECK-NEXT: %[[SV:[0-9]+]] = "sw.splat"(%[[S]]) : (f32) -> vector<1xf32>
// CHECK-NEXT: %[[MV:[0-9]+]] = "sw.splat"(%[[M]]) : (i1) -> vector<1xi1>
// CHECK-NEXT: "simt.store"(%[[PV3]], %[[SV]], %[[MV]]) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> ()
// CHECK-NEXT: "func.return"() : () -> ()
module {
  func.func @scalars(%p: !sw.ptr<f32>, %q: !sw.ptr<f32>, %c: i1, %x: f32) {
    %0 = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    %1 = "sw.load"(%p, %c, %x) : (!sw.ptr<f32>, i1, f32) -> f32
    %2 = "sw.add"(%0, %1) : (f32, f32) -> f32
    "sw.store"(%q, %2, %c) : (!sw.ptr<f32>, f32, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// A kernel without tiles still runs one warp.
// CHECK-LABEL: func.func @no_tiles
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK:      "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {vec = 1 : i32} : (vector<1x!sw.ptr<i64>>, vector<1xi64>, vector<1xi1>) -> ()
module {
  func.func @no_tiles(%p: !sw.ptr<i64>, %v: i64) {
    "sw.store"(%p, %v) : (!sw.ptr<i64>, i64) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Functions that already carry simt.num_threads are SIMT: left unchanged.
// CHECK-LABEL: func.func @already(%p: !sw.ptr<i32>) attributes {simt.num_threads = 64 : i32} {
// CHECK-NEXT:    "func.return"() : () -> ()
module {
  func.func @already(%p: !sw.ptr<i32>) attributes {simt.num_threads = 64 : i32} {
    "func.return"() : () -> ()
  }
}
