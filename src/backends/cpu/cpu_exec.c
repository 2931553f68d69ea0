/* cpu_exec.c - the CPU reference executor (cpu_exec.h): argument binding,
 * value slots, control flow and bounds-checked memory. Requires a verified
 * module (and re-checks what memory safety depends on); guarantees no host
 * memory is touched outside the argument buffers and no allocation per
 * program. Set SWAGE_CPU_GENERIC=1 to run every value op through scalar.h's
 * generic path only (for checking the fast loops). */
#include "cpu_internal.h"

#include <stdlib.h>
#include <string.h>

/* What the executor knows about each kernel argument. */
typedef struct cpu_buffer {
    unsigned char *data;
    int64_t nelems;
    ir_dtype dt;  /* the pointee dtype; DT_VOID for scalar parameters */
    int elsize;
} cpu_buffer;

typedef struct launch_state {
    cpu_ctx c;
    cpu_buffer *bufs;
    size_t *offset; /* per value: byte offset of its slot in the slab, SIZE_MAX if none */
} launch_state;

static bool internal(cpu_ctx *c, const ir_op *op, const char *what)
{
    sw_unreachable(c->d, "cpu executor: %s (op '%s')", what, op ? ir_ops[op->kind].name : "?");
    return false;
}

static size_t slot_bytes(ir_type t)
{
    size_t len = t.kind == TY_TILE ? (size_t)t.len : 1;
    size_t el = ir_type_is_ptrlike(t) ? sizeof(cpu_ptr) : sizeof(ir_scalar);
    return (len * el + 15) & ~(size_t)15;
}

static void copy_value(cpu_ctx *c, ir_value dst, ir_value src)
{
    memcpy(c->slot[dst], c->slot[src], slot_bytes(c->m->values[dst].type));
}

static const char *param_name(const cpu_ctx *c, int index)
{
    const char *n = c->m->values[ir_func_body(c->func)->args[index]].name;
    return n ? n : "?";
}

/* ---- setup: slots and the checks memory safety depends on ---------------- */

static bool is_ptr(const cpu_ctx *c, ir_value v) { return ir_type_is_ptrlike(c->m->values[v].type); }

static bool assign_slot(launch_state *s, ir_value v, size_t *total)
{
    ir_type t = s->c.m->values[v].type;
    if (t.kind == TY_TILE && t.len < 1)
        return internal(&s->c, NULL, "tile of length < 1");
    size_t bytes = slot_bytes(t);
    if (bytes > SIZE_MAX / 2 - *total) {
        diag_error(s->c.d, DIAG_NOMEM, "the kernel's values need more memory than can be addressed");
        return false;
    }
    s->offset[v] = *total;
    *total += bytes;
    return true;
}

/* Whether the last op of b is a sw.yield whose operands match `results`. */
static bool yields_match(const cpu_ctx *c, const ir_block *b, const ir_value *results, int n)
{
    const ir_op *y = b->last;
    if (!y)
        return n == 0;
    if (y->kind != IR_YIELD || y->noperands != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!ir_type_eq(c->m->values[y->operands[i]].type, c->m->values[results[i]].type))
            return false;
    return true;
}

/* Operand and result element kinds (pointer or not) and tile lengths: the
 * interpreter reads slots by these, so a mismatch would read past a slot. */
