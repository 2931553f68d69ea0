/* lower_simt_segmented.c - lower-simt's sw.segmented_reduce (ops.def): the
 * row step of the flat segment kernels (docs/schedules.md, "The flat
 * kernel"; docs/simt.md).
 *
 * Requires a program of one warp (G = 32), an ends tile of 32 or 64 (lane
 * k holds ends[k], or ends[2k] and ends[2k+1]) and an operand tile of 32 V elements, V in
 * {4, 8, 16}, of a 32-bit type, lane l holding positions V l .. V l + V - 1
 * (the op's lane-major order); anything else is a compile error at the op.
 * The ends must not decrease from the start (the planner's windows
 * guarantee it). With E = ends - base and S = start - base clamped to
 * [0, N], each warp uses its own region of shared memory (after the
 * reduction scratch): N flag bytes, then N values.
 *   1. the flags of positions E[k-1] - 1 (before each segment's first
 *      element; E[-1] = S) are set, between warp barriers (the last end
 *      needs none: nothing after it is read);
 *   2. each lane folds its V elements left to right, a run restarting after
 *      each flagged position;
 *   3. the lanes' trailing runs are scanned from the last lane at or before
 *      each one with a flag (Kogge-Stone, the lower lanes on the left);
 *      lane l's carry is lane l - 1's result;
 *   4. every position's run value goes to shared memory; segment k's lane
 *      reads its total at E[k] - 1 and combines the carry into that position's
 *      lane L on its left when the segment starts before lane L.
 * Elements before the start or from the last end on fall in runs no segment
 * reads. The order of combination is fixed: the same bits on every run. */
#include "lower_simt_internal.h"
#include "passes.h"
#include "../ir/builder.h"

#include <stdio.h>

typedef struct seg_lowering {
    lowerer *lw;
    ir_op *pos;
    ir_type lane_i32;  /* vector<1xi32>: one value per lane */
    ir_type lane_t;    /* vector<1xT> */
    ir_op_kind combine;
    ir_value identity; /* vector<1xT> */
} seg_lowering;

static ir_value c32(seg_lowering *s, int32_t v)
{
    ir_builder b = irb_before(s->lw->m, s->pos);
    return irb_const(&b, s->lane_i32, (ir_scalar){.i = v});
}

static ir_value bin(seg_lowering *s, ir_op_kind k, ir_value a, ir_value b)
{
    return ls_binary(s->lw, s->pos, k, a, b);
}

static ir_value cmp(seg_lowering *s, const char *pred, ir_value a, ir_value b)
{
    return ls_cmp(s->lw, s->pos, pred, a, b);
}

static ir_value sel(seg_lowering *s, ir_value c, ir_value a, ir_value b)
{
    ir_value ops[3] = {c, a, b};
    return ls_emit(s->lw, s->pos, IR_SELECT, ops, 3, ir_value_type(s->lw->m, a));
}

static ir_value from_lane(seg_lowering *s, ir_value v, ir_value lane)
{
    ir_value ops[2] = {v, lane};
    return ls_emit(s->lw, s->pos, IR_SIMT_SHFL_LANE, ops, 2, ir_value_type(s->lw->m, v));
}

static ir_value up(seg_lowering *s, ir_value v, int offset)
{
    ir_value q = ls_emit(s->lw, s->pos, IR_SIMT_SHFL_UP, &v, 1, ir_value_type(s->lw->m, v));
    ir_attr_set_int(s->lw->m, ls_def_of(s->lw, q), "offset", ir_type_scalar(DT_I32), offset);
    return q;
}

static ir_value slot_of(seg_lowering *s, ir_value v, int j, ir_type t)
{
    char slots[16];
    snprintf(slots, sizeof slots, "%d", j);
    ir_value r = ls_emit(s->lw, s->pos, IR_SIMT_VSLOTS, &v, 1, t);
    ir_attr_set_str(s->lw->m, ls_def_of(s->lw, r), "slots", slots);
    return r;
}

