// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// --split-input-file runs every chunk even after one fails, keeps the whole
// file's line numbers in diagnostics, and separates outputs by "// -----".

// CHECK:      func.func @first
// CHECK:      // -----
func.func @first() {
  "func.return"() : () -> ()
}

// -----
// CHECK-NEXT: split-input.mlir:[[# @LINE + 2]]:17: error: use of undefined value '%nope'
func.func @second() {
  %0 = "sw.neg"(%nope) : (i32) -> i32
  "func.return"() : () -> ()
}

// -----
// CHECK:      // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @third
func.func @third() {
  "func.return"() : () -> ()
}
   // -----   
// CHECK:      // -----
// CHECK-NEXT: split-input.mlir:[[# @LINE + 1]]:17: error: expected an argument name (%name), found end of input
func.func @last(