"""ctypes bindings for libswage (include/swage.h) and the error translation.

The library is found in this order: $SWAGE_LIB; libswage.so next to this
package (an installed wheel); <repo>/build/libswage.so (running from the
source tree). ctypes releases the GIL around every call, and the C library is
thread-safe, so compiles and CPU launches from several threads run at once.

The GPU entry points (PTX, the SIMT executor, CUDA launches) are bound when
the library has them: a libswage.so built before them still imports, and
using them raises a RuntimeError that says to rebuild.
"""

import ctypes
import os
import struct
import sys
import threading

# swage_status (swage.h)
OK = 0
ERROR_COMPILE = 1
ERROR_INVALID_ARGUMENT = 2
ERROR_RUNTIME = 3
ERROR_OUT_OF_MEMORY = 4
ERROR_INTERNAL = 5
ERROR_INTERRUPTED = 6

# swage_arg_kind
ARG_BUFFER = 0
ARG_INT = 1
ARG_FLOAT = 2

# swage_stage
STAGES = {"source": 0, "semantic": 1, "simt": 2, "plan": 3}


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


class FunctionSource(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("source", ctypes.c_char_p),
        ("file_name", ctypes.c_char_p),
        ("first_line", ctypes.c_int),
        ("source_length", ctypes.c_size_t),
    ]


class KernelSpec(ctypes.Structure):
    _fields_ = [
        ("source", ctypes.c_char_p),
        ("file_name", ctypes.c_char_p),
        ("first_line", ctypes.c_int),
        ("kernel_name", ctypes.c_char_p),
        ("signature", ctypes.c_char_p),
        ("constexprs", ctypes.c_char_p),
        ("extract", ctypes.c_int),
        ("source_length", ctypes.c_size_t),  # all the bytes: a NUL in them is an error
        ("functions", ctypes.POINTER(FunctionSource)),
        ("nfunctions", ctypes.c_int),
        ("num_threads", ctypes.c_int),  # 0: the compiler chooses; else 32 x num_warps
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
# scheduled segment launches (docs/schedules.md)
_declare("swageKernelEmitMlirSchedule", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
          ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelEmitPtxSchedule", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
          ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelSegmentScratchBytes", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Arg), ctypes.c_int,
          ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelLaunchSegmentsCuda", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(Arg), ctypes.c_int,
          ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
          ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelLaunchSegmentsCpuSimt", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.POINTER(Arg), ctypes.c_int, ctypes.c_int,
          ctypes.POINTER(ctypes.c_int), ctypes.POINTER(_ErrorPtr)])
_declare("swageKernelPlanText", _c_status,
         [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Arg), ctypes.c_int,
          ctypes.POINTER(ctypes.c_int64), ctypes.c_double, ctypes.POINTER(ctypes.c_void_p),
          ctypes.POINTER(_ErrorPtr)])
_declare("swageCudaAlloc", _c_status,
         [ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(_ErrorPtr)])
_declare("swageCudaFree", _c_status, [ctypes.c_int, ctypes.c_uint64, ctypes.POINTER(_ErrorPtr)])

# The schedules of segment programs, in the C library's order (swage_schedule).
SCHEDULES = ("auto", "subwarp", "warp", "cta", "split", "persistent")



def _declare_optional(name, restype, argtypes):
    """Binds a symbol that an older libswage.so may lack; None when missing."""
    try:
        fn = getattr(lib, name)
    except AttributeError:
        return None
    fn.restype = restype
    fn.argtypes = argtypes
    return fn


