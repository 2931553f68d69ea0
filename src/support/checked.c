/* checked.c - exact int64 arithmetic and Python's range() (checked.h). */
#include "checked.h"

bool checked_floordiv(int64_t a, int64_t b, int64_t *out)
{
    *out = 0;
    if (b == 0 || (a == INT64_MIN && b == -1))
        return false;
    int64_t q = a / b, r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        q--; /* q > INT64_MIN here: |q| < |a| when |b| >= 2, and b == 1 leaves r == 0 */
    *out = q;
    return true;
}

bool checked_mod(int64_t a, int64_t b, int64_t *out)
{
    *out = 0;
    if (b == 0)
        return false;
    if (b == -1)
        return true; /* every integer divides by -1; INT64_MIN % -1 is UB in C */
    int64_t r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        r += b; /* opposite signs and |r| < |b|: no overflow */
    *out = r;
    return true;
}

bool checked_shl(int64_t a, int64_t b, int64_t *out)
{
    *out = 0;
    if (b < 0)
        return false;
    if (a == 0)
        return true;
    if (b >= 63) {
        /* Only -1 << 63 == INT64_MIN fits among nonzero values. */
        if (b == 63 && a == -1) {
            *out = INT64_MIN;
            return true;
        }
        return false;
    }
    /* a << b fits when a lies in [INT64_MIN >> b, INT64_MAX >> b]. */
    if (a > (INT64_MAX >> b) || a < -((INT64_MAX >> b) + 1))
        return false;
    *out = int64_from_bits((uint64_t)a << b);
    return true;
}

int64_t checked_shr(int64_t a, int64_t b)
{
    if (b < 0)
        return 0;
    if (b >= 63)
        return a < 0 ? -1 : 0;
    return a < 0 ? ~(~a >> b) : a >> b; /* no right shift of a negative value */
}

bool checked_pow(int64_t a, int64_t b, int64_t *out)
{
    *out = 0;
    if (b < 0)
        return false;
    int64_t result = 1, base = a;
    while (b) {
        if ((b & 1) && !checked_mul(result, base, &result))
            return false;
        b >>= 1;
        /* Square only when a higher bit needs it: if base * base overflows
         * then, the result would too (|base| >= 2 there). */
        if (b && !checked_mul(base, base, &base))
            return false;
    }
    *out = result;
    return true;
}

uint64_t range_length(int64_t start, int64_t stop, int64_t step)
{
    /* The distance and the step's magnitude are exact in uint64. */
    if (step > 0 && start < stop)
        return ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
    if (step < 0 && start > stop)
        return ((uint64_t)start - (uint64_t)stop - 1) / ((uint64_t)0 - (uint64_t)step) + 1;
    return 0;
}

int64_t range_item(int64_t start, int64_t step, uint64_t k)
{
    return int64_from_bits((uint64_t)start + k * (uint64_t)step);
}
