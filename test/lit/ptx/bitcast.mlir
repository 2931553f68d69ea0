// RUN: %swage-opt %s --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s
// RUN: %swage-opt %s --passes=fold | FileCheck %s --check-prefix=FOLD
// sw.bitcast (x.to(dtype, bitcast=True)) is one mov of the width between
// register classes; of a constant it folds to the reinterpreted constant.

// CHECK: mov.b32 %r{{[0-9]+}}, %f{{[0-9]+}};
// CHECK: mov.b64 %fd{{[0-9]+}}, %rd{{[0-9]+}};
// CHECK: mov.b16 %h{{[0-9]+}}, %h{{[0-9]+}};
// FOLD: "sw.constant"() {value = 1065353216 : i32} : () -> i32
// FOLD-NOT: "sw.bitcast"(%{{[0-9]+}}) : (f32) -> i32
module {
  func.func @bitcast(%p: !sw.ptr<f32>, %q: !sw.ptr<i32>, %r: !sw.ptr<i64>, %s: !sw.ptr<f64>, %h: !sw.ptr<f16>, %b: !sw.ptr<bf16>) {
    %0 = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    %1 = "sw.bitcast"(%0) : (f32) -> i32
    "sw.store"(%q, %1) : (!sw.ptr<i32>, i32) -> ()
    %2 = "sw.load"(%r) : (!sw.ptr<i64>) -> i64
    %3 = "sw.bitcast"(%2) : (i64) -> f64
    "sw.store"(%s, %3) : (!sw.ptr<f64>, f64) -> ()
    %4 = "sw.load"(%h) : (!sw.ptr<f16>) -> f16
    %5 = "sw.bitcast"(%4) : (f16) -> bf16
    "sw.store"(%b, %5) : (!sw.ptr<bf16>, bf16) -> ()
    %6 = "sw.constant"() {value = 1.0 : f32} : () -> f32
    %7 = "sw.bitcast"(%6) : (f32) -> i32
    "sw.store"(%q, %7) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}
