#!/usr/bin/env python3
"""Vector add on one GPU: Swage against Triton, PyTorch and the device copy.

What it measures (N = 2^28 float32 unless --n says otherwise):
- bandwidth: device copy (torch copy_, bytes read + written) and x + y by
  Swage, Triton (the standard tutorial kernel, BLOCK=1024, num_warps=4) and
  torch.add, counting 2 reads + 1 write; each result checked exactly against
  torch's x + y first (output poisoned with NaN), then timed twice with
  triton.testing.do_bench (median of CUDA-event timings), then checked again;
- warm host launch overhead of a one-CTA grid, Swage and Triton interleaved
  over 5 rounds: host time per launch issuing batches of 128 launches (too
  few to fill the launch queue; the headline, median of the rounds), and
  wall time of 10000 launches back to back; the grid tuple is computed once
  for both. For Swage also split: the packed C entry called with a buffer
  packed once (ctypes + C + the driver), the rest being Python
  (bench/launch_breakdown.py splits it further);
- Swage's source-to-PTX compile time on specialisations it has not seen
  (swageKernelCompile + swageKernelEmitPtx), median;
- first launch (compile + driver JIT + launch + synchronize) in a fresh
  process, for Swage and for Triton with an empty cache and a warm one.

Writes a JSON record (--json) and prints a table with the issue's targets:
Swage >= 97% of Triton's bandwidth; launch overhead <= half Triton's;
compile < 2 ms; first launch < 100 ms. A section that fails is recorded
with its error and the others still run; the exit status is 1 if any failed.

    SWAGE_LIB=build-gpu/libswage.so python3 bench/vector_add.py --json out.json
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (also puts the tree's python/ on sys.path)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import swage as sw  # noqa: E402
import swage.language as sl  # noqa: E402
from swage import _native  # noqa: E402

BLOCK = 1024


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def triton_add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def swage_add(x, y, out, n):
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": BLOCK}, grid=(triton.cdiv(n, BLOCK),))


def triton_add(x, y, out, n):
    triton_add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK, num_warps=4)


def torch_add(x, y, out, n):
    torch.add(x, y, out=out)


VARIANTS = {"swage": swage_add, "triton": triton_add, "torch_add": torch_add}


# ---- sections ----------------------------------------------------------------------------

def check(name, fn, x, y, out, reference):
    out.fill_(float("nan"))
    torch.cuda.synchronize()
    fn(x, y, out, x.numel())
    torch.cuda.synchronize()
    try:
        torch.testing.assert_close(out, reference, rtol=0, atol=0)
    except AssertionError as e:
        raise AssertionError("%s computes a wrong x + y: %s" % (name, str(e)[:400])) from None


def bandwidth(n, errors):
    """Device copy and the three adds: GB/s over the fewest bytes."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
    x = torch.rand(n, device="cuda", generator=gen)
    y = torch.rand(n, device="cuda", generator=gen)
    out = torch.empty_like(x)
    reference = x + y
    result = {}
    ok = {}
    for name, fn in VARIANTS.items():
        try:
            check(name, fn, x, y, out, reference)
            ok[name] = True
        except Exception as e:
            errors.append("bandwidth/%s: %s" % (name, e))
            result[name] = {"error": str(e)}
            ok[name] = False
    copy_bytes = 2 * 4 * n
    add_bytes = 3 * 4 * n
    runs = {"copy": []}
    runs.update({name: [] for name in VARIANTS if ok[name]})
    for _ in range(2):  # twice, interleaved: the spread says what a difference means
        runs["copy"].append(common.bench_ms(lambda: out.copy_(x)))
        for name in VARIANTS:
            if ok[name]:
                fn = VARIANTS[name]
                runs[name].append(common.bench_ms(lambda fn=fn: fn(x, y, out, n)))
    for name, times in runs.items():
        nbytes = copy_bytes if name == "copy" else add_bytes
        ms = statistics.mean(times)
        result[name] = {"median_ms_runs": times, "ms": ms, "bytes": nbytes,
                        "gbps": nbytes / (ms * 1e-3) / 1e9, "spread": common.spread(times)}
    for name in VARIANTS:  # still right after timing
        if ok[name]:
            try:
                check(name, VARIANTS[name], x, y, out, reference)
            except Exception as e:
                errors.append("bandwidth/%s after timing: %s" % (name, e))
                result[name]["error"] = str(e)
    copy_gbps = result["copy"]["gbps"]
    for name in VARIANTS:
        if "gbps" in result.get(name, {}):
            result[name]["fraction_of_copy"] = result[name]["gbps"] / copy_gbps
    return result


