/* lower_simt.c - requires a verified semantic module; guarantees a verified
 * SIMT module (docs/simt.md) that computes the same thing, rewritten in
 * place: every func.func gets simt.num_threads and simt.smem_bytes, tiles
 * become per-thread vectors, and grid queries, aranges, loads, stores and
 * reductions become simt.* ops. Functions that already carry
 * simt.num_threads are left alone. Breaks the semantic executor's ability
 * to run the module (callers lower a clone when they need both).
 *
 * The walk: (1) check that every tile length is a power of two and find the
 * longest tile, which fixes T; (2) analyse contiguity on the semantic IR;
 * (3) retype every tile value to vector<VxT>, V = max(1, N / T) (elementwise
 * ops, constants, splats, sw.for / sw.if results and block arguments need
 * nothing else); (4) rewrite the ops that speak of the grid, the whole
 * tile, or memory. */
#include "lower_simt_internal.h"
#include "../ir/builder.h"
#include "passes.h"
#include "../ir/scalar.h"

#include <stdlib.h>
#include <string.h>

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int32_t next_pow2(int32_t x)
{
    int32_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* T = clamp(next_pow2(maxN / 4), 32, 128): four or more slots per thread
 * once tiles are long (BLOCK = 1024 -> 128 threads x 8 slots), one warp for
 * short ones (BLOCK = 128 -> 32 threads x 4 slots). */
static int32_t choose_threads(int32_t max_len)
{
    int32_t t = next_pow2(max_len / 4);
    return t < SIMT_MIN_THREADS ? SIMT_MIN_THREADS : t > SIMT_MAX_THREADS ? SIMT_MAX_THREADS : t;
}

/* ---- layout --------------------------------------------------------------- */

ir_type ls_semantic_type(const lowerer *lw, ir_value v)
{
    if (v >= 0 && v < lw->nsemantic)
        return lw->semantic[v];
    int32_t i = v - lw->nsemantic;
    if (v >= 0 && i < lw->nmade)
        return lw->made[i];
    return (ir_type){.kind = TY_VOID};
}

int32_t ls_tile_len(const lowerer *lw, ir_value v)
{
    ir_type t = ls_semantic_type(lw, v);
    if (t.kind != TY_TILE) {
        sw_unreachable(lw->d, "lower-simt: value %d was not a tile before the pass", (int)v);
        return 1;
    }
    return t.len;
}

int32_t ls_slots_of(const lowerer *lw, int32_t n) { return n > lw->group ? n / lw->group : 1; }

static ir_type simt_type(const lowerer *lw, ir_type t)
{
    if (t.kind != TY_TILE)
        return t;
    /* every tile, of any rank, is laid out as its row-major elements */
    return ir_type_like(ir_type_vec(DT_I32, ls_slots_of(lw, t.len)), ir_type_elem(t));
}

/* ---- builders ------------------------------------------------------------- */

/* Builders: each creates one op right before `pos`, at pos's location. */
ir_op *ls_emit_op(lowerer *lw, ir_op *pos, ir_op_kind kind, const ir_value *operands, int n,
                      const ir_type *results, int nresults)
{
    ir_op *op = ir_op_create(lw->m, kind, pos->loc, operands, n, results, nresults, 0);
    ir_insert_before(pos, op);
    return op;
}

ir_value ls_emit(lowerer *lw, ir_op *pos, ir_op_kind kind, const ir_value *operands, int n,
                     ir_type result)
{
    return ls_emit_op(lw, pos, kind, operands, n, &result, 1)->results[0];
}

ir_op *ls_def_of(const lowerer *lw, ir_value v) { return lw->m->values[v].def; }

ir_value ls_const_scalar(lowerer *lw, ir_op *pos, ir_dtype dt, ir_scalar value)
{
    ir_builder b = irb_before(lw->m, pos);
    return irb_const(&b, ir_type_scalar(dt), value);
}

ir_value ls_const_i32(lowerer *lw, ir_op *pos, int32_t value)
{
    return ls_const_scalar(lw, pos, DT_I32, (ir_scalar){.i = value});
}

ir_value ls_binary(lowerer *lw, ir_op *pos, ir_op_kind kind, ir_value a, ir_value b)
{
    ir_value operands[2] = {a, b};
    return ls_emit(lw, pos, kind, operands, 2, ir_value_type(lw->m, a));
}

ir_value ls_cmp(lowerer *lw, ir_op *pos, const char *predicate, ir_value a, ir_value b)
{
    ir_value operands[2] = {a, b};
    ir_type t = ir_type_like(ir_value_type(lw->m, a), ir_type_scalar(DT_I1));
    ir_value r = ls_emit(lw, pos, IR_CMP, operands, 2, t);
    ir_attr_set_str(lw->m, ls_def_of(lw, r), "predicate", predicate);
    return r;
}

ir_value ls_cast(lowerer *lw, ir_op *pos, ir_value x, ir_type to)
{
    return ls_emit(lw, pos, IR_CAST, &x, 1, to);
}

/* sw.splat of a scalar or pointer to `slots` slots. */
ir_value ls_splat(lowerer *lw, ir_op *pos, ir_value x, int32_t slots)
{
    ir_type t = ir_type_like(ir_type_vec(DT_I32, slots), ir_value_type(lw->m, x));
    return ls_emit(lw, pos, IR_SPLAT, &x, 1, t);
}

/* simt.thread_id, created once per function as the first op of its body. */
ir_value ls_thread_id(lowerer *lw)
{
    if (lw->thread_id == IR_NO_VALUE) {
        ir_type i32 = ir_type_scalar(DT_I32);
        ir_op *op = ir_op_create(lw->m, IR_SIMT_THREAD_ID, lw->func->loc, NULL, 0, &i32, 1, 0);
        ir_insert_before(ir_func_body(lw->func)->first, op);
        lw->thread_id = op->results[0];
    }
    return lw->thread_id;
}

/* This thread's index within its program's group of G threads (the
 * thread id itself when G = T). */
ir_value ls_group_lane(lowerer *lw, ir_op *pos)
{
    if (lw->group == lw->threads)
        return ls_thread_id(lw);
    return ls_binary(lw, pos, IR_AND, ls_thread_id(lw), ls_const_i32(lw, pos, lw->group - 1));
}

/* i1: this thread owns its slots of a tile of n elements (its lane in the
 * group < N / V); IR_NO_VALUE when every thread is an owner. */
ir_value ls_owner_mask(lowerer *lw, ir_op *pos, int32_t n)
{
    int32_t owners = n / ls_slots_of(lw, n);
    if (owners >= lw->group)
        return IR_NO_VALUE;
    return ls_cmp(lw, pos, "lt", ls_group_lane(lw, pos), ls_const_i32(lw, pos, owners));
}

/* i1: this thread is its group's first (it makes the group's scalar
 * stores and atomics). */
static ir_value group_leader(lowerer *lw, ir_op *pos)
{
    return ls_cmp(lw, pos, "eq", ls_group_lane(lw, pos), ls_const_i32(lw, pos, 0));
}

void ls_replace_value(lowerer *lw, ir_value old, ir_value v)
{
    ir_type t = ls_semantic_type(lw, old);
    int32_t i = v - lw->nsemantic;
    if (t.kind != TY_VOID && i >= 0) {
        if (i >= lw->nmade) {
            int32_t cap = lw->nmade ? lw->nmade : 64;
            while (cap <= i)
                cap *= 2;
            ir_type *grown = realloc(lw->made, sizeof(ir_type) * (size_t)cap);
            if (!grown) {
                diag_error(lw->d, DIAG_NOMEM, "out of memory");
                ir_replace_all_uses(lw->m, old, v);
                return;
            }
            memset(grown + lw->nmade, 0, sizeof(ir_type) * (size_t)(cap - lw->nmade));
            lw->made = grown;
            lw->nmade = cap;
        }
        lw->made[i] = t;
    }
    ir_replace_all_uses(lw->m, old, v);
}

/* Replaces every use of op's result by v and drops op. */
void ls_replace_op(lowerer *lw, ir_op *op, ir_value v)
{
    ls_replace_value(lw, op->results[0], v);
    ir_op_erase(lw->m, op);
}

bool ls_is_noted_uniform(const lowerer *lw, ir_value v)
{
    return v >= lw->nsemantic && ls_semantic_type(lw, v).kind == TY_SCALAR;
}

/* ---- step 1: what can be lowered, and T ------------------------------------ */

static bool check_tile(lowerer *lw, const ir_op *op, ir_value v, int32_t *max_len)
{
    ir_type t = ir_value_type(lw->m, v);
    if (t.kind != TY_TILE)
        return true;
    if (!is_pow2(t.len)) {
        diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                      "lower-simt: '%s' has a tile of %d elements; the SIMT layout needs "
                      "power-of-two tile lengths", ir_ops[op->kind].name, (int)t.len);
        return false;
    }
    for (int i = 0; i < t.rank; i++)
        if (!is_pow2(t.shape[i])) {
            char buf[64];
            diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                          "lower-simt: '%s' has a tile of type %s; the SIMT layout needs "
                          "power-of-two dims", ir_ops[op->kind].name, ir_type_str(t, buf));
            return false;
        }
    if (t.len > *max_len)
        *max_len = t.len;
    return true;
}

