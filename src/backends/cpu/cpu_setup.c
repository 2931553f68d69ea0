/* cpu_setup.c - launch setup shared by the semantic and the SIMT executor:
 * argument binding, value slots, the checks memory safety depends on, and
 * launch-invariant values. Requires a verified module and re-checks every
 * property the interpreters read slots by (lengths, pointer-ness, the
 * attributes they dereference), so a malformed module is an internal error,
 * never a read past a slot. Guarantees one allocation per launch (plus
 * the segment values' scratch, cpu_segment.c). */
#include "cpu_internal.h"
#include "../../ir/atomic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cpu_internal(cpu_ctx *c, const ir_op *op, const char *what)
{
    sw_unreachable(c->d, "cpu executor: %s (op '%s')", what, op ? ir_ops[op->kind].name : "?");
    return false;
}

const char *cpu_loc_text(const cpu_ctx *c, src_loc loc, char buf[256])
{
    const source_file *src = &c->m->src;
    if (src->name && loc.line > 0)
        snprintf(buf, 256, "%s:%d:%d", src->name,
                 loc.line + (src->first_line > 0 ? src->first_line - 1 : 0), (int)loc.col);
    else
        snprintf(buf, 256, "unknown location");
    return buf;
}

const char *cpu_param_name(const cpu_ctx *c, int index)
{
    const char *n = c->m->values[ir_func_body(c->func)->args[index]].name;
    return n ? n : "?";
}

/* Slot size in bytes, 16-byte aligned (a segment value's slot is in the
 * segment scratch, `seg_len` lanes). */
static size_t slot_bytes(const cpu_ctx *c, ir_type t)
{
    if (t.kind == TY_SEGMENT)
        return (sizeof(cpu_segment) + 15) & ~(size_t)15;
    if (t.kind == TY_SEGVAL)
        return c->seg_len > 0 ? (size_t)c->seg_len * sizeof(ir_scalar) : 0;
    size_t len = (t.kind == TY_TILE || t.kind == TY_VEC ? (size_t)t.len : 1) * (size_t)c->threads;
    size_t el = ir_type_is_ptrlike(t) ? sizeof(cpu_ptr) : sizeof(ir_scalar);
    return (len * el + 15) & ~(size_t)15;
}

void cpu_copy_value(cpu_ctx *c, ir_value dst, ir_value src)
{
    size_t bytes = slot_bytes(c, c->m->values[dst].type);
    if (bytes && dst != src)
        memcpy(c->slot[dst], c->slot[src], bytes);
}

void cpu_copy_value_active(cpu_ctx *c, ir_value dst, ir_value src)
{
    if (!c->active) {
        cpu_copy_value(c, dst, src);
        return;
    }
    ir_type t = c->m->values[dst].type;
    if (dst == src || t.kind == TY_SEGMENT || t.kind == TY_SEGVAL)
        return; /* no segment data at SIMT level */
    size_t el = ir_type_is_ptrlike(t) ? sizeof(cpu_ptr) : sizeof(ir_scalar);
    size_t per = (size_t)(t.kind == TY_TILE || t.kind == TY_VEC ? t.len : 1) * el;
    for (int32_t th = 0; th < c->threads; th++)
        if (c->active[th])
            memcpy((unsigned char *)c->slot[dst] + (size_t)th * per,
                   (unsigned char *)c->slot[src] + (size_t)th * per, per);
}

/* ---- slots and the checks memory safety depends on ------------------------ */

