"""Malformed kernels: each must raise sw.CompileError pointing at the exact
line and column of the offending construct in THIS file.

Every kernel below marks its offending line with a trailing comment
``# error at col N: words``. The test finds that line by reading this file
(independently of the compiler and of inspect), so the asserted line is the
real file line and the column is the one written in the marker; the words
must appear in the error message.
"""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing


def expected_location(kernel):
    """(line, col, words) from the marker comment inside the kernel's def."""
    return swage_testing.expected_location(kernel, __file__)


def compile_for_test(kernel, signature, constexprs=None):
    kernel.emit_mlir(signature=signature, constexprs=constexprs or {}, stage="source")


PTRS = {"x_ptr": "*f32", "out_ptr": "*f32", "n": "i32"}
BLOCK = {"BLOCK": 64}


# ---- statements that are not supported ---------------------------------------------------

@sw.jit
def k_while(x_ptr, out_ptr, n):
    i = n
    while sl.arange(0, 4) > i:  # error at col 11: condition of 'while', scalar
        i = i - 1


@sw.jit
def k_break(x_ptr, out_ptr, n):
    for i in sl.static_range(4):
        break  # error at col 9: break, static_range


@sw.jit
def k_continue(x_ptr, out_ptr, n):
    for i in sl.static_range(4):
        continue  # error at col 9: continue, static_range


@sw.jit
def k_lambda(x_ptr, out_ptr, n):
    f = lambda v: v + 1  # error at col 9: lambda


@sw.jit
def k_nested_def(x_ptr, out_ptr, n):
    def helper(v):  # error at col 5: nested
        return v


@sw.jit
def k_attribute_assignment(x_ptr, out_ptr, n):
    x_ptr.offset = n  # error at col 5: attribute


@sw.jit
def k_tuple_unpacking(x_ptr, out_ptr, n):
    a, b = n, n, n  # error at col 12: cannot unpack a tuple of 3 values into 2 names


@sw.jit
def k_return_value(x_ptr, out_ptr, n):
    v = sl.load(x_ptr)
    return v  # error at col 12: kernel cannot return a value


@sw.jit
def k_return_inside_if(x_ptr, out_ptr, n):
    for i in range(n):
        return  # error at col 9: return, inside a for loop
    sl.store(out_ptr, 1.0)


@sw.jit
def k_subscript(x_ptr, out_ptr, n):
    v = x_ptr[0]  # error at col 14: subscript


@sw.jit
def k_with(x_ptr, out_ptr, n):
    with n:  # error at col 5: with
        pass


@sw.jit
def k_try(x_ptr, out_ptr, n):
    try:  # error at col 5: try
        pass
    except Exception:
        pass


@sw.jit
def k_class(x_ptr, out_ptr, n):
    class Inner:  # error at col 5: class
        pass


@sw.jit
def k_comprehension(x_ptr, out_ptr, n):
    values = [i for i in range(4)]  # error at col 17: comprehension


@sw.jit
def k_string(x_ptr, out_ptr, n):
    """A docstring is fine."""
    label = "text" - 1  # error at col 13: the string 'text', compile-time values


@sw.jit
def k_python_call(x_ptr, out_ptr, n):
    print(n)  # error at col 5: print


@sw.jit
def k_import(x_ptr, out_ptr, n):
    import math  # error at col 5: import


@sw.jit
def k_global(x_ptr, out_ptr, n):
    global BLOCK  # error at col 5: global


@sw.jit
def k_assert(x_ptr, out_ptr, n):
    assert n > 0  # error at col 5: assert


@sw.jit
def k_power(x_ptr, out_ptr, n):
    v = sl.load(x_ptr)
    w = v ** n  # error at col 9: **


@sw.jit
def k_walrus(x_ptr, out_ptr, n):
    if (m := n) > 0:  # error at col 11: :=
        pass


# ---- names and built-ins -------------------------------------------------------------------

@sw.jit
def k_unknown_builtin(x_ptr, out_ptr, n):
    v = sl.load(x_ptr)
    w = sl.lgamma(v)  # error at col 9: sl.lgamma


@sw.jit
def k_unknown_name(x_ptr, out_ptr, n):
    v = n + undefined_thing  # error at col 13: undefined_thing


@sw.jit
def k_builtin_argument_count(x_ptr, out_ptr, n):
    v = sl.load(x_ptr)
    w = sl.exp(v, v)  # error at col 19: exp


