/* atomic.h - the atomic ops (sw.atomic_rmw, sw.atomic_cas and their SIMT
 * forms simt.atomic_rmw, simt.atomic_cas): their kinds, memory orders and
 * scopes, the element types each kind takes, and what one atomic does to
 * one element of memory. The frontend, the verifier, both CPU executors and
 * the PTX emitter all read these, so they agree on every rule.
 *
 * Float max and min order values as IEEE 754 totalOrder does (-NaN < -inf
 * < ... < -0.0 < +0.0 < ... < +inf < +NaN, NaNs by payload): that is what
 * the GPU's sign-dependent pair of integer atomics computes (a value with
 * the sign bit clear takes the signed integer max of the bit patterns, one
 * with it set the unsigned min; docs/language.md, "Atomics").
 */
#ifndef SWAGE_IR_ATOMIC_H
#define SWAGE_IR_ATOMIC_H

#include "scalar.h"

typedef enum ir_atomic_kind {
    IR_ATOM_ADD,
    IR_ATOM_MAX,
    IR_ATOM_MIN,
    IR_ATOM_AND,
    IR_ATOM_OR,
    IR_ATOM_XOR,
    IR_ATOM_XCHG,
    IR_ATOM_KIND_COUNT
} ir_atomic_kind;

/* The `kind` attribute's spellings, indexed by ir_atomic_kind, then NULL. */
extern const char *const ir_atomic_kind_names[IR_ATOM_KIND_COUNT + 1];
/* The `sem` and `scope` attributes' spellings (Triton's), NULL-terminated. */
extern const char *const ir_atomic_sems[];
extern const char *const ir_atomic_scopes[];

/* The kind named `name`; IR_ATOM_KIND_COUNT for NULL or an unknown name. */
ir_atomic_kind ir_atomic_kind_from_name(const char *name);
bool ir_atomic_sem_valid(const char *sem);
bool ir_atomic_scope_valid(const char *scope);

/* Whether an atomic of `kind` applies to elements of dt: add on i32, i64,
 * f16, f32, f64; max and min on i32, i64, f32, f64; and, or, xor on i32
 * and i64; xchg on i32, i64, f32, f64. */
bool ir_atomic_rmw_dtype_ok(ir_atomic_kind kind, ir_dtype dt);
/* Compare-and-swap: i32, i64, f16, bf16, f32, f64 (compared bit for bit). */
bool ir_atomic_cas_dtype_ok(ir_dtype dt);
/* The element types of ir_atomic_rmw_dtype_ok as a phrase, in the
 * language's names ("int32, int64, float32 or float64") or, with `mlir`,
 * the IR's ("i32, i64, f32 or f64"); kind == IR_ATOM_KIND_COUNT gives
 * compare-and-swap's. */
const char *ir_atomic_dtypes_text(ir_atomic_kind kind, bool mlir);

/* One atomic on the element of dtype dt at `mem` (memory layout as
 * ir_scalar_load's): returns what the element held and writes the new
 * value. The kind and dtype must satisfy ir_atomic_rmw_dtype_ok. */
ir_scalar ir_atomic_rmw_apply(ir_atomic_kind kind, ir_dtype dt, void *mem, ir_scalar value);
/* Compare-and-swap: writes `value` when the element's bits equal those of
 * `cmp` (so a NaN matches the same NaN, and -0.0 does not match +0.0);
 * returns what the element held. */
ir_scalar ir_atomic_cas_apply(ir_dtype dt, void *mem, ir_scalar cmp, ir_scalar value);

#endif
