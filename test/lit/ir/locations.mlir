// RUN: not %swage-opt %s --split-input-file --mlir-print-debuginfo 2>&1 | FileCheck %s

// Locations in the user's file round-trip; an op without one, once others
// have them, is unknown (its place in the IR text means nothing there).
// CHECK:      func.func @k(%a: i32) {
// CHECK-NEXT:   %0 = "sw.neg"(%a) : (i32) -> i32 loc("kernel.py":12:9)
// CHECK-NEXT:   %1 = "sw.abs"(%0) : (i32) -> i32 loc(unknown)
// CHECK-NEXT:   %2 = "sw.not"(%1) : (i32) -> i32 loc(unknown)
// CHECK-NEXT:   "func.return"() : () -> () loc("kernel.py":14:5)
// CHECK-NEXT: } loc("kernel.py":11:1)
func.func @k(%a: i32) {
  %0 = "sw.neg"(%a) : (i32) -> i32 loc("kernel.py":12:9)
  %1 = "sw.abs"(%0) : (i32) -> i32 loc(unknown)
  %2 = "sw.not"(%1) : (i32) -> i32
  "func.return"() : () -> () loc("kernel.py":14:5)
} loc("kernel.py":11:1)

// -----
// Verifier errors then point into the user's file, without a caret.
// CHECK:      // -----
// CHECK-NEXT: kernel.py:13:5: error: 'sw.add' result type f32 does not match its operand type i32
// CHECK-NEXT: // -----
func.func @k(%a: i32) {
  %0 = "sw.add"(%a, %a) : (i32, i32) -> i32 loc("kernel.py":12:9)
  %1 = "sw.add"(%a, %0) : (i32, i32) -> f32 loc("kernel.py":13:5)
  "func.return"() : () -> ()
}

// -----
// Without locations, ops are placed in the IR text itself.
// CHECK: func.func @plain(%a: i32) {
// CHECK-NEXT: %0 = "sw.neg"(%a) : (i32) -> i32 loc("{{.*}}locations.mlir":[[# @LINE + 2]]:8)
func.func @plain(%a: i32) {
  %0 = "sw.neg"(%a) : (i32) -> i32
  "func.return"() : () -> ()
}
