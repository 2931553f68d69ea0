"""Segment programs on the GPU (docs/segments.md), with PyTorch CUDA tensors:
every example kernel of examples/ on every segment-length distribution of
segment_cases.DISTRIBUTIONS in float32, float16 and bfloat16 at N = 2^24 elements
(SWAGE_SEGMENT_GPU_N), against float64 PyTorch references
(torch.segment_reduce for sums, maxima and means; softmax, log-softmax and
l2 composed from it; segment_cases.torch_reference), and against the CPU
oracle on the same inputs at a smaller N (2^18, SWAGE_SEGMENT_ORACLE_N:
the oracle is an interpreter). Also: the softmax kernel of docs/segments.md as written against
torch.softmax segment by segment, int32 and int64 offsets, launches with no
segments, unsafe=True (good offsets: identical results; bad offsets: no
write outside the buffers, checked in a child process so that a fault
cannot take this process's CUDA context down), the current stream, and
each example script's own run on the GPU.

Schedules (launch(schedule=...)): every schedule -- "auto" and the five
forced ones -- on every distribution for every example kernel at N = 2^22
(SWAGE_SEGMENT_SCHEDULE_N): all of them in float32 with int32 offsets, and
a rotating subset (fixed by the case's place in the list, see `rotation`)
in float16 and bfloat16 with int32 and int64 offsets and padded buffers;
every result launched twice and compared bit for bit (no floating-point
atomics: a launch is deterministic). Launches with no segments and with
only empty segments for every schedule, checked and unsafe; bad offsets
rejected by a checked launch naming the segment; unsafe=True with bad
offsets in every schedule, in a child process with guard regions around
every buffer; kernel.plan() for every schedule; and unsafe launches
captured in a CUDA graph and replayed on new values (and new offsets).

Tolerances are segment_cases.py's (stated there): float32 arithmetic within
max(1e-5, 2^-22 sqrt(segment length)) of the result's scale (sum(|x|) for
sums), maxima exact, plus one ulp of the output dtype for its rounding and
its smallest normal number as absolute slack (2^-24 for float16). NaN
passes only where the reference is NaN (an empty segment's mean, elements
no segment covers, which must keep their poison).
"""

import inspect
import json
import os
import re
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
SCHEDULE_N = int(os.environ.get("SWAGE_SEGMENT_SCHEDULE_N", 1 << 22))
SCHEDULES = ("auto", "subwarp", "warp", "cta", "split", "persistent")
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# The tests' own logic can be tried on the CPU (SWAGE_SEGMENT_TEST_DEVICE=cpu,
# with a conftest that does not require a GPU): Swage then runs its CPU
# executor on CPU tensors. The GPU suite always runs on "cuda".
DEVICE = os.environ.get("SWAGE_SEGMENT_TEST_DEVICE", "cuda")
MODULE_SEED = int(os.environ.get("SWAGE_SEGMENT_SEED") or int.from_bytes(os.urandom(7), "little"))


def sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def schedule_options(schedule, unsafe=False):
    """launch() options for one schedule (on the CPU, the SIMT executor:
    the semantic one has no schedules)."""
    options = {"schedule": schedule}
    if unsafe:
        options["unsafe"] = True
    if DEVICE != "cuda":
        options["executor"] = "simt"
    return options


def bits(tensor):
    """The tensor's bits as integers of its width (NaNs compare too)."""
    return tensor.view({8: torch.int64, 4: torch.int32, 2: torch.int16}[tensor.element_size()])


def segment_kernel(example):
    """The @sw.jit kernel of an example."""
    return getattr(EXAMPLES[example], example)


def kernel_arguments(example, inputs, output):
    """The example kernel's arguments= for inputs and an output: each
    parameter `<input>_ptr` takes inputs[<input>], the one left the output
    (as every example's launch() passes them)."""
    names = list(inspect.signature(segment_kernel(example).fn).parameters)
    arguments = {}
    for name in names:
        key = name[:-len("_ptr")] if name.endswith("_ptr") else name
        arguments[name] = inputs[key] if key in inputs else output
    assert sum(value is output for value in arguments.values()) == 1, (example, names)
    return arguments


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


