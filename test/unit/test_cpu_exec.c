/* test_cpu_exec.c - unit tests of the CPU reference executor: kernels built
 * with the ir.h builder API (no parser needed), run on host buffers and
 * compared with plain C loops and scalar.h. Requires libswage; prints
 * "N passed, N failed" last and exits nonzero on any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "backends/cpu/cpu_exec.h"
#include "ir/scalar.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;

#ifdef __FLT16_MAX__
__extension__ typedef _Float16 half_t; /* the compiler's own f16, an independent oracle */
#endif

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if ((cond) ? (passed++, false) : (failed++, true))                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__), printf(__VA_ARGS__), printf("\n"); \
    } while (0)

/* A failed launch whose diagnostic has `kind` and exactly `text`; clears d. */
#define EXPECT_ERROR(d, ok, k, text)                                                      \
    do {                                                                                  \
        CHECK(!(ok) && (d).kind == (k) && (d).message && !strcmp((d).message, (text)),    \
              "expected \"%s\", got: %s", (text), (d).message ? (d).message : "(none)");  \
        diag_clear(&(d));                                                                 \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static float rand_float(void) { return (float)((double)(rng() >> 11) * 0x1p-53 * 200.0 - 100.0); }

/* The text diagnostics point into: what the user would have written. */
static const char kernel_src[] =
    "@sw.jit\n"
    "def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):\n"
    "    pid = sl.program_id(0)\n"
    "    offsets = pid * BLOCK + sl.arange(0, BLOCK)\n"
    "    mask = offsets < n\n"
    "    x = sl.load(x_ptr + offsets, mask=mask)\n"
    "    y = sl.load(y_ptr + offsets, mask=mask)\n"
    "    sl.store(output_ptr + offsets, x + y, mask=mask)\n"
    "    for i in range(0, n, step):\n";

/* ---- a small kernel builder ------------------------------------------------- */

typedef struct kb {
    arena ar;
    ir_module *m;
    ir_op *func;
    ir_block *stack[16]; /* blocks being filled; the top one gets new ops */
    int depth;
    src_loc loc;         /* location given to the next ops */
} kb;

static void kb_begin(kb *k, const char *name)
{
    memset(k, 0, sizeof *k);
    arena_init(&k->ar);
    source_file src = {"add.py", kernel_src, sizeof kernel_src - 1, 10};
    k->m = ir_module_create(&k->ar, &src);
    k->func = ir_op_create(k->m, IR_FUNC, k->loc, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(k->m, k->func, "sym_name", name);
    ir_block_append(k->m->body, k->func);
    k->stack[0] = ir_func_body(k->func);
}

static void kb_end(kb *k) { arena_free(&k->ar); }

static ir_value param(kb *k, ir_type t, const char *name)
{
    return ir_block_add_arg(k->m, ir_func_body(k->func), t, name);
}

static ir_op *emit(kb *k, ir_op_kind kind, const ir_value *ops, int n, const ir_type *rts, int nres,
                   int nregions)
{
    ir_op *op = ir_op_create(k->m, kind, k->loc, ops, n, rts, nres, nregions);
    ir_block_append(k->stack[k->depth], op);
    return op;
}

static ir_type ty(kb *k, ir_value v) { return ir_value_type(k->m, v); }

static ir_value op1(kb *k, ir_op_kind kind, ir_type rt, ir_value a)
{
    return emit(k, kind, &a, 1, &rt, 1, 0)->results[0];
}
static ir_value op2(kb *k, ir_op_kind kind, ir_type rt, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    return emit(k, kind, ops, 2, &rt, 1, 0)->results[0];
}

static ir_value cst_i(kb *k, ir_type t, int64_t v)
{
    ir_op *op = emit(k, IR_CONSTANT, NULL, 0, &t, 1, 0);
    ir_attr_set_int(k->m, op, "value", ir_type_elem(t), v);
    return op->results[0];
}

static ir_value cst_f(kb *k, ir_type t, double v)
{
    ir_op *op = emit(k, IR_CONSTANT, NULL, 0, &t, 1, 0);
    ir_attr_set_float(k->m, op, "value", ir_type_elem(t), v);
    return op->results[0];
}

static ir_value program_id(kb *k, int axis, ir_op_kind kind)
{
    ir_type t = ir_type_scalar(DT_I32);
    ir_op *op = emit(k, kind, NULL, 0, &t, 1, 0);
    ir_attr_set_int(k->m, op, "axis", t, axis);
    return op->results[0];
}

static ir_value arange(kb *k, int start, int end)
{
    ir_type t = ir_type_tile(DT_I32, end - start);
    ir_op *op = emit(k, IR_ARANGE, NULL, 0, &t, 1, 0);
    ir_attr_set_int(k->m, op, "start", ir_type_scalar(DT_I32), start);
    ir_attr_set_int(k->m, op, "end", ir_type_scalar(DT_I32), end);
    return op->results[0];
}

static ir_value splat(kb *k, ir_value v, int len)
{
    return op1(k, IR_SPLAT, ir_type_like(ir_type_tile(DT_I32, len), ty(k, v)), v);
}
static ir_value bin(kb *k, ir_op_kind kind, ir_value a, ir_value b) { return op2(k, kind, ty(k, a), a, b); }
static ir_value un(kb *k, ir_op_kind kind, ir_value a) { return op1(k, kind, ty(k, a), a); }
static ir_value addptr(kb *k, ir_value p, ir_value off) { return op2(k, IR_ADDPTR, ty(k, p), p, off); }

static ir_value cmp(kb *k, const char *pred, ir_value a, ir_value b)
{
    ir_type rt = ir_type_like(ty(k, a), ir_type_scalar(DT_I1));
    ir_value ops[2] = {a, b};
    ir_op *op = emit(k, IR_CMP, ops, 2, &rt, 1, 0);
    ir_attr_set_str(k->m, op, "predicate", pred);
    return op->results[0];
}

static ir_value cast(kb *k, ir_value a, ir_dtype to)
{
    return op1(k, IR_CAST, ir_type_like(ty(k, a), ir_type_scalar(to)), a);
}

static ir_value select3(kb *k, ir_value c, ir_value a, ir_value b)
{
    ir_value ops[3] = {c, a, b};
    ir_type rt = ty(k, a);
    return emit(k, IR_SELECT, ops, 3, &rt, 1, 0)->results[0];
}

/* sw.load (ptr) or, with a mask, (ptr, mask, other). */
static ir_value load(kb *k, ir_value p, ir_value mask, ir_value other)
{
    ir_type pt = ty(k, p);
    ir_type rt = ir_type_like(pt, ir_type_scalar((ir_dtype)pt.dtype));
    ir_value ops[3] = {p, mask, other};
    return emit(k, IR_LOAD, ops, mask == IR_NO_VALUE ? 1 : 3, &rt, 1, 0)->results[0];
}

static ir_value ci(kb *k, int64_t v) { return cst_i(k, ir_type_scalar(DT_I32), v); }
static ir_value ld(kb *k, ir_value p) { return load(k, p, IR_NO_VALUE, IR_NO_VALUE); }
/* A tile of pointers p + offs[i]. */
static ir_value ptrs(kb *k, ir_value p, ir_value offs)
{
    return addptr(k, splat(k, p, ty(k, offs).len), offs);
}

static void store(kb *k, ir_value p, ir_value v, ir_value mask)
{
    ir_value ops[3] = {p, v, mask};
    emit(k, IR_STORE, ops, mask == IR_NO_VALUE ? 2 : 3, NULL, 0, 0);
}
static void st(kb *k, ir_value p, ir_value v) { store(k, p, v, IR_NO_VALUE); }

static ir_value reduce(kb *k, const char *kind, ir_value x)
{
    ir_type rt = ir_type_elem(ty(k, x));
    ir_op *op = emit(k, IR_REDUCE, &x, 1, &rt, 1, 0);
    ir_attr_set_str(k->m, op, "kind", kind);
    return op->results[0];
}

static void ret(kb *k) { emit(k, IR_RETURN, NULL, 0, NULL, 0, 0); }
static void yield(kb *k, const ir_value *vals, int n) { emit(k, IR_YIELD, vals, n, NULL, 0, 0); }

/* sw.for (lb, ub, step, inits...): the body becomes the current block;
 * body args are (iv, carried...). block_end yields and closes it. */
static ir_op *for_begin(kb *k, ir_value lb, ir_value ub, ir_value step, const ir_value *inits, int n)
{
    ir_value ops[8] = {lb, ub, step};
    ir_type rts[5] = {{0}};
    for (int i = 0; i < n; i++) {
        ops[3 + i] = inits[i];
        rts[i] = ty(k, inits[i]);
    }
    ir_op *op = emit(k, IR_FOR, ops, 3 + n, rts, n, 1);
    ir_block_add_arg(k->m, op->regions[0], ty(k, lb), NULL);
    for (int i = 0; i < n; i++)
        ir_block_add_arg(k->m, op->regions[0], rts[i], NULL);
    k->stack[++k->depth] = op->regions[0];
    return op;
}

static void block_end(kb *k, const ir_value *yields, int n)
{
    yield(k, yields, n);
    k->depth--;
}

static ir_op *if_begin(kb *k, ir_value cond, const ir_type *rts, int n)
{
    ir_op *op = emit(k, IR_IF, &cond, 1, rts, n, 2);
    k->stack[++k->depth] = op->regions[0];
    return op;
}

static void if_else(kb *k, ir_op *op, const ir_value *yields, int n)
{
    yield(k, yields, n);
    k->stack[k->depth] = op->regions[1];
}

static cpu_arg buf(void *data, int64_t n)
{
    return (cpu_arg){.kind = CPU_ARG_BUFFER, .data = data, .nelems = n};
}
static cpu_arg int_arg(int64_t v) { return (cpu_arg){.kind = CPU_ARG_INT, .i = v}; }
static cpu_arg float_arg(double v) { return (cpu_arg){.kind = CPU_ARG_FLOAT, .f = v}; }

static bool launch(kb *k, int64_t g0, int64_t g1, int64_t g2, const cpu_arg *args, int nargs, diag *d)
{
    int64_t grid[3] = {g0, g1, g2};
    diag_init(d);
    return cpu_exec_launch(k->m, grid, args, nargs, d);
}

/* ---- the vector add --------------------------------------------------------- */

/* add_kernel(x_ptr, y_ptr, output_ptr, n) with BLOCK elements per program;
 * `masked` adds offsets < n. Loads carry the location of line 6 so
 * diagnostics point at "sl.load". */
static void build_add(kb *k, int block, bool masked)
{
    kb_begin(k, "add_kernel");
    ir_value x = param(k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value y = param(k, ir_type_ptr(DT_F32), "y_ptr");
    ir_value out = param(k, ir_type_ptr(DT_F32), "output_ptr");
    ir_value n = param(k, ir_type_scalar(DT_I32), "n");
    k->loc = (src_loc){3, 11};
    ir_value pid = program_id(k, 0, IR_PROGRAM_ID);
    k->loc = (src_loc){4, 15};
    ir_value start = bin(k, IR_MUL, pid, ci(k, block));
    ir_value offs = bin(k, IR_ADD, splat(k, start, block), arange(k, 0, block));
    k->loc = (src_loc){5, 12};
    ir_value mask = masked ? cmp(k, "lt", offs, splat(k, n, block)) : IR_NO_VALUE;
    ir_value other = masked ? cst_f(k, ir_type_tile(DT_F32, block), 0.0) : IR_NO_VALUE;
    k->loc = (src_loc){6, 9};
    ir_value xv = load(k, ptrs(k, x, offs), mask, other);
    k->loc = (src_loc){7, 9};
    ir_value yv = load(k, ptrs(k, y, offs), mask, other);
    k->loc = (src_loc){8, 5};
    store(k, ptrs(k, out, offs), bin(k, IR_ADD, xv, yv), mask);
    ret(k);
}

/* Runs a vector add over `programs` and checks out against ref; returns ms. */
static double run_add(kb *k, int64_t programs, const cpu_arg *args, const float *ref, float *out, int n,
                      const char *what)
{
    diag d;
    memset(out, 0, sizeof(float) * (size_t)n);
    double t0 = now();
    bool ok = launch(k, programs, 1, 1, args, 4, &d);
    double ms = 1e3 * (now() - t0);
    CHECK(ok && !memcmp(out, ref, sizeof(float) * (size_t)n), "vector add (%s): %s", what,
          d.message ? d.message : "wrong result");
    diag_clear(&d);
    return ms;
}

static void test_vector_add(void)
{
    enum { N = 1 << 20, BLOCK = 1024 };
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    float *out = malloc(sizeof(float) * N), *ref = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        x[i] = rand_float();
        y[i] = rand_float();
        ref[i] = x[i] + y[i];
    }
    kb k;
    build_add(&k, BLOCK, true);
    diag d;
    cpu_arg args[4] = {buf(x, N), buf(y, N), buf(out, N), int_arg(N)};
    double ms = run_add(&k, N / BLOCK, args, ref, out, N, "fast loops");
    printf("vector add, 2^20 f32, BLOCK %d: %.1f ms (fast loops)\n", BLOCK, ms);
    setenv("SWAGE_CPU_GENERIC", "1", 1);
    ms = run_add(&k, N / BLOCK, args, ref, out, N, "generic scalar.h path");
    unsetenv("SWAGE_CPU_GENERIC");
    printf("vector add, 2^20 f32, BLOCK %d: %.1f ms (generic scalar.h path)\n", BLOCK, ms);

    /* A masked tail: n not a multiple of BLOCK, buffers of exactly n
     * elements (ASan would catch any access past them). */
    int n = N - 77;
    float *xs = malloc(sizeof(float) * (size_t)n), *ys = malloc(sizeof(float) * (size_t)n);
    float *os = malloc(sizeof(float) * (size_t)n);
    memcpy(xs, x, sizeof(float) * (size_t)n);
    memcpy(ys, y, sizeof(float) * (size_t)n);
    cpu_arg targs[4] = {buf(xs, n), buf(ys, n), buf(os, n), int_arg(n)};
    run_add(&k, (n + BLOCK - 1) / BLOCK, targs, ref, os, n, "masked tail");

    /* The same kernel without its mask reads past the end of x. */
    kb_end(&k);
    build_add(&k, BLOCK, false);
    bool ok = launch(&k, (n + BLOCK - 1) / BLOCK, 1, 1, targs, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.load out of bounds: element 1048499 of argument 0 "
                                      "('x_ptr', 1048499 elements) in program (1023, 0, 0)");
    kb_end(&k);
    free(x), free(y), free(out), free(ref), free(xs), free(ys), free(os);
}

/* ---- out of bounds -------------------------------------------------------------- */

/* out[offs] = x[offs + shift] over BLOCK lanes, where offs = pid * stride +
 * arange; masked by offs + shift < limit when limit >= 0. */
static void build_shifted_copy(kb *k, int block, int stride, int shift, int limit)
{
    kb_begin(k, "copy");
    ir_value x = param(k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value out = param(k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value pid = program_id(k, 0, IR_PROGRAM_ID);
    ir_value start = bin(k, IR_MUL, pid, ci(k, stride));
    ir_value offs = bin(k, IR_ADD, splat(k, start, block), arange(k, 0, block));
    ir_value src = bin(k, IR_ADD, offs, cst_i(k, ir_type_tile(DT_I32, block), shift));
    ir_value mask = IR_NO_VALUE, other = IR_NO_VALUE;
    if (limit >= 0) {
        mask = cmp(k, "lt", src, cst_i(k, ir_type_tile(DT_I32, block), limit));
        other = cst_f(k, ir_type_tile(DT_F32, block), -1.0);
    }
    k->loc = (src_loc){6, 9};
    ir_value v = load(k, ptrs(k, x, src), mask, other);
    k->loc = (src_loc){8, 5};
    st(k, ptrs(k, out, offs), v);
    ret(k);
}

static void test_out_of_bounds(void)
{
    /* 120 lanes every 128 elements, shifted by 6: program 7 reads up to
     * element 1021, program 8 starts at 1030. */
    enum { N = 1024, BLOCK = 120, STRIDE = 128 };
    float x[N], out[9 * STRIDE];
    for (int i = 0; i < N; i++)
        x[i] = (float)i;
    memset(out, 0, sizeof out);
    kb k;
    diag d;
    build_shifted_copy(&k, BLOCK, STRIDE, 6, -1);
    cpu_arg args[2] = {buf(x, N), buf(out, 9 * STRIDE)};
    bool ok = launch(&k, 9, 1, 1, args, 2, &d);
    CHECK(!ok && d.kind == DIAG_RUNTIME, "out-of-bounds load fails with DIAG_RUNTIME");
    CHECK(d.message && !strcmp(d.message, "sw.load out of bounds: element 1030 of argument 0 ('x_ptr', "
                                          "1024 elements) in program (8, 0, 0)"),
          "message: %s", d.message ? d.message : "(none)");
    CHECK(d.rendered && strstr(d.rendered, "add.py:15:9: error: sw.load out of bounds") &&
              strstr(d.rendered, "    x = sl.load(x_ptr + offsets, mask=mask)\n            ^"),
          "rendered with file:line:col and caret:\n%s", d.rendered ? d.rendered : "");
    CHECK(d.file && !strcmp(d.file, "add.py") && d.line == 15 && d.col == 9, "location fields");
    bool zero = true;
    for (int i = 0; i < 9 * STRIDE; i++)
        zero = zero && out[i] == 0.0f;
    CHECK(zero, "a failed launch leaves the output as it was (programs 0..7 stored, then rolled "
                "back): out[%d] = %g", 7 * STRIDE + 119, out[7 * STRIDE + 119]);
    diag_clear(&d);
    kb_end(&k);

    /* The same access masked off is no error, and takes `other`. */
    build_shifted_copy(&k, BLOCK, STRIDE, 6, 1000);
    ok = launch(&k, 9, 1, 1, args, 2, &d);
    CHECK(ok, "masked-off out-of-bounds lanes are not accessed: %s", d.message ? d.message : "");
    CHECK(out[8 * STRIDE] == -1.0f && out[7 * STRIDE + 97] == 999.0f && out[7 * STRIDE + 98] == -1.0f,
          "masked lanes take other");
    diag_clear(&d);
    kb_end(&k);

    /* A negative offset. */
    build_shifted_copy(&k, BLOCK, STRIDE, -1, -1);
    ok = launch(&k, 1, 1, 1, args, 2, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.load out of bounds: element -1 of argument 0 ('x_ptr', "
                                      "1024 elements) in program (0, 0, 0)");
    kb_end(&k);

    /* A store whose last lane is out of bounds writes nothing at all. */
    float small[BLOCK - 1];
    for (int i = 0; i < BLOCK - 1; i++)
        small[i] = 42.0f;
    build_shifted_copy(&k, BLOCK, STRIDE, 0, -1);
    cpu_arg sargs[2] = {buf(x, N), buf(small, BLOCK - 1)};
    ok = launch(&k, 1, 1, 1, sargs, 2, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.store out of bounds: element 119 of argument 1 ('out_ptr', "
                                      "119 elements) in program (0, 0, 0)");
    bool untouched = true;
    for (int i = 0; i < BLOCK - 1; i++)
        untouched = untouched && small[i] == 42.0f;
    CHECK(untouched, "a failing store writes no lane");
    kb_end(&k);

    /* Wild pointer arithmetic that is masked off: offsets near INT64_MAX
     * wrap instead of overflowing, and are never dereferenced. */
    kb_begin(&k, "wild");
    ir_value xp = param(&k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value op = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value big = cst_i(&k, ir_type_tile(DT_I64, 4), INT64_MAX);
    ir_value p1 = addptr(&k, ptrs(&k, xp, big), big);
    ir_value off = cst_i(&k, ir_type_tile(DT_I1, 4), 0);
    ir_value v = load(&k, p1, off, cst_f(&k, ir_type_tile(DT_F32, 4), 7.0));
    st(&k, ptrs(&k, op, arange(&k, 0, 4)), v);
    store(&k, p1, v, off);
    ret(&k);
    ok = launch(&k, 3, 1, 1, args, 2, &d);
    CHECK(ok && out[0] == 7.0f && out[3] == 7.0f, "wild masked-off pointers are harmless");
    diag_clear(&d);
    kb_end(&k);
}

/* ---- a failed launch leaves every buffer as it was ---------------------------------- */

static volatile int cancel_flag;

static void *cancel_later(void *unused)
{
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    __atomic_store_n(&cancel_flag, 1, __ATOMIC_RELAXED);
    return unused;
}

static bool same_floats(const float *a, const float *b, int n)
{
    return !memcmp(a, b, sizeof(float) * (size_t)n);
}

static void test_failure_leaves_buffers(void)
{
    /* Program 97 of 100 stores out of bounds: the 97 programs before it
     * wrote 97 * 1000 floats (24 journal blocks) into a buffer with
     * arbitrary contents, all put back. */
    enum { BLOCK = 1000, P = 100, N = 97 * BLOCK + 500 };
    float *x = malloc(sizeof(float) * P * BLOCK), *y = malloc(sizeof(float) * P * BLOCK);
    float *out = malloc(sizeof(float) * N), *before = malloc(sizeof(float) * N);
    for (int i = 0; i < P * BLOCK; i++)
        x[i] = rand_float(), y[i] = rand_float();
    for (int i = 0; i < N; i++)
        out[i] = before[i] = rand_float();
    kb k;
    diag d;
    build_add(&k, BLOCK, false);
    cpu_arg args[4] = {buf(x, P * BLOCK), buf(y, P * BLOCK), buf(out, N), int_arg(P * BLOCK)};
    bool ok = launch(&k, P, 1, 1, args, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.store out of bounds: element 97500 of argument 2 "
                                      "('output_ptr', 97500 elements) in program (97, 0, 0)");
    CHECK(same_floats(out, before, N), "the 97 programs' stores are rolled back");

    /* Aliasing: the output overlaps x three elements further on, so every
     * program reads what the one before it wrote; the rollback (newest
     * block first) still restores every byte. */
    float *a = malloc(sizeof(float) * P * BLOCK), *a0 = malloc(sizeof(float) * P * BLOCK);
    for (int i = 0; i < P * BLOCK; i++)
        a[i] = a0[i] = rand_float();
    cpu_arg alias[4] = {buf(a, P * BLOCK), buf(a, P * BLOCK), buf(a + 3, P * BLOCK - 3),
                        int_arg(P * BLOCK)};
    ok = launch(&k, P, 1, 1, alias, 4, &d);
    CHECK(!ok && d.kind == DIAG_RUNTIME, "an aliased launch fails in its last program");
    diag_clear(&d);
    CHECK(same_floats(a, a0, P * BLOCK), "overlapping buffers are restored exactly");

    /* The same launch in bounds succeeds and keeps what it wrote. */
    cpu_arg fits[4] = {buf(x, P * BLOCK), buf(y, P * BLOCK), buf(a, P * BLOCK), int_arg(P * BLOCK)};
    ok = launch(&k, P, 1, 1, fits, 4, &d);
    CHECK(ok && a[5] == x[5] + y[5] && a[P * BLOCK - 1] == x[P * BLOCK - 1] + y[P * BLOCK - 1],
          "a successful launch keeps its stores: %s", d.message ? d.message : "");
    diag_clear(&d);
    kb_end(&k);

    /* A cancel flag set before the launch: nothing runs. */
    build_add(&k, 16, true);
    for (int i = 0; i < N; i++)
        out[i] = before[i];
    cancel_flag = 1;
    const volatile int *old = cpu_set_cancel_flag(&cancel_flag);
    CHECK(old == NULL, "no cancel flag by default");
    cpu_arg masked[4] = {buf(x, N), buf(y, N), buf(out, N), int_arg(N)};
    ok = launch(&k, N / 16, 1, 1, masked, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERRUPTED, "the CPU launch of 'add_kernel' was interrupted (its cancel "
                                          "flag was set); every argument buffer is as it was before "
                                          "the launch");
    CHECK(same_floats(out, before, N), "an interrupted launch wrote nothing");

    /* Set from another thread while 2^31 - 1 programs run (each storing
     * its lanes that fall below n): the launch stops promptly and every
     * store it made is rolled back. */
    cancel_flag = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, cancel_later, NULL);
    double t0 = now();
    ok = launch(&k, INT32_MAX, 1, 1, masked, 4, &d);
    double waited = now() - t0;
    pthread_join(thread, NULL);
    CHECK(!ok && d.kind == DIAG_INTERRUPTED && waited < 1.0,
          "a cancelled launch of 2^31-1 programs stops within a second (%.3f s): %s", waited,
          d.message ? d.message : "(no error)");
    diag_clear(&d);
    CHECK(same_floats(out, before, N), "and leaves the output as it was");
    cpu_set_cancel_flag(NULL);
    cancel_flag = 0;
    ok = launch(&k, N / 16, 1, 1, masked, 4, &d);
    CHECK(ok && out[17] == x[17] + y[17], "without the flag the launch runs: %s", d.message ? d.message : "");
    diag_clear(&d);
    kb_end(&k);
    free(x), free(y), free(out), free(before), free(a), free(a0);
}

/* ---- arguments and grids ----------------------------------------------------------- */

static void test_arguments(void)
{
    float x[8] = {0}, y[8] = {0}, out[8] = {0};
    kb k;
    diag d;
    build_add(&k, 8, true);
    cpu_arg three[3] = {buf(x, 8), buf(y, 8), buf(out, 8)};
    bool ok = launch(&k, 1, 1, 1, three, 3, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "kernel 'add_kernel' takes 4 arguments, got 3");

    cpu_arg bad_n[4] = {buf(x, 8), buf(y, 8), buf(out, 8), float_arg(8.0)};
    ok = launch(&k, 1, 1, 1, bad_n, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT,
                 "argument 3 ('n') must be an integer for parameter type i32, got a float");

    cpu_arg bad_x[4] = {int_arg(0), buf(y, 8), buf(out, 8), int_arg(8)};
    ok = launch(&k, 1, 1, 1, bad_x, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "argument 0 ('x_ptr') must be a buffer for parameter type "
                                       "!sw.ptr<f32>, got an integer");

    cpu_arg bad_len[4] = {buf(x, -3), buf(y, 8), buf(out, 8), int_arg(8)};
    ok = launch(&k, 1, 1, 1, bad_len, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "argument 0 ('x_ptr') is a buffer of -3 elements at a valid address");

    cpu_arg good[4] = {buf(x, 8), buf(y, 8), buf(out, 8), int_arg(8)};
    out[0] = 5.0f;
    ok = launch(&k, 0, 4, 1, good, 4, &d);
    CHECK(ok && out[0] == 5.0f, "a grid with a zero dimension runs no program");
    ok = launch(&k, 4, 4, 0, good, 4, &d);
    CHECK(ok && out[0] == 5.0f, "grid[2] == 0 runs no program");
    ok = launch(&k, 1, -1, 1, good, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "grid[1] is -1; grid sizes must be between 0 and 2147483647");
    ok = launch(&k, 0, 1, 1, three, 3, &d); /* arguments are checked even when no program runs */
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "kernel 'add_kernel' takes 4 arguments, got 3");

    /* An n of 2^32 + 3 wraps to the i32 parameter's 3. */
    for (int i = 0; i < 8; i++)
        x[i] = (float)i, y[i] = 1.0f, out[i] = 0.0f;
    cpu_arg wrap[4] = {buf(x, 8), buf(y, 8), buf(out, 8), int_arg((INT64_C(1) << 32) + 3)};
    ok = launch(&k, 1, 1, 1, wrap, 4, &d);
    CHECK(ok && out[2] == 3.0f && out[3] == 0.0f, "int argument wraps to i32");
    diag_clear(&d);
    kb_end(&k);

    /* Float parameters take a float (rounded to f16 here) or an integer. */
    kb_begin(&k, "scale");
    ir_value o = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value s = param(&k, ir_type_scalar(DT_F16), "s");
    ir_value b = param(&k, ir_type_scalar(DT_I1), "flag");
    st(&k, o, cast(&k, s, DT_F32));
    st(&k, addptr(&k, o, ci(&k, 1)), cast(&k, b, DT_F32));
    ret(&k);
    cpu_arg fa[3] = {buf(out, 8), float_arg(0.1), int_arg(2)};
    ok = launch(&k, 1, 1, 1, fa, 3, &d);
    CHECK(ok && out[0] == 0.0999755859375f && out[1] == 1.0f, "f16 float parameter rounds; i1 takes != 0");
    cpu_arg ia[3] = {buf(out, 8), int_arg(3), int_arg(0)};
    ok = launch(&k, 1, 1, 1, ia, 3, &d);
    CHECK(ok && out[0] == 3.0f && out[1] == 0.0f, "integer for a float parameter");
    diag_clear(&d);
    kb_end(&k);
}

/* Every program appends its linear id as one octal digit to out[0]
 * (a scalar load-modify-store), so the digits spell the launch order. */
static void test_grid_order(void)
{
    kb k;
    diag d;
    kb_begin(&k, "order");
    ir_value o = param(&k, ir_type_ptr(DT_I64), "out_ptr");
    ir_value p0 = cast(&k, program_id(&k, 0, IR_PROGRAM_ID), DT_I64);
    ir_value p1 = cast(&k, program_id(&k, 1, IR_PROGRAM_ID), DT_I64);
    ir_value p2 = cast(&k, program_id(&k, 2, IR_PROGRAM_ID), DT_I64);
    ir_value n0 = cast(&k, program_id(&k, 0, IR_NUM_PROGRAMS), DT_I64);
    ir_value n1 = cast(&k, program_id(&k, 1, IR_NUM_PROGRAMS), DT_I64);
    ir_value lin = bin(&k, IR_ADD, p0, bin(&k, IR_MUL, n0, bin(&k, IR_ADD, p1, bin(&k, IR_MUL, n1, p2))));
    st(&k, o, bin(&k, IR_ADD, bin(&k, IR_MUL, ld(&k, o), cst_i(&k, ir_type_scalar(DT_I64), 8)), lin));
    ret(&k);
    int64_t out = 0;
    cpu_arg args[1] = {buf(&out, 1)};
    bool ok = launch(&k, 2, 2, 2, args, 1, &d);
    CHECK(ok && out == 01234567, "programs run row-major, axis 0 fastest: got %llo", (long long)out);
    kb_end(&k);

    /* A 2-D grid: out[(pid1 * 4 + pid0) * 8 + i] = pid0 + 10 * pid1 + 100 * i. */
    kb_begin(&k, "grid2d");
    ir_value op = param(&k, ir_type_ptr(DT_I32), "out_ptr");
    ir_value q0 = program_id(&k, 0, IR_PROGRAM_ID), q1 = program_id(&k, 1, IR_PROGRAM_ID);
    ir_value row = bin(&k, IR_MUL, q1, program_id(&k, 0, IR_NUM_PROGRAMS));
    ir_value base = bin(&k, IR_MUL, bin(&k, IR_ADD, row, q0), ci(&k, 8));
    ir_value lanes = arange(&k, 0, 8);
    ir_value id = bin(&k, IR_ADD, q0, bin(&k, IR_MUL, q1, ci(&k, 10)));
    ir_value hundreds = bin(&k, IR_MUL, lanes, cst_i(&k, ir_type_tile(DT_I32, 8), 100));
    ir_value val = bin(&k, IR_ADD, splat(&k, id, 8), hundreds);
    st(&k, ptrs(&k, op, bin(&k, IR_ADD, splat(&k, base, 8), lanes)), val);
    ret(&k);
    int32_t grid_out[4 * 3 * 8];
    memset(grid_out, 0xff, sizeof grid_out);
    cpu_arg gargs[1] = {buf(grid_out, 4 * 3 * 8)};
    ok = launch(&k, 4, 3, 1, gargs, 1, &d);
    bool right = ok;
    for (int p1i = 0; p1i < 3; p1i++)
        for (int p0i = 0; p0i < 4; p0i++)
            for (int i = 0; i < 8; i++)
                right = right && grid_out[(p1i * 4 + p0i) * 8 + i] == p0i + 10 * p1i + 100 * i;
    CHECK(right, "2-D grid with program_id(1)");
    kb_end(&k);
}

/* ---- control flow ---------------------------------------------------------------- */

/* for i in range(lb, ub, step): (a, b) = (b + i, a); s += i
 * The swap makes the yield read the body's own arguments. */
static void build_loop(kb *k, ir_dtype ivdt)
{
    kb_begin(k, "loop");
    ir_value o = param(k, ir_type_ptr(DT_I64), "out_ptr");
    ir_value lb = param(k, ir_type_scalar(ivdt), "lb");
    ir_value ub = param(k, ir_type_scalar(ivdt), "ub");
    ir_value step = param(k, ir_type_scalar(ivdt), "step");
    ir_value inits[3] = {cst_i(k, ir_type_scalar(DT_I64), 1), cst_i(k, ir_type_scalar(DT_I64), 0),
                         cst_i(k, ir_type_scalar(DT_I64), 0)};
    k->loc = (src_loc){9, 14};
    ir_op *f = for_begin(k, lb, ub, step, inits, 3);
    ir_block *body = f->regions[0];
    ir_value iv = cast(k, body->args[0], DT_I64);
    ir_value a = body->args[1], b = body->args[2], s = body->args[3];
    ir_value ys[3] = {bin(k, IR_ADD, b, iv), a, bin(k, IR_ADD, s, cast(k, ci(k, 1), DT_I64))};
    block_end(k, ys, 3);
    for (int i = 0; i < 3; i++)
        st(k, addptr(k, o, ci(k, i)), f->results[i]);
    ret(k);
}

static bool run_loop(kb *k, int64_t lb, int64_t ub, int64_t step, int64_t out[3], diag *d)
{
    out[0] = out[1] = out[2] = -99;
    cpu_arg args[4] = {buf(out, 3), int_arg(lb), int_arg(ub), int_arg(step)};
    return launch(k, 1, 1, 1, args, 4, d);
}

static void loop_reference(int64_t lb, int64_t ub, int64_t step, int64_t want[3])
{
    int64_t a = 1, b = 0, count = 0;
    for (int64_t i = lb; step > 0 ? i < ub : i > ub; i += step) {
        int64_t na = b + i;
        b = a;
        a = na;
        count++;
    }
    want[0] = a, want[1] = b, want[2] = count;
}

static void test_for(void)
{
    kb k;
    diag d;
    int64_t out[3], want[3];
    build_loop(&k, DT_I32);
    static const int64_t cases[][3] = {{0, 10, 1}, {0, 10, 3}, {10, -3, -4}, {5, 5, 1},
                                       {7, 3, 1},  {3, 7, -1}, {-5, 6, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool ok = run_loop(&k, cases[c][0], cases[c][1], cases[c][2], out, &d);
        loop_reference(cases[c][0], cases[c][1], cases[c][2], want);
        CHECK(ok && !memcmp(out, want, sizeof want), "range(%lld, %lld, %lld): got (%lld, %lld, %lld)",
              (long long)cases[c][0], (long long)cases[c][1], (long long)cases[c][2], (long long)out[0],
              (long long)out[1], (long long)out[2]);
    }
    bool ok = run_loop(&k, 0, 10, 0, out, &d);
    CHECK(d.rendered && strstr(d.rendered, "add.py:18:14"), "step 0 at: %s", d.rendered ? d.rendered : "");
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "range() step must not be zero");
    kb_end(&k);

    /* i64 bounds at the extremes: the trip count must not overflow. */
    build_loop(&k, DT_I64);
    ok = run_loop(&k, INT64_MAX - 5, INT64_MAX, 2, out, &d);
    CHECK(ok && out[2] == 3, "range(MAX-5, MAX, 2) runs 3 times: %lld", (long long)out[2]);
    ok = run_loop(&k, INT64_MIN, INT64_MAX, INT64_C(1) << 62, out, &d);
    CHECK(ok && out[2] == 4, "range(MIN, MAX, 2^62) runs 4 times: %lld", (long long)out[2]);
    ok = run_loop(&k, INT64_MAX, INT64_MIN, INT64_MIN, out, &d);
    CHECK(ok && out[2] == 2, "range(MAX, MIN, MIN) runs 2 times: %lld", (long long)out[2]);
    kb_end(&k);

    /* A tile carried through a loop: row sums of a rows x 64 matrix. */
    enum { ROWS = 5, COLS = 256, BLOCK = 64 };
    kb_begin(&k, "rowsum");
    ir_value x = param(&k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value o = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value row = program_id(&k, 0, IR_PROGRAM_ID);
    ir_value rowbase = bin(&k, IR_MUL, row, ci(&k, COLS));
    ir_value zero = cst_f(&k, ir_type_tile(DT_F32, BLOCK), 0.0);
    ir_op *f = for_begin(&k, ci(&k, 0), ci(&k, COLS), ci(&k, BLOCK), &zero, 1);
    ir_block *body = f->regions[0];
    ir_value first = bin(&k, IR_ADD, rowbase, body->args[0]);
    ir_value offs = bin(&k, IR_ADD, splat(&k, first, BLOCK), arange(&k, 0, BLOCK));
    ir_value acc = bin(&k, IR_ADD, body->args[1], ld(&k, ptrs(&k, x, offs)));
    block_end(&k, &acc, 1);
    st(&k, addptr(&k, o, row), reduce(&k, "sum", f->results[0]));
    ret(&k);
    float m[ROWS * COLS], sums[ROWS];
    for (int i = 0; i < ROWS * COLS; i++)
        m[i] = (float)(i % 7) - 2.5f;
    cpu_arg args[2] = {buf(m, ROWS * COLS), buf(sums, ROWS)};
    ok = launch(&k, ROWS, 1, 1, args, 2, &d);
    bool right = ok;
    for (int r = 0; r < ROWS; r++) {
        float acc4[BLOCK] = {0};
        for (int c = 0; c < COLS; c++)
            acc4[c % BLOCK] += m[r * COLS + c];
        double total = 0;
        for (int l = 0; l < BLOCK; l++)
            total += acc4[l];
        right = right && sums[r] == (float)total;
    }
    CHECK(right, "tile carried through sw.for");
    kb_end(&k);
}

/* out[pid] = pid < 2 ? 1.5 : sqrt(pid), and out[8 + pid] = 1 only in odd programs. */
static void test_if(void)
{
    kb k;
    diag d;
    kb_begin(&k, "branch");
    ir_value o = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value pid = program_id(&k, 0, IR_PROGRAM_ID);
    ir_value c = cmp(&k, "lt", pid, ci(&k, 2));
    ir_type f32 = ir_type_scalar(DT_F32);
    ir_op *iff = if_begin(&k, c, &f32, 1);
    ir_value then_v = cst_f(&k, f32, 1.5);
    if_else(&k, iff, &then_v, 1);
    ir_value else_v = un(&k, IR_SQRT, cast(&k, pid, DT_F32));
    block_end(&k, &else_v, 1);
    st(&k, addptr(&k, o, pid), iff->results[0]);
    ir_value odd = cast(&k, bin(&k, IR_AND, pid, ci(&k, 1)), DT_I1);
    ir_op *side = if_begin(&k, odd, NULL, 0);
    st(&k, addptr(&k, o, bin(&k, IR_ADD, pid, ci(&k, 8))), cst_f(&k, f32, 1.0));
    if_else(&k, side, NULL, 0);
    block_end(&k, NULL, 0);
    ret(&k);
    float out[16] = {0};
    cpu_arg args[1] = {buf(out, 16)};
    bool ok = launch(&k, 8, 1, 1, args, 1, &d);
    bool right = ok;
    for (int p = 0; p < 8; p++)
        right = right && out[p] == (p < 2 ? 1.5f : sqrtf((float)p)) && out[8 + p] == (float)(p & 1);
    CHECK(right, "sw.if with and without results");
    kb_end(&k);
}

/* ---- reductions, casts, mixed ops ------------------------------------------------------ */

static void test_reduce(void)
{
    enum { T = 1000 };
    static const char *const kinds[] = {"sum", "max", "min", "prod"};
    float x[T];
    for (int i = 0; i < T; i++)
        x[i] = 1.0f + rand_float() / 1000.0f; /* near 1, so the product stays finite */
    kb k;
    diag d;
    kb_begin(&k, "reductions");
    ir_value xp = param(&k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value o = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value v = ld(&k, ptrs(&k, xp, arange(&k, 0, T)));
    for (int r = 0; r < 4; r++)
        st(&k, addptr(&k, o, ci(&k, r)), reduce(&k, kinds[r], v));
    ret(&k);
    float out[4];
    cpu_arg args[2] = {buf(x, T), buf(out, 4)};
    bool ok = launch(&k, 1, 1, 1, args, 2, &d);
    double sum = 0, prod = 1;
    float mx = -INFINITY, mn = INFINITY;
    for (int i = 0; i < T; i++) {
        sum += x[i];
        prod *= x[i];
        mx = x[i] > mx ? x[i] : mx;
        mn = x[i] < mn ? x[i] : mn;
    }
    CHECK(ok && out[0] == (float)sum, "sum accumulates in double, rounds once");
    CHECK(out[1] == mx && out[2] == mn, "max/min");
    CHECK(out[3] == (float)prod, "prod accumulates in double: %g vs %g", out[3], (float)prod);
    x[500] = NAN;
    ok = launch(&k, 1, 1, 1, args, 2, &d);
    CHECK(ok && isnan(out[0]) && isnan(out[1]) && isnan(out[2]), "NaN propagates through sum/max/min");
    kb_end(&k);

    /* Integer sums wrap in the element type. */
    kb_begin(&k, "isum");
    xp = param(&k, ir_type_ptr(DT_I8), "x_ptr");
    o = param(&k, ir_type_ptr(DT_I8), "out_ptr");
    v = ld(&k, ptrs(&k, xp, arange(&k, 0, 16)));
    st(&k, o, reduce(&k, "sum", v));
    st(&k, addptr(&k, o, ci(&k, 1)), reduce(&k, "max", v));
    st(&k, addptr(&k, o, ci(&k, 2)), reduce(&k, "min", v));
    ret(&k);
    int8_t xi[16], oi[3];
    for (int i = 0; i < 16; i++)
        xi[i] = (int8_t)(i * 15 - 100); /* -100 .. 125, summing to 200 */
    cpu_arg iargs[2] = {buf(xi, 16), buf(oi, 3)};
    ok = launch(&k, 1, 1, 1, iargs, 2, &d);
    CHECK(ok && oi[0] == -56 && oi[1] == 125 && oi[2] == -100,
          "i8 sum wraps (%d), max %d, min %d", oi[0], oi[1], oi[2]);
    kb_end(&k);
}

static void test_cast_f16_store(void)
{
    enum { T = 4096 };
    float x[T];
    uint16_t h[T];
    for (int i = 0; i < T; i++)
        x[i] = rand_float() * (float)(1 << (i % 20)) * 1e-3f;
    x[0] = 65520.0f, x[1] = 1e-8f, x[2] = NAN, x[3] = -0.0f, x[4] = 1.0f + 0x1p-11f;
    kb k;
    diag d;
    kb_begin(&k, "to_half");
    ir_value xp = param(&k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value hp = param(&k, ir_type_ptr(DT_F16), "h_ptr");
    ir_value back = param(&k, ir_type_ptr(DT_F32), "back_ptr");
    ir_value pid = program_id(&k, 0, IR_PROGRAM_ID);
    ir_value offs = bin(&k, IR_ADD, splat(&k, bin(&k, IR_MUL, pid, ci(&k, 512)), 512), arange(&k, 0, 512));
    st(&k, ptrs(&k, hp, offs), cast(&k, ld(&k, ptrs(&k, xp, offs)), DT_F16));
    st(&k, ptrs(&k, back, offs), cast(&k, ld(&k, ptrs(&k, hp, offs)), DT_F32));
    ret(&k);
    float b[T];
    cpu_arg args[3] = {buf(x, T), buf(h, T), buf(b, T)};
    bool ok = launch(&k, T / 512, 1, 1, args, 3, &d);
    bool right = ok;
    for (int i = 0; i < T; i++) {
        uint16_t want = ir_f32_to_f16(x[i]);
        if (isnan(x[i]))
            right = right && (h[i] & 0x7c00) == 0x7c00 && (h[i] & 0x3ff) && isnan(b[i]);
        else
            right = right && h[i] == want && b[i] == ir_f16_to_f32(want);
#ifdef __FLT16_MAX__
        half_t c = (half_t)x[i];
        uint16_t cb;
        memcpy(&cb, &c, 2);
        right = right && (isnan(x[i]) || cb == h[i]);
#endif
    }
    CHECK(right, "f32 -> f16 cast stored as uint16 bits, and loaded back");
    CHECK(h[0] == 0x7c00 && h[1] == 0x0000 && h[3] == 0x8000 && h[4] == 0x3c00, "f16 edge cases");
    kb_end(&k);
}

/* Many ops over edge values: the fast loops must equal scalar.h element by
 * element, and the generic path bit for bit. */
static void run_mixed(kb *k, float *fx, float *fy, int32_t *ix, int32_t *iy, ir_scalar *res, int T)
{
    float fout[16 * 64];
    int32_t iout[16 * 64];
    cpu_arg args[6] = {buf(fx, T), buf(fy, T), buf(ix, T), buf(iy, T), buf(fout, 16 * T), buf(iout, 16 * T)};
    diag d;
    bool ok = launch(k, 1, 1, 1, args, 6, &d);
    CHECK(ok, "mixed kernel runs: %s", d.message ? d.message : "");
    diag_clear(&d);
    for (int i = 0; i < 16 * T; i++) {
        res[i].f = fout[i];
        res[16 * T + i].i = iout[i];
    }
}

static void test_mixed_ops(void)
{
    enum { T = 64 };
    static const ir_op_kind fops[] = {IR_ADD,      IR_SUB, IR_MUL,     IR_DIV,
                                      IR_FLOORDIV, IR_MOD, IR_MINIMUM, IR_MAXIMUM};
    static const ir_op_kind iops[] = {IR_ADD, IR_SUB, IR_MUL, IR_FLOORDIV, IR_MOD, IR_SHL, IR_SHR, IR_XOR};
    static const char *const preds[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    float fx[T], fy[T];
    int32_t ix[T], iy[T];
    static const float fedge[] = {0.0f, -0.0f, 1.0f, -1.5f, INFINITY, -INFINITY, NAN, 3e38f, 1e-45f, 7.0f};
    static const int32_t iedge[] = {0, 1, -1, INT32_MAX, INT32_MIN, 7, -7, 31, 32, 2};
    for (int i = 0; i < T; i++) {
        fx[i] = i < 10 ? fedge[i] : rand_float();
        fy[i] = fedge[(i * 7 + 3) % 10];
        ix[i] = i < 10 ? iedge[i] : (int32_t)rng();
        iy[i] = iedge[(i * 3 + 1) % 10];
    }
    kb k;
    kb_begin(&k, "mixed");
    ir_value p[6];
    static const char *const names[] = {"fx", "fy", "ix", "iy", "fout", "iout"};
    for (int i = 0; i < 6; i++)
        p[i] = param(&k, ir_type_ptr(i == 2 || i == 3 || i == 5 ? DT_I32 : DT_F32), names[i]);
    ir_value lanes = arange(&k, 0, T);
    ir_value v[4];
    for (int i = 0; i < 4; i++)
        v[i] = ld(&k, ptrs(&k, p[i], lanes));
    /* Output slots: 0-7 binary ops, 8-13 cmp (+ select), 14-15 math and casts. */
    for (int slot = 0; slot < 16; slot++) {
        ir_value at = bin(&k, IR_ADD, lanes, cst_i(&k, ir_type_tile(DT_I32, T), slot * T)), f, i;
        if (slot < 8) {
            f = bin(&k, fops[slot], v[0], v[1]);
            i = bin(&k, iops[slot], v[2], v[3]);
        } else if (slot < 14) {
            f = select3(&k, cmp(&k, preds[slot - 8], v[0], v[1]), v[0], v[1]);
            i = cast(&k, cmp(&k, preds[slot - 8], v[2], v[3]), DT_I32);
        } else {
            f = slot == 14 ? un(&k, IR_EXP, v[0]) : cast(&k, v[2], DT_F32);
            i = slot == 14 ? cast(&k, v[0], DT_I32) : un(&k, IR_NEG, v[2]);
        }
        st(&k, ptrs(&k, p[4], at), f);
        st(&k, ptrs(&k, p[5], at), i);
    }
    ret(&k);

    static ir_scalar fast[32 * T], generic[32 * T];
    run_mixed(&k, fx, fy, ix, iy, fast, T);
    setenv("SWAGE_CPU_GENERIC", "1", 1);
    run_mixed(&k, fx, fy, ix, iy, generic, T);
    unsetenv("SWAGE_CPU_GENERIC");
    CHECK(!memcmp(fast, generic, sizeof fast), "fast loops equal the generic scalar.h path bit for bit");

    /* And both equal scalar.h applied by hand. */
    bool right = true;
    for (int o = 0; o < 8; o++)
        for (int i = 0; i < T; i++) {
            ir_scalar r;
            ir_eval_binary(fops[o], DT_F32, (ir_scalar){.f = fx[i]}, (ir_scalar){.f = fy[i]}, &r);
            double got = fast[o * T + i].f;
            right = right && ((isnan(got) && isnan(r.f)) || got == r.f);
            ir_eval_binary(iops[o], DT_I32, (ir_scalar){.i = ix[i]}, (ir_scalar){.i = iy[i]}, &r);
            right = right && fast[16 * T + o * T + i].i == r.i;
        }
    CHECK(right, "binary ops equal scalar.h");
    for (int c = 0; c < 6; c++)
        for (int i = 0; i < T; i++) {
            int want = ir_eval_cmp(preds[c], DT_I32, (ir_scalar){.i = ix[i]}, (ir_scalar){.i = iy[i]});
            right = right && fast[16 * T + (8 + c) * T + i].i == want;
            int fw = ir_eval_cmp(preds[c], DT_F32, (ir_scalar){.f = fx[i]}, (ir_scalar){.f = fy[i]});
            float sel = fw ? fx[i] : fy[i], got = (float)fast[(8 + c) * T + i].f;
            right = right && ((isnan(sel) && isnan(got)) || !memcmp(&sel, &got, 4));
        }
    CHECK(right, "cmp and select equal scalar.h");
    CHECK(fast[16 * T + 14 * T + 6].i == 0 && fast[16 * T + 14 * T + 4].i == INT32_MAX,
          "f32 -> i32 cast: NaN -> 0, inf saturates");
    kb_end(&k);
}

/* Pointers from two arguments mixed per lane by sw.select, and a bool
 * (i1) buffer used as a store mask: NumPy bools are bytes, nonzero is true. */
static void test_pointer_select_and_bool_mask(void)
{
    enum { T = 8 };
    kb k;
    diag d;
    kb_begin(&k, "mix_ptrs");
    ir_value xp = param(&k, ir_type_ptr(DT_F32), "x_ptr");
    ir_value yp = param(&k, ir_type_ptr(DT_F32), "y_ptr");
    ir_value mp = param(&k, ir_type_ptr(DT_I1), "m_ptr");
    ir_value op = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value lanes = arange(&k, 0, T);
    ir_value even = cmp(&k, "eq", bin(&k, IR_AND, lanes, cst_i(&k, ir_type_tile(DT_I32, T), 1)),
                        cst_i(&k, ir_type_tile(DT_I32, T), 0));
    ir_value px = ptrs(&k, xp, lanes), py = ptrs(&k, yp, lanes);
    ir_value v = ld(&k, select3(&k, even, px, py));
    ir_value m = ld(&k, ptrs(&k, mp, lanes));
    store(&k, ptrs(&k, op, lanes), v, m);
    ret(&k);
    float x[T], y[T], out[T];
    uint8_t mask[T] = {1, 0, 2, 0, 255, 1, 0, 1};
    for (int i = 0; i < T; i++)
        x[i] = (float)i, y[i] = (float)(100 + i), out[i] = -1.0f;
    cpu_arg args[4] = {buf(x, T), buf(y, T), buf(mask, T), buf(out, T)};
    bool ok = launch(&k, 1, 1, 1, args, 4, &d);
    bool right = ok;
    for (int i = 0; i < T; i++)
        right = right && out[i] == (mask[i] ? (i % 2 ? 100.0f + (float)i : (float)i) : -1.0f);
    CHECK(right, "per-lane pointer select across arguments; i1 mask bytes");
    /* The y buffer one element short: only lane 7 (odd, masked on) fails. */
    cpu_arg short_y[4] = {buf(x, T), buf(y, T - 1), buf(mask, T), buf(out, T)};
    ok = launch(&k, 1, 1, 1, short_y, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.load out of bounds: element 7 of argument 1 ('y_ptr', 7 elements) "
                                      "in program (0, 0, 0)");
    kb_end(&k);
}

/* A module that breaks the verifier's rules gives an internal error, not a
 * crash, and returns (no longjmp) even when the caller set a bail point. */
static void test_unverified_module(void)
{
    kb k;
    diag d;
    kb_begin(&k, "broken");
    ir_value op = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value a = cst_f(&k, ir_type_tile(DT_F32, 8), 1.0), b = cst_f(&k, ir_type_tile(DT_F32, 4), 2.0);
    ir_value sum = op2(&k, IR_ADD, ir_type_tile(DT_F32, 8), a, b);
    st(&k, ptrs(&k, op, arange(&k, 0, 8)), sum);
    ret(&k);
    float out[8];
    cpu_arg args[1] = {buf(out, 8)};
    int64_t grid[3] = {1, 1, 1};
    jmp_buf jb;
    diag_init(&d);
    d.bail = &jb;
    volatile bool jumped = false, ok = true;
    if (setjmp(jb))
        jumped = true;
    else
        ok = cpu_exec_launch(k.m, grid, args, 1, &d);
    CHECK(!jumped && !ok && d.kind == DIAG_INTERNAL && d.message && strstr(d.message, "different lengths"),
          "mismatched tile lengths are an internal error: %s", d.message ? d.message : "(none)");
    CHECK(d.bail == &jb, "the caller's bail point is restored");
    diag_clear(&d);
    kb_end(&k);
}

/* A launch of many programs allocates nothing per program: run 8192
 * programs and check the executor's results (ASan/LSan check the rest). */
static void test_many_programs(void)
{
    enum { P = 8192, BLOCK = 16 };
    kb k;
    diag d;
    build_add(&k, BLOCK, true);
    float *x = calloc(P * BLOCK, sizeof(float)), *y = calloc(P * BLOCK, sizeof(float));
    float *o = calloc(P * BLOCK, sizeof(float));
    for (int i = 0; i < P * BLOCK; i++)
        x[i] = (float)i, y[i] = 0.5f;
    cpu_arg args[4] = {buf(x, P * BLOCK), buf(y, P * BLOCK), buf(o, P * BLOCK), int_arg(P * BLOCK - 3)};
    double t0 = now();
    bool ok = launch(&k, P, 1, 1, args, 4, &d);
    double t1 = now();
    CHECK(ok && o[P * BLOCK - 4] == (float)(P * BLOCK - 4) + 0.5f && o[P * BLOCK - 3] == 0.0f,
          "8192 programs with a masked tail");
    printf("8192 programs of 16 lanes: %.1f ms\n", 1e3 * (t1 - t0));
    free(x), free(y), free(o);
    kb_end(&k);
}

int main(void)
{
    test_vector_add();
    test_out_of_bounds();
    test_failure_leaves_buffers();
    test_arguments();
    test_grid_order();
    test_for();
    test_if();
    test_reduce();
    test_cast_f16_store();
    test_mixed_ops();
    test_pointer_select_and_bool_mask();
    test_unverified_module();
    test_many_programs();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
