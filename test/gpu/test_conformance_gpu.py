"""Conformance on the GPU: Triton's tutorials (the kernels of
test/python/tutorial_kernels.py, as test_conformance_tutorials.py runs them
on the CPU) launched Triton's way on CUDA tensors, and on the reference
executor with NumPy arrays of the same inputs: 02 fused softmax (one row
a program, and the persistent form with sl.range(..., num_stages=...)),
04 low-memory dropout (a keep mask in memory, and sl.rand), 05 layer norm
(the forward; the backward's dx with the partial dw/db summed under the
spin lock of atomic_cas / atomic_xchg and sl.debug_barrier, then reduced;
the lock-free row-block backward). 01 vector add is test_vector_add_gpu.py.

Both results are checked against test_conformance_tutorials.py's float64
references with its tolerances (its `u(dtype)` units and STATS bound),
widened only where the GPU's arithmetic is documented to differ
(docs/language.md, "On the GPU"):

- float32 `/` is div.full.f32 (within 2 ulp) and sl.exp is ex2.approx of
  x * log2(e) (within 2.5 + 1.23 |x| ulp): softmax's x - max lies in
  (-8, 0], so float32 softmax gains (2.5 + 1.23 * 8 + 2) ulp, that is
  2^-23 each; float64 exp is software within 2 ulp (4u); float16 and
  bfloat16 compute both in float32 and round once, where these few float32
  ulps are far inside the 8u the CPU bound gives them;
- dropout's x / (1 - p) divides in float32 (float64 for float64 x): exact
  for float64, 2 ulp (rtol 2.5e-7) for float32, and the float32 quotient's
  2 ulp can move the rounding to float16/bfloat16 by one ulp of theirs
  (2u); the keep mask (which elements are 0) must be the reference's
  exactly;
- layer norm's statistics (float32 sums in another order, `/ N` and
  `1 / sqrt` of div.full) stay inside STATS, which leaves a factor 4 over
  the sums' own bound: no change.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw  # noqa: E402
import test_conformance_tutorials as ct  # noqa: E402  (test/python)
import tutorial_kernels as tk  # noqa: E402
from swage_testing import assert_same  # noqa: E402

BF16 = ct.np_dtype("bfloat16")


def to_gpu(a):
    """A CUDA copy of a NumPy array (bfloat16, which torch cannot take from
    NumPy, by its bits)."""
    if a.dtype == BF16:
        return torch.from_numpy(a.view(np.int16).copy()).cuda().view(torch.bfloat16)
    return torch.from_numpy(a.copy()).cuda()


def to_numpy(t, dtype):
    if dtype == BF16:
        return t.view(torch.int16).cpu().numpy().view(BF16)
    return t.cpu().numpy()


def run_both(kernel, grid, args, **kwargs):
    """kernel[grid](*args, **kwargs) on the reference executor with copies of
    the NumPy arrays in args, and on CUDA copies: (cpu args, gpu args), the
    arrays of both as NumPy."""
    cpu = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid](*cpu, executor="semantic", **kwargs)
    gpu = [to_gpu(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid](*gpu, **kwargs)
    torch.cuda.synchronize()
    return cpu, [to_numpy(g, a.dtype) if isinstance(a, np.ndarray) else a
                 for g, a in zip(gpu, args)]


# ---- 02: fused softmax ----------------------------------------------------------------

def softmax_gpu_rtol(dtype):
    extra = {"float32": (2.5 + 1.23 * 8 + 2) * 2.0 ** -23, "float64": 4 * ct.u("float64")}
    return ct.softmax_rtol(dtype) + extra.get(dtype, 0.0)


@pytest.mark.parametrize("dtype", ct.FLOATS)
@pytest.mark.parametrize("n_cols", [1, 97, 256, 781])
def test_gpu_fused_softmax(rng, dtype, n_cols):
    n_rows = 23
    x = ct.softmax_inputs(rng, dtype, n_rows, n_cols)
    y = np.full_like(x, np.nan)
    cpu, gpu = run_both(tk.softmax_kernel, (n_rows, 1, 1),
                        [y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, n_cols],
                        BLOCK_SIZE=sw.next_power_of_2(n_cols), num_warps=4)
    cpu_y, gpu_y = cpu[0], gpu[0]
    expected = ct.softmax_reference(x)
    what = "softmax (%s, %d columns)" % (dtype, n_cols)
    ct.assert_within(cpu_y, expected, ct.softmax_rtol(dtype), ct.softmax_atol(dtype), rng.seed,
                     what + ", reference executor")
    ct.assert_within(gpu_y, expected, softmax_gpu_rtol(dtype), ct.softmax_atol(dtype), rng.seed,
                     what + ", GPU")


@pytest.mark.parametrize("dtype", ct.FLOATS)
def test_gpu_fused_softmax_persistent(rng, dtype):
    # 7 programs striding over 45 rows of a slice of a wider matrix
    n_rows, n_cols, width = 45, 200, 224
    wide = ct.softmax_inputs(rng, dtype, n_rows, width)
    out = np.full_like(wide, np.nan)
    cpu, gpu = run_both(tk.softmax_persistent_kernel, (7, 1, 1),
                        [out, wide, width, width, n_rows, n_cols],
                        BLOCK_SIZE=sw.next_power_of_2(n_cols), num_stages=3)
    expected = ct.softmax_reference(wide[:, :n_cols])
    for got, rtol, who in ((cpu[0], ct.softmax_rtol(dtype), "reference executor"),
                           (gpu[0], softmax_gpu_rtol(dtype), "GPU")):
        what = "persistent softmax (%s, %s)" % (dtype, who)
        ct.assert_within(got[:, :n_cols], expected, rtol, ct.softmax_atol(dtype), rng.seed, what)
        assert np.isnan(ct.f64(got[:, n_cols:])).all(), what + ": wrote past the end of a row"


# ---- 04: low-memory dropout -----------------------------------------------------------

def check_dropout_on_the_gpu(gpu, expected, dtype, seed, what):
    """The same elements dropped; the kept ones within the GPU's division."""
    assert np.array_equal(gpu == 0, expected == 0), what + ": another keep mask (seed %s)" % seed
    if dtype == "float64":
        assert_same(gpu, expected, seed, what)
    else:
        rtol = 2.5e-7 if dtype == "float32" else 2 * ct.u(dtype)
        ct.assert_within(gpu, expected, rtol, 0, seed, what)


