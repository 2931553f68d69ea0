"""Differential test of the SIMT level: every kernel runs on the semantic
executor (the oracle) and on the CPU SIMT executor (the per-thread program
lower-simt produces, which is what the GPU runs), with fresh random inputs
each run, over tile sizes that give every thread layout the lowering picks
(a replicated tile of 16 over one warp, one warp, several warps with shared
memory, many slots per thread).

What must agree:
- everything except float sums and products: bit for bit, including the
  elements a kernel must not touch (output buffers start as random bytes);
- float sums and products (sl.sum, sl.prod, and values computed from them):
  the oracle adds in double and rounds once, the SIMT program adds each
  thread's slots in double, rounds to the accumulator (f32 for f16/bf16),
  then combines log2(T) + W partials in the accumulator. So
  |simt - oracle| <= (log2(N) + 3) * eps(acc) * sum(|x|) + 2 * eps(out) * |oracle|
  for sums (N the tile length: each partial is rounded once and each tree
  level once, each time by at most eps times a part of sum(|x|); both sides
  then round to the output type on their own, hence 2 * eps(out)). For
  products the relative errors of all P <= min(N, 128) rounded partials
  compound, so |simt - oracle| <= ((P + log2(N) + 3) * eps(acc) + 2 * eps(out)) * |oracle|
  (values near 1). f64 sums and products: N * eps, since the oracle rounds
  each f64 step. NaN and infinities must appear in the same places.
"""

import math
import time

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES, random_array
from test_tile_ops import (op_branch_tiles, op_branches, op_cast_via, op_constexpr_branch,
                           op_float_loop, op_full, op_grid_ids, op_literals, op_load_other,
                           op_math_bf16, op_arith_bf16, op_matrix_add_2d, op_nested_loop,
                           op_pointer_arith, op_promote_add, op_runtime_loop, op_scalar_params,
                           op_static_range, op_zeros)

# 16: a replicated tile (16 elements over 32 threads); 64: one warp, 2 slots;
# 256: 2 warps through shared memory; 1024: 4 warps x 8 slots; 4096: 32 slots.
BLOCKS = [16, 64, 256, 1024, 4096]
EXECUTORS = ("semantic", "simt")


def cdiv(a, b):
    return (a + b - 1) // b


# ---- running and comparing --------------------------------------------------------

