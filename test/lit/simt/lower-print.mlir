// RUN: %swage-opt %s --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// sl.device_print's sw.print becomes simt.print with its operands and
// attributes; in PTX, one vprintf call per line: the tile's 4 elements
// from threads 0-3 (one slot each), the scalar from thread 0, the value
// at offset 16 of the .local argument buffer (a double for a float).

// CHECK: "simt.print"(%{{[0-9]+}}, %n) {hex = 0 : i32, lens = "4,0", prefix = "x: "} : (vector<1xf32>, i32) -> ()
// PTX: .extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
// PTX: .global .align 1 .b8 __swage_fmt_0[
// PTX: .global .align 1 .b8 __swage_fmt_1[
// PTX-NOT: __swage_fmt_2[
// PTX: .local .align 8 .b8 __swage_print_buf[24];
// PTX: setp.lt.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, 4;
// PTX: st.local.u32 [__swage_print_buf+12], %r{{[0-9]+}};
// PTX: cvt.f64.f32 %fd{{[0-9]+}}, %f{{[0-9]+}};
// PTX: st.local.f64 [__swage_print_buf+16], %fd{{[0-9]+}};
// PTX: mov.u64 %rd{{[0-9]+}}, __swage_fmt_0;
// PTX: call (written), vprintf, (fmt, args);
// PTX: setp.lt.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, 1;
// PTX-NOT: st.local.u32 [__swage_print_buf+12]
// PTX: st.local.b32 [__swage_print_buf+12], %r{{[0-9]+}};
// PTX: mov.u64 %rd{{[0-9]+}}, __swage_fmt_1;
// PTX: call (written), vprintf, (fmt, args);
// PTX-NOT: vprintf
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
