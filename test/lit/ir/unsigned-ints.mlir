// RUN: %swage-opt %s | %swage-opt | FileCheck %s
// The integer types i16, ui16, ui32 and ui64 print and parse back; a ui64
// constant from 2^63 up prints as its unsigned value; folding wraps and
// divides, compares and shifts as unsigned.
// RUN: %swage-opt %s --pass fold | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @types(%a: i16, %b: ui16, %c: ui32, %d: ui64, %p: !sw.ptr<ui64>)
// CHECK-NEXT:    "sw.constant"() {value = 18446744073709551615 : ui64} : () -> ui64
// CHECK-NEXT:    "sw.constant"() {value = 9223372036854775808 : ui64} : () -> ui64
// CHECK-NEXT:    "sw.constant"() {value = 4294967295 : ui32} : () -> ui32
// CHECK-NEXT:    "sw.constant"() {value = 65535 : ui16} : () -> ui16
// CHECK-NEXT:    "sw.constant"() {value = -32768 : i16} : () -> i16
func.func @types(%a: i16, %b: ui16, %c: ui32, %d: ui64, %p: !sw.ptr<ui64>) {
  %0 = "sw.constant"() {value = 18446744073709551615 : ui64} : () -> ui64
  %1 = "sw.constant"() {value = 9223372036854775808 : ui64} : () -> ui64
  %2 = "sw.constant"() {value = 0xFFFFFFFF : ui32} : () -> ui32
  %3 = "sw.constant"() {value = 65535 : ui16} : () -> ui16
  %4 = "sw.constant"() {value = -32768 : i16} : () -> i16
  "func.return"() : () -> ()
}

// FOLD-LABEL: func.func @fold(%p: !sw.ptr<ui64>, %q: !sw.ptr<ui32>, %r: !sw.ptr<i1>)
// 2^64 - 1 max 2^63 is 2^64 - 1; (2^64 - 1) // 2^63 is 1; 2^63 >> 63 is 1
// (logical); 2^32 - 1 + 2 wraps to 1; 2^32 - 1 > 1 as unsigned.
// FOLD-DAG:  "sw.constant"() {value = 18446744073709551615 : ui64} : () -> ui64
// FOLD-DAG:  "sw.constant"() {value = 1 : ui64} : () -> ui64
// FOLD-DAG:  "sw.constant"() {value = 1 : ui32} : () -> ui32
// FOLD-DAG:  "sw.constant"() {value = true} : () -> i1
// FOLD-NOT:  "sw.maximum"
// FOLD-NOT:  "sw.idiv"
// FOLD-NOT:  "sw.shr"
// FOLD-NOT:  "sw.cmp"
func.func @fold(%p: !sw.ptr<ui64>, %q: !sw.ptr<ui32>, %r: !sw.ptr<i1>) {
  %big = "sw.constant"() {value = 18446744073709551615 : ui64} : () -> ui64
  %half = "sw.constant"() {value = 9223372036854775808 : ui64} : () -> ui64
  %s63 = "sw.constant"() {value = 63 : ui64} : () -> ui64
  %m = "sw.maximum"(%big, %half) : (ui64, ui64) -> ui64
  %d = "sw.idiv"(%big, %half) : (ui64, ui64) -> ui64
  %s = "sw.shr"(%half, %s63) : (ui64, ui64) -> ui64
  "sw.store"(%p, %m) : (!sw.ptr<ui64>, ui64) -> ()
  "sw.store"(%p, %d) : (!sw.ptr<ui64>, ui64) -> ()
  "sw.store"(%p, %s) : (!sw.ptr<ui64>, ui64) -> ()
  %top = "sw.constant"() {value = 4294967295 : ui32} : () -> ui32
  %two = "sw.constant"() {value = 2 : ui32} : () -> ui32
  %one = "sw.constant"() {value = 1 : ui32} : () -> ui32
  %w = "sw.add"(%top, %two) : (ui32, ui32) -> ui32
  "sw.store"(%q, %w) : (!sw.ptr<ui32>, ui32) -> ()
  %gt = "sw.cmp"(%top, %one) {predicate = "gt"} : (ui32, ui32) -> i1
  "sw.store"(%r, %gt) : (!sw.ptr<i1>, i1) -> ()
  "func.return"() : () -> ()
}
