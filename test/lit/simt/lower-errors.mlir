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