static bool check_shapes(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    int no = op->noperands;
    bool ptr_ok = false; /* operands/results may be pointers as the op says */
    switch (op->kind) {
    case IR_FOR: {
        if (no < 3 || op->nresults != no - 3)
            return internal(c, op, "bad sw.for arity");
        for (int i = 0; i < 3; i++)
            if (is_ptr(c, o[i]) || cpu_len(c, o[i]) != 1 || ir_dtype_is_float(cpu_dtype(c, o[i])))
                return internal(c, op, "sw.for bounds must be integer scalars");
        const ir_block *body = op->regions[0];
        if (body->nargs != 1 + op->nresults ||
            !ir_type_eq(c->m->values[body->args[0]].type, c->m->values[o[0]].type))
            return internal(c, op, "sw.for body arguments do not match");
        for (int j = 0; j < op->nresults; j++) {
            ir_type rt = c->m->values[op->results[j]].type;
            if (!ir_type_eq(rt, c->m->values[o[3 + j]].type) ||
                !ir_type_eq(rt, c->m->values[body->args[1 + j]].type))
                return internal(c, op, "sw.for carried types do not match");
        }
        if (!body->last || !yields_match(c, body, op->results, op->nresults))
            return internal(c, op, "sw.for body must end in a matching sw.yield");
        return true;
    }
    case IR_IF:
        if (is_ptr(c, o[0]) || cpu_len(c, o[0]) != 1)
            return internal(c, op, "sw.if condition must be a scalar");
        for (int r = 0; r < 2; r++)
            if (!yields_match(c, op->regions[r], op->results, op->nresults))
                return internal(c, op, "sw.if branch must end in a matching sw.yield");
        return true;
    case IR_YIELD:
    case IR_RETURN:
        return true;
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: {
        const ir_attr *a = ir_attr_get(op, "axis");
        if (!a || a->kind != ATTR_INT || a->i < 0 || a->i > 2)
            return internal(c, op, "axis must be 0, 1 or 2");
        break;
    }
    case IR_ARANGE: {
        const ir_attr *st = ir_attr_get(op, "start");
        if (!st || st->kind != ATTR_INT)
            return internal(c, op, "sw.arange needs an integer start");
        break;
    }
    case IR_LOAD:
    case IR_STORE:
        if ((op->kind == IR_LOAD && no != 1 && no != 3) || (op->kind == IR_STORE && no != 2 && no != 3))
            return internal(c, op, "bad operand count");
        if (!is_ptr(c, o[0]))
            return internal(c, op, "address must be a pointer");
        for (int i = 1; i < no; i++)
            if (is_ptr(c, o[i]))
                return internal(c, op, "mask, value and other must not be pointers");
        if (op->kind == IR_LOAD && (is_ptr(c, op->results[0]) ||
                                    cpu_dtype(c, op->results[0]) != cpu_dtype(c, o[0])))
            return internal(c, op, "result must be the pointee type");
        if (op->kind == IR_STORE && cpu_dtype(c, o[1]) != cpu_dtype(c, o[0]))
            return internal(c, op, "stored value must be the pointee type");
        break;
    case IR_ADDPTR:
        if (!is_ptr(c, o[0]) || is_ptr(c, o[1]) || !is_ptr(c, op->results[0]) ||
            ir_dtype_is_float(cpu_dtype(c, o[1])))
            return internal(c, op, "expects (pointer, integer offset) -> pointer");
        break;
    case IR_SELECT:
        if (is_ptr(c, o[0]) || is_ptr(c, o[1]) != is_ptr(c, op->results[0]) ||
            is_ptr(c, o[2]) != is_ptr(c, op->results[0]))
            return internal(c, op, "select arms and result must agree on pointer-ness");
        break;
    case IR_SPLAT:
        if (cpu_len(c, o[0]) != 1 || is_ptr(c, o[0]) != is_ptr(c, op->results[0]))
            return internal(c, op, "splat of a non-scalar");
        return true; /* the result's length is its own */
    case IR_REDUCE:
        if (cpu_len(c, op->results[0]) != 1)
            return internal(c, op, "reduce must give a scalar");
        break;
    case IR_CONSTANT:
        break;
    default:
        if (!cpu_is_value_op(op->kind))
            return internal(c, op, "op the CPU executor does not know");
        break;
    }
    ptr_ok = op->kind == IR_LOAD || op->kind == IR_STORE || op->kind == IR_ADDPTR ||
             op->kind == IR_SELECT;
    if (!ptr_ok)
        for (int i = 0; i < op->nresults; i++)
            if (is_ptr(c, op->results[i]))
                return internal(c, op, "unexpected pointer result");
    for (int i = 0; i < no && !ptr_ok; i++)
        if (is_ptr(c, o[i]))
            return internal(c, op, "unexpected pointer operand");
    if (op->kind == IR_REDUCE)
        return true;
    /* Everything else is elementwise over one length (constants, arange
     * and program ids have no operands and any result length). */
    int32_t len = op->nresults ? cpu_len(c, op->results[0]) : cpu_len(c, o[0]);
    for (int i = 0; i < no; i++)
        if (cpu_len(c, o[i]) != len)
            return internal(c, op, "operands of different lengths");
    return true;
}

