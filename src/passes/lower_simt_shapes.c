/* lower_simt_shapes.c - lower-simt for tiles of rank >= 2 (docs/simt.md,
 * "Tiles of several dimensions"). A tile of any shape is laid out as its
 * row-major elements are as a 1-D tile of as many elements, so sw.reshape
 * is free, every elementwise op, load and store is unchanged, and only
 * three kinds of op need work here:
 *
 *   - sw.broadcast, sw.trans and sw.split map each result element e to one
 *     operand element s(e) (shifts and masks: every dim is a power of two). The
 *     operand is recomputed at s(e) when it is a small elementwise
 *     function of aranges, constants and uniform scalars (the index tiles
 *     of `offs_m[:, None] * stride + offs_n[None, :]`); otherwise the
 *     value goes through shared memory (its owners store it, everyone
 *     loads s(e)), and a pointer tile is recomputed with only its
 *     opaque number leaves going through shared memory.
 *   - sw.reduce {axis}: the element index's bits split into slot bits and
 *     thread bits (the layout puts consecutive chunks in consecutive
 *     threads), so the axis's bits are reduced in three steps: in each
 *     thread over its slots (simt.vslots picks them), across lanes by
 *     simt.shfl_xor, and across warps together with the move of each
 *     result to the thread that holds it in the result's layout, through
 *     shared memory.
 *
 * Requires the walk of lower_simt.c (values retyped, ops before this one
 * already lowered); guarantees SIMT ops only, or a compile error at the
 * op. */
#include "lower_simt_internal.h"
#include "../ir/builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log2i(int64_t x)
{
    int k = 0;
    while (((int64_t)1 << k) < x)
        k++;
    return k;
}

static ir_value vconst(lowerer *lw, ir_op *pos, int32_t slots, int64_t k)
{
    ir_builder b = irb_before(lw->m, pos);
    return irb_const(&b, ir_type_vec(DT_I32, slots), (ir_scalar){.i = k});
}

static ir_value shift(lowerer *lw, ir_op *pos, ir_op_kind kind, ir_value v, int by)
{
    if (by == 0)
        return v;
    return ls_binary(lw, pos, kind, v, vconst(lw, pos, ir_value_type(lw->m, v).len, by));
}

static ir_value mask_bits(lowerer *lw, ir_op *pos, ir_value v, int64_t mask)
{
    return ls_binary(lw, pos, IR_AND, v, vconst(lw, pos, ir_value_type(lw->m, v).len, mask));
}

/* simt.vslots of the given slots of x. */
static ir_value vslots(lowerer *lw, ir_op *pos, ir_value x, const int32_t *slots, int32_t n)
{
    ir_type t = ir_value_type(lw->m, x);
    bool identity = n == t.len;
    for (int32_t i = 0; identity && i < n; i++)
        identity = slots[i] == i;
    if (identity)
        return x;
    char *text = malloc((size_t)n * 12 + 1);
    if (!text) {
        diag_error(lw->d, DIAG_NOMEM, "out of memory");
        return IR_NO_VALUE;
    }
    size_t k = 0;
    for (int32_t i = 0; i < n; i++)
        k += (size_t)sprintf(text + k, "%s%d", i ? "," : "", (int)slots[i]);
    ir_value r = ls_emit(lw, pos, IR_SIMT_VSLOTS, &x, 1, ir_type_like(ir_type_vec(DT_I32, n), ir_type_elem(t)));
    ir_attr_set_str(lw->m, ls_def_of(lw, r), "slots", text);
    free(text);
    return r;
}

/* ---- index maps ------------------------------------------------------------ */

/* The operand element each result slot of a sw.broadcast or sw.trans
 * reads: result element e = (i_0, .., i_r-1) row-major; the operand's
 * index has i_k at dim k (broadcast; 0 where the operand's dim is 1) or at
 * dim order[k] (trans). */
