// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt > %t.simt
// RUN: %swage-opt %t.simt --split-input-file > %t.again
// RUN: diff %t.simt %t.again
// lower-simt on the vector add: the thread count follows the longest tile
// (T = clamp(next_pow2(maxN / 4), 32, 128)), tiles become vector<VxT> with
// V = max(1, N / T), and loads/stores through pointers that the contiguity
// analysis proves consecutive get vec = min(V, run, 16 bytes / element).

// BLOCK = 1024: 128 threads x 8 slots; f32 accesses are 4 wide (16 bytes).
// CHECK-LABEL: func.func @add_1024
// CHECK-SAME: attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 0 : i32}
// CHECK-NEXT: %[[PID:[0-9]+]] = "simt.block_id"() {axis = 0 : i32} : () -> i32
// CHECK:      %[[IDX:[0-9]+]] = "simt.tile_index"() {len = 1024 : i32, start = 0 : i32} : () -> vector<8xi32>
// CHECK:      %[[OFFS:[0-9]+]] = "sw.add"(%{{[0-9]+}}, %[[IDX]]) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>
// CHECK:      %[[MASK:[0-9]+]] = "sw.cmp"(%[[OFFS]], %{{[0-9]+}}) {predicate = "lt"} : (vector<8xi32>, vector<8xi32>) -> vector<8xi1>
// CHECK:      %[[XP:[0-9]+]] = "sw.addptr"(%{{[0-9]+}}, %[[OFFS]]) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> vector<8xf32>
// The mask offs < n of offsets ascending within each group of 4 slots is
// all set exactly when its last bit is: vec_mask = "last"; the offsets and
// pointers run over the whole tile, so one test decides a thread's groups:
// vec_all.
// CHECK-NEXT: %[[X:[0-9]+]] = "simt.load"(%[[XP]], %[[MASK]], %[[ZERO]]) {vec = 4 : i32, vec_all = true, vec_mask = "last"} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// CHECK:      %[[Y:[0-9]+]] = "simt.load"(%{{[0-9]+}}, %[[MASK]], %[[ZERO]]) {vec = 4 : i32, vec_all = true, vec_mask = "last"}
// CHECK:      %[[SUM:[0-9]+]] = "sw.add"(%[[X]], %[[Y]]) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT: "simt.store"(%{{[0-9]+}}, %[[SUM]], %[[MASK]]) {vec = 4 : i32, vec_all = true, vec_mask = "last"} : (vector<8x!sw.ptr<f32>>, vector<8xf32>, vector<8xi1>) -> ()
// CHECK-NEXT: "func.return"() : () -> ()
// Every thread owns its slots (1024 / 8 = 128 = T): no thread_id, no owner mask.
// CHECK-NOT: simt.thread_id
module {
  func.func @add_1024(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.program_id"() {axis = 0 : i32} : () -> i32
    %1 = "sw.constant"() {value = 1024 : i32} : () -> i32
    %2 = "sw.mul"(%0, %1) : (i32, i32) -> i32
    %3 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %4 = "sw.splat"(%2) : (i32) -> tensor<1024xi32>
    %5 = "sw.add"(%4, %3) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %6 = "sw.splat"(%n) : (i32) -> tensor<1024xi32>
    %7 = "sw.cmp"(%5, %6) {predicate = "lt"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %8 = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %9 = "sw.addptr"(%8, %5) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %10 = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
    %11 = "sw.load"(%9, %7, %10) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %12 = "sw.splat"(%y_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %13 = "sw.addptr"(%12, %5) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %14 = "sw.load"(%13, %7, %10) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %15 = "sw.splat"(%output_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %16 = "sw.addptr"(%15, %5) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %17 = "sw.add"(%11, %14) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    "sw.store"(%16, %17, %7) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// BLOCK = 128: one warp, 4 slots per thread; f16 accesses would allow 8
// but V = 4 caps them; the pointer is offset by a uniform scalar first.
// CHECK-LABEL: func.func @add_128
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK:      "simt.tile_index"() {len = 128 : i32, start = 0 : i32} : () -> vector<4xi32>
// CHECK:      "simt.load"(%{{[0-9]+}}) {vec = 4 : i32} : (vector<4x!sw.ptr<f16>>) -> vector<4xf16>
// CHECK:      "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}) {vec = 4 : i32} : (vector<4x!sw.ptr<f16>>, vector<4xf16>) -> ()
module {
  func.func @add_128(%x_ptr: !sw.ptr<f16>, %out: !sw.ptr<f16>, %base: i32) {
    %0 = "sw.addptr"(%x_ptr, %base) : (!sw.ptr<f16>, i32) -> !sw.ptr<f16>
    %1 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %2 = "sw.splat"(%0) : (!sw.ptr<f16>) -> tensor<128x!sw.ptr<f16>>
    %3 = "sw.addptr"(%2, %1) : (tensor<128x!sw.ptr<f16>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f16>>
    %4 = "sw.load"(%3) : (tensor<128x!sw.ptr<f16>>) -> tensor<128xf16>
    %5 = "sw.splat"(%out) : (!sw.ptr<f16>) -> tensor<128x!sw.ptr<f16>>
    %6 = "sw.addptr"(%5, %1) : (tensor<128x!sw.ptr<f16>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f16>>
    "sw.store"(%6, %4) : (tensor<128x!sw.ptr<f16>>, tensor<128xf16>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Contiguity: f16 over 8 slots is 4 wide (the layout chunk); f64 2 wide; a widening
// cast and a subtraction of a uniform tile keep the run; a select, a
// narrowing cast, a product and a subtraction from a uniform tile do not.
// CHECK-LABEL: func.func @contiguity
// CHECK-SAME: simt.num_threads = 128 : i32
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 4 : i32, vec_all = true} : (vector<8x!sw.ptr<f16>>) -> vector<8xf16>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 2 : i32, vec_all = true} : (vector<8x!sw.ptr<f64>>) -> vector<8xf64>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 2 : i32, vec_all = true} : (vector<8x!sw.ptr<f64>>) -> vector<8xf64>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 4 : i32, vec_all = true} : (vector<8x!sw.ptr<i8>>) -> vector<8xi8>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 1 : i32} : (vector<8x!sw.ptr<f16>>) -> vector<8xf16>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 1 : i32} : (vector<8x!sw.ptr<f16>>) -> vector<8xf16>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 1 : i32} : (vector<8x!sw.ptr<f16>>) -> vector<8xf16>
// CHECK: "simt.load"(%{{[0-9]+}}) {vec = 1 : i32} : (vector<8x!sw.ptr<f16>>) -> vector<8xf16>
module {
  func.func @contiguity(%h: !sw.ptr<f16>, %d: !sw.ptr<f64>, %b: !sw.ptr<i8>, %c: i1, %k: i64) {
    %r = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %hs = "sw.splat"(%h) : (!sw.ptr<f16>) -> tensor<1024x!sw.ptr<f16>>
    %ds = "sw.splat"(%d) : (!sw.ptr<f64>) -> tensor<1024x!sw.ptr<f64>>
    %bs = "sw.splat"(%b) : (!sw.ptr<i8>) -> tensor<1024x!sw.ptr<i8>>
    %hp = "sw.addptr"(%hs, %r) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %0 = "sw.load"(%hp) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    %r64 = "sw.cast"(%r) : (tensor<1024xi32>) -> tensor<1024xi64>
    %ks = "sw.splat"(%k) : (i64) -> tensor<1024xi64>
    %r64k = "sw.sub"(%r64, %ks) : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
    %dp = "sw.addptr"(%ds, %r64k) : (tensor<1024x!sw.ptr<f64>>, tensor<1024xi64>) -> tensor<1024x!sw.ptr<f64>>
    %1 = "sw.load"(%dp) : (tensor<1024x!sw.ptr<f64>>) -> tensor<1024xf64>
    %dp2 = "sw.addptr"(%dp, %ks) : (tensor<1024x!sw.ptr<f64>>, tensor<1024xi64>) -> tensor<1024x!sw.ptr<f64>>
    %2 = "sw.load"(%dp2) : (tensor<1024x!sw.ptr<f64>>) -> tensor<1024xf64>
    %bp = "sw.addptr"(%bs, %r) : (tensor<1024x!sw.ptr<i8>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<i8>>
    %3 = "sw.load"(%bp) : (tensor<1024x!sw.ptr<i8>>) -> tensor<1024xi8>
    %cs = "sw.splat"(%c) : (i1) -> tensor<1024xi1>
    %sel = "sw.select"(%cs, %r, %r) : (tensor<1024xi1>, tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %selp = "sw.addptr"(%hs, %sel) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %4 = "sw.load"(%selp) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    %nar = "sw.cast"(%r64) : (tensor<1024xi64>) -> tensor<1024xi32>
    %narp = "sw.addptr"(%hs, %nar) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %5 = "sw.load"(%narp) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    %two = "sw.constant"() {value = 2 : i32} : () -> tensor<1024xi32>
    %dbl = "sw.mul"(%r, %two) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %dblp = "sw.addptr"(%hs, %dbl) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %6 = "sw.load"(%dblp) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    %rev = "sw.sub"(%two, %r) : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
    %revp = "sw.addptr"(%hs, %rev) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %7 = "sw.load"(%revp) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    "func.return"() : () -> ()
  }
}
