"""Segmented softmax: the kernel of docs/segments.md and the README, as written there.
Three stages: the segment's maximum, the sum of exp(x - maximum), then the
normalised values stored back in the segment's place. Nothing is stored for
an empty segment.

    python3 examples/segmented_softmax.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def segmented_softmax(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    maximum = sl.max(x)
    numerator = sl.exp(x - maximum)
    denominator = sl.sum(numerator)
    sl.store_segment(output_ptr, segment, numerator / denominator)


INPUTS = ("values",)
OUTPUT = "segment"


def launch(inputs, output, **options):
    segmented_softmax.launch(arguments={"values_ptr": inputs["values"],
                                        "offsets_ptr": inputs["offsets"],
                                        "output_ptr": output}, **options)


def reference(inputs):
    values = np.asarray(inputs["values"], dtype=np.float64)
    out = _example.segment_shaped(inputs)
    for start, end in _example.segments_of(inputs):
        if end > start:
            e = np.exp(values[start:end] - values[start:end].max())
            out[start:end] = e / e.sum()
    return out


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
