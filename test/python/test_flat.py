"""The flat direct kernel of segment programs (docs/schedules.md, "The
flat kernel"), one-stage (sums, maxima, means) and of several stages
(softmax, log-softmax, L2 normalisation: each stage walks the rows again),
on the CPU SIMT executor against the float64 reference: SWAGE_FLAT=1
forces it for every launch, over every distribution of segment_cases
(empty segments, no segments, segments longer than the walk takes, which
go to the lists), int32 and int64 offsets, float32/float16/bfloat16,
segments all -inf, unsafe=True with bad offsets (clamped per segment as
every kernel does) and the offsets check; where auto takes it by itself
(means above 1 and up to 64) and where not (longer means, SWAGE_FLAT=0);
its PTX assembled by ptxas.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import segment_cases as sc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
if EXAMPLES_DIR not in sys.path:
    sys.path.insert(0, EXAMPLES_DIR)

from segment_examples import EXAMPLES, kernel  # noqa: E402

ONE_STAGE = ("segmented_sum", "segmented_max", "segmented_mean", "weighted_sum")
SEVERAL_STAGES = ("segmented_softmax", "segmented_log_softmax", "segmented_l2_normalise")
FLAT_EXAMPLES = ONE_STAGE + SEVERAL_STAGES
N = 1 << 13


@pytest.fixture
def flat_on(monkeypatch):
    monkeypatch.setenv("SWAGE_FLAT", "1")


def _arguments(example, inputs, out):
    arguments = {"values_ptr": inputs["values"], "offsets_ptr": inputs["offsets"],
                 "output_ptr" if example in sc.SEGMENT_SHAPED else "out_ptr": out}
    arguments.update({name + "_ptr": inputs[name] for name in sc.EXTRA_INPUTS.get(example, ())})
    return arguments


def _direct(example, inputs):
    out = sc.new_output(example, inputs)
    text = str(kernel(example).plan(arguments=_arguments(example, inputs, out)))
    return [line.split()[1] for line in text.splitlines() if line.startswith("  1. ")][0], text


def _run(example, inputs, **options):
    out = sc.new_output(example, inputs)
    EXAMPLES[example].launch(inputs, out, executor="simt", **options)
    return out


@pytest.mark.parametrize("distribution", sc.DISTRIBUTIONS)
@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_flat_on_every_distribution(flat_on, example, distribution, rng):
    lengths = sc.lengths(distribution, N, rng)
    inputs = sc.make_inputs(example, lengths, rng)
    assert _direct(example, inputs)[0] == example + "__direct_flat"
    first = _run(example, inputs)
    sc.check(example, first, inputs, "flat, %s" % distribution)
    again = _run(example, inputs)
    assert np.array_equal(first.view(np.uint8), again.view(np.uint8))


@pytest.mark.parametrize("dtype,offsets_dtype", [("float32", "int32"), ("float32", "int64"),
                                                 ("float16", "int64"), ("bfloat16", "int32")])
@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_flat_dtypes_offsets_and_long_segments(flat_on, example, dtype, offsets_dtype, rng):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes", reason="bfloat16 arrays need ml_dtypes")
    lengths = sc.lengths("tiny-uniform", N, rng)
    lengths[::37] = 0
    lengths[5] = 3000            # past the walk: the lists
    lengths[len(lengths) // 2] = 20000  # split
    lengths[-1] = 1025
    inputs = sc.make_inputs(example, lengths, rng, dtype=dtype, offsets_dtype=offsets_dtype,
                            pad_before=int(rng.integers(0, 7)), pad_after=int(rng.integers(0, 7)))
    direct, text = _direct(example, inputs)
    assert direct == example + "__direct_flat", text
    assert "split" in text and "list" in text, text
    sc.check(example, _run(example, inputs), inputs, "flat %s %s" % (dtype, offsets_dtype))
    sc.check(example, _run(example, inputs, unsafe=True), inputs, "flat unsafe")


def test_flat_random_small_cases(flat_on, rng):
    for _ in range(8):
        lengths = sc.random_small_lengths(rng)
        for example in ("segmented_sum", "segmented_max", "weighted_sum", "segmented_softmax"):
            inputs = sc.make_inputs(example, lengths, rng)
            sc.check(example, _run(example, inputs), inputs, "random lengths %s" % list(lengths))


def test_flat_no_segments(flat_on):
    out = np.full(1, -3.0, np.float32)
    kernel("segmented_sum").launch(arguments={"values_ptr": np.ones(5, np.float32),
                                              "offsets_ptr": np.zeros(1, np.int32), "out_ptr": out},
                                   executor="simt")
    assert out[0] == -3.0


# ---- rows of 512 ------------------------------------------------------------
#
# The walk takes rows of ROW elements from W0 rounded down to 4 (lane l
# folds the 16 consecutive elements 16 l .. 16 l + 15 of a row); a row that
# passes the buffers' end runs as four masked rows of 128. Elements outside
# every segment are NaN here: a row loads them but they take no part.

ROW = 512

ROW_CASES = {
    # a segment ending exactly at a row end (the window starts at 0)
    "row-end": [ROW, ROW, 3, ROW - 3, 7],
    # segments crossing rows, lanes (16 elements) and windows (64 segments)
    "crossing": [17, 300, 511, 513, 1, 0, 0, 16, 15, 33, 1000, 2, 700] * 6,
    # empty segments at the row's edges and at a window's first segment
    "empty-edges": [0, 0, ROW, 0, 0, 0, 1, 0, ROW - 1, 0, 16, 0, 0] * 5,
    # longer than the walk takes (the lists) between short ones: the walk
    # jumps over them
    "long-skipped": [5, 1025, 3, 3, 5000, 0, 9, 1024, 1025, 2, 3000, 1] * 4,
    # one element a lane's boundary apart
    "lane-edges": [16, 16, 1, 15, 32, 31, 17] * 20,
    # the whole buffer shorter than one row: masked rows only
    "short-buffer": [3, 0, 100, 7],
}


def _poisoned(example, lengths, rng, dtype="float32", offsets_dtype="int32", pad_before=0, pad_after=0):
    inputs = sc.make_inputs(example, np.array(lengths), rng, dtype=dtype, offsets_dtype=offsets_dtype,
                            pad_before=pad_before, pad_after=pad_after)
    for name in ("values", "weights"):
        if name in inputs:
            x = inputs[name]
            x[:pad_before] = np.nan
            x[len(x) - pad_after:] = np.nan
    return inputs


@pytest.mark.parametrize("case", sorted(ROW_CASES))
@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_flat_rows_of_512(flat_on, example, case, rng):
    for pad_before, pad_after in ((0, 0), (5, 3), (ROW - 2, ROW + 1), (130, 0)):
        inputs = _poisoned(example, ROW_CASES[case], rng, pad_before=pad_before, pad_after=pad_after)
        direct, text = _direct(example, inputs)
        assert direct == example + "__direct_flat", text
        assert "in rows of %d" % ROW in text, text
        first = _run(example, inputs)
        sc.check(example, first, inputs, "%s, pads %d %d" % (case, pad_before, pad_after))
        again = _run(example, inputs, unsafe=True)
        assert np.array_equal(first.view(np.uint8), again.view(np.uint8))


@pytest.mark.parametrize("dtype,offsets_dtype", [("float32", "int64"), ("float16", "int32"),
                                                 ("bfloat16", "int64")])
@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_flat_rows_of_512_dtypes(flat_on, example, dtype, offsets_dtype, rng):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes", reason="bfloat16 arrays need ml_dtypes")
    lengths = ROW_CASES["crossing"] + ROW_CASES["long-skipped"] + ROW_CASES["empty-edges"]
    inputs = _poisoned(example, lengths, rng, dtype=dtype, offsets_dtype=offsets_dtype, pad_before=3,
                       pad_after=6)
    sc.check(example, _run(example, inputs), inputs, "rows of 512, %s %s" % (dtype, offsets_dtype))


def test_flat_rows_of_512_random(flat_on, rng):
    """Random lengths around the row's and the lane's sizes, random pads."""
    for _ in range(6):
        n = int(rng.integers(1, 200))
        lengths = rng.choice([0, 1, 2, 15, 16, 17, 31, 33, 127, 128, 129, 511, 512, 513, 1023, 1024, 1025,
                              int(rng.integers(0, 40))], size=n)
        pads = [int(x) for x in rng.integers(0, 600, size=2)]
        for example in ("segmented_sum", "segmented_max", "segmented_mean", "segmented_softmax",
                        "segmented_l2_normalise"):
            inputs = _poisoned(example, lengths, rng, pad_before=pads[0], pad_after=pads[1])
            sc.check(example, _run(example, inputs), inputs, "lengths %s pads %s" % (list(lengths), pads))


def test_flat_rows_of_512_two_reductions(flat_on, rng):
    """Two sw.segmented_reduce a row share the warp's shared memory."""
    import swage as sw
    import swage.language as sl

    @sw.jit
    def sum_and_max(values_ptr, offsets_ptr, out_ptr):
        sid = sl.segment_id(0)
        x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
        sl.store(out_ptr + sid, sl.sum(x) * 1000.0 + sl.max(x))

    for _ in range(3):
        lengths = rng.choice([0, 1, 5, 16, 17, 33, 100, 511, 513, 1500], size=int(rng.integers(1, 300)))
        offsets = (np.concatenate([[0], np.cumsum(lengths)]) + 3).astype(np.int32)
        values = rng.standard_normal(int(offsets[-1]) + 5).astype(np.float32)
        values[:3] = np.nan
        values[int(offsets[-1]):] = np.nan
        out = np.zeros(len(lengths), np.float32)
        arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}
        assert "__direct_flat" in str(sum_and_max.plan(arguments=arguments))
        sum_and_max.launch(arguments=arguments, executor="simt")
        expected = [values[a:b].astype(np.float64).sum() * 1000 + (values[a:b].max() if b > a else -np.inf)
                    for a, b in zip(offsets[:-1], offsets[1:])]
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-2)