/* simt.tile_index holds i32 indices: start .. end - 1 must fit. */
static bool check_arange(lowerer *lw, const ir_op *op)
{
    int64_t start = ir_attr_get(op, "start")->i, end = ir_attr_get(op, "end")->i;
    if (start >= INT32_MIN && end - 1 <= INT32_MAX)
        return true;
    diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                  "lower-simt: 'sw.arange' [%lld, %lld) does not fit in i32", (long long)start,
                  (long long)end);
    return false;
}

/* Checks everything the lowering could refuse before anything changes, so
 * a failure leaves the module as it was. */
static bool scan_tiles(lowerer *lw, const ir_block *b, int32_t *max_len)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->kind == IR_ARANGE && !check_arange(lw, op))
            return false;
        for (int i = 0; i < op->nresults; i++)
            if (!check_tile(lw, op, op->results[i], max_len))
                return false;
        for (int r = 0; r < op->nregions; r++) {
            const ir_block *inner = op->regions[r];
            for (int i = 0; i < inner->nargs; i++)
                if (!check_tile(lw, op, inner->args[i], max_len))
                    return false;
            if (!scan_tiles(lw, inner, max_len))
                return false;
        }
    }
    return true;
}

/* ---- step 3: retyping -------------------------------------------------------- */

static void retype_value(lowerer *lw, ir_value v)
{
    lw->m->values[v].type = simt_type(lw, lw->m->values[v].type);
}

