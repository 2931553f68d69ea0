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
 * reduction scratch): 512 flag bytes, then 512 values.
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
 * reads. The order of combination is fixed: the same bits on every run.
 *
 * Also sw.segment_index (the same needs; the region's flag bytes hold
 * each segment's mark at its first position, a running maximum per lane
 * and one scan over the lanes give each position its segment) and sw.gather
 * without an axis in a program of one warp inside a larger CTA (through the
 * region's values). Every user of the region begins with a warp barrier. */
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
    if (slots > 2) {
        int32_t zeros[16] = {0};
        return ls_vslots(s->lw, s->pos, v, zeros, slots);
    }
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

/* Zeroes this warp's `words` flag words a lane (lane l's word i at
 * flag_words + 32 i) between warp barriers, the first after the reads of
 * the op (or the row) before; returns the i32 zero it stored. */
static ir_value clear_flags(seg_lowering *s, ir_value flag_words, int32_t words)
{
    warp_sync(s);
    ir_value zero = c32(s, 0);
    for (int i = 0; i < words; i++)
        smem_put(s, bin(s, IR_ADD, flag_words, c32(s, SIMT_WARP * i)), zero, IR_NO_VALUE);
    warp_sync(s);
    return zero;
}

/* This warp's region of shared memory (after the reduction scratch, the
 * same for every sw.segmented_reduce, sw.segment_index and warp gather of
 * the function): flag bytes, then values (REGION_BYTES). Its
 * addresses are made once, at the function's entry (they depend on the
 * thread only). Every user begins with a warp barrier, so that the reads
 * of the user before are done. */
typedef struct warp_region {
    ir_value lane;   /* vector<1xi32>: the lane in the warp */
    ir_value at;     /* vector<1xi32>: the region's first byte */
    ir_value values; /* vector<1xi32>: its values, in 4-byte words */
    seg_lowering entry; /* builds at the function's entry */
} warp_region;

/* 512 flag bytes, then the values of 512 positions at a stride of V + 1
 * words a lane (V = 16: 32 more) */
enum { REGION_POSITIONS = 512, REGION_BYTES = 5 * REGION_POSITIONS + 4 * SIMT_WARP };

static bool region_of(seg_lowering *s, ir_op *op, warp_region *r)
{
    lowerer *lw = s->lw;
    int32_t warps = lw->threads / SIMT_WARP;
    if (!ls_smem_fits(lw, op, SIMT_REDUCE_SCRATCH + warps * REGION_BYTES))
        return false;
    ir_value tid = ls_thread_id(lw);
    r->entry = *s;
    r->entry.pos = ls_def_of(lw, tid)->next;
    seg_lowering *h = &r->entry;
    ir_value tid1 = ls_splat(lw, h->pos, tid, 1);
    r->lane = bin(h, IR_AND, tid1, c32(h, SIMT_WARP - 1));
    r->at = bin(h, IR_ADD, bin(h, IR_MUL, bin(h, IR_SHR, tid1, c32(h, 5)), c32(h, REGION_BYTES)),
                c32(h, SIMT_REDUCE_SCRATCH));
    r->values = bin(h, IR_ADD, bin(h, IR_SHR, r->at, c32(h, 2)), c32(h, REGION_POSITIONS / 4));
    return true;
}

/* E[k-1] for each of the lane's ne ends: the end before each segment's
 * first position (E[-1] = S). */
static ir_value ends_before(seg_lowering *s, ir_value e, ir_value from, ir_value lane, int32_t ne)
{
    ir_value lane0 = cmp(s, "eq", lane, c32(s, 0));
    if (ne == 1)
        return sel(s, lane0, from, up(s, e, 1));
    /* lane l holds segments 2 l and 2 l + 1 */
    ir_value e0 = slot_of(s, e, 0, s->lane_i32), e1 = slot_of(s, e, 1, s->lane_i32);
    ir_value first = sel(s, lane0, from, up(s, e1, 1));
    ir_value slot = bin(s, IR_AND, ls_tile_index(s->lw, s->pos, 2 * SIMT_WARP), kv(s, DT_I32, 1, 2));
    return sel(s, cmp(s, "eq", slot, kv(s, DT_I32, 0, 2)), widen(s, first, 2), widen(s, e0, 2));
}

/* The byte of flag position p (ne slots) in the region's flags: 4 (32
 * ((p mod V) / 4) + p / V) + p mod 4 (lane l's word i is word 32 i + l). */
static ir_value flag_byte(seg_lowering *s, ir_value p, int32_t v, int32_t logv, int32_t ne)
{
    ir_value word = bin(s, IR_ADD, bin(s, IR_MUL, bin(s, IR_SHR, bin(s, IR_AND, p, kv(s, DT_I32, v - 1, ne)),
                                                      kv(s, DT_I32, 2, ne)),
                                         kv(s, DT_I32, SIMT_WARP, ne)),
                          bin(s, IR_SHR, p, kv(s, DT_I32, logv, ne)));
    return bin(s, IR_ADD, bin(s, IR_MUL, word, kv(s, DT_I32, 4, ne)), bin(s, IR_AND, p, kv(s, DT_I32, 3, ne)));
}

/* V = 4, 8 or 16 slots a lane (positions V l .. V l + V - 1, the op's
 * lane-major order): tails marked in shared memory, a serial fold per
 * lane, one scan over the lanes, each segment's total read back from
 * shared memory (docs/simt.md). */
static bool lower_wide(seg_lowering *s, ir_value x, ir_value e, ir_value from, int32_t v, int32_t ne)
{
    lowerer *lw = s->lw;
    ir_op *op = s->pos;
    ir_dtype dt = (ir_dtype)ir_value_type(lw->m, x).dtype;
    warp_region reg;
    if (!region_of(s, op, &reg))
        return false;
    int32_t words = v / 4, logv = v == 4 ? 2 : v == 8 ? 3 : 4;
    ir_value lane = reg.lane, at = reg.at, values = reg.values;
    seg_lowering *h = &reg.entry;
    /* lane l's flag word i (positions V l + 4 i .. + 3) is word 32 i + l:
     * each access of the lanes' words hits 32 banks once */
    ir_value flag_words = bin(h, IR_ADD, bin(h, IR_SHR, at, c32(h, 2)), lane);
    /* position p's value is word p + p / V (lane l's at (V + 1) l + j: an
     * odd stride, so the lanes' stores of one j hit 32 banks once) */
    ir_value mine = bin(h, IR_ADD, values, bin(h, IR_MUL, lane, c32(h, v + 1)));
    ir_value zero = clear_flags(s, flag_words, words);
    /* the flag before each segment's first position: lane k marks E[k-1] - 1
     * (E[-1] = S: what precedes the start is no segment's); the last
     * segment's end needs none (no one reads past it) */
    ir_value e_before = ends_before(s, e, from, lane, ne);
    ir_value one_e = kv(s, DT_I32, 1, ne), zero_e = kv(s, DT_I32, 0, ne);
    /* the flag of position p = E[k-1] - 1 (flag_byte) */
    ir_value p = bin(s, IR_SUB, e_before, one_e);
    smem_put(s, bin(s, IR_ADD, widen(s, at, ne), flag_byte(s, p, v, logv, ne)), kv(s, DT_I8, 1, ne),
             cmp(s, "ge", e_before, one_e));
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

/* E = clamp(ends - base, 0, N) and S = clamp(start - base, 0, N) (in the
 * positions' type), then in 32 bits. */
static void positions(seg_lowering *s, ir_value base, ir_value ends, ir_value start, int32_t n, int32_t ne,
                      ir_value *e, ir_value *from)
{
    lowerer *lw = s->lw;
    ir_op *op = s->pos;
    ir_dtype pos = (ir_dtype)ir_value_type(lw->m, base).dtype;
    ir_value zero_p = kv(s, pos, 0, 1), n_p = kv(s, pos, n, 1);
    ir_value splat_base = ls_splat(lw, op, base, 1);
    ir_value rel = bin(s, IR_MINIMUM, bin(s, IR_MAXIMUM, bin(s, IR_SUB, ends, ls_splat(lw, op, base, ne)),
                                          kv(s, pos, 0, ne)), kv(s, pos, n, ne));
    *from = bin(s, IR_MINIMUM, bin(s, IR_MAXIMUM, bin(s, IR_SUB, ls_splat(lw, op, start, 1), splat_base),
                                   zero_p), n_p);
    *e = pos == DT_I32 ? rel : ls_cast(lw, op, rel, ir_type_vec(DT_I32, ne));
    if (ir_value_type(lw->m, *from).dtype != DT_I32)
        *from = ls_cast(lw, op, *from, s->lane_i32);
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

    int32_t ne = segs / SIMT_WARP;
    ir_value e, from;
    positions(&s, base, ends, start, n, ne, &e, &from);
    return lower_wide(&s, x, e, from, v, ne);
}

/* sw.segment_index: each segment's first position in the row (E[k-1], when
 * the segment has positions in it) gets the mark 2 k + 1, or 2 k + 2 when
 * skip[k], in a byte of the warp's region, and the last end the mark
 * 2 S + 2 (S ends); the marks grow with the positions, so a position's
 * segment is the largest mark at or before it: a maximum over the lane's
 * slots (log steps), one scan over the lanes for what comes before the
 * lane, then k = (mark - 1) / 2, or -1 where mark - 1 is odd (skipped,
 * past the last end) or mark is 0 (before the start). */
bool ls_lower_segment_index(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value base = op->operands[0], ends = op->operands[1], start = op->operands[2], skip = op->operands[3];
    int32_t n = ls_tile_len(lw, op->results[0]), segs = ls_tile_len(lw, ends);
    int32_t v = n / SIMT_WARP;
    if (lw->group != SIMT_WARP || (segs != SIMT_WARP && segs != 2 * SIMT_WARP) || n % SIMT_WARP ||
        (v != 4 && v != 8 && v != 16)) {
        diag_error_at(lw->d, DIAG_COMPILE, &m->src, op->loc,
                      "sw.segment_index needs a program of one warp, 32 or 64 ends and 128, 256 or 512 positions");
        return false;
    }
    seg_lowering sl = {.lw = lw, .pos = op, .combine = IR_MAXIMUM}, *s = &sl;
    s->lane_i32 = ir_type_vec(DT_I32, 1);
    s->lane_t = s->lane_i32;
    int32_t ne = segs / SIMT_WARP;
    ir_value e, from;
    positions(s, base, ends, start, n, ne, &e, &from);
    warp_region reg;
    if (!region_of(s, op, &reg))
        return false;
    int32_t words = v / 4;
    seg_lowering *h = &reg.entry;
    ir_value lane = reg.lane, at = reg.at;
    /* sw.segmented_reduce's layout of the flags: position p's byte is
     * 4 (32 ((p mod V) / 4) + p / V) + p mod 4, so lane l's word i is word
     * 32 i + l (each access of the lanes' words hits 32 banks once); lane
     * l's slot j at at + 4 l + 128 (j / 4) + j mod 4 (constants added to one
     * register: simt.tile_index of the lane's own V slots is 0 .. V-1) */
    ir_value flag_words = bin(h, IR_ADD, bin(h, IR_SHR, at, c32(h, 2)), lane);
    ir_value first = bin(h, IR_ADD, at, bin(h, IR_MUL, lane, c32(h, 4)));
    ir_value slot = ls_emit(lw, op, IR_SIMT_TILE_INDEX, NULL, 0, ir_type_vec(DT_I32, v));
    ir_attr_set_int(m, ls_def_of(lw, slot), "len", ir_type_scalar(DT_I32), v);
    ir_attr_set_int(m, ls_def_of(lw, slot), "start", ir_type_scalar(DT_I32), 0);
    ir_value slot_byte = bin(s, IR_OR, bin(s, IR_SHL, bin(s, IR_SHR, slot, kv(s, DT_I32, 2, v)), kv(s, DT_I32, 7, v)),
                             bin(s, IR_AND, slot, kv(s, DT_I32, 3, v)));
    ir_value mine = bin(s, IR_ADD, widen(s, first, v), slot_byte);
    int32_t logv = v == 4 ? 2 : v == 8 ? 3 : 4;
    ir_value k = ls_tile_index(lw, op, segs);
    ir_value k2 = bin(s, IR_ADD, bin(s, IR_MUL, k, kv(s, DT_I32, 2, ne)), kv(s, DT_I32, 1, ne));
    ir_value is_last = cmp(s, "eq", k, kv(s, DT_I32, segs - 1, ne));

    ir_value zero = clear_flags(s, flag_words, words);
    ir_value e_before = ends_before(s, e, from, lane, ne);
    ir_value mark = bin(s, IR_ADD, k2, sel(s, skip, kv(s, DT_I32, 1, ne), kv(s, DT_I32, 0, ne)));
    ir_value at_e = widen(s, at, ne);
    smem_put(s, bin(s, IR_ADD, at_e, flag_byte(s, e_before, v, logv, ne)), ls_cast(lw, op, mark, ir_type_vec(DT_U8, ne)),
             cmp(s, "gt", e, e_before));
    ir_value stop = bin(s, IR_AND, is_last, cmp(s, "lt", e, kv(s, DT_I32, n, ne)));
    smem_put(s, bin(s, IR_ADD, at_e, flag_byte(s, e, v, logv, ne)), kv(s, DT_U8, 2 * segs + 2, ne), stop);
    warp_sync(s);
    ir_value marks = ls_cast(lw, op, smem_get(s, mine, DT_U8), ir_type_vec(DT_I32, v));
    /* the largest mark at or before each slot: max is idempotent, so a slot
     * below the step takes itself */
    for (int step = 1; step < v; step *= 2) {
        int32_t from_slot[16];
        for (int q = 0; q < v; q++)
            from_slot[q] = q >= step ? q - step : q;
        marks = bin(s, IR_MAXIMUM, marks, ls_vslots(lw, op, marks, from_slot, v));
    }
    ir_value last = slot_of(s, marks, v - 1, s->lane_i32);
    for (int offset = 1; offset < SIMT_WARP; offset *= 2)
        last = bin(s, IR_MAXIMUM, last, up(s, last, offset));
    ir_value carry = sel(s, cmp(s, "ge", lane, c32(s, 1)), up(s, last, 1), zero);
    marks = bin(s, IR_MAXIMUM, marks, widen(s, carry, v));
    ir_value t = bin(s, IR_SUB, marks, kv(s, DT_I32, 1, v));
    ir_value odd = cmp(s, "ne", bin(s, IR_AND, t, kv(s, DT_I32, 1, v)), kv(s, DT_I32, 0, v));
    ls_replace_op(lw, op, sel(s, odd, kv(s, DT_I32, -1, v), bin(s, IR_SHR, t, kv(s, DT_I32, 1, v))));
    return true;
}

/* sw.gather (no axis) in a program of one warp inside a CTA of several:
 * through the warp's region (the source's at most 2048 bytes) between warp
 * barriers; an index outside [0, N) gives 0 (the semantic executor stops at
 * it). */
bool ls_lower_warp_gather(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value src = op->operands[0], index = op->operands[1];
    int32_t n = ls_tile_len(lw, src);
    ir_type it = ir_value_type(m, index), rt = ir_value_type(m, op->results[0]);
    ir_dtype dt = (ir_dtype)rt.dtype;
    int32_t bytes = ir_dtypes[dt].bytes;
    if (lw->group != SIMT_WARP || bytes < 1 || n * bytes > 4 * REGION_POSITIONS) {
        diag_error_at(lw->d, DIAG_COMPILE, &m->src, op->loc,
                      "lower-simt: 'sw.gather' in a program of %d threads inside a CTA of %d needs a warp and a "
                      "source of at most %d bytes", (int)lw->group, (int)lw->threads, 4 * REGION_POSITIONS);
        return false;
    }
    seg_lowering sl = {.lw = lw, .pos = op}, *s = &sl;
    s->lane_i32 = ir_type_vec(DT_I32, 1);
    warp_region reg;
    if (!region_of(s, op, &reg))
        return false;
    seg_lowering *h = &reg.entry;
    /* the values area in elements of the source: its byte address is a
     * multiple of 8 */
    ir_value first = bin(h, IR_SHR, bin(h, IR_ADD, reg.at, c32(h, REGION_POSITIONS)), c32(h, ls_log2i(bytes)));
    int32_t src_slots = ls_slots_of(lw, n);
    warp_sync(s);
    ls_smem_store(lw, op, 0, bin(s, IR_ADD, widen(s, first, src_slots), ls_tile_index(lw, op, n)), src,
                  ls_owner_vec(lw, op, n));
    warp_sync(s);
    ir_builder b = irb_before(m, op);
    ir_value inside;
    ir_value safe = ls_gather_index(lw, op, index, n, &inside);
    ir_value got = ls_smem_load(lw, op, 0, bin(s, IR_ADD, widen(s, first, it.len), safe), dt);
    ir_value zero = irb_const(&b, rt, (ir_scalar){0});
    ir_value pick[3] = {inside, got, zero};
    ls_replace_op(lw, op, ls_emit(lw, op, IR_SELECT, pick, 3, rt));
    return true;
}
