/* cpu_exec.c - the interpreter core both CPU executors share (bounds-checked
 * memory, structured control flow, the grid loop) and the semantic
 * executor's entry point (cpu_exec.h). Requires slots set up by
 * cpu_setup.c; guarantees no host memory is touched outside the argument
 * buffers, no allocation per program (segment programs: only when a
 * segment is longer than every earlier one), and, at SIMT level, that control flow
 * never diverges between threads (a DIAG_INTERNAL error otherwise). Set
 * SWAGE_CPU_GENERIC=1 to run every value op through scalar.h's generic path
 * only (for checking the fast loops). */
#include "cpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ---------------------------------------------------------------- */

bool cpu_out_of_bounds(cpu_ctx *c, const ir_op *op, cpu_ptr p, int32_t lane, int32_t slots)
{
    char where[96], thread[48] = "";
    if (c->segment_program)
        snprintf(where, sizeof where, "segment %lld", (long long)c->pid[0]);
    else
        snprintf(where, sizeof where, "program (%lld, %lld, %lld)", (long long)c->pid[0],
                 (long long)c->pid[1], (long long)c->pid[2]);
    if (c->simt)
        snprintf(thread, sizeof thread, ", thread %d", (int)(lane / slots));
    diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc,
                  "%s out of bounds: element %lld of argument %d ('%s', %lld elements) in %s%s",
                  ir_ops[op->kind].name, (long long)p.off, (int)p.arg, cpu_param_name(c, p.arg),
                  (long long)c->bufs[p.arg].nelems, where, thread);
    return false;
}

/* Checks one lane's access; an out-of-bounds one is the user's error. At
 * SIMT level the message also names the thread that holds the lane. */
static inline bool check_access(cpu_ctx *c, const ir_op *op, cpu_ptr p, ir_dtype dt, int32_t lane,
                                int32_t slots)
{
    if (p.arg < 0 || p.arg >= c->nargs || c->bufs[p.arg].dt != dt)
        return cpu_internal(c, op, "pointer does not point into a buffer of its type");
    if (p.off >= 0 && p.off < c->bufs[p.arg].nelems)
        return true;
    return cpu_out_of_bounds(c, op, p, lane, slots);
}

static void *element_at(const cpu_ctx *c, cpu_ptr p)
{
    const cpu_buffer *b = &c->bufs[p.arg];
    return b->data + (size_t)p.off * (size_t)b->elsize;
}

bool cpu_exec_load(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r), slots = cpu_slots(c, r);
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[1]) : NULL;
    const ir_scalar *other = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    ir_scalar *o = cpu_vals(c, r);
    for (int32_t i = 0; i < n; i++) {
        if (mask && !mask[i].i) {
            o[i] = other[i];
            continue;
        }
        if (!check_access(c, op, p[i], dt, i, slots))
            return false;
        if (dt == DT_F32 && !c->generic_only) {
            float f;
            memcpy(&f, element_at(c, p[i]), sizeof f);
            o[i].f = f;
        } else {
            o[i] = ir_scalar_load(dt, element_at(c, p[i]));
        }
    }
    return true;
}

