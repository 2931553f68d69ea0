#!/usr/bin/env python3
"""Segment sum, max and softmax on one GPU: Swage, with every schedule,
against its peers on every segment-length distribution of the differential
suite (test/python/segment_cases.py),
and (--sweep) across mean segment lengths from 1 to 2^20.

For each distribution (test/python/segment_cases.py; N = 2^26 float32
elements, so one-outlier is 2^20 x 32 plus one of 2^25 and few-huge is
8 x 2^23) and each op (sum, max, softmax), it runs:

- Swage: the example kernels (examples/segmented_{sum,max,softmax}.py) with
  unsafe=True (no offsets check: the peers do none either): "swage" with
  schedule="auto" (the headline: the launch picks a policy per segment from
  the lengths), and "swage_subwarp", "swage_warp", "swage_cta",
  "swage_split", "swage_persistent", each forcing that one schedule
  (docs/schedules.md); "swage_checked" is the default launch (schedule auto,
  with its offsets check), for reference;
- torch.segment_reduce(values, "sum" | "max", offsets=..., unsafe=True);
- CUB cub::DeviceSegmentedReduce::Sum / ::Max (bench/peers/cub_segreduce.cu,
  built here with nvcc, called through ctypes on PyTorch's current stream);
- Triton, one program per segment (bench/peers/triton_segments.py);
- PyG torch_geometric.utils.softmax(values, ptr=offsets) (softmax only);
- PyTorch nested jagged tensors: nested_tensor_from_jagged(values, offsets)
  then .sum(dim=1) / .amax(dim=1) / torch.softmax(nt, dim=1);
- and the device copy (torch copy_ of 2^27 floats, bytes read + written).

Method (docs/testing.md, "The segments benchmark"): each peer's result, and each
Swage schedule's, is checked against a float64 reference
(segment_cases.torch_reference; tolerance 4x the GPU suite's, NaN never
passes) before it is timed, with its output poisoned by NaN where the peer
writes into a buffer we give it; a peer that is wrong is reported wrong and
not timed, one that fails reports its error (out of memory, unsupported). A
Swage entry (any schedule) that is wrong or fails is also an error of the
run. Bandwidth is counted over the MINIMUM bytes: values read once, offsets
(int32) read once, outputs written once (one float per segment for sum and
max, one per element for softmax), as a fraction of the measured device
copy bandwidth.

Timing: triton.testing.do_bench medians of CUDA-event times (its L2 flush
between runs). Swage auto and every peer are timed in --rounds (2)
interleaved rounds of do_bench(warmup 10 ms, rep 40 ms); reported: the mean
of the medians and their spread. The forced schedules come after, in
--forced-rounds (1) rounds of do_bench(5 ms, 20 ms). A variant whose one
call takes more than half of its rep (measured once after the check) is
timed instead as the median of 3 calls, each after an L2 flush, with CUDA
events: do_bench would time it only once or twice after 7 untimed calls.
Forced split puts every segment in a CTA task of its own, so it is slow by
design on many short segments: it runs last, and where one call takes more
than --split-limit-ms (50) it is checked but not timed ("skipped", with the
reason); so is any other forced schedule whose call takes more than
--forced-limit-ms (250) and 4x auto's (16 lanes streaming a segment of 2^23
elements, say): far slower than auto, it cannot be the best forced one.

Each distribution runs in a child process, so a fault in one (a GPU fault
poisons a CUDA context) cannot stop the others; within a child the peers
run before Swage (CUB after it: its library may still be building), the
forced schedules after all of them. A time budget (--budget-s) skips what
is left when it is spent, and says so; each distribution keeps
--child-reserve-s for every one still to come.

The sweep (--sweep, its own budget --sweep-budget-s): for mean segment
lengths 1, 4, 16, ... 2^20 at about N elements, two families -- "uniform"
(lengths uniform in [1, 2 mean - 1]) and "power-law" (Pareto, alpha 1.2,
scaled so that the mean is about the target, capped at N / 4) -- ops sum and
softmax, Swage auto and the forced schedules, torch (sum), Triton and CUB
(sum), each checked, then timed once with do_bench(5 ms, --sweep-rep-ms 20).
Mean 1 is all ones in both families: power-law's point is uniform's,
measured once. The points run longest mean first in one child process (a
new one for the rest when one dies), each with a share of what is left of
the budget.

Writes a JSON record (--json: date, GPU, commit, command, every number), a
PNG chart (--png: fraction of copy bandwidth per distribution, log scale,
one panel per op; bars for Swage auto, the best forced schedule and each
peer, a marker per forced schedule), the sweep's PNG (--sweep-png: fraction
of copy bandwidth against mean segment length, one panel per family and op),
the plans' PNG (--plan-png: per distribution, segments and elements per
policy of schedule auto's plan for the sum, from kernel.plan: a
segment-length histogram by policy) and prints a compact table last
(--table also writes it to a file).

    SWAGE_LIB=build-gpu/libswage.so PYTHONPATH=python python3 bench/segments.py \\
        --json out.json --png out.png [--sweep --sweep-png sweep.png]
    python3 bench/segments.py --cpu-smoke [--sweep]  # the code paths on the CPU, tiny sizes
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import common  # noqa: E402  (also puts the tree's python/ on sys.path)

for _path in (os.path.join(REPO, "test", "python"), os.path.join(REPO, "examples")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import numpy as np  # noqa: E402

import segment_cases as sc  # noqa: E402

OPS = ("sum", "max", "softmax")
EXAMPLE_OF = {"sum": "segmented_sum", "max": "segmented_max", "softmax": "segmented_softmax"}
PEERS = {"sum": ("torch", "triton", "njt", "cub"), "max": ("torch", "triton", "njt", "cub"),
         "softmax": ("triton", "pyg", "njt")}
SCHEDULES = ("subwarp", "warp", "cta", "split", "persistent")  # the forced ones
FORCED = tuple("swage_" + s for s in SCHEDULES)
SWAGE = ("swage", "swage_checked") + FORCED
SCHEDULE_OF = dict([("swage", "auto"), ("swage_checked", "auto")]
                   + [("swage_" + s, s) for s in SCHEDULES])
ALL_PEERS = SWAGE + ("torch", "cub", "triton", "pyg", "njt")
LABELS = {"swage": "Swage (auto)", "swage_checked": "Swage (checked launch)",
          "torch": "torch.segment_reduce", "cub": "CUB", "triton": "Triton", "pyg": "PyG",
          "njt": "PyTorch NJT"}
LABELS.update(("swage_" + s, "Swage, %s" % s) for s in SCHEDULES)
SHORT = {"torch": "torch", "cub": "CUB", "triton": "Triton", "pyg": "PyG", "njt": "NJT"}
SHORT.update(("swage_" + s, s) for s in SCHEDULES)
CHECK_SLACK = 4.0   # peers' tolerance: 4x the arithmetic part of the GPU suite's
NEAR = 0.95         # "auto within 5% of the best forced schedule"
FORCED_LIMIT_FACTOR = 4.0  # a forced schedule over 4x auto's call is not timed (see call_limit_ms)
COMPILE_MS = 2000.0  # a first call includes compiling: at most this long

SWEEP_MEANS = tuple(1 << k for k in (0, 2, 4, 6, 8, 10, 12, 14, 16, 20))
SWEEP_FAMILIES = ("uniform", "power-law")
SWEEP_OPS = ("sum", "softmax")
SWEEP_PEERS = {"sum": ("torch", "triton", "cub"), "softmax": ("triton",)}
PARETO_ALPHA = 1.2
# kernel.plan copies the offsets to the host and walks them in C: about 20
# ns a segment on the CPU (2^22 in 0.07 s), 1.5 s for all-singleton's 2^26
# with the copy. Plans are made after the timing, when they fit the budget.
PLAN_S_PER_SEGMENT = 3e-8
PLAN_ALL_OPS_UP_TO = 1 << 27
PLAN_UP_TO = 1 << 27


def log(message):
    print("[segments %s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def short_error(e, limit=300):
    text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return text[:limit]


# ---- sweep lengths ---------------------------------------------------------------------

def _prefix(lengths, n):
    """The longest prefix of lengths whose total is <= n (at least one)."""
    keep = max(1, int(np.searchsorted(np.cumsum(lengths), n, side="right")))
    return lengths[:keep].astype(np.int64)


def _pareto_scale(draws, mean, cap):
    """The s for which clip(floor(s * draws), 1, cap) has about this mean
    (bisection in log s on at most 2^20 of the draws: the mean grows with s)."""
    sample = draws[:1 << 20]
    lo, hi = 1e-6, float(cap)
    for _ in range(48):
        mid = math.sqrt(lo * hi)
        if np.clip(np.floor(mid * sample), 1, cap).mean() < mean:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def sweep_lengths(family, mean, n, rng):
    """int64 lengths of one sweep point, about n elements in all: "uniform"
    uniform in [1, 2 mean - 1]; "power-law" floor(s * X) for Pareto X (alpha
    1.2, x_min 1), s scaled so the mean is about `mean`, at least 1 and at
    most n / 4. Mean 1 is all ones in both families."""
    n, mean = int(n), int(mean)
    if mean <= 1:
        return np.ones(max(1, n), dtype=np.int64)
    count = int(n / mean * 1.1) + 16
    if family == "uniform":
        return _prefix(rng.integers(1, 2 * mean, count), n)
    if family == "power-law":
        cap = max(1, n // 4)
        draws = 1.0 + rng.pareto(PARETO_ALPHA, count)
        scale = _pareto_scale(draws, mean, cap)
        return _prefix(np.clip(np.floor(scale * draws), 1, cap), n)
    raise ValueError("unknown sweep family %r (known: %s)" % (family, ", ".join(SWEEP_FAMILIES)))


def point_key(family, mean):
    return "%s:%d" % (family, mean)


# ---- one distribution (child process) -------------------------------------------------

class Child:
    """Measures one distribution, or sweep points: builds the case on the
    device, checks and times every (op, peer), returns a JSON-able dict."""

    def __init__(self, options, device):
        import torch
        self.torch = torch
        self.options = options
        self.device = device
        self.deadline = options.deadline
        self.errors = []
        self.flush = None

    def over_budget(self):
        return self.deadline is not None and time.time() > self.deadline

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    # -- case --

    def build_case(self, distribution):
        index = sc.DISTRIBUTIONS.index(distribution)
        rng = np.random.default_rng([self.options.seed, index])
        lengths = sc.lengths(distribution, self.options.n, rng)
        return self.case_from_lengths(distribution, lengths, self.options.seed * 31 + index)

    def case_from_lengths(self, name, lengths, value_seed):
        """Offsets (int32 and int64) and standard normal values x 2 on the
        device for these lengths."""
        torch = self.torch
        segments = len(lengths)
        lengths_t = torch.from_numpy(np.ascontiguousarray(lengths)).to(self.device)
        offsets64 = torch.zeros(segments + 1, dtype=torch.int64, device=self.device)
        torch.cumsum(lengths_t, 0, out=offsets64[1:])
        offsets32 = offsets64.to(torch.int32)
        elements = int(lengths.sum())
        gen = torch.Generator(device=self.device)
        gen.manual_seed(int(value_seed) % (1 << 62))
        values = torch.randn(elements, generator=gen, device=self.device) * 2.0
        self.sync()
        return {"distribution": name, "lengths": lengths, "segments": segments,
                "elements": elements, "values": values, "offsets32": offsets32,
                "offsets64": offsets64, "empty": lengths_t == 0}

    @staticmethod
    def min_bytes(op, case):
        out = case["segments"] if op in ("sum", "max") else case["elements"]
        return 4 * case["elements"] + 4 * (case["segments"] + 1) + 4 * out

    @staticmethod
    def describe(case, ops):
        lengths = case["lengths"]
        return {"segments": case["segments"], "elements": case["elements"],
                "max_length": int(lengths.max()) if lengths.size else 0,
                "mean_length": float(lengths.mean()) if lengths.size else 0.0,
                "empty_segments": int((lengths == 0).sum()),
                "min_bytes": {op: Child.min_bytes(op, case) for op in ops},
                "ops": {op: {} for op in ops}}

    # -- runners --

    def runner(self, peer, op, case):
        """A callable computing op with peer and returning its output tensor;
        `.output` is set when it writes into a buffer we own (poisoned before
        the check), `.offsets_dtype` names the offsets it reads."""
        torch = self.torch
        values, offsets32, offsets64 = case["values"], case["offsets32"], case["offsets64"]
        size = case["segments"] if op in ("sum", "max") else case["elements"]
        if peer in SWAGE:
            return self.swage_runner(peer, op, values, offsets32, size)
        if peer == "torch":
            from peers import torch_peers
            return torch_peers.make_segment_reduce(op, values, offsets32, offsets64)
        if peer == "njt":
            from peers import torch_peers
            return torch_peers.make_njt(op, values, offsets64)
        if peer == "pyg":
            from peers import torch_peers
            return torch_peers.make_pyg_softmax(values, offsets64)
        if peer == "triton":
            from peers import triton_segments
            out = torch.empty(size, dtype=torch.float32, device=self.device)

            def fn():
                triton_segments.launch(op, values, offsets32, out)
                return out
            fn.output, fn.offsets_dtype = out, "int32"
            return fn
        if peer == "cub":
            from peers import cub
            if self.device != "cuda":
                raise RuntimeError("CUB needs a GPU")
            if not self.options.cub_lib:
                raise RuntimeError("no CUB library (the build did not start)")
            library = cub.load_when_built(self.options.cub_lib, self.options.cub_wait_s)
            out = torch.empty(size, dtype=torch.float32, device=self.device)
            fn = library.prepare(op, values, offsets32, out)
            fn.output, fn.offsets_dtype = out, "int32"
            return fn
        raise ValueError("unknown peer %r" % peer)

    def swage_runner(self, peer, op, values, offsets32, size):
        """The example kernel launched with peer's schedule: unsafe=True but
        for swage_checked. On the CPU a forced schedule runs on the SIMT
        executor (the semantic one has no schedules)."""
        from segment_examples import EXAMPLES
        torch = self.torch
        example = EXAMPLE_OF[op]
        kernel = getattr(EXAMPLES[example], example)
        out = torch.empty(size, dtype=torch.float32, device=self.device)
        out_name = "output_ptr" if op == "softmax" else "out_ptr"
        arguments = {"values_ptr": values, "offsets_ptr": offsets32, out_name: out}
        unsafe = peer != "swage_checked"
        schedule = SCHEDULE_OF[peer]
        executor = "simt" if (self.device != "cuda" and schedule != "auto") else "semantic"
        if schedule == "auto" and executor == "semantic":
            def fn():  # the plain call, as a user writes it
                kernel.launch(arguments=arguments, unsafe=unsafe)
                return out
        else:
            def fn():
                kernel.launch(arguments=arguments, unsafe=unsafe, schedule=schedule,
                              executor=executor)
                return out
        fn.output, fn.offsets_dtype, fn.kernel, fn.arguments = out, "int32", kernel, arguments
        return fn

    # -- check --

    def check(self, op, fn, reference, peer):
        """(ok, details). Poisons the output we own, runs once (its time,
        compiling included, is details["first_call_ms"]), compares with the
        float64 reference. A peer's maximum of an empty segment may be the
        lowest float (CUB's and NJT's identity) instead of -inf; Swage's must
        be -inf (docs/segments.md)."""
        torch = self.torch
        example = EXAMPLE_OF[op]
        expected, scale, result_lengths, empty = reference
        if getattr(fn, "output", None) is not None:
            fn.output.fill_(float("nan"))
        self.sync()
        t0 = time.perf_counter()
        out = fn()
        self.sync()
        details = {"first_call_ms": (time.perf_counter() - t0) * 1e3}
        if not isinstance(out, torch.Tensor):
            return False, {"wrong": "returned %s, not a tensor" % type(out).__name__}
        out = out.reshape(-1)
        if out.numel() != expected.numel():
            return False, {"wrong": "%d results, expected %d" % (out.numel(), expected.numel())}
        if out.dtype != torch.float32:
            details["note"] = "output dtype %s" % out.dtype
            out = out.float()
        bad = sc.torch_mismatches(example, out, expected, scale, result_lengths,
                                  slack=CHECK_SLACK)
        if op == "max" and peer not in SWAGE and bool(empty.any()):
            lowest = torch.finfo(torch.float32).min
            conventional = empty & (out == lowest)
            if bool((bad & conventional).any()):
                details["note"] = ("empty segments give %.4g (the lowest float), not -inf; "
                                   "accepted" % lowest)
            bad &= ~conventional
        finite = torch.isfinite(out) & torch.isfinite(expected)
        if bool(finite.any()):
            error = ((out.double() - expected).abs() / scale.clamp(min=1e-30))[finite]
            details["max_error"] = float(error.max())
        count = int(bad.sum())
        if count:
            details["wrong"] = sc.torch_describe(example, out, expected, scale, bad,
                                                 "%s %s" % (op, "check"), limit=3)[:600]
            return False, details
        if getattr(fn, "output", None) is not None:
            fn.checked = out.clone()
        return True, details

    def reference(self, op, case):
        example = EXAMPLE_OF[op]
        inputs = {"values": case["values"], "offsets": case["offsets64"]}
        expected, scale = sc.torch_reference(example, inputs)
        return expected, scale, sc.torch_result_lengths(example, inputs), case["empty"]

    # -- timing --

    def timing(self, peer):
        """(warmup_ms, rep_ms) of do_bench for peer in the main table."""
        if peer in FORCED:
            return self.options.forced_warmup_ms, self.options.forced_rep_ms
        return self.options.warmup_ms, self.options.rep_ms

    def call_ms(self, fn, entry, rep, limit=None):
        """One call's time in ms: the check's call when that was short (an
        upper bound: it includes compiling) or far over `limit` (compiling
        takes less than COMPILE_MS), else one more call between
        synchronisations (entry["probe_ms"])."""
        first = entry.get("first_call_ms")
        if first is not None and first <= rep / 2 and (limit is None or first <= limit):
            return first
        if first is not None and limit is not None and first > limit + COMPILE_MS:
            return first
        self.sync()
        t0 = time.perf_counter()
        fn()
        self.sync()
        entry["probe_ms"] = (time.perf_counter() - t0) * 1e3
        return entry["probe_ms"]

    def time_ms(self, fn, warmup, rep):
        """(ms, timer): do_bench's median, or for a call longer than rep / 2
        the median of 3 calls each after an L2 flush (CUDA events). On the
        CPU (smoke runs) one call's wall time."""
        if self.device != "cuda":
            t0 = time.perf_counter()
            fn()
            return (time.perf_counter() - t0) * 1e3, "wall clock, 1 call (CPU smoke run)"
        if getattr(fn, "call_ms", 0.0) > rep / 2:
            return self.events_ms(fn), "CUDA events, median of 3 calls"
        return common.bench_ms(fn, warmup=warmup, rep=rep), "do_bench"

    def events_ms(self, fn, calls=3):
        torch = self.torch
        if self.flush is None:  # as do_bench: 256 MB zeroed before each call
            self.flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
        times = []
        for _ in range(calls):
            self.flush.zero_()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    # -- checking and timing a list of (op, peer) --

    def check_pairs(self, name, case, pairs, result, runners, references, timing):
        """Checks every pair; the ones that check out (and fit: forced split
        within --split-limit-ms) go into runners. False when the CUDA
        context is lost."""
        torch = self.torch
        for (op, peer) in pairs:
            entry = result["ops"][op].setdefault(peer, {})
            if peer in SWAGE:
                entry["schedule"] = SCHEDULE_OF[peer]
            if self.over_budget():
                entry["skipped"] = "time budget spent"
                continue
            try:
                if op not in references:
                    references[op] = self.reference(op, case)
                fn = self.runner(peer, op, case)
                entry["offsets_dtype"] = getattr(fn, "offsets_dtype", None)
                ok, details = self.check(op, fn, references[op], peer)
                entry.update(details)
                if not ok:
                    log("%s %s %s: WRONG %s" % (name, op, peer, details.get("wrong", "")[:300]))
                    if peer in SWAGE:
                        self.errors.append("%s/%s/%s: wrong result" % (name, op, peer))
                    continue
                limit, why = self.call_limit_ms(op, peer, runners)
                fn.call_ms = self.call_ms(fn, entry, timing(peer)[1], limit)
                if limit is not None and fn.call_ms > limit:
                    entry["skipped"] = ("checked, not timed: one call takes %.0f ms, over %.0f ms "
                                        "(%s)" % (fn.call_ms, limit, why))
                    continue
                runners[(op, peer)] = fn
            except Exception as e:  # a peer's failure is data, not the end
                entry["error"] = short_error(e)
                log("%s %s %s: error %s" % (name, op, peer, entry["error"]))
                if peer in SWAGE:
                    self.errors.append("%s/%s/%s: %s" % (name, op, peer, entry["error"]))
                if isinstance(e, torch.cuda.OutOfMemoryError) or "out of memory" in str(e):
                    torch.cuda.empty_cache()
                if not self.context_alive():
                    entry["error"] += " (the CUDA context is lost: stopping this child)"
                    self.errors.append("%s: CUDA context lost after %s/%s" % (name, op, peer))
                    return False
        return True

    def call_limit_ms(self, op, peer, runners):
        """(ms, why) over which a forced schedule's call is not timed, or
        (None, None): --split-limit-ms for split (every segment a CTA task of
        its own), and for the others max(--forced-limit-ms, 4 x auto's call):
        far slower than auto, they cannot be the best forced schedule."""
        if peer == "swage_split":
            return (self.options.split_limit_ms,
                    "--split-limit-ms; forced split makes every segment a CTA task of its own")
        if peer in FORCED:
            auto = getattr(runners.get((op, "swage")), "call_ms", 0.0)
            return (max(self.options.forced_limit_ms, FORCED_LIMIT_FACTOR * auto),
                    "max(--forced-limit-ms, %g x auto's call)" % FORCED_LIMIT_FACTOR)
        return None, None

    def time_pairs(self, name, pairs, runners, result, rounds, timing):
        """`rounds` interleaved rounds over the pairs that checked out.
        False when the CUDA context is lost."""
        for round_ in range(rounds):
            for (op, peer) in pairs:
                fn = runners.get((op, peer))
                if fn is None:
                    continue
                entry = result["ops"][op][peer]
                if self.over_budget():
                    entry.setdefault("skipped", "time budget spent (round %d)" % (round_ + 1))
                    continue
                try:
                    warmup, rep = timing(peer)
                    ms, entry["timer"] = self.time_ms(fn, warmup, rep)
                    entry.setdefault("ms_runs", []).append(ms)
                except Exception as e:
                    entry["error"] = "timing: " + short_error(e)
                    runners.pop((op, peer))
                    if peer in SWAGE:
                        self.errors.append("%s/%s/%s: %s" % (name, op, peer, entry["error"]))
                    if not self.context_alive():
                        self.errors.append("%s: CUDA context lost while timing %s/%s"
                                           % (name, op, peer))
                        return False
        return True

    def recheck(self, name, runners, result):
        """Still right after timing (Swage and the peers writing into our
        buffers are deterministic: the output must be what the check saw)."""
        torch = self.torch
        for (op, peer), fn in runners.items():
            checked = getattr(fn, "checked", None)
            if checked is None:
                continue
            entry = result["ops"][op][peer]
            try:
                fn.output.fill_(float("nan"))
                out = fn().reshape(-1)
                self.sync()
                if not torch.equal(out.nan_to_num(123.0), checked.nan_to_num(123.0)):
                    entry["wrong_after_timing"] = "the result changed between runs"
                    if peer in SWAGE:
                        self.errors.append("%s/%s/%s: result changed between runs"
                                           % (name, op, peer))
            except Exception as e:
                entry["error_after_timing"] = short_error(e)
                if peer in SWAGE:
                    self.errors.append("%s/%s/%s: after timing: %s" % (name, op, peer,
                                                                       short_error(e)))
                if not self.context_alive():
                    return False
        return True

    # -- the whole distribution --

    def run(self, distribution):
        t0 = time.perf_counter()
        case = self.build_case(distribution)
        ops = self.options.ops
        result = self.describe(case, ops)
        result["errors"] = self.errors
        log("%s: %d segments, %d elements, longest %d (built in %.1f s)"
            % (distribution, case["segments"], case["elements"], result["max_length"],
               time.perf_counter() - t0))
        # Peers first, then Swage, so a fault in Swage's code loses few peer
        # numbers; CUB last of the peers, because its library may still be
        # building (in the first distribution) and waiting for it must not
        # cost Swage's; the forced schedules after every headline number
        # (split last of all: slow by design on short segments).
        wanted = self.options.peers
        # NJT runs alone at the very end: its softmax faulted on the GPU
        # (illegal memory access, 2026-11-29) and a lost context must not
        # cost the other peers' numbers.
        order = [(op, p) for op in ops for p in PEERS[op]
                 if p in wanted and p not in ("cub", "njt")]
        order += [(op, p) for op in ops for p in ("swage", "swage_checked") if p in wanted]
        order += [(op, "cub") for op in ops if "cub" in PEERS[op] and "cub" in wanted]
        forced = [(op, p) for op in ops for p in FORCED if p in wanted and p != "swage_split"]
        forced += [(op, "swage_split") for op in ops if "swage_split" in wanted]
        runners, references = {}, {}
        alive = (self.check_pairs(distribution, case, order, result, runners, references,
                                  self.timing)
                 and self.time_pairs(distribution, order, runners, result, self.options.rounds,
                                     self.timing)
                 and self.check_pairs(distribution, case, forced, result, runners, references,
                                      self.timing))
        references.clear()
        alive = (alive and self.time_pairs(distribution, forced, runners, result,
                                           self.options.forced_rounds, self.timing)
                 and self.recheck(distribution, runners, result))
        if not alive:
            return self.finish(result, t0)
        self.plans(result, case, runners)
        self.run_last(result, case, [(op, "njt") for op in ops
                                     if "njt" in PEERS[op] and "njt" in wanted])
        return self.finish(result, t0)

    def run_last(self, result, case, pairs):
        """Checks and times peers that may take the CUDA context down, after
        everything else of this distribution is measured."""
        for (op, peer) in pairs:
            entry = result["ops"][op].setdefault(peer, {})
            if self.over_budget():
                entry["skipped"] = "time budget spent"
                continue
            try:
                fn = self.runner(peer, op, case)
                entry["offsets_dtype"] = getattr(fn, "offsets_dtype", None)
                ok, details = self.check(op, fn, self.reference(op, case), peer)
                entry.update(details)
                if ok:
                    warmup, rep = self.timing(peer)
                    fn.call_ms = self.call_ms(fn, entry, rep)
                    for _ in range(self.options.rounds):
                        ms, entry["timer"] = self.time_ms(fn, warmup, rep)
                        entry.setdefault("ms_runs", []).append(ms)
            except Exception as e:  # a peer's failure is data
                entry["error"] = short_error(e)
                log("%s %s: error %s" % (op, peer, entry["error"]))
                if not self.context_alive():
                    entry["error"] += " (the CUDA context is lost)"
                    return

    def finish(self, result, t0):
        """Means, spreads and bandwidths of what was timed."""
        for op, entries in result["ops"].items():
            for entry in entries.values():
                runs = entry.get("ms_runs")
                if runs:
                    entry["ms"] = sum(runs) / len(runs)
                    entry["spread"] = common.spread(runs)
                    if entry["ms"] > 0:
                        entry["gbps_min_bytes"] = (result["min_bytes"][op]
                                                   / (entry["ms"] * 1e-3) / 1e9)
        result["seconds"] = time.perf_counter() - t0
        return result

    def plans(self, result, case, runners):
        """Swage's plans (schedule auto, with the copy bandwidth) after the
        timing: softmax's (result["swage_plan"], as before) up to PLAN_UP_TO
        segments and, up to PLAN_ALL_OPS_UP_TO, the other ops' too
        (result["swage_plans"]). A plan reads every offset: not made when
        it would not fit the budget."""
        wanted = [op for op in ("softmax", "sum", "max") if op in self.options.ops
                  and (op == "softmax" or case["segments"] <= PLAN_ALL_OPS_UP_TO)]
        plans = {}
        for op in wanted:
            cost = PLAN_S_PER_SEGMENT * case["segments"]
            if case["segments"] > PLAN_UP_TO:
                plans[op] = ("not made: %d segments (a plan reads every offset, about %.0f s)"
                             % (case["segments"], cost))
                continue
            if self.deadline is not None and time.time() + cost > self.deadline:
                plans[op] = "not made: about %.0f s for %d segments would pass the budget" % (
                    cost, case["segments"])
                continue
            try:
                fn = runners.get((op, "swage")) or self.swage_runner(
                    "swage", op, case["values"], case["offsets32"],
                    case["segments"] if op != "softmax" else case["elements"])
                if not hasattr(fn.kernel, "plan"):
                    return
                plan = fn.kernel.plan(arguments=fn.arguments, schedule="auto",
                                      bandwidth=self.options.copy_gbps)
                plans[op] = str(plan)[:3000]
            except Exception as e:
                plans[op] = "kernel.plan failed: %s" % short_error(e)
        if "softmax" in plans:
            result["swage_plan"] = plans["softmax"]
        if plans:
            result["swage_plans"] = plans

    def context_alive(self):
        if self.device != "cuda":
            return True
        try:
            self.torch.cuda.synchronize()
            self.torch.zeros(1, device="cuda").add_(1).item()
            return True
        except Exception:
            return False

    # -- one sweep point --

    def run_point(self, family, mean):
        """(result, alive) of one sweep point: Swage auto and the sweep's
        peers checked and timed once, then the forced schedules."""
        t0 = time.perf_counter()
        family_index = SWEEP_FAMILIES.index(family)
        rng = np.random.default_rng([self.options.seed, 100 + family_index, int(mean)])
        lengths = sweep_lengths(family, mean, self.options.n, rng)
        name = "sweep %s" % point_key(family, mean)
        case = self.case_from_lengths(name, lengths,
                                      self.options.seed * 31 + 7919 * (family_index + 1) + mean)
        ops = self.options.sweep_ops
        result = {"family": family, "mean_target": int(mean)}
        result.update(self.describe(case, ops))
        log("%s: %d segments, %d elements, mean %.1f, longest %d (built in %.1f s)"
            % (name, case["segments"], case["elements"], result["mean_length"],
               result["max_length"], time.perf_counter() - t0))
        wanted = self.options.peers
        main = [(op, p) for op in ops for p in ("swage",) + SWEEP_PEERS[op] if p in wanted]
        forced = [(op, p) for op in ops for p in FORCED if p in wanted and p != "swage_split"]
        forced += [(op, "swage_split") for op in ops if "swage_split" in wanted]

        def timing(peer):
            return self.options.forced_warmup_ms, self.options.sweep_rep_ms

        runners, references = {}, {}
        alive = (self.check_pairs(name, case, main, result, runners, references, timing)
                 and self.time_pairs(name, main, runners, result, 1, timing)
                 and self.check_pairs(name, case, forced, result, runners, references, timing))
        references.clear()
        alive = (alive and self.time_pairs(name, forced, runners, result, 1, timing)
                 and self.recheck(name, runners, result))
        return self.finish(result, t0), alive


