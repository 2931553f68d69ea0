/* irgen.c - lowers a kernel's statements to the semantic IR for one
 * specialisation: parameters, scopes, if (structured or compile-time), for
 * (sw.for or unrolled static_range), assignment. Requires a parsed ast_func;
 * guarantees a module that passes ir_verify, or a diagnostic. */
#include "irgen_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_STATIC_UNROLL = 4096, UNROLL_BUDGET = 1 << 16 };

/* The most IR values one kernel may make: sl.static_range copies its body
 * once per iteration, so a short source can ask for millions of ops. This
 * bound keeps every compile well under a second (docs/language.md); a
 * 4096-way unrolled 10-line kernel makes about 41,000. */
enum { MAX_IR_VALUES = 1 << 18 };

/* ---- plumbing ----------------------------------------------------------- */

gval ig_error(irgen *g, src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(g->d, DIAG_COMPILE, g->src, loc, fmt, ap);
    va_end(ap);
    return (gval){.kind = GV_ERROR};
}

bool ig_failed(const irgen *g) { return diag_failed(g->d); }

ir_op *ig_emit(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
               const ir_type *results, int nresults)
{
    if (ig_failed(g))
        return NULL;
    for (int i = 0; i < n; i++)
        if (operands[i] == IR_NO_VALUE)
            return NULL;
    if (!ig_check_segment_op(g, kind, loc, operands, n, results, nresults))
        return NULL;
    if (g->m->nvalues > MAX_IR_VALUES - nresults) {
        ig_error(g, loc, "the kernel is too large to compile: it makes more than %d IR values "
                         "(sl.static_range copies its body once per iteration; unroll less or "
                         "use range())", MAX_IR_VALUES);
        return NULL;
    }
    ir_op *op = ir_op_create(g->m, kind, loc, operands, n, results, nresults, 0);
    ir_block_append(g->block, op);
    return op;
}

ir_value ig_emit1(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
                  ir_type result)
{
    ir_op *op = ig_emit(g, kind, loc, operands, n, &result, 1);
    return op ? op->results[0] : IR_NO_VALUE;
}

static uint32_t name_hash(const char *name) { return (uint32_t)hash_bytes(name, strlen(name), 0); }

static int32_t env_find(const env *e, const char *name, uint32_t h)
{
    if (!e->nbuckets)
        return -1;
    for (int32_t i = e->buckets[h & (e->nbuckets - 1)]; i >= 0; i = e->items[i].next)
        if (e->items[i].hash == h && !strcmp(e->items[i].name, name))
            return i;
    return -1;
}

gval *env_lookup(env *e, const char *name)
{
    int32_t i = env_find(e, name, name_hash(name));
    return i >= 0 ? &e->items[i].val : NULL;
}

/* Rebuilds the hash chains with nb buckets, newest binding first in each. */
static void env_rehash(irgen *g, env *e, uint32_t nb)
{
    e->buckets = arena_alloc(g->ar, sizeof(int32_t) * nb);
    e->nbuckets = nb;
    memset(e->buckets, 0xff, sizeof(int32_t) * nb);
    for (int i = 0; i < e->n; i++) {
        int32_t *head = &e->buckets[e->items[i].hash & (nb - 1)];
        e->items[i].next = *head;
        *head = i;
    }
}

void env_set(irgen *g, env *e, const char *name, gval v)
{
    uint32_t h = name_hash(name);
    int32_t i = env_find(e, name, h);
    if (i >= 0) {
        if (e->marks) {
            env_change c = {.index = i, .old = e->items[i].val};
            VEC_PUSH(g->ar, e->log, e->nlog, e->caplog, c);
        }
        e->items[i].val = v;
        return;
    }
    binding b = {.name = name, .val = v, .hash = h};
    VEC_PUSH(g->ar, e->items, e->n, e->cap, b);
    if ((uint32_t)e->n > e->nbuckets) {
        env_rehash(g, e, e->nbuckets ? e->nbuckets * 2 : 16);
    } else {
        int32_t *head = &e->buckets[h & (e->nbuckets - 1)];
        e->items[e->n - 1].next = *head;
        *head = e->n - 1;
    }
    if (e->marks) {
        env_change c = {.index = e->n - 1, .added = true};
        VEC_PUSH(g->ar, e->log, e->nlog, e->caplog, c);
    }
}