@sw.jit
def k_builtin_missing_argument(x_ptr, out_ptr, n):
    sl.store(out_ptr)  # error at col 5: store


@sw.jit
def k_builtin_unknown_keyword(x_ptr, out_ptr, n):
    v = sl.load(x_ptr, mask=n > 0, fill=1.0)  # error at col 36: fill


@sw.jit
def k_dtype_called(x_ptr, out_ptr, n):
    v = sl.float32(n)  # error at col 9: cast


@sw.jit
def k_unknown_method(x_ptr, out_ptr, BLOCK: sl.constexpr):
    v = sl.load(x_ptr + sl.arange(0, BLOCK))
    s = v.softmax()  # error at col 9: .softmax


@sw.jit
def k_program_id_axis(x_ptr, out_ptr, n):
    pid = sl.program_id(3)  # error at col 25: axis


# ---- types and shapes ----------------------------------------------------------------------

@sw.jit
def k_store_pointers(x_ptr, out_ptr, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    v = sl.load(x_ptr + offs)
    sl.store(out_ptr + offs, x_ptr + offs)  # error at col 30: cannot store pointers


@sw.jit
def k_shape_mismatch(x_ptr, out_ptr, BLOCK: sl.constexpr):
    a = sl.load(x_ptr + sl.arange(0, BLOCK))
    b = sl.load(x_ptr + sl.arange(0, 2 * BLOCK))
    sl.store(out_ptr + sl.arange(0, BLOCK), a + b)  # error at col 45: shape mismatch


@sw.jit
def k_arange_runtime_bound(x_ptr, out_ptr, n):
    offs = sl.arange(0, n)  # error at col 25: constexpr


@sw.jit
def k_arange_not_power_of_two(x_ptr, out_ptr, n):
    offs = sl.arange(0, 100)  # error at col 12: power of two


@sw.jit
def k_missing_constexpr_annotation(x_ptr, out_ptr, BLOCK):
    offs = sl.arange(0, BLOCK)  # error at col 25: constexpr


@sw.jit
def k_bitwise_on_float(x_ptr, out_ptr, n):
    v = sl.load(x_ptr)
    w = v & n  # error at col 9: integer


@sw.jit
def k_if_on_tile(x_ptr, out_ptr, BLOCK: sl.constexpr):
    v = sl.load(x_ptr + sl.arange(0, BLOCK))
    if v > 0:  # error at col 8: scalar
        pass


@sw.jit
def k_store_to_scalar(x_ptr, out_ptr, n):
    sl.store(n, 1)  # error at col 14: pointer


@sw.jit
def k_pointer_plus_float(x_ptr, out_ptr, n):
    v = sl.load(x_ptr + 1.5)  # error at col 17: integer


@sw.jit
def k_range_float_bound(x_ptr, out_ptr, n):
    for i in range(0, 2.5):  # error at col 23: integer
        pass


@sw.jit
def k_for_over_pointer(x_ptr, out_ptr, n):
    for v in x_ptr:  # error at col 14: range
        pass


# ---- control flow and variables ---------------------------------------------------------------

@sw.jit
def k_defined_in_one_branch(x_ptr, out_ptr, n):
    if n > 0:
        v = sl.load(x_ptr)
    sl.store(out_ptr, v)  # error at col 23: v


@sw.jit
def k_branch_type_mismatch(x_ptr, out_ptr, n):
    if n > 0:  # error at col 5: v
        v = sl.load(x_ptr)
    else:
        v = n + 1
    sl.store(out_ptr, v)


@sw.jit
def k_loop_carried_type_change(x_ptr, out_ptr, n):
    acc = n + 0
    for i in range(n):  # error at col 5: acc
        acc = acc * 0.5
    sl.store(out_ptr, acc)


@sw.jit
def k_runtime_default(x_ptr, out_ptr, n=4):  # error at col 41: default
    pass


# ---- the tests --------------------------------------------------------------------------------

CASES = [
    (k_while, PTRS, None), (k_break, PTRS, None), (k_continue, PTRS, None),
    (k_lambda, PTRS, None), (k_nested_def, PTRS, None), (k_attribute_assignment, PTRS, None),
    (k_tuple_unpacking, PTRS, None), (k_return_value, PTRS, None),
    (k_return_inside_if, PTRS, None), (k_subscript, PTRS, None), (k_with, PTRS, None),
    (k_try, PTRS, None), (k_class, PTRS, None), (k_comprehension, PTRS, None),
    (k_string, PTRS, None), (k_python_call, PTRS, None), (k_import, PTRS, None),
    (k_global, PTRS, None), (k_assert, PTRS, None), (k_power, PTRS, None),
    (k_walrus, PTRS, None), (k_unknown_builtin, PTRS, None), (k_unknown_name, PTRS, None),
    (k_builtin_argument_count, PTRS, None), (k_builtin_missing_argument, PTRS, None),
    (k_builtin_unknown_keyword, PTRS, None), (k_dtype_called, PTRS, None),
    (k_unknown_method, {"x_ptr": "*f32", "out_ptr": "*f32"}, BLOCK),
    (k_program_id_axis, PTRS, None),
    (k_store_pointers, {"x_ptr": "*f32", "out_ptr": "*i32"}, BLOCK),
    (k_shape_mismatch, {"x_ptr": "*f32", "out_ptr": "*f32"}, BLOCK),
    (k_arange_runtime_bound, PTRS, None), (k_arange_not_power_of_two, PTRS, None),
    (k_missing_constexpr_annotation, {"x_ptr": "*f32", "out_ptr": "*f32", "BLOCK": "i32"},
     None),
    (k_bitwise_on_float, PTRS, None),
    (k_if_on_tile, {"x_ptr": "*f32", "out_ptr": "*f32"}, BLOCK),
    (k_store_to_scalar, PTRS, None), (k_pointer_plus_float, PTRS, None),
    (k_range_float_bound, PTRS, None), (k_for_over_pointer, PTRS, None),
    (k_defined_in_one_branch, PTRS, None), (k_branch_type_mismatch, PTRS, None),
    (k_loop_carried_type_change, PTRS, None), (k_runtime_default, PTRS, None),
]


@pytest.mark.parametrize("kernel, signature, constexprs", CASES,
                         ids=[case[0].__name__ for case in CASES])
def test_compile_error_location(kernel, signature, constexprs):
    line, col, words = expected_location(kernel)
    with pytest.raises(sw.CompileError) as info:
        compile_for_test(kernel, signature, constexprs)
    error = info.value
    assert (error.filename, error.lineno, error.col) == (__file__, line, col), str(error)
    for word in words.split(", "):
        assert word.lower() in error.message.lower(), str(error)
    # the rendered text: file:line:col, the source line and a caret under the column
    rendered = str(error)
    assert rendered.startswith("%s:%d:%d: error: " % (__file__, line, col)), rendered
    with open(__file__) as f:
        source_line = f.read().split("\n")[line - 1]
    text_lines = rendered.split("\n")
    at = next(i for i, t in enumerate(text_lines) if t.strip() == source_line.strip())
    caret = text_lines[at + 1]
    offset = text_lines[at].index(source_line.strip()) - source_line.index(source_line.strip())
    assert caret.rstrip().endswith("^") and len(caret.rstrip()) - 1 - offset == col - 1, rendered


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


def test_compile_error_from_launch_carries_the_same_location():
    line, col, _ = expected_location(k_store_pointers)
    x = np.zeros(64, np.float32)
    out = np.zeros(64, np.int32)
    with pytest.raises(sw.CompileError) as info:
        k_store_pointers.launch(arguments={"x_ptr": x, "out_ptr": out},
                                constexprs={"BLOCK": 64}, grid=(1,))
    assert (info.value.lineno, info.value.col) == (line, col)


def test_kernel_defined_inside_a_function_reports_real_lines():
    # The source of a nested kernel is indented; diagnostics still use this file's lines.
    def make():
        @sw.jit
        def nested_bad(x_ptr, n):
            with n:  # error at col 13: with
                pass
        return nested_bad

    kernel = make()
    with open(__file__) as f:
        lines = f.read().split("\n")
    line = next(i for i, t in enumerate(lines) if "with n:  # error at col 13" in t) + 1
    with pytest.raises(sw.CompileError) as info:
        kernel.emit_mlir(signature={"x_ptr": "*f32", "n": "i32"})
    assert (info.value.filename, info.value.lineno, info.value.col) == (__file__, line, 13)


def test_compile_error_is_an_exception_with_attributes():
    with pytest.raises(sw.CompileError) as info:
        compile_for_test(k_while, PTRS)
    error = info.value
    assert isinstance(error, Exception)
    assert error.message and error.message in str(error)
    assert error.filename == __file__
