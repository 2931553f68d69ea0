/* irgen_expr.c - lowers expressions: constant folding of compile-time
 * values, promotion and broadcasting of mixed operands, operators.
 * Requires a live irgen; guarantees every emitted op is well typed (or an
 * error was reported at the expression). */
#include "irgen_internal.h"
#include "../ir/scalar.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ig_type_name(ir_type t, char buf[64])
{
    if (t.kind == TY_SCALAR) {
        snprintf(buf, 64, "%s", ir_dtypes[t.dtype].py);
        return buf;
    }
    if (t.kind == TY_PTR) {
        snprintf(buf, 64, "pointer to %s", ir_dtypes[t.dtype].py);
        return buf;
    }
    if (t.kind == TY_TILE && t.rank >= 2) {
        char shape[64];
        snprintf(buf, 64, "tile of shape %s of %s%s", ig_shape_text(t, shape), t.ptr_elem ? "pointers to " : "",
                 ir_dtypes[t.dtype].py);
        return buf;
    }
    if (t.kind == TY_TILE) {
        if (t.ptr_elem)
            snprintf(buf, 64, "tile of %d pointers to %s", (int)t.len, ir_dtypes[t.dtype].py);
        else
            snprintf(buf, 64, "tile of %d %s elements", (int)t.len, ir_dtypes[t.dtype].py);
        return buf;
    }
    if (t.kind == TY_SEGMENT) {
        snprintf(buf, 64, "segment view of %s", ir_dtypes[t.dtype].py);
        return buf;
    }
    if (t.kind == TY_SEGVAL) {
        snprintf(buf, 64, "segment value of %s", ir_dtypes[t.dtype].py);
        return buf;
    }
    snprintf(buf, 64, "none");
    return buf;
}

static const char *op_text(ast_op op)
{
    switch (op) {
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_FLOORDIV: return "//";
    case OP_MOD: return "%";
    case OP_POW: return "**";
    case OP_BITAND: return "&";
    case OP_BITOR: return "|";
    case OP_BITXOR: return "^";
    case OP_SHL: return "<<";
    case OP_SHR: return ">>";
    case OP_MATMUL: return "@";
    case OP_NEG: return "-";
    case OP_POS: return "+";
    case OP_INVERT: return "~";
    case OP_NOT: return "not";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_IS: return "is";
    case OP_IS_NOT: return "is not";
    case OP_IN: return "in";
    case OP_NOT_IN: return "not in";
    case OP_AND: return "and";
    case OP_OR: return "or";
    default: return "?";
    }
}

/* ---- constants ---------------------------------------------------------- */

ir_type ig_const_type(const_value c)
{
    switch (c.kind) {
    case CONST_BOOL: return ir_type_scalar(DT_I1);
    case CONST_FLOAT: {
        /* float32, unless float32 would change the value beyond rounding
         * (overflow to inf, or below its normal range): then float64, as
         * Triton types a float constant. */
        double m = fabs(c.f);
        bool f32 = !isfinite(c.f) || m == 0 || (m >= 0x1p-126 && m <= 0x1.fffffep127);
        return ir_type_scalar(f32 ? DT_F32 : DT_F64);
    }
    case CONST_U64: return ir_type_scalar(DT_U64);
    case CONST_INT:
        /* As Triton types an integer literal: int32, uint32 from 2^31 to
         * 2^32-1, int64 beyond, uint64 from 2^63 to 2^64 - 1 (CONST_U64). */
        if (c.i >= INT32_MIN && c.i <= INT32_MAX)
            return ir_type_scalar(DT_I32);
        return ir_type_scalar(c.i > INT32_MAX && c.i <= (int64_t)UINT32_MAX ? DT_U32 : DT_I64);
    default: return ir_type_void();
    }
}

/* The largest finite value of a float dtype. */
static double float_max(ir_dtype dt)
{
    switch (dt) {
    case DT_F16: return 65504.0;
    case DT_BF16: return 0x1.fep127;
    case DT_F32: return 0x1.fffffep127;
    default: return DBL_MAX;
    }
}

/* An integer constant's value as Python prints it (a CONST_U64 unsigned). */
const char *ig_const_int_text(const_value c, char buf[48])
{
    if (c.kind == CONST_U64)
        snprintf(buf, 48, "%llu", (unsigned long long)(uint64_t)c.i);
    else
        snprintf(buf, 48, "%lld", (long long)c.i);
    return buf;
}

/* Whether the compile-time integer v (a Python int, held in int64) is a
 * value of dt: uint64 takes 0 .. 2^63-1 here, the values an int64 holds. */
static bool int_fits(ir_dtype dt, int64_t v)
{
    if (dt == DT_U64)
        return v >= 0;
    return ir_dtype_holds_int(dt, v);
}

ir_value ig_materialize(irgen *g, src_loc loc, const_value c, ir_type t)
{
    char b[64];
    if (c.kind == CONST_DTYPE) {
        ig_error(g, loc, "a dtype cannot be used as a value here");
        return IR_NO_VALUE;
    }
    ir_dtype dt = (ir_dtype)t.dtype;
    if (t.kind == TY_PTR || (t.kind == TY_TILE && t.ptr_elem) || t.kind == TY_SEGMENT) {
        ig_error(g, loc, "a constant cannot be used as a %s",
                 t.kind == TY_SEGMENT ? "segment view" : "pointer");
        return IR_NO_VALUE;
    }
    if (t.kind == TY_SEGVAL) {
        /* A segment-shaped constant is a scalar broadcast with sw.splat. */
        ir_value x = ig_materialize(g, loc, c, ir_type_scalar(dt));
        return x == IR_NO_VALUE ? x : ig_broadcast(g, loc, x, t);
    }
    ir_op *op = ig_emit(g, IR_CONSTANT, loc, NULL, 0, &t, 1);
    if (!op)
        return IR_NO_VALUE;
    ir_type et = ir_type_scalar(dt);
    if (ir_dtype_is_float(dt)) {
        /* Rounded once to dt; a finite value that would become inf is an
         * error, as an integer that does not fit is. */
        ir_scalar s = c.kind == CONST_FLOAT ? ir_scalar_from_float(dt, c.f)
                      : c.kind == CONST_U64 ? ir_scalar_from_uint(dt, (uint64_t)c.i)
                                            : ir_scalar_from_int(dt, c.i);
        if (isinf(s.f) && (c.kind != CONST_FLOAT || isfinite(c.f))) {
            char text[80], digits[48];
            if (c.kind == CONST_FLOAT)
                snprintf(text, sizeof text, "float constant %g", c.f);
            else
                snprintf(text, sizeof text, "constant %s", ig_const_int_text(c, digits));
            ig_error(g, loc, "the %s does not fit %s (its largest finite value is %g)", text,
                     ig_type_name(et, b), float_max(dt));
            return IR_NO_VALUE;
        }
        ir_attr_set_float(g->m, op, "value", et, s.f);
    } else if (c.kind == CONST_FLOAT) {
        ig_error(g, loc, "the float constant %g cannot become %s implicitly; use sl.cast", c.f,
                 ig_type_name(et, b));
        return IR_NO_VALUE;
    } else if (dt == DT_I1) {
        if (c.kind == CONST_U64 || !int_fits(dt, c.i)) {
            ig_error(g, loc, "the constant %s does not fit int1", ig_const_int_text(c, b));
            return IR_NO_VALUE;
        }
        ir_attr_set_bool(g->m, op, "value", c.i != 0);
    } else {
        /* a CONST_U64 (2^63 and up) fits only uint64, where its bits are
         * the attribute's value */
        if (c.kind == CONST_U64 ? dt != DT_U64 : !int_fits(dt, c.i)) {
            char text[48];
            ig_error(g, loc, "the constant %s does not fit %s", ig_const_int_text(c, text),
                     ig_type_name(et, b));
            return IR_NO_VALUE;
        }
        ir_attr_set_int(g->m, op, "value", et, c.i);
    }
    return op->results[0];
}

