/* test_ptx_math.c - the accuracy of the PTX that Swage emits for libdevice's
 * math functions (ptx_math.c, and the exact ones of ptx_ops.c), measured
 * without a GPU: each function's kernel (load, op, store) is emitted for
 * float64 and float32, run by the PTX interpreter of ptx_interp.h on a
 * dense sweep (special values, domain edges, uniform ranges, and
 * magnitudes from the smallest subnormal to the largest finite) and
 * compared with the C library's long double functions. Special results
 * (NaN, infinities, zeros and their signs) must match exactly; the rest
 * within the bound of each function, in ulps of the result's dtype. Prints
 * the worst error seen per function and dtype (docs/language.md quotes a
 * run of SWAGE_MATH_VALUES=1000000; the default is 20000 values per
 * function and dtype); SWAGE_SEED=n repeats a run; SWAGE_MATH_ONLY=sw.atan2
 * measures that op alone. Last line: "N passed,
 * N failed". */
#define _GNU_SOURCE
#include "ptx_interp.h"
#include "ptx_kernels.h"

#include <time.h>

static int passed, failed;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) {                                                                      \
            passed++;                                                                    \
        } else {                                                                         \
            failed++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

typedef long double (*ref1)(long double);
typedef long double (*ref2)(long double, long double);

static long double ref_exp10(long double x) { return powl(10.0L, x); }
static long double ref_div(long double x, long double y) { return x / y; }

typedef struct fn {
    ir_op_kind op;
    ref1 f1;
    ref2 f2;
    double lo, hi;    /* the uniform range of x (and y) */
    double bound64;   /* ulps of float64 */
    double bound32;   /* ulps of float32 */
} fn;

/* The bounds: what the sweep measured (docs/language.md), rounded up. */
static const fn fns[] = {
    {IR_TAN, tanl, NULL, -10, 10, 3.5, 0.51},
    {IR_ASIN, asinl, NULL, -1, 1, 3, 0.51},
    {IR_ACOS, acosl, NULL, -1, 1, 3, 0.51},
    {IR_ATAN, atanl, NULL, -10, 10, 2.5, 0.51},
    {IR_SINH, sinhl, NULL, -720, 720, 2.5, 0.51},
    {IR_COSH, coshl, NULL, -720, 720, 2.5, 0.51},
    {IR_TANH, tanhl, NULL, -25, 25, 2.5, 0.51},
    {IR_ASINH, asinhl, NULL, -1000, 1000, 3, 0.51},
    {IR_ACOSH, acoshl, NULL, 1, 1000, 2.5, 0.51},
    {IR_ATANH, atanhl, NULL, -1, 1, 3, 0.51},
    {IR_EXPM1, expm1l, NULL, -50, 720, 2, 0.51},
    {IR_LOG1P, log1pl, NULL, -1, 10, 2.5, 0.51},
    {IR_LOG10, log10l, NULL, 0, 1e6, 2, 0.51},
    {IR_EXP10, ref_exp10, NULL, -330, 310, 2, 0.51},
    {IR_CBRT, cbrtl, NULL, -1000, 1000, 1, 0.51},
    {IR_ERFC, erfcl, NULL, -6, 28, 4, 0.51},
    {IR_TRUNC, truncl, NULL, -1e6, 1e6, 0, 0},
    {IR_ROUND, roundl, NULL, -1e6, 1e6, 0, 0},
    {IR_RINT, nearbyintl, NULL, -1e6, 1e6, 0, 0},
    {IR_ATAN2, NULL, atan2l, -10, 10, 3, 0.51},
    {IR_POW, NULL, powl, -10, 10, 0, 0.51},
    {IR_HYPOT, NULL, hypotl, -1e3, 1e3, 2, 0.51},
    {IR_FMOD, NULL, fmodl, -1e3, 1e3, 0, 0},
    {IR_COPYSIGN, NULL, copysignl, -10, 10, 0, 0},
};

static const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5, 2.5, -2.5, 3.0, -3.0,
                                  0.1, -7.5, 10.0, 100.0, 22.0, -22.0, 709.5, 709.8, 710.0, 710.5, -745.0, 88.7,
                                  -103.0, 308.0, -323.0, 268435456.0, 1e-8, 1e-300, 4.9e-324, -4.9e-324,
                                  2.2250738585072014e-308, 1e300, 1.7976931348623157e308, INFINITY, -INFINITY,
                                  NAN, 1e-40, 3.4e38, 0.99999999999999989, -0.99999999999999989,
                                  1.0000000000000002, 0.7853981633974483, 1.5707963267948966, 3.141592653589793,
                                  1e22, 1e15, 4503599627370496.5, 8388608.5, 0.49999999999999994};
