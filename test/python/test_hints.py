"""The errors a newcomer meets first, and the hints in them: the exception's
name, the nearest real name for a misspelt sl. built-in, keyword, variable
or parameter, how to launch a segment program (no grid), and which
arguments a store's mismatched dtypes come from."""

import traceback

import numpy as np
import pytest

import swage as sw
import swage.language as sl


def _compile_error(kernel, signature, constexprs=None):
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature=signature, constexprs=constexprs or {}, stage="source")
    return info.value


# ---- the exception ------------------------------------------------------------------------

@sw.jit
def k_typo_builtin(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segmnet(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(segment)))


SEGMENT_SIGNATURE = {"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}


def test_compile_error_is_named_swage_compile_error():
    assert sw.CompileError.__module__ == "swage"
    assert repr(sw.CompileError) == "<class 'swage.CompileError'>"
    error = _compile_error(k_typo_builtin, SEGMENT_SIGNATURE)
    last = traceback.format_exception_only(type(error), error)[-1]
    assert last.startswith("swage.CompileError: "), last


# ---- misspelt names in a kernel -----------------------------------------------------------

def test_misspelt_builtin_suggests_the_real_one():
    error = _compile_error(k_typo_builtin, SEGMENT_SIGNATURE)
    assert "'sl.segmnet' is not a Swage built-in; did you mean 'sl.segment'?" in error.message


@sw.jit
def k_typo_dtype(x_ptr, n):
    sl.store(x_ptr, sl.sum(sl.zeros(4, sl.flaot32)))


@sw.jit
def k_bare_dtype(x_ptr, n):
    sl.store(x_ptr, sl.sum(sl.zeros(4, float32)))  # noqa: F821 - the error under test


@sw.jit
def k_unknown_builtin(x_ptr, n):
    sl.frobnicate(x_ptr)


@sw.jit
def k_typo_keyword(x_ptr, n):
    x = sl.load(x_ptr, msk=n > 0)
    sl.store(x_ptr, x)


@sw.jit
def k_typo_variable(x_ptr, n):
    values = sl.load(x_ptr)
    sl.store(x_ptr, valeus)  # noqa: F821 - the error under test


@pytest.mark.parametrize("kernel, words", [
    (k_typo_dtype, "'sl.flaot32' is not a Swage built-in; did you mean 'sl.float32'?"),
    (k_bare_dtype, "name 'float32' is not defined; did you mean 'sl.float32'?"),
    (k_typo_keyword, "sl.load has no parameter named 'msk'; did you mean 'mask'? "
                     "(its parameters: pointer, mask, other, cache_modifier, eviction_policy)"),
    (k_typo_variable, "name 'valeus' is not defined; did you mean 'values'?"),
])
def test_misspelt_names_suggest_the_nearest(kernel, words):
    error = _compile_error(kernel, {"x_ptr": "*f32", "n": "i32"})
    assert words in error.message, error.message


def test_a_name_far_from_every_builtin_gets_no_guess():
    error = _compile_error(k_unknown_builtin, {"x_ptr": "*f32", "n": "i32"})
    assert "'sl.frobnicate' is not a Swage built-in" in error.message
    assert "did you mean" not in error.message
    assert "docs/language.md" in error.message


# ---- misspelt parameter names at launch -----------------------------------------------------

@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask)
    y = sl.load(y_ptr + offsets, mask=mask)
    sl.store(output_ptr + offsets, x + y, mask=mask)


PARAMETERS = "(its parameters: x_ptr, y_ptr, output_ptr, n, BLOCK)"


def _vectors():
    x = np.ones(16, np.float32)
    return {"x_ptr": x, "y_ptr": x.copy(), "output_ptr": np.empty_like(x), "n": 16}


def test_misspelt_argument_suggests_the_parameter():
    arguments = _vectors()
    arguments["xptr"] = arguments.pop("x_ptr")
    with pytest.raises(TypeError) as info:
        add_kernel.launch(arguments=arguments, constexprs={"BLOCK": 16}, grid=(1,))
    assert str(info.value) == ("add_kernel has no parameter 'xptr'; did you mean 'x_ptr'? "
                               + PARAMETERS)


def test_misspelt_constexpr_suggests_the_parameter():
    with pytest.raises(TypeError) as info:
        add_kernel.launch(arguments=_vectors(), constexprs={"BLOK": 16}, grid=(1,))
    assert str(info.value) == ("add_kernel has no parameter 'BLOK'; did you mean 'BLOCK'? "
                               + PARAMETERS)


def test_a_name_far_from_every_parameter_lists_them():
    with pytest.raises(TypeError) as info:
        add_kernel.emit_mlir(signature={"zzz": "*f32"}, constexprs={"BLOCK": 16})
    assert str(info.value) == "add_kernel has no parameter 'zzz' " + PARAMETERS