def launch_overhead(launches, errors, rounds=5):
    """Warm per-launch host cost of a one-CTA vector add, Swage and Triton
    interleaved over `rounds` rounds (the host's speed drifts: interleaving
    lets each round compare like with like). Each round measures each
    variant twice: host time per launch in batches too small to fill the
    launch queue (enqueue_us, the headline) and wall time of `launches`
    launches back to back (wall_us). Both variants get the grid as a tuple
    computed once, as the caller's own arithmetic is no launch overhead."""
    n = BLOCK
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, BLOCK),)

    def swage(count):
        for _ in range(count):
            add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                              constexprs={"BLOCK": BLOCK}, grid=grid)

    def triton_launch(count):
        for _ in range(count):
            triton_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK, num_warps=4)

    issuers = {"swage": swage, "triton": triton_launch}
    result = {}
    for name, issue in list(issuers.items()):
        try:
            check(name, lambda x, y, out, n, issue=issue: issue(1), x, y, out, x + y)
            result[name] = {"rounds": []}
        except Exception as e:
            errors.append("launch overhead/%s: %s" % (name, e))
            result[name] = {"error": str(e)}
            del issuers[name]
    for _ in range(rounds):
        for name, issue in issuers.items():
            result[name]["rounds"].append({
                "enqueue_us": common.launch_enqueue_us(torch, issue),
                "wall_us": common.launch_wall_us(torch, issue, launches)})
    for name in issuers:
        runs = result[name]["rounds"]
        enqueue = [r["enqueue_us"] for r in runs]
        result[name].update(us=statistics.median(enqueue),
                            wall_us=statistics.median(r["wall_us"] for r in runs),
                            spread=common.spread(enqueue), launches=launches)
    if len(issuers) == 2:
        ratios = [s["enqueue_us"] / t["enqueue_us"]
                  for s, t in zip(result["swage"]["rounds"], result["triton"]["rounds"])]
        result["ratio_per_round"] = ratios
        result["ratio"] = statistics.median(ratios)
    try:
        split = swage_launch_split(x, y, out, n)
        if split is not None:
            result["swage_c_call"] = split
            if "us" in result.get("swage", {}):
                result["swage_python_us"] = result["swage"]["us"] - split["us"]
    except Exception as e:
        errors.append("launch overhead/swage split: %s" % e)
        result["swage_c_call"] = {"error": str(e)}
    return result


