// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// The verifier's rules of the scan ops (docs/ir-format.md).

// CHECK: error: the combine region of 'sw.scan' takes 2 arguments (1 accumulators, then 1 elements), got 1
func.func @arity(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %s = "sw.scan"(%t) ({
  ^bb0(%a: f32):
    "sw.yield"(%a) : (f32) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.yield' value #0 in the combine region of 'sw.reduce_fn' has type i32, not f32
func.func @yield_type(%x: f32, %y: i32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %s = "sw.reduce_fn"(%t) ({
  ^bb0(%a: f32, %b: f32):
    "sw.yield"(%y) : (i32) -> ()
  }) : (tensor<8xf32>) -> f32
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.load' may not appear in the combine function of 'sw.scan'
func.func @impure(%x: f32, %p: !sw.ptr<f32>) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %s = "sw.scan"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %l = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    "sw.yield"(%l) : (f32) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.histogram' operand type tensor<8xf32> must be a tile of integers
func.func @histogram(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %h = "sw.histogram"(%t) : (tensor<8xf32>) -> tensor<4xi32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.gather' result type tensor<8xf32> must be tensor<4xf32>
func.func @gather(%x: f32, %i: i32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %j = "sw.splat"(%i) : (i32) -> tensor<4xi32>
  %g = "sw.gather"(%t, %j) : (tensor<8xf32>, tensor<4xi32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.scan' attribute 'axis' must be an integer in 0..rank-1 of tiles of rank >= 2 (tensor<4x8xf32>)
func.func @scan_axis_range(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %s = "sw.scan"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%c) : (f32) -> ()
  }) {axis = 2 : i32} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.scan' result #0 type tensor<8xf32> must be tensor<4x8xf32>
func.func @scan_axis_result(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %s = "sw.scan"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%c) : (f32) -> ()
  }) {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.gather' index type tensor<4x4xi32> must be a tile of integers of the source's rank and dims but at the axis (tensor<4x8xf32>)
func.func @gather_axis_dims(%x: f32, %i: i32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %j = "sw.splat"(%i) : (i32) -> tensor<4x4xi32>
  %g = "sw.gather"(%t, %j) {axis = 0 : i32} : (tensor<4x8xf32>, tensor<4x4xi32>) -> tensor<4x4xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.gather' source type tensor<4x8xf32> must be a 1-D tile of numbers (tiles of several dimensions need attribute 'axis')
func.func @gather_2d_without_axis(%x: f32, %i: i32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %j = "sw.splat"(%i) : (i32) -> tensor<4x8xi32>
  %g = "sw.gather"(%t, %j) : (tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.gather' attribute 'axis' must be an integer in 0..rank-1 of a source tile of numbers of rank >= 2 (tensor<8xf32>)
func.func @gather_1d_axis(%x: f32, %i: i32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %j = "sw.splat"(%i) : (i32) -> tensor<8xi32>
  %g = "sw.gather"(%t, %j) {axis = 0 : i32} : (tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}
