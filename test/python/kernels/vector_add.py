"""Kernels the command-line tests compile from a file (see test_api.py)."""
import swage as sw
import swage.language as sl


def unrelated_helper(x):
    return x + 1


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


@sw.jit
def bad_store_kernel(x_ptr, out_ptr, BLOCK: sl.constexpr):
    offsets = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offsets)
    sl.store(out_ptr + offsets, x_ptr)
