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
#include "../../ir/atomic.h"

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
        if ((mask && !mask[i].i) || !cpu_thread_active(c, i / slots)) {
            o[i] = other ? other[i] : (ir_scalar){0};
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

/* Every lane a store or an atomic will write is checked before any is. */
static bool check_writes(cpu_ctx *c, const ir_op *op, const cpu_ptr *p, const ir_scalar *mask, ir_dtype dt,
                         int32_t n, int32_t slots)
{
    for (int32_t i = 0; i < n; i++)
        if ((!mask || mask[i].i) && cpu_thread_active(c, i / slots) &&
            !check_access(c, op, p[i], dt, i, slots))
            return false;
    return true;
}

bool cpu_exec_store(cpu_ctx *c, const ir_op *op)
{
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *v = cpu_vals(c, op->operands[1]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    ir_dtype dt = cpu_dtype(c, op->operands[1]);
    int32_t n = cpu_len(c, op->operands[0]), slots = cpu_slots(c, op->operands[0]);
    if (!check_writes(c, op, p, mask, dt, n, slots))
        return false;
    for (int32_t i = 0; i < n; i++) {
        if ((mask && !mask[i].i) || !cpu_thread_active(c, i / slots))
            continue;
        if (!cpu_journal_note(c, p[i].arg, p[i].off))
            return false;
        if (dt == DT_F32 && !c->generic_only) {
            float f = (float)v[i].f;
            memcpy(element_at(c, p[i]), &f, sizeof f);
        } else {
            ir_scalar_store(dt, element_at(c, p[i]), v[i]);
        }
    }
    return true;
}

bool cpu_exec_atomic(cpu_ctx *c, const ir_op *op)
{
    bool cas = op->kind == IR_ATOMIC_CAS || op->kind == IR_SIMT_ATOMIC_CAS;
    int nvals = cas ? 2 : 1; /* (cmp,) value after the pointer */
    const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
    const ir_scalar *cmp = cas ? cpu_vals(c, op->operands[1]) : NULL;
    const ir_scalar *v = cpu_vals(c, op->operands[nvals]);
    const ir_scalar *mask = op->noperands == 2 + nvals ? cpu_vals(c, op->operands[1 + nvals]) : NULL;
    ir_atomic_kind kind = cas ? IR_ATOM_KIND_COUNT : ir_atomic_kind_from_name(ir_attr_get(op, "kind")->s);
    ir_scalar *o = cpu_vals(c, op->results[0]);
    ir_dtype dt = cpu_dtype(c, op->operands[nvals]);
    int32_t n = cpu_len(c, op->operands[0]), slots = cpu_slots(c, op->operands[0]);
    if (!check_writes(c, op, p, mask, dt, n, slots))
        return false;
    /* Slot by slot (one instruction each on a GPU), each slot's lanes in
     * thread order; the semantic executor has one thread, so that is
     * element order. */
    for (int32_t j = 0; j < slots; j++)
        for (int32_t t = 0; t < c->threads; t++) {
            int32_t i = t * slots + j;
            if ((mask && !mask[i].i) || !cpu_thread_active(c, t)) {
                o[i] = (ir_scalar){0};
                continue;
            }
            if (!cpu_journal_note(c, p[i].arg, p[i].off))
                return false;
            void *at = element_at(c, p[i]);
            o[i] = cas ? ir_atomic_cas_apply(dt, at, cmp[i], v[i]) : ir_atomic_rmw_apply(kind, dt, at, v[i]);
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

/* Per-thread scratch for one level of control flow (trip counts, saved
 * active masks): a stack sized by cpu_prepare for the function's deepest
 * nesting, so it never moves while a level uses it. */
static void *ctl_take(cpu_ctx *c, size_t bytes, size_t *mark)
{
    bytes = (bytes + 15) & ~(size_t)15;
    *mark = c->ctl_used;
    if (!c->ctl || c->ctl_used + bytes > c->ctl_cap) {
        sw_unreachable(c->d, "cpu executor: control flow nested deeper than prepared");
        return NULL;
    }
    c->ctl_used += bytes;
    return c->ctl + *mark;
}

static void ctl_release(cpu_ctx *c, size_t mark) { c->ctl_used = mark; }

/* One thread's integer scalar (a condition or a loop bound). */
static int64_t scalar_of(const cpu_ctx *c, ir_value v, int32_t t) { return cpu_vals(c, v)[t].i; }

/* Whether every active thread holds the same value of v (then *out is it). */
static bool uniform_value(const cpu_ctx *c, ir_value v, int64_t *out)
{
    bool any = false;
    for (int32_t t = 0; t < c->threads; t++) {
        if (!cpu_thread_active(c, t))
            continue;
        int64_t x = scalar_of(c, v, t);
        if (any && x != *out)
            return false;
        *out = x, any = true;
    }
    if (!any)
        *out = 0;
    return true;
}

/* Python range(lb, ub, step) trips, computed in uint64 so no increment can
 * overflow. */
static uint64_t trip_count(int64_t lb, int64_t ub, int64_t step)
{
    if (step > 0 && lb < ub)
        return ((uint64_t)ub - (uint64_t)lb - 1) / (uint64_t)step + 1;
    if (step < 0 && lb > ub)
        return ((uint64_t)lb - (uint64_t)ub - 1) / ((uint64_t)0 - (uint64_t)step) + 1;
    return 0;
}

static ir_scalar iv_at(ir_dtype ivdt, int64_t lb, int64_t step, uint64_t k)
{
    uint64_t iv = (uint64_t)lb + k * (uint64_t)step; /* exact: within [lb, ub) */
    return ir_scalar_from_int(ivdt, iv <= (uint64_t)INT64_MAX ? (int64_t)iv : -(int64_t)(~iv) - 1);
}

/* Iteration k of a loop body: carried values in, the body, carried values
 * out (for the threads that ran it). */
static bool run_iteration(cpu_ctx *c, const ir_op *op)
{
    const ir_block *body = op->regions[0];
    for (int j = 0; j < op->nresults; j++)
        cpu_copy_value(c, body->args[1 + j], op->results[j]);
    const ir_op *yield;
    if (!cpu_exec_block(c, body, &yield))
        return false;
    for (int j = 0; j < op->nresults; j++)
        cpu_copy_value_active(c, op->results[j], yield->operands[j]);
    return true;
}

/* sw.for: every active thread runs range(lb, ub, step) of its own bounds.
 * When they agree the loop runs once for all of them; otherwise iteration
 * k runs with the threads that have a k-th iteration active, and each
 * thread's results are its carried values after its own last iteration. */
static bool exec_for(cpu_ctx *c, const ir_op *op)
{
    int64_t lb, ub, step;
    bool uniform = uniform_value(c, op->operands[0], &lb) && uniform_value(c, op->operands[1], &ub) &&
                   uniform_value(c, op->operands[2], &step);
    ir_dtype ivdt = cpu_dtype(c, op->operands[0]);
    for (int32_t t = 0; t < c->threads; t++)
        if (cpu_thread_active(c, t) && scalar_of(c, op->operands[2], t) == 0) {
            diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc, "range() step must not be zero");
            return false;
        }
    for (int j = 0; j < op->nresults; j++)
        cpu_copy_value_active(c, op->results[j], op->operands[3 + j]);
    ir_scalar *ivslot = cpu_vals(c, op->regions[0]->args[0]);
    if (uniform) {
        uint64_t trips = trip_count(lb, ub, step);
        for (uint64_t k = 0; k < trips; k++) {
            if (cpu_cancelled(c))
                return false;
            ir_scalar ivs = iv_at(ivdt, lb, step, k);
            for (int32_t t = 0; t < c->threads; t++)
                ivslot[t] = ivs;
            if (!run_iteration(c, op))
                return false;
        }
        return true;
    }
    size_t mark;
    size_t bytes = (size_t)c->threads * (sizeof(uint64_t) + 2);
    if (!ctl_take(c, bytes, &mark))
        return false;
    uint64_t most = 0;
#define TRIPS ((uint64_t *)(c->ctl + mark))
#define OUTER (c->ctl + mark + (size_t)c->threads * sizeof(uint64_t))
#define INNER (OUTER + c->threads)
    for (int32_t t = 0; t < c->threads; t++) {
        OUTER[t] = cpu_thread_active(c, t);
        TRIPS[t] = OUTER[t] ? trip_count(scalar_of(c, op->operands[0], t), scalar_of(c, op->operands[1], t),
                                         scalar_of(c, op->operands[2], t)) : 0;
        if (TRIPS[t] > most)
            most = TRIPS[t];
    }
    uint8_t *saved = c->active;
    bool ok = true;
    for (uint64_t k = 0; ok && k < most; k++) {
        if (cpu_cancelled(c)) {
            ok = false;
            break;
        }
        for (int32_t t = 0; t < c->threads; t++) {
            INNER[t] = OUTER[t] && k < TRIPS[t];
            if (INNER[t])
                ivslot[t] = iv_at(ivdt, scalar_of(c, op->operands[0], t),
                                  scalar_of(c, op->operands[2], t), k);
        }
        c->active = INNER;
        ok = run_iteration(c, op);
    }
#undef TRIPS
#undef OUTER
#undef INNER
    c->active = saved;
    ctl_release(c, mark);
    return ok;
}

/* sw.while: each active thread runs the body while its condition holds;
 * iteration k runs with the threads still looping (all of them while they
 * agree), and each thread's results are its carried values when its
 * condition turned false. */
static bool exec_while(cpu_ctx *c, const ir_op *op)
{
    const ir_block *body = op->regions[0];
    for (int j = 0; j < op->nresults; j++)
        cpu_copy_value_active(c, op->results[j], op->operands[1 + j]);
    size_t mark = 0;
    uint8_t single;
    uint8_t *run = &single; /* one thread (the semantic executor): no ctl stack */
    if (c->threads > 1) {
        if (!ctl_take(c, (size_t)c->threads, &mark))
            return false;
        run = c->ctl + mark;
    }
    uint8_t *saved = c->active;
    ir_value cond = op->operands[0];
    bool ok = true;
    for (bool first = true;; first = false) {
        int32_t running = 0;
        for (int32_t t = 0; t < c->threads; t++) {
            run[t] = (first ? !saved || saved[t] : run[t]) && scalar_of(c, cond, t) != 0;
            running += run[t];
        }
        if (!running)
            break;
        if (cpu_cancelled(c)) {
            ok = false;
            break;
        }
        /* Every thread of the launch still looping: no mask at all. */
        c->active = !saved && running == c->threads ? NULL : run;
        for (int j = 0; j < op->nresults; j++)
            cpu_copy_value(c, body->args[j], op->results[j]);
        const ir_op *yield;
        if (!cpu_exec_block(c, body, &yield)) {
            ok = false;
            break;
        }
        for (int j = 0; j < op->nresults; j++)
            cpu_copy_value_active(c, op->results[j], yield->operands[1 + j]);
        cond = yield->operands[0];
    }
    c->active = saved;
    if (c->threads > 1)
        ctl_release(c, mark);
    return ok;
}

/* sw.if: when the active threads disagree, each region runs with the
 * threads that take it, and each thread's results come from its region. */
static bool exec_if(cpu_ctx *c, const ir_op *op)
{
    int64_t cond;
    const ir_op *yield;
    if (uniform_value(c, op->operands[0], &cond)) {
        if (!cpu_exec_block(c, op->regions[cond ? 0 : 1], &yield))
            return false;
        for (int j = 0; j < op->nresults; j++)
            cpu_copy_value_active(c, op->results[j], yield->operands[j]);
        return true;
    }
    size_t mark;
    if (!ctl_take(c, (size_t)c->threads, &mark))
        return false;
    uint8_t *saved = c->active;
    bool ok = true;
    for (int r = 0; ok && r < 2; r++) {
        uint8_t *taken = c->ctl + mark;
        for (int32_t t = 0; t < c->threads; t++)
            taken[t] = (!saved || saved[t]) && (scalar_of(c, op->operands[0], t) != 0) == (r == 0);
        c->active = taken;
        ok = cpu_exec_block(c, op->regions[r], &yield);
        for (int j = 0; ok && j < op->nresults; j++)
            cpu_copy_value_active(c, op->results[j], yield->operands[j]);
    }
    c->active = saved;
    ctl_release(c, mark);
    return ok;
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
        case IR_ATOMIC_RMW:
        case IR_ATOMIC_CAS:
            if (!cpu_exec_atomic(c, op))
                return false;
            break;
        case IR_FENCE:
        case IR_BARRIER:
            break;
        case IR_PRINT:
            if (!cpu_exec_print(c, op))
                return false;
            break; /* one program at a time: memory is always in order */
        case IR_FOR:
            if (!exec_for(c, op))
                return false;
            break;
        case IR_IF:
            if (!exec_if(c, op))
                return false;
            break;
        case IR_WHILE:
            if (!exec_while(c, op))
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
            } else if (cpu_is_scan_op(op->kind)) {
                if (!cpu_scan_exec_op(c, op))
                    return false;
            } else if (cpu_is_shape_op(op->kind)) {
                if (!cpu_shape_exec_op(c, op))
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
                   .seg_len = -1, .cancel = cpu_cancel_flag()};
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
                if (cpu_cancelled(c))
                    return false;
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

bool cpu_launch_journal(cpu_ctx *c, cpu_journal *shared, cpu_journal **own)
{
    *own = NULL;
    c->journal = shared;
    if (!shared && !(c->journal = *own = cpu_journal_new())) {
        diag_error(c->d, DIAG_NOMEM, "out of memory starting a CPU launch");
        return false;
    }
    return true;
}

void cpu_launch_finish(cpu_ctx *c, cpu_journal *own, bool ok)
{
    if (!ok)
        cpu_journal_rollback(own);
    cpu_journal_free(own);
    c->journal = NULL;
}

bool cpu_exec_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d)
{
    return cpu_exec_launch_with(m, grid, args, nargs, NULL, d);
}

bool cpu_exec_launch_with(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                          cpu_journal *journal, diag *d)
{
    cpu_ctx c;
    cpu_journal *own;
    if (!cpu_init_launch(&c, m, grid, args, nargs, d, "cpu_exec_launch") ||
        !cpu_launch_journal(&c, journal, &own))
        return false;
    /* Internal errors are returned, not longjmp'd, so the storage is
     * always freed and the journal rolled back. */
    jmp_buf *bail = d->bail;
    d->bail = NULL;
    bool ok = cpu_prepare(&c) && cpu_segment_check_grid(&c) && cpu_run_grid(&c);
    d->bail = bail;
    cpu_release(&c);
    cpu_launch_finish(&c, own, ok);
    return ok;
}
