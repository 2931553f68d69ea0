/* test_scalar.c - unit tests of scalar.h: storage conversions (f16 and bf16
 * exhaustively), Python floor division and modulo, wrapping, shifts, casts,
 * comparisons, math and reductions. Requires nothing but libswage; prints
 * "N passed, N failed" last and exits nonzero on any failure. */
#include "ir/scalar.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#ifdef __FLT16_MAX__
__extension__ typedef _Float16 half_t; /* the compiler's own f16, an independent oracle */
#endif

/* Loops over many cases count as one check, reporting the first few
 * mismatches. */
typedef struct group {
    const char *name;
    long bad;
} group;

static void group_fail(group *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void group_fail(group *g, const char *fmt, ...)
{
    if (g->bad++ < 5) {
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL [%s] ", g->name);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
}

static void group_end(group *g)
{
    if (g->bad) {
        failed++;
        printf("FAIL [%s]: %ld mismatches\n", g->name, g->bad);
    } else {
        passed++;
    }
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Same double, bit for bit; any NaN equals any NaN. */
static bool same(double a, double b) { return (isnan(a) && isnan(b)) || dbits(a) == dbits(b); }

static ir_scalar I(int64_t v) { return (ir_scalar){.i = v}; }
static ir_scalar F(double v) { return (ir_scalar){.f = v}; }

static int64_t bin_i(ir_op_kind k, ir_dtype dt, int64_t a, int64_t b)
{
    ir_scalar r = {.i = 0x5a5a5a5a};
    if (!ir_eval_binary(k, dt, ir_scalar_from_int(dt, a), ir_scalar_from_int(dt, b), &r))
        return 0x7777777777;
    return r.i;
}

static double bin_f(ir_op_kind k, ir_dtype dt, double a, double b)
{
    ir_scalar r = {.f = -12345.0};
    if (!ir_eval_binary(k, dt, ir_scalar_from_float(dt, a), ir_scalar_from_float(dt, b), &r))
        return -99999.0;
    return r.f;
}

static double un_f(ir_op_kind k, ir_dtype dt, double a)
{
    ir_scalar r = {.f = -12345.0};
    if (!ir_eval_unary(k, dt, ir_scalar_from_float(dt, a), &r))
        return -99999.0;
    return r.f;
}

static int64_t un_i(ir_op_kind k, ir_dtype dt, int64_t a)
{
    ir_scalar r = {.i = 0x5a5a};
    if (!ir_eval_unary(k, dt, ir_scalar_from_int(dt, a), &r))
        return 0x7777777777;
    return r.i;
}

/* xorshift64*: reproducible pseudo-random bits. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* ---- f16 ------------------------------------------------------------------ */

/* The value of an f16 pattern, computed independently of scalar.c. */
static double f16_reference(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double mag = e == 0 ? m / 16777216.0 : (1.0 + m / 1024.0) * pow(2.0, e - 15);
    if (e == 31)
        mag = m ? NAN : INFINITY;
    return (h & 0x8000) ? -mag : mag;
}

static void test_f16_all_patterns(void)
{
    group g = {.name = "f16 all 65536 patterns: value and round trip through f32"};
    for (uint32_t u = 0; u < 65536; u++) {
        uint16_t h = (uint16_t)u;
        float f = ir_f16_to_f32(h);
        if (!same(f, f16_reference(h)))
            group_fail(&g, "0x%04x -> %.9g, expected %.9g", h, f, f16_reference(h));
        uint16_t back = ir_f32_to_f16(f);
        if (back != h)
            group_fail(&g, "0x%04x -> %a -> 0x%04x", h, f, back);
        /* The scalar representation and storage agree with the bits. */
        unsigned char mem[2];
        memcpy(mem, &h, 2);
        ir_scalar s = ir_scalar_load(DT_F16, mem);
        if (!same(s.f, f))
            group_fail(&g, "load 0x%04x", h);
        if (!isnan(f)) {
            uint16_t out = 0;
            ir_scalar_store(DT_F16, &out, s);
            if (out != h)
                group_fail(&g, "store 0x%04x gave 0x%04x", h, out);
            if (!same(ir_scalar_from_float(DT_F16, f).f, f))
                group_fail(&g, "from_float not identity on 0x%04x", h);
        }
    }
    group_end(&g);
}

static void test_f16_known(void)
{
    CHECK(ir_f16_to_f32(0x3c00) == 1.0f, "1.0");
    CHECK(ir_f16_to_f32(0x7bff) == 65504.0f, "max");
    CHECK(ir_f16_to_f32(0x0001) == 0x1p-24f, "min subnormal");
    CHECK(ir_f16_to_f32(0x03ff) == 1023 * 0x1p-24f, "max subnormal");
    CHECK(ir_f16_to_f32(0x0400) == 0x1p-14f, "min normal");
    CHECK(ir_f16_to_f32(0xc000) == -2.0f, "-2");
    CHECK(isinf(ir_f16_to_f32(0xfc00)) && ir_f16_to_f32(0xfc00) < 0, "-inf");
    CHECK(fbits(ir_f16_to_f32(0x8000)) == 0x80000000u, "-0");
    CHECK(isnan(ir_f16_to_f32(0x7e00)), "nan");
    CHECK(ir_f32_to_f16(1.0f) == 0x3c00, "1.0 -> f16");
    CHECK(ir_f32_to_f16(-0.0f) == 0x8000, "-0 -> f16");
    CHECK(ir_f32_to_f16(NAN) == 0x7e00, "quiet nan -> f16: 0x%04x", ir_f32_to_f16(NAN));
    CHECK((ir_f32_to_f16(bitsf(0x7f800001)) & 0x7fff) > 0x7c00, "nan with a low payload stays nan");
    CHECK(ir_f32_to_f16(65504.0f) == 0x7bff, "65504");
    CHECK(ir_f32_to_f16(65519.996f) == 0x7bff, "just below the overflow threshold");
    CHECK(ir_f32_to_f16(65520.0f) == 0x7c00, "65520 ties up to inf");
    CHECK(ir_f32_to_f16(-1e6f) == 0xfc00, "-1e6 -> -inf");
    CHECK(ir_f32_to_f16(INFINITY) == 0x7c00, "inf");
    CHECK(ir_f32_to_f16(0x1p-25f) == 0x0000, "2^-25 ties to even (0)");
    CHECK(ir_f32_to_f16(bitsf(0x33000001)) == 0x0001, "just above 2^-25 rounds up");
    CHECK(ir_f32_to_f16(-0x1p-26f) == 0x8000, "tiny negative rounds to -0");
    CHECK(ir_f32_to_f16(3 * 0x1p-25f) == 0x0002, "1.5 ulp subnormal ties to even (2)");
    CHECK(ir_f32_to_f16(1023.5f * 0x1p-24f) == 0x0400, "max subnormal + half ulp carries to min normal");
    CHECK(ir_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00, "1 + half ulp ties to even (1)");
    CHECK(ir_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02, "1 + 1.5 ulp ties to even (2)");
    CHECK(ir_f32_to_f16(2047.5f) == 0x6800, "2047.5 -> 2048");
}

/* Every pair of neighbouring finite f16 values: their midpoint ties to the
 * even one, one f32 ulp either side rounds to the nearer one. */
static void test_f16_midpoints(void)
{
    group g = {.name = "f16 ties-to-even at every midpoint"};
    for (uint32_t h = 0; h < 0x7c00; h++) {
        for (int neg = 0; neg < 2; neg++) {
            uint16_t lo = (uint16_t)(h | (neg ? 0x8000 : 0)), hi = (uint16_t)(lo + 1);
            double vlo = f16_reference(lo);
            double vhi = h == 0x7bff ? (neg ? -65536.0 : 65536.0) : f16_reference(hi);
            float mid = (float)((vlo + vhi) / 2); /* exact: 12 significant bits */
            uint16_t even = (lo & 1) ? hi : lo;
            if (h == 0x7bff)
                even = neg ? 0xfc00 : 0x7c00; /* the virtual 2^16 is even: overflow */
            uint16_t got = ir_f32_to_f16(mid);
            if (got != even)
                group_fail(&g, "mid %a of 0x%04x: got 0x%04x want 0x%04x", mid, lo, got, even);
            float toward_lo = nextafterf(mid, (float)vlo), toward_hi = nextafterf(mid, (float)vhi);
            uint16_t want_hi = h == 0x7bff ? even : hi;
            if (ir_f32_to_f16(toward_lo) != lo)
                group_fail(&g, "below mid of 0x%04x", lo);
            if (ir_f32_to_f16(toward_hi) != want_hi)
                group_fail(&g, "above mid of 0x%04x", lo);
        }
    }
    group_end(&g);
}

#ifdef __FLT16_MAX__
/* The compiler's own _Float16 conversion as an independent oracle. */
static void test_f16_vs_compiler(void)
{
    group g = {.name = "f32 -> f16 agrees with _Float16 on random and boundary f32s"};
    for (long k = 0; k < (1L << 22); k++) {
        uint32_t u = (uint32_t)rng();
        if (k & 1) /* bias half the cases into f16's exponent range */
            u = (u & 0x807fffffu) | ((uint32_t)(100 + (rng() % 50)) << 23);
        float f = bitsf(u);
        if (isnan(f))
            continue;
        half_t h = (half_t)f;
        uint16_t want;
        memcpy(&want, &h, 2);
        uint16_t got = ir_f32_to_f16(f);
        if (got != want)
            group_fail(&g, "%a: got 0x%04x want 0x%04x", f, got, want);
        double d = (double)f + ldexp((double)(int64_t)(rng() % 2001) - 1000, -40) * f;
        half_t hd = (half_t)d; /* double -> f16 directly, one rounding */
        if (!same(ir_scalar_from_float(DT_F16, d).f, (double)hd))
            group_fail(&g, "double %a: got %a want %a", d, ir_scalar_from_float(DT_F16, d).f, (double)hd);
    }
    group_end(&g);
}
#endif

/* Rounding a double straight to f16 must not go through f32 first. */
static void test_no_double_rounding(void)
{
    double d = 1.0 + 0x1p-11 + 0x1p-40; /* just above a tie */
    CHECK(ir_scalar_from_float(DT_F16, d).f == 1.0 + 0x1p-10, "double -> f16 rounds once: %a",
          ir_scalar_from_float(DT_F16, d).f);
    CHECK(ir_f32_to_f16((float)d) == 0x3c00, "(through f32 the information is lost: a tie)");
    d = 1.0 + 0x1p-8 + 0x1p-40;
    CHECK(ir_scalar_from_float(DT_BF16, d).f == 1.0 + 0x1p-7, "double -> bf16 rounds once");
    CHECK(ir_scalar_from_int(DT_BF16, (INT64_C(1) << 32) + (1 << 24) + 1).f == 0x1p32 + 0x1p25,
          "i64 -> bf16 rounds once: %a", ir_scalar_from_int(DT_BF16, (INT64_C(1) << 32) + (1 << 24) + 1).f);
    CHECK(ir_scalar_from_int(DT_F32, (INT64_C(1) << 62) + (INT64_C(1) << 38) + 1).f == 0x1p62 + 0x1p39,
          "i64 -> f32 rounds once");
    CHECK(ir_scalar_from_int(DT_F64, (INT64_C(1) << 53) + 1).f == 0x1p53, "i64 -> f64 ties to even");
    CHECK(ir_scalar_from_int(DT_F64, INT64_MIN).f == -0x1p63, "INT64_MIN -> f64");
    CHECK(ir_scalar_from_int(DT_F32, 16777217).f == 16777216.0, "2^24+1 -> f32 ties to even");
    CHECK(ir_scalar_from_int(DT_F32, 16777219).f == 16777220.0, "2^24+3 -> f32 ties to even (up)");
    CHECK(ir_scalar_from_int(DT_F16, 2049).f == 2048.0, "2049 -> f16");
    CHECK(ir_scalar_from_int(DT_F16, 2051).f == 2052.0, "2051 -> f16");
    CHECK(ir_scalar_from_int(DT_F16, 65519).f == 65504.0, "65519 -> f16");
    CHECK(isinf(ir_scalar_from_int(DT_F16, 65520).f), "65520 -> f16 inf");
    CHECK(isinf(ir_scalar_from_int(DT_F16, INT64_MIN).f) && ir_scalar_from_int(DT_F16, INT64_MIN).f < 0,
          "INT64_MIN -> f16 -inf");
}

/* ---- bf16 ------------------------------------------------------------------ */

static void test_bf16(void)
{
    group g = {.name = "bf16 all 65536 patterns round trip; bit and value rounding agree"};
    for (uint32_t u = 0; u < 65536; u++) {
        uint16_t h = (uint16_t)u;
        float f = ir_bf16_to_f32(h);
        if (fbits(f) != (u << 16))
            group_fail(&g, "0x%04x widens wrongly", h);
        if (ir_f32_to_bf16(f) != h)
            group_fail(&g, "0x%04x does not round trip", h);
        if (!isnan(f)) {
            uint16_t out;
            ir_scalar_store(DT_BF16, &out, ir_scalar_load(DT_BF16, &h));
            if (out != h)
                group_fail(&g, "store/load 0x%04x", h);
        }
    }
    /* The bit trick (ir_f32_to_bf16) and the generic rounder (from_float)
     * are two implementations; they must agree everywhere. */
    for (long k = 0; k < (1L << 22); k++) {
        float f = bitsf((uint32_t)rng());
        if (isnan(f))
            continue;
        double a = ir_bf16_to_f32(ir_f32_to_bf16(f)), b = ir_scalar_from_float(DT_BF16, f).f;
        if (!same(a, b))
            group_fail(&g, "%a: bits %a, generic %a", f, a, b);
    }
    group_end(&g);
    CHECK(ir_f32_to_bf16(1.0f) == 0x3f80, "1.0");
    CHECK(ir_f32_to_bf16(bitsf(0x3f808000)) == 0x3f80, "tie to even (down)");
    CHECK(ir_f32_to_bf16(bitsf(0x3f818000)) == 0x3f82, "tie to even (up)");
    CHECK(ir_f32_to_bf16(bitsf(0x3f808001)) == 0x3f81, "above tie");
    CHECK(ir_f32_to_bf16(bitsf(0x7f7fffff)) == 0x7f80, "FLT_MAX overflows to inf");
    CHECK(ir_f32_to_bf16(bitsf(0x7f7f7fff)) == 0x7f7f, "below the overflow threshold");
    CHECK(ir_f32_to_bf16(bitsf(0x00008000)) == 0x0000, "subnormal tie to even (0)");
    CHECK(ir_f32_to_bf16(bitsf(0x00018000)) == 0x0002, "subnormal tie to even (2)");
    CHECK(ir_f32_to_bf16(bitsf(0x807fffff)) == 0x8080, "max negative subnormal carries to min normal");
    CHECK((ir_f32_to_bf16(bitsf(0x7f800001)) & 0x7fff) > 0x7f80, "nan with low payload stays nan");
    CHECK(ir_f32_to_bf16(NAN) == 0x7fc0, "quiet nan");
    CHECK(isinf(ir_scalar_from_float(DT_BF16, 3.4e38).f), "3.4e38 -> bf16 inf");
    CHECK(ir_scalar_from_float(DT_BF16, 3.39e38).f == 0x1.FEp127, "3.39e38 -> bf16 max");
    CHECK(ir_scalar_from_float(DT_BF16, 3.38e38).f == 0x1.FCp127, "3.38e38 -> bf16 max - ulp");
    CHECK(ir_scalar_from_float(DT_BF16, 0x1p-133).f == 0x1p-133, "min bf16 subnormal");
    CHECK(ir_scalar_from_float(DT_BF16, 0x1p-134).f == 0.0, "half min subnormal ties to 0");
}

/* ---- integer arithmetic ------------------------------------------------------ */

static void test_int_floordiv_mod(void)
{
    /* Python: floor toward -inf, remainder has the divisor's sign. */
    CHECK(bin_i(IR_FLOORDIV, DT_I32, -7, 2) == -4, "-7 // 2 == -4");
    CHECK(bin_i(IR_MOD, DT_I32, -7, 2) == 1, "-7 %% 2 == 1");
    CHECK(bin_i(IR_MOD, DT_I32, 7, -2) == -1, "7 %% -2 == -1");
    CHECK(bin_i(IR_FLOORDIV, DT_I32, 7, -2) == -4, "7 // -2 == -4");
    CHECK(bin_i(IR_FLOORDIV, DT_I32, -7, -2) == 3, "-7 // -2 == 3");
    CHECK(bin_i(IR_MOD, DT_I32, -7, -2) == -1, "-7 %% -2 == -1");
    CHECK(bin_i(IR_FLOORDIV, DT_I32, 7, 2) == 3, "7 // 2 == 3");
    CHECK(bin_i(IR_MOD, DT_I32, -6, 3) == 0, "-6 %% 3 == 0");
    CHECK(bin_i(IR_FLOORDIV, DT_I32, 5, 0) == 0 && bin_i(IR_MOD, DT_I32, 5, 0) == 0, "x // 0 == x %% 0 == 0");
    CHECK(bin_i(IR_FLOORDIV, DT_I64, INT64_MIN, -1) == INT64_MIN, "INT64_MIN // -1 wraps");
    CHECK(bin_i(IR_MOD, DT_I64, INT64_MIN, -1) == 0, "INT64_MIN %% -1 == 0");
    CHECK(bin_i(IR_FLOORDIV, DT_I32, INT32_MIN, -1) == INT32_MIN, "INT32_MIN // -1 wraps");
    CHECK(bin_i(IR_FLOORDIV, DT_I8, -128, -1) == -128, "i8 -128 // -1 wraps");
    CHECK(bin_i(IR_FLOORDIV, DT_I64, INT64_MIN, 2) == INT64_MIN / 2, "INT64_MIN // 2");
    CHECK(bin_i(IR_MOD, DT_I64, INT64_MIN, INT64_MAX) == INT64_MAX - 1, "INT64_MIN %% INT64_MAX");
    CHECK(bin_i(IR_FLOORDIV, DT_U8, 200, 7) == 28 && bin_i(IR_MOD, DT_U8, 200, 7) == 4, "ui8 200 divmod 7");
    CHECK(bin_i(IR_FLOORDIV, DT_I1, 1, 1) == 1 && bin_i(IR_FLOORDIV, DT_I1, 1, 0) == 0, "i1 floordiv");

    static const ir_dtype dts[] = {DT_I8, DT_I32, DT_I64};
    group g = {.name = "int // and % over -7..7 against floor((double)a / b)"};
    for (int t = 0; t < 3; t++)
        for (int a = -7; a <= 7; a++)
            for (int b = -7; b <= 7; b++) {
                int64_t q = b ? (int64_t)floor((double)a / b) : 0, r = b ? a - b * q : 0;
                int64_t gq = bin_i(IR_FLOORDIV, dts[t], a, b), gr = bin_i(IR_MOD, dts[t], a, b);
                if (gq != q || gr != r)
                    group_fail(&g, "%s: %d divmod %d = (%lld, %lld), want (%lld, %lld)",
                               ir_dtypes[dts[t]].name, a, b, (long long)gq, (long long)gr,
                               (long long)q, (long long)r);
            }
    group_end(&g);
}

/* The language's integer // and %: C's truncating division (sw.idiv,
 * sw.rem), with the cases C leaves undefined defined; and sw.umulhi. */
static void test_int_idiv_rem_umulhi(void)
{
    CHECK(bin_i(IR_IDIV, DT_I32, -7, 2) == -3 && bin_i(IR_REM, DT_I32, -7, 2) == -1, "-7 / 2, -7 %% 2");
    CHECK(bin_i(IR_IDIV, DT_I32, 7, -2) == -3 && bin_i(IR_REM, DT_I32, 7, -2) == 1, "7 / -2, 7 %% -2");
    CHECK(bin_i(IR_IDIV, DT_I32, -7, -2) == 3 && bin_i(IR_REM, DT_I32, -7, -2) == -1, "-7 / -2");
    CHECK(bin_i(IR_IDIV, DT_I64, 5, 0) == 0 && bin_i(IR_REM, DT_I64, 5, 0) == 0, "x / 0 == x %% 0 == 0");
    CHECK(bin_i(IR_IDIV, DT_I64, INT64_MIN, -1) == INT64_MIN, "INT64_MIN / -1 wraps");
    CHECK(bin_i(IR_REM, DT_I64, INT64_MIN, -1) == 0, "INT64_MIN %% -1 == 0");
    CHECK(bin_i(IR_IDIV, DT_I32, INT32_MIN, -1) == INT32_MIN, "INT32_MIN / -1 wraps");
    CHECK(bin_i(IR_IDIV, DT_I8, -128, -1) == -128, "i8 -128 / -1 wraps");
    CHECK(bin_i(IR_IDIV, DT_U8, 200, 7) == 28 && bin_i(IR_REM, DT_U8, 200, 7) == 4, "ui8 200 / 7");
    CHECK(bin_i(IR_IDIV, DT_I1, 1, 1) == 1 && bin_i(IR_REM, DT_I1, 1, 1) == 0, "i1");
    group g = {.name = "int / and % over -9..9: q truncated, a == q * b + r"};
    static const ir_dtype dts[] = {DT_I8, DT_I32, DT_I64};
    for (int t = 0; t < 3; t++)
        for (int a = -9; a <= 9; a++)
            for (int b = -9; b <= 9; b++) {
                int64_t q = b ? (int64_t)trunc((double)a / b) : 0, r = b ? a - b * q : 0;
                int64_t gq = bin_i(IR_IDIV, dts[t], a, b), gr = bin_i(IR_REM, dts[t], a, b);
                if (gq != q || gr != r || (r && (r < 0) != (a < 0)))
                    group_fail(&g, "%s: %d / %d = (%lld, %lld), want (%lld, %lld)",
                               ir_dtypes[dts[t]].name, a, b, (long long)gq, (long long)gr,
                               (long long)q, (long long)r);
            }
    group_end(&g);
    CHECK(bin_i(IR_UMULHI, DT_I32, -1, -1) == -2, "umulhi i32 (2^32-1)^2 >> 32 = 2^32-2");
    CHECK(bin_i(IR_UMULHI, DT_I32, -1, 2) == 1, "umulhi i32 -1 * 2");
    CHECK(bin_i(IR_UMULHI, DT_I32, 65536, 65536) == 1, "umulhi i32 2^16 * 2^16");
    CHECK(bin_i(IR_UMULHI, DT_I64, -1, -1) == -2, "umulhi i64 (2^64-1)^2");
    CHECK(bin_i(IR_UMULHI, DT_I64, INT64_MIN, 2) == 1, "umulhi i64 2^63 * 2");
    CHECK(bin_i(IR_UMULHI, DT_I64, 0x100000000LL, 0x100000000LL) == 1, "umulhi i64 2^32 * 2^32");
    CHECK(bin_i(IR_UMULHI, DT_I64, 0x123456789abcdefLL, 0xfedcba987654321LL) == 0x121fa00ad77d74LL,
          "umulhi i64 of two 57-bit values");
}

static void test_fma_erf(void)
{
    ir_scalar r, a = {.f = 1 + 0x1p-12}, c = {.f = -(1 + 0x1p-11)};
    CHECK(ir_eval_ternary(IR_FMA, DT_F32, a, a, c, &r) && r.f == 0x1p-24, "f32 fma rounds once");
    CHECK(ir_eval_ternary(IR_FMA, DT_F64, a, a, c, &r) && r.f == 0x1p-24, "f64 fma");
    ir_scalar h = {.f = 3}, k = {.f = 5}, z = {.f = 0x1p-20};
    CHECK(ir_eval_ternary(IR_FMA, DT_F16, h, k, z, &r) && r.f == 15, "f16 fma rounds to f16");
    CHECK(!ir_eval_ternary(IR_FMA, DT_I32, h, k, z, &r), "no integer fma");
    CHECK(!ir_eval_ternary(IR_ADD, DT_F32, h, k, z, &r), "only fma is ternary");
    CHECK(un_f(IR_ERF, DT_F64, 0.5) == erf(0.5) && un_f(IR_ERF, DT_F32, -10) == -1.0, "erf");
    CHECK(isnan(un_f(IR_ERF, DT_F32, NAN)), "erf(nan)");
    /* erfc keeps its relative precision where erf(x) rounds to 1 */
    CHECK(un_f(IR_ERFC, DT_F64, 0.5) == (double)erfcl(0.5L) && un_f(IR_ERFC, DT_F64, 10) > 2e-45 &&
              un_f(IR_ERFC, DT_F64, 10) < 2.1e-45 && un_f(IR_ERFC, DT_F32, -10) == 2.0 &&
              un_f(IR_ERFC, DT_F32, 11) == 0.0 && un_f(IR_ERFC, DT_F32, 9) > 0,
          "erfc");
    CHECK(isnan(un_f(IR_ERFC, DT_F64, NAN)) && un_f(IR_ERFC, DT_F64, INFINITY) == 0, "erfc(nan), erfc(inf)");
}

static void test_int_wrap(void)
{
    CHECK(ir_scalar_from_int(DT_I8, 200).i == -56, "from_int i8 200 wraps to -56");
    CHECK(ir_scalar_from_int(DT_U8, -1).i == 255, "from_int ui8 -1 wraps to 255");
    CHECK(ir_scalar_from_int(DT_I32, INT64_C(0x180000000)).i == INT32_MIN, "from_int i32 wraps");
    CHECK(ir_scalar_from_int(DT_I1, 3).i == 1 && ir_scalar_from_int(DT_I1, 2).i == 0, "from_int i1 keeps bit 0");
    CHECK(bin_i(IR_ADD, DT_I8, 127, 1) == -128, "i8 127 + 1");
    CHECK(bin_i(IR_SUB, DT_I8, -128, 1) == 127, "i8 -128 - 1");
    CHECK(bin_i(IR_MUL, DT_I8, 16, 16) == 0, "i8 16 * 16");
    CHECK(bin_i(IR_MUL, DT_I8, -3, 50) == 106, "i8 -3 * 50 = -150 wraps to 106");
    CHECK(bin_i(IR_ADD, DT_U8, 255, 1) == 0, "ui8 255 + 1");
    CHECK(bin_i(IR_SUB, DT_U8, 0, 1) == 255, "ui8 0 - 1");
    CHECK(bin_i(IR_MUL, DT_U8, 16, 17) == 16, "ui8 16 * 17 = 272 wraps to 16");
    CHECK(bin_i(IR_ADD, DT_I32, INT32_MAX, 1) == INT32_MIN, "i32 max + 1");
    CHECK(bin_i(IR_MUL, DT_I32, 65536, 65536) == 0, "i32 2^16 * 2^16");
    CHECK(bin_i(IR_MUL, DT_I32, 65537, 65537) == 131073, "i32 65537^2 wraps");
    CHECK(bin_i(IR_ADD, DT_I64, INT64_MAX, 1) == INT64_MIN, "i64 max + 1");
    CHECK(bin_i(IR_MUL, DT_I64, INT64_MIN, -1) == INT64_MIN, "i64 min * -1");
    CHECK(bin_i(IR_ADD, DT_I1, 1, 1) == 0, "i1 1 + 1 wraps to 0");
    CHECK(un_i(IR_NEG, DT_I32, INT32_MIN) == INT32_MIN, "-INT32_MIN wraps");
    CHECK(un_i(IR_NEG, DT_I64, INT64_MIN) == INT64_MIN, "-INT64_MIN wraps");
    CHECK(un_i(IR_NEG, DT_U8, 5) == 251, "ui8 -5");
    CHECK(un_i(IR_ABS, DT_I32, INT32_MIN) == INT32_MIN, "abs(INT32_MIN) wraps");
    CHECK(un_i(IR_ABS, DT_I8, -128) == -128, "abs(i8 -128) wraps");
    CHECK(un_i(IR_ABS, DT_I32, -5) == 5 && un_i(IR_ABS, DT_U8, 200) == 200, "abs");
    CHECK(un_i(IR_NOT, DT_I1, 0) == 1 && un_i(IR_NOT, DT_I1, 1) == 0, "not on i1 is logical");
    CHECK(un_i(IR_NOT, DT_U8, 0) == 255 && un_i(IR_NOT, DT_U8, 5) == 250, "not on ui8");
    CHECK(un_i(IR_NOT, DT_I8, 0) == -1 && un_i(IR_NOT, DT_I32, 5) == -6, "not on signed");
    CHECK(bin_i(IR_AND, DT_I8, -1, 0x0f) == 0x0f && bin_i(IR_OR, DT_I8, 0x70, 0x0f) == 0x7f, "and, or");
    CHECK(bin_i(IR_XOR, DT_I8, -1, 0x7f) == -128 && bin_i(IR_XOR, DT_U8, 255, 1) == 254, "xor");
    CHECK(bin_i(IR_MINIMUM, DT_I32, -3, 2) == -3 && bin_i(IR_MAXIMUM, DT_U8, 200, 100) == 200, "int min/max");
}

static void test_shifts(void)
{
    CHECK(bin_i(IR_SHL, DT_I32, 1, 31) == INT32_MIN, "i32 1 << 31");
    CHECK(bin_i(IR_SHL, DT_I32, 1, 32) == 0, "i32 1 << 32 == 0");
    CHECK(bin_i(IR_SHL, DT_I32, 1, -1) == 0, "i32 1 << -1 == 0");
    CHECK(bin_i(IR_SHL, DT_I32, 3, 1000) == 0, "i32 3 << 1000 == 0");
    CHECK(bin_i(IR_SHL, DT_I8, 1, 7) == -128, "i8 1 << 7");
    CHECK(bin_i(IR_SHL, DT_U8, 1, 7) == 128 && bin_i(IR_SHL, DT_U8, 1, 8) == 0, "ui8 shl");
    CHECK(bin_i(IR_SHL, DT_U8, 0xff, 4) == 0xf0, "ui8 0xff << 4");
    CHECK(bin_i(IR_SHL, DT_I64, 1, 63) == INT64_MIN && bin_i(IR_SHL, DT_I64, 1, 64) == 0, "i64 shl");
    CHECK(bin_i(IR_SHL, DT_I64, -1, 1) == -2, "i64 -1 << 1");
    CHECK(bin_i(IR_SHR, DT_I32, -8, 1) == -4, "i32 -8 >> 1 (arithmetic)");
    CHECK(bin_i(IR_SHR, DT_I32, -8, 40) == -1, "i32 -8 >> 40 == -1");
    CHECK(bin_i(IR_SHR, DT_I32, -8, -1) == -1, "i32 -8 >> -1 == -1");
    CHECK(bin_i(IR_SHR, DT_I32, 8, 40) == 0, "i32 8 >> 40 == 0");
    CHECK(bin_i(IR_SHR, DT_I32, -1, 31) == -1 && bin_i(IR_SHR, DT_I32, INT32_MIN, 31) == -1, "i32 >> 31");
    CHECK(bin_i(IR_SHR, DT_I64, -5, 64) == -1 && bin_i(IR_SHR, DT_I64, INT64_MIN, 63) == -1, "i64 shr");
    CHECK(bin_i(IR_SHR, DT_U8, 255, 7) == 1 && bin_i(IR_SHR, DT_U8, 255, 8) == 0, "ui8 shr is logical");
    CHECK(bin_i(IR_SHR, DT_I8, -128, 7) == -1 && bin_i(IR_SHR, DT_I8, -128, 8) == -1, "i8 shr");
    CHECK(bin_i(IR_SHL, DT_I1, 1, 0) == 1 && bin_i(IR_SHL, DT_I1, 1, 1) == 0, "i1 shl");
    CHECK(bin_i(IR_SHR, DT_I1, 1, 0) == 1 && bin_i(IR_SHR, DT_I1, 1, 1) == 0, "i1 shr");
}

/* ---- float arithmetic -------------------------------------------------------- */

static void test_float_floordiv_mod(void)
{
    /* Generated by CPython 3.11: (a, b, a // b, a % b). */
    static const double table[][4] = {
        {-7.5, 2.0, -4.0, 0.5},
        {-7.5, -2.0, 3.0, -1.5},
        {-7.5, 0.5, -15.0, 0.0},
        {-7.5, -0.5, 15.0, -0.0},
        {-7.5, 3.0, -3.0, 1.5},
        {-7.5, 0.1, -75.0, 4.163336342344337e-16},
        {-7.5, INFINITY, -1.0, INFINITY},
        {-7.5, -INFINITY, 0.0, -7.5},
        {-7.0, 2.0, -4.0, 1.0},
        {-7.0, -2.0, 3.0, -1.0},
        {-7.0, 0.5, -14.0, 0.0},
        {-7.0, -0.5, 14.0, -0.0},
        {-7.0, 3.0, -3.0, 2.0},
        {-7.0, 0.1, -70.0, 3.885780586188048e-16},
        {-7.0, INFINITY, -1.0, INFINITY},
        {-7.0, -INFINITY, 0.0, -7.0},
        {-0.5, 2.0, -1.0, 1.5},
        {-0.5, -2.0, 0.0, -0.5},
        {-0.5, 0.5, -1.0, 0.0},
        {-0.5, -0.5, 1.0, -0.0},
        {-0.5, 3.0, -1.0, 2.5},
        {-0.5, 0.1, -5.0, 2.7755575615628914e-17},
        {-0.5, INFINITY, -1.0, INFINITY},
        {-0.5, -INFINITY, 0.0, -0.5},
        {-0.0, 2.0, -0.0, 0.0},
        {-0.0, -2.0, 0.0, -0.0},
        {-0.0, 0.5, -0.0, 0.0},
        {-0.0, -0.5, 0.0, -0.0},
        {-0.0, 3.0, -0.0, 0.0},
        {-0.0, 0.1, -0.0, 0.0},
        {-0.0, INFINITY, -0.0, 0.0},
        {-0.0, -INFINITY, 0.0, -0.0},
        {0.0, 2.0, 0.0, 0.0},
        {0.0, -2.0, -0.0, -0.0},
        {0.0, 0.5, 0.0, 0.0},
        {0.0, -0.5, -0.0, -0.0},
        {0.0, 3.0, 0.0, 0.0},
        {0.0, 0.1, 0.0, 0.0},
        {0.0, INFINITY, 0.0, 0.0},
        {0.0, -INFINITY, -0.0, -0.0},
        {0.5, 2.0, 0.0, 0.5},
        {0.5, -2.0, -1.0, -1.5},
        {0.5, 0.5, 1.0, 0.0},
        {0.5, -0.5, -1.0, -0.0},
        {0.5, 3.0, 0.0, 0.5},
        {0.5, 0.1, 4.0, 0.09999999999999998},
        {0.5, INFINITY, 0.0, 0.5},
        {0.5, -INFINITY, -1.0, -INFINITY},
        {5.5, 2.0, 2.0, 1.5},
        {5.5, -2.0, -3.0, -0.5},
        {5.5, 0.5, 11.0, 0.0},
        {5.5, -0.5, -11.0, -0.0},
        {5.5, 3.0, 1.0, 2.5},
        {5.5, 0.1, 54.0, 0.0999999999999997},
        {5.5, INFINITY, 0.0, 5.5},
        {5.5, -INFINITY, -1.0, -INFINITY},
        {7.0, 2.0, 3.0, 1.0},
        {7.0, -2.0, -4.0, -1.0},
        {7.0, 0.5, 14.0, 0.0},
        {7.0, -0.5, -14.0, -0.0},
        {7.0, 3.0, 2.0, 1.0},
        {7.0, 0.1, 69.0, 0.09999999999999962},
        {7.0, INFINITY, 0.0, 7.0},
        {7.0, -INFINITY, -1.0, -INFINITY},
        {1e+300, 2.0, 5e+299, 0.0},
        {1e+300, -2.0, -5e+299, -0.0},
        {1e+300, 0.5, 2e+300, 0.0},
        {1e+300, -0.5, -2e+300, -0.0},
        {1e+300, 3.0, 3.3333333333333335e+299, 0.0},
        {1e+300, 0.1, 1e+301, 0.00011215964963492975},
        {1e+300, INFINITY, 0.0, 1e+300},
        {1e+300, -INFINITY, -1.0, -INFINITY},
        {INFINITY, 2.0, NAN, NAN},
        {INFINITY, -2.0, NAN, NAN},
        {INFINITY, 0.5, NAN, NAN},
        {INFINITY, -0.5, NAN, NAN},
        {INFINITY, 3.0, NAN, NAN},
        {INFINITY, 0.1, NAN, NAN},
        {INFINITY, INFINITY, NAN, NAN},
        {INFINITY, -INFINITY, NAN, NAN},
        {-INFINITY, 2.0, NAN, NAN},
        {-INFINITY, -2.0, NAN, NAN},
        {-INFINITY, 0.5, NAN, NAN},
        {-INFINITY, -0.5, NAN, NAN},
        {-INFINITY, 3.0, NAN, NAN},
        {-INFINITY, 0.1, NAN, NAN},
        {-INFINITY, INFINITY, NAN, NAN},
        {-INFINITY, -INFINITY, NAN, NAN},
    };
    group g = {.name = "f64 // and % against CPython"};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        double a = table[k][0], b = table[k][1];
        double q = bin_f(IR_FLOORDIV, DT_F64, a, b), r = bin_f(IR_MOD, DT_F64, a, b);
        if (!same(q, table[k][2]) || !same(r, table[k][3]))
            group_fail(&g, "%g divmod %g = (%g, %g), want (%g, %g)", a, b, q, r, table[k][2],
                       table[k][3]);
    }
    group_end(&g);
    CHECK(bin_f(IR_FLOORDIV, DT_F32, -7.5, 2) == -4.0, "f32 -7.5 // 2 == -4.0");
    CHECK(bin_f(IR_MOD, DT_F32, 5.5, -2.0) == -0.5, "f32 5.5 %% -2.0 == -0.5");
    CHECK(bin_f(IR_MOD, DT_F16, -7.5, 2) == 0.5, "f16 -7.5 %% 2 == 0.5");
    CHECK(bin_f(IR_FLOORDIV, DT_F32, 1, 0) == INFINITY, "1.0 // 0.0 == inf");
    CHECK(bin_f(IR_FLOORDIV, DT_F32, -1, 0) == -INFINITY, "-1.0 // 0.0 == -inf");
    CHECK(isnan(bin_f(IR_FLOORDIV, DT_F32, 0, 0)), "0.0 // 0.0 is nan");
    CHECK(isnan(bin_f(IR_MOD, DT_F32, 1, 0)), "1.0 %% 0.0 is nan");
    CHECK(bin_f(IR_DIV, DT_F32, 1, 0) == INFINITY && bin_f(IR_DIV, DT_F32, -1, 0) == -INFINITY, "x / 0");
    CHECK(isnan(bin_f(IR_DIV, DT_F32, 0, 0)), "0 / 0");
}

static void test_float_rounding(void)
{
    CHECK(bin_f(IR_ADD, DT_F32, 0.1f, 0.2f) == (double)(0.1f + 0.2f), "f32 add rounds to f32");
    CHECK(bin_f(IR_DIV, DT_F32, 1, 3) == (double)(1.0f / 3.0f), "f32 div rounds to f32");
    CHECK(bin_f(IR_MUL, DT_F32, 1e30, 1e30) == INFINITY, "f32 mul overflows to inf");
    CHECK(bin_f(IR_ADD, DT_F16, 1, 0x1p-11) == 1.0, "f16 1 + 2^-11 ties to 1");
    CHECK(bin_f(IR_ADD, DT_F16, 1, 3 * 0x1p-11) == 1 + 0x1p-9, "f16 1 + 3*2^-11 ties to even");
    CHECK(bin_f(IR_ADD, DT_F16, 60000, 10000) == INFINITY, "f16 overflow");
    CHECK(bin_f(IR_MUL, DT_F16, 0x1p-14, 0x1p-5) == 0x1p-19, "f16 subnormal product");
    CHECK(bin_f(IR_MUL, DT_F16, 0x1p-14, 0x1p-11) == 0.0, "f16 product underflows (tie to 0)");
    CHECK(bin_f(IR_ADD, DT_BF16, 1, 0x1p-8) == 1.0, "bf16 1 + 2^-8 ties to 1");
    CHECK(ir_scalar_from_float(DT_F32, 1e39).f == INFINITY, "f64 -> f32 overflow");
    CHECK(ir_scalar_from_float(DT_F32, 0x1p-149).f == 0x1p-149, "f32 min subnormal kept");
    CHECK(ir_scalar_from_float(DT_F32, 0x1p-150).f == 0.0, "f32 half min subnormal ties to 0");
    CHECK(ir_scalar_from_float(DT_F16, 1e5).f == INFINITY, "f16 overflow");
    CHECK(ir_scalar_from_float(DT_F16, 0.1).f == 0.0999755859375, "0.1 -> f16");
}

static void test_minmax(void)
{
    CHECK(isnan(bin_f(IR_MINIMUM, DT_F32, NAN, 1)) && isnan(bin_f(IR_MINIMUM, DT_F32, 1, NAN)), "min nan");
    CHECK(isnan(bin_f(IR_MAXIMUM, DT_F32, NAN, 1)) && isnan(bin_f(IR_MAXIMUM, DT_F32, 1, NAN)), "max nan");
    CHECK(bin_f(IR_MINIMUM, DT_F32, 1, 2) == 1 && bin_f(IR_MAXIMUM, DT_F32, 1, 2) == 2, "min/max");
    CHECK(signbit(bin_f(IR_MINIMUM, DT_F32, 0.0, -0.0)) && signbit(bin_f(IR_MINIMUM, DT_F32, -0.0, 0.0)),
          "minimum(+0, -0) == -0");
    CHECK(!signbit(bin_f(IR_MAXIMUM, DT_F32, 0.0, -0.0)) && !signbit(bin_f(IR_MAXIMUM, DT_F32, -0.0, 0.0)),
          "maximum(+0, -0) == +0");
    CHECK(bin_f(IR_MAXIMUM, DT_F64, -INFINITY, -1e308) == -1e308, "max with -inf");
}

static void test_math(void)
{
    CHECK(un_f(IR_EXP, DT_F32, 1) == (double)(float)exp(1.0), "exp f32");
    CHECK(un_f(IR_EXP, DT_F16, 1) == 2.71875, "exp f16: %.9g", un_f(IR_EXP, DT_F16, 1));
    CHECK(un_f(IR_EXP, DT_F16, 12) == INFINITY, "exp f16 overflows");
    CHECK(un_f(IR_EXP2, DT_F32, 10) == 1024, "exp2");
    CHECK(un_f(IR_LOG, DT_F64, 1) == 0 && isnan(un_f(IR_LOG, DT_F32, -1)), "log");
    CHECK(un_f(IR_LOG, DT_F32, 0) == -INFINITY, "log 0");
    CHECK(un_f(IR_LOG2, DT_F32, 8) == 3, "log2");
    CHECK(un_f(IR_SQRT, DT_F32, 2) == (double)sqrtf(2.0f) && isnan(un_f(IR_SQRT, DT_F32, -1)), "sqrt");
    CHECK(un_f(IR_RSQRT, DT_F32, 4) == 0.5 && un_f(IR_RSQRT, DT_F32, 0) == INFINITY, "rsqrt");
    CHECK(un_f(IR_FLOOR, DT_F32, -2.5) == -3 && un_f(IR_CEIL, DT_F32, -2.5) == -2, "floor/ceil");
    CHECK(signbit(un_f(IR_CEIL, DT_F32, -0.5)), "ceil(-0.5) == -0");
    CHECK(un_f(IR_SIN, DT_F64, 0) == 0 && un_f(IR_COS, DT_F64, 0) == 1, "sin/cos");
    CHECK(un_f(IR_SIGMOID, DT_F32, 0) == 0.5, "sigmoid(0)");
    CHECK(un_f(IR_SIGMOID, DT_F32, -1000) == 0 && un_f(IR_SIGMOID, DT_F32, 1000) == 1, "sigmoid saturates");
    CHECK(un_f(IR_NEG, DT_F32, 0) == 0 && signbit(un_f(IR_NEG, DT_F32, 0)), "neg 0 == -0");
    CHECK(un_f(IR_ABS, DT_BF16, -3) == 3, "abs");
    ir_scalar r;
    CHECK(!ir_eval_unary(IR_EXP, DT_I32, I(1), &r), "exp on i32 is not defined");
    CHECK(!ir_eval_unary(IR_NOT, DT_F32, F(1), &r), "not on f32 is not defined");
    CHECK(!ir_eval_binary(IR_DIV, DT_I32, I(1), I(2), &r), "div on i32 is not defined");
    CHECK(!ir_eval_binary(IR_AND, DT_F32, F(1), F(2), &r), "and on f32 is not defined");
    CHECK(!ir_eval_binary(IR_LOAD, DT_F32, F(1), F(2), &r), "load is not a binary op");
    CHECK(!ir_eval_unary(IR_ADD, DT_F32, F(1), &r), "add is not unary");
}

/* ---- casts ----------------------------------------------------------------- */

static int64_t cast_fi(ir_dtype to, double f) { return ir_eval_cast(DT_F64, to, F(f)).i; }
static double cast_if(ir_dtype from, ir_dtype to, int64_t v)
{
    return ir_eval_cast(from, to, ir_scalar_from_int(from, v)).f;
}
static int64_t cast_ii(ir_dtype from, ir_dtype to, int64_t v)
{
    return ir_eval_cast(from, to, ir_scalar_from_int(from, v)).i;
}

static void test_casts(void)
{
    CHECK(cast_fi(DT_I32, 3.9) == 3 && cast_fi(DT_I32, -3.9) == -3, "float -> int truncates");
    CHECK(cast_fi(DT_I32, 1e10) == INT32_MAX && cast_fi(DT_I32, -1e10) == INT32_MIN, "i32 saturates");
    CHECK(cast_fi(DT_I32, INFINITY) == INT32_MAX && cast_fi(DT_I32, -INFINITY) == INT32_MIN, "inf saturates");
    CHECK(cast_fi(DT_I32, NAN) == 0 && cast_fi(DT_I64, NAN) == 0 && cast_fi(DT_U8, NAN) == 0, "nan -> 0");
    CHECK(cast_fi(DT_I32, 2147483647.9) == INT32_MAX && cast_fi(DT_I32, -2147483648.9) == INT32_MIN,
          "i32 edges");
    CHECK(cast_fi(DT_I8, 200.5) == 127 && cast_fi(DT_I8, -200) == -128 && cast_fi(DT_I8, -128.7) == -128,
          "i8 saturates");
    CHECK(cast_fi(DT_U8, -5) == 0 && cast_fi(DT_U8, 300) == 255 && cast_fi(DT_U8, 255.9) == 255 &&
              cast_fi(DT_U8, -0.9) == 0,
          "ui8 saturates to 0..255");
    CHECK(cast_fi(DT_I64, 1e19) == INT64_MAX && cast_fi(DT_I64, -9.3e18) == INT64_MIN, "i64 saturates");
    CHECK(cast_fi(DT_I64, 0x1p63) == INT64_MAX && cast_fi(DT_I64, -0x1p63) == INT64_MIN, "i64 at 2^63");
    CHECK(cast_fi(DT_I64, 0x1.fffffffffffffp62) == INT64_C(0x7ffffffffffffc00), "largest double below 2^63");
    CHECK(cast_fi(DT_I1, 0.0) == 0 && cast_fi(DT_I1, -0.0) == 0 && cast_fi(DT_I1, 0.1) == 1 &&
              cast_fi(DT_I1, NAN) == 1 && cast_fi(DT_I1, -INFINITY) == 1,
          "float -> i1 is != 0 (nan -> 1)");
    CHECK(cast_ii(DT_I32, DT_I1, 256) == 1 && cast_ii(DT_I32, DT_I1, 0) == 0, "int -> i1 is != 0, not a wrap");
    CHECK(cast_ii(DT_I32, DT_I8, 300) == 44 && cast_ii(DT_I32, DT_U8, -1) == 255, "int -> int wraps");
    CHECK(cast_ii(DT_U8, DT_I8, 255) == -1 && cast_ii(DT_I8, DT_I32, -1) == -1, "sign of narrow ints");
    CHECK(cast_ii(DT_I8, DT_U8, -1) == 255 && cast_ii(DT_U8, DT_I32, 255) == 255, "ui8 zero-extends");
    CHECK(cast_ii(DT_I1, DT_I32, 1) == 1 && cast_ii(DT_I1, DT_I8, 1) == 1, "i1 zero-extends");
    CHECK(cast_ii(DT_I64, DT_I32, INT64_C(0x123456789)) == 0x23456789, "i64 -> i32 keeps low bits");
    CHECK(cast_if(DT_I1, DT_F32, 1) == 1.0 && cast_if(DT_I1, DT_F16, 0) == 0.0, "i1 -> float");
    CHECK(cast_if(DT_I32, DT_F32, 16777217) == 16777216.0, "i32 -> f32 rounds to nearest even");
    CHECK(cast_if(DT_U8, DT_BF16, 255) == 255.0, "ui8 255 -> bf16 is exact");
    CHECK(cast_if(DT_I32, DT_BF16, 257) == 256.0 && cast_if(DT_I32, DT_BF16, 259) == 260.0,
          "i32 -> bf16 ties to even");
    CHECK(cast_if(DT_I8, DT_F16, -128) == -128.0, "i8 -> f16");
    CHECK(ir_eval_cast(DT_F32, DT_F16, F(65520.0)).f == INFINITY, "f32 -> f16 overflows");
    CHECK(ir_eval_cast(DT_F64, DT_F32, F(0.1)).f == (double)0.1f, "f64 -> f32 rounds");
    CHECK(ir_eval_cast(DT_F16, DT_F32, F(0.0999755859375)).f == 0.0999755859375, "f16 -> f32 exact");
    CHECK(isnan(ir_eval_cast(DT_F32, DT_BF16, F(NAN)).f), "nan stays nan");
    CHECK(ir_eval_cast(DT_F32, DT_I32, F(-0.0)).i == 0, "-0.0 -> 0");
}

/* ---- cmp ------------------------------------------------------------------- */

static void test_cmp(void)
{
    static const char *const preds[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    for (int p = 0; p < 6; p++) {
        int want = p == 5;
        CHECK(ir_eval_cmp(preds[p], DT_F32, F(NAN), F(1)) == want, "nan %s 1", preds[p]);
        CHECK(ir_eval_cmp(preds[p], DT_F32, F(1), F(NAN)) == want, "1 %s nan", preds[p]);
        CHECK(ir_eval_cmp(preds[p], DT_F64, F(NAN), F(NAN)) == want, "nan %s nan", preds[p]);
    }
    CHECK(ir_eval_cmp("lt", DT_F32, F(-INFINITY), F(-1e30)) == 1, "-inf < -1e30");
    CHECK(ir_eval_cmp("eq", DT_F32, F(0.0), F(-0.0)) == 1, "0 == -0");
    CHECK(ir_eval_cmp("le", DT_F32, F(2), F(2)) == 1 && ir_eval_cmp("ge", DT_F32, F(1), F(2)) == 0, "le/ge");
    CHECK(ir_eval_cmp("gt", DT_U8, ir_scalar_from_int(DT_U8, 200), ir_scalar_from_int(DT_U8, 100)) == 1,
          "ui8 200 > 100 (unsigned)");
    CHECK(ir_eval_cmp("lt", DT_I8, ir_scalar_from_int(DT_I8, 200), ir_scalar_from_int(DT_I8, 100)) == 1,
          "i8 -56 < 100 (signed)");
    CHECK(ir_eval_cmp("lt", DT_I64, I(INT64_MIN), I(INT64_MAX)) == 1, "i64 extremes");
    CHECK(ir_eval_cmp("gt", DT_I1, I(1), I(0)) == 1, "i1 true > false");
    CHECK(ir_eval_cmp("ne", DT_I32, I(3), I(3)) == 0 && ir_eval_cmp("eq", DT_I32, I(3), I(3)) == 1, "eq/ne");
    CHECK(ir_eval_cmp("lte", DT_I32, I(1), I(2)) == -1 && ir_eval_cmp(NULL, DT_I32, I(1), I(2)) == -1,
          "bad predicate gives -1");
}

/* ---- reductions -------------------------------------------------------------- */

static void test_reductions(void)
{
    ir_scalar s;
    CHECK(ir_eval_reduce_identity("sum", DT_I32, &s) && s.i == 0, "sum identity i32");
    CHECK(ir_eval_reduce_identity("sum", DT_F32, &s) && s.f == 0 && !signbit(s.f), "sum identity f32");
    CHECK(ir_eval_reduce_identity("prod", DT_F16, &s) && s.f == 1, "prod identity f16");
    CHECK(ir_eval_reduce_identity("prod", DT_I8, &s) && s.i == 1, "prod identity i8");
    CHECK(ir_eval_reduce_identity("max", DT_F32, &s) && s.f == -INFINITY, "max identity f32");
    CHECK(ir_eval_reduce_identity("min", DT_BF16, &s) && s.f == INFINITY, "min identity bf16");
    CHECK(ir_eval_reduce_identity("max", DT_I8, &s) && s.i == -128, "max identity i8");
    CHECK(ir_eval_reduce_identity("max", DT_U8, &s) && s.i == 0, "max identity ui8");
    CHECK(ir_eval_reduce_identity("min", DT_U8, &s) && s.i == 255, "min identity ui8");
    CHECK(ir_eval_reduce_identity("min", DT_I1, &s) && s.i == 1, "min identity i1");
    CHECK(ir_eval_reduce_identity("max", DT_I1, &s) && s.i == 0, "max identity i1");
    CHECK(ir_eval_reduce_identity("min", DT_I64, &s) && s.i == INT64_MAX, "min identity i64");
    CHECK(ir_eval_reduce_identity("max", DT_I32, &s) && s.i == INT32_MIN, "max identity i32");
    CHECK(!ir_eval_reduce_identity("mean", DT_F32, &s), "unknown kind");
    CHECK(ir_eval_reduce_combine("max", DT_F32, F(NAN), F(1), &s) && isnan(s.f), "max combine nan (acc)");
    CHECK(ir_eval_reduce_combine("min", DT_F32, F(1), F(NAN), &s) && isnan(s.f), "min combine nan (x)");
    CHECK(ir_eval_reduce_combine("sum", DT_I8, I(127), I(1), &s) && s.i == -128, "sum combine wraps");
    CHECK(ir_eval_reduce_combine("prod", DT_F32, F(3), F(0.5), &s) && s.f == 1.5, "prod combine");
    CHECK(ir_eval_reduce_combine("max", DT_I32, I(-5), I(3), &s) && s.i == 3, "max combine");
    CHECK(!ir_eval_reduce_combine("avg", DT_I32, I(-5), I(3), &s), "unknown combine");
}

/* ---- storage and attributes --------------------------------------------------- */

static void test_storage(void)
{
    unsigned char buf[16] = {0};
    unsigned char *p = buf + 1; /* unaligned on purpose */
    static const ir_dtype all[] = {DT_I1, DT_I8, DT_U8, DT_I32, DT_I64, DT_F16, DT_BF16, DT_F32, DT_F64};
    static const double samples[] = {0, 1, -1, 100, -2.5, 1e10, 0.1};
    group g = {.name = "store then load is the canonical value, for every dtype"};
    for (size_t t = 0; t < sizeof all / sizeof all[0]; t++)
        for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
            ir_dtype dt = all[t];
            ir_scalar v = ir_dtype_is_float(dt) ? ir_scalar_from_float(dt, samples[k])
                                                : ir_scalar_from_int(dt, (int64_t)samples[k]);
            ir_scalar_store(dt, p, v);
            ir_scalar back = ir_scalar_load(dt, p);
            if (ir_dtype_is_float(dt) ? !same(back.f, v.f) : back.i != v.i)
                group_fail(&g, "%s %g", ir_dtypes[dt].name, samples[k]);
        }
    group_end(&g);

    p[0] = 2;
    CHECK(ir_scalar_load(DT_I1, p).i == 1, "a nonzero byte reads as i1 1");
    ir_scalar_store(DT_I1, p, I(1));
    CHECK(p[0] == 1, "i1 stores as byte 1");
    ir_scalar_store(DT_I8, p, I(-1));
    CHECK(p[0] == 0xff && ir_scalar_load(DT_I8, p).i == -1 && ir_scalar_load(DT_U8, p).i == 255, "i8/ui8 bytes");
    ir_scalar_store(DT_I32, p, I(0x01020304));
    CHECK(p[0] == 4 && p[1] == 3 && p[2] == 2 && p[3] == 1, "i32 is little-endian");
    ir_scalar_store(DT_I32, p, I(-2));
    CHECK(ir_scalar_load(DT_I32, p).i == -2, "i32 negative");
    uint16_t h;
    ir_scalar_store(DT_F16, p, F(1.0));
    memcpy(&h, p, 2);
    CHECK(h == 0x3c00, "f16 1.0 stores 0x3c00");
    ir_scalar_store(DT_BF16, p, F(1.0));
    memcpy(&h, p, 2);
    CHECK(h == 0x3f80, "bf16 1.0 stores 0x3f80");
    ir_scalar_store(DT_F32, p, F(0.1));
    float f;
    memcpy(&f, p, 4);
    CHECK(f == 0.1f, "f32 store");
    ir_scalar_store(DT_I64, p, I(INT64_MIN));
    CHECK(ir_scalar_load(DT_I64, p).i == INT64_MIN, "i64");
}

static void test_attrs(void)
{
    ir_attr a = {.name = "value", .kind = ATTR_FLOAT, .f = 1.5};
    CHECK(ir_scalar_from_attr(DT_I32, &a).i == 1, "float attr into i32 truncates");
    CHECK(ir_scalar_from_attr(DT_F16, &a).f == 1.5, "float attr into f16");
    a.f = 0.1;
    CHECK(ir_scalar_from_attr(DT_F16, &a).f == 0.0999755859375, "float attr rounds to f16");
    a.f = -INFINITY;
    CHECK(ir_scalar_from_attr(DT_F32, &a).f == -INFINITY, "-inf attr");
    a = (ir_attr){.name = "value", .kind = ATTR_INT, .i = 300};
    CHECK(ir_scalar_from_attr(DT_U8, &a).i == 44, "int attr wraps into ui8");
    CHECK(ir_scalar_from_attr(DT_F32, &a).f == 300.0, "int attr into f32");
    a = (ir_attr){.name = "value", .kind = ATTR_BOOL, .i = 1};
    CHECK(ir_scalar_from_attr(DT_I1, &a).i == 1 && ir_scalar_from_attr(DT_F32, &a).f == 1.0, "bool attr");
    CHECK(ir_scalar_from_attr(DT_I32, NULL).i == 0, "missing attr is zero");
}

int main(void)
{
    test_f16_all_patterns();
    test_f16_known();
    test_f16_midpoints();
#ifdef __FLT16_MAX__
    test_f16_vs_compiler();
#else
    printf("note: no _Float16 in this compiler; skipping the cross-check\n");
#endif
    test_no_double_rounding();
    test_bf16();
    test_int_floordiv_mod();
    test_int_idiv_rem_umulhi();
    test_fma_erf();
    test_int_wrap();
    test_shifts();
    test_float_floordiv_mod();
    test_float_rounding();
    test_minmax();
    test_math();
    test_casts();
    test_cmp();
    test_reductions();
    test_storage();
    test_attrs();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
