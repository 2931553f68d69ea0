# Structured control flow from Python statements.
# RUN: %swage compile %s --kernel loop_sum --signature 'x_ptr=*f32,out_ptr=*f32,n=i32' --constexprs 'BLOCK=64' --stage=source | FileCheck %s --check-prefix=LOOP
# RUN: %swage compile %s --kernel branch --signature 'x_ptr=*f32,n=i32' --stage=source | FileCheck %s --check-prefix=IF
# RUN: %swage compile %s --kernel const_branch --signature 'x_ptr=*f32' --constexprs 'FLAG=False' --stage=source | FileCheck %s --check-prefix=CONSTIF
# RUN: %swage compile %s --kernel unrolled --signature 'x_ptr=*f32' --stage=source | FileCheck %s --check-prefix=UNROLL
import swage as sw
import swage.language as sl


@sw.jit
def loop_sum(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    acc = sl.zeros(BLOCK, sl.float32)
    total = 0.0
    for start in range(0, n, BLOCK):
        offs = start + sl.arange(0, BLOCK)
        acc += sl.load(x_ptr + offs, mask=offs < n, other=0.0)
        total = total + 1.0
    sl.store(out_ptr, sl.sum(acc) + total)

# A loop carrying a tile and a scalar: two results, body args (iv, acc, total).
# LOOP: %[[R:[0-9]+]]:2 = "sw.for"(%{{.*}}, %n, %{{.*}}, %{{.*}}, %{{.*}}) ({
# LOOP-NEXT: ^bb0(%{{[0-9]+}}: i32, %{{[0-9]+}}: tensor<64xf32>, %{{[0-9]+}}: f32):
# LOOP: "sw.yield"(%{{[0-9]+}}, %{{[0-9]+}}) : (tensor<64xf32>, f32) -> ()
# LOOP-NEXT: }) : (i32, i32, i32, tensor<64xf32>, f32) -> (tensor<64xf32>, f32)
# LOOP: "sw.reduce"(%[[R]]#0) {kind = "sum"} : (tensor<64xf32>) -> f32


@sw.jit
def branch(x_ptr, n):
    if n > 4:
        v = 1.0
    elif n > 2:
        v = sl.load(x_ptr)
    else:
        v = 3.0
    sl.store(x_ptr, v)

# IF: "sw.cmp"(%n, %{{.*}}) {predicate = "gt"}
# IF: = "sw.if"(%{{[0-9]+}}) ({
# IF: "sw.yield"(%{{[0-9]+}}) : (f32) -> ()
# IF: }, {
# IF: "sw.if"
# IF: }) : (i1) -> f32
# IF: "sw.store"


@sw.jit
def const_branch(x_ptr, FLAG: sl.constexpr):
    if FLAG:
        sl.store(x_ptr, 1.0)
    else:
        sl.store(x_ptr, 2.0)

# A constexpr condition compiles only the branch taken.
# CONSTIF-NOT: "sw.if"
# CONSTIF: "sw.constant"() {value = 2.0 : f32}
# CONSTIF-NOT: value = 1.0
# CONSTIF: "func.return"


@sw.jit
def unrolled(x_ptr):
    for i in sl.static_range(3):
        sl.store(x_ptr + i, i * 1.5)

# UNROLL-NOT: "sw.for"
# UNROLL: value = 0.0 : f32
# UNROLL: value = 1.5 : f32
# UNROLL: value = 3.0 : f32
