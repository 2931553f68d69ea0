# Scopes of runtime if and for statements, and the bound on a kernel's size.
# RUN: %swage compile %s --kernel merge_order --signature 'x_ptr=*f32,n=i32' --stage=source | FileCheck %s --check-prefix=MERGE
# RUN: not %swage compile %s --kernel undefined_after_loop --signature 'x_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=LOOP-UNDEF
# RUN: %swage compile %s --kernel many_names --signature 'x_ptr=*f32,n=i32' | FileCheck %s --check-prefix=MANY
# RUN: not %swage compile %s --kernel too_large --signature 'x_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
import swage as sw
import swage.language as sl


@sw.jit
def merge_order(x_ptr, n):
    a = 1.0
    b = 1
    c = n
    if n > 0:
        new2 = 2.0
        c = n + 1
        new1 = n
    else:
        new1 = n * 2
        a = 3.0
        new2 = 5.0
        only_else = 1
    sl.store(x_ptr + b, a + new2 + (c + new1).to(sl.float32))

# The merged names come in the order they have after the then branch (the
# names bound before the if first), then the names only the else branch
# binds: a, c, new2, new1. b is left alone by both branches; only_else is
# bound in one branch only, so it is not merged.
# MERGE: %{{[0-9]+}}:4 = "sw.if"(%{{[0-9]+}}) ({
# MERGE-NEXT: %[[ONE:[0-9]+]] = "sw.constant"() {value = 1 : i32}
# MERGE-NEXT: %[[C1:[0-9]+]] = "sw.add"(%n, %[[ONE]])
# MERGE-NEXT: %[[A1:[0-9]+]] = "sw.constant"() {value = 1.0 : f32}
# MERGE-NEXT: %[[N21:[0-9]+]] = "sw.constant"() {value = 2.0 : f32}
# MERGE-NEXT: "sw.yield"(%[[A1]], %[[C1]], %[[N21]], %n) : (f32, i32, f32, i32) -> ()
# MERGE-NEXT: }, {
# MERGE-NEXT: %[[TWO:[0-9]+]] = "sw.constant"() {value = 2 : i32}
# MERGE-NEXT: %[[N12:[0-9]+]] = "sw.mul"(%n, %[[TWO]])
# MERGE-NEXT: %[[A2:[0-9]+]] = "sw.constant"() {value = 3.0 : f32}
# MERGE-NEXT: %[[N22:[0-9]+]] = "sw.constant"() {value = 5.0 : f32}
# MERGE-NEXT: "sw.yield"(%[[A2]], %n, %[[N22]], %[[N12]]) : (f32, i32, f32, i32) -> ()
# MERGE-NEXT: }) : (i1) -> (f32, i32, f32, i32)

@sw.jit
def undefined_after_loop(x_ptr, n):
    pid = sl.program_id(0)
    for i in range(n):
        t = i
    if pid > 0:
        pid = pid + 1
    sl.store(x_ptr + t, 1.0)

# A runtime if that leaves a name alone leaves its reason for being unusable
# alone too.
# LOOP-UNDEF: error: variable 't' is assigned inside the for loop at line {{[0-9]+}} and cannot be used after it


@sw.jit
def many_names(x_ptr, n):
    v0 = n
    v1 = v0 + 1
    v2 = v1 + 1
    v3 = v2 + 1
    if n > 0:
        v2 = v3 * 2
    for i in range(n):
        v3 = v3 + v2
    sl.store(x_ptr + v3, 1.0)

# MANY: "sw.if"
# MANY: "sw.for"
# MANY: "sw.store"


@sw.jit
def too_large(x_ptr):
    acc = 0.0
    for i in sl.static_range(4096):
        for j in sl.static_range(15):
            acc = acc + sl.load(x_ptr + i * 16 + j) * sl.load(x_ptr + j)
    sl.store(x_ptr, acc)

# sl.static_range copies its body per iteration: 61,440 copies here, more
# IR values than a kernel may make.
# TOO-LARGE: error: the kernel is too large to compile: it makes more than 262144 IR values (sl.static_range copies its body once per iteration; unroll less or use range())
