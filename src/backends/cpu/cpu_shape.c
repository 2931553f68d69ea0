/* cpu_shape.c - the semantic executor's shape ops: sw.broadcast,
 * sw.reshape, sw.trans, sw.split, and sw.reduce along an axis
 * (docs/ir-format.md).
 * Requires slots set up by cpu_setup.c (which calls cpu_shape_check_op);
 * tiles are stored row-major, so each op is an index map from result
 * elements to operand elements (a reduction folds the operand's elements
 * along its axis in index order, as the whole-tile reduction does). */
#include "cpu_internal.h"

#include <stdlib.h>
#include <string.h>

bool cpu_is_shape_op(ir_op_kind kind)
{
    return kind == IR_BROADCAST || kind == IR_RESHAPE || kind == IR_TRANS || kind == IR_SPLIT;
}

static ir_type type_of(const cpu_ctx *c, ir_value v) { return c->m->values[v].type; }

bool cpu_shape_check_op(cpu_ctx *c, const ir_op *op)
{
    if (op->noperands != 1 || op->nresults != 1)
        return cpu_internal(c, op, "a shape op takes one tile to one tile");
    ir_type x = type_of(c, op->operands[0]), r = type_of(c, op->results[0]);
    if (op->kind == IR_SPLIT) {
        int32_t d[IR_MAX_RANK];
        int rank = ir_tile_dims(x, d);
        const ir_attr *index = ir_attr_get(op, "index");
        if (rank < 1 || d[rank - 1] != 2 || !index || index->kind != ATTR_INT || index->i < 0 ||
            index->i > 1 || cpu_is_ptr(c, op->operands[0]) != cpu_is_ptr(c, op->results[0]) ||
            x.dtype != r.dtype || cpu_slots(c, op->results[0]) * 2 != x.len)
            return cpu_internal(c, op, "a split takes a tile whose last dim is 2 to one of its halves");
        return true;
    }
    if (x.kind != TY_TILE || r.kind != TY_TILE || x.dtype != r.dtype || x.ptr_elem != r.ptr_elem)
        return cpu_internal(c, op, "a shape op takes one tile to a tile of its element type");
    int order[IR_MAX_RANK];
    const ir_attr *o;
    switch (op->kind) {
    case IR_BROADCAST:
        return ir_broadcastable(x, r) || cpu_internal(c, op, "dims that do not broadcast");
    case IR_RESHAPE: return x.len == r.len || cpu_internal(c, op, "a reshape changes the element count");
    case IR_TRANS:
        o = ir_attr_get(op, "order");
        if (!o || o->kind != ATTR_STR || !ir_parse_order(o->s, ir_tile_dims(x, NULL), order) ||
            ir_tile_dims(r, NULL) != ir_tile_dims(x, NULL) || x.len != r.len)
            return cpu_internal(c, op, "a transpose needs a permutation of the operand's dims");
        return true;
    default: return cpu_internal(c, op, "not a shape op");
    }
}

bool cpu_shape_check_reduce(cpu_ctx *c, const ir_op *op)
{
    const ir_attr *axis = ir_attr_get(op, "axis");
    ir_type x = type_of(c, op->operands[0]), r = type_of(c, op->results[0]);
    int rank = ir_tile_dims(x, NULL);
    if (!axis || axis->kind != ATTR_INT || rank < 2 || axis->i < 0 || axis->i >= rank ||
        !ir_type_eq(r, ir_reduce_axis_type(x, (int)axis->i)) || x.ptr_elem)
        return cpu_internal(c, op, "a reduction along an axis gives the tile of the other dims");
    return true;
}

/* Moves element src_index(e) of the operand to element e of the result, for
 * every e; elements are ir_scalar or cpu_ptr. */
static void gather_elems(cpu_ctx *c, const ir_op *op, const int64_t *src)
{
    ir_value x = op->operands[0], r = op->results[0];
    int32_t n = cpu_slots(c, r);
    if (cpu_is_ptr(c, r)) {
        const cpu_ptr *a = cpu_ptrs(c, x);
        cpu_ptr *o = cpu_ptrs(c, r);
        for (int32_t e = 0; e < n; e++)
            o[e] = a[src[e]];
    } else {
        const ir_scalar *a = cpu_vals(c, x);
        ir_scalar *o = cpu_vals(c, r);
        for (int32_t e = 0; e < n; e++)
            o[e] = a[src[e]];
    }
}

