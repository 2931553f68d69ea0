"""int16, uint16, uint32 and uint64 (and uint8 beside them) as Triton has
them, on both CPU executors against NumPy: what the per-dtype sweeps of
test_tile_ops.py and test_simt_differential.py do not reach.

- Triton's integer promotion on mixed operands, the error for / // % of
  mixed signedness, a negative literal with an unsigned operand, the type
  of an integer literal from 2**31 to 2**32 - 1 (uint32);
- unsigned division, remainder, logical right shift, comparisons and
  min/max at the top of each range (uint64 values from 2**63 up);
- conversions between every integer width and to/from floats at the
  edges, bitcasts between same-width types, umulhi;
- sum and cumsum of narrow unsigned integers and of int1 (uint32, as
  Triton's _pick_sum_dtype), atomics on uint32/uint64;
- scalar arguments over each type's whole range (a uint64 takes
  0 .. 2**64 - 1; an unannotated int from 2**63 up is uint64);
- constant folding that wraps.

Each comparison is exact: NumPy's integer arithmetic wraps as Swage's does.
"""

import re

import numpy as np
import pytest

import swage as sw
import swage.language as sl
from swage_testing import assert_same, expect_compile_error_at_marker

EXECUTORS = ("semantic", "simt")
BLOCK = 64
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
NEW = ("int16", "uint16", "uint32", "uint64")
SL = {"int8": sl.int8, "uint8": sl.uint8, "int16": sl.int16, "uint16": sl.uint16,
      "int32": sl.int32, "uint32": sl.uint32, "int64": sl.int64, "uint64": sl.uint64,
      "float16": sl.float16, "float32": sl.float32, "float64": sl.float64}


