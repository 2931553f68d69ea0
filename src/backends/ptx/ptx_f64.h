/* ptx_f64.h - the float64 instruction templates that ptx_ops.c (exp, log,
 * sin, cos, float // and %) and ptx_math.c (the libdevice functions built
 * on them) share: macros of PTX text in the template language of
 * ptx_internal.h. Each names the temporaries it uses; a template that
 * combines two of them must keep their temporaries apart. */
#ifndef SWAGE_PTX_F64_H
#define SWAGE_PTX_F64_H

#define F64_ZERO "0d0000000000000000"
#define F64_ONE "0d3FF0000000000000"
#define F64_HALF "0d3FE0000000000000"
#define F64_NAN "0d7FF8000000000000"
#define F64_INF "0d7FF0000000000000"

/* Python's float // and % exactly as the oracle computes them in double
 * (CPython's float_divmod; b == 0 gives floor(a/b) and NaN). fmod is exact:
 * binary long division of |a| by t = |b| * 2^k, every subtraction exact by
 * Sterbenz's lemma (at most ~2100 steps for extreme f64 exponent ratios,
 * a handful for ordinary operands). FMOD_F64 leaves C's fmod(A, B) in
 * $e2 (exact: the sign of A, NaN for B = 0, an infinite A or a NaN); uses
 * $e2 $e4-$e6, $p0-$p3, $L0-$L2. */
#define FMOD_F64(A, B)                                                                 \
    "abs.f64 $e2, " A "; abs.f64 $e4, " B ";"                                          \
    "setp.ge.f64 $p0, $e2, $e4; @!$p0 bra $L0;"                                        \
    "setp.eq.f64 $p1, $e2, " F64_INF "; setp.eq.f64 $p2, $e4, " F64_ZERO ";"           \
    "or.pred $p1, $p1, $p2; @$p1 mov.f64 $e2, " F64_NAN "; @$p1 bra $L0;"              \
    "mov.f64 $e5, $e4;"                                                                \
    "$L1: add.rn.f64 $e6, $e5, $e5; setp.le.f64 $p2, $e6, $e2;"                        \
    "@$p2 mov.f64 $e5, $e6; @$p2 bra $L1;"                                             \
    "$L2: setp.ge.f64 $p2, $e2, $e5; @$p2 sub.rn.f64 $e2, $e2, $e5;"                   \
    "setp.gt.f64 $p2, $e5, $e4; @!$p2 bra $L0;"                                        \
    "mul.rn.f64 $e5, $e5, " F64_HALF "; bra $L2;"                                      \
    "$L0: setp.nan.f64 $p3, " B ", " B "; @$p3 mov.f64 $e2, " F64_NAN ";"              \
    "copysign.f64 $e2, " A ", $e2;"                                                    \

/* Python's // and % from C's fmod (in $e2, above): the floor quotient in
 * $e8 and the modulo in $e2. */
#define DIVMOD_F64(A, B)                                                               \
    FMOD_F64(A, B)                                                                     \
    "div.rn.f64 $e7, " A ", " B ";"                                                    \
    "sub.rn.f64 $e3, " A ", $e2; div.rn.f64 $e3, $e3, " B ";"                          \
    "setp.neu.f64 $p0, $e2, " F64_ZERO ";"                                             \
    "setp.lt.f64 $p1, " B ", " F64_ZERO "; setp.lt.f64 $p2, $e2, " F64_ZERO ";"        \
    "xor.pred $p1, $p1, $p2; and.pred $p1, $p1, $p0;"                                  \
    "@$p1 add.rn.f64 $e2, $e2, " B "; @$p1 sub.rn.f64 $e3, $e3, " F64_ONE ";"          \
    "@!$p0 copysign.f64 $e2, " B ", $e2;"                                              \
    "setp.neu.f64 $p0, $e3, " F64_ZERO "; cvt.rmi.f64.f64 $e8, $e3;"                   \
    "sub.rn.f64 $e9, $e3, $e8; setp.gt.f64 $p1, $e9, " F64_HALF ";"                    \
    "@$p1 add.rn.f64 $e8, $e8, " F64_ONE ";"                                           \
    "mov.f64 $e9, " F64_ZERO "; copysign.f64 $e9, $e7, $e9; @!$p0 mov.f64 $e8, $e9;"   \
    "setp.eq.f64 $p4, " B ", " F64_ZERO "; cvt.rmi.f64.f64 $e9, $e7;"                  \
    "@$p4 mov.f64 $e8, $e9; @$p4 mov.f64 $e2, " F64_NAN ";"