int env_mark(env *e)
{
    e->marks++;
    return e->nlog;
}

void env_undo(env *e, int mark)
{
    while (e->nlog > mark) {
        const env_change *c = &e->log[--e->nlog];
        binding *b = &e->items[c->index];
        if (c->added) {
            /* The newest binding: the head of its chain, the last item. */
            e->buckets[b->hash & (e->nbuckets - 1)] = b->next;
            e->n--;
        } else {
            b->val = c->old;
        }
    }
    e->marks--;
}

gval ig_undefined_name(irgen *g, src_loc loc, const char *name)
{
    const char **names = arena_alloc(g->ar, sizeof(char *) * (size_t)(g->scope.n + 1));
    for (int i = 0; i < g->scope.n; i++)
        names[i] = g->scope.items[i].name;
    const char *near = closest_name(name, names, (size_t)g->scope.n);
    if (near)
        return ig_error(g, loc, "name '%s' is not defined; did you mean '%s'?", name, near);
    if (ig_is_builtin_name(name) || ir_dtype_from_name(name, strlen(name)) != DT_VOID)
        return ig_error(g, loc, "name '%s' is not defined; did you mean 'sl.%s'?", name, name);
    return ig_error(g, loc, "name '%s' is not defined", name);
}

static gval undef(irgen *g, const char *fmt, const char *name, int line)
{
    return (gval){.kind = GV_UNDEF, .note = arena_printf(g->ar, fmt, name, line)};
}

static int user_line(const irgen *g, src_loc loc)
{
    return loc.line + (g->src->first_line > 0 ? g->src->first_line - 1 : 0);
}

static bool same_gval(gval a, gval b)
{
    if (a.kind != b.kind)
        return false;
    if (a.kind == GV_IR)
        return a.v == b.v;
    if (a.kind == GV_CONST)
        return a.c.kind == b.c.kind && a.c.i == b.c.i &&
               (a.c.kind != CONST_FLOAT || a.c.f == b.c.f || (a.c.f != a.c.f && b.c.f != b.c.f));
    return a.kind != GV_UNDEF;
}

/* ---- statements --------------------------------------------------------- */

static void lower_block(irgen *g, const ast_block *b, int depth);

static void lower_assign(irgen *g, const ast_stmt *s)
{
    gval v = ig_expr(g, s->value);
    if (v.kind == GV_ERROR)
        return;
    if (v.kind == GV_UNDEF) {
        ig_error(g, s->value->loc, "%s", v.note);
        return;
    }
    for (int i = 0; i < s->ntargets; i++)
        env_set(g, &g->scope, s->targets[i]->name, v);
}

static void lower_augassign(irgen *g, const ast_stmt *s)
{
    const ast_expr *t = s->targets[0];
    gval *cur = env_lookup(&g->scope, t->name);
    if (!cur) {
        ig_undefined_name(g, t->loc, t->name);
        return;
    }
    gval a = *cur;
    if (a.kind == GV_UNDEF) {
        ig_error(g, t->loc, "%s", a.note);
        return;
    }
    gval b = ig_expr(g, s->value);
    ast_expr at = {.kind = AST_BINOP, .loc = s->loc, .op = s->op};
    gval r = ig_binop(g, &at, s->op, a, b);
    if (r.kind != GV_ERROR && !ig_failed(g))
        env_set(g, &g->scope, t->name, r);
}

/* The value a merged variable takes in one branch, as an IR value of t. */
static ir_value branch_value(irgen *g, ir_block *blk, src_loc loc, gval v, ir_type t)
{
    ir_block *saved = g->block;
    g->block = blk;
    ir_value r = v.kind == GV_IR ? v.v : ig_materialize(g, loc, v.c, t);
    g->block = saved;
    return r;
}

