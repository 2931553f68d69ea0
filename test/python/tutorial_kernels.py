"""Kernels written as Triton's tutorials write them, for the conformance
suite (test_conformance_tutorials.py, test_conformance_extra.py).

Each kernel here is what a Triton user would write, with two changes only:
`import triton.language as tl` is `import swage.language as sl`, and
`@triton.jit` is `@sw.jit` (test_conformance_extra.py checks that undoing
those two renames gives Triton source, and nothing else differs). The
kernels follow the idioms of Triton's tutorials (01 vector add, 02 fused
softmax, 04 low-memory dropout, 05 layer norm) and of kernels commonly
ported from them, but are written for this suite: they are not copies of
the tutorials' text.

Kernels that use a feature Swage lacks are here too, so that the tests can
mark them xfail(strict=True) with the exact error: the gap stays visible
and a fix shows up as an XPASS.
"""

import swage as sw
import swage.language as sl


# ---- 01: vector add -------------------------------------------------------------------

@sw.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: sl.constexpr):
    # Each program handles BLOCK_SIZE consecutive elements.
    pid = sl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + sl.arange(0, BLOCK_SIZE)
    # The last program may run past the end: mask those lanes off.
    mask = offsets < n_elements
    x = sl.load(x_ptr + offsets, mask=mask)
    y = sl.load(y_ptr + offsets, mask=mask)
    output = x + y
    sl.store(output_ptr + offsets, output, mask=mask)


# ---- 02: fused softmax ----------------------------------------------------------------

@sw.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: sl.constexpr):
    # One program per row; BLOCK_SIZE is the next power of two >= n_cols.
    row_idx = sl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = sl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    # Lanes past the row read -inf, which exp() turns into 0.
    row = sl.load(input_ptrs, mask=col_offsets < n_cols, other=-float("inf"))
    row_minus_max = row - sl.max(row, axis=0)
    numerator = sl.exp(row_minus_max)
    denominator = sl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    sl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


@sw.jit
def softmax_persistent_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride,
                              n_rows, n_cols, BLOCK_SIZE: sl.constexpr,
                              num_stages: sl.constexpr):
    # The tutorial's newer form: fewer programs than rows, each striding
    # over the rows with a software-pipelined loop.
    row_start = sl.program_id(0)
    row_step = sl.num_programs(0)
    for row_idx in sl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = sl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = sl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - sl.max(row, axis=0)
        numerator = sl.exp(row_minus_max)
        denominator = sl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        sl.store(output_ptrs, softmax_output, mask=mask)


# ---- 04: low-memory dropout -----------------------------------------------------------

@sw.jit
def dropout_kernel(x_ptr, x_keep_ptr, output_ptr, n_elements, p, BLOCK_SIZE: sl.constexpr):
    # The baseline: the keep mask is a tensor in memory.
    pid = sl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + sl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = sl.load(x_ptr + offsets, mask=mask)
    x_keep = sl.load(x_keep_ptr + offsets, mask=mask)
    output = sl.where(x_keep, x / (1 - p), 0.0)
    sl.store(output_ptr + offsets, output, mask=mask)


@sw.jit
def seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: sl.constexpr):
    # The keep mask comes from a counter-based generator: the seed and the
    # element's offset, so nothing but the seed needs storing.
    pid = sl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + sl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = sl.load(x_ptr + offsets, mask=mask)
    random = sl.rand(seed, offsets)
    x_keep = random > p
    output = sl.where(x_keep, x / (1 - p), 0.0)
    sl.store(output_ptr + offsets, output, mask=mask)


# ---- 05: layer norm -------------------------------------------------------------------

