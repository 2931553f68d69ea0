/* fuzz_launch.c - launch-argument conversion and checking in the C API:
 * what a binding passes to a launch (swage_arg records, grids, schedules,
 * offsets), against a fixed set of kernels.
 *
 * Input: bytes read as a recipe: which kernel, the grid, how many
 * arguments, and for each its kind (the right one mostly, sometimes another
 * or an unknown one), a buffer's element count (its memory is real and of
 * that size: the API cannot check a pointer, only what it is told), a NULL
 * buffer, a negative count, integers and floats from raw bits or from the
 * limits, segment offsets that rise or that go anywhere. Then every CPU
 * entry point runs with them (the reference executor, the SIMT executor,
 * each segment schedule with and without the offsets check, the scratch
 * size, the plan text).
 *
 * Findings: an internal error; an out-of-bounds access in a segment
 * schedule whose offsets were valid or that clamps them (check off); and
 * whatever the sanitizers and the driver catch.
 */
#include "fuzz.h"
#include "swage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[][3] = {
    /* source, signature, constexprs */
    {"def add(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):\n"
     "    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)\n"
     "    mask = offs < n\n"
     "    sl.store(out_ptr + offs, sl.load(x_ptr + offs, mask=mask) + sl.load(y_ptr + offs, mask=mask),"
     " mask=mask)\n",
     "x_ptr=*f32,y_ptr=*f32,out_ptr=*f32,n=i32", "BLOCK=16"},
    {"def scalars(out_ptr, a, b, c, d, e, f, g, h, i):\n"
     "    p = sl.program_id(0) + sl.program_id(1) * sl.num_programs(0)\n"
     "    v = a.to(sl.float64) + b + c + d + e + f.to(sl.float64) + g.to(sl.float64) + h + i\n"
     "    sl.store(out_ptr + p, v)\n",
     "out_ptr=*f64,a=i1,b=i8,c=u8,d=i32,e=i64,f=f16,g=bf16,h=f32,i=f64", ""},
    {"def softmax(values_ptr, offsets_ptr, output_ptr):\n"
     "    seg = sl.segment(values_ptr, offsets_ptr, sl.segment_id(0))\n"
     "    x = sl.load_segment(seg)\n"
     "    e = sl.exp(x - sl.max(x))\n"
     "    sl.store_segment(output_ptr, seg, e / sl.sum(e))\n",
     "values_ptr=*f32,offsets_ptr=*i64,output_ptr=*f32", ""},
    {"def seg_sum(values_ptr, offsets_ptr, out_ptr):\n"
     "    seg = sl.segment(values_ptr, offsets_ptr, sl.segment_id(0))\n"
     "    sl.store(out_ptr + sl.segment_id(0), sl.sum(sl.load_segment(seg).to(sl.int32)))\n",
     "values_ptr=*i8,offsets_ptr=*i32,out_ptr=*i32", ""},
    {"def two_views(a_ptr, offsets_ptr, b_ptr, out_ptr, scale):\n"
     "    s = sl.segment_id(0)\n"
     "    a = sl.segment(a_ptr, offsets_ptr, s)\n"
     "    b = sl.segment(b_ptr, offsets_ptr, s)\n"
     "    sl.store_segment(out_ptr, a, sl.load_segment(a) * scale + sl.load_segment(b))\n",
     "a_ptr=*f16,offsets_ptr=*i64,b_ptr=*f16,out_ptr=*f16,scale=f16", ""},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0], MAX_ELEMS = 2048 };

static swage_kernel *compiled[NKERNELS];
static long launches, accepted;

static void init(void)
{
    for (int i = 0; i < NKERNELS; i++) {
        swage_kernel_spec spec = {.source = kernels[i][0], .file_name = "launch.py",
                                  .signature = kernels[i][1], .constexprs = kernels[i][2]};
        swage_error *e = NULL;
        if (swageKernelCompile(&spec, &compiled[i], &e) != SWAGE_OK) {
            fprintf(stderr, "fuzz_launch: kernel %d does not compile: %s\n", i, swageErrorRendered(e));
            exit(2);
        }
    }
}

static void report(void)
{
    printf("fuzz_launch: %ld launches, %ld accepted\n", launches, accepted);
}

