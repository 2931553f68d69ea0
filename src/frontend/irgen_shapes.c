/* irgen_shapes.c - tile shapes in the frontend: Triton's broadcasting of
 * mixed shapes (right-aligned; each dim equal, or 1 on one side), the
 * subscripts that add dimensions (x[:, None], x[None, :], x[None, ...]),
 * and the shape built-ins sl.broadcast_to, sl.broadcast, sl.expand_dims,
 * sl.reshape (sl.view), sl.trans, sl.permute and x.T. Requires a live
 * irgen; guarantees every emitted sw.reshape, sw.broadcast and sw.trans is
 * well typed, or an error was reported at the expression. */
#include "irgen_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_TILE = 1 << 20 };

int ig_dims(ir_type t, int32_t dims[IR_MAX_RANK]) { return ir_tile_dims(t, dims); }

/* "(4, 8)" into buf. */
static const char *shape_text(int rank, const int32_t *dims, char buf[64])
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, 64 - n, "(");
    for (int i = 0; i < rank; i++)
        n += (size_t)snprintf(buf + n, 64 - n, "%s%d", i ? ", " : "", (int)dims[i]);
    snprintf(buf + n, 64 - n, rank == 1 ? ",)" : ")");
    return buf;
}

const char *ig_shape_text(ir_type t, char buf[64])
{
    int32_t d[IR_MAX_RANK];
    return shape_text(ir_tile_dims(t, d), d, buf);
}

/* A tile of t's element (number or pointer) with the given dims. */
static ir_type tile_of(ir_type t, int rank, const int32_t *dims)
{
    return ir_type_tile_shape((ir_dtype)t.dtype, ir_type_is_ptrlike(t), rank, dims);
}

ir_value ig_reshape(irgen *g, src_loc loc, ir_value v, int rank, const int32_t *dims)
{
    ir_type t = ir_value_type(g->m, v), r = tile_of(t, rank, dims);
    if (ir_type_eq(t, r))
        return v;
    if (t.kind != TY_TILE)
        return ig_emit1(g, IR_SPLAT, loc, &v, 1, r);
    return ig_emit1(g, IR_RESHAPE, loc, &v, 1, r);
}

/* The shape two tiles broadcast to (Triton: right-aligned, the shorter
 * padded with leading 1s; each pair equal or one of them 1). */
static bool common_dims(ir_type a, ir_type b, int *rank, int32_t dims[IR_MAX_RANK])
{
    int32_t ad[IR_MAX_RANK], bd[IR_MAX_RANK];
    int ar = ir_tile_dims(a, ad), br = ir_tile_dims(b, bd);
    int r = ar > br ? ar : br;
    for (int i = 0; i < r; i++) {
        int32_t x = i - (r - ar) >= 0 ? ad[i - (r - ar)] : 1;
        int32_t y = i - (r - br) >= 0 ? bd[i - (r - br)] : 1;
        if (x != y && x != 1 && y != 1)
            return false;
        dims[i] = x == 1 ? y : x;
    }
    *rank = r;
    return true;
}

bool ig_common_shape(irgen *g, src_loc loc, ir_type a, ir_type b, ir_type *out, const char *what)
{
    char b1[64], b2[64];
    if (a.kind != TY_TILE) {
        *out = b;
        return true;
    }
    if (b.kind != TY_TILE) {
        *out = a;
        return true;
    }
    int rank;
    int32_t dims[IR_MAX_RANK];
    if (!common_dims(a, b, &rank, dims)) {
        ig_error(g, loc, "shape mismatch in '%s': %s and %s do not broadcast (each dim, from the "
                         "right, must be equal or 1)", what, ig_shape_text(a, b1), ig_shape_text(b, b2));
        return false;
    }
    *out = tile_of(a, rank, dims);
    return true;
}

/* Broadcasts tile v to the dims of `to` (at least v's rank): leading 1s
 * first (sw.reshape), then the dims of 1 repeated (sw.broadcast). */
