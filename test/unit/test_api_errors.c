/* test_api_errors.c - the public C API on a careless caller's input: every
 * failure is a swage_error of the right status (never an internal error),
 * and failing calls repeated many times allocate nothing that stays (heap
 * bytes in use are measured through the sanitizer's allocator under ASan,
 * through glibc's mallinfo2 otherwise). Prints "N passed, N failed" last. */
#include "swage.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

#include "check.h"

/* AddressSanitizer's count of live heap bytes (absent without ASan). */
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/* Heap bytes in use now, or -1 when this platform cannot say. */
static long long heap_in_use(void)
{
    if (__sanitizer_get_current_allocated_bytes)
        return (long long)__sanitizer_get_current_allocated_bytes();
#ifdef HAVE_MALLINFO2
    return (long long)mallinfo2().uordblks;
#else
    return -1;
#endif
}

static swage_status compile(const char *source, size_t length, const char *signature,
                            const char *constexprs, swage_kernel **k, swage_error **e)
{
    swage_kernel_spec spec = {
        .source = source,
        .file_name = "k.py",
        .first_line = 1,
        .signature = signature,
        .constexprs = constexprs,
        .source_length = length,
    };
    *k = NULL;
    *e = NULL;
    return swageKernelCompile(&spec, k, e);
}

/* Compiling `source` fails with `status`, its message holding `words`, and
 * doing so `times` more times leaves no heap bytes behind. */
static void expect_failure_without_leak(const char *what, const char *source, size_t length,
                                        const char *signature, const char *constexprs,
                                        swage_status status, const char *words)
{
    swage_kernel *k;
    swage_error *e;
    swage_status st = compile(source, length, signature, constexprs, &k, &e);
    CHECK(st == status && e && strstr(swageErrorMessage(e), words), "%s: status %d (want %d): %s",
          what, (int)st, (int)status, e ? swageErrorRendered(e) : "(no error)");
    swageErrorDestroy(e);
    /* Warm up first: the C library allocates some things once (stdio,
     * malloc's own bookkeeping) on early calls. */
    for (int i = 0; i < 50; i++) {
        compile(source, length, signature, constexprs, &k, &e);
        swageErrorDestroy(e);
    }
    long long before = heap_in_use();
    for (int i = 0; i < 300; i++) {
        compile(source, length, signature, constexprs, &k, &e);
        swageErrorDestroy(e);
    }
    long long after = heap_in_use();
    CHECK(before < 0 || after <= before, "%s: 300 failing compiles kept %lld heap bytes", what,
          after - before);
}

static void test_compile_errors(void)
{
    /* A bool constant as a pointer offset was an internal error whose path
     * leaked the verifier's message (~520 bytes a call). */
    const char *bool_offset = "def k(x_ptr, out_ptr):\n    sl.store(out_ptr, sl.load(x_ptr + True))\n";
    expect_failure_without_leak("x_ptr + True", bool_offset, 0, "x_ptr=*f32,out_ptr=*f32", NULL,
                                SWAGE_ERROR_COMPILE, "not by the bool True");
    const char *overflow = "def k(out_ptr):\n    sl.store(out_ptr, 2 ** 64)\n";
    expect_failure_without_leak("2 ** 64", overflow, 0, "out_ptr=*i64", NULL, SWAGE_ERROR_COMPILE,
                                "overflows 64 bits");
    const char *with_nul = "def k(out_ptr):\n    sl.store(out_ptr, 1)\0\n    sl.store(out_ptr, 2)\n";
    size_t nul_length = 67;
    CHECK(with_nul[40] == 0 && with_nul[nul_length - 1] == '\n', "the NUL test text");
    expect_failure_without_leak("a NUL byte", with_nul, nul_length, "out_ptr=*i32", NULL,
                                SWAGE_ERROR_COMPILE, "NUL byte");
    expect_failure_without_leak("constexpr beyond int64", "def k(out_ptr, N: sl.constexpr):\n    pass\n",
                                0, "out_ptr=*i32", "N=18446744073709551616",
                                SWAGE_ERROR_INVALID_ARGUMENT, "does not fit int64");

    /* Strings, None and tuples in the constexprs string: malformed ones are
     * argument errors naming the constexpr; misuse in the kernel a compile
     * error naming it. */
    const char *takes_s = "def k(out_ptr, S: sl.constexpr):\n    sl.store(out_ptr, len(S))\n";
    const char *bad_values[] = {"S='relu", "S=(1, 2", "S='a\\q'", "S=(1 2)", "S='\\x00'",
                                "S=((((((((((((((((((1))))))))))))))))))", "S=(1,)x"};
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++)
        expect_failure_without_leak(bad_values[i], takes_s, 0, "out_ptr=*i32", bad_values[i],
                                    SWAGE_ERROR_INVALID_ARGUMENT, "constexpr 'S'");
    expect_failure_without_leak("a string as a number",
                                "def k(out_ptr, S: sl.constexpr):\n    sl.store(out_ptr, S * 2)\n",
                                0, "out_ptr=*i32", "S='ab'", SWAGE_ERROR_COMPILE,
                                "(the sl.constexpr 'S')");
    const char *good_values[] = {"S='relu'", "S=\"a,b=c\"", "S=(16, 32)", "S=(1,)", "S=()",
                                 "S=('x', None, 1.5, True, (2, 'y,z'))", "S='it\\'s \\xc3\\xa9'"};
    for (size_t i = 0; i < sizeof good_values / sizeof good_values[0]; i++) {
        swage_kernel *gk;
        swage_error *ge;
        swage_status st = compile(takes_s, 0, "out_ptr=*i32", good_values[i], &gk, &ge);
        CHECK(st == SWAGE_OK, "%s: %s", good_values[i], ge ? swageErrorRendered(ge) : "");
        swageErrorDestroy(ge);
        swageKernelRelease(gk);
    }

    /* The NUL's position, in the user's file. */
    swage_kernel *k;
    swage_error *e;
    compile(with_nul, nul_length, "out_ptr=*i32", NULL, &k, &e);
    CHECK(e && swageErrorLine(e) == 2 && swageErrorColumn(e) == 25, "the NUL is at 2:25, not %d:%d",
          swageErrorLine(e), swageErrorColumn(e));
    swageErrorDestroy(e);
    /* Without source_length the text ends at the NUL, as a C string does;
     * with it, the kernel before the NUL is not found in the cache. */
    CHECK(compile(with_nul, 0, "out_ptr=*i32", NULL, &k, &e) == SWAGE_OK, "up to the NUL compiles");
    swageErrorDestroy(e);
    CHECK(compile(with_nul, nul_length, "out_ptr=*i32", NULL, &k, &e) == SWAGE_ERROR_COMPILE,
          "the whole text does not, after the part compiled");
    swageErrorDestroy(e);
}

