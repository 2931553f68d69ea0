/* test_lower_segments.c - unit tests of the schedules (src/plan/): segment
 * programs written as MLIR text run on the semantic executor (the oracle)
 * and, planned for every schedule (lower-segments[-<schedule>]), lowered by
 * lower-simt and linked, on the CPU SIMT executor with the launch's plan
 * (plan_run_cpu_simt: the same kernels, grids, scratch and hidden
 * parameters as a GPU launch); results must agree (exactly for integers,
 * within float rounding otherwise) on random ragged data with empty
 * segments, segments around every tile of the plan and long ones that
 * split. Offsets that the default check would reject (negative,
 * decreasing, past the end) must run without a single out-of-bounds access
 * and give the clamped segments, and the in-kernel check must flag them.
 * Requires libswage; prints "N passed, N failed" last and exits nonzero on
 * any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "backends/cpu/cpu_exec.h"
#include "ir/scalar.h"
#include "passes/lower_segments.h"
#include "passes/passes.h"
#include "plan/launch.h"
#include "plan/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if ((cond) ? (passed++, false) : (failed++, true))                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__), printf(__VA_ARGS__), printf("\n"); \
    } while (0)

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static double rand_unit(void) { return (double)(rng() >> 11) * 0x1p-53; }

static cpu_arg buf(void *data, int64_t n) { return (cpu_arg){.kind = CPU_ARG_BUFFER, .data = data, .nelems = n}; }

/* ---- kernels (the IR the frontend makes for docs/segments.md's examples) ------- */

#define HEAD(name, params) "func.func @" name "(" params ") {\n" \
    "  %sid = \"sw.segment_id\"() {axis = 0 : i32} : () -> i32\n"
#define VIEW(v, ptr, t, ot) "  %" v " = \"sw.segment\"(%" ptr ", %offsets, %sid) : (!sw.ptr<" t ">, !sw.ptr<" ot ">, i32) -> !sw.segment<" t ">\n"
#define LOAD(x, v, t) "  %" x " = \"sw.load_segment\"(%" v ") : (!sw.segment<" t ">) -> tensor<?x" t ">\n"
#define RED(r, kind, x, t) "  %" r " = \"sw.reduce\"(%" x ") {kind = \"" kind "\"} : (tensor<?x" t ">) -> " t "\n"
#define SPLAT(s, x, t) "  %" s " = \"sw.splat\"(%" x ") : (" t ") -> tensor<?x" t ">\n"
#define BIN(r, op, a, b) "  %" r " = \"sw." op "\"(%" a ", %" b ") : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
#define UN(r, op, a) "  %" r " = \"sw." op "\"(%" a ") : (tensor<?xf32>) -> tensor<?xf32>\n"
#define STORE_SCALAR(ptr, x, t) "  %p_" x " = \"sw.addptr\"(%" ptr ", %sid) : (!sw.ptr<" t ">, i32) -> !sw.ptr<" t ">\n" \
    "  \"sw.store\"(%p_" x ", %" x ") : (!sw.ptr<" t ">, " t ") -> ()\n"
#define STORE_SEG(ptr, v, x, t) "  \"sw.store_segment\"(%" ptr ", %" v ", %" x ") : (!sw.ptr<" t ">, !sw.segment<f32>, tensor<?x" t ">) -> ()\n"
#define TAIL "  \"func.return\"() : () -> ()\n}\n"

#define REDUCE_KERNEL(name, kind, t, ot) \
    HEAD(name, "%values: !sw.ptr<" t ">, %offsets: !sw.ptr<" ot ">, %out: !sw.ptr<" t ">") \
    VIEW("seg", "values", t, ot) LOAD("x", "seg", t) RED("r", kind, "x", t) STORE_SCALAR("out", "r", t) TAIL

static const char sum_f32[] = REDUCE_KERNEL("sum", "sum", "f32", "i64");
static const char max_f32[] = REDUCE_KERNEL("max", "max", "f32", "i32");
static const char min_f32[] = REDUCE_KERNEL("min", "min", "f32", "i64");
static const char prod_f32[] = REDUCE_KERNEL("prod", "prod", "f32", "i32");
static const char sum_i32[] = REDUCE_KERNEL("sum_i32", "sum", "i32", "i32");
static const char max_i32[] = REDUCE_KERNEL("max_i32", "max", "i32", "i64");
static const char sum_i8[] = REDUCE_KERNEL("sum_i8", "sum", "i8", "i64");

static const char mean_f32[] =
    HEAD("mean", "%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>")
    VIEW("seg", "values", "f32", "i64") LOAD("x", "seg", "f32") RED("t", "sum", "x", "f32")
    "  %n = \"sw.segment_length\"(%seg) : (!sw.segment<f32>) -> i64\n"
    "  %nf = \"sw.cast\"(%n) : (i64) -> f32\n"
    "  %mean = \"sw.div\"(%t, %nf) : (f32, f32) -> f32\n"
    STORE_SCALAR("out", "mean", "f32") TAIL;

static const char softmax_f32[] =
    HEAD("softmax", "%values: !sw.ptr<f32>, %offsets: !sw.ptr<i32>, %out: !sw.ptr<f32>")
    VIEW("seg", "values", "f32", "i32") LOAD("x", "seg", "f32") RED("m", "max", "x", "f32")
    SPLAT("ms", "m", "f32") BIN("d", "sub", "x", "ms") UN("e", "exp", "d")
    RED("s", "sum", "e", "f32") SPLAT("ss", "s", "f32") BIN("q", "div", "e", "ss")
    STORE_SEG("out", "seg", "q", "f32") TAIL;

