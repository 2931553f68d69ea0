#! out_ptr=*i64 | 
def k(out_ptr):
    for i in sl.static_range(0, 9223372036854775807, 9223372036854775807):
        sl.store(out_ptr, i)
    for i in sl.static_range(9223372036854775807, -2 ** 62 * 2, -2 ** 62 * 2):
        sl.store(out_ptr + 1, i)
