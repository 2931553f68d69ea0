#! out_ptr=*i64 | N=100000000000000000000
def k(out_ptr, N: sl.constexpr):
    sl.store(out_ptr, N)
