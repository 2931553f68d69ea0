"""Weighted segment sum with a per-segment scale, out[s] = scale[s] *
sum(values * weights) over segment s: two inputs zipped on the same offsets
(values and weights), one scalar per segment loaded with
sl.load(scale_ptr + sid), and one result per segment stored with
sl.store(out_ptr + sid, total).

    out[s] = scale[s] * sum(values[i] * weights[i] for i in segment s)

The results are float32 for float32, float16 and bfloat16 values alike
(the reduction runs in float32; sl.store takes the pointee's dtype).

    python3 examples/weighted_sum.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def weighted_sum(values_ptr, weights_ptr, offsets_ptr, scale_ptr, out_ptr):
    sid = sl.segment_id(0)
    values = sl.segment(values_ptr, offsets_ptr, sid)
    weights = sl.segment(weights_ptr, offsets_ptr, sid)
    total = sl.sum(sl.load_segment(values) * sl.load_segment(weights))
    total = total * sl.load(scale_ptr + sid)
    sl.store(out_ptr + sid, total)


INPUTS = ("values", "weights", "scale")
OUTPUT = "per_segment"


def launch(inputs, output, **options):
    weighted_sum.launch(arguments={"values_ptr": inputs["values"],
                                   "weights_ptr": inputs["weights"],
                                   "offsets_ptr": inputs["offsets"],
                                   "scale_ptr": inputs["scale"], "out_ptr": output},
                        **options)


def _per_segment(inputs, absolute):
    values = np.asarray(inputs["values"], dtype=np.float64)
    weights = np.asarray(inputs["weights"], dtype=np.float64)
    scale = np.asarray(inputs["scale"], dtype=np.float64)
    products = values * weights
    if absolute:
        products, scale = np.abs(products), np.abs(scale)
    return np.array([products[start:end].sum() * scale[s]
                     for s, (start, end) in enumerate(_example.segments_of(inputs))])


def reference(inputs):
    return _per_segment(inputs, absolute=False)


def error_scale(inputs):
    return _per_segment(inputs, absolute=True)


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
