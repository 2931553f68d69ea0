/* irgen_scans.c - sl.cumsum, sl.cumprod, sl.associative_scan, sl.reduce,
 * sl.argmax, sl.argmin, sl.histogram and sl.gather (docs/language.md,
 * "Scans and reductions"). Scans and reductions become sw.scan /
 * sw.reduce_fn whose region is the combine function: a @sw.jit function
 * inlined once into it (sl.associative_scan, sl.reduce), or ops made here
 * (cumsum: add, cumprod: mul, argmax/argmin: the value-index rule).
 * Requires a live irgen; guarantees well-typed ops or an error at the
 * offending argument. */
#include "irgen_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_SCANNED = 8 }; /* tiles in one scan or reduction */

static const char *const scan_names[] = {
    "cumsum", "cumprod", "associative_scan", "reduce", "argmax", "argmin", "histogram", "gather",
};

bool ig_is_scan_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof scan_names / sizeof scan_names[0]; i++)
        if (!strcmp(scan_names[i], name))
            return true;
    return false;
}

/* ---- arguments -------------------------------------------------------------- */

/* The axis of a 1-D tile: 0 or -1 (None too when none_ok). */
static bool want_axis(irgen *g, const char *name, const ast_expr *a, bool none_ok)
{
    if (!a)
        return true;
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_NONE && none_ok)
        return true;
    int64_t axis;
    if (!ig_const_int(g, a, v, "the axis", &axis))
        return false;
    if (axis != 0 && axis != -1) {
        ig_error(g, a->loc, "sl.%s: tiles are one-dimensional, so the axis must be 0 (or -1), not %lld",
                 name, (long long)axis);
        return false;
    }
    return true;
}

static bool want_flag(irgen *g, const char *name, const char *param, const ast_expr *a, bool dflt, bool *out)
{
    *out = dflt;
    if (!a)
        return true;
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind != GV_CONST || (v.c.kind != CONST_BOOL && v.c.kind != CONST_INT)) {
        ig_error(g, a->loc, "sl.%s: '%s' must be a compile-time bool (True or False)", name, param);
        return false;
    }
    *out = v.c.i != 0;
    return true;
}

/* One tile of numbers (not pointers, not segment data). */
static bool want_tile(irgen *g, const char *name, const ast_expr *a, gval v, ir_value *out, bool any_rank)
{
    char buf[64];
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_IR && ig_type(g, v).kind == TY_TILE && !ig_type(g, v).ptr_elem) {
        if (ig_type(g, v).rank >= 2 && !any_rank) {
            ig_error(g, a->loc, "sl.%s needs a 1-D tile, not a %s (as Triton's, it has no form for "
                                "tiles of several dimensions: reshape the tile to 1-D first)", name,
                     ig_type_name(ig_type(g, v), buf));
            return false;
        }
        *out = v.v;
        return true;
    }
    if (v.kind == GV_IR && ig_is_segment_type(ig_type(g, v)))
        ig_error(g, a->loc, "sl.%s does not take segment data: scans, reductions with a combine "
                            "function, histograms and gathers work on tiles of grid programs", name);
    else if (v.kind == GV_IR)
        ig_error(g, a->loc, "sl.%s needs a tile of numbers, not %s", name, ig_type_name(ig_type(g, v), buf));
    else
        ig_error(g, a->loc, "sl.%s needs a tile of numbers", name);
    return false;
}

/* The input of a scan or reduction: a tile, or a tuple of tiles of one
 * length. */
