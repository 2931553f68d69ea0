/* task_flat.c - auto's flat direct kernel (docs/schedules.md, "The flat
 * kernel"): requires the planner's analysis of a segment program (task_
 * kernels.h); adds <kernel>__direct_flat before it when the program is one
 * the kernel runs, nothing otherwise. This file has the window, the walk
 * and the one-stage form; programs of several stages walk the rows once a
 * stage (task_flat_stages.c).
 *
 * A program is a warp (CTAs of four) and runs a window of FLAT_SEGMENTS
 * consecutive segments: lane k holds segments s0 + 2k and s0 + 2k + 1
 * (their offsets: coalesced loads), and when the window's offsets never decrease, its
 * segments cover one range [W0, W1) that the warp walks in rows of
 * FLAT_ROW elements (16 consecutive elements a lane: four 16-byte loads,
 * the row in sw.segmented_reduce's lane-major order), each row reduced per
 * segment by sw.segmented_reduce (lower_simt_segmented.c) into lane k's
 * accumulators. A row loads every element (those outside [W0, W1) take no
 * part); one that passes the buffers' end runs as four masked rows of
 * FLAT_EDGE_ROW. Positions are 32-bit, relative to an origin the walk
 * moves when it jumps. Then each lane runs its segment's scalar epilogue
 * (the prologue and the ops after the reductions, as tiles of one element
 * a lane: stores and loads masked to the lanes that run).
 *
 * A segment longer than FLAT_WALK_MAX (its span from its start rounded
 * down to 4, as every classification) stays out of the walk: the walk
 * keeps the next such segment's start, and a row that would start inside
 * one jumps to its end, so a warp never walks an outlier's rows; after the
 * walk the warp appends it to the lists as every direct kernel does. A
 * window whose offsets decrease somewhere (bad offsets, unsafe launches)
 * is not walked: the warp runs its segments one at a time as a warp's
 * tasks (one tile of 128, else streamed up to FLAT_WALK_MAX, else the
 * lists), which clamp each segment as the other kernels do. */
#include "task_flat.h"
#include "../passes/passes.h"

#include <stdint.h>
#include <string.h>

/* ---- which programs ------------------------------------------------------------- */

bool flat_is_param(const planner *pl, ir_value v)
{
    const ir_block *params = ir_func_body(pl->p.func);
    for (int a = 0; a < params->nargs; a++)
        if (params->args[a] == v)
            return true;
    return false;
}

bool flat_uniform(const planner *pl, ir_value v)
{
    const ir_op *def = pl->m->values[v].def;
    return flat_is_param(pl, v) || (def && def->kind == IR_CONSTANT);
}

/* Scalar ops the epilogue runs one element a lane: no regions, and memory
 * only through sw.load / sw.store. */
bool flat_lane_op(const ir_op *op)
{
    if (op->nregions)
        return false;
    return op->kind == IR_CONSTANT || op->kind == IR_LOAD || op->kind == IR_STORE ||
           (ir_ops[op->kind].flags & F_ELEM);
}

/* The one-stage form: reductions of 32-bit accumulators whose segment
 * values depend on the loads and uniform scalars only, scalar work after. */
static bool flat_one_stage_runs(const planner *pl)
{
    const task_program *p = &pl->p;
    if (p->nstages != 1 || p->nreductions < 1 || !loads_from_params(pl))
        return false;
    for (int r = 0; r < p->nreductions; r++) {
        const ir_op *op = p->ops[p->reduction_op[r]];
        ir_dtype acc = task_reduction_acc(p, r);
        if (p->place[p->reduction_op[r]] != 0 || ir_dtypes[acc].bits != 32 ||
            ir_value_type(pl->m, op->results[0]).dtype == DT_I1)
            return false;
    }
    return flat_ops_fit(pl, false);
}

bool flat_gatherable(ir_type t)
{
    return t.kind == TY_SCALAR && !t.ptr_elem && ir_dtypes[t.dtype].bits <= 32;
}

