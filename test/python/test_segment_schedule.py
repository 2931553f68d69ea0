"""The automatic schedule of segment programs (docs/schedules.md) run on
the CPU SIMT executor (executor="simt": the task kernels the GPU runs, with
the launch's plan, scratch and hidden parameters) against the semantic
executor (the oracle) on the same random ragged inputs: empty segments,
segments of one element, around a tile (1023..1025) and several tiles long,
offsets that start anywhere (not on a 4-element boundary), int32 and int64
offsets, float32, float16 and bfloat16 values (bfloat16 where ml_dtypes
provides it), for every example kernel: sum, max, mean, softmax,
log-softmax, L2-normalise and the two-input weighted sum. Both must match
the float64 reference within segment_cases.py's tolerances and each other
within twice that (maxima exactly), and leave the same elements untouched.
(test_schedules.py runs every schedule over every distribution.)

Also the launch rules of segment programs: the grid comes from the offsets
(a given grid is a TypeError), offsets must be a 1-D int32/int64 array of
at least one element, a launch with no segments does nothing, and with
unsafe=True bad offsets are clamped to the buffers -- the SIMT executor
checks every access, so a clean run shows that the schedule never leaves a
buffer.
"""

import os
import sys

import numpy as np
import pytest

import swage as sw
import swage.language as sl
import segment_cases as sc
from swage_testing import run_with_fake_driver

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(REPO, "examples")
if EXAMPLES_DIR not in sys.path:
    sys.path.insert(0, EXAMPLES_DIR)

from segment_examples import EXAMPLES  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16"]


def schedule_lengths(rng):
    """Lengths the schedule cares about: empty, one element, short, one tile
    give or take one (1024 is the tile), several tiles; in random order."""
    pool = [0, 0, 1, 3, 4, 5, 31, 1023, 1024, 1025, 2047, 3000,
            int(rng.integers(0, 300)), int(rng.integers(1025, 4500))]
    count = int(rng.integers(4, 14))
    return rng.choice(pool, count).astype(np.int64)


def run(example, inputs, **options):
    output = sc.new_output(example, inputs)
    EXAMPLES[example].launch(inputs, output, **options)
    return output


def assert_executors_agree(example, inputs, seed, what):
    expected_scale = sc.reference(example, inputs)
    oracle = run(example, inputs)
    simt = run(example, inputs, executor="simt")
    sc.check(example, oracle, inputs, what + ", semantic", seed, expected_scale)
    sc.check(example, simt, inputs, what + ", simt", seed, expected_scale)
    a = oracle.astype(np.float64)
    b = simt.astype(np.float64)
    assert np.array_equal(np.isnan(a), np.isnan(b)), "%s: %s: NaN patterns differ" % (
        example, what)
    if example == "segmented_max":
        np.testing.assert_array_equal(b, a, "%s: maxima differ" % what)
        return
    expected, scale = expected_scale
    lengths = sc.result_lengths(example, inputs)
    dtype = sc.dtype_name(oracle)
    bound = 2 * (sc.compute_rtol(example, lengths) * np.asarray(scale, dtype=np.float64)
                 + sc.ULP[dtype] * np.abs(np.nan_to_num(a)) + sc.ATOL[dtype])
    both = ~np.isnan(a)
    bad = both & ~(np.abs(np.where(both, a - b, 0)) <= np.where(both, bound, 0))
    assert not bad.any(), sc.describe(example, simt, a, scale, bad,
                                      what + ": simt against the oracle", seed)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("offsets_dtype", ["int32", "int64"])
@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_schedule_matches_the_oracle(example, offsets_dtype, dtype, rng):
    if sc.numpy_dtype(dtype) is None:
        pytest.skip("bfloat16 NumPy arrays need ml_dtypes")
    for trial in range(2):
        lengths = schedule_lengths(rng)
        before, after = int(rng.integers(0, 7)), int(rng.integers(0, 7))
        inputs = sc.make_inputs(example, lengths, rng, dtype, offsets_dtype, before, after)
        assert_executors_agree(example, inputs, rng.seed, "trial %d, lengths %s, pads %d/%d"
                               % (trial, lengths.tolist(), before, after))


@pytest.mark.parametrize("example", sc.EXAMPLE_NAMES)
def test_schedule_on_random_small_cases(example, rng):
    for trial in range(3):
        lengths = sc.random_small_lengths(rng)
        inputs = sc.make_inputs(example, lengths, rng, "float32", "int64",
                                int(rng.integers(0, 5)), int(rng.integers(0, 5)))
        assert_executors_agree(example, inputs, rng.seed, "random case %d" % trial)


# ---- launches -------------------------------------------------------------------------------

@sw.jit
def segment_sum(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(segment)))


