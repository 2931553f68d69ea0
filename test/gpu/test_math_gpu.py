"""libdevice's math functions (ptx_math.c) and sl.device_print on the GPU.

Math: every function of docs/language.md's "libdevice functions" table, on
float32, float64, float16 and bfloat16, against long double NumPy (the
host's C library) over special values, domain edges, uniform ranges and
magnitudes across the whole range of the dtype. The bounds are the
documented ones: float64 within each function's ulp bound (pow's grows
with |y log|x||), float32 and the 16-bit formats rounded once from the
float64 result (within half an ulp of their own, plus a hair for the
float64 error). Against PyTorch's CUDA functions (libdevice's, a few ulp
themselves) float32 must agree within 5 ulp. Special results (NaN,
infinities, signed zeros) must be exactly the C library's.

Printing: a print kernel runs in a child process (vprintf writes to the
process's stdout when the kernel is synchronised); its lines, sorted (the
threads' order is not defined), must be the CPU executor's.
"""

import ctypes
import ctypes.util
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw  # noqa: E402
import swage.language as sl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
         "expm1", "log1p", "log10", "exp10", "cbrt", "trunc", "round", "rint", "erfc"]
BINARY = ["atan2", "pow", "hypot", "fmod", "copysign"]

# float64 bounds in ulps (docs/language.md); 0: exact
BOUND64 = {"tan": 3.5, "asin": 3, "acos": 3, "atan": 2.5, "sinh": 2.5, "cosh": 2.5, "tanh": 2.5,
           "asinh": 3, "acosh": 2.5, "atanh": 3, "expm1": 2, "log1p": 2.5, "log10": 2,
           "exp10": 2, "cbrt": 1, "trunc": 0, "round": 0, "rint": 0, "atan2": 3, "hypot": 2,
           "fmod": 0, "copysign": 0,
           # 3.20 measured by test_ptx_math, plus the half ulp of the reference (a double)
           "erfc": 4}

# uniform ranges of the arguments
RANGE = {"tan": (-10, 10), "asin": (-1, 1), "acos": (-1, 1), "atan": (-10, 10),
         "sinh": (-720, 720), "cosh": (-720, 720), "tanh": (-25, 25), "asinh": (-1e3, 1e3),
         "acosh": (1, 1e3), "atanh": (-1, 1), "expm1": (-50, 720), "log1p": (-1, 10),
         "log10": (0, 1e6), "exp10": (-330, 310), "cbrt": (-1e3, 1e3), "trunc": (-1e6, 1e6),
         "round": (-1e6, 1e6), "rint": (-1e6, 1e6), "atan2": (-10, 10), "pow": (0, 10),
         "hypot": (-1e3, 1e3), "fmod": (-1e3, 1e3), "copysign": (-10, 10), "erfc": (-6, 28)}

L = np.longdouble

# NumPy has no erfc: the C library's long double erfcl, which ctypes hands
# back as a double (within half an ulp of float64)
_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.erfcl.restype, _libm.erfcl.argtypes = ctypes.c_longdouble, [ctypes.c_longdouble]
_erfcl = np.vectorize(lambda v: _libm.erfcl(float(v)), otypes=[np.float64])

REFERENCE = {
    "erfc": lambda x: _erfcl(x).astype(L),
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "expm1": np.expm1, "log1p": np.log1p, "log10": np.log10,
    "exp10": lambda x: np.power(L(10), x), "cbrt": np.cbrt, "trunc": np.trunc,
    "round": lambda x: np.copysign(np.floor(np.abs(x) + L(0.5)), x),
    "rint": np.rint, "atan2": np.arctan2, "pow": np.power, "hypot": np.hypot, "fmod": np.fmod,
    "copysign": np.copysign,
}
TORCH = {"tan": torch.tan, "asin": torch.asin, "acos": torch.acos, "atan": torch.atan,
         "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh, "asinh": torch.asinh,
         "acosh": torch.acosh, "atanh": torch.atanh, "expm1": torch.expm1, "log1p": torch.log1p,
         "log10": torch.log10, "trunc": torch.trunc, "atan2": torch.atan2, "pow": torch.pow,
         "hypot": torch.hypot, "fmod": torch.fmod, "copysign": torch.copysign}

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 2.5, -2.5, 3.0, 0.1, 22.0, -22.0, 709.5,
            710.5, -745.0, 308.0, -323.0, 2.0 ** 28, 1e-8, 1e-300, 5e-324, 1e300, np.inf, -np.inf,
            np.nan, 0.9999999999999999, 1.0000000000000002, 1e22, 4503599627370496.5, 8388608.5]


