// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s
// Folding at the limits of i32 and i64: every result is the wrapped value
// the CPU executor computes, with no C overflow on the way (make asan runs
// this under UndefinedBehaviorSanitizer), and a constant loop's trip count
// is Python's len(range(...)) even where the distance overflows int64.

// In order: INT64_MIN // -1 and -INT64_MIN and abs(INT64_MIN) and INT64_MIN * -1
// wrap to INT64_MIN; INT64_MIN % -1 is 0; shifts by 64 or by a negative
// count shift everything out (0, or -1 for a negative value).
// CHECK-LABEL: func.func @i64_limits
// CHECK: "sw.constant"() {value = 64 : i64}
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -9223372036854775808 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = 0 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -9223372036854775808 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -9223372036854775808 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -2 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -9223372036854775808 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = 0 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -1 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -1 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = 1 : i64}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: "func.return"
module {
  func.func @i64_limits(%o: !sw.ptr<i64>) {
    %min = "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
    %max = "sw.constant"() {value = 9223372036854775807 : i64} : () -> i64
    %m1 = "sw.constant"() {value = -1 : i64} : () -> i64
    %c64 = "sw.constant"() {value = 64 : i64} : () -> i64
    %q = "sw.floordiv"(%min, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %q) : (!sw.ptr<i64>, i64) -> ()
    %r = "sw.mod"(%min, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %r) : (!sw.ptr<i64>, i64) -> ()
    %n = "sw.neg"(%min) : (i64) -> i64
    "sw.store"(%o, %n) : (!sw.ptr<i64>, i64) -> ()
    %a = "sw.abs"(%min) : (i64) -> i64
    "sw.store"(%o, %a) : (!sw.ptr<i64>, i64) -> ()
    %s = "sw.add"(%max, %max) : (i64, i64) -> i64
    "sw.store"(%o, %s) : (!sw.ptr<i64>, i64) -> ()
    %p = "sw.mul"(%min, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %p) : (!sw.ptr<i64>, i64) -> ()
    %l = "sw.shl"(%max, %c64) : (i64, i64) -> i64
    "sw.store"(%o, %l) : (!sw.ptr<i64>, i64) -> ()
    %h = "sw.shr"(%min, %c64) : (i64, i64) -> i64
    "sw.store"(%o, %h) : (!sw.ptr<i64>, i64) -> ()
    %hm = "sw.shr"(%min, %m1) : (i64, i64) -> i64
    "sw.store"(%o, %hm) : (!sw.ptr<i64>, i64) -> ()
    %d = "sw.sub"(%min, %max) : (i64, i64) -> i64
    "sw.store"(%o, %d) : (!sw.ptr<i64>, i64) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// The same at i32.
// CHECK-LABEL: func.func @i32_limits
// CHECK: "sw.constant"() {value = -1 : i32}
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = 0 : i32}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -2147483648 : i32}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
// CHECK-NEXT: %[[V:[0-9]+]] = "sw.constant"() {value = -2 : i32}
// CHECK-NEXT: "sw.store"(%o, %[[V]])
module {
  func.func @i32_limits(%o: !sw.ptr<i32>) {
    %min = "sw.constant"() {value = -2147483648 : i32} : () -> i32
    %max = "sw.constant"() {value = 2147483647 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %q = "sw.floordiv"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %q) : (!sw.ptr<i32>, i32) -> ()
    %r = "sw.mod"(%min, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %r) : (!sw.ptr<i32>, i32) -> ()
    %n = "sw.neg"(%min) : (i32) -> i32
    "sw.store"(%o, %n) : (!sw.ptr<i32>, i32) -> ()
    %s = "sw.add"(%max, %max) : (i32, i32) -> i32
    "sw.store"(%o, %s) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// range(0, 2**63-1, 2**63-1) runs once: inlined with iv = 0. range(-2**63,
// 2**63-1, 2**63-1) runs three times and range(2**63-1, -2**63, -2**63)
// twice: loops that stay. range(2**31-2, 2**31-1, 5) on i32 runs once.
// CHECK-LABEL: func.func @for_limits
// CHECK-NOT: "sw.for"
// CHECK: "sw.store"(%o, %{{[0-9]+}}) : (!sw.ptr<i64>, i64)
// CHECK: "sw.for"
// CHECK: "sw.for"
// CHECK-NOT: "sw.for"
// CHECK: "func.return"
module {
  func.func @for_limits(%o: !sw.ptr<i64>, %p: !sw.ptr<i32>) {
    %zero = "sw.constant"() {value = 0 : i64} : () -> i64
    %min = "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
    %max = "sw.constant"() {value = 9223372036854775807 : i64} : () -> i64
    "sw.for"(%zero, %max, %max) ({
    ^bb0(%iv: i64):
      "sw.store"(%o, %iv) : (!sw.ptr<i64>, i64) -> ()
      "sw.yield"() : () -> ()
    }) : (i64, i64, i64) -> ()
    "sw.for"(%min, %max, %max) ({
    ^bb0(%iv: i64):
      "sw.store"(%o, %iv) : (!sw.ptr<i64>, i64) -> ()
      "sw.yield"() : () -> ()
    }) : (i64, i64, i64) -> ()
    "sw.for"(%max, %min, %min) ({
    ^bb0(%iv: i64):
      "sw.store"(%o, %iv) : (!sw.ptr<i64>, i64) -> ()
      "sw.yield"() : () -> ()
    }) : (i64, i64, i64) -> ()
    %lo = "sw.constant"() {value = 2147483646 : i32} : () -> i32
    %hi = "sw.constant"() {value = 2147483647 : i32} : () -> i32
    %five = "sw.constant"() {value = 5 : i32} : () -> i32
    "sw.for"(%lo, %hi, %five) ({
    ^bb0(%iv: i32):
      "sw.store"(%p, %iv) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }) : (i32, i32, i32) -> ()
    "func.return"() : () -> ()
  }
}