@sw.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: sl.constexpr):
    # One program per row, walking the row in BLOCK_SIZE chunks three times:
    # the mean, the variance, then the normalised and scaled output.
    row = sl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = sl.zeros([BLOCK_SIZE], dtype=sl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + sl.arange(0, BLOCK_SIZE)
        a = sl.load(X + cols, mask=cols < N, other=0.).to(sl.float32)
        _mean += a
    mean = sl.sum(_mean, axis=0) / N
    _var = sl.zeros([BLOCK_SIZE], dtype=sl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + sl.arange(0, BLOCK_SIZE)
        x = sl.load(X + cols, mask=cols < N, other=0.).to(sl.float32)
        x = sl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = sl.sum(_var, axis=0) / N
    rstd = 1 / sl.sqrt(var + eps)
    sl.store(Mean + row, mean)
    sl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + sl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = sl.load(W + cols, mask=mask)
        b = sl.load(B + cols, mask=mask)
        x = sl.load(X + cols, mask=mask, other=0.).to(sl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        sl.store(Y + cols, y, mask=mask)


@sw.jit
def layer_norm_bwd_dx_kernel(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                             GROUP_SIZE_M: sl.constexpr, BLOCK_SIZE_N: sl.constexpr):
    # dx of one row, and this row's dw/db added into one of GROUP_SIZE_M
    # partial buffers, which a spin lock (atomic_cas / atomic_xchg) guards.
    # Lock[0:GROUP_SIZE_M] are the locks, Lock[GROUP_SIZE_M:] say whether a
    # buffer has been written yet.
    row = sl.program_id(0)
    cols = sl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = sl.load(X + cols, mask=mask, other=0).to(sl.float32)
    dy = sl.load(DY + cols, mask=mask, other=0).to(sl.float32)
    w = sl.load(W + cols, mask=mask).to(sl.float32)
    mean = sl.load(Mean + row)
    rstd = sl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = sl.where(mask, xhat, 0.)
    wdy = sl.where(mask, wdy, 0.)
    c1 = sl.sum(xhat * wdy, axis=0) / N
    c2 = sl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    sl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while sl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = sl.load(Count)
    if count == 0:
        # the first row of this group: nothing to add to yet
        sl.atomic_xchg(Count, 1)
    else:
        partial_dw += sl.load(DW, mask=mask)
        partial_db += sl.load(DB, mask=mask)
    sl.store(DW, partial_dw, mask=mask)
    sl.store(DB, partial_db, mask=mask)
    # every thread's stores must land before the lock is let go
    sl.debug_barrier()
    sl.atomic_xchg(Lock, 0)


@sw.jit
def layer_norm_bwd_dx_nobarrier_kernel(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                                       GROUP_SIZE_M: sl.constexpr,
                                       BLOCK_SIZE_N: sl.constexpr):
    # The same kernel without the barrier before the lock's release (as
    # ports without sl.debug_barrier wrote it). Correct on the CPU executors,
    # which run one program at a time; on a GPU the release could overtake
    # other threads' stores.
    row = sl.program_id(0)
    cols = sl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = sl.load(X + cols, mask=mask, other=0).to(sl.float32)
    dy = sl.load(DY + cols, mask=mask, other=0).to(sl.float32)
    w = sl.load(W + cols, mask=mask).to(sl.float32)
    mean = sl.load(Mean + row)
    rstd = sl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = sl.where(mask, xhat, 0.)
    wdy = sl.where(mask, wdy, 0.)
    c1 = sl.sum(xhat * wdy, axis=0) / N
    c2 = sl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    sl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while sl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = sl.load(Count)
    if count == 0:
        sl.atomic_xchg(Count, 1)
    else:
        partial_dw += sl.load(DW, mask=mask)
        partial_db += sl.load(DB, mask=mask)
    sl.store(DW, partial_dw, mask=mask)
    sl.store(DB, partial_db, mask=mask)
    sl.atomic_xchg(Lock, 0)


@sw.jit
def layer_norm_bwd_dwdb_kernel(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_N: sl.constexpr):
    # Stage 2 in one dimension: each program owns BLOCK_SIZE_N columns and
    # adds up the M partial rows of DW and DB one row at a time (the
    # tutorial's version loads [BLOCK_SIZE_M, BLOCK_SIZE_N] tiles: 2-D).
    pid = sl.program_id(0)
    cols = pid * BLOCK_SIZE_N + sl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    dw = sl.zeros((BLOCK_SIZE_N,), dtype=sl.float32)
    db = sl.zeros((BLOCK_SIZE_N,), dtype=sl.float32)
    for i in range(0, M):
        dw += sl.load(DW + i * N + cols, mask=mask, other=0.)
        db += sl.load(DB + i * N + cols, mask=mask, other=0.)
    sl.store(FINAL_DW + cols, dw, mask=mask)
    sl.store(FINAL_DB + cols, db, mask=mask)


@sw.jit
def layer_norm_bwd_rows_kernel(X, W, Mean, Rstd, DX, DW, DB, DY, stride, n_rows, n_cols,
                               rows_per_program: sl.constexpr, BLOCK_SIZE: sl.constexpr):
    # The lock-free backward common in ports of the tutorial: each program
    # takes rows_per_program rows, keeps its dw/db partial sums in
    # registers and writes one row of partials (summed on the host).
    row_block_id = sl.program_id(0)
    row_start = row_block_id * rows_per_program
    row_end = sl.minimum((row_block_id + 1) * rows_per_program, n_rows)
    cols = sl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dw_row = sl.zeros((BLOCK_SIZE,), dtype=sl.float32)
    db_row = sl.zeros((BLOCK_SIZE,), dtype=sl.float32)
    X += row_start * stride
    DX += row_start * stride
    DY += row_start * stride
    Mean += row_start
    Rstd += row_start
    for _ in range(row_start, row_end):
        x = sl.load(X + cols, mask=mask, other=0.0).to(sl.float32)
        w = sl.load(W + cols, mask=mask, other=0.0).to(sl.float32)
        dy = sl.load(DY + cols, mask=mask, other=0.0).to(sl.float32)
        mean = sl.load(Mean)
        rstd = sl.load(Rstd)
        x_hat = (x - mean) * rstd
        wdy = w * dy
        c1 = sl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = sl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        sl.store(DX + cols, dx, mask=mask)
        dw_row += dy * x_hat
        db_row += dy
        X += stride
        DX += stride
        DY += stride
        Mean += 1
        Rstd += 1
    sl.store(DW + row_block_id * n_cols + cols, dw_row, mask=mask)
    sl.store(DB + row_block_id * n_cols + cols, db_row, mask=mask)


# ---- other tutorial-style kernels -----------------------------------------------------

@sw.jit
def gelu(x):
    # GELU, the exact (erf) form
    return 0.5 * x * (1.0 + sl.erf(x * 0.7071067811865476))


@sw.jit
def bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, n_rows, n_cols, stride,
                     BLOCK_SIZE: sl.constexpr):
    # out = gelu(x + bias), bias broadcast over the rows; a 2-D grid of
    # (rows, column blocks), the math in float32 whatever the storage.
    row = sl.program_id(0)
    col_block = sl.program_id(1)
    cols = col_block * BLOCK_SIZE + sl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = sl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(sl.float32)
    b = sl.load(bias_ptr + cols, mask=mask, other=0.0).to(sl.float32)
    y = gelu(x + b)
    sl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@sw.jit
def copy_rows_kernel(src_ptr, dst_ptr, src_stride, dst_stride, n_cols,
                     BLOCK_SIZE: sl.constexpr):
    # A strided 2-D copy: program (row, column block); strides in elements.
    row = sl.program_id(0).to(sl.int64)
    cols = sl.program_id(1) * BLOCK_SIZE + sl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    values = sl.load(src_ptr + row * src_stride + cols, mask=mask)
    sl.store(dst_ptr + row * dst_stride + cols, values, mask=mask)


@sw.jit
def sum_while_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: sl.constexpr):
    # One program reduces the whole array with a while loop over BLOCK_SIZE
    # chunks, accumulating in the output's type.
    acc = sl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty)
    off = 0
    while off < n_elements:
        offsets = off + sl.arange(0, BLOCK_SIZE)
        acc += sl.load(x_ptr + offsets, mask=offsets < n_elements, other=0)
        off += BLOCK_SIZE
    sl.store(out_ptr, sl.sum(acc, axis=0))