/* A constant of `slots` slots. */
static ir_value kv(seg_lowering *s, ir_dtype dt, int64_t v, int32_t slots)
{
    ir_builder b = irb_before(s->lw->m, s->pos);
    return irb_const(&b, ir_type_vec(dt, slots), ir_scalar_from_int(dt, v));
}

/* A one-slot value in each of `slots` slots. */
static ir_value widen(seg_lowering *s, ir_value v, int32_t slots)
{
    if (slots == 1)
        return v;
    ir_value r = ls_emit(s->lw, s->pos, IR_SIMT_VSLOTS, &v, 1,
                         ir_type_like(ir_type_vec(DT_I32, slots), ir_value_type(s->lw->m, v)));
    ir_attr_set_str(s->lw->m, ls_def_of(s->lw, r), "slots", "0,0");
    return r;
}

static void smem_put(seg_lowering *s, ir_value index, ir_value value, ir_value mask)
{
    ls_smem_store(s->lw, s->pos, 0, index, value, mask);
}

static ir_value smem_get(seg_lowering *s, ir_value index, ir_dtype dt)
{
    return ls_smem_load(s->lw, s->pos, 0, index, dt);
}

static void warp_sync(seg_lowering *s)
{
    ls_emit_op(s->lw, s->pos, IR_SIMT_WARP_BARRIER, NULL, 0, NULL, 0);
}

/* V = 8 or 16 slots a lane (positions V l .. V l + V - 1, the op's
 * lane-major order): tails marked in shared memory, a serial fold per
 * lane, one scan over the lanes, each segment's total read back from
 * shared memory (docs/simt.md). */
