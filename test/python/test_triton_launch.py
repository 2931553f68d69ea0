"""Triton's launch form, kernel[grid](*args, **kwargs) (docs/api.md): the
same launch as launch(arguments=..., constexprs=..., grid=...), with
Triton's argument binding, its grid functions and its launch options
(num_warps, num_stages, num_ctas), and @sw.jit's Triton options
(do_not_specialize, debug). CPU executors; the GPU route with the driver
calls recorded, and through the real library against the fake driver."""

import sys

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage import _native
from kernels.vector_add import add_kernel
from swage_testing import assert_same, run_with_fake_driver


@sw.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: sl.constexpr = 64, SHIFT: sl.constexpr = 0):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * factor + SHIFT, mask=mask)


@sw.jit
def interleaved_kernel(x_ptr, BLOCK: sl.constexpr, out_ptr, n):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask), mask=mask)


@sw.jit
def grid_2d_kernel(out_ptr, WIDTH: sl.constexpr):
    row = sl.program_id(0)
    column = sl.program_id(1)
    sl.store(out_ptr + row * WIDTH + column, (row * 10 + column).to(sl.float32))


@sw.jit
def option_named_kernel(x_ptr, out_ptr, executor, num_warps: sl.constexpr):
    offsets = sl.arange(0, num_warps)
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets) + executor)


@sw.jit
def no_params_kernel():
    pass


@sw.jit
def segment_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(segment)))


def vectors(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    return x, y, np.full(n, np.nan, np.float32)


def cdiv(a, b):
    return (a + b - 1) // b


def test_cdiv_on_the_host_as_tritons():
    """sl.cdiv (and sw.cdiv, as triton.cdiv) compute on host ints, for grid
    functions; anything else is kernel code only."""
    for a in range(-5, 40):
        for b in (1, 2, 3, 16):
            assert sl.cdiv(a, b) == sw.cdiv(a, b) == cdiv(a, b)
    with pytest.raises(RuntimeError, match="inside a @sw.jit kernel"):
        sl.cdiv(1.5, 2)


ADD_CALL = "add_kernel[grid](x_ptr, y_ptr, output_ptr, n, BLOCK=...)"
ADD_PARAMETERS = "(its parameters: x_ptr, y_ptr, output_ptr, n, BLOCK"
OPTIONS = "launch options: num_warps, num_stages, num_ctas, schedule, unsafe, executor)"


# ---- grids ---------------------------------------------------------------------------------

@pytest.mark.parametrize("executor", ["semantic", "simt"])
@pytest.mark.parametrize("grid", [(8,), [8], 8, np.int64(8), (8, 1), (8, 1, 1),
                                  lambda meta: (cdiv(meta["n"], meta["BLOCK"]),),
                                  lambda meta: (sl.cdiv(meta["n"], meta["BLOCK"]),)])
def test_tuple_and_callable_grids(grid, executor):
    x, y, out = vectors()
    add_kernel[grid](x, y, out, x.size, BLOCK=128, executor=executor)
    assert_same(out, x + y)


def test_a_grid_function_gets_the_meta_parameters_as_triton_gives_them():
    x, _, out = vectors(100)
    seen = []

    def grid(meta):
        seen.append(meta)
        meta["BLOCK"] = 1  # the function's own dict: changing it changes nothing
        return (2,)

    scale_kernel[grid](x, out, 100, 2.0, BLOCK=64, num_warps=2, num_stages=3)
    # every parameter, defaults included, in order, then the launch options given
    assert seen == [{"x_ptr": x, "out_ptr": out, "n": 100, "factor": 2.0, "BLOCK": 1,
                     "SHIFT": 0, "num_warps": 2, "num_stages": 3}]
    assert list(seen[0]) == ["x_ptr", "out_ptr", "n", "factor", "BLOCK", "SHIFT", "num_warps",
                             "num_stages"]
    assert_same(out, x * 2)  # BLOCK stayed 64: two programs cover 100 elements
    grid_2d = np.full((3, 4), -1, np.float32)
    grid_2d_kernel[lambda meta: (3, meta["WIDTH"])](grid_2d, WIDTH=4)
    assert_same(grid_2d, np.add.outer(np.arange(3) * 10, np.arange(4)).astype(np.float32))


def test_the_grid_of_a_bracket_is_used_at_each_call():
    x, y, out = vectors(256)
    launch = add_kernel[(1,)]
    assert repr(launch) == "<swage launch of add_kernel over grid (1,)>"
    launch(x, y, out, 256, BLOCK=128)  # one program: the first 128 elements
    assert_same(out[:128], x[:128] + y[:128])
    assert np.isnan(out[128:]).all()
    launch(x, y, out, 256, BLOCK=256)
    assert_same(out, x + y)


def test_a_zero_grid_runs_nothing():
    x, y, out = vectors(10)
    add_kernel[(0,)](x, y, out, 10, BLOCK=16)
    add_kernel[lambda meta: (0, 3)](x, y, out, 10, BLOCK=16)
    assert np.isnan(out).all()


# ---- binding ---------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((), {"x_ptr": "x", "y_ptr": "y", "output_ptr": "out", "n": "n", "BLOCK": 128}),
    (("x", "y", "out", "n", 128), {}),                      # the constexpr by position
    (("x", "y", "out", "n"), {"BLOCK": 128}),               # ... and by name
    (("x", "y"), {"n": "n", "output_ptr": "out", "BLOCK": 128}),
    (("x",), {"BLOCK": 128, "n": "n", "output_ptr": "out", "y_ptr": "y", "num_warps": 4}),
])
def test_positional_and_keyword_binding(args, kwargs):
    x, y, out = vectors(300)
    values = {"x": x, "y": y, "out": out, "n": 300}
    args = [values.get(a, a) if isinstance(a, str) else a for a in args]
    kwargs = {k: values.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    add_kernel[(3,)](*args, **kwargs)
    assert_same(out, x + y)


def test_constexprs_and_defaults_bind_like_runtime_parameters():
    x, _, out = vectors(100)
    scale_kernel[(2,)](x, out, 100, 2.0)                     # BLOCK and SHIFT default
    assert_same(out, x * 2)
    scale_kernel[(4,)](x, out, 100, 3.0, 32, 1)              # all by position
    assert_same(out, x * 3 + 1)
    scale_kernel[(1,)](x, out, 100, SHIFT=2, BLOCK=128, factor=0.5)
    assert_same(out, x * 0.5 + 2)
    # a constexpr before runtime parameters binds by position too
    copy = np.zeros_like(x)
    interleaved_kernel[(4,)](x, 32, copy, 100)
    assert_same(copy, x)
    copy[:] = 0
    interleaved_kernel[(4,)](x, out_ptr=copy, n=100, BLOCK=32)
    assert_same(copy, x)


def test_a_parameter_named_like_a_launch_option_binds_to_the_parameter():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros_like(x)
    option_named_kernel[(1,)](x, out, executor=1.5, num_warps=8)
    assert_same(out, x + 1.5)
    option_named_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "executor": 2.5},
                               constexprs={"num_warps": 8}, grid=(1,))
    assert_same(out, x + 2.5)


