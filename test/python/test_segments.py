"""Segment programs on the CPU (docs/segments.md): every example kernel of
examples/ on every segment-length distribution of the differential suite
(segment_cases.DISTRIBUTIONS) and on fresh random small cases, run by the
semantic executor (the oracle) and by executor="simt" (the task kernels of
the automatic GPU schedule, docs/schedules.md) against float64 NumPy
references; float16 (and bfloat16 where
ml_dtypes or PyTorch provides it on the CPU), int32 and int64 offsets,
offsets that do not start at 0 or end at the buffers' end, launches with
no segments, the offsets check and its errors, unsafe=True, and the example
scripts themselves.

Tolerances are those of segment_cases.py (stated there): float32 sums and
means within max(1e-5, 2^-22 sqrt(len)) of sum(|x|) (resp. mean(|x|)),
softmax / l2 within that relative to each element, log-softmax relative to
1 + |x - max| + |log sum|, maxima exact, plus one ulp of the output dtype
for its rounding. NaN passes only where the reference is NaN (the mean of
an empty segment; elements of segment-shaped outputs that no segment covers
must keep their poison).

Sizes: SWAGE_SEGMENT_TEST_N (default 2^18 elements per distribution) for
the semantic executor and a 32nd of it for the SIMT executor (which
simulates every thread of every CTA).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import swage as sw
import segment_cases as sc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
if EXAMPLES_DIR not in sys.path:
    sys.path.insert(0, EXAMPLES_DIR)

from segment_examples import EXAMPLES  # noqa: E402

N = int(os.environ.get("SWAGE_SEGMENT_TEST_N", sc.CI_ELEMENTS))
SIMT_N = max(256, N // 32)
EXAMPLE_NAMES = sc.EXAMPLE_NAMES
PER_SEGMENT = [name for name in EXAMPLE_NAMES if name not in sc.SEGMENT_SHAPED]
SEGMENT_SHAPED = [name for name in EXAMPLE_NAMES if name in sc.SEGMENT_SHAPED]


def run(example, inputs, out_dtype=None, **options):
    """Runs an example kernel on NumPy inputs; returns the (poisoned, then
    written) output."""
    output = sc.new_output(example, inputs, out_dtype)
    EXAMPLES[example].launch(inputs, output, **options)
    return output


def case(example, distribution, n, rng, dtype="float32", offsets_dtype="int32", pad=True):
    lengths = sc.lengths(distribution, n, rng)
    before, after = (int(rng.integers(0, 9)), int(rng.integers(0, 9))) if pad else (0, 0)
    return sc.make_inputs(example, lengths, rng, dtype, offsets_dtype, before, after)


def offsets_dtype_for(index):
    """Alternates int32 / int64 offsets over a parametrisation, so each
    example and each distribution sees both."""
    return "int64" if index % 2 else "int32"


# ---- every distribution x every example -------------------------------------------

DIST_EXAMPLE = [(d, e) for d in sc.DISTRIBUTIONS for e in EXAMPLE_NAMES]


@pytest.mark.parametrize("distribution,example", DIST_EXAMPLE)
def test_distribution_on_the_oracle(distribution, example, rng):
    index = DIST_EXAMPLE.index((distribution, example))
    offsets_dtype = offsets_dtype_for(index + sc.DISTRIBUTIONS.index(distribution))
    inputs = case(example, distribution, N, rng, offsets_dtype=offsets_dtype)
    out = run(example, inputs)
    sc.check(example, out, inputs, "%s, %s offsets, semantic executor" % (distribution,
                                                                        offsets_dtype), rng.seed)


@pytest.mark.parametrize("distribution,example", DIST_EXAMPLE)
def test_distribution_on_the_simt_executor(distribution, example, rng):
    index = DIST_EXAMPLE.index((distribution, example))
    offsets_dtype = offsets_dtype_for(index + sc.DISTRIBUTIONS.index(distribution) + 1)
    inputs = case(example, distribution, SIMT_N, rng, offsets_dtype=offsets_dtype)
    out = run(example, inputs, executor="simt")
    sc.check(example, out, inputs, "%s, %s offsets, executor='simt'" % (distribution,
                                                                      offsets_dtype), rng.seed)


# ---- random small cases, fresh every run -------------------------------------------

@pytest.mark.parametrize("offsets_dtype", ["int32", "int64"])
@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_random_small_cases(example, offsets_dtype, rng):
    for trial in range(12):
        lengths = sc.random_small_lengths(rng)
        before, after = int(rng.integers(0, 4)), int(rng.integers(0, 4))
        inputs = sc.make_inputs(example, lengths, rng, "float32", offsets_dtype, before, after)
        for executor in ("semantic", "simt"):
            out = run(example, inputs, executor=executor)
            sc.check(example, out, inputs, "random case %d (lengths %s, pad %d/%d), %s"
                     % (trial, lengths.tolist()[:12], before, after, executor), rng.seed)


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_executors_agree_on_a_mixed_case(example, rng):
    """The oracle and the SIMT executor on one case that mixes every kind of
    segment (empty, short, one warp, many tiles): both within tolerance and
    max bit-identical."""
    lengths = np.concatenate([sc.random_small_lengths(rng), [0, 1, 31, 32, 33, 127, 128, 129,
                                                             1023, 1024, 1025, 4099, 0]])
    rng.shuffle(lengths)
    inputs = sc.make_inputs(example, lengths.astype(np.int64), rng, pad_before=5, pad_after=2)
    semantic = run(example, inputs)
    simt = run(example, inputs, executor="simt")
    sc.check(example, semantic, inputs, "semantic executor", rng.seed)
    sc.check(example, simt, inputs, "executor='simt'", rng.seed)
    if example == "segmented_max":
        np.testing.assert_array_equal(simt, semantic)


# ---- dtypes --------------------------------------------------------------------------

@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_float16(example, rng):
    for distribution in ("tiny-uniform", "bimodal", "alternating-empty"):
        for executor, n in (("semantic", N // 8), ("simt", SIMT_N)):
            inputs = case(example, distribution, n, rng, dtype="float16")
            out = run(example, inputs, executor=executor)
            assert out.dtype == sc.output_dtype(example, np.dtype(np.float16))
            sc.check(example, out, inputs, "%s, float16, %s" % (distribution, executor),
                     rng.seed)


def _bfloat16_backend():
    """'ml_dtypes' or 'torch' (CPU tensors) where either gives bfloat16 arrays
    on the CPU, else None."""
    if sc.numpy_dtype("bfloat16") is not None:
        return "ml_dtypes"
    try:
        import torch  # noqa: F401
        return "torch"
    except ImportError:
        return None


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_bfloat16(example, rng):
    backend = _bfloat16_backend()
    if backend is None:
        pytest.skip("bfloat16 on the CPU needs ml_dtypes or PyTorch (the GPU suite covers it)")
    lengths = np.concatenate([sc.lengths("tiny-uniform", N // 16, rng), [0, 700, 3000, 0]])
    if backend == "ml_dtypes":
        inputs = sc.make_inputs(example, lengths, rng, "bfloat16", "int64", 3, 2)
        out = run(example, inputs)
        sc.check(example, out, inputs, "bfloat16 (ml_dtypes)", rng.seed)
        return
    import torch
    inputs32 = sc.make_inputs(example, lengths, rng, "float32", "int64", 3, 2)
    tensors = {k: torch.from_numpy(v) for k, v in inputs32.items()}
    for k in ("values", "weights", "scale"):
        if k in tensors:
            tensors[k] = tensors[k].to(torch.bfloat16)
    out = torch.full((sc.output_size(example, inputs32),), sc.poison_value(example),
                     dtype=torch.bfloat16 if example in sc.SEGMENT_SHAPED else torch.float32)
    EXAMPLES[example].launch(tensors, out)
    inputs = {k: (v.float().numpy() if v.dtype == torch.bfloat16 else v.numpy())
              for k, v in tensors.items()}
    expected, scale = sc.reference(example, inputs)
    bad = sc.mismatches(example, out.float().numpy(), expected, scale,
                        sc.result_lengths(example, inputs), sc.dtype_name(out))
    assert not bad.any(), sc.describe(example, out.float().numpy(), expected, scale, bad,
                                      "bfloat16 (CPU tensors)", rng.seed)


# ---- empty and degenerate launches ------------------------------------------------------

@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_no_segments(example, rng):
    """offsets of one element: no program runs and nothing is written, with
    or without values, on both executors."""
    for values_length, start in ((0, 0), (10, 0), (10, 4), (10, 10)):
        lengths = np.zeros(0, dtype=np.int64)
        for executor in ("semantic", "simt"):
            inputs = sc.make_inputs(example, lengths, rng, pad_before=start,
                                    pad_after=values_length - start)
            out = run(example, inputs, executor=executor)
            assert out.size == sc.output_size(example, inputs)
            sc.check(example, out, inputs, "no segments, %d values, offsets [%d], %s"
                     % (values_length, start, executor), rng.seed)


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_every_segment_empty_over_real_values(example, rng):
    """Empty segments in the middle of a values buffer: sum 0, max -inf, mean
    NaN, and nothing stored for segment-shaped outputs."""
    lengths = np.zeros(int(rng.integers(1, 50)), dtype=np.int64)
    inputs = sc.make_inputs(example, lengths, rng, pad_before=7, pad_after=9)
    out = run(example, inputs)
    sc.check(example, out, inputs, "all empty at offset 7 of 16 values", rng.seed)
    if example == "segmented_sum":
        assert (out == 0).all()
    elif example == "segmented_max":
        assert (out == -np.inf).all()
    elif example == "segmented_mean":
        assert np.isnan(out).all()
    elif example in sc.SEGMENT_SHAPED:
        assert np.isnan(out).all(), "a segment-shaped output was written for empty segments"


def test_empty_segment_values_are_defined(rng):
    """The documented results for an empty segment, next to non-empty ones."""
    values = np.array([1.5, -2.0, 4.0, 0.25], dtype=np.float32)
    offsets = np.array([0, 2, 2, 4, 4], dtype=np.int32)
    inputs = {"values": values, "offsets": offsets}
    np.testing.assert_array_equal(run("segmented_sum", inputs), [-0.5, 0, 4.25, 0])
    np.testing.assert_array_equal(run("segmented_max", inputs), [1.5, -np.inf, 4.0, -np.inf])
    mean = run("segmented_mean", inputs)
    np.testing.assert_array_equal(mean[[0, 2]], [-0.25, 2.125])
    assert np.isnan(mean[[1, 3]]).all()


# ---- the offsets check ---------------------------------------------------------------

BAD_OFFSETS = {
    "decreasing": ([0, 5, 3, 10], 10),
    "negative": ([-2, 3, 10], 10),
    "past the end": ([0, 4, 11], 10),
}


def _assert_offsets_error(excinfo, what):
    message = str(excinfo.value).lower()
    assert "offset" in message, "the error for %s offsets does not name the offsets: %s" % (
        what, excinfo.value)


@pytest.mark.parametrize("what", sorted(BAD_OFFSETS))
@pytest.mark.parametrize("offsets_dtype", ["int32", "int64"])
@pytest.mark.parametrize("example", ["segmented_sum", "segmented_softmax", "weighted_sum"])
def test_bad_offsets_are_rejected(example, offsets_dtype, what, rng):
    offsets, length = BAD_OFFSETS[what]
    inputs = sc.make_inputs(example, np.zeros(len(offsets) - 1, dtype=np.int64), rng,
                            pad_after=length)
    inputs["offsets"] = np.array(offsets, dtype=offsets_dtype)
    for executor in ("semantic", "simt"):
        output = sc.new_output(example, inputs)
        before = output.copy()
        with pytest.raises((ValueError, RuntimeError)) as excinfo:
            EXAMPLES[example].launch(inputs, output, executor=executor)
        _assert_offsets_error(excinfo, what)
        np.testing.assert_array_equal(output, before, "a rejected launch wrote its output")


def test_offsets_past_the_end_of_a_zipped_buffer(rng):
    """Every values buffer viewed through the offsets is checked: weights
    shorter than the segments are an error."""
    inputs = sc.make_inputs("weighted_sum", np.array([3, 4, 5]), rng)
    inputs["weights"] = inputs["weights"][:10].copy()
    with pytest.raises((ValueError, RuntimeError)) as excinfo:
        run("weighted_sum", inputs)
    _assert_offsets_error(excinfo, "past the end of weights")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8"])
def test_offsets_must_be_int32_or_int64(dtype, rng):
    inputs = sc.make_inputs("segmented_sum", np.array([2, 3]), rng)
    inputs["offsets"] = inputs["offsets"].astype(dtype)
    with pytest.raises((TypeError, ValueError, sw.CompileError)) as excinfo:
        run("segmented_sum", inputs)
    assert "offsets" in str(excinfo.value), excinfo.value


# ---- unsafe=True -------------------------------------------------------------------------

@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_unsafe_gives_the_same_results_on_good_offsets(example, rng):
    for distribution in ("tiny-uniform", "one-outlier", "alternating-empty"):
        inputs = case(example, distribution, N // 8, rng, offsets_dtype="int64")
        safe = run(example, inputs)
        unsafe = run(example, inputs, unsafe=True)
        sc.check(example, unsafe, inputs, "%s, unsafe=True" % distribution, rng.seed)
        np.testing.assert_array_equal(unsafe, safe)
        simt = run(example, case(example, distribution, SIMT_N, rng), executor="simt",
                   unsafe=True)
        assert simt is not None


@pytest.mark.parametrize("what", sorted(BAD_OFFSETS))
@pytest.mark.parametrize("example", ["segmented_sum", "segmented_softmax", "weighted_sum"])
def test_unsafe_bad_offsets_never_write_outside_the_buffers(example, what, rng):
    """With unsafe=True bad offsets are not rejected up front, but nothing is
    written outside the buffers given: the output is a view of a larger
    array whose tail must keep its canary. The launch may finish (segments
    clamped to the buffers) or raise a RuntimeError; it must not crash."""
    offsets, length = BAD_OFFSETS[what]
    inputs = sc.make_inputs(example, np.zeros(len(offsets) - 1, dtype=np.int64), rng,
                            pad_after=length)
    inputs["offsets"] = np.array(offsets, dtype=np.int64)
    size = sc.output_size(example, inputs)
    for executor in ("semantic", "simt"):
        backing = np.full(size + 64, 31337.0, dtype=np.float32)
        output = backing[:size]
        output[:] = np.nan
        try:
            EXAMPLES[example].launch(inputs, output, unsafe=True, executor=executor)
        except RuntimeError:
            pass
        assert (backing[size:] == 31337.0).all(), (
            "unsafe=True with %s offsets wrote past the end of the output (%s)"
            % (what, executor))


# ---- the examples as scripts ----------------------------------------------------------

@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_example_script_runs(example):
    env = dict(os.environ)
    env["SWAGE_EXAMPLE_DEVICE"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(REPO, "python")] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                          if p])
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES_DIR, example + ".py"),
                             "--segments", "400"], capture_output=True, text=True, timeout=120,
                            env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(example + ":") and lines[0].endswith(
        ": OK"), output
