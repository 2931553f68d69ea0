"""The constructs a kernel ported from Triton expects
(test/python/test_triton_language.py, test_hints.py) on the GPU, against
the reference executor on the same inputs: float("inf") / float("nan")
literals, the math helpers sl.math.exp2 log2 rsqrt sqrt_rn div_rn fdiv erf
fma, sl.clamp, signed umulhi, integer // and % on tiles and runtime scalars
(C's meaning) next to compile-time ones (Python's), the hints that change
nothing (multiple_of, max_contiguous, max_constancy, assume, cache_modifier,
eviction_policy, sl.range(..., num_stages=...)), and sl.store's conversion
to the pointee's dtype (float to int saturating, NaN to 0, float32 to
float16 rounding).

Each kernel runs once on CPU NumPy arrays (executor="semantic") and once on
CUDA copies of them. Exact (bit for bit, NaN where NaN) for everything the
GPU computes correctly rounded (docs/language.md, "On the GPU"): integers,
literals, clamp, sqrt_rn, div_rn, fdiv(ieee_rounding=True), fma, rsqrt on
float32/float64, the hinted loads and stores, the store's conversions.
exp2 and log2 use the hardware approximations on float32 (and float16,
computed in float32) and rsqrt on float16 goes through them too: the
tolerances of test_tile_ops_gpu.py for the same functions (rtol 2e-6 for
float32, 2e-3 for float16, 1e-15 for float64; log2 also 2e-6 absolute near
1). erf is computed in float64 and rounded once on every executor; the
C library's erf and the GPU's (within 2 ulp of float64) may round apart by
one ulp of the dtype: rtol 2e-3 for float16, 2.5e-7 (2 ulp) for float32,
1e-15 for float64.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import test_hints as hints  # noqa: E402  (test/python)
import test_triton_language as tt  # noqa: E402
from swage_testing import assert_close, assert_same, int_range, random_array  # noqa: E402
from gpu_pairs import run_both  # noqa: E402  (test/gpu)


def same(cpu, gpu, seed=None):
    for name in cpu:
        assert_same(gpu[name], cpu[name], seed, name + ", GPU vs CPU reference")


def run_n(kernel, arrays, n, **constexprs):
    """run_both with test_triton_language's launch: n, BLOCK and its grid."""
    cx = {"BLOCK": tt.BLOCK}
    cx.update(constexprs)
    return run_both(kernel, arrays, {"n": n}, cx, (tt.cdiv(n, tt.BLOCK),))


def test_gpu_float_inf_nan_literals(rng):
    n = 100
    x = random_array(rng, np.float32, n)
    cpu, gpu = run_both(tt.k_float_literals, {"x_ptr": x, "out_ptr": np.zeros(2 * n + 10, np.float32)},
                        {"n": n}, {"BLOCK": tt.BLOCK}, (2,))
    same(cpu, gpu, rng.seed)


# ---- math helpers ---------------------------------------------------------------------

MATH_EXACT = {"sqrt_ptr", "div_ptr", "fdiv_ptr", "fma_ptr"}
APPROX_RTOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-15}  # test_tile_ops_gpu's MATH_RTOL
APPROX_ATOL_NEAR_ONE = 2e-6  # log2, not float64 (test_tile_ops_gpu's MATH_ATOL)
ERF_RTOL = {"float16": 2e-3, "float32": 2.5e-7, "float64": 1e-15}


def math_inputs(rng, dtype):
    """test_math_helpers' inputs: specials, few-bit operands (exact fma), a fused case."""
    x = random_array(rng, dtype, tt.N)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3]
    y = random_array(rng, dtype, tt.N)
    y[6] = 0.0
    z = random_array(rng, dtype, tt.N)
    if dtype != "float64":
        x[5] = 0.5
        bits = (rng.integers(-64, 65, (3, tt.N)) / 4).astype(dtype)
        x[6:], y[:], z[:] = bits[0, 6:], bits[1], bits[2]
        y[6] = 0.0
    if dtype == "float32":
        x[7], y[7], z[7] = 1 + 2**-12, 1 + 2**-12, -(1 + 2**-11)
    return x, y, z


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_gpu_math_helpers(rng, dtype):
    x, y, z = math_inputs(rng, dtype)
    outs = {name: np.zeros(tt.N, dtype) for name in tt.MATH_OUTS}
    cpu, gpu = run_n(tt.k_math, dict(outs, x_ptr=x, y_ptr=y, z_ptr=z), tt.N)
    inputs = {"x": x, "y": y, "z": z}
    for name in tt.MATH_OUTS:
        what = "%s (%s), GPU vs CPU reference" % (name[:-4], dtype)
        if name in MATH_EXACT or (name == "rsqrt_ptr" and dtype != "float16"):
            assert_same(gpu[name], cpu[name], rng.seed, what, inputs)
        elif name == "erf_ptr":
            assert_close(gpu[name], cpu[name], ERF_RTOL[dtype], 0, rng.seed, what, inputs)
        else:
            atol = APPROX_ATOL_NEAR_ONE if name == "log2_ptr" and dtype != "float64" else 0.0
            assert_close(gpu[name], cpu[name], APPROX_RTOL[dtype], atol, rng.seed, what, inputs)
    if dtype == "float32":  # one rounding: fused on the GPU too (x*y+z is exact in float64)
        assert gpu["fma_ptr"][7] == np.float32(x[7].astype(np.float64) * y[7] + z[7])


