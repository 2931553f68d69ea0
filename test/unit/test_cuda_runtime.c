/* test_cuda_runtime.c - unit tests of the CUDA Driver runtime (src/runtime). Without a driver: every entry point fails cleanly with a message (and a stub or missing $SWAGE_LIBCUDA is named); with one: a hand-written PTX kernel is loaded, launched and checked, and driver errors carry their CUDA_ERROR_ names. SWAGE_EXPECT_GPU=1 (or SWAGE_REQUIRE_GPU=1) makes a missing GPU a failure. Prints "N passed, N failed" last. */
#include "runtime/cuda_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static bool has(const diag *d, const char *text)
{
    return d->message && strstr(d->message, text) != NULL;
}

static const char *msg(const diag *d) { return d->message ? d->message : "(no message)"; }

/* out[gid] = gid * scale for gid = ctaid.x * ntid.x + tid.x < n. At most 256
 * threads per CTA (.maxntid), so a bigger CTA is a driver error. */
static const char ids_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry swage_test_ids(\n"
    "    .param .u64 out,\n"
    "    .param .u32 n,\n"
    "    .param .u32 scale\n"
    ")\n"
    ".maxntid 256, 1, 1\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    ld.param.u32 %r6, [scale];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.u32 %rd3, %r5, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    mul.lo.s32 %r7, %r5, %r6;\n"
    "    st.global.u32 [%rd2], %r7;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

static const char bad_ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry swage_test_bad(.param .u64 out)\n{\n    this is not ptx;\n}\n";

/* Keys: any addresses that live for the process. */
static const int ids_key, bad_key, thread_key;

static cuda_kernel_ref ids_ref(const void *key, unsigned threads)
{
    cuda_kernel_ref r = {.key = key, .ptx = ids_ptx, .entry = "swage_test_ids",
                         .block_threads = threads, .smem_bytes = 0};
    return r;
}

/* ---- without a (usable) driver --------------------------------------------------- */

static void test_no_driver(void)
{
    diag d;
    diag_init(&d);
    CHECK(!cuda_available(&d), "cuda_available is true");
    CHECK(diag_failed(&d) && d.message && *d.message, "no message");
    CHECK(has(&d, "libcuda") || has(&d, "CUDA_ERROR_"), "message names neither libcuda nor "
                                                         "a CUDA error: %s", msg(&d));
    printf("   (cuda_available: %s)\n", msg(&d));
    diag_clear(&d);

    CHECK(cuda_device_count(&d) == -1 && diag_failed(&d), "device count without a driver");
    diag_clear(&d);
    int sm = -7;
    CHECK(!cuda_device_sm(0, &sm, &d) && diag_failed(&d) && sm == -7, "device sm without a driver");
    diag_clear(&d);

    uint32_t value = 5;
    cuda_param params[3] = {{&value}, {&value}, {&value}};
    int64_t grid[3] = {1, 1, 1};
    cuda_kernel_ref ref = ids_ref(&ids_key, 32);
    CHECK(!cuda_launch(&ref, 0, NULL, grid, params, 3, &d), "launch without a driver succeeded");
    CHECK(has(&d, "swage_test_ids") && (has(&d, "libcuda") || has(&d, "CUDA_ERROR_")),
          "launch message: %s", msg(&d));
    diag_clear(&d);
    CHECK(!cuda_function_get(&ref, 0, &d) && has(&d, "swage_test_ids"), "function without a "
          "driver: %s", msg(&d));
    diag_clear(&d);
    CHECK(!cuda_function_launch(NULL, 32, 0, NULL, grid, NULL, 0, &d) && d.kind == DIAG_INTERNAL,
          "launching no function: %s", msg(&d));
    diag_clear(&d);

    uint64_t ptr = 1;
    CHECK(!cuda_mem_alloc(0, 64, &ptr, &d) && diag_failed(&d), "alloc without a driver");
    diag_clear(&d);
    CHECK(!cuda_memcpy_htod(0, 0x1000, &value, 4, &d) && diag_failed(&d), "htod without a driver");
    diag_clear(&d);
    CHECK(!cuda_memcpy_dtoh(0, &value, 0x1000, 4, &d) && diag_failed(&d), "dtoh without a driver");
    diag_clear(&d);
    CHECK(!cuda_synchronize(0, &d) && diag_failed(&d), "synchronize without a driver");
    diag_clear(&d);
    CHECK(!cuda_stream_synchronize(0, NULL, &d) && diag_failed(&d), "stream sync without a driver");
    diag_clear(&d);
    value = 5;
    CHECK(!cuda_stream_read32(0, NULL, 0x1000, &value, &d) && diag_failed(&d) && value == 5,
          "read32 without a driver");
    diag_clear(&d);
    uint32_t words[4] = {5, 5, 5, 5};
    CHECK(!cuda_stream_read(0, NULL, 0x1000, words, sizeof words, &d) && diag_failed(&d) && words[0] == 5,
          "read without a driver");
    diag_clear(&d);
}

/* Runs `check` in a child whose driver is $SWAGE_LIBCUDA=path (the driver
 * is loaded once per process, so each library needs its own process). */
static void in_child_with_driver(const char *path, const char *expect1, const char *expect2)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        CHECK(false, "fork failed");
        return;
    }
    if (pid == 0) {
        setenv("SWAGE_LIBCUDA", path, 1);
        diag d;
        diag_init(&d);
        bool available = cuda_available(&d);
        int code = 0;
        if (available) {
            printf("FAIL: %s loaded as a working driver\n", path);
            code = 1;
        } else if (!has(&d, expect1) || !has(&d, expect2)) {
            printf("FAIL: with SWAGE_LIBCUDA=%s expected '%s' and '%s' in: %s\n", path, expect1,
                   expect2, msg(&d));
            code = 1;
        } else {
            printf("   (SWAGE_LIBCUDA=%s: %s)\n", path, msg(&d));
        }
        diag_clear(&d);
        fflush(stdout);
        _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child for %s: status %d", path, status);
}

