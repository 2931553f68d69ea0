/* ptx_math.c - libdevice's functions that have no PTX instruction (tan,
 * the inverse and hyperbolic functions, expm1, log1p, log10, exp10, cbrt,
 * atan2, pow, hypot), computed in software in float64 for every float
 * dtype: float32 converts exactly to float64, the function is computed
 * there and the result is rounded once to float32 (float16/bfloat16:
 * widened exactly, rounded once from float64 by ptx_emit_cast). Their
 * float64 errors, a few ulp, are far below half an ulp of float32, so the
 * float32 results are the correctly rounded ones except where the exact
 * value lies within a few 2^-29 ulp of a rounding boundary.
 *
 * Each function is a short C function that chains instruction templates
 * (ptx_internal.h; the shared float64 pieces are in ptx_f64.h), each
 * expanded with its own temporaries: step() returns a fresh f64 register
 * holding the template's $d, so exp, log and log1p compose like calls.
 * Algorithms (every constant computed in 80-digit decimal arithmetic and
 * rounded once; pi/2, pi/6, pi, ln2, ln10 and 1/ln10 in two parts, hi +
 * lo, where a rounding of the constant would show):
 *   atan2, atan   t = min/max of |y|, |x| in [0, 1]; t > tan(pi/12) is
 *                 reduced by atan t = pi/6 + atan((t sqrt3 - 1)/(t + sqrt3));
 *                 atan of |u| <= tan(pi/12) by its Taylor series to u^29
 *                 (truncation below 2^-58); then pi/2 - r, pi - r and the
 *                 sign by octant (the classic reduction, as in Cody & Waite's
 *                 "Software Manual for the Elementary Functions")
 *   asin, acos    atan2(x, sqrt(1 - x^2)) and atan2(sqrt(1 - x^2), x), with
 *                 1 - x^2 rounded once (fma)
 *   expm1         k = rint(x / ln2), r = x - k ln2 (Cody-Waite), e^r - 1 by
 *                 its Taylor series to r^14, then 2^k (e^r - 1) + (2^k - 1)
 *                 in one fma
 *   sinh cosh     |x| < 1: sinh's Taylor series to x^19; otherwise
 *   tanh          (E + E/(E + 1))/2 with E = expm1|x|, (e^|x| + e^-|x|)/2,
 *                 and beyond 709 (e^(|x|/2) / 2) e^(|x|/2) so that nothing
 *                 overflows early; tanh: -E/(E + 2) with E = expm1(-2|x|)
 *                 below 1, 1 - 2/(expm1(2|x|) + 2) above, 1 from 22
 *   log1p         u = 1 + x, log(u) x / (u - 1) (Goldberg, "What every
 *                 computer scientist should know about floating-point
 *                 arithmetic", theorem 4), x itself where u == 1
 *   asinh acosh   log(2|x| + 1/(sqrt(x^2 + 1) + |x|)) above 2 (log|x| + ln2
 *   atanh         beyond 2^28), log1p(|x| + x^2/(1 + sqrt(1 + x^2))) below;
 *                 acosh likewise with log1p(t + sqrt(2t + t^2)), t = x - 1;
 *                 atanh = log1p(2|x| / (1 - |x|)) / 2 (2|x| + 2x^2/(1 - |x|)
 *                 below 1/2), with the sign of x
 *   log10         log(x) / ln10, the product in two parts (fma)
 *   exp10         e^h (1 + l) with h + l = x ln10 to twice the precision
 *   cbrt          Kahan's exponent-over-three initial estimate, three Newton
 *                 steps (y = (2y + a/y^2)/3) and a last one whose residual
 *                 y^3 - a is computed to twice the precision (fma)
 *   hypot         m sqrt(1 + (n/m)^2) with m, n the larger and smaller of
 *                 |x|, |y| (no overflow or underflow in between)
 *   pow           exp(y log|x|) with log|x| to about 2^-58 (the core of
 *                 ptx_f64.h's log, its parts summed exactly) and y log|x|
 *                 as an exact product plus error, e^h (1 + l); then C99's
 *                 special cases (signs, zeros, infinities, NaN). In float64
 *                 the error grows with |y log|x|| (log's 2^-58 times y);
 *                 float32 rounds it away
 *   tan           the sin/cos reduction (Payne-Hanek beyond 2^40) and
 *                 polynomials of ptx_f64.h, then sin/cos or -cos/sin
 * The measured errors are in docs/language.md; test_ptx_math.c measures
 * them on this very PTX (an interpreter of the instructions it uses). */
