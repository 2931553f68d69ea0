/* fake_libcuda.c - a stand-in for libcuda.so.1 (loaded through
 * $SWAGE_LIBCUDA) for testing and timing Swage's launch path on machines
 * without a GPU: every entry point Swage resolves succeeds at once, two
 * devices of compute capability 9.0, per-thread current contexts, and a
 * record of what was asked (fake_state below, read through ctypes).
 * cuLaunchKernel does nothing but count and record; fake_state.launch_result
 * makes it fail with a chosen CUresult.
 *
 *   cc -O2 -shared -fPIC -o libfakecuda.so test/python/fake_libcuda.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;

enum { FAKE_DEVICES = 2, FAKE_RECORDED_PARAMS = 16 };

struct fake_state {
    /* calls, by entry point */
    long launches, pushes, pops, get_currents, module_loads, attribute_queries;
    /* the last cuLaunchKernel */
    unsigned grid[3], block[3], smem;
    uint64_t stream;
    uint64_t context; /* the calling thread's current context during it */
    int nparams_recorded; /* set by the caller: how many parameters to copy */
    uint64_t params[FAKE_RECORDED_PARAMS]; /* the first 8 bytes at each params[i] */
    CUresult launch_result; /* what cuLaunchKernel returns (0: success) */
    long memsets;           /* cuMemsetD32Async calls */
    uint64_t memset_words;  /* the last one's word count */
    long launches_ex;       /* of the launches, those through cuLaunchKernelEx */
    long programmatic;      /* of those, with programmatic stream serialization allowed */
};
struct fake_state fake_state;
/* apart from fake_state (whose layout the tests read) */
long fake_syncs;       /* cuStreamSynchronize and cuCtxSynchronize calls */
long fake_copies;      /* copies to the host, synchronous or not */
long fake_async_copies; /* of those, cuMemcpyDtoHAsync_v2 */
int fake_word;         /* what a copy of 4 bytes to the host reads (a segment
                          launch's offsets-check flag), and the word at byte 16
                          of a longer copy up to 128 bytes (a checked launch's
                          scratch header: split counter, flag, list counts) */
int fake_list_count;   /* the word at byte 20 of such a header copy (list 0's
                          count: the persistent kernels have work); the rest
                          of a header reads zero. Other copies write nothing */
int fake_capturing;    /* what cuStreamIsCapturing says of every stream (0: none) */
long fake_capture_queries; /* cuStreamIsCapturing calls */
unsigned long long fake_memset_dst; /* the last cuMemsetD32Async's address */

static char contexts[FAKE_DEVICES];
static char module_object, function_object;
static __thread void *current;
static __thread void *stack[64];
static __thread int depth;

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = FAKE_DEVICES; return 0; }
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }

CUresult cuDeviceGetAttribute(int *value, int attribute, int device)
{
    (void)device;
    fake_state.attribute_queries++;
    switch (attribute) {
    case 1: *value = 1024; break;        /* max threads per block */
    case 5: *value = 2147483647; break;  /* max grid x */
    case 6: case 7: *value = 65535; break;
    case 75: *value = 9; break;          /* compute capability */
    case 76: *value = 0; break;
    case 97: *value = 232448; break;     /* opt-in shared memory */
    case 16: *value = 4; break;          /* multiprocessors */
    default: *value = 0; break;
    }
    return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    if (device < 0 || device >= FAKE_DEVICES)
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *ctx = &contexts[device];
    return 0;
}

CUresult cuCtxPushCurrent_v2(void *ctx)
{
    fake_state.pushes++;
    if (depth == 64)
        return 1;
    stack[depth++] = current;
    current = ctx;
    return 0;
}

CUresult cuCtxPopCurrent_v2(void **ctx)
{
    fake_state.pops++;
    if (ctx)
        *ctx = current;
    current = depth ? stack[--depth] : NULL;
    return 0;
}

CUresult cuCtxGetCurrent(void **ctx) { fake_state.get_currents++; *ctx = current; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return 0; }
CUresult cuCtxSynchronize(void) { fake_syncs++; return 0; }
CUresult cuStreamSynchronize(void *stream) { (void)stream; fake_syncs++; return 0; }

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options, void **values)
{
    (void)image, (void)n, (void)options, (void)values;
    fake_state.module_loads++;
    *module = &module_object;
    return 0;
}

CUresult cuModuleUnload(void *module) { (void)module; return 0; }

CUresult cuModuleGetFunction(void **function, void *module, const char *name)
{
    (void)module, (void)name;
    *function = &function_object;
    return 0;
}

