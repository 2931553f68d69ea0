"""Tiles of two and three dimensions (docs/language.md, "Shapes and
broadcasting"): x[:, None] / x[None, :], Triton's broadcasting, 2-D
sl.zeros / sl.full, loads and stores of 2-D pointer tiles with 2-D masks,
reductions along an axis, sl.broadcast_to / expand_dims / reshape / trans /
permute, sl.join / split / interleave / cat, on the reference executor and
the SIMT executor against NumPy, and their PTX through ptxas; and the
compile errors of malformed shapes."""

import os
import subprocess

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage_testing import expect_compile_error_at_marker

EXECUTORS = ["semantic", "simt"]
HERE = os.path.abspath(__file__)


def run(kernel, executor, args, constexprs, grid=(1,)):
    kernel.launch(arguments=args, constexprs=constexprs, grid=grid, executor=executor)


# ---- elementwise, loads and stores -----------------------------------------------------

@sw.jit
def add_2d(x_ptr, y_ptr, out_ptr, M, N, stride, BM: sl.constexpr, BN: sl.constexpr):
    offs_m = sl.program_id(0) * BM + sl.arange(0, BM)
    offs_n = sl.program_id(1) * BN + sl.arange(0, BN)
    offs = offs_m[:, None] * stride + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = sl.load(x_ptr + offs, mask=mask, other=0.0)
    y = sl.load(y_ptr + offs, mask=mask, other=0.0)
    sl.store(out_ptr + offs, x + y * 2, mask=mask)


SHAPES = [(1, 32), (4, 8), (16, 32), (8, 128), (64, 64), (2, 1024), (128, 1), (32, 4)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("bm,bn", SHAPES)
def test_masked_2d_add_at_the_matrix_edge(executor, bm, bn):
    rng = np.random.default_rng(bm * 1000 + bn)
    M, N = 3 * bm - 1 if bm > 1 else 3, 2 * bn - 1 if bn > 1 else 2
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = rng.standard_normal((M, N)).astype(np.float32)
    out = np.full((M, N), 7.0, np.float32)
    run(add_2d, executor, dict(x_ptr=x, y_ptr=y, out_ptr=out, M=M, N=N, stride=N),
        dict(BM=bm, BN=bn), grid=(3, 2))
    np.testing.assert_array_equal(out, x + y * np.float32(2))


@sw.jit
def copy_strided(x_ptr, out_ptr, M, N, sxm, sxn, som, BM: sl.constexpr, BN: sl.constexpr):
    rows = sl.program_id(0) * BM + sl.arange(0, BM)
    cols = sl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = sl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=-1)
    sl.store(out_ptr + rows[:, None] * som + cols[None, :], x, mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float16", "float64"])
def test_strided_2d_copy_of_a_transposed_view(executor, dtype):
    rng = np.random.default_rng(5)
    base = rng.integers(-100, 100, (20, 13)).astype(dtype)
    view = base.T  # 13 x 20, strides (1, 13) in elements
    out = np.zeros((13, 20), dtype)
    run(copy_strided, executor, dict(x_ptr=base, out_ptr=out, M=13, N=20, sxm=1, sxn=13, som=20),
        dict(BM=8, BN=32), grid=(2,))
    np.testing.assert_array_equal(out, view)


@sw.jit
def outer_ops(a_ptr, b_ptr, out_ptr, M: sl.constexpr, N: sl.constexpr):
    i = sl.arange(0, M)
    j = sl.arange(0, N)
    a = sl.load(a_ptr + i)
    b = sl.load(b_ptr + j)
    offs = i[:, None] * N + j[None, :]
    r = sl.where(a[:, None] > b[None, :], a[:, None] - b, sl.maximum(a[:, None], b[None, :]) * 3)
    r = r + (i[:, None] % 3 == j).to(sl.float32)
    r = r + sl.exp(sl.zeros((M, N), sl.float32)) + sl.full((1, N), 0.5, sl.float32)
    sl.store(out_ptr + offs, r)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(8, 16), (32, 4), (1, 64), (64, 64)])
def test_outer_broadcasts_of_loaded_vectors(executor, m, n):
    rng = np.random.default_rng(m + n)
    a = rng.standard_normal(m).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.zeros((m, n), np.float32)
    run(outer_ops, executor, dict(a_ptr=a, b_ptr=b, out_ptr=out), dict(M=m, N=n))
    A, B = a[:, None], b[None, :]
    expected = np.where(A > B, A - B, np.maximum(A, B) * np.float32(3))
    expected = expected + (np.arange(m)[:, None] % 3 == np.arange(n)[None, :]).astype(np.float32)
    expected = expected + np.float32(1.5)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


@sw.jit
def gather_rows(table_ptr, idx_ptr, out_ptr, D: sl.constexpr, R: sl.constexpr):
    r = sl.arange(0, R)
    row_ptrs = table_ptr + sl.load(idx_ptr + r) * D
    cols = sl.arange(0, D)[None, :]
    vals = sl.load(row_ptrs[:, None] + cols)
    sl.store(out_ptr + r[:, None] * D + cols, vals)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("r,d", [(8, 16), (64, 4), (4, 256)])
def test_a_pointer_tile_of_loaded_rows_broadcasts(executor, r, d):
    rng = np.random.default_rng(r * d)
    table = rng.standard_normal((50, d)).astype(np.float32)
    idx = rng.integers(0, 50, r).astype(np.int32)
    out = np.zeros((r, d), np.float32)
    run(gather_rows, executor, dict(table_ptr=table, idx_ptr=idx, out_ptr=out), dict(D=d, R=r))
    np.testing.assert_array_equal(out, table[idx])


# ---- reductions ------------------------------------------------------------------------

@sw.jit
def reduce_2d(x_ptr, rows_ptr, cols_ptr, all_ptr, M, N, BM: sl.constexpr, BN: sl.constexpr,
              KIND: sl.constexpr):
    rm = sl.arange(0, BM)
    rn = sl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = sl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0)
    if KIND == 0:
        r, c, a = sl.sum(x, axis=1), sl.sum(x, axis=0), sl.sum(x)
    elif KIND == 1:
        r, c, a = sl.max(x, axis=-1), sl.max(x, axis=-2), sl.max(x, axis=None)
    elif KIND == 2:
        r, c, a = x.min(1), x.min(0), x.min()
    else:
        r, c, a = sl.prod(x, 1), sl.prod(x, 0), sl.prod(x)
    sl.store(rows_ptr + rm, r, mask=rm < M)
    sl.store(cols_ptr + rn, c, mask=rn < N)
    sl.store(all_ptr, a)


REDUCE_SHAPES = [(1, 1), (2, 2), (4, 128), (16, 32), (32, 16), (8, 512), (128, 8), (64, 64),
                 (256, 4), (1, 256), (256, 1), (32, 1024)]