static bool lower_wide(seg_lowering *s, ir_value x, ir_value e, ir_value from, int32_t n, int32_t v, int32_t ne)
{
    lowerer *lw = s->lw;
    ir_op *op = s->pos;
    ir_dtype dt = (ir_dtype)ir_value_type(lw->m, x).dtype;
    /* every sw.segmented_reduce of the function gives each warp the same
     * region, for its largest row */
    int32_t warps = lw->threads / SIMT_WARP, region = 5 * 16 * SIMT_WARP + 4 * SIMT_WARP;
    if (!ls_smem_fits(lw, op, SIMT_REDUCE_SCRATCH + warps * region))
        return false;
    int32_t words = v / 4, logv = v == 4 ? 2 : v == 8 ? 3 : 4;
    /* this warp's region: n flag bytes, then n values; the addresses are
     * made once, at the function's entry (they depend on the thread only) */
    ir_value tid = ls_thread_id(lw);
    seg_lowering entry = *s;
    entry.pos = ls_def_of(lw, tid)->next;
    seg_lowering *h = &entry;
    ir_value tid1 = ls_splat(lw, h->pos, tid, 1);
    ir_value lane = bin(h, IR_AND, tid1, c32(h, SIMT_WARP - 1));
    ir_value at = bin(h, IR_ADD, bin(h, IR_MUL, bin(h, IR_SHR, tid1, c32(h, 5)), c32(h, region)),
                      c32(h, SIMT_REDUCE_SCRATCH)); /* bytes */
    /* lane l's flag word i (positions V l + 4 i .. + 3) is word 32 i + l:
     * each access of the lanes' words hits 32 banks once */
    ir_value flag_words = bin(h, IR_ADD, bin(h, IR_SHR, at, c32(h, 2)), lane);
    /* position p's value is word p + p / V (lane l's at (V + 1) l + j: an
     * odd stride, so the lanes' stores of one j hit 32 banks once) */
    ir_value values = bin(h, IR_ADD, bin(h, IR_SHR, at, c32(h, 2)), c32(h, n / 4));
    ir_value mine = bin(h, IR_ADD, values, bin(h, IR_MUL, lane, c32(h, v + 1)));
    warp_sync(s); /* the reads of the op before (or the row before) are done */
    ir_value zero = c32(s, 0);
    for (int i = 0; i < words; i++)
        smem_put(s, bin(s, IR_ADD, flag_words, c32(s, SIMT_WARP * i)), zero, IR_NO_VALUE);
    warp_sync(s);
    /* the flag before each segment's first position: lane k marks E[k-1] - 1
     * (E[-1] = S: what precedes the start is no segment's); the last
     * segment's end needs none (no one reads past it) */
    ir_value lane0 = cmp(s, "eq", lane, zero);
    ir_value e_before;
    if (ne == 1) {
        e_before = sel(s, lane0, from, up(s, e, 1));
    } else {
        /* lane l holds segments 2 l and 2 l + 1 */
        ir_value e0 = slot_of(s, e, 0, s->lane_i32), e1 = slot_of(s, e, 1, s->lane_i32);
        ir_value first = sel(s, lane0, from, up(s, e1, 1));
        ir_value slot = bin(s, IR_AND, ls_tile_index(lw, op, 2 * SIMT_WARP), kv(s, DT_I32, 1, 2));
        e_before = sel(s, cmp(s, "eq", slot, kv(s, DT_I32, 0, 2)), widen(s, first, 2), widen(s, e0, 2));
    }
    ir_value one_e = kv(s, DT_I32, 1, ne), zero_e = kv(s, DT_I32, 0, ne);
    /* the flag of position p: byte 4 (32 ((p mod V) / 4) + p / V) + p mod 4 */
    ir_value p = bin(s, IR_SUB, e_before, one_e);
    ir_value word = bin(s, IR_ADD, bin(s, IR_MUL, bin(s, IR_SHR, bin(s, IR_AND, p, kv(s, DT_I32, v - 1, ne)),
                                                      kv(s, DT_I32, 2, ne)),
                                         kv(s, DT_I32, SIMT_WARP, ne)),
                          bin(s, IR_SHR, p, kv(s, DT_I32, logv, ne)));
    ir_value byte = bin(s, IR_ADD, bin(s, IR_MUL, word, kv(s, DT_I32, 4, ne)), bin(s, IR_AND, p, kv(s, DT_I32, 3, ne)));
    smem_put(s, bin(s, IR_ADD, widen(s, at, ne), byte), kv(s, DT_I8, 1, ne), cmp(s, "ge", e_before, one_e));
    warp_sync(s);
    ir_value w[4] = {IR_NO_VALUE, IR_NO_VALUE, IR_NO_VALUE, IR_NO_VALUE};
    for (int i = 0; i < words; i++)
        w[i] = smem_get(s, bin(s, IR_ADD, flag_words, c32(s, SIMT_WARP * i)), DT_I32);
    /* the serial fold: a run restarts after each tail */
    ir_value tail[16], r[16];
    for (int j = 0; j < v; j++) {
        tail[j] = cmp(s, "ne", bin(s, IR_AND, w[j / 4], c32(s, (int32_t)(0xffu << (8 * (j % 4))))), zero);
        ir_value xj = slot_of(s, x, j, s->lane_t);
        r[j] = j == 0 ? xj : sel(s, tail[j - 1], xj, bin(s, s->combine, r[j - 1], xj));
    }
    ir_value any = w[0];
    for (int i = 1; i < words; i++)
        any = bin(s, IR_OR, any, w[i]);
    ir_value trailing = sel(s, tail[v - 1], s->identity, r[v - 1]);
    /* st: the last lane <= this one with a tail (0: none); then the scan of
     * the trailing runs from st on */
    ir_value st = sel(s, cmp(s, "ne", any, zero), lane, zero);
    for (int offset = 1; offset < SIMT_WARP; offset *= 2)
        st = bin(s, IR_MAXIMUM, st, up(s, st, offset));
    ir_value total = trailing, reach = bin(s, IR_SUB, lane, st);
    for (int offset = 1; offset < SIMT_WARP; offset *= 2) {
        ir_value t_up = up(s, total, offset);
        ir_value take = cmp(s, "ge", reach, c32(s, offset));
        total = sel(s, take, bin(s, s->combine, t_up, total), total);
    }
    ir_value carry = sel(s, cmp(s, "ge", lane, c32(s, 1)), up(s, total, 1), s->identity);
    /* every position's run value, for the segments' lanes to read */
    for (int j = 0; j < v; j++)
        smem_put(s, bin(s, IR_ADD, mine, c32(s, j)), r[j], IR_NO_VALUE);
    warp_sync(s);
    /* lane k: segment k = [E[k-1], E[k]), its total at E[k] - 1 plus the
     * carry into that lane when the segment starts before the lane */
    ir_value some = cmp(s, "gt", e, e_before);
    ir_value last = bin(s, IR_MAXIMUM, bin(s, IR_SUB, e, one_e), zero_e);
    ir_value owner = bin(s, IR_SHR, last, kv(s, DT_I32, logv, ne));
    ir_value got = smem_get(s, bin(s, IR_ADD, widen(s, values, ne), bin(s, IR_ADD, last, owner)), dt);
    ir_value in = from_lane(s, widen(s, carry, ne), owner);
    ir_value crosses = cmp(s, "lt", e_before, bin(s, IR_SHL, owner, kv(s, DT_I32, logv, ne)));
    got = sel(s, crosses, bin(s, s->combine, in, got), got);
    ls_replace_op(lw, op, sel(s, some, got, widen(s, s->identity, ne)));
    return true;
}

