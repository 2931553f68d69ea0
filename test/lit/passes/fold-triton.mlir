// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s --check-prefix=GONE
// Folding the ops of the language's integer // and % (sw.idiv, sw.rem:
// C's division, rounding toward zero), sw.umulhi, sw.fma and sw.erf gives
// what the CPU executors compute (src/ir/scalar.c).
// GONE-NOT: "sw.idiv"
// GONE-NOT: "sw.umulhi"
// GONE-NOT: "sw.fma"
// GONE-NOT: "sw.erf"

// -7 idiv 2 = -3, -7 rem 2 = -1, 7 idiv -2 = -3, 7 rem -2 = 1; a divisor
// of 0 gives 0 and 0; MIN idiv -1 wraps to MIN, MIN rem -1 is 0.
// CHECK-LABEL: func.func @i32_idiv_rem
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -3 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -3 : i32} : () -> i32
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
  func.func @i32_idiv_rem(%o: !sw.ptr<i32>) {
    %m7 = "sw.constant"() {value = -7 : i32} : () -> i32
    %p7 = "sw.constant"() {value = 7 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %m2 = "sw.constant"() {value = -2 : i32} : () -> i32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %min = "sw.constant"() {value = -2147483648 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %a = "sw.idiv"(%m7, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.rem"(%m7, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.idiv"(%p7, %m2) : (i32, i32) -> i32
    "sw.store"(%o, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.rem"(%p7, %m2) : (i32, i32) -> i32
    "sw.store"(%o, %d) : (!sw.ptr<i32>, i32) -> ()
    %e = "sw.idiv"(%m7, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %e) : (!sw.ptr<i32>, i32) -> ()
    %f = "sw.rem"(%m7, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %f) : (!sw.ptr<i32>, i32) -> ()
    %g = "sw.idiv"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %g) : (!sw.ptr<i32>, i32) -> ()
    %h = "sw.rem"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %h) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// i64 at its limits, and umulhi: the high half of the unsigned product.
// CHECK-LABEL: func.func @i64_limits
// CHECK: "sw.constant"() {value = 9223372036854775807 : i64}
// CHECK-NEXT: %[[R:[0-9]+]] = "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1 : i64} : () -> i64
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -2 : i64} : () -> i64
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @i64_limits(%o: !sw.ptr<i64>) {
    %min = "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
    %m1 = "sw.constant"() {value = -1 : i64} : () -> i64
    %max = "sw.constant"() {value = 9223372036854775807 : i64} : () -> i64
    %a = "sw.idiv"(%min, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %a) : (!sw.ptr<i64>, i64) -> ()
    %b = "sw.rem"(%m1, %max) : (i64, i64) -> i64
    "sw.store"(%o, %b) : (!sw.ptr<i64>, i64) -> ()
    // (2^64 - 1)^2 = 2^128 - 2^65 + 1: high half 2^64 - 2, which is -2
    %c = "sw.umulhi"(%m1, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %c) : (!sw.ptr<i64>, i64) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// fma rounds once: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 in f32, where a
// multiply and an add would give 0. erf folds too.
// CHECK-LABEL: func.func @fma_erf
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 5.9604645e-08 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = -1.0 : f32} : () -> f32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
module {
  func.func @fma_erf(%o: !sw.ptr<f32>) {
    %a = "sw.constant"() {value = 1.000244140625 : f32} : () -> f32
    %c = "sw.constant"() {value = -1.00048828125 : f32} : () -> f32
    %f = "sw.fma"(%a, %a, %c) : (f32, f32, f32) -> f32
    "sw.store"(%o, %f) : (!sw.ptr<f32>, f32) -> ()
    %p = "sw.mul"(%a, %a) : (f32, f32) -> f32
    %s = "sw.add"(%p, %c) : (f32, f32) -> f32
    "sw.store"(%o, %s) : (!sw.ptr<f32>, f32) -> ()
    %m9 = "sw.constant"() {value = -9.0 : f32} : () -> f32
    %e = "sw.erf"(%m9) : (f32) -> f32
    "sw.store"(%o, %e) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// x idiv 1 is x; x rem 1 and x rem -1 are 0 (MIN rem -1 too); ui8 rem 255
// (its -1) is not, and stays.
// CHECK-LABEL: func.func @simplify
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: %[[Z:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[Z]])
// CHECK-NEXT: %[[Z:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[Z]])
// CHECK: "sw.rem"(%u, {{%[0-9a-z]+}}) : (ui8, ui8) -> ui8
module {
  func.func @simplify(%o: !sw.ptr<i32>, %x: i32, %u: ui8, %ou: !sw.ptr<ui8>) {
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %a = "sw.idiv"(%x, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.rem"(%x, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.rem"(%x, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %c) : (!sw.ptr<i32>, i32) -> ()
    %u255 = "sw.constant"() {value = 255 : ui8} : () -> ui8
    %d = "sw.rem"(%u, %u255) : (ui8, ui8) -> ui8
    "sw.store"(%ou, %d) : (!sw.ptr<ui8>, ui8) -> ()
    "func.return"() : () -> ()
  }
}
