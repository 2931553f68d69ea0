/* launch.h - what a launch of a planned segment program runs (launch.c):
 * the task kernels of a schedule read back from its lowered module, and
 * for real sizes the kernels to launch in order, their grids, the hidden
 * parameters and the scratch memory they share. Thresholds that depend on
 * the launch (the direct kernel by the mean segment length, when to split,
 * the chunk size, list capacities) are decided here from sizes the host
 * knows without reading the offsets: the number of segments, the buffers'
 * lengths, the device's multiprocessors. */
#ifndef SWAGE_PLAN_LAUNCH_H
#define SWAGE_PLAN_LAUNCH_H

#include "plan.h"

enum { PLAN_MAX_KERNELS = 36, PLAN_MAX_LISTS = PLAN_MAX_SHAPES + 2, PLAN_MAX_REDUCTIONS = 64 };

typedef enum plan_kernel_kind { PLAN_KERNEL_DIRECT, PLAN_KERNEL_LISTS, PLAN_KERNEL_SPLIT } plan_kernel_kind;

typedef struct plan_kernel {
    const ir_op *func;
    const char *name;
    const char *policy;      /* subwarp, warp, cta, classify, lists, split */
    plan_kernel_kind kind;
    int32_t tile;            /* direct: the longest segment it runs on one tile (0: none) */
    bool to_lists;           /* direct: longer segments go to the lists (else it streams them) */
    int64_t stream_max;      /* direct with lists: it streams segments up to this itself (else tile) */
    bool streamer;           /* direct: auto's kernel for means longer than half a tile */
    int64_t stream_from;     /* streamer: the launch takes it from this mean on (sw.stream_from;
                                else twice its tile) */
    bool flat;               /* direct: auto's flat kernel (a warp walks 64 segments' elements) */
    bool split;              /* it runs split stage `stage`: a split kernel, or a lists kernel
                                linked with a one-stage program's split stage (sw.split_stage) */
    int32_t stage;           /* split */
    int32_t block_threads;   /* CTA size */
    uint32_t lists;          /* lists kernels: the lists it runs (bit c: list c; the split
                                list's bit when it runs the split stage too) */
    int32_t program_threads; /* threads per task */
    int32_t tasks_per_program; /* direct: segments each program runs (1 or more) */
    int32_t flat_row;        /* flat: elements a row of its walk */
    int32_t stages;          /* flat: the program's stages (auto takes it for one) */
} plan_kernel;

/* What every kernel's hidden parameter i (after the program's runtime
 * parameters) holds. */
typedef enum plan_param_role {
    PLAN_PARAM_NUMEL,     /* element count of a segment buffer (index: which hidden count) */
    PLAN_PARAM_SEGMENTS,
    PLAN_PARAM_CHECK,
    PLAN_PARAM_SCRATCH,   /* the i32 scratch */
    PLAN_PARAM_SCRATCH64, /* the i64 split counter */
    PLAN_PARAM_CHUNK_BASES, /* each split segment's first chunk (i64) */
    PLAN_PARAM_CAP,       /* index: the list */
    PLAN_PARAM_SPLIT_MIN,
    PLAN_PARAM_CHUNK,
    PLAN_PARAM_PARTIALS_CAP,
    PLAN_PARAM_PARTIAL,   /* index: the reduction */
    PLAN_PARAM_MERGED,    /* index: the reduction */
} plan_param_role;

typedef struct plan_param {
    plan_param_role role;
    int index;
} plan_param;

typedef struct plan_info {
    plan_schedule schedule;
    int nkernels;
    plan_kernel kernels[PLAN_MAX_KERNELS];
    int nshapes;                      /* single-tile lists; then the stream list, the split list */
    int32_t list_tile[PLAN_MAX_SHAPES];
    int nlists;
    int nreductions;
    int acc_bytes[PLAN_MAX_REDUCTIONS];
    int nruntime;                     /* the program's own parameters */
    int read_bytes, write_bytes;      /* per element of a segment: read (all views), written */
    int segment_bytes;                /* per segment: its offset and scalar stores */
    int nhidden;
    plan_param hidden[PLAN_MAX_LISTS + 2 * PLAN_MAX_REDUCTIONS + 32];
} plan_info;

