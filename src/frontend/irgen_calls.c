/* irgen_calls.c - calls of @sw.jit functions from a kernel: the callee is
 * found by name in the table the caller gave (or among the top-level defs
 * of the kernel's file), parsed once, and inlined: its parameters are
 * bound to the call's arguments (tiles, scalars, pointers, constants,
 * tuples) in a scope of its own, its body is lowered in place with early
 * returns (ig_lower_function_body), and the call's value is what it
 * returns (None, a value, or a tuple). Diagnostics inside a callee point
 * into its own source; the ops it makes carry the place of the outermost
 * call in the kernel. Recursion is a compile error. Also
 * sl.static_assert. */
#include "irgen_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls nested deeper than this are an error (inlining copies each). */
enum { MAX_CALL_DEPTH = 64 };

/* The table's source for `name`, or a top-level def of the kernel's file. */
static bool lookup_source(irgen *g, const char *name, source_file *out)
{
    const irgen_functions *f = g->functions;
    if (!f)
        return false;
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->names[i], name)) {
            *out = f->sources[i];
            return true;
        }
    if (!f->file)
        return false;
    diag quiet;
    diag_init(&quiet);
    bool found = extract_kernel_source(f->file, name, out, &quiet);
    diag_clear(&quiet);
    return found;
}

static ig_callee *known_callee(irgen *g, const char *name)
{
    for (int i = 0; i < g->ncallees; i++)
        if (!strcmp(g->callees[i]->name, name))
            return g->callees[i];
    return NULL;
}

bool ig_is_function(irgen *g, const char *name)
{
    if (env_lookup(&g->scope, name))
        return false; /* a local name shadows it, as in Python */
    source_file src;
    return known_callee(g, name) || lookup_source(g, name, &src);
}

/* The parsed callee, or NULL after reporting (a syntax error in its source
 * is reported there). */
static ig_callee *callee(irgen *g, const char *name)
{
    ig_callee *c = known_callee(g, name);
    if (c)
        return c;
    source_file *src = arena_alloc(g->ar, sizeof *src);
    if (!lookup_source(g, name, src))
        return NULL;
    const ast_func *fn = parse_kernel(g->ar, src, g->d);
    if (!fn)
        return NULL;
    c = arena_alloc(g->ar, sizeof *c);
    *c = (ig_callee){.name = name, .src = src, .fn = fn};
    VEC_PUSH(g->ar, g->callees, g->ncallees, g->capcallees, c);
    return c;
}

