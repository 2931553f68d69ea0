/* cpu_segment.c - segment programs on the semantic CPU executor
 * (docs/segments.md): one program per segment, views checked against the
 * offsets and values buffers (this is the CPU's offsets check), segment
 * values in a scratch that grows to the longest segment seen, and
 * bounds-checked sw.store_segment. Requires slots set up by cpu_setup.c;
 * guarantees no access outside the argument buffers and no allocation per
 * program except when a segment is longer than every earlier one. */
#include "cpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Segment values live here, not in the launch's slab: their length is the
 * running program's. Each scratch slot holds `cap` lanes; values whose
 * lifetimes overlap get different slots, the others share (softmax needs
 * three slots for its nine segment values). */
struct cpu_seg_scratch {
    ir_value *values;  /* every segment value of the func */
    int32_t *slot_of;  /* per entry of values: its scratch slot */
    int32_t nvalues, nslots;
    int32_t cap;       /* lanes per slot */
    ir_scalar *data;   /* nslots * cap lanes */
};

enum { INITIAL_CAP = 16 };

bool cpu_is_segment_op(ir_op_kind kind)
{
    return kind == IR_SEGMENT_ID || kind == IR_SEGMENT || kind == IR_SEGMENT_LENGTH ||
           kind == IR_LOAD_SEGMENT || kind == IR_STORE_SEGMENT;
}

