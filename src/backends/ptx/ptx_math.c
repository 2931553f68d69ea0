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
 *                 and beyond 709 e^(|x| - 1) (e/2) (|x| - 1 is exact;
 *                 e/2 in two parts, one fma) so that nothing overflows
 *                 early, to one exp's error and a rounding (the square
 *                 of e^(|x|/2) it replaces doubled the exp's error: 2.54
 *                 ulp was seen for cosh near 709); tanh: -E/(E + 2) with E = expm1(-2|x|)
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
 *   erfc          x < 1/4: 1 - erf(x) (ptx_ops.c's erf; no cancellation
 *                 there, erfc > 0.72); 1/4 <= x < 27.5: e^(-x^2) erfcx(x),
 *                 erfcx(x) = e^(x^2) erfc(x) (smooth, about 1/(x sqrt pi))
 *                 from a table of 14 polynomials of degree 19, one per
 *                 interval [2^k, 1.5 2^k) and [1.5 2^k, 2^(k+1)), k = -2..4,
 *                 each the Chebyshev interpolant of erfcx at 20 nodes
 *                 (60-digit mpmath) in s = (x - mid) / halfwidth (exact),
 *                 as monomials (relative error of the rounded coefficients
 *                 below 2^-53.5 on every interval); e^(-x^2) as
 *                 e^(-hi) (1 - lo) with x^2 = hi + lo exactly (fma);
 *                 from 27.5 (erfc < 2^-1075) 0, and NaN for NaN
 * The measured errors are in docs/language.md; test_ptx_math.c measures
 * them on this very PTX (an interpreter of the instructions it uses). */
#include "ptx_internal.h"
#include "ptx_f64.h"

/* e/2 = F64_HALF_E_HI + F64_HALF_E_LO to about 2^-106 (sinh and cosh beyond 709) */
#define F64_HALF_E_HI "0d3FF5BF0A8B145769"
#define F64_HALF_E_LO "0d3C94D57EE2B1013A"

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
    ptx_reg big = f_exp(e, step(e, "sub.rn.f64 $d, $a, " F64_ONE ";", a, 0, 0));
    return step(e, "abs.f64 $e0, $a; mul.rn.f64 $e1, $a, $a; mov.f64 $e2, 0d3C62F49B46814157;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3CE952C77030AD4A; fma.rn.f64 $e2, $e2, $e1, 0d3D6AE7F3E733B81F;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3DE6124613A86D09; fma.rn.f64 $e2, $e2, $e1, 0d3E5AE64567F544E4;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3EC71DE3A556C734; fma.rn.f64 $e2, $e2, $e1, 0d3F2A01A01A01A01A;"
                   "fma.rn.f64 $e2, $e2, $e1, 0d3F81111111111111; fma.rn.f64 $e2, $e2, $e1, 0d3FC5555555555555;"
                   "mul.rn.f64 $e3, $a, $e1; fma.rn.f64 $e2, $e3, $e2, $a;"
                   "add.rn.f64 $e4, $b, " F64_ONE "; div.rn.f64 $e4, $b, $e4; add.rn.f64 $e4, $e4, $b;"
                   "mul.rn.f64 $e4, $e4, " F64_HALF "; mul.rn.f64 $e5, $c, " F64_HALF_E_LO ";"
                   "fma.rn.f64 $e5, $c, " F64_HALF_E_HI ", $e5;"
                   "setp.lt.f64 $p0, $e0, 0d4086280000000000; selp.f64 $e4, $e4, $e5, $p0;"
                   "copysign.f64 $e4, $a, $e4; setp.lt.f64 $p1, $e0, " F64_ONE "; selp.f64 $d, $e2, $e4, $p1;",
                x[0], f_expm1(e, a), big);
}