@sw.jit
def segment_copy(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store_segment(out_ptr, segment, sl.load_segment(segment) * 2.0)


@sw.jit
def segment_affine(values_ptr, offsets_ptr, out_ptr, shift, scale, TIMES: sl.constexpr):
    sid = sl.segment_id(0)
    segment = sl.segment(values_ptr, offsets_ptr, sid)
    sl.store(out_ptr + sid, (sl.sum(sl.load_segment(segment)) * scale + shift) * TIMES)


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_a_grid_is_refused(executor):
    values = np.ones(4, dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    offsets = np.array([0, 1, 4], dtype=np.int32)
    with pytest.raises(TypeError, match="derive their grid from the offsets; leave grid out"):
        segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": offsets,
                                      "out_ptr": out}, grid=(2,), executor=executor)


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_the_grid_comes_from_the_offsets(executor):
    values = np.arange(10, dtype=np.float32)
    offsets = np.array([0, 3, 3, 10], dtype=np.int64)
    out = np.full(3, -1.0, dtype=np.float32)
    segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": offsets, "out_ptr": out},
                       executor=executor)
    np.testing.assert_array_equal(out, [3.0, 0.0, 42.0])


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_no_segments_is_a_launch_that_does_nothing(executor):
    out = np.full(3, -1.0, dtype=np.float32)
    for offsets in (np.array([0], dtype=np.int32), np.array([5], dtype=np.int64)):
        segment_sum.launch(arguments={"values_ptr": np.zeros(0, dtype=np.float32),
                                      "offsets_ptr": offsets, "out_ptr": out},
                           executor=executor)
    np.testing.assert_array_equal(out, [-1.0, -1.0, -1.0])


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_offsets_shape_and_size(executor):
    values = np.ones(4, dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    with pytest.raises(ValueError, match="offsets_ptr"):
        segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": np.zeros(0, np.int32),
                                      "out_ptr": out}, executor=executor)
    with pytest.raises(ValueError, match="offsets_ptr"):
        segment_sum.launch(arguments={"values_ptr": values,
                                      "offsets_ptr": np.zeros((2, 2), np.int32),
                                      "out_ptr": out}, executor=executor)
    with pytest.raises(ValueError, match="argument 'offsets_ptr'"):
        segment_sum.launch(arguments={"values_ptr": values,
                                      "offsets_ptr": np.zeros(3, np.float32),
                                      "out_ptr": out}, executor=executor)


@pytest.mark.parametrize("executor", ["semantic", "simt"])
def test_bad_offsets_name_the_argument_and_the_segment(executor):
    values = np.ones(10, dtype=np.float32)
    out = np.zeros(3, dtype=np.float32)
    cases = {
        "segment 1": [0, 5, 3, 10],    # decreasing between segments 1 and 2
        "negative": [-2, 3, 10, 10],
        "past the end": [0, 4, 11, 11],
    }
    for words, offsets in cases.items():
        with pytest.raises(ValueError) as excinfo:
            segment_sum.launch(arguments={"values_ptr": values,
                                          "offsets_ptr": np.array(offsets, np.int64),
                                          "out_ptr": out}, executor=executor)
        message = str(excinfo.value)
        assert "offsets" in message, message
        if executor == "simt":
            assert "offsets_ptr" in message and words in message, message


def _clamped(offsets, length):
    """The segments the schedule runs: each clamped to [0, length]."""
    out = []
    for start, end in zip(offsets[:-1], offsets[1:]):
        start = min(max(start, 0), length)
        end = min(max(end, start), length)
        out.append((start, end))
    return out


def test_unsafe_bad_offsets_are_clamped_to_the_buffers(rng):
    """No access outside the buffers (the SIMT executor checks each one) and
    every segment cut to what the buffers hold, stores included: the
    output is a view of a larger array whose tail keeps its canary."""
    n = 3000
    values = rng.standard_normal(n).astype(np.float32)
    offsets = [-5, 100, 40, 2999, 5000, 1 << 40, 10, 2100, -(1 << 40)]
    sums = np.full(len(offsets) - 1, -1.0, dtype=np.float32)
    segment_sum.launch(arguments={"values_ptr": values,
                                  "offsets_ptr": np.array(offsets, np.int64), "out_ptr": sums},
                       executor="simt", unsafe=True)
    expected = [values[s:e].astype(np.float64).sum() for s, e in _clamped(offsets, n)]
    np.testing.assert_allclose(sums, expected, rtol=1e-5, atol=1e-3)

    backing = np.full(n + 64, 123.0, dtype=np.float32)
    short = backing[:1500]
    segment_copy.launch(arguments={"values_ptr": values,
                                   "offsets_ptr": np.array([0, 1000, 2000], np.int32),
                                   "out_ptr": short}, executor="simt", unsafe=True)
    np.testing.assert_array_equal(short[:1500], values[:1500] * 2)
    np.testing.assert_array_equal(backing[1500:], 123.0)


