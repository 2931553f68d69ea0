/* cuda_runtime.c - the CUDA Driver API through dlopen: primary contexts, a
 * module cache per (key, entry, device), launches; every failure is a diag
 * naming the driver's error, the call and the kernel (see cuda_runtime.h).
 *
 * The warm launch path takes no lock and asks the driver nothing but
 * cuCtxGetCurrent: device records and cached functions are built once under
 * rt_lock and published with a release store, and readers load them with
 * acquire loads; nothing published is ever changed or freed (except a
 * function's dynamic shared memory limit, an atomic raised under rt_lock). */
#include "cuda_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the few driver types and constants we use (from the CUDA Driver API;
 * declared here so that building needs no cuda.h) ---------------------------- */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr; /* 64-bit builds */
typedef int CUjit_option;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_FAILED = 719,
};
enum { /* CUdevice_attribute */
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};
enum { /* CUjit_option */
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };
enum { DEFAULT_DYNAMIC_SMEM = 48 * 1024 }; /* what a launch may use without opting in */

/* cuLaunchKernelEx's CUlaunchConfig and CUlaunchAttribute, laid out as in
 * CUDA 12 and 13's cuda.h (a 4-byte id padded to 8, then a 64-byte union;
 * the grid, block, shared memory, stream, attributes and their count); the
 * asserts pin the sizes and offsets compared with it. */