def test_gpu_clamp(rng):
    x = random_array(rng, np.float32, tt.N)
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    outs = {"out_ptr": np.zeros(tt.N, np.float32), "all_ptr": np.zeros(tt.N, np.float32),
            "i_ptr": np.zeros(tt.N, np.int32)}
    cpu, gpu = run_both(tt.k_clamp, dict(outs, x_ptr=x), {"n": tt.N, "lo": np.float32(-1.5)},
                        {"BLOCK": tt.BLOCK}, (tt.cdiv(tt.N, tt.BLOCK),))
    same(cpu, gpu, rng.seed)


@pytest.mark.parametrize("dtype, bits", [("int32", 32), ("int64", 64)])
def test_gpu_signed_umulhi(rng, dtype, bits):
    x = random_array(rng, dtype, tt.N)
    y = random_array(rng, dtype, tt.N)
    lo, hi = int_range(dtype)
    x[:4], y[:4] = [lo, hi, -1, 0], [lo, -1, -1, 5]
    cpu, gpu = run_n(tt.k_umulhi, {"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(2 * tt.N, dtype)},
                     tt.N)
    same(cpu, gpu, rng.seed)


# ---- integer // and % -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gpu_int_floordiv_mod_of_tiles_and_a_negative_literal(rng, dtype):
    # x // y and x % y of tiles (division by 0 and INT_MIN // -1 included),
    # x // -3 and x % -3
    x, y = tt.divmod_inputs(rng, dtype)
    outs = {name: np.zeros(tt.N, dtype) for name in ("q_ptr", "r_ptr", "qc_ptr", "rc_ptr")}
    cpu, gpu = run_n(tt.k_divmod, dict(outs, x_ptr=x, y_ptr=y), tt.N)
    same(cpu, gpu, rng.seed)


@pytest.mark.parametrize("a, b, A, B", [(-7, 2, -7, 2), (7, -2, 7, -2), (-9, -4, -9, -4),
                                        (10, 3, 10, 3), (-2**31, -1, -2**31, -1)])
def test_gpu_scalar_and_constexpr_division(a, b, A, B):
    # runtime scalars (C's meaning), constexprs and literals (Python's), sl.cdiv of both
    cpu, gpu = run_both(tt.k_scalar_divmod, {"out_ptr": np.zeros(12, np.int64)},
                        {"a": np.int32(a), "b": np.int32(b)}, {"A": A, "B": B}, (1,))
    same(cpu, gpu)


# ---- hints ----------------------------------------------------------------------------

def test_gpu_hints_change_nothing(rng):
    # multiple_of, max_contiguous, max_constancy, assume, cache_modifier and
    # eviction_policy of loads and stores, sl.range(..., num_stages=2, ...):
    # additions of the same values in the same order, so exact
    x = random_array(rng, np.float32, tt.N)
    cpu, gpu = run_n(tt.k_hints, {"x_ptr": x, "out_ptr": np.zeros(2 * tt.N, np.float32)}, tt.N)
    same(cpu, gpu, rng.seed)


# ---- sl.store converts to the pointee's dtype -----------------------------------------

def test_gpu_a_store_converts_to_the_pointee_as_tritons():
    # float16 into float32 (exact); float32 into int32 and uint8 (toward
    # zero, saturating, NaN to 0) and into float16 (rounded, 2e10 to inf):
    # test_hints.py's inputs, through its tile_double kernel
    x = np.array([1.5, -2.75, 3e4, -7.0] * 4, np.float16)
    cpu, gpu = run_both(hints.tile_double, {"x_ptr": x, "out_ptr": np.zeros(16, np.float32)},
                        {"n": 16}, {"BLOCK": 16}, (1,))
    same(cpu, gpu)
    y = np.array([1.75, -1.75, np.nan, 1e10, -1e10, 0.25, -0.0, 127.9] * 2, np.float32)
    for dtype in (np.int32, np.uint8, np.float16):
        cpu, gpu = run_both(hints.tile_double, {"x_ptr": y, "out_ptr": np.zeros(16, dtype)},
                            {"n": 16}, {"BLOCK": 16}, (1,))
        same(cpu, gpu)
    with np.errstate(over="ignore"):
        assert_same(gpu["out_ptr"], (y * 2).astype(np.float16), None, "float16 store")
