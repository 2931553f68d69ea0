#!/usr/bin/env python3
"""Every schedule of a few segment programs on every segment-length
distribution, at small sizes, with good offsets and with hostile ones: the
program tools/gpu_run.sh runs under compute-sanitizer's memcheck,
racecheck, synccheck and initcheck, e.g.

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 tools/gpu_sanitize.py

Cases, in order: for every batch ("mix", one batch with every policy in
it: empty, singleton, tiny, medium and long segments; then each
distribution of segment_cases.DISTRIBUTIONS), every example of
EXAMPLES_RUN and every schedule of SCHEDULES:

- a checked launch on good offsets, its result compared with the float64
  reference (segment_cases.check), so a run the sanitizer lets pass is also
  a correct one;
- unsafe=True launches on hostile offsets (HOSTILE: negative, decreasing,
  past the end, an offsets[0] above 0, int32 extremes, random, int64 beyond
  2^32): one pattern per case, in rotation, on the distributions, and every
  pattern on the mix. The generated code must clamp each segment to the
  buffers (docs/segments.md, "Offsets"): one-per-segment results are checked
  against sums over the clamped segments, and a segment-shaped result
  (softmax) where exactly one clamped segment covers an element; elements
  that no clamped segment covers must keep their poison; every clamped
  segment must be written.

Distributions are drawn at about SWAGE_SANITIZE_N elements, except that a
batch keeps to at most SWAGE_SANITIZE_MAX_SEGMENTS segments (all-singleton
is drawn smaller): forced "split" runs every segment as split tasks, which
is slow under a sanitizer for tens of thousands of segments.

PyTorch's caching allocator is turned off (PYTORCH_NO_CUDA_MEMORY_CACHING=1,
unless set otherwise), so that every buffer is an allocation of its own and
memcheck sees a read or write past its end (inside a cached block it would
not), and initcheck sees fresh, uninitialised memory.

Environment (all optional):

    SWAGE_SANITIZE_N              elements per distribution (default 16384)
    SWAGE_SANITIZE_DISTRIBUTIONS  a comma list of batches to run: names of
                                  DISTRIBUTIONS and "mix" (default: all)
    SWAGE_SANITIZE_MAX_SEGMENTS   segments per batch at most (default 4096)
    SWAGE_SANITIZE_SEED           the random seed (default: fresh, printed)
    SWAGE_SANITIZE_BUDGET_S       stop starting cases this many seconds after
                                  the script started (default: no limit); the
                                  cases left are reported as skipped and the
                                  run fails (a sanitizer killed by a time
                                  limit would print no summary at all)
    SWAGE_SANITIZE_DEVICE         "cuda" (default) or "cpu": on the CPU the
                                  cases run on NumPy arrays with the SIMT
                                  executor (executor="simt"), to try this
                                  script without a GPU

Prints one line per case and last "sanitize cases: N run, M failed" (and
", K skipped (...)" when some did not run); exits 1 if any failed or was
skipped.
"""

import os
import sys
import time

STARTED = time.monotonic()  # SWAGE_SANITIZE_BUDGET_S counts from here

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for path in (os.path.join(REPO, "python"), os.path.join(REPO, "test", "python"),
             os.path.join(REPO, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)

import numpy as np  # noqa: E402

import segment_cases as sc  # noqa: E402

SCHEDULES = ("auto", "subwarp", "warp", "cta", "split", "persistent")
EXAMPLES_RUN = ("segmented_sum", "segmented_softmax", "weighted_sum")
MIX = "mix"
# the mix first: a run cut short by its time budget has still run every pattern
BATCHES = (MIX,) + tuple(sc.DISTRIBUTIONS)

DEFAULT_N = 1 << 14
DEFAULT_MAX_SEGMENTS = 4096
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


# ---- options -----------------------------------------------------------------------------

class Options:
    def __init__(self, n, batches, max_segments, seed, budget_s, device):
        self.n, self.batches, self.max_segments = n, batches, max_segments
        self.seed, self.budget_s, self.device = seed, budget_s, device


def _int(env, name, default, minimum):
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text, 0)
    except ValueError:
        raise ValueError("%s=%r is not an integer" % (name, text)) from None
    if value < minimum:
        raise ValueError("%s=%d: it must be at least %d" % (name, value, minimum))
    return value


def parse_batches(text):
    """The batches named by a comma list ("" or "all": every one), in
    BATCHES order."""
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    if not names or names == ["all"]:
        return BATCHES
    unknown = [name for name in names if name not in BATCHES]
    if unknown:
        raise ValueError("SWAGE_SANITIZE_DISTRIBUTIONS: unknown %s (known: %s)"
                         % (", ".join(repr(name) for name in unknown), ", ".join(BATCHES)))
    return tuple(batch for batch in BATCHES if batch in names)


