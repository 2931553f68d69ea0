"""Atomics on the GPU (the kernels of test/python/test_atomics.py): final
memory as a sequential reference gives it, whatever order the GPU applies
them in; old values that form a valid order; masked lanes untouched.
Float atomic_max/atomic_min order floats totally as the CPU suite does
(-0.0 below 0.0, NaN by its bits); a tile atomic_cas (one address a lane)
must give the reference executor's memory and old values bit for bit.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import test_atomics as cpu  # noqa: E402  (test/python: the kernels and references)

TORCH = {"int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
         "float32": torch.float32, "float64": torch.float64}


def cuda(array):
    return torch.from_numpy(np.ascontiguousarray(array)).cuda()


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("block", [64, 1024])
def test_gpu_histogram_add(rng, dtype, block):
    n, bins = 20000, 37
    idx = rng.integers(0, bins, n).astype(np.int32)
    w = rng.integers(1, 4, n).astype(dtype)
    init = rng.integers(0, 5, bins).astype(dtype)
    if dtype == "float16":   # keep every partial sum exact in float16
        n, w = 600, np.ones(600, dtype)
        idx = idx[:n]
    grid = cpu.cdiv(n, block)
    out, old = cuda(init), torch.full((grid * block,), 99, dtype=TORCH[dtype], device="cuda")
    kernel = cpu.k_add_method if dtype == "int64" else cpu.k_add
    kernel.launch(arguments={"idx_ptr": cuda(idx), "w_ptr": cuda(w), "out_ptr": out, "old_ptr": old,
                             "n": n}, constexprs={"BLOCK": block}, grid=(grid,))
    torch.cuda.synchronize()
    acc, _ = cpu.sequential_add(idx, w, init)
    assert np.array_equal(out.cpu().numpy(), acc), rng.seed
    old = old.cpu().numpy()
    assert (old[n:] == 0).all(), "masked-off lanes must return 0"
    cpu.check_old_chain(idx, w, init, old[:n], "seed %d" % rng.seed)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("block", [64, 1024])
@pytest.mark.parametrize("bins", [1, 3, 37, 5000])
def test_gpu_count_by_a_constant(rng, dtype, block, bins):
    """The warp-aggregated add (one atom per address per warp): counts and
    old values as one atom per lane gives, from one address for all lanes
    to few collisions."""
    n, step = 20000, 3
    idx = rng.integers(0, bins, n).astype(np.int32)
    init = rng.integers(0, 5, bins).astype(dtype)
    grid = cpu.cdiv(n, block)
    out, old = cuda(init), torch.full((grid * block,), 99, dtype=TORCH[dtype], device="cuda")
    cpu.k_count.launch(arguments={"idx_ptr": cuda(idx), "out_ptr": out, "old_ptr": old, "n": n},
                       constexprs={"BLOCK": block, "STEP": step}, grid=(grid,))
    torch.cuda.synchronize()
    w = np.full(n, step, dtype)
    acc, _ = cpu.sequential_add(idx, w, init)
    assert np.array_equal(out.cpu().numpy(), acc), rng.seed
    old = old.cpu().numpy()
    assert (old[n:] == 0).all(), "masked-off lanes must return 0"
    cpu.check_old_chain(idx, w, init, old[:n], "seed %d" % rng.seed)


@pytest.mark.parametrize("kind", [0, 1])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gpu_max_min_xchg_and_bitwise(rng, kind, dtype):
    n, bins, block = 5000, 13, 256
    info = np.iinfo(dtype)
    idx = rng.integers(0, bins, n).astype(np.int32)
    v = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    a, b, c = (rng.integers(info.min, info.max, bins, dtype=dtype, endpoint=True) for _ in range(3))
    da, db, dc = cuda(a), cuda(b), cuda(c)
    olds = [torch.zeros(cpu.cdiv(n, block) * block, dtype=TORCH[dtype], device="cuda") for _ in range(3)]
    cpu.k_rmw.launch(arguments={"idx_ptr": cuda(idx), "v_ptr": cuda(v), "a_ptr": da, "b_ptr": db,
                                "c_ptr": dc, "olda_ptr": olds[0], "oldb_ptr": olds[1],
                                "oldc_ptr": olds[2], "n": n},
                     constexprs={"KIND": kind, "BLOCK": block}, grid=(cpu.cdiv(n, block),))
    torch.cuda.synchronize()
    if kind == 0:
        want_a = cpu.sequential(idx, v, a, np.maximum)[0]
        want_b = cpu.sequential(idx, v, b, np.minimum)[0]
        assert np.array_equal(da.cpu().numpy(), want_a) and np.array_equal(db.cpu().numpy(), want_b)
        # xchg: the last writer to each address is some lane that targets it
        got_c = dc.cpu().numpy()
        for k in range(bins):
            lanes = v[idx == k]
            assert got_c[k] in lanes if len(lanes) else got_c[k] == c[k]
    else:
        for got, init, combine in ((da, a, np.bitwise_and), (db, b, np.bitwise_or), (dc, c, np.bitwise_xor)):
            assert np.array_equal(got.cpu().numpy(), cpu.sequential(idx, v, init, combine)[0])


def test_gpu_cas_ticket_counter():
    """Every program takes a distinct ticket with enough retries."""
    programs, block = 64, 128
    counter = torch.zeros(1, dtype=torch.int32, device="cuda")
    tickets = torch.full((programs,), -5, dtype=torch.int32, device="cuda")
    hits = torch.zeros(block, dtype=torch.int32, device="cuda")
    cpu.k_cas_ticket.launch(arguments={"counter_ptr": counter, "ticket_ptr": tickets, "hits_ptr": hits,
                                       "tries": programs + 1}, constexprs={"BLOCK": block},
                            grid=(programs,))
    torch.cuda.synchronize()
    assert counter.item() == programs
    assert sorted(tickets.cpu().tolist()) == list(range(programs))
    assert (hits.cpu().numpy() == programs).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("specials", [False, True], ids=["plain", "specials"])
def test_gpu_float_max_min_xchg(rng, dtype, specials):
    n, bins, block = 2000, 9, 256
    idx = rng.integers(0, bins, n).astype(np.int32)
    v = cpu.random_values(rng, dtype, n, specials)
    init = cpu.random_values(rng, dtype, bins, specials)
    da, db, dc = cuda(init), cuda(init), cuda(init)
    grid = cpu.cdiv(n, block)
    olds = [torch.zeros(grid * block, dtype=TORCH[dtype], device="cuda") for _ in range(3)]
    cpu.k_rmw.launch(arguments={"idx_ptr": cuda(idx), "v_ptr": cuda(v), "a_ptr": da, "b_ptr": db,
                                "c_ptr": dc, "olda_ptr": olds[0], "oldb_ptr": olds[1],
                                "oldc_ptr": olds[2], "n": n},
                     constexprs={"KIND": 0, "BLOCK": block}, grid=(grid,))
    torch.cuda.synchronize()
    a, b, c = (t.cpu().numpy() for t in (da, db, dc))
    olds = [t.cpu().numpy() for t in olds]
    bits = cpu.float_bits
    assert np.array_equal(bits(a), bits(cpu.sequential(idx, v, init, cpu.total_max)[0])), rng.seed
    assert np.array_equal(bits(b), bits(cpu.sequential(idx, v, init, cpu.total_min)[0])), rng.seed
    for old in olds:
        assert (old[n:] == 0).all(), "masked-off lanes must return 0"
    for bin_ in range(bins):
        lanes = np.nonzero(idx == bin_)[0]
        written = np.concatenate([v[lanes], init[bin_:bin_ + 1]])
        # xchg: the old values and the final value are the initial value and
        # every value written, each once
        assert sorted(bits(np.concatenate([olds[2][lanes], c[bin_:bin_ + 1]])).tolist()) == \
            sorted(bits(written).tolist()), (rng.seed, bin_)
        # max / min: each old value is one of those, never past the final one
        for old, final, sign in ((olds[0], a, 1), (olds[1], b, -1)):
            assert set(bits(old[lanes]).tolist()) <= set(bits(written).tolist()), (rng.seed, bin_)
            top = cpu.total_order_key(final[bin_:bin_ + 1])[0]
            assert all(sign * k <= sign * top for k in cpu.total_order_key(old[lanes])), rng.seed


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("block", [64, 1024])
def test_gpu_cas_tile(rng, dtype, block):
    # test_cas_tile's values: equal bits swap (-0.0 != 0.0, NaN == NaN)
    if dtype == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        np_dt = np.dtype(ml_dtypes.bfloat16)
    else:
        np_dt = np.dtype(dtype)
    n = 700
    choices = np.array([0.0, -0.0, np.nan, 1.0, 2.5]) if np_dt.kind in "fV" else np.array([0, 1, 2, -7])
    arrays = {name: rng.choice(choices, n).astype(np_dt) for name in ("p_ptr", "cmp_ptr", "val_ptr")}
    arrays["old_ptr"] = np.zeros(n, np_dt)
    ref = {k: v.copy() for k, v in arrays.items()}
    cpu.k_cas.launch(arguments=dict(ref, n=n), constexprs={"BLOCK": block}, grid=(cpu.cdiv(n, block),),
                     executor="semantic")
    if dtype == "bfloat16":  # NumPy's bfloat16 (ml_dtypes) goes to torch by its bits
        gpu = {k: cuda(v.view(np.int16)).view(torch.bfloat16) for k, v in arrays.items()}
    else:
        gpu = {k: cuda(v) for k, v in arrays.items()}
    cpu.k_cas.launch(arguments=dict(gpu, n=n), constexprs={"BLOCK": block}, grid=(cpu.cdiv(n, block),))
    torch.cuda.synchronize()
    for name in ("p_ptr", "old_ptr"):
        got = gpu[name].view(torch.int16) if dtype == "bfloat16" else gpu[name]
        assert np.array_equal(got.cpu().numpy().view(np.uint8), ref[name].view(np.uint8)), \
            (name, rng.seed)