def _child_device(options):
    if options.cpu_smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch
    return "cuda" if (torch.cuda.is_available() and not options.cpu_smoke) else "cpu"


def child_main(options):
    child = Child(options, _child_device(options))
    try:
        result = child.run(options.child)
    except Exception as e:
        result = {"error": short_error(e, 600), "traceback": traceback.format_exc()[-3000:],
                  "errors": child.errors + ["%s: %s" % (options.child, short_error(e))]}
    with open(options.child_json, "w") as f:
        json.dump(result, f)
    return 0


def _write_atomically(path, data):
    with open(path + ".tmp", "w") as f:
        json.dump(data, f)
    os.replace(path + ".tmp", path)


def sweep_child_main(options):
    """Measures the sweep points named by --sweep-child in order, writing
    what it has after each (so the parent keeps it if this process dies);
    "current" names the point under way. Each point may measure until its
    share of what is left of the sweep's budget (twice an even share, at
    least --sweep-point-min-s); it stops early when the CUDA context is lost."""
    child = Child(options, _child_device(options))
    points = []
    for item in options.sweep_child.split(","):
        family, mean = item.rsplit(":", 1)
        points.append((family, int(mean)))
    out = {"points": [], "current": None, "errors": child.errors}
    for i, (family, mean) in enumerate(points):
        key = point_key(family, mean)
        now = time.time()
        if now > options.deadline - 2:
            out["points"].append({"family": family, "mean_target": mean,
                                  "skipped": "sweep time budget spent"})
            continue
        share = max(options.sweep_point_min_s, 2.0 * (options.deadline - now) / (len(points) - i))
        child.deadline = min(options.deadline, now + share)
        out["current"] = key
        _write_atomically(options.child_json, out)
        try:
            result, alive = child.run_point(family, mean)
        except Exception as e:
            result = {"family": family, "mean_target": mean, "error": short_error(e, 600),
                      "traceback": traceback.format_exc()[-3000:]}
            child.errors.append("sweep %s: %s" % (key, short_error(e)))
            alive = child.context_alive()
        out["points"].append(result)
        out["current"] = None
        _write_atomically(options.child_json, out)
        if not alive:
            break  # the parent starts another child for the rest
    return 0