static ir_value broadcast_tile(irgen *g, src_loc loc, ir_value v, ir_type to)
{
    char b1[64], b2[64];
    ir_type t = ir_value_type(g->m, v);
    int32_t td[IR_MAX_RANK], od[IR_MAX_RANK], padded[IR_MAX_RANK];
    int tr = ir_tile_dims(t, td), orank = ir_tile_dims(to, od);
    bool same = tr == orank;
    for (int i = 0; i < orank; i++) {
        padded[i] = i - (orank - tr) >= 0 ? td[i - (orank - tr)] : 1;
        if (padded[i] != od[i] && padded[i] != 1) {
            ig_error(g, loc, "shape mismatch: a tile of shape %s cannot be broadcast to %s",
                     ig_shape_text(t, b1), ig_shape_text(to, b2));
            return IR_NO_VALUE;
        }
        same &= padded[i] == od[i];
    }
    if (tr > orank) {
        ig_error(g, loc, "shape mismatch: a tile of shape %s cannot be broadcast to %s",
                 ig_shape_text(t, b1), ig_shape_text(to, b2));
        return IR_NO_VALUE;
    }
    if (same)
        return v;
    v = ig_reshape(g, loc, v, orank, padded);
    if (v == IR_NO_VALUE)
        return v;
    ir_type r = tile_of(t, orank, od);
    if (ir_type_eq(ir_value_type(g->m, v), r))
        return v;
    return ig_emit1(g, IR_BROADCAST, loc, &v, 1, r);
}

static ir_value mix_error(irgen *g, src_loc loc)
{
    ig_error(g, loc, "a segment value cannot be combined with a tile (sl.arange, sl.full, or sl.load "
                     "through a tile of pointers): segments have a runtime length");
    return IR_NO_VALUE;
}

ir_value ig_broadcast(irgen *g, src_loc loc, ir_value v, ir_type shape_of)
{
    ir_type t = ir_value_type(g->m, v);
    if (shape_of.kind == TY_SEGVAL) {
        if (t.kind == TY_TILE)
            return mix_error(g, loc);
        if (t.kind == TY_SEGVAL)
            return v;
        if (t.kind != TY_SCALAR) {
            char b[64];
            ig_error(g, loc, "a %s cannot be broadcast to a segment value", ig_type_name(t, b));
            return IR_NO_VALUE;
        }
        return ig_emit1(g, IR_SPLAT, loc, &v, 1, ir_type_segval((ir_dtype)t.dtype));
    }
    if (shape_of.kind != TY_TILE)
        return v;
    if (t.kind == TY_SEGVAL)
        return mix_error(g, loc);
    if (t.kind == TY_TILE)
        return broadcast_tile(g, loc, v, shape_of);
    return ig_emit1(g, IR_SPLAT, loc, &v, 1, ir_type_like(shape_of, t));
}

bool ig_broadcast_pair(irgen *g, src_loc loc, ir_value *a, ir_value *b, const char *what)
{
    ir_type ta = ir_value_type(g->m, *a), tb = ir_value_type(g->m, *b), common;
    if (ta.kind != TY_TILE || tb.kind != TY_TILE) {
        *a = ig_broadcast(g, loc, *a, tb);
        *b = ig_broadcast(g, loc, *b, ta);
        return *a != IR_NO_VALUE && *b != IR_NO_VALUE;
    }
    if (!ig_common_shape(g, loc, ta, tb, &common, what))
        return false;
    *a = ig_broadcast(g, loc, *a, common);
    *b = ig_broadcast(g, loc, *b, common);
    return *a != IR_NO_VALUE && *b != IR_NO_VALUE;
}

/* ---- expand_dims and subscripts ------------------------------------------ */

/* v with a dim of 1 inserted before dim `axis` (0 .. rank); a scalar
 * becomes a tile of shape (1,). */
static ir_value expand_at(irgen *g, src_loc loc, ir_value v, int axis)
{
    ir_type t = ir_value_type(g->m, v);
    int32_t d[IR_MAX_RANK + 1];
    int rank = t.kind == TY_TILE ? ir_tile_dims(t, d) : 0;
    if (rank + 1 > IR_MAX_RANK) {
        ig_error(g, loc, "tiles have at most %d dimensions; this would make %d", IR_MAX_RANK, rank + 1);
        return IR_NO_VALUE;
    }
    for (int i = rank; i > axis; i--)
        d[i] = d[i - 1];
    d[axis] = 1;
    return ig_reshape(g, loc, v, rank + 1, d);
}

/* A value that may get dims: a tile or a scalar number, or (ptr_ok) a
 * pointer scalar, which sl.broadcast_to and sl.expand_dims splat to a
 * pointer tile (not a view or a segment value). */
