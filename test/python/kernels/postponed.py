"""A kernel module written with postponed annotations (PEP 563): every
annotation is a string, and the package must still see which parameters are
constexprs and which scalars have a fixed dtype."""
from __future__ import annotations

import swage as sw
import swage.language as sl


@sw.jit()
def scale_kernel(x_ptr, out_ptr, count: sl.int64, factor: sl.float64, BLOCK: sl.constexpr,
                 REPEAT: sl.constexpr = 1):
    offsets = sl.arange(0, BLOCK)
    mask = offsets < count
    x = sl.load(x_ptr + offsets, mask=mask)
    for r in sl.static_range(REPEAT):
        x = x * factor
    sl.store(out_ptr + offsets, x, mask=mask)
