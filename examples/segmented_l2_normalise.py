"""Segmented L2 normalisation: every segment divided by its Euclidean norm,
x / max(sqrt(sum(x * x)), 1e-12) (as torch.nn.functional.normalize does, so
an all-zero segment stays zero instead of becoming NaN).

    python3 examples/segmented_l2_normalise.py [--cpu] [--segments N]
"""

import sys

import _example
import numpy as np
import swage as sw
import swage.language as sl


@sw.jit
def segmented_l2_normalise(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    norm = sl.sqrt(sl.sum(x * x))
    sl.store_segment(output_ptr, segment, x / sl.maximum(norm, 1e-12))


INPUTS = ("values",)
OUTPUT = "segment"
EPSILON = 1e-12


def launch(inputs, output, **options):
    segmented_l2_normalise.launch(arguments={"values_ptr": inputs["values"],
                                             "offsets_ptr": inputs["offsets"],
                                             "output_ptr": output}, **options)


def reference(inputs):
    values = np.asarray(inputs["values"], dtype=np.float64)
    out = _example.segment_shaped(inputs)
    for start, end in _example.segments_of(inputs):
        if end > start:
            x = values[start:end]
            out[start:end] = x / max(np.sqrt(np.dot(x, x)), EPSILON)
    return out


def main(argv=None):
    return _example.run(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
