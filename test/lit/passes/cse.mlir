// RUN: %swage-opt %s --split-input-file --passes=cse | FileCheck %s
// Common-subexpression elimination of pure ops: same kind, operands (either
// order for commutative ops), attributes and result types. Equal constants
// merge. Loads and stores never merge.

// CHECK-LABEL: func.func @basic
// CHECK-NEXT: %[[A:[0-9]+]] = "sw.add"(%x, %y)
// CHECK-NEXT: %[[S1:[0-9]+]] = "sw.sub"(%x, %y)
// CHECK-NEXT: %[[S2:[0-9]+]] = "sw.sub"(%y, %x)
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%o, %[[S1]])
// CHECK-NEXT: "sw.store"(%o, %[[S2]])
module {
  func.func @basic(%o: !sw.ptr<i32>, %x: i32, %y: i32) {
    %a1 = "sw.add"(%x, %y) : (i32, i32) -> i32
    %a2 = "sw.add"(%x, %y) : (i32, i32) -> i32
    %a3 = "sw.add"(%y, %x) : (i32, i32) -> i32
    %s1 = "sw.sub"(%x, %y) : (i32, i32) -> i32
    %s2 = "sw.sub"(%y, %x) : (i32, i32) -> i32
    "sw.store"(%o, %a1) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %a2) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %a3) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %s1) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %s2) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Different attributes or result types keep ops apart.
// CHECK-LABEL: func.func @attributes_and_types
// CHECK-NEXT: %[[LT:[0-9]+]] = "sw.cmp"(%x, %y) {predicate = "lt"}
// CHECK-NEXT: %[[LE:[0-9]+]] = "sw.cmp"(%x, %y) {predicate = "le"}
// CHECK-NEXT: %[[P0:[0-9]+]] = "sw.program_id"() {axis = 0 : i32}
// CHECK-NEXT: %[[P1:[0-9]+]] = "sw.program_id"() {axis = 1 : i32}
// CHECK-NEXT: %[[C1:[0-9]+]] = "sw.cast"(%x) : (i32) -> i64
// CHECK-NEXT: %[[C2:[0-9]+]] = "sw.cast"(%x) : (i32) -> f32
// CHECK-NEXT: "sw.store"(%ob, %[[LT]])
// CHECK-NEXT: "sw.store"(%ob, %[[LE]])
// CHECK-NEXT: "sw.store"(%ob, %[[LT]])
// CHECK-NEXT: "sw.store"(%o, %[[P0]])
// CHECK-NEXT: "sw.store"(%o, %[[P1]])
// CHECK-NEXT: "sw.store"(%o, %[[P0]])
module {
  func.func @attributes_and_types(%o: !sw.ptr<i32>, %ob: !sw.ptr<i1>, %x: i32, %y: i32) {
    %lt = "sw.cmp"(%x, %y) {predicate = "lt"} : (i32, i32) -> i1
    %le = "sw.cmp"(%x, %y) {predicate = "le"} : (i32, i32) -> i1
    %lt2 = "sw.cmp"(%x, %y) {predicate = "lt"} : (i32, i32) -> i1
    %p0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %p1 = "sw.program_id"() {axis = 1 : i32} : () -> i32
    %p0b = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %c1 = "sw.cast"(%x) : (i32) -> i64
    %c2 = "sw.cast"(%x) : (i32) -> f32
    "sw.store"(%ob, %lt) : (!sw.ptr<i1>, i1) -> ()
    "sw.store"(%ob, %le) : (!sw.ptr<i1>, i1) -> ()
    "sw.store"(%ob, %lt2) : (!sw.ptr<i1>, i1) -> ()
    "sw.store"(%o, %p0) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %p1) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %p0b) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Constants merge when type and value are equal; 0.0 and -0.0 differ, a
