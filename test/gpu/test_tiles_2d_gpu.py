"""Tiles of two and three dimensions on the GPU (test/python/test_tiles_2d.py),
against the reference executor on the same inputs: masked 2-D loads and
stores at the matrix edge, strided copies, outer broadcasts of loaded
vectors, reductions along each axis (register, shuffle and shared-memory
steps of docs/simt.md), keep_dims softmax, 3-D reductions, reshape /
trans / permute / broadcast_to, join / split / interleave / cat, and
atomics on 2-D pointer tiles. Integer results must be equal; float
reductions within float32 reassociation; what join, split, interleave and
cat move must be bit for bit the reference's and NumPy's."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

from gpu_pairs import run_both  # noqa: E402  (test/gpu)

import test_tiles_2d as t2  # noqa: E402  (test/python)


def same(cpu, gpu, rtol=0.0, atol=0.0):
    for name in cpu:
        if rtol or atol:
            np.testing.assert_allclose(gpu[name], cpu[name], rtol=rtol, atol=atol, err_msg=name)
        else:
            assert np.array_equal(gpu[name], cpu[name], equal_nan=cpu[name].dtype.kind == "f"), name


@pytest.mark.parametrize("bm,bn", t2.SHAPES)
def test_gpu_masked_2d_add(rng, bm, bn):
    M, N = 3 * bm - 1 if bm > 1 else 3, 2 * bn - 1 if bn > 1 else 2
    arrays = {"x_ptr": rng.standard_normal((M, N)).astype(np.float32),
              "y_ptr": rng.standard_normal((M, N)).astype(np.float32),
              "out_ptr": np.full((M, N), 7.0, np.float32)}
    cpu, gpu = run_both(t2.add_2d, arrays, {"M": M, "N": N, "stride": N}, {"BM": bm, "BN": bn}, (3, 2))
    same(cpu, gpu)


@pytest.mark.parametrize("dtype", ["int8", "int32", "float16", "float64"])
def test_gpu_strided_copy(rng, dtype):
    base = rng.integers(-100, 100, (20, 13)).astype(dtype)
    cpu, gpu = run_both(t2.copy_strided, {"x_ptr": base, "out_ptr": np.zeros((13, 20), dtype)},
                        {"M": 13, "N": 20, "sxm": 1, "sxn": 13, "som": 20}, {"BM": 8, "BN": 32}, (2,))
    same(cpu, gpu)


@pytest.mark.parametrize("m,n", [(8, 16), (64, 64), (1, 64)])
def test_gpu_outer_broadcasts(rng, m, n):
    arrays = {"a_ptr": rng.standard_normal(m).astype(np.float32),
              "b_ptr": rng.standard_normal(n).astype(np.float32), "out_ptr": np.zeros((m, n), np.float32)}
    cpu, gpu = run_both(t2.outer_ops, arrays, {}, {"M": m, "N": n}, (1,))
    same(cpu, gpu, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bm,bn", t2.REDUCE_SHAPES)
@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_gpu_reductions_along_each_axis(rng, bm, bn, kind):
    M, N = max(1, bm - 1), max(1, bn - 1)
    if kind == 3:
        x = rng.uniform(0.9, 1.1, (M, N)).astype(np.float32)
    else:
        x = (rng.standard_normal((M, N)) * 10).astype(np.float32)
    arrays = {"x_ptr": x, "rows_ptr": np.zeros(M, np.float32), "cols_ptr": np.zeros(N, np.float32),
              "all_ptr": np.zeros(1, np.float32)}
    cpu, gpu = run_both(t2.reduce_2d, arrays, {"M": M, "N": N}, {"BM": bm, "BN": bn, "KIND": kind}, (1,))
    same(cpu, gpu, rtol=1e-4, atol=1e-3)
    xi = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
    arrays = {"x_ptr": xi, "rows_ptr": np.zeros(M, np.int32), "cols_ptr": np.zeros(N, np.int32),
              "all_ptr": np.zeros(1, np.int32)}
    cpu, gpu = run_both(t2.reduce_2d, arrays, {"M": M, "N": N}, {"BM": bm, "BN": bn, "KIND": kind}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("m,n", [(4, 64), (32, 32), (128, 8), (16, 256)])
def test_gpu_row_softmax(rng, m, n):
    arrays = {"x_ptr": rng.standard_normal((m, n)).astype(np.float32), "out_ptr": np.zeros((m, n), np.float32)}
    cpu, gpu = run_both(t2.reduce_keep_dims, arrays, {}, {"M": m, "N": n}, (1,))
    same(cpu, gpu, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "int64", "float64"])
def test_gpu_reductions_of_narrow_and_wide_dtypes(rng, dtype):
    x = rng.integers(0, 40, (16, 64)).astype(dtype)
    arrays = {"x_ptr": x, "rows_ptr": np.zeros(16, dtype), "cols_ptr": np.zeros(64, dtype)}
    cpu, gpu = run_both(t2.reduce_small_dtypes, arrays, {}, {"M": 16, "N": 64}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64)])
def test_gpu_three_dimensional_tiles(rng, shape):
    A, B, C = shape
    arrays = {"x_ptr": rng.integers(-50, 50, shape).astype(np.int32),
              "out0_ptr": np.zeros((B, C), np.int32), "out1_ptr": np.zeros((A, C), np.int32),
              "out2_ptr": np.zeros((A, B), np.int32)}
    cpu, gpu = run_both(t2.reduce_3d, arrays, {}, {"A": A, "B": B, "C": C}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("m,n", [(4, 8), (16, 64), (64, 2), (1, 128)])
@pytest.mark.parametrize("axis", [0, 1])
def test_gpu_argmax_and_reduce_along_an_axis(rng, m, n, axis):
    k = n if axis == 0 else m
    arrays = {"x_ptr": rng.integers(-3, 4, (m, n)).astype(np.int32), "flat_ptr": np.zeros(1, np.int32)}
    arrays.update({name: np.zeros(k, np.int32) for name in ("amax_ptr", "amin_ptr", "last_ptr", "mx_ptr",
                                                             "cnt_ptr")})
    cpu, gpu = run_both(t2.reduce_fn_2d, arrays, {}, {"M": m, "N": n, "AXIS": axis}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("m,n", [(4, 8), (32, 32), (2, 64)])
def test_gpu_shape_builtins(m, n):
    arrays = {"x_ptr": np.arange(m * n, dtype=np.int32) * 3 - 7, "t_ptr": np.zeros((n, m), np.int32),
              "p_ptr": np.zeros((n, m), np.int32), "r_ptr": np.zeros(m * n, np.int32),
              "b_ptr": np.zeros((m, n), np.int32)}
    cpu, gpu = run_both(t2.shape_builtins, arrays, {}, {"M": m, "N": n}, (1,))
    same(cpu, gpu)


def test_gpu_atomics_on_2d_tiles():
    cpu, gpu = run_both(t2.atomic_2d, {"bins_ptr": np.zeros(32, np.int32)}, {}, {"M": 8, "N": 16}, (3,))
    # each column's old values are 0 .. 23 in some order, so their max is 23 in any order
    same(cpu, gpu)


@pytest.mark.parametrize("r,d", [(8, 16), (64, 4), (4, 256)])
def test_gpu_pointer_tile_of_loaded_rows(rng, r, d):
    arrays = {"table_ptr": rng.standard_normal((50, d)).astype(np.float32),
              "idx_ptr": rng.integers(0, 50, r).astype(np.int32), "out_ptr": np.zeros((r, d), np.float32)}
    cpu, gpu = run_both(t2.gather_rows, arrays, {}, {"D": d, "R": r}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("M,N,K", [(33, 20, 19), (128, 96, 64)])
def test_gpu_tutorial_matmul_with_a_broadcast_product(rng, M, N, K):
    args = t2.matmul_args(rng, M, N, K)
    arrays = {k: v for k, v in args.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in args.items() if not isinstance(v, np.ndarray)}
    grid = (-(-M // 16) * -(-N // 16),)
    cpu, gpu = run_both(t2.matmul_kernel, arrays, scalars, t2.MATMUL_BLOCKS, grid)
    same(cpu, gpu, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("bm,bn", [(16, 32), (4, 256), (2, 1024), (64, 8), (1, 128)])
def test_gpu_masked_row_softmax(rng, bm, bn):
    M, N = 2 * bm + 1, bn - 3
    arrays = {"x_ptr": rng.standard_normal((M, N)).astype(np.float32), "y_ptr": np.zeros((M, N), np.float32)}
    cpu, gpu = run_both(t2.softmax_rows, arrays, {"M": M, "N": N}, {"BM": bm, "BN": bn}, (3,))
    same(cpu, gpu, rtol=1e-5, atol=1e-6)


# ---- join, split, interleave, cat --------------------------------------------------------

GPU_JOIN_DTYPES = ["bool", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                   "float64"]


def same_bits(cpu, gpu, expected=None):
    for name in cpu:
        assert np.array_equal(t2.bits(gpu[name]) if gpu[name].dtype.kind == "f" else gpu[name],
                              t2.bits(cpu[name]) if cpu[name].dtype.kind == "f" else cpu[name]), name
    if expected:
        t2.assert_same_bits(gpu, expected, "GPU against NumPy")


@pytest.mark.parametrize("dtype", GPU_JOIN_DTYPES)
@pytest.mark.parametrize("n", [1, 32, 256, 2048])
def test_gpu_join_split_interleave_cat(rng, dtype, n):
    # bfloat16 travels as int16 (PyTorch before 2.3 has no uint16 tensors)
    arrays, constexprs, expected = t2.join_1d_case(rng, dtype, n, bf16_as=np.int16)
    cpu, gpu = run_both(t2.join_1d, arrays, {}, constexprs, (1,))
    same_bits(cpu, gpu, expected)


@pytest.mark.parametrize("n", [2, 1024])
@pytest.mark.parametrize("num_warps", [1, 8])
def test_gpu_join_split_with_num_warps(rng, n, num_warps):
    arrays, constexprs, expected = t2.join_1d_case(rng, "float32", n)
    gpu = {k: torch.from_numpy(v.copy()).cuda() for k, v in arrays.items()}
    t2.join_1d.launch(arguments=gpu, constexprs=constexprs, grid=(1,), num_warps=num_warps)
    torch.cuda.synchronize()
    t2.assert_same_bits({k: v.cpu().numpy() for k, v in gpu.items()}, expected, "GPU against NumPy")


@pytest.mark.parametrize("m,n", [(1, 1), (2, 4), (4, 32), (16, 16), (8, 128), (64, 2)])
def test_gpu_join_split_interleave_of_2d_tiles(rng, m, n):
    arrays = {"x_ptr": rng.integers(-1000, 1000, (m, n)).astype(np.int32),
              "row_ptr": rng.integers(-1000, 1000, n).astype(np.int32), "s_ptr": np.array([77], np.int32),
              "q_ptr": rng.integers(-1000, 1000, (m, n, 2)).astype(np.int32),
              "j_ptr": np.zeros((m, n, 2), np.int32), "i_ptr": np.zeros((m, 2 * n), np.int32),
              "js_ptr": np.zeros((m, n, 2), np.int32), "a_ptr": np.zeros((m, n), np.int32),
              "b_ptr": np.zeros((m, n), np.int32)}
    cpu, gpu = run_both(t2.join_2d, arrays, {}, {"M": m, "N": n}, (1,))
    same(cpu, gpu)
    rows = np.broadcast_to(arrays["row_ptr"], (m, n))
    assert np.array_equal(gpu["j_ptr"], np.stack([arrays["x_ptr"], rows], axis=-1))
    assert np.array_equal(gpu["a_ptr"], arrays["q_ptr"][..., 0])
    assert np.array_equal(gpu["b_ptr"], arrays["q_ptr"][..., 1])


@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 1, 16), (8, 16, 4)])
def test_gpu_interleave_of_3d_tiles(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    arrays = {"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(shape[:2] + (2 * shape[2],), np.float32)}
    cpu, gpu = run_both(t2.interleave_3d, arrays, {}, dict(zip("ABC", shape)), (1,))
    same(cpu, gpu)
    assert np.array_equal(gpu["out_ptr"], np.stack([x, y], axis=-1).reshape(arrays["out_ptr"].shape))


def test_gpu_join_split_and_interleave_of_scalars():
    arrays = {"x_ptr": np.array([42, 7], np.int32), "y_ptr": np.array([100], np.int32),
              "j_ptr": np.zeros(2, np.int32), "i_ptr": np.zeros(2, np.float32),
              "a_ptr": np.zeros(1, np.int32), "b_ptr": np.zeros(1, np.int32)}
    cpu, gpu = run_both(t2.join_scalars, arrays, {"s": 10, "t": 20}, {}, (1,))
    same(cpu, gpu)
    assert list(gpu["j_ptr"]) == [42, 100] and list(gpu["i_ptr"]) == [10.0, 20.0]
    assert (gpu["a_ptr"][0], gpu["b_ptr"][0]) == (42, 7)


@pytest.mark.parametrize("n", [4, 128])
def test_gpu_join_and_split_of_pointer_tiles(n):
    arrays = {"x_ptr": np.arange(2 * n, dtype=np.float32) * 0.5, "y_ptr": -np.arange(n, dtype=np.float32),
              "j_ptr": np.zeros((n, 2), np.float32), "c_ptr": np.zeros(2 * n, np.float32),
              "a_ptr": np.zeros(n, np.float32), "b_ptr": np.zeros(n, np.float32)}
    cpu, gpu = run_both(t2.join_pointers, arrays, {}, {"N": n}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("n", [2, 64, 512])
def test_gpu_join_and_split_of_int1_tiles(rng, n):
    arrays = {"x_ptr": rng.integers(-5, 6, n).astype(np.int32), "out_ptr": np.zeros(2 * n, np.int8),
              "lo_ptr": np.zeros(n // 2, np.bool_), "hi_ptr": np.zeros(n // 2, np.bool_)}
    cpu, gpu = run_both(t2.join_masks, arrays, {}, {"N": n}, (1,))
    same(cpu, gpu)


def test_gpu_split_and_join_carried_by_a_loop(rng):
    arrays = {"x_ptr": rng.integers(-3, 4, (64, 2)).astype(np.int64), "out_ptr": np.zeros(128, np.int64)}
    cpu, gpu = run_both(t2.split_in_a_loop, arrays, {"steps": 3}, {"N": 64}, (1,))
    same(cpu, gpu)


def test_gpu_interleave_of_aranges():
    cpu, gpu = run_both(t2.interleave_aranges, {"out_ptr": np.zeros(256, np.int32)}, {}, {"N": 128}, (1,))
    same(cpu, gpu)
    assert np.array_equal(gpu["out_ptr"], np.stack([np.arange(128), np.arange(128, 256)], axis=-1).reshape(-1))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "float16", "float64"])
def test_gpu_split_of_a_pair_gives_scalars_with_their_bits(dtype):
    x = np.array([-0.0, 2.5] if dtype.startswith("float") else [1, 0], dtype)
    arrays = {"x_ptr": x, "a_ptr": np.ones(1, dtype), "b_ptr": np.ones(1, dtype)}
    cpu, gpu = run_both(t2.split_pair, arrays, {}, {}, (1,))
    assert gpu["a_ptr"].tobytes() == x[:1].tobytes() and gpu["b_ptr"].tobytes() == x[1:].tobytes()
