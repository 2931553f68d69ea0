/* scalar.c - the meaning of every elementwise op on one element (scalar.h).
 * Requires valid dtypes; guarantees results in the canonical representation
 * (wrapped ints, floats rounded to their dtype) and never invokes C UB. */
#include "scalar.h"

#include <math.h>
#include <string.h>

/* ---- representation ------------------------------------------------------
 *
 * Integers are computed in uint64_t (wrap-around is defined there) and then
 * brought back to the canonical form by wrap_int: the low `bits` bits,
 * sign-extended for signed dtypes, zero-extended for i1 and the unsigned
 * ones (ui64 is held as its bit pattern: its values from 2^63 up are
 * negative in the int64, so everything that reads a ui64 value as a number
 * goes through uint64_t, as eval_uint_binary does). Floats are
 * computed in double and rounded once to the dtype; for + - * / and sqrt of
 * f32/f16/bf16 operands that single rounding of the exact double result is
 * the correctly rounded IEEE result, because double carries more than twice
 * their precision plus two bits. */

/* uint64 -> int64 without implementation-defined conversion. */
static int64_t u64_to_i64(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(~u) - 1;
}

static int64_t sign_extend(uint64_t u, int bits)
{
    uint64_t mask = (UINT64_C(1) << bits) - 1, sign = UINT64_C(1) << (bits - 1);
    return (int64_t)((u & mask) ^ sign) - (int64_t)sign;
}

static int64_t wrap_int(ir_dtype dt, uint64_t u)
{
    int bits = ir_dtypes[dt].bits;
    if (bits >= 64)
        return u64_to_i64(u); /* i64, and ui64's bit pattern */
    if (dt == DT_I1 || ir_dtype_is_unsigned(dt))
        return (int64_t)(u & ((UINT64_C(1) << bits) - 1));
    return sign_extend(u, bits);
}

/* Rounds finite x to a binary format with p significant bits, minimum
 * normal exponent emin and largest finite value maxfinite, ties to even;
 * overflow gives a signed infinity. Scaling by powers of two is exact, so
 * the only rounding is rint()'s (the default rounding mode is
 * round-to-nearest-even). */
static double round_to_format(double x, int p, int emin, double maxfinite)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    (void)frexp(x, &e); /* |x| = m * 2^e, 0.5 <= m < 1: unbiased exponent e-1 */
    int exp = e - 1 < emin ? emin : e - 1;
    int quantum = exp - (p - 1); /* exponent of one unit in the last place */
    double r = ldexp(rint(ldexp(x, -quantum)), quantum);
    if (fabs(r) > maxfinite)
        return copysign(INFINITY, x);
    return r;
}

#define F16_MAX 65504.0
#define BF16_MAX 0x1.FEp127

static double round_f16(double x) { return round_to_format(x, 11, -14, F16_MAX); }
static double round_bf16(double x) { return round_to_format(x, 8, -126, BF16_MAX); }

static double round_float(ir_dtype dt, double x)
{
    switch (dt) {
    case DT_F16: return round_f16(x);
    case DT_BF16: return round_bf16(x);
    case DT_F32: return (double)(float)x; /* IEEE conversion: RNE, overflow to inf */
    default: return x;
    }
}

/* An int64 as a double that rounds correctly to any format of at most 51
 * bits: exact below 2^53, otherwise rounded to odd (the discarded bits are
 * folded into a sticky low bit), which makes the second rounding exact. */
static double uint_to_double_sticky(uint64_t mag)
{
    int shift = 0;
    while ((mag >> shift) >= (UINT64_C(1) << 53))
        shift++;
    uint64_t kept = mag >> shift;
    if (shift && (mag & ((UINT64_C(1) << shift) - 1)))
        kept |= 1;
    return ldexp((double)kept, shift);
}

