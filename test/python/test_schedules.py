"""Every schedule of segment programs (docs/schedules.md) on the CPU SIMT
executor: launch(..., executor="simt", schedule=s) runs the same task
kernels, plan, scratch and hidden parameters as a GPU launch, with every
memory access checked and the GPU's rules for diverging threads enforced.

For every schedule (auto and the forced ones) x every distribution of
segment_cases.DISTRIBUTIONS x every example kernel: the result matches the
float64 reference within segment_cases' tolerances, untouched elements
keep their poison, and a second launch gives the same bits (no
floating-point atomics). At CI size the automatic plan still uses every
policy: the CPU plans for a small machine, so bimodal and one-outlier
segments go to the lists and to split chunks. Also: float16, bfloat16 and
int64 offsets; random small cases fresh every run; launches with no
segments; the plan's text; the errors of bad schedule arguments.
"""

import os
import re
import sys

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import segment_cases as sc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
if EXAMPLES_DIR not in sys.path:
    sys.path.insert(0, EXAMPLES_DIR)

from segment_examples import EXAMPLES, kernel  # noqa: E402

SCHEDULES = ("auto", "subwarp", "warp", "cta", "split", "persistent")
N = 1 << 15  # elements per case: every policy runs, and CI stays quick


def run(example, inputs, **options):
    output = sc.new_output(example, inputs)
    EXAMPLES[example].launch(inputs, output, executor="simt", **options)
    return output


def check_schedule(example, inputs, schedule, what):
    first = run(example, inputs, schedule=schedule)
    sc.check(example, first, inputs, "%s, %s" % (what, schedule))
    again = run(example, inputs, schedule=schedule)
    assert np.array_equal(first.view(np.uint8), again.view(np.uint8)), (
        "%s, %s: two launches gave different bits" % (what, schedule))


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("distribution", sc.DISTRIBUTIONS)
@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_every_schedule_on_every_distribution(example, distribution, schedule, rng):
    many = distribution in ("all-singleton", "tiny-uniform", "power-law", "alternating-empty")
    if many and schedule == "split":
        n = N // 32  # one CTA task, a ticket and a merge per tiny segment: slow by design
    elif many and schedule in ("cta", "warp"):
        n = N // 8  # one CTA (or warp) per tiny segment: slow on the CPU executor, as on a GPU
    else:
        n = N
    lengths = sc.lengths(distribution, n, rng)
    inputs = sc.make_inputs(example, lengths, rng)
    check_schedule(example, inputs, schedule, distribution)


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("dtype,offsets_dtype", [("float16", "int64"), ("bfloat16", "int32"),
                                                 ("float32", "int64")])
@pytest.mark.parametrize("example", ["segmented_softmax", "segmented_mean", "weighted_sum"])
def test_dtypes_and_offsets(example, dtype, offsets_dtype, schedule, rng):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes", reason="bfloat16 arrays need ml_dtypes")
    lengths = sc.lengths("bimodal", N, rng)
    inputs = sc.make_inputs(example, lengths, rng, dtype=dtype, offsets_dtype=offsets_dtype,
                            pad_before=int(rng.integers(0, 7)), pad_after=int(rng.integers(0, 7)))
    check_schedule(example, inputs, schedule, "bimodal %s %s" % (dtype, offsets_dtype))


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_random_small_cases(schedule, rng):
    """Fresh every run: 0..40 segments of random lengths, many empty."""
    for _ in range(4):
        lengths = sc.random_small_lengths(rng)
        for example in ("segmented_sum", "segmented_softmax", "weighted_sum"):
            inputs = sc.make_inputs(example, lengths, rng)
            check_schedule(example, inputs, schedule, "random lengths %s" % list(lengths))


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_no_segments_runs_nothing(schedule):
    values = np.ones(5, np.float32)
    out = np.full(1, -3.0, np.float32)
    kernel("segmented_sum").launch(arguments={"values_ptr": values,
                                              "offsets_ptr": np.zeros(1, np.int32),
                                              "out_ptr": out}, executor="simt", schedule=schedule)
    assert out[0] == -3.0


def test_bad_offsets_are_caught_before_any_schedule_runs():
    values = np.ones(10, np.float32)
    out = np.full(2, -3.0, np.float32)
    with pytest.raises(ValueError, match="segment 1"):
        kernel("segmented_sum").launch(arguments={"values_ptr": values,
                                                  "offsets_ptr": np.array([0, 5, 3], np.int32),
                                                  "out_ptr": out}, executor="simt",
                                       schedule="warp")
    assert (out == -3.0).all()


