/* task_body.c - requires a verified segment program (with or without the
 * stage analysis); builds one task's body from it into a task kernel
 * (task_body.h), never changing the program itself.
 *
 * The analysis places every top-level op: the prologue (scalar ops that
 * need no reduction), the roots of stage k (segment reductions and
 * sw.store_segment whose inputs need k reductions), the segment values they
 * need (recomputed as tiles wherever a stage needs them), and the scalar ops
 * after stage k. A root's stage is the number of reductions on the longest
 * chain it depends on (the `stage` attribute, when present, is a lower
 * bound). Memory side effects keep their program order between scalar
 * loads/stores and segment stores (a scalar store that waits for a
 * reduction delays later segment stores). Segment loads are not ordered
 * against earlier stores of the same program. */
#include "task_body.h"

#include <math.h>
#include <string.h>

/* ---- analysis ---------------------------------------------------------------- */

static bool is_segval(const task_program *p, ir_value v)
{
    return ir_value_type(p->m, v).kind == TY_SEGVAL;
}

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* Whether op (or an op nested in it) writes memory, or with `loads` also
 * reads it. */
static bool touches_memory(const ir_op *op, bool loads)
{
    if (op->kind == IR_STORE || op->kind == IR_ATOMIC_RMW || op->kind == IR_ATOMIC_CAS ||
        (loads && op->kind == IR_LOAD))
        return true;
    for (int r = 0; r < op->nregions; r++)
        for (const ir_op *inner = op->regions[r]->first; inner; inner = inner->next)
            if (touches_memory(inner, loads))
                return true;
    return false;
}

static bool has_memory_effect(const ir_op *op) { return touches_memory(op, true); }
static bool has_store(const ir_op *op) { return touches_memory(op, false); }

/* The latest stage any operand of op (or of an op nested in it) follows. */
static int32_t operands_ready(const task_program *p, const ir_op *op)
{
    int32_t r = -1;
    for (int i = 0; i < op->noperands; i++) {
        ir_value v = op->operands[i];
        if (v >= 0 && v < p->nvalues)
            r = max32(r, p->ready[v]);
    }
    for (int k = 0; k < op->nregions; k++)
        for (const ir_op *inner = op->regions[k]->first; inner; inner = inner->next)
            r = max32(r, operands_ready(p, inner));
    return r;
}

static int32_t stage_attr(const ir_op *op)
{
    const ir_attr *a = ir_attr_get(op, "stage");
    return a && a->kind == ATTR_INT && a->i >= 0 && a->i < INT32_MAX ? (int32_t)a->i : 0;
}

/* Positions in the schedule, for ordering memory effects: the prologue is
 * 0, stage k is 2k+1, the ops after stage k are 2k+2. */
static int32_t post_after_floor(int32_t ready, int32_t floor)
{
    while (2 * ready + 2 < floor)
        ready++;
    return ready;
}

static int32_t stage_after_floor(int32_t stage, int32_t floor)
{
    while (2 * stage + 1 < floor)
        stage++;
    return stage;
}

static void set_ready(task_program *p, const ir_op *op, int32_t r)
{
    for (int i = 0; i < op->nresults; i++)
        p->ready[op->results[i]] = r;
}

static void classify(task_program *p)
{
    int32_t floor = 0, last = -1;
    for (int i = 0; i < p->nops; i++) {
        ir_op *op = p->ops[i];
        int32_t r = operands_ready(p, op);
        p->place[i] = -1;
        switch (op->kind) {
        case IR_SEGMENT_ID: p->cls[i] = TASK_ID; set_ready(p, op, -1); continue;
        case IR_SEGMENT: p->cls[i] = TASK_VIEW; continue;
        case IR_SEGMENT_LENGTH: p->cls[i] = TASK_LENGTH; set_ready(p, op, -1); continue;
        case IR_RETURN: p->cls[i] = TASK_RETURN; continue;
        case IR_STORE_SEGMENT: {
            int32_t stage = stage_after_floor(max32(stage_attr(op), r + 1), floor);
            p->cls[i] = TASK_STORE;
            p->place[i] = stage;
            floor = 2 * stage + 1;
            last = max32(last, stage);
            continue;
        }
        case IR_REDUCE:
            if (is_segval(p, op->operands[0])) {
                int32_t stage = max32(stage_attr(op), r + 1);
                p->cls[i] = TASK_REDUCE;
                p->place[i] = stage;
                set_ready(p, op, stage);
                last = max32(last, stage);
                p->reduction_op[p->nreductions++] = i;
                continue;
            }
            break;
        default: break;
        }
        if (op->nresults == 1 && is_segval(p, op->results[0])) {
            p->cls[i] = TASK_SEGVAL;
            set_ready(p, op, r);
            continue;
        }
        if (has_memory_effect(op)) {
            r = post_after_floor(r, floor);
            floor = 2 * r + 2;
        }
        p->cls[i] = r < 0 ? TASK_KEEP : TASK_POST;
        p->place[i] = r;
        set_ready(p, op, r);
        last = max32(last, r);
    }
    p->nstages = last + 1;
}

bool task_program_analyse(ir_module *m, ir_op *func, task_program *p, diag *d)
{
    memset(p, 0, sizeof *p);
    p->m = m, p->d = d, p->func = func;
    if (!segments_params(m, func, &p->params, d))
        return false;
    p->offsets_param = p->params.offsets;
    const ir_block *body = ir_func_body(func);
    for (ir_op *op = body->first; op; op = op->next)
        p->nops++;
    p->nvalues = m->nvalues;
    size_t nv = (size_t)(m->nvalues + 1), no = (size_t)(p->nops + 1);
    p->ops = arena_alloc(m->ar, sizeof(ir_op *) * no);
    p->cls = arena_alloc(m->ar, no);
    p->place = arena_alloc(m->ar, sizeof(int32_t) * no);
    p->reduction_op = arena_alloc(m->ar, sizeof(int32_t) * no);
    p->ready = arena_alloc(m->ar, sizeof(int32_t) * nv);
    int n = 0;
    for (ir_op *op = body->first; op; op = op->next)
        p->ops[n++] = op;
    for (int32_t v = 0; v < p->nvalues; v++)
        p->ready[v] = -1;
    classify(p);
    return true;
}