#include "ptx_internal.h"
#include "ptx_f64.h"

#define F64_M_ONE "0dBFF0000000000000"
#define F64_THREE "0d4008000000000000"
#define F64_THIRD "0d3FD5555555555555"
#define F64_PI_HI "0d400921FB54442D18"
#define F64_PI_LO "0d3CA1A62633145C07"
#define F64_PI_2_HI "0d3FF921FB54442D18"
#define F64_PI_2_LO "0d3C91A62633145C07"
#define F64_PI_6_HI "0d3FE0C152382D7366"
#define F64_PI_6_LO "0dBC8EE6913347C2A6"
#define F64_SQRT3 "0d3FFBB67AE8584CAA"
#define F64_TAN_PI_12 "0d3FD126145E9ECD56"
#define F64_LN10_HI "0d40026BB1BBB55516"
#define F64_LN10_LO "0dBCAF48AD494EA3E9"
#define F64_INV_LN10_HI "0d3FDBCB7B1526E50E"
#define F64_INV_LN10_LO "0d3C695355BAAAFAD3"
#define F64_TWO_28 "0d41B0000000000000"

/* atan2(Y, X) (see above). Uses $e0-$e8, $l0, $p0-$p5. */
#define ATAN2_F64(Y, X)                                                                \
    "abs.f64 $e0, " Y "; abs.f64 $e1, " X "; max.f64 $e2, $e0, $e1; min.f64 $e3, $e0, $e1;" \
    "div.rn.f64 $e4, $e3, $e2; setp.eq.f64 $p0, $e2, " F64_ZERO "; @$p0 mov.f64 $e4, " F64_ZERO ";" \
    "setp.eq.f64 $p1, $e3, " F64_INF "; @$p1 mov.f64 $e4, " F64_ONE ";"                \
    "setp.gt.f64 $p2, $e4, " F64_TAN_PI_12 "; fma.rn.f64 $e5, $e4, " F64_SQRT3 ", " F64_M_ONE ";" \
    "add.rn.f64 $e6, $e4, " F64_SQRT3 "; div.rn.f64 $e5, $e5, $e6; selp.f64 $e5, $e5, $e4, $p2;" \
    "mul.rn.f64 $e6, $e5, $e5; mov.f64 $e7, 0d3FA1A7B9611A7B96;"                       \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFA2F684BDA12F68; fma.rn.f64 $e7, $e7, $e6, 0d3FA47AE147AE147B;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFA642C8590B2164; fma.rn.f64 $e7, $e7, $e6, 0d3FA8618618618618;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFAAF286BCA1AF28; fma.rn.f64 $e7, $e7, $e6, 0d3FAE1E1E1E1E1E1E;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFB1111111111111; fma.rn.f64 $e7, $e7, $e6, 0d3FB3B13B13B13B14;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFB745D1745D1746; fma.rn.f64 $e7, $e7, $e6, 0d3FBC71C71C71C71C;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFC2492492492492; fma.rn.f64 $e7, $e7, $e6, 0d3FC999999999999A;" \
    "fma.rn.f64 $e7, $e7, $e6, 0dBFD5555555555555; mul.rn.f64 $e8, $e5, $e6;"         \
    "fma.rn.f64 $e7, $e8, $e7, $e5;"                                                   \
    "add.rn.f64 $e8, $e7, " F64_PI_6_LO "; add.rn.f64 $e8, $e8, " F64_PI_6_HI "; selp.f64 $e7, $e8, $e7, $p2;" \
    "setp.gt.f64 $p3, $e0, $e1; sub.rn.f64 $e8, " F64_PI_2_LO ", $e7;"                 \
    "add.rn.f64 $e8, $e8, " F64_PI_2_HI "; selp.f64 $e7, $e8, $e7, $p3;"               \
    "mov.b64 $l0, " X "; setp.lt.s64 $p4, $l0, 0; sub.rn.f64 $e8, " F64_PI_LO ", $e7;" \
    "add.rn.f64 $e8, $e8, " F64_PI_HI "; selp.f64 $e7, $e8, $e7, $p4;"                 \
    "copysign.f64 $e7, " Y ", $e7; setp.nan.f64 $p5, " Y ", " X ";"                   \
    "add.rn.f64 $e8, " Y ", " X "; selp.f64 $d, $e8, $e7, $p5;"