@sw.jit
def unary_kernel(X, Y, n, FN: sl.constexpr, BLOCK: sl.constexpr):
    o = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    if FN == 0:
        y = sl.extra.libdevice.tan(x)
    elif FN == 1:
        y = sl.extra.libdevice.asin(x)
    elif FN == 2:
        y = sl.extra.libdevice.acos(x)
    elif FN == 3:
        y = sl.extra.libdevice.atan(x)
    elif FN == 4:
        y = sl.extra.libdevice.sinh(x)
    elif FN == 5:
        y = sl.extra.libdevice.cosh(x)
    elif FN == 6:
        y = sl.extra.libdevice.tanh(x)
    elif FN == 7:
        y = sl.extra.libdevice.asinh(x)
    elif FN == 8:
        y = sl.extra.libdevice.acosh(x)
    elif FN == 9:
        y = sl.extra.libdevice.atanh(x)
    elif FN == 10:
        y = sl.extra.libdevice.expm1(x)
    elif FN == 11:
        y = sl.extra.libdevice.log1p(x)
    elif FN == 12:
        y = sl.extra.libdevice.log10(x)
    elif FN == 13:
        y = sl.extra.libdevice.exp10(x)
    elif FN == 14:
        y = sl.extra.libdevice.cbrt(x)
    elif FN == 15:
        y = sl.extra.libdevice.trunc(x)
    elif FN == 16:
        y = sl.extra.libdevice.round(x)
    elif FN == 17:
        y = sl.extra.libdevice.rint(x)
    else:
        y = sl.extra.libdevice.erfc(x)
    sl.store(Y + o, y, mask=o < n)


@sw.jit
def binary_kernel(X, Z, Y, n, FN: sl.constexpr, BLOCK: sl.constexpr):
    o = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    z = sl.load(Z + o, mask=o < n)
    if FN == 0:
        y = sl.extra.libdevice.atan2(x, z)
    elif FN == 1:
        y = sl.extra.libdevice.pow(x, z)
    elif FN == 2:
        y = sl.extra.libdevice.hypot(x, z)
    elif FN == 3:
        y = sl.extra.libdevice.fmod(x, z)
    else:
        y = sl.extra.libdevice.copysign(x, z)
    sl.store(Y + o, y, mask=o < n)


def sweep(rng, dtype, lo, hi, n):
    """Uniform over [lo, hi] for half, random magnitudes over dtype's range for the rest."""
    info = np.finfo(dtype)
    x = rng.uniform(lo, hi, n)
    k = n // 2
    exps = rng.integers(int(np.log2(info.smallest_subnormal)), int(np.log2(info.max)) + 1, k)
    x[:k] = np.ldexp(1 + rng.random(k), exps) * np.where(rng.random(k) < 0.5, -1, 1)
    return x


def run(name, dtype, args):
    """sl.<name> on the GPU over args (arrays of dtype); the result as float64."""
    tdtype = getattr(torch, dtype)
    tensors = [torch.from_numpy(a.astype(np.float64)).to("cuda", tdtype) for a in args]
    out = torch.full_like(tensors[0], float("nan"))
    n, block = out.numel(), 256
    if len(args) == 1:
        unary_kernel[(sw.cdiv(n, block),)](tensors[0], out, n, FN=UNARY.index(name), BLOCK=block)
    else:
        binary_kernel[(sw.cdiv(n, block),)](tensors[0], tensors[1], out, n, FN=BINARY.index(name),
                                            BLOCK=block)
    torch.cuda.synchronize()
    return out.double().cpu().numpy(), [t.double().cpu().numpy() for t in tensors]


def ulps(got, ref, dtype):
    """|got - ref| in ulps of dtype at ref (ref in long double)."""
    info = np.finfo(dtype)
    mag = np.maximum(np.abs(ref.astype(np.float64)), info.tiny)
    ulp = np.ldexp(1.0, (np.floor(np.log2(mag)) - (info.nmant)).astype(int))
    with np.errstate(all="ignore"):
        return np.abs(got.astype(L) - ref).astype(np.float64) / ulp


