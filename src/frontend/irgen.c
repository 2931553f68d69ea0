/* irgen.c - lowers a kernel's statements to the semantic IR for one
 * specialisation: parameters, scopes, if (structured or compile-time), for
 * (sw.for or unrolled static_range), assignment. Requires a parsed ast_func;
 * guarantees a module that passes ir_verify, or a diagnostic. */
#include "irgen_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UNROLL_BUDGET = 1 << 16 };

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
    ir_op *op = ir_op_create(g->m, kind, ig_op_loc(g, loc), operands, n, results, nresults, 0);
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

gval ig_undef(irgen *g, const char *fmt, const char *name, int line)
{
    return (gval){.kind = GV_UNDEF, .note = arena_printf(g->ar, fmt, name, line)};
}

int ig_user_line(const irgen *g, src_loc loc)
{
    return loc.line + (g->src->first_line > 0 ? g->src->first_line - 1 : 0);
}

bool ig_same_gval(gval a, gval b)
{
    if (a.kind != b.kind)
        return false;
    if (a.kind == GV_TUPLE) {
        if (a.nitems != b.nitems)
            return false;
        for (int i = 0; i < a.nitems; i++)
            if (!ig_same_gval(a.items[i], b.items[i]))
                return false;
        return true;
    }
    if (a.kind == GV_IR)
        return a.v == b.v;
    if (a.kind == GV_STR)
        return !strcmp(a.str, b.str);
    if (a.kind == GV_CONST)
        return a.c.kind == b.c.kind && a.c.i == b.c.i &&
               (a.c.kind != CONST_FLOAT || a.c.f == b.c.f || (a.c.f != a.c.f && b.c.f != b.c.f));
    return a.kind != GV_UNDEF;
}

/* ---- statements --------------------------------------------------------- */

static void lower_stmt(irgen *g, const ast_stmt *s);

/* Binds an assignment target (a name, or a tuple of targets) to v. */
static void bind_target(irgen *g, const ast_expr *t, gval v, const ast_expr *value)
{
    if (t->kind == AST_NAME) {
        env_set(g, &g->scope, t->name, v);
        return;
    }
    if (v.kind != GV_TUPLE) {
        ig_error(g, value->loc, "cannot unpack this value into %d names: only a tuple (what a "
                                "@sw.jit function returns, or x.shape) can be unpacked", t->nargs);
        return;
    }
    if (v.nitems != t->nargs) {
        ig_error(g, value->loc, "cannot unpack a tuple of %d value%s into %d names", v.nitems,
                 v.nitems == 1 ? "" : "s", t->nargs);
        return;
    }
    for (int i = 0; i < t->nargs && !ig_failed(g); i++)
        bind_target(g, t->args[i], v.items[i], value);
}

