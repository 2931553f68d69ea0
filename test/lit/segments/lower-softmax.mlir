// RUN: %swage-opt %s --passes=lower-segments | FileCheck %s
// RUN: %swage-opt %s --passes=lower-segments > %t.grid
// RUN: %swage-opt %t.grid | diff %t.grid -
// RUN: %swage-opt %s --passes=lower-segments,lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// lower-segments turns softmax (three stages: the max, the sum of
// exponentials, the normalised store) into one CTA per segment walking its
// segment three times in tiles of 1024 (masked to start <= index < end): the
// segment is loaded again in every
// loop, each reduction is a tile accumulator carried by its loop and reduced
// once after it, and the store is masked. The result is a grid program: no
// segment type, op or stage attribute is left, and it parses back.

// The hidden element counts follow the parameters, one per buffer viewed or
// stored through (values_ptr, output_ptr), in parameter order.
// CHECK-LABEL: func.func @segmented_softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>, %values_ptr__numel: i64, %output_ptr__numel: i64) {
// CHECK-NEXT:    %[[SID:[0-9]+]] = "sw.program_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %[[P0:[0-9]+]] = "sw.addptr"(%offsets_ptr, %[[SID]]) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>
// CHECK-NEXT:    %[[ONE:[0-9]+]] = "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT:    %[[P1:[0-9]+]] = "sw.addptr"(%[[P0]], %[[ONE]]) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>
// CHECK-NEXT:    %[[O0:[0-9]+]] = "sw.load"(%[[P0]]) : (!sw.ptr<i32>) -> i32
// CHECK-NEXT:    %[[S0:[0-9]+]] = "sw.cast"(%[[O0]]) : (i32) -> i64
// CHECK-NEXT:    %[[O1:[0-9]+]] = "sw.load"(%[[P1]]) : (!sw.ptr<i32>) -> i32
// CHECK-NEXT:    %[[E0:[0-9]+]] = "sw.cast"(%[[O1]]) : (i32) -> i64
// Clamped to every buffer: start = max(min(offsets[s], n...), 0), end =
// max(min(offsets[s+1], n...), start), which for counts n >= 0 is
// min(max(offsets[s], 0), n) and min(max(offsets[s+1], start), n) for each n.
// CHECK-NEXT:    %[[S1:[0-9]+]] = "sw.minimum"(%[[S0]], %values_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[E1:[0-9]+]] = "sw.minimum"(%[[E0]], %values_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[S2:[0-9]+]] = "sw.minimum"(%[[S1]], %output_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[E2:[0-9]+]] = "sw.minimum"(%[[E1]], %output_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0 : i64} : () -> i64
// CHECK-NEXT:    %[[START:[0-9]+]] = "sw.maximum"(%[[S2]], %[[ZERO]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[END:[0-9]+]] = "sw.maximum"(%[[E2]], %[[START]]) : (i64, i64) -> i64
// The loops start at a 4-element boundary (vector accesses stay aligned).
// CHECK-NEXT:    %[[M4:[0-9]+]] = "sw.constant"() {value = -4 : i64} : () -> i64
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = "sw.and"(%[[START]], %[[M4]]) : (i64, i64) -> i64

// Loop 0: the max, from an accumulator of -inf (the max of an empty segment).
// CHECK-NEXT:    %[[STEP:[0-9]+]] = "sw.constant"() {value = 1024 : i64} : () -> i64
// CHECK-NEXT:    %[[NEGINF:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[MAXACC:[0-9]+]] = "sw.for"(%[[FIRST]], %[[END]], %[[STEP]], %[[NEGINF]]) ({
// CHECK-NEXT:    ^bb0(%[[BASE:[0-9]+]]: i64, %[[ACC:[0-9]+]]: tensor<1024xf32>):
// CHECK-NEXT:      %[[LANES:[0-9]+]] = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
// CHECK-NEXT:      %[[BASES:[0-9]+]] = "sw.splat"(%[[BASE]]) : (i64) -> tensor<1024xi64>
// CHECK-NEXT:      %[[LANES64:[0-9]+]] = "sw.cast"(%[[LANES]]) : (tensor<1024xi32>) -> tensor<1024xi64>
// CHECK-NEXT:      %[[IDX:[0-9]+]] = "sw.add"(%[[BASES]], %[[LANES64]]) : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi64>
// CHECK-NEXT:      %[[STARTS:[0-9]+]] = "sw.splat"(%[[START]]) : (i64) -> tensor<1024xi64>
// CHECK-NEXT:      %[[GE:[0-9]+]] = "sw.cmp"(%[[IDX]], %[[STARTS]]) {predicate = "ge"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi1>
// CHECK-NEXT:      %[[ENDS:[0-9]+]] = "sw.splat"(%[[END]]) : (i64) -> tensor<1024xi64>
// CHECK-NEXT:      %[[LT:[0-9]+]] = "sw.cmp"(%[[IDX]], %[[ENDS]]) {predicate = "lt"} : (tensor<1024xi64>, tensor<1024xi64>) -> tensor<1024xi1>
// CHECK-NEXT:      %[[MASK:[0-9]+]] = "sw.and"(%[[GE]], %[[LT]]) : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
// CHECK-NEXT:      %[[OTHER:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:      %[[VP:[0-9]+]] = "sw.splat"(%values_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
// CHECK-NEXT:      %[[PTRS:[0-9]+]] = "sw.addptr"(%[[VP]], %[[IDX]]) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi64>) -> tensor<1024x!sw.ptr<f32>>
// CHECK-NEXT:      %[[X:[0-9]+]] = "sw.load"(%[[PTRS]], %[[MASK]], %[[OTHER]]) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
// Masked-off lanes contribute the identity.
// CHECK-NEXT:      %[[ID:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:      %[[LIVE:[0-9]+]] = "sw.select"(%[[MASK]], %[[X]], %[[ID]]) : (tensor<1024xi1>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:      %[[NEXT:[0-9]+]] = "sw.maximum"(%[[ACC]], %[[LIVE]]) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:      "sw.yield"(%[[NEXT]]) : (tensor<1024xf32>) -> ()
// CHECK-NEXT:    }) : (i64, i64, i64, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:    %[[MAX:[0-9]+]] = "sw.reduce"(%[[MAXACC]]) {kind = "max"} : (tensor<1024xf32>) -> f32