gval ig_from_const(irgen *g, const_value c, const char *name)
{
    switch (c.kind) {
    case CONST_STR: return (gval){.kind = GV_STR, .str = c.s, .note = name};
    case CONST_NONE: return (gval){.kind = GV_NONE, .note = name};
    case CONST_TUPLE: {
        gval *items = arena_alloc(g->ar, sizeof(gval) * (size_t)(c.nitems + 1));
        for (int i = 0; i < c.nitems; i++)
            items[i] = ig_from_const(g, c.items[i], name);
        return (gval){.kind = GV_TUPLE, .items = items, .nitems = c.nitems};
    }
    default: return (gval){.kind = GV_CONST, .c = c};
    }
}

bool ig_is_known(gval v)
{
    if (v.kind == GV_TUPLE) {
        for (int i = 0; i < v.nitems; i++)
            if (!ig_is_known(v.items[i]))
                return false;
        return true;
    }
    return v.kind == GV_CONST || v.kind == GV_STR || v.kind == GV_NONE;
}

const char *ig_known_text(irgen *g, gval v)
{
    switch (v.kind) {
    case GV_STR: {
        size_t n = strlen(v.str);
        const char *shown = n <= 40 ? arena_printf(g->ar, "'%s'", v.str)
                                    : arena_printf(g->ar, "'%.32s...' (%zu characters)", v.str, n);
        return v.note ? arena_printf(g->ar, "the string %s (the sl.constexpr '%s')", shown, v.note)
                      : arena_printf(g->ar, "the string %s", shown);
    }
    case GV_NONE: return v.note ? arena_printf(g->ar, "None (the sl.constexpr '%s')", v.note) : "None";
    case GV_TUPLE: return "a tuple";
    default: return "this value";
    }
}

ir_value ig_to_ir(irgen *g, src_loc loc, gval v, ir_type like)
{
    switch (v.kind) {
    case GV_IR: return v.v;
    case GV_CONST: {
        ir_type t = ig_const_type(v.c);
        if (like.kind != TY_VOID && !ir_type_is_ptrlike(like)) {
            ir_dtype dt = (ir_dtype)like.dtype;
            /* A float constant with an integer context takes its own type
             * (float32, or float64 outside float32's range). */
            if (v.c.kind == CONST_FLOAT && !ir_dtype_is_float(dt))
                dt = (ir_dtype)t.dtype;
            else if (v.c.kind == CONST_INT && dt == DT_I1)
                dt = DT_I32;
            else if (v.c.kind == CONST_U64 && dt == DT_I1)
                dt = DT_U64;
            t = ir_type_like(like, ir_type_scalar(dt));
        }
        if (t.kind == TY_VOID) {
            ig_error(g, loc, "a dtype cannot be used as a value here");
            return IR_NO_VALUE;
        }
        return ig_materialize(g, loc, v.c, t);
    }
    case GV_NONE:
        if (v.note)
            ig_error(g, loc, "None (the sl.constexpr '%s') cannot be used as a value here; test "
                             "it with 'is None' / 'is not None'", v.note);
        else
            ig_error(g, loc, "None cannot be used as a value here");
        return IR_NO_VALUE;
    case GV_STR:
        ig_error(g, loc, "%s cannot be used as a value here: strings are compile-time values, "
                         "only compared (==, !=, in) or passed to @sw.jit functions",
                 ig_known_text(g, v));
        return IR_NO_VALUE;
    case GV_MODULE: ig_error(g, loc, "the language module cannot be used as a value"); return IR_NO_VALUE;
    case GV_UNDEF: ig_error(g, loc, "%s", v.note); return IR_NO_VALUE;
    case GV_TUPLE:
        ig_error(g, loc, "a tuple cannot be used as a value here; unpack it (a, b = ...)");
        return IR_NO_VALUE;
    default: return IR_NO_VALUE;
    }
}

ir_value ig_cast(irgen *g, src_loc loc, ir_value v, ir_dtype dt)
{
    ir_type t = ir_value_type(g->m, v);
    if (t.dtype == dt && !ir_type_is_ptrlike(t))
        return v;
    if (ir_type_is_ptrlike(t)) {
        ig_error(g, loc, "pointers cannot be converted to %s", ir_dtypes[dt].py);
        return IR_NO_VALUE;
    }
    return ig_emit1(g, IR_CAST, loc, &v, 1, ir_type_like(t, ir_type_scalar(dt)));
}

static ir_value mix_error(irgen *g, src_loc loc)
{
    ig_error(g, loc, "a segment value cannot be combined with a tile (sl.arange, sl.full, or sl.load "
                     "through a tile of pointers): segments have a runtime length");
    return IR_NO_VALUE;
}

static int float_rank(ir_dtype dt)
{
    switch (dt) {
    case DT_F16: case DT_BF16: return 1;
    case DT_F32: return 2;
    case DT_F64: return 3;
    default: return 0;
    }
}

/* Triton's promotion (semantic.py, computation_type_impl and
 * integer_promote_impl): a float wins over an integer, the wider float
 * over the narrower (float16 with bfloat16 -> float32); int1 gives way to
 * any other type; two integers of one signedness -> the wider, of mixed
 * signedness -> the unsigned one if it is at least as wide as the signed
 * one, else the signed one (int32 + uint32 -> uint32, uint8 + int32 ->
 * int32, int8 + uint8 -> uint8). */
ir_dtype ig_promote(ir_dtype a, ir_dtype b)
{
    if (a == b)
        return a;
    if ((a == DT_F16 && b == DT_BF16) || (a == DT_BF16 && b == DT_F16))
        return DT_F32;
    if (ir_dtype_is_float(a) || ir_dtype_is_float(b))
        return float_rank(a) >= float_rank(b) ? a : b;
    if (a == DT_I1 || b == DT_I1)
        return a == DT_I1 ? b : a;
    int wa = ir_dtypes[a].bits, wb = ir_dtypes[b].bits;
    bool ua = ir_dtype_is_unsigned(a), ub = ir_dtype_is_unsigned(b);
    if (ua == ub)
        return wa >= wb ? a : b;
    if (ua)
        return wa >= wb ? a : b;
    return wb >= wa ? b : a;
}

/* Triton's _pick_sum_dtype, for sum/prod/cumsum with no dtype: integers
 * narrower than 32 bits widen to int32, or to uint32 when unsigned --
 * int1 among them, which Triton's dtype counts as unsigned (UINT_TYPES
 * holds int1), so the sum of an int1 tile is a uint32. */
ir_dtype ig_sum_dtype(ir_dtype dt)
{
    if (!ir_dtype_is_int(dt) || ir_dtypes[dt].bits >= 32)
        return dt;
    return dt == DT_I1 || ir_dtype_is_unsigned(dt) ? DT_U32 : DT_I32;
}

bool ig_mixed_signedness(ir_dtype a, ir_dtype b)
{
    return ir_dtype_is_int(a) && ir_dtype_is_int(b) && a != DT_I1 && b != DT_I1 &&
           ir_dtype_is_unsigned(a) != ir_dtype_is_unsigned(b);
}

