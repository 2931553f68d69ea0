// RUN: %swage-opt %s --passes=lower-segments | FileCheck %s
// RUN: %swage-opt %s --passes=lower-segments,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce | FileCheck %s --check-prefix=LINKED
// RUN: %swage-opt %s --passes=lower-segments-persistent,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce | FileCheck %s --check-prefix=PERSISTENT
// RUN: %swage-opt %s --passes=lower-segments-split,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce | FileCheck %s --check-prefix=SPLIT
// RUN: %swage-opt %s --passes=lower-segments,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_90 > %t.ptx
// RUN: %swage-opt %s --passes=lower-segments,fold,cse,fold,dce | FileCheck %s --check-prefix=WORK
// A one-stage program's split stage is the last section of its lists
// kernel (docs/schedules.md): one persistent launch runs every list and
// the split chunks. The planner marks the split kernel with sw.link =
// "lists"; plan-link appends it after the list sections, and the linked
// kernel says it runs the split list too (sw.lists ends with it, list 12
// after 11 tiles and the stream list; sw.split_stage = 0). A program of
// several stages keeps one split kernel per stage (each merge must finish
// before the next stage reads it: a new launch), and schedule "split" has
// no list sections to join.

// CHECK-LABEL: func.func @segmented_sum__split0(
// CHECK-SAME:    sw.link = "lists"
// CHECK-SAME:    sw.stage = 0 : i32, sw.task = "split"
// CHECK-LABEL: func.func @sum_scaled__split0(
// CHECK-SAME:    sw.block_threads = 256 : i32, sw.list_tiles =
// CHECK-LABEL: func.func @sum_scaled__split1(
// CHECK-SAME:    sw.block_threads = 256 : i32, sw.list_tiles =

// A direct task that lists its segment raises the lists kernel's work
// word (header word 61) when it is the first of its list: the split
// list's slot 0, or count 0 of the list it appends to. One store a list,
// not one an append: those all hit one address.
// WORK-LABEL: func.func @segmented_sum__direct_warp128(
// WORK:         %[[PACKED:[0-9]+]] = "sw.atomic_rmw"(%__scratch64, %{{[0-9]+}}) {kind = "add"
// WORK-NEXT:    %[[SLOT:[0-9]+]] = "sw.shr"(%[[PACKED]],
// WORK:         %[[FIRST_SPLIT:[0-9]+]] = "sw.cmp"(%[[SLOT]], %[[ZERO:[0-9]+]]) {predicate = "eq"}
// WORK:         %[[WORD:[0-9]+]] = "sw.addptr"(%__scratch, %{{[0-9]+}})
// WORK-NEXT:    "sw.store"(%[[WORD]], %{{[0-9]+}}, %[[FIRST_SPLIT]]) : (!sw.ptr<i32>, i32, i1)
// WORK:         %[[COUNT:[0-9]+]] = "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// WORK-NEXT:    %[[AT:[0-9]+]] = "sw.cast"(%[[COUNT]])
// WORK-NEXT:    %[[W61B:[0-9]+]] = "sw.constant"() {value = 61 : i64}
// WORK-NEXT:    %[[FIRST:[0-9]+]] = "sw.cmp"(%[[AT]], %[[ZERO]]) {predicate = "eq"}
// WORK-NEXT:    %[[WORD2:[0-9]+]] = "sw.addptr"(%__scratch, %[[W61B]])
// WORK-NEXT:    "sw.store"(%[[WORD2]], %{{[0-9]+}}, %[[FIRST]]) : (!sw.ptr<i32>, i32, i1)