def _clamped(offsets, length):
    out = []
    for start, end in zip(offsets[:-1], offsets[1:]):
        start = min(max(start, 0), length)
        out.append((start, min(max(end, start), length)))
    return out


@pytest.mark.parametrize("offsets_dtype", [np.int32, np.int64])
def test_flat_unsafe_bad_offsets_are_clamped_per_segment(flat_on, offsets_dtype, rng):
    """A window whose offsets decrease is run one segment at a time, each
    clamped to the buffers as every kernel clamps it; good windows around
    it are walked."""
    n = 3000
    values = rng.standard_normal(n).astype(np.float32)
    good = list(range(0, 1200, 12))
    bad = [-5, 100, 40, 2999, 5000, 10, 2100, 0, n, 0, n]
    offsets = good + bad + list(range(1300, 2900, 7))
    if offsets_dtype is np.int64:
        offsets[len(good) + 5] = 1 << 40
    sums = np.full(len(offsets) - 1, -1.0, dtype=np.float32)
    kernel("segmented_sum").launch(arguments={"values_ptr": values,
                                              "offsets_ptr": np.array(offsets, offsets_dtype),
                                              "out_ptr": sums}, executor="simt", unsafe=True)
    expected = [values[s:e].astype(np.float64).sum() for s, e in _clamped(offsets, n)]
    np.testing.assert_allclose(sums, expected, rtol=1e-5, atol=1e-3)


