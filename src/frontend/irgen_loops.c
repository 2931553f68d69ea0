/* irgen_loops.c - for and while loops: sl.static_range unrolled while
 * compiling; range()/sl.range() as an sw.for and while as an sw.while,
 * each carrying the variables its body assigns (with a flag for break and
 * continue), and the checks of their bounds and of Triton's loop hints.
 * The statements of a body are lowered by irgen.c (ig_lower_block,
 * ig_lower_tail). */
#include "irgen_internal.h"

#include <string.h>

enum { MAX_STATIC_UNROLL = 4096 };

/* Whether a loop body holds a break of that loop. */
static bool block_breaks(const ast_block *b)
{
    for (int i = 0; i < b->nstmts; i++) {
        const ast_stmt *s = b->stmts[i];
        if (s->kind == AST_BREAK ||
            (s->kind == AST_IF && (block_breaks(&s->body) || block_breaks(&s->orelse))))
            return true;
    }
    return false;
}


/* Names a target binds. */
static void target_names(irgen *g, const ast_expr *t, env *out)
{
    if (t->kind == AST_NAME)
        env_set(g, out, t->name, (gval){0});
    else if (t->kind == AST_TUPLE)
        for (int i = 0; i < t->nargs; i++)
            target_names(g, t->args[i], out);
}

/* Names assigned anywhere in a block (for loop-carried variables). */
static void assigned_names(irgen *g, const ast_block *b, env *out)
{
    for (int i = 0; i < b->nstmts; i++) {
        const ast_stmt *s = b->stmts[i];
        switch (s->kind) {
        case AST_ASSIGN:
        case AST_AUGASSIGN:
            for (int t = 0; t < s->ntargets; t++)
                target_names(g, s->targets[t], out);
            break;
        case AST_FOR:
            target_names(g, s->targets[0], out);
            assigned_names(g, &s->body, out);
            break;
        case AST_WHILE:
            assigned_names(g, &s->body, out);
            break;
        case AST_IF:
            assigned_names(g, &s->body, out);
            assigned_names(g, &s->orelse, out);
            break;
        default: break;
        }
    }
}

static bool is_range_call(irgen *g, const ast_expr *it, bool *is_static)
{
    if (it->kind != AST_CALL)
        return false;
    const ast_expr *f = it->callee;
    if (f->kind == AST_NAME && !strcmp(f->name, "range")) {
        *is_static = false;
        return true;
    }
    if (f->kind == AST_ATTR && !strcmp(f->name, "range") && f->lhs->kind == AST_NAME) {
        gval *v = env_lookup(&g->scope, f->lhs->name);
        *is_static = false;
        return !v || v->kind == GV_MODULE;
    }
    if (f->kind == AST_ATTR && !strcmp(f->name, "static_range") && f->lhs->kind == AST_NAME) {
        gval *v = env_lookup(&g->scope, f->lhs->name);
        *is_static = true;
        return !v || v->kind == GV_MODULE;
    }
    return false;
}

static void lower_static_for(irgen *g, const ast_stmt *s, const ast_expr *it)
{
    int64_t v[3] = {0, 0, 1};
    if (it->nkwargs) {
        ig_error(g, it->kwargs[0].loc, "sl.static_range takes no keyword arguments");
        return;
    }
    if (it->nargs < 1 || it->nargs > 3) {
        ig_error(g, it->loc, "sl.static_range() takes 1 to 3 positional arguments, not %d",
                 it->nargs);
        return;
    }
    for (int i = 0; i < it->nargs; i++)
        if (!ig_const_int(g, it->args[i], ig_expr(g, it->args[i]),
                          "a bound of sl.static_range", &v[it->nargs == 1 ? 1 : i]))
            return;
    int64_t start = v[0], stop = v[1], step = v[2];
    if (step == 0) {
        ig_error(g, it->loc, "sl.static_range() step must not be zero");
        return;
    }
    /* Python's len(range(...)), exact at the int64 limits (checked.h). */
    uint64_t count = range_length(start, stop, step);
    if (count > MAX_STATIC_UNROLL || count > (uint64_t)g->unroll_budget) {
        ig_error(g, it->loc, "sl.static_range of %llu iterations is too long to unroll (limit %d); "
                             "use range()", (unsigned long long)count, MAX_STATIC_UNROLL);
        return;
    }
    g->unroll_budget -= (int)count;
    for (uint64_t k = 0; k < count && !ig_failed(g); k++) {
        env_set(g, &g->scope, s->targets[0]->name, gv_int(range_item(start, step, k)));
        ig_lower_block(g, &s->body);
    }
}

