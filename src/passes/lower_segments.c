/* lower_segments.c - requires a verified module; guarantees a verified module whose segment programs are grid programs (one CTA per segment) with hidden i64 buffer lengths after their parameters.
 *
 * The schedule: program s (sw.program_id 0, the old sw.segment_id) reads
 * offsets[s] and offsets[s+1] and clamps them to every buffer it reads or
 * writes a segment of (start = min(max(offsets[s], 0), n), end =
 * min(max(offsets[s+1], start), n) for each such buffer's element count n,
 * a hidden parameter), so that no access leaves a buffer whatever the
 * offsets hold. Then it walks [start, end) in tiles of SEGMENT_BLOCK
 * elements, from start rounded down to SEGMENT_ALIGN, once per loop:
 *
 *   loop k holds the roots of stage k -- segment reductions and
 *   sw.store_segment -- and a fresh copy of every segment-valued op they
 *   need (loads included: a segment is read once per loop that needs it).
 *   Segment values become tiles (masked with start <= idx < end), a
 *   reduction becomes a tile accumulator carried by the loop (masked-off
 *   lanes contribute the identity) and one sw.reduce after it, a store
 *   becomes a masked sw.store. Scalar ops that need a loop's reductions run
 *   after that loop, in program order.
 *
 * A root's loop is its stage: the number of reductions on the longest chain
 * it depends on (the `stage` attribute of the stage analysis, when present,
 * is a lower bound; the dataflow gives the rest). Memory side effects keep
 * their program order between scalar loads/stores and segment stores (a
 * scalar store that waits for a reduction delays later segment stores).
 * Segment loads are not ordered against earlier stores of the same
 * program.
 */
#include "lower_segments.h"
#include "passes.h"
#include "../ir/scalar.h"

#include <string.h>

/* ---- launch facts ----------------------------------------------------------- */

static bool is_segment_op(ir_op_kind k)
{
    return k == IR_SEGMENT_ID || k == IR_SEGMENT || k == IR_SEGMENT_LENGTH ||
           k == IR_LOAD_SEGMENT || k == IR_STORE_SEGMENT;
}

/* The block-argument index of v when it is a parameter of func, else -1. */
static int param_index(const ir_module *m, const ir_op *func, ir_value v)
{
    return m->values[v].arg_of == ir_func_body(func) ? m->values[v].index : -1;
}

static bool pointer_param(ir_module *m, const ir_op *func, const ir_op *op, int operand,
                          const char *what, int *index, diag *d)
{
    *index = param_index(m, func, op->operands[operand]);
    if (*index >= 0)
        return true;
    diag_error_at(d, DIAG_COMPILE, &m->src, op->loc,
                  "lower-segments: the %s of '%s' must be a kernel parameter (pointer arithmetic "
                  "on it is not supported in segment programs)", what, ir_ops[op->kind].name);
    return false;
}

bool segments_params(ir_module *m, const ir_op *func, segment_params *out, diag *d)
{
    const ir_block *body = ir_func_body(func);
    memset(out, 0, sizeof *out);
    out->offsets = -1;
    bool *counted = arena_alloc(m->ar, sizeof(bool) * (size_t)(body->nargs + 1));
    const ir_op *first = NULL;
    for (const ir_op *op = body->first; op; op = op->next) {
        if (!is_segment_op(op->kind))
            continue;
        out->is_segment_program = true;
        if (!first)
            first = op;
        int index;
        if (op->kind == IR_SEGMENT) {
            if (!pointer_param(m, func, op, 0, "values pointer", &index, d))
                return false;
            counted[index] = true;
            if (!pointer_param(m, func, op, 1, "offsets pointer", &index, d))
                return false;
            out->offsets = index;
        } else if (op->kind == IR_STORE_SEGMENT) {
            if (!pointer_param(m, func, op, 0, "pointer", &index, d))
                return false;
            counted[index] = true;
        }
    }
    if (first && out->offsets < 0) {
        diag_error_at(d, DIAG_COMPILE, &m->src, first->loc,
                      "lower-segments: a segment program needs an sl.segment view: its offsets "
                      "give the program's segment and the launch's grid");
        return false;
    }
    out->hidden_source = arena_alloc(m->ar, sizeof(int) * (size_t)(body->nargs + 1));
    for (int i = 0; i < body->nargs; i++)
        if (counted[i])
            out->hidden_source[out->nhidden++] = i;
    return true;
}

