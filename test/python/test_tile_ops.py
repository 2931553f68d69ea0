"""Every operator and built-in of docs/language.md against NumPy (or exact
Python references) on the CPU executor, on every dtype where it makes sense,
with fresh random inputs each run.

Tolerances: + - * / // % and comparisons, casts, floor/ceil/abs, where,
minimum/maximum and reductions of exactly representable values are exact.
Math functions are computed in double and rounded once, so they are checked
against NumPy's double result rounded to the dtype with rtol 1e-6 (f32),
1e-3 (f16), 1e-2 (bf16), 1e-13 (f64). NaN must appear exactly where it is
expected.
"""

import math

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import (ALL_DTYPES, FLOAT_DTYPES, INT_BITS, INT_DTYPES, NUMERIC_DTYPES,
                           assert_close, assert_same, float_to_int, int_range, np_dtype,
                           random_array, round_int_to_float, round_to_bf16, wrap_int)

BLOCK = 64
N = 200  # not a multiple of BLOCK: the last program is masked


def cdiv(a, b):
    return (a + b - 1) // b


SL_DTYPES = {"bool": sl.int1, "int8": sl.int8, "uint8": sl.uint8, "int16": sl.int16,
             "uint16": sl.uint16, "int32": sl.int32, "uint32": sl.uint32, "int64": sl.int64,
             "uint64": sl.uint64, "float16": sl.float16, "bfloat16": sl.bfloat16,
             "float32": sl.float32, "float64": sl.float64}


# ---- kernels ---------------------------------------------------------------------------
# One small kernel per operator: a failure names the operator.

@sw.jit
def op_add(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x + y, mask=mask)


@sw.jit
def op_sub(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x - y, mask=mask)


@sw.jit
def op_mul(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x * y, mask=mask)