static bool assign_slot(cpu_ctx *c, ir_value v, size_t *total)
{
    ir_type t = c->m->values[v].type;
    if ((t.kind == TY_TILE || t.kind == TY_VEC) && t.len < 1)
        return cpu_internal(c, NULL, "tile or vector of length < 1");
    if (t.kind == TY_VEC && !c->simt)
        return cpu_internal(c, NULL, "vector type in a semantic program (run it with cpu_simt_launch)");
    if (t.kind == TY_TILE && c->simt)
        return cpu_internal(c, NULL, "tensor type in a SIMT program");
    if ((t.kind == TY_SEGMENT || t.kind == TY_SEGVAL) && c->simt)
        return cpu_internal(c, NULL, "segment type in a SIMT program");
    if (t.kind == TY_SEGVAL) {
        if (t.ptr_elem || t.dtype == DT_VOID || t.dtype >= DT_COUNT)
            return cpu_internal(c, NULL, "a segment value holds numbers");
        c->offset[v] = CPU_SEGVAL_SLOT; /* cpu_segment_prepare gives it a scratch slot */
        return true;
    }
    if (t.kind != TY_SEGMENT && t.kind != TY_SCALAR && t.kind != TY_PTR && t.kind != TY_TILE && t.kind != TY_VEC)
        return cpu_internal(c, NULL, "value of no type");
    int64_t lanes = (int64_t)(t.kind == TY_TILE || t.kind == TY_VEC ? t.len : 1) * c->threads;
    size_t bytes = slot_bytes(c, t);
    if (lanes > INT32_MAX || bytes > SIZE_MAX / 2 - *total) {
        diag_error(c->d, DIAG_NOMEM, "the kernel's values need more memory than can be addressed");
        return false;
    }
    c->offset[v] = *total;
    *total += bytes;
    return true;
}

/* Whether the last op of b is a sw.yield whose operands match `results`. */
static bool yields_match(const cpu_ctx *c, const ir_block *b, const ir_value *results, int n)
{
    const ir_op *y = b->last;
    if (!y)
        return n == 0;
    if (y->kind != IR_YIELD || y->noperands != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!ir_type_eq(c->m->values[y->operands[i]].type, c->m->values[results[i]].type))
            return false;
    return true;
}

static bool check_for(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    int no = op->noperands;
    if (no < 3 || op->nresults != no - 3)
        return cpu_internal(c, op, "bad sw.for arity");
    for (int i = 0; i < 3; i++)
        if (cpu_is_ptr(c, o[i]) || cpu_slots(c, o[i]) != 1 || ir_dtype_is_float(cpu_dtype(c, o[i])))
            return cpu_internal(c, op, "sw.for bounds must be integer scalars");
    const ir_block *body = op->regions[0];
    if (body->nargs != 1 + op->nresults ||
        !ir_type_eq(c->m->values[body->args[0]].type, c->m->values[o[0]].type))
        return cpu_internal(c, op, "sw.for body arguments do not match");
    for (int j = 0; j < op->nresults; j++) {
        ir_type rt = c->m->values[op->results[j]].type;
        if (!ir_type_eq(rt, c->m->values[o[3 + j]].type) ||
            !ir_type_eq(rt, c->m->values[body->args[1 + j]].type))
            return cpu_internal(c, op, "sw.for carried types do not match");
    }
    if (!body->last || !yields_match(c, body, op->results, op->nresults))
        return cpu_internal(c, op, "sw.for body must end in a matching sw.yield");
    return true;
}

static bool check_while(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    if (op->noperands < 1 || op->nresults != op->noperands - 1)
        return cpu_internal(c, op, "bad sw.while arity");
    if (cpu_is_ptr(c, o[0]) || cpu_slots(c, o[0]) != 1)
        return cpu_internal(c, op, "sw.while condition must be a scalar");
    const ir_block *body = op->regions[0];
    if (body->nargs != op->nresults)
        return cpu_internal(c, op, "sw.while body arguments do not match");
    for (int j = 0; j < op->nresults; j++) {
        ir_type rt = c->m->values[op->results[j]].type;
        if (!ir_type_eq(rt, c->m->values[o[1 + j]].type) ||
            !ir_type_eq(rt, c->m->values[body->args[j]].type))
            return cpu_internal(c, op, "sw.while carried types do not match");
    }
    const ir_op *y = body->last;
    if (!y || y->kind != IR_YIELD || y->noperands != 1 + op->nresults ||
        cpu_is_ptr(c, y->operands[0]) || cpu_slots(c, y->operands[0]) != 1)
        return cpu_internal(c, op, "sw.while body must end in a sw.yield of the condition and the "
                            "carried values");
    for (int j = 0; j < op->nresults; j++)
        if (!ir_type_eq(c->m->values[y->operands[1 + j]].type, c->m->values[op->results[j]].type))
            return cpu_internal(c, op, "sw.while yields the wrong types");
    return true;
}

