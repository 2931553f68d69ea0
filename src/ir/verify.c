/* verify.c - the IR verifier. Requires any module (built, parsed or
 * rewritten by a pass); guarantees that a module it accepts satisfies every
 * structural and type rule of docs/ir-format.md ("Verifier rules"), so the
 * passes and executors may rely on them. The first violation is reported at
 * the offending op's location and the walk stops. The rules of segment
 * programs are in verify_segments.c. */
#include "verify_internal.h"
#include "ir/scalar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void verify_vfail(verifier *v, const ir_op *op, const char *fmt, va_list ap)
{
    src_loc none = {0, 0};
    diag_verror_at(v->d, DIAG_COMPILE, &v->m->src, op ? op->loc : none, fmt, ap);
}

static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(v, op, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- types ------------------------------------------------------------------ */

static bool type_ok(ir_type t)
{
    bool dt_ok = t.dtype > DT_VOID && t.dtype < DT_COUNT;
    switch (t.kind) {
    case TY_SCALAR:
    case TY_PTR: return dt_ok && !t.ptr_elem && t.len == 0;
    case TY_TILE: {
        if (!dt_ok || t.len < 1 || t.rank == 1 || t.rank > IR_MAX_RANK)
            return false;
        int64_t n = 1;
        for (int i = 0; i < IR_MAX_RANK; i++) {
            if (i < t.rank ? t.shape[i] < 1 : t.shape[i] != 0)
                return false;
            n *= i < t.rank ? t.shape[i] : 1;
        }
        return t.rank == 0 || n == t.len;
    }
    case TY_VEC: return dt_ok && t.len >= 1 && t.rank == 0 && !t.shape[0] && !t.shape[1] && !t.shape[2];
    case TY_SEGMENT: return dt_ok && !t.ptr_elem && t.len == 0;
    case TY_SEGVAL: return dt_ok && !t.ptr_elem && t.len == -1;
    default: return false;
    }
}

static bool is_scalar(ir_type t) { return t.kind == TY_SCALAR; }
static bool is_ptr_elem(ir_type t) { return ir_type_is_ptrlike(t); }
/* Scalar and pointer are one shape; tiles (and vectors) match on kind,
 * length and dims. */
static bool same_shape(ir_type a, ir_type b)
{
    if (!ir_type_is_shaped(a) || !ir_type_is_shaped(b))
        return ir_type_is_shaped(a) == ir_type_is_shaped(b);
    return a.kind == b.kind && a.len == b.len && a.rank == b.rank && a.shape[0] == b.shape[0] &&
           a.shape[1] == b.shape[1] && a.shape[2] == b.shape[2];
}
static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
/* i1 of t's shape: the type of a mask or comparison result. */
static ir_type bool_like(ir_type t) { return ir_type_like(t, ir_type_scalar(DT_I1)); }
/* What a pointer (or tile of pointers) loads: its pointee, in its shape. */
static ir_type pointee_like(ir_type ptr) { return ir_type_like(ptr, ir_type_scalar(elem_dtype(ptr))); }


/* ---- scopes ------------------------------------------------------------------ */

static bool define_value(verifier *v, const ir_op *at, ir_value x)
{
    if (v->state[x] & DEFINED)
        return fail(v, at, "malformed IR: value %d of '%s' is defined twice", (int)x, name_of(at));
    v->state[x] = VISIBLE | DEFINED;
    if (v->nscope == v->capscope) {
        /* malloc, not the module arena: verifying must not grow the module. */
        int32_t cap = v->capscope ? v->capscope * 2 : 64;
        ir_value *grown = realloc(v->scope, sizeof *grown * (size_t)cap);
        if (!grown) {
            diag_error(v->d, DIAG_NOMEM, "out of memory while verifying the IR");
            return false;
        }
        v->scope = grown;
        v->capscope = cap;
    }
    v->scope[v->nscope++] = x;
    return true;
}

/* Ends a region: what it defined is not visible after it. */
static void pop_scope(verifier *v, int32_t mark)
{
    while (v->nscope > mark)
        v->state[v->scope[--v->nscope]] &= (uint8_t)~VISIBLE;
}

/* ---- per-op rules ----------------------------------------------------------- */

static bool str_attr_in(const ir_op *op, const char *name, const char *const *allowed)
{
    const ir_attr *a = ir_attr_get(op, name);
    if (!a || a->kind != ATTR_STR || !a->s)
        return false;
    for (; *allowed; allowed++)
        if (!strcmp(a->s, *allowed))
            return true;
    return false;
}

static bool check_constant(verifier *v, const ir_op *op)
{
    char a[64];
    const ir_attr *val = ir_attr_get(op, "value");
    ir_type r = result_type(v, op, 0);
    if (!val || (val->kind != ATTR_INT && val->kind != ATTR_FLOAT && val->kind != ATTR_BOOL))
        return fail(v, op, "'sw.constant' needs a 'value' attribute (an integer, float or bool)");
    if (is_ptr_elem(r))
        return fail(v, op, "'sw.constant' result type %s is a pointer; constants are numbers", TY(r, a));
    ir_dtype dt = elem_dtype(r);
    if (val->kind == ATTR_FLOAT && !ir_dtype_is_float(dt))
        return fail(v, op, "'sw.constant' has a float value for the integer result type %s", TY(r, a));
    /* an integer value must already be in its type's canonical range (the
     * executors and the PTX emitter take it as it is) */
    if (val->kind == ATTR_INT && !ir_dtype_is_float(dt) && !ir_dtype_holds_int(dt, val->i))
        return fail(v, op, "'sw.constant' value %lld is out of range for the result type %s (%s "
                           "holds %lld..%lld)", (long long)val->i, TY(r, a), ir_dtypes[dt].name,
                    (long long)ir_dtype_min_int(dt), (long long)ir_dtype_max_int(dt));
    return true;
}

static bool check_grid_query(verifier *v, const ir_op *op)
{
    char a[64];
    const ir_attr *axis = int_attr(op, "axis");
    if (!axis || axis->i < 0 || axis->i > 2)
        return fail(v, op, "'%s' needs an integer attribute 'axis' of 0, 1 or 2", name_of(op));
    ir_type r = result_type(v, op, 0);
    if (!ir_type_eq(r, ir_type_scalar(DT_I32)))
        return fail(v, op, "'%s' result type %s must be i32", name_of(op), TY(r, a));
    return true;
}

static bool check_arange(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    const ir_attr *start = int_attr(op, "start"), *end = int_attr(op, "end");
    if (!start || !end)
        return fail(v, op, "'sw.arange' needs integer attributes 'start' and 'end'");
    if (start->i >= end->i)
        return fail(v, op, "'sw.arange' needs start < end, got start = %lld, end = %lld",
                    (long long)start->i, (long long)end->i);
    uint64_t n = (uint64_t)end->i - (uint64_t)start->i;
    if (n > INT32_MAX)
        return fail(v, op, "'sw.arange' range [%lld, %lld) is too long", (long long)start->i,
                    (long long)end->i);
    ir_type want = ir_type_tile(DT_I32, (int32_t)n), r = result_type(v, op, 0);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'sw.arange' result type %s does not match its range [%lld, %lld) (expected %s)",
                    TY(r, a), (long long)start->i, (long long)end->i, TY(want, b));
    return true;
}