static void retype_block(lowerer *lw, const ir_block *b)
{
    for (int i = 0; i < b->nargs; i++)
        retype_value(lw, b->args[i]);
    for (const ir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            retype_value(lw, op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            retype_block(lw, op->regions[r]);
    }
}

/* ---- step 4: ops ------------------------------------------------------------- */

/* sw.arange {start, end} -> simt.tile_index {len = end - start, start}
 * (scan_tiles checked that the range fits in i32). */
static void lower_arange(lowerer *lw, ir_op *op)
{
    int64_t start = ir_attr_get(op, "start")->i, end = ir_attr_get(op, "end")->i;
    op->kind = IR_SIMT_TILE_INDEX;
    op->nattrs = 0;
    ir_attr_set_int(lw->m, op, "len", ir_type_scalar(DT_I32), end - start);
    ir_attr_set_int(lw->m, op, "start", ir_type_scalar(DT_I32), start);
}

/* The `vec` promise of an access through the pointer vector ptr: the
 * largest power of two <= min(the layout's chunk, the pointers' run,
 * 16 bytes / element). Slots are contiguous only within a chunk. */
static int32_t vec_of(const lowerer *lw, ir_value ptr)
{
    ir_type t = ir_value_type(lw->m, ptr);
    int32_t limit = ir_simt_chunk(t.len);
    int32_t run = contiguity_run(&lw->contig, ptr);
    int32_t width = 16 / ir_dtypes[t.dtype].bytes;
    if (run < limit)
        limit = run;
    if (width < limit)
        limit = width;
    int32_t vec = 1;
    while (vec * 2 <= limit)
        vec *= 2;
    return vec;
}

static void set_vec(lowerer *lw, ir_op *op, int32_t vec)
{
    ir_attr_set_int(lw->m, op, "vec", ir_type_scalar(DT_I32), vec);
}

/* Whether the integer tile v holds values ascending by one within every
 * aligned group of vec positions (a run of the contiguity analysis that
 * vec divides), or one value (uniform). Values the pass made: a splat is
 * uniform, nothing else is known. */
static bool ascending_in_groups(const lowerer *lw, ir_value v, int32_t vec)
{
    int32_t run = contiguity_run(&lw->contig, v);
    return run >= vec && run % vec == 0;
}

static bool uniform_tile(const lowerer *lw, ir_value v)
{
    if (v >= 0 && v < lw->contig.nvalues && lw->contig.uniform[v])
        return true;
    const ir_op *def = ls_def_of(lw, v);
    return def && def->kind == IR_SPLAT;
}

/* Whether the tile v holds one value in every aligned group of vec
 * positions: a splat, or a constant run (contiguity) that vec divides (the
 * row condition of a 2-D mask, rows[:, None] < M, along a row). */
static bool constant_in_groups(const lowerer *lw, ir_value v, int32_t vec)
{
    const ir_op *def = ls_def_of(lw, v);
    if (def && def->kind == IR_SPLAT)
        return true;
    if (v < 0 || v >= lw->contig.nvalues)
        return false;
    int32_t same = lw->contig.same[v];
    return same >= vec && same % vec == 0;
}

/* The compare of a vec_mask: operand 0 of an sw.and whose operand 1 is
 * constant in the groups (slot 0 or 1, or -1 for a compare alone). */
static const char *compare_slot(const lowerer *lw, const ir_op *def, int32_t vec);

/* The `vec_mask` promise of a masked simt.load / simt.store with vec > 1
 * (docs/simt.md): "last" or "first" when, in every aligned group of vec
 * slots, the mask is all true exactly when that slot's bit is, so the GPU
 * decides a group's wide access on one bit. The mask must be sw.cmp of an
 * integer tile ascending within the groups against a uniform one (x < n:
 * the last slot decides; x > n: the first; n < x: the first; n > x: the
 * last), possibly and-ed with a tile constant in the groups (a splat: a
 * scalar condition, the owner mask; or the row condition of a 2-D mask);
 * *cmp receives which operand of that sw.and is the compare (-1: none).
 * Values wrap nowhere here: vec's consecutive addresses assume the same.
 * NULL: no promise. */
static const char *mask_group_slot(const lowerer *lw, ir_value mask, int32_t vec, int *cmp)
{
    const ir_op *def = ls_def_of(lw, mask);
    *cmp = -1;
    if (def && def->kind == IR_AND) {
        for (int i = 0; i < 2; i++) {
            const ir_op *c = ls_def_of(lw, def->operands[i]);
            const char *slot = c && c->kind == IR_CMP && constant_in_groups(lw, def->operands[1 - i], vec)
                                   ? compare_slot(lw, c, vec) : NULL;
            if (slot) {
                *cmp = i;
                return slot;
            }
        }
        return NULL;
    }
    return def && def->kind == IR_CMP ? compare_slot(lw, def, vec) : NULL;
}

static const char *compare_slot(const lowerer *lw, const ir_op *def, int32_t vec)
{
    const ir_attr *pred = ir_attr_get(def, "predicate");
    ir_value x = def->operands[0], y = def->operands[1];
    ir_dtype dt = (ir_dtype)ir_value_type(lw->m, x).dtype;
    if (!pred || pred->kind != ATTR_STR || !ir_dtype_is_int(dt) || dt == DT_I1)
        return NULL;
    bool less = !strcmp(pred->s, "lt") || !strcmp(pred->s, "le");
    bool greater = !strcmp(pred->s, "gt") || !strcmp(pred->s, "ge");
    if (!less && !greater)
        return NULL;
    if (ascending_in_groups(lw, x, vec) && uniform_tile(lw, y))
        return less ? "last" : "first";
    if (uniform_tile(lw, x) && ascending_in_groups(lw, y, vec))
        return less ? "first" : "last";
    return NULL;
}

/* The promises of a tile access with vec > 1 (docs/simt.md): vec_mask
 * (above), and vec_all when one test can decide every group of a thread:
 * the pointers run over the whole tile (so the groups' first addresses
 * are equally aligned), and a mask, if any, is all set in a thread exactly
 * when the vec_mask slot of its first or last group is (the compare's
 * ascending operand runs over the whole tile too: a thread's slots hold
 * increasing elements). */
static void set_vec_mask(lowerer *lw, ir_op *op, ir_value mask, int32_t vec)
{
    if (vec < 2)
        return;
    int cmp = -1, whole_cmp = -1;
    const char *slot = mask != IR_NO_VALUE ? mask_group_slot(lw, mask, vec, &cmp) : NULL;
    if (slot) {
        ir_attr_set_str(lw->m, op, "vec_mask", slot);
        /* the emitter takes the deciding compare as operand 0 of the sw.and */
        ir_op *and_op = ls_def_of(lw, mask);
        if (cmp == 1) {
            ir_value swapped[2] = {and_op->operands[1], and_op->operands[0]};
            ir_op_set_operands(lw->m, and_op, swapped, 2);
        }
    }
    ir_value ptr = op->operands[0];
    int32_t len = ls_tile_len(lw, ptr), slots = ir_value_type(lw->m, ptr).len;
    const char *whole = slot ? mask_group_slot(lw, mask, len, &whole_cmp) : NULL;
    if (slots > vec && contiguity_run(&lw->contig, ptr) >= len &&
        (mask == IR_NO_VALUE || (whole && !strcmp(whole, slot) && whole_cmp <= 0)))
        ir_attr_set_bool(lw->m, op, "vec_all", true);
    /* the flat kernel's rows in lane-major order (task_lane_major_index):
     * every group starts a multiple of 4 elements from the row's start */
    const ir_attr *lm = ir_attr_get(op, "sw.lane_major");
    if (slots > vec && vec == 4 && mask == IR_NO_VALUE && lm && lm->kind == ATTR_BOOL && lm->i)
        ir_attr_set_bool(lw->m, op, "vec_all", true);
}

/* A tile load keeps its operands; a load through a scalar pointer becomes
 * a one-slot simt.load in every thread (all read the same address) whose
 * slot simt.vreduce {kind = "max"} returns unchanged. */
static void lower_load(lowerer *lw, ir_op *op)
{
    ir_value ptr = op->operands[0];
    if (ir_type_is_vec(ir_value_type(lw->m, ptr))) {
        op->kind = IR_SIMT_LOAD;
        int32_t vec = vec_of(lw, ptr);
        set_vec(lw, op, vec);
        set_vec_mask(lw, op, op->noperands == 3 ? op->operands[1] : IR_NO_VALUE, vec);
        return;
    }
    ir_value operands[3];
    for (int i = 0; i < op->noperands; i++)
        operands[i] = ls_splat(lw, op, op->operands[i], 1);
    ir_type scalar = ir_value_type(lw->m, op->results[0]);
    ir_op *load = ls_emit_op(lw, op, IR_SIMT_LOAD, operands, op->noperands,
                                     (ir_type[]){ir_type_like(ir_type_vec(DT_I32, 1), scalar)}, 1);
    set_vec(lw, load, 1);
    ir_value slot = ls_emit(lw, op, IR_SIMT_VREDUCE, load->results, 1, scalar);
    ir_attr_set_str(lw->m, ls_def_of(lw, slot), "kind", "max");
    ls_replace_op(lw, op, slot);
}

/* Stores are made by owners only: replicated copies (tid >= N / V) are
 * masked off, and a store through a scalar pointer is made by thread 0, as
 * a one-slot simt.store. */
/* A store of a tile becomes `kind` on the op's vectors, its mask and-ed
 * with the owner mask (replicated copies write nothing). */
static void lower_tile_write(lowerer *lw, ir_op *op, ir_op_kind kind, int32_t vec)
{
    ir_value ptr = op->operands[0], value = op->operands[1];
    ir_value mask = op->noperands == 3 ? op->operands[2] : IR_NO_VALUE;
    ir_type ptr_type = ir_value_type(lw->m, ptr);
    ir_value owner = ls_owner_mask(lw, op, ls_tile_len(lw, ptr));
    if (owner != IR_NO_VALUE) {
        ir_value owners = ls_splat(lw, op, owner, ptr_type.len);
        mask = mask == IR_NO_VALUE ? owners : ls_binary(lw, op, IR_AND, mask, owners);
    }
    ir_value operands[3] = {ptr, value, mask};
    ir_op_set_operands(lw->m, op, operands, mask == IR_NO_VALUE ? 2 : 3);
    op->kind = kind;
    set_vec(lw, op, vec);
    if (kind == IR_SIMT_STORE)
        set_vec_mask(lw, op, mask, vec);
}

static void lower_store(lowerer *lw, ir_op *op)
{
    ir_value ptr = op->operands[0], value = op->operands[1];
    ir_value mask = op->noperands == 3 ? op->operands[2] : IR_NO_VALUE;
    if (ir_type_is_vec(ir_value_type(lw->m, ptr))) {
        lower_tile_write(lw, op, IR_SIMT_STORE, vec_of(lw, ptr));
        return;
    }
    ir_value first = group_leader(lw, op);
    if (mask != IR_NO_VALUE)
        first = ls_binary(lw, op, IR_AND, mask, first);
    ir_value operands[3] = {ls_splat(lw, op, ptr, 1), ls_splat(lw, op, value, 1), ls_splat(lw, op, first, 1)};
    ir_op_set_operands(lw->m, op, operands, 3);
    op->kind = IR_SIMT_STORE;
    set_vec(lw, op, 1);
}

/* ---- sw.reduce ------------------------------------------------------------ */

/* A sw.reduce whose operand is already a vector<VxT> becomes ops, inserted
 * before it, that compute the reduction over the whole CTA with a uniform
 * result (the same in every thread): docs/simt.md, "Lowering a reduction".
 * The caller replaces the sw.reduce by the returned value.
 *
 *   1. p = simt.vreduce(x): this thread's slots;
 *   2. replicated copies (tid >= N / V) replace p by the identity;
 *   3. p = combine(p, simt.shfl_xor(p, o)) for o = 16, 8, 4, 2, 1;
 *   4. with W = T / 32 > 1 warps: lane 0 of each warp writes p to
 *      shared[warp], barrier, lane l of every warp loads shared[l mod W]
 *      and log2(W) shuffles combine them (combine_warps), barrier (the
 *      scratch is free again).
 *
 * Narrow element types reduce in a wider accumulator of 32 or 64 bits: f16/bf16 in f32 (sums and products round once at the
 * end, max/min are exact), i1/i8/ui8 in i32 (wrap-around sums and products
 * agree modulo 2^8, max/min are exact; an i1 sum keeps bit 0, as i1
 * arithmetic does). The result is cast back to the element type. */
/* A butterfly shuffle within the program's group (the whole warp when G
 * >= 32). */
ir_value ls_shfl_xor(lowerer *lw, ir_op *pos, ir_value p, int offset)
{
    ir_value q = ls_emit(lw, pos, IR_SIMT_SHFL_XOR, &p, 1, ir_value_type(lw->m, p));
    ir_attr_set_int(lw->m, ls_def_of(lw, q), "offset", ir_type_scalar(DT_I32), offset);
    if (lw->group < SIMT_WARP)
        ir_attr_set_int(lw->m, ls_def_of(lw, q), "width", ir_type_scalar(DT_I32), lw->group);
    return q;
}

/* The group leader's value of the uniform-to-be scalar p, in every thread
 * of the group: a shuffle within the group, or for a whole CTA of several
 * warps, shared memory between two barriers. */
static ir_value broadcast_from_leader(lowerer *lw, ir_op *pos, ir_value p)
{
    ir_module *m = lw->m;
    if (lw->group == 1)
        return p;
    if (lw->group <= SIMT_WARP) {
        ir_value q = ls_emit(lw, pos, IR_SIMT_SHFL_IDX, &p, 1, ir_value_type(m, p));
        ir_attr_set_int(m, ls_def_of(lw, q), "lane", ir_type_scalar(DT_I32), 0);
        ir_attr_set_int(m, ls_def_of(lw, q), "width", ir_type_scalar(DT_I32), lw->group);
        return q;
    }
    ir_value store[3] = {ls_const_i32(lw, pos, 0), p, group_leader(lw, pos)};
    ir_op *st = ls_emit_op(lw, pos, IR_SIMT_SMEM_STORE, store, 3, NULL, 0);
    ir_attr_set_int(m, st, "offset", ir_type_scalar(DT_I32), 0);
    ls_barrier(lw, pos);
    ir_value index = ls_const_i32(lw, pos, 0);
    ir_value q = ls_emit(lw, pos, IR_SIMT_SMEM_LOAD, &index, 1, ir_value_type(m, p));
    ir_attr_set_int(m, ls_def_of(lw, q), "offset", ir_type_scalar(DT_I32), 0);
    ls_barrier(lw, pos);
    lw->uses_scratch = true;
    return q;
}

void ls_barrier(lowerer *lw, ir_op *pos)
{
    ir_op *bar = ls_emit_op(lw, pos, IR_SIMT_BARRIER, NULL, 0, NULL, 0);
    if (lw->nmade_barriers == lw->capmade_barriers) {
        int32_t cap = lw->capmade_barriers ? 2 * lw->capmade_barriers : 16;
        ir_op **grown = realloc(lw->made_barriers, sizeof *grown * (size_t)cap);
        if (!grown)
            return; /* the barrier stays: only a missed removal */
        lw->made_barriers = grown;
        lw->capmade_barriers = cap;
    }
    lw->made_barriers[lw->nmade_barriers++] = bar;
}

static bool made_barrier(const lowerer *lw, const ir_op *op)
{
    for (int32_t i = 0; i < lw->nmade_barriers; i++)
        if (lw->made_barriers[i] == op)
            return true;
    return false;
}

/* Whether op, or an op of its regions, touches shared memory or is a
 * barrier. */
static bool touches_smem(const ir_op *op)
{
    if (op->kind == IR_SIMT_SMEM_LOAD || op->kind == IR_SIMT_SMEM_STORE || op->kind == IR_SIMT_BARRIER)
        return true;
    for (int r = 0; r < op->nregions; r++)
        for (const ir_op *o = op->regions[r]->first; o; o = o->next)
            if (touches_smem(o))
                return true;
    return false;
}

/* A barrier the pass made after its last use of shared memory only keeps
 * the scratch free for a next use that never comes: the last ones of the
 * function body (after which no op touches shared memory) go, as Triton
 * has no barrier after its last reduction. Not in the plan's task kernels
 * (sw.task), whose bodies plan_link may put in a loop or one after
 * another, nor inside a loop or branch. A barrier of the kernel's own
 * (sl.debug_barrier) stays, and so does every one before it. */
static void drop_trailing_barriers(lowerer *lw, ir_block *body)
{
    if (ir_attr_get(lw->func, "sw.task"))
        return;
    for (ir_op *op = body->last, *prev; op; op = prev) {
        prev = op->prev;
        if (op->kind == IR_SIMT_BARRIER && made_barrier(lw, op)) {
            ir_op_erase(lw->m, op);
            continue;
        }
        if (touches_smem(op))
            return;
    }
}

/* Step 4: one partial per warp through shared memory (offset 0, one
 * element per warp, stored by lane 0), then in every warp lane l loads
 * partial l mod W and a butterfly of log2(W) shuffles (offsets W/2 .. 1)
 * combines them: every lane of every warp evaluates the same tree (the
 * combines are commutative), so the result is uniform and the same on
 * every executor. One load and log2(W) shuffles a thread, where reading
 * every partial took W loads and W - 1 combines. */
static ir_value combine_warps(lowerer *lw, ir_op *pos, ir_value p, ir_op_kind combine, int32_t warps)
{
    ir_module *m = lw->m;
    ir_type acc = ir_value_type(m, p);
    ir_value tid = ls_thread_id(lw);
    ir_value lane = ls_binary(lw, pos, IR_AND, tid, ls_const_i32(lw, pos, SIMT_WARP - 1));
    ir_value warp = ls_binary(lw, pos, IR_SHR, tid, ls_const_i32(lw, pos, 5));
    ir_value leader = ls_cmp(lw, pos, "eq", lane, ls_const_i32(lw, pos, 0));
    ir_value store[3] = {warp, p, leader};
    ir_op *st = ls_emit_op(lw, pos, IR_SIMT_SMEM_STORE, store, 3, NULL, 0);
    ir_attr_set_int(m, st, "offset", ir_type_scalar(DT_I32), 0);
    ls_barrier(lw, pos);
    ir_value index = warps < SIMT_WARP ? ls_binary(lw, pos, IR_AND, lane, ls_const_i32(lw, pos, warps - 1)) : lane;
    ir_value total = ls_emit(lw, pos, IR_SIMT_SMEM_LOAD, &index, 1, acc);
    ir_attr_set_int(m, ls_def_of(lw, total), "offset", ir_type_scalar(DT_I32), 0);
    for (int offset = warps / 2; offset >= 1; offset /= 2)
        total = ls_binary(lw, pos, combine, total, ls_shfl_xor(lw, pos, total, offset));
    ls_barrier(lw, pos);
    lw->uses_scratch = true;
    return total;
}

static ir_value lower_reduce(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    const ir_attr *kind_attr = ir_attr_get(op, "kind");
    const char *kind = kind_attr->s;
    ir_op_kind combine = ir_reduce_combine_op(kind);
    if (combine == IR_OP_COUNT) {
        sw_unreachable(lw->d, "lower-simt: unknown reduction kind '%s'", kind);
        return IR_NO_VALUE;
    }
    ir_value x = op->operands[0];
    int32_t n = ls_tile_len(lw, x);
    ir_type xt = ir_value_type(m, x);
    ir_dtype dt = (ir_dtype)xt.dtype, acc = ir_reduce_accumulator(dt);
    ir_type acc_type = ir_type_scalar(acc);
    if (acc != dt)
        x = ls_cast(lw, op, x, ir_type_vec(acc, xt.len));

    ir_value p = ls_emit(lw, op, IR_SIMT_VREDUCE, &x, 1, acc_type);
    ir_attr_set_str(m, ls_def_of(lw, p), "kind", kind);

    ir_value owner = ls_owner_mask(lw, op, n);
    if (owner != IR_NO_VALUE) {
        ir_scalar identity;
        if (!ir_eval_reduce_identity(kind, acc, &identity))
            sw_unreachable(lw->d, "lower-simt: no identity for '%s' on %s", kind, ir_dtypes[acc].name);
        ir_value select[3] = {owner, p, ls_const_scalar(lw, op, acc, identity)};
        p = ls_emit(lw, op, IR_SELECT, select, 3, acc_type);
    }

    int32_t lanes = lw->group < SIMT_WARP ? lw->group : SIMT_WARP;
    for (int offset = lanes / 2; offset >= 1; offset /= 2)
        p = ls_binary(lw, op, combine, p, ls_shfl_xor(lw, op, p, offset));

    int32_t warps = lw->group / SIMT_WARP;
    if (warps > 1)
        p = combine_warps(lw, op, p, combine, warps);

    if (acc != dt) {
        if (dt == DT_I1 && combine == IR_ADD)
            p = ls_binary(lw, op, IR_AND, p, ls_const_i32(lw, op, 1));
        p = ls_cast(lw, op, p, ir_type_scalar(dt));
    }
    return p;
}

/* ---- sw.scan, sw.reduce_fn, sw.gather, sw.histogram ------------------------ */

/* docs/simt.md, "Lowering a scan". These go through shared memory, whose
 * bytes start at offset 0 like the reduction scratch (every sequence ends
 * with a barrier, so uses never overlap); the function's simt.smem_bytes
 * is the most any of them needs. */

static int32_t align8(int32_t x) { return (x + 7) & ~7; }

void ls_need_smem(lowerer *lw, int32_t bytes)
{
    if (bytes > lw->smem_need)
        lw->smem_need = bytes;
}

ir_value ls_i32_const(lowerer *lw, ir_op *pos, int32_t v) { return ls_const_i32(lw, pos, v); }

void ls_smem_store(lowerer *lw, ir_op *pos, int32_t offset, ir_value index, ir_value value, ir_value mask)
{
    ir_value operands[3] = {index, value, mask};
    ir_op *st = ls_emit_op(lw, pos, IR_SIMT_SMEM_STORE, operands, mask == IR_NO_VALUE ? 2 : 3, NULL, 0);
    ir_attr_set_int(lw->m, st, "offset", ir_type_scalar(DT_I32), offset);
}

ir_value ls_smem_load(lowerer *lw, ir_op *pos, int32_t offset, ir_value index, ir_dtype dt)
{
    ir_type t = ir_type_like(ir_value_type(lw->m, index), ir_type_scalar(dt));
    ir_value r = ls_emit(lw, pos, IR_SIMT_SMEM_LOAD, &index, 1, t);
    ir_attr_set_int(lw->m, ls_def_of(lw, r), "offset", ir_type_scalar(DT_I32), offset);
    return r;
}

/* simt.tile_index of a tile of n elements from 0: this thread's element
 * indices. */
ir_value ls_tile_index(lowerer *lw, ir_op *pos, int32_t n)
{
    ir_value r = ls_emit(lw, pos, IR_SIMT_TILE_INDEX, NULL, 0, ir_type_vec(DT_I32, ls_slots_of(lw, n)));
    ir_attr_set_int(lw->m, ls_def_of(lw, r), "len", ir_type_scalar(DT_I32), n);
    ir_attr_set_int(lw->m, ls_def_of(lw, r), "start", ir_type_scalar(DT_I32), 0);
    return r;
}

/* The owner mask of a tile of n elements as a vector (IR_NO_VALUE: all). */
ir_value ls_owner_vec(lowerer *lw, ir_op *pos, int32_t n)
{
    ir_value owner = ls_owner_mask(lw, pos, n);
    return owner == IR_NO_VALUE ? owner : ls_splat(lw, pos, owner, ls_slots_of(lw, n));
}

/* simt.shfl_up of a scalar; types narrower than 16 bits travel as i32. */
static ir_value shfl_up(lowerer *lw, ir_op *pos, ir_value p, int offset)
{
    ir_type t = ir_value_type(lw->m, p);
    bool widen = ir_dtypes[t.dtype].bits < 16;
    ir_value x = widen ? ls_cast(lw, pos, p, ir_type_scalar(DT_I32)) : p;
    ir_value q = ls_emit(lw, pos, IR_SIMT_SHFL_UP, &x, 1, ir_value_type(lw->m, x));
    ir_attr_set_int(lw->m, ls_def_of(lw, q), "offset", ir_type_scalar(DT_I32), offset);
    return widen ? ls_cast(lw, pos, q, t) : q;
}

/* What a value of the combine region stands for at the combine point. */
static ir_value remap(const combiner *cb, const lowerer *lw, ir_value v)
{
    return v >= 0 && v < lw->nsemantic && cb->map[v] != IR_NO_VALUE ? cb->map[v] : v;
}

/* out = combine(acc, x) (k values each), the region's ops cloned before pos. */
bool ls_combiner_init(lowerer *lw, ir_op *op, int k, combiner *cb)
{
    *cb = (combiner){.op = op, .k = k,
                     .map = arena_alloc(lw->m->ar, sizeof(ir_value) * (size_t)(lw->nsemantic + 1))};
    if (!cb->map)
        diag_error(lw->d, DIAG_NOMEM, "out of memory");
    return cb->map != NULL;
}

void ls_combine_at(lowerer *lw, ir_op *pos, const combiner *cb, const ir_value *acc, const ir_value *x,
                   ir_value *out)
{
    const ir_block *b = cb->op->regions[0];
    for (int32_t v = 0; v < lw->nsemantic; v++)
        cb->map[v] = IR_NO_VALUE;
    for (int i = 0; i < cb->k; i++) {
        cb->map[b->args[i]] = acc[i];
        cb->map[b->args[cb->k + i]] = x[i];
    }
    ir_builder bb = irb_before(lw->m, pos);
    for (const ir_op *o = b->first; o; o = o->next) {
        if (o->kind == IR_YIELD) {
            for (int i = 0; i < cb->k; i++)
                out[i] = remap(cb, lw, o->operands[i]);
            return;
        }
        irb_clone(&bb, o, cb->map, lw->nsemantic);
    }
}

static void select_all(lowerer *lw, ir_op *pos, int k, ir_value cond, const ir_value *a, ir_value *b_inout)
{
    for (int i = 0; i < k; i++) {
        ir_value s[3] = {cond, a[i], b_inout[i]};
        b_inout[i] = ls_emit(lw, pos, IR_SELECT, s, 3, ir_value_type(lw->m, a[i]));
    }
}

bool ls_whole_cta(lowerer *lw, ir_op *op)
{
    if (lw->group == lw->threads)
        return true;
    diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                  "lower-simt: '%s' in a program of %d threads inside a CTA of %d: scans, gathers and "
                  "histograms need the whole CTA (they synchronise it)", ir_ops[op->kind].name,
                  (int)lw->group, (int)lw->threads);
    return false;
}