static bool int_attr(const ir_op *op, const char *name, int64_t lo, int64_t hi)
{
    const ir_attr *a = ir_attr_get(op, name);
    return a && a->kind == ATTR_INT && a->i >= lo && a->i <= hi;
}

/* Whether op kind exists only at the semantic level (docs/simt.md). */
static bool semantic_only(ir_op_kind kind)
{
    return kind == IR_PROGRAM_ID || kind == IR_NUM_PROGRAMS || kind == IR_ARANGE ||
           kind == IR_LOAD || kind == IR_STORE || kind == IR_REDUCE || kind == IR_ATOMIC_RMW ||
           kind == IR_ATOMIC_CAS ||
           kind == IR_FENCE || kind == IR_BARRIER || kind == IR_PRINT || cpu_is_segment_op(kind) || cpu_is_scan_op(kind) ||
           cpu_is_shape_op(kind);
}

/* Views (!sw.segment<T>) go only to the segment ops, or through control
 * flow unchanged. */
static bool check_views(cpu_ctx *c, const ir_op *op)
{
    if (cpu_is_segment_op(op->kind) || op->kind == IR_FOR || op->kind == IR_IF ||
        op->kind == IR_WHILE || op->kind == IR_YIELD)
        return true;
    for (int i = 0; i < op->noperands; i++)
        if (c->m->values[op->operands[i]].type.kind == TY_SEGMENT)
            return cpu_internal(c, op, "a segment view used by an op that does not take one");
    for (int i = 0; i < op->nresults; i++)
        if (c->m->values[op->results[i]].type.kind == TY_SEGMENT)
            return cpu_internal(c, op, "a segment view made by an op that does not make one");
    return true;
}

/* An atomic: (pointers, [cmps,] values of the pointee[, mask]) -> old
 * values, a kind the executor knows, on a dtype it applies to. */
static bool check_atomic(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    int no = op->noperands;
    bool cas = op->kind == IR_ATOMIC_CAS || op->kind == IR_SIMT_ATOMIC_CAS;
    int nvals = cas ? 2 : 1;
    if (no != 1 + nvals && no != 2 + nvals)
        return cpu_internal(c, op, "bad operand count");
    if (!cpu_is_ptr(c, o[0]) || (no == 2 + nvals && cpu_is_ptr(c, o[1 + nvals])))
        return cpu_internal(c, op, "expects (pointers, values of the pointee[, mask]) -> old values");
    ir_dtype dt = cpu_dtype(c, o[0]);
    for (int i = 1; i <= nvals; i++)
        if (cpu_is_ptr(c, o[i]) || cpu_dtype(c, o[i]) != dt)
            return cpu_internal(c, op, "expects (pointers, values of the pointee[, mask]) -> old values");
    if (cpu_is_ptr(c, op->results[0]) || cpu_dtype(c, op->results[0]) != dt)
        return cpu_internal(c, op, "an atomic's result is the pointee type");
    if (cas)
        return ir_atomic_cas_dtype_ok(dt) || cpu_internal(c, op, "no compare-and-swap of this dtype");
    const ir_attr *kind = ir_attr_get(op, "kind");
    ir_atomic_kind k = ir_atomic_kind_from_name(kind && kind->kind == ATTR_STR ? kind->s : NULL);
    if (k == IR_ATOM_KIND_COUNT || !ir_atomic_rmw_dtype_ok(k, dt))
        return cpu_internal(c, op, "an atomic kind the executor does not know for its dtype");
    return true;
}

/* Operand and result element kinds (pointer or not) and lengths: the
 * interpreters read slots by these, so a mismatch would read past a slot. */
