/* test_checked.c - the checked arithmetic of src/support/checked.h and the
 * folder's per-element arithmetic (ir_eval_binary / ir_eval_unary) at the
 * limits of i8, i32 and i64, against a 128-bit oracle. Built like every unit
 * test, so `make asan` runs it under UndefinedBehaviorSanitizer with
 * -fno-sanitize-recover: an overflow in C arithmetic anywhere in these paths
 * aborts the suite. Prints "N passed, N failed" last. */
#include "support/checked.h"
#include "ir/scalar.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

typedef __int128 wide;

/* Values at and next to the limits of every integer width. */
static const int64_t edges[] = {
    0, 1, -1, 2, -2, 3, -3, 7, -7, 62, 63, 64, 65, -63, -64,
    127, 128, -128, -129, 255, 256,
    INT32_MAX, INT32_MAX - 1, (int64_t)INT32_MAX + 1, INT32_MIN, INT32_MIN + 1, (int64_t)INT32_MIN - 1,
    (int64_t)UINT32_MAX, (int64_t)UINT32_MAX + 1,
    INT64_C(1) << 62, -(INT64_C(1) << 62), (INT64_C(1) << 62) - 1, INT64_C(3037000499), INT64_C(3037000500),
    -INT64_C(3037000500), INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
};
enum { NEDGES = sizeof edges / sizeof edges[0] };

static bool fits64(wide w) { return w >= INT64_MIN && w <= INT64_MAX; }

static wide wide_floordiv(wide a, wide b)
{
    wide q = a / b, r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        q--;
    return q;
}

static wide wide_mod(wide a, wide b) { return a - wide_floordiv(a, b) * b; }

static void expect(const char *op, int64_t a, int64_t b, bool ok, int64_t got, bool want_ok, wide want)
{
    bool right = ok == want_ok && (!ok || got == (int64_t)want) && (ok || got == 0);
    CHECK(right, "%s(%lld, %lld): got %s %lld, want %s %lld", op, (long long)a, (long long)b,
          ok ? "ok" : "overflow", (long long)got, want_ok ? "ok" : "overflow",
          want_ok ? (long long)want : 0LL);
}

static void test_binary_ops(void)
{
    for (int i = 0; i < NEDGES; i++) {
        for (int j = 0; j < NEDGES; j++) {
            int64_t a = edges[i], b = edges[j], r;
            wide wa = a, wb = b, w;
            bool ok;

            ok = checked_add(a, b, &r), w = wa + wb;
            expect("add", a, b, ok, r, fits64(w), w);
            ok = checked_sub(a, b, &r), w = wa - wb;
            expect("sub", a, b, ok, r, fits64(w), w);
            ok = checked_mul(a, b, &r), w = wa * wb;
            expect("mul", a, b, ok, r, fits64(w), w);
            if (b != 0) {
                ok = checked_floordiv(a, b, &r), w = wide_floordiv(wa, wb);
                expect("floordiv", a, b, ok, r, fits64(w), w);
                ok = checked_mod(a, b, &r), w = wide_mod(wa, wb);
                expect("mod", a, b, ok, r, fits64(w), w);
            } else {
                CHECK(!checked_floordiv(a, b, &r) && !checked_mod(a, b, &r), "%lld // 0 refused",
                      (long long)a);
            }
            if (b >= 0 && b < 130) {
                bool want_ok;
                wide want = 0;
                if (a == 0) {
                    want_ok = true;
                } else if (b >= 64) {
                    want_ok = false;
                } else {
                    /* a * 2**b in 128 bits, unless that overflows 128 bits too. */
                    want_ok = b < 63 || a == -1;
                    if (b < 63) {
                        want = wa * ((wide)1 << b);
                        want_ok = fits64(want);
                    } else if (a == -1) {
                        want = INT64_MIN;
                    }
                }
                ok = checked_shl(a, b, &r);
                expect("shl", a, b, ok, r, want_ok, want);
                wide shr = b >= 64 ? (a < 0 ? -1 : 0) : wide_floordiv(wa, (wide)1 << b);
                CHECK(checked_shr(a, b) == (int64_t)shr, "shr(%lld, %lld) = %lld, want %lld",
                      (long long)a, (long long)b, (long long)checked_shr(a, b), (long long)shr);
            }
        }
        int64_t r;
        CHECK(checked_neg(edges[i], &r) == (edges[i] != INT64_MIN) &&
                  r == (edges[i] == INT64_MIN ? 0 : -edges[i]),
              "neg(%lld)", (long long)edges[i]);
    }
    int64_t r;
    CHECK(!checked_shl(1, -1, &r) && !checked_shl(0, -5, &r), "negative shift counts refused");
    CHECK(checked_shl(0, INT64_MAX, &r) && r == 0, "0 << huge is 0");
    CHECK(checked_shr(-5, INT64_MAX) == -1 && checked_shr(5, INT64_MAX) == 0, ">> huge");
}

