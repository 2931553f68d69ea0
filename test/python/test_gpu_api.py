"""The GPU surface of the Python API, checked on a machine without a GPU:
emit_ptx, emit_mlir(stage="simt"), the CPU SIMT executor, and everything a
GPU launch decides before it reaches the driver (availability, devices,
streams, argument structs), with the driver call replaced by a recorder.
The real GPU runs are in test/gpu (run on a GPU machine by tools/gpu_run.sh).
"""

import struct
import sys
import types

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage import _native
from swage_testing import assert_same, run_with_fake_driver


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


@sw.jit
def block_sum_kernel(x_ptr, out_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    x = sl.load(x_ptr + pid * BLOCK + sl.arange(0, BLOCK))
    sl.store(out_ptr + pid, sl.sum(x))


ADD_SIGNATURE = {"x_ptr": "*f32", "y_ptr": "*f32", "output_ptr": "*f32", "n": "i32"}


# ---- PTX and the SIMT stage -------------------------------------------------------------

def test_emit_ptx_defaults_to_sm_90():
    ptx = add_kernel.emit_ptx(signature=ADD_SIGNATURE, constexprs={"BLOCK": 1024})
    assert ".entry add_kernel" in ptx
    assert ".target sm_90" in ptx
    assert ".version" in ptx and ".address_size 64" in ptx


def test_emit_ptx_for_another_target_and_from_arguments(rng):
    x = rng.random(10, dtype=np.float32)
    ptx = add_kernel.emit_ptx(arguments={"x_ptr": x, "y_ptr": x, "output_ptr": x.copy(), "n": 10},
                              constexprs={"BLOCK": 128}, sm=80)
    assert ".target sm_80" in ptx and ".entry add_kernel" in ptx


def test_emit_ptx_checks_its_arguments():
    with pytest.raises(TypeError, match="sm must be an int"):
        add_kernel.emit_ptx(signature=ADD_SIGNATURE, constexprs={"BLOCK": 128}, sm="sm_90")
    with pytest.raises(ValueError, match="compute capability"):
        add_kernel.emit_ptx(signature=ADD_SIGNATURE, constexprs={"BLOCK": 128}, sm=7)
    with pytest.raises(TypeError, match="either signature= or arguments="):
        add_kernel.emit_ptx(signature=ADD_SIGNATURE, arguments={}, constexprs={"BLOCK": 128})
    with pytest.raises(TypeError, match="emit_ptx needs signature"):
        add_kernel.emit_ptx(constexprs={"BLOCK": 128})


def test_emit_mlir_simt_stage():
    text = add_kernel.emit_mlir(signature=ADD_SIGNATURE, constexprs={"BLOCK": 256}, stage="simt")
    assert "simt.num_threads" in text
    assert "simt.thread_id" in text or "simt.tile_index" in text
    assert "sw.program_id" not in text  # replaced by simt.block_id at this level


def test_emit_mlir_names_the_stages():
    with pytest.raises(ValueError, match="'simt'"):
        add_kernel.emit_mlir(signature=ADD_SIGNATURE, constexprs={"BLOCK": 256}, stage="ptx")


@pytest.mark.parametrize("n, block", [(1, 128), (1000, 128), (4096, 1024), (0, 128)])
def test_simt_executor_matches_the_semantic_one(rng, n, block):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    outs = {}
    for executor in ("semantic", "simt"):
        out = np.full(n, np.nan, np.float32)
        result = add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                                   constexprs={"BLOCK": block},
                                   grid=((n + block - 1) // block,), executor=executor)
        assert result is None
        outs[executor] = out
    assert_same(outs["simt"], x + y, rng.seed, "simt executor x + y")
    assert_same(outs["simt"], outs["semantic"], rng.seed, "simt vs semantic")


def test_simt_executor_reductions_agree_within_rounding(rng):
    programs, block = 6, 256
    x = rng.standard_normal(programs * block).astype(np.float32)
    sums = {}
    for executor in ("semantic", "simt"):
        out = np.full(programs, np.nan, np.float32)
        block_sum_kernel.launch(arguments={"x_ptr": x, "out_ptr": out},
                                constexprs={"BLOCK": block}, grid=(programs,), executor=executor)
        sums[executor] = out
    rows = x.reshape(programs, block).astype(np.float64)
    bound = block * np.finfo(np.float32).eps * np.abs(rows).sum(axis=1)
    error = np.abs(sums["simt"].astype(np.float64) - rows.sum(axis=1))
    assert not np.isnan(sums["simt"]).any()
    assert (error <= bound).all(), "simt sums %s, exact %s" % (sums["simt"], rows.sum(axis=1))


def test_executor_must_be_known(rng):
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="executor must be 'semantic' or 'simt'"):
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": x, "output_ptr": x, "n": 4},
                          constexprs={"BLOCK": 128}, grid=(1,), executor="gpu")