static const char log_softmax_f32[] =
    HEAD("log_softmax", "%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>")
    VIEW("seg", "values", "f32", "i64") LOAD("x", "seg", "f32") RED("m", "max", "x", "f32")
    SPLAT("ms", "m", "f32") BIN("d", "sub", "x", "ms") UN("e", "exp", "d")
    RED("s", "sum", "e", "f32")
    "  %l = \"sw.log\"(%s) : (f32) -> f32\n"
    SPLAT("ls", "l", "f32") BIN("q", "sub", "d", "ls")
    STORE_SEG("out", "seg", "q", "f32") TAIL;

static const char l2_normalise_f32[] =
    HEAD("l2", "%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>")
    VIEW("seg", "values", "f32", "i64") LOAD("x", "seg", "f32") BIN("xx", "mul", "x", "x")
    RED("s", "sum", "xx", "f32")
    "  %norm = \"sw.sqrt\"(%s) : (f32) -> f32\n"
    "  %eps = \"sw.constant\"() {value = 1.0e-12 : f32} : () -> f32\n"
    "  %den = \"sw.maximum\"(%norm, %eps) : (f32, f32) -> f32\n"
    SPLAT("dens", "den", "f32") BIN("q", "div", "x", "dens")
    STORE_SEG("out", "seg", "q", "f32") TAIL;

/* Two views zipped on one offsets, a per-segment scalar load, a scalar store. */
static const char weighted_sum_f32[] =
    HEAD("weighted", "%values: !sw.ptr<f32>, %weights: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, "
                     "%scale: !sw.ptr<f32>, %out: !sw.ptr<f32>")
    VIEW("sv", "values", "f32", "i64") VIEW("sw", "weights", "f32", "i64")
    LOAD("x", "sv", "f32") LOAD("w", "sw", "f32") BIN("xw", "mul", "x", "w")
    RED("t", "sum", "xw", "f32")
    "  %sp = \"sw.addptr\"(%scale, %sid) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>\n"
    "  %s = \"sw.load\"(%sp) : (!sw.ptr<f32>) -> f32\n"
    "  %ts = \"sw.mul\"(%t, %s) : (f32, f32) -> f32\n"
    STORE_SCALAR("out", "ts", "f32") TAIL;

/* f16 data computed in f32: softmax with casts after the load and before the store. */
static const char softmax_f16[] =
    HEAD("softmax16", "%values: !sw.ptr<f16>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f16>")
    VIEW("seg", "values", "f16", "i64") LOAD("x16", "seg", "f16")
    "  %x = \"sw.cast\"(%x16) : (tensor<?xf16>) -> tensor<?xf32>\n"
    RED("m", "max", "x", "f32") SPLAT("ms", "m", "f32") BIN("d", "sub", "x", "ms") UN("e", "exp", "d")
    RED("s", "sum", "e", "f32") SPLAT("ss", "s", "f32") BIN("q", "div", "e", "ss")
    "  %q16 = \"sw.cast\"(%q) : (tensor<?xf32>) -> tensor<?xf16>\n"
    "  \"sw.store_segment\"(%out, %seg, %q16) : (!sw.ptr<f16>, !sw.segment<f16>, tensor<?xf16>) -> ()\n"
    TAIL;

/* The same in bfloat16, over i32 offsets. */
static const char softmax_bf16[] =
    HEAD("softmax_bf16", "%values: !sw.ptr<bf16>, %offsets: !sw.ptr<i32>, %out: !sw.ptr<bf16>")
    VIEW("seg", "values", "bf16", "i32") LOAD("x16", "seg", "bf16")
    "  %x = \"sw.cast\"(%x16) : (tensor<?xbf16>) -> tensor<?xf32>\n"
    RED("m", "max", "x", "f32") SPLAT("ms", "m", "f32") BIN("d", "sub", "x", "ms") UN("e", "exp", "d")
    RED("s", "sum", "e", "f32") SPLAT("ss", "s", "f32") BIN("q", "div", "e", "ss")
    "  %q16 = \"sw.cast\"(%q) : (tensor<?xf32>) -> tensor<?xbf16>\n"
    "  \"sw.store_segment\"(%out, %seg, %q16) : (!sw.ptr<bf16>, !sw.segment<bf16>, tensor<?xbf16>) -> ()\n"
    TAIL;

/* ---- running ------------------------------------------------------------------------ */

/* EXEC_ORACLE, or a schedule (plan_schedule + 1). */
typedef int executor;
enum { EXEC_ORACLE = 0 };
#define EXEC_SCHEDULE(s) ((s) + 1)

static bool last_flagged; /* the offsets check of the last scheduled run */

/* Runs `text` on the oracle, or planned for a schedule, lowered and linked
 * on the SIMT executor (plan_run_cpu_simt, with the offsets check).
 * Returns false with d set when the launch failed; parse/verify/lowering
 * failures are test failures. */
