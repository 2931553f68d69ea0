// RUN: %swage-opt %s --split-input-file --passes=fold | FileCheck %s
// Algebraic simplification: only identities that hold for every input.
// For floats that rules out x + 0.0 (-0.0 + 0.0 is 0.0), x * 0.0
// (inf * 0 is NaN), x - x and x == x (NaN).

// CHECK-LABEL: func.func @int_identities
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "func.return"
module {
  func.func @int_identities(%o: !sw.ptr<i32>, %x: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %a = "sw.add"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.add"(%c0, %x) : (i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.sub"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.mul"(%c1, %x) : (i32, i32) -> i32
    "sw.store"(%o, %d) : (!sw.ptr<i32>, i32) -> ()
    %e = "sw.floordiv"(%x, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %e) : (!sw.ptr<i32>, i32) -> ()
    %f = "sw.and"(%x, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %f) : (!sw.ptr<i32>, i32) -> ()
    %g = "sw.and"(%x, %x) : (i32, i32) -> i32
    "sw.store"(%o, %g) : (!sw.ptr<i32>, i32) -> ()
    %h = "sw.or"(%c0, %x) : (i32, i32) -> i32
    "sw.store"(%o, %h) : (!sw.ptr<i32>, i32) -> ()
    %i = "sw.xor"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %i) : (!sw.ptr<i32>, i32) -> ()
    %j = "sw.shl"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %j) : (!sw.ptr<i32>, i32) -> ()
    %k = "sw.shr"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %k) : (!sw.ptr<i32>, i32) -> ()
    %l = "sw.maximum"(%x, %x) : (i32, i32) -> i32
    "sw.store"(%o, %l) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Integer ops that give a constant whatever x is.
