"""Segmented mean: one float per segment, sum / length.

The mean of an empty segment is NaN: sl.sum gives 0 and sl.segment_length
gives 0, and 0 / 0 is NaN, as NumPy's mean of an empty array and
torch.segment_reduce(..., "mean") give. A caller who wants another value
for empty segments writes it in the kernel: `total / length if length > 0
else 0.0`.

The results are float32 for float32, float16 and bfloat16 values alike
(the reduction runs in float32; sl.store takes the pointee's dtype).

    python3 examples/segmented_mean.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def segmented_mean(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    sl.store(out_ptr + sid, sl.sum(x) / sl.segment_length(segment))


INPUTS = ("values",)
OUTPUT = "per_segment"


def launch(inputs, output, **options):
    segmented_mean.launch(arguments={"values_ptr": inputs["values"],
                                     "offsets_ptr": inputs["offsets"], "out_ptr": output},
                          **options)


def reference(inputs):
    values = np.asarray(inputs["values"], dtype=np.float64)
    return np.array([values[start:end].mean() if end > start else np.nan
                     for start, end in _example.segments_of(inputs)])


def error_scale(inputs):
    """The mean of |x|: the size of the rounding error of a mean."""
    values = np.abs(np.asarray(inputs["values"], dtype=np.float64))
    return np.array([values[start:end].mean() if end > start else 0.0
                     for start, end in _example.segments_of(inputs)])


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
