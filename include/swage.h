/* swage.h - the public C API of Swage, a compiler for ragged data.
 *
 * Conventions (after the MLIR C API):
 * - Opaque handles; functions are named swage<Noun><Verb>.
 * - Every fallible call returns a swage_status and, on failure, an error
 *   object through `error` (when `error` is non-NULL) that the caller owns
 *   and releases with swageErrorDestroy.
 * - Text returned through `char **` is malloc'd and owned by the caller:
 *   release it with swageFree.
 * - The library never exits or aborts on user input, and every function may
 *   be called from several threads at once.
 */
#ifndef SWAGE_H
#define SWAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWAGE_VERSION_MAJOR 0
#define SWAGE_VERSION_MINOR 1

typedef enum swage_status {
    SWAGE_OK = 0,
    SWAGE_ERROR_COMPILE = 1,          /* the kernel source or IR is wrong */
    SWAGE_ERROR_INVALID_ARGUMENT = 2, /* a bad argument to this call */
    SWAGE_ERROR_RUNTIME = 3,          /* execution failed (e.g. out-of-bounds access) */
    SWAGE_ERROR_OUT_OF_MEMORY = 4,
    SWAGE_ERROR_INTERNAL = 5,         /* a Swage bug: please report it */
    SWAGE_ERROR_INTERRUPTED = 6,      /* a CPU launch stopped by its cancel flag (swageCpuSetCancelFlag) */
} swage_status;

/* ---- errors ------------------------------------------------------------ */

typedef struct swage_error swage_error;

swage_status swageErrorStatus(const swage_error *error);
/* The plain sentence ("'while' loops are not supported ..."). Borrowed. */
const char *swageErrorMessage(const swage_error *error);
/* The full diagnostic: "file:line:col: error: msg", the source line and a
 * caret under the column. Borrowed. */
const char *swageErrorRendered(const swage_error *error);
/* Location in the user's file; NULL / 0 when the error has none. Borrowed. */
const char *swageErrorFile(const swage_error *error);
int swageErrorLine(const swage_error *error);
int swageErrorColumn(const swage_error *error);
void swageErrorDestroy(swage_error *error);

void swageFree(void *text);
const char *swageVersionString(void);

/* ---- kernels ----------------------------------------------------------- */

typedef struct swage_kernel swage_kernel;

/* What to compile. `source` is the kernel's Python text (one decorated def,
 * as inspect.getsource returns it, or a whole file when `extract` is set);
 * `file_name` and `first_line` place diagnostics in the user's real file.
 *
 * `signature` gives the types of the runtime parameters, comma separated,
 * by name: "x_ptr=*f32,y_ptr=*f32,n=i32" ('*' marks a pointer; element types
 * i1 i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64, also spelt int32, uint64,
 * float16, bool, ...).
 * `constexprs` gives the values of the sl.constexpr parameters:
 * "BLOCK=128,EPS=1e-5,FLAG=True". Parameters with defaults may be omitted.
 *
 * `source_length` is the number of bytes of `source` (0: up to its first
 * NUL). Give it when the text comes from a file or another language, where
 * it may hold a NUL byte: such a source is a compile error at that byte,
 * where a C string would silently end there. */
/* A @sw.jit function the kernel may call: `name` as its calls spell it,
 * `source` its def (as inspect.getsource returns it), placed in the user's
 * file like the kernel's source. The Python package passes every function
 * its kernel can reach (globals of the kernel's module and closure
 * variables, and theirs). */
typedef struct swage_function_source {
    const char *name;
    const char *source;
    const char *file_name;  /* NULL: "<kernel>" */
    int first_line;         /* 0 means 1 */
    size_t source_length;   /* bytes of source; 0: strlen(source) */
} swage_function_source;

