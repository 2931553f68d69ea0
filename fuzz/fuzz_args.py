#!/usr/bin/env python3
"""fuzz_args.py - launch-argument conversion in the Python layer: what
python/swage/_args.py makes of any value a caller passes (ints and floats at
and past every limit, NumPy scalars and arrays of every dtype, layout and
flag, buffers, objects that pretend to be CUDA arrays, strings, None, ...),
as arguments, constexprs and grids of launch(), emit_mlir() and plan().

    fuzz_args.py [--seed=N] [--time=S] [--runs=N] [--findings=DIR]
    fuzz_args.py FILE...          replay saved cases

Each case is generated from its own random stream, named "SEED:INDEX", so
the same seed runs the same cases (print the seed, rerun it) and a saved
case replays alone. Findings: an exception other than TypeError, ValueError,
swage.CompileError, a RuntimeError of the library's own (an out-of-bounds
access, no GPU) or a KeyboardInterrupt (a launch stopped by the time limit
of a case); any "internal error"; and, under AddressSanitizer, a crash (the
case being run is in FINDINGS/args-current.txt).
"""

import argparse
import array
import ctypes
import math
import os
import random
import signal
import sys
import time

import numpy as np

import swage as sw
import swage.language as sl

try:
    import ml_dtypes
except ImportError:  # bfloat16 arrays are left out
    ml_dtypes = None


# ---- the kernels ------------------------------------------------------------------------