_optional = {
    "swageKernelLaunchCpuSimt": _declare_optional(
        "swageKernelLaunchCpuSimt", _c_status,
        [_KernelPtr, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Arg), ctypes.c_int,
         ctypes.POINTER(_ErrorPtr)]),
    "swageKernelEmitPtx": _declare_optional(
        "swageKernelEmitPtx", _c_status,
        [_KernelPtr, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_ErrorPtr)]),
    "swageCudaAvailable": _declare_optional("swageCudaAvailable", ctypes.c_int, []),
    # SWAGE_OK when CUDA can be used, else the reason as an error (newer libraries).
    "swageCudaStatus": _declare_optional("swageCudaStatus", _c_status,
                                         [ctypes.POINTER(_ErrorPtr)]),
    "swageKernelLaunchCuda": _declare_optional(
        "swageKernelLaunchCuda", _c_status,
        [_KernelPtr, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64),
         ctypes.POINTER(Arg), ctypes.c_int, ctypes.POINTER(_ErrorPtr)]),
    # segment programs (docs/segments.md)
    "swageKernelSegmentOffsetsParam": _declare_optional(
        "swageKernelSegmentOffsetsParam", ctypes.c_int, [_KernelPtr]),
    "swageKernelNumHiddenParams": _declare_optional(
        "swageKernelNumHiddenParams", ctypes.c_int, [_KernelPtr]),
    "swageKernelHiddenParamSource": _declare_optional(
        "swageKernelHiddenParamSource", ctypes.c_int, [_KernelPtr, ctypes.c_int]),
    # references to cached kernels (swageKernelCompile hands one out per call)
    "swageKernelRelease": _declare_optional("swageKernelRelease", None, [_KernelPtr]),
    "swageKernelCacheCount": _declare_optional("swageKernelCacheCount", ctypes.c_int64, []),
    # the calling thread's cancel flag for CPU launches (a c_int, or None)
    "swageCpuSetCancelFlag": _declare_optional(
        "swageCpuSetCancelFlag", ctypes.c_void_p, [ctypes.POINTER(ctypes.c_int)]),
    "swageCudaCopyToHost": _declare_optional(
        "swageCudaCopyToHost", _c_status,
        [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t,
         ctypes.POINTER(_ErrorPtr)]),
}


CPU_CANCEL = _optional["swageCpuSetCancelFlag"] is not None


def _require(name):
    fn = _optional.get(name)
    if fn is None:
        raise RuntimeError(
            "swage: the C library %s has no %s: it was built before Swage's GPU backend; "
            "rebuild it (make) or point SWAGE_LIB at a current libswage.so" % (library_path, name))
    return fn


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
        elif status == ERROR_INTERRUPTED:
            exc = KeyboardInterrupt(rendered)
        else:
            exc = RuntimeError(rendered)
    finally:
        if error:
            lib.swageErrorDestroy(error)
    raise exc


def _bytes(text):
    return text.encode("utf-8") if text is not None else None


class Kernel(int):
    """A kernel handle (the swage_kernel pointer as an int, which ctypes and
    struct take as they are) that owns one reference to the C cache's
    kernel: when the last Python reference to it goes, the C reference is
    released (swageKernelRelease), and the kernel is freed once no other
    handle holds it. So a handle is never freed while anything can reach
    it: a launch in progress, a warm path's table, a caller's variable."""

    __slots__ = ()

    def __del__(self, _release=_optional["swageKernelRelease"], _finalizing=sys.is_finalizing):
        if _release is not None and not _finalizing():
            _release(int(self))

    def __repr__(self):
        return "<swage kernel 0x%x>" % int(self)


def cached_kernel_count():
    """How many kernels the C library's process-wide cache holds (None for a
    library without swageKernelCacheCount)."""
    fn = _optional["swageKernelCacheCount"]
    return fn() if fn is not None else None


