"""Scans and gathers of tiles of two and three dimensions (docs/language.md,
"Scans and reductions"): sl.cumsum, sl.cumprod and sl.associative_scan
along every axis (reverse too, tuples with a non-commutative combine
function, masked loads, several CTA sizes), sl.gather along every axis of
2-D and 3-D tiles, sl.argmax / sl.argmin / sl.reduce along each axis of a
3-D tile, on both CPU executors against NumPy; their PTX through ptxas;
and the compile errors of malformed uses at their line and column
(sl.histogram stays 1-D, as Triton's).

Integer results must equal NumPy's exactly on both executors. The float
inputs are small integers, so that every partial sum or product is exact
and float results must be equal too, whatever the order of combination.
"""

import os
import subprocess

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import expect_compile_error_at_marker

EXECUTORS = ("semantic", "simt")
HERE = os.path.abspath(__file__)
SHAPES_2D = [(4, 8), (16, 64), (64, 16), (1, 32), (32, 1), (2, 1024), (8, 4), (2, 2), (128, 8)]
SHAPES_3D = [(2, 4, 8), (4, 16, 16), (8, 2, 64), (1, 32, 2), (16, 1, 8)]
DTYPES = ("int32", "float32", "float16", "int64")


def launch(kernel, executor, constexprs, num_warps=None, **arguments):
    kernel.launch(arguments=arguments, constexprs=constexprs, grid=(1,), executor=executor,
                  num_warps=num_warps)


def small_values(rng, shape, dtype, prod=False):
    if prod:  # products stay exact: -1, 1 and a few 2s
        values = rng.choice(np.array([-1, 1, 1, 1, 2]), shape)
    else:
        values = rng.integers(-3, 4, shape)
    return values.astype(dtype)


def np_cum(x, axis, reverse, prod):
    f = np.cumprod if prod else np.cumsum
    with np.errstate(over="ignore"):
        if reverse:
            return np.flip(f(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
        return f(x, axis=axis, dtype=x.dtype)


# ---- cumsum and cumprod -----------------------------------------------------------------

@sw.jit
def cum_2d(x_ptr, y_ptr, M: sl.constexpr, N: sl.constexpr, AXIS: sl.constexpr, REVERSE: sl.constexpr,
           PROD: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + offs)
    if PROD:
        y = sl.cumprod(x, AXIS, reverse=REVERSE)
    else:
        y = x.cumsum(axis=AXIS, reverse=REVERSE)
    sl.static_assert(y.shape == (M, N))
    sl.store(y_ptr + offs, y)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", SHAPES_2D)
@pytest.mark.parametrize("axis", (0, 1, -1))
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_along_each_axis_of_a_2d_tile(executor, shape, axis, reverse, dtype, rng):
    x = small_values(rng, shape, dtype)
    y = np.zeros(shape, dtype)
    launch(cum_2d, executor, dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=False),
           x_ptr=x, y_ptr=y)
    np.testing.assert_array_equal(y, np_cum(x, axis, reverse, False))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16), (32, 1)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumprod_along_each_axis_of_a_2d_tile(executor, shape, axis, reverse, dtype, rng):
    x = small_values(rng, shape, dtype, prod=True)
    if dtype.startswith("int"):
        x = rng.integers(-50, 50, shape).astype(dtype)  # wraps as NumPy does
    y = np.zeros(shape, dtype)
    launch(cum_2d, executor, dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=True),
           x_ptr=x, y_ptr=y)
    np.testing.assert_array_equal(y, np_cum(x, axis, reverse, True))


@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16), (2, 1024), (256, 4), (4, 256)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("num_warps", (1, 2, 8, 32))
def test_cumsum_along_an_axis_over_any_cta_size(shape, axis, num_warps, rng):
    """Lines within one thread, within a warp, across warps, with more
    threads than elements."""
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    for reverse in (False, True):
        y = np.zeros(shape, np.int32)
        launch(cum_2d, "simt", dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=False),
               num_warps=num_warps, x_ptr=x, y_ptr=y)
        np.testing.assert_array_equal(y, np_cum(x, axis, reverse, False))