@pytest.mark.parametrize("keep_dtype", ["bool", "int8"])
@pytest.mark.parametrize("dtype", ct.FLOATS)
def test_gpu_dropout_with_mask(rng, dtype, keep_dtype):
    n, p = 1000, 0.5
    x = ct.randn(rng, n, dtype)
    x[x == 0] = 1
    x_keep = (rng.random(n) > p).astype(keep_dtype)
    output = np.full_like(x, np.nan)
    grid = lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    cpu, gpu = run_both(tk.dropout_kernel, grid, [x, x_keep, output, n, p], BLOCK_SIZE=128)
    expected = ct.dropout_reference(x, x_keep != 0, p)
    what = "dropout (%s, keep %s)" % (dtype, keep_dtype)
    assert_same(cpu[2], expected, rng.seed, what + ", reference executor")
    check_dropout_on_the_gpu(gpu[2], expected, dtype, rng.seed, what + ", GPU")


@pytest.mark.parametrize("seed_bits", [31, 63])
@pytest.mark.parametrize("dtype", ct.FLOATS)
def test_gpu_seeded_dropout(rng, dtype, seed_bits):
    n, p = 2000, 0.4
    x = ct.randn(rng, n, dtype)
    x[x == 0] = 1  # a kept zero would look dropped
    seed = int(rng.integers(0, 2 ** 31)) if seed_bits == 31 else int(rng.integers(2 ** 31, 2 ** 63))
    output = np.full_like(x, np.nan)
    grid = lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    cpu, gpu = run_both(tk.seeded_dropout_kernel, grid, [x, output, n, p, seed], BLOCK_SIZE=256)
    keep = ct.philox_uniform(seed, np.arange(n, dtype=np.int32)) > np.float32(p)
    expected = ct.dropout_reference(x, keep, p)
    what = "seeded dropout (%s, seed %d)" % (dtype, seed)
    assert_same(cpu[1], expected, rng.seed, what + ", reference executor")
    check_dropout_on_the_gpu(gpu[1], expected, dtype, rng.seed, what + ", GPU")


# ---- 05: layer norm -------------------------------------------------------------------

def check_layer_norm_forward(x, w, b, y, mean, rstd, eps, seed, what):
    """test_layer_norm_forward's checks and bounds."""
    dtype = "bfloat16" if x.dtype == BF16 else x.dtype.name
    ref_mean, ref_rstd = ct.layer_norm_stats(x, eps)
    scale = np.abs(ct.f64(x)).mean(axis=1)
    assert (np.abs(ct.f64(mean) - ref_mean) <= ct.STATS * scale).all(), what + ": mean"
    ct.assert_within(rstd, ref_rstd, ct.STATS, 0, seed, what + ": rstd")
    x_hat = (ct.f64(x) - ref_mean[:, None]) * ref_rstd[:, None]
    expected = x_hat * ct.f64(w) + ct.f64(b)
    bound = (ct.u(dtype) * np.abs(expected)
             + ct.STATS * (np.abs(ct.f64(w)) * (1 + np.abs(x_hat)) + np.abs(ct.f64(b))))
    bad = ~(np.abs(ct.f64(y) - expected) <= bound)
    assert not bad.any(), "%s: y differs at %s (seed %d)" % (what, np.argwhere(bad)[:5].tolist(), seed)