static void lower_assign(irgen *g, const ast_stmt *s)
{
    gval v = ig_expr(g, s->value);
    if (v.kind == GV_ERROR)
        return;
    if (v.kind == GV_UNDEF) {
        ig_error(g, s->value->loc, "%s", v.note);
        return;
    }
    if (s->annotation) {
        if (!ig_is_constexpr_annotation(s->annotation)) {
            ig_error(g, s->annotation->loc, "a local variable can only be annotated sl.constexpr "
                                            "(X: sl.constexpr = 4)");
            return;
        }
        if (!ig_is_known(v)) {
            ig_error(g, s->value->loc, "'%s' is annotated sl.constexpr, but its value is not a "
                                       "compile-time constant", s->targets[0]->name);
            return;
        }
    }
    for (int i = 0; i < s->ntargets && !ig_failed(g); i++)
        bind_target(g, s->targets[i], v, s->value);
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

/* Type both sides of a merged value agree on, or a void type after an
 * error; `what` names it ("variable 'x'"). */
static ir_type merge_type(irgen *g, const ast_stmt *s, const char *what, gval a, gval b)
{
    char b1[64], b2[64];
    if (a.kind == GV_IR && b.kind == GV_IR) {
        ir_type ta = ig_type(g, a), tb = ig_type(g, b);
        if (!ir_type_eq(ta, tb)) {
            ig_error(g, s->loc, "%s is %s after one branch of this if and %s after the other; give "
                                "it one type in both", what, ig_type_name(ta, b1), ig_type_name(tb, b2));
            return ir_type_void();
        }
        return ta;
    }
    if (a.kind == GV_IR || b.kind == GV_IR) {
        gval ir = a.kind == GV_IR ? a : b, c = a.kind == GV_IR ? b : a;
        ir_type t = ig_type(g, ir);
        if (ir_type_is_ptrlike(t) || (c.c.kind == CONST_FLOAT && !ir_dtype_is_float((ir_dtype)t.dtype))) {
            ig_error(g, s->loc, "%s is %s after one branch of this if and a constant after the "
                                "other", what, ig_type_name(t, b1));
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

bool ig_mergeable(gval v) { return v.kind == GV_IR || (v.kind == GV_CONST && v.c.kind != CONST_DTYPE); }

/* The values that differ between the two branches of an if: each becomes
 * a result of the sw.if, which `slot` then holds. */
typedef struct merge_item {
    ir_value y[2];
    ir_type t;
    gval *slot;
} merge_item;

typedef struct merge_set {
    merge_item *items;
    int n, cap;
} merge_set;

typedef enum merge_status { MERGE_OK, MERGE_KINDS, MERGE_ERROR } merge_status;

/* Merges a (after branch 0) and b (after branch 1) into *slot: the value
 * itself when both are the same, tuples item by item, else a result of
 * the sw.if to come (yielded in blocks[0] and blocks[1]). MERGE_KINDS when
 * they hold different kinds of values (nothing reported). */
static merge_status merge_value(irgen *g, const ast_stmt *s, const char *what, const char *name,
                                gval a, gval b, ir_block *const blocks[2], gval *slot, merge_set *ms)
{
    if (ig_same_gval(a, b)) {
        *slot = a;
        return MERGE_OK;
    }
    if (a.kind == GV_TUPLE && b.kind == GV_TUPLE && a.nitems == b.nitems) {
        gval *items = arena_alloc(g->ar, sizeof(gval) * (size_t)(a.nitems + 1));
        *slot = a;
        slot->items = items;
        for (int i = 0; i < a.nitems; i++) {
            merge_status st = merge_value(g, s, what, name, a.items[i], b.items[i], blocks, &items[i], ms);
            if (st != MERGE_OK)
                return st;
        }
        return MERGE_OK;
    }
    if (!ig_mergeable(a) || !ig_mergeable(b))
        return MERGE_KINDS;
    ir_type ty = merge_type(g, s, what, a, b);
    if (ig_failed(g) ||
        !ig_check_not_segment(g, s->loc, name, ty, "take a different value in each branch of an "
                                                   "if with a runtime condition (use sl.where)"))
        return MERGE_ERROR;
    merge_item it = {{branch_value(g, blocks[0], s->loc, a, ty), branch_value(g, blocks[1], s->loc, b, ty)},
                     ty, slot};
    if (ig_failed(g))
        return MERGE_ERROR;
    VEC_PUSH(g->ar, ms->items, ms->n, ms->cap, it);
    return MERGE_OK;
}

/* Ends both branches with their yields and appends the sw.if; every
 * merged slot then holds its result. */
static void finish_if(irgen *g, const ast_stmt *s, ir_value cond, ir_block *const blocks[2],
                      const merge_set *ms)
{
    ir_type *types = arena_alloc(g->ar, sizeof(ir_type) * (size_t)(ms->n + 1));
    for (int k = 0; k < ms->n; k++)
        types[k] = ms->items[k].t;
    for (int i = 0; i < 2; i++) {
        ir_value *ys = arena_alloc(g->ar, sizeof(ir_value) * (size_t)(ms->n + 1));
        for (int k = 0; k < ms->n; k++)
            ys[k] = ms->items[k].y[i];
        ir_block_append(blocks[i], ir_op_create(g->m, IR_YIELD, ig_op_loc(g, s->loc), ys, ms->n,
                                                NULL, 0, 0));
    }
    ir_op *op = ir_op_create(g->m, IR_IF, ig_op_loc(g, s->loc), &cond, 1, types, ms->n, 0);
    op->nregions = 2;
    op->regions = arena_alloc(g->ar, sizeof(ir_block *) * 2);
    for (int i = 0; i < 2; i++) {
        op->regions[i] = blocks[i];
        blocks[i]->parent_op = op;
    }
    ir_block_append(g->block, op);
    for (int k = 0; k < ms->n; k++)
        *ms->items[k].slot = gv_ir(op->results[k]);
}

/* Marks the ops lowered from here on as inside a runtime construct (no
 * segment data there); returns what to restore. */
region_mark ig_enter_region(irgen *g, const char *what, src_loc at)
{
    region_mark saved = {g->region_what, g->region_at, g->region_line};
    g->region_what = what;
    g->region_at = at;
    g->region_line = ig_user_line(g, at);
    return saved;
}

void ig_leave_region(irgen *g, region_mark saved)
{
    g->region_what = saved.what;
    g->region_at = saved.at;
    g->region_line = saved.line;
}

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

static void lower_structured_if(irgen *g, const ast_stmt *s, ir_value cond)
{
    env *scope = &g->scope;
    int nbefore = scope->n;
    ir_block *outer = g->block;
    ir_block *blocks[2] = {ir_block_create(g->m), ir_block_create(g->m)};
    const ast_block *bodies[2] = {&s->body, &s->orelse};
    region_mark region = ig_enter_region(g, "if with a runtime condition", s->loc);
    /* Each branch starts from the scope before the if: what it binds is
     * noted, then undone. */
    branch_binding *bound[2] = {NULL, NULL};
    int nbound[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        g->block = blocks[i];
        int mark = env_mark(scope);
        ig_lower_block(g, bodies[i]);
        if (!ig_failed(g))
            bound[i] = branch_bindings(g, mark, &nbound[i]);
        env_undo(scope, mark);
    }
    ig_leave_region(g, region);
    g->block = outer;
    if (ig_failed(g))
        return;
    int nentries;
    merge_entry *entries = merge_entries(g, nbefore, bound, nbound, &nentries);

    const char **merged = arena_alloc(g->ar, sizeof(char *) * (size_t)(nentries + 1));
    gval *vals = arena_alloc(g->ar, sizeof(gval) * (size_t)(nentries + 1));
    merge_set ms = {0};
    int nmerged = 0;
    for (int i = 0; i < nentries; i++) {
        const char *name = entries[i].name;
        gval *t = entries[i].has[0] ? &entries[i].val[0] : NULL;
        gval *e = entries[i].has[1] ? &entries[i].val[1] : NULL;
        if (t && e && ig_same_gval(*t, *e)) {
            env_set(g, &g->scope, name, *t);
            continue;
        }
        if (!t || !e) {
            env_set(g, &g->scope, name,
                    ig_undef(g, "variable '%s' is assigned in only one branch of the if at line %d, "
                             "so it cannot be used after it", name, ig_user_line(g, s->loc)));
            continue;
        }
        int mark = ms.n;
        const char *what = arena_printf(g->ar, "variable '%s'", name);
        merge_status st = merge_value(g, s, what, name, *t, *e, blocks, &vals[nmerged], &ms);
        if (st == MERGE_ERROR)
            return;
        if (st == MERGE_KINDS) {
            ms.n = mark;
            env_set(g, &g->scope, name,
                    ig_undef(g, "variable '%s' holds different kinds of values after the two "
                             "branches of the if at line %d", name, ig_user_line(g, s->loc)));
            continue;
        }
        merged[nmerged++] = name;
    }
    finish_if(g, s, cond, blocks, &ms);
    for (int i = 0; i < nmerged; i++)
        env_set(g, &g->scope, merged[i], vals[i]);
}

gval ig_condition(irgen *g, const ast_expr *e, const char *what)
{
    char b[64];
    gval c = ig_expr(g, e);
    if (c.kind == GV_ERROR)
        return c;
    if (c.kind == GV_CONST) {
        if (c.c.kind == CONST_DTYPE)
            return ig_error(g, e->loc, "a dtype cannot be the condition of '%s'", what);
        return gv_bool(c.c.kind == CONST_FLOAT ? c.c.f != 0 : c.c.i != 0);
    }
    if (c.kind == GV_NONE)
        return gv_bool(false);
    if (c.kind == GV_STR)
        return gv_bool(c.str[0] != 0);
    if (c.kind == GV_TUPLE)
        return ig_error(g, e->loc, "a tuple cannot be the condition of '%s'", what);
    ir_value cv = ig_to_ir(g, e->loc, c, ir_type_void());
    if (cv == IR_NO_VALUE)
        return (gval){0};
    ir_type t = ir_value_type(g->m, cv);
    if (t.kind == TY_TILE || ig_is_segment_type(t))
        return ig_error(g, e->loc, "the condition of '%s' must be a scalar, not a %s; use sl.where "
                                   "for %s", what, ig_type_name(t, b),
                        t.kind == TY_TILE ? "tiles" : "segment values");
    if (t.kind != TY_SCALAR)
        return ig_error(g, e->loc, "the condition of '%s' must be a scalar number or bool, not a %s",
                        what, ig_type_name(t, b));
    if (t.dtype != DT_I1) {
        /* As in Triton (and Python's truth): a number is true when not 0. */
        ir_value ops[2] = {cv, ig_materialize(g, e->loc, (const_value){.kind = CONST_INT}, t)};
        cv = ig_emit1(g, IR_CMP, ig_op_loc(g, e->loc), ops, 2, ir_type_scalar(DT_I1));
        if (cv == IR_NO_VALUE)
            return (gval){0};
        ir_attr_set_str(g->m, g->m->values[cv].def, "predicate", "ne");
    }
    return gv_ir(cv);
}

static void lower_if(irgen *g, const ast_stmt *s)
{
    gval c = ig_condition(g, s->cond, "if");
    if (c.kind == GV_ERROR)
        return;
    if (c.kind == GV_CONST) {
        /* A compile-time condition compiles only the branch taken. */
        ig_lower_block(g, c.c.i ? &s->body : &s->orelse);
        return;
    }
    lower_structured_if(g, s, c.v);
}

/* ---- early exits: return, break, continue ------------------------------- */

/* The statements still to lower: b from index i, then those of `up`. */
typedef struct cont {
    const ast_block *b;
    int i;
    const struct cont *up;
} cont;

static void lower_tail(irgen *g, const cont *k, const ig_tail *t, gval *out);

/* Whether a block holds a return, or a break or continue that leaves it
 * (one inside a nested loop belongs to that loop). */
static bool block_exits(const ast_block *b, bool in_loop)
{
    for (int i = 0; i < b->nstmts; i++) {
        const ast_stmt *s = b->stmts[i];
        switch (s->kind) {
        case AST_RETURN: return true;
        case AST_BREAK:
        case AST_CONTINUE:
            if (!in_loop)
                return true;
            break;
        case AST_IF:
            if (block_exits(&s->body, in_loop) || block_exits(&s->orelse, in_loop))
                return true;
            break;
        case AST_FOR:
        case AST_WHILE:
            if (block_exits(&s->body, true))
                return true;
            break;
        default: break;
        }
    }
    return false;
}

/* What a path leaves with at s (a return, break or continue; NULL at the
 * end of the body). */
static void tail_exit(irgen *g, const ast_stmt *s, const ig_tail *t, gval *out)
{
    char b1[64], b2[64];
    if (!t->loop) {
        if (s && s->kind != AST_RETURN) {
            ig_error(g, s->loc, "'%s' outside a loop", s->kind == AST_BREAK ? "break" : "continue");
            return;
        }
        out[0] = (gval){.kind = GV_NONE};
        if (s && s->value) {
            if (!t->fname) {
                ig_error(g, s->value->loc, "a kernel cannot return a value: kernels write their "
                                           "results with sl.store (a called @sw.jit function can)");
                return;
            }
            gval v = ig_expr(g, s->value);
            if (v.kind == GV_ERROR)
                return;
            out[0] = v;
        }
        return;
    }
    if (s && s->kind == AST_RETURN) {
        ig_error(g, s->loc, "'return' inside a %s loop is not supported; leave the loop with "
                            "'break'%s, then return", t->is_while ? "while" : "for",
                 t->is_while ? "" : " (or a while loop)");
        return;
    }
    bool brk = s && s->kind == AST_BREAK;
    src_loc loc = s ? s->loc : t->stmt->loc;
    int k = 0;
    if (t->flag) {
        gval f = gv_bool(t->is_while ? false : brk);
        if (t->is_while && !brk)
            f = ig_condition(g, t->stmt->cond, "while");
        if (f.kind == GV_ERROR || ig_failed(g))
            return;
        ir_value fv = f.kind == GV_IR ? f.v : ig_materialize(g, loc, f.c, ir_type_scalar(DT_I1));
        out[k++] = gv_ir(fv);
    }
    for (int i = 0; i < t->ncarried; i++) {
        const char *name = t->carried[i];
        gval *v = env_lookup(&g->scope, name);
        if (!v || !ig_mergeable(*v)) {
            ig_error(g, t->stmt->loc, "variable '%s' does not hold a value at the end of the loop "
                                      "body", name);
            return;
        }
        if (v->kind == GV_CONST) {
            out[k++] = gv_ir(ig_materialize(g, loc, v->c, t->types[i]));
            continue;
        }
        ir_type ty = ig_type(g, *v);
        if (!ir_type_eq(ty, t->types[i])) {
            ig_error(g, t->stmt->loc, "variable '%s' is %s before the loop but %s at the end of its "
                                      "body; a loop-carried variable must keep its type (initialise "
                                      "it with a value of the same type)", name,
                     ig_type_name(t->types[i], b1), ig_type_name(ty, b2));
            return;
        }
        out[k++] = *v;
    }
}

/* An if that may leave the body (return, break, continue): the statements
 * after it go into its branches, so that every path ends at its exit, and
 * the sw.if's results are what the paths leave with. */
static void lower_exiting_if(irgen *g, const ast_stmt *s, const cont *rest, const ig_tail *t, gval *out)
{
    gval c = ig_condition(g, s->cond, "if");
    if (c.kind == GV_ERROR)
        return;
    if (c.kind == GV_CONST) {
        cont k = {c.c.i ? &s->body : &s->orelse, 0, rest};
        lower_tail(g, &k, t, out);
        return;
    }
    ir_block *outer = g->block;
    ir_block *blocks[2] = {ir_block_create(g->m), ir_block_create(g->m)};
    const ast_block *bodies[2] = {&s->body, &s->orelse};
    region_mark region = ig_enter_region(g, "if with a runtime condition", s->loc);
    gval *res[2];
    for (int i = 0; i < 2 && !ig_failed(g); i++) {
        g->block = blocks[i];
        res[i] = arena_alloc(g->ar, sizeof(gval) * (size_t)t->nout);
        int mark = env_mark(&g->scope);
        cont k = {bodies[i], 0, rest};
        lower_tail(g, &k, t, res[i]);
        env_undo(&g->scope, mark);
    }
    ig_leave_region(g, region);
    g->block = outer;
    if (ig_failed(g))
        return;
    merge_set ms = {0};
    for (int j = 0; j < t->nout; j++) {
        const char *name = t->loop && j >= t->flag ? t->carried[j - t->flag] : "return value";
        const char *what = t->loop ? (j < t->flag ? "the loop condition"
                                                  : arena_printf(g->ar, "variable '%s'", name))
                                   : arena_printf(g->ar, "the value '%s' returns", t->fname);
        merge_status st = merge_value(g, s, what, name, res[0][j], res[1][j], blocks, &out[j], &ms);
        if (st == MERGE_ERROR)
            return;
        if (st == MERGE_KINDS) {
            ig_error(g, s->loc, "'%s' returns different kinds of values on the two paths through "
                                "this if (a value on one, None or another kind on the other); "
                                "return one kind on every path", t->fname ? t->fname : "?");
            return;
        }
    }
    finish_if(g, s, c.v, blocks, &ms);
}

static void lower_tail(irgen *g, const cont *k, const ig_tail *t, gval *out)
{
    for (; k; k = k->up) {
        const ast_block *b = k->b;
        for (int i = k->i; i < b->nstmts; i++) {
            if (ig_failed(g))
                return;
            const ast_stmt *s = b->stmts[i];
            if (s->kind == AST_RETURN || s->kind == AST_BREAK || s->kind == AST_CONTINUE) {
                tail_exit(g, s, t, out);
                return;
            }
            if (s->kind == AST_IF && (block_exits(&s->body, false) || block_exits(&s->orelse, false))) {
                cont rest = {b, i + 1, k->up};
                lower_exiting_if(g, s, &rest, t, out);
                return;
            }
            lower_stmt(g, s);
        }
    }
    if (!ig_failed(g))
        tail_exit(g, NULL, t, out);
}

void ig_lower_tail(irgen *g, const ast_block *body, const ig_tail *t, gval *out)
{
    cont k = {body, 0, NULL};
    lower_tail(g, &k, t, out);
}

void ig_lower_function_body(irgen *g, const ast_block *body, const char *fname, gval *out)
{
    ig_tail t = {.loop = false, .nout = 1, .fname = fname};
    cont k = {body, 0, NULL};
    *out = (gval){.kind = GV_NONE};
    lower_tail(g, &k, &t, out);
}

static void lower_stmt(irgen *g, const ast_stmt *s)
{
    switch (s->kind) {
    case AST_ASSIGN: lower_assign(g, s); break;
    case AST_AUGASSIGN: lower_augassign(g, s); break;
    case AST_EXPR: {
        gval v = ig_expr(g, s->value);
        (void)v;
        break;
    }
    case AST_IF: lower_if(g, s); break;
    case AST_FOR: ig_lower_for(g, s); break;
    case AST_WHILE: ig_lower_while(g, s); break;
    case AST_RETURN:
    case AST_BREAK:
    case AST_CONTINUE:
        /* Bodies that may be left are lowered by lower_tail; what remains
         * is the body of an unrolled loop. */
        ig_error(g, s->loc, "'%s' inside an sl.static_range loop is not supported (the loop is "
                            "unrolled while compiling); use range() or sl.range()",
                 s->kind == AST_RETURN ? "return" : s->kind == AST_BREAK ? "break" : "continue");
        break;
    case AST_PASS: break;
    }
}

void ig_lower_block(irgen *g, const ast_block *b)
{
    for (int i = 0; i < b->nstmts && !ig_failed(g); i++)
        lower_stmt(g, b->stmts[i]);
}

/* ---- parameters --------------------------------------------------------- */

bool ig_is_constexpr_annotation(const ast_expr *a)
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
        if (p->annotation && ig_is_constexpr_annotation(p->annotation)) {
            ip->is_constexpr = true;
            if (ty) {
                diag_error(g->d, DIAG_ARGUMENT, "parameter '%s' is an sl.constexpr: give its value "
                                                "in constexprs, not a type in the signature", p->name);
                return false;
            }
            gval cv;
            if (ce) {
                ce->used = true;
                ip->value = ce->value;
                cv = ig_from_const(g, ce->value, p->name);
            } else if (p->default_value) {
                gval d = ig_expr(g, p->default_value);
                if (!ig_is_known(d)) {
                    if (d.kind != GV_ERROR && !ig_failed(g))
                        ig_error(g, p->default_value->loc, "the default of an sl.constexpr must be a "
                                                           "constant (a number, bool, string, None, "
                                                           "dtype or tuple of these)");
                    return false;
                }
                if (d.kind == GV_STR || d.kind == GV_NONE)
                    d.note = p->name;
                ip->value = d.kind == GV_CONST ? d.c : (const_value){.kind = CONST_NONE};
                cv = d;
            } else {
                diag_error(g->d, DIAG_ARGUMENT, "missing value for the sl.constexpr parameter '%s'",
                           p->name);
                return false;
            }
            env_set(g, &g->scope, p->name, cv);
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
    return irgen_kernel_calls(a, src, fn, spec, NULL, out, d);
}

bool irgen_kernel_calls(arena *a, const source_file *src, const ast_func *fn, kernel_spec *spec,
                        const irgen_functions *functions, irgen_result *out, diag *d)
{
    irgen g = {.ar = a, .src = src, .d = d, .unroll_budget = UNROLL_BUDGET, .functions = functions};
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
    gval ret;
    ig_lower_function_body(&g, &fn->body, NULL, &ret);
    if (ig_failed(&g))
        return false;
    ir_block_append(body, ir_op_create(g.m, IR_RETURN, fn->loc, NULL, 0, NULL, 0, 0));
    out->module = g.m;
    return true;
}
