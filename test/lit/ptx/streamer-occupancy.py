# REQUIRES: emit-ptx
# Auto's sub-warp streamer (the direct kernel for segments of several
# tiles of a one-stage program, whose tasks keep two tiles in flight) asks
# ptxas for 12 CTAs of 128 threads a multiprocessor (.minnctapersm 12: at
# most 40 registers; docs/schedules.md), its warp streamers (the wide one
# of a one-stage program, a program of several stages') for 10 (48
# registers); the persistent lists kernels ask
# for 4 of their 256 threads (64 registers). No other kernel carries the
# hint: not the single-tile direct kernels, not the CTA streamers (a CTA a
# task: they would spill), not a plain grid kernel.
# RUN: %swage compile %s --kernel segment_total --signature 'values_ptr=*f32,offsets_ptr=*i32,out_ptr=*f32' --emit=ptx | FileCheck %s --check-prefix=ONE
# RUN: %swage compile %s --kernel segment_softmax --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' --emit=ptx | FileCheck %s --check-prefix=SOFT
# RUN: %swage compile %s --kernel scale --signature 'x_ptr=*f32,n=i32' --emit=ptx | FileCheck %s --check-prefix=PLAIN
# Forced schedule="cta": the narrow CTA streamer of a one-stage program
# reading one segment buffer asks for 16 CTAs (32 registers; the
# planner's sw.sm_threads), not that of a program of several stages (it
# spilled), nor the wide one.
# RUN: %swage compile %s --kernel segment_total --signature 'values_ptr=*f32,offsets_ptr=*i32,out_ptr=*f32' --emit=mlir > %t.one.mlir
# RUN: %swage-opt %t.one.mlir --passes=lower-segments-cta,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_90 | FileCheck %s --check-prefix=CTA
# RUN: %swage compile %s --kernel segment_softmax --signature 'values_ptr=*f32,offsets_ptr=*i64,out_ptr=*f32' --emit=mlir > %t.soft.mlir
# RUN: %swage-opt %t.soft.mlir --passes=lower-segments-cta,fold,cse,fold,dce,lower-simt,plan-link,fold,cse,fold,dce --emit-ptx=sm_90 | FileCheck %s --check-prefix=CTASOFT
import swage as sw
import swage.language as sl


@sw.jit
def segment_total(values_ptr, offsets_ptr, out_ptr):
    sid = sl.segment_id(0)
    sl.store(out_ptr + sid, sl.sum(sl.load_segment(sl.segment(values_ptr, offsets_ptr, sid))))


@sw.jit
def segment_softmax(values_ptr, offsets_ptr, out_ptr):
    segment = sl.segment(values_ptr, offsets_ptr, sl.segment_id(0))
    x = sl.load_segment(segment)
    e = sl.exp(x - sl.max(x))
    sl.store_segment(out_ptr, segment, e / sl.sum(e))


@sw.jit
def scale(x_ptr, n, BLOCK: sl.constexpr = 128):
    offs = sl.program_id(0) * BLOCK + sl.arange(0, BLOCK)
    sl.store(x_ptr + offs, sl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

# ONE:      .entry segment_total__direct_warp128(
# ONE:      .maxntid 128, 1, 1
# ONE-NEXT: {
# ONE:      .entry segment_total__direct_subwarp64_stream(
# ONE:      .maxntid 128, 1, 1
# ONE-NEXT: .minnctapersm 12
# ONE-NEXT: {
# ONE:      .entry segment_total__direct_warp256_stream(
# ONE:      .maxntid 128, 1, 1
# ONE-NEXT: .minnctapersm 10
# ONE-NEXT: {
# ONE:      .entry segment_total__direct_cta1024_stream(
# ONE:      .maxntid 128, 1, 1
# ONE-NEXT: {
# ONE:      .entry segment_total__direct_cta4096_stream(
# ONE:      .maxntid 256, 1, 1
# ONE-NEXT: {
# ONE:      .entry segment_total__lists(
# ONE:      .maxntid 256, 1, 1
# ONE-NEXT: .minnctapersm 4
# ONE-NEXT: {

# SOFT:      .entry segment_softmax__direct_warp128_stream(
# SOFT:      .maxntid 128, 1, 1
# SOFT-NEXT: .minnctapersm 10
# SOFT-NEXT: {
# SOFT:      .entry segment_softmax__direct_cta1024_stream(
# SOFT:      .maxntid 128, 1, 1
# SOFT-NEXT: {
# SOFT:      .entry segment_softmax__direct_cta4096_stream(
# SOFT:      .maxntid 256, 1, 1
# SOFT-NEXT: {

# PLAIN:     .entry scale(
# PLAIN-NOT: .minnctapersm

# CTA:      .entry segment_total__direct_cta1024_stream(
# CTA:      .maxntid 128, 1, 1
# CTA-NEXT: .minnctapersm 16
# CTA-NEXT: {
# CTA:      .entry segment_total__direct_cta4096_stream(
# CTA:      .maxntid 256, 1, 1
# CTA-NEXT: {

# CTASOFT:      .entry segment_softmax__direct_cta1024_stream(
# CTASOFT:      .maxntid 128, 1, 1
# CTASOFT-NEXT: {