static inline int64_t wrap_add(int64_t a, int64_t b)
{
    uint64_t u = (uint64_t)a + (uint64_t)b;
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

static ir_type type_of(const cpu_ctx *c, ir_value v) { return c->m->values[v].type; }

static bool is_int_scalar(ir_type t)
{
    return t.kind == TY_SCALAR && ir_dtype_is_int((ir_dtype)t.dtype) && t.dtype != DT_I1;
}

/* ---- setup ------------------------------------------------------------------ */

bool cpu_segment_check_op(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    switch (op->kind) {
    case IR_SEGMENT_ID: {
        const ir_attr *axis = ir_attr_get(op, "axis");
        if (axis && (axis->kind != ATTR_INT || axis->i != 0))
            return cpu_internal(c, op, "sw.segment_id has axis 0 only");
        if (!is_int_scalar(type_of(c, op->results[0])))
            return cpu_internal(c, op, "a segment id is an integer scalar");
        c->segment_program = true;
        return true;
    }
    case IR_SEGMENT: {
        ir_type values = type_of(c, o[0]), offsets = type_of(c, o[1]), r = type_of(c, op->results[0]);
        if (values.kind != TY_PTR || offsets.kind != TY_PTR ||
            (offsets.dtype != DT_I32 && offsets.dtype != DT_I64) || !is_int_scalar(type_of(c, o[2])))
            return cpu_internal(c, op, "sw.segment takes (values pointer, i32/i64 offsets pointer, integer id)");
        if (r.kind != TY_SEGMENT || r.dtype != values.dtype)
            return cpu_internal(c, op, "sw.segment gives a view of the values' dtype");
        return true;
    }
    case IR_SEGMENT_LENGTH:
        if (type_of(c, o[0]).kind != TY_SEGMENT || !is_int_scalar(type_of(c, op->results[0])))
            return cpu_internal(c, op, "sw.segment_length takes a view and gives an integer");
        return true;
    case IR_LOAD_SEGMENT: {
        ir_type view = type_of(c, o[0]), r = type_of(c, op->results[0]);
        if (view.kind != TY_SEGMENT || r.kind != TY_SEGVAL || r.dtype != view.dtype)
            return cpu_internal(c, op, "sw.load_segment gives a segment value of the view's dtype");
        return true;
    }
    case IR_STORE_SEGMENT: {
        ir_type p = type_of(c, o[0]), view = type_of(c, o[1]), val = type_of(c, o[2]);
        if (p.kind != TY_PTR || view.kind != TY_SEGMENT || val.kind != TY_SEGVAL || val.dtype != p.dtype)
            return cpu_internal(c, op, "sw.store_segment takes (pointer, view, segment value of the pointee type)");
        return true;
    }
    default:
        return cpu_internal(c, op, "not a segment op");
    }
}

/* Lifetimes are positions in the func body: a value defined or used
 * anywhere inside the body's op number i is defined / used at i, so a
 * value used in a loop lives through the whole loop. Intervals are closed:
 * an op's result never shares a slot with its operands. */
typedef struct lifetimes {
    int32_t *def, *last; /* per value id */
    ir_value *order;     /* segment values by definition */
    int32_t n, cap;      /* more definitions than cap: a malformed module */
} lifetimes;

static void add_def(cpu_ctx *c, lifetimes *l, ir_value v, int32_t pos)
{
    if (!cpu_is_segval(c, v))
        return;
    l->def[v] = l->last[v] = pos;
    if (l->n < l->cap)
        l->order[l->n] = v;
    l->n++;
}

static void scan_op(cpu_ctx *c, lifetimes *l, const ir_op *op, int32_t pos)
{
    for (int i = 0; i < op->noperands; i++)
        if (cpu_is_segval(c, op->operands[i]) && l->last[op->operands[i]] < pos)
            l->last[op->operands[i]] = pos;
    for (int r = 0; r < op->nregions; r++) {
        const ir_block *b = op->regions[r];
        for (int i = 0; i < b->nargs; i++)
            add_def(c, l, b->args[i], pos);
        for (const ir_op *inner = b->first; inner; inner = inner->next)
            scan_op(c, l, inner, pos);
    }
    for (int i = 0; i < op->nresults; i++)
        add_def(c, l, op->results[i], pos);
}

/* Points every segment value's slot into the scratch. */
static void point_slots(cpu_ctx *c)
{
    cpu_seg_scratch *s = c->seg;
    for (int32_t i = 0; i < s->nvalues; i++)
        c->slot[s->values[i]] = s->data + (size_t)s->slot_of[i] * (size_t)s->cap;
}

/* Makes room for segments of len lanes. Called only where no segment value
 * of the program exists yet, so the scratch's contents need not move. */
static bool ensure_capacity(cpu_ctx *c, const ir_op *op, int64_t len)
{
    cpu_seg_scratch *s = c->seg;
    if (!s || len <= s->cap)
        return true;
    int64_t cap = s->cap + s->cap / 2;
    if (cap < len)
        cap = len;
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    size_t lanes = (size_t)cap * (size_t)s->nslots;
    ir_scalar *data = NULL;
    if (lanes <= SIZE_MAX / sizeof(ir_scalar)) {
        free(s->data);
        s->data = NULL;
        data = malloc(lanes * sizeof(ir_scalar));
    }
    if (!data) {
        diag_error_at(c->d, DIAG_NOMEM, &c->m->src, op->loc,
                      "out of memory: segment %lld has %lld elements, and the CPU executor holds %d "
                      "segment value%s of that length at once",
                      (long long)c->pid[0], (long long)len, (int)s->nslots, s->nslots == 1 ? "" : "s");
        return false;
    }
    s->data = data;
    s->cap = (int32_t)cap;
    point_slots(c);
    return true;
}

bool cpu_segment_prepare(cpu_ctx *c)
{
    const ir_block *body = ir_func_body(c->func);
    int32_t nv = c->m->nvalues;
    int32_t count = 0;
    for (int32_t v = 0; v < nv; v++)
        count += c->offset[v] == CPU_SEGVAL_SLOT;
    if (count == 0)
        return true;
    lifetimes l = {malloc(sizeof(int32_t) * (size_t)nv), malloc(sizeof(int32_t) * (size_t)nv),
                   malloc(sizeof(ir_value) * (size_t)count), 0, count};
    c->seg = calloc(1, sizeof *c->seg);
    int32_t *slot_end = malloc(sizeof(int32_t) * (size_t)count);
    bool ok = l.def && l.last && l.order && c->seg && slot_end;
    if (ok) {
        for (int32_t v = 0; v < nv; v++)
            l.def[v] = l.last[v] = -1;
        int32_t pos = 0;
        for (int i = 0; i < body->nargs; i++)
            add_def(c, &l, body->args[i], -1);
        for (const ir_op *op = body->first; op; op = op->next, pos++)
            scan_op(c, &l, op, pos);
        if (l.n != count)
            ok = cpu_internal(c, NULL, "segment values defined other than once each in the func body");
    }
    cpu_seg_scratch *s = c->seg;
    if (ok) {
        s->values = l.order;
        l.order = NULL;
        s->nvalues = count;
        s->slot_of = malloc(sizeof(int32_t) * (size_t)count);
        ok = s->slot_of != NULL;
    }
    if (ok) {
        /* Linear scan in definition order: a slot whose value was last used
         * before this definition is free for good. */
        for (int32_t i = 0; i < count; i++) {
            ir_value v = s->values[i];
            int32_t k = 0;
            while (k < s->nslots && slot_end[k] >= l.def[v])
                k++;
            if (k == s->nslots)
                s->nslots++;
            s->slot_of[i] = k;
            slot_end[k] = l.last[v];
        }
        s->data = malloc(sizeof(ir_scalar) * (size_t)s->nslots * INITIAL_CAP);
        ok = s->data != NULL;
        s->cap = INITIAL_CAP;
    }
    free(l.def), free(l.last), free(l.order), free(slot_end);
    if (!ok) {
        if (!diag_failed(c->d))
            diag_error(c->d, DIAG_NOMEM, "out of memory preparing the segment values");
        return false;
    }
    point_slots(c);
    return true;
}

void cpu_segment_release(cpu_ctx *c)
{
    if (!c->seg)
        return;
    free(c->seg->values);
    free(c->seg->slot_of);
    free(c->seg->data);
    free(c->seg);
    c->seg = NULL;
}

bool cpu_segment_check_grid(cpu_ctx *c)
{
    if (!c->segment_program || (c->grid[1] == 1 && c->grid[2] == 1))
        return true;
    diag_error(c->d, DIAG_ARGUMENT,
               "kernel '%s' is a segment program: it runs on a grid of (segments, 1, 1), got "
               "(%lld, %lld, %lld)",
               ir_func_name(c->func), (long long)c->grid[0], (long long)c->grid[1],
               (long long)c->grid[2]);
    return false;
}

bool cpu_segment_unknown_length(cpu_ctx *c, const ir_op *op)
{
    return cpu_internal(c, op, "a segment value made before the program's first sw.segment");
}

/* ---- sw.segment ------------------------------------------------------------- */

static bool buffer_of(cpu_ctx *c, const ir_op *op, cpu_ptr p, ir_dtype dt)
{
    if (p.arg < 0 || p.arg >= c->nargs || c->bufs[p.arg].dt != dt)
        return cpu_internal(c, op, "pointer does not point into a buffer of its type");
    return true;
}

/* offsets[index], bounds-checked like any load. */
static bool read_offset(cpu_ctx *c, const ir_op *op, cpu_ptr p, int64_t *out)
{
    const cpu_buffer *b = &c->bufs[p.arg];
    if (p.off < 0 || p.off >= b->nelems)
        return cpu_out_of_bounds(c, op, p, 0, 1);
    const unsigned char *at = b->data + (size_t)p.off * (size_t)b->elsize;
    if (b->dt == DT_I32) {
        int32_t v;
        memcpy(&v, at, sizeof v);
        *out = v;
    } else {
        memcpy(out, at, sizeof *out);
    }
    return true;
}

/* The view must lie inside the values buffer (from the pointer on):
 * 0 <= start <= end <= its length. */
static bool validate_view(cpu_ctx *c, const ir_op *op, cpu_ptr values, cpu_ptr offsets, int64_t sid,
                          int64_t start, int64_t end)
{
    const char *oname = cpu_param_name(c, offsets.arg);
    int64_t nelems = c->bufs[values.arg].nelems;
    char vname[96];
    if (values.off == 0)
        snprintf(vname, sizeof vname, "'%s'", cpu_param_name(c, values.arg));
    else
        snprintf(vname, sizeof vname, "'%s' + %lld", cpu_param_name(c, values.arg), (long long)values.off);
    const char *why = NULL;
    char text[160];
    if (start < 0) {
        snprintf(text, sizeof text, "starts at %lld", (long long)start);
        why = text;
    } else if (end < start) {
        snprintf(text, sizeof text, "is [%lld, %lld): offsets must not decrease", (long long)start,
                 (long long)end);
        why = text;
    } else if (values.off < 0 || values.off > nelems || end > nelems - values.off) {
        snprintf(text, sizeof text, "ends at %lld but %s has %lld elements", (long long)end, vname,
                 (long long)(values.off < 0 || values.off > nelems ? 0 : nelems - values.off));
        why = text;
    }
    if (!why)
        return true;
    diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc, "segment %lld of '%s' %s", (long long)sid,
                  oname, why);
    return false;
}