def reference(kind, x, axis):
    f = {0: np.sum, 1: np.max, 2: np.min, 3: np.prod}[kind]
    if x.dtype.kind in "iu":
        with np.errstate(over="ignore"):
            return f(x.astype(np.int64), axis=axis).astype(x.dtype)
    return f(x.astype(np.float64), axis=axis)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("bm,bn", REDUCE_SHAPES)
@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_reductions_along_each_axis(executor, bm, bn, kind):
    rng = np.random.default_rng(bm * 7 + bn * 13 + kind)
    M, N = max(1, bm - 1), max(1, bn - 1)
    dtype = np.int32 if kind in (0, 3) and (bm * bn) % 2 else np.float32
    if kind == 3:
        x = rng.choice([-1, 1, 2], (M, N)).astype(dtype) if dtype == np.int32 else \
            rng.uniform(0.9, 1.1, (M, N)).astype(dtype)
    else:
        x = rng.standard_normal((M, N)).astype(dtype) * 10
        x = x.astype(dtype)
    padded = np.zeros((bm, bn), dtype)
    padded[:M, :N] = x
    rows, cols, total = np.zeros(M, dtype), np.zeros(N, dtype), np.zeros(1, dtype)
    run(reduce_2d, executor, dict(x_ptr=x, rows_ptr=rows, cols_ptr=cols, all_ptr=total, M=M, N=N),
        dict(BM=bm, BN=bn, KIND=kind))
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=0, atol=0)
    np.testing.assert_allclose(rows, reference(kind, padded, 1)[:M], **tol)
    np.testing.assert_allclose(cols, reference(kind, padded, 0)[:N], **tol)
    np.testing.assert_allclose(total, [reference(kind, padded, None)], **tol)


@sw.jit
def reduce_keep_dims(x_ptr, out_ptr, M: sl.constexpr, N: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + offs)
    centred = x - sl.max(x, axis=1, keep_dims=True)
    num = sl.exp(centred)
    softmax = num / sl.sum(num, axis=1)[:, None]
    col = sl.sum(softmax, axis=0, keep_dims=True)
    whole = sl.sum(x, keep_dims=True)
    sl.static_assert(col.shape == (1, N))
    sl.static_assert(whole.shape == (1, 1))
    sl.store(out_ptr + offs, softmax + col * 0 + whole * 0)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(4, 64), (32, 32), (128, 8)])
def test_row_softmax_with_keep_dims(executor, m, n):
    rng = np.random.default_rng(m * n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = np.zeros_like(x)
    run(reduce_keep_dims, executor, dict(x_ptr=x, out_ptr=out), dict(M=m, N=n))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    expected = e / e.sum(1, keepdims=True) + e.sum() * 0
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@sw.jit
def softmax_rows(x_ptr, y_ptr, M, N, BM: sl.constexpr, BN: sl.constexpr):
    rows = sl.program_id(0) * BM + sl.arange(0, BM)
    cols = sl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    x = sl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    e = sl.exp(x - sl.max(x, axis=1)[:, None])
    sl.store(y_ptr + offs, e / sl.sum(e, axis=1, keep_dims=True), mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("bm,bn", [(16, 32), (4, 256), (2, 1024), (64, 8), (1, 128), (32, 64)])
def test_masked_row_softmax(executor, bm, bn):
    rng = np.random.default_rng(bm + bn)
    M, N = 2 * bm + 1, bn - 3
    x = rng.standard_normal((M, N)).astype(np.float32)
    y = np.zeros_like(x)
    run(softmax_rows, executor, dict(x_ptr=x, y_ptr=y, M=M, N=N), dict(BM=bm, BN=bn), grid=(3,))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_a_softmax_whose_rows_lie_in_a_warp_needs_no_shared_memory():
    signature = {"x_ptr": "*f32", "y_ptr": "*f32", "M": "i32", "N": "i32"}
    text = simt_text(softmax_rows, signature, {"BM": 16, "BN": 32})
    assert '"simt.smem_store"' not in text and '"simt.barrier"' not in text, text
    assert text.count('"simt.shfl_xor"') == 6, text  # lanes 1, 2, 4 for each of the two reductions
    # rows spread over warps: one store of the warps' parts each, read back in place
    text = simt_text(softmax_rows, signature, {"BM": 2, "BN": 1024})
    assert text.count('"simt.smem_store"') == 2, text


@sw.jit
def reduce_small_dtypes(x_ptr, rows_ptr, cols_ptr, M: sl.constexpr, N: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + offs)
    sl.store(rows_ptr + sl.arange(0, M), sl.max(x, axis=1))
    sl.store(cols_ptr + sl.arange(0, N), sl.sum(x, axis=0).to(x.dtype))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "int64", "float64"])
def test_reductions_of_narrow_and_wide_dtypes(executor, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-20, 20, (16, 64)).astype(dtype) if dtype != "uint8" else \
        rng.integers(0, 40, (16, 64)).astype(dtype)
    rows, cols = np.zeros(16, dtype), np.zeros(64, dtype)
    run(reduce_small_dtypes, executor, dict(x_ptr=x, rows_ptr=rows, cols_ptr=cols), dict(M=16, N=64))
    np.testing.assert_array_equal(rows, x.max(1))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(cols, x.astype(np.int64).sum(0).astype(dtype))


@sw.jit
def reduce_3d(x_ptr, out0_ptr, out1_ptr, out2_ptr, A: sl.constexpr, B: sl.constexpr,
              C: sl.constexpr):
    a = sl.arange(0, A)[:, None, None]
    b = sl.arange(0, B)[None, :, None]
    c = sl.arange(0, C)[None, None, :]
    x = sl.load(x_ptr + a * (B * C) + b * C + c)
    s0 = sl.sum(x, axis=0)
    s1 = sl.max(x, axis=1)
    s2 = sl.sum(x, axis=2)
    sl.store(out0_ptr + sl.arange(0, B)[:, None] * C + sl.arange(0, C)[None, :], s0)
    sl.store(out1_ptr + sl.arange(0, A)[:, None] * C + sl.arange(0, C)[None, :], s1)
    sl.store(out2_ptr + sl.arange(0, A)[:, None] * B + sl.arange(0, B)[None, :], s2)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 16, 16), (8, 2, 64), (1, 32, 2)])
def test_three_dimensional_tiles(executor, shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-50, 50, shape).astype(np.int32)
    A, B, C = shape
    o0, o1, o2 = np.zeros((B, C), np.int32), np.zeros((A, C), np.int32), np.zeros((A, B), np.int32)
    run(reduce_3d, executor, dict(x_ptr=x, out0_ptr=o0, out1_ptr=o1, out2_ptr=o2),
        dict(A=A, B=B, C=C))
    np.testing.assert_array_equal(o0, x.sum(0))
    np.testing.assert_array_equal(o1, x.max(1))
    np.testing.assert_array_equal(o2, x.sum(2))