@sw.jit
def cum_3d(x_ptr, y_ptr, A: sl.constexpr, B: sl.constexpr, C: sl.constexpr, AXIS: sl.constexpr,
           REVERSE: sl.constexpr, PROD: sl.constexpr):
    a = sl.arange(0, A)[:, None, None]
    b = sl.arange(0, B)[None, :, None]
    c = sl.arange(0, C)[None, None, :]
    offs = a * (B * C) + b * C + c
    x = sl.load(x_ptr + offs)
    if PROD:
        y = x.cumprod(AXIS, REVERSE)
    else:
        y = sl.cumsum(x, AXIS, REVERSE)
    sl.store(y_ptr + offs, y)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", SHAPES_3D)
@pytest.mark.parametrize("axis", (0, 1, 2, -2))
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", ("int32", "float32", "int64"))
def test_cumsum_and_cumprod_along_each_axis_of_a_3d_tile(executor, shape, axis, reverse, dtype, rng):
    for prod in (False, True):
        x = small_values(rng, shape, dtype, prod)
        y = np.zeros(shape, dtype)
        launch(cum_3d, executor, dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis, REVERSE=reverse,
                                      PROD=prod), x_ptr=x, y_ptr=y)
        np.testing.assert_array_equal(y, np_cum(x, axis, reverse, prod))