# ---- GPU launches up to the driver call ---------------------------------------------------

class FakeDeviceArray:
    """Stands in for a CuPy/Numba device array: a __cuda_array_interface__."""

    def __init__(self, address, n, typestr="<f4", stream=None, strides=None, read_only=False):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "version": 3,
                                         "data": (address, read_only), "strides": strides,
                                         "stream": stream}


class Recorder:
    """Replaces the driver-facing calls; records what a launch would send:
    the general path's swage_arg structs, or the warm path's packed buffer
    (header decoded; `packed` keeps the bytes for the test to unpack)."""

    def __init__(self, monkeypatch, devices=None, reason=None):
        self.calls = []
        self.devices = devices or {}
        monkeypatch.setattr(_native, "cuda_unavailable_reason", lambda: reason)
        monkeypatch.setattr(_native, "launch_cuda", self.launch_cuda)
        monkeypatch.setattr(_native, "cuda_launch_packed", self.cuda_launch_packed)
        monkeypatch.setattr(_native, "pointer_device", self.pointer_device)

    def launch_cuda(self, kernel, device, stream, grid, args):
        self.calls.append({"kernel": kernel, "device": device, "stream": stream,
                           "grid": list(grid), "path": "general",
                           "args": [(a.kind, a.data or 0, a.nelems, a.i, a.f) for a in args]})

    def cuda_launch_packed(self, packed, error):
        assert error is None
        header = struct.unpack_from(_native.LAUNCH_HEADER, packed)
        kernel, stream, device, gx, gy, gz, size, reserved = header
        assert reserved == 0 and size == len(packed) - _native.LAUNCH_HEADER_SIZE
        self.calls.append({"kernel": kernel, "device": device, "stream": stream,
                           "grid": [gx, gy, gz], "path": "warm", "packed": packed})
        return 0

    def pointer_device(self, address):
        if address not in self.devices:
            raise ValueError("0x%x is not CUDA device memory" % address)
        return self.devices[address]


def unpack_params(call, types):
    """The runtime arguments of a warm-path call, given their signature types."""
    layout = _native.launch_struct(types)
    return layout.unpack(call["packed"])[8:]


def fake_add_args(n=100, stream=None, base=0x10000):
    return {"x_ptr": FakeDeviceArray(base, n, stream=stream),
            "y_ptr": FakeDeviceArray(base + 0x1000, n, stream=stream),
            "output_ptr": FakeDeviceArray(base + 0x2000, n, stream=stream), "n": n}


def test_gpu_launch_sends_device_pointers_scalars_grid_and_stream(monkeypatch):
    rec = Recorder(monkeypatch, {0x10000: 1, 0x11000: 1, 0x12000: 1})
    result = add_kernel.launch(arguments=fake_add_args(stream=0xABC), constexprs={"BLOCK": 64},
                               grid=(2,))
    assert result is None
    assert len(rec.calls) == 1
    call = rec.calls[0]
    assert call["device"] == 1 and call["stream"] == 0xABC and call["grid"] == [2, 1, 1]
    assert call["args"] == [(_native.ARG_BUFFER, 0x10000, 100, 0, 0.0),
                            (_native.ARG_BUFFER, 0x11000, 100, 0, 0.0),
                            (_native.ARG_BUFFER, 0x12000, 100, 0, 0.0),
                            (_native.ARG_INT, 0, 0, 100, 0.0)]


def test_gpu_launch_without_a_stream_uses_the_legacy_default_stream(monkeypatch):
    rec = Recorder(monkeypatch, {0x10000: 0, 0x11000: 0, 0x12000: 0})
    add_kernel.launch(arguments=fake_add_args(), constexprs={"BLOCK": 64}, grid=(2,))
    assert rec.calls[0]["stream"] == 0 and rec.calls[0]["device"] == 0