def test_flat_unsafe_bad_window_streams_what_no_list_kernel_runs_for(flat_on):
    """Buffers of at most 1024 elements run no lists kernel: a window
    whose offsets decrease streams its segments of 129 .. 1024 elements
    itself (the SIMT executor fails when a list is left with entries)."""
    n = 1000
    values = np.arange(n, dtype=np.float32) / 7
    offsets = [0, 700, 100, 900, 950, n, 3]
    sums = np.full(len(offsets) - 1, -1.0, dtype=np.float32)
    kernel("segmented_sum").launch(arguments={"values_ptr": values, "offsets_ptr": np.array(offsets, np.int32),
                                              "out_ptr": sums}, executor="simt", unsafe=True)
    expected = [values[s:e].astype(np.float64).sum() for s, e in _clamped(offsets, n)]
    np.testing.assert_allclose(sums, expected, rtol=1e-5, atol=1e-3)


def test_flat_offsets_check_catches_bad_offsets(flat_on):
    values = np.ones(100, np.float32)
    out = np.full(40, -3.0, np.float32)
    offsets = np.arange(41, dtype=np.int32)
    offsets[30] = 10
    with pytest.raises(ValueError, match="segment 29"):
        kernel("segmented_sum").launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                                  "out_ptr": out}, executor="simt")
    offsets = np.arange(41, dtype=np.int64)
    offsets[40] = 101
    with pytest.raises(ValueError, match="offsets"):
        kernel("segmented_sum").launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                                  "out_ptr": out[:40]}, executor="simt")


