"""Swage: a compiler for ragged data, embedded in Python and written in C.

    import numpy as np
    import swage as sw
    import swage.language as sl

    @sw.jit
    def segment_sum(values_ptr, offsets_ptr, out_ptr):
        sid = sl.segment_id(0)
        segment = sl.segment(values_ptr, offsets_ptr, sid)
        sl.store(out_ptr + sid, sl.sum(sl.load_segment(segment)))

    segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                  "out_ptr": out})

A kernel says what happens to one segment of a ragged input (or, as in
Triton, to one block of a grid); NumPy arrays run on the CPU executors,
PyTorch CUDA tensors on the GPU. The Python API is described in
docs/api.md, the kernel language in docs/language.md and docs/segments.md.
This package is a thin ctypes layer over libswage (include/swage.h): the C
library parses, compiles and runs the kernels.
"""

import operator

from . import language
from .language import cdiv
from ._autotune import Config, autotune
from ._jit import JITFunction, Plan, jit
from ._native import CompileError, library_path
from ._version import __version__


def next_power_of_2(n):
    """The smallest power of two >= n (0 for n <= 0), as triton.next_power_of_2
    computes it: the host-side helper that sizes a block to a row
    (``BLOCK_SIZE = sw.next_power_of_2(n_cols)``)."""
    n = operator.index(n)
    return 0 if n <= 0 else 1 << (n - 1).bit_length()


# Tracebacks and repr() name the exception where users find it: swage.CompileError.
CompileError.__module__ = "swage"

__all__ = ["jit", "JITFunction", "Plan", "CompileError", "language", "cdiv", "next_power_of_2",
           "autotune", "Config",
           "__version__", "library_path"]