static bool check_shapes(cpu_ctx *c, const ir_op *op)
{
    const ir_value *o = op->operands;
    int no = op->noperands;
    if (c->simt && semantic_only(op->kind))
        return cpu_internal(c, op, "semantic op in a SIMT program");
    if (!c->simt && cpu_is_simt_op(op->kind))
        return cpu_internal(c, op, "SIMT op in a semantic program (run it with cpu_simt_launch)");
    if (!check_views(c, op))
        return false;
    if (cpu_is_segment_op(op->kind))
        return cpu_segment_check_op(c, op);
    if (cpu_is_scan_op(op->kind))
        return cpu_scan_check_op(c, op);
    if (cpu_is_shape_op(op->kind))
        return cpu_shape_check_op(c, op);
    if (op->kind == IR_REDUCE && ir_attr_get(op, "axis"))
        return cpu_shape_check_reduce(c, op);
    switch (op->kind) {
    case IR_FOR:
        return check_for(c, op);
    case IR_WHILE:
        return check_while(c, op);
    case IR_IF:
        if (cpu_is_ptr(c, o[0]) || cpu_slots(c, o[0]) != 1)
            return cpu_internal(c, op, "sw.if condition must be a scalar");
        for (int r = 0; r < 2; r++)
            if (!yields_match(c, op->regions[r], op->results, op->nresults))
                return cpu_internal(c, op, "sw.if branch must end in a matching sw.yield");
        return true;
    case IR_YIELD:
    case IR_RETURN:
        return true;
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS:
        if (!int_attr(op, "axis", 0, 2))
            return cpu_internal(c, op, "axis must be 0, 1 or 2");
        break;
    case IR_ARANGE: {
        const ir_attr *st = ir_attr_get(op, "start");
        if (!st || st->kind != ATTR_INT)
            return cpu_internal(c, op, "sw.arange needs an integer start");
        break;
    }
    case IR_FENCE:
    case IR_SIMT_FENCE:
        return no == 0 || cpu_internal(c, op, "a fence takes no operands");
    case IR_BARRIER:
        return no == 0 || cpu_internal(c, op, "a barrier takes no operands");
    case IR_PRINT:
        return true;
    case IR_ATOMIC_RMW:
    case IR_ATOMIC_CAS:
    case IR_SIMT_ATOMIC_RMW:
    case IR_SIMT_ATOMIC_CAS:
        if (!check_atomic(c, op))
            return false;
        break;
    case IR_LOAD:
    case IR_STORE:
    case IR_SIMT_LOAD:
    case IR_SIMT_STORE: {
        bool load = op->kind == IR_LOAD || op->kind == IR_SIMT_LOAD;
        if ((load && no != 1 && no != 3) || (!load && no != 2 && no != 3))
            return cpu_internal(c, op, "bad operand count");
        if (!cpu_is_ptr(c, o[0]))
            return cpu_internal(c, op, "address must be a pointer");
        for (int i = 1; i < no; i++)
            if (cpu_is_ptr(c, o[i]))
                return cpu_internal(c, op, "mask, value and other must not be pointers");
        if (load && (cpu_is_ptr(c, op->results[0]) ||
                     cpu_dtype(c, op->results[0]) != cpu_dtype(c, o[0])))
            return cpu_internal(c, op, "result must be the pointee type");
        if (!load && cpu_dtype(c, o[1]) != cpu_dtype(c, o[0]))
            return cpu_internal(c, op, "stored value must be the pointee type");
        break;
    }
    case IR_ADDPTR:
        if (!cpu_is_ptr(c, o[0]) || cpu_is_ptr(c, o[1]) || !cpu_is_ptr(c, op->results[0]) ||
            ir_dtype_is_float(cpu_dtype(c, o[1])))
            return cpu_internal(c, op, "expects (pointer, integer offset) -> pointer");
        break;
    case IR_SELECT:
        if (cpu_is_ptr(c, o[0]) || cpu_is_ptr(c, o[1]) != cpu_is_ptr(c, op->results[0]) ||
            cpu_is_ptr(c, o[2]) != cpu_is_ptr(c, op->results[0]))
            return cpu_internal(c, op, "select arms and result must agree on pointer-ness");
        break;
    case IR_SPLAT:
        if (cpu_slots(c, o[0]) != 1 || cpu_is_ptr(c, o[0]) != cpu_is_ptr(c, op->results[0]))
            return cpu_internal(c, op, "splat of a non-scalar");
        return true; /* the result's length is its own */
    case IR_REDUCE:
    case IR_SIMT_VREDUCE:
        if (cpu_slots(c, op->results[0]) != 1 || cpu_is_ptr(c, o[0]) ||
            cpu_dtype(c, op->results[0]) != cpu_dtype(c, o[0]))
            return cpu_internal(c, op, "a reduction gives a scalar of its operand's element type");
        break;
    case IR_CONSTANT:
        if (cpu_is_ptr(c, op->results[0]))
            return cpu_internal(c, op, "constant pointer");
        break;
    default:
        if (!cpu_is_value_op(op->kind) && !cpu_is_simt_op(op->kind))
            return cpu_internal(c, op, "op the CPU executor does not know");
        break;
    }
    if (cpu_is_simt_op(op->kind) && !cpu_simt_check_op(c, op))
        return false;
    bool ptr_ok = op->kind == IR_LOAD || op->kind == IR_STORE || op->kind == IR_ADDPTR ||
                  op->kind == IR_SELECT || op->kind == IR_SIMT_LOAD || op->kind == IR_SIMT_STORE ||
                  op->kind == IR_ATOMIC_RMW || op->kind == IR_ATOMIC_CAS ||
                  op->kind == IR_SIMT_ATOMIC_RMW || op->kind == IR_SIMT_ATOMIC_CAS ||
                  op->kind == IR_SIMT_VSLOTS;
    if (!ptr_ok) {
        for (int i = 0; i < op->nresults; i++)
            if (cpu_is_ptr(c, op->results[i]))
                return cpu_internal(c, op, "unexpected pointer result");
        for (int i = 0; i < no; i++)
            if (cpu_is_ptr(c, o[i]))
                return cpu_internal(c, op, "unexpected pointer operand");
    }
    if (op->kind == IR_REDUCE || op->kind == IR_SIMT_VREDUCE || op->kind == IR_SIMT_VSLOTS)
        return true;
    /* Everything else is elementwise over one length (constants, arange,
     * ids and tile indices have no operands and any result length). */
    int32_t len = op->nresults ? cpu_slots(c, op->results[0]) : cpu_slots(c, o[0]);
    for (int i = 0; i < no; i++)
        if (cpu_slots(c, o[i]) != len)
            return cpu_internal(c, op, "operands of different lengths");
    return true;
}

