// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// Every syntax error is reported at the line:col of the offending token.

// CHECK: parse-errors.mlir:[[# @LINE + 2]]:21: error: use of undefined value '%b'
func.func @k(%a: i32) {
  %0 = "sw.add"(%a, %b) : (i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:8: error: unknown operation 'sw.frob'
func.func @k(%a: i32) {
  %0 = "sw.frob"(%a) : (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:27: error: 'sw.add' has 2 operands but its type lists 3
func.func @k(%a: i32) {
  %0 = "sw.add"(%a, %a) : (i32, i32, i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 3]]:3: error: redefinition of value '%x' (first defined at line [[# @LINE + 2]])
func.func @k(%a: i32) {
  %x = "sw.neg"(%a) : (i32) -> i32
  %x = "sw.neg"(%a) : (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:18: error: unknown type 'i12' (types are i1 i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32 f64, !sw.ptr<T>, !sw.segment<T>, tensor<NxT> and tensor<?xT>)
func.func @k(%a: i12) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:49: error: tensors of more than 3 dimensions are not supported
func.func @k(%a: !sw.ptr<f32>, %t: tensor<4x4x4x4xf32>) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:25: error: tensor dimension must be at least 1
func.func @k(%a: tensor<0xf32>) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:25: error: dynamic vector dimensions are not supported
func.func @k(%a: vector<?xf32>) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:29: error: expected '>'
func.func @k(%p: !sw.ptr<f32) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:21: error: expected ':' and the op's type, such as ': (i32, i32) -> i32'
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:29: error: expected '->' and the result types
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) : (i32) i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:32: error: unknown type 'foo' (types are i1 i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32 f64, !sw.ptr<T>, !sw.segment<T>, tensor<NxT> and tensor<?xT>)
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) : (i32) -> foo
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:30: error: expected '=' after the attribute name
func.func @k() {
  %0 = "sw.constant"() {value} : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:33: error: expected an attribute value
func.func @k() {
  %0 = "sw.constant"() {value = } : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:42: error: duplicate attribute 'value'
func.func @k() {
  %0 = "sw.constant"() {value = 1 : i32, value = 2 : i32} : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:32: error: unterminated string literal
func.func @k() {
  %0 = "sw.cmp"() {predicate = "lt} : () -> i1
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:54: error: unexpected character ';'
func.func @k() {
  %0 = "sw.constant"() {value = 1 : i32} : () -> i32 ;
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:33: error: integer 300 does not fit in i8
func.func @k() {
  %0 = "sw.constant"() {value = 300 : i8} : () -> i8
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:39: error: a float literal needs a float type, not i32
func.func @k() {
  %0 = "sw.constant"() {value = 2.5 : i32} : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:3: error: 'sw.constant' defines 2 results but its type lists 1
func.func @k() {
  %0:2 = "sw.constant"() {value = 1 : i32} : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:17: error: '%a' has 1 result; there is no #1
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a#1) : (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:17: error: use of value '%a' expects type f32 but it has type i32
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) : (f32) -> f32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:8: error: expected an operation name (a quoted string such as "sw.add")
func.func @k(%a: i32) {
  %0 = sw.neg(%a) : (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 4]]:3: error: expected ')' (to close '(' at line [[# @LINE + 2]])
func.func @k(%a: i32) {
  "sw.store"(%a,
             %a
  : (i32, i32) -> ()
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 5]]:3: error: a region holds one block; a second block label is not supported
func.func @k(%c: i1) {
  "sw.if"(%c) ({
  ^bb0:
    "sw.yield"() : () -> ()
  ^bb1:
    "sw.yield"() : () -> ()
  }, {
  }) : (i1) -> ()
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:34: error: location aliases (#loc) are not supported
func.func @k() {
  "func.return"() : () -> () loc(#loc1)
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:11: error: expected a function name (@name) after 'func.func'
func.func k() {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:23: error: 'func.func' results are not supported: kernels return nothing
func.func @k(%a: i32) -> i32 {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:15: error: expected value name after '%'
func.func @k(% a: i32) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:18: error: expected a type
func.func @k(%a: ) {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 3]]:1: error: expected '>' (to close '<' at line [[# @LINE + 2]])
func.func @k(%a: i32) {
  %0 = "sw.splat"(%a) : (i32) -> tensor<4xf32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 6]]:16: error: use of undefined value '%inner'
func.func @k(%c: i1) {
  %0 = "sw.if"(%c) ({
    %inner = "sw.constant"() {value = 1.0 : f32} : () -> f32
    "sw.yield"(%inner) : (f32) -> ()
  }, {
    "sw.yield"(%inner) : (f32) -> ()
  }) : (i1) -> f32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 3]]:17: error: use of undefined value '%0'
%0 = "sw.constant"() {value = 1 : i32} : () -> i32
func.func @k() {
  %1 = "sw.neg"(%0) : (i32) -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 6]]:1: error: expected the end of input after the module
module {
  func.func @k() {
    "func.return"() : () -> ()
  }
}
module {
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:33: error: integer literal is too large
func.func @k() {
  %0 = "sw.constant"() {value = 99999999999999999999 : i64} : () -> i64
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:35: error: unknown escape in string literal (use \", \\, \n, \t or \XX)
func.func @k() {
  %0 = "sw.constant"() {value = "a\qb"} : () -> i32
}

// -----
// CHECK: parse-errors.mlir:[[# @LINE + 2]]:43: error: expected ':' and a column number
func.func @k() {
  "func.return"() : () -> () loc("k.py":12)
}
