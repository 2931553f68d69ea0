"""The newest tile-language constructs on the GPU, against the reference
executor on the same inputs: scans, argmax/argmin, histogram, gather
(test/python/test_scans.py), while/break/continue, early returns (nested in
`if`s too), numbers as conditions, local `X: sl.constexpr` with `.dtype`,
`.shape` and `.element_ty` (test_control_flow.py), calls of @sw.jit
functions (test_jit_calls.py).
Each kernel runs once on CPU NumPy arrays (executor="semantic") and once on
CUDA copies of them; every array must come back equal (integers and
element-wise float results) or within float32 reassociation (scans and
reductions, whose order differs by design: docs/language.md).
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

from gpu_pairs import run_both  # noqa: E402  (test/gpu)

import test_control_flow as cf  # noqa: E402  (test/python)
import test_jit_calls as calls  # noqa: E402
import test_constexpr_kinds as kinds  # noqa: E402
import test_scans as scans  # noqa: E402
import test_simt_differential as simt  # noqa: E402


def same(cpu, gpu, rtol=0.0, atol=0.0):
    for name in cpu:
        if rtol or atol:
            np.testing.assert_allclose(gpu[name], cpu[name], rtol=rtol, atol=atol, err_msg=name)
        else:
            assert np.array_equal(gpu[name], cpu[name], equal_nan=cpu[name].dtype.kind == "f"), name


@pytest.mark.parametrize("block", [1, 32, 256, 1024])
@pytest.mark.parametrize("reverse", [False, True])
def test_gpu_cumsum_and_cumprod(rng, block, reverse):
    x = rng.integers(-5, 6, block).astype(np.int32)
    for prod in (False, True):
        cpu, gpu = run_both(scans.cum_kernel, {"x_ptr": x, "y_ptr": np.zeros(block, np.int32)}, {},
                            {"BLOCK": block, "REVERSE": reverse, "PROD": prod}, (1,))
        same(cpu, gpu)  # integers wrap alike in any order
    xf = rng.standard_normal(block).astype(np.float32)
    cpu, gpu = run_both(scans.cum_kernel, {"x_ptr": xf, "y_ptr": np.zeros(block, np.float32)}, {},
                        {"BLOCK": block, "REVERSE": reverse, "PROD": False}, (1,))
    same(cpu, gpu, rtol=1e-5, atol=1e-5 * block)


@pytest.mark.parametrize("block", [16, 1024])
@pytest.mark.parametrize("left", [True, False])
def test_gpu_argmax_argmin(rng, block, left):
    x = rng.integers(-3, 4, block).astype(np.float32)  # ties
    x[rng.integers(0, block)] = np.nan
    cpu, gpu = run_both(scans.arg_kernel, {"x_ptr": x, "r_ptr": np.zeros(2, np.int32)}, {},
                        {"BLOCK": block, "LEFT": left}, (1,))
    same(cpu, gpu)


@pytest.mark.parametrize("block, bins", [(64, 64), (1024, 128)])
def test_gpu_histogram_and_gather(rng, block, bins):
    x = rng.integers(-3, bins + 3, block).astype(np.int32)
    cpu, gpu = run_both(scans.histogram_kernel, {"x_ptr": x, "h_ptr": np.zeros(bins, np.int32),
                                                 "m_ptr": np.zeros(bins, np.int32)}, {},
                        {"BLOCK": block, "BINS": bins}, (1,))
    same(cpu, gpu)
    src = rng.standard_normal(block).astype(np.float32)
    idx = rng.integers(0, block, 256).astype(np.int32)
    cpu, gpu = run_both(scans.gather_kernel, {"x_ptr": src, "i_ptr": idx, "y_ptr": np.zeros(256, np.float32)},
                        {}, {"N": block, "M": 256}, (1,))
    same(cpu, gpu)


def test_gpu_while_break_continue_and_early_return(rng):
    rows, block = 6, cf.BLOCK
    x = rng.standard_normal(rows * 8 * block).astype(np.float32)
    lengths = rng.integers(0, 9, rows).astype(np.int32)
    cpu, gpu = run_both(cf.k_row_sums, {"x_ptr": x, "lengths_ptr": lengths,
                                        "out_ptr": np.zeros(rows * block, np.float32)}, {},
                        {"BLOCK": block}, (rows,))
    same(cpu, gpu, rtol=1e-6, atol=1e-6)
    n = 50
    start = rng.integers(1, 10000, n + 3).astype(np.int32)
    cpu, gpu = run_both(cf.k_collatz, {"n_ptr": start, "steps_ptr": np.zeros(n + 3, np.int32)}, {"n": n},
                        {}, (n + 3,))
    same(cpu, gpu)
    v = rng.standard_normal(300).astype(np.float32)
    cpu, gpu = run_both(cf.k_first_above, {"x_ptr": v, "out_ptr": np.zeros(1, np.int32)},
                        {"n": 300, "limit": 1.5}, {}, (1,))
    same(cpu, gpu)
    cpu, gpu = run_both(cf.k_sum_skipping, {"x_ptr": v, "out_ptr": np.zeros(1, np.float32)}, {"n": 300},
                        {}, (1,))
    same(cpu, gpu, rtol=1e-5, atol=1e-5)


def test_gpu_calls_of_jit_functions(rng):
    n, block = 1000, 128
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    grid = ((n + block - 1) // block,)
    cpu, gpu = run_both(calls.k_axpy, {"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(n, np.float32)},
                        {"a": 0.5, "n": n}, {"BLOCK": block}, grid)
    same(cpu, gpu, rtol=1e-6, atol=1e-6)
    cpu, gpu = run_both(calls.k_tuple, {"x_ptr": x, "y_ptr": y, "s_ptr": np.zeros(n, np.float32),
                                        "d_ptr": np.zeros(n, np.float32)}, {"n": n}, {"BLOCK": block}, grid)
    same(cpu, gpu)
    cpu, gpu = run_both(calls.k_early_return_value, {"x_ptr": x, "out_ptr": np.zeros(n, np.float32)},
                        {"n": n, "limit": 0.25}, {"BLOCK": block}, grid)
    same(cpu, gpu)


@pytest.mark.parametrize("block", [64, 1024, 4096])
@pytest.mark.parametrize("shift", [0, 1, 2])
def test_gpu_window_masks_and_misaligned_pointers(rng, block, shift):
    # masks whose vector groups the emitter decides on one bit a group
    # (vec_mask) and one test a thread (vec_all), with bounds inside and on
    # the edges of the groups, and pointers `shift` elements past a 16-byte
    # boundary (the per-group and per-slot paths): as the reference executor
    n = block + 8
    for lo, hi in [(0, block), (1, block - 1), (3, 5), (4, 8), (block // 2 + 2, block + 3),
                   (int(rng.integers(0, block)), int(rng.integers(0, block + 1))), (block, 0)]:
        for flag in (0, 1):
            x = rng.integers(-100, 100, n).astype(np.int32)
            outs = {k: rng.integers(-100, 100, n).astype(np.int32)
                    for k in ("a_ptr", "b_ptr", "c_ptr", "d_ptr")}
            cpu = {k: v.copy() for k, v in outs.items()}
            args = dict(x_ptr=x[shift:], lo=lo, hi=hi, flag=flag)
            args.update({k: v[shift:] for k, v in cpu.items()})
            simt.k_window.launch(arguments=args, constexprs={"BLOCK": block}, grid=(1,),
                                 executor="semantic")
            gpu = {k: torch.from_numpy(v.copy()).cuda() for k, v in outs.items()}
            gx = torch.from_numpy(x).cuda()
            gargs = dict(x_ptr=gx[shift:], lo=lo, hi=hi, flag=flag)
            gargs.update({k: v[shift:] for k, v in gpu.items()})
            simt.k_window.launch(arguments=gargs, constexprs={"BLOCK": block}, grid=(1,))
            torch.cuda.synchronize()
            for k in outs:
                assert np.array_equal(gpu[k].cpu().numpy(), cpu[k]), (k, block, shift, lo, hi, flag)


def test_gpu_early_returns_inside_nested_ifs(rng):
    n = 8 * cf.BLOCK
    x = rng.standard_normal(n).astype(np.float32)
    cpu, gpu = run_both(cf.k_guarded_copy, {"x_ptr": x, "out_ptr": np.full(n, np.nan, np.float32)},
                        {"n": n, "nprog": 6}, {"BLOCK": cf.BLOCK}, (10,))
    same(cpu, gpu)


@pytest.mark.parametrize("k, f", [(0, 0.0), (3, 0.0), (0, -0.5), (-2, float("nan"))])
def test_gpu_numbers_as_conditions(rng, k, f):
    # an int32 tile as sl.where's condition, int and float scalars in `if`
    # and in `x if c else y` (NaN is true)
    n = 150
    x = rng.standard_normal(n).astype(np.float32)
    flags = rng.integers(-2, 3, n).astype(np.int32)
    cpu, gpu = run_both(cf.k_number_conditions, {"x_ptr": x, "flags_ptr": flags,
                                                 "out_ptr": np.zeros(n, np.float32)},
                        {"n": n, "k": k, "f": f}, {"BLOCK": cf.BLOCK}, (3,))
    same(cpu, gpu)


@pytest.mark.parametrize("start", [0, 1, 17])
def test_gpu_while_on_an_integer_condition(start):
    cpu, gpu = run_both(cf.k_countdown, {"out_ptr": np.zeros(1, np.int32)}, {"start": start}, {},
                        (1,))
    same(cpu, gpu)


def test_gpu_local_constexpr_dtype_and_shape(rng):
    # HALF: sl.constexpr = BLOCK // 2, static_assert, x.shape, y.dtype,
    # out_ptr.dtype.element_ty and a float16 round trip through float32
    n = 100
    x = rng.integers(-50, 50, n).astype(np.float16)
    y = rng.integers(-50, 50, n).astype(np.int32)
    cpu, gpu = run_both(cf.k_dtype_shape, {"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(n, np.float32)},
                        {"n": n}, {"BLOCK": cf.BLOCK}, (2,))
    same(cpu, gpu)


@pytest.mark.parametrize("act", ["relu", "double", "twice", "none", "other"])
@pytest.mark.parametrize("bias", [None, 0.5])
def test_gpu_string_and_none_constexprs(act, bias):
    # test_constexpr_kinds.test_string_and_none_constexprs_pick_branches
    x = np.linspace(-3, 3, kinds.N).astype(np.float32)
    cpu, gpu = run_both(kinds.k_act, {"x_ptr": x, "y_ptr": np.zeros_like(x)}, {"n": kinds.N},
                        {"ACT": act, "BIAS": bias}, kinds.grid())
    same(cpu, gpu)
    np.testing.assert_array_equal(cpu["y_ptr"], kinds.act_reference(x, act, bias))


@pytest.mark.parametrize("shape", [(16, 32), (8, 4)])
@pytest.mark.parametrize("scale", [(2.0, None, "add", True), (3.0, None, "sub", True)])
def test_gpu_tuple_constexprs(shape, scale):
    # test_constexpr_kinds.test_tuple_constexprs
    x = np.arange(shape[0] * shape[1], dtype=np.float32)
    cpu, gpu = run_both(kinds.k_tuple, {"x_ptr": x, "y_ptr": np.zeros_like(x)}, {},
                        {"SHAPE": shape, "SCALE": scale}, (1,))
    same(cpu, gpu)
    np.testing.assert_array_equal(cpu["y_ptr"], x * 2 + 1 if scale[2] == "add" else x)


@pytest.mark.parametrize("op, scale", [("sum", None), ("max", None), ("sum", 2.0)])
def test_gpu_string_constexprs_in_a_segment_program(op, scale):
    # test_constexpr_kinds.test_segment_programs_and_plan_take_them
    values = np.arange(10, dtype=np.float32)
    offsets = np.array([0, 3, 3, 10], np.int32)
    cpu, gpu = run_both(kinds.k_segment_reduce,
                        {"values_ptr": values, "offsets_ptr": offsets,
                         "out_ptr": np.zeros(3, np.float32)}, {},
                        {"OP": op, "SCALE": scale}, None)
    same(cpu, gpu)
