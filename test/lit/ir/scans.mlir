// RUN: %swage-opt %s --split-input-file | %swage-opt --split-input-file | FileCheck %s
// RUN: %swage-opt %s --split-input-file --passes=cse,fold,dce | FileCheck %s --check-prefix=OPT
// The scan ops (docs/ir-format.md): sw.scan and sw.reduce_fn carry their
// combine function as a region and print and parse back unchanged; unused
// ones are removed by DCE; two scans with different regions are never merged.

// CHECK-LABEL: func.func @scan(
// CHECK:         %[[S:[0-9]+]]:2 = "sw.scan"(%{{[0-9]+}}, %{{[0-9]+}}) ({
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: f32, %{{[0-9]+}}: i32, %{{[0-9]+}}: f32, %{{[0-9]+}}: i32):
// CHECK:           "sw.yield"(%{{[0-9]+}}, %{{[0-9]+}}) : (f32, i32) -> ()
// CHECK-NEXT:    }) {reverse = true} : (tensor<64xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>)
// CHECK:         "sw.reduce_fn"
// CHECK:         "sw.histogram"(%{{[0-9]+}}) : (tensor<64xi32>) -> tensor<16xi32>
// CHECK:         "sw.gather"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32>
// OPT-LABEL: func.func @scan(
// OPT-COUNT-2: "sw.scan"
// OPT-NOT:   "sw.scan"
func.func @scan(%p: !sw.ptr<f32>, %q: !sw.ptr<i32>) {
  %i = "sw.arange"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>
  %ps = "sw.splat"(%p) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>
  %pp = "sw.addptr"(%ps, %i) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>
  %x = "sw.load"(%pp) : (tensor<64x!sw.ptr<f32>>) -> tensor<64xf32>
  %s:2 = "sw.scan"(%x, %i) ({
  ^bb0(%a: f32, %ia: i32, %b: f32, %ib: i32):
    %c = "sw.cmp"(%a, %b) {predicate = "ge"} : (f32, f32) -> i1
    %v = "sw.select"(%c, %a, %b) : (i1, f32, f32) -> f32
    %w = "sw.select"(%c, %ia, %ib) : (i1, i32, i32) -> i32
    "sw.yield"(%v, %w) : (f32, i32) -> ()
  }) {reverse = true} : (tensor<64xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>)
  %t = "sw.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %v = "sw.add"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%v) : (f32) -> ()
  }) {reverse = false} : (tensor<64xf32>) -> tensor<64xf32>
  %u = "sw.scan"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %v = "sw.mul"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%v) : (f32) -> ()
  }) {reverse = false} : (tensor<64xf32>) -> tensor<64xf32>
  %r = "sw.reduce_fn"(%x) ({
  ^bb0(%a: f32, %b: f32):
    %v = "sw.maximum"(%a, %b) : (f32, f32) -> f32
    "sw.yield"(%v) : (f32) -> ()
  }) : (tensor<64xf32>) -> f32
  %h = "sw.histogram"(%i) : (tensor<64xi32>) -> tensor<16xi32>
  %g = "sw.gather"(%x, %i) : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32>
  "sw.store"(%pp, %s#0) : (tensor<64x!sw.ptr<f32>>, tensor<64xf32>) -> ()
  "sw.store"(%pp, %t) : (tensor<64x!sw.ptr<f32>>, tensor<64xf32>) -> ()
  "func.return"() : () -> ()
}
