// RUN: %swage-opt %s --split-input-file --passes=lower-segments | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-segments,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce | FileCheck %s --check-prefix=LINKED
// RUN: %swage-opt %s --split-input-file --passes=lower-segments,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_90 > %t.ptx
// The automatic schedule of a segment program: direct kernels, one task
// per segment on 1, 2, 4, 8, 16 or 32 threads holding 4 elements each (the
// launch picks one by the mean segment length), each running a segment
// that fits its tile on chip, streaming one of up to sw.stream_max
// elements (2 tiles on part of a warp, 16 on a warp) and appending a
// longer one to the list of its class; one persistent section per list
// (linked into one kernel after lower-simt); one split kernel per stage
// (a one-stage program's is linked into the lists kernel too:
// plan-link-split.mlir).

// First, for means of at most one element: one thread holding one element
// (its tile starts at the segment's start: no vector access to align),
// two segments a program (pid and pid + programs): both segments' offsets,
// then both elements' loads (each masked by its segment fitting), then
// each segment's work.
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp1(
// CHECK-SAME:    sw.program_threads = 1 : i32
// CHECK-SAME:    sw.stream_max = 2 : i32, sw.task = "direct", sw.tasks_per_program = 2 : i32, sw.tile = 1 : i32
// CHECK:         %[[PID:[0-9]+]] = "sw.program_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %[[PROGRAMS:[0-9]+]] = "sw.num_programs"() {axis = 0 : i32} : () -> i32
// CHECK:         "sw.mul"(%[[PROGRAMS]], %{{[0-9]+}})
// CHECK:         %[[IN0:[0-9]+]] = "sw.cmp"(%{{[0-9]+}}, %__segments) {predicate = "lt"}
// CHECK:         "sw.load"(%{{[0-9]+}}) : (!sw.ptr<i64>) -> i64
// CHECK:         %[[FITS0:[0-9]+]] = "sw.and"(%[[IN0]], %{{[0-9]+}}) : (i1, i1) -> i1
// CHECK:         %[[IN1:[0-9]+]] = "sw.cmp"(%{{[0-9]+}}, %__segments) {predicate = "lt"}
// CHECK:         "sw.load"(%{{[0-9]+}}) : (!sw.ptr<i64>) -> i64
// CHECK:         %[[FITS1:[0-9]+]] = "sw.and"(%[[IN1]], %{{[0-9]+}}) : (i1, i1) -> i1
// CHECK-NOT:     "sw.reduce"
// CHECK:         "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1x!sw.ptr<f32>>, tensor<1xi1>, tensor<1xf32>) -> tensor<1xf32>
// CHECK-NOT:     "sw.reduce"
// CHECK:         "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1x!sw.ptr<f32>>, tensor<1xi1>, tensor<1xf32>) -> tensor<1xf32>
// CHECK-NEXT:    "sw.if"(%[[FITS0]]) ({
// CHECK:           "sw.reduce"
// CHECK:         "sw.if"(%[[FITS1]]) ({
// CHECK:           "sw.reduce"
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp4(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %out_ptr: !sw.ptr<f32>, %values_ptr__numel: i64, %__segments: i64, %__check: i32, %__scratch: !sw.ptr<i32>, %__scratch64: !sw.ptr<i64>, %__chunk_bases: !sw.ptr<i64>, %__cap0: i64,
// CHECK-SAME:    %__cap12: i64, %__split_min: i64, %__chunk: i64, %__partials_cap: i64, %__partial0: !sw.ptr<f32>, %__merged0: !sw.ptr<f32>)
// CHECK-SAME:    sw.block_threads = 128 : i32, sw.list_tiles = "4,8,16,32,64,128,256,512,1024,2048,4096", sw.overflow = "lists", sw.policy = "subwarp", sw.program_threads = 1 : i32
// CHECK-SAME:    sw.stream_max = 8 : i32, sw.task = "direct", sw.tile = 4 : i32
// One program per segment, none past the last.
// CHECK:         %[[SID:[0-9]+]] = "sw.program_id"() {axis = 0 : i32} : () -> i32
// CHECK:         "sw.cmp"(%{{[0-9]+}}, %__segments) {predicate = "lt"}
// A segment that fits the tile: one masked load, the sum, the store.
// CHECK:         %[[FITS:[0-9]+]] = "sw.cmp"(%{{[0-9]+}}, %{{[0-9]+}}) {predicate = "le"} : (i64, i64) -> i1
// CHECK-NEXT:    "sw.if"(%[[FITS]]) ({
// CHECK:           "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<4x!sw.ptr<f32>>, tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:           %[[T:[0-9]+]] = "sw.reduce"(%{{[0-9]+}}) {kind = "sum"} : (tensor<4xf32>) -> f32
// CHECK-NEXT:      "sw.store"(%{{[0-9]+}}, %[[T]]) : (!sw.ptr<f32>, f32) -> ()
// CHECK:         }, {
// Else, up to two tiles: streamed here.
// CHECK:           %[[EIGHT:[0-9]+]] = "sw.constant"() {value = 8 : i64} : () -> i64
// CHECK-NEXT:      %[[NEAR:[0-9]+]] = "sw.cmp"(%{{[0-9]+}}, %[[EIGHT]]) {predicate = "le"} : (i64, i64) -> i1
// CHECK-NEXT:      "sw.if"(%[[NEAR]]) ({
// CHECK:             "sw.for"
// CHECK:           }, {
// Else its class: the first list whose tile holds it, the split list past __split_min.
// CHECK:           "sw.cmp"(%{{[0-9]+}}, %__split_min) {predicate = "gt"}
// A split segment reserves its slot and its chunks with one 64-bit atomic.
// CHECK:           "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i64>, i64) -> i64
// CHECK:           "sw.store"(%{{[0-9]+}}, %[[SID]], %{{[0-9]+}}) : (!sw.ptr<i32>, i32, i1) -> ()
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (!sw.ptr<i64>, i64, i1) -> ()
// Other lists count with a 32-bit atomic; a list without room (bad offsets) keeps the segment here.
// CHECK:           "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:           "sw.for"
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp8(
// CHECK-SAME:    sw.program_threads = 2 : i32
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp16(
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp32(
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp64(
// CHECK-SAME:    sw.stream_max = 128 : i32
// CHECK-LABEL: func.func @segmented_sum__direct_warp128(
// CHECK-SAME:    sw.program_threads = 32 : i32
// CHECK-SAME:    sw.stream_max = 2048 : i32
// The streamer, for means past every tile (most segments span several
// tiles): for a one-stage program the widest sub-warp shape again,
// streaming what a warp would (16 warp tiles) from the start of its first
// tile, so any segment of up to 2048 elements (the span counts from the
// segment's start rounded down to a tile: 2048 + 64), the tiles inside a
// segment unmasked, two at a time; the others mask every tile they stream.
// CHECK-LABEL: func.func @segmented_sum__direct_subwarp64_stream(
// CHECK-SAME:    sw.program_threads = 16 : i32
// CHECK-SAME:    sw.stream_form = "pairs"
// CHECK-NOT:     sw.stream_from
// CHECK-SAME:    sw.stream_max = 2112 : i32
// From a mean of 768 (sw.stream_from; the others from twice their tile)
// a one-stage program streams on a warp of 8-element lanes, up to 16 of
// its tiles.
// CHECK-LABEL: func.func @segmented_sum__direct_warp256_stream(
// CHECK-SAME:    sw.program_threads = 32 : i32
// CHECK-SAME:    sw.stream_form = "pairs", sw.stream_from = 768 : i32, sw.stream_max = 4352 : i32
// The CTA streamer, for means of at least twice its tile: 128 threads of 8
// elements, tiles of 1024 in unmasked pairs, up to the launch's split
// threshold (the bound here is only int32's); longer segments are split.
// CHECK-LABEL: func.func @segmented_sum__direct_cta1024_stream(
// CHECK-SAME:    sw.block_threads = 128 : i32
// CHECK-SAME:    sw.policy = "cta", sw.program_threads = 128 : i32
// CHECK-SAME:    sw.stream_form = "pairs", sw.stream_max = 2147483647 : i32, sw.task = "direct", sw.tile = 1024 : i32
// A list section: persistent, tasks t = program, program + programs, ... of list c.
// CHECK-LABEL: func.func @segmented_sum__list0_subwarp4(
// CHECK-SAME:    sw.list = 0 : i32
// CHECK:         %[[PID:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (i32) -> i64
// CHECK:         %[[NPROG:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (i32) -> i64
// CHECK:         "sw.for"(%[[PID]], %{{[0-9]+}}, %[[NPROG]]) ({
// CHECK-LABEL: func.func @segmented_sum__list8_warp1024(
// CHECK-SAME:    sw.program_threads = 32 : i32
// CHECK-LABEL: func.func @segmented_sum__list10_cta4096(
// CHECK-SAME:    sw.program_threads = 256 : i32
// CHECK-LABEL: func.func @segmented_sum__list11_stream2048(
// CHECK-LABEL: func.func @segmented_sum__split0(
// CHECK-SAME:    sw.policy = "split", sw.program_threads = 256 : i32
// CHECK-SAME:    sw.stage = 0 : i32, sw.task = "split"
// Chunk t of all split chunks; its segment by binary search over the chunk bases.
// CHECK:         "sw.for"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) ({
// CHECK:           "sw.for"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) ({
// The chunk's partial, a ticket; the last chunk merges the partials in order and stores.
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (!sw.ptr<f32>, f32, i1) -> ()
// CHECK-NEXT:      "sw.fence"() : () -> ()
// CHECK:           "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:           "sw.if"
// CHECK-NEXT:        "sw.fence"() : () -> ()
// CHECK:             "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<256x!sw.ptr<f32>>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
// CHECK:             "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NOT:     func.func @segmented_sum(

// After lower-simt, a one-stage program's sections and its split stage
// are one persistent kernel (a program of several stages links the lists
// of tasks whose threads hold up to 8 elements and the stream list into
// one kernel, the wider ones into another, and keeps its split kernels).
// LINKED-LABEL: func.func @segmented_sum__direct_subwarp4(
// LINKED-SAME:    simt.num_threads = 128 : i32
// LINKED-LABEL: func.func @segmented_sum__lists(
// LINKED-SAME:    sw.sections = 13 : i32, sw.split_stage = 0 : i32, sw.task = "lists"
// The sections one after another, each reading its own list's count: no
// guard reading every count first (it cost the kernel 14 registers and
// bimodal sums a sixth of their speed: variants-2026-12-02h-h200.txt).
// A section reads its count only when its list has room (capacity > 0:
// the launch's lengths can reach it), so an empty launch waits for the
// reachable lists' counts alone.
// LINKED-NOT:     "sw.splat"(%__scratch64)
// LINKED:         "sw.cmp"(%__cap0, %{{[0-9]+}}) {predicate = "gt"}
// LINKED-NEXT:    "sw.if"
// LINKED-NEXT:    "sw.constant"() {value = 1 : i64}
// LINKED-NEXT:    "sw.addptr"(%__scratch,
// LINKED:         "sw.for"
// LINKED:         "sw.cmp"(%__cap1, %{{[0-9]+}}) {predicate = "gt"}
// LINKED-NEXT:    "sw.if"
// LINKED-NEXT:    "sw.constant"() {value = 2 : i64}
// LINKED:         "sw.for"
// The split section reads its counter only when chunks have room.
// LINKED:         "sw.cmp"(%__partials_cap, %{{[0-9]+}}) {predicate = "gt"}
// LINKED-NEXT:    "sw.if"
// LINKED:         "sw.splat"(%__scratch64)
// LINKED-NOT:   func.func @segmented_sum__lists_wide(
// LINKED-NOT:   func.func @segmented_sum__list0
// LINKED-NOT:   func.func @segmented_sum__split0(
// LINKED-LABEL: func.func @segmented_softmax__lists(
// LINKED-LABEL: func.func @segmented_softmax__lists_wide(
// LINKED-LABEL: func.func @segmented_softmax__split0(
// LINKED-LABEL: func.func @segmented_softmax__split2(
func.func @segmented_sum(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %out_ptr: !sw.ptr<f32>) attributes {sw.stages = 1 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%x) {kind = "sum", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %t) {stage = 1 : i32} : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// Softmax on one tile reads its segment once: one load feeds the maximum,
// the sum of exponentials and the normalised store. Split segments are read
// twice: split0 runs the maximum and the sum of exp(x - maximum) in one
// pass (each lane keeps a running maximum and its sum, rescaled as the
// maximum grows; a -inf adds nothing), then the last chunk merges the
// chunks' maxima and their sums rescaled to the segment's maximum (NaN
// when that is -inf in a segment that is not empty, as the two stages
// give); split2 restores both merged results and stores.
// CHECK-LABEL: func.func @segmented_softmax__direct_subwarp4(
// CHECK:         "sw.if"
// CHECK:           "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<4x!sw.ptr<f32>>, tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:       "sw.load"
// CHECK:           "sw.reduce"(%{{[0-9]+}}) {kind = "max"}
// CHECK-NOT:       "sw.load"
// CHECK:           "sw.exp"
// CHECK:           "sw.reduce"(%{{[0-9]+}}) {kind = "sum"}
// CHECK-NOT:       "sw.load"
// CHECK:           "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<4x!sw.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> ()
// CHECK:         }, {
// A program of several stages streams on a warp: its streamer is the warp's.
// CHECK-NOT:     func.func @segmented_softmax__direct_subwarp64_stream(
// CHECK-NOT:     func.func @segmented_softmax__direct_warp256_stream(
// CHECK-LABEL: func.func @segmented_softmax__direct_warp128_stream(
// CHECK-SAME:    sw.stream_form = "pairs"
// CHECK-LABEL: func.func @segmented_softmax__direct_cta1024_stream(
// CHECK-SAME:    sw.stream_form = "pairs", sw.stream_max = 2147483647 : i32
// CHECK-LABEL: func.func @segmented_softmax__split0(
// CHECK:             "sw.maximum"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK:           "sw.reduce"(%{{[0-9]+}}#0) {kind = "max"} : (tensor<1024xf32>) -> f32
// CHECK:           "sw.exp"
// CHECK:           "sw.reduce"(%{{[0-9]+}}) {kind = "sum"} : (tensor<1024xf32>) -> f32
// CHECK:             %[[M:[0-9]+]] = "sw.reduce"(%{{[0-9]+}}) {kind = "max"} : (tensor<256xf32>) -> f32
// CHECK:             "sw.exp"
// CHECK:             %[[D:[0-9]+]] = "sw.reduce"(%{{[0-9]+}}) {kind = "sum"} : (tensor<256xf32>) -> f32
// CHECK-NEXT:        %[[LOW:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> f32
// CHECK-NEXT:        %[[NAN:[0-9]+]] = "sw.constant"() {value = 0x7FC00000 : f32} : () -> f32
// CHECK-NEXT:        %[[NONE:[0-9]+]] = "sw.cmp"(%[[M]], %[[LOW]]) {predicate = "eq"} : (f32, f32) -> i1
// CHECK-NEXT:        %[[ALL_LOW:[0-9]+]] = "sw.and"(%[[NONE]], %{{[0-9]+}}) : (i1, i1) -> i1
// CHECK-NEXT:        "sw.select"(%[[ALL_LOW]], %[[NAN]], %[[D]]) : (i1, f32, f32) -> f32
// CHECK-NOT:   func.func @segmented_softmax__split1(
// CHECK-LABEL: func.func @segmented_softmax__split2(
// CHECK:         "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
// CHECK-NEXT:    "sw.addptr"(%__merged1,
// CHECK-NEXT:    "sw.load"(%{{[0-9]+}}) : (!sw.ptr<f32>) -> f32
// The last stage only stores: no ticket for its chunks. Its CTAs end by
// counting themselves (header word 63), and the last one clears the split
// counter (task_kernels.c, emit_reset).
// CHECK-NOT:     "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:         "sw.barrier"() : () -> ()
// CHECK-NEXT:    "sw.fence"() : () -> ()
// CHECK-NEXT:    "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT:    "sw.constant"() {value = 63 : i64} : () -> i64
// CHECK-NEXT:    "sw.addptr"(%__scratch,
// CHECK-NEXT:    "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:           "sw.fence"() : () -> ()
// CHECK:           "sw.addptr"(%__scratch64,
// CHECK-NEXT:      "sw.store"(%{{[0-9]+}}, %{{[0-9]+}}) : (!sw.ptr<i64>, i64) -> ()
// CHECK:         "func.return"
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
