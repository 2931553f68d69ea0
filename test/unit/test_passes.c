/* test_passes.c - unit tests of fold, dce, cse and the pass manager. Builds
 * modules with the ir.h builder and checks the op structure directly, so it
 * depends on neither the printer nor the parser. Last line: "N passed, N failed". */
#include "ir/ir.h"
#include "ir/scalar.h"
#include "passes/passes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                    \
    } while (0)

/* ---- a tiny kernel builder ------------------------------------------------ */

typedef struct kernel {
    arena ar;
    ir_module *m;
    ir_op *func;
    ir_block *body;
    ir_block *cursor; /* where new ops go: before its terminator, if any */
} kernel;

static const src_loc here = {1, 1};

static void kernel_init(kernel *k)
{
    arena_init(&k->ar);
    k->m = ir_module_create(&k->ar, NULL);
    k->func = ir_op_create(k->m, IR_FUNC, here, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(k->m, k->func, "sym_name", "kernel");
    ir_block_append(k->m->body, k->func);
    k->body = ir_func_body(k->func);
    ir_block_append(k->body, ir_op_create(k->m, IR_RETURN, here, NULL, 0, NULL, 0, 0));
    k->cursor = k->body;
}

static void kernel_free(kernel *k) { arena_free(&k->ar); }

static ir_value param(kernel *k, ir_type t, const char *name)
{
    return ir_block_add_arg(k->m, k->body, t, name);
}

/* Puts op at the end of the cursor block, before its terminator if any. */
static ir_op *place(kernel *k, ir_op *op)
{
    ir_op *last = k->cursor->last;
    if (last && (ir_ops[last->kind].flags & F_TERM))
        ir_insert_before(last, op);
    else
        ir_block_append(k->cursor, op);
    return op;
}

static ir_op *emit(kernel *k, ir_op_kind kind, const ir_value *ops, int n, const ir_type *rt, int nres,
                   int nregions)
{
    return place(k, ir_op_create(k->m, kind, here, ops, n, rt, nres, nregions));
}

static ir_value const_int(kernel *k, ir_type t, int64_t v)
{
    ir_op *c = emit(k, IR_CONSTANT, NULL, 0, &t, 1, 0);
    if (t.dtype == DT_I1)
        ir_attr_set_bool(k->m, c, "value", v != 0);
    else
        ir_attr_set_int(k->m, c, "value", ir_type_scalar((ir_dtype)t.dtype), v);
    return c->results[0];
}

static ir_value const_float(kernel *k, ir_type t, double v)
{
    ir_op *c = emit(k, IR_CONSTANT, NULL, 0, &t, 1, 0);
    ir_attr_set_float(k->m, c, "value", ir_type_scalar((ir_dtype)t.dtype), v);
    return c->results[0];
}

static ir_value i32c(kernel *k, int64_t v) { return const_int(k, ir_type_scalar(DT_I32), v); }
static ir_value f32c(kernel *k, double v) { return const_float(k, ir_type_scalar(DT_F32), v); }
static ir_value boolc(kernel *k, bool v) { return const_int(k, ir_type_scalar(DT_I1), v); }

static ir_value binary(kernel *k, ir_op_kind kind, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    ir_type t = ir_value_type(k->m, a);
    return emit(k, kind, ops, 2, &t, 1, 0)->results[0];
}

static ir_value unary(kernel *k, ir_op_kind kind, ir_value a)
{
    ir_type t = ir_value_type(k->m, a);
    return emit(k, kind, &a, 1, &t, 1, 0)->results[0];
}

static ir_value cast(kernel *k, ir_value a, ir_type to)
{
    return emit(k, IR_CAST, &a, 1, &to, 1, 0)->results[0];
}

static ir_value compare(kernel *k, const char *pred, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    ir_type t = ir_type_like(ir_value_type(k->m, a), ir_type_scalar(DT_I1));
    ir_op *op = emit(k, IR_CMP, ops, 2, &t, 1, 0);
    ir_attr_set_str(k->m, op, "predicate", pred);
    return op->results[0];
}

static ir_value select3(kernel *k, ir_value c, ir_value a, ir_value b)
{
    ir_value ops[3] = {c, a, b};
    ir_type t = ir_value_type(k->m, a);
    return emit(k, IR_SELECT, ops, 3, &t, 1, 0)->results[0];
}

static ir_value splat(kernel *k, ir_value a, int32_t len)
{
    ir_type t = ir_type_like(ir_type_tile(DT_I32, len), ir_type_elem(ir_value_type(k->m, a)));
    return emit(k, IR_SPLAT, &a, 1, &t, 1, 0)->results[0];
}

static ir_op *store(kernel *k, ir_value ptr, ir_value v)
{
    ir_value ops[2] = {ptr, v};
    return emit(k, IR_STORE, ops, 2, NULL, 0, 0);
}

static ir_value load(kernel *k, ir_value ptr)
{
    ir_type t = ir_type_like(ir_value_type(k->m, ptr), ir_type_scalar((ir_dtype)ir_value_type(k->m, ptr).dtype));
    return emit(k, IR_LOAD, &ptr, 1, &t, 1, 0)->results[0];
}

static ir_op *yield(kernel *k, const ir_value *vals, int n)
{
    return emit(k, IR_YIELD, vals, n, NULL, 0, 0);
}

/* ---- inspection ------------------------------------------------------------ */

static int count_in(const ir_block *b, ir_op_kind kind)
{
    int n = 0;
    for (const ir_op *op = b->first; op; op = op->next) {
        n += op->kind == kind;
        for (int r = 0; r < op->nregions; r++)
            n += count_in(op->regions[r], kind);
    }
    return n;
}

static int count(const kernel *k, ir_op_kind kind) { return count_in(k->body, kind); }

static int count_all_in(const ir_block *b)
{
    int n = 0;
    for (const ir_op *op = b->first; op; op = op->next) {
        n++;
        for (int r = 0; r < op->nregions; r++)
            n += count_all_in(op->regions[r]);
    }
    return n;
}

static bool is_const_int(const kernel *k, ir_value v, int64_t want)
{
    const ir_attr *a;
    if (!ir_value_constant(k->m, v, &a))
        return false;
    return ir_scalar_from_attr((ir_dtype)ir_value_type(k->m, v).dtype, a).i == want;
}

/* Bitwise float equality, so NaN == NaN and -0.0 != 0.0. */
static bool is_const_float(const kernel *k, ir_value v, double want)
{
    const ir_attr *a;
    if (!ir_value_constant(k->m, v, &a))
        return false;
    double got = ir_scalar_from_attr((ir_dtype)ir_value_type(k->m, v).dtype, a).f;
    if (isnan(want))
        return isnan(got);
    return memcmp(&got, &want, sizeof got) == 0;
}

/* Runs one pass on a module the verifier accepts and checks that the
 * verifier still accepts the result. */
static bool run(kernel *k, bool (*pass)(ir_module *, diag *))
{
    diag d;
    diag_init(&d);
    bool ok = ir_verify(k->m, &d);
    if (!ok)
        fprintf(stderr, "input does not verify: %s\n", d.message ? d.message : "?");
    ok = ok && pass(k->m, &d);
    if (ok && !ir_verify(k->m, &d)) {
        fprintf(stderr, "pass output does not verify: %s\n", d.message ? d.message : "?");
        ok = false;
    } else if (!ok && d.kind != DIAG_COMPILE) {
        fprintf(stderr, "pass failed: %s\n", d.message ? d.message : "?");
    }
    diag_clear(&d);
    return ok;
}

/* Folds a binary op on two scalar constants of type t; returns the value
 * stored afterwards (the folded result). */
static ir_value fold_binary(kernel *k, ir_op_kind kind, ir_type t, double a, double b)
{
    kernel_init(k);
    ir_value out = param(k, ir_type_ptr((ir_dtype)t.dtype), "out");
    bool fl = ir_dtype_is_float((ir_dtype)t.dtype);
    ir_value x = fl ? const_float(k, t, a) : const_int(k, t, (int64_t)a);
    ir_value y = fl ? const_float(k, t, b) : const_int(k, t, (int64_t)b);
    ir_op *st = store(k, out, binary(k, kind, x, y));
    run(k, pass_fold);
    return st->operands[1];
}

/* ---- fold ---------------------------------------------------------------- */

static void test_fold_add(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    ir_op *st = store(&k, out, binary(&k, IR_ADD, i32c(&k, 2), i32c(&k, 3)));
    CHECK(run(&k, pass_fold));
    CHECK(is_const_int(&k, st->operands[1], 5));
    CHECK(count(&k, IR_ADD) == 0);
    /* The new constant sits right before the store that uses it. */
    CHECK(st->prev && st->prev->kind == IR_CONSTANT && st->prev->results[0] == st->operands[1]);
    kernel_free(&k);
}

static void test_fold_chain(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    /* ((2 + 3) * 4 - 1) // 2 = 9, then shifted: 9 << 2 = 36 */
    ir_value v = binary(&k, IR_ADD, i32c(&k, 2), i32c(&k, 3));
    v = binary(&k, IR_MUL, v, i32c(&k, 4));
    v = binary(&k, IR_SUB, v, i32c(&k, 1));
    v = binary(&k, IR_FLOORDIV, v, i32c(&k, 2));
    v = binary(&k, IR_SHL, v, i32c(&k, 2));
    ir_op *st = store(&k, out, v);
    CHECK(run(&k, pass_fold));
    CHECK(is_const_int(&k, st->operands[1], 36));
    CHECK(run(&k, pass_dce));
    /* constant, store, return */
    CHECK(count_all_in(k.body) == 3);
    CHECK(count(&k, IR_CONSTANT) == 1);
    kernel_free(&k);
}

static void test_fold_int_semantics(void)
{
    kernel k;
    ir_type i32 = ir_type_scalar(DT_I32), i8 = ir_type_scalar(DT_I8), u8 = ir_type_scalar(DT_U8);
    CHECK(is_const_int(&k, fold_binary(&k, IR_FLOORDIV, i32, 7, 0), 0)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_MOD, i32, 7, 0), 0)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_FLOORDIV, i32, -7, 2), -4)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_MOD, i32, -7, 2), 1)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_MOD, i32, 7, -2), -1)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_SHL, i32, 1, 32), 0)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_SHR, i32, -8, 40), -1)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_SHR, i32, -8, 1), -4)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_ADD, i32, 2147483647, 1), -2147483648LL)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_ADD, i8, 127, 1), -128)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_SUB, u8, 0, 1), 255)); kernel_free(&k);
    CHECK(is_const_int(&k, fold_binary(&k, IR_MAXIMUM, i32, -3, 4), 4)); kernel_free(&k);
}

