"""The GPU sanitizer step's two scripts, on the CPU (neither needs PyTorch
or a GPU for this): tools/gpu_sanitize.py's options, batches, case plan,
hostile offsets and clamped references, and a small run of its cases on
the SIMT executor; tools/sanitizer_summary.py's reading of
compute-sanitizer logs (error summaries, racecheck hazards, API errors by
call and caller) on logs written here in compute-sanitizer's formats.
"""

import importlib.util
import io
import os
import contextlib

import numpy as np
import pytest

import segment_cases as sc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "tools", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gs = load("gpu_sanitize")
ss = load("sanitizer_summary")


# ---- gpu_sanitize: options, batches, the plan of cases ---------------------------------

def test_options_defaults_and_environment():
    opts = gs.options_from({})
    assert (opts.n, opts.batches, opts.max_segments) == (1 << 14, gs.BATCHES, 4096)
    assert opts.device == "cuda" and opts.budget_s is None and opts.seed >= 0
    opts = gs.options_from({"SWAGE_SANITIZE_N": "4096", "SWAGE_SANITIZE_SEED": "7",
                            "SWAGE_SANITIZE_DISTRIBUTIONS": " mix, all-empty ,power-law",
                            "SWAGE_SANITIZE_BUDGET_S": "90", "SWAGE_SANITIZE_DEVICE": "cpu"})
    assert (opts.n, opts.seed, opts.budget_s, opts.device) == (4096, 7, 90.0, "cpu")
    assert opts.batches == ("mix", "all-empty", "power-law")  # in BATCHES order
    assert gs.parse_batches("all") == gs.BATCHES == ("mix",) + tuple(sc.DISTRIBUTIONS)
    for env, message in (({"SWAGE_SANITIZE_DISTRIBUTIONS": "mix,bimodel"}, "bimodel"),
                         ({"SWAGE_SANITIZE_N": "lots"}, "not an integer"),
                         ({"SWAGE_SANITIZE_N": "0"}, "at least 1"),
                         ({"SWAGE_SANITIZE_DEVICE": "gpu"}, "cuda or cpu"),
                         ({"SWAGE_SANITIZE_BUDGET_S": "soon"}, "not a number")):
        with pytest.raises(ValueError, match=message):
            gs.options_from(env)


def test_batches_keep_to_the_segment_cap(rng):
    for batch in gs.BATCHES:
        lengths = gs.batch_lengths(batch, 1 << 14, 4096, rng)
        assert 1 <= len(lengths) <= 4096, batch
        assert (lengths >= 0).all()
        if batch != "mix":
            assert lengths.sum() <= 1 << 14
    assert len(gs.batch_lengths("all-singleton", 1 << 14, 4096, rng)) == 4096
    assert len(gs.batch_lengths("power-law", 1 << 16, 1000, rng)) <= 1000
    assert len(gs.batch_lengths("few-huge", 1 << 14, 4096, rng)) == 8


def test_the_plan_covers_every_schedule_distribution_and_pattern():
    cases = gs.case_plan(gs.BATCHES)
    checked = {(b, e, s) for b, e, s, hostile in cases if hostile is None}
    assert checked == {(b, e, s) for b in gs.BATCHES for e in gs.EXAMPLES_RUN
                       for s in gs.SCHEDULES}
    assert len(cases) == len(set(cases))
    per_batch = len(gs.EXAMPLES_RUN) * len(gs.SCHEDULES)
    assert len(cases) == (per_batch * 2 * len(sc.DISTRIBUTIONS)
                          + per_batch * (1 + len(gs.HOSTILE)))
    hostile = [(b, e, s, h) for b, e, s, h in cases if h is not None]
    for example in gs.EXAMPLES_RUN:
        for schedule in gs.SCHEDULES:
            on_mix = {h for b, e, s, h in hostile if (b, e, s) == ("mix", example, schedule)}
            assert on_mix == set(gs.HOSTILE_NAMES)
    for name in gs.HOSTILE_NAMES:  # each pattern also meets several distributions
        assert len({b for b, e, s, h in hostile if h == name and b != "mix"}) >= 3
    # a subset of batches plans the same cases for them (the rotation does not move)
    some = gs.case_plan(("mix", "power-law"))
    assert some == [c for c in cases if c[0] in ("power-law", "mix")]


