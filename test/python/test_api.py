"""The Python API's contract: how kernels are called and launched, how bad
arguments are reported, emit_mlir, the command-line tools, and the cache."""

import array
import ctypes
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import assert_same

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FILE = os.path.join(HERE, "kernels", "vector_add.py")


@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    offsets = pid * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)
    sl.store(output_ptr + offsets, x + y, mask=mask)


@sw.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: sl.constexpr = 32, SCALE: sl.constexpr = 1):
    offsets = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offsets < n
    sl.store(out_ptr + offsets, sl.load(x_ptr + offsets, mask=mask) * SCALE, mask=mask)


@sw.jit
def unmasked_kernel(x_ptr, out_ptr, BLOCK: sl.constexpr):
    offsets = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offsets)  # reads past the end when the buffer is short
    sl.store(out_ptr + offsets, x)


@sw.jit
def unmasked_store_kernel(out_ptr, BLOCK: sl.constexpr):
    sl.store(out_ptr + sl.arange(0, BLOCK), sl.zeros(BLOCK, sl.float32))


@sw.jit
def foldable_kernel(x_ptr, out_ptr, BLOCK: sl.constexpr):
    offsets = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + offsets)
    unused = x * 3.0
    a = x * 2.0
    b = x * 2.0
    sl.store(out_ptr + offsets, a + b)


@sw.jit
def no_params_kernel():
    pass


def add_args(n=100, dtype=np.float32):
    x = np.arange(n, dtype=dtype)
    return {"x_ptr": x, "y_ptr": x.copy(), "output_ptr": np.zeros(n, dtype), "n": n}


def file_line(text):
    """The 1-based line of this file that contains `text` (exactly once)."""
    with open(__file__) as f:
        lines = f.read().split("\n")
    found = [i + 1 for i, line in enumerate(lines) if line.strip() == text]
    assert len(found) == 1, (text, found)
    return found[0]


# ---- calling conventions -------------------------------------------------------------------

def test_calling_a_kernel_directly_points_at_launch():
    with pytest.raises(TypeError) as info:
        add_kernel(1, 2)
    assert str(info.value) == ("Swage kernels are not called directly; use "
                               "add_kernel[grid](x_ptr, y_ptr, output_ptr, n, BLOCK=...) or "
                               "add_kernel.launch(arguments={...}, constexprs={...}, grid=(...))")


@pytest.mark.parametrize("name", [
    "program_id", "num_programs", "arange", "load", "store", "where", "minimum", "maximum",
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs", "floor", "ceil", "sin", "cos",
    "sigmoid", "sum", "max", "min", "full", "zeros", "cast", "static_range", "segment_id",
    "segment", "load_segment", "store_segment", "segment_length", "prod"])
def test_language_functions_outside_a_kernel(name):
    with pytest.raises(RuntimeError) as info:
        getattr(sl, name)(0)
    assert str(info.value) == ("sl.%s can only be used inside a @sw.jit kernel; compile and "
                               "run it with kernel.launch(...)" % name)


def test_dtypes_and_pointer_types():
    names = {sl.int1: "i1", sl.bool_: "i1", sl.int8: "i8", sl.uint8: "u8", sl.int32: "i32",
             sl.int64: "i64", sl.float16: "f16", sl.bfloat16: "bf16", sl.float32: "f32",
             sl.float64: "f64"}
    for dtype, name in names.items():
        assert dtype.name == name and str(dtype) == name
        assert str(sl.pointer(dtype)) == "*" + name
    assert sl.pointer(sl.float32) == sl.pointer(sl.float32)
    with pytest.raises(TypeError):
        sl.pointer("f32")


def test_launch_is_keyword_only_and_returns_none():
    args = add_args()
    with pytest.raises(TypeError) as info:
        add_kernel.launch(args, {"BLOCK": 64}, (2,))
    assert "add_kernel.launch(arguments={...}, constexprs={...}, grid=(...))" in str(info.value)
    result = add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    assert result is None
    assert_same(args["output_ptr"], args["x_ptr"] * 2)


