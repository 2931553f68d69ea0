"""Control flow with runtime conditions, as Triton has it: while loops (with
break and continue), break and continue in for loops, early return (the
`if pid >= n: return` guard and returns inside ifs), conditions that are
numbers (an int or float used as a condition means != 0, in if, while,
`x if c else y` and sl.where), and the compile-time values .dtype, .shape,
local `X: sl.constexpr = ...` and sl.static_assert. Every kernel runs on
both CPU executors against NumPy; malformed uses are compile errors at the
exact line and column."""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing

EXECUTORS = ["semantic", "simt"]
BLOCK = 64


def rng():
    return swage_testing.SeededRng(swage_testing.new_seed())


# ---- while ----------------------------------------------------------------------------------

@sw.jit
def k_row_sums(x_ptr, lengths_ptr, out_ptr, BLOCK: sl.constexpr):
    # each program sums its row's first `length` blocks: a loop count per program
    pid = sl.program_id(0)
    length = sl.load(lengths_ptr + pid)
    acc = sl.zeros((BLOCK,), sl.float32)
    i = 0
    while i < length:
        acc += sl.load(x_ptr + (pid * 8 + i) * BLOCK + sl.arange(0, BLOCK))
        i += 1
    sl.store(out_ptr + pid * BLOCK + sl.arange(0, BLOCK), acc)


@sw.jit
def k_collatz(n_ptr, steps_ptr, n):
    # a loop whose trip count nobody knows, with continue and break
    pid = sl.program_id(0)
    if pid >= n:
        return
    v = sl.load(n_ptr + pid)
    steps = 0
    while True:
        if v == 1:
            break
        steps += 1
        if v % 2 == 0:
            v = v // 2
            continue
        v = 3 * v + 1
    sl.store(steps_ptr + pid, steps)


@sw.jit
def k_countdown(out_ptr, start):
    # an integer condition: while k means while k != 0
    k = start
    total = 0
    while k:
        total += k
        k -= 1
    sl.store(out_ptr, total)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_while_with_a_count_per_program(executor):
    r = rng()
    rows = 6
    x = r.standard_normal(rows * 8 * BLOCK).astype(np.float32)
    lengths = r.integers(0, 9, rows).astype(np.int32)
    out = np.full(rows * BLOCK, np.nan, np.float32)
    k_row_sums[(rows,)](x, lengths, out, BLOCK=BLOCK, executor=executor)
    blocks = x.reshape(rows, 8, BLOCK)
    expected = np.stack([blocks[p, :lengths[p]].astype(np.float64).sum(axis=0)
                         for p in range(rows)])
    np.testing.assert_allclose(out.reshape(rows, BLOCK), expected, rtol=1e-5, atol=1e-5)


def collatz_steps(v):
    steps = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        steps += 1
    return steps


@pytest.mark.parametrize("executor", EXECUTORS)
def test_while_true_with_break_and_continue(executor):
    r = rng()
    n = 40
    values = r.integers(1, 1000, n).astype(np.int32)
    steps = np.full(n + 3, -1, np.int32)
    k_collatz[(n + 3,)](values, steps, n, executor=executor)  # 3 programs return at once
    assert steps[:n].tolist() == [collatz_steps(int(v)) for v in values]
    assert steps[n:].tolist() == [-1, -1, -1]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("start", [0, 1, 17])
def test_while_on_an_integer_condition(executor, start):
    out = np.zeros(1, np.int32)
    k_countdown[(1,)](out, start, executor=executor)
    assert out[0] == start * (start + 1) // 2


# ---- break and continue in for loops -------------------------------------------------------

@sw.jit
def k_first_above(x_ptr, out_ptr, n, limit):
    # the index of the first element above limit, or -1: a for loop that breaks
    found = -1
    for i in range(n):
        v = sl.load(x_ptr + i)
        if v > limit:
            found = i
            break
    sl.store(out_ptr, found)