enum { CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct launch_attribute {
    int id;
    char pad[4];
    union {
        char pad[64];
        int programmatic_stream_serialization_allowed;
        void *align; /* the union holds pointers in cuda.h */
    } value;
} launch_attribute;
typedef struct launch_config {
    unsigned grid[3], block[3], smem;
    CUstream stream;
    launch_attribute *attrs;
    unsigned nattrs;
} launch_config;
_Static_assert(sizeof(launch_attribute) == 72, "CUlaunchAttribute is 72 bytes");
_Static_assert(offsetof(launch_config, stream) == 32 && offsetof(launch_config, nattrs) == 48 &&
               sizeof(launch_config) == 56, "CUlaunchConfig's layout");

/* Entry points, by their exported (versioned) names: cuda.h maps
 * cuCtxPushCurrent to cuCtxPushCurrent_v2, cuMemAlloc to cuMemAlloc_v2 and
 * so on; the unversioned cuLaunchKernel and cuStreamSynchronize are the
 * legacy-default-stream variants (not the _ptsz ones), which is what a
 * NULL stream must mean here, as in PyTorch. */
typedef struct driver_api {
    CUresult (*Init)(unsigned int flags);
    CUresult (*DeviceGetCount)(int *count);
    CUresult (*DeviceGet)(CUdevice *device, int ordinal);
    CUresult (*DeviceGetAttribute)(int *value, int attribute, CUdevice device);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
    CUresult (*CtxPushCurrent)(CUcontext ctx);
    CUresult (*CtxPopCurrent)(CUcontext *ctx);
    CUresult (*CtxGetCurrent)(CUcontext *ctx); /* optional: without it, launches always push */
    CUresult (*CtxSynchronize)(void);
    CUresult (*StreamSynchronize)(CUstream stream);
    CUresult (*ModuleLoadDataEx)(CUmodule *module, const void *image, unsigned int noptions,
                                 CUjit_option *options, void **values);
    CUresult (*ModuleUnload)(CUmodule module);
    CUresult (*ModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
    CUresult (*FuncSetAttribute)(CUfunction function, int attribute, int value);
    CUresult (*LaunchKernel)(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                             unsigned int bx, unsigned int by, unsigned int bz,
                             unsigned int smem, CUstream stream, void **params, void **extra);
    CUresult (*MemAlloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*MemFree)(CUdeviceptr ptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
    CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
    CUresult (*GetErrorName)(CUresult error, const char **name);
    CUresult (*GetErrorString)(CUresult error, const char **text);
    /* optional (CUDA 12.4+): lets a launch check its parameter count */
    CUresult (*FuncGetParamInfo)(CUfunction f, size_t index, size_t *offset, size_t *size);
    /* optional (recent CUDA 13 drivers): the same count in one call */
    CUresult (*FuncGetParamCount)(CUfunction f, size_t *count);
    /* optional: what segment launches need (their absence is reported there) */
    CUresult (*MemsetD32Async)(CUdeviceptr dst, unsigned int value, size_t count, CUstream stream);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction f, int threads,
                                                           size_t dynamic_smem);
    /* optional (CUDA 12+): launches with attributes (programmatic dependent launches) */
    CUresult (*LaunchKernelEx)(const struct launch_config *config, CUfunction f, void **params,
                               void **extra);
    /* optional: a checked segment launch reads its flag in one round trip with them */
    CUresult (*MemHostAlloc)(void **host, size_t bytes, unsigned int flags);
    CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
    /* optional (CUDA 10+, as graph capture): whether a stream is capturing */
    CUresult (*StreamIsCapturing)(CUstream stream, int *status);
} driver_api;

typedef struct symbol {
    const char *name;
    size_t offset;
    bool required;
} symbol;

#define SYM(field, name) {name, offsetof(driver_api, field), true}
#define OPTIONAL_SYM(field, name) {name, offsetof(driver_api, field), false}
static const symbol symbols[] = {
    SYM(Init, "cuInit"),
    SYM(DeviceGetCount, "cuDeviceGetCount"),
    SYM(DeviceGet, "cuDeviceGet"),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    SYM(CtxPushCurrent, "cuCtxPushCurrent_v2"),
    SYM(CtxPopCurrent, "cuCtxPopCurrent_v2"),
    OPTIONAL_SYM(CtxGetCurrent, "cuCtxGetCurrent"),
    SYM(CtxSynchronize, "cuCtxSynchronize"),
    SYM(StreamSynchronize, "cuStreamSynchronize"),
    SYM(ModuleLoadDataEx, "cuModuleLoadDataEx"),
    SYM(ModuleUnload, "cuModuleUnload"),
    SYM(ModuleGetFunction, "cuModuleGetFunction"),
    SYM(FuncSetAttribute, "cuFuncSetAttribute"),
    SYM(LaunchKernel, "cuLaunchKernel"),
    SYM(MemAlloc, "cuMemAlloc_v2"),
    SYM(MemFree, "cuMemFree_v2"),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
    SYM(GetErrorName, "cuGetErrorName"),
    SYM(GetErrorString, "cuGetErrorString"),
    OPTIONAL_SYM(FuncGetParamInfo, "cuFuncGetParamInfo"),
    OPTIONAL_SYM(FuncGetParamCount, "cuFuncGetParamCount"),
    OPTIONAL_SYM(MemsetD32Async, "cuMemsetD32Async"),
    OPTIONAL_SYM(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
    OPTIONAL_SYM(LaunchKernelEx, "cuLaunchKernelEx"),
    OPTIONAL_SYM(MemHostAlloc, "cuMemHostAlloc"),
    OPTIONAL_SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
    OPTIONAL_SYM(StreamIsCapturing, "cuStreamIsCapturing"),
};
#undef SYM
#undef OPTIONAL_SYM

_Static_assert(sizeof(void *) == sizeof(CUresult (*)(void)), "dlsym results must fit a function pointer");

/* ---- process-wide state ------------------------------------------------------ */

typedef struct device_info {
    CUcontext ctx; /* the primary context, retained for the process */
    int sm;
    int max_grid[3];
    int max_block;
    int max_smem_optin;
    int sms;       /* multiprocessors */
} device_info;

typedef struct device_state {
    atomic_bool ready; /* stored (release) after `info` is complete, under rt_lock */
    device_info info;
} device_state;

/* A cached function (cuda_runtime.h): one per (key, entry, device). */
struct cuda_function {
    const void *key;
    int device;
    char *entry;
    CUmodule module;
    CUfunction function;
    device_info dev;             /* a copy of the device's record */
    int nparams;                 /* -1 when the driver cannot tell */
    atomic_uint dyn_smem_limit;  /* dynamic shared memory allowed now; raised under rt_lock */
    struct cuda_function *next;  /* bucket chain, fixed before publication */
};

enum { MODULE_BUCKETS = 256, MESSAGE_MAX = 1024, JIT_LOG_MAX = 16384 };

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static driver_api cu;
static bool driver_ok;
static char driver_error[MESSAGE_MAX]; /* why the driver is unusable, when !driver_ok */
static const char *driver_path;
static int device_count;

/* Serialises building device records and loading modules (the driver
 * JIT-compiles PTX while it is held, so a key is loaded once). Readers of
 * what is published take no lock. */
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static device_state *devices;
static _Atomic(cuda_function *) modules[MODULE_BUCKETS];

/* ---- error text ------------------------------------------------------------------- */

/* Names for when the driver cannot name its own error (a stub library, or a
 * failure before cuGetErrorName was resolved). */
static const char *fallback_name(CUresult r)
{
    switch (r) {
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 200: return "CUDA_ERROR_INVALID_IMAGE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 719: return "CUDA_ERROR_LAUNCH_FAILED";
    default: return NULL;
    }
}

static void error_words(CUresult r, char *name, size_t name_size, const char **text)
{
    const char *s = NULL;
    if (!(cu.GetErrorName && cu.GetErrorName(r, &s) == CUDA_SUCCESS && s))
        s = fallback_name(r);
    if (s)
        snprintf(name, name_size, "%s", s);
    else
        snprintf(name, name_size, "CUDA error %d", r);
    *text = NULL;
    if (!(cu.GetErrorString && cu.GetErrorString(r, text) == CUDA_SUCCESS && *text))
        *text = NULL;
}

/* A kernel's fault is reported by whichever later call notices it, and it
 * leaves the context unusable. */
static bool sticky_error(CUresult r)
{
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: /* 700 */
    case 702: /* CUDA_ERROR_LAUNCH_TIMEOUT */
    case 710: /* CUDA_ERROR_ASSERT */
    case 714: /* CUDA_ERROR_HARDWARE_STACK_ERROR */
    case 715: /* CUDA_ERROR_ILLEGAL_INSTRUCTION */
    case 716: /* CUDA_ERROR_MISALIGNED_ADDRESS */
    case 717: /* CUDA_ERROR_INVALID_ADDRESS_SPACE */
    case 718: /* CUDA_ERROR_INVALID_PC */
    case CUDA_ERROR_LAUNCH_FAILED: /* 719 */
        return true;
    default:
        return false;
    }
}

/* Records "<CUDA_ERROR_NAME> in <call> <what>: <description>[extra]". */
static bool fail_cu(diag *d, CUresult r, const char *call, const char *extra, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bool fail_cu(diag *d, CUresult r, const char *call, const char *extra, const char *fmt, ...)
{
    char name[96], what[512];
    const char *text;
    error_words(r, name, sizeof name, &text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *hint = "";
    if (sticky_error(r))
        hint = " (a kernel launched earlier on this device faulted; the device's CUDA context "
               "cannot be used any more in this process)";
    else if (r == CUDA_ERROR_STUB_LIBRARY)
        hint = " (this is the CUDA toolkit's stub library, not an NVIDIA driver)";
    diag_error(d, r == CUDA_ERROR_OUT_OF_MEMORY ? DIAG_NOMEM : DIAG_RUNTIME, "%s in %s %s%s%s%s%s",
               name, call, what, text ? ": " : "", text ? text : "", hint, extra ? extra : "");
    return false;
}

/* ---- loading the driver ---------------------------------------------------------- */

/* Whether launches may be programmatic dependent launches: yes unless
 * $SWAGE_PDL is 0 (read once, when the driver loads). */
static bool pdl_allowed = true;

static void driver_load(void)
{
    const char *pdl = getenv("SWAGE_PDL");
    pdl_allowed = !(pdl && strcmp(pdl, "0") == 0);
    const char *env = getenv("SWAGE_LIBCUDA");
    driver_path = env && *env ? env : "libcuda.so.1";
    void *lib = dlopen(driver_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        if (env && *env)
            snprintf(driver_error, sizeof driver_error,
                     "the CUDA driver library %s ($SWAGE_LIBCUDA) could not be loaded (%s)",
                     driver_path, why ? why : "dlopen failed");
        else
            snprintf(driver_error, sizeof driver_error,
                     "libcuda.so.1 not found: no NVIDIA driver on this machine (%s)",
                     why ? why : "dlopen failed");
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *p = dlsym(lib, symbols[i].name);
        if (!p && symbols[i].required) {
            snprintf(driver_error, sizeof driver_error,
                     "%s has no %s: the NVIDIA driver is too old for Swage (it needs the "
                     "driver of CUDA 11 or newer)", driver_path, symbols[i].name);
            memset(&cu, 0, sizeof cu);
            dlclose(lib);
            return;
        }
        memcpy((char *)&cu + symbols[i].offset, &p, sizeof p);
    }
    diag d;
    diag_init(&d);
    CUresult r = cu.Init(0);
    int count = 0;
    if (r == CUDA_SUCCESS) {
        r = cu.DeviceGetCount(&count);
        if (r != CUDA_SUCCESS)
            fail_cu(&d, r, "cuDeviceGetCount", NULL, "(counting devices with %s)", driver_path);
    } else {
        fail_cu(&d, r, "cuInit", NULL, "(initialising %s)", driver_path);
    }
    if (r == CUDA_SUCCESS && count > 0) {
        devices = calloc((size_t)count, sizeof *devices);
        if (!devices)
            diag_error(&d, DIAG_NOMEM, "out of memory");
    }
    if (diag_failed(&d)) {
        snprintf(driver_error, sizeof driver_error, "%s", d.message ? d.message : "CUDA failed");
        diag_clear(&d);
        return; /* the library stays loaded: the driver may have started threads */
    }
    device_count = count;
    driver_ok = true;
}

bool cuda_available(diag *d)
{
    pthread_once(&driver_once, driver_load);
    if (!driver_ok) {
        diag_error(d, DIAG_RUNTIME, "%s", driver_error);
        return false;
    }
    return true;
}

int cuda_device_count(diag *d)
{
    return cuda_available(d) ? device_count : -1;
}

/* ---- devices and their primary contexts -------------------------------------------- */

static bool attribute(CUdevice dev, int ordinal, int which, const char *what, int *value, diag *d)
{
    CUresult r = cu.DeviceGetAttribute(value, which, dev);
    if (r != CUDA_SUCCESS)
        return fail_cu(d, r, "cuDeviceGetAttribute", NULL, "reading the %s of device %d", what,
                       ordinal);
    return true;
}

/* The device's record, set up on first use; rt_lock must be held. */
static const device_info *device_locked(int ordinal, diag *d)
{
    if (ordinal < 0 || ordinal >= device_count) {
        diag_error(d, DIAG_ARGUMENT, "CUDA device %d does not exist (this machine has %d device%s)",
                   ordinal, device_count, device_count == 1 ? "" : "s");
        return NULL;
    }
    device_state *s = &devices[ordinal];
    if (atomic_load_explicit(&s->ready, memory_order_relaxed))
        return &s->info;
    device_info info;
    CUdevice dev;
    CUresult r = cu.DeviceGet(&dev, ordinal);
    if (r != CUDA_SUCCESS) {
        fail_cu(d, r, "cuDeviceGet", NULL, "for device %d", ordinal);
        return NULL;
    }
    int major, minor;
    if (!attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                   "compute capability", &major, d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                   "compute capability", &minor, d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "grid limit", &info.max_grid[0], d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "grid limit", &info.max_grid[1], d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "grid limit", &info.max_grid[2], d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "block limit",
                   &info.max_block, d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                   "shared memory limit", &info.max_smem_optin, d) ||
        !attribute(dev, ordinal, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count",
                   &info.sms, d))
        return NULL;
    /* Retained once and never released: modules loaded into it live for the
     * process, and PyTorch shares the same primary context. */
    r = cu.DevicePrimaryCtxRetain(&info.ctx, dev);
    if (r != CUDA_SUCCESS) {
        fail_cu(d, r, "cuDevicePrimaryCtxRetain", NULL, "for device %d", ordinal);
        return NULL;
    }
    info.sm = 10 * major + minor;
    s->info = info;
    atomic_store_explicit(&s->ready, true, memory_order_release);
    return &s->info;
}

/* The device's record: built once under rt_lock, then read without it. */
static const device_info *device_get(int ordinal, diag *d)
{
    if (!cuda_available(d))
        return NULL;
    if (ordinal >= 0 && ordinal < device_count &&
        atomic_load_explicit(&devices[ordinal].ready, memory_order_acquire))
        return &devices[ordinal].info;
    pthread_mutex_lock(&rt_lock);
    const device_info *s = device_locked(ordinal, d);
    pthread_mutex_unlock(&rt_lock);
    return s;
}

bool cuda_device_sm(int device, int *sm, diag *d)
{
    const device_info *s = device_get(device, d);
    if (!s)
        return false;
    *sm = s->sm;
    return true;
}

bool cuda_device_multiprocessors(int device, int *sms, diag *d)
{
    const device_info *s = device_get(device, d);
    if (!s)
        return false;
    *sms = s->sms;
    return true;
}

static bool push(CUcontext ctx, int ordinal, diag *d)
{
    CUresult r = cu.CtxPushCurrent(ctx);
    if (r != CUDA_SUCCESS)
        return fail_cu(d, r, "cuCtxPushCurrent_v2", NULL, "making device %d's context current",
                       ordinal);
    return true;
}

static bool pop(int ordinal, diag *d)
{
    CUcontext popped;
    CUresult r = cu.CtxPopCurrent(&popped);
    if (r != CUDA_SUCCESS)
        return fail_cu(d, r, "cuCtxPopCurrent_v2", NULL, "restoring the context after using device %d",
                       ordinal);
    return true;
}

/* Whether `ctx` is already the calling thread's current context (then a
 * launch needs no push and pop: PyTorch keeps the device's primary context
 * current on its threads). */
static bool is_current(CUcontext ctx)
{
    CUcontext current = NULL;
    return cu.CtxGetCurrent && cu.CtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx;
}

/* ---- modules ------------------------------------------------------------------------- */

static size_t module_bucket(const void *key, int device)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)((h >> 24) ^ (uintptr_t)device) % MODULE_BUCKETS;
}

/* Counts the entry's parameters where the driver can tell; -1 otherwise.
 * cuFuncGetParamCount answers in one call. Without it the count is the
 * first index cuFuncGetParamInfo rejects, so that last call fails by
 * design (CUDA_ERROR_INVALID_VALUE, once per function loaded: what
 * compute-sanitizer --report-api-errors all reports; docs/testing.md). */
static int count_params(CUfunction f)
{
    size_t count = 0;
    if (cu.FuncGetParamCount && cu.FuncGetParamCount(f, &count) == CUDA_SUCCESS && count <= 65536)
        return (int)count;
    if (!cu.FuncGetParamInfo)
        return -1;
    for (size_t i = 0; i < 65536; i++) {
        size_t offset, size;
        if (cu.FuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS)
            return (int)i;
    }
    return -1;
}

/* The published function of (key, entry, device), or NULL; takes no lock. */
static const cuda_function *module_find(const cuda_kernel_ref *ref, int ordinal)
{
    size_t b = module_bucket(ref->key, ordinal);
    for (const cuda_function *e = atomic_load_explicit(&modules[b], memory_order_acquire); e;
         e = e->next)
        if (e->key == ref->key && e->device == ordinal && !strcmp(e->entry, ref->entry))
            return e;
    return NULL;
}

/* Loads the module of `ref` on a device and publishes its function; rt_lock
 * must be held and the device's context current. */
static const cuda_function *module_load_locked(const cuda_kernel_ref *ref, int ordinal,
                                               const device_info *dev, diag *d)
{
    const cuda_function *found = module_find(ref, ordinal); /* another thread may have won */
    if (found)
        return found;
    char *log = calloc(1, JIT_LOG_MAX);
    cuda_function *e = calloc(1, sizeof *e);
    size_t entry_len = strlen(ref->entry);
    char *entry = malloc(entry_len + 1);
    if (!log || !e || !entry) {
        free(log), free(e), free(entry);
        diag_error(d, DIAG_NOMEM, "out of memory loading %s", ref->entry);
        return NULL;
    }
    memcpy(entry, ref->entry, entry_len + 1);
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)(JIT_LOG_MAX - 1)};
    /* another entry of the same PTX on this device: its module holds this one too */
    CUmodule module = NULL;
    for (const cuda_function *other = atomic_load_explicit(&modules[module_bucket(ref->key, ordinal)],
                                                           memory_order_relaxed);
         other && !module; other = other->next)
        if (other->key == ref->key && other->device == ordinal)
            module = other->module;
    CUresult r = module ? CUDA_SUCCESS : cu.ModuleLoadDataEx(&module, ref->ptx, 2, options, values);
    if (r != CUDA_SUCCESS) {
        log[JIT_LOG_MAX - 1] = 0;
        size_t n = strlen(log);
        while (n && (log[n - 1] == '\n' || log[n - 1] == ' '))
            log[--n] = 0;
        strbuf extra;
        sb_init(&extra);
        if (n)
            sb_printf(&extra, "\nthe driver's PTX JIT log:\n%s", log);
        fail_cu(d, r, "cuModuleLoadDataEx", extra.data, "loading the PTX of %s for sm_%d on device %d",
                ref->entry, dev->sm, ordinal);
        sb_free(&extra);
        free(log), free(e), free(entry);
        return NULL;
    }
    free(log);
    CUfunction function = NULL;
    r = cu.ModuleGetFunction(&function, module, ref->entry);
    if (r != CUDA_SUCCESS) {
        fail_cu(d, r, "cuModuleGetFunction", NULL, "looking up .entry %s in its PTX", ref->entry);
        free(e), free(entry); /* the module stays: other entries may use it */
        return NULL;
    }
    e->key = ref->key;
    e->device = ordinal;
    e->entry = entry;
    e->module = module;
    e->function = function;
    e->dev = *dev;
    e->nparams = count_params(function);
    atomic_init(&e->dyn_smem_limit, DEFAULT_DYNAMIC_SMEM);
    size_t b = module_bucket(ref->key, ordinal);
    e->next = atomic_load_explicit(&modules[b], memory_order_relaxed);
    /* published last; never freed: kernels and their modules live for the process */
    atomic_store_explicit(&modules[b], e, memory_order_release);
    return e;
}