ir_dtype task_reduction_acc(const task_program *p, int r)
{
    const ir_op *op = p->ops[p->reduction_op[r]];
    return ir_reduce_accumulator((ir_dtype)ir_value_type(p->m, op->results[0]).dtype);
}

bool task_stage_has_reductions(const task_program *p, int32_t k)
{
    for (int r = 0; r < p->nreductions; r++)
        if (p->place[p->reduction_op[r]] == k)
            return true;
    return false;
}

bool task_stage_has_post(const task_program *p, int32_t k)
{
    for (int i = 0; i < p->nops; i++)
        if (p->cls[i] == TASK_POST && p->place[i] == k)
            return true;
    return false;
}

/* ---- emission ----------------------------------------------------------------- */

void task_emitter_init(task_emitter *e, const task_program *p, ir_builder b, ir_value *map)
{
    size_t nv = (size_t)(p->nvalues + 1);
    *e = (task_emitter){.p = p, .b = b, .map = map, .sid = IR_NO_VALUE, .start = IR_NO_VALUE,
                        .end = IR_NO_VALUE, .start32 = IR_NO_VALUE, .end32 = IR_NO_VALUE,
                        .base = IR_NO_VALUE, .rel = IR_NO_VALUE, .mask = IR_NO_VALUE,
                        .lane_rel = IR_NO_VALUE, .store_mask = IR_NO_VALUE};
    e->tile_of = arena_alloc(p->m->ar, sizeof(ir_value) * nv);
    e->needed = arena_alloc(p->m->ar, nv);
}

static ir_value mapped(const task_emitter *e, ir_value v)
{
    return v >= 0 && v < e->p->nvalues && e->map[v] != IR_NO_VALUE ? e->map[v] : v;
}

void task_emit_range(task_emitter *e, ir_value offsets, ir_value sid, const ir_value *numel, int nnumel,
                     ir_value raw[2])
{
    ir_builder *b = &e->b;
    ir_type i64 = ir_type_scalar(DT_I64), i32 = ir_type_scalar(DT_I32);
    ir_value first = irb_load_at(b, offsets, sid);
    ir_value next_index = irb_binary(b, IR_ADD, sid, irb_int(b, (ir_dtype)ir_value_type(b->m, sid).dtype, 1));
    ir_value next = irb_load_at(b, offsets, next_index);
    if (raw)
        raw[0] = irb_cast(b, first, i64), raw[1] = irb_cast(b, next, i64);
    e->sid = sid;
    e->start32 = e->end32 = IR_NO_VALUE;
    if (ir_value_type(b->m, first).dtype == DT_I32) {
        /* i32 offsets: the range is below 2^31, so it is clamped in 32 bits
         * to the buffers' length (itself clamped to 2^31 - 1) */
        ir_value limit = irb_int(b, DT_I64, INT32_MAX);
        for (int h = 0; h < nnumel; h++)
            limit = irb_binary(b, IR_MINIMUM, limit, numel[h]);
        limit = irb_cast(b, limit, i32);
        ir_value zero = irb_int(b, DT_I32, 0);
        ir_value s = irb_binary(b, IR_MINIMUM, first, limit), t = irb_binary(b, IR_MINIMUM, next, limit);
        e->start32 = irb_binary(b, IR_MAXIMUM, s, zero);
        e->end32 = irb_binary(b, IR_MAXIMUM, t, e->start32);
        e->start = irb_cast(b, e->start32, i64);
        e->end = irb_cast(b, e->end32, i64);
        return;
    }
    ir_value start = irb_cast(b, first, i64), end = irb_cast(b, next, i64);
    for (int h = 0; h < nnumel; h++) {
        start = irb_binary(b, IR_MINIMUM, start, numel[h]);
        end = irb_binary(b, IR_MINIMUM, end, numel[h]);
    }
    e->start = irb_binary(b, IR_MAXIMUM, start, irb_int(b, DT_I64, 0));
    e->end = irb_binary(b, IR_MAXIMUM, end, e->start);
}

static void clone_scalar_op(task_emitter *e, const ir_op *op)
{
    irb_clone(&e->b, op, e->map, e->p->nvalues);
}

void task_emit_prologue(task_emitter *e, ir_value once)
{
    const task_program *p = e->p;
    ir_builder *b = &e->b;
    for (int i = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        switch (p->cls[i]) {
        case TASK_ID: e->map[op->results[0]] = e->sid; break;
        case TASK_LENGTH: {
            b->loc = op->loc;
            ir_value length = irb_binary(b, IR_SUB, e->end, e->start);
            e->map[op->results[0]] = irb_cast(b, length, ir_value_type(p->m, op->results[0]));
            break;
        }
        case TASK_KEEP:
            if (once != IR_NO_VALUE && op->nresults == 0 && has_store(op)) {
                ir_op *guard = irb_if(b, once, NULL, 0);
                ir_builder then = irb_at_end(b->m, guard->regions[0], op->loc);
                irb_clone(&then, op, e->map, p->nvalues);
                irb_yield(&then, NULL, 0);
                ir_builder other = irb_at_end(b->m, guard->regions[1], op->loc);
                irb_yield(&other, NULL, 0);
            } else {
                clone_scalar_op(e, op);
            }
            break;
        default: break;
        }
    }
}

void task_emit_post(task_emitter *e, int32_t k, bool pure_only)
{
    const task_program *p = e->p;
    for (int i = 0; i < p->nops; i++)
        if (p->cls[i] == TASK_POST && p->place[i] == k && !(pure_only && has_store(p->ops[i])))
            clone_scalar_op(e, p->ops[i]);
}

/* ---- tiles ---------------------------------------------------------------------- */

static ir_type tile_type(ir_type segval, int32_t block)
{
    return ir_type_like(ir_type_tile(DT_I32, block), ir_type_elem(segval));
}

/* The tile at element `base`: its lanes 0 .. block-1 (i32, relative to
 * base: one i32 add and compare per slot, and addresses the code generator
 * can fold into a base pointer and constant offsets) and the mask start <=
 * base + lane < end, from two uniform bounds. base <= end, and base is
 * start or below it only in the first tile. */