def reference_of(example, inputs):
    """(expected, scale, result lengths): what check_result compares with."""
    expected, scale = sc.torch_reference(example, inputs)
    return expected, scale, sc.torch_result_lengths(example, inputs)


def check_result(example, out, reference, what, seed):
    """None when `out` is within tolerance of reference_of(...); else the
    failure message."""
    expected, scale, lengths = reference
    bad = sc.torch_mismatches(example, out, expected, scale, lengths)
    if not bool(bad.any()):
        return None
    return sc.torch_describe(example, out, expected, scale, bad, what,
                             "%s (module seed %d)" % (seed, MODULE_SEED))


def launch_and_check(example, inputs, what, seed, **options):
    out = new_device_output(example, inputs)
    sync()
    EXAMPLES[example].launch(inputs, out, **options)
    sync()  # a fault in the kernel surfaces here, naming the test
    failure = check_result(example, out, reference_of(example, inputs), what, seed)
    if failure is not None:
        raise AssertionError(failure)
    return out


def determinism_failure(example, first, second, what):
    """None when two results of the same launch are the same bits; else
    the failure message."""
    differ = bits(first) != bits(second)
    if not bool(differ.any()):
        return None
    where = sc.torch_nonzero(differ, 4)
    return ("%s: %s: two launches on the same inputs differ in %d of %d results (not "
            "deterministic), first at %s: %s against %s"
            % (example, what, int(differ.sum()), differ.numel(), where,
               [float(first[i]) for i in where], [float(second[i]) for i in where]))


def schedule_failures(example, inputs, schedules, what, seed, second_unsafe=False):
    """Runs `example` on `inputs` with each of `schedules` twice, each time
    into a fresh poisoned output (the second time with unsafe=True when
    second_unsafe): both results must be within tolerance of the float64
    reference (computed once) and the same bits. Returns the failure
    messages, one or more per failing schedule (a launch that raises ends
    its schedule, not the others)."""
    reference = reference_of(example, inputs)
    failures = []
    for schedule in schedules:
        results = []
        for unsafe in (False, second_unsafe):
            label = "%s, schedule %r%s" % (what, schedule, ", unsafe=True" if unsafe else "")
            out = new_device_output(example, inputs)
            sync()
            try:
                EXAMPLES[example].launch(inputs, out, **schedule_options(schedule, unsafe))
                sync()
            except Exception as e:  # noqa: BLE001 (reported with the schedule; the others run)
                failures.append("%s: %s: raised %s: %s" % (example, label, type(e).__name__,
                                                          str(e)[:1500]))
                break
            failure = check_result(example, out, reference, label, seed)
            if failure is not None:
                failures.append(failure)
            results.append(out)
        if len(results) == 2:
            failure = determinism_failure(example, results[0], results[1],
                                          "%s, schedule %r" % (what, schedule))
            if failure is not None:
                failures.append(failure)
    return failures


# ---- every distribution x example x dtype ------------------------------------------

LOW_PRECISION = (("float16", "int32"), ("bfloat16", "int64"), ("float16", "int64"),
                 ("bfloat16", "int32"))


def low_precision(example, schedule):
    """(dtype, offsets dtype) of an example's rotating runs with a schedule
    (test_every_schedule): fixed per pair, so that each pair loads one more
    module (the driver compiling a module's PTX is most of these tests'
    time on a fresh machine: up to seconds for the larger ones), and every
    schedule meets all four combinations across the examples, every example
    all four across the schedules."""
    return LOW_PRECISION[(sc.EXAMPLE_NAMES.index(example) + SCHEDULES.index(schedule))
                         % len(LOW_PRECISION)]


CASES = [(d, e, t) for d in sc.DISTRIBUTIONS for e in sc.EXAMPLE_NAMES for t in DTYPES]