static bool check_splat(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (x.kind != TY_SCALAR && x.kind != TY_PTR)
        return fail(v, op, "'sw.splat' operand type %s must be a scalar or a pointer", TY(x, a));
    if (!ir_type_is_shaped(r) || !ir_type_eq(ir_type_elem(r), x))
        return fail(v, op, "'sw.splat' result type %s is not a %s of its operand type %s", TY(r, a),
                    v->simt ? "vector" : "tile", TY(x, b));
    return true;
}

static bool check_cast(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (is_ptr_elem(x) || is_ptr_elem(r))
        return fail(v, op, "'sw.cast' does not convert pointers (%s to %s)", TY(x, a), TY(r, b));
    if (!same_shape(x, r))
        return fail(v, op, "'sw.cast' cannot change the shape (%s to %s)", TY(x, a), TY(r, b));
    return true;
}

static bool check_bitcast(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (is_ptr_elem(x) || is_ptr_elem(r) || !same_shape(x, r))
        return fail(v, op, "'sw.bitcast' takes numbers to numbers of one shape (%s to %s)", TY(x, a),
                    TY(r, b));
    if (ir_dtypes[elem_dtype(x)].bits != ir_dtypes[elem_dtype(r)].bits || elem_dtype(x) == DT_I1)
        return fail(v, op, "'sw.bitcast' needs element types of one width, not i1 (%s to %s)",
                    TY(x, a), TY(r, b));
    return true;
}

static bool check_addptr(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type ptr = operand_type(v, op, 0), off = operand_type(v, op, 1), r = result_type(v, op, 0);
    if (!is_ptr_elem(ptr))
        return fail(v, op, "'sw.addptr' operand #0 type %s must be a pointer or a tile of pointers",
                    TY(ptr, a));
    ir_dtype odt = elem_dtype(off);
    if (is_ptr_elem(off) || (odt != DT_I32 && odt != DT_I64) || !same_shape(off, ptr))
        return fail(v, op, "'sw.addptr' offset type %s must be i32 or i64 in the shape of %s",
                    TY(off, a), TY(ptr, b));
    if (!ir_type_eq(r, ptr))
        return fail(v, op, "'sw.addptr' result type %s does not match the pointer type %s", TY(r, a),
                    TY(ptr, b));
    return true;
}

static bool check_mask(verifier *v, const ir_op *op, ir_type ptr, int index)
{
    char a[64], b[64], c[64];
    ir_type mask = operand_type(v, op, index), want = bool_like(ptr);
    if (!ir_type_eq(mask, want))
        return fail(v, op, "'%s' mask type %s does not match the shape of %s (expected %s)",
                    name_of(op), TY(mask, a), TY(ptr, b), TY(want, c));
    return true;
}

/* sw.load / simt.load: the pointer operand's shape. A semantic load reads
 * through a pointer or a tile of pointers, a SIMT load through a vector of
 * pointers. */
static bool check_mem_ptr(verifier *v, const ir_op *op, ir_type ptr)
{
    char a[64];
    if (op->kind == IR_SIMT_LOAD || op->kind == IR_SIMT_STORE) {
        if (ptr.kind != TY_VEC || !ptr.ptr_elem)
            return fail(v, op, "'%s' operand #0 type %s must be a vector of pointers", name_of(op),
                        TY(ptr, a));
        return true;
    }
    if (!is_ptr_elem(ptr))
        return fail(v, op, "'%s' operand type %s must be a pointer or a tile of pointers", name_of(op),
                    TY(ptr, a));
    return true;
}

static bool check_load(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    if (op->noperands != 1 && op->noperands != 3)
        return fail(v, op, "'%s' takes 1 operand (ptr) or 3 (ptr, mask, other), got %d", name_of(op),
                    (int)op->noperands);
    ir_type ptr = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (!check_mem_ptr(v, op, ptr))
        return false;
    ir_type want = pointee_like(ptr);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'%s' result type %s does not match the pointee of %s (expected %s)",
                    name_of(op), TY(r, a), TY(ptr, b), TY(want, c));
    if (op->noperands == 3) {
        if (!check_mask(v, op, ptr, 1))
            return false;
        ir_type other = operand_type(v, op, 2);
        if (!ir_type_eq(other, want))
            return fail(v, op, "'%s' other type %s does not match the loaded type %s", name_of(op),
                        TY(other, a), TY(want, b));
    }
    return true;
}

static bool check_store(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    if (op->noperands != 2 && op->noperands != 3)
        return fail(v, op, "'%s' takes 2 operands (ptr, value) or 3 (ptr, value, mask), got %d",
                    name_of(op), (int)op->noperands);
    ir_type ptr = operand_type(v, op, 0), val = operand_type(v, op, 1);
    if (!check_mem_ptr(v, op, ptr))
        return false;
    ir_type want = pointee_like(ptr);
    if (!ir_type_eq(val, want))
        return fail(v, op, "'%s' value type %s does not match the pointee of %s (expected %s)",
                    name_of(op), TY(val, a), TY(ptr, b), TY(want, c));
    return op->noperands == 2 || check_mask(v, op, ptr, 2);
}

/* The element rules shared by unary and binary ops: no pointers, float-only
 * and integer-only ops respected, no negation of unsigned or bool values. */
