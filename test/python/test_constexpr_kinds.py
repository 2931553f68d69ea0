"""sl.constexpr values beyond numbers, as Triton has them: strings ("relu"),
None (a `= None` default, `is None` / `is not None`) and tuples ((16, 32):
t[i], len(t), sl.zeros(t, ...), tuples of numbers, bools, strings and None).
They are resolved while compiling (the branch not taken is dropped), pass
on to @sw.jit functions, key the specialisation cache, travel through
launch, kernel[grid], emit_mlir, emit_ptx and the swage command line; any
other use is a compile error at its line and column naming the constexpr.
Every kernel runs on both CPU executors against NumPy."""

import os
import subprocess

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage import _args
import swage_testing

EXECUTORS = ["semantic", "simt"]
N = 100


@sw.jit
def apply(x, KIND: sl.constexpr):
    if KIND == "relu":
        return sl.maximum(x, 0.0)
    elif KIND in ("double", "twice"):
        return x * 2.0
    return x


@sw.jit
def k_act(x_ptr, y_ptr, n, ACT: sl.constexpr = "relu", BIAS: sl.constexpr = None,
          BLOCK: sl.constexpr = 32):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    x = sl.load(x_ptr + offs, mask=m)
    if ACT == "relu":
        x = sl.maximum(x, 0.0)
    elif ACT != "none":
        x = apply(x, ACT)
    if BIAS is not None:
        x = x + BIAS
    if BIAS is None and ACT == "none":
        x = x - 1.0
    sl.store(y_ptr + offs, x, mask=m)


def act_reference(x, act, bias):
    y = np.maximum(x, 0) if act == "relu" else x * 2 if act in ("double", "twice") else x.copy()
    if bias is not None:
        y = y + np.float32(bias)
    if bias is None and act == "none":
        y = y - 1
    return y.astype(np.float32)


def grid(block=32):
    return ((N + block - 1) // block,)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("act", ["relu", "double", "twice", "none", "other"])
@pytest.mark.parametrize("bias", [None, 0.5])
def test_string_and_none_constexprs_pick_branches(executor, act, bias):
    x = np.linspace(-3, 3, N).astype(np.float32)
    y = np.zeros_like(x)
    k_act[grid()](x, y, N, ACT=act, BIAS=bias, executor=executor)
    np.testing.assert_array_equal(y, act_reference(x, act, bias))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_defaults_are_a_string_and_none(executor):
    x = np.linspace(-3, 3, N).astype(np.float32)
    y = np.zeros_like(x)
    k_act[grid()](x, y, N, executor=executor)
    np.testing.assert_array_equal(y, act_reference(x, "relu", None))
    y2 = np.zeros_like(x)
    k_act.launch(arguments={"x_ptr": x, "y_ptr": y2, "n": N}, constexprs={"BIAS": 1.5},
                 grid=grid(), executor=executor)
    np.testing.assert_array_equal(y2, act_reference(x, "relu", 1.5))


def test_the_branch_not_taken_is_dropped():
    sig = {"x_ptr": "*f32", "y_ptr": "*f32", "n": "i32"}
    relu = k_act.emit_mlir(signature=sig, constexprs={"ACT": "relu"})
    none = k_act.emit_mlir(signature=sig, constexprs={"ACT": "none"})
    assert "sw.max" in relu or "maximum" in relu or "max" in relu
    assert relu != none
    assert "sw.if" not in relu and "sw.if" not in none


@sw.jit
def k_tuple(x_ptr, y_ptr, SHAPE: sl.constexpr, SCALE: sl.constexpr = (2.0, None, "add", True)):
    rows = sl.arange(0, SHAPE[0])
    cols = sl.arange(0, SHAPE[-1])
    offs = rows[:, None] * SHAPE[1] + cols[None, :]
    acc = sl.zeros(SHAPE, sl.float32)
    for d in sl.static_range(len(SHAPE)):
        acc = acc + d
    x = sl.load(x_ptr + offs)
    if SCALE[1] is None and SCALE[2] == "add" and SCALE[3]:
        x = x * SCALE[0] + acc
    sl.static_assert(len(SCALE) == 4)
    sl.static_assert(SHAPE == (SHAPE[0], SHAPE[1]))
    sl.store(y_ptr + offs, x)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(16, 32), (8, 4)])