static void test_fold_float_semantics(void)
{
    kernel k;
    ir_type f32 = ir_type_scalar(DT_F32), f16 = ir_type_scalar(DT_F16);
    CHECK(is_const_float(&k, fold_binary(&k, IR_DIV, f32, 1.0, 0.0), INFINITY)); kernel_free(&k);
    CHECK(is_const_float(&k, fold_binary(&k, IR_DIV, f32, 0.0, 0.0), NAN)); kernel_free(&k);
    /* 0.1f + 0.2f rounds in f32, not in double. */
    CHECK(is_const_float(&k, fold_binary(&k, IR_ADD, f32, 0.1, 0.2), (double)(0.1f + 0.2f))); kernel_free(&k);
    CHECK(is_const_float(&k, fold_binary(&k, IR_MINIMUM, f32, -0.0, 0.0), -0.0)); kernel_free(&k);
    CHECK(is_const_float(&k, fold_binary(&k, IR_MAXIMUM, f32, NAN, 1.0), NAN)); kernel_free(&k);
    /* 2048 + 1 is not representable in f16: ties to even give 2048. */
    CHECK(is_const_float(&k, fold_binary(&k, IR_ADD, f16, 2048, 1), 2048)); kernel_free(&k);
}

static void test_fold_cast_cmp(void)
{
    kernel k;
    kernel_init(&k);
    ir_value oi = param(&k, ir_type_ptr(DT_I32), "oi");
    ir_value ob = param(&k, ir_type_ptr(DT_I1), "ob");
    ir_value oh = param(&k, ir_type_ptr(DT_F16), "oh");
    ir_op *big = store(&k, oi, cast(&k, f32c(&k, 3e9), ir_type_scalar(DT_I32)));
    ir_op *nan = store(&k, oi, cast(&k, f32c(&k, NAN), ir_type_scalar(DT_I32)));
    ir_op *trunc = store(&k, oi, cast(&k, f32c(&k, -2.75), ir_type_scalar(DT_I32)));
    ir_op *half = store(&k, oh, cast(&k, f32c(&k, 65520.0), ir_type_scalar(DT_F16)));
    ir_op *lt = store(&k, ob, compare(&k, "lt", f32c(&k, NAN), f32c(&k, 1.0)));
    ir_op *ne = store(&k, ob, compare(&k, "ne", f32c(&k, NAN), f32c(&k, NAN)));
    ir_op *tobool = store(&k, ob, cast(&k, i32c(&k, 256), ir_type_scalar(DT_I1)));
    CHECK(run(&k, pass_fold));
    CHECK(is_const_int(&k, big->operands[1], 2147483647));
    CHECK(is_const_int(&k, nan->operands[1], 0));
    CHECK(is_const_int(&k, trunc->operands[1], -2));
    CHECK(is_const_float(&k, half->operands[1], INFINITY)); /* past f16's largest finite */
    CHECK(is_const_int(&k, lt->operands[1], 0));
    CHECK(is_const_int(&k, ne->operands[1], 1));
    CHECK(is_const_int(&k, tobool->operands[1], 1));
    CHECK(count(&k, IR_CAST) == 0 && count(&k, IR_CMP) == 0);
    kernel_free(&k);
}