/* e^X - 1 (see above); X itself for +-0 and NaN. Uses $e0-$e5, $r0, $l0,
 * $p0-$p2. */
#define EXPM1_F64(X)                                                                   \
    "max.f64 $e0, " X ", 0dC046800000000000; min.f64 $e0, $e0, 0d40862E6666666666;"    \
    "mul.rn.f64 $e1, $e0, " F64_LOG2E "; cvt.rni.f64.f64 $e1, $e1; neg.f64 $e2, $e1;"  \
    "fma.rn.f64 $e3, $e2, " F64_LN2_HI ", $e0; fma.rn.f64 $e3, $e2, " F64_LN2_LO ", $e3;" \
    "mov.f64 $e4, 0d3DA93974A8C07C9D;"                                                 \
    "fma.rn.f64 $e4, $e4, $e3, 0d3DE6124613A86D09; fma.rn.f64 $e4, $e4, $e3, 0d3E21EED8EFF8D898;" \
    "fma.rn.f64 $e4, $e4, $e3, 0d3E5AE64567F544E4; fma.rn.f64 $e4, $e4, $e3, 0d3E927E4FB7789F5C;" \
    "fma.rn.f64 $e4, $e4, $e3, 0d3EC71DE3A556C734; fma.rn.f64 $e4, $e4, $e3, 0d3EFA01A01A01A01A;" \
    "fma.rn.f64 $e4, $e4, $e3, 0d3F2A01A01A01A01A; fma.rn.f64 $e4, $e4, $e3, 0d3F56C16C16C16C17;" \
    "fma.rn.f64 $e4, $e4, $e3, 0d3F81111111111111; fma.rn.f64 $e4, $e4, $e3, 0d3FA5555555555555;" \
    "fma.rn.f64 $e4, $e4, $e3, 0d3FC5555555555555; fma.rn.f64 $e4, $e4, $e3, " F64_HALF ";" \
    "mul.rn.f64 $e5, $e3, $e3; fma.rn.f64 $e4, $e5, $e4, $e3;"                         \
    "cvt.rni.s32.f64 $r0, $e1; add.s32 $r0, $r0, 1022; cvt.u64.u32 $l0, $r0;"          \
    "shl.b64 $l0, $l0, 52; mov.b64 $e5, $l0;"                                          \
    "sub.rn.f64 $e0, $e5, " F64_HALF "; fma.rn.f64 $e0, $e4, $e5, $e0; add.rn.f64 $e0, $e0, $e0;" \
    "setp.eq.f64 $p0, $e1, " F64_ZERO "; selp.f64 $e0, $e4, $e0, $p0;"                \
    "setp.nan.f64 $p1, " X ", " X "; setp.eq.f64 $p2, " X ", " F64_ZERO "; or.pred $p1, $p1, $p2;" \
    "selp.f64 $d, " X ", $e0, $p1;"

/* $a (1 + $b): e^h (1 + l) for e^(h + l); e^h itself where it is infinite
 * (inf * 0 would be NaN) */
#define SCALE_EXP_F64                                                                  \
    "fma.rn.f64 $e0, $a, $b, $a; testp.infinite.f64 $p0, $a; selp.f64 $d, $a, $e0, $p0;"

/* ---- composition ---------------------------------------------------------------- */

/* Expands tmpl with $a $b $c = a b c (0: not used) and a fresh f64 $d;
 * returns $d. */
static ptx_reg step(ptx_emitter *e, const char *tmpl, ptx_reg a, ptx_reg b, ptx_reg c)
{
    ptx_reg d = ptx_new_reg(e, RC_F64);
    ptx_operands o = {.d = d, .a = a, .b = b, .c = c, .tclass = RC_F64, .T = "f64", .B = "b64",
                      .U = "u64"};
    ptx_expand(e, tmpl, &o);
    return d;
}