static bool check_elem_kind(verifier *v, const ir_op *op, ir_type t)
{
    char a[64];
    unsigned flags = ir_ops[op->kind].flags;
    ir_dtype dt = elem_dtype(t);
    if (is_ptr_elem(t))
        return fail(v, op, "'%s' does not take pointer operands (%s)%s", name_of(op), TY(t, a),
                    op->kind == IR_ADD ? "; use 'sw.addptr'" : "");
    if ((flags & F_FLOAT) && !ir_dtype_is_float(dt))
        return fail(v, op, "'%s' needs float operands, got %s", name_of(op), TY(t, a));
    if ((flags & F_INT) && !ir_dtype_is_int(dt))
        return fail(v, op, "'%s' needs integer or i1 operands, got %s", name_of(op), TY(t, a));
    if ((op->kind == IR_SHL || op->kind == IR_SHR) && dt == DT_I1)
        return fail(v, op, "'%s' does not take i1 operands", name_of(op));
    if (op->kind == IR_UMULHI && ir_dtypes[dt].bits != 32 && ir_dtypes[dt].bits != 64)
        return fail(v, op, "'%s' takes i32, ui32, i64 or ui64 operands, not %s", name_of(op),
                    TY(t, a));
    if ((op->kind == IR_NEG || op->kind == IR_ABS) && (dt == DT_I1 || ir_dtype_is_unsigned(dt)))
        return fail(v, op, "'%s' does not take %s operands", name_of(op), TY(t, a));
    return true;
}

/* An elementwise op of `n` operands (2 or 3): operands and result of one type. */
static bool check_same_types(verifier *v, const ir_op *op, int n)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    for (int i = 1; i < n; i++) {
        ir_type y = operand_type(v, op, i);
        if (!ir_type_eq(x, y))
            return fail(v, op, "'%s' operand types %s and %s differ", name_of(op), TY(x, a), TY(y, b));
    }
    if (!ir_type_eq(r, x))
        return fail(v, op, "'%s' result type %s does not match its operand type %s", name_of(op),
                    TY(r, a), TY(x, b));
    return check_elem_kind(v, op, x);
}

static bool check_unary(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (!ir_type_eq(r, x))
        return fail(v, op, "'%s' result type %s does not match its operand type %s", name_of(op),
                    TY(r, a), TY(x, b));
    return check_elem_kind(v, op, x);
}

static bool check_cmp(verifier *v, const ir_op *op)
{
    static const char *const preds[] = {"lt", "le", "gt", "ge", "eq", "ne", NULL};
    char a[64], b[64], c[64];
    ir_type x = operand_type(v, op, 0), y = operand_type(v, op, 1), r = result_type(v, op, 0);
    if (!ir_type_eq(x, y))
        return fail(v, op, "'sw.cmp' operand types %s and %s differ", TY(x, a), TY(y, b));
    if (is_ptr_elem(x))
        return fail(v, op, "'sw.cmp' does not compare pointers (%s)", TY(x, a));
    if (!ir_type_eq(r, bool_like(x)))
        return fail(v, op, "'sw.cmp' result type %s must be i1 in the shape of %s (expected %s)",
                    TY(r, a), TY(x, b), TY(bool_like(x), c));
    if (!str_attr_in(op, "predicate", preds))
        return fail(v, op, "'sw.cmp' needs a string attribute 'predicate': lt, le, gt, ge, eq or ne");
    return true;
}

static bool check_select(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    ir_type cond = operand_type(v, op, 0), x = operand_type(v, op, 1), y = operand_type(v, op, 2);
    ir_type r = result_type(v, op, 0);
    if (!ir_type_eq(x, y))
        return fail(v, op, "'sw.select' operand types %s and %s differ", TY(x, a), TY(y, b));
    if (!ir_type_eq(r, x))
        return fail(v, op, "'sw.select' result type %s does not match its operand type %s", TY(r, a),
                    TY(x, b));
    if (!ir_type_eq(cond, bool_like(r)))
        return fail(v, op, "'sw.select' condition type %s must be i1 in the shape of %s (expected %s)",
                    TY(cond, a), TY(r, b), TY(bool_like(r), c));
    return true;
}

/* The loop's signature: bounds, carried values and body arguments. The
 * yield is checked after the body (check_yield). */
static bool check_for(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    if (op->noperands < 3)
        return fail(v, op, "'sw.for' needs lb, ub and step operands, got %d operand%s",
                    (int)op->noperands, op->noperands == 1 ? "" : "s");
    ir_type lb = operand_type(v, op, 0), ub = operand_type(v, op, 1), st = operand_type(v, op, 2);
    if (!is_scalar(lb) || !ir_dtype_is_int(elem_dtype(lb)) || elem_dtype(lb) == DT_I1 ||
        !ir_type_eq(lb, ub) || !ir_type_eq(lb, st))
        return fail(v, op, "'sw.for' bounds must share one scalar integer type, got %s, %s, %s",
                    TY(lb, a), TY(ub, b), TY(st, c));
    int ninit = op->noperands - 3;
    if (op->nresults != ninit)
        return fail(v, op, "'sw.for' has %d result%s but %d initial value%s", (int)op->nresults,
                    op->nresults == 1 ? "" : "s", ninit, ninit == 1 ? "" : "s");
    for (int i = 0; i < ninit; i++) {
        ir_type init = operand_type(v, op, 3 + i), r = result_type(v, op, i);
        if (!ir_type_eq(init, r))
            return fail(v, op, "'sw.for' result #%d type %s does not match its initial value type %s",
                        i, TY(r, a), TY(init, b));
    }
    const ir_block *body = op->regions[0];
    if (body->nargs != 1 + ninit)
        return fail(v, op, "'sw.for' body takes %d argument%s (the induction variable, then the carried "
                    "values), got %d", 1 + ninit, ninit ? "s" : "", (int)body->nargs);
    ir_type iv = ir_value_type(v->m, body->args[0]);
    if (!ir_type_eq(iv, lb))
        return fail(v, op, "'sw.for' induction variable type %s does not match the bounds type %s",
                    TY(iv, a), TY(lb, b));
    for (int i = 0; i < ninit; i++) {
        ir_type arg = ir_value_type(v->m, body->args[1 + i]), init = operand_type(v, op, 3 + i);
        if (!ir_type_eq(arg, init))
            return fail(v, op, "'sw.for' body argument #%d type %s does not match the carried type %s",
                        1 + i, TY(arg, a), TY(init, b));
    }
    return true;
}

