"""Scans and general reductions (docs/language.md, "Scans and reductions"):
sl.cumsum, sl.cumprod, sl.associative_scan, sl.reduce, sl.argmax,
sl.argmin, sl.histogram and sl.gather on both CPU executors against NumPy,
for tile lengths from 1 to 4096 (more threads than elements, one warp,
several warps, many slots per thread), reverse scans, user combine
functions over tuples, ties and NaNs, out-of-range histogram values; their
compile errors at the exact line and column. Every kernel compiled here is
assembled by ptxas in test_zz_ptxas.py.

Integer results must equal NumPy's exactly on both executors; the semantic
executor combines in element order, so its float results equal a
sequential fold; the SIMT executor's may differ by reassociation only.
"""

import numpy as np
import pytest

import swage as sw
import swage.language as sl

EXECUTORS = ("semantic", "simt")
BLOCKS = (1, 2, 16, 32, 64, 128, 512, 1024, 4096)
RNG = np.random.default_rng()


def launch(kernel, executor, constexprs, **arguments):
    kernel.launch(arguments=arguments, constexprs=constexprs, grid=(1,), executor=executor)


@sw.jit
def cum_kernel(x_ptr, y_ptr, BLOCK: sl.constexpr, REVERSE: sl.constexpr, PROD: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    if PROD:
        y = sl.cumprod(x, 0, reverse=REVERSE)
    else:
        y = x.cumsum(0, reverse=REVERSE)
    sl.store(y_ptr + offs, y)


def seq_cum(x, prod, reverse, dtype):
    """A sequential fold in `dtype` (the semantic executor's order)."""
    x = x[::-1] if reverse else x
    out = np.empty(len(x), dtype)
    acc = None
    with np.errstate(over="ignore"):
        for i, v in enumerate(x.astype(dtype)):
            acc = v if acc is None else (acc * v if prod else acc + v)
            out[i] = acc
    return out[::-1] if reverse else out


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", ("int32", "int64", "float32", "float16"))
def test_cumsum(executor, block, reverse, dtype):
    if dtype.startswith("int"):
        x = RNG.integers(-1000, 1000, block).astype(dtype)
    else:
        x = RNG.integers(-8, 8, block).astype(dtype) / 4  # sums exact in float16 up to 2048
        if dtype == "float16" and block > 512:  # integers below 2048 stay exact
            x = np.zeros(block, dtype)
            x[RNG.choice(block, size=1000, replace=False)] = 1
    y = np.zeros(block, dtype)
    launch(cum_kernel, executor, dict(BLOCK=block, REVERSE=reverse, PROD=False), x_ptr=x, y_ptr=y)
    ref = np.cumsum(x[::-1] if reverse else x, dtype=np.float64 if dtype[0] == "f" else dtype)
    ref = (ref[::-1] if reverse else ref).astype(dtype)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_cumsum_float_rounding(executor):
    """Random floats: the semantic executor is a sequential float32 fold bit
    for bit; the SIMT executor is within reassociation error."""
    x = RNG.standard_normal(1024).astype(np.float32)
    y = np.zeros(1024, np.float32)
    launch(cum_kernel, executor, dict(BLOCK=1024, REVERSE=False, PROD=False), x_ptr=x, y_ptr=y)
    ref = seq_cum(x, False, False, np.float32)
    if executor == "semantic":
        np.testing.assert_array_equal(y, ref)
    else:
        np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64)), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", (1, 8, 64, 256, 2048))
@pytest.mark.parametrize("reverse", (False, True))
@pytest.mark.parametrize("dtype", ("int32", "int64", "float32"))
def test_cumprod(executor, block, reverse, dtype):
    x = RNG.choice(np.array([-1, 1, 1, 1, 2], dtype), block)
    if dtype == "float32":
        x = RNG.choice(np.array([-1.0, 1.0, 0.5, 2.0], dtype), block)
    y = np.zeros(block, dtype)
    launch(cum_kernel, executor, dict(BLOCK=block, REVERSE=reverse, PROD=True), x_ptr=x, y_ptr=y)
    np.testing.assert_array_equal(y, seq_cum(x, True, reverse, dtype))