/* Bytes one level of divergent control flow takes from the ctl stack
 * (exec_for: trip counts and two masks; exec_if: one mask), rounded as
 * ctl_take rounds. */
static size_t ctl_level_bytes(int32_t threads)
{
    return ((size_t)threads * (sizeof(uint64_t) + 2) + 15) & ~(size_t)15;
}

static int region_depth(const ir_block *b)
{
    int most = 0;
    for (const ir_op *op = b->first; op; op = op->next)
        for (int r = 0; r < op->nregions; r++) {
            int d = 1 + region_depth(op->regions[r]);
            if (d > most)
                most = d;
        }
    return most;
}

static bool prepare_block(cpu_ctx *c, const ir_block *b, size_t *total, bool func_body)
{
    for (int i = 0; i < b->nargs; i++)
        if (!assign_slot(c, b->args[i], total))
            return false;
    for (const ir_op *op = b->first; op; op = op->next) {
        const ir_op_info *info = &ir_ops[op->kind < IR_OP_COUNT ? op->kind : 0];
        if (op->kind >= IR_OP_COUNT || op->kind == IR_FUNC ||
            (info->noperands != VAR && op->noperands != info->noperands) ||
            (info->nresults != VAR && op->nresults != info->nresults) ||
            op->nregions != info->nregions)
            return cpu_internal(c, op->kind < IR_OP_COUNT ? op : NULL, "malformed op");
        if ((op->kind == IR_RETURN && !func_body) || (op->kind == IR_YIELD && func_body) ||
            ((info->flags & F_TERM) && op->next))
            return cpu_internal(c, op, "misplaced terminator");
        for (int i = 0; i < op->noperands; i++) {
            ir_value v = op->operands[i];
            if (v < 0 || v >= c->m->nvalues || c->offset[v] == SIZE_MAX)
                return cpu_internal(c, op, "operand not defined before its use");
        }
        if (!check_shapes(c, op))
            return false;
        for (int r = 0; r < op->nregions; r++)
            if (!prepare_block(c, op->regions[r], total, false))
                return false;
        for (int i = 0; i < op->nresults; i++)
            if (!assign_slot(c, op->results[i], total))
                return false;
    }
    return true;
}

