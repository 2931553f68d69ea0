// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s --check-prefix=GONE
// Constant folding: every value must be what the CPU executor computes
// (src/ir/scalar.c), and a folded op is replaced by a constant placed right
// before it. The operand constants stay behind for dce.
//
// No op of these kinds is left anywhere in the output (sw.add, sw.sub and
// sw.mul survive only in the loops that must stay):
// GONE-NOT: "sw.floordiv"
// GONE-NOT: "sw.mod"
// GONE-NOT: "sw.div"
// GONE-NOT: "sw.minimum"
// GONE-NOT: "sw.maximum"
// GONE-NOT: "sw.and"
// GONE-NOT: "sw.or"
// GONE-NOT: "sw.xor"
// GONE-NOT: "sw.shl"
// GONE-NOT: "sw.shr"
// GONE-NOT: "sw.cmp"
// GONE-NOT: "sw.cast"
// GONE-NOT: "sw.neg"
// GONE-NOT: "sw.not"
// GONE-NOT: "sw.abs"
// GONE-NOT: "sw.sqrt"
// GONE-NOT: "sw.floor"
// GONE-NOT: "sw.ceil"
// GONE-NOT: "sw.exp"
// GONE-NOT: "sw.sigmoid"
// GONE-NOT: "sw.log"
// GONE-NOT: "sw.if"
// GONE-NOT: "sw.select"

// CHECK-LABEL: func.func @i32_arith
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 4 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 10 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -21 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -3 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -3 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 7 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @i32_arith(%o: !sw.ptr<i32>) {
    %a = "sw.constant"() {value = 7 : i32} : () -> i32
    %b = "sw.constant"() {value = -3 : i32} : () -> i32
    %add = "sw.add"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %add) : (!sw.ptr<i32>, i32) -> ()
    %sub = "sw.sub"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %sub) : (!sw.ptr<i32>, i32) -> ()
    %mul = "sw.mul"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %mul) : (!sw.ptr<i32>, i32) -> ()
    %fd = "sw.floordiv"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %fd) : (!sw.ptr<i32>, i32) -> ()
    %md = "sw.mod"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %md) : (!sw.ptr<i32>, i32) -> ()
    %mn = "sw.minimum"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %mn) : (!sw.ptr<i32>, i32) -> ()
    %mx = "sw.maximum"(%a, %b) : (i32, i32) -> i32
    "sw.store"(%o, %mx) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Python floor division and modulo round toward -inf; integer division and