@pytest.mark.parametrize("dtype", ct.FLOATS)
@pytest.mark.parametrize("N", [200, 1151])
def test_gpu_layer_norm_forward(rng, dtype, N):
    M, eps = 9, 1e-5
    x, w, b = ct.layer_norm_inputs(rng, dtype, M, N)
    y = np.full_like(x, np.nan)
    mean = np.full(M, np.nan, np.float32)
    rstd = np.full(M, np.nan, np.float32)
    BLOCK_SIZE = min(65536 // x.itemsize, sw.next_power_of_2(N), 256)
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    cpu, gpu = run_both(tk.layer_norm_fwd_kernel, (M,),
                        [x, y, w, b, mean, rstd, x.strides[0] // x.itemsize, N, eps],
                        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1)
    for got, who in ((cpu, "reference executor"), (gpu, "GPU")):
        check_layer_norm_forward(x, w, b, got[1], got[4], got[5], eps, rng.seed,
                                 "layer norm forward (%s, N=%d, %s)" % (dtype, N, who))


def layer_norm_backward_locked_on_the_gpu(x, w, dy, mean, rstd, GROUP_SIZE_M):
    """ct.layer_norm_backward_locked with CUDA tensors: the tutorial's
    backward (the kernel with its barrier), then the partial sums reduced."""
    M, N = x.shape
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device="cuda")
    _dw = to_gpu(np.zeros((GROUP_SIZE_M, N), x.dtype))
    _db = to_gpu(np.zeros((GROUP_SIZE_M, N), x.dtype))
    dw = to_gpu(np.full(N, np.nan, w.dtype))
    db = to_gpu(np.full(N, np.nan, w.dtype))
    dx = to_gpu(np.full_like(dy, np.nan))
    tk.layer_norm_bwd_dx_kernel[(M,)](dx, to_gpu(dy), _dw, _db, to_gpu(x), to_gpu(w), to_gpu(mean),
                                      to_gpu(rstd), locks, x.strides[0] // x.itemsize, N,
                                      BLOCK_SIZE_N=sw.next_power_of_2(N), GROUP_SIZE_M=GROUP_SIZE_M,
                                      num_warps=4)
    torch.cuda.synchronize()
    locks = locks.cpu().numpy()
    assert (locks[:GROUP_SIZE_M] == 0).all(), "a lock was left held"
    assert (locks[GROUP_SIZE_M:] == (np.arange(GROUP_SIZE_M) < M)).all()
    grid = lambda meta: (sw.cdiv(N, meta["BLOCK_SIZE_N"]),)  # noqa: E731
    tk.layer_norm_bwd_dwdb_kernel[grid](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N, BLOCK_SIZE_N=128)
    torch.cuda.synchronize()
    return to_numpy(dx, dy.dtype), to_numpy(dw, w.dtype), to_numpy(db, w.dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("M, N, G", [(21, 300, 4), (64, 1000, 8)])
def test_gpu_layer_norm_backward_locked(rng, dtype, M, N, G):
    # rows of one group take the lock in any order on the GPU; the bound on
    # dw/db is for any order of the group's additions
    x, w, dy, mean, rstd = ct.backward_inputs(rng, dtype, M, N)
    xhat, ref_dx, dx_scale = ct.layer_norm_backward_reference(x, w, dy, mean, rstd)
    results = {"reference executor": ct.layer_norm_backward_locked(
                   tk.layer_norm_bwd_dx_kernel, "semantic", x, w, dy, mean, rstd, G),
               "GPU": layer_norm_backward_locked_on_the_gpu(x, w, dy, mean, rstd, G)}
    for who, (dx, dw, db) in results.items():
        what = "layer norm backward, locked (%s, %d x %d, %s)" % (dtype, M, N, who)
        ct.check_dx(dx, ref_dx, dx_scale, dtype, rng.seed, what)
        ct.check_dwdb(dw, db, xhat, dy, sw.cdiv(M, G), dtype, rng.seed, what)


@pytest.mark.parametrize("dtype", ct.FLOATS)
def test_gpu_layer_norm_backward_row_blocks(rng, dtype):
    M, N, rows_per_program = 18, 257, 4
    x, w, dy, mean, rstd = ct.backward_inputs(rng, dtype, M, N)
    programs = sw.cdiv(M, rows_per_program)
    dx = np.full_like(dy, np.nan)
    _dw = np.full((programs, N), np.nan, np.float32)
    _db = np.full((programs, N), np.nan, np.float32)
    cpu, gpu = run_both(tk.layer_norm_bwd_rows_kernel, (programs,),
                        [x, w, mean, rstd, dx, _dw, _db, dy, x.strides[0] // x.itemsize, M, N],
                        rows_per_program=rows_per_program, BLOCK_SIZE=sw.next_power_of_2(N))
    xhat, ref_dx, dx_scale = ct.layer_norm_backward_reference(x, w, dy, mean, rstd)
    for got, who in ((cpu, "reference executor"), (gpu, "GPU")):
        what = "layer norm backward, row blocks (%s, %s)" % (dtype, who)
        ct.check_dx(got[4], ref_dx, dx_scale, dtype, rng.seed, what)
        ct.check_dwdb(got[5].astype(np.float64).sum(axis=0), got[6].astype(np.float64).sum(axis=0),
                      xhat, dy, 0, "float32", rng.seed, what)
