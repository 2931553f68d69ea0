/* test_segment_exec.c - unit tests of segment programs on the CPU reference
 * executor (docs/segments.md): segmented reductions, softmax, zipped views,
 * f16 values, int32/int64 offsets and the offsets/bounds errors, on fresh
 * random ragged data each run (the seed is printed with every failure),
 * checked against plain C loops. Kernels are built with the ir.h builder
 * API. Prints timings, then "N passed, N failed"; exits nonzero on failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "backends/cpu/cpu_exec.h"
#include "ir/scalar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;
static unsigned long long seed;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if ((cond) ? (passed++, false) : (failed++, true))                                 \
            printf("FAIL %s:%d (seed %llu): ", __FILE__, __LINE__, seed), printf(__VA_ARGS__), \
                printf("\n");                                                              \
    } while (0)

/* A failed launch whose diagnostic has `kind` and exactly `text`; clears d. */
#define EXPECT_ERROR(d, ok, k, text)                                                       \
    do {                                                                                   \
        CHECK(!(ok) && (d).kind == (k) && (d).message && !strcmp((d).message, (text)),     \
              "expected \"%s\", got: %s", (text), (d).message ? (d).message : "(none)");   \
        diag_clear(&(d));                                                                  \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state;
static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static int64_t rand_range(int64_t lo, int64_t hi) { return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1)); }
/* Multiples of 1/8 in [-100, 100]: exact in f16, so f16 and f32 runs agree. */
static float rand_value(void) { return (float)rand_range(-800, 800) / 8.0f; }

/* The text diagnostics point into. */
static const char kernel_src[] =
    "@sw.jit\n"
    "def segmented_softmax(values_ptr, offsets_ptr, output_ptr):\n"
    "    sid = sl.segment_id(0)\n"
    "    segment = sl.segment(values_ptr, offsets_ptr, sid)\n"
    "    x = sl.load_segment(segment)\n"
    "    maximum = sl.max(x)\n"
    "    numerator = sl.exp(x - maximum)\n"
    "    denominator = sl.sum(numerator)\n"
    "    sl.store_segment(output_ptr, segment, numerator / denominator)\n";

/* ---- a small kernel builder ---------------------------------------------------- */

typedef struct kb {
    arena ar;
    ir_module *m;
    ir_op *func;
    ir_block *stack[8]; /* blocks being filled; the top one gets new ops */
    int depth;
    src_loc loc;
    bool unverified;
} kb;

