"""Conformance, beyond the tutorials: other 1-D kernels in the style Triton
users write (tutorial_kernels.py), on both CPU executors against NumPy,
for every dtype each takes:

- a fused bias-add + GELU (erf form) over a 2-D grid, the math in float32;
- a strided row copy over a 2-D grid (every dtype, exactly);
- a whole-array sum in one program with a while loop, and a grid-stride
  sum that adds each program's partial with sl.atomic_add;
- RMS norm (one row per tile) and a softmax over rows longer than a tile
  (an online max/sum pass, then a writing pass);

then the constructs Triton kernels use that Swage does not have yet, each
an xfail(strict=True) test that must fail with Swage's exact error (so the
gap stays visible, and its fix turns the test into an XPASS to promote);
and a check that every kernel's source, with `sl`/`sw` renamed back to
`tl`/`triton`, is Triton source that names only Triton's API.
"""

import ast
import inspect
import io
import math
import os
import re
import tokenize

import numpy as np
import pytest

import swage as sw
import tutorial_kernels as tk
from swage_testing import assert_same
from test_conformance_tutorials import (EXECUTORS, FLOATS, INTS, assert_within, f64, np_dtype,
                                        randn, u)

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = 2.0 ** -24


# ---- bias + GELU ----------------------------------------------------------------------