/* The operand element each result element reads: result index i (dims rd)
 * -> operand index with operand dim k's index idx[k], where idx comes from
 * the result's multi-index by `map`. */
static bool exec_index_map(cpu_ctx *c, const ir_op *op)
{
    ir_type x = type_of(c, op->operands[0]), r = type_of(c, op->results[0]);
    int32_t xd[IR_MAX_RANK], rd[IR_MAX_RANK];
    int rank = ir_tile_dims(r, rd);
    ir_tile_dims(x, xd);
    int64_t xs[IR_MAX_RANK];
    ir_row_major_strides(rank, xd, xs);
    int order[IR_MAX_RANK] = {0, 1, 2};
    if (op->kind == IR_TRANS)
        ir_parse_order(ir_attr_get(op, "order")->s, rank, order);
    int64_t *src = malloc(sizeof *src * (size_t)r.len);
    if (!src) {
        diag_error(c->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    int32_t idx[IR_MAX_RANK] = {0};
    for (int32_t e = 0; e < r.len; e++) {
        int64_t s = 0;
        for (int k = 0; k < rank; k++) {
            int src_dim = op->kind == IR_TRANS ? order[k] : k;
            int32_t i = idx[k];
            if (op->kind == IR_BROADCAST && xd[k] == 1)
                i = 0;
            s += (int64_t)i * xs[src_dim];
        }
        src[e] = s;
        for (int k = rank - 1; k >= 0; k--) {
            if (++idx[k] < rd[k])
                break;
            idx[k] = 0;
        }
    }
    gather_elems(c, op, src);
    free(src);
    return true;
}

/* sw.split {index}: result element e is operand element 2e + index (the
 * last dim, of 2, is the fastest). */
static bool exec_split(cpu_ctx *c, const ir_op *op)
{
    int64_t index = ir_attr_get(op, "index")->i;
    int32_t n = cpu_slots(c, op->results[0]);
    int64_t *src = malloc(sizeof *src * (size_t)n);
    if (!src) {
        diag_error(c->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    for (int32_t e = 0; e < n; e++)
        src[e] = 2 * (int64_t)e + index;
    gather_elems(c, op, src);
    free(src);
    return true;
}

bool cpu_shape_exec_op(cpu_ctx *c, const ir_op *op)
{
    if (op->kind == IR_RESHAPE) {
        cpu_copy_value(c, op->results[0], op->operands[0]);
        return true;
    }
    if (op->kind == IR_SPLIT)
        return exec_split(c, op);
    return exec_index_map(c, op);
}

/* sw.reduce {kind, axis}: result element (outer, inner) folds the operand's
 * elements (outer, k, inner) for k = 0 .. K-1 in order, as exec_reduce
 * folds a whole tile (float sums and products in double, rounded once). */
bool cpu_shape_exec_reduce(cpu_ctx *c, const ir_op *op)
{
    const char *kind = ir_attr_get(op, "kind")->s;
    int axis = (int)ir_attr_get(op, "axis")->i;
    ir_value x = op->operands[0], r = op->results[0];
    ir_dtype dt = cpu_dtype(c, x);
    int32_t d[IR_MAX_RANK];
    int rank = ir_tile_dims(type_of(c, x), d);
    int64_t outer = 1, inner = 1, k = d[axis];
    for (int i = 0; i < axis; i++)
        outer *= d[i];
    for (int i = axis + 1; i < rank; i++)
        inner *= d[i];
    bool sum = !strcmp(kind, "sum"), prod = !strcmp(kind, "prod");
    const ir_scalar *v = cpu_vals(c, x);
    ir_scalar *out = cpu_vals(c, r);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const ir_scalar *base = v + o * k * inner + in;
            ir_scalar *res = out + o * inner + in;
            if (ir_dtype_is_float(dt) && (sum || prod)) {
                double acc = sum ? 0.0 : 1.0;
                for (int64_t i = 0; i < k; i++)
                    acc = sum ? acc + base[i * inner].f : acc * base[i * inner].f;
                *res = ir_scalar_from_float(dt, acc);
                continue;
            }
            ir_scalar acc = base[0];
            for (int64_t i = 1; i < k; i++)
                if (!ir_eval_reduce_combine(kind, dt, acc, base[i * inner], &acc))
                    return cpu_internal(c, op, "no combine for this dtype");
            *res = acc;
        }
    return true;
}
