// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// The verifier's shape rules (docs/ir-format.md): elementwise ops need one
// shape (dims, not only the element count), and the shape ops their own.

// CHECK: error: 'sw.add' operand types tensor<4x8xf32> and tensor<8x4xf32> differ
func.func @elementwise(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %b = "sw.splat"(%x) : (f32) -> tensor<8x4xf32>
  %c = "sw.add"(%a, %b) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.broadcast' cannot broadcast tensor<4x2xf32> to tensor<4x8xf32> (the same rank; each dim equal, or 1 in the operand)
func.func @broadcast(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %b = "sw.broadcast"(%a) : (tensor<4x2xf32>) -> tensor<4x8xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.reshape' of tensor<4x2xf32> to tensor<16xf32> changes the number of elements
func.func @reshape(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %b = "sw.reshape"(%a) : (tensor<4x2xf32>) -> tensor<16xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.trans' needs a string attribute 'order', a permutation of 0..1 ("1,0")
func.func @trans_order(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %b = "sw.trans"(%a) {order = "0,0"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.trans' result type tensor<4x2xf32>: dim 0 must be dim 1 of tensor<4x2xf32>
func.func @trans_dims(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %b = "sw.trans"(%a) {order = "1,0"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.reduce' along axis 0 of tensor<4x2xf32> gives tensor<2xf32>, not tensor<4xf32>
func.func @reduce_axis(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %b = "sw.reduce"(%a) {kind = "sum", axis = 0 : i32} : (tensor<4x2xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.reduce' attribute 'axis' must be an integer in 0..rank-1 of a tile of rank >= 2 (tensor<8xf32>)
func.func @reduce_1d_axis(%x: f32) {
  %a = "sw.splat"(%x) : (f32) -> tensor<8xf32>
  %b = "sw.reduce"(%a) {kind = "sum", axis = 0 : i32} : (tensor<8xf32>) -> f32
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.scan' operand #0 type tensor<4x2xf32> must be a 1-D tile of numbers of the first operand's length (tiles of several dimensions need attribute 'axis')
func.func @scan_2d(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %s = "sw.scan"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%c) : (f32) -> ()
  }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.reduce_fn' result #0 type f32 must be tensor<4xf32>
func.func @reduce_fn_axis(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %s = "sw.reduce_fn"(%t) ({
  ^bb0(%a: f32, %b: f32):
    %c = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%c) : (f32) -> ()
  }) {axis = 1 : i32} : (tensor<4x2xf32>) -> f32
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.split' operand type tensor<4x8xf32> must be a tile whose last dim is 2
func.func @split_last_dim(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x8xf32>
  %s = "sw.split"(%t) {index = 0 : i32} : (tensor<4x8xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.split' needs an integer attribute 'index', 0 or 1
func.func @split_index(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %s = "sw.split"(%t) {index = 2 : i32} : (tensor<4x2xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.split' of tensor<4x2xf32> gives tensor<2xf32>, the operand without its last dim (its element type for a tile of 2)
func.func @split_result(%x: f32) {
  %t = "sw.splat"(%x) : (f32) -> tensor<4x2xf32>
  %s = "sw.split"(%t) {index = 1 : i32} : (tensor<4x2xf32>) -> tensor<2xf32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.split' of tensor<2x!sw.ptr<f32>>: a tile of 2 pointers does not split into scalars
func.func @split_pointer_pair(%p: !sw.ptr<f32>) {
  %t = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<2x!sw.ptr<f32>>
  %s = "sw.split"(%t) {index = 1 : i32} : (tensor<2x!sw.ptr<f32>>) -> !sw.ptr<f32>
  "func.return"() : () -> ()
}