/* ---- launches ------------------------------------------------------------------------- */

static bool check_ref(const cuda_kernel_ref *ref, const cuda_param *params, int nparams, diag *d)
{
    if (!ref || !ref->key || !ref->ptx || !ref->entry || !*ref->entry) {
        diag_error(d, DIAG_INTERNAL, "internal error: cuda_launch needs a key, PTX text and an "
                                     "entry name");
        return false;
    }
    if (nparams < 0 || (nparams > 0 && !params)) {
        diag_error(d, DIAG_INTERNAL, "internal error: launching %s with %d parameters and no "
                                     "values", ref->entry, nparams);
        return false;
    }
    for (int i = 0; i < nparams; i++)
        if (!params[i].data) {
            diag_error(d, DIAG_INTERNAL, "internal error: parameter %d of %s has no value", i,
                       ref->entry);
            return false;
        }
    return true;
}

static bool check_shape(const char *entry, const int64_t grid[3], unsigned block_threads,
                        const int limit[3], int max_block, int device, diag *d)
{
    for (int axis = 0; axis < 3; axis++)
        if (grid[axis] < 0 || grid[axis] > limit[axis]) {
            diag_error(d, DIAG_ARGUMENT,
                       "grid (%lld, %lld, %lld) of %s is out of range on CUDA device %d: axis %d "
                       "must be in 0..%d (the device allows at most %d x %d x %d CTAs)",
                       (long long)grid[0], (long long)grid[1], (long long)grid[2], entry,
                       device, axis, limit[axis], limit[0], limit[1], limit[2]);
            return false;
        }
    if (block_threads < 1 || block_threads > (unsigned)max_block) {
        diag_error(d, DIAG_INTERNAL, "internal error: %s has %u threads per CTA; CUDA device %d "
                                     "allows 1..%d", entry, block_threads, device, max_block);
        return false;
    }
    return true;
}