bool ls_smem_fits(lowerer *lw, ir_op *op, int32_t bytes)
{
    if (bytes <= SIMT_SMEM_LIMIT) {
        ls_need_smem(lw, bytes);
        return true;
    }
    diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                  "lower-simt: '%s' needs %d bytes of shared memory for its tile (at most %d): use a "
                  "shorter tile", ir_ops[op->kind].name, (int)bytes, (int)SIMT_SMEM_LIMIT);
    return false;
}

enum { MAX_COMBINED = 16, MAX_SLOTS = 1024 };

static ir_value vec_i32(lowerer *lw, ir_op *pos, int32_t slots, int32_t k)
{
    return ls_splat(lw, pos, ls_i32_const(lw, pos, k), slots);
}

/* The scan position of this thread's elements e (a vector of n/V slots)
 * for a scan along the bit field [lo, lo + log L) of the element index:
 * the field moves to the lowest bits, so that each line along the axis is
 * L consecutive positions, in scan order (reversed for `reverse`). */
static ir_value scan_position(lowerer *lw, ir_op *pos, ir_value e, int32_t n, int32_t L, int lo, bool reverse)
{
    int32_t slots = ir_value_type(lw->m, e).len;
    if (L == n) /* one line: the 1-D scan */
        return reverse ? ls_binary(lw, pos, IR_SUB, vec_i32(lw, pos, slots, n - 1), e) : e;
    int bits = ls_log2i(L), hi = lo + bits;
    ir_value p = e;
    if (lo > 0) {
        ir_value high = ls_binary(lw, pos, IR_AND, e, vec_i32(lw, pos, slots, ~((1 << hi) - 1)));
        ir_value low = ls_binary(lw, pos, IR_AND, e, vec_i32(lw, pos, slots, (1 << lo) - 1));
        ir_value along = ls_binary(lw, pos, IR_AND, ls_binary(lw, pos, IR_SHR, e, vec_i32(lw, pos, slots, lo)),
                                   vec_i32(lw, pos, slots, L - 1));
        p = ls_binary(lw, pos, IR_OR, ls_binary(lw, pos, IR_SHL, low, vec_i32(lw, pos, slots, bits)), along);
        p = ls_binary(lw, pos, IR_OR, high, p);
    }
    return reverse ? ls_binary(lw, pos, IR_XOR, p, vec_i32(lw, pos, slots, L - 1)) : p;
}