static ptx_reg f_log(ptx_emitter *e, ptx_reg x) { return step(e, LOG_F64, x, 0, 0); }
static ptx_reg f_exp(ptx_emitter *e, ptx_reg x) { return step(e, EXP_F64("$a", "$d"), x, 0, 0); }
static ptx_reg f_expm1(ptx_emitter *e, ptx_reg x) { return step(e, EXPM1_F64("$a"), x, 0, 0); }
static ptx_reg f_abs(ptx_emitter *e, ptx_reg x) { return step(e, "abs.f64 $d, $a;", x, 0, 0); }

static ptx_reg f_log1p(ptx_emitter *e, ptx_reg x)
{
    ptx_reg u = step(e, "add.rn.f64 $d, $a, " F64_ONE ";", x, 0, 0);
    return step(e, "sub.rn.f64 $e0, $b, " F64_ONE "; div.rn.f64 $e0, $a, $e0; mul.rn.f64 $e0, $c, $e0;"
                   "setp.eq.f64 $p0, $b, " F64_ONE "; selp.f64 $e0, $a, $e0, $p0;"
                   "setp.eq.f64 $p1, $a, " F64_INF "; selp.f64 $d, $a, $e0, $p1;",
                x, u, f_log(e, u));
}

static ptx_reg f_atan2(ptx_emitter *e, const ptx_reg *x) { return step(e, ATAN2_F64("$a", "$b"), x[0], x[1], 0); }

static ptx_reg f_atan(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg one = step(e, "mov.f64 $d, " F64_ONE ";", 0, 0, 0);
    return step(e, ATAN2_F64("$a", "$b"), x[0], one, 0);
}

/* sqrt(1 - x^2), 1 - x^2 rounded once */
static ptx_reg sqrt_one_minus_square(ptx_emitter *e, ptx_reg x)
{
    return step(e, "neg.f64 $e0, $a; fma.rn.f64 $e0, $e0, $a, " F64_ONE "; sqrt.rn.f64 $d, $e0;", x, 0, 0);
}

static ptx_reg f_asin(ptx_emitter *e, const ptx_reg *x)
{
    return step(e, ATAN2_F64("$a", "$b"), x[0], sqrt_one_minus_square(e, x[0]), 0);
}

static ptx_reg f_acos(ptx_emitter *e, const ptx_reg *x)
{
    return step(e, ATAN2_F64("$b", "$a"), x[0], sqrt_one_minus_square(e, x[0]), 0);
}

static ptx_reg f_tan(ptx_emitter *e, const ptx_reg *x)
{
    e->two_over_pi = true;
    return step(e, SINCOS_REDUCE_F64 SINCOS_POLYS_F64
                   "and.b32 $r9, $r0, 1; setp.ne.u32 $p8, $r9, 0; neg.f64 $e9, $e8;"
                   "selp.f64 $ea, $e9, $e7, $p8; selp.f64 $eb, $e7, $e8, $p8; div.rn.f64 $d, $ea, $eb;",
                x[0], 0, 0);
}

static ptx_reg f_expm1_op(ptx_emitter *e, const ptx_reg *x) { return f_expm1(e, x[0]); }
static ptx_reg f_log1p_op(ptx_emitter *e, const ptx_reg *x) { return f_log1p(e, x[0]); }

static ptx_reg f_sinh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg big = f_exp(e, step(e, "mul.rn.f64 $d, $a, " F64_HALF ";", a, 0, 0));
    return step(e, "abs.f64 $e0, $a; mul.rn.f64 $e1, $a, $a; mov.f64 $e2, 0d3C62F49B46814157;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3CE952C77030AD4A; fma.rn.f64 $e2, $e2, $e1, 0d3D6AE7F3E733B81F;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3DE6124613A86D09; fma.rn.f64 $e2, $e2, $e1, 0d3E5AE64567F544E4;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3EC71DE3A556C734; fma.rn.f64 $e2, $e2, $e1, 0d3F2A01A01A01A01A;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3F81111111111111; fma.rn.f64 $e2, $e2, $e1, 0d3FC5555555555555;"
                   "mul.rn.f64 $e3, $a, $e1; fma.rn.f64 $e2, $e3, $e2, $a;"
                   "add.rn.f64 $e4, $b, " F64_ONE "; div.rn.f64 $e4, $b, $e4; add.rn.f64 $e4, $e4, $b;"
                   "mul.rn.f64 $e4, $e4, " F64_HALF "; mul.rn.f64 $e5, $c, " F64_HALF "; mul.rn.f64 $e5, $e5, $c;"
                   "setp.lt.f64 $p0, $e0, 0d4086280000000000; selp.f64 $e4, $e4, $e5, $p0;"
                   "copysign.f64 $e4, $a, $e4; setp.lt.f64 $p1, $e0, " F64_ONE "; selp.f64 $d, $e2, $e4, $p1;",
                x[0], f_expm1(e, a), big);
}