typedef struct swage_kernel_spec {
    const char *source;
    const char *file_name;  /* NULL: "<kernel>" */
    int first_line;         /* line of source's first line in file_name; 0 means 1 */
    const char *kernel_name;/* NULL: the (only) def in source */
    const char *signature;  /* NULL or "" when there are no runtime parameters */
    const char *constexprs; /* NULL or "" when there are none */
    int extract;            /* nonzero: source is a whole .py file; find kernel_name in it */
    size_t source_length;   /* bytes of source; 0: strlen(source) */
    /* The functions the kernel may call (NULL and 0: none). A call's name
     * is looked up here first; with `extract`, the top-level defs of the
     * file are callable too. They are part of the cache key. */
    const swage_function_source *functions;
    int nfunctions;
    /* Threads per CTA of a grid program (Triton's num_warps x 32): 0 lets
     * the compiler choose from the longest tile; else a power of two in
     * 32..1024. Segment programs take theirs from the schedule and ignore
     * it. Part of the cache key. */
    int num_threads;
} swage_kernel_spec;

/* Compiles (or finds in the process-wide cache) the specialisation.
 * Compiling the same spec again while the kernel is cached returns the same
 * handle. Each successful call hands out one reference to the kernel; a
 * caller that never releases it keeps the kernel for the life of the
 * process. */
swage_status swageKernelCompile(const swage_kernel_spec *spec, swage_kernel **kernel,
                                swage_error **error);
/* Gives back one reference from swageKernelCompile. When the last one is
 * released, the kernel leaves the cache and its memory is freed (the next
 * compile of its spec compiles it again): the caller must not use the
 * handle afterwards, nor release it while another thread still uses it
 * through that reference. (CUDA modules loaded for it stay loaded, shared
 * with any later kernel of the same PTX.) NULL does nothing. The Python
 * package releases the specialisations its LRU cache evicts (docs/api.md). */
void swageKernelRelease(swage_kernel *kernel);
/* How many kernels the process-wide cache holds now. */
int64_t swageKernelCacheCount(void);

/* Parameters of the compiled kernel, in source order, constexprs included. */
int swageKernelNumParams(const swage_kernel *kernel);
const char *swageKernelParamName(const swage_kernel *kernel, int index); /* borrowed */
/* 1 if the parameter is an sl.constexpr (no runtime argument), else 0. */
int swageKernelParamIsConstexpr(const swage_kernel *kernel, int index);
/* The parameter's type as in the signature grammar ("*f32", "i32"); "" for constexprs. */
const char *swageKernelParamType(const swage_kernel *kernel, int index); /* borrowed */
const char *swageKernelName(const swage_kernel *kernel);                /* borrowed */

/* Segment programs (docs/segments.md) say what happens to one segment of
 * CSR offsets; a launch runs one program per segment, so the caller gives
 * grid = (segments, 1, 1) with segments = (elements of the offsets
 * argument) - 1. The offsets argument is the runtime argument (an index into
 * the launch's `args`: constexprs are not counted) returned here; -1 for an
 * ordinary grid program. Every launch checks that the grid is (n, 1, 1);
 * GPU and CPU SIMT launches also check that the offsets argument is a
 * buffer of at least one element and that n is its elements - 1 (or 0:
 * nothing runs), since they run a schedule over every segment
 * (swageKernelLaunchCuda the forced CTA schedule, unchecked and with no
 * scratch; swageKernelLaunchSegmentsCuda runs any schedule). The offsets' values are the
 * caller's to check (docs/segments.md, "Offsets"): the GPU code clamps each
 * segment to the lengths of the buffers it reads and writes segments of,
 * so bad offsets never make it access memory outside them. */
int swageKernelSegmentOffsetsParam(const swage_kernel *kernel);
/* The task kernels of a segment program take hidden parameters after the
 * runtime ones (docs/schedules.md), first the i64 element counts of the
 * buffers it reads or writes segments of; the launch functions fill them
 * from the BUFFER arguments' nelems. Their number (0 for grid programs),
 * and for hidden count i the runtime argument whose nelems it holds (-1
 * when i is out of range). */
