/* verify_scans.c - the verifier's rules for sw.scan, sw.reduce_fn,
 * sw.histogram and sw.gather (docs/ir-format.md). Requires the walk of
 * verify.c (operands and results are checked, the op's level is known);
 * reports the first violation and returns false. */
#include "verify_internal.h"
#include "scalar.h"

#include <stdio.h>

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

/* A 1-D tile of numbers (without an axis attribute, the only kind). */
static bool is_number_tile(ir_type t) { return t.kind == TY_TILE && !t.ptr_elem && t.rank == 0; }

/* sw.scan / sw.reduce_fn: k >= 1 tiles of numbers of one length; results
 * the same tiles (scan) or their element types (reduce_fn); the region
 * takes 2k scalars (accumulators, then elements). */
static bool check_combine_op(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    bool scan = op->kind == IR_SCAN;
    int k = op->noperands;
    if (k < 1 || op->nresults != k)
        return fail(v, op, "'%s' takes k >= 1 operands and has k results, got %d and %d", name_of(op),
                    k, (int)op->nresults);
    int32_t len = operand_type(v, op, 0).len;
    const ir_attr *axis = ir_attr_get(op, "axis");
    if (axis) {
        /* along an axis: tiles of one shape, of rank >= 2 */
        ir_type x0 = operand_type(v, op, 0);
        int rank = ir_tile_dims(x0, NULL);
        if (axis->kind != ATTR_INT || rank < 2 || axis->i < 0 || axis->i >= rank)
            return fail(v, op, "'%s' attribute 'axis' must be an integer in 0..rank-1 of tiles of rank >= 2 "
                        "(%s)", name_of(op), TY(x0, a));
        for (int i = 0; i < k; i++) {
            ir_type x = operand_type(v, op, i), r = result_type(v, op, i);
            ir_type want = scan ? x : ir_reduce_axis_type(x, (int)axis->i);
            if (x.kind != TY_TILE || x.ptr_elem || !ir_type_eq(ir_type_like(x, ir_type_scalar(DT_I32)),
                                                               ir_type_like(x0, ir_type_scalar(DT_I32))))
                return fail(v, op, "'%s' operand #%d type %s must be a tile of numbers of the first "
                            "operand's shape", name_of(op), i, TY(x, a));
            if (!ir_type_eq(r, want))
                return fail(v, op, "'%s' result #%d type %s must be %s", name_of(op), i, TY(r, a), TY(want, b));
        }
    }
    for (int i = 0; i < k && !axis; i++) {
        ir_type x = operand_type(v, op, i), r = result_type(v, op, i);
        if (!is_number_tile(x) || x.len != len)
            return fail(v, op, "'%s' operand #%d type %s must be a 1-D tile of numbers of the first "
                        "operand's length (tiles of several dimensions need attribute 'axis')",
                        name_of(op), i, TY(x, a));
        ir_type want = scan ? x : ir_type_elem(x);
        if (!ir_type_eq(r, want))
            return fail(v, op, "'%s' result #%d type %s must be %s", name_of(op), i, TY(r, a),
                        TY(want, b));
    }
    const ir_block *body = op->regions[0];
    if (body->nargs != 2 * k)
        return fail(v, op, "the combine region of '%s' takes %d arguments (%d accumulators, then %d "
                    "elements), got %d", name_of(op), 2 * k, k, k, (int)body->nargs);
    for (int i = 0; i < 2 * k; i++) {
        ir_type got = ir_value_type(v->m, body->args[i]);
        ir_type want = ir_type_elem(operand_type(v, op, i % k));
        if (!ir_type_eq(got, want))
            return fail(v, op, "argument #%d of the combine region of '%s' has type %s, not %s", i,
                        name_of(op), TY(got, a), TY(want, b));
    }
    if (scan) {
        const ir_attr *rev = ir_attr_get(op, "reverse");
        if (rev && rev->kind != ATTR_BOOL)
            return fail(v, op, "'sw.scan' attribute 'reverse' must be a bool");
    }
    return true;
}

/* sw.histogram (x[, mask]) -> tensor<Bxi32>. */
static bool check_histogram(verifier *v, const ir_op *op)
{
    char a[64];
    if (op->noperands != 1 && op->noperands != 2)
        return fail(v, op, "'sw.histogram' takes 1 operand (x) or 2 (x, mask), got %d",
                    (int)op->noperands);
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (!is_number_tile(x) || !ir_dtype_is_int(elem_dtype(x)) || x.dtype == DT_I1)
        return fail(v, op, "'sw.histogram' operand type %s must be a tile of integers", TY(x, a));
    if (op->noperands == 2 && !ir_type_eq(operand_type(v, op, 1), ir_type_tile(DT_I1, x.len)))
        return fail(v, op, "'sw.histogram' mask type %s must be the i1 tile of x's length",
                    TY(operand_type(v, op, 1), a));
    if (r.kind != TY_TILE || r.ptr_elem || r.dtype != DT_I32)
        return fail(v, op, "'sw.histogram' result type %s must be tensor<Bxi32>", TY(r, a));
    return true;
}

