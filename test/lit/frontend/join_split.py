# Triton's join, split, interleave and cat in the frontend
# (docs/language.md, "Join, split, interleave and cat"): join is the
# flattened operands each given a dim of 1, repeated to 2, and selected by
# an arange mask, reshaped to S + (2,); interleave the same select, reshaped
# to double the last dim; cat the (2, N) stack; split two sw.split halves.
# RUN: %swage compile %s --kernel pairs --signature 'x_ptr=*f32,y_ptr=*f32,out_ptr=*f32' --constexprs 'N=8' --stage=source | FileCheck %s
# RUN: %swage compile %s --kernel pairs --signature 'x_ptr=*f32,y_ptr=*f32,out_ptr=*f32' --constexprs 'N=8' --emit=ptx | FileCheck %s --check-prefix=PTX
# RUN: not %swage compile %s --kernel bad_split --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=BAD-SPLIT
# RUN: not %swage compile %s --kernel bad_cat --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=BAD-CAT
import swage as sw
import swage.language as sl


@sw.jit
def pairs(x_ptr, y_ptr, out_ptr, N: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, N))
    y = sl.load(y_ptr + sl.arange(0, N))
    j = sl.join(x, y)
    c = sl.cat(x, y, can_reorder=True)
    a, b = j.split()
    sl.store(out_ptr + sl.arange(0, 2 * N), sl.interleave(a, b) + c)

# CHECK-LABEL: func.func @pairs
# CHECK: %[[K:[0-9]+]] = "sw.arange"() {end = 2 : i32, start = 0 : i32} : () -> tensor<2xi32>
# CHECK: %[[FIRST:[0-9]+]] = "sw.cmp"(%[[K]], {{%[0-9]+}}) {predicate = "eq"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
# CHECK: "sw.broadcast"({{%[0-9]+}}) : (tensor<1x2xi1>) -> tensor<8x2xi1>
# CHECK: "sw.reshape"({{%[0-9]+}}) : (tensor<8xf32>) -> tensor<8x1xf32>
# CHECK: "sw.broadcast"({{%[0-9]+}}) : (tensor<8x1xf32>) -> tensor<8x2xf32>
# CHECK: %[[J:[0-9]+]] = "sw.select"({{.*}}) : (tensor<8x2xi1>, tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
# cat: the (2, N) stack, a's row then b's
# CHECK: "sw.broadcast"({{%[0-9]+}}) : (tensor<2x1xi1>) -> tensor<2x8xi1>
# CHECK: "sw.select"({{.*}}) : (tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
# CHECK: "sw.reshape"({{%[0-9]+}}) : (tensor<2x8xf32>) -> tensor<16xf32>
# CHECK: "sw.split"(%[[J]]) {index = 0 : i32} : (tensor<8x2xf32>) -> tensor<8xf32>
# CHECK: "sw.split"(%[[J]]) {index = 1 : i32} : (tensor<8x2xf32>) -> tensor<8xf32>
# CHECK: "sw.reshape"({{%[0-9]+}}) : (tensor<8x2xf32>) -> tensor<16xf32>

# PTX: .entry pairs(
# PTX: bar.sync 0;
# PTX: ret;


@sw.jit
def bad_split(x_ptr):
    a, b = sl.split(sl.zeros((4, 8), sl.float32))
    sl.store(x_ptr, sl.sum(a + b))

# BAD-SPLIT: join_split.py:[[@LINE-3]]:21: error: sl.split needs a tile whose last dimension is 2, not one of shape (4, 8)


@sw.jit
def bad_cat(x_ptr):
    c = sl.cat(sl.zeros((4,), sl.float32), sl.zeros((4,), sl.int32))
    sl.store(x_ptr + sl.arange(0, 8), c)

# BAD-CAT: join_split.py:[[@LINE-3]]:44: error: sl.cat needs two values of one dtype, not float32 and int32