bool flat_ops_fit(const planner *pl, bool several)
{
    const task_program *p = &pl->p;
    for (int i = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        switch (p->cls[i]) {
        case TASK_STORE:
            if (!several || !flat_is_param(pl, op->operands[0]))
                return false;
            break;
        case TASK_SEGVAL:
            for (int j = 0; j < op->noperands; j++) {
                ir_type t = ir_value_type(pl->m, op->operands[j]);
                if (t.kind != TY_SEGVAL && op->kind != IR_LOAD_SEGMENT && !flat_uniform(pl, op->operands[j]) &&
                    !(several && op->kind == IR_SPLAT && flat_gatherable(t)))
                    return false;
            }
            break;
        case TASK_KEEP:
        case TASK_POST:
            if (!flat_lane_op(op))
                return false;
            break;
        default: break;
        }
    }
    return true;
}

static bool flat_runs(const planner *pl)
{
    return flat_one_stage_runs(pl) || flat_stages_run(pl);
}

/* ---- building ------------------------------------------------------------------ */

ir_type flat_lane_type(ir_type t)
{
    if (t.kind == TY_PTR)
        return ir_type_ptr_tile((ir_dtype)t.dtype, FLAT_SEGMENTS);
    return ir_type_tile((ir_dtype)t.dtype, FLAT_SEGMENTS);
}

ir_value flat_lane_tile(flat *f, ir_value v)
{
    if (v < f->pl->p.nvalues && f->lanes[v] != IR_NO_VALUE)
        return f->lanes[v];
    ir_value s = v < f->pl->p.nvalues && f->pl->map[v] != IR_NO_VALUE ? f->pl->map[v] : v;
    return irb_splat(f->b, s, flat_lane_type(ir_value_type(f->pl->m, s)));
}

static bool has_lane_operand(const flat *f, const ir_op *op)
{
    for (int j = 0; j < op->noperands; j++)
        if (op->operands[j] < f->pl->p.nvalues && f->lanes[op->operands[j]] != IR_NO_VALUE)
            return true;
    return false;
}

/* One scalar op of the program for every lane: uniform ones (no lane
 * operand, no memory) once, as they are; the others as tiles, loads and
 * stores masked to the lanes that run. */
void flat_lane_clone(flat *f, const ir_op *op)
{
    planner *pl = f->pl;
    ir_builder *b = f->b;
    b->loc = op->loc;
    if (!has_lane_operand(f, op) && op->kind != IR_LOAD && op->kind != IR_STORE) {
        irb_clone(b, op, pl->map, pl->p.nvalues);
        return;
    }
    ir_value operands[3] = {IR_NO_VALUE, IR_NO_VALUE, IR_NO_VALUE};
    int n = op->noperands;
    for (int j = 0; j < n && j < 3; j++)
        operands[j] = flat_lane_tile(f, op->operands[j]);
    if (op->kind == IR_LOAD) {
        ir_type t = flat_lane_type(ir_value_type(pl->m, op->results[0]));
        ir_value mask = n > 1 ? irb_binary(b, IR_AND, operands[1], f->run) : f->run;
        ir_value other = n > 2 ? operands[2] : irb_const(b, t, ir_scalar_from_int((ir_dtype)t.dtype, 0));
        ir_value ops[3] = {operands[0], mask, other};
        f->lanes[op->results[0]] = irb(b, IR_LOAD, ops, 3, t);
        return;
    }
    if (op->kind == IR_STORE) {
        ir_value ops[3] = {operands[0], operands[1], n > 2 ? irb_binary(b, IR_AND, operands[2], f->run) : f->run};
        irb_op(b, IR_STORE, ops, 3, NULL, 0, 0);
        return;
    }
    ir_type t = flat_lane_type(ir_value_type(pl->m, op->results[0]));
    ir_op *copy = irb_op(b, op->kind, operands, n, &t, 1, 0);
    for (int i = 0; i < op->nattrs; i++)
        if (strcmp(op->attrs[i].name, "stage"))
            ir_attr_set(pl->m, copy, &op->attrs[i]);
    f->lanes[op->results[0]] = copy->results[0];
}

void flat_init(flat *f, planner *pl, ir_builder *b, const flat_window *w)
{
    ir_module *m = pl->m;
    *f = (flat){.pl = pl, .b = b};
    f->lanes = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(pl->p.nvalues + 1));
    for (int32_t v = 0; v < pl->p.nvalues; v++)
        f->lanes[v] = IR_NO_VALUE;
    f->run = irb_binary(b, IR_AND, w->valid, irb(b, IR_NOT, &w->longer, 1, ir_value_type(m, w->longer)));
}