/* sw.scan (along an axis too) and sw.reduce_fn. Over T threads (W = T/32
 * warps), a tile of N elements, Vc = max(1, N/T); a scan along an axis of
 * length L scans the N/L lines along it independently (a scan of a 1-D
 * tile, or a reduction, is one line: L = N):
 *   A. owners store their slots to shared memory in scan order: each line
 *      is L consecutive positions (position N-1-i for element i of a
 *      reverse 1-D scan, line*L + L-1-j for a reverse one along an axis);
 *      barrier;
 *   B. thread t loads positions t*Vc .. t*Vc+Vc-1 (threads past N load
 *      position N-1 and are ignored) and scans them sequentially, starting
 *      again at each line's first position; when L <= Vc every line lies
 *      in one thread, and the positions go back to shared memory (E);
 *   C. otherwise each line spans S = L/Vc threads (aligned): an inclusive
 *      scan of the threads' totals within each group of min(S, 32) lanes
 *      by simt.shfl_up (offsets 1, 2, 4, ..: lane l combines lane l-o's
 *      value with its own when l mod S >= o);
 *   D. with S > 32: lane 31 of each warp stores its total, barrier, each
 *      thread combines the totals of the warps before its own in its line
 *      in order;
 *   E. a scan: thread t's exclusive prefix (lane t-1's inclusive value by
 *      simt.shfl_up 1, the warp prefix for lane 0) is combined into each
 *      of its positions unless t begins a line, and they go back to shared
 *      memory; barrier; every thread loads its slots of the result;
 *      barrier.
 *      A reduction: the thread holding the last position stores its
 *      inclusive value, barrier, every thread loads it, barrier. */