static int want_tiles(irgen *g, const char *name, const ast_expr *a, gval v, ir_value *xs, bool any_rank)
{
    if (v.kind != GV_TUPLE)
        return want_tile(g, name, a, v, &xs[0], any_rank) ? 1 : 0;
    if (v.nitems < 1 || v.nitems > MAX_SCANNED) {
        ig_error(g, a->loc, "sl.%s takes a tile or a tuple of 1 to %d tiles, not %d", name, MAX_SCANNED,
                 v.nitems);
        return 0;
    }
    for (int i = 0; i < v.nitems; i++) {
        if (!want_tile(g, name, a, v.items[i], &xs[i], any_rank))
            return 0;
        ir_type t0 = ir_value_type(g->m, xs[0]), ti = ir_value_type(g->m, xs[i]);
        if (ti.len == t0.len && !ir_type_eq(ir_type_like(ti, ir_type_scalar(DT_I32)),
                                            ir_type_like(t0, ir_type_scalar(DT_I32)))) {
            char b1[64], b2[64];
            ig_error(g, a->loc, "sl.%s: the tiles of its input have different shapes (%s and %s)", name,
                     ig_shape_text(t0, b1), ig_shape_text(ti, b2));
            return 0;
        }
        if (ir_value_type(g->m, xs[i]).len != ir_value_type(g->m, xs[0]).len) {
            ig_error(g, a->loc, "sl.%s: the tiles of its input have different lengths (%d and %d)", name,
                     (int)ir_value_type(g->m, xs[0]).len, (int)ir_value_type(g->m, xs[i]).len);
            return 0;
        }
    }
    return v.nitems;
}

/* ---- the combine region --------------------------------------------------------- */

typedef struct combine_region {
    ir_op *op;
    ir_block *saved;
    int k;
    ir_value args[2 * MAX_SCANNED];
} combine_region;

static bool begin_combine(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *xs, int k,
                          combine_region *cr, int axis)
{
    ir_type types[MAX_SCANNED];
    for (int i = 0; i < k; i++) {
        ir_type t = ir_value_type(g->m, xs[i]);
        types[i] = kind == IR_SCAN ? t : axis >= 0 ? ir_reduce_axis_type(t, axis) : ir_type_elem(t);
    }
    if (ig_failed(g))
        return false;
    cr->op = ir_op_create(g->m, kind, ig_op_loc(g, loc), xs, k, types, k, 1);
    ir_block_append(g->block, cr->op);
    if (axis >= 0)
        ir_attr_set_int(g->m, cr->op, "axis", ir_type_scalar(DT_I32), axis);
    ir_block *body = cr->op->regions[0];
    for (int j = 0; j < 2 * k; j++)
        cr->args[j] = ir_block_add_arg(g->m, body, ir_type_elem(ir_value_type(g->m, xs[j % k])), NULL);
    cr->k = k;
    cr->saved = g->block;
    g->block = body;
    return true;
}

/* Ends the region with sw.yield of ys (NULL: after an error) and returns
 * the op's results as a gval (a tuple for several). */
static gval end_combine(irgen *g, src_loc loc, combine_region *cr, const ir_value *ys)
{
    if (ys && !ig_failed(g))
        ig_emit(g, IR_YIELD, loc, ys, cr->k, NULL, 0);
    g->block = cr->saved;
    if (ig_failed(g) || !ys)
        return (gval){0};
    if (cr->k == 1)
        return gv_ir(cr->op->results[0]);
    gval *items = arena_alloc(g->ar, sizeof(gval) * (size_t)cr->k);
    for (int i = 0; i < cr->k; i++)
        items[i] = gv_ir(cr->op->results[i]);
    return (gval){.kind = GV_TUPLE, .items = items, .nitems = cr->k};
}

/* The values a combine function returned, each of its operand's dtype. */
static bool combine_results(irgen *g, src_loc loc, const char *name, const char *fname, gval ret,
                            const combine_region *cr, ir_value *ys)
{
    char a[64], b[64];
    int n = ret.kind == GV_TUPLE ? ret.nitems : ret.kind == GV_NONE ? 0 : 1;
    if (n != cr->k) {
        ig_error(g, loc, "sl.%s: the combine function '%s' returns %d value%s, but the input has %d "
                         "tile%s", name, fname, n, n == 1 ? "" : "s", cr->k, cr->k == 1 ? "" : "s");
        return false;
    }
    for (int i = 0; i < n; i++) {
        gval v = ret.kind == GV_TUPLE ? ret.items[i] : ret;
        ir_type want = ir_value_type(g->m, cr->args[i]);
        if (v.kind == GV_CONST && v.c.kind != CONST_DTYPE) {
            ys[i] = ig_materialize(g, loc, v.c, want);
            if (ys[i] == IR_NO_VALUE)
                return false;
            continue;
        }
        if (v.kind != GV_IR || !ir_type_eq(ig_type(g, v), want)) {
            ig_error(g, loc, "sl.%s: the combine function '%s' returns %s as its value #%d, but it must "
                             "be a scalar %s like the input's tile; convert it with .to()", name, fname,
                     v.kind == GV_IR ? ig_type_name(ig_type(g, v), a) : "a non-number", i,
                     ig_type_name(want, b));
            return false;
        }
        ys[i] = v.v;
    }
    return true;
}

