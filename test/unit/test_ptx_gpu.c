/* test_ptx_gpu.c - differential tests of the PTX emitter on a real GPU:
 * every elementwise op and comparison on every dtype, every cast, loads and
 * stores of every vector width (aligned and not), reductions through
 * shuffles and shared memory, loops, branches and 3-D grids. Kernels are
 * launched through the CUDA Driver API (libcuda.so.1, opened with dlopen)
 * and compared with the CPU oracle (src/ir/scalar.c) on special values and
 * fresh random inputs (the seed is printed; SWAGE_SEED=n repeats a run).
 * Exact ops must match bit for bit (any NaN matches any NaN); approximate
 * ones (exp, log, sin, ...) within the tolerances ptx_ops.c documents.
 * Without a driver or GPU it says so and passes, unless
 * SWAGE_REQUIRE_GPU=1. Last line: "N passed, N failed". */
#include "ptx_kernels.h"
#include "ir/scalar.h"

#include <dlfcn.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

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

/* ---- the driver API: the little these tests need ------------------------------- */

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void *, void **, void **);
    CUresult (*CtxSynchronize)(void);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

static int sm;

static bool cu_ok(CUresult r, const char *what)
{
    if (r == 0)
        return true;
    const char *name = "?";
    if (cu.GetErrorName)
        cu.GetErrorName(r, &name);
    fprintf(stderr, "CUDA: %s failed: %s (%d)\n", what, name, r);
    return false;
}

static bool load_symbol(void *lib, const char *name, void *fn)
{
    void *p = dlsym(lib, name);
    memcpy(fn, &p, sizeof p); /* object pointer -> function pointer */
    return p != NULL;
}