bool cpu_exec_store(cpu_ctx *c, const ir_op *op)
{
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *v = cpu_vals(c, op->operands[1]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    ir_dtype dt = cpu_dtype(c, op->operands[1]);
    int32_t n = cpu_len(c, op->operands[0]), slots = cpu_slots(c, op->operands[0]);
    for (int32_t i = 0; i < n; i++)
        if ((!mask || mask[i].i) && !check_access(c, op, p[i], dt, i, slots))
            return false;
    for (int32_t i = 0; i < n; i++) {
        if (mask && !mask[i].i)
            continue;
        if (dt == DT_F32 && !c->generic_only) {
            float f = (float)v[i].f;
            memcpy(element_at(c, p[i]), &f, sizeof f);
        } else {
            ir_scalar_store(dt, element_at(c, p[i]), v[i]);
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

/* The value of the integer scalar v (a condition or a loop bound). At SIMT
 * level every thread must hold the same value: the lowering makes all
 * control flow uniform, so a difference is a lowering bug. */
static bool uniform_scalar(cpu_ctx *c, const ir_op *op, ir_value v, const char *what, int64_t *out)
{
    const ir_scalar *s = cpu_vals(c, v);
    for (int32_t t = 1; t < c->threads; t++)
        if (s[t].i != s[0].i) {
            char loc[256];
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "divergent control flow in SIMT program at %s: the %s of '%s' is %lld "
                          "in thread 0 but %lld in thread %d",
                          cpu_loc_text(c, op->loc, loc), what, ir_ops[op->kind].name,
                          (long long)s[0].i, (long long)s[t].i, (int)t);
            return false;
        }
    *out = s[0].i;
    return true;
}

/* Python range(lb, ub, step) over the induction variable's type. The trip
 * count is computed in uint64 first, so no iv increment can overflow. */
static bool exec_for(cpu_ctx *c, const ir_op *op)
{
    int64_t lb, ub, step;
    if (!uniform_scalar(c, op, op->operands[0], "lower bound", &lb) ||
        !uniform_scalar(c, op, op->operands[1], "upper bound", &ub) ||
        !uniform_scalar(c, op, op->operands[2], "step", &step))
        return false;
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
        cpu_copy_value(c, op->results[j], op->operands[3 + j]);
    const ir_block *body = op->regions[0];
    ir_scalar *ivslot = cpu_vals(c, body->args[0]);
    for (uint64_t k = 0; k < trips; k++) {
        uint64_t iv = (uint64_t)lb + k * (uint64_t)step; /* exact: within [lb, ub) */
        ir_scalar ivs =
            ir_scalar_from_int(ivdt, iv <= (uint64_t)INT64_MAX ? (int64_t)iv : -(int64_t)(~iv) - 1);
        for (int32_t t = 0; t < c->threads; t++)
            ivslot[t] = ivs;
        for (int j = 0; j < ncarried; j++)
            cpu_copy_value(c, body->args[1 + j], op->results[j]);
        const ir_op *yield;
        if (!cpu_exec_block(c, body, &yield))
            return false;
        for (int j = 0; j < ncarried; j++)
            cpu_copy_value(c, op->results[j], yield->operands[j]);
    }
    return true;
}

static bool exec_if(cpu_ctx *c, const ir_op *op)
{
    int64_t cond;
    if (!uniform_scalar(c, op, op->operands[0], "condition", &cond))
        return false;
    const ir_op *yield;
    if (!cpu_exec_block(c, op->regions[cond ? 0 : 1], &yield))
        return false;
    for (int j = 0; j < op->nresults; j++)
        cpu_copy_value(c, op->results[j], yield->operands[j]);
    return true;
}

bool cpu_exec_block(cpu_ctx *c, const ir_block *b, const ir_op **term)
{
    *term = NULL;
    for (const ir_op *op = b->first; op; op = op->next) {
        switch (op->kind) {
        case IR_CONSTANT:
            if (cpu_is_segval(c, op->results[0]) && !cpu_segment_exec_op(c, op))
                return false;
            break; /* other constants are evaluated once per launch (cpu_setup.c) */
        case IR_ARANGE:
        case IR_NUM_PROGRAMS:
            break; /* evaluated once per launch (cpu_setup.c) */
        case IR_PROGRAM_ID:
            cpu_vals(c, op->results[0])[0] =
                ir_scalar_from_int(cpu_dtype(c, op->results[0]), c->pid[ir_attr_get(op, "axis")->i]);
            break;
        case IR_ADDPTR:
            exec_addptr(c, op);
            break;
        case IR_LOAD:
            if (!cpu_exec_load(c, op))
                return false;
            break;
        case IR_STORE:
            if (!cpu_exec_store(c, op))
                return false;
            break;
        case IR_FOR:
            if (!exec_for(c, op))
                return false;
            break;
        case IR_IF:
            if (!exec_if(c, op))
                return false;
            break;
        case IR_YIELD:
        case IR_RETURN:
            *term = op;
            return true;
        default:
            if (cpu_is_simt_op(op->kind)) {
                if (!cpu_simt_exec_op(c, op))
                    return false;
            } else if (cpu_is_segment_op(op->kind)) {
                if (!cpu_segment_exec_op(c, op))
                    return false;
            } else if (c->seg_len < 0 && op->nresults && cpu_is_segval(c, op->results[0])) {
                return cpu_segment_unknown_length(c, op);
            } else if (!cpu_exec_value_op(c, op)) {
                return false;
            }
            break;
        }
    }
    return true;
}

/* ---- launch --------------------------------------------------------------- */

bool cpu_init_launch(cpu_ctx *c, const ir_module *m, const int64_t grid[3], const cpu_arg *args,
                     int nargs, diag *d, const char *who)
{
    const ir_op *func = m ? ir_module_func(m) : NULL;
    if (!func) {
        diag_error(d, DIAG_ARGUMENT, "the module has no func.func to run");
        return false;
    }
    if (!grid || nargs < 0 || (nargs > 0 && !args)) {
        diag_error(d, DIAG_ARGUMENT, "%s needs a grid and %d arguments", who, nargs);
        return false;
    }
    for (int i = 0; i < 3; i++)
        if (grid[i] < 0 || grid[i] > INT32_MAX) {
            diag_error(d, DIAG_ARGUMENT, "grid[%d] is %lld; grid sizes must be between 0 and %d", i,
                       (long long)grid[i], INT32_MAX);
            return false;
        }
    *c = (cpu_ctx){.m = m, .d = d, .func = func, .args = args, .nargs = nargs, .threads = 1,
                   .seg_len = -1};
    memcpy(c->grid, grid, sizeof c->grid);
    const char *generic = getenv("SWAGE_CPU_GENERIC");
    c->generic_only = generic && *generic && strcmp(generic, "0") != 0;
    return true;
}

bool cpu_run_grid(cpu_ctx *c)
{
    const ir_block *body = ir_func_body(c->func);
    for (int64_t z = 0; z < c->grid[2]; z++)
        for (int64_t y = 0; y < c->grid[1]; y++)
            for (int64_t x = 0; x < c->grid[0]; x++) {
                c->pid[0] = x, c->pid[1] = y, c->pid[2] = z;
                c->seg_len = -1; /* until the program's first sw.segment */
                if (c->simt)
                    cpu_simt_begin_cta(c);
                const ir_op *term;
                if (!cpu_exec_block(c, body, &term))
                    return false;
            }
    return true;
}

bool cpu_exec_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d)
{
    cpu_ctx c;
    if (!cpu_init_launch(&c, m, grid, args, nargs, d, "cpu_exec_launch"))
        return false;
    /* Internal errors are returned, not longjmp'd, so the storage is
     * always freed. */
    jmp_buf *bail = d->bail;
    d->bail = NULL;
    bool ok = cpu_prepare(&c) && cpu_segment_check_grid(&c) && cpu_run_grid(&c);
    d->bail = bail;
    cpu_release(&c);
    return ok;
}
