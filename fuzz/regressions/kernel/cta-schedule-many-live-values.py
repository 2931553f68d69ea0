#! values_ptr=*f32,weights_ptr=*f32,offsets_ptr=*i32,scale_ptr=*f32,out_ptr=*f32,centred_ptr=*f32 | 
def weighted(values_ptr, weights_ptr, offsets_ptr, scale_ptr, out_ptr, centred_ptr):
    sid = sl.segment_id(0)
    values = sl.segment(values_ptr, offsets_ptr, sid)
    weights = sl.segment(weights_ptr, offsets_ptr, sid)
    x = sl.load_segment(values) * sl.load_segment(weights)
    total = sl.sum(x) * sl.load(scale_ptr + sid)
    sl.store(out_ptr + sid, total)
    x = sl.load_segment(values) * sl.load_segment(weights)
    sl.store_segment(centred_ptr, weights, x - total)