static void test_fold_tiles(void)
{
    kernel k;
    kernel_init(&k);
    ir_value so = param(&k, ir_type_ptr(DT_F32), "so");
    ir_value out = splat(&k, so, 4);
    ir_type tile = ir_type_tile(DT_F32, 4);
    ir_value a = const_float(&k, tile, 1.5);
    ir_value b = splat(&k, f32c(&k, 2.0), 4);
    ir_op *st = store(&k, out, binary(&k, IR_MUL, a, b));
    ir_value red_ops[1] = {a};
    ir_type f32 = ir_type_scalar(DT_F32);
    ir_op *mx = emit(&k, IR_REDUCE, red_ops, 1, &f32, 1, 0);
    ir_attr_set_str(k.m, mx, "kind", "max");
    ir_op *sum = emit(&k, IR_REDUCE, red_ops, 1, &f32, 1, 0);
    ir_attr_set_str(k.m, sum, "kind", "sum");
    ir_op *st_max = store(&k, so, mx->results[0]);
    store(&k, so, sum->results[0]);
    CHECK(run(&k, pass_fold));
    CHECK(is_const_float(&k, st->operands[1], 3.0));
    CHECK(ir_type_eq(ir_value_type(k.m, st->operands[1]), tile));
    CHECK(count(&k, IR_SPLAT) == 1); /* only the pointer splat stays */
    CHECK(is_const_float(&k, st_max->operands[1], 1.5));
    CHECK(count(&k, IR_REDUCE) == 1); /* the sum stays: it would round */
    kernel_free(&k);
}