def test_a_kernel_without_parameters():
    no_params_kernel[(3,)]()
    no_params_kernel[lambda meta: (1,)](num_warps=1)
    with pytest.raises(TypeError) as info:
        no_params_kernel[(1,)](1)
    assert str(info.value) == "no_params_kernel[grid](...) takes no arguments but 1 was given"


# ---- the same launch as launch() ---------------------------------------------------------------

def test_the_same_results_and_specialisations_as_launch():
    @sw.jit
    def fresh_add(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
        offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
        mask = offsets < n
        x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
        sl.store(output_ptr + offsets, x + sl.load(y_ptr + offsets, mask=mask), mask=mask)

    x, y, out = vectors(500)
    keyword_out = out.copy()
    fresh_add.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": keyword_out, "n": 500},
                     constexprs={"BLOCK": 128}, grid=(4,))
    keys = list(fresh_add._cache)
    handle = fresh_add._cache[keys[0]]
    fresh_add[(4,)](x, y, out, 500, BLOCK=128)
    assert np.array_equal(out, keyword_out, equal_nan=True)
    assert list(fresh_add._cache) == keys and fresh_add._cache[keys[0]] is handle
    assert keys == [("x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32", "BLOCK=128")]
    # a new specialisation made by the bracket form is the one launch() then uses
    fresh_add[(2,)](x, y, out, 500, BLOCK=256, num_warps=8, num_stages=2, num_ctas=1)
    assert list(fresh_add._cache)[1] == ("x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32",
                                         "BLOCK=256", 8)
    fresh_add.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": 500},
                     constexprs={"BLOCK": 256}, grid=(2,), num_warps=8)
    assert len(fresh_add._cache) == 2