/* "f -> g -> f" for a recursion diagnostic. */
static const char *call_chain(irgen *g, const char *name)
{
    strbuf sb;
    sb_init(&sb);
    for (int i = 0; i < g->call_depth; i++)
        sb_printf(&sb, "%s -> ", g->call_stack[i]);
    sb_puts(&sb, name);
    const char *text = arena_strndup(g->ar, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return text ? text : name;
}

/* The call's arguments, bound to fn's parameters (Python's rules:
 * positional, then by keyword; defaults later). Evaluated in the caller. */
static bool bind_call(irgen *g, const ast_expr *call, const char *name, const ast_func *fn,
                      gval *vals, bool *given, const ast_expr **where)
{
    if (call->nargs > fn->nparams) {
        ig_error(g, call->args[fn->nparams]->loc, "'%s' takes %d argument%s but %d were given", name,
                 fn->nparams, fn->nparams == 1 ? "" : "s", call->nargs);
        return false;
    }
    for (int i = 0; i < call->nargs; i++) {
        vals[i] = ig_expr(g, call->args[i]);
        if (vals[i].kind == GV_ERROR || ig_failed(g))
            return false;
        given[i] = true;
        where[i] = call->args[i];
    }
    for (int k = 0; k < call->nkwargs; k++) {
        const ast_keyword *kw = &call->kwargs[k];
        int slot = -1;
        for (int i = 0; i < fn->nparams && slot < 0; i++)
            if (!strcmp(fn->params[i].name, kw->name))
                slot = i;
        if (slot < 0) {
            const char **names = arena_alloc(g->ar, sizeof(char *) * (size_t)(fn->nparams + 1));
            for (int i = 0; i < fn->nparams; i++)
                names[i] = fn->params[i].name;
            const char *near = closest_name(kw->name, names, (size_t)fn->nparams);
            ig_error(g, kw->loc, "'%s' has no parameter named '%s'%s%s%s", name, kw->name,
                     near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return false;
        }
        if (given[slot]) {
            ig_error(g, kw->loc, "'%s' got multiple values for its parameter '%s'", name, kw->name);
            return false;
        }
        vals[slot] = ig_expr(g, kw->value);
        if (vals[slot].kind == GV_ERROR || ig_failed(g))
            return false;
        given[slot] = true;
        where[slot] = kw->value;
    }
    for (int i = 0; i < fn->nparams; i++)
        if (!given[i] && !fn->params[i].default_value) {
            ig_error(g, call->loc, "'%s' is missing its argument '%s'", name, fn->params[i].name);
            return false;
        }
    return true;
}

/* Recursion and depth checks before a call of `name` at loc. */
static bool may_call(irgen *g, src_loc loc, const char *name)
{
    for (int i = 0; i < g->call_depth; i++)
        if (!strcmp(g->call_stack[i], name)) {
            ig_error(g, loc, "recursive call of '%s' (%s): Swage inlines every call of a @sw.jit "
                             "function, so a function cannot call itself", name, call_chain(g, name));
            return false;
        }
    if (g->call_depth >= MAX_CALL_DEPTH) {
        ig_error(g, loc, "calls of @sw.jit functions nested more than %d deep", MAX_CALL_DEPTH);
        return false;
    }
    return true;
}

static gval inline_body(irgen *g, src_loc loc, const char *name, const ig_callee *c, const gval *vals,
                        const bool *given);

gval ig_call_function_values(irgen *g, src_loc loc, const char *name, const char *who, const gval *args,
                             int nargs)
{
    if (!may_call(g, loc, name))
        return (gval){0};
    ig_callee *c = callee(g, name);
    if (!c) {
        if (ig_failed(g))
            return (gval){0};
        return ig_error(g, loc, "'%s' is not a @sw.jit function Swage can find", name);
    }
    const ast_func *fn = c->fn;
    int required = 0;
    for (int i = 0; i < fn->nparams; i++)
        required += !fn->params[i].default_value;
    if (nargs > fn->nparams || nargs < required)
        return ig_error(g, loc, "%s calls '%s' with %d argument%s, but it takes %s%d", who, name, nargs,
                        nargs == 1 ? "" : "s", required == fn->nparams ? "" : "at most ", fn->nparams);
    size_t np = (size_t)fn->nparams + 1;
    gval *vals = arena_alloc(g->ar, sizeof(gval) * np);
    bool *given = arena_alloc(g->ar, sizeof(bool) * np);
    for (int i = 0; i < nargs; i++) {
        vals[i] = args[i];
        given[i] = true;
        const ast_param *p = &fn->params[i];
        if (p->annotation && ig_is_constexpr_annotation(p->annotation) && !ig_is_known(args[i]))
            return ig_error(g, loc, "the parameter '%s' of '%s' is an sl.constexpr, but %s passes it "
                                    "a runtime value", p->name, name, who);
    }
    return inline_body(g, loc, name, c, vals, given);
}

gval ig_call_function(irgen *g, const ast_expr *call, const char *name)
{
    for (int i = 0; i < g->call_depth; i++)
        if (!strcmp(g->call_stack[i], name))
            return ig_error(g, call->loc, "recursive call of '%s' (%s): Swage inlines every call of "
                                          "a @sw.jit function, so a function cannot call itself",
                            name, call_chain(g, name));
    if (g->call_depth >= MAX_CALL_DEPTH)
        return ig_error(g, call->loc, "calls of @sw.jit functions nested more than %d deep",
                        MAX_CALL_DEPTH);
    ig_callee *c = callee(g, name);
    if (!c) {
        if (ig_failed(g))
            return (gval){0};
        return ig_error(g, call->loc, "'%s' is not a @sw.jit function Swage can find", name);
    }
    const ast_func *fn = c->fn;
    size_t np = (size_t)fn->nparams + 1;
    gval *vals = arena_alloc(g->ar, sizeof(gval) * np);
    bool *given = arena_alloc(g->ar, sizeof(bool) * np);
    const ast_expr **where = arena_alloc(g->ar, sizeof(ast_expr *) * np);
    memset(given, 0, sizeof(bool) * np);
    if (!bind_call(g, call, name, fn, vals, given, where))
        return (gval){0};
    for (int i = 0; i < fn->nparams; i++) {
        const ast_param *p = &fn->params[i];
        if (given[i] && p->annotation && ig_is_constexpr_annotation(p->annotation) &&
            !ig_is_known(vals[i]))
            return ig_error(g, where[i]->loc, "the parameter '%s' of '%s' is an sl.constexpr: its "
                                              "argument must be a compile-time constant", p->name,
                            name);
    }
    return inline_body(g, call->loc, name, c, vals, given);
}

static gval inline_body(irgen *g, src_loc loc, const char *name, const ig_callee *c, const gval *vals,
                        const bool *given)
{
    const ast_func *fn = c->fn;
    /* The callee's own scope and source. */
    env caller_scope = g->scope;
    const source_file *caller_src = g->src;
    if (g->call_depth == 0)
        g->call_loc = loc;
    VEC_PUSH(g->ar, g->call_stack, g->call_depth, g->capcall, name);
    g->scope = (env){0};
    g->src = c->src;
    for (int i = 0; i < fn->nparams && !ig_failed(g); i++) {
        const ast_param *p = &fn->params[i];
        gval v = vals[i];
        if (!given[i]) {
            v = ig_expr(g, p->default_value);
            if (!ig_is_known(v) && !ig_failed(g))
                ig_error(g, p->default_value->loc, "the default of a @sw.jit function's parameter "
                                                   "must be a constant");
        }
        env_set(g, &g->scope, p->name, v);
    }
    gval ret = {.kind = GV_NONE};
    if (!ig_failed(g))
        ig_lower_function_body(g, &fn->body, name, &ret);
    g->call_depth--;
    g->scope = caller_scope;
    g->src = caller_src;
    return ig_failed(g) ? (gval){0} : ret;
}

gval ig_static_assert(irgen *g, const ast_expr *call)
{
    const ast_expr *cond = call->nargs > 0 ? call->args[0] : NULL;
    const ast_expr *msg = call->nargs > 1 ? call->args[1] : NULL;
    for (int k = 0; k < call->nkwargs; k++) {
        const ast_keyword *kw = &call->kwargs[k];
        const ast_expr **slot = !strcmp(kw->name, "cond") ? &cond : !strcmp(kw->name, "msg") ? &msg : NULL;
        if (!slot)
            return ig_error(g, kw->loc, "sl.static_assert has no parameter named '%s' (its "
                                        "parameters: cond, msg)", kw->name);
        if (*slot)
            return ig_error(g, kw->loc, "sl.static_assert got '%s' twice", kw->name);
        *slot = kw->value;
    }
    if (call->nargs > 2)
        return ig_error(g, call->args[2]->loc, "sl.static_assert takes a condition and a message");
    if (!cond)
        return ig_error(g, call->loc, "sl.static_assert is missing its condition");
    if (msg && msg->kind != AST_STRING)
        return ig_error(g, msg->loc, "the message of sl.static_assert must be a string literal");
    gval c = ig_expr(g, cond);
    if (c.kind == GV_ERROR)
        return c;
    if (c.kind != GV_CONST || c.c.kind == CONST_DTYPE)
        return ig_error(g, cond->loc, "sl.static_assert needs a condition known while compiling "
                                      "(literals, sl.constexpr values, .shape, .dtype); use "
                                      "sl.assume or sl.where for runtime values");
    bool truth = c.c.kind == CONST_FLOAT ? c.c.f != 0 : c.c.i != 0;
    if (!truth) {
        const char *text = msg && msg->name ? msg->name : "";
        return ig_error(g, cond->loc, "static assertion failed%s%.200s", *text ? ": " : "", text);
    }
    return (gval){.kind = GV_NONE};
}

/* Appends v as Python prints it (runtime values: their type). */
static void print_gval(irgen *g, gval v, char *out, size_t size)
{
    size_t n = strlen(out);
    char buf[64];
    if (v.kind == GV_TUPLE) {
        snprintf(out + n, size - n, "(");
        for (int i = 0; i < v.nitems; i++) {
            if (i)
                snprintf(out + strlen(out), size - strlen(out), ", ");
            print_gval(g, v.items[i], out, size);
        }
        snprintf(out + strlen(out), size - strlen(out), v.nitems == 1 ? ",)" : ")");
        return;
    }
    if (v.kind == GV_NONE) {
        snprintf(out + n, size - n, "None");
        return;
    }
    if (v.kind == GV_STR) {
        snprintf(out + n, size - n, "%s", v.str);
        return;
    }
    if (v.kind == GV_IR) {
        snprintf(out + n, size - n, "%s", ig_type_name(ig_type(g, v), buf));
        return;
    }
    if (v.kind != GV_CONST) {
        snprintf(out + n, size - n, "<%s>", v.kind == GV_MODULE ? "module sl" : "value");
        return;
    }
    switch (v.c.kind) {
    case CONST_BOOL: snprintf(out + n, size - n, "%s", v.c.i ? "True" : "False"); break;
    case CONST_INT: snprintf(out + n, size - n, "%lld", (long long)v.c.i); break;
    case CONST_U64: snprintf(out + n, size - n, "%llu", (unsigned long long)(uint64_t)v.c.i); break;
    case CONST_DTYPE:
        snprintf(out + n, size - n, "sl.%s", ig_type_name(ir_type_scalar((ir_dtype)v.c.i), buf));
        break;
    case CONST_FLOAT: {
        double f = v.c.f;
        if (isnan(f)) {
            snprintf(out + n, size - n, "nan");
            break;
        }
        if (isinf(f)) {
            snprintf(out + n, size - n, "%sinf", f < 0 ? "-" : "");
            break;
        }
        /* Python's repr: the shortest digits that read back as f */
        for (int p = 1; p <= 17; p++) {
            snprintf(buf, sizeof buf, "%.*g", p, f);
            if (strtod(buf, NULL) == f)
                break;
        }
        if (!strpbrk(buf, ".en"))
            strcat(buf, ".0");
        snprintf(out + n, size - n, "%s", buf);
        break;
    }
    default: snprintf(out + n, size - n, "<constant>"); break;
    }
}

gval ig_static_print(irgen *g, const ast_expr *call)
{
    const char *sep = " ", *end = "\n";
    for (int k = 0; k < call->nkwargs; k++) {
        const ast_keyword *kw = &call->kwargs[k];
        bool is_sep = !strcmp(kw->name, "sep");
        if (!is_sep && strcmp(kw->name, "end"))
            return ig_error(g, kw->loc, "sl.static_print has no parameter named '%s' (it takes "
                                        "values, sep= and end=)", kw->name);
        if (kw->value->kind != AST_STRING)
            return ig_error(g, kw->value->loc, "sl.static_print: '%s' must be a string literal",
                            kw->name);
        *(is_sep ? &sep : &end) = kw->value->name ? kw->value->name : "";
    }
    char text[4096] = "";
    for (int i = 0; i < call->nargs; i++) {
        const ast_expr *a = call->args[i];
        if (i)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s", sep);
        if (a->kind == AST_STRING) {
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s", a->name ? a->name : "");
            continue;
        }
        gval v = ig_expr(g, a);
        if (v.kind == GV_ERROR)
            return v;
        print_gval(g, v, text, sizeof text);
    }
    fprintf(stderr, "%s%s", text, end);
    fflush(stderr);
    return (gval){.kind = GV_NONE};
}

gval ig_device_print(irgen *g, const ast_expr *call)
{
    char buf[64];
    bool hex = false;
    for (int k = 0; k < call->nkwargs; k++) {
        const ast_keyword *kw = &call->kwargs[k];
        if (strcmp(kw->name, "hex"))
            return ig_error(g, kw->loc, "sl.device_print has no parameter named '%s' (it takes "
                                        "a prefix, values and hex=)", kw->name);
        gval h = ig_expr(g, kw->value);
        if (h.kind == GV_ERROR)
            return h;
        if (h.kind != GV_CONST || (h.c.kind != CONST_BOOL && h.c.kind != CONST_INT))
            return ig_error(g, kw->value->loc, "sl.device_print: 'hex' must be a compile-time bool");
        hex = h.c.i != 0;
    }
    if (call->nargs < 1 || call->args[0]->kind != AST_STRING)
        return ig_error(g, call->nargs ? call->args[0]->loc : call->loc,
                        "sl.device_print needs a string literal prefix first, e.g. "
                        "sl.device_print(\"x = \", x)");
    enum { MAX_PRINTED = 16 };
    if (call->nargs - 1 > MAX_PRINTED)
        return ig_error(g, call->args[MAX_PRINTED + 1]->loc, "sl.device_print prints at most %d "
                                                             "values", MAX_PRINTED);
    ir_value vals[MAX_PRINTED];
    char lens[MAX_PRINTED * 12] = "";
    for (int i = 1; i < call->nargs; i++) {
        const ast_expr *a = call->args[i];
        gval v = ig_expr(g, a);
        if (v.kind == GV_ERROR)
            return v;
        ir_value x = IR_NO_VALUE;
        if (v.kind == GV_CONST && v.c.kind != CONST_DTYPE)
            x = ig_materialize(g, a->loc, v.c, ig_const_type(v.c));
        else if (v.kind == GV_IR)
            x = v.v;
        if (x == IR_NO_VALUE)
            return ig_failed(g) ? (gval){0}
                                : ig_error(g, a->loc, "sl.device_print prints scalars and tiles");
        ir_type t = ir_value_type(g->m, x);
        if (ir_type_is_ptrlike(t) || (t.kind != TY_SCALAR && t.kind != TY_TILE))
            return ig_error(g, a->loc, "sl.device_print prints numbers (scalars and tiles), not a %s",
                            ig_type_name(t, buf));
        vals[i - 1] = x;
        snprintf(lens + strlen(lens), sizeof lens - strlen(lens), "%s%d", i > 1 ? "," : "",
                 t.kind == TY_TILE ? (int)t.len : 0);
    }
    ir_op *op = ig_emit(g, IR_PRINT, call->loc, vals, call->nargs - 1, NULL, 0);
    if (op) {
        ir_attr_set_str(g->m, op, "prefix", call->args[0]->name ? call->args[0]->name : "");
        ir_attr_set_str(g->m, op, "lens", lens);
        ir_attr_set_int(g->m, op, "hex", ir_type_scalar(DT_I32), hex);
    }
    return (gval){.kind = GV_NONE};
}