/* Type both sides of a merged variable agree on, or a void type after an error. */
static ir_type merge_type(irgen *g, const ast_stmt *s, const char *name, gval a, gval b)
{
    char b1[64], b2[64];
    if (a.kind == GV_IR && b.kind == GV_IR) {
        ir_type ta = ig_type(g, a), tb = ig_type(g, b);
        if (!ir_type_eq(ta, tb)) {
            ig_error(g, s->loc, "variable '%s' is %s after one branch of this if and %s after the "
                                "other; give it one type in both", name, ig_type_name(ta, b1),
                     ig_type_name(tb, b2));
            return ir_type_void();
        }
        return ta;
    }
    if (a.kind == GV_IR || b.kind == GV_IR) {
        gval ir = a.kind == GV_IR ? a : b, c = a.kind == GV_IR ? b : a;
        ir_type t = ig_type(g, ir);
        if (ir_type_is_ptrlike(t) || (c.c.kind == CONST_FLOAT && !ir_dtype_is_float((ir_dtype)t.dtype))) {
            ig_error(g, s->loc, "variable '%s' is %s after one branch of this if and a constant "
                                "after the other", name, ig_type_name(t, b1));
            return ir_type_void();
        }
        return t;
    }
    /* Two different constants. */
    if (a.c.kind == CONST_FLOAT || b.c.kind == CONST_FLOAT)
        return ir_type_scalar(DT_F32);
    ir_type ta = ig_const_type(a.c), tb = ig_const_type(b.c);
    return ir_type_scalar(ig_promote((ir_dtype)ta.dtype, (ir_dtype)tb.dtype));
}

static bool mergeable(gval v) { return v.kind == GV_IR || (v.kind == GV_CONST && v.c.kind != CONST_DTYPE); }

/* A binding one branch of an if made or changed, with its value after the
 * branch. */
typedef struct branch_binding {
    const char *name;
    int32_t index; /* in the scope while the branch ran */
    gval val;
} branch_binding;

/* What the current branch bound since `mark`, each binding once. */
static branch_binding *branch_bindings(irgen *g, int mark, int *n)
{
    env *e = &g->scope;
    branch_binding *out = arena_alloc(g->ar, sizeof(branch_binding) * (size_t)(e->nlog - mark + 1));
    int32_t stamp = ++e->stamp;
    *n = 0;
    for (int k = mark; k < e->nlog; k++) {
        binding *b = &e->items[e->log[k].index];
        if (b->seen == stamp)
            continue;
        b->seen = stamp;
        out[(*n)++] = (branch_binding){b->name, e->log[k].index, b->val};
    }
    return out;
}

/* A name either branch bound, and what it holds after each. */
typedef struct merge_entry {
    const char *name;
    int64_t key;     /* its place in the order of the merge */
    bool has[2];     /* bound after branch 0 / branch 1 */
    gval val[2];
} merge_entry;

static int merge_cmp(const void *a, const void *b)
{
    int64_t x = ((const merge_entry *)a)->key, y = ((const merge_entry *)b)->key;
    return x < y ? -1 : x > y;
}

/* The names to merge after an if, in the order of the scope after branch
 * 0 (names from before the if first), then the names only branch 1 bound,
 * in its order: only names a branch bound can differ between the two. */
static merge_entry *merge_entries(irgen *g, int nbefore, branch_binding *const bound[2],
                                  const int nbound[2], int *n)
{
    int total = nbound[0] + nbound[1];
    merge_entry *entries = arena_alloc(g->ar, sizeof(merge_entry) * (size_t)(total + 1));
    uint32_t cap = 16;
    while (cap < 2u * (uint32_t)total)
        cap *= 2;
    int32_t *slots = arena_alloc(g->ar, sizeof(int32_t) * cap); /* entry + 1, 0: free */
    *n = 0;
    for (int side = 0; side < 2; side++) {
        for (int k = 0; k < nbound[side]; k++) {
            const branch_binding *b = &bound[side][k];
            uint32_t i = name_hash(b->name) & (cap - 1);
            while (slots[i] && strcmp(entries[slots[i] - 1].name, b->name))
                i = (i + 1) & (cap - 1);
            if (!slots[i]) {
                merge_entry me = {.name = b->name};
                me.key = b->index < nbefore || side == 0 ? (int64_t)b->index : (int64_t)INT32_MAX + b->index;
                if (b->index < nbefore) {
                    /* Bound before the if: a side that leaves it alone
                     * keeps that value (the scope holds it again). */
                    me.has[0] = me.has[1] = true;
                    me.val[0] = me.val[1] = g->scope.items[b->index].val;
                }
                entries[*n] = me;
                slots[i] = ++*n;
            }
            merge_entry *me = &entries[slots[i] - 1];
            me->has[side] = true;
            me->val[side] = b->val;
        }
    }
    qsort(entries, (size_t)*n, sizeof *entries, merge_cmp);
    return entries;
}

