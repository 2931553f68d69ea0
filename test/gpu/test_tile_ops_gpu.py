"""Every tile operator and dtype of test/python/test_tile_ops.py, run on the
GPU and checked three ways.

Every test of that file is collected here again with `launch` redirected:
each launch with NumPy arrays runs (1) the CPU oracle (the semantic
executor) on copies, and (2) the GPU on CUDA tensors made from copies; the
GPU's results are compared with the oracle's, then written into the test's
own arrays, so (3) the test's own NumPy reference checks the GPU's results
with the tolerances that file states. The tests at the end check bfloat16
tensors (which NumPy lacks) and a few operators directly against PyTorch on
the GPU.

GPU vs oracle tolerances: exact (bit for bit, NaN where NaN) for integers, bools, casts, comparisons, + - * / // %, min/max/where,
abs/floor/ceil, loads and stores, since each is one correctly rounded
operation (f16/bf16 via f32 rounds once: 24 >= 2p+2 bits). Math functions
(exp exp2 log log2 sqrt rsqrt sin cos sigmoid), which the GPU may compute
with other algorithms than the oracle's double-then-round: rtol 2e-6 (f32),
2e-3 (f16), 2e-2 (bf16), 2e-13 (f64) with NaN and infinities exact, twice the
CPU suite's tolerance against the true value. Float results of op_reduce
(sums in another order): NaN placement here, values through the CPU suite's
own checks (exact sums of quarter-integers, or the float32 rounding bound).
NaN never passes.
"""

import numpy as np
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw
import swage.language as sl
import test_tile_ops as cpu_suite
from swage_testing import assert_close, assert_same
from test_tile_ops import *  # noqa: F401,F403  (collects every CPU-suite test here again)

MATH_KERNELS = {"op_math", "op_math_bf16"}
MATH_RTOL = {"float16": 2e-3, "float32": 2e-6, "float64": 2e-13}
ORDER_DEPENDENT_FLOATS = {"op_reduce"}

_real_launch = sw.JITFunction.launch


def _to_gpu(array):
    return torch.from_numpy(np.ascontiguousarray(array)).to("cuda")


def _compare(kernel, name, gpu, oracle):
    what = "%s: argument %r, GPU vs CPU oracle" % (kernel, name)
    if gpu.dtype.kind == "f" and kernel in ORDER_DEPENDENT_FLOATS:
        # order of float additions differs; the test's own check decides,
        # but NaN must still be where the oracle has it
        assert (np.isnan(gpu) == np.isnan(oracle)).all(), what + ": NaN placement differs"
        return
    if gpu.dtype.kind == "f" and kernel in MATH_KERNELS:
        rtol = 2e-2 if kernel == "op_math_bf16" else MATH_RTOL[gpu.dtype.name]
        assert_close(gpu, oracle, rtol, 0.0, None, what)
        return
    # (signed zeros are checked by the CPU suite's own assertions where the
    # language defines them: negation and casts)
    assert_same(gpu, oracle, None, what)


def _gpu_launch(self, *args, arguments=None, constexprs=None, grid=None, **options):
    """launch() with NumPy arrays: the oracle on copies, then the GPU on
    CUDA copies; the GPU's results land in the caller's arrays."""
    if args or not isinstance(arguments, dict):
        return _real_launch(self, *args, arguments=arguments, constexprs=constexprs, grid=grid,
                            **options)
    arrays = {k: v for k, v in arguments.items() if isinstance(v, np.ndarray)}
    if not arrays:
        return _real_launch(self, arguments=arguments, constexprs=constexprs, grid=grid,
                            **options)
    # One copy per distinct array, so arguments that alias stay aliased.
    by_id = {}
    for value in arrays.values():
        by_id.setdefault(id(value), value)
    oracle_copies = {i: a.copy() for i, a in by_id.items()}
    oracle_args = dict(arguments)
    oracle_args.update({k: oracle_copies[id(v)] for k, v in arrays.items()})
    # The oracle first: a kernel that does not compile, or fails on the
    # CPU, raises here exactly as in the CPU suite.
    _real_launch(self, arguments=oracle_args, constexprs=constexprs, grid=grid, **options)

    tensors = {i: _to_gpu(a) for i, a in by_id.items()}
    gpu_args = dict(arguments)
    gpu_args.update({k: tensors[id(v)] for k, v in arrays.items()})
    result = _real_launch(self, arguments=gpu_args, constexprs=constexprs, grid=grid, **options)
    assert result is None
    torch.cuda.synchronize()
    names = {id(v): k for k, v in arrays.items()}
    for i, array in by_id.items():
        gpu = tensors[i].cpu().numpy()
        _compare(self.__name__, names[i], gpu, oracle_copies[i])
        array[...] = gpu
    return None