static ir_value source_index(lowerer *lw, ir_op *op)
{
    ir_type x = ls_semantic_type(lw, op->operands[0]), r = lw->semantic[op->results[0]];
    int32_t xd[IR_MAX_RANK], rd[IR_MAX_RANK];
    int rank = ir_tile_dims(r, rd), order[IR_MAX_RANK] = {0, 1, 2};
    ir_tile_dims(x, xd);
    if (op->kind == IR_TRANS)
        ir_parse_order(ir_attr_get(op, "order")->s, rank, order);
    int rshift[IR_MAX_RANK], xshift[IR_MAX_RANK];
    for (int k = rank - 1, rs = 0, xs = 0; k >= 0; k--) {
        rshift[k] = rs, xshift[k] = xs;
        rs += log2i(rd[k]), xs += log2i(xd[k]);
    }
    ir_value e = ls_tile_index(lw, op, r.len), s = IR_NO_VALUE;
    for (int k = 0; k < rank; k++) {
        int from = op->kind == IR_TRANS ? order[k] : k;
        if (rd[k] == 1 || (op->kind == IR_BROADCAST && xd[k] == 1))
            continue;
        ir_value i = shift(lw, op, IR_SHR, e, rshift[k]);
        if (k > 0)
            i = mask_bits(lw, op, i, rd[k] - 1);
        i = shift(lw, op, IR_SHL, i, xshift[from]);
        s = s == IR_NO_VALUE ? i : ls_binary(lw, op, IR_OR, s, i);
    }
    return s == IR_NO_VALUE ? vconst(lw, op, ls_slots_of(lw, r.len), 0) : s;
}

/* ---- recomputing a value at other element indices ---------------------------- */

enum { REMAT_NODES = 48 };

typedef struct remat {
    lowerer *lw;
    ir_op *pos;
    ir_value idx;   /* vector<slots x i32>: the element index each slot reads */
    int32_t len;    /* the tile length every value of the tree has */
    int32_t slots;
    ir_value from[REMAT_NODES], to[REMAT_NODES];
    int n;
    int nodes, opaque; /* what classify found */
    bool failed, opaque_ptr;
} remat;

/* A scalar that is the same in every thread: a semantic value (scalars
 * are uniform by the SIMT contract), or a pure function of such values
 * and constants (never of simt.thread_id). */
static bool uniform_scalar(const lowerer *lw, ir_value v, int depth)
{
    if (v < lw->nsemantic || ls_is_noted_uniform(lw, v))
        return true;
    const ir_op *d = lw->m->values[v].def;
    if (!d || depth > 8)
        return false;
    if (d->kind == IR_CONSTANT || d->kind == IR_SIMT_BLOCK_ID || d->kind == IR_SIMT_GRID_DIM)
        return true;
    if ((ir_ops[d->kind].flags & (F_ELEM | F_PURE)) != (F_ELEM | F_PURE))
        return false;
    for (int i = 0; i < d->noperands; i++)
        if (!uniform_scalar(lw, d->operands[i], depth + 1))
            return false;
    return true;
}

/* What v is in the tree: a leaf recomputed directly, an inner elementwise
 * op, or an opaque vector (loads, loop values, shared-memory results). */
typedef enum remat_kind { RK_SCALAR, RK_INDEX, RK_CONST, RK_SPLAT, RK_INNER, RK_RESHAPE, RK_OPAQUE, RK_FAIL } remat_kind;

static remat_kind kind_of(const remat *rm, ir_value v)
{
    const lowerer *lw = rm->lw;
    ir_type t = ir_value_type(lw->m, v);
    if (t.kind != TY_VEC)
        return uniform_scalar(lw, v, 0) ? RK_SCALAR : RK_FAIL;
    const ir_op *d = lw->m->values[v].def;
    if (!d)
        return RK_OPAQUE;
    if (d->kind == IR_SIMT_TILE_INDEX)
        return ir_attr_get(d, "len")->i == rm->len ? RK_INDEX : RK_OPAQUE;
    if (d->kind == IR_CONSTANT)
        return RK_CONST;
    if (d->kind == IR_RESHAPE)
        return RK_RESHAPE;
    if (d->kind == IR_SPLAT)
        return uniform_scalar(lw, d->operands[0], 0) ? RK_SPLAT : RK_OPAQUE;
    if ((ir_ops[d->kind].flags & (F_ELEM | F_PURE)) == (F_ELEM | F_PURE) && d->nregions == 0 &&
        d->nresults == 1)
        return RK_INNER;
    return RK_OPAQUE;
}

