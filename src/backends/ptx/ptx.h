/* ptx.h - the PTX emitter: SIMT IR (docs/simt.md) to PTX text, 1:1.
 *
 * Table-driven: each SIMT op maps to an instruction format; typed virtual
 * registers are declared after the body is emitted; .version and .target
 * are bound last, from the target. An op the emitter cannot render is an
 * internal error naming it, never dropped.
 */
#ifndef SWAGE_PTX_H
#define SWAGE_PTX_H

#include "../../ir/ir.h"

typedef struct ptx_target {
    int sm;          /* compute capability as 10*major+minor: 90 for sm_90, 80 for sm_80 */
    int ptx_version; /* as 10*major+minor, e.g. 78 for PTX ISA 7.8; 0 picks the lowest that has every feature used and supports sm */
} ptx_target;

/* Emits the module's kernel (its first func.func, which must be SIMT IR:
 * carrying simt.num_threads) as a PTX module with one .entry named after
 * the function, `.maxntid num_threads, 1, 1`, appended to `out`.
 * Parameters, one per function argument in order: pointers as .u64 (global
 * addresses), i1 as .u8 (0/1), i8 .s8, ui8 .u8, i32 .s32, i64 .s64,
 * f16/bf16 .b16 (the bits), f32 .f32, f64 .f64. Supported targets: sm_80,
 * 86, 87, 89, 90, 100, 120. Returns false with d set (and `out` untouched):
 * DIAG_COMPILE for what the GPU cannot do yet (sw.exp on float64, ...) at
 * the op, DIAG_ARGUMENT for a bad target, DIAG_INTERNAL for IR the emitter
 * cannot render (an op that is not SIMT IR, named in the message). */
bool ptx_emit_module(const ir_module *m, const ptx_target *target, strbuf *out, diag *d);

#endif
