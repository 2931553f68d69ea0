"""int16, uint16, uint32 and uint64 on the GPU: the kernels of
test/python/test_int_dtypes.py, run once on the reference executor
(executor="semantic") on NumPy arrays and once on CUDA copies of them
(PyTorch has uint16/uint32/uint64 tensors from 2.3); every array must come
back equal, bit for bit, and equal to NumPy's answer where the CPU test
computes one.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the GPU suite needs PyTorch")

import gpu_pairs  # noqa: E402  (test/gpu)

import test_int_dtypes as cpu  # noqa: E402  (test/python: the kernels)
import test_random as rnd  # noqa: E402

BLOCK = cpu.BLOCK

if not all(hasattr(torch, name) for name in ("uint16", "uint32", "uint64")):
    pytest.skip("this PyTorch has no uint16/uint32/uint64 tensors (2.3 and later do)",
                allow_module_level=True)


def run_both(kernel, arrays, scalars=None, constexprs=None):
    """gpu_pairs.run_both on one program, BLOCK by default."""
    return gpu_pairs.run_both(kernel, arrays, scalars, {"BLOCK": BLOCK} if constexprs is None else constexprs)


def same(host, gpu, names=None):
    for name in names or host:
        assert host[name].dtype == gpu[name].dtype, name
        assert np.array_equal(gpu[name], host[name], equal_nan=host[name].dtype.kind == "f"), (
            name, gpu[name][:8], host[name][:8])


@pytest.mark.parametrize("dtype", cpu.UNSIGNED)
def test_gpu_unsigned_division_shift_compare(rng, dtype):
    x = cpu.edge_values(rng, dtype)
    y = cpu.edge_values(rng, dtype)[::-1].copy()
    y[::9] = 0
    arrays = {"x_ptr": x, "y_ptr": y, "lt_ptr": np.zeros(BLOCK, bool),
              "ge_ptr": np.zeros(BLOCK, bool)}
    for name in ("div_ptr", "rem_ptr", "shr_ptr", "min_ptr", "max_ptr", "mul_ptr"):
        arrays[name] = np.zeros(BLOCK, dtype)
    host, gpu = run_both(cpu.k_unsigned_ops, arrays)
    same(host, gpu)
    safe = np.where(y == 0, 1, y).astype(dtype)
    assert np.array_equal(gpu["div_ptr"], np.where(y == 0, 0, x // safe).astype(dtype))
    assert np.array_equal(gpu["lt_ptr"], x < y)


def test_gpu_literals_from_2_63_are_uint64(rng):
    x = cpu.edge_values(rng, np.uint64)
    x[8:12] = [2 ** 63, 2 ** 63 - 1, 2 ** 63 + 1, 2 ** 64 - 1]
    arrays = {"x_ptr": x, "out_ptr": np.zeros(8 * BLOCK + 1, np.uint64),
              "flag_ptr": np.zeros(BLOCK, bool)}
    host, gpu = run_both(cpu.k_literal_uint64, arrays)
    same(host, gpu)
    assert gpu["out_ptr"][8 * BLOCK] == 2 ** 64 - 1 and gpu["flag_ptr"].all()
    with np.errstate(over="ignore"):
        assert np.array_equal(gpu["out_ptr"][:BLOCK], x + np.uint64(2 ** 63))


@pytest.mark.parametrize("xt, yt, result", cpu.PROMOTIONS)
def test_gpu_integer_promotion(rng, xt, yt, result):
    x, y = cpu.edge_values(rng, xt), cpu.edge_values(rng, yt)
    host, gpu = run_both(cpu.k_add_mixed, {"x_ptr": x, "y_ptr": y,
                                           "out_ptr": np.zeros(BLOCK, result)})
    same(host, gpu)
    assert np.array_equal(gpu["out_ptr"], x.astype(result) + y.astype(result))


INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


@pytest.mark.parametrize("src", INTS)
@pytest.mark.parametrize("dst", INTS + ("float16", "float32", "float64"))
def test_gpu_casts_from_integers(rng, src, dst):
    x = cpu.edge_values(rng, src)
    host, gpu = run_both(cpu.k_convert, {"x_ptr": x, "out_ptr": np.zeros(BLOCK, dst)},
                         constexprs={"DTYPE": cpu.SL[dst], "BLOCK": BLOCK})
    same(host, gpu)


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", cpu.UNSIGNED + ("int16",))
def test_gpu_float_to_unsigned_saturates(rng, src, dst):
    info = np.iinfo(dst)
    special = [0.0, -0.0, 0.7, -0.7, -5.0, float(info.max) * 4, -1e30, np.nan, np.inf, -np.inf,
               float(info.max) / 3, 2.0 ** 63, 2.0 ** 64 - 2048, 2.0 ** 31 + 0.5]
    x = np.concatenate([np.array(special, np.float64),
                        rng.uniform(-10, float(info.max), BLOCK - len(special))]).astype(src)
    host, gpu = run_both(cpu.k_convert, {"x_ptr": x, "out_ptr": np.zeros(BLOCK, dst)},
                         constexprs={"DTYPE": cpu.SL[dst], "BLOCK": BLOCK})
    same(host, gpu)


def test_gpu_bitcasts(rng):
    a, b, c = (cpu.edge_values(rng, t) for t in ("uint16", "uint32", "uint64"))
    a = np.where((a & 0x7C00) == 0x7C00, a & 0x83FF, a).astype(np.uint16)
    host, gpu = run_both(cpu.k_bitcasts, {"a_ptr": a, "b_ptr": b, "c_ptr": c,
                                          "d_ptr": np.zeros(BLOCK, np.int16),
                                          "e_ptr": np.zeros(BLOCK, np.int32),
                                          "f_ptr": np.zeros(BLOCK, np.int64)})
    same(host, gpu)
    assert np.array_equal(gpu["f_ptr"], c.view(np.int64))


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_gpu_umulhi(rng, dtype):
    bits = np.iinfo(dtype).bits
    x, y = cpu.edge_values(rng, dtype), cpu.edge_values(rng, dtype)[::-1].copy()
    host, gpu = run_both(cpu.k_umulhi, {"x_ptr": x, "y_ptr": y, "out_ptr": np.zeros(BLOCK, dtype)})
    same(host, gpu)
    expected = np.array([(int(a) * int(b)) >> bits for a, b in zip(x, y)], dtype)
    assert np.array_equal(gpu["out_ptr"], expected)


@pytest.mark.parametrize("dtype, acc", [("uint8", "uint32"), ("uint16", "uint32"),
                                        ("int16", "int32"), ("uint32", "uint32"),
                                        ("uint64", "uint64")])
def test_gpu_sum_and_cumsum(rng, dtype, acc):
    x = cpu.edge_values(rng, dtype)
    host, gpu = run_both(cpu.k_sum_cumsum, {"x_ptr": x, "s_ptr": np.zeros(1, acc),
                                            "c_ptr": np.zeros(BLOCK, acc)})
    same(host, gpu)  # integers wrap alike in any order


def test_gpu_sum_of_int1_is_uint32(rng):
    x = rng.integers(-1, 2, BLOCK).astype(np.int32)
    arrays = {"x_ptr": x, "s_ptr": np.zeros(3, np.int64), "c_ptr": np.zeros(BLOCK, np.int64),
              "r_ptr": np.zeros(16, np.int64)}
    host, gpu = run_both(cpu.k_sum_int1, arrays)
    same(host, gpu)
    assert list(gpu["s_ptr"]) == [(x > 0).sum(), 1, 1]
    assert (gpu["c_ptr"] == 1).all() and (gpu["r_ptr"][8:] == 1).all()


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_gpu_atomics_on_unsigned(rng, dtype):
    v = cpu.edge_values(rng, dtype)
    info = np.iinfo(dtype)
    p = np.array([5, 0, info.max, 0, 0, info.max, 9, 0], dtype)
    host, gpu = run_both(cpu.k_atomics_simple, {"p_ptr": p, "v_ptr": v,
                                                "old_ptr": np.zeros(BLOCK, dtype)})
    same(host, gpu, names=["p_ptr"])  # the old values depend on the order


@pytest.mark.parametrize("dtype", cpu.NEW + ("uint8",))
def test_gpu_scalar_arguments(dtype):
    info = np.iinfo(dtype)
    for value in (int(info.min), int(info.max), int(info.max) // 3):
        out = torch.zeros(1, dtype=getattr(torch, dtype), device="cuda")
        cpu.k_scalar.launch(arguments={"out_ptr": out, "value": getattr(np, dtype)(value)},
                            grid=(1,))
        torch.cuda.synchronize()
        assert int(out.cpu().numpy()[0]) == value, (dtype, value)


def test_gpu_uint64_parameter():
    out = torch.zeros(2, dtype=torch.uint64, device="cuda")
    for value in (0, 2 ** 63, 2 ** 64 - 1):
        cpu.k_annotated.launch(arguments={"out_ptr": out, "value": value, "small": 65535},
                               grid=(1,))
        torch.cuda.synchronize()
        got = out.cpu().numpy()
        assert int(got[0]) == value and int(got[1]) == 65535


def test_gpu_constant_folding():
    host, gpu = run_both(cpu.k_folds, {"out_ptr": np.zeros(2 * BLOCK, np.uint64)})
    same(host, gpu)


@pytest.mark.parametrize("dtype, bits", [(np.uint32, 32), (np.uint64, 64), (np.int64, 64)])
def test_gpu_randint_words_are_unsigned(dtype, bits):
    n = 150
    offsets = np.arange(n, dtype=dtype) * dtype(977)
    out = np.zeros(n, np.uint32 if bits == 32 else np.uint64)
    gpu_off, gpu_out = torch.from_numpy(offsets).cuda(), torch.from_numpy(out).cuda()
    rnd.k_rand_offsets.launch(arguments={"offsets_ptr": gpu_off, "out_ptr": gpu_out, "seed": 2024,
                                         "n": n},
                              constexprs={"ROUNDS": 10, "BLOCK": rnd.BLOCK},
                              grid=((n + rnd.BLOCK - 1) // rnd.BLOCK,))
    torch.cuda.synchronize()
    want = rnd.reference("randint", 2024, [int(o) % (1 << bits) for o in offsets], bits)
    assert np.array_equal(gpu_out.cpu().numpy(), want)
