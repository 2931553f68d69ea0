/* report.c - see report.h. Bytes are counted as the schedule moves them:
 * a segment on one tile reads its elements once; a streamed or split one
 * once per stage that touches them; a listed segment adds its list entry
 * (written, read back) and a second read of its offsets. The floor is the
 * fewest bytes any schedule must move: every element read once, every
 * output written once, the offsets read once. */
#include "report.h"

#include <stdio.h>
#include <string.h>

/* The lists kernel that runs list c (of several, the one whose sw.lists
 * names it). */
static int lists_kernel(const plan_info *info, int c)
{
    for (int k = 0; k < info->nkernels; k++)
        if (info->kernels[k].kind == PLAN_KERNEL_LISTS && (info->kernels[k].lists >> c) & 1u)
            return k;
    return -1;
}

plan_placement plan_place(const plan_info *info, const plan_runtime *rt, int64_t len, int64_t span)
{
    const plan_kernel *direct = &info->kernels[rt->direct];
    plan_placement p = {.kernel = rt->direct, .list = -1};
    int64_t fit = direct->tile > 0 && direct->tile < 4 ? len : span; /* tiles under 4 start at start */
    if (direct->tile > 0 && fit <= direct->tile)
        return p;
    if (!direct->to_lists || fit <= rt->direct_max) {
        p.streamed = true;
        return p;
    }
    len = span; /* the lists' tiles start at start rounded down */
    if (len > rt->split_min) {
        p.kernel = plan_split_kernel(info);
        p.list = info->nlists - 1;
        return p;
    }
    p.list = info->nshapes;
    for (int c = info->nshapes - 1; c >= 0; c--)
        if (len <= info->list_tile[c])
            p.list = c;
    p.kernel = lists_kernel(info, p.list);
    p.streamed = p.list == info->nshapes;
    return p;
}

typedef struct tally {
    int64_t segments, elements, tasks, bytes;
} tally;

