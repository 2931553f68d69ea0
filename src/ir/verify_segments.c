/* verify_segments.c - the verifier's rules for segment programs
 * (docs/segments.md, "The IR"): the segment ops, where views and segment
 * values may flow, one segment per program, segment or grid program, and
 * the stage attributes. Requires the walk of verify.c (it calls these per
 * op, in order, after the op's operands and results are checked); each
 * function reports the first violation and returns false. */
#include "verify_internal.h"

#include <string.h>

static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(v, op, fmt, ap);
    va_end(ap);
    return false;
}

bool verify_is_segment_type(ir_type t) { return t.kind == TY_SEGMENT || t.kind == TY_SEGVAL; }

/* The line of loc in the user's file, for messages that name a second op. */
static int user_line(const verifier *v, src_loc loc)
{
    return v->m->src.first_line > 0 ? loc.line + v->m->src.first_line - 1 : loc.line;
}


/* A function is either a segment program (sw.segment_id) or a grid program
 * (sw.program_id / sw.num_programs): the schedule, not a grid, decides which
 * segment a program processes. */
bool verify_program_kind(verifier *v, const ir_op *op)
{
    const ir_op **mine = op->kind == IR_SEGMENT_ID ? &v->first_segment_id : &v->first_grid_query;
    const ir_op *other = op->kind == IR_SEGMENT_ID ? v->first_grid_query : v->first_segment_id;
    if (other)
        return fail(v, op, "'%s' cannot appear in a function that also uses '%s' (line %d): a "
                    "function is either a segment program or a grid program", name_of(op),
                    name_of(other), user_line(v, other->loc));
    if (!*mine)
        *mine = op;
    return true;
}

bool verify_segment_id(verifier *v, const ir_op *op)
{
    char a[64];
    const ir_attr *axis = int_attr(op, "axis");
    if (!axis || axis->i != 0)
        return fail(v, op, "'sw.segment_id' needs an integer attribute 'axis' of 0");
    ir_type r = result_type(v, op, 0);
    if (!ir_type_eq(r, ir_type_scalar(DT_I32)))
        return fail(v, op, "'sw.segment_id' result type %s must be i32", TY(r, a));
    return verify_program_kind(v, op);
}

bool verify_segment(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    ir_type values = operand_type(v, op, 0), offsets = operand_type(v, op, 1);
    ir_type sid = operand_type(v, op, 2), r = result_type(v, op, 0);
    if (values.kind != TY_PTR)
        return fail(v, op, "'sw.segment' values type %s must be a pointer", TY(values, a));
    if (offsets.kind != TY_PTR || (offsets.dtype != DT_I32 && offsets.dtype != DT_I64))
        return fail(v, op, "'sw.segment' offsets type %s must be !sw.ptr<i32> or !sw.ptr<i64>",
                    TY(offsets, a));
    if (!ir_type_eq(sid, ir_type_scalar(DT_I32)))
        return fail(v, op, "'sw.segment' segment id type %s must be i32", TY(sid, a));
    const ir_op *sid_def = v->m->values[op->operands[2]].def;
    if (!sid_def || sid_def->kind != IR_SEGMENT_ID)
        return fail(v, op, "'sw.segment' segment id must be the result of 'sw.segment_id' (the "
                    "schedule decides which segment a program processes)");
    ir_type want = ir_type_segment(elem_dtype(values));
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.segment' result type %s does not match its values %s (expected %s)",
                    TY(r, a), TY(values, b), TY(want, c));
    const ir_op *first = v->first_segment;
    if (!first) {
        v->first_segment = op;
        return true;
    }
    if (first->operands[1] != op->operands[1])
        return fail(v, op, "'sw.segment' uses other offsets than the 'sw.segment' at line %d: one "
                    "segment per program, so every view shares one offsets pointer",
                    user_line(v, first->loc));
    if (first->operands[2] != op->operands[2])
        return fail(v, op, "'sw.segment' uses another segment id than the 'sw.segment' at line %d: "
                    "one segment per program, so every view shares one segment id",
                    user_line(v, first->loc));
    return true;
}

/* The sw.segment that defines a view operand: views are never block
 * arguments (verify_region) and only sw.segment makes them. */
static const ir_op *view_def(verifier *v, const ir_op *op, int i, const char *what)
{
    char a[64];
    ir_type t = operand_type(v, op, i);
    const ir_op *def = v->m->values[op->operands[i]].def;
    if (t.kind != TY_SEGMENT || !def || def->kind != IR_SEGMENT) {
        fail(v, op, "'%s' %s type %s must be a segment view (!sw.segment<T>)", name_of(op), what,
             TY(t, a));
        return NULL;
    }
    return def;
}

bool verify_segment_length(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    const ir_op *seg = view_def(v, op, 0, "operand");
    if (!seg)
        return false;
    ir_type r = result_type(v, op, 0);
    ir_type want = ir_type_scalar(elem_dtype(ir_value_type(v->m, seg->operands[1])));
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.segment_length' result type %s must be the offsets' integer type %s",
                    TY(r, a), TY(want, b));
    return true;
}