void flat_lane_segment(flat *f, const flat_window *w, const ir_op *op)
{
    ir_builder *b = f->b;
    ir_type t = flat_lane_type(ir_value_type(f->pl->m, op->results[0]));
    if (op->kind == IR_SEGMENT_ID)
        f->lanes[op->results[0]] = irb_cast(b, w->sid, t);
    else
        f->lanes[op->results[0]] = irb_cast(b, irb_binary(b, IR_SUB, w->ends, w->starts), t);
}

static ir_value tile32(ir_builder *b, ir_dtype dt, int64_t v)
{
    return irb_const(b, ir_type_tile(dt, FLAT_SEGMENTS), ir_scalar_from_int(dt, v));
}

static ir_value reduce_scalar(ir_builder *b, const char *kind, ir_value tile)
{
    ir_value r = irb(b, IR_REDUCE, &tile, 1, ir_type_elem(ir_value_type(b->m, tile)));
    ir_attr_set_str(b->m, b->m->values[r].def, "kind", kind);
    return r;
}

/* min over the lanes where cond holds of x (i64), INT64_MAX where none. */
static ir_value min_where(ir_builder *b, ir_value cond, ir_value x)
{
    return reduce_scalar(b, "min", irb_select(b, cond, x, tile32(b, DT_I64, INT64_MAX)));
}

/* The shortest buffer segments touch (INT64_MAX when none is counted). */
static ir_value limit_of(planner *pl, ir_builder *b)
{
    ir_value limit = irb_int(b, DT_I64, INT64_MAX);
    for (int h = 0; h < pl->p.params.nhidden; h++)
        limit = irb_binary(b, IR_MINIMUM, limit, pl->numel[h]);
    return limit;
}

static ir_value clamp(ir_builder *b, ir_value x, ir_value limit, ir_value low)
{
    return irb_binary(b, IR_MAXIMUM, irb_binary(b, IR_MINIMUM, x, limit), low);
}

/* The offsets check of every lane's segment (check_offsets, one element a
 * lane): a branch on __check, then one masked store of the flag. */
static void check_lanes(planner *pl, ir_builder *outer, ir_value valid, ir_value sid, ir_value lo, ir_value hi,
                        ir_value limit)
{
    ir_op *checking = irb_if(outer, irb_cmp(outer, "ne", pl->check, irb_int(outer, DT_I32, 0)), NULL, 0);
    ir_builder skip = irb_at_end(pl->m, checking->regions[1], outer->loc);
    irb_yield(&skip, NULL, 0);
    ir_builder in = irb_at_end(pl->m, checking->regions[0], outer->loc), *b = &in;
    ir_type i64t = ir_type_tile(DT_I64, FLAT_SEGMENTS);
    ir_value bad = irb_cmp(b, "lt", hi, lo);
    ir_value first = irb_cmp(b, "eq", sid, tile32(b, DT_I64, 0));
    bad = irb_binary(b, IR_OR, bad, irb_binary(b, IR_AND, first, irb_cmp(b, "lt", lo, tile32(b, DT_I64, 0))));
    if (pl->p.params.nhidden) {
        ir_value last = irb_cmp(b, "eq", sid, irb_splat(b, irb_binary(b, IR_SUB, pl->segments, irb_int(b, DT_I64, 1)), i64t));
        bad = irb_binary(b, IR_OR, bad, irb_binary(b, IR_AND, last, irb_cmp(b, "gt", hi, irb_splat(b, limit, i64t))));
    }
    bad = irb_binary(b, IR_AND, bad, valid);
    ir_value ptrs = irb_splat(b, pl->scratch, ir_type_ptr_tile(DT_I32, FLAT_SEGMENTS));
    ir_value ops[3] = {ptrs, tile32(b, DT_I32, 1), bad};
    irb_op(b, IR_STORE, ops, 3, NULL, 0, 0);
    irb_yield(b, NULL, 0);
}

/* x - origin (i64, a scalar or a tile) clamped to [-2^30, 2^30], in 32
 * bits: exact for positions within 2^30 of the origin, and on the same
 * side of every row the walk takes otherwise. */
