#!/usr/bin/env python3
"""A workload for a profiler: one distribution of bench/segments.py, one
op, Swage with the given schedules (and the Triton peer, --triton), each
checked once against the float64 reference and then launched --reps times.
Nothing is timed here: run it under ncu to see what limits each kernel.

    ncu --clock-control none --kernel-name regex:segment \\
        python3 bench/profile_segments.py --distribution medium-uniform \\
        --op sum --schedules auto,subwarp --triton

tools/gpu_profile.sh runs a list of such cases under ncu and prints one
line of counters per kernel.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402,F401  (puts the tree's python/ on sys.path)

sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "test", "python"))
import numpy as np  # noqa: E402
import segment_cases as sc  # noqa: E402

EXAMPLE_OF = {"sum": "segmented_sum", "max": "segmented_max", "softmax": "segmented_softmax"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distribution", default="medium-uniform",
                        help="one of %s, or a point of the benchmark's sweep of mean "
                             "lengths: FAMILY@MEAN (uniform@4096, power-law@64)"
                             % ", ".join(sc.DISTRIBUTIONS))
    parser.add_argument("--op", default="sum", choices=sorted(EXAMPLE_OF))
    parser.add_argument("--schedules", default="auto",
                        help="comma-separated Swage schedules (auto, subwarp, warp, cta, "
                             "split, persistent); empty for none")
    parser.add_argument("--triton", action="store_true", help="also the Triton peer")
    parser.add_argument("--n", type=int, default=1 << 26, help="elements (default 2^26)")
    parser.add_argument("--reps", type=int, default=2, help="launches after the check")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host", action="store_true",
                        help="also time the host side of each launch (200 launches, no sync "
                             "between them) and print cProfile's top functions")
    options = parser.parse_args(argv)

    import torch
    from segment_examples import EXAMPLES

    rng = np.random.default_rng(options.seed)
    family, _, mean = options.distribution.partition("@")
    if mean:
        import segments as bench_segments
        if family not in bench_segments.SWEEP_FAMILIES or not mean.isdigit() or int(mean) < 1:
            parser.error("a sweep point is FAMILY@MEAN with FAMILY one of %s and MEAN >= 1, "
                         "not %r" % (", ".join(bench_segments.SWEEP_FAMILIES), options.distribution))
        lengths = bench_segments.sweep_lengths(family, int(mean), options.n, rng)
    elif options.distribution in sc.DISTRIBUTIONS:
        lengths = sc.lengths(options.distribution, options.n, rng)
    else:
        parser.error("unknown distribution %r (known: %s, or FAMILY@MEAN)"
                     % (options.distribution, ", ".join(sc.DISTRIBUTIONS)))
    offsets = torch.from_numpy(sc.offsets_from_lengths(lengths, "int32")).cuda()
    elements = int(lengths.sum())
    values = torch.randn(max(elements, 1), device="cuda")[:elements]
    example = EXAMPLE_OF[options.op]
    size = elements if options.op == "softmax" else len(lengths)
    inputs = {"values": values, "offsets": offsets}
    expected, scale = sc.torch_reference(example, inputs)
    result_lengths = sc.torch_result_lengths(example, inputs)

    runs = []
    for schedule in filter(None, options.schedules.split(",")):
        out = torch.empty(size, device="cuda")
        kernel = getattr(EXAMPLES[example], example)
        out_name = "output_ptr" if options.op == "softmax" else "out_ptr"
        arguments = {"values_ptr": values, "offsets_ptr": offsets, out_name: out}

        def fn(arguments=arguments, schedule=schedule, kernel=kernel):
            kernel.launch(arguments=arguments, unsafe=True, schedule=schedule)
        runs.append(("swage " + schedule, fn, out))
    if options.triton:
        from peers import triton_segments
        out = torch.empty(size, device="cuda")

        def peer(out=out):
            triton_segments.launch(options.op, values, offsets, out)
        runs.append(("triton", peer, out))

    for name, fn, out in runs:
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        bad = sc.torch_mismatches(example, out.reshape(-1), expected, scale, result_lengths)
        count = int(bad.sum())
        print("%-16s %s" % (name, "ok" if count == 0 else "%d WRONG" % count), flush=True)
        for _ in range(options.reps):
            fn()
        torch.cuda.synchronize()
    if options.host:
        import cProfile
        import pstats
        import time
        for name, fn, out in runs:
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(200):
                fn()
            host = (time.perf_counter() - t0) / 200
            torch.cuda.synchronize()
            total = (time.perf_counter() - t0) / 200
            print("%-16s host %.1f us per launch, %.1f us with the device work" %
                  (name, host * 1e6, total * 1e6))
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(200):
                fn()
            profile.disable()
            torch.cuda.synchronize()
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
