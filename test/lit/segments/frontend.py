# Segment programs through the frontend and the default pipeline: the
# softmax and the other examples of docs/segments.md, with their
# stages.
# RUN: %swage compile %s --kernel segmented_softmax --signature 'values_ptr=*f32,offsets_ptr=*i32,output_ptr=*f32' --stage=semantic | FileCheck %s --check-prefix=SOFTMAX
# RUN: %swage compile %s --kernel segmented_softmax --signature 'values_ptr=*f32,offsets_ptr=*i32,output_ptr=*f32' --stage=semantic | %swage-opt | FileCheck %s --check-prefix=SOFTMAX
# RUN: %swage compile %s --kernel segmented_softmax --signature 'values_ptr=*f32,offsets_ptr=*i32,output_ptr=*f32' --stage=source | FileCheck %s --check-prefix=SOURCE
# RUN: %swage compile %s --kernel segmented_softmax --signature 'values_ptr=*bf16,offsets_ptr=*i64,output_ptr=*f16' | FileCheck %s --check-prefix=HALF
# RUN: %swage compile %s --kernel segmented_sum --signature 'values_ptr=*i8,offsets_ptr=*i32,out_ptr=*i32' | FileCheck %s --check-prefix=SUM
# RUN: %swage compile %s --kernel segmented_mean --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' | FileCheck %s --check-prefix=MEAN
# RUN: %swage compile %s --kernel weighted --signature 'values_ptr=*f32,weights_ptr=*f32,offsets_ptr=*i32,scale_ptr=*f32,out_ptr=*f32,centred_ptr=*f32' | FileCheck %s --check-prefix=TWO
# RUN: %swage compile %s --kernel segmented_softmax --signature 'values_ptr=*f32,offsets_ptr=*i32,output_ptr=*f32' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
import swage as sw
import swage.language as sl