#define NSPECIALS ((int)(sizeof specials / sizeof specials[0]))

/* One value of the sweep for dt: uniform over [lo, hi], or a random
 * magnitude over the whole range of dt with a random sign. */
static double sweep_value(ir_dtype dt, double lo, double hi)
{
    double v;
    if (rnd() & 1)
        v = lo + (hi - lo) * unit();
    else if (dt == DT_F64)
        v = ldexp(1 + unit(), (int)(unit() * 2098) - 1074) * (rnd() & 1 ? -1 : 1);
    else
        v = ldexp(1 + unit(), (int)(unit() * 278) - 150) * (rnd() & 1 ? -1 : 1);
    return dt == DT_F32 ? (double)(float)v : v;
}

/* |y log|x||, 0 where it is not finite */
static double y_log_x(double x, double y)
{
    double p = y * log(fabs(x));
    return isfinite(p) ? fabs(p) : 0;
}

static char *kernel_mlir(ir_op_kind op, ir_dtype dt, const char *attrs)
{
    const char *t = dt_name(dt);
    bool binary = ir_ops[op].noperands == 2;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb,
              "module {\n  func.func @k(%%a: !sw.ptr<%s>, %%b: !sw.ptr<%s>, %%out: !sw.ptr<%s>) attributes "
              "{simt.num_threads = 32 : i32, simt.smem_bytes = 0 : i32} {\n"
              "    %%pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
              "    %%c = \"sw.constant\"() {value = 32 : i32} : () -> i32\n"
              "    %%base = \"sw.mul\"(%%pid, %%c) : (i32, i32) -> i32\n"
              "    %%ti = \"simt.tile_index\"() {len = 32 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
              "    %%bs = \"sw.splat\"(%%base) : (i32) -> vector<1xi32>\n"
              "    %%idx = \"sw.add\"(%%ti, %%bs) : (vector<1xi32>, vector<1xi32>) -> vector<1xi32>\n",
              t, t, t);
    const char *ptrs[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; i++)
        sb_printf(&sb,
                  "    %%%s_s = \"sw.splat\"(%%%s) : (!sw.ptr<%s>) -> vector<1x!sw.ptr<%s>>\n"
                  "    %%%s_p = \"sw.addptr\"(%%%s_s, %%idx) : (vector<1x!sw.ptr<%s>>, vector<1xi32>) -> vector<1x!sw.ptr<%s>>\n",
                  ptrs[i], ptrs[i], t, t, ptrs[i], ptrs[i], t, t);
    sb_printf(&sb, "    %%x = \"simt.load\"(%%a_p) {vec = 1 : i32} : (vector<1x!sw.ptr<%s>>) -> vector<1x%s>\n", t, t);
    sb_printf(&sb, "    %%y = \"simt.load\"(%%b_p) {vec = 1 : i32} : (vector<1x!sw.ptr<%s>>) -> vector<1x%s>\n", t, t);
    if (binary)
        sb_printf(&sb, "    %%r = \"%s\"(%%x, %%y) %s : (vector<1x%s>, vector<1x%s>) -> vector<1x%s>\n", ir_ops[op].name,
                  attrs, t, t, t);
    else
        sb_printf(&sb, "    %%r = \"%s\"(%%x) %s : (vector<1x%s>) -> vector<1x%s>\n", ir_ops[op].name, attrs, t, t);
    sb_printf(&sb, "    \"simt.store\"(%%out_p, %%r) {vec = 1 : i32} : (vector<1x!sw.ptr<%s>>, vector<1x%s>) -> ()\n"
                   "    \"func.return\"() : () -> ()\n  }\n}\n", t, t);
    return sb_take(&sb);
}

/* One unit in the last place of x in dt's format. */
static double ulp_of(ir_dtype dt, long double x)
{
    int p = dt == DT_F64 ? 53 : 24, emin = dt == DT_F64 ? -1022 : -126, e = emin;
    if (isfinite(x) && x != 0) {
        (void)frexpl(x, &e);
        e = e - 1 < emin ? emin : e - 1;
    }
    return ldexp(1.0, e - (p - 1));
}

static double as_dtype(ir_dtype dt, long double v) { return dt == DT_F32 ? (double)(float)v : (double)v; }

