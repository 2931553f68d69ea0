#! x_ptr=*f32,out_ptr=*f32 | 
def k(x_ptr, out_ptr):
    v = sl.load(x_ptr + True)
    sl.store(out_ptr, v)