@pytest.mark.parametrize("schedule", ["auto", "split", "persistent", "warp"])
def test_unsafe_overlapping_segments_are_all_written(schedule):
    """Clamped bad offsets can overlap: [0, n, 0, n, ...] asks for the whole
    buffer four times, more chunks than the split's partials hold for any
    valid offsets. A segment the split has no room for is run by the task
    that classified it, so every result is written (it was left as it
    was), and none twice."""
    n = 4096
    values = (np.arange(n) % 7).astype(np.float32)
    for offsets in ([0, n, 0, n, 0, n, 0, n], [0, n] * 9, [0, n, n, 0, n, 0, n]):
        sums = np.full(len(offsets) - 1, np.nan, dtype=np.float32)
        segment_sum.launch(arguments={"values_ptr": values, "offsets_ptr": np.array(offsets, np.int32),
                                      "out_ptr": sums}, executor="simt", unsafe=True, schedule=schedule)
        expected = [values[s:e].astype(np.float64).sum() for s, e in _clamped(offsets, n)]
        np.testing.assert_array_equal(sums, np.array(expected, np.float32), err_msg=str(offsets))


# ---- the CUDA launch path, through the C library, against a fake driver -------------------

FAKE_DRIVER_CHILD = r'''
import ctypes, os, sys
import pytest
from swage import _native
import test_segment_schedule as t

from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
_native.pointer_device = lambda address: 0   # the fake driver has no pointer attributes
assert _native.cuda_unavailable_reason() is None

from swage_testing import FakeDeviceArray as Device  # offsets are read through the driver

def params(count):
    return [state.params[i] for i in range(count)]

# The automatic schedule: the scratch header is cleared (one memset), the direct kernel runs (7 segments of a mean of at
# most 428 elements: one warp each, 4 per CTA of 128 threads: 2 CTAs), then
# the persistent list kernel (4 multiprocessors x 2 resident CTAs). Every
# kernel takes the program's three pointers, then the hidden element count
# of values_ptr (3000). The fake driver's copy of the scratch header leaves
# the flag clear: the default check passes; it reads a list count of 3, so
# the checked launch runs the list kernel after the direct one.
state.nparams_recorded = 4
args = {"values_ptr": Device(0x10000, 3000, "<f4"), "offsets_ptr": Device(0x20000, 8, "<i8"),
        "out_ptr": Device(0x30000, 7, "<f4")}
list_count = ctypes.c_int.in_dll(driver, "fake_list_count")
list_count.value = 3
launches, memsets = state.launches, state.memsets
t.segment_sum.launch(arguments=args)
assert state.launches == launches + 2 and state.memsets == memsets + 1
assert list(state.grid) == [8, 1, 1], list(state.grid)
assert list(state.block) == [256, 1, 1], list(state.block)
assert params(4) == [0x10000, 0x20000, 0x30000, 3000], [hex(p) for p in params(4)]
# A header whose lists and split counter are empty: the checked launch
# stops after the direct kernel (unsafe=True cannot know: it runs both).
list_count.value = 0
launches = state.launches
t.segment_sum.launch(arguments=args)
assert state.launches == launches + 1
assert list(state.block) != [256, 1, 1], list(state.block)  # the direct kernel, not the lists
launches = state.launches
t.segment_sum.launch(arguments=args, unsafe=True)
assert state.launches == launches + 2
t.segment_sum.launch(arguments=args, unsafe=True, schedule="cta")
assert state.launches == launches + 3
assert list(state.grid) == [7, 1, 1] and list(state.block) == [128, 1, 1]  # the narrow CTA streamer

# The task kernels after the direct one (here the lists, 2 of 3) are
# programmatic dependent launches on this compute capability 9.0 device,
# unless $SWAGE_PDL is 0 or the driver has no cuLaunchKernelEx (a plain
# kernel never is: test_gpu_api.py).
EXPECT_PDL = os.environ.get("SWAGE_PDL") != "0" and hasattr(driver, "cuLaunchKernelEx")
launches, ex, programmatic = state.launches, state.launches_ex, state.programmatic
t.segment_sum.launch(arguments=args, unsafe=True)
assert state.launches == launches + 2
assert (state.launches_ex - ex, state.programmatic - programmatic) == ((1, 1) if EXPECT_PDL else (0, 0))

# Two counts, in parameter order: the values read and the buffer stored to.
state.nparams_recorded = 5
t.segment_copy.launch(arguments={"values_ptr": Device(0x10000, 3000, "<f4"),
                                 "offsets_ptr": Device(0x20000, 4, "<i4"),
                                 "out_ptr": Device(0x30000, 2000, "<f4")}, unsafe=True,
                      schedule="warp")
assert list(state.grid) == [1, 1, 1], list(state.grid)
assert params(5) == [0x10000, 0x20000, 0x30000, 3000, 2000], [hex(p) for p in params(5)]

# The offsets check reads the direct kernel's flag after the stream's work,
# in one round trip where the driver can (an asynchronous copy into pinned
# memory, then one wait); a raised flag is a ValueError naming the argument.
# (Here the scratch comes from the driver, and freeing it waits once more.)
counter = lambda name: ctypes.c_long.in_dll(driver, name).value
syncs = counter("fake_syncs")
t.segment_sum.launch(arguments=args, unsafe=True)
freeing = counter("fake_syncs") - syncs
syncs, copies, async_copies = counter("fake_syncs"), counter("fake_copies"), counter("fake_async_copies")
t.segment_sum.launch(arguments=args)
assert (counter("fake_syncs") - syncs, counter("fake_copies") - copies) == (freeing + 1, 1)
assert counter("fake_async_copies") - async_copies == (1 if hasattr(driver, "cuMemcpyDtoHAsync_v2") else 0)
word = ctypes.c_int.in_dll(driver, "fake_word")
word.value = 1
with pytest.raises(ValueError, match="'offsets_ptr' of segment_sum holds the segment offsets"):
    t.segment_sum.launch(arguments=args)
word.value = 0

# No segments: no launch. A grid: refused.
launches = state.launches
t.segment_sum.launch(arguments=dict(args, offsets_ptr=Device(0x20000, 1, "<i8")))
assert state.launches == launches
with pytest.raises(TypeError, match="leave grid out"):
    t.segment_sum.launch(arguments=args, grid=(7,))

# The C API refuses a grid past the offsets' segments, and other axes than 1.
kernel = t.segment_sum._compile("values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32", "")
arg = lambda address, n: _native.Arg(_native.ARG_BUFFER, address, n, 0, 0.0)
c_args = [arg(0x10000, 3000), arg(0x20000, 8), arg(0x30000, 7)]
with pytest.raises(ValueError, match="asks for 8 programs and the offsets 'offsets_ptr' "
                                     r"\(8 elements\) delimit 7 segments"):
    _native.launch_cuda(kernel, 0, 0, [8, 1, 1], c_args)
with pytest.raises(ValueError, match=r"grid of \(segments, 1, 1\), got \(7, 2, 1\)"):
    _native.launch_cuda(kernel, 0, 0, [7, 2, 1], c_args)
assert state.launches == launches
print("fake driver segment checks passed")
'''


