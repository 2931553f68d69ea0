/* irgen_builtins.c - the sl.* built-ins and methods (x.to(dtype)): argument
 * binding by position or keyword, checks, and the ops they lower to.
 * Requires a live irgen; guarantees each built-in either emits well-typed
 * ops or reports an error at the offending argument. */
#include "irgen_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { MAX_ARGS = 8 };

typedef struct builtin builtin;
typedef gval (*builtin_fn)(irgen *g, const ast_expr *call, const builtin *b,
                           const ast_expr *const *args);

struct builtin {
    const char *name;
    builtin_fn lower;
    int nrequired, nmax;
    const char *params[MAX_ARGS];
    ir_op_kind op; /* for the generic elementwise math and reductions */
    const char *kind;
    int npositional; /* the most positional arguments, when fewer than nmax (0: nmax) */
};

/* Matches positional and keyword arguments to b->params. */
static bool bind_args(irgen *g, const ast_expr *call, const builtin *b, const ast_expr **out)
{
    for (int i = 0; i < MAX_ARGS; i++)
        out[i] = NULL;
    if (b->npositional && call->nargs > b->npositional) {
        ig_error(g, call->args[b->npositional]->loc, "sl.%s takes at most %d positional "
                 "argument%s; give '%s' by keyword", b->name, b->npositional,
                 b->npositional == 1 ? "" : "s", b->params[b->npositional]);
        return false;
    }
    if (call->nargs > b->nmax) {
        ig_error(g, call->args[b->nmax]->loc, "sl.%s takes at most %d argument%s, got %d", b->name,
                 b->nmax, b->nmax == 1 ? "" : "s", call->nargs + call->nkwargs);
        return false;
    }
    for (int i = 0; i < call->nargs; i++)
        out[i] = call->args[i];
    for (int k = 0; k < call->nkwargs; k++) {
        const ast_keyword *kw = &call->kwargs[k];
        int slot = -1;
        for (int i = 0; i < b->nmax; i++)
            if (b->params[i] && !strcmp(b->params[i], kw->name))
                slot = i;
        if (slot < 0) {
            char params[256] = "";
            for (int i = 0; i < b->nmax && b->params[i]; i++)
                snprintf(params + strlen(params), sizeof params - strlen(params), "%s%s",
                         i ? ", " : "", b->params[i]);
            const char *near = closest_name(kw->name, b->params, (size_t)b->nmax);
            if (near)
                ig_error(g, kw->loc, "sl.%s has no parameter named '%s'; did you mean '%s'? "
                                     "(its parameters: %s)", b->name, kw->name, near, params);
            else
                ig_error(g, kw->loc, "sl.%s has no parameter named '%s' (its parameters: %s)",
                         b->name, kw->name, params);
            return false;
        }
        if (out[slot]) {
            ig_error(g, kw->loc, "sl.%s got '%s' twice", b->name, kw->name);
            return false;
        }
        out[slot] = kw->value;
    }
    for (int i = 0; i < b->nrequired; i++)
        if (!out[i]) {
            ig_error(g, call->loc, "sl.%s is missing its argument '%s'", b->name, b->params[i]);
            return false;
        }
    return true;
}

static gval arg_value(irgen *g, const ast_expr *a)
{
    return a ? ig_expr(g, a) : (gval){.kind = GV_NONE};
}

static bool want_dtype(irgen *g, const ast_expr *a, gval v, ir_dtype *out)
{
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind != GV_CONST || v.c.kind != CONST_DTYPE) {
        ig_error(g, a->loc, "expected a dtype such as sl.float32");
        return false;
    }
    *out = (ir_dtype)v.c.i;
    return true;
}

static bool want_ir(irgen *g, const ast_expr *a, gval v, ir_value *out)
{
    if (v.kind == GV_ERROR)
        return false;
    *out = ig_to_ir(g, a->loc, v, ir_type_void());
    return *out != IR_NO_VALUE;
}

static bool want_axis(irgen *g, const ast_expr *a, int64_t *axis)
{
    if (!ig_const_int(g, a, ig_expr(g, a), "the axis", axis))
        return false;
    if (*axis < 0 || *axis > 2) {
        ig_error(g, a->loc, "the axis must be 0, 1 or 2, not %lld", (long long)*axis);
        return false;
    }
    return true;
}

/* ---- grid --------------------------------------------------------------- */

static gval lower_grid_query(irgen *g, const ast_expr *call, const builtin *b,
                             const ast_expr *const *args)
{
    int64_t axis;
    if (!want_axis(g, args[0], &axis) || !ig_note_grid_query(g, call->loc, b->name))
        return (gval){0};
    ir_value r = ig_emit1(g, b->op, call->loc, NULL, 0, ir_type_scalar(DT_I32));
    if (r != IR_NO_VALUE)
        ir_attr_set_int(g->m, g->m->values[r].def, "axis", ir_type_scalar(DT_I32), axis);
    return gv_ir(r);
}

enum { MAX_TILE = 1 << 20 };

static bool check_tile_len(irgen *g, src_loc loc, int64_t n, const char *what)
{
    if (n <= 0 || n > MAX_TILE || (n & (n - 1))) {
        ig_error(g, loc, "%s must be a power of two between 1 and %d, not %lld", what, MAX_TILE,
                 (long long)n);
        return false;
    }
    return true;
}

static gval lower_arange(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    int64_t start, end;
    if (!ig_const_int(g, args[0], ig_expr(g, args[0]), "the start of sl.arange", &start) ||
        !ig_const_int(g, args[1], ig_expr(g, args[1]), "the end of sl.arange", &end))
        return (gval){0};
    if (end <= start)
        return ig_error(g, call->loc, "sl.arange(%lld, %lld) is empty: end must exceed start",
                        (long long)start, (long long)end);
    int64_t len;
    if (!checked_sub(end, start, &len))
        return ig_error(g, call->loc, "the length of sl.arange(%lld, %lld) overflows int64; it must "
                                      "be a power of two between 1 and %d", (long long)start,
                        (long long)end, MAX_TILE);
    if (!check_tile_len(g, call->loc, len, "the length of sl.arange (end - start)"))
        return (gval){0};
    if (start < INT32_MIN || end - 1 > INT32_MAX)
        return ig_error(g, call->loc, "sl.arange bounds must fit int32");
    ir_value r = ig_emit1(g, IR_ARANGE, call->loc, NULL, 0, ir_type_tile(DT_I32, (int32_t)(end - start)));
    if (r != IR_NO_VALUE) {
        ir_attr_set_int(g->m, g->m->values[r].def, "start", ir_type_scalar(DT_I32), start);
        ir_attr_set_int(g->m, g->m->values[r].def, "end", ir_type_scalar(DT_I32), end);
    }
    return gv_ir(r);
}

/* ---- memory ------------------------------------------------------------- */

bool ig_ptr_and_mask(irgen *g, const char *who, const ast_expr *pa, gval p, const ast_expr *ma, gval m,
                     ir_value *ptr, ir_value *mask)
{
    char buf[64];
    if (p.kind == GV_ERROR)
        return false;
    if (p.kind != GV_IR || !ir_type_is_ptrlike(ig_type(g, p))) {
        if (p.kind == GV_IR && ig_type(g, p).kind == TY_SEGMENT &&
            (!strcmp(who, "load") || !strcmp(who, "store")))
            ig_error(g, pa->loc, "sl.%s needs a pointer, not a segment view; use sl.%s_segment", who, who);
        else if (p.kind == GV_IR)
            ig_error(g, pa->loc, "sl.%s needs a pointer, not %s", who, ig_type_name(ig_type(g, p), buf));
        else
            ig_error(g, pa->loc, "sl.%s needs a pointer", who);
        return false;
    }
    *ptr = p.v;
    *mask = IR_NO_VALUE;
    if (m.kind == GV_ERROR)
        return false;
    if (m.kind == GV_NONE || (m.kind == GV_CONST && m.c.kind == CONST_BOOL && m.c.i))
        return true;
    ir_value mv = ig_to_ir(g, ma->loc, m, ir_type_void());
    if (mv == IR_NO_VALUE)
        return false;
    ir_type mt = ir_value_type(g->m, mv);
    if (ig_is_segment_type(mt)) {
        ig_error(g, ma->loc, "the mask of sl.%s cannot be a segment value: sl.load_segment and "
                             "sl.store_segment cover exactly the segment's elements", who);
        return false;
    }
    if (ir_type_is_ptrlike(mt) || mt.dtype != DT_I1) {
        ig_error(g, ma->loc, "the mask of sl.%s must be int1 (bool), not %s", who,
                 ig_type_name(mt, buf));
        return false;
    }
    if (!ig_broadcast_pair(g, ma->loc, ptr, &mv, "mask"))
        return false;
    *mask = mv;
    return true;
}

