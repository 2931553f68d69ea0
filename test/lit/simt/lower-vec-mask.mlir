// RUN: %swage-opt %s --split-input-file --passes=lower-simt | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-simt --emit-ptx=sm_90 | FileCheck %s --check-prefix=PTX
// A masked access with vec > 1 whose mask compares a tile ascending within
// each group of vec slots with a uniform value gets vec_mask (docs/simt.md):
// the slot whose bit alone says the group is all set. offs < n and n > offs:
// the last; offs >= lo and lo <= offs: the first; and-ed with a splat (a
// scalar condition) it stays; eq, a float compare, or a mask of two tiles
// promise nothing. With pointers and offsets running over the whole tile,
// vec_all: one test for all of a thread's groups.

// CHECK-LABEL: func.func @kinds
// CHECK:       "simt.load"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "last"}
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "last"}
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "first"}
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "first"}
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "last"}
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32} :
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32} :
// CHECK-NEXT:  "simt.load"({{.*}}) {vec = 4 : i32} :
// CHECK:       "simt.store"({{.*}}) {vec = 4 : i32, vec_all = true, vec_mask = "last"}
// The offsets run over the whole tile (vec_all): the GPU tests one bit for
// a thread's 8 slots, offs + 3 < n from its last group's first offset, with
// the first group's alignment, and then takes both 16-byte loads; else
// each group tests its own bit (offs + 3 < n from the group's first).
// PTX-LABEL:   .entry kinds(
// PTX:         and.b64 [[LOW:%rd[0-9]+]], {{%rd[0-9]+}}, 15;
// PTX-NEXT:    setp.eq.s64 [[FAST:%p[0-9]+]], [[LOW]], 0;
// PTX-NEXT:    add.s32 [[LAST:%r[0-9]+]], [[FIRST:%r[0-9]+]], 3;
// PTX-NEXT:    setp.lt.s32 [[BIT:%p[0-9]+]], [[LAST]], {{%r[0-9]+}};
// PTX-NEXT:    and.pred [[FAST]], [[FAST]], [[BIT]];
// PTX-NEXT:    @![[FAST]] bra [[EACH:\$L__[0-9]+]];
// PTX-NEXT:    ld.global.v4.f32
// PTX-NEXT:    ld.global.v4.f32
// PTX-NEXT:    bra [[DONE:\$L__[0-9]+]];
// PTX-NEXT:  [[EACH]]:
// PTX-NEXT:    and.b64 [[LOW0:%rd[0-9]+]], {{%rd[0-9]+}}, 15;
// PTX-NEXT:    setp.eq.s64 [[G0:%p[0-9]+]], [[LOW0]], 0;
// PTX-NEXT:    add.s32 {{%r[0-9]+}}, [[F0:%r[0-9]+]], 3;
module {
  func.func @kinds(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>, %n: i32, %lo: i32, %flag: i1, %f: f32) {
    %0 = "sw.arange"() {end = 1024 : i32, start = 0 : i32} : () -> tensor<1024xi32>
    %ns = "sw.splat"(%n) : (i32) -> tensor<1024xi32>
    %los = "sw.splat"(%lo) : (i32) -> tensor<1024xi32>
    %fl = "sw.splat"(%flag) : (i1) -> tensor<1024xi1>
    %xs = "sw.splat"(%x) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %p = "sw.addptr"(%xs, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    %z = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
    %m1 = "sw.cmp"(%0, %ns) {predicate = "lt"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %m2 = "sw.cmp"(%ns, %0) {predicate = "gt"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %m3 = "sw.cmp"(%0, %los) {predicate = "ge"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %m4 = "sw.cmp"(%los, %0) {predicate = "le"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %m5 = "sw.and"(%m1, %fl) : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
    %m6 = "sw.cmp"(%0, %ns) {predicate = "eq"} : (tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi1>
    %fs = "sw.splat"(%f) : (f32) -> tensor<1024xf32>
    %fi = "sw.cast"(%0) : (tensor<1024xi32>) -> tensor<1024xf32>
    %m7 = "sw.cmp"(%fi, %fs) {predicate = "lt"} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1>
    %m8 = "sw.and"(%m1, %m3) : (tensor<1024xi1>, tensor<1024xi1>) -> tensor<1024xi1>
    %l1 = "sw.load"(%p, %m1, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l2 = "sw.load"(%p, %m2, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l3 = "sw.load"(%p, %m3, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l4 = "sw.load"(%p, %m4, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l5 = "sw.load"(%p, %m5, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l6 = "sw.load"(%p, %m6, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l7 = "sw.load"(%p, %m7, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %l8 = "sw.load"(%p, %m8, %z) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi1>, tensor<1024xf32>) -> tensor<1024xf32>
    %s1 = "sw.add"(%l1, %l2) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s2 = "sw.add"(%s1, %l3) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s3 = "sw.add"(%s2, %l4) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s4 = "sw.add"(%s3, %l5) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s5 = "sw.add"(%s4, %l6) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s6 = "sw.add"(%s5, %l7) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %s7 = "sw.add"(%s6, %l8) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    %os = "sw.splat"(%out) : (!sw.ptr<f32>) -> tensor<1024x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %0) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xi32>) -> tensor<1024x!sw.ptr<f32>>
    "sw.store"(%op, %s7, %m1) : (tensor<1024x!sw.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>) -> ()
    "func.return"() : () -> ()
  }
}
