// REQUIRES: emit-ptx
// RUN: not %swage-opt %s --split-input-file --emit-ptx=sm_90 2>&1 | FileCheck %s
// IR the PTX emitter cannot take is a compile error, never a crash or a
// silent miscompile: here, IR that is not SIMT IR.

// CHECK: error: func.func @semantic is not SIMT IR (it has no simt.num_threads attribute): run lower-simt before emitting PTX
module {
  func.func @semantic(%x: i32) {
    "func.return"() : () -> ()
  }
}