@sw.jit
def sum_atomic_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: sl.constexpr):
    # A grid-stride loop: each program sums its strided chunks, then adds
    # its partial sum into *out_ptr with one atomic.
    pid = sl.program_id(0)
    step = sl.num_programs(0) * BLOCK_SIZE
    acc = sl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty)
    for start in range(pid * BLOCK_SIZE, n_elements, step):
        offsets = start + sl.arange(0, BLOCK_SIZE)
        acc += sl.load(x_ptr + offsets, mask=offsets < n_elements, other=0)
    sl.atomic_add(out_ptr, sl.sum(acc, axis=0))


@sw.jit
def rms_norm_kernel(X, Y, W, stride, N, eps, BLOCK_SIZE: sl.constexpr):
    # RMS norm of one row per program, the row held in one tile.
    row = sl.program_id(0)
    cols = sl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = sl.load(X + row * stride + cols, mask=mask, other=0.0).to(sl.float32)
    w = sl.load(W + cols, mask=mask, other=0.0).to(sl.float32)
    rrms = sl.rsqrt(sl.sum(x * x, axis=0) / N + eps)
    sl.store(Y + row * stride + cols, x * rrms * w, mask=mask)


@sw.jit
def softmax_online_kernel(output_ptr, input_ptr, stride, n_cols, BLOCK_SIZE: sl.constexpr):
    # Softmax of rows longer than one tile: an online max/sum pass over
    # BLOCK_SIZE chunks, then a second pass that writes.
    row = sl.program_id(0)
    input_ptr += row * stride
    output_ptr += row * stride
    m = -float("inf")
    d = 0.0
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + sl.arange(0, BLOCK_SIZE)
        x = sl.load(input_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(sl.float32)
        m_new = sl.maximum(m, sl.max(x, axis=0))
        d = d * sl.exp(m - m_new) + sl.sum(sl.exp(x - m_new), axis=0)
        m = m_new
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + sl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = sl.load(input_ptr + cols, mask=mask, other=-float("inf")).to(sl.float32)
        sl.store(output_ptr + cols, sl.exp(x - m) / d, mask=mask)


# ---- 07: libdevice functions -------------------------------------------------------------

@sw.jit
def asin_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: sl.constexpr):
    # Tutorial 07: a function of CUDA's libdevice (its module "extra" of the language).
    pid = sl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + sl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = sl.load(x_ptr + offsets, mask=mask)
    x = sl.extra.libdevice.asin(x)
    sl.store(y_ptr + offsets, x, mask=mask)