static ptx_reg f_cosh(ptx_emitter *e, const ptx_reg *x)
{
    ptx_reg a = f_abs(e, x[0]);
    ptx_reg big = f_exp(e, step(e, "sub.rn.f64 $d, $a, " F64_ONE ";", a, 0, 0));
    return step(e, "mul.rn.f64 $e0, $b, " F64_HALF "; div.rn.f64 $e1, " F64_HALF ", $b; add.rn.f64 $e0, $e0, $e1;"
                   "mul.rn.f64 $e2, $c, " F64_HALF_E_LO "; fma.rn.f64 $e2, $c, " F64_HALF_E_HI ", $e2;"
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

/* erfc: the polynomials of erfcx (see above), row k = the interval of
 * index k: its midpoint, 1/halfwidth, then the coefficients of s^19 .. s^0
 * (22 words, 176 bytes a row). */
const char ptx_erfc_table_decl[] =
    ".const .align 8 .b64 " PTX_ERFC_TABLE "[308] = {\n"
    "\t0x3FD4000000000000, 0x4030000000000000, 0xB9C1AA0E65864972, 0x3A1D046E250182F4,\n"
    "\t0xBA7734339A897D98, 0x3AD21B2F7B6250CB, 0xBB2B7BB8AC7B7144, 0x3B8440DBA7396447,\n"
    "\t0xBBDCEE1F7382E891, 0x3C33FB5AA71F024A, 0xBC8AA0BFB7F73BBD, 0x3CE11112F7B696C2,\n"
    "\t0xBD34F92EC52E80A0, 0x3D889C470473808C, 0xBDDB70BFB6865CCA, 0x3E2CE5E4F8F87F0B,\n"
    "\t0xBE7C8693869C650B, 0x3ECA2172C7C2CF12, 0xBF15E95623582F81, 0x3F607D2ED9672EF5,\n"
    "\t0xBFA5961F3E72624E, 0x3FE73C189CEAEDAE, 0x3FDC000000000000, 0x4030000000000000,\n"
    "\t0xB9B0EC8D2E004C33, 0x3A0C5E5145E60D3B, 0xBA672985B872E681, 0x3AC276A8623ECF31,\n"
    "\t0xBB1CA6154131FC57, 0x3B7598D458B208F7, 0xBBCF9522603666C6, 0x3C265A098FEBC65C,\n"
    "\t0xBC7E8CDE05A7CD2B, 0x3CD41AEF748F3352, 0xBD2966BD0562B048, 0x3D7EB024AAE096B6,\n"
    "\t0xBDD1A50E55B813A4, 0x3E23342D78308FA7, 0xBE73A3D67D4BB09C, 0x3EC2B2F9058CFA5F,\n"
    "\t0xBF105D8C87862526, 0x3F59DBE680D7AAA0, 0xBFA1EE43D1D3C930, 0x3FE4C630EC387D55,\n"
    "\t0x3FE4000000000000, 0x4020000000000000, 0xBAC729447E666FF1, 0x3B1402E36BA19CE8,\n"
    "\t0xBB60C645D7964632, 0x3BAB9C53FDB4CD51, 0xBBF62331446E4A71, 0x3C4143BB1BF4883F,\n"
    "\t0xBC8A26289B0D5486, 0x3CD3313A07B95F79, 0xBD1B3E6320692CA3, 0x3D62A6AB02DE31B4,\n"
    "\t0xBDA88EF9972DBD5C, 0x3DEEFD03C2D4084E, 0xBE32A7F4FB7ADBD0, 0x3E7552FE700068D8,\n"
    "\t0xBEB6FCE5DF0BA11A, 0x3EF72D46A9B3F0FA, 0xBF359C35C06F7FFE, 0x3F72577420FCD07D,\n"
    "\t0xBFABABD0E4F1A24D, 0x3FE1D16B5809EAF6, 0x3FEC000000000000, 0x4020000000000000,\n"
    "\t0xBAA71E5FBA03CA70, 0x3AF4CA9A4F378804, 0xBB422B8D9B8B4E50, 0x3B8F3394EB481B32,\n"
    "\t0xBBDA21A94801242A, 0x3C25513834D2D0DB, 0xBC70E98B9E3E30BD, 0x3CBA0D3E3AD91B77,\n"
    "\t0xBD0370A70D744CD1, 0x3D4C0B37C2085545, 0xBD937FE70BB1C704, 0x3DDA0EF7EE62FBE2,\n"
    "\t0xBE20AB3832B9A70B, 0x3E6452648D62B706, 0xBEA779DD2A3DA23D, 0x3EE9831C2C85003F,\n"
    "\t0xBF29D5868DE0B581, 0x3F680EF8F454CF88, 0xBFA4369F60195EDC, 0x3FDDB747EE409AC5,\n"
    "\t0x3FF4000000000000, 0x4010000000000000, 0xBBA9D6F84B14DE9B, 0x3BE8AE600F98CCB9,\n"
    "\t0xBC26954C8F3870F6, 0x3C64A605A42F7EB7, 0xBCA274216C98ED95, 0x3CE017DA62ED9373,\n"
    "\t0xBD1B5BC5CB2352AA, 0x3D56A18BC38A2000, 0xBD922FC408F5D3FB, 0x3DCC570359A33B7B,\n"
    "\t0xBE055C07D22AF301, 0x3E3F0FE6FB5FD980, 0xBE75B8BC94C61D2D, 0x3EAD1B695AABBF6C,\n"
    "\t0xBEE299636D6C5895, 0x3F168A25A6641F25, 0xBF49B635AC624AD5, 0x3F7B56F45EEF7E58,\n"
    "\t0xBFAABAACDBFA8B07, 0x3FD78A692138767A, 0x3FFC000000000000, 0x4010000000000000,\n"
    "\t0xBB71689CFD29FAEF, 0x3BB1FABBA7815933, 0xBBF1E19CB4FE726E, 0x3C31C11CE3347E50,\n"
    "\t0xBC7144FC435BB674, 0x3CB06F14E0D10099, 0xBCEE91DD5952922C, 0x3D2BC102667EBCF2,\n"
    "\t0xBD688FB2FA11846D, 0x3DA5273F3445A781, 0xBDE1B2912CD41C8C, 0x3E1CB4C687E4D0AD,\n"
    "\t0xBE56838884AB6B8B, 0x3E9106BD5C04334A, 0xBEC8BF716A8EABED, 0x3F013648A11FFE73,\n"
    "\t0xBF36CB52FE48945F, 0x3F6C8D0CEF0F810D, 0xBFA0C3D538446447, 0x3FD23CFC2F1DC7E0,\n"
    "\t0x4004000000000000, 0x4000000000000000, 0xBC53D01EFF408858, 0x3C86F6047CB8631F,\n"
    "\t0xBCB8A2D2F1145159, 0x3CEB91CE16335CA8, 0xBD1E5D9B5BDFF310, 0x3D506482E8E80107,\n"
    "\t0xBD815CA76E9896B6, 0x3DB205D65C377416, 0xBDE2514A46D5C4A8, 0x3E1234FEEB0362EE,\n"
    "\t0xBE41AD10DAC3555B, 0x3E70BCBA3201DC45, 0xBE9EDD4239912639, 0x3ECBA8A67CFBECC0,\n"
    "\t0xBEF809CE8AB533C8, 0x3F2435C04E207CA1, 0xBF50632076809DFC, 0x3F798958A7A8E4A3,\n"
    "\t0xBFA3086D7F01AC85, 0x3FCAFBB3F3B7343B, 0x400C000000000000, 0x4000000000000000,\n"
    "\t0xBBF7BC24D1688BEF, 0x3C2FC27AC3098CE6, 0xBC640B9E2104E434, 0x3C9A15F5FF9613D8,\n"
    "\t0xBCD0C05E23DFFDAC, 0x3D052F4567FB7E45, 0xBD3A6378325105E5, 0x3D702DD8C3F0B41B,\n"
    "\t0xBDA384522C77FC05, 0x3DD724F937B4A2FE, 0xBE0AF5D64FE0BD88, 0x3E3ED2A967425E2A,\n"
    "\t0xBE7146BC4068B7AB, 0x3EA2F839E543F114, 0xBED460ABD6B25B13, 0x3F05632136D8CCE2,\n"
    "\t0xBF35E5D7E9899181, 0x3F65D581133378ED, 0xBF95285D2EB1EF74, 0x3FC3E0A99A0EE914,\n"
    "\t0x4014000000000000, 0x3FF0000000000000, 0xBCB57CF35FA48B69, 0x3CE18CA6F90BBC3E,\n"
    "\t0xBD09094D0F5FB23A, 0x3D34012AE2923FC2, 0xBD5FDE5D1A52FADD, 0x3D88F402DDB02B8F,\n"
    "\t0xBDB35396C1ED31E0, 0x3DDD9D95233D5498, 0xBE066F7D3FA982B8, 0x3E30CC74F247B033,\n"
    "\t0xBE58DABBA337509A, 0x3E8228A789DC6A5F, 0xBEAA3193CF6E10D4, 0x3ED2A41152E3C6D1,\n"
    "\t0xBEFA2A81D24C93EC, 0x3F2219F2C33533ED, 0xBF48ABC198707C93, 0x3F708CF82B79A11C,\n"
    "\t0xBF95D843497D4F3A, 0x3FBC57239E943D1A, 0x401C000000000000, 0x3FF0000000000000,\n"
    "\t0xBC3759AF82588366, 0x3C67FC8351A5D67E, 0xBC96A81CF5385EDA, 0x3CC6F2A5B1B0EE06,\n"
    "\t0xBCF725B1D1BC1841, 0x3D27213359BC9ABB, 0xBD56F3320374431F, 0x3D869C659CD30C66,\n"
    "\t0xBDB61D8CC0E63491, 0x3DE57884C26839C5, 0xBE14AFFE415C8E72, 0x3E43C768D84566B7,\n"
    "\t0xBE72C2DB9DD6A0C3, 0x3EA1A6F6B7A03AD5, 0xBED078BFE34DEF6D, 0x3EFE7AF6EEFF686D,\n"
    "\t0xBF2BF5070EE19215, 0x3F596A3DE47D5B16, 0xBF86E4B45246F91F, 0x3FB46DC6BF900F68,\n"
    "\t0x4024000000000000, 0x3FE0000000000000, 0xBCD84791FA128CC3, 0x3D0094DBCF817135,\n"
    "\t0xBD22C47231009E6F, 0x3D49654C8CDC5FA5, 0xBD715DC16253DAF7, 0x3D97517E0C930061,\n"
    "\t0xBDBF2A3B208BB68B, 0x3DE4C0A8C40220C6, 0xBE0B8612041F51B9, 0x3E322CD41AB92A02,\n"
    "\t0xBE57E6CB8CAA0342, 0x3E7F4BFEFC733514, 0xBEA4669C867B16F8, 0x3ECA7AA3A006D1CD,\n"
    "\t0xBEF11B748BB0B530, 0x3F160131845D02C8, 0xBF3C2C9072E92BB2, 0x3F61F3DF0DE32F5E,\n"
    "\t0xBF86C55C82B4B6B8, 0x3FACBE831F997124, 0x402C000000000000, 0x3FE0000000000000,\n"
    "\t0xBC4582E068E6318D, 0x3C73BE8A0CB2B94C, 0xBCA066DCF69F5D2E, 0x3CCDF63BF6200B22,\n"
    "\t0xBCFB6A96A9CBB6EE, 0x3D28EDF0346C037F, 0xBD569D4D07D02A67, 0x3D847820F176B01D,\n"
    "\t0xBDB27C1CBF2C022F, 0x3DE0A769F6BE09E4, 0xBE0DF04EA6E10BFE, 0x3E3AD8CEF58B982F,\n"
    "\t0xBE68046E78CE9376, 0x3E956F43E58B0805, 0xBEC3156AEB8076AE, 0x3EF0F30B59C108E5,\n"
    "\t0xBF1E08BEF3AB51E5, 0x3F4A8B73429CEBCC, 0xBF776711F8B6CF4D, 0x3FA494BB2CE2924F,\n"
    "\t0x4034000000000000, 0x3FD0000000000000, 0xBCD90334E99514D7, 0x3D00056A92D0F55A,\n"
    "\t0xBD2097857F64007E, 0x3D4531A99E7C2503, 0xBD6B8F56FC7BD58B, 0x3D9190028F4667ED,\n"
    "\t0xBDB656833F13493D, 0x3DDC66F90B0EFA59, 0xBE0209105512010E, 0x3E26E089D94DDCD1,\n"
    "\t0xBE4CFBDD683BBB52, 0x3E72569BB8428BF6, 0xBE972D795A1ABF0C, 0x3EBD42321F87A1EA,\n"
    "\t0xBEE271EEE81078E5, 0x3F073A4DED43DDD1, 0xBF2D36FE3DD900EB, 0x3F5259993494E473,\n"
    "\t0xBF7705E8C0688050, 0x3F9CD9BC89B73548, 0x403C000000000000, 0x3FD0000000000000,\n"
    "\t0xBC3F943D1BBED352, 0x3C6BFBA4D7FC954E, 0xBC9650674787857B, 0x3CC3BEFEA368E083,\n"
    "\t0xBCF18B74945457C6, 0x3D1F03676FA45919, 0xBD4B6400D7432553, 0x3D782DC528A3F25A,\n"
    "\t0xBDA55491335E6DAB, 0x3DD2CE43B86C195C, 0xBE0091CF852F9A0A, 0x3E2D2E2ED2556895,\n"
    "\t0xBE59ADB10AFE9B6C, 0x3E869529187126C8, 0xBEB3D8FBF04C9BAB, 0x3EE16ECC51155D0F,\n"
    "\t0xBF0E9AB4C8D1C2A0, 0x3F3AD8CCFC089FA9, 0xBF67892D6052DA5D, 0x3F949EBDE7878139\n"
    "};\n\n";

static ptx_reg f_erfc(ptx_emitter *e, const ptx_reg *x)
{
    e->erf_table = true;
    e->erfc_table = true;
    /* x < 1/4 (and negative x, NaN): 1 - erf(x) */
    ptx_reg small = step(e, ERF_F64("$a", "$e9") "sub.rn.f64 $d, " F64_ONE ", $e9;", x[0], 0, 0);
    /* erfcx(x): the interval's index from the exponent and the first
     * fraction bit, clamped (only x in [1/4, 32) uses it) */
    static const char poly[] =
        "mov.b64 $l0, $a; shr.u64 $l0, $l0, 51; cvt.u32.u64 $r0, $l0; sub.s32 $r0, $r0, 2042;"
        "max.s32 $r0, $r0, 0; min.s32 $r0, $r0, 13;"
        "mul.wide.u32 $l0, $r0, 176; mov.u64 $l1, " PTX_ERFC_TABLE "; add.u64 $l1, $l1, $l0;"
        "ld.const.f64 $e0, [$l1]; ld.const.f64 $e1, [$l1+8]; sub.rn.f64 $e2, $a, $e0;"
        "mul.rn.f64 $e2, $e2, $e1; ld.const.f64 $e3, [$l1+16];"
#define ERFC_STEP(off) "ld.const.f64 $e4, [$l1+" #off "]; fma.rn.f64 $e3, $e3, $e2, $e4;"
        ERFC_STEP(24) ERFC_STEP(32) ERFC_STEP(40) ERFC_STEP(48) ERFC_STEP(56) ERFC_STEP(64)
        ERFC_STEP(72) ERFC_STEP(80) ERFC_STEP(88) ERFC_STEP(96) ERFC_STEP(104) ERFC_STEP(112)
        ERFC_STEP(120) ERFC_STEP(128) ERFC_STEP(136) ERFC_STEP(144) ERFC_STEP(152)
        ERFC_STEP(160) ERFC_STEP(168)
#undef ERFC_STEP
        "mov.f64 $d, $e3;";
    ptx_reg p = step(e, poly, x[0], 0, 0);
    /* e^(-hi) (1 - lo) P with hi = x^2 rounded and lo = x^2 - hi exactly */
    ptx_reg hi = step(e, "mul.rn.f64 $d, $a, $a;", x[0], 0, 0);
    ptx_reg ex = f_exp(e, step(e, "neg.f64 $d, $a;", hi, 0, 0));
    ptx_reg big = step(e, "mul.rn.f64 $e2, $a, $a; neg.f64 $e0, $e2; fma.rn.f64 $e0, $a, $a, $e0;"
                          "neg.f64 $e1, $c; fma.rn.f64 $e1, $e1, $e0, $c; mul.rn.f64 $d, $e1, $b;",
                       x[0], ex, p);
    /* 1/4, 27.5 */
    return step(e, "setp.lt.f64 $p0, $a, 0d3FD0000000000000; selp.f64 $e0, $c, $b, $p0;"
                   "setp.ge.f64 $p1, $a, 0d403B800000000000; selp.f64 $e0, " F64_ZERO ", $e0, $p1;"
                   "setp.nan.f64 $p2, $a, $a; selp.f64 $d, $a, $e0, $p2;",
                x[0], big, small);
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
    {IR_POW, f_pow},       {IR_HYPOT, f_hypot},  {IR_ERFC, f_erfc},
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