static bool prepare_block(launch_state *s, const ir_block *b, size_t *total, bool func_body)
{
    cpu_ctx *c = &s->c;
    for (int i = 0; i < b->nargs; i++)
        if (!assign_slot(s, b->args[i], total))
            return false;
    for (const ir_op *op = b->first; op; op = op->next) {
        const ir_op_info *info = &ir_ops[op->kind < IR_OP_COUNT ? op->kind : 0];
        if (op->kind >= IR_OP_COUNT || op->kind == IR_FUNC ||
            (info->noperands != VAR && op->noperands != info->noperands) ||
            (info->nresults != VAR && op->nresults != info->nresults) ||
            op->nregions != info->nregions)
            return internal(c, op->kind < IR_OP_COUNT ? op : NULL, "malformed op");
        if ((op->kind == IR_RETURN && !func_body) || (op->kind == IR_YIELD && func_body) ||
            ((info->flags & F_TERM) && op->next))
            return internal(c, op, "misplaced terminator");
        for (int i = 0; i < op->noperands; i++) {
            ir_value v = op->operands[i];
            if (v < 0 || v >= c->m->nvalues || s->offset[v] == SIZE_MAX)
                return internal(c, op, "operand not defined before its use");
        }
        if (!check_shapes(c, op))
            return false;
        for (int r = 0; r < op->nregions; r++)
            if (!prepare_block(s, op->regions[r], total, false))
                return false;
        for (int i = 0; i < op->nresults; i++)
            if (!assign_slot(s, op->results[i], total))
                return false;
    }
    return true;
}

/* sw.constant, sw.arange and sw.num_programs do not depend on the program,
 * and only their own op writes their slot: evaluate them once per launch. */
static void eval_invariants(cpu_ctx *c, const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            eval_invariants(c, op->regions[r]);
        if (op->kind != IR_CONSTANT && op->kind != IR_ARANGE && op->kind != IR_NUM_PROGRAMS)
            continue;
        ir_value r = op->results[0];
        ir_dtype dt = cpu_dtype(c, r);
        ir_scalar *o = cpu_vals(c, r);
        int32_t n = cpu_len(c, r);
        if (op->kind == IR_CONSTANT) {
            ir_scalar v = ir_scalar_from_attr(dt, ir_attr_get(op, "value"));
            for (int32_t i = 0; i < n; i++)
                o[i] = v;
        } else if (op->kind == IR_ARANGE) {
            int64_t start = ir_attr_get(op, "start")->i;
            for (int32_t i = 0; i < n; i++)
                o[i] = ir_scalar_from_int(dt, (int64_t)((uint64_t)start + (uint64_t)i));
        } else {
            o[0] = ir_scalar_from_int(dt, c->grid[ir_attr_get(op, "axis")->i]);
        }
    }
}

/* ---- arguments ------------------------------------------------------------ */

static const char *arg_kind_name(cpu_arg_kind k)
{
    switch (k) {
    case CPU_ARG_BUFFER: return "a buffer";
    case CPU_ARG_INT: return "an integer";
    case CPU_ARG_FLOAT: return "a float";
    default: return "an unknown kind";
    }
}

/* Binds argument i to parameter i: pointers need a buffer, integer
 * parameters an integer (wrapped to the dtype; i1 takes != 0), float
 * parameters a float or an integer (rounded to the dtype). */