/* Builds x OP c for a parameter x; returns the stored value after fold. */
static ir_value simplify_case(kernel *k, ir_op_kind kind, ir_type t, double c, bool const_left,
                              ir_value *x_out)
{
    kernel_init(k);
    ir_value out = param(k, ir_type_ptr((ir_dtype)t.dtype), "out");
    ir_value x = param(k, t, "x");
    bool fl = ir_dtype_is_float((ir_dtype)t.dtype);
    ir_value cv = fl ? const_float(k, t, c) : const_int(k, t, (int64_t)c);
    ir_op *st = store(k, out, const_left ? binary(k, kind, cv, x) : binary(k, kind, x, cv));
    run(k, pass_fold);
    *x_out = x;
    return st->operands[1];
}

static void test_simplify(void)
{
    kernel k;
    ir_value x;
    ir_type i32 = ir_type_scalar(DT_I32), f32 = ir_type_scalar(DT_F32);
    CHECK(simplify_case(&k, IR_ADD, i32, 0, false, &x) == x); kernel_free(&k);
    CHECK(simplify_case(&k, IR_ADD, i32, 0, true, &x) == x); kernel_free(&k);
    CHECK(simplify_case(&k, IR_ADD, f32, 0.0, false, &x) != x); kernel_free(&k); /* -0.0 + 0.0 = 0.0 */
    CHECK(simplify_case(&k, IR_ADD, f32, -0.0, false, &x) == x); kernel_free(&k);
    CHECK(simplify_case(&k, IR_SUB, f32, 0.0, false, &x) == x); kernel_free(&k);
    CHECK(simplify_case(&k, IR_MUL, f32, 1.0, true, &x) == x); kernel_free(&k);
    CHECK(is_const_int(&k, simplify_case(&k, IR_MUL, i32, 0, false, &x), 0)); kernel_free(&k);
    CHECK(simplify_case(&k, IR_MUL, f32, 0.0, false, &x) != x && count(&k, IR_MUL) == 1); kernel_free(&k);
    CHECK(simplify_case(&k, IR_DIV, f32, 1.0, false, &x) == x); kernel_free(&k);
    CHECK(simplify_case(&k, IR_AND, i32, -1, false, &x) == x); kernel_free(&k);
    CHECK(is_const_int(&k, simplify_case(&k, IR_AND, i32, 0, false, &x), 0)); kernel_free(&k);
    CHECK(simplify_case(&k, IR_OR, i32, 0, true, &x) == x); kernel_free(&k);
    CHECK(is_const_int(&k, simplify_case(&k, IR_OR, i32, -1, false, &x), -1)); kernel_free(&k);
    CHECK(simplify_case(&k, IR_SHR, i32, 0, false, &x) == x); kernel_free(&k);
    CHECK(is_const_int(&k, simplify_case(&k, IR_MOD, i32, 1, false, &x), 0)); kernel_free(&k);

    /* x - x, x ^ x, cmp(x, x), double negation, select, cast to itself, addptr by 0 */
    kernel_init(&k);
    ir_value oi = param(&k, ir_type_ptr(DT_I32), "oi");
    ir_value of = param(&k, ir_type_ptr(DT_F32), "of");
    ir_value ob = param(&k, ir_type_ptr(DT_I1), "ob");
    ir_value xi = param(&k, i32, "xi");
    ir_value xf = param(&k, f32, "xf");
    ir_value c = param(&k, ir_type_scalar(DT_I1), "c");
    ir_op *subi = store(&k, oi, binary(&k, IR_SUB, xi, xi));
    ir_op *subf = store(&k, of, binary(&k, IR_SUB, xf, xf));
    ir_op *xori = store(&k, oi, binary(&k, IR_XOR, xi, xi));
    ir_op *le = store(&k, ob, compare(&k, "le", xi, xi));
    ir_op *gt = store(&k, ob, compare(&k, "gt", xi, xi));
    ir_op *eqf = store(&k, ob, compare(&k, "eq", xf, xf));
    ir_op *negneg = store(&k, of, unary(&k, IR_NEG, unary(&k, IR_NEG, xf)));
    ir_op *notnot = store(&k, ob, unary(&k, IR_NOT, unary(&k, IR_NOT, c)));
    ir_op *sel_t = store(&k, oi, select3(&k, boolc(&k, true), xi, i32c(&k, 7)));
    ir_op *sel_f = store(&k, oi, select3(&k, boolc(&k, false), xi, i32c(&k, 7)));
    ir_op *sel_same = store(&k, oi, select3(&k, c, xi, xi));
    ir_op *sel_bool = store(&k, ob, select3(&k, c, boolc(&k, true), boolc(&k, false)));
    ir_op *same_cast = store(&k, of, cast(&k, xf, f32));
    ir_value ops[2] = {of, i32c(&k, 0)};
    ir_type pt = ir_type_ptr(DT_F32);
    ir_value moved = emit(&k, IR_ADDPTR, ops, 2, &pt, 1, 0)->results[0];
    ir_op *addp = store(&k, moved, xf);
    CHECK(run(&k, pass_fold));
    CHECK(is_const_int(&k, subi->operands[1], 0));
    CHECK(!is_const_float(&k, subf->operands[1], 0.0) && count(&k, IR_SUB) == 1); /* inf - inf is NaN */
    CHECK(is_const_int(&k, xori->operands[1], 0));
    CHECK(is_const_int(&k, le->operands[1], 1));
    CHECK(is_const_int(&k, gt->operands[1], 0));
    CHECK(!ir_value_constant(k.m, eqf->operands[1], &(const ir_attr *){0})); /* NaN != NaN */
    CHECK(negneg->operands[1] == xf);
    CHECK(notnot->operands[1] == c);
    CHECK(sel_t->operands[1] == xi);
    CHECK(is_const_int(&k, sel_f->operands[1], 7));
    CHECK(sel_same->operands[1] == xi);
    CHECK(sel_bool->operands[1] == c);
    CHECK(same_cast->operands[1] == xf);
    CHECK(addp->operands[0] == of);
    CHECK(count(&k, IR_ADDPTR) == 0 && count(&k, IR_SELECT) == 0);
    CHECK(count(&k, IR_NEG) == 1); /* the inner negation is left for dce */
    CHECK(run(&k, pass_dce) && count(&k, IR_NEG) == 0 && count(&k, IR_NOT) == 0);
    kernel_free(&k);
}

