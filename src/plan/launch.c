/* launch.c - see launch.h. Requires a module lowered from a planned
 * segment program (task kernels with their sw.* attributes); decides
 * nothing the program's shape fixed (tiles, lists) and everything that
 * depends on the sizes of one launch. */
#include "launch.h"
#include "../passes/lower_segments.h"

#include <stdlib.h>
#include <string.h>

static const char *str_attr(const ir_op *f, const char *name)
{
    const ir_attr *a = ir_attr_get(f, name);
    return a && a->kind == ATTR_STR ? a->s : NULL;
}

static int64_t int_attr(const ir_op *f, const char *name, int64_t fallback)
{
    const ir_attr *a = ir_attr_get(f, name);
    return a && a->kind == ATTR_INT ? a->i : fallback;
}

static bool read_tiles(plan_info *info, const char *text)
{
    info->nshapes = 0;
    while (text && *text && info->nshapes < PLAN_MAX_SHAPES) {
        char *end;
        long v = strtol(text, &end, 10);
        if (end == text || v <= 0)
            return false;
        info->list_tile[info->nshapes++] = (int32_t)v;
        text = *end == ',' ? end + 1 : end;
    }
    info->nlists = info->nshapes + 2;
    return true;
}

static bool read_param(plan_info *info, const char *name, int *numel_seen)
{
    plan_param p = {0};
    size_t n = strlen(name);
    if (n > 7 && !strcmp(name + n - 7, "__numel") && strncmp(name, "__", 2)) {
        p.role = PLAN_PARAM_NUMEL;
        p.index = (*numel_seen)++;
    } else if (!strcmp(name, "__segments")) {
        p.role = PLAN_PARAM_SEGMENTS;
    } else if (!strcmp(name, "__check")) {
        p.role = PLAN_PARAM_CHECK;
    } else if (!strcmp(name, "__scratch")) {
        p.role = PLAN_PARAM_SCRATCH;
    } else if (!strcmp(name, "__scratch64")) {
        p.role = PLAN_PARAM_SCRATCH64;
    } else if (!strcmp(name, "__chunk_bases")) {
        p.role = PLAN_PARAM_CHUNK_BASES;
    } else if (!strncmp(name, "__cap", 5)) {
        p.role = PLAN_PARAM_CAP;
        p.index = atoi(name + 5);
    } else if (!strcmp(name, "__split_min")) {
        p.role = PLAN_PARAM_SPLIT_MIN;
    } else if (!strcmp(name, "__chunk")) {
        p.role = PLAN_PARAM_CHUNK;
    } else if (!strcmp(name, "__partials_cap")) {
        p.role = PLAN_PARAM_PARTIALS_CAP;
    } else if (!strncmp(name, "__partial", 9)) {
        p.role = PLAN_PARAM_PARTIAL;
        p.index = atoi(name + 9);
    } else if (!strncmp(name, "__merged", 8)) {
        p.role = PLAN_PARAM_MERGED;
        p.index = atoi(name + 8);
    } else {
        return false;
    }
    if ((p.role == PLAN_PARAM_CAP && (p.index < 0 || p.index >= info->nlists)) ||
        ((p.role == PLAN_PARAM_PARTIAL || p.role == PLAN_PARAM_MERGED) &&
         (p.index < 0 || p.index >= PLAN_MAX_REDUCTIONS)))
        return false;
    info->hidden[info->nhidden++] = p;
    return true;
}

