"""Segment sum, max and softmax in Triton, written the way a user writes
them: one program per segment (grid = number of segments), each walking its
segment from offsets[pid] to offsets[pid + 1] in chunks of BLOCK elements,
accumulating a BLOCK-wide partial and reducing it at the end; softmax in
three passes over the segment (maximum, sum of exponentials, normalised
store). BLOCK = 1024 and num_warps = 4, as in Triton's tutorials (one
choice for every distribution: a user does not retune per input).

Empty segments: sum 0, max -inf, nothing stored for softmax.
"""

import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


@triton.jit
def segment_sum_kernel(values_ptr, offsets_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = tl.load(offsets_ptr + pid)
    end = tl.load(offsets_ptr + pid + 1)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for chunk in range(start, end, BLOCK):
        idx = chunk + tl.arange(0, BLOCK)
        acc += tl.load(values_ptr + idx, mask=idx < end, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def segment_max_kernel(values_ptr, offsets_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = tl.load(offsets_ptr + pid)
    end = tl.load(offsets_ptr + pid + 1)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for chunk in range(start, end, BLOCK):
        idx = chunk + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(values_ptr + idx, mask=idx < end, other=float("-inf")))
    tl.store(out_ptr + pid, tl.max(acc, axis=0))


@triton.jit
def segment_softmax_kernel(values_ptr, offsets_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = tl.load(offsets_ptr + pid)
    end = tl.load(offsets_ptr + pid + 1)
    running_max = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for chunk in range(start, end, BLOCK):
        idx = chunk + tl.arange(0, BLOCK)
        x = tl.load(values_ptr + idx, mask=idx < end, other=float("-inf"))
        running_max = tl.maximum(running_max, x)
    maximum = tl.max(running_max, axis=0)
    running_sum = tl.zeros([BLOCK], dtype=tl.float32)
    for chunk in range(start, end, BLOCK):
        idx = chunk + tl.arange(0, BLOCK)
        x = tl.load(values_ptr + idx, mask=idx < end, other=float("-inf"))
        running_sum += tl.exp(x - maximum)
    denominator = tl.sum(running_sum, axis=0)
    for chunk in range(start, end, BLOCK):
        idx = chunk + tl.arange(0, BLOCK)
        mask = idx < end
        x = tl.load(values_ptr + idx, mask=mask, other=float("-inf"))
        tl.store(out_ptr + idx, tl.exp(x - maximum) / denominator, mask=mask)


KERNELS = {"sum": segment_sum_kernel, "max": segment_max_kernel,
           "softmax": segment_softmax_kernel}


def launch(op, values, offsets, out):
    """One launch of the op's kernel: values float32, offsets int32 (or
    int64), out float32 (per segment for sum/max, like values for softmax)."""
    segments = offsets.numel() - 1
    if segments > 0:
        KERNELS[op][(segments,)](values, offsets, out, BLOCK=BLOCK, num_warps=NUM_WARPS)