@sw.jit
def segmented_softmax(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    maximum = sl.max(x)
    numerator = sl.exp(x - maximum)
    denominator = sl.sum(numerator)
    sl.store_segment(output_ptr, segment, numerator / denominator)

# SOFTMAX:      func.func @segmented_softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>) attributes {sw.stages = 3 : i32} {
# SOFTMAX-NEXT:   %0 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
# SOFTMAX-NEXT:   %1 = "sw.segment"(%values_ptr, %offsets_ptr, %0) {stage = 0 : i32} : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
# SOFTMAX-NEXT:   %2 = "sw.load_segment"(%1) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
# SOFTMAX-NEXT:   %3 = "sw.reduce"(%2) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
# SOFTMAX-NEXT:   %4 = "sw.splat"(%3) {stage = 1 : i32} : (f32) -> tensor<?xf32>
# SOFTMAX-NEXT:   %5 = "sw.sub"(%2, %4) {stage = 1 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
# SOFTMAX-NEXT:   %6 = "sw.exp"(%5) {approx = true, stage = 1 : i32} : (tensor<?xf32>) -> tensor<?xf32>
# SOFTMAX-NEXT:   %7 = "sw.reduce"(%6) {kind = "sum", stage = 1 : i32} : (tensor<?xf32>) -> f32
# SOFTMAX-NEXT:   %8 = "sw.splat"(%7) {stage = 2 : i32} : (f32) -> tensor<?xf32>
# SOFTMAX-NEXT:   %9 = "sw.div"(%6, %8) {approx = true, stage = 2 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
# SOFTMAX-NEXT:   "sw.store_segment"(%output_ptr, %1, %9) {stage = 2 : i32} : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
# SOFTMAX-NEXT:   "func.return"() : () -> ()

# The frontend's output, before the pipeline: no stages yet.
# SOURCE:     func.func @segmented_softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>) {
# SOURCE-NOT: stage
# SOURCE:     "sw.store_segment"(%output_ptr, %1, %9) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()

# bfloat16 in, float16 out: the load converts to float32, everything
# computes in float32, the store rounds to the output's dtype.
# HALF:      attributes {sw.stages = 3 : i32}
# HALF:      %1 = "sw.segment"(%values_ptr, %offsets_ptr, %0) {stage = 0 : i32} : (!sw.ptr<bf16>, !sw.ptr<i64>, i32) -> !sw.segment<bf16>
# HALF-NEXT: %2 = "sw.load_segment"(%1) {stage = 0 : i32} : (!sw.segment<bf16>) -> tensor<?xbf16>
# HALF-NEXT: %3 = "sw.cast"(%2) {stage = 0 : i32} : (tensor<?xbf16>) -> tensor<?xf32>
# HALF-NEXT: "sw.reduce"(%3) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
# HALF:      %[[Q:[0-9]+]] = "sw.div"
# HALF-NEXT: %[[H:[0-9]+]] = "sw.cast"(%[[Q]]) {stage = 2 : i32} : (tensor<?xf32>) -> tensor<?xf16>
# HALF-NEXT: "sw.store_segment"(%output_ptr, %1, %[[H]]) {stage = 2 : i32} : (!sw.ptr<f16>, !sw.segment<bf16>, tensor<?xf16>) -> ()


@sw.jit
def segmented_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    sl.store(out_ptr + sid, sl.sum(x))

# int8 sums accumulate in int32, as for tiles; one pass, the store after it.
# SUM:      attributes {sw.stages = 1 : i32}
# SUM:      %2 = "sw.load_segment"(%1) {stage = 0 : i32} : (!sw.segment<i8>) -> tensor<?xi8>
# SUM:      %[[W:[0-9]+]] = "sw.cast"(%2) {stage = 0 : i32} : (tensor<?xi8>) -> tensor<?xi32>
# SUM-NEXT: %[[T:[0-9]+]] = "sw.reduce"(%[[W]]) {kind = "sum", stage = 0 : i32} : (tensor<?xi32>) -> i32
# SUM-NEXT: "sw.store"(%{{[0-9]+}}, %[[T]]) {stage = 1 : i32} : (!sw.ptr<i32>, i32) -> ()


@sw.jit
def segmented_mean(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    total = sl.sum(sl.load_segment(segment))
    length = sl.segment_length(segment)
    sl.store(out_ptr + sid, total / length)

# The length has the offsets' type; the division runs after the pass.
# MEAN:      attributes {sw.stages = 1 : i32}
# MEAN:      %[[N:[0-9]+]] = "sw.segment_length"(%1) {stage = 0 : i32} : (!sw.segment<f32>) -> i64
# MEAN:      %[[F:[0-9]+]] = "sw.cast"(%[[N]]) : (i64) -> f32
# MEAN-NEXT: "sw.div"(%{{[0-9]+}}, %[[F]]) {approx = true, stage = 1 : i32} : (f32, f32) -> f32


@sw.jit
def weighted(values_ptr, weights_ptr, offsets_ptr, scale_ptr, out_ptr, centred_ptr):
    sid = sl.segment_id(0)
    values = sl.segment(values_ptr, offsets_ptr, sid)
    weights = sl.segment(weights_ptr, offsets_ptr, sid)
    x = sl.load_segment(values) * sl.load_segment(weights)
    total = sl.sum(x) * sl.load(scale_ptr + sid)
    sl.store(out_ptr + sid, total)
    sl.store_segment(centred_ptr, weights, x - total)

# Two zipped views of one offsets pointer and one segment id; a
# per-segment scalar load (no stage: it depends on no reduction).
# TWO:      attributes {sw.stages = 2 : i32}
# TWO:      "sw.segment"(%values_ptr, %offsets_ptr, %0) {stage = 0 : i32}
# TWO-NEXT: "sw.segment"(%weights_ptr, %offsets_ptr, %0) {stage = 0 : i32}
# TWO:      "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
# TWO:      "sw.store"({{.*}}) {stage = 1 : i32}
# TWO:      "sw.store_segment"(%centred_ptr, %2, {{.*}}) {stage = 1 : i32}

# Every op keeps the user's line and column.
# LOC: "sw.reduce"(%2) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32 loc("{{.*}}frontend.py":[[# @LINE - 85]]:15)