static ptx_reg f_cosh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg big = f_exp(e, step(e, "mul.rn.f64 $d, $a, " F64_HALF ";", a, 0, 0));
    return step(e, "mul.rn.f64 $e0, $b, " F64_HALF "; div.rn.f64 $e1, " F64_HALF ", $b; add.rn.f64 $e0, $e0, $e1;"
                   "mul.rn.f64 $e2, $c, " F64_HALF "; mul.rn.f64 $e2, $e2, $c;"
                   "setp.lt.f64 $p0, $a, 0d4086280000000000; selp.f64 $d, $e0, $e2, $p0;",
                a, f_exp(e, a), big);
}

static ptx_reg f_tanh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg up = f_expm1(e, step(e, "add.rn.f64 $d, $a, $a;", a, 0, 0));
    ptx_reg down = f_expm1(e, step(e, "add.rn.f64 $d, $a, $a; neg.f64 $d, $d;", a, 0, 0));
    ptx_reg r = step(e, "add.rn.f64 $e0, $b, " F64_TWO "; div.rn.f64 $e0, " F64_TWO ", $e0;"
                        "sub.rn.f64 $e0, " F64_ONE ", $e0; add.rn.f64 $e1, $c, " F64_TWO ";"
                        "div.rn.f64 $e1, $c, $e1; neg.f64 $e1, $e1; setp.lt.f64 $p0, $a, " F64_ONE ";"
                        "selp.f64 $e0, $e1, $e0, $p0; setp.ge.f64 $p1, $a, 0d4036000000000000;"
                        "selp.f64 $d, " F64_ONE ", $e0, $p1;",
                     a, up, down);
    return step(e, "copysign.f64 $d, $a, $b;", x[0], r, 0);
}

static ptx_reg f_asinh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg s = step(e, "fma.rn.f64 $e0, $a, $a, " F64_ONE "; sqrt.rn.f64 $d, $e0;", a, 0, 0);
    ptx_reg big = f_log(e, step(e, "add.rn.f64 $e0, $b, $a; rcp.rn.f64 $e0, $e0; fma.rn.f64 $e0, $a, " F64_TWO ", $e0;"
                                   "setp.gt.f64 $p0, $a, " F64_TWO_28 "; selp.f64 $d, $a, $e0, $p0;",
                                a, s, 0));
    ptx_reg small = f_log1p(e, step(e, "mul.rn.f64 $e0, $a, $a; add.rn.f64 $e1, $b, " F64_ONE ";"
                                       "div.rn.f64 $e0, $e0, $e1; add.rn.f64 $d, $e0, $a;",
                                    a, s, 0));
    ptx_reg r = step(e, "setp.gt.f64 $p0, $a, " F64_TWO_28 "; add.rn.f64 $e0, $b, " F64_LN2 ";"
                        "selp.f64 $e0, $e0, $b, $p0; setp.gt.f64 $p1, $a, " F64_TWO "; selp.f64 $d, $e0, $c, $p1;",
                     a, big, small);
    return step(e, "copysign.f64 $d, $a, $b;", x[0], r, 0);
}

