#!/usr/bin/env python3
"""Triton's tutorial kernels on one GPU: Swage against Triton and PyTorch.

The kernels are those of the conformance suite (test/python/tutorial_kernels.py):
Triton's fused softmax (tutorial 02: one row per program, BLOCK_SIZE the
next power of two of the row, masked loads with other=-inf) and layer-norm
forward (tutorial 05: one row per program, loops over BLOCK_SIZE chunks,
mean and rstd stored). Triton runs the SAME source: the module is renamed
back to Triton's names (sl -> tl, sw.jit -> triton.jit, as
test_conformance_extra.py checks it can be) and imported from a temporary
file, so the two compilers get identical kernels. Launches follow the
tutorials' host code (the same BLOCK_SIZE and num_warps, from the
tutorials' heuristics, for both).

What it measures, float32 throughout:
- softmax: [4096, 4096] (the headline), then a sweep over N at M = 4096
  and over M at N = 4096; Swage, Triton, torch.softmax(x, dim=1);
- layer-norm forward: M = 4096, a sweep over N (eps 1e-5); Swage, Triton,
  torch.nn.functional.layer_norm;
- and the device copy (torch copy_ of 2^27 floats) for scale.

Method (docs/testing.md, "The tutorials benchmark"): every variant's result
is checked against a float64 PyTorch reference first (outputs poisoned with
NaN), a wrong peer is reported and not timed, a wrong Swage result fails
the run; then all variants are timed in --rounds interleaved rounds with
triton.testing.do_bench (median of CUDA-event timings, L2 flushed), and the
mean of the medians is reported with the rounds' spread. Bandwidth counts
the fewest bytes: softmax reads and writes M x N floats; layer norm reads
x, w and b and writes y, mean and rstd. "% of Triton" is Swage's GB/s over
Triton's.

    SWAGE_LIB=build-gpu/libswage.so python3 bench/tutorials.py --json out.json --table out.txt
    python3 bench/tutorials.py --dry-run   # no GPU, no torch: the code paths on
                                           # the CPU (SIMT executor), tiny shapes

Writes a JSON record (--json: date, GPU, commit, command, every number) and
prints a table (--table also writes it). A shape that fails is recorded with
its error and the others still run; the exit status is 1 if any failed.
"""

import argparse
import importlib.util
import os
import re
import statistics
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import common  # noqa: E402  (also puts the tree's python/ on sys.path)

_TESTS = os.path.join(REPO, "test", "python")
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

import numpy as np  # noqa: E402

import swage as sw  # noqa: E402
import tutorial_kernels as tk  # noqa: E402

KERNELS_FILE = os.path.join(_TESTS, "tutorial_kernels.py")
EPS = 1e-5
HEADLINE = (4096, 4096)
SOFTMAX_N = (256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384)
SOFTMAX_M = (256, 1024, 16384)           # at N = 4096
LAYER_NORM_N = (512, 1024, 2048, 4096, 8192, 16384)
LAYER_NORM_M = 4096
DRY_SOFTMAX = ((8, 100), (4, 256))        # --dry-run: tiny, on the CPU
DRY_LAYER_NORM = ((6, 300), (3, 1024))
VARIANTS = ("swage", "triton", "torch")
LABELS = {"swage": "Swage", "triton": "Triton", "torch": "torch"}


# ---- the kernels' host code (the tutorials') -----------------------------------------------

def softmax_block(n_cols):
    return sw.next_power_of_2(n_cols)


def softmax_warps(block):
    # tutorial 02's heuristic (its first edition): more warps for longer rows
    return 4 if block < 2048 else 8 if block < 4096 else 16


