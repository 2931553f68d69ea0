#!/usr/bin/env python3
"""Where the host time of a warm GPU launch goes, on a CUDA machine.

bench/vector_add.py measures the whole warm launch of Swage and Triton; this
script splits Swage's into its parts, so that an optimisation can be aimed
(count first, predict, measure, look back: docs/testing.md). Everything is the
vector add of bench/vector_add.py, one CTA (1024 elements), warm.

Two ways of timing a stream of launches:
  stream   10,000 launches back to back, wall time to the final synchronize
           divided by 10,000 (what bench/vector_add.py reports). When the
           host issues launches faster than the GPU runs them, the driver's
           launch queue fills and this measures the GPU, not the host.
  enqueue  64 batches of 128 launches, synchronized between batches, only the
           time to issue each batch counted: the host's own cost per launch
           (128 launches never fill the queue).

Rows:
  swage kernel.launch        the whole warm launch (bench/vector_add.swage_add)
  triton kernel[grid](...)   the same for Triton
  swage ctypes packed call   swageKernelLaunchCudaPacked through ctypes with
                             a buffer packed once
  C loop: swage packed       the same entry called from a C loop (no Python)
  C loop: cuLaunchKernel     the driver alone, kernelParams as Swage passes them
  C loop: cuLaunchKernel ex  the driver alone, parameters as one buffer (extra)
and host-only parts (no GPU work): each torch.Tensor attribute the warm path
reads, the current-stream query, struct packing, a ctypes call of a C no-op
with the packed entry's signature, and kernel.launch with the packed entry
swapped for that no-op (Python + ctypes, no Swage C, no driver).

    SWAGE_LIB=build-gpu/libswage.so python3 bench/launch_breakdown.py [--json out.json]
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (also puts the tree's python/ on sys.path)

HELPER_SOURCE = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>
typedef int CUresult;
typedef void *CUfunction, *CUmodule, *CUstream;
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef int (*packed_fn)(const void *, void *);
static launch_fn launch;
static CUfunction function;

static int64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int noop(const void *buffer, void *error)
{
    (void)buffer;
    (void)error;
    return 0;
}

int setup(const char *ptx, const char *entry)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        return -1;
    CUresult (*load)(CUmodule *, const void *) = (CUresult(*)(CUmodule *, const void *))dlsym(h, "cuModuleLoadData");
    CUresult (*get)(CUfunction *, CUmodule, const char *) =
        (CUresult(*)(CUfunction *, CUmodule, const char *))dlsym(h, "cuModuleGetFunction");
    launch = (launch_fn)dlsym(h, "cuLaunchKernel");
    if (!load || !get || !launch)
        return -2;
    CUmodule m;
    CUresult r = load(&m, ptx);
    return r ? r : get(&function, m, entry);
}

int64_t loop_packed(packed_fn f, const void *buffer, int n)
{
    int64_t t0 = now();
    for (int i = 0; i < n; i++)
        if (f(buffer, 0))
            return -1;
    return now() - t0;
}

int64_t loop_raw(uint64_t x, uint64_t y, uint64_t out, int32_t count, unsigned threads,
                 CUstream stream, int n, int as_buffer)
{
    void *params[4] = {&x, &y, &out, &count};
    struct { uint64_t x, y, out; int32_t count; } buffer = {x, y, out, count};
    size_t size = 28;
    void *extra[5] = {(void *)1, &buffer, (void *)2, &size, (void *)0};
    int64_t t0 = now();
    for (int i = 0; i < n; i++)
        if (launch(function, 1, 1, 1, threads, 1, 1, 0, stream, as_buffer ? 0 : params,
                   as_buffer ? extra : 0))
            return -1;
    return now() - t0;
}
"""