ir_value task_lane_major_index(ir_builder *b, int32_t block)
{
    /* element i = 128 a + 4 t + s at V t + 4 a + s (V = block / 32):
     * i + (V - 4) / 4 (i & 124) - 124 (i >> 7), each lane's slots
     * consecutive, in runs of 4 for 16-byte loads */
    ir_type i32_tile = ir_type_tile(DT_I32, block);
    ir_value i = irb_arange(b, block);
#define K(v) irb_const(b, i32_tile, ir_scalar_from_int(DT_I32, (v)))
    ir_value t4 = irb_binary(b, IR_AND, i, K(124));
    ir_value a = irb_binary(b, IR_SHR, i, K(7));
    ir_value shift = irb_binary(b, IR_SUB, irb_binary(b, IR_MUL, t4, K(block / 128 - 1)), irb_binary(b, IR_MUL, a, K(124)));
#undef K
    return irb_binary(b, IR_ADD, i, shift);
}

static void build_index(task_emitter *e, ir_value base, int32_t block)
{
    ir_builder *b = &e->b;
    ir_type i32 = ir_type_scalar(DT_I32), i32_tile = ir_type_tile(DT_I32, block);
    e->base = base;
    e->rel = irb_arange(b, block);
    if (e->lane_major && block > 128)
        e->rel = e->lane_rel != IR_NO_VALUE ? e->lane_rel : task_lane_major_index(b, block);
    ir_value hi, lo;
    if (e->unmasked) {
        e->mask = IR_NO_VALUE;
        return;
    }
    if (ir_value_type(b->m, base).dtype == DT_I32) {
        /* the single tile of a range in 32 bits: base = start rounded down */
        ir_value width = irb_int(b, DT_I32, block);
        hi = irb_binary(b, IR_MINIMUM, irb_binary(b, IR_SUB, e->end32, base), width);
        lo = irb_binary(b, IR_MINIMUM, irb_binary(b, IR_SUB, e->start32, base), width);
        e->base = irb_cast(b, base, ir_type_scalar(DT_I64));
    } else {
        ir_value width = irb_int(b, DT_I64, block), zero = irb_int(b, DT_I64, 0);
        hi = irb_cast(b, irb_binary(b, IR_MINIMUM, irb_binary(b, IR_SUB, e->end, base), width), i32);
        lo = irb_cast(b, irb_binary(b, IR_MINIMUM, irb_binary(b, IR_MAXIMUM, irb_binary(b, IR_SUB, e->start, base), zero),
                                    width), i32);
    }
    e->mask = irb_binary(b, IR_AND, irb_cmp(b, "ge", e->rel, irb_splat(b, lo, i32_tile)),
                         irb_cmp(b, "lt", e->rel, irb_splat(b, hi, i32_tile)));
}

/* base + lane pointers of a buffer: one scalar pointer to the tile's first
 * element, then i32 lane offsets. */
static ir_value pointer_tile(task_emitter *e, ir_value ptr, int32_t block)
{
    ir_builder *b = &e->b;
    ir_type pt = ir_value_type(b->m, ptr);
    ir_value first = irb_binary(b, IR_ADDPTR, ptr, e->base);
    ir_value ptrs = irb_splat(b, first, ir_type_ptr_tile((ir_dtype)pt.dtype, block));
    return irb_binary(b, IR_ADDPTR, ptrs, e->rel);
}

/* The tile segment value v's op makes here (loads masked, others elementwise). */
static void make_tile(task_emitter *e, const ir_op *op, int32_t block)
{
    const task_program *p = e->p;
    ir_builder *b = &e->b;
    ir_module *m = p->m;
    ir_type t = tile_type(ir_value_type(m, op->results[0]), block);
    b->loc = op->loc;
    ir_value tile;
    if (op->kind == IR_LOAD_SEGMENT) {
        const ir_op *view = m->values[op->operands[0]].def;
        ir_value other = irb_const(b, t, ir_scalar_from_int((ir_dtype)t.dtype, 0));
        ir_value operands[3] = {pointer_tile(e, mapped(e, view->operands[0]), block), e->mask, other};
        tile = irb(b, IR_LOAD, operands, e->mask == IR_NO_VALUE ? 1 : 3, t);
        if (e->lane_major && block > 128 && e->mask == IR_NO_VALUE)
            ir_attr_set_bool(m, m->values[tile].def, "sw.lane_major", true);
    } else if (op->kind == IR_CONSTANT || op->kind == IR_SPLAT || (ir_ops[op->kind].flags & F_ELEM)) {
        ir_value operands[3];
        if (op->noperands > 3) {
            sw_unreachable(p->d, "task body: '%s' has %d operands", ir_ops[op->kind].name, op->noperands);
            return;
        }
        for (int i = 0; i < op->noperands; i++) {
            ir_value x = op->operands[i];
            operands[i] = x < p->nvalues && is_segval(p, x) ? e->tile_of[x] : mapped(e, x);
            if (operands[i] == IR_NO_VALUE)
                sw_unreachable(p->d, "task body: '%s' uses a segment value this stage did not make",
                               ir_ops[op->kind].name);
        }
        ir_op *copy = irb_op(b, op->kind, operands, op->noperands, &t, 1, 0);
        for (int i = 0; i < op->nattrs; i++)
            if (strcmp(op->attrs[i].name, "stage"))
                ir_attr_set(m, copy, &op->attrs[i]);
        tile = copy->results[0];
    } else {
        sw_unreachable(p->d, "task body: no tile form for '%s' on segment values", ir_ops[op->kind].name);
        return;
    }
    e->tile_of[op->results[0]] = tile;
}

/* Marks the segment values stage k's roots need (a backward walk). */
void task_stage_needs(const task_program *p, int32_t k, uint8_t *needed)
{
    memset(needed, 0, (size_t)p->nvalues);
    for (int i = p->nops - 1; i >= 0; i--) {
        const ir_op *op = p->ops[i];
        bool root = (p->cls[i] == TASK_REDUCE || p->cls[i] == TASK_STORE) && p->place[i] == k;
        bool inner = p->cls[i] == TASK_SEGVAL && needed[op->results[0]];
        if (!root && !inner)
            continue;
        for (int j = 0; j < op->noperands; j++)
            if (is_segval(p, op->operands[j]))
                needed[op->operands[j]] = 1;
    }
}