static bool exec_segment(cpu_ctx *c, const ir_op *op)
{
    cpu_ptr values = cpu_ptrs(c, op->operands[0])[0];
    cpu_ptr offsets = cpu_ptrs(c, op->operands[1])[0];
    int64_t sid = cpu_vals(c, op->operands[2])[0].i;
    if (!buffer_of(c, op, values, cpu_dtype(c, op->operands[0])) ||
        !buffer_of(c, op, offsets, cpu_dtype(c, op->operands[1])))
        return false;
    cpu_ptr first = {.off = wrap_add(offsets.off, sid), .arg = offsets.arg};
    cpu_ptr next = {.off = wrap_add(first.off, 1), .arg = offsets.arg};
    int64_t start, end;
    if (!read_offset(c, op, first, &start) || !read_offset(c, op, next, &end) ||
        !validate_view(c, op, values, offsets, sid, start, end))
        return false;
    int64_t len = end - start; /* 0 <= start <= end: no overflow */
    if (len > INT32_MAX) {
        diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc,
                      "segment %lld of '%s' has %lld elements; the CPU executor runs segments of at "
                      "most %d elements",
                      (long long)sid, cpu_param_name(c, offsets.arg), (long long)len, INT32_MAX);
        return false;
    }
    if (c->seg_len >= 0 && len != c->seg_len) {
        diag_error_at(c->d, DIAG_RUNTIME, &c->m->src, op->loc,
                      "segment %lld of '%s' has %lld elements, but this program's segment has %d: "
                      "every view of a program has one length",
                      (long long)sid, cpu_param_name(c, offsets.arg), (long long)len, (int)c->seg_len);
        return false;
    }
    if (c->seg_len < 0) {
        if (!ensure_capacity(c, op, len))
            return false;
        c->seg_len = (int32_t)len;
    }
    cpu_segment *view = (cpu_segment *)c->slot[op->results[0]];
    *view = (cpu_segment){.start = start, .end = end, .base = values.off + start, .sid = sid,
                          .values_arg = values.arg, .offsets_arg = offsets.arg};
    return true;
}

