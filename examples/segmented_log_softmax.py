"""Segmented log-softmax: x - max - log(sum(exp(x - max))) for every element
of a segment, computed without overflow for any input size.

    python3 examples/segmented_log_softmax.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def segmented_log_softmax(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    shifted = x - sl.max(x)
    log_denominator = sl.log(sl.sum(sl.exp(shifted)))
    sl.store_segment(output_ptr, segment, shifted - log_denominator)


INPUTS = ("values",)
OUTPUT = "segment"


def launch(inputs, output, **options):
    segmented_log_softmax.launch(arguments={"values_ptr": inputs["values"],
                                            "offsets_ptr": inputs["offsets"],
                                            "output_ptr": output}, **options)


def reference(inputs):
    values = np.asarray(inputs["values"], dtype=np.float64)
    out = _example.segment_shaped(inputs)
    for start, end in _example.segments_of(inputs):
        if end > start:
            shifted = values[start:end] - values[start:end].max()
            out[start:end] = shifted - np.log(np.exp(shifted).sum())
    return out


def error_scale(inputs):
    """Results near 0 (the largest element of a short segment) carry the
    rounding error of x - max and of the log: measure against 1 + |x - max|."""
    values = np.asarray(inputs["values"], dtype=np.float64)
    scale = _example.segment_shaped(inputs)
    for start, end in _example.segments_of(inputs):
        if end > start:
            scale[start:end] = 1.0 + np.abs(values[start:end] - values[start:end].max())
    return np.nan_to_num(scale)


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
