/* test_scaling.c - compile time grows linearly with the input. Each case
 * builds an input of size n and of size 4n, compiles both (a kernel through
 * swageKernelCompile, or IR text through swageIrRunPasses) and fails when
 * the larger takes more than GROWTH_LIMIT (10) times as long: a linear
 * compiler takes about four times as long, a quadratic one sixteen, and a
 * quadratic part fails it from half the time at n. (Sizes n and 2n against
 * a limit of 3 left too little room: the compiler's time grows a little
 * faster than its input where the input's memory outgrows the caches, and
 * some cases ran 2.7-3.3 times as long at twice the size on an idle
 * 2-core machine; at four times the size they run 4-7 times as long.) The
 * cases are the shapes that were quadratic once: an unrolled sl.static_range (replacing a
 * value's uses walked the whole module), many variables and many runtime
 * ifs over them (irgen's scopes), an op with many attributes, a function
 * with many parameters, long chains that fold and CSE, many functions
 * through lower-simt.
 *
 * Times are the process's CPU time, the fastest of a few runs, so a busy
 * machine slows both sizes alike; a case that fails is measured again
 * (twice at most) before it counts, since one unlucky run is not a trend.
 * glibc is asked to keep the memory a compile frees, so that the page
 * faults of growing the heap again do not blur the comparison.
 * Prints each case's times; "N passed, N failed" last. An argument scales
 * every size (e.g. 4 to look at bigger inputs by hand). */
#include "swage.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static int passed, failed;
static int scale = 1;
/* The most iterations sl.static_range unrolls (a compile error past it). */
enum { STATIC_RANGE_MAX = 4096 };
/* How much larger the second input is, and how much longer it may take. */
enum { GROWTH = 4 };
static const double GROWTH_LIMIT = 10.0;

/* ---- text --------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->data = realloc(t->data, t->cap);
        if (!t->data) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* ---- the inputs ----------------------------------------------------------- */

typedef enum input_kind { KERNEL, IR } input_kind;

typedef struct input {
    text src;
    input_kind kind;
    char signature[64];
    char constexprs[64];
    const char *passes; /* IR */
} input;

static const char *const SIGNATURE = "x_ptr=*f32,out_ptr=*f32,n=i32";

/* A 10-line kernel whose body sl.static_range unrolls n times. */
static void unrolled(input *in, int n)
{
    in->kind = KERNEL;
    snprintf(in->constexprs, sizeof in->constexprs, "N=%d", n);
    put(&in->src, "@sw.jit\n"
                  "def k(x_ptr, out_ptr, n, N: sl.constexpr):\n"
                  "    pid = sl.program_id(0)\n"
                  "    acc = 0.0\n"
                  "    for i in sl.static_range(N):\n"
                  "        off = pid * N + i\n"
                  "        x = sl.load(x_ptr + off, mask=off < n, other=0.0)\n"
                  "        acc = acc + x * x\n"
                  "    sl.store(out_ptr + pid, acc)\n");
}

static void kernel_head(input *in)
{
    in->kind = KERNEL;
    put(&in->src, "@sw.jit\ndef k(x_ptr, out_ptr, n):\n    pid = sl.program_id(0)\n");
}

/* n variables, each assigned once and read once. */
static void variables(input *in, int n)
{
    kernel_head(in);
    for (int i = 0; i < n; i++)
        put(&in->src, "    v%d = pid + %d\n", i, i);
    put(&in->src, "    sl.store(out_ptr + v%d, 1.0)\n", n / 2);
}

/* n variables, then n/2 runtime ifs that each reassign one of them in one
 * branch and bind a new name in both, and n/8 runtime loops. */
static void branches(input *in, int n)
{
    kernel_head(in);
    for (int i = 0; i < n; i++)
        put(&in->src, "    v%d = pid + %d\n", i, i);
    for (int i = 0; i < n / 2; i++)
        put(&in->src, "    if pid > %d:\n        v%d = v%d + 1\n        w%d = 1\n    else:\n        w%d = 2\n",
            i, i, i, i, i);
    for (int i = 0; i < n / 8; i++)
        put(&in->src, "    for j in range(n):\n        v%d = v%d + j\n", i, i);
    put(&in->src, "    sl.store(out_ptr + v0 + w%d, 1.0)\n", n / 4);
}

static void ir_head(input *in, const char *passes)
{
    in->kind = IR;
    in->passes = passes;
    put(&in->src, "module {\n  func.func @k(%%o: !sw.ptr<i32>, %%x: i32) {\n");
}

static void ir_tail(input *in) { put(&in->src, "    \"func.return\"() : () -> ()\n  }\n}\n"); }

/* One op with n attributes (parsed, verified, folded, printed). */
static void attributes(input *in, int n)
{
    ir_head(in, "fold,cse,dce");
    put(&in->src, "    %%p = \"sw.program_id\"() {axis = 0 : i32");
    for (int i = 0; i < n; i++)
        put(&in->src, ", a%d = %d : i32", i, i);
    put(&in->src, "} : () -> i32\n    \"sw.store\"(%%o, %%p) : (!sw.ptr<i32>, i32) -> ()\n");
    ir_tail(in);
}

