// Print -> parse -> print gives identical text, with and without locations.
// RUN: %swage-opt %s > %t.1
// RUN: %swage-opt %t.1 > %t.2
// RUN: diff %t.1 %t.2
// RUN: %swage-opt %s --mlir-print-debuginfo > %t.3
// RUN: %swage-opt %t.3 --mlir-print-debuginfo > %t.4
// RUN: diff %t.3 %t.4
// RUN: %swage-opt %t.3 > %t.5
// RUN: diff %t.1 %t.5

// Hand-written names, comments and locations of several files on purpose.
func.func @softmax(%values: !sw.ptr<f32>, %out: !sw.ptr<f32>, %len: i32) attributes {note = "row \"max\"\n"} {
  %ninf = "sw.constant"() {value = 0xFF800000 : f32} : () -> tensor<64xf32>  loc("softmax.py":5:3)
  %r = "sw.arange"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %n = "sw.splat"(%len) : (i32) -> tensor<64xi32> loc(unknown)
  %m = "sw.cmp"(%r, %n) {predicate = "lt"} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1> loc("softmax.py":7:12)
  %vp = "sw.splat"(%values) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
  %p = "sw.addptr"(%vp, %r) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
  %x = "sw.load"(%p, %m, %ninf) : (tensor<64x!sw.ptr<f32>>, tensor<64xi1>, tensor<64xf32>) -> tensor<64xf32>
  %max = "sw.reduce"(%x) {kind = "max"} : (tensor<64xf32>) -> f32
  %ms = "sw.splat"(%max) : (f32) -> tensor<64xf32>
  %d = "sw.sub"(%x, %ms) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %e = "sw.exp"(%d) : (tensor<64xf32>) -> tensor<64xf32>
  %s = "sw.reduce"(%e) {kind = "sum"} : (tensor<64xf32>) -> f32
  %ss = "sw.splat"(%s) : (f32) -> tensor<64xf32>
  %y = "sw.div"(%e, %ss) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %op = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
  %q = "sw.addptr"(%op, %r) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
  "sw.store"(%q, %y, %m) : (tensor<64x!sw.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> ()
  %c = "sw.constant"() {value = 1.0e-3 : f64} : () -> f64
  %flag = "sw.constant"() {value = 1 : i1} : () -> i1
  %t:3 = "sw.if"(%flag) ({
    "sw.yield"(%c, %s, %max) : (f64, f32, f32) -> ()
  }, {
    %z = "sw.neg"(%c) : (f64) -> f64
    "sw.yield"(%z, %max, %s) : (f64, f32, f32) -> ()
  }) : (i1) -> (f64, f32, f32)
  return
}