def warm_packed_launch(x, y, out, n):
    """(the _WarmLauncher that took the vector add of x, y, out with
    BLOCK = BLOCK, its packed launch buffer for a one-CTA grid on the current
    stream), or (None, None) when no warm launch of it was made."""
    launchers = getattr(add_kernel, "_warm", None)
    if not _native.PACKED_LAUNCH or not isinstance(launchers, dict):
        return None, None
    arguments = {"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n}
    for launcher in launchers.values():
        key = launcher.key(arguments, {"BLOCK": BLOCK})
        kernel = launcher.kernels.get(key) if key is not None else None
        if kernel is not None:
            device = x.get_device()
            layout = _native.launch_struct(["*f32", "*f32", "*f32", "i32"])
            buffer = layout.pack(kernel, torch.cuda.current_stream(device).cuda_stream, device,
                                 1, 1, 1, layout.size - _native.LAUNCH_HEADER_SIZE, 0,
                                 x.data_ptr(), y.data_ptr(), out.data_ptr(), n)
            return launcher, buffer
    return None, None


def swage_launch_split(x, y, out, n):
    """The same warm launches with no Python argument handling: the packed C
    entry (swageKernelLaunchCudaPacked) called by ctypes with a buffer packed
    once, on the current stream. kernel.launch minus this is the Python part;
    this is ctypes + Swage's C + the driver (cuLaunchKernel).
    bench/launch_breakdown.py splits it further."""
    _, buffer = warm_packed_launch(x, y, out, n)
    if buffer is None:
        return None
    launch = _native.cuda_launch_packed

    def issue(count):
        for _ in range(count):
            status = launch(buffer, None)
            if status:
                _native.raise_last_error(status)

    out.fill_(float("nan"))
    issue(1)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    enqueue = [common.launch_enqueue_us(torch, issue) for _ in range(3)]
    return {"enqueue_us_runs": enqueue, "us": statistics.median(enqueue)}


COMPILE_SOURCE = '''\
@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr, TAG: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)
'''
COMPILE_SIGNATURE = "x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32"


def compile_time(iterations, errors):
    """Source -> PTX on specialisations never seen (a new unused TAG each time)."""
    compile_us, ptx_us, total_us = [], [], []
    try:
        sm = 10 * torch.cuda.get_device_capability(0)[0] + torch.cuda.get_device_capability(0)[1]
        for tag in range(iterations + 30):
            t0 = time.perf_counter_ns()
            kernel = _native.compile_kernel(COMPILE_SOURCE, "vector_add.py", 1, "add_kernel",
                                            COMPILE_SIGNATURE, "BLOCK=%d,TAG=%d" % (BLOCK, tag))
            t1 = time.perf_counter_ns()
            ptx = _native.emit_ptx(kernel, sm)
            t2 = time.perf_counter_ns()
            if tag == 0 and ".entry add_kernel" not in ptx:
                raise RuntimeError("emit_ptx gave no .entry add_kernel")
            if tag >= 30:  # warm-up: page faults, first allocations
                compile_us.append((t1 - t0) / 1e3)
                ptx_us.append((t2 - t1) / 1e3)
                total_us.append((t2 - t0) / 1e3)
        return {"iterations": iterations, "sm": sm,
                "compile_median_us": statistics.median(compile_us),
                "ptx_median_us": statistics.median(ptx_us),
                "median_us": statistics.median(total_us),
                "p90_us": sorted(total_us)[int(0.9 * len(total_us))],
                "min_us": min(total_us)}
    except Exception as e:
        errors.append("compile time: %s" % e)
        return {"error": str(e)}


def new_specialisation_first_launch(count, errors):
    """In this (warm) process: compile + PTX + driver JIT + launch + sync of
    specialisations never launched before."""
    try:
        n = 4096
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        out = torch.empty_like(x)
        times = []
        for block in [64, 128, 256, 512, 2048, 4096][:count]:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                              constexprs={"BLOCK": block}, grid=(triton.cdiv(n, block),))
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
            torch.testing.assert_close(out, x + y, rtol=0, atol=0)
        return {"ms": times, "median_ms": statistics.median(times)}
    except Exception as e:
        errors.append("new specialisation first launch: %s" % e)
        return {"error": str(e)}


def first_launch_child(which):
    """Runs in a fresh process: time the first launch (CUDA already up)."""
    n = 1 << 20
    torch.cuda.init()
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    torch.cuda.synchronize()
    fn = swage_add if which == "swage" else triton_add
    t0 = time.perf_counter()
    fn(x, y, out, n)
    torch.cuda.synchronize()
    elapsed = (time.perf_counter() - t0) * 1e3
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    print(json.dumps({"first_launch_ms": elapsed}))


