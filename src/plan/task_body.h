/* task_body.h - a segment program instantiated for one task (task_body.c).
 *
 * A segment program says what happens to one segment; a task kernel runs
 * it for the segments its tasks name. Whatever the kernel (direct, list,
 * split chunk), the body of one task is the same program placed at a
 * segment id, with the segment's clamped range [start, end), in one of
 * three forms:
 *
 *   single  the whole segment in one tile of `block` elements starting at
 *           `start` (the task's policy guarantees end - start <= block):
 *           every stage runs on the same tile, so values are read once;
 *   stream  one loop per stage over tiles of `block` elements (from start
 *           rounded down to 4 elements), each loop re-reading what it
 *           needs: any length;
 *   chunk   one stage of a split segment over [start, end) of a chunk,
 *           leaving per-reduction partials for a merge (task_kernels.c).
 *
 * The analysis (which ops are prologue, per-stage roots, segment values,
 * scalar epilogues) is that of docs/segments.md, "Stages".
 */
#ifndef SWAGE_PLAN_TASK_BODY_H
#define SWAGE_PLAN_TASK_BODY_H

#include "../ir/builder.h"
#include "../passes/lower_segments.h"

/* What happens to one top-level op of a segment program. */
typedef enum task_op_class {
    TASK_KEEP,   /* scalar op that needs no reduction: the prologue */
    TASK_POST,   /* scalar op that needs the reductions of stage `place` */
    TASK_VIEW,   /* sw.segment: becomes the task's range */
    TASK_LENGTH, /* sw.segment_length: end - start */
    TASK_SEGVAL, /* makes a segment value: a tile wherever a stage needs it */
    TASK_REDUCE, /* segment reduction: root of stage `place` */
    TASK_STORE,  /* sw.store_segment: root of stage `place` */
    TASK_ID,     /* sw.segment_id: the task's segment id */
    TASK_RETURN,
} task_op_class;

typedef struct task_program {
    ir_module *m;
    diag *d;
    ir_op *func;
    int32_t nvalues;   /* values of the program: the size of every value map */
    int nops;
    ir_op **ops;       /* top-level ops in program order */
    uint8_t *cls;      /* [nops] task_op_class */
    int32_t *place;    /* [nops] TASK_POST: the stage it follows; roots: their stage */
    int32_t *ready;    /* [nvalues] scalars: -1 (prologue) or the stage they follow;
                          segment values: the latest stage their scalar inputs follow */
    int32_t nstages;   /* passes over the segment (last root stage + 1; 0 with no roots) */
    int nreductions;   /* segment reductions, in program order */
    int32_t *reduction_op; /* [nreductions] index into ops */
    segment_params params;
    int offsets_param; /* block-argument index of the offsets pointer */
} task_program;

/* Analyses the segment program `func` of m (its ops are not changed).
 * False with d set when it is not one the schedules can run. */
bool task_program_analyse(ir_module *m, ir_op *func, task_program *p, diag *d);

/* The accumulator type of reduction r (index into p->reduction_op). */
ir_dtype task_reduction_acc(const task_program *p, int r);
/* Whether stage k has segment reductions / scalar ops after it that touch
 * memory (stores) -- what a split stage must merge or run once. */
bool task_stage_has_reductions(const task_program *p, int32_t k);
bool task_stage_has_post(const task_program *p, int32_t k);

/* Building one task's body in a kernel. `map` maps every value of the
 * program to its value in the kernel (parameters first: the caller fills
 * the program's parameters and leaves the rest IR_NO_VALUE). */
typedef struct task_emitter {
    const task_program *p;
    ir_builder b;
    ir_value *map;      /* [p->nvalues] */
    ir_value sid;       /* i32 */
    ir_value start, end;/* i64: the task's range */
    ir_value start32, end32; /* i32: the same, when the offsets are i32 (task_emit_range): the
                                single-tile arithmetic then stays in 32 bits; else IR_NO_VALUE */
    bool lane_major;    /* rows (task_emit_row) of more than 128 elements in sw.segmented_reduce's
                           lane-major order (ops.def): element 128 a + 4 t + s at position
                           (block / 32) t + 4 a + s */
    bool unmasked;      /* rows (task_emit_row) load every element: no mask */
    ir_value lane_rel;  /* with lane_major: task_lane_major_index made once (IR_NO_VALUE: here) */
    ir_value *preset;   /* task_emit_row: [p->nvalues] segment values whose tile the caller made
                           (IR_NO_VALUE elsewhere), or NULL */
    ir_value store_mask;/* task_emit_row: an i1 tile and-ed into its stores' mask, or IR_NO_VALUE */
    /* private */
    ir_value *tile_of;  /* [p->nvalues] segment value -> its tile here */
    uint8_t *needed;    /* [p->nvalues] */
    ir_value base;      /* i64: the element the tile starts at */
    ir_value rel, mask; /* i32 tile 0 .. block-1; i1 tile: inside [start, end) */
    bool preloaded;     /* task_emit_single_loads ran: the tile and its loads are made */
} task_emitter;

void task_emitter_init(task_emitter *e, const task_program *p, ir_builder b, ir_value *map);
/* The lane-major positions of a row of `block` (> 128) elements: element
 * 128 a + 4 t + s at (block / 32) t + 4 a + s (sw.segmented_reduce). An
 * unmasked load through them gets attribute sw.lane_major: its 4-element
 * groups start a multiple of 4 elements apart, so lower-simt promises
 * vec_all. */