/* ---- loads and stores of segment values --------------------------------------- */

static const cpu_segment *view_of(const cpu_ctx *c, ir_value v) { return (const cpu_segment *)c->slot[v]; }

/* The view was checked against the values buffer when it was made. */
static bool exec_load_segment(cpu_ctx *c, const ir_op *op)
{
    const cpu_segment *view = view_of(c, op->operands[0]);
    ir_dtype dt = cpu_dtype(c, op->results[0]);
    int32_t n = c->seg_len;
    if (view->end - view->start != n || view->values_arg < 0 || view->values_arg >= c->nargs ||
        c->bufs[view->values_arg].dt != dt)
        return cpu_internal(c, op, "a view that does not match its program's segment");
    const cpu_buffer *b = &c->bufs[view->values_arg];
    const unsigned char *src = b->data + (size_t)view->base * (size_t)b->elsize;
    ir_scalar *o = cpu_vals(c, op->results[0]);
    if (dt == DT_F32 && !c->generic_only) {
        for (int32_t i = 0; i < n; i++) {
            float f;
            memcpy(&f, src + (size_t)i * sizeof f, sizeof f);
            o[i].f = f;
        }
    } else {
        for (int32_t i = 0; i < n; i++)
            o[i] = ir_scalar_load(dt, src + (size_t)i * (size_t)b->elsize);
    }
    return true;
}