def test_tuple_constexprs(executor, shape):
    x = np.arange(shape[0] * shape[1], dtype=np.float32)
    y = np.zeros_like(x)
    k_tuple[(1,)](x, y, SHAPE=shape, executor=executor)
    np.testing.assert_array_equal(y, x * 2 + 1)  # acc = 0 + 1 over two dims
    y = np.zeros_like(x)
    k_tuple[(1,)](x, y, SHAPE=shape, SCALE=(3.0, None, "sub", True), executor=executor)
    np.testing.assert_array_equal(y, x)


def test_the_cache_keeps_each_value_apart():
    kernel = k_act
    x = np.linspace(-3, 3, N).astype(np.float32)
    before = len(kernel._cache)
    for act in ("relu", "double", "relu ", "none"):
        for bias in (None, 0.5):
            kernel[grid()](x, np.zeros_like(x), N, ACT=act, BIAS=bias, executor="semantic")
    texts = [key[1] for key in kernel._cache]
    assert len(kernel._cache) - before <= 8
    for text in ("ACT='relu',BIAS=None", "ACT='relu ',BIAS=None", "ACT='double',BIAS=0.5"):
        assert text in texts
    # different strings compile different kernels
    y1, y2 = np.zeros_like(x), np.zeros_like(x)
    kernel[grid()](x, y1, N, ACT="relu", executor="semantic")
    kernel[grid()](x, y2, N, ACT="none", executor="semantic")
    assert not np.array_equal(y1, y2)


def test_constexpr_text_spells_strings_none_and_tuples():
    assert _args.constexpr_text("A", "relu") == "'relu'"
    assert _args.constexpr_text("A", "it's a \\ \"q\"") == "'it\\'s a \\\\ \\\"q\\\"'"
    assert _args.constexpr_text("A", "\u00e9") == "'\\xc3\\xa9'"
    assert _args.constexpr_text("A", None) == "None"
    assert _args.constexpr_text("A", (16, 32)) == "(16,32)"
    assert _args.constexpr_text("A", (1,)) == "(1,)"
    assert _args.constexpr_text("A", ()) == "()"
    assert _args.constexpr_text("A", (1.5, None, "x", True, (2,))) == "(1.5,None,'x',True,(2,))"
    with pytest.raises(TypeError, match="constexpr 'A' must be an int"):
        _args.constexpr_text("A", [1, 2])
    with pytest.raises(ValueError, match="NUL"):
        _args.constexpr_text("A", "a\0b")


@sw.jit
def k_echo(y_ptr, S: sl.constexpr):
    # the string arrives byte for byte: its length and a comparison
    sl.store(y_ptr, len(S) + (100 if S == "it's a \\ \"q\", é" else 0))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_strings_with_quotes_commas_and_utf8_round_trip(executor):
    s = "it's a \\ \"q\", é"
    y = np.zeros(1, np.int32)
    k_echo[(1,)](y, S=s, executor=executor)
    assert y[0] == len(s.encode("utf-8")) + 100


