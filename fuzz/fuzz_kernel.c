/* fuzz_kernel.c - the kernel-source frontend, through everything a kernel
 * goes through: compile, every IR stage (source, semantic, and per schedule
 * the plan and the SIMT form), PTX, and both CPU executors.
 *
 * Input: an optional header line "#! SIGNATURE | CONSTEXPRS" (the strings
 * of swage_kernel_spec), then the kernel's source; its bytes go to the
 * library with source_length, NUL bytes included.
 *
 * Findings: an internal error anywhere; a compile error without a source
 * location; a printed stage that does not parse and verify, or that prints
 * differently once parsed (print -> parse -> print, with and without
 * locations); and whatever the sanitizers and the driver catch.
 */
#include "fuzz.h"
#include "api/api_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dict[] = {
    "sl.", "sl.load(", "sl.store(", "sl.arange(0, ", "sl.program_id(0)", "sl.program_id(1)",
    "sl.num_programs(0)", "sl.static_range(", "range(", "sl.sum(", "sl.max(", "sl.min(",
    "sl.prod(", "sl.where(", "sl.exp(", "sl.exp2(", "sl.log(", "sl.sqrt(", "sl.abs(",
    "sl.sigmoid(", "sl.minimum(", "sl.maximum(", "sl.full(", "sl.zeros(", "sl.cast(", ".to(",
    "sl.float16", "sl.bfloat16", "sl.float32", "sl.float64", "sl.int8", "sl.uint8", "sl.int32",
    "sl.int64", "sl.int1", "sl.segment_id(0)", "sl.segment(", "sl.load_segment(",
    "sl.store_segment(", "sl.segment_length(", "mask=", "other=", "axis=", "sl.constexpr",
    "for ", " in ", "if ", "else:", "elif ", "while ", "return", "pass", "def ", " and ", " or ",
    "not ", "True", "False", "None", " + ", " - ", " * ", " / ", " // ", " % ", " ** ", " << ",
    " >> ", " & ", " | ", " ^ ", "~", " < ", " <= ", " == ", " != ", " > ", " = ", " += ", "(",
    ")", "[", "]", ",", ":", "\n", "    ", "x_ptr", "out_ptr", "offsets_ptr", "n", "BLOCK",
    "offs", "i", "#! ", "*f32", "*i64", "*i32", "*f16", "*bf16", "*i8", "*u8", "*i1", "*f64",
    "=i32", "=i64", "=f32", "=f16", "BLOCK=64", "BLOCK=1", "'''", "\\", "@sw.jit\n", "lambda",
    "sl.cdiv(", "sl.fma(", "sl.erf(", "sl.umulhi(", "sl.clamp(", "sl.math.", "sl.fdiv(",
    "sl.multiple_of(", "sl.max_contiguous(", "sl.assume(", "sl.range(", "num_stages=",
    "float(\"inf\")", "float(\"nan\")", "cache_modifier=\".cg\"", "eviction_policy=",
    "sl.atomic_add(", "sl.atomic_max(", "sl.atomic_min(", "sl.atomic_and(", "sl.atomic_or(",
    "sl.atomic_xor(", "sl.atomic_xchg(", "sl.atomic_cas(", ".atomic_add(", "sem=\"relaxed\"",
    "sem=\"acq_rel\"", "scope=\"cta\"", "scope=\"sys\"",
    "ACT='relu'", "ACT=None", "SHAPE=(16, 32)", "SHAPE=(1,)", " is None", " is not None",
    " in (", "ACT == \"relu\"", "len(", "SHAPE[0]", "SHAPE[-1]", "'relu'", "\"gelu\"",
    NULL,
};

/* What the inputs reached, for the report. */
static long inputs, compiled, segment_programs, launched;

static void report(void)
{
    printf("fuzz_kernel: %ld inputs: %ld compiled (%ld segment programs), %ld ran on the CPU "
           "executor\n", inputs, compiled, segment_programs, launched);
}

static void check(const char *what, swage_status st, swage_error **ep)
{
    swage_error *e = *ep; /* read after the call has set it */
    *ep = NULL;
    if (st == SWAGE_ERROR_INTERNAL)
        fuzz_fail("%s: internal error: %s", what, swageErrorRendered(e));
    if (st == SWAGE_OK && e)
        fuzz_fail("%s: success with an error object", what);
    swageErrorDestroy(e);
}

/* Printed IR must parse and verify, and print back the same. */
static void roundtrip(const char *what, const char *text, int locations)
{
    char *again = NULL;
    swage_error *e = NULL;
    swage_status st = swageIrRunPasses(text, "stage.mlir", NULL, NULL, locations, &again, &e);
    if (st != SWAGE_OK)
        fuzz_fail("%s: the printed IR does not parse back: %s\n%s", what, swageErrorRendered(e), text);
    if (strcmp(again, text))
        fuzz_fail("%s: print -> parse -> print differs:\n%s--- printed again:\n%s", what, text, again);
    swageFree(again);
}