static bool lower_combine(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    bool scan = op->kind == IR_SCAN;
    int k = op->noperands;
    int32_t n = ls_tile_len(lw, op->operands[0]);
    int32_t T = lw->threads, W = T / SIMT_WARP, vc = ls_slots_of(lw, n);
    if (!ls_whole_cta(lw, op))
        return false;
    if (k > MAX_COMBINED || vc > MAX_SLOTS) {
        sw_unreachable(lw->d, "lower-simt: a scan of %d values over %d slots", k, (int)vc);
        return false;
    }
    const ir_attr *rev = ir_attr_get(op, "reverse");
    bool reverse = scan && rev && rev->kind == ATTR_BOOL && rev->i;
    /* the line: L elements along the axis, at bits [lo, lo + log L) */
    int32_t L = n;
    int lo = 0;
    const ir_attr *axis = scan ? ir_attr_get(op, "axis") : NULL;
    if (axis) {
        int32_t d[IR_MAX_RANK];
        int rank = ir_tile_dims(ls_semantic_type(lw, op->operands[0]), d);
        L = d[axis->i];
        for (int i = (int)axis->i + 1; i < rank; i++)
            lo += ls_log2i(d[i]);
    }
    if (scan && L == 1) { /* every line one element: the scan is its input */
        for (int i = 0; i < k; i++)
            ls_replace_value(lw, op->results[i], op->operands[i]);
        ir_op_erase(m, op);
        return true;
    }
    bool within = scan && L <= vc;        /* every line in one thread */
    int32_t S = within ? 1 : L / vc;      /* threads per line */
    bool whole = L == n;                  /* one line */
    ir_dtype dt[MAX_COMBINED];
    int32_t off_d[MAX_COMBINED], off_s[MAX_COMBINED], bytes = 0;
    for (int i = 0; i < k; i++) {
        dt[i] = (ir_dtype)ir_value_type(m, op->operands[i]).dtype;
        off_d[i] = bytes;
        bytes = align8(bytes + n * ir_dtypes[dt[i]].bytes);
    }
    for (int i = 0; i < k; i++) {
        off_s[i] = bytes;
        bytes = align8(bytes + (SIMT_WARP + 1) * ir_dtypes[dt[i]].bytes);
    }
    if (!ls_smem_fits(lw, op, bytes))
        return false;
    combiner cb;
    if (!ls_combiner_init(lw, op, k, &cb))
        return false;

    /* A. */
    ir_value pos = scan_position(lw, op, ls_tile_index(lw, op, n), n, L, lo, reverse);
    ir_value owners = ls_owner_vec(lw, op, n);
    for (int i = 0; i < k; i++)
        ls_smem_store(lw, op, off_d[i], pos, op->operands[i], owners);
    ls_barrier(lw, op);

    /* B. */
    ir_value tid = ls_thread_id(lw);
    ir_value base = vc > 1 ? ls_binary(lw, op, IR_MUL, tid, ls_i32_const(lw, op, vc)) : tid;
    if (n < T)
        base = ls_binary(lw, op, IR_MINIMUM, base, ls_i32_const(lw, op, n - 1));
    ir_value *s = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(vc * k));
    for (int32_t j = 0; j < vc; j++) {
        ir_value p = j ? ls_binary(lw, op, IR_ADD, base, ls_i32_const(lw, op, j)) : base;
        for (int i = 0; i < k; i++)
            s[j * k + i] = ls_smem_load(lw, op, off_d[i], p, dt[i]);
        if (j % L)
            ls_combine_at(lw, op, &cb, &s[(j - 1) * k], &s[j * k], &s[j * k]);
    }

    ir_value cur[MAX_COMBINED], up[MAX_COMBINED], comb[MAX_COMBINED];
    ir_value incl[MAX_COMBINED], pref[MAX_COMBINED];
    ir_value lane = ls_binary(lw, op, IR_AND, tid, ls_i32_const(lw, op, SIMT_WARP - 1));
    int32_t Sl = S < SIMT_WARP ? S : SIMT_WARP;
    /* this thread's index in its line's group of lanes */
    ir_value in_line = Sl == SIMT_WARP ? lane : ls_binary(lw, op, IR_AND, tid, ls_i32_const(lw, op, Sl - 1));
    if (!within) {
        /* C. */
        for (int i = 0; i < k; i++)
            cur[i] = s[(vc - 1) * k + i];
        for (int o = 1; o < Sl; o *= 2) {
            for (int i = 0; i < k; i++)
                up[i] = shfl_up(lw, op, cur[i], o);
            ls_combine_at(lw, op, &cb, up, cur, comb);
            select_all(lw, op, k, ls_cmp(lw, op, "ge", in_line, ls_i32_const(lw, op, o)), comb, cur);
        }

        /* D. */
        for (int i = 0; i < k; i++)
            incl[i] = cur[i];
        if (S > SIMT_WARP) {
            int32_t Sw = S / SIMT_WARP; /* warps per line */
            ir_value warp = ls_binary(lw, op, IR_SHR, tid, ls_i32_const(lw, op, 5));
            ir_value wi = Sw == W ? warp : ls_binary(lw, op, IR_AND, warp, ls_i32_const(lw, op, Sw - 1));
            ir_value w0 = Sw == W ? IR_NO_VALUE : ls_binary(lw, op, IR_SUB, warp, wi);
            ir_value last = ls_cmp(lw, op, "eq", lane, ls_i32_const(lw, op, SIMT_WARP - 1));
            for (int i = 0; i < k; i++)
                ls_smem_store(lw, op, off_s[i], warp, cur[i], last);
            ls_barrier(lw, op);
            ir_value run[MAX_COMBINED], next[MAX_COMBINED];
            for (int w = 0; w + 1 < Sw; w++) {
                ir_value at = ls_i32_const(lw, op, w);
                if (w0 != IR_NO_VALUE)
                    at = w ? ls_binary(lw, op, IR_ADD, w0, at) : w0;
                for (int i = 0; i < k; i++)
                    next[i] = ls_smem_load(lw, op, off_s[i], at, dt[i]);
                if (w == 0) {
                    for (int i = 0; i < k; i++)
                        run[i] = pref[i] = next[i];
                    continue;
                }
                ls_combine_at(lw, op, &cb, run, next, run);
                select_all(lw, op, k, ls_cmp(lw, op, "eq", wi, ls_i32_const(lw, op, w + 1)), run, pref);
            }
            ls_combine_at(lw, op, &cb, pref, cur, comb);
            select_all(lw, op, k, ls_cmp(lw, op, "ge", wi, ls_i32_const(lw, op, 1)), comb, incl);
        } else if (scan) {
            ls_barrier(lw, op); /* the loads of B before the stores of E */
        }
    } else {
        ls_barrier(lw, op); /* the loads of B before the stores of E */
    }

    if (!scan) {
        /* E, a reduction: the last position is in thread min(N, T) - 1. */
        int32_t holder = (n < T ? n : T) - 1;
        ir_value holds = ls_cmp(lw, op, "eq", tid, ls_i32_const(lw, op, holder));
        ir_value at = ls_i32_const(lw, op, SIMT_WARP);
        for (int i = 0; i < k; i++)
            ls_smem_store(lw, op, off_s[i], at, incl[i], holds);
        ls_barrier(lw, op);
        for (int i = 0; i < k; i++)
            ls_replace_value(lw, op->results[i], ls_smem_load(lw, op, off_s[i], at, dt[i]));
        ls_barrier(lw, op);
        ir_op_erase(m, op);
        return true;
    }

    /* E, a scan. */
    ir_value ex[MAX_COMBINED], has_prev = IR_NO_VALUE;
    if (!within) {
        for (int i = 0; i < k; i++)
            ex[i] = shfl_up(lw, op, incl[i], 1);
        if (S > SIMT_WARP)
            select_all(lw, op, k, ls_cmp(lw, op, "eq", lane, ls_i32_const(lw, op, 0)), pref, ex);
        ir_value first = whole ? tid : S > SIMT_WARP ? ls_binary(lw, op, IR_AND, tid, ls_i32_const(lw, op, S - 1))
                                                     : in_line;
        has_prev = ls_cmp(lw, op, "ge", first, ls_i32_const(lw, op, 1));
    }
    ir_value valid = n < T ? ls_cmp(lw, op, "lt", tid, ls_i32_const(lw, op, n)) : IR_NO_VALUE;
    for (int32_t j = 0; j < vc; j++) {
        ir_value *sj = &s[j * k];
        if (!within) {
            ls_combine_at(lw, op, &cb, ex, sj, comb);
            select_all(lw, op, k, has_prev, comb, sj);
        }
        ir_value p = j ? ls_binary(lw, op, IR_ADD, base, ls_i32_const(lw, op, j)) : base;
        for (int i = 0; i < k; i++)
            ls_smem_store(lw, op, off_d[i], p, sj[i], valid);
    }
    ls_barrier(lw, op);
    for (int i = 0; i < k; i++)
        ls_replace_value(lw, op->results[i], ls_smem_load(lw, op, off_d[i], pos, dt[i]));
    ls_barrier(lw, op);
    ir_op_erase(m, op);
    return true;
}

/* sw.gather: the owners of src store it to shared memory, barrier, each
 * thread loads its index slots (an index outside [0, N) reads position 0
 * and gives 0), barrier. Along an axis (attr axis), the position of result
 * element e is e with its axis field (bits [lo, lo + log Li)) replaced by
 * the index, in the source's field (bits [lo, lo + log Ls)), and the index
 * is checked against Ls. */

ir_value ls_gather_index(lowerer *lw, ir_op *op, ir_value index, int64_t len, ir_value *inside)
{
    ir_type it = ir_value_type(lw->m, index);
    ir_dtype idt = (ir_dtype)it.dtype;
    ir_builder b = irb_before(lw->m, op);
    ir_value zero_i = irb_const(&b, it, (ir_scalar){.i = 0});
    ir_value n_i = irb_const(&b, it, ir_scalar_from_int(idt, len));
    *inside = ls_binary(lw, op, IR_AND, ls_cmp(lw, op, "ge", index, zero_i), ls_cmp(lw, op, "lt", index, n_i));
    ir_value sel[3] = {*inside, index, zero_i};
    ir_value safe = ls_emit(lw, op, IR_SELECT, sel, 3, it);
    if (idt != DT_I32)
        safe = ls_cast(lw, op, safe, ir_type_vec(DT_I32, it.len));
    return safe;
}

