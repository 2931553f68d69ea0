// RUN: %swage-opt %s | FileCheck %s
// RUN: %swage-opt %s | %swage-opt | FileCheck %s
// SIMT IR (docs/simt.md) prints, parses back and verifies: vector<VxT>
// types of scalars and pointers, every simt.* op, elementwise sw.* ops on
// vectors, and the func.func attributes simt.num_threads / simt.smem_bytes
// (dotted bare identifiers, as MLIR allows).

// CHECK-LABEL: module {
// CHECK-NEXT:   func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32) attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 256 : i32} {
// CHECK-NEXT:     %0 = "simt.block_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:     %1 = "simt.grid_dim"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:     %2 = "simt.thread_id"() : () -> i32
// CHECK-NEXT:     %3 = "simt.tile_index"() {len = 1024 : i32, start = 0 : i32} : () -> vector<8xi32>
// CHECK-NEXT:     %4 = "sw.splat"(%0) : (i32) -> vector<8xi32>
// CHECK-NEXT:     %5 = "sw.add"(%4, %3) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>
// CHECK-NEXT:     %6 = "sw.splat"(%n) : (i32) -> vector<8xi32>
// CHECK-NEXT:     %7 = "sw.cmp"(%5, %6) {predicate = "lt"} : (vector<8xi32>, vector<8xi32>) -> vector<8xi1>
// CHECK-NEXT:     %8 = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>
// CHECK-NEXT:     %9 = "sw.addptr"(%8, %5) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>
// CHECK-NEXT:     %10 = "sw.constant"() {value = 0.0 : f32} : () -> vector<8xf32>
// CHECK-NEXT:     %11 = "simt.load"(%9, %7, %10) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:     %12 = "simt.load"(%9) {vec = 1 : i32} : (vector<8x!sw.ptr<f32>>) -> vector<8xf32>
// CHECK-NEXT:     %13 = "sw.cast"(%11) : (vector<8xf32>) -> vector<8xf64>
// CHECK-NEXT:     %14 = "sw.select"(%7, %11, %12) : (vector<8xi1>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:     %15 = "sw.exp"(%14) : (vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:     %16 = "simt.vreduce"(%15) {kind = "sum"} : (vector<8xf32>) -> f32
// CHECK-NEXT:     %17 = "simt.shfl_xor"(%16) {offset = 16 : i32} : (f32) -> f32
// CHECK-NEXT:     %18 = "sw.constant"() {value = 5 : i32} : () -> i32
// CHECK-NEXT:     %19 = "sw.shr"(%2, %18) : (i32, i32) -> i32
// CHECK-NEXT:     %20 = "sw.constant"() {value = true} : () -> i1
// CHECK-NEXT:     "simt.smem_store"(%19, %17, %20) {offset = 0 : i32} : (i32, f32, i1) -> ()
// CHECK-NEXT:     %21 = "simt.vreduce"(%13) {kind = "min"} : (vector<8xf64>) -> f64
// CHECK-NEXT:     "simt.smem_store"(%19, %21) {offset = 64 : i32} : (i32, f64) -> ()
// CHECK-NEXT:     "simt.barrier"() : () -> ()
// CHECK-NEXT:     %22 = "simt.smem_load"(%19) {offset = 248 : i32} : (i32) -> f64
// CHECK-NEXT:     "simt.store"(%9, %15, %7) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xf32>, vector<8xi1>) -> ()
// CHECK-NEXT:     "simt.store"(%9, %15) {vec = 2 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xf32>) -> ()
// CHECK-NEXT:     "func.return"() : () -> ()
// CHECK-NEXT:   }
module {
  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32) attributes {simt.smem_bytes = 256 : i32, simt.num_threads = 128 : i32} {
    %pid = "simt.block_id"() {axis = 0 : i32} : () -> i32
    %np = "simt.grid_dim"() {axis = 0 : i32} : () -> i32
    %tid = "simt.thread_id"() : () -> i32
    %idx = "simt.tile_index"() {start = 0 : i32, len = 1024 : i32} : () -> vector<8xi32>
    %base = "sw.splat"(%pid) : (i32) -> vector<8xi32>
    %offs = "sw.add"(%base, %idx) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>
    %lim = "sw.splat"(%n) : (i32) -> vector<8xi32>
    %mask = "sw.cmp"(%offs, %lim) {predicate = "lt"} : (vector<8xi32>, vector<8xi32>) -> vector<8xi1>
    %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>
    %xp = "sw.addptr"(%xs, %offs) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> vector<8xf32>
    %x = "simt.load"(%xp, %mask, %zero) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
    %y = "simt.load"(%xp) {vec = 1 : i32} : (vector<8x!sw.ptr<f32>>) -> vector<8xf32>
    %wide = "sw.cast"(%x) : (vector<8xf32>) -> vector<8xf64>
    %s = "sw.select"(%mask, %x, %y) : (vector<8xi1>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
    %e = "sw.exp"(%s) : (vector<8xf32>) -> vector<8xf32>
    %p = "simt.vreduce"(%e) {kind = "sum"} : (vector<8xf32>) -> f32
    %q = "simt.shfl_xor"(%p) {offset = 16 : i32} : (f32) -> f32
    %five = "sw.constant"() {value = 5 : i32} : () -> i32
    %warp = "sw.shr"(%tid, %five) : (i32, i32) -> i32
    %t = "sw.constant"() {value = true} : () -> i1
    "simt.smem_store"(%warp, %q, %t) {offset = 0 : i32} : (i32, f32, i1) -> ()
    %wr = "simt.vreduce"(%wide) {kind = "min"} : (vector<8xf64>) -> f64
    "simt.smem_store"(%warp, %wr) {offset = 64 : i32} : (i32, f64) -> ()
    "simt.barrier"() : () -> ()
    %r = "simt.smem_load"(%warp) {offset = 248 : i32} : (i32) -> f64
    "simt.store"(%xp, %e, %mask) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xf32>, vector<8xi1>) -> ()
    "simt.store"(%xp, %e) {vec = 2 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xf32>) -> ()
    "func.return"() : () -> ()
  }

