/* contiguity.h - which tiles hold runs of consecutive integers or addresses.
 *
 * For every tile value of integer or pointer elements, the analysis records
 * its run length c: positions [k*c, (k+1)*c) of the tile hold consecutive
 * values (x, x+1, ..., or for pointers consecutive elements), for every k.
 * c = 1 promises nothing. Separately it records whether a tile is uniform
 * (all its elements equal: splats, constants and elementwise ops on them).
 * lower-simt turns runs into the `vec` promise of simt.load / simt.store.
 *
 * Positions are a tile's row-major element order (tiles of any rank). For
 * tiles of several dimensions the analysis also records a constant run s:
 * positions [k*s, (k+1)*s) hold one value (a splat: its whole length), so
 * that `rows[:, None] * stride + cols[None, :]` is known to run along its
 * last dim.
 *
 * Rules (docs/simt.md, "Contiguity"): sw.arange of N elements: N; a splat
 * or constant: 1 and uniform; add of x and y: max(min(run x, same y),
 * min(same x, run y)) (a uniform y keeps x's runs), sub: min(run x, same
 * y), sw.addptr as add; a widening integer cast (not from i1): unchanged;
 * sw.reshape: unchanged; sw.broadcast along the last dim: runs of the
 * broadcast trailing dims' size are constant, and otherwise the operand's
 * runs within one row; anything else (block arguments, loads, selects,
 * narrowing casts, products): 1, and the least constant run of its
 * operands for pure elementwise ops.
 */
#ifndef SWAGE_PASSES_CONTIGUITY_H
#define SWAGE_PASSES_CONTIGUITY_H

#include "../ir/ir.h"

typedef struct contiguity {
    int32_t *run;     /* per value: run length (>= 1) */
    int32_t *same;    /* per value: constant run length (>= 1; a tile's length when uniform) */
    uint8_t *uniform; /* per value: every element equal */
    int32_t nvalues;  /* values that existed when the analysis ran */
} contiguity;

/* Makes the arrays for every value of m (in the module arena), promising
 * nothing yet. False only when out of memory. */
bool contiguity_init(ir_module *m, contiguity *out);
/* Analyses every op of `func` (a semantic func.func of m, whose values all
 * existed at contiguity_init) into out. Requires verified IR. One init
 * serves every function of a module: their values are disjoint. */
void contiguity_analyze(ir_module *m, const ir_op *func, contiguity *out);
/* The run length of v; 1 for values created after the analysis. */
int32_t contiguity_run(const contiguity *c, ir_value v);

#endif
