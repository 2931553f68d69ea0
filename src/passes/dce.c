/* dce.c - requires verified IR; guarantees verified IR with no unused pure op, load, or effect-free sw.if/sw.for/sw.scan/sw.reduce_fn left, and every sw.store kept.
 *
 * Unused loads are removed too, as Triton does: a load has no effect a
 * program may rely on except that it can fault, and a kernel that depends on
 * an out-of-bounds read faulting is wrong anyway. So DCE may remove an
 * access the CPU executor would have reported as out of bounds. */
#include "passes.h"

/* Counts of uses per value, kept current while ops are removed. */
typedef struct dce_state {
    ir_module *m;
    int32_t *uses;
    bool changed;
} dce_state;

/* An op that may disappear once nothing uses its results. */
static bool is_removable_leaf(const ir_op *op)
{
    return op->nregions == 0 &&
           ((ir_ops[op->kind].flags & F_PURE) || op->kind == IR_LOAD || op->kind == IR_SIMT_LOAD ||
            op->kind == IR_LOAD_SEGMENT);
}

/* True when running the block can have no effect but its yielded values:
 * only pure ops, loads, yields and nested if/for with the same property.
 * An op this pass does not know (a store, a future barrier) makes it false. */
static bool block_is_effect_free(const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (is_removable_leaf(op) || op->kind == IR_YIELD)
            continue;
        if (op->kind != IR_IF && op->kind != IR_FOR)
            return false;
        for (int r = 0; r < op->nregions; r++)
            if (!block_is_effect_free(op->regions[r]))
                return false;
    }
    return true;
}

/* sw.for loops always terminate (a counted loop), so a loop with no effect
 * and no used result can go; so can such an sw.if. */
static bool is_removable_region_op(const ir_op *op)
{
    /* sw.scan and sw.reduce_fn: pure, their combine regions run a bounded
     * number of times. */
    bool pure = (ir_ops[op->kind].flags & F_PURE) && op->nregions > 0;
    if (op->kind != IR_IF && op->kind != IR_FOR && !pure)
        return false;
    for (int r = 0; r < op->nregions; r++)
        if (!block_is_effect_free(op->regions[r]))
            return false;
    return true;
}

static bool results_unused(const dce_state *s, const ir_op *op)
{
    for (int i = 0; i < op->nresults; i++)
        if (s->uses[op->results[i]] != 0)
            return false;
    return true;
}

/* Drops the uses op (and everything nested in it) makes of other values. */
static void release_uses(dce_state *s, const ir_op *op)
{
    for (int i = 0; i < op->noperands; i++)
        if (op->operands[i] >= 0)
            s->uses[op->operands[i]]--;
    for (int r = 0; r < op->nregions; r++)
        for (const ir_op *inner = op->regions[r]->first; inner; inner = inner->next)
            release_uses(s, inner);
}

/* Walks backwards so a dead chain dies in one sweep: an op's users come
 * after it in its block, and are gone by the time it is looked at. Nested
 * regions are swept before the op that holds them is judged. */
static void sweep_block(dce_state *s, ir_block *b)
{
    for (ir_op *op = b->last, *prev; op; op = prev) {
        prev = op->prev;
        for (int r = 0; r < op->nregions; r++)
            sweep_block(s, op->regions[r]);
        if (!results_unused(s, op))
            continue;
        if (is_removable_leaf(op) || is_removable_region_op(op)) {
            release_uses(s, op);
            ir_op_erase(s->m, op);
            s->changed = true;
        }
    }
}

bool pass_dce(ir_module *m, diag *d)
{
    dce_state s = {.m = m};
    s.uses = arena_alloc(m->ar, sizeof(int32_t) * (size_t)(m->nvalues ? m->nvalues : 1));
    if (!s.uses) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    ir_count_uses(m, s.uses);
    /* One backward sweep removes most chains; values used only by a
     * region op that dies later in the sweep need another round. */
    do {
        s.changed = false;
        sweep_block(&s, m->body);
    } while (s.changed);
    return true;
}