bool ig_unify(irgen *g, src_loc loc, gval a, gval b, ir_value *ra, ir_value *rb, const char *what)
{
    char b1[64], b2[64];
    if (a.kind == GV_ERROR || b.kind == GV_ERROR)
        return false;
    if (a.kind != GV_IR && b.kind == GV_IR) {
        /* Constant on the left: unify the other way round. */
        return ig_unify(g, loc, b, a, rb, ra, what);
    }
    if (a.kind != GV_IR) {
        /* Both constants: materialise with default types. */
        ir_value x = ig_to_ir(g, loc, a, ir_type_void());
        if (x == IR_NO_VALUE)
            return false;
        return ig_unify(g, loc, gv_ir(x), b, ra, rb, what);
    }
    ir_type ta = ig_type(g, a);
    if (ir_type_is_ptrlike(ta) || ta.kind == TY_SEGMENT) {
        ig_error(g, loc, "'%s' cannot be applied to a %s%s", what, ig_type_name(ta, b1),
                 ta.kind == TY_SEGMENT ? "; load its elements with sl.load_segment" : "");
        return false;
    }
    if (b.kind != GV_IR) {
        if (b.kind == GV_CONST && b.c.kind == CONST_FLOAT && !ir_dtype_is_float((ir_dtype)ta.dtype)) {
            a.v = ig_cast(g, loc, a.v, (ir_dtype)ig_const_type(b.c).dtype);
            if (a.v == IR_NO_VALUE)
                return false;
            ta = ig_type(g, a);
        } else if (b.kind == GV_CONST && (b.c.kind == CONST_INT || b.c.kind == CONST_U64) &&
                   ta.dtype == DT_I1) {
            /* int1 gives way to the constant's type (int32, or uint64 from 2**63) */
            a.v = ig_cast(g, loc, a.v, b.c.kind == CONST_U64 ? DT_U64 : DT_I32);
            if (a.v == IR_NO_VALUE)
                return false;
            ta = ig_type(g, a);
        }
        ir_value y = ig_to_ir(g, loc, b, ta);
        if (y == IR_NO_VALUE)
            return false;
        *ra = a.v;
        *rb = y;
        return true;
    }
    ir_type tb = ig_type(g, b);
    if (ir_type_is_ptrlike(tb) || tb.kind == TY_SEGMENT) {
        ig_error(g, loc, "'%s' cannot be applied to a %s%s", what, ig_type_name(tb, b2),
                 tb.kind == TY_SEGMENT ? "; load its elements with sl.load_segment" : "");
        return false;
    }
    if ((ta.kind == TY_TILE && tb.kind == TY_SEGVAL) || (ta.kind == TY_SEGVAL && tb.kind == TY_TILE))
        return mix_error(g, loc) != IR_NO_VALUE;
    ir_dtype dt = ig_promote((ir_dtype)ta.dtype, (ir_dtype)tb.dtype);
    ir_value x = ig_cast(g, loc, a.v, dt), y = ig_cast(g, loc, b.v, dt);
    if (x == IR_NO_VALUE || y == IR_NO_VALUE)
        return false;
    /* Triton's broadcasting: scalars splat, tiles meet at the shape their
     * dims broadcast to (a tile of one element goes anywhere) */
    if (!ig_broadcast_pair(g, loc, &x, &y, what))
        return false;
    *ra = x;
    *rb = y;
    return true;
}

bool ig_const_int(irgen *g, const ast_expr *e, gval v, const char *what, int64_t *out)
{
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_CONST && v.c.kind == CONST_U64) {
        char text[48];
        ig_error(g, e->loc, "%s must fit int64, not %s (a uint64)", what, ig_const_int_text(v.c, text));
        return false;
    }
    if (v.kind != GV_CONST || (v.c.kind != CONST_INT && v.c.kind != CONST_BOOL)) {
        ig_error(g, e->loc, "%s must be a compile-time integer (a literal or an sl.constexpr)", what);
        return false;
    }
    *out = v.c.i;
    return true;
}

/* ---- compile-time folding of constant operands -------------------------- */

static bool const_truth(const_value c) { return c.kind == CONST_FLOAT ? c.f != 0 : c.i != 0; }
static double const_num(const_value c)
{
    return c.kind == CONST_FLOAT ? c.f : c.kind == CONST_U64 ? (double)(uint64_t)c.i : (double)c.i;
}

/* Python's integers as the folding computes them: every int64 and uint64. */
__extension__ typedef __int128 wide;

static wide const_wide(const_value c)
{
    return c.kind == CONST_U64 ? (wide)(uint64_t)c.i : (wide)c.i;
}

/* r as a constant: CONST_INT in int64's range, CONST_U64 from 2^63 to
 * 2^64 - 1; false beyond. */
static bool wide_const(wide r, gval *out)
{
    if (r >= INT64_MIN && r <= INT64_MAX)
        *out = gv_int((int64_t)r);
    else if (r > 0 && r <= (wide)UINT64_MAX)
        *out = gv_u64((uint64_t)r);
    else
        return false;
    return true;
}

static const char *int64_text(int64_t v, char buf[48])
{
    if (v == INT64_MIN)
        snprintf(buf, 32, "-2**63");
    else if (v == INT64_MAX)
        snprintf(buf, 32, "2**63-1");
    else
        snprintf(buf, 32, "%lld", (long long)v);
    return buf;
}

/* An operand for an overflow message: "2**63" reads better than its 19 digits. */
static const char *int_text(const_value c, char buf[48])
{
    if (c.kind == CONST_U64)
        return ig_const_int_text(c, buf);
    return int64_text(c.i, buf);
}

static gval fold_const_binop(irgen *g, const ast_expr *e, ast_op op, const_value a, const_value b)
{
    char b1[48], b2[48];
    if (a.kind == CONST_DTYPE || b.kind == CONST_DTYPE)
        return ig_error(g, e->loc, "'%s' cannot be applied to a dtype", op_text(op));
    bool ints = a.kind != CONST_FLOAT && b.kind != CONST_FLOAT;
    wide x = const_wide(a), y = const_wide(b);
    double fx = const_num(a), fy = const_num(b);
    switch (op) {
    case OP_LT: return gv_bool(ints ? x < y : fx < fy);
    case OP_LE: return gv_bool(ints ? x <= y : fx <= fy);
    case OP_GT: return gv_bool(ints ? x > y : fx > fy);
    case OP_GE: return gv_bool(ints ? x >= y : fx >= fy);
    case OP_EQ: return gv_bool(ints ? x == y : fx == fy);
    case OP_NE: return gv_bool(ints ? x != y : fx != fy);
    case OP_DIV:
        if (fy == 0)
            return ig_error(g, e->loc, "division by zero in a constant expression");
        return gv_float(fx / fy);
    default: break;
    }
    if (ints) {
        /* Python's integers, computed in 128 bits: a result is an int64, or
         * a uint64 from 2**63 to 2**64 - 1 (as Triton types such a
         * constant); beyond those it is an error, never a wrapped value. */
        wide wx = const_wide(a), wy = const_wide(b), wr = 0;
        bool fits = true;
        switch (op) {
        case OP_ADD: wr = wx + wy; break;
        case OP_SUB: wr = wx - wy; break;
        case OP_MUL: fits = !__builtin_mul_overflow(wx, wy, &wr); break;
        case OP_FLOORDIV:
        case OP_MOD: {
            if (wy == 0)
                return ig_error(g, e->loc, "division by zero in a constant expression");
            wide q = wx / wy, m = wx % wy;
            if (m != 0 && (m < 0) != (wy < 0))
                q -= 1, m += wy;
            wr = op == OP_FLOORDIV ? q : m;
            break;
        }
        case OP_BITAND: wr = wx & wy; break;
        case OP_BITOR: wr = wx | wy; break;
        case OP_BITXOR: wr = wx ^ wy; break;
        case OP_SHL:
            if (wy < 0)
                return ig_error(g, e->loc, "negative shift count in a constant expression");
            if (wx != 0)
                fits = wy <= 64 && !__builtin_mul_overflow(wx, (wide)1 << (int)wy, &wr);
            break;
        case OP_SHR:
            if (wy < 0)
                return ig_error(g, e->loc, "negative shift count in a constant expression");
            wr = wy >= 127 ? (wx < 0 ? -1 : 0) : wx >> (int)wy; /* floor, as Python's */
            break;
        case OP_POW:
            if (wy < 0) {
                /* Python: an int to a negative power is a float. */
                if (wx == 0)
                    return ig_error(g, e->loc, "0 cannot be raised to a negative power");
                return gv_float(pow(fx, fy));
            }
            /* by squaring; a base that overflows is used again only when
             * the result would overflow too (|x| >= 2 from there on) */
            wr = 1;
            for (wide base = wx, n = wy; n > 0 && fits; n >>= 1) {
                if (n & 1)
                    fits = !__builtin_mul_overflow(wr, base, &wr);
                if (fits && n > 1)
                    fits = !__builtin_mul_overflow(base, base, &base);
            }
            break;
        default:
            return ig_error(g, e->loc, "'%s' is not supported in Swage kernels", op_text(op));
        }
        gval out;
        if (!fits || !wide_const(wr, &out))
            return ig_error(g, e->loc, "constant expression overflows 64 bits (%s %s %s): integer "
                                       "constants are int64, or uint64 from 2**63 to 2**64 - 1",
                            int_text(a, b1), op_text(op), int_text(b, b2));
        if (a.kind == CONST_BOOL && b.kind == CONST_BOOL &&
            (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR))
            return gv_bool(wr != 0);
        return out;
    }
    ir_scalar sa = {.f = fx}, sb = {.f = fy}, sr;
    switch (op) {
    case OP_ADD: return gv_float(fx + fy);
    case OP_SUB: return gv_float(fx - fy);
    case OP_MUL: return gv_float(fx * fy);
    case OP_POW: {
        /* As Python's float **: no complex results, no silent overflow. */
        if (fx == 0 && fy < 0)
            return ig_error(g, e->loc, "0.0 cannot be raised to a negative power");
        if (fx < 0 && isfinite(fy) && fy != floor(fy))
            return ig_error(g, e->loc, "a negative number to a fractional power is a complex "
                                       "number, which Swage kernels do not have");
        double p = pow(fx, fy);
        if (isinf(p) && isfinite(fx) && isfinite(fy))
            return ig_error(g, e->loc, "constant expression overflows float64 (%g ** %g)", fx, fy);
        return gv_float(p);
    }
    case OP_FLOORDIV:
    case OP_MOD:
        if (fy == 0)
            return ig_error(g, e->loc, "division by zero in a constant expression");
        ir_eval_binary(op == OP_FLOORDIV ? IR_FLOORDIV : IR_MOD, DT_F64, sa, sb, &sr);
        return gv_float(sr.f);
    default:
        return ig_error(g, e->loc, "'%s' cannot be applied to floats", op_text(op));
    }
}