/* sw.while(cond0, inits...): the body takes the carried values and yields
 * the next condition, then the next carried values. */
static bool check_while(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    if (op->noperands < 1)
        return fail(v, op, "'sw.while' needs its first condition as operand #0");
    ir_type cond = operand_type(v, op, 0);
    if (!ir_type_eq(cond, ir_type_scalar(DT_I1)))
        return fail(v, op, "'sw.while' condition type %s must be i1", TY(cond, a));
    int ninit = op->noperands - 1;
    if (op->nresults != ninit)
        return fail(v, op, "'sw.while' has %d result%s but %d initial value%s", (int)op->nresults,
                    op->nresults == 1 ? "" : "s", ninit, ninit == 1 ? "" : "s");
    const ir_block *body = op->regions[0];
    if (body->nargs != ninit)
        return fail(v, op, "'sw.while' body takes %d argument%s (the carried values), got %d", ninit,
                    ninit == 1 ? "" : "s", (int)body->nargs);
    for (int i = 0; i < ninit; i++) {
        ir_type init = operand_type(v, op, 1 + i), r = result_type(v, op, i);
        ir_type arg = ir_value_type(v->m, body->args[i]);
        if (!ir_type_eq(init, r))
            return fail(v, op, "'sw.while' result #%d type %s does not match its initial value type %s",
                        i, TY(r, a), TY(init, b));
        if (!ir_type_eq(arg, init))
            return fail(v, op, "'sw.while' body argument #%d type %s does not match the carried type %s",
                        i, TY(arg, a), TY(init, b));
    }
    return true;
}

static bool check_if(verifier *v, const ir_op *op)
{
    char a[64];
    ir_type cond = operand_type(v, op, 0);
    if (!ir_type_eq(cond, ir_type_scalar(DT_I1)))
        return fail(v, op, "'sw.if' condition type %s must be i1", TY(cond, a));
    for (int r = 0; r < 2; r++)
        if (op->regions[r]->nargs)
            return fail(v, op, "'sw.if' %s region takes no arguments", r ? "else" : "then");
    return true;
}

/* The sw.yield ending region r of a sw.for or sw.if passes on the op's
 * result types. */
static bool check_yield(verifier *v, const ir_op *op, int r)
{
    char a[64], b[64];
    const ir_op *y = op->regions[r]->last;
    const char *where = op->kind != IR_IF ? "body" : r ? "else region" : "then region";
    if (op->kind == IR_WHILE) {
        /* The next condition first, then the carried values. */
        if (y->noperands != op->nresults + 1)
            return fail(v, y, "'sw.yield' in the body of 'sw.while' yields %d value%s but needs %d "
                        "(the condition, then %d carried)", (int)y->noperands,
                        y->noperands == 1 ? "" : "s", (int)op->nresults + 1, (int)op->nresults);
        ir_type c = operand_type(v, y, 0);
        if (!ir_type_eq(c, ir_type_scalar(DT_I1)))
            return fail(v, y, "'sw.yield' condition #0 in the body of 'sw.while' has type %s, not i1",
                        TY(c, a));
        for (int i = 0; i < op->nresults; i++) {
            ir_type got = operand_type(v, y, 1 + i), want = result_type(v, op, i);
            if (!ir_type_eq(got, want))
                return fail(v, y, "'sw.yield' value #%d type %s does not match result #%d of "
                            "'sw.while' (%s)", 1 + i, TY(got, a), i, TY(want, b));
        }
        return true;
    }
    if (y->noperands != op->nresults)
        return fail(v, y, "'sw.yield' in the %s of '%s' yields %d value%s but '%s' has %d result%s", where,
                    name_of(op), (int)y->noperands, y->noperands == 1 ? "" : "s", name_of(op),
                    (int)op->nresults, op->nresults == 1 ? "" : "s");
    for (int i = 0; i < y->noperands; i++) {
        ir_type got = operand_type(v, y, i), want = result_type(v, op, i);
        if (!ir_type_eq(got, want))
            return fail(v, y, "'sw.yield' value #%d type %s does not match result #%d of '%s' (%s)", i,
                        TY(got, a), i, name_of(op), TY(want, b));
    }
    return true;
}

/* ---- SIMT ops (docs/simt.md) ---------------------------------------------------- */

static bool check_thread_id(verifier *v, const ir_op *op)
{
    char a[64];
    ir_type r = result_type(v, op, 0);
    if (!ir_type_eq(r, ir_type_scalar(DT_I32)))
        return fail(v, op, "'simt.thread_id' result type %s must be i32", TY(r, a));
    return true;
}

/* vector<Vxi32> holding, per thread, V consecutive indices of a tile of
 * `len` elements: V divides len, and the T threads cover the tile. */
static bool check_tile_index(verifier *v, const ir_op *op)
{
    char a[64];
    const ir_attr *len = int_attr(op, "len"), *start = int_attr(op, "start");
    if (!len || !start)
        return fail(v, op, "'simt.tile_index' needs integer attributes 'len' and 'start'");
    if (len->i < 1 || len->i > INT32_MAX || start->i < INT32_MIN ||
        start->i > (int64_t)INT32_MAX - len->i + 1)
        return fail(v, op, "'simt.tile_index' range of %lld elements from %lld does not fit in i32",
                    (long long)len->i, (long long)start->i);
    ir_type r = result_type(v, op, 0);
    if (r.kind != TY_VEC || r.ptr_elem || r.dtype != DT_I32)
        return fail(v, op, "'simt.tile_index' result type %s must be vector<Vxi32>", TY(r, a));
    if (len->i % r.len != 0 || len->i / r.len > v->num_threads)
        return fail(v, op, "'simt.tile_index' result type %s does not hold a share of a tile of %lld "
                    "elements over %lld threads (V must divide len and len / V <= num_threads)",
                    TY(r, a), (long long)len->i, (long long)v->num_threads);
    return true;
}

