"""CUB's DeviceSegmentedReduce::Sum / ::Max through ctypes.

The library is built on the GPU machine during the benchmark:
`start_build(arch)` starts nvcc in the background (in a temporary
directory; it takes some seconds, which the benchmark spends on other
peers) and returns at once; the build publishes the library by renaming it
into place when nvcc succeeds, or leaves `<library>.failed` beside it, so
any process can wait for it with `load_when_built(path)`.
"""

import ctypes
import os
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "cub_segreduce.cu")
OPS = {"sum": 0, "max": 1}

_BUILD_SCRIPT = ('lib=$1; log=$2; shift 2; start=$(date +%s); '
                 '"$@" > "$log" 2>&1; rc=$?; '
                 'echo "nvcc exit $rc after $(( $(date +%s) - start )) s" >> "$log"; '
                 'if [ $rc -eq 0 ]; then mv "$lib.tmp" "$lib"; else touch "$lib.failed"; fi')
_RUNNING = []  # the background builds (kept referenced while the process lives)


def find_nvcc():
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    for candidate in (shutil.which("nvcc"), os.path.join(home, "bin", "nvcc"),
                      "/usr/local/cuda/bin/nvcc"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def start_build(arch="sm_90"):
    """Starts nvcc; returns {"library", "log", "command"} (and "error" when
    it could not start: then `<library>.failed` exists already)."""
    directory = tempfile.mkdtemp(prefix="swage-bench-cub-")
    library = os.path.join(directory, "libcub_segreduce.so")
    log = os.path.join(directory, "nvcc.log")
    nvcc = find_nvcc()
    command = [nvcc or "nvcc", "-O3", "-arch=%s" % arch, "-shared", "-Xcompiler", "-fPIC",
               "-o", library + ".tmp", SOURCE]
    build = {"library": library, "log": log, "command": command}
    error = None
    if nvcc is None:
        error = "nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"
    else:
        try:
            _RUNNING.append(subprocess.Popen(["sh", "-c", _BUILD_SCRIPT, "sh", library, log]
                                             + command, stdin=subprocess.DEVNULL))
        except OSError as e:
            error = "could not start nvcc: %s" % e
    if error:
        build["error"] = error
        with open(log, "w") as f:
            f.write(error + "\n")
        open(library + ".failed", "w").close()
    return build


def _log_tail(library, limit=1500):
    try:
        with open(os.path.join(os.path.dirname(library), "nvcc.log")) as f:
            return f.read()[-limit:]
    except OSError:
        return ""


def build_status(library):
    return {"built": os.path.exists(library), "failed": os.path.exists(library + ".failed"),
            "log_tail": _log_tail(library, 600)}


def load_when_built(library, wait_s=90.0):
    """The loaded peer, once the build is done (waits up to wait_s)."""
    deadline = time.time() + wait_s
    while not os.path.exists(library):
        if os.path.exists(library + ".failed"):
            raise RuntimeError("the CUB build failed: %s" % _log_tail(library))
        if time.time() > deadline:
            raise RuntimeError("the CUB build did not finish within %.0f s" % wait_s)
        time.sleep(0.2)
    return CubSegmentedReduce(library)


class CubSegmentedReduce:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self._run = lib.swage_bench_cub_segreduce
        self._run.restype = ctypes.c_int
        self._run.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                              ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong,
                              ctypes.c_void_p, ctypes.c_void_p]
        self._name = lib.swage_bench_cub_error_name
        self._name.restype = ctypes.c_char_p
        self._name.argtypes = [ctypes.c_int]
        self.version = int(lib.swage_bench_cub_version())

    def _check(self, code, what):
        if code != 0:
            name = self._name(code)
            raise RuntimeError("CUB %s failed: %s (%d)" % (what, name.decode() if name else "?",
                                                         code))

    def prepare(self, op, values, offsets, out):
        """A callable that runs the reduction into `out` on the current
        stream and returns `out`. values float32, offsets int32 (segments +
        1), out float32 (segments); the temp storage is allocated here, once."""
        import torch
        if offsets.dtype != torch.int32:
            raise TypeError("the CUB peer is built for int32 offsets")
        segments = offsets.numel() - 1
        code = OPS[op]
        size = ctypes.c_size_t(0)
        stream = torch.cuda.current_stream().cuda_stream
        self._check(self._run(code, None, ctypes.byref(size), values.data_ptr(), out.data_ptr(),
                              segments, offsets.data_ptr(), stream), "temp-storage query")
        temp = torch.empty(max(1, size.value), dtype=torch.uint8, device=values.device)
        temp_bytes = ctypes.c_size_t(size.value)
        args = (code, temp.data_ptr(), ctypes.byref(temp_bytes), values.data_ptr(),
                out.data_ptr(), segments, offsets.data_ptr())
        run, check = self._run, self._check

        def fn():
            check(run(*args, torch.cuda.current_stream().cuda_stream), op)
            return out

        fn.keepalive = (temp, values, offsets, out)
        fn.temp_bytes = size.value
        return fn
