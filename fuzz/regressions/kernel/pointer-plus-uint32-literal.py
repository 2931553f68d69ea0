#! x_ptr=*u8,y_ptr=*u8,out_ptr=*u8,n=i32 | BLOCK=64
@sw.jit
def op_bitxor(x_ptr, y_ptr, out_ptr, n, BLOCK: sl.constexpr):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    mask = offs < n
    x = sl.load(x_ptr + offs, mask=mask)
    y = sl.load(y_ptr + 4294967295, mask=mask)
    sl.store(out_ptr + offs, x ^ y, mask=mask)