/* ---- operators on IR values -------------------------------------------- */

static ir_op_kind binop_kind(ast_op op)
{
    switch (op) {
    case OP_ADD: return IR_ADD;
    case OP_SUB: return IR_SUB;
    case OP_MUL: return IR_MUL;
    case OP_DIV: return IR_DIV;
    case OP_FLOORDIV: return IR_FLOORDIV;
    case OP_MOD: return IR_MOD;
    case OP_BITAND: return IR_AND;
    case OP_BITOR: return IR_OR;
    case OP_BITXOR: return IR_XOR;
    case OP_SHL: return IR_SHL;
    case OP_SHR: return IR_SHR;
    default: return IR_OP_COUNT;
    }
}

static const char *cmp_pred(ast_op op)
{
    switch (op) {
    case OP_LT: return "lt";
    case OP_LE: return "le";
    case OP_GT: return "gt";
    case OP_GE: return "ge";
    case OP_EQ: return "eq";
    case OP_NE: return "ne";
    default: return NULL;
    }
}

/* Pointer +/- integer: sw.addptr, broadcasting either side. */
static gval ptr_arith(irgen *g, const ast_expr *e, gval p, gval off, bool negate)
{
    char b[64];
    ir_type tp = ig_type(g, p);
    ir_value o;
    if (off.kind == GV_CONST) {
        /* As for a runtime offset, a bool is not an integer offset. */
        if (off.c.kind == CONST_BOOL)
            return ig_error(g, e->loc, "a pointer can only be offset by an integer, not by the "
                                       "bool %s", off.c.i ? "True" : "False");
        if (off.c.kind == CONST_U64)
            return ig_error(g, e->loc, "the pointer offset %llu does not fit int64",
                            (unsigned long long)(uint64_t)off.c.i);
        if (off.c.kind != CONST_INT)
            return ig_error(g, e->loc, "a pointer can only be offset by an integer");
        const_value c = off.c;
        char text[48];
        if (negate && !checked_neg(off.c.i, &c.i))
            return ig_error(g, e->loc, "the pointer offset -(%s) overflows int64",
                            int64_text(off.c.i, text));
        /* a literal offset is signed: int32 when it fits, else int64 (a
         * literal from 2**31 to 2**32 - 1 is a uint32 elsewhere) */
        ir_dtype odt = c.i >= INT32_MIN && c.i <= INT32_MAX ? DT_I32 : DT_I64;
        o = ig_materialize(g, e->loc, c, ir_type_like(tp, ir_type_scalar(odt)));
        negate = false;
    } else if (off.kind == GV_IR) {
        o = off.v;
        ir_type to = ir_value_type(g->m, o);
        if (ig_is_segment_type(to))
            return ig_error(g, e->loc, "a pointer cannot be offset by a %s: segment programs read "
                                       "segments with sl.load_segment (gathers are not supported)",
                            ig_type_name(to, b));
        if (ir_type_is_ptrlike(to) || !ir_dtype_is_int((ir_dtype)to.dtype) || to.dtype == DT_I1)
            return ig_error(g, e->loc, "a pointer can only be offset by an integer, not by %s",
                            ig_type_name(to, b));
        /* Narrow offsets widen to i32 (their values fit); ui32 widens to
         * i64 (zero-extended) and ui64 is taken as i64 (address arithmetic
         * wraps the same). */
        if (to.dtype == DT_U32 || to.dtype == DT_U64)
            o = ig_cast(g, e->loc, o, DT_I64);
        else if (to.dtype != DT_I32 && to.dtype != DT_I64)
            o = ig_cast(g, e->loc, o, DT_I32);
    } else {
        return gv_ir(ig_to_ir(g, e->loc, off, ir_type_void()));
    }
    if (o == IR_NO_VALUE)
        return (gval){0};
    if (negate)
        o = ig_emit1(g, IR_NEG, e->loc, &o, 1, ir_value_type(g->m, o));
    ir_value pv = p.v;
    if (!ig_broadcast_pair(g, e->loc, &pv, &o, "pointer +"))
        return (gval){0};
    ir_value ops[2] = {pv, o};
    return gv_ir(ig_emit1(g, IR_ADDPTR, e->loc, ops, 2, ir_value_type(g->m, pv)));
}

static bool is_ptr(irgen *g, gval v) { return v.kind == GV_IR && ir_type_is_ptrlike(ig_type(g, v)); }

/* Operators on strings and None (compile-time values, as in Triton):
 * `is` / `is not` against None, == and != (and <, <=, >, >= between two
 * strings), `in` a tuple of compile-time values, + joining two strings.
 * Returns GV_ERROR (kind 0) with *handled false when the operands are
 * neither. */
