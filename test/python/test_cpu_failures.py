"""What a failed or interrupted CPU launch leaves behind: every output as it
was before the launch, on both CPU executors, for grid programs, segment
programs and every schedule of a segment program on the SIMT executor
(docs/runtime.md, "Failures and interrupts"); and Ctrl-C stops a long CPU
launch within a second with KeyboardInterrupt."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage import _native

EXECUTORS = ("semantic", "simt")


@sw.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    y = sl.load(y_ptr + offsets, mask=offsets < n, other=0.0)
    sl.store(out_ptr + offsets, x + y)  # no mask: the last programs may run past out


@sw.jit
def scale_and_sum(values_ptr, offsets_ptr, scaled_ptr, sums_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    sl.store_segment(scaled_ptr, segment, x * 2.0)
    sl.store(sums_ptr + sid, sl.sum(x))  # sums may be short: the last segments fail


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_error_in_program_97_of_100_leaves_the_output_as_it_was(rng, executor):
    block = 8
    x = rng.standard_normal(800).astype(np.float32)
    y = rng.standard_normal(800).astype(np.float32)
    out = rng.standard_normal(780).astype(np.float32)  # program 97 runs past it
    before = out.copy()
    with pytest.raises(RuntimeError, match=r"out of bounds: element 780 .* program \(97, 0, 0\)"):
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "out_ptr": out, "n": 800},
                          constexprs={"BLOCK": block}, grid=(100,), executor=executor)
    assert np.array_equal(out, before), "programs 0..96 stored %d elements that stayed" % (
        np.count_nonzero(out != before))
    # the same launch with room for every program keeps what it stored
    full = np.zeros(800, np.float32)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "out_ptr": full, "n": 800},
                      constexprs={"BLOCK": block}, grid=(100,), executor=executor)
    assert np.array_equal(full, x + y)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_error_leaves_aliased_outputs_as_they_were(rng, executor):
    # out overlaps x a few elements on: each program reads what the ones
    # before it wrote, and the rollback still restores every byte
    buffer = rng.standard_normal(1000).astype(np.float32)
    before = buffer.copy()
    with pytest.raises(RuntimeError, match="out of bounds"):
        add_kernel.launch(arguments={"x_ptr": buffer, "y_ptr": buffer, "out_ptr": buffer[3:],
                                     "n": 1000},
                          constexprs={"BLOCK": 16}, grid=(63,), executor=executor)
    assert np.array_equal(buffer, before)


def _segments(rng, count):
    lengths = rng.integers(0, 40, count)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = rng.standard_normal(int(offsets[-1])).astype(np.float32)
    return values, offsets


@pytest.mark.parametrize("executor,schedule",
                         [("semantic", "auto")] + [("simt", s) for s in _native.SCHEDULES])
def test_an_error_in_segment_97_of_100_leaves_every_output_as_it_was(rng, executor, schedule):
    values, offsets = _segments(rng, 100)
    scaled = rng.standard_normal(len(values)).astype(np.float32)
    sums = rng.standard_normal(97).astype(np.float32)  # segments 97..99 store past it
    scaled_before, sums_before = scaled.copy(), sums.copy()
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "scaled_ptr": scaled,
                 "sums_ptr": sums}
    with pytest.raises(RuntimeError, match="out of bounds"):
        scale_and_sum.launch(arguments=arguments, executor=executor, schedule=schedule)
    assert np.array_equal(scaled, scaled_before), "%d segment elements stayed written" % (
        np.count_nonzero(scaled != scaled_before))
    assert np.array_equal(sums, sums_before)
    # with room for every sum the launch stores both outputs
    sums = np.zeros(100, np.float32)
    arguments["sums_ptr"] = sums
    scale_and_sum.launch(arguments=arguments, executor=executor, schedule=schedule)
    assert np.array_equal(scaled, values * 2)
    expected = [values[a:b].astype(np.float64).sum() for a, b in zip(offsets[:-1], offsets[1:])]
    assert np.allclose(sums, expected, rtol=1e-5, atol=1e-5)


def test_launches_from_other_threads_still_roll_back(rng):
    x = rng.standard_normal(800).astype(np.float32)
    out = rng.standard_normal(780).astype(np.float32)
    before = out.copy()
    errors = []

    def worker():
        try:
            add_kernel.launch(arguments={"x_ptr": x, "y_ptr": x, "out_ptr": out, "n": 800},
                              constexprs={"BLOCK": 8}, grid=(100,))
        except RuntimeError as e:
            errors.append(e)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=120)
    assert len(errors) == 1 and np.array_equal(out, before)


# ---- Ctrl-C ----------------------------------------------------------------------------------

_SIGINT_SCRIPT = textwrap.dedent("""\
    import os, signal, sys, threading, time
    import numpy as np
    import swage as sw
    import swage.language as sl

    @sw.jit
    def fill(out_ptr, n, BLOCK: sl.constexpr):
        pid = sl.program_id(0)
        offsets = pid * BLOCK + sl.arange(0, BLOCK)
        sl.store(out_ptr + offsets, sl.full((BLOCK,), 7.0, sl.float32), mask=offsets < n)

    @sw.jit
    def spin(values_ptr, offsets_ptr, out_ptr, sums_ptr, rounds):
        sid = sl.segment_id(0)
        segment = sl.segment(values_ptr, offsets_ptr, sid)
        x = sl.load_segment(segment)
        sl.store_segment(out_ptr, segment, x + 1.0)
        total = 0.0
        for i in range(rounds):
            total += 1.0
        sl.store(sums_ptr + sid, total)

    what, executor, schedule = sys.argv[1:4]
    out = np.random.rand(4096).astype(np.float32)
    sums = np.random.rand(64).astype(np.float32)
    offsets = np.arange(0, 4097, 64, dtype=np.int64)  # 64 segments of 64

    def launch(big):
        if what == "grid":
            fill.launch(arguments={"out_ptr": out, "n": 4096}, constexprs={"BLOCK": 64},
                        grid=((1 << 31) - 1 if big else 64,), executor=executor)
        else:
            spin.launch(arguments={"values_ptr": out.copy(), "offsets_ptr": offsets,
                                   "out_ptr": out, "sums_ptr": sums,
                                   "rounds": (1 << 31) - 1 if big else 1},
                        executor=executor, schedule=schedule)

    launch(False)  # compile and check that it runs
    before, sums_before = out.copy(), sums.copy()
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(0.5, interrupt).start()
    try:
        launch(True)
        print("finished without KeyboardInterrupt")
        sys.exit(1)
    except KeyboardInterrupt:
        waited = time.perf_counter() - sent[0]
    print("KeyboardInterrupt %.3f s after SIGINT" % waited)
    untouched = np.array_equal(out, before) and np.array_equal(sums, sums_before)
    print("outputs untouched" if untouched else "outputs changed")
    # the next launch runs normally
    launch(False)
    sys.exit(0 if waited < 1.0 and untouched else 1)
""")


@pytest.mark.parametrize("what,executor,schedule",
                         [("grid", "semantic", "auto"), ("grid", "simt", "auto"),
                          ("segments", "semantic", "auto"), ("segments", "simt", "auto"),
                          ("segments", "simt", "split")])
def test_ctrl_c_stops_a_long_cpu_launch_within_a_second(tmp_path, what, executor, schedule):
    script = tmp_path / "sigint.py"
    script.write_text(_SIGINT_SCRIPT)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(sw.__file__)),
                                         env.get("PYTHONPATH", "")])
    env["SWAGE_LIB"] = _native.library_path
    result = subprocess.run([sys.executable, str(script), what, executor, schedule],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "outputs untouched" in result.stdout, result.stdout