/* ---- float64 exp, exp2, log, log2, sin, cos ---------------------------------
 * No f64 transcendental instruction exists, so these are computed in
 * software from fma and integer operations: argument reduction, then a
 * Taylor polynomial whose truncation error is far below an ulp on the
 * reduced range, evaluated by Horner's rule with fma. A C model of each
 * sequence was checked against long-double libm over the whole range
 * before it became PTX; test_ptx_gpu.c checks the PTX on a GPU. */
#define F64_NEG_INF "0dFFF0000000000000"
#define F64_TWO "0d4000000000000000"
#define F64_LOG2E "0d3FF71547652B82FE"
#define F64_LN2 "0d3FE62E42FEFA39EF"
#define F64_LN2_LOW "0d3C7ABC9E3B39803F" /* ln 2 - F64_LN2 */
#define F64_LN2_HI "0d3FE62E42FEE00000"  /* ln 2 in 32 bits: k * hi is exact */
#define F64_LN2_LO "0d3DEA39EF35793C76"  /* ln 2 - F64_LN2_HI */

/* P = e^R for |R| <= ln2/2: sum of R^n/n! to n = 13 (truncation < 2^-57). */
#define EXPM_POLY_F64(R, P)                                                            \
    "mov.f64 " P ", 0d3DE6124613A86D09; fma.rn.f64 " P ", " P ", " R ", 0d3E21EED8EFF8D898;" \
    "fma.rn.f64 " P ", " P ", " R ", 0d3E5AE64567F544E4;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3E927E4FB7789F5C;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3EC71DE3A556C734;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3EFA01A01A01A01A;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3F2A01A01A01A01A;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3F56C16C16C16C17;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3F81111111111111;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3FA5555555555555;"                              \
    "fma.rn.f64 " P ", " P ", " R ", 0d3FC5555555555555;"                              \
    "fma.rn.f64 " P ", " P ", " R ", " F64_HALF ";"                                     \
    "fma.rn.f64 " P ", " P ", " R ", " F64_ONE ";"                                      \
    "fma.rn.f64 " P ", " P ", " R ", " F64_ONE ";"

/* Y = P * 2^K for an integral K in [-1076, 1025] and P near 1: two
 * normal powers of two, so only the last product rounds (into the
 * subnormals or to infinity where it must). */
#define SCALE2_F64(P, K, Y)                                                            \
    "cvt.rni.s32.f64 $r0, " K "; shr.s32 $r1, $r0, 1; sub.s32 $r2, $r0, $r1;"          \
    "add.s32 $r1, $r1, 1023; cvt.u64.u32 $l0, $r1; shl.b64 $l0, $l0, 52; mov.b64 $e4, $l0;" \
    "add.s32 $r2, $r2, 1023; cvt.u64.u32 $l1, $r2; shl.b64 $l1, $l1, 52; mov.b64 $e5, $l1;" \
    "mul.rn.f64 " Y ", " P ", $e4; mul.rn.f64 " Y ", " Y ", $e5;"

/* e^X: x clamped to [-746, 710] (beyond, the result is 0 or inf anyway),
 * k = rint(x log2 e), r = x - k ln2 in two parts (Cody-Waite), e^r 2^k.
 * Uses $e0-$e7, $r0-$r2, $l0-$l1, $p0. */
#define EXP_F64(X, Y)                                                                  \
    "setp.nan.f64 $p0, " X ", " X ";"                                                  \
    "max.f64 $e0, " X ", 0dC087500000000000; min.f64 $e0, $e0, 0d4086300000000000;"    \
    "mul.rn.f64 $e1, $e0, " F64_LOG2E "; cvt.rni.f64.f64 $e1, $e1; neg.f64 $e6, $e1;"  \
    "fma.rn.f64 $e2, $e6, " F64_LN2_HI ", $e0; fma.rn.f64 $e2, $e6, " F64_LN2_LO ", $e2;" \
    EXPM_POLY_F64("$e2", "$e3") SCALE2_F64("$e3", "$e1", "$e7")                        \
    "selp.f64 " Y ", " F64_NAN ", $e7, $p0;"

