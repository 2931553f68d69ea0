// RUN: %swage-opt %s --split-input-file --passes=lower-segments-cta | FileCheck %s
// The task kernels' parameters: the program's, then one hidden i64 element
// count per distinct buffer a segment is read from or stored to, named
// after its parameter, in parameter order, then the launch's (segments,
// check, scratch, list capacities, split thresholds). A task clamps its
// segment's range to every one of those counts, so no access leaves a
// buffer whatever the offsets hold (unsafe launches). The forced CTA
// schedule (its streamers) shows both forms of a task: one tile when the
// segment fits, else one loop per stage.

// Two views of one buffer and a store back into it: one count. The scale
// and the per-segment output are not segment buffers: no count.
// CHECK-LABEL: func.func @in_place__direct_cta1024_stream(%x: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %scale: !sw.ptr<f32>, %x__numel: i64, %__segments: i64, %__check: i32, %__scratch: !sw.ptr<i32>,
// CHECK-SAME:    sw.overflow = "stream", sw.policy = "cta", sw.program_threads = 128 : i32
// CHECK-SAME:    sw.task = "direct", sw.tile = 1024 : i32
// CHECK:         %[[S:[0-9]+]] = "sw.minimum"(%{{[0-9]+}}, %x__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[E:[0-9]+]] = "sw.minimum"(%{{[0-9]+}}, %x__numel) : (i64, i64) -> i64
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0 : i64} : () -> i64
// CHECK-NEXT:    %[[START:[0-9]+]] = "sw.maximum"(%[[S]], %[[ZERO]]) : (i64, i64) -> i64
// CHECK-NEXT:    %{{[0-9]+}} = "sw.maximum"(%[[E]], %[[START]]) : (i64, i64) -> i64
// The offsets check: one flag in the scratch, set only with __check.
// CHECK:         "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (!sw.ptr<i32>, i32, i1) -> ()
// One tile: the scalar load needs no reduction, so it is read first.
// CHECK:         "sw.if"
// CHECK:           "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
// CHECK:           "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
// Longer: the same in a loop.
// CHECK:           "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
// CHECK:           "sw.for"
// CHECK:             "sw.store"
// CHECK:         "func.return"
// CHECK-LABEL: func.func @in_place__direct_cta4096_stream(
func.func @in_place(%x: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %scale: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %a = "sw.segment"(%x, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %b = "sw.segment"(%x, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %sp = "sw.addptr"(%scale, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %s = "sw.load"(%sp) : (!sw.ptr<f32>) -> f32
  %ss = "sw.splat"(%s) : (f32) -> tensor<?xf32>
  %xa = "sw.load_segment"(%a) : (!sw.segment<f32>) -> tensor<?xf32>
  %y = "sw.mul"(%xa, %ss) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  "sw.store_segment"(%x, %b, %y) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// Three buffers in parameter order (the store target comes first): the
// shortest bounds both ends. With i32 offsets the range stays in 32 bits
// (the count clamped to 2^31 - 1 first), then widens for the loops.
// CHECK-LABEL: func.func @three__direct_cta1024_stream(%out: !sw.ptr<f16>, %a: !sw.ptr<f32>, %offsets: !sw.ptr<i32>, %b: !sw.ptr<f32>, %out__numel: i64, %a__numel: i64, %b__numel: i64, %__segments: i64,
// CHECK:         %[[FIRST:[0-9]+]] = "sw.load"(%{{[0-9]+}}) : (!sw.ptr<i32>) -> i32
// CHECK:         %[[NEXT:[0-9]+]] = "sw.load"(%{{[0-9]+}}) : (!sw.ptr<i32>) -> i32
// CHECK:         "sw.constant"() {value = 2147483647 : i64} : () -> i64
// CHECK-NEXT:    "sw.minimum"(%{{[0-9]+}}, %out__numel)
// CHECK-NEXT:    "sw.minimum"(%{{[0-9]+}}, %a__numel)
// CHECK-NEXT:    "sw.minimum"(%{{[0-9]+}}, %b__numel)
// CHECK-NEXT:    %[[LIMIT:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (i64) -> i32
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT:    %[[S:[0-9]+]] = "sw.minimum"(%[[FIRST]], %[[LIMIT]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[E:[0-9]+]] = "sw.minimum"(%[[NEXT]], %[[LIMIT]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[START32:[0-9]+]] = "sw.maximum"(%[[S]], %[[ZERO]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[END32:[0-9]+]] = "sw.maximum"(%[[E]], %[[START32]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[START:[0-9]+]] = "sw.cast"(%[[START32]]) : (i32) -> i64
// CHECK-NEXT:    %[[END:[0-9]+]] = "sw.cast"(%[[END32]]) : (i32) -> i64
// The one tile starts at the start rounded down to 4 elements, in 32 bits.
// CHECK:         "sw.constant"() {value = -4 : i32} : () -> i32
// CHECK-NEXT:    "sw.and"(%[[START32]], %{{[0-9]+}}) : (i32, i32) -> i32
// A long segment streams from there too, in 64 bits: a masked first tile
// when the segment starts past that, the tiles wholly inside without a
// mask, two at a time (both tiles' loads before either's stores, so they
// are in flight together), one more when their count is odd, a masked
// last tile for the rest.
// CHECK:         "sw.constant"() {value = -4 : i64} : () -> i64
// CHECK-NEXT:    %[[FIRST64:[0-9]+]] = "sw.and"(%[[START]], %{{[0-9]+}}) : (i64, i64) -> i64
// CHECK:         %[[LATE:[0-9]+]] = "sw.cmp"(%[[START]], %[[FIRST64]]) {predicate = "gt"} : (i64, i64) -> i1
// CHECK-NEXT:    "sw.if"(%[[LATE]])
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xf16>, tensor<1024xi1>) -> ()
// CHECK:         %[[WHOLE:[0-9]+]] = "sw.select"(%[[LATE]], %{{[0-9]+}}, %[[FIRST64]]) : (i1, i64, i64) -> i64
// CHECK:         "sw.constant"() {value = -1024 : i64} : () -> i64
// CHECK:         %[[WHOLE_END:[0-9]+]] = "sw.add"(%[[WHOLE]], %{{[0-9]+}}) : (i64, i64) -> i64
// CHECK:         "sw.constant"() {value = -2048 : i64} : () -> i64
// CHECK:         %[[PAIRS_END:[0-9]+]] = "sw.add"(%[[WHOLE]], %{{[0-9]+}}) : (i64, i64) -> i64
// CHECK-NEXT:    %[[STEP:[0-9]+]] = "sw.constant"() {value = 2048 : i64} : () -> i64
// CHECK-NEXT:    "sw.for"(%[[WHOLE]], %[[PAIRS_END]], %[[STEP]]) ({
// CHECK:           "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK:           "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK:           "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// CHECK:           "sw.load"(%{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
// f16 results round on the store: the cast stays in the loop, whose tiles need no mask.
// CHECK:           %[[H:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (tensor<1024xf32>) -> tensor<1024xf16>
// CHECK:           "sw.store"(%{{[0-9]+}}, %[[H]]) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xf16>) -> ()
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xf16>) -> ()
// CHECK:         %[[ODD:[0-9]+]] = "sw.cmp"(%[[PAIRS_END]], %[[WHOLE_END]]) {predicate = "lt"} : (i64, i64) -> i1
// CHECK-NEXT:    "sw.if"(%[[ODD]])
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xf16>) -> ()
// CHECK:         %[[REST:[0-9]+]] = "sw.cmp"(%[[WHOLE_END]], %[[END]]) {predicate = "lt"} : (i64, i64) -> i1
// CHECK-NEXT:    "sw.if"(%[[REST]])
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xf16>, tensor<1024xi1>) -> ()
func.func @three(%out: !sw.ptr<f16>, %a: !sw.ptr<f32>, %offsets: !sw.ptr<i32>, %b: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %sa = "sw.segment"(%a, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %sb = "sw.segment"(%b, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %xa = "sw.load_segment"(%sa) : (!sw.segment<f32>) -> tensor<?xf32>
  %xb = "sw.load_segment"(%sb) : (!sw.segment<f32>) -> tensor<?xf32>
  %y = "sw.add"(%xa, %xb) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %h = "sw.cast"(%y) : (tensor<?xf32>) -> tensor<?xf16>
  "sw.store_segment"(%out, %sa, %h) : (!sw.ptr<f16>, !sw.segment<f32>, tensor<?xf16>) -> ()
  "func.return"() : () -> ()
}

// -----
// Memory effects keep their program order: a scalar store that waits for
// the sum delays the later segment store to a second loop, and a scalar
// load after that store waits for it too (the streamed form).
// CHECK-LABEL: func.func @ordered__direct_cta1024_stream(
// CHECK:         "sw.if"
// CHECK:         }, {
// CHECK:           "sw.for"
// CHECK:           }) : (i64, i64, i64, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK:           "sw.if"
// CHECK:           %[[ACC:[0-9]+]] = "sw.if"
// CHECK:           %[[SUM:[0-9]+]] = "sw.reduce"(%[[ACC]]) {kind = "sum"}
// CHECK-NEXT:      "sw.store"(%{{[0-9]+}}, %[[SUM]]) : (!sw.ptr<f32>, f32) -> ()
// CHECK:           "sw.for"
// CHECK:             "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>) -> ()
// CHECK:           }) : (i64, i64, i64) -> ()
// CHECK:           }) : (i1) -> ()
// CHECK:           }) : (i1) -> ()
// CHECK-NEXT:      %[[L:[0-9]+]] = "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
// CHECK-NEXT:      "sw.store"(%{{[0-9]+}}, %[[L]]) : (!sw.ptr<f32>, f32) -> ()
func.func @ordered(%x: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %totals: !sw.ptr<f32>, %y: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%x, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %v = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%v) {kind = "sum"} : (tensor<?xf32>) -> f32
  %tp = "sw.addptr"(%totals, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%tp, %t) : (!sw.ptr<f32>, f32) -> ()
  "sw.store_segment"(%y, %seg, %v) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  %first = "sw.load"(%tp) : (!sw.ptr<f32>) -> f32
  "sw.store"(%tp, %first) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