def test_gpu_launch_without_a_driver_says_why(monkeypatch):
    Recorder(monkeypatch, reason="libcuda.so.1 not found: no NVIDIA driver on this machine")
    with pytest.raises(RuntimeError) as info:
        add_kernel.launch(arguments=fake_add_args(), constexprs={"BLOCK": 64}, grid=(2,))
    text = str(info.value)
    assert "GPU execution is not available" in text and "libcuda.so.1 not found" in text
    assert "'x_ptr'" in text and "'output_ptr'" in text


def test_mixed_cpu_and_gpu_arrays_are_named(monkeypatch):
    Recorder(monkeypatch, {0x10000: 0, 0x11000: 0, 0x12000: 0})
    args = fake_add_args()
    args["y_ptr"] = np.zeros(100, np.float32)
    with pytest.raises(ValueError) as info:
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    text = str(info.value)
    assert "different devices" in text and "'y_ptr'" in text and "'x_ptr'" in text
    assert "CPU" in text


def test_arrays_on_two_gpus_are_named(monkeypatch):
    Recorder(monkeypatch, {0x10000: 0, 0x11000: 1, 0x12000: 0})
    with pytest.raises(ValueError) as info:
        add_kernel.launch(arguments=fake_add_args(), constexprs={"BLOCK": 64}, grid=(2,))
    text = str(info.value)
    assert "'x_ptr' is on cuda:0" in text and "'y_ptr' is on cuda:1" in text


def test_a_pointer_that_is_not_device_memory_is_named(monkeypatch):
    Recorder(monkeypatch, {0x10000: 0, 0x12000: 0})  # y's pointer is unknown to the "driver"
    with pytest.raises(ValueError, match="'y_ptr'.*not CUDA device memory"):
        add_kernel.launch(arguments=fake_add_args(), constexprs={"BLOCK": 64}, grid=(2,))


def test_simt_executor_is_for_cpu_arguments(monkeypatch):
    Recorder(monkeypatch, {0x10000: 0, 0x11000: 0, 0x12000: 0})
    with pytest.raises(ValueError, match="executor='simt' runs on the CPU"):
        add_kernel.launch(arguments=fake_add_args(), constexprs={"BLOCK": 64}, grid=(2,),
                          executor="simt")


@pytest.mark.parametrize("change, error, pattern", [
    ({"strides": (8,)}, ValueError, "not C-contiguous"),
    ({"read_only": True}, TypeError, "read-only"),
    ({"stream": 0}, ValueError, "nonzero stream"),
    ({"typestr": "<c8"}, TypeError, "element type"),
])
def test_cuda_array_interface_checks(monkeypatch, change, error, pattern):
    Recorder(monkeypatch, {0x10000: 0, 0x11000: 0, 0x12000: 0})
    args = fake_add_args()
    args["x_ptr"] = FakeDeviceArray(0x10000, 100, **change)
    with pytest.raises(error, match=pattern):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))


def test_cuda_array_interface_strides_of_a_contiguous_array_are_fine(monkeypatch):
    rec = Recorder(monkeypatch, {0x10000: 0, 0x11000: 0, 0x12000: 0})
    args = fake_add_args()
    args["x_ptr"] = FakeDeviceArray(0x10000, 100, strides=(4,))
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    assert len(rec.calls) == 1


def test_empty_device_arrays_need_no_device_query(monkeypatch):
    rec = Recorder(monkeypatch, {})
    args = {"x_ptr": FakeDeviceArray(0, 0), "y_ptr": FakeDeviceArray(0, 0),
            "output_ptr": FakeDeviceArray(0, 0), "n": 0}
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(0,))
    assert rec.calls[0]["grid"] == [0, 1, 1]


# A stand-in for torch, enough for the argument and stream logic.
class _FakeDevice:
    def __init__(self, type_, index):
        self.type, self.index = type_, index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


def _fake_torch(streams):
    torch = types.ModuleType("torch")

    class Tensor:
        def __init__(self, address, n, device, dtype="torch.float32", contiguous=True):
            self.address, self.n, self.dtype = address, n, dtype
            self.device = _FakeDevice(*device)
            self._contiguous = contiguous

        def is_contiguous(self):
            return self._contiguous

        def data_ptr(self):
            return self.address

        def numel(self):
            return self.n

        def get_device(self):
            return self.device.index if self.device.type == "cuda" else -1

        @property
        def is_cuda(self):
            return self.device.type == "cuda"

    torch.Tensor = Tensor
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: streams[device])
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
    return torch