@sw.jit
def cum_promote(x_ptr, y_ptr, z_ptr, M: sl.constexpr, N: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + offs)
    s = sl.cumsum(x, 1)
    sl.store(y_ptr + offs, s)
    c = sl.cumsum(x > 0, 0)
    sl.store(z_ptr + offs, c.to(sl.int32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_cumsum_along_an_axis_promotes_small_ints_as_sum(executor, rng):
    x = rng.integers(-128, 128, (8, 32)).astype(np.int8)
    y = np.zeros((8, 32), np.int32)
    z = np.zeros((8, 32), np.int32)
    launch(cum_promote, executor, dict(M=8, N=32), x_ptr=x, y_ptr=y, z_ptr=z)
    np.testing.assert_array_equal(y, np.cumsum(x.astype(np.int32), 1))
    np.testing.assert_array_equal(z, np.cumsum(x > 0, 0))


@sw.jit
def cum_masked(x_ptr, y_ptr, M, N, stride, BM: sl.constexpr, BN: sl.constexpr, AXIS: sl.constexpr):
    rows = sl.program_id(0) * BM + sl.arange(0, BM)
    cols = sl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    x = sl.load(x_ptr + offs, mask=mask, other=0.0)
    sl.store(y_ptr + offs, sl.cumsum(x, axis=AXIS), mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("bm,bn", [(4, 8), (16, 64), (64, 16)])
@pytest.mark.parametrize("axis", (0, 1))
def test_masked_cumsum_at_the_matrix_edge(executor, bm, bn, axis, rng):
    M, N = 3 * bm - 1, bn - 3
    x = rng.integers(-3, 4, (M, N)).astype(np.float32)
    y = np.full((M, N), 99.0, np.float32)
    kernel_grid = (3,)
    cum_masked.launch(arguments=dict(x_ptr=x, y_ptr=y, M=M, N=N, stride=N),
                      constexprs=dict(BM=bm, BN=bn, AXIS=axis), grid=kernel_grid, executor=executor)
    expected = np.concatenate([np.cumsum(x[i:i + bm], axis) for i in range(0, M, bm)])
    np.testing.assert_array_equal(y, expected)


# ---- associative_scan of tuples --------------------------------------------------------

@sw.jit
def max_with_index(v1, i1, v2, i2):
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return sl.where(take, v1, v2), sl.where(take, i1, i2)


@sw.jit
def affine(a1, b1, a2, b2):
    """Composition of x -> a x + b maps: not commutative."""
    return a1 * a2, b1 * a2 + b2


@sw.jit
def user_2d(x_ptr, a_ptr, b_ptr, v_ptr, i_ptr, M: sl.constexpr, N: sl.constexpr, AXIS: sl.constexpr,
            REVERSE: sl.constexpr):
    rows = sl.arange(0, M)[:, None]
    cols = sl.arange(0, N)[None, :]
    offs = rows * N + cols
    x = sl.load(x_ptr + offs)
    along = sl.broadcast_to(rows if AXIS == 0 else cols, (M, N))
    v, i = sl.associative_scan((x, along), AXIS, max_with_index, reverse=REVERSE)
    sl.store(v_ptr + offs, v)
    sl.store(i_ptr + offs, i)
    a = sl.load(a_ptr + offs)
    b = sl.load(b_ptr + offs)
    sa, sb = sl.associative_scan((a, b), AXIS, affine, REVERSE)
    sl.store(a_ptr + offs, sa)
    sl.store(b_ptr + offs, sb)


def seq_scan_line(items, fn, reverse):
    out = [None] * len(items)
    order = range(len(items) - 1, -1, -1) if reverse else range(len(items))
    acc = None
    for k in order:
        acc = items[k] if acc is None else fn(acc, items[k])
        out[k] = acc
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16), (1, 128), (128, 2)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("reverse", (False, True))
def test_associative_scan_of_tuples_along_an_axis(executor, shape, axis, reverse, rng):
    x = rng.integers(0, 6, shape).astype(np.int32)
    a = rng.choice(np.array([-1, 1], np.int64), shape)
    b = rng.integers(-3, 4, shape).astype(np.int64)
    a0, b0 = a.copy(), b.copy()
    v = np.zeros(shape, np.int32)
    i = np.zeros(shape, np.int32)
    launch(user_2d, executor, dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse), x_ptr=x,
           a_ptr=a, b_ptr=b, v_ptr=v, i_ptr=i)

    def pick(p, q):
        take = p[0] > q[0] or (p[0] == q[0] and p[1] < q[1])
        return p if take else q

    def comp(p, q):
        return (p[0] * q[0], p[1] * q[0] + q[1])

    lines = shape[1] if axis == 0 else shape[0]
    for line in range(lines):
        sel = (slice(None), line) if axis == 0 else (line, slice(None))
        n = shape[axis]
        got = seq_scan_line([(int(x[sel][k]), k) for k in range(n)], pick, reverse)
        assert [tuple(t) for t in zip(v[sel], i[sel])] == got
        got = seq_scan_line([(int(a0[sel][k]), int(b0[sel][k])) for k in range(n)], comp, reverse)
        assert [tuple(t) for t in zip(a[sel], b[sel])] == got


@sw.jit
def user_3d(a_ptr, b_ptr, A: sl.constexpr, B: sl.constexpr, C: sl.constexpr, AXIS: sl.constexpr,
            REVERSE: sl.constexpr):
    offs = sl.arange(0, A)[:, None, None] * (B * C) + sl.arange(0, B)[None, :, None] * C + \
        sl.arange(0, C)[None, None, :]
    a = sl.load(a_ptr + offs)
    b = sl.load(b_ptr + offs)
    sa, sb = sl.associative_scan((a, b), AXIS, affine, reverse=REVERSE)
    sl.store(a_ptr + offs, sa)
    sl.store(b_ptr + offs, sb)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
@pytest.mark.parametrize("reverse", (False, True))
def test_associative_scan_along_each_axis_of_a_3d_tile(executor, shape, axis, reverse, rng):
    a = rng.choice(np.array([-1, 1], np.int32), shape)
    b = rng.integers(-3, 4, shape).astype(np.int32)
    a0, b0 = a.copy(), b.copy()
    launch(user_3d, executor, dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis, REVERSE=reverse),
           a_ptr=a, b_ptr=b)
    # a's scan is a cumulative product; b's the affine composition along the axis
    np.testing.assert_array_equal(a, np_cum(a0, axis, reverse, True))
    am, bm = np.moveaxis(a0, axis, -1), np.moveaxis(b0, axis, -1)
    expected = np.zeros_like(bm)
    for idx in np.ndindex(bm.shape[:-1]):
        line = seq_scan_line(list(zip(am[idx].tolist(), bm[idx].tolist())),
                             lambda p, q: (p[0] * q[0], p[1] * q[0] + q[1]), reverse)
        expected[idx] = [t[1] for t in line]
    np.testing.assert_array_equal(b, np.moveaxis(expected, -1, axis))


