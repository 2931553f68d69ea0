/* cpu_scan.c - the semantic executor's sw.scan, sw.reduce_fn, sw.histogram
 * and sw.gather (docs/ir-format.md). Requires slots set up by cpu_setup.c
 * (which calls cpu_scan_check_op); guarantees the sequential order the IR
 * defines: a scan or reduction runs its combine function once per element
 * after the first, in element order (reverse scans from the last
 * element), so results are deterministic bit for bit. */
#include "cpu_internal.h"

#include <stdio.h>

enum { MAX_COMBINED = 16 }; /* operands of one scan or reduction */

bool cpu_is_scan_op(ir_op_kind kind)
{
    return kind == IR_SCAN || kind == IR_REDUCE_FN || kind == IR_HISTOGRAM || kind == IR_GATHER ||
           kind == IR_SEGMENTED_REDUCE || kind == IR_SEGMENT_INDEX;
}

bool cpu_scan_check_op(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    int no = op->noperands;
    for (int i = 0; i < no; i++)
        if (cpu_is_ptr(c, o[i]) || cpu_is_segval(c, o[i]) || cpu_slots(c, o[i]) < 1)
            return cpu_internal(c, op, "operands must be tiles of numbers");
    for (int i = 0; i < op->nresults; i++)
        if (cpu_is_ptr(c, op->results[i]))
            return cpu_internal(c, op, "unexpected pointer result");
    switch (op->kind) {
    case IR_SCAN:
    case IR_REDUCE_FN: {
        bool scan = op->kind == IR_SCAN;
        const ir_block *b = op->regions[0];
        if (no < 1 || no > MAX_COMBINED || op->nresults != no || b->nargs != 2 * no || !b->last ||
            b->last->kind != IR_YIELD || b->last->noperands != no)
            return cpu_internal(c, op, "bad arity of a scan or its combine region");
        int32_t n = cpu_slots(c, o[0]), nr = scan ? n : 1;
        const ir_attr *axis = ir_attr_get(op, "axis");
        if (axis) {
            ir_type t = c->m->values[o[0]].type;
            int rank = ir_tile_dims(t, NULL);
            if (axis->kind != ATTR_INT || rank < 2 || axis->i < 0 || axis->i >= rank)
                return cpu_internal(c, op, "a scan or reduction along an axis of a tile of rank >= 2");
            nr = scan ? n : ir_reduce_axis_type(t, (int)axis->i).len;
            for (int i = 0; i < no; i++)
                if (!ir_type_eq(ir_type_like(c->m->values[o[i]].type, ir_type_scalar(DT_I32)),
                                ir_type_like(t, ir_type_scalar(DT_I32))))
                    return cpu_internal(c, op, "the operands of a reduction along an axis differ in shape");
        }
        for (int i = 0; i < no; i++) {
            ir_dtype dt = cpu_dtype(c, o[i]);
            if (cpu_slots(c, o[i]) != n || cpu_slots(c, op->results[i]) != nr ||
                cpu_dtype(c, op->results[i]) != dt || cpu_slots(c, b->args[i]) != 1 ||
                cpu_slots(c, b->args[no + i]) != 1 || cpu_dtype(c, b->args[i]) != dt ||
                cpu_dtype(c, b->args[no + i]) != dt || cpu_slots(c, b->last->operands[i]) != 1 ||
                cpu_dtype(c, b->last->operands[i]) != dt)
                return cpu_internal(c, op, "scan operands, results and combine values disagree");
        }
        return true;
    }
    case IR_HISTOGRAM:
        if ((no != 1 && no != 2) || ir_dtype_is_float(cpu_dtype(c, o[0])) ||
            (no == 2 && (cpu_slots(c, o[1]) != cpu_slots(c, o[0]) || cpu_dtype(c, o[1]) != DT_I1)) ||
            cpu_dtype(c, op->results[0]) != DT_I32)
            return cpu_internal(c, op, "expects (integers[, mask]) -> i32 counts");
        return true;
    case IR_GATHER: {
        const ir_attr *axis = ir_attr_get(op, "axis");
        if (axis) {
            int32_t sd[IR_MAX_RANK], id[IR_MAX_RANK];
            int rank = ir_tile_dims(c->m->values[o[0]].type, sd);
            bool ok = axis->kind == ATTR_INT && rank >= 2 && axis->i >= 0 && axis->i < rank &&
                      no == 2 && ir_tile_dims(c->m->values[o[1]].type, id) == rank;
            for (int d = 0; d < rank && ok; d++)
                ok = d == axis->i || sd[d] == id[d];
            if (!ok)
                return cpu_internal(c, op, "a gather along an axis of tiles of one rank >= 2");
        }
        if (no != 2 || ir_dtype_is_float(cpu_dtype(c, o[1])) ||
            cpu_slots(c, o[1]) != cpu_slots(c, op->results[0]) ||
            cpu_dtype(c, o[0]) != cpu_dtype(c, op->results[0]))
            return cpu_internal(c, op, "expects (source, integer index) -> the source's dtype");
        return true;
    }
    case IR_SEGMENTED_REDUCE:
        if (no != 4 || (cpu_dtype(c, o[1]) != DT_I64 && cpu_dtype(c, o[1]) != DT_I32) ||
            cpu_dtype(c, o[2]) != cpu_dtype(c, o[1]) || cpu_dtype(c, o[3]) != cpu_dtype(c, o[1]) ||
            cpu_slots(c, o[2]) != cpu_slots(c, op->results[0]) || cpu_dtype(c, o[0]) != cpu_dtype(c, op->results[0]))
            return cpu_internal(c, op, "expects (x, base, ends, start: i64 or i32) -> x's dtype in the ends' shape");
        return true;
    case IR_SEGMENT_INDEX:
        if (no != 4 || (cpu_dtype(c, o[0]) != DT_I64 && cpu_dtype(c, o[0]) != DT_I32) ||
            cpu_dtype(c, o[1]) != cpu_dtype(c, o[0]) || cpu_dtype(c, o[2]) != cpu_dtype(c, o[0]) ||
            cpu_dtype(c, o[3]) != DT_I1 || cpu_slots(c, o[3]) != cpu_slots(c, o[1]) ||
            cpu_dtype(c, op->results[0]) != DT_I32)
            return cpu_internal(c, op, "expects (base, ends, start: i64 or i32, skip: i1 in the ends' shape) -> i32");
        return true;
    default: return cpu_internal(c, op, "not a scan op");
    }
}