def test_torch_cuda_tensors_launch_on_the_current_stream_of_their_device(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0x500, 1: 0x501})
    monkeypatch.setitem(sys.modules, "torch", torch)
    args = {"x_ptr": torch.Tensor(0x1000, 8, ("cuda", 1)),
            "y_ptr": torch.Tensor(0x2000, 8, ("cuda", 1)),
            "output_ptr": torch.Tensor(0x3000, 8, ("cuda", 1)), "n": 8}
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,))
    assert rec.calls[0]["device"] == 1 and rec.calls[0]["stream"] == 0x501
    assert [a[1] for a in rec.calls[0]["args"][:3]] == [0x1000, 0x2000, 0x3000]


def test_torch_tensor_dtypes_and_checks(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0})
    monkeypatch.setitem(sys.modules, "torch", torch)

    def args(dtype="torch.float32", contiguous=True, device=("cuda", 0)):
        return {"x_ptr": torch.Tensor(0x1000, 8, device, dtype, contiguous),
                "y_ptr": torch.Tensor(0x2000, 8, ("cuda", 0), dtype),
                "output_ptr": torch.Tensor(0x3000, 8, ("cuda", 0), dtype), "n": 8}

    for dtype in ("torch.bfloat16", "torch.float16", "torch.float64"):
        add_kernel.launch(arguments=args(dtype), constexprs={"BLOCK": 64}, grid=(1,))
    assert len(rec.calls) == 3
    sig = add_kernel.emit_mlir(arguments=args("torch.bfloat16"), constexprs={"BLOCK": 64})
    assert "!sw.ptr<bf16>" in sig
    with pytest.raises(ValueError, match="'x_ptr' is not contiguous"):
        add_kernel.launch(arguments=args(contiguous=False), constexprs={"BLOCK": 64}, grid=(1,))
    with pytest.raises(TypeError, match="'x_ptr' has dtype torch.complex64"):
        add_kernel.launch(arguments=args("torch.complex64"), constexprs={"BLOCK": 64}, grid=(1,))
    with pytest.raises(ValueError, match="different devices"):
        add_kernel.launch(arguments=args(device=("cpu", None)), constexprs={"BLOCK": 64},
                          grid=(1,))


def test_a_library_without_gpu_entry_points_says_rebuild(monkeypatch):
    monkeypatch.setitem(_native._optional, "swageKernelLaunchCuda", None)
    monkeypatch.setattr(_native, "_cuda_checked", False)
    monkeypatch.setattr(_native, "_cuda_reason", None)
    assert "rebuild" in _native.cuda_unavailable_reason()
    with pytest.raises(RuntimeError, match="no swageKernelLaunchCuda.*rebuild"):
        _native.launch_cuda(0, 0, 0, [1, 1, 1], [])


def test_cuda_availability_is_a_sentence_or_none():
    reason = _native.cuda_unavailable_reason()
    assert reason is None or (isinstance(reason, str) and len(reason) > 10)


def test_warm_launches_take_the_fast_path_with_the_same_arguments(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0x700})
    monkeypatch.setitem(sys.modules, "torch", torch)

    @sw.jit
    def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: sl.constexpr):
        offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
        mask = offsets < n
        sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)

    def launch(x_dtype="torch.float32", n=8, factor=2.5, constexprs=None, grid=(1,)):
        x = torch.Tensor(0x1000, n, ("cuda", 0), x_dtype)
        out = torch.Tensor(0x2000, n, ("cuda", 0), "torch.float32")
        scale_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n, "factor": factor},
                            constexprs=constexprs or {"BLOCK": 64}, grid=grid)

    launch()
    launch(n=9, factor=-1.0, grid=(2,))
    assert [c["path"] for c in rec.calls] == ["general", "warm"]
    first, second = rec.calls
    assert first["kernel"] == second["kernel"] and second["stream"] == 0x700
    assert second["grid"] == [2, 1, 1] and second["device"] == 0
    assert unpack_params(second, ["*f32", "*f32", "i32", "f32"]) == (0x1000, 0x2000, 9, -1.0)
    assert first["args"][3] == (_native.ARG_FLOAT, 0, 0, 0, 2.5)
    launch(grid=(3, 2, 1))
    launch(grid=5)
    assert [c["grid"] for c in rec.calls[2:]] == [[3, 2, 1], [5, 1, 1]]
    assert [c["path"] for c in rec.calls[2:]] == ["warm", "warm"]
    del rec.calls[2:]
    # anything that changes the specialisation goes through the general path first
    launch(x_dtype="torch.float16")                    # another dtype
    launch(constexprs={"BLOCK": 128})                  # another constexpr value
    launch(n=1 << 40)                                  # an int64 scalar
    launch(factor=3)                                   # an int where a float was
    launch(grid=[1])                                   # a list grid
    paths = [c["path"] for c in rec.calls[2:]]
    assert paths == ["general"] * 5, paths
    kernels = {c["kernel"] for c in rec.calls}
    assert len(kernels) == 5  # f32, f16, BLOCK=128, n:i64, factor:i32 (the list grid reuses f32)
    launch(x_dtype="torch.float16")
    assert rec.calls[-1]["path"] == "warm" and rec.calls[-1]["kernel"] == rec.calls[2]["kernel"]
    launch(constexprs={"BLOCK": 128})                  # back to another seen specialisation
    assert rec.calls[-1]["path"] == "warm" and rec.calls[-1]["kernel"] == rec.calls[3]["kernel"]
    launch()
    assert rec.calls[-1]["path"] == "warm" and rec.calls[-1]["kernel"] == rec.calls[0]["kernel"]


