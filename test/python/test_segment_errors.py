"""Malformed segment programs (docs/segments.md): each must raise
sw.CompileError at the exact line and column of the offending construct in
THIS file, with a sentence that names it. Compilation runs through
kernel.emit_mlir(signature=...), so no runtime or PyTorch is needed.

Every kernel marks its offending line with a trailing comment
``# error at col N: words``; the test finds the line by reading this file,
and every comma-separated word must appear in the message. The last tests
check that the well-formed segment programs next to them compile, with
their stages.
"""

import re

import pytest

import swage as sw
import swage.language as sl
import swage_testing


def expected_location(kernel):
    """(line, col, words) from the marker comment inside the kernel's def."""
    return swage_testing.expected_location(kernel, __file__)


SEG = {"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32", "n": "i32"}


# ---- views: one offsets pointer, one segment id ---------------------------------------

@sw.jit
def k_two_offsets(values_ptr, offsets_ptr, other_offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    a = sl.segment(values_ptr, offsets_ptr, sid)
    b = sl.segment(out_ptr, other_offsets_ptr, sid)  # error at col 29: other offsets, line 35
    sl.store_segment(out_ptr, b, sl.load_segment(a))


@sw.jit
def k_sid_plus_one(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    a = sl.segment(values_ptr, offsets_ptr, sid + 1)  # error at col 45: segment id, sl.segment_id(0)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(a)))


@sw.jit
def k_sid_constant(values_ptr, offsets_ptr, out_ptr, n):
    a = sl.segment(values_ptr, offsets_ptr, 0)  # error at col 45: segment id, one segment
    sl.store(out_ptr, sl.sum(sl.load_segment(a)))


@sw.jit
def k_values_not_pointer(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    a = sl.segment(n, offsets_ptr, sid)  # error at col 20: values, pointer, int32


@sw.jit
def k_float_offsets(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    a = sl.segment(values_ptr, offsets_ptr, sid)  # error at col 32: offsets, int32 or int64, float32


@sw.jit
def k_scalar_offsets(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    a = sl.segment(values_ptr, n, sid)  # error at col 32: offsets, pointer


@sw.jit
def k_missing_sid(values_ptr, offsets_ptr, out_ptr, n):
    a = sl.segment(values_ptr, offsets_ptr)  # error at col 9: missing, sid


# ---- segment program or grid program -------------------------------------------------

@sw.jit
def k_segment_id_axis(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(1)  # error at col 25: axis 0


@sw.jit
def k_program_id_in_segment_program(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    pid = sl.program_id(0)  # error at col 11: sl.program_id, segment program, line 85


@sw.jit
def k_segment_id_in_grid_program(values_ptr, offsets_ptr, out_ptr, n):
    pid = sl.num_programs(0)
    sid = sl.segment_id(0)  # error at col 11: sl.segment_id, sl.num_programs, line 91, grid program


# ---- segment values stay at the top level --------------------------------------------

@sw.jit
def k_load_segment_in_for(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    for i in range(n):
        x = sl.load_segment(seg)  # error at col 13: inside the for loop at line 101, top level


@sw.jit
def k_reduce_in_for(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    total = 0.0
    for i in range(n):
        total = total + sl.sum(x)  # error at col 25: inside the for loop at line 110
    sl.store(out_ptr + sid, total)


@sw.jit
def k_segment_in_runtime_if(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(seg)
    if n > 0:
        sl.store_segment(out_ptr, seg, x * 2.0)  # error at col 40: inside the if with a runtime condition at line 120


@sw.jit
def k_segment_carried_by_loop(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(seg)
    for i in range(n):  # error at col 5: variable 'x', segment value, for loop
        x = x * 2.0
    sl.store_segment(out_ptr, seg, x)


@sw.jit
def k_segment_chosen_by_if(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(seg)
    y = x + 1.0
    if n > 0:  # error at col 5: variable 'z', segment value, sl.where
        z = x
    else:
        z = y
    sl.store_segment(out_ptr, seg, z)


@sw.jit
def k_segment_value_as_condition(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    if x > 0.0:  # error at col 8: condition, segment value, sl.where
        sl.store(out_ptr, 1.0)


@sw.jit
def k_segment_value_as_loop_bound(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    for i in range(x):  # error at col 20: range() bounds, segment value of int32
        pass


# ---- segment values meet only elementwise ops, reductions and store_segment ---------

@sw.jit
def k_store_of_segment_value(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    sl.store(out_ptr + sid, x)  # error at col 29: use sl.store_segment


@sw.jit
def k_segment_with_tile(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(seg)
    y = x + sl.arange(0, 64)  # error at col 9: segment value, tile
    sl.store_segment(out_ptr, seg, y)


@sw.jit
def k_where_segment_and_tile(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(seg)
    y = sl.where(x > 0.0, x, sl.zeros(64, sl.float32))  # error at col 9: segment value, tile


@sw.jit
def k_gather_by_segment_value(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(offsets_ptr, offsets_ptr, sid)
    idx = sl.load_segment(seg)
    v = sl.load(values_ptr + idx)  # error at col 17: pointer, segment value, gathers


@sw.jit
def k_segment_value_as_mask(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    v = sl.load(out_ptr + sid, mask=x > 0.0)  # error at col 37: mask, segment value


@sw.jit
def k_store_segment_of_tile(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store_segment(out_ptr, seg, sl.zeros(64, sl.float32))  # error at col 36: store_segment, tile of 64


# ---- views are read only by the segment built-ins ------------------------------------

@sw.jit
def k_load_segment_of_pointer(values_ptr, offsets_ptr, out_ptr, n):
    x = sl.load_segment(values_ptr)  # error at col 25: segment view, pointer to float32


@sw.jit
def k_sl_load_of_view(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load(seg)  # error at col 17: segment view, sl.load_segment


@sw.jit
def k_view_arithmetic(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    y = seg * 2.0  # error at col 9: segment view, sl.load_segment


@sw.jit
def k_reduce_view(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    seg = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, sl.sum(seg))  # error at col 36: segment view, sl.load_segment


@sw.jit
def k_length_of_value(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    m = sl.segment_length(x)  # error at col 27: segment view, segment value of float32


@sw.jit
def k_view_in_for(values_ptr, offsets_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    for i in range(n):
        seg = sl.segment(values_ptr, offsets_ptr, sid)  # error at col 15: inside the for loop


CASES = [
    (k_two_offsets, {"values_ptr": "*f32", "offsets_ptr": "*i32", "other_offsets_ptr": "*i32",
                     "out_ptr": "*f32"}),
    (k_sid_plus_one, SEG), (k_sid_constant, SEG), (k_values_not_pointer, SEG),
    (k_scalar_offsets, SEG),
    (k_missing_sid, SEG), (k_segment_id_axis, SEG), (k_program_id_in_segment_program, SEG),
    (k_segment_id_in_grid_program, SEG), (k_load_segment_in_for, SEG), (k_reduce_in_for, SEG),
    (k_segment_in_runtime_if, SEG), (k_segment_carried_by_loop, SEG),
    (k_segment_chosen_by_if, SEG), (k_segment_value_as_condition, SEG),
    (k_segment_value_as_loop_bound, dict(SEG, values_ptr="*i32")),
    (k_store_of_segment_value, SEG), (k_segment_with_tile, SEG), (k_where_segment_and_tile, SEG),
    (k_gather_by_segment_value, SEG), (k_segment_value_as_mask, SEG),
    (k_store_segment_of_tile, SEG), (k_load_segment_of_pointer, SEG),
    (k_sl_load_of_view, SEG), (k_view_arithmetic, SEG), (k_reduce_view, SEG),
    (k_length_of_value, SEG), (k_view_in_for, SEG),
]


@pytest.mark.parametrize("kernel, signature", CASES, ids=[case[0].__name__ for case in CASES])
def test_segment_compile_error_location(kernel, signature):
    line, col, words = expected_location(kernel)
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature=signature)
    error = info.value
    assert (error.filename, error.lineno, error.col) == (__file__, line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)
    rendered = str(error)
    assert rendered.startswith("%s:%d:%d: error: " % (__file__, line, col)), rendered


def test_float_offsets_argument_is_a_value_error_naming_it():
    # The kernel is well formed; the caller's offsets array is not (a bad
    # argument is a TypeError/ValueError that names it, docs/segments.md).
    line, col, _ = expected_location(k_float_offsets)
    with pytest.raises(ValueError) as info:
        k_float_offsets.emit_mlir(signature=dict(SEG, offsets_ptr="*f32"))
    text = str(info.value)
    assert "argument 'offsets_ptr'" in text and "int32 or int64" in text and "float32" in text
    assert text.startswith("%s:%d:%d: error: " % (__file__, line, col)), text
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="argument 'offsets_ptr'"):
        k_float_offsets.launch(arguments={"values_ptr": np.ones(4, np.float32),
                                          "offsets_ptr": np.array([0, 2, 4], np.float32),
                                          "out_ptr": np.zeros(2, np.float32), "n": 2})


def test_there_are_at_least_twenty_cases():
    assert len(CASES) >= 20


# ---- the well-formed neighbours compile ------------------------------------------------

@sw.jit
def k_softmax(values_ptr, offsets_ptr, output_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    x = sl.load_segment(segment)
    maximum = sl.max(x)
    numerator = sl.exp(x - maximum)
    denominator = sl.sum(numerator)
    sl.store_segment(output_ptr, segment, numerator / denominator)


@sw.jit
def k_zipped_mean(values_ptr, weights_ptr, offsets_ptr, scale_ptr, out_ptr, flags_ptr, n):
    sid = sl.segment_id(0)
    values = sl.segment(values_ptr, offsets_ptr, sid)
    weights = sl.segment(weights_ptr, offsets_ptr, sid)
    sid_again = sl.segment_id(0)
    x = sl.load_segment(values) * sl.load_segment(weights) * sl.load(scale_ptr + sid_again)
    length = sl.segment_length(values)
    for i in sl.static_range(2):
        x = x + i
    total = sl.sum(sl.where(x > 0, x, 0.0))
    if length > 0:
        sl.store(out_ptr + sid, total / length)
    sl.store_segment(flags_ptr, values, x > n)


def test_softmax_compiles_to_three_stages():
    text = k_softmax.emit_mlir(signature={"values_ptr": "*f32", "offsets_ptr": "*i32",
                                          "output_ptr": "*f32"})
    assert "attributes {sw.stages = 3 : i32}" in text
    assert text.count('"sw.reduce"') == 2 and '"sw.store_segment"' in text
    stages = [int(s) for s in re.findall(r"stage = (\d+) : i32", text)]
    assert max(stages) == 2


def test_half_precision_segments_compute_in_float32():
    text = k_softmax.emit_mlir(signature={"values_ptr": "*f16", "offsets_ptr": "*i64",
                                          "output_ptr": "*bf16"})
    assert "(!sw.segment<f16>) -> tensor<?xf16>" in text
    assert "(tensor<?xf16>) -> tensor<?xf32>" in text            # the load converts
    assert "(tensor<?xf32>) -> tensor<?xbf16>" in text           # the store rounds back
    assert "(tensor<?xf32>) -> f32" in text                      # reductions in float32


def test_zipped_views_share_one_segment_id_and_compile():
    text = k_zipped_mean.emit_mlir(signature={
        "values_ptr": "*f32", "weights_ptr": "*f16", "offsets_ptr": "*i64", "scale_ptr": "*f32",
        "out_ptr": "*f32", "flags_ptr": "*i1", "n": "f32"}, stage="source")
    assert text.count('"sw.segment_id"') == 1
    assert text.count('"sw.segment"(') == 2
    assert '"sw.segment_length"' in text and "-> i64" in text