/* A float scalar for a float16/bfloat16/float32 parameter that would turn
 * into inf there is refused by every launch; inf and NaN pass. */
static void test_float_arguments(void)
{
    const char *source = "def k(out_ptr, alpha):\n    sl.store(out_ptr, alpha)\n";
    struct {
        const char *type;
        swage_arg alpha;
        swage_status want;
    } cases[] = {
        {"f32", {.kind = SWAGE_ARG_FLOAT, .f = 1e39}, SWAGE_ERROR_INVALID_ARGUMENT},
        {"f32", {.kind = SWAGE_ARG_FLOAT, .f = -3.5e38}, SWAGE_ERROR_INVALID_ARGUMENT},
        {"f32", {.kind = SWAGE_ARG_FLOAT, .f = 3.4e38}, SWAGE_OK},
        {"f32", {.kind = SWAGE_ARG_FLOAT, .f = INFINITY}, SWAGE_OK},
        {"f32", {.kind = SWAGE_ARG_FLOAT, .f = NAN}, SWAGE_OK},
        {"f16", {.kind = SWAGE_ARG_FLOAT, .f = 65520.0}, SWAGE_ERROR_INVALID_ARGUMENT},
        {"f16", {.kind = SWAGE_ARG_FLOAT, .f = 65519.0}, SWAGE_OK},
        {"f16", {.kind = SWAGE_ARG_INT, .i = 100000}, SWAGE_ERROR_INVALID_ARGUMENT},
        {"bf16", {.kind = SWAGE_ARG_FLOAT, .f = 1e39}, SWAGE_ERROR_INVALID_ARGUMENT},
        {"f64", {.kind = SWAGE_ARG_FLOAT, .f = 1e300}, SWAGE_OK},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char signature[64];
        snprintf(signature, sizeof signature, "out_ptr=*%s,alpha=%s", cases[c].type, cases[c].type);
        swage_kernel *k;
        swage_error *e;
        if (compile(source, 0, signature, NULL, &k, &e) != SWAGE_OK) {
            CHECK(false, "compile %s: %s", signature, swageErrorRendered(e));
            swageErrorDestroy(e);
            continue;
        }
        double out[1] = {0};
        swage_arg args[2] = {{.kind = SWAGE_ARG_BUFFER, .data = out, .nelems = 1}, cases[c].alpha};
        int64_t grid[3] = {1, 1, 1};
        swage_status cpu = swageKernelLaunchCpu(k, grid, args, 2, &e);
        CHECK(cpu == cases[c].want, "case %zu (%s): CPU launch status %d, want %d: %s", c,
              cases[c].type, (int)cpu, (int)cases[c].want, e ? swageErrorRendered(e) : "");
        if (e)
            CHECK(strstr(swageErrorMessage(e), "does not fit in") != NULL, "%s", swageErrorMessage(e));
        swageErrorDestroy(e);
        e = NULL;
        swage_status simt = swageKernelLaunchCpuSimt(k, grid, args, 2, &e);
        CHECK(simt == cases[c].want, "case %zu: CPU SIMT launch status %d", c, (int)simt);
        swageErrorDestroy(e);
    }
}

int main(void)
{
    test_compile_errors();
    test_float_arguments();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
