"""Segment cases for the tests and the benchmark: the segment-length
distributions of the differential suite, random small cases, inputs for the
example kernels (examples/), float64 references for every example, and the
tolerances results are checked with.

Distributions (`lengths(name, n, rng)`, about n elements in all; n is the
size parameter: about 1e5 in CI, 2^24..2^26 on a GPU):

    all-empty          n // 32 segments, all empty (no elements)
    all-singleton      n segments of 1
    tiny-uniform       lengths uniform in 1..32
    medium-uniform     lengths uniform in 256..2048
    bimodal            95% uniform in 8..64, 5% uniform in 4096..16384
    power-law          Pareto, alpha 1.2, x_min 1 (floor), capped at max(64, n // 64)
    one-outlier        n // 64 segments of 32 plus one of n // 2 at a random place
                       (n = 2^26: 2^20 x 32 plus one of 2^25)
    few-huge           8 segments of n // 8 (n = 2^26: 8 x 2^23)
    alternating-empty  0, 128, 0, 128, ... (n // 128 segments of 128)

Random small cases (`random_small_lengths`) have 0..40 segments with random
lengths that include zeros, drawn fresh every run.

References are float64, computed from the inputs as given (float16/bfloat16
inputs are upcast exactly), vectorised with NumPy (`reference`) or PyTorch
(`torch_reference`, for the GPU suite and the benchmark). Each returns
(expected, scale): `scale` is what a rounding error of each result is
measured against (sum(|x|) for sums, |expected| for softmax, ...). Elements
of segment-shaped outputs that no segment covers are NaN in `expected`: the
kernel must leave them as they were (poisoned).

Tolerances (`check`): a result passes when

    |actual - expected| <= compute_rtol * scale + ulp_rtol * |expected| + atol

    compute_rtol  float32 arithmetic: max(1e-5, 2^-22 * sqrt(segment length))
                  (1e-5 up to segments of ~1800; the sqrt term covers the
                  rounding of a float32 accumulation of a long segment on the
                  GPU, which grows like a random walk); 0 for max (exact)
    ulp_rtol      rounding of the stored output: one ulp of the output dtype
                  (2^-23 float32, 2^-10 float16, 2^-7 bfloat16)
    atol          the smallest normal number of the output dtype (GPU code may
                  flush subnormals), 2^-24 for float16 (its subnormal step)

NaN passes only where the reference is NaN (an empty segment's mean, an
element no segment covers); infinities (an empty segment's max) must be
exact.
"""

import numpy as np

DISTRIBUTIONS = ("all-empty", "all-singleton", "tiny-uniform", "medium-uniform", "bimodal",
                 "power-law", "one-outlier", "few-huge", "alternating-empty")

EXAMPLE_NAMES = ("segmented_sum", "segmented_max", "segmented_mean", "segmented_softmax",
                 "segmented_log_softmax", "segmented_l2_normalise", "weighted_sum")
SEGMENT_SHAPED = frozenset(["segmented_softmax", "segmented_log_softmax",
                            "segmented_l2_normalise"])
EXTRA_INPUTS = {"weighted_sum": ("weights", "scale")}

CI_ELEMENTS = 1 << 18
L2_EPSILON = 1e-12

# What an element outside every segment holds in the values buffers of padded
# cases: large, so a kernel that reads past its segment gets a visibly wrong
# sum, max or softmax (and finite in float16).
PAD_VALUE = 1000.0


# ---- distributions -------------------------------------------------------------------

def _fill(draw, mean, n):
    """Lengths from draw(count) until about n elements: draws more than
    enough, then keeps the longest prefix whose total is <= n (at least one
    segment)."""
    count = int(n / mean * 1.1) + 16
    lengths = draw(count).astype(np.int64)
    total = np.cumsum(lengths)
    keep = max(1, int(np.searchsorted(total, n, side="right")))
    return lengths[:keep]


