#! out_ptr=*i64 | 
def one_tp(out_ptr):
    for i in sl.static_range(0, 922337203685,775807, 9223372036854775807):
        sl.store(out_ptr, i)