@sw.jit
def row_block_sum_kernel(X, OUT, stride, n_rows, n_cols, rows_per_program: sl.constexpr,
                         BLOCK_SIZE: sl.constexpr):
    # Python's min() of runtime values, which Triton compiles as an
    # elementwise minimum (ports of tutorial 05's backward clamp row_end so).
    pid = sl.program_id(0)
    row_start = pid * rows_per_program
    row_end = min(row_start + rows_per_program, n_rows)
    cols = sl.arange(0, BLOCK_SIZE)
    acc = sl.zeros((BLOCK_SIZE,), dtype=sl.float32)
    for row in range(row_start, row_end):
        acc += sl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    sl.store(OUT + pid * n_cols + cols, acc, mask=cols < n_cols)


@sw.jit
def sign_bit_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: sl.constexpr):
    # A float's bits as an integer: .to(dtype, bitcast=True).
    offsets = sl.program_id(0) * BLOCK_SIZE + sl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = sl.load(x_ptr + offsets, mask=mask)
    bits = x.to(sl.int32, bitcast=True)
    sl.store(out_ptr + offsets, (bits >> 31) & 1, mask=mask)


@sw.jit
def softmax_methods_kernel(output_ptr, input_ptr, stride, n_cols, BLOCK_SIZE: sl.constexpr):
    # Softmax with the tensor methods Triton also offers (x.max(), x.exp(), x.sum()).
    row = sl.program_id(0)
    cols = sl.arange(0, BLOCK_SIZE)
    x = sl.load(input_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    e = (x - x.max(axis=0)).exp()
    sl.store(output_ptr + row * stride + cols, e / e.sum(axis=0), mask=cols < n_cols)


@sw.jit
def debug_print_kernel(x_ptr, out_ptr, BLOCK_SIZE: sl.constexpr):
    # Printing from a kernel, the usual way to debug one.
    offsets = sl.arange(0, BLOCK_SIZE)
    x = sl.load(x_ptr + offsets)
    sl.device_print("x = ", x)
    sl.store(out_ptr + offsets, x)