def test_warm_entry_is_the_kernels_launch_and_falls_back_to_the_general_path(monkeypatch):
    """Once warm, `kernel.launch` is the generated entry itself; a call it
    cannot take (another executor, unsafe, a positional argument, a bad
    grid) gets the general path's behaviour, and a caller holding the method
    from before still takes the warm path."""
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0x900})
    monkeypatch.setitem(sys.modules, "torch", torch)

    @sw.jit
    def copy_kernel(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
        offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
        mask = offsets < n
        sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask), mask=mask)

    method = copy_kernel.launch
    assert "launch" not in vars(copy_kernel)
    args = {"x_ptr": torch.Tensor(0x1000, 8, ("cuda", 0)),
            "out_ptr": torch.Tensor(0x2000, 8, ("cuda", 0)), "n": 8}
    copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,))
    entry = vars(copy_kernel).get("launch")
    assert entry is not None and entry is copy_kernel.launch
    assert entry.__doc__ == sw.JITFunction.launch.__doc__
    assert copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,)) is None
    method(arguments=args, constexprs={"BLOCK": 64}, grid=(1,))  # the bound method from before
    assert [c["path"] for c in rec.calls] == ["general", "warm", "warm"]
    with pytest.raises(TypeError, match="keyword arguments only"):
        copy_kernel.launch(args)
    with pytest.raises(ValueError, match="executor must be 'semantic' or 'simt'"):
        copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,), executor="gpu")
    with pytest.raises(TypeError, match="unsafe must be True or False"):
        copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,), unsafe=1)
    with pytest.raises(ValueError, match="schedule="):
        copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1,), schedule="warp")
    with pytest.raises((TypeError, ValueError), match="grid"):
        copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(1, 2, 3, 4))
    # an equal string that is another object is still the default: the general path takes it
    auto = "".join(["au", "to"])
    assert auto == "auto" and auto is not "auto"  # noqa: F632
    copy_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,), schedule=auto)
    assert [c["path"] for c in rec.calls[3:]] == ["general"]
    assert rec.calls[-1]["grid"] == [2, 1, 1]


@sw.jit
def scale_by_constexpr(x_ptr, out_ptr, n, BLOCK: sl.constexpr, K: sl.constexpr = 1):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * K, mask=mask)


def test_warm_path_tells_equal_constexprs_of_other_types_apart(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0})
    monkeypatch.setitem(sys.modules, "torch", torch)
    args = {"x_ptr": torch.Tensor(0x1000, 8, ("cuda", 0)),
            "out_ptr": torch.Tensor(0x2000, 8, ("cuda", 0)), "n": 8}
    values = [2, 2.0, True, 1, 1.0, 0.0, -0.0, None]  # None: K left out (its default, 1)
    for value in values * 2:
        cx = {"BLOCK": 64} if value is None else {"BLOCK": 64, "K": value}
        scale_by_constexpr.launch(arguments=args, constexprs=cx, grid=(1,))
    first, second = rec.calls[:len(values)], rec.calls[len(values):]
    assert [c["path"] for c in first] == ["general"] * len(values)
    # each value its own specialisation; float zeros always take the general path
    assert len({c["kernel"] for c in first}) == len(values)
    assert [c["kernel"] for c in first] == [c["kernel"] for c in second]
    assert [c["path"] for c in second] == ["warm"] * 5 + ["general"] * 2 + ["warm"]