def test_the_bracket_form_calls_launch_with_the_dicts(monkeypatch):
    kernel = sw.jit(scale_kernel.fn)  # its own object: launch() replaced by a recorder
    calls = []
    monkeypatch.setattr(kernel, "launch", lambda **kw: calls.append(kw), raising=False)
    x, _, out = vectors(10)
    kernel[lambda meta: (meta["n"],)](x, out, 10, 1.0, BLOCK=16, executor="simt", num_warps=2)
    # the same, bound one keyword at a time
    kernel[7](x, num_warps=2, n=10, out_ptr=out, factor=1.0, executor="simt", BLOCK=16)
    kernel[[1, 2]](x, out, 10, 1.0, 16, 3)
    assert calls == [
        {"arguments": {"x_ptr": x, "out_ptr": out, "n": 10, "factor": 1.0},
         "constexprs": {"BLOCK": 16}, "grid": (10,), "executor": "simt", "num_warps": 2},
        {"arguments": {"x_ptr": x, "out_ptr": out, "n": 10, "factor": 1.0},
         "constexprs": {"BLOCK": 16}, "grid": 7, "executor": "simt", "num_warps": 2},
        {"arguments": {"x_ptr": x, "out_ptr": out, "n": 10, "factor": 1.0},
         "constexprs": {"BLOCK": 16, "SHIFT": 3}, "grid": [1, 2]}]


# ---- errors, in the form the call used -------------------------------------------------------

def bracket_error(brackets, *args, **kwargs):
    with pytest.raises(TypeError) as info:
        add_kernel[brackets](*args, **kwargs)
    return str(info.value)


def test_too_many_positional_arguments():
    x, y, out = vectors(10)
    assert bracket_error((1,), x, y, out, 10, 16, 5) == (
        "add_kernel[grid](...) takes 5 arguments but 6 were given " + ADD_PARAMETERS + ")")


def test_unknown_keywords_name_the_parameters_and_suggest():
    x, y, out = vectors(10)
    assert bracket_error((1,), x, y, out, 10, BLOCK=16, num_warp=4) == (
        "add_kernel[grid](...) got the unknown keyword 'num_warp'; did you mean 'num_warps'? "
        + ADD_PARAMETERS + "; " + OPTIONS)
    assert bracket_error((1,), x, y, out, 10, BLOK=16) == (
        "add_kernel[grid](...) got the unknown keyword 'BLOK'; did you mean 'BLOCK'? "
        + ADD_PARAMETERS + "; " + OPTIONS)
    assert bracket_error((1,), x, y, out, 10, block=16, stream=0) == (
        "add_kernel[grid](...) got the unknown keywords 'block', 'stream'; did you mean 'BLOCK' "
        "for 'block'? " + ADD_PARAMETERS + "; " + OPTIONS)
    assert bracket_error((1,), x, y, out, 10, BLOCK=16, grid=(1,)) == (
        "add_kernel[grid](...) got the unknown keyword 'grid' " + ADD_PARAMETERS + "; " + OPTIONS
        + "; in this form the grid goes in the brackets and every parameter is passed by "
        "position or by name: " + ADD_CALL)


def test_missing_arguments_and_constexprs():
    x, y, out = vectors(10)
    assert bracket_error((1,), x, y, out, BLOCK=16) == (
        "add_kernel[grid](...) is missing argument 'n'; call it as " + ADD_CALL)
    assert bracket_error((1,), x, y, out, 10) == (
        "add_kernel[grid](...) is missing constexpr 'BLOCK'; call it as " + ADD_CALL)
    assert bracket_error((1,), x) == (
        "add_kernel[grid](...) is missing arguments 'y_ptr', 'output_ptr', 'n' and constexpr "
        "'BLOCK'; call it as " + ADD_CALL)
    with pytest.raises(TypeError) as info:
        interleaved_kernel[(1,)](x)
    assert str(info.value) == (
        "interleaved_kernel[grid](...) is missing arguments 'out_ptr', 'n' and constexpr "
        "'BLOCK'; call it as interleaved_kernel[grid](x_ptr, BLOCK=..., out_ptr=..., n=...)")


def test_a_parameter_given_twice():
    x, y, out = vectors(10)
    assert bracket_error((1,), x, y, out, 10, 16, n=10) == (
        "add_kernel[grid](...) got two values for parameter 'n': one by position and n=...")


def test_a_grid_program_needs_a_grid():
    x, y, out = vectors(10)
    text = ("add_kernel is a grid program: put the number of programs on each axis in the "
            "brackets, " + ADD_CALL + " with grid = (programs,) or lambda meta: (programs,)")
    assert bracket_error(None, x, y, out, 10, BLOCK=16) == text
    assert bracket_error((), x, y, out, 10, BLOCK=16) == (
        text + " ([()] is a segment program's launch)")
    assert bracket_error(lambda meta: None, x, y, out, 10, BLOCK=16) == (
        "the grid function of add_kernel[grid](...) returned None; it must return the number "
        "of programs on each axis, 1 to 3 ints, as in lambda meta: (programs,)")
    with pytest.raises(ValueError, match="grid must have 1 to 3 axes, got 4"):
        add_kernel[(1, 1, 1, 1)](x, y, out, 10, BLOCK=16)
    with pytest.raises(ValueError, match="grid axis 0 is -1"):
        add_kernel[lambda meta: (-1,)](x, y, out, 10, BLOCK=16)
    with pytest.raises(TypeError, match="axis 0 is str"):
        add_kernel["12"](x, y, out, 10, BLOCK=16)
    with pytest.raises(KeyError, match="BLOCK_SIZE"):  # the function's own error
        add_kernel[lambda meta: (meta["BLOCK_SIZE"],)](x, y, out, 10, BLOCK=16)
    assert np.isnan(out).all()


