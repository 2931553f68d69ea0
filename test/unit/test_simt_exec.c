/* test_simt_exec.c - unit tests of the CPU SIMT executor (cpu_simt_launch):
 * SIMT modules written as MLIR text, parsed and verified, run on host
 * buffers and compared with plain C loops; and every lowering bug it exists
 * to catch (divergence, shared memory races, out-of-range shared memory,
 * broken vec promises) reported with its exact text. Requires libswage;
 * prints "N passed, N failed" last and exits nonzero on any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "backends/cpu/cpu_exec.h"
#include "passes/passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if ((cond) ? (passed++, false) : (failed++, true))                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__), printf(__VA_ARGS__), printf("\n"); \
    } while (0)

/* A failed launch whose diagnostic has `kind` and exactly `text`; clears d. */
#define EXPECT_ERROR(d, ok, k, text)                                                      \
    do {                                                                                  \
        CHECK(!(ok) && (d).kind == (k) && (d).message && !strcmp((d).message, (text)),    \
              "expected \"%s\", got (kind %d): %s", (text), (int)(d).kind,                \
              (d).message ? (d).message : "(none)");                                      \
        diag_clear(&(d));                                                                 \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}
static float rand_float(void) { return (float)((double)(rng() >> 11) * 0x1p-53 * 200.0 - 100.0); }

static cpu_arg buf(void *data, int64_t n) { return (cpu_arg){.kind = CPU_ARG_BUFFER, .data = data, .nelems = n}; }
static cpu_arg int_arg(int64_t v) { return (cpu_arg){.kind = CPU_ARG_INT, .i = v}; }

/* Parses `text` as "simt.mlir", verifies it unless told not to (tests of
 * the executor's own re-checks), and runs it. A parse or verify failure is
 * a test failure; launch failures are left in d for the caller. */
static bool run_ex(const char *text, int64_t gx, const cpu_arg *args, int nargs, diag *d, bool verify,
                   bool semantic)
{
    arena ar;
    arena_init(&ar);
    source_file src = {"simt.mlir", text, strlen(text), 1};
    diag pd;
    diag_init(&pd);
    ir_module *m = ir_parse_module(&ar, &src, &pd);
    bool ok = false;
    if (!m || (verify && !ir_verify(m, &pd))) {
        CHECK(false, "kernel does not parse or verify: %s", pd.rendered ? pd.rendered : "?");
        diag_error(d, DIAG_COMPILE, "bad test kernel");
    } else {
        int64_t grid[3] = {gx, 1, 1};
        ok = semantic ? cpu_exec_launch(m, grid, args, nargs, d) : cpu_simt_launch(m, grid, args, nargs, d);
    }
    diag_clear(&pd);
    arena_free(&ar);
    return ok;
}

static bool run(const char *text, int64_t gx, const cpu_arg *args, int nargs, diag *d)
{
    return run_ex(text, gx, args, nargs, d, true, false);
}

/* "simt.mlir:L:C" of the first occurrence of `needle` in text (ops are
 * located at their name). */
static const char *where(const char *text, const char *needle, char buf[64])
{
    const char *at = strstr(text, needle);
    int line = 1, col = 1;
    for (const char *p = text; at && p < at; p++)
        if (*p == '\n')
            line++, col = 1;
        else
            col++;
    snprintf(buf, 64, "simt.mlir:%d:%d", line, col);
    return buf;
}

/* ---- vector add: 128 threads x 8 slots, masked tail ---------------------------- */

static const char vector_add[] =
    "func.func @add_kernel(%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %out_ptr: !sw.ptr<f32>, %n: i32)\n"
    "    attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 0 : i32} {\n"
    "  %pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %block = \"sw.constant\"() {value = 1024 : i32} : () -> i32\n"
    "  %base = \"sw.mul\"(%pid, %block) : (i32, i32) -> i32\n"
    "  %idx = \"simt.tile_index\"() {len = 1024 : i32, start = 0 : i32} : () -> vector<8xi32>\n"
    "  %bases = \"sw.splat\"(%base) : (i32) -> vector<8xi32>\n"
    "  %offs = \"sw.add\"(%bases, %idx) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>\n"
    "  %lim = \"sw.splat\"(%n) : (i32) -> vector<8xi32>\n"
    "  %mask = \"sw.cmp\"(%offs, %lim) {predicate = \"lt\"} : (vector<8xi32>, vector<8xi32>) -> vector<8xi1>\n"
    "  %xs = \"sw.splat\"(%x_ptr) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %xp = \"sw.addptr\"(%xs, %offs) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %ys = \"sw.splat\"(%y_ptr) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %yp = \"sw.addptr\"(%ys, %offs) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %os = \"sw.splat\"(%out_ptr) : (!sw.ptr<f32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %op = \"sw.addptr\"(%os, %offs) : (vector<8x!sw.ptr<f32>>, vector<8xi32>) -> vector<8x!sw.ptr<f32>>\n"
    "  %zero = \"sw.constant\"() {value = 0.0 : f32} : () -> vector<8xf32>\n"
    "  %x = \"simt.load\"(%xp, %mask, %zero) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>\n"
    "  %y = \"simt.load\"(%yp, %mask, %zero) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xi1>, vector<8xf32>) -> vector<8xf32>\n"
    "  %sum = \"sw.add\"(%x, %y) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>\n"
    "  \"simt.store\"(%op, %sum, %mask) {vec = 4 : i32} : (vector<8x!sw.ptr<f32>>, vector<8xf32>, vector<8xi1>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static bool vector_add_once(int64_t n, double *seconds)
{
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    float *out = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        x[i] = rand_float(), y[i] = rand_float(), out[i] = -1.0f;
    cpu_arg args[4] = {buf(x, n), buf(y, n), buf(out, n), int_arg(n)};
    diag d;
    diag_init(&d);
    double t0 = now();
    bool ok = run(vector_add, (n + 1023) / 1024, args, 4, &d);
    if (seconds)
        *seconds = now() - t0;
    CHECK(ok, "vector add of %lld: %s", (long long)n, d.message ? d.message : "");
    int64_t bad = -1;
    for (int64_t i = 0; ok && i < n && bad < 0; i++)
        if (out[i] != x[i] + y[i])
            bad = i;
    CHECK(bad < 0, "vector add of %lld: out[%lld] = %g, expected %g", (long long)n, (long long)bad,
          bad >= 0 ? out[bad] : 0.0, bad >= 0 ? x[bad] + y[bad] : 0.0);
    diag_clear(&d);
    free(x), free(y), free(out);
    return ok && bad < 0;
}

static void test_vector_add(void)
{
    vector_add_once(5 * 1024 + 300, NULL); /* a masked tail in the last CTA */
    vector_add_once(1024, NULL);
    vector_add_once(1, NULL);
    vector_add_once(0, NULL);               /* an empty grid runs nothing */
    double best = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double s;
        vector_add_once(1 << 20, &s);
        best = s < best ? s : best;
    }
    printf("SIMT vector add, 2^20 f32, 128 threads x 8 slots: %.1f ms\n", best * 1e3);
    CHECK(best < 1.0, "SIMT vector add of 2^20 takes %.3f s (target well under 1 s)", best);
}

/* ---- tile_index, replication, grid ids, last writer wins ------------------------- */

/* A tile of 64 over 128 threads: V = 1, thread t holds element t mod 64,
 * threads 64.. are copies. Every thread stores its thread id at its
 * element, so element e ends up with the last writer, thread e + 64. */
static const char replicated[] =
    "func.func @k(%out: !sw.ptr<i32>, %idx_out: !sw.ptr<i32>) attributes {simt.num_threads = 128 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %idx = \"simt.tile_index\"() {len = 64 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
    "  %ps = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %p = \"sw.addptr\"(%ps, %idx) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %tids = \"sw.splat\"(%tid) : (i32) -> vector<1xi32>\n"
    "  \"simt.store\"(%p, %tids) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()\n"
    "  %qs = \"sw.splat\"(%idx_out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %q = \"sw.addptr\"(%qs, %tids) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n"
    "  \"simt.store\"(%q, %idx) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* A tile of 1000 elements from 24 over 128 threads x 8 slots: slot j of
 * thread t is 24 + (t mod 125) * 8 + j; every (thread, slot) writes its
 * own lane number t*8+j into a buffer indexed by the tile index, so the
 * last thread holding each element wins. */