@sw.jit
def op_truediv(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    sl.store(out_ptr + offs, x / y, mask=mask)


@sw.jit
def op_floordiv(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    sl.store(out_ptr + offs, x // y, mask=mask)


@sw.jit
def op_mod(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    sl.store(out_ptr + offs, x % y, mask=mask)


@sw.jit
def op_bitand(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x & y, mask=mask)


@sw.jit
def op_bitor(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x | y, mask=mask)


@sw.jit
def op_bitxor(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x ^ y, mask=mask)


@sw.jit
def op_shl(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x << y, mask=mask)


@sw.jit
def op_shr(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x >> y, mask=mask)


@sw.jit
def op_compare(x_ptr, y_ptr, lt_ptr, le_ptr, gt_ptr, ge_ptr, eq_ptr, ne_ptr, n,
               BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(lt_ptr + offs, x < y, mask=mask)
    sl.store(le_ptr + offs, x <= y, mask=mask)
    sl.store(gt_ptr + offs, x > y, mask=mask)
    sl.store(ge_ptr + offs, x >= y, mask=mask)
    sl.store(eq_ptr + offs, x == y, mask=mask)
    sl.store(ne_ptr + offs, x != y, mask=mask)


@sw.jit
def op_min_max_where(x_ptr, y_ptr, c_ptr, min_ptr, max_ptr, where_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    c = sl.load(c_ptr + offs, mask=mask)
    sl.store(min_ptr + offs, sl.minimum(x, y), mask=mask)
    sl.store(max_ptr + offs, sl.maximum(x, y), mask=mask)
    sl.store(where_ptr + offs, sl.where(c, x, y), mask=mask)


@sw.jit
def op_neg_invert(x_ptr, neg_ptr, inv_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(neg_ptr + offs, -x, mask=mask)
    sl.store(inv_ptr + offs, ~x, mask=mask)


@sw.jit
def op_neg(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, -x, mask=mask)


@sw.jit
def op_logic(a_ptr, b_ptr, and_ptr, or_ptr, not_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    a = sl.load(a_ptr + offs, mask=mask)
    b = sl.load(b_ptr + offs, mask=mask)
    sl.store(and_ptr + offs, a and b, mask=mask)
    sl.store(or_ptr + offs, a or b, mask=mask)
    sl.store(not_ptr + offs, not a, mask=mask)


@sw.jit
def op_math(x_ptr, exp_ptr, exp2_ptr, log_ptr, log2_ptr, sqrt_ptr, rsqrt_ptr, sin_ptr, cos_ptr,
            sigmoid_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(exp_ptr + offs, sl.exp(x), mask=mask)
    sl.store(exp2_ptr + offs, sl.exp2(x), mask=mask)
    sl.store(log_ptr + offs, sl.log(x), mask=mask)
    sl.store(log2_ptr + offs, sl.log2(x), mask=mask)
    sl.store(sqrt_ptr + offs, sl.sqrt(x), mask=mask)
    sl.store(rsqrt_ptr + offs, sl.rsqrt(x), mask=mask)
    sl.store(sin_ptr + offs, sl.sin(x), mask=mask)
    sl.store(cos_ptr + offs, sl.cos(x), mask=mask)
    sl.store(sigmoid_ptr + offs, sl.sigmoid(x), mask=mask)


@sw.jit
def op_rounding(x_ptr, abs_ptr, floor_ptr, ceil_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(abs_ptr + offs, sl.abs(x), mask=mask)
    sl.store(floor_ptr + offs, sl.floor(x), mask=mask)
    sl.store(ceil_ptr + offs, sl.ceil(x), mask=mask)


@sw.jit
def op_abs(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    sl.store(out_ptr + offs, sl.abs(sl.load(x_ptr + offs, mask=mask)), mask=mask)


@sw.jit
def op_math_bf16(x_ptr, exp_ptr, log_ptr, sqrt_ptr, sin_ptr, sigmoid_ptr, floor_ptr, n,
                 BLOCK: sl.constexpr):
    # bfloat16 has no NumPy dtype: convert on the way in and out.
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask, other=1.0).to(sl.bfloat16)
    sl.store(exp_ptr + offs, sl.exp(x).to(sl.float32), mask=mask)
    sl.store(log_ptr + offs, sl.log(x).to(sl.float32), mask=mask)
    sl.store(sqrt_ptr + offs, sl.cast(sl.sqrt(x), sl.float32), mask=mask)
    sl.store(sin_ptr + offs, sl.cast(sl.sin(x), sl.float32), mask=mask)
    sl.store(sigmoid_ptr + offs, sl.cast(sl.sigmoid(x), sl.float32), mask=mask)
    sl.store(floor_ptr + offs, sl.cast(sl.floor(x), sl.float32), mask=mask)


@sw.jit
def op_arith_bf16(x_ptr, y_ptr, add_ptr, mul_ptr, div_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.cast(sl.load(x_ptr + offs, mask=mask), sl.bfloat16)
    y = sl.cast(sl.load(y_ptr + offs, mask=mask, other=1.0), sl.bfloat16)
    sl.store(add_ptr + offs, (x + y).to(sl.float32), mask=mask)
    sl.store(mul_ptr + offs, (x * y).to(sl.float32), mask=mask)
    sl.store(div_ptr + offs, (x / y).to(sl.float32), mask=mask)


@sw.jit
def op_cast(x_ptr, out_ptr, n, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, sl.cast(x, DTYPE), mask=mask)


@sw.jit
def op_to(x_ptr, out_ptr, n, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    sl.store(out_ptr + offs, sl.load(x_ptr + offs, mask=mask).to(DTYPE), mask=mask)


@sw.jit
def op_cast_via(x_ptr, out_ptr, n, MID: sl.constexpr, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, sl.cast(sl.cast(x, MID), DTYPE), mask=mask)


@sw.jit
def op_reduce(x_ptr, sum_ptr, max_ptr, min_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    x = sl.load(x_ptr + pid * BLOCK + sl.arange(0, BLOCK))
    sl.store(sum_ptr + pid, sl.sum(x))
    sl.store(max_ptr + pid, sl.max(x))
    sl.store(min_ptr + pid, sl.min(x))


@sw.jit
def op_prod(x_ptr, out_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    x = sl.load(x_ptr + pid * BLOCK + sl.arange(0, BLOCK))
    sl.store(out_ptr + pid, sl.prod(x))


@sw.jit
def op_full(out_ptr, VALUE: sl.constexpr, DTYPE: sl.constexpr, FORM: sl.constexpr,
            BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    if FORM == 0:
        tile = sl.full(BLOCK, VALUE, DTYPE)
    elif FORM == 1:
        tile = sl.full((BLOCK,), VALUE, DTYPE)
    else:
        tile = sl.full([BLOCK], VALUE, DTYPE)
    sl.store(out_ptr + offs, tile)


@sw.jit
def op_zeros(out_ptr, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    """Docstrings, chained assignment and a bare return at the end are accepted."""
    offs = first = sl.arange(0, BLOCK)
    sl.store(out_ptr + first, sl.zeros(BLOCK, DTYPE))
    sl.store(out_ptr + BLOCK + offs, sl.zeros((BLOCK,), DTYPE))
    sl.store(out_ptr + 2 * BLOCK + offs, sl.zeros([BLOCK], DTYPE))
    return


@sw.jit
def op_scalar_params(x_ptr, out_ptr, scale, shift, flag, big, n, BLOCK: sl.constexpr):
    # scale: float -> f32; shift: int -> i32; flag: bool -> i1; big: int -> i64
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = x * scale + shift
    y = sl.where(flag, y, -y)
    sl.store(out_ptr + offs, y, mask=mask)
    sl.store(out_ptr + n, sl.cast(big - 1, sl.float32))


@sw.jit
def op_load_other(x_ptr, out_ptr, n, OTHER: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    sl.store(out_ptr + offs, x)


@sw.jit
def op_promote_add(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, x + y, mask=mask)


@sw.jit
def op_literals(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    # Literals take the other operand's type; a float literal with integers gives float32.
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(out_ptr + offs, (x * 3 - 7) + x / 2 + 0.5, mask=mask)


@sw.jit
def op_pointer_arith(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    # scalar pointer + int, tile of pointers, int64 offsets
    first = sl.load(x_ptr)
    last = sl.load(x_ptr + (n - 1))
    offs = sl.arange(0, BLOCK)
    wide = offs.to(sl.int64) + 1
    middle = sl.load(x_ptr + wide, mask=wide < n, other=0.0)
    sl.store(out_ptr + offs, middle + first + last)


@sw.jit
def op_static_range(x_ptr, out_ptr, ROWS: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    acc = sl.zeros(BLOCK, sl.float32)
    for r in sl.static_range(ROWS):
        acc += sl.load(x_ptr + r * BLOCK + offs) * (r + 1)
    back = sl.zeros(BLOCK, sl.int32)
    for r in sl.static_range(ROWS - 1, -1, -2):
        back = back * 3 + r
    sl.store(out_ptr + offs, acc)
    sl.store(out_ptr + BLOCK + offs, back.to(sl.float32))


@sw.jit
def op_runtime_loop(x_ptr, out_ptr, rows, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    acc = sl.zeros(BLOCK, sl.int32)
    weighted = sl.zeros(BLOCK, sl.int32)
    count = rows * 0
    for r in range(rows):
        x = sl.load(x_ptr + r * BLOCK + offs)
        acc = acc + x
        weighted = weighted * 3 + x
        count += 1
    back = sl.zeros(BLOCK, sl.int32)
    for r in range(rows - 1, -1, -1):
        back = back * 5 + sl.load(x_ptr + r * BLOCK + offs)
    evens = sl.zeros(BLOCK, sl.int32)
    for r in range(0, rows, 2):
        evens += sl.load(x_ptr + r * BLOCK + offs)
    sl.store(out_ptr + offs, acc)
    sl.store(out_ptr + BLOCK + offs, weighted)
    sl.store(out_ptr + 2 * BLOCK + offs, back)
    sl.store(out_ptr + 3 * BLOCK + offs, evens)
    sl.store(out_ptr + 4 * BLOCK, count)


@sw.jit
def op_nested_loop(out_ptr, rows, cols):
    total = rows * 0
    product = total + 1
    for i in range(rows):
        inner = total * 0
        for j in range(cols):
            inner += i * j + 1
        total += inner
        product = product * 3 % 1000003
    sl.store(out_ptr, total)
    sl.store(out_ptr + 1, product)


@sw.jit
def op_runtime_step(out_ptr, lo, hi, step):
    count = lo * 0
    first = lo * 0
    last = lo * 0
    for i in range(lo, hi, step):
        if count == 0:
            first = i
        last = i
        count += 1
    sl.store(out_ptr, count)
    sl.store(out_ptr + 1, first)
    sl.store(out_ptr + 2, last)


@sw.jit
def op_float_loop(x_ptr, out_ptr, rows, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    acc = sl.zeros(BLOCK, sl.float32)
    for r in range(1, rows + 1):
        acc = acc * 0.5 + sl.load(x_ptr + (r - 1) * BLOCK + offs)
    sl.store(out_ptr + offs, acc)


@sw.jit
def op_branches(x_ptr, out_ptr, ifexp_ptr, n):
    pid = sl.program_id(0)
    v = sl.load(x_ptr + pid)
    if v < 0:
        r = v * 2
    elif v == 0:
        r = v + 100
    elif 0 < v < 10:  # a chained comparison
        r = v - 100
    else:
        r = v * 0 + 7
    sl.store(out_ptr + pid, r)
    sl.store(ifexp_ptr + pid, v if v > 3 else -v)


@sw.jit
def op_branch_tiles(x_ptr, out_ptr, BLOCK: sl.constexpr):
    # a runtime condition choosing between tile values
    pid = sl.program_id(0)
    offs = pid * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    total = sl.sum(x)
    if total > 0:
        y = x * 2.0
    else:
        y = -x
    sl.store(out_ptr + offs, y)


@sw.jit
def op_constexpr_branch(x_ptr, out_ptr, FLAG: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    if FLAG:
        sl.store(out_ptr + offs, x + 1)
    else:
        # never compiled when FLAG is true: storing pointers
        sl.store(out_ptr + offs, x_ptr + offs)


@sw.jit
def op_grid_ids(out_ptr):
    i = sl.program_id(0)
    j = sl.program_id(1)
    k = sl.program_id(2)
    ni = sl.num_programs(0)
    nj = sl.num_programs(1)
    nk = sl.num_programs(2)
    linear = (k * nj + j) * ni + i
    base = out_ptr + linear * 6
    sl.store(base, i)
    sl.store(base + 1, j)
    sl.store(base + 2, k)
    sl.store(base + 3, ni)
    sl.store(base + 4, nj)
    sl.store(base + 5, nk)


@sw.jit
def op_matrix_add_2d(x_ptr, y_ptr, out_ptr, rows, cols, BLOCK: sl.constexpr):
    col = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    row = sl.program_id(1)
    mask = col < cols
    index = row * cols + col
    x = sl.load(x_ptr + index, mask=mask)
    y = sl.load(y_ptr + index, mask=mask)
    sl.store(out_ptr + index, x * y + x, mask=mask)


# ---- helpers ---------------------------------------------------------------------------

def launch_elementwise(kernel, arrays, n, constexprs=None, block=BLOCK):
    cx = {"BLOCK": block}
    cx.update(constexprs or {})
    kernel.launch(arguments=dict(arrays, n=n), constexprs=cx, grid=(cdiv(n, block),))


def binary(kernel, x, y, out_dtype, **constexprs):
    out = np.zeros(x.size, np_dtype(out_dtype) if isinstance(out_dtype, str) else out_dtype)
    launch_elementwise(kernel, {"x_ptr": x, "y_ptr": y, "out_ptr": out}, x.size, constexprs)
    return out


def wrap_array(values, dtype):
    return np.array([wrap_int(int(v), dtype) for v in values], dtype=np_dtype(dtype))


def int_inputs(rng, dtype, size=N):
    x = random_array(rng, dtype, size)
    lo, hi = int_range(dtype)
    specials = np.array([lo, hi, 0, 1, -1 if lo < 0 else 2, lo + 1], dtype=dtype)
    x[:specials.size] = specials
    return x


def float_inputs(rng, dtype, size=N, nan=True):
    x = random_array(rng, dtype, size)
    if nan:
        x[3::29] = np.nan
        x[5] = np.inf
        x[6] = -np.inf
        x[7] = 0.0
        x[8] = -0.0
    return x


# ---- arithmetic ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
@pytest.mark.parametrize("name, kernel, ref", [
    ("+", op_add, np.add), ("-", op_sub, np.subtract), ("*", op_mul, np.multiply)])
def test_add_sub_mul_exact(rng, dtype, name, kernel, ref):
    # Integers wrap; floats are the correctly rounded result (exactly NumPy's).
    if dtype in INT_DTYPES:
        x, y = int_inputs(rng, dtype), int_inputs(rng, dtype)[::-1].copy()
    else:
        x, y = float_inputs(rng, dtype), float_inputs(rng, dtype)[::-1].copy()
    with np.errstate(all="ignore"):
        expected = ref(x, y)
    assert_same(binary(kernel, x, y, dtype), expected, rng.seed, "x %s y on %s" % (name, dtype),
                {"x": x, "y": y})


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_truediv_float(rng, dtype):
    x, y = float_inputs(rng, dtype), float_inputs(rng, dtype)[::-1].copy()
    y[10] = 0.0
    y[11] = -0.0
    x[11] = 0.0  # 0/-0 -> NaN
    with np.errstate(all="ignore"):
        expected = x / y
    assert_same(binary(op_truediv, x, y, dtype), expected, rng.seed, "x / y on " + dtype,
                {"x": x, "y": y})


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_truediv_int_gives_float32(rng, dtype):
    # '/' converts integers to float32 first (nearest even), then divides in float32.
    x = int_inputs(rng, dtype)
    y = int_inputs(rng, dtype)[::-1].copy()
    y[y == 0] = 3
    xf = np.array([round_int_to_float(int(v), "float32") for v in x], np.float32)
    yf = np.array([round_int_to_float(int(v), "float32") for v in y], np.float32)
    assert_same(binary(op_truediv, x, y, "float32"), xf / yf, rng.seed, "x / y on " + dtype,
                {"x": x, "y": y})


def c_div(a, b):
    """C's a / b on Python ints: the quotient rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_floordiv_mod_int_c_semantics(rng, dtype):
    # As Triton's (C's): // rounds toward zero, % takes the dividend's sign;
    # division by zero gives 0 on the CPU; the result wraps (INT_MIN // -1).
    x = int_inputs(rng, dtype)
    y = int_inputs(rng, dtype)[::-1].copy()
    unsigned = dtype.startswith("uint")
    y[::7] = rng.integers(-9 if not unsigned else 1, 10, y[::7].size)
    y[::23] = 0
    if not unsigned:
        lo, _ = int_range(dtype)
        x[40], y[40] = lo, -1
    q = [0 if b == 0 else c_div(int(a), int(b)) for a, b in zip(x, y)]
    r = [0 if b == 0 else int(a) - c_div(int(a), int(b)) * int(b) for a, b in zip(x, y)]
    inputs = {"x": x, "y": y}
    assert_same(binary(op_floordiv, x, y, dtype), wrap_array(q, dtype), rng.seed,
                "x // y on " + dtype, inputs)
    assert_same(binary(op_mod, x, y, dtype), wrap_array(r, dtype), rng.seed,
                "x % y on " + dtype, inputs)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_floordiv_mod_float_python_semantics(rng, dtype):
    # Quarter-integer values keep the quotient away from rounding ties, so the
    # result is the same for every correct algorithm: exact comparison.
    x = (rng.integers(-4000, 4000, N) / 4).astype(dtype)
    y = (rng.integers(1, 120, N) / 4 * rng.choice([-1, 1], N)).astype(dtype)
    inputs = {"x": x, "y": y}
    assert_same(binary(op_floordiv, x, y, dtype), np.floor_divide(x, y), rng.seed,
                "x // y on " + dtype, inputs)
    assert_same(binary(op_mod, x, y, dtype), np.mod(x, y), rng.seed, "x % y on " + dtype, inputs)


# ---- bitwise ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool"] + INT_DTYPES)
def test_bitwise_and_or_xor(rng, dtype):
    if dtype == "bool":
        x, y = random_array(rng, np.bool_, N), random_array(rng, np.bool_, N)
    else:
        x, y = int_inputs(rng, dtype), int_inputs(rng, dtype)[::-1].copy()
    inputs = {"x": x, "y": y}
    assert_same(binary(op_bitand, x, y, dtype), x & y, rng.seed, "x & y on " + dtype, inputs)
    assert_same(binary(op_bitor, x, y, dtype), x | y, rng.seed, "x | y on " + dtype, inputs)
    assert_same(binary(op_bitxor, x, y, dtype), x ^ y, rng.seed, "x ^ y on " + dtype, inputs)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shifts(rng, dtype):
    # In-range counts shift (arithmetic >> for signed types); counts outside
    # [0, bits) give 0, or -1 for >> of a negative signed value.
    bits = INT_BITS[dtype]
    x = int_inputs(rng, dtype)
    y = random_array(rng, dtype, N)  # whole range: many out-of-range and negative counts
    y[: N // 2] = rng.integers(0, bits, N // 2)
    y[N // 2] = bits
    signed = dtype != "uint8"

    def shl(a, c):
        return wrap_int(a << c, dtype) if 0 <= c < bits else 0

    def shr(a, c):
        if 0 <= c < bits:
            return a >> c
        return -1 if signed and a < 0 else 0

    pairs = [(int(a), int(c)) for a, c in zip(x, y)]
    inputs = {"x": x, "y": y}
    assert_same(binary(op_shl, x, y, dtype), wrap_array([shl(a, c) for a, c in pairs], dtype),
                rng.seed, "x << y on " + dtype, inputs)
    assert_same(binary(op_shr, x, y, dtype), wrap_array([shr(a, c) for a, c in pairs], dtype),
                rng.seed, "x >> y on " + dtype, inputs)


@pytest.mark.parametrize("dtype", ["bool"] + INT_DTYPES)
def test_invert_and_neg(rng, dtype):
    x = random_array(rng, np.bool_, N) if dtype == "bool" else int_inputs(rng, dtype)
    neg = np.zeros(N, np_dtype(dtype))
    inv = np.zeros(N, np_dtype(dtype))
    if dtype == "bool":
        launch_elementwise(op_logic, {"a_ptr": x, "b_ptr": x, "and_ptr": np.zeros(N, bool),
                                      "or_ptr": np.zeros(N, bool), "not_ptr": inv}, N)
        assert_same(inv, ~x, rng.seed, "not x on bool")
        return
    launch_elementwise(op_neg_invert, {"x_ptr": x, "neg_ptr": neg, "inv_ptr": inv}, N)
    assert_same(neg, wrap_array([-int(v) for v in x], dtype), rng.seed, "-x on " + dtype,
                {"x": x})
    assert_same(inv, ~x, rng.seed, "~x on " + dtype, {"x": x})


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_neg_float_keeps_signed_zero_and_nan(rng, dtype):
    x = float_inputs(rng, dtype)
    out = np.zeros(N, dtype)
    launch_elementwise(op_neg, {"x_ptr": x, "out_ptr": out}, N)
    assert_same(out, -x, rng.seed, "-x on " + dtype, {"x": x}, signed_zero=True)


def test_logical_and_or_not(rng):
    a, b = random_array(rng, np.bool_, N), random_array(rng, np.bool_, N)
    outs = {k: np.zeros(N, bool) for k in ("and_ptr", "or_ptr", "not_ptr")}
    launch_elementwise(op_logic, dict(outs, a_ptr=a, b_ptr=b), N)
    assert_same(outs["and_ptr"], a & b, rng.seed, "a and b")
    assert_same(outs["or_ptr"], a | b, rng.seed, "a or b")
    assert_same(outs["not_ptr"], ~a, rng.seed, "not a")


# ---- comparisons, where, minimum, maximum -----------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_comparisons(rng, dtype):
    # Comparisons give int1; every comparison with NaN is false except !=.
    if dtype == "bool":
        x, y = random_array(rng, np.bool_, N), random_array(rng, np.bool_, N)
    elif dtype in INT_DTYPES:
        x = int_inputs(rng, dtype)
        y = x.copy()
        y[::2] = int_inputs(rng, dtype)[::2]  # half equal, half random
    else:
        x = float_inputs(rng, dtype)
        y = x.copy()
        y[::2] = float_inputs(rng, dtype)[::-2]
    names = ["lt", "le", "gt", "ge", "eq", "ne"]
    outs = {name + "_ptr": np.zeros(N, bool) for name in names}
    launch_elementwise(op_compare, dict(outs, x_ptr=x, y_ptr=y), N)
    refs = [np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal]
    for name, ref in zip(names, refs):
        with np.errstate(invalid="ignore"):
            expected = ref(x, y)
        assert_same(outs[name + "_ptr"], expected, rng.seed, "x %s y on %s" % (name, dtype),
                    {"x": x, "y": y})


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_minimum_maximum_where(rng, dtype):
    # minimum/maximum give NaN when either operand is NaN (as NumPy's do).
    if dtype == "bool":
        x, y = random_array(rng, np.bool_, N), random_array(rng, np.bool_, N)
    elif dtype in INT_DTYPES:
        x, y = int_inputs(rng, dtype), int_inputs(rng, dtype)[::-1].copy()
    else:
        x, y = float_inputs(rng, dtype), float_inputs(rng, dtype)[::-1].copy()
    c = random_array(rng, np.bool_, N)
    outs = {k: np.zeros(N, np_dtype(dtype)) for k in ("min_ptr", "max_ptr", "where_ptr")}
    launch_elementwise(op_min_max_where, dict(outs, x_ptr=x, y_ptr=y, c_ptr=c), N)
    inputs = {"x": x, "y": y}
    assert_same(outs["min_ptr"], np.minimum(x, y), rng.seed, "minimum on " + dtype, inputs)
    assert_same(outs["max_ptr"], np.maximum(x, y), rng.seed, "maximum on " + dtype, inputs)
    assert_same(outs["where_ptr"], np.where(c, x, y), rng.seed, "where on " + dtype, inputs)


# ---- math ------------------------------------------------------------------------------

MATH_REFS = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": lambda v: 1.0 / np.sqrt(v), "sin": np.sin, "cos": np.cos,
    "sigmoid": lambda v: np.where(v >= 0, 1.0 / (1.0 + np.exp(-np.abs(v))),
                                  np.exp(-np.abs(v)) / (1.0 + np.exp(-np.abs(v)))),
}
RTOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-13}
ATOL = {"float16": 1e-7, "bfloat16": 1e-38, "float32": 1e-44, "float64": 0.0}


def math_reference(values64, name, dtype):
    with np.errstate(all="ignore"):
        exact = MATH_REFS[name](values64)
    if dtype == "bfloat16":
        return round_to_bf16(exact)
    with np.errstate(over="ignore"):
        return exact.astype(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_math_functions(rng, dtype):
    # Positive values mostly (so log/sqrt are defined), plus negatives,
    # zeros, infinities and NaN for the special cases.
    limit = 10.0 if dtype == "float16" else 40.0
    x = rng.uniform(-limit, limit, N).astype(dtype)
    x[: N // 2] = np.abs(x[: N // 2])
    x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5], dtype)
    outs = {name + "_ptr": np.zeros(N, dtype) for name in MATH_REFS}
    launch_elementwise(op_math, dict(outs, x_ptr=x), N)
    x64 = x.astype(np.float64)
    for name in MATH_REFS:
        assert_close(outs[name + "_ptr"], math_reference(x64, name, dtype), RTOL[dtype],
                     ATOL[dtype], rng.seed, "sl.%s on %s" % (name, dtype), {"x": x})


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_abs_floor_ceil_float_exact(rng, dtype):
    x = float_inputs(rng, dtype)
    x[20:40] = (rng.integers(-20, 20, 20) / 4).astype(dtype)  # halves and integers
    outs = {k: np.zeros(N, dtype) for k in ("abs_ptr", "floor_ptr", "ceil_ptr")}
    launch_elementwise(op_rounding, dict(outs, x_ptr=x), N)
    inputs = {"x": x}
    assert_same(outs["abs_ptr"], np.abs(x), rng.seed, "abs on " + dtype, inputs)
    assert_same(outs["floor_ptr"], np.floor(x), rng.seed, "floor on " + dtype, inputs)
    assert_same(outs["ceil_ptr"], np.ceil(x), rng.seed, "ceil on " + dtype, inputs)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_abs_int_stays_int_and_wraps(rng, dtype):
    x = int_inputs(rng, dtype)
    out = np.zeros(N, dtype)
    launch_elementwise(op_abs, {"x_ptr": x, "out_ptr": out}, N)
    assert_same(out, wrap_array([abs(int(v)) for v in x], dtype), rng.seed, "abs on " + dtype,
                {"x": x})


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_math_on_integers_gives_float32(rng, dtype):
    # Integers convert to float32 (nearest even) before the function.
    x = random_array(rng, dtype, N, 1, 100)
    x[:3] = np.array([0, 1, 2], dtype)
    outs = {name + "_ptr": np.zeros(N, np.float32) for name in MATH_REFS}
    launch_elementwise(op_math, dict(outs, x_ptr=x), N)
    x64 = np.array([round_int_to_float(int(v), "float32") for v in x], np.float64)
    for name in MATH_REFS:
        assert_close(outs[name + "_ptr"], math_reference(x64, name, "float32"), RTOL["float32"],
                     ATOL["float32"], rng.seed, "sl.%s on %s" % (name, dtype), {"x": x})


def test_math_on_bfloat16(rng):
    x = rng.uniform(0.01, 30, N).astype(np.float32)
    x[::5] *= -1
    x[0] = 0.0
    outs = {k: np.zeros(N, np.float32)
            for k in ("exp_ptr", "log_ptr", "sqrt_ptr", "sin_ptr", "sigmoid_ptr", "floor_ptr")}
    launch_elementwise(op_math_bf16, dict(outs, x_ptr=x), N)
    xb = round_to_bf16(x.astype(np.float64)).astype(np.float64)
    for name in ("exp", "log", "sqrt", "sin", "sigmoid"):
        assert_close(outs[name + "_ptr"], math_reference(xb, name, "bfloat16"), RTOL["bfloat16"],
                     ATOL["bfloat16"], rng.seed, "sl.%s on bfloat16" % name, {"x": x})
    assert_same(outs["floor_ptr"], np.floor(xb).astype(np.float32), rng.seed, "floor on bf16")


def test_arithmetic_on_bfloat16_is_correctly_rounded(rng):
    x = (rng.standard_normal(N) * 100).astype(np.float32)
    y = (rng.standard_normal(N) * 100).astype(np.float32)
    outs = {k: np.zeros(N, np.float32) for k in ("add_ptr", "mul_ptr", "div_ptr")}
    launch_elementwise(op_arith_bf16, dict(outs, x_ptr=x, y_ptr=y), N)
    xb = round_to_bf16(x.astype(np.float64)).astype(np.float64)
    yb = round_to_bf16(y.astype(np.float64)).astype(np.float64)
    inputs = {"x": x, "y": y}
    assert_same(outs["add_ptr"], round_to_bf16(xb + yb), rng.seed, "bf16 x + y", inputs)
    assert_same(outs["mul_ptr"], round_to_bf16(xb * yb), rng.seed, "bf16 x * y", inputs)
    assert_same(outs["div_ptr"], round_to_bf16(xb / yb), rng.seed, "bf16 x / y", inputs)


# ---- casts -----------------------------------------------------------------------------

def cast_reference(values, src, dst):
    """Exact conversion of each element per docs/language.md."""
    out = []
    for v in values:
        if src == "bool" or src in INT_DTYPES:
            v = int(v)
            if dst == "bool" or dst in INT_DTYPES:
                out.append(wrap_int(v, dst))
            else:
                out.append(round_int_to_float(v, dst))
        else:
            v = float(v)
            if dst == "bool":
                out.append(int(v != 0))  # NaN != 0: True, as in Python and NumPy
            elif dst in INT_DTYPES:
                out.append(float_to_int(v, dst))
            else:
                out.append(v)  # rounded below by NumPy's correctly rounded astype
    if dst in FLOAT_DTYPES:
        with np.errstate(over="ignore"):
            return np.array(out, np.float64).astype(dst)
    return np.array(out, dtype=np_dtype(dst))


def cast_inputs(rng, src):
    if src == "bool":
        return random_array(rng, np.bool_, N)
    if src in INT_DTYPES:
        return int_inputs(rng, src)
    x = (rng.standard_normal(N) * 200).astype(src)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 0.99999, -1.5,
                127.9, 128.0, -128.9, -129.0, 255.5, 256.0, 1e10, -1e10, 3e9, -3e9,
                1e19, -1e19, 9.3e18, 65519.0, 65520.0, 1e30, -1e30]
    if src == "float64":
        specials += [1 + 2.0 ** -11 + 2.0 ** -40,   # nearest-even f16 rounds up; via f32 it ties down
                     1 + 2.0 ** -24 + 2.0 ** -50,   # the same trap for f64 -> f32
                     2.0 ** 63, -2.0 ** 63, 2.0 ** 31 - 0.5, -2.0 ** 31 - 0.5]
    with np.errstate(over="ignore"):
        x[: len(specials)] = np.array(specials, np.float64).astype(src)
    return x


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_cast_matrix(rng, src, dst):
    # float->int truncates toward zero and saturates, NaN -> 0; int->int
    # wraps; ->int1 is != 0 (so NaN -> True); to float rounds to nearest even.
    x = cast_inputs(rng, src)
    out = np.zeros(N, np_dtype(dst))
    launch_elementwise(op_cast, {"x_ptr": x, "out_ptr": out}, N, {"DTYPE": SL_DTYPES[dst]})
    assert_same(out, cast_reference(x, src, dst), rng.seed, "cast %s -> %s" % (src, dst),
                {"x": x}, signed_zero=True)


@pytest.mark.parametrize("src, dst", [("float32", "int32"), ("int64", "float16"),
                                      ("float64", "uint8"), ("bool", "float32")])
def test_to_method_matches_cast(rng, src, dst):
    x = cast_inputs(rng, src)
    out = np.zeros(N, np_dtype(dst))
    launch_elementwise(op_to, {"x_ptr": x, "out_ptr": out}, N, {"DTYPE": SL_DTYPES[dst]})
    assert_same(out, cast_reference(x, src, dst), rng.seed, "x.to(%s) from %s" % (dst, src),
                {"x": x})


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "int32", "int64"])
def test_cast_to_bfloat16_rounds_to_nearest_even(rng, src):
    x = cast_inputs(rng, src)
    x64 = np.array([round_int_to_float(int(v), "bfloat16") for v in x]) \
        if src in INT_DTYPES else x.astype(np.float64)
    out = np.zeros(N, np.float32)
    launch_elementwise(op_cast_via, {"x_ptr": x, "out_ptr": out}, N,
                       {"MID": sl.bfloat16, "DTYPE": sl.float32})
    assert_same(out, round_to_bf16(x64), rng.seed, "cast %s -> bfloat16" % src, {"x": x},
                signed_zero=True)


@pytest.mark.parametrize("dst", INT_DTYPES + ["bool", "float16"])
def test_cast_from_bfloat16(rng, dst):
    x = round_to_bf16(cast_inputs(rng, "float32").astype(np.float64))
    out = np.zeros(N, np_dtype(dst))
    launch_elementwise(op_cast_via, {"x_ptr": x, "out_ptr": out}, N,
                       {"MID": sl.bfloat16, "DTYPE": SL_DTYPES[dst]})
    assert_same(out, cast_reference(x, "float32", dst), rng.seed, "cast bfloat16 -> " + dst,
                {"x": x})


# ---- reductions ------------------------------------------------------------------------

SUM_DTYPE = {"bool": "int32", "int8": "int32", "uint8": "int32"}


def reduce_inputs(rng, dtype, programs, block):
    size = programs * block
    if dtype == "bool":
        return random_array(rng, np.bool_, size)
    if dtype in INT_DTYPES:
        return int_inputs(rng, dtype, size)
    # quarter integers in [-2, 2]: every partial sum is exact in any order,
    # even in float16
    return (rng.integers(-8, 9, size) / 4).astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_max_min(rng, dtype):
    programs, block = 5, 64
    x = reduce_inputs(rng, dtype, programs, block)
    sum_dtype = SUM_DTYPE.get(dtype, dtype)
    outs = {"sum_ptr": np.zeros(programs, np_dtype(sum_dtype)),
            "max_ptr": np.zeros(programs, np_dtype(dtype)),
            "min_ptr": np.zeros(programs, np_dtype(dtype))}
    op_reduce.launch(arguments=dict(outs, x_ptr=x), constexprs={"BLOCK": block},
                     grid=(programs,))
    rows = x.reshape(programs, block)
    if dtype in FLOAT_DTYPES:
        expected_sum = rows.astype(np.float64).sum(axis=1).astype(dtype)
    else:
        expected_sum = wrap_array([sum(int(v) for v in row) for row in rows], sum_dtype)
    assert_same(outs["sum_ptr"], expected_sum, rng.seed, "sl.sum on " + dtype)
    assert_same(outs["max_ptr"], rows.max(axis=1), rng.seed, "sl.max on " + dtype)
    assert_same(outs["min_ptr"], rows.min(axis=1), rng.seed, "sl.min on " + dtype)


def test_sum_of_random_float32_within_the_rounding_bound(rng):
    programs, block = 4, 1024
    x = rng.standard_normal(programs * block).astype(np.float32)
    outs = {k: np.zeros(programs, np.float32) for k in ("sum_ptr", "max_ptr", "min_ptr")}
    op_reduce.launch(arguments=dict(outs, x_ptr=x), constexprs={"BLOCK": block},
                     grid=(programs,))
    rows = x.reshape(programs, block).astype(np.float64)
    exact = rows.sum(axis=1)
    bound = (block - 1) * np.finfo(np.float32).eps * np.abs(rows).sum(axis=1)
    error = np.abs(outs["sum_ptr"].astype(np.float64) - exact)
    assert (error <= bound).all(), "sum error %s over bound %s (seed %d)" % (error, bound,
                                                                              rng.seed)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_prod(rng, dtype):
    programs, block = 4, 32
    if dtype in INT_DTYPES:
        x = random_array(rng, dtype, programs * block, -5, 5)
    else:  # powers of two and signs: exact products
        x = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], programs * block).astype(dtype)
    out = np.zeros(programs, dtype)
    op_prod.launch(arguments={"x_ptr": x, "out_ptr": out}, constexprs={"BLOCK": block},
                   grid=(programs,))
    rows = x.reshape(programs, block)
    if dtype in INT_DTYPES:
        expected = wrap_array([math.prod(int(v) for v in row) for row in rows], dtype)
    else:
        expected = np.prod(rows.astype(np.float64), axis=1).astype(dtype)
    assert_same(out, expected, rng.seed, "sl.prod on " + dtype)


# ---- tile constructors, literals, scalars, pointers ------------------------------------------

@pytest.mark.parametrize("dtype, value", [
    ("bool", True), ("int8", -3), ("uint8", 200), ("int32", -123456), ("int64", 1 << 40),
    ("float16", -2.5), ("float32", 0.1), ("float64", 1e-300)])
@pytest.mark.parametrize("form", [0, 1, 2])
def test_full(dtype, value, form):
    out = np.zeros(BLOCK, np_dtype(dtype))
    op_full.launch(arguments={"out_ptr": out},
                   constexprs={"VALUE": value, "DTYPE": SL_DTYPES[dtype], "FORM": form,
                               "BLOCK": BLOCK}, grid=(1,))
    assert_same(out, np.full(BLOCK, value, np_dtype(dtype)), None,
                "sl.full(%s, %r) form %d" % (dtype, value, form))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros(dtype):
    out = np.ones(3 * BLOCK, np_dtype(dtype))
    op_zeros.launch(arguments={"out_ptr": out},
                    constexprs={"DTYPE": SL_DTYPES[dtype], "BLOCK": BLOCK}, grid=(1,))
    assert_same(out, np.zeros(3 * BLOCK, np_dtype(dtype)), None, "sl.zeros " + dtype)


def test_scalar_parameters_int_float_bool_and_int64(rng):
    x = rng.standard_normal(N).astype(np.float32)
    for flag in (True, False):
        out = np.zeros(N + 1, np.float32)
        op_scalar_params.launch(
            arguments={"x_ptr": x, "out_ptr": out, "scale": 1.5, "shift": -3, "flag": flag,
                       "big": 1 << 40, "n": N},
            constexprs={"BLOCK": BLOCK}, grid=(cdiv(N, BLOCK),))
        y = x * np.float32(1.5) + np.float32(-3)
        assert_same(out[:N], y if flag else -y, rng.seed, "scalar parameters flag=%s" % flag)
        assert out[N] == np.float32((1 << 40) - 1)


@pytest.mark.parametrize("other", [-1.5, 0.0, 7])
def test_load_other_fills_masked_lanes(rng, other):
    x = rng.standard_normal(BLOCK).astype(np.float32)
    n = 37
    out = np.zeros(BLOCK, np.float32)
    op_load_other.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n},
                         constexprs={"OTHER": other, "BLOCK": BLOCK}, grid=(1,))
    expected = np.concatenate([x[:n], np.full(BLOCK - n, other, np.float32)])
    assert_same(out, expected, rng.seed, "load other=%r" % other)


@pytest.mark.parametrize("xt, yt, result", [
    # Triton's integer promotion: mixed signedness gives the unsigned type
    # when it is at least as wide, else the signed one
    ("int8", "uint8", "uint8"), ("int32", "uint32", "uint32"), ("uint8", "int32", "int32"),
    ("uint16", "int16", "uint16"), ("int64", "uint32", "int64"), ("uint64", "int64", "uint64"),
    ("uint16", "uint32", "uint32"), ("bool", "uint16", "uint16"), ("uint32", "float32", "float32"),
    ("uint64", "float16", "float16"), ("int16", "int8", "int16"),
    ("int32", "int64", "int64"), ("bool", "int32", "int32"),
    ("int8", "int8", "int8"), ("float32", "int64", "float32"), ("float16", "float64", "float64"),
    ("uint8", "float16", "float16"), ("bool", "float32", "float32"),
    ("int64", "float64", "float64"), ("int32", "float16", "float16")])
def test_promotion_of_mixed_operands(rng, xt, yt, result):
    x = random_array(rng, np_dtype(xt), N) if xt == "bool" else \
        random_array(rng, xt, N, 0 if xt.startswith("uint") else -50, 50)
    y = random_array(rng, np_dtype(yt), N) if yt == "bool" else \
        random_array(rng, yt, N, 0 if yt.startswith("uint") else -50, 50)
    if np.dtype(result).kind in "iu":  # integers wrap into the result type, as NumPy's astype
        expected = (x.astype(np.int64) + y.astype(np.int64)).astype(result)
    else:
        expected = (x.astype(np.float64) + y.astype(np.float64)).astype(result)
    assert_same(binary(op_promote_add, x, y, result), expected, rng.seed,
                "%s + %s -> %s" % (xt, yt, result))


@pytest.mark.parametrize("dtype, result", [("int32", "float32"), ("float16", "float16"),
                                           ("float64", "float64"), ("int8", "float32")])
def test_literals_take_the_other_operands_type(rng, dtype, result):
    x = random_array(rng, dtype, N, -20, 20)
    xr = x.astype(result)
    if dtype in INT_DTYPES:
        # x * 3 - 7 stays integer; x / 2 is float32; the float literal keeps float32
        left = (x.astype(np.int64) * 3 - 7).astype(np.float32)
        expected = (left + xr / np.float32(2)) + np.float32(0.5)
    else:
        r = np.dtype(result).type
        expected = ((xr * r(3) - r(7)) + xr / r(2)) + r(0.5)
    out = np.zeros(N, result)
    launch_elementwise(op_literals, {"x_ptr": x, "out_ptr": out}, N)
    assert_same(out, expected, rng.seed, "literal promotion on " + dtype, {"x": x})


def test_pointer_arithmetic_scalar_tile_and_int64(rng):
    n = 50
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(BLOCK, np.float32)
    op_pointer_arith.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n},
                            constexprs={"BLOCK": BLOCK}, grid=(1,))
    middle = np.zeros(BLOCK, np.float32)
    middle[: n - 1] = x[1:]
    assert_same(out, middle + x[0] + x[n - 1], rng.seed, "pointer arithmetic")


# ---- control flow ----------------------------------------------------------------------

def test_static_range_unrolls_forward_and_backward(rng):
    rows, block = 5, 32
    x = rng.standard_normal(rows * block).astype(np.float32)
    out = np.zeros(2 * block, np.float32)
    op_static_range.launch(arguments={"x_ptr": x, "out_ptr": out},
                           constexprs={"ROWS": rows, "BLOCK": block}, grid=(1,))
    acc = np.zeros(block, np.float32)
    for r in range(rows):
        acc = acc + x[r * block:(r + 1) * block] * np.float32(r + 1)
    back = 0
    for r in range(rows - 1, -1, -2):
        back = back * 3 + r
    assert_same(out[:block], acc, rng.seed, "static_range accumulation")
    assert_same(out[block:], np.full(block, back, np.float32), rng.seed, "static_range(4, -1, -2)")


@pytest.mark.parametrize("rows", [0, 1, 2, 7])
def test_runtime_for_loops_carry_values(rng, rows):
    block = 32
    x = rng.integers(-1000, 1000, max(rows, 1) * block, dtype=np.int32)
    out = np.zeros(4 * block + 1, np.int32)
    op_runtime_loop.launch(arguments={"x_ptr": x, "out_ptr": out, "rows": rows},
                           constexprs={"BLOCK": block}, grid=(1,))
    chunks = [x[r * block:(r + 1) * block].astype(np.int64) for r in range(rows)]
    acc = sum(chunks, np.zeros(block, np.int64))
    weighted = np.zeros(block, np.int64)
    for c in chunks:
        weighted = weighted * 3 + c
    back = np.zeros(block, np.int64)
    for c in reversed(chunks):
        back = back * 5 + c
    evens = sum(chunks[::2], np.zeros(block, np.int64))
    expected = np.concatenate([wrap_array(v, "int32") for v in (acc, weighted, back, evens)]
                              + [np.array([rows], np.int32)])
    assert_same(out, expected, rng.seed, "runtime for loops, rows=%d" % rows)


I64 = 2 ** 63


@pytest.mark.parametrize("lo, hi, step", [
    (0, 10, 3), (10, 0, -3), (5, 5, 1), (5, 4, 1), (4, 5, -1), (-7, 7, 7), (7, -8, -5),
    (0, 1, 1000), (-I64, I64 - 1, 2 ** 62), (I64 - 1, -I64, -(2 ** 62)),
    (-I64, I64 - 1, I64 - 1), (I64 - 1, -I64, -I64), (I64 - 3, I64 - 1, 1),
    (-2 ** 31, 2 ** 31 - 1, 2 ** 30), (2 ** 31 - 1, -2 ** 31, -2 ** 30), (2 ** 31 - 3, 2 ** 31 - 1, 1),
])
def test_runtime_step_loops_run_pythons_iterations(lo, hi, step):
    """range(lo, hi, step) with every operand a run-time integer (i64, and
    i32 where all three fit): the trips Python runs, up to the ends of the
    range (no overflow on the way)."""
    small = all(-2 ** 31 <= v < 2 ** 31 for v in (lo, hi, step))
    kind = np.int32 if small else np.int64
    out = np.zeros(3, kind)
    op_runtime_step.launch(arguments={"out_ptr": out, "lo": kind(lo), "hi": kind(hi),
                                      "step": kind(step)}, grid=(1,))
    trips = list(range(lo, hi, step))
    expected = [len(trips), trips[0] if trips else 0, trips[-1] if trips else 0]
    assert out.tolist() == expected


@pytest.mark.parametrize("rows, cols", [(0, 5), (3, 0), (4, 6), (13, 1)])
def test_nested_runtime_loops(rows, cols):
    out = np.zeros(2, np.int32)
    op_nested_loop.launch(arguments={"out_ptr": out, "rows": rows, "cols": cols}, grid=(1,))
    total = sum(sum(i * j + 1 for j in range(cols)) for i in range(rows))
    product = 1
    for _ in range(rows):
        product = product * 3 % 1000003
    assert out.tolist() == [total, product]


def test_runtime_loop_on_floats_rounds_each_step(rng):
    rows, block = 6, 64
    x = rng.standard_normal(rows * block).astype(np.float32)
    out = np.zeros(block, np.float32)
    op_float_loop.launch(arguments={"x_ptr": x, "out_ptr": out, "rows": rows},
                         constexprs={"BLOCK": block}, grid=(1,))
    acc = np.zeros(block, np.float32)
    for r in range(rows):
        acc = acc * np.float32(0.5) + x[r * block:(r + 1) * block]
    assert_same(out, acc, rng.seed, "float loop")


def test_if_elif_else_and_conditional_expression(rng):
    n = 300
    x = rng.integers(-20, 20, n, dtype=np.int32)
    x[:4] = [0, 3, 4, 10]
    out = np.zeros(n, np.int32)
    ifexp = np.zeros(n, np.int32)
    op_branches.launch(arguments={"x_ptr": x, "out_ptr": out, "ifexp_ptr": ifexp, "n": n},
                       grid=(n,))
    expected = np.where(x < 0, x * 2, np.where(x == 0, x + 100, np.where(x < 10, x - 100, 7)))
    assert_same(out, expected.astype(np.int32), rng.seed, "if/elif/else", {"x": x})
    assert_same(ifexp, np.where(x > 3, x, -x).astype(np.int32), rng.seed, "a if c else b",
                {"x": x})


def test_if_on_a_reduced_value_chooses_tiles(rng):
    programs, block = 8, 16
    # rows centred on +-3, so the sign of each sum is far from rounding
    signs = rng.choice([-3.0, 3.0], programs)
    rows = (rng.standard_normal((programs, block)) + signs[:, None]).astype(np.float32)
    x = rows.reshape(-1).copy()
    out = np.zeros_like(x)
    op_branch_tiles.launch(arguments={"x_ptr": x, "out_ptr": out}, constexprs={"BLOCK": block},
                           grid=(programs,))
    expected = np.where(signs[:, None] > 0, rows * np.float32(2.0), -rows)
    assert_same(out, expected.reshape(-1), rng.seed, "if on sl.sum(x) > 0")


def test_constexpr_if_compiles_only_the_branch_taken(rng):
    x = rng.integers(-100, 100, BLOCK, dtype=np.int32)
    out = np.zeros(BLOCK, np.int32)
    op_constexpr_branch.launch(arguments={"x_ptr": x, "out_ptr": out},
                               constexprs={"FLAG": True, "BLOCK": BLOCK}, grid=(1,))
    assert_same(out, x + 1, rng.seed, "constexpr branch")
    with pytest.raises(sw.CompileError) as info:
        op_constexpr_branch.launch(arguments={"x_ptr": x, "out_ptr": out},
                                   constexprs={"FLAG": False, "BLOCK": BLOCK}, grid=(1,))
    assert "cannot store pointers" in info.value.message


@pytest.mark.parametrize("grid", [(3,), (4, 5), (2, 3, 4), (1, 1, 7)])
def test_program_id_and_num_programs_on_1d_2d_3d_grids(grid):
    full = tuple(grid) + (1,) * (3 - len(grid))
    total = full[0] * full[1] * full[2]
    out = np.full(total * 6, -1, np.int32)
    op_grid_ids.launch(arguments={"out_ptr": out}, grid=grid)
    expected = []
    for k in range(full[2]):
        for j in range(full[1]):
            for i in range(full[0]):
                expected += [i, j, k, full[0], full[1], full[2]]
    assert out.tolist() == expected


def test_two_dimensional_grid_matrix(rng):
    rows, cols, block = 7, 100, 32
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    op_matrix_add_2d.launch(arguments={"x_ptr": x, "y_ptr": y, "out_ptr": out, "rows": rows,
                                       "cols": cols},
                            constexprs={"BLOCK": block}, grid=(cdiv(cols, block), rows))
    assert_same(out, x * y + x, rng.seed, "2-D grid x * y + x")