static bool run(const char *text, executor ex, int64_t segments, const cpu_arg *args, int nargs,
                diag *d)
{
    arena ar;
    arena_init(&ar);
    source_file src = {"segments.mlir", text, strlen(text), 1};
    diag pd;
    diag_init(&pd);
    ir_module *m = ir_parse_module(&ar, &src, &pd);
    bool ok = false;
    int64_t grid[3] = {segments, 1, 1};
    static const char *const cleanup[] = {"fold", "cse", "fold", "dce"};
    if (!m || !ir_verify(m, &pd)) {
        CHECK(false, "kernel does not parse or verify: %s", pd.rendered ? pd.rendered : "?");
        diag_error(d, DIAG_COMPILE, "bad test kernel");
    } else if (ex == EXEC_ORACLE) {
        ok = cpu_exec_launch(m, grid, args, nargs, d);
    } else {
        segment_params sp;
        plan_info info;
        int nruntime = ir_func_body(ir_module_func(m))->nargs;
        bool lowered = segments_params(m, ir_module_func(m), &sp, &pd) &&
                       plan_build(m, (plan_schedule)(ex - 1), &pd) &&
                       pass_run_pipeline(m, cleanup, 4, NULL, &pd) && pass_lower_simt(m, &pd) &&
                       plan_link(m, &pd) && pass_run_default(m, NULL, &pd) &&
                       plan_info_read(m, (plan_schedule)(ex - 1), nruntime, &info, &pd);
        if (!lowered) {
            CHECK(false, "lowering failed: %s", pd.rendered ? pd.rendered : pd.message ? pd.message : "?");
            diag_error(d, DIAG_COMPILE, "lowering failed");
        } else {
            int64_t numel[16];
            for (int h = 0; h < sp.nhidden; h++)
                numel[h] = args[sp.hidden_source[h]].nelems;
            ok = plan_run_cpu_simt(m, &info, args, numel, sp.nhidden, segments, true, &last_flagged, d);
        }
    }
    diag_clear(&pd);
    arena_free(&ar);
    return ok;
}

/* Random segment lengths: empty, singletons, short, around one tile, long. */
static int64_t random_length(void)
{
    switch (rng() % 8) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 1 + (int64_t)(rng() % 32);
    case 3: return 1023 + (int64_t)(rng() % 3);
    case 4: return 2048 + (int64_t)(rng() % 2000);
    case 5: return rng() % 4 ? (int64_t)(rng() % 300) : 9000 + (int64_t)(rng() % 30000);
    default: return (int64_t)(rng() % 300);
    }
}

typedef struct ragged {
    int64_t segments, total;
    int64_t *offsets64;
    int32_t *offsets32;
} ragged;

static ragged make_ragged(int64_t segments)
{
    ragged r = {.segments = segments};
    r.offsets64 = calloc((size_t)segments + 1, sizeof(int64_t));
    r.offsets32 = calloc((size_t)segments + 1, sizeof(int32_t));
    for (int64_t s = 0; s < segments; s++)
        r.offsets64[s + 1] = r.offsets64[s] + random_length();
    for (int64_t s = 0; s <= segments; s++)
        r.offsets32[s] = (int32_t)r.offsets64[s];
    r.total = r.offsets64[segments];
    return r;
}

static void free_ragged(ragged *r)
{
    free(r->offsets64);
    free(r->offsets32);
}

static cpu_arg offsets_arg(ragged *r, bool wide)
{
    return wide ? buf(r->offsets64, r->segments + 1) : buf(r->offsets32, r->segments + 1);
}

/* Float32 accumulation over n values differs from the oracle's (double)
 * by rounding that grows like a random walk: 2^-22 sqrt(n), at least 1e-5. */
static bool close_enough(double want, double got, double scale, int64_t n)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got))
        return want == got;
    double rtol = fmax(1e-5, 0x1p-22 * sqrt((double)n));
    return fabs(want - got) <= rtol * (scale + fabs(want)) + 1e-30;
}

/* ---- one f32 (or f16) kernel: oracle vs schedule ------------------------------------- */

typedef struct f32_case {
    const char *name, *text;
    bool wide;         /* i64 offsets */
    bool per_segment;  /* output has one element per segment, else per value */
    bool two_inputs;   /* values, weights, offsets, scale, out */
    ir_dtype storage;  /* DT_F32, DT_F16 or DT_BF16 buffers */
    bool near_one;     /* values near 1 (products) */
} f32_case;

static void fill_f32(float *x, int64_t n, bool near_one)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = near_one ? (float)(0.999 + 0.002 * rand_unit()) : (float)(rand_unit() * 8.0 - 4.0);
}