/* out = combine(acc, x), k values each (out may alias acc or x). */
static bool combine(cpu_ctx *c, const ir_op *op, const ir_scalar *acc, const ir_scalar *x,
                    ir_scalar *out)
{
    const ir_block *b = op->regions[0];
    int k = op->noperands;
    for (int i = 0; i < k; i++) {
        cpu_vals(c, b->args[i])[0] = acc[i];
        cpu_vals(c, b->args[k + i])[0] = x[i];
    }
    const ir_op *y;
    if (!cpu_exec_block(c, b, &y))
        return false;
    if (!y || y->kind != IR_YIELD)
        return cpu_internal(c, op, "the combine region did not end in sw.yield");
    for (int i = 0; i < k; i++)
        out[i] = cpu_vals(c, y->operands[i])[0];
    return true;
}

/* sw.reduce_fn {axis}: result element (outer, inner) folds the elements
 * (outer, 0 .. K-1, inner) in order. sw.scan {axis}: element (outer, s,
 * inner) of each result is the fold of (outer, 0 .. s, inner) (reverse:
 * of (outer, s .. K-1, inner), from the end). */
static bool exec_combine_axis(cpu_ctx *c, const ir_op *op, int axis)
{
    int k = op->noperands;
    int32_t d[IR_MAX_RANK];
    int rank = ir_tile_dims(c->m->values[op->operands[0]].type, d);
    int64_t outer = 1, inner = 1, n = d[axis];
    for (int i = 0; i < axis; i++)
        outer *= d[i];
    for (int i = axis + 1; i < rank; i++)
        inner *= d[i];
    bool scan = op->kind == IR_SCAN;
    const ir_attr *rev = ir_attr_get(op, "reverse");
    bool reverse = scan && rev && rev->kind == ATTR_BOOL && rev->i;
    ir_scalar acc[MAX_COMBINED], x[MAX_COMBINED];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            for (int64_t step = 0; step < n; step++) {
                int64_t s = reverse ? n - 1 - step : step;
                int64_t e = (o * n + s) * inner + in;
                for (int j = 0; j < k; j++)
                    x[j] = cpu_vals(c, op->operands[j])[e];
                if (step == 0) {
                    for (int j = 0; j < k; j++)
                        acc[j] = x[j];
                } else if (!combine(c, op, acc, x, acc)) {
                    return false;
                }
                for (int j = 0; j < k && scan; j++)
                    cpu_vals(c, op->results[j])[e] = acc[j];
            }
            for (int j = 0; j < k && !scan; j++)
                cpu_vals(c, op->results[j])[o * inner + in] = acc[j];
        }
    return true;
}

