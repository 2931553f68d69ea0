"""libdevice's math functions on both CPU executors against NumPy.

Each of sl.tan ... sl.copysign (docs/language.md) runs on the reference
and the SIMT executor, on float32 and float64, over special values and a
sweep of its domain, and must give NumPy's float64 value rounded to the
dtype: the executors compute with the C library's double functions, so
float64 agrees with NumPy within the two libraries' errors (4 ulp: glibc's
tanh is 2 ulp from the truth, NumPy's 1.2), float32 within one ulp. The three spellings (sl.<name>, sl.math.<name>,
sl.extra.libdevice.<name>) are one op; isnan/isinf/isfinite/signbit keep
their dtypes; misuse is a compile error at its place; every kernel's PTX
is assembled by test_zz_ptxas.
"""

import math

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing

EXECUTORS = ("semantic", "simt")

UNARY = ["tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
         "expm1", "log1p", "log10", "exp10", "cbrt", "trunc", "round", "rint", "nearbyint", "erfc"]
BINARY = ["atan2", "pow", "hypot", "fmod", "copysign"]

NUMPY = {"tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
         "atanh": np.arctanh, "expm1": np.expm1, "log1p": np.log1p, "log10": np.log10,
         "exp10": lambda x: np.power(10.0, x), "cbrt": np.cbrt, "trunc": np.trunc,
         "round": lambda x: np.where(np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x), np.trunc(x)),
         "rint": np.rint,
         "nearbyint": np.rint, "atan2": np.arctan2, "pow": np.power, "hypot": np.hypot,
         "fmod": np.fmod, "copysign": np.copysign,
         # Python's math.erfc: within 2 ulp of the truth (NumPy has none)
         "erfc": np.vectorize(math.erfc, otypes=[np.float64])}
EXACT = {"trunc", "round", "rint", "nearbyint", "fmod", "copysign"}

SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, 22.0, -22.0,
                     709.5, 710.5, 1e-8, 1e-300, 5e-324, 1e300, np.inf, -np.inf, np.nan,
                     0.49999999999999994, 4503599627370496.5,
                     0.25, 0.2499999999999999, 9.3, 10.05, 26.5, 27.2, 27.3, 27.5])


@sw.jit
def unary_kernel(X, Y, n, FN: sl.constexpr, BLOCK: sl.constexpr):
    o = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    if FN == 0:
        y = sl.tan(x)
    elif FN == 1:
        y = sl.math.asin(x)
    elif FN == 2:
        y = sl.extra.libdevice.acos(x)
    elif FN == 3:
        y = sl.atan(x)
    elif FN == 4:
        y = sl.math.sinh(x)
    elif FN == 5:
        y = sl.extra.cuda.libdevice.cosh(x)
    elif FN == 6:
        y = sl.tanh(x)
    elif FN == 7:
        y = sl.asinh(x)
    elif FN == 8:
        y = sl.acosh(x)
    elif FN == 9:
        y = sl.atanh(x)
    elif FN == 10:
        y = sl.expm1(x)
    elif FN == 11:
        y = sl.log1p(x)
    elif FN == 12:
        y = sl.log10(x)
    elif FN == 13:
        y = sl.exp10(x)
    elif FN == 14:
        y = sl.cbrt(x)
    elif FN == 15:
        y = sl.trunc(x)
    elif FN == 16:
        y = sl.round(x)
    elif FN == 17:
        y = sl.rint(x)
    elif FN == 18:
        y = sl.extra.libdevice.nearbyint(x)
    else:
        y = sl.extra.libdevice.erfc(x)
    sl.store(Y + o, y, mask=o < n)


@sw.jit
def binary_kernel(X, Z, Y, n, FN: sl.constexpr, BLOCK: sl.constexpr):
    o = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    z = sl.load(Z + o, mask=o < n)
    if FN == 0:
        y = sl.atan2(x, z)
    elif FN == 1:
        y = sl.math.pow(x, z)
    elif FN == 2:
        y = sl.hypot(x, z)
    elif FN == 3:
        y = sl.extra.libdevice.fmod(x, z)
    else:
        y = sl.copysign(x, z)
    sl.store(Y + o, y, mask=o < n)