/* sw.scan / sw.reduce_fn of xs whose region inlines the @sw.jit function
 * named by fn_expr. */
static gval user_combine(irgen *g, const ast_expr *call, const char *name, ir_op_kind kind,
                         const ir_value *xs, int k, const ast_expr *fn_expr, int axis)
{
    if (fn_expr->kind != AST_NAME || !ig_is_function(g, fn_expr->name))
        return ig_error(g, fn_expr->loc, "sl.%s: combine_fn must name a @sw.jit function (one of this "
                                         "file or one the kernel can call)", name);
    combine_region cr;
    if (!begin_combine(g, kind, call->loc, xs, k, &cr, axis))
        return (gval){0};
    gval args[2 * MAX_SCANNED];
    for (int j = 0; j < 2 * k; j++)
        args[j] = gv_ir(cr.args[j]);
    char who[64];
    snprintf(who, sizeof who, "sl.%s", name);
    gval ret = ig_call_function_values(g, fn_expr->loc, fn_expr->name, who, args, 2 * k);
    ir_value ys[MAX_SCANNED];
    bool ok = !ig_failed(g) && combine_results(g, fn_expr->loc, name, fn_expr->name, ret, &cr, ys);
    return end_combine(g, call->loc, &cr, ok ? ys : NULL);
}

static ir_value emit2(irgen *g, src_loc loc, ir_op_kind kind, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    return ig_emit1(g, kind, loc, ops, 2, ir_value_type(g->m, a));
}

static ir_value compare(irgen *g, src_loc loc, const char *pred, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    ir_value r = ig_emit1(g, IR_CMP, loc, ops, 2, ir_type_scalar(DT_I1));
    if (r != IR_NO_VALUE)
        ir_attr_set_str(g->m, g->m->values[r].def, "predicate", pred);
    return r;
}

static ir_value select3(irgen *g, src_loc loc, ir_value c, ir_value a, ir_value b)
{
    ir_value ops[3] = {c, a, b};
    return ig_emit1(g, IR_SELECT, loc, ops, 3, ir_value_type(g->m, a));
}

/* ---- the built-ins --------------------------------------------------------------- */

/* keep_dims=True: the reduced dims of the input (of type `in`) stay, as
 * 1s: the axis's (axis >= 0), or all of them. */
static gval keep(irgen *g, src_loc loc, gval r, bool keep_dims, ir_type in, int axis)
{
    if (!keep_dims || r.kind != GV_IR)
        return r;
    int32_t dims[IR_MAX_RANK];
    int rank = ig_dims(in, dims);
    for (int i = 0; i < rank; i++)
        if (axis < 0 || i == axis)
            dims[i] = 1;
    return gv_ir(ig_reshape(g, loc, r.v, rank, dims));
}

/* The axis of a reduction with a combine function: for a 1-D tile 0, -1 or
 * None (-1 out: the whole tile); for one of several dims an axis of it
 * (out: 0 .. rank-1), or None, which reduces every element: the inputs are
 * made 1-D (*flatten) as Triton does. */
static bool reduce_axis(irgen *g, const char *name, const ast_expr *a, ir_type t, int *axis, bool *flatten)
{
    *axis = -1;
    *flatten = false;
    int rank = ig_dims(t, NULL);
    if (rank < 2)
        return want_axis(g, name, a, true);
    gval v = a ? ig_expr(g, a) : (gval){.kind = GV_NONE};
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_NONE) {
        *flatten = true;
        return true;
    }
    return ig_axis_arg(g, a, v, rank, axis);
}

/* The axis of a scan or gather of a tile of type t: 0 or -1 for a 1-D tile
 * (out: -1, no axis attribute); for one of several dims any of its axes,
 * negative ones from the end (out: 0 .. rank-1). a NULL: axis 0. */