@pytest.mark.parametrize("pdl, defines", [("1", ()), ("0", ()), ("1", ("FAKE_NO_LAUNCH_EX",)),
                                          ("1", ("FAKE_NO_ASYNC_COPY",))])
def test_cuda_launch_path_against_a_fake_driver(tmp_path, monkeypatch, pdl, defines):
    """A segment program's CUDA launch: the schedule's kernels in order with
    their grids, the hidden element counts after the arguments, the scratch
    cleared once, the offsets check's flag read through the driver (in one
    round trip, or without cuMemcpyDtoHAsync a wait and a copy), the C
    API's grid checks, programmatic dependent launches unless $SWAGE_PDL is
    0 or the driver lacks cuLaunchKernelEx (test/python/fake_libcuda.c
    stands in for the driver)."""
    monkeypatch.setenv("SWAGE_PDL", pdl)
    run_with_fake_driver(tmp_path, FAKE_DRIVER_CHILD, "fake driver segment checks passed",
                         defines=defines)


# ---- the warm segment launch (PyTorch tensors), against the fake driver and a fake torch -------

WARM_PRELUDE = r"""
import ctypes, os, sys, threading, types
import pytest

# A stand-in for PyTorch with what Swage asks of CUDA tensors (no memory).
torch = types.ModuleType("torch")
class dtype:
    def __init__(self, name): self.name = name
    def __repr__(self): return "torch." + self.name
    __str__ = __repr__
for _name in ("float32", "int32", "int64", "uint8"):
    setattr(torch, _name, dtype(_name))
class device:
    def __init__(self, type_, index=None): self.type, self.index = type_, index
    def __str__(self): return "%s:%s" % (self.type, self.index)
torch.device = device
class Tensor:
    def __init__(self, address, n, dt, ndim=1, contiguous=True, index=0):
        self.address, self.n, self.dtype, self.ndim, self.contiguous = address, n, dt, ndim, contiguous
        self.device = device("cuda", index)
    is_cuda = True
    def get_device(self): return self.device.index
    def data_ptr(self): return self.address
    def numel(self): return self.n
    def dim(self): return self.ndim
    def is_contiguous(self): return self.contiguous
torch.Tensor = Tensor
allocated = []
def empty(n, dtype=None, device=None):
    allocated.append(n)
    return Tensor(0x900000 + 0x10000 * len(allocated), n, dtype)
torch.empty = empty
zeroed = []  # the kept scratches (SWAGE_SCRATCH_CACHE)
def zeros(n, dtype=None, device=None):
    zeroed.append(n)
    return Tensor(0x4000000 + 0x100000 * len(zeroed), n, dtype)
torch.zeros = zeros
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda d: 0xABC)
torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
sys.modules["torch"] = torch

from swage import _native
import swage
import test_segment_schedule as t
from swage_testing import FakeDriverState as State

driver = ctypes.CDLL(os.environ["SWAGE_LIBCUDA"])
state = State.in_dll(driver, "fake_state")
assert _native.PACKED_SEGMENTS

converts = []
general = swage.JITFunction._convert_arguments
def counting(self, arguments):
    converts.append(1)
    return general(self, arguments)
swage.JITFunction._convert_arguments = counting

def args(segments=7, values=3000, offsets_dtype=torch.int64):
    return {"values_ptr": Tensor(0x10000, values, torch.float32),
            "offsets_ptr": Tensor(0x20000, segments + 1, offsets_dtype),
            "out_ptr": Tensor(0x30000, segments, torch.float32)}
"""