static ir_value rel32(ir_builder *b, ir_value x, ir_value origin)
{
    ir_type t = ir_value_type(b->m, x);
    ir_value o = t.kind == TY_SCALAR ? origin : irb_splat(b, origin, t);
    ir_value lo = irb_const(b, t, ir_scalar_from_int(DT_I64, -(INT64_C(1) << 30)));
    ir_value hi = irb_const(b, t, ir_scalar_from_int(DT_I64, INT64_C(1) << 30));
    ir_value d = irb_binary(b, IR_MAXIMUM, irb_binary(b, IR_MINIMUM, irb_binary(b, IR_SUB, x, o), hi), lo);
    return irb_cast(b, d, ir_type_like(t, ir_type_scalar(DT_I32)));
}

/* Reduction r of a row at `base` per segment. */
static ir_value row_reduce(const task_program *p, ir_builder *b, int r, ir_value vals, ir_value base, ir_value ends,
                           ir_value start)
{
    ir_module *m = p->m;
    const char *kind = ir_attr_get(p->ops[p->reduction_op[r]], "kind")->s;
    ir_value ops[4] = {vals, base, ends, start};
    ir_value part = irb(b, IR_SEGMENTED_REDUCE, ops, 4, ir_type_tile(task_reduction_acc(p, r), FLAT_SEGMENTS));
    ir_attr_set_str(m, m->values[part].def, "kind", kind);
    return part;
}

/* The row's segment values: the walk's row function, or task_emit_row. */
static void walk_row(flat_walk *walk, task_emitter *e, int32_t block, ir_value at, ir_value at32, ir_value ends32,
                     ir_value w0_32, ir_value *vals)
{
    if (walk->row)
        walk->row(walk, e, block, at, at32, ends32, w0_32, vals);
    else
        task_emit_row(e, walk->stage, block, at, vals);
}

/* The walk over [W0, W1) in rows for walk->stage; returns each of its
 * reductions' per-lane accumulator. `ends` (i64 tile) are the lanes'
 * segment ends, `starts` their starts, `longer` the lanes left out of the
 * walk, `next_long` the first such lane's start (INT64_MAX: none). */
