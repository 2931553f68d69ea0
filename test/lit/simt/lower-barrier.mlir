// RUN: %swage-opt %s --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// RUN: %swage-opt %s --passes=dce | FileCheck %s --check-prefix=KEEP
// sl.debug_barrier's sw.barrier becomes simt.barrier (bar.sync 0), in
// place between the stores and the loads it orders; DCE keeps it.

// CHECK-LABEL: func.func @barrier
// CHECK:       "simt.store"
// CHECK-NEXT:  "simt.barrier"() : () -> ()
// CHECK:       "simt.load"
// PTX:         st.global
// PTX:         bar.sync 0;
// PTX:         ld.global
// KEEP:        "sw.barrier"() : () -> ()
module {
  func.func @barrier(%p: !sw.ptr<f32>, %x: f32) {
    "sw.store"(%p, %x) : (!sw.ptr<f32>, f32) -> ()
    "sw.barrier"() : () -> ()
    %0 = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    "sw.store"(%p, %0) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}