/* sw.gather (src : tensor<NxT>, index : integer tile of M) -> tensor<MxT>;
 * with attr axis, src and index of one rank >= 2, equal but at the axis,
 * and the result in index's shape. */
static bool check_gather(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type src = operand_type(v, op, 0), index = operand_type(v, op, 1), r = result_type(v, op, 0);
    const ir_attr *axis = ir_attr_get(op, "axis");
    if (axis) {
        int32_t sd[IR_MAX_RANK], id[IR_MAX_RANK];
        int rank = src.kind == TY_TILE ? ir_tile_dims(src, sd) : 0;
        if (src.kind != TY_TILE || src.ptr_elem || axis->kind != ATTR_INT || rank < 2 || axis->i < 0 ||
            axis->i >= rank)
            return fail(v, op, "'sw.gather' attribute 'axis' must be an integer in 0..rank-1 of a source "
                        "tile of numbers of rank >= 2 (%s)", TY(src, a));
        bool same = index.kind == TY_TILE && ir_tile_dims(index, id) == rank;
        for (int d = 0; d < rank && same; d++)
            same = d == axis->i || sd[d] == id[d];
        if (!same || index.ptr_elem || !ir_dtype_is_int(elem_dtype(index)) || index.dtype == DT_I1)
            return fail(v, op, "'sw.gather' index type %s must be a tile of integers of the source's "
                        "rank and dims but at the axis (%s)", TY(index, a), TY(src, b));
    } else {
        if (!is_number_tile(src))
            return fail(v, op, "'sw.gather' source type %s must be a 1-D tile of numbers (tiles of "
                        "several dimensions need attribute 'axis')", TY(src, a));
        if (!is_number_tile(index) || !ir_dtype_is_int(elem_dtype(index)) || index.dtype == DT_I1)
            return fail(v, op, "'sw.gather' index type %s must be a 1-D tile of integers", TY(index, a));
    }
    ir_type want = ir_type_like(index, ir_type_elem(src));
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.gather' result type %s must be %s (the source's element type in the "
                    "index's shape)", TY(r, a), TY(want, b));
    return true;
}

/* sw.segmented_reduce {kind} (x : tensor<NxT>, base : i64, ends : tensor<Sxi64>,
 * start : i64) -> tensor<SxT>, 1-D tiles of numbers. */
static bool check_segmented_reduce(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), base = operand_type(v, op, 1), ends = operand_type(v, op, 2);
    ir_type start = operand_type(v, op, 3);
    ir_type r = result_type(v, op, 0);
    const ir_attr *kind = ir_attr_get(op, "kind");
    if (!kind || kind->kind != ATTR_STR || ir_reduce_combine_op(kind->s) == IR_OP_COUNT)
        return fail(v, op, "'sw.segmented_reduce' needs a string attribute 'kind': sum, max, min or prod");
    if (!is_number_tile(x) || x.dtype == DT_I1)
        return fail(v, op, "'sw.segmented_reduce' operand type %s must be a 1-D tile of numbers", TY(x, a));
    if (base.kind != TY_SCALAR || base.ptr_elem || (base.dtype != DT_I64 && base.dtype != DT_I32))
        return fail(v, op, "'sw.segmented_reduce' base type %s must be i64 or i32", TY(base, a));
    if (start.kind != TY_SCALAR || start.ptr_elem || start.dtype != base.dtype)
        return fail(v, op, "'sw.segmented_reduce' start type %s must be the base's", TY(start, a));
    if (!is_number_tile(ends) || ends.dtype != base.dtype)
        return fail(v, op, "'sw.segmented_reduce' ends type %s must be a 1-D tile of the base's type", TY(ends, a));
    if (x.len > 128 && x.len % 128)
        return fail(v, op, "'sw.segmented_reduce' operand of %d elements: more than 128 must be a multiple "
                    "of 128", (int)x.len);
    ir_type want = ir_type_tile(elem_dtype(x), ends.len);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.segmented_reduce' result type %s must be %s (the operand's element type "
                    "in the ends' shape)", TY(r, a), TY(want, b));
    return true;
}

/* sw.segment_index (base, ends : tensor<S>, start, skip : tensor<Sxi1>) ->
 * tensor<Nxi32>: positions of one integer type (i32 or i64) as
 * sw.segmented_reduce's; N up to 128, or a multiple of 128. */
