#! x_ptr=*f32 | 
def k(x_ptr):
    sl.store(x_ptr - (-2 ** 62 * 2), 1.0)