def test_warm_path_declines_what_it_cannot_prove(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0, 1: 0})
    monkeypatch.setitem(sys.modules, "torch", torch)

    def args(n=8, **change):
        a = {"x_ptr": torch.Tensor(0x1000, n, ("cuda", 0)),
             "y_ptr": torch.Tensor(0x2000, n, ("cuda", 0)),
             "output_ptr": torch.Tensor(0x3000, n, ("cuda", 0)), "n": n}
        a.update(change)
        return a

    def launch(arguments, constexprs={"BLOCK": 64}, grid=(1,)):
        add_kernel.launch(arguments=arguments, constexprs=constexprs, grid=grid)
        return rec.calls[-1]["path"]

    assert launch(args()) == "general"
    assert launch(args()) == "warm"
    assert launch(args(n=1 << 33)) == "general"       # an int64: another specialisation
    assert launch(args()) == "warm"
    assert launch(args(), grid=[1]) == "general"
    n_calls = len(rec.calls)
    # the warm path leaves these to the general path, which names the problem
    with pytest.raises(ValueError, match="grid axis 0 is 4294967296"):
        launch(args(), grid=(1 << 32,))
    with pytest.raises(ValueError, match="grid axis 0 is -1"):
        launch(args(), grid=-1)
    with pytest.raises(TypeError, match="not bool"):
        launch(args(), grid=(True,))
    with pytest.raises(ValueError, match="1 to 3 axes"):
        launch(args(), grid=(1, 1, 1, 1))
    with pytest.raises(TypeError, match="missing constexpr 'BLOCK'"):
        launch(args(), constexprs=None)
    assert len(rec.calls) == n_calls
    # a CPU tensor where a CUDA one was, on the same "device index"
    cpu = torch.Tensor(0x4000, 8, ("cpu", None))
    with pytest.raises(ValueError, match="different devices"):
        launch(args(y_ptr=cpu))
    n_calls = len(rec.calls)
    with pytest.raises(TypeError, match="has no parameter 'z'"):
        launch(dict(args(), z=1))
    with pytest.raises(TypeError, match="has no parameter 'TAG'"):
        launch(args(), constexprs={"BLOCK": 64, "TAG": 1})
    with pytest.raises(TypeError, match="keyword arguments only"):
        add_kernel.launch(args(), constexprs={"BLOCK": 64}, grid=(1,))
    assert len(rec.calls) == n_calls
    assert launch(args()) == "warm"


def test_warm_path_keeps_the_checks(monkeypatch):
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0, 1: 0})
    monkeypatch.setitem(sys.modules, "torch", torch)

    def args(x_device=("cuda", 0), contiguous=True):
        return {"x_ptr": torch.Tensor(0x1000, 8, x_device, contiguous=contiguous),
                "y_ptr": torch.Tensor(0x2000, 8, ("cuda", 0)),
                "output_ptr": torch.Tensor(0x3000, 8, ("cuda", 0)), "n": 8}

    add_kernel.launch(arguments=args(), constexprs={"BLOCK": 64}, grid=(1,))
    add_kernel.launch(arguments=args(), constexprs={"BLOCK": 64}, grid=(1,))
    assert rec.calls[-1]["path"] == "warm"
    with pytest.raises(ValueError, match="different GPUs"):
        add_kernel.launch(arguments=args(("cuda", 1)), constexprs={"BLOCK": 64}, grid=(1,))
    with pytest.raises(ValueError, match="not contiguous"):
        add_kernel.launch(arguments=args(contiguous=False), constexprs={"BLOCK": 64}, grid=(1,))
    with pytest.raises(ValueError, match="grid axis 0 is -1"):
        add_kernel.launch(arguments=args(), constexprs={"BLOCK": 64}, grid=(-1,))
    with pytest.raises(TypeError, match="missing argument 'n'"):
        add_kernel.launch(arguments={k: v for k, v in args().items() if k != "n"},
                          constexprs={"BLOCK": 64}, grid=(1,))
    assert len(rec.calls) == 2


# ---- the real launch path against a fake driver ------------------------------------------

@sw.jit
def affine_kernel(x_ptr, out_ptr, n, a, b, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * a + b, mask=mask)