static bool exec_combine(cpu_ctx *c, const ir_op *op)
{
    const ir_attr *axis = ir_attr_get(op, "axis");
    if (axis)
        return exec_combine_axis(c, op, (int)axis->i);
    int k = op->noperands;
    int32_t n = cpu_slots(c, op->operands[0]);
    bool scan = op->kind == IR_SCAN;
    const ir_attr *rev = ir_attr_get(op, "reverse");
    bool reverse = scan && rev && rev->kind == ATTR_BOOL && rev->i;
    ir_scalar acc[MAX_COMBINED], x[MAX_COMBINED];
    for (int32_t step = 0; step < n; step++) {
        int32_t i = reverse ? n - 1 - step : step;
        for (int j = 0; j < k; j++)
            x[j] = cpu_vals(c, op->operands[j])[i];
        if (step == 0) {
            for (int j = 0; j < k; j++)
                acc[j] = x[j];
        } else if (!combine(c, op, acc, x, acc)) {
            return false;
        }
        if (scan)
            for (int j = 0; j < k; j++)
                cpu_vals(c, op->results[j])[i] = acc[j];
    }
    if (!scan)
        for (int j = 0; j < k; j++)
            cpu_vals(c, op->results[j])[0] = acc[j];
    return true;
}

static bool exec_histogram(cpu_ctx *c, const ir_op *op)
{
    int32_t n = cpu_slots(c, op->operands[0]), bins = cpu_slots(c, op->results[0]);
    const ir_scalar *x = cpu_vals(c, op->operands[0]);
    const ir_scalar *mask = op->noperands == 2 ? cpu_vals(c, op->operands[1]) : NULL;
    ir_scalar *o = cpu_vals(c, op->results[0]);
    for (int32_t b = 0; b < bins; b++)
        o[b].i = 0;
    for (int32_t i = 0; i < n; i++)
        if ((!mask || mask[i].i) && x[i].i >= 0 && x[i].i < bins)
            o[x[i].i].i++;
    for (int32_t b = 0; b < bins; b++)
        o[b] = ir_scalar_from_int(DT_I32, o[b].i);
    return true;
}

/* sw.gather: result element i takes src's element at index[i]; with attr
 * axis, src's element whose index along the axis is index[i] and whose
 * others are i's. */
static bool exec_gather(cpu_ctx *c, const ir_op *op)
{
    int32_t n = cpu_slots(c, op->operands[0]), m = cpu_slots(c, op->results[0]);
    const ir_scalar *src = cpu_vals(c, op->operands[0]), *index = cpu_vals(c, op->operands[1]);
    ir_scalar *o = cpu_vals(c, op->results[0]);
    const ir_attr *axis = ir_attr_get(op, "axis");
    int64_t inner = 1, len_i = m, len_s = n;
    if (axis) {
        int32_t sd[IR_MAX_RANK], id[IR_MAX_RANK];
        int rank = ir_tile_dims(c->m->values[op->operands[0]].type, sd);
        ir_tile_dims(c->m->values[op->operands[1]].type, id);
        for (int d = (int)axis->i + 1; d < rank; d++)
            inner *= sd[d];
        len_i = id[axis->i];
        len_s = sd[axis->i];
    }
    for (int32_t i = 0; i < m; i++) {
        if (index[i].i < 0 || index[i].i >= len_s) {
            diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc,
                          "sl.gather index out of range: element %d of the index is %lld, outside "
                          "[0, %d) (the source's length%s) in program (%lld, %lld, %lld)",
                          (int)i, (long long)index[i].i, (int)len_s, axis ? " along the axis" : "",
                          (long long)c->pid[0], (long long)c->pid[1], (long long)c->pid[2]);
            return false;
        }
        /* i = (outer * len_i + along) * inner + in */
        int64_t in = i % inner, outer = i / inner / len_i;
        o[i] = src[(outer * len_s + index[i].i) * inner + in];
    }
    return true;
}

