/* fold.c - requires verified IR; guarantees verified IR of the same meaning, types unchanged, with constants folded and constant control flow inlined.
 *
 * No foldable pure op is left with only constant operands, no sw.if with a
 * constant condition, no sw.for with a known trip count of 0 or 1. Ops it
 * replaces are unlinked; the constants they used may be left for dce. */
#include "passes.h"

#include "../ir/scalar.h"
#include "../support/checked.h"

#include <string.h>

/* Every rewrite removes one non-constant op and adds none, so the number of
 * rounds is bounded by the op count; this cap only catches a bug. */
enum { FOLD_MAX_ROUNDS = 100000 };

typedef struct folder {
    ir_module *m;
    diag *d;
    bool changed;
} folder;

/* ---- constants -------------------------------------------------------- */

/* Reads v as a constant scalar (a scalar constant or a splat tile); pointer
 * values are never constants. */
static bool const_of(const ir_module *m, ir_value v, ir_scalar *out)
{
    const ir_attr *a;
    if (!ir_value_constant(m, v, &a))
        return false;
    ir_type t = ir_value_type(m, v);
    if (ir_type_is_ptrlike(t) || t.kind == TY_VOID)
        return false;
    if (a->kind != ATTR_INT && a->kind != ATTR_FLOAT && a->kind != ATTR_BOOL)
        return false;
    *out = ir_scalar_from_attr((ir_dtype)t.dtype, a);
    return true;
}

static ir_dtype elem_dtype(const ir_module *m, ir_value v)
{
    return (ir_dtype)ir_value_type(m, v).dtype;
}

static bool is_float_value(const ir_module *m, ir_value v)
{
    ir_type t = ir_value_type(m, v);
    return !ir_type_is_ptrlike(t) && ir_dtype_is_float((ir_dtype)t.dtype);
}

static bool is_int_value(const ir_module *m, ir_value v)
{
    ir_type t = ir_value_type(m, v);
    return !ir_type_is_ptrlike(t) && ir_dtype_is_int((ir_dtype)t.dtype);
}

/* v is an integer constant equal to `want` wrapped to v's dtype (so -1 is
 * all ones in every width, 255 for ui8, 1 for i1). */
static bool is_int_const(const ir_module *m, ir_value v, int64_t want)
{
    ir_scalar s;
    if (!is_int_value(m, v) || !const_of(m, v, &s))
        return false;
    return s.i == ir_scalar_from_int(elem_dtype(m, v), want).i;
}

/* v is a float constant with exactly the bits of `want` (so -0.0 and 0.0
 * differ). */
static bool is_float_const(const ir_module *m, ir_value v, double want)
{
    ir_scalar s;
    if (!is_float_value(m, v) || !const_of(m, v, &s))
        return false;
    return memcmp(&s.f, &want, sizeof want) == 0;
}

/* Creates sw.constant of type t (a scalar, or a tile meaning a splat) with
 * value s, right before pos. */
static ir_value make_const(folder *f, ir_op *pos, ir_type t, ir_scalar s)
{
    ir_op *c = ir_op_create(f->m, IR_CONSTANT, pos->loc, NULL, 0, &t, 1, 0);
    ir_dtype dt = (ir_dtype)t.dtype;
    ir_type attr_type = ir_type_scalar(dt);
    if (dt == DT_I1)
        ir_attr_set_bool(f->m, c, "value", s.i != 0);
    else if (ir_dtype_is_float(dt))
        ir_attr_set_float(f->m, c, "value", attr_type, s.f);
    else
        ir_attr_set_int(f->m, c, "value", attr_type, s.i);
    ir_insert_before(pos, c);
    return c->results[0];
}

/* Replaces op's single result by v and unlinks op. */
static void replace_op(folder *f, ir_op *op, ir_value v)
{
    ir_replace_all_uses(f->m, op->results[0], v);
    ir_op_erase(f->m, op);
    f->changed = true;
}

/* ---- folding ops whose operands are constants --------------------------- */

static bool is_unary(const ir_op *op)
{
    const ir_op_info *info = &ir_ops[op->kind];
    return (info->flags & F_ELEM) && (info->flags & F_PURE) && info->noperands == 1 &&
           op->kind != IR_CAST && op->kind != IR_BITCAST;
}

static bool is_binary(const ir_op *op)
{
    const ir_op_info *info = &ir_ops[op->kind];
    return (info->flags & F_ELEM) && (info->flags & F_PURE) && info->noperands == 2 &&
           op->kind != IR_CMP && op->kind != IR_ADDPTR;
}

