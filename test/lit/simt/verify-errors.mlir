// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// One chunk per verifier rule of the SIMT level (docs/simt.md, "Verifier
// rules"); each diagnostic names the op and the types involved.

// The two levels do not mix.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.thread_id' is a SIMT op; it may only appear in a function with the attribute simt.num_threads
func.func @k() {
  %0 = "simt.thread_id"() : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: result #0 of 'sw.splat' has the vector type vector<4xi32>; vectors belong to SIMT functions (with simt.num_threads)
func.func @k(%a: i32) {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: result #0 of 'sw.splat' has the tile type tensor<4xi32>; a SIMT function holds no tiles
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> tensor<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.program_id' is a semantic op; it cannot appear in a SIMT function (one with simt.num_threads)
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// (segment programs have no SIMT form: the fuzzer's input reached the PTX emitter)
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.segment_id' is a semantic op; it cannot appear in a SIMT function (one with simt.num_threads)
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.store' is a semantic op; it cannot appear in a SIMT function (one with simt.num_threads)
func.func @k(%p: !sw.ptr<i32>, %a: i32) attributes {simt.num_threads = 32 : i32} {
  "sw.store"(%p, %a) : (!sw.ptr<i32>, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.reduce' operand type vector<4xi32> must be a tile of numbers
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.reduce"(%0) {kind = "sum"} : (vector<4xi32>) -> i32
  "func.return"() : () -> ()
}

// -----
// Function attributes.
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' attribute simt.num_threads must be an integer power of two in 32..1024
func.func @k() attributes {simt.num_threads = 48 : i32} {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' attribute simt.num_threads must be an integer power of two in 32..1024
func.func @k() attributes {simt.num_threads = 2048 : i32} {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' attribute simt.num_threads must be an integer power of two in 32..1024
func.func @k() attributes {simt.num_threads = "many"} {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' attribute simt.smem_bytes must be an integer >= 0
func.func @k() attributes {simt.num_threads = 64 : i32, simt.smem_bytes = -8 : i32} {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' has simt.smem_bytes but no simt.num_threads
func.func @k() attributes {simt.smem_bytes = 8 : i32} {
  "func.return"() : () -> ()
}

// -----
// Thread, block and grid queries.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.thread_id' result type i64 must be i32
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.thread_id"() : () -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.block_id' needs an integer attribute 'axis' of 0, 1 or 2
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.block_id"() {axis = 3 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.grid_dim' result type i64 must be i32
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.grid_dim"() {axis = 1 : i32} : () -> i64
  "func.return"() : () -> ()
}

// -----
// simt.tile_index.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.tile_index' needs integer attributes 'len' and 'start'
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.tile_index"() {len = 64 : i32} : () -> vector<2xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.tile_index' result type vector<2xi64> must be vector<Vxi32>
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.tile_index"() {len = 64 : i32, start = 0 : i32} : () -> vector<2xi64>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.tile_index' result type vector<3xi32> does not hold a share of a tile of 64 elements over 32 threads (V must divide len and len / V <= num_threads)
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.tile_index"() {len = 64 : i32, start = 0 : i32} : () -> vector<3xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.tile_index' result type vector<1xi32> does not hold a share of a tile of 64 elements over 32 threads (V must divide len and len / V <= num_threads)
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.tile_index"() {len = 64 : i32, start = 0 : i32} : () -> vector<1xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.tile_index' range of 16 elements from 2147483640 does not fit in i32
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.tile_index"() {len = 16 : i32, start = 2147483640 : i32} : () -> vector<1xi32>
  "func.return"() : () -> ()
}

// -----
// simt.load and simt.store.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.load' operand #0 type !sw.ptr<f32> must be a vector of pointers
func.func @k(%p: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.load"(%p) {vec = 1 : i32} : (!sw.ptr<f32>) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.load' result type vector<4xf64> does not match the pointee of vector<4x!sw.ptr<f32>> (expected vector<4xf32>)
func.func @k(%p: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "simt.load"(%0) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>) -> vector<4xf64>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'simt.load' mask type vector<2xi1> does not match the shape of vector<4x!sw.ptr<f32>> (expected vector<4xi1>)
func.func @k(%p: !sw.ptr<f32>, %c: i1, %x: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %m = "sw.splat"(%c) : (i1) -> vector<2xi1>
  %1 = "simt.load"(%0, %m, %x) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<2xi1>, f32) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.load' needs an integer attribute 'vec': a power of two that divides the layout chunk (min(V, 4) slots) of vector<4x!sw.ptr<f32>>
func.func @k(%p: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "simt.load"(%0) : (vector<4x!sw.ptr<f32>>) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.load' needs an integer attribute 'vec': a power of two that divides the layout chunk (min(V, 4) slots) of vector<4x!sw.ptr<f32>>
func.func @k(%p: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "simt.load"(%0) {vec = 8 : i32} : (vector<4x!sw.ptr<f32>>) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.load' takes 1 operand (ptr) or 3 (ptr, mask, other), got 2
func.func @k(%p: !sw.ptr<f32>, %c: i1) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "simt.load"(%0, %0) {vec = 1 : i32} : (vector<4x!sw.ptr<f32>>, vector<4x!sw.ptr<f32>>) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:3: error: 'simt.store' value type vector<4xi32> does not match the pointee of vector<4x!sw.ptr<f32>> (expected vector<4xf32>)
func.func @k(%p: !sw.ptr<f32>, %a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  "simt.store"(%0, %1) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:8: error: 'simt.load' attribute 'vec_mask' must be "first" or "last", on a masked access with vec > 1
func.func @k(%p: !sw.ptr<f32>, %m: i1) attributes {simt.num_threads = 32 : i32} {
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %ms = "sw.splat"(%m) : (i1) -> vector<4xi1>
  %o = "sw.constant"() {value = 0.0 : f32} : () -> vector<4xf32>
  %0 = "simt.load"(%ps, %ms, %o) {vec = 4 : i32, vec_mask = "middle"} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.load' attribute 'vec_mask' must be "first" or "last", on a masked access with vec > 1
func.func @k(%p: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32} {
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %0 = "simt.load"(%ps) {vec = 4 : i32, vec_mask = "last"} : (vector<4x!sw.ptr<f32>>) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:8: error: 'simt.load' attribute 'vec_all' must be a bool, on an access with vec > 1 (masked: with vec_mask)
func.func @k(%p: !sw.ptr<f32>, %m: i1) attributes {simt.num_threads = 32 : i32} {
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>
  %ms = "sw.splat"(%m) : (i1) -> vector<8xi1>
  %o = "sw.constant"() {value = 0.0 : f32} : () -> vector<8xf32>
  %0 = "simt.load"(%ps, %ms, %o) {vec = 4 : i32, vec_all = true} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:3: error: 'simt.store' needs an integer attribute 'vec': a power of two that divides the layout chunk (min(V, 4) slots) of vector<4x!sw.ptr<f32>>
func.func @k(%p: !sw.ptr<f32>, %a: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "sw.splat"(%a) : (f32) -> vector<4xf32>
  "simt.store"(%0, %1) {vec = 3 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// simt.vreduce.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.vreduce' operand type f32 must be a vector of numbers
func.func @k(%a: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.vreduce"(%a) {kind = "sum"} : (f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.vreduce' result type f64 must be the element type of vector<4xf32>
func.func @k(%a: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (f32) -> vector<4xf32>
  %1 = "simt.vreduce"(%0) {kind = "sum"} : (vector<4xf32>) -> f64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.vreduce' needs a string attribute 'kind': sum, max, min or prod
func.func @k(%a: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (f32) -> vector<4xf32>
  %1 = "simt.vreduce"(%0) {kind = "mean"} : (vector<4xf32>) -> f32
  "func.return"() : () -> ()
}

// -----
// simt.shfl_xor.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.shfl_xor' needs an integer attribute 'offset' in 1..16
func.func @k(%a: f32) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.shfl_xor"(%a) {offset = 32 : i32} : (f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.shfl_xor' operand type i8 must be a 32- or 64-bit scalar, f16 or bf16
func.func @k(%a: i8) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.shfl_xor"(%a) {offset = 4 : i32} : (i8) -> i8
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.shfl_xor' operand type vector<2xi8> must be a 32- or 64-bit scalar, f16 or bf16 (or a vector of them)
func.func @k(%a: i8) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i8) -> vector<2xi8>
  %1 = "simt.shfl_xor"(%0) {offset = 4 : i32} : (vector<2xi8>) -> vector<2xi8>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.vslots' needs a string attribute 'slots' of 2 slot indices in 0..3
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "simt.vslots"(%0) {slots = "0,4"} : (vector<4xi32>) -> vector<2xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'simt.vslots' takes a vector to a vector of its element type, got vector<4xi32> to vector<2xf32>
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "simt.vslots"(%0) {slots = "0,2"} : (vector<4xi32>) -> vector<2xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.shfl_xor' result type i64 does not match its operand type i32
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.shfl_xor"(%a) {offset = 4 : i32} : (i32) -> i64
  "func.return"() : () -> ()
}

// -----
// Shared memory.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' index type i64 must be i32
func.func @k(%i: i64, %a: f32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i, %a) {offset = 0 : i32} : (i64, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:3: error: 'simt.smem_store' value type vector<2xf32> must be a number of the index's shape
func.func @k(%i: i32, %a: f32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  %0 = "sw.splat"(%a) : (f32) -> vector<2xf32>
  "simt.smem_store"(%i, %0) {offset = 0 : i32} : (i32, vector<2xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' mask type i32 must be i1
func.func @k(%i: i32, %a: f32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i, %a, %i) {offset = 0 : i32} : (i32, f32, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' takes 2 operands (index, value) or 3 (index, value, mask), got 1
func.func @k(%i: i32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i) {offset = 0 : i32} : (i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' needs an integer attribute 'offset' >= 0, a multiple of 8 (the size of f64)
func.func @k(%i: i32, %a: f64) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i, %a) {offset = 4 : i32} : (i32, f64) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' needs an integer attribute 'offset' >= 0, a multiple of 4 (the size of f32)
func.func @k(%i: i32, %a: f32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i, %a) {offset = -4 : i32} : (i32, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'simt.smem_store' offset 64 addresses past the function's simt.smem_bytes = 64
func.func @k(%i: i32, %a: f32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  "simt.smem_store"(%i, %a) {offset = 64 : i32} : (i32, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.smem_load' offset 0 addresses past the function's simt.smem_bytes = 0
func.func @k(%i: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.smem_load"(%i) {offset = 0 : i32} : (i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.smem_load' result type !sw.ptr<f32> must be a number of the index's shape
func.func @k(%i: i32) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {
  %0 = "simt.smem_load"(%i) {offset = 0 : i32} : (i32) -> !sw.ptr<f32>
  "func.return"() : () -> ()
}

// -----
// Generic sw.* ops on vectors: one shape for all operands.
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.splat' result type vector<4xf32> is not a vector of its operand type i32
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.add' operand types vector<4xi32> and vector<2xi32> differ
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.splat"(%a) : (i32) -> vector<2xi32>
  %2 = "sw.add"(%0, %1) : (vector<4xi32>, vector<2xi32>) -> vector<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.cast' cannot change the shape (vector<4xi32> to vector<2xf32>)
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.cast"(%0) : (vector<4xi32>) -> vector<2xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.cast' cannot change the shape (vector<4xi32> to i32)
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.cast"(%0) : (vector<4xi32>) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.cmp' result type i1 must be i1 in the shape of vector<4xi32> (expected vector<4xi1>)
func.func @k(%a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.cmp"(%0, %0) {predicate = "lt"} : (vector<4xi32>, vector<4xi32>) -> i1
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.select' condition type i1 must be i1 in the shape of vector<4xi32> (expected vector<4xi1>)
func.func @k(%a: i32, %c: i1) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%a) : (i32) -> vector<4xi32>
  %1 = "sw.select"(%c, %0, %0) : (i1, vector<4xi32>, vector<4xi32>) -> vector<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.addptr' offset type vector<2xi32> must be i32 or i64 in the shape of vector<4x!sw.ptr<f32>>
func.func @k(%p: !sw.ptr<f32>, %a: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
  %1 = "sw.splat"(%a) : (i32) -> vector<2xi32>
  %2 = "sw.addptr"(%0, %1) : (vector<4x!sw.ptr<f32>>, vector<2xi32>) -> vector<4x!sw.ptr<f32>>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' result type vector<4x!sw.ptr<f32>> is a pointer; constants are numbers
func.func @k() attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.constant"() {value = 0 : i64} : () -> vector<4x!sw.ptr<f32>>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:25: error: vector dimension must be at least 1
func.func @k(%a: vector<0xf32>) {
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' parameter #0 has type vector<4xf32>; parameters are scalars or pointers
func.func @k(%a: vector<4xf32>) attributes {simt.num_threads = 32 : i32} {
  "func.return"() : () -> ()
}
