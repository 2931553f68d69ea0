"""The README's vector-add example on the GPU with PyTorch CUDA tensors:
launch returns None, is asynchronous (no synchronisation inside launch), and
runs on the current PyTorch stream of the tensors' device.

Float addition is correctly rounded on the GPU and in PyTorch alike, so
results are compared exactly (rtol=0, atol=0); outputs start as NaN so an
unwritten element can never pass.
"""

import threading
import time

import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import swage as sw
import swage.language as sl


# The README's kernel, verbatim.
@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


def exact(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=0, atol=0)


def test_readme_example_on_the_gpu():
    n = 98432
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    result = add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                               constexprs={"BLOCK": 1024}, grid=((n + 1023) // 1024,))
    assert result is None
    torch.cuda.synchronize()
    exact(out, x + y)


@pytest.mark.parametrize("n", [1, 7, 31, 127, 128, 129, 1000, 1023, 1024, 1025, 98432,
                               (1 << 20) + 3])
@pytest.mark.parametrize("block", [32, 128, 1024])
def test_sizes_and_blocks(torch_gen, n, block):
    x = torch.randn(n, device="cuda", generator=torch_gen)
    y = torch.randn(n, device="cuda", generator=torch_gen)
    out = torch.full_like(x, float("nan"))
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": block}, grid=((n + block - 1) // block,))
    torch.cuda.synchronize()
    exact(out, x + y)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_float_dtypes(torch_gen, dtype):
    n = 5000
    x = torch.randn(n, device="cuda", generator=torch_gen).to(dtype)
    y = torch.randn(n, device="cuda", generator=torch_gen).to(dtype)
    out = torch.full_like(x, float("nan"))
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": 256}, grid=((n + 255) // 256,))
    torch.cuda.synchronize()
    exact(out, x + y)


def test_masked_tail_is_left_alone(torch_gen):
    n, size, block = 300, 512, 128
    x = torch.randn(size, device="cuda", generator=torch_gen)
    y = torch.randn(size, device="cuda", generator=torch_gen)
    out = torch.full_like(x, -7.0)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": block}, grid=(size // block,))
    torch.cuda.synchronize()
    exact(out[:n], x[:n] + y[:n])
    exact(out[n:], torch.full((size - n,), -7.0, device="cuda"))


def test_views_with_an_offset(torch_gen):
    base = torch.randn(3000, device="cuda", generator=torch_gen)
    x, y = base[5:1005], base[1500:2500]  # contiguous views that do not start at the storage
    out = torch.full((1000,), float("nan"), device="cuda")
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": 1000},
                      constexprs={"BLOCK": 128}, grid=(8,))
    torch.cuda.synchronize()
    exact(out, x + y)


def test_empty_launch_does_nothing():
    x = torch.empty(0, device="cuda")
    assert add_kernel.launch(arguments={"x_ptr": x, "y_ptr": x, "output_ptr": x, "n": 0},
                             constexprs={"BLOCK": 128}, grid=(0,)) is None
    torch.cuda.synchronize()


def _sleep_cycles(ms):
    """GPU clock cycles that take at least `ms` milliseconds at any SM clock
    up to 2 GHz (an H200 boosts to 1.98 GHz)."""
    return int(ms * 2e6)


def test_launch_is_asynchronous(torch_gen):
    n = 1 << 20
    x = torch.randn(n, device="cuda", generator=torch_gen)
    y = torch.randn(n, device="cuda", generator=torch_gen)
    out = torch.full_like(x, float("nan"))
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": 1024}, grid=(n // 1024,))  # compiled and loaded
    torch.cuda.synchronize()
    out.fill_(float("nan"))
    stream = torch.cuda.current_stream()
    torch.cuda._sleep(_sleep_cycles(200))  # keeps the stream busy for ~200 ms
    start = time.perf_counter()
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": 1024}, grid=(n // 1024,))
    elapsed = time.perf_counter() - start
    still_busy = not stream.query()
    torch.cuda.synchronize()
    assert still_busy, "the stream was idle right after launch: launch waited for the GPU"
    assert elapsed < 0.1, "launch took %.1f ms behind a 200 ms GPU sleep" % (elapsed * 1e3)
    exact(out, x + y)