/* Evaluates pointer and mask and brings them to one shape; returns false
 * after reporting. */
static bool ptr_and_mask(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *pa,
                         const ast_expr *ma, ir_value *ptr, ir_value *mask)
{
    gval p = ig_expr(g, pa);
    if (p.kind == GV_ERROR)
        return false;
    bool is_ptr = p.kind == GV_IR && ir_type_is_ptrlike(ig_type(g, p));
    gval m = is_ptr ? arg_value(g, ma) : (gval){.kind = GV_NONE};
    return ig_ptr_and_mask(g, b->name, pa, p, ma, m, ptr, mask);
}

/* A string keyword of Triton's that changes how memory is cached, not what
 * is read or written: accepted when it names one of `allowed` (a list
 * ending in NULL), an error at the argument otherwise. Swage's executors
 * use none of them. */
static bool check_string_hint(irgen *g, const builtin *b, const ast_expr *a, const char *param,
                              const char *const *allowed)
{
    if (!a)
        return true;
    char list[160] = "";
    for (const char *const *p = allowed; *p; p++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", p == allowed ? "" : ", ", *p);
    if (a->kind == AST_NONE)
        return true;
    if (a->kind != AST_STRING) {
        ig_error(g, a->loc, "%s of sl.%s must be a string literal: one of %s", param, b->name, list);
        return false;
    }
    for (const char *const *p = allowed; *p; p++)
        if (!strcmp(a->name ? a->name : "", *p))
            return true;
    ig_error(g, a->loc, "%s '%.40s' is not supported by sl.%s; it must be one of %s (as in Triton)",
             param, a->name ? a->name : "", b->name, list);
    return false;
}

static const char *const load_cache_modifiers[] = {"", ".ca", ".cg", ".cv", NULL};
static const char *const store_cache_modifiers[] = {"", ".wb", ".cg", ".cs", ".wt", NULL};
static const char *const eviction_policies[] = {"", "evict_first", "evict_last", NULL};

static gval lower_load(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char b1[64], b2[64];
    ir_value ptr, mask;
    if (!check_string_hint(g, b, args[3], "cache_modifier", load_cache_modifiers) ||
        !check_string_hint(g, b, args[4], "eviction_policy", eviction_policies))
        return (gval){0};
    if (!ptr_and_mask(g, call, b, args[0], args[1], &ptr, &mask))
        return (gval){0};
    ir_type pt = ir_value_type(g->m, ptr);
    ir_type rt = ir_type_like(pt, ir_type_scalar((ir_dtype)pt.dtype));
    if (mask == IR_NO_VALUE) {
        gval o = arg_value(g, args[2]);
        if (o.kind == GV_ERROR)
            return o;
        return gv_ir(ig_emit1(g, IR_LOAD, call->loc, &ptr, 1, rt));
    }
    gval o = arg_value(g, args[2]);
    if (o.kind == GV_ERROR)
        return o;
    ir_value other;
    if (o.kind == GV_NONE) {
        other = ig_materialize(g, call->loc, (const_value){.kind = CONST_INT}, rt);
    } else if (o.kind == GV_CONST) {
        const_value c = o.c;
        if (c.kind == CONST_FLOAT && !ir_dtype_is_float((ir_dtype)rt.dtype))
            return ig_error(g, args[2]->loc, "'other' is a float but the pointer loads %s",
                            ir_dtypes[rt.dtype].py);
        other = ig_materialize(g, args[2]->loc, c, rt);
    } else {
        other = ig_to_ir(g, args[2]->loc, o, ir_type_void());
        if (other == IR_NO_VALUE)
            return (gval){0};
        ir_type ot = ir_value_type(g->m, other);
        if (ot.dtype != rt.dtype || ir_type_is_ptrlike(ot))
            return ig_error(g, args[2]->loc, "'other' has type %s but the load gives %s", ig_type_name(ot, b1),
                            ig_type_name(ir_type_elem(rt), b2));
        other = ig_broadcast(g, args[2]->loc, other, rt);
    }
    if (other == IR_NO_VALUE)
        return (gval){0};
    ir_value ops[3] = {ptr, mask, other};
    return gv_ir(ig_emit1(g, IR_LOAD, call->loc, ops, 3, rt));
}

static gval lower_store(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char b1[64], b2[64];
    ir_value ptr, mask;
    if (!check_string_hint(g, b, args[3], "cache_modifier", store_cache_modifiers) ||
        !check_string_hint(g, b, args[4], "eviction_policy", eviction_policies))
        return (gval){0};
    if (!ptr_and_mask(g, call, b, args[0], args[2], &ptr, &mask))
        return (gval){0};
    gval v = ig_expr(g, args[1]);
    if (v.kind == GV_ERROR)
        return v;
    ir_type pt = ir_value_type(g->m, ptr);
    ir_type et = ir_type_scalar((ir_dtype)pt.dtype);
    ir_value val;
    if (v.kind == GV_CONST) {
        /* a float literal through an integer pointer converts as .to() does (Triton) */
        if (v.c.kind == CONST_FLOAT && !ir_dtype_is_float(et.dtype))
            val = ig_cast(g, args[1]->loc, ig_materialize(g, args[1]->loc, v.c, ir_type_scalar(DT_F32)),
                          et.dtype);
        else
            val = ig_materialize(g, args[1]->loc, v.c, et);
    } else {
        val = ig_to_ir(g, args[1]->loc, v, ir_type_void());
        if (val == IR_NO_VALUE)
            return (gval){0};
        ir_type vt = ir_value_type(g->m, val);
        if (ir_type_is_ptrlike(vt))
            return ig_error(g, args[1]->loc, "cannot store pointers");
        if (ig_is_segment_type(vt))
            return ig_error(g, args[1]->loc, "sl.store cannot store a %s; use "
                                             "sl.store_segment(pointer, segment, value)",
                            ig_type_name(vt, b1));
        if (vt.kind == TY_TILE && pt.kind != TY_TILE)
            return ig_error(g, args[1]->loc, "cannot store a %s through a single pointer; "
                                             "offset the pointer by a tile first",
                            ig_type_name(vt, b1));
        ir_type common;
        if (vt.kind == TY_TILE && !ir_type_eq(ir_type_like(vt, ir_type_elem(pt)), pt) &&
            (!ig_common_shape(g, args[1]->loc, vt, pt, &common, "sl.store") || common.len != pt.len)) {
            if (ig_failed(g))
                return (gval){0};
            return ig_error(g, args[1]->loc, "shape mismatch: storing a %s through a %s",
                            ig_type_name(vt, b1), ig_type_name(pt, b2));
        }
        /* values of another dtype convert to the pointee's as .to() does (Triton's store) */
        if (vt.dtype != et.dtype)
            val = ig_cast(g, args[1]->loc, val, et.dtype);
    }
    if (val == IR_NO_VALUE)
        return (gval){0};
    val = ig_broadcast(g, args[1]->loc, val, pt);
    if (val == IR_NO_VALUE)
        return (gval){0};
    ir_value ops[3] = {ptr, val, mask};
    ig_emit(g, IR_STORE, call->loc, ops, mask == IR_NO_VALUE ? 2 : 3, NULL, 0);
    return (gval){.kind = GV_NONE};
}

/* ---- elementwise -------------------------------------------------------- */

static gval lower_where(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char buf[64];
    gval c = ig_expr(g, args[0]);
    gval x = ig_expr(g, args[1]);
    gval y = ig_expr(g, args[2]);
    ir_value cv, xv, yv;
    if (!want_ir(g, args[0], c, &cv))
        return (gval){0};
    ir_type ct = ir_value_type(g->m, cv);
    if (ir_type_is_ptrlike(ct) || ct.kind == TY_SEGMENT)
        return ig_error(g, args[0]->loc, "the condition of sl.where must be int1 (bool), not %s",
                        ig_type_name(ct, buf));
    if (ct.dtype != DT_I1) {
        /* As Triton converts it: a number is true when not 0. */
        cv = ig_cast(g, args[0]->loc, cv, DT_I1);
        if (cv == IR_NO_VALUE)
            return (gval){0};
        ct = ir_value_type(g->m, cv);
    }
    if (!ig_unify(g, call->loc, x, y, &xv, &yv, "sl.where"))
        return (gval){0};
    ir_type t = ir_value_type(g->m, xv);
    if (ct.kind == TY_TILE || ct.kind == TY_SEGVAL) {
        ir_type common = ct;
        if (ct.kind == TY_TILE && !ig_common_shape(g, call->loc, ct, t, &common, "sl.where"))
            return (gval){0};
        xv = ig_broadcast(g, call->loc, xv, common);
        yv = ig_broadcast(g, call->loc, yv, common);
        if (xv == IR_NO_VALUE || yv == IR_NO_VALUE)
            return (gval){0};
        t = ir_value_type(g->m, xv);
    }
    cv = ig_broadcast(g, args[0]->loc, cv, t);
    if (cv == IR_NO_VALUE)
        return (gval){0};
    ir_value ops[3] = {cv, xv, yv};
    return gv_ir(ig_emit1(g, IR_SELECT, call->loc, ops, 3, t));
}

static gval lower_binary_math(irgen *g, const ast_expr *call, const builtin *b,
                              const ast_expr *const *args)
{
    gval x = ig_expr(g, args[0]), y = ig_expr(g, args[1]);
    ir_value xv, yv;
    if (!ig_unify(g, call->loc, x, y, &xv, &yv, b->name))
        return (gval){0};
    ir_value ops[2] = {xv, yv};
    return gv_ir(ig_emit1(g, b->op, call->loc, ops, 2, ir_value_type(g->m, xv)));
}

static gval lower_unary_math(irgen *g, const ast_expr *call, const builtin *b,
                             const ast_expr *const *args)
{
    char buf[64];
    bool exact = g->exact_exp;
    g->exact_exp = false;
    gval x = ig_expr(g, args[0]);
    ir_value v;
    if (x.kind == GV_CONST && x.c.kind != CONST_FLOAT && x.c.kind != CONST_DTYPE &&
        (ir_ops[b->op].flags & F_FLOAT))
        x = gv_float((double)x.c.i);
    if (!want_ir(g, args[0], x, &v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    if (ir_type_is_ptrlike(t))
        return ig_error(g, args[0]->loc, "sl.%s cannot be applied to a %s", b->name, ig_type_name(t, buf));
    if ((ir_ops[b->op].flags & F_FLOAT) && !ir_dtype_is_float((ir_dtype)t.dtype))
        v = ig_cast(g, call->loc, v, DT_F32), t = ir_value_type(g->m, v);
    if (b->op == IR_ABS && (t.dtype == DT_I1 || ir_dtype_is_unsigned((ir_dtype)t.dtype))) /* already non-negative */
        return gv_ir(v);
    ir_value r = ig_emit1(g, b->op, call->loc, &v, 1, t);
    /* sl.exp is Triton's tl.exp: approximate on the GPU (ex2.approx.f32 of
     * x * log2(e)); libdevice's exp is the accurate one. */
    if (b->op == IR_EXP && r != IR_NO_VALUE && g->m->values[r].def->kind == IR_EXP && !exact)
        ir_attr_set_bool(g->m, g->m->values[r].def, "approx", true);
    return gv_ir(r);
}

/* A compile-time bool argument (absent: dflt). */
static bool want_bool(irgen *g, const builtin *b, const char *param, const ast_expr *a, bool dflt,
                      bool *out)
{
    *out = dflt;
    if (!a)
        return true;
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind != GV_CONST || (v.c.kind != CONST_BOOL && v.c.kind != CONST_INT)) {
        ig_error(g, a->loc, "sl.%s: '%s' must be a compile-time bool (True or False)", b->name, param);
        return false;
    }
    *out = v.c.i != 0;
    return true;
}

static gval lower_reduce(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char buf[64];
    gval x = ig_expr(g, args[0]);
    if (x.kind == GV_ERROR)
        return x;
    bool keep_dims;
    if (!want_bool(g, b, "keep_dims", args[2], false, &keep_dims))
        return (gval){0};
    if (x.kind != GV_IR || (ig_type(g, x).kind != TY_TILE && ig_type(g, x).kind != TY_SEGVAL)) {
        if (x.kind == GV_IR && ig_type(g, x).kind == TY_SEGMENT)
            return ig_error(g, args[0]->loc, "sl.%s needs a tile or a segment value, not a segment "
                                             "view; load it first with sl.load_segment", b->name);
        if (x.kind == GV_IR)
            return ig_error(g, args[0]->loc, "sl.%s needs a tile, not %s (it reduces a tile or a "
                                             "segment value to a scalar)", b->name,
                            ig_type_name(ig_type(g, x), buf));
        return ig_error(g, args[0]->loc, "sl.%s needs a tile or a segment value", b->name);
    }
    ir_value v = x.v;
    ir_type t = ir_value_type(g->m, v);
    int32_t dims[IR_MAX_RANK];
    int rank = t.kind == TY_TILE ? ig_dims(t, dims) : 1, axis = -1;
    /* axis=None (or absent) reduces every element; an axis of a 1-D tile
     * too. Triton's axes: 0 .. rank-1, or negative from the end. */
    if (args[1]) {
        gval a = ig_expr(g, args[1]);
        if (a.kind == GV_ERROR)
            return a;
        if (a.kind != GV_NONE && !ig_axis_arg(g, args[1], a, rank, &axis))
            return (gval){0};
    }
    if (t.ptr_elem)
        return ig_error(g, args[0]->loc, "sl.%s cannot reduce pointers", b->name);
    /* Triton's _pick_sum_dtype (ig_sum_dtype) */
    if ((!strcmp(b->kind, "sum") || !strcmp(b->kind, "prod")) &&
        ig_sum_dtype((ir_dtype)t.dtype) != (ir_dtype)t.dtype)
        v = ig_cast(g, call->loc, v, ig_sum_dtype((ir_dtype)t.dtype)), t = ir_value_type(g->m, v);
    bool along = axis >= 0 && rank >= 2;
    ir_value r = ig_emit1(g, IR_REDUCE, call->loc, &v, 1, along ? ir_reduce_axis_type(t, axis) : ir_type_elem(t));
    if (r != IR_NO_VALUE) {
        ir_attr_set_str(g->m, g->m->values[r].def, "kind", b->kind);
        if (along)
            ir_attr_set_int(g->m, g->m->values[r].def, "axis", ir_type_scalar(DT_I32), axis);
    }
    if (keep_dims && r != IR_NO_VALUE) {
        /* Triton's keep_dims=True: the reduced dims stay, as 1s (every dim
         * of a whole-tile reduction). */
        if (t.kind == TY_SEGVAL)
            rank = 1;
        for (int i = 0; i < rank; i++)
            if (!along || i == axis)
                dims[i] = 1;
        r = ig_reshape(g, call->loc, r, rank, dims);
    }
    return gv_ir(r);
}

/* ---- construction and conversion ---------------------------------------- */

static gval make_full(irgen *g, const ast_expr *call, const ast_expr *shape_arg, gval value,
                      const ast_expr *value_arg, const ast_expr *dtype_arg)
{
    int rank;
    int32_t dims[IR_MAX_RANK];
    ir_dtype dt;
    if (!ig_shape_arg(g, shape_arg, ig_expr(g, shape_arg), &rank, dims) ||
        !want_dtype(g, dtype_arg, ig_expr(g, dtype_arg), &dt))
        return (gval){0};
    ir_type t = ir_type_tile_shape(dt, false, rank, dims);
    if (value.kind == GV_CONST) {
        const_value c = value.c;
        if (c.kind == CONST_FLOAT && !ir_dtype_is_float(dt)) {
            /* sl.full(n, 2.5, sl.int32): convert like sl.cast. */
            ir_value f = ig_materialize(g, value_arg->loc, c, ig_const_type(c));
            if (f == IR_NO_VALUE)
                return (gval){0};
            f = ig_cast(g, call->loc, f, dt);
            return gv_ir(ig_broadcast(g, call->loc, f, t));
        }
        return gv_ir(ig_materialize(g, value_arg->loc, c, t));
    }
    ir_value v;
    if (!want_ir(g, value_arg, value, &v))
        return (gval){0};
    ir_type vt = ir_value_type(g->m, v);
    if (vt.kind != TY_SCALAR)
        return ig_error(g, value_arg->loc, "the value of sl.full must be a scalar");
    v = ig_cast(g, call->loc, v, dt);
    return gv_ir(ig_broadcast(g, call->loc, v, t));
}

static gval lower_full(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return make_full(g, call, args[0], ig_expr(g, args[1]), args[1], args[2]);
}

static gval lower_zeros(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return make_full(g, call, args[0], gv_int(0), call, args[1]);
}

static gval cast_to(irgen *g, const ast_expr *call, gval x, const ast_expr *xa, ir_dtype dt)
{
    char buf[64];
    if (x.kind == GV_CONST && x.c.kind != CONST_DTYPE) {
        ir_type t = ig_const_type(x.c);
        ir_value v = ig_materialize(g, xa->loc, x.c, t);
        return v == IR_NO_VALUE ? (gval){0} : gv_ir(ig_cast(g, call->loc, v, dt));
    }
    ir_value v;
    if (!want_ir(g, xa, x, &v))
        return (gval){0};
    if (ir_type_is_ptrlike(ir_value_type(g->m, v)) || ir_value_type(g->m, v).kind == TY_SEGMENT)
        return ig_error(g, xa->loc, "cannot convert a %s", ig_type_name(ir_value_type(g->m, v), buf));
    return gv_ir(ig_cast(g, call->loc, v, dt));
}

/* bitcast=True: the same bits as dt, a dtype of the same width (Triton's
 * tl.cast(x, dt, bitcast=True) and x.to(dt, bitcast=True)). */
static gval bitcast_to(irgen *g, const ast_expr *call, gval x, const ast_expr *xa, ir_dtype dt,
                       const ast_expr *dta)
{
    char buf[64];
    ir_value v;
    if (x.kind == GV_CONST && x.c.kind != CONST_DTYPE)
        v = ig_materialize(g, xa->loc, x.c, ig_const_type(x.c));
    else if (!want_ir(g, xa, x, &v))
        return (gval){0};
    if (v == IR_NO_VALUE)
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    if (ir_type_is_ptrlike(t) || t.kind == TY_SEGMENT)
        return ig_error(g, xa->loc, "cannot bitcast a %s", ig_type_name(t, buf));
    ir_dtype from = (ir_dtype)t.dtype;
    if (from == dt)
        return gv_ir(v);
    if (ir_dtypes[from].bits != ir_dtypes[dt].bits) {
        char buf2[64];
        return ig_error(g, dta->loc, "cannot bitcast %s (%d bits) to %s (%d bits): bitcast=True "
                                     "reinterprets bits between dtypes of one width",
                        ig_type_name(ir_type_scalar(from), buf), ir_dtypes[from].bits,
                        ig_type_name(ir_type_scalar(dt), buf2), ir_dtypes[dt].bits);
    }
    ir_type rt = t;
    rt.dtype = dt;
    return gv_ir(ig_emit1(g, IR_BITCAST, call->loc, &v, 1, rt));
}

/* The dtype, fp_downcast_rounding and bitcast arguments of sl.cast and
 * x.to: converts or reinterprets x. */
static gval convert(irgen *g, const ast_expr *call, const char *who, gval x, const ast_expr *xa,
                    const ast_expr *dta, const ast_expr *rounding, const ast_expr *bitcast)
{
    ir_dtype dt;
    if (!want_dtype(g, dta, ig_expr(g, dta), &dt))
        return (gval){0};
    if (rounding && !(rounding->kind == AST_STRING && !strcmp(rounding->name, "rtne"))) {
        gval r = rounding->kind == AST_STRING ? (gval){.kind = GV_CONST} : ig_expr(g, rounding);
        if (r.kind == GV_ERROR)
            return r;
        if (r.kind != GV_NONE)
            return ig_error(g, rounding->loc, "%s: fp_downcast_rounding must be None or \"rtne\" "
                                              "(Swage rounds to nearest even)", who);
    }
    bool bits = false;
    if (bitcast) {
        gval f = ig_expr(g, bitcast);
        if (f.kind == GV_ERROR)
            return f;
        if (f.kind != GV_CONST || (f.c.kind != CONST_BOOL && f.c.kind != CONST_INT))
            return ig_error(g, bitcast->loc, "%s: 'bitcast' must be a compile-time bool (True or "
                                             "False)", who);
        bits = f.c.i != 0;
    }
    return bits ? bitcast_to(g, call, x, xa, dt, dta) : cast_to(g, call, x, xa, dt);
}

static gval lower_cast(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return convert(g, call, "sl.cast", ig_expr(g, args[0]), args[0], args[1], args[2], args[3]);
}

static gval lower_only_in_for(irgen *g, const ast_expr *call, const builtin *b,
                              const ast_expr *const *args)
{
    return ig_error(g, call->loc, "sl.%s can only be used as the iterable of a 'for' loop", b->name);
}

static gval lower_segment(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return ig_segment_builtin(g, call, b->name, args);
}

static gval lower_atomic(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return ig_atomic_builtin(g, call, b->name, args, NULL);
}

/* ---- Triton's math helpers ----------------------------------------------- */

/* An operand of an elementwise float op: integers convert to float32, as
 * for the other math built-ins. */
static ir_value to_float_operand(irgen *g, const ast_expr *call, ir_value v)
{
    ir_type t = ir_value_type(g->m, v);
    if (!ir_dtype_is_float((ir_dtype)t.dtype))
        return ig_cast(g, call->loc, v, DT_F32);
    return v;
}

/* Brings three operands to one type (promotion and broadcasting as for a
 * binary operator, applied pairwise). */
static bool unify3(irgen *g, const ast_expr *call, const char *what, gval x, gval y, gval z,
                   ir_value out[3])
{
    ir_value a, b, c, d;
    if (!ig_unify(g, call->loc, x, y, &a, &b, what) || !ig_unify(g, call->loc, gv_ir(a), z, &c, &d, what))
        return false;
    /* a may have been widened or broadcast by z: bring b along. */
    ir_type t = ir_value_type(g->m, c);
    b = ig_cast(g, call->loc, b, (ir_dtype)t.dtype);
    if (b == IR_NO_VALUE)
        return false;
    b = ig_broadcast(g, call->loc, b, t);
    if (b == IR_NO_VALUE)
        return false;
    out[0] = c;
    out[1] = b;
    out[2] = d;
    return true;
}

static gval lower_fma(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    gval x = ig_expr(g, args[0]), y = ig_expr(g, args[1]), z = ig_expr(g, args[2]);
    ir_value v[3];
    if (x.kind == GV_ERROR || y.kind == GV_ERROR || z.kind == GV_ERROR ||
        !unify3(g, call, "sl.fma", x, y, z, v))
        return (gval){0};
    for (int i = 0; i < 3; i++)
        if ((v[i] = to_float_operand(g, call, v[i])) == IR_NO_VALUE)
            return (gval){0};
    return gv_ir(ig_emit1(g, IR_FMA, call->loc, v, 3, ir_value_type(g->m, v[0])));
}

/* A binary float function (sl.atan2, sl.pow, ...): the operands promote
 * and broadcast as for an operator, integers then convert to float32. */
static gval lower_binary_float(irgen *g, const ast_expr *call, const builtin *b,
                               const ast_expr *const *args)
{
    char buf[64];
    gval x = ig_expr(g, args[0]), y = ig_expr(g, args[1]);
    if (x.kind == GV_ERROR || y.kind == GV_ERROR)
        return (gval){0};
    ir_value v[2];
    char what[32];
    snprintf(what, sizeof what, "sl.%s", b->name);
    if (!ig_unify(g, call->loc, x, y, &v[0], &v[1], what))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v[0]);
    if (ir_type_is_ptrlike(t))
        return ig_error(g, call->loc, "sl.%s cannot be applied to a %s", b->name, ig_type_name(t, buf));
    for (int i = 0; i < 2; i++)
        if ((v[i] = to_float_operand(g, call, v[i])) == IR_NO_VALUE)
            return (gval){0};
    return gv_ir(ig_emit1(g, b->op, call->loc, v, 2, ir_value_type(g->m, v[0])));
}

/* libdevice's classification functions, built from comparisons and a
 * bitcast so that every executor has them: isnan (x != x), isinf
 * (|x| == inf) and isfinite (|x| < inf) give int1 as Triton's isnan and
 * isinf do; signbit (the sign bit) and finitef/isfinited give int32 0 or
 * 1 (libdevice's int result; its nonzero value is 1 here). */
static gval lower_float_class(irgen *g, const ast_expr *call, const builtin *b,
                              const ast_expr *const *args)
{
    char buf[64];
    gval x = ig_expr(g, args[0]);
    ir_value v;
    if (x.kind == GV_ERROR)
        return (gval){0};
    if (x.kind == GV_CONST && (x.c.kind == CONST_INT || x.c.kind == CONST_BOOL))
        x = gv_float((double)x.c.i);
    if (!want_ir(g, args[0], x, &v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    if (ir_type_is_ptrlike(t))
        return ig_error(g, args[0]->loc, "sl.%s cannot be applied to a %s", b->name, ig_type_name(t, buf));
    if (!ir_dtype_is_float((ir_dtype)t.dtype))
        v = ig_cast(g, call->loc, v, DT_F32), t = ir_value_type(g->m, v);
    gval r;
    if (!strcmp(b->kind, "isnan")) {
        r = ig_binop(g, call, OP_NE, gv_ir(v), gv_ir(v));
    } else if (!strcmp(b->kind, "signbit")) {
        if (t.dtype != DT_F64 && t.dtype != DT_F32) /* f16/bf16: widening keeps the sign */
            v = ig_cast(g, call->loc, v, DT_F32), t = ir_value_type(g->m, v);
        ir_type bits = t;
        bits.dtype = t.dtype == DT_F64 ? DT_I64 : DT_I32;
        r = ig_binop(g, call, OP_LT, gv_ir(ig_emit1(g, IR_BITCAST, call->loc, &v, 1, bits)), gv_int(0));
    } else {
        ir_value a = ig_emit1(g, IR_ABS, call->loc, &v, 1, t);
        r = ig_binop(g, call, !strcmp(b->kind, "isinf") ? OP_EQ : OP_LT, gv_ir(a), gv_float(INFINITY));
    }
    if (r.kind != GV_IR || !strcmp(b->kind, "isnan") || !strcmp(b->kind, "isinf") ||
        !strcmp(b->kind, "isfinite"))
        return r;
    return gv_ir(ig_cast(g, call->loc, r.v, DT_I32));
}

static gval lower_umulhi(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char buf[64];
    gval x = ig_expr(g, args[0]), y = ig_expr(g, args[1]);
    ir_value xv, yv;
    if (!ig_unify(g, call->loc, x, y, &xv, &yv, "sl.umulhi"))
        return (gval){0};
    ir_type t = ir_value_type(g->m, xv);
    if (!ir_dtype_is_int((ir_dtype)t.dtype) || (ir_dtypes[t.dtype].bits != 32 && ir_dtypes[t.dtype].bits != 64))
        return ig_error(g, call->loc, "sl.umulhi needs int32, uint32, int64 or uint64 operands, not %s",
                        ig_type_name(t, buf));
    ir_value ops[2] = {xv, yv};
    return gv_ir(ig_emit1(g, IR_UMULHI, call->loc, ops, 2, t));
}

/* sl.fdiv(x, y, ieee_rounding=False) and sl.div_rn(x, y): x / y, as
 * Triton's (integers convert to float32, as for /): sl.fdiv is '/' itself
 * (approximate on the GPU for float32), sl.div_rn and
 * sl.fdiv(ieee_rounding=True) are correctly rounded on every executor. */
static gval lower_fdiv(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    gval x = ig_expr(g, args[0]), y = ig_expr(g, args[1]);
    bool exact = !strcmp(b->name, "div_rn");
    if (args[2]) {
        gval r = ig_expr(g, args[2]);
        if (r.kind == GV_ERROR)
            return r;
        if (r.kind != GV_CONST || (r.c.kind != CONST_BOOL && r.c.kind != CONST_INT))
            return ig_error(g, args[2]->loc, "ieee_rounding of sl.%s must be True or False", b->name);
        exact = r.c.i != 0;
    }
    if (x.kind == GV_ERROR || y.kind == GV_ERROR)
        return (gval){0};
    g->exact_div = exact;
    gval q = ig_binop(g, call, OP_DIV, x, y);
    g->exact_div = false;
    return q;
}

/* sl.cdiv(x, div) is (x + div - 1) // div, as triton.language.cdiv: with
 * Python's meaning on compile-time integers, C's on runtime ones. */
static gval lower_cdiv(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char buf[64];
    gval x = ig_expr(g, args[0]), d = ig_expr(g, args[1]);
    if (x.kind == GV_ERROR || d.kind == GV_ERROR)
        return (gval){0};
    gval v[2] = {x, d};
    for (int i = 0; i < 2; i++) {
        bool is_float = (v[i].kind == GV_CONST && v[i].c.kind == CONST_FLOAT) ||
                        (v[i].kind == GV_IR && !ir_type_is_ptrlike(ig_type(g, v[i])) &&
                         ir_dtype_is_float((ir_dtype)ig_type(g, v[i]).dtype));
        if (is_float)
            return ig_error(g, args[i]->loc, "sl.cdiv needs integer operands, not %s",
                            v[i].kind == GV_IR ? ig_type_name(ig_type(g, v[i]), buf) : "a float");
    }
    gval sum = ig_binop(g, call, OP_ADD, x, d);
    if (sum.kind == GV_ERROR)
        return sum;
    gval less = ig_binop(g, call, OP_SUB, sum, gv_int(1));
    if (less.kind == GV_ERROR)
        return less;
    return ig_binop(g, call, OP_FLOORDIV, less, d);
}

/* The propagate_nan argument of sl.clamp: sl.PropagateNan.ALL or .NONE
 * (Triton's enum), read from the source. Returns 1 for ALL, 0 for NONE,
 * -1 after reporting. */
static int propagate_nan_arg(irgen *g, const ast_expr *a)
{
    if (!a)
        return 0;
    if (a->kind == AST_ATTR && (!strcmp(a->name, "ALL") || !strcmp(a->name, "NONE")) &&
        a->lhs->kind == AST_ATTR && !strcmp(a->lhs->name, "PropagateNan"))
        return !strcmp(a->name, "ALL");
    ig_error(g, a->loc, "propagate_nan of sl.clamp must be sl.PropagateNan.ALL or "
                        "sl.PropagateNan.NONE");
    return -1;
}

/* max(a, b) ignoring a NaN in either (IEEE maxNum: the other operand) when
 * `greater`, else min; ties give a. */
static ir_value num_minmax(irgen *g, src_loc loc, ir_value a, ir_value b, bool greater)
{
    ir_type t = ir_value_type(g->m, a);
    ir_type bt = ir_type_like(t, ir_type_scalar(DT_I1));
    ir_value ops[2] = {b, a};
    ir_value better = ig_emit1(g, IR_CMP, loc, ops, 2, bt);
    ir_value self[2] = {a, a};
    ir_value a_nan = ig_emit1(g, IR_CMP, loc, self, 2, bt);
    if (better == IR_NO_VALUE || a_nan == IR_NO_VALUE)
        return IR_NO_VALUE;
    ir_attr_set_str(g->m, g->m->values[better].def, "predicate", greater ? "gt" : "lt");
    ir_attr_set_str(g->m, g->m->values[a_nan].def, "predicate", "ne");
    ir_value either[2] = {better, a_nan};
    ir_value take_b = ig_emit1(g, IR_OR, loc, either, 2, bt);
    ir_value sel[3] = {take_b, b, a};
    return take_b == IR_NO_VALUE ? IR_NO_VALUE : ig_emit1(g, IR_SELECT, loc, sel, 3, t);
}

/* sl.clamp(x, min, max, propagate_nan=sl.PropagateNan.NONE), as Triton's:
 * max(x, min) then min(., max). On floats with NONE a NaN x gives min and
 * a NaN bound is ignored; with ALL any NaN gives NaN. */
static gval lower_clamp(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    int all = propagate_nan_arg(g, args[3]);
    if (all < 0)
        return (gval){0};
    gval x = ig_expr(g, args[0]), lo = ig_expr(g, args[1]), hi = ig_expr(g, args[2]);
    ir_value v[3];
    if (x.kind == GV_ERROR || lo.kind == GV_ERROR || hi.kind == GV_ERROR ||
        !unify3(g, call, "sl.clamp", x, lo, hi, v))
        return (gval){0};
    ir_type t = ir_value_type(g->m, v[0]);
    if (t.dtype == DT_I1)
        return ig_error(g, call->loc, "sl.clamp needs numbers, not int1 values");
    if (!ir_dtype_is_float((ir_dtype)t.dtype) || all) {
        ir_value ops[2] = {v[0], v[1]};
        ir_value m = ig_emit1(g, IR_MAXIMUM, call->loc, ops, 2, t);
        ir_value ops2[2] = {m, v[2]};
        return gv_ir(m == IR_NO_VALUE ? m : ig_emit1(g, IR_MINIMUM, call->loc, ops2, 2, t));
    }
    ir_value m = num_minmax(g, call->loc, v[0], v[1], true);
    return gv_ir(m == IR_NO_VALUE ? m : num_minmax(g, call->loc, m, v[2], false));
}

/* ---- hints that change nothing ------------------------------------------- */

/* sl.multiple_of(x, values), sl.max_contiguous(x, values),
 * sl.max_constancy(x, values): Triton's promises about x's values, which
 * Swage does not use; x comes back as it is. values is one positive
 * compile-time integer, or a tuple or list of one (tiles have one axis). */
static gval lower_value_hint(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    gval x = ig_expr(g, args[0]);
    if (x.kind == GV_ERROR)
        return x;
    if (x.kind == GV_NONE || x.kind == GV_MODULE || (x.kind == GV_CONST && x.c.kind == CONST_DTYPE))
        return ig_error(g, args[0]->loc, "sl.%s needs a value (a tile or a scalar)", b->name);
    if (x.kind == GV_UNDEF)
        return ig_error(g, args[0]->loc, "%s", x.note);
    const ast_expr *va = args[1];
    if (va->kind == AST_TUPLE) {
        if (va->nargs != 1)
            return ig_error(g, va->loc, "sl.%s: tiles are one-dimensional, so values must have one "
                                        "entry, not %d", b->name, va->nargs);
        va = va->args[0];
    }
    int64_t n;
    if (!ig_const_int(g, va, ig_expr(g, va), "the value of a hint", &n))
        return (gval){0};
    if (n < 1)
        return ig_error(g, va->loc, "sl.%s needs a positive value, not %lld", b->name, (long long)n);
    return x;
}

/* sl.assume(cond): a promise about a runtime condition, which Swage does
 * not use; a compile-time condition must be true. */
static gval lower_assume(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    char buf[64];
    gval c = ig_expr(g, args[0]);
    if (c.kind == GV_ERROR)
        return c;
    if (c.kind == GV_CONST && c.c.kind != CONST_DTYPE) {
        bool truth = c.c.kind == CONST_FLOAT ? c.c.f != 0 : c.c.i != 0;
        if (!truth)
            return ig_error(g, args[0]->loc, "sl.assume: the condition is false at compile time");
        return (gval){.kind = GV_NONE};
    }
    if (c.kind != GV_IR)
        return ig_error(g, args[0]->loc, "sl.assume needs a condition (an int1 value)");
    ir_type t = ig_type(g, c);
    if (ir_type_is_ptrlike(t) || t.kind == TY_SEGMENT || t.dtype != DT_I1)
        return ig_error(g, args[0]->loc, "sl.assume needs an int1 (bool) condition, not %s; "
                                         "compare first, e.g. sl.assume(n > 0)", ig_type_name(t, buf));
    return (gval){.kind = GV_NONE};
}

/* sl.debug_barrier(): every thread of the program arrives before any goes
 * on (bar.sync on the GPU); an ordering point on the reference executor. */
static gval lower_barrier(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    (void)args;
    ig_emit(g, b->op, call->loc, NULL, 0, NULL, 0);
    return (gval){.kind = GV_NONE};
}

static gval lower_random(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return ig_lower_random(g, call, b->name, args);
}

static gval lower_scan(irgen *g, const ast_expr *call, const builtin *b, const ast_expr *const *args)
{
    return ig_scan_builtin(g, call, b->name, args, NULL);
}

static const builtin builtins[] = {
    {"program_id", lower_grid_query, 1, 1, {"axis"}, IR_PROGRAM_ID, NULL, 0},
    {"num_programs", lower_grid_query, 1, 1, {"axis"}, IR_NUM_PROGRAMS, NULL, 0},
    {"arange", lower_arange, 2, 2, {"start", "end"}, IR_ARANGE, NULL, 0},
    {"load", lower_load, 1, 5, {"pointer", "mask", "other", "cache_modifier", "eviction_policy"},
     IR_LOAD, NULL, 3},
    {"store", lower_store, 2, 5, {"pointer", "value", "mask", "cache_modifier", "eviction_policy"},
     IR_STORE, NULL, 3},
    {"atomic_add", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_max", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_min", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_and", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_or", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_xor", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_xchg", lower_atomic, 2, 5, {"pointer", "val", "mask", "sem", "scope"}, IR_ATOMIC_RMW, NULL, 0},
    {"atomic_cas", lower_atomic, 3, 5, {"pointer", "cmp", "val", "sem", "scope"}, IR_ATOMIC_CAS, NULL, 0},
    {"where", lower_where, 3, 3, {"condition", "x", "y"}, IR_SELECT, NULL, 0},
    {"minimum", lower_binary_math, 2, 2, {"x", "y"}, IR_MINIMUM, NULL, 0},
    {"maximum", lower_binary_math, 2, 2, {"x", "y"}, IR_MAXIMUM, NULL, 0},
    {"exp", lower_unary_math, 1, 1, {"x"}, IR_EXP, NULL, 0},
    {"exp2", lower_unary_math, 1, 1, {"x"}, IR_EXP2, NULL, 0},
    {"log", lower_unary_math, 1, 1, {"x"}, IR_LOG, NULL, 0},
    {"log2", lower_unary_math, 1, 1, {"x"}, IR_LOG2, NULL, 0},
    {"sqrt", lower_unary_math, 1, 1, {"x"}, IR_SQRT, NULL, 0},
    {"rsqrt", lower_unary_math, 1, 1, {"x"}, IR_RSQRT, NULL, 0},
    {"abs", lower_unary_math, 1, 1, {"x"}, IR_ABS, NULL, 0},
    {"floor", lower_unary_math, 1, 1, {"x"}, IR_FLOOR, NULL, 0},
    {"ceil", lower_unary_math, 1, 1, {"x"}, IR_CEIL, NULL, 0},
    {"sin", lower_unary_math, 1, 1, {"x"}, IR_SIN, NULL, 0},
    {"cos", lower_unary_math, 1, 1, {"x"}, IR_COS, NULL, 0},
    {"sigmoid", lower_unary_math, 1, 1, {"x"}, IR_SIGMOID, NULL, 0},
    {"erf", lower_unary_math, 1, 1, {"x"}, IR_ERF, NULL, 0},
    {"sqrt_rn", lower_unary_math, 1, 1, {"x"}, IR_SQRT, NULL, 0},
    {"trunc", lower_unary_math, 1, 1, {"x"}, IR_TRUNC, NULL, 0},
    {"round", lower_unary_math, 1, 1, {"x"}, IR_ROUND, NULL, 0},
    {"rint", lower_unary_math, 1, 1, {"x"}, IR_RINT, NULL, 0},
    {"nearbyint", lower_unary_math, 1, 1, {"x"}, IR_RINT, NULL, 0},
    {"tan", lower_unary_math, 1, 1, {"x"}, IR_TAN, NULL, 0},
    {"asin", lower_unary_math, 1, 1, {"x"}, IR_ASIN, NULL, 0},
    {"acos", lower_unary_math, 1, 1, {"x"}, IR_ACOS, NULL, 0},
    {"atan", lower_unary_math, 1, 1, {"x"}, IR_ATAN, NULL, 0},
    {"sinh", lower_unary_math, 1, 1, {"x"}, IR_SINH, NULL, 0},
    {"cosh", lower_unary_math, 1, 1, {"x"}, IR_COSH, NULL, 0},
    {"tanh", lower_unary_math, 1, 1, {"x"}, IR_TANH, NULL, 0},
    {"asinh", lower_unary_math, 1, 1, {"x"}, IR_ASINH, NULL, 0},
    {"acosh", lower_unary_math, 1, 1, {"x"}, IR_ACOSH, NULL, 0},
    {"atanh", lower_unary_math, 1, 1, {"x"}, IR_ATANH, NULL, 0},
    {"expm1", lower_unary_math, 1, 1, {"x"}, IR_EXPM1, NULL, 0},
    {"log1p", lower_unary_math, 1, 1, {"x"}, IR_LOG1P, NULL, 0},
    {"log10", lower_unary_math, 1, 1, {"x"}, IR_LOG10, NULL, 0},
    {"exp10", lower_unary_math, 1, 1, {"x"}, IR_EXP10, NULL, 0},
    {"cbrt", lower_unary_math, 1, 1, {"x"}, IR_CBRT, NULL, 0},
    {"erfc", lower_unary_math, 1, 1, {"x"}, IR_ERFC, NULL, 0},
    {"atan2", lower_binary_float, 2, 2, {"y", "x"}, IR_ATAN2, NULL, 0},
    {"pow", lower_binary_float, 2, 2, {"x", "y"}, IR_POW, NULL, 0},
    {"hypot", lower_binary_float, 2, 2, {"x", "y"}, IR_HYPOT, NULL, 0},
    {"fmod", lower_binary_float, 2, 2, {"x", "y"}, IR_FMOD, NULL, 0},
    {"copysign", lower_binary_float, 2, 2, {"x", "y"}, IR_COPYSIGN, NULL, 0},
    {"isnan", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "isnan", 0},
    {"isinf", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "isinf", 0},
    {"isfinite", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "isfinite", 0},
    {"signbit", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "signbit", 0},
    {"finitef", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "finite", 0},
    {"isfinited", lower_float_class, 1, 1, {"x"}, IR_OP_COUNT, "finite", 0},
    {"fdiv", lower_fdiv, 2, 3, {"x", "y", "ieee_rounding"}, IR_DIV, NULL, 0},
    {"div_rn", lower_fdiv, 2, 2, {"x", "y"}, IR_DIV, NULL, 0},
    {"fma", lower_fma, 3, 3, {"x", "y", "z"}, IR_FMA, NULL, 0},
    {"umulhi", lower_umulhi, 2, 2, {"x", "y"}, IR_UMULHI, NULL, 0},
    {"cdiv", lower_cdiv, 2, 2, {"x", "div"}, IR_OP_COUNT, NULL, 0},
    {"randint", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"rand", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"randn", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"randint4x", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"rand4x", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"randn4x", lower_random, 2, 3, {"seed", "offset", "n_rounds"}, IR_OP_COUNT, NULL, 0},
    {"clamp", lower_clamp, 3, 4, {"x", "min", "max", "propagate_nan"}, IR_OP_COUNT, NULL, 0},
    {"multiple_of", lower_value_hint, 2, 2, {"input", "values"}, IR_OP_COUNT, NULL, 0},
    {"max_contiguous", lower_value_hint, 2, 2, {"input", "values"}, IR_OP_COUNT, NULL, 0},
    {"max_constancy", lower_value_hint, 2, 2, {"input", "values"}, IR_OP_COUNT, NULL, 0},
    {"debug_barrier", lower_barrier, 0, 0, {NULL}, IR_BARRIER, NULL, 0},
    {"assume", lower_assume, 1, 1, {"cond"}, IR_OP_COUNT, NULL, 0},
    /* Triton's max/min take return_indices third: keep_dims by keyword */
    {"sum", lower_reduce, 1, 3, {"input", "axis", "keep_dims"}, IR_REDUCE, "sum", 0},
    {"max", lower_reduce, 1, 3, {"input", "axis", "keep_dims"}, IR_REDUCE, "max", 2},
    {"min", lower_reduce, 1, 3, {"input", "axis", "keep_dims"}, IR_REDUCE, "min", 2},
    {"prod", lower_reduce, 1, 3, {"input", "axis", "keep_dims"}, IR_REDUCE, "prod", 0},
    {"cumsum", lower_scan, 1, 4, {"input", "axis", "reverse", "dtype"}, IR_SCAN, NULL, 0},
    {"cumprod", lower_scan, 1, 4, {"input", "axis", "reverse", "dtype"}, IR_SCAN, NULL, 0},
    {"associative_scan", lower_scan, 3, 4, {"input", "axis", "combine_fn", "reverse"}, IR_SCAN, NULL, 0},
    {"reduce", lower_scan, 3, 4, {"input", "axis", "combine_fn", "keep_dims"}, IR_REDUCE_FN, NULL, 0},
    {"argmax", lower_scan, 2, 4, {"input", "axis", "tie_break_left", "keep_dims"}, IR_REDUCE_FN, NULL, 0},
    {"argmin", lower_scan, 2, 4, {"input", "axis", "tie_break_left", "keep_dims"}, IR_REDUCE_FN, NULL, 0},
    {"histogram", lower_scan, 2, 3, {"input", "num_bins", "mask"}, IR_HISTOGRAM, NULL, 0},
    {"gather", lower_scan, 3, 3, {"src", "index", "axis"}, IR_GATHER, NULL, 0},
    {"full", lower_full, 3, 3, {"shape", "value", "dtype"}, IR_CONSTANT, NULL, 0},
    {"zeros", lower_zeros, 2, 2, {"shape", "dtype"}, IR_CONSTANT, NULL, 0},
    {"cast", lower_cast, 2, 4, {"input", "dtype", "fp_downcast_rounding", "bitcast"}, IR_CAST, NULL, 0},
    {"static_range", lower_only_in_for, 0, 3, {"arg0", "arg1", "arg2"}, IR_OP_COUNT, NULL, 0},
    {"range", lower_only_in_for, 0, 3, {"arg0", "arg1", "arg2"}, IR_OP_COUNT, NULL, 0},
    {"segment_id", lower_segment, 1, 1, {"axis"}, IR_SEGMENT_ID, NULL, 0},
    {"segment", lower_segment, 3, 3, {"values", "offsets", "sid"}, IR_SEGMENT, NULL, 0},
    {"load_segment", lower_segment, 1, 1, {"segment"}, IR_LOAD_SEGMENT, NULL, 0},
    {"store_segment", lower_segment, 3, 3, {"pointer", "segment", "value"}, IR_STORE_SEGMENT, NULL, 0},
    {"segment_length", lower_segment, 1, 1, {"segment"}, IR_SEGMENT_LENGTH, NULL, 0},
};

static const builtin *find_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

/* The names of swage.language that a kernel can use after `sl.`: the
 * built-ins and the dtypes. */
static const char *const language_names[] = {
    "int1", "bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "bfloat16", "float32", "float64", "constexpr", "broadcast_to", "broadcast",
    "expand_dims", "reshape", "view", "trans", "permute", "join", "split", "interleave", "cat",
};

const char *ig_closest_language_name(const char *name)
{
    enum { NB = sizeof builtins / sizeof builtins[0], NL = sizeof language_names / sizeof language_names[0] };
    const char *names[NB + NL];
    for (size_t i = 0; i < NB; i++)
        names[i] = builtins[i].name;
    for (size_t i = 0; i < NL; i++)
        names[NB + i] = language_names[i];
    return closest_name(name, names, NB + NL);
}

/* "'sl.<name>' is not a Swage built-in", with the nearest real name. */
static gval unknown_language_name(irgen *g, src_loc loc, const char *name)
{
    const char *near = ig_closest_language_name(name);
    if (near)
        return ig_error(g, loc, "'sl.%s' is not a Swage built-in; did you mean 'sl.%s'?", name, near);
    return ig_error(g, loc, "'sl.%s' is not a Swage built-in (the built-ins are listed in "
                            "docs/language.md and docs/segments.md)", name);
}

bool ig_is_builtin_name(const char *name)
{
    return find_builtin(name) != NULL || ig_is_shape_builtin(name) || ig_is_join_builtin(name);
}

/* The names of triton.language.math that Swage has, all also sl.<name>. */
static const char *const math_names[] = {
    "umulhi", "exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt", "abs",
    "fdiv", "div_rn", "erf", "floor", "ceil", "fma",
    /* Triton 2.x's triton.language.math also had libdevice's functions */
    "trunc", "round", "rint", "nearbyint", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "expm1", "log1p", "log10", "exp10", "cbrt", "pow", "hypot",
    "fmod", "copysign", "isnan", "isinf", "signbit", "finitef", "isfinited", "erfc",
};

gval ig_call_math_builtin(irgen *g, const ast_expr *call, const char *name)
{
    enum { N = sizeof math_names / sizeof math_names[0] };
    for (size_t i = 0; i < N; i++)
        if (!strcmp(math_names[i], name))
            return ig_call_builtin(g, call, name);
    const char *near = closest_name(name, math_names, N);
    if (find_builtin(name))
        return ig_error(g, call->callee->loc, "'sl.math.%s' does not exist; use 'sl.%s'", name, name);
    if (near)
        return ig_error(g, call->callee->loc, "'sl.math.%s' is not a Swage built-in; did you mean "
                                              "'sl.math.%s'?", name, near);
    return ig_error(g, call->callee->loc, "'sl.math.%s' is not a Swage built-in (docs/language.md "
                                          "lists sl.math)", name);
}

/* libdevice's functions that have a Swage built-in of the same meaning
 * (its float and double forms alike: sl.<swage> takes either). */
static const struct {
    const char *libdevice, *swage;
} libdevice_names[] = {
    {"exp", "exp"}, {"exp2", "exp2"}, {"log", "log"}, {"log2", "log2"}, {"sqrt", "sqrt"},
    {"sqrt_rn", "sqrt_rn"}, {"rsqrt", "rsqrt"}, {"sin", "sin"}, {"cos", "cos"}, {"floor", "floor"},
    {"ceil", "ceil"}, {"erf", "erf"}, {"fabs", "abs"}, {"abs", "abs"}, {"fma", "fma"},
    {"div_rn", "div_rn"}, {"umulhi", "umulhi"}, {"trunc", "trunc"}, {"round", "round"},
    {"rint", "rint"}, {"nearbyint", "nearbyint"}, {"tan", "tan"}, {"asin", "asin"},
    {"acos", "acos"}, {"atan", "atan"}, {"atan2", "atan2"}, {"sinh", "sinh"}, {"cosh", "cosh"},
    {"tanh", "tanh"}, {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
    {"expm1", "expm1"}, {"log1p", "log1p"}, {"log10", "log10"}, {"exp10", "exp10"},
    {"cbrt", "cbrt"}, {"pow", "pow"}, {"hypot", "hypot"}, {"fmod", "fmod"},
    {"copysign", "copysign"}, {"isnan", "isnan"}, {"isinf", "isinf"}, {"signbit", "signbit"},
    {"finitef", "finitef"}, {"isfinited", "isfinited"}, {"erfc", "erfc"},
};

gval ig_call_libdevice(irgen *g, const ast_expr *call, const char *name)
{
    enum { N = sizeof libdevice_names / sizeof libdevice_names[0] };
    const char *names[N];
    char list[1024] = "";
    for (size_t i = 0; i < N; i++) {
        if (!strcmp(libdevice_names[i].libdevice, name)) {
            /* libdevice's exp (__nv_expf) is accurate, where sl.exp is not */
            g->exact_exp = !strcmp(name, "exp");
            gval r = ig_call_builtin(g, call, libdevice_names[i].swage);
            g->exact_exp = false;
            return r;
        }
        names[i] = libdevice_names[i].libdevice;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", names[i]);
    }
    return ig_error(g, call->callee->loc, "'sl.extra.libdevice.%s' is not supported: Swage has "
                                          "no %s; the libdevice functions it has are %s", name,
                    name, list);
}

gval ig_call_builtin(irgen *g, const ast_expr *call, const char *name)
{
    if (ig_is_shape_builtin(name))
        return ig_shape_builtin(g, call, name, NULL);
    if (ig_is_join_builtin(name))
        return ig_join_builtin(g, call, name, NULL);
    const builtin *b = find_builtin(name);
    if (!b) {
        if (ir_dtype_from_name(name, strlen(name)) != DT_VOID)
            return ig_error(g, call->loc, "sl.%s is a dtype, not a function; use sl.cast(x, sl.%s) "
                                          "or x.to(sl.%s)", name, name, name);
        return unknown_language_name(g, call->callee->loc, name);
    }
    const ast_expr *args[MAX_ARGS] = {0};
    if (b->lower == lower_only_in_for)
        return b->lower(g, call, b, args);
    if (!bind_args(g, call, b, args))
        return (gval){0};
    return b->lower(g, call, b, args);
}

gval ig_builtin_attr(irgen *g, const ast_expr *e, const char *name)
{
    ir_dtype dt = ir_dtype_from_name(name, strlen(name));
    if (dt != DT_VOID && strcmp(name, "float") && strcmp(name, "double") && strcmp(name, "half"))
        return (gval){.kind = GV_CONST, .c = {.kind = CONST_DTYPE, .i = dt}};
    if (!strcmp(name, "bool_"))
        return (gval){.kind = GV_CONST, .c = {.kind = CONST_DTYPE, .i = DT_I1}};
    if (!strcmp(name, "math"))
        return ig_error(g, e->loc, "sl.math is a namespace: call its functions, e.g. "
                                   "sl.math.exp2(x)");
    if (find_builtin(name) || ig_is_shape_builtin(name) || ig_is_join_builtin(name))
        return ig_error(g, e->loc, "sl.%s is a function: call it", name);
    return unknown_language_name(g, e->loc, name);
}

/* The member functions of Triton's tl.tensor that Swage has as built-ins:
 * x.f(args) is sl.f(x, args). */
static const char *const tensor_methods[] = {
    "abs", "ceil", "cos", "erf", "exp", "exp2", "floor", "log", "log2", "rsqrt", "sigmoid", "sin",
    "sqrt", "sqrt_rn", "fdiv", "div_rn", "fma", "umulhi", "cdiv", "cast", "sum", "max", "min",
    "cumsum", "cumprod", "associative_scan", "reduce", "argmax", "argmin", "histogram", "gather",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas", "broadcast_to", "expand_dims", "reshape", "view", "trans", "permute",
    "split",
};

static bool is_tensor_method(const char *name)
{
    for (size_t i = 0; i < sizeof tensor_methods / sizeof tensor_methods[0]; i++)
        if (!strcmp(tensor_methods[i], name))
            return true;
    return false;
}

static const char *tensor_method_list(char *text, size_t size)
{
    text[0] = 0;
    for (size_t i = 0; i < sizeof tensor_methods / sizeof tensor_methods[0]; i++)
        snprintf(text + strlen(text), size - strlen(text), "%s.%s()", i ? ", " : "",
                 tensor_methods[i]);
    return text;
}

gval ig_method_call(irgen *g, const ast_expr *call, gval self, const char *method)
{
    if (!strcmp(method, "to")) {
        static const builtin to = {"to", NULL, 1, 3, {"dtype", "fp_downcast_rounding", "bitcast"},
                                   IR_CAST, NULL, 0};
        const ast_expr *args[MAX_ARGS];
        if (!bind_args(g, call, &to, args))
            return (gval){0};
        return convert(g, call, "x.to", self, call->callee->lhs, args[0], args[1], args[2]);
    }
    if (ig_is_shape_builtin(method) && strcmp(method, "broadcast"))
        return ig_shape_builtin(g, call, method, &self);
    if (!strcmp(method, "split"))
        return ig_join_builtin(g, call, method, &self);
    const builtin *b = find_builtin(method);
    if (b && is_tensor_method(method)) {
        /* Triton's member form: x.exp() is sl.exp(x), x.sum(axis=0) is
         * sl.sum(x, axis=0), ptr.atomic_add(val, ...) is
         * sl.atomic_add(ptr, val, ...); x itself is evaluated once. */
        /* Triton's member form: ptr.atomic_add(val, ...) is
         * sl.atomic_add(ptr, val, ...) */
        builtin shifted = *b;
        shifted.nrequired--, shifted.nmax--;
        for (int i = 0; i + 1 < MAX_ARGS; i++)
            shifted.params[i] = b->params[i + 1];
        shifted.params[MAX_ARGS - 1] = NULL;
        const ast_expr *rest[MAX_ARGS], *args[MAX_ARGS] = {0};
        if (!bind_args(g, call, &shifted, rest))
            return (gval){0};
        args[0] = call->callee->lhs;
        for (int i = 0; i + 1 < MAX_ARGS; i++)
            args[i + 1] = rest[i];
        if (b->lower == lower_scan)
            return ig_scan_builtin(g, call, b->name, args, &self);
        if (b->lower == lower_atomic)
            return ig_atomic_builtin(g, call, b->name, args, &self);
        const ast_expr *saved = g->bound_expr;
        gval saved_val = g->bound_val;
        g->bound_expr = args[0], g->bound_val = self;
        gval r = b->lower(g, call, b, args);
        g->bound_expr = saved, g->bound_val = saved_val;
        return r;
    }
    char list[640];
    return ig_error(g, call->callee->loc, "method '.%s()' is not supported; the methods are "
                                          "Triton's tensor methods that Swage has as sl.<name>: "
                                          ".to(dtype), %s", method, tensor_method_list(list, sizeof list));
}