# ---- the parent: copy bandwidth, children, report ------------------------------------

def copy_bandwidth(device, options):
    import torch
    if device != "cuda":
        return {"gbps": 1.0, "note": "CPU smoke run: not a measurement"}
    n = max(options.n, 1 << 27)
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)

    def copy():
        y.copy_(x)

    runs = []
    for _ in range(2):
        runs.append(common.bench_ms(copy, warmup=options.warmup_ms, rep=options.rep_ms))
    if not torch.equal(x, y):
        raise RuntimeError("the device copy is wrong")
    ms = sum(runs) / len(runs)
    nbytes = 2 * 4 * n
    x = y = None
    torch.cuda.empty_cache()
    return {"elements": n, "bytes": nbytes, "ms_runs": runs, "ms": ms,
            "spread": common.spread(runs), "gbps": nbytes / (ms * 1e-3) / 1e9}


def child_command(options, deadline, cub_lib, copy_gbps):
    """The flags every child process gets."""
    command = [sys.executable, os.path.abspath(__file__), "--n", str(options.n),
               "--seed", str(options.seed), "--ops", ",".join(options.ops),
               "--peers", ",".join(options.peers), "--rounds", str(options.rounds),
               "--warmup-ms", str(options.warmup_ms), "--rep-ms", str(options.rep_ms),
               "--forced-rounds", str(options.forced_rounds),
               "--forced-warmup-ms", str(options.forced_warmup_ms),
               "--forced-rep-ms", str(options.forced_rep_ms),
               "--split-limit-ms", str(options.split_limit_ms),
               "--forced-limit-ms", str(options.forced_limit_ms),
               "--sweep-ops", ",".join(options.sweep_ops),
               "--sweep-rep-ms", str(options.sweep_rep_ms),
               "--sweep-point-min-s", str(options.sweep_point_min_s),
               "--deadline", repr(deadline), "--cub-wait-s", str(options.cub_wait_s)]
    if cub_lib:
        command += ["--cub-lib", cub_lib]
    if copy_gbps:
        command += ["--copy-gbps", repr(copy_gbps)]
    if options.cpu_smoke:
        command.append("--cpu-smoke")
    return command