/* sw.constant, sw.arange, sw.num_programs and the SIMT ids that do not
 * depend on the CTA do not depend on the program, and only their own op
 * writes their slot: evaluate them once per launch. */
static void eval_invariants(cpu_ctx *c, const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            eval_invariants(c, op->regions[r]);
        if (c->simt && cpu_simt_eval_invariant(c, op))
            continue;
        if (op->kind != IR_CONSTANT && op->kind != IR_ARANGE && op->kind != IR_NUM_PROGRAMS)
            continue;
        if (cpu_is_segval(c, op->results[0]))
            continue; /* its length is the program's segment's (cpu_segment.c) */
        ir_value r = op->results[0];
        ir_dtype dt = cpu_dtype(c, r);
        ir_scalar *o = cpu_vals(c, r);
        int32_t n = cpu_len(c, r);
        if (op->kind == IR_CONSTANT) {
            ir_scalar v = ir_scalar_from_attr(dt, ir_attr_get(op, "value"));
            for (int32_t i = 0; i < n; i++)
                o[i] = v;
        } else if (op->kind == IR_ARANGE) {
            int64_t start = ir_attr_get(op, "start")->i;
            for (int32_t i = 0; i < n; i++)
                o[i] = ir_scalar_from_int(dt, (int64_t)((uint64_t)start + (uint64_t)i));
        } else {
            o[0] = ir_scalar_from_int(dt, c->grid[ir_attr_get(op, "axis")->i]);
        }
    }
}

/* ---- arguments ------------------------------------------------------------ */

static const char *arg_kind_name(cpu_arg_kind k)
{
    switch (k) {
    case CPU_ARG_BUFFER: return "a buffer";
    case CPU_ARG_INT: return "an integer";
    case CPU_ARG_FLOAT: return "a float";
    default: return "an unknown kind";
    }
}

static void fill(cpu_ctx *c, ir_value v, ir_scalar s)
{
    ir_scalar *o = cpu_vals(c, v);
    for (int32_t i = 0; i < c->threads; i++)
        o[i] = s;
}

/* Binds argument i to parameter i (every thread's lane): pointers need a
 * buffer, integer parameters an integer (wrapped to the dtype; i1 takes
 * != 0), float parameters a float or an integer (rounded to the dtype). */