void flat_emit_walk(planner *pl, ir_builder *b, const flat_window *w, flat_walk *walk, ir_value *acc)
{
    task_program *p = &pl->p;
    ir_module *m = pl->m;
    ir_value w0 = w->w0, w1 = w->w1, limit = w->limit, starts = w->starts, ends = w->ends, longer = w->longer;
    int nr = walk->nr, ncarried = 5 + nr;
    ir_value *inits = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(ncarried + 1));
    ir_type *types = arena_alloc(m->ar, sizeof(ir_type) * (size_t)(ncarried + 1));
    ir_value first_row = irb_binary(b, IR_AND, w0, irb_int(b, DT_I64, -SEGMENT_ALIGN));
    inits[0] = irb_cmp(b, "lt", first_row, w1);
    inits[1] = first_row;
    inits[2] = w->next_long;
    for (int r = 0; r < nr; r++) {
        int ri = walk->reductions[r];
        const ir_op *op = p->ops[p->reduction_op[ri]];
        ir_scalar id;
        ir_eval_reduce_identity(ir_attr_get(op, "kind")->s, task_reduction_acc(p, ri), &id);
        inits[3 + r] = irb_const(b, ir_type_tile(task_reduction_acc(p, ri), FLAT_SEGMENTS), id);
    }
    /* positions in 32 bits, relative to an origin: the first row, moved to
     * the row a jump lands on (between jumps the walk covers short segments
     * only, so rows stay within 2^16 of it) */
    inits[3 + nr] = first_row;
    inits[4 + nr] = rel32(b, ends, first_row);
    inits[5 + nr] = rel32(b, w0, first_row);
    for (int i = 0; i < ncarried; i++)
        types[i] = ir_value_type(m, inits[1 + i]);
    ir_value lane_rel = task_lane_major_index(b, FLAT_ROW);
    ir_op *loop = irb_op(b, IR_WHILE, inits, ncarried + 1, types, ncarried, 1);
    ir_block *body = loop->regions[0];
    for (int i = 0; i < ncarried; i++)
        ir_block_add_arg(m, body, types[i], NULL);
    ir_builder in = irb_at_end(m, body, b->loc);
    ir_value row = body->args[0], next = body->args[1];
    ir_value origin = body->args[2 + nr], ends32 = body->args[3 + nr], w0_32 = body->args[4 + nr];
    ir_value row32 = irb_cast(&in, irb_binary(&in, IR_SUB, row, origin), ir_type_scalar(DT_I32));

    /* the row, reduced per segment: a whole row loads every element (those
     * outside [w0, w1) take no part in sw.segmented_reduce); one that
     * passes the buffers' end (rare: the last rows of a launch) runs as 4
     * masked rows of 128 in the usual layout, combined in order */
    ir_type *ptypes = arena_alloc(m->ar, sizeof(ir_type) * (size_t)(nr + 1));
    ir_value *ids = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(nr + 1));
    for (int r = 0; r < nr; r++) {
        ptypes[r] = ir_value_type(m, inits[3 + r]);
        ids[r] = inits[3 + r];
    }
    ir_value row_end = irb_binary(&in, IR_ADD, row, irb_int(&in, DT_I64, FLAT_ROW));
    ir_op *whole = irb_if(&in, irb_cmp(&in, "le", row_end, limit), ptypes, nr);
    ir_value *vals = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(p->nreductions + 1));
    ir_value *parts = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(nr + 1));
    {
        task_emitter e;
        task_emitter_init(&e, p, irb_at_end(m, whole->regions[0], b->loc), pl->map);
        e.lane_major = true;
        e.lane_rel = lane_rel;
        e.unmasked = true;
        walk_row(walk, &e, FLAT_ROW, row, row32, ends32, w0_32, vals);
        for (int r = 0; r < nr; r++)
            parts[r] = row_reduce(p, &e.b, walk->reductions[r], vals[r], row32, ends32, w0_32);
        irb_yield(&e.b, parts, nr);
    }
    {
        ir_builder edge = irb_at_end(m, whole->regions[1], b->loc);
        ir_op *sub = irb_for(&edge, irb_int(&edge, DT_I32, 0), irb_int(&edge, DT_I32, FLAT_ROW / FLAT_EDGE_ROW),
                             irb_int(&edge, DT_I32, 1), ids, nr);
        ir_block *sb = sub->regions[0];
        task_emitter e;
        task_emitter_init(&e, p, irb_at_end(m, sb, b->loc), pl->map);
        ir_value at = irb_binary(&e.b, IR_ADD, row,
                                 irb_binary(&e.b, IR_MUL, i64_of(&e.b, sb->args[0]), irb_int(&e.b, DT_I64, FLAT_EDGE_ROW)));
        ir_value at32 = irb_binary(&e.b, IR_ADD, row32,
                                   irb_binary(&e.b, IR_MUL, sb->args[0], irb_int(&e.b, DT_I32, FLAT_EDGE_ROW)));
        e.start = irb_int(&e.b, DT_I64, 0), e.end = limit;
        walk_row(walk, &e, FLAT_EDGE_ROW, at, at32, ends32, w0_32, vals);
        for (int r = 0; r < nr; r++) {
            const char *kind = ir_attr_get(p->ops[p->reduction_op[walk->reductions[r]]], "kind")->s;
            parts[r] = irb_binary(&e.b, ir_reduce_combine_op(kind), sb->args[1 + r],
                                  row_reduce(p, &e.b, walk->reductions[r], vals[r], at32, ends32, w0_32));
        }
        irb_yield(&e.b, parts, nr);
        irb_yield(&edge, sub->results, nr);
    }
    ir_value *yields = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(ncarried + 2));
    for (int r = 0; r < nr; r++) {
        const char *kind = ir_attr_get(p->ops[p->reduction_op[walk->reductions[r]]], "kind")->s;
        yields[3 + r] = irb_binary(&in, ir_reduce_combine_op(kind), body->args[2 + r], whole->results[r]);
    }
    /* the next row; one that starts inside a segment left out of the walk
     * starts at its end instead (rounded down to 4) */
    ir_value after = irb_binary(&in, IR_ADD, row, irb_int(&in, DT_I64, FLAT_ROW));
    ir_type i64 = ir_type_scalar(DT_I64), i64t = ir_type_tile(DT_I64, FLAT_SEGMENTS);
    ir_type five[5] = {i64, i64, i64, ir_value_type(m, ends32), ir_value_type(m, w0_32)};
    ir_op *jump = irb_if(&in, irb_cmp(&in, "ge", after, next), five, 5);
    ir_builder stay = irb_at_end(m, jump->regions[1], in.loc);
    ir_value kept[5] = {after, next, origin, ends32, w0_32};
    irb_yield(&stay, kept, 5);
    ir_builder go = irb_at_end(m, jump->regions[0], in.loc);
    ir_value ahead = irb_binary(&go, IR_AND, longer, irb_cmp(&go, "gt", ends, irb_splat(&go, after, i64t)));
    ir_value its_start = min_where(&go, ahead, starts), its_end = min_where(&go, ahead, ends);
    ir_value inside = irb_cmp(&go, "le", its_start, after);
    ir_value to = irb_binary(&go, IR_AND, its_end, irb_int(&go, DT_I64, -SEGMENT_ALIGN));
    ir_value landed = irb_select(&go, inside, irb_binary(&go, IR_MAXIMUM, after, to), after);
    ir_value later = irb_binary(&go, IR_AND, longer, irb_cmp(&go, "ge", starts, irb_splat(&go, landed, i64t)));
    ir_value moved[5] = {landed, min_where(&go, later, starts), landed, rel32(&go, ends, landed), rel32(&go, w0, landed)};
    irb_yield(&go, moved, 5);
    yields[0] = irb_cmp(&in, "lt", jump->results[0], w1);
    yields[1] = jump->results[0];
    yields[2] = jump->results[1];
    for (int i = 0; i < 3; i++)
        yields[3 + nr + i] = jump->results[2 + i];
    irb_yield(&in, yields, ncarried + 1);
    for (int r = 0; r < nr; r++)
        acc[r] = loop->results[2 + r];
}