static void lower_structured_if(irgen *g, const ast_stmt *s, ir_value cond, int depth)
{
    env *scope = &g->scope;
    int nbefore = scope->n;
    ir_block *outer = g->block;
    ir_block *blocks[2] = {ir_block_create(g->m), ir_block_create(g->m)};
    const ast_block *bodies[2] = {&s->body, &s->orelse};
    const char *outer_what = g->region_what;
    src_loc outer_at = g->region_at;
    g->region_what = "if with a runtime condition";
    g->region_at = s->loc;
    /* Each branch starts from the scope before the if: what it binds is
     * noted, then undone. */
    branch_binding *bound[2] = {NULL, NULL};
    int nbound[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        g->block = blocks[i];
        int mark = env_mark(scope);
        lower_block(g, bodies[i], depth + 1);
        if (!ig_failed(g))
            bound[i] = branch_bindings(g, mark, &nbound[i]);
        env_undo(scope, mark);
    }
    g->region_what = outer_what;
    g->region_at = outer_at;
    g->block = outer;
    if (ig_failed(g))
        return;
    int nentries;
    merge_entry *entries = merge_entries(g, nbefore, bound, nbound, &nentries);

    const char **merged = arena_alloc(g->ar, sizeof(char *) * (size_t)(nentries + 1));
    ir_value *yields[2];
    ir_type *types = arena_alloc(g->ar, sizeof(ir_type) * (size_t)(nentries + 1));
    yields[0] = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(nentries + 1));
    yields[1] = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(nentries + 1));
    int nmerged = 0;
    for (int i = 0; i < nentries; i++) {
        const char *name = entries[i].name;
        gval *t = entries[i].has[0] ? &entries[i].val[0] : NULL;
        gval *e = entries[i].has[1] ? &entries[i].val[1] : NULL;
        if (t && e && same_gval(*t, *e)) {
            env_set(g, &g->scope, name, *t);
            continue;
        }
        if (!t || !e) {
            env_set(g, &g->scope, name,
                    undef(g, "variable '%s' is assigned in only one branch of the if at line %d, "
                             "so it cannot be used after it", name, user_line(g, s->loc)));
            continue;
        }
        if (!mergeable(*t) || !mergeable(*e)) {
            env_set(g, &g->scope, name,
                    undef(g, "variable '%s' holds different kinds of values after the two "
                             "branches of the if at line %d", name, user_line(g, s->loc)));
            continue;
        }
        ir_type ty = merge_type(g, s, name, *t, *e);
        if (ig_failed(g) ||
            !ig_check_not_segment(g, s->loc, name, ty, "take a different value in each branch of an "
                                                       "if with a runtime condition (use sl.where)"))
            return;
        yields[0][nmerged] = branch_value(g, blocks[0], s->loc, *t, ty);
        yields[1][nmerged] = branch_value(g, blocks[1], s->loc, *e, ty);
        if (ig_failed(g))
            return;
        types[nmerged] = ty;
        merged[nmerged++] = name;
    }
    for (int i = 0; i < 2; i++) {
        ir_op *y = ir_op_create(g->m, IR_YIELD, s->loc, yields[i], nmerged, NULL, 0, 0);
        ir_block_append(blocks[i], y);
    }
    ir_op *op = ir_op_create(g->m, IR_IF, s->loc, &cond, 1, types, nmerged, 0);
    op->nregions = 2;
    op->regions = arena_alloc(g->ar, sizeof(ir_block *) * 2);
    for (int i = 0; i < 2; i++) {
        op->regions[i] = blocks[i];
        blocks[i]->parent_op = op;
    }
    ir_block_append(g->block, op);
    for (int i = 0; i < nmerged; i++)
        env_set(g, &g->scope, merged[i], gv_ir(op->results[i]));
}