/* The architectural limits, checked first so that a bad grid is reported
 * the same way on every machine. */
static const int arch_grid_limit[3] = {2147483647, 65535, 65535};

const cuda_function *cuda_function_get(const cuda_kernel_ref *ref, int device, diag *d)
{
    if (!check_ref(ref, NULL, 0, d))
        return NULL;
    diag cause;
    diag_init(&cause);
    const device_info *dev = device_get(device, &cause);
    if (!dev) {
        diag_error(d, cause.kind, "cannot launch %s on CUDA device %d: %s", ref->entry, device,
                   cause.message ? cause.message : "CUDA is not available");
        diag_clear(&cause);
        return NULL;
    }
    const cuda_function *f = module_find(ref, device);
    if (f)
        return f;
    if (!push(dev->ctx, device, d))
        return NULL;
    pthread_mutex_lock(&rt_lock);
    f = module_load_locked(ref, device, dev, d);
    pthread_mutex_unlock(&rt_lock);
    return pop(device, d) && f ? f : NULL;
}

int cuda_function_param_count(const cuda_function *f)
{
    return f ? f->nparams : -1;
}

/* Lets `f` use `smem_bytes` of dynamic shared memory (the opt-in above the
 * default 48 KiB); the caller has made the device's context current. */
static bool allow_smem(const cuda_function *f, unsigned smem_bytes, diag *d)
{
    cuda_function *mut = (cuda_function *)f; /* only the atomic limit changes */
    bool ok = true;
    pthread_mutex_lock(&rt_lock);
    if (smem_bytes > atomic_load_explicit(&mut->dyn_smem_limit, memory_order_relaxed)) {
        CUresult r = cu.FuncSetAttribute(f->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         (int)smem_bytes);
        if (r == CUDA_SUCCESS)
            atomic_store_explicit(&mut->dyn_smem_limit, smem_bytes, memory_order_release);
        else
            ok = fail_cu(d, r, "cuFuncSetAttribute", NULL,
                         "allowing %u bytes of dynamic shared memory for %s", smem_bytes, f->entry);
    }
    pthread_mutex_unlock(&rt_lock);
    return ok;
}