def build_helper(directory):
    source = os.path.join(directory, "helper.c")
    path = os.path.join(directory, "helper.so")
    with open(source, "w") as f:
        f.write(HELPER_SOURCE)
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", path, source,
                    "-ldl"], check=True)
    helper = ctypes.CDLL(path)
    helper.setup.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    helper.loop_packed.restype = ctypes.c_int64
    helper.loop_packed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    helper.loop_raw.restype = ctypes.c_int64
    helper.loop_raw.argtypes = [ctypes.c_uint64] * 3 + [ctypes.c_int32, ctypes.c_uint,
                                                         ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    return helper


def host_ns(fn, number=100000, repeat=5):
    """Best per-call time of fn() over `repeat` loops of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / number)
    return best


def attempt_variants(launcher, buffer, stream, library_path):
    """The warm path's attempt(arguments, constexprs, grid) as generated by
    `launcher`, and copies of it with one part left out or replaced
    (measurement only: each copy launches the same kernel, so the difference
    is that part's cost in the real loop, with the driver's cache footprint
    in between)."""
    source = launcher.source
    namespace = dict(launcher.attempt.__globals__)
    pydll = ctypes.PyDLL(library_path).swageKernelLaunchCudaPacked
    pydll.restype = ctypes.c_int
    namespace.update(BUFFER=buffer, STREAM=stream, PYCALL=pydll)

    def without(*fragments):
        lines = source.split("\n")
        kept, drop_next = [], False
        for line in lines:
            if drop_next:
                drop_next = False
                continue
            if any(f in line for f in fragments) and line.rstrip().endswith(":"):
                drop_next = True  # the check and its `return`
                continue
            kept.append(line)
        return "\n".join(kept)

    texts = [
        ("as generated", source),
        ("- is_cuda", without(".is_cuda")),
        ("- get_device compare", without("get_device() != device")),
        ("- is_contiguous", without(".is_contiguous()")),
        ("stream constant", source.replace("stream(device)", "STREAM")),
        ("buffer prebuilt", "\n".join(
            "        buffer = BUFFER" if "buffer = pack(" in line else line
            for line in source.split("\n"))),
        ("PyDLL (GIL held)", source.replace("native.cuda_launch_packed", "PYCALL")),
    ]
    variants = []
    for name, text in texts:
        ns = dict(namespace)
        try:
            exec(compile(text, "<variant %s>" % name, "exec"), ns)
            variants.append((name, ns["attempt"]))
        except SyntaxError as e:
            print("variant %s does not compile: %s" % (name, e))
    return variants


def python_loop(fn, *args):
    def issue(n):
        for _ in range(n):
            fn(*args)
    return issue


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", help="import swage from this folder instead of the tree's")
    parser.add_argument("--label", default="", help="a name for this run in the table")
    parser.add_argument("--json", help="write the results here")
    options = parser.parse_args()
    if options.python:
        sys.path.insert(0, os.path.abspath(options.python))
    import torch
    import vector_add as va  # the kernels and the two launch functions
    from swage import _native
    print("swage from", os.path.dirname(va.sw.__file__))

    n = va.BLOCK
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    for name in ("swage", "triton"):
        va.check(name, va.VARIANTS[name], x, y, out, x + y)
    device = x.get_device()
    stream = torch.cuda.current_stream(device).cuda_stream
    launcher, buffer = va.warm_packed_launch(x, y, out, n)
    assert launcher is not None, "the warm path did not take the vector add"
    ptx = va.add_kernel.emit_ptx(signature="x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32",
                                 constexprs={"BLOCK": n}, sm=90)
    threads = int(ptx.split(".maxntid", 1)[1].split(",")[0])

    results = {"record": common.record("launch_breakdown"), "label": options.label}
    rows = []

    with tempfile.TemporaryDirectory() as tmp:
        helper = build_helper(tmp)
        status = helper.setup(ptx.encode(), b"add_kernel")
        if status:
            raise RuntimeError("helper setup failed with %d" % status)
        packed = ctypes.cast(_native.cuda_launch_packed, ctypes.c_void_p).value
        noop = helper.noop
        noop.restype = ctypes.c_int
        packed_call = _native.cuda_launch_packed

        def c_packed(count):
            if helper.loop_packed(packed, buffer, count) < 0:
                raise RuntimeError("packed launch failed")

        def c_raw(as_buffer):
            def issue(count):
                if helper.loop_raw(x.data_ptr(), y.data_ptr(), out.data_ptr(), n, threads,
                                   stream, count, as_buffer) < 0:
                    raise RuntimeError("cuLaunchKernel failed")
            return issue

        arguments = {"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n}
        constexprs = {"BLOCK": n}
        variants = attempt_variants(launcher, buffer, stream, _native.library_path)
        launches = [
            ("swage kernel.launch", python_loop(va.swage_add, x, y, out, n)),
            ("swage launch, grid prebuilt", python_loop(
                lambda: va.add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y,
                                                        "output_ptr": out, "n": n},
                                             constexprs={"BLOCK": n}, grid=(1,)))),
            ("swage launch, args prebuilt", python_loop(
                lambda: va.add_kernel.launch(arguments=arguments, constexprs=constexprs,
                                             grid=(1,)))),
        ] + [("attempt " + name, python_loop(fn, arguments, constexprs, (1,)))
             for name, fn in variants] + [
            ("triton kernel[grid](...)", python_loop(va.triton_add, x, y, out, n)),
            ("swage ctypes packed call", python_loop(packed_call, buffer, None)),
            ("C loop: swage packed", c_packed),
            ("C loop: cuLaunchKernel", c_raw(0)),
            ("C loop: cuLaunchKernel extra", c_raw(1)),
        ]
        for name, issue in launches:
            out.fill_(float("nan"))
            e = common.launch_enqueue_us(torch, issue)
            s = min(common.launch_wall_us(torch, issue) for _ in range(2))
            torch.testing.assert_close(out, x + y, rtol=0, atol=0)
            results[name] = {"enqueue_us": e, "stream_us": s}
            rows.append((name, "%.2f" % e, "%.2f" % s))

        # host-only parts
        raw_stream = torch._C._cuda_getCurrentRawStream
        layout = _native.launch_struct(["*f32", "*f32", "*f32", "i32"])
        values = layout.unpack(buffer)  # what the warm path packs
        parts = [
            ("t.is_cuda", lambda: x.is_cuda),
            ("t.get_device()", lambda: x.get_device()),
            ("t.is_contiguous()", lambda: x.is_contiguous()),
            ("t.dtype", lambda: x.dtype),
            ("t.data_ptr()", lambda: x.data_ptr()),
            ("raw stream query", lambda: raw_stream(device)),
            ("struct pack", lambda: layout.pack(*values)),
            ("ctypes call of a C no-op", lambda: noop(buffer, None)),
            ("empty lambda (subtract)", lambda: None),
            ("caller: dicts + grid", lambda: ({"x_ptr": x, "y_ptr": y, "output_ptr": out,
                                               "n": n}, {"BLOCK": n}, (1,))),
            ("triton.cdiv(n, BLOCK)", lambda: va.triton.cdiv(n, va.BLOCK)),
            ("attempt(...) alone", lambda: va.add_kernel._warm_attempt(
                arguments, constexprs, (1,))),
            ("JITFunction.launch (method)", lambda: type(va.add_kernel).launch(
                va.add_kernel, arguments=arguments, constexprs=constexprs, grid=(1,))),
            ("kernel.launch (entry)", lambda: va.add_kernel.launch(
                arguments=arguments, constexprs=constexprs, grid=(1,))),
        ]
        _native.cuda_launch_packed = noop
        try:
            parts.append(("kernel.launch, C entry a no-op",
                          lambda: va.swage_add(x, y, out, n)))
            for name, fn in parts:
                ns = host_ns(fn)
                results[name] = {"host_ns": ns}
                rows.append((name, "%.0f ns" % ns, ""))
        finally:
            _native.cuda_launch_packed = packed_call

    torch.cuda.synchronize()
    if options.json:
        with open(options.json, "w") as f:
            json.dump(results, f, indent=1)
    print("\nwarm launch breakdown %s(us per launch; enqueue = host only, stream = 10k "
          "back to back)" % (options.label + " " if options.label else ""))
    print("%-32s %10s %10s" % ("", "enqueue", "stream"))
    for row in rows:
        print("%-32s %10s %10s" % row)


if __name__ == "__main__":
    main()