static void test_pow(void)
{
    /* Against repeated multiplication in 128 bits, stopping once past int64. */
    for (int i = 0; i < NEDGES; i++) {
        int64_t a = edges[i];
        for (int64_t b = 0; b < 70; b++) {
            wide w = 1;
            bool fits = true;
            for (int64_t k = 0; k < b && fits; k++) {
                w *= a;
                fits = fits64(w);
            }
            int64_t r;
            bool ok = checked_pow(a, b, &r);
            expect("pow", a, b, ok, r, fits, fits ? w : 0);
        }
    }
    int64_t r;
    /* Huge exponents take at most 2 * 63 multiplications. */
    CHECK(checked_pow(1, INT64_MAX, &r) && r == 1, "1 ** huge");
    CHECK(checked_pow(-1, INT64_MAX, &r) && r == -1, "-1 ** odd huge");
    CHECK(checked_pow(-1, INT64_MAX - 1, &r) && r == 1, "-1 ** even huge");
    CHECK(checked_pow(0, INT64_MAX, &r) && r == 0, "0 ** huge");
    CHECK(checked_pow(0, 0, &r) && r == 1, "0 ** 0");
    CHECK(!checked_pow(2, INT64_MAX, &r) && r == 0, "2 ** huge overflows");
    CHECK(checked_pow(-2, 63, &r) && r == INT64_MIN, "(-2) ** 63 is INT64_MIN");
    CHECK(!checked_pow(2, 63, &r), "2 ** 63 overflows");
    CHECK(!checked_pow(2, -1, &r), "negative exponents refused");
}

static void test_range(void)
{
    /* Small ranges against counting. */
    for (int64_t start = -9; start <= 9; start++)
        for (int64_t stop = -9; stop <= 9; stop++)
            for (int64_t step = -4; step <= 4; step++) {
                if (!step)
                    continue;
                uint64_t n = 0;
                for (int64_t v = start; step > 0 ? v < stop : v > stop; v += step) {
                    CHECK(range_item(start, step, n) == v, "range(%lld, %lld, %lld)[%llu]",
                          (long long)start, (long long)stop, (long long)step, (unsigned long long)n);
                    n++;
                }
                CHECK(range_length(start, stop, step) == n, "len(range(%lld, %lld, %lld))",
                      (long long)start, (long long)stop, (long long)step);
            }
    /* The limits, where stop - start or -step overflow int64. */
    CHECK(range_length(0, INT64_MAX, INT64_MAX) == 1, "range(0, 2**63-1, 2**63-1) has 1 item");
    CHECK(range_length(INT64_MIN, INT64_MAX, 1) == UINT64_MAX, "the longest range");
    CHECK(range_length(INT64_MIN, INT64_MAX, INT64_MAX) == 3, "range(-2**63, 2**63-1, 2**63-1)");
    CHECK(range_item(INT64_MIN, INT64_MAX, 2) == INT64_MAX - 1, "its last item");
    CHECK(range_length(INT64_MAX, INT64_MIN, INT64_MIN) == 2, "range(2**63-1, -2**63, -2**63)");
    CHECK(range_item(INT64_MAX, INT64_MIN, 1) == -1, "its second item");
    CHECK(range_length(INT64_MAX, INT64_MIN, -1) == UINT64_MAX, "the longest falling range");
    CHECK(range_length(5, 5, INT64_MIN) == 0 && range_length(0, 1, 0) == 0, "empty ranges");
    CHECK(range_length(INT32_MIN, INT32_MAX, 1) == UINT32_MAX, "all of i32 but its max");
    CHECK(int64_from_bits(UINT64_MAX) == -1 && int64_from_bits((uint64_t)1 << 63) == INT64_MIN,
          "int64_from_bits");
}