static bool seen(remat *rm, ir_value v)
{
    for (int i = 0; i < rm->n; i++)
        if (rm->from[i] == v)
            return true;
    return false;
}

/* Counts the tree's distinct nodes and opaque leaves (rm->from holds the
 * nodes seen). */
static void classify(remat *rm, ir_value v)
{
    if (rm->failed || seen(rm, v))
        return;
    if (rm->n == REMAT_NODES) {
        rm->failed = true;
        return;
    }
    rm->from[rm->n++] = v;
    remat_kind k = kind_of(rm, v);
    if (k == RK_FAIL) {
        rm->failed = true;
        return;
    }
    if (k == RK_OPAQUE) {
        rm->opaque++;
        rm->opaque_ptr |= ir_type_is_ptrlike(ir_value_type(rm->lw->m, v));
        return;
    }
    if (k == RK_INNER || k == RK_RESHAPE) {
        const ir_op *d = rm->lw->m->values[v].def;
        for (int i = 0; i < d->noperands; i++)
            classify(rm, d->operands[i]);
    }
}

/* v (a tile of rm->len elements in the layout, or a number) read through
 * shared memory at each of the n index vectors idx (out[i] for idx[i]):
 * its owners store it, barrier, every thread loads its indices, barrier.
 * i1 travels as i32. */
static bool smem_gather_n(remat *rm, ir_value v, const ir_value *idx, ir_value *out, int n)
{
    lowerer *lw = rm->lw;
    ir_op *pos = rm->pos;
    ir_type t = ir_value_type(lw->m, v);
    ir_dtype dt = (ir_dtype)t.dtype, moved = dt == DT_I1 ? DT_I32 : dt;
    if (!ls_whole_cta(lw, pos) || !ls_smem_fits(lw, pos, rm->len * ir_dtypes[moved].bytes))
        return false;
    if (moved != dt)
        v = ls_cast(lw, pos, v, ir_type_vec(moved, t.len));
    ls_smem_store(lw, pos, 0, ls_tile_index(lw, pos, rm->len), v, ls_owner_vec(lw, pos, rm->len));
    ls_barrier(lw, pos);
    for (int i = 0; i < n; i++)
        out[i] = ls_smem_load(lw, pos, 0, idx[i], moved);
    ls_barrier(lw, pos);
    for (int i = 0; i < n && moved != dt; i++)
        out[i] = ls_cast(lw, pos, out[i], ir_type_vec(dt, ir_value_type(lw->m, idx[i]).len));
    return true;
}

static ir_value smem_gather(remat *rm, ir_value v)
{
    ir_value r;
    return smem_gather_n(rm, v, &rm->idx, &r, 1) ? r : IR_NO_VALUE;
}

static ir_value recompute(remat *rm, ir_value v)
{
    lowerer *lw = rm->lw;
    for (int i = 0; i < rm->n; i++)
        if (rm->from[i] == v)
            return rm->to[i];
    ir_type t = ir_value_type(lw->m, v);
    ir_type rt = ir_type_like(ir_type_vec(DT_I32, rm->slots), ir_type_elem(t));
    ir_op *d = lw->m->values[v].def;
    ir_value r = IR_NO_VALUE;
    switch (kind_of(rm, v)) {
    case RK_SCALAR: r = ls_splat(lw, rm->pos, v, rm->slots); break;
    case RK_SPLAT: r = ls_splat(lw, rm->pos, d->operands[0], rm->slots); break;
    case RK_INDEX: {
        int64_t start = ir_attr_get(d, "start")->i;
        r = start ? ls_binary(lw, rm->pos, IR_ADD, rm->idx, vconst(lw, rm->pos, rm->slots, start)) : rm->idx;
        break;
    }
    case RK_CONST:
    case RK_INNER: {
        ir_value ops[4];
        for (int i = 0; i < d->noperands && i < 4; i++) {
            ops[i] = recompute(rm, d->operands[i]);
            if (ops[i] == IR_NO_VALUE)
                return IR_NO_VALUE;
        }
        ir_op *c = ls_emit_op(lw, rm->pos, d->kind, ops, d->noperands, &rt, 1);
        ir_attr_set_all(lw->m, c, d->attrs, d->nattrs);
        r = c->results[0];
        break;
    }
    case RK_RESHAPE: r = recompute(rm, d->operands[0]); break;
    case RK_OPAQUE: r = smem_gather(rm, v); break;
    case RK_FAIL: break;
    }
    if (r != IR_NO_VALUE && rm->n < REMAT_NODES) {
        rm->from[rm->n] = v;
        rm->to[rm->n++] = r;
    }
    return r;
}

