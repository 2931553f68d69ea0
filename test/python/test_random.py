"""sl.randint, sl.rand and sl.randn: Triton's Philox streams, on both CPU
executors, against a NumPy Philox written here from the algorithm (itself
checked against Philox's published known-answer vectors):

- 32-bit offsets run Philox-4x32 with the key (seed's low word, high word),
  64-bit offsets Philox-4x64 with the key (seed, 0), counter (offset, 0, 0,
  0), n_rounds rounds (10 by default);
- randint is the first word (bit for bit, uint32 or uint64 as Triton's
  randint returns it), rand maps it to float32 as
  Triton does (bit for bit), randn is Box-Muller's cosine value of the
  first two words (to float32 rounding of log, sqrt and cos);
- seeds are runtime or compile-time integers (an int32 seed is widened
  with its sign), offsets scalars or tiles;
- malformed uses are compile errors at the construct.

The GPU suite compares the same kernels with Triton's own generator.
"""

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing
from swage_testing import assert_same

EXECUTORS = ("semantic", "simt")
BLOCK = 64

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
WORDS = {32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, M32),
         64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, M64)}


def philox(bits, counter, key, rounds=10):
    """Philox-4xbits on Python ints: counter of 4 words, key of 2."""
    a, b, ka, kb, mask = WORDS[bits]
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        pa, pb = a * c0, b * c2
        c0, c1, c2, c3 = ((pb >> bits) ^ c1 ^ k0) & mask, pb & mask, ((pa >> bits) ^ c3 ^ k1) & mask, pa & mask
        k0, k1 = (k0 + ka) & mask, (k1 + kb) & mask
    return c0, c1, c2, c3