static void test_driver_library_choice(void)
{
    in_child_with_driver("/nonexistent/libcuda.so.1", "/nonexistent/libcuda.so.1", "SWAGE_LIBCUDA");
    static const char *stubs[] = {
        "/usr/local/cuda/lib64/stubs/libcuda.so",
        "/usr/local/cuda/lib/stubs/libcuda.so",
        "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so",
    };
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
        if (access(stubs[i], R_OK) == 0) {
            in_child_with_driver(stubs[i], "CUDA_ERROR_STUB_LIBRARY", "cuInit");
            return;
        }
    printf("   (no CUDA stub library on this machine: stub check not run)\n");
}

/* ---- with a GPU ------------------------------------------------------------------- */

enum { N = 1000, POISON = 0x7fc0dead };

static bool read_back(uint64_t buf, uint32_t *host, size_t n, diag *d)
{
    return cuda_synchronize(0, d) && cuda_memcpy_dtoh(0, host, buf, n * sizeof *host, d);
}

static bool poison(uint64_t buf, uint32_t *host, size_t n, diag *d)
{
    for (size_t i = 0; i < n; i++)
        host[i] = POISON;
    return cuda_memcpy_htod(0, buf, host, n * sizeof *host, d);
}

typedef struct thread_job {
    uint64_t buf;
    uint32_t scale;
    bool ok;
    char message[512];
} thread_job;

static void *launch_from_thread(void *arg)
{
    thread_job *job = arg;
    diag d;
    diag_init(&d);
    uint32_t n = N;
    cuda_param params[3] = {{&job->buf}, {&n}, {&job->scale}};
    int64_t grid[3] = {(N + 127) / 128, 1, 1};
    cuda_kernel_ref ref = ids_ref(&thread_key, 128); /* every thread races to load one key */
    job->ok = cuda_launch(&ref, 0, NULL, grid, params, 3, &d) && cuda_stream_synchronize(0, NULL, &d);
    snprintf(job->message, sizeof job->message, "%s", d.message ? d.message : "");
    diag_clear(&d);
    return NULL;
}

