// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// Programs of fewer threads than the CTA (sw.program_threads = G with
// sw.block_threads = T): program p is threads [G*(p mod T/G), ...) of CTA
// p / (T/G); its tiles are spread over its G threads, its reductions
// shuffle within the group only (a width-G member mask, so other groups of
// the warp may be elsewhere), its scalar stores and atomics are made by
// the group's first thread, and an atomic's old value is broadcast to
// the group.

// CHECK-LABEL: func.func @groups(
// CHECK-SAME:    simt.num_threads = 128 : i32
// CHECK-NEXT:    %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK-NEXT:    %[[CTA:[0-9]+]] = "simt.block_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %[[PER:[0-9]+]] = "sw.constant"() {value = 16 : i32} : () -> i32
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = "sw.mul"(%[[CTA]], %[[PER]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[SHIFT:[0-9]+]] = "sw.constant"() {value = 3 : i32} : () -> i32
// CHECK-NEXT:    %[[GROUP:[0-9]+]] = "sw.shr"(%[[TID]], %[[SHIFT]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[PID:[0-9]+]] = "sw.add"(%[[FIRST]], %[[GROUP]]) : (i32, i32) -> i32
// CHECK-NEXT:    %[[GRID:[0-9]+]] = "simt.grid_dim"() {axis = 0 : i32} : () -> i32
// CHECK:         "sw.mul"(%[[GRID]], %{{[0-9]+}}) : (i32, i32) -> i32
// 32 elements over 8 threads: 4 slots each.
// CHECK:         "simt.tile_index"() {len = 32 : i32, start = 0 : i32} : () -> vector<4xi32>
// CHECK:         "simt.shfl_xor"(%{{[0-9]+}}) {offset = 4 : i32, width = 8 : i32} : (f32) -> f32
// CHECK:         "simt.shfl_xor"(%{{[0-9]+}}) {offset = 2 : i32, width = 8 : i32} : (f32) -> f32
// CHECK:         "simt.shfl_xor"(%{{[0-9]+}}) {offset = 1 : i32, width = 8 : i32} : (f32) -> f32
// CHECK-NOT:     "simt.shfl_xor"
// CHECK:         %[[LANE:[0-9]+]] = "sw.and"(%[[TID]], %{{[0-9]+}}) : (i32, i32) -> i32
// CHECK-NEXT:    %[[LEADER:[0-9]+]] = "sw.cmp"(%[[LANE]], %{{[0-9]+}}) {predicate = "eq"} : (i32, i32) -> i1
// CHECK:         %[[OLD:[0-9]+]] = "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (vector<1x!sw.ptr<i32>>, vector<1xi32>, vector<1xi1>) -> vector<1xi32>
// CHECK-NEXT:    %[[SLOT:[0-9]+]] = "simt.vreduce"(%[[OLD]]) {kind = "max"} : (vector<1xi32>) -> i32
// CHECK-NEXT:    "simt.shfl_idx"(%[[SLOT]]) {lane = 0 : i32, width = 8 : i32} : (i32) -> i32
// CHECK-NEXT:    "simt.fence"() : () -> ()
// CHECK:         "simt.store"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> ()

// PTX:         mov.u32 %r{{[0-9]+}}, %laneid;
// PTX:         shfl.sync.bfly.b32 %f{{[0-9]+}}, %f{{[0-9]+}}, 4, 0x181f, %r{{[0-9]+}};
// PTX:         atom.relaxed.gpu.global.add.u32
// PTX:         shfl.sync.idx.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0, 0x181f, %r{{[0-9]+}};
// PTX:         fence.acq_rel.gpu;
func.func @groups(%x: !sw.ptr<f32>, %counter: !sw.ptr<i32>, %out: !sw.ptr<f32>) attributes {sw.block_threads = 128 : i32, sw.program_threads = 8 : i32} {
  %pid = "sw.program_id"() {axis = 0 : i32} : () -> i32
  %n = "sw.num_programs"() {axis = 0 : i32} : () -> i32
  %idx = "sw.arange"() {start = 0 : i32, end = 32 : i32} : () -> tensor<32xi32>
  %c32 = "sw.constant"() {value = 32 : i32} : () -> i32
  %base = "sw.mul"(%pid, %c32) : (i32, i32) -> i32
  %bs = "sw.splat"(%base) : (i32) -> tensor<32xi32>
  %offs = "sw.add"(%bs, %idx) : (tensor<32xi32>, tensor<32xi32>) -> tensor<32xi32>
  %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<32x!sw.ptr<f32>>
  %xp = "sw.addptr"(%xs, %offs) : (tensor<32x!sw.ptr<f32>>, tensor<32xi32>) -> tensor<32x!sw.ptr<f32>>
  %v = "sw.load"(%xp) : (tensor<32x!sw.ptr<f32>>) -> tensor<32xf32>
  %t = "sw.reduce"(%v) {kind = "sum"} : (tensor<32xf32>) -> f32
  %one = "sw.constant"() {value = 1 : i32} : () -> i32
  %slot = "sw.atomic_rmw"(%counter, %one) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
  "sw.fence"() : () -> ()
  %op = "sw.addptr"(%out, %slot) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%op, %t) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// A program of the whole CTA: its atomic's old value reaches every warp
// through shared memory, after a barrier (the second, which would free the
// scratch again, goes: nothing after it uses shared memory).
// CHECK-LABEL: func.func @cta(
// CHECK:         "simt.atomic_rmw"
// CHECK:         "simt.smem_store"
// CHECK-NEXT:    "simt.barrier"() : () -> ()
// CHECK:         "simt.smem_load"
// CHECK-NOT:     "simt.barrier"
// PTX-LABEL:   .entry cta(
// PTX:         atom.relaxed.gpu.global.add.u64
// PTX:         bar.sync 0;
func.func @cta(%counter: !sw.ptr<i64>, %out: !sw.ptr<i64>) attributes {sw.block_threads = 256 : i32, sw.program_threads = 256 : i32} {
  %one = "sw.constant"() {value = 1 : i64} : () -> i64
  %slot = "sw.atomic_rmw"(%counter, %one) {kind = "add", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i64>, i64) -> i64
  %op = "sw.addptr"(%out, %slot) : (!sw.ptr<i64>, i64) -> !sw.ptr<i64>
  "sw.store"(%op, %slot) : (!sw.ptr<i64>, i64) -> ()
  "func.return"() : () -> ()
}