def test_the_reference_is_philox():
    """Known-answer vectors of Philox-4x32-10 and Philox-4x64-10 (Random123)."""
    assert philox(32, (0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert philox(32, (M32,) * 4, (M32, M32)) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert philox(64, (0, 0, 0, 0), (0, 0)) == (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC,
                                               0xD7E772CEE186176B, 0x7E68B68AEC7BA23B)


def reference_words(seed, offsets, bits, rounds=10):
    seed &= M64
    key = (seed & M32, seed >> 32) if bits == 32 else (seed, 0)
    mask = M32 if bits == 32 else M64
    return [philox(bits, (int(o) & mask, 0, 0, 0), key, rounds) for o in offsets]


def signed(word, bits):
    return word - (1 << bits) if word >> (bits - 1) else word


def uniform(words, bits):
    """Triton's uint_to_uniform_float in float32."""
    x = np.array([signed(w, bits) for w in words], dtype=np.int32 if bits == 32 else np.int64)
    x = np.where(x < 0, -x - 1, x)
    scale = np.float32(4.6566127342e-10 if bits == 32 else 1.0842020432385337e-19)
    return x.astype(np.float32) * scale


def reference(kind, seed, offsets, bits, rounds=10):
    words = reference_words(seed, offsets, bits, rounds)
    if kind == "randint":
        return np.array([w[0] for w in words], dtype=np.uint32 if bits == 32 else np.uint64)
    if kind == "rand":
        return uniform([w[0] for w in words], bits)
    u1 = np.maximum(np.float32(1e-7), uniform([w[0] for w in words], bits)).astype(np.float64)
    u2 = uniform([w[1] for w in words], bits).astype(np.float64)
    return (np.sqrt(-2.0 * np.log(u1)) * np.cos(np.float32(6.283185307179586) * u2)).astype(np.float32)


@sw.jit
def k_randint(out_ptr, seed, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(out_ptr + offs, sl.randint(seed, offs), mask=offs < n)


@sw.jit
def k_rand(out_ptr, seed, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(out_ptr + offs, sl.rand(seed, offs), mask=offs < n)


@sw.jit
def k_randn(out_ptr, seed, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(out_ptr + offs, sl.randn(seed, offs), mask=offs < n)


@sw.jit
def k_rand_offsets(offsets_ptr, out_ptr, seed, n, ROUNDS: sl.constexpr, BLOCK: sl.constexpr):
    """Offsets from memory (32 or 64 bits, either signedness: the word size follows them)."""
    i = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    offs = sl.load(offsets_ptr + i, mask=i < n, other=0)
    sl.store(out_ptr + i, sl.randint(seed, offs, ROUNDS), mask=i < n)


@sw.jit
def k_dropout(x_ptr, out_ptr, n, p, seed, BLOCK: sl.constexpr):
    """Triton's low-memory dropout tutorial, as written there."""
    pid = sl.program_id(axis=0)
    block_start = pid * BLOCK
    offsets = block_start + sl.arange(0, BLOCK)
    mask = offsets < n
    x = sl.load(x_ptr + offsets, mask=mask)
    random = sl.rand(seed, offsets)
    x_keep = random > p
    output = sl.where(x_keep, x / (1 - p), 0.0)
    sl.store(out_ptr + offsets, output, mask=mask)


@sw.jit
def k_constant_seed(out_ptr, n, SEED: sl.constexpr, BLOCK: sl.constexpr):
    """A compile-time seed and a scalar offset: everything folds."""
    offs = sl.arange(0, BLOCK)
    value = sl.randint(SEED, 12345)
    sl.store(out_ptr + offs, value + offs * 0, mask=offs < n)


@sw.jit
def k_four(int_ptr, uni_ptr, nrm_ptr, seed, n, BLOCK: sl.constexpr):
    """The 4x forms: four words, four uniforms, four normals a counter."""
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    i0, i1, i2, i3 = sl.randint4x(seed, offs)
    u0, u1, u2, u3 = sl.rand4x(seed, offs)
    n0, n1, n2, n3 = sl.randn4x(seed, offs)
    sl.store(int_ptr + 4 * offs, i0, mask=m)
    sl.store(int_ptr + 4 * offs + 1, i1, mask=m)
    sl.store(int_ptr + 4 * offs + 2, i2, mask=m)
    sl.store(int_ptr + 4 * offs + 3, i3, mask=m)
    sl.store(uni_ptr + 4 * offs, u0, mask=m)
    sl.store(uni_ptr + 4 * offs + 1, u1, mask=m)
    sl.store(uni_ptr + 4 * offs + 2, u2, mask=m)
    sl.store(uni_ptr + 4 * offs + 3, u3, mask=m)
    sl.store(nrm_ptr + 4 * offs, n0, mask=m)
    sl.store(nrm_ptr + 4 * offs + 1, n1, mask=m)
    sl.store(nrm_ptr + 4 * offs + 2, n2, mask=m)
    sl.store(nrm_ptr + 4 * offs + 3, n3, mask=m)


def launch(kernel, executor, n, **arguments):
    kernel.launch(arguments=dict(arguments, n=n), constexprs={"BLOCK": BLOCK},
                  grid=((n + BLOCK - 1) // BLOCK,), executor=executor)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("kind, kernel, dtype", [("randint", k_randint, np.uint32),
                                                 ("rand", k_rand, np.float32),
                                                 ("randn", k_randn, np.float32)])
@pytest.mark.parametrize("seed", [0, 1234, -7, (1 << 40) + 99, -(1 << 62)])
def test_streams_match_the_reference(executor, kind, kernel, dtype, seed):
    n = 200
    out = np.zeros(n, dtype)
    launch(kernel, executor, n, out_ptr=out, seed=seed)
    want = reference(kind, seed, range(n), 32)
    if kind == "randn":
        np.testing.assert_allclose(out, want, rtol=2e-6, atol=2e-6)
    else:
        assert_same(out, want)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_rand_is_in_the_unit_interval_and_uniform(executor):
    n = 1 << 14
    out = np.zeros(n, np.float32)
    launch(k_rand, executor, n, out_ptr=out, seed=42)
    assert out.min() >= 0.0 and out.max() < 1.0
    assert abs(out.mean() - 0.5) < 0.01 and abs(out.var() - 1 / 12) < 0.005
    normal = np.zeros(n, np.float32)
    launch(k_randn, executor, n, out_ptr=normal, seed=42)
    assert abs(normal.mean()) < 0.03 and abs(normal.std() - 1.0) < 0.03


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype, bits", [(np.int32, 32), (np.int64, 64), (np.uint32, 32),
                                         (np.uint64, 64)])
@pytest.mark.parametrize("rounds", [10, 7, 0])
def test_offsets_of_either_width_and_fewer_rounds(executor, dtype, bits, rounds):
    rng = np.random.default_rng(rounds)
    n = 150
    info = np.iinfo(dtype)
    offsets = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    offsets[:3] = [0, info.min, info.max]
    out = np.zeros(n, np.uint32 if bits == 32 else np.uint64)
    k_rand_offsets.launch(arguments={"offsets_ptr": offsets, "out_ptr": out, "seed": 2024, "n": n},
                          constexprs={"ROUNDS": rounds, "BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,),
                          executor=executor)
    # an offset is its bits: a negative one is the unsigned counter 2**bits + offset
    assert_same(out, reference("randint", 2024, [int(o) % (1 << bits) for o in offsets], bits, rounds))


def normals(words, bits):
    """Box-Muller's two values of two words, in float64 from float32 uniforms."""
    u1 = np.maximum(np.float32(1e-7), uniform(words[0], bits)).astype(np.float64)
    th = (np.float32(6.283185307179586) * uniform(words[1], bits)).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    return (r * np.cos(th)).astype(np.float32), (r * np.sin(th)).astype(np.float32)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("seed", [3, -(1 << 33)])
def test_the_four_word_forms(executor, seed):
    n = 150
    ints, uni, nrm = np.zeros(4 * n, np.uint32), np.zeros(4 * n, np.float32), np.zeros(4 * n, np.float32)
    k_four.launch(arguments={"int_ptr": ints, "uni_ptr": uni, "nrm_ptr": nrm, "seed": seed, "n": n},
                  constexprs={"BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,), executor=executor)
    words = reference_words(seed, range(n), 32)
    columns = [[w[j] for w in words] for j in range(4)]
    for j in range(4):
        assert_same(ints[j::4], np.array(columns[j], np.uint32))
        assert_same(uni[j::4], uniform(columns[j], 32))
    n0, n1 = normals(columns[0:2], 32)
    n2, n3 = normals(columns[2:4], 32)
    for j, want in enumerate((n0, n1, n2, n3)):
        np.testing.assert_allclose(nrm[j::4], want, rtol=2e-6, atol=2e-6)
    # randn is randn4x's first value
    first = np.zeros(n, np.float32)
    launch(k_randn, executor, n, out_ptr=first, seed=seed)
    assert_same(first, nrm[0::4])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_compile_time_seed_folds_to_the_same_stream(executor):
    out = np.zeros(BLOCK, np.uint32)
    k_constant_seed.launch(arguments={"out_ptr": out, "n": BLOCK}, constexprs={"SEED": -99, "BLOCK": BLOCK},
                           grid=(1,), executor=executor)
    assert_same(out, np.full(BLOCK, reference("randint", -99, [12345], 32)[0], np.uint32))


@sw.jit
def k_randint_types(out32_ptr, out64_ptr, seed, BLOCK: sl.constexpr):
    offs = sl.arange(0, BLOCK)
    a = sl.randint(seed, offs)
    b = sl.randint(seed, offs.to(sl.int64))
    sl.store(out32_ptr + offs, a >> 28)  # logical: the top four bits
    sl.store(out64_ptr + offs, b >> 60)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_randint_is_unsigned_as_in_triton(executor):
    out32, out64 = np.zeros(BLOCK, np.uint32), np.zeros(BLOCK, np.uint64)
    k_randint_types.launch(arguments={"out32_ptr": out32, "out64_ptr": out64, "seed": 77},
                           constexprs={"BLOCK": BLOCK}, grid=(1,), executor=executor)
    text = k_randint_types.emit_mlir(arguments={"out32_ptr": out32, "out64_ptr": out64, "seed": 77},
                                     constexprs={"BLOCK": BLOCK})
    assert "ui32" in text and "ui64" in text
    assert_same(out32, reference("randint", 77, range(BLOCK), 32) >> np.uint32(28))
    assert_same(out64, reference("randint", 77, range(BLOCK), 64) >> np.uint64(60))
    assert out32.max() > 7 and out64.max() > 7  # words with the top bit set shift logically


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_dropout_tutorial(executor):
    rng = np.random.default_rng(5)
    n, p = 1000, 0.3
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    k_dropout.launch(arguments={"x_ptr": x, "out_ptr": out, "n": n, "p": p, "seed": 17},
                     constexprs={"BLOCK": BLOCK}, grid=((n + BLOCK - 1) // BLOCK,), executor=executor)
    keep = reference("rand", 17, range(n), 32) > np.float32(p)
    np.testing.assert_allclose(out, np.where(keep, x / np.float32(1 - p), 0), rtol=1e-6)
    assert 0.6 < keep.mean() < 0.8


# ---- malformed uses -------------------------------------------------------------

PTRS = {"x_ptr": "*f32", "out_ptr": "*f32", "n": "i32", "s": "f32"}


@sw.jit
def k_float_offset(x_ptr, out_ptr, n, s):
    r = sl.rand(1, s)  # error at col 20: offset, int32, uint32, int64 or uint64


@sw.jit
def k_float_seed(x_ptr, out_ptr, n, s):
    r = sl.randint(s, n)  # error at col 20: seed, integer scalar


@sw.jit
def k_pointer_offset(x_ptr, out_ptr, n, s):
    r = sl.randn(n, x_ptr)  # error at col 21: offset


@sw.jit
def k_runtime_rounds(x_ptr, out_ptr, n, s):
    r = sl.rand(1, n, n)  # error at col 23: n_rounds


@sw.jit
def k_too_many_rounds(x_ptr, out_ptr, n, s):
    r = sl.rand(1, n, 100)  # error at col 23: n_rounds, 0..64


@sw.jit
def k_tile_seed(x_ptr, out_ptr, n, s):
    r = sl.rand(sl.arange(0, 4), n)  # error at col 17: seed, scalar


CASES = [k_float_offset, k_float_seed, k_pointer_offset, k_runtime_rounds, k_too_many_rounds,
         k_tile_seed]


@pytest.mark.parametrize("kernel", CASES, ids=[k.__name__ for k in CASES])
def test_malformed_use_is_a_compile_error_at_the_construct(kernel):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, PTRS)
