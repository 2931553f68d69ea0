/* builder.h - building IR: an insertion point and one-line constructors for
 * the ops passes create most (constants, arithmetic, comparisons, casts,
 * scalar memory, loops and branches), and deep copies of ops under a value
 * map. Everything lives in the module's arena; nothing is verified here
 * (the pass manager verifies after each pass).
 */
#ifndef SWAGE_IR_BUILDER_H
#define SWAGE_IR_BUILDER_H

#include "ir.h"
#include "scalar.h"

/* New ops go before `pos`, or at the end of `block` when pos is NULL, at
 * source location `loc`. */
typedef struct ir_builder {
    ir_module *m;
    ir_block *block;
    ir_op *pos;
    src_loc loc;
} ir_builder;

ir_builder irb_at_end(ir_module *m, ir_block *block, src_loc loc);
ir_builder irb_before(ir_module *m, ir_op *pos);

ir_op *irb_op(ir_builder *b, ir_op_kind kind, const ir_value *operands, int n, const ir_type *results,
              int nresults, int nregions);
ir_value irb(ir_builder *b, ir_op_kind kind, const ir_value *operands, int n, ir_type result);
/* x op y with x's type (arithmetic, bitwise, minimum/maximum, addptr). */
ir_value irb_binary(ir_builder *b, ir_op_kind kind, ir_value x, ir_value y);
/* sw.cmp: i1 of x's shape. */
ir_value irb_cmp(ir_builder *b, const char *predicate, ir_value x, ir_value y);
ir_value irb_select(ir_builder *b, ir_value cond, ir_value x, ir_value y);
/* x itself when it already has type `to`. */
ir_value irb_cast(ir_builder *b, ir_value x, ir_type to);
ir_value irb_splat(ir_builder *b, ir_value x, ir_type to);
/* sw.constant of type t (scalar or tile) with every element `value`. */
ir_value irb_const(ir_builder *b, ir_type t, ir_scalar value);
ir_value irb_int(ir_builder *b, ir_dtype dt, int64_t value);
/* *(ptr + index) / *(ptr + index) = value [where mask]; index any integer. */
ir_value irb_load_at(ir_builder *b, ir_value ptr, ir_value index);
void irb_store_at(ir_builder *b, ir_value ptr, ir_value index, ir_value value, ir_value mask);
/* sw.atomic_rmw {kind = "add", sem = "relaxed", scope = "gpu"} of value at
 * ptr + index -> the old value (ordered by sw.fence where it matters). */
ir_value irb_atomic_add_at(ir_builder *b, ir_value ptr, ir_value index, ir_value value);
/* sw.arange {0, n}. */
ir_value irb_arange(ir_builder *b, int32_t n);

/* sw.for over range(lb, ub, step) carrying `n` values (inits, typed as
 * they are); the body block gets the induction variable (lb's type) and
 * the carried values as arguments, and needs a sw.yield at its end. */
ir_op *irb_for(ir_builder *b, ir_value lb, ir_value ub, ir_value step, const ir_value *inits, int n);
/* sw.if on cond with result types; both regions need a sw.yield. */
ir_op *irb_if(ir_builder *b, ir_value cond, const ir_type *results, int nresults);
void irb_yield(ir_builder *b, const ir_value *values, int n);

/* A copy of op (its regions too) at the builder's position whose operands
 * are mapped through map[]: map[v] for v < nmap when it is not
 * IR_NO_VALUE, v itself otherwise. The copy's results (and its regions'
 * values) get fresh values, recorded in map[] for the originals < nmap. */
ir_op *irb_clone(ir_builder *b, const ir_op *op, ir_value *map, int32_t nmap);

#endif
