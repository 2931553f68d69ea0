// RUN: %swage-opt %s --passes=lower-segments-subwarp | FileCheck %s --check-prefix=SUBWARP
// RUN: %swage-opt %s --passes=lower-segments-warp | FileCheck %s --check-prefix=WARP
// RUN: %swage-opt %s --passes=lower-segments-cta | FileCheck %s --check-prefix=CTA
// RUN: %swage-opt %s --passes=lower-segments-split | FileCheck %s --check-prefix=SPLIT
// RUN: %swage-opt %s --passes=lower-segments-persistent | FileCheck %s --check-prefix=PERSISTENT
// RUN: %swage-opt %s --passes=lower-segments-split,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_80 > %t.ptx
// The forced schedules: every segment on one policy. Sub-warp, warp and CTA
// are direct kernels that stream what does not fit their tile (no lists,
// no split); split classifies every segment as split; persistent classifies
// every segment into the lists.

// SUBWARP:      func.func @segmented_max__direct_subwarp4(
// SUBWARP-SAME:   sw.overflow = "stream", sw.policy = "subwarp", sw.program_threads = 1 : i32
// SUBWARP:      func.func @segmented_max__direct_subwarp64(
// SUBWARP-SAME:   sw.program_threads = 16 : i32
// SUBWARP-NOT:  func.func @segmented_max__direct_warp
// SUBWARP-NOT:  func.func @segmented_max__list
// SUBWARP-NOT:  func.func @segmented_max__split

// WARP-NOT:     func.func @segmented_max__direct_subwarp
// WARP:         func.func @segmented_max__direct_warp128(
// WARP-SAME:      sw.overflow = "stream", sw.policy = "warp", sw.program_threads = 32 : i32
// WARP:         func.func @segmented_max__direct_warp1024(
// WARP-NOT:     func.func @segmented_max__direct_cta

// CTA takes auto's CTA streamers, streaming every segment: the narrow one
// (128 threads, asking for 16 resident CTAs: sw.sm_threads) and the wide.
// CTA:          func.func @segmented_max__direct_cta1024_stream(
// CTA-SAME:       sw.block_threads = 128 : i32, {{.*}} sw.overflow = "stream", sw.policy = "cta", sw.program_threads = 128 : i32
// CTA-SAME:       sw.sm_threads = 2048 : i32, sw.stream_form = "pairs"
// CTA:          func.func @segmented_max__direct_cta4096_stream(
// CTA-SAME:       sw.block_threads = 256 : i32, {{.*}} sw.overflow = "stream", sw.policy = "cta", sw.program_threads = 256 : i32
// CTA-NOT:        sw.sm_threads
// CTA-SAME:       sw.stream_form = "pairs"
// CTA-NOT:      func.func @segmented_max__list

// SPLIT:        func.func @segmented_max__classify(
// SPLIT-SAME:     sw.overflow = "lists", sw.policy = "classify"
// SPLIT-SAME:     sw.tile = 0 : i32
// SPLIT-NOT:    func.func @segmented_max__list
// SPLIT:        func.func @segmented_max__split0(

// PERSISTENT:   func.func @segmented_max__classify(
// PERSISTENT:   func.func @segmented_max__list0_subwarp4(
// PERSISTENT:   func.func @segmented_max__list11_stream2048(
// PERSISTENT:   func.func @segmented_max__split0(
func.func @segmented_max(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %out_ptr: !sw.ptr<f32>) attributes {sw.stages = 1 : i32} {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%values_ptr, %offsets_ptr, %sid) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
  %x = "sw.load_segment"(%seg) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
  %t = "sw.reduce"(%x) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
  %p = "sw.addptr"(%out_ptr, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %t) {stage = 1 : i32} : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