static void test_f32_case(const f32_case *c, int64_t segments)
{
    ragged r = make_ragged(segments);
    int64_t nout = c->per_segment ? segments : r.total;
    bool half = c->storage != DT_F32;
    size_t esize = half ? 2 : 4;
    float *values = calloc((size_t)r.total + 1, 4), *weights = calloc((size_t)r.total + 1, 4);
    float *scale = calloc((size_t)segments + 1, 4);
    fill_f32(values, r.total, c->near_one);
    fill_f32(weights, r.total, false);
    fill_f32(scale, segments, false);
    void *in = values;
    uint16_t *narrow = NULL;
    if (half) {
        narrow = calloc((size_t)r.total + 1, 2);
        for (int64_t i = 0; i < r.total; i++)
            narrow[i] = c->storage == DT_F16 ? ir_f32_to_f16(values[i]) : ir_f32_to_bf16(values[i]);
        in = narrow;
    }
    enum { RUNS = 1 + PLAN_SCHEDULES };
    void *out[RUNS];
    for (int k = 0; k < RUNS; k++) {
        out[k] = calloc((size_t)nout + 1, esize);
        memset(out[k], 0x7f, (size_t)nout * esize); /* untouched elements stay recognisable */
    }
    for (int k = 0; k < RUNS; k++) {
        cpu_arg args[5];
        int nargs;
        if (c->two_inputs) {
            args[0] = buf(values, r.total), args[1] = buf(weights, r.total);
            args[2] = offsets_arg(&r, c->wide), args[3] = buf(scale, segments);
            args[4] = buf(out[k], nout), nargs = 5;
        } else {
            args[0] = buf(in, r.total), args[1] = offsets_arg(&r, c->wide);
            args[2] = buf(out[k], nout), nargs = 3;
        }
        diag d;
        diag_init(&d);
        bool ok = run(c->text, k, segments, args, nargs, &d);
        CHECK(ok, "%s (%s, %lld segments): %s", c->name, k ? plan_schedule_names[k - 1] : "oracle",
              (long long)segments, d.message ? d.message : "?");
        CHECK(!k || !last_flagged, "%s (%s): valid offsets flagged", c->name, k ? plan_schedule_names[k - 1] : "");
        diag_clear(&d);
    }
    for (int k = 1; k < RUNS; k++) {
        int bad = 0;
        for (int64_t i = 0; i < nout && bad < 3; i++) {
            double want, got;
            if (half) {
                float (*widen)(uint16_t) = c->storage == DT_F16 ? ir_f16_to_f32 : ir_bf16_to_f32;
                want = widen(((uint16_t *)out[0])[i]);
                got = widen(((uint16_t *)out[k])[i]);
            } else {
                want = ((float *)out[0])[i];
                got = ((float *)out[k])[i];
            }
            /* 16-bit outputs may differ by one ulp of their format after rounding;
             * a weighted sum's terms reach 16, and cancel */
            double ulp = c->storage == DT_F16 ? 0x1p-10 : 0x1p-7;
            bool ok = half ? fabs(want - got) <= ulp * fabs(want) + 1e-7 : close_enough(want, got, c->two_inputs ? 16.0 : 1.0, r.total);
            if (!ok) {
                bad++;
                CHECK(false, "%s, %s: element %lld: oracle %.9g, schedule %.9g", c->name,
                      plan_schedule_names[k - 1], (long long)i, want, got);
            }
        }
        CHECK(!bad, "%s, %s agrees on %lld segments (%lld values)", c->name, plan_schedule_names[k - 1],
              (long long)segments, (long long)r.total);
    }
    for (int k = 0; k < RUNS; k++)
        free(out[k]);
    free(values), free(weights), free(scale), free(narrow);
    free_ragged(&r);
}