static bool loop_bound(irgen *g, const ast_expr *a, gval *out, bool *wide)
{
    char b[64];
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_CONST && v.c.kind == CONST_U64) {
        ig_error(g, a->loc, "a range() bound must fit int64, not %s (a uint64)",
                 ig_const_int_text(v.c, b));
        return false;
    }
    if (v.kind == GV_CONST && (v.c.kind == CONST_INT || v.c.kind == CONST_BOOL)) {
        if (v.c.i < INT32_MIN || v.c.i > INT32_MAX)
            *wide = true;
    } else if (v.kind == GV_IR) {
        ir_type t = ig_type(g, v);
        if (t.kind != TY_SCALAR || !ir_dtype_is_int((ir_dtype)t.dtype)) {
            ig_error(g, a->loc, "range() bounds must be integer scalars, not %s", ig_type_name(t, b));
            return false;
        }
        if (t.dtype == DT_I64 || t.dtype == DT_U32 || t.dtype == DT_U64)
            *wide = true; /* an int64 counter: uint32 bounds pass 2^31 */
    } else {
        ig_error(g, a->loc, "range() bounds must be integers");
        return false;
    }
    *out = v;
    return true;
}

/* The keywords of Triton's tl.range that tune software pipelining and
 * unrolling: accepted with a value of the right kind, and not used. */
