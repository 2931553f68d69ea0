// RUN: %swage-opt %s --split-input-file --passes=stages | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=stages,stages | FileCheck %s
// The stage analysis (docs/segments.md, "Stages"): an op's stage is the
// largest stage of its operands; a segment reduction's result is one stage
// later than the reduction. `stage` goes on every op that touches segment
// data or depends on a segment reduction; sw.stages = 1 + the largest stage
// of an op that touches segment data (the number of passes over the
// segment). Running the pass twice gives the same result.

// Softmax: max in pass 0, the sum of exponentials in pass 1, the normalised
// store in pass 2.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    attributes {sw.stages = 3 : i32}
// CHECK-NEXT:    "sw.segment_id"() {axis = 0 : i32}
// CHECK-NEXT:    "sw.segment"({{.*}}) {stage = 0 : i32}
// CHECK-NEXT:    "sw.load_segment"({{.*}}) {stage = 0 : i32}
// CHECK-NEXT:    "sw.reduce"({{.*}}) {kind = "max", stage = 0 : i32}
// CHECK-NEXT:    "sw.splat"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.sub"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.exp"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.reduce"({{.*}}) {kind = "sum", stage = 1 : i32}
// CHECK-NEXT:    "sw.splat"({{.*}}) {stage = 2 : i32}
// CHECK-NEXT:    "sw.div"({{.*}}) {stage = 2 : i32}
// CHECK-NEXT:    "sw.store_segment"({{.*}}) {stage = 2 : i32}
// CHECK-NEXT:    "func.return"() : () -> ()
func.func @softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %m = "sw.reduce"(%x) {kind = "max"} : (tensor<?xf32>) -> f32
  %ms = "sw.splat"(%m) : (f32) -> tensor<?xf32>
  %d = "sw.sub"(%x, %ms) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = "sw.exp"(%d) : (tensor<?xf32>) -> tensor<?xf32>
  %s = "sw.reduce"(%e) {kind = "sum"} : (tensor<?xf32>) -> f32
  %ss = "sw.splat"(%s) : (f32) -> tensor<?xf32>
  %q = "sw.div"(%e, %ss) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  "sw.store_segment"(%output_ptr, %seg, %q) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
  "func.return"() : () -> ()
}