/* 2^x: k = rint(x) (x clamped to [-1076, 1025]), f = x - k exactly,
 * r = f ln2 with its error c (fma), e^r (1 + c) 2^k; exact for integral x. */
#define EXP2_F64                                                                       \
    "setp.nan.f64 $p0, $a, $a;"                                                        \
    "max.f64 $e0, $a, 0dC090D00000000000; min.f64 $e0, $e0, 0d4090040000000000;"       \
    "cvt.rni.f64.f64 $e1, $e0; sub.rn.f64 $e0, $e0, $e1;"                              \
    "mul.rn.f64 $e2, $e0, " F64_LN2 "; neg.f64 $e6, $e2; fma.rn.f64 $e6, $e0, " F64_LN2 ", $e6;" \
    "fma.rn.f64 $e6, $e0, " F64_LN2_LOW ", $e6;"                                      \
    EXPM_POLY_F64("$e2", "$e3") "fma.rn.f64 $e3, $e3, $e6, $e3;"                       \
    SCALE2_F64("$e3", "$e1", "$e7") "selp.f64 $d, " F64_NAN ", $e7, $p0;"

/* The core of log and log2 (as fdlibm's): x = 2^k m with m in
 * [sqrt(1/2), sqrt(2)] (subnormals scaled by 2^54 first), f = m - 1,
 * s = f / (2 + f), log(1 + f) = f - hfsq + s (hfsq + R) with hfsq = f^2/2
 * and R = sum over n = 1..11 of 2 s^2n / (2n + 1) (truncation < 2^-62).
 * Leaves k in $e1, f in $e2, s in $e3, hfsq in $e4, R in $e5. */
#define LOG_CORE_F64                                                                   \
    "setp.lt.f64 $p1, $a, 0d0010000000000000; mul.rn.f64 $e0, $a, 0d4350000000000000;"  \
    "selp.f64 $e0, $e0, $a, $p1; mov.b64 $l0, $e0; shr.u64 $l1, $l0, 52;"              \
    "cvt.u32.u64 $r0, $l1; and.b32 $r0, $r0, 2047; sub.s32 $r0, $r0, 1023;"            \
    "selp.s32 $r1, -54, 0, $p1; add.s32 $r0, $r0, $r1;"                                \
    "and.b64 $l0, $l0, 0x000FFFFFFFFFFFFF; or.b64 $l0, $l0, 0x3FF0000000000000; mov.b64 $e0, $l0;" \
    "setp.gt.f64 $p2, $e0, 0d3FF6A09E667F3BCD; @$p2 mul.rn.f64 $e0, $e0, " F64_HALF ";" \
    "@$p2 add.s32 $r0, $r0, 1; cvt.rn.f64.s32 $e1, $r0;"                               \
    "sub.rn.f64 $e2, $e0, " F64_ONE "; add.rn.f64 $e3, $e2, " F64_TWO "; div.rn.f64 $e3, $e2, $e3;" \
    "mul.rn.f64 $e6, $e3, $e3; mov.f64 $e5, 0d3FB642C8590B2164;"                       \
    "fma.rn.f64 $e5, $e5, $e6, 0d3FB8618618618618; fma.rn.f64 $e5, $e5, $e6, 0d3FBAF286BCA1AF28;" \
    "fma.rn.f64 $e5, $e5, $e6, 0d3FBE1E1E1E1E1E1E; fma.rn.f64 $e5, $e5, $e6, 0d3FC1111111111111;" \
    "fma.rn.f64 $e5, $e5, $e6, 0d3FC3B13B13B13B14; fma.rn.f64 $e5, $e5, $e6, 0d3FC745D1745D1746;" \
    "fma.rn.f64 $e5, $e5, $e6, 0d3FCC71C71C71C71C; fma.rn.f64 $e5, $e5, $e6, 0d3FD2492492492492;" \
    "fma.rn.f64 $e5, $e5, $e6, 0d3FD999999999999A; fma.rn.f64 $e5, $e5, $e6, 0d3FE5555555555555;" \
    "mul.rn.f64 $e5, $e5, $e6; mul.rn.f64 $e4, $e2, " F64_HALF "; mul.rn.f64 $e4, $e4, $e2;"