/* Evaluates op when all its operands are constants; the result keeps op's
 * result type (a folded tile stays a splat tile constant). */
static bool fold_constant_operands(folder *f, ir_op *op)
{
    ir_module *m = f->m;
    if (op->nresults != 1 || op->noperands < 1)
        return false;
    ir_type rt = ir_value_type(m, op->results[0]);
    if (ir_type_is_ptrlike(rt))
        return false;
    ir_scalar a, b, r;
    if (!const_of(m, op->operands[0], &a))
        return false;
    ir_dtype dt = elem_dtype(m, op->operands[0]);

    if (is_unary(op)) {
        if (!ir_eval_unary(op->kind, dt, a, &r))
            return false;
    } else if (is_binary(op)) {
        if (!const_of(m, op->operands[1], &b) || !ir_eval_binary(op->kind, dt, a, b, &r))
            return false;
    } else if (ir_ops[op->kind].noperands == 3 && (ir_ops[op->kind].flags & F_ELEM) &&
               op->kind != IR_SELECT) {
        ir_scalar c;
        if (!const_of(m, op->operands[1], &b) || !const_of(m, op->operands[2], &c) ||
            !ir_eval_ternary(op->kind, dt, a, b, c, &r))
            return false;
    } else if (op->kind == IR_CMP) {
        const ir_attr *pred = ir_attr_get(op, "predicate");
        if (!pred || pred->kind != ATTR_STR || !const_of(m, op->operands[1], &b))
            return false;
        int c = ir_eval_cmp(pred->s, dt, a, b);
        if (c < 0)
            return false;
        r.i = c;
    } else if (op->kind == IR_CAST) {
        r = ir_eval_cast(dt, (ir_dtype)rt.dtype, a);
    } else if (op->kind == IR_BITCAST) {
        r = ir_eval_bitcast(dt, (ir_dtype)rt.dtype, a);
    } else if (op->kind == IR_SPLAT) {
        if (rt.dtype != dt)
            return false;
        r = a;
    } else if (op->kind == IR_REDUCE) {
        if (ir_value_type(m, op->operands[0]).kind == TY_SEGVAL)
            return false; /* an empty segment reduces to the identity, not the constant */
        /* Only max and min: combining a value with itself is exact, while a
         * sum or product of a splat would round at every step. */
        const ir_attr *kind = ir_attr_get(op, "kind");
        if (!kind || kind->kind != ATTR_STR || (strcmp(kind->s, "max") && strcmp(kind->s, "min")))
            return false;
        if (!ir_eval_reduce_identity(kind->s, dt, &r) ||
            !ir_eval_reduce_combine(kind->s, dt, r, a, &r))
            return false;
    } else {
        return false;
    }
    replace_op(f, op, make_const(f, op, rt, r));
    return true;
}

/* ---- algebraic simplification -------------------------------------------- */

/* The value op simplifies to without new ops, or IR_NO_VALUE. Only
 * identities that hold for every input, NaN and -0.0 included. */