FAKE_DRIVER_CHILD = r'''
import ctypes, os, struct, sys, threading
import pytest
import swage as sw
from swage import _native
import test_gpu_api as t

from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
ctx = [ctypes.c_void_p(), ctypes.c_void_p()]
for i in range(2):
    driver.cuDevicePrimaryCtxRetain(ctypes.byref(ctx[i]), i)
torch = t._fake_torch({0: 0x5000, 1: 0x5001})
sys.modules["torch"] = torch
assert _native.cuda_unavailable_reason() is None

def tensors(device, n=100):
    return {"x_ptr": torch.Tensor(0x1000, n, ("cuda", device)),
            "y_ptr": torch.Tensor(0x2000, n, ("cuda", device)),
            "output_ptr": torch.Tensor(0x3000, n, ("cuda", device))}

def add(device, n, grid=(2,)):
    t.add_kernel.launch(arguments=dict(tensors(device), n=n), constexprs={"BLOCK": 64}, grid=grid)

def params(count):
    return [state.params[i] for i in range(count)]

state.nparams_recorded = 4     # add_kernel's parameters
add(1, 100)                      # the general path: loads the module on device 1
assert (state.launches, state.module_loads, state.pushes, state.pops) == (1, 1, 2, 2)
assert state.launches_ex == 0    # a plain kernel is never a programmatic dependent launch
assert list(state.grid) == [2, 1, 1] and state.block[0] >= 1 and state.smem == 0
assert state.stream == 0x5001 and state.context == ctx[1].value
assert params(3) == [0x1000, 0x2000, 0x3000] and params(4)[3] & 0xFFFFFFFF == 100
add(1, 50, grid=(3, 1, 2))       # the warm path: no lock, no load, a push (nothing current)
assert (state.launches, state.module_loads, state.pushes) == (2, 1, 3)
assert list(state.grid) == [3, 1, 2] and params(4)[3] & 0xFFFFFFFF == 50
driver.cuCtxSetCurrent(ctx[1])   # what PyTorch does: then a launch pushes nothing
gets = state.get_currents
add(1, 7)
assert (state.launches, state.pushes, state.pops) == (3, 3, 3)
assert state.get_currents == gets + 1 and state.context == ctx[1].value
add(0, 9)                        # another device: its module, its context pushed
assert (state.launches, state.module_loads, state.pushes) == (4, 2, 5)  # load, launch
assert state.context == ctx[0].value and state.stream == 0x5000
assert params(4)[3] & 0xFFFFFFFF == 9

# num_warps sets the CTA: its own specialisation (a module load), 32 x num_warps
# threads on both paths, and the default's CTA again without it
default_block = state.block[0]
def add_warps(num_warps, n=9):
    t.add_kernel.launch(arguments=dict(tensors(0), n=n), constexprs={"BLOCK": 64}, grid=(2,),
                        num_warps=num_warps)
loads = state.module_loads
add_warps(8)                     # general
assert state.block[0] == 256 and state.module_loads == loads + 1
add_warps(8, n=5)                # warm
assert state.block[0] == 256 and params(4)[3] & 0xFFFFFFFF == 5
add_warps(2)
assert state.block[0] == 64 and state.module_loads == loads + 2
add(0, 9)
assert state.block[0] == default_block
add_warps(8)
assert state.block[0] == 256 and state.module_loads == loads + 2

# scalars as the PTX parameters declare them (general path: an i64 scalar)
x = {"x_ptr": torch.Tensor(0x1000, 8, ("cuda", 1)), "out_ptr": torch.Tensor(0x2000, 8, ("cuda", 1))}
state.nparams_recorded = 5     # affine_kernel's
t.affine_kernel.launch(arguments=dict(x, n=8, a=2.5, b=1 << 40), constexprs={"BLOCK": 64},
                       grid=(1,))
p = params(5)
assert p[2] & 0xFFFFFFFF == 8 and struct.unpack("f", struct.pack("I", p[3] & 0xFFFFFFFF))[0] == 2.5
assert p[4] == 1 << 40
t.affine_kernel.launch(arguments=dict(x, n=8, a=-1.5, b=3), constexprs={"BLOCK": 64}, grid=(1,))
t.affine_kernel.launch(arguments=dict(x, n=6, a=0.25, b=-3), constexprs={"BLOCK": 64}, grid=(1,))
p = params(5)
assert p[2] & 0xFFFFFFFF == 6 and struct.unpack("f", struct.pack("I", p[3] & 0xFFFFFFFF))[0] == 0.25
assert struct.unpack("i", struct.pack("I", p[4] & 0xFFFFFFFF))[0] == -3

# driver errors, on both paths, with the driver's name for them
state.nparams_recorded = 4
state.launch_result = 700
for grid in [(1,), [1]]:         # warm, general
    with pytest.raises(RuntimeError, match="CUDA_ERROR_ILLEGAL_ADDRESS in cuLaunchKernel"):
        add(1, 5, grid=grid)
state.launch_result = 0
assert _native._take_last_error() is None  # taken by the warm path's error

# a grid past the device's limit, on the warm path: the runtime's message
with pytest.raises(ValueError, match="axis 1 must be in 0..65535"):
    add(1, 5, grid=(1, 65536))

# an empty grid launches nothing
launches = state.launches
add(1, 5, grid=(0,))
add(1, 5, grid=[2, 0])
assert state.launches == launches

# a packed buffer that does not fit the kernel is refused
kernel = next(iter(t.add_kernel._warm.values())).kernels
kernel = next(iter(kernel.values()))
wrong = _native.launch_struct(["*f32", "*f32", "i32"])
buffer = wrong.pack(kernel, 0, 1, 1, 1, 1, wrong.size - 40, 0, 1, 2, 3)
status = _native.cuda_launch_packed(buffer, None)
with pytest.raises(ValueError, match="packed parameters of add_kernel are 20 bytes"):
    _native.raise_last_error(status)

# warm launches from several threads at once (each pushes: nothing is current there)
launches = state.launches
def work():
    for i in range(500):
        add(i % 2, 1 + i % 5)
threads = [threading.Thread(target=work) for _ in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
assert state.launches == launches + 2000 and state.pushes == state.pops
print("fake driver checks passed")
'''


