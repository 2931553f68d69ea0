/* lower_simt_axis.c - lower-simt's reductions along an axis of a tile of
 * rank >= 2 (docs/simt.md, "Tiles of several dimensions"): sw.reduce
 * {axis} and sw.reduce_fn {axis}. A tile of any shape is laid out as its
 * row-major elements are as a 1-D tile (lower_simt_shapes.c), so the
 * element index's bits split into slot bits and thread bits (the layout
 * puts consecutive chunks in consecutive threads), and the axis's bits are
 * reduced in three steps: in each thread over its slots (simt.vslots
 * picks them), across lanes by simt.shfl_xor, and across warps together
 * with the move of each result to the thread that holds it in the result's
 * layout, through shared memory. A reduction broadcast back to its input's
 * dims (`x - sl.max(x, axis=1)[:, None]`, keep_dims=True) keeps its totals
 * in the input's layout for that broadcast (ls_broadcast_back).
 *
 * Requires the walk of lower_simt.c (values retyped, ops before this one
 * already lowered); guarantees SIMT ops only, or a compile error at the
 * op. */
#include "lower_simt_internal.h"
#include "../ir/builder.h"

#include <stdlib.h>

/* ---- sw.reduce {axis} ------------------------------------------------------ */

/* The reduced dim occupies bits [lo, hi) of the element index e; slot j of
 * thread t (t < P owners, chunk c) holds e = (j / c) * c * P + t * c +
 * j mod c, so e's bits [0, lc) come from j, [lc, lc + lP) from t and the
 * rest from j / c. */
typedef struct axis_bits {
    int lo, hi;      /* the axis's bits of e */
    int lc, lP;      /* log2 of the chunk and of the owners */
    int32_t V;
} axis_bits;

/* The slot bits of j that are axis bits, as a mask over j. */
static int64_t slot_axis_mask(const axis_bits *a)
{
    int64_t am = (((int64_t)1 << a->hi) - 1) ^ (((int64_t)1 << a->lo) - 1);
    int64_t low = am & (((int64_t)1 << a->lc) - 1);
    int64_t high = (am >> (a->lc + a->lP)) << a->lc;
    return low | high;
}

/* The accumulator's value as the element type (an i1 sum keeps bit 0). */
static ir_value finish(lowerer *lw, ir_op *pos, ir_value v, ir_dtype dt, ir_dtype acc, ir_op_kind combine)
{
    if (v == IR_NO_VALUE || acc == dt)
        return v;
    int32_t n = ir_value_type(lw->m, v).len;
    if (dt == DT_I1 && combine == IR_ADD)
        v = ls_binary(lw, pos, IR_AND, v, ls_vconst(lw, pos, n, 1));
    return ls_cast(lw, pos, v, ir_type_vec(dt, n));
}

/* Whether the reduction's result is broadcast back to its input's dims
 * (through the sw.reshape that puts a 1 at the axis): the pattern
 * `x - sl.max(x, axis=1)[:, None]` and keep_dims=True. */
