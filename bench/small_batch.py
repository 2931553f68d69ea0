#!/usr/bin/env python3
"""Wall time per call of a small segment launch on the GPU: 1000 segments
of 0 to 63 float32 elements, segment sum, where the host's work per call
(argument checks, planning, launches) is all that matters.

For Swage's default call (offsets checked: one synchronisation), Swage with
unsafe=True (no synchronisation), torch.segment_reduce(..., "sum") as
called by default and with unsafe=True: --calls back-to-back calls, then
one synchronisation; the wall time divided by the calls (the median of
--rounds such runs). Results are checked once against float64 first.
Also the host's time to issue a call (enqueue: batches of 32 calls,
synchronised between batches, only the issuing counted): where it is
below the wall time, the device, not the host, sets the pace.

    SWAGE_LIB=build-gpu/libswage.so PYTHONPATH=python python3 bench/small_batch.py \\
        [--json out.json]
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402  (also puts the tree's python/ on sys.path)

sys.path.insert(0, os.path.join(HERE, "..", "examples"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=63)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", help="write the results here")
    options = parser.parse_args(argv)

    import torch
    from segment_examples import EXAMPLES

    kernel = EXAMPLES["segmented_sum"].segmented_sum
    generator = torch.Generator().manual_seed(1)
    lengths = torch.randint(0, options.max_length + 1, (options.segments,), generator=generator)
    offsets = torch.zeros(options.segments + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    offsets = offsets.to(torch.int32).cuda()
    values = torch.randn(int(lengths.sum()), generator=generator).cuda()
    out = torch.empty(options.segments, device="cuda")
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}
    expected = torch.segment_reduce(values.double(), "sum", offsets=offsets.long())

    variants = {
        "swage": lambda: kernel.launch(arguments=arguments),
        "swage_unsafe": lambda: kernel.launch(arguments=arguments, unsafe=True),
        "torch": lambda: torch.segment_reduce(values, "sum", offsets=offsets),
        "torch_unsafe": lambda: torch.segment_reduce(values, "sum", offsets=offsets,
                                                     unsafe=True),
    }
    results = {}
    for name, fn in variants.items():
        got = fn()
        got = out if got is None else got
        torch.cuda.synchronize()
        error = float((got.double() - expected).abs().max())
        if not error <= 1e-4 * float(expected.abs().max() + 1):
            raise SystemExit("%s is wrong: max error %g" % (name, error))
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        runs = []
        for _ in range(options.rounds):
            t0 = time.perf_counter()
            for _ in range(options.calls):
                fn()
            torch.cuda.synchronize()
            runs.append((time.perf_counter() - t0) / options.calls * 1e6)
        enqueue = common.launch_enqueue_us(
            torch, lambda count: [fn() for _ in range(count)], batches=64, size=32)
        results[name] = {"us_per_call": statistics.median(runs), "runs_us": runs,
                         "enqueue_us": enqueue}
    host = host_parts(torch, kernel, arguments)
    print("small batch: %d segments of 0..%d float32 elements, segment sum, wall time per call"
          % (options.segments, options.max_length))
    for name, r in results.items():
        print("  %-14s %7.1f us   (host issues a call in %.1f us)"
              % (name, r["us_per_call"], r["enqueue_us"]))
    print("  host parts of swage_unsafe: %s"
          % ", ".join("%s %.1f us" % item for item in host.items()))
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"benchmark": "small_batch", "date": time.strftime("%Y-%m-%d"),
                       "gpu": torch.cuda.get_device_name(), "segments": options.segments,
                       "max_length": options.max_length, "calls": options.calls,
                       "rounds": options.rounds, "torch": torch.__version__,
                       "results": results, "host_parts_us": host}, f, indent=1)
    return 0


def host_parts(torch, kernel, arguments, calls=20000):
    """Host-only parts of the unsafe warm launch, nothing queued on the GPU:
    the launch with its C entry swapped for a no-op (Python, the scratch
    from PyTorch's caching allocator, the stream query) and the scratch's
    allocation alone (bench/small_batch_local.py splits the rest without a
    GPU)."""
    attempt = getattr(kernel, "_warm_segment_attempt", None)
    namespace = getattr(attempt, "__globals__", {})
    parts = {}
    device = torch.device("cuda", arguments["values_ptr"].get_device())

    def timed(fn):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) / calls * 1e6

    parts["torch.empty"] = timed(lambda: torch.empty(4096, dtype=torch.uint8, device=device))
    real = namespace.get("launch_packed")
    if real is not None:
        namespace["launch_packed"] = lambda buffer, error: 0
        try:
            parts["launch, C entry a no-op"] = timed(
                lambda: kernel.launch(arguments=arguments, unsafe=True))
        finally:
            namespace["launch_packed"] = real
    return parts


if __name__ == "__main__":
    sys.exit(main())
