"""Numbers at their limits and inputs a careless caller gives: each case was
an internal error, a silent miscompile, a truncation or an unreadable
message, and is now a clear error (or the right answer).

Kernels that must not compile mark their offending line with
``# error at col N: words`` as in test_errors.py.
"""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage import _native

PTRS = {"x_ptr": "*f32", "out_ptr": "*f32"}
INT64_MAX = 2 ** 63 - 1


def expect_compile_error(kernel, signature=PTRS, constexprs=None):
    line, col, words = swage_testing.expected_location(kernel, __file__)
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature=signature, constexprs=constexprs or {}, stage="source")
    error = info.value
    assert (error.lineno, error.col) == (line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)
    assert len(error.message) < 200, error.message
    return error


# ---- a bool as a pointer offset: was an internal error (and leaked) ---------------------

@sw.jit
def k_ptr_plus_true(x_ptr, out_ptr):
    v = sl.load(x_ptr + True)  # error at col 17: integer, bool True
    sl.store(out_ptr, v)


@sw.jit
def k_ptr_minus_false(x_ptr, out_ptr):
    v = sl.load(x_ptr - False)  # error at col 17: integer, bool False
    sl.store(out_ptr, v)


@sw.jit
def k_true_plus_ptr(x_ptr, out_ptr):
    v = sl.load(True + x_ptr)  # error at col 17: integer, bool
    sl.store(out_ptr, v)


@pytest.mark.parametrize("kernel", [k_ptr_plus_true, k_ptr_minus_false, k_true_plus_ptr])
def test_bool_pointer_offset_is_a_compile_error(kernel):
    expect_compile_error(kernel)


# ---- constant arithmetic at the int64 limits ----------------------------------------------

@sw.jit
def k_ptr_minus_int64_min(x_ptr, out_ptr):
    v = sl.load(x_ptr - (-2 ** 62 * 2))  # error at col 17: pointer offset, overflows int64
    sl.store(out_ptr, v)


@sw.jit
def k_ptr_minus_constexpr_min(x_ptr, out_ptr, N: sl.constexpr):
    v = sl.load(x_ptr - N)  # error at col 17: pointer offset, -2**63
    sl.store(out_ptr, v)


@sw.jit
def k_two_to_the_64(x_ptr, out_ptr):
    v = 2 ** 64  # error at col 9: overflows 64 bits, 2 ** 64
    sl.store(out_ptr, v + 0.0)


@sw.jit
def k_shift_past_int64(x_ptr, out_ptr):
    v = 1 << 64  # error at col 9: overflows 64 bits
    sl.store(out_ptr, v + 0.0)


@sw.jit
def k_zero_to_negative_power(x_ptr, out_ptr):
    v = 0 ** -1  # error at col 9: negative power
    sl.store(out_ptr, v + 0.0)


@sw.jit
def k_float_power_overflow(x_ptr, out_ptr):
    v = 10.0 ** 400  # error at col 9: overflows float64
    sl.store(out_ptr, v)


@sw.jit
def k_arange_length_overflow(x_ptr, out_ptr):
    i = sl.arange(-2 ** 62 * 2, 2 ** 62)  # error at col 9: overflows int64
    sl.store(out_ptr + i, 1.0)


@pytest.mark.parametrize("kernel, constexprs", [
    (k_ptr_minus_int64_min, None), (k_ptr_minus_constexpr_min, {"N": -2 ** 63}),
    (k_two_to_the_64, None), (k_shift_past_int64, None), (k_zero_to_negative_power, None),
    (k_float_power_overflow, None), (k_arange_length_overflow, None),
], ids=lambda case: getattr(case, "__name__", ""))
def test_constant_overflow_is_a_compile_error(kernel, constexprs):
    expect_compile_error(kernel, constexprs=constexprs)


@sw.jit
def k_count_static_range(out_ptr, START: sl.constexpr, STOP: sl.constexpr, STEP: sl.constexpr):
    n = 0
    last = 0
    for i in sl.static_range(START, STOP, STEP):
        n = n + 1
        last = i
    sl.store(out_ptr, n)
    sl.store(out_ptr + 1, last)