/* ---- the lowering's state ------------------------------------------------------ */

/* What happens to one top-level op of a segment program. */
typedef enum op_class {
    C_KEEP,    /* scalar op that needs no reduction: stays in the prologue */
    C_POST,    /* scalar op that needs loop `place`: moves after that loop */
    C_VIEW,    /* sw.segment: becomes the clamped range (first view) and goes */
    C_LENGTH,  /* sw.segment_length: end - start */
    C_SEGVAL,  /* makes a segment value: copied into every loop that needs it, then goes */
    C_REDUCE,  /* reduction of a segment value: root of loop `place` */
    C_STORE,   /* sw.store_segment: root of loop `place` */
} op_class;

typedef struct lowering {
    ir_module *m;
    diag *d;
    ir_op *func;
    ir_block *body;
    int32_t nvalues;   /* values before the pass: the per-value arrays' size */
    int nops;
    ir_op **ops;       /* the body's top-level ops, in program order */
    uint8_t *cls;      /* [nops] op_class */
    int32_t *place;    /* [nops] C_POST: the loop it follows; roots: their loop */
    int32_t *ready;    /* [nvalues] scalar: -1 (prologue) or the loop it follows;
                          segment value: the latest loop its scalar inputs follow */
    int32_t last_loop; /* the highest loop or post-loop group used, -1 for none */
    segment_params params;
    ir_value *numel;   /* [params.nhidden] the hidden parameters */
    ir_value start, end;
    ir_value first_tile; /* start rounded down to SEGMENT_ALIGN: where the loops begin */

    /* the loop being built */
    ir_value *tile_of; /* [nvalues] segment value -> its tile in this loop */
    uint8_t *needed;   /* [nvalues] segment values this loop's roots need */
    ir_value index, mask;
} lowering;

static bool is_segval(const lowering *lw, ir_value v)
{
    return ir_value_type(lw->m, v).kind == TY_SEGVAL;
}

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* ---- builders ---------------------------------------------------------------------- */

/* Ops go before `pos`, or at the end of `block` when pos is NULL. */
typedef struct builder {
    lowering *lw;
    ir_block *block;
    ir_op *pos;
    src_loc loc;
} builder;

static ir_op *build_op(builder *b, ir_op_kind kind, const ir_value *operands, int n,
                       const ir_type *results, int nresults, int nregions)
{
    ir_op *op = ir_op_create(b->lw->m, kind, b->loc, operands, n, results, nresults, nregions);
    if (b->pos)
        ir_insert_before(b->pos, op);
    else
        ir_block_append(b->block, op);
    return op;
}

static ir_value build(builder *b, ir_op_kind kind, const ir_value *operands, int n, ir_type result)
{
    return build_op(b, kind, operands, n, &result, 1, 0)->results[0];
}

static ir_value binary(builder *b, ir_op_kind kind, ir_value x, ir_value y)
{
    ir_value operands[2] = {x, y};
    return build(b, kind, operands, 2, ir_value_type(b->lw->m, x));
}

static ir_value cast_to(builder *b, ir_value x, ir_type to)
{
    if (ir_type_eq(ir_value_type(b->lw->m, x), to))
        return x;
    return build(b, IR_CAST, &x, 1, to);
}