def test_argument_errors_are_launchs_own():
    x, y, out = vectors(10)
    with pytest.raises(TypeError, match="'x_ptr' has unsupported type str"):
        add_kernel[(1,)]("abc", y, out, 10, BLOCK=16)
    with pytest.raises(TypeError, match="constexpr 'BLOCK' must be an int"):
        add_kernel[(1,)](x, y, out, 10, BLOCK=[16])
    # a string is a constexpr (as in Triton), but not a number: an error at its use
    with pytest.raises(sw.CompileError, match="the string '16' \\(the sl.constexpr 'BLOCK'\\)"):
        add_kernel[(1,)](x, y, out, 10, BLOCK="16")
    with pytest.raises(ValueError, match="executor must be 'semantic' or 'simt'"):
        add_kernel[(1,)](x, y, out, 10, BLOCK=16, executor="gpu")
    with pytest.raises(ValueError, match="schedule='warp' applies to segment programs only"):
        add_kernel[(1,)](x, y, out, 10, BLOCK=16, schedule="warp")


def test_each_form_shows_a_call_in_its_own_form():
    x, y, out = vectors(10)
    with pytest.raises(TypeError) as info:
        add_kernel(x, y, out, 10, BLOCK=16)
    assert str(info.value) == (
        "Swage kernels are not called directly; use " + ADD_CALL
        + " or add_kernel.launch(arguments={...}, constexprs={...}, grid=(...))")
    with pytest.raises(TypeError) as info:
        add_kernel.launch(x, y, out, 10)
    assert str(info.value) == (
        "add_kernel.launch takes keyword arguments only: add_kernel.launch(arguments={...}, "
        "constexprs={...}, grid=(...)); to pass arguments by position, use " + ADD_CALL)
    with pytest.raises(TypeError) as info:
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": 10},
                          constexprs={"BLOCK": 16})
    assert str(info.value) == (
        "add_kernel is a grid program, so launch needs grid=(...), the number of programs on "
        "each axis: add_kernel.launch(arguments={...}, constexprs={...}, grid=(...))")
    with pytest.raises(TypeError) as info:
        add_kernel.launch()
    assert str(info.value) == ("add_kernel.launch needs arguments={...}: add_kernel.launch("
                               "arguments={...}, constexprs={...}, grid=(...))")
    # a kernel whose constexprs all have defaults needs no constexprs={...}
    with pytest.raises(TypeError) as info:
        scale_kernel(x)
    assert str(info.value) == (
        "Swage kernels are not called directly; use scale_kernel[grid](x_ptr, out_ptr, n, "
        "factor) or "
        "scale_kernel.launch(arguments={...}, grid=(...))")


# ---- Triton's launch options -----------------------------------------------------------------

@sw.jit
def row_stats(x_ptr, out_ptr, N, BLOCK: sl.constexpr):
    row = sl.program_id(0)
    offs = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0)
    sl.store(out_ptr + row * 2, sl.sum(x))
    sl.store(out_ptr + row * 2 + 1, sl.max(sl.where(offs < N, x, -float("inf"))))
    sl.store(out_ptr + 64 + row * BLOCK + offs, sl.cumsum(x, 0), mask=offs < N)


@pytest.mark.parametrize("num_warps, block", [(None, 4096), (1, 4096), (2, 64), (8, 4096),
                                              (8, 16), (32, 4096), (32, 1024)])
