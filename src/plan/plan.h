/* plan.h - how a segment program becomes tasks on a GPU (docs/schedules.md).
 *
 * Vocabulary: a *segment* is values[offsets[s] : offsets[s+1]]; a *task* is
 * what one group of threads does at once (a whole segment, or one chunk of
 * a split segment); a *tile* is the fixed number of elements a group holds
 * in one step; a *policy* is how a class of tasks runs (sub-warp, warp, CTA,
 * split); a *schedule* is the policies a launch uses and how tasks reach
 * the hardware.
 *
 * The planner (task_kernels.c) turns one segment program into a module of
 * task kernels for one schedule; what each kernel is for is recorded in
 * its func.func attributes, so the plan is IR like every other stage and
 * parses back:
 *
 *   sw.task = "direct"  one task per segment, the segment's program runs on
 *                       a group of sw.program_threads threads holding a tile
 *                       of sw.tile elements; a longer segment either streams
 *                       (sw.overflow = "stream") or is appended to the list
 *                       of its class (sw.overflow = "lists")
 *   sw.task = "list"    a persistent section over list sw.list: every segment
 *                       in it fits sw.tile (or, sw.overflow = "stream", is
 *                       streamed); after lower-simt the sections are linked
 *                       into the kernel sw.link names, <kernel>__<sw.link>
 *                       (lists; a program of several stages: lists and
 *                       lists_wide)
 *   sw.task = "split"   stage sw.stage of the split segments: a persistent
 *                       grid of CTAs over chunks of the split list; with
 *                       sw.link (a one-stage program's only stage, under a
 *                       schedule with list sections) it is linked into
 *                       <kernel>__<sw.link> as its last section
 *   sw.task = "lists"   (after plan-link) a linked kernel: the lists in
 *                       sw.lists, its sw.sections in that order, and, with
 *                       sw.split_stage = k, split stage k last (sw.lists
 *                       then ends with the split list)
 *
 * plan_info (launch.c) reads the attributes back from the lowered module;
 * plan_runtime fills the launch parameters from the real sizes.
 */
#ifndef SWAGE_PLAN_H
#define SWAGE_PLAN_H

#include "../ir/ir.h"

#include <string.h>

typedef enum plan_schedule {
    PLAN_AUTO = 0,     /* every policy: direct by the mean length, lists, split */
    PLAN_SUBWARP,      /* every segment on a group of 1..16 lanes (long ones streamed) */
    PLAN_WARP,         /* every segment on a warp */
    PLAN_CTA,          /* every segment on a CTA */
    PLAN_SPLIT,        /* every segment split into chunks on many CTAs */
    PLAN_PERSISTENT,   /* every segment classified into lists, run by persistent kernels */
    PLAN_SCHEDULES
} plan_schedule;

extern const char *const plan_schedule_names[PLAN_SCHEDULES];
/* PLAN_SCHEDULES when the name is unknown. */
plan_schedule plan_schedule_from_name(const char *name);

/* A task shape: a group of `group` threads holding `slots` elements each,
 * one tile of group * slots elements. */
typedef struct plan_shape {
    int32_t group, slots;
} plan_shape;

static inline int32_t plan_shape_block(plan_shape s) { return s.group * s.slots; }

enum {
    PLAN_CTA_THREADS = 256,   /* threads of the CTA shapes, list sections, split and merge kernels */
    PLAN_MAX_SHAPES = 16,
    PLAN_STREAM_TILE = 2048,  /* elements per step of a CTA streaming a segment */
    PLAN_HEADER_WORDS = 64,   /* the scratch header: flag, list counts */
    PLAN_DONE_WORD = PLAN_HEADER_WORDS - 1, /* the header word a kernel that leaves the
                                               header clean counts its finished CTAs in */
    PLAN_WORK_WORD = PLAN_HEADER_WORDS - 3, /* nonzero: a segment was appended to a list
                                               that <kernel>__lists serves */
    PLAN_WORK_WORD_WIDE = PLAN_HEADER_WORDS - 2, /* the same for <kernel>__lists_wide */
};

/* The work word of linked kernel <kernel>__<link> (link: "lists" or
 * "lists_wide"). */
static inline int plan_work_word(const char *link)
{
    return link && !strcmp(link, "lists_wide") ? PLAN_WORK_WORD_WIDE : PLAN_WORK_WORD;
}

/* The single-tile shapes the schedules draw on, shortest tile first, and
 * their policy names ("subwarp", "warp", "cta"). `live` is the number of
 * segment values a task keeps at once, which bounds the slots per thread
 * (registers): shapes whose tile would not fit are left out. */
int plan_shapes(int live, plan_shape *out);
const char *plan_shape_policy(plan_shape s);

/* Builds the task kernels of `schedule` for every segment program of m in
 * place (lower-segments). Requires a verified module; guarantees a verified
 * module of semantic grid programs (one per task kernel). */
bool plan_build(ir_module *m, plan_schedule schedule, diag *d);

/* After lower-simt: links the list sections of every schedule into their
 * kernels (<kernel>__lists, <kernel>__lists_wide), a one-stage program's
 * split stage last into <kernel>__lists; requires and guarantees verified
 * SIMT IR. */
bool plan_link(ir_module *m, diag *d);

#endif