/* simt.load / simt.store: as sw.load / sw.store on vectors, plus `vec`. */
static bool check_simt_mem(verifier *v, const ir_op *op)
{
    char a[64];
    if (!(op->kind == IR_SIMT_LOAD ? check_load(v, op) : check_store(v, op)))
        return false;
    ir_type ptr = operand_type(v, op, 0);
    const ir_attr *vec = int_attr(op, "vec");
    if (!vec || !is_pow2(vec->i) || ir_simt_chunk(ptr.len) % vec->i != 0)
        return fail(v, op, "'%s' needs an integer attribute 'vec': a power of two that divides the "
                    "layout chunk (min(V, 4) slots) of %s", name_of(op), TY(ptr, a));
    static const char *const slots[] = {"first", "last", NULL};
    if (ir_attr_get(op, "vec_mask") &&
        (!str_attr_in(op, "vec_mask", slots) || vec->i < 2 || op->noperands != 3))
        return fail(v, op, "'%s' attribute 'vec_mask' must be \"first\" or \"last\", on a masked "
                    "access with vec > 1", name_of(op));
    const ir_attr *all = ir_attr_get(op, "vec_all");
    if (all && (all->kind != ATTR_BOOL || vec->i < 2 || (op->noperands == 3 && !ir_attr_get(op, "vec_mask"))))
        return fail(v, op, "'%s' attribute 'vec_all' must be a bool, on an access with vec > 1 (masked: "
                    "with vec_mask)", name_of(op));
    return true;
}

static bool check_vreduce(verifier *v, const ir_op *op)
{
    static const char *const kinds[] = {"sum", "max", "min", "prod", NULL};
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (x.kind != TY_VEC || x.ptr_elem)
        return fail(v, op, "'simt.vreduce' operand type %s must be a vector of numbers", TY(x, a));
    if (!ir_type_eq(r, ir_type_elem(x)))
        return fail(v, op, "'simt.vreduce' result type %s must be the element type of %s", TY(r, a),
                    TY(x, b));
    if (!str_attr_in(op, "kind", kinds))
        return fail(v, op, "'simt.vreduce' needs a string attribute 'kind': sum, max, min or prod");
    return true;
}

/* simt.vslots {slots}: K slot indices of the operand vector, each in
 * 0..V-1, give vector<KxT>. */
static bool check_vslots(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    if (x.kind != TY_VEC || r.kind != TY_VEC || !ir_type_eq(ir_type_elem(x), ir_type_elem(r)))
        return fail(v, op, "'simt.vslots' takes a vector to a vector of its element type, got %s to %s",
                    TY(x, a), TY(r, b));
    const ir_attr *slots = ir_attr_get(op, "slots");
    int32_t *buf = malloc(sizeof(int32_t) * (size_t)(r.len > 0 ? r.len : 1));
    int32_t n = buf && slots && slots->kind == ATTR_STR ? ir_parse_slots(slots->s, x.len, buf, r.len) : -1;
    free(buf);
    if (n != r.len)
        return fail(v, op, "'simt.vslots' needs a string attribute 'slots' of %d slot indices in 0..%d",
                    (int)r.len, (int)x.len - 1);
    return true;
}

/* simt.shfl_xor {offset, width} / simt.shfl_idx {lane, width}: a 32- or
 * 64-bit scalar (or each slot of a vector of them) exchanged within
 * aligned groups of `width` lanes (a power of two, at most a warp; default
 * 32 for shfl_xor). */
static bool check_shuffle(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    bool xor = op->kind == IR_SIMT_SHFL_XOR || op->kind == IR_SIMT_SHFL_UP;
    ir_type x = operand_type(v, op, 0), r = result_type(v, op, 0);
    const ir_attr *width = int_attr(op, "width");
    if ((width || !xor) && (!width || !is_pow2(width->i) || width->i > 32))
        return fail(v, op, "'%s' needs an integer attribute 'width': a power of two in 1..32%s",
                    name_of(op), xor ? " (or none, for 32)" : "");
    int64_t w = width ? width->i : 32;
    const ir_attr *lane = int_attr(op, xor ? "offset" : "lane");
    if (xor && (!lane || lane->i < 1 || lane->i >= w || lane->i > 16))
        return fail(v, op, "'%s' needs an integer attribute 'offset' in 1..16, less than "
                    "its width %lld", name_of(op), (long long)w);
    if (!xor && (!lane || lane->i < 0 || lane->i >= w))
        return fail(v, op, "'simt.shfl_idx' needs an integer attribute 'lane' in 0..width-1 (%lld)",
                    (long long)(w - 1));
    if ((x.kind != TY_SCALAR && x.kind != TY_VEC) || x.ptr_elem ||
        (ir_dtypes[x.dtype].bits != 32 && ir_dtypes[x.dtype].bits != 64 && x.dtype != DT_F16 &&
         x.dtype != DT_BF16))
        return fail(v, op, "'%s' operand type %s must be a 32- or 64-bit scalar, f16 or bf16 (or a "
                    "vector of them)", name_of(op), TY(x, a));
    if (!ir_type_eq(r, x))
        return fail(v, op, "'%s' result type %s does not match its operand type %s", name_of(op),
                    TY(r, a), TY(x, b));
    return true;
}

/* simt.shfl_lane: a 32-bit scalar (or each slot of a vector of them) from
 * the lane its i32 lane operand names (mod 32), of the same shape. */
static bool check_shuffle_lane(verifier *v, const ir_op *op)
{
    char a[64], b[64];
    ir_type x = operand_type(v, op, 0), lane = operand_type(v, op, 1), r = result_type(v, op, 0);
    if ((x.kind != TY_SCALAR && x.kind != TY_VEC) || x.ptr_elem || ir_dtypes[x.dtype].bits != 32)
        return fail(v, op, "'simt.shfl_lane' operand type %s must be a 32-bit scalar (or a vector of them)",
                    TY(x, a));
    if (lane.ptr_elem || lane.dtype != DT_I32 || lane.kind != x.kind || (x.kind == TY_VEC && lane.len != x.len))
        return fail(v, op, "'simt.shfl_lane' lane type %s must be i32 in the shape of %s", TY(lane, a),
                    TY(x, b));
    if (!ir_type_eq(r, x))
        return fail(v, op, "'simt.shfl_lane' result type %s does not match its operand type %s", TY(r, a),
                    TY(x, b));
    return true;
}

/* simt.smem_store / simt.smem_load: an i32 index, a scalar element, and a
 * byte offset aligned to the element whose first element lies inside the
 * function's simt.smem_bytes. */
