// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// One chunk per verifier rule of segment programs (docs/segments.md,
// docs/ir-format.md "Verifier rules"); each names the op and the types.

// CHECK: verify-errors.mlir:[[# @LINE + 2]]:10: error: 'sw.segment_id' needs an integer attribute 'axis' of 0
func.func @k() {
  %sid = "sw.segment_id"() {axis = 1 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:10: error: 'sw.segment_id' result type i64 must be i32
func.func @k() {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i64
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:10: error: 'sw.segment' values type f32 must be a pointer
func.func @k(%v: f32, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (f32, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:10: error: 'sw.segment' offsets type !sw.ptr<f32> must be !sw.ptr<i32> or !sw.ptr<i64>
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<f32>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:10: error: 'sw.segment' segment id type i64 must be i32
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %sid: i64) {
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i64) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:10: error: 'sw.segment' segment id must be the result of 'sw.segment_id' (the schedule decides which segment a program processes)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %sid: i32) {
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:10: error: 'sw.segment' result type !sw.segment<i32> does not match its values !sw.ptr<f32> (expected !sw.segment<f32>)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<i32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.segment' uses other offsets than the 'sw.segment' at line [[# @LINE + 3]]: one segment per program, so every view shares one offsets pointer
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %p: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %a = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %b = "sw.segment"(%v, %p, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:8: error: 'sw.segment' uses another segment id than the 'sw.segment' at line [[# @LINE + 4]]: one segment per program, so every view shares one segment id
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %s0 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %s1 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %a = "sw.segment"(%v, %o, %s0) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %b = "sw.segment"(%v, %o, %s1) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.segment_length' result type i32 must be the offsets' integer type i64
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i64>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %n = "sw.segment_length"(%seg) : (!sw.segment<f32>) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.load_segment' result type tensor<?xf16> does not match the view !sw.segment<f32> (expected tensor<?xf32>)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf16>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:3: error: 'sw.store_segment' value type tensor<?xf32> does not match the pointee of !sw.ptr<f16> (expected tensor<?xf16>)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %out: !sw.ptr<f16>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  "sw.store_segment"(%out, %seg, %x) : (!sw.ptr<f16>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:3: error: 'sw.store_segment' cannot take the segment value tensor<?xf32> (operand #1)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %out: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  "sw.store_segment"(%out, %x, %x) : (!sw.ptr<f32>, tensor<?xf32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:8: error: 'sw.reduce' result type f16 must be the element type of tensor<?xf32>
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %s = "sw.reduce"(%x) {kind = "sum"} : (tensor<?xf32>) -> f16
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 6]]:8: error: 'sw.add' operand types tensor<?xf32> and tensor<?xf16> differ
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %h: f16) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %y = "sw.splat"(%h) : (f16) -> tensor<?xf16>
  %z = "sw.add"(%x, %y) : (tensor<?xf32>, tensor<?xf16>) -> tensor<?xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 6]]:8: error: 'sw.mul' mixes the segment value type tensor<?xf32> with the tile type tensor<4xf32>: tensor<?x...> and tensor<Nx...> never meet in one op
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.constant"() {value = 2.0 : f32} : () -> tensor<4xf32>
  %z = "sw.mul"(%x, %t) : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 7]]:8: error: 'sw.for' cannot take the segment value tensor<?xf32> (operand #3)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
  %c4 = "sw.constant"() {value = 4 : i32} : () -> i32
  %r = "sw.for"(%c0, %c4, %sid, %x) ({
  ^bb0(%i: i32, %acc: tensor<?xf32>):
    "sw.yield"(%acc) : (tensor<?xf32>) -> ()
  }) : (i32, i32, i32, tensor<?xf32>) -> tensor<?xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 8]]:5: error: 'sw.yield' cannot pass on the segment value tensor<?xf32>: segment data never crosses 'sw.for' or 'sw.if' boundaries
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %c: i1) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  "sw.if"(%c) ({
    "sw.yield"() : () -> ()
  }, {
    "sw.yield"(%x) : (tensor<?xf32>) -> ()
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:10: error: 'sw.load_segment' on segment data must be at the top level of the function, not inside 'sw.if'
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>, %c: i1) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  "sw.if"(%c) ({
    %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
    "sw.yield"() : () -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i1) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:10: error: 'sw.program_id' cannot appear in a function that also uses 'sw.segment_id' (line [[# @LINE + 2]]): a function is either a segment program or a grid program
func.func @k() {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 3]]:10: error: 'sw.segment_id' cannot appear in a function that also uses 'sw.num_programs' (line [[# @LINE + 2]]): a function is either a segment program or a grid program
func.func @k() {
  %n = "sw.num_programs"() {axis = 0 : i32} : () -> i32
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 4]]:8: error: 'sw.cast' cannot take the segment view !sw.segment<f32> (operand #0)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.cast"(%seg) : (!sw.segment<f32>) -> !sw.segment<f16>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:3: error: 'sw.store' cannot take the segment value tensor<?xf32> (operand #1)
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  "sw.store"(%v, %x) : (!sw.ptr<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 2]]:8: error: 'sw.load' cannot produce the segment value tensor<?xf32> (result #0)
func.func @k(%v: !sw.ptr<f32>) {
  %x = "sw.load"(%v) : (!sw.ptr<f32>) -> tensor<?xf32>
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' parameter #0 has type tensor<?xf32>; parameters are scalars or pointers
func.func @k(%x: tensor<?xf32>) {
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 5]]:8: error: 'sw.reduce' has stage = 2 but its function has fewer sw.stages
func.func @k(%v: !sw.ptr<f32>, %o: !sw.ptr<i32>) attributes {sw.stages = 1 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %o, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %s = "sw.reduce"(%x) {kind = "sum", stage = 2 : i32} : (tensor<?xf32>) -> f32
  "func.return"() : () -> ()
}

// -----
// CHECK: verify-errors.mlir:[[# @LINE + 1]]:27: error: a tensor<?x...> element must be a scalar type
func.func @k(%x: tensor<?x!sw.ptr<f32>>) {
  "func.return"() : () -> ()
}