static bool lower_gather(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value src = op->operands[0], index = op->operands[1];
    int32_t n = ls_tile_len(lw, src), len = n;
    ir_type it = ir_value_type(m, index), rt = ir_value_type(m, op->results[0]);
    ir_dtype dt = (ir_dtype)rt.dtype;
    if (!ls_whole_cta(lw, op) || !ls_smem_fits(lw, op, n * ir_dtypes[dt].bytes))
        return false;
    const ir_attr *axis = ir_attr_get(op, "axis");
    int lo = 0, bits_i = 0, bits_s = 0;
    if (axis) {
        int32_t sd[IR_MAX_RANK], id[IR_MAX_RANK];
        int rank = ir_tile_dims(ls_semantic_type(lw, src), sd);
        ir_tile_dims(ls_semantic_type(lw, index), id);
        for (int i = (int)axis->i + 1; i < rank; i++)
            lo += ls_log2i(sd[i]);
        len = sd[axis->i];
        bits_s = ls_log2i(len);
        bits_i = ls_log2i(id[axis->i]);
    }
    ls_smem_store(lw, op, 0, ls_tile_index(lw, op, n), src, ls_owner_vec(lw, op, n));
    ls_barrier(lw, op);
    ir_builder b = irb_before(m, op);
    ir_value inside;
    ir_value safe = ls_gather_index(lw, op, index, len, &inside);
    if (axis) {
        int32_t slots = it.len;
        ir_value e = ls_tile_index(lw, op, ls_tile_len(lw, index));
        ir_value high = ls_binary(lw, op, IR_SHR, e, vec_i32(lw, op, slots, lo + bits_i));
        if (bits_s + lo > 0)
            high = ls_binary(lw, op, IR_SHL, high, vec_i32(lw, op, slots, lo + bits_s));
        ir_value at = lo ? ls_binary(lw, op, IR_SHL, safe, vec_i32(lw, op, slots, lo)) : safe;
        at = ls_binary(lw, op, IR_OR, high, at);
        if (lo)
            at = ls_binary(lw, op, IR_OR, at, ls_binary(lw, op, IR_AND, e, vec_i32(lw, op, slots, (1 << lo) - 1)));
        safe = at;
    }
    ir_value got = ls_smem_load(lw, op, 0, safe, dt);
    ir_value zero = irb_const(&b, rt, (ir_scalar){0});
    ir_value pick[3] = {inside, got, zero};
    ir_value r = ls_emit(lw, op, IR_SELECT, pick, 3, rt);
    ls_barrier(lw, op);
    ls_replace_op(lw, op, r);
    return true;
}

/* sw.histogram: each owner stores its element's bin (or -1 when it is
 * masked off or outside [0, B)) to shared memory, barrier; every thread
 * counts, for each of its bin slots, the stored bins equal to it (an
 * sw.for over the N positions, in order), barrier. */
static bool lower_histogram(lowerer *lw, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value x = op->operands[0];
    int32_t n = ls_tile_len(lw, x), bins = ls_tile_len(lw, op->results[0]);
    ir_type xt = ir_value_type(m, x), rt = ir_value_type(m, op->results[0]);
    if (!ls_whole_cta(lw, op) || !ls_smem_fits(lw, op, n * 4))
        return false;
    ir_builder b = irb_before(m, op);
    ir_value zero_x = irb_const(&b, xt, (ir_scalar){.i = 0});
    ir_value bins_x = irb_const(&b, xt, ir_scalar_from_int((ir_dtype)xt.dtype, bins));
    ir_value ok = ls_binary(lw, op, IR_AND, ls_cmp(lw, op, "ge", x, zero_x), ls_cmp(lw, op, "lt", x, bins_x));
    if (op->noperands == 2)
        ok = ls_binary(lw, op, IR_AND, ok, op->operands[1]);
    ir_type i32v = ir_type_vec(DT_I32, xt.len);
    ir_value xi = xt.dtype == DT_I32 ? x : ls_cast(lw, op, x, i32v);
    ir_value sel[3] = {ok, xi, irb_const(&b, i32v, ir_scalar_from_int(DT_I32, -1))};
    ir_value bin = ls_emit(lw, op, IR_SELECT, sel, 3, i32v);
    ls_smem_store(lw, op, 0, ls_tile_index(lw, op, n), bin, ls_owner_vec(lw, op, n));
    ls_barrier(lw, op);
    ir_value mine = ls_tile_index(lw, op, bins);
    ir_value zero = irb_const(&b, rt, (ir_scalar){.i = 0});
    ir_op *loop = irb_for(&b, ls_i32_const(lw, op, 0), ls_i32_const(lw, op, n), ls_i32_const(lw, op, 1), &zero, 1);
    ir_block *body = loop->regions[0];
    ir_builder in = irb_at_end(m, body, op->loc);
    ir_value v = irb(&in, IR_SIMT_SMEM_LOAD, &body->args[0], 1, ir_type_scalar(DT_I32));
    ir_attr_set_int(m, ls_def_of(lw, v), "offset", ir_type_scalar(DT_I32), 0);
    ir_value same = irb_cmp(&in, "eq", irb_splat(&in, v, rt), mine);
    ir_value add = irb_binary(&in, IR_ADD, body->args[1], irb_cast(&in, same, rt));
    irb_yield(&in, &add, 1);
    ls_barrier(lw, op);
    ls_replace_op(lw, op, loop->results[0]);
    return true;
}

/* Programs are groups of G threads, T / G of them per CTA: program id =
 * block id * (T / G) + tid / G, and the grid holds grid_dim * (T / G)
 * programs. With G = T, a program is a CTA. */
static void lower_grid_query(lowerer *lw, ir_op *op)
{
    bool pid = op->kind == IR_PROGRAM_ID;
    op->kind = pid ? IR_SIMT_BLOCK_ID : IR_SIMT_GRID_DIM;
    if (lw->group == lw->threads)
        return;
    /* a fresh CTA query before op; op's result becomes the program one */
    ir_op *cta = ls_emit_op(lw, op, op->kind, NULL, 0, (ir_type[]){ir_type_scalar(DT_I32)}, 1);
    ir_attr_set(lw->m, cta, ir_attr_get(op, "axis"));
    ir_value scaled = ls_binary(lw, op, IR_MUL, cta->results[0], ls_const_i32(lw, op, lw->threads / lw->group));
    if (pid) {
        int shift = 0;
        while ((1 << shift) < lw->group)
            shift++;
        ir_value within = ls_binary(lw, op, IR_SHR, ls_thread_id(lw), ls_const_i32(lw, op, shift));
        scaled = ls_binary(lw, op, IR_ADD, scaled, within);
    }
    ls_replace_op(lw, op, scaled);
}

/* The atomics (sw.atomic_rmw, sw.atomic_cas) keep their attributes. Of a
 * tile: the same op per slot on the vectors, owners only (replicated
 * copies must not apply it again; their slots read 0). Of a scalar: the
 * group leader applies it to one slot and, when the old value is used, it
 * is broadcast to the group, so the result is uniform like every scalar. */
static void lower_atomic(lowerer *lw, ir_op *op)
{
    bool cas = op->kind == IR_ATOMIC_CAS;
    ir_op_kind kind = cas ? IR_SIMT_ATOMIC_CAS : IR_SIMT_ATOMIC_RMW;
    int nvals = cas ? 2 : 1;
    ir_value ptr = op->operands[0];
    ir_value mask = op->noperands == 2 + nvals ? op->operands[1 + nvals] : IR_NO_VALUE;
    ir_value operands[4];
    for (int i = 0; i <= nvals; i++)
        operands[i] = op->operands[i];
    if (ir_type_is_vec(ir_value_type(lw->m, ptr))) {
        ir_value owner = ls_owner_mask(lw, op, ls_tile_len(lw, ptr));
        if (owner != IR_NO_VALUE) {
            ir_value owners = ls_splat(lw, op, owner, ir_value_type(lw->m, ptr).len);
            mask = mask == IR_NO_VALUE ? owners : ls_binary(lw, op, IR_AND, mask, owners);
        }
        operands[1 + nvals] = mask;
        ir_op_set_operands(lw->m, op, operands, mask == IR_NO_VALUE ? 1 + nvals : 2 + nvals);
        op->kind = kind;
        return;
    }
    ir_value leader = group_leader(lw, op);
    if (mask != IR_NO_VALUE)
        leader = ls_binary(lw, op, IR_AND, mask, leader);
    for (int i = 0; i <= nvals; i++)
        operands[i] = ls_splat(lw, op, operands[i], 1);
    operands[1 + nvals] = ls_splat(lw, op, leader, 1);
    ir_type scalar = ir_value_type(lw->m, op->results[0]);
    ir_op *one = ls_emit_op(lw, op, kind, operands, 2 + nvals,
                         (ir_type[]){ir_type_like(ir_type_vec(DT_I32, 1), scalar)}, 1);
    ir_attr_set_all(lw->m, one, op->attrs, op->nattrs);
    if (!ir_value_uses(lw->m, op->results[0])) {
        ir_op_erase(lw->m, op);
        return;
    }
    ir_value slot = ls_emit(lw, op, IR_SIMT_VREDUCE, one->results, 1, scalar);
    ir_attr_set_str(lw->m, ls_def_of(lw, slot), "kind", "max");
    ls_replace_op(lw, op, broadcast_from_leader(lw, op, slot));
}