@sw.jit
def k_add(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    sl.store(out_ptr + offs, sl.load(x_ptr + offs, mask=mask) + sl.load(y_ptr + offs, mask=mask),
             mask=mask)


@sw.jit
def k_scale(x_ptr, out_ptr, alpha, k, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(out_ptr + offs, sl.load(x_ptr + offs) * alpha + k)


@sw.jit
def k_typed(out_ptr: sl.pointer(sl.float32), a: sl.int8, b: sl.uint8, c: sl.int32, d: sl.int64,
            e: sl.float16, f: sl.bfloat16, g: sl.float64, h: sl.int1):
    v = a.to(sl.float32) + b + c + d + e.to(sl.float32) + f.to(sl.float32) + g + h
    sl.store(out_ptr + sl.program_id(0), v)


@sw.jit
def k_constexprs(out_ptr, A: sl.constexpr, B: sl.constexpr = 2, DT: sl.constexpr = sl.float32):
    sl.store(out_ptr, sl.cast(A + B, DT))


@sw.jit
def k_segments(values_ptr, offsets_ptr, out_ptr):
    seg = sl.segment(values_ptr, offsets_ptr, sl.segment_id(0))
    x = sl.load_segment(seg)
    sl.store_segment(out_ptr, seg, x - sl.max(x))


KERNELS = [k_add, k_scale, k_typed, k_constexprs, k_segments]


class CaseError(Exception):
    """Raised by the fuzzer's own objects (a property that fails): it may
    pass through the library, as the caller's exception."""


# ---- values -----------------------------------------------------------------------------

INTS = [0, 1, -1, 2, 7, 127, 128, 255, 256, -129, 2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1,
        2 ** 32, 2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 400, -10 ** 5000]
FLOATS = [0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, math.nan, 1e39, -1e39,
          3.4028234663852886e38, 3.4028235677973366e38, 65504.0, 65520.0, 1e-45, 5e-324, 1e308,
          float.fromhex("0x1.fep127"), float.fromhex("0x1.ffp127")]
ARRAY_DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                "uint32", "int64", "uint64", "bool", "complex64", "object", ">f4", "<f4", ">i8",
                "V4", "U2", "datetime64[s]"]
SCALAR_TYPES = [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16,
                np.int32, np.uint32, np.int64, np.uint64, np.bool_, np.complex64, np.longdouble]


class Index:
    """An object with __index__ (a NumPy-like integer)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class FakeCuda:
    """An object that says it is a CUDA array."""

    def __init__(self, interface, raises=False):
        self.interface = interface
        self.raises = raises

    @property
    def __cuda_array_interface__(self):
        if self.raises:
            raise CaseError("the property fails")
        return self.interface


def some_int(rng):
    return rng.choice(INTS) if rng.random() < 0.7 else rng.getrandbits(rng.randrange(1, 80)) * rng.choice([1, -1])


def some_float(rng):
    return rng.choice(FLOATS) if rng.random() < 0.7 else rng.uniform(-1e6, 1e6)


def some_array(rng):
    dtype = rng.choice(ARRAY_DTYPES + (["bfloat16"] if ml_dtypes else []))
    shape = rng.choice([(), (0,), (1,), (7,), (64,), (130,), (3, 4), (2, 0, 3)])
    dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    a = np.zeros(shape, dtype=dtype)
    if a.dtype.kind in "iufb" and a.size:
        a[...] = np.arange(a.size).reshape(shape) % 5
    how = rng.randrange(8)
    if how == 0 and a.ndim >= 1 and a.shape[0] > 1:
        a = a[::2]                                       # not contiguous
    elif how == 1 and a.ndim == 2:
        a = np.asfortranarray(a)
    elif how == 2:
        a.setflags(write=False)
    elif how == 3 and a.size:
        a = np.lib.stride_tricks.as_strided(a, shape=(a.size * 2,), strides=(0,))  # overlapping
    elif how == 4 and a.ndim >= 1:
        a = np.broadcast_to(a, (3,) + a.shape)
    return a


def some_buffer(rng):
    how = rng.randrange(7)
    n = rng.choice([0, 1, 4, 64, 100])
    if how == 0:
        return bytearray(n)
    if how == 1:
        return bytes(n)
    if how == 2:
        return array.array(rng.choice("bBhHiIlLqQfd"), [0] * n)
    if how == 3:
        return memoryview(bytearray(n * 4)).cast("f")
    if how == 4:
        return memoryview(bytearray(n * 4 + 8)).cast("i")[::2]
    if how == 5:
        return (ctypes.c_float * max(n, 1))()
    return memoryview(bytearray(n)).toreadonly()


def some_cuda(rng):
    interface = {}
    if rng.random() < 0.9:
        interface["data"] = rng.choice([(0, False), (4096, False), (4096, True), (2 ** 64, False),
                                        (-1, False), "x", None, (1,)])
    if rng.random() < 0.9:
        interface["shape"] = rng.choice([(4,), (0,), (2, 3), (-1,), (2 ** 40,), "abc", None, (1.5,)])
    if rng.random() < 0.9:
        interface["typestr"] = rng.choice(["<f4", "|b1", "<i8", ">f4", "<f3", "", 5, "<c8", "|u1",
                                           "<f2", "<i4", None])
    if rng.random() < 0.5:
        interface["strides"] = rng.choice([None, (4,), (8,), (0,), (4, 4), "x", (-4,)])
    if rng.random() < 0.5:
        interface["version"] = rng.choice([0, 1, 2, 3, 99])
    if rng.random() < 0.5:
        interface["stream"] = rng.choice([None, 0, 1, 2, -5, True, "x", 2 ** 70])
    if rng.random() < 0.2:
        interface["mask"] = rng.choice([None, 1])
    if rng.random() < 0.1:
        interface = rng.choice([None, [], "dict", 5])
    return FakeCuda(interface, raises=rng.random() < 0.05)


def some_value(rng, hint=None):
    kind = rng.randrange(12) if hint is None else hint
    if kind == 0:
        return some_int(rng)
    if kind == 1:
        return some_float(rng)
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        t = rng.choice(SCALAR_TYPES)
        with np.errstate(all="ignore"):
            try:
                return t(rng.choice([0, 1, -1, 300, 1e39, math.nan]))
            except (OverflowError, ValueError):
                return t(0)
    if kind in (4, 5, 6):
        return some_array(rng)
    if kind == 7:
        return some_buffer(rng)
    if kind == 8:
        return some_cuda(rng)
    if kind == 9:
        return Index(some_int(rng))
    if kind == 10:
        return rng.choice([sl.float32, sl.int8, sl.pointer(sl.float16), sl.constexpr])
    return rng.choice([None, "x", [1, 2], (1,), {}, object(), 1j, b"ab"])


def good_array(rng, dtype, n):
    return np.zeros(n, dtype=dtype)


def some_grid(rng, plausible):
    how = rng.randrange(10)
    if how < (9 if plausible else 5):
        return rng.choice([(1,), (2,), (1, 1), (2, 2, 1), 3, [1], (0,)])
    return rng.choice([0, -1, (-1,), (2 ** 31,), (2 ** 32, 1), (2 ** 63,), 1.5, "x", (1, 2, 3, 4), (),
                       [], None, (True,), (np.int64(2),), (Index(2),), (1, -1)])


def make_case(seed, index):
    rng = random.Random("%d:%d" % (seed, index))
    kernel = rng.choice(KERNELS)
    params = [p for p in kernel.params]
    arguments, constexprs = {}, {}
    n = rng.choice([0, 1, 5, 64, 100])
    # Most cases are plausible but for one parameter (so that they get far);
    # the others are hostile throughout.
    plausible = rng.random() < 0.7
    case_dtype = rng.choice(["float32", "float32", "float16", "int32", "float64"])
    odd = rng.randrange(len(params) + 1) if plausible else -1
    for i, p in enumerate(params):
        hostile = i == odd or (not plausible and rng.random() < 0.5)
        if p.is_constexpr:
            if hostile and rng.random() < 0.1:
                continue  # missing (or taking its default)
            if not hostile:
                constexprs[p.name] = rng.choice([1, 2, 8, 16, 64]) if p.name == "BLOCK" else \
                    rng.choice([1, 2.5, -3, True]) if p.name != "DT" else \
                    rng.choice([sl.float32, sl.float32, sl.float64, sl.int32])
            else:
                constexprs[p.name] = some_value(rng)
            continue
        if hostile and rng.random() < 0.1:
            continue  # missing
        if not hostile:
            if p.name.endswith("_ptr"):
                dtype = "int64" if p.name.startswith("offsets") else case_dtype
                if isinstance(p.type, sl.pointer_type):
                    dtype = {"f32": "float32", "f16": "float16", "f64": "float64",
                             "i32": "int32"}.get(p.type.element.name, "float32")
                if p.name.startswith("offsets"):
                    values = sorted(rng.randrange(0, n + 1) for _ in range(rng.randrange(1, 6)))
                    if rng.random() < 0.3:
                        values = [rng.choice(INTS[:12]) for _ in values]
                    arr = np.array(values, dtype=np.int64)
                else:
                    arr = good_array(rng, dtype, n)
                arguments[p.name] = arr
            elif p.type is not None and p.type.is_float:
                arguments[p.name] = some_value(rng, rng.choice([1, 1, 0, 3]))
            elif p.type is not None:
                arguments[p.name] = rng.choice([0, 1, True, np.int8(3)]) if rng.random() < 0.7 \
                    else some_value(rng, 0)
            else:
                arguments[p.name] = some_value(rng, rng.choice([0, 1, 2, 3]))
        else:
            arguments[p.name] = some_value(rng)
    if not plausible and rng.random() < 0.1:
        arguments[rng.choice(["zz", "x_pt", "n"])] = 1  # unknown or duplicate names
    grid = None if kernel is k_segments and rng.random() < 0.8 else some_grid(rng, plausible)
    extra = {}
    if rng.random() < 0.2:
        extra["schedule"] = rng.choice(["auto", "warp", "split", "bad", 3, None])
    if rng.random() < 0.2:
        extra["executor"] = rng.choice(["semantic", "simt", "gpu", None])
    if rng.random() < 0.1:
        extra["unsafe"] = rng.choice([True, False, 1, "yes"])
    action = rng.choice(["launch"] * 6 + ["emit_mlir", "plan"])
    return kernel, action, arguments, constexprs, grid, extra


# ---- running a case ----------------------------------------------------------------------

ALLOWED = (TypeError, ValueError, sw.CompileError, CaseError, KeyboardInterrupt)


class Finding(Exception):
    pass


def on_alarm(signum, frame):
    raise KeyboardInterrupt("the case ran past its time limit")


def run_case(seed, index, stats):
    kernel, action, arguments, constexprs, grid, extra = make_case(seed, index)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        if action == "launch":
            kernel.launch(arguments=arguments, constexprs=constexprs, grid=grid, **extra)
        elif action == "emit_mlir":
            kernel.emit_mlir(arguments=arguments, constexprs=constexprs, stage="semantic")
        else:
            kernel.plan(arguments=arguments, constexprs=constexprs,
                        schedule=extra.get("schedule", "auto"))
        stats["ok"] += 1
    except RuntimeError as e:
        if "internal error" in str(e):
            raise Finding("%s: %s" % (type(e).__name__, e))
        stats["runtime"] += 1
    except ALLOWED as e:
        stats[type(e).__name__] = stats.get(type(e).__name__, 0) + 1
        if len(str(e)) > 2000:
            raise Finding("a %d-character message: %s..." % (len(str(e)), str(e)[:300]))
    except Exception as e:  # noqa: BLE001 - anything else is a finding
        raise Finding("%s: %s" % (type(e).__name__, e))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def describe(seed, index):
    kernel, action, arguments, constexprs, grid, extra = make_case(seed, index)

    def short(v):
        text = repr(v) if not isinstance(v, int) or abs(v) < 10 ** 30 else "<int of %d bits>" % v.bit_length()
        return text if len(text) < 200 else text[:200] + "..."
    return "%s.%s(arguments={%s}, constexprs={%s}, grid=%s, %s)" % (
        kernel.__name__, action, ", ".join("%r: %s" % (k, short(v)) for k, v in arguments.items()),
        ", ".join("%r: %s" % (k, short(v)) for k, v in constexprs.items()), short(grid), extra)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--findings", default="fuzz-findings")
    parser.add_argument("files", nargs="*")
    opts = parser.parse_args()
    signal.signal(signal.SIGALRM, on_alarm)
    stats = {"ok": 0, "runtime": 0}

    if opts.files:
        for path in opts.files:
            with open(path) as f:
                seed, index = map(int, f.readline().split(":"))
            print("fuzz_args: %s (case %d:%d)" % (path, seed, index))
            try:
                run_case(seed, index, stats)
            except KeyboardInterrupt:  # the time limit, as the case ended
                pass
            except Finding as e:
                print("fuzz_args: FINDING: %s\n  %s" % (e, describe(seed, index)))
                return 1
        print("fuzz_args: replayed %d case%s, no findings" % (len(opts.files),
                                                               "" if len(opts.files) == 1 else "s"))
        return 0

    os.makedirs(opts.findings, exist_ok=True)
    current = os.path.join(opts.findings, "args-current.txt")
    fd = os.open(current, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    print("fuzz_args: seed %d, for %g s%s" % (opts.seed, opts.time,
                                               " or %d cases" % opts.runs if opts.runs else ""))
    sys.stdout.flush()
    start = time.monotonic()
    index = 0
    while (not opts.runs or index < opts.runs) and (opts.runs and not opts.time
                                                   or time.monotonic() - start < opts.time):
        os.pwrite(fd, b"%d:%-20d\n" % (opts.seed, index), 0)
        try:
            run_case(opts.seed, index, stats)
        except KeyboardInterrupt:  # the time limit, as the case ended
            stats["KeyboardInterrupt"] = stats.get("KeyboardInterrupt", 0) + 1
        except Finding as e:
            path = os.path.join(opts.findings, "args-%d-%d.txt" % (opts.seed, index))
            with open(path, "w") as f:
                f.write("%d:%d\n# %s\n# %s\n" % (opts.seed, index, e, describe(opts.seed, index)))
            print("fuzz_args: FINDING: %s\n  %s\nfuzz_args: saved as %s; replay it with: %s %s\n"
                  "fuzz_args: once fixed, move it to fuzz/regressions/args/ so that every test "
                  "run replays it" % (e, describe(opts.seed, index), path, sys.argv[0], path))
            return 1
        index += 1
    os.close(fd)
    os.unlink(current)
    print("fuzz_args: seed %d: %d cases in %.1f s (%s), no findings" % (
        opts.seed, index, time.monotonic() - start,
        ", ".join("%s %d" % (k, v) for k, v in sorted(stats.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
