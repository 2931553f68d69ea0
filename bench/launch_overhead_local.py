#!/usr/bin/env python3
"""Host launch overhead of Swage without a GPU: Python + ctypes + C.

Runs the vector add's warm `kernel.launch(...)` against a fake CUDA driver
(test/python/fake_libcuda.c, built here with cc and loaded through
$SWAGE_LIBCUDA: cuLaunchKernel returns at once) and "CUDA tensors" that are
either real PyTorch CPU tensors whose is_cuda, get_device() and current
stream are patched to look like device 0 (--torch real, the default when
torch imports: their other attributes cost what they cost on the GPU), or a
small fake torch module (--torch fake). What it reports, per launch (best
of --repeats rounds of --launches launches):

  launch        kernel.launch(arguments=..., constexprs=..., grid=...), all of it
  c_call        the packed C entry (swageKernelLaunchCudaPacked) called by
                ctypes with a prebuilt buffer: ctypes + C + the fake driver
  python        kernel.launch with that C call replaced by a no-op: Python only
  caller        building the arguments dict, the constexprs dict and the grid
                tuple (paid by the caller, inside `launch` above)

By default PyTorch's situation is mimicked: the device's primary context is
current on the thread, so a launch makes no cuCtxPushCurrent/PopCurrent
(--no-current-context measures the push/pop path). The real driver's own
cost (cuLaunchKernel, about 2-3 us on an H200) comes on top; bench/vector_add.py
measures the whole thing on the GPU.

    python3 bench/launch_overhead_local.py [--torch fake] [--json out.json]
"""

import argparse
import ctypes
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import types

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_DRIVER_SOURCE = os.path.join(REPO, "test", "python", "fake_libcuda.c")
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))

import swage as sw  # noqa: E402  (the driver loads at the first launch, after main sets it)
import swage.language as sl  # noqa: E402
from swage import _native  # noqa: E402


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


def build_fake_driver(directory):
    path = os.path.join(directory, "libfakecuda.so")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", path,
                    FAKE_DRIVER_SOURCE], check=True)
    return path


def fake_torch_module():
    """Just enough of torch for the warm paths (grid and segment programs):
    Tensor, dtypes, torch.device, torch.empty, the current stream. Returns
    the module and a maker of three float32 tensors of n elements."""
    torch = types.ModuleType("torch")

    class dtype:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return "torch." + self.name

        __repr__ = __str__

    class Device:
        __slots__ = ("type", "index")

        def __init__(self, type_, index=None):
            self.type, self.index = type_, index

    class Tensor:
        __slots__ = ("_address", "_n", "dtype")

        def __init__(self, address, n, dtype_):
            self._address, self._n, self.dtype = address, n, dtype_

        def data_ptr(self):
            return self._address

        def numel(self):
            return self._n

        def dim(self):
            return 1

        def get_device(self):
            return 0

        def is_contiguous(self):
            return True

        is_cuda = True
        device = Device("cuda", 0)

    for name in ("float32", "int32", "int64", "uint8"):
        setattr(torch, name, dtype(name))

    def empty(n, dtype=None, device=None):
        return Tensor(0x7000000, n, dtype)

    torch.Tensor, torch.device, torch.empty, torch.zeros = Tensor, Device, empty, empty
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
    torch.__version__ = "fake"
    sys.modules["torch"] = torch
    return torch, lambda n: [Tensor(0x10000 * (i + 1), n, torch.float32) for i in range(3)]


def real_torch_module():
    """PyTorch itself, with CPU tensors made to look like CUDA tensors of
    device 0: is_cuda, device and get_device() become Python-level stand-ins
    (a few tens of ns slower than the real C ones) and the current stream is 0."""
    import torch
    cuda0 = types.SimpleNamespace(type="cuda", index=0)
    torch.Tensor.is_cuda = property(lambda self: True)
    torch.Tensor.device = property(lambda self: cuda0)
    torch.Tensor.get_device = lambda self: 0
    torch._C._cuda_getCurrentRawStream = lambda device: 0
    return torch, lambda n: [torch.zeros(n) for _ in range(3)]