static ptx_reg f_acosh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg s = step(e, "fma.rn.f64 $e0, $a, $a, " F64_M_ONE "; sqrt.rn.f64 $d, $e0;", x[0], 0, 0);
    ptx_reg big = f_log(e, step(e, "add.rn.f64 $e0, $b, $a; rcp.rn.f64 $e0, $e0; neg.f64 $e0, $e0;"
                                   "fma.rn.f64 $e0, $a, " F64_TWO ", $e0; setp.gt.f64 $p0, $a, " F64_TWO_28 ";"
                                   "selp.f64 $d, $a, $e0, $p0;",
                                x[0], s, 0));
    ptx_reg small = f_log1p(e, step(e, "sub.rn.f64 $e0, $a, " F64_ONE "; add.rn.f64 $e1, $e0, $e0;"
                                       "fma.rn.f64 $e1, $e0, $e0, $e1; sqrt.rn.f64 $e1, $e1; add.rn.f64 $d, $e0, $e1;",
                                    x[0], 0, 0));
    return step(e, "setp.gt.f64 $p0, $a, " F64_TWO_28 "; add.rn.f64 $e0, $b, " F64_LN2 ";"
                   "selp.f64 $e0, $e0, $b, $p0; setp.gt.f64 $p1, $a, " F64_TWO "; selp.f64 $e0, $e0, $c, $p1;"
                   "setp.lt.f64 $p2, $a, " F64_ONE "; selp.f64 $d, " F64_NAN ", $e0, $p2;",
                x[0], big, small);
}

static ptx_reg f_atanh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg l = f_log1p(e, step(e, "sub.rn.f64 $e0, " F64_ONE ", $a; add.rn.f64 $e1, $a, $a;"
                                   "div.rn.f64 $e2, $e1, $e0; mul.rn.f64 $e3, $e1, $a; div.rn.f64 $e3, $e3, $e0;"
                                   "add.rn.f64 $e3, $e3, $e1; setp.lt.f64 $p0, $a, " F64_HALF ";"
                                   "selp.f64 $d, $e3, $e2, $p0;",
                                a, 0, 0));
    return step(e, "mul.rn.f64 $e0, $b, " F64_HALF "; copysign.f64 $d, $a, $e0;", x[0], l, 0);
}

static ptx_reg f_log10(ptx_emitter *e, const ptx_reg *x)
{
    return step(e, "mul.rn.f64 $e0, $a, " F64_INV_LN10_HI "; neg.f64 $e1, $e0;"
                   "fma.rn.f64 $e1, $a, " F64_INV_LN10_HI ", $e1; fma.rn.f64 $e1, $a, " F64_INV_LN10_LO ", $e1;"
                   "add.rn.f64 $e1, $e0, $e1; testp.finite.f64 $p0, $a; selp.f64 $d, $e1, $e0, $p0;",
                f_log(e, x[0]), 0, 0);
}

static ptx_reg f_exp10(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg hi = step(e, "mul.rn.f64 $d, $a, " F64_LN10_HI ";", x[0], 0, 0);
    ptx_reg lo = step(e, "neg.f64 $e0, $b; fma.rn.f64 $e0, $a, " F64_LN10_HI ", $e0;"
                         "fma.rn.f64 $e0, $a, " F64_LN10_LO ", $e0; testp.finite.f64 $p0, $e0;"
                         "selp.f64 $d, $e0, " F64_ZERO ", $p0;",
                      x[0], hi, 0);
    return step(e, SCALE_EXP_F64, f_exp(e, hi), lo, 0);
}

static ptx_reg f_cbrt(ptx_emitter *e, const ptx_reg *x)
{
#define CBRT_NEWTON                                                                    \
    "mul.rn.f64 $e3, $e2, $e2; div.rn.f64 $e3, $e1, $e3; fma.rn.f64 $e3, $e2, " F64_TWO ", $e3;" \
    "mul.rn.f64 $e2, $e3, " F64_THIRD ";"
    return step(e, "abs.f64 $e0, $a; setp.lt.f64 $p0, $e0, 0d0010000000000000;"
                   "mul.rn.f64 $e1, $e0, 0d4350000000000000; selp.f64 $e1, $e1, $e0, $p0;"
                   "mov.b64 $l0, $e1; shr.u64 $l0, $l0, 32; cvt.u32.u64 $r0, $l0; div.u32 $r0, $r0, 3;"
                   "add.u32 $r0, $r0, 715094163; cvt.u64.u32 $l0, $r0; shl.b64 $l0, $l0, 32; mov.b64 $e2, $l0;"
                   CBRT_NEWTON CBRT_NEWTON CBRT_NEWTON
                   "mul.rn.f64 $e3, $e2, $e2; neg.f64 $e4, $e3; fma.rn.f64 $e4, $e2, $e2, $e4;"
                   "neg.f64 $e5, $e1; fma.rn.f64 $e5, $e3, $e2, $e5; fma.rn.f64 $e5, $e4, $e2, $e5;"
                   "mul.rn.f64 $e6, $e3, " F64_THREE "; div.rn.f64 $e5, $e5, $e6; sub.rn.f64 $e2, $e2, $e5;"
                   "mul.rn.f64 $e6, $e2, 0d3ED0000000000000; selp.f64 $e2, $e6, $e2, $p0;"
                   "copysign.f64 $e2, $a, $e2; testp.finite.f64 $p1, $a; setp.neu.f64 $p2, $a, " F64_ZERO ";"
                   "and.pred $p1, $p1, $p2; selp.f64 $d, $e2, $a, $p1;",
                x[0], 0, 0);
#undef CBRT_NEWTON
}