static bool scan_axis(irgen *g, const char *name, const ast_expr *a, ir_type t, int *axis)
{
    *axis = -1;
    int rank = ig_dims(t, NULL);
    if (rank < 2)
        return want_axis(g, name, a, false);
    if (!a) {
        *axis = 0;
        return true;
    }
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_NONE) {
        ig_error(g, a->loc, "sl.%s: the axis must be an integer, not None", name);
        return false;
    }
    return ig_axis_arg(g, a, v, rank, axis);
}

static ir_value flat(irgen *g, src_loc loc, ir_value x)
{
    int32_t len = ir_value_type(g->m, x).len;
    return ig_reshape(g, loc, x, 1, &len);
}

/* cumsum / cumprod (input, axis, reverse, dtype). */
static gval lower_cum(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args, gval self)
{
    bool sum = !strcmp(name, "cumsum"), reverse;
    ir_value x;
    int axis;
    if (!want_tile(g, name, args[0], self, &x, true) ||
        !scan_axis(g, name, args[1], ir_value_type(g->m, x), &axis) ||
        !want_flag(g, name, "reverse", args[2], false, &reverse))
        return (gval){0};
    ir_dtype dt = (ir_dtype)ir_value_type(g->m, x).dtype, to = dt;
    if (args[3]) {
        gval d = ig_expr(g, args[3]);
        if (d.kind == GV_ERROR)
            return d;
        if (d.kind == GV_CONST && d.c.kind == CONST_DTYPE)
            to = (ir_dtype)d.c.i;
        else if (d.kind != GV_NONE)
            return ig_error(g, args[3]->loc, "sl.%s: dtype must be a dtype such as sl.float32", name);
    }
    if (to == dt && dt == DT_BF16)
        to = DT_F32;
    else if (to == dt && sum)
        to = ig_sum_dtype(dt); /* as sl.sum */
    x = ig_cast(g, call->loc, x, to);
    combine_region cr;
    if (x == IR_NO_VALUE || !begin_combine(g, IR_SCAN, call->loc, &x, 1, &cr, axis))
        return (gval){0};
    ir_attr_set_bool(g->m, cr.op, "reverse", reverse);
    ir_value y = emit2(g, call->loc, sum ? IR_ADD : IR_MUL, cr.args[0], cr.args[1]);
    return end_combine(g, call->loc, &cr, &y);
}

/* associative_scan (input, axis, combine_fn, reverse) and reduce (input,
 * axis, combine_fn, keep_dims). */
static gval lower_user(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args, gval self)
{
    bool scan = !strcmp(name, "associative_scan"), flag, flatten = false;
    ir_value xs[MAX_SCANNED];
    int k = want_tiles(g, name, args[0], self, xs, true), axis = -1;
    if (!k || !(scan ? scan_axis(g, name, args[1], ir_value_type(g->m, xs[0]), &axis)
                     : reduce_axis(g, name, args[1], ir_value_type(g->m, xs[0]), &axis, &flatten)) ||
        !want_flag(g, name, scan ? "reverse" : "keep_dims", args[3], false, &flag))
        return (gval){0};
    ir_type in = ir_value_type(g->m, xs[0]);
    for (int i = 0; i < k && flatten; i++)
        xs[i] = flat(g, call->loc, xs[i]);
    gval r = user_combine(g, call, name, scan ? IR_SCAN : IR_REDUCE_FN, xs, k, args[2], axis);
    if (r.kind == GV_ERROR)
        return r;
    if (scan) {
        ir_op *op = g->m->values[r.kind == GV_TUPLE ? r.items[0].v : r.v].def;
        ir_attr_set_bool(g->m, op, "reverse", flag);
        return r;
    }
    if (!flag)
        return r;
    if (r.kind != GV_TUPLE)
        return keep(g, call->loc, r, true, in, axis);
    gval *items = arena_alloc(g->ar, sizeof(gval) * (size_t)r.nitems);
    for (int i = 0; i < r.nitems; i++)
        items[i] = keep(g, call->loc, r.items[i], true, in, axis);
    return (gval){.kind = GV_TUPLE, .items = items, .nitems = r.nitems};
}