@sw.jit
def cumsum_small_ints(x_ptr, y_ptr, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    sl.store(y_ptr + offs, sl.cumsum(sl.load(x_ptr + offs)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_cumsum_promotes_small_ints(executor):
    """int8 accumulates in int32, as Triton's cumsum does."""
    x = np.full(256, 100, np.int8)
    y = np.zeros(256, np.int32)
    launch(cumsum_small_ints, executor, dict(BLOCK=256), x_ptr=x, y_ptr=y)
    np.testing.assert_array_equal(y, np.cumsum(x.astype(np.int32)))


@sw.jit
def max_with_index(a, ia, b, ib):
    take = (a > b) | ((a == b) & (ia < ib))
    return sl.where(take, a, b), sl.where(take, ia, ib)


@sw.jit
def affine(a1, b1, a2, b2):
    # composition of x -> a*x + b maps: not commutative
    return a1 * a2, b1 * a2 + b2


@sw.jit
def user_kernel(x_ptr, a_ptr, b_ptr, v_ptr, i_ptr, r_ptr, BLOCK: sl.constexpr, REVERSE: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    v, i = sl.associative_scan((x, offs), 0, max_with_index, reverse=REVERSE)
    sl.store(v_ptr + offs, v)
    sl.store(i_ptr + offs, i)
    a = sl.load(a_ptr + offs)
    b = sl.load(b_ptr + offs)
    sa, sb = sl.associative_scan((a, b), 0, affine, REVERSE)
    sl.store(a_ptr + offs, sa)
    sl.store(b_ptr + offs, sb)
    m, j = sl.reduce((x, offs), 0, max_with_index)
    ra, rb = sl.reduce((a, b), 0, affine)
    sl.store(r_ptr, m)
    sl.store(r_ptr + 1, j)
    sl.store(r_ptr + 2, ra)
    sl.store(r_ptr + 3, rb)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", (1, 4, 32, 64, 256, 1024))
@pytest.mark.parametrize("reverse", (False, True))
def test_user_combine_tuples(executor, block, reverse):
    x = RNG.integers(0, 10, block).astype(np.int32)
    a = RNG.choice(np.array([-1, 1], np.int64), block)
    b = RNG.integers(-3, 4, block).astype(np.int64)
    a0, b0 = a.copy(), b.copy()
    v = np.zeros(block, np.int32)
    i = np.zeros(block, np.int32)
    r = np.zeros(4, np.int32)
    launch(user_kernel, executor, dict(BLOCK=block, REVERSE=reverse), x_ptr=x, a_ptr=a, b_ptr=b,
           v_ptr=v, i_ptr=i, r_ptr=r)
    order = range(block - 1, -1, -1) if reverse else range(block)
    rv, ri = np.zeros(block, np.int32), np.zeros(block, np.int32)
    ra, rb = np.zeros(block, np.int64), np.zeros(block, np.int64)
    acc = None
    for k in order:
        if acc is None:
            acc = (x[k], k, a0[k], b0[k])
        else:
            take = acc[0] > x[k] or (acc[0] == x[k] and acc[1] < k)
            mv, mi = (acc[0], acc[1]) if take else (x[k], k)
            acc = (mv, mi, acc[2] * a0[k], acc[3] * a0[k] + b0[k])
        rv[k], ri[k], ra[k], rb[k] = acc
    np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(i, ri)
    np.testing.assert_array_equal(a, ra)
    np.testing.assert_array_equal(b, rb)
    fa, fb = 1, 0
    for k in range(block):
        fa, fb = fa * a0[k], fb * a0[k] + b0[k]
    assert r[0] == x.max() and r[1] == int(np.argmax(x))
    assert r[2] == fa and r[3] == fb


@sw.jit
def arg_kernel(x_ptr, r_ptr, BLOCK: sl.constexpr, LEFT: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    sl.store(r_ptr, sl.argmax(x, 0, tie_break_left=LEFT))
    sl.store(r_ptr + 1, x.argmin(0, tie_break_left=LEFT))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", (1, 16, 64, 1024))
@pytest.mark.parametrize("dtype", ("int32", "int64", "float32", "float16"))
@pytest.mark.parametrize("left", (True, False))
def test_argmax_argmin_ties(executor, block, dtype, left):
    x = RNG.integers(-3, 4, block).astype(dtype)  # many ties
    r = np.zeros(2, np.int32)
    launch(arg_kernel, executor, dict(BLOCK=block, LEFT=left), x_ptr=x, r_ptr=r)
    if left:
        assert r[0] == np.argmax(x) and r[1] == np.argmin(x)
    else:
        assert r[0] == block - 1 - np.argmax(x[::-1]) and r[1] == block - 1 - np.argmin(x[::-1])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", (4, 64, 1024))
@pytest.mark.parametrize("left", (True, False))
def test_argmax_argmin_nan(executor, block, left):
    """A NaN wins over every number, for argmax and argmin alike (NumPy's
    rule): the first NaN, or with tie_break_left=False the last."""
    x = RNG.standard_normal(block).astype(np.float32)
    nans = sorted(RNG.choice(block, size=min(3, block), replace=False))
    x[nans] = np.nan
    r = np.zeros(2, np.int32)
    launch(arg_kernel, executor, dict(BLOCK=block, LEFT=left), x_ptr=x, r_ptr=r)
    want = nans[0] if left else nans[-1]
    assert list(r) == [want, want]


@sw.jit
def histogram_kernel(x_ptr, h_ptr, m_ptr, BLOCK: sl.constexpr, BINS: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offs)
    sl.store(h_ptr + sl.arange(0, BINS), sl.histogram(x, BINS))
    keep = (offs % 2) == 0
    sl.store(m_ptr + sl.arange(0, BINS), x.histogram(BINS, mask=keep))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block,bins", [(1, 4), (16, 8), (64, 64), (256, 16), (1024, 128), (32, 1024)])
@pytest.mark.parametrize("dtype", ("int32", "int64"))
def test_histogram(executor, block, bins, dtype):
    """Values outside [0, num_bins) are not counted; masked-off elements neither."""
    x = RNG.integers(-3, bins + 3, block).astype(dtype)
    h = np.zeros(bins, np.int32)
    m = np.zeros(bins, np.int32)
    launch(histogram_kernel, executor, dict(BLOCK=block, BINS=bins), x_ptr=x, h_ptr=h, m_ptr=m)
    def ref(v):
        v = v[(v >= 0) & (v < bins)]
        return np.bincount(v, minlength=bins)[:bins]
    np.testing.assert_array_equal(h, ref(x))
    np.testing.assert_array_equal(m, ref(x[::2]))


@sw.jit
def gather_kernel(x_ptr, i_ptr, y_ptr, N: sl.constexpr, M: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, N))
    offs = sl.arange(0, M)
    idx = sl.load(i_ptr + offs)
    sl.store(y_ptr + offs, sl.gather(x, idx, 0))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n,m", [(1, 1), (8, 32), (64, 64), (1024, 16), (256, 2048)])
@pytest.mark.parametrize("dtype", ("int32", "float16", "float32"))
def test_gather(executor, n, m, dtype):
    x = RNG.integers(-100, 100, n).astype(dtype)
    idx = RNG.integers(0, n, m).astype(np.int64)
    y = np.zeros(m, dtype)
    launch(gather_kernel, executor, dict(N=n, M=m), x_ptr=x, i_ptr=idx, y_ptr=y)
    np.testing.assert_array_equal(y, x[idx])


@sw.jit
def gather_of_scan_kernel(x_ptr, i_ptr, y_ptr, N: sl.constexpr, M: sl.constexpr):
    x = sl.load(x_ptr + sl.arange(0, N))
    offs = sl.arange(0, M)
    idx = sl.load(i_ptr + offs)
    sl.store(y_ptr + offs, sl.gather(sl.cumsum(x, 0), sl.gather(sl.cumsum(idx, 0) % N, idx, 0), 0))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n,m", [(64, 64), (256, 1024)])
def test_gather_of_a_scan_and_of_a_gather(executor, n, m):
    """A gather whose source or index is what a scan or another gather
    made: lower-simt replaces those results by new values and must keep
    their tile lengths."""
    x = RNG.integers(-100, 100, n).astype(np.int32)
    idx = RNG.integers(0, min(n, m), m).astype(np.int32)
    y = np.zeros(m, np.int32)
    launch(gather_of_scan_kernel, executor, dict(N=n, M=m), x_ptr=x, i_ptr=idx, y_ptr=y)
    np.testing.assert_array_equal(y, np.cumsum(x)[(np.cumsum(idx) % n)[idx]])


def test_gather_out_of_range_is_an_error_on_the_reference_executor():
    x = np.arange(8, dtype=np.float32)
    idx = np.array([0, 8, 1, 2], np.int64)
    y = np.zeros(4, np.float32)
    with pytest.raises(Exception, match="sl.gather index out of range"):
        launch(gather_kernel, "semantic", dict(N=8, M=4), x_ptr=x, i_ptr=idx, y_ptr=y)
    launch(gather_kernel, "simt", dict(N=8, M=4), x_ptr=x, i_ptr=idx, y_ptr=y)
    np.testing.assert_array_equal(y, [0, 0, 1, 2])  # the SIMT form reads 0


# ---- compile errors ----------------------------------------------------------------

def not_jit(a, b):
    return a + b


@sw.jit
def two_args(a, b):
    return a + b


def compile_error(src_kernel, **constexprs):
    with pytest.raises(sw.CompileError) as info:
        src_kernel.launch(arguments=dict(x_ptr=np.zeros(16, np.float32)), constexprs=constexprs,
                          grid=(1,), executor="semantic")
    return str(info.value)


@sw.jit
def bad_axis(x_ptr):
    x = sl.load(x_ptr + sl.arange(0, 16))
    sl.store(x_ptr + sl.arange(0, 16), sl.cumsum(x, 1))


@sw.jit
def bad_fn(x_ptr):
    x = sl.load(x_ptr + sl.arange(0, 16))
    sl.store(x_ptr, sl.reduce(x, 0, not_jit))


@sw.jit
def bad_arity(x_ptr):
    x = sl.load(x_ptr + sl.arange(0, 16))
    sl.store(x_ptr + sl.arange(0, 16), sl.associative_scan((x, x), 0, two_args))


@sw.jit
def bad_histogram(x_ptr):
    x = sl.load(x_ptr + sl.arange(0, 16))
    sl.store(x_ptr, sl.histogram(x, 16).to(sl.float32))


def at(kernel, needle, nth=0):
    """'line:col' (1-based) of the nth occurrence of needle in kernel's source."""
    import inspect
    lines, first = inspect.getsourcelines(kernel.fn if hasattr(kernel, "fn") else kernel)
    for k, text in enumerate(lines):
        if needle in text:
            if nth == 0:
                return "%d:%d" % (first + k, text.index(needle) + 1)
            nth -= 1
    raise AssertionError(needle)


def test_errors_at_line_and_column():
    msg = compile_error(bad_axis)
    assert "the axis must be 0" in msg and ":%s:" % at(bad_axis, "1))") in msg, msg
    msg = compile_error(bad_fn)
    assert "combine_fn must name a @sw.jit function" in msg and ":%s:" % at(bad_fn, "not_jit") in msg, msg
    msg = compile_error(bad_arity)
    assert "calls 'two_args' with 4 arguments, but it takes 2" in msg, msg
    assert ":%s:" % at(bad_arity, "two_args") in msg, msg
    msg = compile_error(bad_histogram)
    assert "sl.histogram needs a tile of integers" in msg and ":%s:" % at(bad_histogram, "x, 16") in msg, msg