def options_from(env):
    device = env.get("SWAGE_SANITIZE_DEVICE", "").strip() or "cuda"
    if device not in ("cuda", "cpu"):
        raise ValueError("SWAGE_SANITIZE_DEVICE=%r: it must be cuda or cpu" % device)
    budget = env.get("SWAGE_SANITIZE_BUDGET_S", "").strip()
    try:
        budget_s = float(budget) if budget else None
    except ValueError:
        raise ValueError("SWAGE_SANITIZE_BUDGET_S=%r is not a number" % budget) from None
    seed = _int(env, "SWAGE_SANITIZE_SEED", None, 0)
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    return Options(n=_int(env, "SWAGE_SANITIZE_N", DEFAULT_N, 1),
                   batches=parse_batches(env.get("SWAGE_SANITIZE_DISTRIBUTIONS")),
                   max_segments=_int(env, "SWAGE_SANITIZE_MAX_SEGMENTS", DEFAULT_MAX_SEGMENTS, 1),
                   seed=seed, budget_s=budget_s, device=device)


# ---- batches -----------------------------------------------------------------------------

def lengths_mix(rng, n):
    """Every policy in one batch: empty, singletons, tiny, medium, long."""
    parts = [np.zeros(7, np.int64), np.ones(50, np.int64), rng.integers(2, 64, 200),
             rng.integers(100, 1500, 20), rng.integers(3000, 9000, 3), np.array([n // 2])]
    lengths = np.concatenate(parts).astype(np.int64)
    rng.shuffle(lengths)
    return lengths


def batch_lengths(batch, n, max_segments, rng):
    """Segment lengths of one batch at about n elements and at most
    max_segments segments (a distribution with more at n is drawn at a
    proportionally smaller n)."""
    if batch == MIX:
        return lengths_mix(rng, n)[:max_segments]
    lengths = sc.lengths(batch, n, rng)
    while len(lengths) > max_segments:
        n = max(1, n * max_segments // len(lengths))
        lengths = sc.lengths(batch, n, rng)
    return lengths


# ---- hostile offsets ---------------------------------------------------------------------
# Each pattern maps good offsets (int64, len segments + 1) and the values'
# length n to bad ones and the dtype to pass them as. Every one breaks the
# rules a checked launch enforces (start >= 0, never decreasing, end <= n).

def _negative_and_past_end(o, n, rng):
    o[len(o) // 3] = -5
    o[len(o) // 2] = o[-1] + 1000
    return o, np.int32


def _all_past_end(o, n, rng):
    return n + 1 + 3 * np.arange(len(o), dtype=np.int64), np.int32


def _decreasing_run(o, n, rng):
    first = (len(o) - 1) // 4
    run = max(2, min(len(o) - first, len(o) // 2 + 1))
    top = max(n, run)
    o[first:first + run] = np.linspace(top, 0, run).astype(np.int64)
    return o, np.int32


def _start_above_zero(o, n, rng):
    return o + max(1, n // 7), np.int32


def _int32_extremes(o, n, rng):
    at = (len(o) - 1) // 4
    o[at] = INT32_MAX
    o[min(at + 1, len(o) - 1)] = INT32_MIN
    if at + 2 < len(o):
        o[at + 2] = INT32_MAX
    return o, np.int32


def _random(o, n, rng):
    o = rng.integers(-n - 10, 2 * n + 11, len(o)).astype(np.int64)
    # one offset outside 0..n, so that even two offsets are never valid by chance
    o[rng.integers(0, len(o))] = (-1 - int(rng.integers(0, n + 1)) if rng.random() < 0.5
                                  else n + 1 + int(rng.integers(0, n + 1)))
    return o, np.int32


def _int64_beyond_2_32(o, n, rng):
    at = len(o) // 2
    o[at] = 1 << 40
    o[min(at + 1, len(o) - 1)] = -(1 << 40)
    o[-1] += 1 << 33
    return o, np.int64


HOSTILE = (
    ("negative-and-past-end", _negative_and_past_end),
    ("all-past-end", _all_past_end),
    ("decreasing-run", _decreasing_run),
    ("start-above-zero", _start_above_zero),
    ("int32-extremes", _int32_extremes),
    ("random", _random),
    ("int64-beyond-2^32", _int64_beyond_2_32),
)
HOSTILE_NAMES = tuple(name for name, _ in HOSTILE)


def hostile_offsets(name, offsets, n, rng):
    """The offsets of pattern `name` made from good `offsets` (NumPy), as
    the array to launch with."""
    bad, dtype = dict(HOSTILE)[name](np.asarray(offsets, dtype=np.int64).copy(), int(n), rng)
    assert bad.min() >= np.iinfo(dtype).min and bad.max() <= np.iinfo(dtype).max, name
    return bad.astype(dtype)


def offsets_are_valid(offsets, n):
    """What a checked launch accepts: starts at >= 0, never decreases, ends
    at <= n."""
    o = np.asarray(offsets, dtype=np.int64)
    return bool(o[0] >= 0 and o[-1] <= n and (np.diff(o) >= 0).all())


def clamped_segments(offsets, n):
    """(start, end) of every segment as the generated code clamps it:
    start = clamp(offsets[s], 0, n), end = max(clamp(offsets[s + 1], 0, n), start)."""
    o = np.asarray(offsets, dtype=np.int64)
    start = np.clip(o[:-1], 0, n)
    end = np.maximum(np.clip(o[1:], 0, n), start)
    return start, end


def clamped_reference(example, inputs, offsets):
    """(expected, scale, lengths, owner) for `example` on hostile `offsets`:
    per-segment results over the clamped segments (owner[s] = s); for a
    segment-shaped result, the softmax of the one clamped segment covering
    an element (owner: that segment), NaN (the poison stays) where none
    does (owner -1), and owner -2 where several do (either segment's store
    may land last: not compared)."""
    x = np.asarray(inputs["values"]).astype(np.float64)
    n = len(x)
    start, end = clamped_segments(offsets, n)
    if example not in sc.SEGMENT_SHAPED:
        terms = x
        if example == "weighted_sum":
            terms = x * np.asarray(inputs["weights"]).astype(np.float64)
        elif example != "segmented_sum":
            raise ValueError("no clamped reference for %r" % example)
        total = np.concatenate([[0.0], np.cumsum(terms)])
        magnitude = np.concatenate([[0.0], np.cumsum(np.abs(terms))])
        expected = total[end] - total[start]
        scale = magnitude[end] - magnitude[start]
        if example == "weighted_sum":
            s = np.asarray(inputs["scale"]).astype(np.float64)
            expected, scale = expected * s, scale * np.abs(s)
        lengths = (end - start).astype(np.float64)
        return expected, scale, lengths, np.arange(len(expected))
    if example != "segmented_softmax":
        raise ValueError("no clamped reference for %r" % example)
    cover = np.zeros(n + 1, dtype=np.int64)
    np.add.at(cover, start, 1)
    np.add.at(cover, end, -1)
    cover = np.cumsum(cover)[:n]
    expected = np.full(n, np.nan)
    lengths = np.zeros(n)
    owner = np.where(cover == 0, -1, -2)
    for segment, (a, b) in enumerate(zip(start.tolist(), end.tolist())):
        if b <= a:
            continue
        once = cover[a:b] == 1
        if not once.any():
            continue
        e = np.exp(x[a:b] - x[a:b].max())
        expected[a:b][once] = (e / e.sum())[once]
        lengths[a:b][once] = b - a
        owner[a:b][once] = segment
    return expected, np.abs(np.nan_to_num(expected)), lengths, owner


def check_clamped(example, actual, inputs, offsets, what):
    """Asserts that `actual` is what clamping gives (clamped_reference):
    every clamped segment written, with its values, and nothing else."""
    expected, scale, lengths, owner = clamped_reference(example, inputs, offsets)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, "%s: %s: shape %s, expected %s" % (
        example, what, actual.shape, expected.shape)
    bad = sc.mismatches(example, actual, expected, scale, lengths, sc.dtype_name(actual))
    bad &= owner != -2
    assert not bad.any(), sc.describe(example, actual, expected, scale, bad,
                                      what + " (segments clamped to the buffers)")


# ---- the cases ---------------------------------------------------------------------------

def case_plan(batches, examples=EXAMPLES_RUN, schedules=SCHEDULES):
    """(batch, example, schedule, hostile pattern or None) in run order:
    for each, a checked launch on good offsets, then unsafe launches on
    hostile offsets (one pattern in rotation; every pattern on the mix)."""
    cases = []
    for b, batch in enumerate(batches):
        for e, example in enumerate(examples):
            for s, schedule in enumerate(schedules):
                cases.append((batch, example, schedule, None))
                if batch == MIX:
                    patterns = HOSTILE_NAMES
                else:
                    patterns = (HOSTILE_NAMES[(BATCHES.index(batch) + e + s) % len(HOSTILE)],)
                cases.extend((batch, example, schedule, name) for name in patterns)
    return cases


class Device:
    """Where the cases run: "cuda" (PyTorch tensors) or "cpu" (NumPy
    arrays, the SIMT executor)."""

    def __init__(self, kind):
        self.kind = kind
        self.torch = None
        self.options = {"executor": "simt"} if kind == "cpu" else {}
        if kind == "cuda":
            os.environ.setdefault("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("PyTorch sees no CUDA device (SWAGE_SANITIZE_DEVICE=cpu runs "
                                   "the cases on the CPU)")
            self.torch = torch

    def put(self, array):
        array = np.ascontiguousarray(array)
        if self.torch is None:
            return array.copy()
        return self.torch.from_numpy(array).cuda()

    def get(self, array):
        if self.torch is None:
            return array
        return array.cpu().numpy()

    def sync(self):
        if self.torch is not None:
            self.torch.cuda.synchronize()


def run_case(device, example, inputs, dev_inputs, reference, schedule, hostile, rng):
    """One launch and its check; raises AssertionError (a wrong result) or
    whatever the launch raised."""
    from segment_examples import EXAMPLES
    out_host = sc.new_output(example, inputs)
    out = device.put(out_host)
    if hostile is None:
        EXAMPLES[example].launch(dev_inputs, out, schedule=schedule, **device.options)
        device.sync()
        sc.check(example, device.get(out), inputs, "%s, schedule %s" % (example, schedule),
                 expected_scale=reference)
        return
    offsets = hostile_offsets(hostile, inputs["offsets"], len(inputs["values"]), rng)
    bad_inputs = dict(dev_inputs, offsets=device.put(offsets))
    EXAMPLES[example].launch(bad_inputs, out, schedule=schedule, unsafe=True, **device.options)
    device.sync()
    check_clamped(example, device.get(out), inputs, offsets,
                  "%s, schedule %s, unsafe=True, %s offsets" % (example, schedule, hostile))


def main(env=None):
    env = os.environ if env is None else env
    opts = options_from(env)
    rng = np.random.default_rng(opts.seed)
    device = Device(opts.device)
    cases = case_plan(opts.batches)
    print("gpu_sanitize: %d cases on %s: batches %s; n=%d, at most %d segments; seed %d "
          "(SWAGE_SANITIZE_SEED=%d repeats it)"
          % (len(cases), opts.device, ",".join(opts.batches), opts.n, opts.max_segments,
             opts.seed, opts.seed), flush=True)
    start = STARTED
    run = failed = 0
    skipped, why_skipped = 0, ""
    current = None  # (batch, example) whose inputs are made
    batch_of = {}
    for index, (batch, example, schedule, hostile) in enumerate(cases):
        if opts.budget_s is not None and time.monotonic() - start >= opts.budget_s:
            skipped = len(cases) - index
            why_skipped = "the time budget of %gs (SWAGE_SANITIZE_BUDGET_S) ran out" % opts.budget_s
            print("stopping: %s; %d cases not run" % (why_skipped, skipped), flush=True)
            break
        if current != (batch, example):
            if batch not in batch_of:
                batch_of[batch] = batch_lengths(batch, opts.n, opts.max_segments, rng)
            inputs = sc.make_inputs(example, batch_of[batch], rng)
            reference = sc.reference(example, inputs)
            dev_inputs = {k: device.put(v) for k, v in inputs.items()}
            current = (batch, example)
        label = "%-18s %-10s %-17s %s" % (
            example, schedule, batch,
            "checked, %d segments, %d elements" % (len(inputs["offsets"]) - 1,
                                                   len(inputs["values"]))
            if hostile is None else "unsafe, %s offsets" % hostile)
        t0 = time.monotonic()
        run += 1
        try:
            run_case(device, example, inputs, dev_inputs, reference, schedule, hostile, rng)
            print("ok   %s  %.2fs" % (label, time.monotonic() - t0), flush=True)
            continue
        except Exception as e:  # a wrong result, or the launch raised
            failed += 1
            kind = "" if isinstance(e, AssertionError) else type(e).__name__ + ": "
            print("FAIL %s: %s%s" % (label, kind, str(e)[:600]), flush=True)
        try:
            device.sync()
        except Exception as e:
            skipped = len(cases) - index - 1
            why_skipped = "the CUDA context is unusable after that failure"
            print("stopping: %s (%s); %d cases not run" % (why_skipped, str(e)[:200], skipped),
                  flush=True)
            break
    summary = "sanitize cases: %d run, %d failed" % (run, failed)
    if skipped:
        summary += ", %d skipped (%s)" % (skipped, why_skipped)
    print("%s  (%.1fs)" % (summary, time.monotonic() - start), flush=True)
    return 1 if failed or skipped else 0


if __name__ == "__main__":
    sys.exit(main())
