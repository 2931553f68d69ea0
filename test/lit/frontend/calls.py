# Calls of @sw.jit functions are inlined (no call op remains; the callee's
# ops carry the call's place), an early return puts the rest of the kernel
# in the else region of an sw.if, and a while loop is an sw.while whose body
# yields the next condition, then the carried values. `swage compile` finds
# the called functions among the file's top-level defs.
# RUN: %swage compile %s --kernel kernel --signature 'x_ptr=*f32,n=i32' --constexprs 'BLOCK=32' --stage=source --mlir-print-debuginfo | FileCheck %s
# RUN: not %swage compile %s --kernel recursive --signature 'n=i32' 2>&1 | FileCheck %s --check-prefix=RECURSION
import swage as sw
import swage.language as sl


@sw.jit
def twice(v):
    return v + v


@sw.jit
def split(v, n):
    if n > 0:
        return v, n
    return -v, 0


@sw.jit
def kernel(x_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    if pid >= n:
        return
    x = sl.load(x_ptr + sl.arange(0, BLOCK))
    y, k = split(twice(x), n)
    while k > 1:
        k = k // 2
        y = y * 0.5
    sl.store(x_ptr + sl.arange(0, BLOCK), y)

# CHECK-NOT: call
# CHECK:      %[[PID:[0-9]+]] = "sw.program_id"()
# CHECK:      %[[STOP:[0-9]+]] = "sw.cmp"(%[[PID]], %n) {predicate = "ge"}
# CHECK-NEXT: "sw.if"(%[[STOP]]) ({
# CHECK-NEXT:   "sw.yield"() : () -> () loc("{{.*}}calls.py":27:5)
# CHECK-NEXT: }, {
# twice's add, at the place of its call in the kernel; split's if at split's:
# CHECK:        %[[X2:[0-9]+]] = "sw.add"(%[[X:[0-9]+]], %[[X]]) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32> loc("{{.*}}calls.py":30:18)
# CHECK:        %[[S:[0-9]+]]:2 = "sw.if"(%{{[0-9]+}}) ({
# CHECK-NEXT:     "sw.yield"(%[[X2]], %n) : (tensor<32xf32>, i32) -> ()
# CHECK:        }) : (i1) -> (tensor<32xf32>, i32) loc("{{.*}}calls.py":30:12)
# CHECK:        %[[W:[0-9]+]]:2 = "sw.while"(%{{[0-9]+}}, %[[S]]#1, %[[S]]#0) ({
# CHECK-NEXT:   ^bb0(%{{[0-9]+}}: i32, %{{[0-9]+}}: tensor<32xf32>):
# CHECK:          "sw.yield"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i1, i32, tensor<32xf32>) -> ()
# CHECK-NEXT:   }) : (i1, i32, tensor<32xf32>) -> (i32, tensor<32xf32>)
# CHECK:        "sw.store"(%{{[0-9]+}}, %[[W]]#1)
# CHECK:        "sw.yield"() : () -> ()
# CHECK-NEXT: }) : (i1) -> ()


@sw.jit
def down(n):
    return up(n - 1)


@sw.jit
def up(n):
    return down(n)


@sw.jit
def recursive(n):
    m = up(n)

# RECURSION: calls.py:58:12: error: recursive call of 'up' (up -> down -> up)