def test_hostile_offsets_break_the_rules(rng):
    for batch in gs.BATCHES:
        lengths = gs.batch_lengths(batch, 2048, 4096, rng)
        good = sc.offsets_from_lengths(lengths, "int32")
        n = int(lengths.sum())
        assert gs.offsets_are_valid(good, n)
        for name in gs.HOSTILE_NAMES:
            for _ in range(3):
                bad = gs.hostile_offsets(name, good, n, rng)
                assert len(bad) == len(good)
                assert bad.dtype == (np.int64 if name == "int64-beyond-2^32" else np.int32)
                assert not gs.offsets_are_valid(bad, n), (batch, name, bad[:12])
        assert (good == sc.offsets_from_lengths(lengths, "int32")).all()  # not changed


# ---- gpu_sanitize: the clamped references and their check --------------------------------

def slow_clamped_sums(values, offsets):
    """docs/segments.md's clamping, one segment at a time."""
    n, out = len(values), []
    for start, end in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        start = min(max(start, 0), n)
        end = min(max(end, start), n)
        out.append(float(np.asarray(values[start:end], dtype=np.float64).sum()))
    return np.array(out)


def test_clamped_references(rng):
    lengths = np.array([3, 0, 5, 1, 7, 2], np.int64)
    inputs = sc.make_inputs("weighted_sum", lengths, rng)
    n = len(inputs["values"])
    for offsets in ([-4, 3, 1, 30, 8, 18, 2], [0, 5, 5, 2, 9, 14, 18],
                    [20, 21, 22, 23, 24, 25, 26]):
        offsets = np.array(offsets, np.int64)
        expected, _, lengths_, _ = gs.clamped_reference("segmented_sum", inputs, offsets)
        np.testing.assert_allclose(expected, slow_clamped_sums(inputs["values"], offsets),
                                   rtol=1e-12, atol=1e-12)
        weighted, _, _, _ = gs.clamped_reference("weighted_sum", inputs, offsets)
        products = (inputs["values"].astype(np.float64) * inputs["weights"].astype(np.float64))
        np.testing.assert_allclose(weighted, slow_clamped_sums(products, offsets)
                                   * inputs["scale"].astype(np.float64), rtol=1e-12, atol=1e-12)
        start, end = gs.clamped_segments(offsets, n)
        assert (lengths_ == end - start).all() and (start >= 0).all() and (end <= n).all()


def test_the_clamped_check_catches_wrong_results(rng):
    inputs = sc.make_inputs("segmented_sum", np.array([4, 4, 4, 4], np.int64), rng)
    offsets = np.array([0, 9, 4, 12, 16], np.int64)  # segment 1 is empty, 2 overlaps 0
    expected, _, _, _ = gs.clamped_reference("segmented_sum", inputs, offsets)
    good = expected.astype(np.float32)
    gs.check_clamped("segmented_sum", good, inputs, offsets, "good")
    wrong = good.copy()
    wrong[2] += 1.0
    with pytest.raises(AssertionError, match="out of tolerance"):
        gs.check_clamped("segmented_sum", wrong, inputs, offsets, "wrong")
    unwritten = good.copy()
    unwritten[3] = np.nan  # the poison, left as it was: a segment not run
    with pytest.raises(AssertionError):
        gs.check_clamped("segmented_sum", unwritten, inputs, offsets, "unwritten")

    # softmax: [0, 6) and [4, 10) overlap on 4, 5; nothing covers 10..15
    inputs = sc.make_inputs("segmented_softmax", np.array([8, 8], np.int64), rng)
    offsets = np.array([0, 6, 4, 10], np.int64)
    expected, _, _, owner = gs.clamped_reference("segmented_softmax", inputs, offsets)
    assert (owner[:4] == 0).all() and (owner[4:6] == -2).all() and (owner[6:10] == 2).all()
    assert (owner[10:] == -1).all() and np.isnan(expected[10:]).all()
    good = np.where(owner == -2, 0.5, expected).astype(np.float32)  # either store may win
    gs.check_clamped("segmented_softmax", good, inputs, offsets, "good")
    outside = good.copy()
    outside[12] = 0.25  # written where no segment is
    with pytest.raises(AssertionError, match="1 of 16"):
        gs.check_clamped("segmented_softmax", outside, inputs, offsets, "outside")
    part = good.copy()
    part[7] = np.nan  # a segment written in part
    with pytest.raises(AssertionError):
        gs.check_clamped("segmented_softmax", part, inputs, offsets, "part")
    whole = good.copy()
    whole[6:10] = np.nan  # a segment not written at all
    with pytest.raises(AssertionError):
        gs.check_clamped("segmented_softmax", whole, inputs, offsets, "whole")