/* An sw.constant of type t (scalar or tile) whose elements are `value`. */
static ir_value constant(builder *b, ir_type t, ir_scalar value)
{
    ir_value c = build(b, IR_CONSTANT, NULL, 0, t);
    ir_op *op = b->lw->m->values[c].def;
    ir_dtype dt = (ir_dtype)t.dtype;
    if (dt == DT_I1)
        ir_attr_set_bool(b->lw->m, op, "value", value.i != 0);
    else if (ir_dtype_is_float(dt))
        ir_attr_set_float(b->lw->m, op, "value", ir_type_scalar(dt), value.f);
    else
        ir_attr_set_int(b->lw->m, op, "value", ir_type_scalar(dt), value.i);
    return c;
}

static ir_value const_int(builder *b, ir_dtype dt, int64_t v)
{
    return constant(b, ir_type_scalar(dt), ir_scalar_from_int(dt, v));
}

/* The tile type a segment value of type t becomes in a loop. */
static ir_type tile_of_type(ir_type t)
{
    return ir_type_like(ir_type_tile(DT_I32, SEGMENT_BLOCK), ir_type_elem(t));
}

/* ---- analysis -------------------------------------------------------------------------- */

static bool has_memory_effect(const ir_op *op)
{
    if (op->kind == IR_LOAD || op->kind == IR_STORE)
        return true;
    for (int r = 0; r < op->nregions; r++)
        for (const ir_op *inner = op->regions[r]->first; inner; inner = inner->next)
            if (has_memory_effect(inner))
                return true;
    return false;
}

/* The latest loop any operand of op (or of an op nested in it) follows. */
static int32_t operands_ready(const lowering *lw, const ir_op *op)
{
    int32_t r = -1;
    for (int i = 0; i < op->noperands; i++) {
        ir_value v = op->operands[i];
        if (v < lw->nvalues)
            r = max32(r, lw->ready[v]);
    }
    for (int k = 0; k < op->nregions; k++)
        for (const ir_op *inner = op->regions[k]->first; inner; inner = inner->next)
            r = max32(r, operands_ready(lw, inner));
    return r;
}

static int32_t stage_attr(const ir_op *op)
{
    const ir_attr *a = ir_attr_get(op, "stage");
    return a && a->kind == ATTR_INT && a->i >= 0 && a->i < INT32_MAX ? (int32_t)a->i : 0;
}

/* Positions in the schedule, for ordering memory effects: the prologue is
 * 0, loop k is 2k+1, the ops after loop k are 2k+2. */
static int32_t post_after_floor(int32_t ready, int32_t floor)
{
    while (2 * ready + 2 < floor)
        ready++;
    return ready;
}

static int32_t loop_after_floor(int32_t loop, int32_t floor)
{
    while (2 * loop + 1 < floor)
        loop++;
    return loop;
}

static void set_results_ready(lowering *lw, const ir_op *op, int32_t r)
{
    for (int i = 0; i < op->nresults; i++)
        lw->ready[op->results[i]] = r;
}

/* Classifies every top-level op and places roots and scalar ops (see the
 * contract at the top). */
static void analyse(lowering *lw)
{
    int32_t floor = 0;
    for (int i = 0; i < lw->nops; i++) {
        ir_op *op = lw->ops[i];
        int32_t r = operands_ready(lw, op);
        switch (op->kind) {
        case IR_SEGMENT: lw->cls[i] = C_VIEW; continue;
        case IR_SEGMENT_LENGTH: lw->cls[i] = C_LENGTH; set_results_ready(lw, op, -1); continue;
        case IR_STORE_SEGMENT: {
            int32_t loop = loop_after_floor(max32(stage_attr(op), r + 1), floor);
            lw->cls[i] = C_STORE;
            lw->place[i] = loop;
            floor = 2 * loop + 1;
            lw->last_loop = max32(lw->last_loop, loop);
            continue;
        }
        case IR_REDUCE:
            if (is_segval(lw, op->operands[0])) {
                int32_t loop = max32(stage_attr(op), r + 1);
                lw->cls[i] = C_REDUCE;
                lw->place[i] = loop;
                set_results_ready(lw, op, loop);
                lw->last_loop = max32(lw->last_loop, loop);
                continue;
            }
            break;
        default: break;
        }
        if (op->nresults == 1 && is_segval(lw, op->results[0])) {
            lw->cls[i] = C_SEGVAL;
            set_results_ready(lw, op, r);
            continue;
        }
        if (op->kind == IR_RETURN) {
            lw->cls[i] = C_KEEP;
            continue;
        }
        if (has_memory_effect(op)) {
            r = post_after_floor(r, floor);
            floor = 2 * r + 2;
        }
        lw->cls[i] = r < 0 ? C_KEEP : C_POST;
        lw->place[i] = r;
        set_results_ready(lw, op, r);
        lw->last_loop = max32(lw->last_loop, r);
    }
}

