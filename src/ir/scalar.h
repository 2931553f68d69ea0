/* scalar.h - the meaning of every elementwise op on one scalar element.
 *
 * Shared by the constant folder and the CPU executor so that folding never
 * changes what a kernel computes. A scalar of an integer dtype is held in
 * `i`, wrapped to its width (i1 is 0 or 1, ui8 is 0..255, the other
 * unsigned types zero-extended too but for ui64, held as its 64 bits, so
 * that its values from 2^63 up read as negative int64; signed types are
 * sign-extended); a float is held in `f`, already rounded to its dtype's
 * format (f16/bf16/f32 values are exactly representable in a double).
 */
#ifndef SWAGE_IR_SCALAR_H
#define SWAGE_IR_SCALAR_H

#include "ir.h"

typedef union ir_scalar {
    int64_t i;
    double f;
} ir_scalar;

/* Rounds/wraps a raw value into dtype's representation. from_int wraps
 * (for i1 it keeps bit 0); from_float into an integer dtype follows the
 * sw.cast rules (truncate toward zero, saturate, NaN -> 0). */
ir_scalar ir_scalar_from_int(ir_dtype dt, int64_t v);
/* The same from an unsigned value (a float dtype rounds v itself, not its
 * bits read as int64). */
ir_scalar ir_scalar_from_uint(ir_dtype dt, uint64_t v);
ir_scalar ir_scalar_from_float(ir_dtype dt, double v);
/* From an sw.constant value attribute (ATTR_INT/ATTR_FLOAT/ATTR_BOOL). */
ir_scalar ir_scalar_from_attr(ir_dtype dt, const ir_attr *a);

/* Element-wise evaluation with the semantics documented in ops.def.
 * `kind` is the op; `dt` the operands' element dtype. Returns false for an
 * op kind that is not elementwise on scalars, or that does not apply to dt
 * (sw.div on integers, bitwise ops on floats, float math on integers). */
bool ir_eval_unary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar *out);
bool ir_eval_binary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar b, ir_scalar *out);
/* sw.fma (the one ternary elementwise op); false for other kinds and for
 * integer dtypes. */
bool ir_eval_ternary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar b, ir_scalar c,
                     ir_scalar *out);
/* predicate: "lt" "le" "gt" "ge" "eq" "ne"; returns 0/1, or -1 for a bad predicate. */
int ir_eval_cmp(const char *predicate, ir_dtype dt, ir_scalar a, ir_scalar b);
ir_scalar ir_eval_cast(ir_dtype from, ir_dtype to, ir_scalar a);
/* sw.bitcast: a's bits in memory (as ir_scalar_store writes them) read back
 * as `to`, a dtype of the same width. */
ir_scalar ir_eval_bitcast(ir_dtype from, ir_dtype to, ir_scalar a);
/* The binary op a reduction kind combines with: "sum" -> sw.add, "prod" ->
 * sw.mul, "max" -> sw.maximum, "min" -> sw.minimum; IR_OP_COUNT otherwise
 * (also for NULL). */
ir_op_kind ir_reduce_combine_op(const char *kind);
/* The type a reduction of dt accumulates in (docs/simt.md): f16/bf16 in
 * f32, i1/i8/ui8/i16 in i32, ui16 in ui32, others as they are. */
ir_dtype ir_reduce_accumulator(ir_dtype dt);
/* The smallest and largest value of an integer dtype (i1: 0 and 1) in the
 * canonical representation (ui64's largest is -1, its bits). */
int64_t ir_dtype_min_int(ir_dtype dt);
int64_t ir_dtype_max_int(ir_dtype dt);
/* Whether v is a canonical value of the integer dtype (any v for ui64). */
bool ir_dtype_holds_int(ir_dtype dt, int64_t v);

/* Reductions: identity and combine for kind "sum" "max" "min" "prod". */
bool ir_eval_reduce_identity(const char *kind, ir_dtype dt, ir_scalar *out);
bool ir_eval_reduce_combine(const char *kind, ir_dtype dt, ir_scalar acc, ir_scalar x,
                            ir_scalar *out);

/* Storage conversions (round to nearest even). */
uint16_t ir_f32_to_f16(float f);
float ir_f16_to_f32(uint16_t h);
uint16_t ir_f32_to_bf16(float f);
float ir_bf16_to_f32(uint16_t h);
/* Reads/writes one element of dtype at p (memory layout as NumPy/PyTorch). */
ir_scalar ir_scalar_load(ir_dtype dt, const void *p);
void ir_scalar_store(ir_dtype dt, void *p, ir_scalar v);

#endif