/* log(+inf) = inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN; V is the
 * finite result. */
#define LOG_SPECIALS_F64(V)                                                            \
    "setp.eq.f64 $p3, $a, " F64_INF "; selp.f64 " V ", " F64_INF ", " V ", $p3;"       \
    "setp.eq.f64 $p3, $a, " F64_ZERO "; selp.f64 " V ", " F64_NEG_INF ", " V ", $p3;"  \
    "setp.ltu.f64 $p3, $a, " F64_ZERO "; selp.f64 $d, " F64_NAN ", " V ", $p3;"

/* log x = k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f) */
#define LOG_F64                                                                        \
    LOG_CORE_F64 "add.rn.f64 $e7, $e4, $e5; mul.rn.f64 $e7, $e3, $e7;"                 \
    "mul.rn.f64 $e8, $e1, " F64_LN2_LO "; add.rn.f64 $e7, $e7, $e8;"                   \
    "sub.rn.f64 $e7, $e4, $e7; sub.rn.f64 $e7, $e7, $e2;"                              \
    "mul.rn.f64 $e8, $e1, " F64_LN2_HI "; sub.rn.f64 $e7, $e8, $e7;" LOG_SPECIALS_F64("$e7")

/* log2 x = k + (f - c) log2(e) with c = hfsq - s (hfsq + R): f log2(e) as
 * an exact product plus error (fma), log2(e) itself in two parts, and k + hi
 * with its rounding error (TwoSum), so the result rounds about once: exact
 * on powers of two. */
#define LOG2_F64                                                                       \
    LOG_CORE_F64 "add.rn.f64 $e7, $e4, $e5; mul.rn.f64 $e7, $e3, $e7; sub.rn.f64 $e7, $e4, $e7;" \
    "mul.rn.f64 $e8, $e2, " F64_LOG2E "; neg.f64 $e9, $e8; fma.rn.f64 $e9, $e2, " F64_LOG2E ", $e9;" \
    "fma.rn.f64 $e9, $e2, 0d3C7777D0FFDA0D24, $e9; neg.f64 $e7, $e7;"                  \
    "fma.rn.f64 $e9, $e7, " F64_LOG2E ", $e9; add.rn.f64 $e7, $e1, $e8; sub.rn.f64 $e0, $e7, $e1;" \
    "sub.rn.f64 $e6, $e7, $e0; sub.rn.f64 $e6, $e1, $e6; sub.rn.f64 $e5, $e8, $e0;"    \
    "add.rn.f64 $e6, $e6, $e5; add.rn.f64 $e6, $e6, $e9; add.rn.f64 $e7, $e7, $e6;"    \
    LOG_SPECIALS_F64("$e7")

/* sin/cos: r = x - k pi/2 with k = rint(x 2/pi) and pi/2 in three parts
 * (fma; accurate while |x| < 2^40), or for finite |x| >= 2^40 by
 * Payne-Hanek: x = M 2^E (M of 53 bits), the 256 bits of 2/pi that matter
 * for x 2/pi mod 4 (from PTX_TWO_OVER_PI, whose word 0 is zero so that the
 * window may start before the binary point) times M, the top two bits of
 * the product's low 256 the quadrant and the next 124 the fraction (taken
 * as 1 - fraction when it is >= 1/2), normalised with clz and rounded to a
 * double, times pi/2. Then sin r and cos r on |r| <= pi/4 by Taylor
 * polynomials to r^17 and r^18, chosen and signed by the quadrant (+ Q).
 * SINCOS_REDUCE_F64 leaves r in $e2 and the quadrant (mod 4) in $r0. */