static bool bind_arg(launch_state *s, int i)
{
    cpu_ctx *c = &s->c;
    const cpu_arg *a = &c->args[i];
    ir_value p = ir_func_body(c->func)->args[i];
    ir_type t = c->m->values[p].type;
    char tbuf[64];
    const char *want = NULL;
    if (t.kind == TY_PTR) {
        if (a->kind != CPU_ARG_BUFFER)
            want = "a buffer";
    } else if (t.kind == TY_SCALAR && ir_dtype_is_float((ir_dtype)t.dtype)) {
        if (a->kind != CPU_ARG_FLOAT && a->kind != CPU_ARG_INT)
            want = "a float or an integer";
    } else if (t.kind == TY_SCALAR && ir_dtype_is_int((ir_dtype)t.dtype)) {
        if (a->kind != CPU_ARG_INT)
            want = "an integer";
    } else {
        diag_error(c->d, DIAG_ARGUMENT, "parameter %d ('%s') has type %s, which cannot be passed to a kernel",
                   i, param_name(c, i), ir_type_str(t, tbuf));
        return false;
    }
    if (want) {
        diag_error(c->d, DIAG_ARGUMENT, "argument %d ('%s') must be %s for parameter type %s, got %s",
                   i, param_name(c, i), want, ir_type_str(t, tbuf), arg_kind_name(a->kind));
        return false;
    }
    ir_dtype dt = (ir_dtype)t.dtype;
    if (t.kind == TY_PTR) {
        if (a->nelems < 0 || (a->nelems > 0 && !a->data)) {
            diag_error(c->d, DIAG_ARGUMENT, "argument %d ('%s') is a buffer of %lld elements at %s",
                       i, param_name(c, i), (long long)a->nelems, a->data ? "a valid address" : "NULL");
            return false;
        }
        s->bufs[i] = (cpu_buffer){a->data, a->nelems, dt, ir_dtypes[dt].bytes};
        cpu_ptrs(c, p)[0] = (cpu_ptr){.off = 0, .arg = i};
    } else if (a->kind == CPU_ARG_FLOAT) {
        cpu_vals(c, p)[0] = ir_scalar_from_float(dt, a->f);
    } else if (dt == DT_I1) {
        cpu_vals(c, p)[0] = ir_scalar_from_int(dt, a->i != 0);
    } else {
        cpu_vals(c, p)[0] = ir_scalar_from_int(dt, a->i);
    }
    return true;
}

/* ---- memory ---------------------------------------------------------------- */

/* Checks one lane's access; an out-of-bounds one is the user's error. */
static inline bool check_access(launch_state *s, const ir_op *op, cpu_ptr p, ir_dtype dt)
{
    cpu_ctx *c = &s->c;
    if (p.arg < 0 || p.arg >= c->nargs || s->bufs[p.arg].dt != dt)
        return internal(c, op, "pointer does not point into a buffer of its type");
    if (p.off >= 0 && p.off < s->bufs[p.arg].nelems)
        return true;
    diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc,
                  "%s out of bounds: element %lld of argument %d ('%s', %lld elements) "
                  "in program (%lld, %lld, %lld)",
                  ir_ops[op->kind].name, (long long)p.off, (int)p.arg, param_name(c, p.arg),
                  (long long)s->bufs[p.arg].nelems, (long long)c->pid[0], (long long)c->pid[1],
                  (long long)c->pid[2]);
    return false;
}

static void *element_at(const launch_state *s, cpu_ptr p)
{
    const cpu_buffer *b = &s->bufs[p.arg];
    return b->data + (size_t)p.off * (size_t)b->elsize;
}

/* Masked-off lanes take `other` and touch no memory. */
static bool exec_load(launch_state *s, const ir_op *op)
{
    cpu_ctx *c = &s->c;
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r);
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[1]) : NULL;
    const ir_scalar *other = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    ir_scalar *o = cpu_vals(c, r);
    for (int32_t i = 0; i < n; i++) {
        if (mask && !mask[i].i) {
            o[i] = other[i];
            continue;
        }
        if (!check_access(s, op, p[i], dt))
            return false;
        if (dt == DT_F32 && !c->generic_only) {
            float f;
            memcpy(&f, element_at(s, p[i]), sizeof f);
            o[i].f = f;
        } else {
            o[i] = ir_scalar_load(dt, element_at(s, p[i]));
        }
    }
    return true;
}

/* Every active lane is checked before any is written, so a failing store
 * writes nothing. Lanes are written in order: when several lanes hit one
 * element, the last lane wins. */
