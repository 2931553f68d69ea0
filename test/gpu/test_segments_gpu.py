"""Segment programs on the GPU (docs/segments.md), with PyTorch CUDA tensors:
every example kernel of examples/ on every segment-length distribution of
SWAGE.md section 6 in float32, float16 and bfloat16 at N = 2^24 elements
(SWAGE_SEGMENT_GPU_N), against float64 PyTorch references
(torch.segment_reduce for sums, maxima and means; softmax, log-softmax and
l2 composed from it; segment_cases.torch_reference), and against the CPU
oracle on the same inputs at a smaller N (2^18, SWAGE_SEGMENT_ORACLE_N:
the oracle is an interpreter). Also: the SWAGE.md softmax kernel as written against
torch.softmax segment by segment, int32 and int64 offsets, launches with no
segments, unsafe=True (good offsets: identical results; bad offsets: no
write outside the buffers, checked in a child process so that a fault
cannot take this process's CUDA context down), the current stream, and
each example script's own run on the GPU.

Tolerances are segment_cases.py's (stated there): float32 arithmetic within
max(1e-5, 2^-22 sqrt(segment length)) of the result's scale (sum(|x|) for
sums), maxima exact, plus one ulp of the output dtype for its rounding and
its smallest normal number as absolute slack (2^-24 for float16). NaN
passes only where the reference is NaN (an empty segment's mean, elements
no segment covers, which must keep their poison).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import segment_cases as sc  # noqa: E402  (test/python, on the path by conftest.py)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
if EXAMPLES_DIR not in sys.path:
    sys.path.insert(0, EXAMPLES_DIR)

from segment_examples import EXAMPLES  # noqa: E402

GPU_N = int(os.environ.get("SWAGE_SEGMENT_GPU_N", 1 << 24))
ORACLE_N = int(os.environ.get("SWAGE_SEGMENT_ORACLE_N", 1 << 18))
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# The tests' own logic can be tried on the CPU (SWAGE_SEGMENT_TEST_DEVICE=cpu,
# with a conftest that does not require a GPU): Swage then runs its CPU
# executor on CPU tensors. The GPU suite always runs on "cuda".
DEVICE = os.environ.get("SWAGE_SEGMENT_TEST_DEVICE", "cuda")
MODULE_SEED = int(os.environ.get("SWAGE_SEGMENT_SEED") or int.from_bytes(os.urandom(7), "little"))


def sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


needs_cuda = pytest.mark.skipif(DEVICE != "cuda", reason="CUDA streams and faults need a GPU")


# ---- cases on the device ---------------------------------------------------------------

_LENGTHS = {}
_OFFSETS = {}


def distribution_lengths(distribution, n):
    """Segment lengths (NumPy int64) of a distribution, drawn once per module
    run (seed MODULE_SEED, SWAGE_SEGMENT_SEED to repeat it, printed on
    failures) and shared by its tests."""
    key = (distribution, n)
    if key not in _LENGTHS:
        rng = np.random.default_rng([MODULE_SEED, sc.DISTRIBUTIONS.index(distribution), n])
        _LENGTHS[key] = sc.lengths(distribution, n, rng)
    return _LENGTHS[key]


def _device_offsets(lengths):
    """int64 offsets from 0 on the device, cached per lengths array (the
    host cumsum of 2^24 lengths is not free)."""
    key = id(lengths)
    if key not in _OFFSETS or _OFFSETS[key][0] is not lengths:
        offsets = torch.from_numpy(sc.offsets_from_lengths(lengths, "int64")).to(DEVICE)
        _OFFSETS[key] = (lengths, offsets)
    return _OFFSETS[key][1]


def device_inputs(example, lengths, dtype, offsets_dtype, gen, pad_before=0, pad_after=0):
    """CUDA tensors for an example: values 2 * standard normal, weights
    uniform [0, 1), scale uniform [0.5, 2); pads hold sc.PAD_VALUE."""
    offsets = _device_offsets(lengths) + pad_before
    total = pad_before + int(lengths.sum()) + pad_after
    offsets = offsets.to(getattr(torch, offsets_dtype))
    values = torch.randn(total, device=DEVICE, generator=gen) * 2.0
    values[:pad_before] = sc.PAD_VALUE
    values[total - pad_after:] = sc.PAD_VALUE
    inputs = {"values": values.to(DTYPES[dtype]), "offsets": offsets}
    extra = sc.EXTRA_INPUTS.get(example, ())
    if "weights" in extra:
        weights = torch.rand(total, device=DEVICE, generator=gen)
        weights[:pad_before] = sc.PAD_VALUE
        weights[total - pad_after:] = sc.PAD_VALUE
        inputs["weights"] = weights.to(DTYPES[dtype])
    if "scale" in extra:
        scale = torch.rand(len(lengths), device=DEVICE, generator=gen) * 1.5 + 0.5
        inputs["scale"] = scale.to(DTYPES[dtype])
    return inputs


def new_device_output(example, inputs):
    """Poisoned; segment-shaped outputs have the values' dtype, one-per-segment
    results are float32 (sc.output_dtype)."""
    if example in sc.SEGMENT_SHAPED:
        size, dtype = inputs["values"].numel(), inputs["values"].dtype
    else:
        size, dtype = inputs["offsets"].numel() - 1, torch.float32
    return torch.full((size,), sc.poison_value(example), dtype=dtype,
                      device=inputs["values"].device)


def launch_and_check(example, inputs, what, seed, **options):
    out = new_device_output(example, inputs)
    sync()
    EXAMPLES[example].launch(inputs, out, **options)
    sync()  # a fault in the kernel surfaces here, naming the test
    expected, scale = sc.torch_reference(example, inputs)
    bad = sc.torch_mismatches(example, out, expected, scale,
                              sc.torch_result_lengths(example, inputs))
    if bool(bad.any()):
        raise AssertionError(sc.torch_describe(example, out, expected, scale, bad, what,
                                               "%s (module seed %d)" % (seed, MODULE_SEED)))
    return out


# ---- every distribution x example x dtype ------------------------------------------

CASES = [(d, e, t) for d in sc.DISTRIBUTIONS for e in sc.EXAMPLE_NAMES for t in DTYPES]


@pytest.mark.parametrize("distribution,example,dtype", CASES)
def test_distribution(distribution, example, dtype, rng, torch_gen):
    offsets_dtype = "int64" if CASES.index((distribution, example, dtype)) % 2 else "int32"
    pad = (3, 5) if offsets_dtype == "int64" else (0, 0)
    inputs = device_inputs(example, distribution_lengths(distribution, GPU_N), dtype,
                           offsets_dtype, torch_gen, *pad)
    launch_and_check(example, inputs, "%s, %s, %s offsets, N=%d"
                     % (distribution, dtype, offsets_dtype, GPU_N), rng.seed)


# ---- the GPU against the CPU oracle ------------------------------------------------------

@pytest.mark.parametrize("distribution", sc.DISTRIBUTIONS)
def test_gpu_matches_the_cpu_oracle(distribution, rng):
    """Every example on the same inputs on the GPU and on the CPU oracle:
    both within tolerance of the float64 reference, maxima bit-identical."""
    failures = []
    for example in sc.EXAMPLE_NAMES:
        inputs = sc.make_inputs(example, sc.lengths(distribution, ORACLE_N, rng), rng,
                                offsets_dtype="int64" if len(example) % 2 else "int32",
                                pad_before=2, pad_after=3)
        oracle = sc.new_output(example, inputs)
        EXAMPLES[example].launch(inputs, oracle)
        gpu_inputs = {k: torch.from_numpy(v).to(DEVICE) for k, v in inputs.items()}
        out = new_device_output(example, gpu_inputs)
        EXAMPLES[example].launch(gpu_inputs, out)
        gpu = out.cpu().numpy()
        try:
            sc.check(example, oracle, inputs, "%s, CPU oracle" % distribution, rng.seed)
            sc.check(example, gpu, inputs, "%s, GPU" % distribution, rng.seed)
            if example == "segmented_max":
                np.testing.assert_array_equal(gpu, oracle, "GPU and oracle maxima differ")
        except AssertionError as e:
            failures.append(str(e)[:1500])
    assert not failures, "\n".join(failures)


# ---- the SWAGE.md softmax against torch.softmax -----------------------------------

@pytest.mark.parametrize("distribution", ["bimodal", "one-outlier", "tiny-uniform", "power-law"])
def test_softmax_matches_torch_softmax_per_segment(distribution, rng, torch_gen):
    lengths = distribution_lengths(distribution, GPU_N)
    inputs = device_inputs("segmented_softmax", lengths, "float32", "int32", torch_gen)
    out = torch.full_like(inputs["values"], float("nan"))
    EXAMPLES["segmented_softmax"].segmented_softmax.launch(
        arguments={"values_ptr": inputs["values"], "offsets_ptr": inputs["offsets"],
                   "output_ptr": out})
    sync()
    offsets = inputs["offsets"].cpu().numpy().astype(np.int64)
    picks = set(rng.choice(len(lengths), size=min(200, len(lengths)), replace=False).tolist())
    picks.add(int(np.argmax(lengths)))
    for s in sorted(picks):
        start, end = int(offsets[s]), int(offsets[s + 1])
        if end == start:
            continue
        segment = inputs["values"][start:end]
        expected = torch.softmax(segment.double(), dim=0)
        rtol = max(1e-5, 2.0 ** -22 * (end - start) ** 0.5)
        torch.testing.assert_close(out[start:end].double(), expected, rtol=rtol, atol=2.0 ** -126,
                                   msg=lambda m, s=s: "segment %d (%d..%d): %s" % (s, start,
                                                                                    end, m))
        # and torch's own float32 softmax agrees to float32 rounding
        torch.testing.assert_close(out[start:end], torch.softmax(segment, dim=0),
                                   rtol=max(2e-5, 2 * rtol), atol=1e-30)
    assert not bool(torch.isnan(out).any()), "an element of a covered output stayed NaN"


# ---- empty launches, offsets types, unsafe, streams ------------------------------------

@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_no_segments_and_empty_buffers(example, rng, torch_gen):
    for values_length, start in ((0, 0), (10, 0), (10, 10)):
        for offsets_dtype in ("int32", "int64"):
            inputs = device_inputs(example, np.zeros(0, dtype=np.int64), "float32",
                                   offsets_dtype, torch_gen, start, values_length - start)
            launch_and_check(example, inputs, "no segments, %d values" % values_length,
                             rng.seed)
    inputs = device_inputs(example, np.zeros(1000, dtype=np.int64), "float32", "int64",
                           torch_gen, 4, 4)
    launch_and_check(example, inputs, "1000 empty segments", rng.seed)


@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_unsafe_gives_identical_results(example, rng, torch_gen):
    for distribution in ("tiny-uniform", "bimodal", "one-outlier"):
        inputs = device_inputs(example, distribution_lengths(distribution, GPU_N // 4),
                               "float32", "int64", torch_gen)
        safe = launch_and_check(example, inputs, distribution + ", checked", rng.seed)
        unsafe = launch_and_check(example, inputs, distribution + ", unsafe=True", rng.seed,
                                  unsafe=True)
        assert torch.equal(safe.nan_to_num(-7.0), unsafe.nan_to_num(-7.0)), (
            "unsafe=True changed the result on good offsets (%s)" % distribution)


def test_bad_offsets_are_rejected_on_the_gpu(rng, torch_gen):
    for offsets in ([0, 5, 3, 10], [-2, 3, 10], [0, 4, 11]):
        inputs = device_inputs("segmented_softmax", np.zeros(len(offsets) - 1, np.int64),
                               "float32", "int64", torch_gen, 0, 10)
        inputs["offsets"] = torch.tensor(offsets, dtype=torch.int64, device=DEVICE)
        out = new_device_output("segmented_softmax", inputs)
        with pytest.raises((ValueError, RuntimeError)) as excinfo:
            EXAMPLES["segmented_softmax"].launch(inputs, out)
            sync()
        assert "offset" in str(excinfo.value).lower(), excinfo.value
    sync()  # the context is still usable


UNSAFE_CHILD = textwrap.dedent('''
    import json, sys
    import torch
    sys.path.insert(0, sys.argv[1])
    from segment_examples import EXAMPLES
    results = []
    for name in ("segmented_sum", "segmented_softmax", "weighted_sum"):
        for offsets in ([0, 5, 3, 10], [-2, 3, 10], [0, 4, 11], [0, 1 << 20, 10]):
            values = torch.randn(10, device="cuda")
            inputs = {"values": values, "offsets": torch.tensor(offsets, device="cuda"),
                      "weights": torch.rand(10, device="cuda"),
                      "scale": torch.rand(len(offsets) - 1, device="cuda")}
            size = 10 if name == "segmented_softmax" else len(offsets) - 1
            backing = torch.full((size + 4096,), 31337.0, device="cuda")
            out = backing[:size]
            error = None
            try:
                EXAMPLES[name].launch(inputs, out, unsafe=True)
                torch.cuda.synchronize()
            except RuntimeError as e:
                error = str(e)[:200]
            intact = bool((backing[size:] == 31337.0).all())
            results.append({"example": name, "offsets": offsets, "error": error,
                            "canary_intact": intact})
    print(json.dumps(results))
''')


@needs_cuda
def test_unsafe_bad_offsets_never_write_outside_the_buffers():
    """unsafe=True with bad offsets, in a child process: the launch may
    finish (segments clamped) or raise, but never faults and never writes
    past the output's end (a canary follows it in the same allocation)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    child = subprocess.run([sys.executable, "-c", UNSAFE_CHILD, EXAMPLES_DIR],
                           capture_output=True, text=True, timeout=120, env=env)
    assert child.returncode == 0, "the child process failed (a GPU fault?):\n" + (
        child.stdout + child.stderr)[-3000:]
    results = json.loads(child.stdout.strip().splitlines()[-1])
    broken = [r for r in results if not r["canary_intact"]]
    assert not broken, "unsafe=True wrote past the output: %s" % broken
    faults = [r for r in results if r["error"] and "illegal" in r["error"].lower()]
    assert not faults, "unsafe=True faulted on the device: %s" % faults