static void mark_needed(task_emitter *e, int32_t k) { task_stage_needs(e->p, k, e->needed); }

static const char *reduce_kind(const ir_op *op) { return ir_attr_get(op, "kind")->s; }

static ir_type acc_tile_type(const task_emitter *e, const ir_op *reduce, int32_t block)
{
    ir_dtype dt = (ir_dtype)ir_value_type(e->p->m, reduce->results[0]).dtype;
    return ir_type_tile(ir_reduce_accumulator(dt), block);
}

static ir_value identity_tile(task_emitter *e, const ir_op *reduce, int32_t block)
{
    ir_type acc = acc_tile_type(e, reduce, block);
    ir_scalar identity;
    if (!ir_eval_reduce_identity(reduce_kind(reduce), (ir_dtype)acc.dtype, &identity))
        sw_unreachable(e->p->d, "task body: no identity for '%s'", reduce_kind(reduce));
    return irb_const(&e->b, acc, identity);
}

static ir_op_kind combine_of(const task_emitter *e, const ir_op *reduce)
{
    ir_op_kind op = ir_reduce_combine_op(reduce_kind(reduce));
    if (op == IR_OP_COUNT)
        sw_unreachable(e->p->d, "task body: unknown reduction kind '%s'", reduce_kind(reduce));
    return op;
}

/* select(mask, x, identity) of the reduction's operand tile, in the
 * accumulator type. */
static ir_value live_tile(task_emitter *e, const ir_op *reduce, int32_t block)
{
    ir_builder *b = &e->b;
    b->loc = reduce->loc;
    ir_type acc = acc_tile_type(e, reduce, block);
    ir_value x = irb_cast(b, e->tile_of[reduce->operands[0]], acc);
    return e->mask == IR_NO_VALUE ? x : irb_select(b, e->mask, x, identity_tile(e, reduce, block));
}

/* sw.reduce of an accumulator tile: the reduction's accumulator scalar. */
static ir_value reduce_tile(task_emitter *e, const ir_op *reduce, ir_value acc)
{
    ir_builder *b = &e->b;
    b->loc = reduce->loc;
    ir_type elem = ir_type_elem(ir_value_type(b->m, acc));
    ir_value r = irb(b, IR_REDUCE, &acc, 1, elem);
    ir_attr_set_str(b->m, b->m->values[r].def, "kind", reduce_kind(reduce));
    return r;
}

void task_finish_reduction(task_emitter *e, int r, ir_value acc)
{
    const task_program *p = e->p;
    const ir_op *reduce = p->ops[p->reduction_op[r]];
    ir_builder *b = &e->b;
    ir_type result = ir_value_type(p->m, reduce->results[0]);
    ir_dtype acc_dt = (ir_dtype)ir_value_type(b->m, acc).dtype;
    if (result.dtype == DT_I1 && !strcmp(reduce_kind(reduce), "sum"))
        acc = irb_binary(b, IR_AND, acc, irb_int(b, acc_dt, 1)); /* i1 sums are xor */
    e->map[reduce->results[0]] = irb_cast(b, acc, result);
}

static int reduction_index(const task_program *p, int op_index)
{
    for (int r = 0; r < p->nreductions; r++)
        if (p->reduction_op[r] == op_index)
            return r;
    return -1;
}

static void store_tile(task_emitter *e, const ir_op *store, int32_t block)
{
    ir_builder *b = &e->b;
    b->loc = store->loc;
    ir_value operands[3] = {pointer_tile(e, mapped(e, store->operands[0]), block),
                            e->tile_of[store->operands[2]], e->mask};
    irb_op(b, IR_STORE, operands, e->mask == IR_NO_VALUE ? 2 : 3, NULL, 0, 0);
}

/* The first tile's base: start rounded down to SEGMENT_ALIGN elements, so
 * the 4-element chunks of the SIMT layout stay aligned (the mask turns off
 * what lies before start). */
static ir_value aligned_start(task_emitter *e)
{
    return irb_binary(&e->b, IR_AND, e->start, irb_int(&e->b, DT_I64, -SEGMENT_ALIGN));
}

/* start rounded down, in 32 bits when the range is (else i64) */
static ir_value aligned_start_narrow(task_emitter *e)
{
    if (e->start32 == IR_NO_VALUE)
        return aligned_start(e);
    return irb_binary(&e->b, IR_AND, e->start32, irb_int(&e->b, DT_I32, -SEGMENT_ALIGN));
}

/* Where a task's first tile of `block` elements starts: start rounded
 * down to SEGMENT_ALIGN for tiles made of such chunks, start itself for a
 * tile shorter than one (it has no vector accesses to keep aligned). */
static bool unaligned_tile(int32_t block) { return block < SEGMENT_ALIGN; }

static ir_value tile_start_narrow(task_emitter *e, int32_t block)
{
    if (!unaligned_tile(block))
        return aligned_start_narrow(e);
    return e->start32 == IR_NO_VALUE ? e->start : e->start32;
}

ir_value task_span(task_emitter *e, int32_t block)
{
    return irb_binary(&e->b, IR_SUB, e->start32 == IR_NO_VALUE ? e->end : e->end32, tile_start_narrow(e, block));
}

static void begin_single(task_emitter *e, int32_t block)
{
    for (int32_t v = 0; v < e->p->nvalues; v++)
        e->tile_of[v] = IR_NO_VALUE;
    build_index(e, tile_start_narrow(e, block), block);
}

