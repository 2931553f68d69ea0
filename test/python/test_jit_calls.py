"""Calls of @sw.jit functions from kernels, as Triton has them: the callee
is inlined while compiling; it takes tiles, scalars, pointers and
constexprs, by position or keyword, with defaults; it returns nothing, a
value or a tuple (unpacked with a, b = f(x)), with early returns on some
paths. Every kernel runs on both CPU executors against NumPy; malformed
calls are compile errors at the exact line and column (in the callee's
source when the error is there)."""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing

EXECUTORS = ["semantic", "simt"]
BLOCK = 64
N = 200


def grid():
    return ((N + BLOCK - 1) // BLOCK,)


def rng():
    return swage_testing.SeededRng(swage_testing.new_seed())


# ---- the functions ------------------------------------------------------------------------

@sw.jit
def square(x):
    return x * x


@sw.jit
def axpy(a, x, y):
    return a * x + y


@sw.jit
def sum_and_difference(x, y):
    return x + y, x - y


@sw.jit
def scaled(x, factor: sl.constexpr = 2, shift=0.5):
    return x * factor + shift


@sw.jit
def load_block(ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    return sl.load(ptr + offs, mask=mask, other=0.0), offs, mask


@sw.jit
def store_block(ptr, value, offs, mask):
    sl.store(ptr + offs, value, mask=mask)


@sw.jit
def clipped(x, limit):
    # an early return on one path, a value on every path
    if limit < 0:
        return x
    return sl.minimum(x, limit)


@sw.jit
def sign_of(v):
    if v > 0:
        return 1
    elif v < 0:
        return -1
    else:
        return 0


@sw.jit
def norm2(x):
    return sl.sqrt(sl.sum(square(x)))  # a call inside a callee


# ---- kernels ------------------------------------------------------------------------------

@sw.jit
def k_axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: sl.constexpr):
    x, offs, mask = load_block(x_ptr, n, BLOCK)
    y, _, _ = load_block(y_ptr, n, BLOCK=BLOCK)
    store_block(out_ptr, axpy(a, square(x), y), offs, mask)


@sw.jit
def k_tuple(x_ptr, y_ptr, s_ptr, d_ptr, n, BLOCK: sl.constexpr):
    x, offs, mask = load_block(x_ptr, n, BLOCK)
    y, offs, mask = load_block(y_ptr, n, BLOCK)
    s, d = sum_and_difference(x, y)
    both = sum_and_difference(d, s)  # a tuple bound to one name, unpacked later
    s2, d2 = both
    store_block(s_ptr, s + s2, offs, mask)
    store_block(d_ptr, d + d2, offs, mask)


@sw.jit
def k_defaults(x_ptr, out_ptr, n, BLOCK: sl.constexpr, FACTOR: sl.constexpr):
    x, offs, mask = load_block(x_ptr, n, BLOCK)
    r = scaled(x) + scaled(x, FACTOR) + scaled(x, shift=1.5, factor=3)
    store_block(out_ptr, r, offs, mask)


@sw.jit
def k_early_return_value(x_ptr, out_ptr, n, limit, BLOCK: sl.constexpr):
    x, offs, mask = load_block(x_ptr, n, BLOCK)
    store_block(out_ptr, clipped(x, limit) + sign_of(limit), offs, mask)


@sw.jit
def k_scalar_calls(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    x, offs, mask = load_block(x_ptr, n, BLOCK)
    sl.store(out_ptr + sl.program_id(0), norm2(x) + square(2))


def make_closure_kernel():
    @sw.jit
    def local_cube(x):
        return x * x * x

    @sw.jit
    def k_closure(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
        x, offs, mask = load_block(x_ptr, n, BLOCK)
        store_block(out_ptr, local_cube(x) + 3, offs, mask)

    return k_closure


@pytest.mark.parametrize("executor", EXECUTORS)
def test_call_with_tiles_scalars_and_pointers(executor):
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    y = r.standard_normal(N).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    k_axpy[grid()](x, y, out, 1.5, N, BLOCK=BLOCK, executor=executor)
    np.testing.assert_allclose(out, np.float32(1.5) * (x * x) + y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_tuple_returns_and_unpacking(executor):
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    y = r.standard_normal(N).astype(np.float32)
    s, d = np.zeros(N, np.float32), np.zeros(N, np.float32)
    k_tuple[grid()](x, y, s, d, N, BLOCK=BLOCK, executor=executor)
    np.testing.assert_allclose(s, (x + y) + ((x - y) + (x + y)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, (x - y) + ((x - y) - (x + y)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_constexpr_parameters_defaults_and_keywords(executor):
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    k_defaults[grid()](x, out, N, BLOCK=BLOCK, FACTOR=4, executor=executor)
    expected = (x * 2 + np.float32(0.5)) + (x * 4 + np.float32(0.5)) + (x * 3 + np.float32(1.5))
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("limit", [-1.0, 0.0, 0.25])
def test_early_returns_with_values(executor, limit):
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    k_early_return_value[grid()](x, out, N, limit, BLOCK=BLOCK, executor=executor)
    clipped_ref = x if limit < 0 else np.minimum(x, np.float32(limit))
    np.testing.assert_array_equal(out, clipped_ref + np.float32(np.sign(limit)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_calls_inside_callees_and_scalar_results(executor):
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    out = np.zeros(grid()[0], np.float32)
    k_scalar_calls[grid()](x, out, N, BLOCK=BLOCK, executor=executor)
    padded = np.zeros(grid()[0] * BLOCK, np.float32)
    padded[:N] = x
    expected = np.sqrt((padded.reshape(-1, BLOCK).astype(np.float64) ** 2).sum(axis=1)) + 4
    np.testing.assert_allclose(out, expected, rtol=1e-5)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_closure_functions(executor):
    kernel = make_closure_kernel()
    r = rng()
    x = r.standard_normal(N).astype(np.float32)
    out = np.zeros(N, np.float32)
    kernel[grid()](x, out, N, BLOCK=BLOCK, executor=executor)
    np.testing.assert_allclose(out, (x * x) * x + 3, rtol=1e-6, atol=1e-6)


def test_the_callee_is_inlined():
    text = k_axpy.emit_mlir(signature={"x_ptr": "*f32", "y_ptr": "*f32", "out_ptr": "*f32",
                                       "a": "f32", "n": "i32"},
                            constexprs={"BLOCK": BLOCK}, stage="source")
    assert text.count("func.func") == 1 and "sw.call" not in text
    assert text.count('"sw.load"') == 2 and text.count('"sw.store"') == 1


# ---- errors ---------------------------------------------------------------------------------

@sw.jit
def countdown(x):
    return countdown(x - 1)  # error at col 12: recursive call of 'countdown', countdown -> countdown


@sw.jit
def ping(x):
    return pong(x)


@sw.jit
def pong(x):
    return ping(x)  # error at col 12: recursive call of 'ping', ping -> pong -> ping


@sw.jit
def bad_body(x):
    return x + undefined_thing  # error at col 16: name 'undefined_thing' is not defined


@sw.jit
def needs_constexpr(x, K: sl.constexpr):
    return x * K


@sw.jit
def mixed_returns(x, n):
    if n > 0:  # error at col 5: returns different kinds of values
        return x
    return


@sw.jit
def k_recursion(x_ptr, n):
    y = countdown(n)


@sw.jit
def k_mutual_recursion(x_ptr, n):
    y = ping(n)


@sw.jit
def k_error_in_callee(x_ptr, n):
    y = bad_body(n)


@sw.jit
def k_runtime_constexpr(x_ptr, n):
    y = needs_constexpr(n, n)  # error at col 28: needs_constexpr, compile-time constant


@sw.jit
def k_too_many(x_ptr, n):
    y = square(n, n)  # error at col 19: takes 1 argument but 2 were given


@sw.jit
def k_missing(x_ptr, n):
    y = axpy(n, n)  # error at col 9: missing its argument 'y'


@sw.jit
def k_unknown_keyword(x_ptr, n):
    y = axpy(n, n, yy=n)  # error at col 20: no parameter named 'yy', did you mean 'y'


@sw.jit
def k_mixed_returns(x_ptr, n):
    y = mixed_returns(n, n)


@sw.jit
def k_unpack_count(x_ptr, n):
    a, b, c = sum_and_difference(n, n)  # error at col 15: cannot unpack a tuple of 2 values into 3


@sw.jit
def k_unpack_scalar(x_ptr, n):
    a, b = square(n)  # error at col 12: cannot unpack


@sw.jit
def k_tuple_as_value(x_ptr, n):
    t = sum_and_difference(n, n)
    y = t + 1  # error at col 9: cannot be applied to a tuple


@sw.jit
def k_tuple_in_store(x_ptr, n):
    sl.store(x_ptr, sum_and_difference(n, n))  # error at col 21: tuple cannot be used as a value


@sw.jit
def k_local_shadows(x_ptr, n):
    square = n
    y = square(n)  # error at col 9: local value, not a function


ERRORS = [
    (k_recursion, countdown), (k_mutual_recursion, pong), (k_error_in_callee, bad_body),
    (k_runtime_constexpr, k_runtime_constexpr), (k_too_many, k_too_many),
    (k_missing, k_missing), (k_unknown_keyword, k_unknown_keyword),
    (k_mixed_returns, mixed_returns), (k_unpack_count, k_unpack_count),
    (k_unpack_scalar, k_unpack_scalar), (k_tuple_as_value, k_tuple_as_value),
    (k_tuple_in_store, k_tuple_in_store), (k_local_shadows, k_local_shadows),
]


@pytest.mark.parametrize("kernel, where", ERRORS, ids=[k.__name__ for k, _ in ERRORS])
def test_call_errors_point_at_line_and_column(kernel, where):
    line, col, words = swage_testing.expected_location(where, __file__)
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature={"x_ptr": "*f32", "n": "i32"}, stage="source")
    error = info.value
    assert (error.filename, error.lineno, error.col) == (__file__, line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)


def test_two_functions_with_one_name_in_a_call_tree():
    def make_helper(value):
        @sw.jit
        def helper(x):
            return x + value
        return helper

    first, second = make_helper(1), make_helper(2)

    def make_middle():
        helper = second

        @sw.jit
        def middle(x):
            return helper(x)
        return middle

    middle = make_middle()

    def make_kernel():
        helper = first

        @sw.jit
        def k_two_helpers(x_ptr, n):
            y = helper(n) + middle(n)
        return k_two_helpers

    with pytest.raises(sw.CompileError, match="two different @sw.jit functions are called 'helper'"):
        make_kernel().emit_mlir(signature={"x_ptr": "*f32", "n": "i32"})


def test_swage_compile_finds_functions_in_the_file(tmp_path):
    import subprocess
    from swage import _cli
    program = _cli.program_path("swage")
    if program is None:
        pytest.skip("the swage program is not built")
    path = tmp_path / "kernels.py"
    path.write_text(
        "import swage as sw\nimport swage.language as sl\n\n\n"
        "@sw.jit\ndef twice(x):\n    return x + x\n\n\n"
        "@sw.jit\ndef k(x_ptr, n):\n    sl.store(x_ptr, twice(n).to(sl.float32))\n")
    result = subprocess.run([program, "compile", str(path), "--kernel", "k",
                             "--signature", "x_ptr=*f32,n=i32", "--stage", "source"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert '"sw.add"(%n, %n)' in result.stdout