static ir_value simplify_to_operand(const ir_module *m, const ir_op *op)
{
    if (op->nresults != 1)
        return IR_NO_VALUE;
    ir_value x = op->operands[0];
    ir_value y = op->noperands > 1 ? op->operands[1] : IR_NO_VALUE;
    bool ints = is_int_value(m, x);
    bool floats = is_float_value(m, x);
    const ir_op *xdef = m->values[x].def;

    switch (op->kind) {
    case IR_ADD:
        /* x + 0.0 is not x when x is -0.0, but x + -0.0 is always x. */
        if ((ints && is_int_const(m, y, 0)) || (floats && is_float_const(m, y, -0.0)))
            return x;
        if ((ints && is_int_const(m, x, 0)) || (floats && is_float_const(m, x, -0.0)))
            return y;
        break;
    case IR_SUB:
        if ((ints && is_int_const(m, y, 0)) || (floats && is_float_const(m, y, 0.0)))
            return x;
        break;
    case IR_MUL:
        if ((ints && is_int_const(m, y, 1)) || (floats && is_float_const(m, y, 1.0)))
            return x;
        if ((ints && is_int_const(m, x, 1)) || (floats && is_float_const(m, x, 1.0)))
            return y;
        if (ints && is_int_const(m, y, 0))
            return y;
        if (ints && is_int_const(m, x, 0))
            return x;
        break;
    case IR_DIV:
        if (floats && is_float_const(m, y, 1.0))
            return x;
        break;
    case IR_FLOORDIV:
    case IR_IDIV:
        if (ints && is_int_const(m, y, 1))
            return x;
        break;
    case IR_MINIMUM:
    case IR_MAXIMUM:
        /* Integers only: on floats min(NaN, NaN) is the canonical NaN, not
         * x's bits, and a store would show the difference. */
        if (ints && x == y)
            return x;
        break;
    case IR_AND:
        if (x == y || is_int_const(m, y, -1))
            return x;
        if (is_int_const(m, x, -1))
            return y;
        if (is_int_const(m, y, 0))
            return y;
        if (is_int_const(m, x, 0))
            return x;
        break;
    case IR_OR:
        if (x == y || is_int_const(m, y, 0))
            return x;
        if (is_int_const(m, x, 0))
            return y;
        if (is_int_const(m, y, -1))
            return y;
        if (is_int_const(m, x, -1))
            return x;
        break;
    case IR_XOR:
        if (is_int_const(m, y, 0))
            return x;
        if (is_int_const(m, x, 0))
            return y;
        break;
    case IR_SHL:
    case IR_SHR:
        if (is_int_const(m, y, 0))
            return x;
        break;
    case IR_SELECT: {
        ir_value a = op->operands[1], b = op->operands[2];
        ir_scalar c;
        if (a == b)
            return a;
        if (const_of(m, x, &c))
            return c.i ? a : b;
        /* select(c, true, false) is c when c already has the result's shape. */
        if (elem_dtype(m, a) == DT_I1 && !ir_type_is_ptrlike(ir_value_type(m, a)) &&
            is_int_const(m, a, 1) && is_int_const(m, b, 0))
            return x;
        break;
    }
    case IR_NEG:
    case IR_NOT:
        /* -(-x) is x in wrapping integers and in floats alike. */
        if (xdef && xdef->kind == op->kind)
            return xdef->operands[0];
        break;
    case IR_ABS:
        if (xdef && xdef->kind == IR_ABS)
            return x;
        break;
    case IR_CAST:
        return x;
    case IR_ADDPTR:
        if (is_int_const(m, y, 0))
            return x;
        break;
    default:
        break;
    }
    return IR_NO_VALUE;
}

/* Simplifications whose result is a new constant. */
static bool simplify_to_constant(folder *f, ir_op *op)
{
    ir_module *m = f->m;
    if (op->nresults != 1 || op->noperands != 2)
        return false;
    ir_value x = op->operands[0], y = op->operands[1];
    ir_type rt = ir_value_type(m, op->results[0]);
    bool ints = is_int_value(m, x);
    ir_scalar r = {0};

    switch (op->kind) {
    case IR_SUB:
    case IR_XOR:
        if (!ints || x != y) /* float x - x is NaN for inf and NaN */
            return false;
        r.i = 0;
        break;
    case IR_MOD:
        if (!ints || !is_int_const(m, y, 1))
            return false;
        r.i = 0;
        break;
    case IR_REM: {
        /* x rem 1 and x rem -1 are 0 for every x (MIN rem -1 included);
         * -1 of an unsigned dtype is its largest value, which is not. */
        bool unit = is_int_const(m, y, 1) ||
                    (!ir_dtype_is_unsigned(elem_dtype(m, y)) && is_int_const(m, y, -1));
        if (!ints || !unit)
            return false;
        r.i = 0;
        break;
    }
    case IR_CMP: {
        /* Floats are out: NaN == NaN is false. Pointers compare as addresses. */
        const ir_attr *pred = ir_attr_get(op, "predicate");
        if (x != y || is_float_value(m, x) || !pred || pred->kind != ATTR_STR)
            return false;
        if (!strcmp(pred->s, "eq") || !strcmp(pred->s, "le") || !strcmp(pred->s, "ge"))
            r.i = 1;
        else if (!strcmp(pred->s, "ne") || !strcmp(pred->s, "lt") || !strcmp(pred->s, "gt"))
            r.i = 0;
        else
            return false;
        break;
    }
    default:
        return false;
    }
    replace_op(f, op, make_const(f, op, rt, r));
    return true;
}

/* ---- structured control flow ---------------------------------------------- */

/* Moves every op of `body` but its terminator before `op`, then replaces
 * op's results by the terminator's operands and unlinks op. */