void task_emit_single_loads(task_emitter *e, int32_t block, ir_value also)
{
    const task_program *p = e->p;
    begin_single(e, block);
    if (also != IR_NO_VALUE)
        e->mask = irb_binary(&e->b, IR_AND, e->mask, irb_splat(&e->b, also, ir_value_type(p->m, e->mask)));
    uint8_t *wanted = arena_alloc(p->m->ar, (size_t)p->nvalues + 1);
    memset(wanted, 0, (size_t)p->nvalues + 1);
    for (int32_t k = 0; k < p->nstages; k++) {
        mark_needed(e, k);
        for (int32_t v = 0; v < p->nvalues; v++)
            wanted[v] |= e->needed[v];
    }
    for (int i = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        if (p->cls[i] == TASK_SEGVAL && op->kind == IR_LOAD_SEGMENT && wanted[op->results[0]])
            make_tile(e, op, block);
    }
    e->preloaded = true;
}

void task_emit_single(task_emitter *e, int32_t block)
{
    const task_program *p = e->p;
    if (!e->preloaded)
        begin_single(e, block);
    e->preloaded = false;
    for (int32_t k = 0; k < p->nstages; k++) {
        mark_needed(e, k);
        for (int i = 0; i < p->nops; i++) {
            const ir_op *op = p->ops[i];
            if (p->cls[i] == TASK_SEGVAL && e->needed[op->results[0]] &&
                e->tile_of[op->results[0]] == IR_NO_VALUE)
                make_tile(e, op, block);
            else if (p->cls[i] == TASK_REDUCE && p->place[i] == k)
                task_finish_reduction(e, reduction_index(p, i),
                                      reduce_tile(e, op, live_tile(e, op, block)));
            else if (p->cls[i] == TASK_STORE && p->place[i] == k)
                store_tile(e, op, block);
        }
        task_emit_post(e, k, false);
    }
}

/* Stage k's work on `n` tiles (1 or 2) at bases[] in the block under
 * e->b: their segment values, each reduction's accumulator combined into
 * acc[] (in program order, tile by tile, updated in place), their stores.
 * Every tile's loads come first, so they are in flight together (a store
 * between two loads would keep the second waiting: the buffers may alias).
 * Masked: a tile may hold elements outside [start, end); else every
 * element is inside, and the tiles need no mask. */
enum { STAGE_TILES_MAX = 2 };

/* The loads of up to STAGE_TILES_MAX tiles, made before any other work
 * on them, and each tile's index and mask, for use_loaded_tile. */
typedef struct loaded_tiles {
    ir_value *tile_of[STAGE_TILES_MAX];
    ir_value base[STAGE_TILES_MAX], rel[STAGE_TILES_MAX], mask[STAGE_TILES_MAX];
} loaded_tiles;

/* Stage k's segment loads of n tiles at bases[] (masked or not), in order. */
static void load_tiles(task_emitter *e, int32_t k, int32_t block, const ir_value *bases, int n, bool masked,
                       loaded_tiles *t)
{
    const task_program *p = e->p;
    mark_needed(e, k);
    for (int u = 0; u < n; u++) {
        build_index(e, bases[u], block);
        if (!masked)
            e->mask = IR_NO_VALUE;
        for (int32_t v = 0; v < p->nvalues; v++)
            e->tile_of[v] = IR_NO_VALUE;
        for (int i = 0; i < p->nops; i++)
            if (p->cls[i] == TASK_SEGVAL && p->ops[i]->kind == IR_LOAD_SEGMENT && e->needed[p->ops[i]->results[0]])
                make_tile(e, p->ops[i], block);
        t->tile_of[u] = arena_alloc(p->m->ar, sizeof(ir_value) * (size_t)(p->nvalues + 1));
        memcpy(t->tile_of[u], e->tile_of, sizeof(ir_value) * (size_t)p->nvalues);
        t->base[u] = e->base, t->rel[u] = e->rel, t->mask[u] = e->mask;
    }
}

/* Tile u of load_tiles as the emitter's current tile. */
static void use_loaded_tile(task_emitter *e, const loaded_tiles *t, int u)
{
    memcpy(e->tile_of, t->tile_of[u], sizeof(ir_value) * (size_t)e->p->nvalues);
    e->base = t->base[u], e->rel = t->rel[u], e->mask = t->mask[u];
}

static void emit_stage_tiles(task_emitter *e, int32_t k, int32_t block, const ir_value *bases, int n, bool masked,
                             ir_value *acc)
{
    const task_program *p = e->p;
    loaded_tiles t;
    load_tiles(e, k, block, bases, n, masked, &t);
    for (int u = 0; u < n; u++) {
        use_loaded_tile(e, &t, u);
        for (int i = 0, a = 0; i < p->nops; i++) {
            const ir_op *op = p->ops[i];
            if (p->cls[i] == TASK_SEGVAL && op->kind != IR_LOAD_SEGMENT && e->needed[op->results[0]])
                make_tile(e, op, block);
            else if (p->cls[i] == TASK_REDUCE && p->place[i] == k) {
                acc[a] = irb_binary(&e->b, combine_of(e, op), acc[a], live_tile(e, op, block));
                a++;
            } else if (p->cls[i] == TASK_STORE && p->place[i] == k)
                store_tile(e, op, block);
        }
    }
}

void task_emit_row(task_emitter *e, int32_t k, int32_t block, ir_value base, ir_value *vals)
{
    const task_program *p = e->p;
    build_index(e, base, block);
    mark_needed(e, k);
    for (int32_t v = 0; v < p->nvalues; v++)
        e->tile_of[v] = e->preset ? e->preset[v] : IR_NO_VALUE;
    for (int i = 0; i < p->nops; i++)
        if (p->cls[i] == TASK_SEGVAL && p->ops[i]->kind == IR_LOAD_SEGMENT && e->needed[p->ops[i]->results[0]] &&
            e->tile_of[p->ops[i]->results[0]] == IR_NO_VALUE)
            make_tile(e, p->ops[i], block);
    for (int i = 0, a = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        if (p->cls[i] == TASK_SEGVAL && op->kind != IR_LOAD_SEGMENT && e->needed[op->results[0]]) {
            if (e->tile_of[op->results[0]] == IR_NO_VALUE)
                make_tile(e, op, block);
        } else if (p->cls[i] == TASK_REDUCE && p->place[i] == k) {
            vals[a++] = live_tile(e, op, block);
        } else if (p->cls[i] == TASK_STORE && p->place[i] == k) {
            ir_value mask = e->mask;
            if (e->store_mask != IR_NO_VALUE)
                e->mask = mask == IR_NO_VALUE ? e->store_mask : irb_binary(&e->b, IR_AND, mask, e->store_mask);
            store_tile(e, op, block);
            e->mask = mask;
        }
    }
}

