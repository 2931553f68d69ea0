"""Helpers shared by the Python tests: seeded random inputs, exact and
tolerance comparisons that never let an unexpected NaN pass, and exact
reference conversions (bfloat16 and float16 rounding, saturating casts)."""

import ctypes
import math
import os
import re

import numpy as np

FLOAT_DTYPES = ["float16", "float32", "float64"]
INT_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
NUMERIC_DTYPES = INT_DTYPES + FLOAT_DTYPES
ALL_DTYPES = ["bool"] + NUMERIC_DTYPES

INT_BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32,
            "int64": 64, "uint64": 64}


def new_seed():
    env = os.environ.get("SWAGE_TEST_SEED")
    if env:
        return int(env)
    return int(np.random.SeedSequence().entropy % (1 << 63))


class SeededRng:
    """np.random.Generator that remembers its seed (attribute access delegates)."""

    def __init__(self, seed):
        self.seed = seed
        self.gen = np.random.default_rng(seed)

    def __getattr__(self, name):
        return getattr(self.gen, name)


def int_range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def random_array(rng, dtype, size, low=None, high=None):
    """Random values of dtype: integers over the whole range (or [low, high]),
    floats normal with scale 10 (or uniform in [low, high))."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size).astype(np.bool_)
    if dtype.kind in "iu":
        lo, hi = int_range(dtype)
        lo = lo if low is None else low
        hi = hi if high is None else high
        return rng.integers(lo, hi, size, dtype=dtype, endpoint=True)
    if low is None:
        values = rng.standard_normal(size) * 10
    else:
        values = rng.uniform(low, high, size)
    return values.astype(dtype)


def wrap_int(value, dtype):
    """Python int -> value of integer dtype (two's complement wrap; bool: != 0)."""
    if dtype == "bool":
        return int(value != 0)
    bits = INT_BITS[dtype]
    value &= (1 << bits) - 1
    if not dtype.startswith("uint") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _mismatch_text(actual, expected, bad, seed, what, inputs=None):
    index = np.flatnonzero(bad)
    lines = ["%s: %d of %d elements differ (seed %s)" % (what, index.size, bad.size, seed)]
    for i in index[:8]:
        extra = ""
        if inputs:
            extra = "  inputs " + ", ".join("%s=%r" % (k, v.flat[i]) for k, v in inputs.items())
        lines.append("  [%d] got %r, expected %r%s" % (i, actual.flat[i], expected.flat[i], extra))
    return "\n".join(lines)


def assert_same(actual, expected, seed=None, what="result", inputs=None, signed_zero=False):
    """Exact equality; for floats NaN must be where NaN is expected and
    nowhere else (and -0.0 vs 0.0 is checked when signed_zero)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, "%s: shape %s != %s" % (what, actual.shape,
                                                                   expected.shape)
    assert actual.dtype == expected.dtype, "%s: dtype %s != %s" % (what, actual.dtype,
                                                                   expected.dtype)
    if actual.dtype.kind == "f":
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        bad = np.isnan(a) != np.isnan(e)
        both = ~np.isnan(a) & ~np.isnan(e)
        bad |= both & (a != e)
        if signed_zero:
            bad |= both & (np.signbit(a) != np.signbit(e))
    else:
        bad = actual != expected
    assert not bad.any(), _mismatch_text(actual, expected, bad, seed, what, inputs)


def assert_close(actual, expected, rtol, atol=0.0, seed=None, what="result", inputs=None):
    """|actual - expected| <= atol + rtol * |expected| elementwise; NaN only
    where expected, infinities exactly."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, \
        "%s: %s %s != %s %s" % (what, actual.shape, actual.dtype, expected.shape, expected.dtype)
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    bad = np.isnan(a) != np.isnan(e)
    inf = np.isinf(a) | np.isinf(e)
    bad |= inf & (a != e)
    finite = np.isfinite(a) & np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        bad |= finite & ~(np.abs(a - e) <= atol + rtol * np.abs(e))
    assert not bad.any(), _mismatch_text(actual, expected, bad, seed, what, inputs)


# ---- exact reference conversions --------------------------------------------

def round_to_bf16(values):
    """float64 array -> float32 array holding the bfloat16 rounding (nearest even)."""
    x = np.asarray(values, dtype=np.float64)
    # First round to 8 significant bits in float64 (exact, one rounding), then
    # the float32 conversion is exact (or overflows to inf as bf16 does).
    bits = x.view(np.uint64).copy()
    finite = np.isfinite(x)
    lsb = (bits >> np.uint64(45)) & np.uint64(1)
    rounded = (bits + np.uint64((1 << 44) - 1) + lsb) & ~np.uint64((1 << 45) - 1)
    bits = np.where(finite, rounded, bits)
    with np.errstate(over="ignore"):
        out = bits.view(np.float64).astype(np.float32)
    # values beyond bf16's largest finite value (0x7F7F) after rounding are inf
    big = np.abs(out) > np.float32(3.3895313892515355e38)
    out[big & finite] = np.copysign(np.float32(np.inf), out[big & finite])
    return out


def round_int_to_float(value, dtype):
    """Python int -> nearest-even value of float dtype (as a Python float)."""
    precision = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dtype]
    a = abs(value)
    if a.bit_length() > precision:
        shift = a.bit_length() - precision
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    limit = {"float16": 65520, "bfloat16": 2 ** 128 - 2 ** 119, "float32": 2 ** 128 - 2 ** 103,
             "float64": 2 ** 1024 - 2 ** 970}[dtype]
    if a >= limit:
        return math.copysign(math.inf, value)
    return float(a) if value >= 0 else -float(a)


