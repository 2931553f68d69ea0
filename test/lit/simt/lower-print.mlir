// RUN: %swage-opt %s --passes=lower-simt | FileCheck %s
// RUN: not %swage-opt %s --passes=lower-simt --emit-ptx=sm_90 2>&1 | FileCheck %s --check-prefix=PTX
// sl.device_print's sw.print becomes simt.print with its operands and
// attributes; the PTX backend has no lowering for it (a compile error).

// CHECK: "simt.print"(%{{[0-9]+}}, %n) {hex = 0 : i32, lens = "4,0", prefix = "x: "} : (vector<1xf32>, i32) -> ()
// PTX: error: sl.device_print is not supported on the GPU yet
module {
  func.func @print(%p: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.arange"() {start = 0 : i32, end = 4 : i32} : () -> tensor<4xi32>
    %1 = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<4x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<4x!sw.ptr<f32>>, tensor<4xi32>) -> tensor<4x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<4x!sw.ptr<f32>>) -> tensor<4xf32>
    "sw.print"(%3, %n) {hex = 0 : i32, lens = "4,0", prefix = "x: "} : (tensor<4xf32>, i32) -> ()
    "func.return"() : () -> ()
  }
}