#define SINCOS_REDUCE_F64                                                              \
    "mul.rn.f64 $e0, $a, 0d3FE45F306DC9C883; cvt.rni.f64.f64 $e0, $e0; neg.f64 $e1, $e0;" \
    "fma.rn.f64 $e2, $e1, 0d3FF921FB54442D18, $a; fma.rn.f64 $e2, $e1, 0d3C91A62633145C07, $e2;" \
    "fma.rn.f64 $e2, $e1, 0dB91F1976B7ED8FBC, $e2; setp.eq.f64 $p0, $e0, " F64_ZERO ";" \
    "selp.f64 $e2, $a, $e2, $p0; cvt.rni.s64.f64 $l0, $e0; cvt.u32.u64 $r0, $l0;"      \
    "abs.f64 $e3, $a; setp.ge.f64 $p1, $e3, 0d4270000000000000; testp.finite.f64 $p2, $a;" \
    "and.pred $p1, $p1, $p2; @!$p1 bra $L0;"                                            \
    PAYNE_HANEK_F64 "$L0:"
#define SINCOS_F64(Q) SINCOS_REDUCE_F64 SINCOS_POLY_F64(Q)

#define PAYNE_HANEK_F64                                                                \
    "mov.b64 $l1, $a; shr.u64 $l2, $l1, 52; cvt.u32.u64 $r1, $l2; and.b32 $r1, $r1, 2047;" \
    "and.b64 $l2, $l1, 0x000FFFFFFFFFFFFF; or.b64 $l2, $l2, 0x0010000000000000;"        \
    "sub.u32 $r1, $r1, 1013; shr.u32 $r2, $r1, 6; and.b32 $r3, $r1, 63; sub.u32 $r4, 64, $r3;" \
    "mov.u64 $l3, " PTX_TWO_OVER_PI "; mul.wide.u32 $l4, $r2, 8; add.u64 $l3, $l3, $l4;" \
    "ld.const.u64 $l4, [$l3]; ld.const.u64 $l5, [$l3+8]; ld.const.u64 $l6, [$l3+16];"  \
    "ld.const.u64 $l7, [$l3+24]; ld.const.u64 $l8, [$l3+32];"                          \
    "shl.b64 $l4, $l4, $r3; shr.b64 $l9, $l5, $r4; or.b64 $l4, $l4, $l9;"              \
    "shl.b64 $l5, $l5, $r3; shr.b64 $l9, $l6, $r4; or.b64 $l5, $l5, $l9;"              \
    "shl.b64 $l6, $l6, $r3; shr.b64 $l9, $l7, $r4; or.b64 $l6, $l6, $l9;"              \
    "shl.b64 $l7, $l7, $r3; shr.b64 $l9, $l8, $r4; or.b64 $l7, $l7, $l9;"              \
    "mul.lo.u64 $l8, $l2, $l4; mul.lo.u64 $l4, $l2, $l5; mul.hi.u64 $l5, $l2, $l5;"    \
    "mul.lo.u64 $l9, $l2, $l6; mul.hi.u64 $l6, $l2, $l6; mul.hi.u64 $l7, $l2, $l7;"    \
    "add.cc.u64 $l7, $l7, $l9; addc.cc.u64 $l6, $l6, $l4; addc.u64 $l5, $l5, $l8;"      \
    "shr.u64 $l7, $l5, 62; cvt.u32.u64 $r5, $l7; and.b64 $l5, $l5, 0x3FFFFFFFFFFFFFFF;" \
    "shr.u64 $l7, $l5, 61; setp.ne.u64 $p3, $l7, 0;"                                   \
    "@$p3 setp.eq.u64 $p4, $l6, 0; @$p3 neg.s64 $l6, $l6; @$p3 not.b64 $l5, $l5;"      \
    "@$p3 and.b64 $l5, $l5, 0x3FFFFFFFFFFFFFFF; @$p3 selp.u64 $l7, 1, 0, $p4;"         \
    "@$p3 add.u64 $l5, $l5, $l7; @$p3 add.u32 $r5, $r5, 1;"                            \
    "setp.ne.u64 $p5, $l5, 0; clz.b64 $r6, $l5; shl.b64 $l7, $l5, $r6; sub.u32 $r7, 64, $r6;" \
    "shr.b64 $l8, $l6, $r7; or.b64 $l7, $l7, $l8; clz.b64 $r8, $l6; shl.b64 $l8, $l6, $r8;" \
    "selp.b64 $l7, $l7, $l8, $p5; add.u32 $r7, $r6, 62; add.u32 $r8, $r8, 126;"         \
    "selp.b32 $r7, $r7, $r8, $p5; sub.u32 $r7, 1023, $r7; cvt.u64.u32 $l8, $r7;"        \
    "shl.b64 $l8, $l8, 52; mov.b64 $e4, $l8; cvt.rn.f64.u64 $e3, $l7; mul.rn.f64 $e3, $e3, $e4;" \
    "mul.rn.f64 $e4, $e3, 0d3C91A62633145C07; fma.rn.f64 $e2, $e3, 0d3FF921FB54442D18, $e4;" \
    "@$p3 neg.f64 $e2, $e2; setp.lt.s64 $p6, $l1, 0; @$p6 neg.f64 $e2, $e2;"            \
    "@$p6 neg.s32 $r5, $r5; mov.b32 $r0, $r5;"

