/* segments.c - the public API of scheduled segment launches (swage.h,
 * "segment programs: scheduled launches"): sizing the scratch, launching a
 * schedule's task kernels in order on CUDA or on the CPU SIMT executor, and
 * the plan as text. What to launch comes from src/plan/launch.c; this file
 * turns it into driver calls and executor runs. */
#include "api_internal.h"
#include "../backends/cpu/cpu_exec.h"
#include "../plan/launch.h"
#include "../plan/report.h"
#include "../runtime/cuda_runtime.h"

#include <stdlib.h>
#include <string.h>

/* The CPU SIMT executor plans as for a small GPU (launch.h): persistent
 * kernels get a few CTAs, so lists and split chunks are shared between CTAs
 * in tests. */
enum { CPU_MULTIPROCESSORS = PLAN_CPU_MULTIPROCESSORS };

/* The checks every scheduled launch makes; sets *segments. */
static swage_status check_segment_launch(const swage_kernel *k, int schedule, const swage_arg *args, int nargs,
                                         int64_t *segments, swage_error **error)
{
    if (!k || (nargs > 0 && !args))
        return api_fail_argument(error, "a segment launch needs a kernel and its arguments");
    if (!k->is_segment)
        return api_fail_argument(error, "%s is a grid program, not a segment program: launch it with a grid",
                                 k->name);
    if (schedule < 0 || schedule >= PLAN_SCHEDULES)
        return api_fail_argument(error, "schedule %d is not one of 0..%d (auto, subwarp, warp, cta, split, "
                                 "persistent)", schedule, PLAN_SCHEDULES - 1);
    if (nargs != k->nruntime)
        return api_fail_argument(error, "%s takes %d runtime argument%s, got %d", k->name, k->nruntime,
                                 k->nruntime == 1 ? "" : "s", nargs);
    for (int h = 0; h < k->nhidden; h++)
        if (args[k->hidden_source[h]].kind != SWAGE_ARG_BUFFER)
            return api_fail_argument(error, "argument '%s' of %s is read or written through the offsets "
                                     "and must be a buffer", api_runtime_param_name(k, k->hidden_source[h]),
                                     k->name);
    const swage_arg *offsets = &args[k->segment_offsets];
    const char *name = api_runtime_param_name(k, k->segment_offsets);
    if (offsets->kind != SWAGE_ARG_BUFFER)
        return api_fail_argument(error, "argument '%s' of %s holds the segment offsets and must be a buffer",
                                 name, k->name);
    if (offsets->nelems < 1)
        return api_fail_argument(error, "argument '%s' of %s holds the segment offsets, so it needs at least "
                                 "1 element (segments + 1), got 0", name, k->name);
    if (offsets->nelems - 1 > INT32_MAX)
        return api_fail_argument(error, "argument '%s' of %s: %lld segments is more than a launch can run "
                                 "(at most 2**31 - 1)", name, k->name, (long long)(offsets->nelems - 1));
    *segments = offsets->nelems - 1;
    return SWAGE_OK;
}

static void numel_of(const swage_kernel *k, const swage_arg *args, int64_t *numel)
{
    for (int h = 0; h < k->nhidden && h < 64; h++)
        numel[h] = args[k->hidden_source[h]].nelems;
}

/* The sizes the plan is computed from: segments, the shortest segment
 * buffer, the machine (`ctas` per kernel; NULL: the CPU's). */
static void plan_sizes_of(const swage_kernel *k, const plan_info *info, const swage_arg *args, int64_t segments,
                          int multiprocessors, const int *ctas, plan_sizes *sz)
{
    int64_t numel[64];
    numel_of(k, args, numel);
    plan_cpu_sizes(info, segments, numel, k->nhidden < 64 ? k->nhidden : 64, sz);
    sz->multiprocessors = multiprocessors;
    for (int i = 0; ctas && i < info->nkernels; i++)
        sz->ctas_per_sm[i] = ctas[i];
}