def test_jit_with_parentheses_and_unknown_options():
    spec = importlib.util.spec_from_file_location("postponed_kernels",
                                                  os.path.join(HERE, "kernels", "postponed.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert isinstance(module.scale_kernel, sw.JITFunction)
    with pytest.raises(TypeError) as info:
        sw.jit(not_an_option=1)
    assert "not_an_option" in str(info.value)


def test_postponed_annotations_constexpr_and_fixed_dtypes():
    # `count: sl.int64` and `factor: sl.float64` fix the scalar types even
    # though the arguments are a small int and a float.
    spec = importlib.util.spec_from_file_location("postponed_kernels2",
                                                  os.path.join(HERE, "kernels", "postponed.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.scale_kernel
    x = np.arange(40, dtype=np.float64)
    out = np.zeros_like(x)
    kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "count": 40, "factor": 0.5},
                  constexprs={"BLOCK": 64, "REPEAT": 3}, grid=(1,))
    assert_same(out, x * 0.5 * 0.5 * 0.5)
    text = kernel.emit_mlir(arguments={"x_ptr": x, "out_ptr": out, "count": 40, "factor": 0.5},
                            constexprs={"BLOCK": 64})
    assert "%count: i64" in text and "%factor: f64" in text
    with pytest.raises(TypeError, match="'REPEAT'"):
        kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "count": 40, "factor": 0.5,
                                 "REPEAT": 2}, constexprs={"BLOCK": 64}, grid=(1,))


# ---- argument validation -------------------------------------------------------------------

def test_missing_and_extra_arguments_are_named():
    args = add_args()
    del args["n"]
    with pytest.raises(TypeError, match="missing argument 'n'"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    args = add_args()
    args["z_ptr"] = args["x_ptr"]
    with pytest.raises(TypeError, match="'z_ptr'"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    with pytest.raises(TypeError, match="arguments="):
        add_kernel.launch(constexprs={"BLOCK": 64}, grid=(2,))


def test_constexpr_rules():
    args = add_args()
    with pytest.raises(TypeError, match="missing constexpr 'BLOCK'"):
        add_kernel.launch(arguments=args, grid=(2,))
    with pytest.raises(TypeError, match="'BLOCK' is sl.constexpr"):
        add_kernel.launch(arguments=dict(args, BLOCK=64), grid=(2,))
    with pytest.raises(TypeError, match="'n' is not sl.constexpr"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64, "n": 3}, grid=(2,))
    with pytest.raises(TypeError, match="'WIDTH'"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64, "WIDTH": 3}, grid=(2,))
    with pytest.raises(TypeError, match="'BLOCK'"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": [64]}, grid=(2,))
    with pytest.raises(sw.CompileError, match="the string '64' \\(the sl.constexpr 'BLOCK'\\)"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": "64"}, grid=(2,))
    # constexprs with defaults may be omitted
    x = np.arange(50, dtype=np.float32)
    out = np.zeros_like(x)
    copy_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 50}, grid=(2,))
    assert_same(out, x)
    copy_kernel.launch(arguments={"x_ptr": x, "out_ptr": out, "n": 50},
                       constexprs={"SCALE": 3}, grid=(2,))
    assert_same(out, x * 3)


@pytest.mark.parametrize("grid, error", [
    ((), ValueError), ((1, 1, 1, 1), ValueError), ((-1,), ValueError), ((2, -3), ValueError),
    ((1.5,), TypeError), ("12", TypeError), ((True,), TypeError), ({"x": 1}, TypeError),
    ((1 << 31,), ValueError), (None, TypeError)])
def test_bad_grids(grid, error):
    with pytest.raises(error) as info:
        add_kernel.launch(arguments=add_args(), constexprs={"BLOCK": 64}, grid=grid)
    if grid is None:
        assert "grid program" in str(info.value) and "grid=(...)" in str(info.value)


@pytest.mark.parametrize("grid", [2, [2], (2, 1), (2, 1, 1), np.int64(2), (np.int32(2),)])
def test_grid_forms(grid):
    args = add_args()
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=grid)
    assert_same(args["output_ptr"], args["x_ptr"] * 2)


def test_zero_grid_runs_nothing():
    args = add_args()
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(0, 5))
    assert not args["output_ptr"].any()


def test_unknown_schedule_and_bad_unsafe():
    with pytest.raises(ValueError, match="schedule"):
        add_kernel.launch(arguments=add_args(), constexprs={"BLOCK": 64}, grid=(2,),
                          schedule="warp-per-row")
    with pytest.raises(TypeError, match="unsafe"):
        add_kernel.launch(arguments=add_args(), constexprs={"BLOCK": 64}, grid=(2,),
                          unsafe="yes")


