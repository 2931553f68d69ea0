# The atomics of the tile language (docs/language.md, "Atomics"): each
# lowers to one sw.atomic_rmw / sw.atomic_cas with Triton's defaults (sem
# acq_rel, scope gpu), its value converted to the pointee's dtype and
# broadcast to the pointer's shape; the method form is the same op; errors
# point at the argument.
# RUN: %swage compile %s --kernel all_kinds --signature 'p=*i32,f=*f32,n=i32' --stage=source | FileCheck %s
# RUN: %swage compile %s --kernel all_kinds --signature 'p=*i32,f=*f32,n=i32' --stage=semantic | FileCheck %s --check-prefix=OPT
# RUN: %swage compile %s --kernel all_kinds --signature 'p=*i32,f=*f32,n=i32' --emit=ptx --sm=80 | FileCheck %s --check-prefix=PTX
# RUN: not %swage compile %s --kernel bad_sem --signature 'p=*i32' 2>&1 | FileCheck %s --check-prefix=BAD-SEM
# RUN: not %swage compile %s --kernel bad_scope --signature 'p=*i32' 2>&1 | FileCheck %s --check-prefix=BAD-SCOPE
# RUN: not %swage compile %s --kernel float_xor --signature 'p=*f32' 2>&1 | FileCheck %s --check-prefix=FLOAT-XOR
# RUN: not %swage compile %s --kernel not_pointer --signature 'p=*i32,n=i32' 2>&1 | FileCheck %s --check-prefix=NOT-POINTER
import swage as sw
import swage.language as sl


# CHECK-LABEL: func.func @all_kinds(
# CHECK:         %[[ONE:[0-9]+]] = "sw.constant"() {value = 1 : i32} : () -> i32
# CHECK-NEXT:    "sw.atomic_rmw"(%p, %[[ONE]]) {kind = "add", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32) -> i32
# CHECK:         "sw.atomic_rmw"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {kind = "max", scope = "cta", sem = "relaxed"} : (tensor<16x!sw.ptr<i32>>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi32>
# CHECK:         "sw.atomic_rmw"({{.*}}) {kind = "min", scope = "sys", sem = "acquire"}
# CHECK:         "sw.atomic_rmw"({{.*}}) {kind = "and", scope = "gpu", sem = "release"}
# CHECK:         "sw.atomic_rmw"({{.*}}) {kind = "or", scope = "gpu", sem = "acq_rel"}
# CHECK:         "sw.atomic_rmw"({{.*}}) {kind = "xor", scope = "gpu", sem = "acq_rel"}
# CHECK:         "sw.atomic_rmw"({{.*}}) {kind = "xchg", scope = "gpu", sem = "acq_rel"}
# The float value of an int32 atomic converts as .to() does:
# CHECK:         %[[F:[0-9]+]] = "sw.cast"(%{{[0-9]+}}) : (f32) -> i32
# CHECK-NEXT:    "sw.atomic_cas"(%p, %n, %[[F]]) {scope = "gpu", sem = "acq_rel"} : (!sw.ptr<i32>, i32, i32) -> i32
# The method form:
# CHECK:         "sw.atomic_rmw"(%f, %{{[0-9]+}}) {kind = "add", scope = "gpu", sem = "acq_rel"} : (!sw.ptr<f32>, f32) -> f32
# OPT-LABEL: func.func @all_kinds(
# OPT-COUNT-7: "sw.atomic_rmw"
# OPT:         "sw.atomic_cas"
# OPT:         "sw.atomic_rmw"
# PTX:         .target sm_80
# An unused old value under acq_rel still needs atom (red has no acquire):
# PTX:         atom.acq_rel.gpu.global.add.u32
# PTX:         atom.relaxed.cta.global.max.s32
# PTX:         atom.acquire.sys.global.min.s32
# PTX:         red.release.gpu.global.and.b32 [
# PTX:         atom.acq_rel.gpu.global.cas.b32
# PTX:         atom.acq_rel.gpu.global.add.f32
@sw.jit
def all_kinds(p, f, n):
    sl.atomic_add(p, 1)
    offs = sl.arange(0, 16)
    ptrs = p + offs
    a = sl.atomic_max(ptrs, offs, mask=offs < n, sem="relaxed", scope="cta")
    b = sl.atomic_min(ptrs, a, sem="acquire", scope="sys")
    sl.atomic_and(ptrs, b, sem="release", scope="gpu")
    c = sl.atomic_or(ptrs, b)
    d = sl.atomic_xor(ptrs, c, None, None, None)
    e = sl.atomic_xchg(ptrs, d, mask=None)
    old = sl.atomic_cas(p, n, sl.load(f))
    f.atomic_add(old + sl.sum(e))


@sw.jit
def bad_sem(p):
    sl.atomic_add(p, 1, sem="seq_cst")
# BAD-SEM: atomics.py:[[# @LINE - 1]]:29: error: sem 'seq_cst' is not supported by sl.atomic_add; it must be one of 'relaxed', 'acquire', 'release', 'acq_rel' (as in Triton)


@sw.jit
def bad_scope(p):
    sl.atomic_cas(p, 0, 1, scope="cluster")
# BAD-SCOPE: atomics.py:[[# @LINE - 1]]:34: error: scope 'cluster' is not supported by sl.atomic_cas; it must be one of 'cta', 'gpu', 'sys' (as in Triton)


@sw.jit
def float_xor(p):
    sl.atomic_xor(p + sl.arange(0, 4), 1)
# FLOAT-XOR: atomics.py:[[# @LINE - 1]]:19: error: sl.atomic_xor needs a pointer to int32, uint32, int64 or uint64, not a tile of 4 pointers to float32


@sw.jit
def not_pointer(p, n):
    sl.atomic_min(n, 1)
# NOT-POINTER: atomics.py:[[# @LINE - 1]]:19: error: sl.atomic_min needs a pointer, not int32
