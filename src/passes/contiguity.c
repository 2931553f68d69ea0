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
static int32_t same_of(const walker *w, ir_value v) { return w->c->same[v]; }
static bool uniform(const walker *w, ir_value v) { return w->c->uniform[v] != 0; }
static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

static bool all_operands_uniform(const walker *w, const ir_op *op)
{
    for (int i = 0; i < op->noperands; i++)
        if (!uniform(w, op->operands[i]))
            return false;
    return op->noperands > 0;
}

/* A value plus (or minus) a tile constant over aligned runs keeps the
 * value's runs within those (all runs are powers of two, so the smaller
 * of two aligned runs lies inside the larger). */
static int32_t run_of_offset(const walker *w, ir_value x, ir_value y, bool commutes)
{
    int32_t run = uniform(w, y) ? run_of(w, x) : min32(run_of(w, x), same_of(w, y));
    if (commutes) {
        int32_t other = uniform(w, x) ? run_of(w, y) : min32(run_of(w, y), same_of(w, x));
        if (other > run)
            run = other;
    }
    return run;
}

/* sw.broadcast: with its last dim broadcast (from 1), positions hold one
 * value over the trailing broadcast dims; otherwise a row of the result is
 * a row of the operand, so runs and constant runs stay within a row. */
static void shape_of_broadcast(const walker *w, const ir_op *op, int32_t *run, int32_t *same)
{
    int32_t xd[IR_MAX_RANK], rd[IR_MAX_RANK];
    ir_value x = op->operands[0];
    int rank = ir_tile_dims(ir_value_type(w->m, op->results[0]), rd);
    ir_tile_dims(ir_value_type(w->m, x), xd);
    if (xd[rank - 1] == 1) {
        int32_t s = 1;
        for (int k = rank - 1; k >= 0 && xd[k] == 1; k--)
            s *= rd[k];
        *run = 1;
        *same = s;
        return;
    }
    *run = min32(run_of(w, x), rd[rank - 1]);
    *same = min32(same_of(w, x), rd[rank - 1]);
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
        w->c->run[b->args[i]] = w->c->same[b->args[i]] = 1;
    for (const ir_op *op = b->first; op; op = op->next)
        analyze_op(w, op);
}

static void analyze_op(walker *w, const ir_op *op)
{
    for (int r = 0; r < op->nregions; r++)
        analyze_block(w, op->regions[r]);
    if (op->nresults != 1) {
        for (int i = 0; i < op->nresults; i++)
            w->c->run[op->results[i]] = w->c->same[op->results[i]] = 1;
        return;
    }
    ir_value r = op->results[0];
    ir_type t = ir_value_type(w->m, r);
    int32_t run = 1, same = 1;
    bool uni = false;
    if ((ir_ops[op->kind].flags & (F_ELEM | F_PURE)) == (F_ELEM | F_PURE) && op->noperands > 0) {
        /* an elementwise function of values constant over aligned runs */
        same = t.len;
        for (int i = 0; i < op->noperands; i++)
            same = min32(same, same_of(w, op->operands[i]));
    }
    switch (op->kind) {
    case IR_ARANGE: run = t.len; break;
    case IR_SPLAT:
    case IR_CONSTANT: uni = true; break;
    case IR_RESHAPE:
        run = run_of(w, op->operands[0]);
        same = same_of(w, op->operands[0]);
        uni = uniform(w, op->operands[0]);
        break;
    case IR_BROADCAST:
        shape_of_broadcast(w, op, &run, &same);
        uni = uniform(w, op->operands[0]);
        break;
    case IR_TRANS:
    case IR_SPLIT: uni = uniform(w, op->operands[0]); break;
    case IR_ADD: run = run_of_offset(w, op->operands[0], op->operands[1], true); break;
    case IR_SUB: run = run_of_offset(w, op->operands[0], op->operands[1], false); break;
    case IR_ADDPTR: run = run_of_offset(w, op->operands[0], op->operands[1], true); break;
    case IR_CAST: run = run_of_cast(w, op); break;
    case IR_SHR:
    case IR_AND: {
        /* sw.arange >> k, sw.arange & m (constants; m's k low bits clear):
         * constant over aligned runs of 2^k */
        const ir_op *x = w->m->values[op->operands[0]].def, *k = w->m->values[op->operands[1]].def;
        if (x && x->kind == IR_ARANGE && k && k->kind == IR_CONSTANT && uniform(w, op->operands[1])) {
            const ir_attr *v = ir_attr_get(k, "value");
            int64_t bits = !v || v->kind != ATTR_INT ? -1 : v->i;
            if (bits >= 0 && op->kind == IR_AND)
                for (bits = 0; bits < 31 && !(v->i >> bits & 1); bits++)
                    ;
            if (bits >= 0 && bits < 31)
                same = (int32_t)1 << bits;
        }
        break;
    }
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
    int32_t len = ir_type_is_tile(t) ? t.len : 1;
    w->c->same[r] = uni ? len : same < 1 ? 1 : same > len ? len : same;
}

bool contiguity_init(ir_module *m, contiguity *out)
{
    size_t n = (size_t)(m->nvalues > 0 ? m->nvalues : 1);
    out->nvalues = m->nvalues;
    out->run = arena_alloc(m->ar, sizeof(int32_t) * n);
    out->same = arena_alloc(m->ar, sizeof(int32_t) * n);
    out->uniform = arena_alloc(m->ar, n);
    if (!out->run || !out->same || !out->uniform)
        return false;
    for (int32_t v = 0; v < m->nvalues; v++)
        out->run[v] = out->same[v] = 1;
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
