/* cpu_internal.h - what cpu_exec.c (launch, control flow, memory) and
 * cpu_values.c (elementwise ops, casts, reductions) share.
 *
 * Every SSA value of the kernel owns one fixed slot in a slab allocated once
 * per launch: `len` elements (1 for scalars), each an ir_scalar, or a cpu_ptr
 * for pointer-typed values. Because the IR is SSA with structured control
 * flow, the slot of a value always holds its most recent definition, which
 * is exactly the one every use sees; programs and loop iterations simply
 * overwrite the slots, so a launch of any size allocates nothing per program.
 */
#ifndef SWAGE_CPU_INTERNAL_H
#define SWAGE_CPU_INTERNAL_H

#include "cpu_exec.h"
#include "../../ir/scalar.h"

/* A pointer: which kernel argument it points into and an element offset
 * that may be anything; it is only checked against the argument's nelems
 * when a load or store uses it, so pointer arithmetic can never touch
 * memory. */
typedef struct cpu_ptr {
    int64_t off;
    int32_t arg;
    int32_t reserved;
} cpu_ptr;

typedef struct cpu_ctx {
    const ir_module *m;
    diag *d;
    const ir_op *func;
    const cpu_arg *args;
    int nargs;
    void **slot;          /* per value id: ir_scalar[len] or cpu_ptr[len]; NULL outside the func */
    unsigned char *slab;  /* owns every slot */
    int64_t grid[3];
    int64_t pid[3];       /* the running program */
    bool generic_only;    /* SWAGE_CPU_GENERIC set: skip the per-dtype fast loops */
} cpu_ctx;

static inline ir_scalar *cpu_vals(const cpu_ctx *c, ir_value v) { return (ir_scalar *)c->slot[v]; }
static inline cpu_ptr *cpu_ptrs(const cpu_ctx *c, ir_value v) { return (cpu_ptr *)c->slot[v]; }
static inline int32_t cpu_len(const cpu_ctx *c, ir_value v)
{
    ir_type t = c->m->values[v].type;
    return t.kind == TY_TILE ? t.len : 1;
}
static inline ir_dtype cpu_dtype(const cpu_ctx *c, ir_value v) { return (ir_dtype)c->m->values[v].type.dtype; }

/* cpu_values.c: runs one op that computes values from values (elementwise
 * arithmetic and math, cmp, select, cast, splat, reduce). Returns false
 * with c->d set on failure; operands were checked by cpu_exec.c's setup. */
bool cpu_exec_value_op(cpu_ctx *c, const ir_op *op);
/* True for the op kinds cpu_exec_value_op runs. */
bool cpu_is_value_op(ir_op_kind kind);

#endif
