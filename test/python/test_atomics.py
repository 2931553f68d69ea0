"""The atomics (docs/language.md, "Atomics") on both CPU executors against
NumPy references, with fresh random inputs each run; their compile errors
at the exact line and column; and every PTX form they emit, assembled by
ptxas for sm_90 and sm_80.

What must hold:
- the semantic executor (the oracle) runs programs in order and a tile's
  elements in order, so its final memory and every returned old value equal
  a sequential Python reference exactly;
- the SIMT executor applies a tile atomic slot by slot, each slot's threads
  in order (docs/simt.md), so where several elements of one tile hit one
  address the old values come in another order: its final memory must
  equal the reference (integer and exactly representable float sums), and
  its old values must be those of *some* sequential order (checked per
  address: the old values of add chain up, every element is applied once);
- masked-off lanes access nothing and return 0; scalar atomics are made
  once per program and their old value reaches the whole program.

Tile lengths 16 (a replicated tile: 16 elements over 32 threads), 64 (one
warp), 1024 (four warps: scalar old values go through shared memory).
"""

import importlib.util
import os
import shutil
import subprocess

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import swage_testing

EXECUTORS = ("semantic", "simt")
BLOCKS = (16, 64, 1024)


def cdiv(a, b):
    return (a + b - 1) // b


def launch(kernel, executor, grid, constexprs=None, **arguments):
    kernel.launch(arguments=arguments, constexprs=constexprs or {}, grid=grid, executor=executor)


def float_bits(values):
    """The bit patterns of a float array as unsigned integers."""
    values = np.asarray(values)
    return values.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[values.dtype.itemsize])


def total_order_key(values):
    """Integers whose order is IEEE totalOrder on the floats' bit patterns."""
    bits = float_bits(values).astype(object)
    width = np.asarray(values).dtype.itemsize * 8
    sign = 1 << (width - 1)
    return [((~b) & ((1 << width) - 1)) if b & sign else b | sign for b in bits]


# ---- kernels -------------------------------------------------------------------------------

