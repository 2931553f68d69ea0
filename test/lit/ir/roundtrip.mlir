// RUN: %swage-opt %s | %swage-opt | FileCheck %s
// The printer's output parses back: every op, every type, nested regions,
// multi-result ops. Hand-written value names are renumbered; parameters keep
// their names.

// CHECK-LABEL: module {
// CHECK-NEXT:  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) {
// CHECK-NEXT:    %0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %1 = "sw.constant"() {value = 128 : i32} : () -> i32
// CHECK-NEXT:    %2 = "sw.mul"(%0, %1) : (i32, i32) -> i32
// CHECK-NEXT:    %3 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
// CHECK-NEXT:    %4 = "sw.splat"(%2) : (i32) -> tensor<128xi32>
// CHECK-NEXT:    %5 = "sw.add"(%4, %3) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
// CHECK-NEXT:    %6 = "sw.splat"(%n) : (i32) -> tensor<128xi32>
// CHECK-NEXT:    %7 = "sw.cmp"(%5, %6) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
// CHECK-NEXT:    %8 = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
// CHECK-NEXT:    %9 = "sw.addptr"(%8, %5) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
// CHECK-NEXT:    %10 = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
// CHECK-NEXT:    %11 = "sw.load"(%9, %7, %10) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
// CHECK-NEXT:    "sw.store"(%9, %11, %7) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
module {
  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) {
    %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %block = "sw.constant"() {value = 128 : i32} : () -> i32
    %start = "sw.mul"(%pid, %block) : (i32, i32) -> i32
    %range = "sw.arange"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>
    %base = "sw.splat"(%start) : (i32) -> tensor<128xi32>
    %offsets = "sw.add"(%base, %range) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %limit = "sw.splat"(%n) : (i32) -> tensor<128xi32>
    %mask = "sw.cmp"(%offsets, %limit) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %xp = "sw.addptr"(%xs, %offsets) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
    %x = "sw.load"(%xp, %mask, %zero) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    "sw.store"(%xp, %x, %mask) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
    "func.return"() : () -> ()
  }