def compile_kernel(source, file_name, first_line, kernel_name, signature, constexprs,
                   extract=False, functions=(), num_threads=0):
    """swageKernelCompile; returns the kernel handle, a Kernel (an int) that
    holds one reference to the C cache's kernel until it is dropped.
    `functions`: (name, source, file, first_line) of each @sw.jit function
    the kernel may call; `num_threads`: a grid program's CTA size (0: the
    compiler's choice)."""
    text = _bytes(source)
    table = (FunctionSource * max(len(functions), 1))()
    for i, (name, fsource, ffile, fline) in enumerate(functions):
        ftext = _bytes(fsource)
        table[i] = FunctionSource(_bytes(name), ftext, _bytes(ffile), fline, len(ftext))
    spec = KernelSpec(text, _bytes(file_name), first_line, _bytes(kernel_name),
                      _bytes(signature), _bytes(constexprs), 1 if extract else 0,
                      len(text) if text is not None else 0, table, len(functions), num_threads)
    kernel = _KernelPtr()
    error = _ErrorPtr()
    status = lib.swageKernelCompile(ctypes.byref(spec), ctypes.byref(kernel), ctypes.byref(error))
    if status != OK:
        raise_error(status, error)
    if error:  # defensive: never leak an error object
        lib.swageErrorDestroy(error)
    return Kernel(kernel.value)


def kernel_params(kernel):
    """[(name, is_constexpr, type)] in source order."""
    params = []
    for index in range(lib.swageKernelNumParams(kernel)):
        params.append((_text(lib.swageKernelParamName(kernel, index)),
                       bool(lib.swageKernelParamIsConstexpr(kernel, index)),
                       _text(lib.swageKernelParamType(kernel, index)) or ""))
    return params


def segment_launch_facts(kernel):
    """(offsets, buffers) for a segment program: the runtime index of its
    offsets argument and the runtime indices of the buffers it reads or
    writes segments of (whose lengths bound the offsets); None for a grid
    program."""
    offsets = _require("swageKernelSegmentOffsetsParam")(kernel)
    if offsets < 0:
        return None
    count = _require("swageKernelNumHiddenParams")(kernel)
    source = _require("swageKernelHiddenParamSource")
    return offsets, tuple(source(kernel, i) for i in range(count))


def cuda_copy_to_host(device, stream, address, nbytes):
    """nbytes of device memory at `address` on CUDA device `device` as bytes,
    read after the work queued on `stream` (a CUstream as an int; 0 is the
    legacy default stream). Synchronous."""
    fn = _require("swageCudaCopyToHost")
    host = ctypes.create_string_buffer(max(nbytes, 1))
    error = _ErrorPtr()
    status = fn(device, stream or None, host, address, nbytes, ctypes.byref(error))
    if status != OK:
        raise_error(status, error)
    return host.raw[:nbytes]


def emit_mlir(kernel, stage, locations, schedule="auto"):
    text = ctypes.c_void_p()
    error = _ErrorPtr()
    status = lib.swageKernelEmitMlirSchedule(kernel, STAGES[stage], SCHEDULES.index(schedule),
                                             1 if locations else 0, ctypes.byref(text),
                                             ctypes.byref(error))
    return _take_text(status, text, error)


def _c_args(args):
    return (Arg * max(len(args), 1))(*args)


def _check(status, error):
    if status != OK:
        raise_error(status, error)


def segment_scratch_bytes(kernel, device, schedule, args):
    """Bytes of scratch a scheduled launch with these arguments needs
    (device -1: the CPU SIMT executor)."""
    size = ctypes.c_size_t()
    error = _ErrorPtr()
    _check(lib.swageKernelSegmentScratchBytes(kernel, device, SCHEDULES.index(schedule),
                                              _c_args(args), len(args), ctypes.byref(size),
                                              ctypes.byref(error)), error)
    return size.value


def launch_segments_cuda(kernel, device, stream, schedule, args, scratch, scratch_bytes, check):
    """Launches the schedule's task kernels on `stream`; with check, waits and
    returns whether the offsets were bad (else False, without waiting)."""
    bad = ctypes.c_int(0)
    error = _ErrorPtr()
    _check(lib.swageKernelLaunchSegmentsCuda(kernel, device, stream or None,
                                             SCHEDULES.index(schedule), _c_args(args), len(args),
                                             scratch, scratch_bytes, 1 if check else 0,
                                             ctypes.byref(bad), ctypes.byref(error)), error)
    return bool(bad.value)


