#!/usr/bin/env python3
"""Host overhead of a warm segment launch without a GPU: Python + ctypes + C.

The host side of bench/small_batch.py (1000 segments of 0..63 float32
elements, examples/segmented_sum.py) against the fake CUDA driver
(test/python/fake_libcuda.c, through $SWAGE_LIBCUDA: every driver call
returns at once) and a small fake torch module (no memory: the fake driver
touches none; torch.empty hands out addresses). Reported per call (best of
--repeats rounds of --launches calls), checked (the default) and
unsafe=True:

  launch        kernel.launch(arguments=...), all of it
  python        the same with the C launch replaced by a no-op: Python only
  c_call        the C launch alone, through the same ctypes binding, with
                arguments prepared once (ctypes + C + the fake driver)
  torch.empty   the fake torch.empty of the scratch (the real one, through
                PyTorch's caching allocator, costs more: measure it on a GPU)

and the driver calls one launch makes (launches, memsets, context pushes and
pops, synchronisations, copies to the host). The real driver's cost of each
comes on top (a launch about 2-3 us on an H200, a synchronisation a GPU
round trip); bench/small_batch.py measures the whole thing on the GPU.

    python3 bench/small_batch_local.py [--json out.json]
"""

import argparse
import ctypes
import json
import os
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # NumPy's idle threads spin on a small machine
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for path in (os.path.join(REPO, "python"), os.path.join(REPO, "examples"),
             os.path.join(REPO, "test", "python"), HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

from launch_overhead_local import best_us, build_fake_driver, fake_torch_module  # noqa: E402
from swage_testing import FakeDriverState as DriverState  # noqa: E402

# driver entry points counted apart from fake_state (test/python/fake_libcuda.c)
COUNTERS = ("fake_syncs", "fake_copies", "fake_async_copies")


def driver_calls(driver, state, fn):
    """The driver calls of one fn() call, by kind."""
    counters = {name: ctypes.c_long.in_dll(driver, name) for name in COUNTERS
                if hasattr(driver, name)}
    before = {name: getattr(state, name) for name in ("launches", "memsets", "pushes", "pops")}
    before.update({name: c.value for name, c in counters.items()})
    fn()
    after = {name: getattr(state, name) for name in ("launches", "memsets", "pushes", "pops")}
    after.update({name: c.value for name, c in counters.items()})
    return {name: after[name] - before[name] for name in before}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=63)
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="write the results here")
    options = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="swage-fake-cuda-")
    driver_path = build_fake_driver(directory)
    os.environ["SWAGE_LIBCUDA"] = driver_path
    torch, _ = fake_torch_module()
    import random
    from swage import _native
    from segment_examples import EXAMPLES

    driver = ctypes.CDLL(driver_path)
    ctx = ctypes.c_void_p()  # PyTorch makes the primary context current on its threads
    driver.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
    driver.cuCtxSetCurrent(ctx)
    state = DriverState.in_dll(driver, "fake_state")

    kernel = EXAMPLES["segmented_sum"].segmented_sum
    generator = random.Random(1)
    total = sum(generator.randint(0, options.max_length) for _ in range(options.segments))
    values = torch.Tensor(0x1000000, total, torch.float32)
    offsets = torch.Tensor(0x2000000, options.segments + 1, torch.int32)
    out = torch.Tensor(0x3000000, options.segments, torch.float32)
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}

    variants = {
        "checked": lambda: kernel.launch(arguments=arguments),
        "unsafe": lambda: kernel.launch(arguments=arguments, unsafe=True),
    }
    result = {"benchmark": "small_batch_local", "python": sys.version.split()[0],
              "libswage": _native.library_path, "segments": options.segments,
              "max_length": options.max_length, "launches": options.launches,
              "repeats": options.repeats}
    for name, fn in variants.items():
        fn()  # compiles, loads the "modules", makes the warm path
        fn()
        row = result[name] = {"launch_us": best_us(fn, options.launches, options.repeats),
                              "driver_calls": driver_calls(driver, state, fn)}
        row.update(parts(kernel, fn, arguments, name == "unsafe", options))
    result["torch_empty_us"] = best_us(
        lambda: torch.empty(4096, dtype=torch.uint8, device=torch.device("cuda", 0)),
        options.launches, options.repeats)

    print("Swage warm segment launch without a GPU: %d segments of 0..%d elements, segmented_sum "
          "(fake driver, fake torch, Python %s)" % (options.segments, options.max_length,
                                                    result["python"]))
    for name in variants:
        row = result[name]
        print("  %-8s launch %6.2f us   python %6.2f us   c_call %6.2f us" % (
            name, row["launch_us"], row.get("python_us", float("nan")),
            row.get("c_call_us", float("nan"))))
        print("           driver calls: %s" % ", ".join(
            "%s %d" % item for item in sorted(row["driver_calls"].items())))
    print("  fake torch.empty %.2f us" % result["torch_empty_us"])
    if options.json:
        with open(options.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    return 0


def parts(kernel, fn, arguments, unsafe, options):
    """python_us and c_call_us of one variant (see the module docstring): the
    C launch the warm path calls swapped for a no-op, and called alone with
    the arguments of one call. The warm path's code holds it as a global of
    its generated namespace (launch_packed) or, before, as a closure
    variable (launch)."""
    attempt = getattr(kernel, "_warm_segment_attempt", None)
    if attempt is None:
        return {}
    if "launch_packed" in attempt.__globals__:
        namespace = attempt.__globals__
        get, put = (lambda: namespace["launch_packed"]), \
            (lambda f: namespace.__setitem__("launch_packed", f))
    elif "launch" in attempt.__code__.co_freevars:
        cell = attempt.__closure__[attempt.__code__.co_freevars.index("launch")]
        get, put = (lambda: cell.cell_contents), (lambda f: setattr(cell, "cell_contents", f))
    else:
        return {}
    real = get()
    calls = []

    def recording(*args):
        calls.append(args)
        return real(*args)

    put(recording)
    try:
        fn()
    finally:
        put(real)
    args = calls[-1]
    out = {"c_call_us": best_us(lambda: real(*args), options.launches, options.repeats)}
    put(lambda *args: 0)
    try:
        out["python_us"] = best_us(fn, options.launches, options.repeats)
    finally:
        put(real)
    return out


if __name__ == "__main__":
    sys.exit(main())