@sw.jit
def pick_later(a, b):
    """Non-commutative: the right operand unless it is zero."""
    return sl.where(b != 0, b, a)


@sw.jit
def max_and_count(a_max, a_n, b_max, b_n):
    return sl.maximum(a_max, b_max), a_n + b_n


@sw.jit
def reduce_fn_2d(x_ptr, amax_ptr, amin_ptr, last_ptr, mx_ptr, cnt_ptr, flat_ptr, M: sl.constexpr,
                 N: sl.constexpr, AXIS: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + offs)
    am = sl.argmax(x, axis=AXIS, keep_dims=True)
    sl.static_assert(am.shape == ((1, N) if AXIS == 0 else (M, 1)))
    out = sl.arange(0, N if AXIS == 0 else M)
    sl.store(amax_ptr + out, sl.reshape(am, out.shape))
    sl.store(amin_ptr + out, x.argmin(AXIS, tie_break_left=False))
    sl.store(last_ptr + out, sl.reduce(x, AXIS, pick_later))
    mx, cnt = sl.reduce((x, (x > 0).to(sl.int32)), AXIS, max_and_count)
    sl.store(mx_ptr + out, mx)
    sl.store(cnt_ptr + out, cnt)
    sl.store(flat_ptr, sl.argmax(x, axis=None))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(4, 8), (16, 64), (64, 2), (1, 128), (128, 1)])
@pytest.mark.parametrize("axis", [0, 1])
def test_argmax_argmin_and_reduce_along_an_axis(executor, m, n, axis):
    rng = np.random.default_rng(m * n + axis)
    x = rng.integers(-3, 4, (m, n)).astype(np.int32)  # ties and zeros
    k = n if axis == 0 else m
    outs = {name: np.zeros(k, np.int32) for name in ("amax_ptr", "amin_ptr", "last_ptr", "mx_ptr", "cnt_ptr")}
    flat = np.zeros(1, np.int32)
    run(reduce_fn_2d, executor, dict(x_ptr=x, flat_ptr=flat, **outs), dict(M=m, N=n, AXIS=axis))
    np.testing.assert_array_equal(outs["amax_ptr"], x.argmax(axis))
    last_min = x.shape[axis] - 1 - np.flip(x, axis).argmin(axis)
    np.testing.assert_array_equal(outs["amin_ptr"], last_min)
    lines = x.T if axis == 0 else x
    expected_last = [next((v for v in reversed(line) if v != 0), line[0]) for line in lines]
    np.testing.assert_array_equal(outs["last_ptr"], expected_last)
    np.testing.assert_array_equal(outs["mx_ptr"], x.max(axis))
    np.testing.assert_array_equal(outs["cnt_ptr"], (x > 0).sum(axis))
    assert flat[0] == x.argmax()


# ---- Triton's tutorial 03 (matrix multiplication), with a broadcast product for tl.dot -----

@sw.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: sl.constexpr, BLOCK_SIZE_N: sl.constexpr,
                  BLOCK_SIZE_K: sl.constexpr, GROUP_SIZE_M: sl.constexpr):
    pid = sl.program_id(axis=0)
    num_pid_m = sl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = sl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + sl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + sl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = sl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = sl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=sl.float32)
    for k in range(0, sl.cdiv(K, BLOCK_SIZE_K)):
        a = sl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = sl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator += sl.sum(a[:, :, None] * b[None, :, :], axis=1)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(sl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + sl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + sl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    sl.store(c_ptrs, c, mask=c_mask)


def matmul_args(rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    return dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, stride_am=K, stride_ak=1, stride_bk=N,
                stride_bn=1, stride_cm=N, stride_cn=1)


MATMUL_BLOCKS = dict(BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=8, GROUP_SIZE_M=2)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N,K", [(33, 20, 19), (16, 48, 8)])
def test_tutorial_matmul_with_a_broadcast_product(executor, M, N, K):
    args = matmul_args(np.random.default_rng(M + N + K), M, N, K)
    grid = (-(-M // 16) * -(-N // 16),)
    run(matmul_kernel, executor, args, MATMUL_BLOCKS, grid=grid)
    expected = args["a_ptr"].astype(np.float32) @ args["b_ptr"].astype(np.float32)
    np.testing.assert_allclose(args["c_ptr"].astype(np.float32), expected, rtol=2e-2, atol=2e-2)


# ---- shape built-ins ---------------------------------------------------------------------

@sw.jit
def shape_builtins(x_ptr, t_ptr, p_ptr, r_ptr, b_ptr, M: sl.constexpr, N: sl.constexpr):
    flat = sl.load(x_ptr + sl.arange(0, M * N))
    x = sl.reshape(flat, (M, N))
    sl.static_assert(x.shape == (M, N))
    t = sl.trans(x)
    cols = sl.arange(0, M)[None, :]
    rows = sl.arange(0, N)[:, None]
    sl.store(t_ptr + rows * M + cols, t)
    sl.store(p_ptr + rows * M + cols, sl.permute(x, (1, 0)) + x.T)
    sl.store(r_ptr + sl.arange(0, M * N), x.reshape(M * N) * 2)
    row = sl.expand_dims(sl.arange(0, N), 0)
    b = sl.broadcast_to(row, (M, N)) + sl.broadcast_to(sl.arange(0, M)[:, None], M, N) * 100
    sl.store(b_ptr + sl.arange(0, M)[:, None] * N + sl.arange(0, N)[None, :], b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(4, 8), (32, 32), (2, 64), (64, 2)])
def test_reshape_trans_permute_broadcast_to(executor, m, n):
    x = np.arange(m * n, dtype=np.int32) * 3 - 7
    t, p = np.zeros((n, m), np.int32), np.zeros((n, m), np.int32)
    r, b = np.zeros(m * n, np.int32), np.zeros((m, n), np.int32)
    run(shape_builtins, executor, dict(x_ptr=x, t_ptr=t, p_ptr=p, r_ptr=r, b_ptr=b), dict(M=m, N=n))
    np.testing.assert_array_equal(t, x.reshape(m, n).T)
    np.testing.assert_array_equal(p, 2 * x.reshape(m, n).T)
    np.testing.assert_array_equal(r, 2 * x)
    np.testing.assert_array_equal(b, np.arange(n)[None, :] + 100 * np.arange(m)[:, None])


@sw.jit
def reduce_of_broadcast_to(x_ptr, y_ptr, z_ptr, M: sl.constexpr, N: sl.constexpr):
    row = sl.load(x_ptr + sl.arange(0, N))
    sl.store(y_ptr + sl.arange(0, N), sl.sum(sl.broadcast_to(row[None, :], (M, N)), axis=0))
    sl.store(z_ptr + sl.arange(0, M), sl.max(sl.broadcast_to(row[None, :], (M, N)), axis=1))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(4, 32), (16, 64)])