WARM_CHILD = WARM_PRELUDE + r"""
k = t.segment_sum
state.nparams_recorded = 4

# The first launch takes the general path and makes the warm one.
k.launch(arguments=args(), unsafe=True)
assert len(converts) == 1 and k._warm_segment_attempt is not None
launches, memsets, scratch = state.launches, state.memsets, len(allocated)
# The same kinds again: no conversion, the same kernels, arguments and scratch.
k.launch(arguments=args(), unsafe=True)
assert len(converts) == 1, "the warm path converted the arguments"
assert state.launches - launches == 2 and state.memsets == memsets + 1
assert len(allocated) == scratch + 1 and allocated[-1] == allocated[-2]
assert [state.params[i] for i in range(4)] == [0x10000, 0x20000, 0x30000, 3000]
assert state.stream == 0xABC
# Checked, another schedule, other sizes: still warm (the scratch follows the plan).
k.launch(arguments=args(values=5000))
k.launch(arguments=args(), schedule="cta", unsafe=True)
assert list(state.grid) == [7, 1, 1] and list(state.block) == [128, 1, 1]  # the narrow CTA streamer

# The warm path's task kernels are programmatic dependent launches too.
EXPECT_PDL = os.environ.get("SWAGE_PDL") != "0" and hasattr(driver, "cuLaunchKernelEx")
launches, ex, programmatic = state.launches, state.launches_ex, state.programmatic
k.launch(arguments=args(), unsafe=True)
assert state.launches == launches + 2
assert (state.launches_ex - ex, state.programmatic - programmatic) == ((1, 1) if EXPECT_PDL else (0, 0))
k.launch(arguments=args(segments=70000, values=1 << 22), unsafe=True)
assert state.params[3] == 1 << 22
assert allocated[-1] > allocated[-2], allocated[-3:]
assert len(converts) == 1
# No segments: nothing runs, warm or not.
launches = state.launches
k.launch(arguments=args(segments=0))
assert state.launches == launches and len(converts) == 1
# What the warm path is not for goes to the general path, which decides.
k.launch(arguments=args(offsets_dtype=torch.int32), unsafe=True)   # a new specialisation
assert len(converts) == 2
k.launch(arguments=args(offsets_dtype=torch.int32), unsafe=True)   # now warm too
assert len(converts) == 2
bad = args()
bad["offsets_ptr"] = Tensor(0x20000, 8, torch.int64, ndim=2)
with pytest.raises(ValueError, match="must be 1-D"):
    k.launch(arguments=bad)
bad = args()
bad["values_ptr"] = Tensor(0x10000, 3000, torch.float32, contiguous=False)
with pytest.raises(ValueError, match="not contiguous"):
    k.launch(arguments=bad)
with pytest.raises(ValueError, match="schedule"):
    k.launch(arguments=args(), schedule="fastest")
with pytest.raises(TypeError, match="leave grid out"):
    k.launch(arguments=args(), grid=(7,))
with pytest.raises(TypeError, match="missing argument"):
    k.launch(arguments={"values_ptr": args()["values_ptr"], "offsets_ptr": args()["offsets_ptr"]})
with pytest.raises(TypeError, match="unsafe must be True or False"):
    k.launch(arguments=args(), unsafe=1)
assert len(converts) == 8
print("warm segment launches passed")
"""


def test_warm_segment_launches_against_a_fake_driver(tmp_path):
    """Repeated GPU launches of a segment program with PyTorch tensors skip
    the general path's conversion (a stand-in for PyTorch and the fake
    driver of test/python/fake_libcuda.c), with the same kernels,
    parameters, stream and scratch as the general path, for every schedule,
    checked or not; calls it is not for reach the general path and its
    errors. With SWAGE_SCRATCH_CACHE=0: a scratch per call, cleared
    (the kept scratch has tests of its own below)."""
    run_with_fake_driver(tmp_path, WARM_CHILD, "warm segment launches passed",
                         environment={"SWAGE_SCRATCH_CACHE": "0"})