// The list sections (the stream list's last), then the split stage: its
// chunk count from the split counter, the chunk's segment by binary
// search over the chunk bases, the ticket of the merge.
// LINKED-LABEL: func.func @segmented_sum__lists(
// LINKED-SAME:    simt.num_threads = 256 : i32, simt.smem_bytes = 256 : i32
// LINKED-SAME:    sw.lists = "0,1,2,3,4,5,6,7,8,9,10,11,12", sw.sections = 13 : i32, sw.split_stage = 0 : i32, sw.task = "lists"
// Nothing runs unless the kernel's work word (header word 61; 62 for
// lists_wide) is raised: the first append to one of its lists raises it.
// LINKED-NEXT:    %[[WORD:[0-9]+]] = "sw.constant"() {value = 61 : i64}
// LINKED-NEXT:    %[[AT:[0-9]+]] = "sw.addptr"(%__scratch, %[[WORD]])
// LINKED-NEXT:    %[[PTRS:[0-9]+]] = "sw.splat"(%[[AT]])
// LINKED-NEXT:    %[[SLOT:[0-9]+]] = "simt.load"(%[[PTRS]])
// LINKED-NEXT:    %[[RAISED:[0-9]+]] = "simt.vreduce"(%[[SLOT]])
// LINKED-NEXT:    %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0 : i32}
// LINKED-NEXT:    %[[GO:[0-9]+]] = "sw.cmp"(%[[RAISED]], %[[ZERO]]) {predicate = "ne"}
// LINKED-NEXT:    "sw.if"(%[[GO]])
// LINKED-NOT:     "sw.splat"(%__scratch64)
// LINKED:         "sw.for"
// LINKED:         "sw.minimum"(%{{[0-9]+}}, %__cap11) : (i64, i64) -> i64
// LINKED:         "sw.minimum"(%{{[0-9]+}}, %__cap12) : (i64, i64) -> i64
// LINKED:         "sw.addptr"(%__chunk_bases,
// LINKED:         "simt.atomic_rmw"({{.*}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (vector<1x!sw.ptr<i32>>, vector<1xi32>, vector<1xi1>) -> vector<1xi32>
// LINKED:         "func.return"
// LINKED-NOT:   func.func @segmented_sum__split0(
// LINKED-NOT:   func.func @segmented_sum__lists_wide(
// Two stages: the lists as before (no split list), split0 and split1 apart.
// LINKED-LABEL: func.func @sum_scaled__lists(
// LINKED-SAME:    sw.lists = "0,1,2,3,4,5,6,8,10", sw.sections = 9 : i32, sw.task = "lists"
// LINKED-NOT:     %__scratch64)
// LINKED-NOT:     "sw.addptr"(%__chunk_bases,
// LINKED-LABEL: func.func @sum_scaled__lists_wide(
// LINKED-SAME:    sw.lists = "7,9", sw.sections = 2 : i32, sw.task = "lists"
// LINKED-NEXT:    "sw.constant"() {value = 62 : i64}
// LINKED-NOT:     "sw.addptr"(%__chunk_bases,
// LINKED-LABEL: func.func @sum_scaled__split0(
// LINKED-SAME:    sw.stage = 0 : i32, sw.task = "split"
// LINKED-LABEL: func.func @sum_scaled__split1(
// LINKED-SAME:    sw.stage = 1 : i32, sw.task = "split"

// The persistent schedule: the same.
// PERSISTENT-LABEL: func.func @segmented_sum__classify(
// PERSISTENT-LABEL: func.func @segmented_sum__lists(
// PERSISTENT-SAME:    sw.lists = "0,1,2,3,4,5,6,7,8,9,10,11,12", sw.sections = 13 : i32, sw.split_stage = 0 : i32, sw.task = "lists"
// PERSISTENT:         "sw.addptr"(%__chunk_bases,
// PERSISTENT-NOT:   func.func @segmented_sum__split0(
// PERSISTENT-LABEL: func.func @sum_scaled__lists(
// PERSISTENT-NOT:     sw.split_stage
// PERSISTENT-LABEL: func.func @sum_scaled__split0(
// PERSISTENT-LABEL: func.func @sum_scaled__split1(

// Schedule split: no lists, the split kernels as they are.
// SPLIT-NOT:     func.func @segmented_sum__lists(
// SPLIT-LABEL:   func.func @segmented_sum__split0(
// SPLIT-SAME:      sw.block_threads = 256 : i32, sw.list_tiles =
// SPLIT-SAME:      sw.stage = 0 : i32, sw.task = "split"
// SPLIT-LABEL:   func.func @sum_scaled__split0(
// SPLIT-LABEL:   func.func @sum_scaled__split1(
func.func @segmented_sum(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %out_ptr: !sw.ptr<f32>) attributes {sw.stages = 1 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%x) {kind = "sum", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %t) {stage = 1 : i32} : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// The sum of x times the segment's sum: two dependent reductions.
func.func @sum_scaled(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %out_ptr: !sw.ptr<f32>) attributes {sw.stages = 2 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) {stage = 0 : i32} : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %s = "sw.reduce"(%x) {kind = "sum", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %ss = "sw.splat"(%s) {stage = 1 : i32} : (f32) -> tensor<?xf32>
  %y = "sw.mul"(%x, %ss) {stage = 1 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %t = "sw.reduce"(%y) {kind = "sum", stage = 1 : i32} : (tensor<?xf32>) -> f32
  "sw.store"(%p, %t) {stage = 2 : i32} : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
