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
    struct kernel_ptx *next;
} kernel_ptx;

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

    pthread_mutex_t lock;
    ir_module *simt;              /* the SIMT module (docs/simt.md), or NULL */
    const char *simt_text[2];     /* [locations] */
    kernel_ptx *ptx;
    /* gpu.c: what a warm CUDA launch needs, one record per device; built
     * under `lock`, published with a release store, read without the lock */
    _Atomic(struct kernel_launch *) launches;
};

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
 * element and the grid asks for at most its segments (no program may read
 * offsets past the end). Grid programs pass. */
swage_status api_check_segment_grid(const swage_kernel *k, const int64_t grid[3],
                                    const swage_arg *args, swage_error **error);

/* gpu.c: the SIMT form, built on first use (thread safe). */
bool api_kernel_simt(swage_kernel *k, diag *d);

swage_status api_status_of(diag_kind kind);
/* Converts a failed diag into *error (when error is non-NULL), clears d,
 * and returns the status. */
swage_status api_fail(swage_error **error, diag *d);
/* Reports a DIAG_ARGUMENT error with a message and returns its status. */
swage_status api_fail_argument(swage_error **error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
