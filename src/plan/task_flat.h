/* task_flat.h - what the flat direct kernel's files share (task_flat.c: the
 * window, the walk, the one-stage form; task_flat_stages.c: programs of
 * several stages). Private to src/plan; docs/schedules.md, "The flat
 * kernel". */
#ifndef SWAGE_PLAN_TASK_FLAT_H
#define SWAGE_PLAN_TASK_FLAT_H

#include "task_kernels.h"

enum { FLAT_SEGMENTS = 64, FLAT_ROW = 512, FLAT_EDGE_ROW = 128, FLAT_THREADS = 128, FLAT_WALK_MAX = 1024, FLAT_TASK_TILE = 128 };

/* A window's segments, one a lane (tiles of FLAT_SEGMENTS), and its range. */
typedef struct flat_window {
    ir_value sid;       /* i64 tile: the lanes' segment ids */
    ir_value valid;     /* i1 tile: sid < the segments */
    ir_value starts, ends; /* i64 tiles: the lanes' clamped ranges */
    ir_value longer;    /* i1 tile: the lanes left out of the walk (longer than it takes) */
    ir_value next_long; /* i64: the first such lane's start (INT64_MAX: none) */
    ir_value w0, w1;    /* i64: the window's range */
    ir_value limit;     /* i64: the shortest buffer */
} flat_window;

/* The lanes' scalar work: program values as tiles of one element a lane. */
typedef struct flat {
    planner *pl;
    ir_builder *b;
    ir_value *lanes;   /* program value -> its tile of one element a lane */
    ir_value run;      /* i1 tile: the lanes whose segment the walk ran */
} flat;

void flat_init(flat *f, planner *pl, ir_builder *b, const flat_window *w);
ir_type flat_lane_type(ir_type t);
/* v as a tile of one element a lane (a uniform scalar splat). */
ir_value flat_lane_tile(flat *f, ir_value v);
/* One scalar op of the program for every lane (loads and stores masked to
 * f->run). */
void flat_lane_clone(flat *f, const ir_op *op);
/* sw.segment_id or sw.segment_length for every lane. */
void flat_lane_segment(flat *f, const flat_window *w, const ir_op *op);
bool flat_is_param(const planner *pl, ir_value v);
/* A parameter or a constant: the same for every segment. */
bool flat_uniform(const planner *pl, ir_value v);
/* Scalar ops the lanes run: no regions, memory through sw.load/sw.store. */
bool flat_lane_op(const ir_op *op);
/* A per-segment scalar the rows can take: 32 bits or fewer (it travels as
 * a 32-bit value). */
bool flat_gatherable(ir_type t);
/* Whether every op of the program is one the flat kernel runs: segment
 * values from the segment loads and uniform scalars (with `several`
 * stages, also sw.splat of gatherable per-segment scalars), segment stores
 * (`several` only) through a parameter pointer, scalar work one element a
 * lane. */
bool flat_ops_fit(const planner *pl, bool several);

/* One walk over the window's rows for stage `stage`: `row` makes the
 * row's operands of the stage's reductions (NULL: task_emit_row), given
 * the row at `at` (i64) and the positions relative to the walk's origin
 * (at32, ends32, w0_32: i32); the walk reduces them per segment. */
typedef struct flat_walk flat_walk;
struct flat_walk {
    int32_t stage;
    int nr;
    const int *reductions; /* [nr] indices into reduction_op, in program order */
    void (*row)(flat_walk *walk, task_emitter *e, int32_t block, ir_value at, ir_value at32, ir_value ends32,
                ir_value w0_32, ir_value *vals);
    void *ctx;
};
/* The walk; acc[r]: reduction walk->reductions[r]'s per-lane accumulator. */
void flat_emit_walk(planner *pl, ir_builder *b, const flat_window *w, flat_walk *walk, ir_value *acc);

/* task_flat_stages.c: programs of several stages (a softmax). */
bool flat_stages_run(const planner *pl);
void flat_emit_stages(planner *pl, ir_builder *b, const flat_window *w);

#endif
