// RUN: %swage-opt %s | %swage-opt | FileCheck %s
// The segment types (!sw.segment<T>, tensor<?xT>) and ops print and parse
// back (docs/segments.md, docs/ir-format.md), with the stage attributes.

// CHECK-LABEL: func.func @segmented_softmax(%values_ptr: !sw.ptr<f32>, %offsets_ptr: !sw.ptr<i32>, %output_ptr: !sw.ptr<f32>) attributes {sw.stages = 3 : i32} {
// CHECK-NEXT:    %0 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %1 = "sw.segment"(%values_ptr, %offsets_ptr, %0) : (!sw.ptr<f32>, !sw.ptr<i32>, i32) -> !sw.segment<f32>
// CHECK-NEXT:    %2 = "sw.load_segment"(%1) {stage = 0 : i32} : (!sw.segment<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %3 = "sw.reduce"(%2) {kind = "max", stage = 0 : i32} : (tensor<?xf32>) -> f32
// CHECK-NEXT:    %4 = "sw.splat"(%3) {stage = 1 : i32} : (f32) -> tensor<?xf32>
// CHECK-NEXT:    %5 = "sw.sub"(%2, %4) {stage = 1 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %6 = "sw.exp"(%5) {stage = 1 : i32} : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %7 = "sw.reduce"(%6) {kind = "sum", stage = 1 : i32} : (tensor<?xf32>) -> f32
// CHECK-NEXT:    %8 = "sw.splat"(%7) {stage = 2 : i32} : (f32) -> tensor<?xf32>
// CHECK-NEXT:    %9 = "sw.div"(%6, %8) {stage = 2 : i32} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    "sw.store_segment"(%output_ptr, %1, %9) {stage = 2 : i32} : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
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

// Two zipped views over i64 offsets, the length, comparisons, selects,
// casts, a splat constant, f16 data computed in f32, and per-segment scalar
// loads and stores.
// CHECK-LABEL: func.func @zipped(%a: !sw.ptr<f16>, %b: !sw.ptr<i8>, %offsets: !sw.ptr<i64>, %scale: !sw.ptr<f32>, %out: !sw.ptr<f16>, %means: !sw.ptr<f32>) {
// CHECK-NEXT:    %10 = "sw.segment_id"() {axis = 0 : i32} : () -> i32
// CHECK-NEXT:    %11 = "sw.segment"(%a, %offsets, %10) : (!sw.ptr<f16>, !sw.ptr<i64>, i32) -> !sw.segment<f16>
// CHECK-NEXT:    %12 = "sw.segment"(%b, %offsets, %10) : (!sw.ptr<i8>, !sw.ptr<i64>, i32) -> !sw.segment<i8>
// CHECK-NEXT:    %13 = "sw.segment_length"(%11) : (!sw.segment<f16>) -> i64
// CHECK-NEXT:    %14 = "sw.load_segment"(%11) : (!sw.segment<f16>) -> tensor<?xf16>
// CHECK-NEXT:    %15 = "sw.cast"(%14) : (tensor<?xf16>) -> tensor<?xf32>
// CHECK-NEXT:    %16 = "sw.load_segment"(%12) : (!sw.segment<i8>) -> tensor<?xi8>
// CHECK-NEXT:    %17 = "sw.constant"() {value = 0 : i8} : () -> tensor<?xi8>
// CHECK-NEXT:    %18 = "sw.cmp"(%16, %17) {predicate = "gt"} : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi1>
// CHECK-NEXT:    %19 = "sw.addptr"(%scale, %10) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    %20 = "sw.load"(%19) : (!sw.ptr<f32>) -> f32
// CHECK-NEXT:    %21 = "sw.splat"(%20) : (f32) -> tensor<?xf32>
// CHECK-NEXT:    %22 = "sw.mul"(%15, %21) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %23 = "sw.select"(%18, %22, %15) : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %24 = "sw.cast"(%23) : (tensor<?xf32>) -> tensor<?xf16>
// CHECK-NEXT:    "sw.store_segment"(%out, %12, %24) : (!sw.ptr<f16>, !sw.segment<i8>, tensor<?xf16>) -> ()
// CHECK-NEXT:    %25 = "sw.reduce"(%23) {kind = "sum"} : (tensor<?xf32>) -> f32
// CHECK-NEXT:    %26 = "sw.cast"(%13) : (i64) -> f32
// CHECK-NEXT:    %27 = "sw.div"(%25, %26) : (f32, f32) -> f32
// CHECK-NEXT:    %28 = "sw.addptr"(%means, %10) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
// CHECK-NEXT:    "sw.store"(%28, %27) : (!sw.ptr<f32>, f32) -> ()
// CHECK-NEXT:    "func.return"() : () -> ()
// CHECK-NEXT:  }
func.func @zipped(%a: !sw.ptr<f16>, %b: !sw.ptr<i8>, %offsets: !sw.ptr<i64>, %scale: !sw.ptr<f32>, %out: !sw.ptr<f16>, %means: !sw.ptr<f32>) {
  %sid = "sw.segment_id"() {axis = 0 : i32} : () -> i32
  %sa = "sw.segment"(%a, %offsets, %sid) : (!sw.ptr<f16>, !sw.ptr<i64>, i32) -> !sw.segment<f16>
  %sb = "sw.segment"(%b, %offsets, %sid) : (!sw.ptr<i8>, !sw.ptr<i64>, i32) -> !sw.segment<i8>
  %n = "sw.segment_length"(%sa) : (!sw.segment<f16>) -> i64
  %xa16 = "sw.load_segment"(%sa) : (!sw.segment<f16>) -> tensor<?xf16>
  %xa = "sw.cast"(%xa16) : (tensor<?xf16>) -> tensor<?xf32>
  %xb = "sw.load_segment"(%sb) : (!sw.segment<i8>) -> tensor<?xi8>
  %zero = "sw.constant"() {value = 0 : i8} : () -> tensor<?xi8>
  %pos = "sw.cmp"(%xb, %zero) {predicate = "gt"} : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi1>
  %sp = "sw.addptr"(%scale, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  %s = "sw.load"(%sp) : (!sw.ptr<f32>) -> f32
  %ss = "sw.splat"(%s) : (f32) -> tensor<?xf32>
  %y = "sw.mul"(%xa, %ss) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %z = "sw.select"(%pos, %y, %xa) : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %z16 = "sw.cast"(%z) : (tensor<?xf32>) -> tensor<?xf16>
  "sw.store_segment"(%out, %sb, %z16) : (!sw.ptr<f16>, !sw.segment<i8>, tensor<?xf16>) -> ()
  %t = "sw.reduce"(%z) {kind = "sum"} : (tensor<?xf32>) -> f32
  %nf = "sw.cast"(%n) : (i64) -> f32
  %mean = "sw.div"(%t, %nf) : (f32, f32) -> f32
  %mp = "sw.addptr"(%means, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>
  "sw.store"(%mp, %mean) : (!sw.ptr<f32>, f32) -> ()
  "func.return"() : () -> ()
}