/* ptr[start + i] = value[i]: the whole range is checked before anything is
 * written; an empty segment stores nothing (and checks nothing). */
static bool exec_store_segment(cpu_ctx *c, const ir_op *op)
{
    cpu_ptr p = cpu_ptrs(c, op->operands[0])[0];
    const cpu_segment *view = view_of(c, op->operands[1]);
    ir_dtype dt = cpu_dtype(c, op->operands[2]);
    int64_t n = c->seg_len;
    if (!buffer_of(c, op, p, dt))
        return false;
    if (view->end - view->start != n)
        return cpu_internal(c, op, "a view that does not match its program's segment");
    if (n == 0)
        return true;
    const cpu_buffer *b = &c->bufs[p.arg];
    int64_t first = wrap_add(p.off, view->start);
    if (first < 0 || first >= b->nelems)
        return cpu_out_of_bounds(c, op, (cpu_ptr){.off = first, .arg = p.arg}, 0, 1);
    if (n > b->nelems - first)
        return cpu_out_of_bounds(c, op, (cpu_ptr){.off = b->nelems, .arg = p.arg}, 0, 1);
    if (!cpu_journal_note_range(c, p.arg, first, n))
        return false;
    const ir_scalar *v = cpu_vals(c, op->operands[2]);
    unsigned char *dst = b->data + (size_t)first * (size_t)b->elsize;
    if (dt == DT_F32 && !c->generic_only) {
        for (int64_t i = 0; i < n; i++) {
            float f = (float)v[i].f;
            memcpy(dst + (size_t)i * sizeof f, &f, sizeof f);
        }
    } else {
        for (int64_t i = 0; i < n; i++)
            ir_scalar_store(dt, dst + (size_t)i * (size_t)b->elsize, v[i]);
    }
    return true;
}

/* ---- dispatch ------------------------------------------------------------------ */

bool cpu_segment_exec_op(cpu_ctx *c, const ir_op *op)
{
    switch (op->kind) {
    case IR_SEGMENT_ID: {
        ir_value r = op->results[0];
        cpu_vals(c, r)[0] = ir_scalar_from_int(cpu_dtype(c, r), c->pid[0]);
        return true;
    }
    case IR_SEGMENT: return exec_segment(c, op);
    case IR_SEGMENT_LENGTH: {
        const cpu_segment *view = view_of(c, op->operands[0]);
        ir_value r = op->results[0];
        cpu_vals(c, r)[0] = ir_scalar_from_int(cpu_dtype(c, r), view->end - view->start);
        return true;
    }
    case IR_LOAD_SEGMENT: return exec_load_segment(c, op);
    case IR_STORE_SEGMENT: return exec_store_segment(c, op);
    case IR_CONSTANT: {
        if (c->seg_len < 0)
            return cpu_segment_unknown_length(c, op);
        ir_value r = op->results[0];
        ir_scalar v = ir_scalar_from_attr(cpu_dtype(c, r), ir_attr_get(op, "value"));
        ir_scalar *o = cpu_vals(c, r);
        for (int32_t i = 0; i < c->seg_len; i++)
            o[i] = v;
        return true;
    }
    default: return cpu_internal(c, op, "not a segment op");
    }
}