static void emit_stage_tile(task_emitter *e, int32_t k, int32_t block, ir_value base, bool masked, ir_value *acc)
{
    emit_stage_tiles(e, k, block, &base, 1, masked, acc);
}

/* A tile at `base` (masked or not) when `cond` holds, as an sw.if carrying
 * the accumulators acc[] (replaced by its results). */
static void emit_stage_tile_if(task_emitter *e, int32_t k, int32_t block, ir_value cond, ir_value base,
                               bool masked, ir_value *acc, int naccs)
{
    ir_module *m = e->p->m;
    ir_type *types = arena_alloc(m->ar, sizeof(ir_type) * (size_t)(naccs + 1));
    for (int a = 0; a < naccs; a++)
        types[a] = ir_value_type(m, acc[a]);
    ir_builder outer = e->b;
    ir_op *branch = irb_if(&outer, cond, types, naccs);
    ir_builder skip = irb_at_end(m, branch->regions[1], outer.loc);
    irb_yield(&skip, acc, naccs);
    e->b = irb_at_end(m, branch->regions[0], outer.loc);
    emit_stage_tile(e, k, block, base, masked, acc);
    irb_yield(&e->b, acc, naccs);
    e->b = outer;
    for (int a = 0; a < naccs; a++)
        acc[a] = branch->results[a];
}

/* A loop over [lo, hi) in steps of `step` (i64) carrying acc[] (replaced by
 * its results), running emit_stage_tiles on `n` unmasked tiles at the
 * loop's element and the `n - 1` after it. */
static void emit_inside_loop(task_emitter *e, int32_t k, int32_t block, ir_value lo, ir_value hi, int n,
                             ir_value *acc, int naccs)
{
    const task_program *p = e->p;
    ir_builder *b = &e->b;
    ir_op *loop = irb_for(b, lo, hi, irb_int(b, DT_I64, (int64_t)block * n), acc, naccs);
    ir_block *body = loop->regions[0];
    ir_builder saved = e->b;
    e->b = irb_at_end(p->m, body, saved.loc);
    for (int a = 0; a < naccs; a++)
        acc[a] = body->args[1 + a];
    ir_value bases[STAGE_TILES_MAX] = {body->args[0]};
    for (int u = 1; u < n; u++)
        bases[u] = irb_binary(&e->b, IR_ADD, body->args[0], irb_int(&e->b, DT_I64, (int64_t)block * u));
    emit_stage_tiles(e, k, block, bases, n, false, acc);
    irb_yield(&e->b, acc, naccs);
    e->b = saved;
    for (int a = 0; a < naccs; a++)
        acc[a] = loop->results[a];
}

/* The tiles of `block` wholly inside [start, end) after a head tile at
 * `first` (masked and taken when `late`): [whole, whole_end), and with
 * `pairs` the end of their pairs, pairs_end (else IR_NO_VALUE). block is
 * a power of two and the room is >= 0, so AND with -block rounds down. */
typedef struct inside_range {
    ir_value whole, whole_end, pairs_end;
} inside_range;

static inside_range tiles_inside(task_emitter *e, int32_t block, ir_value first, ir_value late, ir_value width,
                                 ir_value zero, bool pairs)
{
    ir_builder *b = &e->b;
    inside_range r = {.pairs_end = IR_NO_VALUE};
    r.whole = irb_select(b, late, irb_binary(b, IR_ADD, first, width), first);
    ir_value room = irb_binary(b, IR_MAXIMUM, irb_binary(b, IR_SUB, e->end, r.whole), zero);
    r.whole_end = irb_binary(b, IR_ADD, r.whole, irb_binary(b, IR_AND, room, irb_int(b, DT_I64, -(int64_t)block)));
    if (pairs)
        r.pairs_end = irb_binary(b, IR_ADD, r.whole, irb_binary(b, IR_AND, room, irb_int(b, DT_I64, -2 * (int64_t)block)));
    return r;
}

/* One stage over [start, end) from `first` (start rounded down) in tiles
 * of `block`: its stores, and each reduction's accumulator scalar in
 * acc_out[] (in program order), in the form of task_body.h. */
static void emit_stage_loop(task_emitter *e, int32_t k, int32_t block, ir_value first, task_stream_form form,
                            ir_value *acc_out)
{
    const task_program *p = e->p;
    int naccs = 0, roots = 0;
    for (int i = 0; i < p->nops; i++)
        if ((p->cls[i] == TASK_REDUCE || p->cls[i] == TASK_STORE) && p->place[i] == k) {
            roots++;
            naccs += p->cls[i] == TASK_REDUCE;
        }
    if (!roots)
        return;
    ir_value *acc = arena_alloc(p->m->ar, sizeof(ir_value) * (size_t)(naccs + 1));
    const ir_op **reductions = arena_alloc(p->m->ar, sizeof(ir_op *) * (size_t)(naccs + 1));
    for (int i = 0, a = 0; i < p->nops; i++)
        if (p->cls[i] == TASK_REDUCE && p->place[i] == k) {
            reductions[a] = p->ops[i];
            acc[a++] = identity_tile(e, p->ops[i], block);
        }
    ir_builder *b = &e->b;
    if (form == TASK_STREAM_MASKED) {
        ir_op *loop = irb_for(b, first, e->end, irb_int(b, DT_I64, block), acc, naccs);
        ir_block *body = loop->regions[0];
        ir_builder saved = e->b;
        e->b = irb_at_end(p->m, body, saved.loc);
        for (int a = 0; a < naccs; a++)
            acc[a] = body->args[1 + a];
        emit_stage_tile(e, k, block, body->args[0], true, acc);
        irb_yield(&e->b, acc, naccs);
        e->b = saved;
        for (int a = 0; a < naccs; a++)
            acc_out[a] = reduce_tile(e, reductions[a], loop->results[a]);
        return;
    }
    ir_value width = irb_int(b, DT_I64, block), zero = irb_int(b, DT_I64, 0);
    /* the head: a masked tile when the segment starts past `first` */
    ir_value late = irb_cmp(b, "gt", e->start, first);
    emit_stage_tile_if(e, k, block, late, first, true, acc, naccs);
    /* the tiles wholly inside, in pairs up to pairs_end with PAIRS */
    inside_range in = tiles_inside(e, block, first, late, width, zero, form == TASK_STREAM_PAIRS);
    ir_value whole_end = in.whole_end;
    if (form == TASK_STREAM_INSIDE) {
        emit_inside_loop(e, k, block, in.whole, whole_end, 1, acc, naccs);
    } else {
        emit_inside_loop(e, k, block, in.whole, in.pairs_end, 2, acc, naccs);
        /* one more tile inside when their count is odd */
        b = &e->b;
        emit_stage_tile_if(e, k, block, irb_cmp(b, "lt", in.pairs_end, whole_end), in.pairs_end, false, acc, naccs);
    }
    b = &e->b;
    /* the tail: a masked tile for what is left */
    emit_stage_tile_if(e, k, block, irb_cmp(b, "lt", whole_end, e->end), whole_end, true, acc, naccs);
    for (int a = 0; a < naccs; a++)
        acc_out[a] = reduce_tile(e, reductions[a], acc[a]);
}