@pytest.mark.parametrize("start, stop, step", [
    (0, INT64_MAX, INT64_MAX),                      # stop - start + step overflowed: 0 trips
    (INT64_MAX, -INT64_MAX - 1, -INT64_MAX - 1),    # -step overflowed
    (-INT64_MAX - 1, INT64_MAX, INT64_MAX),
    (-INT64_MAX - 1, INT64_MAX, 2 ** 62),
    (INT64_MAX - 2, INT64_MAX, 1),
    (-INT64_MAX - 1, -INT64_MAX + 1, 1),
    (5, 5, -(2 ** 63)),
    (2 ** 31 - 2, 2 ** 31 + 1, 1),                  # across the int32 limit
])
def test_static_range_unrolls_like_python_at_the_limits(start, stop, step):
    out = np.zeros(2, np.int64)
    k_count_static_range.launch(arguments={"out_ptr": out}, grid=(1,),
                                constexprs={"START": start, "STOP": stop, "STEP": step})
    items = range(start, stop, step)
    assert out[0] == len(items)
    assert out[1] == (items[-1] if len(items) else 0)


@sw.jit
def k_static_range_four_arguments(x_ptr, out_ptr):
    for i in sl.static_range(0, 1, 1, 1):  # error at col 14: 1 to 3 positional arguments
        sl.store(out_ptr, i + 0.0)


@sw.jit
def k_static_range_no_arguments(x_ptr, out_ptr):
    for i in sl.static_range():  # error at col 14: 1 to 3 positional arguments
        sl.store(out_ptr, i + 0.0)


@pytest.mark.parametrize("kernel", [k_static_range_four_arguments, k_static_range_no_arguments])
def test_static_range_argument_count(kernel):
    # found by fuzz_kernel: a fourth bound was written past the end of a
    # three-element array (fuzz/regressions/kernel/static-range-four-arguments.py)
    expect_compile_error(kernel)


@sw.jit
def k_power_of_one(out_ptr):
    sl.store(out_ptr, 1 ** 1000000000000000000 + (-1) ** 999999999999999999 + 0 ** 123456789012)


def test_huge_constant_exponent_folds_at_once():
    # was a loop of 10**18 multiplications
    out = np.zeros(1, np.int32)
    k_power_of_one.launch(arguments={"out_ptr": out}, grid=(1,))
    assert out[0] == 0


@sw.jit
def k_powers(out_ptr):
    sl.store(out_ptr, (-2) ** 63)
    sl.store(out_ptr + 1, 3 ** 39)
    sl.store(out_ptr + 2, -1 << 63)
    sl.store(out_ptr + 3, (-2 ** 62 * 2) // 3)
    sl.store(out_ptr + 4, (-2 ** 62 * 2) % -1)
    sl.store(out_ptr + 5, 5 >> 100)


def test_constant_arithmetic_at_the_limits_is_exact():
    out = np.zeros(6, np.int64)
    k_powers.launch(arguments={"out_ptr": out}, grid=(1,))
    assert list(out) == [(-2) ** 63, 3 ** 39, -1 << 63, (-2 ** 63) // 3, 0, 0]


# ---- a NUL byte in the source -------------------------------------------------------------

def test_nul_byte_in_source_is_a_compile_error_at_the_byte():
    source = "def k(x_ptr):\n    sl.store(x_ptr, 1.0)\0\n    sl.store(x_ptr + 1, 2.0)\n"
    with pytest.raises(sw.CompileError) as info:
        _native.compile_kernel(source, "nul.py", 10, "k", "x_ptr=*f32", "")
    error = info.value
    assert (error.filename, error.lineno, error.col) == ("nul.py", 11, 25), str(error)
    assert "NUL byte" in error.message
    # the diagnostic shows the line up to the byte, with the caret on it
    assert str(error).split("\n")[1:3] == ["        sl.store(x_ptr, 1.0)", " " * 28 + "^"]


def test_source_with_a_nul_does_not_find_the_kernel_before_it():
    head = "def k(x_ptr):\n    sl.store(x_ptr, 1.0)\n"
    _native.compile_kernel(head, "nul2.py", 1, "k", "x_ptr=*f32", "")
    with pytest.raises(sw.CompileError):
        _native.compile_kernel(head + "\0", "nul2.py", 1, "k", "x_ptr=*f32", "")


# ---- Python numbers that do not fit ---------------------------------------------------------

@sw.jit
def k_scale(x_ptr, out_ptr, alpha):
    i = sl.arange(0, 4)
    sl.store(out_ptr + i, sl.load(x_ptr + i) * alpha)


@sw.jit
def k_scale_typed(x_ptr, out_ptr, alpha: sl.float16):
    i = sl.arange(0, 4)
    sl.store(out_ptr + i, sl.load(x_ptr + i) * alpha)


def run_scale(kernel, alpha, dtype=np.float32):
    x = np.ones(4, dtype)
    out = np.zeros(4, dtype)
    kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "alpha": alpha}, grid=(1,))
    return out