int swageKernelNumHiddenParams(const swage_kernel *kernel);
int swageKernelHiddenParamSource(const swage_kernel *kernel, int index);

/* IR stages for swageKernelEmitMlir. */
typedef enum swage_stage {
    SWAGE_STAGE_SOURCE = 0,   /* straight out of the frontend (specialised, unoptimised) */
    SWAGE_STAGE_SEMANTIC = 1, /* after the default pass pipeline: what the CPU executor runs */
    SWAGE_STAGE_SIMT = 2,     /* one CTA's per-thread program (docs/simt.md): what PTX is printed from */
    SWAGE_STAGE_PLAN = 3,     /* segment programs: the task kernels of a schedule (docs/schedules.md) */
} swage_stage;

/* How a segment program's segments become tasks (docs/schedules.md). AUTO
 * picks per segment from the real lengths; the others force one policy. */
typedef enum swage_schedule {
    SWAGE_SCHEDULE_AUTO = 0,
    SWAGE_SCHEDULE_SUBWARP = 1,    /* every segment on a group of 1..16 lanes (long ones streamed) */
    SWAGE_SCHEDULE_WARP = 2,       /* every segment on one warp */
    SWAGE_SCHEDULE_CTA = 3,        /* every segment on one CTA */
    SWAGE_SCHEDULE_SPLIT = 4,      /* every segment cut into chunks on many CTAs, then merged */
    SWAGE_SCHEDULE_PERSISTENT = 5, /* every segment classified into lists that persistent kernels run */
} swage_schedule;

/* "auto", "subwarp", ...; NULL for an unknown value. Static. */
const char *swageScheduleName(int schedule);

/* The IR of `stage` as MLIR text (with loc(...) on every op when
 * `locations` is nonzero). The caller frees *text with swageFree. */
swage_status swageKernelEmitMlir(const swage_kernel *kernel, swage_stage stage, int locations,
                                 char **text, swage_error **error);
/* The same for one schedule of a segment program (SIMT and PLAN stages;
 * grid programs take SWAGE_SCHEDULE_AUTO only). */
swage_status swageKernelEmitMlirSchedule(const swage_kernel *kernel, swage_stage stage, int schedule,
                                         int locations, char **text, swage_error **error);

/* ---- CPU execution ----------------------------------------------------- */

typedef enum swage_arg_kind {
    SWAGE_ARG_BUFFER = 0, /* host memory: data, nelems elements of the pointee type */
    SWAGE_ARG_INT = 1,    /* integer / bool scalar: i */
    SWAGE_ARG_FLOAT = 2,  /* floating scalar: f */
} swage_arg_kind;

typedef struct swage_arg {
    int kind;        /* swage_arg_kind */
    void *data;      /* BUFFER */
    int64_t nelems;  /* BUFFER: elements (not bytes) available at data */
    int64_t i;       /* INT (a u64 parameter's value from 2^63 up: its bits) */
    double f;        /* FLOAT */
} swage_arg;

/* Runs the kernel on the CPU reference executor over grid[0] x grid[1] x
 * grid[2] programs. `args` are the runtime (non-constexpr) parameters in
 * source order. Synchronous. Out-of-bounds accesses are reported as
 * SWAGE_ERROR_RUNTIME, never performed.
 *
 * A CPU launch that fails, whatever the error (an out-of-bounds access in
 * its last program, SWAGE_ERROR_INTERRUPTED, out of memory), leaves every
 * buffer argument exactly as it was before the call, also when buffers
 * alias: before a launch first writes into a 4 KiB block of a buffer it
 * copies the block aside, and a failed launch copies every saved block
 * back. This holds for all three CPU entry points, a segment program's
 * schedule on the SIMT executor included. The cost: a bit test per stored
 * element and one copy of each block written (memory for the copies, freed
 * when the launch returns). */
swage_status swageKernelLaunchCpu(const swage_kernel *kernel, const int64_t grid[3],
                                  const swage_arg *args, int nargs, swage_error **error);