static bool want_shapeable(irgen *g, src_loc loc, gval x, const char *who, bool ptr_ok, ir_value *out)
{
    char buf[64];
    if (x.kind == GV_ERROR)
        return false;
    if (x.kind == GV_CONST && x.c.kind != CONST_DTYPE)
        *out = ig_to_ir(g, loc, x, ir_type_void());
    else if (x.kind == GV_IR)
        *out = x.v;
    else {
        ig_error(g, loc, "%s needs a tile", who);
        return false;
    }
    if (*out == IR_NO_VALUE)
        return false;
    ir_type t = ir_value_type(g->m, *out);
    if (t.kind == TY_TILE || t.kind == TY_SCALAR || (t.kind == TY_PTR && ptr_ok))
        return true;
    ig_error(g, loc, "%s needs a tile, not a %s", who, ig_type_name(t, buf));
    return false;
}

/* t[i] of a tuple (an sl.constexpr tuple, x.shape): i a compile-time
 * integer, negative ones counting from the end. */
static gval tuple_item(irgen *g, const ast_expr *e, gval x)
{
    if (e->nargs != 1 || e->args[0]->kind == AST_SLICE || e->args[0]->kind == AST_ELLIPSIS ||
        e->args[0]->kind == AST_NONE)
        return ig_error(g, e->loc, "a tuple is indexed by one compile-time integer (t[0], t[-1])");
    gval i = ig_expr(g, e->args[0]);
    int64_t index;
    if (i.kind == GV_ERROR || !ig_const_int(g, e->args[0], i, "a tuple index", &index))
        return (gval){0};
    int64_t at = index < 0 ? index + x.nitems : index;
    if (at < 0 || at >= x.nitems)
        return ig_error(g, e->args[0]->loc, "tuple index %lld out of range: the tuple has %d item%s",
                        (long long)index, x.nitems, x.nitems == 1 ? "" : "s");
    return x.items[at];
}