static gval string_none_binop(irgen *g, const ast_expr *e, ast_op op, gval a, gval b, bool *handled)
{
    *handled = true;
    if (op == OP_IS || op == OP_IS_NOT) {
        if (a.kind == GV_NONE || b.kind == GV_NONE)
            return gv_bool((a.kind == GV_NONE && b.kind == GV_NONE) == (op == OP_IS));
        return ig_error(g, e->loc, "'%s' is only supported against None (x is None, x is not None); "
                                   "use '%s' to compare values", op_text(op), op == OP_IS ? "==" : "!=");
    }
    if (op == OP_IN || op == OP_NOT_IN) {
        bool found = false;
        if (b.kind == GV_TUPLE && ig_is_known(b) && ig_is_known(a)) {
            for (int i = 0; i < b.nitems && !found; i++) {
                gval x = a, y = b.items[i];
                if (x.kind == GV_CONST && y.kind == GV_CONST && x.c.kind != CONST_DTYPE &&
                    y.c.kind != CONST_DTYPE) {
                    gval r = fold_const_binop(g, e, OP_EQ, x.c, y.c);
                    if (r.kind != GV_CONST)
                        return (gval){0};
                    found = r.c.i != 0;
                } else {
                    found = ig_same_gval(x, y);
                }
            }
        } else if (a.kind == GV_STR && b.kind == GV_STR) {
            found = strstr(b.str, a.str) != NULL;
        } else {
            return ig_error(g, e->loc, "'%s' needs compile-time values: a value and a tuple of "
                                       "values known while compiling (ACT in ('relu', 'gelu'))",
                            op_text(op));
        }
        return gv_bool(found == (op == OP_IN));
    }
    bool str = a.kind == GV_STR || b.kind == GV_STR;
    bool none = a.kind == GV_NONE || b.kind == GV_NONE;
    if (!str && !none) {
        *handled = false;
        return (gval){0};
    }
    gval odd = a.kind == GV_STR || a.kind == GV_NONE ? a : b;
    if (op == OP_EQ || op == OP_NE) {
        gval other = a.kind == GV_STR || a.kind == GV_NONE ? b : a;
        if (!ig_is_known(other))
            return ig_error(g, e->loc, "%s can only be compared with values known while compiling, "
                                       "not with a runtime value%s", ig_known_text(g, odd),
                            none ? "; use 'is None' / 'is not None'" : "");
        return gv_bool(ig_same_gval(a, b) == (op == OP_EQ));
    }
    if (a.kind == GV_STR && b.kind == GV_STR) {
        int c = strcmp(a.str, b.str);
        switch (op) {
        case OP_LT: return gv_bool(c < 0);
        case OP_LE: return gv_bool(c <= 0);
        case OP_GT: return gv_bool(c > 0);
        case OP_GE: return gv_bool(c >= 0);
        case OP_ADD:
            return (gval){.kind = GV_STR, .str = arena_printf(g->ar, "%s%s", a.str, b.str)};
        default: break;
        }
    }
    return ig_error(g, e->loc, "'%s' cannot be applied to %s%s", op_text(op), ig_known_text(g, odd),
                    str ? ": strings are compile-time values, only compared (==, !=, in) or "
                          "passed to @sw.jit functions"
                        : "; test it with 'is None' / 'is not None'");
}

static gval binop(irgen *g, const ast_expr *e, ast_op op, gval a, gval b)
{
    if (a.kind == GV_ERROR || b.kind == GV_ERROR)
        return (gval){0};
    if (a.kind == GV_UNDEF || b.kind == GV_UNDEF)
        return ig_error(g, e->loc, "%s", (a.kind == GV_UNDEF ? a : b).note);
    bool handled;
    gval sn = string_none_binop(g, e, op, a, b, &handled);
    if (handled)
        return sn;
    if (a.kind == GV_CONST && b.kind == GV_CONST)
        return fold_const_binop(g, e, op, a.c, b.c);
    if (a.kind == GV_TUPLE || b.kind == GV_TUPLE) {
        /* x.shape == (BLOCK,): tuples of compile-time values compare. */
        bool known = a.kind == GV_TUPLE && b.kind == GV_TUPLE && ig_is_known(a) && ig_is_known(b);
        if (known && (op == OP_EQ || op == OP_NE))
            return gv_bool(ig_same_gval(a, b) == (op == OP_EQ));
        return ig_error(g, e->loc, "'%s' cannot be applied to a tuple%s", op_text(op),
                        op == OP_EQ || op == OP_NE ? " of runtime values" : "");
    }
    if (op == OP_ADD && is_ptr(g, a))
        return ptr_arith(g, e, a, b, false);
    if (op == OP_ADD && is_ptr(g, b))
        return ptr_arith(g, e, b, a, false);
    if (op == OP_SUB && is_ptr(g, a) && !is_ptr(g, b))
        return ptr_arith(g, e, a, b, true);
    if (op == OP_POW)
        return ig_error(g, e->loc, "'**' on runtime values is not supported; use sl.exp2 and sl.log2, or multiply");
    if (op == OP_MATMUL)
        return ig_error(g, e->loc, "'@' (matrix multiply) is not supported in Swage kernels");
    if (op == OP_IS || op == OP_IS_NOT || op == OP_IN || op == OP_NOT_IN)
        return ig_error(g, e->loc, "'%s' is not supported in Swage kernels", op_text(op));
    if ((op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) && a.kind == GV_IR && b.kind == GV_IR) {
        /* Triton's rule: no division of a signed by an unsigned integer (a
         * literal takes the other operand's type, so it never mixes). */
        ir_type ta = ig_type(g, a), tb = ig_type(g, b);
        if (!ir_type_is_ptrlike(ta) && !ir_type_is_ptrlike(tb) &&
            ig_mixed_signedness((ir_dtype)ta.dtype, (ir_dtype)tb.dtype))
            return ig_error(g, e->loc, "cannot use '%s' with %s and %s: they have different "
                                       "signedness (as in Triton); cast them to one signedness",
                            op_text(op), ir_dtypes[ta.dtype].py, ir_dtypes[tb.dtype].py);
    }
    ir_value x, y;
    if (!ig_unify(g, e->loc, a, b, &x, &y, op_text(op)))
        return (gval){0};
    ir_type t = ir_value_type(g->m, x);
    ir_dtype dt = (ir_dtype)t.dtype;
    const char *pred = cmp_pred(op);
    if (pred) {
        ir_value ops[2] = {x, y};
        ir_value r = ig_emit1(g, IR_CMP, e->loc, ops, 2, ir_type_like(t, ir_type_scalar(DT_I1)));
        if (r != IR_NO_VALUE)
            ir_attr_set_str(g->m, g->m->values[r].def, "predicate", pred);
        return gv_ir(r);
    }
    ir_op_kind k = binop_kind(op);
    if (k == IR_OP_COUNT)
        return ig_error(g, e->loc, "'%s' is not supported in Swage kernels", op_text(op));
    if (k == IR_DIV && !ir_dtype_is_float(dt)) {
        x = ig_cast(g, e->loc, x, DT_F32);
        y = ig_cast(g, e->loc, y, DT_F32);
        t = ir_value_type(g->m, x);
    }
    if ((ir_ops[k].flags & F_INT) && ir_dtype_is_float(dt)) {
        char b1[64];
        return ig_error(g, e->loc, "'%s' needs integer operands, not %s", op_text(op),
                        ig_type_name(t, b1));
    }
    /* On integers // and % are C's (as Triton's): the quotient rounds
     * toward zero and the remainder takes the dividend's sign. Floats keep
     * Python's floor division and modulo. Compile-time operands never get
     * here: they fold with Python's meaning (fold_const_binop). */
    if (k == IR_FLOORDIV && !ir_dtype_is_float(dt))
        k = IR_IDIV;
    else if (k == IR_MOD && !ir_dtype_is_float(dt))
        k = IR_REM;
    if ((k == IR_SHL || k == IR_SHR) && dt == DT_I1) {
        x = ig_cast(g, e->loc, x, DT_I32);
        y = ig_cast(g, e->loc, y, DT_I32);
        t = ir_value_type(g->m, x);
    }
    ir_value ops[2] = {x, y};
    ir_value r = ig_emit1(g, k, e->loc, ops, 2, t);
    /* '/' is Triton's: approximate on the GPU (div.full.f32); sl.div_rn and
     * sl.fdiv(ieee_rounding=True) are correctly rounded. */
    if (k == IR_DIV && r != IR_NO_VALUE && g->m->values[r].def->kind == IR_DIV && !g->exact_div)
        ir_attr_set_bool(g->m, g->m->values[r].def, "approx", true);
    return gv_ir(r);
}