def distribution_offsets_dtype(example, dtype):
    """test_distribution's offsets dtype: one per example and dtype (each
    pair is a module to load, seconds for the larger ones), chosen so that
    with test_every_schedule's runs of "auto" every example has int32 and
    int64 offsets in float32 and in the low precisions: int64 for float32
    (float32 with int32 is there), the rotating run's for its dtype, the
    other for the other dtype."""
    if dtype == "float32":
        return "int64"
    rotating_dtype, rotating_offsets = low_precision(example, "auto")
    if dtype == rotating_dtype:
        return rotating_offsets
    return "int32" if rotating_offsets == "int64" else "int64"


@pytest.mark.parametrize("distribution,example,dtype", CASES)
def test_distribution(distribution, example, dtype, rng, torch_gen):
    offsets_dtype = distribution_offsets_dtype(example, dtype)
    pad = (3, 5) if offsets_dtype == "int64" else (0, 0)
    inputs = device_inputs(example, distribution_lengths(distribution, GPU_N), dtype,
                           offsets_dtype, torch_gen, *pad)
    launch_and_check(example, inputs, "%s, %s, %s offsets, N=%d"
                     % (distribution, dtype, offsets_dtype, GPU_N), rng.seed)


# ---- every schedule x distribution x example ------------------------------------------

SCHEDULE_CASES = [(d, e) for d in sc.DISTRIBUTIONS for e in sc.EXAMPLE_NAMES]


def rotation(distribution, example):
    """The schedules of a case's rotating runs: two (every third, from the
    case's place in SCHEDULE_CASES, so the same every run), so that each
    schedule runs 21 of the 63 cases, every example on three distributions
    and every distribution with two or three examples."""
    index = SCHEDULE_CASES.index((distribution, example))
    return tuple(s for j, s in enumerate(SCHEDULES) if (index + j) % 3 == 0)


@pytest.mark.parametrize("distribution,example", SCHEDULE_CASES)
def test_every_schedule(distribution, example, rng, torch_gen):
    """Every schedule in float32 with int32 offsets (every other case with
    padded buffers), then the case's rotation: two schedules in float16 or
    bfloat16 with int32 or int64 offsets (int64: padded). Each result
    within tolerance of the float64 reference, elements no segment covers
    keeping their poison, and two launches giving the same bits (in the
    rotation the second launch is unsafe=True, which must not change a bit
    either)."""
    lengths = distribution_lengths(distribution, SCHEDULE_N)
    pads = (3, 5) if SCHEDULE_CASES.index((distribution, example)) % 2 else (0, 0)
    inputs = device_inputs(example, lengths, "float32", "int32", torch_gen, *pads)
    failures = schedule_failures(example, inputs, SCHEDULES,
                                 "%s, float32, int32 offsets, pads %d/%d, N=%d"
                                 % ((distribution,) + pads + (SCHEDULE_N,)), rng.seed)
    del inputs
    for schedule in rotation(distribution, example):
        dtype, offsets_dtype = low_precision(example, schedule)
        pads = (3, 5) if offsets_dtype == "int64" else (0, 0)
        inputs = device_inputs(example, lengths, dtype, offsets_dtype, torch_gen, *pads)
        failures += schedule_failures(example, inputs, [schedule],
                                      "%s, %s, %s offsets, pads %d/%d, N=%d"
                                      % ((distribution, dtype, offsets_dtype) + pads
                                         + (SCHEDULE_N,)), rng.seed, second_unsafe=True)
        del inputs
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_plan_describes_the_launch(schedule, torch_gen):
    """kernel.plan(arguments=..., schedule=...) for every example on one
    distribution: a non-empty text that names the kernel, and nothing run
    (the output keeps its poison)."""
    lengths = distribution_lengths("bimodal", SCHEDULE_N)
    for example in sc.EXAMPLE_NAMES:
        inputs = device_inputs(example, lengths, "float32", "int32", torch_gen)
        out = new_device_output(example, inputs)
        poisoned = out.clone()
        plan = segment_kernel(example).plan(arguments=kernel_arguments(example, inputs, out),
                                            schedule=schedule)
        text = str(plan)
        assert text.strip() and example in text, (
            "%s, schedule %r: the plan should name the kernel:\n%s" % (example, schedule, text))
        sync()
        assert torch.equal(bits(out), bits(poisoned)), (
            "%s, schedule %r: plan() wrote the output" % (example, schedule))


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