def float_to_int(value, dtype):
    """float -> integer dtype: truncate toward zero, saturate, NaN -> 0."""
    if math.isnan(value):
        return 0
    if dtype == "bool":
        return int(value != 0)
    lo, hi = int_range(dtype)
    if math.isinf(value):
        return hi if value > 0 else lo
    return max(lo, min(hi, math.trunc(value)))


def np_dtype(name):
    return np.dtype(np.bool_) if name == "bool" else np.dtype(name)


# ---- malformed-kernel tests: "# error at col N: words" markers --------------------

ERROR_MARKER = re.compile(r"#\s*error at col (\d+):\s*(.*)$")


def expected_location(kernel, path):
    """(line, col, words) from the marker comment inside the kernel's def in
    the test file `path`."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = next(i for i, text in enumerate(lines)
                 if text.lstrip().startswith("def %s(" % kernel.__name__))
    for i in range(start, len(lines)):
        match = ERROR_MARKER.search(lines[i])
        if match:
            return i + 1, int(match.group(1)), match.group(2).strip()
        if i > start and lines[i].startswith("@sw.jit"):
            break
    raise AssertionError("no error marker in " + kernel.__name__)


def expect_compile_error_at_marker(kernel, path, signature, constexprs=None):
    """Compiles `kernel` (defined in the test file `path`) with `signature`
    and asserts a swage.CompileError at its marker comment's line and
    column in that file, whose message holds every word of the marker;
    returns the error."""
    import pytest
    import swage as sw
    line, col, words = expected_location(kernel, path)
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature=signature, constexprs=constexprs or {}, stage="source")
    error = info.value
    assert (error.filename, error.lineno, error.col) == (path, line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)
    return error


# ---- the fake CUDA driver (test/python/fake_libcuda.c) ----------------------------

class FakeDriverState(ctypes.Structure):
    """The fake driver's exported `fake_state`: what the library asked of it."""
    _fields_ = [(f, ctypes.c_long) for f in ("launches", "pushes", "pops", "get_currents",
                                             "module_loads", "attribute_queries")] + [
        ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("smem", ctypes.c_uint),
        ("stream", ctypes.c_uint64), ("context", ctypes.c_uint64),
        ("nparams_recorded", ctypes.c_int), ("params", ctypes.c_uint64 * 16),
        ("launch_result", ctypes.c_int), ("memsets", ctypes.c_long),
        ("memset_words", ctypes.c_uint64), ("launches_ex", ctypes.c_long),
        ("programmatic", ctypes.c_long)]


class FakeDeviceArray:
    """A 1-D __cuda_array_interface__ array at `address` on device 0 (no
    PyTorch), for launches against the fake driver; `stream` as the
    interface gives it (None: the default stream)."""

    def __init__(self, address, n, typestr, stream=None):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "version": 3,
                                         "data": (address, False), "strides": None,
                                         "stream": stream}


def run_with_fake_driver(tmp_path, source, done, defines=(), environment=None):
    """Runs the Python `source` in a child process whose CUDA driver is the
    fake one (test/python/fake_libcuda.c, built here into tmp_path with the
    -D `defines`, its path in $SWAGE_LIBCUDA), with this folder on the
    path; asserts that it exits 0 and prints `done`. Skips the test when
    the driver cannot be built. `environment`: more variables for the child."""
    import pytest
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    driver = str(tmp_path / ("libfakecuda%s.so" % "".join("-" + d.replace("=", "")
                                                          for d in defines)))
    try:
        subprocess.run([os.environ.get("CC", "cc"), "-O1", "-shared", "-fPIC", "-o", driver]
                       + ["-D" + d for d in defines] + [os.path.join(here, "fake_libcuda.c")],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip("cannot build the fake CUDA driver: %s" % e)
    env = dict(os.environ, SWAGE_LIBCUDA=driver,
               PYTHONPATH=os.pathsep.join([here] + sys.path), **(environment or {}))
    child = subprocess.run([sys.executable, "-c", source], env=env, cwd=here,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stdout + child.stderr
    assert done in child.stdout, child.stdout