static gval unary(irgen *g, const ast_expr *e, gval a)
{
    char b[64];
    if (a.kind == GV_ERROR)
        return a;
    if (a.kind == GV_UNDEF)
        return ig_error(g, e->loc, "%s", a.note);
    if (e->op == OP_NOT && (a.kind == GV_STR || a.kind == GV_NONE))
        return gv_bool(a.kind == GV_NONE || !a.str[0]);
    if (a.kind == GV_STR)
        return ig_error(g, e->loc, "'%s' cannot be applied to %s", op_text(e->op), ig_known_text(g, a));
    if (a.kind == GV_CONST) {
        const_value c = a.c;
        switch (e->op) {
        case OP_NOT: return gv_bool(!const_truth(c));
        case OP_POS: return a;
        case OP_NEG:
        case OP_INVERT: {
            if (c.kind == CONST_FLOAT)
                return e->op == OP_NEG ? gv_float(-c.f)
                                       : ig_error(g, e->loc, "'~' needs an integer operand");
            /* Python's: -(-2**63) is 2**63 (a uint64), ~x is -x - 1 */
            wide w = e->op == OP_NEG ? -const_wide(c) : -const_wide(c) - 1;
            gval out;
            char text[48];
            if (!wide_const(w, &out))
                return ig_error(g, e->loc, "constant expression overflows 64 bits (%s%s): integer "
                                           "constants are int64, or uint64 from 2**63 to 2**64 - 1",
                                op_text(e->op), int_text(c, text));
            return out;
        }
        default: break;
        }
    }
    ir_value v = ig_to_ir(g, e->loc, a, ir_type_void());
    if (v == IR_NO_VALUE)
        return (gval){0};
    ir_type t = ir_value_type(g->m, v);
    if (ir_type_is_ptrlike(t))
        return ig_error(g, e->loc, "'%s' cannot be applied to a %s", op_text(e->op), ig_type_name(t, b));
    switch (e->op) {
    case OP_POS: return gv_ir(v);
    case OP_NEG:
        if (t.dtype == DT_I1)
            v = ig_cast(g, e->loc, v, DT_I32), t = ir_value_type(g->m, v);
        if (ir_dtype_is_unsigned((ir_dtype)t.dtype)) {
            /* Unsigned negation wraps, as in NumPy: 0 - x. */
            ir_value ops[2] = {ig_materialize(g, e->loc, (const_value){.kind = CONST_INT}, t), v};
            return gv_ir(ig_emit1(g, IR_SUB, e->loc, ops, 2, t));
        }
        return gv_ir(ig_emit1(g, IR_NEG, e->loc, &v, 1, t));
    case OP_INVERT:
        if (ir_dtype_is_float((ir_dtype)t.dtype))
            return ig_error(g, e->loc, "'~' needs an integer operand, not %s", ig_type_name(t, b));
        return gv_ir(ig_emit1(g, IR_NOT, e->loc, &v, 1, t));
    case OP_NOT:
        if (t.dtype != DT_I1)
            return ig_error(g, e->loc, "'not' needs an int1 (bool) operand, not %s; compare first, "
                                       "e.g. (x != 0)", ig_type_name(t, b));
        return gv_ir(ig_emit1(g, IR_NOT, e->loc, &v, 1, t));
    default:
        return ig_error(g, e->loc, "unsupported unary operator");
    }
}

/* `a and b`, `a or b`: on constants, Python's semantics; on values, both
 * sides must be int1 and both are evaluated. */
static gval boolop(irgen *g, const ast_expr *e, gval a, gval b)
{
    char b1[64];
    if (a.kind == GV_ERROR || b.kind == GV_ERROR)
        return (gval){0};
    if (a.kind == GV_CONST && b.kind == GV_CONST) {
        bool ta = const_truth(a.c);
        return e->op == OP_AND ? (ta ? b : a) : (ta ? a : b);
    }
    if (a.kind == GV_STR || a.kind == GV_NONE ||
        (a.kind == GV_CONST && (b.kind == GV_STR || b.kind == GV_NONE))) {
        /* Python's: a compile-time left side decides which side it is */
        bool ta = a.kind == GV_CONST ? const_truth(a.c) : a.kind == GV_STR && a.str[0];
        return e->op == OP_AND ? (ta ? b : a) : (ta ? a : b);
    }
    gval sides[2] = {a, b};
    ir_value v[2];
    for (int i = 0; i < 2; i++) {
        if (sides[i].kind == GV_CONST && sides[i].c.kind == CONST_BOOL) {
            v[i] = IR_NO_VALUE;
            continue;
        }
        v[i] = ig_to_ir(g, e->loc, sides[i], ir_type_void());
        if (v[i] == IR_NO_VALUE)
            return (gval){0};
        ir_type t = ir_value_type(g->m, v[i]);
        if (t.kind == TY_PTR || t.ptr_elem || t.dtype != DT_I1)
            return ig_error(g, e->loc, "'%s' needs int1 (bool) operands, not %s; compare first, "
                                       "e.g. (x != 0)", op_text(e->op), ig_type_name(t, b1));
    }
    /* A constant bool on one side decides or passes the other through. */
    for (int i = 0; i < 2; i++) {
        if (v[i] != IR_NO_VALUE)
            continue;
        bool c = sides[i].c.i != 0;
        ir_value other = v[1 - i];
        if ((e->op == OP_AND && c) || (e->op == OP_OR && !c))
            return gv_ir(other);
        return gv_ir(ig_materialize(g, e->loc, sides[i].c, ir_value_type(g->m, other)));
    }
    ir_value x, y;
    if (!ig_unify(g, e->loc, gv_ir(v[0]), gv_ir(v[1]), &x, &y, op_text(e->op)))
        return (gval){0};
    ir_value ops[2] = {x, y};
    return gv_ir(ig_emit1(g, e->op == OP_AND ? IR_AND : IR_OR, e->loc, ops, 2,
                          ir_value_type(g->m, x)));
}

static gval ifexp(irgen *g, const ast_expr *e)
{
    char b[64];
    gval c = ig_condition(g, e->cond, "x if c else y");
    if (c.kind == GV_ERROR)
        return c;
    if (c.kind == GV_CONST)
        return const_truth(c.c) ? ig_expr(g, e->lhs) : ig_expr(g, e->rhs);
    gval x = ig_expr(g, e->lhs), y = ig_expr(g, e->rhs);
    ir_value cv = ig_to_ir(g, e->cond->loc, c, ir_type_void());
    if (cv == IR_NO_VALUE || x.kind == GV_ERROR || y.kind == GV_ERROR)
        return (gval){0};
    ir_type ct = ir_value_type(g->m, cv);
    if (ct.kind != TY_SCALAR || ct.dtype != DT_I1)
        return ig_error(g, e->cond->loc, "the condition of 'x if c else y' must be an int1 "
                                         "scalar, not %s", ig_type_name(ct, b));
    ir_value xv, yv;
    if (is_ptr(g, x) || is_ptr(g, y)) {
        xv = ig_to_ir(g, e->loc, x, ir_type_void());
        yv = ig_to_ir(g, e->loc, y, ir_type_void());
        if (xv == IR_NO_VALUE || yv == IR_NO_VALUE)
            return (gval){0};
        if (!ir_type_eq(ir_value_type(g->m, xv), ir_value_type(g->m, yv)))
            return ig_error(g, e->loc, "both sides of 'x if c else y' must have one type");
    } else if (!ig_unify(g, e->loc, x, y, &xv, &yv, "if-else")) {
        return (gval){0};
    }
    ir_value ops[3] = {ig_broadcast(g, e->loc, cv, ir_value_type(g->m, xv)), xv, yv};
    return gv_ir(ig_emit1(g, IR_SELECT, e->loc, ops, 3, ir_value_type(g->m, xv)));
}