static bool check_range_hints(irgen *g, const ast_expr *it)
{
    static const char *const int_hints[] = {"num_stages", "loop_unroll_factor"};
    static const char *const bool_hints[] = {"disallow_acc_multi_buffer", "flatten",
                                             "warp_specialize", "disable_licm"};
    static const char *const all[] = {"num_stages", "loop_unroll_factor",
                                      "disallow_acc_multi_buffer", "flatten", "warp_specialize",
                                      "disable_licm"};
    for (int k = 0; k < it->nkwargs; k++) {
        const ast_keyword *kw = &it->kwargs[k];
        bool is_int = false, is_bool = false;
        for (size_t i = 0; i < sizeof int_hints / sizeof int_hints[0]; i++)
            is_int = is_int || !strcmp(kw->name, int_hints[i]);
        for (size_t i = 0; i < sizeof bool_hints / sizeof bool_hints[0]; i++)
            is_bool = is_bool || !strcmp(kw->name, bool_hints[i]);
        if (!is_int && !is_bool) {
            const char *near = closest_name(kw->name, all, sizeof all / sizeof all[0]);
            ig_error(g, kw->loc, "sl.range has no parameter named '%s'%s%s%s (its hints: "
                                 "num_stages, loop_unroll_factor, disallow_acc_multi_buffer, "
                                 "flatten, warp_specialize, disable_licm)", kw->name,
                     near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            return false;
        }
        for (int j = 0; j < k; j++)
            if (!strcmp(it->kwargs[j].name, kw->name)) {
                ig_error(g, kw->loc, "sl.range got '%s' twice", kw->name);
                return false;
            }
        if (kw->value->kind == AST_NONE)
            continue;
        gval v = ig_expr(g, kw->value);
        if (v.kind == GV_ERROR)
            return false;
        if (is_int) {
            if (v.kind != GV_CONST || v.c.kind != CONST_INT || v.c.i < 0) {
                ig_error(g, kw->value->loc, "%s of sl.range must be a non-negative compile-time "
                                            "integer (or None)", kw->name);
                return false;
            }
        } else if (v.kind != GV_CONST || v.c.kind != CONST_BOOL) {
            ig_error(g, kw->value->loc, "%s of sl.range must be True or False", kw->name);
            return false;
        }
    }
    return true;
}

/* The variables a runtime loop carries: assigned in its body and bound
 * before it (to a value that can be an IR value), except the loop
 * variable `skip`. */
typedef struct loop_vars {
    env assigned;
    int n;
    const char **names;
    ir_type *types;
    ir_value *inits;
} loop_vars;

static bool loop_carried(irgen *g, const ast_stmt *s, const char *skip, loop_vars *lv,
                         const char *how)
{
    memset(lv, 0, sizeof *lv);
    assigned_names(g, &s->body, &lv->assigned);
    size_t cap = (size_t)lv->assigned.n + 1;
    lv->names = arena_alloc(g->ar, sizeof(char *) * cap);
    lv->types = arena_alloc(g->ar, sizeof(ir_type) * cap);
    lv->inits = arena_alloc(g->ar, sizeof(ir_value) * cap);
    for (int i = 0; i < lv->assigned.n; i++) {
        const char *name = lv->assigned.items[i].name;
        gval *v = env_lookup(&g->scope, name);
        if ((skip && !strcmp(name, skip)) || !v || !ig_mergeable(*v))
            continue;
        ir_value init = ig_to_ir(g, s->loc, *v, ir_type_void());
        if (init == IR_NO_VALUE ||
            !ig_check_not_segment(g, s->loc, name, ir_value_type(g->m, init), how))
            return false;
        lv->names[lv->n] = name;
        lv->types[lv->n] = ir_value_type(g->m, init);
        lv->inits[lv->n] = init;
        lv->n++;
    }
    return true;
}

/* After a loop: the carried names hold its results; a name first bound in
 * the body cannot be used. */
static void loop_after(irgen *g, const ast_stmt *s, const loop_vars *lv, const ir_value *results,
                       const char *what)
{
    for (int i = 0; i < lv->n; i++)
        env_set(g, &g->scope, lv->names[i], gv_ir(results[i]));
    /* Each assigned name once: only the names bound before the loop are
     * found here (a name bound below is not looked up again). */
    for (int i = 0; i < lv->assigned.n; i++) {
        const char *name = lv->assigned.items[i].name;
        if (!env_lookup(&g->scope, name))
            env_set(g, &g->scope, name,
                    ig_undef(g, arena_printf(g->ar, "variable '%%s' is assigned inside the %s loop at "
                                                 "line %%d and cannot be used after it", what),
                          name, ig_user_line(g, s->loc)));
    }
}

/* Lowers a loop body into `body` as a tail (break and continue end their
 * paths); returns the values its sw.yield passes on, t->nout of them. */
static ir_value *lower_loop_body(irgen *g, const ast_stmt *s, const ig_tail *t, ir_block *body)
{
    ir_block *outer = g->block;
    g->block = body;
    region_mark region = ig_enter_region(g, t->is_while ? "while loop" : "for loop", s->loc);
    gval *out = arena_alloc(g->ar, sizeof(gval) * (size_t)(t->nout + 1));
    ig_lower_tail(g, &s->body, t, out);
    ig_leave_region(g, region);
    g->block = outer;
    if (ig_failed(g))
        return NULL;
    ir_value *ys = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(t->nout + 1));
    for (int j = 0; j < t->nout; j++) {
        if (out[j].kind != GV_IR)
            sw_unreachable(g->d, "irgen: a loop exit value is not an IR value");
        ys[j] = out[j].v;
    }
    return ys;
}

