/* irgen_join.c - Triton's sl.join, sl.split, sl.interleave and sl.cat
 * (docs/language.md, "Join, split, interleave and cat"). join, interleave and cat
 * are made of the shape ops that exist: both operands, flattened, get a
 * dim of 1 (sw.reshape) repeated to 2 (sw.broadcast), sw.select takes a's
 * copy where the new dim's index is 0 and b's where it is 1 (an sw.arange
 * mask), and an sw.reshape gives the result its shape. split is the two
 * sw.split ops of its halves. Requires a live irgen; guarantees well-typed
 * ops, or a compile error at the argument at fault (at the call for shapes
 * that do not broadcast or a result too large). */
#include "irgen_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_TILE = 1 << 20, MAX_PARAMS = 4 };

static const char *const join_builtins[] = {"join", "split", "interleave", "cat"};

bool ig_is_join_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof join_builtins / sizeof join_builtins[0]; i++)
        if (!strcmp(join_builtins[i], name))
            return true;
    return false;
}

/* Binds the call's arguments to params, positional first, then keywords by
 * name (a method's receiver is params[0], given apart); out[i] is NULL
 * when param i was not given. The first nrequired params must be given. */
static bool bind(irgen *g, const ast_expr *call, const char *name, bool method, const char *const *params,
                 int nparams, int nrequired, const ast_expr **out)
{
    int skip = method ? 1 : 0; /* a method's receiver is params[0] */
    for (int i = 0; i < nparams; i++)
        out[i] = NULL;
    if (call->nargs > nparams - skip) {
        if (method) /* x.split(), the one method of the four */
            ig_error(g, call->args[nparams - skip]->loc, "x.%s() takes no arguments", name);
        else
            ig_error(g, call->args[nparams - skip]->loc, "sl.%s takes at most %d argument%s", name,
                     nparams, nparams == 1 ? "" : "s");
        return false;
    }
    for (int i = 0; i < call->nargs; i++)
        out[skip + i] = call->args[i];
    for (int k = 0; k < call->nkwargs; k++) {
        int p = skip;
        while (p < nparams && strcmp(params[p], call->kwargs[k].name))
            p++;
        if (p == nparams) {
            ig_error(g, call->kwargs[k].loc, "sl.%s has no parameter named '%s'", name, call->kwargs[k].name);
            return false;
        }
        if (out[p]) {
            ig_error(g, call->kwargs[k].loc, "sl.%s got two values for '%s'", name, params[p]);
            return false;
        }
        out[p] = call->kwargs[k].value;
    }
    for (int i = skip; i < nrequired; i++)
        if (!out[i]) {
            ig_error(g, call->loc, "sl.%s is missing its argument '%s'", name, params[i]);
            return false;
        }
    return true;
}

/* A value join, interleave, cat and split take: a tile or scalar with a
 * dtype, of numbers or pointers. A compile-time constant has none (Triton's
 * take tensors too). */
static bool want_value(irgen *g, src_loc loc, gval x, const char *name, ir_value *out)
{
    char b[64];
    if (x.kind == GV_ERROR)
        return false;
    if (x.kind == GV_CONST && x.c.kind != CONST_DTYPE) {
        ig_error(g, loc, "sl.%s takes tiles or scalars with a dtype, not a compile-time constant (as in "
                 "Triton): make a tile of it with sl.full(shape, value, dtype)", name);
        return false;
    }
    if (x.kind != GV_IR) {
        ig_error(g, loc, "sl.%s takes tiles or scalars", name);
        return false;
    }
    ir_type t = ir_value_type(g->m, x.v);
    if (t.kind != TY_TILE && t.kind != TY_SCALAR && t.kind != TY_PTR) {
        ig_error(g, loc, "sl.%s takes tiles or scalars, not a %s", name, ig_type_name(t, b));
        return false;
    }
    *out = x.v;
    return true;
}

/* "float32", or "pointer to float32". */
static const char *elem_text(ir_type t, char buf[64]) { return ig_type_name(ir_type_elem(t), buf); }

/* a and b hold one element type: Triton's join and cat do not promote. */
static bool same_elem(irgen *g, src_loc loc, const char *name, ir_value a, ir_value b)
{
    char b1[64], b2[64];
    ir_type ta = ir_value_type(g->m, a), tb = ir_value_type(g->m, b);
    if (ir_type_eq(ir_type_elem(ta), ir_type_elem(tb)))
        return true;
    ig_error(g, loc, "sl.%s needs two values of one dtype, not %s and %s (Triton does not promote "
             "them: convert one with .to())", name, elem_text(ta, b1), elem_text(tb, b2));
    return false;
}

static ir_type tile_of(ir_type elem_of, int rank, const int32_t *dims)
{
    return ir_type_tile_shape((ir_dtype)elem_of.dtype, ir_type_is_ptrlike(elem_of), rank, dims);
}

/* v with the given dims, stopping at an earlier error. */
static ir_value reshape(irgen *g, src_loc loc, ir_value v, int rank, const int32_t *dims)
{
    return v == IR_NO_VALUE ? v : ig_reshape(g, loc, v, rank, dims);
}

