"""The README's vector-add example, run on the CPU executor with NumPy arrays."""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import assert_same


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


def run_add(x, y, block):
    out = np.empty_like(x)
    n = x.size
    result = add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                               constexprs={"BLOCK": block},
                               grid=((n + block - 1) // block,))
    assert result is None
    return out


@pytest.mark.parametrize("n", [1, 7, 127, 128, 129, 1000, 4096, 98432])
@pytest.mark.parametrize("block", [128, 1024])
def test_vector_add_matches_numpy(rng, n, block):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    assert_same(run_add(x, y, block), x + y, rng.seed, "x + y, n=%d BLOCK=%d" % (n, block))


def test_vector_add_empty():
    x = np.empty(0, np.float32)
    out = np.empty(0, np.float32)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": x, "output_ptr": out, "n": 0},
                      constexprs={"BLOCK": 128}, grid=(0,))
    assert out.size == 0


def test_vector_add_mask_leaves_the_tail_alone(rng):
    # n is smaller than the buffers: lanes at or past n must not be written.
    n, size, block = 300, 512, 128
    x = rng.standard_normal(size).astype(np.float32)
    y = rng.standard_normal(size).astype(np.float32)
    out = np.full(size, -7.0, np.float32)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": block}, grid=(size // block,))
    expected = np.concatenate([x[:n] + y[:n], np.full(size - n, -7.0, np.float32)])
    assert_same(out, expected, rng.seed, "masked tail")


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_vector_add_other_float_dtypes(rng, dtype):
    # The same kernel specialises on the argument dtypes.
    n = 777
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    assert_same(run_add(x, y, 256), x + y, rng.seed, "x + y in " + dtype)


def test_vector_add_integer_pointers_reject_a_float_other():
    # other=0.0 cannot become an integer implicitly: a compile error, not a cast.
    x = np.arange(10, dtype=np.int32)
    with pytest.raises(sw.CompileError) as info:
        run_add(x, x, 128)
    assert info.value.lineno == add_kernel.first_line + 5
    assert "other" in info.value.message


def test_vector_add_multidimensional_arrays_are_flattened(rng):
    x = rng.random((16, 24), dtype=np.float32)
    y = rng.random((16, 24), dtype=np.float32)
    out = np.zeros_like(x)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": x.size},
                      constexprs={"BLOCK": 128}, grid=(3,))
    assert_same(out, x + y, rng.seed, "2-D arrays")
