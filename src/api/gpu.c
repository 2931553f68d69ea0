/* gpu.c - the GPU side of the public API: the SIMT form (built once per
 * kernel, under the kernel's lock), the CPU SIMT executor, PTX per compute
 * capability, and launches through the CUDA Driver runtime. */
#include "api_internal.h"
#include "../backends/cpu/cpu_exec.h"
#include "../backends/ptx/ptx.h"
#include "../ir/scalar.h"
#include "../passes/passes.h"
#include "../runtime/cuda_runtime.h"

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

/* Lowers a clone of the semantic module; caller holds k->lock. */
static bool build_simt(swage_kernel *k, diag *d)
{
    jmp_buf bail;
    d->bail = &bail;
    if (setjmp(bail)) {
        d->bail = NULL;
        return false;
    }
    ir_module *m = ir_module_clone(&k->ar, k->module);
    bool ok = pass_lower_simt(m, d) && pass_run_default(m, NULL, d);
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
    d->bail = NULL;
    if (!ok)
        return false;
    k->simt_text[0] = module_text(k, m, false);
    k->simt_text[1] = module_text(k, m, true);
    k->simt = m; /* published last: readers check it under the lock */
    return true;
}

bool api_kernel_simt(swage_kernel *k, diag *d)
{
    pthread_mutex_lock(&k->lock);
    bool ok = k->simt || build_simt(k, d);
    pthread_mutex_unlock(&k->lock);
    return ok;
}

SWAGE_API swage_status swageKernelLaunchCpuSimt(const swage_kernel *k, const int64_t grid[3],
                                                const swage_arg *args, int nargs,
                                                swage_error **error)
{
    cpu_arg *cargs;
    swage_status st = api_launch_args(k, grid, args, nargs, &cargs, error);
    if (st != SWAGE_OK)
        return st;
    diag d;
    diag_init(&d);
    bool ok = api_kernel_simt((swage_kernel *)k, &d) && cpu_simt_launch(k->simt, grid, cargs, nargs, &d);
    free(cargs);
    return ok ? SWAGE_OK : api_fail(error, &d);
}

/* PTX for `sm`, built on first use; caller must not hold k->lock. */
static const kernel_ptx *kernel_ptx_for(swage_kernel *k, int sm, diag *d)
{
    if (!api_kernel_simt(k, d))
        return NULL;
    pthread_mutex_lock(&k->lock);
    kernel_ptx *p = k->ptx;
    while (p && p->sm != sm)
        p = p->next;
    if (!p) {
        strbuf sb;
        sb_init(&sb);
        ptx_target t = {.sm = sm};
        if (ptx_emit_module(k->simt, &t, &sb, d)) {
            p = arena_alloc(&k->ar, sizeof *p);
            p->sm = sm;
            p->text = arena_strndup(&k->ar, sb.data ? sb.data : "", sb.len);
            p->next = k->ptx;
            k->ptx = p;
        }
        sb_free(&sb);
    }
    pthread_mutex_unlock(&k->lock);
    return p;
}