static bool exec_store(launch_state *s, const ir_op *op)
{
    cpu_ctx *c = &s->c;
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *v = cpu_vals(c, op->operands[1]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    ir_dtype dt = cpu_dtype(c, op->operands[1]);
    int32_t n = cpu_len(c, op->operands[0]);
    for (int32_t i = 0; i < n; i++)
        if ((!mask || mask[i].i) && !check_access(s, op, p[i], dt))
            return false;
    for (int32_t i = 0; i < n; i++) {
        if (mask && !mask[i].i)
            continue;
        if (dt == DT_F32 && !c->generic_only) {
            float f = (float)v[i].f;
            memcpy(element_at(s, p[i]), &f, sizeof f);
        } else {
            ir_scalar_store(dt, element_at(s, p[i]), v[i]);
        }
    }
    return true;
}

/* Offsets wrap in int64 instead of overflowing: a wild pointer is caught
 * by the bounds check when (if ever) it is used. */
static void exec_addptr(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    int32_t n = cpu_len(c, r);
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *off = cpu_vals(c, op->operands[1]);
    cpu_ptr *o = cpu_ptrs(c, r);
    for (int32_t i = 0; i < n; i++) {
        uint64_t sum = (uint64_t)p[i].off + (uint64_t)off[i].i;
        o[i] = p[i];
        o[i].off = sum <= (uint64_t)INT64_MAX ? (int64_t)sum : -(int64_t)(~sum) - 1;
    }
}

/* ---- control flow ------------------------------------------------------- */

static bool exec_block(launch_state *s, const ir_block *b, const ir_op **term);

/* Python range(lb, ub, step) over the induction variable's type. The trip
 * count is computed in uint64 first, so no iv increment can overflow. */
static bool exec_for(launch_state *s, const ir_op *op)
{
    cpu_ctx *c = &s->c;
    int64_t lb = cpu_vals(c, op->operands[0])[0].i;
    int64_t ub = cpu_vals(c, op->operands[1])[0].i;
    int64_t step = cpu_vals(c, op->operands[2])[0].i;
    ir_dtype ivdt = cpu_dtype(c, op->operands[0]);
    if (step == 0) {
        diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc, "range() step must not be zero");
        return false;
    }
    uint64_t trips = 0;
    if (step > 0 && lb < ub)
        trips = ((uint64_t)ub - (uint64_t)lb - 1) / (uint64_t)step + 1;
    else if (step < 0 && lb > ub)
        trips = ((uint64_t)lb - (uint64_t)ub - 1) / ((uint64_t)0 - (uint64_t)step) + 1;
    int ncarried = op->nresults;
    for (int j = 0; j < ncarried; j++)
        copy_value(c, op->results[j], op->operands[3 + j]);
    const ir_block *body = op->regions[0];
    for (uint64_t k = 0; k < trips; k++) {
        uint64_t iv = (uint64_t)lb + k * (uint64_t)step; /* exact: within [lb, ub) */
        cpu_vals(c, body->args[0])[0] =
            ir_scalar_from_int(ivdt, iv <= (uint64_t)INT64_MAX ? (int64_t)iv : -(int64_t)(~iv) - 1);
        for (int j = 0; j < ncarried; j++)
            copy_value(c, body->args[1 + j], op->results[j]);
        const ir_op *yield;
        if (!exec_block(s, body, &yield))
            return false;
        for (int j = 0; j < ncarried; j++)
            copy_value(c, op->results[j], yield->operands[j]);
    }
    return true;
}

static bool exec_if(launch_state *s, const ir_op *op)
{
    cpu_ctx *c = &s->c;
    const ir_block *branch = op->regions[cpu_vals(c, op->operands[0])[0].i ? 0 : 1];
    const ir_op *yield;
    if (!exec_block(s, branch, &yield))
        return false;
    for (int j = 0; j < op->nresults; j++)
        copy_value(c, op->results[j], yield->operands[j]);
    return true;
}

/* Runs b's ops; *term gets its terminator (sw.yield / func.return). */
static bool exec_block(launch_state *s, const ir_block *b, const ir_op **term)
{
    cpu_ctx *c = &s->c;
    *term = NULL;
    for (const ir_op *op = b->first; op; op = op->next) {
        switch (op->kind) {
        case IR_CONSTANT:
        case IR_ARANGE:
        case IR_NUM_PROGRAMS:
            break; /* evaluated once per launch (eval_invariants) */
        case IR_PROGRAM_ID:
            cpu_vals(c, op->results[0])[0] =
                ir_scalar_from_int(cpu_dtype(c, op->results[0]), c->pid[ir_attr_get(op, "axis")->i]);
            break;
        case IR_ADDPTR:
            exec_addptr(c, op);
            break;
        case IR_LOAD:
            if (!exec_load(s, op))
                return false;
            break;
        case IR_STORE:
            if (!exec_store(s, op))
                return false;
            break;
        case IR_FOR:
            if (!exec_for(s, op))
                return false;
            break;
        case IR_IF:
            if (!exec_if(s, op))
                return false;
            break;
        case IR_YIELD:
        case IR_RETURN:
            *term = op;
            return true;
        default:
            if (!cpu_exec_value_op(c, op))
                return false;
            break;
        }
    }
    return true;
}