def edge_values(rng, dtype, n=BLOCK):
    """Random values of dtype with its extremes and their neighbours first."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    edges = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, info.max // 2, info.max // 2 + 1]
    x[:len(edges)] = np.array(edges, dtype=dtype)
    return x


def launch(kernel, executor, **arguments):
    kernel.launch(arguments=arguments, constexprs={"BLOCK": BLOCK}, grid=(1,), executor=executor)


# ---- unsigned arithmetic at the top of the range ------------------------------------

@sw.jit
def k_unsigned_ops(x_ptr, y_ptr, div_ptr, rem_ptr, shr_ptr, min_ptr, max_ptr, lt_ptr, ge_ptr,
                   mul_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + i)
    y = sl.load(y_ptr + i)
    sl.store(div_ptr + i, x // y)
    sl.store(rem_ptr + i, x % y)
    sl.store(shr_ptr + i, x >> (y & 7))
    sl.store(min_ptr + i, sl.minimum(x, y))
    sl.store(max_ptr + i, sl.maximum(x, y))
    sl.store(lt_ptr + i, x < y)
    sl.store(ge_ptr + i, x >= y)
    sl.store(mul_ptr + i, x * y - x)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_division_shift_compare_at_the_top_of_the_range(rng, executor, dtype):
    x = edge_values(rng, dtype)
    y = edge_values(rng, dtype)[::-1].copy()
    y[::9] = 0  # x // 0 and x % 0 are 0 (docs/language.md)
    outs = {name: np.zeros(BLOCK, dtype) for name in ("div_ptr", "rem_ptr", "shr_ptr", "min_ptr",
                                                        "max_ptr", "mul_ptr")}
    outs.update(lt_ptr=np.zeros(BLOCK, bool), ge_ptr=np.zeros(BLOCK, bool))
    launch(k_unsigned_ops, executor, x_ptr=x, y_ptr=y, **outs)
    safe = np.where(y == 0, 1, y).astype(dtype)
    with np.errstate(over="ignore"):
        want = {"div_ptr": np.where(y == 0, 0, x // safe).astype(dtype),
                "rem_ptr": np.where(y == 0, 0, x % safe).astype(dtype),
                "shr_ptr": x >> (y & np.dtype(dtype).type(7)), "min_ptr": np.minimum(x, y),
                "max_ptr": np.maximum(x, y), "lt_ptr": x < y, "ge_ptr": x >= y,
                "mul_ptr": x * y - x}
    for name, expected in want.items():
        assert_same(outs[name], expected, rng.seed, "%s on %s" % (name, dtype), {"x": x, "y": y})


# ---- promotion ----------------------------------------------------------------------

@sw.jit
def k_add_mixed(x_ptr, y_ptr, out_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    sl.store(out_ptr + i, sl.load(x_ptr + i) + sl.load(y_ptr + i))


# (x, y, Triton's result): same signedness -> the wider; mixed -> the
# unsigned one when it is at least as wide, else the signed one
PROMOTIONS = [
    ("int32", "uint32", "uint32"), ("uint8", "int32", "int32"), ("int8", "uint8", "uint8"),
    ("int16", "uint16", "uint16"), ("uint16", "int32", "int32"), ("uint32", "int64", "int64"),
    ("int64", "uint64", "uint64"), ("uint8", "uint64", "uint64"), ("int16", "int64", "int64"),
    ("uint16", "uint8", "uint16"), ("int8", "int16", "int16"), ("uint32", "int8", "uint32"),
]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("xt, yt, result", PROMOTIONS)
def test_integer_promotion_is_tritons(rng, executor, xt, yt, result):
    x, y = edge_values(rng, xt), edge_values(rng, yt)
    out = np.zeros(BLOCK, result)
    launch(k_add_mixed, executor, x_ptr=x, y_ptr=y, out_ptr=out)
    expected = x.astype(result) + y.astype(result)  # NumPy's astype wraps, as the cast does
    assert_same(out, expected, rng.seed, "%s + %s -> %s" % (xt, yt, result), {"x": x, "y": y})
    text = k_add_mixed.emit_mlir(arguments={"x_ptr": x, "y_ptr": y, "out_ptr": out},
                                 constexprs={"BLOCK": BLOCK})
    mlir = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}.get(result,
                                                                             "ui" + result[4:])
    assert '"sw.add"' in text and ") -> tensor<%dx%s>" % (BLOCK, mlir) in text.split('"sw.add"')[1]


@sw.jit
def k_literal_uint32(out_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    big = sl.full((BLOCK,), 3000000000, sl.uint32)
    sl.store(out_ptr + i, big + i)  # uint32 + int32 -> uint32
    sl.store(out_ptr + BLOCK + i, (big >> 31) + i * 0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_literals_and_uint32(executor):
    out = np.zeros(2 * BLOCK, np.uint32)
    launch(k_literal_uint32, executor, out_ptr=out)
    i = np.arange(BLOCK, dtype=np.uint32)
    assert_same(out[:BLOCK], np.uint32(3000000000) + i)
    assert_same(out[BLOCK:], np.full(BLOCK, 1, np.uint32))


# ---- integer literals from 2**63 to 2**64 - 1: uint64, as Triton's to_tensor ----------

@sw.jit
def k_literal_uint64(x_ptr, out_ptr, flag_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + i)  # uint64
    top = 18446744073709551615  # 2**64 - 1: a uint64
    sl.store(out_ptr + i, x + 9223372036854775808)  # wraps as uint64 does
    sl.store(out_ptr + BLOCK + i, x ^ top)
    sl.store(out_ptr + 2 * BLOCK + i, x // 0x8000000000000001)
    sl.store(out_ptr + 3 * BLOCK + i, x % (2 ** 63 + 3))
    sl.store(out_ptr + 4 * BLOCK + i, i + sl.full((BLOCK,), 18446744073709551611, sl.uint64))
    sl.store(out_ptr + 5 * BLOCK + i, (x > 2 ** 63) + (x != top) * 2 + (x == 2 ** 63) * 4 + 0 * x)
    # folded in Python's integers: 2**64 - 1 - 2**63 is the int64 2**63 - 1
    sl.store(out_ptr + 6 * BLOCK + i, x * 0 + (top - 2 ** 63))
    sl.store(out_ptr + 7 * BLOCK + i, x * 0 + (-(-2 ** 63)) + (top > 2 ** 63) * 7)
    sl.store(flag_ptr + i, (i < BLOCK) | (top == 0xFFFF_FFFF_FFFF_FFFF))
    sl.store(out_ptr + 8 * BLOCK, top)  # a uint64 constant on its own


@pytest.mark.parametrize("executor", EXECUTORS)
def test_literals_from_2_63_are_uint64(rng, executor):
    x = edge_values(rng, np.uint64)
    x[8:12] = [2 ** 63, 2 ** 63 - 1, 2 ** 63 + 1, 2 ** 64 - 1]
    out = np.zeros(8 * BLOCK + 1, np.uint64)
    flag = np.zeros(BLOCK, bool)
    launch(k_literal_uint64, executor, x_ptr=x, out_ptr=out, flag_ptr=flag)
    u = np.uint64
    with np.errstate(over="ignore"):
        want = [x + u(2 ** 63), x ^ u(2 ** 64 - 1), x // u(2 ** 63 + 1), x % u(2 ** 63 + 3),
                np.arange(BLOCK, dtype=u) + u(2 ** 64 - 5),
                ((x > u(2 ** 63)).astype(u) + (x != u(2 ** 64 - 1)) * u(2)
                 + (x == u(2 ** 63)) * u(4)),
                np.full(BLOCK, 2 ** 63 - 1, u), np.full(BLOCK, 2 ** 63 + 7, u)]
    for k, expected in enumerate(want):
        assert_same(out[k * BLOCK:(k + 1) * BLOCK], expected, rng.seed, "row %d" % k, {"x": x})
    assert out[8 * BLOCK] == 2 ** 64 - 1
    assert flag.all()


@sw.jit
def k_literal_type(out_ptr):
    sl.store(out_ptr, 9223372036854775808)


def test_a_literal_from_2_63_is_a_uint64_constant():
    text = k_literal_type.emit_mlir(signature={"out_ptr": "*u64"})
    assert "{value = 9223372036854775808 : ui64}" in text
    k_literal_type.emit_ptx(signature={"out_ptr": "*u64"})


@sw.jit
def e_uint64_literal_with_int64(x_ptr, n):
    r = n.to(sl.int64) + 2 ** 63  # error at col 9: 9223372036854775808 does not fit int64


@sw.jit
def e_literal_past_uint64(x_ptr, n):
    r = n + 18446744073709551616  # error at col 13: too large, 2**64 - 1


@sw.jit
def e_constant_past_uint64(x_ptr, n):
    r = n + (2 ** 64 - 1) * 2  # error at col 14: overflows 64 bits, uint64 from 2**63


@sw.jit
def e_negated_uint64(x_ptr, n):
    r = n + -(2 ** 63 + 1)  # error at col 13: overflows 64 bits


@sw.jit
def e_uint64_arange(x_ptr, n):
    r = sl.arange(0, 2 ** 63)  # error at col 22: must fit int64, a uint64


@sw.jit
def e_uint64_offset(x_ptr, n):
    r = sl.load(x_ptr + 2 ** 63)  # error at col 17: pointer offset, does not fit int64


@sw.jit
def e_uint64_range_bound(x_ptr, n):
    for k in range(0, 0x8000_0000_0000_0000):  # error at col 23: range() bound must fit int64
        n += 1


@pytest.mark.parametrize("kernel", [e_uint64_literal_with_int64, e_literal_past_uint64,
                                    e_constant_past_uint64, e_negated_uint64, e_uint64_arange,
                                    e_uint64_offset, e_uint64_range_bound],
                         ids=lambda k: k.__name__)
def test_uint64_literal_misuses_are_compile_errors(kernel):
    expect_compile_error_at_marker(kernel, __file__, {"x_ptr": "*i32", "n": "i32"})


@sw.jit
def e_floordiv_mixed_signedness(x_ptr, n):
    i = sl.arange(0, 16)
    x = sl.load(x_ptr + i)
    q = x // n.to(sl.uint32)  # error at col 9: different signedness


@sw.jit
def e_mod_mixed_signedness(x_ptr, n):
    u = n.to(sl.uint64)
    r = n.to(sl.int64) % u  # error at col 9: different signedness


@sw.jit
def e_truediv_mixed_signedness(x_ptr, n):
    r = n.to(sl.uint8) / n.to(sl.int16)  # error at col 9: different signedness


@sw.jit
def e_negative_literal_with_unsigned(x_ptr, n):
    r = n.to(sl.uint32) + -1  # error at col 9: -1 does not fit uint32


@sw.jit
def e_umulhi_int16(x_ptr, n):
    r = sl.umulhi(n.to(sl.int16), n.to(sl.int16))  # error at col 9: int32, uint32, int64 or uint64


@sw.jit
def e_bitcast_other_width(x_ptr, n):
    r = n.to(sl.uint16).to(sl.float32, bitcast=True)  # error at col 28: one width


@pytest.mark.parametrize("kernel", [e_floordiv_mixed_signedness, e_mod_mixed_signedness,
                                    e_truediv_mixed_signedness, e_negative_literal_with_unsigned,
                                    e_umulhi_int16, e_bitcast_other_width],
                         ids=lambda k: k.__name__)
def test_malformed_uses_are_compile_errors_at_the_construct(kernel):
    expect_compile_error_at_marker(kernel, __file__, {"x_ptr": "*i32", "n": "i32"})


# ---- conversions --------------------------------------------------------------------

@sw.jit
def k_convert(x_ptr, out_ptr, DTYPE: sl.constexpr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    sl.store(out_ptr + i, sl.load(x_ptr + i).to(DTYPE))


def int_to_int(x, dst):
    """NumPy's astype between integers: two's complement wrap (what C and Swage do)."""
    return x.astype(dst)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("src", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                 "uint64"])
@pytest.mark.parametrize("dst", ["int16", "uint16", "uint32", "uint64", "int64", "int8"])
def test_integer_casts_extend_by_the_source_and_wrap(rng, executor, src, dst):
    x = edge_values(rng, src)
    out = np.zeros(BLOCK, dst)
    k_convert.launch(arguments={"x_ptr": x, "out_ptr": out},
                     constexprs={"DTYPE": SL[dst], "BLOCK": BLOCK}, grid=(1,), executor=executor)
    assert_same(out, int_to_int(x, dst), rng.seed, "%s -> %s" % (src, dst), {"x": x})


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("src", UNSIGNED + ("int16",))
@pytest.mark.parametrize("dst", ["float16", "float32", "float64"])
def test_unsigned_to_float_rounds_once(rng, executor, src, dst):
    x = edge_values(rng, src)
    out = np.zeros(BLOCK, dst)
    k_convert.launch(arguments={"x_ptr": x, "out_ptr": out},
                     constexprs={"DTYPE": SL[dst], "BLOCK": BLOCK}, grid=(1,), executor=executor)
    # Python's int -> float is correctly rounded; float64 -> float32/16 would
    # round twice, so the reference rounds the exact value by fractions.
    from fractions import Fraction
    expected = np.array([float(np.array(float(Fraction(int(v))), np.float64).astype(dst))
                         if dst == "float64" else exact_round(int(v), dst) for v in x], dst)
    assert_same(out, expected, rng.seed, "%s -> %s" % (src, dst), {"x": x})


def exact_round(v, dst):
    """The integer v rounded once to nearest even in float16/float32."""
    info = np.finfo(dst)
    mant = info.nmant + 1
    if v == 0:
        return 0.0
    e = v.bit_length() - mant
    if e <= 0:
        r = v
    else:
        q, rem = divmod(v, 1 << e)
        half = 1 << (e - 1)
        if rem > half or (rem == half and q & 1):
            q += 1
        r = q << e
    return float(r) if r <= float(info.max) else float("inf")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dst", UNSIGNED + ("int16",))
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_float_to_unsigned_truncates_and_saturates(rng, executor, src, dst):
    info = np.iinfo(dst)
    special = [0.0, -0.0, 0.7, -0.7, -5.0, float(info.max) * 4, -1e30, np.nan, np.inf, -np.inf,
               float(info.max) / 3, 2.0 ** 63, 2.0 ** 64 - 2048, 2.0 ** 31 + 0.5]
    x = np.concatenate([np.array(special, np.float64),
                        rng.uniform(-10, float(info.max), BLOCK - len(special))]).astype(src)
    out = np.zeros(BLOCK, dst)
    k_convert.launch(arguments={"x_ptr": x, "out_ptr": out},
                     constexprs={"DTYPE": SL[dst], "BLOCK": BLOCK}, grid=(1,), executor=executor)
    expected = []
    for v in x.astype(np.float64):
        if np.isnan(v):
            expected.append(0)
        elif v >= float(info.max) + 1:
            expected.append(int(info.max))
        elif v <= float(info.min) - 1:
            expected.append(int(info.min))
        else:
            expected.append(int(np.trunc(v)))
    assert_same(out, np.array(expected, dtype=dst), rng.seed, "%s -> %s" % (src, dst), {"x": x})


@sw.jit
def k_bitcasts(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, f_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    a = sl.load(a_ptr + i)  # uint16
    b = sl.load(b_ptr + i)  # uint32
    c = sl.load(c_ptr + i)  # uint64
    sl.store(d_ptr + i, a.to(sl.float16, bitcast=True).to(sl.int16, bitcast=True))
    sl.store(e_ptr + i, b.to(sl.float32, bitcast=True).to(sl.int32, bitcast=True))
    sl.store(f_ptr + i, sl.cast(c, sl.int64, bitcast=True))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bitcasts_between_same_width_types(rng, executor):
    a, b, c = edge_values(rng, "uint16"), edge_values(rng, "uint32"), edge_values(rng, "uint64")
    # no float16 NaN patterns: the CPU executors hold a float16 as its value,
    # so a NaN's payload does not survive (docs/language.md, Bitcasts)
    a = np.where((a & 0x7C00) == 0x7C00, a & 0x83FF, a).astype(np.uint16)
    # no float32 signaling NaNs: the CPU executors may quiet them (set bit
    # 22) as they pass through a float register (docs/language.md, Bitcasts)
    snan = ((b & 0x7F800000) == 0x7F800000) & ((b & 0x7FFFFF) != 0) & ((b & 0x400000) == 0)
    b = np.where(snan, b | 0x400000, b).astype(np.uint32)
    d, e, f = np.zeros(BLOCK, np.int16), np.zeros(BLOCK, np.int32), np.zeros(BLOCK, np.int64)
    launch(k_bitcasts, executor, a_ptr=a, b_ptr=b, c_ptr=c, d_ptr=d, e_ptr=e, f_ptr=f)
    assert_same(d, a.view(np.int16), rng.seed, "uint16 -> float16 -> int16 bits")
    assert_same(e, b.view(np.int32), rng.seed, "uint32 -> float32 -> int32 bits")
    assert_same(f, c.view(np.int64), rng.seed, "uint64 -> int64 bits")


@sw.jit
def k_umulhi(x_ptr, y_ptr, out_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    sl.store(out_ptr + i, sl.umulhi(sl.load(x_ptr + i), sl.load(y_ptr + i)))


@sw.jit
def k_sum_int1(x_ptr, s_ptr, c_ptr, r_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    b = sl.load(x_ptr + i) > 0  # an int1 tile
    s = sl.sum(b)  # a uint32, as Triton's (int1 is unsigned there)
    sl.store(s_ptr, s)
    sl.store(s_ptr + 1, (s - (BLOCK + 1)) >> 31)  # 1 when unsigned (logical), -1 if signed
    sl.store(s_ptr + 2, sl.prod(b | (i >= 0)) + 0 * s)
    c = sl.cumsum(b)
    sl.store(c_ptr + i, (c - (BLOCK + 1)) >> 31)
    b2 = sl.reshape(b, (8, BLOCK // 8))
    r = sl.sum(b2, axis=1)
    sl.store(r_ptr + sl.arange(0, 8), r)
    sl.store(r_ptr + 8 + sl.arange(0, 8), (r - 100) >> 31)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_sum_of_int1_is_uint32(rng, executor):
    x = rng.integers(-1, 2, BLOCK).astype(np.int32)
    s, c, r = np.zeros(3, np.int64), np.zeros(BLOCK, np.int64), np.zeros(16, np.int64)
    launch(k_sum_int1, executor, x_ptr=x, s_ptr=s, c_ptr=c, r_ptr=r)
    b = x > 0
    assert list(s) == [b.sum(), 1, 1], (s, x)
    assert_same(c, np.ones(BLOCK, np.int64), rng.seed, "cumsum of int1", {"x": x})
    assert_same(r[:8], b.reshape(8, -1).sum(axis=1).astype(np.int64), rng.seed, "sum along")
    assert_same(r[8:], np.ones(8, np.int64), rng.seed, "sum along, unsigned")
    text = k_sum_int1.emit_mlir(arguments={"x_ptr": x, "s_ptr": s, "c_ptr": c, "r_ptr": r},
                                constexprs={"BLOCK": BLOCK})
    assert re.search(r'"sw.reduce"\(%\d+\) \{kind = "sum"\} : \(tensor<64xui32>\) -> ui32\n',
                     text), text
    assert re.search(r'"sw.cast"\(%\d+\) : \(tensor<64xi1>\) -> tensor<64xui32>', text), text
    assert "-> tensor<8xui32>" in text, text


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_umulhi_on_unsigned(rng, executor, dtype):
    bits = np.iinfo(dtype).bits
    x, y = edge_values(rng, dtype), edge_values(rng, dtype)[::-1].copy()
    out = np.zeros(BLOCK, dtype)
    launch(k_umulhi, executor, x_ptr=x, y_ptr=y, out_ptr=out)
    expected = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype)
    assert_same(out, expected, rng.seed, "umulhi on " + dtype, {"x": x, "y": y})


# ---- reductions, scans, atomics ------------------------------------------------------

@sw.jit
def k_sum_cumsum(x_ptr, s_ptr, c_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    x = sl.load(x_ptr + i)
    sl.store(s_ptr, sl.sum(x))
    sl.store(c_ptr + i, sl.cumsum(x))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype, acc", [("uint8", "uint32"), ("uint16", "uint32"),
                                        ("int16", "int32"), ("uint32", "uint32"),
                                        ("uint64", "uint64")])
def test_sum_and_cumsum_of_narrow_unsigned_are_uint32(rng, executor, dtype, acc):
    x = edge_values(rng, dtype)
    s, c = np.zeros(1, acc), np.zeros(BLOCK, acc)
    launch(k_sum_cumsum, executor, x_ptr=x, s_ptr=s, c_ptr=c)
    with np.errstate(over="ignore"):
        assert_same(s, np.array([x.astype(acc).sum(dtype=acc)], acc), rng.seed, "sum of " + dtype)
        assert_same(c, np.cumsum(x.astype(acc), dtype=acc), rng.seed, "cumsum of " + dtype)
    text = k_sum_cumsum.emit_mlir(arguments={"x_ptr": x, "s_ptr": s, "c_ptr": c},
                                  constexprs={"BLOCK": BLOCK})
    mlir = {"int32": "i32"}.get(acc, "ui" + acc[4:])
    pattern = r'"sw.reduce"\(%\d+\) \{kind = "sum"\} : \(tensor<64xT>\) -> T\n'
    assert re.search(pattern.replace("T", mlir), text), text


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_atomics_on_unsigned(rng, executor, dtype):
    v = edge_values(rng, dtype)
    info = np.iinfo(dtype)
    p = np.array([5, 0, info.max, 0, 0, info.max, 9, 0], dtype)
    old = np.zeros(BLOCK, dtype)
    launch(k_atomics_simple, executor, p_ptr=p, v_ptr=v, old_ptr=old)
    with np.errstate(over="ignore"):
        total = (np.uint64(5) + v.astype(np.uint64).sum(dtype=np.uint64)).astype(dtype)
    assert p[0] == total
    assert p[1] == v.max() and p[2] == v.min()
    assert p[3] == np.bitwise_xor.reduce(v) and p[4] == np.bitwise_or.reduce(v)
    assert p[5] == np.bitwise_and.reduce(v)
    assert p[6] == v[0]  # cas(9 == 9): swapped in
    # the old values of the adds: each a distinct prefix sum in some order
    assert len(set(old.tolist())) == BLOCK or len(set(v.tolist())) < BLOCK


@sw.jit
def k_atomics_simple(p_ptr, v_ptr, old_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    v = sl.load(v_ptr + i)
    zero = i * 0
    sl.store(old_ptr + i, sl.atomic_add(p_ptr + zero, v))
    sl.atomic_max(p_ptr + 1 + zero, v)
    sl.atomic_min(p_ptr + 2 + zero, v)
    sl.atomic_xor(p_ptr + 3 + zero, v)
    sl.atomic_or(p_ptr + 4 + zero, v)
    sl.atomic_and(p_ptr + 5 + zero, v)
    first = sl.load(v_ptr)
    sl.atomic_cas(p_ptr + 6, sl.load(p_ptr + 6), first)


# ---- scalar arguments -----------------------------------------------------------------

@sw.jit
def k_scalar(out_ptr, value):
    sl.store(out_ptr, value)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", NEW + ("uint8", "int8", "int32", "int64"))
def test_scalar_arguments_take_the_whole_range(executor, dtype):
    info = np.iinfo(dtype)
    for value in (int(info.min), int(info.max), 0, int(info.max) // 3):
        out = np.zeros(1, dtype)
        k_scalar.launch(arguments={"out_ptr": out, "value": getattr(np, dtype)(value)}, grid=(1,),
                        executor=executor)
        assert int(out[0]) == value, (dtype, value)


@sw.jit
def k_annotated(out_ptr, value: sl.uint64, small: sl.uint16):
    sl.store(out_ptr, value)
    sl.store(out_ptr + 1, small.to(sl.uint64))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_uint64_parameter_takes_0_to_2_to_the_64_minus_1(executor):
    out = np.zeros(2, np.uint64)
    for value in (0, 2 ** 63, 2 ** 64 - 1, 12345):
        k_annotated.launch(arguments={"out_ptr": out, "value": value, "small": 65535}, grid=(1,),
                           executor=executor)
        assert int(out[0]) == value and int(out[1]) == 65535
    for bad in (-1, 2 ** 64):
        with pytest.raises(ValueError, match="'value' = .* does not fit in uint64"):
            k_annotated.launch(arguments={"out_ptr": out, "value": bad, "small": 1}, grid=(1,),
                               executor=executor)
    with pytest.raises(ValueError, match="'small' = 65536 does not fit in uint16"):
        k_annotated.launch(arguments={"out_ptr": out, "value": 1, "small": 65536}, grid=(1,),
                           executor=executor)


@pytest.mark.parametrize("value, mlir_type", [
    (2 ** 63, "ui64"), (2 ** 64 - 1, "ui64"), (np.uint32(7), "ui32"), (np.uint16(7), "ui16"),
    (np.int16(-7), "i16"), (np.uint64(2 ** 64 - 1), "ui64")])
def test_unannotated_scalar_types(value, mlir_type):
    out = np.zeros(1, np.uint64)
    text = k_scalar.emit_mlir(arguments={"out_ptr": out, "value": value})
    assert "%%value: %s" % mlir_type in text
    k_scalar.launch(arguments={"out_ptr": out, "value": value}, grid=(1,))
    assert int(out[0]) == int(value) % 2 ** 64


def test_an_int_beyond_uint64_is_a_value_error():
    with pytest.raises(ValueError, match="does not fit in int64 or uint64"):
        k_scalar.launch(arguments={"out_ptr": np.zeros(1, np.uint64), "value": 2 ** 64}, grid=(1,))


# ---- folding ------------------------------------------------------------------------

@sw.jit
def k_folds(out_ptr, BLOCK: sl.constexpr):
    i = sl.arange(0, BLOCK)
    top = sl.full((BLOCK,), 4294967295, sl.uint32)
    sl.store(out_ptr + i, (top + 1 + i * 0).to(sl.uint64))  # wraps to 0
    big = sl.full((BLOCK,), 9223372036854775807, sl.uint64) + 2  # 2**63 + 1
    sl.store(out_ptr + BLOCK + i, big // 3 + (big > 5).to(sl.uint64))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_constant_folding_wraps_and_divides_unsigned(executor):
    out = np.zeros(2 * BLOCK, np.uint64)
    launch(k_folds, executor, out_ptr=out)
    assert_same(out[:BLOCK], np.zeros(BLOCK, np.uint64))
    assert_same(out[BLOCK:], np.full(BLOCK, (2 ** 63 + 1) // 3 + 1, np.uint64))
    text = k_folds.emit_mlir(arguments={"out_ptr": out}, constexprs={"BLOCK": BLOCK})
    assert '"sw.idiv"' not in text and '"sw.cmp"' not in text


# ---- loops ----------------------------------------------------------------------------

@sw.jit
def k_loop(out_ptr, start: sl.uint32, end: sl.uint32):
    total = sl.full((1,), 0, sl.uint64)
    for i in range(start, end):
        total += (i - start + 1).to(sl.uint64) * 0 + i.to(sl.uint64)
    sl.store(out_ptr + sl.arange(0, 1), total)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_over_uint32_bounds_past_2_to_the_31(executor):
    out = np.zeros(1, np.uint64)
    start, end = 2 ** 31 + 5, 2 ** 31 + 9
    k_loop.launch(arguments={"out_ptr": out, "start": start, "end": end}, grid=(1,),
                  executor=executor)
    assert int(out[0]) == sum(range(start, end))


@sw.jit
def offset_by_big_literal(x_ptr, out_ptr):
    sl.store(out_ptr, sl.load(x_ptr + 4294967295))


def test_a_pointer_offset_literal_past_int32_is_int64():
    """A literal from 2**31 to 2**32 - 1 is a uint32 as a value, but a
    pointer offset is signed: it becomes an int64 offset (the fuzzer found
    the uint32 offset reaching the verifier)."""
    ir = offset_by_big_literal.emit_mlir(signature={"x_ptr": "*u8", "out_ptr": "*u8"})
    assert "value = 4294967295 : i64" in ir and "sw.addptr" in ir, ir
    offset_by_big_literal.emit_ptx(signature={"x_ptr": "*u8", "out_ptr": "*u8"})