# ---- the docs' softmax against torch.softmax ------------------------------------

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
    """Launches with no segments (offsets of one element, values empty or
    not) and with only empty segments (values empty or not), for every
    schedule, checked and unsafe: nothing written but the empty segments'
    results (0, -inf, NaN), the poison kept everywhere else."""
    shapes = [("no segments, %d values from %d" % (length, start), 0, start, length - start)
              for length, start in ((0, 0), (10, 0), (10, 10))]
    shapes += [("1000 empty segments, 8 values", 1000, 4, 4),
               ("1000 empty segments, no values", 1000, 0, 0)]
    for schedule in SCHEDULES:
        # float32 with int32 offsets and the pair's rotating combination (int64
        # offsets for half the examples): modules test_every_schedule loads too
        for dtype, offsets_dtype in (("float32", "int32"), low_precision(example, schedule)):
            for what, segments, before, after in shapes:
                inputs = device_inputs(example, np.zeros(segments, dtype=np.int64), dtype,
                                       offsets_dtype, torch_gen, before, after)
                for unsafe in (False, True):
                    launch_and_check(example, inputs, "%s, %s, %s offsets, schedule %r%s"
                                     % (what, dtype, offsets_dtype, schedule,
                                        ", unsafe=True" if unsafe else ""),
                                     rng.seed, **schedule_options(schedule, unsafe))


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


# Bad offsets over 10 values, and the segment the error must name.
BAD_OFFSETS = (([0, 5, 3, 10], 1),   # decreasing: segment 1 is [5, 3)
               ([-2, 3, 10], 0),     # a negative first offset
               ([0, 4, 11], 1))      # the last offset past the values' end


@pytest.mark.parametrize("schedule", ["auto", "cta"])
def test_bad_offsets_are_rejected_on_the_gpu(schedule, rng, torch_gen):
    """A checked launch with bad offsets (int32 or int64) raises ValueError
    naming the offsets and the first bad segment; the context is still
    usable: a good launch right after it is right."""
    for offsets, segment in BAD_OFFSETS:
        for offsets_dtype in ("int32", "int64"):
            inputs = device_inputs("segmented_softmax", np.zeros(len(offsets) - 1, np.int64),
                                   "float32", offsets_dtype, torch_gen, 0, 10)
            inputs["offsets"] = torch.tensor(offsets, dtype=getattr(torch, offsets_dtype),
                                             device=DEVICE)
            out = new_device_output("segmented_softmax", inputs)
            with pytest.raises(ValueError) as excinfo:
                EXAMPLES["segmented_softmax"].launch(inputs, out, **schedule_options(schedule))
                sync()
            message = str(excinfo.value)
            assert "offset" in message.lower() and re.search(r"\bsegment %d\b" % segment,
                                                             message), (
                "schedule %r, %s offsets %s: the error should name segment %d: %s"
                % (schedule, offsets_dtype, offsets, segment, message))
    sync()  # the context is still usable
    inputs = device_inputs("segmented_softmax", distribution_lengths("tiny-uniform", 1 << 16),
                           "float32", "int32", torch_gen)
    launch_and_check("segmented_softmax", inputs, "a good launch after the bad ones, schedule %r"
                     % schedule, rng.seed, **schedule_options(schedule))