def test_launch_uses_the_current_stream(torch_gen):
    # On a side stream: sleep, then write x, then launch. If the launch went
    # to another stream it would not wait for the sleep and would read the
    # poisoned x.
    n = 1 << 16
    source = torch.randn(n, device="cuda", generator=torch_gen)
    y = torch.randn(n, device="cuda", generator=torch_gen)
    x = torch.full_like(source, float("nan"))
    out = torch.full_like(source, float("nan"))
    add_kernel.launch(arguments={"x_ptr": y, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": 512}, grid=(n // 512,))  # compiled and loaded
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(_sleep_cycles(100))
        x.copy_(source)
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                          constexprs={"BLOCK": 512}, grid=(n // 512,))
        assert not side.query(), "the side stream finished before the sleep could have"
    side.synchronize()
    exact(out, source + y)


def test_many_threads_launch_on_their_own_streams(rng):
    failures = []
    seeds = [int(s) for s in rng.integers(0, 1 << 62, 8)]

    def worker(seed):
        try:
            gen = torch.Generator(device="cuda")
            gen.manual_seed(seed)
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                for _ in range(20):
                    n = int(torch.randint(1, 5000, (1,), generator=gen, device="cuda").item())
                    x = torch.randn(n, device="cuda", generator=gen)
                    y = torch.randn(n, device="cuda", generator=gen)
                    out = torch.full_like(x, float("nan"))
                    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out,
                                                 "n": n},
                                      constexprs={"BLOCK": 256}, grid=((n + 255) // 256,))
                    stream.synchronize()
                    if not torch.equal(out, x + y):
                        failures.append("seed %d n=%d: wrong result" % (seed, n))
                        return
        except Exception as e:  # reported below
            failures.append("seed %d: %r" % (seed, e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, "\n".join(failures)


def test_warm_launches_follow_the_specialisation_and_keep_the_checks(torch_gen, monkeypatch):
    """After a first launch, launches take the warm path (generated code
    straight to swageKernelLaunchCudaPacked): switching dtypes and BLOCK
    back and forth gets the right kernel every time, and a tensor it cannot
    take (strided, on the CPU) or a grid past the device's limit is refused
    with the same error as on a first launch."""
    from swage import _native
    packed = []
    real = _native.cuda_launch_packed

    def counting(buffer, error):
        packed.append(len(buffer))
        return real(buffer, error)

    monkeypatch.setattr(_native, "cuda_launch_packed", counting)
    plan = [(dtype, block) for dtype in (torch.float32, torch.float16, torch.float64)
            for block in (128, 256)]
    for round_ in range(3):
        for dtype, block in plan:
            n = 1000 + 37 * round_
            x = torch.randn(n, device="cuda", generator=torch_gen).to(dtype)
            y = torch.randn(n, device="cuda", generator=torch_gen).to(dtype)
            out = torch.full_like(x, float("nan"))
            add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                              constexprs={"BLOCK": block}, grid=((n + block - 1) // block,))
            torch.cuda.synchronize()
            exact(out, x + y)
    assert len(packed) >= 2 * len(plan), "the warm path was not taken: %d packed launches" % len(
        packed)
    x = torch.randn(2000, device="cuda", generator=torch_gen)
    out = torch.empty(1000, device="cuda")
    args = {"x_ptr": x[:1000], "y_ptr": x[1000:], "output_ptr": out, "n": 1000}
    with pytest.raises(ValueError, match="'x_ptr' is not contiguous"):
        add_kernel.launch(arguments=dict(args, x_ptr=x[::2]), constexprs={"BLOCK": 128},
                          grid=(8,))
    with pytest.raises(ValueError, match="different devices"):
        add_kernel.launch(arguments=dict(args, y_ptr=x[1000:].cpu()), constexprs={"BLOCK": 128},
                          grid=(8,))
    with pytest.raises(ValueError, match="65535"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 128}, grid=(1, 65536))
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 128}, grid=(8,))
    torch.cuda.synchronize()
    exact(out, x[:1000] + x[1000:])