# ---- gpu_sanitize: a run on the CPU ----------------------------------------------------

def run_main(env):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = gs.main(env)
    return status, out.getvalue().splitlines()


def test_a_small_run_on_the_cpu():
    env = {"SWAGE_SANITIZE_DEVICE": "cpu", "SWAGE_SANITIZE_N": "1024",
           "SWAGE_SANITIZE_DISTRIBUTIONS": "power-law,few-huge", "SWAGE_SANITIZE_SEED": "5"}
    status, lines = run_main(env)
    cases = len(gs.case_plan(("power-law", "few-huge")))
    assert status == 0, "\n".join(line for line in lines if not line.startswith("ok"))
    assert sum(line.startswith("ok   ") for line in lines) == cases
    assert lines[-1].startswith("sanitize cases: %d run, 0 failed" % cases)
    assert ss.Log("\n".join(lines)).cases == "sanitize cases: %d run, 0 failed" % cases

    status, lines = run_main(dict(env, SWAGE_SANITIZE_BUDGET_S="0"))
    assert status == 1
    assert lines[-1].startswith("sanitize cases: 0 run, 0 failed, %d skipped (the time budget"
                                % cases)


# ---- sanitizer_summary -----------------------------------------------------------------

def api_error(call, error, code, text, frames):
    lines = ['========= Program hit %s (error %d) due to "%s" on CUDA API call to %s.'
             % (error, code, text, call),
             "=========     Saved host backtrace up to driver entry point at error"]
    lines += ["=========         Host Frame: %s" % frame for frame in frames]
    return lines + ["========= "]


SWAGE_PROBE = api_error("cuFuncGetParamInfo", "CUDA_ERROR_INVALID_VALUE", 1, "invalid argument",
                        [" [0x31be92] in libcuda.so.1",
                         "count_params in cuda_runtime.c:469 [0x5677] in libswage.so",
                         "cuda_function_get in cuda_runtime.c:606 [0x5680] in libswage.so"])
TORCH_PROBE = api_error("cuGetProcAddress_v2", "CUDA_ERROR_NOT_FOUND", 500,
                        "named symbol not found",
                        [" [0x2e1a3c] in libcuda.so.1", " [0x44b1d] in libcudart.so.12",
                         " [0x9a1b2] in libtorch_cuda.so"])