def launch_segments_simt(kernel, schedule, args, check):
    """The schedule's task kernels on the CPU SIMT executor; returns whether
    the in-kernel offsets check flagged them (with check)."""
    bad = ctypes.c_int(0)
    error = _ErrorPtr()
    _check(lib.swageKernelLaunchSegmentsCpuSimt(kernel, SCHEDULES.index(schedule), _c_args(args),
                                                len(args), 1 if check else 0, ctypes.byref(bad),
                                                ctypes.byref(error)), error)
    return bool(bad.value)


def plan_text(kernel, device, schedule, args, offsets, bandwidth):
    """The plan of a launch as text (offsets: a ctypes int64 array, host
    int64 values, or None)."""
    text = ctypes.c_void_p()
    error = _ErrorPtr()
    c_offsets = offsets
    if offsets is not None and not isinstance(offsets, ctypes.Array):
        c_offsets = (ctypes.c_int64 * max(len(offsets), 1))(*[int(x) for x in offsets])
    status = lib.swageKernelPlanText(kernel, device, SCHEDULES.index(schedule), _c_args(args),
                                     len(args), c_offsets, float(bandwidth or 0), ctypes.byref(text),
                                     ctypes.byref(error))
    return _take_text(status, text, error)


def cuda_alloc(device, nbytes):
    ptr = ctypes.c_uint64()
    error = _ErrorPtr()
    _check(lib.swageCudaAlloc(device, nbytes, ctypes.byref(ptr), ctypes.byref(error)), error)
    return ptr.value


def cuda_free(device, ptr):
    error = _ErrorPtr()
    _check(lib.swageCudaFree(device, ptr, ctypes.byref(error)), error)


def _take_text(status, text, error):
    """The malloc'd text of a successful call (freed here), or the error raised."""
    if status != OK:
        if text:
            lib.swageFree(text)
        raise_error(status, error)
    try:
        return ctypes.string_at(text.value).decode("utf-8") if text.value else ""
    finally:
        lib.swageFree(text)


def set_cancel_flag(flag):
    """Makes the calling thread's CPU launches poll `flag` (a ctypes.c_int
    the caller keeps alive; None: no flag): a launch that sees it nonzero
    stops with every buffer as it was and raises KeyboardInterrupt. False
    when the library has no swageCpuSetCancelFlag (an older build)."""
    fn = _optional["swageCpuSetCancelFlag"]
    if fn is None:
        return False
    fn(ctypes.byref(flag) if flag is not None else None)
    return True


def launch_cpu(kernel, grid, args, executor="semantic"):
    """swageKernelLaunchCpu (executor "semantic") or swageKernelLaunchCpuSimt
    ("simt") over a 3-int grid with a list of Arg structs."""
    fn = lib.swageKernelLaunchCpu if executor == "semantic" else _require("swageKernelLaunchCpuSimt")
    c_grid = (ctypes.c_int64 * 3)(*grid)
    c_args = (Arg * max(len(args), 1))(*args)
    error = _ErrorPtr()
    status = fn(kernel, c_grid, c_args, len(args), ctypes.byref(error))
    if status != OK:
        raise_error(status, error)


def emit_ptx(kernel, sm, schedule="auto"):
    """The kernel's PTX for compute capability `sm` (90: sm_90); for a
    segment program, every task kernel of `schedule`."""
    text = ctypes.c_void_p()
    error = _ErrorPtr()
    status = lib.swageKernelEmitPtxSchedule(kernel, SCHEDULES.index(schedule), sm, ctypes.byref(text),
                                            ctypes.byref(error))
    return _take_text(status, text, error)


_cuda_reason = None
_cuda_checked = False
_cuda_lock = threading.Lock()