static double int_to_double_sticky(int64_t v)
{
    double d = uint_to_double_sticky(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    return v < 0 ? -d : d;
}

/* Float -> integer dtype: truncate toward zero, saturate, NaN -> 0, and
 * anything -> i1 is (x != 0). */
static int64_t float_to_int(ir_dtype dt, double x)
{
    if (dt == DT_I1)
        return x != 0; /* NaN != 0 */
    if (isnan(x))
        return 0;
    /* [lo, hi_excl) is exactly representable as bounds: -2^(bits-1) and
     * 2^(bits-1) for signed dtypes, 0 and 2^bits for unsigned ones. */
    int bits = ir_dtypes[dt].bits;
    double t = trunc(x);
    if (ir_dtype_is_unsigned(dt)) {
        if (t <= 0)
            return 0;
        if (t >= ldexp(1.0, bits))
            return wrap_int(dt, UINT64_MAX); /* all ones: the largest value */
        return wrap_int(dt, (uint64_t)t);
    }
    double lo = -ldexp(1.0, bits - 1), hi_excl = ldexp(1.0, bits - 1);
    if (t <= lo)
        return ir_dtype_min_int(dt);
    if (t >= hi_excl)
        return ir_dtype_max_int(dt);
    return (int64_t)t;
}

ir_scalar ir_scalar_from_uint(ir_dtype dt, uint64_t v)
{
    ir_scalar s;
    if (ir_dtype_is_float(dt))
        s.f = dt == DT_F64 ? (double)v : round_float(dt, uint_to_double_sticky(v));
    else
        s.i = wrap_int(dt, v);
    return s;
}

ir_scalar ir_scalar_from_int(ir_dtype dt, int64_t v)
{
    ir_scalar s;
    if (ir_dtype_is_float(dt)) {
        /* Round to nearest once: f64 by the C conversion (exact below 2^53,
         * RNE above), narrower formats from the sticky double. */
        s.f = dt == DT_F64 ? (double)v : round_float(dt, int_to_double_sticky(v));
    } else {
        s.i = wrap_int(dt, (uint64_t)v);
    }
    return s;
}

ir_scalar ir_scalar_from_float(ir_dtype dt, double v)
{
    ir_scalar s;
    if (ir_dtype_is_float(dt))
        s.f = round_float(dt, v);
    else
        s.i = float_to_int(dt, v);
    return s;
}

ir_scalar ir_scalar_from_attr(ir_dtype dt, const ir_attr *a)
{
    if (!a)
        return ir_scalar_from_int(dt, 0);
    switch (a->kind) {
    case ATTR_FLOAT: return ir_scalar_from_float(dt, a->f);
    case ATTR_BOOL: return ir_scalar_from_int(dt, a->i != 0);
    case ATTR_INT: return ir_scalar_from_int(dt, a->i);
    default: return ir_scalar_from_int(dt, 0);
    }
}

/* ---- integer ops ------------------------------------------------------- */

static int int_bits(ir_dtype dt) { return ir_dtypes[dt].bits; }

/* Python floor division and modulo on canonical integers. Division by zero
 * gives 0 for both; b == -1 is handled apart because INT64_MIN / -1
 * overflows in C (the quotient wraps, the remainder is 0). */
static int64_t int_floordiv(ir_dtype dt, int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return wrap_int(dt, (uint64_t)0 - (uint64_t)a);
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        q--;
    return wrap_int(dt, (uint64_t)q);
}

static int64_t int_mod(ir_dtype dt, int64_t a, int64_t b)
{
    if (b == 0 || b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b; /* |r| < |b| and opposite signs: no overflow */
    return wrap_int(dt, (uint64_t)r);
}

/* C's division and remainder (truncation toward zero; the remainder has
 * a's sign), which Triton's // and % on integers follow. Defined where C
 * is not: a divisor of 0 gives 0 for both, and MIN / -1 wraps to MIN
 * (its remainder is 0). */
static int64_t int_idiv(ir_dtype dt, int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return wrap_int(dt, (uint64_t)0 - (uint64_t)a);
    return wrap_int(dt, (uint64_t)(a / b));
}

static int64_t int_rem(ir_dtype dt, int64_t a, int64_t b)
{
    if (b == 0 || b == -1)
        return 0;
    return wrap_int(dt, (uint64_t)(a % b));
}

/* The high half of the unsigned product of the low `bits` bits of a and b
 * (i32 and i64; other widths by the same rule). 64 x 64 bits is built from
 * 32-bit halves, as no 128-bit type is portable C11. */
static int64_t int_umulhi(ir_dtype dt, int64_t a, int64_t b)
{
    int bits = int_bits(dt);
    if (bits < 64) {
        uint64_t mask = (UINT64_C(1) << bits) - 1;
        uint64_t p = ((uint64_t)a & mask) * ((uint64_t)b & mask);
        return wrap_int(dt, p >> bits);
    }
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    uint64_t x0 = x & 0xffffffffu, x1 = x >> 32, y0 = y & 0xffffffffu, y1 = y >> 32;
    uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return u64_to_i64(p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32));
}

/* Counts outside [0, bits) shift everything out: 0 (or the sign for an
 * arithmetic right shift). */
static int64_t int_shl(ir_dtype dt, int64_t a, int64_t b)
{
    if (b < 0 || b >= int_bits(dt))
        return 0;
    return wrap_int(dt, (uint64_t)a << b);
}

static int64_t int_shr(ir_dtype dt, int64_t a, int64_t b)
{
    bool is_signed = ir_dtypes[dt].is_signed;
    if (b < 0 || b >= int_bits(dt))
        return is_signed && a < 0 ? -1 : 0;
    if (a < 0) /* signed only: unsigned values are never negative */
        return ~(~a >> b);
    return a >> b;
}

/* The ops whose meaning depends on signedness, on unsigned dtypes: the
 * canonical values read as uint64_t (zero-extended, or ui64's bits).
 * Division and remainder truncate (Python's floor rules agree on values
 * that are never negative); a divisor of 0 gives 0 for both; the right
 * shift is logical. */
static bool eval_uint_binary(ir_op_kind kind, ir_dtype dt, uint64_t a, uint64_t b, int64_t *out)
{
    switch (kind) {
    case IR_FLOORDIV: case IR_IDIV: *out = b ? wrap_int(dt, a / b) : 0; return true;
    case IR_MOD: case IR_REM: *out = b ? wrap_int(dt, a % b) : 0; return true;
    case IR_MINIMUM: *out = wrap_int(dt, a < b ? a : b); return true;
    case IR_MAXIMUM: *out = wrap_int(dt, a > b ? a : b); return true;
    case IR_SHR: *out = b >= (uint64_t)int_bits(dt) ? 0 : wrap_int(dt, a >> b); return true;
    case IR_SHL: *out = b >= (uint64_t)int_bits(dt) ? 0 : wrap_int(dt, a << b); return true;
    default: return false;
    }
}

static bool eval_int_binary(ir_op_kind kind, ir_dtype dt, int64_t a, int64_t b, int64_t *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if (ir_dtype_is_unsigned(dt) && eval_uint_binary(kind, dt, ua, ub, out))
        return true;
    switch (kind) {
    case IR_ADD: *out = wrap_int(dt, ua + ub); return true;
    case IR_SUB: *out = wrap_int(dt, ua - ub); return true;
    case IR_MUL: *out = wrap_int(dt, ua * ub); return true;
    case IR_FLOORDIV: *out = int_floordiv(dt, a, b); return true;
    case IR_MOD: *out = int_mod(dt, a, b); return true;
    case IR_IDIV: *out = int_idiv(dt, a, b); return true;
    case IR_REM: *out = int_rem(dt, a, b); return true;
    case IR_UMULHI: *out = int_umulhi(dt, a, b); return true;
    case IR_MINIMUM: *out = a < b ? a : b; return true;
    case IR_MAXIMUM: *out = a > b ? a : b; return true;
    case IR_AND: *out = wrap_int(dt, ua & ub); return true;
    case IR_OR: *out = wrap_int(dt, ua | ub); return true;
    case IR_XOR: *out = wrap_int(dt, ua ^ ub); return true;
    case IR_SHL: *out = int_shl(dt, a, b); return true;
    case IR_SHR: *out = int_shr(dt, a, b); return true;
    default: return false; /* DIV and anything not binary */
    }
}

/* ---- float ops ---------------------------------------------------------- */

/* Python's float // and %, as CPython's float_divmod computes them: the
 * remainder from fmod (exact), its sign fixed to the divisor's, and the
 * quotient from the exact difference, snapped to the nearest integer.
 * Division by zero follows IEEE instead of raising: a // 0 = floor(a / 0)
 * (+-inf, or NaN for 0 // 0), a % 0 = NaN. */
static void float_divmod(double a, double b, double *floordiv, double *mod)
{
    if (b == 0) {
        *floordiv = floor(a / b);
        *mod = NAN;
        return;
    }
    double m = fmod(a, b);
    double div = (a - m) / b;
    if (m != 0) {
        if ((b < 0) != (m < 0)) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = copysign(0.0, b);
    }
    double fd;
    if (div != 0) {
        fd = floor(div);
        if (div - fd > 0.5)
            fd += 1.0;
    } else {
        fd = copysign(0.0, a / b);
    }
    *floordiv = fd;
    *mod = m;
}

/* IEEE 754-2019 minimum/maximum: NaN if either is NaN, and -0 < +0. */
static double float_minimum(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static double float_maximum(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

static bool eval_float_binary(ir_op_kind kind, double a, double b, double *out)
{
    double unused;
    switch (kind) {
    case IR_ADD: *out = a + b; return true;
    case IR_SUB: *out = a - b; return true;
    case IR_MUL: *out = a * b; return true;
    case IR_DIV: *out = a / b; return true;
    case IR_FLOORDIV: float_divmod(a, b, out, &unused); return true;
    case IR_MOD: float_divmod(a, b, &unused, out); return true;
    case IR_MINIMUM: *out = float_minimum(a, b); return true;
    case IR_MAXIMUM: *out = float_maximum(a, b); return true;
    case IR_ATAN2: *out = atan2(a, b); return true;
    case IR_POW: *out = pow(a, b); return true;
    case IR_HYPOT: *out = hypot(a, b); return true;
    case IR_FMOD: *out = fmod(a, b); return true;
    case IR_COPYSIGN: *out = copysign(a, b); return true;
    default: return false; /* bitwise ops and shifts are integer-only */
    }
}

bool ir_eval_binary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar b, ir_scalar *out)
{
    if (dt == DT_VOID || dt >= DT_COUNT)
        return false;
    if (ir_dtype_is_float(dt)) {
        double r;
        if (!eval_float_binary(kind, a.f, b.f, &r))
            return false;
        out->f = round_float(dt, r);
        return true;
    }
    return eval_int_binary(kind, dt, a.i, b.i, &out->i);
}

/* 1/(1 + e^-x), as e^x/(1 + e^x) below 0 so that no e^-x overflows: the
 * tiny results for x below about -709 stay (1/(1 + inf) would be 0). */
static double sigmoid(double x)
{
    if (x >= 0)
        return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

bool ir_eval_unary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar *out)
{
    if (dt == DT_VOID || dt >= DT_COUNT)
        return false;
    if (!ir_dtype_is_float(dt)) {
        uint64_t ua = (uint64_t)a.i;
        switch (kind) {
        case IR_NEG: out->i = wrap_int(dt, (uint64_t)0 - ua); return true;
        case IR_ABS: /* unsigned values are their own magnitude */
            out->i = a.i < 0 && !ir_dtype_is_unsigned(dt) ? wrap_int(dt, (uint64_t)0 - ua) : a.i;
            return true;
        case IR_NOT: out->i = wrap_int(dt, ~ua); return true; /* i1: logical not */
        default: return false;
        }
    }
    double x = a.f, r;
    switch (kind) {
    case IR_NEG: r = -x; break;
    case IR_ABS: r = fabs(x); break;
    case IR_EXP: r = exp(x); break;
    case IR_EXP2: r = exp2(x); break;
    case IR_LOG: r = log(x); break;
    case IR_LOG2: r = log2(x); break;
    case IR_SQRT: r = sqrt(x); break;
    case IR_RSQRT: r = 1.0 / sqrt(x); break;
    case IR_FLOOR: r = floor(x); break;
    case IR_CEIL: r = ceil(x); break;
    case IR_SIN: r = sin(x); break;
    case IR_COS: r = cos(x); break;
    case IR_SIGMOID: r = sigmoid(x); break;
    case IR_ERF: r = erf(x); break;
    case IR_TRUNC: r = trunc(x); break;
    case IR_ROUND: r = round(x); break;
    case IR_RINT: r = nearbyint(x); break; /* the default mode: to nearest even */
    case IR_TAN: r = tan(x); break;
    case IR_ASIN: r = asin(x); break;
    case IR_ACOS: r = acos(x); break;
    case IR_ATAN: r = atan(x); break;
    case IR_SINH: r = sinh(x); break;
    case IR_COSH: r = cosh(x); break;
    case IR_TANH: r = tanh(x); break;
    case IR_ASINH: r = asinh(x); break;
    case IR_ACOSH: r = acosh(x); break;
    case IR_ATANH: r = atanh(x); break;
    case IR_EXPM1: r = expm1(x); break;
    case IR_LOG1P: r = log1p(x); break;
    case IR_LOG10: r = log10(x); break;
    case IR_EXP10: r = pow(10.0, x); break; /* exp10 is a GNU extension */
    case IR_CBRT: r = (double)cbrtl(x); break; /* glibc's cbrt is ~1 ulp off: cbrt(27) != 3 */
    case IR_ERFC: r = (double)erfcl(x); break; /* glibc's double erfc is up to ~5 ulp off */
    default: return false;
    }
    out->f = round_float(dt, r);
    return true;
}

bool ir_eval_ternary(ir_op_kind kind, ir_dtype dt, ir_scalar a, ir_scalar b, ir_scalar c,
                     ir_scalar *out)
{
    if (kind != IR_FMA || !ir_dtype_is_float(dt))
        return false;
    /* One rounding of the exact a * b + c: fma() for f64; f32, f16 and
     * bf16 (whose values are all f32 values) fuse in f32 with fmaf(), and
     * f16/bf16 round that result once more to their own format, as the
     * PTX backend computes them. */
    if (dt == DT_F64)
        out->f = fma(a.f, b.f, c.f);
    else
        out->f = round_float(dt, (double)fmaf((float)a.f, (float)b.f, (float)c.f));
    return true;
}

int ir_eval_cmp(const char *predicate, ir_dtype dt, ir_scalar a, ir_scalar b)
{
    if (!predicate)
        return -1;
    /* Canonical signed integers compare correctly as int64, unsigned ones
     * as uint64 (ui64 is held as its bits). Comparing (i ^ MIN) and (j ^
     * MIN) as int64 is comparing i and j as uint64. C's float comparisons
     * are IEEE's: every one involving NaN is false except !=. */
    bool fl = ir_dtype_is_float(dt);
    double x = a.f, y = b.f;
    int64_t i = a.i, j = b.i;
    if (ir_dtype_is_unsigned(dt)) {
        i = u64_to_i64((uint64_t)i ^ (UINT64_C(1) << 63));
        j = u64_to_i64((uint64_t)j ^ (UINT64_C(1) << 63));
    }
    if (!strcmp(predicate, "lt"))
        return fl ? x < y : i < j;
    if (!strcmp(predicate, "le"))
        return fl ? x <= y : i <= j;
    if (!strcmp(predicate, "gt"))
        return fl ? x > y : i > j;
    if (!strcmp(predicate, "ge"))
        return fl ? x >= y : i >= j;
    if (!strcmp(predicate, "eq"))
        return fl ? x == y : i == j;
    if (!strcmp(predicate, "ne"))
        return fl ? x != y : i != j;
    return -1;
}

ir_scalar ir_eval_cast(ir_dtype from, ir_dtype to, ir_scalar a)
{
    if (ir_dtype_is_float(from))
        return ir_scalar_from_float(to, a.f); /* rounds, or truncates+saturates */
    if (to == DT_I1) {
        ir_scalar s = {.i = a.i != 0};
        return s;
    }
    if (from == DT_U64) /* its bits, read as the unsigned value */
        return ir_scalar_from_uint(to, (uint64_t)a.i);
    return ir_scalar_from_int(to, a.i); /* int->int wraps; int->float rounds */
}

/* ---- reductions --------------------------------------------------------- */

int64_t ir_dtype_min_int(ir_dtype dt)
{
    switch (dt) {
    case DT_I8: return INT8_MIN;
    case DT_I16: return INT16_MIN;
    case DT_I32: return INT32_MIN;
    case DT_I64: return INT64_MIN;
    default: return 0; /* i1 and the unsigned dtypes */
    }
}

int64_t ir_dtype_max_int(ir_dtype dt)
{
    switch (dt) {
    case DT_I1: return 1;
    case DT_I8: return INT8_MAX;
    case DT_U8: return UINT8_MAX;
    case DT_I16: return INT16_MAX;
    case DT_U16: return UINT16_MAX;
    case DT_I32: return INT32_MAX;
    case DT_U32: return UINT32_MAX;
    case DT_U64: return -1; /* canonical: the bits of 2^64 - 1 */
    default: return INT64_MAX;
    }
}

bool ir_dtype_holds_int(ir_dtype dt, int64_t v)
{
    if (dt == DT_U64)
        return true; /* every bit pattern */
    return v >= ir_dtype_min_int(dt) && v <= ir_dtype_max_int(dt);
}

ir_dtype ir_reduce_accumulator(ir_dtype dt)
{
    switch (dt) {
    case DT_F16:
    case DT_BF16: return DT_F32;
    case DT_I1:
    case DT_I8:
    case DT_U8:
    case DT_I16: return DT_I32;
    case DT_U16: return DT_U32;
    default: return dt;
    }
}

ir_op_kind ir_reduce_combine_op(const char *kind)
{
    if (!kind)
        return IR_OP_COUNT;
    if (!strcmp(kind, "sum"))
        return IR_ADD;
    if (!strcmp(kind, "prod"))
        return IR_MUL;
    if (!strcmp(kind, "max"))
        return IR_MAXIMUM;
    if (!strcmp(kind, "min"))
        return IR_MINIMUM;
    return IR_OP_COUNT;
}

bool ir_eval_reduce_identity(const char *kind, ir_dtype dt, ir_scalar *out)
{
    ir_op_kind op = ir_reduce_combine_op(kind);
    if (op == IR_OP_COUNT || dt == DT_VOID || dt >= DT_COUNT)
        return false;
    bool fl = ir_dtype_is_float(dt);
    switch (op) {
    case IR_ADD: *out = ir_scalar_from_int(dt, 0); break;
    case IR_MUL: *out = ir_scalar_from_int(dt, 1); break;
    case IR_MAXIMUM:
        if (fl)
            out->f = -INFINITY;
        else
            out->i = ir_dtype_min_int(dt);
        break;
    default:
        if (fl)
            out->f = INFINITY;
        else
            out->i = ir_dtype_max_int(dt);
        break;
    }
    return true;
}

bool ir_eval_reduce_combine(const char *kind, ir_dtype dt, ir_scalar acc, ir_scalar x,
                            ir_scalar *out)
{
    ir_op_kind op = ir_reduce_combine_op(kind);
    if (op == IR_OP_COUNT)
        return false;
    return ir_eval_binary(op, dt, acc, x, out);
}

/* ---- storage ------------------------------------------------------------ */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Encodes a double that is already an f16 value (round_f16's output). */
static uint16_t f16_bits_of_rounded(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double ax = fabs(x);
    if (isnan(x))
        return sign | 0x7e00;
    if (isinf(x))
        return sign | 0x7c00;
    if (ax < 0x1p-14) /* subnormal or zero: a multiple of 2^-24 */
        return sign | (uint16_t)ldexp(ax, 24);
    int e;
    double m = frexp(ax, &e); /* ax = m * 2^e, m in [0.5, 1) */
    uint16_t mant = (uint16_t)(ldexp(m, 11) - 1024.0);
    return sign | (uint16_t)((e - 1 + 15) << 10) | mant;
}

static double f16_value(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp(mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp(1024 + mant, exp - 25);
    return (h & 0x8000) ? -v : v;
}

/* NaNs are converted bit-wise, keeping the sign and the top payload bits
 * (so that every f16 pattern round-trips through f32); a payload that
 * would vanish becomes the quiet bit so a NaN stays a NaN. */
uint16_t ir_f32_to_f16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7f800000) == 0x7f800000 && (u & 0x7fffff)) {
        uint16_t payload = (uint16_t)((u >> 13) & 0x3ff);
        return (uint16_t)((u >> 16) & 0x8000) | 0x7c00 | (payload ? payload : 0x200);
    }
    return f16_bits_of_rounded(round_f16((double)f));
}

float ir_f16_to_f32(uint16_t h)
{
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
        return bits_float(((uint32_t)(h & 0x8000) << 16) | 0x7f800000 | ((uint32_t)(h & 0x3ff) << 13));
    return (float)f16_value(h); /* exact */
}

/* bf16 is the top half of an f32: round the low half away, ties to even.
 * A carry out of the mantissa correctly bumps the exponent (up to inf). */
uint16_t ir_f32_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7f800000) == 0x7f800000 && (u & 0x7fffff)) {
        uint16_t h = (uint16_t)(u >> 16);
        return (h & 0x7f) ? h : (uint16_t)(h | 0x40);
    }
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float ir_bf16_to_f32(uint16_t h) { return bits_float((uint32_t)h << 16); }

