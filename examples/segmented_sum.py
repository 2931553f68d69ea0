"""Segmented sum: one float per segment, the sum of its values (0 for an
empty segment).

The results are float32 for float32, float16 and bfloat16 values alike
(the reduction runs in float32; sl.store takes the pointee's dtype).

    python3 examples/segmented_sum.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def segmented_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    sl.store(out_ptr + sid, sl.sum(x))


INPUTS = ("values",)
OUTPUT = "per_segment"


def launch(inputs, output, **options):
    segmented_sum.launch(arguments={"values_ptr": inputs["values"],
                                    "offsets_ptr": inputs["offsets"], "out_ptr": output},
                         **options)


def reference(inputs):
    values = np.asarray(inputs["values"], dtype=np.float64)
    return np.array([values[start:end].sum() for start, end in _example.segments_of(inputs)])


def error_scale(inputs):
    """A sum can cancel to near 0: its rounding error scales with sum(|x|)."""
    values = np.abs(np.asarray(inputs["values"], dtype=np.float64))
    return np.array([values[start:end].sum() for start, end in _example.segments_of(inputs)])


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