@pytest.mark.parametrize("lengths, flat", [
    ([1] * 64, False),               # at most one element a segment: the one-element kernel
    ([0, 2] * 32, False),
    ([0, 3] * 32, True),             # mean 1.5
    ([5, 6, 7, 6] * 16, True),
    ([32] * 63 + [2048], True),      # mean 64
    ([32] * 63 + [2200], False),     # mean past 64: a warp's tile
    ([300, 900] * 8, False),
])
@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_auto_takes_the_flat_kernel_for_short_means(monkeypatch, example, lengths, flat, rng):
    """Auto takes the flat kernel of a one-stage program for means in
    (1, 64]; never that of a program of several stages (slower than the
    sub-warp kernels on the H200), which SWAGE_FLAT=1 still forces."""
    monkeypatch.delenv("SWAGE_FLAT", raising=False)
    inputs = sc.make_inputs(example, np.array(lengths), rng)
    direct, text = _direct(example, inputs)
    assert (direct == example + "__direct_flat") == (flat and example in ONE_STAGE), text
    monkeypatch.setenv("SWAGE_FLAT", "0")
    assert _direct(example, inputs)[0] != example + "__direct_flat"
    monkeypatch.setenv("SWAGE_FLAT", "1")
    assert _direct(example, inputs)[0] == example + "__direct_flat"


def _ptxas():
    found = shutil.which("ptxas")
    if not found and os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
        found = "/usr/local/cuda/bin/ptxas"
    return found