static void lower_if(irgen *g, const ast_stmt *s, int depth)
{
    char b[64];
    gval c = ig_expr(g, s->cond);
    if (c.kind == GV_ERROR)
        return;
    if (c.kind == GV_CONST) {
        /* A compile-time condition compiles only the branch taken. */
        bool taken = c.c.kind == CONST_FLOAT ? c.c.f != 0 : c.c.i != 0;
        lower_block(g, taken ? &s->body : &s->orelse, depth);
        return;
    }
    ir_value cv = ig_to_ir(g, s->cond->loc, c, ir_type_void());
    if (cv == IR_NO_VALUE)
        return;
    ir_type t = ir_value_type(g->m, cv);
    if (t.kind == TY_TILE || ig_is_segment_type(t)) {
        ig_error(g, s->cond->loc, "the condition of 'if' must be a scalar, not a %s; use sl.where "
                                  "for %s", ig_type_name(t, b),
                 t.kind == TY_TILE ? "tiles" : "segment values");
        return;
    }
    if (t.kind != TY_SCALAR || t.dtype != DT_I1) {
        ig_error(g, s->cond->loc, "the condition of 'if' must be int1 (bool), not %s; compare "
                                  "first, e.g. (x != 0)", ig_type_name(t, b));
        return;
    }
    lower_structured_if(g, s, cv, depth);
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
                env_set(g, out, s->targets[t]->name, (gval){0});
            break;
        case AST_FOR:
            env_set(g, out, s->targets[0]->name, (gval){0});
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

static void lower_static_for(irgen *g, const ast_stmt *s, const ast_expr *it, int depth)
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
        lower_block(g, &s->body, depth + 1);
    }
}