def test_reduction_along_an_axis_of_a_broadcast_to(executor, m, n):
    """The reduction's operand is what lower-simt made in place of the
    sw.broadcast: its shape is the broadcast's."""
    x = np.arange(n, dtype=np.int32) * 3 - 7
    y, z = np.zeros(n, np.int32), np.zeros(m, np.int32)
    run(reduce_of_broadcast_to, executor, dict(x_ptr=x, y_ptr=y, z_ptr=z), dict(M=m, N=n))
    np.testing.assert_array_equal(y, m * x)
    np.testing.assert_array_equal(z, np.full(m, x.max()))


@sw.jit
def atomic_2d(bins_ptr, M: sl.constexpr, N: sl.constexpr):
    offs = sl.arange(0, M)[:, None] * 0 + sl.arange(0, N)[None, :]
    old = sl.atomic_add(bins_ptr + offs, 1, mask=offs < N - 1)
    sl.atomic_max(bins_ptr + N + offs, old)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_atomics_on_2d_pointer_tiles(executor):
    M, N = 8, 16
    bins = np.zeros(2 * N, np.int32)
    run(atomic_2d, executor, dict(bins_ptr=bins), dict(M=M, N=N), grid=(3,))
    expected = np.zeros(2 * N, np.int32)
    expected[:N - 1] = 3 * M
    expected[N:2 * N - 1] = 3 * M - 1
    np.testing.assert_array_equal(bins, expected)


# ---- join, split, interleave, cat ----------------------------------------------------------

@sw.jit
def join_1d(x_ptr, y_ptr, p_ptr, j_ptr, i_ptr, c_ptr, a_ptr, b_ptr, r_ptr, N: sl.constexpr,
            VIEW: sl.constexpr, REORDER: sl.constexpr):
    """Every value goes in and out as VIEW, a dtype of the same width (the
    arrays' own, or bfloat16 through uint16: it has no NumPy dtype)."""
    offs = sl.arange(0, N)
    two = sl.arange(0, 2)[None, :]
    x = sl.load(x_ptr + offs)
    y = sl.load(y_ptr + offs)
    p = sl.load(p_ptr + offs[:, None] * 2 + two)
    x, y, p = x.to(VIEW, bitcast=True), y.to(VIEW, bitcast=True), p.to(VIEW, bitcast=True)
    j = sl.join(x, y)
    sl.static_assert(j.shape == (N, 2))
    i = sl.interleave(x, y)
    c = sl.cat(x, y, can_reorder=REORDER)
    sl.static_assert(i.shape == (2 * N,) and c.shape == (2 * N,))
    a, b = sl.split(p)
    a2, b2 = p.split()
    sl.static_assert(a.shape == (N,) and b2.shape == (N,))
    _, r = sl.split(sl.join(x, y))
    out = x_ptr.dtype.element_ty
    sl.store(j_ptr + offs[:, None] * 2 + two, j.to(out, bitcast=True))
    sl.store(i_ptr + sl.arange(0, 2 * N), i.to(out, bitcast=True))
    sl.store(c_ptr + sl.arange(0, 2 * N), c.to(out, bitcast=True))
    sl.store(a_ptr + offs, a.to(out, bitcast=True))
    sl.store(b_ptr + offs, b2.to(out, bitcast=True))
    sl.store(r_ptr + offs, r.to(out, bitcast=True))


SL_DTYPES = {"bool": sl.int1, "int8": sl.int8, "int16": sl.int16, "uint16": sl.uint16, "int32": sl.int32,
             "int64": sl.int64, "float16": sl.float16, "float32": sl.float32, "float64": sl.float64}
JOIN_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32",
               "float64"]


def special_values(rng, dtype, shape):
    """Random values of dtype with the floats' signed zeros, infinities and NaN among them."""
    x = swage_testing.random_array(rng, "float32" if dtype == "bfloat16" else dtype, shape)
    if x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[:4] = [-0.0, np.inf, -np.inf, np.nan][:flat.size]
        rng.shuffle(flat)
    if dtype == "bfloat16":  # the top half of float32's bits (NaN: the canonical one)
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x


def bits(a):
    """The array's bytes as unsigned integers: floats compare bit for bit."""
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def join_1d_case(rng, dtype, n, bf16_as=np.uint16):
    """(arrays, constexprs, expected outputs) of join_1d for n elements of dtype."""
    x, y = special_values(rng, dtype, n), special_values(rng, dtype, n)
    p = special_values(rng, dtype, (n, 2))
    if dtype == "bfloat16":
        x, y, p = x.view(bf16_as), y.view(bf16_as), p.view(bf16_as)
    arrays = {"x_ptr": x, "y_ptr": y, "p_ptr": p, "j_ptr": np.zeros((n, 2), x.dtype),
              "i_ptr": np.zeros(2 * n, x.dtype), "c_ptr": np.zeros(2 * n, x.dtype),
              "a_ptr": np.zeros(n, x.dtype), "b_ptr": np.zeros(n, x.dtype), "r_ptr": np.zeros(n, x.dtype)}
    view = sl.bfloat16 if dtype == "bfloat16" else SL_DTYPES[dtype]
    expected = {"j_ptr": np.stack([x, y], axis=-1), "i_ptr": np.stack([x, y], axis=-1).reshape(-1),
                "c_ptr": np.concatenate([x, y]), "a_ptr": p[:, 0], "b_ptr": p[:, 1], "r_ptr": y}
    return arrays, dict(N=n, VIEW=view, REORDER=n % 64 == 0), expected


def assert_same_bits(outs, expected, what):
    for name, want in expected.items():
        got = outs[name]
        if got.dtype.kind == "f":
            got, want = bits(got), bits(np.ascontiguousarray(want))
        np.testing.assert_array_equal(got, want, err_msg="%s: %s" % (what, name))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", JOIN_DTYPES)
@pytest.mark.parametrize("n", [1, 32, 256, 2048])
def test_join_split_interleave_cat_against_numpy(executor, dtype, n, rng):
    arrays, constexprs, expected = join_1d_case(rng, dtype, n)
    run(join_1d, executor, arrays, constexprs)
    assert_same_bits(arrays, expected, "seed %s" % rng.seed)


@pytest.mark.parametrize("n", [2, 32, 1024])
@pytest.mark.parametrize("num_warps", [1, 8])
def test_join_split_interleave_cat_with_num_warps(n, num_warps, rng):
    """A CTA of 32 or 256 threads: tiles replicated over threads, or many
    slots per thread."""
    arrays, constexprs, expected = join_1d_case(rng, "float32", n)
    join_1d.launch(arguments=arrays, constexprs=constexprs, grid=(1,), executor="simt",
                   num_warps=num_warps)
    assert_same_bits(arrays, expected, "seed %s" % rng.seed)