static bool launch(const cuda_function *f, unsigned block_threads, unsigned smem_bytes, void *stream,
                   const int64_t grid[3], void **params, int nparams, bool dependent, diag *d)
{
    if (!f || nparams < 0 || (nparams > 0 && !params)) {
        diag_error(d, DIAG_INTERNAL, "internal error: cuda_function_launch needs a function and "
                                     "its parameters");
        return false;
    }
    if (!check_shape(f->entry, grid, block_threads, arch_grid_limit, 1024, f->device, d) ||
        !check_shape(f->entry, grid, block_threads, f->dev.max_grid, f->dev.max_block, f->device, d))
        return false;
    if (smem_bytes > (unsigned)f->dev.max_smem_optin) {
        diag_error(d, DIAG_ARGUMENT, "%s needs %u bytes of dynamic shared memory; CUDA device %d "
                                     "allows at most %d", f->entry, smem_bytes, f->device,
                   f->dev.max_smem_optin);
        return false;
    }
    if (f->nparams >= 0 && f->nparams != nparams) {
        diag_error(d, DIAG_INTERNAL, "internal error: %s takes %d parameters but the launch gives %d",
                   f->entry, f->nparams, nparams);
        return false;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return true;
    bool pushed = !is_current(f->dev.ctx);
    if (pushed && !push(f->dev.ctx, f->device, d))
        return false;
    bool ok = smem_bytes <= atomic_load_explicit(&((cuda_function *)f)->dyn_smem_limit,
                                                 memory_order_acquire) ||
              allow_smem(f, smem_bytes, d);
    if (ok) {
        CUresult r;
        const char *call = "cuLaunchKernel";
        if (dependent && pdl_allowed && cu.LaunchKernelEx && f->dev.sm >= 90) {
            launch_attribute attr;
            memset(&attr, 0, sizeof attr);
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmatic_stream_serialization_allowed = 1;
            launch_config config = {{(unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2]},
                                    {block_threads, 1, 1}, smem_bytes, (CUstream)stream, &attr, 1};
            call = "cuLaunchKernelEx";
            r = cu.LaunchKernelEx(&config, f->function, nparams ? params : NULL, NULL);
        } else {
            r = cu.LaunchKernel(f->function, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2],
                                block_threads, 1, 1, smem_bytes, (CUstream)stream,
                                nparams ? params : NULL, NULL);
        }
        if (r != CUDA_SUCCESS)
            ok = fail_cu(d, r, call, NULL,
                         "launching %s (grid %lld x %lld x %lld, %u threads per CTA, device %d)",
                         f->entry, (long long)grid[0], (long long)grid[1], (long long)grid[2],
                         block_threads, f->device);
    }
    return (!pushed || pop(f->device, d)) && ok;
}