void task_emit_stream(task_emitter *e, int32_t block, task_stream_form form)
{
    const task_program *p = e->p;
    ir_value first = unaligned_tile(block) ? e->start : aligned_start(e);
    ir_value *accs = arena_alloc(p->m->ar, sizeof(ir_value) * (size_t)(p->nreductions + 1));
    for (int32_t k = 0; k < p->nstages; k++) {
        emit_stage_loop(e, k, block, first, form, accs);
        for (int i = 0, a = 0; i < p->nops; i++)
            if (p->cls[i] == TASK_REDUCE && p->place[i] == k)
                task_finish_reduction(e, reduction_index(p, i), accs[a++]);
        task_emit_post(e, k, false);
    }
}

void task_emit_stage(task_emitter *e, int32_t k, int32_t block, ir_value *partial)
{
    emit_stage_loop(e, k, block, aligned_start(e), TASK_STREAM_PAIRS, partial);
}

/* ---- one pass for a maximum and a sum of exponentials ---------------------------- */

static const ir_op *def_of(const task_program *p, ir_value v)
{
    return v >= 0 && v < p->nvalues ? p->m->values[v].def : NULL;
}

/* The only root of stage k: its op index, or -1 when there is not exactly
 * one (or it is a store). */
static int only_root(const task_program *p, int32_t k)
{
    int found = -1;
    for (int i = 0; i < p->nops; i++)
        if ((p->cls[i] == TASK_REDUCE || p->cls[i] == TASK_STORE) && p->place[i] == k) {
            if (found >= 0 || p->cls[i] == TASK_STORE)
                return -1;
            found = i;
        }
    return found;
}

bool task_online_pair(const task_program *p, int32_t k, int *rmax, int *rsum)
{
    if (k < 0 || k + 1 >= p->nstages)
        return false;
    int a = only_root(p, k), b = only_root(p, k + 1);
    if (a < 0 || b < 0 || strcmp(reduce_kind(p->ops[a]), "max") || strcmp(reduce_kind(p->ops[b]), "sum"))
        return false;
    const ir_op *mx = p->ops[a], *sum = p->ops[b];
    ir_value x = mx->operands[0];
    ir_dtype acc = (ir_dtype)ir_value_type(p->m, mx->results[0]).dtype;
    if ((acc != DT_F32 && acc != DT_F64) || ir_value_type(p->m, x).dtype != acc ||
        ir_value_type(p->m, sum->results[0]).dtype != acc)
        return false;
    const ir_op *ex = def_of(p, sum->operands[0]);
    const ir_op *sub = ex && ex->kind == IR_EXP ? def_of(p, ex->operands[0]) : NULL;
    const ir_op *top = sub && sub->kind == IR_SUB && sub->operands[0] == x ? def_of(p, sub->operands[1]) : NULL;
    if (!top || top->kind != IR_SPLAT || top->operands[0] != mx->results[0])
        return false;
    *rmax = reduction_index(p, a);
    *rsum = reduction_index(p, b);
    return *rmax >= 0 && *rsum >= 0;
}

ir_value task_online_rescale(ir_builder *b, ir_value m, ir_value d, ir_value top)
{
    ir_type t = ir_value_type(b->m, m);
    ir_value zero = irb_const(b, t, (ir_scalar){.f = 0.0});
    ir_value low = irb_const(b, t, (ir_scalar){.f = -INFINITY});
    ir_value none = irb_cmp(b, "eq", m, low);
    ir_value gap = irb_binary(b, IR_SUB, m, top);
    ir_value scale = irb(b, IR_EXP, &gap, 1, t);
    ir_value scaled = irb_binary(b, IR_MUL, d, scale);
    return irb_select(b, none, zero, scaled);
}

/* The program's exp of the online pair's sum (task_online_pair checked its
 * shape): the step computes its exponentials as that op does (sl.exp's
 * approximation, or the accurate one). */
static const ir_op *exp_of(const task_program *p, const ir_op *sum)
{
    return def_of(p, sum->operands[0]);
}

/* One element x into a lane's running maximum m and sum d of exp(. - m),
 * with one exponential: e = exp(-|x - m|), then d' = d e + 1 when x is
 * the new maximum, else d + e (what d exp(m - m') + exp(x - m') is, with
 * one of the two exponents 0). Where the two-exponential form gives NaN
 * or 0 this does too: a -inf x adds nothing (e forced to 0, also when m
 * is -inf), a +inf x that raises m adds NaN (the "1" is x * 0 + 1, as
 * exp(x - x) is), a NaN anywhere makes e NaN. */