/* ---- CUDA --------------------------------------------------------------------------- */

/* The variant, its launch records on `device` (loading the module), and the
 * plan for these arguments. */
static bool cuda_plan(swage_kernel *k, int device, int schedule, const swage_arg *args, int64_t segments,
                      kernel_variant **vout, const kernel_launch **records, plan_runtime *rt, diag *d)
{
    kernel_variant *v = api_kernel_variant(k, schedule, d);
    if (!v)
        return false;
    const plan_info *info = v->plan;
    int ctas[PLAN_MAX_KERNELS];
    for (int i = 0; i < info->nkernels; i++) {
        records[i] = api_launch_record(k, v, device, i, d);
        if (!records[i])
            return false;
        ctas[i] = records[i]->ctas_per_sm;
    }
    int sms;
    if (!cuda_device_multiprocessors(device, &sms, d))
        return false;
    plan_sizes sz;
    plan_sizes_of(k, info, args, segments, sms, ctas, &sz);
    plan_runtime_compute(info, &sz, rt);
    *vout = v;
    return true;
}

/* The plan of a launch on `device`, or on the CPU SIMT executor (device <
 * 0); *sms gets the multiprocessors it was planned for. */
static bool any_plan(swage_kernel *k, int device, int schedule, const swage_arg *args, int64_t segments,
                     kernel_variant **v, plan_runtime *rt, int *sms, diag *d)
{
    if (device >= 0) {
        const kernel_launch *records[PLAN_MAX_KERNELS];
        return cuda_plan(k, device, schedule, args, segments, v, records, rt, d) &&
               cuda_device_multiprocessors(device, sms, d);
    }
    *v = api_kernel_variant(k, schedule, d);
    if (!*v)
        return false;
    plan_sizes sz;
    plan_sizes_of(k, (*v)->plan, args, segments, CPU_MULTIPROCESSORS, NULL, &sz);
    plan_runtime_compute((*v)->plan, &sz, rt);
    *sms = CPU_MULTIPROCESSORS;
    return true;
}

SWAGE_API swage_status swageKernelSegmentScratchBytes(const swage_kernel *k, int device, int schedule,
                                                      const swage_arg *args, int nargs, size_t *bytes,
                                                      swage_error **error)
{
    int64_t segments;
    swage_status st = check_segment_launch(k, schedule, args, nargs, &segments, error);
    if (st != SWAGE_OK)
        return st;
    if (!bytes)
        return api_fail_argument(error, "swageKernelSegmentScratchBytes needs a place for the size");
    diag d;
    diag_init(&d);
    kernel_variant *v;
    plan_runtime rt;
    int sms;
    if (!any_plan((swage_kernel *)k, device, schedule, args, segments, &v, &rt, &sms, &d))
        return api_fail(error, &d);
    *bytes = rt.scratch_bytes;
    return SWAGE_OK;
}

/* Packs and launches one of the plan's kernels. */
static bool cuda_launch_task(const swage_kernel *k, const plan_info *info, const plan_runtime *rt,
                             const kernel_launch *l, void *stream, int64_t grid, const swage_arg *args,
                             uint64_t scratch, const int64_t *numel, int64_t segments, bool check,
                             bool dependent, diag *d)
{
    enum { INLINE = 2048 };
    _Alignas(16) unsigned char inline_params[INLINE];
    unsigned char *params = l->params_size > INLINE ? malloc(l->params_size) : inline_params;
    if (!params) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    bool ok = l->nparams == k->nruntime + info->nhidden;
    if (!ok)
        sw_unreachable(d, "a task kernel of %s takes %d parameters, expected %d", k->name, l->nparams,
                       k->nruntime + info->nhidden);
    for (int i = 0; ok && i < k->nruntime; i++)
        ok = api_pack_arg(k, i, &l->params[i], &args[i], params + l->params[i].offset, d);
    for (int h = 0; ok && h < info->nhidden; h++) {
        const launch_param *p = &l->params[k->nruntime + h];
        plan_value v = plan_hidden_value(info, rt, h, numel, segments, check);
        if (v.is_pointer) {
            uint64_t address = scratch ? scratch + v.offset : 0;
            memcpy(params + p->offset, &address, 8);
        } else if (p->size == 8) {
            memcpy(params + p->offset, &v.value, 8);
        } else {
            int32_t narrow = (int32_t)v.value;
            memcpy(params + p->offset, &narrow, 4);
        }
    }
    int64_t g[3] = {grid, 1, 1};
    ok = ok && api_launch_packed(l, stream, g, params, dependent, d);
    if (params != inline_params)
        free(params);
    return ok;
}

