"""The specialisation cache: each kernel keeps its most recently used
specialisations, up to cache_size (docs/api.md, "The specialisation
cache"), and the C kernels it evicts are freed once nothing holds their
handles (swageKernelRelease)."""

import gc
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage import _native


def scale(x_ptr, out_ptr, n, FACTOR: sl.constexpr, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * FACTOR, mask=mask)


SIGNATURE = "x_ptr=*f32,out_ptr=*f32,n=i32"


def cx(factor):
    return "FACTOR=%d,BLOCK=16" % factor


def cached():
    gc.collect()
    return _native.cached_kernel_count()


def test_the_cache_keeps_the_most_recently_used_specialisations():
    kernel = sw.jit(cache_size=4)(scale)
    start = cached()
    x = np.arange(40, dtype=np.float32)
    for factor in range(1, 11):
        out = np.zeros_like(x)
        kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 40},
                      constexprs={"FACTOR": factor, "BLOCK": 16}, grid=(3,))
        assert np.array_equal(out, x * factor)
        if factor == 8:
            kernel._compile(SIGNATURE, cx(5))  # 5 is used again: 6 is now the oldest
    assert list(kernel._cache) == [(SIGNATURE, cx(f)) for f in (8, 5, 9, 10)]
    # the six evicted C kernels were freed: the C cache holds the four
    assert cached() - start == 4
    del kernel
    assert cached() == start


def test_thousands_of_constexpr_values_take_bounded_memory():
    kernel = sw.jit(cache_size=8)(scale)
    start = cached()
    for factor in range(2000):
        kernel._compile(SIGNATURE, cx(factor))
        assert len(kernel._cache) <= 8
    assert cached() - start == 8


def test_a_handle_held_elsewhere_outlives_its_eviction():
    kernel = sw.jit(cache_size=2)(scale)
    start = cached()
    held = kernel._compile(SIGNATURE, cx(1))
    for factor in range(2, 6):
        kernel._compile(SIGNATURE, cx(factor))
    assert (SIGNATURE, cx(1)) not in kernel._cache
    assert cached() - start == 3  # the two cached, and the one still held
    text = _native.emit_mlir(held, "semantic", False)
    assert "sw.store" in text
    # compiling the spec again while it is held finds the same C kernel
    assert kernel._compile(SIGNATURE, cx(1)) == held
    del held
    assert cached() - start == 2


def test_evicted_handles_leave_the_warm_paths_tables():
    kernel = sw.jit(cache_size=2)(scale)
    first = kernel._compile(SIGNATURE, cx(1))
    warm = types.SimpleNamespace(kernels={("float32", 1): first})
    segments = types.SimpleNamespace(kernels={("float32", 1): first})
    kernel._warm[("tensor", "tensor", "int")] = warm
    kernel._warm_segments[("tensor", "tensor", "int")] = segments
    kernel._compile(SIGNATURE, cx(2))
    assert warm.kernels  # still cached
    kernel._compile(SIGNATURE, cx(3))  # evicts FACTOR=1
    assert not warm.kernels and not segments.kernels
    kernel._warm.clear()
    kernel._warm_segments.clear()


def test_cache_size_option():
    assert sw.jit(scale)._cache_size == 256
    assert sw.jit(cache_size=None)(scale)._cache_size is None
    unbounded = sw.jit(cache_size=None)(scale)
    for factor in range(300):
        unbounded._compile(SIGNATURE, cx(factor))
    assert len(unbounded._cache) == 300
    for bad in (0, -1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="cache_size must be a positive number"):
            sw.jit(cache_size=bad)(scale)
    with pytest.raises(TypeError, match="unknown option 'cache_szie'"):
        sw.jit(cache_szie=4)(scale)


def test_swage_cache_size_sets_the_default(tmp_path):
    script = tmp_path / "default.py"
    script.write_text(
        "import swage as sw\n"
        "import swage.language as sl\n"
        "def k(x_ptr, N: sl.constexpr):\n"
        "    pass\n"
        "print(sw.jit(k)._cache_size)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(sw.__file__)),
               SWAGE_LIB=_native.library_path)
    for value, expected in (("7", "7"), ("0", "None")):
        env["SWAGE_CACHE_SIZE"] = value
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                env=env, timeout=60)
        assert result.returncode == 0 and result.stdout.strip() == expected, result.stderr
    env["SWAGE_CACHE_SIZE"] = "lots"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode != 0 and "SWAGE_CACHE_SIZE must be a number" in result.stderr


FAKE_DRIVER_CHILD = r'''
import ctypes, gc, os, sys
import swage as sw
from swage import _native
import test_gpu_api as t
from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
torch = t._fake_torch({0: 0x5000})
sys.modules["torch"] = torch
kernel = sw.jit(cache_size=2)(t.add_kernel.fn)

def add(block):
    kernel.launch(arguments={"x_ptr": torch.Tensor(0x1000, 100, ("cuda", 0)),
                             "y_ptr": torch.Tensor(0x2000, 100, ("cuda", 0)),
                             "output_ptr": torch.Tensor(0x3000, 100, ("cuda", 0)), "n": 100},
                  constexprs={"BLOCK": block}, grid=(2,))
    return state.module_loads

def count():
    gc.collect()
    return _native.cached_kernel_count()

state.nparams_recorded = 4
start = count()
for block in (64, 128, 256):
    add(block)
    add(block)  # the warm path
assert state.launches == 6 and state.module_loads == 3
assert list(kernel._cache) == [("x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32", "BLOCK=%d" % b)
                               for b in (128, 256)]
warm = next(iter(kernel._warm.values()))
assert len(warm.kernels) == 2, warm.kernels  # BLOCK=64 left the warm table too
assert count() - start == 2
# BLOCK=64 again: compiled again (general path, a new C kernel), and its PTX
# finds the module loaded for the first one: nothing is loaded twice
assert add(64) == 3 and add(64) == 3 and state.launches == 8
assert count() - start == 2
print("eviction against the fake driver passed")
'''


def test_evicted_gpu_kernels_reload_nothing(tmp_path):
    """A GPU kernel evicted and compiled again finds its CUDA module by its
    PTX (the module cache's key is the text's, not the freed kernel's
    address), and the warm path forgets the evicted handle."""
    from swage_testing import run_with_fake_driver
    run_with_fake_driver(tmp_path, FAKE_DRIVER_CHILD, "eviction against the fake driver passed")
