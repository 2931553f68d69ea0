/* checked.h - exact int64 arithmetic that reports overflow instead of
 * invoking C undefined behaviour, and Python's range() arithmetic.
 *
 * Every compile-time computation on integers a user controls goes through
 * these: constant folding in the frontend (irgen_expr.c), the trip counts of
 * sl.static_range (irgen.c) and of constant sw.for loops (fold.c), tile
 * bounds. Each checked_* function returns true and the exact result in *out
 * when it fits int64, and false (with *out set to 0) when it does not, so the
 * caller can say so at the user's expression. None has undefined behaviour
 * for any input, INT64_MIN and negative shift counts included: UBSan tests
 * at the limits of i32 and i64 are in test/unit/test_checked.c.
 *
 * Floor division, modulo and powers follow Python's integers (// rounds
 * toward negative infinity, % takes the divisor's sign), which is what a
 * kernel's constant expressions mean.
 */
#ifndef SWAGE_CHECKED_H
#define SWAGE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

static inline bool checked_add(int64_t a, int64_t b, int64_t *out)
{
    if (__builtin_add_overflow(a, b, out)) {
        *out = 0;
        return false;
    }
    return true;
}

static inline bool checked_sub(int64_t a, int64_t b, int64_t *out)
{
    if (__builtin_sub_overflow(a, b, out)) {
        *out = 0;
        return false;
    }
    return true;
}

static inline bool checked_mul(int64_t a, int64_t b, int64_t *out)
{
    if (__builtin_mul_overflow(a, b, out)) {
        *out = 0;
        return false;
    }
    return true;
}

/* -a: false only for INT64_MIN. */
static inline bool checked_neg(int64_t a, int64_t *out) { return checked_sub(0, a, out); }

/* Python's a // b and a % b. False for b == 0 (the caller reports the
 * division by zero first) and for INT64_MIN // -1; INT64_MIN % -1 is 0. */
bool checked_floordiv(int64_t a, int64_t b, int64_t *out);
bool checked_mod(int64_t a, int64_t b, int64_t *out);

/* Python's a << b for b >= 0: false when b < 0 or the result does not fit
 * (0 << b is 0 for every b). */
bool checked_shl(int64_t a, int64_t b, int64_t *out);
/* Python's a >> b for b >= 0 (an arithmetic shift; counts of 64 and more
 * give 0 or -1). b < 0 is the caller's error to report; it gives 0 here. */
int64_t checked_shr(int64_t a, int64_t b);

/* Python's a ** b for b >= 0, by squaring (at most 2 * 63 multiplications,
 * whatever b is): false when the result does not fit. 0 ** 0 is 1. */
bool checked_pow(int64_t a, int64_t b, int64_t *out);

/* len(range(start, stop, step)) for step != 0 (0 for step == 0). It always
 * fits: at most 2**64 - 1. */
uint64_t range_length(int64_t start, int64_t stop, int64_t step);
/* Item k of range(start, stop, step), for k < range_length(...): exact, as
 * every item lies between start and stop. */
int64_t range_item(int64_t start, int64_t step, uint64_t k);

/* The int64 with the two's-complement bits of u (no implementation-defined
 * conversion). */
static inline int64_t int64_from_bits(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

#endif