static void kb_begin(kb *k, const char *name)
{
    memset(k, 0, sizeof *k);
    arena_init(&k->ar);
    source_file src = {"softmax.py", kernel_src, sizeof kernel_src - 1, 20};
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
static ir_value op1(kb *k, ir_op_kind kind, ir_type rt, ir_value a) { return emit(k, kind, &a, 1, &rt, 1, 0)->results[0]; }
static ir_value bin(kb *k, ir_op_kind kind, ir_value a, ir_value b)
{
    ir_value ops[2] = {a, b};
    ir_type rt = ty(k, a);
    return emit(k, kind, ops, 2, &rt, 1, 0)->results[0];
}
static ir_value un(kb *k, ir_op_kind kind, ir_value a) { return op1(k, kind, ty(k, a), a); }
static ir_value cast(kb *k, ir_value a, ir_dtype to) { return op1(k, IR_CAST, ir_type_like(ty(k, a), ir_type_scalar(to)), a); }
/* A scalar spread over the program's segment. */
static ir_value seg_splat(kb *k, ir_value s) { return op1(k, IR_SPLAT, ir_type_segval((ir_dtype)ty(k, s).dtype), s); }

static ir_value cst(kb *k, ir_type t, double v)
{
    ir_op *op = emit(k, IR_CONSTANT, NULL, 0, &t, 1, 0);
    if (ir_dtype_is_float((ir_dtype)t.dtype))
        ir_attr_set_float(k->m, op, "value", ir_type_scalar((ir_dtype)t.dtype), v);
    else
        ir_attr_set_int(k->m, op, "value", ir_type_scalar((ir_dtype)t.dtype), (int64_t)v);
    return op->results[0];
}

static ir_value cmp(kb *k, const char *pred, ir_value a, ir_value b)
{
    ir_type rt = ir_type_like(ty(k, a), ir_type_scalar(DT_I1));
    ir_value ops[2] = {a, b};
    ir_op *op = emit(k, IR_CMP, ops, 2, &rt, 1, 0);
    ir_attr_set_str(k->m, op, "predicate", pred);
    return op->results[0];
}

static ir_value segment_id(kb *k)
{
    ir_type t = ir_type_scalar(DT_I32);
    ir_op *op = emit(k, IR_SEGMENT_ID, NULL, 0, &t, 1, 0);
    ir_attr_set_int(k->m, op, "axis", t, 0);
    return op->results[0];
}

static ir_value segment(kb *k, ir_value values, ir_value offsets, ir_value sid)
{
    ir_value ops[3] = {values, offsets, sid};
    ir_type rt = ir_type_segment((ir_dtype)ty(k, values).dtype);
    return emit(k, IR_SEGMENT, ops, 3, &rt, 1, 0)->results[0];
}

static ir_value load_segment(kb *k, ir_value view)
{
    return op1(k, IR_LOAD_SEGMENT, ir_type_segval((ir_dtype)ty(k, view).dtype), view);
}

static ir_value segment_length(kb *k, ir_value view, ir_dtype offsets_dt)
{
    return op1(k, IR_SEGMENT_LENGTH, ir_type_scalar(offsets_dt), view);
}

static void store_segment(kb *k, ir_value p, ir_value view, ir_value v)
{
    ir_value ops[3] = {p, view, v};
    emit(k, IR_STORE_SEGMENT, ops, 3, NULL, 0, 0);
}

static ir_value reduce(kb *k, const char *kind, ir_value x)
{
    ir_type rt = ir_type_elem(ty(k, x));
    ir_op *op = emit(k, IR_REDUCE, &x, 1, &rt, 1, 0);
    ir_attr_set_str(k->m, op, "kind", kind);
    return op->results[0];
}

/* ptr[sid] = v, a per-segment scalar store. */
static void store_at(kb *k, ir_value p, ir_value sid, ir_value v)
{
    ir_value ops[2] = {p, sid};
    ir_type pt = ty(k, p);
    ir_value at = emit(k, IR_ADDPTR, ops, 2, &pt, 1, 0)->results[0];
    ir_value st[2] = {at, v};
    emit(k, IR_STORE, st, 2, NULL, 0, 0);
}

static void ret(kb *k) { emit(k, IR_RETURN, NULL, 0, NULL, 0, 0); }

static cpu_arg buf(void *data, int64_t n) { return (cpu_arg){.kind = CPU_ARG_BUFFER, .data = data, .nelems = n}; }

/* Every kernel the builder makes is checked by the verifier first, except
 * the ones marked unverified (IR the verifier rejects, run to show the
 * executor still stays safe). */
static bool launch(kb *k, int64_t segments, const cpu_arg *args, int nargs, diag *d)
{
    int64_t grid[3] = {segments, 1, 1};
    diag_init(d);
    if (!k->unverified) {
        bool valid = ir_verify(k->m, d);
        CHECK(valid, "kernel '%s' verifies: %s", ir_func_name(ir_module_func(k->m)),
              d->message ? d->message : "");
        if (!valid)
            return false;
    }
    return cpu_exec_launch(k->m, grid, args, nargs, d);
}

/* ---- kernels -------------------------------------------------------------------------- */

/* The common start: (values_ptr, offsets_ptr, out_ptr) -> x, loaded as f32
 * when values are f16 (the frontend's casts). */
typedef struct seg_kernel {
    kb k;
    ir_value values, offsets, out, sid, view, x;
} seg_kernel;

static void seg_begin(seg_kernel *s, const char *name, ir_dtype vdt, ir_dtype odt, ir_dtype outdt)
{
    kb *k = &s->k;
    kb_begin(k, name);
    s->values = param(k, ir_type_ptr(vdt), "values_ptr");
    s->offsets = param(k, ir_type_ptr(odt), "offsets_ptr");
    s->out = param(k, ir_type_ptr(outdt), "output_ptr");
    k->loc = (src_loc){3, 11};
    s->sid = segment_id(k);
    k->loc = (src_loc){4, 15};
    s->view = segment(k, s->values, s->offsets, s->sid);
    k->loc = (src_loc){5, 9};
    s->x = load_segment(k, s->view);
    if (vdt == DT_F16)
        s->x = cast(k, s->x, DT_F32);
}

/* out[sid] = reduce(kind, x). */
static void build_reduce(seg_kernel *s, const char *kind, ir_dtype vdt, ir_dtype odt)
{
    seg_begin(s, "segmented_reduce", vdt, odt, vdt == DT_F16 ? DT_F32 : vdt);
    kb *k = &s->k;
    store_at(k, s->out, s->sid, reduce(k, kind, s->x));
    ret(k);
}

/* The three stages of docs/segments.md; f16 output rounds back. */
static void build_softmax(seg_kernel *s, ir_dtype vdt, ir_dtype odt)
{
    seg_begin(s, "segmented_softmax", vdt, odt, vdt);
    kb *k = &s->k;
    k->loc = (src_loc){6, 15};
    ir_value m = reduce(k, "max", s->x);
    k->loc = (src_loc){7, 17};
    ir_value e = un(k, IR_EXP, bin(k, IR_SUB, s->x, seg_splat(k, m)));
    k->loc = (src_loc){8, 19};
    ir_value sum = reduce(k, "sum", e);
    k->loc = (src_loc){9, 5};
    ir_value y = bin(k, IR_DIV, e, seg_splat(k, sum));
    store_segment(k, s->out, s->view, vdt == DT_F16 ? cast(k, y, DT_F16) : y);
    ret(k);
}

/* ---- random ragged data ------------------------------------------------------------------ */

/* Segment lengths: a quarter empty, most short, a few long; offsets start
 * at `first` and the values buffer has `tail` elements past the last one. */
typedef struct ragged {
    int64_t nseg, nvalues;
    int64_t *off64;
    int32_t *off32;
    float *values;
    uint16_t *values16;
} ragged;

static int64_t rand_length(void)
{
    int r = (int)rand_range(0, 99);
    return r < 25 ? 0 : r < 75 ? rand_range(1, 32) : r < 95 ? rand_range(33, 300) : rand_range(301, 3000);
}

static void ragged_make(ragged *g, int64_t nseg, int64_t (*length)(void), int64_t first, int64_t tail)
{
    g->nseg = nseg;
    g->off64 = malloc(sizeof(int64_t) * (size_t)(nseg + 1));
    g->off32 = malloc(sizeof(int32_t) * (size_t)(nseg + 1));
    g->off64[0] = first;
    for (int64_t s = 0; s < nseg; s++)
        g->off64[s + 1] = g->off64[s] + length();
    for (int64_t s = 0; s <= nseg; s++)
        g->off32[s] = (int32_t)g->off64[s];
    g->nvalues = g->off64[nseg] + tail;
    g->values = malloc(sizeof(float) * (size_t)(g->nvalues + 1));
    g->values16 = malloc(sizeof(uint16_t) * (size_t)(g->nvalues + 1));
    for (int64_t i = 0; i < g->nvalues; i++) {
        g->values[i] = rand_value();
        g->values16[i] = ir_f32_to_f16(g->values[i]); /* exact: multiples of 1/8 below 2048 */
    }
}

static void ragged_free(ragged *g) { free(g->off64), free(g->off32), free(g->values), free(g->values16); }

static cpu_arg offsets_arg(ragged *g, ir_dtype odt)
{
    return odt == DT_I32 ? buf(g->off32, g->nseg + 1) : buf(g->off64, g->nseg + 1);
}
static cpu_arg values_arg(ragged *g, ir_dtype vdt)
{
    return vdt == DT_F16 ? buf(g->values16, g->nvalues) : buf(g->values, g->nvalues);
}

/* ---- reductions -------------------------------------------------------------------------- */

static float ref_reduce(const char *kind, const float *v, int64_t n)
{
    if (!strcmp(kind, "sum") || !strcmp(kind, "prod")) {
        bool sum = !strcmp(kind, "sum");
        double acc = sum ? 0.0 : 1.0;
        for (int64_t i = 0; i < n; i++)
            acc = sum ? acc + v[i] : acc * v[i];
        return (float)acc;
    }
    bool max = !strcmp(kind, "max");
    float acc = max ? -INFINITY : INFINITY;
    for (int64_t i = 0; i < n; i++)
        acc = max ? (v[i] > acc ? v[i] : acc) : (v[i] < acc ? v[i] : acc);
    return acc;
}

static void test_float_reductions(void)
{
    static const char *const kinds[] = {"sum", "max", "min", "prod"};
    static const ir_dtype vdts[] = {DT_F32, DT_F16};
    static const ir_dtype odts[] = {DT_I32, DT_I64};
    for (int round = 0; round < 3; round++) {
        ragged g;
        ragged_make(&g, rand_range(1, 400), rand_length, rand_range(0, 5), rand_range(0, 3));
        for (int ki = 0; ki < 4; ki++)
            for (int vi = 0; vi < 2; vi++)
                for (int oi = 0; oi < 2; oi++) {
                    seg_kernel s;
                    build_reduce(&s, kinds[ki], vdts[vi], odts[oi]);
                    float *out = malloc(sizeof(float) * (size_t)g.nseg);
                    cpu_arg args[3] = {values_arg(&g, vdts[vi]), offsets_arg(&g, odts[oi]), buf(out, g.nseg)};
                    diag d;
                    bool ok = launch(&s.k, g.nseg, args, 3, &d);
                    int64_t bad = -1;
                    for (int64_t i = 0; ok && bad < 0 && i < g.nseg; i++) {
                        float want = ref_reduce(kinds[ki], g.values + g.off64[i], g.off64[i + 1] - g.off64[i]);
                        if (memcmp(&want, &out[i], sizeof want) != 0)
                            bad = i;
                    }
                    CHECK(ok && bad < 0, "segmented %s, %s values, %s offsets, %lld segments: %s (segment %lld: %g, want %g)",
                          kinds[ki], ir_dtypes[vdts[vi]].name, ir_dtypes[odts[oi]].name, (long long)g.nseg,
                          d.message ? d.message : "wrong result", (long long)bad, bad >= 0 ? out[bad] : 0.0,
                          bad >= 0 ? ref_reduce(kinds[ki], g.values + g.off64[bad], g.off64[bad + 1] - g.off64[bad]) : 0.0);
                    diag_clear(&d);
                    free(out);
                    kb_end(&s.k);
                }
        ragged_free(&g);
    }
}

/* Integer segment values: sums wrap in the element type, an empty segment
 * gives 0, 1, the type minimum (max) and maximum (min). */
static void test_int_reductions(void)
{
    static const char *const kinds[] = {"sum", "max", "min", "prod"};
    ragged g;
    ragged_make(&g, rand_range(50, 200), rand_length, 0, 0);
    int32_t *vals = malloc(sizeof(int32_t) * (size_t)(g.nvalues + 1));
    for (int64_t i = 0; i < g.nvalues; i++)
        vals[i] = (int32_t)rand_range(-2000000000, 2000000000);
    int empties = 0;
    for (int ki = 0; ki < 4; ki++) {
        seg_kernel s;
        build_reduce(&s, kinds[ki], DT_I32, DT_I64);
        int32_t *out = malloc(sizeof(int32_t) * (size_t)g.nseg);
        cpu_arg args[3] = {buf(vals, g.nvalues), offsets_arg(&g, DT_I64), buf(out, g.nseg)};
        diag d;
        bool ok = launch(&s.k, g.nseg, args, 3, &d);
        int64_t bad = -1;
        for (int64_t i = 0; ok && bad < 0 && i < g.nseg; i++) {
            uint32_t acc = ki == 0 ? 0u : ki == 3 ? 1u : ki == 1 ? 0x80000000u : 0x7fffffffu;
            for (int64_t j = g.off64[i]; j < g.off64[i + 1]; j++) {
                int32_t a = (int32_t)acc, v = vals[j];
                acc = ki == 0 ? acc + (uint32_t)v : ki == 3 ? acc * (uint32_t)v
                    : ki == 1 ? (uint32_t)(v > a ? v : a) : (uint32_t)(v < a ? v : a);
            }
            if ((uint32_t)out[i] != acc)
                bad = i;
            empties += g.off64[i] == g.off64[i + 1];
        }
        CHECK(ok && bad < 0, "int32 segmented %s: %s (segment %lld)", kinds[ki],
              d.message ? d.message : "wrong result", (long long)bad);
        diag_clear(&d);
        free(out);
        kb_end(&s.k);
    }
    CHECK(empties > 0, "the data has empty segments");
    free(vals);
    ragged_free(&g);
}

/* ---- softmax ------------------------------------------------------------------------------ */

/* The same arithmetic as the oracle, in C: f32 results of double
 * operations rounded once, sums in double. Bit-exact. */
static void ref_softmax(const float *x, int64_t n, float *y)
{
    float m = ref_reduce("max", x, n);
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        y[i] = (float)exp((double)(float)((double)x[i] - (double)m));
        sum += y[i];
    }
    float s = (float)sum;
    for (int64_t i = 0; i < n; i++)
        y[i] = (float)((double)y[i] / (double)s);
}

