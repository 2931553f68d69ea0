/* cuda_runtime.h - launching PTX through the CUDA Driver API.
 *
 * libcuda.so.1 is opened with dlopen on first use (no CUDA toolkit needed at
 * build or run time; $SWAGE_LIBCUDA names another driver library, for tests);
 * every driver call's failure is reported with the driver's error name
 * (CUDA_ERROR_...), the call, and the kernel's name, never an abort. Contexts
 * are the devices' primary contexts (the ones PyTorch and the CUDA runtime
 * use), retained once per device; modules are cached per (module key, entry,
 * device) for the life of the process and never unloaded. Thread safe; the
 * device records and the module cache are read without locks once built
 * (published with release stores).
 */
#ifndef SWAGE_CUDA_RUNTIME_H
#define SWAGE_CUDA_RUNTIME_H

#include "../support/support.h"

/* Whether a driver can be loaded and initialised (false with d set when not:
 * "libcuda.so.1 not found: no NVIDIA driver on this machine (...)", or the
 * driver's error from cuInit). The answer is fixed for the process. */
bool cuda_available(diag *d);
int cuda_device_count(diag *d); /* -1 on error (d set); may be 0 */
/* Compute capability of `device` as 10*major+minor (90 on an H200). */
bool cuda_device_sm(int device, int *sm, diag *d);
/* Its multiprocessors (132 on an H200). */
bool cuda_device_multiprocessors(int device, int *sms, diag *d);

typedef struct cuda_kernel_ref {
    const void *key;        /* identifies the PTX text for the life of the process
                               (e.g. the compiled kernel's PTX for one sm) */
    const char *ptx;        /* NUL-terminated PTX text (read only when the module is loaded) */
    const char *entry;      /* .entry name; also names the kernel in error messages */
    unsigned block_threads; /* CTA size: 1..the device's limit (1024) */
    unsigned smem_bytes;    /* dynamic shared memory per CTA (static shared memory is
                               declared in the PTX): usually 0 */
} cuda_kernel_ref;

typedef struct cuda_param {
    const void *data; /* pointer to the parameter's value (like cuLaunchKernel's kernelParams) */
} cuda_param;

/* Launches `ref` on `device`'s primary context, asynchronously on `stream`
 * (a CUstream of that device's primary context; NULL for the legacy default
 * stream). The module is loaded (and its PTX JIT-compiled by the driver) on
 * the first launch of a key on a device; a PTX error carries the driver's
 * JIT log. Grid extents must be in 0..2^31-1 (x) and 0..65535 (y, z); a
 * grid with a 0 extent launches nothing (and still checks `ref`). params:
 * one per kernel parameter, in order (checked against the entry's parameter
 * count where the driver can tell). Returns false with d set. Equivalent to
 * cuda_function_get followed by cuda_function_launch. */
bool cuda_launch(const cuda_kernel_ref *ref, int device, void *stream, const int64_t grid[3],
                 const cuda_param *params, int nparams, diag *d);

/* A kernel function loaded on one device, with what launching it needs (the
 * device's primary context and limits). Immutable once returned and valid
 * for the life of the process, so a warm launch reads it without a lock. */
typedef struct cuda_function cuda_function;

/* Finds `ref`'s function on `device`, loading its module on first use (under
 * the runtime's lock, so a key is loaded once); the lookup of a loaded
 * function takes no lock. NULL with d set on failure. */
const cuda_function *cuda_function_get(const cuda_kernel_ref *ref, int device, diag *d);
/* The entry's parameter count, or -1 when the driver cannot tell. */
int cuda_function_param_count(const cuda_function *f);

/* Launches `f` as cuda_launch does: grid, CTA size and shared memory checked
 * against the device's limits, a grid with a 0 extent launches nothing,
 * params[i] points at the value of parameter i. The device's primary context
 * is pushed only when it is not already current (PyTorch makes it current),
 * and nothing else asks the driver anything: a warm launch is one
 * cuCtxGetCurrent and one cuLaunchKernel. */
bool cuda_function_launch(const cuda_function *f, unsigned block_threads, unsigned smem_bytes,
                          void *stream, const int64_t grid[3], void **params, int nparams,
                          diag *d);

/* cuda_function_launch as a programmatic dependent launch (CUDA 12's
 * CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, on compute
 * capability 9.0 and newer): the driver may start the kernel's CTAs before
 * the kernel before it on the stream has finished, once every CTA of that
 * one has run griddepcontrol.launch_dependents (or exited), so the kernel
 * must run griddepcontrol.wait before it reads anything earlier work
 * writes. Swage's segment task kernels begin so (docs/schedules.md). A
 * plain launch where the driver has no cuLaunchKernelEx, on older devices,
 * or when $SWAGE_PDL is 0. */
bool cuda_function_launch_dependent(const cuda_function *f, unsigned block_threads,
                                    unsigned smem_bytes, void *stream, const int64_t grid[3],
                                    void **params, int nparams, diag *d);

/* How many CTAs of f fit on one multiprocessor at once (the driver's
 * occupancy calculator; 1 when it cannot tell). For persistent grids. */
int cuda_function_ctas_per_sm(const cuda_function *f, unsigned block_threads, unsigned smem_bytes);
/* Sets `count` 32-bit words at device address ptr to value, asynchronously
 * on `stream` (cuMemsetD32Async). */
bool cuda_memset32_async(int device, void *stream, uint64_t ptr, uint32_t value, size_t count, diag *d);

/* Device memory and copies for tests and tools (synchronous; device
 * pointers as integers). cuda_mem_free(device, 0) does nothing. */
bool cuda_mem_alloc(int device, size_t bytes, uint64_t *ptr, diag *d);
bool cuda_mem_free(int device, uint64_t ptr, diag *d);
bool cuda_memcpy_htod(int device, uint64_t dst, const void *src, size_t bytes, diag *d);
bool cuda_memcpy_dtoh(int device, void *dst, uint64_t src, size_t bytes, diag *d);
/* Waits for all work on the device's primary context. */
bool cuda_synchronize(int device, diag *d);
/* Waits for `stream` (NULL: the legacy default stream) of `device`. */
bool cuda_stream_synchronize(int device, void *stream, diag *d);
/* The 32-bit word at device address ptr once the work queued on `stream`
 * before it has finished, in one round trip: a cuMemcpyDtoHAsync into
 * pinned memory queued on the stream, then one cuStreamSynchronize (the
 * context pushed only when it is not current). With a driver lacking
 * either entry point, a synchronisation and a synchronous copy. Errors of
 * the stream's earlier work surface here, as from any synchronisation. */
bool cuda_stream_read32(int device, void *stream, uint64_t ptr, uint32_t *value, diag *d);
/* The same for `bytes` (1 .. CUDA_STREAM_READ_MAX) bytes into out. */
enum { CUDA_STREAM_READ_MAX = 128 };
bool cuda_stream_read(int device, void *stream, uint64_t ptr, void *out, size_t bytes, diag *d);
/* Whether `stream` of `device` is capturing a CUDA graph (cuStreamIsCapturing;
 * 0 when the driver lacks it); a failure of the query counts as capturing. */
int cuda_stream_capturing(int device, void *stream);

#endif
