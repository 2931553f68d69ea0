// RUN: not %swage-opt %s --split-input-file 2>&1 | FileCheck %s
// The verifier's rules of sw.segment_index (docs/ir-format.md).

// CHECK: error: 'sw.segment_index' start type i64 must be the base's
func.func @start(%b: i32, %s: i64, %e: i32, %f: i1) {
  %ends = "sw.splat"(%e) : (i32) -> tensor<64xi32>
  %skip = "sw.splat"(%f) : (i1) -> tensor<64xi1>
  %i = "sw.segment_index"(%b, %ends, %s, %skip) : (i32, tensor<64xi32>, i64, tensor<64xi1>) -> tensor<512xi32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.segment_index' skip type tensor<32xi1> must be a 1-D tile of i1 in the ends' shape (tensor<64xi32>)
func.func @skip(%b: i32, %e: i32, %f: i1) {
  %ends = "sw.splat"(%e) : (i32) -> tensor<64xi32>
  %skip = "sw.splat"(%f) : (i1) -> tensor<32xi1>
  %i = "sw.segment_index"(%b, %ends, %b, %skip) : (i32, tensor<64xi32>, i32, tensor<32xi1>) -> tensor<512xi32>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.segment_index' result type tensor<512xi64> must be a 1-D tile of i32
func.func @result(%b: i32, %e: i32, %f: i1) {
  %ends = "sw.splat"(%e) : (i32) -> tensor<64xi32>
  %skip = "sw.splat"(%f) : (i1) -> tensor<64xi1>
  %i = "sw.segment_index"(%b, %ends, %b, %skip) : (i32, tensor<64xi32>, i32, tensor<64xi1>) -> tensor<512xi64>
  "func.return"() : () -> ()
}

// -----

// CHECK: error: 'sw.segment_index' result of 200 elements: more than 128 must be a multiple of 128
func.func @length(%b: i32, %e: i32, %f: i1) {
  %ends = "sw.splat"(%e) : (i32) -> tensor<64xi32>
  %skip = "sw.splat"(%f) : (i1) -> tensor<64xi1>
  %i = "sw.segment_index"(%b, %ends, %b, %skip) : (i32, tensor<64xi32>, i32, tensor<64xi1>) -> tensor<200xi32>
  "func.return"() : () -> ()
}
