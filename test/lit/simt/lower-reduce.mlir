// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt > %t.simt
// RUN: %swage-opt %t.simt --split-input-file > %t.again
// RUN: diff %t.simt %t.again
// sw.reduce becomes the four steps of docs/simt.md: simt.vreduce of the
// thread's slots, identity for replicated copies, a butterfly of
// simt.shfl_xor over the warp, and with W > 1 warps a pass through shared
// memory between two barriers (one partial a warp, combined by shuffles).

// W = 4 (1024 elements, 128 threads): f32 sum, no copies.
// CHECK-LABEL: func.func @sum_w4
// CHECK-SAME: attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 256 : i32}
// CHECK-NEXT: %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK:      %[[X:[0-9]+]] = "simt.load"
// CHECK-NEXT: %[[P0:[0-9]+]] = "simt.vreduce"(%[[X]]) {kind = "sum"} : (vector<8xf32>) -> f32
// CHECK-NEXT: %[[Q1:[0-9]+]] = "simt.shfl_xor"(%[[P0]]) {offset = 16 : i32} : (f32) -> f32
// CHECK-NEXT: %[[P1:[0-9]+]] = "sw.add"(%[[P0]], %[[Q1]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Q2:[0-9]+]] = "simt.shfl_xor"(%[[P1]]) {offset = 8 : i32} : (f32) -> f32
// CHECK-NEXT: %[[P2:[0-9]+]] = "sw.add"(%[[P1]], %[[Q2]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Q3:[0-9]+]] = "simt.shfl_xor"(%[[P2]]) {offset = 4 : i32} : (f32) -> f32
// CHECK-NEXT: %[[P3:[0-9]+]] = "sw.add"(%[[P2]], %[[Q3]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Q4:[0-9]+]] = "simt.shfl_xor"(%[[P3]]) {offset = 2 : i32} : (f32) -> f32
// CHECK-NEXT: %[[P4:[0-9]+]] = "sw.add"(%[[P3]], %[[Q4]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[Q5:[0-9]+]] = "simt.shfl_xor"(%[[P4]]) {offset = 1 : i32} : (f32) -> f32
// CHECK-NEXT: %[[P5:[0-9]+]] = "sw.add"(%[[P4]], %[[Q5]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[C31:[0-9]+]] = "sw.constant"() {value = 31 : i32} : () -> i32
// CHECK-NEXT: %[[LANE:[0-9]+]] = "sw.and"(%[[TID]], %[[C31]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[C5:[0-9]+]] = "sw.constant"() {value = 5 : i32} : () -> i32
// CHECK-NEXT: %[[WARP:[0-9]+]] = "sw.shr"(%[[TID]], %[[C5]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[C0:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: %[[LEAD:[0-9]+]] = "sw.cmp"(%[[LANE]], %[[C0]]) {predicate = "eq"} : (i32, i32) -> i1
// CHECK-NEXT: "simt.smem_store"(%[[WARP]], %[[P5]], %[[LEAD]]) {offset = 0 : i32} : (i32, f32, i1) -> ()
// CHECK-NEXT: "simt.barrier"() : () -> ()
// Every warp loads partial (lane mod W) and combines the W partials by a
// butterfly of log2(W) shuffles.
// CHECK-NEXT: %[[WM:[0-9]+]] = "sw.constant"() {value = 3 : i32} : () -> i32
// CHECK-NEXT: %[[IDX:[0-9]+]] = "sw.and"(%[[LANE]], %[[WM]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[S:[0-9]+]] = "simt.smem_load"(%[[IDX]]) {offset = 0 : i32} : (i32) -> f32
// CHECK-NEXT: %[[R1:[0-9]+]] = "simt.shfl_xor"(%[[S]]) {offset = 2 : i32} : (f32) -> f32
// CHECK-NEXT: %[[T1:[0-9]+]] = "sw.add"(%[[S]], %[[R1]]) : (f32, f32) -> f32
// CHECK-NEXT: %[[R2:[0-9]+]] = "simt.shfl_xor"(%[[T1]]) {offset = 1 : i32} : (f32) -> f32
// CHECK-NEXT: %[[T3:[0-9]+]] = "sw.add"(%[[T1]], %[[R2]]) : (f32, f32) -> f32
// The barrier that would free the scratch again goes: nothing after it uses
// shared memory (docs/simt.md, "Trailing barriers").
// The scalar result is stored by thread 0 (docs/simt.md, "Scalar memory").
// CHECK-NEXT: %[[Z:[0-9]+]] = "sw.constant"() {value = 0 : i32} : () -> i32
// CHECK-NEXT: %[[FIRST:[0-9]+]] = "sw.cmp"(%[[TID]], %[[Z]]) {predicate = "eq"} : (i32, i32) -> i1
// CHECK-NEXT: %[[PV:[0-9]+]] = "sw.splat"(%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>
// CHECK-NEXT: %[[VV:[0-9]+]] = "sw.splat"(%[[T3]]) : (f32) -> vector<1xf32>
// CHECK-NEXT: %[[MV:[0-9]+]] = "sw.splat"(%[[FIRST]]) : (i1) -> vector<1xi1>
// CHECK-NEXT: "simt.store"(%[[PV]], %[[VV]], %[[MV]]) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>, vector<1xi1>) -> ()
module {
  func.func @sum_w4(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
    %4 = "sw.reduce"(%3) {kind = "sum"} : (tensor<1024xf32>) -> f32
    "sw.store"(%out, %4) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// W = 1 (128 elements, 32 threads): i32 max, shuffles only, no shared
// memory, no barrier.
// CHECK-LABEL: func.func @max_w1
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK:      %[[P0:[0-9]+]] = "simt.vreduce"(%{{[0-9]+}}) {kind = "max"} : (vector<4xi32>) -> i32
// CHECK-NEXT: %[[Q1:[0-9]+]] = "simt.shfl_xor"(%[[P0]]) {offset = 16 : i32} : (i32) -> i32
// CHECK-NEXT: %[[P1:[0-9]+]] = "sw.maximum"(%[[P0]], %[[Q1]]) : (i32, i32) -> i32
// CHECK:      %[[Q5:[0-9]+]] = "simt.shfl_xor"(%{{[0-9]+}}) {offset = 1 : i32} : (i32) -> i32
// CHECK-NEXT: %[[P5:[0-9]+]] = "sw.maximum"(%{{[0-9]+}}, %[[Q5]]) : (i32, i32) -> i32
// CHECK-NOT:  simt.smem
// CHECK-NOT:  simt.barrier
// CHECK:      "sw.splat"(%[[P5]]) : (i32) -> vector<1xi32>
// CHECK-NOT:  simt.smem
// CHECK-NOT:  simt.barrier
// CHECK:      "func.return"
module {
  func.func @max_w1(%x: !sw.ptr<i32>, %out: !sw.ptr<i32>) {
    %0 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<i32>) -> tensor<128x!sw.ptr<i32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<128x!sw.ptr<i32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<i32>>
    %3 = "sw.load"(%2) : (tensor<128x!sw.ptr<i32>>) -> tensor<128xi32>
    %4 = "sw.reduce"(%3) {kind = "max"} : (tensor<128xi32>) -> i32
    "sw.store"(%out, %4) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// f16 sums accumulate in f32: the vector is cast first and the result cast
// back. A 64-element tile in a 128-thread CTA (maxN = 1024) has copies:
// threads >= 64 contribute the identity (here -inf for a max).
// CHECK-LABEL: func.func @narrow_and_replicated
// CHECK-SAME: attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 256 : i32}
// CHECK-NEXT: %[[TID:[0-9]+]] = "simt.thread_id"() : () -> i32
// CHECK:      %[[WIDE:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (vector<8xf16>) -> vector<8xf32>
// CHECK-NEXT: "simt.vreduce"(%[[WIDE]]) {kind = "sum"} : (vector<8xf32>) -> f32
// CHECK:      "simt.shfl_xor"(%{{[0-9]+}}) {offset = 16 : i32} : (f32) -> f32
// CHECK:      "simt.barrier"
// CHECK:      "simt.barrier"
// CHECK-NEXT: %[[SUM:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (f32) -> f16
// CHECK:      %[[SMALL:[0-9]+]] = "simt.vreduce"(%{{[0-9]+}}) {kind = "max"} : (vector<1xf32>) -> f32
// CHECK-NEXT: %[[N64:[0-9]+]] = "sw.constant"() {value = 64 : i32} : () -> i32
// CHECK-NEXT: %[[OWN:[0-9]+]] = "sw.cmp"(%[[TID]], %[[N64]]) {predicate = "lt"} : (i32, i32) -> i1
// CHECK-NEXT: %[[NINF:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> f32
// CHECK-NEXT: %[[P:[0-9]+]] = "sw.select"(%[[OWN]], %[[SMALL]], %[[NINF]]) : (i1, f32, f32) -> f32
// CHECK-NEXT: "simt.shfl_xor"(%[[P]]) {offset = 16 : i32} : (f32) -> f32
module {
  func.func @narrow_and_replicated(%h: !sw.ptr<f16>, %s: !sw.ptr<f32>, %out: !sw.ptr<f16>, %out2: !sw.ptr<f32>) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%h) : (!sw.ptr<f16>) -> tensor<1024x!sw.ptr<f16>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f16>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f16>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f16>>) -> tensor<1024xf16>
    %4 = "sw.reduce"(%3) {kind = "sum"} : (tensor<1024xf16>) -> f16
    "sw.store"(%out, %4) : (!sw.ptr<f16>, f16) -> ()
    %5 = "sw.arange"() {end = 64 : i32, start = 0 : i32} : () -> tensor<64xi32>
    %6 = "sw.splat"(%s) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
    %7 = "sw.addptr"(%6, %5) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
    %8 = "sw.load"(%7) : (tensor<64x!sw.ptr<f32>>) -> tensor<64xf32>
    %9 = "sw.reduce"(%8) {kind = "max"} : (tensor<64xf32>) -> f32
    "sw.store"(%out2, %9) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Narrow integers reduce in i32 and wrap back on the final cast; an i1 sum
// keeps bit 0 (i1 addition is exclusive or).
// CHECK-LABEL: func.func @narrow_ints
// CHECK:      "sw.cast"(%{{[0-9]+}}) : (vector<4xi8>) -> vector<4xi32>
// CHECK-NEXT: "simt.vreduce"(%{{[0-9]+}}) {kind = "prod"} : (vector<4xi32>) -> i32
// CHECK:      "simt.shfl_xor"(%{{[0-9]+}}) {offset = 1 : i32} : (i32) -> i32
// CHECK-NEXT: %[[P8:[0-9]+]] = "sw.mul"
// CHECK-NEXT: "sw.cast"(%[[P8]]) : (i32) -> i8
// CHECK:      "sw.cast"(%{{[0-9]+}}) : (vector<4xi1>) -> vector<4xi32>
// CHECK-NEXT: "simt.vreduce"(%{{[0-9]+}}) {kind = "sum"} : (vector<4xi32>) -> i32
// CHECK:      "simt.shfl_xor"(%{{[0-9]+}}) {offset = 1 : i32} : (i32) -> i32
// CHECK-NEXT: %[[P1:[0-9]+]] = "sw.add"
// CHECK-NEXT: %[[ONE:[0-9]+]] = "sw.constant"() {value = 1 : i32} : () -> i32
// CHECK-NEXT: %[[BIT:[0-9]+]] = "sw.and"(%[[P1]], %[[ONE]]) : (i32, i32) -> i32
// CHECK-NEXT: "sw.cast"(%[[BIT]]) : (i32) -> i1
module {
  func.func @narrow_ints(%b: !sw.ptr<i8>, %out: !sw.ptr<i8>, %bits: !sw.ptr<i1>, %out2: !sw.ptr<i1>) {
    %0 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %1 = "sw.splat"(%b) : (!sw.ptr<i8>) -> tensor<128x!sw.ptr<i8>>
    %2 = "sw.addptr"(%1, %0) : (tensor<128x!sw.ptr<i8>>, tensor<128xi32>) -> tensor<128x!sw.ptr<i8>>
    %3 = "sw.load"(%2) : (tensor<128x!sw.ptr<i8>>) -> tensor<128xi8>
    %4 = "sw.reduce"(%3) {kind = "prod"} : (tensor<128xi8>) -> i8
    "sw.store"(%out, %4) : (!sw.ptr<i8>, i8) -> ()
    %5 = "sw.splat"(%bits) : (!sw.ptr<i1>) -> tensor<128x!sw.ptr<i1>>
    %6 = "sw.addptr"(%5, %0) : (tensor<128x!sw.ptr<i1>>, tensor<128xi32>) -> tensor<128x!sw.ptr<i1>>
    %7 = "sw.load"(%6) : (tensor<128x!sw.ptr<i1>>) -> tensor<128xi1>
    %8 = "sw.reduce"(%7) {kind = "sum"} : (tensor<128xi1>) -> i1
    "sw.store"(%out2, %8) : (!sw.ptr<i1>, i1) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// W = 32 (a CTA of 1024 threads): lane l loads partial l itself (no mask)
// and five shuffles combine the 32 partials.
// CHECK-LABEL: func.func @max_w32
// CHECK-SAME: simt.num_threads = 1024 : i32
// CHECK:      %[[LANE:[0-9]+]] = "sw.and"(%{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32) -> i32
// CHECK:      "simt.smem_store"
// CHECK-NEXT: "simt.barrier"() : () -> ()
// CHECK-NEXT: %[[S:[0-9]+]] = "simt.smem_load"(%[[LANE]]) {offset = 0 : i32} : (i32) -> i32
// CHECK-NEXT: %[[R:[0-9]+]] = "simt.shfl_xor"(%[[S]]) {offset = 16 : i32} : (i32) -> i32
// CHECK-NEXT: "sw.maximum"(%[[S]], %[[R]]) : (i32, i32) -> i32
// CHECK-COUNT-4: "simt.shfl_xor"
// CHECK-NEXT: %[[M:[0-9]+]] = "sw.maximum"
// CHECK-NOT:  "simt.barrier"
// CHECK-NOT:  "simt.smem_load"
module {
  func.func @max_w32(%x: !sw.ptr<i32>, %out: !sw.ptr<i32>) attributes {sw.block_threads = 1024 : i32} {
    %0 = "sw.arange"() {end = 2048 : i32, start = 0 : i32} : () -> tensor<2048xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<i32>) -> tensor<2048x!sw.ptr<i32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<2048x!sw.ptr<i32>>, tensor<2048xi32>) -> tensor<2048x!sw.ptr<i32>>
    %3 = "sw.load"(%2) : (tensor<2048x!sw.ptr<i32>>) -> tensor<2048xi32>
    %4 = "sw.reduce"(%3) {kind = "max"} : (tensor<2048xi32>) -> i32
    "sw.store"(%out, %4) : (!sw.ptr<i32>, i32) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// Trailing barriers: of two reductions in a row only the second's barrier
// goes (the first's keeps the scratch from being overwritten while it is
// read); before a loop that uses shared memory every barrier stays, and so
// does the reduction's own in the loop (the next iteration reuses the
// scratch); the kernel's own barrier (sl.debug_barrier) stays, with every
// barrier before it.
// CHECK-LABEL: func.func @two
// CHECK:       "simt.smem_store"
// CHECK-NEXT:  "simt.barrier"
// CHECK:       "simt.smem_load"
// CHECK:       "simt.barrier"
// CHECK:       "simt.smem_store"
// CHECK-NEXT:  "simt.barrier"
// CHECK:       "simt.smem_load"
// CHECK-NOT:   "simt.barrier"
// CHECK:       "func.return"
// CHECK-LABEL: func.func @then_loop
// CHECK:       "simt.smem_load"
// CHECK:       "simt.barrier"
// CHECK:       "sw.for"
// CHECK:       "simt.smem_load"
// CHECK:       "simt.barrier"
// CHECK:       "sw.yield"
// CHECK-NOT:   "simt.barrier"
// CHECK:       "func.return"
// CHECK-LABEL: func.func @own_barrier
// CHECK:       "simt.smem_load"
// CHECK:       "simt.barrier"
// CHECK:       "simt.store"
// CHECK-NEXT:  "simt.barrier"
// CHECK-NEXT:  "func.return"
// A task kernel of the plan keeps them all (plan_link may run its body in
// a loop, or put another after it).
// CHECK-LABEL: func.func @task
// CHECK:       "simt.smem_load"
// CHECK:       "simt.barrier"
// CHECK:       "func.return"
module {
  func.func @two(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
    %4 = "sw.reduce"(%3) {kind = "max"} : (tensor<1024xf32>) -> f32
    %5 = "sw.reduce"(%3) {kind = "sum"} : (tensor<1024xf32>) -> f32
    %6 = "sw.add"(%4, %5) : (f32, f32) -> f32
    "sw.store"(%out, %6) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
  func.func @then_loop(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
    %6 = "sw.reduce"(%3) {kind = "max"} : (tensor<1024xf32>) -> f32
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %s = "sw.for"(%c0, %n, %c1, %6) ({
    ^bb0(%i: i32, %a: f32):
      %r = "sw.reduce"(%3) {kind = "min"} : (tensor<1024xf32>) -> f32
      %b = "sw.add"(%a, %r) : (f32, f32) -> f32
      "sw.yield"(%b) : (f32) -> ()
    }) : (i32, i32, i32, f32) -> f32
    "sw.store"(%out, %s) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
  func.func @own_barrier(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
    %4 = "sw.reduce"(%3) {kind = "sum"} : (tensor<1024xf32>) -> f32
    "sw.store"(%out, %4) : (!sw.ptr<f32>, f32) -> ()
    "sw.barrier"() : () -> ()
    "func.return"() : () -> ()
  }
  func.func @task(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>) attributes {sw.task = "cta"} {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %1 = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %2 = "sw.addptr"(%1, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %3 = "sw.load"(%2) : (tensor<1024x!sw.ptr<f32>>) -> tensor<1024xf32>
    %4 = "sw.reduce"(%3) {kind = "sum"} : (tensor<1024xf32>) -> f32
    "sw.store"(%out, %4) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}