static ir_value broadcast(irgen *g, src_loc loc, ir_value v, ir_type to)
{
    return v == IR_NO_VALUE ? v : ig_broadcast(g, loc, v, to);
}

/* The i1 tile of dims (2 at `axis`) that is true where the index along
 * axis is 0. */
static ir_value first_mask(irgen *g, src_loc loc, int axis, const int32_t *dims)
{
    ir_value k = ig_emit1(g, IR_ARANGE, loc, NULL, 0, ir_type_tile(DT_I32, 2));
    if (k == IR_NO_VALUE)
        return k;
    ir_attr_set_int(g->m, g->m->values[k].def, "start", ir_type_scalar(DT_I32), 0);
    ir_attr_set_int(g->m, g->m->values[k].def, "end", ir_type_scalar(DT_I32), 2);
    ir_value ops[2] = {k, ig_materialize(g, loc, (const_value){.kind = CONST_INT, .i = 0}, ir_type_tile(DT_I32, 2))};
    ir_value first = ig_emit1(g, IR_CMP, loc, ops, 2, ir_type_tile(DT_I1, 2));
    if (first == IR_NO_VALUE)
        return first;
    ir_attr_set_str(g->m, g->m->values[first].def, "predicate", "eq");
    int32_t at[2] = {1, 1};
    at[axis] = 2;
    return broadcast(g, loc, reshape(g, loc, first, 2, at), ir_type_tile_shape(DT_I1, false, 2, dims));
}

/* The 2-D tile of a and b (1-D tiles of M elements of one element type)
 * along a new dim of 2 at `axis`: (M, 2) for axis 1, whose row-major
 * elements are a[0], b[0], a[1], b[1], ..., or (2, M) for axis 0, a then
 * b. */
static ir_value stack2(irgen *g, src_loc loc, ir_value a, ir_value b, int axis)
{
    if (a == IR_NO_VALUE || b == IR_NO_VALUE)
        return IR_NO_VALUE;
    ir_type t = ir_value_type(g->m, a);
    int32_t one[2], two[2];
    one[axis] = 1, one[1 - axis] = t.len;
    two[axis] = 2, two[1 - axis] = t.len;
    ir_type to = tile_of(t, 2, two);
    ir_value ops[3] = {first_mask(g, loc, axis, two), broadcast(g, loc, reshape(g, loc, a, 2, one), to),
                       broadcast(g, loc, reshape(g, loc, b, 2, one), to)};
    return ig_emit1(g, IR_SELECT, loc, ops, 3, to);
}

/* sl.join(a, b) and sl.interleave(a, b): a and b broadcast to one shape S
 * (Triton's rule), then join gives S + (2,) (a scalar pair: (2,)) and
 * interleave the same elements as S[:-1] + (2 * S[-1],). Both are the
 * (M, 2) stack of the flattened operands, reshaped. */
static gval lower_join(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args)
{
    char b1[64];
    bool interleave = !strcmp(name, "interleave");
    ir_value a, b;
    if (!want_value(g, args[0]->loc, ig_expr(g, args[0]), name, &a) ||
        !want_value(g, args[1]->loc, ig_expr(g, args[1]), name, &b) || !same_elem(g, args[1]->loc, name, a, b))
        return (gval){0};
    char who[32];
    snprintf(who, sizeof who, "sl.%s", name);
    if (!ig_broadcast_pair(g, call->loc, &a, &b, who))
        return (gval){0};
    ir_type t = ir_value_type(g->m, a);
    int32_t d[IR_MAX_RANK + 1];
    int rank = t.kind == TY_TILE ? ig_dims(t, d) : 0;
    int32_t m = t.kind == TY_TILE ? t.len : 1;
    if (2 * (int64_t)m > MAX_TILE)
        return ig_error(g, call->loc, "sl.%s of two tiles of %d elements would make a tile of %lld (at "
                        "most %d)", name, (int)m, 2 * (long long)m, MAX_TILE);
    int rrank = rank;
    if (rank == 0)
        d[0] = 2, rrank = 1;
    else if (interleave)
        d[rank - 1] *= 2;
    else if (rank == IR_MAX_RANK)
        return ig_error(g, call->loc, "sl.join of tiles of shape %s would make a tile of %d dimensions; "
                        "tiles have at most %d", ig_shape_text(t, b1), rank + 1, IR_MAX_RANK);
    else
        d[rrank++] = 2;
    ir_value fa = reshape(g, call->loc, a, 1, &m), fb = reshape(g, call->loc, b, 1, &m);
    return gv_ir(reshape(g, call->loc, stack2(g, call->loc, fa, fb, 1), rrank, d));
}

