/* contiguity.c - requires a verified semantic func.func; guarantees, per
 * value, a run length that is true of every execution (contiguity.h), and
 * changes nothing in the IR. One forward walk: operands are defined before
 * their uses, and loop-carried values (block arguments) promise nothing. */
#include "contiguity.h"

typedef struct walker {
    const ir_module *m;
    contiguity *c;
} walker;

static int32_t run_of(const walker *w, ir_value v) { return w->c->run[v]; }
static bool uniform(const walker *w, ir_value v) { return w->c->uniform[v] != 0; }

static bool all_operands_uniform(const walker *w, const ir_op *op)
{
    for (int i = 0; i < op->noperands; i++)
        if (!uniform(w, op->operands[i]))
            return false;
    return op->noperands > 0;
}

/* A value plus (or minus) a uniform tile keeps the value's runs. */
static int32_t run_of_offset(const walker *w, ir_value x, ir_value y, bool commutes)
{
    if (uniform(w, y))
        return run_of(w, x);
    if (commutes && uniform(w, x))
        return run_of(w, y);
    return 1;
}

/* Integer casts keep consecutive values consecutive only when every source
 * value survives: strictly wider targets, and never from i1 (0/1 is not a
 * run). Narrowing or same-width sign changes wrap at a boundary. */
static int32_t run_of_cast(const walker *w, const ir_op *op)
{
    ir_type from = ir_value_type(w->m, op->operands[0]), to = ir_value_type(w->m, op->results[0]);
    ir_dtype fd = (ir_dtype)from.dtype, td = (ir_dtype)to.dtype;
    if (!ir_dtype_is_int(fd) || !ir_dtype_is_int(td) || fd == DT_I1)
        return 1;
    if (ir_dtypes[td].bits <= ir_dtypes[fd].bits)
        return 1;
    return run_of(w, op->operands[0]);
}

static void analyze_op(walker *w, const ir_op *op);

static void analyze_block(walker *w, const ir_block *b)
{
    for (int i = 0; i < b->nargs; i++)
        w->c->run[b->args[i]] = 1;
    for (const ir_op *op = b->first; op; op = op->next)
        analyze_op(w, op);
}

static void analyze_op(walker *w, const ir_op *op)
{
    for (int r = 0; r < op->nregions; r++)
        analyze_block(w, op->regions[r]);
    if (op->nresults != 1) {
        for (int i = 0; i < op->nresults; i++)
            w->c->run[op->results[i]] = 1;
        return;
    }
    ir_value r = op->results[0];
    ir_type t = ir_value_type(w->m, r);
    int32_t run = 1;
    bool uni = false;
    switch (op->kind) {
    case IR_ARANGE: run = t.len; break;
    case IR_SPLAT:
    case IR_CONSTANT: uni = true; break;
    case IR_ADD: run = run_of_offset(w, op->operands[0], op->operands[1], true); break;
    case IR_SUB: run = run_of_offset(w, op->operands[0], op->operands[1], false); break;
    case IR_ADDPTR: run = run_of_offset(w, op->operands[0], op->operands[1], true); break;
    case IR_CAST: run = run_of_cast(w, op); break;
    default: break;
    }
    /* An elementwise function of equal elements gives equal elements. */
    if ((ir_ops[op->kind].flags & (F_ELEM | F_PURE)) == (F_ELEM | F_PURE) && all_operands_uniform(w, op))
        uni = true;
    /* Runs are about integer and pointer tiles only; a uniform tile of more
     * than one element is never a run. */
    ir_type elem = ir_type_elem(t);
    bool counts = ir_type_is_tile(t) && (elem.kind == TY_PTR || ir_dtype_is_int((ir_dtype)elem.dtype)) &&
                  (ir_dtype)elem.dtype != DT_I1;
    w->c->run[r] = counts && !uni && run > 1 ? run : 1;
    w->c->uniform[r] = uni;
}

bool contiguity_init(ir_module *m, contiguity *out)
{
    size_t n = (size_t)(m->nvalues > 0 ? m->nvalues : 1);
    out->nvalues = m->nvalues;
    out->run = arena_alloc(m->ar, sizeof(int32_t) * n);
    out->uniform = arena_alloc(m->ar, n);
    if (!out->run || !out->uniform)
        return false;
    for (int32_t v = 0; v < m->nvalues; v++)
        out->run[v] = 1;
    return true;
}

void contiguity_analyze(ir_module *m, const ir_op *func, contiguity *out)
{
    walker w = {m, out};
    analyze_block(&w, ir_func_body(func));
}

int32_t contiguity_run(const contiguity *c, ir_value v)
{
    return v >= 0 && v < c->nvalues ? c->run[v] : 1;
}