def test_num_warps_sets_the_cta(rng, num_warps, block):
    """A grid program's CTA is 32 x num_warps threads (the compiler's choice
    without it: 128 for a 4096-element tile), on the SIMT executor as in
    the PTX; the results do not change, also where a tile has fewer
    elements than the CTA has threads (copies)."""
    sig = {"x_ptr": "*f32", "out_ptr": "*f32", "N": "i32"}
    threads = 32 * num_warps if num_warps else 128
    ptx = row_stats.emit_ptx(signature=sig, constexprs={"BLOCK": block}, num_warps=num_warps)
    assert ".maxntid %d, 1, 1" % threads in ptx
    simt = row_stats.emit_mlir(signature=sig, constexprs={"BLOCK": block}, stage="simt",
                               num_warps=num_warps)
    assert "simt.num_threads = %d : i32" % threads in simt
    rows, n = 3, block - 5
    x = rng.standard_normal((rows, n)).astype(np.float32)
    for executor in ("semantic", "simt"):
        out = np.zeros(64 + rows * block, np.float32)
        row_stats[(rows,)](x, out, n, BLOCK=block, num_warps=num_warps, executor=executor)
        np.testing.assert_allclose(out[0:2 * rows:2], x.sum(1), rtol=1e-4, atol=1e-4)
        assert (out[1:2 * rows:2] == x.max(1)).all()
        scans = out[64:].reshape(rows, block)[:, :n]
        np.testing.assert_allclose(scans, np.cumsum(x, 1), rtol=1e-4, atol=1e-3)


def test_num_warps_is_part_of_the_specialisation_and_ignored_by_segment_programs():
    sig = {"x_ptr": "*f32", "out_ptr": "*f32", "N": "i32"}
    a = row_stats.emit_ptx(signature=sig, constexprs={"BLOCK": 256}, num_warps=2)
    b = row_stats.emit_ptx(signature=sig, constexprs={"BLOCK": 256}, num_warps=4)
    assert a != b and ".maxntid 64," in a and ".maxntid 128," in b
    with pytest.raises(ValueError, match="num_warps must be a power of two from 1 to 32, not 3"):
        row_stats.emit_ptx(signature=sig, constexprs={"BLOCK": 256}, num_warps=3)
    # the C entry checks the CTA size it is given
    with pytest.raises(ValueError, match="num_threads is 48"):
        _native.compile_kernel(row_stats.source, row_stats.file, row_stats.first_line, "row_stats",
                               "x_ptr=*f32,out_ptr=*f32,N=i32", "BLOCK=256", num_threads=48)

    @sw.jit
    def seg_total(values_ptr, offsets_ptr, out_ptr):
        sid = sl.segment_id(0)
        s = sl.segment(values_ptr, offsets_ptr, sid)
        sl.store(out_ptr + sid, sl.sum(sl.load_segment(s)))

    seg_sig = {"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}
    assert seg_total.emit_ptx(signature=seg_sig, num_warps=8) == seg_total.emit_ptx(signature=seg_sig)

@pytest.mark.parametrize("executor", ["semantic", "simt"])
@pytest.mark.parametrize("options", [{"num_warps": 1}, {"num_warps": 4}, {"num_warps": 32},
                                     {"num_stages": 0}, {"num_stages": 5}, {"num_ctas": 2},
                                     {"num_warps": 8, "num_stages": 3, "num_ctas": 1},
                                     {"num_warps": np.int64(4)}])
def test_triton_launch_options_are_accepted_and_keep_the_results(executor, options):
    """num_warps makes its own specialisation (test_num_warps_sets_the_cta);
    num_stages and num_ctas change nothing."""
    x, y, out = vectors(300)
    before = len(add_kernel._cache)
    key = ("x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32", "BLOCK=128")
    if "num_warps" in options:
        key += (int(options["num_warps"]),)
    add_kernel[(3,)](x, y, out, 300, BLOCK=128, executor=executor, **options)
    assert_same(out, x + y)
    out[:] = 0
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": 300},
                      constexprs={"BLOCK": 128}, grid=(3,), executor=executor, **options)
    assert_same(out, x + y)
    assert key in add_kernel._cache and len(add_kernel._cache) <= before + 1


@pytest.mark.parametrize("options, error, text", [
    ({"num_warps": 3}, ValueError, "num_warps must be a power of two from 1 to 32, not 3"),
    ({"num_warps": 0}, ValueError, "num_warps must be a power of two from 1 to 32, not 0"),
    ({"num_warps": 64}, ValueError, "num_warps must be a power of two from 1 to 32, not 64"),
    ({"num_warps": 4.0}, TypeError, "num_warps must be an int, not float"),
    ({"num_warps": True}, TypeError, "num_warps must be an int, not bool"),
    ({"num_stages": -1}, ValueError, "num_stages must be 0 or more, not -1"),
    ({"num_stages": "2"}, TypeError, "num_stages must be an int, not str"),
    ({"num_ctas": 0}, ValueError, "num_ctas must be 1 or more, not 0"),
])
def test_bad_launch_options(options, error, text):
    x, y, out = vectors(10)
    with pytest.raises(error) as info:
        add_kernel[(1,)](x, y, out, 10, BLOCK=16, **options)
    assert str(info.value) == text
    with pytest.raises(error) as info:
        add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": 10},
                          constexprs={"BLOCK": 16}, grid=(1,), **options)
    assert str(info.value) == text
    assert np.isnan(out).all()