static bool check_smem(verifier *v, const ir_op *op)
{
    char a[64];
    bool store = op->kind == IR_SIMT_SMEM_STORE;
    if (store && op->noperands != 2 && op->noperands != 3)
        return fail(v, op, "'simt.smem_store' takes 2 operands (index, value) or 3 (index, value, "
                    "mask), got %d", (int)op->noperands);
    /* Scalars, or vectors of one length V (one access per slot). */
    ir_type index = operand_type(v, op, 0);
    ir_type shape = index.kind == TY_VEC ? ir_type_vec(DT_I32, index.len) : ir_type_scalar(DT_I32);
    if (!ir_type_eq(index, shape))
        return fail(v, op, "'%s' index type %s must be i32 or vector<Vxi32>", name_of(op), TY(index, a));
    ir_type elem = store ? operand_type(v, op, 1) : result_type(v, op, 0);
    if (elem.ptr_elem || !ir_type_eq(elem, ir_type_like(shape, ir_type_scalar(elem_dtype(elem)))))
        return fail(v, op, "'%s' %s type %s must be a number of the index's shape", name_of(op),
                    store ? "value" : "result", TY(elem, a));
    if (store && op->noperands == 3 &&
        !ir_type_eq(operand_type(v, op, 2), ir_type_like(shape, ir_type_scalar(DT_I1))))
        return fail(v, op, "'simt.smem_store' mask type %s must be i1 of the index's shape",
                    TY(operand_type(v, op, 2), a));
    const ir_attr *off = int_attr(op, "offset");
    int bytes = ir_dtypes[elem.dtype].bytes;
    if (!off || off->i < 0 || off->i % bytes != 0)
        return fail(v, op, "'%s' needs an integer attribute 'offset' >= 0, a multiple of %d (the size "
                    "of %s)", name_of(op), bytes, TY(elem, a));
    if (off->i > v->smem_bytes - bytes)
        return fail(v, op, "'%s' offset %lld addresses past the function's simt.smem_bytes = %lld",
                    name_of(op), (long long)off->i, (long long)v->smem_bytes);
    return true;
}

/* The two levels do not mix: a SIMT function holds no tiles and none of
 * the semantic ops that speak of whole tiles or the grid; a semantic
 * function holds no vectors and no simt.* op. */
static bool is_simt_op(ir_op_kind k) { return !strncmp(ir_ops[k].name, "simt.", 5); }

static bool check_level_op(verifier *v, const ir_op *op)
{
    if (v->simt) {
        switch (op->kind) {
        case IR_PROGRAM_ID:
        case IR_NUM_PROGRAMS:
        case IR_ARANGE:
        case IR_LOAD:
        case IR_STORE:
        case IR_REDUCE:
        case IR_SCAN:
        case IR_REDUCE_FN:
        case IR_HISTOGRAM:
        case IR_GATHER:
        case IR_SEGMENTED_REDUCE:
        case IR_SEGMENT_INDEX:
        case IR_ATOMIC_RMW:
        case IR_ATOMIC_CAS:
        case IR_FENCE:
        case IR_BARRIER:
        case IR_PRINT:
        case IR_BROADCAST:
        case IR_RESHAPE:
        case IR_TRANS:
        case IR_SPLIT:
        case IR_SEGMENT_ID:
        case IR_SEGMENT:
        case IR_SEGMENT_LENGTH:
        case IR_LOAD_SEGMENT:
        case IR_STORE_SEGMENT:
            return fail(v, op, "'%s' is a semantic op; it cannot appear in a SIMT function "
                        "(one with simt.num_threads)", name_of(op));
        default: return true;
        }
    }
    if (is_simt_op(op->kind))
        return fail(v, op, "'%s' is a SIMT op; it may only appear in a function with the attribute "
                    "simt.num_threads", name_of(op));
    return true;
}

static bool check_level_type(verifier *v, const ir_op *op, ir_type t, const char *what, int i)
{
    char a[64];
    if (v->simt && t.kind == TY_TILE)
        return fail(v, op, "%s #%d of '%s' has the tile type %s; a SIMT function holds no tiles", what,
                    i, name_of(op), TY(t, a));
    if (!v->simt && t.kind == TY_VEC)
        return fail(v, op, "%s #%d of '%s' has the vector type %s; vectors belong to SIMT functions "
                    "(with simt.num_threads)", what, i, name_of(op), TY(t, a));
    return true;
}

/* func.func attributes of the SIMT level; sets the verifier's level. */
static bool check_func_level(verifier *v, const ir_op *op)
{
    const ir_attr *nt = ir_attr_get(op, "simt.num_threads"), *sm = ir_attr_get(op, "simt.smem_bytes");
    v->simt = nt != NULL;
    v->num_threads = 0;
    v->smem_bytes = 0;
    if (!nt) {
        if (sm)
            return fail(v, op, "'func.func' has simt.smem_bytes but no simt.num_threads");
        return true;
    }
    if (nt->kind != ATTR_INT || !is_pow2(nt->i) || nt->i < 32 || nt->i > 1024)
        return fail(v, op, "'func.func' attribute simt.num_threads must be an integer power of two "
                    "in 32..1024");
    if (sm && (sm->kind != ATTR_INT || sm->i < 0 || sm->i > INT32_MAX))
        return fail(v, op, "'func.func' attribute simt.smem_bytes must be an integer >= 0");
    v->num_threads = nt->i;
    v->smem_bytes = sm ? sm->i : 0;
    return true;
}

static bool check_func(verifier *v, const ir_op *op)
{
    char a[64];
    const ir_attr *sym = ir_attr_get(op, "sym_name");
    if (!sym || sym->kind != ATTR_STR || !sym->s)
        return fail(v, op, "'func.func' needs a string attribute 'sym_name'");
    if (op->parent != v->m->body)
        return fail(v, op, "'func.func' may only appear in the module body");
    if (!check_func_level(v, op) || !verify_func_stages(v, op))
        return false;
    const ir_block *body = op->regions[0];
    for (int i = 0; i < body->nargs; i++) {
        ir_type t = ir_value_type(v->m, body->args[i]);
        if (t.kind != TY_SCALAR && t.kind != TY_PTR)
            return fail(v, op, "'func.func' parameter #%d has type %s; parameters are scalars or pointers",
                        i, TY(t, a));
    }
    return true;
}

