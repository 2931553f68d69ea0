#!/usr/bin/env python3
"""Measures Swage's source-to-IR compile time for the vector-add kernel.

Each iteration calls swageKernelCompile on a spec the cache has never seen
(the kernel has an unused constexpr TAG that takes a new value every time),
so every call parses the source, generates the semantic IR and runs the
default pass pipeline. Prints the median and other percentiles in
microseconds. The time includes the ctypes call (about 1 us).

    SWAGE_LIB=build/libswage.so PYTHONPATH=python python3 tools/measure_compile.py [-n 2000]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))

from swage import _native  # noqa: E402

SOURCE = '''\
@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr, TAG: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)
'''
SIGNATURE = "x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--iterations", type=int, default=2000)
    parser.add_argument("--block", type=int, default=1024)
    options = parser.parse_args()
    times = []
    for tag in range(options.iterations + 50):
        constexprs = "BLOCK=%d,TAG=%d" % (options.block, tag)
        start = time.perf_counter_ns()
        _native.compile_kernel(SOURCE, "measure_compile.py", 1, "add_kernel", SIGNATURE,
                               constexprs)
        elapsed = time.perf_counter_ns() - start
        if tag >= 50:  # warm-up: page faults, first allocations
            times.append(elapsed / 1e3)
    times.sort()

    def pct(p):
        return times[min(len(times) - 1, int(p / 100 * len(times)))]

    print("swage %s: vector add, source -> semantic IR (swageKernelCompile, cold spec)"
          % _native.version)
    print("iterations %d  median %.1f us  p10 %.1f us  p90 %.1f us  min %.1f us"
          % (len(times), statistics.median(times), pct(10), pct(90), times[0]))


if __name__ == "__main__":
    main()