/* ---- launch --------------------------------------------------------------- */

static bool prepare(launch_state *s)
{
    cpu_ctx *c = &s->c;
    const ir_module *m = c->m;
    const ir_block *body = ir_func_body(c->func);
    if (c->nargs != body->nargs) {
        diag_error(c->d, DIAG_ARGUMENT, "kernel '%s' takes %d argument%s, got %d", ir_func_name(c->func),
                   body->nargs, body->nargs == 1 ? "" : "s", c->nargs);
        return false;
    }
    s->offset = malloc(sizeof(size_t) * (size_t)(m->nvalues ? m->nvalues : 1));
    c->slot = calloc((size_t)(m->nvalues ? m->nvalues : 1), sizeof(void *));
    s->bufs = calloc((size_t)(c->nargs ? c->nargs : 1), sizeof(cpu_buffer));
    if (!s->offset || !c->slot || !s->bufs) {
        diag_error(c->d, DIAG_NOMEM, "out of memory preparing the CPU executor");
        return false;
    }
    for (int32_t v = 0; v < m->nvalues; v++)
        s->offset[v] = SIZE_MAX;
    size_t total = 0;
    if (!prepare_block(s, body, &total, true))
        return false;
    c->slab = calloc(total ? total : 1, 1);
    if (!c->slab) {
        diag_error(c->d, DIAG_NOMEM, "out of memory: the kernel's values need %zu bytes", total);
        return false;
    }
    for (int32_t v = 0; v < m->nvalues; v++)
        if (s->offset[v] != SIZE_MAX)
            c->slot[v] = c->slab + s->offset[v];
    for (int i = 0; i < c->nargs; i++)
        if (!bind_arg(s, i))
            return false;
    eval_invariants(c, body);
    return true;
}

static bool run_grid(launch_state *s)
{
    cpu_ctx *c = &s->c;
    const ir_block *body = ir_func_body(c->func);
    for (int64_t z = 0; z < c->grid[2]; z++)
        for (int64_t y = 0; y < c->grid[1]; y++)
            for (int64_t x = 0; x < c->grid[0]; x++) {
                c->pid[0] = x, c->pid[1] = y, c->pid[2] = z;
                const ir_op *term;
                if (!exec_block(s, body, &term))
                    return false;
            }
    return true;
}

bool cpu_exec_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d)
{
    const ir_op *func = m ? ir_module_func(m) : NULL;
    if (!func) {
        diag_error(d, DIAG_ARGUMENT, "the module has no func.func to run");
        return false;
    }
    if (!grid || nargs < 0 || (nargs > 0 && !args)) {
        diag_error(d, DIAG_ARGUMENT, "cpu_exec_launch needs a grid and %d arguments", nargs);
        return false;
    }
    for (int i = 0; i < 3; i++)
        if (grid[i] < 0 || grid[i] > INT32_MAX) {
            diag_error(d, DIAG_ARGUMENT, "grid[%d] is %lld; grid sizes must be between 0 and %d", i,
                       (long long)grid[i], INT32_MAX);
            return false;
        }
    launch_state s = {.c = {.m = m, .d = d, .func = func, .args = args, .nargs = nargs}};
    memcpy(s.c.grid, grid, sizeof s.c.grid);
    const char *generic = getenv("SWAGE_CPU_GENERIC");
    s.c.generic_only = generic && *generic && strcmp(generic, "0") != 0;
    /* Internal errors are returned, not longjmp'd, so the storage below
     * is always freed. */
    jmp_buf *bail = d->bail;
    d->bail = NULL;
    bool ok = prepare(&s) && run_grid(&s);
    d->bail = bail;
    free(s.offset);
    free(s.bufs);
    free(s.c.slot);
    free(s.c.slab);
    return ok;
}
