// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt > %t.simt
// RUN: %swage-opt %t.simt --split-input-file > %t.again
// RUN: diff %t.simt %t.again
// Control flow stays on uniform scalars; tiles it carries (sw.for
// arguments and results, sw.if results) become vectors, and the ops inside
// regions are lowered like any other. Grid queries become simt.block_id /
// simt.grid_dim.

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32}
// CHECK:      %[[PID:[0-9]+]] = "simt.block_id"() {axis = 1 : i32} : () -> i32
// CHECK-NEXT: %[[NP:[0-9]+]] = "simt.grid_dim"() {axis = 2 : i32} : () -> i32
// CHECK-NEXT: %[[INIT:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> vector<4xf32>
// CHECK:      %[[ACC:[0-9]+]] = "sw.for"(%{{[0-9]+}}, %n, %{{[0-9]+}}, %[[INIT]]) ({
// CHECK-NEXT: ^bb0(%[[I:[0-9]+]]: i32, %[[A:[0-9]+]]: vector<4xf32>):
// CHECK-NEXT:   %[[IDX:[0-9]+]] = "simt.tile_index"() {len = 128 : i32, start = 0 : i32} : () -> vector<4xi32>
// CHECK:        %[[X:[0-9]+]] = "simt.load"(%{{[0-9]+}}, %{{[0-9]+}}, %[[INIT]]) {vec = 4 : i32, vec_mask = "last"} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:   %[[NEXT:[0-9]+]] = "sw.add"(%[[A]], %[[X]]) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:   "sw.yield"(%[[NEXT]]) : (vector<4xf32>) -> ()
// CHECK-NEXT: }) : (i32, i32, i32, vector<4xf32>) -> vector<4xf32>
// CHECK:      %[[R:[0-9]+]] = "sw.if"(%{{[0-9]+}}) ({
// CHECK-NEXT:   "sw.yield"(%[[ACC]]) : (vector<4xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT:   "sw.yield"(%[[INIT]]) : (vector<4xf32>) -> ()
// CHECK-NEXT: }) : (i1) -> vector<4xf32>
// CHECK:      "simt.store"(%{{[0-9]+}}, %[[R]]) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xf32>) -> ()
module {
  func.func @accumulate(%x_ptr: !sw.ptr<f32>, %out_ptr: !sw.ptr<f32>, %n: i32) {
    %pid = "sw.program_id"() {axis = 1 : i32} : () -> i32
    %np = "sw.num_programs"() {axis = 2 : i32} : () -> i32
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> tensor<128xf32>
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c128 = "sw.constant"() {value = 128 : i32} : () -> i32
    %acc = "sw.for"(%c0, %n, %c128, %zero) ({
    ^bb0(%i: i32, %a: tensor<128xf32>):
      %r = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
      %is = "sw.splat"(%i) : (i32) -> tensor<128xi32>
      %offs = "sw.add"(%is, %r) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>
      %ns = "sw.splat"(%n) : (i32) -> tensor<128xi32>
      %m = "sw.cmp"(%offs, %ns) {predicate = "lt"} : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi1>
      %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
      %xp = "sw.addptr"(%xs, %offs) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
      %x = "sw.load"(%xp, %m, %zero) : (tensor<128x!sw.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
      %next = "sw.add"(%a, %x) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
      "sw.yield"(%next) : (tensor<128xf32>) -> ()
    }) : (i32, i32, i32, tensor<128xf32>) -> tensor<128xf32>
    %first = "sw.cmp"(%pid, %np) {predicate = "lt"} : (i32, i32) -> i1
    %res = "sw.if"(%first) ({
      "sw.yield"(%acc) : (tensor<128xf32>) -> ()
    }, {
      "sw.yield"(%zero) : (tensor<128xf32>) -> ()
    }) : (i1) -> tensor<128xf32>
    %r2 = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %os = "sw.splat"(%out_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %r2) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    "sw.store"(%op, %res) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>) -> ()
    "func.return"() : () -> ()
  }
}

// -----