static bool gpu_open(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return false;
    bool ok = load_symbol(lib, "cuInit", &cu.Init) && load_symbol(lib, "cuDeviceGet", &cu.DeviceGet) &&
              load_symbol(lib, "cuDeviceGetAttribute", &cu.DeviceGetAttribute) &&
              load_symbol(lib, "cuDevicePrimaryCtxRetain", &cu.DevicePrimaryCtxRetain) &&
              load_symbol(lib, "cuCtxSetCurrent", &cu.CtxSetCurrent) &&
              load_symbol(lib, "cuModuleLoadDataEx", &cu.ModuleLoadDataEx) &&
              load_symbol(lib, "cuModuleGetFunction", &cu.ModuleGetFunction) &&
              load_symbol(lib, "cuModuleUnload", &cu.ModuleUnload) &&
              load_symbol(lib, "cuMemAlloc_v2", &cu.MemAlloc) && load_symbol(lib, "cuMemFree_v2", &cu.MemFree) &&
              load_symbol(lib, "cuMemcpyHtoD_v2", &cu.MemcpyHtoD) &&
              load_symbol(lib, "cuMemcpyDtoH_v2", &cu.MemcpyDtoH) &&
              load_symbol(lib, "cuLaunchKernel", &cu.LaunchKernel) &&
              load_symbol(lib, "cuCtxSynchronize", &cu.CtxSynchronize) &&
              load_symbol(lib, "cuGetErrorName", &cu.GetErrorName);
    CUdevice dev;
    CUcontext ctx;
    int major = 0, minor = 0;
    ok = ok && cu_ok(cu.Init(0), "cuInit") && cu_ok(cu.DeviceGet(&dev, 0), "cuDeviceGet") &&
         cu_ok(cu.DeviceGetAttribute(&major, 75, dev), "compute capability") &&
         cu_ok(cu.DeviceGetAttribute(&minor, 76, dev), "compute capability") &&
         cu_ok(cu.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") &&
         cu_ok(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
    sm = 10 * major + minor;
    return ok;
}

typedef struct kernel {
    CUmodule mod;
    CUfunction fn;
} kernel;

static bool kernel_load(kernel *k, const char *mlir, const char *name)
{
    diag d;
    diag_init(&d);
    char *ptx = emit_ptx_text(mlir, sm, 0, true, &d);
    if (!ptx) {
        fprintf(stderr, "%s: no PTX: %s\n", name, d.rendered ? d.rendered : d.message);
        diag_clear(&d);
        return false;
    }
    char log[8192] = "";
    int opts[2] = {5, 6}; /* CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES */
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    bool ok = cu_ok(cu.ModuleLoadDataEx(&k->mod, ptx, 2, opts, vals), name) &&
              cu_ok(cu.ModuleGetFunction(&k->fn, k->mod, name), "cuModuleGetFunction");
    if (!ok)
        fprintf(stderr, "JIT log: %s\n", log);
    free(ptx);
    return ok;
}

static bool launch(kernel *k, unsigned gx, unsigned gy, unsigned gz, unsigned block, void **params)
{
    return cu_ok(cu.LaunchKernel(k->fn, gx, gy, gz, block, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel") &&
           cu_ok(cu.CtxSynchronize(), "kernel execution");
}

static CUdeviceptr upload(const void *host, size_t bytes)
{
    CUdeviceptr p = 0;
    if (!cu_ok(cu.MemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc"))
        return 0;
    if (host && !cu_ok(cu.MemcpyHtoD(p, host, bytes), "cuMemcpyHtoD"))
        return 0;
    return p;
}

static bool download(void *host, CUdeviceptr p, size_t bytes)
{
    return cu_ok(cu.MemcpyDtoH(host, p, bytes), "cuMemcpyDtoH");
}

/* ---- values ------------------------------------------------------------------- */

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static const int64_t int_specials[] = {0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 31, 32, 33, -33, 63, 64, 127, -128,
                                       128, 255, 256, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 1000000007};
static const double float_specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -7.5, 7.0,
                                        1e-3, 100.0, -100.0, 88.5, -88.5, -95.0, 1e10, -1e10, INFINITY,
                                        -INFINITY, NAN, 1e-40, -1e-40, 1e-310, 65504.0, 3.4e38, 1e300,
                                        0.1, 6.0, 1e-8};
#define NINT ((int)(sizeof int_specials / sizeof int_specials[0]))
#define NFLOAT ((int)(sizeof float_specials / sizeof float_specials[0]))

static int nspecials(ir_dtype dt) { return ir_dtype_is_float(dt) ? NFLOAT : NINT; }

static ir_scalar special(ir_dtype dt, int i)
{
    return ir_dtype_is_float(dt) ? ir_scalar_from_float(dt, float_specials[i])
                                 : ir_scalar_from_int(dt, int_specials[i]);
}

static ir_scalar random_value(ir_dtype dt)
{
    uint64_t r = rnd();
    if (!ir_dtype_is_float(dt))
        return ir_scalar_from_int(dt, r & 1 ? (int64_t)(r >> 1) : (int64_t)(r % 201) - 100);
    double v;
    switch (r % 5) {
    case 0: v = unit() * 20 - 10; break;
    case 1: v = ldexp(1 + unit(), (int)(unit() * 80) - 40) * (r & 8 ? -1 : 1); break;
    case 2: v = (double)((int64_t)(rnd() % 101) - 50); break;
    case 3: v = unit() * 2000 - 1000; break;
    default: v = unit() * 4 - 2; break;
    }
    return ir_scalar_from_float(dt, v);
}

static bool same_value(ir_dtype dt, ir_scalar want, ir_scalar got)
{
    if (!ir_dtype_is_float(dt))
        return want.i == got.i;
    if (isnan(want.f) || isnan(got.f))
        return isnan(want.f) && isnan(got.f);
    return want.f == got.f && signbit(want.f) == signbit(got.f);
}

static void print_value(ir_dtype dt, ir_scalar s)
{
    if (ir_dtype_is_float(dt))
        fprintf(stderr, "%.17g", s.f);
    else
        fprintf(stderr, "%lld", (long long)s.i);
}

/* One unit in the last place of x in dt's format. */
static double ulp_of(ir_dtype dt, double x)
{
    int p = dt == DT_F16 ? 11 : dt == DT_BF16 ? 8 : dt == DT_F64 ? 53 : 24;
    int emin = dt == DT_F16 ? -14 : dt == DT_F64 ? -1022 : -126;
    int e = emin;
    if (isfinite(x) && x != 0) {
        (void)frexp(x, &e);
        e = e - 1 < emin ? emin : e - 1;
    }
    return ldexp(1.0, e - (p - 1));
}

/* The tolerances ptx_ops.c documents (in ulps of f32, plus an absolute
 * error for log near 1 and sin/cos); 16-bit formats add one ulp of their
 * own for the final rounding. */
/* ptx_math.c's software functions: their bound in ulps of float64
 * (docs/language.md, as test_ptx_math.c measures them on the PTX), plus one
 * for the oracle's own rounding (the C library's double functions); 0 for
 * an op that is not one of them. pow's grows with |y log|x||. */
static double software_bound64(ir_op_kind op, double x, double y)
{
    switch (op) {
    case IR_TAN: return 4.5;
    case IR_ASIN: case IR_ACOS: case IR_ATANH: return 4;
    case IR_TANH: case IR_ATAN2: return 3.5;
    case IR_ASINH: return 4;
    case IR_LOG10: case IR_EXP10: case IR_HYPOT: return 3;
    case IR_ATAN: case IR_SINH: case IR_COSH: case IR_ACOSH: return 3.5;
    case IR_LOG1P: return 3.5;
    case IR_EXPM1: return 3;
    case IR_CBRT: return 2;
    case IR_ERFC: return 4; /* test_ptx_math measured 3.20 against erfcl */
    case IR_POW: {
        double p = y * log(fabs(x));
        return 3 + (isfinite(p) ? fabs(p) : 0) * 0x1p-3;
    }
    default: return 0;
    }
}

static bool approx_ok(ir_op_kind op, ir_dtype dt, double x, double y, double want, double got, double *ulps)
{
    *ulps = 0;
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got))
        return want == got;
    double diff = fabs(want - got);
    double u32 = ulp_of(DT_F32, want), own = dt == DT_F32 ? 0 : ulp_of(dt, want);
    *ulps = diff / ulp_of(dt, want);
    if (software_bound64(op, x, y) > 0) /* f64 software; f32 and narrower round it once */
        return dt == DT_F64 ? *ulps <= software_bound64(op, x, y) : diff <= u32 + own;
    if (dt == DT_F64) { /* software, in ulps of f64 over the whole range (ptx_ops.c) */
        switch (op) {
        case IR_EXP: case IR_EXP2: case IR_LOG: case IR_LOG2: return *ulps <= 2;
        case IR_SIN: case IR_COS: case IR_SIGMOID: return *ulps <= 3;
        case IR_ERF: return *ulps <= 2;
        default: return diff == 0; /* rsqrt: exact */
        }
    }
    switch (op) {
    case IR_EXP: case IR_SIGMOID: return diff <= 4 * u32 + own;
    case IR_EXP2: return diff <= 2 * u32 + own;
    case IR_LOG: return diff <= 4 * u32 + own || diff <= ldexp(1, -21) + own;
    case IR_LOG2: return diff <= 2 * u32 + own || diff <= ldexp(1, -22) + own;
    case IR_SIN: case IR_COS:
        return fabs(x) > 100 * M_PI ? fabs(got) <= 1 : diff <= ldexp(1, -20) + own;
    case IR_RSQRT: return diff <= own; /* exact for f32/f64; 16-bit rounds twice */
    case IR_ERF: return diff <= u32 + own; /* the f64 erf rounded to f32 */
    default: return diff == 0;
    }
}

static bool is_approximate(ir_op_kind op, ir_dtype dt)
{
    return op == IR_EXP || op == IR_EXP2 || op == IR_LOG || op == IR_LOG2 || op == IR_SIN ||
           op == IR_COS || op == IR_SIGMOID || op == IR_ERF || software_bound64(op, 1, 1) > 0 ||
           (op == IR_RSQRT && (dt == DT_F16 || dt == DT_BF16));
}

/* ---- the elementwise and cast matrices ------------------------------------------------ */

enum { N = 1500 };

static void fill_inputs(ir_dtype dt, ir_scalar *a, ir_scalar *b)
{
    int s = nspecials(dt);
    for (int i = 0; i < N; i++) {
        if (i < s * s) {
            a[i] = special(dt, i % s);
            b[i] = special(dt, i / s);
        } else {
            a[i] = random_value(dt);
            b[i] = random_value(dt);
        }
        if (dt == DT_F64 && i >= s * s && i % 5 == 0) /* f64 math over its whole range */
            a[i] = ir_scalar_from_float(dt, ldexp(1 + unit(), (int)(unit() * 2098) - 1074) *
                                                (rnd() & 1 ? -1 : 1));
    }
}

static void *to_bytes(ir_dtype dt, const ir_scalar *v, int n)
{
    int eb = ir_dtypes[dt].bytes;
    unsigned char *bytes = malloc((size_t)n * (size_t)eb);
    for (int i = 0; i < n; i++)
        ir_scalar_store(dt, bytes + (size_t)i * (size_t)eb, v[i]);
    return bytes;
}

/* Compares one output row with expectations; one CHECK per row. */
static void check_row(const char *what, ir_op_kind op, ir_dtype in_dt, ir_dtype dt, const unsigned char *row,
                      const ir_scalar *a, const ir_scalar *b, const ir_scalar *want)
{
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < N; i++) {
        ir_scalar got = ir_scalar_load(dt, row + (size_t)i * (size_t)ir_dtypes[dt].bytes);
        double ulps = 0;
        bool ok = is_approximate(op, in_dt) ? approx_ok(op, dt, a[i].f, b ? b[i].f : 0, want[i].f, got.f, &ulps)
                                            : same_value(dt, want[i], got);
        if (ok && ulps > worst)
            worst = ulps;
        if (!ok && bad++ < 4) {
            fprintf(stderr, "%s: element %d: a = ", what, i);
            print_value(in_dt, a[i]);
            if (b) {
                fprintf(stderr, ", b = ");
                print_value(in_dt, b[i]);
            }
            fprintf(stderr, ": want ");
            print_value(dt, want[i]);
            fprintf(stderr, ", got ");
            print_value(dt, got);
            fprintf(stderr, "\n");
        }
    }
    if (bad)
        fprintf(stderr, "%s: %d of %d elements differ\n", what, bad, N);
    else if (is_approximate(op, in_dt))
        printf("  %-28s max error %.2f ulp\n", what, worst);
    CHECK(bad == 0);
}

static void test_elementwise(ir_dtype dt)
{
    int nout, eb = ir_dtypes[dt].bytes;
    char *mlir = gen_elementwise(dt, &nout);
    char name[32];
    snprintf(name, sizeof name, "ew_%s", dt_name(dt));
    kernel k;
    bool ok = kernel_load(&k, mlir, name);
    CHECK(ok);
    free(mlir);
    if (!ok)
        return;
    ir_scalar *a = malloc(sizeof *a * N), *b = malloc(sizeof *b * N), *want = malloc(sizeof *want * N);
    fill_inputs(dt, a, b);
    void *ha = to_bytes(dt, a, N), *hb = to_bytes(dt, b, N);
    size_t out_bytes = (size_t)nout * N * (size_t)eb;
    unsigned char *out = malloc(out_bytes), *outb = malloc((size_t)NCMP * N);
    CUdeviceptr da = upload(ha, (size_t)N * eb), db = upload(hb, (size_t)N * eb);
    CUdeviceptr dout = upload(NULL, out_bytes), doutb = upload(NULL, (size_t)NCMP * N);
    int n = N;
    void *params[] = {&da, &db, &dout, &doutb, &n};
    ok = launch(&k, (N + GEN_TILE - 1) / GEN_TILE, 1, 1, GEN_T, params) && download(out, dout, out_bytes) &&
         download(outb, doutb, (size_t)NCMP * N);
    CHECK(ok);
    int row = 0;
    char what[64];
    for (int i = 0; ok && i < NBINARY + NUNARY; i++) {
        ir_op_kind op = i < NBINARY ? binary_ops[i] : unary_ops[i - NBINARY];
        if (!op_applies(op, dt))
            continue;
        for (int j = 0; j < N; j++) {
            bool fine = i < NBINARY ? ir_eval_binary(op, dt, a[j], b[j], &want[j])
                                    : ir_eval_unary(op, dt, a[j], &want[j]);
            if (!fine)
                want[j].i = 0;
        }
        snprintf(what, sizeof what, "%s on %s", ir_ops[op].name, dt_name(dt));
        check_row(what, op, dt, dt, out + (size_t)row++ * N * eb, a, i < NBINARY ? b : NULL, want);
    }
    /* Triton's '/' and tl.exp (`approx = true`): div.full.f32 within 2 ulp
     * (PTX ISA), 16-bit and f64 division exact; exp within 2.5 + 1.23 |x|
     * ulp of f32 (ex2.approx.f32's 2 ulp, plus the rounding of x log2(e):
     * test_ptx_math.c), f64 exp the accurate software one. */
    for (int i = 0; ok && ir_dtype_is_float(dt) && i < 2; i++) {
        ir_op_kind op = i ? IR_EXP : IR_DIV;
        int bad = 0;
        double worst = 0;
        const unsigned char *r = out + (size_t)row++ * N * eb;
        for (int j = 0; j < N; j++) {
            if (!(i ? ir_eval_unary(op, dt, a[j], &want[j]) : ir_eval_binary(op, dt, a[j], b[j], &want[j])))
                want[j].i = 0;
            ir_scalar got = ir_scalar_load(dt, r + (size_t)j * (size_t)eb);
            double ulps = 0, w = want[j].f, g = got.f, diff = fabs(w - g);
            bool fine;
            if (isnan(w) || isnan(g) || isinf(w) || isinf(g))
                fine = (isnan(w) && isnan(g)) || w == g;
            else if (dt == DT_F64)
                fine = i ? (ulps = diff / ulp_of(dt, w)) <= 2 : diff == 0;
            else if (!i)
                fine = dt == DT_F32 ? (ulps = diff / ulp_of(dt, w)) <= 2 : diff == 0;
            else
                fine = (ulps = diff / ulp_of(dt, w)) >= 0 &&
                       diff <= (2.5 + 1.23 * fabs(a[j].f)) * ulp_of(DT_F32, w) + (dt == DT_F32 ? 0 : ulp_of(dt, w));
            if (fine && ulps > worst)
                worst = ulps;
            if (!fine && bad++ < 4)
                fprintf(stderr, "%s {approx} on %s: element %d: a = %.9g, b = %.9g: want %.9g, got %.9g\n",
                        ir_ops[op].name, dt_name(dt), j, a[j].f, b[j].f, w, g);
        }
        snprintf(what, sizeof what, "%s {approx} on %s", ir_ops[op].name, dt_name(dt));
        if (!bad)
            printf("  %-28s max error %.2f ulp\n", what, worst);
        CHECK(bad == 0);
    }
    for (int c = 0; ok && c < NCMP; c++) {
        for (int j = 0; j < N; j++)
            want[j].i = ir_eval_cmp(cmp_predicates[c], dt, a[j], b[j]);
        snprintf(what, sizeof what, "sw.cmp %s on %s", cmp_predicates[c], dt_name(dt));
        check_row(what, IR_CMP, dt, DT_I1, outb + (size_t)c * N, a, b, want);
    }
    for (int j = 0; ok && j < N; j++)
        want[j] = ir_eval_cmp("lt", dt, a[j], b[j]) ? a[j] : b[j];
    snprintf(what, sizeof what, "sw.select on %s", dt_name(dt));
    if (ok)
        check_row(what, IR_SELECT, dt, dt, out + (size_t)row * N * eb, a, b, want);
    cu.MemFree(da), cu.MemFree(db), cu.MemFree(dout), cu.MemFree(doutb);
    cu.ModuleUnload(k.mod);
    free(a), free(b), free(want), free(ha), free(hb), free(out), free(outb);
}

static void test_casts(ir_dtype from)
{
    char *mlir = gen_casts(from);
    char name[32];
    snprintf(name, sizeof name, "cast_%s", dt_name(from));
    kernel k;
    bool ok = kernel_load(&k, mlir, name);
    CHECK(ok);
    free(mlir);
    if (!ok)
        return;
    ir_scalar *x = malloc(sizeof *x * N), *scratch = malloc(sizeof *scratch * N), *want = malloc(sizeof *want * N);
    fill_inputs(from, x, scratch);
    void *hx = to_bytes(from, x, N);
    CUdeviceptr dx = upload(hx, (size_t)N * ir_dtypes[from].bytes), douts[NDTYPES];
    void *params[NDTYPES + 2];
    int n = N;
    params[0] = &dx;
    for (int j = 0; j < NDTYPES; j++) {
        douts[j] = upload(NULL, (size_t)N * ir_dtypes[all_dtypes[j]].bytes);
        params[j + 1] = &douts[j];
    }
    params[NDTYPES + 1] = &n;
    ok = launch(&k, (N + GEN_TILE - 1) / GEN_TILE, 1, 1, GEN_T, params);
    CHECK(ok);
    for (int j = 0; ok && j < NDTYPES; j++) {
        ir_dtype to = all_dtypes[j];
        unsigned char *out = malloc((size_t)N * ir_dtypes[to].bytes);
        if (download(out, douts[j], (size_t)N * ir_dtypes[to].bytes)) {
            for (int i = 0; i < N; i++)
                want[i] = ir_eval_cast(from, to, x[i]);
            char what[64];
            snprintf(what, sizeof what, "sw.cast %s -> %s", dt_name(from), dt_name(to));
            check_row(what, IR_CAST, from, to, out, x, NULL, want);
        }
        free(out);
    }
    cu.MemFree(dx);
    for (int j = 0; j < NDTYPES; j++)
        cu.MemFree(douts[j]);
    cu.ModuleUnload(k.mod);
    free(x), free(scratch), free(want), free(hx);
}

/* ---- memory, reductions, control flow -------------------------------------------------- */

/* copy_kernel with the source and destination offset by `off` elements:
 * off = 0 takes the vector path, off = 1 the per-slot one. */
static void test_copy(const char *type, int v, int k, int off)
{
    ir_dtype dt = ir_dtype_from_name(type, strlen(type));
    int eb = ir_dtypes[dt].bytes, count = 64 * v, total = count + 32;
    char *mlir = copy_kernel(type, v, k);
    kernel kern;
    bool ok = kernel_load(&kern, mlir, "copy");
    free(mlir);
    CHECK(ok);
    if (!ok)
        return;
    ir_scalar *src = malloc(sizeof *src * (size_t)total);
    for (int i = 0; i < total; i++)
        src[i] = random_value(dt);
    void *hs = to_bytes(dt, src, total);
    unsigned char *hd = calloc((size_t)total, (size_t)eb);
    CUdeviceptr ds = upload(hs, (size_t)total * eb), dd = upload(hd, (size_t)total * eb);
    CUdeviceptr ps = ds + (CUdeviceptr)(off * eb), pd = dd + (CUdeviceptr)(off * eb);
    void *params[] = {&ps, &pd};
    ok = launch(&kern, 1, 1, 1, 64, params) && download(hd, dd, (size_t)total * eb);
    CHECK(ok);
    int bad = 0;
    for (int i = 0; ok && i < total; i++) {
        bool inside = i >= off && i < off + count;
        ir_scalar got = ir_scalar_load(dt, hd + (size_t)i * eb);
        ir_scalar want = inside ? src[i] : ir_scalar_from_int(dt, 0);
        if (!same_value(dt, want, got) && bad++ < 3)
            fprintf(stderr, "copy %s v=%d vec=%d off=%d: element %d differs\n", type, v, k, off, i);
    }
    CHECK(bad == 0);
    cu.MemFree(ds), cu.MemFree(dd);
    cu.ModuleUnload(kern.mod);
    free(src), free(hs), free(hd);
}

/* The vector-add kernel with a ragged n (masked tails) and misaligned bases. */
static void test_vector_add(int n, int off)
{
    kernel k;
    bool ok = kernel_load(&k, vector_add, "add_kernel");
    CHECK(ok);
    if (!ok)
        return;
    int total = 1024 + 8;
    float *x = malloc(sizeof *x * (size_t)total), *y = malloc(sizeof *y * (size_t)total);
    float *out = malloc(sizeof *out * (size_t)total);
    for (int i = 0; i < total; i++) {
        x[i] = (float)(unit() * 100);
        y[i] = (float)(unit() * 100);
        out[i] = -1.0f;
    }
    CUdeviceptr dx = upload(x, 4 * (size_t)total), dy = upload(y, 4 * (size_t)total);
    CUdeviceptr dout = upload(out, 4 * (size_t)total);
    CUdeviceptr px = dx + 4 * (CUdeviceptr)off, py = dy + 4 * (CUdeviceptr)off, po = dout + 4 * (CUdeviceptr)off;
    void *params[] = {&px, &py, &po, &n};
    ok = launch(&k, 2, 1, 1, 128, params) && download(out, dout, 4 * (size_t)total);
    CHECK(ok);
    int bad = 0;
    for (int i = 0; ok && i < total; i++) {
        int e = i - off;
        float want = e >= 0 && e < n ? x[i] + y[i] : -1.0f;
        if (out[i] != want && bad++ < 3)
            fprintf(stderr, "vector add n=%d off=%d: out[%d] = %g, want %g\n", n, off, i, out[i], want);
    }
    CHECK(bad == 0);
    cu.MemFree(dx), cu.MemFree(dy), cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
    free(x), free(y), free(out);
}

static void test_reduce(const char *type, const char *kind, const char *combine)
{
    ir_dtype dt = ir_dtype_from_name(type, strlen(type));
    char *mlir = reduce_kernel(type, kind, combine);
    kernel k;
    bool ok = kernel_load(&k, mlir, "reduce");
    free(mlir);
    CHECK(ok);
    if (!ok)
        return;
    ir_scalar x[1024], acc, got;
    double exact = 0, magnitude = 0;
    ir_eval_reduce_identity(kind, dt, &acc);
    for (int i = 0; i < 1024; i++) {
        x[i] = random_value(dt);
        if (ir_dtype_is_float(dt) && !isfinite(x[i].f))
            x[i] = ir_scalar_from_float(dt, 1.0);
        ir_eval_reduce_combine(kind, dt, acc, x[i], &acc);
        exact += ir_dtype_is_float(dt) ? x[i].f : 0;
        magnitude += ir_dtype_is_float(dt) ? fabs(x[i].f) : 0;
    }
    void *hx = to_bytes(dt, x, 1024);
    unsigned char hout[8] = {0};
    CUdeviceptr dx = upload(hx, 1024 * (size_t)ir_dtypes[dt].bytes), dout = upload(hout, 8);
    void *params[] = {&dx, &dout};
    ok = launch(&k, 1, 1, 1, 256, params) && download(hout, dout, 8);
    CHECK(ok);
    got = ir_scalar_load(dt, hout);
    bool good = !strcmp(kind, "sum") && ir_dtype_is_float(dt)
                    ? fabs(got.f - exact) <= magnitude * 1024 * ldexp(1, -24)
                    : same_value(dt, acc, got);
    if (!good) {
        fprintf(stderr, "reduce %s %s: got ", kind, type);
        print_value(dt, got);
        fprintf(stderr, ", want ");
        print_value(dt, acc);
        fprintf(stderr, "\n");
    }
    CHECK(good);
    cu.MemFree(dx), cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
    free(hx);
}

/* The `loops` kernel computed on the host with Python range semantics. */
static void test_loops(int n, int64_t step, int64_t lo)
{
    kernel k;
    bool ok = kernel_load(&k, loops, "loops");
    CHECK(ok);
    if (!ok)
        return;
    float s = 1.0f, v = 1.0f;
    for (int i = 10; i > n; i -= 2) {
        s = s + (float)i;
        v = v * (float)i;
    }
    int64_t acc = 0;
    if (step > 0)
        for (int64_t j = lo; j < 100; j += step)
            acc = (int64_t)((uint64_t)acc + 3 * (uint64_t)j);
    if (step < 0)
        for (int64_t j = lo; j > 100; j += step)
            acc = (int64_t)((uint64_t)acc + 3 * (uint64_t)j);
    float t2 = (s + (float)ir_scalar_from_int(DT_F32, acc).f) + 1.0f;
    float want = t2 + v, out[64];
    CUdeviceptr dout = upload(NULL, sizeof out);
    void *params[] = {&dout, &n, &step, &lo};
    ok = launch(&k, 1, 1, 1, 32, params) && download(out, dout, sizeof out);
    CHECK(ok);
    int bad = 0;
    for (int i = 0; ok && i < 64; i++)
        if (out[i] != want && bad++ < 2)
            fprintf(stderr, "loops n=%d step=%lld lo=%lld: out[%d] = %.9g, want %.9g\n", n, (long long)step,
                    (long long)lo, i, out[i], want);
    CHECK(bad == 0);
    cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
}

static void test_branches(bool flag)
{
    kernel k;
    bool ok = kernel_load(&k, branches, "branches");
    CHECK(ok);
    if (!ok)
        return;
    int64_t out[128] = {0};
    CUdeviceptr dout = upload(out, sizeof out);
    uint8_t f = flag;
    uint16_t h = ir_f32_to_f16(3.75f), bf = ir_f32_to_bf16(-2.5f);
    void *params[] = {&dout, &f, &h, &bf};
    ok = launch(&k, 1, 1, 1, 64, params) && download(out, dout, sizeof out);
    CHECK(ok);
    int64_t r0 = flag ? 1 : 7, r1 = flag ? 1 : 0, want = r0 + 0 + 3 + -2 + r1;
    int bad = 0;
    for (int i = 0; ok && i < 128; i++) {
        int64_t w = i >= 3 && i < 103 ? want : 0;
        if (out[i] != w && bad++ < 2)
            fprintf(stderr, "branches flag=%d: out[%d] = %lld, want %lld\n", flag, i, (long long)out[i],
                    (long long)w);
    }
    CHECK(bad == 0);
    cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
}

static void test_grid3d(void)
{
    kernel k;
    bool ok = kernel_load(&k, grid3d, "grid3d");
    CHECK(ok);
    if (!ok)
        return;
    enum { GX = 5, GY = 3, GZ = 2 };
    int32_t out[GX * GY * GZ] = {0};
    CUdeviceptr dout = upload(out, sizeof out);
    void *params[] = {&dout};
    ok = launch(&k, GX, GY, GZ, 32, params) && download(out, dout, sizeof out);
    CHECK(ok);
    int bad = 0;
    for (int z = 0; ok && z < GZ; z++)
        for (int y = 0; y < GY; y++)
            for (int x = 0; x < GX; x++)
                if (out[(z * GY + y) * GX + x] != x + 1000 * y + 1000000 * z)
                    bad++;
    CHECK(bad == 0);
    cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
}


/* SWAGE_PTX_BENCH=1: the vector-add kernel over 2^26 f32 elements, timed
 * on the host around 20 launches; prints the achieved bandwidth (3 x 4
 * bytes per element) so regressions in the emitted memory code show. */
static void bench_vector_add(void)
{
    enum { BN = 1 << 26, REPS = 20 };
    kernel k;
    if (!kernel_load(&k, vector_add, "add_kernel"))
        return;
    CUdeviceptr dx = upload(NULL, 4u * BN), dy = upload(NULL, 4u * BN), dout = upload(NULL, 4u * BN);
    int n = BN;
    void *params[] = {&dx, &dy, &dout, &n};
    launch(&k, BN / 512, 1, 1, 128, params); /* warm up (and JIT) */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < REPS; r++)
        cu.LaunchKernel(k.fn, BN / 512, 1, 1, 128, 1, 1, 0, NULL, params, NULL);
    cu.CtxSynchronize();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("bench: vector add of 2^26 f32: %.3f ms per launch, %.0f GB/s\n", 1e3 * s / REPS,
           12.0 * BN * REPS / s / 1e9);
    cu.MemFree(dx), cu.MemFree(dy), cu.MemFree(dout);
    cu.ModuleUnload(k.mod);
}

int main(void)
{
    if (!gpu_open()) {
        const char *req = getenv("SWAGE_REQUIRE_GPU");
        bool required = req && !strcmp(req, "1");
        printf("no CUDA driver or GPU: GPU differential tests skipped%s\n",
               required ? " (SWAGE_REQUIRE_GPU=1: counted as a failure)" : "");
        printf("%d passed, %d failed\n", 0, required ? 1 : 0);
        return required ? 1 : 0;
    }
    const char *seed = getenv("SWAGE_SEED");
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    rng = seed ? strtoull(seed, NULL, 10)
               : ((uint64_t)now.tv_sec * 1000000007u) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 40);
    if (!rng)
        rng = 1;
    printf("GPU sm_%d, seed %llu (SWAGE_SEED to repeat)\n", sm, (unsigned long long)rng);
    for (int i = 0; i < NDTYPES; i++)
        test_elementwise(all_dtypes[i]);
    for (int i = 0; i < NDTYPES; i++)
        test_casts(all_dtypes[i]);
    static const struct { const char *type; int v, k; } copies[] = {
        {"f32", 4, 4}, {"i32", 4, 2}, {"f32", 8, 4}, {"f64", 4, 4}, {"i64", 2, 2}, {"f16", 8, 4},
        {"bf16", 2, 2}, {"i8", 4, 4}, {"ui8", 2, 2}, {"i1", 16, 4}, {"i8", 32, 4}, {"f32", 4, 1},
    };
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
        for (int off = 0; off < 2; off++)
            test_copy(copies[i].type, copies[i].v, copies[i].k, off);
    test_vector_add(1024, 0);
    test_vector_add(1000, 0);
    test_vector_add(777, 1);
    test_vector_add(0, 0);
    test_reduce("f32", "sum", "sw.add");
    test_reduce("f64", "max", "sw.maximum");
    test_reduce("i64", "sum", "sw.add");
    test_reduce("i32", "min", "sw.minimum");
    test_loops(-5, 7, -20);
    test_loops(10, -3, 150);
    test_loops(3, 0, 0);
    test_loops(-100, 1, 99);
    test_loops(11, -1, 50);
    test_branches(true);
    test_branches(false);
    test_grid3d();
    const char *bench = getenv("SWAGE_PTX_BENCH");
    if (bench && !strcmp(bench, "1"))
        bench_vector_add();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