def gelu_reference(v):
    erf = np.vectorize(math.erf)
    return 0.5 * v * (1.0 + erf(v / math.sqrt(2.0)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_bias_gelu(rng, executor, dtype):
    n_rows, n_cols, BLOCK_SIZE = 7, 300, 128
    x = randn(rng, (n_rows, n_cols), dtype, scale=3.0)
    bias = randn(rng, n_cols, dtype)
    out = np.full_like(x, np.nan)
    grid = lambda meta: (n_rows, sw.cdiv(n_cols, meta["BLOCK_SIZE"]))  # noqa: E731
    tk.bias_gelu_kernel[grid](x, bias, out, n_rows, n_cols, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                              executor=executor)
    v = f64(x).astype(np.float32).astype(np.float64) + f64(bias).astype(np.float32)
    expected = gelu_reference(v)
    # In float32: x + b rounds (GELU's slope is at most 1.13, so that is
    # 1.13 u |x + b|); 1 + erf(...) carries erf's and the add's roundings,
    # 2u absolute, which 0.5 |v| scales; the products add a few u of |y|.
    # 8 u_f32 (|v| + |y|) bounds these; the store adds u of the dtype.
    bound = u(dtype) * np.abs(expected) + 8 * F32 * (np.abs(v) + np.abs(expected))
    bad = ~(np.abs(f64(out) - expected) <= bound)
    assert not bad.any(), "bias + gelu (%s, %s) differs at %s (seed %d)" % (
        dtype, executor, np.argwhere(bad)[:5].tolist(), rng.seed)


# ---- strided row copy ------------------------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ("bool",) + FLOATS + INTS)
def test_copy_rows(rng, executor, dtype):
    # Copy a [12, 150] window of a [12, 170] matrix into a [12, 200] one.
    n_rows, n_cols = 12, 150
    if dtype == "bool":
        src = rng.integers(0, 2, (n_rows, 170)).astype(bool)
    elif dtype in INTS:
        info = np.iinfo(dtype)
        src = rng.integers(info.min, info.max, (n_rows, 170), dtype=dtype, endpoint=True)
    else:
        src = randn(rng, (n_rows, 170), dtype)
    dst = np.zeros((n_rows, 200), src.dtype)
    grid = lambda meta: (n_rows, sw.cdiv(n_cols, meta["BLOCK_SIZE"]))  # noqa: E731
    tk.copy_rows_kernel[grid](src, dst, 170, 200, n_cols, BLOCK_SIZE=64, executor=executor)
    expected = np.zeros_like(dst)
    expected[:, :n_cols] = src[:, :n_cols]
    assert_same(dst, expected, rng.seed, "copy rows (%s, %s)" % (dtype, executor))


# ---- sums: a while loop, and a grid-stride loop with an atomic ---------------------------

def sum_inputs(rng, dtype, n):
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return randn(rng, n, dtype)


def check_sum(got, x, dtype, depth, seed, what):
    if dtype in INTS:
        # integer sums wrap in the accumulator's type: exact, any order
        expected = np.array(sum(int(v) for v in x) % (1 << 64), np.uint64).astype(np.int64)
        expected = expected.astype(dtype)
        assert_same(got, np.array([expected], dtype), seed, what)
    else:
        # each element is added at a depth of at most `depth` additions in
        # the dtype (with at most one more rounding to the dtype at the end)
        expected = f64(x).sum()
        bound = (depth + 1) * u(dtype) * np.abs(f64(x)).sum()
        assert abs(f64(got)[0] - expected) <= bound, "%s: %r, expected %r (seed %d)" % (
            what, got[0], expected, seed)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ("float16", "float32", "float64", "int32", "int64"))
def test_sum_while_loop(rng, executor, dtype):
    n, BLOCK_SIZE = 5000, 128
    x = sum_inputs(rng, dtype, n)
    out = np.zeros(1, x.dtype)
    tk.sum_while_kernel[(1,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE, executor=executor)
    # 40 chunks into each lane, then a tree over 128 lanes (depth 7)
    check_sum(out, x, dtype, sw.cdiv(n, BLOCK_SIZE) + 7, rng.seed,
              "while-loop sum (%s, %s)" % (dtype, executor))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ("float32", "float64", "int32", "int64"))
def test_sum_grid_stride_atomic(rng, executor, dtype):
    n, BLOCK_SIZE, programs = 5000, 128, 6
    x = sum_inputs(rng, dtype, n)
    out = np.zeros(1, x.dtype)
    tk.sum_atomic_kernel[(programs,)](x, out, n, BLOCK_SIZE=BLOCK_SIZE, executor=executor)
    # each program: 7 chunks per lane, a tree of depth 7; then 6 atomics
    check_sum(out, x, dtype, sw.cdiv(n, BLOCK_SIZE * programs) + 7 + programs, rng.seed,
              "grid-stride sum (%s, %s)" % (dtype, executor))


# ---- RMS norm, and softmax of long rows ---------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rms_norm(rng, executor, dtype):
    n_rows, N, eps = 9, 700, 1e-6
    x = randn(rng, (n_rows, N), dtype)
    w = randn(rng, N, dtype)
    y = np.full_like(x, np.nan)
    tk.rms_norm_kernel[(n_rows,)](x, y, w, N, N, eps, BLOCK_SIZE=sw.next_power_of_2(N),
                                  executor=executor)
    rrms = 1 / np.sqrt((f64(x) ** 2).mean(axis=1, keepdims=True) + eps)
    expected = f64(x) * rrms * f64(w)
    # float32: the sum of squares (positive terms, depth under 32 for 1024
    # lanes) errs by 32u, rsqrt and the two products by a few u more; 64
    # float32 units, then the store's rounding to the dtype.
    assert_within(y, expected, u(dtype) + 64 * F32, 2.0 ** -24, rng.seed,
                  "rms norm (%s, %s)" % (dtype, executor))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_long_rows(rng, executor, dtype):
    n_rows, n_cols, BLOCK_SIZE = 5, 3000, 256
    x = (rng.uniform(-4, 4, (n_rows, n_cols))).astype(np_dtype(dtype))
    y = np.full_like(x, np.nan)
    tk.softmax_online_kernel[(n_rows,)](y, x, n_cols, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                        executor=executor)
    v = f64(x)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    # float32 throughout: x - m is exact or within 4u (|x - m| < 8), exp
    # and the division u each; the running sum takes, per chunk, a rescale
    # (exp of m - m_new: 4u + u, and a product) and a tree of depth 8, so
    # 12 chunks stay under 12 * 16u = 192u; 256 float32 units in all,
    # then the store's rounding to the dtype. Results below the dtype's
    # smallest normal keep absolute precision only (atol).
    atol = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149,
            "float64": 2.0 ** -149}[dtype]
    assert_within(y, expected, u(dtype) + 256 * F32, atol, rng.seed,
                  "online softmax (%s, %s)" % (dtype, executor))


