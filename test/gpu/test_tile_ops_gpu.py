"""Every tile operator and dtype of test/python/test_tile_ops.py, run on the
GPU and checked three ways.

Every test of that file is collected here again with `launch` redirected:
each launch with NumPy arrays runs (1) the CPU oracle (the semantic
executor) on copies, and (2) the GPU on CUDA tensors made from copies; the
GPU's results are compared with the oracle's, then written into the test's
own arrays, so (3) the test's own NumPy reference checks the GPU's results
with the tolerances that file states. The tests at the end check bfloat16
tensors (which NumPy lacks), float64 math, and a few operators directly
against PyTorch on the GPU.

GPU vs oracle tolerances. Exact (bit for bit, NaN where NaN) for integers,
bools, casts, comparisons, + - * // %, / on float16, bfloat16 and float64,
min/max/where, abs/floor/ceil, loads and stores, and sqrt (every dtype) and
rsqrt (float32, float64): each is correctly rounded on both sides (f16/bf16
go through f32, which carries more than 2p+2 bits, so the double rounding
is harmless; rsqrt is computed as 1/sqrt in double, as the oracle does).
float32 `/` is Triton's div.full.f32 (PTX ISA: at most 2 ulp): the kernels
that divide (DIVISION_KERNELS) are checked with rtol 2.5e-7 (op_literals'
x / 2 also with an absolute 2.5e-7 * max|result|, for the sums that
cancel), and their results replaced by the oracle's, as for math below.

The other math functions use the hardware approximations, whose documented
maximum errors (PTX ISA 9.1, section 9.7.3, "Floating Point Instructions":
sin, cos, lg2, ex2) are:
  sin.approx.f32, cos.approx.f32  absolute error <= 2^-20.5 (6.7e-7) for
                                  inputs in [-2pi, 2pi] (2^-14.7 up to
                                  100pi; the PTX reduces by 2pi first, so
                                  it stays in the first range);
  lg2.approx.f32                  absolute error <= 2^-22 for inputs in
                                  (0.5, 2), relative error <= 2^-22 elsewhere
                                  (log multiplies it by ln 2 in one rounding);
  ex2.approx.f32                  <= 2 ulp from the correctly rounded result
                                  (exp2, sigmoid are built on it: a few ulp,
                                  see src/backends/ptx/ptx_ops.c; sl.exp is
                                  Triton's ex2.approx.f32 of x * log2(e),
                                  whose rounding adds 1.23 |x| ulp: within
                                  6.2e-6 relative for |x| <= 40, rtol 7e-6).
An absolute bound means that near a zero of the result (sin, cos at their
zeros, log and log2 near 1) the relative error is unbounded: sin(22) =
-0.0088513 comes out 1e-7 away, 1.1e-5 relative. So the tolerance is mixed,
|gpu - oracle| <= atol + rtol * |oracle|, with
  atol = 2e-6 for sin, cos, log, log2 (about 3x the documented 6.7e-7 plus
         the 2pi reduction's rounding and the oracle's own half ulp), 0 for
         the others;
  rtol = 2e-6 for float32 (a few ulp: 2 ulp of ex2 are 2.4e-7 and exp's
         extra rounding steps stay well below), 2e-3 for float16, 2e-2 for
         bfloat16 (one ulp of their own after rounding);
with NaN only where the oracle has NaN and infinities exactly: NaN never
passes. The math results that passed are replaced by the oracle's before the
CPU suite's own check (3), whose tolerance (1e-6 relative to the true value)
is for the oracle, not for hardware approximations.

float64: exp exp2 log log2 sin cos sigmoid are software on the GPU (no
hardware approximation is involved), within 3 ulp of float64 over the whole
range: rtol = 1e-15 and no absolute term, also near the zeros (sin, cos and
log are reduced accurately); test_math_float64 also feeds them subnormals and
huge arguments (sin/cos of 1e22 and 1e300 take the Payne-Hanek path). Float results of op_reduce (sums in another order): NaN placement
here, values through the CPU suite's own checks (exact sums of
quarter-integers, or the float32 rounding bound).
"""


import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw
import swage.language as sl
import test_tile_ops as cpu_suite
from swage_testing import FLOAT_DTYPES, assert_close, assert_same
from test_tile_ops import *  # noqa: F401,F403  (collects every CPU-suite test here again)
from test_tile_ops import ATOL, N, RTOL, cdiv, math_reference

MATH_KERNELS = {"op_math", "op_math_bf16"}
MATH_FUNCTIONS = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "sigmoid")
ABSOLUTE_NEAR_ZERO = {"sin", "cos", "log", "log2"}  # absolute error bounds (see above)
MATH_ATOL = 2e-6
MATH_RTOL = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-6, "float64": 1e-15}
EXP_RTOL_FLOAT32 = 7e-6  # sl.exp: (2.5 + 1.23 |x|) ulp for |x| <= 40 (the module's doc)
DIVISION_KERNELS = {"op_truediv", "op_literals"}
DIVISION_RTOL_FLOAT32 = 2.5e-7  # div.full.f32: 2 ulp
ORDER_DEPENDENT_FLOATS = {"op_reduce"}