static bool loop_bound(irgen *g, const ast_expr *a, gval *out, bool *wide)
{
    char b[64];
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_CONST && (v.c.kind == CONST_INT || v.c.kind == CONST_BOOL)) {
        if (v.c.i < INT32_MIN || v.c.i > INT32_MAX)
            *wide = true;
    } else if (v.kind == GV_IR) {
        ir_type t = ig_type(g, v);
        if (t.kind != TY_SCALAR || !ir_dtype_is_int((ir_dtype)t.dtype)) {
            ig_error(g, a->loc, "range() bounds must be integer scalars, not %s", ig_type_name(t, b));
            return false;
        }
        if (t.dtype == DT_I64)
            *wide = true;
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

static void lower_range_for(irgen *g, const ast_stmt *s, const ast_expr *it, int depth)
{
    char b1[64], b2[64];
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

    /* Loop-carried variables: assigned in the body and bound before it. */
    env assigned = {0};
    assigned_names(g, &s->body, &assigned);
    const char *iv_name = s->targets[0]->name;
    int ncarried = 0;
    const char **carried = arena_alloc(g->ar, sizeof(char *) * (size_t)(assigned.n + 1));
    ir_value *inits = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(assigned.n + 4));
    ir_type *types = arena_alloc(g->ar, sizeof(ir_type) * (size_t)(assigned.n + 1));
    for (int i = 0; i < 3; i++)
        inits[i] = ops_bounds[i];
    for (int i = 0; i < assigned.n; i++) {
        const char *name = assigned.items[i].name;
        gval *v = env_lookup(&g->scope, name);
        if (!strcmp(name, iv_name) || !v || !mergeable(*v))
            continue;
        ir_value init = ig_to_ir(g, s->loc, *v, ir_type_void());
        if (init == IR_NO_VALUE ||
            !ig_check_not_segment(g, s->loc, name, ir_value_type(g->m, init),
                                  "be reassigned inside a for loop"))
            return;
        carried[ncarried] = name;
        types[ncarried] = ir_value_type(g->m, init);
        inits[3 + ncarried] = init;
        ncarried++;
    }

    /* The body's bindings are undone after it (back to the scope before). */
    int mark = env_mark(&g->scope);
    ir_block *outer = g->block;
    ir_block *body = ir_block_create(g->m);
    ir_value iv = ir_block_add_arg(g->m, body, ivt, NULL);
    env_set(g, &g->scope, iv_name, gv_ir(iv));
    for (int i = 0; i < ncarried; i++)
        env_set(g, &g->scope, carried[i], gv_ir(ir_block_add_arg(g->m, body, types[i], NULL)));
    g->block = body;
    const char *outer_what = g->region_what;
    src_loc outer_at = g->region_at;
    g->region_what = "for loop";
    g->region_at = s->loc;
    lower_block(g, &s->body, depth + 1);
    g->region_what = outer_what;
    g->region_at = outer_at;
    if (ig_failed(g)) {
        g->block = outer;
        env_undo(&g->scope, mark);
        return;
    }
    ir_value *yields = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(ncarried + 1));
    for (int i = 0; i < ncarried; i++) {
        gval *v = env_lookup(&g->scope, carried[i]);
        if (!v || !mergeable(*v)) {
            ig_error(g, s->loc, "variable '%s' does not hold a value at the end of the loop body",
                     carried[i]);
            return;
        }
        if (v->kind == GV_CONST) {
            yields[i] = ig_materialize(g, s->loc, v->c, types[i]);
        } else {
            ir_type t = ig_type(g, *v);
            if (!ir_type_eq(t, types[i])) {
                ig_error(g, s->loc, "variable '%s' is %s before the loop but %s at the end of its "
                                    "body; a loop-carried variable must keep its type (initialise "
                                    "it with a value of the same type)", carried[i],
                         ig_type_name(types[i], b1), ig_type_name(t, b2));
                return;
            }
            yields[i] = v->v;
        }
    }
    if (ig_failed(g))
        return;
    ir_block_append(body, ir_op_create(g->m, IR_YIELD, s->loc, yields, ncarried, NULL, 0, 0));
    g->block = outer;
    ir_op *op = ir_op_create(g->m, IR_FOR, s->loc, inits, 3 + ncarried, types, ncarried, 0);
    op->nregions = 1;
    op->regions = arena_alloc(g->ar, sizeof(ir_block *));
    op->regions[0] = body;
    body->parent_op = op;
    ir_block_append(g->block, op);

    env_undo(&g->scope, mark);
    for (int i = 0; i < ncarried; i++)
        env_set(g, &g->scope, carried[i], gv_ir(op->results[i]));
    /* Each assigned name once: only the names bound before the loop are
     * found here (a name bound below is not looked up again). */
    for (int i = 0; i < assigned.n; i++) {
        const char *name = assigned.items[i].name;
        gval *v = env_lookup(&g->scope, name);
        if (!v || !strcmp(name, iv_name))
            env_set(g, &g->scope, name,
                    undef(g, "variable '%s' is assigned inside the for loop at line %d and cannot "
                             "be used after it", name, user_line(g, s->loc)));
    }
    env_set(g, &g->scope, iv_name,
            undef(g, "the loop variable '%s' of the for loop at line %d cannot be used after it",
                  iv_name, user_line(g, s->loc)));
}

static void lower_for(irgen *g, const ast_stmt *s, int depth)
{
    bool is_static = false;
    const ast_expr *it = s->value;
    if (!is_range_call(g, it, &is_static)) {
        ig_error(g, it->loc, "a 'for' loop must iterate over range(...), sl.range(...) or "
                             "sl.static_range(...)");
        return;
    }
    if (is_static)
        lower_static_for(g, s, it, depth);
    else
        lower_range_for(g, s, it, depth);
}