static void test_fold_if(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    ir_value x = param(&k, ir_type_scalar(DT_I32), "x");
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_value cond = compare(&k, "lt", i32c(&k, 1), i32c(&k, 2)); /* folds to true */
    ir_op *iff = emit(&k, IR_IF, &cond, 1, &i32, 1, 2);
    k.cursor = iff->regions[0];
    ir_value then_v = binary(&k, IR_MUL, x, i32c(&k, 3));
    yield(&k, &then_v, 1);
    k.cursor = iff->regions[1];
    ir_value else_v = i32c(&k, 9);
    yield(&k, &else_v, 1);
    k.cursor = k.body;
    ir_op *st = store(&k, out, iff->results[0]);
    CHECK(run(&k, pass_fold));
    CHECK(count(&k, IR_IF) == 0);
    CHECK(st->operands[1] == then_v);
    /* The branch's ops now live in the function body, before the store. */
    CHECK(k.m->values[then_v].def->parent == k.body);

    /* An if without results and a constant false condition keeps its else. */
    ir_value f = boolc(&k, false);
    ir_op *if2 = emit(&k, IR_IF, &f, 1, NULL, 0, 2);
    k.cursor = if2->regions[0];
    store(&k, out, x);
    yield(&k, NULL, 0);
    k.cursor = if2->regions[1];
    yield(&k, NULL, 0);
    k.cursor = k.body;
    int stores_before = count(&k, IR_STORE);
    CHECK(run(&k, pass_fold));
    CHECK(count(&k, IR_IF) == 0);
    CHECK(count(&k, IR_STORE) == stores_before - 1);
    kernel_free(&k);
}

