// RUN: %swage-opt %s --split-input-file | %swage-opt --split-input-file | FileCheck %s
// Tiles of rank 2 and 3 (docs/ir-format.md): their types and the shape ops
// print and parse back unchanged.

// CHECK-LABEL: func.func @shapes(
// CHECK: "sw.reshape"(%{{[0-9]+}}) : (tensor<16xi32>) -> tensor<16x1xi32>
// CHECK: "sw.broadcast"(%{{[0-9]+}}) : (tensor<16x1xi32>) -> tensor<16x32xi32>
// CHECK: "sw.reshape"(%{{[0-9]+}}) : (tensor<32xi32>) -> tensor<1x32xi32>
// CHECK: "sw.addptr"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<16x32x!sw.ptr<f32>>, tensor<16x32xi32>) -> tensor<16x32x!sw.ptr<f32>>
// CHECK: "sw.load"(%{{[0-9]+}}) : (tensor<16x32x!sw.ptr<f32>>) -> tensor<16x32xf32>
// CHECK: "sw.reduce"(%{{[0-9]+}}) {axis = 1 : i32, kind = "sum"} : (tensor<16x32xf32>) -> tensor<16xf32>
// CHECK: "sw.trans"(%{{[0-9]+}}) {order = "1,0"} : (tensor<16x32xf32>) -> tensor<32x16xf32>
// CHECK: "sw.constant"() {value = 0 : i32} : () -> tensor<2x4x8xi32>
func.func @shapes(%p: !sw.ptr<f32>) {
  %m = "sw.arange"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
  %n = "sw.arange"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %m1 = "sw.reshape"(%m) : (tensor<16xi32>) -> tensor<16x1xi32>
  %mb = "sw.broadcast"(%m1) : (tensor<16x1xi32>) -> tensor<16x32xi32>
  %n1 = "sw.reshape"(%n) : (tensor<32xi32>) -> tensor<1x32xi32>
  %nb = "sw.broadcast"(%n1) : (tensor<1x32xi32>) -> tensor<16x32xi32>
  %c32 = "sw.constant"() {value = 32 : i32} : () -> tensor<16x32xi32>
  %r = "sw.mul"(%mb, %c32) : (tensor<16x32xi32>, tensor<16x32xi32>) -> tensor<16x32xi32>
  %o = "sw.add"(%r, %nb) : (tensor<16x32xi32>, tensor<16x32xi32>) -> tensor<16x32xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<16x32x!sw.ptr<f32>>
  %a = "sw.addptr"(%ps, %o) : (tensor<16x32x!sw.ptr<f32>>, tensor<16x32xi32>) -> tensor<16x32x!sw.ptr<f32>>
  %x = "sw.load"(%a) : (tensor<16x32x!sw.ptr<f32>>) -> tensor<16x32xf32>
  %s = "sw.reduce"(%x) {kind = "sum", axis = 1 : i32} : (tensor<16x32xf32>) -> tensor<16xf32>
  %t = "sw.trans"(%x) {order = "1,0"} : (tensor<16x32xf32>) -> tensor<32x16xf32>
  %z = "sw.constant"() {value = 0 : i32} : () -> tensor<2x4x8xi32>
  "func.return"() : () -> ()
}

// -----

// sw.split: one half of a tile whose last dim is 2 (a scalar from a tile
// of 2); pointer tiles split too.
// CHECK-LABEL: func.func @split(
// CHECK: "sw.split"(%{{[0-9]+}}) {index = 0 : i32} : (tensor<16x2xf32>) -> tensor<16xf32>
// CHECK: "sw.split"(%{{[0-9]+}}) {index = 1 : i32} : (tensor<4x8x2xi1>) -> tensor<4x8xi1>
// CHECK: "sw.split"(%{{[0-9]+}}) {index = 1 : i32} : (tensor<2xf16>) -> f16
// CHECK: "sw.split"(%{{[0-9]+}}) {index = 0 : i32} : (tensor<8x2x!sw.ptr<i64>>) -> tensor<8x!sw.ptr<i64>>
func.func @split(%x: f32, %b: i1, %h: f16, %p: !sw.ptr<i64>) {
  %a = "sw.splat"(%x) : (f32) -> tensor<16x2xf32>
  %a0 = "sw.split"(%a) {index = 0 : i32} : (tensor<16x2xf32>) -> tensor<16xf32>
  %c = "sw.splat"(%b) : (i1) -> tensor<4x8x2xi1>
  %c1 = "sw.split"(%c) {index = 1 : i32} : (tensor<4x8x2xi1>) -> tensor<4x8xi1>
  %d = "sw.splat"(%h) : (f16) -> tensor<2xf16>
  %d1 = "sw.split"(%d) {index = 1 : i32} : (tensor<2xf16>) -> f16
  %q = "sw.splat"(%p) : (!sw.ptr<i64>) -> tensor<8x2x!sw.ptr<i64>>
  %q0 = "sw.split"(%q) {index = 0 : i32} : (tensor<8x2x!sw.ptr<i64>>) -> tensor<8x!sw.ptr<i64>>
  "func.return"() : () -> ()
}
