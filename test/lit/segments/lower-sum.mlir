// RUN: %swage-opt %s --split-input-file --passes=lower-segments | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=lower-segments,lower-simt,fold,cse,fold,dce --emit-ptx=sm_90 > %t.ptx
// A one-stage program (a reduction whose result is stored per segment) is
// one loop over the segment; the scalar store that needs the reduction runs
// after the loop. Every reduction starts from its identity, which is what an
// empty segment (a loop that runs zero times) gives: sum 0, max -inf, min
// +inf, prod 1; integer max/min the type's limits; small types accumulate
// in a wider type, as docs/simt.md reduces.

// CHECK-LABEL: func.func @segmented_sum(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i64>, %out_ptr: !sw.ptr<f32>, %values_ptr__numel: i64) {
// CHECK-NEXT:    %[[SID:[0-9]+]] = "sw.program_id"() {axis = 0 : i32} : () -> i32
// i64 offsets need no cast.
// CHECK-NOT:     "sw.cast"
// CHECK:         "sw.minimum"(%{{[0-9]+}}, %values_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    "sw.minimum"(%{{[0-9]+}}, %values_ptr__numel) : (i64, i64) -> i64
// CHECK-NEXT:    "sw.constant"() {value = 0 : i64} : () -> i64
// CHECK-NEXT:    %[[START:[0-9]+]] = "sw.maximum"
// CHECK-NEXT:    %[[END:[0-9]+]] = "sw.maximum"
// CHECK-NEXT:    "sw.constant"() {value = -4 : i64} : () -> i64
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = "sw.and"(%[[START]], %{{[0-9]+}}) : (i64, i64) -> i64
// The per-segment store's address needs no reduction: it stays before the loop.
// CHECK-NEXT:    %[[OUT:[0-9]+]] = "sw.addptr"(%out_ptr, %[[SID]]) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    %[[STEP:[0-9]+]] = "sw.constant"() {value = 1024 : i64} : () -> i64
// CHECK-NEXT:    %[[ZERO:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[ACC:[0-9]+]] = "sw.for"(%[[FIRST]], %[[END]], %[[STEP]], %[[ZERO]]) ({
// CHECK:           "sw.add"
// CHECK:         }) : (i64, i64, i64, tensor<1024xf32>) -> tensor<1024xf32>
// CHECK-NEXT:    %[[TOTAL:[0-9]+]] = "sw.reduce"(%[[ACC]]) {kind = "sum"} : (tensor<1024xf32>) -> f32
// CHECK-NEXT:    "sw.store"(%[[OUT]], %[[TOTAL]]) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NOT:     "sw.for"
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
// Four reductions of one segment value share one loop (four accumulators),
// each with its identity; mean = sum / length, the length is end - start.
// CHECK-LABEL: func.func @stats(
// CHECK:         %[[START:[0-9]+]] = "sw.maximum"
// CHECK-NEXT:    %[[END:[0-9]+]] = "sw.maximum"
// CHECK-NEXT:    "sw.constant"() {value = -4 : i64} : () -> i64
// CHECK-NEXT:    %[[FIRST:[0-9]+]] = "sw.and"(%[[START]], %{{[0-9]+}}) : (i64, i64) -> i64
// CHECK-NEXT:    %[[LEN:[0-9]+]] = "sw.sub"(%[[END]], %[[START]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[LENF:[0-9]+]] = "sw.cast"(%[[LEN]]) : (i64) -> f32
// CHECK:         %[[I0:[0-9]+]] = "sw.constant"() {value = 0.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[I1:[0-9]+]] = "sw.constant"() {value = 0xFF800000 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[I2:[0-9]+]] = "sw.constant"() {value = 0x7F800000 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[I3:[0-9]+]] = "sw.constant"() {value = 1.0 : f32} : () -> tensor<1024xf32>
// CHECK-NEXT:    %[[R:[0-9]+]]:4 = "sw.for"(%[[FIRST]], %[[END]], %{{[0-9]+}}, %[[I0]], %[[I1]], %[[I2]], %[[I3]]) ({
// CHECK:           "sw.add"
// CHECK:           "sw.maximum"
// CHECK:           "sw.minimum"
// CHECK:           "sw.mul"
// CHECK:         "sw.yield"
// CHECK-NEXT:    }) : (i64, i64, i64, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
// CHECK-NEXT:    %[[SUM:[0-9]+]] = "sw.reduce"(%[[R]]#0) {kind = "sum"}
// CHECK-NEXT:    "sw.reduce"(%[[R]]#1) {kind = "max"}
// CHECK-NEXT:    "sw.reduce"(%[[R]]#2) {kind = "min"}
// CHECK-NEXT:    "sw.reduce"(%[[R]]#3) {kind = "prod"}
// CHECK-NEXT:    %{{[0-9]+}} = "sw.div"(%[[SUM]], %[[LENF]]) : (f32, f32) -> f32
func.func @stats(%v: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>
  %n = "sw.segment_length"(%seg) : (!sw.segment<f32>) -> i64
  %nf = "sw.cast"(%n) : (i64) -> f32
  %x = "sw.load_segment"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>
  %s = "sw.reduce"(%x) {kind = "sum"} : (tensor<?xf32>) -> f32
  %hi = "sw.reduce"(%x) {kind = "max"} : (tensor<?xf32>) -> f32
  %lo = "sw.reduce"(%x) {kind = "min"} : (tensor<?xf32>) -> f32
  %pr = "sw.reduce"(%x) {kind = "prod"} : (tensor<?xf32>) -> f32
  %mean = "sw.div"(%s, %nf) : (f32, f32) -> f32
  %a = "sw.add"(%mean, %hi) : (f32, f32) -> f32
  %b = "sw.add"(%a, %lo) : (f32, f32) -> f32
  %c = "sw.add"(%b, %pr) : (f32, f32) -> f32
  %p = "sw.addptr"(%out, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%p, %c) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}