# ---- tutorial 07: a libdevice function ----------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
def test_libdevice_asin(rng, executor):
    # tutorial 07 (libdevice functions)
    n = 300
    x = rng.uniform(-1, 1, n).astype(np.float32)
    x[:4] = [-1.0, 1.0, 0.0, -0.0]
    y = np.full_like(x, np.nan)
    tk.asin_kernel[(sw.cdiv(n, 128),)](x, y, n, BLOCK_SIZE=128, executor=executor)
    assert_within(y, np.arcsin(f64(x)), F32, 0, rng.seed, "asin")
    assert np.signbit(y[3]) and not np.signbit(y[2])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_builtin_min_of_runtime_values(rng, executor):
    n_rows, n_cols, rows_per_program = 10, 50, 4
    x = randn(rng, (n_rows, n_cols), "float32")
    programs = sw.cdiv(n_rows, rows_per_program)
    out = np.full((programs, n_cols), np.nan, np.float32)
    tk.row_block_sum_kernel[(programs,)](
        x, out, n_cols, n_rows, n_cols, rows_per_program=rows_per_program, BLOCK_SIZE=64,
        executor=executor)
    expected = np.add.reduceat(f64(x), np.arange(0, n_rows, rows_per_program), axis=0)
    assert_within(out, expected, 8 * F32, 1e-6, rng.seed, "row blocks")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bitcast(rng, executor):
    x = randn(rng, 100, "float32")
    out = np.full(100, -1, np.int32)
    tk.sign_bit_kernel[(1,)](x, out, 100, BLOCK_SIZE=128, executor=executor)
    assert_same(out, np.signbit(x).astype(np.int32), rng.seed, "sign bits")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_tensor_methods(rng, executor):
    x = randn(rng, (3, 40), "float32")
    y = np.full_like(x, np.nan)
    tk.softmax_methods_kernel[(3,)](y, x, 40, 40, BLOCK_SIZE=64, executor=executor)
    e = np.exp(f64(x) - f64(x).max(axis=1, keepdims=True))
    assert_within(y, e / e.sum(axis=1, keepdims=True), 64 * F32, 0, rng.seed,
                  "softmax by methods")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_debug_barrier(rng, executor):
    # the call layer_norm_bwd_dx_kernel makes (test_conformance_tutorials.py
    # checks its values): each program takes its group's lock, stores, meets
    # sl.debug_barrier, and lets the lock go; both groups end unlocked and
    # marked written
    x, w, dy = (randn(rng, (2, 16), "float32") for _ in range(3))
    w = w[0]
    zeros = np.zeros((2, 16), np.float32)
    dx, lock = np.full_like(x, np.nan), np.zeros(4, np.int32)
    tk.layer_norm_bwd_dx_kernel[(2,)](
        dx, dy, zeros.copy(), zeros.copy(), x, w, np.zeros(2, np.float32),
        np.ones(2, np.float32), lock, 16, 16, GROUP_SIZE_M=2, BLOCK_SIZE_N=16, executor=executor)
    assert np.isfinite(dx).all()
    assert_same(lock, np.array([0, 0, 1, 1], np.int32), rng.seed, "locks and counts")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_device_print(rng, executor, capfd):
    # printed on the CPU executors, one line per element (docs/language.md)
    x = randn(rng, 16, "float32")
    out = np.empty_like(x)
    tk.debug_print_kernel[(1,)](x, out, BLOCK_SIZE=16, executor=executor)
    assert_same(out, x)
    lines = capfd.readouterr().out.splitlines()
    assert lines == ["pid (0, 0, 0) idx (%d) x = %.9g" % (i, v) for i, v in enumerate(x)]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_autotune(rng, executor):
    # @triton.autotune(configs=[triton.Config(...)], key=[...]) over a kernel
    n = 1000
    x, y = randn(rng, n, "float32"), randn(rng, n, "float32")
    out = np.empty_like(x)

    def tune():
        configs = [sw.Config({"BLOCK_SIZE": 128}, num_warps=4),
                   sw.Config({"BLOCK_SIZE": 512}, num_warps=8)]
        tuned = sw.autotune(configs=configs, key=["n_elements"])(tk.add_kernel)
        tuned[lambda meta: (sw.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, executor=executor)
        return tuned

    # Swage does not time the configs: it launches the first (docs/language.md)
    assert tune().best_config.kwargs == {"BLOCK_SIZE": 128}
    assert_same(out, x + y)


# ---- the host helpers the tutorials use ---------------------------------------------------

def test_next_power_of_2():
    # triton.next_power_of_2's values: 0 for n <= 0, else the least 2^k >= n
    assert [sw.next_power_of_2(n) for n in (-3, 0, 1, 2, 3, 4, 5, 781, 1024, 1025)] == \
        [0, 0, 1, 2, 4, 4, 8, 1024, 1024, 2048]
    assert sw.next_power_of_2(2 ** 40 + 1) == 2 ** 41
    assert sw.next_power_of_2(np.int64(100)) == 128
    with pytest.raises(TypeError):
        sw.next_power_of_2(3.5)


# ---- the kernels are Triton source ---------------------------------------------------------

# Every name of triton.language the conformance kernels use (Triton 3.x).
TRITON_LANGUAGE = {
    "program_id", "num_programs", "arange", "load", "store", "where", "minimum", "maximum",
    "exp", "sqrt", "rsqrt", "erf", "sum", "max", "zeros", "constexpr", "float32", "int32",
    "int64", "range", "rand", "atomic_add", "atomic_cas", "atomic_xchg", "debug_barrier",
    "device_print", "extra",
}
# what the tests' host code takes from `swage` (all in `triton` too, except
# the launch option executor=, which picks a CPU executor)
TRITON_TOP_LEVEL = {"jit", "cdiv", "next_power_of_2", "autotune", "Config"}


def to_triton(source):
    """The two renames a port undoes: swage -> triton, sl -> tl, sw -> triton."""
    source = source.replace("import swage.language as sl", "import triton.language as tl")
    source = source.replace("import swage as sw", "import triton")
    source = re.sub(r"\bsl\.", "tl.", source)
    return re.sub(r"\bsw\.", "triton.", source)


def kernels():
    return [obj for _, obj in sorted(vars(tk).items()) if isinstance(obj, sw.JITFunction)]


def code_names(source):
    """The NAME tokens of Python source (comments and strings left out)."""
    return {t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type == tokenize.NAME}


def test_kernels_are_triton_source():
    module = open(os.path.join(HERE, "tutorial_kernels.py")).read()
    assert not code_names(module) & {"tl", "triton"}, "the kernels must be in Swage's names"
    triton_module = to_triton(module)
    ast.parse(triton_module)
    assert "import triton\nimport triton.language as tl\n" in triton_module
    assert not code_names(triton_module) & {"sl", "sw", "swage"}
    assert len(kernels()) >= 15
    for kernel in kernels():
        source = to_triton(kernel.source)
        assert source.startswith("@triton.jit\ndef %s(" % kernel.__name__), source[:80]
        tree = ast.parse(source)
        used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name) and node.value.id == "tl"}
        assert used <= TRITON_LANGUAGE, "%s uses %s, not in triton.language" % (
            kernel.__name__, sorted(used - TRITON_LANGUAGE))
        # the renames are all that changed: undoing them gives the source back
        back = re.sub(r"\btl\.", "sl.", source).replace("@triton.jit", "@sw.jit")
        assert back == kernel.source
    # the host code of the tests uses only what `triton` has, under its name
    for name in ("test_conformance_tutorials.py", "test_conformance_extra.py"):
        text = open(os.path.join(HERE, name)).read()
        used = set(re.findall(r"\bsw\.([A-Za-z_]\w*)", text)) - {"CompileError", "JITFunction"}
        assert used <= TRITON_TOP_LEVEL, "%s uses sw.%s" % (name, sorted(used - TRITON_TOP_LEVEL))


def test_every_kernel_is_tested():
    """Each kernel of tutorial_kernels.py is launched by a conformance test."""
    text = "".join(open(os.path.join(HERE, name)).read()
                   for name in ("test_conformance_tutorials.py", "test_conformance_extra.py"))
    called = set(re.findall(r"\btk\.(\w+)", text))
    helpers = {"gelu"}  # called from a kernel, not launched
    missing = {k.__name__ for k in kernels()} - called - helpers
    assert not missing, "kernels no test launches: %s" % sorted(missing)
    assert inspect.getsourcefile(tk.gelu.fn).endswith("tutorial_kernels.py")
