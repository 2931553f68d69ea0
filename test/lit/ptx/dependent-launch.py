# REQUIRES: emit-ptx
# The persistent segment task kernels (lists, split stages) are launched as
# programmatic dependent launches on sm_90 and newer (docs/schedules.md):
# each begins by waiting for the grid before it and then lets the next one
# start. The direct kernels (launched plainly), older targets, and kernels
# that are not segment tasks begin with neither. A one-stage program's
# split stage is the last section of its lists kernel (no split kernel of
# its own); segmented_sum here stores through the segment, a second stage.
# RUN: %swage compile %s --kernel segmented_sum --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' --emit=ptx --sm=90 | FileCheck %s --check-prefix=SM90
# RUN: %swage compile %s --kernel segmented_sum --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' --emit=ptx --sm=80 | FileCheck %s --check-prefix=SM80
# RUN: %swage compile %s --kernel segment_total --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' --emit=ptx --sm=90 | FileCheck %s --check-prefix=ONE
# RUN: %swage compile %s --kernel scale --signature 'x_ptr=*f32,n=i32' --emit=ptx --sm=90 | FileCheck %s --check-prefix=PLAIN
import swage as sw
import swage.language as sl


@sw.jit
def segmented_sum(values_ptr, offsets_ptr, out_ptr):
    segment = sl.segment(values_ptr, offsets_ptr, sl.segment_id(0))
    sl.store_segment(out_ptr, segment, sl.sum(sl.load_segment(segment)))


@sw.jit
def segment_total(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))))


@sw.jit
def scale(x_ptr, n, BLOCK: sl.constexpr = 128):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(x_ptr + offs, sl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

# SM90:      .entry segmented_sum__direct_subwarp1(
# SM90-NOT:  griddepcontrol
# SM90:      .entry segmented_sum__lists(
# SM90-NOT:  ld.global
# SM90:      griddepcontrol.wait;
# SM90-NEXT: griddepcontrol.launch_dependents;
# SM90:      .entry segmented_sum__split0(
# SM90-NOT:  ld.global
# SM90:      griddepcontrol.wait;
# SM90-NEXT: griddepcontrol.launch_dependents;

# ONE:       .entry segment_total__direct_subwarp1(
# ONE-NOT:   griddepcontrol
# ONE:       .entry segment_total__lists(
# ONE-NOT:   ld.global
# ONE:       griddepcontrol.wait;
# ONE-NEXT:  griddepcontrol.launch_dependents;
# ONE-NOT:   .entry segment_total__split

# SM80-NOT:  griddepcontrol
# SM80:      .entry segmented_sum__direct_subwarp1(
# SM80-NOT:  griddepcontrol

# PLAIN:     .entry scale(
# PLAIN-NOT: griddepcontrol