bool plan_info_read(const ir_module *m, plan_schedule schedule, int nruntime, plan_info *info, diag *d)
{
    memset(info, 0, sizeof *info);
    info->schedule = schedule;
    info->nruntime = nruntime;
    const ir_op *first = NULL;
    for (const ir_op *f = m->body->first; f; f = f->next) {
        const char *task = f->kind == IR_FUNC ? str_attr(f, "sw.task") : NULL;
        if (!task)
            continue;
        if (info->nkernels == PLAN_MAX_KERNELS) {
            diag_error(d, DIAG_INTERNAL, "internal error: a plan of more than %d kernels", PLAN_MAX_KERNELS);
            return false;
        }
        plan_kernel *k = &info->kernels[info->nkernels++];
        k->func = f;
        k->name = ir_func_name(f);
        k->kind = !strcmp(task, "direct") ? PLAN_KERNEL_DIRECT : !strcmp(task, "split") ? PLAN_KERNEL_SPLIT
                                                                                          : PLAN_KERNEL_LISTS;
        k->policy = k->kind == PLAN_KERNEL_LISTS ? "lists" : str_attr(f, "sw.policy");
        k->tile = (int32_t)int_attr(f, "sw.tile", 0);
        const char *over = str_attr(f, "sw.overflow");
        k->to_lists = over && !strcmp(over, "lists");
        k->stream_max = int_attr(f, "sw.stream_max", k->tile);
        k->streamer = str_attr(f, "sw.stream_form") != NULL;
        k->stream_from = int_attr(f, "sw.stream_from", 2 * (int64_t)k->tile);
        k->flat = k->policy && !strcmp(k->policy, "flat");
        k->split = k->kind == PLAN_KERNEL_SPLIT || (k->kind == PLAN_KERNEL_LISTS && ir_attr_get(f, "sw.split_stage"));
        k->stage = (int32_t)int_attr(f, k->kind == PLAN_KERNEL_SPLIT ? "sw.stage" : "sw.split_stage", 0);
        k->block_threads = (int32_t)int_attr(f, "simt.num_threads", int_attr(f, "sw.block_threads", 128));
        k->program_threads = (int32_t)int_attr(f, "sw.program_threads", k->block_threads);
        k->tasks_per_program = (int32_t)int_attr(f, "sw.tasks_per_program", 1);
        k->flat_row = (int32_t)int_attr(f, "sw.flat_row", 4 * k->program_threads);
        k->stages = (int32_t)int_attr(f, "sw.flat_stages", 1);
        if (k->tasks_per_program < 1)
            k->tasks_per_program = 1;
        for (const char *l = str_attr(f, "sw.lists"); l && *l;) {
            char *end;
            long c = strtol(l, &end, 10);
            if (end == l)
                break;
            if (c >= 0 && c < 32)
                k->lists |= 1u << c;
            l = *end == ',' ? end + 1 : end;
        }
        if (!first)
            first = f;
    }
    if (!first || !read_tiles(info, str_attr(first, "sw.list_tiles"))) {
        diag_error(d, DIAG_INTERNAL, "internal error: the module holds no planned task kernels");
        return false;
    }
    for (int k = 0; k < info->nkernels; k++) {
        const plan_kernel *pk = &info->kernels[k];
        if (pk->kind == PLAN_KERNEL_LISTS && pk->split != ((pk->lists >> (info->nlists - 1)) & 1u)) {
            diag_error(d, DIAG_INTERNAL, "internal error: %s's sw.lists and sw.split_stage disagree on "
                       "whether it runs the split list", pk->name);
            return false;
        }
    }
    info->read_bytes = (int)int_attr(first, "sw.read_bytes", 0);
    info->write_bytes = (int)int_attr(first, "sw.write_bytes", 0);
    info->segment_bytes = (int)int_attr(first, "sw.segment_bytes", 0);
    const ir_block *params = ir_func_body(first);
    int numel_seen = 0;
    for (int i = nruntime; i < params->nargs; i++) {
        const char *name = m->values[params->args[i]].name;
        if (!name || !read_param(info, name, &numel_seen)) {
            diag_error(d, DIAG_INTERNAL, "internal error: task kernel parameter %d ('%s') has no role", i,
                       name ? name : "?");
            return false;
        }
        const plan_param *p = &info->hidden[info->nhidden - 1];
        if (p->role == PLAN_PARAM_PARTIAL) {
            ir_type t = ir_value_type(m, params->args[i]);
            info->acc_bytes[p->index] = ir_dtypes[t.dtype].bytes;
            if (p->index + 1 > info->nreductions)
                info->nreductions = p->index + 1;
        }
    }
    return true;
}

/* ---- runtime planning ------------------------------------------------------------- */

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

/* The direct kernel for the sizes: the one-element kernel when the
 * segments hold at most one element each on average; else the first
 * (shortest tile) whose tile holds twice the mean segment length; else,
 * as most segments then span several tiles, a streamer (streaming in
 * pairs of unmasked tiles): the widest taken from a mean of at most this
 * one (its sw.stream_from, else twice its tile: the wide warp streamer
 * from 768, the CTA streamers from 2048 and 8192), else the narrowest
 * (the sub-warp or warp one); or the last. A tile
 * much longer than most segments wastes threads on every task; one shorter
 * than most sends them to the lists (or makes them stream). */