@pytest.mark.parametrize("example", FLAT_EXAMPLES)
def test_flat_kernel_ptx_assembles(example, rng, tmp_path):
    inputs = sc.make_inputs(example, sc.lengths("tiny-uniform", 1 << 10, rng), rng)
    ptx = kernel(example).emit_ptx(arguments=_arguments(example, inputs, sc.new_output(example, inputs)),
                                   sm=90)
    entry = ptx[ptx.index(".entry %s__direct_flat(" % example):]
    body = entry[:entry.index("\n}\n")]
    assert "shfl.sync.idx.b32" in body and "ld.global.v4" in body.replace(".nc", ""), body[:2000]
    assert "atom.global.add.f32" not in body and "red.global.add.f32" not in body
    ptxas = _ptxas()
    if not ptxas:
        pytest.skip("no ptxas")
    for sm in (90, 80):
        path = tmp_path / ("k%d.ptx" % sm)
        path.write_text(kernel(example).emit_ptx(
            arguments=_arguments(example, inputs, sc.new_output(example, inputs)), sm=sm))
        run = subprocess.run([ptxas, "-arch=sm_%d" % sm, str(path), "-o", str(tmp_path / "k.cubin")],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


# ---- programs of several stages ---------------------------------------------------


@pytest.mark.parametrize("example", SEVERAL_STAGES)
def test_flat_several_stages_infinities(monkeypatch, example, rng):
    """Segments all -inf (NaN, as every kernel gives), partly -inf and with
    +inf, among short ones and one the walk leaves to the lists: the same
    result as the other kernels (SWAGE_FLAT=0), NaN where they have NaN."""
    lengths = np.array([3, 0, 5, 17, 1, 2000, 9, 16, 0, 33, 4] * 12)
    inputs = sc.make_inputs(example, lengths, rng)
    x, offsets = inputs["values"], inputs["offsets"]
    for s in range(0, len(lengths), 5):
        x[offsets[s]:offsets[s + 1]] = -np.inf
    for s in range(2, len(lengths), 7):
        if lengths[s] > 1:
            x[offsets[s]] = -np.inf
    x[offsets[20] + 1] = np.inf
    monkeypatch.setenv("SWAGE_FLAT", "1")
    assert _direct(example, inputs)[0] == example + "__direct_flat"
    flat = _run(example, inputs)
    monkeypatch.setenv("SWAGE_FLAT", "0")
    assert _direct(example, inputs)[0] != example + "__direct_flat"
    other = _run(example, inputs)
    assert np.array_equal(np.isnan(flat), np.isnan(other))
    with np.errstate(invalid="ignore"):
        finite = ~np.isnan(other)
        np.testing.assert_allclose(flat[finite], other[finite], rtol=1e-5, atol=1e-6)
    expected, scale = sc.reference(example, inputs)
    segment_nan = np.isnan(expected) & ~np.isnan(flat)
    assert not segment_nan.any()


@pytest.mark.parametrize("offsets_dtype", [np.int32, np.int64])
def test_flat_several_stages_unsafe_bad_offsets(flat_on, offsets_dtype, rng):
    """A window whose offsets decrease runs its segments one at a time, each
    clamped; the good windows around it are walked stage by stage and store
    nothing outside their segments."""
    n = 3000
    values = rng.standard_normal(n).astype(np.float32)
    offsets = list(range(0, 1200, 12)) + list(range(1200, 2900, 5)) + [2950, 5000, 10]
    if offsets_dtype is np.int64:
        offsets[-2] = 1 << 40
    out = np.full(n, np.nan, np.float32)
    kernel("segmented_softmax").launch(arguments={"values_ptr": values,
                                                  "offsets_ptr": np.array(offsets, offsets_dtype),
                                                  "output_ptr": out}, executor="simt", unsafe=True)
    expected = np.full(n, np.nan)
    for s, e in _clamped(offsets, n):
        if e > s:
            v = np.exp(values[s:e].astype(np.float64) - values[s:e].max())
            expected[s:e] = v / v.sum()
    assert np.array_equal(np.isnan(out), np.isnan(expected))
    np.testing.assert_allclose(out[~np.isnan(out)], expected[~np.isnan(expected)], rtol=1e-5, atol=1e-7)


def test_flat_several_stages_scalar_work_between_stages(monkeypatch, rng):
    """Per-segment scalars of every kind reach the rows: the segment id and
    length, scalar work after a stage (f16 arithmetic, casts), a stage that
    stores only; the same results as the other kernels (SWAGE_FLAT=0) and
    the float64 reference within float16's rounding of the scalar work."""
    import swage as sw
    import swage.language as sl

    @sw.jit
    def staged(values_ptr, offsets_ptr, output_ptr, sums_ptr):
        sid = sl.segment_id(0)
        segment = sl.segment(values_ptr, offsets_ptr, sid)
        x = sl.load_segment(segment)
        top = sl.max(x)
        low = sl.min(x)
        width = top - low + 1.0
        n = sl.segment_length(segment)
        centred = (x.to(sl.float32) - low.to(sl.float32)) / width.to(sl.float32)
        total = sl.sum(centred * n.to(sl.float32))
        sl.store(sums_ptr + sid, total + sid.to(sl.float32))
        sl.store_segment(output_ptr, segment, (centred / total * sid.to(sl.float32)).to(sl.float16))

    for _ in range(3):
        lengths = rng.choice([0, 1, 2, 5, 16, 17, 40, 511, 513, 1500], size=int(rng.integers(1, 200)))
        offsets = (np.concatenate([[0], np.cumsum(lengths)]) + 2).astype(np.int32)
        values = rng.standard_normal(int(offsets[-1]) + 3).astype(np.float16)
        got = {}
        for flat in ("1", "0"):
            monkeypatch.setenv("SWAGE_FLAT", flat)
            out = np.full(len(values), np.nan, np.float16)
            sums = np.full(len(lengths), np.nan, np.float32)
            arguments = {"values_ptr": values, "offsets_ptr": offsets, "output_ptr": out, "sums_ptr": sums}
            assert ("__direct_flat" in str(staged.plan(arguments=arguments))) == (flat == "1")
            staged.launch(arguments=arguments, executor="simt")
            got[flat] = out, sums
        (out, sums), (out0, sums0) = got["1"], got["0"]
        np.testing.assert_allclose(sums, sums0, rtol=1e-5)
        assert np.array_equal(np.isnan(out), np.isnan(out0))
        np.testing.assert_allclose(out.astype(np.float64), out0.astype(np.float64), rtol=2e-3, atol=1e-6,
                                   equal_nan=True)
        want_out = np.full(len(values), np.nan)
        want_sums = np.zeros(len(lengths))
        for s, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
            x = values[a:b].astype(np.float64)
            want_sums[s] = s  # an empty segment's sum is 0
            if b > a:
                c = (x - x.min()) / (x.max() - x.min() + 1.0)
                total = (c * (b - a)).sum()
                want_sums[s] += total
                with np.errstate(invalid="ignore"):
                    want_out[a:b] = c / total * s
        np.testing.assert_allclose(sums, want_sums, rtol=2e-3, atol=1e-3)
        assert np.array_equal(np.isnan(out), np.isnan(want_out))
        np.testing.assert_allclose(out.astype(np.float64), want_out, rtol=5e-3, atol=1e-3, equal_nan=True)