// A reduction inside a loop body: the barriers and shared memory sit in the
// body, reached by every thread (the trip count is uniform).
// CHECK-LABEL: func.func @reduce_in_loop
// CHECK-SAME: attributes {simt.num_threads = 64 : i32, simt.smem_bytes = 256 : i32}
// CHECK:      "sw.for"
// CHECK-NEXT: ^bb0(%{{[0-9]+}}: i32, %[[T:[0-9]+]]: f32):
// CHECK:        "simt.vreduce"(%{{[0-9]+}}) {kind = "min"} : (vector<4xf32>) -> f32
// CHECK:        "simt.smem_store"
// CHECK-NEXT:   "simt.barrier"() : () -> ()
// CHECK:        %[[M:[0-9]+]] = "sw.minimum"
// CHECK-NEXT:   "simt.barrier"() : () -> ()
// CHECK-NEXT:   %[[NEXT:[0-9]+]] = "sw.add"(%[[T]], %[[M]]) : (f32, f32) -> f32
// CHECK-NEXT:   "sw.yield"(%[[NEXT]]) : (f32) -> ()
module {
  func.func @reduce_in_loop(%x_ptr: !sw.ptr<f32>, %n: i32) {
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %z = "sw.constant"() {value = 0.0 : f32} : () -> f32
    %t = "sw.for"(%c0, %n, %c1, %z) ({
    ^bb0(%i: i32, %acc: f32):
      %r = "sw.arange"() {end = 256 : i32, start = 0 : i32} : () -> tensor<256xi32>
      %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> tensor<256x!sw.ptr<f32>>
      %xp = "sw.addptr"(%xs, %r) : (tensor<256x!sw.ptr<f32>>, tensor<256xi32>) -> tensor<256x!sw.ptr<f32>>
      %x = "sw.load"(%xp) : (tensor<256x!sw.ptr<f32>>) -> tensor<256xf32>
      %m = "sw.reduce"(%x) {kind = "min"} : (tensor<256xf32>) -> f32
      %next = "sw.add"(%acc, %m) : (f32, f32) -> f32
      "sw.yield"(%next) : (f32) -> ()
    }) : (i32, i32, i32, f32) -> f32
    "sw.store"(%x_ptr, %t) : (!sw.ptr<f32>, f32) -> ()
    "func.return"() : () -> ()
  }
}

// -----
// A tile carried by sw.while becomes a vector like one carried by sw.for;
// the condition stays a scalar.
// CHECK-LABEL: func.func @halve
// CHECK:      %[[W:[0-9]+]]:2 = "sw.while"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) ({
// CHECK-NEXT: ^bb0(%{{[0-9]+}}: vector<4xf32>, %{{[0-9]+}}: i32):
// CHECK:        "sw.yield"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i1, vector<4xf32>, i32) -> ()
// CHECK-NEXT: }) : (i1, vector<4xf32>, i32) -> (vector<4xf32>, i32)
// CHECK:      "simt.store"(%{{[0-9]+}}, %[[W]]#0) {vec = 4 : i32}
module {
  func.func @halve(%out_ptr: !sw.ptr<f32>, %n: i32) {
    %x = "sw.constant"() {value = 1.0 : f32} : () -> tensor<128xf32>
    %half = "sw.constant"() {value = 0.5 : f32} : () -> tensor<128xf32>
    %c0 = "sw.constant"() {value = 0 : i32} : () -> i32
    %c1 = "sw.constant"() {value = 1 : i32} : () -> i32
    %go = "sw.cmp"(%c0, %n) {predicate = "lt"} : (i32, i32) -> i1
    %r:2 = "sw.while"(%go, %x, %c0) ({
    ^bb0(%a: tensor<128xf32>, %i: i32):
      %b = "sw.mul"(%a, %half) : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
      %j = "sw.add"(%i, %c1) : (i32, i32) -> i32
      %more = "sw.cmp"(%j, %n) {predicate = "lt"} : (i32, i32) -> i1
      "sw.yield"(%more, %b, %j) : (i1, tensor<128xf32>, i32) -> ()
    }) : (i1, tensor<128xf32>, i32) -> (tensor<128xf32>, i32)
    %offs = "sw.arange"() {end = 128 : i32, start = 0 : i32} : () -> tensor<128xi32>
    %p = "sw.splat"(%out_ptr) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>
    %q = "sw.addptr"(%p, %offs) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>
    "sw.store"(%q, %r#0) : (tensor<128x!sw.ptr<f32>>, tensor<128xf32>) -> ()
    "func.return"() : () -> ()
  }
}