/* Runs softmax over g; elements outside every segment keep their sentinel. */
static void check_softmax(ragged *g, ir_dtype vdt, ir_dtype odt, const char *what)
{
    seg_kernel s;
    build_softmax(&s, vdt, odt);
    int64_t n = g->nvalues;
    float *out = malloc(sizeof(float) * (size_t)(n + 1)), *ref = malloc(sizeof(float) * (size_t)(n + 1));
    uint16_t *out16 = malloc(sizeof(uint16_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        ref[i] = out[i] = 1234.5f, out16[i] = 0x7bffu;
    for (int64_t i = 0; i < g->nseg; i++)
        ref_softmax(g->values + g->off64[i], g->off64[i + 1] - g->off64[i], ref + g->off64[i]);
    cpu_arg args[3] = {values_arg(g, vdt), offsets_arg(g, odt), vdt == DT_F16 ? buf(out16, n) : buf(out, n)};
    diag d;
    double t0 = now();
    bool ok = launch(&s.k, g->nseg, args, 3, &d);
    double ms = 1e3 * (now() - t0);
    int64_t bad = -1;
    for (int64_t i = 0; ok && bad < 0 && i < n; i++) {
        bool inside = i >= g->off64[0] && i < g->off64[g->nseg];
        if (vdt == DT_F16) {
            uint16_t want = inside ? ir_f32_to_f16(ref[i]) : 0x7bffu;
            /* f32 -> f16 of the f32 result: the oracle rounds once from double */
            if (out16[i] != want && !(inside && fabsf(ir_f16_to_f32(out16[i]) - ref[i]) <= 1e-3f * fabsf(ref[i])))
                bad = i;
        } else if (memcmp(&out[i], &ref[i], sizeof(float)) != 0) {
            bad = i;
        }
    }
    CHECK(ok && bad < 0, "softmax (%s, %s values, %s offsets): %s (element %lld: %g, want %g)", what,
          ir_dtypes[vdt].name, ir_dtypes[odt].name, d.message ? d.message : "wrong result", (long long)bad,
          bad >= 0 ? (vdt == DT_F16 ? ir_f16_to_f32(out16[bad]) : out[bad]) : 0.0, bad >= 0 ? ref[bad] : 0.0);
    diag_clear(&d);
    if (!strcmp(what, "timed"))
        printf("softmax, %lld f32 elements in %lld segments: %.1f ms\n", (long long)n, (long long)g->nseg, ms);
    free(out), free(ref), free(out16);
    kb_end(&s.k);
}

static void test_softmax(void)
{
    for (int round = 0; round < 3; round++) {
        ragged g;
        ragged_make(&g, rand_range(1, 300), rand_length, rand_range(0, 4), rand_range(0, 4));
        check_softmax(&g, DT_F32, DT_I32, "random");
        check_softmax(&g, DT_F32, DT_I64, "random");
        check_softmax(&g, DT_F16, DT_I64, "random");
        ragged_free(&g);
    }
    /* The generic scalar.h path gives the same bits. */
    ragged g;
    ragged_make(&g, 100, rand_length, 0, 0);
    setenv("SWAGE_CPU_GENERIC", "1", 1);
    check_softmax(&g, DT_F32, DT_I32, "generic path");
    unsetenv("SWAGE_CPU_GENERIC");
    ragged_free(&g);
}

/* ---- segment lengths, zipped views, control flow ------------------------------------------------ */

/* mean[sid] = sum(a * b) / length over two views of one offsets buffer, and
 * len[sid] = the length, in the offsets' type. */
static void test_zipped_and_length(ir_dtype odt)
{
    kb k;
    kb_begin(&k, "zipped");
    ir_value a = param(&k, ir_type_ptr(DT_F32), "a_ptr");
    ir_value b = param(&k, ir_type_ptr(DT_F32), "b_ptr");
    ir_value offs = param(&k, ir_type_ptr(odt), "offsets_ptr");
    ir_value mean = param(&k, ir_type_ptr(DT_F32), "mean_ptr");
    ir_value lens = param(&k, ir_type_ptr(odt), "len_ptr");
    ir_value sid = segment_id(&k);
    ir_value va = segment(&k, a, offs, sid), vb = segment(&k, b, offs, sid);
    ir_value dot = reduce(&k, "sum", bin(&k, IR_MUL, load_segment(&k, va), load_segment(&k, vb)));
    ir_value len = segment_length(&k, vb, odt);
    store_at(&k, lens, sid, len);
    store_at(&k, mean, sid, bin(&k, IR_DIV, dot, cast(&k, len, DT_F32)));
    ret(&k);

    ragged g;
    ragged_make(&g, rand_range(1, 300), rand_length, 0, 0);
    float *bv = malloc(sizeof(float) * (size_t)(g.nvalues + 1)), *out = malloc(sizeof(float) * (size_t)g.nseg);
    int64_t *len64 = malloc(sizeof(int64_t) * (size_t)g.nseg);
    int32_t *len32 = malloc(sizeof(int32_t) * (size_t)g.nseg);
    for (int64_t i = 0; i < g.nvalues; i++)
        bv[i] = rand_value();
    cpu_arg args[5] = {buf(g.values, g.nvalues), buf(bv, g.nvalues), offsets_arg(&g, odt), buf(out, g.nseg),
                       odt == DT_I32 ? buf(len32, g.nseg) : buf(len64, g.nseg)};
    diag d;
    bool ok = launch(&k, g.nseg, args, 5, &d);
    int64_t bad = -1;
    for (int64_t s = 0; ok && bad < 0 && s < g.nseg; s++) {
        int64_t n = g.off64[s + 1] - g.off64[s];
        double acc = 0.0;
        for (int64_t i = g.off64[s]; i < g.off64[s + 1]; i++)
            acc += (double)(float)((double)g.values[i] * (double)bv[i]);
        float want = (float)((double)(float)acc / (double)(float)n);
        int64_t got_len = odt == DT_I32 ? len32[s] : len64[s];
        if (got_len != n || memcmp(&want, &out[s], sizeof want) != 0)
            bad = s;
    }
    CHECK(ok && bad < 0, "zipped views and segment_length (%s offsets): %s (segment %lld)",
          ir_dtypes[odt].name, d.message ? d.message : "wrong result", (long long)bad);
    diag_clear(&d);
    free(bv), free(out), free(len64), free(len32);
    ragged_free(&g);
    kb_end(&k);
}

/* Even segments store x * 2, odd ones x + 0.5 (a segment-shaped
 * sw.constant): through sw.select on a splatted condition (what the
 * verifier admits), or, with `branch`, through an sw.if yielding segment
 * values, which the verifier rejects but the executor still runs right. */
static void test_select_or_branch(bool branch)
{
    seg_kernel s;
    seg_begin(&s, branch ? "branchy" : "selecty", DT_F32, DT_I32, DT_F32);
    kb *k = &s.k;
    k->unverified = branch;
    ir_value odd = cmp(k, "ne", bin(k, IR_AND, s.sid, cst(k, ir_type_scalar(DT_I32), 1)),
                       cst(k, ir_type_scalar(DT_I32), 0));
    ir_value y;
    if (branch) {
        ir_type rt = ty(k, s.x);
        ir_op *ifop = emit(k, IR_IF, &odd, 1, &rt, 1, 2);
        k->stack[++k->depth] = ifop->regions[0];
        ir_value plus = bin(k, IR_ADD, s.x, cst(k, ir_type_segval(DT_F32), 0.5));
        emit(k, IR_YIELD, &plus, 1, NULL, 0, 0);
        k->stack[k->depth] = ifop->regions[1];
        ir_value twice = bin(k, IR_MUL, s.x, seg_splat(k, cst(k, ir_type_scalar(DT_F32), 2.0)));
        emit(k, IR_YIELD, &twice, 1, NULL, 0, 0);
        k->depth--;
        y = ifop->results[0];
    } else {
        ir_value plus = bin(k, IR_ADD, s.x, cst(k, ir_type_segval(DT_F32), 0.5));
        ir_value twice = bin(k, IR_MUL, s.x, seg_splat(k, cst(k, ir_type_scalar(DT_F32), 2.0)));
        ir_value ops[3] = {seg_splat(k, odd), plus, twice};
        ir_type rt = ty(k, s.x);
        y = emit(k, IR_SELECT, ops, 3, &rt, 1, 0)->results[0];
    }
    store_segment(k, s.out, s.view, y);
    ret(k);

    ragged g;
    ragged_make(&g, rand_range(1, 200), rand_length, 0, 0);
    float *out = calloc((size_t)g.nvalues + 1, sizeof(float));
    cpu_arg args[3] = {buf(g.values, g.nvalues), offsets_arg(&g, DT_I32), buf(out, g.nvalues)};
    diag d;
    bool ok = launch(k, g.nseg, args, 3, &d);
    int64_t bad = -1;
    for (int64_t sg = 0; ok && sg < g.nseg; sg++)
        for (int64_t i = g.off64[sg]; bad < 0 && i < g.off64[sg + 1]; i++)
            if (out[i] != (sg & 1 ? g.values[i] + 0.5f : g.values[i] * 2.0f))
                bad = i;
    CHECK(ok && bad < 0, "segment values through %s: %s (element %lld)", branch ? "sw.if" : "sw.select",
          d.message ? d.message : "wrong result", (long long)bad);
    diag_clear(&d);
    free(out);
    ragged_free(&g);
    kb_end(k);
}

/* ---- kernels from MLIR text ------------------------------------------------------------------- */

/* Two zipped views over i64 offsets: f16 data computed in f32, i8 data, a
 * segment-shaped constant, cmp/select, a per-segment scalar load and store,
 * the length, and an f16 store_segment (test/lit/segments/roundtrip.mlir). */
static const char zipped_mlir[] =
    "func.func @zipped(%a: !sw.ptr<f16>, %b: !sw.ptr<i8>, %offsets: !sw.ptr<i64>, %scale: !sw.ptr<f32>,\n"
    "                  %out: !sw.ptr<f16>, %means: !sw.ptr<f32>) {\n"
    "  %sid = \"sw.segment_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %sa = \"sw.segment\"(%a, %offsets, %sid) : (!sw.ptr<f16>, !sw.ptr<i64>, i32) -> !sw.segment<f16>\n"
    "  %sb = \"sw.segment\"(%b, %offsets, %sid) : (!sw.ptr<i8>, !sw.ptr<i64>, i32) -> !sw.segment<i8>\n"
    "  %n = \"sw.segment_length\"(%sa) : (!sw.segment<f16>) -> i64\n"
    "  %xa16 = \"sw.load_segment\"(%sa) : (!sw.segment<f16>) -> tensor<?xf16>\n"
    "  %xa = \"sw.cast\"(%xa16) : (tensor<?xf16>) -> tensor<?xf32>\n"
    "  %xb = \"sw.load_segment\"(%sb) : (!sw.segment<i8>) -> tensor<?xi8>\n"
    "  %zero = \"sw.constant\"() {value = 0 : i8} : () -> tensor<?xi8>\n"
    "  %pos = \"sw.cmp\"(%xb, %zero) {predicate = \"gt\"} : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi1>\n"
    "  %sp = \"sw.addptr\"(%scale, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>\n"
    "  %s = \"sw.load\"(%sp) : (!sw.ptr<f32>) -> f32\n"
    "  %ss = \"sw.splat\"(%s) : (f32) -> tensor<?xf32>\n"
    "  %y = \"sw.mul\"(%xa, %ss) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
    "  %z = \"sw.select\"(%pos, %y, %xa) : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
    "  %z16 = \"sw.cast\"(%z) : (tensor<?xf32>) -> tensor<?xf16>\n"
    "  \"sw.store_segment\"(%out, %sb, %z16) : (!sw.ptr<f16>, !sw.segment<i8>, tensor<?xf16>) -> ()\n"
    "  %t = \"sw.reduce\"(%z) {kind = \"sum\"} : (tensor<?xf32>) -> f32\n"
    "  %nf = \"sw.cast\"(%n) : (i64) -> f32\n"
    "  %mean = \"sw.div\"(%t, %nf) : (f32, f32) -> f32\n"
    "  %mp = \"sw.addptr\"(%means, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>\n"
    "  \"sw.store\"(%mp, %mean) : (!sw.ptr<f32>, f32) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static bool same_float(float a, float b) { return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a); }

static void test_from_text(void)
{
    arena ar;
    arena_init(&ar);
    diag d;
    diag_init(&d);
    source_file src = {"zipped.mlir", zipped_mlir, sizeof zipped_mlir - 1, 1};
    ir_module *m = ir_parse_module(&ar, &src, &d);
    bool valid = m && ir_verify(m, &d);
    CHECK(valid, "the zipped kernel parses and verifies: %s", d.message ? d.message : "");
    diag_clear(&d);
    if (!valid) {
        arena_free(&ar);
        return;
    }
    ragged g;
    ragged_make(&g, rand_range(1, 300), rand_length, rand_range(0, 3), rand_range(0, 3));
    int64_t n = g.nvalues;
    int8_t *bv = malloc((size_t)n + 1);
    uint16_t *out = malloc(sizeof(uint16_t) * (size_t)(n + 1));
    float *scale = malloc(sizeof(float) * (size_t)g.nseg), *means = malloc(sizeof(float) * (size_t)g.nseg);
    for (int64_t i = 0; i < n; i++)
        bv[i] = (int8_t)rand_range(-128, 127), out[i] = 0x1234;
    for (int64_t i = 0; i < g.nseg; i++)
        scale[i] = (float)rand_range(-40, 40) / 4.0f;
    cpu_arg args[6] = {buf(g.values16, n), buf(bv, n), buf(g.off64, g.nseg + 1), buf(scale, g.nseg), buf(out, n),
                       buf(means, g.nseg)};
    int64_t grid[3] = {g.nseg, 1, 1};
    bool ok = cpu_exec_launch(m, grid, args, 6, &d);
    int64_t bad = -1;
    for (int64_t sg = 0; ok && bad < 0 && sg < g.nseg; sg++) {
        double acc = 0.0;
        for (int64_t i = g.off64[sg]; bad < 0 && i < g.off64[sg + 1]; i++) {
            float z = bv[i] > 0 ? g.values[i] * scale[sg] : g.values[i];
            acc += z;
            if (out[i] != ir_f32_to_f16(z))
                bad = i;
        }
        float t = (float)acc, len = (float)(g.off64[sg + 1] - g.off64[sg]);
        if (!same_float(means[sg], (float)((double)t / (double)len)))
            bad = sg;
    }
    for (int64_t i = 0; ok && bad < 0 && i < n; i++)
        if ((i < g.off64[0] || i >= g.off64[g.nseg]) && out[i] != 0x1234)
            bad = i;
    CHECK(ok && bad < 0, "zipped kernel from MLIR text: %s (at %lld)", d.message ? d.message : "wrong result",
          (long long)bad);
    diag_clear(&d);
    free(bv), free(out), free(scale), free(means);
    ragged_free(&g);
    arena_free(&ar);
}

/* ---- empty launches ------------------------------------------------------------------------- */

static int64_t zero_length(void) { return 0; }
static int64_t one_length(void) { return 1; }

static void test_empty(void)
{
    /* Zero segments: nothing runs, nothing is read (offsets of one element). */
    seg_kernel s;
    build_softmax(&s, DT_F32, DT_I32);
    int32_t off0 = 0;
    float dummy = 7.0f;
    cpu_arg args[3] = {buf(&dummy, 0), buf(&off0, 1), buf(&dummy, 0)};
    diag d;
    bool ok = launch(&s.k, 0, args, 3, &d);
    CHECK(ok && dummy == 7.0f, "zero segments: %s", d.message ? d.message : "wrote something");
    diag_clear(&d);

    /* All segments empty: softmax stores nothing, sum gives 0, max -inf. */
    ragged g;
    ragged_make(&g, rand_range(1, 1000), zero_length, rand_range(0, 3), rand_range(0, 3));
    check_softmax(&g, DT_F32, DT_I64, "all empty");
    kb_end(&s.k);
    static const char *const kinds[] = {"sum", "max", "min", "prod"};
    static const float want[] = {0.0f, -INFINITY, INFINITY, 1.0f};
    for (int ki = 0; ki < 4; ki++) {
        build_reduce(&s, kinds[ki], DT_F32, DT_I32);
        float *out = malloc(sizeof(float) * (size_t)g.nseg);
        cpu_arg rargs[3] = {values_arg(&g, DT_F32), offsets_arg(&g, DT_I32), buf(out, g.nseg)};
        ok = launch(&s.k, g.nseg, rargs, 3, &d);
        bool right = ok;
        for (int64_t i = 0; right && i < g.nseg; i++)
            right = out[i] == want[ki] && !signbit(out[i]) == !signbit(want[ki]);
        CHECK(right, "all-empty segmented %s gives %g: %s", kinds[ki], want[ki], d.message ? d.message : "wrong");
        diag_clear(&d);
        free(out);
        kb_end(&s.k);
    }
    ragged_free(&g);
}

/* ---- errors ---------------------------------------------------------------------------------- */

/* Runs softmax over hand-made offsets into 900 values; returns the launch. */
static bool run_offsets(const int64_t *offs, int nseg, int64_t noffs, int64_t nout, ir_dtype odt,
                        float *out, diag *d)
{
    static float values[900];
    int32_t off32[64];
    for (int i = 0; i < noffs; i++)
        off32[i] = (int32_t)offs[i];
    for (int i = 0; i < 900; i++)
        values[i] = (float)(i % 7);
    seg_kernel s;
    build_softmax(&s, DT_F32, odt);
    cpu_arg args[3] = {buf(values, 900), odt == DT_I32 ? buf(off32, noffs) : buf((void *)offs, noffs),
                       buf(out, nout)};
    bool ok = launch(&s.k, nseg, args, 3, d);
    kb_end(&s.k);
    return ok;
}

static void test_errors(void)
{
    static float out[1000];
    diag d;
    for (int oi = 0; oi < 2; oi++) {
        ir_dtype odt = oi ? DT_I64 : DT_I32;
        int64_t decreasing[] = {0, 10, 20, 30, 40, 50, 60, 120, 100, 200};
        for (int i = 0; i < 1000; i++)
            out[i] = -1.0f;
        bool ok = run_offsets(decreasing, 9, 10, 900, odt, out, &d);
        CHECK(d.rendered && strstr(d.rendered, "softmax.py:23:15: error: segment 7 of 'offsets_ptr'") &&
                  strstr(d.rendered, "    segment = sl.segment(values_ptr, offsets_ptr, sid)\n                  ^"),
              "rendered with file:line:col and caret:\n%s", d.rendered ? d.rendered : "");
        EXPECT_ERROR(d, ok, DIAG_RUNTIME, "segment 7 of 'offsets_ptr' is [120, 100): offsets must not decrease");
        bool untouched = true;
        for (int i = 0; i < 1000; i++)
            untouched = untouched && out[i] == -1.0f;
        CHECK(untouched, "segments 0..6 stored, then the failed launch put everything back: out[119] = %g",
              out[119]);

        int64_t past[] = {0, 100, 500, 1000};
        ok = run_offsets(past, 3, 4, 1000, odt, out, &d);
        EXPECT_ERROR(d, ok, DIAG_RUNTIME, "segment 2 of 'offsets_ptr' ends at 1000 but 'values_ptr' has 900 elements");

        int64_t negative[] = {-3, 4, 8};
        ok = run_offsets(negative, 2, 3, 900, odt, out, &d);
        EXPECT_ERROR(d, ok, DIAG_RUNTIME, "segment 0 of 'offsets_ptr' starts at -3");

        /* offsets[sid + 1] past the offsets buffer: a grid one too large */
        int64_t short_offs[] = {0, 1, 2, 3, 4, 5, 6, 7};
        ok = run_offsets(short_offs, 8, 8, 900, odt, out, &d);
        EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.segment out of bounds: element 8 of argument 1 ('offsets_ptr', 8 "
                                          "elements) in segment 7");

        /* an output shorter than the values */
        int64_t fine[14];
        for (int i = 0; i < 14; i++)
            fine[i] = i * 69;
        ok = run_offsets(fine, 13, 14, 850, odt, out, &d);
        EXPECT_ERROR(d, ok, DIAG_RUNTIME, "sw.store_segment out of bounds: element 850 of argument 2 "
                                          "('output_ptr', 850 elements) in segment 12");
        /* ... but an empty segment past its end stores (and checks) nothing */
        int64_t tail_empty[] = {0, 10, 900, 900};
        ok = run_offsets(tail_empty, 3, 4, 900, odt, out, &d);
        CHECK(ok, "empty last segment: %s", d.message ? d.message : "");
        diag_clear(&d);
    }

    /* A segment program runs on (segments, 1, 1). */
    seg_kernel s;
    build_reduce(&s, "sum", DT_F32, DT_I32);
    float v[4] = {1, 2, 3, 4}, o[2];
    int32_t offs[3] = {0, 1, 4};
    cpu_arg args[3] = {buf(v, 4), buf(offs, 3), buf(o, 2)};
    int64_t grid[3] = {2, 2, 1};
    diag_init(&d);
    bool ok = cpu_exec_launch(s.k.m, grid, args, 3, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "kernel 'segmented_reduce' is a segment program: it runs on a grid "
                                       "of (segments, 1, 1), got (2, 2, 1)");
    kb_end(&s.k);

    /* A segment value before the program's segment is known is a broken
     * module: an internal error, not a crash. */
    kb k;
    kb_begin(&k, "early");
    k.unverified = true;
    ir_value out_p = param(&k, ir_type_ptr(DT_F32), "out_ptr");
    ir_value vals = param(&k, ir_type_ptr(DT_F32), "values_ptr");
    ir_value offp = param(&k, ir_type_ptr(DT_I32), "offsets_ptr");
    ir_value early = seg_splat(&k, cst(&k, ir_type_scalar(DT_F32), 1.0));
    ir_value view = segment(&k, vals, offp, segment_id(&k));
    store_segment(&k, out_p, view, early);
    ret(&k);
    cpu_arg eargs[3] = {buf(o, 2), buf(v, 4), buf(offs, 3)};
    ok = launch(&k, 2, eargs, 3, &d);
    CHECK(!ok && d.kind == DIAG_INTERNAL, "segment value before sw.segment: %s", d.message ? d.message : "(none)");
    diag_clear(&d);
    kb_end(&k);
}

/* ---- speed --------------------------------------------------------------------------------------- */

static int64_t length_0_128(void) { return rand_range(0, 128); }

static void test_speed(void)
{
    /* 2^22 elements in 2^16 segments */
    ragged g;
    ragged_make(&g, 1 << 16, length_0_128, 0, 0);
    seg_kernel s;
    build_reduce(&s, "sum", DT_F32, DT_I32);
    float *out = malloc(sizeof(float) * (size_t)g.nseg);
    cpu_arg args[3] = {values_arg(&g, DT_F32), offsets_arg(&g, DT_I32), buf(out, g.nseg)};
    diag d;
    double t0 = now();
    bool ok = launch(&s.k, g.nseg, args, 3, &d);
    double ms = 1e3 * (now() - t0);
    int64_t bad = -1;
    for (int64_t i = 0; ok && bad < 0 && i < g.nseg; i++)
        if (out[i] != ref_reduce("sum", g.values + g.off64[i], g.off64[i + 1] - g.off64[i]))
            bad = i;
    CHECK(ok && bad < 0, "timed segmented sum: %s (segment %lld)", d.message ? d.message : "wrong", (long long)bad);
    diag_clear(&d);
    printf("segmented sum, %lld f32 elements in %lld segments: %.1f ms\n", (long long)g.nvalues,
           (long long)g.nseg, ms);
    check_softmax(&g, DT_F32, DT_I32, "timed");
    free(out);
    ragged_free(&g);

    /* a million singleton segments */
    ragged_make(&g, 1 << 20, one_length, 0, 0);
    out = malloc(sizeof(float) * (size_t)g.nseg);
    cpu_arg sargs[3] = {values_arg(&g, DT_F32), offsets_arg(&g, DT_I32), buf(out, g.nseg)};
    t0 = now();
    ok = launch(&s.k, g.nseg, sargs, 3, &d);
    ms = 1e3 * (now() - t0);
    CHECK(ok && !memcmp(out, g.values, sizeof(float) * (size_t)g.nseg), "singleton sums: %s",
          d.message ? d.message : "wrong");
    diag_clear(&d);
    printf("segmented sum, 2^20 singleton segments: %.1f ms\n", ms);
    check_softmax(&g, DT_F32, DT_I32, "timed");
    free(out);
    ragged_free(&g);
    kb_end(&s.k);

    /* one long segment among short ones: the scratch grows mid-launch */
    int64_t lens[] = {3, 0, 1 << 20, 5, 0, 77};
    int64_t nseg = (int64_t)(sizeof lens / sizeof lens[0]);
    ragged_make(&g, nseg, zero_length, 0, 0);
    free(g.values), free(g.values16);
    for (int64_t i = 0; i < nseg; i++)
        g.off64[i + 1] = g.off64[i] + lens[i], g.off32[i + 1] = (int32_t)g.off64[i + 1];
    g.nvalues = g.off64[nseg];
    g.values = malloc(sizeof(float) * (size_t)g.nvalues);
    g.values16 = malloc(sizeof(uint16_t) * (size_t)g.nvalues);
    for (int64_t i = 0; i < g.nvalues; i++)
        g.values[i] = rand_value(), g.values16[i] = ir_f32_to_f16(g.values[i]);
    check_softmax(&g, DT_F32, DT_I64, "one outlier");
    ragged_free(&g);
}

int main(void)
{
    const char *env = getenv("SWAGE_TEST_SEED");
    seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL) ^ ((unsigned long long)clock() << 20);
    rng_state = seed ? seed : 1;
    test_float_reductions();
    test_int_reductions();
    test_softmax();
    test_zipped_and_length(DT_I32);
    test_zipped_and_length(DT_I64);
    test_select_or_branch(false);
    test_select_or_branch(true);
    test_from_text();
    test_empty();
    test_errors();
    test_speed();
    printf("%d passed, %d failed\n", passed, failed);
    if (failed)
        printf("rerun with SWAGE_TEST_SEED=%llu\n", seed);
    return failed ? 1 : 0;
}