# ---- segment programs: no grid ---------------------------------------------------------------

SEGMENT_CALL = "segment_sum[()](values_ptr, offsets_ptr, out_ptr)"


@pytest.mark.parametrize("executor, schedule", [("semantic", "auto"), ("simt", "auto"),
                                                ("simt", "warp"), ("simt", "split")])
def test_segment_programs_launch_with_an_empty_grid(executor, schedule):
    offsets = np.array([0, 3, 3, 40, 500], dtype=np.int64)
    values = np.arange(500, dtype=np.float32)
    sums = np.full(4, np.nan, np.float32)
    segment_sum[()](values, offsets, sums, executor=executor, schedule=schedule, num_warps=4)
    expected = np.array([values[a:b].sum() for a, b in zip(offsets[:-1], offsets[1:])])
    assert np.allclose(sums, expected)
    by_keyword = np.full(4, np.nan, np.float32)
    segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                  "out_ptr": by_keyword}, executor=executor, schedule=schedule)
    assert np.array_equal(sums, by_keyword)
    sums[:] = 0
    segment_sum[()](out_ptr=sums, offsets_ptr=offsets, values_ptr=values, unsafe=True)
    assert np.allclose(sums, expected)


@pytest.mark.parametrize("grid", [(4,), 4, [4], None, [], lambda meta: (4,), lambda meta: ()])
def test_a_segment_program_refuses_a_grid(grid):
    offsets = np.array([0, 3], dtype=np.int64)
    sums = np.full(1, np.nan, np.float32)
    with pytest.raises(TypeError) as info:
        segment_sum[grid](np.ones(3, np.float32), offsets, sums)
    assert str(info.value) == (
        "segment_sum is a segment program: it runs one program per segment of its offsets, so "
        "it takes no grid: call it as " + SEGMENT_CALL)
    assert np.isnan(sums).all()


def test_segment_program_messages_in_each_form():
    with pytest.raises(TypeError) as info:
        segment_sum(1, 2, 3)
    assert str(info.value) == (
        "Swage kernels are not called directly; use " + SEGMENT_CALL + " or "
        "segment_sum.launch(arguments={...}) and leave grid out: a segment program runs one "
        "program per segment of its offsets")
    with pytest.raises(TypeError) as info:
        segment_sum[()](1, 2)
    assert str(info.value) == ("segment_sum[()](...) is missing argument 'out_ptr'; call it as "
                               + SEGMENT_CALL)
    with pytest.raises(TypeError) as info:
        segment_sum.launch(arguments={"values_ptr": np.ones(3, np.float32),
                                      "offsets_ptr": np.array([0, 3]),
                                      "out_ptr": np.zeros(1, np.float32)}, grid=(1,))
    assert str(info.value) == ("segment_sum is a segment program: segment programs derive their "
                               "grid from the offsets; leave grid out: "
                               "segment_sum.launch(arguments={...})")


# ---- @sw.jit(do_not_specialize=..., debug=...) ---------------------------------------------

def offset_kernel(x_ptr, out_ptr, n, start, BLOCK: sl.constexpr):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) + start, mask=mask)


def make_offset_kernel(**options):
    """A new kernel object (its own cache) with these @sw.jit options."""
    return sw.jit(**options)(offset_kernel)


@pytest.mark.parametrize("options, names", [
    ({"do_not_specialize": ["n", "start"]}, ("n", "start")),
    ({"do_not_specialize": (2, 3)}, ("n", "start")),          # indices, as Triton takes them
    ({"do_not_specialize": "n"}, ("n",)),
    ({"do_not_specialize": [-2, "start", 2]}, ("start", "n")),
    ({"do_not_specialize": []}, ()),
    ({}, ()),
])
@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_do_not_specialize(options, names, executor):
    kernel = make_offset_kernel(**options)
    assert kernel.do_not_specialize == names
    x = np.arange(100, dtype=np.float32)
    for n, start in [(100, 1), (37, 5), (1, 16), (64, -3)]:
        out = np.zeros_like(x)
        kernel[lambda meta: (cdiv(meta["n"], meta["BLOCK"]),)](x, out, n, start, BLOCK=32,
                                                               executor=executor)
        assert_same(out[:n], x[:n] + start)
        assert not out[n:].any()
    # the values are runtime arguments: one specialisation serves them all, with or
    # without do_not_specialize
    assert list(kernel._cache) == [("x_ptr=*f32,out_ptr=*f32,n=i32,start=i32", "BLOCK=32")]
    # an int beyond int32 is passed as int64: another specialisation, as in Triton
    out = np.zeros_like(x)
    kernel[(4,)](x, out, 100, 1 << 40, BLOCK=32, executor=executor)
    assert len(kernel._cache) == 2


