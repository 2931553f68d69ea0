/* lower_simt_segmented.c - lower-simt's sw.segmented_reduce (ops.def): the
 * row step of the flat segment kernels (docs/schedules.md, "The flat
 * kernel"), in registers and shuffles, no shared memory.
 *
 * Requires a program of one warp (G = 32), an ends tile of 32 (one per
 * lane: lane k holds ends[k]) and an operand tile of 32 V elements, V in
 * {1, 2, 4} (lane l holds the V consecutive elements V l .. V l + V - 1),
 * of a 32-bit type; anything else is a compile error at the op. The ends
 * must not decrease (the planner's windows guarantee it); the result is
 * then the op's meaning, in this order of combination: each lane folds
 * its elements of one segment left to right, partials of a segment that
 * crosses lanes combine in a segmented Kogge-Stone scan (offsets 1, 2, 4,
 * 8, 16, the lower lanes' part on the left), and lane k takes segment k's
 * total from the lane holding its last element. Fixed, so results are the
 * same bits on every run.
 *
 * Per lane, with positions relative to base (E = ends - base clamped to
 * [0, N]):
 *   key(p) = #{k : E[k] <= p}, the segment of position p (32: after the
 *     last); slot 0's by a binary search over the lanes' E (five shuffles
 *     from a lane in a register, simt.shfl_lane), the next slots' by one
 *     step each: key(p + 1) = U[key(p)] when E[key(p)] = p + 1, else
 *     key(p), where U[k] = #{k' : E[k'] <= E[k]} skips empty segments
 *     (ends equal to E[k]) -- U by the same search;
 *   r[j] = the fold of the slot's run: x[j], after x[j-1]'s run when
 *     their keys agree;
 *   the scan of the last slot's (key, run) pairs over the lanes, then each
 *     lane's slots of its first key add the lane before it's total;
 *   segment k (lane k): empty in the row when E[k-1] >= E[k], else the
 *     value at position E[k] - 1 (lane (E[k] - 1) / V, slot mod V). */
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

/* #{k : E[k] <= p} per lane: five halvings, then the last lane. */
static ir_value count_le(seg_lowering *s, ir_value e, ir_value e_last, ir_value p)
{
    ir_value at = c32(s, 0);
    for (int step = 16; step >= 1; step /= 2) {
        ir_value probe = from_lane(s, e, bin(s, IR_OR, at, c32(s, step - 1)));
        at = sel(s, cmp(s, "le", probe, p), bin(s, IR_OR, at, c32(s, step)), at);
    }
    return bin(s, IR_ADD, at, sel(s, cmp(s, "le", e_last, p), c32(s, 1), c32(s, 0)));
}

static ir_value slot_of(seg_lowering *s, ir_value v, int j, ir_type t)
{
    char slots[16];
    snprintf(slots, sizeof slots, "%d", j);
    ir_value r = ls_emit(s->lw, s->pos, IR_SIMT_VSLOTS, &v, 1, t);
    ir_attr_set_str(s->lw->m, ls_def_of(s->lw, r), "slots", slots);
    return r;
}