bool ls_lower_segmented_reduce(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value x = op->operands[0], base = op->operands[1], ends = op->operands[2], start = op->operands[3];
    int32_t n = ls_tile_len(lw, x), segs = ls_tile_len(lw, ends);
    int32_t v = n / SIMT_WARP;
    ir_type xt = ir_value_type(m, x);
    if (lw->group != SIMT_WARP || (segs != SIMT_WARP && segs != 2 * SIMT_WARP) || n % SIMT_WARP ||
        (v != 4 && v != 8 && v != 16) ||
        ir_dtypes[xt.dtype].bits != 32 || xt.ptr_elem) {
        diag_error_at(lw->d, DIAG_COMPILE, &m->src, op->loc,
                      "sw.segmented_reduce needs a program of one warp, 32 or 64 ends and 128, 256 or "
                      "512 elements of a 32-bit type");
        return false;
    }
    const char *kind = ir_attr_get(op, "kind")->s;
    seg_lowering s = {.lw = lw, .pos = op, .combine = ir_reduce_combine_op(kind)};
    s.lane_i32 = ir_type_vec(DT_I32, 1);
    s.lane_t = ir_type_vec((ir_dtype)xt.dtype, 1);
    ir_scalar id;
    ir_eval_reduce_identity(kind, (ir_dtype)xt.dtype, &id);
    ir_builder b = irb_before(m, op);
    s.identity = irb_const(&b, s.lane_t, id);

    /* E = clamp(ends - base, 0, N) and the start's the same way (in the
     * positions' type), then in 32 bits */
    int32_t ne = segs / SIMT_WARP;
    ir_dtype pos = (ir_dtype)ir_value_type(m, base).dtype;
    ir_value zero_p = kv(&s, pos, 0, 1), n_p = kv(&s, pos, n, 1);
    ir_value splat_base = ls_splat(lw, op, base, 1);
    ir_value rel = bin(&s, IR_MINIMUM, bin(&s, IR_MAXIMUM, bin(&s, IR_SUB, ends, ls_splat(lw, op, base, ne)),
                                           kv(&s, pos, 0, ne)), kv(&s, pos, n, ne));
    ir_value from = bin(&s, IR_MINIMUM, bin(&s, IR_MAXIMUM, bin(&s, IR_SUB, ls_splat(lw, op, start, 1), splat_base),
                                            zero_p), n_p);
    ir_value e = pos == DT_I32 ? rel : ls_cast(lw, op, rel, ir_type_vec(DT_I32, ne));
    if (ir_value_type(m, from).dtype != DT_I32)
        from = ls_cast(lw, op, from, s.lane_i32);
    return lower_wide(&s, x, e, from, n, v, ne);
}