# Run by test_bad_offsets_never_touch_memory_outside_the_buffers in a child
# process: argv[1] the examples' folder, argv[2] the launches (JSON: [example,
# schedule, values dtype, offsets dtype] each). Every buffer is a view into the
# middle of a larger allocation with GUARD elements on each side, more than
# the largest bad offset below 2^40 reaches: the inputs' guards hold NaN (a
# read outside a segment's clamped range makes a NaN result), the output's a
# canary (a write outside the output shows there). One JSON line before each
# launch ("started") and one after it, flushed, so that a fault that kills the
# process still names the launch.
UNSAFE_CHILD = textwrap.dedent(r"""
    import json, sys
    import torch
    sys.path.insert(0, sys.argv[1])
    from segment_examples import EXAMPLES
    GUARD, VALUES, CANARY = 1 << 21, 10, 12288.0  # (exact in float16 and bfloat16)
    OFFSETS = ([0, 5, 3, 10], [-2, 3, 10], [0, 4, 11], [0, 1 << 20, 10], [3, 0, 0, 10],
               [0, 10, 1 << 40], [-(1 << 40), 4, 10])

    def guarded(size, fill, dtype, content=None):
        backing = torch.full((2 * GUARD + size,), fill, dtype=dtype, device="cuda")
        view = backing[GUARD:GUARD + size]
        if content is not None:
            view.copy_(content)
        return backing, view

    def clamped_sums(values, offsets):
        # segment s is [max(min(offsets[s], n), 0), max(min(offsets[s+1], n), start))
        # (docs/segments.md, "Schedules")
        out = []
        for start, end in zip(offsets[:-1], offsets[1:]):
            start = min(max(start, 0), VALUES)
            end = min(max(end, start), VALUES)
            out.append(float(values[start:end].double().sum()))
        return out

    for unsafe in (True, False):
        for name, schedule, dtype_name, offsets_name in json.loads(sys.argv[2]):
            dtype, offsets_dtype = getattr(torch, dtype_name), getattr(torch, offsets_name)
            for offsets in OFFSETS:
                if offsets_name == "int32" and max(map(abs, offsets)) >= 1 << 31:
                    continue
                record = {"schedule": schedule, "unsafe": unsafe, "example": name,
                          "dtype": dtype_name, "offsets_dtype": offsets_name, "offsets": offsets}
                print(json.dumps(dict(record, started=True)), flush=True)
                segments = len(offsets) - 1
                segment_shaped = name == "segmented_softmax"
                size = VALUES if segment_shaped else segments
                nan = float("nan")
                _, values = guarded(VALUES, nan, dtype, torch.randn(VALUES, device="cuda"))
                _, weights = guarded(VALUES, nan, dtype, torch.rand(VALUES, device="cuda"))
                _, scale = guarded(segments, nan, dtype, torch.rand(segments, device="cuda") + 0.5)
                backing, out = guarded(size, CANARY, dtype if segment_shaped else torch.float32)
                inputs = {"values": values, "weights": weights, "scale": scale,
                          "offsets": torch.tensor(offsets, dtype=offsets_dtype, device="cuda")}
                error = None
                try:
                    EXAMPLES[name].launch(inputs, out, schedule=schedule, unsafe=unsafe)
                    torch.cuda.synchronize()
                except Exception as e:
                    error = "%s: %s" % (type(e).__name__, str(e)[:300])
                torch.cuda.synchronize()
                record["error"] = error
                record["guards_intact"] = bool((backing[:GUARD] == CANARY).all()
                                               and (backing[GUARD + size:] == CANARY).all())
                record["nan_read"] = bool(torch.isnan(out).any())
                if name == "segmented_sum" and unsafe and error is None:
                    expected = clamped_sums(values, offsets)
                    got = out.double().tolist()
                    bound = 1e-5 * float(values.abs().double().sum()) + 1e-6
                    if any(abs(g - e) > bound for g, e in zip(got, expected)):
                        record["not_clamped"] = {"got": got, "clamped": expected}
                print(json.dumps(record), flush=True)
    print(json.dumps({"done": True}), flush=True)
""")


def child_records(output):
    """The JSON lines the child printed: (records, the launch it started
    last and did not finish, whether it printed its last line)."""
    records, started, done = [], None, False
    for line in output.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("done"):
            done = True
        elif record.pop("started", False):
            started = record
        else:
            records.append(record)
            started = None
    return records, started, done