/* ---- the prologue: hidden parameters, the clamped range, lengths ---------------------- */

static void add_hidden_params(lowering *lw)
{
    ir_module *m = lw->m;
    lw->numel = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(lw->params.nhidden + 1));
    for (int h = 0; h < lw->params.nhidden; h++) {
        ir_value source = lw->body->args[lw->params.hidden_source[h]];
        const char *name = m->values[source].name;
        strbuf sb;
        sb_init(&sb);
        if (name)
            sb_printf(&sb, "%s__numel", name);
        else
            sb_printf(&sb, "arg%d__numel", lw->params.hidden_source[h]);
        lw->numel[h] = ir_block_add_arg(m, lw->body, ir_type_scalar(DT_I64), sb.data ? sb.data : "numel");
        sb_free(&sb);
    }
}

/* start and end of this program's segment, clamped to every hidden count
 * n: start = max(min(offsets[s], n...), 0), end = max(min(offsets[s+1],
 * n...), start). For counts >= 0 this is min(max(offsets[s], 0), n) and
 * min(max(offsets[s+1], start), n) for each n, the segment cut to what
 * every buffer holds; a bogus negative count gives an empty segment, never
 * a negative index. Built before the first view. */
static void build_range(lowering *lw, ir_op *view)
{
    builder b = {.lw = lw, .block = lw->body, .pos = view, .loc = view->loc};
    ir_value offsets = view->operands[1], sid = view->operands[2];
    ir_type ptr = ir_value_type(lw->m, offsets), i64 = ir_type_scalar(DT_I64);
    ir_type offset_type = ir_type_scalar((ir_dtype)ptr.dtype);
    ir_value first_ptr = binary(&b, IR_ADDPTR, offsets, sid);
    ir_value one = const_int(&b, DT_I32, 1);
    ir_value next_ptr = binary(&b, IR_ADDPTR, first_ptr, one);
    ir_value first = cast_to(&b, build(&b, IR_LOAD, &first_ptr, 1, offset_type), i64);
    ir_value next = cast_to(&b, build(&b, IR_LOAD, &next_ptr, 1, offset_type), i64);
    ir_value start = first, end = next;
    for (int h = 0; h < lw->params.nhidden; h++) {
        start = binary(&b, IR_MINIMUM, start, lw->numel[h]);
        end = binary(&b, IR_MINIMUM, end, lw->numel[h]);
    }
    lw->start = binary(&b, IR_MAXIMUM, start, const_int(&b, DT_I64, 0));
    lw->end = binary(&b, IR_MAXIMUM, end, lw->start);
    lw->first_tile = binary(&b, IR_AND, lw->start, const_int(&b, DT_I64, -SEGMENT_ALIGN));
}

static void lower_length(lowering *lw, ir_op *op)
{
    builder b = {.lw = lw, .block = lw->body, .pos = op, .loc = op->loc};
    ir_value length = cast_to(&b, binary(&b, IR_SUB, lw->end, lw->start),
                              ir_value_type(lw->m, op->results[0]));
    ir_replace_all_uses(lw->m, op->results[0], length);
    ir_op_unlink(op);
}