def test_launch_path_against_a_fake_driver(tmp_path):
    """Everything after Python, through the real C library: warm and general
    launches, parameter packing, contexts pushed only when not current,
    several devices, driver errors, threads (test/python/fake_libcuda.c)."""
    run_with_fake_driver(tmp_path, FAKE_DRIVER_CHILD, "fake driver checks passed")


# the parameter-count probe (src/runtime/cuda_runtime.c, count_params)

PARAM_COUNT_CHILD = r'''
import ctypes, os, sys
import test_gpu_api as t

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
torch = t._fake_torch({0: 0x5000, 1: 0x5001})
sys.modules["torch"] = torch

def counter(name):
    return ctypes.c_long.in_dll(driver, name).value

def add(n):
    arrays = {name: torch.Tensor(address, n, ("cuda", 0))
              for name, address in (("x_ptr", 0x1000), ("y_ptr", 0x2000), ("output_ptr", 0x3000))}
    t.add_kernel.launch(arguments=dict(arrays, n=n), constexprs={"BLOCK": 64}, grid=(2,))

EXPECT = %r
if EXPECT == "mismatch":
    try:
        add(100)
    except Exception as e:
        assert "takes 3 parameters but the launch gives 4" in str(e), e
    else:
        raise AssertionError("a launch of 4 parameters to a kernel of 3 did not fail")
else:
    add(100)
    add(50)
    got = tuple(counter(name) for name in ("fake_param_count_calls", "fake_param_info_calls",
                                           "fake_param_info_errors"))
    assert got == EXPECT, got
print("param count checks passed")
'''


@pytest.mark.parametrize("defines, expect", [
    # the driver counts: one call per function loaded, none that fails
    (("FAKE_PARAMS=4",), (1, 0, 0)),
    # an older driver: parameters 0..3, then 4 fails (the expected API error)
    (("FAKE_PARAMS=4", "FAKE_NO_PARAM_COUNT"), (0, 5, 1)),
    # either way the count is checked at each launch
    (("FAKE_PARAMS=3",), "mismatch"),
    (("FAKE_PARAMS=3", "FAKE_NO_PARAM_COUNT"), "mismatch"),
])
def test_the_parameter_count_probe(tmp_path, defines, expect):
    """A kernel's parameters are counted once, when its module loads: with
    cuFuncGetParamCount where the driver has it (no call fails), else by
    asking cuFuncGetParamInfo for each index until one fails; a launch that
    passes another number is an internal error (test/python/fake_libcuda.c
    built with -DFAKE_PARAMS)."""
    run_with_fake_driver(tmp_path, PARAM_COUNT_CHILD % (expect,), "param count checks passed",
                         defines=defines)