static int choose_direct(const plan_info *info, const plan_sizes *sz)
{
    int last = -1, streamer = -1, flat = -1;
    int64_t mean = sz->segments > 0 ? sz->limit / sz->segments : 0;
    /* SWAGE_DIRECT=<name>: the direct kernel <program>__direct_<name>
     * whatever the lengths (for profiling one kernel; docs/testing.md) */
    const char *pick = getenv("SWAGE_DIRECT");
    if (pick && *pick)
        for (int k = 0; k < info->nkernels; k++) {
            const char *tail = strstr(info->kernels[k].name, "__direct_");
            if (info->kernels[k].kind == PLAN_KERNEL_DIRECT && tail && !strcmp(tail + 9, pick))
                return k;
        }
    for (int k = 0; k < info->nkernels; k++)
        if (info->kernels[k].kind == PLAN_KERNEL_DIRECT && info->kernels[k].flat)
            flat = k;
    if (flat >= 0) {
        const char *knob = getenv("SWAGE_FLAT");
        /* auto: a one-stage program's only; that of several stages lost to
         * the sub-warp kernels on the H200 (docs/schedules.md) */
        bool take = knob && *knob ? strcmp(knob, "0") != 0
                                  : info->kernels[flat].stages == 1 && sz->limit > sz->segments &&
                                        mean <= PLAN_FLAT_MEAN_MAX;
        if (take)
            return flat;
    }
    for (int k = 0; k < info->nkernels; k++) {
        const plan_kernel *pk = &info->kernels[k];
        if (pk->kind != PLAN_KERNEL_DIRECT || pk->flat)
            continue;
        if (pk->streamer) { /* the widest taken from at most the mean, else the narrowest */
            const plan_kernel *best = streamer >= 0 ? &info->kernels[streamer] : NULL;
            if (!best || (pk->stream_from <= mean && pk->tile > best->tile) ||
                (best->stream_from > mean && pk->tile < best->tile))
                streamer = k;
        }
        else if (pk->tile == 1) { /* one element a task: for at most one a segment */
            if (sz->limit <= sz->segments)
                return k;
        } else if (pk->tile >= 2 * mean)
            return k;
        else
            last = k;
    }
    return streamer >= 0 ? streamer : last;
}

/* Every list's room: how many segments can be longer than what lies below
 * that list (`below`: the direct kernel's tile when it sends longer ones to
 * the lists, -1 when it classifies everything; the tile of the list before
 * it), given that valid offsets cover at most `limit` elements; 0 for lists
 * no segment can reach. */
/* A list takes segments whose span (end - start rounded down to 4) is
 * above lo: their lengths are above lo - 3. */
static int64_t room(const plan_sizes *sz, int64_t lo)
{
    int64_t shortest = lo + 1 - (SEGMENT_ALIGN - 1);
    return shortest <= 1 ? sz->segments : min64(sz->segments, sz->limit / shortest);
}

int plan_split_kernel(const plan_info *info)
{
    for (int k = 0; k < info->nkernels; k++)
        if (info->kernels[k].split && info->kernels[k].stage == 0)
            return k;
    return -1;
}

static void size_lists(const plan_info *info, const plan_sizes *sz, int64_t below, plan_runtime *rt)
{
    bool lists = false, split = plan_split_kernel(info) >= 0;
    for (int k = 0; k < info->nkernels; k++)
        lists = lists || info->kernels[k].kind == PLAN_KERNEL_LISTS;
    int64_t previous = -1;
    for (int c = 0; c <= info->nshapes; c++) {
        bool stream = c == info->nshapes;
        int64_t lo = max64(below, previous);
        bool reachable = lists && lo < rt->split_min && lo < sz->limit &&
                         (stream || info->list_tile[c] > below);
        rt->caps[c] = reachable ? room(sz, lo) : 0;
        if (!stream)
            previous = info->list_tile[c];
    }
    int64_t lo = max64(rt->split_min, below);
    rt->caps[info->nlists - 1] = split && lo < sz->limit ? room(sz, lo) : 0;
}