def first_launch(repeats, errors):
    """Fresh processes. Swage: with the driver's PTX JIT cache disabled
    (CUDA_CACHE_DISABLE=1: the first launch on a new machine, the number the
    target is checked on) and as configured (the driver may reuse a cubin
    of an earlier run). Triton: an empty TRITON_CACHE_DIR, then the same
    directory again."""
    result = {}
    cache = tempfile.mkdtemp(prefix="swage-bench-triton-cache-")
    plan = [("swage_cold_jit", None)] * repeats + [("swage", None)] * repeats
    for i in range(repeats):  # each cold run gets an empty cache; each warm one reuses it
        plan += [("triton_cold", os.path.join(cache, str(i))),
                 ("triton_warm", os.path.join(cache, str(i)))]
    for label, cache_dir in plan:
        env = dict(os.environ)
        if cache_dir is not None:
            env["TRITON_CACHE_DIR"] = cache_dir
        if label == "swage_cold_jit":
            env["CUDA_CACHE_DISABLE"] = "1"
        which = "triton" if label.startswith("triton") else "swage"
        entry = result.setdefault(label, {"ms": []})
        try:
            child = subprocess.run([sys.executable, os.path.abspath(__file__),
                                    "--first-launch-child", which],
                                   env=env, capture_output=True, text=True, timeout=120)
            if child.returncode != 0:
                raise RuntimeError("child exited %d: %s" % (child.returncode,
                                                           (child.stderr or "")[-600:]))
            entry["ms"].append(json.loads(child.stdout.strip().splitlines()[-1])
                               ["first_launch_ms"])
        except Exception as e:
            errors.append("first launch/%s: %s" % (label, e))
            entry["error"] = str(e)
    for entry in result.values():
        if entry["ms"]:
            entry["median_ms"] = statistics.median(entry["ms"])
    return result


# ---- report -------------------------------------------------------------------------------

def fmt(value, unit, digits=1):
    return "-" if value is None else ("%.*f %s" % (digits, value, unit))


def get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def verdict(ok, detail=""):
    if ok is None:
        return "n/a (failed)"
    return ("PASS" if ok else "MISS") + (" " + detail if detail else "")


