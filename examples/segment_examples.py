"""Every example kernel of this folder, by name, for the tests and the
benchmark: EXAMPLES[name] is the example's module (its kernel is the
module attribute of the same name; see _example.py for what else each
module defines).

    import sys; sys.path.insert(0, "examples")
    from segment_examples import EXAMPLES
    EXAMPLES["segmented_softmax"].launch({"values": v, "offsets": o}, out)
"""

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

NAMES = ("segmented_sum", "segmented_max", "segmented_mean", "segmented_softmax",
         "segmented_log_softmax", "segmented_l2_normalise", "weighted_sum")

EXAMPLES = {name: importlib.import_module(name) for name in NAMES}


def kernel(name):
    """The @sw.jit kernel of example `name`."""
    return getattr(EXAMPLES[name], name)