/* Runs the kernel's SIMT form (the program the GPU runs, lowered to threads,
 * shuffles, barriers and shared memory; for a segment program, the task
 * kernels of its automatic schedule, unchecked: see
 * swageKernelLaunchSegmentsCpuSimt) on the CPU SIMT executor. Same arguments
 * and guarantees as swageKernelLaunchCpu; results agree with it exactly for
 * integers and within float rounding for float reductions. A segment
 * program's offset values are not checked here: the schedule clamps them,
 * as on the GPU. */
swage_status swageKernelLaunchCpuSimt(const swage_kernel *kernel, const int64_t grid[3],
                                      const swage_arg *args, int nargs, swage_error **error);

/* Makes the CPU launches of the calling thread (swageKernelLaunchCpu,
 * swageKernelLaunchCpuSimt, swageKernelLaunchSegmentsCpuSimt) poll *flag
 * before every program or CTA and every loop iteration, with a relaxed
 * atomic load: once it reads nonzero, the launch stops and returns
 * SWAGE_ERROR_INTERRUPTED with every buffer as it was before the call
 * (above), within milliseconds. The flag is the caller's: another thread,
 * or a signal handler the caller installed, sets it (the library installs
 * no signal handler), and the caller clears it before the next launch.
 * NULL stops the polling. Returns the thread's previous flag. The Python
 * package runs the CPU launches of its main thread on a helper thread that
 * polls such a flag, so Ctrl-C stops them with KeyboardInterrupt
 * (docs/api.md). */
const volatile int *swageCpuSetCancelFlag(const volatile int *flag);

/* ---- GPU ---------------------------------------------------------------- */

/* The kernel as PTX for compute capability `sm` (90 for sm_90). The caller
 * frees *text with swageFree. Needs no GPU. */
swage_status swageKernelEmitPtx(const swage_kernel *kernel, int sm, char **text,
                                swage_error **error);

/* The PTX of one schedule of a segment program: every task kernel of the
 * schedule as an .entry of one module. */
swage_status swageKernelEmitPtxSchedule(const swage_kernel *kernel, int schedule, int sm, char **text,
                                        swage_error **error);

/* ---- segment programs: scheduled launches -------------------------------------
 *
 * A segment program runs as the task kernels of a schedule (docs/schedules.md):
 * a direct kernel over the segments (which may classify long ones into lists),
 * persistent kernels over the lists, split kernels for the longest segments.
 * They share one scratch allocation, which the caller provides (from its
 * framework's allocator): its size depends on the schedule, the device and
 * the sizes of the arguments, never on the offsets' values, and is
 * O(segments + elements / tile). Launches are asynchronous on `stream`.
 *
 * `check` (0 or 1) asks the direct kernel to check the offsets (start >= 0,
 * never decreasing, end within every segment buffer); a launch with check
 * then waits for the stream and sets *bad to 1 when they are not valid
 * (the kernels still ran, clamping every segment to the buffers, so
 * outputs may have been written; nothing outside the buffers was touched).
 * Without check nothing waits: the launch can be captured in a CUDA graph. */
swage_status swageKernelSegmentScratchBytes(const swage_kernel *kernel, int device, int schedule,
                                            const swage_arg *args, int nargs, size_t *bytes,
                                            swage_error **error);
swage_status swageKernelLaunchSegmentsCuda(const swage_kernel *kernel, int device, void *stream,
                                           int schedule, const swage_arg *args, int nargs,
                                           uint64_t scratch, size_t scratch_bytes, int check, int *bad,
                                           swage_error **error);
/* The same launch in one buffer, for language bindings that launch often
 * (the Python layer's warm segment path): a swage_segment_launch header
 * followed by `nargs` swage_arg records (the runtime arguments, as for
 * swageKernelLaunchSegmentsCuda; the buffer needs no alignment, and the
 * records are read only when nargs is the kernel's count of runtime
 * parameters). Checks and behaviour are swageKernelLaunchSegmentsCuda's;
 * it returns SWAGE_OK, a
 * failure's status (its error kept for the calling thread when `error` is
 * NULL, see swageErrorTakeLast), or SWAGE_SEGMENT_OFFSETS_BAD when `check`
 * found the offsets invalid (what *bad = 1 says there: the kernels ran,
 * clamped; not an error, so no error is kept). */