/* A function of n parameters (parsed, numbered and printed by name). */
static void parameters(input *in, int n)
{
    in->kind = IR;
    in->passes = "fold,cse,dce";
    put(&in->src, "module {\n  func.func @k(%%o: !sw.ptr<i32>");
    for (int i = 0; i < n; i++)
        put(&in->src, ", %%p%d: i32", i);
    put(&in->src, ") {\n    \"func.return\"() : () -> ()\n  }\n}\n");
}

/* A chain of n additions of zero (each folds away: its uses move to the
 * operand) and n copies of one product (CSE keeps the first). */
static void chains(input *in, int n)
{
    ir_head(in, "fold,cse,fold,dce");
    put(&in->src, "    %%zero = \"sw.constant\"() {value = 0 : i32} : () -> i32\n    %%a0 = \"sw.add\"(%%x, %%x) : (i32, i32) -> i32\n");
    for (int i = 1; i <= n; i++)
        put(&in->src, "    %%a%d = \"sw.add\"(%%a%d, %%zero) : (i32, i32) -> i32\n"
                      "    %%m%d = \"sw.mul\"(%%x, %%a%d) : (i32, i32) -> i32\n"
                      "    \"sw.store\"(%%o, %%m%d) : (!sw.ptr<i32>, i32) -> ()\n",
            i, i - 1, i, i, i);
    ir_tail(in);
}

/* n functions lowered to SIMT IR one by one. */
static void functions(input *in, int n)
{
    in->kind = IR;
    in->passes = "lower-simt";
    put(&in->src, "module {\n");
    for (int i = 0; i < n; i++)
        put(&in->src, "  func.func @f%d(%%o: !sw.ptr<i32>, %%x: i32) {\n"
                      "    %%a = \"sw.add\"(%%x, %%x) : (i32, i32) -> i32\n"
                      "    \"sw.store\"(%%o, %%a) : (!sw.ptr<i32>, i32) -> ()\n"
                      "    \"func.return\"() : () -> ()\n  }\n", i);
    put(&in->src, "}\n");
}

/* ---- measuring ------------------------------------------------------------- */

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Compiles the input once; the CPU seconds it took, or -1 on an error. */
static double compile_once(const input *in)
{
    static int fresh;
    char file[64];
    /* A new file name each time: the kernel cache must not answer. */
    snprintf(file, sizeof file, "scaling_%d.py", ++fresh);
    swage_error *error = NULL;
    double start = cpu_seconds();
    swage_status status;
    if (in->kind == KERNEL) {
        swage_kernel_spec spec = {.source = in->src.data, .file_name = file, .first_line = 1,
                                  .kernel_name = "k", .signature = SIGNATURE,
                                  .constexprs = in->constexprs};
        swage_kernel *kernel = NULL;
        status = swageKernelCompile(&spec, &kernel, &error);
    } else {
        char *out = NULL;
        status = swageIrRunPasses(in->src.data, file, in->passes, NULL, 0, &out, &error);
        swageFree(out);
    }
    double took = cpu_seconds() - start;
    if (status != SWAGE_OK) {
        printf("  compile failed: %s\n", error ? swageErrorMessage(error) : "?");
        swageErrorDestroy(error);
        return -1;
    }
    return took;
}

/* The fastest of a few compiles. */
static double best_of(const input *in, int runs)
{
    double best = -1;
    for (int i = 0; i < runs; i++) {
        double t = compile_once(in);
        if (t < 0)
            return -1;
        if (best < 0 || t < best)
            best = t;
    }
    return best;
}

typedef void (*make_fn)(input *in, int n);

/* max_big: the largest input the shape allows (0: no limit); a larger
 * one skips the case. */
static void scaling_case(const char *name, make_fn make, int n, int max_big)
{
    n *= scale;
    if (max_big > 0 && GROWTH * n > max_big) {
        printf("%-12s n=%-6d skipped: %dn is past the largest input of this shape (%d)\n", name, n, GROWTH,
               max_big);
        return;
    }
    input small = {0}, big = {0};
    make(&small, n);
    make(&big, GROWTH * n);
    double t1 = 0, t2 = 0, ratio = 0;
    bool ok = false;
    for (int attempt = 0; attempt < 3 && !ok; attempt++) {
        t1 = best_of(&small, 3);
        t2 = best_of(&big, 3);
        if (t1 < 0 || t2 < 0)
            break;
        ratio = t2 / (t1 > 1e-6 ? t1 : 1e-6);
        ok = ratio <= GROWTH_LIMIT;
    }
    printf("%-12s n=%-6d %6zu bytes %8.2f ms   %dn: %7zu bytes %8.2f ms   x%.2f%s\n", name, n, small.src.len,
           t1 * 1e3, GROWTH, big.src.len, t2 * 1e3, ratio, ok ? "" : "   FAIL: more than x10");
    if (ok)
        passed++;
    else
        failed++;
    free(small.src.data);
    free(big.src.data);
}

int main(int argc, char **argv)
{
    if (argc > 1 && atoi(argv[1]) > 0)
        scale = atoi(argv[1]);
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
    /* the larger inputs as large as they were at n and 2n */
    scaling_case("unrolled", unrolled, 1024, STATIC_RANGE_MAX);
    scaling_case("variables", variables, 4000, 0);
    scaling_case("branches", branches, 1000, 0);
    scaling_case("attributes", attributes, 16000, 0);
    scaling_case("parameters", parameters, 16000, 0);
    scaling_case("chains", chains, 2000, 0);
    scaling_case("functions", functions, 1000, 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