static void test_gpu(void)
{
    diag d;
    diag_init(&d);
    int count = cuda_device_count(&d);
    CHECK(count >= 1, "device count %d: %s", count, msg(&d));
    diag_clear(&d);
    int sm = 0;
    CHECK(cuda_device_sm(0, &sm, &d) && sm >= 70, "sm %d: %s", sm, msg(&d));
    printf("   (%d device%s; device 0 is sm_%d)\n", count, count == 1 ? "" : "s", sm);
    diag_clear(&d);
    CHECK(!cuda_device_sm(count + 5, &sm, &d) && has(&d, "does not exist"), "bad device: %s",
          msg(&d));
    diag_clear(&d);

    uint64_t buf = 0;
    if (!cuda_mem_alloc(0, N * sizeof(uint32_t), &buf, &d) || !buf) {
        CHECK(false, "cuda_mem_alloc: %s", msg(&d));
        diag_clear(&d);
        return;
    }
    static uint32_t host[N];
    uint32_t n = N, scale = 3;
    cuda_param params[3] = {{&buf}, {&n}, {&scale}};

    /* a real launch: every element written once, with its id */
    CHECK(poison(buf, host, N, &d), "poison: %s", msg(&d));
    int64_t grid[3] = {(N + 127) / 128, 1, 1};
    cuda_kernel_ref ref = ids_ref(&ids_key, 128);
    CHECK(cuda_launch(&ref, 0, NULL, grid, params, 3, &d), "launch: %s", msg(&d));
    CHECK(read_back(buf, host, N, &d), "read back: %s", msg(&d));
    int bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += host[i] != i * 3;
    CHECK(bad == 0, "%d of %d elements wrong (host[0]=%u host[999]=%u)", bad, N, host[0], host[N - 1]);
    diag_clear(&d);
    /* one word after the stream's work (a checked segment launch's flag), twice:
     * the pinned word is given back */
    for (int i = 0; i < 2; i++) {
        uint32_t word = 0;
        CHECK(cuda_launch(&ref, 0, NULL, grid, params, 3, &d) &&
                  cuda_stream_read32(0, NULL, buf + 4 * (N - 1 - i), &word, &d) && word == (uint32_t)(N - 1 - i) * 3,
              "read32: %u: %s", word, msg(&d));
        diag_clear(&d);
    }
    /* several words at once (a checked launch's header), from a pinned slot */
    {
        uint32_t words[20] = {0};
        CHECK(cuda_launch(&ref, 0, NULL, grid, params, 3, &d) &&
                  cuda_stream_read(0, NULL, buf + 4 * 100, words, sizeof words, &d),
              "read: %s", msg(&d));
        for (int i = 0; i < 20; i++)
            CHECK(words[i] == (uint32_t)(100 + i) * 3, "read: word %d is %u", i, words[i]);
        diag_clear(&d);
    }

    /* a second launch reuses the cached module, with other parameter values */
    scale = 7;
    n = N / 2;
    CHECK(poison(buf, host, N, &d), "poison: %s", msg(&d));
    CHECK(cuda_launch(&ref, 0, NULL, grid, params, 3, &d), "launch 2: %s", msg(&d));
    CHECK(read_back(buf, host, N, &d), "read back 2: %s", msg(&d));
    bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += host[i] != (i < N / 2 ? i * 7 : (uint32_t)POISON);
    CHECK(bad == 0, "second launch: %d elements wrong", bad);
    diag_clear(&d);
    n = N;

    /* the warm path: the function found once, launched with values directly */
    const cuda_function *f = cuda_function_get(&ref, 0, &d);
    CHECK(f && cuda_function_get(&ref, 0, &d) == f, "function: %s", msg(&d));
    CHECK(!f || cuda_function_param_count(f) == 3 || cuda_function_param_count(f) == -1,
          "parameter count %d", cuda_function_param_count(f));
    diag_clear(&d);
    if (f) {
        uint32_t n5 = 500, scale5 = 5;
        void *values[3] = {&buf, &n5, &scale5};
        CHECK(poison(buf, host, N, &d), "poison: %s", msg(&d));
        for (int i = 0; i < 3; i++) /* the same launch three times: the same result */
            CHECK(cuda_function_launch(f, 128, 0, NULL, grid, values, 3, &d), "warm launch: %s",
                  msg(&d));
        CHECK(read_back(buf, host, N, &d), "read back: %s", msg(&d));
        bad = 0;
        for (uint32_t i = 0; i < N; i++)
            bad += host[i] != (i < 500 ? i * 5 : (uint32_t)POISON);
        CHECK(bad == 0, "warm launches: %d elements wrong", bad);
        int64_t tall_warm[3] = {1, 70000, 1};
        CHECK(!cuda_function_launch(f, 128, 0, NULL, tall_warm, values, 3, &d) &&
                  d.kind == DIAG_ARGUMENT && has(&d, "65535"), "tall warm grid: %s", msg(&d));
        diag_clear(&d);
        CHECK(!cuda_function_launch(f, 2048, 0, NULL, grid, values, 3, &d) &&
                  d.kind == DIAG_INTERNAL && has(&d, "threads per CTA"), "2048 threads: %s",
              msg(&d));
        diag_clear(&d);
    }

    /* a grid with a 0 extent launches nothing */
    CHECK(poison(buf, host, N, &d), "poison: %s", msg(&d));
    int64_t empty[3] = {4, 0, 1};
    CHECK(cuda_launch(&ref, 0, NULL, empty, params, 3, &d), "empty grid: %s", msg(&d));
    CHECK(read_back(buf, host, N, &d), "read back: %s", msg(&d));
    bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += host[i] != (uint32_t)POISON;
    CHECK(bad == 0, "an empty grid wrote %d elements", bad);
    diag_clear(&d);

    /* grids beyond the limits: our own error, naming the kernel */
    int64_t tall[3] = {1, 65536, 1};
    CHECK(!cuda_launch(&ref, 0, NULL, tall, params, 3, &d) && d.kind == DIAG_ARGUMENT &&
              has(&d, "grid") && has(&d, "swage_test_ids") && has(&d, "65535"),
          "tall grid: %s", msg(&d));
    diag_clear(&d);
    int64_t wide[3] = {(int64_t)1 << 31, 1, 1};
    CHECK(!cuda_launch(&ref, 0, NULL, wide, params, 3, &d) && has(&d, "grid"), "wide grid: %s",
          msg(&d));
    diag_clear(&d);

    /* a driver error at launch: a CTA above the entry's .maxntid */
    cuda_kernel_ref big = ids_ref(&ids_key, 512);
    CHECK(!cuda_launch(&big, 0, NULL, grid, params, 3, &d) && has(&d, "CUDA_ERROR_") &&
              has(&d, "cuLaunchKernel") && has(&d, "swage_test_ids"),
          "launch above .maxntid: %s", msg(&d));
    printf("   (%s)\n", msg(&d));
    diag_clear(&d);

    /* the parameter count is checked where the driver can tell */
    CHECK(!cuda_launch(&ref, 0, NULL, grid, params, 2, &d) && has(&d, "takes 3 parameters"),
          "two parameters for three: %s", msg(&d));
    diag_clear(&d);

    /* a PTX error carries the driver's JIT log */
    cuda_kernel_ref broken = {.key = &bad_key, .ptx = bad_ptx, .entry = "swage_test_bad",
                              .block_threads = 32};
    CHECK(!cuda_launch(&broken, 0, NULL, grid, params, 1, &d) && has(&d, "CUDA_ERROR_") &&
              has(&d, "cuModuleLoadDataEx") && has(&d, "swage_test_bad") && has(&d, "JIT log"),
          "bad PTX: %s", msg(&d));
    printf("   (%s)\n", msg(&d));
    diag_clear(&d);
    /* ... and a missing entry is named */
    cuda_kernel_ref missing = ids_ref(&ids_key, 32);
    missing.entry = "swage_no_such_entry";
    CHECK(!cuda_launch(&missing, 0, NULL, grid, params, 3, &d) && has(&d, "cuModuleGetFunction") &&
              has(&d, "swage_no_such_entry"), "missing entry: %s", msg(&d));
    diag_clear(&d);
    /* a bad device */
    CHECK(!cuda_launch(&ref, 99, NULL, grid, params, 3, &d) && has(&d, "99"), "device 99: %s",
          msg(&d));
    diag_clear(&d);

    /* the runtime still works after all those errors */
    CHECK(poison(buf, host, N, &d), "poison: %s", msg(&d));
    CHECK(cuda_launch(&ref, 0, NULL, grid, params, 3, &d), "launch after errors: %s", msg(&d));
    CHECK(read_back(buf, host, N, &d), "read back: %s", msg(&d));
    bad = 0;
    for (uint32_t i = 0; i < N; i++)
        bad += host[i] != i * 7;
    CHECK(bad == 0, "after errors: %d elements wrong", bad);
    diag_clear(&d);

    /* threads racing to load one module, each with its own buffer */
    enum { THREADS = 8 };
    pthread_t threads[THREADS];
    thread_job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (thread_job){.scale = (uint32_t)t + 1};
        if (!cuda_mem_alloc(0, N * sizeof(uint32_t), &jobs[t].buf, &d))
            CHECK(false, "alloc: %s", msg(&d));
        diag_clear(&d);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, launch_from_thread, &jobs[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        CHECK(jobs[t].ok, "thread %d: %s", t, jobs[t].message);
        CHECK(cuda_memcpy_dtoh(0, host, jobs[t].buf, sizeof host, &d), "copy: %s", msg(&d));
        bad = 0;
        for (uint32_t i = 0; i < N; i++)
            bad += host[i] != i * jobs[t].scale;
        CHECK(bad == 0, "thread %d: %d elements wrong", t, bad);
        CHECK(cuda_mem_free(0, jobs[t].buf, &d), "free: %s", msg(&d));
        diag_clear(&d);
    }

    CHECK(cuda_mem_free(0, buf, &d), "free: %s", msg(&d));
    CHECK(cuda_mem_free(0, 0, &d), "free(0): %s", msg(&d));
    diag_clear(&d);
}

int main(void)
{
    /* Before this process loads a driver: children try other libraries. */
    test_driver_library_choice();

    diag d;
    diag_init(&d);
    bool available = cuda_available(&d);
    diag_clear(&d);
    /* SWAGE_EXPECT_GPU=1 (or SWAGE_REQUIRE_GPU=1, as test_ptx_gpu reads it) */
    const char *expect = getenv("SWAGE_EXPECT_GPU");
    if (!expect || !*expect)
        expect = getenv("SWAGE_REQUIRE_GPU");
    bool expect_gpu = expect && *expect && strcmp(expect, "0") != 0;
    if (available) {
        printf("   (a CUDA driver is present: running the GPU checks)\n");
        test_gpu();
    } else {
        CHECK(!expect_gpu, "SWAGE_EXPECT_GPU is set but CUDA is not available");
        test_no_driver();
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