static bool is_back(const lowerer *lw, const ir_op *reshape, const ir_op *bcast, ir_type in, int axis)
{
    int32_t d[IR_MAX_RANK], rd[IR_MAX_RANK], bd[IR_MAX_RANK];
    int rank = ir_tile_dims(in, d);
    if (!reshape || reshape->kind != IR_RESHAPE || !bcast || bcast->kind != IR_BROADCAST ||
        reshape->results[0] >= lw->nsemantic || bcast->results[0] >= lw->nsemantic ||
        ir_tile_dims(lw->semantic[reshape->results[0]], rd) != rank ||
        ir_tile_dims(lw->semantic[bcast->results[0]], bd) != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (rd[i] != (i == axis ? 1 : d[i]) || bd[i] != d[i])
            return false;
    return true;
}

/* How the reduction's result is used: BACK_NONE, BACK_SOME (some uses are
 * broadcasts back) or BACK_ONLY (every use is, through its reshapes). */
enum { BACK_NONE, BACK_SOME, BACK_ONLY };

static int broadcast_back(const lowerer *lw, const ir_op *op)
{
    ir_type in = ls_semantic_type(lw, op->operands[0]);
    int axis = (int)ir_attr_get(op, "axis")->i;
    bool some = false, all = true;
    for (ir_use *u = ir_value_uses(lw->m, op->results[0]); u; u = u->next) {
        ir_use *v = u->user->nresults == 1 ? ir_value_uses(lw->m, u->user->results[0]) : NULL;
        all &= v != NULL;
        for (; v; v = v->next) {
            bool b = is_back(lw, u->user, v->user, in, axis);
            some |= b;
            all &= b;
        }
    }
    return !some ? BACK_NONE : all ? BACK_ONLY : BACK_SOME;
}

static bool note_back(lowerer *lw, ir_value result, ir_value back, ir_type in, int axis)
{
    if (lw->nbacks == lw->capbacks) {
        int32_t cap = lw->capbacks ? 2 * lw->capbacks : 8;
        reduced_back *grown = realloc(lw->backs, sizeof *grown * (size_t)cap);
        if (!grown) {
            diag_error(lw->d, DIAG_NOMEM, "out of memory");
            return false;
        }
        lw->backs = grown;
        lw->capbacks = cap;
    }
    lw->backs[lw->nbacks++] = (reduced_back){result, back, in, axis};
    return true;
}

/* The in-layout totals of a reduction broadcast back by op, or IR_NO_VALUE. */
ir_value ls_broadcast_back(const lowerer *lw, const ir_op *op)
{
    const ir_op *reshape = lw->m->values[op->operands[0]].def;
    if (!reshape || reshape->kind != IR_RESHAPE)
        return IR_NO_VALUE;
    for (int32_t i = 0; i < lw->nbacks; i++) {
        const reduced_back *b = &lw->backs[i];
        if (b->result == reshape->operands[0] && is_back(lw, reshape, op, b->input, b->axis))
            return b->back;
    }
    return IR_NO_VALUE;
}

bool ls_lower_reduce_axis(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    const char *kind = ir_attr_get(op, "kind")->s;
    int axis = (int)ir_attr_get(op, "axis")->i;
    ir_op_kind combine = ir_reduce_combine_op(kind);
    if (combine == IR_OP_COUNT) {
        sw_unreachable(lw->d, "lower-simt: unknown reduction kind '%s'", kind);
        return false;
    }
    if (!ls_whole_cta(lw, op))
        return false;
    ir_type xs = ls_semantic_type(lw, op->operands[0]);
    int32_t d[IR_MAX_RANK];
    int rank = ir_tile_dims(xs, d);
    int32_t L = xs.len, V = ls_slots_of(lw, L), c = ir_simt_chunk(V), P = L / V;
    axis_bits a = {.lc = ls_log2i(c), .lP = ls_log2i(P), .V = V};
    for (int k = axis + 1; k < rank; k++)
        a.lo += ls_log2i(d[k]);
    a.hi = a.lo + ls_log2i(d[axis]);
    int32_t Lr = L >> (a.hi - a.lo);
    ir_dtype dt = (ir_dtype)xs.dtype, acc = ir_reduce_accumulator(dt);
    ir_value x = op->operands[0];
    if (acc != dt)
        x = ls_cast(lw, op, x, ir_type_vec(acc, V));

    /* 1. This thread's slots: the groups of slots that differ only in axis
     * bits, each folded in slot (element) order. */
    int64_t jm = slot_axis_mask(&a);
    int32_t *group = malloc(sizeof(int32_t) * (size_t)V * 4);
    if (!group) {
        diag_error(lw->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    int32_t *members = group + V, *firsts = group + 2 * V, *count = group + 3 * V, ng = 0;
    for (int32_t j = 0; j < V; j++)
        group[j] = -1;
    for (int32_t j = 0; j < V; j++) {
        int32_t f = (int32_t)(j & ~jm);
        if (group[f] < 0) {
            group[f] = ng;
            firsts[ng] = f;
            count[ng++] = 0;
        }
    }
    int32_t nm = V / ng;
    for (int32_t j = 0; j < V; j++) {
        int32_t q = group[j & ~jm];
        members[q * nm + count[q]++] = j;
    }
    ir_value p = IR_NO_VALUE;
    for (int32_t i = 0; i < nm; i++) {
        int32_t *pick = count; /* reused: ng slot indices */
        for (int32_t q = 0; q < ng; q++)
            pick[q] = members[q * nm + i];
        ir_value sel = ls_vslots(lw, op, x, pick, ng);
        if (sel == IR_NO_VALUE) {
            free(group);
            return false;
        }
        p = i ? ls_binary(lw, op, combine, p, sel) : sel;
    }

    /* 2. The axis's thread bits [b0, b1) of t that are lane bits: a
     * butterfly over them leaves every lane of a group with its total. */
    int b0 = a.lo - a.lc > 0 ? a.lo - a.lc : 0;
    int b1 = a.hi - a.lc < a.lP ? a.hi - a.lc : a.lP;
    int lane_end = b1 < 5 ? b1 : 5;
    for (int b = b0; b < lane_end; b++)
        p = ls_binary(lw, op, combine, p, ls_shfl_xor(lw, op, p, 1 << b));

    /* 3. The warp bits: each group's total goes to shared memory at
     * (result index, warp part), stored by one lane of its group (and by
     * owners only); after a barrier each thread folds the warp parts of
     * its result slots in order. */
    int wb0 = b0 > 5 ? b0 : 5;
    int nwb = b1 > wb0 ? b1 - wb0 : 0;
    int32_t W = 1 << nwb;
    if (!ls_smem_fits(lw, op, Lr * W * ir_dtypes[acc].bytes)) {
        free(group);
        return false;
    }
    int uses = broadcast_back(lw, op);
    bool back = uses != BACK_NONE;
    if (uses == BACK_ONLY && W == 1) {
        /* Used only broadcast back, with every row in one warp: the totals
         * are in registers already, and the result in its own layout is
         * never read (a constant stands for it until the reshapes go). */
        for (int32_t j = 0; j < V; j++)
            count[j] = group[j & ~jm];
        ir_value totals = finish(lw, op, ls_vslots(lw, op, p, count, V), dt, acc, combine);
        free(group);
        ir_builder b = irb_before(m, op);
        ir_value unread = irb_const(&b, ir_type_vec(dt, ls_slots_of(lw, Lr)), (ir_scalar){0});
        ls_replace_op(lw, op, unread);
        return totals != IR_NO_VALUE && note_back(lw, unread, totals, xs, axis);
    }
    ir_value tid = ls_thread_id(lw);
    ir_value store_mask = ls_owner_mask(lw, op, L);
    if (lane_end > b0) {
        int32_t lanes = ((1 << lane_end) - 1) ^ ((1 << b0) - 1);
        ir_value first = ls_cmp(lw, op, "eq", ls_binary(lw, op, IR_AND, tid, ls_const_i32(lw, op, lanes)),
                                ls_const_i32(lw, op, 0));
        store_mask = store_mask == IR_NO_VALUE ? first : ls_binary(lw, op, IR_AND, store_mask, first);
    }
    ir_value e = ls_vslots(lw, op, ls_tile_index(lw, op, L), firsts, ng);
    if (e == IR_NO_VALUE) {
        free(group);
        return false;
    }
    ir_value r = ls_shift(lw, op, IR_SHL, ls_shift(lw, op, IR_SHR, e, a.hi), a.lo);
    if (a.lo > 0)
        r = ls_binary(lw, op, IR_OR, r, ls_mask_bits(lw, op, e, ((int64_t)1 << a.lo) - 1));
    ir_value r_groups = r;
    if (W > 1) {
        ir_value w = ls_binary(lw, op, IR_AND, ls_binary(lw, op, IR_SHR, tid, ls_const_i32(lw, op, wb0)),
                               ls_const_i32(lw, op, W - 1));
        r = ls_binary(lw, op, IR_OR, ls_shift(lw, op, IR_SHL, r, nwb), ls_splat(lw, op, w, ng));
    }
    ls_smem_store(lw, op, 0, r, p, store_mask == IR_NO_VALUE ? store_mask : ls_splat(lw, op, store_mask, ng));
    ls_barrier(lw, op);
    int32_t Vr = ls_slots_of(lw, Lr);
    ir_value base = ls_shift(lw, op, IR_SHL, ls_tile_index(lw, op, Lr), nwb), res = IR_NO_VALUE;
    for (int32_t w = 0; w < W; w++) {
        ir_value at = w ? ls_binary(lw, op, IR_OR, base, ls_vconst(lw, op, Vr, w)) : base;
        ir_value part = ls_smem_load(lw, op, 0, at, acc);
        res = w ? ls_binary(lw, op, combine, res, part) : part;
    }
    /* Each group's total in this thread's own slots of x, for a broadcast
     * back (the warp parts of its rows are in shared memory already). */
    ir_value totals = p;
    for (int32_t w = 0; back && W > 1 && w < W; w++) {
        ir_value at = ls_binary(lw, op, IR_OR, ls_shift(lw, op, IR_SHL, r_groups, nwb), ls_vconst(lw, op, ng, w));
        ir_value part = ls_smem_load(lw, op, 0, at, acc);
        totals = w ? ls_binary(lw, op, combine, totals, part) : part;
    }
    ls_barrier(lw, op);
    res = finish(lw, op, res, dt, acc, combine);
    if (back) {
        for (int32_t j = 0; j < V; j++)
            count[j] = group[j & ~jm];
        totals = finish(lw, op, ls_vslots(lw, op, totals, count, V), dt, acc, combine);
    }
    free(group);
    ls_replace_op(lw, op, res);
    if (back && !note_back(lw, res, totals, xs, axis))
        return false;
    (void)m;
    return true;
}

/* ---- sw.reduce_fn {axis} ----------------------------------------------------- */

/* This thread's slot j of v (a vector of numbers) as a scalar. */
static ir_value slot_scalar(lowerer *lw, ir_op *pos, ir_value v, int32_t j)
{
    ir_value one = ls_vslots(lw, pos, v, &j, 1);
    if (one == IR_NO_VALUE)
        return one;
    ir_value s = ls_emit(lw, pos, IR_SIMT_VREDUCE, &one, 1, ir_type_elem(ir_value_type(lw->m, one)));
    ir_attr_set_str(lw->m, ls_def_of(lw, s), "kind", "max");
    return s;
}

enum { MAX_FOLDED = 16 };

/* The k operand tiles go to shared memory (owners store them at their
 * element indices); after a barrier each thread, for each slot j of the
 * result's layout, folds the K elements along the axis in order, an sw.for
 * whose body is the combine function (scalars), and its owners store the
 * total at the result index; after a barrier every thread loads its slots
 * of each result; a barrier frees the memory. The order of combination is
 * the reference executor's, so any associative function (commutative or
 * not) gives its results. */
bool ls_lower_reduce_fn_axis(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    int k = op->noperands, axis = (int)ir_attr_get(op, "axis")->i;
    if (!ls_whole_cta(lw, op))
        return false;
    if (k > MAX_FOLDED) {
        sw_unreachable(lw->d, "lower-simt: a reduction of %d values", k);
        return false;
    }
    ir_type xs = ls_semantic_type(lw, op->operands[0]);
    int32_t d[IR_MAX_RANK];
    int rank = ir_tile_dims(xs, d);
    int32_t L = xs.len, K = d[axis], inner = 1;
    for (int i = axis + 1; i < rank; i++)
        inner *= d[i];
    int32_t Lr = L / K, Vr = ls_slots_of(lw, Lr);
    ir_dtype dt[MAX_FOLDED];
    int32_t off_d[MAX_FOLDED], off_r[MAX_FOLDED], bytes = 0;
    for (int i = 0; i < k; i++) {
        dt[i] = (ir_dtype)ir_value_type(m, op->operands[i]).dtype;
        off_d[i] = bytes;
        bytes = (bytes + L * ir_dtypes[dt[i]].bytes + 7) & ~7;
    }
    for (int i = 0; i < k; i++) {
        off_r[i] = bytes;
        bytes = (bytes + Lr * ir_dtypes[dt[i]].bytes + 7) & ~7;
    }
    if (!ls_smem_fits(lw, op, bytes))
        return false;
    combiner cb;
    if (!ls_combiner_init(lw, op, k, &cb))
        return false;
    ir_value owners = ls_owner_vec(lw, op, L);
    ir_value at = ls_tile_index(lw, op, L);
    for (int i = 0; i < k; i++)
        ls_smem_store(lw, op, off_d[i], at, op->operands[i], owners);
    ls_barrier(lw, op);

    int li = ls_log2i(inner), lk = ls_log2i(K);
    ir_value ri = ls_tile_index(lw, op, Lr);
    ir_value result_owner = ls_owner_mask(lw, op, Lr);
    for (int32_t j = 0; j < Vr; j++) {
        ir_value r = slot_scalar(lw, op, ri, j);
        if (r == IR_NO_VALUE)
            return false;
        /* base = the result index with the axis's bits (zero) put back */
        ir_value hi = ls_binary(lw, op, IR_SHL, ls_binary(lw, op, IR_SHR, r, ls_const_i32(lw, op, li)),
                                ls_const_i32(lw, op, li + lk));
        ir_value base = ls_binary(lw, op, IR_OR, hi, ls_binary(lw, op, IR_AND, r, ls_const_i32(lw, op, inner - 1)));
        ir_value acc[MAX_FOLDED];
        for (int i = 0; i < k; i++)
            acc[i] = ls_smem_load(lw, op, off_d[i], base, dt[i]);
        ir_builder b = irb_before(m, op);
        ir_op *loop = irb_for(&b, ls_const_i32(lw, op, 1), ls_const_i32(lw, op, K), ls_const_i32(lw, op, 1),
                              acc, k);
        ir_block *body = loop->regions[0];
        ir_builder in = irb_at_end(m, body, op->loc);
        irb_yield(&in, &body->args[1], k);
        ir_op *yield = body->last;
        ir_value step = ls_binary(lw, yield, IR_SHL, body->args[0], ls_const_i32(lw, yield, li));
        ir_value idx = ls_binary(lw, yield, IR_ADD, base, step);
        ir_value x[MAX_FOLDED], out[MAX_FOLDED];
        for (int i = 0; i < k; i++)
            x[i] = ls_smem_load(lw, yield, off_d[i], idx, dt[i]);
        ls_combine_at(lw, yield, &cb, &body->args[1], x, out);
        ir_op_set_operands(m, yield, out, k);
        for (int i = 0; i < k; i++)
            ls_smem_store(lw, op, off_r[i], r, loop->results[i], result_owner);
    }
    ls_barrier(lw, op);
    for (int i = 0; i < k; i++)
        ls_replace_value(lw, op->results[i], ls_smem_load(lw, op, off_r[i], ri, dt[i]));
    ls_barrier(lw, op);
    ir_op_erase(m, op);
    return true;
}
