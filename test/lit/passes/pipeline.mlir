// RUN: %swage-opt %s --passes=fold,cse,fold,dce | FileCheck %s
// RUN: not %swage-opt %s --passes=fold,nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The default pipeline (fold, cse, fold, dce; then stages, which leaves grid
// programs alone) on a vector add written the
// way a naive irgen writes it: every access recomputes its offsets and mask,
// and the block start is computed from constants. All loads and the store
// stay; the recomputations merge; the constant arithmetic folds away.

// UNKNOWN: unknown pass 'nope' (known: fold, dce, cse, stages, lower-simt, lower-segments, lower-segments-subwarp, lower-segments-warp, lower-segments-cta, lower-segments-split, lower-segments-persistent, plan-link)

// CHECK-LABEL: func.func @add_kernel
// CHECK-NEXT: %[[PID:[0-9]+]] = "sw.program_id"() {axis = 0 : i32}
// CHECK-NEXT: %[[BLOCK:[0-9]+]] = "sw.constant"() {value = 128 : i32} : () -> i32
// CHECK-NEXT: %[[START:[0-9]+]] = "sw.mul"(%[[PID]], %[[BLOCK]])
// CHECK-NEXT: %[[AR:[0-9]+]] = "sw.arange"()
// CHECK-NEXT: %[[SS:[0-9]+]] = "sw.splat"(%[[START]])
// CHECK-NEXT: %[[OFF:[0-9]+]] = "sw.add"(%[[SS]], %[[AR]])
// CHECK-NEXT: %[[NS:[0-9]+]] = "sw.splat"(%n)
// CHECK-NEXT: %[[MASK:[0-9]+]] = "sw.cmp"(%[[OFF]], %[[NS]]) {predicate = "lt"}
// CHECK-NEXT: %[[XS:[0-9]+]] = "sw.splat"(%x_ptr)
// CHECK-NEXT: %[[XP:[0-9]+]] = "sw.addptr"(%[[XS]], %[[OFF]])
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
// CHECK-NEXT: %[[X:[0-9]+]] = "sw.load"(%[[XP]], %[[MASK]], %[[ZERO]])
// CHECK-NEXT: %[[YS:[0-9]+]] = "sw.splat"(%y_ptr)
// CHECK-NEXT: %[[YP:[0-9]+]] = "sw.addptr"(%[[YS]], %[[OFF]])
// CHECK-NEXT: %[[Y:[0-9]+]] = "sw.load"(%[[YP]], %[[MASK]], %[[ZERO]])
// CHECK-NEXT: %[[SUM:[0-9]+]] = "sw.add"(%[[X]], %[[Y]])
// CHECK-NEXT: %[[OS:[0-9]+]] = "sw.splat"(%output_ptr)
// CHECK-NEXT: %[[OP:[0-9]+]] = "sw.addptr"(%[[OS]], %[[OFF]])
// CHECK-NEXT: "sw.store"(%[[OP]], %[[SUM]], %[[MASK]])
// CHECK-NEXT: "func.return"
module {
  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) {
    %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %c64 = "sw.constant"() {value = 64 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 2 : i32} : () -> i32
    %block = "sw.mul"(%c64, %c2) : (i32, i32) -> i32
    %start = "sw.mul"(%pid, %block) : (i32, i32) -> i32
    %ar = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %ss = "sw.splat"(%start) : (i32) -> tensor<128xi32>
    %off = "sw.add"(%ss, %ar) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %ns = "sw.splat"(%n) : (i32) -> tensor<128xi32>
    %mask = "sw.cmp"(%off, %ns) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %xp = "sw.addptr"(%xs, %off) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %z1 = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
    %x = "sw.load"(%xp, %mask, %z1) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    %pid2 = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %start2 = "sw.mul"(%pid2, %block) : (i32, i32) -> i32
    %ar2 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %ss2 = "sw.splat"(%start2) : (i32) -> tensor<128xi32>
    %off2 = "sw.add"(%ar2, %ss2) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    %ns2 = "sw.splat"(%n) : (i32) -> tensor<128xi32>
    %mask2 = "sw.cmp"(%off2, %ns2) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
    %ys = "sw.splat"(%y_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %yp = "sw.addptr"(%ys, %off2) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %z2 = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
    %y = "sw.load"(%yp, %mask2, %z2) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
    %sum = "sw.add"(%x, %y) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %zero_f = "sw.constant"() {value = -0.0 : f32} : () -> tensor<128xf32>
    %sum2 = "sw.add"(%sum, %zero_f) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %os = "sw.splat"(%output_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %off) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    %dead = "sw.sub"(%off, %off2) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
    "sw.store"(%op, %sum2, %mask) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
    "func.return"() : () -> ()
  }
}