_real_launch = sw.JITFunction.launch


def _to_gpu(array):
    return torch.from_numpy(np.ascontiguousarray(array)).to("cuda")


def _math_exact(function, dtype):
    """Whether `function` is correctly rounded on the GPU in `dtype` (as in the oracle)."""
    return function == "sqrt" or (function == "rsqrt" and dtype in ("float32", "float64"))


def _check_math(function, dtype, gpu, oracle, what):
    if _math_exact(function, dtype):
        assert_same(gpu, oracle, None, what)
    else:
        atol = MATH_ATOL if function in ABSOLUTE_NEAR_ZERO and dtype != "float64" else 0.0
        rtol = EXP_RTOL_FLOAT32 if function == "exp" and dtype == "float32" else MATH_RTOL[dtype]
        assert_close(gpu, oracle, rtol, atol, None, what)


def _compare(kernel, name, gpu, oracle):
    """Checks one output; returns what the test's array receives: the GPU's
    values, or the oracle's for approximated math (see the module's doc)."""
    what = "%s: argument %r, GPU vs CPU oracle" % (kernel, name)
    function = name[:-len("_ptr")] if name.endswith("_ptr") else name
    if gpu.dtype.kind == "f" and kernel in ORDER_DEPENDENT_FLOATS:
        # order of float additions differs; the test's own check decides,
        # but NaN must still be where the oracle has it
        assert (np.isnan(gpu) == np.isnan(oracle)).all(), what + ": NaN placement differs"
        return gpu
    if gpu.dtype.kind == "f" and kernel in MATH_KERNELS and function in MATH_FUNCTIONS:
        dtype = "bfloat16" if kernel == "op_math_bf16" else gpu.dtype.name
        _check_math(function, dtype, gpu, oracle, what)
        return gpu if _math_exact(function, dtype) else oracle
    if gpu.dtype == np.float32 and kernel in DIVISION_KERNELS:
        finite = np.isfinite(oracle)
        atol = 2.0 ** -148  # subnormal quotients
        if kernel == "op_literals" and finite.any():
            atol += DIVISION_RTOL_FLOAT32 * float(np.abs(oracle[finite]).max())
        assert_close(gpu, oracle, DIVISION_RTOL_FLOAT32, atol, None, what)
        return oracle
    # (signed zeros are checked by the CPU suite's own assertions where the
    # language defines them: negation and casts)
    assert_same(gpu, oracle, None, what)
    return gpu


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
        array[...] = _compare(self.__name__, names[i], gpu, oracle_copies[i])
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
    # float32: div.full.f32 (2 ulp), as Triton's '/'; the others exact
    rtol = DIVISION_RTOL_FLOAT32 if dtype == torch.float32 else 0
    torch.testing.assert_close(out, x / y, rtol=rtol, atol=0)
    c = torch.rand(n, device="cuda", generator=torch_gen) < 0.5
    outs = {k: torch.full((n,), float("nan"), device="cuda", dtype=dtype)
            for k in ("min_ptr", "max_ptr", "where_ptr")}
    _elementwise(cpu_suite.op_min_max_where, x_ptr=x, y_ptr=y, c_ptr=c, **outs)
    torch.testing.assert_close(outs["min_ptr"], torch.minimum(x, y), rtol=0, atol=0)
    torch.testing.assert_close(outs["max_ptr"], torch.maximum(x, y), rtol=0, atol=0)
    torch.testing.assert_close(outs["where_ptr"], torch.where(c, x, y), rtol=0, atol=0)


# ---- math: float64, and against PyTorch ---------------------------------------------------

@sw.jit
def op_one_math(x_ptr, out_ptr, n, FN: sl.constexpr, BLOCK: sl.constexpr):
    # one function per specialisation (FN indexes MATH_FUNCTIONS), so an
    # unsupported one fails alone, at its own line
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    if FN == 0:
        y = sl.exp(x)
    elif FN == 1:
        y = sl.exp2(x)
    elif FN == 2:
        y = sl.log(x)
    elif FN == 3:
        y = sl.log2(x)
    elif FN == 4:
        y = sl.sqrt(x)
    elif FN == 5:
        y = sl.rsqrt(x)
    elif FN == 6:
        y = sl.sin(x)
    elif FN == 7:
        y = sl.cos(x)
    else:
        y = sl.sigmoid(x)
    sl.store(out_ptr + offs, y, mask=mask)