@pytest.mark.parametrize("value, text", [
    (["BLOCK"], "do_not_specialize names 'BLOCK', which is sl.constexpr: a constexpr's value is "
                "compiled into the kernel, so each value is its own specialisation; make it a "
                "runtime parameter instead"),
    ([4], "do_not_specialize names 'BLOCK', which is sl.constexpr: a constexpr's value is "
          "compiled into the kernel, so each value is its own specialisation; make it a runtime "
          "parameter instead"),
    (["strat"], "do_not_specialize: offset_kernel has no parameter 'strat'; did you mean "
                "'start'? (its parameters: x_ptr, out_ptr, n, start, BLOCK)"),
    ([5], "do_not_specialize index 5 is out of range: offset_kernel has 5 parameters "
          "(x_ptr, out_ptr, n, start, BLOCK)"),
    ([True], "do_not_specialize takes parameter names or indices, not True"),
    (2.0, "do_not_specialize must be a list of parameter names or indices, not float"),
    ([2.0], "do_not_specialize takes parameter names or indices, not 2.0"),
    (object, "do_not_specialize must be a list of parameter names or indices, not type"),
])
def test_bad_do_not_specialize(value, text):
    with pytest.raises(TypeError) as info:
        make_offset_kernel(do_not_specialize=value)
    assert str(info.value) == text


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_debug_is_accepted(executor):
    for value in (True, False, None):
        kernel = make_offset_kernel(debug=value, do_not_specialize=["n"])
        assert kernel.debug is value
        x = np.arange(10, dtype=np.float32)
        out = np.zeros_like(x)
        kernel[(1,)](x, out, 10, 2, BLOCK=16, executor=executor)
        assert_same(out, x + 2)
    assert make_offset_kernel().debug is None
    with pytest.raises(TypeError) as info:
        make_offset_kernel(debug="yes")
    assert str(info.value) == "debug must be True, False or None, not 'yes'"


def test_unknown_jit_options_suggest_the_nearest():
    with pytest.raises(TypeError) as info:
        sw.jit(do_not_specialise=["n"])
    assert str(info.value) == ("sw.jit got unknown option 'do_not_specialise'; did you mean "
                               "'do_not_specialize'? (its options: cache_size, "
                               "do_not_specialize, debug)")
    with pytest.raises(TypeError) as info:
        sw.jit(num_warps=4)
    assert str(info.value) == ("sw.jit got unknown option 'num_warps' (its options: cache_size, "
                               "do_not_specialize, debug)")


# ---- the GPU route: the same launch, general and warm paths ----------------------------------