/* ---- loops ------------------------------------------------------------------------------- */

/* Reductions accumulate as docs/simt.md reduces: f16/bf16 in f32, i1/i8/ui8 in i32. */
static ir_dtype accumulator_of(ir_dtype dt)
{
    switch (dt) {
    case DT_F16:
    case DT_BF16: return DT_F32;
    case DT_I1:
    case DT_I8:
    case DT_U8: return DT_I32;
    default: return dt;
    }
}

static ir_op_kind combine_of(lowering *lw, const char *kind)
{
    ir_op_kind op = ir_reduce_combine_op(kind);
    if (op == IR_OP_COUNT)
        sw_unreachable(lw->d, "lower-segments: unknown reduction kind '%s'", kind);
    return op;
}

static const char *reduce_kind(const ir_op *op) { return ir_attr_get(op, "kind")->s; }

static ir_type reduce_acc_type(const lowering *lw, const ir_op *op)
{
    ir_dtype dt = (ir_dtype)ir_value_type(lw->m, op->results[0]).dtype;
    return ir_type_tile(accumulator_of(dt), SEGMENT_BLOCK);
}

static ir_value identity_tile(lowering *lw, builder *b, const ir_op *reduce)
{
    ir_type acc = reduce_acc_type(lw, reduce);
    ir_scalar identity;
    if (!ir_eval_reduce_identity(reduce_kind(reduce), (ir_dtype)acc.dtype, &identity))
        sw_unreachable(lw->d, "lower-segments: no identity for '%s'", reduce_kind(reduce));
    return constant(b, acc, identity);
}

/* The tile of pointers ptr + index for a view or store target. */
static ir_value pointer_tile(lowering *lw, builder *b, ir_value ptr)
{
    ir_type elem = ir_value_type(lw->m, ptr);
    ir_value ptrs = build(b, IR_SPLAT, &ptr, 1, ir_type_ptr_tile((ir_dtype)elem.dtype, SEGMENT_BLOCK));
    ir_value operands[2] = {ptrs, lw->index};
    return build(b, IR_ADDPTR, operands, 2, ir_value_type(lw->m, ptrs));
}

/* The tile that segment value v's defining op makes in this loop. */
static void clone_segval(lowering *lw, builder *b, ir_op *op)
{
    ir_module *m = lw->m;
    ir_value v = op->results[0];
    ir_type t = tile_of_type(ir_value_type(m, v));
    b->loc = op->loc;
    ir_value tile;
    if (op->kind == IR_LOAD_SEGMENT) {
        ir_op *view = m->values[op->operands[0]].def;
        ir_value other = constant(b, t, ir_scalar_from_int((ir_dtype)t.dtype, 0));
        ir_value operands[3] = {pointer_tile(lw, b, view->operands[0]), lw->mask, other};
        tile = build(b, IR_LOAD, operands, 3, t);
    } else if (op->kind == IR_CONSTANT || op->kind == IR_SPLAT || (ir_ops[op->kind].flags & F_ELEM)) {
        ir_value operands[3];
        if (op->noperands > 3) {
            sw_unreachable(lw->d, "lower-segments: '%s' has %d operands", ir_ops[op->kind].name,
                           op->noperands);
            return;
        }
        for (int i = 0; i < op->noperands; i++) {
            ir_value x = op->operands[i];
            operands[i] = x < lw->nvalues && is_segval(lw, x) ? lw->tile_of[x] : x;
            if (operands[i] == IR_NO_VALUE)
                sw_unreachable(lw->d, "lower-segments: '%s' uses a segment value this loop did not make",
                               ir_ops[op->kind].name);
        }
        ir_op *copy = build_op(b, op->kind, operands, op->noperands, &t, 1, 0);
        for (int i = 0; i < op->nattrs; i++)
            if (strcmp(op->attrs[i].name, "stage"))
                ir_attr_set(m, copy, &op->attrs[i]);
        tile = copy->results[0];
    } else {
        sw_unreachable(lw->d, "lower-segments: no tile form for '%s' on segment values",
                       ir_ops[op->kind].name);
        return;
    }
    lw->tile_of[v] = tile;
}