static ir_value value_at(lowerer *lw, ir_op *pos, ir_value x, int32_t len, ir_value idx);

/* A pointer tile too large to recompute whole: its chain of sw.addptr,
 * sw.splat, sw.select and sw.reshape is rebuilt, and each number operand
 * on it read at idx by value_at (recomputed or through shared memory). */
static ir_value pointer_at(lowerer *lw, ir_op *pos, ir_value x, int32_t len, ir_value idx)
{
    const ir_op *d = lw->m->values[x].def;
    int32_t slots = ir_value_type(lw->m, idx).len;
    ir_type rt = ir_type_like(ir_type_vec(DT_I32, slots), ir_type_elem(ir_value_type(lw->m, x)));
    if (d && d->kind == IR_SPLAT)
        return ls_splat(lw, pos, d->operands[0], slots);
    if (d && d->kind == IR_RESHAPE)
        return pointer_at(lw, pos, d->operands[0], len, idx);
    if (d && (d->kind == IR_ADDPTR || d->kind == IR_SELECT)) {
        ir_value ops[3];
        for (int i = 0; i < d->noperands; i++) {
            bool ptr = ir_type_is_ptrlike(ir_value_type(lw->m, d->operands[i]));
            ops[i] = ptr ? pointer_at(lw, pos, d->operands[i], len, idx) : value_at(lw, pos, d->operands[i], len, idx);
            if (ops[i] == IR_NO_VALUE)
                return IR_NO_VALUE;
        }
        return ls_emit(lw, pos, d->kind, ops, d->noperands, rt);
    }
    if (ir_value_type(lw->m, x).kind != TY_VEC)
        return ls_splat(lw, pos, x, slots);
    diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, pos->loc,
                  "lower-simt: '%s' of a tile of pointers that is not computed from offsets in this "
                  "kernel (a loop-carried pointer tile): broadcast or transpose the offsets instead",
                  ir_ops[pos->kind].name);
    return IR_NO_VALUE;
}

/* The value of x (a tile of `len` elements) at the element indices idx. */
static ir_value value_at(lowerer *lw, ir_op *pos, ir_value x, int32_t len, ir_value idx)
{
    remat rm = {.lw = lw, .pos = pos, .idx = idx, .len = len, .slots = ir_value_type(lw->m, idx).len};
    if (len == 1) {
        /* every thread holds the one element (a keep_dims total): its slot 0 */
        int32_t *zeros = calloc((size_t)rm.slots, sizeof(int32_t));
        if (!zeros) {
            diag_error(lw->d, DIAG_NOMEM, "out of memory");
            return IR_NO_VALUE;
        }
        ir_value r = vslots(lw, pos, x, zeros, rm.slots);
        free(zeros);
        return r;
    }
    classify(&rm, x);
    bool ptr = ir_type_is_ptrlike(ir_value_type(lw->m, x));
    bool cheap = !rm.failed && rm.opaque == 0;
    rm.n = 0;
    if (cheap || (ptr && !rm.failed && !rm.opaque_ptr))
        return recompute(&rm, x);
    return ptr ? pointer_at(lw, pos, x, len, idx) : smem_gather(&rm, x);
}

/* One layout for every shape of as many elements: a reshape is its
 * operand. It stays in place while the function is lowered (the shape ops
 * after it read its result's dims) and goes at the end. */
void ls_erase_reshapes(lowerer *lw, ir_block *b)
{
    for (ir_op *op = b->first, *next; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++)
            ls_erase_reshapes(lw, op->regions[r]);
        if (op->kind == IR_RESHAPE)
            ls_replace_op(lw, op, op->operands[0]);
    }
}

