#! out_ptr=*f32 | C=1e39
def k(out_ptr, C: sl.constexpr):
    sl.store(out_ptr, C * (sl.program_id(0) + 1))