static bool lower_block(lowerer *lw, ir_block *b);

static bool lower_op(lowerer *lw, ir_op *op)
{
    for (int r = 0; r < op->nregions; r++)
        if (!lower_block(lw, op->regions[r]))
            return false;
    switch (op->kind) {
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: lower_grid_query(lw, op); return true;
    case IR_ATOMIC_RMW:
    case IR_ATOMIC_CAS: lower_atomic(lw, op); return true;
    case IR_FENCE: op->kind = IR_SIMT_FENCE; return true;
    case IR_PRINT:
        if (lw->group != lw->threads) {
            diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                          "sl.device_print is not supported in a segment program");
            return false;
        }
        op->kind = IR_SIMT_PRINT;
        return true;
    case IR_BARRIER:
        /* bar.sync waits for the whole CTA: programs sharing one (a
         * segment program's task kernels) could wait on each other. */
        if (lw->group != lw->threads) {
            diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                          "sl.debug_barrier is not supported in a segment program (its programs "
                          "share CTAs, and the barrier waits for the whole CTA)");
            return false;
        }
        op->kind = IR_SIMT_BARRIER;
        return true;
    case IR_ARANGE: lower_arange(lw, op); return true;
    case IR_LOAD: lower_load(lw, op); return true;
    case IR_STORE: lower_store(lw, op); return true;
    case IR_REDUCE:
        if (ir_attr_get(op, "axis"))
            return ls_lower_reduce_axis(lw, op);
        ls_replace_op(lw, op, lower_reduce(lw, op));
        return true;
    case IR_BROADCAST:
    case IR_RESHAPE:
    case IR_TRANS:
    case IR_SPLIT: return ls_lower_shape_op(lw, op);
    case IR_SCAN: return lower_combine(lw, op);
    case IR_REDUCE_FN:
        if (ir_attr_get(op, "axis"))
            return ls_lower_reduce_fn_axis(lw, op);
        return lower_combine(lw, op);
    case IR_GATHER:
        if (lw->group == SIMT_WARP && lw->threads > lw->group && !ir_attr_get(op, "axis"))
            return ls_lower_warp_gather(lw, op);
        return lower_gather(lw, op);
    case IR_SEGMENT_INDEX: return ls_lower_segment_index(lw, op);
    case IR_SEGMENTED_REDUCE: return ls_lower_segmented_reduce(lw, op);
    case IR_HISTOGRAM: return lower_histogram(lw, op);
    /* Retyped already; they mean the same slot by slot. */
    case IR_FOR:
    case IR_WHILE:
    case IR_IF:
    case IR_YIELD:
    case IR_RETURN:
    case IR_CONSTANT:
    case IR_SPLAT: return true;
    default: break;
    }
    if (ir_ops[op->kind].flags & F_ELEM)
        return true;
    sw_unreachable(lw->d, "lower-simt: no SIMT lowering for '%s'", ir_ops[op->kind].name);
    return false;
}

static bool lower_block(lowerer *lw, ir_block *b)
{
    for (ir_op *op = b->first, *next; op; op = next) {
        next = op->next;
        if (!lower_op(lw, op))
            return false;
    }
    return true;
}

/* ---- the pass ------------------------------------------------------------------ */

/* sw.block_threads = T and sw.program_threads = G on a semantic function
 * (the plan's task kernels carry them; a grid program launched with
 * num_warps carries T) fix the CTA size and the threads per program;
 * without them T comes from the longest tile and G = T. */
static bool read_geometry(lowerer *lw, int32_t max_len)
{
    const ir_attr *t = ir_attr_get(lw->func, "sw.block_threads");
    const ir_attr *g = ir_attr_get(lw->func, "sw.program_threads");
    lw->threads = choose_threads(max_len);
    if (t && t->kind == ATTR_INT)
        lw->threads = (int32_t)t->i;
    lw->group = lw->threads;
    if (g && g->kind == ATTR_INT)
        lw->group = (int32_t)g->i;
    if (!is_pow2(lw->threads) || lw->threads < SIMT_WARP || lw->threads > 1024 || !is_pow2(lw->group) ||
        lw->group > lw->threads || (lw->group > SIMT_WARP && lw->group != lw->threads)) {
        diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, lw->func->loc,
                      "lower-simt: sw.block_threads = %d and sw.program_threads = %d: a CTA is a power "
                      "of two in 32..1024 threads, a program a power of two of at most a warp's or the "
                      "whole CTA's threads", (int)lw->threads, (int)lw->group);
        return false;
    }
    return true;
}

/* A segment program (docs/segments.md) has no SIMT form of its own: its
 * task kernels do, once lower-segments has made them. Reported at the first
 * segment op, before anything is rewritten. */
static bool reject_segment_program(const lowerer *lw, const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        switch (op->kind) {
        case IR_SEGMENT_ID:
        case IR_SEGMENT:
        case IR_SEGMENT_LENGTH:
        case IR_LOAD_SEGMENT:
        case IR_STORE_SEGMENT:
            diag_error_at(lw->d, DIAG_COMPILE, &lw->m->src, op->loc,
                          "lower-simt: '%s' makes @%s a segment program, which lower-segments must "
                          "turn into task kernels first: run lower-segments before lower-simt "
                          "(--passes=lower-segments,lower-simt)", ir_ops[op->kind].name,
                          ir_func_name(lw->func));
            return false;
        default: break;
        }
        for (int r = 0; r < op->nregions; r++)
            if (!reject_segment_program(lw, op->regions[r]))
                return false;
    }
    return true;
}

/* What every function's lowering reads of the module as it was before the
 * pass: taken once, since lowering one function leaves the values of the
 * others alone (a copy per function would make the pass quadratic in the
 * number of functions). */
typedef struct module_before {
    ir_type *types; /* every value's type */
    int32_t nvalues;
    contiguity contig;
} module_before;

static bool wants_lowering(const ir_op *f)
{
    return f->kind == IR_FUNC && !ir_attr_get(f, "simt.num_threads");
}

static bool lower_func(ir_module *m, ir_op *func, const module_before *before, diag *d)
{
    lowerer lw = {.m = m, .d = d, .func = func, .thread_id = IR_NO_VALUE};
    ir_block *body = ir_func_body(func);
    int32_t max_len = 1;
    if (!reject_segment_program(&lw, body) || !scan_tiles(&lw, body, &max_len) ||
        !read_geometry(&lw, max_len))
        return false;
    lw.nsemantic = before->nvalues;
    lw.semantic = before->types;
    lw.contig = before->contig;
    retype_block(&lw, body);
    bool lowered = lower_block(&lw, body);
    if (lowered) {
        ls_erase_reshapes(&lw, body); /* (replaces values: lw.made is still in use) */
        drop_trailing_barriers(&lw, body);
    }
    free(lw.made);
    free(lw.backs);
    free(lw.made_barriers);
    if (!lowered)
        return false;
    ir_attr_set_int(m, func, "simt.num_threads", ir_type_scalar(DT_I32), lw.threads);
    int32_t smem = lw.uses_scratch ? SIMT_REDUCE_SCRATCH : 0;
    ir_attr_set_int(m, func, "simt.smem_bytes", ir_type_scalar(DT_I32),
                    lw.smem_need > smem ? lw.smem_need : smem);
    return true;
}

static bool lower_module(ir_module *m, diag *d)
{
    module_before before = {.nvalues = m->nvalues};
    before.types = arena_alloc(m->ar, sizeof(ir_type) * (size_t)(m->nvalues ? m->nvalues : 1));
    if (!before.types || !contiguity_init(m, &before.contig)) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    for (int32_t v = 0; v < m->nvalues; v++)
        before.types[v] = m->values[v].type;
    for (ir_op *f = m->body->first; f; f = f->next)
        if (wants_lowering(f))
            contiguity_analyze(m, f, &before.contig);
    for (ir_op *f = m->body->first; f; f = f->next)
        if (wants_lowering(f) && !lower_func(m, f, &before, d))
            return false;
    return true;
}

bool pass_lower_simt(ir_module *m, diag *d) { return pass_guarded(m, d, lower_module); }
