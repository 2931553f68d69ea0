/* task_flat_stages.c - the flat direct kernel (task_flat.c) for programs of
 * several stages whose later stages need earlier stages' per-segment
 * results on every element (a softmax: the maximum, then the sum of
 * exp(x - maximum), then exp(x - maximum) / sum stored elementwise).
 *
 * The window is task_flat.c's; each stage walks its rows again (the same
 * rows, jumps and edge rows as the one-stage walk), and after each walk
 * every lane runs the stage's scalar work for its segment. A row of a
 * stage that needs a per-segment scalar (sw.splat of a reduction's result,
 * of the segment's id or length, of scalar work on them) or stores, first
 * finds each position's segment in the window (sw.segment_index: -1 before
 * W0, from W1 on and in segments left out of the walk), then takes each
 * such scalar from its lane's tile (sw.gather, through the warp's shared
 * memory) and the stage's stores are masked to the positions with a
 * segment. Stage reductions go through sw.segmented_reduce as in the
 * one-stage walk: the same order of combination on every run, no
 * atomics. */
#include "task_flat.h"

#include <string.h>

/* ---- which programs ------------------------------------------------------------- */

static ir_dtype travels_as(ir_dtype dt)
{
    if (ir_dtypes[dt].bits == 32)
        return dt;
    return ir_dtype_is_float(dt) ? DT_F32 : DT_I32;
}

bool flat_stages_run(const planner *pl)
{
    const task_program *p = &pl->p;
    if (p->nstages < 2 || p->nreductions < 1 || !loads_from_params(pl))
        return false;
    for (int r = 0; r < p->nreductions; r++) {
        const ir_op *op = p->ops[p->reduction_op[r]];
        if (ir_dtypes[task_reduction_acc(p, r)].bits != 32 || ir_value_type(pl->m, op->results[0]).dtype == DT_I1)
            return false;
    }
    return flat_ops_fit(pl, true);
}

/* ---- building ------------------------------------------------------------------ */

typedef struct stage_rows {
    const task_program *p;
    int32_t k;
    ir_value skip;           /* i1 tile: the lanes left out of the walk */
    int ngather;
    const ir_op **splats;    /* [ngather] sw.splat of a per-segment scalar */
    ir_value *sources;       /* [ngather] its lanes' values, 32 bits */
    bool stores;
    ir_value *preset;        /* [nvalues] for task_emit_row */
} stage_rows;

static void stage_row(flat_walk *walk, task_emitter *e, int32_t block, ir_value at, ir_value at32, ir_value ends32,
                      ir_value w0_32, ir_value *vals)
{
    stage_rows *c = walk->ctx;
    ir_builder *b = &e->b;
    ir_module *m = b->m;
    for (int32_t v = 0; v < c->p->nvalues; v++)
        c->preset[v] = IR_NO_VALUE;
    e->preset = c->preset;
    e->store_mask = IR_NO_VALUE;
    if (c->ngather || c->stores) {
        ir_type i32t = ir_type_tile(DT_I32, block);
        ir_value zero = irb_const(b, i32t, ir_scalar_from_int(DT_I32, 0));
        ir_value ops[4] = {at32, ends32, w0_32, c->skip};
        ir_value idx = irb(b, IR_SEGMENT_INDEX, ops, 4, i32t);
        if (c->ngather) {
            ir_value at_index[2] = {IR_NO_VALUE, irb_binary(b, IR_MAXIMUM, idx, zero)};
            for (int g = 0; g < c->ngather; g++) {
                const ir_op *splat = c->splats[g];
                at_index[0] = c->sources[g];
                ir_type got_t = ir_type_like(i32t, ir_type_elem(ir_value_type(m, c->sources[g])));
                ir_value got = irb(b, IR_GATHER, at_index, 2, got_t);
                ir_type want = ir_type_like(i32t, ir_type_elem(ir_value_type(m, splat->results[0])));
                c->preset[splat->results[0]] = irb_cast(b, got, want);
            }
        }
        if (c->stores)
            e->store_mask = irb_cmp(b, "ge", idx, zero);
    }
    task_emit_row(e, c->k, block, at, vals);
}

void flat_emit_stages(planner *pl, ir_builder *b, const flat_window *w)
{
    task_program *p = &pl->p;
    ir_module *m = pl->m;
    flat f;
    flat_init(&f, pl, b, w);
    /* the prologue, every lane */
    for (int i = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        if (p->cls[i] == TASK_ID || p->cls[i] == TASK_LENGTH)
            flat_lane_segment(&f, w, op);
        else if (p->cls[i] == TASK_KEEP)
            flat_lane_clone(&f, op);
    }
    size_t nv = (size_t)p->nvalues + 1, no = (size_t)p->nops + 1;
    uint8_t *needed = arena_alloc(m->ar, nv);
    int *reductions = arena_alloc(m->ar, sizeof(int) * (size_t)(p->nreductions + 1));
    ir_value *acc = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(p->nreductions + 1));
    stage_rows rows = {.p = p, .skip = w->longer};
    rows.splats = arena_alloc(m->ar, sizeof(ir_op *) * no);
    rows.sources = arena_alloc(m->ar, sizeof(ir_value) * no);
    rows.preset = arena_alloc(m->ar, sizeof(ir_value) * nv);
    for (int32_t k = 0; k < p->nstages; k++) {
        int nr = 0;
        for (int r = 0; r < p->nreductions; r++)
            if (p->place[p->reduction_op[r]] == k)
                reductions[nr++] = r;
        rows.k = k;
        rows.stores = false;
        rows.ngather = 0;
        for (int i = 0; i < p->nops; i++)
            rows.stores |= p->cls[i] == TASK_STORE && p->place[i] == k;
        if (nr || rows.stores) {
            /* the per-segment scalars the stage's rows take: in 32 bits */
            task_stage_needs(p, k, needed);
            for (int i = 0; i < p->nops; i++) {
                const ir_op *op = p->ops[i];
                if (p->cls[i] != TASK_SEGVAL || op->kind != IR_SPLAT || !needed[op->results[0]] ||
                    flat_uniform(pl, op->operands[0]))
                    continue;
                ir_value lanes = flat_lane_tile(&f, op->operands[0]);
                ir_dtype dt = travels_as((ir_dtype)ir_value_type(m, lanes).dtype);
                rows.splats[rows.ngather] = op;
                rows.sources[rows.ngather++] = irb_cast(b, lanes, ir_type_tile(dt, FLAT_SEGMENTS));
            }
            flat_walk walk = {.stage = k, .nr = nr, .reductions = reductions, .row = stage_row, .ctx = &rows};
            flat_emit_walk(pl, b, w, &walk, acc);
            for (int r = 0; r < nr; r++) {
                const ir_op *op = p->ops[p->reduction_op[reductions[r]]];
                f.lanes[op->results[0]] = irb_cast(b, acc[r], flat_lane_type(ir_value_type(m, op->results[0])));
            }
        }
        /* the stage's scalar work, every lane */
        for (int i = 0; i < p->nops; i++)
            if (p->cls[i] == TASK_POST && p->place[i] == k)
                flat_lane_clone(&f, p->ops[i]);
    }
}
