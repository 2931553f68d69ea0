/* stages.c - requires verified IR; guarantees the same IR with `stage` on segment programs' ops and `sw.stages` on their functions (grid programs: none).
 *
 * `stage = k : i32` goes on every op of a segment program that touches
 * segment data or depends on a segment reduction; `sw.stages = n : i32` on
 * every segment program. Grid programs keep neither.
 *
 * The stage analysis of docs/segments.md, a forward dataflow over SSA
 * values. Every value has a stage: the number of segment reductions on the
 * longest chain of values it depends on. Parameters, block arguments of the
 * top level and results of ops without operands are at stage 0; an op is at
 * the largest stage of its operands (for sw.for / sw.if also of every value
 * their regions use); its results are at the op's stage, except that the
 * result of a segment reduction (sw.reduce of a tensor<?xT>) is at stage + 1,
 * because it exists only once a whole pass over the segment has finished.
 *
 * The schedule reads the numbers as: pass k over the segment's tiles runs
 * the ops of stage k that touch segment data (every segment op at stage <= k
 * that they use is recomputed per tile in pass k); the scalar ops of stage k
 * run after pass k-1 and before pass k; those of stage n (= sw.stages) run
 * after the last pass. n is 1 + the largest stage of an op that touches
 * segment data (0 when none does). Ops inside a sw.for / sw.if carry the
 * stage of the top-level op that holds them. */
#include "passes.h"

#include <string.h>

typedef struct stage_state {
    ir_module *m;
    diag *d;
    int32_t *stage; /* per value */
} stage_state;

static bool is_segment_data(ir_type t) { return t.kind == TY_SEGMENT || t.kind == TY_SEGVAL; }

/* True when op reads or produces a segment view or value. */
static bool touches_segment(const ir_module *m, const ir_op *op)
{
    for (int i = 0; i < op->noperands; i++)
        if (is_segment_data(ir_value_type(m, op->operands[i])))
            return true;
    for (int i = 0; i < op->nresults; i++)
        if (is_segment_data(ir_value_type(m, op->results[i])))
            return true;
    return false;
}

static bool is_segment_reduction(const ir_module *m, const ir_op *op)
{
    return op->kind == IR_REDUCE && ir_value_type(m, op->operands[0]).kind == TY_SEGVAL;
}

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

static int32_t op_stage(stage_state *st, ir_op *op);

/* The largest stage of an op in block b, after setting its arguments to
 * `args_at` and computing every op's results. */
static int32_t block_stage(stage_state *st, ir_block *b, int32_t args_at)
{
    int32_t s = args_at;
    for (int i = 0; i < b->nargs; i++)
        st->stage[b->args[i]] = args_at;
    for (ir_op *op = b->first; op; op = op->next)
        s = max32(s, op_stage(st, op));
    return s;
}

/* Computes op's stage and its results' stages. A region op takes the
 * largest stage of its operands and of everything its regions compute;
 * its block arguments (the induction variable, carried values) start at
 * the operands' stage and rise with it until nothing changes: regions hold
 * no segment reductions (the verifier keeps segment data at the top level),
 * so the second round is the last. */
static int32_t op_stage(stage_state *st, ir_op *op)
{
    int32_t s = 0;
    for (int i = 0; i < op->noperands; i++)
        s = max32(s, st->stage[op->operands[i]]);
    for (int round = 0; op->nregions > 0; round++) {
        int32_t inner = s;
        for (int r = 0; r < op->nregions; r++)
            inner = max32(inner, block_stage(st, op->regions[r], s));
        if (inner == s)
            break;
        if (round > 64)
            sw_unreachable(st->d, "the stage analysis of '%s' does not converge", ir_ops[op->kind].name);
        s = inner;
    }
    int32_t result = is_segment_reduction(st->m, op) ? s + 1 : s;
    for (int i = 0; i < op->nresults; i++)
        st->stage[op->results[i]] = result;
    return s;
}

/* ---- recording ------------------------------------------------------------- */

static void remove_attr(ir_op *op, const char *name)
{
    for (int i = 0; i < op->nattrs; i++)
        if (op->attrs[i].name && !strcmp(op->attrs[i].name, name)) {
            memmove(&op->attrs[i], &op->attrs[i + 1], sizeof op->attrs[0] * (size_t)(op->nattrs - i - 1));
            op->nattrs--;
            return;
        }
}

/* Sets (stage >= 0) or clears (stage < 0) the stage of op and of every op
 * nested in it. */
static void mark(ir_module *m, ir_op *op, int32_t stage)
{
    if (stage >= 0)
        ir_attr_set_int(m, op, "stage", ir_type_scalar(DT_I32), stage);
    else
        remove_attr(op, "stage");
    for (int r = 0; r < op->nregions; r++)
        for (ir_op *inner = op->regions[r]->first; inner; inner = inner->next)
            mark(m, inner, stage);
}

static bool has_segment_id(const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->kind == IR_SEGMENT_ID)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (has_segment_id(op->regions[r]))
                return true;
    }
    return false;
}

static void analyse_func(stage_state *st, ir_op *func)
{
    ir_module *m = st->m;
    ir_block *body = ir_func_body(func);
    bool segment_program = has_segment_id(body);
    for (int i = 0; i < body->nargs; i++)
        st->stage[body->args[i]] = 0;
    int32_t passes = 0;
    for (ir_op *op = body->first; op; op = op->next) {
        int32_t s = op_stage(st, op);
        bool touches = touches_segment(m, op);
        segment_program |= touches;
        if (touches)
            passes = max32(passes, s + 1);
        mark(m, op, segment_program && (touches || s > 0) ? s : -1);
    }
    if (segment_program)
        ir_attr_set_int(m, func, "sw.stages", ir_type_scalar(DT_I32), passes);
    else
        remove_attr(func, "sw.stages");
}

bool pass_stages(ir_module *m, diag *d)
{
    stage_state st = {.m = m, .d = d};
    st.stage = arena_alloc(m->ar, sizeof(int32_t) * (size_t)(m->nvalues > 0 ? m->nvalues : 1));
    if (!st.stage) {
        diag_error(d, DIAG_NOMEM, "out of memory in the stage analysis");
        return false;
    }
    for (ir_op *func = m->body->first; func; func = func->next)
        if (func->kind == IR_FUNC)
            analyse_func(&st, func);
    return true;
}