bool cuda_function_launch(const cuda_function *f, unsigned block_threads, unsigned smem_bytes,
                          void *stream, const int64_t grid[3], void **params, int nparams,
                          diag *d)
{
    return launch(f, block_threads, smem_bytes, stream, grid, params, nparams, false, d);
}

bool cuda_function_launch_dependent(const cuda_function *f, unsigned block_threads,
                                    unsigned smem_bytes, void *stream, const int64_t grid[3],
                                    void **params, int nparams, diag *d)
{
    return launch(f, block_threads, smem_bytes, stream, grid, params, nparams, true, d);
}

int cuda_function_ctas_per_sm(const cuda_function *f, unsigned block_threads, unsigned smem_bytes)
{
    int blocks = 0;
    if (!f || !cu.OccupancyMaxActiveBlocksPerMultiprocessor)
        return 1;
    bool pushed = !is_current(f->dev.ctx);
    diag ignored;
    diag_init(&ignored);
    if (pushed && !push(f->dev.ctx, f->device, &ignored)) {
        diag_clear(&ignored);
        return 1;
    }
    if (cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f->function, (int)block_threads,
                                                     smem_bytes) != CUDA_SUCCESS)
        blocks = 1;
    if (pushed)
        pop(f->device, &ignored);
    diag_clear(&ignored);
    return blocks > 0 ? blocks : 1;
}