static const char tile_v8[] =
    "func.func @k(%out: !sw.ptr<i32>) attributes {simt.num_threads = 128 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %idx = \"simt.tile_index\"() {len = 1000 : i32, start = 24 : i32} : () -> vector<8xi32>\n"
    "  %eight = \"sw.constant\"() {value = 8 : i32} : () -> i32\n"
    "  %t8 = \"sw.mul\"(%tid, %eight) : (i32, i32) -> i32\n"
    "  %t8s = \"sw.splat\"(%t8) : (i32) -> vector<8xi32>\n"
    "  %slot = \"simt.tile_index\"() {len = 8 : i32, start = 0 : i32} : () -> vector<8xi32>\n"
    "  %lane = \"sw.add\"(%t8s, %slot) : (vector<8xi32>, vector<8xi32>) -> vector<8xi32>\n"
    "  %ps = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<8x!sw.ptr<i32>>\n"
    "  %p = \"sw.addptr\"(%ps, %idx) : (vector<8x!sw.ptr<i32>>, vector<8xi32>) -> vector<8x!sw.ptr<i32>>\n"
    "  \"simt.store\"(%p, %lane) {vec = 4 : i32} : (vector<8x!sw.ptr<i32>>, vector<8xi32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static const char grid_ids[] =
    "func.func @k(%out: !sw.ptr<i32>) attributes {simt.num_threads = 32 : i32} {\n"
    "  %x = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %y = \"simt.block_id\"() {axis = 1 : i32} : () -> i32\n"
    "  %z = \"simt.block_id\"() {axis = 2 : i32} : () -> i32\n"
    "  %nx = \"simt.grid_dim\"() {axis = 0 : i32} : () -> i32\n"
    "  %ny = \"simt.grid_dim\"() {axis = 1 : i32} : () -> i32\n"
    "  %nz = \"simt.grid_dim\"() {axis = 2 : i32} : () -> i32\n"
    "  %zy = \"sw.mul\"(%z, %ny) : (i32, i32) -> i32\n"
    "  %zyy = \"sw.add\"(%zy, %y) : (i32, i32) -> i32\n"
    "  %zyx = \"sw.mul\"(%zyy, %nx) : (i32, i32) -> i32\n"
    "  %lin = \"sw.add\"(%zyx, %x) : (i32, i32) -> i32\n"
    "  %c100 = \"sw.constant\"() {value = 100 : i32} : () -> i32\n"
    "  %v1 = \"sw.mul\"(%z, %c100) : (i32, i32) -> i32\n"
    "  %v2 = \"sw.add\"(%v1, %y) : (i32, i32) -> i32\n"
    "  %v3 = \"sw.mul\"(%v2, %c100) : (i32, i32) -> i32\n"
    "  %v4 = \"sw.add\"(%v3, %x) : (i32, i32) -> i32\n"
    "  %v5 = \"sw.mul\"(%nz, %c100) : (i32, i32) -> i32\n"
    "  %v6 = \"sw.add\"(%v5, %ny) : (i32, i32) -> i32\n"
    "  %v7 = \"sw.mul\"(%v6, %c100) : (i32, i32) -> i32\n"
    "  %v8 = \"sw.add\"(%v7, %nx) : (i32, i32) -> i32\n"
    "  %c10000 = \"sw.constant\"() {value = 10000 : i32} : () -> i32\n"
    "  %v9 = \"sw.mul\"(%v8, %c10000) : (i32, i32) -> i32\n"
    "  %val = \"sw.add\"(%v9, %v4) : (i32, i32) -> i32\n"
    "  %two = \"sw.constant\"() {value = 2 : i32} : () -> i32\n"
    "  %l2 = \"sw.mul\"(%lin, %two) : (i32, i32) -> i32\n"
    "  %idx = \"simt.tile_index\"() {len = 2 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
    "  %l2s = \"sw.splat\"(%l2) : (i32) -> vector<1xi32>\n"
    "  %at = \"sw.add\"(%l2s, %idx) : (vector<1xi32>, vector<1xi32>) -> vector<1xi32>\n"
    "  %ps = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %p = \"sw.addptr\"(%ps, %at) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %vals = \"sw.splat\"(%val) : (i32) -> vector<1xi32>\n"
    "  \"simt.store\"(%p, %vals) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static void test_tile_index(void)
{
    diag d;
    diag_init(&d);
    int32_t out[64], idx[128];
    memset(out, 0xff, sizeof out);
    cpu_arg args[2] = {buf(out, 64), buf(idx, 128)};
    bool ok = run(replicated, 1, args, 2, &d);
    CHECK(ok, "replicated tile: %s", d.message ? d.message : "");
    int bad = -1;
    for (int e = 0; ok && e < 64 && bad < 0; e++)
        if (out[e] != e + 64)
            bad = e;
    CHECK(bad < 0, "replicated tile: element %d holds thread %d, expected the last copy %d", bad,
          bad >= 0 ? out[bad] : 0, bad + 64);
    bad = -1;
    for (int t = 0; ok && t < 128 && bad < 0; t++)
        if (idx[t] != t % 64)
            bad = t;
    CHECK(bad < 0, "replicated tile: thread %d holds index %d, expected %d", bad, bad >= 0 ? idx[bad] : 0,
          bad % 64);
    diag_clear(&d);

    int32_t wide[1024];
    memset(wide, 0xff, sizeof wide);
    cpu_arg wargs[1] = {buf(wide, 1024)};
    ok = run(tile_v8, 1, wargs, 1, &d);
    CHECK(ok, "tile of 1000 in 8 slots: %s", d.message ? d.message : "");
    bad = -1;
    for (int e = 0; ok && e < 1024 && bad < 0; e++) {
        int expect = -1;
        if (e >= 24) {
            /* the layout of docs/simt.md: 125 owners, chunks of 4 */
            int rel = e - 24, t = (rel % 500) / 4, j = (rel / 500) * 4 + rel % 4;
            expect = (t + 125 < 128 ? t + 125 : t) * 8 + j; /* threads 125..127 copy 0..2 */
        }
        if (wide[e] != expect)
            bad = e;
    }
    CHECK(bad < 0, "tile of 1000 in 8 slots: element %d is %d", bad, bad >= 0 ? wide[bad] : 0);
    diag_clear(&d);

    /* Block ids row-major with axis 0 fastest; grid_dim is the grid. */
    arena ar;
    arena_init(&ar);
    source_file src = {"simt.mlir", grid_ids, strlen(grid_ids), 1};
    ir_module *m = ir_parse_module(&ar, &src, &d);
    CHECK(m && ir_verify(m, &d), "grid ids kernel: %s", d.message ? d.message : "");
    int32_t ids[2 * 3 * 4 * 5];
    memset(ids, 0, sizeof ids);
    cpu_arg gargs[1] = {buf(ids, 2 * 60)};
    int64_t grid[3] = {3, 4, 5};
    ok = m && cpu_simt_launch(m, grid, gargs, 1, &d);
    CHECK(ok, "grid ids: %s", d.message ? d.message : "");
    bad = -1;
    for (int z = 0; ok && z < 5; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 3; x++) {
                int lin = (z * 4 + y) * 3 + x;
                int32_t expect = 50403 * 10000 + (z * 100 + y) * 100 + x;
                if (bad < 0 && (ids[2 * lin] != expect || ids[2 * lin + 1] != expect))
                    bad = lin;
            }
    CHECK(bad < 0, "grid ids: CTA %d wrote %d", bad, bad >= 0 ? ids[2 * bad] : 0);
    diag_clear(&d);
    arena_free(&ar);
}

/* ---- warp shuffles ----------------------------------------------------------------- */

/* Each thread starts from its value v (lane + 1, or thread id + 1) and
 * adds the xor-shuffled partner at offsets 16..1: every lane of a warp ends
 * with the warp's sum. */
static const char warp_sum[] =
    "func.func @k(%out: !sw.ptr<i32>, %wide: !sw.ptr<i64>) attributes {simt.num_threads = 64 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %c31 = \"sw.constant\"() {value = 31 : i32} : () -> i32\n"
    "  %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "  %lane = \"sw.and\"(%tid, %c31) : (i32, i32) -> i32\n"
    "  %v = \"sw.add\"(%lane, %c1) : (i32, i32) -> i32\n"
    "  %s16 = \"simt.shfl_xor\"(%v) {offset = 16 : i32} : (i32) -> i32\n"
    "  %a16 = \"sw.add\"(%v, %s16) : (i32, i32) -> i32\n"
    "  %s8 = \"simt.shfl_xor\"(%a16) {offset = 8 : i32} : (i32) -> i32\n"
    "  %a8 = \"sw.add\"(%a16, %s8) : (i32, i32) -> i32\n"
    "  %s4 = \"simt.shfl_xor\"(%a8) {offset = 4 : i32} : (i32) -> i32\n"
    "  %a4 = \"sw.add\"(%a8, %s4) : (i32, i32) -> i32\n"
    "  %s2 = \"simt.shfl_xor\"(%a4) {offset = 2 : i32} : (i32) -> i32\n"
    "  %a2 = \"sw.add\"(%a4, %s2) : (i32, i32) -> i32\n"
    "  %s1 = \"simt.shfl_xor\"(%a2) {offset = 1 : i32} : (i32) -> i32\n"
    "  %a1 = \"sw.add\"(%a2, %s1) : (i32, i32) -> i32\n"
    "  %w = \"sw.cast\"(%tid) : (i32) -> i64\n"
    "  %w1 = \"sw.cast\"(%c1) : (i32) -> i64\n"
    "  %wv = \"sw.add\"(%w, %w1) : (i64, i64) -> i64\n"
    "  %t16 = \"simt.shfl_xor\"(%wv) {offset = 16 : i32} : (i64) -> i64\n"
    "  %b16 = \"sw.add\"(%wv, %t16) : (i64, i64) -> i64\n"
    "  %t8 = \"simt.shfl_xor\"(%b16) {offset = 8 : i32} : (i64) -> i64\n"
    "  %b8 = \"sw.add\"(%b16, %t8) : (i64, i64) -> i64\n"
    "  %t4 = \"simt.shfl_xor\"(%b8) {offset = 4 : i32} : (i64) -> i64\n"
    "  %b4 = \"sw.add\"(%b8, %t4) : (i64, i64) -> i64\n"
    "  %t2 = \"simt.shfl_xor\"(%b4) {offset = 2 : i32} : (i64) -> i64\n"
    "  %b2 = \"sw.add\"(%b4, %t2) : (i64, i64) -> i64\n"
    "  %t1 = \"simt.shfl_xor\"(%b2) {offset = 1 : i32} : (i64) -> i64\n"
    "  %b1 = \"sw.add\"(%b2, %t1) : (i64, i64) -> i64\n"
    "  %tids = \"sw.splat\"(%tid) : (i32) -> vector<1xi32>\n"
    "  %ps = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %p = \"sw.addptr\"(%ps, %tids) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n"
    "  %r = \"sw.splat\"(%a1) : (i32) -> vector<1xi32>\n"
    "  \"simt.store\"(%p, %r) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()\n"
    "  %qs = \"sw.splat\"(%wide) : (!sw.ptr<i64>) -> vector<1x!sw.ptr<i64>>\n"
    "  %q = \"sw.addptr\"(%qs, %tids) : (vector<1x!sw.ptr<i64>>, vector<1xi32>) -> vector<1x!sw.ptr<i64>>\n"
    "  %rw = \"sw.splat\"(%b1) : (i64) -> vector<1xi64>\n"
    "  \"simt.store\"(%q, %rw) {vec = 1 : i32} : (vector<1x!sw.ptr<i64>>, vector<1xi64>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static void test_warp_shuffle(void)
{
    diag d;
    diag_init(&d);
    int32_t out[64];
    int64_t wide[64];
    cpu_arg args[2] = {buf(out, 64), buf(wide, 64)};
    bool ok = run(warp_sum, 1, args, 2, &d);
    CHECK(ok, "warp sum: %s", d.message ? d.message : "");
    int bad = -1;
    for (int t = 0; ok && t < 64 && bad < 0; t++)
        if (out[t] != 528 || wide[t] != (t < 32 ? 528 : 1552)) /* 1..32; 33..64 */
            bad = t;
    CHECK(bad < 0, "warp sum: thread %d has %d and %lld", bad, bad >= 0 ? out[bad] : 0,
          bad >= 0 ? (long long)wide[bad] : 0);
    diag_clear(&d);
}