def _one_math_on_gpu(function, x, block=64):
    """op_one_math on the GPU: the output tensor (its input stays x)."""
    out = torch.full_like(x, float("nan"))
    n = x.numel()
    _real_launch(op_one_math, arguments={"x_ptr": x, "out_ptr": out, "n": n},
                 constexprs={"FN": MATH_FUNCTIONS.index(function), "BLOCK": block},
                 grid=((n + block - 1) // block,))
    torch.cuda.synchronize()
    return out


@pytest.mark.parametrize("dtype", [d for d in FLOAT_DTYPES if d != "float64"])
def test_math_functions(rng, dtype):
    # The CPU suite's test on the GPU, except float64 (test_math_float64 below).
    cpu_suite.test_math_functions(rng, dtype)


@pytest.mark.parametrize("function", MATH_FUNCTIONS)
def test_math_float64(rng, function):
    """float64 on the GPU against the CPU oracle: sqrt and rsqrt bit for bit,
    the others within 3 ulp (the module's doc), special values exactly, over
    moderate, subnormal and huge arguments."""
    x = rng.uniform(-40.0, 40.0, N)
    x[: N // 2] = np.abs(x[: N // 2])
    wide = np.ldexp(1 + rng.random(N // 4), rng.integers(-1074, 1024, N // 4))
    x[N // 2: N // 2 + N // 4] = wide * np.where(rng.random(N // 4) < 0.5, -1, 1)
    x[:15] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 5e-324, 1e-310, 1e22, -1e300,
              1.7976931348623157e308, 709.78, -745.13]
    oracle = np.full(N, np.nan)
    _real_launch(op_one_math, arguments={"x_ptr": x, "out_ptr": oracle, "n": N},
                 constexprs={"FN": MATH_FUNCTIONS.index(function), "BLOCK": 64},
                 grid=(cdiv(N, 64),))
    gpu = _one_math_on_gpu(function, _to_gpu(x)).cpu().numpy()
    _check_math(function, "float64", gpu, oracle, "sl.%s on float64, GPU vs CPU oracle" % function)
    assert (np.signbit(gpu) == np.signbit(oracle))[np.isfinite(oracle) & (oracle == 0)].all(), \
        "sl.%s on float64: signed zeros differ from the oracle" % function
    with np.errstate(all="ignore"):
        assert_close(gpu, math_reference(x, function, "float64"), RTOL["float64"],
                     ATOL["float64"], rng.seed, "sl.%s on float64 on the GPU" % function, {"x": x})


def test_sin_cos_float64_closest_to_a_multiple_of_pi_over_2():
    """x = 6381956970095103 * 2^797 is the double nearest a multiple of pi/2
    (x mod pi/2 = 4.6871659242546276e-19, the hardest case for argument
    reduction): the GPU gets sin and cos right to the last ulp where a libm
    may not (the one on the H200 host gave cos 8 ulp away), so this checks
    against the true values, not the oracle."""
    x = torch.tensor([6381956970095103.0 * 2.0 ** 797], dtype=torch.float64, device="cuda")
    assert _one_math_on_gpu("sin", x).item() == 1.0
    cos = _one_math_on_gpu("cos", x).item()
    assert abs(cos - -4.6871659242546276e-19) <= np.spacing(4.6871659242546276e-19), cos


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_math_matches_pytorch(torch_gen, dtype):
    # Against PyTorch's math in double rounded to the dtype: our error (the
    # bounds in the module's doc) plus half an ulp, twice the oracle's
    # tolerance; absolute near the zeros of sin, cos, log, log2.
    rtol = {torch.float16: 4e-3, torch.float32: 4e-6, torch.float64: 0.0}[dtype]
    n = 1000
    x = torch.empty(n, device="cuda").uniform_(0.01, 30, generator=torch_gen).to(dtype)
    x64 = x.double()
    refs = {"exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2,
            "sqrt": torch.sqrt, "rsqrt": lambda v: torch.ones_like(v) / torch.sqrt(v),
            "sin": torch.sin, "cos": torch.cos, "sigmoid": torch.sigmoid}
    if dtype == torch.float64:
        for name in MATH_FUNCTIONS:
            # sqrt, rsqrt: correctly rounded, exact; the others within 3 ulp
            # of ours plus PyTorch's own (CUDA's double math, 1-2 ulp)
            exact = name in ("sqrt", "rsqrt")
            torch.testing.assert_close(_one_math_on_gpu(name, x), refs[name](x64),
                                       rtol=0 if exact else 2e-15, atol=0,
                                       msg=lambda m, name=name: "sl.%s: %s" % (name, m))
        return
    outs = {name + "_ptr": torch.full((n,), float("nan"), device="cuda", dtype=dtype)
            for name in MATH_FUNCTIONS}
    _elementwise(cpu_suite.op_math, x_ptr=x, **outs)
    for name in MATH_FUNCTIONS:
        expected = refs[name](x64).to(dtype)
        atol = MATH_ATOL if name in ABSOLUTE_NEAR_ZERO else 0.0
        # sl.exp on float32: (2.5 + 1.23 |x|) ulp, |x| < 30 here, plus half an ulp
        r = 6e-6 if name == "exp" and dtype == torch.float32 else rtol
        torch.testing.assert_close(outs[name + "_ptr"], expected, rtol=r, atol=atol,
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
        # (torch sums int32 into int64 unless told otherwise; Swage's sum
        # keeps the dtype: every sum here fits in it)
        torch.testing.assert_close(outs["sum_ptr"], rows.sum(dim=1, dtype=dtype), rtol=0, atol=0)
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