static ir_value back_for(const lowerer *lw, const ir_op *op);
static bool lower_split(lowerer *lw, ir_op *op);

bool ls_lower_shape_op(lowerer *lw, ir_op *op)
{
    if (op->kind == IR_RESHAPE)
        return true;
    if (op->kind == IR_SPLIT)
        return lower_split(lw, op);
    ir_value back = op->kind == IR_BROADCAST ? back_for(lw, op) : IR_NO_VALUE;
    if (back != IR_NO_VALUE) {
        ls_replace_op(lw, op, back);
        return true;
    }
    ir_value idx = source_index(lw, op);
    ir_value v = value_at(lw, op, op->operands[0], ls_tile_len(lw, op->operands[0]), idx);
    if (v == IR_NO_VALUE)
        return false;
    ls_replace_op(lw, op, v);
    return true;
}

/* ---- sw.split ----------------------------------------------------------------- */

/* The operand element each result slot of `half` (a sw.split {index})
 * reads, emitted before pos: 2e + index for result element e (the halves
 * alternate in the operand, whose last dim is 2); for a scalar result, the
 * one slot's index. */
static ir_value split_index(lowerer *lw, ir_op *pos, const ir_op *half)
{
    ir_type r = lw->semantic[half->results[0]];
    int64_t index = ir_attr_get(half, "index")->i;
    if (r.kind != TY_TILE)
        return vconst(lw, pos, 1, index);
    ir_value e = shift(lw, pos, IR_SHL, ls_tile_index(lw, pos, r.len), 1);
    return index ? ls_binary(lw, pos, IR_OR, e, vconst(lw, pos, ls_slots_of(lw, r.len), index)) : e;
}

/* The other half's sw.split of op's operand, not lowered yet and in op's
 * block (so after op: the frontend splits both halves together), or
 * NULL. */
static ir_op *other_half(const lowerer *lw, const ir_op *op)
{
    int64_t index = ir_attr_get(op, "index")->i;
    for (ir_use *u = ir_value_uses(lw->m, op->operands[0]); u; u = u->next) {
        ir_op *o = u->user;
        if (o != op && o->kind == IR_SPLIT && o->parent == op->parent &&
            ir_attr_get(o, "index")->i != index && ir_value_uses(lw->m, o->results[0]))
            return o;
    }
    return NULL;
}

/* half's uses take v (its slots, or the number in its one slot; the ops
 * go before pos), and half goes when drop is set. */
static void replace_half(lowerer *lw, ir_op *pos, ir_op *half, ir_value v, bool drop)
{
    if (lw->semantic[half->results[0]].kind != TY_TILE) {
        /* a tile of 2 split to scalars: every thread read the same element
         * into its one slot (a number: the verifier's rule) */
        v = ls_emit(lw, pos, IR_SIMT_VREDUCE, &v, 1, ir_type_elem(ir_value_type(lw->m, v)));
        ir_attr_set_str(lw->m, ls_def_of(lw, v), "kind", "max");
    }
    if (drop)
        ls_replace_op(lw, half, v);
    else
        ls_replace_value(lw, half->results[0], v);
}

/* sw.split {index}: each half reads its operand at split_index, as a
 * broadcast does (recomputed, or through shared memory). When both halves
 * of an operand go through shared memory, they share one round trip: the
 * operand is stored once and both halves are loaded; the later sw.split
 * is then left without uses and dropped when the walk reaches it. */