/* The window's segments the walk did not run, one at a time on the warp:
 * all of them when the window's offsets decrease (ok false), else those
 * longer than the walk takes. */
static void emit_leftovers(planner *pl, ir_builder *b, ir_value s0, ir_value ok)
{
    ir_module *m = pl->m;
    ir_op *loop = irb_for(b, irb_int(b, DT_I32, 0), irb_int(b, DT_I32, FLAT_SEGMENTS), irb_int(b, DT_I32, 1), NULL, 0);
    ir_builder in = irb_at_end(m, loop->regions[0], b->loc);
    ir_value sid = irb_binary(&in, IR_ADD, s0, loop->regions[0]->args[0]);
    ir_op *real = irb_if(&in, irb_cmp(&in, "lt", i64_of(&in, sid), pl->segments), NULL, 0);
    ir_builder there = irb_at_end(m, real->regions[0], b->loc);
    task_emitter e;
    task_emitter_init(&e, &pl->p, there, pl->map);
    task_emit_range(&e, offsets_param(pl), sid, pl->numel, pl->p.params.nhidden, NULL);
    ir_value span = i64_of(&e.b, task_span(&e, SEGMENT_ALIGN));
    there = e.b;
    ir_value left = irb_binary(&there, IR_OR, irb(&there, IR_NOT, &ok, 1, ir_type_scalar(DT_I1)),
                               irb_cmp(&there, "gt", span, irb_int(&there, DT_I64, FLAT_WALK_MAX)));
    ir_op *todo = irb_if(&there, left, NULL, 0);
    ir_builder run = irb_at_end(m, todo->regions[0], b->loc);
    /* up to FLAT_WALK_MAX streamed here (the launch runs the lists only
     * when a segment can be longer: sw.stream_max), longer ones listed */
    int64_t saved = pl->stream_max;
    pl->stream_max = FLAT_WALK_MAX;
    emit_segment_task(pl, &run, sid, FLAT_TASK_TILE, OVERFLOW_STREAM_THEN_LISTS, FLAT_TASK_TILE, false);
    pl->stream_max = saved;
    irb_yield(&run, NULL, 0);
    ir_builder none = irb_at_end(m, todo->regions[1], b->loc);
    irb_yield(&none, NULL, 0);
    irb_yield(&there, NULL, 0);
    ir_builder outside = irb_at_end(m, real->regions[1], b->loc);
    irb_yield(&outside, NULL, 0);
    irb_yield(&in, NULL, 0);
}