SWAGE_API swage_status swageKernelEmitPtx(const swage_kernel *k, int sm, char **text,
                                          swage_error **error)
{
    if (!k || !text)
        return api_fail_argument(error, "swageKernelEmitPtx needs a kernel and a place for the text");
    if (sm < 50 || sm > 200)
        return api_fail_argument(error, "compute capability %d is out of range (give 10*major+minor, "
                                        "e.g. 90 for sm_90)", sm);
    diag d;
    diag_init(&d);
    const kernel_ptx *p = kernel_ptx_for((swage_kernel *)k, sm, &d);
    if (!p)
        return api_fail(error, &d);
    size_t n = strlen(p->text);
    *text = malloc(n + 1);
    if (!*text)
        return api_fail_argument(error, "out of memory");
    memcpy(*text, p->text, n + 1);
    return SWAGE_OK;
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

/* Storage for one kernel parameter's value as the PTX entry declares it. */
typedef union param_value {
    uint64_t u64;
    int64_t i64;
    int32_t i32;
    uint16_t u16;
    uint8_t u8;
    float f32;
    double f64;
} param_value;

static bool pack_param(const swage_kernel *k, int i, ir_type t, const swage_arg *a, param_value *out,
                       diag *d)
{
    const char *name = api_runtime_param_name(k, i);
    if (t.kind == TY_PTR) {
        if (a->kind != SWAGE_ARG_BUFFER) {
            diag_error(d, DIAG_ARGUMENT, "argument '%s' of %s must be a device buffer", name, k->name);
            return false;
        }
        out->u64 = (uint64_t)(uintptr_t)a->data;
        return true;
    }
    if (a->kind == SWAGE_ARG_BUFFER) {
        diag_error(d, DIAG_ARGUMENT, "argument '%s' of %s must be a scalar, not a buffer", name, k->name);
        return false;
    }
    double f = a->kind == SWAGE_ARG_FLOAT ? a->f : (double)a->i;
    int64_t v = a->kind == SWAGE_ARG_INT ? a->i : (int64_t)a->f;
    switch ((ir_dtype)t.dtype) {
    case DT_I1: out->u8 = a->kind == SWAGE_ARG_INT ? a->i != 0 : a->f != 0; break;
    case DT_I8: case DT_U8: out->u8 = (uint8_t)v; break;
    case DT_I32: out->i32 = (int32_t)(uint32_t)(uint64_t)v; break;
    case DT_I64: out->i64 = v; break;
    case DT_F16: out->u16 = ir_f32_to_f16((float)f); break;
    case DT_BF16: out->u16 = ir_f32_to_bf16((float)f); break;
    case DT_F32: out->f32 = (float)f; break;
    case DT_F64: out->f64 = f; break;
    default:
        sw_unreachable(d, "parameter '%s' has no PTX parameter type", name);
        return false;
    }
    return true;
}

SWAGE_API swage_status swageKernelLaunchCuda(const swage_kernel *k, int device, void *stream,
                                             const int64_t grid[3], const swage_arg *args, int nargs,
                                             swage_error **error)
{
    swage_status st = api_check_launch(k, grid, args, nargs, error);
    if (st != SWAGE_OK)
        return st;
    diag d;
    diag_init(&d);
    int sm;
    if (!cuda_device_sm(device, &sm, &d))
        return api_fail(error, &d);
    const kernel_ptx *p = kernel_ptx_for((swage_kernel *)k, sm, &d);
    if (!p)
        return api_fail(error, &d);

    const ir_op *func = ir_module_func(k->simt);
    const ir_block *body = ir_func_body(func);
    const ir_attr *threads = ir_attr_get(func, "simt.num_threads");
    /* The launch path allocates nothing for ordinary kernels. */
    enum { INLINE_PARAMS = 32 };
    param_value inline_values[INLINE_PARAMS];
    cuda_param inline_params[INLINE_PARAMS];
    bool heap = nargs > INLINE_PARAMS;
    param_value *values = heap ? calloc((size_t)nargs, sizeof *values) : inline_values;
    cuda_param *params = heap ? calloc((size_t)nargs, sizeof *params) : inline_params;
    bool ok = values && params;
    if (!ok)
        diag_error(&d, DIAG_NOMEM, "out of memory");
    for (int i = 0; ok && i < nargs; i++) {
        ok = pack_param(k, i, ir_value_type(k->simt, body->args[i]), &args[i], &values[i], &d);
        params[i].data = &values[i];
    }
    if (ok) {
        cuda_kernel_ref ref = {
            .key = p,
            .ptx = p->text,
            .entry = k->name,
            .block_threads = threads ? (unsigned)threads->i : 128,
        };
        ok = cuda_launch(&ref, device, stream, grid, params, nargs, &d);
    }
    if (heap) {
        free(values);
        free(params);
    }
    return ok ? SWAGE_OK : api_fail(error, &d);
}