static bool lower_split(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    if (!ir_value_uses(m, op->results[0])) {
        ir_op_erase(m, op);
        return true;
    }
    ir_value x = op->operands[0];
    int32_t len = ls_tile_len(lw, x);
    remat rm = {.lw = lw, .pos = op, .len = len};
    classify(&rm, x);
    bool cheap = !rm.failed && rm.opaque == 0, ptr = ir_type_is_ptrlike(ir_value_type(m, x));
    ir_op *pair = cheap || ptr ? NULL : other_half(lw, op);
    ir_value idx[2] = {split_index(lw, op, op), pair ? split_index(lw, op, pair) : IR_NO_VALUE};
    ir_value v[2];
    if (pair) {
        rm.n = 0;
        if (!smem_gather_n(&rm, x, idx, v, 2))
            return false;
        replace_half(lw, op, pair, v[1], false);
    } else {
        v[0] = value_at(lw, op, x, len, idx[0]);
        if (v[0] == IR_NO_VALUE)
            return false;
    }
    replace_half(lw, op, op, v[0], true);
    return true;
}

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
        v = ls_binary(lw, pos, IR_AND, v, vconst(lw, pos, n, 1));
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
static ir_value back_for(const lowerer *lw, const ir_op *op)
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
    axis_bits a = {.lc = log2i(c), .lP = log2i(P), .V = V};
    for (int k = axis + 1; k < rank; k++)
        a.lo += log2i(d[k]);
    a.hi = a.lo + log2i(d[axis]);
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
        ir_value sel = vslots(lw, op, x, pick, ng);
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
        ir_value totals = finish(lw, op, vslots(lw, op, p, count, V), dt, acc, combine);
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
    ir_value e = vslots(lw, op, ls_tile_index(lw, op, L), firsts, ng);
    if (e == IR_NO_VALUE) {
        free(group);
        return false;
    }
    ir_value r = shift(lw, op, IR_SHL, shift(lw, op, IR_SHR, e, a.hi), a.lo);
    if (a.lo > 0)
        r = ls_binary(lw, op, IR_OR, r, mask_bits(lw, op, e, ((int64_t)1 << a.lo) - 1));
    ir_value r_groups = r;
    if (W > 1) {
        ir_value w = ls_binary(lw, op, IR_AND, ls_binary(lw, op, IR_SHR, tid, ls_const_i32(lw, op, wb0)),
                               ls_const_i32(lw, op, W - 1));
        r = ls_binary(lw, op, IR_OR, shift(lw, op, IR_SHL, r, nwb), ls_splat(lw, op, w, ng));
    }
    ls_smem_store(lw, op, 0, r, p, store_mask == IR_NO_VALUE ? store_mask : ls_splat(lw, op, store_mask, ng));
    ls_barrier(lw, op);
    int32_t Vr = ls_slots_of(lw, Lr);
    ir_value base = shift(lw, op, IR_SHL, ls_tile_index(lw, op, Lr), nwb), res = IR_NO_VALUE;
    for (int32_t w = 0; w < W; w++) {
        ir_value at = w ? ls_binary(lw, op, IR_OR, base, vconst(lw, op, Vr, w)) : base;
        ir_value part = ls_smem_load(lw, op, 0, at, acc);
        res = w ? ls_binary(lw, op, combine, res, part) : part;
    }
    /* Each group's total in this thread's own slots of x, for a broadcast
     * back (the warp parts of its rows are in shared memory already). */
    ir_value totals = p;
    for (int32_t w = 0; back && W > 1 && w < W; w++) {
        ir_value at = ls_binary(lw, op, IR_OR, shift(lw, op, IR_SHL, r_groups, nwb), vconst(lw, op, ng, w));
        ir_value part = ls_smem_load(lw, op, 0, at, acc);
        totals = w ? ls_binary(lw, op, combine, totals, part) : part;
    }
    ls_barrier(lw, op);
    res = finish(lw, op, res, dt, acc, combine);
    if (back) {
        for (int32_t j = 0; j < V; j++)
            count[j] = group[j & ~jm];
        totals = finish(lw, op, vslots(lw, op, totals, count, V), dt, acc, combine);
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
    ir_value one = vslots(lw, pos, v, &j, 1);
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
    combiner cb = {.op = op, .k = k, .map = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(lw->nsemantic + 1))};
    if (!cb.map) {
        diag_error(lw->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    ir_value owners = ls_owner_vec(lw, op, L);
    ir_value at = ls_tile_index(lw, op, L);
    for (int i = 0; i < k; i++)
        ls_smem_store(lw, op, off_d[i], at, op->operands[i], owners);
    ls_barrier(lw, op);

    int li = log2i(inner), lk = log2i(K);
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