def test_misspelt_name_in_a_signature_string_suggests_the_parameter():
    with pytest.raises(ValueError) as info:
        add_kernel.emit_mlir(signature="xptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32",
                             constexprs={"BLOCK": 16})
    assert ("the signature names 'xptr', which is not a parameter of 'add_kernel'; did you "
            "mean 'x_ptr'? " + PARAMETERS) in str(info.value)


# ---- launching: a segment program takes no grid ---------------------------------------------

@sw.jit
def segment_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(segment)))


def test_direct_call_of_a_segment_program_says_leave_grid_out():
    with pytest.raises(TypeError) as info:
        segment_sum(1, 2, 3)
    text = str(info.value)
    assert "segment_sum.launch(arguments={...}) and leave grid out" in text
    assert "grid=(" not in text


def test_positional_launch_of_a_segment_program_says_leave_grid_out():
    with pytest.raises(TypeError) as info:
        segment_sum.launch(1, 2, 3)
    assert "keyword arguments only" in str(info.value)
    assert "leave grid out" in str(info.value) and "grid=(" not in str(info.value)
    with pytest.raises(TypeError) as info:
        segment_sum.launch()
    assert "needs arguments={...}" in str(info.value) and "leave grid out" in str(info.value)


def test_the_grid_error_of_a_segment_program_agrees():
    values = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="leave grid out"):
        segment_sum.launch(arguments={"values_ptr": values,
                                      "offsets_ptr": np.array([0, 4], np.int32),
                                      "out_ptr": np.zeros(1, np.float32)}, grid=(1,))


def test_grid_programs_keep_their_grid_in_the_hints():
    with pytest.raises(TypeError) as info:
        add_kernel.launch(1)
    assert "add_kernel.launch(arguments={...}, constexprs={...}, grid=(...))" in str(info.value)


# ---- a store whose dtypes come from the arguments ------------------------------------------

@sw.jit
def tile_double(x_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offsets, mask=offsets < n)
    sl.store(out_ptr + offsets, x * 2, mask=offsets < n)


@sw.jit
def segment_fill(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    sl.store_segment(out_ptr, sl.segment(values_ptr, offsets_ptr, sid), 1.5)


@sw.jit
def segment_double(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store_segment(out_ptr, segment, sl.load_segment(segment) * 2)


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_a_store_converts_to_the_pointee_as_tritons(executor):
    """sl.store converts its value to the pointee's dtype as .to() does (as
    Triton's store does): float16 into float32 exactly, float32 into an
    integer truncating toward zero and saturating, NaN to 0."""
    x = np.array([1.5, -2.75, 3e4, -7.0] * 4, np.float16)
    out = np.zeros(16, np.float32)
    tile_double.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 16}, constexprs={"BLOCK": 16},
                       grid=(1,), executor=executor)
    np.testing.assert_array_equal(out, (x * np.float16(2)).astype(np.float32))
    y = np.array([1.75, -1.75, np.nan, 1e10, -1e10, 0.25, -0.0, 127.9] * 2, np.float32)
    with np.errstate(over="ignore"):
        halves = list((y[:8] * 2).astype(np.float16))  # 2e10 -> inf
    for dtype, expected in ((np.int32, [3, -3, 0, 2147483647, -2147483648, 0, 0, 255]),
                            (np.uint8, [3, 0, 0, 255, 0, 0, 0, 255]),
                            (np.float16, halves)):
        out = np.zeros(16, dtype)
        tile_double.launch(arguments={"x_ptr": y, "out_ptr": out, "n": 16},
                           constexprs={"BLOCK": 16}, grid=(1,), executor=executor)
        np.testing.assert_array_equal(out, np.array(expected * 2, dtype), err_msg=dtype.__name__)


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_a_segment_store_converts_too(executor):
    """A float16 sum (computed in float32) stores rounded into a float16
    output; int32 segment values store into float16."""
    values = np.array([0.1, 0.2, 0.3, 1000.5, 0.25, 3.0, 4.0, 5.0], np.float16)
    offsets = np.array([0, 3, 8], np.int32)
    out = np.zeros(2, np.float16)
    segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out},
                       executor=executor)
    sums = [values[:3].astype(np.float32).sum(), values[3:].astype(np.float32).sum()]
    np.testing.assert_array_equal(out, np.array(sums, np.float32).astype(np.float16))
    ints = np.array([1, -2, 3, 40000, 5], np.int32)
    halves = np.zeros(5, np.float16)
    segment_double.launch(arguments={"values_ptr": ints, "offsets_ptr": np.array([0, 2, 5], np.int64),
                                     "out_ptr": halves}, executor=executor)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(halves, (ints * 2).astype(np.float16))  # 80000 -> inf
    # a float literal into an integer pointee converts too (1.5 -> 1)
    offsets_out = np.zeros(8, np.int32)
    segment_fill.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                   "out_ptr": offsets_out}, executor=executor)
    np.testing.assert_array_equal(offsets_out, np.ones(8, np.int32))