static void lower_stmt(irgen *g, const ast_stmt *s, int depth, bool last)
{
    switch (s->kind) {
    case AST_ASSIGN: lower_assign(g, s); break;
    case AST_AUGASSIGN: lower_augassign(g, s); break;
    case AST_EXPR: {
        gval v = ig_expr(g, s->value);
        (void)v;
        break;
    }
    case AST_IF: lower_if(g, s, depth); break;
    case AST_FOR: lower_for(g, s, depth); break;
    case AST_RETURN:
        if (s->value)
            ig_error(g, s->loc, "return with a value is not supported: kernels write their "
                                "results with sl.store");
        else if (depth > 0 || !last)
            ig_error(g, s->loc, "'return' is only supported as the last statement of the kernel");
        break;
    case AST_PASS: break;
    }
}

static void lower_block(irgen *g, const ast_block *b, int depth)
{
    for (int i = 0; i < b->nstmts && !ig_failed(g); i++)
        lower_stmt(g, b->stmts[i], depth, i == b->nstmts - 1);
}

/* ---- parameters --------------------------------------------------------- */

static bool is_constexpr_annotation(const ast_expr *a)
{
    return (a->kind == AST_ATTR && !strcmp(a->name, "constexpr")) ||
           (a->kind == AST_NAME && !strcmp(a->name, "constexpr")) ||
           (a->kind == AST_STRING && (!strcmp(a->name, "sl.constexpr") || !strcmp(a->name, "constexpr")));
}

static bool annotation_dtype(const ast_expr *a, ir_dtype *dt)
{
    const char *n = a->kind == AST_ATTR || a->kind == AST_NAME ? a->name : NULL;
    if (!n)
        return false;
    *dt = ir_dtype_from_name(n, strlen(n));
    return *dt != DT_VOID;
}

/* "<what> names 'xptr', which is not a parameter of 'k'; did you mean
 * 'x_ptr'? (its parameters: ...)". */
static void unknown_parameter(irgen *g, const ast_func *fn, const char *what, const char *name)
{
    const char **names = arena_alloc(g->ar, sizeof(char *) * (size_t)(fn->nparams + 1));
    strbuf list;
    sb_init(&list);
    for (int i = 0; i < fn->nparams; i++) {
        names[i] = fn->params[i].name;
        sb_printf(&list, "%s%s", i ? ", " : "", fn->params[i].name);
    }
    const char *near = closest_name(name, names, (size_t)fn->nparams);
    char none[] = "none";
    const char *params = list.data ? list.data : none;
    if (near)
        diag_error(g->d, DIAG_ARGUMENT, "%s names '%s', which is not a parameter of '%s'; did you "
                   "mean '%s'? (its parameters: %s)", what, name, fn->name, near, params);
    else
        diag_error(g->d, DIAG_ARGUMENT, "%s names '%s', which is not a parameter of '%s' (its "
                   "parameters: %s)", what, name, fn->name, params);
    sb_free(&list);
}