/* A compile-time bool (or 0/1), as Triton's can_reorder. */
static bool want_flag(irgen *g, const ast_expr *e, const char *name, const char *param)
{
    gval c = ig_expr(g, e);
    if (c.kind == GV_ERROR)
        return false;
    if (c.kind != GV_CONST || (c.c.kind != CONST_BOOL && c.c.kind != CONST_INT)) {
        ig_error(g, e->loc, "sl.%s: '%s' must be a compile-time bool", name, param);
        return false;
    }
    return true;
}

/* sl.cat(input, other, can_reorder=False, dim=0): two 1-D tiles of one
 * length and dtype, input's elements then other's. Released Triton asks
 * for can_reorder=True and leaves the order to its layout; Triton since
 * its cat became deterministic gives this order and ignores the flag, so
 * Swage takes either value and always gives this order. */
static gval lower_cat(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    char b1[64], b2[64];
    ir_value v[2];
    for (int i = 0; i < 2; i++) {
        if (!want_value(g, args[i]->loc, ig_expr(g, args[i]), "cat", &v[i]))
            return (gval){0};
        ir_type t = ir_value_type(g->m, v[i]);
        if (t.kind != TY_TILE || ig_dims(t, NULL) != 1)
            return ig_error(g, args[i]->loc, "sl.cat takes two 1-D tiles (as Triton's cat), not a %s",
                            ig_type_name(t, b1));
    }
    if (!same_elem(g, args[1]->loc, "cat", v[0], v[1]))
        return (gval){0};
    ir_type ta = ir_value_type(g->m, v[0]), tb = ir_value_type(g->m, v[1]);
    if (ta.len != tb.len)
        return ig_error(g, args[1]->loc, "sl.cat needs two tiles of one length, not %s and %s: the "
                        "result's length, their sum, must be a power of two", ig_shape_text(ta, b1),
                        ig_shape_text(tb, b2));
    if (args[2] && !want_flag(g, args[2], "cat", "can_reorder"))
        return (gval){0};
    int axis; /* Triton's newer dim=; a 1-D tile has one */
    if (args[3] && !ig_axis_arg(g, args[3], ig_expr(g, args[3]), 1, &axis))
        return (gval){0};
    (void)axis;
    int32_t n = 2 * ta.len;
    if (n > MAX_TILE)
        return ig_error(g, call->loc, "sl.cat of two tiles of %d elements would make a tile of %d (at "
                        "most %d)", (int)ta.len, (int)n, MAX_TILE);
    return gv_ir(reshape(g, call->loc, stack2(g, call->loc, v[0], v[1], 0), 1, &n));
}

/* sl.split(a) / a.split(): the two halves of a tile whose last dim is 2,
 * as a tuple; a tile of 2 gives two scalars. */
static gval lower_split(irgen *g, src_loc loc, gval x)
{
    char b1[64];
    ir_value v;
    if (!want_value(g, loc, x, "split", &v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    int32_t d[IR_MAX_RANK];
    int rank = t.kind == TY_TILE ? ig_dims(t, d) : 0;
    if (rank == 0)
        return ig_error(g, loc, "sl.split needs a tile whose last dimension is 2, not a %s", ig_type_name(t, b1));
    if (d[rank - 1] != 2)
        return ig_error(g, loc, "sl.split needs a tile whose last dimension is 2, not one of shape %s",
                        ig_shape_text(t, b1));
    if (rank == 1 && t.ptr_elem)
        return ig_error(g, loc, "sl.split of a tile of 2 pointers would give two pointers, which Swage "
                        "does not take out of a tile: split the offsets instead");
    ir_type half = rank == 1 ? ir_type_elem(t) : tile_of(t, rank - 1, d);
    gval *items = arena_alloc(g->ar, 2 * sizeof(gval));
    for (int k = 0; k < 2; k++) {
        ir_value r = ig_emit1(g, IR_SPLIT, loc, &v, 1, half);
        if (r == IR_NO_VALUE)
            return (gval){0};
        ir_attr_set_int(g->m, g->m->values[r].def, "index", ir_type_scalar(DT_I32), k);
        items[k] = gv_ir(r);
    }
    return (gval){.kind = GV_TUPLE, .items = items, .nitems = 2};
}

/* self: the receiver of x.split() (split is the one tensor method of the
 * four, as in Triton). */
gval ig_join_builtin(irgen *g, const ast_expr *call, const char *name, const gval *self)
{
    static const char *const two[] = {"a", "b"}, *const one[] = {"a"};
    static const char *const cat[] = {"input", "other", "can_reorder", "dim"};
    const ast_expr *args[MAX_PARAMS];
    if (!strcmp(name, "split")) {
        if (!bind(g, call, name, self != NULL, one, 1, 1, args))
            return (gval){0};
        return self ? lower_split(g, call->callee->lhs->loc, *self) : lower_split(g, args[0]->loc, ig_expr(g, args[0]));
    }
    if (!strcmp(name, "cat")) {
        if (!bind(g, call, name, false, cat, 4, 2, args))
            return (gval){0};
        return lower_cat(g, call, args);
    }
    if (!bind(g, call, name, false, two, 2, 2, args))
        return (gval){0};
    return lower_join(g, call, name, args);
}
