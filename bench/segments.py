#!/usr/bin/env python3
"""Segment sum, max and softmax on one GPU: Swage against its peers on every
segment-length distribution of SWAGE.md section 6.

For each distribution (test/python/segment_cases.py; N = 2^26 float32
elements, so one-outlier is 2^20 x 32 plus one of 2^25 and few-huge is
8 x 2^23) and each op (sum, max, softmax), it runs:

- Swage: the example kernels (examples/segmented_{sum,max,softmax}.py), with
  schedule="auto" (today: one CTA per segment) and unsafe=True (no offsets
  check: the peers do none either); "swage_checked" is the default launch,
  with its offsets check, for reference;
- torch.segment_reduce(values, "sum" | "max", offsets=..., unsafe=True);
- CUB cub::DeviceSegmentedReduce::Sum / ::Max (bench/peers/cub_segreduce.cu,
  built here with nvcc, called through ctypes on PyTorch's current stream);
- Triton, one program per segment (bench/peers/triton_segments.py);
- PyG torch_geometric.utils.softmax(values, ptr=offsets) (softmax only);
- PyTorch nested jagged tensors: nested_tensor_from_jagged(values, offsets)
  then .sum(dim=1) / .amax(dim=1) / torch.softmax(nt, dim=1);
- and the device copy (torch copy_ of 2^27 floats, bytes read + written).

Method (/work/.library/device/METHOD.md): each peer's result is checked
against a float64 reference (segment_cases.torch_reference; tolerance 4x
the GPU suite's, NaN never passes) before it is timed, with its output
poisoned by NaN where the peer writes into a buffer we give it; a peer that
is wrong is reported wrong and not timed, one that fails reports its error
(out of memory, unsupported). Timing: triton.testing.do_bench medians of
CUDA-event times (its L2 flush between runs), each variant timed twice in
two interleaved rounds; reported: the mean of the two medians and their
spread. Bandwidth is counted over the MINIMUM bytes: values read once,
offsets (int32) read once, outputs written once (one float per segment for
sum and max, one per element for softmax), as a fraction of the measured
device copy bandwidth.

Each distribution runs in a child process, so a fault in one (a GPU fault
poisons a CUDA context) cannot stop the others; within a child the peers
run before Swage (CUB after it: its library may still be building). A time
budget (--budget-s) skips what is left when it is spent, and says so.

Writes a JSON record (--json: date, GPU, commit, command, every number), a
PNG chart (--png: fraction of copy bandwidth per distribution, log scale,
one panel per op, bars grouped by peer) and prints a compact table last
(--table also writes it to a file).

    SWAGE_LIB=build-gpu/libswage.so PYTHONPATH=python python3 bench/segments.py \\
        --json out.json --png out.png
    python3 bench/segments.py --cpu-smoke   # the code paths on the CPU, tiny sizes
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
SWAGE = ("swage", "swage_checked")
LABELS = {"swage": "Swage", "swage_checked": "Swage (checked launch)",
          "torch": "torch.segment_reduce", "cub": "CUB", "triton": "Triton", "pyg": "PyG",
          "njt": "PyTorch NJT"}
SHORT = {"torch": "torch", "cub": "CUB", "triton": "Triton", "pyg": "PyG", "njt": "NJT"}
CHECK_SLACK = 4.0   # peers' tolerance: 4x the arithmetic part of the GPU suite's


def log(message):
    print("[segments %s] %s" % (time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


def short_error(e, limit=300):
    text = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    return text[:limit]


# ---- one distribution (child process) -------------------------------------------------

class Child:
    """Measures one distribution: builds the case on the device, checks and
    times every (op, peer), returns a JSON-able dict."""

    def __init__(self, options, device):
        import torch
        self.torch = torch
        self.options = options
        self.device = device
        self.deadline = options.deadline
        self.errors = []

    def over_budget(self):
        return self.deadline is not None and time.time() > self.deadline

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    # -- case --

    def build_case(self, distribution):
        torch = self.torch
        index = sc.DISTRIBUTIONS.index(distribution)
        rng = np.random.default_rng([self.options.seed, index])
        lengths = sc.lengths(distribution, self.options.n, rng)
        segments = len(lengths)
        lengths_t = torch.from_numpy(lengths).to(self.device)
        offsets64 = torch.zeros(segments + 1, dtype=torch.int64, device=self.device)
        torch.cumsum(lengths_t, 0, out=offsets64[1:])
        offsets32 = offsets64.to(torch.int32)
        elements = int(lengths.sum())
        gen = torch.Generator(device=self.device)
        gen.manual_seed(self.options.seed * 31 + index)
        values = torch.randn(elements, generator=gen, device=self.device) * 2.0
        self.sync()
        return {"distribution": distribution, "lengths": lengths, "segments": segments,
                "elements": elements, "values": values, "offsets32": offsets32,
                "offsets64": offsets64, "empty": lengths_t == 0}

    @staticmethod
    def min_bytes(op, case):
        out = case["segments"] if op in ("sum", "max") else case["elements"]
        return 4 * case["elements"] + 4 * (case["segments"] + 1) + 4 * out

    # -- runners --

    def runner(self, peer, op, case):
        """A callable computing op with peer and returning its output tensor;
        `.output` is set when it writes into a buffer we own (poisoned before
        the check), `.offsets_dtype` names the offsets it reads."""
        torch = self.torch
        values, offsets32, offsets64 = case["values"], case["offsets32"], case["offsets64"]
        size = case["segments"] if op in ("sum", "max") else case["elements"]
        if peer in SWAGE:
            from segment_examples import EXAMPLES
            example = EXAMPLE_OF[op]
            kernel = getattr(EXAMPLES[example], example)
            out = torch.empty(size, dtype=torch.float32, device=self.device)
            out_name = "output_ptr" if op == "softmax" else "out_ptr"
            arguments = {"values_ptr": values, "offsets_ptr": offsets32, out_name: out}
            unsafe = peer == "swage"

            def fn():
                kernel.launch(arguments=arguments, unsafe=unsafe)
                return out
            fn.output, fn.offsets_dtype, fn.kernel, fn.arguments = out, "int32", kernel, arguments
            return fn
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

    # -- check --

    def check(self, op, fn, reference, peer):
        """(ok, details). Poisons the output we own, runs once, compares
        with the float64 reference. A peer's maximum of an empty segment may
        be the lowest float (CUB's and NJT's identity) instead of -inf;
        Swage's must be -inf (docs/segments.md)."""
        torch = self.torch
        example = EXAMPLE_OF[op]
        expected, scale, result_lengths, empty = reference
        if getattr(fn, "output", None) is not None:
            fn.output.fill_(float("nan"))
        self.sync()
        out = fn()
        self.sync()
        details = {}
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

    def time_ms(self, fn):
        if self.device != "cuda":
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
            return statistics.median(times)
        return common.bench_ms(fn, warmup=self.options.warmup_ms, rep=self.options.rep_ms)

    # -- the whole distribution --

    def run(self, distribution):
        torch = self.torch
        t0 = time.perf_counter()
        case = self.build_case(distribution)
        lengths = case["lengths"]
        result = {"segments": case["segments"], "elements": case["elements"],
                  "max_length": int(lengths.max()) if lengths.size else 0,
                  "mean_length": float(lengths.mean()) if lengths.size else 0.0,
                  "empty_segments": int((lengths == 0).sum()),
                  "min_bytes": {op: self.min_bytes(op, case) for op in self.options.ops},
                  "ops": {op: {} for op in self.options.ops}, "errors": self.errors}
        log("%s: %d segments, %d elements, longest %d (built in %.1f s)"
            % (distribution, case["segments"], case["elements"], result["max_length"],
               time.perf_counter() - t0))
        runners = {}
        # Peers first, then Swage, so a fault in Swage's code loses few peer
        # numbers; CUB last of all, because its library may still be building
        # (in the first distribution) and waiting for it must not cost Swage's.
        wanted = self.options.peers
        # NJT runs alone at the very end: its softmax faulted on the GPU
        # (illegal memory access, 2026-11-29) and a lost context must not
        # cost the other peers' numbers.
        order = [(op, p) for op in self.options.ops for p in PEERS[op]
                 if p in wanted and p not in ("cub", "njt")]
        order += [(op, p) for op in self.options.ops for p in SWAGE if p in wanted]
        order += [(op, "cub") for op in self.options.ops if "cub" in PEERS[op] and "cub" in wanted]
        references = {}
        for (op, peer) in order:
            entry = result["ops"][op].setdefault(peer, {})
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
                if ok:
                    runners[(op, peer)] = fn
                else:
                    log("%s %s %s: WRONG %s" % (distribution, op, peer,
                                                details.get("wrong", "")[:300]))
                    if peer in SWAGE:
                        self.errors.append("%s/%s/%s: wrong result" % (distribution, op, peer))
            except Exception as e:  # a peer's failure is data, not the end
                entry["error"] = short_error(e)
                log("%s %s %s: error %s" % (distribution, op, peer, entry["error"]))
                if peer in SWAGE:
                    self.errors.append("%s/%s/%s: %s" % (distribution, op, peer, entry["error"]))
                if isinstance(e, torch.cuda.OutOfMemoryError) or "out of memory" in str(e):
                    torch.cuda.empty_cache()
                if not self.context_alive():
                    entry["error"] += " (the CUDA context is lost: stopping this child)"
                    self.errors.append("%s: CUDA context lost after %s/%s" % (distribution, op,
                                                                             peer))
                    return result
        del references
        self.plan(result, case)
        # Two interleaved rounds over every runner that checked out.
        for round_ in range(self.options.rounds):
            for (op, peer) in order:
                fn = runners.get((op, peer))
                if fn is None:
                    continue
                entry = result["ops"][op][peer]
                if self.over_budget():
                    entry.setdefault("skipped", "time budget spent (round %d)" % (round_ + 1))
                    continue
                try:
                    entry.setdefault("ms_runs", []).append(self.time_ms(fn))
                except Exception as e:
                    entry["error"] = "timing: " + short_error(e)
                    runners.pop((op, peer))
                    if peer in SWAGE:
                        self.errors.append("%s/%s/%s: %s" % (distribution, op, peer,
                                                             entry["error"]))
                    if not self.context_alive():
                        self.errors.append("%s: CUDA context lost while timing %s/%s"
                                           % (distribution, op, peer))
                        return self.finish(result, t0)
        # Still right after timing (Swage and the peers writing into our buffers
        # are deterministic: the output must be what the check saw).
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
                                           % (distribution, op, peer))
            except Exception as e:
                entry["error_after_timing"] = short_error(e)
        self.run_last(result, case, [(op, "njt") for op in self.options.ops
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
                    for _ in range(self.options.rounds):
                        entry.setdefault("ms_runs", []).append(self.time_ms(fn))
            except Exception as e:  # a peer's failure is data
                entry["error"] = short_error(e)
                log("%s %s: error %s" % (op, peer, entry["error"]))
                if not self.context_alive():
                    entry["error"] += " (the CUDA context is lost)"
                    return

    def finish(self, result, t0):
        """Means, spreads and bandwidths of what was timed."""
        for op in self.options.ops:
            for entry in result["ops"][op].values():
                runs = entry.get("ms_runs")
                if runs:
                    entry["ms"] = sum(runs) / len(runs)
                    entry["spread"] = common.spread(runs)
                    if entry["ms"] > 0:
                        entry["gbps_min_bytes"] = (result["min_bytes"][op]
                                                   / (entry["ms"] * 1e-3) / 1e9)
        result["seconds"] = time.perf_counter() - t0
        return result

    def plan(self, result, case):
        """Swage's plan for the softmax case, when the build has kernel.plan."""
        try:
            from segment_examples import EXAMPLES
            kernel = EXAMPLES["segmented_softmax"].segmented_softmax
            if not hasattr(kernel, "plan"):
                return
            out = self.torch.empty_like(case["values"])
            plan = kernel.plan(arguments={"values_ptr": case["values"],
                                          "offsets_ptr": case["offsets32"], "output_ptr": out})
            result["swage_plan"] = str(plan)[:3000]
        except Exception as e:
            result["swage_plan"] = "kernel.plan failed: %s" % short_error(e)

    def context_alive(self):
        if self.device != "cuda":
            return True
        try:
            self.torch.cuda.synchronize()
            self.torch.zeros(1, device="cuda").add_(1).item()
            return True
        except Exception:
            return False


def child_main(options):
    if options.cpu_smoke:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch
    device = "cuda" if (torch.cuda.is_available() and not options.cpu_smoke) else "cpu"
    child = Child(options, device)
    try:
        result = child.run(options.child)
    except Exception as e:
        result = {"error": short_error(e, 600), "traceback": traceback.format_exc()[-3000:],
                  "errors": child.errors + ["%s: %s" % (options.child, short_error(e))]}
    with open(options.child_json, "w") as f:
        json.dump(result, f)
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


def run_child(distribution, options, deadline, cub_lib):
    handle, path = tempfile.mkstemp(prefix="swage-bench-segments-", suffix=".json")
    os.close(handle)
    command = [sys.executable, os.path.abspath(__file__), "--child", distribution,
               "--child-json", path, "--n", str(options.n), "--seed", str(options.seed),
               "--ops", ",".join(options.ops), "--peers", ",".join(options.peers),
               "--rounds", str(options.rounds), "--warmup-ms", str(options.warmup_ms),
               "--rep-ms", str(options.rep_ms), "--deadline", repr(deadline),
               "--cub-wait-s", str(options.cub_wait_s)]
    if cub_lib:
        command += ["--cub-lib", cub_lib]
    if options.cpu_smoke:
        command.append("--cpu-smoke")
    # A child stops measuring at its own deadline (this distribution's share
    # of the budget, or the overall one) and is killed 30 s after it.
    own_deadline = min(deadline, time.time() + options.child_cap_s)
    command[command.index("--deadline") + 1] = repr(own_deadline)
    timeout = max(20.0, own_deadline - time.time() + 30.0)
    try:
        child = subprocess.run(command, stdout=subprocess.PIPE, stderr=None, text=True,
                               timeout=timeout)
        status = child.returncode
    except subprocess.TimeoutExpired:
        status = "timeout after %.0f s" % timeout
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {"error": "the child process for %s ended (%s) without results"
                  % (distribution, status), "errors": []}
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    if status != 0:
        result.setdefault("errors", []).append("%s: child process exited %s" % (distribution,
                                                                                 status))
    return result


def fractions(data):
    copy = data.get("copy", {}).get("gbps")
    for dist in data["distributions"].values():
        for op, peers in dist.get("ops", {}).items():
            for entry in peers.values():
                if copy and entry.get("gbps_min_bytes"):
                    entry["fraction_of_copy"] = entry["gbps_min_bytes"] / copy


def best_peer(peers):
    """(name, fraction) of the fastest non-Swage peer that checked out."""
    best = None
    for name, entry in peers.items():
        if name in SWAGE or "fraction_of_copy" not in entry or "wrong_after_timing" in entry:
            continue
        if best is None or entry["fraction_of_copy"] > best[1]:
            best = (name, entry["fraction_of_copy"])
    return best


def status_of(entry):
    if entry is None:
        return "-"
    if "fraction_of_copy" in entry:
        return "%.1f%%" % (100 * entry["fraction_of_copy"])
    if "wrong" in entry:
        return "WRONG"
    if "error" in entry:
        return "ERROR"
    if "skipped" in entry:
        return "skip"
    return "-"


def report(data):
    rows = []
    wins = cases = 0
    for name in data["distribution_order"]:
        dist = data["distributions"].get(name, {})
        row = [name]
        for op in data["ops"]:
            peers = dist.get("ops", {}).get(op, {})
            swage = peers.get("swage")
            best = best_peer(peers)
            row.append(status_of(swage))
            row.append("%.1f%% %s" % (100 * best[1], SHORT.get(best[0], best[0])) if best else
                       "-")
            if best and swage and "fraction_of_copy" in swage:
                cases += 1
                wins += swage["fraction_of_copy"] >= best[1]
        if "error" in dist:
            row[0] += " (FAILED)"
        elif "skipped" in dist:
            row[0] += " (skipped)"
        rows.append(row)
    header = ["distribution"]
    for op in data["ops"]:
        header += ["%s Swage" % op, "best peer"]
    copy = data.get("copy", {}).get("gbps")
    title = ("segments: N=%s float32 on %s, copy %s GB/s; %% of copy bandwidth over the minimum "
             "bytes (Swage: schedule auto, unsafe=True)"
             % (_pow2(data["n"]), data.get("gpu", "?"), "%.0f" % copy if copy else "?"))
    text = title + "\n" + common.table(rows, header=header)
    text += "\nSwage >= the best peer in %d of %d cases" % (wins, cases)
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


def _pow2(n):
    return "2^%d" % int(math.log2(n)) if n > 0 and n & (n - 1) == 0 else str(n)


def plot(data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    names = data["distribution_order"]
    ops = data["ops"]
    fig, axes = plt.subplots(len(ops), 1, figsize=(15, 4.2 * len(ops)), squeeze=False)
    colours = {"swage": "#d62728", "torch": "#1f77b4", "cub": "#2ca02c", "triton": "#9467bd",
               "pyg": "#8c564b", "njt": "#ff7f0e"}
    for ax, op in zip(axes[:, 0], ops):
        top = 0.0
        peers = ["swage"] + [p for p in PEERS[op] if p in data["peers"]]
        width = 0.8 / len(peers)
        handles = []
        for i, peer in enumerate(peers):
            xs, ys, missing = [], [], []
            for j, name in enumerate(names):
                entry = data["distributions"].get(name, {}).get("ops", {}).get(op, {}).get(peer)
                x = j - 0.4 + width * (i + 0.5)
                if entry and "fraction_of_copy" in entry:
                    xs.append(x)
                    ys.append(100 * entry["fraction_of_copy"])
                elif entry:
                    missing.append((x, status_of(entry)))
            ax.bar(xs, ys, width, color=colours.get(peer))
            handles.append(Patch(color=colours.get(peer), label=LABELS.get(peer, peer)))
            top = max([top] + ys)
            for x, label in missing:
                ax.text(x, 0.012, {"WRONG": "W", "ERROR": "E", "skip": "s"}.get(label, "-"),
                        ha="center", va="bottom", fontsize=7, color=colours.get(peer))
        ax.set_yscale("log")
        ax.set_ylim(0.01, max(150.0, 1.5 * top))
        ax.axhline(100, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=9)
        ax.set_ylabel("% of copy bandwidth")
        ax.set_title("segmented %s (E: error, W: wrong, s: skipped)" % op, fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(handles=handles, fontsize=8, ncol=len(peers), loc="upper left")
    copy = data.get("copy", {}).get("gbps")
    fig.suptitle("Swage segments vs peers, N=%s float32, %s, copy %s GB/s, commit %s"
                 % (_pow2(data["n"]), data.get("gpu", "?"), "%.0f" % copy if copy else "?",
                    str(data.get("commit"))[:12]), fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


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
    if device == "cuda":
        torch.cuda.empty_cache()
    for distribution in options.distributions:
        if time.time() > deadline - 5:
            data["distributions"][distribution] = {"skipped": "time budget spent"}
            data["errors"].append("%s: skipped, time budget spent" % distribution)
            continue
        result = run_child(distribution, options, deadline, cub_lib)
        data["errors"].extend(result.pop("errors", []))
        data["distributions"][distribution] = result
        if options.json:
            common.write_json(options.json, data)  # partial results survive a timeout
    if cub_lib:
        from peers import cub
        data.setdefault("cub_build", {}).update(cub.build_status(cub_lib))
    fractions(data)
    data["seconds"] = time.time() - start
    if options.json:
        common.write_json(options.json, data)
    if options.png:
        try:
            plot(data, options.png)
        except Exception as e:
            data["errors"].append("plot: %s" % short_error(e))
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    all_peers = ("swage", "swage_checked", "torch", "cub", "triton", "pyg", "njt")
    parser.add_argument("--n", type=int, default=1 << 26, help="elements (default 2^26)")
    parser.add_argument("--distributions", default=",".join(sc.DISTRIBUTIONS),
                        type=lambda t: _list(t, sc.DISTRIBUTIONS, "distribution"))
    parser.add_argument("--ops", default=",".join(OPS), type=lambda t: _list(t, OPS, "op"))
    parser.add_argument("--peers", default=",".join(all_peers),
                        type=lambda t: _list(t, all_peers, "peer"))
    parser.add_argument("--rounds", type=int, default=2, help="timing rounds (default 2)")
    parser.add_argument("--warmup-ms", type=float, default=10.0)
    parser.add_argument("--rep-ms", type=float, default=40.0)
    parser.add_argument("--budget-s", type=float, default=220.0,
                        help="stop measuring after this long (default 220 s)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--png", help="write the chart here")
    parser.add_argument("--table", help="also write the table here")
    parser.add_argument("--cpu-smoke", action="store_true",
                        help="run every code path on the CPU at a tiny size (no timing meaning)")
    parser.add_argument("--child-cap-s", type=float, default=75.0,
                        help="most seconds one distribution may measure (default 75)")
    parser.add_argument("--cub-wait-s", type=float, default=60.0, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cub-lib", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.seed is None:
        options.seed = int.from_bytes(os.urandom(4), "little")
    if options.cpu_smoke and options.n == 1 << 26:
        options.n = 1 << 12
    if options.child:
        return child_main(options)
    return parent_main(options)


if __name__ == "__main__":
    sys.exit(main())