bool cuda_memset32_async(int device, void *stream, uint64_t ptr, uint32_t value, size_t count, diag *d)
{
    const device_info *dev = device_get(device, d);
    if (!dev)
        return false;
    if (!count)
        return true;
    if (!cu.MemsetD32Async) {
        diag_error(d, DIAG_RUNTIME, "the CUDA driver %s has no cuMemsetD32Async", driver_path);
        return false;
    }
    bool pushed = !is_current(dev->ctx);
    if (pushed && !push(dev->ctx, device, d))
        return false;
    CUresult r = cu.MemsetD32Async((CUdeviceptr)ptr, value, count, (CUstream)stream);
    bool ok = r == CUDA_SUCCESS || fail_cu(d, r, "cuMemsetD32Async", NULL,
                                           "clearing %zu words at 0x%llx on device %d", count,
                                           (unsigned long long)ptr, device);
    return (!pushed || pop(device, d)) && ok;
}

bool cuda_launch(const cuda_kernel_ref *ref, int device, void *stream, const int64_t grid[3],
                 const cuda_param *params, int nparams, diag *d)
{
    if (!check_ref(ref, params, nparams, d) ||
        !check_shape(ref->entry, grid, ref->block_threads, arch_grid_limit, 1024, device, d))
        return false;
    diag cause;
    diag_init(&cause);
    const device_info *dev = device_get(device, &cause);
    if (!dev) {
        diag_error(d, cause.kind, "cannot launch %s on CUDA device %d: %s", ref->entry, device,
                   cause.message ? cause.message : "CUDA is not available");
        diag_clear(&cause);
        return false;
    }
    if (!check_shape(ref->entry, grid, ref->block_threads, dev->max_grid, dev->max_block, device, d))
        return false;
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
        return true; /* nothing to run; the module is not even loaded */
    if (ref->smem_bytes > (unsigned)dev->max_smem_optin) {
        diag_error(d, DIAG_ARGUMENT, "%s needs %u bytes of dynamic shared memory; CUDA device %d "
                                     "allows at most %d", ref->entry, ref->smem_bytes, device,
                   dev->max_smem_optin);
        return false;
    }
    const cuda_function *f = cuda_function_get(ref, device, d);
    if (!f)
        return false;
    enum { INLINE_PARAMS = 32 };
    void *inline_values[INLINE_PARAMS];
    void **values = nparams > INLINE_PARAMS ? malloc(sizeof(void *) * (size_t)nparams)
                                            : inline_values;
    if (!values) {
        diag_error(d, DIAG_NOMEM, "out of memory launching %s", ref->entry);
        return false;
    }
    for (int i = 0; i < nparams; i++)
        values[i] = (void *)params[i].data; /* the driver only reads them */
    bool ok = cuda_function_launch(f, ref->block_threads, ref->smem_bytes, stream, grid, values,
                                   nparams, d);
    if (values != inline_values)
        free(values);
    return ok;
}

/* ---- memory, copies and synchronisation (tests and tools) ------------------------------ */

/* The body of a synchronous helper: evaluates `call_expr` (a driver call)
 * with the device's context current and returns from the enclosing
 * function, reporting a failure as "<ERROR> in <call_name> <what...>". */
#define WITH_CONTEXT(device, d, call_expr, call_name, ...)                         \
    do {                                                                            \
        const device_info *dev_ = device_get((device), (d));                        \
        if (!dev_ || !push(dev_->ctx, (device), (d)))                               \
            return false;                                                           \
        CUresult r_ = (call_expr);                                                  \
        bool ok_ = r_ == CUDA_SUCCESS || fail_cu((d), r_, call_name, NULL, __VA_ARGS__); \
        return pop((device), (d)) && ok_;                                           \
    } while (0)

bool cuda_mem_alloc(int device, size_t bytes, uint64_t *ptr, diag *d)
{
    CUdeviceptr p = 0;
    const device_info *dev = device_get(device, d);
    if (!dev || !push(dev->ctx, device, d))
        return false;
    CUresult r = cu.MemAlloc(&p, bytes ? bytes : 1);
    bool ok = r == CUDA_SUCCESS ||
              fail_cu(d, r, "cuMemAlloc_v2", NULL, "allocating %zu bytes on device %d", bytes, device);
    *ptr = ok ? (uint64_t)p : 0;
    return pop(device, d) && ok;
}

bool cuda_mem_free(int device, uint64_t ptr, diag *d)
{
    if (!ptr)
        return true;
    WITH_CONTEXT(device, d, cu.MemFree((CUdeviceptr)ptr), "cuMemFree_v2",
                 "freeing 0x%llx on device %d", (unsigned long long)ptr, device);
}

bool cuda_memcpy_htod(int device, uint64_t dst, const void *src, size_t bytes, diag *d)
{
    if (!bytes)
        return cuda_available(d);
    WITH_CONTEXT(device, d, cu.MemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD_v2",
                 "copying %zu bytes to device %d", bytes, device);
}

bool cuda_memcpy_dtoh(int device, void *dst, uint64_t src, size_t bytes, diag *d)
{
    if (!bytes)
        return cuda_available(d);
    WITH_CONTEXT(device, d, cu.MemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH_v2",
                 "copying %zu bytes from device %d", bytes, device);
}

bool cuda_synchronize(int device, diag *d)
{
    WITH_CONTEXT(device, d, cu.CtxSynchronize(), "cuCtxSynchronize",
                 "waiting for device %d", device);
}

