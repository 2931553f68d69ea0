"""Many Python threads compiling and launching at once (ctypes releases the
GIL, so these calls really overlap in the C library)."""

import threading

import numpy as np

import swage as sw
import swage.language as sl
from swage import _native
from swage_testing import run_with_fake_driver

THREADS = 8
LAUNCHES = 50


@sw.jit
def affine_kernel(x_ptr, out_ptr, n, SCALE: sl.constexpr, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask)
    sl.store(out_ptr + offsets, x * SCALE + offsets, mask=mask)


def run_workers(worker):
    """worker(i) on THREADS threads at once; each must finish within 300 s."""
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"


def test_threads_compile_and_launch_concurrently(rng):
    seeds = rng.integers(0, 1 << 62, THREADS)
    start = threading.Barrier(THREADS)
    failures = []
    handles = {}

    def worker(index):
        try:
            local = np.random.default_rng(int(seeds[index]))
            scale = index + 2  # a distinct specialisation per thread
            block = 16 << (index % 4)
            start.wait()
            for launch in range(LAUNCHES):
                n = int(local.integers(0, 700))
                x = local.integers(-1000, 1000, n).astype(np.int32)
                out = np.full(n, -1, np.int32)
                affine_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n},
                                     constexprs={"SCALE": scale, "BLOCK": block},
                                     grid=((n + block - 1) // block,))
                expected = x * scale + np.arange(n, dtype=np.int32)
                if not np.array_equal(out, expected):
                    bad = int(np.flatnonzero(out != expected)[0])
                    failures.append("thread %d launch %d n=%d: out[%d]=%d, expected %d"
                                    % (index, launch, n, bad, out[bad], expected[bad]))
                    return
            handles[index] = affine_kernel._compile("x_ptr=*i32,out_ptr=*i32,n=i32",
                                                    "SCALE=%d,BLOCK=%d" % (scale, block))
        except Exception as e:  # reported below with the seed
            failures.append("thread %d: %r" % (index, e))

    run_workers(worker)
    assert not failures, "seed %d:\n%s" % (rng.seed, "\n".join(failures))
    assert len(handles) == THREADS and len(set(handles.values())) == THREADS


def test_threads_racing_on_one_specialisation_share_one_kernel(rng):
    # Every thread compiles the same new spec at the same moment: all get
    # the same handle, from the C cache, and all launches are correct.
    start = threading.Barrier(THREADS)
    results = [None] * THREADS
    block = 8  # not used by any other test: a cold spec
    x = rng.integers(-50, 50, 100).astype(np.int32)

    def worker(index):
        start.wait()
        out = np.zeros(100, np.int32)
        with affine_kernel._lock:  # as the cache's users do (unlocked, another thread's
            # _compile could find the key and then fail to move it: KeyError)
            affine_kernel._cache.pop(("x_ptr=*i32,out_ptr=*i32,n=i32", "SCALE=7,BLOCK=8"), None)
        affine_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 100},
                             constexprs={"SCALE": 7, "BLOCK": block}, grid=(13,))
        results[index] = (affine_kernel._compile("x_ptr=*i32,out_ptr=*i32,n=i32",
                                                 "SCALE=7,BLOCK=8"), out)

    run_workers(worker)
    assert all(r is not None for r in results)
    assert len({handle for handle, _ in results}) == 1
    expected = x * 7 + np.arange(100, dtype=np.int32)
    for _, out in results:
        assert np.array_equal(out, expected), "seed %d" % rng.seed


@sw.jit
def scaled_softmax(values_ptr, offsets_ptr, out_ptr, SCALE: sl.constexpr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment) * SCALE
    e = sl.exp(x - sl.max(x))
    sl.store_segment(out_ptr, segment, e / sl.sum(e))


