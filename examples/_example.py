"""Plumbing shared by the example scripts (not part of Swage's API).

Each example module in this folder defines one segment kernel at top level
and four small things around it, so that the tests (test/python,
test/gpu) and the benchmark (bench/segments.py) reuse the kernel as it is:

    INPUTS    the input arrays it takes: ("values",) or ("values", "weights", "scale")
    OUTPUT    "per_segment" (one value per segment, sl.store(out_ptr + sid, ...))
              or "segment" (one value per element, sl.store_segment(...))

Dtypes: the examples take float32, float16 or bfloat16 values (computed in
float32). A segment-shaped output has the values' dtype (store_segment rounds
back); a one-per-segment output is float32 whatever the values' dtype: a
reduction of float16 values is a float32 scalar, and sl.store takes the
pointee's dtype (a kernel that wants float16 results stores
`total.to(sl.float16)`).
    launch(inputs, output, **options)
              runs the kernel: inputs is a dict with "values", "offsets" and the
              other INPUTS; options go to kernel.launch (unsafe=, executor=, ...)
    reference(inputs)
              the expected result in float64, computed with NumPy one segment at a
              time (segment-shaped outputs: NaN where no segment covers an element,
              which the kernel must leave untouched)
    error_scale(inputs)   (optional)
              what a rounding error of each result is measured against, where
              that is not the result itself (the sum of |x| for a sum)

Running an example (`python3 examples/segmented_softmax.py`) makes a random
ragged input (empty, short and long segments), runs the kernel on the GPU
when PyTorch sees a CUDA device and Swage can launch there, else on the CPU
with NumPy arrays, checks the result against the float64 reference and
prints one line. `--cpu` (or SWAGE_EXAMPLE_DEVICE=cpu) forces the CPU;
`--segments N` sets the size; `--seed S` repeats a run.
"""

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

try:  # from the repository tree without PYTHONPATH=python: use the tree's package
    import swage  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(REPO, "python"))
    import swage  # noqa: F401

import numpy as np  # noqa: E402

# Float32 tolerances of the one-line check, relative to the scale of each
# result (see check()): the kernels compute in float32.
RTOL = 1e-5


def gpu_problem():
    """None when the examples can run on the GPU, else the reason they cannot."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    from swage import _native
    return _native.cuda_unavailable_reason()


def random_lengths(rng, segments):
    """Segment lengths with the shapes that matter: a tenth empty, most short
    (1..64), some medium (65..2048) and a few long (up to 20000)."""
    kind = rng.random(segments)
    lengths = rng.integers(1, 65, segments)
    lengths[kind < 0.1] = 0
    medium = (kind >= 0.85) & (kind < 0.99)
    lengths[medium] = rng.integers(65, 2049, int(medium.sum()))
    long_ = kind >= 0.99
    lengths[long_] = rng.integers(2049, 20001, int(long_.sum()))
    return lengths.astype(np.int64)


def make_inputs(module, rng, segments, dtype=np.float32, offsets_dtype=np.int32):
    """NumPy inputs for an example: values (standard normal), offsets from
    random lengths, and the weights / per-segment scale it takes."""
    lengths = random_lengths(rng, segments)
    offsets = np.zeros(segments + 1, dtype=offsets_dtype)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    inputs = {"values": rng.standard_normal(total).astype(dtype), "offsets": offsets}
    if "weights" in module.INPUTS:
        inputs["weights"] = rng.uniform(0.0, 1.0, total).astype(dtype)
    if "scale" in module.INPUTS:
        inputs["scale"] = rng.uniform(0.5, 2.0, segments).astype(dtype)
    return inputs


def new_output(module, inputs, like):
    """The output buffer, poisoned with NaN so unwritten elements show."""
    segments = len(inputs["offsets"]) - 1
    size = segments if module.OUTPUT == "per_segment" else len(inputs["values"])
    if hasattr(like, "new_full"):  # a torch tensor
        return like.new_full((size,), float("nan"))
    return np.full(size, np.nan, dtype=like.dtype)


def check(actual, expected, scale=None, rtol=RTOL, atol=1e-30):
    """(number of elements out of tolerance, largest relative error), where
    an element passes when |actual - expected| <= atol + rtol * max(|expected|,
    scale) (scale: the size a rounding error is measured against, e.g. the
    sum of |x| for a sum, whose result can cancel to near 0). NaN passes only
    where the reference is NaN (an empty segment's mean, or an element no
    segment covers), and infinities must match."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    scale = np.abs(expected) if scale is None else np.maximum(np.abs(expected), scale)
    nan_a, nan_e = np.isnan(actual), np.isnan(expected)
    bad = nan_a != nan_e
    both = ~nan_a & ~nan_e
    inf = both & (np.isinf(actual) | np.isinf(expected))
    bad |= inf & (actual != expected)
    finite = both & ~inf
    error = np.abs(actual[finite] - expected[finite])
    scale = scale[finite]
    bad[finite] |= ~(error <= atol + rtol * scale)
    relative = float(np.max(error / np.maximum(scale, atol))) if error.size else 0.0
    return int(bad.sum()), relative


