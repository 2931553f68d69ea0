"""`python3 -m swage`: compile the vector-add example, run it on the CPU
executor, check it against a reference, and print a short report.

Uses NumPy when it is installed and the standard library's array module
otherwise, so it also runs in a bare virtual environment.
"""

import array
import random
import sys
import time

import swage as sw
import swage.language as sl


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


SIZES = (1, 1000, 98432)
BLOCK = 1024


def _inputs(n, np):
    if np is not None:
        rng = np.random.default_rng()
        return (rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32),
                np.empty(n, np.float32))
    x = array.array("f", (random.random() for _ in range(n)))
    y = array.array("f", (random.random() for _ in range(n)))
    return x, y, array.array("f", bytes(4 * n))


def _max_error(x, y, out, np):
    if np is not None:
        return float(np.max(np.abs(out - (x + y)))) if len(out) else 0.0
    # array('f') stores float32: round the double sum to float32 the same way
    reference = array.array("f", (a + b for a, b in zip(x, y)))
    return max((abs(a - b) for a, b in zip(out, reference)), default=0.0)


def main():
    try:
        import numpy as np
    except ImportError:
        np = None
    print("Swage %s (%s)" % (sw.__version__, sw.library_path))
    print("vector add on the CPU executor, BLOCK=%d, inputs from %s"
          % (BLOCK, "NumPy" if np is not None else "the array module (NumPy not installed)"))

    signature = {"x_ptr": "*f32", "y_ptr": "*f32", "output_ptr": "*f32", "n": "i32"}
    start = time.perf_counter()
    add_kernel._compile("x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32", "BLOCK=%d" % BLOCK)
    compile_ms = (time.perf_counter() - start) * 1e3

    worst = 0.0
    for n in SIZES:
        x, y, out = _inputs(n, np)
        start = time.perf_counter()
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                          constexprs={"BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,))
        run_ms = (time.perf_counter() - start) * 1e3
        error = _max_error(x, y, out, np)
        worst = max(worst, error)
        print("  n=%-6d programs=%-4d max |out - (x + y)| = %g   launch %.2f ms"
              % (n, (n + BLOCK - 1) // BLOCK, error, run_ms))
    print("compile: %.3f ms (source text -> semantic IR after the pass pipeline, cold)"
          % compile_ms)

    mlir = add_kernel.emit_mlir(signature=signature, constexprs={"BLOCK": BLOCK}).split("\n")
    print("semantic IR (first lines of %d):" % len(mlir))
    for line in mlir[:6]:
        print("  " + line)
    if worst != 0.0:
        print("FAILED: the result differs from x + y")
        return 1
    print("OK: results match x + y exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