def check(name, dtype, got, args, seed):
    with np.errstate(all="ignore"):
        ref = REFERENCE[name](*[a.astype(L) for a in args])
        want = ref.astype(np.float64).astype(dtype).astype(np.float64)
    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(got) | (got == 0)
    same = (np.isnan(want) & np.isnan(got)) | ((want == got) & (np.signbit(want) == np.signbit(got)))
    err = ulps(got, ref, dtype)
    if dtype == "float64":
        bound = np.full(got.shape, BOUND64.get(name, 0.0))
        if name == "pow":
            with np.errstate(all="ignore"):
                p = np.abs(args[1] * np.log(np.abs(args[0])))
            bound = 2 + np.where(np.isfinite(p), p, 0) / 8
    else:
        exact = BOUND64.get(name, 1) == 0
        bound = np.full(got.shape, 0.0 if exact else 0.5 + 2.0 ** -20)
    # a result at the edge of overflow or underflow may be within the bound
    # on the other side of it
    ok = np.where(special, same | (np.isfinite(err) & (err <= bound + 0.5) &
                                   (np.signbit(want) == np.signbit(got))), err <= bound)
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, "sl.%s on %s (seed %s): %d bad, e.g. %s" % (
        name, dtype, seed, bad.size,
        "; ".join("args %s: got %r, want %r (%.3g ulp)" % ([a[i] for a in args], got[i], want[i], err[i])
                  for i in bad[:5]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_math_on_the_gpu(rng, name, dtype):
    ndt = "float32" if dtype == "bfloat16" else dtype
    x = np.concatenate([np.array(SPECIALS), sweep(rng, ndt, *RANGE[name], 20000)])
    got, (x,) = run(name, dtype, [x])
    if dtype == "bfloat16":  # NumPy has no bfloat16: half an ulp of its 8 bits
        with np.errstate(all="ignore"):
            ref = REFERENCE[name](x.astype(L)).astype(np.float64)
        fin = np.isfinite(ref) & np.isfinite(got) & (ref != 0)
        # below bfloat16's normal range (2^-126) its ulp stays that of the
        # smallest subnormal, 2^-133: half of it is the absolute bound there
        bound = np.maximum(np.abs(ref[fin]) * 2.0 ** -8, 2.0 ** -134) * 1.001
        assert (np.abs(got - ref)[fin] <= bound).all(), name
        return
    check(name, dtype, got, [x], rng.seed)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_math_on_the_gpu(rng, name, dtype):
    s = np.array(SPECIALS)
    x = np.concatenate([np.repeat(s, s.size), sweep(rng, dtype, *RANGE[name], 20000)])
    y = np.concatenate([np.tile(s, s.size), sweep(rng, dtype, *RANGE[name], 20000)])
    if name == "pow":  # integral exponents of negative bases, results near the limits
        y[-5000:] = rng.integers(-40, 41, 5000)
        x[-5000:] = -x[-5000:]
    got, args = run(name, dtype, [x, y])
    check(name, dtype, got, args, rng.seed)


@pytest.mark.parametrize("name", [n for n in UNARY + BINARY if n in TORCH])
def test_float32_agrees_with_pytorch(torch_gen, name):
    # PyTorch's CUDA functions are libdevice's, a few ulp from the truth
    n = 10000
    lo, hi = RANGE[name]
    x = torch.empty(n, device="cuda").uniform_(lo, hi, generator=torch_gen)
    args = [x] if name in UNARY else [x, torch.empty(n, device="cuda").uniform_(-4, 4, generator=torch_gen)]
    got, _ = run(name, "float32", [a.cpu().numpy() for a in args])
    want = TORCH[name](*args).cpu().numpy().astype(np.float64)
    fin = np.isfinite(want) & np.isfinite(got)
    assert (np.isnan(want) == np.isnan(got)).all(), name
    spacing = np.spacing(np.abs(want[fin]).astype(np.float32)).astype(np.float64)
    assert (np.abs(got[fin] - want[fin]) <= 5 * spacing).all(), name


def test_isnan_isinf_signbit_on_the_gpu():
    x = torch.tensor([0.0, -0.0, 1.5, -2.0, float("inf"), -float("inf"), float("nan")], device="cuda")
    out = torch.zeros(x.numel(), dtype=torch.int32, device="cuda")
    classify_kernel[(1,)](x, out, x.numel(), BLOCK=8)
    torch.cuda.synchronize()
    assert out.cpu().tolist() == [8, 12, 8, 12, 2, 6, 1]


@sw.jit
def classify_kernel(X, Y, n, BLOCK: sl.constexpr):
    o = sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    y = sl.extra.libdevice.isnan(x).to(sl.int32) + 2 * sl.extra.libdevice.isinf(x) + \
        4 * sl.extra.libdevice.signbit(x) + 8 * sl.extra.libdevice.finitef(x)
    sl.store(Y + o, y, mask=o < n)


# ---- sl.device_print ---------------------------------------------------------------------

PRINT_CHILD = r"""
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import test_language_gaps as gaps
where = sys.argv[2]
x = np.array([-1.5, 2.0, 0.1, -0.0, 3.0, -4.0, 5.5, 6.25], np.float32)
y = np.linspace(-300.0, 300.0, 64).astype(np.float32)
if where == "gpu":
    import torch
    gaps.device_print_kernel[(2,)](torch.from_numpy(x).cuda(), 10, B=4)
    gaps.device_print_odd_kernel[(1,)](torch.from_numpy(y).cuda(), B=64)
    torch.cuda.synchronize()
else:
    gaps.device_print_kernel[(2,)](x, 10, B=4, executor="semantic")
    gaps.device_print_odd_kernel[(1,)](y, B=64, executor="semantic")
sys.stdout.flush()
"""


def printed(where):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    child = subprocess.run([sys.executable, "-c", PRINT_CHILD, os.path.join(REPO, "test", "python"),
                            where], capture_output=True, text=True, timeout=300, env=env)
    assert child.returncode == 0, child.stderr[-3000:]
    return child.stdout.splitlines()


def test_device_print_on_the_gpu_prints_the_cpu_lines():
    cpu, gpu = printed("cpu"), printed("gpu")
    assert len(cpu) == 2 * (4 + 1 + 4 + 4 + 1) + 64 * 7
    assert sorted(gpu) == sorted(cpu)