void plan_runtime_compute(const plan_info *info, const plan_sizes *sz, plan_runtime *rt)
{
    memset(rt, 0, sizeof *rt);
    rt->direct = choose_direct(info, sz);
    const plan_kernel *direct = rt->direct >= 0 ? &info->kernels[rt->direct] : NULL;
    int32_t largest = info->nshapes ? info->list_tile[info->nshapes - 1] : 0;

    /* Split chunks: about two per resident CTA (of the kernel that runs
     * the split stage: the lists kernel when it is linked into it) over
     * the longest possible total; a segment is split when a single CTA
     * would hold it for more than two chunks (PLAN_SPLIT: always). */
    int split_kernel = plan_split_kernel(info);
    int64_t resident = (int64_t)(sz->multiprocessors > 0 ? sz->multiprocessors : 1) *
                       (split_kernel >= 0 && sz->ctas_per_sm[split_kernel] > 0 ? sz->ctas_per_sm[split_kernel] : 1);
    rt->chunk = max64(PLAN_STREAM_TILE, round_up((sz->limit + 2 * resident - 1) / (2 * resident), PLAN_STREAM_TILE));
    if (split_kernel < 0)
        rt->split_min = INT64_MAX;
    else if (info->schedule == PLAN_SPLIT)
        rt->split_min = -1;
    else
        rt->split_min = max64(largest, 2 * rt->chunk);
    int64_t direct_max = direct ? direct->stream_max : 0; /* what the direct task keeps */
    if (direct_max > largest && rt->split_min < direct_max) /* it splits what is longer (emit_overflow) */
        direct_max = max64(rt->split_min, 0);
    rt->direct_max = direct_max;
    if (direct && direct->to_lists)
        size_lists(info, sz, direct_max > 0 ? direct_max : -1, rt);
    int64_t cap_split = rt->caps[info->nlists - 1];
    rt->partials_cap = cap_split ? sz->limit / rt->chunk + cap_split : 0;

    /* the scratch: the split counter (two i64), i32 words (header, tickets,
     * lists), each split segment's first chunk (i64), then per reduction
     * its partials and merged results; the counters come first, so one
     * clear of zero_bytes readies them (the direct kernel sets the tickets
     * it uses; the kernels leave the counters zero: task_kernels.c) */
    int64_t words = PLAN_HEADER_WORDS + cap_split;
    for (int c = 0; c < info->nlists; c++)
        words += rt->caps[c];
    rt->words_offset = 16;
    rt->words_bytes = align16((size_t)words * 4);
    rt->zero_bytes = 16 + (size_t)PLAN_HEADER_WORDS * 4;
    rt->bases_offset = rt->words_offset + rt->words_bytes;
    size_t at = align16(rt->bases_offset + (size_t)cap_split * 8);
    for (int r = 0; r < info->nreductions; r++) {
        rt->partial_offset[r] = at;
        at = align16(at + (size_t)rt->partials_cap * (size_t)info->acc_bytes[r]);
        rt->merged_offset[r] = at;
        at = align16(at + (size_t)cap_split * (size_t)info->acc_bytes[r]);
    }
    rt->scratch_bytes = at;

    /* the launches, in order: the direct kernel, the lists when a segment
     * can be longer than the direct tile, each split stage when one can be
     * longer than split_min; a lists kernel that runs the split stage too
     * (a one-stage program) launches when either could be needed, which is
     * whenever the lists could be (split_min is past every list) */
    if (!direct || sz->segments <= 0)
        return;
    int64_t programs = (sz->segments + direct->tasks_per_program - 1) / direct->tasks_per_program;
    int64_t per_cta = direct->block_threads / direct->program_threads;
    rt->launches[rt->nlaunches++] = (plan_launch){rt->direct, (programs + per_cta - 1) / per_cta};
    /* (a classifying direct kernel, tile 0, lists even empty segments) */
    bool overflow = direct->to_lists && (direct_max == 0 || sz->limit > direct_max);
    for (int k = 0; k < info->nkernels; k++) {
        const plan_kernel *pk = &info->kernels[k];
        int64_t grid = (int64_t)(sz->multiprocessors > 0 ? sz->multiprocessors : 1) *
                       (sz->ctas_per_sm[k] > 0 ? sz->ctas_per_sm[k] : 1);
        if (pk->kind == PLAN_KERNEL_LISTS && overflow)
            rt->launches[rt->nlaunches++] = (plan_launch){k, grid};
        else if (pk->kind == PLAN_KERNEL_SPLIT && overflow && sz->limit > rt->split_min)
            rt->launches[rt->nlaunches++] = (plan_launch){k, grid};
    }
}

plan_value plan_hidden_value(const plan_info *info, const plan_runtime *rt, int i, const int64_t *numel,
                             int64_t segments, bool check)
{
    const plan_param *p = &info->hidden[i];
    plan_value v = {0};
    int64_t cap_split = rt->caps[info->nlists - 1];
    switch (p->role) {
    case PLAN_PARAM_NUMEL: v.value = numel[p->index]; break;
    case PLAN_PARAM_SEGMENTS: v.value = segments; break;
    case PLAN_PARAM_CHECK: v.value = check; break;
    case PLAN_PARAM_CAP: v.value = rt->caps[p->index]; break;
    case PLAN_PARAM_SPLIT_MIN: v.value = rt->split_min; break;
    case PLAN_PARAM_CHUNK: v.value = rt->chunk; break;
    case PLAN_PARAM_PARTIALS_CAP: v.value = rt->partials_cap; break;
    case PLAN_PARAM_SCRATCH:
        v.is_pointer = true, v.offset = rt->words_offset, v.nelems = (int64_t)(rt->words_bytes / 4);
        break;
    case PLAN_PARAM_SCRATCH64:
        v.is_pointer = true, v.offset = 0, v.nelems = 2;
        break;
    case PLAN_PARAM_CHUNK_BASES:
        v.is_pointer = true, v.offset = rt->bases_offset, v.nelems = cap_split;
        break;
    case PLAN_PARAM_PARTIAL:
        v.is_pointer = true, v.offset = rt->partial_offset[p->index], v.nelems = rt->partials_cap;
        break;
    case PLAN_PARAM_MERGED:
        v.is_pointer = true, v.offset = rt->merged_offset[p->index], v.nelems = cap_split;
        break;
    }
    return v;
}