static void emit_window(planner *pl, ir_builder *b, ir_value pid32)
{
    task_program *p = &pl->p;
    ir_module *m = pl->m;
    ir_type i64t = ir_type_tile(DT_I64, FLAT_SEGMENTS);
    ir_value offsets = offsets_param(pl);
    ir_type ot = ir_value_type(m, offsets);
    ir_value s0_32 = irb_binary(b, IR_MUL, pid32, irb_int(b, DT_I32, FLAT_SEGMENTS));
    ir_value s0 = i64_of(b, s0_32);
    ir_value limit = limit_of(pl, b), zero = irb_int(b, DT_I64, 0);
    /* the lanes' segments: sid = s0 + lane, offsets [sid], [sid + 1] (both
     * capped at the last offset: lanes past the segments are empty at the
     * end) */
    ir_value lane = irb_arange(b, FLAT_SEGMENTS);
    ir_value sid = irb_binary(b, IR_ADD, irb_splat(b, s0, i64t), irb_cast(b, lane, i64t));
    ir_value segs = irb_splat(b, pl->segments, i64t);
    ir_value valid = irb_cmp(b, "lt", sid, segs);
    ir_value lo_at = irb_binary(b, IR_MINIMUM, sid, segs);
    ir_value hi_at = irb_binary(b, IR_MINIMUM, irb_binary(b, IR_ADD, sid, tile32(b, DT_I64, 1)), segs);
    ir_type optrs = ir_type_ptr_tile((ir_dtype)ot.dtype, FLAT_SEGMENTS);
    ir_type otile = ir_type_tile((ir_dtype)ot.dtype, FLAT_SEGMENTS);
    ir_value lo_ptr = irb_binary(b, IR_ADDPTR, irb_splat(b, offsets, optrs), lo_at);
    ir_value hi_ptr = irb_binary(b, IR_ADDPTR, irb_splat(b, offsets, optrs), hi_at);
    ir_value lo = irb_cast(b, irb(b, IR_LOAD, &lo_ptr, 1, otile), i64t);
    ir_value hi = irb_cast(b, irb(b, IR_LOAD, &hi_ptr, 1, otile), i64t);
    check_lanes(pl, b, valid, sid, lo, hi, limit);
    ir_value limit_t = irb_splat(b, limit, i64t), zero_t = tile32(b, DT_I64, 0);
    ir_value starts = clamp(b, lo, limit_t, zero_t);
    ir_value ends = clamp(b, hi, limit_t, starts);
    /* the window is walked when its offsets never decrease; one sum over
     * the lanes counts the decreasing ones (low bits) and those longer than
     * the walk takes (times 64), and the first longer one's start is only
     * looked for when there is one */
    ir_value span = irb_binary(b, IR_SUB, ends, irb_binary(b, IR_AND, starts, tile32(b, DT_I64, -SEGMENT_ALIGN)));
    ir_value longer = irb_binary(b, IR_AND, valid, irb_cmp(b, "gt", span, tile32(b, DT_I64, FLAT_WALK_MAX)));
    ir_value counts = irb_binary(b, IR_ADD, irb_select(b, irb_cmp(b, "lt", hi, lo), tile32(b, DT_I32, 1), tile32(b, DT_I32, 0)),
                                 irb_select(b, longer, tile32(b, DT_I32, 64), tile32(b, DT_I32, 0)));
    ir_value count = reduce_scalar(b, "sum", counts);
    ir_value ok = irb_cmp(b, "eq", irb_binary(b, IR_AND, count, irb_int(b, DT_I32, 63)), irb_int(b, DT_I32, 0));
    ir_type i64 = ir_type_scalar(DT_I64);
    ir_op *has_long = irb_if(b, irb_cmp(b, "ge", count, irb_int(b, DT_I32, 64)), &i64, 1);
    ir_builder look = irb_at_end(m, has_long->regions[0], b->loc);
    ir_value first_long = min_where(&look, longer, starts);
    irb_yield(&look, &first_long, 1);
    ir_builder none_long = irb_at_end(m, has_long->regions[1], b->loc);
    ir_value never = irb_int(&none_long, DT_I64, INT64_MAX);
    irb_yield(&none_long, &never, 1);
    ir_value next_long = has_long->results[0];

    ir_op *walk = irb_if(b, ok, NULL, 0);
    ir_builder in = irb_at_end(m, walk->regions[0], b->loc);
    ir_value w0 = clamp(&in, i64_of(&in, irb_load_at(&in, offsets, s0)), limit, zero);
    ir_value w1_at = irb_binary(&in, IR_MINIMUM, irb_binary(&in, IR_ADD, s0, irb_int(&in, DT_I64, FLAT_SEGMENTS)),
                                pl->segments);
    ir_value w1 = clamp(&in, i64_of(&in, irb_load_at(&in, offsets, w1_at)), limit, w0);
    flat_window w = {.sid = sid, .valid = valid, .starts = starts, .ends = ends, .longer = longer,
                     .next_long = next_long, .w0 = w0, .w1 = w1, .limit = limit};
    if (p->nstages > 1) {
        flat_emit_stages(pl, &in, &w);
    } else {
        ir_value *acc = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(p->nreductions + 1));
        int *all = arena_alloc(m->ar, sizeof(int) * (size_t)(p->nreductions + 1));
        for (int r = 0; r < p->nreductions; r++)
            all[r] = r;
        flat_walk walk = {.stage = 0, .nr = p->nreductions, .reductions = all};
        flat_emit_walk(pl, &in, &w, &walk, acc);
        /* each lane's epilogue */
        flat f;
        flat_init(&f, pl, &in, &w);
        for (int i = 0, r = 0; i < p->nops; i++) {
            const ir_op *op = p->ops[i];
            switch (p->cls[i]) {
            case TASK_ID:
            case TASK_LENGTH: flat_lane_segment(&f, &w, op); break;
            case TASK_REDUCE:
                f.lanes[op->results[0]] = irb_cast(&in, acc[r++], flat_lane_type(ir_value_type(m, op->results[0])));
                break;
            case TASK_KEEP:
            case TASK_POST: flat_lane_clone(&f, op); break;
            default: break;
            }
        }
    }
    irb_yield(&in, NULL, 0);
    ir_builder skip = irb_at_end(m, walk->regions[1], b->loc);
    irb_yield(&skip, NULL, 0);
    /* what the walk left */
    ir_value any = irb_binary(b, IR_OR, irb(b, IR_NOT, &ok, 1, ir_type_scalar(DT_I1)),
                              irb_cmp(b, "lt", next_long, irb_int(b, DT_I64, INT64_MAX)));
    ir_op *rest = irb_if(b, any, NULL, 0);
    ir_builder left = irb_at_end(m, rest->regions[0], b->loc);
    emit_leftovers(pl, &left, s0_32, ok);
    irb_yield(&left, NULL, 0);
    ir_builder none = irb_at_end(m, rest->regions[1], b->loc);
    irb_yield(&none, NULL, 0);
}