@sw.jit
def k_sum_skipping(x_ptr, out_ptr, n):
    # the sum of the non-negative elements: a for loop that continues
    total = 0.0
    for i in sl.range(0, n):
        v = sl.load(x_ptr + i)
        if v < 0:
            continue
        total += v
    sl.store(out_ptr, total)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_for_with_break(executor):
    r = rng()
    x = r.standard_normal(50).astype(np.float32)
    for limit in (-100.0, 0.5, 2.0, 100.0):
        out = np.zeros(1, np.int32)
        k_first_above[(1,)](x, out, x.size, limit, executor=executor)
        above = np.flatnonzero(x > np.float32(limit))
        assert out[0] == (above[0] if above.size else -1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_for_with_continue(executor):
    r = rng()
    x = r.standard_normal(50).astype(np.float32)
    out = np.zeros(1, np.float32)
    k_sum_skipping[(1,)](x, out, x.size, executor=executor)
    np.testing.assert_allclose(out[0], x[x >= 0].astype(np.float64).sum(), rtol=1e-5)


# ---- early return --------------------------------------------------------------------------

@sw.jit
def k_guarded_copy(x_ptr, out_ptr, n, nprog, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    if pid >= nprog:
        return
    offs = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    if pid % 2 == 1:
        if pid == 1:
            return  # nested: program 1 writes nothing
        sl.store(out_ptr + offs, -x, mask=mask)
        return
    sl.store(out_ptr + offs, x, mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_early_returns_in_a_kernel(executor):
    r = rng()
    n = 8 * BLOCK
    x = r.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    k_guarded_copy[(10,)](x, out, n, 6, BLOCK=BLOCK, executor=executor)
    expected = np.full(n, np.nan, np.float32)
    for p in range(6):
        part = slice(p * BLOCK, (p + 1) * BLOCK)
        if p % 2 == 0:
            expected[part] = x[part]
        elif p != 1:
            expected[part] = -x[part]
    np.testing.assert_array_equal(out, expected)


# ---- conditions that are numbers -----------------------------------------------------------

@sw.jit
def k_number_conditions(x_ptr, flags_ptr, out_ptr, n, k, f, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    flags = sl.load(flags_ptr + offs, mask=mask)  # int32 tile: nonzero means true
    y = sl.where(flags, x, -x)
    if k:
        y = y + 1.0
    if f:
        y = y * 2.0
    y = y + (10.0 if k else 20.0)
    sl.store(out_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("k, f", [(0, 0.0), (3, 0.0), (0, -0.5), (-2, float("nan"))])
def test_numbers_as_conditions(executor, k, f):
    r = rng()
    n = 150
    x = r.standard_normal(n).astype(np.float32)
    flags = r.integers(-2, 3, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    k_number_conditions[(3,)](x, flags, out, n, k, f, BLOCK=BLOCK, executor=executor)
    y = np.where(flags != 0, x, -x)
    if k:
        y = y + np.float32(1)
    if f != 0 or f != f:
        y = y * np.float32(2)
    y = y + np.float32(10 if k else 20)
    np.testing.assert_array_equal(out, y)


# ---- .dtype, .shape, local constexprs, static_assert -----------------------------------------

@sw.jit
def k_dtype_shape(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    HALF: sl.constexpr = BLOCK // 2
    sl.static_assert(HALF * 2 == BLOCK, "BLOCK must be even")
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)  # float16
    y = sl.load(y_ptr + offs, mask=mask)  # int32
    sl.static_assert(x.shape == (BLOCK,))
    acc = sl.zeros(x.shape, y.dtype) + y
    acc2 = sl.full(x.shape, HALF, out_ptr.dtype.element_ty)
    (length,) = x.shape
    z = (x.to(sl.float32) * 2).to(x.dtype) + acc.to(x.dtype)
    sl.store(out_ptr + offs, z.to(out_ptr.dtype.element_ty) + acc2 + length, mask=mask)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_dtype_and_shape_are_compile_time_values(executor):
    r = rng()
    n = 100
    x = r.integers(-50, 50, n).astype(np.float16)
    y = r.integers(-50, 50, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    k_dtype_shape[(2,)](x, y, out, n, BLOCK=BLOCK, executor=executor)
    z = (x.astype(np.float32) * 2).astype(np.float16) + y.astype(np.float16)
    np.testing.assert_array_equal(out, z.astype(np.float32) + BLOCK // 2 + BLOCK)


# ---- errors ---------------------------------------------------------------------------------

@sw.jit
def k_static_assert_fails(x_ptr, n, BLOCK: sl.constexpr):
    sl.static_assert(BLOCK % 3 == 0, "BLOCK must be a multiple of 3")  # error at col 22: static assertion failed, multiple of 3


@sw.jit
def k_static_assert_runtime(x_ptr, n, BLOCK: sl.constexpr):
    sl.static_assert(n > 0)  # error at col 22: known while compiling


@sw.jit
def k_local_constexpr_runtime(x_ptr, n, BLOCK: sl.constexpr):
    K: sl.constexpr = n + 1  # error at col 23: annotated sl.constexpr, not a compile-time constant


@sw.jit
def k_local_other_annotation(x_ptr, n, BLOCK: sl.constexpr):
    K: sl.int32 = n  # error at col 8: only be annotated sl.constexpr


@sw.jit
def k_while_tile_condition(x_ptr, n, BLOCK: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, BLOCK))
    while x > 0:  # error at col 11: condition of 'while' must be a scalar, sl.where
        x = x - 1


@sw.jit
def k_return_in_while(x_ptr, n, BLOCK: sl.constexpr):
    i = 0
    while i < n:
        if i > 3:
            return  # error at col 13: 'return' inside a while loop is not supported
        i += 1


@sw.jit
def k_break_in_static_range(x_ptr, n, BLOCK: sl.constexpr):
    for i in range(n):
        for j in sl.static_range(4):
            if j > i:
                continue  # error at col 17: 'continue' inside an sl.static_range loop


@sw.jit
def k_while_carried_type(x_ptr, n, BLOCK: sl.constexpr):
    v = 0
    while v < n:  # error at col 5: variable 'v' is int32 before the loop but float32
        v = v + 0.5


@sw.jit
def k_kernel_return_value(x_ptr, n, BLOCK: sl.constexpr):
    if n > 0:
        return n  # error at col 16: a kernel cannot return a value


@sw.jit
def k_after_while(x_ptr, n, BLOCK: sl.constexpr):
    while n > 0:
        fresh = n
        n -= 1
    sl.store(x_ptr, fresh.to(sl.float32))  # error at col 21: 'fresh' is assigned inside the while loop


@sw.jit
def k_shape_of_pointer_dtype(x_ptr, n, BLOCK: sl.constexpr):
    t = sl.zeros((BLOCK,), x_ptr.dtype)  # error at col 28: element type is .dtype.element_ty


@sw.jit
def k_unknown_attribute(x_ptr, n, BLOCK: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, BLOCK))
    t = x.numel  # error at col 9: attribute '.numel' is not supported


ERRORS = [k_static_assert_fails, k_static_assert_runtime, k_local_constexpr_runtime,
          k_local_other_annotation, k_while_tile_condition, k_return_in_while,
          k_break_in_static_range, k_while_carried_type,
          k_kernel_return_value, k_after_while, k_shape_of_pointer_dtype, k_unknown_attribute]


@pytest.mark.parametrize("kernel", ERRORS, ids=[k.__name__ for k in ERRORS])
def test_errors_point_at_line_and_column(kernel):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, {"x_ptr": "*f32", "n": "i32"},
                                                 {"BLOCK": BLOCK})
