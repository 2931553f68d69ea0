"""The constructs a kernel ported from Triton expects, on both CPU executors
(the reference "semantic" executor and the SIMT executor) against NumPy or
exact Python references:

- integer // and % as Triton's (C's: the quotient rounds toward zero, the
  remainder takes the dividend's sign) on tiles and runtime scalars, while
  compile-time (constexpr and literal) arithmetic keeps Python's meaning;
- sl.cdiv, float("inf") / float("nan") literals, and the math helpers
  (sl.math.* and their sl.* names): exp2 log2 rsqrt sqrt_rn div_rn fdiv fma
  erf umulhi, and sl.clamp;
- the hints that change nothing: sl.multiple_of, sl.max_contiguous,
  sl.max_constancy, sl.assume, cache_modifier= and eviction_policy= of
  sl.load / sl.store, sl.range(..., num_stages=...);
- and the compile errors of their malformed uses, at the exact line and
  column (the marker comments, as in test_errors.py).

Every kernel compiled here is also assembled for the GPU by test_zz_ptxas.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage_testing import assert_close, assert_same, int_range, random_array

EXECUTORS = ("semantic", "simt")
BLOCK = 64
N = 300


def cdiv(a, b):
    return (a + b - 1) // b


def c_div(a, b):
    """C's a / b on Python ints (rounds toward zero); 0 for b == 0."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_rem(a, b):
    return 0 if b == 0 else a - c_div(a, b) * b


def wrap(values, dtype):
    return np.array([swage_testing.wrap_int(int(v), dtype) for v in values], dtype=dtype)


def run(kernel, executor, arrays, n, **constexprs):
    cx = {"BLOCK": BLOCK}
    cx.update(constexprs)
    kernel.launch(arguments=dict(arrays, n=n), constexprs=cx, grid=(cdiv(n, BLOCK),),
                  executor=executor)


# ---- integer // and % ------------------------------------------------------------------