gval ig_subscript(irgen *g, const ast_expr *e)
{
    gval x = ig_expr(g, e->lhs);
    if (x.kind == GV_ERROR)
        return x;
    if (x.kind == GV_TUPLE)
        return tuple_item(g, e, x);
    if (x.kind == GV_STR)
        return ig_error(g, e->loc, "%s cannot be indexed: strings are compile-time values, only "
                                   "compared (==, !=, in) or passed to @sw.jit functions",
                        ig_known_text(g, x));
    for (int i = 0; i < e->nargs; i++)
        if (e->args[i]->kind != AST_NONE && e->args[i]->kind != AST_SLICE &&
            e->args[i]->kind != AST_ELLIPSIS)
            return ig_error(g, e->open, "subscripts (x[i]) are not supported in Swage kernels; use "
                                        "pointer arithmetic with sl.load (only None, ':' and '...' "
                                        "may index a tile: x[:, None], x[None, :]; a tuple takes "
                                        "t[i])");
    ir_value v;
    if (!want_shapeable(g, e->lhs->loc, x, "a subscript", false, &v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    int rank = t.kind == TY_TILE ? ir_tile_dims(t, NULL) : 0;
    int slices = 0, ellipses = 0;
    for (int i = 0; i < e->nargs; i++) {
        slices += e->args[i]->kind == AST_SLICE;
        ellipses += e->args[i]->kind == AST_ELLIPSIS;
    }
    if (ellipses > 1)
        return ig_error(g, e->args[e->nargs - 1]->loc, "a subscript can hold one '...' only");
    if (slices > rank) {
        const ast_expr *extra = NULL;
        for (int i = 0, seen = 0; i < e->nargs && !extra; i++)
            if (e->args[i]->kind == AST_SLICE && ++seen > rank)
                extra = e->args[i];
        return ig_error(g, extra->loc, "too many ':' in a subscript of a %s: it has %d dimension%s",
                        rank ? "tile" : "scalar", rank, rank == 1 ? "" : "s");
    }
    /* Triton's rule: item k of the subscript is dim k of the result; None
     * inserts a dim of 1 there, ':' keeps the next dim of x, '...' keeps
     * as many as the ':'s leave. */
    int dim = 0;
    for (int i = 0; i < e->nargs; i++) {
        const ast_expr *item = e->args[i];
        if (item->kind == AST_NONE) {
            v = expand_at(g, item->loc, v, dim);
            if (v == IR_NO_VALUE)
                return (gval){0};
            dim++;
        } else if (item->kind == AST_SLICE) {
            dim++;
        } else {
            dim += rank - slices;
        }
    }
    return gv_ir(v);
}

/* ---- shape arguments ------------------------------------------------------- */

/* A compile-time power-of-two dim. */
static bool want_dim(irgen *g, const ast_expr *a, gval v, const char *what, int32_t *out)
{
    int64_t n;
    if (!ig_const_int(g, a, v, what, &n))
        return false;
    if (n <= 0 || n > MAX_TILE || (n & (n - 1))) {
        ig_error(g, a->loc, "%s must be a power of two between 1 and %d, not %lld", what, MAX_TILE,
                 (long long)n);
        return false;
    }
    *out = (int32_t)n;
    return true;
}

bool ig_shape_arg(irgen *g, const ast_expr *a, gval v, int *rank, int32_t dims[IR_MAX_RANK])
{
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind != GV_TUPLE) {
        *rank = 1;
        return want_dim(g, a, v, "a tile dimension", &dims[0]);
    }
    if (v.nitems < 1 || v.nitems > IR_MAX_RANK) {
        ig_error(g, a->loc, "a tile shape has 1 to %d dimensions, not %d", IR_MAX_RANK, v.nitems);
        return false;
    }
    for (int i = 0; i < v.nitems; i++) {
        const ast_expr *item = a->kind == AST_TUPLE && i < a->nargs ? a->args[i] : a;
        if (!want_dim(g, item, v.items[i], "a tile dimension", &dims[i]))
            return false;
    }
    *rank = v.nitems;
    int64_t total = 1;
    for (int i = 0; i < *rank; i++)
        total *= dims[i];
    if (total > MAX_TILE) {
        ig_error(g, a->loc, "a tile of %lld elements is too large (at most %d)", (long long)total, MAX_TILE);
        return false;
    }
    return true;
}

/* The shape of sl.f(x, *shape): one argument that is a tuple or an int, or
 * several ints (args[first..]). */
static bool varargs_shape(irgen *g, const ast_expr *call, int first, int *rank, int32_t dims[IR_MAX_RANK])
{
    int n = call->nargs - first;
    if (n < 1) {
        ig_error(g, call->loc, "a shape is missing");
        return false;
    }
    if (n == 1)
        return ig_shape_arg(g, call->args[first], ig_expr(g, call->args[first]), rank, dims);
    if (n > IR_MAX_RANK) {
        ig_error(g, call->args[first + IR_MAX_RANK]->loc, "a tile shape has 1 to %d dimensions, not %d",
                 IR_MAX_RANK, n);
        return false;
    }
    for (int i = 0; i < n; i++)
        if (!want_dim(g, call->args[first + i], ig_expr(g, call->args[first + i]), "a tile dimension",
                      &dims[i]))
            return false;
    *rank = n;
    return true;
}

/* An axis in -rank .. rank-1 (Triton's negative axes count from the end),
 * normalised to 0 .. rank-1. */
bool ig_axis_arg(irgen *g, const ast_expr *a, gval v, int rank, int *axis)
{
    int64_t x;
    if (!ig_const_int(g, a, v, "the axis", &x))
        return false;
    if (x < -rank || x >= rank) {
        ig_error(g, a->loc, "axis %lld is out of range for a tile of %d dimension%s (-%d .. %d)",
                 (long long)x, rank, rank == 1 ? "" : "s", rank, rank - 1);
        return false;
    }
    *axis = (int)(x < 0 ? x + rank : x);
    return true;
}

/* ---- the built-ins ----------------------------------------------------------- */

static const char *const shape_builtins[] = {
    "broadcast_to", "broadcast", "expand_dims", "reshape", "view", "trans", "permute",
};

bool ig_is_shape_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof shape_builtins / sizeof shape_builtins[0]; i++)
        if (!strcmp(shape_builtins[i], name))
            return true;
    return false;
}

static gval no_keywords(irgen *g, const ast_expr *call, const char *name, const char *allowed)
{
    for (int k = 0; k < call->nkwargs; k++)
        if (!allowed || strcmp(call->kwargs[k].name, allowed))
            return ig_error(g, call->kwargs[k].loc, "sl.%s has no parameter named '%s'", name,
                            call->kwargs[k].name);
    return (gval){.kind = GV_NONE};
}