ir_scalar ir_scalar_load(ir_dtype dt, const void *p)
{
    ir_scalar s;
    switch (dt) {
    case DT_I1: { uint8_t b; memcpy(&b, p, 1); s.i = b != 0; break; }
    case DT_I8: { int8_t b; memcpy(&b, p, 1); s.i = b; break; }
    case DT_U8: { uint8_t b; memcpy(&b, p, 1); s.i = b; break; }
    case DT_I16: { int16_t b; memcpy(&b, p, 2); s.i = b; break; }
    case DT_U16: { uint16_t b; memcpy(&b, p, 2); s.i = b; break; }
    case DT_I32: { int32_t b; memcpy(&b, p, 4); s.i = b; break; }
    case DT_U32: { uint32_t b; memcpy(&b, p, 4); s.i = b; break; }
    case DT_I64: case DT_U64: { int64_t b; memcpy(&b, p, 8); s.i = b; break; }
    case DT_F16: { uint16_t b; memcpy(&b, p, 2); s.f = ir_f16_to_f32(b); break; }
    case DT_BF16: { uint16_t b; memcpy(&b, p, 2); s.f = ir_bf16_to_f32(b); break; }
    case DT_F32: { float b; memcpy(&b, p, 4); s.f = b; break; }
    case DT_F64: { memcpy(&s.f, p, 8); break; }
    default: s.i = 0; break;
    }
    return s;
}

