/* gpu.c - the GPU side of the public API: the SIMT form (built once per
 * kernel, under the kernel's lock), the CPU SIMT executor, PTX per compute
 * capability, and launches through the CUDA Driver runtime (a lock-free
 * warm path once a kernel has run on a device). */
#include "api_internal.h"
#include "../backends/cpu/cpu_exec.h"
#include "../backends/ptx/ptx.h"
#include "../ir/scalar.h"
#include "../passes/passes.h"
#include "../plan/launch.h"
#include "../runtime/cuda_runtime.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *module_text(swage_kernel *k, const ir_module *m, bool locations)
{
    strbuf sb;
    sb_init(&sb);
    ir_print_options o = {.locations = locations};
    ir_print_module(m, &o, &sb);
    const char *t = arena_strndup(&k->ar, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return t;
}

/* Lowers a clone of the semantic module into variant `schedule`; caller
 * holds k->lock. A segment program first becomes the task kernels of the
 * schedule (src/plan/), cleaned up by the default pipeline; after lower-simt
 * its list sections are linked into one kernel. */
static bool build_variant(swage_kernel *k, int schedule, kernel_variant *v, diag *d)
{
    jmp_buf bail;
    d->bail = &bail;
    if (setjmp(bail)) {
        d->bail = NULL;
        return false;
    }
    ir_module *m = ir_module_clone(&k->ar, k->module);
    static const char *const cleanup[] = {"fold", "cse", "fold", "dce"};
    bool ok = true;
    if (k->is_segment) {
        ok = plan_build(m, (plan_schedule)schedule, d) && pass_run_pipeline(m, cleanup, 4, NULL, d);
        if (ok) {
            v->plan_text[0] = module_text(k, m, false);
            v->plan_text[1] = module_text(k, m, true);
        }
    }
    ok = ok && pass_lower_simt(m, d) && (!k->is_segment || plan_link(m, d)) && pass_run_default(m, NULL, d);
    if (ok) {
        diag vd;
        diag_init(&vd);
        if (!ir_verify(m, &vd)) {
            diag_error(d, DIAG_INTERNAL, "internal compiler error: lower-simt produced invalid IR: %s",
                       vd.message ? vd.message : "?");
            diag_clear(&vd);
            ok = false;
        }
    }
    if (ok && k->is_segment) {
        v->plan = arena_alloc(&k->ar, sizeof *v->plan);
        ok = v->plan && plan_info_read(m, (plan_schedule)schedule, k->nruntime, v->plan, d);
    }
    d->bail = NULL;
    if (!ok)
        return false;
    v->simt_text[0] = module_text(k, m, false);
    v->simt_text[1] = module_text(k, m, true);
    v->simt = m; /* published last: readers check it under the lock */
    return true;
}

kernel_variant *api_kernel_variant(swage_kernel *k, int schedule, diag *d)
{
    if (schedule < 0 || schedule >= KERNEL_VARIANTS || (!k->is_segment && schedule != 0)) {
        diag_error(d, DIAG_ARGUMENT, "schedule %d does not apply to %s", schedule, k->name);
        return NULL;
    }
    kernel_variant *v = &k->variants[schedule];
    pthread_mutex_lock(&k->lock);
    bool ok = v->simt || build_variant(k, schedule, v, d);
    pthread_mutex_unlock(&k->lock);
    return ok ? v : NULL;
}

SWAGE_API swage_status swageKernelLaunchCpuSimt(const swage_kernel *k, const int64_t grid[3],
                                                const swage_arg *args, int nargs,
                                                swage_error **error)
{
    swage_status st = api_check_launch(k, grid, args, nargs, error);
    if (st == SWAGE_OK)
        st = api_check_segment_grid(k, grid, args, error);
    if (st != SWAGE_OK)
        return st;
    if (k->is_segment) /* its grid is the offsets': the automatic schedule, unchecked */
        return grid[0] == 0 ? SWAGE_OK
                            : swageKernelLaunchSegmentsCpuSimt(k, SWAGE_SCHEDULE_AUTO, args, nargs, 0, NULL, error);
    cpu_arg *cargs;
    int ncargs;
    st = api_launch_args(k, grid, args, nargs, false, &cargs, &ncargs, error);
    if (st != SWAGE_OK)
        return st;
    diag d;
    diag_init(&d);
    kernel_variant *v = api_kernel_variant((swage_kernel *)k, 0, &d);
    bool ok = v && cpu_simt_launch(v->simt, grid, cargs, ncargs, &d);
    free(cargs);
    return ok ? SWAGE_OK : api_fail(error, &d);
}

/* The CUDA module cache (cuda_runtime.h) knows a module by a key that must
 * name one PTX text for the life of the process. A kernel's memory is freed
 * when its last reference is released (swageKernelRelease), so the key
 * cannot be an address inside it: each distinct text gets a record here,
 * found by two 64-bit hashes and the length, and never freed. The same
 * text compiled again (a specialisation evicted and recompiled) finds its
 * module already loaded. */
typedef struct ptx_key_rec {
    uint64_t h1, h2;
    size_t len;
    struct ptx_key_rec *next;
} ptx_key_rec;

enum { PTX_KEY_BUCKETS = 1024 };
static pthread_mutex_t ptx_keys_lock = PTHREAD_MUTEX_INITIALIZER;
static ptx_key_rec *ptx_keys[PTX_KEY_BUCKETS];

/* The key of p's text (computed on first use, under k->lock); NULL with d
 * set when out of memory. */
static const void *ptx_key(swage_kernel *k, const kernel_ptx *p, diag *d)
{
    pthread_mutex_lock(&k->lock);
    const void *key = p->key;
    if (!key) {
        size_t len = strlen(p->text);
        uint64_t h1 = hash_bytes(p->text, len, 0), h2 = hash_bytes(p->text, len, 0x5157a6e1d2c3b4a5ULL);
        pthread_mutex_lock(&ptx_keys_lock);
        ptx_key_rec **bucket = &ptx_keys[h1 % PTX_KEY_BUCKETS], *r = *bucket;
        while (r && !(r->h1 == h1 && r->h2 == h2 && r->len == len))
            r = r->next;
        if (!r && (r = malloc(sizeof *r))) {
            *r = (ptx_key_rec){h1, h2, len, *bucket};
            *bucket = r;
        }
        pthread_mutex_unlock(&ptx_keys_lock);
        ((kernel_ptx *)p)->key = key = r;
    }
    pthread_mutex_unlock(&k->lock);
    if (!key)
        diag_error(d, DIAG_NOMEM, "out of memory loading %s", k->name);
    return key;
}

/* PTX of variant v for `sm`, built on first use; caller must not hold k->lock. */
static const kernel_ptx *kernel_ptx_for(swage_kernel *k, kernel_variant *v, int sm, diag *d)
{
    pthread_mutex_lock(&k->lock);
    kernel_ptx *p = v->ptx;
    while (p && p->sm != sm)
        p = p->next;
    if (!p) {
        strbuf sb;
        sb_init(&sb);
        ptx_target t = {.sm = sm};
        if (ptx_emit_module(v->simt, &t, &sb, d)) {
            p = arena_alloc(&k->ar, sizeof *p);
            p->sm = sm;
            p->text = arena_strndup(&k->ar, sb.data ? sb.data : "", sb.len);
            p->key = NULL;
            p->next = v->ptx;
            v->ptx = p;
        }
        sb_free(&sb);
    }
    pthread_mutex_unlock(&k->lock);
    return p;
}

SWAGE_API swage_status swageKernelEmitPtx(const swage_kernel *k, int sm, char **text,
                                          swage_error **error)
{
    return swageKernelEmitPtxSchedule(k, SWAGE_SCHEDULE_AUTO, sm, text, error);
}

SWAGE_API swage_status swageKernelEmitPtxSchedule(const swage_kernel *k, int schedule, int sm, char **text,
                                                  swage_error **error)
{
    if (!k || !text)
        return api_fail_argument(error, "swageKernelEmitPtx needs a kernel and a place for the text");
    if (sm < 50 || sm > 200)
        return api_fail_argument(error, "compute capability %d is out of range (give 10*major+minor, "
                                        "e.g. 90 for sm_90)", sm);
    diag d;
    diag_init(&d);
    kernel_variant *v = api_kernel_variant((swage_kernel *)k, schedule, &d);
    const kernel_ptx *p = v ? kernel_ptx_for((swage_kernel *)k, v, sm, &d) : NULL;
    if (!p)
        return api_fail(error, &d);
    size_t n = strlen(p->text);
    *text = malloc(n + 1);
    if (!*text)
        return api_fail_argument(error, "out of memory");
    memcpy(*text, p->text, n + 1);
    return SWAGE_OK;
}

SWAGE_API const char *swageScheduleName(int schedule)
{
    return schedule >= 0 && schedule < PLAN_SCHEDULES ? plan_schedule_names[schedule] : NULL;
}

SWAGE_API int swageCudaAvailable(void)
{
    diag d;
    diag_init(&d);
    int ok = cuda_available(&d) && cuda_device_count(&d) > 0;
    diag_clear(&d);
    return ok;
}

SWAGE_API swage_status swageCudaStatus(swage_error **error)
{
    diag d;
    diag_init(&d);
    int count = cuda_device_count(&d);
    if (count == 0)
        diag_error(&d, DIAG_RUNTIME, "the CUDA driver reports no CUDA device on this machine");
    return count > 0 ? SWAGE_OK : api_fail(error, &d);
}

SWAGE_API swage_status swageCudaCopyToHost(int device, void *stream, void *host, uint64_t source,
                                           size_t bytes, swage_error **error)
{
    if (bytes && !host)
        return api_fail_argument(error, "swageCudaCopyToHost needs a host buffer for %zu bytes",
                                 bytes);
    diag d;
    diag_init(&d);
    bool ok = cuda_stream_synchronize(device, stream, &d) &&
              cuda_memcpy_dtoh(device, host, source, bytes, &d);
    return ok ? SWAGE_OK : api_fail(error, &d);
}

SWAGE_API swage_status swageCudaAlloc(int device, size_t bytes, uint64_t *ptr, swage_error **error)
{
    if (!ptr)
        return api_fail_argument(error, "swageCudaAlloc needs a place for the pointer");
    diag d;
    diag_init(&d);
    return cuda_mem_alloc(device, bytes, ptr, &d) ? SWAGE_OK : api_fail(error, &d);
}

SWAGE_API int swageCudaStreamIsCapturing(int device, void *stream)
{
    return cuda_stream_capturing(device, stream);
}

SWAGE_API swage_status swageCudaFree(int device, uint64_t ptr, swage_error **error)
{
    diag d;
    diag_init(&d);
    return cuda_mem_free(device, ptr, &d) ? SWAGE_OK : api_fail(error, &d);
}

/* ---- CUDA launches ----------------------------------------------------------------
 *
 * The first launch of a kernel function on a device builds a kernel_launch
 * record (the PTX for the device's compute capability, the loaded function,
 * the CTA size, how many CTAs fit on a multiprocessor, and where each
 * parameter goes in a packed buffer) and publishes it on its variant's
 * list; every later launch finds it with one acquire load, packs the
 * arguments and calls cuda_function_launch: no lock, no allocation, no
 * driver query but cuCtxGetCurrent. */

/* Packed parameters up to this size live on the stack. */
enum { INLINE_PARAM_BYTES = 1024, INLINE_PARAMS = 64 };

const kernel_launch *api_launch_find(const kernel_variant *v, int device, int func)
{
    for (const kernel_launch *l = atomic_load_explicit(&v->launches, memory_order_acquire); l; l = l->next)
        if (l->device == device && l->func == func)
            return l;
    return NULL;
}

static const ir_op *nth_func(const ir_module *m, int n)
{
    for (const ir_op *f = m->body->first; f; f = f->next)
        if (f->kind == IR_FUNC && n-- == 0)
            return f;
    return NULL;
}

/* The parameter layout and CTA size of function `func` of the SIMT
 * module; k->lock held. The runtime parameters come first, then a segment
 * program's hidden ones. */
static kernel_launch *launch_build_locked(swage_kernel *k, kernel_variant *v, int device, int func,
                                          const cuda_function *f, diag *d)
{
    const ir_op *fn = nth_func(v->simt, func);
    const ir_block *body = ir_func_body(fn);
    const ir_attr *threads = ir_attr_get(fn, "simt.num_threads");
    int nparams = body->nargs;
    kernel_launch *l = arena_alloc(&k->ar, sizeof *l);
    launch_param *params = arena_alloc(&k->ar, sizeof *params * (size_t)(nparams ? nparams : 1));
    uint32_t offset = 0;
    for (int i = 0; i < nparams; i++) {
        ir_type t = ir_value_type(v->simt, body->args[i]);
        launch_param *p = &params[i];
        p->pointer = t.kind == TY_PTR;
        p->dtype = (uint8_t)t.dtype;
        if (p->pointer)
            p->size = 8;
        else if (t.dtype > DT_VOID && t.dtype < DT_COUNT)
            p->size = (uint8_t)ir_dtypes[t.dtype].bytes;
        else
            sw_unreachable(d, "parameter %d of %s has no PTX parameter type", i, ir_func_name(fn));
        if (diag_failed(d))
            return NULL;
        offset = (offset + p->size - 1) / p->size * p->size;
        p->offset = offset;
        offset += p->size;
    }
    l->device = device;
    l->func = func;
    l->function = f;
    l->block_threads = threads ? (unsigned)threads->i : 128;
    /* persistent grids (segment programs' lists and splits) are sized by it */
    l->ctas_per_sm = k->is_segment ? cuda_function_ctas_per_sm(f, l->block_threads, 0) : 1;
    l->nparams = nparams;
    l->params_size = offset;
    l->params = params;
    return l;
}

/* The record of function `func` of v on `device`, built on first use (the
 * slow path: device query, PTX, module load). */
const kernel_launch *api_launch_record(swage_kernel *k, kernel_variant *v, int device, int func, diag *d)
{
    const kernel_launch *found = api_launch_find(v, device, func);
    if (found)
        return found;
    int sm;
    if (!cuda_device_sm(device, &sm, d))
        return NULL;
    const kernel_ptx *p = kernel_ptx_for(k, v, sm, d);
    if (!p)
        return NULL;
    const ir_op *fn = nth_func(v->simt, func);
    if (!fn) {
        sw_unreachable(d, "the SIMT form of %s has no function %d", k->name, func);
        return NULL;
    }
    const ir_attr *threads = ir_attr_get(fn, "simt.num_threads");
    const void *key = ptx_key(k, p, d);
    if (!key)
        return NULL;
    cuda_kernel_ref ref = {
        .key = key,
        .ptx = p->text,
        .entry = ir_func_name(fn),
        .block_threads = threads ? (unsigned)threads->i : 128,
    };
    const cuda_function *f = cuda_function_get(&ref, device, d); /* outside k->lock: may JIT */
    if (!f)
        return NULL;
    pthread_mutex_lock(&k->lock);
    kernel_launch *l = (kernel_launch *)api_launch_find(v, device, func); /* another thread may have won */
    if (!l) {
        l = launch_build_locked(k, v, device, func, f, d);
        if (l) {
            l->next = atomic_load_explicit(&v->launches, memory_order_relaxed);
            atomic_store_explicit(&v->launches, l, memory_order_release);
        }
    }
    pthread_mutex_unlock(&k->lock);
    return l;
}

/* A launch with a 0 grid extent runs nothing, but still needs a usable
 * device and a kernel that compiles for it (the module is not loaded). */
static bool launch_empty(swage_kernel *k, int schedule, int device, diag *d)
{
    int sm;
    kernel_variant *v = cuda_device_sm(device, &sm, d) ? api_kernel_variant(k, schedule, d) : NULL;
    return v && kernel_ptx_for(k, v, sm, d) != NULL;
}

/* Writes argument i (a swage_arg) where the packed layout puts it. */
bool api_pack_arg(const swage_kernel *k, int i, const launch_param *p, const swage_arg *a,
                  unsigned char *out, diag *d)
{
    if (p->pointer) {
        if (a->kind != SWAGE_ARG_BUFFER) {
            diag_error(d, DIAG_ARGUMENT, "argument '%s' of %s must be a device buffer",
                       api_runtime_param_name(k, i), k->name);
            return false;
        }
        uint64_t v = (uint64_t)(uintptr_t)a->data;
        memcpy(out, &v, 8);
        return true;
    }
    if (a->kind != SWAGE_ARG_INT && a->kind != SWAGE_ARG_FLOAT) {
        diag_error(d, DIAG_ARGUMENT, "argument '%s' of %s must be a scalar, not a buffer",
                   api_runtime_param_name(k, i), k->name);
        return false;
    }
    double f = a->kind == SWAGE_ARG_FLOAT ? a->f : (double)a->i;
    /* A float for an integer parameter converts as sw.cast does (truncated,
     * saturated, NaN -> 0): a C cast of an out-of-range double is undefined. */
    ir_dtype idt = ir_dtype_is_int((ir_dtype)p->dtype) ? (ir_dtype)p->dtype : DT_I64;
    int64_t v = a->kind == SWAGE_ARG_INT ? a->i : ir_scalar_from_float(idt, a->f).i;
    union {
        uint8_t u8;
        uint16_t u16;
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    } value;
    switch ((ir_dtype)p->dtype) {
    case DT_I1: value.u8 = a->kind == SWAGE_ARG_INT ? a->i != 0 : a->f != 0; break;
    case DT_I8: case DT_U8: value.u8 = (uint8_t)v; break;
    case DT_I16: case DT_U16: value.u16 = (uint16_t)v; break;
    case DT_I32: case DT_U32: value.i32 = (int32_t)(uint32_t)(uint64_t)v; break;
    case DT_I64: case DT_U64: value.i64 = v; break;
    case DT_F16: value.u16 = ir_f32_to_f16((float)f); break;
    case DT_BF16: value.u16 = ir_f32_to_bf16((float)f); break;
    case DT_F32: value.f32 = (float)f; break;
    case DT_F64: value.f64 = f; break;
    default:
        sw_unreachable(d, "parameter '%s' has no PTX parameter type", api_runtime_param_name(k, i));
        return false;
    }
    memcpy(out, &value, p->size);
    return true;
}

/* Launches l with its parameters packed at `params` (aligned for them). */
bool api_launch_packed(const kernel_launch *l, void *stream, const int64_t grid[3], unsigned char *params,
                       bool dependent, diag *d)
{
    void *inline_values[INLINE_PARAMS];
    void **values = l->nparams > INLINE_PARAMS ? malloc(sizeof(void *) * (size_t)l->nparams)
                                               : inline_values;
    if (!values) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    for (int i = 0; i < l->nparams; i++)
        values[i] = params + l->params[i].offset;
    bool ok = (dependent ? cuda_function_launch_dependent : cuda_function_launch)(
        l->function, l->block_threads, 0, stream, grid, l->nparams ? values : NULL, l->nparams, d);
    if (values != inline_values)
        free(values);
    return ok;
}

static bool empty_grid(const int64_t grid[3])
{
    return grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
}

SWAGE_API swage_status swageKernelLaunchCuda(const swage_kernel *k, int device, void *stream,
                                             const int64_t grid[3], const swage_arg *args, int nargs,
                                             swage_error **error)
{
    swage_status st = api_check_launch(k, grid, args, nargs, error);
    if (st == SWAGE_OK)
        st = api_check_segment_grid(k, grid, args, error);
    if (st != SWAGE_OK)
        return st;
    diag d;
    diag_init(&d);
    swage_kernel *kernel = (swage_kernel *)k;
    if (empty_grid(grid))
        return launch_empty(kernel, 0, device, &d) ? SWAGE_OK : api_fail(error, &d);
    if (k->is_segment) /* one CTA per segment, unchecked: the schedule that needs no scratch */
        return swageKernelLaunchSegmentsCuda(k, device, stream, SWAGE_SCHEDULE_CTA, args, nargs, 0, 0, 0,
                                             NULL, error);
    kernel_variant *v = api_kernel_variant(kernel, 0, &d);
    const kernel_launch *l = v ? api_launch_record(kernel, v, device, 0, &d) : NULL;
    if (!l)
        return api_fail(error, &d);
    _Alignas(16) unsigned char inline_params[INLINE_PARAM_BYTES];
    unsigned char *params = l->params_size > INLINE_PARAM_BYTES ? malloc(l->params_size)
                                                                : inline_params;
    bool ok = params != NULL;
    if (!ok)
        diag_error(&d, DIAG_NOMEM, "out of memory");
    for (int i = 0; ok && i < nargs; i++)
        ok = api_pack_arg(k, i, &l->params[i], &args[i], params + l->params[i].offset, &d);
    ok = ok && api_launch_packed(l, stream, grid, params, false, &d);
    if (params != inline_params)
        free(params);
    return ok ? SWAGE_OK : api_fail(error, &d);
}

/* ---- the packed launch and the thread's last error ---------------------------------- */

static pthread_once_t last_error_once = PTHREAD_ONCE_INIT;
static pthread_key_t last_error_key;
static bool last_error_ready;

static void destroy_last_error(void *e)
{
    swageErrorDestroy(e);
}

static void last_error_init(void)
{
    last_error_ready = pthread_key_create(&last_error_key, destroy_last_error) == 0;
}

void api_keep_error(swage_error *e)
{
    pthread_once(&last_error_once, last_error_init);
    if (!last_error_ready) {
        swageErrorDestroy(e);
        return;
    }
    swageErrorDestroy(pthread_getspecific(last_error_key));
    pthread_setspecific(last_error_key, e);
}

/* api_fail, except that with no `error` out-parameter the error is kept
 * for the calling thread (swageErrorTakeLast). */
static swage_status fail_keeping(swage_error **error, diag *d)
{
    if (error)
        return api_fail(error, d);
    swage_error *e = NULL;
    swage_status st = api_fail(&e, d);
    api_keep_error(e);
    return st;
}

SWAGE_API swage_error *swageErrorTakeLast(void)
{
    pthread_once(&last_error_once, last_error_init);
    if (!last_error_ready)
        return NULL;
    swage_error *e = pthread_getspecific(last_error_key);
    if (e)
        pthread_setspecific(last_error_key, NULL);
    return e;
}

_Static_assert(sizeof(swage_cuda_launch) == 40 || sizeof(void *) != 8,
               "swage_cuda_launch is 40 bytes on 64-bit platforms (swage.h)");

SWAGE_API swage_status swageKernelLaunchCudaPacked(const void *launch, swage_error **error)
{
    diag d;
    diag_init(&d);
    if (!launch) {
        diag_error(&d, DIAG_ARGUMENT, "swageKernelLaunchCudaPacked needs a launch buffer");
        return fail_keeping(error, &d);
    }
    swage_cuda_launch h;
    memcpy(&h, launch, sizeof h);
    swage_kernel *k = (swage_kernel *)h.kernel;
    if (!k || h.reserved) {
        diag_error(&d, DIAG_ARGUMENT, "swageKernelLaunchCudaPacked: %s", !k ? "no kernel"
                   : "the header's reserved field must be 0");
        return fail_keeping(error, &d);
    }
    if (k->is_segment) { /* its grid is checked against the offsets' length, not packed here */
        diag_error(&d, DIAG_ARGUMENT, "%s is a segment program: launch it with "
                                      "swageKernelLaunchCuda", k->name);
        return fail_keeping(error, &d);
    }
    int64_t grid[3] = {h.grid[0], h.grid[1], h.grid[2]};
    if (empty_grid(grid))
        return launch_empty(k, 0, h.device, &d) ? SWAGE_OK : fail_keeping(error, &d);
    const kernel_launch *l = api_launch_find(&k->variants[0], h.device, 0);
    if (!l) {
        kernel_variant *v = api_kernel_variant(k, 0, &d);
        if (!v || !(l = api_launch_record(k, v, h.device, 0, &d)))
            return fail_keeping(error, &d);
    }
    if (h.params_size != l->params_size) {
        diag_error(&d, DIAG_ARGUMENT, "the packed parameters of %s are %u bytes, but its %d "
                                      "parameters take %u", k->name, h.params_size, l->nparams,
                   l->params_size);
        return fail_keeping(error, &d);
    }
    /* the caller's buffer may be unaligned: the parameters move to an aligned one */
    _Alignas(16) unsigned char inline_params[INLINE_PARAM_BYTES];
    unsigned char *params = l->params_size > INLINE_PARAM_BYTES ? malloc(l->params_size)
                                                                : inline_params;
    if (!params) {
        diag_error(&d, DIAG_NOMEM, "out of memory");
        return fail_keeping(error, &d);
    }
    memcpy(params, (const unsigned char *)launch + sizeof h, l->params_size);
    bool ok = api_launch_packed(l, h.stream, grid, params, false, &d);
    if (params != inline_params)
        free(params);
    return ok ? SWAGE_OK : fail_keeping(error, &d);
}