def test_non_contiguous_array_is_rejected():
    args = add_args(200)
    args["y_ptr"] = np.arange(200, dtype=np.float32)[::2]
    args["n"] = 100
    args["x_ptr"] = args["x_ptr"][:100]
    with pytest.raises(ValueError, match="'y_ptr' is not C-contiguous"):
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))


@pytest.mark.parametrize("dtype", ["complex64", "float128", "U3", ">f4", ">u4", "datetime64[s]"])
def test_unsupported_dtype_is_named(dtype):
    try:
        bad = np.zeros(100, dtype)
    except TypeError:
        pytest.skip("NumPy has no %s here" % dtype)
    args = add_args()
    args["y_ptr"] = bad
    with pytest.raises(TypeError) as info:
        add_kernel.launch(arguments=args, constexprs={"BLOCK": 64}, grid=(2,))
    assert "'y_ptr'" in str(info.value) and str(np.dtype(dtype)) in str(info.value)


def test_read_only_buffers_are_rejected():
    args = add_args()
    frozen = args["x_ptr"].copy()
    frozen.flags.writeable = False
    for value in (frozen, bytes(400), memoryview(bytearray(400)).toreadonly()):
        with pytest.raises(TypeError) as info:
            add_kernel.launch(arguments=dict(args, x_ptr=value), constexprs={"BLOCK": 64},
                              grid=(2,))
        assert "argument 'x_ptr' is read-only" in str(info.value)


def test_buffer_protocol_arguments():
    n = 70
    x = array.array("f", [float(i) for i in range(n)])
    y = (ctypes.c_float * n)(*[2.0 * i for i in range(n)])
    out = array.array("f", bytes(4 * n))
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": y, "output_ptr": out, "n": n},
                      constexprs={"BLOCK": 64}, grid=(2,))
    assert list(out) == [3.0 * i for i in range(n)]
    raw = bytearray(range(n))  # format 'B': uint8
    doubled = bytearray(n)
    copy_kernel.launch(arguments={"x_ptr": raw, "out_ptr": doubled, "n": n},
                       constexprs={"SCALE": 2}, grid=(3,))
    assert list(doubled) == [(2 * i) % 256 for i in range(n)]
    ints = array.array("q", range(n))
    text = copy_kernel.emit_mlir(arguments={"x_ptr": ints, "out_ptr": ints, "n": n})
    assert "%x_ptr: !sw.ptr<i64>" in text
    shorts = array.array("H", [1, 2])  # format 'H': uint16
    text = copy_kernel.emit_mlir(arguments={"x_ptr": shorts, "out_ptr": shorts, "n": 2})
    assert "%x_ptr: !sw.ptr<ui16>" in text
    with pytest.raises(TypeError, match="'x_ptr'.*format"):
        add_kernel.launch(arguments=dict(add_args(), x_ptr=array.array("u", "ab")),
                          constexprs={"BLOCK": 64}, grid=(1,))


@pytest.mark.parametrize("value, mlir_type", [
    (7, "i32"), (-(1 << 31), "i32"), (1 << 31, "i64"), (-(1 << 40), "i64"), (True, "i1"),
    (2.5, "f32"), (np.int64(3), "i64"), (np.int8(3), "i8"), (np.uint8(3), "ui8"),
    (np.float64(1.5), "f64"), (np.float16(1.5), "f16"), (np.bool_(True), "i1")])
def test_scalar_argument_types(value, mlir_type):
    @sw.jit
    def scalar_kernel(out_ptr, value):
        sl.store(out_ptr, value.to(sl.float32))

    out = np.zeros(1, np.float32)
    text = scalar_kernel.emit_mlir(arguments={"out_ptr": out, "value": value})
    assert "%%value: %s)" % mlir_type in text


def test_integer_too_large_for_int64():
    with pytest.raises(ValueError, match="'n'"):
        add_kernel.launch(arguments=dict(add_args(), n=1 << 64), constexprs={"BLOCK": 64},
                          grid=(2,))


def test_unsupported_argument_type():
    with pytest.raises(TypeError, match="'x_ptr' has unsupported type str"):
        add_kernel.launch(arguments=dict(add_args(), x_ptr="abc"), constexprs={"BLOCK": 64},
                          grid=(2,))