// Loop 1: the sum of exp(x - max), from 0; x is loaded again.
// CHECK:         %[[ZEROS:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[SUMACC:[0-9]+]] = "sw.for"(%[[FIRST]], %[[END]], %{{[0-9]+}}, %[[ZEROS]]) ({
// CHECK:           "sw.load"
// CHECK:           %[[MAXES:[0-9]+]] = "sw.splat"(%[[MAX]]) : (f32) -> tensor<1024xf32>
// CHECK-NEXT:      %[[D:[0-9]+]] = "sw.sub"(%{{[0-9]+}}, %[[MAXES]]) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:      %[[E:[0-9]+]] = "sw.exp"(%[[D]]) : (tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:      %[[Z:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:      %[[LIVE2:[0-9]+]] = "sw.select"(%{{[0-9]+}}, %[[E]], %[[Z]])
// CHECK-NEXT:      %[[NEXT2:[0-9]+]] = "sw.add"(%{{[0-9]+}}, %[[LIVE2]]) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:      "sw.yield"(%[[NEXT2]]) : (tensor<1024xf32>) -> ()
// CHECK-NEXT:    }) : (i64, i64, i64, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:    %[[SUM:[0-9]+]] = "sw.reduce"(%[[SUMACC]]) {kind = "sum"} : (tensor<1024xf32>) -> f32

// Loop 2: the store, masked, carrying nothing.
// CHECK:         "sw.for"(%[[FIRST]], %[[END]], %{{[0-9]+}}) ({
// CHECK:           "sw.exp"
// CHECK:           %[[SUMS:[0-9]+]] = "sw.splat"(%[[SUM]]) : (f32) -> tensor<1024xf32>
// CHECK-NEXT:      %[[Q:[0-9]+]] = "sw.div"(%{{[0-9]+}}, %[[SUMS]])
// CHECK-NEXT:      %[[OP:[0-9]+]] = "sw.splat"(%output_ptr) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
// CHECK-NEXT:      %[[OPTRS:[0-9]+]] = "sw.addptr"(%[[OP]], %[[IDX2:[0-9]+]])
// CHECK-NEXT:      "sw.store"(%[[OPTRS]], %[[Q]], %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
// CHECK-NEXT:      "sw.yield"() : () -> ()
// CHECK-NEXT:    }) : (i64, i64, i64) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
// CHECK-NOT: sw.segment
// CHECK-NOT: stage
// CHECK-NOT: tensor<?

// The PTX entry takes the hidden counts after the three pointers.
// PTX:      .visible .entry segmented_softmax(
// PTX-NEXT:   .param .u64 segmented_softmax_param_0,
// PTX-NEXT:   .param .u64 segmented_softmax_param_1,
// PTX-NEXT:   .param .u64 segmented_softmax_param_2,
// PTX-NEXT:   .param .s64 segmented_softmax_param_3,
// PTX-NEXT:   .param .s64 segmented_softmax_param_4
// PTX-NEXT: )
func.func @segmented_softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>) attributes {sw.stages = 3 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %m = "sw.reduce"(%x) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %ms = "sw.splat"(%m) {stage = 1 : i32} : (f32) -> tensor<?xf32>
  %d = "sw.sub"(%x, %ms) {stage = 1 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = "sw.exp"(%d) {stage = 1 : i32} : (tensor<?xf32>) -> tensor<?xf32>
  %s = "sw.reduce"(%e) {kind = "sum", stage = 1 : i32} : (tensor<?xf32>) -> f32
  %ss = "sw.splat"(%s) {stage = 2 : i32} : (f32) -> tensor<?xf32>
  %q = "sw.div"(%e, %ss) {stage = 2 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  "sw.store_segment"(%output_ptr, %seg, %q) {stage = 2 : i32} : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}