@needs_cuda
def test_bad_offsets_never_touch_memory_outside_the_buffers():
    """Bad offsets (decreasing, negative, past the end, up to 2^40) for the
    sum, the softmax and the weighted sum in every schedule, in a child
    process so that a fault cannot take this process's CUDA context down:
    with unsafe=True the launch neither faults nor raises, and sums are of
    the segments clamped to the buffers; a checked launch raises ValueError
    naming a segment. Either way nothing is read outside the inputs (their
    guards hold NaN) and nothing written outside the output (its guards
    keep their canary). In float32 with int32 offsets and in each pair's
    rotating combination (low_precision): the modules test_every_schedule
    loaded, so that the driver's cache of compiled PTX spares the child
    the time of loading them again."""
    launches = [[example, schedule, dtype, offsets_dtype]
                for example in ("segmented_sum", "segmented_softmax", "weighted_sum")
                for schedule in SCHEDULES
                for dtype, offsets_dtype in (("float32", "int32"),
                                             low_precision(example, schedule))]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python")] + [
        p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    child = subprocess.run([sys.executable, "-c", UNSAFE_CHILD, EXAMPLES_DIR,
                            json.dumps(launches)],
                           capture_output=True, text=True, timeout=120, env=env)
    records, started, done = child_records(child.stdout)
    assert child.returncode == 0 and done, (
        "the child process failed (a GPU fault?) %s:\n%s"
        % ("during the launch %s" % json.dumps(started) if started else "",
           (child.stdout + child.stderr)[-3000:]))
    problems = []
    for r in records:
        what = "schedule %r, %s, %s, %s, %s offsets %s" % (
            r["schedule"], "unsafe=True" if r["unsafe"] else "checked", r["example"], r["dtype"],
            r["offsets_dtype"], r["offsets"])
        if not r["guards_intact"]:
            problems.append("%s: wrote outside the output" % what)
        if r["nan_read"]:
            problems.append("%s: read outside the inputs (a NaN result)" % what)
        if r["unsafe"] and r["error"] is not None:
            problems.append("%s: raised %s" % (what, r["error"]))
        if not r["unsafe"] and not re.match(r"ValueError: .*\bsegment \d", r["error"] or "", re.S):
            problems.append("%s: should raise ValueError naming a segment, got %s"
                            % (what, r["error"]))
        if "not_clamped" in r:
            problems.append("%s: sums %s, but the segments clamped to the buffers sum to %s"
                            % (what, r["not_clamped"]["got"], r["not_clamped"]["clamped"]))
    ran = {(r["example"], r["schedule"], r["dtype"], r["offsets_dtype"], r["unsafe"])
           for r in records}
    assert len(ran) == 2 * len(launches), "the child did not run every launch: %s" % sorted(ran)
    assert not problems, "\n".join(problems)


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


# ---- CUDA graphs ------------------------------------------------------------------------

def refill(example, inputs, lengths, torch_gen, new_order=None):
    """Writes new values (and weights, scale) into the inputs' own buffers;
    with new_order (a permutation of the segments), new offsets too: the
    same lengths in that order, so the count and the total stay."""
    offsets_dtype = str(inputs["offsets"].dtype).replace("torch.", "")
    start = int(inputs["offsets"][0])
    fresh = device_inputs(example, lengths, str(inputs["values"].dtype).replace("torch.", ""),
                          offsets_dtype, torch_gen, start,
                          inputs["values"].numel() - start - int(lengths.sum()))
    for key, tensor in inputs.items():
        if key != "offsets":
            tensor.copy_(fresh[key])
    if new_order is not None:
        inputs["offsets"].copy_(torch.from_numpy(
            sc.offsets_from_lengths(lengths[new_order], offsets_dtype, start)).to(DEVICE))


