// RUN: %swage-opt %s | %swage-opt | FileCheck %s
// RUN: %swage-opt %s --passes=fold,cse,dce | FileCheck %s --check-prefix=OPT
// The atomics print and parse back, every kind, with and without a mask,
// at both levels; and the default passes never merge, drop or fold one:
// two identical atomics are two updates, an unused one still updates
// memory, and one of constants is not a constant.

// CHECK-LABEL: func.func @semantic(
// CHECK:    %[[A:[0-9]+]] = "sw.atomic_rmw"(%p, %v) {kind = "add", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "max", scope = "cta", sem = "relaxed"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "min", scope = "sys", sem = "acquire"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "and", scope = "gpu", sem = "release"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "or", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "xor", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%p, %v) {kind = "xchg", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32) -> i32
// CHECK:    "sw.atomic_cas"(%p, %v, %v) {scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32, i32) -> i32
// CHECK:    "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {kind = "max", scope = "gpu", sem = "acq_rel"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
// CHECK:    "sw.atomic_cas"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {scope = "gpu", sem = "relaxed"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>

// OPT-LABEL: func.func @semantic(
// OPT-COUNT-7: "sw.atomic_rmw"(%p, %v)
// OPT:         "sw.atomic_cas"(%p, %v, %v)
// OPT:         "sw.atomic_rmw"
// OPT:         "sw.atomic_cas"
// OPT-LABEL: func.func @not_merged(
// OPT:         %[[C:[0-9]+]] = "sw.constant"() {value = 1 : i32} : () -> i32
// OPT-NEXT:    %[[X:[0-9]+]] = "sw.atomic_rmw"(%p, %[[C]]) {kind = "add"
// OPT-NEXT:    %[[Y:[0-9]+]] = "sw.atomic_rmw"(%p, %[[C]]) {kind = "add"
// OPT-NEXT:    "sw.atomic_rmw"(%p, %[[C]]) {kind = "add"
// OPT-NEXT:    "sw.atomic_cas"(%p, %[[C]], %[[C]])
// OPT-NEXT:    %[[S:[0-9]+]] = "sw.add"(%[[X]], %[[Y]])
// OPT-NEXT:    "sw.store"(%p, %[[S]])
// A branch whose only effect is an atomic is not effect-free:
// OPT-NEXT:    "sw.cmp"
// OPT-NEXT:    "sw.if"
// OPT-NEXT:    "sw.atomic_rmw"(%p, %[[C]]) {kind = "xchg"
// OPT:         "func.return"
module {
  func.func @semantic(%p: !sw.ptr<i32>, %v: i32, %q: !sw.ptr<f32>, %m: i1) {
    %0 = "sw.atomic_rmw"(%p, %v) {kind = "add", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %1 = "sw.atomic_rmw"(%p, %v) {kind = "max", sem = "relaxed", scope = "cta"} : (!sw.ptr<i32>, i32) -> i32
    %2 = "sw.atomic_rmw"(%p, %v) {kind = "min", sem = "acquire", scope = "sys"} : (!sw.ptr<i32>, i32) -> i32
    %3 = "sw.atomic_rmw"(%p, %v) {kind = "and", sem = "release", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %4 = "sw.atomic_rmw"(%p, %v) {kind = "or", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %5 = "sw.atomic_rmw"(%p, %v) {kind = "xor", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %6 = "sw.atomic_rmw"(%p, %v) {kind = "xchg", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %7 = "sw.atomic_cas"(%p, %v, %v) {sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32, i32) -> i32
    %i = "sw.arange"() {start = 0 : i32, end = 16 : i32} : () -> tensor<16xi32>
    %qs = "sw.splat"(%q) : (!sw.ptr<f32>) -> tensor<16x!sw.ptr<f32>>
    %qp = "sw.addptr"(%qs, %i) : (tensor<16x!sw.ptr<f32>>, tensor<16xi32>) -> tensor<16x!sw.ptr<f32>>
    %x = "sw.cast"(%i) : (tensor<16xi32>) -> tensor<16xf32>
    %ms = "sw.splat"(%m) : (i1) -> tensor<16xi1>
    %8 = "sw.atomic_rmw"(%qp, %x, %ms) {kind = "max", sem = "acq_rel", scope = "gpu"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
    %9 = "sw.atomic_cas"(%qp, %x, %x, %ms) {sem = "relaxed", scope = "gpu"} : (tensor<16x!sw.ptr<f32>>, tensor<16xf32>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
    "func.return"() : () -> ()
  }
  func.func @not_merged(%p: !sw.ptr<i32>) {
    %c = "sw.constant"() {value = 1 : i32} : () -> i32
    %c2 = "sw.constant"() {value = 1 : i32} : () -> i32
    %x = "sw.atomic_rmw"(%p, %c) {kind = "add", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %y = "sw.atomic_rmw"(%p, %c2) {kind = "add", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %unused = "sw.atomic_rmw"(%p, %c) {kind = "add", sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
    %also = "sw.atomic_cas"(%p, %c, %c2) {sem = "acq_rel", scope = "gpu"} : (!sw.ptr<i32>, i32, i32) -> i32
    %s = "sw.add"(%x, %y) : (i32, i32) -> i32
    "sw.store"(%p, %s) : (!sw.ptr<i32>, i32) -> ()
    %b = "sw.cmp"(%x, %y) {predicate = "lt"} : (i32, i32) -> i1
    "sw.if"(%b) ({
      %z = "sw.atomic_rmw"(%p, %c) {kind = "xchg", sem = "relaxed", scope = "gpu"} : (!sw.ptr<i32>, i32) -> i32
      "sw.yield"() : () -> ()
    }, {
      "sw.yield"() : () -> ()
    }) : (i1) -> ()
    "func.return"() : () -> ()
  }

// CHECK-LABEL: func.func @simt(
// CHECK:    "simt.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "relaxed"} : (vector<2x!sw.ptr<f16>>, vector<2xf16>) -> vector<2xf16>
// CHECK:    "simt.atomic_cas"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {scope = "sys", sem = "acquire"} : (vector<2x!sw.ptr<f16>>, vector<2xf16>, vector<2xf16>, vector<2xi1>) -> vector<2xf16>
// OPT-LABEL: func.func @simt(
// OPT: "simt.atomic_rmw"
// OPT: "simt.atomic_cas"
  func.func @simt(%p: !sw.ptr<f16>, %v: f16, %m: i1) attributes {simt.num_threads = 32 : i32} {
    %ps = "sw.splat"(%p) : (!sw.ptr<f16>) -> vector<2x!sw.ptr<f16>>
    %vs = "sw.splat"(%v) : (f16) -> vector<2xf16>
    %ms = "sw.splat"(%m) : (i1) -> vector<2xi1>
    %0 = "simt.atomic_rmw"(%ps, %vs) {kind = "add", sem = "relaxed", scope = "gpu"} : (vector<2x!sw.ptr<f16>>, vector<2xf16>) -> vector<2xf16>
    %1 = "simt.atomic_cas"(%ps, %vs, %vs, %ms) {sem = "acquire", scope = "sys"} : (vector<2x!sw.ptr<f16>>, vector<2xf16>, vector<2xf16>, vector<2xi1>) -> vector<2xf16>
    "func.return"() : () -> ()
  }
}