def lengths(distribution, n, rng):
    """int64 segment lengths of one distribution at about n elements."""
    n = int(n)
    if distribution == "all-empty":
        return np.zeros(max(1, n // 32), dtype=np.int64)
    if distribution == "all-singleton":
        return np.ones(max(1, n), dtype=np.int64)
    if distribution == "tiny-uniform":
        return _fill(lambda k: rng.integers(1, 33, k), 16.5, n)
    if distribution == "medium-uniform":
        return _fill(lambda k: rng.integers(256, 2049, k), 1152, n)
    if distribution == "bimodal":
        def draw(k):
            small = rng.integers(8, 65, k)
            large = rng.integers(4096, 16385, k)
            return np.where(rng.random(k) < 0.05, large, small)
        return _fill(draw, 0.95 * 36 + 0.05 * 10240, n)
    if distribution == "power-law":
        cap = max(64, n // 64)
        return _fill(lambda k: np.minimum(np.floor(1.0 + rng.pareto(1.2, k)), cap), 5.5, n)
    if distribution == "one-outlier":
        out = np.full(max(1, n // 64) + 1, 32, dtype=np.int64)
        out[int(rng.integers(0, out.size))] = max(1, n // 2)
        return out
    if distribution == "few-huge":
        return np.full(8, max(1, n // 8), dtype=np.int64)
    if distribution == "alternating-empty":
        out = np.zeros(2 * max(1, n // 128), dtype=np.int64)
        out[1::2] = 128
        return out
    raise ValueError("unknown distribution %r (known: %s)" % (distribution,
                                                             ", ".join(DISTRIBUTIONS)))


def random_small_lengths(rng):
    """0..40 segments; lengths up to 1, 4, 33, 300 or 2000, many of them 0."""
    segments = int(rng.integers(0, 41))
    longest = int(rng.choice([1, 4, 33, 300, 2000]))
    out = rng.integers(0, longest + 1, segments).astype(np.int64)
    out[rng.random(segments) < 0.25] = 0
    return out


def offsets_from_lengths(lengths_, dtype="int64", start=0):
    out = np.empty(len(lengths_) + 1, dtype=np.int64)
    out[0] = start
    np.cumsum(lengths_, out=out[1:])
    out[1:] += start
    return out.astype(dtype)


# ---- inputs ----------------------------------------------------------------------------

def numpy_dtype(name):
    """NumPy dtype for "float32", "float16", "bfloat16" (bfloat16 needs the
    ml_dtypes package; None when it is missing)."""
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            return None
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def make_inputs(example, lengths_, rng, dtype="float32", offsets_dtype="int32",
                pad_before=0, pad_after=0):
    """NumPy inputs of one example kernel for the given segment lengths:
    values standard normal (times 2: softmax sees a wide range), weights
    uniform in [0, 1), a per-segment scale uniform in [0.5, 2). pad_before /
    pad_after elements outside every segment hold PAD_VALUE."""
    dt = numpy_dtype(dtype)
    offsets = offsets_from_lengths(lengths_, offsets_dtype, pad_before)
    total = pad_before + int(np.sum(lengths_)) + pad_after
    values = (rng.standard_normal(total) * 2.0)
    values[:pad_before] = PAD_VALUE
    values[total - pad_after:] = PAD_VALUE
    inputs = {"values": values.astype(dt), "offsets": offsets}
    extra = EXTRA_INPUTS.get(example, ())
    if "weights" in extra:
        weights = rng.uniform(0.0, 1.0, total)
        weights[:pad_before] = PAD_VALUE
        weights[total - pad_after:] = PAD_VALUE
        inputs["weights"] = weights.astype(dt)
    if "scale" in extra:
        inputs["scale"] = rng.uniform(0.5, 2.0, len(lengths_)).astype(dt)
    return inputs


def output_size(example, inputs):
    if example in SEGMENT_SHAPED:
        return len(inputs["values"])
    return len(inputs["offsets"]) - 1


def poison_value(example):
    """What an output starts as: NaN, except for the mean, whose empty
    segments give NaN (a poison must differ from every correct result)."""
    return -7777.0 if example == "segmented_mean" else float("nan")


def output_dtype(example, values_dtype):
    """Segment-shaped outputs have the values' dtype (store_segment rounds
    back); one-per-segment results are float32 for every float input (a
    reduction of float16/bfloat16 values is a float32, and sl.store takes
    the pointee's dtype)."""
    return values_dtype if example in SEGMENT_SHAPED else np.dtype(np.float32)


def new_output(example, inputs, dtype=None):
    dt = (output_dtype(example, inputs["values"].dtype) if dtype is None
          else numpy_dtype(dtype))
    return np.full(output_size(example, inputs), poison_value(example), dtype=dt)


# ---- NumPy references ------------------------------------------------------------------

def _segment_lengths(offsets):
    offsets = np.asarray(offsets, dtype=np.int64)
    return offsets[1:] - offsets[:-1]


def _reduce(ufunc, x, offsets, empty):
    """ufunc-reduce of every segment of x (float64), `empty` for empty ones."""
    offsets = np.asarray(offsets, dtype=np.int64)
    segs = len(offsets) - 1
    out = np.full(segs, empty, dtype=np.float64)
    if segs == 0:
        return out
    seg_lengths = offsets[1:] - offsets[:-1]
    nonempty = seg_lengths > 0
    if nonempty.any():
        lo, hi = int(offsets[0]), int(offsets[-1])
        # reduceat over the starts of the non-empty segments: each range runs
        # to the next non-empty start, which is exactly its own segment.
        out[nonempty] = ufunc.reduceat(x[lo:hi], offsets[:-1][nonempty] - lo)
    return out


def _spread(per_segment, offsets, size):
    """Per-segment values repeated over their segments' elements; NaN outside."""
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.full(size, np.nan)
    if len(offsets) > 1:
        out[int(offsets[0]):int(offsets[-1])] = np.repeat(per_segment, _segment_lengths(offsets))
    return out


def reference(example, inputs):
    """(expected, scale) in float64 for one example on NumPy inputs."""
    x = np.asarray(inputs["values"]).astype(np.float64)
    offsets = np.asarray(inputs["offsets"], dtype=np.int64)
    n = len(x)
    seg_lengths = _segment_lengths(offsets)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if example == "segmented_sum":
            return _reduce(np.add, x, offsets, 0.0), _reduce(np.add, np.abs(x), offsets, 0.0)
        if example == "segmented_max":
            expected = _reduce(np.maximum, x, offsets, -np.inf)
            return expected, np.abs(expected)
        if example == "segmented_mean":
            expected = _reduce(np.add, x, offsets, 0.0) / seg_lengths
            scale = _reduce(np.add, np.abs(x), offsets, 0.0) / np.maximum(seg_lengths, 1)
            return expected, scale
        if example == "weighted_sum":
            w = np.asarray(inputs["weights"]).astype(np.float64)
            s = np.asarray(inputs["scale"]).astype(np.float64)
            return (_reduce(np.add, x * w, offsets, 0.0) * s,
                    _reduce(np.add, np.abs(x * w), offsets, 0.0) * np.abs(s))
        maximum = _spread(_reduce(np.maximum, x, offsets, -np.inf), offsets, n)
        if example in ("segmented_softmax", "segmented_log_softmax"):
            shifted = x - maximum
            e = np.exp(shifted)
            total = _spread(_reduce(np.add, np.nan_to_num(e), offsets, 0.0), offsets, n)
            if example == "segmented_softmax":
                expected = e / total
                return expected, np.abs(expected)
            log_total = np.log(total)
            expected = shifted - log_total
            return expected, np.nan_to_num(1.0 + np.abs(shifted) + np.abs(log_total))
        if example == "segmented_l2_normalise":
            norm = np.sqrt(_reduce(np.add, x * x, offsets, 0.0))
            expected = x / _spread(np.maximum(norm, L2_EPSILON), offsets, n)
            return expected, np.abs(expected)
    raise ValueError("unknown example %r" % (example,))


def result_lengths(example, inputs):
    """The length of the segment each result comes from (for compute_rtol)."""
    offsets = np.asarray(inputs["offsets"], dtype=np.int64)
    seg_lengths = _segment_lengths(offsets)
    if example in SEGMENT_SHAPED:
        return np.nan_to_num(_spread(seg_lengths.astype(np.float64), offsets,
                                     len(inputs["values"])))
    return seg_lengths.astype(np.float64)


# ---- tolerances and the check --------------------------------------------------------

ULP = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float64": 2.0 ** -52}
ATOL = {"float32": 2.0 ** -126, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -126,
        "float64": 0.0}


def compute_rtol(example, seg_lengths):
    if example == "segmented_max":
        return np.zeros_like(np.asarray(seg_lengths, dtype=np.float64))
    return np.maximum(1e-5, 2.0 ** -22 * np.sqrt(np.asarray(seg_lengths, dtype=np.float64)))


def dtype_name(array):
    """"float32", "float16", "bfloat16", ... of a NumPy array or torch tensor."""
    name = str(array.dtype)
    return name.replace("torch.", "")


def mismatches(example, actual, expected, scale, seg_lengths, out_dtype):
    """Boolean array: where actual fails the tolerance (see the module doc)."""
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected, dtype=np.float64)
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    bad = nan_a != nan_e
    both = ~nan_a & ~nan_e
    inf = both & (np.isinf(a) | np.isinf(e))
    bad |= inf & (a != e)
    finite = both & ~inf
    with np.errstate(invalid="ignore", over="ignore"):
        bound = (compute_rtol(example, seg_lengths) * np.asarray(scale, dtype=np.float64)
                 + ULP[out_dtype] * np.abs(e) + ATOL[out_dtype])
        bad |= finite & ~(np.abs(a - e) <= bound)
    return bad


def describe(example, actual, expected, scale, bad, what, seed=None, limit=8):
    """A failure message: how many differ and the first few, with bounds."""
    a = np.asarray(actual).astype(np.float64)
    index = np.flatnonzero(bad)
    lines = ["%s: %s: %d of %d results out of tolerance (seed %s)"
             % (example, what, index.size, bad.size, seed)]
    for i in index[:limit]:
        lines.append("  [%d] got %r, expected %r (scale %.3g)"
                     % (i, float(a[i]), float(expected[i]), float(scale[i])))
    return "\n".join(lines)


def check(example, actual, inputs, what="result", seed=None, expected_scale=None):
    """Asserts that `actual` (NumPy) is example's result on `inputs` (NumPy)."""
    expected, scale = expected_scale if expected_scale is not None else reference(example,
                                                                                 inputs)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, "%s: %s: shape %s, expected %s" % (
        example, what, actual.shape, expected.shape)
    bad = mismatches(example, actual, expected, scale, result_lengths(example, inputs),
                     dtype_name(actual))
    assert not bad.any(), describe(example, actual, expected, scale, bad, what, seed)


# ---- PyTorch references (GPU suite, benchmark) ------------------------------------------

def torch_reference(example, inputs):
    """(expected, scale) as float64 torch tensors on the inputs' device, for
    inputs given as torch tensors. Sums, maxima and means come from
    torch.segment_reduce in float64; softmax and the others are composed
    from it. Needs one host read (offsets[0] and offsets[-1])."""
    import torch
    x = inputs["values"].double()
    offsets = inputs["offsets"].long()
    lo, hi = (int(v) for v in offsets[[0, -1]].tolist())
    seg_lengths = offsets[1:] - offsets[:-1]
    body = x[lo:hi]
    segs = seg_lengths.numel()

    def reduce(values, how):
        if segs == 0 or values.numel() == 0:  # every segment empty: filled in below
            return values.new_zeros(segs)
        return torch.segment_reduce(values, how, lengths=seg_lengths, unsafe=True)

    def spread(per_segment):
        out = torch.full_like(x, float("nan"))
        out[lo:hi] = torch.repeat_interleave(per_segment, seg_lengths, output_size=hi - lo)
        return out

    empty = seg_lengths == 0
    if example == "segmented_sum":
        return (reduce(body, "sum").masked_fill(empty, 0.0),
                reduce(body.abs(), "sum").masked_fill(empty, 0.0))
    if example == "segmented_max":
        expected = reduce(body, "max").masked_fill(empty, float("-inf"))
        return expected, expected.abs()
    if example == "segmented_mean":
        expected = reduce(body, "mean").masked_fill(empty, float("nan"))
        return expected, reduce(body.abs(), "mean").masked_fill(empty, 0.0)
    if example == "weighted_sum":
        w = inputs["weights"].double()[lo:hi]
        s = inputs["scale"].double()
        return ((reduce(body * w, "sum").masked_fill(empty, 0.0) * s),
                (reduce((body * w).abs(), "sum").masked_fill(empty, 0.0) * s.abs()))
    maximum = spread(reduce(body, "max").masked_fill(empty, float("-inf")))
    if example in ("segmented_softmax", "segmented_log_softmax"):
        shifted = x - maximum
        e = torch.exp(shifted)
        total = spread(reduce(e[lo:hi], "sum").masked_fill(empty, 0.0))
        if example == "segmented_softmax":
            expected = e / total
            return expected, expected.abs()
        log_total = torch.log(total)
        expected = shifted - log_total
        return expected, torch.nan_to_num(1.0 + shifted.abs() + log_total.abs())
    if example == "segmented_l2_normalise":
        norm = torch.sqrt(reduce(body * body, "sum").masked_fill(empty, 0.0))
        expected = x / spread(torch.clamp(norm, min=L2_EPSILON))
        return expected, expected.abs()
    raise ValueError("unknown example %r" % (example,))


def torch_result_lengths(example, inputs):
    import torch
    offsets = inputs["offsets"].long()
    seg_lengths = (offsets[1:] - offsets[:-1]).double()
    if example not in SEGMENT_SHAPED:
        return seg_lengths
    lo, hi = (int(v) for v in offsets[[0, -1]].tolist())
    out = torch.zeros(inputs["values"].numel(), dtype=torch.float64,
                      device=inputs["values"].device)
    out[lo:hi] = torch.repeat_interleave(seg_lengths, (offsets[1:] - offsets[:-1]),
                                         output_size=hi - lo)
    return out


def torch_mismatches(example, actual, expected, scale, seg_lengths, slack=1.0):
    """The tolerance of `mismatches`, computed on the device (torch tensors);
    `slack` multiplies the arithmetic part (the benchmark's peers get 4)."""
    import torch
    out_dtype = dtype_name(actual)
    a = actual.double()
    nan_a, nan_e = torch.isnan(a), torch.isnan(expected)
    bad = nan_a != nan_e
    both = ~nan_a & ~nan_e
    inf = both & (torch.isinf(a) | torch.isinf(expected))
    bad |= inf & (a != expected)
    finite = both & ~inf
    if example == "segmented_max":
        rtol = torch.zeros_like(seg_lengths)
    else:
        rtol = torch.clamp(2.0 ** -22 * torch.sqrt(seg_lengths), min=1e-5) * slack
    bound = rtol * scale + ULP[out_dtype] * expected.abs() + ATOL[out_dtype]
    bad |= finite & ~((a - expected).abs() <= bound)
    return bad


def torch_describe(example, actual, expected, scale, bad, what, seed=None, limit=8):
    index = torch_nonzero(bad, limit)
    count = int(bad.sum())
    lines = ["%s: %s: %d of %d results out of tolerance (seed %s)"
             % (example, what, count, bad.numel(), seed)]
    for i in index:
        lines.append("  [%d] got %r, expected %r (scale %.3g)"
                     % (i, float(actual[i]), float(expected[i]), float(scale[i])))
    return "\n".join(lines)


def torch_nonzero(mask, limit):
    import torch
    return [int(i) for i in torch.nonzero(mask).flatten()[:limit].tolist()]