/* ---- a 4-warp CTA reduction through shared memory -------------------------------- */

/* 128 threads x 4 slots reduce 512 i32 per CTA, twice (the second time
 * the total times 3, reusing the same scratch): vreduce, a shuffle tree,
 * lane 0 of each warp to shared[warp], barrier, everyone sums shared[0..3],
 * barrier. Thread 0 stores both totals. %s are the four barriers, so a
 * test can leave one out. */
static const char block_sum_fmt[] =
    "func.func @block_sum(%%x_ptr: !sw.ptr<i32>, %%out: !sw.ptr<i32>, %%n: i32)\n"
    "    attributes {simt.num_threads = 128 : i32, simt.smem_bytes = 16 : i32} {\n"
    "  %%pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %%tid = \"simt.thread_id\"() : () -> i32\n"
    "  %%c512 = \"sw.constant\"() {value = 512 : i32} : () -> i32\n"
    "  %%base = \"sw.mul\"(%%pid, %%c512) : (i32, i32) -> i32\n"
    "  %%idx = \"simt.tile_index\"() {len = 512 : i32, start = 0 : i32} : () -> vector<4xi32>\n"
    "  %%bases = \"sw.splat\"(%%base) : (i32) -> vector<4xi32>\n"
    "  %%offs = \"sw.add\"(%%bases, %%idx) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>\n"
    "  %%lim = \"sw.splat\"(%%n) : (i32) -> vector<4xi32>\n"
    "  %%mask = \"sw.cmp\"(%%offs, %%lim) {predicate = \"lt\"} : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>\n"
    "  %%xs = \"sw.splat\"(%%x_ptr) : (!sw.ptr<i32>) -> vector<4x!sw.ptr<i32>>\n"
    "  %%xp = \"sw.addptr\"(%%xs, %%offs) : (vector<4x!sw.ptr<i32>>, vector<4xi32>) -> vector<4x!sw.ptr<i32>>\n"
    "  %%zero = \"sw.constant\"() {value = 0 : i32} : () -> vector<4xi32>\n"
    "  %%v = \"simt.load\"(%%xp, %%mask, %%zero) {vec = 4 : i32} : (vector<4x!sw.ptr<i32>>, vector<4xi1>, vector<4xi32>) -> vector<4xi32>\n"
    "  %%p0 = \"simt.vreduce\"(%%v) {kind = \"sum\"} : (vector<4xi32>) -> i32\n"
    "  %%s16 = \"simt.shfl_xor\"(%%p0) {offset = 16 : i32} : (i32) -> i32\n"
    "  %%p1 = \"sw.add\"(%%p0, %%s16) : (i32, i32) -> i32\n"
    "  %%s8 = \"simt.shfl_xor\"(%%p1) {offset = 8 : i32} : (i32) -> i32\n"
    "  %%p2 = \"sw.add\"(%%p1, %%s8) : (i32, i32) -> i32\n"
    "  %%s4 = \"simt.shfl_xor\"(%%p2) {offset = 4 : i32} : (i32) -> i32\n"
    "  %%p3 = \"sw.add\"(%%p2, %%s4) : (i32, i32) -> i32\n"
    "  %%s2 = \"simt.shfl_xor\"(%%p3) {offset = 2 : i32} : (i32) -> i32\n"
    "  %%p4 = \"sw.add\"(%%p3, %%s2) : (i32, i32) -> i32\n"
    "  %%s1 = \"simt.shfl_xor\"(%%p4) {offset = 1 : i32} : (i32) -> i32\n"
    "  %%p5 = \"sw.add\"(%%p4, %%s1) : (i32, i32) -> i32\n"
    "  %%c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "  %%c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "  %%c2 = \"sw.constant\"() {value = 2 : i32} : () -> i32\n"
    "  %%c3 = \"sw.constant\"() {value = 3 : i32} : () -> i32\n"
    "  %%c5 = \"sw.constant\"() {value = 5 : i32} : () -> i32\n"
    "  %%c31 = \"sw.constant\"() {value = 31 : i32} : () -> i32\n"
    "  %%lane = \"sw.and\"(%%tid, %%c31) : (i32, i32) -> i32\n"
    "  %%lane0 = \"sw.cmp\"(%%lane, %%c0) {predicate = \"eq\"} : (i32, i32) -> i1\n"
    "  %%warp = \"sw.shr\"(%%tid, %%c5) : (i32, i32) -> i32\n"
    "  \"simt.smem_store\"(%%warp, %%p5, %%lane0) {offset = 0 : i32} : (i32, i32, i1) -> ()\n"
    "%s"
    "  %%w0 = \"simt.smem_load\"(%%c0) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%w1 = \"simt.smem_load\"(%%c1) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%w2 = \"simt.smem_load\"(%%c2) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%w3 = \"simt.smem_load\"(%%c3) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%t1 = \"sw.add\"(%%w0, %%w1) : (i32, i32) -> i32\n"
    "  %%t2 = \"sw.add\"(%%t1, %%w2) : (i32, i32) -> i32\n"
    "  %%total = \"sw.add\"(%%t2, %%w3) : (i32, i32) -> i32\n"
    "%s"
    "  %%q = \"sw.mul\"(%%p5, %%c3) : (i32, i32) -> i32\n"
    "  \"simt.smem_store\"(%%warp, %%q, %%lane0) {offset = 0 : i32} : (i32, i32, i1) -> ()\n"
    "%s"
    "  %%u0 = \"simt.smem_load\"(%%c0) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%u1 = \"simt.smem_load\"(%%c1) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%u2 = \"simt.smem_load\"(%%c2) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%u3 = \"simt.smem_load\"(%%c3) {offset = 0 : i32} : (i32) -> i32\n"
    "  %%v1 = \"sw.add\"(%%u0, %%u1) : (i32, i32) -> i32\n"
    "  %%v2 = \"sw.add\"(%%v1, %%u2) : (i32, i32) -> i32\n"
    "  %%total3 = \"sw.add\"(%%v2, %%u3) : (i32, i32) -> i32\n"
    "%s"
    "  %%zero2 = \"sw.constant\"() {value = 0 : i32} : () -> vector<2xi32>\n"
    "  %%first = \"sw.cmp\"(%%tid, %%c0) {predicate = \"eq\"} : (i32, i32) -> i1\n"
    "  %%firsts = \"sw.splat\"(%%first) : (i1) -> vector<2xi1>\n"
    "  %%two = \"sw.mul\"(%%pid, %%c2) : (i32, i32) -> i32\n"
    "  %%twos = \"sw.splat\"(%%two) : (i32) -> vector<2xi32>\n"
    "  %%j = \"simt.tile_index\"() {len = 2 : i32, start = 0 : i32} : () -> vector<2xi32>\n"
    "  %%at = \"sw.add\"(%%twos, %%j) : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
    "  %%os = \"sw.splat\"(%%out) : (!sw.ptr<i32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %%op = \"sw.addptr\"(%%os, %%at) : (vector<2x!sw.ptr<i32>>, vector<2xi32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %%a = \"sw.splat\"(%%total) : (i32) -> vector<2xi32>\n"
    "  %%b = \"sw.splat\"(%%total3) : (i32) -> vector<2xi32>\n"
    "  %%even = \"sw.cmp\"(%%j, %%zero2) {predicate = \"eq\"} : (vector<2xi32>, vector<2xi32>) -> vector<2xi1>\n"
    "  %%vals = \"sw.select\"(%%even, %%a, %%b) : (vector<2xi1>, vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
    "  \"simt.store\"(%%op, %%vals, %%firsts) {vec = 2 : i32} : (vector<2x!sw.ptr<i32>>, vector<2xi32>, vector<2xi1>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static const char barrier_line[] = "  \"simt.barrier\"() : () -> ()\n";

