"""GPU launches beyond PyTorch tensors on cuda:0: __cuda_array_interface__
objects (CuPy), a second GPU, arguments on mixed devices, and errors from
the launch path (grid limits, bad arguments) that must arrive as Python
exceptions naming what is wrong, leaving the GPU usable; Triton's launch
form with a grid function of the meta-parameters, and
@sw.jit(do_not_specialize=..., debug=...) kernels, on the GPU.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw
import swage.language as sl
import test_triton_launch as launches  # noqa: E402  (test/python)


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


@sw.jit
def grid_2d_kernel(out_ptr, width):
    sl.store(out_ptr + sl.program_id(1) * width + sl.program_id(0), sl.program_id(0) * 7 +
             sl.program_id(1))


def launch_add(x, y, out, n, block=256):
    return add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                             constexprs={"BLOCK": block}, grid=((n + block - 1) // block,))


def test_cupy_arrays_through_cuda_array_interface(rng):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed on this machine")
    n = 10000
    x = cupy.asarray(rng.standard_normal(n).astype("float32"))
    y = cupy.asarray(rng.standard_normal(n).astype("float32"))
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    assert launch_add(x, y, out, n) is None
    cupy.cuda.Device().synchronize()
    assert bool((out == x + y).all()), "CuPy result differs"


def test_cupy_arrays_on_a_cupy_stream(rng):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed on this machine")
    n = 1 << 16
    source = cupy.asarray(rng.standard_normal(n).astype("float32"))
    y = cupy.asarray(rng.standard_normal(n).astype("float32"))
    x = cupy.full(n, cupy.nan, dtype=cupy.float32)
    out = cupy.full(n, cupy.nan, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        x[...] = source                      # queued on `stream`
        launch_add(x, y, out, n)             # CAI 'stream' is CuPy's current stream
    stream.synchronize()
    assert bool((out == source + y).all()), "launch did not follow CuPy's stream"


def test_cupy_and_torch_together(rng):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed on this machine")
    n = 4096
    x = torch.randn(n, device="cuda")
    y = cupy.asarray(rng.standard_normal(n).astype("float32"))
    out = torch.full((n,), float("nan"), device="cuda")
    torch.cuda.synchronize()
    launch_add(x, y, out, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x + torch.as_tensor(y, device="cuda"))


def test_tensors_on_the_second_gpu(rng):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs; this machine has %d" % torch.cuda.device_count())
    n = 5000
    x = torch.randn(n, device="cuda:1")
    y = torch.randn(n, device="cuda:1")
    out = torch.full_like(x, float("nan"))
    with torch.cuda.device(0):  # the current device is not the tensors' device
        launch_add(x, y, out, n)
    torch.cuda.synchronize(1)
    assert torch.equal(out, x + y)
    side = torch.cuda.Stream(device=1)
    with torch.cuda.stream(side):
        out.fill_(float("nan"))
        launch_add(x, y, out, n)
    side.synchronize()
    assert torch.equal(out, x + y)
    with pytest.raises(ValueError) as info:
        launch_add(x, torch.randn(n, device="cuda:0"), out, n)
    assert "'x_ptr' is on cuda:1" in str(info.value) and "'y_ptr' is on cuda:0" in str(info.value)


def test_mixed_cpu_and_gpu_arguments_are_named():
    x = torch.randn(100, device="cuda")
    with pytest.raises(ValueError) as info:
        launch_add(x, torch.randn(100), torch.empty_like(x), 100)
    text = str(info.value)
    assert "'y_ptr'" in text and "'x_ptr'" in text and "different devices" in text


def test_bad_tensors_are_named():
    x = torch.randn(200, device="cuda")
    with pytest.raises(ValueError, match="'x_ptr' is not contiguous"):
        launch_add(x[::2], x[:100], torch.empty(100, device="cuda"), 100)
    with pytest.raises(TypeError, match="'y_ptr' has dtype torch.complex64"):
        launch_add(x, x.to(torch.complex64), torch.empty_like(x), 200)


def test_grid_beyond_the_device_limit_is_an_error_and_the_gpu_still_works():
    out = torch.zeros(4, dtype=torch.int32, device="cuda")
    with pytest.raises((ValueError, RuntimeError)) as info:
        grid_2d_kernel.launch(arguments={"out_ptr": out, "width": 2}, grid=(1, 65536))
    text = str(info.value)
    assert "grid" in text and "65535" in text and "grid_2d_kernel" in text, text
    # the failed launch left nothing behind: the next launch works
    grid_2d_kernel.launch(arguments={"out_ptr": out, "width": 2}, grid=(2, 2))
    torch.cuda.synchronize()
    assert out.tolist() == [0, 7, 1, 8]


def test_program_ids_on_2d_and_3d_grids():
    width, height = 300, 70
    out = torch.full((height * width,), -1, dtype=torch.int32, device="cuda")
    grid_2d_kernel.launch(arguments={"out_ptr": out, "width": width}, grid=(width, height))
    torch.cuda.synchronize()
    i = torch.arange(width, device="cuda", dtype=torch.int32)
    j = torch.arange(height, device="cuda", dtype=torch.int32)
    expected = (i[None, :] * 7 + j[:, None]).reshape(-1)
    assert torch.equal(out, expected)


def test_a_kernel_error_is_reported_with_the_kernel_name_not_a_crash():
    # A scalar where the kernel has a pointer: a compile error, before any driver call.
    with pytest.raises(sw.CompileError):
        add_kernel.launch(arguments={"x_ptr": 3, "y_ptr": torch.zeros(4, device="cuda"),
                                     "output_ptr": torch.zeros(4, device="cuda"), "n": 4},
                          constexprs={"BLOCK": 128}, grid=(1,))
    out = torch.full((4,), float("nan"), device="cuda")
    launch_add(torch.ones(4, device="cuda"), torch.ones(4, device="cuda"), out, 4)
    torch.cuda.synchronize()
    assert out.tolist() == [2.0, 2.0, 2.0, 2.0]


@sw.jit(cache_size=2)
def scale_by(x_ptr, out_ptr, n, FACTOR: sl.constexpr, BLOCK: sl.constexpr = 256):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * FACTOR, mask=mask)


def test_evicted_specialisations_run_their_own_code_when_compiled_again():
    """With room for two specialisations, ten constexpr values taken in turn,
    three times over, evict one another on every launch: each compiled
    again must run its own PTX (the CUDA module cache is keyed by the text,
    not by a freed kernel's address), with the GPU's answer each time."""
    n = 1000
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    for sweep in range(3):
        for factor in range(10):
            out.fill_(float("nan"))
            scale_by.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n},
                            constexprs={"FACTOR": factor}, grid=((n + 255) // 256,))
            assert torch.equal(out, x * factor), (sweep, factor)
    assert len(scale_by._cache) <= 2


def test_a_grid_function_of_the_meta_parameters_on_the_gpu(rng):
    # Triton's kernel[grid](...) with grid a function of the meta dict (the
    # parameters' values and the launch options given), 1-D and 2-D
    n = 10000
    x = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    y = torch.from_numpy(rng.standard_normal(n).astype(np.float32)).cuda()
    out = torch.from_numpy(np.full(n, np.nan, np.float32)).cuda()
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (sw.cdiv(meta["n"], meta["BLOCK"]),)

    add_kernel[grid](x, y, out, n, BLOCK=256, num_warps=4)
    torch.cuda.synchronize()
    assert [(m["n"], m["BLOCK"], m["num_warps"]) for m in seen] == [(n, 256, 4)]
    assert torch.equal(out, x + y)
    cpu = np.full((3, 5), -1, np.int32)
    grid_2d_kernel[lambda meta: (meta["width"], 3)](cpu, 5, executor="semantic")
    gpu = torch.from_numpy(np.full((3, 5), -1, np.int32)).cuda()
    grid_2d_kernel[lambda meta: (meta["width"], 3)](gpu, 5)
    torch.cuda.synchronize()
    assert np.array_equal(gpu.cpu().numpy(), cpu)


@pytest.mark.parametrize("debug", [True, False, None])
def test_do_not_specialize_and_debug_on_the_gpu(rng, debug):
    # one specialisation serves every n and start, on the GPU as on the CPU
    # (test_triton_launch.py's offset kernel), with each debug value
    kernel = launches.make_offset_kernel(do_not_specialize=["n", "start"], debug=debug)
    x = rng.standard_normal(100).astype(np.float32)
    grid = lambda meta: (sw.cdiv(meta["n"], meta["BLOCK"]),)  # noqa: E731
    for n, start in [(100, 1), (37, 5), (1, 16), (64, -3)]:
        cpu = np.zeros_like(x)
        kernel[grid](x, cpu, n, start, BLOCK=32, executor="semantic")
        gpu = torch.from_numpy(np.zeros_like(x)).cuda()
        kernel[grid](torch.from_numpy(x).cuda(), gpu, n, start, BLOCK=32)
        torch.cuda.synchronize()
        assert np.array_equal(gpu.cpu().numpy(), cpu), (n, start)
    assert len(kernel._cache) == 1
