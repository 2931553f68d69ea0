// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// The verifier's rules for the atomics (docs/ir-format.md): operand and
// result types, the kind, sem and scope attributes, the element types each
// kind takes, and the level and program kind they belong to.

// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' needs a string attribute 'kind', one of add max min and or xor xchg
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "sub", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' needs a string attribute 'sem', one of relaxed acquire release acq_rel
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "add", sem = "seq_cst", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_cas' needs a string attribute 'scope', one of cta gpu sys
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %0 = "sw.atomic_cas"(%p, %v, %v) {sem = "relaxed"} : (!sw.ptr<i32>, i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' and does not apply to f32 elements (it takes i32, ui32, i64 or ui64)
func.func @k(%p: !sw.ptr<f32>, %v: f32) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "and", sem = "relaxed", scope = "gpu"} : (!sw.ptr<f32>, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' max does not apply to f16 elements (it takes i32, ui32, i64, ui64, f32 or f64)
func.func @k(%p: !sw.ptr<f16>, %v: f16) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "max", sem = "relaxed", scope = "gpu"} : (!sw.ptr<f16>, f16) -> f16
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_cas' compare-and-swap does not apply to i8 elements (it takes i32, ui32, i64, ui64, f16, bf16, f32 or f64)
func.func @k(%p: !sw.ptr<i8>, %v: i8) {
  %0 = "sw.atomic_cas"(%p, %v, %v) {sem = "relaxed", scope = "gpu"} : (!sw.ptr<i8>, i8, i8) -> i8
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' value type i64 does not match the pointee of !sw.ptr<i32> (expected i32)
func.func @k(%p: !sw.ptr<i32>, %v: i64) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i64) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_cas' cmp type f64 does not match the pointee of !sw.ptr<f32> (expected f32)
func.func @k(%p: !sw.ptr<f32>, %v: f32, %w: f64) {
  %0 = "sw.atomic_cas"(%p, %w, %v) {sem = "relaxed", scope = "gpu"} : (!sw.ptr<f32>, f64, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' result type i64 does not match the pointee of !sw.ptr<i32> (expected i32)
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.atomic_rmw' mask type i1 does not match the shape of tensor<4x!sw.ptr<i32>> (expected tensor<4xi1>)
func.func @k(%p: !sw.ptr<i32>, %v: i32, %m: i1) {
  %ps = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<4x!sw.ptr<i32>>
  %vs = "sw.splat"(%v) : (i32) -> tensor<4xi32>
  %0 = "sw.atomic_rmw"(%ps, %vs, %m) {kind = "add", sem = "relaxed", scope = "gpu"} : (tensor<4x!sw.ptr<i32>>, tensor<4xi32>, i1) -> tensor<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_cas' takes 3 operands (ptr, cmp, value) or 4 (with a mask), got 2
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %0 = "sw.atomic_cas"(%p, %v) {sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_rmw' operand #0 type i32 must be a pointer or a tile of pointers
func.func @k(%p: i32, %v: i32) {
  %0 = "sw.atomic_rmw"(%p, %v) {kind = "add", sem = "relaxed", scope = "gpu"} : (i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// Atomics make a grid program: not in a segment program.
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 4]]:10: error: 'sw.segment_id' cannot appear in a function that also uses 'sw.atomic_rmw' (line [[# @LINE + 3]]): a function is either a segment program or a grid program
func.func @k(%p: !sw.ptr<i32>, %v: i32) {
  %one = "sw.constant"() {value = 1 : i32} : () -> i32
  %0 = "sw.atomic_rmw"(%p, %one) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.atomic_cas' is a semantic op; it cannot appear in a SIMT function
func.func @k(%p: !sw.ptr<i32>, %v: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "sw.atomic_cas"(%p, %v, %v) {sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: atomics-verify-errors.mlir:[[# @LINE + 2]]:8: error: 'simt.atomic_rmw' operand #0 type !sw.ptr<i32> must be a vector of pointers
func.func @k(%p: !sw.ptr<i32>, %v: i32) attributes {simt.num_threads = 32 : i32} {
  %0 = "simt.atomic_rmw"(%p, %v) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  "func.return"() : () -> ()
}