/* The launch of swageKernelLaunchSegmentsCuda; with `kept`, the scratch is
 * one the caller keeps from launch to launch (SWAGE_SEGMENT_SCRATCH_KEPT):
 * its header is zero, so it is not cleared, and the launch leaves it zero
 * (the kernels clear what they count, task_kernels.c; a raised flag is
 * cleared here once read); on a stream capturing a graph nothing is
 * launched and *bad is 2. */
static swage_status launch_segments(const swage_kernel *k, int device, void *stream, int schedule,
                                    const swage_arg *args, int nargs, uint64_t scratch, size_t scratch_bytes,
                                    bool check, bool kept, int *bad, swage_error **error)
{
    int64_t segments;
    swage_status st = check_segment_launch(k, schedule, args, nargs, &segments, error);
    if (st != SWAGE_OK)
        return st;
    if (bad)
        *bad = 0;
    diag d;
    diag_init(&d);
    kernel_variant *v;
    const kernel_launch *records[PLAN_MAX_KERNELS];
    plan_runtime rt;
    if (!cuda_plan((swage_kernel *)k, device, schedule, args, segments, &v, records, &rt, &d))
        return api_fail(error, &d);
    bool needs_scratch = check || rt.nlaunches > 1 || rt.caps[v->plan->nlists - 1] > 0;
    if (needs_scratch && (!scratch || scratch_bytes < rt.scratch_bytes))
        return api_fail_argument(error, "%s: the %s schedule needs %zu bytes of scratch for these arguments, "
                                 "given %zu (ask swageKernelSegmentScratchBytes)", k->name,
                                 plan_schedule_names[schedule], rt.scratch_bytes, scratch ? scratch_bytes : 0);
    if (segments == 0)
        return SWAGE_OK;
    int64_t numel[64];
    if (k->nhidden > 64)
        return api_fail_argument(error, "%s reads or writes segments of more than 64 buffers", k->name);
    numel_of(k, args, numel);
    if (kept && cuda_stream_capturing(device, stream)) {
        /* a graph would keep the address: replays could overlap later launches */
        if (bad)
            *bad = 2;
        return SWAGE_OK;
    }
    bool ok = !needs_scratch || kept || cuda_memset32_async(device, stream, scratch, 0, rt.zero_bytes / 4, &d);
    /* A checked launch waits for the offsets flag anyway: it reads it back
     * right after the first kernel (the direct or classifying one, which
     * alone checks the offsets and fills the lists), with the list counts
     * and the split counter, and launches the persistent kernels only when
     * they have work or the flag is up (then they run as usual, so a kept
     * scratch is left clean); usually they have none, and the launch waits
     * for one kernel instead of two or more. */
    size_t header = 16 + 4 * (size_t)(1 + v->plan->nlists);
    bool early = check && rt.nlaunches > 1 && rt.words_offset == 16 && header <= CUDA_STREAM_READ_MAX;
    uint32_t flag = 0;
    for (int i = 0; ok && i < rt.nlaunches; i++) {
        const plan_launch *pl = &rt.launches[i];
        /* the direct kernel first, plainly; the persistent ones after it as
         * programmatic dependent launches (their PTX waits for it first) */
        ok = cuda_launch_task(k, v->plan, &rt, records[pl->kernel], stream, pl->grid, args,
                              needs_scratch ? scratch : 0, numel, segments, check != 0,
                              i > 0 && v->plan->kernels[pl->kernel].kind != PLAN_KERNEL_DIRECT, &d);
        if (ok && early && i == 0) {
            _Alignas(16) unsigned char words[CUDA_STREAM_READ_MAX];
            ok = cuda_stream_read(device, stream, scratch, words, header, &d);
            bool work = false;
            for (size_t at = 0; ok && at < header; at += 4) {
                uint32_t w;
                memcpy(&w, words + at, 4);
                if (at == 16)
                    flag = w;
                work = work || w != 0;
            }
            if (ok && !work)
                break;
        }
    }
    if (ok && check && !early)
        ok = cuda_stream_read32(device, stream, scratch + rt.words_offset, &flag, &d);
    if (ok && check) {
        if (bad)
            *bad = flag != 0;
        /* the error path only: a kept scratch gets its flag back to zero */
        if (flag && kept)
            ok = cuda_memset32_async(device, stream, scratch + rt.words_offset, 0, 1, &d);
    }
    return ok ? SWAGE_OK : api_fail(error, &d);
}