static ir_value online_step(ir_builder *b, ir_value m, ir_value d, ir_value x, const ir_op *ex)
{
    ir_type t = ir_value_type(b->m, m);
    ir_value zero = irb_const(b, t, (ir_scalar){.f = 0.0});
    ir_value one = irb_const(b, t, (ir_scalar){.f = 1.0});
    ir_value low = irb_const(b, t, (ir_scalar){.f = -INFINITY});
    ir_value gap = irb_binary(b, IR_SUB, x, m);
    ir_value below = irb(b, IR_NEG, (ir_value[]){irb(b, IR_ABS, &gap, 1, t)}, 1, t);
    ir_value e = irb(b, IR_EXP, &below, 1, t);
    const ir_attr *approx = ir_attr_get(ex, "approx");
    if (approx && approx->kind == ATTR_BOOL && approx->i)
        ir_attr_set_bool(b->m, b->m->values[e].def, "approx", true);
    e = irb_select(b, irb_cmp(b, "eq", x, low), zero, e);
    ir_value first = irb(b, IR_FMA, (ir_value[]){x, zero, one}, 3, t);
    ir_value raised = irb(b, IR_FMA, (ir_value[]){d, e, first}, 3, t);
    return irb_select(b, irb_cmp(b, "gt", x, m), raised, irb_binary(b, IR_ADD, d, e));
}

/* n tiles (up to STAGE_TILES_MAX) of an online pair at bases[] (masked
 * or not) into the lanes' running maxima and sums md[0], md[1]
 * (replaced): every tile's loads first, so that they are in flight
 * together, then each tile's step in order. */
static void online_tiles(task_emitter *e, int32_t k, const ir_op *mx, const ir_op *ex, int32_t block,
                         const ir_value *bases, int n, bool masked, ir_value *md)
{
    const task_program *p = e->p;
    loaded_tiles t;
    load_tiles(e, k, block, bases, n, masked, &t);
    for (int u = 0; u < n; u++) {
        use_loaded_tile(e, &t, u);
        for (int i = 0; i < p->nops; i++)
            if (p->cls[i] == TASK_SEGVAL && p->ops[i]->kind != IR_LOAD_SEGMENT && e->needed[p->ops[i]->results[0]])
                make_tile(e, p->ops[i], block);
        ir_value x = live_tile(e, mx, block);
        ir_value m = md[0];
        md[0] = irb_binary(&e->b, combine_of(e, mx), m, x);
        md[1] = online_step(&e->b, m, md[1], x, ex);
    }
}

static void online_tile(task_emitter *e, int32_t k, const ir_op *mx, const ir_op *ex, int32_t block, ir_value base,
                        bool masked, ir_value *md)
{
    online_tiles(e, k, mx, ex, block, &base, 1, masked, md);
}

/* online_tile when `cond` holds, as an sw.if carrying md[]. */
static void online_tile_if(task_emitter *e, int32_t k, const ir_op *mx, const ir_op *ex, int32_t block, ir_value cond,
                           ir_value base, bool masked, ir_value *md)
{
    ir_module *m = e->p->m;
    ir_type types[2] = {ir_value_type(m, md[0]), ir_value_type(m, md[1])};
    ir_builder outer = e->b;
    ir_op *branch = irb_if(&outer, cond, types, 2);
    ir_builder skip = irb_at_end(m, branch->regions[1], outer.loc);
    irb_yield(&skip, md, 2);
    e->b = irb_at_end(m, branch->regions[0], outer.loc);
    online_tile(e, k, mx, ex, block, base, masked, md);
    irb_yield(&e->b, md, 2);
    e->b = outer;
    md[0] = branch->results[0], md[1] = branch->results[1];
}

void task_emit_online_stage(task_emitter *e, int32_t k, int32_t block, ir_value *max_out, ir_value *sum_out)
{
    const task_program *p = e->p;
    int rmax, rsum;
    if (!task_online_pair(p, k, &rmax, &rsum)) {
        sw_unreachable(p->d, "task body: stage %d is no online pair", (int)k);
        return;
    }
    const ir_op *mx = p->ops[p->reduction_op[rmax]], *sum = p->ops[p->reduction_op[rsum]], *ex = exp_of(p, sum);
    ir_builder *b = &e->b;
    ir_type acc = acc_tile_type(e, mx, block);
    ir_value md[2] = {identity_tile(e, mx, block), irb_const(b, acc, (ir_scalar){.f = 0.0})};
    /* as a stage's PAIRS form (task_body.h): a masked head tile when the
     * range starts past `first`, the tiles wholly inside unmasked, a masked
     * tail for what is left */
    ir_value first = aligned_start(e), width = irb_int(b, DT_I64, block), zero = irb_int(b, DT_I64, 0);
    ir_value late = irb_cmp(b, "gt", e->start, first);
    online_tile_if(e, k, mx, ex, block, late, first, true, md);
    /* the tiles inside two at a time (both tiles' loads in flight
     * together), then one more when their count is odd */
    inside_range in = tiles_inside(e, block, first, late, width, zero, true);
    ir_value whole_end = in.whole_end, pairs_end = in.pairs_end;
    b = &e->b;
    ir_op *loop = irb_for(b, in.whole, pairs_end, irb_int(b, DT_I64, 2 * (int64_t)block), md, 2);
    ir_block *body = loop->regions[0];
    ir_builder saved = e->b;
    e->b = irb_at_end(p->m, body, saved.loc);
    ir_value carried[2] = {body->args[1], body->args[2]};
    ir_value bases[2] = {body->args[0], irb_binary(&e->b, IR_ADD, body->args[0], width)};
    online_tiles(e, k, mx, ex, block, bases, 2, false, carried);
    irb_yield(&e->b, carried, 2);
    e->b = saved;
    md[0] = loop->results[0], md[1] = loop->results[1];
    b = &e->b;
    online_tile_if(e, k, mx, ex, block, irb_cmp(b, "lt", pairs_end, whole_end), pairs_end, false, md);
    b = &e->b;
    online_tile_if(e, k, mx, ex, block, irb_cmp(b, "lt", whole_end, e->end), whole_end, true, md);
    b = &e->b;
    /* across lanes: the largest maximum, and every lane's sum rescaled to it */
    ir_value top = reduce_tile(e, mx, md[0]);
    ir_value lanes = task_online_rescale(b, md[0], md[1], irb_splat(b, top, acc));
    *max_out = top;
    *sum_out = reduce_tile(e, sum, lanes);
}