@sw.jit
def k_add(idx_ptr, w_ptr, out_ptr, old_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    i = sl.load(idx_ptr + offs, mask=m)
    w = sl.load(w_ptr + offs, mask=m)
    old = sl.atomic_add(out_ptr + i, w, mask=m)
    sl.store(old_ptr + offs, old)  # masked-off lanes too: they read 0


@sw.jit
def k_count(idx_ptr, out_ptr, old_ptr, n, BLOCK: sl.constexpr, STEP: sl.constexpr):
    """A relaxed add of a constant whose old value is used: the PTX adds it
    once per address per warp (docs/language.md, "Atomics")."""
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    i = sl.load(idx_ptr + offs, mask=m)
    old = sl.atomic_add(out_ptr + i, STEP, mask=m, sem="relaxed")
    sl.store(old_ptr + offs, old)


@sw.jit
def k_add_method(idx_ptr, w_ptr, out_ptr, old_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    i = sl.load(idx_ptr + offs, mask=m)
    old = (out_ptr + i).atomic_add(sl.load(w_ptr + offs, mask=m), mask=m, sem="relaxed")
    sl.store(old_ptr + offs, old)


@sw.jit
def k_add_unused(idx_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    sl.atomic_add(out_ptr + sl.load(idx_ptr + offs, mask=m), 1, mask=m)
    sl.atomic_add(out_ptr, 1)  # a scalar whose old value nobody reads


@sw.jit
def k_rmw(idx_ptr, v_ptr, a_ptr, b_ptr, c_ptr, olda_ptr, oldb_ptr, oldc_ptr, n, KIND: sl.constexpr,
          BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    i = sl.load(idx_ptr + offs, mask=m)
    v = sl.load(v_ptr + offs, mask=m)
    if KIND == 0:
        x = sl.atomic_max(a_ptr + i, v, mask=m)
        y = sl.atomic_min(b_ptr + i, v, mask=m)
        z = sl.atomic_xchg(c_ptr + i, v, mask=m)
    else:
        x = sl.atomic_and(a_ptr + i, v, mask=m, sem="acquire", scope="cta")
        y = sl.atomic_or(b_ptr + i, v, mask=m, sem="release", scope="sys")
        z = sl.atomic_xor(c_ptr + i, v, mask=m, sem="relaxed", scope="gpu")
    sl.store(olda_ptr + offs, x)
    sl.store(oldb_ptr + offs, y)
    sl.store(oldc_ptr + offs, z)


@sw.jit
def k_cas(p_ptr, cmp_ptr, val_ptr, old_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    m = offs < n
    old = sl.atomic_cas(p_ptr + sl.where(m, offs, 0), sl.load(cmp_ptr + offs, mask=m),
                        sl.load(val_ptr + offs, mask=m))
    sl.store(old_ptr + offs, old, mask=m)


@sw.jit
def k_cas_ticket(counter_ptr, ticket_ptr, hits_ptr, tries, BLOCK: sl.constexpr):
    """A lock-free counter: each program takes the next ticket by retrying a
    compare-and-swap (with a tile atomic beside it, which fixes the threads)."""
    pid = sl.program_id(0)
    sl.atomic_add(hits_ptr + sl.arange(0, BLOCK), 1)
    c = pid * 0
    ticket = c - 1
    done = pid < 0
    for _ in range(tries):
        old = sl.atomic_cas(counter_ptr, c, sl.where(done, c, c + 1))
        won = (old == c) and not done
        ticket = sl.where(won, old, ticket)
        done = done or won
        c = sl.where(done, c, old)
    sl.store(ticket_ptr + pid, ticket)


@sw.jit
def k_scalar(counter_ptr, old_ptr, hits_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    sl.atomic_add(hits_ptr + sl.arange(0, BLOCK), 1)
    old = sl.atomic_add(counter_ptr, 1)
    skipped = sl.atomic_add(counter_ptr + 1, 2, mask=pid % 2 == 0)
    sl.store(old_ptr + 2 * pid, old)
    sl.store(old_ptr + 2 * pid + 1, skipped)


@sw.jit
def k_scalar_max(p_ptr, v_ptr, old_ptr, BLOCK: sl.constexpr):
    pid = sl.program_id(0)
    sl.atomic_add(old_ptr + sl.arange(0, BLOCK) * 0 + 2 * pid + 1, 0)
    old = sl.atomic_max(p_ptr, sl.load(v_ptr + pid))
    if pid % 2 == 0:
        old = sl.atomic_min(p_ptr + 1, sl.load(v_ptr + pid), sem="acquire")
    sl.store(old_ptr + 2 * pid, old)


# ---- add ------------------------------------------------------------------------------------

def sequential_add(idx, w, init):
    acc, old = init.copy(), np.zeros_like(w)
    for k in range(len(idx)):
        old[k] = acc[idx[k]]
        acc[idx[k]] = acc[idx[k]] + w[k]
    return acc, old


def check_old_chain(idx, w, init, old, what):
    """The old values of one address are the running sums of some order of
    its additions (weights > 0, exact arithmetic): sorted, each is the one
    before plus that one's weight, the first is the initial value."""
    for bin_ in np.unique(idx):
        lanes = np.nonzero(idx == bin_)[0]
        order = lanes[np.argsort(old[lanes], kind="stable")]
        expect = init[bin_]
        for lane in order:
            assert old[lane] == expect, "%s: address %d" % (what, bin_)
            expect = expect + w[lane]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("block", BLOCKS)
def test_histogram_add(rng, executor, dtype, block):
    n, bins = 1000, 37
    idx = rng.integers(0, bins, n).astype(np.int32)  # many collisions
    w = rng.integers(1, 4, n).astype(dtype)  # small: float sums are exact
    init = rng.integers(0, 5, bins).astype(dtype)
    grid = cdiv(n, block)
    out, old = init.copy(), np.full(grid * block, 99, dtype)
    kernel = k_add_method if dtype == "int64" else k_add
    launch(kernel, executor, (grid,), {"BLOCK": block}, idx_ptr=idx, w_ptr=w, out_ptr=out,
           old_ptr=old, n=n)
    acc, expect_old = sequential_add(idx, w, init)
    swage_testing.assert_same(out, acc, rng.seed, "histogram")
    assert (old[n:] == 0).all(), "masked-off lanes must return 0"
    if executor == "semantic":
        swage_testing.assert_same(old[:n], expect_old, rng.seed, "old values")
    else:
        check_old_chain(idx, w, init, old[:n], "seed %d" % rng.seed)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("block", BLOCKS)
def test_count_by_a_constant(rng, executor, dtype, block):
    n, bins, step = 1000, int(rng.integers(1, 40)), 3
    idx = rng.integers(0, bins, n).astype(np.int32)
    init = rng.integers(0, 5, bins).astype(dtype)
    grid = cdiv(n, block)
    out, old = init.copy(), np.full(grid * block, 99, dtype)
    launch(k_count, executor, (grid,), {"BLOCK": block, "STEP": step}, idx_ptr=idx, out_ptr=out,
           old_ptr=old, n=n)
    acc, _ = sequential_add(idx, np.full(n, step, dtype), init)
    swage_testing.assert_same(out, acc, rng.seed, "counts")
    assert (old[n:] == 0).all(), "masked-off lanes must return 0"
    check_old_chain(idx, np.full(n, step, dtype), init, old[:n], "seed %d" % rng.seed)


def test_count_by_a_constant_is_aggregated_in_ptx():
    """Per address per warp, one atom: the lanes that hit one address
    (match.any) elect a leader, which adds the count times the constant;
    an add of loaded values, or under an order other than relaxed, stays
    one atom per lane."""
    counted = k_count.emit_ptx(signature={"idx_ptr": "*i32", "out_ptr": "*i32", "old_ptr": "*i32", "n": "i32"},
                               constexprs={"BLOCK": 64, "STEP": 3})
    assert "match.any.sync.b64" in counted and "%lanemask_lt" in counted, counted
    assert counted.count("atom.relaxed.gpu.global.add.u32") == 2, counted  # its two slots a lane
    added = k_add.emit_ptx(signature={"idx_ptr": "*i32", "w_ptr": "*i32", "out_ptr": "*i32", "old_ptr": "*i32",
                                      "n": "i32"}, constexprs={"BLOCK": 64})
    assert "match.any" not in added


@pytest.mark.parametrize("executor", EXECUTORS)
def test_float_add_of_random_values(rng, executor):
    n, bins, block = 3000, 7, 256
    idx = rng.integers(0, bins, n).astype(np.int32)
    w = rng.standard_normal(n).astype(np.float32)
    out, old = np.zeros(bins, np.float32), np.zeros(cdiv(n, block) * block, np.float32)
    launch(k_add, executor, (cdiv(n, block),), {"BLOCK": block}, idx_ptr=idx, w_ptr=w, out_ptr=out,
           old_ptr=old, n=n)
    expect = np.zeros(bins)
    np.add.at(expect, idx, w.astype(np.float64))
    scale = np.zeros(bins)
    np.add.at(scale, idx, np.abs(w.astype(np.float64)))
    # each addition rounds once to float32, in whatever order
    assert (np.abs(out - expect) <= n * 2.0 ** -24 * scale + 1e-30).all(), rng.seed


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", BLOCKS)
def test_unused_results_still_apply(rng, executor, block):
    n, bins = 500, 11
    idx = rng.integers(1, bins, n).astype(np.int32)
    out = np.zeros(bins, np.int32)
    grid = cdiv(n, block)
    launch(k_add_unused, executor, (grid,), {"BLOCK": block}, idx_ptr=idx, out_ptr=out, n=n)
    expect = np.bincount(idx, minlength=bins).astype(np.int32)
    expect[0] += grid
    swage_testing.assert_same(out, expect, rng.seed, "counts")


# ---- max, min, xchg, and, or, xor -----------------------------------------------------------

def sequential(idx, v, init, combine):
    acc, old = init.copy(), np.zeros_like(v)
    for k in range(len(idx)):
        old[k] = acc[idx[k]]
        acc[idx[k]] = combine(acc[idx[k]], v[k])
    return acc, old


def total_max(a, b):
    return b if total_order_key(np.array([b]))[0] > total_order_key(np.array([a]))[0] else a


def total_min(a, b):
    return b if total_order_key(np.array([b]))[0] < total_order_key(np.array([a]))[0] else a


SPECIALS = {
    "float32": np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, -1.5, 1e-45, -1e-45],
                        np.float32),
    "float64": np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.5, -1.5, 5e-324, -5e-324]),
}


def random_values(rng, dtype, n, specials):
    if np.dtype(dtype).kind == "i":
        return swage_testing.random_array(rng, dtype, n, -1000, 1000) if not specials else \
            swage_testing.random_array(rng, dtype, n)
    values = (rng.standard_normal(n) * 10).astype(dtype)
    if specials:
        values = rng.choice(SPECIALS[dtype], n)
    return values


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("specials", [False, True], ids=["plain", "specials"])
@pytest.mark.parametrize("block", BLOCKS)
def test_max_min_xchg(rng, executor, dtype, specials, block):
    n, bins = 400, 9
    idx = rng.integers(0, bins, n).astype(np.int32)
    v = random_values(rng, dtype, n, specials)
    init = random_values(rng, dtype, bins, specials)
    a, b, c = init.copy(), init.copy(), init.copy()
    grid = cdiv(n, block)
    olds = [np.zeros(grid * block, dtype) for _ in range(3)]
    launch(k_rmw, executor, (grid,), {"KIND": 0, "BLOCK": block}, idx_ptr=idx, v_ptr=v, a_ptr=a,
           b_ptr=b, c_ptr=c, olda_ptr=olds[0], oldb_ptr=olds[1], oldc_ptr=olds[2], n=n)
    is_float = np.dtype(dtype).kind == "f"
    mx, old_mx = sequential(idx, v, init, total_max if is_float else max)
    mn, old_mn = sequential(idx, v, init, total_min if is_float else min)
    xc, old_xc = sequential(idx, v, init, lambda old, new: new)
    same = (lambda x, y: np.array_equal(float_bits(x), float_bits(y))) if is_float else np.array_equal
    assert same(a, mx), "atomic_max (seed %d): %s vs %s" % (rng.seed, a, mx)
    assert same(b, mn), "atomic_min (seed %d): %s vs %s" % (rng.seed, b, mn)
    for old in olds:
        assert (old[n:] == 0).all()
    if executor == "semantic":
        assert same(olds[0][:n], old_mx) and same(olds[1][:n], old_mn), rng.seed
        assert same(c, xc) and same(olds[2][:n], old_xc), rng.seed
        return
    # SIMT: per address, every element was applied once in some order
    for bin_ in range(bins):
        lanes = np.nonzero(idx == bin_)[0]
        # exchange: the old values and the final value are the initial value
        # and every value written, each once
        got = sorted(float_bits(np.concatenate([olds[2][lanes], c[bin_:bin_ + 1]])).tolist()) \
            if is_float else sorted(np.concatenate([olds[2][lanes], c[bin_:bin_ + 1]]).tolist())
        want = sorted(float_bits(np.concatenate([v[lanes], init[bin_:bin_ + 1]])).tolist()) \
            if is_float else sorted(np.concatenate([v[lanes], init[bin_:bin_ + 1]]).tolist())
        assert got == want, "atomic_xchg (seed %d) at address %d" % (rng.seed, bin_)
        # max: each old value is the initial value or one of the values, and
        # never above the final maximum
        seen = set((float_bits(np.concatenate([v[lanes], init[bin_:bin_ + 1]])) if is_float
                    else np.concatenate([v[lanes], init[bin_:bin_ + 1]])).tolist())
        olds_here = float_bits(olds[0][lanes]) if is_float else olds[0][lanes]
        assert set(olds_here.tolist()) <= seen, rng.seed
        keys = total_order_key(olds[0][lanes]) if is_float else olds[0][lanes].tolist()
        top = total_order_key(a[bin_:bin_ + 1])[0] if is_float else a[bin_]
        assert all(k <= top for k in keys), rng.seed


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("block", BLOCKS)
def test_bitwise(rng, executor, dtype, block):
    n, bins = 600, 13
    idx = rng.integers(0, bins, n).astype(np.int32)
    v = swage_testing.random_array(rng, dtype, n)
    init = swage_testing.random_array(rng, dtype, bins)
    a, b, c = init.copy(), init.copy(), init.copy()
    grid = cdiv(n, block)
    olds = [np.full(grid * block, 7, dtype) for _ in range(3)]
    launch(k_rmw, executor, (grid,), {"KIND": 1, "BLOCK": block}, idx_ptr=idx, v_ptr=v, a_ptr=a,
           b_ptr=b, c_ptr=c, olda_ptr=olds[0], oldb_ptr=olds[1], oldc_ptr=olds[2], n=n)
    for got, ufunc, old, what in ((a, np.bitwise_and, olds[0], "and"), (b, np.bitwise_or, olds[1], "or"),
                                  (c, np.bitwise_xor, olds[2], "xor")):
        expect, expect_old = sequential(idx, v, init, ufunc)
        swage_testing.assert_same(got, expect, rng.seed, "atomic_" + what)
        assert (old[n:] == 0).all()
        if executor == "semantic":
            swage_testing.assert_same(old[:n], expect_old, rng.seed, "old values of atomic_" + what)


# ---- compare-and-swap -----------------------------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("block", BLOCKS)
def test_cas_tile(rng, executor, dtype, block):
    if dtype == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        np_dt = np.dtype(ml_dtypes.bfloat16)
    else:
        np_dt = np.dtype(dtype)
    n = 700
    choices = np.array([0.0, -0.0, np.nan, 1.0, 2.5], np.float64) if np_dt.kind == "V" or \
        np_dt.kind == "f" else np.array([0, 1, 2, -7])
    p = rng.choice(choices, n).astype(np_dt)
    cmp = rng.choice(choices, n).astype(np_dt)
    val = rng.choice(choices, n).astype(np_dt)
    before = p.copy()
    grid = cdiv(n, block)
    old = np.zeros(n, np_dt)
    launch(k_cas, executor, (grid,), {"BLOCK": block}, p_ptr=p, cmp_ptr=cmp, val_ptr=val,
           old_ptr=old, n=n)
    bits = (lambda x: x.view(np.uint16)) if np_dt.itemsize == 2 else \
        (float_bits if np_dt.kind == "f" else (lambda x: x))
    swap = bits(before) == bits(cmp)  # bit for bit: -0.0 != 0.0, NaN == NaN
    expect = np.where(swap, val, before)
    assert np.array_equal(bits(p), bits(expect)), "seed %d" % rng.seed
    assert np.array_equal(bits(old), bits(before)), "seed %d" % rng.seed


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", BLOCKS)
def test_cas_ticket_counter(executor, block):
    programs = 23
    counter = np.zeros(1, np.int32)
    tickets = np.full(programs, -5, np.int32)
    hits = np.zeros(block, np.int32)
    launch(k_cas_ticket, executor, (programs,), {"BLOCK": block}, counter_ptr=counter,
           ticket_ptr=tickets, hits_ptr=hits, tries=3)
    # programs run in order on both executors: program p retries once and wins ticket p
    assert counter[0] == programs
    assert tickets.tolist() == list(range(programs))
    assert (hits == programs).all()


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("block", BLOCKS)
def test_cas_ticket_without_enough_tries(executor, block):
    # one try: only program 0 (which guesses 0 right) takes a ticket
    counter = np.zeros(1, np.int32)
    tickets = np.full(5, -5, np.int32)
    launch(k_cas_ticket, executor, (5,), {"BLOCK": block}, counter_ptr=counter, ticket_ptr=tickets,
           hits_ptr=np.zeros(block, np.int32), tries=1)
    assert counter[0] == 1 and tickets.tolist() == [0, -1, -1, -1, -1]


# ---- scalar pointers --------------------------------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("block", BLOCKS)
def test_scalar_atomic_add_returns_old_value_to_the_program(executor, dtype, block):
    programs = 9
    counter = np.array([100, 0], dtype)
    old = np.full(2 * programs, -1, dtype)
    hits = np.zeros(block, np.int32)
    launch(k_scalar, executor, (programs,), {"BLOCK": block}, counter_ptr=counter, old_ptr=old,
           hits_ptr=hits)
    evens = (programs + 1) // 2
    assert counter.tolist() == [100 + programs, 2 * evens]
    assert old[0::2].tolist() == [100 + p for p in range(programs)]
    # masked off for odd programs: 0; even programs see 0, 2, 4, ...
    assert old[1::2].tolist() == [(p // 2) * 2 if p % 2 == 0 else 0 for p in range(programs)]
    assert (hits == programs).all()


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_scalar_max_min_in_a_branch(rng, executor, dtype):
    programs, block = 12, 64
    v = random_values(rng, dtype, programs, False)
    p = np.array([v[0], v[0]], dtype)
    old = np.zeros(2 * programs, dtype)
    launch(k_scalar_max, executor, (programs,), {"BLOCK": block}, p_ptr=p, v_ptr=v, old_ptr=old)
    run_max, run_min, expect = v[0], v[0], []
    for pid in range(programs):
        if pid % 2 == 0:
            expect.append(run_min)
            run_min = min(run_min, v[pid])
        else:
            expect.append(run_max)
        run_max = max(run_max, v[pid])
    assert p.tolist() == [run_max, run_min], rng.seed
    assert old[0::2].tolist() == expect, rng.seed


def test_totalorder_of_float_max_and_min():
    # one program, one address: each value in turn, as IEEE totalOrder ranks them
    values = np.array([-np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32)
    values[0] = -values[-1]  # the negative quiet NaN
    for executor in EXECUTORS:
        for perm in (np.arange(8), np.arange(8)[::-1], np.array([3, 4, 0, 7, 1, 6, 2, 5])):
            v = values[perm].copy()
            idx = np.zeros(8, np.int32)
            a = np.array([0.5], np.float32)
            b = np.array([0.5], np.float32)
            c = np.zeros(1, np.float32)
            olds = [np.zeros(16, np.float32) for _ in range(3)]
            launch(k_rmw, executor, (1,), {"KIND": 0, "BLOCK": 16}, idx_ptr=idx, v_ptr=v, a_ptr=a,
                   b_ptr=b, c_ptr=c, olda_ptr=olds[0], oldb_ptr=olds[1], oldc_ptr=olds[2], n=8)
            assert float_bits(a)[0] == float_bits(values[-1:])[0]  # +NaN is the largest
            assert float_bits(b)[0] == float_bits(values[:1])[0]  # -NaN the smallest


# ---- errors at their line and column ----------------------------------------------------------

@sw.jit
def e_bad_sem(x_ptr, n):
    sl.atomic_add(x_ptr, 1.0, sem="seq_cst")  # error at col 35: sem, acq_rel


@sw.jit
def e_bad_scope(x_ptr, n):
    sl.atomic_max(x_ptr, 1.0, scope="device")  # error at col 37: scope, 'cta', 'gpu', 'sys'


@sw.jit
def e_sem_not_a_string(x_ptr, n):
    sl.atomic_cas(x_ptr, 1.0, 2.0, sem=1)  # error at col 40: sem, string literal


@sw.jit
def e_not_a_pointer(x_ptr, n):
    sl.atomic_add(n, 1)  # error at col 19: needs a pointer, int32


@sw.jit
def e_and_on_float(x_ptr, n):
    old = sl.atomic_and(x_ptr + n, 1)  # error at col 25: int32, uint32, int64 or uint64, float32


@sw.jit
def e_or_on_float(x_ptr, n):
    offs = sl.arange(0, 16)
    sl.atomic_or(x_ptr + offs, 1, mask=offs < n)  # error at col 18: int32, uint32, int64 or uint64


@sw.jit
def e_xor_method_on_float(x_ptr, n):
    x_ptr.atomic_xor(3)  # error at col 5: sl.atomic_xor, int32, uint32, int64 or uint64


@sw.jit
def e_add_on_int8(x_ptr, n):
    sl.atomic_add(x_ptr, 1)  # error at col 19: int32, uint32, int64, uint64, float16, float32 or float64


@sw.jit
def e_max_on_float16(x_ptr, n):
    sl.atomic_max(x_ptr, 1.0)  # error at col 19: int32, uint32, int64, uint64, float32 or float64


@sw.jit
def e_cas_has_no_mask(x_ptr, n):
    sl.atomic_cas(x_ptr, 1.0, 2.0, mask=n > 0)  # error at col 36: no parameter named 'mask'


@sw.jit
def e_tile_through_scalar_pointer(x_ptr, n):
    sl.atomic_add(x_ptr, sl.arange(0, 16))  # error at col 26: single pointer


@sw.jit
def e_pointer_as_value(x_ptr, n):
    sl.atomic_xchg(x_ptr, x_ptr)  # error at col 27: must be a number


@sw.jit
def e_in_segment_program(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    sl.atomic_add(out_ptr + sid, 1.0)  # error at col 5: segment program, grid programs


@sw.jit
def e_segment_after_atomic(values_ptr, offsets_ptr, out_ptr):
    sl.atomic_add(out_ptr, 1.0)
    sid = sl.segment_id(0)  # error at col 11: sl.atomic_add


F32 = {"x_ptr": "*f32", "n": "i32"}
SEGMENT = {"values_ptr": "*f32", "offsets_ptr": "*i32", "out_ptr": "*f32"}
ERROR_CASES = [
    (e_bad_sem, F32), (e_bad_scope, F32), (e_sem_not_a_string, F32), (e_not_a_pointer, F32),
    (e_and_on_float, F32), (e_or_on_float, F32), (e_xor_method_on_float, F32),
    (e_add_on_int8, {"x_ptr": "*i8", "n": "i32"}), (e_max_on_float16, {"x_ptr": "*f16", "n": "i32"}),
    (e_cas_has_no_mask, F32), (e_tile_through_scalar_pointer, F32), (e_pointer_as_value, F32),
    (e_in_segment_program, SEGMENT), (e_segment_after_atomic, SEGMENT),
]


@pytest.mark.parametrize("kernel, signature", ERROR_CASES, ids=[c[0].__name__ for c in ERROR_CASES])
def test_compile_error_location(kernel, signature):
    swage_testing.expect_compile_error_at_marker(kernel, __file__, signature)


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel", None])
@pytest.mark.parametrize("scope", ["cta", "gpu", "sys", None])
def test_every_sem_and_scope_is_recorded(tmp_path, sem, scope):
    kwargs = "".join(", %s=%r" % (k, v) for k, v in (("sem", sem), ("scope", scope)) if v)
    module = load_kernels(tmp_path, "@sw.jit\ndef k(p, n):\n    sl.atomic_add(p, n%s)\n" % kwargs)
    text = module.k.emit_mlir(signature={"p": "*i32", "n": "i32"}, stage="source")
    assert 'scope = "%s", sem = "%s"' % (scope or "gpu", sem or "acq_rel") in text, text
    counter = np.zeros(1, np.int32)
    for executor in EXECUTORS:
        module.k.launch(arguments={"p": counter, "n": 3}, grid=(4,), executor=executor)
    assert counter[0] == 24


# ---- PTX: every form assembles ---------------------------------------------------------------

def load_kernels(tmp_path, body):
    """A module of kernels written from source text (so that every form can
    be generated), imported from tmp_path."""
    path = os.path.join(str(tmp_path), "generated_atomics_%d.py" % abs(hash(body)))
    with open(path, "w") as f:
        f.write("import swage as sw\nimport swage.language as sl\n\n" + body)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RMW_DTYPES = {"add": ["i32", "i64", "f16", "f32", "f64"], "max": ["i32", "i64", "f32", "f64"],
              "min": ["i32", "i64", "f32", "f64"], "and": ["i32", "i64"], "or": ["i32", "i64"],
              "xor": ["i32", "i64"], "xchg": ["i32", "i64", "f32", "f64"]}
CAS_DTYPES = ["i32", "i64", "f16", "bf16", "f32", "f64"]


def form_kernel(name, call, cas):
    """A tile atomic whose old value is used (masked, but for cas, which has
    no mask), two whose old values are not (red where it exists), and a
    scalar one whose old value the program reads (the leader's, broadcast)."""
    tile = "x, x" if cas else "x, mask=m"
    scalar = "y, y" if cas else "y, mask=n > 0"
    return (
        "@sw.jit\n"
        "def %s(p, v, out, n, BLOCK: sl.constexpr):\n"
        "    offs = sl.arange(0, BLOCK)\n"
        "    m = offs < n\n"
        "    x = sl.load(v + offs)\n"
        "    y = sl.load(v)\n"
        "    a = %s(p + offs, %s)\n"
        "    %s(p + offs, x%s, sem='relaxed', scope='cta')\n"
        "    %s(p + offs, x%s, sem='release', scope='sys')\n"
        "    s = %s(p, %s, sem='acquire')\n"
        "    sl.store(out + offs, a + s)\n\n"
        % (name, call, tile, call, ", x" if cas else "", call, ", x" if cas else "", call, scalar))


def ptxas_path():
    given = os.environ.get("SWAGE_PTXAS")
    if given == "none":
        return None
    if given:
        return given if os.access(given, os.X_OK) else None
    found = shutil.which("ptxas")
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if not found and home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            found = os.path.join(home, "bin", "ptxas")
    return found


def test_every_ptx_form_assembles(tmp_path):
    ptxas = ptxas_path()
    if ptxas is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found, and SWAGE_REQUIRE_PTXAS=1")
        pytest.skip("ptxas not found")
    source, jobs = "", []
    for kind, dtypes in RMW_DTYPES.items():
        source += form_kernel("rmw_" + kind, "sl.atomic_" + kind, False)
        jobs += [("rmw_" + kind, dt) for dt in dtypes]
    source += form_kernel("cas", "sl.atomic_cas", True)
    jobs += [("cas", dt) for dt in CAS_DTYPES]
    source += "@sw.jit\ndef counts(p, v, out, n, BLOCK: sl.constexpr):\n" \
        "    offs = sl.arange(0, BLOCK)\n" \
        "    sl.store(out + offs, sl.atomic_add(p + offs % 5, 7, mask=offs < n, sem='relaxed'))\n\n"
    jobs += [("counts", dt) for dt in ("i32", "i64")]
    source += "@sw.jit\ndef orders(p, n, BLOCK: sl.constexpr):\n    offs = sl.arange(0, BLOCK)\n"
    for sem in ("relaxed", "acquire", "release", "acq_rel"):
        for scope in ("cta", "gpu", "sys"):
            source += "    sl.store(p + offs, sl.atomic_add(p + offs, n, sem=%r, scope=%r))\n" % (
                sem, scope)
            source += "    sl.atomic_cas(p, n, n, sem=%r, scope=%r)\n" % (sem, scope)
    module = load_kernels(tmp_path, source)
    failures, assembled = [], 0
    checks = {"atom.acq_rel.gpu.global.": 0, "red.relaxed.cta.global.": 0, "atom.acquire.gpu.global.": 0,
              "match.any.sync.b64": 0}
    for block in (64, 1024):
        for name, dt in jobs + [("orders", "i32")]:
            kernel = getattr(module, name)
            signature = {"p": "*" + dt, "n": "i32"} if name == "orders" else \
                {"p": "*" + dt, "v": "*" + dt, "out": "*" + dt, "n": "i32"}
            for sm in (90, 80):
                text = kernel.emit_ptx(signature=signature, constexprs={"BLOCK": block}, sm=sm)
                for key in checks:
                    checks[key] += key in text
                path = os.path.join(str(tmp_path), "%s_%s_%d_sm%d.ptx" % (name, dt, block, sm))
                with open(path, "w") as f:
                    f.write(text)
                result = subprocess.run([ptxas, "-arch=sm_%d" % sm, path, "-o", os.devnull],
                                        capture_output=True, text=True, timeout=300)
                if result.returncode:
                    failures.append("%s %s BLOCK=%d sm_%d: %s" % (name, dt, block, sm,
                                                                   result.stderr.strip()[:400]))
                else:
                    assembled += 1
    assert not failures, "\n".join(failures)
    assert assembled == 2 * 2 * (len(jobs) + 1)
    assert all(checks.values()), checks