/* Type rules that need only the op itself (not its regions' contents). */
static bool check_types(verifier *v, const ir_op *op)
{
    unsigned flags = ir_ops[op->kind].flags;
    switch (op->kind) {
    case IR_FUNC: return check_func(v, op);
    case IR_RETURN:
    case IR_YIELD: return true; /* placement: verify_block; yield types: check_yield */
    case IR_FOR: return check_for(v, op);
    case IR_WHILE: return check_while(v, op);
    case IR_IF: return check_if(v, op);
    case IR_CONSTANT: return check_constant(v, op);
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: return check_grid_query(v, op) && verify_program_kind(v, op);
    case IR_ARANGE: return check_arange(v, op);
    case IR_SPLAT: return check_splat(v, op);
    case IR_CAST: return check_cast(v, op);
    case IR_BITCAST: return check_bitcast(v, op);
    case IR_ADDPTR: return check_addptr(v, op);
    case IR_LOAD: return check_load(v, op);
    case IR_STORE: return check_store(v, op);
    case IR_ATOMIC_RMW:
    case IR_ATOMIC_CAS:
    case IR_SIMT_ATOMIC_RMW:
    case IR_SIMT_ATOMIC_CAS: return verify_atomic(v, op);
    case IR_FENCE:
    case IR_BARRIER:
    case IR_SIMT_FENCE: return true;
    case IR_PRINT:
    case IR_SIMT_PRINT:
        for (int i = 0; i < op->noperands; i++)
            if (is_ptr_elem(operand_type(v, op, i)))
                return fail(v, op, "'%s' prints numbers, not pointers", name_of(op));
        return true;
    case IR_CMP: return check_cmp(v, op);
    case IR_SELECT: return check_select(v, op);
    case IR_REDUCE: return verify_reduce(v, op);
    case IR_BROADCAST:
    case IR_RESHAPE:
    case IR_TRANS: return verify_shape_op(v, op);
    case IR_SPLIT: return verify_split(v, op);
    case IR_SCAN:
    case IR_REDUCE_FN:
    case IR_HISTOGRAM:
    case IR_GATHER:
    case IR_SEGMENTED_REDUCE:
    case IR_SEGMENT_INDEX: return verify_scan_op(v, op);
    case IR_SEGMENT_ID: return verify_segment_id(v, op);
    case IR_SEGMENT: return verify_segment(v, op);
    case IR_SEGMENT_LENGTH: return verify_segment_length(v, op);
    case IR_LOAD_SEGMENT: return verify_load_segment(v, op);
    case IR_STORE_SEGMENT: return verify_store_segment(v, op);
    case IR_SIMT_THREAD_ID: return check_thread_id(v, op);
    case IR_SIMT_BLOCK_ID:
    case IR_SIMT_GRID_DIM: return check_grid_query(v, op);
    case IR_SIMT_TILE_INDEX: return check_tile_index(v, op);
    case IR_SIMT_LOAD:
    case IR_SIMT_STORE: return check_simt_mem(v, op);
    case IR_SIMT_VREDUCE: return check_vreduce(v, op);
    case IR_SIMT_VSLOTS: return check_vslots(v, op);
    case IR_SIMT_SHFL_XOR:
    case IR_SIMT_SHFL_UP:
    case IR_SIMT_SHFL_IDX: return check_shuffle(v, op);
    case IR_SIMT_SHFL_LANE: return check_shuffle_lane(v, op);
    case IR_SIMT_SMEM_STORE:
    case IR_SIMT_SMEM_LOAD: return check_smem(v, op);
    case IR_SIMT_BARRIER:
    case IR_SIMT_WARP_BARRIER: return true;
    default: break;
    }
    if (op->kind == IR_DIV || op->kind == IR_EXP) {
        const ir_attr *approx = ir_attr_get(op, "approx");
        if (approx && approx->kind != ATTR_BOOL)
            return fail(v, op, "'%s' attribute 'approx' must be a bool", name_of(op));
    }
    if ((flags & F_ELEM) && ir_ops[op->kind].noperands == 1)
        return check_unary(v, op);
    if ((flags & F_ELEM) && (ir_ops[op->kind].noperands == 2 || ir_ops[op->kind].noperands == 3))
        return check_same_types(v, op, ir_ops[op->kind].noperands);
    sw_unreachable(v->d, "no verifier rule for '%s'", name_of(op));
    return false;
}

/* ---- structure -------------------------------------------------------------- */

static bool count_ok(verifier *v, const ir_op *op, const char *what, int want, int got)
{
    if (want == VAR || want == got)
        return true;
    return fail(v, op, "'%s' takes %d %s%s, got %d", name_of(op), want, what, want == 1 ? "" : "s", got);
}

static bool verify_op(verifier *v, const ir_op *op);

/* The last op of a block, and who may end it: func bodies end in
 * func.return, sw.for/sw.if regions in sw.yield. */
static bool check_terminator(verifier *v, const ir_block *b, const ir_op *parent, int r)
{
    ir_op_kind want = parent->kind == IR_FUNC ? IR_RETURN : IR_YIELD;
    if (!b->last || b->last->kind != want) {
        static const char *const region[] = {"then region", "else region"};
        const char *where = parent->kind == IR_IF ? region[r & 1] : "body";
        return fail(v, b->last ? b->last : parent, "the %s of '%s' must end with '%s'", where,
                    name_of(parent), ir_ops[want].name);
    }
    return true;
}

static bool verify_block(verifier *v, const ir_block *b, const ir_op *parent)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->parent != b)
            return fail(v, op, "malformed IR: '%s' is not linked to the block that holds it", name_of(op));
        if ((unsigned)op->kind >= IR_OP_COUNT)
            return fail(v, op, "malformed IR: unknown op kind %d", (int)op->kind);
        if (!parent && op->kind != IR_FUNC)
            return fail(v, op, "the module body may only hold 'func.func' ops, found '%s'", name_of(op));
        if ((ir_ops[op->kind].flags & F_TERM) && op->next)
            return fail(v, op, "'%s' must be the last op of its block", name_of(op));
        if (op->kind == IR_YIELD &&
            (!parent || (parent->kind != IR_FOR && parent->kind != IR_IF && parent->kind != IR_WHILE &&
                         parent->kind != IR_SCAN && parent->kind != IR_REDUCE_FN)))
            return fail(v, op, "'sw.yield' may only end the region of a 'sw.for', 'sw.while', "
                        "'sw.if', 'sw.scan' or 'sw.reduce_fn'");
        if (op->kind == IR_RETURN && (!parent || parent->kind != IR_FUNC))
            return fail(v, op, "'func.return' may only end the body of a 'func.func'");
        if (!verify_op(v, op))
            return false;
    }
    return true;
}

