"""Triton constructs the conformance suite once listed as gaps (issue 11):
sl.debug_barrier, bitcasts, Python's min()/max() of runtime values, tensor
methods, keep_dims=, sl.static_print/sl.device_print and
sl.extra.libdevice. Each runs on both CPU executors against NumPy (and
test_zz_ptxas.py assembles the PTX of every kernel compiled here); each
misuse is a CompileError at the line and column its marker comment gives."""

import re

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage_testing import assert_same

EXECUTORS = ["semantic", "simt"]


def expect_compile_error(kernel, signature, constexprs=None):
    return swage_testing.expect_compile_error_at_marker(kernel, __file__, signature, constexprs)


# ---- sl.debug_barrier ---------------------------------------------------------------------

@sw.jit
def barrier_kernel(X, Y, n, B: sl.constexpr):
    o = sl.arange(0, B)
    sl.store(Y + o, sl.load(X + o, mask=o < n), mask=o < n)
    sl.debug_barrier()
    # each element reads one another thread stored before the barrier
    y = sl.load(Y + (B - 1 - o), mask=o < n)
    sl.debug_barrier()
    sl.store(Y + o, y * 2, mask=o < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_debug_barrier_orders_stores_and_loads(executor):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    barrier_kernel[(1,)](x, y, 256, B=256, executor=executor)
    assert_same(y, x[::-1] * 2)


def test_debug_barrier_is_bar_sync_in_ptx():
    ptx = barrier_kernel.emit_ptx(signature={"X": "*f32", "Y": "*f32", "n": "i32"},
                                  constexprs={"B": 256})
    assert ptx.count("bar.sync 0;") == 2


@sw.jit
def k_barrier_argument(X):
    sl.debug_barrier(1)  # error at col 22: sl.debug_barrier takes at most 0 arguments


@sw.jit
def k_unknown_method(X):
    x = sl.load(X + sl.arange(0, 4))
    sl.store(X + sl.arange(0, 4), x.softmax())  # error at col 35: method '.softmax()' is not supported, .exp()


@sw.jit
def k_method_bad_keyword(X):
    x = sl.load(X + sl.arange(0, 4))
    sl.store(X, x.sum(axes=0))  # error at col 23: sl.sum has no parameter named 'axes', 'axis'


@sw.jit
def k_keep_dims_runtime(X, flag):
    x = sl.load(X + sl.arange(0, 4))
    sl.store(X, sl.sum(x, 0, flag))  # error at col 30: 'keep_dims' must be a compile-time bool


@sw.jit
def k_max_keep_dims_positional(X):
    x = sl.load(X + sl.arange(0, 4))
    sl.store(X, sl.max(x, 0, True))  # error at col 30: sl.max takes at most 2 positional, keep_dims


@sw.jit
def k_bitcast_width(X):
    x = sl.load(X)
    sl.store(X, x.to(sl.float16, bitcast=True))  # error at col 22: cannot bitcast float32 (32 bits) to float16 (16 bits)


@sw.jit
def k_bitcast_runtime_flag(X, flag):
    sl.store(X, sl.cast(sl.load(X), sl.int32, bitcast=flag))  # error at col 55: 'bitcast' must be a compile-time bool


@sw.jit
def k_bitcast_pointer(X):
    sl.store(X, sl.load(X.to(sl.int64, bitcast=True)))  # error at col 25: cannot bitcast a pointer


@sw.jit
def k_cast_rounding(X):
    sl.store(X, sl.cast(sl.load(X), sl.float16, fp_downcast_rounding="rtz"))  # error at col 70: fp_downcast_rounding, rtne


@sw.jit
def k_static_print_file(X):
    sl.static_print(1, file=None)  # error at col 24: no parameter named 'file'


@sw.jit
def k_static_print_sep(X):
    sl.static_print(1, 2, sep=3)  # error at col 31: 'sep' must be a string literal


@sw.jit
def k_libdevice_missing(X):
    sl.store(X, sl.extra.libdevice.j0(sl.load(X)))  # error at col 17: 'sl.extra.libdevice.j0' is not supported, fabs


@sw.jit
def k_device_print_no_prefix(X):
    sl.device_print(sl.load(X))  # error at col 21: string literal prefix


@sw.jit
def k_device_print_pointer(X):
    sl.device_print("p", X)  # error at col 26: not a pointer


@sw.jit
def k_device_print_keyword(X):
    sl.device_print("p", 1, sep=",")  # error at col 29: no parameter named 'sep'


@sw.jit
def k_min_of_one(X):
    x = sl.load(X + sl.arange(0, 4))
    sl.store(X, min(x))  # error at col 17: two or more values, sl.min(x)


@sw.jit
def k_min_key(X):
    sl.store(X, min(sl.load(X), 1.0, key=3))  # error at col 38: takes no keywords, 'key='


@sw.jit
def k_min_of_pointers(X):
    sl.store(X, sl.load(min(X, X + 1)))  # error at col 25: 'min' cannot be applied


# ---- tensor methods ----------------------------------------------------------------------

@sw.jit
def methods_kernel(X, Y, n, B: sl.constexpr):
    o = sl.arange(0, B)
    x = sl.load(X + o, mask=o < n, other=1.0)
    a = x.abs()
    sl.store(Y + 0 * n + o, a.sqrt(), mask=o < n)
    sl.store(Y + 1 * n + o, a.log() + a.log2(), mask=o < n)
    sl.store(Y + 2 * n + o, x.exp() + x.exp2(), mask=o < n)
    sl.store(Y + 3 * n + o, x.sin() + x.cos() + x.erf(), mask=o < n)
    sl.store(Y + 4 * n + o, x.floor() + x.ceil() + x.sigmoid(), mask=o < n)
    sl.store(Y + 5 * n + o, a.rsqrt() + x.fma(x, 1.0) + x.fdiv(2.0), mask=o < n)
    sl.store(Y + 6 * n + o, x.to(sl.int32).cast(sl.float32), mask=o < n)
    # reductions, then a broadcast of a keep_dims tile of one element
    m = sl.where(o < n, x, -float("inf")).max(axis=0, keep_dims=True)
    s = sl.where(o < n, x, 0.0).sum(0, keep_dims=True)
    lo = sl.where(o < n, x, float("inf")).min(axis=0)
    sl.store(Y + 7 * n + o, x - m + s + lo, mask=o < n)
    sl.store(Y + 8 * n + o, sl.where(o < n, x, 0.0).cumsum(0), mask=o < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_tensor_methods_are_the_builtins(executor):
    n = 100
    x = np.linspace(-3, 3, n).astype(np.float32)
    y = np.full(9 * n, np.nan, np.float32)
    methods_kernel[(1,)](x, y, n, B=128, executor=executor)
    d, a = x.astype(np.float64), np.abs(x.astype(np.float64))
    import math
    erf = np.vectorize(math.erf)(d)
    expected = [np.sqrt(a), np.log(a) + np.log2(a), np.exp(d) + np.exp2(d),
                np.sin(d) + np.cos(d) + erf, np.floor(d) + np.ceil(d) + 1 / (1 + np.exp(-d)),
                1 / np.sqrt(a) + d * d + 1 + d / 2, np.trunc(d),
                d - d.max() + d.sum() + d.min(), np.cumsum(d)]
    for i, e in enumerate(expected):
        np.testing.assert_allclose(y[i * n:(i + 1) * n], e, rtol=2e-5, atol=2e-5,
                                   err_msg="row %d (%s)" % (i, executor))


@sw.jit
def keep_dims_kernel(X, Y, n, B: sl.constexpr):
    o = sl.arange(0, B)
    x = sl.load(X + o, mask=o < n, other=0)
    one = sl.arange(0, 1)
    sl.store(Y + 0 + one, sl.sum(x, axis=0, keep_dims=True))
    sl.store(Y + 1 + one, sl.max(x, 0, keep_dims=True))
    sl.store(Y + 2 + one, sl.min(x, axis=0, keep_dims=True))
    sl.store(Y + 3 + one, sl.prod(sl.where(o < 3, x, 1), 0, True))
    sl.store(Y + 4 + one, sl.argmax(x, 0, keep_dims=True))
    sl.store(Y + 5 + one, sl.argmin(x, 0, keep_dims=True))
    sl.static_assert(sl.sum(x, 0, True).shape == (1,))
    sl.static_assert(sl.sum(x, 0, False).shape == ())


@pytest.mark.parametrize("executor", EXECUTORS)
def test_keep_dims_gives_a_tile_of_one_element(executor):
    x = np.array([3, -7, 5, 9, -2, 9, 0, 4], np.int32)
    y = np.zeros(6, np.int32)
    keep_dims_kernel[(1,)](x, y, 8, B=8, executor=executor)
    assert_same(y, np.array([x.sum(), 9, -7, 3 * -7 * 5, 3, 1], np.int32))


# ---- Python's min() and max() ---------------------------------------------------------------

@sw.jit
def python_minmax_kernel(X, Y, n, lo, B: sl.constexpr, C: sl.constexpr):
    o = sl.arange(0, B)
    x = sl.load(X + o, mask=o < n)
    # runtime values: elementwise, folded left to right; scalars too
    sl.store(Y + o, min(x, 0.5) + max(x, lo, -0.25), mask=o < n)
    sl.store(Y + n + o, max(min(n, 3), lo.to(sl.int32)) + 0 * x, mask=o < n)
    # compile-time numbers: Python's own (the first of the smallest), a constexpr
    sl.static_assert(min(3, 2.5, C) == 2.5)
    sl.static_assert(max(2, 2.0) == 2)
    for i in sl.static_range(min(C, 2)):
        sl.store(Y + 2 * n + i, x.max(axis=0) + i)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_python_min_max(executor):
    n = 50
    x = np.linspace(-1, 1, n).astype(np.float32)
    y = np.full(2 * n + 2, np.nan, np.float32)
    python_minmax_kernel[(1,)](x, y, n, np.float32(-0.5), B=64, C=7, executor=executor)
    d = x.astype(np.float64)
    assert_same(y[:n], (np.minimum(d, 0.5) + np.maximum(np.maximum(d, -0.5), -0.25)).astype(np.float32))
    assert_same(y[n:2 * n], np.full(n, 3, np.float32))
    assert_same(y[2 * n:], np.array([1, 2], np.float32))


# ---- bitcasts ------------------------------------------------------------------------------

@sw.jit
def bitcast_kernel(F32, I32, F64, I64, F16, BF, I8, U8, n, B: sl.constexpr):
    o = sl.arange(0, B)
    m = o < n
    f = sl.load(F32 + o, mask=m)
    sl.store(I32 + o, f.to(sl.int32, bitcast=True), mask=m)
    # and back: the same bits (negated by the sign bit)
    i = sl.load(I32 + o, mask=m)
    sl.store(F32 + o, sl.cast(i ^ (-2147483647 - 1), sl.float32, bitcast=True), mask=m)
    d = sl.load(F64 + o, mask=m)
    sl.store(I64 + o, d.to(sl.int64, bitcast=True), mask=m)
    sl.store(F64 + o, (d.to(sl.int64, bitcast=True) + 1).to(sl.float64, bitcast=True), mask=m)
    h = sl.load(F16 + o, mask=m)
    sl.store(BF + o, h.to(sl.bfloat16, bitcast=True).to(sl.float32), mask=m)
    sl.store(F16 + o, h.to(sl.bfloat16, bitcast=True).to(sl.float16, bitcast=True) * 2, mask=m)
    b = sl.load(I8 + o, mask=m)
    sl.store(U8 + o, b.to(sl.uint8, bitcast=True), mask=m)
    sl.store(I8 + o, sl.load(U8 + o, mask=m).to(sl.int8, bitcast=True) + 0 * b, mask=m)
    # constants and the same dtype
    sl.store(I32 + n + sl.arange(0, 1), sl.full((1,), sl.cast(1.0, sl.int32, bitcast=True),
                                               sl.int32).to(sl.int32, bitcast=True))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bitcast_between_dtypes_of_one_width(executor):
    rng = np.random.default_rng(11)
    n = 200
    f32 = rng.standard_normal(n).astype(np.float32)
    f32[:4] = [0.0, -0.0, np.inf, -np.inf]
    f64 = rng.standard_normal(n)
    f16 = rng.standard_normal(n).astype(np.float16)
    i8 = rng.integers(-128, 128, n).astype(np.int8)
    i32, i64 = np.zeros(n + 1, np.int32), np.zeros(n, np.int64)
    bf, u8 = np.zeros(n, np.float32), np.zeros(n, np.uint8)
    F32, F64, F16, I8 = f32.copy(), f64.copy(), f16.copy(), i8.copy()
    bitcast_kernel[(1,)](F32, i32, F64, i64, F16, bf, I8, u8, n, B=256, executor=executor)
    assert_same(i32[:n], f32.view(np.int32))
    assert i32[n] == 0x3F800000
    assert_same(F32.view(np.uint32), f32.view(np.uint32) ^ np.uint32(0x80000000))
    assert_same(i64, f64.view(np.int64))
    assert_same(F64.view(np.int64), f64.view(np.int64) + 1)
    assert_same(bf.view(np.uint32), f16.view(np.uint16).astype(np.uint32) << 16)
    assert_same(F16, f16 * np.float16(2))
    assert_same(u8, i8.view(np.uint8))
    assert_same(I8, i8)


# ---- sl.static_print ----------------------------------------------------------------------

@sw.jit
def static_print_kernel(X, n, B: sl.constexpr):
    o = sl.arange(0, B)
    sl.static_print("B =", B, 0.1, 2.0, True, None, sl.float16, o.shape, n, o)
    sl.static_print(B * 2, B + 0.5, sep=", ", end=" <\n")
    sl.store(X + o, o.to(sl.float32), mask=o < n)


def test_static_print_writes_while_compiling(capfd):
    x = np.zeros(16, np.float32)
    static_print_kernel[(1,)](x, 16, B=16, executor="semantic")
    err = capfd.readouterr().err
    assert "B = 16 0.1 2.0 True None sl.float16 (16,) int32 tile of 16 int32 elements\n" in err
    assert "32, 16.5 <\n" in err
    # and the kernel runs as without it
    static_print_kernel[(1,)](x, 16, B=16, executor="simt")
    assert_same(x, np.arange(16, dtype=np.float32))


# ---- sl.device_print ----------------------------------------------------------------------

@sw.jit
def device_print_kernel(X, n, B: sl.constexpr):
    pid = sl.program_id(0)
    o = sl.arange(0, B)
    x = sl.load(X + pid * B + o)
    sl.device_print("x: ", x < 0, pid + n)
    sl.device_print("bits ", x.to(sl.int32, bitcast=True) & 255, hex=True)
    sl.device_print("h=", x.to(sl.float16), 7)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_device_print_lines(executor, capfd):
    x = np.array([-1.5, 2.0, 0.1, -0.0, 3.0, -4.0, 5.5, 6.25], np.float32)
    device_print_kernel[(2,)](x, 10, B=4, executor=executor)
    expected = []
    for pid in range(2):
        part = x[pid * 4:pid * 4 + 4]
        expected += ["pid (%d, 0, 0) idx (%d) x: (operand 0) %s" % (pid, i, bool(v < 0))
                     for i, v in enumerate(part)]
        expected += ["pid (%d, 0, 0) idx () x: (operand 1) %d" % (pid, pid + 10)]
        expected += ["pid (%d, 0, 0) idx (%d) bits 0x%08x" % (pid, i, b & 255)
                     for i, b in enumerate(part.view(np.int32))]
        expected += ["pid (%d, 0, 0) idx (%d) h=(operand 0) %.9g" % (pid, i, np.float16(v))
                     for i, v in enumerate(part)]
        expected += ["pid (%d, 0, 0) idx () h=(operand 1) 7" % pid]
    assert capfd.readouterr().out.splitlines() == expected


def ptx_strings(ptx):
    """The .global byte strings of a PTX module, by name."""
    return {m.group(1): bytes(int(b) for b in m.group(2).split(",")).rstrip(b"\0").decode()
            for m in re.finditer(r"\.global \.align 1 \.b8 (\w+)\[\d+\] = \{([^}]*)\}", ptx)}


def test_device_print_on_the_gpu_is_vprintf():
    # one vprintf call per line, its format the CPU executors' line with
    # printf conversions for the values (docs/language.md, "Printing")
    ptx = device_print_kernel.emit_ptx(signature={"X": "*f32", "n": "i32"}, constexprs={"B": 4})
    assert ".extern .func (.param .b32 func_retval0) vprintf (.param .b64" in ptx
    assert ".local .align 8 .b8 __swage_print_buf[24];" in ptx
    assert sorted(ptx_strings(ptx).values()) == sorted([
        "pid (%d, %d, %d) idx (%d) x: (operand 0) False\n",
        "pid (%d, %d, %d) idx (%d) x: (operand 0) True\n",
        "pid (%d, %d, %d) idx () x: (operand 1) %d\n",
        "pid (%d, %d, %d) idx (%d) bits 0x%08x\n",
        "pid (%d, %d, %d) idx (%d) h=(operand 0) %.9g\n",
        "pid (%d, %d, %d) idx () h=(operand 1) %d\n"])
    # one call per operand and slot (a thread holds one of the 4 elements):
    # a tile element from the threads below 4 (the first holding each), a
    # scalar from thread 0
    assert ptx.count("call (written), vprintf, (fmt, args);") == 5
    assert len(re.findall(r"setp\.lt\.u32 %p\d+, %r\d+, 4;", ptx)) == 3
    assert len(re.findall(r"setp\.lt\.u32 %p\d+, %r\d+, 1;", ptx)) == 2


@sw.jit
def device_print_odd_kernel(X, B: sl.constexpr):
    o = sl.arange(0, B)
    x = sl.load(X + o)
    sl.device_print("100% ", x.to(sl.int64), x.to(sl.float64), x.to(sl.int8), hex=True)
    sl.device_print("i8 ", x.to(sl.int8), x.to(sl.uint8), x.to(sl.bfloat16), x.to(sl.float64))


def test_device_print_formats_of_every_dtype():
    ptx = device_print_odd_kernel.emit_ptx(signature={"X": "*f32"}, constexprs={"B": 64})
    formats = set(ptx_strings(ptx).values())
    line = "pid (%d, %d, %d) idx (%d) "
    assert formats == {line + "100%% (operand 0) 0x%016llx\n", line + "100%% (operand 1) 0x%016llx\n",
                       line + "100%% (operand 2) 0x%02x\n", line + "i8 (operand 0) %d\n",
                       line + "i8 (operand 1) %d\n", line + "i8 (operand 2) %.9g\n",
                       line + "i8 (operand 3) %.17g\n"}
    # the 64-bit values sit at offset 16 of the argument buffer, 8-byte aligned
    assert "st.local.b64 [__swage_print_buf+16]" in ptx and "st.local.f64 [__swage_print_buf+16]" in ptx


# ---- sl.extra.libdevice -------------------------------------------------------------------

@sw.jit
def libdevice_kernel(X, Y, n, B: sl.constexpr):
    o = sl.arange(0, B)
    x = sl.load(X + o, mask=o < n)
    a = sl.extra.libdevice.fabs(x)
    sl.store(Y + o, sl.extra.libdevice.exp(x) + sl.extra.libdevice.sqrt(a), mask=o < n)
    sl.store(Y + n + o, sl.extra.cuda.libdevice.floor(x) + sl.extra.libdevice.fma(x, x, 1.0),
             mask=o < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_libdevice_names_swage_has(executor):
    n = 60
    x = np.linspace(-2, 2, n).astype(np.float32)
    y = np.full(2 * n, np.nan, np.float32)
    libdevice_kernel[(1,)](x, y, n, B=64, executor=executor)
    d = x.astype(np.float64)
    np.testing.assert_allclose(y[:n], np.exp(d) + np.sqrt(np.abs(d)), rtol=2e-6)
    np.testing.assert_allclose(y[n:], np.floor(d) + d * d + 1, rtol=2e-6, atol=1e-6)


# ---- sw.autotune ---------------------------------------------------------------------------

@sw.jit
def scale_kernel(X, Y, n, factor, BLOCK: sl.constexpr):
    o = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(Y + o, sl.load(X + o, mask=o < n) * factor, mask=o < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_autotune_launches_the_first_config(executor):
    tuned = sw.autotune(configs=[sw.Config({"BLOCK": 32}, num_warps=2),
                                 sw.Config({"BLOCK": 256}, num_warps=8)],
                        key=["n"], warmup=5, rep=20)(scale_kernel)
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    seen = []
    tuned[lambda meta: seen.append(meta["BLOCK"]) or (sw.cdiv(100, meta["BLOCK"]),)](
        x, y, 100, 2.0, executor=executor)
    assert seen == [32] and tuned.best_config.num_warps == 2
    assert_same(y, x * 2)
    with pytest.raises(TypeError, match="conflicting meta-parameters"):
        tuned[(4,)](x, y, 100, 2.0, BLOCK=32, executor=executor)


def test_autotune_misuse_is_a_type_error():
    with pytest.raises(TypeError, match="at least one"):
        sw.autotune(configs=[], key=["n"])
    with pytest.raises(TypeError, match="dict of meta-parameters"):
        sw.Config(3)
    with pytest.raises(TypeError, match="not parameters of scale_kernel"):
        sw.autotune(configs=[sw.Config({"BLOCK": 32})], key=["m"])(scale_kernel)
    with pytest.raises(TypeError, match="decorates an @sw.jit kernel"):
        sw.autotune(configs=[sw.Config({"BLOCK": 32})], key=[])(lambda: None)


# ---- misuse: a CompileError at the marked line and column ---------------------------------

ONE_PTR = {"X": "*f32"}
ERROR_CASES = [
    (k_barrier_argument, ONE_PTR, None), (k_unknown_method, ONE_PTR, None),
    (k_method_bad_keyword, ONE_PTR, None), (k_keep_dims_runtime, {"X": "*f32", "flag": "i1"}, None),
    (k_max_keep_dims_positional, ONE_PTR, None), (k_min_of_one, ONE_PTR, None),
    (k_min_key, ONE_PTR, None), (k_min_of_pointers, ONE_PTR, None),
    (k_bitcast_width, ONE_PTR, None), (k_bitcast_runtime_flag, {"X": "*f32", "flag": "i1"}, None),
    (k_bitcast_pointer, ONE_PTR, None), (k_static_print_file, ONE_PTR, None),
    (k_static_print_sep, ONE_PTR, None), (k_device_print_no_prefix, ONE_PTR, None),
    (k_device_print_pointer, ONE_PTR, None), (k_device_print_keyword, ONE_PTR, None), (k_libdevice_missing, ONE_PTR, None), (k_cast_rounding, ONE_PTR, None),
]


@pytest.mark.parametrize("kernel, signature, constexprs", ERROR_CASES,
                         ids=[case[0].__name__ for case in ERROR_CASES])
def test_misuse_is_a_compile_error_at_its_place(kernel, signature, constexprs):
    expect_compile_error(kernel, signature, constexprs)