def test_schedule_arguments_are_checked():
    k = kernel("segmented_sum")
    arguments = {"values_ptr": np.ones(4, np.float32), "offsets_ptr": np.array([0, 4], np.int32),
                 "out_ptr": np.zeros(1, np.float32)}
    with pytest.raises(ValueError, match="schedule must be one of 'auto', 'subwarp'"):
        k.launch(arguments=arguments, schedule="fastest")
    with pytest.raises(ValueError, match="needs executor='simt'"):
        k.launch(arguments=arguments, schedule="warp")
    with pytest.raises(ValueError, match="schedule must be one of"):
        k.plan(arguments=arguments, schedule=3)

    @sw.jit
    def add(x_ptr, out_ptr):
        pid = sw.language.program_id(0)
        sw.language.store(out_ptr + pid, sw.language.load(x_ptr + pid))

    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="grid program: schedule='warp' applies to segment programs"):
        add.launch(arguments={"x_ptr": x, "out_ptr": x}, grid=(4,), schedule="warp")
    with pytest.raises(TypeError, match="only segment programs have a plan"):
        add.plan(arguments={"x_ptr": x, "out_ptr": x})


def _kernel_arguments(example, inputs):
    """The example kernel's arguments for `inputs`, with a fresh output."""
    out = sc.new_output(example, inputs)
    arguments = {"values_ptr": inputs["values"], "offsets_ptr": inputs["offsets"],
                 "output_ptr" if example in sc.SEGMENT_SHAPED else "out_ptr": out}
    arguments.update({name + "_ptr": inputs[name] for name in sc.EXTRA_INPUTS.get(example, ())})
    return arguments


def _plan_lines(text, heading):
    lines = text.splitlines()
    start = lines.index(heading) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        out.append(line.split())
    return out


@pytest.mark.parametrize("lengths, direct", [
    ([1] * 64, "direct_subwarp1"),             # at most one element a segment
    ([0] * 63 + [64], "direct_subwarp1"),
    ([5, 6, 7, 6] * 16, "direct_subwarp16"),   # the first tile holding twice the mean
    ([32] * 63 + [2048], "direct_warp128"),    # mean 64: one warp tile holds twice it
    ([300, 900] * 8, "direct_subwarp64_stream"),  # mean 600: most segments span several tiles
    ([700, 834] * 8, "direct_subwarp64_stream"),  # mean 767: under the wide warp streamer's 768
    ([768] * 16, "direct_warp256_stream"),  # mean 768: a warp of 8-element lanes a segment
    ([1000, 1046] * 8, "direct_warp256_stream"),  # mean 1023
    ([1024, 2047] * 8, "direct_warp256_stream"),  # mean 1535: still under twice the CTA's tile
    ([1500, 3000] * 8, "direct_cta1024_stream"),  # mean 2250: a CTA streams each segment
    ([8191, 8193] * 8, "direct_cta4096_stream"),  # mean 8192: the wide CTA streamer
])
def test_auto_picks_the_direct_kernel_from_the_mean(monkeypatch, lengths, direct):
    """A one-stage program's streamer is on half warps, from a mean of 768
    on warps of 8-element lanes; a softmax's is on warps
    (test_direct_tasks_stream_what_their_group_can). Without the flat
    kernel (SWAGE_FLAT=0), which auto takes for a sum's means of 2 to 64
    (test_flat.py)."""
    monkeypatch.setenv("SWAGE_FLAT", "0")
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = np.zeros(int(offsets[-1]), np.float32)
    out = np.zeros(len(lengths), np.float32)
    plan = kernel("segmented_sum").plan(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                                   "out_ptr": out})
    launches = _plan_lines(str(plan), "launches, in order:")
    assert launches[0][1] == "segmented_sum__" + direct, str(plan)


@pytest.mark.parametrize("lengths, direct", [
    ([5, 6, 7, 6] * 16, "direct_cta1024_stream"),    # short: still a CTA a segment
    ([1000, 1046] * 8, "direct_cta1024_stream"),     # medium: the narrow streamer
    ([8191, 8193] * 8, "direct_cta4096_stream"),     # mean 8192: the wide one
])
def test_forced_cta_takes_the_cta_streamers(lengths, direct):
    """schedule="cta" runs auto's CTA streamers on every segment, chosen
    by the mean as auto chooses them; results as the oracle's."""
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = np.random.default_rng(3).standard_normal(int(offsets[-1])).astype(np.float32)
    out = np.zeros(len(lengths), np.float32)
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}
    plan = kernel("segmented_sum").plan(arguments=arguments, schedule="cta")
    launches = _plan_lines(str(plan), "launches, in order:")
    assert [row[1] for row in launches] == ["segmented_sum__" + direct], str(plan)
    kernel("segmented_sum").launch(arguments=arguments, executor="simt", schedule="cta")
    expect = np.add.reduceat(values.astype(np.float64), offsets[:-1])
    np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-4)


