/* lower_simt_internal.h - what the files of the lower-simt pass share
 * (lower_simt.c: the walk, layout, memory, reductions and scans;
 * lower_simt_shapes.c: the shape ops of tiles of rank >= 2;
 * lower_simt_axis.c: their reductions along an axis;
 * lower_simt_segmented.c: the flat kernel's segmented reduction). Private
 * to the pass; docs/simt.md describes the layout they follow. */
#ifndef SWAGE_PASSES_LOWER_SIMT_INTERNAL_H
#define SWAGE_PASSES_LOWER_SIMT_INTERNAL_H

#include "contiguity.h"
#include "../ir/scalar.h"

enum {
    SIMT_MIN_THREADS = 32,
    SIMT_MAX_THREADS = 128,
    SIMT_WARP = 32,
    /* The reduction scratch: one 8-byte slot per warp of the largest CTA. */
    SIMT_REDUCE_SCRATCH = 32 * 8,
};

/* The state of lowering one func.func. */
typedef struct lowerer {
    ir_module *m;
    diag *d;
    ir_op *func;
    int32_t threads;       /* T: simt.num_threads */
    int32_t group;         /* G: threads per program (sw.program_threads; T when absent) */
    bool uses_scratch;     /* some reduction went through shared memory */
    int32_t smem_need;     /* bytes of shared memory scans, gathers and histograms need */
    ir_type *semantic;     /* the types values had before the pass (tiles) */
    int32_t nsemantic;     /* values that existed before the pass */
    contiguity contig;
    ir_value thread_id;    /* simt.thread_id at the top of the body, or IR_NO_VALUE */
    ir_type *made;         /* per value from nsemantic on: the semantic type of the value it
                              replaced (TY_VOID: none); malloc'd. A tile's length stays known
                              to ops lowered later (a gather of a scan), and what replaced a
                              semantic scalar is uniform */
    int32_t nmade;
    struct reduced_back *backs; /* axis reductions also given in their input's layout (malloc'd) */
    int32_t nbacks, capbacks;
    ir_op **made_barriers;       /* the simt.barrier ops the pass made (malloc'd): only these
                                    guard its own shared memory, and may go when nothing after
                                    them uses shared memory (drop_trailing_barriers) */
    int32_t nmade_barriers, capmade_barriers;
} lowerer;

/* An sw.reduce {axis} whose result is broadcast back to its input's shape
 * (x - sl.max(x, axis=1, keep_dims=True)): `back` holds each element's
 * total in the input's layout, so that broadcast needs no shared memory. */
typedef struct reduced_back {
    ir_value result;  /* what replaced the reduction's result */
    ir_value back;    /* vector in the input's layout */
    ir_type input;    /* the input's semantic type */
    int axis;
} reduced_back;

/* Shared memory a CTA may use (bytes). */
enum { SIMT_SMEM_LIMIT = 48 * 1024 };

/* Builders (lower_simt.c): each creates ops right before `pos`, at pos's
 * location. */
/* v's type before the pass: its own, or, for a value the pass made in
 * place of one (ls_replace_value), that one's; TY_VOID when neither. */
ir_type ls_semantic_type(const lowerer *lw, ir_value v);
int32_t ls_tile_len(const lowerer *lw, ir_value v);
int32_t ls_slots_of(const lowerer *lw, int32_t n);
ir_op *ls_emit_op(lowerer *lw, ir_op *pos, ir_op_kind kind, const ir_value *operands, int n,
                      const ir_type *results, int nresults);
ir_value ls_emit(lowerer *lw, ir_op *pos, ir_op_kind kind, const ir_value *operands, int n,
                     ir_type result);
ir_op *ls_def_of(const lowerer *lw, ir_value v);
ir_value ls_const_scalar(lowerer *lw, ir_op *pos, ir_dtype dt, ir_scalar value);
ir_value ls_const_i32(lowerer *lw, ir_op *pos, int32_t value);
ir_value ls_binary(lowerer *lw, ir_op *pos, ir_op_kind kind, ir_value a, ir_value b);
ir_value ls_cmp(lowerer *lw, ir_op *pos, const char *predicate, ir_value a, ir_value b);
ir_value ls_cast(lowerer *lw, ir_op *pos, ir_value x, ir_type to);
ir_value ls_splat(lowerer *lw, ir_op *pos, ir_value x, int32_t slots);
ir_value ls_thread_id(lowerer *lw);
ir_value ls_group_lane(lowerer *lw, ir_op *pos);
ir_value ls_owner_mask(lowerer *lw, ir_op *pos, int32_t n);
/* Every use of `old` takes `v`, and v keeps old's semantic type
 * (ls_semantic_type); ls_replace_op also drops op (its one result is old). */