# an older layout: the library on a line of its own
OLD_LAYOUT = ["========= Program hit CUDA_ERROR_INVALID_CONTEXT (error 201) due to "
              "\"invalid device context\" on CUDA API call to cuCtxGetCurrent.",
              "=========     Saved host backtrace up to driver entry point at error",
              "=========     Host Frame: [0x232f1c]",
              "=========                in /usr/lib/x86_64-linux-gnu/libcuda.so.1",
              "=========     Host Frame:is_current [0x1f0c]",
              "=========                in /opt/swage/build/libswage.so",
              "========="]


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_summary_of_the_tools(tmp_path, capsys):
    memcheck = write(tmp_path, "memcheck.log", [
        "========= COMPUTE-SANITIZER", "gpu_sanitize: 468 cases on cuda: ...",
        "ok   segmented_sum      auto       all-empty         checked, 512 segments  0.01s",
        "sanitize cases: 468 run, 0 failed  (61.0s)", "========= ERROR SUMMARY: 0 errors"])
    racecheck = write(tmp_path, "racecheck.log", [
        "========= COMPUTE-SANITIZER", "sanitize cases: 40 run, 1 failed, 428 skipped (the time "
        "budget of 95s (SWAGE_SANITIZE_BUDGET_S) ran out)  (96.2s)",
        "========= Error: process didn't terminate successfully",
        "========= Target application returned an error",
        "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)"])
    api = write(tmp_path, "api.log", ["========= COMPUTE-SANITIZER"] + SWAGE_PROBE * 3
                + TORCH_PROBE + ["sanitize cases: 144 run, 0 failed",
                                 "========= ERROR SUMMARY: 4 errors"])
    assert ss.main(["memcheck=" + memcheck, "racecheck=" + racecheck,
                    "synccheck=" + str(tmp_path / "none.log"), "api=" + api]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["memcheck", "0", "errors"]
    assert out[1].endswith("sanitize cases: 468 run, 0 failed")
    assert "2 hazards (1 errors, 1 warnings)" in out[2] and "428 skipped" in out[2]
    assert "the script failed" in out[2]
    assert out[3].split() == ["synccheck", "not", "run"]
    assert "4 API errors: 3 expected, 0 unexplained, 1 not Swage's" in out[4]
    assert out[5].split()[:6] == ["3", "cuFuncGetParamInfo", "CUDA_ERROR_INVALID_VALUE", "from",
                                  "swage", "expected:"]
    assert out[6].split()[:6] == ["1", "cuGetProcAddress_v2", "CUDA_ERROR_NOT_FOUND", "from",
                                  "pytorch", "not"]
    assert ss.main(["--check-api", api]) == 0


def test_check_api_fails_on_what_is_not_explained(tmp_path, capsys):
    unexplained = write(tmp_path, "a.log", SWAGE_PROBE + OLD_LAYOUT
                        + ["========= ERROR SUMMARY: 2 errors"])
    log = ss.read(unexplained)
    assert [(e.call, e.origin, e.kind) for e in log.api_errors] == [
        ("cuFuncGetParamInfo", "swage", "expected"), ("cuCtxGetCurrent", "swage", "unexplained")]
    assert ss.main(["--check-api", unexplained]) == 1
    assert "cuCtxGetCurrent (CUDA_ERROR_INVALID_CONTEXT) x1" in capsys.readouterr().out

    # more errors than API errors (and the script's exit status): a memory error
    other = write(tmp_path, "b.log", SWAGE_PROBE + ["========= Invalid __global__ read of size 4 "
                                                    "bytes", "========= Target application "
                                                    "returned an error",
                                                    "========= ERROR SUMMARY: 3 errors"])
    assert ss.read(other).other_errors == 1
    assert ss.main(["--check-api", other]) == 1
    # no summary: killed before the end
    assert ss.main(["--check-api", write(tmp_path, "c.log", SWAGE_PROBE)]) == 1
    assert ss.main(["--check-api", str(tmp_path / "missing.log")]) == 1
    # a probe error without a backtrace is taken as Swage's
    bare = write(tmp_path, "d.log",
                 SWAGE_PROBE[:1] + ["=========", "========= ERROR SUMMARY: 1 error"])
    assert [e.kind for e in ss.read(bare).api_errors] == ["expected"]
    assert ss.main(["--check-api", bare]) == 0
    assert ss.main(["bogus=x"]) == 2