// Control flow on uniform scalars carries vectors; replication (a tile of
// 16 elements over 32 threads: V = 1) and a function without shared memory.
// CHECK-NEXT:   func.func @loop(%p: !sw.ptr<i64>, %n: i32) attributes {simt.num_threads = 32 : i32} {
// CHECK-NEXT:     %23 = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT:     %24 = "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT:     %25 = "sw.constant"() {value = 0 : i64} : () -> vector<1xi64>
// CHECK-NEXT:     %26 = "sw.for"(%23, %n, %24, %25) ({
// CHECK-NEXT:     ^bb0(%27: i32, %28: vector<1xi64>):
// CHECK-NEXT:       %29 = "simt.tile_index"() {len = 16 : i32, start = 0 : i32} : () -> vector<1xi32>
// CHECK-NEXT:       %30 = "sw.cast"(%29) : (vector<1xi32>) -> vector<1xi64>
// CHECK-NEXT:       %31 = "sw.add"(%28, %30) : (vector<1xi64>, vector<1xi64>) -> vector<1xi64>
// CHECK-NEXT:       "sw.yield"(%31) : (vector<1xi64>) -> ()
// CHECK-NEXT:     }) : (i32, i32, i32, vector<1xi64>) -> vector<1xi64>
// CHECK-NEXT:     %32 = "simt.vreduce"(%26) {kind = "max"} : (vector<1xi64>) -> i64
// CHECK-NEXT:     %33 = "simt.shfl_xor"(%32) {offset = 1 : i32} : (i64) -> i64
// CHECK-NEXT:     %34 = "sw.splat"(%p) : (!sw.ptr<i64>) -> vector<1x!sw.ptr<i64>>
// CHECK-NEXT:     %35 = "sw.splat"(%33) : (i64) -> vector<1xi64>
// CHECK-NEXT:     "simt.store"(%34, %35) {vec = 1 : i32} : (vector<1x!sw.ptr<i64>>, vector<1xi64>) -> ()
// CHECK-NEXT:     "func.return"() : () -> ()
// CHECK-NEXT:   }
// CHECK-NEXT: }
  func.func @loop(%p: !sw.ptr<i64>, %n: i32) attributes {simt.num_threads = 32 : i32} {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %init = "sw.constant"() {value = 0 : i64} : () -> vector<1xi64>
    %acc = "sw.for"(%c0, %n, %c1, %init) ({
    ^bb0(%i: i32, %a: vector<1xi64>):
      %ix = "simt.tile_index"() {len = 16 : i32, start = 0 : i32} : () -> vector<1xi32>
      %w = "sw.cast"(%ix) : (vector<1xi32>) -> vector<1xi64>
      %s = "sw.add"(%a, %w) : (vector<1xi64>, vector<1xi64>) -> vector<1xi64>
      "sw.yield"(%s) : (vector<1xi64>) -> ()
    }) : (i32, i32, i32, vector<1xi64>) -> vector<1xi64>
    %m = "simt.vreduce"(%acc) {kind = "max"} : (vector<1xi64>) -> i64
    %m2 = "simt.shfl_xor"(%m) {offset = 1 : i32} : (i64) -> i64
    %ps = "sw.splat"(%p) : (!sw.ptr<i64>) -> vector<1x!sw.ptr<i64>>
    %vs = "sw.splat"(%m2) : (i64) -> vector<1xi64>
    "simt.store"(%ps, %vs) {vec = 1 : i32} : (vector<1x!sw.ptr<i64>>, vector<1xi64>) -> ()
    "func.return"() : () -> ()
  }
}