static bool bind_params(irgen *g, const ast_func *fn, kernel_spec *spec, ir_block *body,
                        irgen_result *out)
{
    char b1[64], b2[64];
    /* Names that are no parameter first: a misspelt one would otherwise
     * show up as the real parameter's missing type or value. */
    for (int pass = 0; pass < 2; pass++) {
        const spec_entry *entries = pass ? spec->constexprs : spec->types;
        int n = pass ? spec->nconstexprs : spec->ntypes;
        for (int i = 0; i < n; i++) {
            bool known = false;
            for (int j = 0; j < fn->nparams && !known; j++)
                known = !strcmp(fn->params[j].name, entries[i].name);
            if (!known) {
                unknown_parameter(g, fn, pass ? "constexprs" : "the signature", entries[i].name);
                return false;
            }
        }
    }
    out->params = arena_alloc(g->ar, sizeof(irgen_param) * (size_t)(fn->nparams + 1));
    out->nparams = fn->nparams;
    for (int i = 0; i < fn->nparams; i++) {
        const ast_param *p = &fn->params[i];
        irgen_param *ip = &out->params[i];
        ip->name = p->name;
        for (int j = 0; j < i; j++)
            if (!strcmp(fn->params[j].name, p->name)) {
                ig_error(g, p->loc, "duplicate parameter '%s'", p->name);
                return false;
            }
        spec_entry *ty = spec_find_type(spec, p->name);
        spec_entry *ce = spec_find_constexpr(spec, p->name);
        if (p->annotation && is_constexpr_annotation(p->annotation)) {
            ip->is_constexpr = true;
            if (ty) {
                diag_error(g->d, DIAG_ARGUMENT, "parameter '%s' is an sl.constexpr: give its value "
                                                "in constexprs, not a type in the signature", p->name);
                return false;
            }
            if (ce) {
                ce->used = true;
                ip->value = ce->value;
            } else if (p->default_value) {
                gval d = ig_expr(g, p->default_value);
                if (d.kind != GV_CONST) {
                    if (d.kind != GV_ERROR)
                        ig_error(g, p->default_value->loc, "the default of an sl.constexpr must be a "
                                                           "constant");
                    return false;
                }
                ip->value = d.c;
            } else {
                diag_error(g->d, DIAG_ARGUMENT, "missing value for the sl.constexpr parameter '%s'",
                           p->name);
                return false;
            }
            env_set(g, &g->scope, p->name, (gval){.kind = GV_CONST, .c = ip->value});
            continue;
        }
        if (ce) {
            diag_error(g->d, DIAG_ARGUMENT, "parameter '%s' is not an sl.constexpr, but constexprs "
                                            "gives it a value", p->name);
            return false;
        }
        if (p->default_value) {
            ig_error(g, p->default_value->loc, "default values are only supported for sl.constexpr "
                                               "parameters");
            return false;
        }
        ir_dtype ann = DT_VOID;
        if (p->annotation && !annotation_dtype(p->annotation, &ann)) {
            ig_error(g, p->annotation->loc, "unsupported annotation: use sl.constexpr or a dtype such "
                                            "as sl.int32");
            return false;
        }
        if (ty) {
            ty->used = true;
            ip->type = ty->type;
            if (ann != DT_VOID && !ir_type_eq(ty->type, ir_type_scalar(ann))) {
                ig_error(g, p->annotation->loc, "parameter '%s' is annotated %s but the signature "
                                                "gives %s", p->name,
                         ig_type_name(ir_type_scalar(ann), b1), ig_type_name(ty->type, b2));
                return false;
            }
        } else if (ann != DT_VOID) {
            ip->type = ir_type_scalar(ann);
        } else {
            diag_error(g->d, DIAG_ARGUMENT, "the signature gives no type for parameter '%s'", p->name);
            return false;
        }
        ir_value v = ir_block_add_arg(g->m, body, ip->type, p->name);
        env_set(g, &g->scope, p->name, gv_ir(v));
    }
    for (int i = 0; i < spec->ntypes; i++)
        if (!spec->types[i].used) {
            unknown_parameter(g, fn, "the signature", spec->types[i].name);
            return false;
        }
    for (int i = 0; i < spec->nconstexprs; i++)
        if (!spec->constexprs[i].used) {
            unknown_parameter(g, fn, "constexprs", spec->constexprs[i].name);
            return false;
        }
    return true;
}

bool irgen_kernel(arena *a, const source_file *src, const ast_func *fn, kernel_spec *spec,
                  irgen_result *out, diag *d)
{
    irgen g = {.ar = a, .src = src, .d = d, .unroll_budget = UNROLL_BUDGET};
    g.seg.segment_id = IR_NO_VALUE;
    g.seg.offsets = IR_NO_VALUE;
    memset(out, 0, sizeof *out);
    g.m = ir_module_create(a, src);
    ir_op *func = ir_op_create(g.m, IR_FUNC, fn->loc, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(g.m, func, "sym_name", fn->name);
    ir_block_append(g.m->body, func);
    ir_block *body = ir_func_body(func);
    if (!bind_params(&g, fn, spec, body, out))
        return false;
    g.body = g.block = body;
    lower_block(&g, &fn->body, 0);
    if (ig_failed(&g))
        return false;
    ir_block_append(body, ir_op_create(g.m, IR_RETURN, fn->loc, NULL, 0, NULL, 0, 0));
    out->module = g.m;
    return true;
}
