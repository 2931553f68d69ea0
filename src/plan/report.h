/* report.h - the plan of one launch, for a person (report.c): what
 * kernel.plan() prints. */
#ifndef SWAGE_PLAN_REPORT_H
#define SWAGE_PLAN_REPORT_H

#include "launch.h"

enum { PLAN_REPORT_MAX_BUFFERS = 64 };

typedef struct plan_report_input {
    const char *kernel;
    const plan_info *info;
    const plan_runtime *rt;
    int64_t segments;
    int64_t limit;            /* the shortest segment buffer */
    const int64_t *offsets;   /* segments + 1 offsets in host memory, or NULL */
    double bandwidth;         /* GB/s for predicted times; 0: none */
    const char *device;
    int device_index;         /* -1: the CPU */
    int multiprocessors;
    int nbuffers;
    int64_t buffer_elements[PLAN_REPORT_MAX_BUFFERS];
} plan_report_input;

/* Classifies every segment as the launch's kernels do (the same
 * thresholds), and writes the report. */
void plan_report(const plan_report_input *in, strbuf *out);

/* Where a segment runs in a launch planned as rt, from its span (its
 * clamped end minus its clamped start rounded down to 4 elements: what a
 * tile must cover): the kernel index, and for lists the list. Matches the
 * kernels' own rules. */
typedef struct plan_placement {
    int kernel;   /* index into info->kernels (the direct kernel, the lists kernel, a split stage) */
    int list;     /* the list, or -1 when the direct kernel runs it */
    bool streamed;/* the direct kernel or a list streams it (not on one tile) */
} plan_placement;

/* Where a segment of `len` elements goes; `span` is end - (start rounded
 * down to 4), what tiles of 4 or more must cover. */
plan_placement plan_place(const plan_info *info, const plan_runtime *rt, int64_t len, int64_t span);

#endif