static void inline_region(folder *f, ir_op *op, ir_block *body)
{
    ir_op *term = body->last && body->last->kind == IR_YIELD ? body->last : NULL;
    if (term ? term->noperands != op->nresults : op->nresults != 0) {
        sw_unreachable(f->d, "%s region does not end in a matching sw.yield", ir_ops[op->kind].name);
        return;
    }
    for (ir_op *inner = body->first, *next; inner && inner != term; inner = next) {
        next = inner->next;
        ir_op_unlink(inner);
        ir_insert_before(op, inner);
    }
    for (int i = 0; i < op->nresults; i++)
        ir_replace_all_uses(f->m, op->results[i], term->operands[i]);
    ir_op_erase(f->m, op);
    f->changed = true;
}

static bool fold_if(folder *f, ir_op *op)
{
    ir_scalar c;
    if (op->noperands != 1 || !const_of(f->m, op->operands[0], &c))
        return false;
    inline_region(f, op, op->regions[c.i ? 0 : 1]);
    return true;
}

/* The loop is Python's range(lb, ub, step) (as the CPU executor runs it).
 * A step of 0 is a run-time error, which folding must keep. */
static bool fold_for(folder *f, ir_op *op)
{
    ir_module *m = f->m;
    ir_scalar lb, ub, step;
    if (op->noperands < 3 || !is_int_value(m, op->operands[0]) ||
        !const_of(m, op->operands[0], &lb) || !const_of(m, op->operands[1], &ub) ||
        !const_of(m, op->operands[2], &step) || step.i == 0)
        return false;
    int ncarried = op->noperands - 3;
    if (ncarried != op->nresults)
        return false;
    /* Python's len(range(lb, ub, step)), exact at the int64 limits (checked.h). */
    uint64_t trips = range_length(lb.i, ub.i, step.i);
    if (trips == 0) {
        for (int i = 0; i < ncarried; i++)
            ir_replace_all_uses(m, op->results[i], op->operands[3 + i]);
        ir_op_erase(m, op);
        f->changed = true;
        return true;
    }
    if (trips > 1)
        return false;
    ir_block *body = op->regions[0];
    if (body->nargs != ncarried + 1)
        return false;
    for (int i = 0; i < body->nargs; i++)
        if (!ir_type_eq(ir_value_type(m, body->args[i]), ir_value_type(m, op->operands[i == 0 ? 0 : 2 + i])))
            return false;
    ir_replace_all_uses(m, body->args[0], op->operands[0]);
    for (int i = 0; i < ncarried; i++)
        ir_replace_all_uses(m, body->args[1 + i], op->operands[3 + i]);
    inline_region(f, op, body);
    return true;
}

/* A while loop whose first condition is false runs no iteration. */
static bool fold_while(folder *f, ir_op *op)
{
    ir_scalar c;
    if (op->noperands < 1 || op->nresults != op->noperands - 1 ||
        !const_of(f->m, op->operands[0], &c) || c.i)
        return false;
    for (int i = 0; i < op->nresults; i++)
        ir_replace_all_uses(f->m, op->results[i], op->operands[1 + i]);
    ir_op_erase(f->m, op);
    f->changed = true;
    return true;
}

/* ---- driver --------------------------------------------------------------- */

static void fold_op(folder *f, ir_op *op)
{
    switch (op->kind) {
    case IR_IF: fold_if(f, op); return;
    case IR_FOR: fold_for(f, op); return;
    case IR_WHILE: fold_while(f, op); return;
    case IR_CONSTANT: return;
    default: break;
    }
    if (!(ir_ops[op->kind].flags & F_PURE) || op->nregions != 0)
        return;
    if (fold_constant_operands(f, op) || simplify_to_constant(f, op))
        return;
    ir_value v = simplify_to_operand(f->m, op);
    if (v != IR_NO_VALUE && ir_type_eq(ir_value_type(f->m, v), ir_value_type(f->m, op->results[0])))
        replace_op(f, op, v);
}

/* Folds nested regions first so that an inlined branch is already folded
 * when its ops land in the enclosing block. */
static void fold_block(folder *f, ir_block *b)
{
    for (ir_op *op = b->first, *next; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++)
            fold_block(f, op->regions[r]);
        fold_op(f, op);
    }
}

bool pass_fold(ir_module *m, diag *d)
{
    folder f = {.m = m, .d = d};
    int rounds = 0;
    do {
        f.changed = false;
        fold_block(&f, m->body);
        if (diag_failed(d))
            return false;
    } while (f.changed && ++rounds < FOLD_MAX_ROUNDS);
    if (f.changed) {
        sw_unreachable(d, "fold did not reach a fixed point");
        return false;
    }
    return true;
}