/* Marks the segment values loop `loop`'s roots need, through the ops that
 * make them (a backward walk: operands come before their uses). */
static void mark_needed(lowering *lw, int32_t loop)
{
    memset(lw->needed, 0, (size_t)lw->nvalues);
    for (int i = lw->nops - 1; i >= 0; i--) {
        ir_op *op = lw->ops[i];
        bool root = (lw->cls[i] == C_REDUCE || lw->cls[i] == C_STORE) && lw->place[i] == loop;
        bool inner = lw->cls[i] == C_SEGVAL && lw->needed[op->results[0]];
        if (!root && !inner)
            continue;
        for (int k = 0; k < op->noperands; k++)
            if (is_segval(lw, op->operands[k]))
                lw->needed[op->operands[k]] = 1;
    }
}

/* The loop's tile index (base + 0 .. BLOCK-1, i64) and mask (start <=
 * index < end). */
static void build_index(lowering *lw, builder *b, ir_value base)
{
    ir_type i64_tile = ir_type_tile(DT_I64, SEGMENT_BLOCK);
    ir_value lanes = build(b, IR_ARANGE, NULL, 0, ir_type_tile(DT_I32, SEGMENT_BLOCK));
    ir_op *arange = lw->m->values[lanes].def;
    ir_attr_set_int(lw->m, arange, "start", ir_type_scalar(DT_I32), 0);
    ir_attr_set_int(lw->m, arange, "end", ir_type_scalar(DT_I32), SEGMENT_BLOCK);
    ir_value bases = build(b, IR_SPLAT, &base, 1, i64_tile);
    lw->index = binary(b, IR_ADD, bases, cast_to(b, lanes, i64_tile));
    ir_type mask_type = ir_type_tile(DT_I1, SEGMENT_BLOCK);
    ir_value starts = build(b, IR_SPLAT, &lw->start, 1, i64_tile);
    ir_value lower[2] = {lw->index, starts};
    ir_value after_start = build(b, IR_CMP, lower, 2, mask_type);
    ir_attr_set_str(lw->m, lw->m->values[after_start].def, "predicate", "ge");
    ir_value ends = build(b, IR_SPLAT, &lw->end, 1, i64_tile);
    ir_value upper[2] = {lw->index, ends};
    ir_value before_end = build(b, IR_CMP, upper, 2, mask_type);
    ir_attr_set_str(lw->m, lw->m->values[before_end].def, "predicate", "lt");
    lw->mask = binary(b, IR_AND, after_start, before_end);
}

/* acc' = combine(acc, select(mask, x, identity)) for one reduction root. */
static ir_value accumulate(lowering *lw, builder *b, ir_op *reduce, ir_value acc)
{
    b->loc = reduce->loc;
    ir_type acc_type = ir_value_type(lw->m, acc);
    ir_value x = cast_to(b, lw->tile_of[reduce->operands[0]], acc_type);
    ir_value operands[3] = {lw->mask, x, identity_tile(lw, b, reduce)};
    ir_value live = build(b, IR_SELECT, operands, 3, acc_type);
    return binary(b, combine_of(lw, reduce_kind(reduce)), acc, live);
}

static void store_tile(lowering *lw, builder *b, ir_op *store)
{
    b->loc = store->loc;
    ir_value operands[3] = {pointer_tile(lw, b, store->operands[0]), lw->tile_of[store->operands[2]],
                            lw->mask};
    build_op(b, IR_STORE, operands, 3, NULL, 0, 0);
}