bool ls_lower_segmented_reduce(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value x = op->operands[0], base = op->operands[1], ends = op->operands[2];
    int32_t n = ls_tile_len(lw, x), segs = ls_tile_len(lw, ends);
    int32_t v = n / SIMT_WARP;
    ir_type xt = ir_value_type(m, x);
    if (lw->group != SIMT_WARP || segs != SIMT_WARP || n % SIMT_WARP || (v != 1 && v != 2 && v != 4) ||
        ir_dtypes[xt.dtype].bits != 32 || xt.ptr_elem) {
        diag_error_at(lw->d, DIAG_COMPILE, &m->src, op->loc,
                      "sw.segmented_reduce needs a program of one warp, 32 ends and 32, 64 or 128 "
                      "elements of a 32-bit type");
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

    /* E = clamp(ends - base, 0, N) in 32 bits; the lane, its first position */
    ir_type lane_i64 = ir_type_vec(DT_I64, 1);
    ir_value rel = bin(&s, IR_SUB, ends, ls_splat(lw, op, base, 1));
    rel = bin(&s, IR_MAXIMUM, rel, irb_const(&b, lane_i64, (ir_scalar){.i = 0}));
    rel = bin(&s, IR_MINIMUM, rel, irb_const(&b, lane_i64, (ir_scalar){.i = n}));
    ir_value e = ls_cast(lw, op, rel, s.lane_i32);
    ir_value lane = ls_splat(lw, op, ls_group_lane(lw, op), 1);
    ir_value e_last = from_lane(&s, e, c32(&s, SIMT_WARP - 1));
    ir_value first = v == 1 ? lane : bin(&s, IR_MUL, lane, c32(&s, v));

    /* keys of the lane's slots */
    ir_value key[4], r[4], xs[4];
    key[0] = count_le(&s, e, e_last, first);
    ir_value upper = v > 1 ? count_le(&s, e, e_last, e) : IR_NO_VALUE;
    for (int j = 1; j < v; j++) {
        ir_value p = bin(&s, IR_ADD, first, c32(&s, j));
        ir_value at = bin(&s, IR_AND, key[j - 1], c32(&s, SIMT_WARP - 1));
        ir_value hit = bin(&s, IR_AND, cmp(&s, "lt", key[j - 1], c32(&s, SIMT_WARP)),
                           cmp(&s, "le", from_lane(&s, e, at), p));
        key[j] = sel(&s, hit, from_lane(&s, upper, at), key[j - 1]);
    }
    /* each slot's run, within the lane */
    for (int j = 0; j < v; j++) {
        xs[j] = v == 1 ? x : slot_of(&s, x, j, s.lane_t);
        r[j] = j == 0 ? xs[0]
                      : sel(&s, cmp(&s, "eq", key[j], key[j - 1]), bin(&s, s.combine, r[j - 1], xs[j]), xs[j]);
    }
    /* the lanes' last runs, scanned by key */
    ir_value tail_key = key[v - 1], total = r[v - 1];
    for (int offset = 1; offset < SIMT_WARP; offset *= 2) {
        ir_value k_up = up(&s, tail_key, offset), t_up = up(&s, total, offset);
        ir_value take = bin(&s, IR_AND, cmp(&s, "ge", lane, c32(&s, offset)), cmp(&s, "eq", k_up, tail_key));
        total = sel(&s, take, bin(&s, s.combine, t_up, total), total);
    }
    /* the lane before's total joins this lane's first run */
    ir_value k_before = up(&s, tail_key, 1), t_before = up(&s, total, 1);
    ir_value joined = bin(&s, IR_AND, cmp(&s, "ge", lane, c32(&s, 1)), cmp(&s, "eq", k_before, key[0]));
    for (int j = 0; j < v; j++)
        r[j] = sel(&s, bin(&s, IR_AND, joined, cmp(&s, "eq", key[j], key[0])),
                   bin(&s, s.combine, t_before, r[j]), r[j]);
    /* lane k: segment k's total, at its last position in the row */
    ir_value e_before = sel(&s, cmp(&s, "ge", lane, c32(&s, 1)), up(&s, e, 1), c32(&s, 0));
    ir_value some = cmp(&s, "gt", e, e_before);
    ir_value last = bin(&s, IR_SUB, e, c32(&s, 1));
    ir_value src = v == 1 ? last : bin(&s, IR_SHR, last, c32(&s, v == 2 ? 1 : 2));
    ir_value got = from_lane(&s, r[0], src);
    if (v > 1) {
        ir_value slot = bin(&s, IR_AND, last, c32(&s, v - 1));
        for (int j = 1; j < v; j++)
            got = sel(&s, cmp(&s, "eq", slot, c32(&s, j)), from_lane(&s, r[j], src), got);
    }
    ls_replace_op(lw, op, sel(&s, some, got, s.identity));
    return true;
}
