"""Conformance: Triton's tutorials, ported by renaming `tl` to `sl` and
`triton.jit` to `sw.jit` (the kernels are in tutorial_kernels.py), run on
both CPU executors against NumPy references, for every dtype each kernel
takes:

- 01 vector add: float16, bfloat16, float32, float64, int8, uint8, int32,
  int64, exactly (one rounding per element, integers wrap);
- 02 fused softmax, one row per program, and the persistent form that
  strides over rows with sl.range(..., num_stages=...): float16 to float64;
- 04 low-memory dropout, with a keep mask in memory and with sl.rand:
  exactly, against a NumPy Philox;
- 05 layer norm: the forward (mean, rstd and y), the backward's dx with
  partial dw/db summed under a spin lock (atomic_cas / atomic_xchg), the
  partial sums reduced in 1-D, and the lock-free row-block backward.

Tolerances: `u(dtype)` is the unit roundoff (half an ulp of 1: 2^-11 for
float16, 2^-8 for bfloat16, 2^-24 for float32, 2^-53 for float64); each
test says how many units its arithmetic can lose and why. References are
computed in float64 from the inputs as stored (already rounded to their
dtype), so the only differences are the kernel's own roundings.

The launches mirror the tutorials' host code: sw.next_power_of_2 for the
block, the grid as a tuple or a function of the meta-parameters, strides
in elements, constexprs and launch options as keywords.
"""

import ml_dtypes
import numpy as np
import pytest

import swage as sw
import tutorial_kernels as tk
from swage_testing import assert_same

EXECUTORS = ("semantic", "simt")
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "uint8", "int32", "int64")
PRECISION = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def u(name):
    """Unit roundoff of a float dtype."""
    return 2.0 ** -PRECISION[name]


def randn(rng, shape, dtype, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np_dtype(dtype))


def f64(a):
    return np.asarray(a).astype(np.float64)


def assert_within(actual, expected, rtol, atol, seed, what):
    """|actual - expected| <= rtol |expected| + atol elementwise, with
    `expected` the float64 reference itself, not rounded to actual's dtype
    (so rtol includes the final rounding to the dtype: u of it); NaN and
    infinities fail."""
    a, e = f64(actual), f64(expected)
    assert a.shape == e.shape, "%s: shape %s != %s" % (what, a.shape, e.shape)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(a - e) <= rtol * np.abs(e) + atol)
    if bad.any():
        where = [tuple(int(i) for i in w) for w in np.argwhere(bad)[:6]]
        raise AssertionError("%s: %d of %d elements differ (seed %s): %s" % (
            what, bad.sum(), bad.size, seed,
            "; ".join("%s got %r, expected %r" % (w, a[w], e[w]) for w in where)))


# ---- 01: vector add -------------------------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_vector_add(rng, executor, dtype):
    n = 1000  # not a multiple of the block: the last program is masked
    if dtype in INTS:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        y = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        with np.errstate(over="ignore"):
            expected = x + y  # NumPy's integer add wraps, as Swage's does
    else:
        x, y = randn(rng, n, dtype), randn(rng, n, dtype)
        # One correctly rounded add per element. NumPy's float16 and
        # bfloat16 add in float32 and round again, which is the correctly
        # rounded result: float32's 24 bits are at least 2p + 2 for p = 11
        # and 8, so the double rounding is innocuous. Exact comparison.
        expected = x + y
    output = np.empty_like(x)
    grid = lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    tk.add_kernel[grid](x, y, output, n, BLOCK_SIZE=256, executor=executor)
    assert_same(output, expected, rng.seed, "x + y (%s, %s)" % (dtype, executor))


# ---- 02: fused softmax ----------------------------------------------------------------

def softmax_inputs(rng, dtype, n_rows, n_cols):
    # Uniform in [-4, 4): every x - max lies in (-8, 0], which the error
    # bound below needs.
    return rng.uniform(-4, 4, (n_rows, n_cols)).astype(np_dtype(dtype))