def report(data):
    bw = data.get("bandwidth", {})
    rows = []
    copy = get(bw, "copy", "gbps")
    rows.append(["device copy (read+write)", fmt(copy, "GB/s", 0), "", ""])
    for name, label in [("torch_add", "torch.add"), ("triton", "Triton add (BLOCK=1024, 4 warps)")]:
        gbps = get(bw, name, "gbps")
        rows.append([label, fmt(gbps, "GB/s", 0),
                     "", "%.0f%% of copy" % (100 * gbps / copy) if gbps and copy else
                     get(bw, name, "error") or ""])
    s_gbps, t_gbps = get(bw, "swage", "gbps"), get(bw, "triton", "gbps")
    ratio = s_gbps / t_gbps if s_gbps and t_gbps else None
    rows.append(["Swage add", fmt(s_gbps, "GB/s", 0), ">= 97% of Triton",
                 verdict(None if ratio is None else ratio >= 0.97,
                         "(%.1f%%)" % (100 * ratio) if ratio else "")])
    lo = data.get("launch_overhead", {})
    s_us, t_us = get(lo, "swage", "us"), get(lo, "triton", "us")
    rows.append(["launch overhead, Triton", fmt(t_us, "us"), "", ""])
    ratio, ratios = lo.get("ratio"), lo.get("ratio_per_round") or []
    rows.append(["launch overhead, Swage", fmt(s_us, "us"), "<= 1/2 Triton",
                 verdict(None if ratio is None else ratio <= 0.5,
                         "(%.2fx Triton; rounds %.2f-%.2f)" % (ratio, min(ratios), max(ratios))
                         if ratio is not None else "")])
    split_us = get(lo, "swage_c_call", "us")
    if split_us is not None:
        rows.append(["  of which ctypes + C + driver", fmt(split_us, "us"), "", ""])
        rows.append(["  of which Python", fmt(get(lo, "swage_python_us"), "us"), "", ""])
    c_us = get(data, "compile", "median_us")
    rows.append(["compile source->PTX, Swage", fmt(c_us, "us", 0), "< 2 ms",
                 verdict(None if c_us is None else c_us < 2000)])
    fl = data.get("first_launch", {})
    s_ms = get(fl, "swage_cold_jit", "median_ms")
    rows.append(["first launch, Swage (no driver cache)", fmt(s_ms, "ms"), "< 100 ms",
                 verdict(None if s_ms is None else s_ms < 100)])
    rows.append(["first launch, Swage (driver cache on)", fmt(get(fl, "swage", "median_ms"), "ms"),
                 "", ""])
    rows.append(["first launch, Triton cold", fmt(get(fl, "triton_cold", "median_ms"), "ms"),
                 "", ""])
    rows.append(["first launch, Triton warm", fmt(get(fl, "triton_warm", "median_ms"), "ms"),
                 "", ""])
    rows.append(["new specialisation, Swage (warm process)",
                 fmt(get(data, "new_specialisation", "median_ms"), "ms"), "", ""])
    title = ("vector add, N = %d float32, %s (sm %s), swage %s, commit %s"
             % (data["n"], data["gpu"], data["sm"], data.get("swage"), data["commit"]))
    text = title + "\n" + common.table(rows)
    if data["errors"]:
        text += "\nFAILED sections:\n" + "\n".join("  " + e[:300] for e in data["errors"])
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1 << 28, help="elements (default 2^28)")
    parser.add_argument("--launches", type=int, default=10000)
    parser.add_argument("--compile-iterations", type=int, default=300)
    parser.add_argument("--first-launch-repeats", type=int, default=2)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--table", help="also write the table here")
    parser.add_argument("--sections", help="run only these sections (comma-separated: bandwidth, "
                        "launch_overhead, compile, new_specialisation, first_launch)")
    parser.add_argument("--first-launch-child", choices=["swage", "triton"],
                        help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.first_launch_child:
        first_launch_child(options.first_launch_child)
        return 0

    data = common.record("vector_add")
    data.update({"n": options.n, "dtype": "float32", "block": BLOCK, "errors": []})
    errors = data["errors"]
    reason = _native.cuda_unavailable_reason()
    if reason is not None:
        errors.append("Swage cannot launch on this machine: %s" % reason)
    sections = [
        ("bandwidth", lambda: bandwidth(options.n, errors)),
        ("launch_overhead", lambda: launch_overhead(options.launches, errors)),
        ("compile", lambda: compile_time(options.compile_iterations, errors)),
        ("new_specialisation", lambda: new_specialisation_first_launch(5, errors)),
        ("first_launch", lambda: first_launch(options.first_launch_repeats, errors)),
    ]
    if options.sections:
        wanted = options.sections.split(",")
        unknown = sorted(set(wanted) - {name for name, _ in sections})
        if unknown:
            parser.error("no section %s" % ", ".join(unknown))
        sections = [(name, run) for name, run in sections if name in wanted]
    for name, run in sections:
        t0 = time.perf_counter()
        try:
            data[name] = run()
        except Exception as e:  # a section's own failure must not hide the others
            errors.append("%s: %s" % (name, e))
            data[name] = {"error": traceback.format_exc()[-2000:]}
        print("  [%s: %.1f s]" % (name, time.perf_counter() - t0), file=sys.stderr)
        if options.json:  # partial results survive a later crash or timeout
            common.write_json(options.json, data)
    text = report(data)
    if options.table:
        with open(options.table, "w") as f:
            f.write(text + "\n")
    print(text)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