// -----
// Integers: the identities are the type's limits; an i32 segment length
// comes back to i32; i8 sums accumulate in i32 and wrap when cast back.
// CHECK-LABEL: func.func @ints(
// CHECK:         "sw.sub"(%{{[0-9]+}}, %{{[0-9]+}}) : (i64, i64) -> i64
// CHECK-NEXT:    "sw.cast"(%{{[0-9]+}}) : (i64) -> i32
// CHECK:         "sw.constant"() {value = -2147483648 : i32} : () -> tensor<1024xi32>
// CHECK-NEXT:    "sw.constant"() {value = 2147483647 : i32} : () -> tensor<1024xi32>
// CHECK-NEXT:    "sw.constant"() {value = 0 : i32} : () -> tensor<1024xi32>
// CHECK-NEXT:    %[[R:[0-9]+]]:3 = "sw.for"
// CHECK:           %[[B:[0-9]+]] = "sw.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (tensor<1024x!sw.ptr<i8>>, tensor<1024xi1>, tensor<1024xi8>) -> tensor<1024xi8>
// CHECK:           %[[WIDE:[0-9]+]] = "sw.cast"(%[[B]]) : (tensor<1024xi8>) -> tensor<1024xi32>
// CHECK:         "sw.reduce"(%[[R]]#0) {kind = "max"} : (tensor<1024xi32>) -> i32
// CHECK-NEXT:    "sw.reduce"(%[[R]]#1) {kind = "min"} : (tensor<1024xi32>) -> i32
// CHECK-NEXT:    %[[S:[0-9]+]] = "sw.reduce"(%[[R]]#2) {kind = "sum"} : (tensor<1024xi32>) -> i32
// CHECK-NEXT:    "sw.cast"(%[[S]]) : (i32) -> i8
func.func @ints(%v: !sw.ptr<i32>, %b: !sw.ptr<i8>, %offsets: !sw.ptr<i32>, %out: !sw.ptr<i32>, %out8: !sw.ptr<i8>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %seg = "sw.segment"(%v, %offsets, %sid) : (!sw.ptr<i32>, !sw.ptr<i32>, i32) -> !sw.segment<i32>
  %segb = "sw.segment"(%b, %offsets, %sid) : (!sw.ptr<i8>, !sw.ptr<i32>, i32) -> !sw.segment<i8>
  %n = "sw.segment_length"(%seg) : (!sw.segment<i32>) -> i32
  %x = "sw.load_segment"(%seg) : (!sw.segment<i32>) -> tensor<?xi32>
  %y = "sw.load_segment"(%segb) : (!sw.segment<i8>) -> tensor<?xi8>
  %hi = "sw.reduce"(%x) {kind = "max"} : (tensor<?xi32>) -> i32
  %lo = "sw.reduce"(%x) {kind = "min"} : (tensor<?xi32>) -> i32
  %s8 = "sw.reduce"(%y) {kind = "sum"} : (tensor<?xi8>) -> i8
  %a = "sw.sub"(%hi, %lo) : (i32, i32) -> i32
  %c = "sw.add"(%a, %n) : (i32, i32) -> i32
  %p = "sw.addptr"(%out, %sid) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>
  "sw.store"(%p, %c) : (!sw.ptr<i32>, i32) -> ()
  %p8 = "sw.addptr"(%out8, %sid) : (!sw.ptr<i8>, i32) -> !sw.ptr<i8>
  "sw.store"(%p8, %s8) : (!sw.ptr<i8>, i8) -> ()
  "func.return"() : () -> ()
}