def best_us(fn, launches, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(launches):
            fn()
        best = min(best, (time.perf_counter() - t0) / launches * 1e6)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torch", choices=["auto", "real", "fake"], default="auto")
    parser.add_argument("--launches", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-current-context", action="store_true",
                        help="leave no context current (each launch pushes and pops)")
    parser.add_argument("--json", help="write the results here")
    options = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="swage-fake-cuda-")
    driver_path = build_fake_driver(directory)
    os.environ["SWAGE_LIBCUDA"] = driver_path
    which = options.torch
    if which == "auto":
        which = "real" if importlib.util.find_spec("torch") is not None else "fake"
    torch, make_tensors = real_torch_module() if which == "real" else fake_torch_module()

    driver = ctypes.CDLL(driver_path)
    if not options.no_current_context:  # what PyTorch does on its threads
        ctx = ctypes.c_void_p()
        driver.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
        driver.cuCtxSetCurrent(ctx)

    n, block = 1024, 1024
    x, y, out = make_tensors(n)
    add = add_kernel

    def launch():
        add.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                   constexprs={"BLOCK": block}, grid=(1,))

    launch()  # compiles, loads the "module", and makes the warm path
    result = {"benchmark": "launch_overhead_local", "torch": which,
              "torch_version": getattr(torch, "__version__", "?"), "python": sys.version.split()[0],
              "libswage": _native.library_path, "current_context": not options.no_current_context,
              "launches": options.launches, "repeats": options.repeats}
    result["launch_us"] = best_us(launch, options.launches, options.repeats)

    fake = getattr(_native, "cuda_launch_packed", None)
    launchers = getattr(add, "_warm", None)
    warm = next(iter(launchers.values()), None) if isinstance(launchers, dict) else None
    if fake is not None and getattr(warm, "kernels", None):
        kernel = next(iter(warm.kernels.values()))
        layout = _native.launch_struct(["*f32", "*f32", "*f32", "i32"])
        buffer = layout.pack(kernel, 0, 0, 1, 1, 1, layout.size - _native.LAUNCH_HEADER_SIZE, 0,
                             x.data_ptr(), y.data_ptr(), out.data_ptr(), n)
        result["c_call_us"] = best_us(lambda: fake(buffer, None), options.launches,
                                      options.repeats)
        _native.cuda_launch_packed = lambda buffer, error: 0
        try:
            result["python_us"] = best_us(launch, options.launches, options.repeats)
        finally:
            _native.cuda_launch_packed = fake
    result["caller_us"] = best_us(
        lambda: ({"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n}, {"BLOCK": block}, (1,)),
        options.launches, options.repeats)

    class State(ctypes.Structure):
        _fields_ = [(name, ctypes.c_long) for name in
                    ("launches", "pushes", "pops", "get_currents", "module_loads", "attributes")]
    state = State.in_dll(driver, "fake_state")
    result["driver_calls"] = {name: getattr(state, name) for name, _ in State._fields_}

    print("Swage launch overhead without a GPU (fake driver, %s torch, Python %s)"
          % (which, result["python"]))
    for name, label in [("launch_us", "kernel.launch, all of it"),
                        ("c_call_us", "  ctypes + C + fake driver (prepacked buffer)"),
                        ("python_us", "  Python (C call replaced by a no-op)"),
                        ("caller_us", "  of which the caller's dicts and grid tuple")]:
        if name in result:
            print("  %-48s %6.3f us" % (label, result[name]))
    calls = result["driver_calls"]
    print("  driver calls: %d launches, %d pushes, %d pops, %d cuCtxGetCurrent, %d module loads"
          % (calls["launches"], calls["pushes"], calls["pops"], calls["get_currents"],
             calls["module_loads"]))
    if options.json:
        with open(options.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
