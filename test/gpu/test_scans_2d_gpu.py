"""Scans and gathers of tiles of two and three dimensions on the GPU
(test/python/test_scans_2d.py), against the reference executor and NumPy
on the same inputs: sl.cumsum / sl.cumprod along every axis (reverse too,
lines within a thread, a warp, across warps, several CTA sizes, masked
edges), sl.associative_scan of tuples with a non-commutative combine
function, sl.gather along every axis of 2-D and 3-D tiles (its out-of-range
index gives 0 on the GPU), and sl.argmax / sl.argmin / sl.reduce along each
axis of a 3-D tile. The float inputs are small integers, so every result
must be equal bit for bit."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import gpu_pairs  # noqa: E402  (test/gpu)

import test_scans_2d as ts  # noqa: E402  (test/python)


def run_both(kernel, arrays, constexprs, grid=(1,), scalars=None, num_warps=None):
    """gpu_pairs.run_both with the constexprs before the grid."""
    return gpu_pairs.run_both(kernel, arrays, scalars, constexprs, grid, num_warps)


def same(cpu, gpu):
    for name in cpu:
        assert np.array_equal(gpu[name], cpu[name]), name


@pytest.mark.parametrize("shape", ts.SHAPES_2D)
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", ts.DTYPES)
def test_gpu_cumsum_along_each_axis(rng, shape, axis, reverse, dtype):
    x = ts.small_values(rng, shape, dtype)
    cpu, gpu = run_both(ts.cum_2d, {"x_ptr": x, "y_ptr": np.zeros(shape, dtype)},
                        dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=False))
    same(cpu, gpu)
    np.testing.assert_array_equal(gpu["y_ptr"], ts.np_cum(x, axis, reverse, False))


@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("dtype", ts.DTYPES)
def test_gpu_cumprod_along_each_axis(rng, shape, axis, dtype):
    x = ts.small_values(rng, shape, dtype, prod=True)
    for reverse in (False, True):
        cpu, gpu = run_both(ts.cum_2d, {"x_ptr": x, "y_ptr": np.zeros(shape, dtype)},
                            dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=True))
        same(cpu, gpu)


@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16), (2, 1024), (256, 4), (4, 256)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("num_warps", (1, 2, 8, 32))
def test_gpu_cumsum_along_an_axis_over_any_cta_size(rng, shape, axis, num_warps):
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    for reverse in (False, True):
        _, gpu = run_both(ts.cum_2d, {"x_ptr": x, "y_ptr": np.zeros(shape, np.int32)},
                          dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse, PROD=False),
                          num_warps=num_warps)
        np.testing.assert_array_equal(gpu["y_ptr"], ts.np_cum(x, axis, reverse, False))


@pytest.mark.parametrize("shape", ts.SHAPES_3D)
@pytest.mark.parametrize("axis", (0, 1, 2))
@pytest.mark.parametrize("dtype", ("int32", "float32", "int64"))
def test_gpu_cumsum_and_cumprod_of_3d_tiles(rng, shape, axis, dtype):
    for prod in (False, True):
        for reverse in (False, True):
            x = ts.small_values(rng, shape, dtype, prod)
            cpu, gpu = run_both(ts.cum_3d, {"x_ptr": x, "y_ptr": np.zeros(shape, dtype)},
                                dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis, REVERSE=reverse,
                                     PROD=prod))
            same(cpu, gpu)


@pytest.mark.parametrize("bm,bn", [(4, 8), (16, 64), (64, 16)])
@pytest.mark.parametrize("axis", (0, 1))
def test_gpu_masked_cumsum_at_the_matrix_edge(rng, bm, bn, axis):
    M, N = 3 * bm - 1, bn - 3
    x = rng.integers(-3, 4, (M, N)).astype(np.float32)
    cpu, gpu = run_both(ts.cum_masked, {"x_ptr": x, "y_ptr": np.full((M, N), 99.0, np.float32)},
                        dict(BM=bm, BN=bn, AXIS=axis), grid=(3,), scalars=dict(M=M, N=N, stride=N))
    same(cpu, gpu)


@pytest.mark.parametrize("shape", [(4, 8), (16, 64), (64, 16), (1, 128), (128, 2)])
@pytest.mark.parametrize("axis", (0, 1))
@pytest.mark.parametrize("reverse", (False, True))
def test_gpu_associative_scan_of_tuples_along_an_axis(rng, shape, axis, reverse):
    arrays = {"x_ptr": rng.integers(0, 6, shape).astype(np.int32),
              "a_ptr": rng.choice(np.array([-1, 1], np.int64), shape),
              "b_ptr": rng.integers(-3, 4, shape).astype(np.int64),
              "v_ptr": np.zeros(shape, np.int32), "i_ptr": np.zeros(shape, np.int32)}
    cpu, gpu = run_both(ts.user_2d, arrays, dict(M=shape[0], N=shape[1], AXIS=axis, REVERSE=reverse))
    same(cpu, gpu)


@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
def test_gpu_associative_scan_of_3d_tiles(rng, shape, axis):
    for reverse in (False, True):
        arrays = {"a_ptr": rng.choice(np.array([-1, 1], np.int32), shape),
                  "b_ptr": rng.integers(-3, 4, shape).astype(np.int32)}
        cpu, gpu = run_both(ts.user_3d, arrays, dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis,
                                                     REVERSE=reverse))
        same(cpu, gpu)


@pytest.mark.parametrize("case", ts.GATHER_2D)
@pytest.mark.parametrize("dtype", ts.DTYPES)
@pytest.mark.parametrize("idtype", ("int32", "int64"))
def test_gpu_gather_along_each_axis_of_a_2d_tile(rng, case, dtype, idtype):
    (m, n), axis, other = case
    im, inn = (other, n) if axis == 0 else (m, other)
    x = rng.integers(-100, 100, (m, n)).astype(dtype)
    idx = rng.integers(0, x.shape[axis], (im, inn)).astype(idtype)
    cpu, gpu = run_both(ts.gather_2d, {"x_ptr": x, "i_ptr": idx, "y_ptr": np.zeros((2, im, inn), dtype)},
                        dict(M=m, N=n, IM=im, IN=inn, AXIS=axis))
    same(cpu, gpu)
    np.testing.assert_array_equal(gpu["y_ptr"][0], np.take_along_axis(x, idx, axis))


@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
@pytest.mark.parametrize("size", (1, 4, 32))
def test_gpu_gather_along_each_axis_of_a_3d_tile(rng, shape, axis, size):
    ishape = tuple(size if d == axis else s for d, s in enumerate(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(0, shape[axis], ishape).astype(np.int32)
    cpu, gpu = run_both(ts.gather_3d, {"x_ptr": x, "i_ptr": idx, "y_ptr": np.zeros(ishape, np.float32)},
                        dict(A=shape[0], B=shape[1], C=shape[2], IA=ishape[0], IB=ishape[1], IC=ishape[2],
                             AXIS=axis))
    same(cpu, gpu)


def test_gpu_gather_out_of_range_along_an_axis_gives_zero():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    idx = np.zeros((4, 8), np.int32)
    idx[2, 3] = 4
    gpu = {"x_ptr": torch.from_numpy(x).cuda(), "i_ptr": torch.from_numpy(idx).cuda(),
           "y_ptr": torch.zeros((2, 4, 8), dtype=torch.float32, device="cuda")}
    ts.gather_2d.launch(arguments=gpu, constexprs=dict(M=4, N=8, IM=4, IN=8, AXIS=0), grid=(1,))
    torch.cuda.synchronize()
    expected = x[0][None, :].repeat(4, 0)
    expected[2, 3] = 0
    np.testing.assert_array_equal(gpu["y_ptr"].cpu().numpy()[0], expected)


@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
@pytest.mark.parametrize("axis", (0, 1, 2))
def test_gpu_argmax_argmin_and_reduce_of_3d_tiles(rng, shape, axis):
    n = int(np.prod(shape)) // shape[axis]
    arrays = {"x_ptr": rng.integers(-3, 4, shape).astype(np.int32),
              "amax_ptr": np.zeros(n, np.int32), "amin_ptr": np.zeros(n, np.int32),
              "last_ptr": np.zeros(n, np.int32)}
    cpu, gpu = run_both(ts.reduce_fn_3d, arrays, dict(A=shape[0], B=shape[1], C=shape[2], AXIS=axis))
    same(cpu, gpu)