/* The kernel with barrier `skip` (0..3) left out, or all four (-1). */
static char *block_sum(int skip, char *text, size_t size)
{
    const char *b[4];
    for (int i = 0; i < 4; i++)
        b[i] = i == skip ? "" : barrier_line;
    snprintf(text, size, block_sum_fmt, b[0], b[1], b[2], b[3]);
    return text;
}

static void test_cta_reduction(void)
{
    static char text[16384];
    diag d;
    diag_init(&d);
    enum { N = 512 * 6 + 77 }; /* 7 CTAs, the last one masked */
    int32_t x[N], out[14];
    for (int i = 0; i < N; i++)
        x[i] = (int32_t)(rng() % 2001) - 1000;
    memset(out, 0, sizeof out);
    cpu_arg args[3] = {buf(x, N), buf(out, 14), int_arg(N)};
    bool ok = run(block_sum(-1, text, sizeof text), 7, args, 3, &d);
    CHECK(ok, "CTA reduction: %s", d.message ? d.message : "");
    int bad = -1;
    for (int b = 0; ok && b < 7 && bad < 0; b++) {
        int32_t s = 0;
        for (int i = b * 512; i < N && i < (b + 1) * 512; i++)
            s += x[i];
        if (out[2 * b] != s || out[2 * b + 1] != 3 * s)
            bad = b;
    }
    CHECK(bad < 0, "CTA reduction: CTA %d gave %d, %d", bad, bad >= 0 ? out[2 * bad] : 0,
          bad >= 0 ? out[2 * bad + 1] : 0);
    diag_clear(&d);

    /* Without the first barrier, thread 1 reads shared[0], which thread 0
     * (lane 0 of warp 0) wrote: the classic missing-barrier race. */
    char loc[64], msg[512];
    block_sum(0, text, sizeof text);
    snprintf(msg, sizeof msg,
             "shared memory race: thread 1 reads bytes written by thread 0 without a barrier in between "
             "(byte 0, simt.smem_load at %s)", where(text, "\"simt.smem_load\"", loc));
    ok = run(text, 7, args, 3, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);

    /* Without the second, thread 0 overwrites shared[0] for the second
     * reduction while thread 1 has read it: a write-after-read race. */
    block_sum(1, text, sizeof text);
    const char *second = strstr(strstr(text, "%q = "), "\"simt.smem_store\"");
    snprintf(msg, sizeof msg,
             "shared memory race: thread 0 writes bytes read by thread 1 without a barrier in between "
             "(byte 0, simt.smem_store at %s)", where(text, second, loc));
    ok = run(text, 7, args, 3, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);

    /* The third barrier is the first one of the second reduction. */
    block_sum(2, text, sizeof text);
    ok = run(text, 7, args, 3, &d);
    CHECK(!ok && d.kind == DIAG_INTERNAL && d.message && strstr(d.message, "thread 1 reads bytes written by thread 0"),
          "missing third barrier: %s", d.message ? d.message : "(no error)");
    diag_clear(&d);

    /* The last barrier only protects a reuse that never comes: no race. */
    block_sum(3, text, sizeof text);
    memset(out, 0, sizeof out);
    ok = run(text, 7, args, 3, &d);
    CHECK(ok, "without the trailing barrier: %s", d.message ? d.message : "");
    diag_clear(&d);
}

/* ---- uniform and divergent control flow ------------------------------------------- */

/* A runtime loop carrying a per-thread vector: acc = acc * 0.5 + row r. */
static const char uniform_loop[] =
    "func.func @k(%x: !sw.ptr<f32>, %out: !sw.ptr<f32>, %rows: i32) attributes {simt.num_threads = 32 : i32} {\n"
    "  %idx = \"simt.tile_index\"() {len = 64 : i32, start = 0 : i32} : () -> vector<2xi32>\n"
    "  %c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "  %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "  %c64 = \"sw.constant\"() {value = 64 : i32} : () -> i32\n"
    "  %zero = \"sw.constant\"() {value = 0.0 : f32} : () -> vector<2xf32>\n"
    "  %acc = \"sw.for\"(%c0, %rows, %c1, %zero) ({\n"
    "  ^bb0(%r: i32, %a: vector<2xf32>):\n"
    "    %base = \"sw.mul\"(%r, %c64) : (i32, i32) -> i32\n"
    "    %bs = \"sw.splat\"(%base) : (i32) -> vector<2xi32>\n"
    "    %offs = \"sw.add\"(%bs, %idx) : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
    "    %xs = \"sw.splat\"(%x) : (!sw.ptr<f32>) -> vector<2x!sw.ptr<f32>>\n"
    "    %xp = \"sw.addptr\"(%xs, %offs) : (vector<2x!sw.ptr<f32>>, vector<2xi32>) -> vector<2x!sw.ptr<f32>>\n"
    "    %v = \"simt.load\"(%xp) {vec = 2 : i32} : (vector<2x!sw.ptr<f32>>) -> vector<2xf32>\n"
    "    %half = \"sw.constant\"() {value = 0.5 : f32} : () -> vector<2xf32>\n"
    "    %m = \"sw.mul\"(%a, %half) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>\n"
    "    %n = \"sw.add\"(%m, %v) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>\n"
    "    \"sw.yield\"(%n) : (vector<2xf32>) -> ()\n"
    "  }) : (i32, i32, i32, vector<2xf32>) -> vector<2xf32>\n"
    "  %os = \"sw.splat\"(%out) : (!sw.ptr<f32>) -> vector<2x!sw.ptr<f32>>\n"
    "  %op = \"sw.addptr\"(%os, %idx) : (vector<2x!sw.ptr<f32>>, vector<2xi32>) -> vector<2x!sw.ptr<f32>>\n"
    "  \"simt.store\"(%op, %acc) {vec = 2 : i32} : (vector<2x!sw.ptr<f32>>, vector<2xf32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* Divergent control flow: each thread takes its own branch and its own
 * number of loop iterations; the results are stored per thread. */
#define STORE_TID_RESULT(value)                                                                     \
    "  %os = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"                       \
    "  %ts = \"sw.splat\"(%tid) : (i32) -> vector<1xi32>\n"                                         \
    "  %op = \"sw.addptr\"(%os, %ts) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n" \
    "  %vs = \"sw.splat\"(" value ") : (i32) -> vector<1xi32>\n"                                    \
    "  \"simt.store\"(%op, %vs) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> ()\n"

static const char divergent_if[] =
    "func.func @k(%out: !sw.ptr<i32>) attributes {simt.num_threads = 64 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %c3 = \"sw.constant\"() {value = 3 : i32} : () -> i32\n"
    "  %c100 = \"sw.constant\"() {value = 100 : i32} : () -> i32\n"
    "  %odd = \"sw.and\"(%tid, %c3) : (i32, i32) -> i32\n"
    "  %zero = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "  %lt = \"sw.cmp\"(%odd, %zero) {predicate = \"eq\"} : (i32, i32) -> i1\n"
    "  %r = \"sw.if\"(%lt) ({\n"
    "    %a = \"sw.add\"(%tid, %c100) : (i32, i32) -> i32\n"
    "    \"sw.yield\"(%a) : (i32) -> ()\n"
    "  }, {\n"
    "    \"sw.yield\"(%tid) : (i32) -> ()\n"
    "  }) : (i1) -> i32\n"
    STORE_TID_RESULT("%r")
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* Thread t counts to t: out[t] = t (threads past their last iteration keep
 * their carried value). */