/* A loop lb..ub step 1 carrying an i32 that is incremented by the iv. */
static ir_op *build_loop(kernel *k, int64_t lb, int64_t ub, int64_t step, ir_value init)
{
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_value ops[4] = {i32c(k, lb), i32c(k, ub), i32c(k, step), init};
    ir_op *loop = emit(k, IR_FOR, ops, 4, &i32, 1, 1);
    ir_block *body = loop->regions[0];
    ir_value iv = ir_block_add_arg(k->m, body, i32, NULL);
    ir_value acc = ir_block_add_arg(k->m, body, i32, NULL);
    ir_block *saved = k->cursor;
    k->cursor = body;
    ir_value next = binary(k, IR_ADD, acc, iv);
    yield(k, &next, 1);
    k->cursor = saved;
    return loop;
}

static void test_fold_for(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    ir_value x = param(&k, ir_type_scalar(DT_I32), "x");
    ir_op *zero = build_loop(&k, 5, 5, 1, x);
    ir_op *st0 = store(&k, out, zero->results[0]);
    ir_op *one = build_loop(&k, 4, 10, 8, x);
    ir_op *st1 = store(&k, out, one->results[0]);
    ir_op *two = build_loop(&k, 0, 2, 1, x);
    store(&k, out, two->results[0]);
    ir_op *neg_step = build_loop(&k, 5, 0, -1, x);
    store(&k, out, neg_step->results[0]);
    ir_op *zero_step = build_loop(&k, 0, 0, 0, x); /* a run-time error to keep */
    store(&k, out, zero_step->results[0]);
    ir_op *down_once = build_loop(&k, 5, 3, -4, x);
    ir_op *st_down = store(&k, out, down_once->results[0]);
    ir_op *down_never = build_loop(&k, 3, 5, -1, x);
    ir_op *st_never = store(&k, out, down_never->results[0]);
    CHECK(run(&k, pass_fold));
    CHECK(st0->operands[1] == x);
    /* trip count 1: x + 4 (the iv is lb), inlined into the body */
    const ir_op *def = k.m->values[st1->operands[1]].def;
    CHECK(def && def->kind == IR_ADD && def->parent == k.body && def->operands[0] == x &&
          is_const_int(&k, def->operands[1], 4));
    CHECK(count(&k, IR_FOR) == 3); /* two trips, five trips down, step 0 */
    def = k.m->values[st_down->operands[1]].def;
    CHECK(def && def->kind == IR_ADD && def->operands[0] == x && is_const_int(&k, def->operands[1], 5));
    CHECK(st_never->operands[1] == x);
    kernel_free(&k);
}

/* ---- dce ------------------------------------------------------------------- */

static void test_dce(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    ir_value x = param(&k, ir_type_scalar(DT_I32), "x");
    /* dead chain */
    ir_value dead = binary(&k, IR_MUL, binary(&k, IR_ADD, x, i32c(&k, 1)), x);
    (void)unary(&k, IR_NEG, dead);
    /* an unused load is removed too */
    (void)load(&k, out);
    /* live chain into a store */
    ir_op *st = store(&k, out, binary(&k, IR_SUB, x, i32c(&k, 2)));
    /* an empty if */
    ir_value c = compare(&k, "lt", x, i32c(&k, 0));
    ir_op *iff = emit(&k, IR_IF, &c, 1, NULL, 0, 2);
    k.cursor = iff->regions[0];
    yield(&k, NULL, 0);
    k.cursor = iff->regions[1];
    yield(&k, NULL, 0);
    k.cursor = k.body;
    /* a loop whose result nobody uses, with only pure ops inside */
    build_loop(&k, 0, 10, 1, x);
    /* a loop that stores: kept */
    ir_op *storing = build_loop(&k, 0, 10, 1, x);
    k.cursor = storing->regions[0];
    store(&k, out, storing->regions[0]->args[1]);
    k.cursor = k.body;
    CHECK(run(&k, pass_dce));
    CHECK(count(&k, IR_MUL) == 0 && count(&k, IR_NEG) == 0 && count(&k, IR_LOAD) == 0);
    CHECK(count(&k, IR_IF) == 0 && count(&k, IR_CMP) == 0);
    CHECK(count(&k, IR_FOR) == 1);
    CHECK(count(&k, IR_STORE) == 2);
    CHECK(k.m->values[st->operands[1]].def && k.m->values[st->operands[1]].def->kind == IR_SUB);
    /* the kept loop still has its bound constants, the store its operand's */
    CHECK(count(&k, IR_CONSTANT) == 4);
    kernel_free(&k);
}