@pytest.fixture(autouse=True)
def _launch_on_the_gpu(monkeypatch):
    monkeypatch.setattr(sw.JITFunction, "launch", _gpu_launch)


# ---- directly against PyTorch on the GPU --------------------------------------------------

TORCH_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _random(gen, n, dtype):
    if dtype.is_floating_point:
        return (torch.randn(n, device="cuda", generator=gen) * 10).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, (n,), device="cuda", generator=gen, dtype=dtype)


def _elementwise(kernel, n=1000, block=128, **tensors):
    _real_launch(kernel, arguments=dict(tensors, n=n), constexprs={"BLOCK": block},
                 grid=((n + block - 1) // block,))
    torch.cuda.synchronize()


@pytest.mark.parametrize("dtype", TORCH_DTYPES + [torch.int8, torch.int32, torch.int64])
@pytest.mark.parametrize("kernel, ref", [(cpu_suite.op_add, torch.add),
                                         (cpu_suite.op_sub, torch.sub),
                                         (cpu_suite.op_mul, torch.mul)])
def test_arithmetic_matches_pytorch(torch_gen, dtype, kernel, ref):
    # one correctly rounded operation (or wrapping integers): exact
    n = 1000
    x, y = _random(torch_gen, n, dtype), _random(torch_gen, n, dtype)
    out = torch.zeros(n, device="cuda", dtype=dtype)
    if dtype.is_floating_point:
        out.fill_(float("nan"))
    _elementwise(kernel, x_ptr=x, y_ptr=y, out_ptr=out)
    torch.testing.assert_close(out, ref(x, y), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_division_minimum_maximum_match_pytorch(torch_gen, dtype):
    n = 1000
    x, y = _random(torch_gen, n, dtype), _random(torch_gen, n, dtype)
    out = torch.full((n,), float("nan"), device="cuda", dtype=dtype)
    _elementwise(cpu_suite.op_truediv, x_ptr=x, y_ptr=y, out_ptr=out)
    torch.testing.assert_close(out, x / y, rtol=0, atol=0)
    c = torch.rand(n, device="cuda", generator=torch_gen) < 0.5
    outs = {k: torch.full((n,), float("nan"), device="cuda", dtype=dtype)
            for k in ("min_ptr", "max_ptr", "where_ptr")}
    _elementwise(cpu_suite.op_min_max_where, x_ptr=x, y_ptr=y, c_ptr=c, **outs)
    torch.testing.assert_close(outs["min_ptr"], torch.minimum(x, y), rtol=0, atol=0)
    torch.testing.assert_close(outs["max_ptr"], torch.maximum(x, y), rtol=0, atol=0)
    torch.testing.assert_close(outs["where_ptr"], torch.where(c, x, y), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_math_matches_pytorch(torch_gen, dtype):
    # tolerances against PyTorch's own GPU math: two approximations, each
    # within a few ulp of the truth
    rtol = {torch.float16: 4e-3, torch.float32: 4e-6, torch.float64: 1e-12}[dtype]
    n = 1000
    x = torch.empty(n, device="cuda").uniform_(0.01, 30, generator=torch_gen).to(dtype)
    names = ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "sigmoid"]
    outs = {name + "_ptr": torch.full((n,), float("nan"), device="cuda", dtype=dtype)
            for name in names}
    _elementwise(cpu_suite.op_math, x_ptr=x, **outs)
    x64 = x.double()
    refs = {"exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2,
            "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos,
            "sigmoid": torch.sigmoid}
    for name in names:
        expected = refs[name](x64).to(dtype)
        # sin/cos near their zeros: relative error is meaningless, allow 1 ulp of |x|-scale
        atol = 4 * torch.finfo(dtype).eps if name in ("sin", "cos") else 0.0
        torch.testing.assert_close(outs[name + "_ptr"], expected, rtol=rtol, atol=atol,
                                   msg=lambda m, name=name: "sl.%s on %s: %s" % (name, dtype, m))


def test_bfloat16_tensors_arithmetic_and_casts(torch_gen):
    n = 777
    x = _random(torch_gen, n, torch.bfloat16)
    y = _random(torch_gen, n, torch.bfloat16)
    out = torch.full((n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    _elementwise(cpu_suite.op_add, x_ptr=x, y_ptr=y, out_ptr=out)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    for dst, sl_dtype in [(torch.float32, sl.float32), (torch.int32, sl.int32),
                          (torch.float16, sl.float16), (torch.bool, sl.int1)]:
        cast = torch.zeros(n, device="cuda", dtype=dst)
        _real_launch(cpu_suite.op_cast, arguments={"x_ptr": x, "out_ptr": cast, "n": n},
                     constexprs={"DTYPE": sl_dtype, "BLOCK": 128}, grid=((n + 127) // 128,))
        torch.cuda.synchronize()
        expected = x.to(dst)  # truncation toward zero; no NaN or out-of-range values here
        torch.testing.assert_close(cast, expected, rtol=0, atol=0,
                                   msg=lambda m, dst=dst: "bf16 -> %s: %s" % (dst, m))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_reductions_match_pytorch(torch_gen, dtype):
    programs, block = 64, 1024
    if dtype.is_floating_point:
        x = torch.randn(programs * block, device="cuda", generator=torch_gen).to(dtype)
    else:
        x = torch.randint(-1000, 1000, (programs * block,), device="cuda", generator=torch_gen,
                          dtype=dtype)
    outs = {k: torch.full((programs,), -1, device="cuda", dtype=dtype)
            for k in ("sum_ptr", "max_ptr", "min_ptr")}
    _real_launch(cpu_suite.op_reduce, arguments=dict(outs, x_ptr=x), constexprs={"BLOCK": block},
                 grid=(programs,))
    torch.cuda.synchronize()
    rows = x.view(programs, block)
    if dtype.is_floating_point:
        # |error| <= (block - 1) * eps * sum|x| for any summation order
        exact = rows.double().sum(dim=1)
        bound = (block - 1) * torch.finfo(dtype).eps * rows.double().abs().sum(dim=1)
        error = (outs["sum_ptr"].double() - exact).abs()
        assert not outs["sum_ptr"].isnan().any()
        assert (error <= bound).all(), "sums %s vs %s" % (outs["sum_ptr"], exact)
    else:
        torch.testing.assert_close(outs["sum_ptr"], rows.sum(dim=1), rtol=0, atol=0)
    torch.testing.assert_close(outs["max_ptr"], rows.amax(dim=1), rtol=0, atol=0)
    torch.testing.assert_close(outs["min_ptr"], rows.amin(dim=1), rtol=0, atol=0)


def test_bool_tensors_from_comparisons(torch_gen):
    n = 1000
    x = torch.randn(n, device="cuda", generator=torch_gen)
    y = x.clone()
    y[::2] = torch.randn(n // 2, device="cuda", generator=torch_gen)
    outs = {k + "_ptr": torch.zeros(n, device="cuda", dtype=torch.bool)
            for k in ("lt", "le", "gt", "ge", "eq", "ne")}
    _elementwise(cpu_suite.op_compare, x_ptr=x, y_ptr=y, **outs)
    for name, ref in [("lt", torch.lt), ("le", torch.le), ("gt", torch.gt), ("ge", torch.ge),
                      ("eq", torch.eq), ("ne", torch.ne)]:
        assert torch.equal(outs[name + "_ptr"], ref(x, y)), name