bool cuda_stream_synchronize(int device, void *stream, diag *d)
{
    WITH_CONTEXT(device, d, cu.StreamSynchronize((CUstream)stream), "cuStreamSynchronize",
                 "waiting for stream %p of device %d", stream, device);
}

/* ---- bytes read after a stream's work (a checked segment launch's header) ----------------
 *
 * Pinned host memory for cuda_stream_read: one page from cuMemHostAlloc
 * (portable: pinned for every context), allocated on first use and kept
 * for the process, lent PINNED_SLOT_BYTES per read in progress (a read
 * holds its slot only during the call). Without it (an old driver, or the
 * page could not be had) a read waits for the stream and copies
 * synchronously. */

enum { PINNED_SLOTS = 32, CU_MEMHOSTALLOC_PORTABLE = 1 };
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned char *pinned; /* the page, or NULL */
static bool pinned_failed;             /* cuMemHostAlloc failed once: not asked again */
static int pinned_free[PINNED_SLOTS];
static int pinned_nfree;

/* A free pinned slot's index, or -1; a context is current (the first call
 * allocates the page in it). */
static int pinned_take(void)
{
    int slot = -1;
    pthread_mutex_lock(&pinned_lock);
    if (!pinned && !pinned_failed) {
        void *host = NULL;
        if (cu.MemHostAlloc(&host, PINNED_SLOTS * CUDA_STREAM_READ_MAX, CU_MEMHOSTALLOC_PORTABLE) ==
                CUDA_SUCCESS && host) {
            pinned = host;
            for (int i = 0; i < PINNED_SLOTS; i++)
                pinned_free[i] = PINNED_SLOTS - 1 - i;
            pinned_nfree = PINNED_SLOTS;
        } else {
            pinned_failed = true;
        }
    }
    if (pinned && pinned_nfree > 0)
        slot = pinned_free[--pinned_nfree];
    pthread_mutex_unlock(&pinned_lock);
    return slot;
}

static void pinned_give(int slot)
{
    pthread_mutex_lock(&pinned_lock);
    pinned_free[pinned_nfree++] = slot;
    pthread_mutex_unlock(&pinned_lock);
}

bool cuda_stream_read(int device, void *stream, uint64_t ptr, void *out, size_t bytes, diag *d)
{
    if (bytes == 0 || bytes > CUDA_STREAM_READ_MAX)
        sw_unreachable(d, "cuda_stream_read of %zu bytes (at most %d)", bytes, CUDA_STREAM_READ_MAX);
    const device_info *dev = device_get(device, d);
    if (!dev)
        return false;
    bool pushed = !is_current(dev->ctx);
    if (pushed && !push(dev->ctx, device, d))
        return false;
    int slot = cu.MemHostAlloc && cu.MemcpyDtoHAsync ? pinned_take() : -1;
    CUresult r;
    if (slot >= 0) {
        /* queued behind the launch's kernels: one wait covers both */
        volatile unsigned char *host = pinned + (size_t)slot * CUDA_STREAM_READ_MAX;
        r = cu.MemcpyDtoHAsync((void *)host, (CUdeviceptr)ptr, bytes, (CUstream)stream);
        if (r != CUDA_SUCCESS)
            fail_cu(d, r, "cuMemcpyDtoHAsync_v2", NULL, "copying %zu bytes from device %d", bytes, device);
        else if ((r = cu.StreamSynchronize((CUstream)stream)) != CUDA_SUCCESS)
            fail_cu(d, r, "cuStreamSynchronize", NULL, "waiting for stream %p of device %d", stream, device);
        else
            memcpy(out, (const void *)host, bytes);
        pinned_give(slot);
    } else if ((r = cu.StreamSynchronize((CUstream)stream)) != CUDA_SUCCESS) {
        fail_cu(d, r, "cuStreamSynchronize", NULL, "waiting for stream %p of device %d", stream, device);
    } else if ((r = cu.MemcpyDtoH(out, (CUdeviceptr)ptr, bytes)) != CUDA_SUCCESS) {
        fail_cu(d, r, "cuMemcpyDtoH_v2", NULL, "copying %zu bytes from device %d", bytes, device);
    }
    return (!pushed || pop(device, d)) && r == CUDA_SUCCESS;
}

bool cuda_stream_read32(int device, void *stream, uint64_t ptr, uint32_t *value, diag *d)
{
    return cuda_stream_read(device, stream, ptr, value, sizeof *value, d);
}

int cuda_stream_capturing(int device, void *stream)
{
    if (!cu.StreamIsCapturing)
        return 0; /* a driver without it cannot capture */
    diag d;
    diag_init(&d);
    const device_info *dev = device_get(device, &d);
    bool pushed = dev && !is_current(dev->ctx);
    if (!dev || (pushed && !push(dev->ctx, device, &d))) {
        diag_clear(&d);
        return 1;
    }
    int status = 0;
    CUresult r = cu.StreamIsCapturing((CUstream)stream, &status);
    if (pushed)
        pop(device, &d);
    diag_clear(&d);
    /* an error (the legacy stream while another captures) counts as capturing */
    return r != CUDA_SUCCESS || status != 0;
}