/* ---- reading the recipe ---------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static uint8_t byte(reader *r) { return r->p < r->end ? *r->p++ : 0; }

static uint64_t bits64(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)byte(r) << (8 * i);
    return v;
}

static int64_t some_int(reader *r)
{
    static const int64_t limits[] = {0, 1, -1, 2, 3, 127, 128, 255, 256, -129, INT32_MAX, INT32_MIN,
                                     (int64_t)INT32_MAX + 1, (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN,
                                     INT64_MIN + 1, 1 << 20};
    uint8_t how = byte(r);
    if (how < 96)
        return how % 17;
    if (how < 200)
        return limits[how % (sizeof limits / sizeof limits[0])];
    uint64_t v = bits64(r);
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

static double some_float(reader *r)
{
    static const double limits[] = {0.0, -0.0, 1.0, -1.5, 65504.0, 65520.0, 3.4028234663852886e38,
                                    3.5e38, 1e39, 1e300, 1e-45, 5e-324, INFINITY, -INFINITY, NAN};
    uint8_t how = byte(r);
    if (how < 96)
        return (double)(how % 9) * 0.5;
    if (how < 200)
        return limits[how % (sizeof limits / sizeof limits[0])];
    uint64_t v = bits64(r);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

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

/* ---- one input ------------------------------------------------------------------ */

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

static swage_kernel *current;

static void check(const char *what, swage_status st, swage_error **ep, bool bounds_matter)
{
    swage_error *e = *ep; /* read after the call has set it */
    *ep = NULL;
    launches++;
    accepted += st == SWAGE_OK;
    if (st == SWAGE_ERROR_INTERNAL)
        fuzz_fail("%s: internal error: %s", what, swageErrorRendered(e));
    if (bounds_matter && st == SWAGE_ERROR_RUNTIME && segment_bounds_broken(current, e))
        fuzz_fail("%s: out of bounds although the schedule clamps the segments: %s", what,
                  swageErrorRendered(e));
    swageErrorDestroy(e);
}

