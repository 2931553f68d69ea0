"""Shared pieces of the GPU benchmarks (bench/*.py): making the tree's
`swage` importable, the record every result file carries (date, GPU,
commit, command), timing with triton.testing.do_bench, and the table.

Method (docs/testing.md, "The segments benchmark"): correctness first on
fresh random inputs with outputs poisoned by NaN; warm up before timing;
time with CUDA events and report the median; time each variant twice and
report the spread; count the fewest bytes each variant must move.
"""

import datetime
import json
import os
import platform
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))


def commit():
    """The commit under test: $SWAGE_COMMIT when set (a copy of the tree whose
    .git is stale or absent, as on the device machine), else `git rev-parse
    HEAD` (with -dirty when the tree has changes), else 'unknown'."""
    if os.environ.get("SWAGE_COMMIT"):
        return os.environ["SWAGE_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, timeout=10)
        if head.returncode == 0 and head.stdout.strip():
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                   cwd=REPO, capture_output=True, text=True, timeout=10)
            return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def record(benchmark):
    """The header of a result file."""
    import torch
    props = torch.cuda.get_device_properties(0)
    info = {
        "benchmark": benchmark,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0),
        "sm": "%d.%d" % (props.major, props.minor),
        "multiprocessors": props.multi_processor_count,
        "commit": commit(),
        "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
        "python": platform.python_version(),
        "torch": torch.__version__,
    }
    try:
        import triton
        info["triton"] = triton.__version__
    except ImportError:
        info["triton"] = None
    try:
        import swage
        info["swage"] = swage.__version__
        info["libswage"] = swage.library_path
    except ImportError as e:
        info["swage"] = "not importable: %s" % e
    return info


def bench_ms(fn, warmup=25, rep=200):
    """Median time of fn() in milliseconds (CUDA events, triton.testing.do_bench)."""
    import triton.testing
    try:
        return float(triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))
    except TypeError:  # a Triton without return_mode
        return float(triton.testing.do_bench(fn, warmup=warmup, rep=rep, quantiles=[0.5])[0])


def launch_wall_us(torch, issue, launches=10000):
    """Per-launch wall time of `launches` launches back to back, to the final
    synchronize, after 200 to warm up. issue(k) issues k launches. Once the
    host issues faster than the GPU runs them the launch queue fills, and
    this measures the GPU instead."""
    import time
    issue(200)
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    issue(launches)
    torch.cuda.synchronize()
    return (time.perf_counter_ns() - t0) / launches / 1e3


def launch_enqueue_us(torch, issue, batches=64, size=128):
    """Host time per launch: `batches` batches of `size` launches (too few to
    fill the driver's launch queue), synchronized between batches, counting
    only the time to issue each batch."""
    import time
    issue(size)
    total = 0
    for _ in range(batches):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        issue(size)
        total += time.perf_counter_ns() - t0
    torch.cuda.synchronize()
    return total / (batches * size) / 1e3


def spread(values):
    """(max - min) / mean of repeated measurements, as a fraction."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return (max(values) - min(values)) / mean if mean else 0.0


def write_json(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")


def table(rows, header=("measure", "value", "target", "status")):
    """Plain-text table of string rows."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)