bool verify_load_segment(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    if (!view_def(v, op, 0, "operand"))
        return false;
    ir_type seg = operand_type(v, op, 0), r = result_type(v, op, 0);
    ir_type want = ir_type_segval(elem_dtype(seg));
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.load_segment' result type %s does not match the view %s (expected %s)",
                    TY(r, a), TY(seg, b), TY(want, c));
    return true;
}

bool verify_store_segment(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    ir_type ptr = operand_type(v, op, 0), val = operand_type(v, op, 2);
    if (ptr.kind != TY_PTR)
        return fail(v, op, "'sw.store_segment' operand #0 type %s must be a pointer", TY(ptr, a));
    if (!view_def(v, op, 1, "operand #1"))
        return false;
    ir_type want = ir_type_segval(elem_dtype(ptr));
    if (!ir_type_eq(val, want))
        return fail(v, op, "'sw.store_segment' value type %s does not match the pointee of %s "
                    "(expected %s)", TY(val, a), TY(ptr, b), TY(want, c));
    return true;
}

/* Who may take a view or a segment value as operand #i. */
static bool takes_segment_operand(const ir_op *op, int i, ir_type t)
{
    if (t.kind == TY_SEGMENT)
        return ((op->kind == IR_SEGMENT_LENGTH || op->kind == IR_LOAD_SEGMENT) && i == 0) ||
               (op->kind == IR_STORE_SEGMENT && i == 1);
    return (ir_ops[op->kind].flags & F_ELEM) || op->kind == IR_REDUCE ||
           (op->kind == IR_STORE_SEGMENT && i == 2);
}

/* Who may produce a view or a segment value. */
static bool makes_segment_result(const ir_op *op, ir_type t)
{
    if (t.kind == TY_SEGMENT)
        return op->kind == IR_SEGMENT;
    return (ir_ops[op->kind].flags & F_ELEM) || op->kind == IR_SPLAT || op->kind == IR_CONSTANT ||
           op->kind == IR_LOAD_SEGMENT;
}

/* Segment data flows only through the ops that define it: views and segment
 * values are never block arguments, yielded, carried by sw.for or mixed
 * with tiles, and every op on them sits at the top level of the function
 * (each is evaluated once per element of the one segment; the stage
 * analysis and the schedule rely on that). */
bool verify_segment_flow(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type seg = ir_type_void(), tile = ir_type_void();
    for (int i = 0; i < op->noperands; i++) {
        ir_type t = operand_type(v, op, i);
        if (t.kind == TY_TILE)
            tile = t;
        if (!verify_is_segment_type(t))
            continue;
        seg = t;
        if (op->kind == IR_YIELD)
            return fail(v, op, "'sw.yield' cannot pass on the %s %s: segment data never crosses "
                        "'sw.for' or 'sw.if' boundaries", t.kind == TY_SEGMENT ? "view" : "segment value",
                        TY(t, a));
        if (!takes_segment_operand(op, i, t))
            return fail(v, op, "'%s' cannot take the %s %s (operand #%d)", name_of(op),
                        t.kind == TY_SEGMENT ? "segment view" : "segment value", TY(t, a), i);
    }
    for (int i = 0; i < op->nresults; i++) {
        ir_type t = result_type(v, op, i);
        if (t.kind == TY_TILE)
            tile = t;
        if (!verify_is_segment_type(t))
            continue;
        seg = t;
        if (!makes_segment_result(op, t))
            return fail(v, op, "'%s' cannot produce the %s %s (result #%d)", name_of(op),
                        t.kind == TY_SEGMENT ? "segment view" : "segment value", TY(t, a), i);
    }
    if (seg.kind == TY_VOID)
        return true;
    if (tile.kind != TY_VOID)
        return fail(v, op, "'%s' mixes the segment value type %s with the tile type %s: tensor<?x...> "
                    "and tensor<Nx...> never meet in one op", name_of(op), TY(seg, a), TY(tile, b));
    const ir_op *parent = op->parent ? op->parent->parent_op : NULL;
    if (parent && parent->kind != IR_FUNC)
        return fail(v, op, "'%s' on segment data must be at the top level of the function, not "
                    "inside '%s'", name_of(op), name_of(parent));
    return true;
}

/* sw.stages on a func.func (from the stage analysis) and stage on its ops:
 * integers, each op's stage at most the function's count (stage n: after
 * the last pass over the segment). */
bool verify_func_stages(verifier *v, const ir_op *op)
{
    const ir_attr *n = ir_attr_get(op, "sw.stages");
    v->first_segment = v->first_segment_id = v->first_grid_query = NULL;
    v->stages = -1;
    if (!n)
        return true;
    if (n->kind != ATTR_INT || n->i < 0 || n->i > INT32_MAX)
        return fail(v, op, "'func.func' attribute sw.stages must be an integer >= 0");
    v->stages = n->i;
    return true;
}

bool verify_op_stage(verifier *v, const ir_op *op)
{
    const ir_attr *s = op->kind == IR_FUNC ? NULL : ir_attr_get(op, "stage");
    if (!s)
        return true;
    if (s->kind != ATTR_INT || s->i < 0)
        return fail(v, op, "'%s' attribute 'stage' must be an integer >= 0", name_of(op));
    if (s->i > v->stages)
        return fail(v, op, "'%s' has stage = %lld but its function has %s", name_of(op),
                    (long long)s->i, v->stages < 0 ? "no sw.stages" : "fewer sw.stages");
    return true;
}