/* argmax / argmin (input, axis, tie_break_left, keep_dims): a reduction of
 * (value, index) pairs. The left pair (lower indices) wins when its value
 * is greater (argmin: less), when it is NaN and the right one is not, and
 * on a tie (equal values, or both NaN) when tie_break_left; so the result
 * is the first NaN if any, else the first (tie_break_left=False: the last)
 * extreme value. Indices are int32. */
static gval lower_arg(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args, gval self)
{
    bool max = !strcmp(name, "argmax"), left, keep_dims, flatten;
    ir_value x;
    int axis;
    if (!want_tile(g, name, args[0], self, &x, true) ||
        !reduce_axis(g, name, args[1], ir_value_type(g->m, x), &axis, &flatten) ||
        !want_flag(g, name, "tie_break_left", args[2], true, &left) ||
        !want_flag(g, name, "keep_dims", args[3], false, &keep_dims))
        return (gval){0};
    src_loc loc = call->loc;
    ir_type in = ir_value_type(g->m, x);
    if (flatten)
        x = flat(g, loc, x);
    ir_type t = ir_value_type(g->m, x);
    /* the index along the reduced axis (every element's, for a whole tile) */
    int32_t dims[IR_MAX_RANK];
    int rank = ig_dims(t, dims);
    int32_t n = axis >= 0 ? dims[axis] : t.len;
    ir_value index = ig_emit1(g, IR_ARANGE, loc, NULL, 0, ir_type_tile(DT_I32, n));
    if (index == IR_NO_VALUE)
        return (gval){0};
    ir_attr_set_int(g->m, g->m->values[index].def, "start", ir_type_scalar(DT_I32), 0);
    ir_attr_set_int(g->m, g->m->values[index].def, "end", ir_type_scalar(DT_I32), n);
    if (axis >= 0) {
        int32_t along[IR_MAX_RANK];
        for (int i = 0; i < rank; i++)
            along[i] = i == axis ? n : 1;
        index = ig_broadcast(g, loc, ig_reshape(g, loc, index, rank, along), ir_type_like(t, ir_type_scalar(DT_I32)));
        if (index == IR_NO_VALUE)
            return (gval){0};
    }
    ir_value xs[2] = {x, index};
    combine_region cr;
    if (!begin_combine(g, IR_REDUCE_FN, loc, xs, 2, &cr, axis))
        return (gval){0};
    ir_value v1 = cr.args[0], i1 = cr.args[1], v2 = cr.args[2], i2 = cr.args[3];
    ir_value pick = compare(g, loc, max ? "gt" : "lt", v1, v2);
    ir_value tie = compare(g, loc, "eq", v1, v2);
    if (ir_dtype_is_float((ir_dtype)t.dtype)) {
        ir_value nan1 = compare(g, loc, "ne", v1, v1), nan2 = compare(g, loc, "ne", v2, v2);
        ir_value not2 = ig_emit1(g, IR_NOT, loc, &nan2, 1, ir_type_scalar(DT_I1));
        pick = emit2(g, loc, IR_OR, pick, emit2(g, loc, IR_AND, nan1, not2));
        tie = emit2(g, loc, IR_OR, tie, emit2(g, loc, IR_AND, nan1, nan2));
    }
    if (left)
        pick = emit2(g, loc, IR_OR, pick, emit2(g, loc, IR_AND, tie, compare(g, loc, "lt", i1, i2)));
    ir_value ys[2] = {select3(g, loc, pick, v1, v2), select3(g, loc, pick, i1, i2)};
    gval r = end_combine(g, loc, &cr, ys);
    if (r.kind != GV_TUPLE)
        return (gval){0};
    return keep(g, loc, r.items[1], keep_dims, in, axis);
}