def test_threads_share_one_segment_program_in_every_form(rng):
    # One fresh segment program, and every thread at once asks it for a
    # different form first, then all the others: each schedule's SIMT form
    # (built on first use under the kernel's lock), its PTX for two targets,
    # its MLIR, and launches on both CPU executors, checked against NumPy.
    start = threading.Barrier(THREADS)
    failures = []
    lengths = rng.integers(0, 200, 40)
    lengths[rng.integers(0, 40, 8)] = 0
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = rng.standard_normal(int(offsets[-1])).astype(np.float32)
    expected = np.zeros_like(values)
    for a, b in zip(offsets[:-1], offsets[1:]):
        if b > a:
            e = np.exp(3.0 * values[a:b].astype(np.float64) - 3.0 * values[a:b].max())
            expected[a:b] = e / e.sum()
    jobs = [("launch", "semantic", "auto")] + [
        (what, how, schedule) for schedule in _native.SCHEDULES
        for what, how in (("launch", "simt"), ("ptx", 90), ("ptx", 80), ("mlir", "plan"))]
    signature = "values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32"
    texts = [{} for _ in range(THREADS)]

    def worker(index):
        try:
            mine = jobs[index * len(jobs) // THREADS:] + jobs[:index * len(jobs) // THREADS]
            start.wait()
            for what, how, schedule in mine:
                if what == "launch":
                    out = np.full_like(values, np.nan)
                    scaled_softmax.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                                     "out_ptr": out}, constexprs={"SCALE": 3.0},
                                          executor=how, schedule=schedule)
                    if not np.allclose(out, expected, rtol=1e-4, atol=1e-6):
                        failures.append("thread %d: %s %s gave wrong values" % (index, how, schedule))
                elif what == "ptx":
                    texts[index][what, how, schedule] = scaled_softmax.emit_ptx(
                        signature=signature, constexprs={"SCALE": 3.0}, sm=how, schedule=schedule)
                else:
                    texts[index][what, how, schedule] = scaled_softmax.emit_mlir(
                        signature=signature, constexprs={"SCALE": 3.0}, stage=how,
                        schedule=schedule)
        except Exception as e:  # reported below with the seed
            failures.append("thread %d: %r" % (index, e))

    run_workers(worker)
    assert not failures, "seed %d:\n%s" % (rng.seed, "\n".join(failures))
    assert all(texts[i] == texts[0] for i in range(THREADS)), "threads got different texts"


COLD_GPU_CHILD = r'''
import ctypes, os, threading
from swage import _native
import test_threads as t

from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
_native.pointer_device = lambda address: 0   # the fake driver has no pointer attributes
assert _native.cuda_unavailable_reason() is None

from swage_testing import FakeDeviceArray as Device

args = {"values_ptr": Device(0x10000, 3000, "<f4"), "offsets_ptr": Device(0x20000, 41, "<i8"),
        "out_ptr": Device(0x30000, 3000, "<f4")}
start = threading.Barrier(8)
failures = []

def work(index):
    try:
        start.wait()
        for i in range(len(_native.SCHEDULES)):
            schedule = _native.SCHEDULES[(index + i) % len(_native.SCHEDULES)]
            t.scaled_softmax.launch(arguments=args, constexprs={"SCALE": 5.0}, unsafe=True,
                                    schedule=schedule)
    except Exception as e:
        failures.append("thread %d: %r" % (index, e))

threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for th in threads:
    th.start()
for th in threads:
    th.join()
assert not failures, failures
modules = {t.scaled_softmax.emit_ptx(arguments=args, constexprs={"SCALE": 5.0}, sm=90,
                                     schedule=schedule) for schedule in _native.SCHEDULES}
assert state.module_loads == len(modules), "%d module loads for %d PTX modules" % (
    state.module_loads, len(modules))
print("cold GPU launches from threads passed")
'''


def test_threads_racing_on_cold_gpu_launches_load_each_module_once(tmp_path):
    # Eight threads launch one fresh segment program on every schedule at
    # once, against the fake driver (test/python/fake_libcuda.c): they race
    # to build the PTX, load each schedule's module and publish its launch
    # records, and each schedule's module is loaded once.
    run_with_fake_driver(tmp_path, COLD_GPU_CHILD, "cold GPU launches from threads passed")