static bool verify_operands(verifier *v, const ir_op *op)
{
    for (int i = 0; i < op->noperands; i++) {
        ir_value x = op->operands[i];
        if (x < 0 || x >= v->m->nvalues)
            return fail(v, op, "malformed IR: operand #%d of '%s' is not a value", i, name_of(op));
        if (v->state[x] & VISIBLE)
            continue;
        if (v->state[x] & DEFINED)
            return fail(v, op, "operand #%d of '%s' is defined inside a region that has ended; "
                        "it is not visible here", i, name_of(op));
        return fail(v, op, "operand #%d of '%s' is used before it is defined", i, name_of(op));
    }
    return true;
}

static bool verify_results(verifier *v, const ir_op *op)
{
    for (int i = 0; i < op->nresults; i++) {
        ir_value x = op->results[i];
        char a[64];
        if (x < 0 || x >= v->m->nvalues || v->m->values[x].def != op || v->m->values[x].index != i)
            return fail(v, op, "malformed IR: result #%d of '%s' does not belong to it", i, name_of(op));
        if (!type_ok(v->m->values[x].type))
            return fail(v, op, "result #%d of '%s' has an invalid type (%s)", i, name_of(op),
                        TY(v->m->values[x].type, a));
        if (!check_level_type(v, op, v->m->values[x].type, "result", i))
            return false;
    }
    return true;
}

static bool verify_region(verifier *v, const ir_op *op, int r)
{
    char a[64];
    const ir_block *b = op->regions[r];
    int32_t mark = v->nscope;
    for (int i = 0; i < b->nargs; i++) {
        ir_value x = b->args[i];
        if (x < 0 || x >= v->m->nvalues || v->m->values[x].arg_of != b || v->m->values[x].index != i)
            return fail(v, op, "malformed IR: argument #%d of region #%d of '%s' does not belong to it", i,
                        r, name_of(op));
        if (!type_ok(v->m->values[x].type))
            return fail(v, op, "argument #%d of region #%d of '%s' has an invalid type (%s)", i, r,
                        name_of(op), TY(v->m->values[x].type, a));
        if (!check_level_type(v, op, v->m->values[x].type, "argument", i))
            return false;
        if (verify_is_segment_type(v->m->values[x].type))
            return fail(v, op, "argument #%d of region #%d of '%s' has the segment type %s: segment "
                        "data never crosses 'sw.for' or 'sw.if' boundaries", i, r, name_of(op),
                        TY(v->m->values[x].type, a));
        if (!define_value(v, op, x))
            return false;
    }
    if (!verify_block(v, b, op) || !check_terminator(v, b, op, r))
        return false;
    pop_scope(v, mark);
    return true;
}

/* Number attributes carry a scalar type of their own kind (none means i64
 * or f64), so that their text reads back as the same attribute. */
static bool check_attrs(verifier *v, const ir_op *op)
{
    char a[64];
    for (int i = 0; i < op->nattrs; i++) {
        const ir_attr *at = &op->attrs[i];
        const char *name = at->name ? at->name : "";
        bool untyped = at->type.kind == TY_VOID;
        bool scalar = at->type.kind == TY_SCALAR && type_ok(at->type);
        switch (at->kind) {
        case ATTR_INT:
            if (!untyped && !(scalar && ir_dtype_is_int(elem_dtype(at->type))))
                return fail(v, op, "'%s' attribute '%s' is an integer of type %s; integers need an integer type",
                            name_of(op), name, TY(at->type, a));
            break;
        case ATTR_FLOAT:
            if (!untyped && !(scalar && ir_dtype_is_float(elem_dtype(at->type))))
                return fail(v, op, "'%s' attribute '%s' is a float of type %s; floats need a float type",
                            name_of(op), name, TY(at->type, a));
            break;
        case ATTR_STR:
        case ATTR_BOOL:
        case ATTR_TYPE: break;
        default: return fail(v, op, "malformed IR: '%s' attribute '%s' has no kind", name_of(op), name);
        }
    }
    return true;
}

static bool verify_op(verifier *v, const ir_op *op)
{
    const ir_op_info *info = &ir_ops[op->kind];
    if (!count_ok(v, op, "operand", info->noperands, op->noperands) ||
        !count_ok(v, op, "result", info->nresults, op->nresults) ||
        !count_ok(v, op, "region", info->nregions, op->nregions))
        return false;
    for (int r = 0; r < op->nregions; r++)
        if (!op->regions[r] || op->regions[r]->parent_op != op)
            return fail(v, op, "malformed IR: region #%d of '%s' does not belong to it", r, name_of(op));
    if (!verify_operands(v, op) || !verify_results(v, op) || !check_attrs(v, op) ||
        !verify_segment_flow(v, op) || !check_types(v, op) || !check_level_op(v, op) ||
        !verify_op_stage(v, op))
        return false;
    for (int r = 0; r < op->nregions; r++)
        if (!verify_region(v, op, r))
            return false;
    if (op->kind == IR_FOR || op->kind == IR_IF || op->kind == IR_WHILE)
        for (int r = 0; r < op->nregions; r++)
            if (!check_yield(v, op, r))
                return false;
    if ((op->kind == IR_SCAN || op->kind == IR_REDUCE_FN) && !verify_combine_region(v, op))
        return false;
    for (int i = 0; i < op->nresults; i++)
        if (!define_value(v, op, op->results[i]))
            return false;
    return true;
}

bool ir_verify(const ir_module *m, diag *d)
{
    verifier v = {.m = m, .d = d};
    v.state = calloc((size_t)(m->nvalues > 0 ? m->nvalues : 1), 1);
    if (!v.state) {
        diag_error(d, DIAG_NOMEM, "out of memory while verifying the IR");
        return false;
    }
    bool ok = !m->body || verify_block(&v, m->body, NULL);
    free(v.state);
    free(v.scope);
    return ok;
}
