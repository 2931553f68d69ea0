/* lower_segments.h - what the launch path needs to know about a segment
 * program before and after lower-segments (src/passes/lower_segments.c).
 *
 * A segment program (docs/segments.md) has no grid of its own: its launch
 * runs one program per segment, so the grid comes from the length of the
 * offsets buffer, and its schedule takes hidden i64 parameters -- the
 * element counts of the buffers it reads and writes segments of -- that
 * the library fills from the arguments. Both are fixed by the semantic
 * function, so compile.c records them once per kernel.
 */
#ifndef SWAGE_LOWER_SEGMENTS_H
#define SWAGE_LOWER_SEGMENTS_H

#include "../ir/ir.h"

/* The alignment (elements) of a task's first tile: tiles start at the
 * segment's start rounded down to SEGMENT_ALIGN, so that the SIMT layout's
 * chunks of 4 consecutive elements sit on 4-element boundaries of every
 * buffer and vector accesses stay possible whatever the offsets (the mask
 * turns off the elements before the start). */
enum { SEGMENT_ALIGN = 4 };

typedef struct segment_params {
    bool is_segment_program; /* the function uses sw.segment_id or a segment op */
    int offsets;             /* block-argument index of the offsets pointer, -1 when no view */
    int nhidden;             /* hidden i64 parameters appended by lower-segments */
    int *hidden_source;      /* [nhidden]: block-argument index of the buffer whose element
                                count each hidden parameter holds (ascending) */
} segment_params;

/* Fills *out for `func` (arrays in m's arena). A view or store_segment whose
 * pointer, or a view whose offsets, is not a parameter of the function, and
 * a segment program without a view (no offsets to give the grid), are
 * DIAG_COMPILE errors at the op (false). A grid program gives
 * is_segment_program = false, offsets = -1, nhidden = 0. */
bool segments_params(ir_module *m, const ir_op *func, segment_params *out, diag *d);

#endif