def _error_message(error):
    try:
        return _text(lib.swageErrorMessage(error)) or "unknown error"
    finally:
        lib.swageErrorDestroy(error)


def cuda_unavailable_reason():
    """None when CUDA launches can work in this process; otherwise why not (a
    sentence). Asked of the library once per process, as the driver is."""
    global _cuda_reason, _cuda_checked
    if _cuda_checked:
        return _cuda_reason
    with _cuda_lock:
        if not _cuda_checked:
            _cuda_reason = _ask_cuda()
            _cuda_checked = True
    return _cuda_reason


def _ask_cuda():
    if _optional["swageKernelLaunchCuda"] is None:
        return ("the C library %s was built without the GPU entry points (no "
                "swageKernelLaunchCuda); rebuild it with make" % library_path)
    status_fn = _optional["swageCudaStatus"]
    if status_fn is not None:
        error = _ErrorPtr()
        if status_fn(ctypes.byref(error)) == OK:
            if error:
                lib.swageErrorDestroy(error)
            return None
        return _error_message(error) if error else "CUDA is not usable"
    available = _optional["swageCudaAvailable"]
    if available is not None and available():
        return None
    return ("no usable CUDA driver or device (libcuda.so.1 did not load, or it reports no "
            "CUDA device)")


def launch_cuda(kernel, device, stream, grid, args):
    """swageKernelLaunchCuda: asynchronous on `stream` (a CUstream as an int; 0
    is the legacy default stream) of CUDA device `device`."""
    fn = _require("swageKernelLaunchCuda")
    c_grid = (ctypes.c_int64 * 3)(*grid)
    c_args = (Arg * max(len(args), 1))(*args)
    error = _ErrorPtr()
    status = fn(kernel, device, stream or None, c_grid, c_args, len(args), ctypes.byref(error))
    if status != OK:
        raise_error(status, error)


# ---- the warm launch: one packed buffer per call (swageKernelLaunchCudaPacked) ----
#
# The buffer is a swage_cuda_launch header (kernel, stream, device, grid[3],
# params_size, 0) followed by the runtime arguments laid out as the kernel's
# PTX parameters; struct's native ("@") alignment puts each at a multiple of
# its size, as swage.h asks. The C function is called with no argtypes (a
# bytes object and None convert with the least work) and keeps a failure's
# error for the calling thread, so no error slot is made per call.

LAUNCH_HEADER = "@QQi3III"
LAUNCH_HEADER_SIZE = struct.calcsize(LAUNCH_HEADER)
# signature element type -> struct code of its PTX parameter ("*" pointers are "Q")
PARAM_CODES = {"i1": "B", "i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I",
               "i64": "q", "u64": "Q", "f16": "H", "bf16": "H",
               "f32": "f", "f64": "d"}

cuda_launch_packed = _declare_optional("swageKernelLaunchCudaPacked", _c_status, None)
_take_last_error = _declare_optional("swageErrorTakeLast", _ErrorPtr, [])
PACKED_LAUNCH = (cuda_launch_packed is not None and _take_last_error is not None
                 and LAUNCH_HEADER_SIZE == 40 and ctypes.sizeof(ctypes.c_void_p) == 8)


def launch_struct(types):
    """The struct.Struct of a packed launch whose runtime parameters have
    these signature types ("*f32", "i32", ...): pack(kernel, stream, device,
    gx, gy, gz, params_size, 0, *values). Its params_size is .size - 40."""
    codes = "".join("Q" if t.startswith("*") else PARAM_CODES[t] for t in types)
    return struct.Struct(LAUNCH_HEADER + codes)


def raise_last_error(status):
    """Raises the error a packed launch kept for this thread."""
    raise_error(status, _take_last_error())


