// REQUIRES: emit-ptx
// RUN: %swage-opt %s --emit-ptx=sm_90 | FileCheck %s
// The vector-add kernel after lower-simt: a tile of 512 over 128 threads,
// 4 slots per thread. Parameters are loaded once and converted to global
// addresses; each load/store group of 4 slots checks its mask bits and its
// alignment at run time and takes one 16-byte access, else the predicated
// per-slot path (masked-off load slots keep `other`).

// CHECK:      .version 7.8
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK:      .visible .entry add_kernel(
// CHECK-NEXT:   .param .u64 add_kernel_param_0,
// CHECK-NEXT:   .param .u64 add_kernel_param_1,
// CHECK-NEXT:   .param .u64 add_kernel_param_2,
// CHECK-NEXT:   .param .s32 add_kernel_param_3
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 128, 1, 1
// CHECK:        .reg .pred %p<{{[0-9]+}}>;
// CHECK:        ld.param.u64 [[RAW:%rd[0-9]+]], [add_kernel_param_0];
// CHECK-NEXT:   cvta.to.global.u64 [[X:%rd[0-9]+]], [[RAW]];
// CHECK:        ld.param.s32 [[N:%r[0-9]+]], [add_kernel_param_3];
// CHECK:        mov.u32 {{%r[0-9]+}}, %ctaid.x;
// CHECK:        mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK-NEXT:   and.b32 [[TID]], [[TID]], 127;
// The mask's bits are computed again where they are used (no predicate
// lives from the compare to the accesses), and the per-slot path addresses
// its slots from the group's first pointer.
// CHECK:        mul.wide.s32 [[OFF:%rd[0-9]+]], [[I0:%r[0-9]+]], 4;
// CHECK-NEXT:   add.s64 [[P0:%rd[0-9]+]], [[X]], [[OFF]];
// CHECK:        and.b64 [[LOW:%rd[0-9]+]], [[P0]], 15;
// CHECK-NEXT:   setp.eq.s64 [[FAST:%p[0-9]+]], [[LOW]], 0;
// CHECK-NEXT:   setp.lt.s32 [[M0:%p[0-9]+]], [[I0]], [[N]];
// CHECK-NEXT:   and.pred [[FAST]], [[FAST]], [[M0]];
// CHECK-COUNT-3: and.pred [[FAST]], [[FAST]], {{%p[0-9]+}};
// CHECK-NEXT:   @![[FAST]] bra [[SLOW:\$L__[0-9]+]];
// CHECK-NEXT:   ld.global.v4.f32 {[[X0:%f[0-9]+]], {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}}, [[[P0]]+0];
// CHECK-NEXT:   bra [[DONE:\$L__[0-9]+]];
// CHECK-NEXT: [[SLOW]]:
// CHECK-NEXT:   setp.lt.s32 [[S0:%p[0-9]+]], [[I0]], [[N]];
// CHECK:        add.s64 [[P1:%rd[0-9]+]], [[P0]], 4;
// CHECK:        mov.f32 [[X0]], {{%f[0-9]+}};
// CHECK-NEXT:   @[[S0]] ld.global.f32 [[X0]], [[[P0]]];
// CHECK-NEXT:   mov.f32
// CHECK-NEXT:   @{{%p[0-9]+}} ld.global.f32 {{%f[0-9]+}}, [[[P1]]];
// CHECK:      [[DONE]]:
// CHECK:        add.rn.f32
// CHECK:        st.global.v4.f32
// CHECK:        @{{%p[0-9]+}} st.global.f32
// CHECK:        ret;
// CHECK-NEXT: }

module {
  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32) attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 0 : i32} {
    %pid = "simt.block_id"() {axis = 0 : i32} : () -> i32
    %c512 = "sw.constant"() {value = 512 : i32} : () -> i32
    %start = "sw.mul"(%pid, %c512) : (i32, i32) -> i32
    %r = "simt.tile_index"() {len = 512 : i32, start = 0 : i32} : () -> vector<4xi32>
    %s = "sw.splat"(%start) : (i32) -> vector<4xi32>
    %offs = "sw.add"(%s, %r) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
    %ns = "sw.splat"(%n) : (i32) -> vector<4xi32>
    %mask = "sw.cmp"(%offs, %ns) {predicate = "lt"} : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>
    %xs = "sw.splat"(%x_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
    %xp = "sw.addptr"(%xs, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>
    %zero = "sw.constant"() {value = 0.0 : f32} : () -> vector<4xf32>
    %x = "simt.load"(%xp, %mask, %zero) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
    %ys = "sw.splat"(%y_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
    %yp = "sw.addptr"(%ys, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>
    %y = "simt.load"(%yp, %mask, %zero) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>
    %sum = "sw.add"(%x, %y) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
    %os = "sw.splat"(%output_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>
    %op = "sw.addptr"(%os, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>
    "simt.store"(%op, %sum, %mask) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xf32>, vector<4xi1>) -> ()
    "func.return"() : () -> ()
  }
}