/* sw.segmented_reduce: result[k] folds, in element order, the elements at
 * positions [ends[k-1], ends[k]) (ends[-1] = base; element i at base + i). */
/* The element of x at position p of a row of n (ops.def): the same for
 * n <= 128; else lane-major, position V t + 4 a + s holding element
 * 128 a + 4 t + s (V = n / 32: the layout of a one-warp program). */
static int64_t segmented_element(int64_t p, int32_t n)
{
    if (n <= 128)
        return p;
    int64_t v = n / 32, t = p / v, rem = p % v;
    return 128 * (rem / 4) + 4 * t + rem % 4;
}

static bool exec_segmented_reduce(cpu_ctx *c, const ir_op *op)
{
    int32_t n = cpu_slots(c, op->operands[0]), s = cpu_slots(c, op->results[0]);
    const ir_scalar *x = cpu_vals(c, op->operands[0]), *ends = cpu_vals(c, op->operands[2]);
    int64_t base = cpu_vals(c, op->operands[1])[0].i;
    ir_scalar *o = cpu_vals(c, op->results[0]);
    ir_dtype dt = cpu_dtype(c, op->results[0]);
    const char *kind = ir_attr_get(op, "kind")->s;
    int64_t lo = cpu_vals(c, op->operands[3])[0].i;
    for (int32_t k = 0; k < s; k++) {
        ir_scalar acc;
        ir_eval_reduce_identity(kind, dt, &acc);
        int64_t hi = ends[k].i;
        for (int64_t p = lo > base ? lo : base; p < hi && p - base < n; p++)
            ir_eval_reduce_combine(kind, dt, acc, x[segmented_element(p - base, n)], &acc);
        o[k] = acc;
        lo = hi;
    }
    return true;
}

/* sw.segment_index: for each position of the row, the segment k whose
 * [ends[k-1], ends[k]) (ends[-1] = start) holds it, -1 when skip[k] or
 * none does. */
static bool exec_segment_index(cpu_ctx *c, const ir_op *op)
{
    int32_t n = cpu_slots(c, op->results[0]), s = cpu_slots(c, op->operands[1]);
    const ir_scalar *ends = cpu_vals(c, op->operands[1]), *skip = cpu_vals(c, op->operands[3]);
    int64_t base = cpu_vals(c, op->operands[0])[0].i, lo = cpu_vals(c, op->operands[2])[0].i;
    ir_scalar *o = cpu_vals(c, op->results[0]);
    for (int32_t i = 0; i < n; i++)
        o[i].i = -1;
    for (int32_t k = 0; k < s; k++) {
        int64_t hi = ends[k].i;
        for (int64_t p = lo > base ? lo : base; p < hi && p - base < n; p++)
            o[segmented_element(p - base, n)].i = skip[k].i ? -1 : k;
        lo = hi > lo ? hi : lo;
    }
    return true;
}

bool cpu_scan_exec_op(cpu_ctx *c, const ir_op *op)
{
    switch (op->kind) {
    case IR_SCAN:
    case IR_REDUCE_FN: return exec_combine(c, op);
    case IR_HISTOGRAM: return exec_histogram(c, op);
    case IR_GATHER: return exec_gather(c, op);
    case IR_SEGMENTED_REDUCE: return exec_segmented_reduce(c, op);
    case IR_SEGMENT_INDEX: return exec_segment_index(c, op);
    default: return cpu_internal(c, op, "not a scan op");
    }
}