def sentinel(rng, dtype, size):
    """An output buffer of random bytes (0/1 for bool), so that elements a
    kernel must not write are compared too."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size).astype(np.bool_)
    return rng.integers(0, 256, size * dtype.itemsize, dtype=np.uint8).view(dtype).copy()


def run_both(kernel, inputs, outputs, constexprs=None, grid=(1,)):
    """Launches kernel on both executors, each on its own copy of outputs;
    returns ({name: array} of the oracle, of the SIMT executor)."""
    results = []
    for executor in EXECUTORS:
        outs = {name: array.copy() for name, array in outputs.items()}
        arguments = dict(inputs)
        arguments.update(outs)
        kernel.launch(arguments=arguments, constexprs=constexprs or {}, grid=grid,
                      executor=executor)
        results.append(outs)
    return results


def describe(kernel, constexprs, seed):
    return "%s %s (seed %s)" % (kernel.__name__, constexprs or {}, seed)


def assert_bits(oracle, simt, what, names=None):
    for name in names or oracle:
        a, b = oracle[name], simt[name]
        ab = a.view(np.uint8).reshape(a.size, -1)
        bb = b.view(np.uint8).reshape(b.size, -1)
        bad = np.flatnonzero((ab != bb).any(axis=1))
        if bad.size:
            lines = ["%s: output %s differs in %d of %d elements" % (what, name, bad.size, a.size)]
            for i in bad[:8]:
                lines.append("  [%d] simt %r, semantic %r" % (i, b.flat[i], a.flat[i]))
            raise AssertionError("\n".join(lines))


def eps(dtype):
    return {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24,
            "float64": 2.0 ** -53}[dtype]


def assert_close(oracle, simt, bound, what):
    """|simt - oracle| <= bound elementwise; NaN and infinities identical."""
    a, b = oracle.astype(np.float64), simt.astype(np.float64)
    special = ~np.isfinite(a) | ~np.isfinite(b)
    same_special = (np.isnan(a) == np.isnan(b)) & ((a == b) | np.isnan(a) | ~special)
    bad = np.flatnonzero(~same_special | (~special & ~(np.abs(a - b) <= bound)))
    if bad.size:
        lines = ["%s: %d of %d elements differ beyond the bound" % (what, bad.size, a.size)]
        bound = np.broadcast_to(bound, a.shape)
        for i in bad[:8]:
            lines.append("  [%d] simt %r, semantic %r, bound %g" % (i, b.flat[i], a.flat[i],
                                                                    bound.flat[i]))
        raise AssertionError("\n".join(lines))


def sum_bound(x_rows, dtype, out, acc=None):
    """The float-sum bound of the module docstring for each row of x_rows."""
    n = x_rows.shape[1]
    magnitude = np.abs(x_rows.astype(np.float64)).sum(axis=1)
    acc = acc or ("float32" if dtype in ("float16", "bfloat16") else dtype)
    steps = n if acc == "float64" else math.log2(max(n, 1)) + 3
    return steps * eps(acc) * magnitude + 2 * eps(dtype) * np.abs(out.astype(np.float64))


def inputs_for(rng, dtype, size, divisor=False):
    """Random values with the edge cases of each dtype mixed in."""
    x = random_array(rng, dtype, size)
    if dtype in FLOAT_DTYPES and size > 16:
        x[3::29] = np.nan
        x[5], x[6], x[7], x[8] = np.inf, -np.inf, 0.0, -0.0
    if divisor and dtype in INT_DTYPES:
        x[::11] = 0
    return x


# ---- elementwise ops on every layout --------------------------------------------------

@sw.jit
def k_arith(x_ptr, y_ptr, add_ptr, sub_ptr, mul_ptr, fdiv_ptr, mod_ptr, min_ptr, max_ptr,
            where_ptr, lt_ptr, ne_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask, other=1)
    sl.store(add_ptr + offs, x + y, mask=mask)
    sl.store(sub_ptr + offs, x - y, mask=mask)
    sl.store(mul_ptr + offs, x * y, mask=mask)
    sl.store(fdiv_ptr + offs, x // y, mask=mask)
    sl.store(mod_ptr + offs, x % y, mask=mask)
    sl.store(min_ptr + offs, sl.minimum(x, y), mask=mask)
    sl.store(max_ptr + offs, sl.maximum(x, y), mask=mask)
    sl.store(where_ptr + offs, sl.where(x < y, y, x), mask=mask)
    sl.store(lt_ptr + offs, x <= y, mask=mask)
    sl.store(ne_ptr + offs, x != y, mask=mask)


@sw.jit
def k_truediv(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    sl.store(out_ptr + offs, sl.load(x_ptr + offs, mask=mask) / sl.load(y_ptr + offs, mask=mask),
             mask=mask)


@sw.jit
def k_signed(x_ptr, neg_ptr, abs_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(neg_ptr + offs, -x, mask=mask)
    sl.store(abs_ptr + offs, sl.abs(x), mask=mask)


@sw.jit
def k_bitwise(x_ptr, y_ptr, and_ptr, or_ptr, xor_ptr, shl_ptr, shr_ptr, inv_ptr, n,
              BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + offs, mask=mask)
    sl.store(and_ptr + offs, x & y, mask=mask)
    sl.store(or_ptr + offs, x | y, mask=mask)
    sl.store(xor_ptr + offs, x ^ y, mask=mask)
    sl.store(shl_ptr + offs, x << y, mask=mask)
    sl.store(shr_ptr + offs, x >> y, mask=mask)
    sl.store(inv_ptr + offs, ~x, mask=mask)


@sw.jit
def k_logic(a_ptr, b_ptr, and_ptr, or_ptr, not_ptr, xor_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    a = sl.load(a_ptr + offs, mask=mask)
    b = sl.load(b_ptr + offs, mask=mask)
    sl.store(and_ptr + offs, a and b, mask=mask)
    sl.store(or_ptr + offs, a or b, mask=mask)
    sl.store(not_ptr + offs, not a, mask=mask)
    sl.store(xor_ptr + offs, a ^ b, mask=mask)


@sw.jit
def k_math(x_ptr, exp_ptr, exp2_ptr, log_ptr, log2_ptr, sqrt_ptr, rsqrt_ptr, floor_ptr, ceil_ptr,
           sin_ptr, cos_ptr, sigmoid_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    sl.store(exp_ptr + offs, sl.exp(x), mask=mask)
    sl.store(exp2_ptr + offs, sl.exp2(x), mask=mask)
    sl.store(log_ptr + offs, sl.log(x), mask=mask)
    sl.store(log2_ptr + offs, sl.log2(x), mask=mask)
    sl.store(sqrt_ptr + offs, sl.sqrt(x), mask=mask)
    sl.store(rsqrt_ptr + offs, sl.rsqrt(x), mask=mask)
    sl.store(floor_ptr + offs, sl.floor(x), mask=mask)
    sl.store(ceil_ptr + offs, sl.ceil(x), mask=mask)
    sl.store(sin_ptr + offs, sl.sin(x), mask=mask)
    sl.store(cos_ptr + offs, sl.cos(x), mask=mask)
    sl.store(sigmoid_ptr + offs, sl.sigmoid(x), mask=mask)


@sw.jit
def k_cast(x_ptr, out_ptr, n, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    sl.store(out_ptr + offs, sl.cast(sl.load(x_ptr + offs, mask=mask), DTYPE), mask=mask)


def elementwise(rng, kernel, ins, outs, block, constexprs=None, n=None):
    """Runs an elementwise kernel over n elements (a random count with a
    masked tail unless given) and compares every output bit for bit."""
    size = next(iter(ins.values())).size
    n = size if n is None else n
    outputs = {name: sentinel(rng, dtype, size) for name, dtype in outs.items()}
    cx = {"BLOCK": block}
    cx.update(constexprs or {})
    oracle, simt = run_both(kernel, dict(ins, n=n), outputs, cx, (cdiv(n, block),))
    assert_bits(oracle, simt, describe(kernel, cx, rng.seed))
    return oracle


def random_size(rng, block):
    return int(rng.integers(1, 3 * block + 1))


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_arith(rng, dtype, block):
    size = random_size(rng, block)
    x, y = inputs_for(rng, dtype, size), inputs_for(rng, dtype, size, divisor=True)[::-1].copy()
    outs = {name: dtype for name in ("add_ptr", "sub_ptr", "mul_ptr", "fdiv_ptr", "mod_ptr",
                                     "min_ptr", "max_ptr", "where_ptr")}
    outs.update(lt_ptr="bool", ne_ptr="bool")
    elementwise(rng, k_arith, {"x_ptr": x, "y_ptr": y}, outs, block)
    out_dtype = dtype if dtype in FLOAT_DTYPES else "float32"
    elementwise(rng, k_truediv, {"x_ptr": x, "y_ptr": y}, {"out_ptr": out_dtype}, block)
    if dtype != "uint8":
        elementwise(rng, k_signed, {"x_ptr": x}, {"neg_ptr": dtype, "abs_ptr": dtype}, block)


@sw.jit
def k_window(x_ptr, a_ptr, b_ptr, c_ptr, d_ptr, lo, hi, flag, BLOCK: sl.constexpr):
    # masks that decide a vector group on one bit (lower-simt's vec_mask):
    # offs < hi (the last slot), offs >= lo (the first), hi > offs, and a
    # scalar condition and-ed in (first: lower-simt puts the compare first
    # for the emitter); the SIMT executor checks each promise
    offs = sl.arange(0, BLOCK)
    below = offs < hi
    x = sl.load(x_ptr + offs, mask=below, other=-1)
    y = sl.load(x_ptr + offs, mask=offs >= lo, other=-2)
    z = sl.load(x_ptr + offs, mask=hi > offs, other=-3)
    sl.store(a_ptr + offs, x, mask=(flag != 0) & below)
    sl.store(b_ptr + offs, y, mask=lo <= offs)
    sl.store(c_ptr + offs, z, mask=below)
    sl.store(d_ptr + offs, x + y, mask=(offs >= lo) & below)


@pytest.mark.parametrize("block", BLOCKS)
def test_window_masks(rng, block):
    # bounds inside a group of 4 slots, on its edges, and past the tile
    for lo, hi in [(0, block), (1, block - 1), (3, 5), (4, 8), (block // 2 + 2, block + 3),
                   (int(rng.integers(0, block)), int(rng.integers(0, block + 1))), (block, 0)]:
        for flag in (0, 1):
            x = rng.integers(-100, 100, block).astype(np.int32)
            outs = {k: sentinel(rng, np.int32, block) for k in ("a_ptr", "b_ptr", "c_ptr", "d_ptr")}
            oracle, simt = run_both(k_window, dict(x_ptr=x, lo=lo, hi=hi, flag=flag), outs,
                                    {"BLOCK": block})
            assert_bits(oracle, simt, describe(k_window, {"BLOCK": block, "lo": lo, "hi": hi,
                                                          "flag": flag}, rng.seed))
            offs = np.arange(block)
            expected = np.where(offs < hi, x, outs["c_ptr"])
            assert np.array_equal(simt["c_ptr"], expected), (lo, hi)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bitwise(rng, dtype, block):
    size = random_size(rng, block)
    x = inputs_for(rng, dtype, size)
    bits = np.iinfo(dtype).bits
    y = rng.integers(-2 if dtype != "uint8" else 0, bits + 2, size).astype(dtype)
    outs = {name: dtype for name in ("and_ptr", "or_ptr", "xor_ptr", "shl_ptr", "shr_ptr",
                                     "inv_ptr")}
    elementwise(rng, k_bitwise, {"x_ptr": x, "y_ptr": y}, outs, block)


@pytest.mark.parametrize("block", BLOCKS)
def test_logic(rng, block):
    size = random_size(rng, block)
    a, b = random_array(rng, "bool", size), random_array(rng, "bool", size)
    outs = {name: "bool" for name in ("and_ptr", "or_ptr", "not_ptr", "xor_ptr")}
    elementwise(rng, k_logic, {"a_ptr": a, "b_ptr": b}, outs, block)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_math(rng, dtype, block):
    size = random_size(rng, block)
    x = inputs_for(rng, dtype, size)
    x[1::3] = np.abs(x[1::3])  # logs and roots of positive values too
    outs = {name: dtype for name in ("exp_ptr", "exp2_ptr", "log_ptr", "log2_ptr", "sqrt_ptr",
                                     "rsqrt_ptr", "floor_ptr", "ceil_ptr", "sin_ptr", "cos_ptr",
                                     "sigmoid_ptr")}
    elementwise(rng, k_math, {"x_ptr": x}, outs, block)


@pytest.mark.parametrize("block", [16, 256, 4096])
def test_bfloat16(rng, block):
    size = random_size(rng, block)
    x = inputs_for(rng, "float32", size)
    y = inputs_for(rng, "float32", size)[::-1].copy()
    elementwise(rng, op_arith_bf16, {"x_ptr": x, "y_ptr": y},
                {"add_ptr": "float32", "mul_ptr": "float32", "div_ptr": "float32"}, block)
    x[::2] = np.abs(x[::2])
    elementwise(rng, op_math_bf16, {"x_ptr": x},
                {name: "float32" for name in ("exp_ptr", "log_ptr", "sqrt_ptr", "sin_ptr",
                                              "sigmoid_ptr", "floor_ptr")}, block)


@pytest.mark.parametrize("src", ALL_DTYPES)
def test_casts(rng, src):
    block = int(rng.choice(BLOCKS))
    size = random_size(rng, block)
    x = inputs_for(rng, src, size)
    for dst in ALL_DTYPES:
        elementwise(rng, k_cast, {"x_ptr": x}, {"out_ptr": dst}, block,
                    {"DTYPE": getattr(sl, "int1" if dst == "bool" else dst)})
    if src in FLOAT_DTYPES:
        elementwise(rng, op_cast_via, {"x_ptr": x}, {"out_ptr": "float32"}, block,
                    {"MID": sl.bfloat16, "DTYPE": sl.float32})


# ---- reductions: warp shuffles, shared memory, replicated tiles ----------------------

@sw.jit
def k_reduce(x_ptr, sum_ptr, max_ptr, min_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offs = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    first = sl.load(x_ptr + pid * BLOCK)
    sl.store(sum_ptr + pid, sl.sum(x))
    sl.store(max_ptr + pid, sl.max(sl.where(mask, x, first)))
    sl.store(min_ptr + pid, sl.min(sl.where(mask, x, first)))


@sw.jit
def k_prod(x_ptr, out_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    sl.store(out_ptr + pid, sl.prod(sl.load(x_ptr + pid * BLOCK + sl.arange(0, BLOCK))))


# Reductions feeding later stages: the result is uniform over the threads.
@sw.jit
def k_softmax(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    row = sl.program_id(0)
    offs = sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + row * n + offs, mask=mask, other=-1.0e30)
    e = sl.exp(x - sl.max(x))
    sl.store(out_ptr + row * n + offs, e / sl.sum(e), mask=mask)


@sw.jit
def k_center(x_ptr, out_ptr, stats_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offs = pid * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    total = sl.sum(x)
    spread = sl.max(x) - sl.min(x)
    if total > 0:
        y = x * 2 - spread
    else:
        y = -x + spread
    sl.store(out_ptr + offs, y)
    sl.store(stats_ptr + pid * 2, total)
    sl.store(stats_ptr + pid * 2 + 1, sl.sum(y))


SUM_DTYPE = {"bool": "int32", "int8": "int32", "uint8": "int32"}


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_reduce(rng, dtype, block):
    programs = int(rng.integers(1, 5))
    n = int(rng.integers((programs - 1) * block + 1, programs * block + 1))
    x = random_array(rng, dtype, programs * block)
    if dtype in FLOAT_DTYPES and rng.integers(0, 2):
        x[int(rng.integers(0, n))] = np.nan
    outs = {"sum_ptr": sentinel(rng, SUM_DTYPE.get(dtype, dtype), programs),
            "max_ptr": sentinel(rng, dtype, programs), "min_ptr": sentinel(rng, dtype, programs)}
    cx = {"BLOCK": block}
    oracle, simt = run_both(k_reduce, {"x_ptr": x, "n": n}, outs, cx, (programs,))
    what = describe(k_reduce, cx, rng.seed)
    assert_bits(oracle, simt, what, ["max_ptr", "min_ptr"])
    if dtype in FLOAT_DTYPES:
        rows = np.where(np.arange(programs * block) < n, x, 0).reshape(programs, block)
        assert_close(oracle["sum_ptr"], simt["sum_ptr"],
                     sum_bound(rows, dtype, oracle["sum_ptr"]), what + " sum")
    else:
        assert_bits(oracle, simt, what, ["sum_ptr"])


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_prod(rng, dtype, block):
    programs = int(rng.integers(1, 4))
    if dtype in FLOAT_DTYPES:
        x = rng.uniform(0.97, 1.03, programs * block).astype(dtype)
    else:
        x = random_array(rng, dtype, programs * block)
    cx = {"BLOCK": block}
    out = sentinel(rng, SUM_DTYPE.get(dtype, dtype), programs)
    oracle, simt = run_both(k_prod, {"x_ptr": x}, {"out_ptr": out},
                            cx, (programs,))
    what = describe(k_prod, cx, rng.seed)
    if dtype in FLOAT_DTYPES:
        acc = "float32" if dtype == "float16" else dtype
        steps = min(block, 128) + math.log2(block) + 3 if dtype != "float64" else block
        bound = (steps * eps(acc) + 2 * eps(dtype)) * np.abs(oracle["out_ptr"].astype(np.float64))
        assert_close(oracle["out_ptr"], simt["out_ptr"], bound, what)
    else:
        assert_bits(oracle, simt, what)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax(rng, dtype, block):
    rows = int(rng.integers(1, 5))
    n = int(rng.integers(1, block + 1))
    x = random_array(rng, dtype, rows * n)
    cx = {"BLOCK": block}
    oracle, simt = run_both(k_softmax, {"x_ptr": x, "n": n},
                            {"out_ptr": sentinel(rng, dtype, rows * n)}, cx, (rows,))
    # out = e / s: s differs within the sum bound (sum(|e|) = s), so the
    # quotient within that relative bound (plus a rounding of the quotient).
    a = oracle["out_ptr"]
    steps = math.log2(block) + 3 if dtype == "float32" else block
    bound = (steps * eps(dtype) + 2 * eps(dtype)) * np.abs(a.astype(np.float64))
    assert_close(a, simt["out_ptr"], bound, describe(k_softmax, cx, rng.seed))


@pytest.mark.parametrize("block", BLOCKS)
def test_branch_on_reductions(rng, block):
    # int32: exact, so both executors take the same branch in every program.
    programs = 6
    x = rng.integers(-1000, 1000, programs * block).astype(np.int32)
    x[:block] += 50  # at least one program of each sign
    x[block:2 * block] -= 50
    outs = {"out_ptr": sentinel(rng, "int32", programs * block),
            "stats_ptr": sentinel(rng, "int32", 2 * programs)}
    cx = {"BLOCK": block}
    oracle, simt = run_both(k_center, {"x_ptr": x}, outs, cx, (programs,))
    assert_bits(oracle, simt, describe(k_center, cx, rng.seed))


# Tiles of two lengths in one kernel: T follows the long one, so the short
# one is replicated over the threads (or spread one element per thread).
@sw.jit
def k_mixed(x_ptr, big_ptr, small_ptr, SMALL: sl.constexpr, BIG: sl.constexpr):
    pid = sl.program_id(0)
    big = sl.load(x_ptr + pid * BIG + sl.arange(0, BIG))
    small = sl.load(x_ptr + pid * BIG + sl.arange(0, SMALL))
    total = sl.sum(small)
    sl.store(big_ptr + pid * BIG + sl.arange(0, BIG), big * 3 + total)
    sl.store(small_ptr + pid * SMALL + sl.arange(0, SMALL), small - sl.max(big) + sl.min(small))


@pytest.mark.parametrize("big", [256, 1024, 4096])
@pytest.mark.parametrize("small", [1, 2, 16, 64, 128])
def test_mixed_tile_lengths(rng, small, big):
    programs = 3
    x = rng.integers(-(1 << 20), 1 << 20, programs * big).astype(np.int32)
    outs = {"big_ptr": sentinel(rng, "int32", programs * big),
            "small_ptr": sentinel(rng, "int32", programs * small)}
    cx = {"SMALL": small, "BIG": big}
    oracle, simt = run_both(k_mixed, {"x_ptr": x}, outs, cx, (programs,))
    assert_bits(oracle, simt, describe(k_mixed, cx, rng.seed))


# ---- control flow, grids, parameters, pointers (test_tile_ops kernels) ---------------

@pytest.mark.parametrize("block", [16, 128, 1024])
def test_loops(rng, block):
    rows = int(rng.integers(1, 6))
    xi = rng.integers(-100, 100, rows * block).astype(np.int32)
    o, s = run_both(op_runtime_loop, {"x_ptr": xi, "rows": rows},
                    {"out_ptr": sentinel(rng, "int32", 4 * block + 1)}, {"BLOCK": block})
    assert_bits(o, s, describe(op_runtime_loop, {"BLOCK": block}, rng.seed))
    xf = random_array(rng, "float32", rows * block)
    o, s = run_both(op_float_loop, {"x_ptr": xf, "rows": rows},
                    {"out_ptr": sentinel(rng, "float32", block)}, {"BLOCK": block})
    assert_bits(o, s, describe(op_float_loop, {"BLOCK": block}, rng.seed))
    cx = {"ROWS": 3, "BLOCK": block}
    o, s = run_both(op_static_range, {"x_ptr": random_array(rng, "float32", 3 * block)},
                    {"out_ptr": sentinel(rng, "float32", 2 * block)}, cx)
    assert_bits(o, s, describe(op_static_range, cx, rng.seed))
    o, s = run_both(op_nested_loop, {"rows": int(rng.integers(0, 9)), "cols": int(rng.integers(0, 9))},
                    {"out_ptr": sentinel(rng, "int32", 2)})
    assert_bits(o, s, describe(op_nested_loop, {}, rng.seed))


def test_scalar_branches_and_grids(rng):
    n = 64
    x = rng.integers(-20, 20, n).astype(np.int32)
    x[:4] = [0, 5, -3, 12]
    o, s = run_both(op_branches, {"x_ptr": x, "n": n},
                    {"out_ptr": sentinel(rng, "int32", n), "ifexp_ptr": sentinel(rng, "int32", n)},
                    grid=(n,))
    assert_bits(o, s, describe(op_branches, {}, rng.seed))
    for block in (16, 256):
        cx = {"BLOCK": block}
        o, s = run_both(op_branch_tiles, {"x_ptr": random_array(rng, "float32", 4 * block)},
                        {"out_ptr": sentinel(rng, "float32", 4 * block)}, cx, (4,))
        assert_bits(o, s, describe(op_branch_tiles, cx, rng.seed))
    o, s = run_both(op_grid_ids, {}, {"out_ptr": sentinel(rng, "int32", 6 * 2 * 3 * 4)},
                    grid=(2, 3, 4))
    assert_bits(o, s, describe(op_grid_ids, {}, rng.seed))
    rows, cols, block = 5, 300, 128
    xs = {"x_ptr": random_array(rng, "float32", rows * cols),
          "y_ptr": random_array(rng, "float32", rows * cols), "rows": rows, "cols": cols}
    o, s = run_both(op_matrix_add_2d, xs, {"out_ptr": sentinel(rng, "float32", rows * cols)},
                    {"BLOCK": block}, (cdiv(cols, block), rows))
    assert_bits(o, s, describe(op_matrix_add_2d, {"BLOCK": block}, rng.seed))


@pytest.mark.parametrize("block", [16, 64, 1024])
def test_parameters_pointers_constants(rng, block):
    n = random_size(rng, block)
    x = random_array(rng, "float32", n)
    cx = {"BLOCK": block}
    o, s = run_both(op_scalar_params,
                    {"x_ptr": x, "scale": 1.5, "shift": -3, "flag": bool(rng.integers(0, 2)),
                     "big": 1 << 40, "n": n},
                    {"out_ptr": sentinel(rng, "float32", n + 1)}, cx, (cdiv(n, block),))
    assert_bits(o, s, describe(op_scalar_params, cx, rng.seed))
    o, s = run_both(op_pointer_arith, {"x_ptr": x, "n": n},
                    {"out_ptr": sentinel(rng, "float32", block)}, cx)
    assert_bits(o, s, describe(op_pointer_arith, cx, rng.seed))
    o, s = run_both(op_literals, {"x_ptr": random_array(rng, "int32", n, -1000, 1000), "n": n},
                    {"out_ptr": sentinel(rng, "float32", n)}, cx, (cdiv(n, block),))
    assert_bits(o, s, describe(op_literals, cx, rng.seed))
    o, s = run_both(op_promote_add, {"x_ptr": random_array(rng, "int8", n),
                                     "y_ptr": random_array(rng, "float16", n), "n": n},
                    {"out_ptr": sentinel(rng, "float16", n)}, cx, (cdiv(n, block),))
    assert_bits(o, s, describe(op_promote_add, cx, rng.seed))
    cx = {"OTHER": -2.5, "BLOCK": block}
    o, s = run_both(op_load_other, {"x_ptr": x, "n": min(n, block)},
                    {"out_ptr": sentinel(rng, "float32", block)}, cx)
    assert_bits(o, s, describe(op_load_other, cx, rng.seed))
    for dtype in ("int8", "float16", "int64"):
        cx = {"VALUE": 3, "DTYPE": getattr(sl, dtype), "FORM": int(rng.integers(0, 3)),
              "BLOCK": block}
        o, s = run_both(op_full, {}, {"out_ptr": sentinel(rng, dtype, block)}, cx)
        assert_bits(o, s, describe(op_full, cx, rng.seed))
        cx = {"DTYPE": getattr(sl, dtype), "BLOCK": block}
        o, s = run_both(op_zeros, {}, {"out_ptr": sentinel(rng, dtype, 3 * block)}, cx)
        assert_bits(o, s, describe(op_zeros, cx, rng.seed))
    cx = {"FLAG": True, "BLOCK": block}
    o, s = run_both(op_constexpr_branch, {"x_ptr": random_array(rng, "int32", block)},
                    {"out_ptr": sentinel(rng, "int32", block)}, cx)
    assert_bits(o, s, describe(op_constexpr_branch, cx, rng.seed))


@sw.jit
def k_scalar_copy(x_ptr, out_ptr, sum_ptr, n):
    # scalar loads and stores: every thread loads, thread 0 stores
    pid = sl.program_id(0)
    v = sl.load(x_ptr + pid)
    sl.store(out_ptr + pid, v)
    sl.store(sum_ptr + pid, v + sl.load(x_ptr + (n - 1 - pid), mask=pid < n, other=0))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scalar_memory_keeps_every_bit(rng, dtype):
    n = 40
    x = inputs_for(rng, dtype, n)
    if dtype in ("float32", "float64"):
        bits = np.dtype(dtype).itemsize * 8
        view = x.view(np.uint32 if bits == 32 else np.uint64)
        view[9] |= 1 << (bits - 1)  # -inf
        view[10] = view.dtype.type(0xFFC01234 if bits == 32 else 0xFFF8000000001234)  # -NaN, payload
    sum_dtype = "bool" if dtype == "bool" else dtype
    o, s = run_both(k_scalar_copy, {"x_ptr": x, "n": n},
                    {"out_ptr": sentinel(rng, dtype, n), "sum_ptr": sentinel(rng, sum_dtype, n)},
                    grid=(n,))
    assert_bits(o, s, describe(k_scalar_copy, {}, rng.seed))
    assert np.array_equal(o["out_ptr"].view(np.uint8), x.view(np.uint8))


# ---- errors and timing ----------------------------------------------------------------

@sw.jit
def k_unmasked(x_ptr, out_ptr, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(out_ptr + offs, sl.load(x_ptr + offs) + 1)


def test_out_of_bounds_names_the_thread(rng):
    # Program 2 of BLOCK 1024 (128 threads x 8 slots, chunks of 4: thread t
    # holds 2048+4t.. and 2560+4t..) runs off the end of x at element 2587:
    # thread 6, slot 7 -- the first failing slot in thread order too.
    x = np.zeros(2587, np.float32)
    out = np.zeros(3 * 1024, np.float32)
    with pytest.raises(RuntimeError) as oracle:
        k_unmasked.launch(arguments={"x_ptr": x, "out_ptr": out}, constexprs={"BLOCK": 1024},
                          grid=(3,))
    with pytest.raises(RuntimeError) as simt:
        k_unmasked.launch(arguments={"x_ptr": x, "out_ptr": out}, constexprs={"BLOCK": 1024},
                          grid=(3,), executor="simt")
    text = "out of bounds: element 2587 of argument 0 ('x_ptr', 2587 elements) in program (2, 0, 0)"
    assert "sw.load " + text in str(oracle.value)
    assert "simt.load " + text + ", thread 6" in str(simt.value)


def test_simt_vector_add_timing(rng):
    from test_vector_add import add_kernel
    n = 1 << 20
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    seconds = {}
    outs = {}
    for executor in EXECUTORS:
        out = np.empty_like(x)
        args = {"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n}
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 1024}, grid=(n // 1024,),
                          executor=executor)  # compile outside the timing
        start = time.perf_counter()
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 1024}, grid=(n // 1024,),
                          executor=executor)
        seconds[executor] = time.perf_counter() - start
        outs[executor] = out
    print("vector add 2^20 f32, BLOCK 1024: semantic %.1f ms, simt %.1f ms"
          % (seconds["semantic"] * 1e3, seconds["simt"] * 1e3))
    assert np.array_equal(outs["simt"], x + y)
    assert seconds["simt"] < 1.0