/* histogram (input, num_bins, mask). */
static gval lower_histogram(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                            gval self)
{
    char buf[64];
    ir_value x;
    if (!want_tile(g, name, args[0], self, &x, false))
        return (gval){0};
    ir_type t = ir_value_type(g->m, x);
    if (!ir_dtype_is_int((ir_dtype)t.dtype) || t.dtype == DT_I1)
        return ig_error(g, args[0]->loc, "sl.histogram needs a tile of integers, not %s",
                        ig_type_name(t, buf));
    int64_t bins;
    if (!ig_const_int(g, args[1], ig_expr(g, args[1]), "num_bins", &bins))
        return (gval){0};
    if (bins < 1 || bins > (1 << 20))
        return ig_error(g, args[1]->loc, "sl.histogram: num_bins must be in 1..%d, not %lld", 1 << 20,
                        (long long)bins);
    ir_value ops[2] = {x, IR_NO_VALUE};
    int n = 1;
    if (args[2]) {
        gval m = ig_expr(g, args[2]);
        if (m.kind == GV_ERROR)
            return m;
        if (m.kind == GV_CONST && m.c.kind == CONST_BOOL && m.c.i) {
            /* mask=True: every element */
        } else if (m.kind != GV_NONE) {
            ir_value mv = ig_to_ir(g, args[2]->loc, m, ir_type_scalar(DT_I1));
            if (mv == IR_NO_VALUE)
                return (gval){0};
            if (ir_value_type(g->m, mv).dtype != DT_I1)
                return ig_error(g, args[2]->loc, "sl.histogram: the mask must be int1 (bool), not %s",
                                ig_type_name(ir_value_type(g->m, mv), buf));
            ops[1] = ig_broadcast(g, args[2]->loc, mv, t);
            if (ops[1] == IR_NO_VALUE)
                return (gval){0};
            n = 2;
        }
    }
    return gv_ir(ig_emit1(g, IR_HISTOGRAM, call->loc, ops, n, ir_type_tile(DT_I32, (int32_t)bins)));
}

/* gather (src, index, axis), as Triton's: src and index of one rank, equal
 * in every dim but the axis; the result has index's shape, and its element
 * at (.., i, ..) is src's at (.., index[.., i, ..], ..) (i at the axis). */
static gval lower_gather(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                         gval self)
{
    char buf[64], b2[64];
    ir_value src, index;
    int axis;
    if (!want_tile(g, name, args[0], self, &src, true) ||
        !want_tile(g, name, args[1], ig_expr(g, args[1]), &index, true))
        return (gval){0};
    ir_type st = ir_value_type(g->m, src), it = ir_value_type(g->m, index);
    if (!ir_dtype_is_int((ir_dtype)it.dtype) || it.dtype == DT_I1)
        return ig_error(g, args[1]->loc, "sl.gather: the index must be a tile of integers, not %s",
                        ig_type_name(it, buf));
    int32_t sd[IR_MAX_RANK], id[IR_MAX_RANK];
    int rank = ig_dims(st, sd);
    if (ig_dims(it, id) != rank)
        return ig_error(g, args[1]->loc, "sl.gather: the source %s and the index %s must have the same "
                        "number of dimensions", ig_shape_text(st, buf), ig_shape_text(it, b2));
    if (!scan_axis(g, name, args[2], st, &axis))
        return (gval){0};
    for (int d = 0; d < rank && axis >= 0; d++)
        if (d != axis && sd[d] != id[d])
            return ig_error(g, args[1]->loc, "sl.gather: the index %s must match the source %s in every "
                            "dimension but the axis (%d), and differs in dimension %d",
                            ig_shape_text(it, b2), ig_shape_text(st, buf), axis, d);
    ir_value ops[2] = {src, index};
    ir_value r = ig_emit1(g, IR_GATHER, call->loc, ops, 2, ir_type_like(it, ir_type_elem(st)));
    if (r != IR_NO_VALUE && axis >= 0)
        ir_attr_set_int(g->m, g->m->values[r].def, "axis", ir_type_scalar(DT_I32), axis);
    return gv_ir(r);
}

gval ig_scan_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                     const gval *self)
{
    if (!ig_note_scan(g, call->loc, name))
        return (gval){0};
    gval x = self ? *self : ig_expr(g, args[0]);
    if (x.kind == GV_ERROR)
        return x;
    if (!strcmp(name, "cumsum") || !strcmp(name, "cumprod"))
        return lower_cum(g, call, name, args, x);
    if (!strcmp(name, "associative_scan") || !strcmp(name, "reduce"))
        return lower_user(g, call, name, args, x);
    if (!strcmp(name, "argmax") || !strcmp(name, "argmin"))
        return lower_arg(g, call, name, args, x);
    if (!strcmp(name, "histogram"))
        return lower_histogram(g, call, name, args, x);
    return lower_gather(g, call, name, args, x);
}