SWAGE_API swage_status swageKernelLaunchSegmentsCuda(const swage_kernel *k, int device, void *stream,
                                                     int schedule, const swage_arg *args, int nargs,
                                                     uint64_t scratch, size_t scratch_bytes, int check,
                                                     int *bad, swage_error **error)
{
    return launch_segments(k, device, stream, schedule, args, nargs, scratch, scratch_bytes, check != 0, false,
                           bad, error);
}

/* The packed form (swage.h): the header and the swage_arg records copied
 * to aligned memory (the caller's buffer need not be), then the launch
 * above; a failure's error kept for the thread when `error` is NULL. The
 * records are read only when their count is the kernel's: the buffer's
 * length is the caller's word, and a wrong count is refused before any
 * record is looked at. */
_Static_assert(sizeof(swage_segment_launch) == 48 || sizeof(void *) != 8,
               "swage_segment_launch is 48 bytes on 64-bit platforms (swage.h)");

SWAGE_API int swageKernelLaunchSegmentsCudaPacked(const void *launch, swage_error **error)
{
    swage_error *e = NULL;
    swage_status st;
    int bad = 0;
    swage_segment_launch h;
    enum { INLINE_ARGS = 16 };
    swage_arg inline_args[INLINE_ARGS], *args = inline_args;
    if (launch)
        memcpy(&h, launch, sizeof h);
    bool records = launch && h.kernel && h.nargs == h.kernel->nruntime;
    if (!launch || h.nargs < 0 || h.check < 0 || h.check > (1 | SWAGE_SEGMENT_SCRATCH_KEPT)) {
        st = api_fail_argument(&e, "swageKernelLaunchSegmentsCudaPacked: %s", !launch ? "no launch buffer"
                               : h.nargs < 0 ? "a negative argument count"
                                             : "check must be 0 or 1, with SWAGE_SEGMENT_SCRATCH_KEPT or not");
    } else if (records && h.nargs > INLINE_ARGS && !(args = malloc(sizeof *args * (size_t)h.nargs))) {
        diag d;
        diag_init(&d);
        diag_error(&d, DIAG_NOMEM, "out of memory");
        st = api_fail(&e, &d);
    } else {
        if (records)
            memcpy(args, (const unsigned char *)launch + sizeof h, sizeof *args * (size_t)h.nargs);
        else /* the launch refuses the count (or the kernel) before reading them */
            memset(inline_args, 0, sizeof inline_args);
        st = launch_segments(h.kernel, h.device, h.stream, h.schedule, args, h.nargs, h.scratch,
                             (size_t)h.scratch_bytes, h.check & 1, (h.check & SWAGE_SEGMENT_SCRATCH_KEPT) != 0,
                             &bad, &e);
    }
    if (args != inline_args)
        free(args);
    if (st != SWAGE_OK) {
        if (error)
            *error = e;
        else
            api_keep_error(e);
        return st;
    }
    return bad == 2 ? SWAGE_SEGMENT_CAPTURING : bad ? SWAGE_SEGMENT_OFFSETS_BAD : SWAGE_OK;
}