/* ---- cse ------------------------------------------------------------------- */

static void test_cse(void)
{
    kernel k;
    kernel_init(&k);
    ir_value out = param(&k, ir_type_ptr(DT_I32), "out");
    ir_value ob = param(&k, ir_type_ptr(DT_I1), "ob");
    ir_value x = param(&k, ir_type_scalar(DT_I32), "x");
    ir_value y = param(&k, ir_type_scalar(DT_I32), "y");
    ir_value a1 = binary(&k, IR_ADD, x, y);
    ir_value a2 = binary(&k, IR_ADD, y, x); /* commutative */
    ir_value s1 = binary(&k, IR_SUB, x, y);
    ir_value s2 = binary(&k, IR_SUB, y, x); /* not commutative */
    ir_value c1 = i32c(&k, 42);
    ir_value c2 = i32c(&k, 42);
    ir_value c3 = const_int(&k, ir_type_scalar(DT_I64), 42); /* other type */
    ir_value lt = compare(&k, "lt", x, y);
    ir_value le = compare(&k, "le", x, y);
    ir_value lt2 = compare(&k, "lt", x, y);
    ir_op *st_a = store(&k, out, a2);
    ir_op *st_s = store(&k, out, s2);
    ir_op *st_c = store(&k, out, c2);
    ir_op *st_le = store(&k, ob, le);
    ir_op *st_lt = store(&k, ob, lt2);
    /* inside an if: the outer add is reused, the inner one is not visible
     * after the if, and two loads are never merged */
    ir_op *iff = emit(&k, IR_IF, &lt, 1, NULL, 0, 2);
    k.cursor = iff->regions[0];
    ir_op *st_inner = store(&k, out, binary(&k, IR_ADD, x, y));
    ir_value inner_mul = binary(&k, IR_MUL, x, y);
    store(&k, out, inner_mul);
    ir_value l1 = load(&k, out), l2 = load(&k, out);
    store(&k, out, l1);
    store(&k, out, l2);
    yield(&k, NULL, 0);
    k.cursor = iff->regions[1];
    ir_op *st_else = store(&k, out, binary(&k, IR_MUL, x, y));
    yield(&k, NULL, 0);
    k.cursor = k.body;
    ir_op *st_after = store(&k, out, binary(&k, IR_MUL, x, y));
    (void)c3;
    CHECK(run(&k, pass_cse));
    CHECK(st_a->operands[1] == a1);
    CHECK(st_s->operands[1] == s2 && s1 != s2);
    CHECK(st_c->operands[1] == c1);
    CHECK(st_le->operands[1] == le);
    CHECK(st_lt->operands[1] == lt);
    CHECK(st_inner->operands[1] == a1);
    CHECK(st_else->operands[1] != inner_mul);
    CHECK(st_after->operands[1] != inner_mul);
    CHECK(count(&k, IR_LOAD) == 2);
    CHECK(count(&k, IR_ADD) == 1 && count(&k, IR_SUB) == 2 && count(&k, IR_CMP) == 2);
    CHECK(count(&k, IR_CONSTANT) == 2);
    kernel_free(&k);
}

/* ---- pipeline --------------------------------------------------------------- */