static const char divergent_for[] =
    "func.func @k(%out: !sw.ptr<i32>) attributes {simt.num_threads = 64 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "  %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "  %n = \"sw.for\"(%c0, %tid, %c1, %c0) ({\n"
    "  ^bb0(%i: i32, %acc: i32):\n"
    "    %next = \"sw.add\"(%acc, %c1) : (i32, i32) -> i32\n"
    "    \"sw.yield\"(%next) : (i32) -> ()\n"
    "  }) : (i32, i32, i32, i32) -> i32\n"
    STORE_TID_RESULT("%n")
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* A barrier only half the CTA reaches: a hang on a GPU. */
static const char divergent_barrier[] =
    "func.func @k() attributes {simt.num_threads = 64 : i32} {\n"
    "  %tid = \"simt.thread_id\"() : () -> i32\n"
    "  %c32 = \"sw.constant\"() {value = 32 : i32} : () -> i32\n"
    "  %lt = \"sw.cmp\"(%tid, %c32) {predicate = \"lt\"} : (i32, i32) -> i1\n"
    "  \"sw.if\"(%lt) ({\n"
    "    \"simt.barrier\"() : () -> ()\n"
    "    \"sw.yield\"() : () -> ()\n"
    "  }, {\n"
    "    \"sw.yield\"() : () -> ()\n"
    "  }) : (i1) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* Groups of 8 lanes take different branches; shuffles of width 8 inside a
 * branch are fine (out[t] = sum of the tids of t's group), a shuffle of
 * the whole warp is not. */
#define GROUP_SHUFFLE_KERNEL(width, offset)                                                        \
    "func.func @k(%out: !sw.ptr<i32>) attributes {simt.num_threads = 32 : i32} {\n"               \
    "  %tid = \"simt.thread_id\"() : () -> i32\n"                                                \
    "  %c8 = \"sw.constant\"() {value = 8 : i32} : () -> i32\n"                                  \
    "  %c16 = \"sw.constant\"() {value = 16 : i32} : () -> i32\n"                                \
    "  %g = \"sw.and\"(%tid, %c8) : (i32, i32) -> i32\n"                                          \
    "  %first = \"sw.cmp\"(%g, %c8) {predicate = \"lt\"} : (i32, i32) -> i1\n"                    \
    "  %r = \"sw.if\"(%first) ({\n"                                                              \
    "    %s4 = \"simt.shfl_xor\"(%tid) {offset = " offset " : i32, width = " width " : i32} : (i32) -> i32\n" \
    "    %a4 = \"sw.add\"(%tid, %s4) : (i32, i32) -> i32\n"                                       \
    "    %s2 = \"simt.shfl_xor\"(%a4) {offset = 2 : i32, width = 8 : i32} : (i32) -> i32\n"       \
    "    %a2 = \"sw.add\"(%a4, %s2) : (i32, i32) -> i32\n"                                        \
    "    %s1 = \"simt.shfl_xor\"(%a2) {offset = 1 : i32, width = 8 : i32} : (i32) -> i32\n"       \
    "    %a1 = \"sw.add\"(%a2, %s1) : (i32, i32) -> i32\n"                                        \
    "    \"sw.yield\"(%a1) : (i32) -> ()\n"                                                       \
    "  }, {\n"                                                                                   \
    "    %b = \"simt.shfl_idx\"(%tid) {lane = 3 : i32, width = 8 : i32} : (i32) -> i32\n"         \
    "    \"sw.yield\"(%b) : (i32) -> ()\n"                                                        \
    "  }) : (i1) -> i32\n"                                                                       \
    STORE_TID_RESULT("%r")                                                                       \
    "  \"func.return\"() : () -> ()\n"                                                           \
    "}\n"

static const char group_shuffle[] = GROUP_SHUFFLE_KERNEL("8", "4");
static const char warp_shuffle_in_divergence[] = GROUP_SHUFFLE_KERNEL("32", "16");

static void test_control_flow(void)
{
    diag d;
    diag_init(&d);
    enum { ROWS = 5 };
    float x[ROWS * 64], out[64], expect[64];
    for (int i = 0; i < ROWS * 64; i++)
        x[i] = rand_float();
    for (int e = 0; e < 64; e++) {
        float a = 0.0f;
        for (int r = 0; r < ROWS; r++)
            a = a * 0.5f + x[r * 64 + e];
        expect[e] = a;
    }
    cpu_arg args[3] = {buf(x, ROWS * 64), buf(out, 64), int_arg(ROWS)};
    bool ok = run(uniform_loop, 1, args, 3, &d);
    CHECK(ok && !memcmp(out, expect, sizeof out), "uniform loop with a vector carry: %s",
          d.message ? d.message : "wrong values");
    diag_clear(&d);

    int32_t ints[64];
    cpu_arg iargs[1] = {buf(ints, 64)};
    ok = run(divergent_if, 1, iargs, 1, &d);
    bool right = ok;
    for (int t = 0; t < 64; t++)
        right = right && ints[t] == ((t & 3) == 0 ? t + 100 : t);
    CHECK(right, "divergent sw.if: each thread gets its own branch's result: %s",
          d.message ? d.message : "wrong values");
    diag_clear(&d);
    ok = run(divergent_for, 1, iargs, 1, &d);
    right = ok;
    for (int t = 0; t < 64; t++)
        right = right && ints[t] == t;
    CHECK(right, "divergent sw.for: thread t runs t iterations: %s", d.message ? d.message : "wrong values");
    diag_clear(&d);

    char loc[64], msg[512];
    snprintf(msg, sizeof msg, "simt.barrier at %s is not reached by thread 32 (divergent control flow)",
             where(divergent_barrier, "\"simt.barrier\"", loc));
    ok = run(divergent_barrier, 1, NULL, 0, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);

    ok = run(group_shuffle, 1, iargs, 1, &d);
    right = ok;
    for (int t = 0; t < 32; t++) {
        int base = t & ~7;
        int want = (t & 8) ? base + 3 : 8 * base + 28; /* tids base..base+7 sum to 8*base + 28 */
        right = right && ints[t] == want;
    }
    CHECK(right, "shuffles within groups of 8 lanes in divergent branches: %s",
          d.message ? d.message : "wrong values");
    diag_clear(&d);
    snprintf(msg, sizeof msg, "simt.shfl_xor at %s: thread 0 shuffles within lanes 0..31, but thread 8 "
             "does not run it (divergent control flow)",
             where(warp_shuffle_in_divergence, "\"simt.shfl_xor\"", loc));
    ok = run(warp_shuffle_in_divergence, 1, iargs, 1, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
}

/* ---- global memory errors ---------------------------------------------------------- */

static void test_out_of_bounds(void)
{
    diag d;
    diag_init(&d);
    enum { N = 9 * 1024, SHORT = 8 * 1024 + 512 + 17 * 4 + 3 };
    float *x = calloc(N, sizeof(float)), *y = calloc(N, sizeof(float)), *out = calloc(N, sizeof(float));
    /* Every lane of CTA 8 is active; x ends before slot 7 of thread 17 (the
     * second chunk of the layout: element 8192 + 512 + 4 * 17 + 3). */
    cpu_arg args[4] = {buf(x, SHORT), buf(y, N), buf(out, N), int_arg(N)};
    bool ok = run(vector_add, 9, args, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME,
                 "simt.load out of bounds: element 8775 of argument 0 ('x_ptr', 8775 elements) in "
                 "program (8, 0, 0), thread 17");
    CHECK(d.kind == DIAG_NONE, "diag cleared");

    /* A failing store writes nothing of its CTA. */
    for (int i = 0; i < N; i++)
        out[i] = -7.0f;
    cpu_arg sargs[4] = {buf(x, N), buf(y, N), buf(out, SHORT), int_arg(N)};
    ok = run(vector_add, 9, sargs, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_RUNTIME,
                 "simt.store out of bounds: element 8775 of argument 2 ('out_ptr', 8775 elements) in "
                 "program (8, 0, 0), thread 17");
    CHECK(out[0] == -7.0f && out[8 * 1024 - 1] == -7.0f && out[8 * 1024] == -7.0f && out[SHORT - 1] == -7.0f,
          "CTAs 0..7 stored, then the failed launch put everything back: %g %g %g %g", out[0],
          out[8 * 1024 - 1], out[8 * 1024], out[SHORT - 1]);

    /* Arguments are the semantic executor's. */
    ok = run(vector_add, 1, args, 3, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "kernel 'add_kernel' takes 4 arguments, got 3");
    cpu_arg bad[4] = {buf(x, N), int_arg(1), buf(out, N), int_arg(N)};
    ok = run(vector_add, 1, bad, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT,
                 "argument 1 ('y_ptr') must be a buffer for parameter type !sw.ptr<f32>, got an integer");
    free(x), free(y), free(out);
}

/* vec = 2 over addresses 2 apart. */
static const char broken_vec[] =
    "func.func @k(%x: !sw.ptr<i32>) attributes {simt.num_threads = 32 : i32} {\n"
    "  %idx = \"simt.tile_index\"() {len = 64 : i32, start = 0 : i32} : () -> vector<2xi32>\n"
    "  %two = \"sw.constant\"() {value = 2 : i32} : () -> vector<2xi32>\n"
    "  %offs = \"sw.mul\"(%idx, %two) : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
    "  %xs = \"sw.splat\"(%x) : (!sw.ptr<i32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %xp = \"sw.addptr\"(%xs, %offs) : (vector<2x!sw.ptr<i32>>, vector<2xi32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %v = \"simt.load\"(%xp) {vec = 2 : i32} : (vector<2x!sw.ptr<i32>>) -> vector<2xi32>\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* x < n with x ascending in each group of 2 slots: all set exactly when
 * the last bit is; vec_mask = "first" is a broken promise (with n = 1,
 * slot 0 of thread 0 is set, slot 1 is not). The true one, "last", runs. */
static const char vec_mask_fmt[] =
    "func.func @k(%%x: !sw.ptr<i32>, %%n: i32) attributes {simt.num_threads = 32 : i32} {\n"
    "  %%idx = \"simt.tile_index\"() {len = 64 : i32, start = 0 : i32} : () -> vector<2xi32>\n"
    "  %%ns = \"sw.splat\"(%%n) : (i32) -> vector<2xi32>\n"
    "  %%m = \"sw.cmp\"(%%idx, %%ns) {predicate = \"lt\"} : (vector<2xi32>, vector<2xi32>) -> vector<2xi1>\n"
    "  %%zero = \"sw.constant\"() {value = 0 : i32} : () -> vector<2xi32>\n"
    "  %%xs = \"sw.splat\"(%%x) : (!sw.ptr<i32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %%xp = \"sw.addptr\"(%%xs, %%idx) : (vector<2x!sw.ptr<i32>>, vector<2xi32>) -> vector<2x!sw.ptr<i32>>\n"
    "  %%v = \"simt.load\"(%%xp, %%m, %%zero) {vec = 2 : i32, vec_mask = \"%s\"} : (vector<2x!sw.ptr<i32>>, vector<2xi1>, vector<2xi32>) -> vector<2xi32>\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* vec_all with a mask ascending within each group of 2 but not across the
 * thread's slots (x = idx ^ 2: slots 4t+2, 4t+3, 4t, 4t+1): with n = 2,
 * thread 0's last bit is set while its first group is not all set. */
static const char broken_vec_all[] =
    "func.func @k(%x: !sw.ptr<i32>, %n: i32) attributes {simt.num_threads = 32 : i32} {\n"
    "  %idx = \"simt.tile_index\"() {len = 128 : i32, start = 0 : i32} : () -> vector<4xi32>\n"
    "  %two = \"sw.constant\"() {value = 2 : i32} : () -> vector<4xi32>\n"
    "  %v = \"sw.xor\"(%idx, %two) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>\n"
    "  %ns = \"sw.splat\"(%n) : (i32) -> vector<4xi32>\n"
    "  %m = \"sw.cmp\"(%v, %ns) {predicate = \"lt\"} : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>\n"
    "  %zero = \"sw.constant\"() {value = 0 : i32} : () -> vector<4xi32>\n"
    "  %xs = \"sw.splat\"(%x) : (!sw.ptr<i32>) -> vector<4x!sw.ptr<i32>>\n"
    "  %xp = \"sw.addptr\"(%xs, %idx) : (vector<4x!sw.ptr<i32>>, vector<4xi32>) -> vector<4x!sw.ptr<i32>>\n"
    "  %r = \"simt.load\"(%xp, %m, %zero) {vec = 2 : i32, vec_all = true, vec_mask = \"last\"} : (vector<4x!sw.ptr<i32>>, vector<4xi1>, vector<4xi32>) -> vector<4xi32>\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static void test_vec_promise(void)
{
    diag d;
    diag_init(&d);
    int32_t x[128] = {0};
    cpu_arg args[1] = {buf(x, 128)};
    char loc[64], msg[512];
    snprintf(msg, sizeof msg,
             "simt.load breaks its vec = 2 promise at %s: slots 0..1 of thread 0 do not address "
             "consecutive elements of one buffer", where(broken_vec, "\"simt.load\"", loc));
    bool ok = run(broken_vec, 1, args, 1, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);

    char ir[2048];
    snprintf(ir, sizeof ir, vec_mask_fmt, "first");
    cpu_arg margs[2] = {buf(x, 128), int_arg(1)};
    snprintf(msg, sizeof msg,
             "simt.load breaks its vec_mask = \"first\" promise at %s: the mask of slots 0..1 of thread 0 "
             "is not all set while slot 0's bit is set", where(ir, "\"simt.load\"", loc));
    ok = run(ir, 1, margs, 2, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    cpu_arg aargs[2] = {buf(x, 128), int_arg(2)};
    snprintf(msg, sizeof msg,
             "simt.load breaks its vec_all promise at %s: the mask of thread 0 is not all set while slot "
             "3's bit is set", where(broken_vec_all, "\"simt.load\"", loc));
    ok = run(broken_vec_all, 1, aargs, 2, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    snprintf(ir, sizeof ir, vec_mask_fmt, "last");
    for (int32_t n = 0; n <= 64; n += 7) {
        cpu_arg nargs[2] = {buf(x, 128), int_arg(n)};
        ok = run(ir, 1, nargs, 2, &d);
        CHECK(ok, "vec_mask = \"last\" with n = %d: %s", (int)n, d.message ? d.message : "");
        diag_clear(&d);
    }
}

/* ---- shared memory ------------------------------------------------------------------- */

/* Threads below 16 store tid * 0.5 as f16 at shared[tid]; after a barrier
 * every thread reads shared[tid mod 16] (or shared[tid] with READ_OWN,
 * which threads 16.. never wrote). CTA 1 stores nothing when
 * ONLY_FIRST_CTA. */
static const char smem_fmt[] =
    "func.func @k(%%out: !sw.ptr<f32>) attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 128 : i32} {\n"
    "  %%tid = \"simt.thread_id\"() : () -> i32\n"
    "  %%pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %%c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "  %%c15 = \"sw.constant\"() {value = 15 : i32} : () -> i32\n"
    "  %%c16 = \"sw.constant\"() {value = 16 : i32} : () -> i32\n"
    "  %%low = \"sw.cmp\"(%%tid, %%c16) {predicate = \"lt\"} : (i32, i32) -> i1\n"
    "  %%first = \"sw.cmp\"(%%pid, %%c0) {predicate = \"%s\"} : (i32, i32) -> i1\n"
    "  %%mask = \"sw.and\"(%%low, %%first) : (i1, i1) -> i1\n"
    "  %%tf = \"sw.cast\"(%%tid) : (i32) -> f16\n"
    "  %%half = \"sw.constant\"() {value = 0.5 : f16} : () -> f16\n"
    "  %%val = \"sw.mul\"(%%tf, %%half) : (f16, f16) -> f16\n"
    "  \"simt.smem_store\"(%%tid, %%val, %%mask) {offset = 32 : i32} : (i32, f16, i1) -> ()\n"
    "  \"simt.barrier\"() : () -> ()\n"
    "  %%mod = \"sw.and\"(%%tid, %%c15) : (i32, i32) -> i32\n"
    "  %%at = \"sw.%s\"(%%mod, %%tid) : (i32, i32) -> i32\n"
    "  %%r = \"simt.smem_load\"(%%at) {offset = 32 : i32} : (i32) -> f16\n"
    "  %%rf = \"sw.cast\"(%%r) : (f16) -> f32\n"
    "  %%linear = \"sw.mul\"(%%pid, %%c16) : (i32, i32) -> i32\n"
    "  %%l2 = \"sw.add\"(%%linear, %%linear) : (i32, i32) -> i32\n"
    "  %%idx = \"simt.tile_index\"() {len = 32 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
    "  %%l2s = \"sw.splat\"(%%l2) : (i32) -> vector<1xi32>\n"
    "  %%offs = \"sw.add\"(%%l2s, %%idx) : (vector<1xi32>, vector<1xi32>) -> vector<1xi32>\n"
    "  %%os = \"sw.splat\"(%%out) : (!sw.ptr<f32>) -> vector<1x!sw.ptr<f32>>\n"
    "  %%op = \"sw.addptr\"(%%os, %%offs) : (vector<1x!sw.ptr<f32>>, vector<1xi32>) -> vector<1x!sw.ptr<f32>>\n"
    "  %%rv = \"sw.splat\"(%%rf) : (f32) -> vector<1xf32>\n"
    "  \"simt.store\"(%%op, %%rv) {vec = 1 : i32} : (vector<1x!sw.ptr<f32>>, vector<1xf32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* Thread t stores at shared[t + 8] in a 64-byte buffer of f32 (thread 8
 * is the first past the end), or loads shared[t - 1]. */
static const char smem_range_fmt[] =
    "func.func @k() attributes {simt.num_threads = 32 : i32, simt.smem_bytes = 64 : i32} {\n"
    "  %%tid = \"simt.thread_id\"() : () -> i32\n"
    "  %%c = \"sw.constant\"() {value = %d : i32} : () -> i32\n"
    "  %%i = \"sw.add\"(%%tid, %%c) : (i32, i32) -> i32\n"
    "  %%v = \"sw.cast\"(%%tid) : (i32) -> f32\n"
    "  %s\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static void test_shared_memory(void)
{
    static char text[8192];
    diag d;
    diag_init(&d);
    float out[64];
    cpu_arg args[1] = {buf(out, 64)};
    /* Masked stores write only where the mask is set; every CTA starts
     * from its own shared memory. */
    snprintf(text, sizeof text, smem_fmt, "ge", "and");
    bool ok = run(text, 2, args, 1, &d);
    int bad = -1;
    for (int i = 0; ok && i < 64 && bad < 0; i++)
        if (out[i] != (float)(i % 16) * 0.5f)
            bad = i;
    CHECK(ok && bad < 0, "masked f16 shared memory: %s (element %d)", d.message ? d.message : "", bad);
    diag_clear(&d);

    char loc[64], msg[512];
    snprintf(text, sizeof text, smem_fmt, "ge", "or");  /* tid | (tid & 15) == tid */
    snprintf(msg, sizeof msg,
             "simt.smem_load at %s: thread 16 of CTA (0, 0, 0) reads shared memory byte 64, which no "
             "thread of that CTA wrote", where(text, "\"simt.smem_load\"", loc));
    ok = run(text, 2, args, 1, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    /* CTA 1 stores nothing, and must not see what CTA 0 stored. */
    snprintf(text, sizeof text, smem_fmt, "eq", "and");
    snprintf(msg, sizeof msg,
             "simt.smem_load at %s: thread 0 of CTA (1, 0, 0) reads shared memory byte 32, which no "
             "thread of that CTA wrote", where(text, "\"simt.smem_load\"", loc));
    ok = run(text, 2, args, 1, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);

    snprintf(text, sizeof text, smem_range_fmt, 8,
             "\"simt.smem_store\"(%i, %v) {offset = 0 : i32} : (i32, f32) -> ()");
    snprintf(msg, sizeof msg,
             "simt.smem_store out of shared memory at %s: thread 8 accesses bytes 64..67, outside the "
             "64 bytes of simt.smem_bytes", where(text, "\"simt.smem_store\"", loc));
    ok = run(text, 1, NULL, 0, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    snprintf(text, sizeof text, smem_range_fmt, -1,
             "%r = \"simt.smem_load\"(%i) {offset = 0 : i32} : (i32) -> f32");
    snprintf(msg, sizeof msg,
             "simt.smem_load out of shared memory at %s: thread 0 accesses bytes -4..-1, outside the "
             "64 bytes of simt.smem_bytes", where(text, "\"simt.smem_load\"", loc));
    ok = run(text, 1, NULL, 0, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    /* Threads may write one shared address between barriers only with one
     * value: thread 1 writes 1.0f (bytes 00 00 80 3f) over thread 0's 0.0f. */
    snprintf(text, sizeof text, smem_range_fmt, 0,
             "\"simt.smem_store\"(%c, %v) {offset = 0 : i32} : (i32, f32) -> ()");
    snprintf(msg, sizeof msg,
             "shared memory race: thread 1 writes other values to bytes written by thread 0 without a "
             "barrier in between (byte 2, simt.smem_store at %s)", where(text, "\"simt.smem_store\"", loc));
    ok = run(text, 1, NULL, 0, &d);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
    snprintf(text, sizeof text, smem_range_fmt, 0,
             "\"simt.smem_store\"(%c, %c) {offset = 0 : i32} : (i32, i32) -> ()");
    ok = run(text, 1, NULL, 0, &d);
    CHECK(ok, "every thread writing the same value is no race: %s", d.message ? d.message : "");
    diag_clear(&d);
    /* The verifier rejects a misaligned offset; the executor re-checks. */
    snprintf(text, sizeof text, smem_range_fmt, 0,
             "\"simt.smem_store\"(%i, %v) {offset = 2 : i32} : (i32, f32) -> ()");
    snprintf(msg, sizeof msg,
             "simt.smem_store misaligned at %s: thread 0 accesses bytes 2..5, not aligned to 4",
             where(text, "\"simt.smem_store\"", loc));
    ok = run_ex(text, 1, NULL, 0, &d, false, false);
    EXPECT_ERROR(d, ok, DIAG_INTERNAL, msg);
}

/* ---- vreduce ---------------------------------------------------------------------------- */

static const char vreduce_fmt[] =
    "func.func @k(%%x: !sw.ptr<%s>, %%out: !sw.ptr<%s>) attributes {simt.num_threads = 32 : i32} {\n"
    "  %%idx = \"simt.tile_index\"() {len = 128 : i32, start = 0 : i32} : () -> vector<4xi32>\n"
    "  %%xs = \"sw.splat\"(%%x) : (!sw.ptr<%s>) -> vector<4x!sw.ptr<%s>>\n"
    "  %%xp = \"sw.addptr\"(%%xs, %%idx) : (vector<4x!sw.ptr<%s>>, vector<4xi32>) -> vector<4x!sw.ptr<%s>>\n"
    "  %%v = \"simt.load\"(%%xp) {vec = 4 : i32} : (vector<4x!sw.ptr<%s>>) -> vector<4x%s>\n"
    "  %%r = \"simt.vreduce\"(%%v) {kind = \"%s\"} : (vector<4x%s>) -> %s\n"
    "  %%one = \"simt.tile_index\"() {len = 32 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
    "  %%os = \"sw.splat\"(%%out) : (!sw.ptr<%s>) -> vector<1x!sw.ptr<%s>>\n"
    "  %%op = \"sw.addptr\"(%%os, %%one) : (vector<1x!sw.ptr<%s>>, vector<1xi32>) -> vector<1x!sw.ptr<%s>>\n"
    "  %%rs = \"sw.splat\"(%%r) : (%s) -> vector<1x%s>\n"
    "  \"simt.store\"(%%op, %%rs) {vec = 1 : i32} : (vector<1x!sw.ptr<%s>>, vector<1x%s>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static bool run_vreduce(const char *dt, const char *kind, void *x, void *out)
{
    static char text[8192];
    snprintf(text, sizeof text, vreduce_fmt, dt, dt, dt, dt, dt, dt, dt, dt, kind, dt, dt, dt, dt, dt, dt,
             dt, dt, dt, dt);
    diag d;
    diag_init(&d);
    cpu_arg args[2] = {buf(x, 128), buf(out, 32)};
    bool ok = run(text, 1, args, 2, &d);
    CHECK(ok, "vreduce %s on %s: %s", kind, dt, d.message ? d.message : "");
    diag_clear(&d);
    return ok;
}

static void test_vreduce(void)
{
    float x[128], out[32];
    for (int i = 0; i < 128; i++)
        x[i] = rand_float();
    /* f32 additions would lose both ones; double accumulation keeps them. */
    x[0] = 16777216.0f, x[1] = 1.0f, x[2] = 1.0f, x[3] = -16777216.0f;
    static const char *const kinds[] = {"sum", "prod", "max", "min"};
    for (int k = 0; k < 4; k++) {
        if (!run_vreduce("f32", kinds[k], x, out))
            continue;
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++) {
            const float *s = x + 4 * t;
            double acc = k == 1 ? 1.0 : 0.0;
            float m = s[0];
            for (int j = 0; j < 4; j++) {
                acc = k == 0 ? acc + s[j] : acc * s[j];
                m = k == 2 ? fmaxf(m, s[j]) : fminf(m, s[j]);
            }
            float expect = k < 2 ? (float)acc : m;
            if (memcmp(&out[t], &expect, sizeof expect))
                bad = t;
        }
        CHECK(bad < 0, "vreduce %s f32: thread %d gave %g", kinds[k], bad, bad >= 0 ? out[bad] : 0.0);
    }
    run_vreduce("f32", "sum", x, out);
    CHECK(out[0] == 2.0f, "f32 vreduce sum accumulates in double and rounds once: %g", out[0]);

    int32_t xi[128], oi[32];
    for (int i = 0; i < 128; i++)
        xi[i] = (int32_t)(rng() & 0xffffffffu);
    for (int k = 0; k < 4; k++) {
        if (!run_vreduce("i32", kinds[k], xi, oi))
            continue;
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++) {
            uint32_t acc = k == 1 ? 1u : 0u;
            int32_t m = xi[4 * t];
            for (int j = 0; j < 4; j++) {
                int32_t v = xi[4 * t + j];
                acc = k == 0 ? acc + (uint32_t)v : acc * (uint32_t)v;
                m = k == 2 ? (v > m ? v : m) : (v < m ? v : m);
            }
            int32_t expect = k < 2 ? (int32_t)((int64_t)acc - (acc >= 0x80000000u ? 0x100000000LL : 0)) : m;
            if (oi[t] != expect)
                bad = t;
        }
        CHECK(bad < 0, "vreduce %s i32: thread %d gave %d", kinds[k], bad, bad >= 0 ? oi[bad] : 0);
    }
}

/* ---- levels and attributes --------------------------------------------------------------- */

static const char semantic_kernel[] =
    "func.func @k(%out: !sw.ptr<i32>) {\n"
    "  %pid = \"sw.program_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %p = \"sw.addptr\"(%out, %pid) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>\n"
    "  \"sw.store\"(%p, %pid) : (!sw.ptr<i32>, i32) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

static void test_levels(void)
{
    diag d;
    diag_init(&d);
    int32_t out[4] = {0};
    cpu_arg args[1] = {buf(out, 4)};
    bool ok = run(semantic_kernel, 4, args, 1, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "kernel 'k' is not a SIMT program: its func.func has no simt.num_threads");
    ok = run_ex(semantic_kernel, 4, args, 1, &d, true, true);
    CHECK(ok && out[3] == 3, "the semantic executor still runs semantic IR: %s", d.message ? d.message : "");
    diag_clear(&d);
    /* A SIMT module on the semantic executor is a caller's bug. */
    float f[4] = {0};
    cpu_arg vargs[4] = {buf(f, 4), buf(f, 4), buf(f, 4), int_arg(4)};
    ok = run_ex(vector_add, 1, vargs, 4, &d, true, true);
    CHECK(!ok && d.kind == DIAG_INTERNAL && d.message && strstr(d.message, "SIMT op in a semantic program"),
          "SIMT IR on the semantic executor: %s", d.message ? d.message : "(no error)");
    diag_clear(&d);
    /* Launch arguments. */
    int64_t grid[3] = {1, -1, 1};
    arena ar;
    arena_init(&ar);
    source_file src = {"simt.mlir", vector_add, strlen(vector_add), 1};
    ir_module *m = ir_parse_module(&ar, &src, &d);
    ok = m && cpu_simt_launch(m, grid, vargs, 4, &d);
    EXPECT_ERROR(d, ok, DIAG_ARGUMENT, "grid[1] is -1; grid sizes must be between 0 and 2147483647");
    arena_free(&ar);
}

/* ---- sw.segment_index and the warp gather ---------------------------------------------- */

/* Four programs of one warp in a CTA of 128 (the flat kernels' layout):
 * program p finds the segment of each of the N positions from base[p]
 * among its 64 ends (ends[64 p ..], from start[p], skip flags), and gathers
 * its segment's value (0 where none). */
static const char segment_index_kernel[] =
    "func.func @k(%ends_p: !sw.ptr<i32>, %skip_p: !sw.ptr<i32>, %vals_p: !sw.ptr<f32>, %pos_p: !sw.ptr<i32>,\n"
    "             %idx_p: !sw.ptr<i32>, %got_p: !sw.ptr<f32>) attributes {sw.block_threads = 128 : i32, "
    "sw.program_threads = 32 : i32} {\n"
    "  %pid = \"sw.program_id\"() {axis = 0 : i32} : () -> i32\n"
    "  %c64 = \"sw.constant\"() {value = 64 : i32} : () -> i32\n"
    "  %first = \"sw.mul\"(%pid, %c64) : (i32, i32) -> i32\n"
    "  %k = \"sw.arange\"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi32>\n"
    "  %fs = \"sw.splat\"(%first) : (i32) -> tensor<64xi32>\n"
    "  %kk = \"sw.add\"(%k, %fs) : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>\n"
    "  %ep = \"sw.splat\"(%ends_p) : (!sw.ptr<i32>) -> tensor<64x!sw.ptr<i32>>\n"
    "  %epp = \"sw.addptr\"(%ep, %kk) : (tensor<64x!sw.ptr<i32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<i32>>\n"
    "  %ends = \"sw.load\"(%epp) : (tensor<64x!sw.ptr<i32>>) -> tensor<64xi32>\n"
    "  %sp = \"sw.splat\"(%skip_p) : (!sw.ptr<i32>) -> tensor<64x!sw.ptr<i32>>\n"
    "  %spp = \"sw.addptr\"(%sp, %kk) : (tensor<64x!sw.ptr<i32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<i32>>\n"
    "  %skipi = \"sw.load\"(%spp) : (tensor<64x!sw.ptr<i32>>) -> tensor<64xi32>\n"
    "  %z64 = \"sw.constant\"() {value = 0 : i32} : () -> tensor<64xi32>\n"
    "  %skip = \"sw.cmp\"(%skipi, %z64) {predicate = \"ne\"} : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>\n"
    "  %vp = \"sw.splat\"(%vals_p) : (!sw.ptr<f32>) -> tensor<64x!sw.ptr<f32>>\n"
    "  %vpp = \"sw.addptr\"(%vp, %kk) : (tensor<64x!sw.ptr<f32>>, tensor<64xi32>) -> tensor<64x!sw.ptr<f32>>\n"
    "  %vals = \"sw.load\"(%vpp) : (tensor<64x!sw.ptr<f32>>) -> tensor<64xf32>\n"
    "  %c2 = \"sw.constant\"() {value = 2 : i32} : () -> i32\n"
    "  %two = \"sw.mul\"(%pid, %c2) : (i32, i32) -> i32\n"
    "  %bp = \"sw.addptr\"(%pos_p, %two) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>\n"
    "  %base = \"sw.load\"(%bp) : (!sw.ptr<i32>) -> i32\n"
    "  %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "  %two1 = \"sw.add\"(%two, %c1) : (i32, i32) -> i32\n"
    "  %stp = \"sw.addptr\"(%pos_p, %two1) : (!sw.ptr<i32>, i32) -> !sw.ptr<i32>\n"
    "  %start = \"sw.load\"(%stp) : (!sw.ptr<i32>) -> i32\n"
    "  %idx = \"sw.segment_index\"(%base, %ends, %start, %skip) : (i32, tensor<64xi32>, i32, tensor<64xi1>) -> "
    "tensor<NNNxi32>\n"
    "  %zero = \"sw.constant\"() {value = 0 : i32} : () -> tensor<NNNxi32>\n"
    "  %safe = \"sw.maximum\"(%idx, %zero) : (tensor<NNNxi32>, tensor<NNNxi32>) -> tensor<NNNxi32>\n"
    "  %got = \"sw.gather\"(%vals, %safe) : (tensor<64xf32>, tensor<NNNxi32>) -> tensor<NNNxf32>\n"
    "  %cn = \"sw.constant\"() {value = NNN : i32} : () -> i32\n"
    "  %at = \"sw.mul\"(%pid, %cn) : (i32, i32) -> i32\n"
    "  %ats = \"sw.splat\"(%at) : (i32) -> tensor<NNNxi32>\n"
    "  %i = \"sw.arange\"() {start = 0 : i32, end = NNN : i32} : () -> tensor<NNNxi32>\n"
    "  %ii = \"sw.add\"(%i, %ats) : (tensor<NNNxi32>, tensor<NNNxi32>) -> tensor<NNNxi32>\n"
    "  %ip = \"sw.splat\"(%idx_p) : (!sw.ptr<i32>) -> tensor<NNNx!sw.ptr<i32>>\n"
    "  %ipp = \"sw.addptr\"(%ip, %ii) : (tensor<NNNx!sw.ptr<i32>>, tensor<NNNxi32>) -> tensor<NNNx!sw.ptr<i32>>\n"
    "  \"sw.store\"(%ipp, %idx) : (tensor<NNNx!sw.ptr<i32>>, tensor<NNNxi32>) -> ()\n"
    "  %gp = \"sw.splat\"(%got_p) : (!sw.ptr<f32>) -> tensor<NNNx!sw.ptr<f32>>\n"
    "  %gpp = \"sw.addptr\"(%gp, %ii) : (tensor<NNNx!sw.ptr<f32>>, tensor<NNNxi32>) -> tensor<NNNx!sw.ptr<f32>>\n"
    "  \"sw.store\"(%gpp, %got) : (tensor<NNNx!sw.ptr<f32>>, tensor<NNNxf32>) -> ()\n"
    "  \"func.return\"() : () -> ()\n"
    "}\n";

/* The kernel's text for rows of n (NNN replaced). */
static char *segment_index_text(int n)
{
    size_t size = sizeof segment_index_kernel + 256;
    char *out = malloc(size), *w = out;
    char num[16];
    snprintf(num, sizeof num, "%d", n);
    for (const char *r = segment_index_kernel; *r;) {
        if (!strncmp(r, "NNN", 3)) {
            w += sprintf(w, "%s", num);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
    return out;
}

/* Runs it on the semantic executor (lower = false: 4 programs) or lowered
 * by lower-simt on the SIMT executor (one CTA of four warps). */
static bool run_segment_index(const char *text, bool lower, cpu_arg *args, diag *d)
{
    arena ar;
    arena_init(&ar);
    source_file src = {"segment_index.mlir", text, strlen(text), 1};
    diag pd;
    diag_init(&pd);
    ir_module *m = ir_parse_module(&ar, &src, &pd);
    bool ok = m && ir_verify(m, &pd) && (!lower || (pass_lower_simt(m, &pd) && ir_verify(m, &pd)));
    CHECK(ok, "segment_index kernel: %s", pd.rendered ? pd.rendered : pd.message ? pd.message : "?");
    if (ok) {
        int64_t grid[3] = {lower ? 1 : 4, 1, 1};
        ok = lower ? cpu_simt_launch(m, grid, args, 6, d) : cpu_exec_launch(m, grid, args, 6, d);
    }
    diag_clear(&pd);
    arena_free(&ar);
    return ok;
}

static void test_segment_index(void)
{
    enum { P = 4, S = 64 };
    for (int n = 128; n <= 512; n *= 4) {
        char *text = segment_index_text(n);
        for (int round = 0; round < 20; round++) {
            int32_t ends[P * S], skip[P * S], pos[2 * P];
            float vals[P * S];
            int32_t *want = malloc(sizeof(int32_t) * P * (size_t)n);
            for (int p = 0; p < P; p++) {
                /* segments of 0 .. 40 (some long), from a start around the row's */
                int32_t start = (int32_t)(rng() % 600) - 300, at = start;
                pos[2 * p] = (int32_t)(rng() % 400) - 200;
                pos[2 * p + 1] = start;
                for (int k = 0; k < S; k++) {
                    int r = (int)(rng() % 10);
                    at += r < 3 ? 0 : r < 9 ? (int32_t)(rng() % 17) : (int32_t)(rng() % 200);
                    ends[S * p + k] = at;
                    skip[S * p + k] = rng() % 7 == 0;
                    vals[S * p + k] = (float)(S * p + k) + 0.5f;
                }
                for (int i = 0; i < n; i++) {
                    /* element i = 128 a + 4 t + s at position (n / 32) t + 4 a + s */
                    int a = i / 128, t = (i % 128) / 4, s4 = i % 4;
                    int32_t q = pos[2 * p] + (n > 128 ? (n / 32) * t + 4 * a + s4 : i);
                    int32_t lo = start, seg = -1;
                    for (int k = 0; k < S && seg < 0; k++) {
                        if (q >= lo && q < ends[S * p + k])
                            seg = skip[S * p + k] ? -2 : k;
                        lo = ends[S * p + k];
                    }
                    want[n * p + i] = seg < 0 ? -1 : seg;
                }
            }
            for (int lower = 0; lower < 2; lower++) {
                int32_t *idx = calloc((size_t)(P * n), sizeof(int32_t));
                float *got = calloc((size_t)(P * n), sizeof(float));
                cpu_arg args[6] = {buf(ends, P * S), buf(skip, P * S), buf(vals, P * S), buf(pos, 2 * P),
                                   buf(idx, P * n), buf(got, P * n)};
                diag d;
                diag_init(&d);
                bool ok = run_segment_index(text, lower, args, &d);
                CHECK(ok, "segment_index (%s, n %d): %s", lower ? "simt" : "semantic", n,
                      d.message ? d.message : "?");
                diag_clear(&d);
                int bad = -1;
                for (int i = 0; ok && i < P * n && bad < 0; i++) {
                    int p = i / n;
                    float expect = want[i] < 0 ? vals[S * p] : vals[S * p + want[i]];
                    if (idx[i] != want[i] || got[i] != expect)
                        bad = i;
                }
                CHECK(bad < 0, "segment_index (%s, n %d, round %d): element %d: index %d, expected %d",
                      lower ? "simt" : "semantic", n, round, bad, bad >= 0 ? idx[bad] : 0,
                      bad >= 0 ? want[bad] : 0);
                free(idx);
                free(got);
            }
            free(want);
        }
        free(text);
    }
}

int main(void)
{
    test_vector_add();
    test_tile_index();
    test_warp_shuffle();
    test_cta_reduction();
    test_control_flow();
    test_out_of_bounds();
    test_vec_promise();
    test_shared_memory();
    test_vreduce();
    test_levels();
    test_segment_index();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
