"""Many Python threads compiling and launching at once (ctypes releases the
GIL, so these calls really overlap in the C library)."""

import threading

import numpy as np

import swage as sw
import swage.language as sl

THREADS = 8
LAUNCHES = 50


@sw.jit
def affine_kernel(x_ptr, out_ptr, n, SCALE: sl.constexpr, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask)
    sl.store(out_ptr + offsets, x * SCALE + offsets, mask=mask)


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

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
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
        affine_kernel._cache.pop(("x_ptr=*i32,out_ptr=*i32,n=i32", "SCALE=7,BLOCK=8"), None)
        affine_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 100},
                             constexprs={"SCALE": 7, "BLOCK": block}, grid=(13,))
        results[index] = (affine_kernel._compile("x_ptr=*i32,out_ptr=*i32,n=i32",
                                                 "SCALE=7,BLOCK=8"), out)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert all(r is not None for r in results)
    assert len({handle for handle, _ in results}) == 1
    expected = x * 7 + np.arange(100, dtype=np.int32)
    for _, out in results:
        assert np.array_equal(out, expected), "seed %d" % rng.seed