# ---- the warm segment launch: arguments packed as swage_arg records ----
#
# A warm segment launch (_jit._WarmSegmentLauncher) packs its runtime
# arguments into one bytes object laid out as an array of struct swage_arg
# (ARG_RECORD each: kind, 4 bytes of padding, data, nelems, i, f). It asks
# for the scratch size (rarely: for new sizes) through a function object of
# its own whose args parameter takes those bytes, and launches through
# swageKernelLaunchSegmentsCudaPacked: a swage_segment_launch header
# (kernel, stream, scratch, scratch_bytes, device, schedule, nargs, check)
# and the records in one bytes object, called with no argtypes as the grid
# packed launch is, its error kept for the thread. It returns 0, an error
# status, or SEGMENT_OFFSETS_BAD when the check flagged the offsets.

ARG_RECORD = "@i4xQqqd"
SEGMENT_LAUNCH_HEADER = "@QQQQiiii"
SEGMENT_OFFSETS_BAD = -1
# check | SEGMENT_SCRATCH_KEPT: the scratch is kept from launch to launch on
# its stream (swage.h); SEGMENT_CAPTURING: the stream was capturing a graph,
# nothing ran (launch again with a scratch of its own)
SEGMENT_SCRATCH_KEPT = 2
SEGMENT_CAPTURING = -2
stream_is_capturing = _declare_optional("swageCudaStreamIsCapturing", ctypes.c_int,
                                        [ctypes.c_int, ctypes.c_void_p])
launch_segments_cuda_packed = _declare_optional("swageKernelLaunchSegmentsCudaPacked",
                                                ctypes.c_int, None)


def _bind_packed(name, argtypes):
    try:
        fn = getattr(ctypes.CDLL(library_path), name)
    except (OSError, AttributeError):
        return None
    fn.restype = _c_status
    fn.argtypes = argtypes
    return fn


_scratch_bytes_packed = _bind_packed(
    "swageKernelSegmentScratchBytes",
    [_KernelPtr, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
     ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_ErrorPtr)])
PACKED_SEGMENTS = (_scratch_bytes_packed is not None and launch_segments_cuda_packed is not None
                   and _take_last_error is not None
                   and struct.calcsize(ARG_RECORD) == ctypes.sizeof(Arg) == 40
                   and struct.calcsize(SEGMENT_LAUNCH_HEADER) == 48
                   and ctypes.sizeof(ctypes.c_void_p) == 8)


def segment_scratch_bytes_packed(kernel, device, schedule_index, packed, nargs):
    """segment_scratch_bytes for arguments packed as ARG_RECORDs."""
    size = ctypes.c_size_t()
    error = _ErrorPtr()
    _check(_scratch_bytes_packed(kernel, device, schedule_index, packed, nargs, ctypes.byref(size),
                                 ctypes.byref(error)), error)
    return size.value


# ---- asking the driver where a device pointer lives (for __cuda_array_interface__) ----

_libcuda = None
_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9


def pointer_device(address):
    """The CUDA device ordinal that owns device pointer `address`, from the
    driver (cuPointerGetAttribute); raises ValueError when it is not device
    memory and RuntimeError when there is no driver."""
    global _libcuda
    if _libcuda is None:
        try:
            driver = ctypes.CDLL(os.environ.get("SWAGE_LIBCUDA") or "libcuda.so.1")
            driver.cuInit.argtypes = [ctypes.c_uint]
            driver.cuInit.restype = ctypes.c_int
            driver.cuPointerGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                                     ctypes.c_uint64]
            driver.cuPointerGetAttribute.restype = ctypes.c_int
            driver.cuInit(0)
        except (OSError, AttributeError) as e:
            raise RuntimeError("swage: cannot ask the CUDA driver which device owns a pointer "
                               "(%s)" % e) from None
        _libcuda = driver
    ordinal = ctypes.c_int(-1)
    result = _libcuda.cuPointerGetAttribute(ctypes.byref(ordinal),
                                            _CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address)
    if result != 0:
        raise ValueError("0x%x is not CUDA device memory (cuPointerGetAttribute returned CUDA "
                         "error %d)" % (address, result))
    return ordinal.value