def test_swage_direct_picks_the_direct_kernel(monkeypatch):
    """SWAGE_DIRECT=<name> runs <program>__direct_<name> whatever the
    lengths (a profiling knob, docs/testing.md); a name no direct kernel of
    the schedule has leaves the choice to the mean. Results stay exact: the
    kernel streams or lists what does not fit its tile."""
    lengths = [3, 0, 40, 700, 5] * 8
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    values = np.random.default_rng(5).standard_normal(int(offsets[-1])).astype(np.float32)
    expect = np.add.reduceat(values.astype(np.float64), offsets[:-1])
    expect[np.diff(offsets) == 0] = 0
    for name, direct in (("warp128", "warp128"), ("cta1024_stream", "cta1024_stream"),
                         ("no_such_kernel", None)):
        monkeypatch.setenv("SWAGE_DIRECT", name)
        out = np.zeros(len(lengths), np.float32)
        arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}
        first = _plan_lines(str(kernel("segmented_sum").plan(arguments=arguments)),
                            "launches, in order:")[0][1]
        if direct:
            assert first == "segmented_sum__direct_" + direct
        else:
            monkeypatch.delenv("SWAGE_DIRECT")
            assert first == _plan_lines(str(kernel("segmented_sum").plan(arguments=arguments)),
                                        "launches, in order:")[0][1]
            monkeypatch.setenv("SWAGE_DIRECT", name)
        kernel("segmented_sum").launch(arguments=arguments, executor="simt")
        np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-4, err_msg=name)