@needs_cuda
@pytest.mark.parametrize("schedule", ["auto", "persistent"])
@pytest.mark.parametrize("distribution", ["one-outlier", "bimodal"])
@pytest.mark.parametrize("example", ["segmented_softmax", "segmented_sum"])
def test_unsafe_launch_in_a_cuda_graph(example, distribution, schedule, rng, torch_gen):
    """An unsafe launch captured with torch.cuda.graph on a side stream
    (warmed up first on that stream, outside the capture: compile, module
    load, scratch), then replayed after new values were written into the
    same input buffers: the output is the result of the new values, and
    the same bits as an eager launch on them. A last replay after new
    offsets (the same lengths in another order) were written too: the
    segments are classified on the device, so the graph follows them.
    One-outlier and bimodal at N = 2^22 run the list and split kernels."""
    lengths = distribution_lengths(distribution, SCHEDULE_N)
    inputs = device_inputs(example, lengths, "float32", "int32", torch_gen, 3, 5)
    out = new_device_output(example, inputs)
    options = schedule_options(schedule, unsafe=True)
    launch = EXAMPLES[example].launch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            launch(inputs, out, **options)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    failure = check_result(example, out, reference_of(example, inputs), "%s, schedule %r, "
                           "warm-up on a side stream" % (distribution, schedule), rng.seed)
    assert failure is None, failure

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        launch(inputs, out, **options)
    torch.cuda.synchronize()
    plan = str(segment_kernel(example).plan(arguments=kernel_arguments(example, inputs, out),
                                            schedule=schedule))
    for replay, new_order in enumerate([None, None, rng.permutation(len(lengths))]):
        what = "%s, schedule %r, graph replay %d%s" % (
            distribution, schedule, replay, " with new offsets" if new_order is not None else "")
        refill(example, inputs, lengths, torch_gen, new_order)
        out.fill_(sc.poison_value(example))
        graph.replay()
        torch.cuda.synchronize()
        failure = check_result(example, out, reference_of(example, inputs), what, rng.seed)
        assert failure is None, failure + "\nthe plan of the captured launch:\n" + plan
        eager = new_device_output(example, inputs)
        launch(inputs, eager, **options)
        torch.cuda.synchronize()
        failure = determinism_failure(example, eager, out, what + " against an eager launch")
        assert failure is None, failure


# ---- the kept scratch (python/swage/_jit.py, _ScratchCache) --------------------------------
#
# Warm launches keep one scratch per (device, stream) and do not clear it: the
# task kernels leave its header clean (src/plan/task_kernels.c). These run
# launches back to back with no synchronisation between them, so that a
# counter left behind by one would send the next one's segments astray.

def kept_scratch_entries():
    from swage import _jit
    return _jit._scratch_cache.entries


