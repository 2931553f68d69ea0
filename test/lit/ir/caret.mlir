// RUN: not %swage-opt %s 2>&1 | FileCheck %s --strict-whitespace --match-full-lines
// A diagnostic quotes the IR line and puts a caret under the column.
func.func @k(%a: i32) {
	%0 = "sw.add"(%a, %b) : (i32, i32) -> i32
  "func.return"() : () -> ()
}
// CHECK:{{.*}}caret.mlir:4:20: error: use of undefined value '%b'
// CHECK-NEXT:    	%0 = "sw.add"(%a, %b) : (i32, i32) -> i32
// CHECK-NEXT:    	                  ^