static void test_f32_kernels(void)
{
    static const f32_case cases[] = {
        {"sum", sum_f32, true, true, false, DT_F32, false},
        {"max", max_f32, false, true, false, DT_F32, false},
        {"min", min_f32, true, true, false, DT_F32, false},
        {"prod", prod_f32, false, true, false, DT_F32, true},
        {"mean", mean_f32, true, true, false, DT_F32, false},
        {"softmax", softmax_f32, false, false, false, DT_F32, false},
        {"log_softmax", log_softmax_f32, true, false, false, DT_F32, false},
        {"l2_normalise", l2_normalise_f32, true, false, false, DT_F32, false},
        {"weighted_sum", weighted_sum_f32, true, true, true, DT_F32, false},
        {"softmax_f16", softmax_f16, true, false, false, DT_F16, false},
        {"softmax_bf16", softmax_bf16, false, false, false, DT_BF16, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_f32_case(&cases[i], 1 + (int64_t)(rng() % 24));
        test_f32_case(&cases[i], 40);
    }
}

/* ---- integer kernels: exact agreement ---------------------------------------------------- */

static void test_int_kernel(const char *name, const char *text, ir_dtype dt, bool wide)
{
    ragged r = make_ragged(30);
    int bytes = ir_dtypes[dt].bytes;
    unsigned char *values = calloc((size_t)r.total + 1, (size_t)bytes);
    for (int64_t i = 0; i < r.total; i++) {
        ir_scalar v = ir_scalar_from_int(dt, (int64_t)(rng() % 2001) - 1000);
        ir_scalar_store(dt, values + i * bytes, v);
    }
    enum { RUNS = 1 + PLAN_SCHEDULES };
    unsigned char *out[RUNS];
    for (int k = 0; k < RUNS; k++) {
        out[k] = calloc((size_t)r.segments + 1, (size_t)bytes);
        cpu_arg args[3] = {buf(values, r.total), offsets_arg(&r, wide), buf(out[k], r.segments)};
        diag d;
        diag_init(&d);
        CHECK(run(text, k, r.segments, args, 3, &d), "%s (%s): %s", name,
              k ? plan_schedule_names[k - 1] : "oracle", d.message ? d.message : "?");
        diag_clear(&d);
    }
    for (int k = 1; k < RUNS; k++)
        CHECK(!memcmp(out[0], out[k], (size_t)(r.segments * bytes)), "%s: oracle and %s differ", name,
              plan_schedule_names[k - 1]);
    for (int k = 0; k < RUNS; k++)
        free(out[k]);
    free(values);
    free_ragged(&r);
}

/* ---- identities of empty segments ---------------------------------------------------------- */

static void test_empty_segments_with(executor ex)
{
    const char *what = plan_schedule_names[ex - 1];
    int64_t offsets[4] = {0, 0, 0, 0};
    float values[1] = {0}, out[3];
    struct { const char *text; float want; } cases[] = {
        {sum_f32, 0.0f}, {min_f32, INFINITY}, {prod_f32, 1.0f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cpu_arg args[3] = {buf(values, 0), buf(offsets, 4), buf(out, 3)};
        diag d;
        diag_init(&d);
        CHECK(run(cases[i].text, ex, 3, args, 3, &d), "%s: %s", what, d.message ? d.message : "?");
        diag_clear(&d);
        for (int s = 0; s < 3; s++)
            CHECK(out[s] == cases[i].want, "%s: case %zu segment %d: %g, want %g", what, i, s, out[s],
                  cases[i].want);
    }
    int32_t offsets32[3] = {0, 0, 0};
    cpu_arg args[3] = {buf(values, 0), buf(offsets32, 3), buf(out, 2)};
    diag d;
    diag_init(&d);
    CHECK(run(max_f32, ex, 2, args, 3, &d), "%s: %s", what, d.message ? d.message : "?");
    diag_clear(&d);
    CHECK(out[0] == -INFINITY && out[1] == -INFINITY, "%s: max of nothing: %g %g", what, out[0], out[1]);
    /* Softmax of empty segments stores nothing. */
    float sentinel[1] = {42.0f};
    cpu_arg sargs[3] = {buf(values, 0), buf(offsets32, 3), buf(sentinel, 0)};
    CHECK(run(softmax_f32, ex, 2, sargs, 3, &d), "%s: %s", what, d.message ? d.message : "?");
    diag_clear(&d);
    CHECK(sentinel[0] == 42.0f, "%s: softmax of empty segments wrote", what);
}

static void test_empty_segments(void)
{
    for (int s = 0; s < PLAN_SCHEDULES; s++)
        test_empty_segments_with(EXEC_SCHEDULE(s));
}

/* ---- bad offsets: clamped, never out of bounds ---------------------------------------------- */

static void test_clamping_with(executor ex)
{
    const char *what = plan_schedule_names[ex - 1];
    enum { N = 3000 };
    float *values = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        values[i] = (float)(i % 7) - 3.0f;
    /* negative start, decreasing pair, past the end, huge, normal: more
     * clamped elements than the buffer holds, so the lists (sized for valid
     * offsets) overflow and the direct kernel streams what does not fit */
    int64_t offsets[] = {-5, 100, 40, 2999, 5000, INT64_MAX / 2, 10, 2100, 0, 2990};
    int64_t segments = (int64_t)(sizeof offsets / sizeof offsets[0]) - 1;
    float out[16];
    cpu_arg args[3] = {buf(values, N), buf(offsets, segments + 1), buf(out, segments)};
    diag d;
    diag_init(&d);
    CHECK(run(sum_f32, ex, segments, args, 3, &d), "%s: unsafe sum: %s", what, d.message ? d.message : "?");
    diag_clear(&d);
    CHECK(last_flagged, "%s: the offsets check did not flag bad offsets", what);
    for (int64_t s = 0; s < segments; s++) {
        int64_t start = offsets[s] < 0 ? 0 : offsets[s];
        start = start > N ? N : start;
        int64_t end = offsets[s + 1] < start ? start : offsets[s + 1];
        end = end > N ? N : end;
        double want = 0;
        for (int64_t i = start; i < end; i++)
            want += values[i];
        CHECK(fabs(out[s] - want) < 1e-3, "%s: clamped segment %lld: %g, want %g", what, (long long)s,
              out[s], want);
    }
    /* A store target shorter than the values: both clamp to the shorter. */
    float small_out[50];
    for (int i = 0; i < 50; i++)
        small_out[i] = -1.0f;
    int32_t offs2[3] = {0, 40, 3000}; /* softmax_f32 takes i32 offsets */
    cpu_arg sargs[3] = {buf(values, N), buf(offs2, 3), buf(small_out, 50)};
    CHECK(run(softmax_f32, ex, 2, sargs, 3, &d), "%s: unsafe softmax: %s", what, d.message ? d.message : "?");
    diag_clear(&d);
    CHECK(small_out[0] >= 0.0f && small_out[49] >= 0.0f, "%s: short target: %g %g", what, small_out[0],
          small_out[49]);
    CHECK(last_flagged, "%s: a segment past the shortest buffer was not flagged", what);
    free(values);
}

static void test_clamping(void)
{
    for (int s = 0; s < PLAN_SCHEDULES; s++)
        test_clamping_with(EXEC_SCHEDULE(s));
}

/* ---- launch facts and errors ------------------------------------------------------------------ */

static void test_params(void)
{
    arena ar;
    arena_init(&ar);
    source_file src = {"w.mlir", weighted_sum_f32, strlen(weighted_sum_f32), 1};
    diag d;
    diag_init(&d);
    ir_module *m = ir_parse_module(&ar, &src, &d);
    segment_params sp;
    CHECK(m && segments_params(m, ir_module_func(m), &sp, &d), "params: %s", d.message ? d.message : "?");
    if (m) {
        CHECK(sp.is_segment_program && sp.offsets == 2 && sp.nhidden == 2 && sp.hidden_source[0] == 0 &&
                  sp.hidden_source[1] == 1,
              "weighted sum: offsets %d, %d hidden", sp.offsets, sp.nhidden);
    }
    diag_clear(&d);
    arena_free(&ar);

    static const char bad[] =
        "func.func @bad(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>) {\n"
        "  %sid = \"sw.segment_id\"() {axis = 0 : i32} : () -> i32\n"
        "  %one = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
        "  %shifted = \"sw.addptr\"(%values, %one) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>\n"
        "  %seg = \"sw.segment\"(%shifted, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>\n"
        "  %x = \"sw.load_segment\"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>\n"
        "  %r = \"sw.reduce\"(%x) {kind = \"sum\"} : (tensor<?xf32>) -> f32\n"
        "  \"func.return\"() : () -> ()\n}\n";
    arena_init(&ar);
    source_file bsrc = {"bad.mlir", bad, strlen(bad), 1};
    m = ir_parse_module(&ar, &bsrc, &d);
    CHECK(m && ir_verify(m, &d), "bad kernel parses: %s", d.message ? d.message : "?");
    if (m) {
        bool ok = pass_lower_segments(m, &d);
        CHECK(!ok && d.kind == DIAG_COMPILE && d.message &&
                  strstr(d.message, "values pointer of 'sw.segment' must be a kernel parameter"),
              "pointer arithmetic on a view: %s", d.message ? d.message : "(none)");
    }
    diag_clear(&d);
    arena_free(&ar);
}

/* ---- list capacities: valid offsets never overflow a list ------------------------------ */

/* For every schedule and random valid offsets that start anywhere (spans
 * of len + up to 3), the host classification (the kernels' own rules)
 * puts no more segments in a list than the launch made room for: lists
 * overflow only with bad offsets. */
static void test_list_capacities(void)
{
    arena ar;
    arena_init(&ar);
    source_file src = {"sum.mlir", sum_f32, strlen(sum_f32), 1};
    diag d;
    diag_init(&d);
    static const char *const cleanup[] = {"fold", "cse", "fold", "dce"};
    for (int sched = 0; sched < PLAN_SCHEDULES; sched++) {
        ir_module *m = ir_parse_module(&ar, &src, &d);
        plan_info info;
        bool ok = m && plan_build(m, (plan_schedule)sched, &d) && pass_run_pipeline(m, cleanup, 4, NULL, &d) &&
                  pass_lower_simt(m, &d) && plan_link(m, &d) &&
                  plan_info_read(m, (plan_schedule)sched, 3, &info, &d);
        CHECK(ok, "%s: %s", plan_schedule_names[sched], d.message ? d.message : "?");
        diag_clear(&d);
        if (!ok)
            continue;
        /* one length for all, just under each tile, misaligned (the densest
         * lists: every span is the length + 3), then random mixes */
        int64_t fixed[3 * PLAN_MAX_SHAPES + 20];
        int nfixed = 0;
        for (int c = 0; c < info.nshapes; c++)
            for (int64_t delta = 0; delta < 3; delta++)
                fixed[nfixed++] = info.list_tile[c] - delta;
        for (int i = 0; i < 20; i++)
            fixed[nfixed++] = 0; /* random lengths */
        for (int trial = 0; trial < nfixed; trial++) {
            int64_t segments = fixed[trial] > 1024 ? 64 : 1 + (int64_t)(rng() % 3000);
            int64_t pad = fixed[trial] ? 3 : (int64_t)(rng() % 4);
            int64_t *offsets = malloc(sizeof(int64_t) * (size_t)(segments + 1));
            offsets[0] = pad;
            for (int64_t s = 0; s < segments; s++)
                offsets[s + 1] = offsets[s] + (fixed[trial] ? fixed[trial] : random_length());
            int64_t numel = offsets[segments] + (int64_t)(rng() % 5);
            plan_sizes sz;
            plan_cpu_sizes(&info, segments, &numel, 1, &sz);
            plan_runtime rt;
            plan_runtime_compute(&info, &sz, &rt);
            int64_t count[PLAN_MAX_LISTS] = {0};
            for (int64_t s = 0; s < segments; s++) {
                int64_t span = offsets[s + 1] - (offsets[s] & ~(int64_t)3);
                plan_placement p = plan_place(&info, &rt, offsets[s + 1] - offsets[s], span);
                if (p.list >= 0)
                    count[p.list]++;
            }
            for (int c = 0; c < info.nlists; c++)
                CHECK(count[c] <= rt.caps[c], "%s: list %d holds %lld segments but has room for %lld "
                      "(%lld segments, pad %lld)", plan_schedule_names[sched], c, (long long)count[c],
                      (long long)rt.caps[c], (long long)segments, (long long)pad);
            free(offsets);
        }
    }
    arena_free(&ar);
}

/* ---- a one-stage program's split stage runs in the lists kernel ------------------------ */

/* `text` planned for `schedule`, lowered, linked and read back into *info
 * (the module in `ar`); NULL when that failed (a test failure). */
static ir_module *planned(arena *ar, const char *text, plan_schedule schedule, plan_info *info)
{
    source_file src = {"plan.mlir", text, strlen(text), 1};
    diag d;
    diag_init(&d);
    static const char *const cleanup[] = {"fold", "cse", "fold", "dce"};
    ir_module *m = ir_parse_module(ar, &src, &d);
    int nruntime = m ? ir_func_body(ir_module_func(m))->nargs : 0;
    bool ok = m && plan_build(m, schedule, &d) && pass_run_pipeline(m, cleanup, 4, NULL, &d) &&
              pass_lower_simt(m, &d) && plan_link(m, &d) && pass_run_default(m, NULL, &d) &&
              plan_info_read(m, schedule, nruntime, info, &d);
    CHECK(ok, "%s: %s", plan_schedule_names[schedule], d.message ? d.message : "?");
    diag_clear(&d);
    return ok ? m : NULL;
}

static int count_kind(const plan_info *info, plan_kernel_kind kind)
{
    int n = 0;
    for (int k = 0; k < info->nkernels; k++)
        n += info->kernels[k].kind == kind;
    return n;
}

/* Runs the plan of m for sizes with `sms` multiprocessors of `ctas` CTAs
 * each for every kernel (plan_run_cpu_simt's machine is fixed), as
 * plan_run_cpu_simt does; the launches' grids in *rt. */
static bool run_on_machine(const ir_module *m, const plan_info *info, int sms, int ctas, const cpu_arg *args,
                           const int64_t *numel, int nnumel, int64_t segments, plan_runtime *rt, diag *d)
{
    plan_sizes sz;
    plan_cpu_sizes(info, segments, numel, nnumel, &sz);
    sz.multiprocessors = sms;
    for (int k = 0; k < info->nkernels; k++)
        sz.ctas_per_sm[k] = ctas;
    plan_runtime_compute(info, &sz, rt);
    int nargs = info->nruntime + info->nhidden;
    unsigned char *scratch = calloc(rt->scratch_bytes + 16, 1);
    cpu_arg *all = calloc((size_t)nargs + 1, sizeof *all);
    memcpy(all, args, sizeof *all * (size_t)info->nruntime);
    for (int h = 0; h < info->nhidden; h++) {
        plan_value v = plan_hidden_value(info, rt, h, numel, segments, true);
        all[info->nruntime + h] = v.is_pointer
            ? (cpu_arg){.kind = CPU_ARG_BUFFER, .data = scratch + v.offset, .nelems = v.nelems, .scratch = true}
            : (cpu_arg){.kind = CPU_ARG_INT, .i = v.value};
    }
    cpu_journal *journal = cpu_journal_new();
    bool ok = true;
    for (int i = 0; ok && i < rt->nlaunches; i++) {
        int64_t grid[3] = {rt->launches[i].grid, 1, 1};
        ok = cpu_simt_launch_with(m, info->kernels[rt->launches[i].kernel].func, grid, all, nargs, journal, d);
    }
    cpu_journal_free(journal);
    free(scratch);
    free(all);
    return ok;
}

/* Auto and persistent link a one-stage program's split stage into the
 * lists kernel (sw.split_stage, the split list in sw.lists): no split
 * kernel of its own, one launch after the direct one whenever a segment
 * may need the lists or the split, its grid and the chunks from the
 * linked kernel's resident CTAs; the merges are right whatever that grid.
 * A program of several stages and schedule split keep their split
 * kernels. */
static void test_linked_split(void)
{
    arena ar;
    arena_init(&ar);
    plan_schedule linking[2] = {PLAN_AUTO, PLAN_PERSISTENT};
    for (int i = 0; i < 2; i++) {
        const char *what = plan_schedule_names[linking[i]];
        plan_info info;
        ir_module *m = planned(&ar, sum_i32, linking[i], &info);
        if (!m)
            continue;
        int split = plan_split_kernel(&info);
        CHECK(count_kind(&info, PLAN_KERNEL_SPLIT) == 0 && count_kind(&info, PLAN_KERNEL_LISTS) == 1,
              "%s: a one-stage program has one lists kernel and no split kernel", what);
        CHECK(split >= 0 && info.kernels[split].kind == PLAN_KERNEL_LISTS && info.kernels[split].split &&
                  info.kernels[split].stage == 0 && (info.kernels[split].lists >> (info.nlists - 1)) & 1u,
              "%s: the lists kernel runs the split list", what);
        if (split < 0)
            continue;
        /* sizes: long enough to split, on 10 multiprocessors of 3 CTAs */
        plan_sizes sz = {.segments = 64, .limit = (int64_t)1 << 24, .multiprocessors = 10};
        for (int k = 0; k < info.nkernels; k++)
            sz.ctas_per_sm[k] = k == split ? 3 : 1;
        plan_runtime rt;
        plan_runtime_compute(&info, &sz, &rt);
        CHECK(rt.nlaunches == 2 && rt.launches[1].kernel == split && rt.launches[1].grid == 30,
              "%s: the direct kernel, then the lists on 10 x 3 CTAs (%d launches)", what, rt.nlaunches);
        CHECK(rt.chunk == (((int64_t)1 << 24) + 59) / 60 / PLAN_STREAM_TILE * PLAN_STREAM_TILE + PLAN_STREAM_TILE &&
                  rt.split_min == 2 * rt.chunk && rt.caps[info.nlists - 1] > 0 && rt.partials_cap > 0,
              "%s: chunks of %lld over the lists kernel's 30 resident CTAs, split past %lld", what,
              (long long)rt.chunk, (long long)rt.split_min);
        /* one segment the streamer keeps (auto): no list, no split, no launch */
        sz.segments = 1, sz.limit = 2000;
        plan_runtime_compute(&info, &sz, &rt);
        if (linking[i] == PLAN_AUTO)
            CHECK(rt.nlaunches == 1, "%s: %d launches for a segment of 2000", what, rt.nlaunches);
        /* lists but nothing that can split (split_min 4096): the lists kernel still runs */
        sz.segments = 64, sz.limit = 4000;
        plan_runtime_compute(&info, &sz, &rt);
        CHECK(rt.nlaunches == 2 && rt.launches[1].kernel == split && rt.caps[info.nlists - 1] == 0,
              "%s: lists only", what);

        /* exact results on machines of 4, 7 and 13 CTAs in all (the chunks
         * follow the grid; the merge takes the last chunk's ticket) */
        int64_t lengths[] = {3, 40000, 0, 17000, 1, 9000, 700, 20001, 5, 2100};
        int64_t segments = (int64_t)(sizeof lengths / sizeof lengths[0]);
        int64_t offsets[sizeof lengths / sizeof lengths[0] + 1] = {0};
        for (int64_t s = 0; s < segments; s++)
            offsets[s + 1] = offsets[s] + lengths[s];
        int64_t total = offsets[segments];
        int32_t *values = malloc(sizeof(int32_t) * (size_t)total);
        int32_t offsets32[sizeof lengths / sizeof lengths[0] + 1], want[16], got[16];
        for (int64_t s = 0; s <= segments; s++)
            offsets32[s] = (int32_t)offsets[s];
        for (int64_t s = 0; s < segments; s++) {
            want[s] = 0;
            for (int64_t e = offsets[s]; e < offsets[s + 1]; e++) {
                values[e] = (int32_t)(rng() % 2001) - 1000;
                want[s] += values[e];
            }
        }
        int machines[3][2] = {{2, 2}, {7, 1}, {13, 1}};
        for (int mc = 0; mc < 3; mc++) {
            memset(got, 0x55, sizeof got);
            cpu_arg args[3] = {buf(values, total), buf(offsets32, segments + 1), buf(got, segments)};
            diag d;
            diag_init(&d);
            int ctas = machines[mc][0] * machines[mc][1];
            bool ok = run_on_machine(m, &info, machines[mc][0], machines[mc][1], args, &total, 1, segments, &rt, &d);
            CHECK(ok, "%s on %d CTAs: %s", what, ctas, d.message ? d.message : "?");
            diag_clear(&d);
            int64_t split_segments = 0;
            for (int64_t s = 0; s < segments; s++)
                split_segments += lengths[s] > rt.split_min;
            CHECK(split_segments >= (mc ? 3 : 1) && rt.nlaunches == 2 && rt.launches[1].grid == ctas,
                  "%s on %d CTAs: %lld segments split, %d launches", what, ctas, (long long)split_segments,
                  rt.nlaunches);
            CHECK(ok && !memcmp(got, want, sizeof(int32_t) * (size_t)segments), "%s on %d CTAs: wrong sums", what,
                  ctas);
        }
        free(values);
    }

    /* several stages: a split kernel per stage, the lists without the split list */
    static const plan_schedule all[3] = {PLAN_AUTO, PLAN_PERSISTENT, PLAN_SPLIT};
    for (int i = 0; i < 3; i++) {
        const char *what = plan_schedule_names[all[i]];
        plan_info info;
        if (!planned(&ar, l2_normalise_f32, all[i], &info))
            continue;
        int split = plan_split_kernel(&info);
        CHECK(count_kind(&info, PLAN_KERNEL_SPLIT) == 2 && split >= 0 &&
                  info.kernels[split].kind == PLAN_KERNEL_SPLIT,
              "%s: two stages, two split kernels", what);
        for (int k = 0; k < info.nkernels; k++)
            CHECK(info.kernels[k].kind != PLAN_KERNEL_LISTS ||
                      (!info.kernels[k].split && !((info.kernels[k].lists >> (info.nlists - 1)) & 1u)),
                  "%s: %s runs no split list", what, info.kernels[k].name);
        plan_sizes sz = {.segments = 64, .limit = (int64_t)1 << 24, .multiprocessors = 10};
        for (int k = 0; k < info.nkernels; k++)
            sz.ctas_per_sm[k] = info.kernels[k].kind == PLAN_KERNEL_SPLIT ? 4 : 1;
        plan_runtime rt;
        plan_runtime_compute(&info, &sz, &rt);
        int last = rt.nlaunches - 1;
        CHECK(last >= 2 && info.kernels[rt.launches[last].kernel].kind == PLAN_KERNEL_SPLIT &&
                  info.kernels[rt.launches[last].kernel].stage == 1 && rt.launches[last].grid == 40 &&
                  info.kernels[rt.launches[last - 1].kernel].stage == 0,
              "%s: split0 then split1 last, on 10 x 4 CTAs", what);
    }
    /* schedule split of a one-stage program: its split kernel as it is */
    plan_info info;
    if (planned(&ar, sum_f32, PLAN_SPLIT, &info))
        CHECK(count_kind(&info, PLAN_KERNEL_SPLIT) == 1 && count_kind(&info, PLAN_KERNEL_LISTS) == 0,
              "split: one split kernel, no lists");
    arena_free(&ar);
}

int main(void)
{
    test_list_capacities();
    test_linked_split();
    test_f32_kernels();
    test_int_kernel("sum_i32", sum_i32, DT_I32, false);
    test_int_kernel("max_i32", max_i32, DT_I32, true);
    test_int_kernel("sum_i8", sum_i8, DT_I8, true);
    test_empty_segments();
    test_clamping();
    test_params();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