/* ---- entry -------------------------------------------------------------- */

/* The language module is `sl` or anything that is not a local name (so
 * `import swage.language as tl` also works); `swage.language` too. */
static bool is_language_module(irgen *g, const ast_expr *e)
{
    if (e->kind == AST_NAME) {
        gval *v = env_lookup(&g->scope, e->name);
        return !v || v->kind == GV_MODULE;
    }
    if (e->kind == AST_ATTR && !strcmp(e->name, "language") && e->lhs->kind == AST_NAME)
        return !strcmp(e->lhs->name, "swage") || !strcmp(e->lhs->name, "sw");
    return false;
}

/* `sl.math` (or `swage.language.math`): the math namespace. */
static bool is_math_module(irgen *g, const ast_expr *e)
{
    return e->kind == AST_ATTR && !strcmp(e->name, "math") && is_language_module(g, e->lhs);
}

/* `sl.extra.libdevice` or `sl.extra.cuda.libdevice`: CUDA's libdevice. */
static bool is_libdevice_module(irgen *g, const ast_expr *e)
{
    if (e->kind != AST_ATTR || strcmp(e->name, "libdevice"))
        return false;
    const ast_expr *x = e->lhs;
    if (x->kind == AST_ATTR && !strcmp(x->name, "cuda"))
        x = x->lhs;
    return x->kind == AST_ATTR && !strcmp(x->name, "extra") && is_language_module(g, x->lhs);
}

/* Python's float() spelling of a special value: optional sign, then inf,
 * infinity or nan in any case, with surrounding whitespace; or a decimal
 * number. Returns false when the text is neither. */
static bool parse_float_text(const char *s, double *out)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        n--;
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    const char *t = buf;
    double sign = 1.0;
    if (*t == '+' || *t == '-')
        sign = *t++ == '-' ? -1.0 : 1.0;
    char low[16];
    size_t m = strlen(t);
    if (m < sizeof low) {
        for (size_t i = 0; i <= m; i++)
            low[i] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] - 'A' + 'a' : t[i]);
        if (!strcmp(low, "inf") || !strcmp(low, "infinity")) {
            *out = sign * INFINITY;
            return true;
        }
        if (!strcmp(low, "nan")) {
            *out = copysign(NAN, sign);
            return true;
        }
    }
    /* digits [. digits] [e [sign] digits], at least one digit before e */
    const char *p = t;
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return false;
    *out = sign * strtod(t, NULL);
    return true;
}

/* float(x): a compile-time float. float("inf"), float("-inf") and
 * float("nan") are how Triton kernels spell the special values. */
static gval float_call(irgen *g, const ast_expr *e)
{
    if (e->nkwargs)
        return ig_error(g, e->kwargs[0].loc, "float() takes no keyword arguments");
    if (e->nargs != 1)
        return ig_error(g, e->loc, "float() takes exactly one argument in a Swage kernel, not %d",
                        e->nargs);
    const ast_expr *a = e->args[0];
    if (a->kind == AST_STRING) {
        double v;
        if (!parse_float_text(a->name ? a->name : "", &v))
            return ig_error(g, a->loc, "float() of the string '%.40s' is not a number (use "
                                       "float(\"inf\"), float(\"-inf\"), float(\"nan\") or a "
                                       "decimal number)", a->name ? a->name : "");
        return gv_float(v);
    }
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return v;
    if (v.kind == GV_CONST && v.c.kind == CONST_FLOAT)
        return v;
    if (v.kind == GV_CONST && (v.c.kind == CONST_INT || v.c.kind == CONST_BOOL))
        return gv_float((double)v.c.i);
    if (v.kind == GV_IR)
        return ig_error(g, a->loc, "float() of a runtime value is not supported; convert it with "
                                   "x.to(sl.float32)");
    return ig_error(g, a->loc, "float() needs a number or a string such as \"inf\"");
}

static bool const_number(gval v)
{
    return v.kind == GV_CONST &&
           (v.c.kind == CONST_INT || v.c.kind == CONST_FLOAT || v.c.kind == CONST_BOOL);
}

/* Python's min(a, b, ...) / max(a, b, ...): of compile-time numbers, Python's
 * (the first of the smallest / largest); of runtime values, as Triton,
 * sl.minimum / sl.maximum folded left to right. */
static gval python_minmax(irgen *g, const ast_expr *e, bool max)
{
    const char *name = max ? "max" : "min";
    if (e->nkwargs)
        return ig_error(g, e->kwargs[0].loc, "Python's %s() takes no keywords in a Swage kernel "
                                             "('%s=' is not supported)", name, e->kwargs[0].name);
    if (e->nargs < 2)
        return ig_error(g, e->loc, "Python's %s() in a Swage kernel takes two or more values "
                                   "(not an iterable); for the %s of a tile use sl.%s(x)", name,
                        max ? "largest element" : "smallest element", name);
    gval vals[64];
    if (e->nargs > 64)
        return ig_error(g, e->args[64]->loc, "Python's %s() takes at most 64 values here", name);
    bool constant = true;
    for (int i = 0; i < e->nargs; i++) {
        vals[i] = ig_expr(g, e->args[i]);
        if (vals[i].kind == GV_ERROR)
            return vals[i];
        constant = constant && const_number(vals[i]);
    }
    if (constant) {
        gval best = vals[0];
        for (int i = 1; i < e->nargs; i++) {
            const_value a = vals[i].c, b = best.c;
            bool ints = a.kind != CONST_FLOAT && b.kind != CONST_FLOAT;
            double fa = a.kind == CONST_FLOAT ? a.f : (double)a.i;
            double fb = b.kind == CONST_FLOAT ? b.f : (double)b.i;
            bool better = ints ? (max ? a.i > b.i : a.i < b.i) : (max ? fa > fb : fa < fb);
            if (better)
                best = vals[i];
        }
        return best;
    }
    gval acc = vals[0];
    for (int i = 1; i < e->nargs; i++) {
        ir_value a, b;
        if (!ig_unify(g, e->loc, acc, vals[i], &a, &b, name))
            return (gval){0};
        ir_value ops[2] = {a, b};
        acc = gv_ir(ig_emit1(g, max ? IR_MAXIMUM : IR_MINIMUM, e->loc, ops, 2, ir_value_type(g->m, a)));
    }
    return acc;
}

/* len(x): the length of a tuple (an sl.constexpr tuple, x.shape) or of a
 * compile-time string, as an int constant. */
static gval len_call(irgen *g, const ast_expr *e)
{
    if (e->nargs != 1 || e->nkwargs)
        return ig_error(g, e->loc, "len() takes exactly one argument");
    gval v = ig_expr(g, e->args[0]);
    if (v.kind == GV_ERROR)
        return v;
    if (v.kind == GV_TUPLE)
        return gv_int(v.nitems);
    if (v.kind == GV_STR)
        return gv_int((int64_t)strlen(v.str));
    return ig_error(g, e->args[0]->loc, "len() needs a tuple (an sl.constexpr tuple, x.shape) or a "
                                        "string known while compiling");
}

