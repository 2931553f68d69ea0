#! out_ptr=*i64 | 
def k(out_ptr):
    sl.store(out_ptr, 1 ** 1000000000000000000 + (-2) ** 63 + 1)