static bool bind_arg(cpu_ctx *c, int i)
{
    const cpu_arg *a = &c->args[i];
    ir_value p = ir_func_body(c->func)->args[i];
    ir_type t = c->m->values[p].type;
    char tbuf[64];
    const char *want = NULL;
    if (t.kind == TY_PTR) {
        if (a->kind != CPU_ARG_BUFFER)
            want = "a buffer";
    } else if (t.kind == TY_SCALAR && ir_dtype_is_float((ir_dtype)t.dtype)) {
        if (a->kind != CPU_ARG_FLOAT && a->kind != CPU_ARG_INT)
            want = "a float or an integer";
    } else if (t.kind == TY_SCALAR && ir_dtype_is_int((ir_dtype)t.dtype)) {
        if (a->kind != CPU_ARG_INT)
            want = "an integer";
    } else {
        diag_error(c->d, DIAG_ARGUMENT, "parameter %d ('%s') has type %s, which cannot be passed to a kernel",
                   i, cpu_param_name(c, i), ir_type_str(t, tbuf));
        return false;
    }
    if (want) {
        diag_error(c->d, DIAG_ARGUMENT, "argument %d ('%s') must be %s for parameter type %s, got %s",
                   i, cpu_param_name(c, i), want, ir_type_str(t, tbuf), arg_kind_name(a->kind));
        return false;
    }
    ir_dtype dt = (ir_dtype)t.dtype;
    if (t.kind == TY_PTR) {
        if (a->nelems < 0 || (a->nelems > 0 && !a->data)) {
            diag_error(c->d, DIAG_ARGUMENT, "argument %d ('%s') is a buffer of %lld elements at %s",
                       i, cpu_param_name(c, i), (long long)a->nelems, a->data ? "a valid address" : "NULL");
            return false;
        }
        c->bufs[i] = (cpu_buffer){a->data, a->nelems, dt, ir_dtypes[dt].bytes, NULL};
        if (c->journal && !a->scratch && a->nelems > 0) {
            size_t bytes = (size_t)a->nelems * (size_t)ir_dtypes[dt].bytes;
            if (!(c->bufs[i].region = cpu_journal_region(c->journal, a->data, bytes))) {
                diag_error(c->d, DIAG_NOMEM, "out of memory preparing the CPU executor");
                return false;
            }
        }
        for (int32_t l = 0; l < c->threads; l++)
            cpu_ptrs(c, p)[l] = (cpu_ptr){.off = 0, .arg = i};
    } else if (a->kind == CPU_ARG_FLOAT) {
        fill(c, p, ir_scalar_from_float(dt, a->f));
    } else if (dt == DT_I1) {
        fill(c, p, ir_scalar_from_int(dt, a->i != 0));
    } else {
        fill(c, p, ir_scalar_from_int(dt, a->i));
    }
    return true;
}

/* ---- prepare, release -------------------------------------------------------- */

bool cpu_prepare(cpu_ctx *c)
{
    const ir_module *m = c->m;
    const ir_block *body = ir_func_body(c->func);
    if (c->nargs != body->nargs) {
        diag_error(c->d, DIAG_ARGUMENT, "kernel '%s' takes %d argument%s, got %d", ir_func_name(c->func),
                   body->nargs, body->nargs == 1 ? "" : "s", c->nargs);
        return false;
    }
    c->offset = malloc(sizeof(size_t) * (size_t)(m->nvalues ? m->nvalues : 1));
    c->slot = calloc((size_t)(m->nvalues ? m->nvalues : 1), sizeof(void *));
    c->bufs = calloc((size_t)(c->nargs ? c->nargs : 1), sizeof(cpu_buffer));
    if (!c->offset || !c->slot || !c->bufs) {
        diag_error(c->d, DIAG_NOMEM, "out of memory preparing the CPU executor");
        return false;
    }
    for (int32_t v = 0; v < m->nvalues; v++)
        c->offset[v] = SIZE_MAX;
    size_t total = 0;
    if (!prepare_block(c, body, &total, true))
        return false;
    if (c->threads > 1) {
        c->ctl_cap = ctl_level_bytes(c->threads) * (size_t)(region_depth(body) + 1);
        c->ctl = malloc(c->ctl_cap);
        c->ctl_used = 0;
        if (!c->ctl) {
            diag_error(c->d, DIAG_NOMEM, "out of memory preparing the CPU executor");
            return false;
        }
    }
    c->slab = calloc(total ? total : 1, 1);
    if (!c->slab) {
        diag_error(c->d, DIAG_NOMEM, "out of memory: the kernel's values need %zu bytes", total);
        return false;
    }
    for (int32_t v = 0; v < m->nvalues; v++)
        if (c->offset[v] != SIZE_MAX && c->offset[v] != CPU_SEGVAL_SLOT)
            c->slot[v] = c->slab + c->offset[v];
    if (!cpu_segment_prepare(c))
        return false;
    for (int i = 0; i < c->nargs; i++)
        if (!bind_arg(c, i))
            return false;
    eval_invariants(c, body);
    return true;
}

void cpu_release(cpu_ctx *c)
{
    cpu_segment_release(c);
    free(c->ctl);
    c->ctl = NULL, c->ctl_cap = c->ctl_used = 0;
    free(c->offset);
    free(c->bufs);
    free(c->slot);
    free(c->slab);
    c->offset = NULL, c->bufs = NULL, c->slot = NULL, c->slab = NULL;
}
