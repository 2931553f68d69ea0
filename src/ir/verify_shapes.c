/* verify_shapes.c - the verifier's rules for the ops that change a tile's
 * shape (sw.broadcast, sw.reshape, sw.trans, sw.split) and for sw.reduce, whose
 * `axis` form reduces one dimension of a tile of rank >= 2
 * (docs/ir-format.md). Requires the walk of verify.c (operands and results
 * are checked); reports the first violation and returns false. */
#include "verify_internal.h"

#include <string.h>

static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(v, op, fmt, ap);
    va_end(ap);
    return false;
}

/* Same element (dtype and pointer-ness): shape ops only move elements. */
static bool same_elem(ir_type a, ir_type b) { return a.dtype == b.dtype && a.ptr_elem == b.ptr_elem; }

static bool check_broadcast(verifier *v, const ir_op *op, ir_type x, ir_type r)
{
    char a[64], b[64];
    if (!ir_broadcastable(x, r))
        return fail(v, op, "'sw.broadcast' cannot broadcast %s to %s (the same rank; each dim equal, "
                    "or 1 in the operand)", TY(x, a), TY(r, b));
    return true;
}

static bool check_reshape(verifier *v, const ir_op *op, ir_type x, ir_type r)
{
    char a[64], b[64];
    if (x.len != r.len)
        return fail(v, op, "'sw.reshape' of %s to %s changes the number of elements", TY(x, a), TY(r, b));
    return true;
}

static bool check_trans(verifier *v, const ir_op *op, ir_type x, ir_type r)
{
    char a[64], b[64];
    int32_t xd[IR_MAX_RANK], rd[IR_MAX_RANK];
    int rank = ir_tile_dims(x, xd), order[IR_MAX_RANK];
    const ir_attr *o = ir_attr_get(op, "order");
    if (!o || o->kind != ATTR_STR || !ir_parse_order(o->s, rank, order))
        return fail(v, op, "'sw.trans' needs a string attribute 'order', a permutation of 0..%d "
                    "(\"1,0\")", rank - 1);
    if (ir_tile_dims(r, rd) != rank)
        return fail(v, op, "'sw.trans' of %s to %s changes the rank", TY(x, a), TY(r, b));
    for (int i = 0; i < rank; i++)
        if (rd[i] != xd[order[i]])
            return fail(v, op, "'sw.trans' result type %s: dim %d must be dim %d of %s", TY(r, a), i,
                        order[i], TY(x, b));
    return true;
}

bool verify_shape_op(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (x.kind != TY_TILE || r.kind != TY_TILE || !same_elem(x, r))
        return fail(v, op, "'%s' takes a tile to a tile of its element type, got %s to %s", name_of(op),
                    TY(x, a), TY(r, b));
    switch (op->kind) {
    case IR_BROADCAST: return check_broadcast(v, op, x, r);
    case IR_RESHAPE: return check_reshape(v, op, x, r);
    case IR_TRANS: return check_trans(v, op, x, r);
    default: return fail(v, op, "'%s' is not a shape op", name_of(op));
    }
}

/* sw.split {index}: tensor<S x 2 x T> -> tensor<S x T>, or T when S is
 * empty and T a number. */
bool verify_split(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    int32_t xd[IR_MAX_RANK];
    int rank = x.kind == TY_TILE ? ir_tile_dims(x, xd) : 0;
    if (rank < 1 || xd[rank - 1] != 2)
        return fail(v, op, "'sw.split' operand type %s must be a tile whose last dim is 2", TY(x, a));
    const ir_attr *index = ir_attr_get(op, "index");
    if (!index || index->kind != ATTR_INT || index->i < 0 || index->i > 1)
        return fail(v, op, "'sw.split' needs an integer attribute 'index', 0 or 1");
    if (rank == 1 && x.ptr_elem)
        return fail(v, op, "'sw.split' of %s: a tile of 2 pointers does not split into scalars",
                    TY(x, a));
    ir_type want = rank == 1 ? ir_type_elem(x) : ir_type_tile_shape((ir_dtype)x.dtype, x.ptr_elem, rank - 1, xd);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.split' of %s gives %s, the operand without its last dim (its element "
                    "type for a tile of 2)", TY(x, a), TY(r, b));
    return true;
}

bool verify_reduce(verifier *v, const ir_op *op)
{
    static const char *const kinds[] = {"sum", "max", "min", "prod", NULL};
    char a[64], b[64], c[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if ((x.kind != TY_TILE && x.kind != TY_SEGVAL) || x.ptr_elem)
        return fail(v, op, "'sw.reduce' operand type %s must be a tile of numbers (or a segment "
                    "value tensor<?xT>)", TY(x, a));
    const ir_attr *kind = ir_attr_get(op, "kind");
    bool kind_ok = false;
    for (int i = 0; kind && kind->kind == ATTR_STR && kind->s && kinds[i]; i++)
        kind_ok |= !strcmp(kind->s, kinds[i]);
    if (!kind_ok)
        return fail(v, op, "'sw.reduce' needs a string attribute 'kind': sum, max, min or prod");
    const ir_attr *axis = ir_attr_get(op, "axis");
    if (!axis) {
        if (!ir_type_eq(r, ir_type_elem(x)))
            return fail(v, op, "'sw.reduce' result type %s must be the element type of %s", TY(r, a),
                        TY(x, b));
        return true;
    }
    int rank = ir_tile_dims(x, NULL);
    if (axis->kind != ATTR_INT || rank < 2 || axis->i < 0 || axis->i >= rank)
        return fail(v, op, "'sw.reduce' attribute 'axis' must be an integer in 0..rank-1 of a tile of "
                    "rank >= 2 (%s)", TY(x, a));
    ir_type want = ir_reduce_axis_type(x, (int)axis->i);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.reduce' along axis %d of %s gives %s, not %s", (int)axis->i, TY(x, a),
                    TY(want, b), TY(r, c));
    return true;
}