def spawn(command, timeout):
    """Runs a child with --child-json in a temporary file; (its JSON or
    None, its exit status)."""
    handle, path = tempfile.mkstemp(prefix="swage-bench-segments-", suffix=".json")
    os.close(handle)
    try:
        child = subprocess.run(command + ["--child-json", path], stdout=subprocess.PIPE,
                               stderr=None, text=True, timeout=timeout)
        status = child.returncode
    except subprocess.TimeoutExpired:
        status = "timeout after %.0f s" % timeout
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = None
    finally:
        for name in (path, path + ".tmp"):
            try:
                os.unlink(name)
            except OSError:
                pass
    return result, status


def run_child(distribution, options, deadline, cub_lib, copy_gbps):
    # A child stops measuring at its own deadline (this distribution's share
    # of the budget, or the overall one) and is killed 30 s after it.
    own_deadline = min(deadline, time.time() + options.child_cap_s)
    command = child_command(options, own_deadline, cub_lib, copy_gbps)
    command += ["--child", distribution]
    result, status = spawn(command, max(20.0, own_deadline - time.time() + 30.0))
    if result is None:
        result = {"error": "the child process for %s ended (%s) without results"
                  % (distribution, status), "errors": []}
    if status != 0:
        result.setdefault("errors", []).append("%s: child process exited %s" % (distribution,
                                                                                 status))
    return result