@sw.jit
def join_2d(x_ptr, row_ptr, s_ptr, q_ptr, j_ptr, i_ptr, js_ptr, a_ptr, b_ptr, M: sl.constexpr,
            N: sl.constexpr):
    m = sl.arange(0, M)[:, None]
    n = sl.arange(0, N)[None, :]
    x = sl.load(x_ptr + m * N + n)
    row = sl.load(row_ptr + sl.arange(0, N))
    s = sl.load(s_ptr)
    j = sl.join(x, row)  # (M, N) with (N,): broadcast first, as Triton does
    sl.static_assert(j.shape == (M, N, 2))
    k = sl.arange(0, 2)[None, None, :]
    sl.store(j_ptr + m[:, :, None] * (2 * N) + n[:, :, None] * 2 + k, j)
    sl.store(i_ptr + m * (2 * N) + sl.arange(0, 2 * N)[None, :], sl.interleave(x, row))
    js = sl.join(s, x)  # a scalar with a tile
    sl.store(js_ptr + m[:, :, None] * (2 * N) + n[:, :, None] * 2 + k, js)
    q = sl.load(q_ptr + m[:, :, None] * (2 * N) + n[:, :, None] * 2 + k)
    a, b = sl.split(q)
    sl.static_assert(a.shape == (M, N))
    sl.store(a_ptr + m * N + n, a)
    sl.store(b_ptr + m * N + n, b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", [(1, 1), (2, 4), (4, 32), (16, 16), (8, 128), (64, 2)])
def test_join_split_interleave_of_2d_tiles(executor, m, n, rng):
    x = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    row = rng.integers(-1000, 1000, n).astype(np.int32)
    s = np.array([77], np.int32)
    q = rng.integers(-1000, 1000, (m, n, 2)).astype(np.int32)
    outs = {"j_ptr": np.zeros((m, n, 2), np.int32), "i_ptr": np.zeros((m, 2 * n), np.int32),
            "js_ptr": np.zeros((m, n, 2), np.int32), "a_ptr": np.zeros((m, n), np.int32),
            "b_ptr": np.zeros((m, n), np.int32)}
    run(join_2d, executor, dict(x_ptr=x, row_ptr=row, s_ptr=s, q_ptr=q, **outs), dict(M=m, N=n))
    rows = np.broadcast_to(row, (m, n))
    np.testing.assert_array_equal(outs["j_ptr"], np.stack([x, rows], axis=-1))
    np.testing.assert_array_equal(outs["i_ptr"], np.stack([x, rows], axis=-1).reshape(m, 2 * n))
    np.testing.assert_array_equal(outs["js_ptr"], np.stack([np.full_like(x, 77), x], axis=-1))
    np.testing.assert_array_equal(outs["a_ptr"], q[..., 0])
    np.testing.assert_array_equal(outs["b_ptr"], q[..., 1])


@sw.jit
def interleave_3d(x_ptr, y_ptr, out_ptr, A: sl.constexpr, B: sl.constexpr, C: sl.constexpr):
    a = sl.arange(0, A)[:, None, None]
    b = sl.arange(0, B)[None, :, None]
    c = sl.arange(0, C)[None, None, :]
    x = sl.load(x_ptr + a * (B * C) + b * C + c)
    y = sl.load(y_ptr + a * (B * C) + b * C + c)
    z = sl.interleave(x, y)  # 3-D: the join inside never makes a tile of 4 dims
    sl.static_assert(z.shape == (A, B, 2 * C))
    sl.store(out_ptr + a * (B * 2 * C) + b * (2 * C) + sl.arange(0, 2 * C)[None, None, :], z)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 4, 8), (4, 1, 16), (8, 16, 4)])