void ir_scalar_store(ir_dtype dt, void *p, ir_scalar v)
{
    switch (dt) {
    case DT_I1: { uint8_t b = v.i != 0; memcpy(p, &b, 1); break; }
    case DT_I8:
    case DT_U8: { uint8_t b = (uint8_t)((uint64_t)v.i & 0xff); memcpy(p, &b, 1); break; }
    case DT_I16:
    case DT_U16: { uint16_t b = (uint16_t)((uint64_t)v.i & 0xffff); memcpy(p, &b, 2); break; }
    case DT_I32:
    case DT_U32: { uint32_t b = (uint32_t)((uint64_t)v.i & 0xffffffffu); memcpy(p, &b, 4); break; }
    case DT_I64:
    case DT_U64: { memcpy(p, &v.i, 8); break; }
    case DT_F16: { uint16_t b = f16_bits_of_rounded(round_f16(v.f)); memcpy(p, &b, 2); break; }
    case DT_BF16: { uint16_t b = (uint16_t)(float_bits((float)round_bf16(v.f)) >> 16); memcpy(p, &b, 2); break; }
    case DT_F32: { float b = (float)v.f; memcpy(p, &b, 4); break; }
    case DT_F64: { memcpy(p, &v.f, 8); break; }
    default: break;
    }
}

ir_scalar ir_eval_bitcast(ir_dtype from, ir_dtype to, ir_scalar a)
{
    unsigned char bytes[8] = {0};
    ir_scalar_store(from, bytes, a);
    return ir_scalar_load(to, bytes);
}