def within(got, want, dtype, ulps):
    """Elementwise: the same special value, or within `ulps` of want in dtype."""
    same = (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
        close = np.isfinite(want) & (np.abs(got.astype(np.float64) - want) <= ulps * spacing)
    return same | close


def sweep(rng, n, dtype):
    """Specials, then uniform values and magnitudes over dtype's range (a
    float32 beyond its range is inf, as intended)."""
    with np.errstate(over="ignore"):
        return _sweep(rng, n, dtype)


def _sweep(rng, n, dtype):
    x = rng.uniform(-30, 30, n)
    x[: n // 4] = rng.uniform(-1, 1, n // 4)
    k = n // 4
    tiny = int(np.log2(np.finfo(dtype).smallest_subnormal))
    big = int(np.log2(np.finfo(dtype).max))
    x[-k:] = np.ldexp(1 + rng.random(k), rng.integers(tiny, big + 1, k)) * np.where(rng.random(k) < 0.5, -1, 1)
    return np.concatenate([SPECIALS, x]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_numpy(rng, name, executor, dtype):
    x = sweep(rng, 600, dtype)
    y = np.full_like(x, -7.0)
    unary_kernel[(sw.cdiv(x.size, 128),)](x, y, x.size, FN=UNARY.index(name), BLOCK=128, executor=executor)
    with np.errstate(all="ignore"):
        want = NUMPY[name](x.astype(np.float64)).astype(dtype).astype(np.float64)
    ok = within(y.astype(np.float64), want, dtype, 0 if name in EXACT else 4 if dtype == "float64" else 1)
    assert ok.all(), "sl.%s on %s: x = %s: got %s, want %s" % (
        name, dtype, x[~ok][:5], y[~ok][:5], want[~ok][:5])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_numpy(rng, name, executor, dtype):
    x = sweep(rng, 600, dtype)
    with np.errstate(over="ignore"):  # 1e300 is inf in float32
        z = np.concatenate([np.repeat(SPECIALS, SPECIALS.size), rng.permutation(x)]).astype(dtype)
        x = np.concatenate([np.tile(SPECIALS, SPECIALS.size), x]).astype(dtype)
    if name == "pow":  # integral exponents of negative bases
        z[-100:] = rng.integers(-9, 10, 100)
        x[-100:] = -rng.uniform(0, 10, 100)
    y = np.full_like(x, -7.0)
    binary_kernel[(sw.cdiv(x.size, 128),)](x, z, y, x.size, FN=BINARY.index(name), BLOCK=128,
                                           executor=executor)
    with np.errstate(all="ignore"):
        want = NUMPY[name](x.astype(np.float64), z.astype(np.float64)).astype(dtype).astype(np.float64)
    ok = within(y.astype(np.float64), want, dtype, 0 if name in EXACT else 4 if dtype == "float64" else 1)
    assert ok.all(), "sl.%s on %s: x = %s, y = %s: got %s, want %s" % (
        name, dtype, x[~ok][:5], z[~ok][:5], y[~ok][:5], want[~ok][:5])


@sw.jit
def classify_kernel(X, B1, I32, n, BLOCK: sl.constexpr):
    o = sl.arange(0, BLOCK)
    x = sl.load(X + o, mask=o < n)
    nan = sl.isnan(x)
    inf = sl.extra.libdevice.isinf(x)
    fin = sl.isfinite(x)
    sign = sl.signbit(x)
    finite = sl.extra.libdevice.finitef(x)
    sl.static_print(nan.dtype, inf.dtype, fin.dtype, sign.dtype, finite.dtype)
    sl.store(B1 + o, nan.to(sl.int32) + 2 * inf.to(sl.int32) + 4 * fin.to(sl.int32), mask=o < n)
    sl.store(I32 + o, sign + 2 * finite, mask=o < n)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("executor", EXECUTORS)
def test_classification(executor, dtype, capfd):
    x = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, -1e-40], dtype)
    b, i = np.zeros(8, np.int32), np.zeros(8, np.int32)
    classify_kernel[(1,)](x, b, i, 8, BLOCK=8, executor=executor)
    # int1 for isnan/isinf/isfinite (Triton's), int32 for signbit/finitef (libdevice's)
    err = capfd.readouterr().err
    assert "sl.int1 sl.int1 sl.int1 sl.int32 sl.int32\n" in err or executor == "simt", err
    assert b.tolist() == (np.isnan(x) + 2 * np.isinf(x) + 4 * np.isfinite(x)).tolist()
    assert i.tolist() == (np.signbit(x) + 2 * np.isfinite(x)).tolist()


@sw.jit
def promotion_kernel(X, I, Y, BLOCK: sl.constexpr):
    o = sl.arange(0, BLOCK)
    x = sl.load(X + o)
    i = sl.load(I + o)
    sl.store(Y + o, sl.pow(x, 2) + sl.atan2(i, 1.0) + sl.hypot(3, i) + sl.tanh(i))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_integers_and_constants_promote(executor):
    x = np.linspace(-2, 2, 16).astype(np.float64)
    i = np.arange(-8, 8, dtype=np.int32)
    y = np.zeros(16, np.float64)
    promotion_kernel[(1,)](x, i, y, BLOCK=16, executor=executor)
    f = i.astype(np.float32).astype(np.float64)
    # float64 x with a literal stays float64; the integer ones are float32
    want = x ** 2 + (np.arctan2(f, 1.0).astype(np.float32) + np.hypot(3, f).astype(np.float32)
                     + np.tanh(f).astype(np.float32)).astype(np.float64)
    np.testing.assert_allclose(y, want, rtol=1e-6)


@sw.jit
def erfc_spellings(X, Y, BLOCK: sl.constexpr):
    o = sl.arange(0, BLOCK)
    x = sl.load(X + o)
    sl.store(Y + o, sl.erfc(x) + sl.math.erfc(x) - sl.extra.cuda.libdevice.erfc(x))


def test_erfc_spellings_are_one_op():
    text = erfc_spellings.emit_mlir(signature={"X": "*f64", "Y": "*f64"}, constexprs={"BLOCK": 16})
    assert text.count('"sw.erfc"') >= 1 and "libdevice" not in text


@pytest.mark.parametrize("executor", EXECUTORS)
def test_erfc_keeps_its_relative_precision_in_the_tail(executor):
    """erfc(x) for large x is tiny, not 1 - erf(x) = 0: each value within
    4 ulp of float64 (the CPU executors round long double erfcl)."""
    x = np.array([5.0, 10.0, 20.0, 26.0, 27.0, 27.2, -5.0, 0.3], np.float64)
    y = np.zeros_like(x)
    unary_kernel[(1,)](x, y, x.size, FN=UNARY.index("erfc"), BLOCK=8, executor=executor)
    want = np.array([math.erfc(v) for v in x])
    assert (y[:6] > 0).all()
    assert within(y, want, "float64", 4).all(), (y, want)


@sw.jit
def k_erfc_int_pointer(X):
    sl.store(X, sl.erfc(X))  # error at col 25: sl.erfc cannot be applied to a pointer


@sw.jit
def k_pow_one_argument(X):
    sl.store(X, sl.pow(sl.load(X)))  # error at col 17: missing its argument 'y'


@sw.jit
def k_atan2_pointer(X):
    sl.store(X, sl.atan2(X, 1.0))  # error at col 17: 'sl.atan2', cannot be applied to a pointer


@sw.jit
def k_tanh_pointer(X):
    sl.store(X, sl.tanh(X))  # error at col 25: sl.tanh cannot be applied to a pointer


@sw.jit
def k_isnan_pointer(X):
    sl.store(X, sl.isnan(X).to(sl.float32))  # error at col 26: sl.isnan cannot be applied to a pointer


@sw.jit
def k_hypot_three(X):
    x = sl.load(X)
    sl.store(X, sl.hypot(x, x, x))  # error at col 32: sl.hypot takes at most 2 arguments


@sw.jit
def k_math_unknown(X):
    sl.store(X, sl.math.tanhh(sl.load(X)))  # error at col 17: sl.math.tanhh, did you mean, sl.math.tanh


@pytest.mark.parametrize("kernel", [k_pow_one_argument, k_atan2_pointer, k_tanh_pointer, k_isnan_pointer,
                                    k_hypot_three, k_math_unknown, k_erfc_int_pointer],
                         ids=lambda k: k.__name__)
def test_misuse_is_a_compile_error_at_its_place(kernel):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, {"X": "*f32"})