static ir_op *region_op(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
                        const ir_type *types, int nresults, ir_block *const *regions, int nregions)
{
    ir_op *op = ir_op_create(g->m, kind, ig_op_loc(g, loc), operands, n, types, nresults, 0);
    op->nregions = nregions;
    op->regions = arena_alloc(g->ar, sizeof(ir_block *) * (size_t)nregions);
    for (int i = 0; i < nregions; i++) {
        op->regions[i] = regions[i];
        regions[i]->parent_op = op;
    }
    return op;
}

static void lower_range_for(irgen *g, const ast_stmt *s, const ast_expr *it)
{
    bool sl_range = it->callee->kind == AST_ATTR;
    if (sl_range) {
        if (it->nargs < 1 || it->nargs > 3) {
            ig_error(g, it->loc, "sl.range() takes 1 to 3 positional bounds; give num_stages and "
                                 "the other hints by keyword");
            return;
        }
        if (!check_range_hints(g, it))
            return;
    } else if (it->nkwargs || it->nargs < 1 || it->nargs > 3) {
        ig_error(g, it->loc, "range() takes 1 to 3 positional arguments");
        return;
    }
    gval bounds[3] = {gv_int(0), gv_int(0), gv_int(1)};
    bool wide = false;
    for (int i = 0; i < it->nargs; i++)
        if (!loop_bound(g, it->args[i], &bounds[it->nargs == 1 ? 1 : i], &wide))
            return;
    if (bounds[2].kind == GV_CONST && bounds[2].c.i == 0) {
        ig_error(g, it->args[2]->loc, "range() step must not be zero");
        return;
    }
    ir_type ivt = ir_type_scalar(wide ? DT_I64 : DT_I32);
    ir_value ops_bounds[3];
    for (int i = 0; i < 3; i++) {
        ir_value v = ig_to_ir(g, it->loc, bounds[i], ivt);
        if (v == IR_NO_VALUE)
            return;
        ops_bounds[i] = ig_cast(g, it->loc, v, (ir_dtype)ivt.dtype);
    }

    /* Loop-carried variables: assigned in the body and bound before it;
     * with a break, a flag first (whether the loop broke): later
     * iterations then do nothing. */
    const char *iv_name = s->targets[0]->name;
    loop_vars lv;
    if (!loop_carried(g, s, iv_name, &lv, "be reassigned inside a for loop"))
        return;
    bool brk = block_breaks(&s->body);
    int nf = brk ? 1 : 0, nc = nf + lv.n;
    ir_value *inits = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(nc + 4));
    ir_type *types = arena_alloc(g->ar, sizeof(ir_type) * (size_t)(nc + 1));
    for (int i = 0; i < 3; i++)
        inits[i] = ops_bounds[i];
    if (brk) {
        inits[3] = ig_materialize(g, s->loc, gv_bool(false).c, ir_type_scalar(DT_I1));
        types[0] = ir_type_scalar(DT_I1);
    }
    for (int i = 0; i < lv.n; i++) {
        inits[3 + nf + i] = lv.inits[i];
        types[nf + i] = lv.types[i];
    }
    if (ig_failed(g))
        return;

    /* The body's bindings are undone after it (back to the scope before). */
    int mark = env_mark(&g->scope);
    ir_block *body = ir_block_create(g->m);
    ir_value iv = ir_block_add_arg(g->m, body, ivt, NULL);
    env_set(g, &g->scope, iv_name, gv_ir(iv));
    ir_value broke = brk ? ir_block_add_arg(g->m, body, types[0], NULL) : IR_NO_VALUE;
    for (int i = 0; i < lv.n; i++)
        env_set(g, &g->scope, lv.names[i], gv_ir(ir_block_add_arg(g->m, body, lv.types[i], NULL)));
    ig_tail t = {.loop = true, .nout = nc, .stmt = s, .flag = brk, .ncarried = lv.n,
                 .carried = lv.names, .types = lv.types};
    ir_value *ys;
    if (!brk) {
        ys = lower_loop_body(g, s, &t, body);
    } else {
        /* if broke: pass everything on unchanged (and stay broken); else the body. */
        ir_block *blocks[2] = {ir_block_create(g->m), ir_block_create(g->m)};
        ir_value *run = lower_loop_body(g, s, &t, blocks[1]);
        ys = NULL;
        if (run) {
            ir_block_append(blocks[0], ir_op_create(g->m, IR_YIELD, ig_op_loc(g, s->loc),
                                                    body->args + 1, nc, NULL, 0, 0));
            ir_block_append(blocks[1], ir_op_create(g->m, IR_YIELD, ig_op_loc(g, s->loc), run, nc,
                                                    NULL, 0, 0));
            ir_op *skip = region_op(g, IR_IF, s->loc, &broke, 1, types, nc, blocks, 2);
            ir_block_append(body, skip);
            ys = skip->results;
        }
    }
    if (!ys || ig_failed(g)) {
        env_undo(&g->scope, mark);
        return;
    }
    ir_block_append(body, ir_op_create(g->m, IR_YIELD, ig_op_loc(g, s->loc), ys, nc, NULL, 0, 0));
    ir_op *op = region_op(g, IR_FOR, s->loc, inits, 3 + nc, types, nc, &body, 1);
    ir_block_append(g->block, op);
    env_undo(&g->scope, mark);
    loop_after(g, s, &lv, op->results + nf, "for");
    env_set(g, &g->scope, iv_name,
            ig_undef(g, "the loop variable '%s' of the for loop at line %d cannot be used after it",
                  iv_name, ig_user_line(g, s->loc)));
}