/* The folder's arithmetic (scalar.c, shared with the CPU executor) at the
 * limits: wrapping results, Python // and %, shifts past the width. Under
 * UBSan this proves none of it overflows in C. */
static wide wrap_to(ir_dtype dt, wide w)
{
    int bits = dt == DT_I8 ? 8 : dt == DT_I32 ? 32 : 64;
    unsigned __int128 u = (unsigned __int128)w & (((unsigned __int128)1 << bits) - 1);
    if (u >> (bits - 1))
        return (wide)u - ((wide)1 << bits);
    return (wide)u;
}

static void test_fold_arithmetic(void)
{
    static const ir_dtype dts[] = {DT_I8, DT_I32, DT_I64};
    static const ir_op_kind ops[] = {IR_ADD, IR_SUB, IR_MUL, IR_FLOORDIV, IR_MOD, IR_MINIMUM,
                                     IR_MAXIMUM, IR_AND, IR_OR, IR_XOR, IR_SHL, IR_SHR};
    long bad = 0;
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        ir_dtype dt = dts[d];
        int bits = dt == DT_I8 ? 8 : dt == DT_I32 ? 32 : 64;
        for (int i = 0; i < NEDGES; i++) {
            for (int j = 0; j < NEDGES; j++) {
                ir_scalar a = ir_scalar_from_int(dt, edges[i]), b = ir_scalar_from_int(dt, edges[j]);
                wide wa = a.i, wb = b.i;
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                    ir_scalar r;
                    if (!ir_eval_binary(ops[o], dt, a, b, &r)) {
                        bad++;
                        continue;
                    }
                    wide want;
                    switch (ops[o]) {
                    case IR_ADD: want = wa + wb; break;
                    case IR_SUB: want = wa - wb; break;
                    case IR_MUL: want = wa * wb; break;
                    case IR_FLOORDIV: want = wb ? wide_floordiv(wa, wb) : 0; break;
                    case IR_MOD: want = wb ? wide_mod(wa, wb) : 0; break;
                    case IR_MINIMUM: want = wa < wb ? wa : wb; break;
                    case IR_MAXIMUM: want = wa > wb ? wa : wb; break;
                    case IR_AND: want = wa & wb; break;
                    case IR_OR: want = wa | wb; break;
                    case IR_XOR: want = wa ^ wb; break;
                    case IR_SHL: want = wb < 0 || wb >= bits ? 0 : wa * ((wide)1 << wb); break;
                    default: want = wb < 0 || wb >= bits ? (wa < 0 ? -1 : 0) : wide_floordiv(wa, (wide)1 << wb);
                    }
                    want = wrap_to(dt, want);
                    if (r.i != (int64_t)want) {
                        if (bad++ < 5)
                            printf("FAIL %s %s(%lld, %lld) = %lld, want %lld\n", ir_dtypes[dt].name,
                                   ir_ops[ops[o]].name, (long long)a.i, (long long)b.i, (long long)r.i,
                                   (long long)want);
                    }
                }
            }
            ir_scalar a = ir_scalar_from_int(dt, edges[i]), r;
            wide wa = a.i;
            if (!ir_eval_unary(IR_NEG, dt, a, &r) || r.i != (int64_t)wrap_to(dt, -wa))
                bad++;
            if (!ir_eval_unary(IR_ABS, dt, a, &r) || r.i != (int64_t)wrap_to(dt, wa < 0 ? -wa : wa))
                bad++;
            if (!ir_eval_unary(IR_NOT, dt, a, &r) || r.i != (int64_t)wrap_to(dt, ~wa))
                bad++;
        }
    }
    CHECK(bad == 0, "fold arithmetic at the limits: %ld mismatches", bad);
}

int main(void)
{
    test_binary_ops();
    test_pow();
    test_range();
    test_fold_arithmetic();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
