/* lower_segments.c - requires a verified module; guarantees a verified
 * module whose segment programs are replaced by the task kernels of one
 * schedule (src/plan/, docs/schedules.md): semantic grid programs with
 * hidden parameters after their own. `lower-segments` plans the automatic
 * schedule, `lower-segments-<schedule>` a forced one. Also what the launch
 * path needs to know of a segment program before any lowering
 * (segments_params). */
#include "lower_segments.h"
#include "passes.h"
#include "../ir/scalar.h"
#include "../plan/plan.h"

#include <string.h>

/* ---- launch facts ----------------------------------------------------------- */

static bool is_segment_op(ir_op_kind k)
{
    return k == IR_SEGMENT_ID || k == IR_SEGMENT || k == IR_SEGMENT_LENGTH ||
           k == IR_LOAD_SEGMENT || k == IR_STORE_SEGMENT;
}

/* The block-argument index of v when it is a parameter of func, else -1. */
static int param_index(const ir_module *m, const ir_op *func, ir_value v)
{
    return m->values[v].arg_of == ir_func_body(func) ? m->values[v].index : -1;
}

static bool pointer_param(ir_module *m, const ir_op *func, const ir_op *op, int operand,
                          const char *what, int *index, diag *d)
{
    *index = param_index(m, func, op->operands[operand]);
    if (*index >= 0)
        return true;
    diag_error_at(d, DIAG_COMPILE, &m->src, op->loc,
                  "lower-segments: the %s of '%s' must be a kernel parameter (pointer arithmetic "
                  "on it is not supported in segment programs)", what, ir_ops[op->kind].name);
    return false;
}

bool segments_params(ir_module *m, const ir_op *func, segment_params *out, diag *d)
{
    const ir_block *body = ir_func_body(func);
    memset(out, 0, sizeof *out);
    out->offsets = -1;
    bool *counted = arena_alloc(m->ar, sizeof(bool) * (size_t)(body->nargs + 1));
    const ir_op *first = NULL;
    for (const ir_op *op = body->first; op; op = op->next) {
        if (!is_segment_op(op->kind))
            continue;
        out->is_segment_program = true;
        if (!first)
            first = op;
        int index;
        if (op->kind == IR_SEGMENT) {
            if (!pointer_param(m, func, op, 0, "values pointer", &index, d))
                return false;
            counted[index] = true;
            if (!pointer_param(m, func, op, 1, "offsets pointer", &index, d))
                return false;
            out->offsets = index;
        } else if (op->kind == IR_STORE_SEGMENT) {
            if (!pointer_param(m, func, op, 0, "pointer", &index, d))
                return false;
            counted[index] = true;
        }
    }
    if (first && out->offsets < 0) {
        diag_error_at(d, DIAG_COMPILE, &m->src, first->loc,
                      "lower-segments: a segment program needs an sl.segment view: its offsets "
                      "give the program's segment and the launch's grid");
        return false;
    }
    out->hidden_source = arena_alloc(m->ar, sizeof(int) * (size_t)(body->nargs + 1));
    for (int i = 0; i < body->nargs; i++)
        if (counted[i])
            out->hidden_source[out->nhidden++] = i;
    return true;
}

/* ---- the pass ---------------------------------------------------------------------- */

bool pass_lower_segments(ir_module *m, diag *d) { return plan_build(m, PLAN_AUTO, d); }
bool pass_lower_segments_subwarp(ir_module *m, diag *d) { return plan_build(m, PLAN_SUBWARP, d); }
bool pass_lower_segments_warp(ir_module *m, diag *d) { return plan_build(m, PLAN_WARP, d); }
bool pass_lower_segments_cta(ir_module *m, diag *d) { return plan_build(m, PLAN_CTA, d); }
bool pass_lower_segments_split(ir_module *m, diag *d) { return plan_build(m, PLAN_SPLIT, d); }
bool pass_lower_segments_persistent(ir_module *m, diag *d) { return plan_build(m, PLAN_PERSISTENT, d); }