@sw.jit
def k_divmod(x_ptr, y_ptr, q_ptr, r_ptr, qc_ptr, rc_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    sl.store(q_ptr + offs, x // y, mask=mask)
    sl.store(r_ptr + offs, x % y, mask=mask)
    # a tile with a negative literal divisor: still C's meaning
    sl.store(qc_ptr + offs, x // -3, mask=mask)
    sl.store(rc_ptr + offs, x % -3, mask=mask)


def divmod_inputs(rng, dtype):
    lo, hi = int_range(dtype)
    x = random_array(rng, dtype, N)
    y = random_array(rng, dtype, N)
    small = rng.integers(-9, 10, N)
    x[::3] = rng.integers(-100, 101, x[::3].size)
    y[::2] = small[::2]
    # every sign combination of small operands, and the limits
    x[:8] = [7, -7, 7, -7, 6, -6, 0, -1]
    y[:8] = [2, 2, -2, -2, -3, 3, 5, 7]
    x[8], y[8] = lo, -1      # INT_MIN // -1 wraps to INT_MIN, INT_MIN % -1 is 0
    x[9], y[9] = lo, 1
    x[10], y[10] = hi, -1
    x[11], y[11] = lo, lo
    x[12], y[12] = 5, 0      # division by zero: 0 and 0 on the CPU executors
    x[13], y[13] = -5, 0
    x[14], y[14] = lo, 0
    x[15], y[15] = lo, hi
    return x, y


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_int_floordiv_mod_are_c_division(rng, executor, dtype):
    x, y = divmod_inputs(rng, dtype)
    outs = {name: np.zeros(N, dtype) for name in ("q_ptr", "r_ptr", "qc_ptr", "rc_ptr")}
    run(k_divmod, executor, dict(outs, x_ptr=x, y_ptr=y), N)
    xs, ys = [int(v) for v in x], [int(v) for v in y]
    inputs = {"x": x, "y": y}
    what = "%s on %s (%s)" % ("%s", dtype, executor)
    assert_same(outs["q_ptr"], wrap([c_div(a, b) for a, b in zip(xs, ys)], dtype), rng.seed,
                what % "x // y", inputs)
    assert_same(outs["r_ptr"], wrap([c_rem(a, b) for a, b in zip(xs, ys)], dtype), rng.seed,
                what % "x % y", inputs)
    assert_same(outs["qc_ptr"], wrap([c_div(a, -3) for a in xs], dtype), rng.seed,
                what % "x // -3", inputs)
    assert_same(outs["rc_ptr"], wrap([c_rem(a, -3) for a in xs], dtype), rng.seed,
                what % "x % -3", inputs)
    # the identity C keeps: x == (x // y) * y + x % y (wrapping), where y != 0
    q, r = outs["q_ptr"].astype(object), outs["r_ptr"].astype(object)
    for a, b, qq, rr in zip(xs, ys, q, r):
        if b:
            assert swage_testing.wrap_int(qq * b + rr, dtype) == a


def test_int_division_examples():
    # The table of docs/language.md, exactly.
    x = np.array([7, -7, 7, -7], np.int32)
    y = np.array([2, 2, -2, -2], np.int32)
    outs = {name: np.zeros(4, np.int32) for name in ("q_ptr", "r_ptr", "qc_ptr", "rc_ptr")}
    run(k_divmod, "semantic", dict(outs, x_ptr=x, y_ptr=y), 4)
    assert outs["q_ptr"].tolist() == [3, -3, -3, 3]
    assert outs["r_ptr"].tolist() == [1, -1, 1, -1]


@sw.jit
def k_scalar_divmod(out_ptr, a, b, A: sl.constexpr, B: sl.constexpr):
    # runtime scalars: C's meaning
    sl.store(out_ptr, (a // b).to(sl.int64))
    sl.store(out_ptr + 1, (a % b).to(sl.int64))
    sl.store(out_ptr + 2, (sl.program_id(0) + -7 // 2).to(sl.int64))  # -7 // 2 is -4
    # compile-time values (constexprs, literals): Python's meaning, as in Triton
    sl.store(out_ptr + 3, A // B)
    sl.store(out_ptr + 4, A % B)
    sl.store(out_ptr + 5, -7 % 2)
    # a compile-time integer meeting a runtime one is a runtime operation
    sl.store(out_ptr + 6, ((a * 0 + A) // B).to(sl.int64))
    sl.store(out_ptr + 7, ((a * 0 + A) % B).to(sl.int64))
    # sl.cdiv: compile-time (Python) and runtime (C)
    sl.store(out_ptr + 8, sl.cdiv(A, B))
    sl.store(out_ptr + 9, sl.cdiv(a, b).to(sl.int64))
    sl.store(out_ptr + 10, sl.cdiv(a, 4).to(sl.int64))
    sl.store(out_ptr + 11, a.to(sl.int64) // b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("a, b, A, B", [(-7, 2, -7, 2), (7, -2, 7, -2), (-9, -4, -9, -4),
                                        (10, 3, 10, 3), (-2**31, -1, -2**31, -1)])
def test_scalar_and_constexpr_division(executor, a, b, A, B):
    out = np.zeros(12, np.int64)
    k_scalar_divmod.launch(arguments={"out_ptr": out, "a": np.int32(a), "b": np.int32(b)},
                           constexprs={"A": A, "B": B}, grid=(1,), executor=executor)

    def i32(v):
        return swage_testing.wrap_int(v, "int32")

    assert out.tolist() == [
        i32(c_div(a, b)), i32(c_rem(a, b)), -4,
        A // B, A % B, -7 % 2,
        i32(c_div(A, B)), i32(c_rem(A, B)),
        cdiv(A, B), i32(c_div(i32(a + b - 1), b)), i32(c_div(i32(a + 3), 4)),
        c_div(a, b),
    ]
    assert -7 // 2 == -4 and -7 % 2 == 1 and c_div(-7, 2) == -3  # the two meanings differ


# ---- float literals -------------------------------------------------------------------

@sw.jit
def k_float_literals(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    best = sl.max(x)
    sl.store(out_ptr + offs, sl.where(x > 0, float("inf"), -float("inf")), mask=mask)
    sl.store(out_ptr + n + offs, sl.where(x > 0, x, float("nan")), mask=mask)
    sl.store(out_ptr + 2 * n + sl.program_id(0), best)
    sl.store(out_ptr + 2 * n + 8, float(" -Infinity "))
    sl.store(out_ptr + 2 * n + 9, float("1.5e3") + float(2))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float_inf_nan_literals(rng, executor):
    n = 100
    x = random_array(rng, np.float32, n)
    out = np.zeros(2 * n + 10, np.float32)
    k_float_literals.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n},
                            constexprs={"BLOCK": BLOCK}, grid=(2,), executor=executor)
    assert_same(out[:n], np.where(x > 0, np.inf, -np.inf).astype(np.float32), rng.seed, "inf")
    assert_same(out[n:2 * n], np.where(x > 0, x, np.nan).astype(np.float32), rng.seed, "nan")
    assert out[2 * n] == x[:BLOCK].max() and out[2 * n + 1] == x[BLOCK:].max()
    assert out[2 * n + 8] == -np.inf and out[2 * n + 9] == 1502.0


# ---- math helpers ---------------------------------------------------------------------

@sw.jit
def k_math(x_ptr, y_ptr, z_ptr, exp2_ptr, log2_ptr, rsqrt_ptr, sqrt_ptr, div_ptr, fdiv_ptr,
           erf_ptr, fma_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    z = sl.load(z_ptr + offs, mask=mask)
    sl.store(exp2_ptr + offs, sl.math.exp2(x), mask=mask)
    sl.store(log2_ptr + offs, sl.math.log2(x), mask=mask)
    sl.store(rsqrt_ptr + offs, sl.math.rsqrt(x), mask=mask)
    sl.store(sqrt_ptr + offs, sl.math.sqrt_rn(x), mask=mask)
    sl.store(div_ptr + offs, sl.math.div_rn(x, y), mask=mask)
    sl.store(fdiv_ptr + offs, sl.fdiv(x, y, ieee_rounding=True), mask=mask)
    sl.store(erf_ptr + offs, sl.math.erf(x), mask=mask)
    sl.store(fma_ptr + offs, sl.fma(x, y, z), mask=mask)


MATH_OUTS = ("exp2_ptr", "log2_ptr", "rsqrt_ptr", "sqrt_ptr", "div_ptr", "fdiv_ptr", "erf_ptr",
             "fma_ptr")
RTOL = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}


def exact_fma(a, b, c, dtype):
    """a * b + c rounded once: f64 from the exact rational; f16 through the
    f32 fusion Swage defines (its inputs here make that f32 result exact)."""
    a, b, c = float(a), float(b), float(c)
    if dtype == "float64" and all(map(math.isfinite, (a, b, c))):
        return float(Fraction(a) * Fraction(b) + Fraction(c))
    return a * b + c  # exact in f64 for these inputs (or not finite)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_math_helpers(rng, executor, dtype):
    x = random_array(rng, dtype, N)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3]
    y = random_array(rng, dtype, N)
    y[6] = 0.0
    z = random_array(rng, dtype, N)
    if dtype != "float64":
        # operands with few significant bits: the exact x * y + z fits f32,
        # so the fused result has one rounding, to the dtype
        x[5] = 0.5
        bits = (rng.integers(-64, 65, (3, N)) / 4).astype(dtype)
        x[6:], y[:], z[:] = bits[0, 6:], bits[1], bits[2]
        y[6] = 0.0
    # fused, not multiplied and added: (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24
    if dtype == "float32":
        x[7], y[7], z[7] = 1 + 2**-12, 1 + 2**-12, -(1 + 2**-11)
    outs = {name: np.zeros(N, dtype) for name in MATH_OUTS}
    run(k_math, executor, dict(outs, x_ptr=x, y_ptr=y, z_ptr=z), N)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    rtol, seed = RTOL[dtype], rng.seed
    inputs = {"x": x, "y": y, "z": z}
    with np.errstate(all="ignore"):
        assert_close(outs["exp2_ptr"], np.exp2(xd).astype(dtype), rtol, 0, seed, "exp2", inputs)
        assert_close(outs["log2_ptr"], np.log2(xd).astype(dtype), rtol, 0, seed, "log2", inputs)
        assert_close(outs["rsqrt_ptr"], (1 / np.sqrt(xd)).astype(dtype), rtol, 0, seed, "rsqrt",
                     inputs)
        assert_same(outs["sqrt_ptr"], np.sqrt(x), seed, "sqrt_rn", inputs)
        assert_same(outs["div_ptr"], x / y, seed, "div_rn", inputs)
        assert_same(outs["fdiv_ptr"], x / y, seed, "fdiv", inputs)
    erf = np.array([math.erf(v) if not math.isnan(v) else np.nan for v in xd]).astype(dtype)
    assert_close(outs["erf_ptr"], erf, rtol, 0, seed, "erf", inputs)
    fma = np.array([exact_fma(a, b, c, dtype) for a, b, c in zip(x, y, z)]).astype(dtype)
    assert_same(outs["fma_ptr"], fma, seed, "fma", inputs)
    if dtype == "float32":
        assert outs["fma_ptr"][7] == 2.0**-24


@sw.jit
def k_umulhi(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, sl.math.umulhi(x, y), mask=mask)
    sl.store(out_ptr + n + offs, sl.umulhi(x, -1), mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype, bits", [("int32", 32), ("int64", 64)])
def test_umulhi(rng, executor, dtype, bits):
    x = random_array(rng, dtype, N)
    y = random_array(rng, dtype, N)
    lo, hi = int_range(dtype)
    x[:4], y[:4] = [lo, hi, -1, 0], [lo, -1, -1, 5]
    out = np.zeros(2 * N, dtype)
    run(k_umulhi, executor, {"x_ptr": x, "y_ptr": y, "out_ptr": out}, N)
    mask = (1 << bits) - 1

    def hi_half(a, b):
        return swage_testing.wrap_int(((int(a) & mask) * (int(b) & mask)) >> bits, dtype)

    assert_same(out[:N], np.array([hi_half(a, b) for a, b in zip(x, y)], dtype), rng.seed,
                "umulhi", {"x": x, "y": y})
    assert_same(out[N:], np.array([hi_half(a, -1) for a in x], dtype), rng.seed, "umulhi(x, -1)")


@sw.jit
def k_clamp(x_ptr, out_ptr, all_ptr, i_ptr, n, lo, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, sl.clamp(x, lo, 2.5), mask=mask)
    sl.store(all_ptr + offs, sl.clamp(x, lo, 2.5, propagate_nan=sl.PropagateNan.ALL), mask=mask)
    xi = x.to(sl.int32)
    sl.store(i_ptr + offs, sl.clamp(xi, -3, 4), mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_clamp(rng, executor):
    x = random_array(rng, np.float32, N)
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    outs = {"out_ptr": np.zeros(N, np.float32), "all_ptr": np.zeros(N, np.float32),
            "i_ptr": np.zeros(N, np.int32)}
    run(k_clamp, executor, dict(outs, x_ptr=x, lo=np.float32(-1.5)), N)
    clipped = np.clip(x, np.float32(-1.5), np.float32(2.5))
    # Triton's default (PropagateNan.NONE): a NaN x gives the lower bound
    assert_same(outs["out_ptr"], np.where(np.isnan(x), np.float32(-1.5), clipped), rng.seed,
                "clamp")
    assert_same(outs["all_ptr"], clipped, rng.seed, "clamp propagating NaN")
    with np.errstate(invalid="ignore"):
        xi = np.array([swage_testing.float_to_int(float(v), "int32") for v in x], np.int32)
    assert_same(outs["i_ptr"], np.clip(xi, -3, 4), rng.seed, "clamp on int32")


# ---- in a segment program ---------------------------------------------------------------

@sw.jit
def k_segment_ops(values_ptr, offsets_ptr, out_ptr, sums_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    xi = x.to(sl.int32)
    y = sl.fma(x, x, 1.0) + sl.math.erf(x) + sl.clamp(x, -1.0, 1.0)
    y = y + (xi // -3 + xi % 7 + sl.umulhi(xi, 3)).to(sl.float32)
    sl.store_segment(out_ptr, segment, y)
    sl.store(sums_ptr + sid, sl.max(y))


@pytest.mark.parametrize("executor, schedule", [("semantic", "auto")] +
                         [("simt", s) for s in ("auto", "subwarp", "warp", "cta", "split")])
def test_in_a_segment_program(rng, executor, schedule):
    # Every schedule of the SIMT executor gives the reference executor's
    # values (PTX of each is assembled by test_zz_ptxas).
    lengths = rng.integers(0, 200, 40)
    lengths[3] = 0
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = (rng.standard_normal(int(offsets[-1])) * 10).astype(np.float32)
    out = np.full_like(values, np.nan)
    sums = np.zeros(40, np.float32)
    k_segment_ops.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                    "out_ptr": out, "sums_ptr": sums},
                         executor=executor, schedule=schedule)
    x = values.astype(np.float64)
    xi = np.array([swage_testing.float_to_int(float(v), "int32") for v in values], np.int64)
    q = np.array([c_div(int(a), -3) + c_rem(int(a), 7) + ((int(a) & 0xffffffff) * 3 >> 32)
                  for a in xi], np.float64)
    erf = np.array([math.erf(v) for v in x])
    expected = (x * x + 1 + erf + np.clip(x, -1, 1) + q).astype(np.float32)
    assert_close(out, expected, 1e-6, 1e-6, rng.seed, "segment values (%s)" % schedule)
    maxima = [out[a:b].max() if b > a else -np.inf for a, b in zip(offsets[:-1], offsets[1:])]
    assert_same(sums, np.array(maxima, np.float32), rng.seed, "segment max")


# ---- hints -----------------------------------------------------------------------------

@sw.jit
def k_hints(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offs = sl.multiple_of(pid * BLOCK, BLOCK) + sl.arange(0, BLOCK)
    offs = sl.max_contiguous(sl.multiple_of(offs, [16]), (BLOCK,))
    offs = sl.max_constancy(offs, 1)
    sl.assume(n > 0)
    sl.assume(True)
    sl.assume(offs >= 0)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask, other=0.0, cache_modifier=".cg",
                eviction_policy="evict_last")
    y = sl.load(x_ptr + offs, mask, 0.0, cache_modifier="", eviction_policy="evict_first")
    acc = x * 0
    for i in sl.range(0, 3, num_stages=2, loop_unroll_factor=1, flatten=False,
                      warp_specialize=False, disallow_acc_multi_buffer=True, disable_licm=False):
        acc += x + i
    for i in sl.range(2):
        acc += y
    sl.store(out_ptr + offs, acc, mask=mask, cache_modifier=".wt", eviction_policy="")
    sl.store(out_ptr + n + offs, x, mask, cache_modifier=".cs")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_hints_change_nothing(rng, executor):
    x = random_array(rng, np.float32, N)
    out = np.zeros(2 * N, np.float32)
    run(k_hints, executor, {"x_ptr": x, "out_ptr": out}, N)
    assert_close(out[:N], (3 * x + 3 + 2 * x).astype(np.float32), 1e-6, 1e-6, rng.seed, "hints")
    assert_same(out[N:], x, rng.seed, "hinted store")


# ---- malformed uses: compile errors at the construct ------------------------------------

PTRS = {"x_ptr": "*f32", "out_ptr": "*f32", "n": "i32"}


@sw.jit
def k_bad_cache_modifier(x_ptr, out_ptr, n):
    x = sl.load(x_ptr, cache_modifier=".cs")  # error at col 39: cache_modifier, .ca, .cg, .cv


@sw.jit
def k_bad_store_cache_modifier(x_ptr, out_ptr, n):
    sl.store(out_ptr, 1.0, cache_modifier=".ca")  # error at col 43: cache_modifier, .wb


@sw.jit
def k_bad_eviction_policy(x_ptr, out_ptr, n):
    x = sl.load(x_ptr, eviction_policy="evict_normal")  # error at col 40: evict_first, evict_last


@sw.jit
def k_eviction_policy_not_string(x_ptr, out_ptr, n):
    x = sl.load(x_ptr, eviction_policy=1)  # error at col 40: string literal


@sw.jit
def k_load_fourth_positional(x_ptr, out_ptr, n):
    x = sl.load(x_ptr, None, 0.0, ".cg")  # error at col 35: positional, keyword


@sw.jit
def k_multiple_of_runtime(x_ptr, out_ptr, n):
    x = sl.multiple_of(n, n)  # error at col 27: compile-time integer


@sw.jit
def k_multiple_of_zero(x_ptr, out_ptr, n):
    x = sl.multiple_of(n, 0)  # error at col 27: positive


@sw.jit
def k_max_contiguous_two_values(x_ptr, out_ptr, n):
    x = sl.max_contiguous(n, (4, 4))  # error at col 30: one entry


@sw.jit
def k_multiple_of_missing(x_ptr, out_ptr, n):
    x = sl.multiple_of(n)  # error at col 9: missing, values


@sw.jit
def k_assume_false(x_ptr, out_ptr, n):
    sl.assume(1 > 2)  # error at col 15: false at compile time


@sw.jit
def k_assume_float(x_ptr, out_ptr, n):
    sl.assume(n * 1.5)  # error at col 15: int1


@sw.jit
def k_range_bad_hint(x_ptr, out_ptr, n):
    for i in sl.range(n, num_stage=2):  # error at col 26: num_stage, num_stages
        pass


@sw.jit
def k_range_negative_stages(x_ptr, out_ptr, n):
    for i in sl.range(n, num_stages=-1):  # error at col 37: num_stages, non-negative
        pass


@sw.jit
def k_range_flag_not_bool(x_ptr, out_ptr, n):
    for i in sl.range(n, flatten=n > 0):  # error at col 34: flatten, true or false
        pass


@sw.jit
def k_range_four_positional(x_ptr, out_ptr, n):
    for i in sl.range(0, n, 1, 2):  # error at col 14: positional, keyword
        pass


@sw.jit
def k_range_outside_for(x_ptr, out_ptr, n):
    r = sl.range(n)  # error at col 9: iterable


@sw.jit
def k_math_unknown(x_ptr, out_ptr, n):
    x = sl.math.exp3(n)  # error at col 9: sl.math.exp3, sl.math.exp


@sw.jit
def k_math_clamp(x_ptr, out_ptr, n):
    x = sl.math.clamp(n, 0, 1)  # error at col 9: sl.clamp


@sw.jit
def k_umulhi_float(x_ptr, out_ptr, n):
    x = sl.umulhi(n, 1.5)  # error at col 9: int32, uint32, int64 or uint64


@sw.jit
def k_umulhi_int8(x_ptr, out_ptr, n):
    x = sl.umulhi(n.to(sl.int8), n.to(sl.int8))  # error at col 9: int32, uint32, int64 or uint64


@sw.jit
def k_cdiv_float(x_ptr, out_ptr, n):
    x = sl.cdiv(n, 2.0)  # error at col 20: cdiv, integer


@sw.jit
def k_cdiv_by_zero(x_ptr, out_ptr, n):
    x = sl.cdiv(7, 0)  # error at col 9: division by zero


@sw.jit
def k_float_bad_string(x_ptr, out_ptr, n):
    x = float("infinite")  # error at col 15: infinite, not a number


@sw.jit
def k_float_runtime(x_ptr, out_ptr, n):
    x = float(n)  # error at col 15: runtime, .to(sl.float32)


@sw.jit
def k_clamp_bad_propagate(x_ptr, out_ptr, n):
    x = sl.clamp(1.0, 0.0, 2.0, propagate_nan=True)  # error at col 47: sl.PropagateNan.ALL


@sw.jit
def k_fdiv_bad_rounding(x_ptr, out_ptr, n):
    x = sl.fdiv(1.0, 2.0, ieee_rounding=n > 0)  # error at col 41: ieee_rounding


CASES = [k_bad_cache_modifier, k_bad_store_cache_modifier, k_bad_eviction_policy,
         k_eviction_policy_not_string, k_load_fourth_positional, k_multiple_of_runtime,
         k_multiple_of_zero, k_max_contiguous_two_values, k_multiple_of_missing, k_assume_false,
         k_assume_float, k_range_bad_hint, k_range_negative_stages, k_range_flag_not_bool,
         k_range_four_positional, k_range_outside_for, k_math_unknown, k_math_clamp,
         k_umulhi_float, k_umulhi_int8, k_cdiv_float, k_cdiv_by_zero, k_float_bad_string,
         k_float_runtime, k_clamp_bad_propagate, k_fdiv_bad_rounding]


@pytest.mark.parametrize("kernel", CASES, ids=[k.__name__ for k in CASES])
def test_malformed_use_is_a_compile_error_at_the_construct(kernel):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, PTRS)
