"""`python3 -m swage`: the demo. Compiles the segmented softmax of the
README (one kernel for ONE segment) and the vector add, runs them on the
GPU when PyTorch sees one and on the CPU executor otherwise, checks both
against a reference, and prints a short report. `--help` and `--version`
say what it is.

On the CPU it uses NumPy when installed and the standard library's array
module otherwise, so it also runs in a bare virtual environment.
"""

import argparse
import array
import math
import random
import sys
import time

import swage as sw
import swage.language as sl
from swage import _native


@sw.jit
def segmented_softmax(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    maximum = sl.max(x)
    numerator = sl.exp(x - maximum)
    denominator = sl.sum(numerator)
    sl.store_segment(output_ptr, segment, numerator / denominator)


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


BLOCK = 1024


def _cuda_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _ragged_lengths(count):
    # tiny, empty and a few long segments: the shapes Swage is built for
    rng = random.Random()
    return [rng.choice((0, 1, 3, 17, 64)) if rng.random() < 0.9 else rng.randint(1000, 5000)
            for _ in range(count)]


def _softmax_reference(values, lengths):
    out, start = [], 0
    for n in lengths:
        seg = values[start:start + n]
        if seg:
            m = max(seg)
            e = [math.exp(v - m) for v in seg]
            s = sum(e)
            out.extend(v / s for v in e)
        start += n
    return out


def _run_gpu(torch):
    device = torch.device("cuda")
    lengths = _ragged_lengths(20000)
    offsets = torch.tensor([0] + lengths, device=device, dtype=torch.int64).cumsum(0)
    values = torch.randn(int(offsets[-1]), device=device)
    out = torch.full_like(values, float("nan"))
    start = time.perf_counter()
    segmented_softmax.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                        "output_ptr": out})
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - start) * 1e3
    ref = torch.cat([torch.softmax(values[a:b].double(), 0) for a, b in
                     zip(offsets[:-1].tolist(), offsets[1:].tolist()) if b > a]).float()
    soft_err = float((out - ref).abs().max()) if len(ref) else 0.0
    print("segmented softmax on %s: %d segments, %d values, first launch (compile + "
          "JIT + run) %.1f ms, max |out - torch.softmax| = %.2g"
          % (torch.cuda.get_device_name(), len(lengths), values.numel(), first_ms, soft_err))

    n = 1 << 24
    x, y = torch.rand(n, device=device), torch.rand(n, device=device)
    z = torch.empty_like(x)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": z, "n": n},
                      constexprs={"BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,))
    torch.cuda.synchronize()
    add_err = float((z - (x + y)).abs().max())
    print("vector add on the GPU: n=%d, max |out - (x + y)| = %g" % (n, add_err))
    return soft_err < 1e-5 and add_err == 0.0


def _run_cpu():
    try:
        import numpy as np
    except ImportError:
        np = None
    lengths = _ragged_lengths(2000)
    offsets_list = [0]
    for n in lengths:
        offsets_list.append(offsets_list[-1] + n)
    total = offsets_list[-1]
    values_list = [random.gauss(0.0, 1.0) for _ in range(total)]
    if np is not None:
        values = np.array(values_list, np.float32)
        offsets = np.array(offsets_list, np.int64)
        out = np.full(total, np.nan, np.float32)
    else:
        values = array.array("f", values_list)
        offsets = array.array("q", offsets_list)
        out = array.array("f", [float("nan")] * total)
    start = time.perf_counter()
    segmented_softmax.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                        "output_ptr": out})
    first_ms = (time.perf_counter() - start) * 1e3
    reference = _softmax_reference(list(values), lengths)
    soft_err = max((abs(a - b) for a, b in zip(out, reference)), default=0.0)
    print("segmented softmax on the CPU executor (%s): %d segments, %d values, "
          "compile + run %.1f ms, max |out - reference| = %.2g"
          % ("NumPy" if np is not None else "array module", len(lengths), total, first_ms,
             soft_err))

    n = 98432
    x = array.array("f", (random.random() for _ in range(n)))
    y = array.array("f", (random.random() for _ in range(n)))
    z = array.array("f", bytes(4 * n))
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": z, "n": n},
                      constexprs={"BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,))
    expected = array.array("f", (a + b for a, b in zip(x, y)))  # rounded to float32
    add_err = max(abs(a - b) for a, b in zip(z, expected))
    print("vector add on the CPU executor: n=%d, max |out - (x + y)| = %g" % (n, add_err))
    return soft_err < 1e-5 and add_err == 0.0


DESCRIPTION = """\
Runs Swage's demo: it compiles two kernels, runs them and checks the
results against a reference. The first is a segmented softmax, a kernel
written for one segment of a ragged input and launched once for all of them;
the second is a Triton-style vector add over a grid of blocks. They run on
the GPU when PyTorch sees a CUDA device, and on Swage's CPU executor
otherwise. The exit status is 0 when both results are right."""

EPILOG = """\
The compiler's own commands are `swage` (compile a kernel from a Python
file and print its IR or PTX; see `swage --help`) and `swage-opt` (run
passes over IR text; see `swage-opt --help`). The documentation is in the
docs/ folder of the Swage repository; docs/api.md describes the Python API."""


def _version_text():
    library = _native.version
    text = "swage %s (C library %s at %s)" % (sw.__version__, library, sw.library_path)
    if library != sw.__version__:
        text += "; the package and the library differ: rebuild or reinstall"
    return text


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m swage", description=DESCRIPTION,
                                     epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     add_help=False)
    parser.add_argument("-h", "--help", action="help", help="Show this help and exit.")
    parser.add_argument("--version", action="version", version=_version_text(),
                        help="Print the version of the package and of its C library, then exit.")
    parser.add_argument("--cpu", action="store_true",
                        help="Run on the CPU executor even when a GPU is available.")
    return parser.parse_args(argv)


def main(argv=None):
    options = _parse(argv)
    print("Swage %s (%s)" % (sw.__version__, sw.library_path))
    torch = None if options.cpu else _cuda_torch()
    ok = _run_gpu(torch) if torch is not None else _run_cpu()
    text = segmented_softmax.emit_mlir(
        signature={"values_ptr": "*f32", "offsets_ptr": "*i64", "output_ptr": "*f32"})
    stages = [line.strip() for line in text.split("\n") if "sw.stages" in line]
    print("the compiler found the softmax's chain of reductions: %s"
          % (stages[0][stages[0].find("sw.stages"):].split("}")[0] if stages else "?"))
    if not ok:
        print("FAILED: a result differs from its reference")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