class FakeCudaArray:
    """Stands in for a CuPy/Numba device array."""
    __cuda_array_interface__ = {"shape": (100,), "typestr": "<f4", "data": (12345678, False),
                                "version": 3, "strides": None}


def test_gpu_arguments_say_gpu_is_not_available(monkeypatch):
    # as on a machine without an NVIDIA driver (the GPU machine has one)
    from swage import _native
    monkeypatch.setattr(_native, "cuda_unavailable_reason",
                        lambda: "libcuda.so.1 not found: no NVIDIA driver on this machine")
    with pytest.raises(RuntimeError, match="GPU execution is not available"):
        add_kernel.launch(arguments=dict(add_args(), x_ptr=FakeCudaArray()),
                          constexprs={"BLOCK": 64}, grid=(2,))


def test_out_of_bounds_load_raises_instead_of_crashing():
    x = np.zeros(10, np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(RuntimeError) as info:
        unmasked_kernel.launch(arguments={"x_ptr": x, "out_ptr": out},
                               constexprs={"BLOCK": 64}, grid=(1,))
    assert "bounds" in str(info.value)
    assert not out.any()  # the store after the faulting load never happened
    with pytest.raises(RuntimeError):
        unmasked_store_kernel.launch(arguments={"out_ptr": np.ones(3, np.float32)},
                                     constexprs={"BLOCK": 64}, grid=(1,))


def test_kernel_without_parameters():
    no_params_kernel.launch(arguments={}, grid=(3,))
    assert "func.func @no_params_kernel()" in no_params_kernel.emit_mlir()


# ---- emit_mlir --------------------------------------------------------------------------------

SIGNATURE = {"x_ptr": "*f32", "y_ptr": "*f32", "output_ptr": "*f32", "n": "i32"}


def test_emit_mlir_signature_forms_agree():
    from_strings = add_kernel.emit_mlir(signature=SIGNATURE, constexprs={"BLOCK": 128})
    from_types = add_kernel.emit_mlir(
        signature={"x_ptr": sl.pointer(sl.float32), "y_ptr": sl.pointer(sl.float32),
                   "output_ptr": sl.pointer(sl.float32), "n": sl.int32},
        constexprs={"BLOCK": 128})
    from_text = add_kernel.emit_mlir(signature="x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32",
                                     constexprs={"BLOCK": 128})
    from_args = add_kernel.emit_mlir(arguments=add_args(), constexprs={"BLOCK": 128})
    assert from_strings == from_types == from_text == from_args
    assert from_strings.startswith("module {\n  func.func @add_kernel(%x_ptr: !sw.ptr<f32>, "
                                   "%y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32)")
    assert "tensor<128xf32>" in from_strings


def test_emit_mlir_argument_errors():
    with pytest.raises(TypeError, match="signature"):
        add_kernel.emit_mlir(constexprs={"BLOCK": 128})
    with pytest.raises(TypeError, match="not both"):
        add_kernel.emit_mlir(signature=SIGNATURE, arguments=add_args(),
                             constexprs={"BLOCK": 128})
    with pytest.raises(TypeError, match="'n'"):
        add_kernel.emit_mlir(signature={k: v for k, v in SIGNATURE.items() if k != "n"},
                             constexprs={"BLOCK": 128})
    with pytest.raises(ValueError, match="stage"):
        add_kernel.emit_mlir(signature=SIGNATURE, constexprs={"BLOCK": 128}, stage="ptx")
    with pytest.raises(ValueError, match="q32"):  # the C library's INVALID_ARGUMENT
        add_kernel.emit_mlir(signature="x_ptr=*q32,y_ptr=*f32,output_ptr=*f32,n=i32",
                             constexprs={"BLOCK": 128})


def test_emit_mlir_stages():
    source = foldable_kernel.emit_mlir(signature={"x_ptr": "*f32", "out_ptr": "*f32"},
                                       constexprs={"BLOCK": 16}, stage="source")
    semantic = foldable_kernel.emit_mlir(signature={"x_ptr": "*f32", "out_ptr": "*f32"},
                                         constexprs={"BLOCK": 16}, stage="semantic")
    # the source stage keeps the unused multiply and both equal ones; cse+dce remove them
    assert source.count('"sw.mul"') == 3
    assert semantic.count('"sw.mul"') == 1
    assert semantic == foldable_kernel.emit_mlir(signature={"x_ptr": "*f32", "out_ptr": "*f32"},
                                                 constexprs={"BLOCK": 16})


def test_emit_mlir_locations_use_the_real_file_lines():
    text = add_kernel.emit_mlir(signature=SIGNATURE, constexprs={"BLOCK": 128}, locations=True)
    store_line = file_line("sl.store(output_ptr + offsets, x + y, mask=mask)")
    loc = 'loc("%s":%d:5)' % (__file__, store_line)
    store = [line for line in text.split("\n") if '"sw.store"' in line]
    assert len(store) == 1 and store[0].endswith(loc), (store, loc)
    load_line = file_line("x = sl.load(x_ptr + offsets, mask=mask, other=0.0)")
    assert 'loc("%s":%d:9)' % (__file__, load_line) in text
    assert "loc(" not in add_kernel.emit_mlir(signature=SIGNATURE, constexprs={"BLOCK": 128})


def swage_tool(build_dir, name):
    path = os.path.join(build_dir, name)
    assert os.access(path, os.X_OK), "%s is not built (run make)" % path
    return path


@pytest.mark.parametrize("locations", [False, True])
@pytest.mark.parametrize("stage", ["source", "semantic"])
def test_emit_mlir_round_trips_through_swage_opt(build_dir, tmp_path, stage, locations):
    text = add_kernel.emit_mlir(signature=SIGNATURE, constexprs={"BLOCK": 256}, stage=stage,
                                locations=locations)
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    command = [swage_tool(build_dir, "swage-opt"), str(path)]
    if locations:
        command.append("--mlir-print-debuginfo")
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == text


# ---- the swage command line --------------------------------------------------------------------

def load_kernel_file():
    spec = importlib.util.spec_from_file_location("cli_kernels", KERNEL_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("constexpr_args", [["--constexpr", "BLOCK=128"],
                                            ["--constexprs=BLOCK=128"],
                                            ["--constexpr=BLOCK=128"]])
@pytest.mark.parametrize("extra", [[], ["--stage=source"], ["--mlir-print-debuginfo"],
                                   ["--emit=mlir", "--stage", "semantic"]])
def test_swage_cli_compiles_a_kernel_file(build_dir, constexpr_args, extra):
    module = load_kernel_file()
    command = [swage_tool(build_dir, "swage"), "compile", KERNEL_FILE, "--kernel", "add_kernel",
               "--signature", "x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32"]
    result = subprocess.run(command + constexpr_args + extra, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    expected = module.add_kernel.emit_mlir(
        signature=SIGNATURE, constexprs={"BLOCK": 128},
        stage="source" if "--stage=source" in extra else "semantic",
        locations="--mlir-print-debuginfo" in extra)
    assert result.stdout == expected


def test_swage_cli_reports_compile_errors(build_dir):
    command = [swage_tool(build_dir, "swage"), "compile", KERNEL_FILE, "--kernel",
               "bad_store_kernel", "--signature", "x_ptr=*f32,out_ptr=*i32", "--constexpr",
               "BLOCK=16"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    with open(KERNEL_FILE) as f:
        line = f.read().split("\n").index("    sl.store(out_ptr + offsets, x_ptr)") + 1
    assert result.stderr.startswith("%s:%d:33: error: cannot store pointers" % (KERNEL_FILE, line))
    assert result.stderr.rstrip().endswith("^")
    assert result.stdout == ""


def test_swage_cli_unknown_kernel_is_an_error(build_dir):
    result = subprocess.run([swage_tool(build_dir, "swage"), "compile", KERNEL_FILE, "--kernel",
                             "no_such_kernel"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "no_such_kernel" in result.stderr


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["compile"], ["compile", KERNEL_FILE],
                                  ["compile", KERNEL_FILE, "--kernel"],
                                  ["compile", KERNEL_FILE, "--kernel", "add_kernel", "--bogus"],
                                  ["compile", KERNEL_FILE, "--kernel", "add_kernel",
                                   "--stage=ptx"],
                                  ["compile", KERNEL_FILE, "--kernel", "add_kernel",
                                   "--emit=sass"],
                                  ["compile", KERNEL_FILE, "--kernel", "add_kernel",
                                   "--emit=ptx", "--sm=12"]])
def test_swage_cli_usage_errors_exit_2(build_dir, argv):
    result = subprocess.run([swage_tool(build_dir, "swage")] + argv, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert "usage: swage" in result.stderr


def test_swage_cli_version_and_help(build_dir):
    version = subprocess.run([swage_tool(build_dir, "swage"), "--version"], capture_output=True,
                             text=True, timeout=60)
    assert version.returncode == 0 and version.stdout == "swage %s\n" % sw.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", sw.__version__)
    help_ = subprocess.run([swage_tool(build_dir, "swage"), "--help"], capture_output=True,
                           text=True, timeout=60)
    assert help_.returncode == 0 and "usage: swage compile" in help_.stdout
    assert "--mlir-print-debuginfo" in help_.stdout


def test_swage_cli_missing_file(build_dir, tmp_path):
    result = subprocess.run([swage_tool(build_dir, "swage"), "compile",
                             str(tmp_path / "absent.py"), "--kernel", "k"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "absent.py" in result.stderr


# ---- cache, library loading --------------------------------------------------------------------

def test_compile_cache_returns_the_same_handle():
    signature = "x_ptr=*f32,y_ptr=*f32,output_ptr=*f32,n=i32"
    first = add_kernel._compile(signature, "BLOCK=32")
    assert add_kernel._compile(signature, "BLOCK=32") == first
    add_kernel._cache.clear()  # the C cache still has it
    assert add_kernel._compile(signature, "BLOCK=32") == first
    assert add_kernel._compile(signature, "BLOCK=64") != first
    assert add_kernel._compile(signature.replace("n=i32", "n=i64"), "BLOCK=32") != first
    # launches with the same spec reuse the Python-side entry
    args = add_args()
    add_kernel.launch(arguments=args, constexprs={"BLOCK": 32}, grid=(4,))
    assert add_kernel._cache[(signature, "BLOCK=32")] == first


def test_missing_library_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, SWAGE_LIB=str(tmp_path / "libswage.so"))
    result = subprocess.run([sys.executable, "-c", "import swage"], capture_output=True,
                            text=True, env=env, timeout=60)
    assert result.returncode != 0
    assert "ImportError" in result.stderr and str(tmp_path / "libswage.so") in result.stderr


def test_library_found_next_to_the_package_or_in_the_build_tree():
    from swage import _native
    env_path = os.environ.pop("SWAGE_LIB", None)
    try:
        candidates = _native._candidate_paths()
    finally:
        if env_path is not None:
            os.environ["SWAGE_LIB"] = env_path
    package_dir = os.path.dirname(os.path.abspath(_native.__file__))
    assert candidates == [os.path.join(package_dir, "libswage.so"),
                          os.path.join(os.path.dirname(os.path.dirname(package_dir)), "build",
                                       "libswage.so")]


def test_pytorch_cpu_tensors():
    torch = pytest.importorskip("torch")
    x = torch.arange(100, dtype=torch.float32)
    out = torch.zeros(100, dtype=torch.float32)
    add_kernel.launch(arguments={"x_ptr": x, "y_ptr": x, "output_ptr": out, "n": 100},
                      constexprs={"BLOCK": 64}, grid=(2,))
    assert torch.equal(out, x * 2)
    # bfloat16 storage is passed as it is (16-bit elements)
    b = torch.arange(50, dtype=torch.bfloat16)
    text = copy_kernel.emit_mlir(arguments={"x_ptr": b, "out_ptr": b, "n": 50})
    assert "%x_ptr: !sw.ptr<bf16>" in text
    b_out = torch.zeros(50, dtype=torch.bfloat16)
    copy_kernel.launch(arguments={"x_ptr": b, "out_ptr": b_out, "n": 50}, grid=(2,))
    assert torch.equal(b_out, b)
    with pytest.raises(ValueError, match="'y_ptr' is not contiguous"):
        add_kernel.launch(arguments={"x_ptr": x[:50], "y_ptr": x[::2], "output_ptr": out,
                                     "n": 50}, constexprs={"BLOCK": 64}, grid=(1,))
    with pytest.raises(TypeError, match="'x_ptr'.*int16"):
        add_kernel.launch(arguments={"x_ptr": torch.zeros(4, dtype=torch.int16), "y_ptr": x,
                                     "output_ptr": out, "n": 4},
                          constexprs={"BLOCK": 64}, grid=(1,))