void ig_lower_while(irgen *g, const ast_stmt *s)
{
    gval c0 = ig_condition(g, s->cond, "while");
    if (c0.kind == GV_ERROR || ig_failed(g))
        return;
    if (c0.kind == GV_CONST && !c0.c.i)
        return; /* never runs */
    loop_vars lv;
    if (!loop_carried(g, s, NULL, &lv, "be reassigned inside a while loop"))
        return;
    int nc = lv.n;
    ir_value *inits = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(nc + 1));
    inits[0] = c0.kind == GV_IR ? c0.v : ig_materialize(g, s->loc, c0.c, ir_type_scalar(DT_I1));
    for (int i = 0; i < nc; i++)
        inits[1 + i] = lv.inits[i];
    if (ig_failed(g))
        return;
    int mark = env_mark(&g->scope);
    ir_block *body = ir_block_create(g->m);
    for (int i = 0; i < nc; i++)
        env_set(g, &g->scope, lv.names[i], gv_ir(ir_block_add_arg(g->m, body, lv.types[i], NULL)));
    ig_tail t = {.loop = true, .nout = 1 + nc, .stmt = s, .is_while = true, .flag = true,
                 .ncarried = nc, .carried = lv.names, .types = lv.types};
    ir_value *ys = lower_loop_body(g, s, &t, body);
    if (!ys || ig_failed(g)) {
        env_undo(&g->scope, mark);
        return;
    }
    ir_block_append(body, ir_op_create(g->m, IR_YIELD, ig_op_loc(g, s->loc), ys, 1 + nc, NULL, 0, 0));
    ir_op *op = region_op(g, IR_WHILE, s->loc, inits, 1 + nc, lv.types, nc, &body, 1);
    ir_block_append(g->block, op);
    env_undo(&g->scope, mark);
    loop_after(g, s, &lv, op->results, "while");
}

void ig_lower_for(irgen *g, const ast_stmt *s)
{
    bool is_static = false;
    const ast_expr *it = s->value;
    if (!is_range_call(g, it, &is_static)) {
        ig_error(g, it->loc, "a 'for' loop must iterate over range(...), sl.range(...) or "
                             "sl.static_range(...)");
        return;
    }
    if (is_static)
        lower_static_for(g, s, it);
    else
        lower_range_for(g, s, it);
}