def child_deadline(deadline, still_to_come, options):
    """A distribution's deadline: the budget's, less --child-reserve-s for
    each distribution still to come (but at least that reserve itself)."""
    now = time.time()
    own = deadline - still_to_come * options.child_reserve_s
    return min(deadline, max(own, now + options.child_reserve_s))


# ---- the sweep (parent side) --------------------------------------------------------

def sweep_order(options):
    """(family, mean) in the order they run: longest mean first (they are
    the quickest), both families at each mean, so what the budget leaves out
    is the slowest points."""
    means = sorted(options.sweep_means, reverse=True)
    return [(family, mean) for mean in means for family in options.sweep_families]


def run_sweep(options, deadline, cub_lib, copy_gbps, errors):
    """data["sweep"]: runs the points in child processes (one for them all,
    another for the rest when one dies)."""
    start = time.time()
    sweep = {"n": options.n, "families": list(options.sweep_families),
             "means": list(options.sweep_means), "ops": list(options.sweep_ops),
             "implementations": {op: [p for p in ("swage",) + FORCED + SWEEP_PEERS[op]
                                      if p in options.peers] for op in options.sweep_ops},
             "budget_s": options.sweep_budget_s, "rounds": 1,
             "do_bench": {"warmup_ms": options.forced_warmup_ms, "rep_ms": options.sweep_rep_ms},
             "pareto_alpha": PARETO_ALPHA, "power_law_cap": max(1, options.n // 4),
             "order": [], "points": []}
    done, aliases, pending = {}, {}, []
    for family, mean in sweep_order(options):
        key = point_key(family, mean)
        sweep["order"].append(key)
        if mean > options.n // 4:
            done[key] = {"family": family, "mean_target": mean,
                         "skipped": "mean over N / 4 = %d" % (options.n // 4)}
        elif mean == 1 and family != "uniform" and "uniform" in options.sweep_families:
            aliases[key] = point_key("uniform", 1)
        else:
            pending.append(key)
    restarts = 0
    while pending:
        if time.time() > deadline - 5:
            for key in pending:
                done[key] = _point_stub(key, skipped="sweep time budget spent")
            break
        command = child_command(options, deadline, cub_lib, copy_gbps)
        command += ["--sweep-child", ",".join(pending)]
        result, status = spawn(command, max(20.0, deadline - time.time() + 30.0))
        result = result or {"points": [], "current": None, "errors": []}
        errors.extend(result.get("errors", []))
        for point in result["points"]:
            key = point_key(point["family"], point["mean_target"])
            done[key] = point
            if key in pending:
                pending.remove(key)
        if not pending:
            break
        current = result.get("current")
        reason = "the child process ended (%s) while measuring this point" % (status,)
        if current in pending:  # it died there: record it, go on with the rest
            done[current] = _point_stub(current, error=reason)
            errors.append("sweep %s: %s" % (current, reason))
            pending.remove(current)
        restarts += 1
        if restarts > 3 or (current is None and not result["points"]):
            for key in pending:
                done[key] = _point_stub(key, error="not measured: sweep children kept failing "
                                                   "(last: %s)" % (status,))
            errors.append("sweep: %d points not measured (child exited %s)" % (len(pending),
                                                                             status))
            break
    for key, target in aliases.items():
        point = dict(done.get(target, _point_stub(target, skipped="not measured")))
        point.update({"family": key.split(":")[0], "same_as": target})
        done[key] = point
    sweep["points"] = [done[point_key(f, m)] for f in options.sweep_families
                       for m in sorted(options.sweep_means) if point_key(f, m) in done]
    sweep["seconds"] = time.time() - start
    return sweep


def _point_stub(key, **fields):
    family, mean = key.rsplit(":", 1)
    point = {"family": family, "mean_target": int(mean)}
    point.update(fields)
    return point


# ---- results ------------------------------------------------------------------------

def _cells(data):
    """Every measured (op -> entries) dict: the main table's, then the sweep's."""
    for dist in data["distributions"].values():
        for peers in dist.get("ops", {}).values():
            yield peers
    for point in data.get("sweep", {}).get("points", []):
        if "same_as" in point:
            continue
        for peers in point.get("ops", {}).values():
            yield peers


def fractions(data):
    copy = data.get("copy", {}).get("gbps")
    for peers in _cells(data):
        for entry in peers.values():
            if copy and entry.get("gbps_min_bytes"):
                entry["fraction_of_copy"] = entry["gbps_min_bytes"] / copy


def _usable(entry):
    return bool(entry) and "fraction_of_copy" in entry and "wrong_after_timing" not in entry


def best_of(peers, names):
    """(name, fraction) of the fastest of names that checked out, or None."""
    best = None
    for name in names:
        entry = peers.get(name)
        if _usable(entry) and (best is None or entry["fraction_of_copy"] > best[1]):
            best = (name, entry["fraction_of_copy"])
    return best


def best_peer(peers):
    """(name, fraction) of the fastest non-Swage peer that checked out."""
    return best_of(peers, [name for name in peers if name not in SWAGE])


def best_forced(peers):
    """(name, fraction) of the fastest forced schedule that checked out."""
    return best_of(peers, FORCED)


def compare(cells):
    """Swage auto against the best peer and the best forced schedule over a
    list of (op -> entries) dicts: wins (auto >= best peer), the geometric
    mean of auto / best peer, and how often auto is within 5% of the best
    forced schedule."""
    wins = cases = near = forced_cases = 0
    logs, ratios = [], []
    for peers in cells:
        auto = peers.get("swage")
        if not _usable(auto):
            continue
        peer = best_peer(peers)
        if peer:
            cases += 1
            wins += auto["fraction_of_copy"] >= peer[1]
            logs.append(math.log(auto["fraction_of_copy"] / peer[1]))
        forced = best_forced(peers)
        if forced:
            forced_cases += 1
            near += auto["fraction_of_copy"] >= NEAR * forced[1]
            ratios.append(auto["fraction_of_copy"] / forced[1])
    return {"auto_ge_best_peer": wins, "cases": cases,
            "geomean_auto_over_best_peer": math.exp(sum(logs) / len(logs)) if logs else None,
            "auto_within_5pct_of_best_forced": near, "forced_cases": forced_cases,
            "auto_over_best_forced_min": min(ratios) if ratios else None,
            "auto_over_best_forced_max": max(ratios) if ratios else None}


def summarise(data):
    data["summary"] = compare([peers for dist in data["distributions"].values()
                               for peers in dist.get("ops", {}).values()])
    if "sweep" in data:
        data["sweep"]["summary"] = compare([peers for point in data["sweep"]["points"]
                                            if "same_as" not in point
                                            for peers in point.get("ops", {}).values()])


def status_of(entry):
    if entry is None:
        return "-"
    if "wrong" in entry or "wrong_after_timing" in entry:
        return "WRONG"
    if "fraction_of_copy" in entry:
        return "%.1f%%" % (100 * entry["fraction_of_copy"])
    if "error" in entry:
        return "ERROR"
    if "skipped" in entry:
        return "skip"
    return "-"


def _best_text(best):
    return "%.1f%% %s" % (100 * best[1], SHORT.get(best[0], best[0])) if best else "-"


def _ratio_text(auto, forced):
    if not (_usable(auto) and forced):
        return "-"
    return "%.2f" % (auto["fraction_of_copy"] / forced[1])


def _op_cells(peers):
    """The four columns of one op: auto, best peer, best forced, auto / forced."""
    auto = peers.get("swage")
    forced = best_forced(peers)
    return [status_of(auto), _best_text(best_peer(peers)), _best_text(forced),
            _ratio_text(auto, forced)]


def _summary_lines(summary, what):
    lines = ["%s: Swage auto >= the best peer in %d of %d cases"
             % (what, summary["auto_ge_best_peer"], summary["cases"])]
    if summary["geomean_auto_over_best_peer"] is not None:
        lines[0] += ("; geometric-mean speedup of auto over the best peer %.2fx"
                     % summary["geomean_auto_over_best_peer"])
    line = ("%s: auto within 5%% of the best forced schedule in %d of %d cases"
            % (what, summary["auto_within_5pct_of_best_forced"], summary["forced_cases"]))
    if summary["auto_over_best_forced_min"] is not None:
        line += " (auto / best forced %.2f .. %.2f)" % (summary["auto_over_best_forced_min"],
                                                        summary["auto_over_best_forced_max"])
    return lines + [line]


def report(data):
    if "summary" not in data:
        summarise(data)
    rows = []
    for name in data["distribution_order"]:
        dist = data["distributions"].get(name, {})
        row = [name]
        for op in data["ops"]:
            row += _op_cells(dist.get("ops", {}).get(op, {}))
        if "error" in dist:
            row[0] += " (FAILED)"
        elif "skipped" in dist:
            row[0] += " (skipped)"
        rows.append(row)
    header = ["distribution"]
    for op in data["ops"]:
        header += ["%s auto" % op, "best peer", "best forced", "auto/forced"]
    copy = data.get("copy", {}).get("gbps")
    title = ("segments: N=%s float32 on %s, copy %s GB/s; %% of copy bandwidth over the minimum "
             "bytes (Swage auto: schedule auto, unsafe=True; forced: one schedule for every "
             "segment)" % (_pow2(data["n"]), data.get("gpu", "?"), "%.0f" % copy if copy else "?"))
    text = title + "\n" + common.table(rows, header=header)
    text += "\n" + "\n".join(_summary_lines(data["summary"], "table"))
    if "sweep" in data:
        text += "\n\n" + sweep_report(data["sweep"])
    if data["errors"]:
        # the same failure for every op and distribution is one line, not twenty
        unique = []
        for e in data["errors"]:
            reason = e.split(": ", 1)[-1][:150]
            if reason not in unique:
                unique.append(reason)
        text += "\nFAILED (%d, listed in the JSON): %s" % (len(data["errors"]),
                                                         " | ".join(unique[:3]))
        if len(unique) > 3:
            text += " | ... %d more kinds" % (len(unique) - 3)
    return text


def sweep_report(sweep):
    rows = []
    for point in sweep["points"]:
        row = [point["family"], _pow2(point["mean_target"]),
               "%.1f" % point["mean_length"] if "mean_length" in point else "-"]
        for op in sweep["ops"]:
            peers = point.get("ops", {}).get(op, {})
            row += [status_of(peers.get("swage")), _best_text(best_forced(peers)),
                    _best_text(best_peer(peers))]
        if "same_as" in point:
            row[2] += " (= %s)" % point["same_as"].split(":")[0]
        elif "error" in point:
            row[2] = "FAILED"
        elif "skipped" in point:
            row[2] = "skipped"
        rows.append(row)
    header = ["family", "mean", "actual"]
    for op in sweep["ops"]:
        header += ["%s auto" % op, "best forced", "best peer"]
    text = ("sweep: %% of copy bandwidth against mean segment length, N=%s (%.0f s of a %.0f s "
            "budget)" % (_pow2(sweep["n"]), sweep.get("seconds", 0), sweep["budget_s"]))
    text += "\n" + common.table(rows, header=header)
    if "summary" in sweep:
        text += "\n" + "\n".join(_summary_lines(sweep["summary"], "sweep"))
    return text


def _pow2(n):
    return "2^%d" % int(math.log2(n)) if n > 0 and n & (n - 1) == 0 else str(n)


# ---- charts ---------------------------------------------------------------------------

COLOURS = {"swage": "#d62728", "forced": "#f4a582", "torch": "#1f77b4", "cub": "#2ca02c",
           "triton": "#9467bd", "pyg": "#8c564b", "njt": "#ff7f0e",
           "swage_subwarp": "#bcbd22", "swage_warp": "#17becf", "swage_cta": "#7f7f7f",
           "swage_split": "#e377c2", "swage_persistent": "#8c564b"}
MARKERS = {"swage_subwarp": "v", "swage_warp": "^", "swage_cta": "s", "swage_split": "D",
           "swage_persistent": "o"}


def plan_rows(text):
    """The "segments by policy" rows of a plan's text: (policy, segments,
    elements, tasks) each; [] when the text has none (a plan not made)."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("segments by policy"):
            inside = True
            continue
        if inside:
            if not line.startswith("  "):
                break
            words = line.split()
            try:
                rows.append((" ".join(words[:-3]), int(words[-3]), int(words[-2]), int(words[-1])))
            except (ValueError, IndexError):
                break
    return rows


def plot_plans(data, path, op="sum"):
    """One panel per distribution: what schedule auto does with its
    segments (kernel.plan, op `op`): segments and elements per policy --
    the direct kernel, each list (by the length class it takes), the split
    -- on a log scale: a segment-length histogram by policy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [d for d in data["distribution_order"]
             if plan_rows((data["distributions"].get(d, {}).get("swage_plans") or {}).get(op, ""))]
    if not names:
        raise ValueError("no %s plan in the results (plans not made)" % op)
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 3.6 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        table = plan_rows(data["distributions"][name]["swage_plans"][op])
        labels = [p.replace("segmented_%s__" % op, "") for p, _, _, _ in table]
        x = range(len(table))
        ax.bar([i - 0.2 for i in x], [max(r[1], 0.8) for r in table], 0.4, label="segments",
               color="#1f77b4")
        ax.bar([i + 0.2 for i in x], [max(r[2], 0.8) for r in table], 0.4, label="elements",
               color="#ff7f0e")
        ax.set_yscale("log")
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(name, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("schedule auto's plan for segmented %s, per distribution: segments and elements "
                 "per policy (kernel.plan)" % op)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot(data, path):
    """Bars per distribution, one panel per op: Swage auto, the best forced
    schedule, each peer; over the forced bar, a small marker for every
    forced schedule that was timed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    names = data["distribution_order"]
    ops = data["ops"]
    forced_names = [p for p in FORCED if p in data["peers"]]
    fig, axes = plt.subplots(len(ops), 1, figsize=(15, 4.2 * len(ops)), squeeze=False)
    for ax, op in zip(axes[:, 0], ops):
        top = 0.0
        columns = (["swage"] + (["forced"] if forced_names else [])
                   + [p for p in PEERS[op] if p in data["peers"]])
        width = 0.8 / len(columns)
        handles = []
        for i, column in enumerate(columns):
            xs, ys, missing = [], [], []
            for j, name in enumerate(names):
                peers = data["distributions"].get(name, {}).get("ops", {}).get(op, {})
                x = j - 0.4 + width * (i + 0.5)
                if column == "forced":
                    best = best_forced(peers)
                    entry = peers.get(best[0]) if best else None
                    for p in forced_names:
                        if _usable(peers.get(p)):
                            ax.plot(x, 100 * peers[p]["fraction_of_copy"], MARKERS[p],
                                    color="black", markersize=3.5, markerfacecolor="none",
                                    markeredgewidth=0.7)
                    if best:
                        ax.text(x, 100 * best[1] * 1.25, SHORT[best[0]][:4], ha="center",
                                va="bottom", fontsize=6, rotation=90)
                    elif any(peers.get(p) for p in forced_names):
                        missing.append((x, "-"))
                else:
                    entry = peers.get(column)
                if entry and "fraction_of_copy" in entry:
                    xs.append(x)
                    ys.append(100 * entry["fraction_of_copy"])
                elif entry:
                    missing.append((x, status_of(entry)))
            ax.bar(xs, ys, width, color=COLOURS.get(column))
            label = "best forced schedule" if column == "forced" else LABELS.get(column, column)
            handles.append(Patch(color=COLOURS.get(column), label=label))
            top = max([top] + ys)
            for x, label in missing:
                ax.text(x, 0.012, {"WRONG": "W", "ERROR": "E", "skip": "s"}.get(label, "-"),
                        ha="center", va="bottom", fontsize=7, color=COLOURS.get(column))
        handles += [Line2D([], [], marker=MARKERS[p], color="black", linestyle="none",
                           markerfacecolor="none", markersize=5, label=SHORT[p])
                    for p in forced_names]
        ax.set_yscale("log")
        ax.set_ylim(0.01, max(150.0, 2.0 * top))
        ax.axhline(100, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=9)
        ax.set_ylabel("% of copy bandwidth")
        ax.set_title("segmented %s (E: error, W: wrong, s: skipped; markers: each forced "
                     "schedule)" % op, fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(handles=handles, fontsize=7, ncol=min(len(handles), 7), loc="upper left")
    fig.suptitle(_chart_title(data, "Swage segments (auto, forced schedules) vs peers"),
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _chart_title(data, what):
    copy = data.get("copy", {}).get("gbps")
    return ("%s, N=%s float32, %s, copy %s GB/s, commit %s"
            % (what, _pow2(data["n"]), data.get("gpu", "?"), "%.0f" % copy if copy else "?",
               str(data.get("commit"))[:12]))


def plot_sweep(data, path):
    """Fraction of copy bandwidth (log) against the measured mean segment
    length (log2), one line per implementation, one panel per (family, op)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sweep = data["sweep"]
    families, ops = sweep["families"], sweep["ops"]
    fig, axes = plt.subplots(len(families), len(ops), figsize=(7.5 * len(ops),
                                                               4.5 * len(families)),
                             squeeze=False)
    for row, family in enumerate(families):
        points = [p for p in sweep["points"] if p["family"] == family]
        for col, op in enumerate(ops):
            ax = axes[row, col]
            for impl in sweep["implementations"].get(op, []):
                xs, ys = [], []
                for point in points:
                    entry = point.get("ops", {}).get(op, {}).get(impl)
                    if _usable(entry) and point.get("mean_length", 0) > 0:
                        xs.append(point["mean_length"])
                        ys.append(100 * entry["fraction_of_copy"])
                if not xs:
                    continue
                if impl == "swage":
                    style = dict(color=COLOURS["swage"], linewidth=2.4, marker="o", markersize=4)
                elif impl in FORCED:
                    style = dict(color=COLOURS[impl], linewidth=1.0, linestyle="--",
                                 marker=MARKERS[impl], markersize=4, markerfacecolor="none")
                else:
                    style = dict(color=COLOURS.get(impl), linewidth=1.6, marker=".")
                ax.plot(xs, ys, label=LABELS.get(impl, impl), **style)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.axhline(100, color="grey", linewidth=0.8, linestyle="--")
            ax.set_xlabel("mean segment length (measured)")
            ax.set_ylabel("% of copy bandwidth")
            ax.set_title("%s, segmented %s" % (family, op), fontsize=10)
            ax.grid(which="both", alpha=0.3)
            ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.suptitle(_chart_title(data, "Swage segments: sweep of mean segment length"),
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---- main ---------------------------------------------------------------------------

def parent_main(options):
    start = time.time()
    deadline = start + options.budget_s
    import torch
    device = "cuda" if (torch.cuda.is_available() and not options.cpu_smoke) else "cpu"
    if device != "cuda" and not options.cpu_smoke:
        print("segments benchmark: PyTorch sees no CUDA device, so there is nothing to measure "
              "(--cpu-smoke runs the code paths on the CPU)")
        return 1
    if device == "cuda":
        data = common.record("segments")
    else:
        data = {"benchmark": "segments", "gpu": "none (CPU smoke run)", "commit": common.commit(),
                "command": " ".join(sys.argv),
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    data.update({"n": options.n, "dtype": "float32", "ops": list(options.ops),
                 "peers": list(options.peers), "seed": options.seed, "rounds": options.rounds,
                 "do_bench": {"warmup_ms": options.warmup_ms, "rep_ms": options.rep_ms},
                 "forced": {"schedules": [SCHEDULE_OF[p] for p in FORCED if p in options.peers],
                            "rounds": options.forced_rounds,
                            "do_bench": {"warmup_ms": options.forced_warmup_ms,
                                         "rep_ms": options.forced_rep_ms},
                            "split_limit_ms": options.split_limit_ms,
                            "limit_ms": "max(%g, %g x auto's call)" % (options.forced_limit_ms,
                                                                       FORCED_LIMIT_FACTOR)},
                 "slow_timer": "a call longer than rep / 2: median of 3 calls (CUDA events, "
                               "L2 flushed before each)",
                 "budget_s": options.budget_s,
                 "min_bytes": "values read once + int32 offsets read once + outputs written once",
                 "check": "float64 reference; peers within %gx the GPU suite's tolerance"
                          % CHECK_SLACK,
                 "distribution_order": list(options.distributions), "distributions": {},
                 "errors": []})
    try:
        from peers import triton_segments
        data["triton_kernel"] = {"block": triton_segments.BLOCK,
                                 "num_warps": triton_segments.NUM_WARPS}
    except Exception as e:
        data["triton_kernel"] = {"error": short_error(e)}
    if device == "cuda":
        from swage import _native
        reason = _native.cuda_unavailable_reason()
        if reason is not None:
            data["errors"].append("Swage cannot launch on this machine: %s" % reason)
    cub_lib = None
    if device == "cuda" and "cub" in options.peers:
        from peers import cub
        major, minor = torch.cuda.get_device_capability(0)
        build = cub.start_build("sm_%d%d" % (major, minor))
        data["cub_build"] = {"command": " ".join(build["command"]), "log": build["log"]}
        cub_lib = build["library"]
        if build.get("error"):
            data["cub_build"]["error"] = build["error"]
    try:
        data["copy"] = copy_bandwidth(device, options)
        log("device copy: %.0f GB/s" % data["copy"]["gbps"])
    except Exception as e:
        data["copy"] = {"error": short_error(e)}
        data["errors"].append("copy bandwidth: %s" % short_error(e))
    copy_gbps = data["copy"].get("gbps") if device == "cuda" else None
    if device == "cuda":
        torch.cuda.empty_cache()
    for i, distribution in enumerate(options.distributions):
        if time.time() > deadline - 5:
            data["distributions"][distribution] = {"skipped": "time budget spent"}
            data["errors"].append("%s: skipped, time budget spent" % distribution)
            continue
        own = child_deadline(deadline, len(options.distributions) - i - 1, options)
        result = run_child(distribution, options, own, cub_lib, copy_gbps)
        data["errors"].extend(result.pop("errors", []))
        data["distributions"][distribution] = result
        if options.json:
            common.write_json(options.json, data)  # partial results survive a timeout
    data["table_seconds"] = time.time() - start
    if options.sweep:
        data["sweep"] = run_sweep(options, time.time() + options.sweep_budget_s, cub_lib,
                                  copy_gbps, data["errors"])
    if cub_lib:
        from peers import cub
        data.setdefault("cub_build", {}).update(cub.build_status(cub_lib))
    fractions(data)
    summarise(data)
    data["seconds"] = time.time() - start
    if options.json:
        common.write_json(options.json, data)
    for path, draw in ((options.png, plot), (options.sweep_png if options.sweep else None,
                                             plot_sweep), (options.plan_png, plot_plans)):
        if not path:
            continue
        try:
            draw(data, path)
        except Exception as e:
            data["errors"].append("plot %s: %s" % (os.path.basename(path), short_error(e)))
            if options.json:
                common.write_json(options.json, data)
    text = report(data)
    if options.table:
        with open(options.table, "w") as f:
            f.write(text + "\n")
    print(text)
    return 1 if data["errors"] else 0


def _list(text, known, what):
    items = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in items if s not in known]
    if unknown:
        raise argparse.ArgumentTypeError("unknown %s %s (known: %s)" % (what, ", ".join(unknown),
                                                                      ", ".join(known)))
    return items


def _means(text):
    try:
        means = [int(s, 0) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("mean lengths are integers: %r" % text)
    if not means or min(means) < 1:
        raise argparse.ArgumentTypeError("mean lengths are integers >= 1: %r" % text)
    return means


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1 << 26, help="elements (default 2^26)")
    parser.add_argument("--distributions", default=",".join(sc.DISTRIBUTIONS),
                        type=lambda t: _list(t, sc.DISTRIBUTIONS, "distribution"))
    parser.add_argument("--ops", default=",".join(OPS), type=lambda t: _list(t, OPS, "op"))
    parser.add_argument("--peers", default=",".join(ALL_PEERS),
                        type=lambda t: _list(t, ALL_PEERS, "peer"),
                        help="what runs, Swage's entries included (default: all of %s)"
                             % ", ".join(ALL_PEERS))
    parser.add_argument("--rounds", type=int, default=2,
                        help="timing rounds of Swage auto and the peers (default 2)")
    parser.add_argument("--warmup-ms", type=float, default=10.0)
    parser.add_argument("--rep-ms", type=float, default=40.0)
    parser.add_argument("--forced-rounds", type=int, default=1,
                        help="timing rounds of the forced schedules (default 1)")
    parser.add_argument("--forced-warmup-ms", type=float, default=5.0)
    parser.add_argument("--forced-rep-ms", type=float, default=20.0)
    parser.add_argument("--split-limit-ms", type=float, default=50.0,
                        help="forced split whose one call takes longer is checked, not timed "
                             "(default 50)")
    parser.add_argument("--forced-limit-ms", type=float, default=250.0,
                        help="another forced schedule whose call takes longer than this and 4x "
                             "auto's is checked, not timed (default 250)")
    parser.add_argument("--budget-s", type=float, default=300.0,
                        help="stop measuring the table after this long (default 300 s)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--png", help="write the chart here")
    parser.add_argument("--plan-png", help="write the plans' chart here: per distribution, "
                        "segments and elements per policy of schedule auto (segmented sum)")
    parser.add_argument("--table", help="also write the table here")
    parser.add_argument("--sweep", action="store_true",
                        help="also sweep the mean segment length (data['sweep'])")
    parser.add_argument("--sweep-budget-s", type=float, default=150.0,
                        help="the sweep's own time budget (default 150 s)")
    parser.add_argument("--sweep-png", help="write the sweep's chart here")
    parser.add_argument("--sweep-means", type=_means,
                        default=list(SWEEP_MEANS), help="mean lengths (default 1,4,...,2^20)")
    parser.add_argument("--sweep-families", default=",".join(SWEEP_FAMILIES),
                        type=lambda t: _list(t, SWEEP_FAMILIES, "sweep family"))
    parser.add_argument("--sweep-ops", default=",".join(SWEEP_OPS),
                        type=lambda t: _list(t, OPS, "op"))
    parser.add_argument("--sweep-rep-ms", type=float, default=20.0,
                        help="do_bench rep of every sweep timing (default 20)")
    parser.add_argument("--sweep-point-min-s", type=float, default=6.0, help=argparse.SUPPRESS)
    parser.add_argument("--cpu-smoke", action="store_true",
                        help="run every code path on the CPU at a tiny size (no timing meaning)")
    parser.add_argument("--child-cap-s", type=float, default=75.0,
                        help="most seconds one distribution may measure (default 75)")
    parser.add_argument("--child-reserve-s", type=float, default=15.0,
                        help="seconds of the budget kept for each distribution still to come "
                             "(default 15)")
    parser.add_argument("--cub-wait-s", type=float, default=60.0, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--sweep-child", help=argparse.SUPPRESS)
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cub-lib", help=argparse.SUPPRESS)
    parser.add_argument("--copy-gbps", type=float, default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.seed is None:
        options.seed = int.from_bytes(os.urandom(4), "little")
    if options.cpu_smoke and options.n == 1 << 26:
        options.n = 1 << 10
    if options.child:
        return child_main(options)
    if options.sweep_child:
        return sweep_child_main(options)
    return parent_main(options)


if __name__ == "__main__":
    sys.exit(main())