@needs_cuda
def test_launch_follows_the_current_stream(rng):
    """Inputs produced on a side stream and the launch queued on it: the
    kernel must see them (it runs on the current stream, after the copy)."""
    lengths = distribution_lengths("medium-uniform", GPU_N // 4)
    offsets = torch.from_numpy(sc.offsets_from_lengths(lengths, "int32")).cuda()
    source = torch.randn(int(lengths.sum()), device="cuda")
    values = torch.full_like(source, float("nan"))
    out = torch.full((len(lengths),), float("nan"), device="cuda")
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(20_000_000)  # ~10 ms of GPU time ahead of the copy
        values.copy_(source)
        EXAMPLES["segmented_sum"].launch({"values": values, "offsets": offsets}, out)
    stream.synchronize()
    expected, scale = sc.torch_reference("segmented_sum", {"values": source, "offsets": offsets})
    bad = sc.torch_mismatches("segmented_sum", out, expected, scale,
                              sc.torch_result_lengths("segmented_sum", {"values": source,
                                                                        "offsets": offsets}))
    assert not bool(bad.any()), "the launch did not follow the current stream: " + (
        sc.torch_describe("segmented_sum", out, expected, scale, bad, "side stream", rng.seed))


@needs_cuda
@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_example_runs_on_the_gpu(example, capsys):
    """`python3 examples/<example>.py` in this process: it picks the GPU and
    its one-line check passes."""
    status = EXAMPLES[example].main(["--segments", "20000"])
    printed = capsys.readouterr().out.strip()
    assert status == 0 and "on the GPU" in printed and printed.endswith(": OK"), printed
