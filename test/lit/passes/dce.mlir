// RUN: %swage-opt %s --split-input-file --passes=dce | FileCheck %s
// Dead code elimination: unused pure ops go, chains of them too; stores
// stay. Unused loads are removed as well (like Triton): a kernel may not
// rely on a load faulting.

// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT: %[[C:[0-9]+]] = "sw.constant"() {value = 2 : i32}
// CHECK-NEXT: %[[S:[0-9]+]] = "sw.sub"(%x, %[[C]])
// CHECK-NEXT: "sw.store"(%o, %[[S]])
// CHECK-NEXT: "func.return"
module {
  func.func @dead_chain(%o: !sw.ptr<i32>, %x: i32) {
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %a = "sw.add"(%x, %c1) : (i32, i32) -> i32
    %b = "sw.mul"(%a, %x) : (i32, i32) -> i32
    %n = "sw.neg"(%b) : (i32) -> i32
    %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %l = "sw.load"(%o) : (!sw.ptr<i32>) -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %s = "sw.sub"(%x, %c2) : (i32, i32) -> i32
    "sw.store"(%o, %s) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// An sw.if without results whose branches hold only their yields goes;
// so does one whose results are unused and whose branches are pure.
// CHECK-LABEL: func.func @dead_if
// CHECK-NOT: "sw.if"
// CHECK-NOT: "sw.cmp"
// CHECK: "func.return"
module {
  func.func @dead_if(%x: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c = "sw.cmp"(%x, %c0) {predicate = "lt"} : (i32, i32) -> i1
    "sw.if"(%c) ({
      "sw.yield"() : () -> ()
    }, {
      "sw.yield"() : () -> ()
    }) : (i1) -> ()
    %r = "sw.if"(%c) ({
      %m = "sw.mul"(%x, %x) : (i32, i32) -> i32
      "sw.yield"(%m) : (i32) -> ()
    }, {
      "sw.yield"(%x) : (i32) -> ()
    }) : (i1) -> i32
    "func.return"() : () -> ()
  }
}

// -----

// An sw.if that stores stays, and keeps what it uses.
// CHECK-LABEL: func.func @live_if
// CHECK: "sw.cmp"
// CHECK: "sw.if"
// CHECK: "sw.store"(%o, %x)
module {
  func.func @live_if(%o: !sw.ptr<i32>, %x: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c = "sw.cmp"(%x, %c0) {predicate = "lt"} : (i32, i32) -> i1
    "sw.if"(%c) ({
      "sw.store"(%o, %x) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }, {
      "sw.yield"() : () -> ()
    }) : (i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// A loop with no used result and no store goes (counted loops always end);
// a loop that stores stays, and dead ops inside it go.
// CHECK-LABEL: func.func @loops
// CHECK-COUNT-1: "sw.for"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "sw.store"
// CHECK-NEXT: "sw.yield"
// CHECK-NOT: "sw.for"
// CHECK: "func.return"
module {
  func.func @loops(%o: !sw.ptr<i32>, %n: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %r = "sw.for"(%c0, %n, %c1, %c0) ({
    ^bb0(%iv: i32, %acc: i32):
      %l = "sw.load"(%o) : (!sw.ptr<i32>) -> i32
      %s = "sw.add"(%acc, %l) : (i32, i32) -> i32
      "sw.yield"(%s) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "sw.for"(%c0, %n, %c1) ({
    ^bb0(%iv: i32):
      %dead = "sw.mul"(%iv, %iv) : (i32, i32) -> i32
      "sw.store"(%o, %iv) : (!sw.ptr<i32>, i32) -> ()
      "sw.yield"() : () -> ()
    }) : (i32, i32, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Masked vector add: nothing is dead, nothing changes.
// CHECK-LABEL: func.func @nothing_dead
// CHECK-COUNT-2: "sw.load"
// CHECK: "sw.store"
module {
  func.func @nothing_dead(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %1 = "sw.constant"() {value = 128 : i32} : () -> i32
    %2 = "sw.mul"(%0, %1) : (i32, i32) -> i32
    %3 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %4 = "sw.splat"(%2) : (i32) -> tensor<128xi32>
    %5 = "sw.add"(%4, %3) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %6 = "sw.splat"(%n) : (i32) -> tensor<128xi32>
    %7 = "sw.cmp"(%5, %6) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %8 = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %9 = "sw.addptr"(%8, %5) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %z = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
    %10 = "sw.load"(%9, %7, %z) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    %11 = "sw.splat"(%y_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %12 = "sw.addptr"(%11, %5) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %13 = "sw.load"(%12, %7, %z) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    %14 = "sw.add"(%10, %13) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %15 = "sw.splat"(%output_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %16 = "sw.addptr"(%15, %5) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    "sw.store"(%16, %14, %7) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
    "func.return"() : () -> ()
  }
}