/* ---- the CPU SIMT executor -------------------------------------------------------------- */

SWAGE_API swage_status swageKernelLaunchSegmentsCpuSimt(const swage_kernel *k, int schedule,
                                                        const swage_arg *args, int nargs, int check, int *bad,
                                                        swage_error **error)
{
    int64_t segments;
    swage_status st = check_segment_launch(k, schedule, args, nargs, &segments, error);
    if (st != SWAGE_OK)
        return st;
    if (bad)
        *bad = 0;
    diag d;
    diag_init(&d);
    kernel_variant *v = api_kernel_variant((swage_kernel *)k, schedule, &d);
    if (!v)
        return api_fail(error, &d);
    int64_t numel[64];
    if (k->nhidden > 64)
        return api_fail_argument(error, "%s reads or writes segments of more than 64 buffers", k->name);
    numel_of(k, args, numel);
    int64_t grid0[3] = {1, 1, 1};
    cpu_arg *cargs;
    int ncargs;
    st = api_launch_args(k, grid0, args, nargs, false, &cargs, &ncargs, error);
    if (st != SWAGE_OK)
        return st;
    bool flagged = false;
    bool ok = plan_run_cpu_simt(v->simt, v->plan, cargs, numel, k->nhidden, segments, check != 0, &flagged, &d);
    free(cargs);
    if (ok && bad)
        *bad = flagged;
    return ok ? SWAGE_OK : api_fail(error, &d);
}

/* ---- the plan as text --------------------------------------------------------------- */

SWAGE_API swage_status swageKernelPlanText(const swage_kernel *k, int device, int schedule,
                                           const swage_arg *args, int nargs, const int64_t *offsets,
                                           double bandwidth, char **text, swage_error **error)
{
    int64_t segments;
    swage_status st = check_segment_launch(k, schedule, args, nargs, &segments, error);
    if (st != SWAGE_OK)
        return st;
    if (!text)
        return api_fail_argument(error, "swageKernelPlanText needs a place for the text");
    diag d;
    diag_init(&d);
    kernel_variant *v;
    plan_runtime rt;
    int sms;
    if (!any_plan((swage_kernel *)k, device, schedule, args, segments, &v, &rt, &sms, &d))
        return api_fail(error, &d);
    plan_report_input in = {
        .kernel = k->name,
        .info = v->plan,
        .rt = &rt,
        .segments = segments,
        .offsets = offsets,
        .bandwidth = bandwidth,
        .device = device < 0 ? "the CPU SIMT executor" : "CUDA device",
        .device_index = device,
        .multiprocessors = sms,
    };
    for (int i = 0; i < nargs && i < PLAN_REPORT_MAX_BUFFERS; i++) {
        in.buffer_elements[i] = args[i].kind == SWAGE_ARG_BUFFER ? args[i].nelems : -1;
    }
    in.nbuffers = nargs < PLAN_REPORT_MAX_BUFFERS ? nargs : PLAN_REPORT_MAX_BUFFERS;
    plan_sizes sz;
    plan_sizes_of(k, v->plan, args, segments, sms, NULL, &sz);
    in.limit = sz.limit;
    strbuf sb;
    sb_init(&sb);
    plan_report(&in, &sb);
    if (sb.oom) {
        sb_free(&sb);
        return api_fail_argument(error, "out of memory");
    }
    *text = sb_take(&sb);
    return SWAGE_OK;
}