@needs_cuda
@pytest.mark.parametrize("schedule", ["auto", "persistent", "split"])
@pytest.mark.parametrize("example", ["segmented_softmax", "segmented_sum"])
def test_kept_scratch_back_to_back(example, schedule, rng, torch_gen):
    """Launches of one-outlier, bimodal and tiny-uniform batches one after
    another on one stream, unsafe and checked, without a synchronisation:
    every result right, and a batch launched again gives the same bits."""
    cases = []
    for distribution in ("one-outlier", "bimodal", "tiny-uniform", "one-outlier", "bimodal"):
        inputs = device_inputs(example, distribution_lengths(distribution, SCHEDULE_N // 4),
                               "float32", "int32", torch_gen)
        cases.append((distribution, inputs))
    outs = []
    for round_ in range(2):
        for i, (distribution, inputs) in enumerate(cases):
            out = new_device_output(example, inputs)
            EXAMPLES[example].launch(inputs, out, **schedule_options(schedule, unsafe=i % 2 == 0))
            outs.append((round_, distribution, inputs, out))
    sync()
    if DEVICE == "cuda" and os.environ.get("SWAGE_SCRATCH_CACHE", "").strip() != "0":
        assert kept_scratch_entries(), "no scratch was kept"
    first = {}
    for index, (round_, distribution, inputs, out) in enumerate(outs):
        what = "%s, schedule %r, launch %d of %d back to back" % (distribution, schedule, index,
                                                                  len(outs))
        failure = check_result(example, out, reference_of(example, inputs), what, rng.seed)
        assert failure is None, failure
        key = index % len(cases)
        if key in first:
            failure = determinism_failure(example, first[key], out, what + " against round 0")
            assert failure is None, failure
        else:
            first[key] = out


@needs_cuda
def test_kept_scratch_on_two_streams(rng, torch_gen):
    """Launches queued on two streams at once (each stream its own kept
    scratch; nothing orders the two): every result right."""
    example = "segmented_softmax"
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    work = []
    for s, stream in enumerate(streams):
        for distribution in ("bimodal", "one-outlier", "tiny-uniform"):
            inputs = device_inputs(example, distribution_lengths(distribution, SCHEDULE_N // 4),
                                   "float32", "int32", torch_gen)
            work.append((s, distribution, inputs, new_device_output(example, inputs)))
    torch.cuda.synchronize()
    for _ in range(3):
        for s, distribution, inputs, out in work:
            with torch.cuda.stream(streams[s]):
                EXAMPLES[example].launch(inputs, out, unsafe=True)
    torch.cuda.synchronize()
    for s, distribution, inputs, out in work:
        failure = check_result(example, out, reference_of(example, inputs),
                               "%s on stream %d of 2" % (distribution, s), rng.seed)
        assert failure is None, failure
    if os.environ.get("SWAGE_SCRATCH_CACHE", "").strip() != "0":
        entries = kept_scratch_entries()
        addresses = [entries[(torch.cuda.current_device(), stream.cuda_stream)][1]
                     for stream in streams]
        assert addresses[0] != addresses[1]


@needs_cuda
def test_kept_scratch_and_graph_replays_interleaved(rng, torch_gen):
    """A graph captured on a stream whose scratch is kept (eager launches
    there first) takes a scratch of its own: replays and eager launches
    interleaved on that stream all give the right results."""
    example = "segmented_softmax"
    lengths = distribution_lengths("one-outlier", SCHEDULE_N)
    inputs = device_inputs(example, lengths, "float32", "int32", torch_gen)
    other = device_inputs(example, distribution_lengths("bimodal", SCHEDULE_N // 2), "float32",
                          "int32", torch_gen)
    out, eager = new_device_output(example, inputs), new_device_output(example, other)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            EXAMPLES[example].launch(inputs, out, unsafe=True)
            EXAMPLES[example].launch(other, eager, unsafe=True)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        EXAMPLES[example].launch(inputs, out, unsafe=True)
    torch.cuda.synchronize()
    for replay in range(3):
        out.fill_(sc.poison_value(example))
        eager.fill_(sc.poison_value(example))
        with torch.cuda.stream(side):
            graph.replay()
            EXAMPLES[example].launch(other, eager, unsafe=True)
            graph.replay()
            EXAMPLES[example].launch(other, eager)  # checked: one synchronisation
        torch.cuda.synchronize()
        for what, result, source in (("replay", out, inputs), ("eager", eager, other)):
            failure = check_result(example, result, reference_of(example, source),
                                   "%s %d interleaved" % (what, replay), rng.seed)
            assert failure is None, failure


@needs_cuda
def test_kept_scratch_after_bad_offsets(rng, torch_gen):
    """A checked launch with bad offsets raises; the kept scratch's flag is
    cleared, so the good checked launches after it on the same stream pass
    and are right (also for a batch whose segments go to the lists)."""
    example = "segmented_sum"
    good = device_inputs(example, distribution_lengths("bimodal", SCHEDULE_N // 4), "float32",
                         "int32", torch_gen)
    out = new_device_output(example, good)
    EXAMPLES[example].launch(good, out)  # warm: the stream's scratch is kept from here
    for offsets, _ in BAD_OFFSETS:
        bad = device_inputs(example, np.zeros(len(offsets) - 1, np.int64), "float32", "int32",
                            torch_gen, 0, 10)
        bad["offsets"] = torch.tensor(offsets, dtype=torch.int32, device=DEVICE)
        with pytest.raises(ValueError):
            EXAMPLES[example].launch(bad, new_device_output(example, bad))
        for unsafe in (False, True, False):
            out.fill_(sc.poison_value(example))
            EXAMPLES[example].launch(good, out, unsafe=unsafe)
            sync()
            failure = check_result(example, out, reference_of(example, good),
                                   "a good launch after bad offsets %s" % (offsets,), rng.seed)
            assert failure is None, failure


@needs_cuda
@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_example_runs_on_the_gpu(example, capsys):
    """`python3 examples/<example>.py` in this process: it picks the GPU and
    its one-line check passes."""
    status = EXAMPLES[example].main(["--segments", "20000"])
    printed = capsys.readouterr().out.strip()
    assert status == 0 and "on the GPU" in printed and printed.endswith(": OK"), printed