static void fmt_bytes(strbuf *sb, double bytes)
{
    if (bytes >= 1e9)
        sb_printf(sb, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        sb_printf(sb, "%.2f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        sb_printf(sb, "%.1f kB", bytes / 1e3);
    else
        sb_printf(sb, "%.0f B", bytes);
}

static void fmt_time(strbuf *sb, double bytes, double gbps)
{
    double us = bytes / (gbps * 1e3);
    if (us >= 1000)
        sb_printf(sb, "%.2f ms", us / 1000);
    else
        sb_printf(sb, "%.1f us", us);
}

static const char *list_name(const plan_info *info, int c, char buf[48])
{
    if (c == info->nlists - 1)
        snprintf(buf, 48, "split");
    else if (c == info->nshapes)
        snprintf(buf, 48, "stream (longer than %d)", info->nshapes ? info->list_tile[info->nshapes - 1] : 0);
    else
        snprintf(buf, 48, "list %d (<= %d elements)", c, info->list_tile[c]);
    return buf;
}

void plan_report(const plan_report_input *in, strbuf *out)
{
    const plan_info *info = in->info;
    const plan_runtime *rt = in->rt;
    const plan_kernel *direct = rt->direct >= 0 ? &info->kernels[rt->direct] : NULL;
    int passes = info->nkernels ? 1 : 0;
    for (int k = 0; k < info->nkernels; k++)
        if (info->kernels[k].split && info->kernels[k].stage + 1 > passes)
            passes = info->kernels[k].stage + 1;
    sb_printf(out, "plan of %s, schedule %s, on %s", in->kernel, plan_schedule_names[info->schedule], in->device);
    if (in->device_index >= 0)
        sb_printf(out, " %d (%d multiprocessors)", in->device_index, in->multiprocessors);
    sb_printf(out, "\n  %lld segments; segment buffers of %lld elements (mean length at most %.1f); "
                   "%d stage%s\n",
              (long long)in->segments, (long long)in->limit,
              in->segments ? (double)in->limit / (double)in->segments : 0.0, passes, passes == 1 ? "" : "s");
    if (!direct) {
        sb_puts(out, "  (no kernels)\n");
        return;
    }
    sb_puts(out, "policies and thresholds (elements):\n");
    if (direct->flat) {
        sb_printf(out, "  direct: %s, a warp walks %d segments' elements in rows of %d, segments up to %d",
                  direct->name, direct->tasks_per_program, direct->flat_row, direct->tile);
    } else {
        sb_printf(out, "  direct: %s, %d thread%s per segment", direct->name, direct->program_threads,
                  direct->program_threads == 1 ? "" : "s");
        if (direct->tasks_per_program > 1)
            sb_printf(out, " (%d segments each)", direct->tasks_per_program);
        sb_printf(out, ", on one tile up to %d", direct->tile);
    }
    bool reachable = false; /* a list below the split's can hold a segment */
    for (int c = 0; c <= info->nshapes && c < info->nlists; c++)
        reachable = reachable || rt->caps[c] > 0;
    if (!direct->to_lists)
        sb_puts(out, "; longer segments are streamed\n");
    else if (rt->direct_max > direct->tile)
        sb_printf(out, ", streamed up to %lld; longer segments %s\n", (long long)rt->direct_max,
                  reachable || rt->split_min == INT64_MAX ? "go to lists" : "are split");
    else
        sb_puts(out, "; longer segments go to lists\n");
    if (direct->to_lists) {
        if (!reachable && rt->split_min != INT64_MAX) {
            sb_puts(out, "  lists: none reachable (no segment of these buffers is longer than what the direct "
                         "kernel keeps and not split)\n");
        } else {
            sb_puts(out, "  lists:");
            for (int c = 0; c < info->nshapes; c++)
                sb_printf(out, " %d", info->list_tile[c]);
            sb_printf(out, " (one tile each), then streamed by a CTA up to %lld\n",
                      (long long)(rt->split_min == INT64_MAX ? in->limit : rt->split_min));
        }
        int split = plan_split_kernel(info);
        if (rt->split_min != INT64_MAX && split >= 0 && info->kernels[split].kind == PLAN_KERNEL_LISTS)
            sb_printf(out, "  split: segments longer than %lld, in chunks of %lld (the last section of %s)\n",
                      (long long)rt->split_min, (long long)rt->chunk, info->kernels[split].name);
        else if (rt->split_min != INT64_MAX)
            sb_printf(out, "  split: segments longer than %lld, in chunks of %lld\n",
                      (long long)rt->split_min, (long long)rt->chunk);
    }

    /* classification */
    tally per_list[PLAN_MAX_LISTS + 1];
    tally on_direct = {0};
    memset(per_list, 0, sizeof per_list);
    int64_t elements = 0;
    int stream_passes = passes;
    int64_t per_elem_once = info->read_bytes + info->write_bytes;
    int64_t per_elem_stream = (int64_t)info->read_bytes * stream_passes + info->write_bytes;
    if (in->offsets) {
        for (int64_t s = 0; s < in->segments; s++) {
            int64_t a = in->offsets[s], b = in->offsets[s + 1];
            int64_t start = a < 0 ? 0 : a > in->limit ? in->limit : a;
            int64_t end = b < start ? start : b > in->limit ? in->limit : b;
            int64_t len = end - start, span = end - (start & ~(int64_t)3);
            elements += len;
            plan_placement p = plan_place(info, rt, len, span);
            tally *t = p.list < 0 ? &on_direct : &per_list[p.list];
            t->segments++;
            t->elements += len;
            bool split = p.list == info->nlists - 1;
            int64_t chunks = split ? (len + rt->chunk - 1) / rt->chunk : 1;
            t->tasks += chunks > 0 ? chunks : 1;
            t->bytes += len * (p.streamed || split ? per_elem_stream : per_elem_once) + info->segment_bytes +
                        (p.list >= 0 ? 8 + info->segment_bytes : 0);
        }
        sb_puts(out, "segments by policy (segments, elements, tasks):\n");
        sb_printf(out, "  %-34s %12lld %14lld %12lld\n", direct->name, (long long)on_direct.segments,
                  (long long)on_direct.elements, (long long)on_direct.tasks);
        for (int c = 0; c < info->nlists; c++) {
            if (!per_list[c].segments)
                continue;
            char name[48];
            sb_printf(out, "  %-34s %12lld %14lld %12lld\n", list_name(info, c, name),
                      (long long)per_list[c].segments, (long long)per_list[c].elements,
                      (long long)per_list[c].tasks);
        }
    }

    /* launches */
    sb_puts(out, "launches, in order:\n");
    double planned = 0;
    for (int i = 0; i < rt->nlaunches; i++) {
        const plan_launch *l = &rt->launches[i];
        const plan_kernel *k = &info->kernels[l->kernel];
        sb_printf(out, "  %d. %-36s grid %lld x %d threads", i + 1, k->name, (long long)l->grid, k->block_threads);
        if (in->offsets) {
            double bytes = 0;
            if (k->kind == PLAN_KERNEL_DIRECT) {
                bytes = (double)on_direct.bytes + 8.0 * (double)(in->segments - on_direct.segments);
            } else {
                for (int c = 0; k->kind == PLAN_KERNEL_LISTS && c < info->nlists - 1; c++)
                    if (k->lists & (1u << c))
                        bytes += (double)per_list[c].bytes;
                const tally *t = &per_list[info->nlists - 1];
                if (k->split) /* the split stage's chunks (a split kernel, or the lists' last section) */
                    bytes += (double)t->elements * (double)(info->read_bytes +
                                                            (k->stage == passes - 1 ? info->write_bytes : 0)) +
                             (double)t->tasks * 16.0;
            }
            planned += bytes;
            sb_puts(out, ", moves ");
            fmt_bytes(out, bytes);
        }
        sb_putc(out, '\n');
    }
    if (in->offsets) {
        double floor = (double)elements * (double)per_elem_once + (double)in->segments * info->segment_bytes + 4;
        sb_puts(out, "bytes: planned ");
        fmt_bytes(out, planned);
        sb_puts(out, ", floor ");
        fmt_bytes(out, floor);
        sb_printf(out, " (every element read once and written once, offsets read once)");
        if (in->bandwidth > 0) {
            sb_printf(out, "\npredicted at %.0f GB/s: planned ", in->bandwidth);
            fmt_time(out, planned, in->bandwidth);
            sb_puts(out, ", floor ");
            fmt_time(out, floor, in->bandwidth);
        }
        sb_putc(out, '\n');
    }
    sb_printf(out, "scratch: %zu bytes\n", rt->scratch_bytes);
}