static void run(const uint8_t *data, size_t n)
{
    reader r = {data, data + n};
    swage_kernel *k = compiled[byte(&r) % NKERNELS];
    current = k;
    int nparams = swageKernelNumParams(k), nruntime = 0;
    const char *types[16];
    for (int i = 0; i < nparams; i++)
        if (!swageKernelParamIsConstexpr(k, i))
            types[nruntime++] = swageKernelParamType(k, i);
    int offsets_index = swageKernelSegmentOffsetsParam(k);

    /* the arguments */
    uint8_t count_how = byte(&r);
    int nargs = count_how < 232 ? nruntime : count_how < 244 ? nruntime - 1 : nruntime + 1;
    if (nargs < 0)
        nargs = 0;
    swage_arg args[18];
    void *bufs[18] = {0};
    int64_t offsets[MAX_ELEMS + 1];
    int64_t noffsets = -1;
    bool valid_offsets = false;
    for (int i = 0; i < nargs; i++) {
        const char *t = i < nruntime ? types[i] : "*f32";
        uint8_t kind_how = byte(&r);
        int kind = t[0] == '*' ? SWAGE_ARG_BUFFER : (t[0] == 'f' || t[0] == 'b') ? SWAGE_ARG_FLOAT
                                                                                 : SWAGE_ARG_INT;
        if (kind_how >= 240)
            kind = kind_how % 4 == 3 ? (int)(kind_how - 240) * 17 - 40 : kind_how % 3;
        args[i] = (swage_arg){.kind = kind};
        if (kind == SWAGE_ARG_BUFFER) {
            uint8_t size_how = byte(&r);
            int64_t elems = size_how % 65;
            if (size_how >= 200) {
                unsigned hi = byte(&r), lo = byte(&r);
                elems = (int64_t)((hi << 8 | lo) % (MAX_ELEMS + 1));
            }
            int bytes = t[0] == '*' ? elem_bytes(t) : 8;
            bufs[i] = malloc((size_t)(elems ? elems : 1) * (size_t)bytes);
            args[i].data = bufs[i];
            args[i].nelems = elems;
            if (i == offsets_index && t[0] == '*' && elems >= 1) {
                /* rising offsets within the other buffers, or anything */
                uint8_t how = byte(&r);
                valid_offsets = how < 160;
                int64_t at = 0;
                for (int64_t j = 0; j < elems; j++) {
                    int64_t v = valid_offsets ? (j ? at + byte(&r) % 5 : 0) : some_int(&r);
                    at = v;
                    offsets[j] = v;
                    if (!strcmp(t, "*i32"))
                        ((int32_t *)bufs[i])[j] = (int32_t)(uint32_t)(uint64_t)v;
                    else
                        ((int64_t *)bufs[i])[j] = v;
                }
                noffsets = elems;
            } else {
                for (int64_t j = 0; j < elems * bytes; j++)
                    ((uint8_t *)bufs[i])[j] = (uint8_t)(j * 7 + 1);
            }
            uint8_t lie = byte(&r);
            if (lie >= 250)
                args[i].data = NULL; /* a NULL buffer of nelems elements */
            else if (lie >= 246)
                args[i].nelems = -1 - (int64_t)(lie & 3);
        } else if (kind == SWAGE_ARG_INT) {
            args[i].i = some_int(&r);
        } else {
            args[i].f = some_float(&r);
            args[i].i = some_int(&r); /* ignored for a float: must not matter */
        }
    }
    /* Valid offsets stay within every other buffer: the shortest one. */
    if (valid_offsets && noffsets > 0) {
        int64_t shortest = INT64_MAX;
        for (int i = 0; i < nargs; i++)
            if (i != offsets_index && args[i].kind == SWAGE_ARG_BUFFER && args[i].nelems < shortest)
                shortest = args[i].nelems;
        valid_offsets = offsets[noffsets - 1] <= shortest && shortest >= 0;
        for (int i = 0; i < nargs; i++)
            if (args[i].kind == SWAGE_ARG_BUFFER && (!args[i].data || args[i].nelems < 0))
                valid_offsets = false;
    }

    /* the grid */
    int64_t grid[3];
    uint8_t grid_how = byte(&r);
    if (offsets_index >= 0 && grid_how < 200) {
        grid[0] = noffsets > 0 ? noffsets - 1 : 0, grid[1] = grid[2] = 1;
    } else if (grid_how < 128) {
        grid[0] = 1 + grid_how % 4, grid[1] = 1 + (grid_how >> 2) % 2, grid[2] = 1;
    } else {
        grid[0] = some_int(&r), grid[1] = some_int(&r), grid[2] = some_int(&r);
    }
    /* A launch of a huge (valid) grid would run for hours on the CPU: only
     * its checks are fuzzed here. */
    bool small = grid[0] >= 0 && grid[1] >= 0 && grid[2] >= 0 && grid[0] <= 64 && grid[1] <= 64 &&
                 grid[2] <= 64 && grid[0] * grid[1] * grid[2] <= 256;
    int schedule_how = byte(&r);
    int schedule = schedule_how < 220 ? schedule_how % 6 : (int)some_int(&r);
    int check_flag = byte(&r) % 3;

    swage_error *e = NULL;
    if (small || offsets_index >= 0) {
        fuzz_deadline(500);
        check("CPU launch", swageKernelLaunchCpu(k, grid, args, nargs, &e), &e, false);
        e = NULL;
        fuzz_deadline(500);
        check("CPU SIMT launch", swageKernelLaunchCpuSimt(k, grid, args, nargs, &e), &e,
              offsets_index >= 0);
    }
    if (offsets_index >= 0) {
        int bad = 0;
        e = NULL;
        fuzz_deadline(500);
        check("segment launch", swageKernelLaunchSegmentsCpuSimt(k, schedule, args, nargs, check_flag, &bad, &e),
              &e, true);
        size_t bytes = 0;
        e = NULL;
        check("scratch size", swageKernelSegmentScratchBytes(k, -1, schedule, args, nargs, &bytes, &e), &e, false);
        char *text = NULL;
        e = NULL;
        double bandwidth = byte(&r) < 200 ? 0 : some_float(&r);
        const int64_t *host = noffsets > 0 && byte(&r) < 128 ? offsets : NULL;
        check("plan text", swageKernelPlanText(k, -1, schedule, args, nargs, host, bandwidth, &text, &e),
              &e, false);
        swageFree(text);
    }
    fuzz_deadline(0);
    for (int i = 0; i < nargs; i++)
        free(bufs[i]);
}

const fuzz_target fuzz_this = {
    .name = "launch",
    .ext = ".bin",
    .max_len = 4096,
    .dict = NULL,
    .init = init,
    .run = run,
    .report = report,
};