static ptx_reg f_hypot(ptx_emitter *e, const ptx_reg *x)
{
    return step(e, "abs.f64 $e0, $a; abs.f64 $e1, $b; max.f64 $e2, $e0, $e1; min.f64 $e3, $e0, $e1;"
                   "div.rn.f64 $e4, $e3, $e2; fma.rn.f64 $e4, $e4, $e4, " F64_ONE "; sqrt.rn.f64 $e4, $e4;"
                   "mul.rn.f64 $e4, $e4, $e2; setp.eq.f64 $p0, $e2, " F64_ZERO "; @$p0 mov.f64 $e4, " F64_ZERO ";"
                   "setp.nan.f64 $p1, $a, $b; @$p1 mov.f64 $e4, " F64_NAN ";"
                   "setp.eq.f64 $p2, $e0, " F64_INF "; setp.eq.f64 $p3, $e1, " F64_INF "; or.pred $p2, $p2, $p3;"
                   "@$p2 mov.f64 $e4, " F64_INF "; mov.f64 $d, $e4;",
                x[0], x[1], 0);
}

/* y log|x| as hi ($d) + lo (written to $c): log|x| = k ln2 + f - hfsq +
 * s (hfsq + R) from LOG_CORE_F64, with f - hfsq, hfsq's rounding error and
 * k ln2 + (f - hfsq) summed exactly (TwoSum) and the rest as their tail. */
#define POW_LOG_MUL_F64                                                                \
    LOG_CORE_F64                                                                       \
    "mul.rn.f64 $e6, $e2, " F64_HALF "; neg.f64 $e7, $e4; fma.rn.f64 $e7, $e6, $e2, $e7;" \
    "add.rn.f64 $e8, $e4, $e5; mul.rn.f64 $e8, $e3, $e8;"                              \
    "sub.rn.f64 $e9, $e2, $e4; sub.rn.f64 $ea, $e2, $e9; sub.rn.f64 $ea, $ea, $e4;"    \
    "sub.rn.f64 $ea, $ea, $e7; add.rn.f64 $ea, $ea, $e8; fma.rn.f64 $ea, $e1, " F64_LN2_LO ", $ea;" \
    "mul.rn.f64 $eb, $e1, " F64_LN2_HI "; add.rn.f64 $ec, $eb, $e9; sub.rn.f64 $ed, $ec, $eb;" \
    "sub.rn.f64 $ee, $ec, $ed; sub.rn.f64 $ee, $eb, $ee; sub.rn.f64 $ed, $e9, $ed;"   \
    "add.rn.f64 $ed, $ed, $ee; add.rn.f64 $ed, $ed, $ea;"                              \
    "add.rn.f64 $ee, $ec, $ed; sub.rn.f64 $ef, $ee, $ec; sub.rn.f64 $ef, $ed, $ef;"    \
    "setp.eq.f64 $p3, $a, " F64_INF "; @$p3 mov.f64 $ee, " F64_INF ";"                 \
    "setp.eq.f64 $p3, $a, " F64_ZERO "; @$p3 mov.f64 $ee, " F64_NEG_INF ";"            \
    "setp.nan.f64 $p3, $a, $a; @$p3 mov.f64 $ee, $a;"                                  \
    "mul.rn.f64 $e0, $b, $ee; neg.f64 $e1, $e0; fma.rn.f64 $e1, $b, $ee, $e1;"         \
    "fma.rn.f64 $e1, $b, $ef, $e1; testp.finite.f64 $p3, $e1;"                         \
    "selp.f64 $c, $e1, " F64_ZERO ", $p3; mov.f64 $d, $e0;"

