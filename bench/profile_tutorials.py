#!/usr/bin/env python3
"""A workload for a profiler: one tutorial kernel of bench/tutorials.py
(softmax or layer_norm) at one shape, Swage's and Triton's (the same
source, as the benchmark runs them), each checked once against PyTorch and
then launched --reps times. Nothing is timed: run it under ncu.

    ncu --clock-control none --kernel-name regex:softmax \\
        python3 bench/profile_tutorials.py --kernel softmax --shape 4096x4096

tools/gpu_profile.sh runs it for cases "tutorial:softmax:4096x4096".
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402,F401  (puts the tree's python/ on sys.path)
import tutorials  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", default="softmax", choices=("softmax", "layer_norm"))
    parser.add_argument("--shape", default="4096x4096", help="MxN (default 4096x4096)")
    parser.add_argument("--reps", type=int, default=1, help="launches after the check")
    options = parser.parse_args(argv)
    try:
        m, n = (int(v) for v in options.shape.lower().split("x"))
    except ValueError:
        parser.error("--shape is MxN, not %r" % options.shape)

    import torch
    triton_kernels = tutorials.triton_module()
    torch.manual_seed(0)
    x = torch.randn(m, n, device="cuda")
    if options.kernel == "softmax":
        expected = torch.softmax(x.double(), dim=1).float()
        block = tutorials.softmax_block(n)
        warps = tutorials.softmax_warps(block)

        def swage(y):
            tutorials.swage_softmax(y, x)

        def triton(y):
            triton_kernels.softmax_kernel[(m,)](y, x, n, n, n, BLOCK_SIZE=block, num_warps=warps)
    else:
        w = torch.rand(n, device="cuda")
        b = torch.rand(n, device="cuda")
        mean = torch.empty(m, device="cuda")
        rstd = torch.empty(m, device="cuda")
        expected = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(),
                                                  tutorials.EPS).float()
        block = tutorials.layer_norm_block(n, 4)
        warps = tutorials.layer_norm_warps(block)

        def swage(y):
            tutorials.swage_layer_norm(y, x, w, b, mean, rstd)

        def triton(y):
            triton_kernels.layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, n, n, tutorials.EPS,
                                                       BLOCK_SIZE=block, num_warps=warps)
    for name, fn in (("swage", swage), ("triton", triton)):
        y = torch.full_like(x, float("nan"))
        fn(y)
        torch.cuda.synchronize()
        err = (y - expected).abs().max().item()
        print("%-8s %s x %s: max error %.3g" % (name, m, n, err), flush=True)
        for _ in range(options.reps):
            fn(y)
        torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