void ls_replace_value(lowerer *lw, ir_value old, ir_value v);
void ls_replace_op(lowerer *lw, ir_op *op, ir_value v);
/* v is a new value that replaced a semantic scalar (uniform over the
 * program, by the SIMT contract). */
bool ls_is_noted_uniform(const lowerer *lw, ir_value v);
ir_value ls_shfl_xor(lowerer *lw, ir_op *pos, ir_value p, int offset);
void ls_barrier(lowerer *lw, ir_op *pos);
void ls_need_smem(lowerer *lw, int32_t bytes);
ir_value ls_i32_const(lowerer *lw, ir_op *pos, int32_t v);
void ls_smem_store(lowerer *lw, ir_op *pos, int32_t offset, ir_value index, ir_value value, ir_value mask);
ir_value ls_smem_load(lowerer *lw, ir_op *pos, int32_t offset, ir_value index, ir_dtype dt);
ir_value ls_tile_index(lowerer *lw, ir_op *pos, int32_t n);
ir_value ls_owner_vec(lowerer *lw, ir_op *pos, int32_t n);
bool ls_whole_cta(lowerer *lw, ir_op *op);
bool ls_smem_fits(lowerer *lw, ir_op *op, int32_t bytes);

/* A scan or reduction being lowered: its combine region, cloned at every
 * combine point. */
typedef struct combiner {
    const ir_op *op;
    int k;
    ir_value *map; /* old value -> clone, for values before the pass */
} combiner;

/* cb for op's combine region of k values, its clone map from the
 * arena; false after reporting. */
bool ls_combiner_init(lowerer *lw, ir_op *op, int k, combiner *cb);
/* out = combine(acc, x) (k values each): the combine region's ops cloned
 * before pos (lower_simt.c). */
void ls_combine_at(lowerer *lw, ir_op *pos, const combiner *cb, const ir_value *acc, const ir_value *x,
                   ir_value *out);

/* lower_simt_shapes.c: sw.broadcast, sw.reshape, sw.trans and sw.split
 * (an index map from result elements to operand elements, recomputed or
 * through shared memory). False after reporting. */
bool ls_lower_shape_op(lowerer *lw, ir_op *op);
/* Index arithmetic on vector<n x i32> values before pos, shared with
 * lower_simt_axis.c: ceil(log2 x); a constant; a shift by `by` bits (kind
 * IR_SHL or IR_SHR; none for 0); v & mask; simt.vslots of the given slots
 * of x (x itself for all of them in order; IR_NO_VALUE after reporting). */
int ls_log2i(int64_t x);
ir_value ls_vconst(lowerer *lw, ir_op *pos, int32_t slots, int64_t k);
ir_value ls_shift(lowerer *lw, ir_op *pos, ir_op_kind kind, ir_value v, int by);
ir_value ls_mask_bits(lowerer *lw, ir_op *pos, ir_value v, int64_t mask);
ir_value ls_vslots(lowerer *lw, ir_op *pos, ir_value x, const int32_t *slots, int32_t n);
/* lower_simt_axis.c: sw.reduce {axis} (in-thread, across lanes, across
 * warps through shared memory) and sw.reduce_fn {axis} (each result
 * element folded in order through shared memory). False after reporting. */
bool ls_lower_reduce_axis(lowerer *lw, ir_op *op);
bool ls_lower_reduce_fn_axis(lowerer *lw, ir_op *op);
/* The in-layout totals of a reduction along an axis that the sw.broadcast
 * op broadcasts back to the reduction's input dims, or IR_NO_VALUE. */
ir_value ls_broadcast_back(const lowerer *lw, const ir_op *op);
/* lower_simt_segmented.c: sw.segmented_reduce on a program of one warp
 * (registers and shuffles). False after reporting. */
bool ls_lower_segmented_reduce(lowerer *lw, ir_op *op);
/* sw.segment_index likewise (marks in shared memory, one scan over the
 * lanes), and sw.gather (no axis) in a program of one warp of a CTA of
 * several (through the warp's region of shared memory). */
bool ls_lower_segment_index(lowerer *lw, ir_op *op);
bool ls_lower_warp_gather(lowerer *lw, ir_op *op);
/* Drops the sw.reshape ops ls_lower_shape_op kept (after the walk). */
void ls_erase_reshapes(lowerer *lw, ir_block *b);

/* sw.gather's index made safe to read with: `*inside` where 0 <= index <
 * len, the index there and 0 elsewhere, in i32 (the gather's result takes
 * zero outside). */
ir_value ls_gather_index(lowerer *lw, ir_op *op, ir_value index, int64_t len, ir_value *inside);

#endif