@pytest.mark.parametrize("alpha", [1e39, -1e39, 3.5e38, 1e300, float.fromhex("0x1.ffffffp127")])
def test_python_float_beyond_float32_is_a_value_error(alpha):
    with pytest.raises(ValueError, match=r"argument 'alpha' = .* does not fit in float32"):
        run_scale(k_scale, alpha)


@pytest.mark.parametrize("alpha", [float("inf"), float("-inf"), float.fromhex("0x1.fffffep127"),
                                   float.fromhex("0x1.fffffefffffffp127"), 1e-45, 1e-50])
def test_python_floats_float32_can_hold_pass(alpha):
    out = run_scale(k_scale, alpha)
    assert out[0] == np.float32(alpha)


def test_a_float64_scalar_carries_a_large_value():
    out = run_scale(k_scale, np.float64(1e39), np.float64)
    assert out[0] == 1e39


@pytest.mark.parametrize("alpha, fits", [(65504.0, True), (65519.99, True), (65520.0, False),
                                         (70000, False), (-1e10, False), (10 ** 400, False),
                                         (float("inf"), True)],
                         ids=["65504", "65519.99", "65520", "70000", "-1e10", "10**400", "inf"])
def test_annotated_float16_parameter_range(alpha, fits):
    if fits:
        out = run_scale(k_scale_typed, alpha, np.float16)
        assert out[0] == np.float16(alpha)
    else:
        with pytest.raises(ValueError, match="does not fit in float16") as info:
            run_scale(k_scale_typed, alpha, np.float16)
        assert len(str(info.value)) < 200


@sw.jit
def k_add_constexpr(out_ptr, N: sl.constexpr):
    sl.store(out_ptr, N)


@pytest.mark.parametrize("value", [2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 400, -10 ** 5000],
                         ids=["2**63", "-2**63-1", "2**64", "10**400", "-10**5000"])
def test_constexpr_beyond_int64_is_a_short_value_error(value):
    out = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match=r"constexpr 'N' = .* does not fit in int64") as info:
        k_add_constexpr.launch(arguments={"out_ptr": out}, constexprs={"N": value}, grid=(1,))
    assert len(str(info.value)) < 150, str(info.value)


@pytest.mark.parametrize("value", [2 ** 63 - 1, -2 ** 63])
def test_constexpr_at_the_int64_limits_compiles(value):
    out = np.zeros(1, np.int64)
    k_add_constexpr.launch(arguments={"out_ptr": out}, constexprs={"N": value}, grid=(1,))
    assert out[0] == value


def test_int_argument_messages_stay_short():
    with pytest.raises(ValueError, match="does not fit in int64") as info:
        run_scale(k_scale, 10 ** 400)
    assert "(401 digits)" in str(info.value) and len(str(info.value)) < 100


@pytest.mark.parametrize("constexprs, words", [
    ("N=100000000000000000000", "does not fit int64"),
    ("N=" + "1" * 400, "(400 characters) does not fit int64"),
    ("N=-0x10000000000000000", "does not fit int64"),
    ("N=" + "x" * 400, "(400 characters)"),
])
def test_constexpr_strings_of_the_c_api(constexprs, words):
    # the C API's own check, under the Python layer's
    with pytest.raises(ValueError) as info:
        _native.compile_kernel("def k(out_ptr, N: sl.constexpr):\n    sl.store(out_ptr, N)\n",
                               "k.py", 1, "k", "out_ptr=*i64", constexprs)
    assert words in str(info.value) and len(str(info.value)) < 200, str(info.value)


@sw.jit
def k_float_constant(out_ptr, C: sl.constexpr):
    sl.store(out_ptr, C)


def test_float_constant_that_float32_cannot_hold_is_a_compile_error():
    with pytest.raises(sw.CompileError, match=r"1e\+39 does not fit float32"):
        k_float_constant.emit_mlir(signature={"out_ptr": "*f32"}, constexprs={"C": 1e39})


@sw.jit
def k_float_constant_times_int(out_ptr, C: sl.constexpr):
    sl.store(out_ptr, C * (sl.program_id(0) + 1))


def test_float_constant_beyond_float32_is_float64_on_its_own():
    # as Triton types such a constant: float64 (it was float32, so inf), and
    # an int32 it meets becomes float64 with it
    out = np.zeros(1, np.float64)
    k_float_constant_times_int.launch(arguments={"out_ptr": out}, constexprs={"C": 1e39},
                                      grid=(1,))
    assert out[0] == 1e39
    text = k_float_constant_times_int.emit_mlir(signature={"out_ptr": "*f64"},
                                                constexprs={"C": 1e-40})
    assert "(i32) -> f64" in text  # below float32's normal range: float64 too