// scalar and a splat tile differ.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %[[A:[0-9]+]] = "sw.constant"() {value = 42 : i32} : () -> i32
// CHECK-NEXT: %[[B:[0-9]+]] = "sw.constant"() {value = 42 : i64} : () -> i64
// CHECK-NEXT: %[[Z:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> f32
// CHECK-NEXT: %[[NZ:[0-9]+]] = "sw.constant"() {value = -0.0 : f32} : () -> f32
// CHECK-NEXT: %[[T:[0-9]+]] = "sw.constant"() {value = 42 : i32} : () -> tensor<4xi32>
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%ol, %[[B]])
// CHECK-NEXT: "sw.store"(%of, %[[Z]])
// CHECK-NEXT: "sw.store"(%of, %[[NZ]])
// CHECK-NEXT: "sw.store"(%of, %[[Z]])
// CHECK-NEXT: %{{[0-9]+}} = "sw.reduce"(%[[T]])
module {
  func.func @constants(%o: !sw.ptr<i32>, %ol: !sw.ptr<i64>, %of: !sw.ptr<f32>) {
    %a = "sw.constant"() {value = 42 : i32} : () -> i32
    %a2 = "sw.constant"() {value = 42 : i32} : () -> i32
    %b = "sw.constant"() {value = 42 : i64} : () -> i64
    %z = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %nz = "sw.constant"() {value = -0.0 : f32} : () -> f32
    %z2 = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %t = "sw.constant"() {value = 42 : i32} : () -> tensor<4xi32>
    "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%o, %a2) : (!sw.ptr<i32>, i32) -> ()
    "sw.store"(%ol, %b) : (!sw.ptr<i64>, i64) -> ()
    "sw.store"(%of, %z) : (!sw.ptr<f32>, f32) -> ()
    "sw.store"(%of, %nz) : (!sw.ptr<f32>, f32) -> ()
    "sw.store"(%of, %z2) : (!sw.ptr<f32>, f32) -> ()
    %r = "sw.reduce"(%t) {kind = "sum"} : (tensor<4xi32>) -> i32
    "sw.store"(%o, %r) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Loads are not pure: two loads of one pointer stay two loads.
// CHECK-LABEL: func.func @loads
// CHECK-COUNT-2: "sw.load"(%p)
module {
  func.func @loads(%p: !sw.ptr<f32>, %o: !sw.ptr<f32>) {
    %a = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    "sw.store"(%o, %a) : (!sw.ptr<f32>, f32) -> ()
    %b = "sw.load"(%p) : (!sw.ptr<f32>) -> f32
    "sw.store"(%o, %b) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Ops before an sw.if are reused inside both branches; ops of one branch
// are not visible in the other, nor after the if.
// CHECK-LABEL: func.func @regions
// CHECK-NEXT: %[[M:[0-9]+]] = "sw.mul"(%x, %x)
// CHECK-NEXT: %[[C:[0-9]+]] = "sw.constant"() {value = 7 : i32}
// CHECK-NEXT: "sw.if"(%c) ({
// CHECK-NEXT: %[[A1:[0-9]+]] = "sw.add"(%x, %[[C]])
// CHECK-NEXT: "sw.store"(%o, %[[M]])
// CHECK-NEXT: "sw.store"(%o, %[[A1]])
// CHECK-NEXT: "sw.store"(%o, %[[A1]])
// CHECK-NEXT: "sw.yield"
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[A2:[0-9]+]] = "sw.add"(%x, %[[C]])
// CHECK-NEXT: "sw.store"(%o, %[[M]])
// CHECK-NEXT: "sw.store"(%o, %[[A2]])
// CHECK-NEXT: "sw.yield"
// CHECK-NEXT: })
// CHECK-NEXT: %[[A3:[0-9]+]] = "sw.add"(%x, %[[C]])
// CHECK-NEXT: "sw.store"(%o, %[[A3]])
module {
  func.func @regions(%o: !sw.ptr<i32>, %x: i32, %c: i1) {
    %m = "sw.mul"(%x, %x) : (i32, i32) -> i32
    %c7 = "sw.constant"() {value = 7 : i32} : () -> i32
    "sw.if"(%c) ({
      %a = "sw.add"(%x, %c7) : (i32, i32) -> i32
      %m2 = "sw.mul"(%x, %x) : (i32, i32) -> i32
      "sw.store"(%o, %m2) : (!sw.ptr<i32>, i32) -> ()
      "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
      %c7b = "sw.constant"() {value = 7 : i32} : () -> i32
      %a2 = "sw.add"(%x, %c7b) : (i32, i32) -> i32
      "sw.store"(%o, %a2) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }, {
      %b = "sw.add"(%x, %c7) : (i32, i32) -> i32
      %m3 = "sw.mul"(%x, %x) : (i32, i32) -> i32
      "sw.store"(%o, %m3) : (!sw.ptr<i32>, i32) -> ()
      "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }) : (i1) -> ()
    %after = "sw.add"(%x, %c7) : (i32, i32) -> i32
    "sw.store"(%o, %after) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Loop bodies reuse values from before the loop; ops that use the
// induction variable stay in the loop.
// CHECK-LABEL: func.func @loop_body
// CHECK: %[[M:[0-9]+]] = "sw.mul"(%x, %x)
// CHECK: "sw.for"
// CHECK-NEXT: ^bb0(%[[IV:[0-9]+]]: i32):
// CHECK-NEXT: %[[A:[0-9]+]] = "sw.add"(%[[IV]], %[[M]])
// CHECK-NEXT: "sw.store"(%o, %[[A]])
// CHECK-NEXT: "sw.store"(%o, %[[A]])
module {
  func.func @loop_body(%o: !sw.ptr<i32>, %x: i32, %n: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %m = "sw.mul"(%x, %x) : (i32, i32) -> i32
    "sw.for"(%c0, %n, %c1) ({
    ^bb0(%iv: i32):
      %m2 = "sw.mul"(%x, %x) : (i32, i32) -> i32
      %a = "sw.add"(%iv, %m2) : (i32, i32) -> i32
      "sw.store"(%o, %a) : (!sw.ptr<i32>, i32) -> ()
      %b = "sw.add"(%m, %iv) : (i32, i32) -> i32
      "sw.store"(%o, %b) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }) : (i32, i32, i32) -> ()
    "func.return"() : () -> ()
  }
}