static gval call(irgen *g, const ast_expr *e)
{
    const ast_expr *f = e->callee;
    if (f->kind == AST_NAME && ig_is_function(g, f->name))
        return ig_call_function(g, e, f->name);
    if (f->kind == AST_ATTR && is_math_module(g, f->lhs))
        return ig_call_math_builtin(g, e, f->name);
    if (f->kind == AST_ATTR && is_libdevice_module(g, f->lhs))
        return ig_call_libdevice(g, e, f->name);
    if (f->kind == AST_ATTR && is_language_module(g, f->lhs) && !strcmp(f->name, "static_assert"))
        return ig_static_assert(g, e);
    if (f->kind == AST_ATTR && is_language_module(g, f->lhs) && !strcmp(f->name, "static_print"))
        return ig_static_print(g, e);
    if (f->kind == AST_ATTR && is_language_module(g, f->lhs) && !strcmp(f->name, "device_print"))
        return ig_device_print(g, e);
    if (f->kind == AST_ATTR && is_language_module(g, f->lhs))
        return ig_call_builtin(g, e, f->name);
    if (f->kind == AST_ATTR) {
        gval self = ig_expr(g, f->lhs);
        if (self.kind == GV_ERROR)
            return self;
        return ig_method_call(g, e, self, f->name);
    }
    if (f->kind == AST_NAME) {
        if (!strcmp(f->name, "range"))
            return ig_error(g, e->loc, "range() can only be used as the iterable of a 'for' loop");
        if (!strcmp(f->name, "float") && !env_lookup(&g->scope, "float"))
            return float_call(g, e);
        if ((!strcmp(f->name, "min") || !strcmp(f->name, "max")) && !env_lookup(&g->scope, f->name))
            return python_minmax(g, e, !strcmp(f->name, "max"));
        if (!strcmp(f->name, "len") && !env_lookup(&g->scope, "len"))
            return len_call(g, e);
        if (ig_is_builtin_name(f->name))
            return ig_error(g, e->loc, "'%s' is not defined; did you mean 'sl.%s'?", f->name, f->name);
        if (env_lookup(&g->scope, f->name))
            return ig_error(g, e->loc, "'%s' is a local value, not a function", f->name);
        return ig_error(g, e->loc, "calls to '%s' are not supported: a Swage kernel can call "
                                   "sl.* built-ins and @sw.jit functions (a global of the kernel's "
                                   "module or a closure variable)", f->name);
    }
    return ig_error(g, e->loc, "only sl.* built-ins and @sw.jit functions can be called in a Swage "
                               "kernel");
}

/* x.dtype, x.shape (compile-time values, as in Triton: x.shape is a tuple
 * of one length, () for a scalar), p.dtype.element_ty of a pointer. */
static gval attribute(irgen *g, const ast_expr *e)
{
    char b[64];
    bool element_ty = !strcmp(e->name, "element_ty") && e->lhs->kind == AST_ATTR &&
                      !strcmp(e->lhs->name, "dtype");
    const ast_expr *base = element_ty ? e->lhs->lhs : e->lhs;
    if (!element_ty && !strcmp(e->name, "T"))
        return ig_transpose(g, e->loc, ig_expr(g, base));
    if (!element_ty && strcmp(e->name, "dtype") && strcmp(e->name, "shape"))
        return ig_error(g, e->loc, "attribute '.%s' is not supported here (values have .dtype, "
                                   ".shape and .T)", e->name);
    gval v = ig_expr(g, base);
    if (v.kind == GV_ERROR)
        return v;
    if (v.kind == GV_CONST && v.c.kind != CONST_DTYPE && !element_ty) {
        if (!strcmp(e->name, "shape"))
            return (gval){.kind = GV_TUPLE, .nitems = 0};
        return (gval){.kind = GV_CONST, .c = {.kind = CONST_DTYPE, .i = ig_const_type(v.c).dtype}};
    }
    if (v.kind != GV_IR)
        return ig_error(g, e->loc, "'.%s' needs a value (a tile, a scalar or a pointer)", e->name);
    ir_type t = ig_type(g, v);
    if (t.kind == TY_SEGMENT || t.kind == TY_SEGVAL)
        return ig_error(g, e->loc, "'.%s' of a %s is not supported", e->name, ig_type_name(t, b));
    bool ptr = ir_type_is_ptrlike(t);
    if (element_ty) {
        if (!ptr)
            return ig_error(g, e->loc, "'.dtype.element_ty' needs a pointer, not %s",
                            ig_type_name(t, b));
        return (gval){.kind = GV_CONST, .c = {.kind = CONST_DTYPE, .i = t.dtype}};
    }
    if (!strcmp(e->name, "dtype")) {
        if (ptr)
            return ig_error(g, e->loc, "the dtype of a pointer is not a value here; its element "
                                       "type is .dtype.element_ty");
        return (gval){.kind = GV_CONST, .c = {.kind = CONST_DTYPE, .i = t.dtype}};
    }
    if (t.kind != TY_TILE)
        return (gval){.kind = GV_TUPLE, .nitems = 0};
    int32_t dims[IR_MAX_RANK];
    int rank = ig_dims(t, dims);
    gval *items = arena_alloc(g->ar, sizeof(gval) * IR_MAX_RANK);
    for (int i = 0; i < rank; i++)
        items[i] = gv_int(dims[i]);
    return (gval){.kind = GV_TUPLE, .items = items, .nitems = rank};
}

gval ig_expr(irgen *g, const ast_expr *e)
{
    if (ig_failed(g))
        return (gval){0};
    if (e == g->bound_expr)
        return g->bound_val;
    switch (e->kind) {
    case AST_INT: return e->u64 ? gv_u64((uint64_t)e->ival) : gv_int(e->ival);
    case AST_FLOAT: return gv_float(e->fval);
    case AST_BOOL: return gv_bool(e->ival != 0);
    case AST_NONE: return (gval){.kind = GV_NONE};
    case AST_STRING: return (gval){.kind = GV_STR, .str = e->name};
    case AST_NAME: {
        gval *v = env_lookup(&g->scope, e->name);
        if (!v) {
            if (!strcmp(e->name, "sl"))
                return (gval){.kind = GV_MODULE};
            return ig_undefined_name(g, e->loc, e->name);
        }
        if (v->kind == GV_UNDEF)
            return ig_error(g, e->loc, "%s", v->note);
        return *v;
    }
    case AST_ATTR:
        if (is_math_module(g, e->lhs))
            return ig_error(g, e->loc, "sl.math.%s is a function: call it", e->name);
        if (is_libdevice_module(g, e->lhs))
            return ig_error(g, e->loc, "sl.extra.libdevice.%s is a function: call it", e->name);
        if (is_language_module(g, e->lhs))
            return ig_builtin_attr(g, e, e->name);
        return attribute(g, e);
    case AST_CALL: return call(g, e);
    case AST_BINOP:
    case AST_COMPARE: {
        gval a = ig_expr(g, e->lhs);
        gval b = ig_expr(g, e->rhs);
        return binop(g, e, e->op, a, b);
    }
    case AST_UNARY: return unary(g, e, ig_expr(g, e->lhs));
    case AST_BOOLOP: {
        gval a = ig_expr(g, e->lhs);
        gval b = ig_expr(g, e->rhs);
        return boolop(g, e, a, b);
    }
    case AST_IFEXP: return ifexp(g, e);
    case AST_SUBSCRIPT: return ig_subscript(g, e);
    case AST_SLICE:
    case AST_ELLIPSIS:
        return ig_error(g, e->loc, "'%s' can only be used in a subscript (x[:, None])",
                        e->kind == AST_SLICE ? ":" : "...");
    case AST_TUPLE: {
        /* (a, b): returned from a @sw.jit function, unpacked, passed on. */
        gval *items = arena_alloc(g->ar, sizeof(gval) * (size_t)(e->nargs + 1));
        for (int i = 0; i < e->nargs; i++) {
            items[i] = ig_expr(g, e->args[i]);
            if (items[i].kind == GV_ERROR || ig_failed(g))
                return (gval){0};
        }
        return (gval){.kind = GV_TUPLE, .items = items, .nitems = e->nargs};
    }
    }
    return ig_error(g, e->loc, "unsupported expression");
}

gval ig_binop(irgen *g, const ast_expr *e, ast_op op, gval a, gval b) { return binop(g, e, op, a, b); }