static void stage(swage_kernel *k, swage_stage s, int schedule, const char *what)
{
    for (int locations = 0; locations < 2; locations++) {
        char *text = NULL;
        swage_error *e = NULL;
        swage_status st = swageKernelEmitMlirSchedule(k, s, schedule, locations, &text, &e);
        check(what, st, &e);
        if (st == SWAGE_OK)
            roundtrip(what, text, locations);
        swageFree(text);
    }
}

/* ---- arguments for the CPU executors -------------------------------------------- */

static int elem_bytes(const char *t)
{
    if (!strcmp(t, "*i1") || !strcmp(t, "*i8") || !strcmp(t, "*u8"))
        return 1;
    if (!strcmp(t, "*f16") || !strcmp(t, "*bf16"))
        return 2;
    if (!strcmp(t, "*i32") || !strcmp(t, "*f32"))
        return 4;
    return 8;
}

static void fill(void *p, const char *t, int64_t n, uint64_t h)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t v = (int64_t)((h >> (i % 48)) % 13) - 3;
        if (!strcmp(t, "*f32")) {
            ((float *)p)[i] = (float)v * 0.5f;
        } else if (!strcmp(t, "*f64")) {
            ((double *)p)[i] = (double)v * 0.25;
        } else if (!strcmp(t, "*f16")) {
            static const uint16_t halves[] = {0x3c00, 0xbc00, 0x0000, 0x4000, 0x3800, 0x7c00};
            ((uint16_t *)p)[i] = halves[(uint64_t)(v + 3) % 6];
        } else if (!strcmp(t, "*bf16")) {
            static const uint16_t halves[] = {0x3f80, 0xbf80, 0x0000, 0x4000, 0x3f00, 0x7f80};
            ((uint16_t *)p)[i] = halves[(uint64_t)(v + 3) % 6];
        } else if (!strcmp(t, "*i32")) {
            ((int32_t *)p)[i] = (int32_t)v;
        } else if (!strcmp(t, "*i64")) {
            ((int64_t *)p)[i] = v;
        } else if (!strcmp(t, "*i1")) {
            ((uint8_t *)p)[i] = (uint8_t)(v & 1);
        } else {
            ((int8_t *)p)[i] = (int8_t)v;
        }
    }
}

/* Segment offsets: nseg + 1 values in [0, limit], rising (or, for some
 * inputs, anything near that range: the launches must reject them or clamp). */
static void fill_offsets(void *p, const char *t, int64_t count, int64_t limit, uint64_t h, bool hostile)
{
    int64_t at = 0;
    for (int64_t i = 0; i < count; i++) {
        int64_t v;
        if (hostile) {
            v = (int64_t)((h >> (i * 5 % 56)) % (uint64_t)(limit + 9)) - 3;
        } else {
            v = i == 0 ? 0 : at + (int64_t)((h >> (i * 3 % 56)) % 9);
            if (v > limit)
                v = limit;
            at = v;
        }
        if (!strcmp(t, "*i32"))
            ((int32_t *)p)[i] = (int32_t)v;
        else
            ((int64_t *)p)[i] = v;
    }
}

/* An out-of-bounds access that a segment schedule must never make: one in
 * the offsets, or in a buffer the program reads or writes segments of (the
 * schedule clamps every segment to those buffers' lengths). An access
 * through a pointer the kernel computed itself may well be out of bounds:
 * the executors report it, as they should. */
static bool segment_bounds_broken(const swage_kernel *k, const swage_error *e)
{
    const char *m = e ? strstr(swageErrorMessage(e), "out of bounds") : NULL;
    const char *arg = m ? strstr(m, "of argument ") : NULL;
    if (!arg)
        return false;
    int index = atoi(arg + strlen("of argument "));
    if (index == swageKernelSegmentOffsetsParam(k))
        return true;
    for (int h = 0; h < swageKernelNumHiddenParams(k); h++)
        if (swageKernelHiddenParamSource(k, h) == index)
            return true;
    return false;
}