def test_plan_reports_every_segment_once(rng):
    lengths = sc.lengths("bimodal", N, rng)
    lengths[len(lengths) // 2] = 16384  # a segment the plan splits, whatever the draw
    inputs = sc.make_inputs("segmented_softmax", lengths, rng)
    out = sc.new_output("segmented_softmax", inputs)
    arguments = {"values_ptr": inputs["values"], "offsets_ptr": inputs["offsets"],
                 "output_ptr": out}
    plan = kernel("segmented_softmax").plan(arguments=arguments, bandwidth=4000)
    text = str(plan)
    assert "plan of segmented_softmax, schedule auto" in text
    rows = _plan_lines(text, "segments by policy (segments, elements, tasks):")
    assert sum(int(r[-3]) for r in rows) == len(lengths), text
    assert sum(int(r[-2]) for r in rows) == int(lengths.sum()), text
    assert any(r[0] == "split" for r in rows), "bimodal at CI size splits its long segments:\n" + text
    launches = _plan_lines(text, "launches, in order:")
    # bimodal's mean (about 550, but at this size a few long segments can
    # take it past 2048) is past every direct tile: a streamer runs
    streamer = "cta1024" if lengths.sum() // len(lengths) >= 2048 else "warp128"
    assert [r[1] for r in launches][:2] == ["segmented_softmax__direct_%s_stream" % streamer,
                                            "segmented_softmax__lists"], text
    assert "predicted at 4000 GB/s" in text
    assert plan.schedule == "auto" and plan.segments == len(lengths)
    assert "classify" in str(kernel("segmented_softmax").plan(arguments=arguments,
                                                              schedule="persistent"))


@pytest.mark.parametrize("example, distribution, direct", [
    # at most one element a segment on average: one thread, one element
    # (two segments a program: test_one_element_kernel_runs_two_segments_a_program)
    ("segmented_sum", "all-singleton", "segmented_sum__direct_subwarp1, 1 thread per segment (2 segments "
                                       "each), on one tile up to 1, streamed up to 2; longer segments go "
                                       "to lists"),
    # one stage: a sub-warp task streams up to two of its tiles
    ("segmented_sum", "tiny-uniform", "segmented_sum__direct_subwarp32, 8 threads per segment, on one "
                                      "tile up to 32, streamed up to 64; longer segments go to lists"),
    # several stages on part of a warp: one loop per stage would hold the
    # whole warp, so longer segments go to the lists
    ("segmented_softmax", "tiny-uniform", "segmented_softmax__direct_subwarp32, 8 threads per segment, "
                                          "on one tile up to 32; longer segments go to lists"),
    # a warp streams up to 16 tiles, whatever the stages (the streamer: the
    # mean is past every direct tile)
    ("segmented_softmax", "medium-uniform", "segmented_softmax__direct_warp128_stream, 32 threads per segment, "
                                            "on one tile up to 128, streamed up to 2176; longer segments "
                                            "go to lists"),
])
def test_direct_tasks_stream_what_their_group_can(monkeypatch, rng, example, distribution, direct):
    monkeypatch.setenv("SWAGE_FLAT", "0")  # the sub-warp kernels (tiny segments: flat)
    # The lengths from a fixed generator: the direct kernel follows the mean
    # (the first tile of at least twice it), and a random draw of tiny-uniform
    # lengths (mean 16.5) can pass 17 and take the next tile. The values stay
    # fresh.
    lengths = sc.lengths(distribution, N, np.random.default_rng(2026))
    inputs = sc.make_inputs(example, lengths, rng)
    out = sc.new_output(example, inputs)
    out_name = "output_ptr" if example in sc.SEGMENT_SHAPED else "out_ptr"
    arguments = {"values_ptr": inputs["values"], "offsets_ptr": inputs["offsets"], out_name: out}
    text = str(kernel(example).plan(arguments=arguments))
    assert "  direct: " + direct + "\n" in text, text
    kernel(example).launch(arguments=arguments)
    sc.check(example, out, inputs, what="%s on %s" % (example, distribution), seed=rng.seed)


@pytest.mark.parametrize("segments", [1, 2, 3, 255, 256, 257, 1000])
@pytest.mark.parametrize("example", ["segmented_sum", "segmented_softmax", "weighted_sum"])
def test_one_element_kernel_runs_two_segments_a_program(rng, example, segments):
    """At a mean of at most one element, auto's direct kernel runs
    segments pid and pid + programs on each program: the grid is half the
    segments (over 128 programs a CTA), and a longer segment in either
    place is streamed or listed as in a kernel of one segment a program."""
    lengths = (rng.random(segments) < 0.6).astype(np.int64)
    # a few longer segments (streamed: 2; listed: 5, 40), in both halves
    for at, length in ((0, 2), (segments - 1, 5), (segments // 2, 40), (segments // 3, 2)):
        lengths[at] = length
    lengths[lengths.cumsum() > segments] = 0  # the mean stays at most one
    inputs = sc.make_inputs(example, lengths, rng)
    arguments = _kernel_arguments(example, inputs)
    text = str(kernel(example).plan(arguments=arguments))
    assert "  direct: %s__direct_subwarp1, 1 thread per segment (2 segments each)," % example in text, text
    launches = _plan_lines(text, "launches, in order:")
    assert launches[0][1:4] == ["%s__direct_subwarp1" % example, "grid",
                                str(-(-(-(-segments // 2)) // 128))], text
    check_schedule(example, inputs, "auto", "%d segments of lengths %s" % (segments, list(lengths)))


# Lengths for each CTA streamer: around the tiles' boundaries, past the 64
# tiles the narrow one once stopped at, at starts that are and are not
# multiples of the tile, and one segment of two fifths or more of the
# elements, which the CPU's split threshold (a quarter of them) splits;
# the longest segment the streamer keeps, and the split one.
CTA_STREAMER_CASES = {
    # mean 5357: the narrow streamer (128 threads, tiles of 1024)
    "cta1024": ([0, 1, 1023, 1024, 1025, 3, 2047, 2048, 2049, 4097, 0, 8191, 8192, 8193, 2000, 5, 2048, 60000],
                8193, 60000),
    # mean 26947: the wide one (256 threads, tiles of 4096)
    "cta4096": ([0, 1, 1023, 1024, 1025, 3, 2047, 2048, 2049, 4097, 0, 66559, 66560, 66561, 70000, 5, 2048,
                 200000], 70000, 200000),
}


@pytest.mark.parametrize("example", ["segmented_sum", "segmented_softmax", "weighted_sum"])
@pytest.mark.parametrize("streamer", sorted(CTA_STREAMER_CASES))
def test_cta_streamer_streams_up_to_the_split_threshold(rng, example, streamer):
    """From a mean of 2048 elements auto's direct kernel is the CTA
    streamer: a CTA of 128 threads per segment, tiles of 1024 streamed in
    pairs; from a mean of 8192 the wide one, 256 threads, tiles of 4096.
    Either streams every segment up to the launch's split threshold (no
    list is reachable: the plan says so); a longer one is split."""
    lengths, kept, split = CTA_STREAMER_CASES[streamer]
    lengths = np.array(lengths, dtype=np.int64)
    threads, tile = {"cta1024": (128, 1024), "cta4096": (256, 4096)}[streamer]
    inputs = sc.make_inputs(example, lengths, rng)
    arguments = _kernel_arguments(example, inputs)
    text = str(kernel(example).plan(arguments=arguments))
    found = re.search(r"  split: segments longer than (\d+), in chunks of (\d+)", text)
    assert found, text
    threshold = int(found.group(1))
    assert kept < threshold < split, text
    assert ("  direct: %s__direct_%s_stream, %d threads per segment, on one tile up to %d, "
            "streamed up to %d; longer segments are split" % (example, streamer, threads, tile, threshold)) in text, text
    assert ("  lists: none reachable (no segment of these buffers is longer than what the direct kernel "
            "keeps and not split)") in text, text
    rows = {r[0]: r for r in _plan_lines(text, "segments by policy (segments, elements, tasks):")}
    direct = "%s__direct_%s_stream" % (example, streamer)
    assert set(rows) == {direct, "split"}, text
    assert int(rows[direct][1]) == len(lengths) - 1 and int(rows["split"][1]) == 1, text
    assert int(rows["split"][2]) == split, text
    check_schedule(example, inputs, "auto", "lengths %s" % list(lengths))


@pytest.mark.parametrize("example", ["segmented_softmax", "segmented_log_softmax"])
@pytest.mark.parametrize("schedule", ["split", "auto"])
def test_one_pass_maximum_and_sum_across_chunks(rng, example, schedule):
    """A split softmax runs its maximum and its sum of exp(x - maximum) in
    one pass per chunk (docs/schedules.md) and merges the chunks' sums
    rescaled to the segment's maximum. The chunks here see very different
    maxima (one chunk's values 80 above the rest), -inf in whole chunks
    and in single lanes, a segment of -inf only (NaN, as the two stages
    give), +inf and NaN: the SIMT executor agrees with the oracle, NaN for
    NaN."""
    # On the CPU a split chunk is about an eighth of all elements (16384
    # here): the first segment is 4 chunks, the second 2 (auto splits the
    # first: longer than two chunks)
    lengths = np.array([60000, 20000, 6500, 8200, 5000, 4300, 12000, 3], dtype=np.int64)
    offsets = sc.offsets_from_lengths(lengths, "int32")
    values = rng.standard_normal(int(lengths.sum())).astype(np.float32)
    seg = [values[offsets[i]:offsets[i + 1]] for i in range(len(lengths))]
    seg[0][36000:37000] += 80.0                 # a late chunk with a far larger maximum
    seg[1][:17000] = -np.inf                    # a whole chunk of -inf before the values
    seg[1][18000] = -np.inf                     # and one in the middle
    seg[2][:] = -np.inf                         # nothing but -inf: NaN
    seg[3][8100] = np.inf                       # +inf: NaN where exp(inf - inf)
    seg[4][10] = np.nan                         # NaN
    seg[5][::2] = -np.inf                       # every other lane -inf
    seg[6][:] -= 90.0                           # small values: the sum must not underflow
    seg[6][11999] = 30.0
    inputs = {"values": values, "offsets": offsets}
    oracle = sc.new_output(example, inputs)
    EXAMPLES[example].launch(inputs, oracle)
    simt = sc.new_output(example, inputs)
    EXAMPLES[example].launch(inputs, simt, schedule=schedule, executor="simt", unsafe=True)
    assert np.array_equal(np.isnan(oracle), np.isnan(simt)), "NaN patterns differ"
    both = ~np.isnan(oracle)
    assert np.isnan(oracle[offsets[2]:offsets[3]]).all()
    np.testing.assert_allclose(simt[both], oracle[both], rtol=2e-5, atol=1e-6)
    text = str(kernel(example).plan(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                               "output_ptr": simt}, schedule=schedule))
    assert "__split1" not in text and "__split2" in text, text
    rows = {r[0]: r for r in _plan_lines(text, "segments by policy (segments, elements, tasks):")}
    assert int(rows["split"][-1]) >= (12 if schedule == "split" else 4), text


ONE_STAGE = ("segmented_sum", "segmented_max", "segmented_mean", "weighted_sum")
SEVERAL_STAGES = ("segmented_softmax", "segmented_log_softmax", "segmented_l2_normalise")


def _bytes(text):
    number, unit = text.split()
    return float(number) * {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]


def _split_lengths(case, rng):
    """Lengths with segments the CPU's plan splits (longer than two chunks
    of about an eighth of all elements) among ones for the lists."""
    if case == "bimodal":
        lengths = sc.lengths("bimodal", N, rng)
        lengths[len(lengths) // 2] = 16384  # split, whatever the draw
        return lengths
    if case == "one-outlier":
        return sc.lengths("one-outlier", N, rng)
    # few huge (sc's few-huge, eight of an eighth each, is never longer
    # than two chunks): three split, the rest to the lists and the direct
    # kernel
    return np.array([3, 20000, 0, 17000, 9000, 1, 12000, 700, 5000], dtype=np.int64)


@pytest.mark.parametrize("schedule", ["auto", "persistent"])
@pytest.mark.parametrize("case", ["bimodal", "one-outlier", "few-huge"])
@pytest.mark.parametrize("example", ONE_STAGE)
def test_one_stage_split_is_a_section_of_the_lists_kernel(rng, example, case, schedule):
    """A one-stage program's split stage is the last section of its lists
    kernel (docs/schedules.md): one persistent launch after the direct one
    runs every list and the split chunks, merged by the last chunk of each
    segment whatever the grid. The results are right and the same bits on
    every run; the plan shows no split launch, the split row, and the
    split chunks' bytes in the lists launch."""
    lengths = _split_lengths(case, rng)
    inputs = sc.make_inputs(example, lengths, rng)
    check_schedule(example, inputs, schedule, case)
    text = str(kernel(example).plan(arguments=_kernel_arguments(example, inputs), schedule=schedule))
    launches = _plan_lines(text, "launches, in order:")
    names = [r[1] for r in launches]
    assert len(names) == 2 and names[1] == example + "__lists", text
    assert not any("__split" in name for name in names), text
    assert "(the last section of %s__lists)\n" % example in text, text
    rows = {r[0]: r for r in _plan_lines(text, "segments by policy (segments, elements, tasks):")}
    assert int(rows["split"][-1]) >= 2, "the case splits a segment into chunks:\n" + text
    moved = _bytes(" ".join(launches[1][-2:]))
    assert moved >= int(rows["split"][-2]) * inputs["values"].itemsize, text


@pytest.mark.parametrize("schedule", ["auto", "persistent"])
@pytest.mark.parametrize("example", SEVERAL_STAGES)
def test_several_stages_keep_their_split_kernels(rng, example, schedule):
    """A program of several stages keeps one split kernel per stage (the
    next stage reads what the merge stored: a new launch orders them),
    launched after the lists."""
    lengths = _split_lengths("bimodal", rng)
    inputs = sc.make_inputs(example, lengths, rng)
    check_schedule(example, inputs, schedule, "bimodal")
    text = str(kernel(example).plan(arguments=_kernel_arguments(example, inputs), schedule=schedule))
    names = [r[1] for r in _plan_lines(text, "launches, in order:")]
    assert example + "__split0" in names and names.index(example + "__split0") > names.index(
        example + "__lists"), text
    assert "last section" not in text, text


def test_plan_ir_links_only_a_one_stage_split():
    signature = {"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}
    for schedule in ("auto", "persistent"):
        simt = kernel("segmented_sum").emit_mlir(signature=signature, stage="simt", schedule=schedule)
        assert "@segmented_sum__split0(" not in simt
        lists = [line for line in simt.splitlines() if "func.func @segmented_sum__lists(" in line]
        assert len(lists) == 1 and 'sw.lists = "0,1,2,3,4,5,6,7,8,9,10,11,12"' in lists[0], lists
        assert "sw.split_stage = 0 : i32" in lists[0], lists
        softmax = kernel("segmented_softmax").emit_mlir(
            signature={"values_ptr": "*f32", "offsets_ptr": "*i32", "output_ptr": "*f32"}, stage="simt",
            schedule=schedule)
        assert "@segmented_softmax__split0(" in softmax and "sw.split_stage" not in softmax


@sw.jit
def maximum_and_sum_of_exponentials(values_ptr, offsets_ptr, max_ptr, sum_ptr):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    m = sl.max(x)
    sl.store(max_ptr + sid, m)
    sl.store(sum_ptr + sid, sl.sum(sl.exp(x - m)))


@pytest.mark.parametrize("schedule", ["split", "auto", "cta", "warp", "subwarp", "persistent"])
def test_maximum_and_sum_of_exponentials_stored(rng, schedule):
    """The stored results of a maximum and a sum of exp(x - maximum), which
    split segments compute in one pass: what the two stages give, on every
    schedule -- NaN for a segment of -inf only, 0 for an empty one (its
    maximum -inf), +inf's NaN, and sums that a late, larger maximum
    rescales."""
    lengths = np.array([60000, 20000, 6500, 0, 8200, 5000, 3, 1], dtype=np.int64)
    offsets = sc.offsets_from_lengths(lengths, "int64")
    values = rng.standard_normal(int(lengths.sum())).astype(np.float32)
    seg = [values[offsets[i]:offsets[i + 1]] for i in range(len(lengths))]
    seg[0][36000:37000] += 50.0
    seg[1][:17000] = -np.inf
    seg[2][:] = -np.inf
    seg[4][100] = np.inf
    seg[7][:] = -np.inf
    maxima = np.zeros(len(lengths), np.float32)
    sums = np.zeros(len(lengths), np.float32)
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "max_ptr": maxima, "sum_ptr": sums}
    maximum_and_sum_of_exponentials.launch(arguments=arguments, schedule=schedule,
                                           executor="simt", unsafe=True)
    with np.errstate(invalid="ignore", over="ignore"):
        want_max = np.array([s.astype(np.float64).max() if len(s) else -np.inf for s in seg])
        want_sum = np.array([np.exp(s.astype(np.float64) - mx).sum()
                             for s, mx in zip(seg, want_max)])
    np.testing.assert_array_equal(maxima, want_max.astype(np.float32))
    assert np.array_equal(np.isnan(sums), np.isnan(want_sum)), (sums, want_sum)
    assert np.isnan(sums[[2, 4, 7]]).all() and sums[3] == 0
    ok = ~np.isnan(want_sum)
    np.testing.assert_allclose(sums[ok], want_sum[ok], rtol=1e-4)


def _jit_from_source(tmp_path, stem, body):
    """The module of one @sw.jit kernel whose source (after the decorator)
    is `body`, written to tmp_path/<stem>.py: the frontend reads a kernel's
    source from its file."""
    import importlib.util
    path = tmp_path / (stem + ".py")
    path.write_text("import swage as sw\nimport swage.language as sl\n\n\n@sw.jit\n" + body)
    spec = importlib.util.spec_from_file_location(stem, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_too_many_stages_is_a_compile_error(tmp_path):
    """A segment program with more dependent stages than a schedule's
    kernels can hold fails at once with a CompileError at the kernel (it
    used to build every stage's kernel, then fail as an internal error);
    the reference executor, which plans nothing, still runs it."""
    module = _jit_from_source(tmp_path, "many_stages",
                              "def many(values_ptr, offsets_ptr, out_ptr):\n"
                              "    sid = sl.segment_id(0)\n"
                              "    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))\n"
                              "    s = sl.sum(x)\n" + "    s = sl.sum(x * s)\n" * 40 +
                              "    sl.store(out_ptr + sid, s)\n")
    values = np.ones(10, np.float32)
    arguments = {"values_ptr": values, "offsets_ptr": np.array([0, 5, 10], np.int32),
                 "out_ptr": np.zeros(2, np.float32)}
    with pytest.raises(sw.CompileError, match="41 stages .* at most 20"):
        module.many.emit_ptx(arguments=arguments)
    with pytest.raises(sw.CompileError, match="41 stages"):
        module.many.launch(arguments=arguments, executor="simt")
    module.many.launch(arguments=arguments)
    assert np.isfinite(arguments["out_ptr"]).all()


def _chain_of_stages(tmp_path, reductions, live):
    """A segment program of `live` segment values multiplied together, then
    `reductions` dependent sums of them (each scaled by the one before)."""
    params = ", ".join("v%d_ptr" % i for i in range(live))
    loads = "".join("    x%d = sl.load_segment(sl.segment(v%d_ptr, offsets_ptr, sid))\n" % (i, i)
                    for i in range(live))
    product = " * ".join("x%d" % i for i in range(live))
    body = ("def chain(%s, offsets_ptr, out_ptr):\n    sid = sl.segment_id(0)\n%s"
            "    s = sl.sum(%s)\n" % (params, loads, product) +
            "    s = sl.sum((%s) * s)\n" % product * (reductions - 1) + "    sl.store(out_ptr + sid, s)\n")
    module = _jit_from_source(tmp_path, "chain_%d_%d" % (reductions, live), body)
    signature = ",".join(["v%d_ptr=*f32" % i for i in range(live)] + ["offsets_ptr=*i32", "out_ptr=*f32"])
    return module.chain, signature


@pytest.mark.parametrize("live", [1, 2, 3, 5, 9])
def test_the_most_stages_compile_under_every_schedule(tmp_path, live):
    """The stage limit the compile error names is one every schedule can
    build: a program of exactly that many stages compiles to SIMT IR under
    each (its kernels fit the launch's table, with auto's extra direct
    kernels counted, whatever the number of live values), one more stage
    is the compile error."""
    kernel_, signature = _chain_of_stages(tmp_path, 60, live)
    with pytest.raises(sw.CompileError) as failed:
        kernel_.emit_mlir(signature=signature, stage="plan")
    found = re.search(r"of (\d+) stages .* at most (\d+)", str(failed.value))
    assert found, str(failed.value)
    stages, most = int(found.group(1)), int(found.group(2))
    reductions = 60 - (stages - most)
    kernel_, signature = _chain_of_stages(tmp_path, reductions, live)
    for schedule in ("auto", "subwarp", "warp", "cta", "split", "persistent"):
        kernel_.emit_mlir(signature=signature, stage="simt", schedule=schedule)
    kernel_, signature = _chain_of_stages(tmp_path, reductions + 1, live)
    with pytest.raises(sw.CompileError, match="%d stages .* at most %d" % (most + 1, most)):
        kernel_.emit_mlir(signature=signature, stage="simt")


def test_cta_schedule_of_a_program_with_many_live_values(rng, tmp_path):
    """A program that keeps more segment values at once than a CTA tile of
    8 elements a thread has registers for (plan_shapes leaves out every CTA
    shape) still runs schedule="cta": on CTAs of 4 elements a thread, as
    its sub-warp and warp shapes. (Found by the fuzzer: it was an internal
    error.) Checked on the SIMT executor against the reference one."""
    module = _jit_from_source(
        tmp_path, "many_live",
        "def spread(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, offsets_ptr, out_ptr):\n"
        "    sid = sl.segment_id(0)\n"
        "    a = sl.load_segment(sl.segment(a_ptr, offsets_ptr, sid))\n"
        "    b = sl.load_segment(sl.segment(b_ptr, offsets_ptr, sid))\n"
        "    c = sl.load_segment(sl.segment(c_ptr, offsets_ptr, sid))\n"
        "    d = sl.load_segment(sl.segment(d_ptr, offsets_ptr, sid))\n"
        "    e = sl.load_segment(sl.segment(e_ptr, offsets_ptr, sid))\n"
        "    t = sl.sum(a * b + c * d - e)\n"
        "    sl.store_segment(out_ptr, sl.segment(a_ptr, offsets_ptr, sid), a * b + c * d - e - t)\n")
    lengths = np.array([0, 1, 5, 1023, 1024, 1025, 3000, 7], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    n = int(offsets[-1])
    inputs = {name: rng.standard_normal(n).astype(np.float32) for name in ("a_ptr", "b_ptr", "c_ptr", "d_ptr",
                                                                          "e_ptr")}
    plan = str(module.spread.plan(arguments=dict(inputs, offsets_ptr=offsets, out_ptr=np.zeros(n, np.float32)),
                                  schedule="cta"))
    assert "spread__direct_cta1024" in plan, plan
    outs = {}
    for executor, schedule in (("semantic", None), ("simt", "cta")):
        out = np.full(n, np.nan, np.float32)
        extra = {"schedule": schedule} if schedule else {}
        module.spread.launch(arguments=dict(inputs, offsets_ptr=offsets, out_ptr=out), executor=executor, **extra)
        outs[executor] = out
    np.testing.assert_allclose(outs["simt"], outs["semantic"], rtol=1e-4, atol=1e-3, err_msg=str(rng.seed))


def test_plan_ir_names_every_task_kernel():
    text = kernel("segmented_sum").emit_mlir(
        signature={"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}, stage="plan")
    for name in ("__direct_subwarp4", "__direct_warp128", "__list0_subwarp4", "__list11_stream2048",
                 "__split0"):
        assert "func.func @segmented_sum" + name + "(" in text
    simt = kernel("segmented_sum").emit_mlir(
        signature={"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}, stage="simt",
        schedule="split")
    assert "@segmented_sum__classify(" in simt and "@segmented_sum__split0(" in simt
    assert "__lists" not in simt


PLAN_WITHOUT_NUMPY = r'''
import array, sys
import swage as sw
import swage.language as sl
assert "numpy" not in sys.modules

@sw.jit
def segment_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))))

lengths = [(i * 7) % 40 for i in range(300)]
bounds = [0]
for n in lengths:
    bounds.append(bounds[-1] + n)
values = array.array("f", bytes(4 * bounds[-1]))
out = array.array("f", bytes(4 * len(lengths)))
for code in "iq":
    plan = segment_sum.plan(arguments={"values_ptr": values, "offsets_ptr": array.array(code, bounds),
                                       "out_ptr": out})
    print(str(plan).split("\n", 1)[1])
    print("=====")
assert "numpy" not in sys.modules
'''


def test_plan_reads_offsets_without_numpy(tmp_path):
    """kernel.plan copies the offsets into C with the standard library when
    NumPy is not loaded (int32 widened, int64 as they are): the same plan
    as from NumPy arrays."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(here, "..", "..", "python"), os.environ.get("PYTHONPATH", "")]))
    script = tmp_path / "plan_without_numpy.py"
    script.write_text(PLAN_WITHOUT_NUMPY)
    child = subprocess.run([sys.executable, str(script)], env=env, cwd=here,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    plans = child.stdout.split("=====\n")[:2]

    @sw.jit
    def segment_sum(values_ptr, offsets_ptr, out_ptr):
        sid = sl.segment_id(0)
        sl.store(out_ptr + sid, sl.sum(sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))))

    lengths = [(i * 7) % 40 for i in range(300)]
    for dtype, text in zip((np.int32, np.int64), plans):
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(dtype)
        plan = segment_sum.plan(arguments={"values_ptr": np.zeros(int(offsets[-1]), np.float32),
                                           "offsets_ptr": offsets,
                                           "out_ptr": np.zeros(len(lengths), np.float32)})
        assert str(plan).split("\n", 1)[1] + "\n" == text
        assert "300 segments" in text and "4 x 256 threads" in text