def softmax_reference(x):
    x = f64(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_rtol(dtype):
    """The kernel computes in the input's dtype, as the tutorial does.
    x - max is rounded once: at most half an ulp of a number below 8 in
    magnitude, 4u absolute, which exp turns into a relative error of 4u.
    exp, the division and the sum (of positive terms, so its relative error
    is at most u times the depth of the additions: under 32 for a row of at
    most 2^12 elements, on either executor) add u each and 32u; 64u bounds
    the total for float32 and float64. Float16 and bfloat16 reductions
    accumulate in float32 and round once: 4u + 3u + 32 float32 units,
    under 8u of the dtype."""
    return (8 if dtype in ("float16", "bfloat16") else 64) * u(dtype)


def softmax_atol(dtype):
    # results below the smallest normal number keep only absolute precision
    return {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149,
            "float64": 0.0}[dtype]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n_cols", [1, 97, 256, 781])
def test_fused_softmax(rng, executor, dtype, n_cols):
    n_rows = 23
    x = softmax_inputs(rng, dtype, n_rows, n_cols)
    y = np.full_like(x, np.nan)
    BLOCK_SIZE = sw.next_power_of_2(n_cols)
    tk.softmax_kernel[(n_rows, 1, 1)](y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize,
                                      n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=4,
                                      executor=executor)
    assert_within(y, softmax_reference(x), softmax_rtol(dtype), softmax_atol(dtype), rng.seed,
                  "softmax (%s, %s, %d columns)" % (dtype, executor, n_cols))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_fused_softmax_persistent(rng, executor, dtype):
    # Fewer programs than rows (7 for 45 rows): each takes every 7th row.
    # A row stride larger than the row: the matrix is a slice of a wider one.
    n_rows, n_cols, width = 45, 200, 224
    wide = softmax_inputs(rng, dtype, n_rows, width)
    out = np.full_like(wide, np.nan)
    BLOCK_SIZE = sw.next_power_of_2(n_cols)
    tk.softmax_persistent_kernel[(7, 1, 1)](out, wide, width, width, n_rows, n_cols,
                                            BLOCK_SIZE=BLOCK_SIZE, num_stages=3,
                                            executor=executor)
    assert_within(out[:, :n_cols], softmax_reference(wide[:, :n_cols]), softmax_rtol(dtype),
                  softmax_atol(dtype), rng.seed, "persistent softmax (%s, %s)" % (dtype, executor))
    assert np.isnan(f64(out[:, n_cols:])).all(), "wrote past the end of a row"


# ---- 04: low-memory dropout -----------------------------------------------------------

def philox_uniform(seed, offsets, rounds=10):
    """Triton's tl.rand for int32 offsets and a seed in [0, 2^63): Philox-4x32
    with counter (offset, 0, 0, 0) and key (the seed's low word, its high
    word), the first word mapped to float32 in [0, 1). (test_random.py checks the algorithm against
    Philox's known-answer vectors; this is the same, vectorised.)"""
    mask = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.int64).astype(np.uint64) & mask
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.full_like(c0, np.uint64(seed) & mask)
    k1 = np.full_like(c0, np.uint64(seed) >> np.uint64(32))
    for _ in range(rounds):
        pa = np.uint64(0xD2511F53) * c0
        pb = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((pb >> np.uint64(32)) ^ c1 ^ k0, pb & mask,
                          (pa >> np.uint64(32)) ^ c3 ^ k1, pa & mask)
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    x = c0.astype(np.uint32).view(np.int32)
    x = np.where(x < 0, -(x.astype(np.int64)) - 1, x).astype(np.float32)
    return x * np.float32(4.6566127342e-10)


