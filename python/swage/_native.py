"""ctypes bindings for libswage (include/swage.h) and the error translation.

The library is found in this order: $SWAGE_LIB; libswage.so next to this
package (an installed wheel); <repo>/build/libswage.so (running from the
source tree). ctypes releases the GIL around every call, and the C library is
thread-safe, so compiles and CPU launches from several threads run at once.
"""

import ctypes
import os

# swage_status (swage.h)
OK = 0
ERROR_COMPILE = 1
ERROR_INVALID_ARGUMENT = 2
ERROR_RUNTIME = 3
ERROR_OUT_OF_MEMORY = 4
ERROR_INTERNAL = 5

# swage_arg_kind
ARG_BUFFER = 0
ARG_INT = 1
ARG_FLOAT = 2

# swage_stage
STAGES = {"source": 0, "semantic": 1}


class CompileError(Exception):
    """A kernel that Swage cannot compile.

    ``str(error)`` is the full diagnostic (file:line:col, the source line and
    a caret); ``message`` is the plain sentence; ``filename``, ``lineno`` and
    ``col`` locate it in the user's file (None / 0 when unknown).
    """

    def __init__(self, rendered, message=None, filename=None, lineno=0, col=0):
        super().__init__(rendered)
        self.rendered = rendered
        self.message = message if message is not None else rendered
        self.filename = filename
        self.lineno = lineno
        self.col = col


class KernelSpec(ctypes.Structure):
    _fields_ = [
        ("source", ctypes.c_char_p),
        ("file_name", ctypes.c_char_p),
        ("first_line", ctypes.c_int),
        ("kernel_name", ctypes.c_char_p),
        ("signature", ctypes.c_char_p),
        ("constexprs", ctypes.c_char_p),
        ("extract", ctypes.c_int),
    ]


class Arg(ctypes.Structure):
    # Same field order and C types as struct swage_arg; ctypes applies the C
    # ABI's padding (4 bytes after `kind` on LP64), so the layouts agree.
    _fields_ = [
        ("kind", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("nelems", ctypes.c_int64),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
    ]


_ErrorPtr = ctypes.c_void_p
_KernelPtr = ctypes.c_void_p


def _candidate_paths():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("SWAGE_LIB")
    if env:
        return [env]
    repo = os.path.dirname(os.path.dirname(here))
    return [os.path.join(here, "libswage.so"), os.path.join(repo, "build", "libswage.so")]


def _load():
    tried = []
    for path in _candidate_paths():
        if not os.path.isfile(path):
            tried.append(path + " (not found)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "swage: cannot load the Swage C library libswage.so; tried: " + "; ".join(tried)
        + ". Build it with `make` in the repository, or set SWAGE_LIB to its path.")


lib, library_path = _load()


def _declare(name, restype, argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = argtypes
    return fn


_c_status = ctypes.c_int
_declare("swageErrorStatus", _c_status, [_ErrorPtr])
_declare("swageErrorMessage", ctypes.c_char_p, [_ErrorPtr])
_declare("swageErrorRendered", ctypes.c_char_p, [_ErrorPtr])
_declare("swageErrorFile", ctypes.c_char_p, [_ErrorPtr])
_declare("swageErrorLine", ctypes.c_int, [_ErrorPtr])
_declare("swageErrorColumn", ctypes.c_int, [_ErrorPtr])
_declare("swageErrorDestroy", None, [_ErrorPtr])
_declare("swageFree", None, [ctypes.c_void_p])
_declare("swageVersionString", ctypes.c_char_p, [])
_declare("swageKernelCompile", _c_status,
         [ctypes.POINTER(KernelSpec), ctypes.POINTER(_KernelPtr), ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelNumParams", ctypes.c_int, [_KernelPtr])
_declare("swageKernelParamName", ctypes.c_char_p, [_KernelPtr, ctypes.c_int])
_declare("swageKernelParamIsConstexpr", ctypes.c_int, [_KernelPtr, ctypes.c_int])
_declare("swageKernelParamType", ctypes.c_char_p, [_KernelPtr, ctypes.c_int])
_declare("swageKernelName", ctypes.c_char_p, [_KernelPtr])
_declare("swageKernelEmitMlir", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
          ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelLaunchCpu", _c_status,
         [_KernelPtr, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Arg), ctypes.c_int,
          ctypes.POINTER(_ErrorPtr)])

version = lib.swageVersionString().decode()


def _text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else None


def raise_error(status, error):
    """Turns a failed call's status and swage_error into a Python exception,
    destroying the error object in every case."""
    try:
        if not error:
            raise RuntimeError("swage: call failed with status %d and no error object" % status)
        message = _text(lib.swageErrorMessage(error))
        rendered = _text(lib.swageErrorRendered(error))
        if status == ERROR_COMPILE:
            exc = CompileError(rendered, message, _text(lib.swageErrorFile(error)),
                               lib.swageErrorLine(error), lib.swageErrorColumn(error))
        elif status == ERROR_INVALID_ARGUMENT:
            exc = ValueError(rendered)
        elif status == ERROR_OUT_OF_MEMORY:
            exc = MemoryError(rendered)
        elif status == ERROR_INTERNAL:
            exc = RuntimeError("swage internal error (please report it): " + rendered)
        else:
            exc = RuntimeError(rendered)
    finally:
        if error:
            lib.swageErrorDestroy(error)
    raise exc


def _bytes(text):
    return text.encode("utf-8") if text is not None else None


def compile_kernel(source, file_name, first_line, kernel_name, signature, constexprs,
                   extract=False):
    """swageKernelCompile; returns the kernel handle (an int), owned by the C cache."""
    spec = KernelSpec(_bytes(source), _bytes(file_name), first_line, _bytes(kernel_name),
                      _bytes(signature), _bytes(constexprs), 1 if extract else 0)
    kernel = _KernelPtr()
    error = _ErrorPtr()
    status = lib.swageKernelCompile(ctypes.byref(spec), ctypes.byref(kernel), ctypes.byref(error))
    if status != OK:
        raise_error(status, error)
    if error:  # defensive: never leak an error object
        lib.swageErrorDestroy(error)
    return kernel.value


def kernel_params(kernel):
    """[(name, is_constexpr, type)] in source order."""
    params = []
    for index in range(lib.swageKernelNumParams(kernel)):
        params.append((_text(lib.swageKernelParamName(kernel, index)),
                       bool(lib.swageKernelParamIsConstexpr(kernel, index)),
                       _text(lib.swageKernelParamType(kernel, index)) or ""))
    return params


def emit_mlir(kernel, stage, locations):
    text = ctypes.c_void_p()
    error = _ErrorPtr()
    status = lib.swageKernelEmitMlir(kernel, STAGES[stage], 1 if locations else 0,
                                     ctypes.byref(text), ctypes.byref(error))
    if status != OK:
        if text:
            lib.swageFree(text)
        raise_error(status, error)
    try:
        return ctypes.string_at(text.value).decode("utf-8") if text.value else ""
    finally:
        lib.swageFree(text)


def launch_cpu(kernel, grid, args):
    """swageKernelLaunchCpu over a 3-int grid with a list of Arg structs."""
    c_grid = (ctypes.c_int64 * 3)(*grid)
    c_args = (Arg * max(len(args), 1))(*args)
    error = _ErrorPtr()
    status = lib.swageKernelLaunchCpu(kernel, c_grid, c_args, len(args), ctypes.byref(error))
    if status != OK:
        raise_error(status, error)