def layer_norm_block(n_cols, itemsize):
    # tutorial 05: at most 64 KB per row block
    return min(65536 // itemsize, sw.next_power_of_2(n_cols))


def layer_norm_warps(block):
    return min(max(block // 256, 1), 8)


def swage_softmax(y, x, executor=None):
    M, N = x.shape
    extra = {} if executor is None else {"executor": executor}
    block = softmax_block(N)
    tk.softmax_kernel[(M,)](y, x, N, N, N, BLOCK_SIZE=block, num_warps=softmax_warps(block), **extra)


def swage_layer_norm(y, x, w, b, mean, rstd, executor=None):
    M, N = x.shape
    extra = {} if executor is None else {"executor": executor}
    block = layer_norm_block(N, 4)
    tk.layer_norm_fwd_kernel[(M,)](x, y, w, b, mean, rstd, N, N, EPS, BLOCK_SIZE=block,
                                   num_warps=layer_norm_warps(block), **extra)


def triton_source():
    """tutorial_kernels.py under Triton's names."""
    with open(KERNELS_FILE) as f:
        source = f.read()
    source = source.replace("import swage.language as sl", "import triton.language as tl")
    source = source.replace("import swage as sw", "import triton")
    source = re.sub(r"\bsl\.", "tl.", source)
    return re.sub(r"\bsw\.", "triton.", source)


def triton_module():
    """triton_source() imported from a temporary file (Triton, like Swage,
    compiles from the source file)."""
    source = triton_source()
    directory = tempfile.mkdtemp(prefix="swage-bench-tutorials-")
    path = os.path.join(directory, "triton_tutorial_kernels.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("triton_tutorial_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the dry run: no torch, no GPU -------------------------------------------------------

def dry_run(errors):
    """Each Swage launch of the benchmark, on the CPU's SIMT executor at tiny
    shapes, checked against NumPy; timed by the wall clock (meaningless as
    bandwidth, but every code path of the report runs)."""
    import ast
    tree = ast.parse(triton_source())  # what Triton would be given, at least parses
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if names & {"sl", "sw", "swage"} or not {"tl", "triton"} <= names:
        errors.append("the Triton form of the kernels still names Swage: %s"
                      % sorted(names & {"sl", "sw", "swage"}))
    rng = np.random.default_rng(0)
    result = {"softmax": [], "layer_norm": []}
    for M, N in DRY_SOFTMAX:
        x = rng.standard_normal((M, N)).astype(np.float32)
        y = np.full_like(x, np.nan)
        t0 = time.perf_counter()
        swage_softmax(y, x, executor="simt")
        ms = (time.perf_counter() - t0) * 1e3
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        ok = np.allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=0)
        entry = {"M": M, "N": N, "BLOCK_SIZE": softmax_block(N), "bytes": 2 * 4 * M * N}
        entry["swage"] = timing_entry([ms], entry["bytes"]) if ok else {"error": "wrong result"}
        if not ok:
            errors.append("softmax %dx%d: Swage's result is wrong" % (M, N))
        result["softmax"].append(entry)
    for M, N in DRY_LAYER_NORM:
        x = rng.standard_normal((M, N)).astype(np.float32)
        w = rng.standard_normal(N).astype(np.float32)
        b = rng.standard_normal(N).astype(np.float32)
        y = np.full_like(x, np.nan)
        mean = np.full(M, np.nan, np.float32)
        rstd = np.full(M, np.nan, np.float32)
        t0 = time.perf_counter()
        swage_layer_norm(y, x, w, b, mean, rstd, executor="simt")
        ms = (time.perf_counter() - t0) * 1e3
        v = x.astype(np.float64)
        mu = v.mean(axis=1, keepdims=True)
        r = 1 / np.sqrt(((v - mu) ** 2).mean(axis=1, keepdims=True) + EPS)
        ok = np.allclose(y, (v - mu) * r * w + b, rtol=1e-4, atol=1e-4)
        entry = {"M": M, "N": N, "BLOCK_SIZE": layer_norm_block(N, 4),
                 "bytes": layer_norm_bytes(M, N)}
        entry["swage"] = timing_entry([ms], entry["bytes"]) if ok else {"error": "wrong result"}
        if not ok:
            errors.append("layer norm %dx%d: Swage's result is wrong" % (M, N))
        result["layer_norm"].append(entry)
    return result


# ---- measuring on the GPU ------------------------------------------------------------------

def layer_norm_bytes(M, N):
    return 4 * (2 * M * N + 2 * N + 2 * M)


def timing_entry(times, nbytes):
    ms = statistics.mean(times)
    return {"median_ms_runs": times, "ms": ms, "gbps": nbytes / (ms * 1e-3) / 1e9,
            "spread": common.spread(times)}


def measure(case, calls, check, rounds, errors, where):
    """Checks each variant (calls: name -> fn), then times the good ones in
    `rounds` interleaved rounds. Fills case[name]."""
    good = []
    for name, fn in calls.items():
        try:
            check(name, fn)
            good.append(name)
        except Exception as e:  # a wrong or failing variant is not timed
            case[name] = {"error": str(e)[:600]}
            if name == "swage" or not isinstance(e, AssertionError):
                errors.append("%s/%s: %s" % (where, name, str(e)[:300]))
    times = {name: [] for name in good}
    for _ in range(rounds):
        for name in good:
            times[name].append(common.bench_ms(calls[name]))
    for name in good:
        case[name] = timing_entry(times[name], case["bytes"])
    s, t = case.get("swage", {}).get("gbps"), case.get("triton", {}).get("gbps")
    if s and t:
        case["swage_of_triton"] = s / t


def softmax_case(torch, triton_kernels, M, N, rounds, errors):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
    x = torch.randn(M, N, device="cuda", generator=gen)
    y = torch.empty_like(x)
    reference = torch.softmax(x.double(), dim=1)
    block = softmax_block(N)
    case = {"M": M, "N": N, "BLOCK_SIZE": block, "num_warps": softmax_warps(block),
            "bytes": 2 * 4 * M * N}
    calls = {
        "swage": lambda: swage_softmax(y, x),
        "triton": lambda: triton_kernels.softmax_kernel[(M,)](
            y, x, x.stride(0), y.stride(0), N, BLOCK_SIZE=block, num_warps=softmax_warps(block)),
        "torch": lambda: torch.softmax(x, dim=1),  # returns its output (no out=)
    }

    def check(name, fn):
        y.fill_(float("nan"))
        out = fn()
        torch.cuda.synchronize()
        out = out if name == "torch" else y  # Triton's launch returns its CompiledKernel
        # float32 with the GPU's exp (Triton's, as sl.exp: 2.5 + 1.23 |x|
        # ulp, under 20 ulp for randn rows) and a sum of positive terms:
        # 1e-5 relative is about 80 float32 units
        torch.testing.assert_close(out.double(), reference, rtol=1e-5, atol=1e-9)

    measure(case, calls, check, rounds, errors, "softmax %dx%d" % (M, N))
    return case


def layer_norm_case(torch, triton_kernels, M, N, rounds, errors):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
    x = torch.randn(M, N, device="cuda", generator=gen) * 2 + 0.5
    w = torch.randn(N, device="cuda", generator=gen)
    b = torch.randn(N, device="cuda", generator=gen)
    y = torch.empty_like(x)
    mean = torch.empty(M, device="cuda")
    rstd = torch.empty(M, device="cuda")
    xd = x.double()
    ref_mean = xd.mean(dim=1)
    ref_rstd = 1 / torch.sqrt(xd.var(dim=1, unbiased=False) + EPS)
    reference = (xd - ref_mean[:, None]) * ref_rstd[:, None] * w.double() + b.double()
    block = layer_norm_block(N, 4)
    warps = layer_norm_warps(block)
    case = {"M": M, "N": N, "BLOCK_SIZE": block, "num_warps": warps,
            "bytes": layer_norm_bytes(M, N)}
    calls = {
        "swage": lambda: swage_layer_norm(y, x, w, b, mean, rstd),
        "triton": lambda: triton_kernels.layer_norm_fwd_kernel[(M,)](
            x, y, w, b, mean, rstd, x.stride(0), N, EPS, BLOCK_SIZE=block, num_warps=warps,
            num_ctas=1),
        # returns y; its mean and rstd stay inside (torch keeps them only
        # for autograd), so torch moves 2M floats fewer than counted
        "torch": lambda: torch.nn.functional.layer_norm(x, (N,), w, b, EPS),
    }

    def check(name, fn):
        y.fill_(float("nan"))
        mean.fill_(float("nan"))
        rstd.fill_(float("nan"))
        out = fn()
        torch.cuda.synchronize()
        out = out if name == "torch" else y  # Triton's launch returns its CompiledKernel
        # float32 statistics over N <= 16384: 2^-16 of the scale of y
        # (|w| (1 + |x_hat|) + |b|: about 4 here) bounds what they lose
        torch.testing.assert_close(out.double(), reference, rtol=2e-5, atol=1e-4)
        if name != "torch":
            torch.testing.assert_close(mean.double(), ref_mean, rtol=0, atol=1e-5)
            torch.testing.assert_close(rstd.double(), ref_rstd, rtol=2e-5, atol=0)

    measure(case, calls, check, rounds, errors, "layer norm %dx%d" % (M, N))
    return case


def device_copy(torch):
    x = torch.empty(1 << 27, device="cuda")
    out = torch.empty_like(x)
    ms = common.bench_ms(lambda: out.copy_(x))
    return {"ms": ms, "gbps": 2 * 4 * x.numel() / (ms * 1e-3) / 1e9}


# ---- report ----------------------------------------------------------------------------------

def fmt_gbps(entry):
    if not isinstance(entry, dict):
        return "-"
    if "gbps" in entry:
        return "%.0f" % entry["gbps"] if entry["gbps"] >= 10 else "%.3g" % entry["gbps"]
    return "wrong" if "wrong" in entry.get("error", "").lower() or \
        "not close" in entry.get("error", "").lower() else "failed"


def report(data):
    lines = []
    title = "Triton tutorials (float32), %s (sm %s), swage %s, commit %s" % (
        data.get("gpu"), data.get("sm"), data.get("swage"), data.get("commit"))
    if data.get("dry_run"):
        title = ("DRY RUN (CPU, SIMT executor, tiny shapes: the GB/s mean nothing), swage %s, "
                 "commit %s" % (data.get("swage"), data.get("commit")))
    lines.append(title)
    copy = data.get("copy", {}).get("gbps")
    if copy:
        lines.append("device copy: %.0f GB/s" % copy)
    header = ("kernel", "M x N", "BLOCK", "Swage GB/s", "Triton GB/s", "torch GB/s",
              "% of Triton")
    rows = []
    for section, label in (("softmax", "softmax"), ("layer_norm", "layer norm fwd")):
        for case in data.get(section, []):
            ratio = case.get("swage_of_triton")
            rows.append([label, "%d x %d" % (case["M"], case["N"]),
                         str(case.get("BLOCK_SIZE", "")),
                         fmt_gbps(case.get("swage")), fmt_gbps(case.get("triton")),
                         fmt_gbps(case.get("torch")),
                         "%.1f%%" % (100 * ratio) if ratio else "-"])
    lines.append(common.table(rows, header=header))
    headline = [c for c in data.get("softmax", []) if (c["M"], c["N"]) == HEADLINE]
    if headline and headline[0].get("swage_of_triton"):
        lines.append("softmax %d x %d: Swage at %.1f%% of Triton" % (
            HEADLINE + (100 * headline[0]["swage_of_triton"],)))
    if data.get("errors"):
        lines.append("FAILED:")
        lines.extend("  " + e[:300] for e in data["errors"])
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--table", help="also write the table here")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved timing rounds (2)")
    parser.add_argument("--sections", default="softmax,layer_norm",
                        help="comma list of softmax, layer_norm (default both)")
    parser.add_argument("--quick", action="store_true",
                        help="only the headline softmax and layer norm at 4096 x 4096")
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU and no torch: the Swage launches on the CPU (SIMT "
                        "executor) at tiny shapes, checked against NumPy, and the report")
    options = parser.parse_args(argv)
    sections = options.sections.split(",")
    unknown = sorted(set(sections) - {"softmax", "layer_norm"})
    if unknown:
        parser.error("no section %s" % ", ".join(unknown))

    errors = []
    if options.dry_run:
        data = {"benchmark": "tutorials", "dry_run": True, "commit": common.commit(),
                "swage": sw.__version__, "errors": errors}
        data.update({k: v for k, v in dry_run(errors).items() if k in sections})
    else:
        import torch
        data = common.record("tutorials")
        data.update({"dtype": "float32", "eps": EPS, "rounds": options.rounds, "errors": errors})
        try:
            triton_kernels = triton_module()
        except Exception as e:
            errors.append("Triton's kernels: %s" % e)
            triton_kernels = None
        try:
            data["copy"] = device_copy(torch)
        except Exception as e:
            errors.append("device copy: %s" % e)
        plan = []
        if "softmax" in sections:
            shapes = [HEADLINE] if options.quick else (
                [HEADLINE] + [(4096, n) for n in SOFTMAX_N if n != 4096]
                + [(m, 4096) for m in SOFTMAX_M])
            plan += [("softmax", softmax_case, m, n) for m, n in shapes]
        if "layer_norm" in sections:
            ns = [4096] if options.quick else LAYER_NORM_N
            plan += [("layer_norm", layer_norm_case, LAYER_NORM_M, n) for n in ns]
        for section, run, M, N in plan:
            t0 = time.perf_counter()
            try:
                case = run(torch, triton_kernels, M, N, options.rounds, errors)
            except Exception as e:  # one shape's failure must not hide the others
                errors.append("%s %dx%d: %s" % (section, M, N, e))
                case = {"M": M, "N": N, "error": traceback.format_exc()[-2000:]}
            data.setdefault(section, []).append(case)
            print("  [%s %d x %d: %.1f s]" % (section, M, N, time.perf_counter() - t0),
                  file=sys.stderr)
            if options.json:  # partial results survive a later crash or timeout
                common.write_json(options.json, data)
            torch.cuda.empty_cache()
    if options.json:
        common.write_json(options.json, data)
    text = report(data)
    if options.table:
        with open(options.table, "w") as f:
            f.write(text + "\n")
    print(text)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