def test_gpu_launches_take_the_same_route(monkeypatch):
    from test_gpu_api import Recorder, _fake_torch, unpack_params
    rec = Recorder(monkeypatch)
    torch = _fake_torch({0: 0x700})
    monkeypatch.setitem(sys.modules, "torch", torch)

    @sw.jit
    def gpu_add(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
        offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
        mask = offsets < n
        x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
        sl.store(output_ptr + offsets, x + sl.load(y_ptr + offsets, mask=mask), mask=mask)

    def tensors(n=8):
        return [torch.Tensor(address, n, ("cuda", 0)) for address in (0x1000, 0x2000, 0x3000)]

    gpu_add.launch(arguments=dict(zip(("x_ptr", "y_ptr", "output_ptr"), tensors()), n=8),
                   constexprs={"BLOCK": 64}, grid=(1,))
    gpu_add[(2,)](*tensors(), 9, BLOCK=64)
    gpu_add[(2,)](*tensors(), 9, BLOCK=64, num_stages=2)
    gpu_add[(1,)](*tensors(), 8, BLOCK=128)               # a new specialisation: general path
    gpu_add[(1,)](*tensors(), 8, BLOCK=128, num_ctas=1)
    # num_warps is part of the specialisation (the CTA): general, then warm
    gpu_add[lambda meta: (cdiv(meta["n"], meta["BLOCK"]), 2)](*tensors(), n=300, BLOCK=64,
                                                              num_warps=4, num_stages=2)
    gpu_add[lambda meta: (cdiv(meta["n"], meta["BLOCK"]), 2)](*tensors(), n=300, BLOCK=64,
                                                              num_warps=4)
    assert [c["path"] for c in rec.calls] == ["general", "warm", "warm", "general", "warm",
                                              "general", "warm"]
    assert [c["grid"] for c in rec.calls] == [[1, 1, 1], [2, 1, 1], [2, 1, 1], [1, 1, 1],
                                              [1, 1, 1], [5, 2, 1], [5, 2, 1]]
    assert len({c["kernel"] for c in rec.calls[:3]}) == 1
    assert rec.calls[3]["kernel"] != rec.calls[0]["kernel"]
    assert rec.calls[4]["kernel"] == rec.calls[3]["kernel"]
    assert rec.calls[5]["kernel"] not in (rec.calls[0]["kernel"], rec.calls[3]["kernel"])
    assert rec.calls[6]["kernel"] == rec.calls[5]["kernel"]
    assert unpack_params(rec.calls[6], ["*f32", "*f32", "*f32", "i32"]) == (
        0x1000, 0x2000, 0x3000, 300)
    # the warm entry checks Triton's options as the general path does
    with pytest.raises(ValueError, match="num_warps must be a power of two"):
        gpu_add[(1,)](*tensors(), 8, BLOCK=128, num_warps=6)
    with pytest.raises(TypeError, match="is missing argument 'n'"):
        gpu_add[(1,)](*tensors(), BLOCK=128)
    assert len(rec.calls) == 7


FAKE_DRIVER_CHILD = r'''
import ctypes, os, sys
import numpy as np
from swage import _native
import test_gpu_api as t
import test_triton_launch as tt
from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
torch = t._fake_torch({0: 0x5000, 1: 0x5001})
sys.modules["torch"] = torch
assert _native.cuda_unavailable_reason() is None

def tensors(device=1, n=100):
    return [torch.Tensor(address, n, ("cuda", device)) for address in (0x1000, 0x2000, 0x3000)]

def params(count):
    return [state.params[i] for i in range(count)]

state.nparams_recorded = 4
seen = []
for launch in [
        lambda n: tt.add_kernel.launch(arguments=dict(zip(("x_ptr", "y_ptr", "output_ptr"),
                                                          tensors()), n=n),
                                       constexprs={"BLOCK": 64}, grid=((n + 63) // 64,)),
        lambda n: tt.add_kernel[((n + 63) // 64,)](*tensors(), n, BLOCK=64),
        lambda n: tt.add_kernel[lambda meta: ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],)](
            *tensors(), n=n, BLOCK=64, num_stages=2)]:
    for n in (100, 200):
        launch(n)
        seen.append((list(state.grid), list(state.block), state.stream, params(3),
                     params(4)[3] & 0xFFFFFFFF))
assert state.launches == 6 and state.module_loads == 1, (state.launches, state.module_loads)
assert seen[0::2] == [seen[0]] * 3 and seen[1::2] == [seen[1]] * 3, seen
assert seen[0][0] == [2, 1, 1] and seen[1][0] == [4, 1, 1] and seen[0][2] == 0x5001
assert seen[0][3] == [0x1000, 0x2000, 0x3000] and (seen[0][4], seen[1][4]) == (100, 200)
# num_warps: its own specialisation, a CTA of 32 x num_warps threads on both forms
tt.add_kernel[(2,)](*tensors(), 100, BLOCK=64, num_warps=4)
assert state.block[0] == 128 and state.module_loads == 2
tt.add_kernel.launch(arguments=dict(zip(("x_ptr", "y_ptr", "output_ptr"), tensors()), n=100),
                     constexprs={"BLOCK": 64}, grid=(2,), num_warps=2)
assert state.block[0] == 64 and state.module_loads == 3

# a segment program: kernel[()] launches the schedule's kernels as launch() does
from swage_testing import FakeDeviceArray

def Device(address, n, typestr):
    return FakeDeviceArray(address, n, typestr, stream=7)
state.nparams_recorded = 0
args = [Device(0x10000, 3000, "<f4"), Device(0x20000, 8, "<i8"), Device(0x30000, 7, "<f4")]
launches = state.launches
tt.segment_sum.launch(arguments=dict(zip(("values_ptr", "offsets_ptr", "out_ptr"), args)),
                      unsafe=True, schedule="cta")
by_keyword = (state.launches - launches, list(state.grid), list(state.block))
launches = state.launches
tt.segment_sum[()](*args, unsafe=True, schedule="cta", num_warps=8)
assert (state.launches - launches, list(state.grid), list(state.block)) == by_keyword, by_keyword
print("bracket launches through the fake driver passed")
'''


def test_bracket_launches_against_a_fake_driver(tmp_path):
    """kernel[grid](...) through the real C library reaches the driver with
    the grid, block, stream and parameters of the keyword launch, and
    kernel[()] launches a segment program's kernels as launch() does."""
    run_with_fake_driver(tmp_path, FAKE_DRIVER_CHILD,
                         "bracket launches through the fake driver passed")
