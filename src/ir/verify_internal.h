/* verify_internal.h - what verify.c (the walk, structure and the rules of
 * tile and SIMT ops) and verify_segments.c (the rules of segment programs)
 * share. Private to the verifier. */
#ifndef SWAGE_IR_VERIFY_INTERNAL_H
#define SWAGE_IR_VERIFY_INTERNAL_H

#include "ir.h"

enum { VISIBLE = 1, DEFINED = 2 };

typedef struct verifier {
    const ir_module *m;
    diag *d;
    uint8_t *state;  /* per value: VISIBLE | DEFINED */
    ir_value *scope; /* values defined so far, innermost last (malloc'd) */
    int32_t nscope, capscope;
    /* The function being verified: SIMT (it carries simt.num_threads) or
     * semantic; a SIMT function's thread count and shared memory size. */
    bool simt;
    int64_t num_threads, smem_bytes;
    /* The function's first sw.segment, sw.segment_id and grid query
     * (sw.program_id / sw.num_programs): a function is a segment program or
     * a grid program, and its views share one offsets pointer and one
     * segment id. sw.stages (-1 when absent) bounds every op's stage. */
    const ir_op *first_segment, *first_segment_id, *first_grid_query;
    int64_t stages;
} verifier;

/* Reports a violation at op's location (verify.c). */
void verify_vfail(verifier *v, const ir_op *op, const char *fmt, va_list ap);

static inline const char *name_of(const ir_op *op)
{
    return (unsigned)op->kind < IR_OP_COUNT ? ir_ops[op->kind].name : "<unknown op>";
}

/* Type text for messages; each call site passes its own buffer. */
#define TY(t, buf) ir_type_str((t), (buf))

static inline ir_dtype elem_dtype(ir_type t) { return (ir_dtype)t.dtype; }
static inline ir_type operand_type(const verifier *v, const ir_op *op, int i)
{
    return ir_value_type(v->m, op->operands[i]);
}
static inline ir_type result_type(const verifier *v, const ir_op *op, int i)
{
    return ir_value_type(v->m, op->results[i]);
}
static inline const ir_attr *int_attr(const ir_op *op, const char *name)
{
    const ir_attr *a = ir_attr_get(op, name);
    return a && a->kind == ATTR_INT ? a : NULL;
}

/* Segment programs (verify_segments.c). Each returns false after reporting. */
bool verify_is_segment_type(ir_type t); /* a view or a segment value */
/* Per-function state: call when a func.func starts (resets the segment
 * state, reads sw.stages). */
bool verify_func_stages(verifier *v, const ir_op *func);
/* The op rules of sw.segment_id, sw.segment, sw.segment_length,
 * sw.load_segment, sw.store_segment. */
bool verify_segment_id(verifier *v, const ir_op *op);
bool verify_segment(verifier *v, const ir_op *op);
bool verify_segment_length(verifier *v, const ir_op *op);
bool verify_load_segment(verifier *v, const ir_op *op);
bool verify_store_segment(verifier *v, const ir_op *op);
/* sw.program_id / sw.num_programs / sw.segment_id (and the semantic
 * atomics, which only grid programs hold): a segment program or a grid
 * program, not both. */
bool verify_program_kind(verifier *v, const ir_op *op);
/* Where views and segment values may flow (every op). */
bool verify_segment_flow(verifier *v, const ir_op *op);
/* The op's `stage` attribute against the function's sw.stages (every op). */
bool verify_op_stage(verifier *v, const ir_op *op);

/* The atomic ops (verify_atomics.c): sw.atomic_rmw, sw.atomic_cas and
 * their SIMT forms; a semantic atomic also makes its function a grid
 * program (verify_program_kind). */
bool verify_atomic(verifier *v, const ir_op *op);

/* Shapes (verify_shapes.c): sw.broadcast, sw.reshape, sw.trans, and
 * sw.reduce (with or without axis). */
bool verify_shape_op(verifier *v, const ir_op *op);
bool verify_split(verifier *v, const ir_op *op);
bool verify_reduce(verifier *v, const ir_op *op);

/* Scans and their kin (verify_scans.c): the op rules of sw.scan,
 * sw.reduce_fn, sw.histogram and sw.gather; and, once the region of a
 * sw.scan or sw.reduce_fn is verified, what its combine function may hold
 * and yield. */
bool verify_scan_op(verifier *v, const ir_op *op);
bool verify_combine_region(verifier *v, const ir_op *op);

#endif