// -----
// A segmented sum: one pass; the store of the total runs after it (stage 1
// = sw.stages). The address of the per-segment output depends on no
// reduction: no stage, it may run before the first pass.
// CHECK-LABEL: func.func @sum
// CHECK-SAME:    attributes {sw.stages = 1 : i32}
// CHECK:         "sw.reduce"({{.*}}) {kind = "sum", stage = 0 : i32}
// CHECK-NEXT:    "sw.addptr"(%out_ptr, %0) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    "sw.store"({{.*}}) {stage = 1 : i32}
func.func @sum(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %out_ptr: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%x) {kind = "sum"} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %t) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// Variance: the mean (a stage-1 scalar) feeds a second reduction (pass 1);
// the variance is stored after the last pass. Two reductions of one pass
// (sum and max of x) share pass 0.
// CHECK-LABEL: func.func @variance
// CHECK-SAME:    attributes {sw.stages = 2 : i32}
// CHECK:         %[[N:.*]] = "sw.segment_length"({{.*}}) {stage = 0 : i32}
// CHECK-NEXT:    "sw.reduce"({{.*}}) {kind = "sum", stage = 0 : i32}
// CHECK-NEXT:    "sw.reduce"({{.*}}) {kind = "max", stage = 0 : i32}
// CHECK-NEXT:    "sw.cast"(%[[N]]) : (i32) -> f32
// CHECK-NEXT:    "sw.div"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.splat"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.sub"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.mul"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.reduce"({{.*}}) {kind = "sum", stage = 1 : i32}
// CHECK-NEXT:    "sw.div"({{.*}}) {stage = 2 : i32}
// CHECK-NEXT:    "sw.addptr"
// CHECK-NOT:     stage
// CHECK-SAME:    -> !sw.ptr<f32>
// CHECK-NEXT:    "sw.store"({{.*}}) {stage = 2 : i32}
// CHECK-NEXT:    "sw.addptr"
// CHECK-NEXT:    "sw.store"({{.*}}) {stage = 1 : i32}
func.func @variance(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %var_ptr: !sw.ptr<f32>, %max_ptr: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %n = "sw.segment_length"(%seg) : (!sw.segment<f32>) -> i32
  %t = "sw.reduce"(%x) {kind = "sum"} : (tensor<?xf32>) -> f32
  %mx = "sw.reduce"(%x) {kind = "max"} : (tensor<?xf32>) -> f32
  %nf = "sw.cast"(%n) : (i32) -> f32
  %mean = "sw.div"(%t, %nf) : (f32, f32) -> f32
  %ms = "sw.splat"(%mean) : (f32) -> tensor<?xf32>
  %d = "sw.sub"(%x, %ms) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %dd = "sw.mul"(%d, %d) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %ss = "sw.reduce"(%dd) {kind = "sum"} : (tensor<?xf32>) -> f32
  %var = "sw.div"(%ss, %nf) : (f32, f32) -> f32
  %vp = "sw.addptr"(%var_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%vp, %var) : (!sw.ptr<f32>, f32) -> ()
  %mp = "sw.addptr"(%max_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%mp, %mx) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// Region ops take the stage of everything they use: the sw.if's condition
// is a stage-0 scalar, but its body stores a reduction's result, so the if
// and all it holds are stage 1. A sw.for that carries a value computed from
// a reduction is stage 1 too; a loop that uses none gets no stage.
// CHECK-LABEL: func.func @regions
// CHECK-SAME:    attributes {sw.stages = 1 : i32}
// CHECK:         "sw.cmp"(%{{.*}}, %{{.*}}) {predicate = "gt"} : (i32, i32) -> i1
// CHECK-NEXT:    "sw.if"
// CHECK-NEXT:      "sw.store"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:      "sw.yield"() {stage = 1 : i32}
// CHECK-NEXT:    }, {
// CHECK-NEXT:      "sw.yield"() {stage = 1 : i32}
// CHECK-NEXT:    }) {stage = 1 : i32}
// CHECK:         "sw.for"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      "sw.add"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:      "sw.yield"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    }) {stage = 1 : i32}
// CHECK-NEXT:    "sw.store"({{.*}}) {stage = 1 : i32}
// CHECK-NEXT:    "sw.for"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      "sw.add"(%{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32) -> i32
// CHECK-NEXT:      "sw.yield"(%{{[0-9]+}}) : (i32) -> ()
// CHECK-NEXT:    }) : (i32, i32, i32, i32) -> i32
func.func @regions(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %out_ptr: !sw.ptr<f32>, %k: i32) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%x) {kind = "sum"} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
  %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
  %pos = "sw.cmp"(%k, %c0) {predicate = "gt"} : (i32, i32) -> i1
  "sw.if"(%pos) ({
    "sw.store"(%p, %t) : (!sw.ptr<f32>, f32) -> ()
    "sw.yield"() : () -> ()
  }, {
    "sw.yield"() : () -> ()
  }) : (i1) -> ()
  %acc = "sw.for"(%c0, %k, %c1, %t) ({
  ^bb0(%i: i32, %a: f32):
    %a2 = "sw.add"(%a, %t) : (f32, f32) -> f32
    "sw.yield"(%a2) : (f32) -> ()
  }) : (i32, i32, i32, f32) -> f32
  "sw.store"(%p, %acc) : (!sw.ptr<f32>, f32) -> ()
  %cnt = "sw.for"(%c0, %k, %c1, %c0) ({
  ^bb0(%j: i32, %b: i32):
    %b2 = "sw.add"(%b, %j) : (i32, i32) -> i32
    "sw.yield"(%b2) : (i32) -> ()
  }) : (i32, i32, i32, i32) -> i32
  "func.return"() : () -> ()
}

// -----
// A segment program that reads no segment (only per-segment scalars): no
// pass over the segment, sw.stages = 0.
// CHECK-LABEL: func.func @scalars_only
// CHECK-SAME:    attributes {sw.stages = 0 : i32}
// CHECK-NOT:     stage =
// CHECK:         "func.return"
func.func @scalars_only(%in: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %a = "sw.addptr"(%in, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %v = "sw.load"(%a) : (!sw.ptr<f32>) -> f32
  %b = "sw.addptr"(%out, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%b, %v) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// Grid programs get no attribute at all; tile reductions are no segment
// reductions.
// CHECK-LABEL: func.func @grid(%x: !sw.ptr<f32>) {
// CHECK-NOT:     stage
// CHECK:         "func.return"
func.func @grid(%x: !sw.ptr<f32>) {
  %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
  %t = "sw.constant"() {value = 1.0 : f32} : () -> tensor<4xf32>
  %s = "sw.reduce"(%t) {kind = "sum"} : (tensor<4xf32>) -> f32
  %p = "sw.addptr"(%x, %pid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %s) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
