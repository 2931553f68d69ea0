// RUN: not %swage-opt %s --split-input-file --passes=lower-simt 2>&1 | FileCheck %s
// What lower-simt cannot lay out is reported at the op, not miscompiled.

// CHECK: lower-errors.mlir:[[# @LINE + 2]]:8: error: lower-simt: 'sw.arange' has a tile of 48 elements; the SIMT layout needs power-of-two tile lengths
func.func @k() {
  %0 = "sw.arange"() {end = 48 : i32, start = 0 : i32} : () -> tensor<48xi32>
  "func.return"() : () -> ()
}

// -----
// CHECK: lower-errors.mlir:[[# @LINE + 2]]:8: error: lower-simt: 'sw.arange' [2147483521, 2147483649) does not fit in i32
func.func @k() {
  %0 = "sw.arange"() {end = 2147483649 : i64, start = 2147483521 : i64} : () -> tensor<128xi32>
  "func.return"() : () -> ()
}

// -----
// The last index, 2^31 - 1, still fits.
// CHECK: "simt.tile_index"() {len = 128 : i32, start = 2147483520 : i32} : () -> vector<4xi32>
func.func @k() {
  %0 = "sw.arange"() {end = 2147483648 : i64, start = 2147483520 : i64} : () -> tensor<128xi32>
  "func.return"() : () -> ()
}

// -----
// A segment program is lowered to task kernels by lower-segments first; its
// own ops have no SIMT form (this was an internal error).
// CHECK: lower-errors.mlir:[[# @LINE + 3]]:10: error: lower-simt: 'sw.segment_id' makes @segment_program a segment program, which lower-segments must turn into task kernels first: run lower-segments before lower-simt (--passes=lower-segments,lower-simt)
// CHECK-NOT: internal
func.func @segment_program(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  "sw.store_segment"(%out, %seg, %x) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}