static bool check_segment_index(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type base = operand_type(v, op, 0), ends = operand_type(v, op, 1), start = operand_type(v, op, 2);
    ir_type skip = operand_type(v, op, 3), r = result_type(v, op, 0);
    if (base.kind != TY_SCALAR || base.ptr_elem || (base.dtype != DT_I64 && base.dtype != DT_I32))
        return fail(v, op, "'sw.segment_index' base type %s must be i64 or i32", TY(base, a));
    if (start.kind != TY_SCALAR || start.ptr_elem || start.dtype != base.dtype)
        return fail(v, op, "'sw.segment_index' start type %s must be the base's", TY(start, a));
    if (!is_number_tile(ends) || ends.dtype != base.dtype)
        return fail(v, op, "'sw.segment_index' ends type %s must be a 1-D tile of the base's type", TY(ends, a));
    if (!is_number_tile(skip) || skip.dtype != DT_I1 || skip.len != ends.len)
        return fail(v, op, "'sw.segment_index' skip type %s must be a 1-D tile of i1 in the ends' shape (%s)",
                    TY(skip, a), TY(ends, b));
    if (!is_number_tile(r) || r.dtype != DT_I32)
        return fail(v, op, "'sw.segment_index' result type %s must be a 1-D tile of i32", TY(r, a));
    if (r.len > 128 && r.len % 128)
        return fail(v, op, "'sw.segment_index' result of %d elements: more than 128 must be a multiple of 128",
                    (int)r.len);
    return true;
}

bool verify_scan_op(verifier *v, const ir_op *op)
{
    switch (op->kind) {
    case IR_SCAN:
    case IR_REDUCE_FN: return check_combine_op(v, op);
    case IR_HISTOGRAM: return check_histogram(v, op);
    case IR_GATHER: return check_gather(v, op);
    case IR_SEGMENTED_REDUCE: return check_segmented_reduce(v, op);
    case IR_SEGMENT_INDEX: return check_segment_index(v, op);
    default: return fail(v, op, "'%s' is not a scan op", name_of(op));
    }
}

/* What a combine function may hold: pure scalar ops, and structured
 * control flow of them (no memory, no tiles, no SIMT ops). */
static bool check_combine_block(verifier *v, const ir_op *owner, const ir_block *b)
{
    char a[64];
    for (const ir_op *op = b->first; op; op = op->next) {
        bool control = op->kind == IR_FOR || op->kind == IR_IF || op->kind == IR_WHILE ||
                       op->kind == IR_YIELD;
        if (!control && (!(ir_ops[op->kind].flags & F_PURE) || op->nregions > 0 ||
                         op->kind == IR_PROGRAM_ID || op->kind == IR_NUM_PROGRAMS ||
                         op->kind == IR_SEGMENT_ID))
            return fail(v, op, "'%s' may not appear in the combine function of '%s' (only pure "
                        "scalar ops and sw.if/sw.for/sw.while of them)", name_of(op), name_of(owner));
        for (int i = 0; i < op->nresults; i++) {
            ir_type t = result_type(v, op, i);
            if (t.kind != TY_SCALAR)
                return fail(v, op, "'%s' in the combine function of '%s' makes a %s; a combine "
                            "function computes on scalars", name_of(op), name_of(owner), TY(t, a));
        }
        for (int i = 0; i < op->noperands; i++) {
            ir_type t = operand_type(v, op, i);
            if (t.kind != TY_SCALAR)
                return fail(v, op, "'%s' in the combine function of '%s' uses a %s; a combine "
                            "function computes on scalars", name_of(op), name_of(owner), TY(t, a));
        }
        for (int r = 0; r < op->nregions; r++)
            if (!check_combine_block(v, owner, op->regions[r]))
                return false;
    }
    return true;
}

bool verify_combine_region(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    const ir_block *body = op->regions[0];
    const ir_op *y = body->last;
    if (!y || y->kind != IR_YIELD)
        return fail(v, y ? y : op, "the combine region of '%s' must end with 'sw.yield'", name_of(op));
    if (y->noperands != op->noperands)
        return fail(v, y, "'sw.yield' in the combine region of '%s' yields %d value%s but needs %d",
                    name_of(op), (int)y->noperands, y->noperands == 1 ? "" : "s", (int)op->noperands);
    for (int i = 0; i < y->noperands; i++) {
        ir_type got = operand_type(v, y, i), want = ir_type_elem(operand_type(v, op, i));
        if (!ir_type_eq(got, want))
            return fail(v, y, "'sw.yield' value #%d in the combine region of '%s' has type %s, not %s",
                        i, name_of(op), TY(got, a), TY(want, b));
    }
    return check_combine_block(v, op, body);
}
