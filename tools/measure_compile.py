#!/usr/bin/env python3
"""Measures Swage's source-to-IR compile time for the vector-add kernel.

Each iteration calls swageKernelCompile on a spec the cache has never seen
(the kernel has an unused constexpr TAG that takes a new value every time),
so every call parses the source, generates the semantic IR and runs the
default pass pipeline. Prints the median and other percentiles in
microseconds. The time includes the ctypes call (about 1 us).

--unroll N compiles a 10-line kernel whose body sl.static_range unrolls N
times instead (N <= 4096; a few iterations are enough: -n 20), which shows
how compile time grows with the size of the program.

    SWAGE_LIB=build/libswage.so PYTHONPATH=python python3 tools/measure_compile.py [-n 2000]
    SWAGE_LIB=build/libswage.so PYTHONPATH=python python3 tools/measure_compile.py --unroll 4096 -n 20
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

UNROLLED = '''\
@sw.jit
def unrolled(x_ptr, out_ptr, n, N: sl.constexpr, TAG: sl.constexpr):
    pid = sl.program_id(0)
    acc = 0.0
    for i in sl.static_range(N):
        off = pid * N + i
        x = sl.load(x_ptr + off, mask=off < n, other=0.0)
        acc = acc + x * x
    sl.store(out_ptr + pid, acc)
'''
UNROLLED_SIGNATURE = "x_ptr=*f32,out_ptr=*f32,n=i32"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--iterations", type=int, default=2000)
    parser.add_argument("--block", type=int, default=1024)
    parser.add_argument("--unroll", type=int, default=0,
                        help="compile a kernel unrolled this many times instead")
    options = parser.parse_args()
    if options.unroll:
        source, kernel, signature = UNROLLED, "unrolled", UNROLLED_SIGNATURE
        fixed, warmup = "N=%d" % options.unroll, 2
    else:
        source, kernel, signature = SOURCE, "add_kernel", SIGNATURE
        fixed, warmup = "BLOCK=%d" % options.block, 50
    times = []
    for tag in range(options.iterations + warmup):
        constexprs = "%s,TAG=%d" % (fixed, tag)
        start = time.perf_counter_ns()
        _native.compile_kernel(source, "measure_compile.py", 1, kernel, signature, constexprs)
        elapsed = time.perf_counter_ns() - start
        if tag >= warmup:  # warm-up: page faults, first allocations
            times.append(elapsed / 1e3)
    times.sort()

    def pct(p):
        return times[min(len(times) - 1, int(p / 100 * len(times)))]

    what = ("a 10-line kernel unrolled %d times" % options.unroll if options.unroll
            else "vector add")
    print("swage %s: %s, source -> semantic IR (swageKernelCompile, cold spec)"
          % (_native.version, what))
    print("iterations %d  median %.1f us  p10 %.1f us  p90 %.1f us  min %.1f us"
          % (len(times), statistics.median(times), pct(10), pct(90), times[0]))


if __name__ == "__main__":
    main()
