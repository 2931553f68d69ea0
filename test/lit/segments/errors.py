# Diagnostics of segment programs through the command line: file:line:col,
# the source line and a caret under the construct (the full list of
# segment errors is test/python/test_segment_errors.py).
# RUN: not %swage compile %s --kernel two_offsets --signature 'v_ptr=*f32,o_ptr=*i32,p_ptr=*i64,out_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=TWO-OFFSETS
# RUN: not %swage compile %s --kernel in_loop --signature 'v_ptr=*f32,o_ptr=*i32,out_ptr=*f32,n=i32' 2>&1 | FileCheck %s --check-prefix=IN-LOOP
# RUN: not %swage compile %s --kernel plain_store --signature 'v_ptr=*f32,o_ptr=*i32,out_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=PLAIN-STORE
# RUN: not %swage compile %s --kernel with_grid --signature 'v_ptr=*f32,o_ptr=*i32,out_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=WITH-GRID
# RUN: not %swage compile %s --kernel with_tile --signature 'v_ptr=*f32,o_ptr=*i32,out_ptr=*f32' 2>&1 | FileCheck %s --check-prefix=WITH-TILE
import swage as sw
import swage.language as sl


@sw.jit
def two_offsets(v_ptr, o_ptr, p_ptr, out_ptr):
    sid = sl.segment_id(0)
    a = sl.segment(v_ptr, o_ptr, sid)
    b = sl.segment(out_ptr, p_ptr, sid)

# TWO-OFFSETS:      errors.py:[[# @LINE - 2]]:29: error: sl.segment uses other offsets than the sl.segment at line [[# @LINE - 3]]: every view of a segment program shares one offsets pointer
# TWO-OFFSETS-NEXT: b = sl.segment(out_ptr, p_ptr, sid)
# TWO-OFFSETS-NEXT: {{^}}                            ^{{$}}


@sw.jit
def in_loop(v_ptr, o_ptr, out_ptr, n):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(v_ptr, o_ptr, sid))
    total = 0.0
    for i in range(n):
        total += sl.max(x)
    sl.store(out_ptr + sid, total)

# IN-LOOP: errors.py:[[# @LINE - 3]]:18: error: segment data cannot be used inside the for loop at line [[# @LINE - 4]]: segment loads, stores and reductions happen at the top level of the kernel


@sw.jit
def plain_store(v_ptr, o_ptr, out_ptr):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(v_ptr, o_ptr, sid))
    sl.store(out_ptr, x)

# PLAIN-STORE: errors.py:[[# @LINE - 2]]:23: error: sl.store cannot store a segment value of float32; use sl.store_segment(pointer, segment, value)


@sw.jit
def with_grid(v_ptr, o_ptr, out_ptr):
    sid = sl.segment_id(0)
    x = sl.load_segment(sl.segment(v_ptr, o_ptr, sid))
    sl.store(out_ptr + sl.program_id(0), sl.sum(x))

# WITH-GRID: errors.py:[[# @LINE - 2]]:24: error: sl.program_id cannot be used in a segment program (sl.segment_id at line [[# @LINE - 4]])


@sw.jit
def with_tile(v_ptr, o_ptr, out_ptr):
    sid = sl.segment_id(0)
    segment = sl.segment(v_ptr, o_ptr, sid)
    x = sl.load_segment(segment)
    sl.store_segment(out_ptr, segment, x * sl.full(128, 2.0, sl.float32))

# WITH-TILE: errors.py:[[# @LINE - 2]]:40: error: a segment value cannot be combined with a tile