/* The vector-add kernel of the README, with BLOCK = 128. */
static void build_vector_add(kernel *k)
{
    kernel_init(k);
    ir_value xp = param(k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value yp = param(k, ir_type_ptr(DT_F32), "y_ptr");
    ir_value op = param(k, ir_type_ptr(DT_F32), "output_ptr");
    ir_value n = param(k, ir_type_scalar(DT_I32), "n");
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_op *pid_op = emit(k, IR_PROGRAM_ID, NULL, 0, &i32, 1, 0);
    ir_attr_set_int(k->m, pid_op, "axis", i32, 0);
    ir_value start = binary(k, IR_MUL, pid_op->results[0], i32c(k, 128));
    ir_type ti = ir_type_tile(DT_I32, 128);
    ir_op *ar = emit(k, IR_ARANGE, NULL, 0, &ti, 1, 0);
    ir_attr_set_int(k->m, ar, "start", i32, 0);
    ir_attr_set_int(k->m, ar, "end", i32, 128);
    ir_value offsets = binary(k, IR_ADD, splat(k, start, 128), ar->results[0]);
    ir_value mask = compare(k, "lt", offsets, splat(k, n, 128));
    ir_type pt = ir_type_ptr_tile(DT_F32, 128), tf = ir_type_tile(DT_F32, 128);
    ir_value ptrs[3];
    ir_value bases[3] = {xp, yp, op};
    for (int i = 0; i < 3; i++) {
        ir_value addp[2] = {splat(k, bases[i], 128), offsets};
        ptrs[i] = emit(k, IR_ADDPTR, addp, 2, &pt, 1, 0)->results[0];
    }
    ir_value loaded[2];
    for (int i = 0; i < 2; i++) {
        ir_value lops[3] = {ptrs[i], mask, const_float(k, tf, 0.0)};
        loaded[i] = emit(k, IR_LOAD, lops, 3, &tf, 1, 0)->results[0];
    }
    ir_value sum = binary(k, IR_ADD, loaded[0], loaded[1]);
    /* the store's mask is computed again, as a naive irgen would: cse merges it */
    ir_value store_mask = compare(k, "lt", offsets, splat(k, n, 128));
    ir_value sops[3] = {ptrs[2], sum, store_mask};
    emit(k, IR_STORE, sops, 3, NULL, 0, 0);
}

static void test_pipeline(void)
{
    kernel k;
    build_vector_add(&k);
    diag d;
    diag_init(&d);
    strbuf dump;
    sb_init(&dump);
    pass_options opts = {.print_after = "fold,dce", .dump = &dump};
    CHECK(pass_run_default(k.m, &opts, &d));
    if (diag_failed(&d))
        fprintf(stderr, "%s", d.rendered);
    CHECK(count(&k, IR_LOAD) == 2 && count(&k, IR_STORE) == 1);
    CHECK(count(&k, IR_CONSTANT) == 2); /* 128 and the 0.0 tile, merged */
    CHECK(count(&k, IR_SPLAT) == 5 && count(&k, IR_ADDPTR) == 3 && count(&k, IR_CMP) == 1);
    /* fold runs twice and dce once */
    const char *p = dump.data ? dump.data : "";
    int dumps = 0;
    for (const char *q = p; (q = strstr(q, "// -----// IR Dump After ")); q++)
        dumps++;
    CHECK(dumps == 3);
    CHECK(strstr(p, "// -----// IR Dump After fold //----- //\n") == p);
    CHECK(strstr(p, "// -----// IR Dump After dce //----- //\n") != NULL);
    CHECK(strstr(p, "IR Dump After cse") == NULL);
    sb_free(&dump);
    diag_clear(&d);

    /* an unknown pass is an argument error and nothing runs */
    const char *names[] = {"fold", "nope"};
    int ops_before = count_all_in(k.body);
    CHECK(!pass_run_pipeline(k.m, names, 2, NULL, &d));
    CHECK(d.kind == DIAG_ARGUMENT);
    CHECK(d.message && !strcmp(d.message, "unknown pass 'nope' (known: fold, dce, cse, stages, lower-simt, lower-segments, lower-segments-subwarp, lower-segments-warp, lower-segments-cta, lower-segments-split, lower-segments-persistent, plan-link)"));
    CHECK(count_all_in(k.body) == ops_before);
    diag_clear(&d);

    pass_options bad_dump = {.print_after = "fold, dcee", .dump = &dump};
    CHECK(!pass_run_pipeline(k.m, names, 1, &bad_dump, &d));
    CHECK(d.kind == DIAG_ARGUMENT && d.message && strstr(d.message, "'dcee'"));
    diag_clear(&d);

    CHECK(pass_lookup("cse") && pass_lookup("cse")->run == pass_cse);
    CHECK(pass_lookup("CSE") == NULL && pass_lookup(NULL) == NULL);
    kernel_free(&k);
}

int main(void)
{
    test_fold_add();
    test_fold_chain();
    test_fold_int_semantics();
    test_fold_float_semantics();
    test_fold_cast_cmp();
    test_fold_tiles();
    test_simplify();
    test_fold_if();
    test_fold_for();
    test_dce();
    test_cse();
    test_pipeline();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