WARM_NOTICES_CHILD = WARM_PRELUDE + r"""
counter = lambda name: ctypes.c_long.in_dll(driver, name).value
ASYNC = hasattr(driver, "cuMemcpyDtoHAsync_v2")
queries = []
size_query = _native.segment_scratch_bytes_packed
def counting_query(*a):
    queries.append(a[1:3])
    return size_query(*a)
_native.segment_scratch_bytes_packed = counting_query  # before the warm path binds it
state.nparams_recorded = 4
k = t.segment_sum

# The first launch makes the warm path, which becomes kernel.launch; the method
# (for callers holding it) tries it too.
k.launch(arguments=args(), schedule="cta", unsafe=True)
warm = k._warm_segments[("tensor",) * 3]
assert k.launch is warm.launch
del converts[:]
type(k).launch(k, arguments=args(), schedule="cta", unsafe=True)
k.launch(arguments=args(), schedule="cta", unsafe=True)
assert not converts and len(queries) == 1

# Each call reads the addresses and sizes: a new length, a new segment count
# reach the kernels (the grid, the hidden count) and ask for a new scratch size
# once; sizes seen before do not.
a = args(segments=70, values=5000)
a["values_ptr"].address = 0x50000
k.launch(arguments=a, schedule="cta", unsafe=True)
assert list(state.grid) == [70, 1, 1]
assert [state.params[i] for i in range(4)] == [0x50000, 0x20000, 0x30000, 5000]
assert len(queries) == 2
k.launch(arguments=args(segments=70, values=1 << 22))  # the automatic schedule's scratch grows
assert len(queries) == 3 and allocated[-1] > allocated[-2], allocated[-3:]
k.launch(arguments=args(), schedule="cta", unsafe=True)
assert list(state.grid) == [7, 1, 1] and state.params[3] == 3000
k.launch(arguments=a, schedule="cta", unsafe=True)
assert len(queries) == 3 and not converts

# Another device: the same kernel, launched in that device's context.
context0 = state.context
k.launch(arguments={name: Tensor(v.address, v.n, v.dtype, index=1) for name, v in args().items()},
         schedule="cta", unsafe=True)
assert state.context != context0 and not converts and queries[-1][0] == 1
# What the warm path is not for goes to the general path, which decides.
mixed = args()
mixed["values_ptr"] = Tensor(0x10000, 3000, torch.float32, index=1)
with pytest.raises(ValueError, match="different GPUs"):
    k.launch(arguments=mixed)
launches = state.launches
k.launch(arguments=args(offsets_dtype=torch.int32), schedule="cta", unsafe=True)
assert len(converts) == 2 and state.launches == launches + 1  # a new specialisation
k.launch(arguments=args(offsets_dtype=torch.int32), schedule="cta", unsafe=True)
assert len(converts) == 2
del converts[:]

# Scalars and constexprs: ints in int32 range and floats in float32 range are
# the warm path's, the rest the general path's (an int64 specialisation; a
# float32 that would become infinity is refused there).
state.nparams_recorded = 6
a = t.segment_affine
def affine(shift=1, scale=0.5, times=3):
    return a.launch(arguments=dict(args(), shift=shift, scale=scale), constexprs={"TIMES": times},
                    schedule="cta", unsafe=True)
affine()
assert len(converts) == 1 and a._warm_segments
affine(shift=-7, scale=float("inf"))
assert len(converts) == 1
assert ctypes.c_int32(state.params[3] & 0xFFFFFFFF).value == -7, hex(state.params[3])
assert ctypes.c_uint32(state.params[4] & 0xFFFFFFFF).value == 0x7F800000, hex(state.params[4])
affine(shift=1 << 40)
assert len(converts) == 2 and state.params[3] == 1 << 40
with pytest.raises(ValueError, match="does not fit in float32"):
    affine(scale=1e39)
affine(scale=3.4e38)
affine(shift=True)  # a bool is not an int here
assert len(converts) == 4
affine(times=4)     # a new constexpr value
affine(times=3.0)   # equal to 3, of another type: its own specialisation
assert len(converts) == 6
affine(times=4)
affine(times=3.0)
assert len(converts) == 6
del converts[:]

# The offsets check: one wait and one copy of the flag (queued on the stream
# where the driver can), nothing for unsafe=True; a raised flag is the general
# path's ValueError, warm or not.
syncs, copies, async_copies = counter("fake_syncs"), counter("fake_copies"), counter("fake_async_copies")
k.launch(arguments=args())
assert counter("fake_syncs") == syncs + 1 and counter("fake_copies") == copies + 1
assert counter("fake_async_copies") == async_copies + (1 if ASYNC else 0)
k.launch(arguments=args(), unsafe=True)
assert counter("fake_syncs") == syncs + 1 and counter("fake_copies") == copies + 1
word = ctypes.c_int.in_dll(driver, "fake_word")
word.value = 1
for _ in range(2):
    with pytest.raises(ValueError, match="'offsets_ptr' of segment_sum holds the segment offsets"):
        k.launch(arguments=args())
k.launch(arguments=args(), unsafe=True)
k._warm_segment_attempt = None
del k.launch  # the method and the general path
with pytest.raises(ValueError, match="'offsets_ptr' of segment_sum holds the segment offsets"):
    k.launch(arguments=args())
word.value = 0

# Checked launches from threads at once (each read borrows a pinned word
# and gives it back: more reads than there are words still take the async copy).
k.launch(arguments=args())
errors = []
def worker():
    try:
        for _ in range(300):
            k.launch(arguments=args())
    except BaseException as e:
        errors.append(e)
threads = [threading.Thread(target=worker) for _ in range(6)]
for thread in threads: thread.start()
for thread in threads: thread.join()
assert not errors, errors
async_copies = counter("fake_async_copies")
for _ in range(1100):
    k.launch(arguments=args())
assert counter("fake_async_copies") == async_copies + (1100 if ASYNC else 0)

# The packed C entry checks its header; its error is kept for the thread.
kernel = next(iter(warm.kernels.values()))
records = b"".join(_native.struct.pack(_native.ARG_RECORD, _native.ARG_BUFFER, address, n, 0, 0.0)
                   for address, n in ((0x10000, 3000), (0x20000, 8), (0x30000, 7)))
def packed(nargs=3, check=0, schedule=0, body=records, handle=kernel):
    header = _native.struct.pack(_native.SEGMENT_LAUNCH_HEADER, handle, 0, 0x900000, 1 << 20, 0,
                                 schedule, nargs, check)
    return _native.launch_segments_cuda_packed(header + body, None)
assert packed() == 0 and packed(check=1) == 0
word.value = 7
assert packed(check=1) == _native.SEGMENT_OFFSETS_BAD and _native._take_last_error() is None
word.value = 0
for options, pattern in [({"check": 4}, "check must be 0 or 1"),
                         ({"nargs": -1}, "a negative argument count"),
                         ({"nargs": 2, "body": records[:80]}, "takes 3 runtime arguments, got 2"),
                         # a count past the buffer is refused before a record is read
                         ({"nargs": 1 << 28}, "takes 3 runtime arguments, got 268435456"),
                         ({"handle": 0}, "needs a kernel"),
                         ({"schedule": 9}, "schedule 9 is not one of")]:
    status = packed(**options)
    assert status == _native.ERROR_INVALID_ARGUMENT
    with pytest.raises(ValueError, match=pattern):
        _native.raise_last_error(status)
print("warm segment checks passed")
"""