def dropout_reference(x, keep, p):
    # x / (1 - p): 1 - p in float32 (p is a float32 argument), the division
    # in the wider of x's dtype and float32, then the store's rounding to
    # x's dtype: the kernel's exact steps, so the comparison is exact.
    scale = np.float32(1) - np.float32(p)
    wide = np.float64 if x.dtype == np.float64 else np.float32
    kept = (x.astype(wide) / wide(scale)).astype(x.dtype)
    return np.where(keep, kept, np.zeros((), x.dtype))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("keep_dtype", ["bool", "int8"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_dropout_with_mask(rng, executor, dtype, keep_dtype):
    n, p = 1000, 0.5
    x = randn(rng, n, dtype)
    x_keep = (rng.random(n) > p).astype(keep_dtype)
    output = np.full_like(x, np.nan)
    grid = lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    tk.dropout_kernel[grid](x, x_keep, output, n, p, BLOCK_SIZE=128, executor=executor)
    assert_same(output, dropout_reference(x, x_keep != 0, p), rng.seed,
                "dropout (%s, keep %s, %s)" % (dtype, keep_dtype, executor))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("seed_bits", [31, 63])
@pytest.mark.parametrize("dtype", FLOATS)
def test_seeded_dropout(rng, executor, dtype, seed_bits):
    # A seed below 2^31 is an int32 argument, a larger one an int64 (its
    # high word is the key's second word).
    n, p = 2000, 0.4
    x = randn(rng, n, dtype)
    x[x == 0] = 1  # a kept zero would look dropped below

    def seeded_dropout(x, p, seed):
        output = np.full_like(x, np.nan)
        grid = lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
        tk.seeded_dropout_kernel[grid](x, output, n, p, seed, BLOCK_SIZE=256,
                                       executor=executor)
        return output

    seed = int(rng.integers(0, 2 ** 31)) if seed_bits == 31 else int(rng.integers(2 ** 31, 2 ** 63))
    output = seeded_dropout(x, p, seed)
    keep = philox_uniform(seed, np.arange(n, dtype=np.int32)) > np.float32(p)
    assert_same(output, dropout_reference(x, keep, p), rng.seed,
                "seeded dropout (%s, seed %d, %s)" % (dtype, seed, executor))
    # What the tutorial shows: the same seed gives the same mask, another
    # seed another one, and about p of the elements are dropped.
    assert_same(seeded_dropout(x, p, seed), output, rng.seed, "the same seed again")
    other = seeded_dropout(x, p, seed ^ 1)
    assert ((other == 0) != (output == 0)).any()
    assert abs((output == 0).mean() - p) < 0.05  # 2000 draws: 4.5 standard deviations


# ---- 05: layer norm -------------------------------------------------------------------

def layer_norm_inputs(rng, dtype, M, N):
    x = randn(rng, (M, N), dtype, scale=2.0) + np.asarray(0.5, np_dtype(dtype))
    w = randn(rng, N, dtype)
    b = randn(rng, N, dtype)
    return x, w, b


def layer_norm_stats(x, eps):
    x = f64(x)
    mean = x.mean(axis=1)
    var = ((x - mean[:, None]) ** 2).mean(axis=1)
    return mean, 1 / np.sqrt(var + eps)


# The statistics are float32 sums of N <= 4096 terms, each term added at a
# depth of at most N / BLOCK_SIZE + log2(BLOCK_SIZE) + 2 <= 64 (the chunk
# loop, then the tile's reduction tree): a relative error of at most
# 64 * 2^-24 = 2^-18 of the sum of |terms|; 2^-16 leaves a factor 4 for the
# products and the square root around them.
STATS = 2.0 ** -16


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("N", [200, 1151])
def test_layer_norm_forward(rng, executor, dtype, N):
    M, eps = 9, 1e-5
    x, w, b = layer_norm_inputs(rng, dtype, M, N)
    y = np.full_like(x, np.nan)
    mean = np.full(M, np.nan, np.float32)
    rstd = np.full(M, np.nan, np.float32)
    # The tutorial's host code: a block of at most 64 KB, loops over it.
    MAX_FUSED_SIZE = 65536 // x.itemsize
    BLOCK_SIZE = min(MAX_FUSED_SIZE, sw.next_power_of_2(N), 256)
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    tk.layer_norm_fwd_kernel[(M,)](x, y, w, b, mean, rstd, x.strides[0] // x.itemsize, N, eps,
                                   BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1,
                                   executor=executor)
    ref_mean, ref_rstd = layer_norm_stats(x, eps)
    what = "layer norm forward (%s, N=%d, %s)" % (dtype, N, executor)
    scale = np.abs(f64(x)).mean(axis=1)
    assert (np.abs(f64(mean) - ref_mean) <= STATS * scale).all(), what + ": mean"
    assert_within(rstd, ref_rstd, STATS, 0, rng.seed, what + ": rstd")
    x_hat = (f64(x) - ref_mean[:, None]) * ref_rstd[:, None]
    expected = x_hat * f64(w) + f64(b)
    # y is x_hat * w + b in float32 (float64 for float64 weights), stored
    # in x's dtype: the statistics' error scaled by |w| (1 + |x_hat|), a
    # few float32 roundings, and the store's rounding (u of the dtype).
    bound = (u(dtype) * np.abs(expected)
             + STATS * (np.abs(f64(w)) * (1 + np.abs(x_hat)) + np.abs(f64(b))))
    bad = ~(np.abs(f64(y) - expected) <= bound)
    assert not bad.any(), "%s: y differs at %s (seed %d)" % (what, np.argwhere(bad)[:5].tolist(),
                                                             rng.seed)


def layer_norm_backward_reference(x, w, dy, mean, rstd):
    x, w, dy = f64(x), f64(w), f64(dy)
    mean, rstd = f64(mean)[:, None], f64(rstd)[:, None]
    N = x.shape[1]
    xhat = (x - mean) * rstd
    wdy = w * dy
    c1 = (xhat * wdy).sum(axis=1, keepdims=True) / N
    c2 = wdy.sum(axis=1, keepdims=True) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    # bounds: what each result's float32 arithmetic can lose, in units of
    # STATS (the sums' bound): c1 and c2 err by STATS times the mean of
    # their |terms|, and dx scales both by rstd
    dx_scale = rstd * (np.abs(wdy) + np.abs(xhat) * np.abs(xhat * wdy).mean(axis=1, keepdims=True)
                       + np.abs(wdy).mean(axis=1, keepdims=True))
    return xhat, dx, dx_scale


def backward_inputs(rng, dtype, M, N, eps=1e-5):
    x, w, _ = layer_norm_inputs(rng, dtype, M, N)
    dy = randn(rng, (M, N), dtype)
    mean, rstd = layer_norm_stats(x, eps)
    return x, w, dy, mean.astype(np.float32), rstd.astype(np.float32)


def check_dx(dx, expected, dx_scale, dtype, seed, what):
    bound = u(dtype) * np.abs(expected) + STATS * dx_scale
    bad = ~(np.abs(f64(dx) - expected) <= bound)
    assert not bad.any(), "%s: dx differs at %s (seed %d)" % (what, np.argwhere(bad)[:5].tolist(),
                                                              seed)


def check_dwdb(dw, db, xhat, dy, rows_per_sum, dtype, seed, what):
    """dw = sum over rows of dy * xhat, db = sum of dy. Each partial sum of
    `rows_per_sum` rows may be rounded to the dtype after every row (the
    tutorial keeps its partial buffers in x's dtype), then the partials add
    in float32 and round once more: (rows_per_sum + 2) u of the dtype, plus
    STATS for the float32 work, of the sum of |terms|."""
    dy = f64(dy)
    for name, got, terms in (("dw", dw, dy * xhat), ("db", db, dy)):
        expected = terms.sum(axis=0)
        bound = ((rows_per_sum + 2) * u(dtype) + STATS) * np.abs(terms).sum(axis=0)
        bad = ~(np.abs(f64(got) - expected) <= bound)
        assert not bad.any(), "%s: %s differs at %s (seed %d)" % (
            what, name, np.argwhere(bad)[:5].tolist(), seed)


def layer_norm_backward_locked(kernel, executor, x, w, dy, mean, rstd, GROUP_SIZE_M):
    """The tutorial's backward: dx and the locked partial sums, then the
    partial sums reduced by columns (in 1-D)."""
    M, N = x.shape
    locks = np.zeros(2 * GROUP_SIZE_M, np.int32)
    _dw = np.zeros((GROUP_SIZE_M, N), x.dtype)
    _db = np.zeros((GROUP_SIZE_M, N), x.dtype)
    dw = np.full(N, np.nan, w.dtype)
    db = np.full(N, np.nan, w.dtype)
    dx = np.full_like(dy, np.nan)
    BLOCK_SIZE = sw.next_power_of_2(N)
    kernel[(M,)](dx, dy, _dw, _db, x, w, mean, rstd, locks, x.strides[0] // x.itemsize, N,
                 BLOCK_SIZE_N=BLOCK_SIZE, GROUP_SIZE_M=GROUP_SIZE_M, num_warps=4,
                 executor=executor)
    assert (locks[:GROUP_SIZE_M] == 0).all(), "a lock was left held"
    assert (locks[GROUP_SIZE_M:] == (np.arange(GROUP_SIZE_M) < M)).all()
    grid = lambda meta: (sw.cdiv(N, meta["BLOCK_SIZE_N"]),)  # noqa: E731
    tk.layer_norm_bwd_dwdb_kernel[grid](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N,
                                        BLOCK_SIZE_N=128, executor=executor)
    return dx, dw, db


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_layer_norm_backward_locked(rng, executor, dtype):
    # Not float64: the partial sums are float32 (`.to(w.dtype)` of a w made
    # float32), and adding a float64 partial buffer makes `partial_dw`
    # float64 in one branch of the `if` only, which Triton rejects too.
    M, N, G = 21, 300, 4
    x, w, dy, mean, rstd = backward_inputs(rng, dtype, M, N)
    dx, dw, db = layer_norm_backward_locked(tk.layer_norm_bwd_dx_nobarrier_kernel, executor,
                                            x, w, dy, mean, rstd, G)
    xhat, ref_dx, dx_scale = layer_norm_backward_reference(x, w, dy, mean, rstd)
    what = "layer norm backward, locked (%s, %s)" % (dtype, executor)
    check_dx(dx, ref_dx, dx_scale, dtype, rng.seed, what)
    check_dwdb(dw, db, xhat, dy, sw.cdiv(M, G), dtype, rng.seed, what)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_layer_norm_backward_locked_with_barrier(rng, executor):
    # The tutorial's kernel as written, barrier included.
    M, N, G = 6, 100, 2
    x, w, dy, mean, rstd = backward_inputs(rng, "float32", M, N)
    dx, dw, db = layer_norm_backward_locked(tk.layer_norm_bwd_dx_kernel, executor,
                                            x, w, dy, mean, rstd, G)
    xhat, ref_dx, dx_scale = layer_norm_backward_reference(x, w, dy, mean, rstd)
    check_dx(dx, ref_dx, dx_scale, "float32", rng.seed, "with the barrier")
    check_dwdb(dw, db, xhat, dy, sw.cdiv(M, G), "float32", rng.seed, "with the barrier")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_backward_row_blocks(rng, executor, dtype):
    # 5 programs of 4 rows for 18 rows: the last takes 2 (the row_end clamp).
    M, N, rows_per_program = 18, 257, 4
    x, w, dy, mean, rstd = backward_inputs(rng, dtype, M, N)
    programs = sw.cdiv(M, rows_per_program)
    dx = np.full_like(dy, np.nan)
    _dw = np.full((programs, N), np.nan, np.float32)
    _db = np.full((programs, N), np.nan, np.float32)
    tk.layer_norm_bwd_rows_kernel[(programs,)](
        x, w, mean, rstd, dx, _dw, _db, dy, x.strides[0] // x.itemsize, M, N,
        rows_per_program=rows_per_program, BLOCK_SIZE=sw.next_power_of_2(N), executor=executor)
    xhat, ref_dx, dx_scale = layer_norm_backward_reference(x, w, dy, mean, rstd)
    what = "layer norm backward, row blocks (%s, %s)" % (dtype, executor)
    check_dx(dx, ref_dx, dx_scale, dtype, rng.seed, what)
    # the partials are float32, summed here in float64: no dtype rounding
    check_dwdb(_dw.astype(np.float64).sum(axis=0), _db.astype(np.float64).sum(axis=0), xhat, dy,
               0, "float32", rng.seed, what)
