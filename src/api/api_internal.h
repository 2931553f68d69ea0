/* api_internal.h - what the public-API files share: the error object, the
 * export macro, and the compiled-kernel record the cache owns. */
#ifndef SWAGE_API_INTERNAL_H
#define SWAGE_API_INTERNAL_H

#include "swage.h"
#include "../support/support.h"
#include "../ir/ir.h"

#include <pthread.h>

#define SWAGE_API __attribute__((visibility("default")))

struct swage_error {
    swage_status status;
    char *message;
    char *rendered;
    char *file;
    int line, col;
};

typedef struct kernel_param {
    const char *name;
    const char *type; /* signature grammar, "" for constexprs */
    bool is_constexpr;
} kernel_param;

/* PTX for one compute capability, built on first use. */
typedef struct kernel_ptx {
    int sm;
    const char *text;
    const void *key; /* the CUDA module cache's key for this text (gpu.c): one per distinct
                        text, never freed, so a released kernel's key is never reused */
    struct kernel_ptx *next;
} kernel_ptx;

struct plan_info;

/* One lowered form of a kernel, built on first use under the kernel's lock
 * (gpu.c): a grid program has one, a segment program one per schedule
 * (src/plan/). `simt` is published last; readers check it under the lock.
 * The launch records are published with release stores and read without
 * the lock. */
typedef struct kernel_variant {
    ir_module *simt;              /* the SIMT module (docs/simt.md), or NULL */
    const char *plan_text[2];     /* segment programs: the task kernels before lower-simt */
    const char *simt_text[2];     /* [locations] */
    kernel_ptx *ptx;
    struct plan_info *plan;       /* segment programs: what each task kernel is for */
    _Atomic(struct kernel_launch *) launches;
} kernel_variant;

enum { KERNEL_VARIANTS = 6 };     /* = PLAN_SCHEDULES */

/* A compiled specialisation. Everything it owns lives in `ar`. The fields
 * up to `module` are immutable once the kernel is published in the cache;
 * the lazily built GPU forms below are created under `lock`. */
struct swage_kernel {
    arena ar;
    const char *key;
    size_t key_len;
    uint64_t hash;
    const char *name;
    kernel_param *params;
    int nparams;
    int nruntime;
    const char *stage_text[2][2]; /* [stage][locations] for source and semantic */
    ir_module *module;            /* the semantic module the CPU executor runs */
    /* Segment programs (docs/segments.md): the runtime index of the offsets
     * argument (-1 for grid programs), and the hidden i64 parameters the
     * one-CTA-per-segment schedule appends: hidden_source[h] is the runtime
     * index of the buffer argument whose nelems fills hidden parameter h. */
    bool is_segment;
    int segment_offsets;
    int nhidden;
    const int *hidden_source;
    swage_kernel *next;           /* cache chain */
    int64_t refs;                 /* references handed out (swageKernelRelease), under the cache's lock */

    pthread_mutex_t lock;
    kernel_variant variants[KERNEL_VARIANTS]; /* grid programs: [0] only */
};

/* compile.c: compiles a kernel outside the cache (for the fuzzers and
 * tests, which compile many kernels once each): NULL with *error set on
 * failure. The caller frees it with api_kernel_destroy; every public query
 * and launch function takes it as it takes a cached kernel. */
swage_kernel *api_kernel_compile_uncached(const swage_kernel_spec *spec, swage_error **error);
void api_kernel_destroy(swage_kernel *k);

/* compile.c: checks a launch's grid and arity (and for a segment program,
 * that the grid is (segments or fewer, 1, 1) for its offsets argument) and
 * converts its arguments (the caller frees *out); with `hidden`, the hidden
 * parameters of a segment program's schedule follow the arguments (*nout
 * counts all). */
struct cpu_arg;
swage_status api_check_launch(const swage_kernel *k, const int64_t grid[3], const swage_arg *args,
                              int nargs, swage_error **error);
swage_status api_launch_args(const swage_kernel *k, const int64_t grid[3], const swage_arg *args,
                             int nargs, bool hidden, struct cpu_arg **out, int *nout,
                             swage_error **error);
const char *api_runtime_param_name(const swage_kernel *k, int runtime_index);
/* For a segment program: its offsets argument is a buffer of at least one
 * element and the grid asks for exactly its segments (or 0). Grid programs
 * pass. */
swage_status api_check_segment_grid(const swage_kernel *k, const int64_t grid[3],
                                    const swage_arg *args, swage_error **error);

/* gpu.c: the lowered form of `schedule` (a plan_schedule; grid programs:
 * 0), built on first use (thread safe); NULL with d set on failure. */
kernel_variant *api_kernel_variant(swage_kernel *k, int schedule, diag *d);

/* gpu.c: CUDA launch records, one per (variant, device, function). */
typedef struct launch_param {
    bool pointer;
    uint8_t dtype;   /* ir_dtype of a scalar */
    uint8_t size;    /* bytes: 1, 2, 4 or 8 */
    uint32_t offset; /* in the packed parameters: a multiple of size */
} launch_param;

typedef struct kernel_launch {
    int device;
    int func;                     /* index of the function in the variant's module */
    const struct cuda_function *function;
    unsigned block_threads;
    int ctas_per_sm;              /* resident CTAs per multiprocessor (persistent grids) */
    int nparams;
    uint32_t params_size;         /* bytes of the packed parameters */
    const launch_param *params;
    struct kernel_launch *next;
} kernel_launch;

const kernel_launch *api_launch_find(const kernel_variant *v, int device, int func);
const kernel_launch *api_launch_record(swage_kernel *k, kernel_variant *v, int device, int func, diag *d);
bool api_pack_arg(const swage_kernel *k, int i, const launch_param *p, const swage_arg *a,
                  unsigned char *out, diag *d);
/* Launches l with its packed parameters; `dependent`: as a programmatic
 * dependent launch (cuda_function_launch_dependent), for the segment task
 * kernels, which wait for the work before them. */
bool api_launch_packed(const kernel_launch *l, void *stream, const int64_t grid[3], unsigned char *params,
                       bool dependent, diag *d);

swage_status api_status_of(diag_kind kind);
/* Converts a failed diag into *error (when error is non-NULL), clears d,
 * and returns the status. */
swage_status api_fail(swage_error **error, diag *d);
/* Keeps e (owned; NULL clears) as the calling thread's last error, for
 * swageErrorTakeLast, replacing the one kept before. */
void api_keep_error(swage_error *e);
/* Reports a DIAG_ARGUMENT error with a message and returns its status. */
swage_status api_fail_argument(swage_error **error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
