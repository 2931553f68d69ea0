// RUN: %swage-opt %s --split-input-file --passes=lower-segments-split | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-segments-split,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_90 > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The online pass of a split softmax (stages max, then sum of exp(x - max),
// in one pass): each lane keeps a running maximum m and sum d, and takes
// an element x with ONE exponential, e = exp(-|x - m|): d' = d e + 1 when
// x raises m, else d + e. A -inf x adds nothing (e is 0, also when m is
// -inf), and the "1" is x * 0 + 1, NaN for an infinite x as exp(x - x)
// is. The exponential is the program's: sl.exp's approximation stays one.

// The pass runs as a stage's tiles do: a masked head tile when the chunk
// starts past its first tile's base, the tiles wholly inside unmasked, two
// at a time (both tiles' loads first), one more when their count is odd,
// a masked tail tile. The kernel asks for 5 CTAs of 256 a multiprocessor
// (48 registers), where ptxas issues both tiles' loads first.
// CHECK-LABEL: func.func @exact__split0(
// CHECK-SAME:    sw.sm_threads = 1280 : i32
// CHECK:           "sw.if"
// CHECK:             "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK:             "sw.exp"
// CHECK-NOT:         "sw.exp"
// CHECK:           }) : (i1) -> (tensor<1024xf32>, tensor<1024xf32>)
// CHECK:           "sw.for"
// CHECK:             %[[X:[0-9]+]] = "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK:             %[[X2:[0-9]+]] = "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK-NEXT:        %[[M2:[0-9]+]] = "sw.maximum"(%[[M:[0-9]+]], %[[X]]) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:        %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0.0 : f32}
// CHECK-NEXT:        %[[ONE:[0-9]+]] = "sw.constant"() {value = 1.0 : f32}
// CHECK-NEXT:        %[[LOW:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32}
// CHECK-NEXT:        %[[GAP:[0-9]+]] = "sw.sub"(%[[X]], %[[M]])
// CHECK-NEXT:        %[[ABS:[0-9]+]] = "sw.abs"(%[[GAP]])
// CHECK-NEXT:        %[[NEG:[0-9]+]] = "sw.neg"(%[[ABS]])
// CHECK-NEXT:        %[[EXP:[0-9]+]] = "sw.exp"(%[[NEG]]) : (tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:        %[[ISLOW:[0-9]+]] = "sw.cmp"(%[[X]], %[[LOW]]) {predicate = "eq"}
// CHECK-NEXT:        %[[E:[0-9]+]] = "sw.select"(%[[ISLOW]], %[[ZERO]], %[[EXP]])
// CHECK-NEXT:        %[[FIRST:[0-9]+]] = "sw.fma"(%[[X]], %[[ZERO]], %[[ONE]])
// CHECK-NEXT:        %[[RAISED:[0-9]+]] = "sw.fma"(%[[D:[0-9]+]], %[[E]], %[[FIRST]])
// CHECK-NEXT:        %[[ADDED:[0-9]+]] = "sw.add"(%[[D]], %[[E]])
// CHECK-NEXT:        %[[UP:[0-9]+]] = "sw.cmp"(%[[X]], %[[M]]) {predicate = "gt"}
// CHECK-NEXT:        %[[NEXT:[0-9]+]] = "sw.select"(%[[UP]], %[[RAISED]], %[[ADDED]])
// CHECK-NEXT:        %[[M3:[0-9]+]] = "sw.maximum"(%[[M2]], %[[X2]])
// CHECK:             "sw.sub"(%[[X2]], %[[M2]])
// CHECK:             "sw.fma"(%[[NEXT]],
// CHECK:             %[[NEXT2:[0-9]+]] = "sw.select"
// CHECK-NEXT:        "sw.yield"(%[[M3]], %[[NEXT2]])
// CHECK:           "sw.if"
// CHECK:             "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK:           }) : (i1) -> (tensor<1024xf32>, tensor<1024xf32>)
// CHECK:           "sw.if"
// CHECK:             "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK:             "sw.exp"
// CHECK-NOT:         "sw.exp"
// CHECK:           }) : (i1) -> (tensor<1024xf32>, tensor<1024xf32>)
// CHECK-NEXT:      "sw.reduce"(%{{[0-9]+}}#0) {kind = "max"} : (tensor<1024xf32>) -> f32
// CHECK-LABEL: func.func @exact__split2(
// PTX-LABEL:   .visible .entry exact__split0(
// PTX:         .maxntid 256, 1, 1
// PTX-NEXT:    .minnctapersm 5
// PTX-LABEL:   .visible .entry exact__split2(
// PTX:         .maxntid 256, 1, 1
// PTX-NOT:     .minnctapersm
// PTX-LABEL:   .visible .entry approximate__classify(
func.func @exact(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %output_ptr: !sw.ptr<f32>) attributes {sw.stages = 3 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
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

// -----

// CHECK-LABEL: func.func @approximate__split0(
// CHECK-COUNT-5:   "sw.exp"(%{{[0-9]+}}) {approx = true} : (tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NOT:       "sw.exp"(%{{[0-9]+}}) {approx = true} : (tensor<1024xf32>)
// CHECK:           "sw.reduce"(%{{[0-9]+}}#0) {kind = "max"}
// CHECK-LABEL: func.func @approximate__split2(
func.func @approximate(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %output_ptr: !sw.ptr<f32>) attributes {sw.stages = 3 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %m = "sw.reduce"(%x) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %ms = "sw.splat"(%m) {stage = 1 : i32} : (f32) -> tensor<?xf32>
  %d = "sw.sub"(%x, %ms) {stage = 1 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = "sw.exp"(%d) {approx = true, stage = 1 : i32} : (tensor<?xf32>) -> tensor<?xf32>
  %s = "sw.reduce"(%e) {kind = "sum", stage = 1 : i32} : (tensor<?xf32>) -> f32
  %ss = "sw.splat"(%s) {stage = 2 : i32} : (f32) -> tensor<?xf32>
  %q = "sw.div"(%e, %ss) {stage = 2 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  "sw.store_segment"(%output_ptr, %seg, %q) {stage = 2 : i32} : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}