/* Triton's approximations ('/' and tl.exp: `approx = true`, ptx_ops.c),
 * run with ex2.approx.f32 and div.full.f32 as their correctly rounded
 * ideal (pi_parse_ideal): what the sequence adds to the instruction's own
 * error (PTX ISA: 2 ulp for each). f32 exp rounds x * log2(e) (and
 * log2(e) itself) in float32: a relative error of |x| 2^-23.7, at most
 * 1.23 |x| ulp of the result, on top of the ideal's half ulp. f64 has no
 * approximation: its bounds are those of the accurate ops. */
typedef struct approx_fn {
    fn f;
    double per_x32; /* f32 bound: bound32 + per_x32 * |x| ulp */
} approx_fn;

static const approx_fn approx_fns[] = {
    {{IR_EXP, expl, NULL, -104, 89, 2, 0.5}, 1.23},
    {{IR_DIV, NULL, ref_div, -1e3, 1e3, 0.5, 0.5}, 0},
};

/* Runs the kernel of f on dt over n inputs; prints and checks the worst
 * error. approx: the op carries `approx = true`, run against the ideal of
 * the approximate instructions, the f32 bound growing by per_x32 ulp per
 * unit of |x|. */
static void measure_as(const fn *f, ir_dtype dt, int n, bool approx, double per_x32)
{
    char what[64];
    snprintf(what, sizeof what, "%s%s on %s", ir_ops[f->op].name, approx ? " {approx}" : "", dt_name(dt));
    char *mlir = kernel_mlir(f->op, dt, approx ? "{approx = true}" : "");
    diag d;
    diag_init(&d);
    char *ptx = emit_ptx_text(mlir, 90, 0, true, &d);
    free(mlir);
    CHECK(ptx != NULL);
    if (!ptx) {
        fprintf(stderr, "%s: no PTX: %s\n", what, d.rendered ? d.rendered : d.message);
        diag_clear(&d);
        return;
    }
    pi_program prog;
    bool parsed = pi_parse_as(&prog, ptx, approx);
    free(ptx);
    CHECK(parsed);
    if (!parsed) {
        fprintf(stderr, "%s: %s\n", what, prog.error);
        pi_free(&prog);
        return;
    }
    n = (n + 31) / 32 * 32;
    unsigned char *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *out = calloc((size_t)n, 8);
    double *xa = malloc(sizeof *xa * (size_t)n), *xb = malloc(sizeof *xb * (size_t)n);
    bool binary = f->f2 != NULL;
    for (int i = 0; i < n; i++) {
        if (binary && i < NSPECIALS * NSPECIALS) {
            xa[i] = specials[i % NSPECIALS];
            xb[i] = specials[i / NSPECIALS];
        } else if (!binary && i < NSPECIALS) {
            xa[i] = specials[i];
            xb[i] = 0;
        } else {
            xa[i] = sweep_value(dt, f->lo, f->hi);
            xb[i] = sweep_value(dt, f->lo, f->hi);
            if (f->op == IR_POW && i % 4 == 0) /* integral exponents, negative bases */
                xb[i] = (double)((int64_t)(rnd() % 81) - 40);
            if (f->op == IR_POW && i % 4 == 1) /* results near the limits */
                xb[i] = (709.0 * (2 * unit() - 1)) / log(fabs(xa[i]));
            if (f->op == IR_POW && i % 4 == 2) /* bases near 1 */
                xa[i] = 1 + (unit() - 0.5) * 1e-3, xb[i] = (2 * unit() - 1) * 1e5;
            if ((f->op == IR_SINH || f->op == IR_COSH) && dt == DT_F64 && i % 4 == 3)
                /* the branch past 709, up to where the result overflows */
                xa[i] = (i % 8 == 3 ? -1 : 1) * (709.0 + 1.48 * unit());
            if (dt == DT_F32)
                xa[i] = (double)(float)xa[i], xb[i] = (double)(float)xb[i];
        }
        xa[i] = as_dtype(dt, xa[i]);
        xb[i] = as_dtype(dt, xb[i]);
        if (dt == DT_F64) {
            memcpy(a + 8 * i, &xa[i], 8);
            memcpy(b + 8 * i, &xb[i], 8);
        } else {
            float fa = (float)xa[i], fb = (float)xb[i];
            memcpy(a + 4 * i, &fa, 4);
            memcpy(b + 4 * i, &fb, 4);
        }
    }
    pi_thread *th = calloc(1, sizeof *th);
    uint64_t params[3] = {(uint64_t)(uintptr_t)a, (uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)out};
    th->params = params;
    bool ran = true;
    for (int c = 0; c < n / 32 && ran; c++)
        for (int t = 0; t < 32 && ran; t++) {
            th->tid = (uint64_t)t;
            th->ctaid = (uint64_t)c;
            ran = pi_run(&prog, th);
        }
    CHECK(ran);
    if (!ran)
        fprintf(stderr, "%s: %s\n", what, prog.error);
    double worst = 0, worst_x = 0, worst_y = 0, worst_small = 0;
    int bad = 0;
    double bound = dt == DT_F64 ? f->bound64 : f->bound32;
    if (f->op == IR_POW && dt == DT_F64)
        bound = -1; /* measured and printed, bounded by |y log x| below */
    for (int i = 0; ran && i < n; i++) {
        double got;
        if (dt == DT_F64) {
            memcpy(&got, out + 8 * i, 8);
        } else {
            float g;
            memcpy(&g, out + 4 * i, 4);
            got = g;
        }
        long double ref = binary ? f->f2(xa[i], xb[i]) : f->f1(xa[i]);
        double want = as_dtype(dt, ref);
        bool ok;
        double err = 0;
        if (isnan(want) || isinf(want) || want == 0 || isnan(got) || isinf(got) || got == 0) {
            ok = (isnan(want) && isnan(got)) || (want == got && signbit(want) == signbit(got));
            /* a result that rounds to zero or overflows may be within the bound
             * of the other side of the limit */
            if (!ok && !isnan(want) && !isnan(got)) {
                err = fabsl((long double)got - ref) / ulp_of(dt, ref);
                ok = isfinite(err) && err <= (bound < 0 ? 1e9 : bound + 0.5) && signbit(want) == signbit(got);
            }
        } else {
            err = (double)(fabsl((long double)got - ref) / ulp_of(dt, ref));
            if (f->op == IR_POW && dt == DT_F64) /* log|x|'s error, times y (docs/language.md) */
                ok = err <= 2 + y_log_x(xa[i], xb[i]) * 0x1p-2;
            else
                ok = err <= bound + (dt == DT_F32 && per_x32 > 0 ? per_x32 * fabs(xa[i]) : 0);
        }
        if (ok && err > worst_small && y_log_x(xa[i], xb[i]) < 32)
            worst_small = err;
        if (ok && err > worst) {
            worst = err;
            worst_x = xa[i];
            worst_y = xb[i];
        }
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: x = %.17g%s%.17g: want %.17g (%.21Lg), got %.17g (%.3g ulp)\n", what, xa[i],
                    binary ? ", y = " : "", binary ? xb[i] : 0.0, want, ref, got, err);
    }
    CHECK(bad == 0);
    printf("%-14s %-4s max %.3f ulp (x = %.17g", approx ? (f->op == IR_EXP ? "sw.exp approx" : "sw.div approx")
                                                        : ir_ops[f->op].name, dt_name(dt), worst, worst_x);
    if (binary)
        printf(", y = %.17g", worst_y);
    printf("), %d values", n);
    if (f->op == IR_POW && dt == DT_F64)
        printf("; %.3f ulp where |y log|x|| < 32", worst_small);
    printf("\n");
    free(th);
    free(a);
    free(b);
    free(out);
    free(xa);
    free(xb);
    pi_free(&prog);
}

static void measure(const fn *f, ir_dtype dt, int n) { measure_as(f, dt, n, false, 0); }

int main(void)
{
    const char *seed = getenv("SWAGE_SEED");
    rng = seed ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL);
    if (!rng)
        rng = 1;
    printf("seed %llu\n", (unsigned long long)rng);
    const char *count = getenv("SWAGE_MATH_VALUES");
    int n = count ? atoi(count) : 20000;
    const char *only = getenv("SWAGE_MATH_ONLY"); /* one op, e.g. sw.atan2 */
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        if (only && *only && strcmp(ir_ops[fns[i].op].name, only) != 0)
            continue;
        measure(&fns[i], DT_F64, n);
        measure(&fns[i], DT_F32, n);
    }
    for (size_t i = 0; i < sizeof approx_fns / sizeof approx_fns[0]; i++) {
        if (only && *only && strcmp(ir_ops[approx_fns[i].f.op].name, only) != 0)
            continue;
        measure_as(&approx_fns[i].f, DT_F64, n, true, 0);
        measure_as(&approx_fns[i].f, DT_F32, n, true, approx_fns[i].per_x32);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
