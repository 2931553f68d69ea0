#!/usr/bin/env python3
"""Every schedule of a few segment programs on small ragged batches, for
running under compute-sanitizer (memcheck, racecheck, synccheck) on a GPU
machine: tools/gpu_run.sh runs it as

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 tools/gpu_sanitize.py

Each case is checked against a float64 reference, so a run that the
sanitizer lets pass is also a correct one. Distributions are chosen so
that every policy runs: singletons and tiny segments (direct sub-warp
kernels), medium ones (warp and CTA lists), long ones (streamed and split,
with tickets and merges), empty ones, and bad offsets with unsafe=True
(clamped, never outside the buffers).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for path in (os.path.join(REPO, "python"), os.path.join(REPO, "test", "python"),
             os.path.join(REPO, "examples")):
    if path not in sys.path:
        sys.path.insert(0, path)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import segment_cases as sc  # noqa: E402
from segment_examples import EXAMPLES  # noqa: E402

SCHEDULES = ("auto", "subwarp", "warp", "cta", "split", "persistent")
EXAMPLES_RUN = ("segmented_sum", "segmented_softmax", "weighted_sum")


def lengths_mix(rng, n):
    """Every policy in one batch: empty, singletons, tiny, medium, long."""
    parts = [np.zeros(7, np.int64), np.ones(50, np.int64), rng.integers(2, 64, 200),
             rng.integers(100, 1500, 20), rng.integers(3000, 9000, 3), np.array([n // 2])]
    lengths = np.concatenate(parts)
    rng.shuffle(lengths)
    return lengths


def to_device(inputs):
    return {k: torch.from_numpy(np.ascontiguousarray(v)).cuda() for k, v in inputs.items()}


def main():
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    n = int(os.environ.get("SWAGE_SANITIZE_N", 1 << 15))
    failures = 0
    for example in EXAMPLES_RUN:
        lengths = lengths_mix(rng, n)
        inputs = sc.make_inputs(example, lengths, rng)
        expected, scale = sc.reference(example, inputs)
        for schedule in SCHEDULES:
            dev = to_device(inputs)
            out = torch.from_numpy(sc.new_output(example, inputs)).cuda()
            EXAMPLES[example].launch(dev, out, schedule=schedule)
            torch.cuda.synchronize()
            try:
                sc.check(example, out.cpu().numpy(), inputs, "%s %s" % (example, schedule),
                         expected_scale=(expected, scale))
                print("ok   %-20s %s" % (example, schedule), flush=True)
            except AssertionError as e:
                failures += 1
                print("FAIL %-20s %s: %s" % (example, schedule, str(e)[:400]), flush=True)
            # bad offsets, unsafe: must stay inside the buffers
            bad = dev["offsets"].clone()
            bad[len(bad) // 3] = -5
            bad[len(bad) // 2] = bad[-1] + 1000
            dev["offsets"] = bad
            EXAMPLES[example].launch(dev, out, schedule=schedule, unsafe=True)
            torch.cuda.synchronize()
    print("sanitize cases: %d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
