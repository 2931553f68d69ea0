// RUN: %swage-opt %s --passes=fold | FileCheck %s
// RUN: %swage-opt %s --passes=fold,dce | FileCheck %s --check-prefix=GONE
// libdevice's functions fold to what the CPU executors compute (the C
// library's double functions, rounded to the dtype; src/ir/scalar.c).
// GONE-NOT: "sw.pow"
// GONE-NOT: "sw.atan2"
// GONE-NOT: "sw.hypot"
// GONE-NOT: "sw.fmod"
// GONE-NOT: "sw.copysign"
// GONE-NOT: "sw.round"
// GONE-NOT: "sw.rint"
// GONE-NOT: "sw.trunc"
// GONE-NOT: "sw.cbrt"
// GONE-NOT: "sw.exp10"
// GONE-NOT: "sw.tanh"

// CHECK-LABEL: func.func @math
// CHECK: "sw.constant"() {value = 1024.0 : f32}
// CHECK: "sw.constant"() {value = 3.1415927 : f32}
// CHECK: "sw.constant"() {value = 5.0 : f64}
// CHECK: "sw.constant"() {value = 1.5 : f32}
// CHECK: "sw.constant"() {value = -1.5 : f32}
// CHECK: "sw.constant"() {value = -1.5 : f32}
// CHECK: "sw.constant"() {value = -2.0 : f32}
// CHECK: "sw.constant"() {value = -4.5 : f32}
// CHECK: "sw.constant"() {value = -3.0 : f32}
// CHECK: "sw.constant"() {value = -2.0 : f32}
// CHECK: "sw.constant"() {value = -2.0 : f32}
// CHECK: "sw.constant"() {value = 3.{{[0-9]*}} : f64}
// CHECK: "sw.constant"() {value = 1000.0 : f32}
// CHECK: "sw.constant"() {value = 0.0 : f32}
module {
  func.func @math(%o: !sw.ptr<f32>, %o64: !sw.ptr<f64>) {
    %two = "sw.constant"() {value = 2.0 : f32} : () -> f32
    %ten = "sw.constant"() {value = 10.0 : f32} : () -> f32
    %m1 = "sw.constant"() {value = -1.0 : f32} : () -> f32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %m25 = "sw.constant"() {value = -2.5 : f32} : () -> f32
    %m55 = "sw.constant"() {value = 5.5 : f32} : () -> f32
    %three = "sw.constant"() {value = 3.0 : f64} : () -> f64
    %four = "sw.constant"() {value = 4.0 : f64} : () -> f64
    %d27 = "sw.constant"() {value = 27.0 : f64} : () -> f64
    %three32 = "sw.constant"() {value = 3.0 : f32} : () -> f32
    %a = "sw.pow"(%two, %ten) : (f32, f32) -> f32
    "sw.store"(%o, %a) : (!sw.ptr<f32>, f32) -> ()
    %b = "sw.atan2"(%zero, %m1) : (f32, f32) -> f32
    "sw.store"(%o, %b) : (!sw.ptr<f32>, f32) -> ()
    %c = "sw.hypot"(%three, %four) : (f64, f64) -> f64
    "sw.store"(%o64, %c) : (!sw.ptr<f64>, f64) -> ()
    %d = "sw.fmod"(%m55, %two) : (f32, f32) -> f32
    %d2 = "sw.neg"(%d) : (f32) -> f32
    %d3 = "sw.copysign"(%d, %m1) : (f32, f32) -> f32
    "sw.store"(%o, %d3) : (!sw.ptr<f32>, f32) -> ()
    %e = "sw.trunc"(%m25) : (f32) -> f32
    %e2 = "sw.add"(%e, %m25) : (f32, f32) -> f32
    "sw.store"(%o, %m25) : (!sw.ptr<f32>, f32) -> ()
    %f = "sw.round"(%m25) : (f32) -> f32
    "sw.store"(%o, %f) : (!sw.ptr<f32>, f32) -> ()
    %g = "sw.rint"(%m25) : (f32) -> f32
    "sw.store"(%o, %g) : (!sw.ptr<f32>, f32) -> ()
    %h = "sw.trunc"(%m25) : (f32) -> f32
    "sw.store"(%o, %h) : (!sw.ptr<f32>, f32) -> ()
    %i = "sw.cbrt"(%d27) : (f64) -> f64
    "sw.store"(%o64, %i) : (!sw.ptr<f64>, f64) -> ()
    %j = "sw.exp10"(%three32) : (f32) -> f32
    "sw.store"(%o, %j) : (!sw.ptr<f32>, f32) -> ()
    %k = "sw.tanh"(%zero) : (f32) -> f32
    "sw.store"(%o, %k) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}
