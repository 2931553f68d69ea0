// REQUIRES: emit-ptx
// RUN: not %swage-opt %s --split-input-file --emit-ptx=sm_90 2>&1 | FileCheck %s
// What the GPU cannot do yet is a compile error at the op, never a crash
// or a silent miscompile; so is IR that is not SIMT IR.

// CHECK: errors.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: sw.exp on float64 is not supported on the GPU yet
module {
  func.func @f64exp(%x: f64) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {
    %e = "sw.exp"(%x) : (f64) -> f64
    "func.return"() : () -> ()
  }
}

// -----

// CHECK: error: func.func @semantic is not SIMT IR (it has no simt.num_threads attribute): run lower-simt before emitting PTX
module {
  func.func @semantic(%x: i32) {
    "func.return"() : () -> ()
  }
}
