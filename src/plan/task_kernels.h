/* task_kernels.h - what the planner's files share (task_kernels.c: the
 * schedules; task_flat.c: the flat direct kernel). Private to src/plan. */
#ifndef SWAGE_PLAN_TASK_KERNELS_H
#define SWAGE_PLAN_TASK_KERNELS_H

#include "plan.h"
#include "task_body.h"

typedef struct planner {
    ir_module *m;
    diag *d;
    task_program p;
    const char *name;
    plan_shape shapes[PLAN_MAX_SHAPES];
    int nshapes;
    int nlists;          /* nshapes + stream + split */
    ir_op *anchor;       /* new kernels go before it (the segment program) */
    /* the kernel being built: its parameters */
    ir_op *func;
    ir_value *map;
    ir_value *numel;
    ir_value segments, check, scratch, split_min, chunk, partials_cap;
    ir_value scratch64, chunk_bases; /* the split counter; each split segment's first chunk */
    ir_value *cap;       /* [nlists] */
    ir_value *partial, *merged; /* [nreductions] */
    int64_t stream_max;  /* the direct kernel being built streams segments up to this */
    task_stream_form direct_form; /* how its tasks stream (else PAIRS) */
    bool link_split;     /* the split stage runs in <kernel>__lists (a one-stage program
                            under a schedule with lists) */
    int64_t stream_from; /* a streamer being built: the mean the launch takes it from (0: twice its tile) */
    int64_t sm_threads;  /* a kernel being built: the resident threads a multiprocessor it asks the
                            code generator for (sw.sm_threads; 0: none) */
    /* memory traffic per element read and written, and per segment (its
     * offsets and scalar stores), for the plan's report */
    int read_bytes, write_bytes, segment_bytes;
} planner;

/* The task body for segment sid when it does not fit its tile: stream it,
 * append it to the list of its class, or stream it when it spans at most
 * the kernel's stream_max, else append it. */
typedef enum overflow { OVERFLOW_STREAM, OVERFLOW_LISTS, OVERFLOW_STREAM_THEN_LISTS } overflow;

/* A new task kernel <kernel>__<suffix> before the segment program, with
 * the program's parameters and the hidden ones. */
void begin_kernel(planner *pl, const char *suffix, const char *task, plan_shape shape, int32_t block_threads);
ir_builder kernel_body(planner *pl);
void end_kernel(planner *pl, ir_builder *b);
void set_int(planner *pl, const char *name, int64_t v);
ir_value offsets_param(const planner *pl);
ir_value i64_of(ir_builder *b, ir_value x);
ir_value grid_query(ir_builder *b, ir_op_kind kind);
bool loads_from_params(const planner *pl);
/* Segment sid's range (and the offsets check when `check`), then the
 * program on one tile of `block` when it fits, else what `over` says. */
void emit_segment_task(planner *pl, ir_builder *b, ir_value sid, int32_t block, overflow over,
                       int32_t stream_block, bool check);

/* task_flat.c: auto's flat kernel (<kernel>__direct_flat), for a
 * one-stage program it can run; nothing otherwise. */
void plan_build_flat(planner *pl);

#endif
