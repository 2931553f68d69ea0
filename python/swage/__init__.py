"""Swage: a compiler for ragged data, embedded in Python and written in C.

    import swage as sw
    import swage.language as sl

    @sw.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
        ...

    add_kernel.launch(arguments={...}, constexprs={"BLOCK": 1024}, grid=(blocks,))

The kernel language is in docs/language.md. This package is a thin ctypes
layer over libswage (include/swage.h): the C library parses, compiles and
runs the kernels.
"""

from . import language
from ._jit import JITFunction, jit
from ._native import CompileError, library_path
from ._native import version as __version__

__all__ = ["jit", "JITFunction", "CompileError", "language", "__version__", "library_path"]