// CHECK-LABEL: func.func @int_to_constant
// CHECK: "sw.store"(%o, %[[ZERO:[0-9]+]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK: %[[R:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: "sw.store"(%o, %[[R]])
// CHECK-NEXT: "sw.store"(%o, %[[ZERO]])
// CHECK-NEXT: "sw.store"(%o, %[[ONES:[0-9]+]])
// CHECK-NOT: "sw.mul"
// CHECK-NOT: "sw.sub"
// CHECK-NOT: "sw.xor"
// CHECK-NOT: "sw.mod"
module {
  func.func @int_to_constant(%o: !sw.ptr<i32>, %x: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %m1 = "sw.constant"() {value = -1 : i32} : () -> i32
    %a = "sw.mul"(%x, %c0) : (i32, i32) -> i32
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.sub"(%x, %x) : (i32, i32) -> i32
    "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
    %c = "sw.xor"(%x, %x) : (i32, i32) -> i32
    "sw.store"(%o, %c) : (!sw.ptr<i32>, i32) -> ()
    %d = "sw.mod"(%x, %c1) : (i32, i32) -> i32
    "sw.store"(%o, %d) : (!sw.ptr<i32>, i32) -> ()
    %e = "sw.and"(%c0, %x) : (i32, i32) -> i32
    "sw.store"(%o, %e) : (!sw.ptr<i32>, i32) -> ()
    %f = "sw.or"(%x, %m1) : (i32, i32) -> i32
    "sw.store"(%o, %f) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Comparing an integer with itself is decided; a float is not (NaN).
// CHECK-LABEL: func.func @cmp_same
// CHECK: {value = true} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: {value = true} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: {value = true} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: {value = false} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: {value = false} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: {value = false} : () -> i1
// CHECK-NEXT: "sw.store"
// CHECK: %[[F:[0-9]+]] = "sw.cmp"(%y, %y) {predicate = "eq"}
// CHECK-NEXT: "sw.store"(%o, %[[F]])
module {
  func.func @cmp_same(%o: !sw.ptr<i1>, %x: i32, %y: f32) {
    %eq = "sw.cmp"(%x, %x) {predicate = "eq"} : (i32, i32) -> i1
    "sw.store"(%o, %eq) : (!sw.ptr<i1>, i1) -> ()
    %le = "sw.cmp"(%x, %x) {predicate = "le"} : (i32, i32) -> i1
    "sw.store"(%o, %le) : (!sw.ptr<i1>, i1) -> ()
    %ge = "sw.cmp"(%x, %x) {predicate = "ge"} : (i32, i32) -> i1
    "sw.store"(%o, %ge) : (!sw.ptr<i1>, i1) -> ()
    %ne = "sw.cmp"(%x, %x) {predicate = "ne"} : (i32, i32) -> i1
    "sw.store"(%o, %ne) : (!sw.ptr<i1>, i1) -> ()
    %lt = "sw.cmp"(%x, %x) {predicate = "lt"} : (i32, i32) -> i1
    "sw.store"(%o, %lt) : (!sw.ptr<i1>, i1) -> ()
    %gt = "sw.cmp"(%x, %x) {predicate = "gt"} : (i32, i32) -> i1
    "sw.store"(%o, %gt) : (!sw.ptr<i1>, i1) -> ()
    %feq = "sw.cmp"(%y, %y) {predicate = "eq"} : (f32, f32) -> i1
    "sw.store"(%o, %feq) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Float identities that hold for -0.0, inf and NaN: x + -0.0, x - 0.0,
// x * 1.0, x / 1.0, -(-x), cast to the same type.
// CHECK-LABEL: func.func @float_identities
// CHECK: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: %{{[0-9]+}} = "sw.neg"(%x)
// CHECK-NEXT: "sw.store"(%o, %x)
// CHECK-NEXT: "sw.store"(%o, %x)
module {
  func.func @float_identities(%o: !sw.ptr<f32>, %x: f32) {
    %nz = "sw.constant"() {value = -0.0 : f32} : () -> f32
    %z = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %one = "sw.constant"() {value = 1.0 : f32} : () -> f32
    %a = "sw.add"(%x, %nz) : (f32, f32) -> f32
    "sw.store"(%o, %a) : (!sw.ptr<f32>, f32) -> ()
    %b = "sw.add"(%nz, %x) : (f32, f32) -> f32
    "sw.store"(%o, %b) : (!sw.ptr<f32>, f32) -> ()
    %c = "sw.sub"(%x, %z) : (f32, f32) -> f32
    "sw.store"(%o, %c) : (!sw.ptr<f32>, f32) -> ()
    %d = "sw.mul"(%x, %one) : (f32, f32) -> f32
    "sw.store"(%o, %d) : (!sw.ptr<f32>, f32) -> ()
    %e = "sw.div"(%x, %one) : (f32, f32) -> f32
    "sw.store"(%o, %e) : (!sw.ptr<f32>, f32) -> ()
    %n1 = "sw.neg"(%x) : (f32) -> f32
    %n2 = "sw.neg"(%n1) : (f32) -> f32
    "sw.store"(%o, %n2) : (!sw.ptr<f32>, f32) -> ()
    %g = "sw.cast"(%x) : (f32) -> f32
    "sw.store"(%o, %g) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Float rewrites that would be wrong for some input are not made.
// CHECK-LABEL: func.func @float_kept
// CHECK: "sw.add"(%x, %[[Z:[0-9]+]])
// CHECK: "sw.mul"(%x, %[[Z]])
// CHECK: "sw.sub"(%x, %x)
// CHECK: "sw.minimum"(%x, %x)
// CHECK: "sw.sub"(%x, %[[NZ:[0-9]+]])
module {
  func.func @float_kept(%o: !sw.ptr<f32>, %x: f32) {
    %z = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %nz = "sw.constant"() {value = -0.0 : f32} : () -> f32
    %a = "sw.add"(%x, %z) : (f32, f32) -> f32
    "sw.store"(%o, %a) : (!sw.ptr<f32>, f32) -> ()
    %b = "sw.mul"(%x, %z) : (f32, f32) -> f32
    "sw.store"(%o, %b) : (!sw.ptr<f32>, f32) -> ()
    %c = "sw.sub"(%x, %x) : (f32, f32) -> f32
    "sw.store"(%o, %c) : (!sw.ptr<f32>, f32) -> ()
    %d = "sw.minimum"(%x, %x) : (f32, f32) -> f32
    "sw.store"(%o, %d) : (!sw.ptr<f32>, f32) -> ()
    %e = "sw.sub"(%x, %nz) : (f32, f32) -> f32
    "sw.store"(%o, %e) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// select of one value twice, select(c, true, false), double not, i1 and/or
// with constants, a cast to a different type kept, addptr by 0.
// CHECK-LABEL: func.func @misc
// CHECK: "sw.store"(%oi, %x)
// CHECK-NEXT: "sw.store"(%ob, %c)
// CHECK-NEXT: %{{[0-9]+}} = "sw.not"(%c)
// CHECK-NEXT: "sw.store"(%ob, %c)
// CHECK-NEXT: "sw.store"(%ob, %c)
// CHECK-NEXT: "sw.store"(%ob, %c)
// CHECK-NEXT: "sw.store"(%ob, %[[T:[0-9]+]])
// CHECK-NEXT: %[[W:[0-9]+]] = "sw.cast"(%x) : (i32) -> i64
// CHECK-NEXT: "sw.store"(%ol, %[[W]])
// CHECK-NEXT: "sw.store"(%oi, %x)
module {
  func.func @misc(%oi: !sw.ptr<i32>, %ob: !sw.ptr<i1>, %ol: !sw.ptr<i64>, %x: i32, %c: i1) {
    %t = "sw.constant"() {value = true} : () -> i1
    %f = "sw.constant"() {value = false} : () -> i1
    %zero = "sw.constant"() {value = 0 : i32} : () -> i32
    %a = "sw.select"(%c, %x, %x) : (i1, i32, i32) -> i32
    "sw.store"(%oi, %a) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.select"(%c, %t, %f) : (i1, i1, i1) -> i1
    "sw.store"(%ob, %b) : (!sw.ptr<i1>, i1) -> ()
    %n1 = "sw.not"(%c) : (i1) -> i1
    %n2 = "sw.not"(%n1) : (i1) -> i1
    "sw.store"(%ob, %n2) : (!sw.ptr<i1>, i1) -> ()
    %d = "sw.and"(%c, %t) : (i1, i1) -> i1
    "sw.store"(%ob, %d) : (!sw.ptr<i1>, i1) -> ()
    %e = "sw.or"(%f, %c) : (i1, i1) -> i1
    "sw.store"(%ob, %e) : (!sw.ptr<i1>, i1) -> ()
    %g = "sw.or"(%c, %t) : (i1, i1) -> i1
    "sw.store"(%ob, %g) : (!sw.ptr<i1>, i1) -> ()
    %w = "sw.cast"(%x) : (i32) -> i64
    "sw.store"(%ol, %w) : (!sw.ptr<i64>, i64) -> ()
    %p = "sw.addptr"(%oi, %zero) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>
    "sw.store"(%p, %x) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Simplification works on tiles and keeps their types.
// CHECK-LABEL: func.func @tile_identities
// CHECK: %[[PS:[0-9]+]] = "sw.splat"(%o)
// CHECK-NEXT: %[[XS:[0-9]+]] = "sw.splat"(%x)
// CHECK: "sw.store"(%[[PS]], %[[XS]])
module {
  func.func @tile_identities(%o: !sw.ptr<f32>, %x: f32) {
    %ps = "sw.splat"(%o) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
    %xs = "sw.splat"(%x) : (f32) -> tensor<16xf32>
    %one = "sw.constant"() {value = 1.0 : f32} : () -> tensor<16xf32>
    %zero = "sw.constant"() {value = 0 : i32} : () -> tensor<16xi32>
    %m = "sw.mul"(%xs, %one) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %p = "sw.addptr"(%ps, %zero) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
    "sw.store"(%p, %m) : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>) -> ()
    "func.return"() : () -> ()
  }
}