static gval lower_broadcast_to(irgen *g, const ast_expr *call, ir_value v, int first)
{
    int rank;
    int32_t dims[IR_MAX_RANK];
    if (!varargs_shape(g, call, first, &rank, dims))
        return (gval){0};
    ir_type to = tile_of(ir_value_type(g->m, v), rank, dims);
    return gv_ir(ig_broadcast(g, call->loc, v, to));
}

static gval lower_expand_dims(irgen *g, const ast_expr *call, ir_value v, int first)
{
    if (call->nargs - first != 1)
        return ig_error(g, call->loc, "sl.expand_dims takes a tile and an axis (or a tuple of axes)");
    const ast_expr *a = call->args[first];
    gval ax = ig_expr(g, a);
    int n = ax.kind == GV_TUPLE ? ax.nitems : 1;
    ir_type t = ir_value_type(g->m, v);
    int rank = (t.kind == TY_TILE ? ir_tile_dims(t, NULL) : 0) + n;
    if (rank > IR_MAX_RANK)
        return ig_error(g, a->loc, "tiles have at most %d dimensions; this would make %d", IR_MAX_RANK, rank);
    /* Triton: axes refer to the result, negative ones from its end; they
     * are inserted in increasing order. */
    int axes[IR_MAX_RANK];
    for (int i = 0; i < n; i++) {
        gval item = ax.kind == GV_TUPLE ? ax.items[i] : ax;
        const ast_expr *ia = a->kind == AST_TUPLE && i < a->nargs ? a->args[i] : a;
        if (!ig_axis_arg(g, ia, item, rank, &axes[i]))
            return (gval){0};
        for (int j = 0; j < i; j++)
            if (axes[j] == axes[i])
                return ig_error(g, ia->loc, "sl.expand_dims got axis %d twice", axes[i]);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (axes[j] < axes[i]) {
                int s = axes[i];
                axes[i] = axes[j], axes[j] = s;
            }
    for (int i = 0; i < n && v != IR_NO_VALUE; i++)
        v = expand_at(g, a->loc, v, axes[i]);
    return gv_ir(v);
}

static gval lower_reshape(irgen *g, const ast_expr *call, const char *name, ir_value v, int first)
{
    char b1[64], b2[64];
    for (int k = 0; k < call->nkwargs; k++)
        if (!strcmp(call->kwargs[k].name, "can_reorder")) {
            gval c = ig_expr(g, call->kwargs[k].value);
            if (c.kind == GV_ERROR)
                return c;
            if (c.kind != GV_CONST || (c.c.kind != CONST_BOOL && c.c.kind != CONST_INT))
                return ig_error(g, call->kwargs[k].value->loc, "sl.%s: 'can_reorder' must be a "
                                "compile-time bool", name);
        }
    int rank;
    int32_t dims[IR_MAX_RANK];
    if (!varargs_shape(g, call, first, &rank, dims))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    int32_t len = t.kind == TY_TILE ? t.len : 1;
    int32_t want = 1;
    for (int i = 0; i < rank; i++)
        want *= dims[i];
    if (want != len)
        return ig_error(g, call->loc, "sl.%s cannot make a tile of shape %s from %s: the number of "
                        "elements differs", name, shape_text(rank, dims, b1), t.kind == TY_TILE ?
                        ig_shape_text(t, b2) : "a scalar");
    return gv_ir(ig_reshape(g, call->loc, v, rank, dims));
}

static gval lower_permute(irgen *g, const ast_expr *call, const char *name, ir_value v, int first)
{
    char b1[64];
    ir_type t = ir_value_type(g->m, v);
    int32_t d[IR_MAX_RANK], rd[IR_MAX_RANK];
    int rank = t.kind == TY_TILE ? ir_tile_dims(t, d) : 0;
    if (rank < 1)
        return ig_error(g, call->loc, "sl.%s needs a tile", name);
    int order[IR_MAX_RANK];
    int n = call->nargs - first;
    if (n == 0 && !strcmp(name, "trans")) {
        if (rank != 2 && rank != 1)
            return ig_error(g, call->loc, "sl.trans without dims needs a tile of 1 or 2 dimensions, "
                            "not %s", ig_shape_text(t, b1));
        order[0] = rank == 2 ? 1 : 0, order[1] = 0;
    } else {
        gval first_v = n == 1 ? ig_expr(g, call->args[first]) : (gval){0};
        bool tuple = n == 1 && first_v.kind == GV_TUPLE;
        int count = tuple ? first_v.nitems : n;
        if (count != rank)
            return ig_error(g, n ? call->args[first]->loc : call->loc, "sl.%s needs a permutation of "
                            "the %d dimensions of a tile of shape %s", name, rank, ig_shape_text(t, b1));
        bool seen[IR_MAX_RANK] = {false};
        for (int i = 0; i < count; i++) {
            const ast_expr *ia = tuple ? (call->args[first]->kind == AST_TUPLE ?
                                          call->args[first]->args[i] : call->args[first])
                                       : call->args[first + i];
            gval item = tuple ? first_v.items[i] : (n == 1 ? first_v : ig_expr(g, ia));
            int64_t x;
            if (!ig_const_int(g, ia, item, "a dimension of the permutation", &x))
                return (gval){0};
            if (x < 0 || x >= rank || seen[x])
                return ig_error(g, ia->loc, "sl.%s needs a permutation of 0 .. %d", name, rank - 1);
            seen[x] = true;
            order[i] = (int)x;
        }
    }
    bool identity = true;
    for (int i = 0; i < rank; i++) {
        rd[i] = d[order[i]];
        identity &= order[i] == i;
    }
    if (identity)
        return gv_ir(v);
    char text[16];
    size_t k = 0;
    for (int i = 0; i < rank; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%s%d", i ? "," : "", order[i]);
    ir_value r = ig_emit1(g, IR_TRANS, call->loc, &v, 1, tile_of(t, rank, rd));
    if (r != IR_NO_VALUE)
        ir_attr_set_str(g->m, g->m->values[r].def, "order", text);
    return gv_ir(r);
}

gval ig_transpose(irgen *g, src_loc loc, gval x)
{
    ir_value v;
    if (!want_shapeable(g, loc, x, "'.T'", false, &v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    int32_t d[IR_MAX_RANK], rd[IR_MAX_RANK];
    int rank = t.kind == TY_TILE ? ir_tile_dims(t, d) : 0;
    if (rank < 2)
        return gv_ir(v);
    for (int i = 0; i < rank; i++)
        rd[i] = d[rank - 1 - i];
    ir_value r = ig_emit1(g, IR_TRANS, loc, &v, 1, tile_of(t, rank, rd));
    if (r != IR_NO_VALUE)
        ir_attr_set_str(g->m, g->m->values[r].def, "order", rank == 2 ? "1,0" : "2,1,0");
    return gv_ir(r);
}

gval ig_shape_builtin(irgen *g, const ast_expr *call, const char *name, const gval *self)
{
    int first = self ? 0 : 1;
    if (!self && call->nargs < 1)
        return ig_error(g, call->loc, "sl.%s needs a tile", name);
    gval x = self ? *self : ig_expr(g, call->args[0]);
    src_loc xloc = self ? call->callee->lhs->loc : call->args[0]->loc;
    bool reshape = !strcmp(name, "reshape") || !strcmp(name, "view");
    gval ok = no_keywords(g, call, name, reshape ? "can_reorder" : NULL);
    if (ok.kind == GV_ERROR)
        return ok;
    if (!strcmp(name, "broadcast")) {
        if (self || call->nargs != 2)
            return ig_error(g, call->loc, "sl.broadcast takes two values");
        ir_value a, b;
        if (!want_shapeable(g, xloc, x, "sl.broadcast", true, &a) ||
            !want_shapeable(g, call->args[1]->loc, ig_expr(g, call->args[1]), "sl.broadcast", true, &b) ||
            !ig_broadcast_pair(g, call->loc, &a, &b, "sl.broadcast"))
            return (gval){0};
        gval *items = arena_alloc(g->ar, 2 * sizeof(gval));
        items[0] = gv_ir(a), items[1] = gv_ir(b);
        return (gval){.kind = GV_TUPLE, .items = items, .nitems = 2};
    }
    char who[32];
    snprintf(who, sizeof who, "sl.%s", name);
    ir_value v;
    bool ptr_ok = !strcmp(name, "broadcast_to") || !strcmp(name, "expand_dims");
    if (!want_shapeable(g, xloc, x, who, ptr_ok, &v))
        return (gval){0};
    if (!strcmp(name, "broadcast_to"))
        return lower_broadcast_to(g, call, v, first);
    if (!strcmp(name, "expand_dims"))
        return lower_expand_dims(g, call, v, first);
    if (reshape)
        return lower_reshape(g, call, name, v, first);
    return lower_permute(g, call, name, v, first);
}