def test_emit_ptx_assembles(tmp_path):
    from test_atomics import ptxas_path
    sig = {"x_ptr": "*f32", "y_ptr": "*f32", "n": "i32"}
    texts = [k_act.emit_ptx(signature=sig, constexprs={"ACT": act, "BIAS": bias})
             for act in ("relu", "double") for bias in (None, 0.25)]
    texts.append(k_tuple.emit_ptx(signature={"x_ptr": "*f32", "y_ptr": "*f32"},
                                  constexprs={"SHAPE": (16, 32)}))
    assert len(set(texts)) == len(texts)
    ptxas = ptxas_path()
    if ptxas is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found, and SWAGE_REQUIRE_PTXAS=1")
        pytest.skip("ptxas not found")
    for i, text in enumerate(texts):
        path = tmp_path / ("k%d.ptx" % i)
        path.write_text(text)
        result = subprocess.run([ptxas, "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr


KERNEL_FILE = os.path.abspath(__file__)


def test_swage_cli_takes_strings_none_and_tuples(build_dir):
    tool = os.path.join(build_dir, "swage")
    command = [tool, "compile", KERNEL_FILE, "--kernel", "k_act",
               "--signature", "x_ptr=*f32,y_ptr=*f32,n=i32", "--constexpr", "ACT='double'",
               "--constexpr", "BIAS=None"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    expected = k_act.emit_mlir(signature={"x_ptr": "*f32", "y_ptr": "*f32", "n": "i32"},
                               constexprs={"ACT": "double", "BIAS": None})
    assert result.stdout == expected
    command = [tool, "compile", KERNEL_FILE, "--kernel", "k_tuple",
               "--signature", "x_ptr=*f32,y_ptr=*f32", "--constexprs",
               "SHAPE=(16, 32),SCALE=(3.0, None, \"sub\", True)"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == k_tuple.emit_mlir(signature={"x_ptr": "*f32", "y_ptr": "*f32"},
                                              constexprs={"SHAPE": (16, 32),
                                                          "SCALE": (3.0, None, "sub", True)})


@pytest.mark.parametrize("text", ["ACT='relu", "ACT=(1, 2", "ACT='a\\q'", "ACT=(1 2)",
                                  "ACT=nonsense"])
def test_swage_cli_rejects_malformed_values(build_dir, text):
    tool = os.path.join(build_dir, "swage")
    result = subprocess.run([tool, "compile", KERNEL_FILE, "--kernel", "k_act", "--signature",
                             "x_ptr=*f32,y_ptr=*f32,n=i32", "--constexprs", text],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "constexpr 'ACT'" in result.stderr and "quoted string" in result.stderr


# ---- errors ---------------------------------------------------------------------------------

@sw.jit
def k_string_arith(x_ptr, ACT: sl.constexpr):
    v = ACT + 1  # error at col 9: '+' cannot be applied to the string 'relu', sl.constexpr 'ACT'


@sw.jit
def k_string_stored(x_ptr, ACT: sl.constexpr):
    sl.store(x_ptr, ACT)  # error at col 21: string 'relu', sl.constexpr 'ACT', cannot be used as a value


@sw.jit
def k_string_vs_runtime(x_ptr, ACT: sl.constexpr):
    if ACT == sl.load(x_ptr):  # error at col 8: sl.constexpr 'ACT', only be compared with values known while compiling
        pass


@sw.jit
def k_is_not_none(x_ptr, ACT: sl.constexpr):
    if ACT is ACT:  # error at col 8: 'is' is only supported against None
        pass


@sw.jit
def k_none_as_value(x_ptr, ACT: sl.constexpr, BIAS: sl.constexpr = None):
    sl.store(x_ptr, sl.load(x_ptr) + BIAS)  # error at col 21: None, sl.constexpr 'BIAS', is None


@sw.jit
def k_tuple_out_of_range(x_ptr, ACT: sl.constexpr, SHAPE: sl.constexpr = (16, 32)):
    v = SHAPE[2]  # error at col 15: tuple index 2 out of range, 2 items


@sw.jit
def k_tuple_as_value(x_ptr, ACT: sl.constexpr, SHAPE: sl.constexpr = (16, 32)):
    sl.store(x_ptr, SHAPE)  # error at col 21: a tuple cannot be used as a value


@sw.jit
def k_tile_index(x_ptr, ACT: sl.constexpr):
    t = sl.arange(0, 16)[0]  # error at col 25: subscripts (x[i]) are not supported, a tuple takes t[i]


@sw.jit
def k_string_indexed(x_ptr, ACT: sl.constexpr):
    c = ACT[0]  # error at col 9: string 'relu', sl.constexpr 'ACT', cannot be indexed


@sw.jit
def k_string_negated(x_ptr, ACT: sl.constexpr):
    c = -ACT  # error at col 9: '-' cannot be applied to the string 'relu'


@sw.jit
def k_runtime_to_constexpr(x_ptr, ACT: sl.constexpr):
    apply(sl.load(x_ptr), sl.load(x_ptr))  # error at col 27: 'KIND' of 'apply' is an sl.constexpr, compile-time constant


ERRORS = [k_string_arith, k_string_stored, k_string_vs_runtime, k_is_not_none, k_none_as_value,
          k_tuple_out_of_range, k_tuple_as_value, k_tile_index, k_string_indexed,
          k_string_negated, k_runtime_to_constexpr]


@pytest.mark.parametrize("kernel", ERRORS, ids=[k.__name__ for k in ERRORS])
def test_errors_point_at_line_and_column(kernel):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, {"x_ptr": "*f32"},
                                                 {"ACT": "relu"})


@sw.jit
def k_string_logic(y_ptr, T: sl.constexpr, S: sl.constexpr):
    a, b = T
    x = sl.full(T, 1.0, sl.float32).reshape((a * b,))
    if S and not ("zz" in S) and S < "zzz" and len(S + "x") == 4 and (True and S) == S:
        x = x + 1.0
    if not S or S >= "b":
        x = x + 10.0
    sl.store(y_ptr + sl.arange(0, a * b), x)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("s, expected", [("abc", 2.0), ("", 11.0), ("bzz", 11.0), ("zzz", 11.0)])
def test_string_logic_is_pythons(executor, s, expected):
    y = np.zeros(8, np.float32)
    k_string_logic[(1,)](y, T=(2, 4), S=s, executor=executor)
    np.testing.assert_array_equal(y, np.full(8, expected, np.float32))


def test_the_warm_path_keys_tell_values_apart():
    # the warm launch path keys constexprs by (value, type): strings and
    # None are apart that way; tuples ((1,) == (1.0,) == (True,)) go the
    # general path, whose key is the constexprs string
    from swage import _jit
    assert _jit._warm_constexprs_ok({"ACT": "relu", "BIAS": None})
    assert not _jit._warm_constexprs_ok({"SHAPE": (16, 32)})
    texts = {_args.constexpr_text("T", t) for t in [(1,), (1.0,), (True,)]}
    assert len(texts) == 3


@sw.jit
def k_shape_item(y_ptr, T: sl.constexpr):
    v = sl.zeros(T, sl.int32)
    sl.store(y_ptr + sl.arange(0, v.shape[-1]), v + v.shape[0] * 10 + len(v.shape))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_shape_tuples_index_too(executor):
    y = np.zeros(8, np.int32)
    k_shape_item[(1,)](y, T=(8,), executor=executor)
    np.testing.assert_array_equal(y, np.full(8, 81, np.int32))


@sw.jit
def k_segment_reduce(values_ptr, offsets_ptr, out_ptr, OP: sl.constexpr = "sum",
                     SCALE: sl.constexpr = None):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))
    if OP == "sum":
        r = sl.sum(x)
    else:
        r = sl.max(x)
    if SCALE is not None:
        r = r * SCALE
    sl.store(out_ptr + sid, r)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("op, scale", [("sum", None), ("max", None), ("sum", 2.0)])
def test_segment_programs_and_plan_take_them(executor, op, scale):
    values = np.arange(10, dtype=np.float32)
    offsets = np.array([0, 3, 3, 10], np.int32)
    out = np.zeros(3, np.float32)
    arguments = {"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out}
    k_segment_reduce.launch(arguments=arguments, constexprs={"OP": op, "SCALE": scale},
                            executor=executor)
    parts = [values[0:3], values[3:3], values[3:10]]
    if op == "sum":
        expected = [p.sum() for p in parts]
    else:
        expected = [p.max() if p.size else -np.inf for p in parts]
    expected = np.array(expected, np.float32) * (scale or 1)
    np.testing.assert_array_equal(out, expected)
    assert "segments" in str(k_segment_reduce.plan(arguments=arguments,
                                                   constexprs={"OP": op, "SCALE": scale}))