typedef struct swage_segment_launch {
    const swage_kernel *kernel;
    void *stream;           /* CUstream; NULL for the legacy default stream */
    uint64_t scratch;       /* device address of the scratch */
    uint64_t scratch_bytes; /* its size (swageKernelSegmentScratchBytes) */
    int32_t device;         /* CUDA device ordinal */
    int32_t schedule;       /* swage_schedule */
    int32_t nargs;          /* swage_arg records after this header */
    int32_t check;          /* 0 or 1, or either | SWAGE_SEGMENT_SCRATCH_KEPT */
} swage_segment_launch;     /* 48 bytes on 64-bit platforms */

#define SWAGE_SEGMENT_OFFSETS_BAD (-1)
/* `check` | SWAGE_SEGMENT_SCRATCH_KEPT: the scratch is one the caller keeps
 * for launch after launch on this stream (never on two streams at once),
 * whose first bytes (those swageKernelLaunchSegmentsCuda clears) are zero,
 * as after a clear or a launch that returned SWAGE_OK or
 * SWAGE_SEGMENT_OFFSETS_BAD. The launch does not clear it and leaves it the
 * same way: the task kernels clear what they count, and a raised
 * offsets flag is cleared after it is read. A launch that failed may leave
 * it dirty: clear it, or take another. When the stream is capturing a CUDA
 * graph, nothing is launched and the call returns SWAGE_SEGMENT_CAPTURING:
 * launch again with a scratch of the graph's own, without the bit. */
#define SWAGE_SEGMENT_SCRATCH_KEPT 2
#define SWAGE_SEGMENT_CAPTURING (-2)
int swageKernelLaunchSegmentsCudaPacked(const void *launch, swage_error **error);

/* The same schedule's task kernels on the CPU SIMT executor (scratch in
 * host memory, allocated here), synchronously. */
swage_status swageKernelLaunchSegmentsCpuSimt(const swage_kernel *kernel, int schedule,
                                              const swage_arg *args, int nargs, int check, int *bad,
                                              swage_error **error);
/* What a launch with these arguments would do, for a person: the schedule's
 * policies and thresholds, per policy the segments, elements and tasks it
 * gets (from `offsets`, the launch's offsets in host memory as int64, or
 * NULL to leave the classification out), the launches in order with the
 * bytes each moves, and the time those bytes take at `bandwidth` GB/s (0: no
 * prediction). `device` -1 plans for the CPU SIMT executor. The caller
 * frees *text with swageFree. */
swage_status swageKernelPlanText(const swage_kernel *kernel, int device, int schedule,
                                 const swage_arg *args, int nargs, const int64_t *offsets,
                                 double bandwidth, char **text, swage_error **error);

/* 1 when a CUDA driver (libcuda.so.1) loads and has at least one device. */
int swageCudaAvailable(void);
/* SWAGE_OK when CUDA launches can work here (a driver loads and has a device);
 * otherwise SWAGE_ERROR_RUNTIME with the reason ("libcuda.so.1 not found: ..."). */
swage_status swageCudaStatus(swage_error **error);

/* Copies `bytes` from device memory at `source` (an address on CUDA device
 * `device`) to `host`, after waiting for `stream` (a CUstream of that
 * device; NULL for the legacy default stream), so that work queued there
 * before is visible. Synchronous. For small reads such as checking a
 * segment program's offsets from a binding that has no other way to read
 * device memory. */
swage_status swageCudaCopyToHost(int device, void *stream, void *host, uint64_t source,
                                 size_t bytes, swage_error **error);