@pytest.mark.parametrize("defines", [(), ("FAKE_NO_ASYNC_COPY",)])
def test_the_warm_segment_path_notices_what_changes(tmp_path, defines):
    """The warm segment launch reads what may change on every call (addresses,
    lengths, segment counts, devices, scalars) and sends every call that is
    not for it to the general path (another dtype, a mixed device, an int64
    or bool scalar, a float that float32 cannot hold, a new constexpr), whose
    errors it keeps; the offsets check reads its flag in one round trip (an
    asynchronous copy into pinned memory, or without one a synchronous copy)
    and raises the general path's error; threads launch at once; the packed
    C entry checks its header (against the fake driver of
    test/python/fake_libcuda.c, with and without cuMemcpyDtoHAsync)."""
    run_with_fake_driver(tmp_path, WARM_NOTICES_CHILD, "warm segment checks passed",
                         defines=defines, environment={"SWAGE_SCRATCH_CACHE": "0"})


KEPT_CHILD = WARM_PRELUDE + r"""
counter = lambda name: ctypes.c_long.in_dll(driver, name).value
capturing = ctypes.c_int.in_dll(driver, "fake_capturing")
word = ctypes.c_int.in_dll(driver, "fake_word")
memset_dst = ctypes.c_ulonglong.in_dll(driver, "fake_memset_dst")
from swage import _jit
kept = _jit._scratch_cache.entries
k = t.segment_sum
SCRATCH = 6  # values, offsets, out, values__numel, __segments, __check, __scratch
state.nparams_recorded = 8
stream = [0xABC]
torch._C._cuda_getCurrentRawStream = lambda d: stream[0]

def launch(**options):
    a = options.pop("arguments", None) or args()
    before = (len(zeroed), len(allocated), state.memsets, state.launches)
    k.launch(arguments=a, **options)
    return tuple(x - y for x, y in zip((len(zeroed), len(allocated), state.memsets, state.launches),
                                       before))

launch(unsafe=True)  # the general path: a scratch of its own, cleared
assert not kept
# The first warm launch on a stream keeps a cleared scratch (torch.zeros on the stream);
# later ones allocate nothing and clear nothing: the kernels leave it clean.
assert launch(unsafe=True) == (1, 0, 0, 2)
(tensor, address, size, _), = kept.values()
assert list(kept) == [(0, 0xABC)] and size >= 4096 and zeroed == [size]
assert state.params[SCRATCH] == address + 16 and state.stream == 0xABC
for _ in range(3):
    assert launch(unsafe=True) == (0, 0, 0, 2)
    assert state.params[SCRATCH] == address + 16
# Checked: the flag read back with the list counts after the first kernel,
# not cleared when low; the header says the lists are empty, so the lists
# kernel is not launched (a list count read back launches it).
assert launch() == (0, 0, 0, 1)
assert launch(schedule="persistent") == (0, 0, 0, 1)
list_count = ctypes.c_int.in_dll(driver, "fake_list_count")
list_count.value = 1
assert launch() == (0, 0, 0, 2)
list_count.value = 0

# Bad offsets: the error, and the raised flag cleared (4 bytes) for the next launch.
word.value = 1
with pytest.raises(ValueError, match="holds the segment offsets"):
    launch()
assert state.memset_words == 1 and memset_dst.value == address + 16
word.value = 0
assert launch() == (0, 0, 0, 1) and list(kept.values())[0][1] == address

# A launch that needs more grows it: a new one, cleared once.
big = args(segments=70000, values=1 << 22)
assert launch(arguments=big, unsafe=True) == (1, 0, 0, 2)
(_, address2, size2, _), = kept.values()
assert size2 > size and address2 != address and state.params[SCRATCH] == address2 + 16
assert launch(arguments=big, unsafe=True) == (0, 0, 0, 2)
assert launch(unsafe=True) == (0, 0, 0, 2) and state.params[SCRATCH] == address2 + 16

# Another stream: a scratch of its own; back on the first, the first's.
stream[0] = 0xDEF
assert launch(unsafe=True) == (1, 0, 0, 2)
assert state.params[SCRATCH] == kept[(0, 0xDEF)][1] + 16 != address2 + 16 and state.stream == 0xDEF
stream[0] = 0xABC
assert launch(unsafe=True) == (0, 0, 0, 2) and state.params[SCRATCH] == address2 + 16
# Another device: its own too.
one = {name: Tensor(v.address, v.n, v.dtype, index=1) for name, v in args().items()}
assert launch(arguments=one, unsafe=True) == (1, 0, 0, 2) and (1, 0xABC) in kept

# A stream capturing a graph: a scratch per call, cleared, as without the cache
# (a graph must not keep the shared one); the kept ones stay as they were.
capturing.value = 1
queries = counter("fake_capture_queries")
assert launch(unsafe=True) == (0, 1, 1, 2)
assert state.params[SCRATCH] != address2 + 16 and counter("fake_capture_queries") > queries
stream[0] = 0x123  # a new stream that is capturing: nothing kept for it
assert launch(unsafe=True) == (0, 1, 1, 2) and (0, 0x123) not in kept
stream[0] = 0xABC
capturing.value = 0
assert launch(unsafe=True) == (0, 0, 0, 2) and state.params[SCRATCH] == address2 + 16

# A launch that fails (the driver refuses the second kernel after queuing the first
# would be the same) drops the kept scratch: the next takes a new one, cleared.
state.launch_result = 700
with pytest.raises(RuntimeError, match="CUDA_ERROR_ILLEGAL_ADDRESS"):
    launch(unsafe=True)
assert (0, 0xABC) not in kept
state.launch_result = 0
assert launch(unsafe=True) == (1, 0, 0, 2) and (0, 0xABC) in kept

# Threads on one stream share its scratch; no launch allocates or clears.
(_, address3, _, _) = kept[(0, 0xABC)]
memsets, zeros_before, allocs = state.memsets, len(zeroed), len(allocated)
errors = []
def worker():
    try:
        for _ in range(200):
            k.launch(arguments=args(), unsafe=True)
            k.launch(arguments=args())
    except BaseException as e:
        errors.append(e)
threads = [threading.Thread(target=worker) for _ in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
assert not errors, errors
assert (state.memsets, len(zeroed), len(allocated)) == (memsets, zeros_before, allocs)
assert kept[(0, 0xABC)][1] == address3

# At exit (or clear()) the tensors go back to PyTorch.
_jit._scratch_cache.clear()
assert not kept
print("kept scratch passed")
"""


def test_warm_segment_launches_keep_a_scratch_per_stream(tmp_path):
    """A warm segment launch keeps its scratch per (device, stream) and
    neither allocates nor clears it on later launches (the task kernels
    leave its header clean); it grows it when a launch needs more, clears a
    raised offsets flag, keeps one per stream and device, falls back to a
    scratch per call while the stream captures a graph, drops it after a
    failed launch, and serves threads on one stream (against the fake
    driver of test/python/fake_libcuda.c)."""
    run_with_fake_driver(tmp_path, KEPT_CHILD, "kept scratch passed")


def test_kept_scratch_without_a_capture_query(tmp_path):
    """A driver without cuStreamIsCapturing (older than graph capture) keeps
    the scratch all the same."""
    source = WARM_PRELUDE + r"""
from swage import _jit
k = t.segment_sum
k.launch(arguments=args(), unsafe=True)
memsets = state.memsets
for _ in range(3):
    k.launch(arguments=args(), unsafe=True)
assert state.memsets == memsets and len(zeroed) == 1 and len(_jit._scratch_cache.entries) == 1
print("no capture query passed")
"""
    run_with_fake_driver(tmp_path, source, "no capture query passed",
                         defines=("FAKE_NO_CAPTURE_QUERY",))