/* Reads the task kernels of a lowered (SIMT) module; nruntime is the
 * program's own parameter count. False with d set when the module is not a
 * planned segment program. */
bool plan_info_read(const ir_module *m, plan_schedule schedule, int nruntime, plan_info *out, diag *d);

/* Sizes a launch is planned from. */
typedef struct plan_sizes {
    int64_t segments;
    int64_t limit;           /* the shortest buffer segments are read from or stored to:
                                no segment, and no sum of valid segments, is longer */
    int multiprocessors;     /* of the device (the CPU executor: a small fixed number) */
    int ctas_per_sm[PLAN_MAX_KERNELS]; /* per kernel of info: resident CTAs (persistent grids) */
} plan_sizes;

typedef struct plan_launch {
    int kernel;  /* index into info->kernels */
    int64_t grid;
} plan_launch;

typedef struct plan_runtime {
    int direct;             /* the direct kernel chosen */
    int nlaunches;
    plan_launch launches[PLAN_MAX_KERNELS];
    int64_t caps[PLAN_MAX_LISTS];
    int64_t split_min, chunk, partials_cap;
    int64_t direct_max;     /* the longest segment the direct kernel keeps (its sw.stream_max,
                               or split_min when that is shorter: emit_overflow) */
    /* scratch: one allocation of scratch_bytes (16-byte aligned regions);
     * its first zero_bytes must be zero before the first launch */
    size_t scratch_bytes, zero_bytes, words_offset, words_bytes, bases_offset;
    size_t partial_offset[PLAN_MAX_REDUCTIONS], merged_offset[PLAN_MAX_REDUCTIONS];
} plan_runtime;

void plan_runtime_compute(const plan_info *info, const plan_sizes *sizes, plan_runtime *rt);

/* Auto's flat kernel takes means of segment lengths above 1 and up to
 * PLAN_FLAT_MEAN_MAX elements (where a sub-warp kernel or the warp's of
 * 128 would run otherwise); SWAGE_FLAT=1 in the environment takes it for
 * every mean, SWAGE_FLAT=0 never (read at each launch). */
enum { PLAN_FLAT_MEAN_MAX = 64 };

/* The kernel that runs split stage 0 (a split kernel, or the lists kernel
 * linked with it), -1 when the plan splits nothing. */
int plan_split_kernel(const plan_info *info);

/* The value of hidden parameter i as an integer, or (for pointers) a byte
 * offset into the scratch with its element count. */
typedef struct plan_value {
    bool is_pointer;
    int64_t value;    /* integer parameters */
    size_t offset;    /* pointers: bytes into the scratch */
    int64_t nelems;   /* pointers: elements from there */
} plan_value;

plan_value plan_hidden_value(const plan_info *info, const plan_runtime *rt, int i, const int64_t *numel,
                             int64_t segments, bool check);

/* Runs the planned kernels of a lowered module (read by plan_info_read)
 * on the CPU SIMT executor, in order, with a scratch in host memory:
 * `args` are the program's runtime arguments, numel the element counts of
 * its segment buffers (the hidden counts), the machine a small fixed one
 * (PLAN_CPU_MULTIPROCESSORS x PLAN_CPU_CTAS_PER_SM resident CTAs). With
 * `check`, *bad tells whether the direct kernel flagged the offsets (the
 * kernels ran, clamping them, as on a GPU). When a kernel fails (false with
 * d set), every argument buffer is put back as it was before the first
 * kernel ran. */
enum { PLAN_CPU_MULTIPROCESSORS = 2, PLAN_CPU_CTAS_PER_SM = 2 };
struct cpu_arg;
void plan_cpu_sizes(const plan_info *info, int64_t segments, const int64_t *numel, int nnumel, plan_sizes *sz);
bool plan_run_cpu_simt(const ir_module *simt, const plan_info *info, const struct cpu_arg *args,
                       const int64_t *numel, int nnumel, int64_t segments, bool check, bool *bad, diag *d);

#endif
