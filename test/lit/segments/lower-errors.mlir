// RUN: not %swage-opt %s --split-input-file --passes=lower-segments 2>&1 | FileCheck %s
// What the one-CTA-per-segment schedule cannot launch is reported at the op.

// The element count of a buffer comes from its argument: a view of a
// pointer moved by arithmetic has none.
// CHECK: lower-errors.mlir:[[# @LINE + 5]]:10: error: lower-segments: the values pointer of 'sw.segment' must be a kernel parameter (pointer arithmetic on it is not supported in segment programs)
func.func @shifted(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %one = "sw.constant"() {value = 1 : i32} : () -> i32
  %p = "sw.addptr"(%values, %one) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %seg = "sw.segment"(%p, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  "func.return"() : () -> ()
}

// -----
// CHECK: lower-errors.mlir:[[# @LINE + 6]]:3: error: lower-segments: the pointer of 'sw.store_segment' must be a kernel parameter (pointer arithmetic on it is not supported in segment programs)
func.func @shifted_store(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %p = "sw.addptr"(%values, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store_segment"(%p, %seg, %x) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// A segment id without a view has no offsets to give the grid.
// CHECK: lower-errors.mlir:[[# @LINE + 2]]:10: error: lower-segments: a segment program needs an sl.segment view: its offsets give the program's segment and the launch's grid
func.func @no_view(%out: !sw.ptr<i32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %p = "sw.addptr"(%out, %sid) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>
  "sw.store"(%p, %sid) : (!sw.ptr<i32>, i32) -> ()
  "func.return"() : () -> ()
}
