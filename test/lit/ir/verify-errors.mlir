// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// One chunk per verifier rule (docs/ir-format.md, "Verifier rules"); each
// diagnostic names the op and the types involved, at the op's name.

// CHECK: verify-errors.mlir:[[# @LINE + 1]]:6: error: the module body may only hold 'func.func' ops, found 'sw.constant'
%0 = "sw.constant"() {value = 1 : i32} : () -> i32

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' needs a string attribute 'sym_name'
"func.func"() ({
  "func.return"() : () -> ()
}) : () -> ()

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' needs a string attribute 'sym_name'
"func.func"() ({
  "func.return"() : () -> ()
}) {sym_name = 3 : i32} : () -> ()

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: the body of 'func.func' must end with 'func.return'
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) : (i32) -> i32
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'func.return' must be the last op of its block
func.func @k() {
  "func.return"() : () -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.yield' may only end the region of a 'sw.for', 'sw.while', 'sw.if', 'sw.scan' or 'sw.reduce_fn'
func.func @k() {
  "sw.yield"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:5: error: 'func.return' may only end the body of a 'func.func'
func.func @k(%c: i1) {
  "sw.if"(%c) ({
    "func.return"() : () -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:10: error: the body of 'sw.for' must end with 'sw.yield'
func.func @k(%n: i32) {
  "sw.for"(%n, %n, %n) ({
  ^bb0(%i: i32):
    %0 = "sw.neg"(%i) : (i32) -> i32
  }) : (i32, i32, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: the else region of 'sw.if' must end with 'sw.yield'
func.func @k(%c: i1) {
  "sw.if"(%c) ({
    "sw.yield"() : () -> ()
  }, {
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'func.func' may only appear in the module body
func.func @k() {
  "func.func"() ({
    "func.return"() : () -> ()
  }) {sym_name = "inner"} : () -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' parameter #0 has type tensor<4xf32>; parameters are scalars or pointers
func.func @k(%t: tensor<4xf32>) {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.add' takes 2 operands, got 1
func.func @k(%a: i32) {
  %0 = "sw.add"(%a) : (i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:10: error: 'sw.neg' takes 1 result, got 2
func.func @k(%a: i32) {
  %0:2 = "sw.neg"(%a) : (i32) -> (i32, i32)
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.if' takes 2 regions, got 1
func.func @k(%c: i1) {
  "sw.if"(%c) ({
    "sw.yield"() : () -> ()
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' needs a 'value' attribute (an integer, float or bool)
func.func @k() {
  %0 = "sw.constant"() : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' needs a 'value' attribute (an integer, float or bool)
func.func @k() {
  %0 = "sw.constant"() {value = "one"} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' has a float value for the integer result type tensor<4xi32>
func.func @k() {
  %0 = "sw.constant"() {value = 1.5 : f32} : () -> tensor<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' result type !sw.ptr<f32> is a pointer; constants are numbers
func.func @k() {
  %0 = "sw.constant"() {value = 0 : i64} : () -> !sw.ptr<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.program_id' needs an integer attribute 'axis' of 0, 1 or 2
func.func @k() {
  %0 = "sw.program_id"() {axis = 3 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.num_programs' result type i64 must be i32
func.func @k() {
  %0 = "sw.num_programs"() {axis = 0 : i32} : () -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.arange' needs start < end, got start = 8, end = 8
func.func @k() {
  %0 = "sw.arange"() {end = 8 : i32, start = 8 : i32} : () -> tensor<1xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.arange' result type tensor<128xi32> does not match its range [64, 128) (expected tensor<64xi32>)
func.func @k() {
  %0 = "sw.arange"() {end = 128 : i32, start = 64 : i32} : () -> tensor<128xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.splat' operand type tensor<4xi32> must be a scalar or a pointer
func.func @k(%t: i32) {
  %0 = "sw.splat"(%t) : (i32) -> tensor<4xi32>
  %1 = "sw.splat"(%0) : (tensor<4xi32>) -> tensor<4xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.splat' result type tensor<4xf16> is not a tile of its operand type f32
func.func @k(%a: f32) {
  %0 = "sw.splat"(%a) : (f32) -> tensor<4xf16>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.cast' does not convert pointers (!sw.ptr<f32> to i64)
func.func @k(%p: !sw.ptr<f32>) {
  %0 = "sw.cast"(%p) : (!sw.ptr<f32>) -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.cast' cannot change the shape (tensor<4xf32> to tensor<8xi32>)
func.func @k(%a: f32) {
  %0 = "sw.splat"(%a) : (f32) -> tensor<4xf32>
  %1 = "sw.cast"(%0) : (tensor<4xf32>) -> tensor<8xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.addptr' operand #0 type i32 must be a pointer or a tile of pointers
func.func @k(%a: i32) {
  %0 = "sw.addptr"(%a, %a) : (i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.addptr' offset type f32 must be i32 or i64 in the shape of !sw.ptr<f32>
func.func @k(%p: !sw.ptr<f32>, %o: f32) {
  %0 = "sw.addptr"(%p, %o) : (!sw.ptr<f32>, f32) -> !sw.ptr<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.addptr' offset type tensor<4xi32> must be i32 or i64 in the shape of !sw.ptr<f32>
func.func @k(%p: !sw.ptr<f32>, %o: i32) {
  %0 = "sw.splat"(%o) : (i32) -> tensor<4xi32>
  %1 = "sw.addptr"(%p, %0) : (!sw.ptr<f32>, tensor<4xi32>) -> !sw.ptr<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.addptr' result type !sw.ptr<i32> does not match the pointer type !sw.ptr<f32>
func.func @k(%p: !sw.ptr<f32>, %o: i64) {
  %0 = "sw.addptr"(%p, %o) : (!sw.ptr<f32>, i64) -> !sw.ptr<i32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.load' takes 1 operand (ptr) or 3 (ptr, mask, other), got 2
func.func @k(%p: !sw.ptr<f32>, %m: i1) {
  %0 = "sw.load"(%p, %m) : (!sw.ptr<f32>, i1) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.load' result type f64 does not match the pointee of !sw.ptr<f32> (expected f32)
func.func @k(%p: !sw.ptr<f32>) {
  %0 = "sw.load"(%p) : (!sw.ptr<f32>) -> f64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.load' mask type i1 does not match the shape of tensor<8x!sw.ptr<f32>> (expected tensor<8xi1>)
func.func @k(%p: !sw.ptr<f32>, %m: i1, %o: f32) {
  %0 = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<8x!sw.ptr<f32>>
  %1 = "sw.splat"(%o) : (f32) -> tensor<8xf32>
  %2 = "sw.load"(%0, %m, %1) : (tensor<8x!sw.ptr<f32>>, i1, tensor<8xf32>) -> tensor<8xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.load' other type f16 does not match the loaded type f32
func.func @k(%p: !sw.ptr<f32>, %m: i1, %o: f16) {
  %0 = "sw.load"(%p, %m, %o) : (!sw.ptr<f32>, i1, f16) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:3: error: 'sw.store' value type tensor<128xf32> does not match the pointee of tensor<128x!sw.ptr<i32>> (expected tensor<128xi32>)
func.func @k(%p: !sw.ptr<i32>, %v: f32) {
  %0 = "sw.splat"(%p) : (!sw.ptr<i32>) -> tensor<128x!sw.ptr<i32>>
  %1 = "sw.splat"(%v) : (f32) -> tensor<128xf32>
  "sw.store"(%0, %1) : (tensor<128x!sw.ptr<i32>>, tensor<128xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.store' mask type i32 does not match the shape of !sw.ptr<i32> (expected i1)
func.func @k(%p: !sw.ptr<i32>, %v: i32, %m: i32) {
  "sw.store"(%p, %v, %m) : (!sw.ptr<i32>, i32, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.store' takes 2 operands (ptr, value) or 3 (ptr, value, mask), got 1
func.func @k(%p: !sw.ptr<i32>) {
  "sw.store"(%p) : (!sw.ptr<i32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.add' operand types i32 and i64 differ
func.func @k(%a: i32, %b: i64) {
  %0 = "sw.add"(%a, %b) : (i32, i64) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.mul' result type i64 does not match its operand type i32
func.func @k(%a: i32) {
  %0 = "sw.mul"(%a, %a) : (i32, i32) -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.add' does not take pointer operands (!sw.ptr<f32>); use 'sw.addptr'
func.func @k(%p: !sw.ptr<f32>) {
  %0 = "sw.add"(%p, %p) : (!sw.ptr<f32>, !sw.ptr<f32>) -> !sw.ptr<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.div' needs float operands, got i32
func.func @k(%a: i32) {
  %0 = "sw.div"(%a, %a) : (i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.xor' needs integer or i1 operands, got f32
func.func @k(%a: f32) {
  %0 = "sw.xor"(%a, %a) : (f32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.shl' does not take i1 operands
func.func @k(%a: i1) {
  %0 = "sw.shl"(%a, %a) : (i1, i1) -> i1
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.cmp' result type f32 must be i1 in the shape of f32 (expected i1)
func.func @k(%a: f32) {
  %0 = "sw.cmp"(%a, %a) {predicate = "lt"} : (f32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.div' attribute 'approx' must be a bool
func.func @k(%a: f32) {
  %0 = "sw.div"(%a, %a) {approx = 1 : i32} : (f32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.exp' attribute 'approx' must be a bool
func.func @k(%a: f32) {
  %0 = "sw.exp"(%a) {approx = "yes"} : (f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.cmp' needs a string attribute 'predicate': lt, le, gt, ge, eq or ne
func.func @k(%a: f32) {
  %0 = "sw.cmp"(%a, %a) {predicate = "less"} : (f32, f32) -> i1
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.cmp' does not compare pointers (!sw.ptr<f32>)
func.func @k(%p: !sw.ptr<f32>) {
  %0 = "sw.cmp"(%p, %p) {predicate = "eq"} : (!sw.ptr<f32>, !sw.ptr<f32>) -> i1
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.select' condition type i1 must be i1 in the shape of tensor<4xf32> (expected tensor<4xi1>)
func.func @k(%c: i1, %a: f32) {
  %0 = "sw.splat"(%a) : (f32) -> tensor<4xf32>
  %1 = "sw.select"(%c, %0, %0) : (i1, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.select' operand types f32 and f64 differ
func.func @k(%c: i1, %a: f32, %b: f64) {
  %0 = "sw.select"(%c, %a, %b) : (i1, f32, f64) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.exp' result type f64 does not match its operand type f32
func.func @k(%a: f32) {
  %0 = "sw.exp"(%a) : (f32) -> f64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.sqrt' needs float operands, got i32
func.func @k(%a: i32) {
  %0 = "sw.sqrt"(%a) : (i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.not' needs integer or i1 operands, got f32
func.func @k(%a: f32) {
  %0 = "sw.not"(%a) : (f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.neg' does not take ui8 operands
func.func @k(%a: ui8) {
  %0 = "sw.neg"(%a) : (ui8) -> ui8
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.abs' does not take i1 operands
func.func @k(%a: i1) {
  %0 = "sw.abs"(%a) : (i1) -> i1
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.reduce' operand type f32 must be a tile of numbers
func.func @k(%a: f32) {
  %0 = "sw.reduce"(%a) {kind = "sum"} : (f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.reduce' result type f64 must be the element type of tensor<4xf32>
func.func @k(%a: f32) {
  %0 = "sw.splat"(%a) : (f32) -> tensor<4xf32>
  %1 = "sw.reduce"(%0) {kind = "sum"} : (tensor<4xf32>) -> f64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:8: error: 'sw.reduce' needs a string attribute 'kind': sum, max, min or prod
func.func @k(%a: f32) {
  %0 = "sw.splat"(%a) : (f32) -> tensor<4xf32>
  %1 = "sw.reduce"(%0) {kind = "mean"} : (tensor<4xf32>) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.for' needs lb, ub and step operands, got 2 operands
func.func @k(%n: i32) {
  "sw.for"(%n, %n) ({
  ^bb0(%i: i32):
    "sw.yield"() : () -> ()
  }) : (i32, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.for' bounds must share one scalar integer type, got i32, i64, i32
func.func @k(%n: i32, %m: i64) {
  "sw.for"(%n, %m, %n) ({
  ^bb0(%i: i32):
    "sw.yield"() : () -> ()
  }) : (i32, i64, i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.for' bounds must share one scalar integer type, got f32, f32, f32
func.func @k(%x: f32) {
  "sw.for"(%x, %x, %x) ({
  ^bb0(%i: f32):
    "sw.yield"() : () -> ()
  }) : (f32, f32, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.for' result #0 type f64 does not match its initial value type f32
func.func @k(%n: i32, %x: f32) {
  %0 = "sw.for"(%n, %n, %n, %x) ({
  ^bb0(%i: i32, %c: f32):
    "sw.yield"(%c) : (f32) -> ()
  }) : (i32, i32, i32, f32) -> f64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.for' body takes 2 arguments (the induction variable, then the carried values), got 1
func.func @k(%n: i32, %x: f32) {
  %0 = "sw.for"(%n, %n, %n, %x) ({
  ^bb0(%i: i32):
    "sw.yield"(%x) : (f32) -> ()
  }) : (i32, i32, i32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.for' induction variable type i64 does not match the bounds type i32
func.func @k(%n: i32, %x: f32) {
  %0 = "sw.for"(%n, %n, %n, %x) ({
  ^bb0(%i: i64, %c: f32):
    "sw.yield"(%c) : (f32) -> ()
  }) : (i32, i32, i32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.for' body argument #1 type f16 does not match the carried type f32
func.func @k(%n: i32, %x: f32) {
  %0 = "sw.for"(%n, %n, %n, %x) ({
  ^bb0(%i: i32, %c: f16):
    "sw.yield"(%x) : (f32) -> ()
  }) : (i32, i32, i32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:5: error: 'sw.yield' value #0 type i32 does not match result #0 of 'sw.for' (f32)
func.func @k(%n: i32, %x: f32) {
  %0 = "sw.for"(%n, %n, %n, %x) ({
  ^bb0(%i: i32, %c: f32):
    "sw.yield"(%i) : (i32) -> ()
  }) : (i32, i32, i32, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.if' condition type i32 must be i1
func.func @k(%c: i32) {
  "sw.if"(%c) ({
    "sw.yield"() : () -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.if' then region takes no arguments
func.func @k(%c: i1) {
  "sw.if"(%c) ({
  ^bb0(%x: i32):
    "sw.yield"() : () -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:5: error: 'sw.yield' in the else region of 'sw.if' yields 0 values but 'sw.if' has 1 result
func.func @k(%c: i1, %x: f32) {
  %0 = "sw.if"(%c) ({
    "sw.yield"(%x) : (f32) -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i1) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:5: error: 'sw.yield' value #0 type i1 does not match result #0 of 'sw.if' (f32)
func.func @k(%c: i1, %x: f32) {
  %0 = "sw.if"(%c) ({
    "sw.yield"(%c) : (i1) -> ()
  }, {
    "sw.yield"(%x) : (f32) -> ()
  }) : (i1) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' value 300 is out of range for the result type i8 (i8 holds -128..127)
func.func @k() {
  %0 = "sw.constant"() {value = 300 : i64} : () -> i8
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' value -1 is out of range for the result type tensor<4xui8> (ui8 holds 0..255)
func.func @k() {
  %0 = "sw.constant"() {value = -1 : i64} : () -> tensor<4xui8>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.constant' value 2147483648 is out of range for the result type i32 (i32 holds -2147483648..2147483647)
func.func @k() {
  %0 = "sw.constant"() {value = 2147483648 : i64} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:5: error: 'sw.yield' in the body of 'sw.while' yields 1 value but needs 2 (the condition, then 1 carried)
func.func @k(%c: i1, %x: f32) {
  %r = "sw.while"(%c, %x) ({
  ^bb0(%a: f32):
    "sw.yield"(%a) : (f32) -> ()
  }) : (i1, f32) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:5: error: 'sw.yield' condition #0 in the body of 'sw.while' has type i32, not i1
func.func @k(%c: i1, %x: i32) {
  %r = "sw.while"(%c, %x) ({
  ^bb0(%a: i32):
    "sw.yield"(%a, %a) : (i32, i32) -> ()
  }) : (i1, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.while' condition type i32 must be i1
func.func @k(%c: i32) {
  "sw.while"(%c) ({
    "sw.yield"(%c) : (i32) -> ()
  }) : (i32) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.while' body argument #0 type f32 does not match the carried type i32
func.func @k(%c: i1, %x: i32) {
  %r = "sw.while"(%c, %x) ({
  ^bb0(%a: f32):
    "sw.yield"(%c, %x) : (i1, i32) -> ()
  }) : (i1, i32) -> i32
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.bitcast' needs element types of one width, not i1 (f32 to f16)
module {
  func.func @bitcast_width(%x: f32) {
    %0 = "sw.bitcast"(%x) : (f32) -> f16
    "func.return"() : () -> ()
  }
}
