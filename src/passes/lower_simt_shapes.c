/* lower_simt_shapes.c - lower-simt for tiles of rank >= 2 (docs/simt.md,
 * "Tiles of several dimensions"). A tile of any shape is laid out as its
 * row-major elements are as a 1-D tile of as many elements, so sw.reshape
 * is free, every elementwise op, load and store is unchanged, and only
 * the ops that move elements need work here:
 *
 *   - sw.broadcast, sw.trans and sw.split map each result element e to one
 *     operand element s(e) (shifts and masks: every dim is a power of two). The
 *     operand is recomputed at s(e) when it is a small elementwise
 *     function of aranges, constants and uniform scalars (the index tiles
 *     of `offs_m[:, None] * stride + offs_n[None, :]`); otherwise the
 *     value goes through shared memory (its owners store it, everyone
 *     loads s(e)), and a pointer tile is recomputed with only its
 *     opaque number leaves going through shared memory.
 *   - sw.reduce {axis} and sw.reduce_fn {axis} are lower_simt_axis.c's.
 *
 * Requires the walk of lower_simt.c (values retyped, ops before this one
 * already lowered); guarantees SIMT ops only, or a compile error at the
 * op. */
#include "lower_simt_internal.h"
#include "../ir/builder.h"

#include <stdio.h>
#include <stdlib.h>

int ls_log2i(int64_t x)
{
    int k = 0;
    while (((int64_t)1 << k) < x)
        k++;
    return k;
}

ir_value ls_vconst(lowerer *lw, ir_op *pos, int32_t slots, int64_t k)
{
    ir_builder b = irb_before(lw->m, pos);
    return irb_const(&b, ir_type_vec(DT_I32, slots), (ir_scalar){.i = k});
}

ir_value ls_shift(lowerer *lw, ir_op *pos, ir_op_kind kind, ir_value v, int by)
{
    if (by == 0)
        return v;
    return ls_binary(lw, pos, kind, v, ls_vconst(lw, pos, ir_value_type(lw->m, v).len, by));
}

ir_value ls_mask_bits(lowerer *lw, ir_op *pos, ir_value v, int64_t mask)
{
    return ls_binary(lw, pos, IR_AND, v, ls_vconst(lw, pos, ir_value_type(lw->m, v).len, mask));
}

/* simt.vslots of the given slots of x. */
ir_value ls_vslots(lowerer *lw, ir_op *pos, ir_value x, const int32_t *slots, int32_t n)
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
        rs += ls_log2i(rd[k]), xs += ls_log2i(xd[k]);
    }
    ir_value e = ls_tile_index(lw, op, r.len), s = IR_NO_VALUE;
    for (int k = 0; k < rank; k++) {
        int from = op->kind == IR_TRANS ? order[k] : k;
        if (rd[k] == 1 || (op->kind == IR_BROADCAST && xd[k] == 1))
            continue;
        ir_value i = ls_shift(lw, op, IR_SHR, e, rshift[k]);
        if (k > 0)
            i = ls_mask_bits(lw, op, i, rd[k] - 1);
        i = ls_shift(lw, op, IR_SHL, i, xshift[from]);
        s = s == IR_NO_VALUE ? i : ls_binary(lw, op, IR_OR, s, i);
    }
    return s == IR_NO_VALUE ? ls_vconst(lw, op, ls_slots_of(lw, r.len), 0) : s;
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
        r = start ? ls_binary(lw, rm->pos, IR_ADD, rm->idx, ls_vconst(lw, rm->pos, rm->slots, start)) : rm->idx;
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
        ir_value r = ls_vslots(lw, pos, x, zeros, rm.slots);
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

static bool lower_split(lowerer *lw, ir_op *op);

bool ls_lower_shape_op(lowerer *lw, ir_op *op)
{
    if (op->kind == IR_RESHAPE)
        return true;
    if (op->kind == IR_SPLIT)
        return lower_split(lw, op);
    ir_value back = op->kind == IR_BROADCAST ? ls_broadcast_back(lw, op) : IR_NO_VALUE;
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
        return ls_vconst(lw, pos, 1, index);
    ir_value e = ls_shift(lw, pos, IR_SHL, ls_tile_index(lw, pos, r.len), 1);
    return index ? ls_binary(lw, pos, IR_OR, e, ls_vconst(lw, pos, ls_slots_of(lw, r.len), index)) : e;
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
