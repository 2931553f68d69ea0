// RUN: %swage-opt %s --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --passes=lower-simt | %swage-opt | FileCheck %s
// sw.split at the SIMT level (docs/simt.md, "Tiles of several dimensions"):
// result element e of half k reads operand element 2e + k. A loaded operand
// goes through shared memory once for both halves (one store, a barrier,
// two loads; no barrier after them where nothing later uses shared memory:
// lower-simt drops its trailing barriers); an operand computed from aranges is recomputed at
// 2e + k; a tile of 2 split to scalars reads one slot, taken as a number by
// simt.vreduce.

// CHECK-LABEL: func.func @halves(
// CHECK:       "simt.load"
// CHECK:       %[[E0:[0-9]+]] = "sw.shl"
// CHECK:       %[[E1:[0-9]+]] = "sw.or"
// CHECK:       "simt.smem_store"
// CHECK-NEXT:  "simt.barrier"
// CHECK-NEXT:  %[[A:[0-9]+]] = "simt.smem_load"(%[[E0]]) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xf32>
// CHECK-NEXT:  %[[B:[0-9]+]] = "simt.smem_load"(%[[E1]]) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xf32>
// CHECK-NOT:   "simt.barrier"
// CHECK-NOT:   "simt.smem_store"
// CHECK:       "sw.sub"(%[[A]], %[[B]])
// CHECK-NOT:   sw.split
// CHECK:       "func.return"

// CHECK-LABEL: func.func @indices(
// CHECK-SAME:  simt.smem_bytes = 0 : i32
// CHECK-NOT:   simt.smem_store
// CHECK-NOT:   sw.split
// CHECK:       "simt.vreduce"({{.*}}) {kind = "max"} : (vector<1xi32>) -> i32
// CHECK:       "func.return"

// CHECK-LABEL: func.func @scalars(
// CHECK:       "simt.smem_store"
// CHECK-NEXT:  "simt.barrier"
// CHECK-NEXT:  "simt.smem_load"({{.*}}) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xi32>
// CHECK-NEXT:  "simt.smem_load"({{.*}}) {offset = 0 : i32} : (vector<1xi32>) -> vector<1xi32>
// CHECK-NOT:   "simt.barrier"
// CHECK:       "sw.cast"({{.*}}) : (vector<1xi32>) -> vector<1xi1>
// CHECK:       "simt.vreduce"({{.*}}) {kind = "max"} : (vector<1xi1>) -> i1
// CHECK:       "simt.vreduce"({{.*}}) {kind = "max"} : (vector<1xi1>) -> i1
// CHECK-NOT:   sw.split
// CHECK:       "func.return"
module {
  func.func @halves(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
    %i = "sw.arange"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
    %p = "sw.addptr"(%xs, %i) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
    %v = "sw.load"(%p) : (tensor<64x!sw.ptr<f32>>) -> tensor<64xf32>
    %v2 = "sw.reshape"(%v) : (tensor<64xf32>) -> tensor<32x2xf32>
    %a = "sw.split"(%v2) {index = 0 : i32} : (tensor<32x2xf32>) -> tensor<32xf32>
    %b = "sw.split"(%v2) {index = 1 : i32} : (tensor<32x2xf32>) -> tensor<32xf32>
    %s = "sw.sub"(%a, %b) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    %j = "sw.arange"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<32x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %j) : (tensor<32x!sw.ptr<f32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<f32>>
    "sw.store"(%op, %s) : (tensor<32x!sw.ptr<f32>>, tensor<32xf32>) -> ()
    "func.return"() : () -> ()
  }
  func.func @indices(%out: !sw.ptr<i32>) {
    %i = "sw.arange"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %v2 = "sw.reshape"(%i) : (tensor<64xi32>) -> tensor<32x2xi32>
    %b = "sw.split"(%v2) {index = 1 : i32} : (tensor<32x2xi32>) -> tensor<32xi32>
    %t = "sw.constant"() {value = 3 : i32} : () -> tensor<2xi32>
    %c = "sw.split"(%t) {index = 1 : i32} : (tensor<2xi32>) -> i32
    %cs = "sw.splat"(%c) : (i32) -> tensor<32xi32>
    %r = "sw.add"(%b, %cs) : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
    %j = "sw.arange"() {end = 32 : i32, start = 0 : i32} : () -> tensor<32xi32>
    %os = "sw.splat"(%out) : (!sw.ptr<i32>) -> tensor<32x!sw.ptr<i32>>
    %op = "sw.addptr"(%os, %j) : (tensor<32x!sw.ptr<i32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<i32>>
    "sw.store"(%op, %r) : (tensor<32x!sw.ptr<i32>>, tensor<32xi32>) -> ()
    "func.return"() : () -> ()
  }
  func.func @scalars(%x: !sw.ptr<i32>, %out: !sw.ptr<i1>) {
    %i = "sw.arange"() {end = 2 : i32, start = 0 : i32} : () -> tensor<2xi32>
    %xs = "sw.splat"(%x) : (!sw.ptr<i32>) -> tensor<2x!sw.ptr<i32>>
    %p = "sw.addptr"(%xs, %i) : (tensor<2x!sw.ptr<i32>>, tensor<2xi32>) -> tensor<2x!sw.ptr<i32>>
    %v = "sw.load"(%p) : (tensor<2x!sw.ptr<i32>>) -> tensor<2xi32>
    %z = "sw.constant"() {value = 0 : i32} : () -> tensor<2xi32>
    %nz = "sw.cmp"(%v, %z) {predicate = "ne"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %a = "sw.split"(%nz) {index = 0 : i32} : (tensor<2xi1>) -> i1
    %b = "sw.split"(%nz) {index = 1 : i32} : (tensor<2xi1>) -> i1
    %c = "sw.xor"(%a, %b) : (i1, i1) -> i1
    "sw.store"(%out, %c) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}