void plan_build_flat(planner *pl)
{
    if (!flat_runs(pl))
        return;
    begin_kernel(pl, "direct_flat", "direct", (plan_shape){32, FLAT_ROW / 32}, FLAT_THREADS);
    ir_attr_set_str(pl->m, pl->func, "sw.policy", "flat");
    set_int(pl, "sw.tile", FLAT_WALK_MAX);
    ir_attr_set_str(pl->m, pl->func, "sw.overflow", "lists");
    set_int(pl, "sw.stream_max", FLAT_WALK_MAX);
    set_int(pl, "sw.tasks_per_program", FLAT_SEGMENTS);
    set_int(pl, "sw.flat_row", FLAT_ROW);
    set_int(pl, "sw.flat_stages", pl->p.nstages);
    ir_builder b = kernel_body(pl);
    ir_value pid = irb(&b, IR_PROGRAM_ID, NULL, 0, ir_type_scalar(DT_I32));
    ir_attr_set_int(pl->m, pl->m->values[pid].def, "axis", ir_type_scalar(DT_I32), 0);
    ir_value s0 = irb_binary(&b, IR_MUL, i64_of(&b, pid), irb_int(&b, DT_I64, FLAT_SEGMENTS));
    ir_op *inside = irb_if(&b, irb_cmp(&b, "lt", s0, pl->segments), NULL, 0);
    ir_builder then = irb_at_end(pl->m, inside->regions[0], b.loc);
    task_stream_form saved = pl->direct_form;
    pl->direct_form = TASK_STREAM_MASKED;
    emit_window(pl, &then, pid);
    pl->direct_form = saved;
    irb_yield(&then, NULL, 0);
    ir_builder other = irb_at_end(pl->m, inside->regions[1], b.loc);
    irb_yield(&other, NULL, 0);
    end_kernel(pl, &b);
}