CUresult cuFuncSetAttribute(void *f, int attribute, int value) { (void)f, (void)attribute, (void)value; return 0; }

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *stream, void **params, void **extra)
{
    (void)f, (void)extra;
    fake_state.launches++;
    if (fake_state.launch_result)
        return fake_state.launch_result;
    fake_state.grid[0] = gx, fake_state.grid[1] = gy, fake_state.grid[2] = gz;
    fake_state.block[0] = bx, fake_state.block[1] = by, fake_state.block[2] = bz;
    fake_state.smem = smem;
    fake_state.stream = (uint64_t)(uintptr_t)stream;
    fake_state.context = (uint64_t)(uintptr_t)current;
    for (int i = 0; i < fake_state.nparams_recorded && i < FAKE_RECORDED_PARAMS && params; i++)
        memcpy(&fake_state.params[i], params[i], 8);
    return 0;
}

/* cuLaunchKernelEx's CUlaunchConfig and CUlaunchAttribute, as cuda.h lays them out */
struct fake_attribute {
    int id;
    char pad[4];
    union { char pad[64]; int value; void *align; } value;
};
struct fake_config {
    unsigned grid[3], block[3], smem;
    void *stream;
    struct fake_attribute *attrs;
    unsigned nattrs;
};

#ifndef FAKE_NO_LAUNCH_EX
CUresult cuLaunchKernelEx(const struct fake_config *config, void *f, void **params, void **extra)
{
    CUresult r = cuLaunchKernel(f, config->grid[0], config->grid[1], config->grid[2], config->block[0],
                                config->block[1], config->block[2], config->smem, config->stream,
                                params, extra);
    fake_state.launches_ex++;
    for (unsigned i = 0; i < config->nattrs; i++)
        if (config->attrs[i].id == 6 && config->attrs[i].value.value == 1) /* programmatic */
            fake_state.programmatic++;
    return r;
}
#endif

CUresult cuMemsetD32Async(unsigned long long dst, unsigned value, size_t count, void *stream)
{
    (void)value, (void)stream;
    fake_memset_dst = dst;
    fake_state.memsets++;
    fake_state.memset_words = count;
    return 0;
}

#ifndef FAKE_NO_CAPTURE_QUERY
CUresult cuStreamIsCapturing(void *stream, int *status)
{
    (void)stream;
    fake_capture_queries++;
    *status = fake_capturing;
    return 0;
}
#endif

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *f, int threads, size_t smem)
{
    (void)f, (void)threads, (void)smem;
    *blocks = 2;
    return 0;
}

CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) { (void)bytes; *ptr = 0x100000; return 0; }
CUresult cuMemFree_v2(unsigned long long ptr) { (void)ptr; return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) { (void)dst, (void)src, (void)n; return 0; }
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n)
{
    (void)src;
    fake_copies++;
    if (n == 4)
        memcpy(dst, &fake_word, 4);
    if (n >= 24 && n <= 128) {
        memset(dst, 0, n);
        memcpy((char *)dst + 16, &fake_word, 4);
        memcpy((char *)dst + 20, &fake_list_count, 4);
    }
    return 0;
}

#ifndef FAKE_NO_ASYNC_COPY /* a driver without them: copies to the host are synchronous */
static uint32_t pinned_page[4096];

CUresult cuMemHostAlloc(void **host, size_t bytes, unsigned flags)
{
    (void)flags;
    if (bytes > sizeof pinned_page)
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    *host = pinned_page;
    return 0;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n, void *stream)
{
    (void)stream;
    fake_async_copies++;
    return cuMemcpyDtoH_v2(dst, src, n);
}
#endif

CUresult cuGetErrorName(CUresult r, const char **name)
{
    *name = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : r == 1 ? "CUDA_ERROR_INVALID_VALUE"
                                                              : "CUDA_ERROR_UNKNOWN";
    return 0;
}

CUresult cuGetErrorString(CUresult r, const char **text)
{
    (void)r;
    *text = "an error the fake driver was told to return";
    return 0;
}

CUresult cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr)
{
    (void)attribute, (void)ptr;
    *(int *)data = 0;
    return 0;
}

#ifdef FAKE_PARAMS
/* Built with -DFAKE_PARAMS=N, every function takes N parameters and the
 * driver answers cuFuncGetParamInfo and (unless -DFAKE_NO_PARAM_COUNT)
 * cuFuncGetParamCount, counting the calls and the ones that fail. */
long fake_param_count_calls, fake_param_info_calls, fake_param_info_errors;

#ifndef FAKE_NO_PARAM_COUNT
CUresult cuFuncGetParamCount(void *f, size_t *count)
{
    (void)f;
    fake_param_count_calls++;
    *count = FAKE_PARAMS;
    return 0;
}
#endif

CUresult cuFuncGetParamInfo(void *f, size_t index, size_t *offset, size_t *size)
{
    (void)f;
    fake_param_info_calls++;
    if (index >= FAKE_PARAMS) {
        fake_param_info_errors++;
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    }
    if (offset)
        *offset = 8 * index;
    if (size)
        *size = 8;
    return 0;
}
#endif