static ptx_reg f_pow(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg lo = ptx_new_reg(e, RC_F64); /* POW_LOG_MUL_F64's second result */
    ptx_reg hi = step(e, POW_LOG_MUL_F64, f_abs(e, x[0]), x[1], lo);
    ptx_reg r = step(e, SCALE_EXP_F64, f_exp(e, hi), lo, 0);
    /* C99's special cases: y integral ($p0), odd ($p1); a negative x (or
     * -0, -inf) to an odd y negates; a finite x < 0 to a non-integral y is
     * NaN; y = 0, x = 1 and x = -1 with y = +-inf give 1. */
    return step(e, "cvt.rzi.f64.f64 $e0, $b; setp.eq.f64 $p0, $e0, $b;"
                   "mul.rn.f64 $e1, $b, " F64_HALF "; cvt.rzi.f64.f64 $e2, $e1; setp.neu.f64 $p1, $e2, $e1;"
                   "and.pred $p1, $p1, $p0; mov.b64 $l0, $a; setp.lt.s64 $p2, $l0, 0; and.pred $p2, $p2, $p1;"
                   "neg.f64 $e3, $c; selp.f64 $e3, $e3, $c, $p2;"
                   "setp.lt.f64 $p3, $a, " F64_ZERO "; setp.gt.f64 $p4, $a, " F64_NEG_INF ";"
                   "and.pred $p3, $p3, $p4; not.pred $p5, $p0; and.pred $p3, $p3, $p5;"
                   "@$p3 mov.f64 $e3, " F64_NAN ";"
                   "setp.eq.f64 $p3, $b, " F64_ZERO "; setp.eq.f64 $p4, $a, " F64_ONE "; or.pred $p3, $p3, $p4;"
                   "abs.f64 $e4, $b; setp.eq.f64 $p4, $e4, " F64_INF "; setp.eq.f64 $p5, $a, " F64_M_ONE ";"
                   "and.pred $p4, $p4, $p5; or.pred $p3, $p3, $p4; selp.f64 $d, " F64_ONE ", $e3, $p3;",
                x[0], x[1], r);
}

/* ---- the table and the dtype driver ---------------------------------------------- */

typedef ptx_reg (*math_fn)(ptx_emitter *e, const ptx_reg *x);

static const struct {
    ir_op_kind op;
    math_fn f64;
} math_fns[] = {
    {IR_TAN, f_tan},       {IR_ASIN, f_asin},   {IR_ACOS, f_acos},   {IR_ATAN, f_atan},
    {IR_SINH, f_sinh},     {IR_COSH, f_cosh},   {IR_TANH, f_tanh},   {IR_ASINH, f_asinh},
    {IR_ACOSH, f_acosh},   {IR_ATANH, f_atanh}, {IR_EXPM1, f_expm1_op}, {IR_LOG1P, f_log1p_op},
    {IR_LOG10, f_log10},   {IR_EXP10, f_exp10}, {IR_CBRT, f_cbrt},   {IR_ATAN2, f_atan2},
    {IR_POW, f_pow},       {IR_HYPOT, f_hypot},
};

bool ptx_emit_math(ptx_emitter *e, ir_op_kind op, ir_dtype dt, ptx_reg dst, const ptx_reg *src)
{
    math_fn f = NULL;
    for (size_t i = 0; i < sizeof math_fns / sizeof math_fns[0]; i++)
        if (math_fns[i].op == op)
            f = math_fns[i].f64;
    if (!f)
        return false;
    if (dt != DT_F64 && dt != DT_F32 && dt != DT_F16 && dt != DT_BF16)
        sw_unreachable(e->d, "PTX: %s on %s", ir_ops[op].name, ir_dtypes[dt].name);
    ptx_reg x[2] = {0, 0};
    for (int i = 0; i < ir_ops[op].noperands && i < 2; i++) {
        if (dt == DT_F64) {
            x[i] = src[i];
        } else {
            x[i] = ptx_new_reg(e, RC_F64);
            ptx_emit_cast(e, dt, DT_F64, x[i], src[i]); /* exact */
        }
    }
    ptx_reg r = f(e, x);
    if (dt == DT_F64)
        ptx_mov(e, dst, r);
    else
        ptx_emit_cast(e, DT_F64, dt, dst, r); /* one rounding */
    return true;
}
