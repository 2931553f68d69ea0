// RUN: %swage-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: %swage-opt %s --passes=dce --print-after=all | FileCheck %s --check-prefix=DUMP
// RUN: %swage-opt %s --pass dce --pass=cse | FileCheck %s --check-prefix=FINAL
// RUN: %swage-opt < %s | FileCheck %s --check-prefix=STDIN
// RUN: not %swage-opt %s --passes=dce,frob 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %swage-opt %s --print-after=frob --passes=dce 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %swage-opt %s --frobnicate 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: %swage-opt --help | FileCheck %s --check-prefix=HELP

// LIST: fold
// LIST: dce
// HELP: usage: swage-opt

// DUMP:      // -----// IR Dump After dce //----- //
// DUMP-NEXT: module {
// DUMP-NEXT:   func.func @k(%a: i32) {
// DUMP-NEXT:     "func.return"() : () -> ()
// DUMP:      module {
// DUMP-NEXT:   func.func @k(%a: i32) {
// DUMP-NEXT:     "func.return"() : () -> ()

// FINAL-NOT:  "sw.neg"
// FINAL:      "func.return"
// STDIN:      %0 = "sw.neg"(%a) : (i32) -> i32

// UNKNOWN: error: unknown pass 'frob'
// USAGE: swage-opt: unknown option '--frobnicate'

func.func @k(%a: i32) {
  %unused = "sw.neg"(%a) : (i32) -> i32
  "func.return"() : () -> ()
}