/* sin r in $e7 and cos r in $e8 (r in $e2); uses $e5 $e6 $p7. */
#define SINCOS_POLYS_F64                                                               \
    "mul.rn.f64 $e5, $e2, $e2; mov.f64 $e6, 0d3CE952C77030AD4A;"                       \
    "fma.rn.f64 $e6, $e6, $e5, 0dBD6AE7F3E733B81F; fma.rn.f64 $e6, $e6, $e5, 0d3DE6124613A86D09;" \
    "fma.rn.f64 $e6, $e6, $e5, 0dBE5AE64567F544E4; fma.rn.f64 $e6, $e6, $e5, 0d3EC71DE3A556C734;" \
    "fma.rn.f64 $e6, $e6, $e5, 0dBF2A01A01A01A01A; fma.rn.f64 $e6, $e6, $e5, 0d3F81111111111111;" \
    "fma.rn.f64 $e6, $e6, $e5, 0dBFC5555555555555; mul.rn.f64 $e7, $e2, $e5;"         \
    "fma.rn.f64 $e7, $e7, $e6, $e2; setp.eq.f64 $p7, $e2, " F64_ZERO "; selp.f64 $e7, $e2, $e7, $p7;" \
    "mov.f64 $e8, 0dBCA6827863B97D97;"                                                  \
    "fma.rn.f64 $e8, $e8, $e5, 0d3D2AE7F3E733B81F; fma.rn.f64 $e8, $e8, $e5, 0dBDA93974A8C07C9D;" \
    "fma.rn.f64 $e8, $e8, $e5, 0d3E21EED8EFF8D898; fma.rn.f64 $e8, $e8, $e5, 0dBE927E4FB7789F5C;" \
    "fma.rn.f64 $e8, $e8, $e5, 0d3EFA01A01A01A01A; fma.rn.f64 $e8, $e8, $e5, 0dBF56C16C16C16C17;" \
    "fma.rn.f64 $e8, $e8, $e5, 0d3FA5555555555555; fma.rn.f64 $e8, $e8, $e5, 0dBFE0000000000000;" \
    "fma.rn.f64 $e8, $e5, $e8, " F64_ONE ";"

/* sin (Q = "0") or cos (Q = "1") of x from the quadrant $r0 and r. */
#define SINCOS_POLY_F64(Q)                                                             \
    SINCOS_POLYS_F64 "add.u32 $r0, $r0, " Q ";"                                        \
    "and.b32 $r9, $r0, 1; setp.ne.u32 $p8, $r9, 0; selp.f64 $e9, $e8, $e7, $p8;"        \
    "and.b32 $r9, $r0, 2; setp.ne.u32 $p8, $r9, 0; @$p8 neg.f64 $e9, $e9; mov.f64 $d, $e9;"