/* One sw.reduce of the loop's accumulator replaces the segment reduction. */
static void finish_reduction(lowering *lw, builder *b, ir_op *reduce, ir_value acc)
{
    b->loc = reduce->loc;
    ir_module *m = lw->m;
    ir_type result = ir_value_type(m, reduce->results[0]);
    ir_type acc_elem = ir_type_elem(ir_value_type(m, acc));
    ir_value r = build(b, IR_REDUCE, &acc, 1, acc_elem);
    ir_attr_set_str(m, m->values[r].def, "kind", reduce_kind(reduce));
    if (result.dtype == DT_I1 && !strcmp(reduce_kind(reduce), "sum"))
        r = binary(b, IR_AND, r, const_int(b, (ir_dtype)acc_elem.dtype, 1)); /* i1 sums are xor */
    r = cast_to(b, r, result);
    ir_replace_all_uses(m, reduce->results[0], r);
}

static void build_loop(lowering *lw, int32_t loop, ir_op *ret)
{
    ir_module *m = lw->m;
    int nroots = 0, naccs = 0, first_root = -1;
    for (int i = 0; i < lw->nops; i++)
        if ((lw->cls[i] == C_REDUCE || lw->cls[i] == C_STORE) && lw->place[i] == loop) {
            nroots++;
            naccs += lw->cls[i] == C_REDUCE;
            if (first_root < 0)
                first_root = i;
        }
    if (!nroots)
        return;
    builder out = {.lw = lw, .block = lw->body, .pos = ret, .loc = lw->ops[first_root]->loc};
    ir_value *operands = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(naccs + 3));
    ir_type *types = arena_alloc(m->ar, sizeof(ir_type) * (size_t)(naccs + 1));
    ir_op **reductions = arena_alloc(m->ar, sizeof(ir_op *) * (size_t)(naccs + 1));
    operands[0] = lw->first_tile;
    operands[1] = lw->end;
    operands[2] = const_int(&out, DT_I64, SEGMENT_BLOCK);
    for (int i = 0, a = 0; i < lw->nops; i++)
        if (lw->cls[i] == C_REDUCE && lw->place[i] == loop) {
            reductions[a] = lw->ops[i];
            types[a] = reduce_acc_type(lw, lw->ops[i]);
            operands[3 + a] = identity_tile(lw, &out, lw->ops[i]);
            a++;
        }
    ir_op *for_op = build_op(&out, IR_FOR, operands, naccs + 3, types, naccs, 1);
    ir_block *body = for_op->regions[0];
    ir_value base = ir_block_add_arg(m, body, ir_type_scalar(DT_I64), NULL);
    ir_value *accs = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(naccs + 1));
    for (int a = 0; a < naccs; a++)
        accs[a] = ir_block_add_arg(m, body, types[a], NULL);

    builder in = {.lw = lw, .block = body, .pos = NULL, .loc = out.loc};
    build_index(lw, &in, base);
    mark_needed(lw, loop);
    for (int32_t v = 0; v < lw->nvalues; v++)
        lw->tile_of[v] = IR_NO_VALUE;
    for (int i = 0, a = 0; i < lw->nops; i++) {
        ir_op *op = lw->ops[i];
        if (lw->cls[i] == C_SEGVAL && lw->needed[op->results[0]])
            clone_segval(lw, &in, op);
        else if (lw->cls[i] == C_REDUCE && lw->place[i] == loop) {
            accs[a] = accumulate(lw, &in, op, accs[a]);
            a++;
        } else if (lw->cls[i] == C_STORE && lw->place[i] == loop)
            store_tile(lw, &in, op);
    }
    in.loc = out.loc;
    build_op(&in, IR_YIELD, accs, naccs, NULL, 0, 0);
    for (int a = 0; a < naccs; a++)
        finish_reduction(lw, &out, reductions[a], for_op->results[a]);
}

/* ---- the pass ------------------------------------------------------------------------------- */