/* Device memory for bindings without an allocator of their own (a segment
 * launch's scratch): synchronous cuMemAlloc / cuMemFree in the device's
 * primary context. */
swage_status swageCudaAlloc(int device, size_t bytes, uint64_t *ptr, swage_error **error);
/* 1 when `stream` (NULL: the legacy default stream) of `device` is capturing
 * a CUDA graph, or the driver cannot say; 0 otherwise (and with a driver
 * too old to capture). */
int swageCudaStreamIsCapturing(int device, void *stream);
swage_status swageCudaFree(int device, uint64_t ptr, swage_error **error);

/* Launches the kernel on CUDA device `device` (its primary context),
 * asynchronously on `stream` (a CUstream; NULL for the legacy default
 * stream). BUFFER arguments carry device pointers in `data` (nelems is the
 * buffer's element count); scalars as for the CPU. The PTX is built for the
 * device's compute capability on first use and the module is cached per
 * context. Driver failures are reported with the driver's error name. */
swage_status swageKernelLaunchCuda(const swage_kernel *kernel, int device, void *stream,
                                   const int64_t grid[3], const swage_arg *args, int nargs,
                                   swage_error **error);

/* The same launch in one buffer, for language bindings that launch often
 * (the Python layer's warm path): a swage_cuda_launch header followed by
 * params_size bytes of runtime arguments laid out as the kernel's PTX
 * parameters: in source order, each at an offset from the end of the header
 * that is a multiple of its size (as a C struct of them would be): device
 * pointers and i64/u64/f64 in 8 bytes, i32/u32/f32 in 4, i16/u16 in 2,
 * f16/bf16 in 2 (their bits),
 * i1/i8/u8 in 1. The buffer needs no alignment. Checks and behaviour are
 * those of swageKernelLaunchCuda (a params_size that differs from the
 * kernel's layout is SWAGE_ERROR_INVALID_ARGUMENT; segment programs are
 * refused: their grid is checked against the offsets' length, which only
 * swageKernelLaunchCuda sees); a warm launch takes no lock and allocates
 * nothing. When `error` is NULL, a failure's error is kept for the calling
 * thread instead (see swageErrorTakeLast), so a caller passes no
 * out-parameter on the fast path. */
typedef struct swage_cuda_launch {
    const swage_kernel *kernel;
    void *stream;         /* CUstream; NULL for the legacy default stream */
    int32_t device;       /* CUDA device ordinal */
    uint32_t grid[3];     /* programs per axis */
    uint32_t params_size; /* bytes of packed parameters after this header */
    uint32_t reserved;    /* 0 */
} swage_cuda_launch;      /* 40 bytes on 64-bit platforms */

swage_status swageKernelLaunchCudaPacked(const void *launch, swage_error **error);

/* The error of this thread's last failed call that kept its error for the
 * thread (swageKernelLaunchCudaPacked or swageKernelLaunchSegmentsCudaPacked
 * with a NULL `error`), or NULL. The
 * caller owns it (swageErrorDestroy); taking it clears the slot. */
swage_error *swageErrorTakeLast(void);

/* ---- IR tools (for swage-opt and tests) --------------------------------- */

/* Parses MLIR text, verifies it, runs the comma-separated `passes` (NULL or
 * "" for none), and returns the printed module. `print_after` ("all" or a
 * comma list of pass names, or NULL) adds dumps after those passes before
 * the final module. */
swage_status swageIrRunPasses(const char *ir_text, const char *file_name, const char *passes,
                              const char *print_after, int locations, char **text,
                              swage_error **error);

/* Like swageIrRunPasses, then emits the module's kernel (SIMT IR after the
 * passes) as PTX for compute capability `sm` (90 for sm_90) instead of
 * printing the module. The caller frees *text with swageFree. */
swage_status swageIrEmitPtx(const char *ir_text, const char *file_name, const char *passes, int sm,
                            char **text, swage_error **error);

#ifdef __cplusplus
}
#endif
#endif