# ---- gather --------------------------------------------------------------------------------

@sw.jit
def gather_2d(x_ptr, i_ptr, y_ptr, M: sl.constexpr, N: sl.constexpr, IM: sl.constexpr, IN: sl.constexpr,
              AXIS: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :])
    io = sl.arange(0, IM)[:, None] * IN + sl.arange(0, IN)[None, :]
    idx = sl.load(i_ptr + io)
    y = sl.gather(x, idx, AXIS)
    sl.static_assert(y.shape == (IM, IN))
    sl.store(y_ptr + io, y)
    sl.store(y_ptr + IM * IN + io, x.gather(idx, axis=AXIS) * 2)


GATHER_2D = [((4, 8), 0, 16), ((4, 8), 1, 2), ((16, 64), 1, 128), ((64, 16), 0, 8), ((64, 16), -1, 32),
             ((2, 1024), 0, 1), ((1, 32), 1, 4), ((32, 1), 1, 8), ((8, 8), 0, 8)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", GATHER_2D)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("idtype", ("int32", "int64"))
def test_gather_along_each_axis_of_a_2d_tile(executor, case, dtype, idtype, rng):
    (m, n), axis, other = case
    im, inn = (other, n) if axis == 0 else (m, other)
    x = rng.integers(-100, 100, (m, n)).astype(dtype)
    idx = rng.integers(0, x.shape[axis], (im, inn)).astype(idtype)
    y = np.zeros((2, im, inn), dtype)
    launch(gather_2d, executor, dict(M=m, N=n, IM=im, IN=inn, AXIS=axis), x_ptr=x, i_ptr=idx, y_ptr=y)
    expected = np.take_along_axis(x, idx, axis)
    np.testing.assert_array_equal(y[0], expected)
    np.testing.assert_array_equal(y[1], expected * 2)


@sw.jit
def gather_3d(x_ptr, i_ptr, y_ptr, A: sl.constexpr, B: sl.constexpr, C: sl.constexpr, IA: sl.constexpr,
              IB: sl.constexpr, IC: sl.constexpr, AXIS: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, A)[:, None, None] * (B * C) + sl.arange(0, B)[None, :, None] * C +
                sl.arange(0, C)[None, None, :])
    io = sl.arange(0, IA)[:, None, None] * (IB * IC) + sl.arange(0, IB)[None, :, None] * IC + \
        sl.arange(0, IC)[None, None, :]
    sl.store(y_ptr + io, sl.gather(x, sl.load(i_ptr + io), AXIS))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