// modulo by zero give 0; INT_MIN // -1 wraps.
// CHECK-LABEL: func.func @i32_floordiv_mod
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -4 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @i32_floordiv_mod(%o: !sw.ptr<i32>) {
    %m7 = "sw.constant"() {value = -7 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %min = "sw.constant"() {value = -2147483648 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %a = "sw.floordiv"(%m7, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.mod"(%m7, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.floordiv"(%m7, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.mod"(%m7, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %d) : (!sw.ptr<i32>, i32) -> ()
    %e = "sw.floordiv"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %e) : (!sw.ptr<i32>, i32) -> ()
    %f = "sw.mod"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %f) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Bitwise ops, shifts (counts outside [0, 32) give 0, or the sign for an
// arithmetic right shift) and wrapping overflow.
// CHECK-LABEL: func.func @i32_bits
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 5 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -6 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 28 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -4 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @i32_bits(%o: !sw.ptr<i32>) {
    %c7 = "sw.constant"() {value = 7 : i32} : () -> i32
    %m3 = "sw.constant"() {value = -3 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %c31 = "sw.constant"() {value = 31 : i32} : () -> i32
    %c32 = "sw.constant"() {value = 32 : i32} : () -> i32
    %m8 = "sw.constant"() {value = -8 : i32} : () -> i32
    %c8 = "sw.constant"() {value = 8 : i32} : () -> i32
    %c40 = "sw.constant"() {value = 40 : i32} : () -> i32
    %max = "sw.constant"() {value = 2147483647 : i32} : () -> i32
    %and = "sw.and"(%c7, %m3) : (i32, i32) -> i32
    "sw.store"(%o, %and) : (!sw.ptr<i32>, i32) -> ()
    %or = "sw.or"(%c7, %m3) : (i32, i32) -> i32
    "sw.store"(%o, %or) : (!sw.ptr<i32>, i32) -> ()
    %xor = "sw.xor"(%c7, %m3) : (i32, i32) -> i32
    "sw.store"(%o, %xor) : (!sw.ptr<i32>, i32) -> ()
    %shl = "sw.shl"(%c7, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %shl) : (!sw.ptr<i32>, i32) -> ()
    %shl32 = "sw.shl"(%c1, %c32) : (i32, i32) -> i32
    "sw.store"(%o, %shl32) : (!sw.ptr<i32>, i32) -> ()
    %shlneg = "sw.shl"(%c1, %m3) : (i32, i32) -> i32
    "sw.store"(%o, %shlneg) : (!sw.ptr<i32>, i32) -> ()
    %shl31 = "sw.shl"(%c1, %c31) : (i32, i32) -> i32
    "sw.store"(%o, %shl31) : (!sw.ptr<i32>, i32) -> ()
    %shr = "sw.shr"(%m8, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %shr) : (!sw.ptr<i32>, i32) -> ()
    %shrneg = "sw.shr"(%m8, %c40) : (i32, i32) -> i32
    "sw.store"(%o, %shrneg) : (!sw.ptr<i32>, i32) -> ()
    %shrpos = "sw.shr"(%c8, %c40) : (i32, i32) -> i32
    "sw.store"(%o, %shrpos) : (!sw.ptr<i32>, i32) -> ()
    %wrap = "sw.add"(%max, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %wrap) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Small integer types wrap to their width; ui8 is unsigned.
// CHECK-LABEL: func.func @small_ints
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -128 : i8} : () -> i8
// CHECK-NEXT: "sw.store"(%o8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 255 : ui8} : () -> ui8
// CHECK-NEXT: "sw.store"(%ou8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 127 : ui8} : () -> ui8
// CHECK-NEXT: "sw.store"(%ou8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%ob, %[[R]])
module {
  func.func @small_ints(%o8: !sw.ptr<i8>, %ou8: !sw.ptr<ui8>, %ob: !sw.ptr<i1>) {
    %a = "sw.constant"() {value = 127 : i8} : () -> i8
    %b = "sw.constant"() {value = 1 : i8} : () -> i8
    %s = "sw.add"(%a, %b) : (i8, i8) -> i8
    "sw.store"(%o8, %s) : (!sw.ptr<i8>, i8) -> ()
    %z = "sw.constant"() {value = 0 : ui8} : () -> ui8
    %one = "sw.constant"() {value = 1 : ui8} : () -> ui8
    %u = "sw.sub"(%z, %one) : (ui8, ui8) -> ui8
    "sw.store"(%ou8, %u) : (!sw.ptr<ui8>, ui8) -> ()
    %h = "sw.constant"() {value = 254 : ui8} : () -> ui8
    %sh = "sw.shr"(%h, %one) : (ui8, ui8) -> ui8
    "sw.store"(%ou8, %sh) : (!sw.ptr<ui8>, ui8) -> ()
    %c200 = "sw.constant"() {value = 200 : ui8} : () -> ui8
    %gt = "sw.cmp"(%c200, %one) {predicate = "gt"} : (ui8, ui8) -> i1
    "sw.store"(%ob, %gt) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// f32 arithmetic rounds to f32 (1/3 is 0.33333334, not the double), with
// Python's // and % on floats.
// CHECK-LABEL: func.func @f32_arith
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 5.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 9.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -15.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -3.75 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -4.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -0.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 7.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0.33333334 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 16777216.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @f32_arith(%o: !sw.ptr<f32>) {
    %a = "sw.constant"() {value = 7.5 : f32} : () -> f32
    %b = "sw.constant"() {value = -2.0 : f32} : () -> f32
    %big = "sw.constant"() {value = 16777216.0 : f32} : () -> f32
    %add = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %add) : (!sw.ptr<f32>, f32) -> ()
    %sub = "sw.sub"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %sub) : (!sw.ptr<f32>, f32) -> ()
    %mul = "sw.mul"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %mul) : (!sw.ptr<f32>, f32) -> ()
    %div = "sw.div"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %div) : (!sw.ptr<f32>, f32) -> ()
    %fd = "sw.floordiv"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %fd) : (!sw.ptr<f32>, f32) -> ()
    %md = "sw.mod"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %md) : (!sw.ptr<f32>, f32) -> ()
    %mn = "sw.minimum"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %mn) : (!sw.ptr<f32>, f32) -> ()
    %mx = "sw.maximum"(%a, %b) : (f32, f32) -> f32
    "sw.store"(%o, %mx) : (!sw.ptr<f32>, f32) -> ()
    %one = "sw.constant"() {value = 1.0 : f32} : () -> f32
    %three = "sw.constant"() {value = 3.0 : f32} : () -> f32
    %third = "sw.div"(%one, %three) : (f32, f32) -> f32
    "sw.store"(%o, %third) : (!sw.ptr<f32>, f32) -> ()
    %tie = "sw.add"(%big, %one) : (f32, f32) -> f32
    "sw.store"(%o, %tie) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Float division by zero follows IEEE; NaN propagates through minimum and
// maximum. The sign of a NaN from 0/0 is the host's, so either is accepted.
// CHECK-LABEL: func.func @f32_special
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0x7F800000 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = {{0x7FC00000|0xFFC00000}} : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0x7F800000 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = {{0x7FC00000|0xFFC00000}} : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = {{0x7FC00000|0xFFC00000}} : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -0.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @f32_special(%o: !sw.ptr<f32>) {
    %one = "sw.constant"() {value = 1.0 : f32} : () -> f32
    %mone = "sw.constant"() {value = -1.0 : f32} : () -> f32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %nzero = "sw.constant"() {value = -0.0 : f32} : () -> f32
    %nan = "sw.constant"() {value = 0x7FC00000 : f32} : () -> f32
    %a = "sw.div"(%one, %zero) : (f32, f32) -> f32
    "sw.store"(%o, %a) : (!sw.ptr<f32>, f32) -> ()
    %b = "sw.div"(%mone, %zero) : (f32, f32) -> f32
    "sw.store"(%o, %b) : (!sw.ptr<f32>, f32) -> ()
    %c = "sw.div"(%zero, %zero) : (f32, f32) -> f32
    "sw.store"(%o, %c) : (!sw.ptr<f32>, f32) -> ()
    %d = "sw.floordiv"(%one, %zero) : (f32, f32) -> f32
    "sw.store"(%o, %d) : (!sw.ptr<f32>, f32) -> ()
    %e = "sw.mod"(%one, %zero) : (f32, f32) -> f32
    "sw.store"(%o, %e) : (!sw.ptr<f32>, f32) -> ()
    %f = "sw.minimum"(%nan, %one) : (f32, f32) -> f32
    "sw.store"(%o, %f) : (!sw.ptr<f32>, f32) -> ()
    %g = "sw.minimum"(%zero, %nzero) : (f32, f32) -> f32
    "sw.store"(%o, %g) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Comparisons: every comparison with NaN is false except ne; -0.0 == 0.0.
// CHECK-LABEL: func.func @cmp
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @cmp(%o: !sw.ptr<i1>) {
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %lt = "sw.cmp"(%c1, %c2) {predicate = "lt"} : (i32, i32) -> i1
    "sw.store"(%o, %lt) : (!sw.ptr<i1>, i1) -> ()
    %ge = "sw.cmp"(%c1, %c2) {predicate = "ge"} : (i32, i32) -> i1
    "sw.store"(%o, %ge) : (!sw.ptr<i1>, i1) -> ()
    %nan = "sw.constant"() {value = 0x7FC00000 : f32} : () -> f32
    %one = "sw.constant"() {value = 1.0 : f32} : () -> f32
    %flt = "sw.cmp"(%nan, %one) {predicate = "lt"} : (f32, f32) -> i1
    "sw.store"(%o, %flt) : (!sw.ptr<i1>, i1) -> ()
    %fge = "sw.cmp"(%nan, %one) {predicate = "ge"} : (f32, f32) -> i1
    "sw.store"(%o, %fge) : (!sw.ptr<i1>, i1) -> ()
    %feq = "sw.cmp"(%nan, %nan) {predicate = "eq"} : (f32, f32) -> i1
    "sw.store"(%o, %feq) : (!sw.ptr<i1>, i1) -> ()
    %fne = "sw.cmp"(%nan, %nan) {predicate = "ne"} : (f32, f32) -> i1
    "sw.store"(%o, %fne) : (!sw.ptr<i1>, i1) -> ()
    %z = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %nz = "sw.constant"() {value = -0.0 : f32} : () -> f32
    %zeq = "sw.cmp"(%z, %nz) {predicate = "eq"} : (f32, f32) -> i1
    "sw.store"(%o, %zeq) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// i1 logic: and/or/xor/not, and i1 addition wraps (true + true = false).
// CHECK-LABEL: func.func @i1_logic
// CHECK: "sw.constant"() {value = false} : () -> i1
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = false} : () -> i1
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @i1_logic(%o: !sw.ptr<i1>) {
    %t = "sw.constant"() {value = true} : () -> i1
    %f = "sw.constant"() {value = false} : () -> i1
    %and = "sw.and"(%t, %f) : (i1, i1) -> i1
    "sw.store"(%o, %and) : (!sw.ptr<i1>, i1) -> ()
    %or = "sw.or"(%f, %t) : (i1, i1) -> i1
    "sw.store"(%o, %or) : (!sw.ptr<i1>, i1) -> ()
    %xor = "sw.xor"(%t, %t) : (i1, i1) -> i1
    "sw.store"(%o, %xor) : (!sw.ptr<i1>, i1) -> ()
    %not = "sw.not"(%t) : (i1) -> i1
    "sw.store"(%o, %not) : (!sw.ptr<i1>, i1) -> ()
    %add = "sw.add"(%t, %t) : (i1, i1) -> i1
    "sw.store"(%o, %add) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Casts: float -> int truncates toward zero and saturates, NaN -> 0;
// anything -> i1 is != 0 (NaN too); int -> int wraps.
// CHECK-LABEL: func.func @casts_to_int
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 2147483647 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 127 : i8} : () -> i8
// CHECK-NEXT: "sw.store"(%o8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : ui8} : () -> ui8
// CHECK-NEXT: "sw.store"(%ou8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 44 : i8} : () -> i8
// CHECK-NEXT: "sw.store"(%o8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 255 : ui8} : () -> ui8
// CHECK-NEXT: "sw.store"(%ou8, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%ob, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT: "sw.store"(%ob, %[[R]])
module {
  func.func @casts_to_int(%oi: !sw.ptr<i32>, %o8: !sw.ptr<i8>, %ou8: !sw.ptr<ui8>, %ob: !sw.ptr<i1>) {
    %big = "sw.constant"() {value = 3.0e+09 : f32} : () -> f32
    %nbig = "sw.constant"() {value = -3.0e+09 : f32} : () -> f32
    %nan = "sw.constant"() {value = 0x7FC00000 : f32} : () -> f32
    %frac = "sw.constant"() {value = -2.75 : f32} : () -> f32
    %c300f = "sw.constant"() {value = 300.0 : f32} : () -> f32
    %m1f = "sw.constant"() {value = -1.0 : f32} : () -> f32
    %c300 = "sw.constant"() {value = 300 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %c256 = "sw.constant"() {value = 256 : i32} : () -> i32
    %a = "sw.cast"(%big) : (f32) -> i32
    "sw.store"(%oi, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.cast"(%nbig) : (f32) -> i32
    "sw.store"(%oi, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.cast"(%nan) : (f32) -> i32
    "sw.store"(%oi, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.cast"(%frac) : (f32) -> i32
    "sw.store"(%oi, %d) : (!sw.ptr<i32>, i32) -> ()
    %e = "sw.cast"(%c300f) : (f32) -> i8
    "sw.store"(%o8, %e) : (!sw.ptr<i8>, i8) -> ()
    %f = "sw.cast"(%m1f) : (f32) -> ui8
    "sw.store"(%ou8, %f) : (!sw.ptr<ui8>, ui8) -> ()
    %g = "sw.cast"(%c300) : (i32) -> i8
    "sw.store"(%o8, %g) : (!sw.ptr<i8>, i8) -> ()
    %h = "sw.cast"(%m1) : (i32) -> ui8
    "sw.store"(%ou8, %h) : (!sw.ptr<ui8>, ui8) -> ()
    %i = "sw.cast"(%c256) : (i32) -> i1
    "sw.store"(%ob, %i) : (!sw.ptr<i1>, i1) -> ()
    %j = "sw.cast"(%nan) : (f32) -> i1
    "sw.store"(%ob, %j) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Casts to floats round to nearest even in the target format: past f16's
// largest finite value is inf, 2049 is a tie that goes to 2048, and
// 16777217 is not an f32.
// CHECK-LABEL: func.func @casts_to_float
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0x7C00 : f16} : () -> f16
// CHECK-NEXT: "sw.store"(%oh, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 2048.0 : f16} : () -> f16
// CHECK-NEXT: "sw.store"(%oh, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = {{65504\.0|6\.55e\+04}} : f16} : () -> f16
// CHECK-NEXT: "sw.store"(%oh, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 16777216.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
module {
  func.func @casts_to_float(%oh: !sw.ptr<f16>, %of: !sw.ptr<f32>) {
    %a = "sw.constant"() {value = 65520.0 : f32} : () -> f32
    %b = "sw.constant"() {value = 2049.0 : f32} : () -> f32
    %c = "sw.constant"() {value = 65519.0 : f32} : () -> f32
    %d = "sw.constant"() {value = 16777217 : i32} : () -> i32
    %t = "sw.constant"() {value = true} : () -> i1
    %ha = "sw.cast"(%a) : (f32) -> f16
    "sw.store"(%oh, %ha) : (!sw.ptr<f16>, f16) -> ()
    %hb = "sw.cast"(%b) : (f32) -> f16
    "sw.store"(%oh, %hb) : (!sw.ptr<f16>, f16) -> ()
    %hc = "sw.cast"(%c) : (f32) -> f16
    "sw.store"(%oh, %hc) : (!sw.ptr<f16>, f16) -> ()
    %fd = "sw.cast"(%d) : (i32) -> f32
    "sw.store"(%of, %fd) : (!sw.ptr<f32>, f32) -> ()
    %ft = "sw.cast"(%t) : (i1) -> f32
    "sw.store"(%of, %ft) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Unary ops, with f32 rounding of the math functions.
// CHECK-LABEL: func.func @unary
// CHECK: "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -5 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 5 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -6 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%oi, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1.4142135 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%of, %[[R]])
module {
  func.func @unary(%oi: !sw.ptr<i32>, %of: !sw.ptr<f32>) {
    %c5 = "sw.constant"() {value = 5 : i32} : () -> i32
    %m5 = "sw.constant"() {value = -5 : i32} : () -> i32
    %min = "sw.constant"() {value = -2147483648 : i32} : () -> i32
    %a = "sw.neg"(%c5) : (i32) -> i32
    "sw.store"(%oi, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.abs"(%m5) : (i32) -> i32
    "sw.store"(%oi, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.neg"(%min) : (i32) -> i32
    "sw.store"(%oi, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.not"(%c5) : (i32) -> i32
    "sw.store"(%oi, %d) : (!sw.ptr<i32>, i32) -> ()
    %two = "sw.constant"() {value = 2.0 : f32} : () -> f32
    %m15 = "sw.constant"() {value = -1.5 : f32} : () -> f32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %e = "sw.sqrt"(%two) : (f32) -> f32
    "sw.store"(%of, %e) : (!sw.ptr<f32>, f32) -> ()
    %f = "sw.floor"(%m15) : (f32) -> f32
    "sw.store"(%of, %f) : (!sw.ptr<f32>, f32) -> ()
    %g = "sw.ceil"(%m15) : (f32) -> f32
    "sw.store"(%of, %g) : (!sw.ptr<f32>, f32) -> ()
    %h = "sw.exp"(%zero) : (f32) -> f32
    "sw.store"(%of, %h) : (!sw.ptr<f32>, f32) -> ()
    %i = "sw.sigmoid"(%zero) : (f32) -> f32
    "sw.store"(%of, %i) : (!sw.ptr<f32>, f32) -> ()
    %j = "sw.log"(%zero) : (f32) -> f32
    "sw.store"(%of, %j) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Tiles: a splat of a constant is a tile constant, elementwise ops on tile
// constants fold to tile constants of the same type, reduce max/min of a
// splat fold, reduce sum does not (it would round at every step).
// CHECK-LABEL: func.func @tiles
// CHECK: %[[T:[0-9]+]] = "sw.constant"() {value = 3.0 : f32} : () -> tensor<4xf32>
// CHECK-NEXT: "sw.store"(%{{[0-9]+}}, %[[T]])
// CHECK: %[[M:[0-9]+]] = "sw.constant"() {value = true} : () -> tensor<4xi1>
// CHECK-NEXT: "sw.store"(%{{[0-9]+}}, %[[T]], %[[M]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%os, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 1.5 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%os, %[[R]])
// CHECK: "sw.reduce"
// CHECK-SAME: kind = "sum"
module {
  func.func @tiles(%ot: !sw.ptr<f32>, %os: !sw.ptr<f32>) {
    %a = "sw.constant"() {value = 1.5 : f32} : () -> tensor<4xf32>
    %two = "sw.constant"() {value = 2.0 : f32} : () -> f32
    %b = "sw.splat"(%two) : (f32) -> tensor<4xf32>
    %pz = "sw.splat"(%ot) : (!sw.ptr<f32>) -> tensor<4x!sw.ptr<f32>>
    %ar = "sw.arange"() {end = 4 : i32, start = 0 : i32} : () -> tensor<4xi32>
    %p = "sw.addptr"(%pz, %ar) : (tensor<4x!sw.ptr<f32>>, tensor<4xi32>) -> tensor<4x!sw.ptr<f32>>
    %prod = "sw.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "sw.store"(%p, %prod) : (tensor<4x!sw.ptr<f32>>, tensor<4xf32>) -> ()
    %lim = "sw.constant"() {value = 9 : i32} : () -> tensor<4xi32>
    %ten = "sw.constant"() {value = 10 : i32} : () -> tensor<4xi32>
    %mask = "sw.cmp"(%lim, %ten) {predicate = "lt"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    "sw.store"(%p, %prod, %mask) : (tensor<4x!sw.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> ()
    %mx = "sw.reduce"(%a) {kind = "max"} : (tensor<4xf32>) -> f32
    "sw.store"(%os, %mx) : (!sw.ptr<f32>, f32) -> ()
    %mn = "sw.reduce"(%a) {kind = "min"} : (tensor<4xf32>) -> f32
    "sw.store"(%os, %mn) : (!sw.ptr<f32>, f32) -> ()
    %sum = "sw.reduce"(%a) {kind = "sum"} : (tensor<4xf32>) -> f32
    "sw.store"(%os, %sum) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// select with a constant condition (scalar or splat) picks an operand.
// CHECK-LABEL: func.func @select_const
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %y)
// CHECK: %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> tensor<8xi32>
// CHECK: "sw.store"(%{{[0-9]+}}, %[[ZERO]])
module {
  func.func @select_const(%o: !sw.ptr<i32>, %x: i32, %y: i32) {
    %t = "sw.constant"() {value = true} : () -> i1
    %f = "sw.constant"() {value = false} : () -> i1
    %a = "sw.select"(%t, %x, %y) : (i1, i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.select"(%f, %x, %y) : (i1, i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %tf = "sw.constant"() {value = false} : () -> tensor<8xi1>
    %zero = "sw.constant"() {value = 0 : i32} : () -> tensor<8xi32>
    %xs = "sw.splat"(%x) : (i32) -> tensor<8xi32>
    %c = "sw.select"(%tf, %xs, %zero) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %ps = "sw.splat"(%o) : (!sw.ptr<i32>) -> tensor<8x!sw.ptr<i32>>
    "sw.store"(%ps, %c) : (tensor<8x!sw.ptr<i32>>, tensor<8xi32>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// sw.if on a constant: the chosen branch's ops move before the if and its
// yielded values replace the if's results. The condition here is itself a
// folded comparison.
// CHECK-LABEL: func.func @if_true
// CHECK: %[[C:[0-9]+]] = "sw.constant"() {value = 3 : i32} : () -> i32
// CHECK-NEXT: %[[M:[0-9]+]] = "sw.add"(%x, %[[C]])
// CHECK-NEXT: "sw.store"(%o, %[[M]])
// CHECK-NEXT: "func.return"
module {
  func.func @if_true(%o: !sw.ptr<i32>, %x: i32) {
    %one = "sw.constant"() {value = 1 : i32} : () -> i32
    %two = "sw.constant"() {value = 2 : i32} : () -> i32
    %cond = "sw.cmp"(%one, %two) {predicate = "lt"} : (i32, i32) -> i1
    %r = "sw.if"(%cond) ({
      %c3 = "sw.constant"() {value = 3 : i32} : () -> i32
      %m = "sw.add"(%x, %c3) : (i32, i32) -> i32
      "sw.yield"(%m) : (i32) -> ()
    }, {
      "sw.yield"(%x) : (i32) -> ()
    }) : (i1) -> i32
    "sw.store"(%o, %r) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// CHECK-LABEL: func.func @if_false
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %y)
// CHECK-NEXT: "func.return"
module {
  func.func @if_false(%o: !sw.ptr<i32>, %x: i32, %y: i32) {
    %f = "sw.constant"() {value = false} : () -> i1
    %r = "sw.if"(%f) ({
      %c3 = "sw.constant"() {value = 3 : i32} : () -> i32
      "sw.yield"(%c3) : (i32) -> ()
    }, {
      "sw.yield"(%x) : (i32) -> ()
    }) : (i1) -> i32
    "sw.store"(%o, %r) : (!sw.ptr<i32>, i32) -> ()
    "sw.if"(%f) ({
      "sw.store"(%o, %x) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }, {
      "sw.store"(%o, %y) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }) : (i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Folding reaches into nested regions: an if on a constant inside a loop
// whose trip count is unknown is inlined into the loop body.
// CHECK-LABEL: func.func @if_in_loop
// CHECK: "sw.for"
// CHECK-NEXT: ^bb0(%[[IV:[0-9]+]]: i32, %[[ACC:[0-9]+]]: i32):
// CHECK-NEXT: %[[S:[0-9]+]] = "sw.add"(%[[ACC]], %[[IV]])
// CHECK-NEXT: "sw.yield"(%[[S]])
module {
  func.func @if_in_loop(%o: !sw.ptr<i32>, %n: i32) {
    %zero = "sw.constant"() {value = 0 : i32} : () -> i32
    %one = "sw.constant"() {value = 1 : i32} : () -> i32
    %t = "sw.constant"() {value = true} : () -> i1
    %r = "sw.for"(%zero, %n, %one, %zero) ({
    ^bb0(%iv: i32, %acc: i32):
      %v = "sw.if"(%t) ({
        %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
        "sw.yield"(%s) : (i32) -> ()
      }, {
        "sw.yield"(%acc) : (i32) -> ()
      }) : (i1) -> i32
      "sw.yield"(%v) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// A loop that runs zero times is its inits (its stores never happen); a
// loop that runs once is its body with iv = lb.
// CHECK-LABEL: func.func @for_zero_and_one
// CHECK: %[[LB:[0-9]+]] = "sw.constant"() {value = 4 : i32} : () -> i32
// CHECK-NOT: "sw.for"
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: %[[S:[0-9]+]] = "sw.add"(%x, %[[LB]])
// CHECK-NEXT: "sw.store"(%o, %[[S]])
// CHECK-NEXT: "func.return"
module {
  func.func @for_zero_and_one(%o: !sw.ptr<i32>, %x: i32) {
    %c10 = "sw.constant"() {value = 10 : i32} : () -> i32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %c4 = "sw.constant"() {value = 4 : i32} : () -> i32
    %c8 = "sw.constant"() {value = 8 : i32} : () -> i32
    %r0 = "sw.for"(%c10, %c0, %c1, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      "sw.store"(%o, %iv) : (!sw.ptr<i32>, i32) -> ()
      %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r0) : (!sw.ptr<i32>, i32) -> ()
    %r1 = "sw.for"(%c4, %c10, %c8, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r1) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// range() semantics downwards too: (5, 3, -4) runs once with iv = 5,
// (3, 5, -1) never runs.
// CHECK-LABEL: func.func @for_down
// CHECK: %[[LB:[0-9]+]] = "sw.constant"() {value = 5 : i32} : () -> i32
// CHECK-NOT: "sw.for"
// CHECK: %[[S:[0-9]+]] = "sw.add"(%x, %[[LB]])
// CHECK-NEXT: "sw.store"(%o, %[[S]])
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "func.return"
module {
  func.func @for_down(%o: !sw.ptr<i32>, %x: i32) {
    %c5 = "sw.constant"() {value = 5 : i32} : () -> i32
    %c3 = "sw.constant"() {value = 3 : i32} : () -> i32
    %m4 = "sw.constant"() {value = -4 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %r1 = "sw.for"(%c5, %c3, %m4, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r1) : (!sw.ptr<i32>, i32) -> ()
    %r0 = "sw.for"(%c3, %c5, %m1, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      "sw.store"(%o, %iv) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"(%acc) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r0) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Loops that run twice (either way) stay, and so does a loop with step 0:
// range() with step 0 is a run-time error, which folding must not hide.
// CHECK-LABEL: func.func @for_kept
// CHECK: "sw.for"
// CHECK: "sw.for"
// CHECK: "sw.for"
module {
  func.func @for_kept(%o: !sw.ptr<i32>, %x: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %r2 = "sw.for"(%c0, %c2, %c1, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %r2) : (!sw.ptr<i32>, i32) -> ()
    %rd = "sw.for"(%c2, %c0, %m1, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      %s = "sw.add"(%acc, %iv) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %rd) : (!sw.ptr<i32>, i32) -> ()
    %rz = "sw.for"(%c0, %c0, %c0, %x) ({
    ^bb0(%iv: i32, %acc: i32):
      "sw.yield"(%acc) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.store"(%o, %rz) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}