def run(module, argv=None):
    """The body of every example's main(): returns the exit status."""
    name = os.path.splitext(os.path.basename(module.__file__))[0]
    # The description is the docstring's first paragraph, in whole sentences.
    summary = " ".join((module.__doc__ or name).strip().split("\n\n")[0].split())
    parser = argparse.ArgumentParser(
        description=summary + " The example makes a random ragged input, runs the kernel on the "
        "GPU when PyTorch sees one (else on the CPU with NumPy arrays), checks the result "
        "against a float64 NumPy reference and prints one line.", add_help=False)
    parser.add_argument("-h", "--help", action="help", help="Show this help and exit.")
    parser.add_argument("--cpu", action="store_true",
                        help="Run on the CPU even when a GPU is available.")
    parser.add_argument("--segments", type=int, default=None, metavar="N",
                        help="Make N segments (by default 100000 on a GPU and 3000 on the CPU).")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="Seed the random input with S, to repeat a run (by default a new "
                             "seed each run, printed at the end).")
    options = parser.parse_args(argv)
    if options.cpu:
        problem = "--cpu was given"
    elif os.environ.get("SWAGE_EXAMPLE_DEVICE") == "cpu":
        problem = "SWAGE_EXAMPLE_DEVICE=cpu"
    else:
        problem = gpu_problem()
    on_gpu = problem is None
    segments = options.segments or (100000 if on_gpu else 3000)
    seed = options.seed if options.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    inputs = make_inputs(module, rng, segments)
    expected = module.reference(inputs)

    if on_gpu:
        import torch
        device_inputs = {k: torch.from_numpy(v).cuda() for k, v in inputs.items()}
        output = new_output(module, inputs, device_inputs["values"])
        torch.cuda.synchronize()
        start = time.perf_counter()
        module.launch(device_inputs, output)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        actual = output.cpu().numpy()
        where = "GPU (%s)" % torch.cuda.get_device_name(output.device)
    else:
        output = new_output(module, inputs, inputs["values"])
        start = time.perf_counter()
        module.launch(inputs, output)
        elapsed = time.perf_counter() - start
        actual = output
        where = "CPU (%s)" % problem if problem else "CPU"

    scale = module.error_scale(inputs) if hasattr(module, "error_scale") else None
    bad, relative = check(actual, expected, scale)
    verdict = "OK" if bad == 0 else "FAILED (%d of %d results out of tolerance)" % (bad,
                                                                                    actual.size)
    print("%s: %d segments, %d float32 elements on the %s in %.1f ms (first launch, with "
          "compile): max relative error %.1e vs float64 NumPy, seed %d: %s"
          % (name, segments, len(inputs["values"]), where, elapsed * 1e3,
             relative if math.isfinite(relative) else float("inf"), seed, verdict))
    return 0 if bad == 0 else 1


def segments_of(inputs):
    """(start, end) of every segment, as Python ints (for the references)."""
    offsets = [int(o) for o in inputs["offsets"]]
    return list(zip(offsets[:-1], offsets[1:]))


def segment_shaped(inputs):
    """A float64 output of the values' length, NaN everywhere (no segment yet)."""
    return np.full(len(inputs["values"]), np.nan)