// Numbering continues across functions; structured control flow prints its
// regions in generic form, block arguments numbered left to right.
// CHECK-NEXT:  func.func @loops(%p: !sw.ptr<f32>, %n: i32, %c: i1) {
// CHECK-NEXT:    %12 = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT:    %13 = "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT:    %14 = "sw.constant"() {value = 1.5 : f32} : () -> f32
// CHECK-NEXT:    %15:2 = "sw.for"(%12, %n, %13, %14, %14) ({
// CHECK-NEXT:    ^bb0(%16: i32, %17: f32, %18: f32):
// CHECK-NEXT:      %19:2 = "sw.if"(%c) ({
// CHECK-NEXT:        %20 = "sw.cast"(%16) : (i32) -> f32
// CHECK-NEXT:        %21 = "sw.add"(%17, %20) : (f32, f32) -> f32
// CHECK-NEXT:        "sw.yield"(%21, %18) : (f32, f32) -> ()
// CHECK-NEXT:      }, {
// CHECK-NEXT:        "sw.for"(%12, %16, %13) ({
// CHECK-NEXT:        ^bb0(%22: i32):
// CHECK-NEXT:          %23 = "sw.addptr"(%p, %22) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:          "sw.store"(%23, %18) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NEXT:          "sw.yield"() : () -> ()
// CHECK-NEXT:        }) : (i32, i32, i32) -> ()
// CHECK-NEXT:        "sw.yield"(%18, %17) : (f32, f32) -> ()
// CHECK-NEXT:      }) : (i1) -> (f32, f32)
// CHECK-NEXT:      "sw.yield"(%19#0, %19#1) : (f32, f32) -> ()
// CHECK-NEXT:    }) : (i32, i32, i32, f32, f32) -> (f32, f32)
// CHECK-NEXT:    %24 = "sw.maximum"(%15#0, %15#1) : (f32, f32) -> f32
// CHECK-NEXT:    "sw.store"(%p, %24) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
  func.func @loops(%p: !sw.ptr<f32>, %n: i32, %c: i1) {
    %lb = "sw.constant"() {value = 0 : i32} : () -> i32
    %one = "sw.constant"() {value = 1 : i32} : () -> i32
    %init = "sw.constant"() {value = 1.5 : f32} : () -> f32
    %acc:2 = "sw.for"(%lb, %n, %one, %init, %init) ({
    ^bb0(%i: i32, %a: f32, %b: f32):
      %sel:2 = "sw.if"(%c) ({
        %fi = "sw.cast"(%i) : (i32) -> f32
        %sum = "sw.add"(%a, %fi) : (f32, f32) -> f32
        "sw.yield"(%sum, %b) : (f32, f32) -> ()
      }, {
        "sw.for"(%lb, %i, %one) ({
        ^bb0(%j: i32):
          %q = "sw.addptr"(%p, %j) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
          "sw.store"(%q, %b) : (!sw.ptr<f32>, f32) -> ()
          "sw.yield"() : () -> ()
        }) : (i32, i32, i32) -> ()
        "sw.yield"(%b, %a) : (f32, f32) -> ()
      }) : (i1) -> (f32, f32)
      "sw.yield"(%sel#0, %sel#1) : (f32, f32) -> ()
    }) : (i32, i32, i32, f32, f32) -> (f32, f32)
    %m = "sw.maximum"(%acc#0, %acc#1) : (f32, f32) -> f32
    "sw.store"(%p, %m) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }

// Every element-wise op, the grid queries and a reduction.
// CHECK-LABEL: func.func @every_op(
// CHECK:    "sw.num_programs"() {axis = 2 : i32} : () -> i32
// CHECK:    "sw.sub"
// CHECK:    "sw.floordiv"
// CHECK:    "sw.mod"
// CHECK:    "sw.minimum"
// CHECK:    "sw.and"
// CHECK:    "sw.or"
// CHECK:    "sw.xor"
// CHECK:    "sw.shl"
// CHECK:    "sw.shr"
// CHECK:    "sw.select"
// CHECK:    "sw.not"
// CHECK:    "sw.neg"
// CHECK:    "sw.abs"
// CHECK:    "sw.div"
// CHECK:    "sw.exp"
// CHECK:    "sw.exp2"
// CHECK:    "sw.log"
// CHECK:    "sw.log2"
// CHECK:    "sw.sqrt"
// CHECK:    "sw.rsqrt"
// CHECK:    "sw.floor"
// CHECK:    "sw.ceil"
// CHECK:    "sw.sin"
// CHECK:    "sw.cos"
// CHECK:    "sw.sigmoid"
// CHECK:    "sw.reduce"(%{{[0-9]+}}) {kind = "prod"} : (tensor<16xf64>) -> f64
// CHECK:    "sw.load"(%pf) : (!sw.ptr<f64>) -> f64
  func.func @every_op(%a: i64, %b: i64, %flag: i1, %x: f64, %pf: !sw.ptr<f64>) {
    %np = "sw.num_programs"() {axis = 2 : i32} : () -> i32
    %0 = "sw.sub"(%a, %b) : (i64, i64) -> i64
    %1 = "sw.floordiv"(%0, %b) : (i64, i64) -> i64
    %2 = "sw.mod"(%1, %b) : (i64, i64) -> i64
    %3 = "sw.minimum"(%2, %a) : (i64, i64) -> i64
    %4 = "sw.and"(%3, %a) : (i64, i64) -> i64
    %5 = "sw.or"(%4, %a) : (i64, i64) -> i64
    %6 = "sw.xor"(%5, %a) : (i64, i64) -> i64
    %7 = "sw.shl"(%6, %b) : (i64, i64) -> i64
    %8 = "sw.shr"(%7, %b) : (i64, i64) -> i64
    %9 = "sw.select"(%flag, %8, %a) : (i1, i64, i64) -> i64
    %10 = "sw.not"(%9) : (i64) -> i64
    %11 = "sw.neg"(%10) : (i64) -> i64
    %12 = "sw.abs"(%11) : (i64) -> i64
    %13 = "sw.div"(%x, %x) : (f64, f64) -> f64
    %14 = "sw.exp"(%13) : (f64) -> f64
    %15 = "sw.exp2"(%14) : (f64) -> f64
    %16 = "sw.log"(%15) : (f64) -> f64
    %17 = "sw.log2"(%16) : (f64) -> f64
    %18 = "sw.sqrt"(%17) : (f64) -> f64
    %19 = "sw.rsqrt"(%18) : (f64) -> f64
    %20 = "sw.floor"(%19) : (f64) -> f64
    %21 = "sw.ceil"(%20) : (f64) -> f64
    %22 = "sw.sin"(%21) : (f64) -> f64
    %23 = "sw.cos"(%22) : (f64) -> f64
    %24 = "sw.sigmoid"(%23) : (f64) -> f64
    %25 = "sw.splat"(%24) : (f64) -> tensor<16xf64>
    %26 = "sw.reduce"(%25) {kind = "prod"} : (tensor<16xf64>) -> f64
    %27 = "sw.load"(%pf) : (!sw.ptr<f64>) -> f64
    "func.return"() : () -> ()
  }

// Every type, and awkward float attributes, spelled canonically.
// CHECK-LABEL: func.func @types(%b: i1, %c: i8, %d: ui8, %e: i32, %f: i64, %g: f16, %h: bf16, %i: f32, %j: f64, %k: !sw.ptr<ui8>)
// CHECK-SAME: attributes {big = 1.0e+30 : f32, eps = 1.0e-05 : f32, half = 0.1 : f16, inf = 0x7F800000 : f32, nan = 0x7FF8000000000000 : f64, neg_zero = -0.0 : f64, tenth = 0.1 : f64, third = 0.33333334 : f32, ty = tensor<4x!sw.ptr<bf16>>, yes = true}
// CHECK-NEXT:    "sw.constant"() {value = -128 : i8} : () -> tensor<2xi8>
// CHECK-NEXT:    "sw.constant"() {value = 255 : ui8} : () -> ui8
// CHECK-NEXT:    "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
// CHECK-NEXT:    "sw.constant"() {value = 0xFC00 : f16} : () -> f16
// CHECK-NEXT:    "sw.constant"() {value = 3.14 : bf16} : () -> bf16
// CHECK-NEXT:    "sw.constant"() {value = false} : () -> i1
  func.func @types(%b: i1, %c: i8, %d: ui8, %e: i32, %f: i64, %g: f16, %h: bf16, %i: f32, %j: f64, %k: !sw.ptr<ui8>)
      attributes {yes = true, tenth = 0.1 : f64, third = 0.333333333 : f32, big = 1e30 : f32, eps = 0.00001 : f32,
                  inf = 0x7F800000 : f32, nan = 0x7FF8000000000000 : f64, neg_zero = -0.0 : f64, half = 0.1 : f16,
                  ty = tensor<4x!sw.ptr<bf16>>} {
    %0 = "sw.constant"() {value = -128 : i8} : () -> tensor<2xi8>
    %1 = "sw.constant"() {value = 255 : ui8} : () -> ui8
    %2 = "sw.constant"() {value = -9223372036854775808 : i64} : () -> i64
    %3 = "sw.constant"() {value = 0xFC00 : f16} : () -> f16
    %4 = "sw.constant"() {value = 3.14159 : bf16} : () -> bf16
    %5 = "sw.constant"() {value = false} : () -> i1
    "func.return"() : () -> ()
  }
}
// CHECK:  }
// CHECK-NEXT: }