def test_interleave_of_3d_tiles(executor, shape, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    out = np.zeros(shape[:2] + (2 * shape[2],), np.float32)
    run(interleave_3d, executor, dict(x_ptr=x, y_ptr=y, out_ptr=out), dict(A=shape[0], B=shape[1], C=shape[2]))
    np.testing.assert_array_equal(out, np.stack([x, y], axis=-1).reshape(out.shape))


@sw.jit
def join_scalars(x_ptr, y_ptr, s, t, j_ptr, i_ptr, a_ptr, b_ptr):
    """Triton's test_join_scalars, test_interleave_scalars, test_split_to_scalar."""
    z = sl.join(sl.load(x_ptr), sl.load(y_ptr))
    sl.static_assert(z.shape == (2,))
    sl.store(j_ptr + sl.arange(0, 2), z)
    w = sl.interleave(s, t)
    sl.static_assert(w.shape == (2,))
    sl.store(i_ptr + sl.arange(0, 2), w)
    a, b = sl.split(sl.load(x_ptr + sl.arange(0, 2)))
    sl.static_assert(a.shape == () and b.shape == ())
    sl.store(a_ptr, a)
    sl.store(b_ptr, b)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_join_split_and_interleave_of_scalars(executor):
    x, y = np.array([42, 7], np.int32), np.array([100], np.int32)
    j, i = np.zeros(2, np.int32), np.zeros(2, np.float32)
    a, b = np.zeros(1, np.int32), np.zeros(1, np.int32)
    run(join_scalars, executor, dict(x_ptr=x, y_ptr=y, s=10, t=20, j_ptr=j, i_ptr=i, a_ptr=a, b_ptr=b), {})
    np.testing.assert_array_equal(j, [42, 100])
    np.testing.assert_array_equal(i, [10.0, 20.0])
    assert (a[0], b[0]) == (42, 7)


@sw.jit
def split_pair(x_ptr, a_ptr, b_ptr):
    a, b = sl.load(x_ptr + sl.arange(0, 2)).split()
    sl.store(a_ptr, a)
    sl.store(b_ptr, b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float16", "float64"])
def test_split_of_a_pair_gives_scalars_with_their_bits(executor, dtype):
    x = np.array([-0.0, 2.5] if dtype.startswith("float") else [1, 0], dtype)
    a, b = np.ones(1, dtype), np.ones(1, dtype)
    run(split_pair, executor, dict(x_ptr=x, a_ptr=a, b_ptr=b), {})
    assert a.tobytes() == x[:1].tobytes() and b.tobytes() == x[1:].tobytes(), (a, b)


@sw.jit
def join_pointers(x_ptr, y_ptr, j_ptr, c_ptr, a_ptr, b_ptr, N: sl.constexpr):
    offs = sl.arange(0, N)
    two = sl.arange(0, 2)[None, :]
    p = sl.join(x_ptr + offs, y_ptr + (N - 1 - offs))  # a tile of pointers (N, 2)
    sl.store(j_ptr + offs[:, None] * 2 + two, sl.load(p))
    sl.store(c_ptr + sl.arange(0, 2 * N), sl.load(sl.cat(y_ptr + offs, x_ptr + offs)))
    q = x_ptr + offs[:, None] * 2 + two
    first, second = q.split()
    sl.store(a_ptr + offs, sl.load(second))
    sl.store(b_ptr + offs, sl.load(first) * 2)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [4, 128])
def test_join_and_split_of_pointer_tiles(executor, n):
    x = np.arange(2 * n, dtype=np.float32) * 0.5
    y = -np.arange(n, dtype=np.float32)
    j, a, b = np.zeros((n, 2), np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    c = np.zeros(2 * n, np.float32)
    run(join_pointers, executor, dict(x_ptr=x, y_ptr=y, j_ptr=j, c_ptr=c, a_ptr=a, b_ptr=b), dict(N=n))
    np.testing.assert_array_equal(j, np.stack([x[:n], y[::-1]], axis=-1))
    np.testing.assert_array_equal(c, np.concatenate([y, x[:n]]))
    np.testing.assert_array_equal(a, x[1::2])
    np.testing.assert_array_equal(b, x[0::2] * 2)


@sw.jit
def join_masks(x_ptr, out_ptr, lo_ptr, hi_ptr, N: sl.constexpr):
    offs = sl.arange(0, N)
    x = sl.load(x_ptr + offs)
    both = sl.join(x > 0, x % 3 == 0)  # int1 tiles
    sl.store(out_ptr + sl.arange(0, 2 * N), sl.reshape(both, (2 * N,)).to(sl.int8))
    pairs = sl.reshape(x, (N // 2, 2)) > 1
    lo, hi = sl.split(pairs)
    sl.store(lo_ptr + sl.arange(0, N // 2), lo)
    sl.store(hi_ptr + sl.arange(0, N // 2), hi)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [2, 64, 512])
def test_join_and_split_of_int1_tiles(executor, n, rng):
    x = rng.integers(-5, 6, n).astype(np.int32)
    out = np.zeros(2 * n, np.int8)
    lo, hi = np.zeros(n // 2, np.bool_), np.zeros(n // 2, np.bool_)
    run(join_masks, executor, dict(x_ptr=x, out_ptr=out, lo_ptr=lo, hi_ptr=hi), dict(N=n))
    np.testing.assert_array_equal(out, np.stack([x > 0, x % 3 == 0], axis=-1).reshape(-1))
    np.testing.assert_array_equal(lo, x[0::2] > 1)
    np.testing.assert_array_equal(hi, x[1::2] > 1)


@sw.jit
def split_in_a_loop(x_ptr, out_ptr, steps, N: sl.constexpr):
    """Complex numbers as (re, im) pairs, squared `steps` times: split,
    arithmetic, join, carried by a runtime loop."""
    offs = sl.arange(0, N)
    z = sl.load(x_ptr + offs[:, None] * 2 + sl.arange(0, 2)[None, :])
    for _ in range(steps):
        re, im = z.split()
        z = sl.join(re * re - im * im, 2 * re * im)
    sl.store(out_ptr + sl.arange(0, 2 * N), sl.reshape(z, (2 * N,)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_split_and_join_carried_by_a_loop(executor, rng):
    n = 64
    z = rng.integers(-3, 4, (n, 2)).astype(np.int64)
    out = np.zeros(2 * n, np.int64)
    run(split_in_a_loop, executor, dict(x_ptr=z, out_ptr=out, steps=3), dict(N=n))
    c = z[:, 0] + 1j * z[:, 1]
    c = c ** 8
    np.testing.assert_array_equal(out, np.stack([c.real, c.imag], axis=-1).reshape(-1).astype(np.int64))


# ---- the SIMT form -----------------------------------------------------------------------

def simt_text(kernel, signature, constexprs):
    return kernel.emit_mlir(signature=signature, constexprs=constexprs, stage="simt")


def test_a_row_major_2d_load_is_vectorised_along_the_last_axis():
    text = simt_text(add_2d, {"x_ptr": "*f32", "y_ptr": "*f32", "out_ptr": "*f32", "M": "i32",
                              "N": "i32", "stride": "i32"}, {"BM": 16, "BN": 64})
    assert text.count('"simt.load"') == 2 and text.count("vec = 4") == 3, text
    assert "simt.smem_store" not in text and "simt.barrier" not in text, text


def test_a_row_reduction_within_a_warp_uses_shuffles():
    text = simt_text(reduce_keep_dims, {"x_ptr": "*f32", "out_ptr": "*f32"}, {"M": 16, "N": 32})
    assert '"simt.shfl_xor"' in text and '"simt.vslots"' in text, text


@sw.jit
def split_loaded(x_ptr, out_ptr, N: sl.constexpr):
    offs = sl.arange(0, N)
    a, b = sl.split(sl.load(x_ptr + offs[:, None] * 2 + sl.arange(0, 2)[None, :]))
    sl.store(out_ptr + offs, a - b)


@sw.jit
def interleave_aranges(out_ptr, N: sl.constexpr):
    """Triton's test_interleave."""
    sl.store(out_ptr + sl.arange(0, 2 * N), sl.interleave(sl.arange(0, N), sl.arange(N, 2 * N)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_interleave_of_aranges(executor):
    out = np.zeros(256, np.int32)
    run(interleave_aranges, executor, dict(out_ptr=out), dict(N=128))
    np.testing.assert_array_equal(out, np.stack([np.arange(128), np.arange(128, 256)], axis=-1).reshape(-1))


def test_both_halves_of_a_split_share_one_trip_through_shared_memory():
    text = simt_text(split_loaded, {"x_ptr": "*f32", "out_ptr": "*f32"}, {"N": 256})
    # one barrier between the store and the loads; none after them (lower-simt
    # drops its barriers after the last use of shared memory)
    assert text.count('"simt.smem_store"') == 1 and text.count('"simt.barrier"') == 1, text
    assert text.count('"simt.smem_load"') == 2 and "sw.split" not in text, text


def test_a_join_of_aranges_is_recomputed_without_shared_memory():
    text = simt_text(interleave_aranges, {"out_ptr": "*i32"}, {"N": 128})
    assert '"simt.smem_store"' not in text and '"simt.barrier"' not in text, text


def ptxas():
    for path in (os.environ.get("SWAGE_PTXAS"), "/usr/local/cuda/bin/ptxas"):
        if path and path != "none" and os.access(path, os.X_OK):
            return path
    return None


PTX_CASES = [
    (add_2d, {"x_ptr": "*f32", "y_ptr": "*f32", "out_ptr": "*f32", "M": "i32", "N": "i32",
              "stride": "i32"}, {"BM": 32, "BN": 64}),
    (reduce_2d, {"x_ptr": "*f32", "rows_ptr": "*f32", "cols_ptr": "*f32", "all_ptr": "*f32",
                 "M": "i32", "N": "i32"}, {"BM": 64, "BN": 128, "KIND": 0}),
    (reduce_2d, {"x_ptr": "*i32", "rows_ptr": "*i32", "cols_ptr": "*i32", "all_ptr": "*i32",
                 "M": "i32", "N": "i32"}, {"BM": 8, "BN": 32, "KIND": 1}),
    (reduce_keep_dims, {"x_ptr": "*f32", "out_ptr": "*f32"}, {"M": 16, "N": 256}),
    (softmax_rows, {"x_ptr": "*f32", "y_ptr": "*f32", "M": "i32", "N": "i32"}, {"BM": 16, "BN": 32}),
    (softmax_rows, {"x_ptr": "*f16", "y_ptr": "*f16", "M": "i32", "N": "i32"}, {"BM": 2, "BN": 1024}),
    (reduce_small_dtypes, {"x_ptr": "*f16", "rows_ptr": "*f16", "cols_ptr": "*f16"}, {"M": 16, "N": 64}),
    (reduce_small_dtypes, {"x_ptr": "*i64", "rows_ptr": "*i64", "cols_ptr": "*i64"}, {"M": 16, "N": 64}),
    (reduce_3d, {"x_ptr": "*i32", "out0_ptr": "*i32", "out1_ptr": "*i32", "out2_ptr": "*i32"},
     {"A": 4, "B": 16, "C": 16}),
    (shape_builtins, {"x_ptr": "*i32", "t_ptr": "*i32", "p_ptr": "*i32", "r_ptr": "*i32",
                      "b_ptr": "*i32"}, {"M": 32, "N": 32}),
    (outer_ops, {"a_ptr": "*f32", "b_ptr": "*f32", "out_ptr": "*f32"}, {"M": 64, "N": 64}),
    (atomic_2d, {"bins_ptr": "*i32"}, {"M": 8, "N": 16}),
    (gather_rows, {"table_ptr": "*f32", "idx_ptr": "*i32", "out_ptr": "*f32"}, {"D": 16, "R": 64}),
    (matmul_kernel, {"a_ptr": "*f16", "b_ptr": "*f16", "c_ptr": "*f16", "M": "i32", "N": "i32",
                     "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
                     "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32"}, MATMUL_BLOCKS),
    (reduce_fn_2d, {"x_ptr": "*f32", "amax_ptr": "*i32", "amin_ptr": "*i32", "last_ptr": "*f32",
                    "mx_ptr": "*f32", "cnt_ptr": "*i32", "flat_ptr": "*i32"}, {"M": 16, "N": 64, "AXIS": 1}),
    (join_1d, dict({k: "*f16" for k in ("x_ptr", "y_ptr", "p_ptr", "j_ptr", "i_ptr", "c_ptr", "a_ptr",
                                        "b_ptr", "r_ptr")}), {"N": 1024, "VIEW": sl.float16, "REORDER": False}),
    (join_1d, dict({k: "*i1" for k in ("x_ptr", "y_ptr", "p_ptr", "j_ptr", "i_ptr", "c_ptr", "a_ptr",
                                       "b_ptr", "r_ptr")}), {"N": 64, "VIEW": sl.int1, "REORDER": True}),
    (join_2d, {"x_ptr": "*i32", "row_ptr": "*i32", "s_ptr": "*i32", "q_ptr": "*i32", "j_ptr": "*i32",
               "i_ptr": "*i32", "js_ptr": "*i32", "a_ptr": "*i32", "b_ptr": "*i32"}, {"M": 8, "N": 128}),
    (join_scalars, {"x_ptr": "*i64", "y_ptr": "*i64", "s": "f32", "t": "f32", "j_ptr": "*i64",
                    "i_ptr": "*f32", "a_ptr": "*i64", "b_ptr": "*i64"}, {}),
    (join_pointers, {"x_ptr": "*f32", "y_ptr": "*f32", "j_ptr": "*f32", "c_ptr": "*f32", "a_ptr": "*f32",
                     "b_ptr": "*f32"}, {"N": 128}),
    (join_pointers, {"x_ptr": "*f16", "y_ptr": "*f16", "j_ptr": "*f16", "c_ptr": "*f16", "a_ptr": "*f16",
                     "b_ptr": "*f16"}, {"N": 4}),
    (join_masks, {"x_ptr": "*i32", "out_ptr": "*i8", "lo_ptr": "*i1", "hi_ptr": "*i1"}, {"N": 2}),
    (split_pair, {"x_ptr": "*i1", "a_ptr": "*i1", "b_ptr": "*i1"}, {}),
    (split_pair, {"x_ptr": "*f16", "a_ptr": "*f16", "b_ptr": "*f16"}, {}),
    (split_in_a_loop, {"x_ptr": "*i64", "out_ptr": "*i64", "steps": "i32"}, {"N": 256}),
    (interleave_3d, {"x_ptr": "*bf16", "y_ptr": "*bf16", "out_ptr": "*bf16"}, {"A": 2, "B": 4, "C": 64}),
]


@pytest.mark.parametrize("case", range(len(PTX_CASES)))
def test_2d_kernels_assemble_with_ptxas(case, tmp_path):
    kernel, signature, constexprs = PTX_CASES[case]
    text = kernel.emit_ptx(signature=signature, constexprs=constexprs, sm=90)
    tool = ptxas()
    if tool is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found, and SWAGE_REQUIRE_PTXAS=1")
        pytest.skip("ptxas not found")
    for sm in (90, 80):
        path = tmp_path / ("k%d.ptx" % sm)
        path.write_text(kernel.emit_ptx(signature=signature, constexprs=constexprs, sm=sm))
        result = subprocess.run([tool, "-arch=sm_%d" % sm, str(path), "-o", os.devnull],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[:2000]


# ---- errors --------------------------------------------------------------------------------

@sw.jit
def err_mismatch(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.zeros((4,), sl.float32)
    c = a + b  # error at col 9: shape mismatch, (4, 8), (4,)
    sl.store(x_ptr + sl.arange(0, 4), sl.sum(c, axis=1))


@sw.jit
def err_rank(x_ptr):
    a = sl.zeros((2, 2, 2), sl.float32)
    b = a[:, :, :, None]  # error at col 20: at most 3 dimensions
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_non_pow2(x_ptr):
    a = sl.zeros((4, 6), sl.float32)  # error at col 22: power of two, not 6
    sl.store(x_ptr, sl.sum(a))


@sw.jit
def err_axis(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    sl.store(x_ptr + sl.arange(0, 4), sl.sum(a, axis=2))  # error at col 54: axis 2, out of range


@sw.jit
def err_index(x_ptr):
    a = sl.arange(0, 8)
    b = a[0]  # error at col 10: subscripts, None
    sl.store(x_ptr + b, 1)


@sw.jit
def err_too_many_slices(x_ptr):
    a = sl.arange(0, 8)
    b = a[:, :]  # error at col 14: too many ':'
    sl.store(x_ptr + b, 1)


@sw.jit
def err_store_shape(x_ptr):
    offs = sl.arange(0, 8)
    sl.store(x_ptr + offs, sl.zeros((2, 8), sl.int32))  # error at col 28: shape mismatch


@sw.jit
def err_reshape(x_ptr):
    a = sl.arange(0, 8)
    b = sl.reshape(a, (4, 4))  # error at col 9: number of elements
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_argmax_axis(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    sl.store(x_ptr, sl.sum(sl.argmax(a, axis=-3)))  # error at col 46: axis -3, out of range


@sw.jit
def err_scan_2d(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.cumsum(a, axis=2)  # error at col 27: axis 2, out of range
    sl.store(x_ptr, sl.sum(b))


@sw.jit
def err_split_last_dim(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    lo, hi = sl.split(a)  # error at col 23: sl.split, last dimension, 2, (4, 8)
    sl.store(x_ptr, sl.sum(lo + hi))


@sw.jit
def err_split_method_of_a_scalar(x_ptr):
    lo, hi = sl.load(x_ptr).split()  # error at col 14: sl.split, last dimension, float32
    sl.store(x_ptr, lo + hi)


@sw.jit
def err_split_pointer_pair(x_ptr):
    p, q = sl.split(x_ptr + sl.arange(0, 2))  # error at col 21: tile of 2 pointers, offsets
    sl.store(p, 1.0)


@sw.jit
def err_join_dtypes(x_ptr):
    a = sl.zeros((8,), sl.float32)
    b = sl.join(a, sl.arange(0, 8))  # error at col 20: one dtype, float32, int32, .to()
    sl.store(x_ptr + sl.arange(0, 16), sl.reshape(b, (16,)))


@sw.jit
def err_join_constant(x_ptr):
    a = sl.zeros((8,), sl.float32)
    b = sl.join(a, 1.0)  # error at col 20: compile-time constant, sl.full
    sl.store(x_ptr + sl.arange(0, 16), sl.reshape(b, (16,)))


@sw.jit
def err_join_shapes(x_ptr):
    a = sl.zeros((8,), sl.float32)
    b = sl.interleave(a, sl.zeros((4,), sl.float32))  # error at col 9: shape mismatch, (8,), (4,)
    sl.store(x_ptr + sl.arange(0, 16), b)


@sw.jit
def err_join_rank(x_ptr):
    a = sl.zeros((2, 2, 2), sl.float32)
    b = sl.join(a, a)  # error at col 9: 4 dimensions, at most 3
    sl.store(x_ptr, sl.sum(sl.reshape(b, (16,))))


@sw.jit
def err_cat_2d(x_ptr):
    a = sl.zeros((4, 8), sl.float32)
    b = sl.cat(sl.zeros((32,), sl.float32), a, can_reorder=True)  # error at col 45: 1-D, (4, 8)
    sl.store(x_ptr + sl.arange(0, 64), b)


@sw.jit
def err_cat_lengths(x_ptr):
    a = sl.zeros((4,), sl.float32)
    b = sl.cat(a, sl.zeros((8,), sl.float32))  # error at col 19: one length, (4,), (8,), power of two
    sl.store(x_ptr + sl.arange(0, 8), b)


@sw.jit
def err_cat_dtypes(x_ptr):
    a = sl.zeros((4,), sl.float32)
    b = sl.cat(a, sl.zeros((4,), sl.float16))  # error at col 19: one dtype, float32, float16
    sl.store(x_ptr + sl.arange(0, 8), b)


@sw.jit
def err_cat_can_reorder(x_ptr, flag):
    a = sl.zeros((4,), sl.float32)
    b = sl.cat(a, a, can_reorder=flag)  # error at col 34: can_reorder, compile-time bool
    sl.store(x_ptr + sl.arange(0, 8), b)


@sw.jit
def err_join_method(x_ptr):
    a = sl.zeros((4,), sl.float32)
    b = a.join(a)  # error at col 9: method, .join(), .split()
    sl.store(x_ptr + sl.arange(0, 8), sl.reshape(b, (8,)))


@pytest.mark.parametrize("kernel", [err_mismatch, err_rank, err_non_pow2, err_axis, err_index,
                                    err_too_many_slices, err_store_shape, err_reshape, err_scan_2d,
                                    err_argmax_axis, err_split_last_dim, err_split_method_of_a_scalar,
                                    err_split_pointer_pair, err_join_dtypes, err_join_constant,
                                    err_join_shapes, err_join_rank, err_cat_2d, err_cat_lengths,
                                    err_cat_dtypes, err_join_method])
def test_malformed_shapes_are_compile_errors_at_the_culprit(kernel):
    expect_compile_error_at_marker(kernel, HERE, {"x_ptr": "*f32"})


def test_cat_can_reorder_must_be_a_compile_time_bool():
    expect_compile_error_at_marker(err_cat_can_reorder, HERE, {"x_ptr": "*f32", "flag": "i1"})


# ---- pointer tiles the SIMT lowering rebuilds ---------------------------------------------

@sw.jit
def big_pointer_tree(x_ptr, idx_ptr, out_ptr, R: sl.constexpr, D: sl.constexpr):
    r = sl.arange(0, R)
    off = sl.load(idx_ptr + r)
    for i in sl.static_range(30):  # an offset expression too large to recompute whole
        off = (off * 3 + i) % 7
    rows = x_ptr + off * D + r % 2
    cols = sl.arange(0, D)[None, :]
    sl.store(out_ptr + r[:, None] * D + cols, sl.load(rows[:, None] + cols))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_large_pointer_tile_is_rebuilt_through_its_offsets(executor):
    R, D = 16, 8
    x = np.arange(64 * D, dtype=np.int32)
    idx = np.arange(R, dtype=np.int32) * 5 % 11
    out = np.zeros((R, D), np.int32)
    run(big_pointer_tree, executor, dict(x_ptr=x, idx_ptr=idx, out_ptr=out), dict(R=R, D=D))
    off = idx.astype(np.int64)
    for i in range(30):
        off = (off * 3 + i) % 7
    start = off * D + np.arange(R) % 2
    np.testing.assert_array_equal(out, x[start[:, None] + np.arange(D)[None, :]])


@sw.jit
def loop_carried_pointers(x_ptr, out_ptr, n, R: sl.constexpr, D: sl.constexpr):
    p = x_ptr + sl.arange(0, R)
    for i in range(n):
        p += 1
    cols = sl.arange(0, D)[None, :]
    sl.store(out_ptr + sl.arange(0, R)[:, None] * D + cols, sl.load(p[:, None] + cols))


def test_a_loop_carried_pointer_tile_broadcast_is_a_simt_compile_error():
    signature = {"x_ptr": "*f32", "out_ptr": "*f32", "n": "i32"}
    loop_carried_pointers.emit_mlir(signature=signature, constexprs={"R": 8, "D": 8})
    with pytest.raises(sw.CompileError) as info:
        loop_carried_pointers.emit_mlir(signature=signature, constexprs={"R": 8, "D": 8}, stage="simt")
    assert "tile of pointers" in str(info.value) and "sw.broadcast" in str(info.value)