static void run_executors(swage_kernel *k, uint64_t h)
{
    int nparams = swageKernelNumParams(k), nargs = 0;
    swage_arg *args = calloc((size_t)nparams + 1, sizeof *args);
    void **bufs = calloc((size_t)nparams + 1, sizeof *bufs);
    int offsets_index = swageKernelSegmentOffsetsParam(k);
    int64_t n = 16 + (int64_t)(h % 4) * 24, nseg = 1 + (int64_t)((h >> 8) % 5);
    bool hostile = (h >> 16) % 8 == 0;
    for (int i = 0; i < nparams; i++) {
        if (swageKernelParamIsConstexpr(k, i))
            continue;
        const char *t = swageKernelParamType(k, i);
        swage_arg *a = &args[nargs];
        if (t[0] == '*') {
            int64_t count = nargs == offsets_index ? nseg + 1 : n;
            bufs[nargs] = calloc((size_t)count, (size_t)elem_bytes(t));
            if (nargs == offsets_index)
                fill_offsets(bufs[nargs], t, count, n, h, hostile);
            else
                fill(bufs[nargs], t, count, h + (uint64_t)i);
            *a = (swage_arg){.kind = SWAGE_ARG_BUFFER, .data = bufs[nargs], .nelems = count};
        } else if (t[0] == 'f' || t[0] == 'b') {
            *a = (swage_arg){.kind = SWAGE_ARG_FLOAT, .f = 1.5};
        } else {
            *a = (swage_arg){.kind = SWAGE_ARG_INT, .i = !strcmp(t, "i1") ? 1 : (int64_t)((h >> 24) % 17)};
        }
        nargs++;
    }
    int64_t grid[3] = {1 + (int64_t)((h >> 32) % 3), 1 + (int64_t)((h >> 40) % 2), 1};
    if (offsets_index >= 0)
        grid[0] = nseg, grid[1] = 1;
    /* The launches' paths depend on time (the deadline): no coverage. */
    fuzz_coverage(false);
    swage_error *e = NULL;
    fuzz_deadline(300);
    swage_status st = swageKernelLaunchCpu(k, grid, args, nargs, &e);
    launched += st == SWAGE_OK;
    check("CPU launch", st, &e);
    e = NULL;
    fuzz_deadline(300);
    check("CPU SIMT launch", swageKernelLaunchCpuSimt(k, grid, args, nargs, &e), &e);
    for (int s = 0; offsets_index >= 0 && s < KERNEL_VARIANTS; s++) {
        int bad = 0;
        e = NULL;
        fuzz_deadline(300);
        st = swageKernelLaunchSegmentsCpuSimt(k, s, args, nargs, 1, &bad, &e);
        if (st == SWAGE_ERROR_RUNTIME && segment_bounds_broken(k, e))
            fuzz_fail("segment schedule %d: an out-of-bounds access with valid offsets: %s", s,
                      swageErrorRendered(e));
        check("CPU SIMT segment launch", st, &e);
    }
    fuzz_deadline(0);
    fuzz_coverage(true);
    for (int i = 0; i < nargs; i++)
        free(bufs[i]);
    free(bufs);
    free(args);
}

/* ---- one input ------------------------------------------------------------------ */

static void run(const uint8_t *data, size_t n)
{
    char *signature = NULL, *constexprs = NULL;
    const uint8_t *source = data;
    size_t length = n;
    if (n >= 2 && data[0] == '#' && data[1] == '!') {
        const uint8_t *eol = memchr(data, '\n', n);
        size_t header = eol ? (size_t)(eol - data) : n;
        const uint8_t *bar = memchr(data, '|', header);
        size_t sig_end = bar ? (size_t)(bar - data) : header;
        signature = fuzz_strndup(data + 2, sig_end - 2);
        constexprs = bar ? fuzz_strndup(bar + 1, header - sig_end - 1) : NULL;
        source = eol ? eol + 1 : data + n;
        length = (size_t)(data + n - source);
    }
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ data[i]) * 1099511628211ULL;
    inputs++;

    swage_kernel_spec spec = {
        .source = length ? (const char *)source : "",
        .file_name = "fuzz.py",
        .first_line = 2,
        .signature = signature,
        .constexprs = constexprs,
        .source_length = length,
    };
    swage_error *e = NULL;
    swage_kernel *k = api_kernel_compile_uncached(&spec, &e);
    if (!k) {
        swage_status st = swageErrorStatus(e);
        if (st == SWAGE_ERROR_COMPILE && swageErrorLine(e) <= 0)
            fuzz_fail("a compile error without a source location: %s", swageErrorRendered(e));
        check("compile", st, &e);
        free(signature);
        free(constexprs);
        return;
    }
    compiled++;
    stage(k, SWAGE_STAGE_SOURCE, 0, "the source stage");
    stage(k, SWAGE_STAGE_SEMANTIC, 0, "the semantic stage");
    bool segment = swageKernelSegmentOffsetsParam(k) >= 0;
    segment_programs += segment;
    static const int sms[] = {90, 80, 70};
    for (int s = 0; s < (segment ? KERNEL_VARIANTS : 1); s++) {
        char what[64];
        if (segment) {
            snprintf(what, sizeof what, "the plan of schedule %d", s);
            stage(k, SWAGE_STAGE_PLAN, s, what);
        }
        snprintf(what, sizeof what, "the SIMT stage of schedule %d", s);
        stage(k, SWAGE_STAGE_SIMT, s, what);
        char *ptx = NULL;
        e = NULL;
        check("PTX", swageKernelEmitPtxSchedule(k, s, sms[(h >> 50) % 3], &ptx, &e), &e);
        swageFree(ptx);
    }
    run_executors(k, h);
    api_kernel_destroy(k);
    free(signature);
    free(constexprs);
}

const fuzz_target fuzz_this = {
    .name = "kernel",
    .ext = ".py",
    .max_len = 8192,
    .dict = dict,
    .run = run,
    .report = report,
};