@pytest.mark.parametrize("size", (1, 4, 32))
def test_gather_along_each_axis_of_a_3d_tile(executor, shape, axis, size, rng):
    ishape = tuple(size if d == axis else s for d, s in enumerate(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(0, shape[axis], ishape).astype(np.int32)
    y = np.zeros(ishape, np.float32)
    launch(gather_3d, executor, dict(A=shape[0], B=shape[1], C=shape[2], IA=ishape[0], IB=ishape[1],
                                     IC=ishape[2], AXIS=axis), x_ptr=x, i_ptr=idx, y_ptr=y)
    np.testing.assert_array_equal(y, np.take_along_axis(x, idx, axis))


def test_gather_out_of_range_along_an_axis():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    idx = np.zeros((4, 8), np.int32)
    idx[2, 3] = 4  # the source has 4 rows
    y = np.zeros((2, 4, 8), np.float32)
    with pytest.raises(Exception, match="sl.gather index out of range.*along the axis"):
        launch(gather_2d, "semantic", dict(M=4, N=8, IM=4, IN=8, AXIS=0), x_ptr=x, i_ptr=idx, y_ptr=y)
    launch(gather_2d, "simt", dict(M=4, N=8, IM=4, IN=8, AXIS=0), x_ptr=x, i_ptr=idx, y_ptr=y)
    expected = x[0][None, :].repeat(4, 0)
    expected[2, 3] = 0  # the SIMT form reads 0
    np.testing.assert_array_equal(y[0], expected)


# ---- argmax, argmin and reduce along an axis of a 3-D tile ----------------------------------

@sw.jit
def pick_later(a, b):
    return sl.where(b != 0, b, a)


@sw.jit
def reduce_fn_3d(x_ptr, amax_ptr, amin_ptr, last_ptr, A: sl.constexpr, B: sl.constexpr, C: sl.constexpr,
                 AXIS: sl.constexpr):
    offs = sl.arange(0, A)[:, None, None] * (B * C) + sl.arange(0, B)[None, :, None] * C + \
        sl.arange(0, C)[None, None, :]
    x = sl.load(x_ptr + offs)
    am = sl.argmax(x, axis=AXIS, keep_dims=True)
    n = A * B * C // (A if AXIS == 0 else B if AXIS == 1 else C)
    out = sl.arange(0, n)
    sl.store(amax_ptr + out, sl.reshape(am, (n,)))
    sl.store(amin_ptr + out, sl.reshape(sl.argmin(x, AXIS, tie_break_left=False), (n,)))
    sl.store(last_ptr + out, sl.reshape(sl.reduce(x, AXIS, pick_later), (n,)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
def test_argmax_argmin_and_reduce_along_each_axis_of_a_3d_tile(executor, shape, axis, rng):
    x = rng.integers(-3, 4, shape).astype(np.int32)
    n = x.size // shape[axis]
    outs = {k: np.zeros(n, np.int32) for k in ("amax_ptr", "amin_ptr", "last_ptr")}
    launch(reduce_fn_3d, executor, dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis), x_ptr=x, **outs)
    np.testing.assert_array_equal(outs["amax_ptr"], x.argmax(axis).ravel())
    last_min = shape[axis] - 1 - np.flip(x, axis).argmin(axis)
    np.testing.assert_array_equal(outs["amin_ptr"], last_min.ravel())
    moved = np.moveaxis(x, axis, -1).reshape(n, shape[axis])
    expected = [next((v for v in reversed(line) if v != 0), line[0]) for line in moved]
    np.testing.assert_array_equal(outs["last_ptr"], expected)


# ---- PTX -------------------------------------------------------------------------------------

def ptxas():
    for path in (os.environ.get("SWAGE_PTXAS"), "/usr/local/cuda/bin/ptxas"):
        if path and path != "none" and os.access(path, os.X_OK):
            return path
    return None


PTX_CASES = [
    (cum_2d, {"x_ptr": "*f32", "y_ptr": "*f32"}, dict(M=16, N=64, AXIS=0, REVERSE=True, PROD=False), None),
    (cum_2d, {"x_ptr": "*f16", "y_ptr": "*f16"}, dict(M=64, N=16, AXIS=1, REVERSE=False, PROD=True), None),
    (cum_2d, {"x_ptr": "*i64", "y_ptr": "*i64"}, dict(M=2, N=1024, AXIS=1, REVERSE=True, PROD=False), 8),
    (cum_2d, {"x_ptr": "*i32", "y_ptr": "*i32"}, dict(M=256, N=4, AXIS=0, REVERSE=False, PROD=False), 1),
    (cum_3d, {"x_ptr": "*i32", "y_ptr": "*i32"}, dict(A=4, B=16, C=16, AXIS=1, REVERSE=True, PROD=False),
     None),
    (user_2d, {"x_ptr": "*i32", "a_ptr": "*i64", "b_ptr": "*i64", "v_ptr": "*i32", "i_ptr": "*i32"},
     dict(M=16, N=64, AXIS=0, REVERSE=False), None),
    (gather_2d, {"x_ptr": "*f32", "i_ptr": "*i64", "y_ptr": "*f32"}, dict(M=16, N=64, IM=16, IN=128, AXIS=1),
     None),
    (gather_3d, {"x_ptr": "*f16", "i_ptr": "*i32", "y_ptr": "*f16"},
     dict(A=4, B=16, C=16, IA=4, IB=4, IC=16, AXIS=1), None),
    (reduce_fn_3d, {"x_ptr": "*i32", "amax_ptr": "*i32", "amin_ptr": "*i32", "last_ptr": "*i32"},
     dict(A=4, B=16, C=16, AXIS=2), None),
]


@pytest.mark.parametrize("case", range(len(PTX_CASES)))
def test_2d_scans_and_gathers_assemble_with_ptxas(case, tmp_path):
    kernel, signature, constexprs, num_warps = PTX_CASES[case]
    tool = ptxas()
    if tool is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found, and SWAGE_REQUIRE_PTXAS=1")
        pytest.skip("ptxas not found")
    for sm in (90, 80):
        path = tmp_path / ("k%d.ptx" % sm)
        text = kernel.emit_ptx(signature=signature, constexprs=constexprs, sm=sm, num_warps=num_warps)
        path.write_text(text)
        result = subprocess.run([tool, "-arch=sm_%d" % sm, str(path), "-o", os.devnull],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[:2000]


# ---- errors ----------------------------------------------------------------------------------

@sw.jit
def err_cumsum_axis(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.cumsum(a, axis=2)  # error at col 27: axis 2, out of range, 2 dimensions
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_cumprod_axis_3d(x_ptr):
    a = sl.zeros((2, 4, 8), sl.float32)
    b = a.cumprod(-4)  # error at col 19: axis -4, out of range, 3 dimensions
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_scan_axis_none(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.cumsum(a, None)  # error at col 22: axis, integer, None
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_scan_axis_runtime(x_ptr, k):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.associative_scan(a, k, affine_one)  # error at col 32: axis
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def affine_one(a, b):
    return a + b


@sw.jit
def err_scan_tuple_shapes(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.zeros((8, 4), sl.float32)
    c, d = sl.associative_scan((a, b), 0, affine)  # error at col 32: different shapes, (4, 8), (8, 4)
    sl.store(x_ptr, sl.sum(c + d))


@sw.jit
def err_gather_rank(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.gather(a, sl.arange(0, 8), 0)  # error at col 22: same number of dimensions, (4, 8), (8,)
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_gather_dims(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    i = sl.zeros((4, 4), sl.int32)
    b = sl.gather(a, i, 0)  # error at col 22: match the source, dimension 1, (4, 4), (4, 8)
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_gather_axis(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    i = sl.zeros((4, 8), sl.int32)
    b = sl.gather(a, i, -3)  # error at col 25: axis -3, out of range
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_gather_float_index(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = a.gather(a, 1)  # error at col 18: index, integers, float32
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_histogram_2d(x_ptr):
    a = sl.zeros((4, 8), sl.int32)
    h = sl.histogram(a, 8)  # error at col 22: 1-D, Triton, reshape
    sl.store(x_ptr + sl.arange(0, 8), h.to(sl.float32))


@pytest.mark.parametrize("kernel", [err_cumsum_axis, err_cumprod_axis_3d, err_scan_axis_none,
                                    err_scan_axis_runtime, err_scan_tuple_shapes, err_gather_rank,
                                    err_gather_dims, err_gather_axis, err_gather_float_index,
                                    err_histogram_2d])
def test_malformed_scans_and_gathers_are_compile_errors_at_the_culprit(kernel):
    signature = {"x_ptr": "*f32", "k": "i32"} if kernel is err_scan_axis_runtime else {"x_ptr": "*f32"}
    expect_compile_error_at_marker(kernel, HERE, signature)