ir_value task_lane_major_index(ir_builder *b, int32_t block);

/* start and end of segment sid, clamped to every buffer the program reads
 * or writes segments of (docs/segments.md, "Offsets"): the hidden element
 * counts are map[] of nothing -- they are passed in `numel`. Also gives the
 * raw offsets (i64) for the offsets check when raw is non-NULL. */
void task_emit_range(task_emitter *e, ir_value offsets, ir_value sid, const ir_value *numel, int nnumel,
                     ir_value raw[2]);

/* The prologue: every TASK_KEEP op, sw.segment_id as e->sid and
 * sw.segment_length as end - start. With `once` not IR_NO_VALUE, stores of
 * the prologue run only where it is true (a split segment's first chunk). */
void task_emit_prologue(task_emitter *e, ir_value once);
/* The scalar ops after stage k (TASK_POST, place k); with pure_only, only
 * those that store nothing (a split chunk recomputing earlier stages). */
void task_emit_post(task_emitter *e, int32_t k, bool pure_only);

/* Every stage on one tile of `block` elements at start rounded down to 4
 * elements (the caller knows end - that <= block: task_span). */
void task_emit_single(task_emitter *e, int32_t block);
/* The loads task_emit_single will use (every segment load a stage needs,
 * on the same tile), made now, with `also` (an i1 scalar, or IR_NO_VALUE)
 * and-ed into the mask: a kernel running several tasks issues all their
 * loads before any task's other work, so that they are in flight together
 * (segment loads are not ordered against the program's stores). A later
 * task_emit_single of the same block, where `also` holds, uses them. */
void task_emit_single_loads(task_emitter *e, int32_t block, ir_value also);
/* How a stage streams its tiles. MASKED: every tile masked, one at a time
 * (the least code: for a task that streams at most two tiles, none of
 * which lies inside both ends). INSIDE: only the tiles at the segment's
 * ends are masked -- a first tile when the segment starts past the first
 * tile's base, the tiles wholly inside without a mask, a last tile for what
 * is left. PAIRS: as INSIDE, the tiles inside two at a time, both tiles'
 * loads before either's other work so that they are in flight together (a
 * store between two loads would hold the second back: buffers may alias),
 * then one more when their count is odd; the most code and registers. */
typedef enum task_stream_form { TASK_STREAM_MASKED, TASK_STREAM_INSIDE, TASK_STREAM_PAIRS } task_stream_form;

/* Every stage as a loop over tiles of `block` elements, in `form`, with its
 * scalar epilogue after it. */
void task_emit_stream(task_emitter *e, int32_t block, task_stream_form form);
/* Stage k alone over [start, end) in tiles of `block`: its stores, and for
 * each reduction of stage k its accumulated value (accumulator dtype) in
 * partial[i], i counting stage k's reductions in program order. */
void task_emit_stage(task_emitter *e, int32_t k, int32_t block, ir_value *partial);
/* Stage k's segment values on one tile of `block` elements at `base` (i64),
 * masked to [start, end): for each reduction of stage k, in program order,
 * its operand in the accumulator dtype, the identity where masked off
 * (the flat kernel's rows, task_flat.c); and stage k's stores, masked also
 * by e->store_mask. The tiles of e->preset are taken as they are. */
void task_emit_row(task_emitter *e, int32_t k, int32_t block, ir_value base, ir_value *vals);
/* needed[v] = 1 for the segment values stage k's roots need ([p->nvalues]). */
void task_stage_needs(const task_program *p, int32_t k, uint8_t *needed);
/* Sets the result of reduction r (index into reduction_op) from its merged
 * accumulator value (the i1 fix-up and the cast of docs/simt.md). */
void task_finish_reduction(task_emitter *e, int r, ir_value acc);

/* The online pair at stage k (docs/schedules.md, "One pass for a maximum
 * and a sum of exponentials"): stage k's only root is the maximum M of a
 * float segment value X, and stage k + 1's only root the sum of
 * exp(X - M), with X of the accumulator's dtype. Then both can run in one
 * pass: each lane keeps a running maximum m and the sum d of exp(x - m),
 * rescaled when m grows. True with the reductions' indices in *rmax,
 * *rsum. */
bool task_online_pair(const task_program *p, int32_t k, int *rmax, int *rsum);
/* Stages k and k + 1 of an online pair over [start, end) in tiles of
 * `block`: the maximum and the sum of exp(x - that maximum), both in the
 * accumulator dtype (the sum is 0 where every element is -inf). One
 * exponential an element (the program's exp), the tiles inside the range
 * unmasked and two at a time, a masked head and tail. */
void task_emit_online_stage(task_emitter *e, int32_t k, int32_t block, ir_value *max_out, ir_value *sum_out);
/* d * exp(m - top), or 0 where m is -inf (a part that saw only -inf adds
 * nothing): the rescale of partial sums d of exp(x - m) to a larger
 * maximum `top`; m, d, top scalars or tiles of one type. */
ir_value task_online_rescale(ir_builder *b, ir_value m, ir_value d, ir_value top);

/* The elements a task's tiles of `block` must cover: end - (start rounded
 * down to 4), or end - start for a tile shorter than 4; i32 when the
 * range is (start32), else i64. */
ir_value task_span(task_emitter *e, int32_t block);

#endif