/* ---- erf ------------------------------------------------------------------------
 * No instruction computes it, so it is computed in f64 for every float
 * dtype (f32 and narrower convert first and round the f64 result once).
 * |x| < 0.5: x * P(x^2), the Taylor series of erf to x^25 (truncation
 * below 2^-57); 0.5 <= |x| < 6: the Taylor polynomial of degree 14 of erf
 * around the centre of x's interval of width 1/4 (22 intervals, centres
 * 0.625 + k/4, |t| <= 1/8, truncation below 2^-60), its coefficients in
 * the module-level table PTX_ERF_TABLE (row k: erf(c), then the
 * coefficients of t^1 .. t^14); |x| >= 6: +-1 (erfc(6) < 2^-54). Every
 * coefficient was computed in 80-digit decimal arithmetic and rounded
 * once. A C model of this sequence is within 1.7 ulp of long-double erfl
 * over the whole range (and its f32 results equal erf rounded to f32 on
 * every argument sampled). Uses $e0-$e8, $r0, $l0-$l1, $p0-$p2. */
#define ERF_F64(X, Y)                                                                  \
    "abs.f64 $e0, " X "; setp.lt.f64 $p0, $e0, " F64_HALF "; @!$p0 bra $L0;"    \
    "mul.rn.f64 $e1, " X ", " X "; mov.f64 $e2, 0d3DD9E6AD5E55A730;"            \
    "fma.rn.f64 $e2, $e2, $e1, 0dBE151D7181C5D36D; fma.rn.f64 $e2, $e2, $e1, 0d3E4FCC5720624C1C;" \
    "fma.rn.f64 $e2, $e2, $e1, 0dBE85F742EC43E71A; fma.rn.f64 $e2, $e2, $e1, 0d3EBB9E6C9DC651A3;" \
    "fma.rn.f64 $e2, $e2, $e1, 0dBEEF4D25C3E0C2EB; fma.rn.f64 $e2, $e2, $e1, 0d3F1F9A326F9B89B7;" \
    "fma.rn.f64 $e2, $e2, $e1, 0dBF4C02DB40040B86; fma.rn.f64 $e2, $e2, $e1, 0d3F7565BCD0E6A53F;" \
    "fma.rn.f64 $e2, $e2, $e1, 0dBF9B82CE31288B51; fma.rn.f64 $e2, $e2, $e1, 0d3FBCE2F21A042BE2;" \
    "fma.rn.f64 $e2, $e2, $e1, 0dBFD812746B0379E7; fma.rn.f64 $e2, $e2, $e1, 0d3FF20DD750429B6D;" \
    "mul.rn.f64 $e3, " X ", $e2; bra $L2;"                                      \
    "$L0: setp.lt.f64 $p1, $e0, 0d4018000000000000; @$p1 bra $L1;"              \
    "mov.f64 $e3, " F64_ONE "; copysign.f64 $e3, " X ", $e3;"                   \
    "setp.nan.f64 $p2, " X ", " X "; @$p2 add.rn.f64 $e3, " X ", " X "; bra $L2;"     \
    "$L1: sub.rn.f64 $e4, $e0, " F64_HALF "; mul.rn.f64 $e4, $e4, 0d4010000000000000;" \
    "cvt.rzi.s32.f64 $r0, $e4; min.s32 $r0, $r0, 21; cvt.rn.f64.s32 $e5, $r0;"  \
    "fma.rn.f64 $e5, $e5, 0d3FD0000000000000, 0d3FE4000000000000; sub.rn.f64 $e6, $e0, $e5;" \
    "mul.wide.u32 $l0, $r0, 120; mov.u64 $l1, " PTX_ERF_TABLE "; add.u64 $l1, $l1, $l0;" \
    "ld.const.f64 $e7, [$l1+112];"                                              \
    "ld.const.f64 $e8, [$l1+104]; fma.rn.f64 $e7, $e7, $e6, $e8;"               \
    "ld.const.f64 $e8, [$l1+96]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+88]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+80]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+72]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+64]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+56]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+48]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+40]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+32]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+24]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+16]; fma.rn.f64 $e7, $e7, $e6, $e8;"                \
    "ld.const.f64 $e8, [$l1+8]; fma.rn.f64 $e7, $e7, $e6, $e8;"                 \
    "ld.const.f64 $e8, [$l1]; fma.rn.f64 $e7, $e7, $e6, $e8;"                   \
    "copysign.f64 $e3, " X ", $e7;"                                             \
    "$L2: mov.f64 " Y ", $e3;"

#endif