/* The stage analysis' attributes describe the segment program, which is gone. */
static void strip_stages(ir_block *b)
{
    for (ir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nattrs; i++)
            if (!strcmp(op->attrs[i].name, "stage")) {
                op->attrs[i] = op->attrs[op->nattrs - 1];
                op->nattrs--;
                break;
            }
        for (int r = 0; r < op->nregions; r++)
            strip_stages(op->regions[r]);
    }
}

static void strip_func_stages(ir_op *func)
{
    for (int i = 0; i < func->nattrs; i++)
        if (!strcmp(func->attrs[i].name, "sw.stages")) {
            func->attrs[i] = func->attrs[func->nattrs - 1];
            func->nattrs--;
            return;
        }
}

static bool lower_func(ir_module *m, ir_op *func, diag *d)
{
    lowering lw = {.m = m, .d = d, .func = func, .body = ir_func_body(func), .last_loop = -1};
    if (!segments_params(m, func, &lw.params, d))
        return false;
    if (!lw.params.is_segment_program)
        return true;
    ir_op *first_view = NULL;
    for (ir_op *op = lw.body->first; op; op = op->next) {
        lw.nops++;
        if (op->kind == IR_SEGMENT && !first_view)
            first_view = op;
    }
    if (!first_view) {
        sw_unreachable(d, "lower-segments: segments_params found offsets but no view");
        return false;
    }
    lw.nvalues = m->nvalues;
    size_t nv = (size_t)(m->nvalues + 1), no = (size_t)(lw.nops + 1);
    lw.ops = arena_alloc(m->ar, sizeof(ir_op *) * no);
    lw.cls = arena_alloc(m->ar, no);
    lw.place = arena_alloc(m->ar, sizeof(int32_t) * no);
    lw.ready = arena_alloc(m->ar, sizeof(int32_t) * nv);
    lw.tile_of = arena_alloc(m->ar, sizeof(ir_value) * nv);
    lw.needed = arena_alloc(m->ar, nv);
    int n = 0;
    for (ir_op *op = lw.body->first; op; op = op->next)
        lw.ops[n++] = op;
    for (int32_t v = 0; v < lw.nvalues; v++)
        lw.ready[v] = -1;
    analyse(&lw);

    add_hidden_params(&lw);
    build_range(&lw, first_view);
    for (int i = 0; i < lw.nops; i++) {
        if (lw.ops[i]->kind == IR_SEGMENT_ID)
            lw.ops[i]->kind = IR_PROGRAM_ID;
        else if (lw.cls[i] == C_LENGTH)
            lower_length(&lw, lw.ops[i]);
    }
    ir_op *ret = lw.body->last;
    if (!ret || ret->kind != IR_RETURN) {
        sw_unreachable(d, "lower-segments: the function does not end in func.return");
        return false;
    }
    for (int32_t loop = 0; loop <= lw.last_loop; loop++) {
        build_loop(&lw, loop, ret);
        for (int i = 0; i < lw.nops; i++)
            if (lw.cls[i] == C_POST && lw.place[i] == loop) {
                ir_op_unlink(lw.ops[i]);
                ir_insert_before(ret, lw.ops[i]);
            }
    }
    for (int i = 0; i < lw.nops; i++)
        if (lw.cls[i] == C_VIEW || lw.cls[i] == C_SEGVAL || lw.cls[i] == C_REDUCE ||
            lw.cls[i] == C_STORE)
            ir_op_unlink(lw.ops[i]);
    strip_stages(lw.body);
    strip_func_stages(func);
    return !diag_failed(d);
}

/* Kept out of line: no local of the lowering may live in the frame that
 * calls setjmp. */
static __attribute__((noinline)) bool lower_module(ir_module *m, diag *d)
{
    for (ir_op *f = m->body->first; f; f = f->next)
        if (f->kind == IR_FUNC && !ir_attr_get(f, "simt.num_threads") && !lower_func(m, f, d))
            return false;
    return true;
}

bool pass_lower_segments(ir_module *m, diag *d) { return pass_guarded(m, d, lower_module); }
