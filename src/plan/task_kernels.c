/* task_kernels.c - requires a verified module; replaces each segment
 * program by the task kernels of one schedule (plan.h), semantic grid
 * programs whose func.func attributes say what each is for; guarantees a
 * verified module. Breaks the semantic executor's ability to run the
 * segment program (lower a clone).
 *
 * Every task kernel takes the program's parameters, then the same hidden
 * parameters, filled by the launch (launch.c):
 *
 *   <buffer>__numel  i64   elements of each buffer segments are read from or
 *                          stored to (docs/segments.md, "Offsets")
 *   __segments       i64   segments in the launch
 *   __check          i32   nonzero: check the offsets, flag bad ones
 *   __scratch        ptr<i32>  header (flag, list counts), split tickets, lists
 *   __cap<c>         i64   capacity of list c
 *   __split_min      i64   segments longer than this are split
 *   __chunk          i64   elements per split chunk (a multiple of the stream tile)
 *   __partials_cap   i64   chunk partials each reduction has room for
 *   __partial<r>, __merged<r>  ptr<acc>  per reduction: chunk partials and
 *                          merged results of the split segments
 *
 * Lists: one per single-tile shape (plan_shapes), then one of segments a
 * CTA streams, then the split list. A segment of length L goes to the split
 * list when L > __split_min, else to the first shape whose tile holds it,
 * else to the stream list. The scratch is, in i32 words: [0] the offsets
 * flag, [1 + c] the count of list c, [PLAN_WORK_WORD] and
 * [PLAN_WORK_WORD_WIDE] raised by the first append to each list the lists
 * kernel (or lists_wide) serves, [PLAN_DONE_WORD] the finished CTAs of
 * the kernel running now, up to PLAN_HEADER_WORDS; then one ticket per
 * split segment; then the lists in order. The __scratch64 words before it
 * hold the split counter.
 *
 * The header must be zero (but for the flag) when a launch starts, and the
 * kernels leave it so when the launch ends, so that a scratch can serve
 * launch after launch on one stream without being cleared (docs/
 * schedules.md, "Launches, scratch, the offsets check"): the direct kernel
 * raises the flag and counts segments into the lists and the split
 * counter; each lists kernel reads the counts of its own lists and no other
 * kernel does, so its last CTA to finish (a ticket in PLAN_DONE_WORD)
 * clears them; the split counter is read by every split stage, so the
 * kernel that runs the last one clears it (emit_reset). A split segment's
 * ticket is set to zero by the direct task that lists it, counted up by
 * its chunks and set to zero again by its merge, so the tickets need no
 * clearing. The flag is the host's (it reads it back, and clears it when
 * it was raised and the scratch is kept). A launch that runs the direct
 * kernel alone has lists nothing: it is alone only when no segment,
 * clamped to the buffers, can be longer than what it runs itself
 * (launch.c).
 */
#include "plan.h"
#include "launch.h"
#include "task_body.h"
#include "task_kernels.h"
#include "../passes/passes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const plan_schedule_names[PLAN_SCHEDULES] = {
    "auto", "subwarp", "warp", "cta", "split", "persistent",
};

plan_schedule plan_schedule_from_name(const char *name)
{
    for (int s = 0; s < PLAN_SCHEDULES; s++)
        if (name && !strcmp(name, plan_schedule_names[s]))
            return (plan_schedule)s;
    return PLAN_SCHEDULES;
}

/* ---- shapes --------------------------------------------------------------------- */

/* The register budget of a task's segment values, in 32-bit slots per
 * thread: with `live` values held at once, a thread holds at most
 * budget / live slots of each. */
enum { SLOT_BUDGET = 32, SUBWARP_SLOTS = 4, DIRECT_THREADS = 128 };

/* AUTO's direct kernels: the shapes of at most DIRECT_SLOTS elements per
 * thread (few registers, many resident tasks), up to a warp. A direct
 * task streams a segment of up to DIRECT_STREAM_TILES of its tiles itself
 * when its group is a warp (a warp waits for nobody else), and of a
 * one-stage program up to SUBWARP_STREAM_TILES when it is a part of one
 * (the whole warp waits for its longest group; a program of several
 * stages would loop once per stage: those go to the lists); longer ones
 * go to the lists, whose wider tasks (and the split) keep one segment
 * from holding a small group for long. */
enum { DIRECT_SLOTS = 4, DIRECT_STREAM_TILES = 16, SUBWARP_STREAM_TILES = 2 };
/* AUTO's CTA streamer, for means of at least twice its tile (launch.c):
 * a CTA of 128 threads, 8 elements each (tiles of 1024), streaming a
 * segment in unmasked pairs up to the launch's split threshold (longer
 * ones are split). The H200 measured sums over uniform lengths of mean
 * 4096 at 80% of copy on it against 52% on the half-warp streamer, 16384
 * at 76% against 62%; at a mean of 1024 the half warps were faster (72%
 * against 58%): a task's fixed work (offsets, check, the CTA's
 * reduction) then outweighs its few elements a thread. It had streamed
 * up to 64 tiles and sent longer segments to the stream list; streaming
 * them itself took uniform lengths of mean 2^16 from 68.5% to 73.6%
 * (bench/results/variants-2026-12-02l-h200.txt, in a build whose direct
 * streamers also let the lists kernel launch early, which changed nothing
 * on the other lengths): the persistent lists kernel's CTAs ended on a
 * long tail. */
enum { CTA_STREAMER_THREADS = 128, CTA_STREAMER_SLOTS = 8, CTA_STREAMER_SM_THREADS = 2048 };
/* A one-stage program's wide warp streamer: a warp of 8-element lanes
 * (tiles of 256, pairs: 16 elements a lane in flight, 48 registers) a
 * segment, which the launch takes from a mean of 768 (its sw.stream_from;
 * the CTA streamers from twice their tile; from 1024 it missed uniform
 * lengths of mean 1024 drawn at 1020: 78.7% of copy against 84.0% from
 * 768, bench/results/variants-2026-12-02s-h200.txt). On the H200, side by side
 * against the half-warp streamer: medium-uniform sums (256 .. 2048
 * elements) 74.9% -> 79.8% of the copy bandwidth, uniform lengths of mean
 * 1024 73.9% -> 79.2%, 4096 and 16384 unchanged (the CTA streamers'); but
 * bimodal (95% of 8 .. 64 elements, mean 546) fell from 65.7% to 54.8% on
 * it: a warp of 256 elements a step on tiny segments, hence a mean of 4
 * tiles before it is taken (bench/results/variants-2026-12-02q-h200.txt).
 * Half warps of 8 elements a lane lost bimodal too (66.5% -> 59.4%,
 * variants-2026-12-02p), and a CTA of 128 threads from a mean of 1024 lost
 * medium-uniform (74.9% -> 65.5%, variants-2026-12-02q). */
enum { WIDE_WARP_SLOTS = 8, WIDE_WARP_STREAM_FROM = 768 };
/* Auto's direct kernels beyond the shapes' (the one-element kernel, the
 * streamers, the flat kernel) outnumber the shapes it leaves out (the
 * warp shapes of more than DIRECT_SLOTS, the CTA shapes) by at most this
 * (a bound: the one-element kernel, the streamer, the flat kernel and the
 * CTA streamer when a program keeps so many values that no shape is left
 * out; test_schedules.py builds the most stages the limit allows at
 * several counts of live values). */
enum { MAX_EXTRA_DIRECT = 4 };
/* Tasks (segments) on each program of auto's one-element direct kernel
 * (emit_segment_tasks), and the most any kernel takes. The H200 measured
 * 2 against 1, 4 and 8 for every direct kernel in one run
 * (bench/results/variants-2026-12-02b-h200.txt): 2 took the one-element
 * kernel from 58% to 82% of copy on singletons, 4 reached 65% and 8 47%
 * (registers: a task keeps its offsets, range and mask live); the sub-warp
 * kernels ran slower batched at every size (tiny-uniform 31% -> 25, 17,
 * 11%), so they run one task a program. Nor did one thread a segment help
 * them (tiles of 8 .. 32 on one thread instead of lane groups: tiny-uniform
 * 31% -> 22% at tile 32, power-law 17 -> 18%; variants-2026-12-02c), nor a
 * persistent grid whose programs loop over segments loading the next
 * task's offsets while running this one (tiny-uniform 31% -> 20.5%, 24%
 * at 32 registers; variants-2026-12-02g). */
enum { DIRECT_BATCH_ONE_ELEMENT = 2, DIRECT_BATCH_MAX = 8 };


int plan_shapes(int live, plan_shape *out)
{
    static const plan_shape ladder[] = {
        {1, SUBWARP_SLOTS}, {2, SUBWARP_SLOTS}, {4, SUBWARP_SLOTS}, {8, SUBWARP_SLOTS},
        {16, SUBWARP_SLOTS}, {32, 4}, {32, 8}, {32, 16}, {32, 32},
        {PLAN_CTA_THREADS, 8}, {PLAN_CTA_THREADS, 16},
    };
    int n = 0, max_slots = SLOT_BUDGET / (live > 0 ? live : 1);
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++)
        if (ladder[i].slots <= max_slots || ladder[i].slots <= SUBWARP_SLOTS)
            out[n++] = ladder[i];
    return n;
}

const char *plan_shape_policy(plan_shape s)
{
    return s.group < 32 ? "subwarp" : s.group == 32 ? "warp" : "cta";
}

/* ---- the planner's state ---------------------------------------------------------- */



static int stream_list(const planner *pl) { return pl->nshapes; }
static int split_list(const planner *pl) { return pl->nshapes + 1; }

/* segment values a task keeps at once, roughly: every segment read, plus
 * one value carried across stages */
static int live_values(const task_program *p)
{
    int loads = 0;
    for (int i = 0; i < p->nops; i++)
        loads += p->ops[i]->kind == IR_LOAD_SEGMENT;
    return (loads ? loads : 1) + (p->nstages > 1);
}

/* ---- kernels and their parameters ---------------------------------------------- */

void set_int(planner *pl, const char *name, int64_t v)
{
    ir_attr_set_int(pl->m, pl->func, name, ir_type_scalar(DT_I32), v);
}

static ir_value add_param(planner *pl, ir_type t, const char *name)
{
    return ir_block_add_arg(pl->m, ir_func_body(pl->func), t, name);
}

/* A new func.func before the segment program with its parameters and the
 * hidden ones, and a fresh value map. */
void begin_kernel(planner *pl, const char *suffix, const char *task, plan_shape shape,
                         int32_t block_threads)
{
    ir_module *m = pl->m;
    const ir_op *orig = pl->p.func;
    const ir_block *params = ir_func_body(orig);
    char name[256];
    snprintf(name, sizeof name, "%s__%s", pl->name, suffix);
    pl->func = ir_op_create(m, IR_FUNC, orig->loc, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(m, pl->func, "sym_name", name);
    ir_attr_set_str(m, pl->func, "sw.task", task);
    ir_attr_set_int(m, pl->func, "sw.block_threads", ir_type_scalar(DT_I32), block_threads);
    ir_attr_set_int(m, pl->func, "sw.program_threads", ir_type_scalar(DT_I32),
                    shape.group ? shape.group : block_threads);
    ir_insert_before(pl->anchor, pl->func);
    /* what the launch needs to size the lists: their tiles, in order */
    strbuf tiles;
    sb_init(&tiles);
    for (int c = 0; c < pl->nshapes; c++)
        sb_printf(&tiles, "%s%d", c ? "," : "", (int)plan_shape_block(pl->shapes[c]));
    ir_attr_set_str(m, pl->func, "sw.list_tiles", tiles.data ? tiles.data : "");
    sb_free(&tiles);
    set_int(pl, "sw.read_bytes", pl->read_bytes);
    set_int(pl, "sw.write_bytes", pl->write_bytes);
    set_int(pl, "sw.segment_bytes", pl->segment_bytes);

    pl->map = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(pl->p.nvalues + 1));
    for (int32_t v = 0; v < pl->p.nvalues; v++)
        pl->map[v] = IR_NO_VALUE;
    for (int i = 0; i < params->nargs; i++) {
        ir_value a = params->args[i];
        pl->map[a] = add_param(pl, ir_value_type(m, a), m->values[a].name);
    }
    ir_type i64 = ir_type_scalar(DT_I64);
    const segment_params *sp = &pl->p.params;
    pl->numel = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(sp->nhidden + 1));
    for (int h = 0; h < sp->nhidden; h++) {
        const char *src = m->values[params->args[sp->hidden_source[h]]].name;
        char pname[256];
        if (src)
            snprintf(pname, sizeof pname, "%s__numel", src);
        else
            snprintf(pname, sizeof pname, "arg%d__numel", sp->hidden_source[h]);
        pl->numel[h] = add_param(pl, i64, pname);
    }
    pl->segments = add_param(pl, i64, "__segments");
    pl->check = add_param(pl, ir_type_scalar(DT_I32), "__check");
    pl->scratch = add_param(pl, ir_type_ptr(DT_I32), "__scratch");
    pl->scratch64 = add_param(pl, ir_type_ptr(DT_I64), "__scratch64");
    pl->chunk_bases = add_param(pl, ir_type_ptr(DT_I64), "__chunk_bases");
    pl->cap = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(pl->nlists + 1));
    for (int c = 0; c < pl->nlists; c++) {
        char pname[32];
        snprintf(pname, sizeof pname, "__cap%d", c);
        pl->cap[c] = add_param(pl, i64, pname);
    }
    pl->split_min = add_param(pl, i64, "__split_min");
    pl->chunk = add_param(pl, i64, "__chunk");
    pl->partials_cap = add_param(pl, i64, "__partials_cap");
    pl->partial = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(pl->p.nreductions + 1));
    pl->merged = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(pl->p.nreductions + 1));
    for (int r = 0; r < pl->p.nreductions; r++) {
        char pname[32];
        ir_type acc = ir_type_ptr(task_reduction_acc(&pl->p, r));
        snprintf(pname, sizeof pname, "__partial%d", r);
        pl->partial[r] = add_param(pl, acc, pname);
        snprintf(pname, sizeof pname, "__merged%d", r);
        pl->merged[r] = add_param(pl, acc, pname);
    }
}

ir_builder kernel_body(planner *pl)
{
    return irb_at_end(pl->m, ir_func_body(pl->func), pl->func->loc);
}

void end_kernel(planner *pl, ir_builder *b)
{
    irb_op(b, IR_RETURN, NULL, 0, NULL, 0, 0);
}


/* ---- shared pieces ---------------------------------------------------------------- */

ir_value offsets_param(const planner *pl) { return pl->map[ir_func_body(pl->p.func)->args[pl->p.offsets_param]]; }

ir_value i64_of(ir_builder *b, ir_value x) { return irb_cast(b, x, ir_type_scalar(DT_I64)); }

/* scratch[index] (i32) */
static ir_value scratch_word(planner *pl, ir_builder *b, ir_value index)
{
    return irb_load_at(b, pl->scratch, index);
}

/* Where list c starts in the scratch (i64 words): the header, the split
 * tickets, then every list before c. */
static ir_value list_base(planner *pl, ir_builder *b, int c)
{
    ir_value base = irb_binary(b, IR_ADD, irb_int(b, DT_I64, PLAN_HEADER_WORDS), pl->cap[split_list(pl)]);
    for (int i = 0; i < c; i++)
        base = irb_binary(b, IR_ADD, base, pl->cap[i]);
    return base;
}

/* A value read from memory only when `cond` (a kernel parameter's test,
 * uniform) holds, else zero: yields i64. */
static ir_op *begin_read_if(planner *pl, ir_builder *b, ir_value cond, ir_builder *then)
{
    ir_type i64 = ir_type_scalar(DT_I64);
    ir_op *read = irb_if(b, cond, &i64, 1);
    ir_builder none = irb_at_end(pl->m, read->regions[1], b->loc);
    ir_value zero = irb_int(&none, DT_I64, 0);
    irb_yield(&none, &zero, 1);
    *then = irb_at_end(pl->m, read->regions[0], b->loc);
    return read;
}

/* min(count of list c, its capacity): bad offsets may overflow a list
 * (unsafe launches); what does not fit is dropped, never written. A list
 * no segment can reach (capacity 0, launch.c) reads no count: the linked
 * lists kernel runs its sections one after another, so an empty launch
 * would otherwise wait for one memory round trip a list, most of them for
 * lists the launch's lengths rule out. */
static ir_value list_count(planner *pl, ir_builder *b, int c)
{
    ir_builder then;
    ir_op *read = begin_read_if(pl, b, irb_cmp(b, "gt", pl->cap[c], irb_int(b, DT_I64, 0)), &then);
    ir_value count = i64_of(&then, scratch_word(pl, &then, irb_int(&then, DT_I64, 1 + c)));
    count = irb_binary(&then, IR_MINIMUM, count, pl->cap[c]);
    irb_yield(&then, &count, 1);
    return read->results[0];
}

/* A value chosen by a run-time list index from per-list values. */
static ir_value by_list(planner *pl, ir_builder *b, ir_value cls, const ir_value *per_list)
{
    ir_value v = per_list[0];
    for (int c = 1; c < pl->nlists; c++)
        v = irb_select(b, irb_cmp(b, "eq", cls, irb_int(b, DT_I32, c)), per_list[c], v);
    return v;
}

static const char *section_link(const planner *pl, int c);

/* The list a segment of length len (i64) belongs to. */
static ir_value classify(planner *pl, ir_builder *b, ir_value len)
{
    ir_value cls = irb_int(b, DT_I32, stream_list(pl));
    for (int c = pl->nshapes - 1; c >= 0; c--) {
        ir_value fits = irb_cmp(b, "le", len, irb_int(b, DT_I64, plan_shape_block(pl->shapes[c])));
        cls = irb_select(b, fits, irb_int(b, DT_I32, c), cls);
    }
    ir_value split = irb_cmp(b, "gt", len, pl->split_min);
    return irb_select(b, split, irb_int(b, DT_I32, split_list(pl)), cls);
}

/* Appends sid to the list of segments of length len. */
/* Chunks of a split segment of length len: max(1, ceil(len / chunk)). */
static ir_value chunk_count(planner *pl, ir_builder *b, ir_value len)
{
    ir_value one = irb_int(b, DT_I64, 1);
    ir_value n = irb_binary(b, IR_FLOORDIV, irb_binary(b, IR_ADD, len, irb_binary(b, IR_SUB, pl->chunk, one)),
                            pl->chunk);
    return irb_binary(b, IR_MAXIMUM, n, one);
}

/* Whether a split segment whose chunks start at `first` has room for all
 * of them in the partials: `span` is what its direct task classified it by
 * (end - start rounded down to 4), whose chunk count it reserved. Valid
 * offsets always have room; the classifying task and the split kernels
 * decide with this same test, so exactly one of them runs the segment. */
static ir_value split_fits(planner *pl, ir_builder *b, ir_value first, ir_value span)
{
    ir_value end = irb_binary(b, IR_ADD, first, chunk_count(pl, b, i64_of(b, span)));
    return irb_cmp(b, "le", end, pl->partials_cap);
}

/* The split counter: slot << 32 | chunks reserved so far. Slots are segment
 * ids (< 2^31); chunks number at most segments + elements / chunk < 2^32
 * for valid offsets (bad ones may overflow into the slot, which then finds
 * no room: memory stays safe). */
enum { SPLIT_SLOT_SHIFT = 32 };

/* Appends sid to the list of segments of length len; true when it found
 * room (lists are sized for valid offsets: with bad ones, unsafe launches
 * may overflow them). A split segment also reserves its chunks: one 64-bit
 * atomic gives its slot and its first chunk, so chunk numbers grow with
 * slots and the split kernels find a chunk's segment by binary search. */
static ir_value append_to_list(planner *pl, ir_builder *b, ir_value sid, ir_value len)
{
    len = i64_of(b, len);
    ir_value cls = classify(pl, b, len);
    ir_type i1 = ir_type_scalar(DT_I1);
    ir_op *split = irb_if(b, irb_cmp(b, "eq", cls, irb_int(b, DT_I32, split_list(pl))), &i1, 1);
    ir_builder in = irb_at_end(pl->m, split->regions[0], b->loc);
    ir_value add = irb_binary(&in, IR_ADD, irb_int(&in, DT_I64, (int64_t)1 << SPLIT_SLOT_SHIFT),
                              chunk_count(pl, &in, len));
    ir_value packed = irb_atomic_add_at(&in, pl->scratch64, irb_int(&in, DT_I64, 0), add);
    ir_value slot = irb_binary(&in, IR_SHR, packed, irb_int(&in, DT_I64, SPLIT_SLOT_SHIFT));
    ir_value first = irb_binary(&in, IR_AND, packed, irb_int(&in, DT_I64, ((int64_t)1 << SPLIT_SLOT_SHIFT) - 1));
    ir_value listed = irb_cmp(&in, "lt", slot, pl->cap[split_list(pl)]);
    irb_store_at(&in, pl->scratch, irb_binary(&in, IR_ADD, list_base(pl, &in, split_list(pl)), slot), sid, listed);
    irb_store_at(&in, pl->chunk_bases, slot, first, listed);
    /* its ticket, for its chunks to count (the scratch is not cleared past the header) */
    irb_store_at(&in, pl->scratch, irb_binary(&in, IR_ADD, slot, irb_int(&in, DT_I64, PLAN_HEADER_WORDS)),
                 irb_int(&in, DT_I32, 0), listed);
    /* listed, but its chunks past the partials' room (bad offsets: clamped
     * segments that overlap): the split kernels skip it (the same test,
     * split_fits), so the task runs it */
    ir_value fits = irb_binary(&in, IR_AND, listed, split_fits(pl, &in, first, len));
    if (pl->link_split) /* its chunks run in the lists kernel: the first split segment says so */
        irb_store_at(&in, pl->scratch, irb_int(&in, DT_I64, PLAN_WORK_WORD), irb_int(&in, DT_I32, 1),
                     irb_cmp(&in, "eq", slot, irb_int(&in, DT_I64, 0)));
    irb_yield(&in, &fits, 1);

    ir_builder other = irb_at_end(pl->m, split->regions[1], b->loc);
    ir_value counter = irb_binary(&other, IR_ADD, cls, irb_int(&other, DT_I32, 1));
    ir_value at = i64_of(&other, irb_atomic_add_at(&other, pl->scratch, counter, irb_int(&other, DT_I32, 1)));
    /* the first segment of list cls raises the work word of the kernel
     * that serves it (plan-link: its sections run only when it is set).
     * One store a list: a store by every append, all to one address,
     * serialised in the L2 and took tiny-uniform softmax (5% of its
     * segments listed) from 41% to 25% of copy on the H200. */
    ir_value word = irb_int(&other, DT_I64, PLAN_WORK_WORD);
    bool wide = false; /* some list is lists_wide's: the word depends on cls */
    for (int c = 0; c < pl->nlists && !wide; c++)
        wide = c != split_list(pl) && plan_work_word(section_link(pl, c)) != PLAN_WORK_WORD;
    if (wide) {
        ir_value *words = arena_alloc(pl->m->ar, sizeof(ir_value) * (size_t)pl->nlists);
        for (int c = 0; c < pl->nlists; c++)
            words[c] = c == split_list(pl) ? word : irb_int(&other, DT_I64, plan_work_word(section_link(pl, c)));
        word = by_list(pl, &other, cls, words);
    }
    irb_store_at(&other, pl->scratch, word, irb_int(&other, DT_I32, 1),
                 irb_cmp(&other, "eq", at, irb_int(&other, DT_I64, 0)));
    ir_value *bases = arena_alloc(pl->m->ar, sizeof(ir_value) * (size_t)pl->nlists);
    for (int c = 0; c < pl->nlists; c++)
        bases[c] = list_base(pl, &other, c);
    ir_value room = irb_cmp(&other, "lt", at, by_list(pl, &other, cls, pl->cap));
    irb_store_at(&other, pl->scratch, irb_binary(&other, IR_ADD, by_list(pl, &other, cls, bases), at), sid, room);
    irb_yield(&other, &room, 1);
    return split->results[0];
}

/* With __check set, flags segment sid's offsets when they decrease, the
 * first is negative, or the last passes the shortest buffer. The test is
 * a branch on the kernel parameter (uniform: one instruction when the
 * launch does not check). */
static void check_offsets(planner *pl, ir_builder *outer, ir_value sid, const ir_value raw[2])
{
    ir_op *checking = irb_if(outer, irb_cmp(outer, "ne", pl->check, irb_int(outer, DT_I32, 0)), NULL, 0);
    ir_builder skip = irb_at_end(pl->m, checking->regions[1], outer->loc);
    irb_yield(&skip, NULL, 0);
    ir_builder in = irb_at_end(pl->m, checking->regions[0], outer->loc), *b = &in;
    ir_value zero = irb_int(b, DT_I64, 0);
    ir_value s64 = i64_of(b, sid);
    ir_value bad = irb_cmp(b, "lt", raw[1], raw[0]);
    ir_value first = irb_cmp(b, "eq", s64, zero);
    bad = irb_binary(b, IR_OR, bad, irb_binary(b, IR_AND, first, irb_cmp(b, "lt", raw[0], zero)));
    const segment_params *sp = &pl->p.params;
    if (sp->nhidden) {
        ir_value limit = pl->numel[0];
        for (int h = 1; h < sp->nhidden; h++)
            limit = irb_binary(b, IR_MINIMUM, limit, pl->numel[h]);
        ir_value last = irb_cmp(b, "eq", s64, irb_binary(b, IR_SUB, pl->segments, irb_int(b, DT_I64, 1)));
        bad = irb_binary(b, IR_OR, bad, irb_binary(b, IR_AND, last, irb_cmp(b, "gt", raw[1], limit)));
    }
    irb_store_at(b, pl->scratch, irb_int(b, DT_I64, 0), irb_int(b, DT_I32, 1), bad);
    irb_yield(b, NULL, 0);
}

/* The task body for segment sid at the builder: its range (and the
 * offsets check), then the program on one tile when the segment fits
 * `block` (0: never), else what `over` says: stream it in tiles of
 * stream_block; or append it to the list of its class; or stream it when
 * it spans at most DIRECT_STREAM_TILES tiles, else append it. */


static int64_t stream_max(const planner *pl, overflow over, plan_shape shape, bool streamer)
{
    int32_t block = plan_shape_block(shape);
    if (over != OVERFLOW_STREAM_THEN_LISTS)
        return block;
    if (streamer && shape.group > 32) /* the CTA streamer: up to the split threshold (emit_overflow,
                                         launch.c), whatever its length */
        return INT32_MAX;
    if (streamer) /* what a warp of its threads streams, the lengths up to that whatever
                     their alignment (the span counts from the first tile's start) */
        return (int64_t)32 * shape.slots * DIRECT_STREAM_TILES + block;
    if (shape.group >= 32)
        return (int64_t)block * DIRECT_STREAM_TILES;
    return pl->p.nstages > 1 ? block : (int64_t)block * SUBWARP_STREAM_TILES;
}

/* How a task streams segments of at most `most` elements (0: any) in tiles
 * of `block`: masked tiles when no tile lies inside both ends; else the
 * direct kernel's form (build_direct), PAIRS everywhere else. */
static task_stream_form stream_form(const planner *pl, int64_t most, int32_t block)
{
    if (most > 0 && most <= 2 * (int64_t)block)
        return TASK_STREAM_MASKED;
    return pl->direct_form;
}

/* most: the longest segment (elements) a stream here takes; 0 for any. */
static void emit_overflow(planner *pl, ir_builder *b, task_emitter *e, overflow over, ir_value len,
                          int32_t stream_block, int64_t most)
{
    if (over == OVERFLOW_STREAM_THEN_LISTS) {
        ir_value near = irb_cmp(b, "le", len, irb_int(b, (ir_dtype)ir_value_type(pl->m, len).dtype, pl->stream_max));
        if (pl->stream_max > plan_shape_block(pl->shapes[pl->nshapes - 1]))
            /* past the longest list tile the launch's split threshold may
             * come first (few long segments): those are split */
            near = irb_binary(b, IR_AND, near, irb_cmp(b, "le", i64_of(b, len), pl->split_min));
        ir_op *which = irb_if(b, near, NULL, 0);
        ir_builder here = irb_at_end(pl->m, which->regions[0], b->loc);
        emit_overflow(pl, &here, e, OVERFLOW_STREAM, len, stream_block, pl->stream_max);
        irb_yield(&here, NULL, 0);
        ir_builder far = irb_at_end(pl->m, which->regions[1], b->loc);
        emit_overflow(pl, &far, e, OVERFLOW_LISTS, len, stream_block, 0);
        irb_yield(&far, NULL, 0);
        return;
    }
    if (over == OVERFLOW_LISTS) {
        /* the lists' tiles start at start rounded down: classify by that span;
         * a segment no list has room for (bad offsets) runs here, streamed */
        e->b = *b;
        ir_value aligned = task_span(e, SEGMENT_ALIGN);
        *b = e->b;
        ir_value stored = append_to_list(pl, b, e->sid, aligned);
        ir_op *full = irb_if(b, stored, NULL, 0);
        ir_builder done = irb_at_end(pl->m, full->regions[0], b->loc);
        irb_yield(&done, NULL, 0);
        ir_builder here = irb_at_end(pl->m, full->regions[1], b->loc);
        emit_overflow(pl, &here, e, OVERFLOW_STREAM, len, stream_block, stream_block); /* rare: least code */
        irb_yield(&here, NULL, 0);
        return;
    }
    e->b = *b;
    task_emit_prologue(e, IR_NO_VALUE);
    task_emit_stream(e, stream_block, stream_form(pl, most, stream_block));
    *b = e->b;
}

void emit_segment_task(planner *pl, ir_builder *b, ir_value sid, int32_t block, overflow over,
                              int32_t stream_block, bool check)
{
    task_emitter e;
    task_emitter_init(&e, &pl->p, *b, pl->map);
    ir_value raw[2];
    task_emit_range(&e, offsets_param(pl), sid, pl->numel, pl->p.params.nhidden, raw);
    *b = e.b;
    if (check)
        check_offsets(pl, b, sid, raw);
    /* what decides the tile: the elements from the first tile's start on */
    e.b = *b;
    ir_value len = task_span(&e, block > 0 ? block : SEGMENT_ALIGN);
    *b = e.b;
    if (block <= 0) {
        emit_overflow(pl, b, &e, over, len, stream_block > 0 ? stream_block : SUBWARP_SLOTS, 0);
        return;
    }
    ir_op *fits = irb_if(b, irb_cmp(b, "le", len, irb_int(b, (ir_dtype)ir_value_type(pl->m, len).dtype, block)),
                         NULL, 0);
    e.b = irb_at_end(pl->m, fits->regions[0], b->loc);
    task_emit_prologue(&e, IR_NO_VALUE);
    task_emit_single(&e, block);
    irb_yield(&e.b, NULL, 0);
    ir_builder other = irb_at_end(pl->m, fits->regions[1], b->loc);
    emit_overflow(pl, &other, &e, over, len, stream_block, 0);
    irb_yield(&other, NULL, 0);
}

/* ---- direct kernels: one task per segment --------------------------------------- */

/* Whether every segment load reads through a kernel parameter (not a
 * pointer the prologue computes): then a task's loads can be made before
 * its prologue runs (emit_segment_tasks). */
bool loads_from_params(const planner *pl)
{
    const task_program *p = &pl->p;
    const ir_block *params = ir_func_body(p->func);
    for (int i = 0; i < p->nops; i++) {
        if (p->ops[i]->kind != IR_LOAD_SEGMENT)
            continue;
        const ir_op *view = pl->m->values[p->ops[i]->operands[0]].def;
        bool param = false;
        for (int a = 0; a < params->nargs; a++)
            param = param || params->args[a] == view->operands[0];
        if (!param)
            return false;
    }
    return true;
}

/* `batch` tasks on each program of a direct kernel: segments pid,
 * pid + programs, pid + 2 programs, ... (so that each instruction of a
 * warp still reads neighbouring segments). Every task's offsets come
 * first, then every task's loads (masked off where its segment does not
 * fit the tile), then each task's work: that puts `batch` times the bytes
 * in flight a single task has, where tasks are short (a sub-warp task of
 * a tiny segment issues one load per thread and then waits). A task whose
 * segment does not fit streams it or lists it as emit_segment_task does. */
static void emit_segment_tasks(planner *pl, ir_builder *b, int batch, int32_t block, overflow over)
{
    task_emitter e[DIRECT_BATCH_MAX];
    ir_value in[DIRECT_BATCH_MAX], fits[DIRECT_BATCH_MAX], len[DIRECT_BATCH_MAX];
    ir_value pid = irb(b, IR_PROGRAM_ID, NULL, 0, ir_type_scalar(DT_I32));
    ir_attr_set_int(pl->m, pl->m->values[pid].def, "axis", ir_type_scalar(DT_I32), 0);
    ir_value programs = irb(b, IR_NUM_PROGRAMS, NULL, 0, ir_type_scalar(DT_I32));
    ir_attr_set_int(pl->m, pl->m->values[programs].def, "axis", ir_type_scalar(DT_I32), 0);
    for (int g = 0; g < batch; g++) {
        ir_value sid = irb_binary(b, IR_ADD, pid, irb_binary(b, IR_MUL, programs, irb_int(b, DT_I32, g)));
        in[g] = irb_cmp(b, "lt", i64_of(b, sid), pl->segments);
        ir_value at = irb_select(b, in[g], sid, irb_int(b, DT_I32, 0)); /* segment 0 always exists */
        task_emitter_init(&e[g], &pl->p, *b, pl->map);
        ir_value raw[2];
        task_emit_range(&e[g], offsets_param(pl), at, pl->numel, pl->p.params.nhidden, raw);
        *b = e[g].b;
        ir_op *real = irb_if(b, in[g], NULL, 0);
        ir_builder checking = irb_at_end(pl->m, real->regions[0], b->loc);
        check_offsets(pl, &checking, at, raw);
        irb_yield(&checking, NULL, 0);
        ir_builder none = irb_at_end(pl->m, real->regions[1], b->loc);
        irb_yield(&none, NULL, 0);
        e[g].b = *b;
        len[g] = task_span(&e[g], block);
        *b = e[g].b;
        ir_value small = irb_cmp(b, "le", len[g], irb_int(b, (ir_dtype)ir_value_type(pl->m, len[g]).dtype, block));
        fits[g] = irb_binary(b, IR_AND, in[g], small);
    }
    for (int g = 0; g < batch; g++) {
        e[g].b = *b;
        task_emit_single_loads(&e[g], block, fits[g]);
        *b = e[g].b;
    }
    for (int g = 0; g < batch; g++) {
        ir_op *run = irb_if(b, fits[g], NULL, 0);
        e[g].b = irb_at_end(pl->m, run->regions[0], b->loc);
        task_emit_prologue(&e[g], IR_NO_VALUE);
        task_emit_single(&e[g], block);
        irb_yield(&e[g].b, NULL, 0);
        ir_builder other = irb_at_end(pl->m, run->regions[1], b->loc);
        ir_op *longer = irb_if(&other, in[g], NULL, 0);
        ir_builder here = irb_at_end(pl->m, longer->regions[0], b->loc);
        emit_overflow(pl, &here, &e[g], over, len[g], block, 0);
        irb_yield(&here, NULL, 0);
        ir_builder skip = irb_at_end(pl->m, longer->regions[1], b->loc);
        irb_yield(&skip, NULL, 0);
        irb_yield(&other, NULL, 0);
    }
}

/* A direct kernel of `shape`. `streamer`: auto's kernel for segments that
 * mostly span several tiles (launch.c picks it when no direct tile holds
 * twice the mean length): it streams their inside tiles unmasked, two at a
 * time, up to what a warp of its threads streams. Auto's others stream
 * with every tile masked: their tasks are mostly one tile, and the pairs'
 * extra registers (40 instead of 32 for a warp's sum) would cost those
 * occupancy. Forced schedules stream in pairs. */
static void build_direct(planner *pl, plan_shape shape, overflow over, bool streamer, int batch)
{
    int32_t block = plan_shape_block(shape);
    char suffix[64];
    if (block)
        snprintf(suffix, sizeof suffix, "direct_%s%d%s", plan_shape_policy(shape), block, streamer ? "_stream" : "");
    else
        snprintf(suffix, sizeof suffix, "classify");
    int32_t threads = shape.group > 32 ? shape.group : DIRECT_THREADS;
    pl->stream_max = stream_max(pl, over, shape, streamer);
    if (over == OVERFLOW_STREAM_THEN_LISTS && pl->stream_max <= block)
        over = OVERFLOW_LISTS;
    begin_kernel(pl, suffix, "direct", block ? shape : (plan_shape){1, 1}, threads);
    ir_attr_set_str(pl->m, pl->func, "sw.policy", block ? plan_shape_policy(shape) : "classify");
    set_int(pl, "sw.tile", block);
    ir_attr_set_str(pl->m, pl->func, "sw.overflow", over == OVERFLOW_STREAM ? "stream" : "lists");
    if (over == OVERFLOW_STREAM_THEN_LISTS)
        set_int(pl, "sw.stream_max", pl->stream_max);
    if (streamer)
        ir_attr_set_str(pl->m, pl->func, "sw.stream_form", "pairs");
    if (streamer && pl->stream_from > 0)
        set_int(pl, "sw.stream_from", pl->stream_from);
    if (pl->sm_threads > 0)
        set_int(pl, "sw.sm_threads", pl->sm_threads);
    ir_builder b = kernel_body(pl);
    if (batch > 1 && block > 0 && loads_from_params(pl)) {
        set_int(pl, "sw.tasks_per_program", batch);
        pl->direct_form = TASK_STREAM_MASKED;
        emit_segment_tasks(pl, &b, batch, block, over);
        pl->direct_form = TASK_STREAM_PAIRS;
        end_kernel(pl, &b);
        return;
    }
    ir_value sid = irb(&b, IR_PROGRAM_ID, NULL, 0, ir_type_scalar(DT_I32));
    ir_attr_set_int(pl->m, pl->m->values[sid].def, "axis", ir_type_scalar(DT_I32), 0);
    ir_op *inside = irb_if(&b, irb_cmp(&b, "lt", i64_of(&b, sid), pl->segments), NULL, 0);
    ir_builder then = irb_at_end(pl->m, inside->regions[0], b.loc);
    pl->direct_form = over == OVERFLOW_STREAM || streamer ? TASK_STREAM_PAIRS : TASK_STREAM_MASKED;
    emit_segment_task(pl, &then, sid, block, over, block, true);
    pl->direct_form = TASK_STREAM_PAIRS;
    irb_yield(&then, NULL, 0);
    ir_builder other = irb_at_end(pl->m, inside->regions[1], b.loc);
    irb_yield(&other, NULL, 0);
    end_kernel(pl, &b);
}

/* ---- list sections: persistent over one list ------------------------------------- */

ir_value grid_query(ir_builder *b, ir_op_kind kind)
{
    ir_value v = irb(b, kind, NULL, 0, ir_type_scalar(DT_I32));
    ir_attr_set_int(b->m, b->m->values[v].def, "axis", ir_type_scalar(DT_I32), 0);
    return i64_of(b, v);
}

/* The end of a persistent kernel whose programs are its CTAs: the last
 * CTA to get here (a ticket in PLAN_DONE_WORD, taken after every thread
 * of its CTA is done: the barrier) clears the counts of `lists` (bit c:
 * list c), the split counter when `split_counter`, header word
 * `work_word` (-1: none), and the ticket: every
 * read of them by this kernel is over by then, and no later kernel of the
 * launch reads them (task_kernels.c's header comment). */
static void emit_reset(planner *pl, ir_builder *b, uint32_t lists, bool split_counter, int work_word)
{
    irb_op(b, IR_BARRIER, NULL, 0, NULL, 0, 0);
    irb_op(b, IR_FENCE, NULL, 0, NULL, 0, 0);
    ir_value done = i64_of(b, irb_atomic_add_at(b, pl->scratch, irb_int(b, DT_I64, PLAN_DONE_WORD),
                                                irb_int(b, DT_I32, 1)));
    ir_value nprog = grid_query(b, IR_NUM_PROGRAMS);
    ir_op *last = irb_if(b, irb_cmp(b, "eq", done, irb_binary(b, IR_SUB, nprog, irb_int(b, DT_I64, 1))), NULL, 0);
    ir_builder in = irb_at_end(pl->m, last->regions[0], b->loc);
    irb_op(&in, IR_FENCE, NULL, 0, NULL, 0, 0);
    /* one masked store of a tile over the header (word w where bit w of
     * `words` is set), not a store per word: scalar addresses would be
     * shared (CSE) with the sections' own count reads and held in
     * registers through every section of the linked kernel */
    uint64_t words = (uint64_t)lists << 1 | (uint64_t)1 << PLAN_DONE_WORD;
    if (work_word >= 0)
        words |= (uint64_t)1 << work_word;
    ir_type i64_tile = ir_type_tile(DT_I64, PLAN_HEADER_WORDS);
    ir_value index = irb_cast(&in, irb_arange(&in, PLAN_HEADER_WORDS), i64_tile);
    ir_value bit = irb_binary(&in, IR_AND, irb_binary(&in, IR_SHR, irb_splat(&in, irb_int(&in, DT_I64, (int64_t)words), i64_tile), index),
                              irb_splat(&in, irb_int(&in, DT_I64, 1), i64_tile));
    ir_value operands[3] = {
        irb_binary(&in, IR_ADDPTR, irb_splat(&in, pl->scratch, ir_type_ptr_tile(DT_I32, PLAN_HEADER_WORDS)), index),
        irb_splat(&in, irb_int(&in, DT_I32, 0), ir_type_tile(DT_I32, PLAN_HEADER_WORDS)),
        irb_cmp(&in, "ne", bit, irb_splat(&in, irb_int(&in, DT_I64, 0), i64_tile)),
    };
    irb_op(&in, IR_STORE, operands, 3, NULL, 0, 0);
    if (split_counter)
        irb_store_at(&in, pl->scratch64, irb_int(&in, DT_I64, 0), irb_int(&in, DT_I64, 0), IR_NO_VALUE);
    irb_yield(&in, NULL, 0);
    ir_builder other = irb_at_end(pl->m, last->regions[1], b->loc);
    irb_yield(&other, NULL, 0);
}

/* Sections whose threads hold at most this many elements of a tile (and
 * the stream section: 8 per thread) are linked into <kernel>__lists, the
 * others into <kernel>__lists_wide: a kernel takes the registers of its
 * hungriest section, and streaming and small tasks need many resident
 * threads to keep enough bytes in flight, large single tiles few. */
enum { NARROW_SLOTS = 8 };

static plan_shape list_shape(const planner *pl, int c)
{
    return c == stream_list(pl) ? (plan_shape){PLAN_CTA_THREADS, PLAN_STREAM_TILE / PLAN_CTA_THREADS}
                                : pl->shapes[c];
}

/* The kernel list c's section is linked into. A one-stage program links
 * every section into one kernel: one launch fewer, the wide sections'
 * registers for all (on the H200, side by side: medium-uniform sums 72.3%
 * -> 72.7% of copy, bimodal 58.3% -> 58.8%, few-huge 68.1% -> 68.7%,
 * bench/results/variants-2026-12-02a-h200.txt). */
static const char *section_link(const planner *pl, int c)
{
    return list_shape(pl, c).slots <= NARROW_SLOTS || pl->p.nstages == 1 ? "lists" : "lists_wide";
}

/* The last section of linked kernel `link` (plan-link puts a section with
 * sw.reset after every other, the split stage included): emit_reset for
 * the lists it runs, and the split counter when it runs the last split
 * stage. */
static void build_reset_section(planner *pl, const char *link, uint32_t lists, bool split_counter)
{
    begin_kernel(pl, strcmp(link, "lists") ? "list_reset_wide" : "list_reset", "list",
                 (plan_shape){PLAN_CTA_THREADS, 1}, PLAN_CTA_THREADS);
    ir_attr_set_str(pl->m, pl->func, "sw.policy", "cta");
    ir_attr_set_str(pl->m, pl->func, "sw.link", link);
    set_int(pl, "sw.reset", 1);
    ir_builder b = kernel_body(pl);
    emit_reset(pl, &b, lists, split_counter, plan_work_word(link));
    end_kernel(pl, &b);
}

static void build_list_section(planner *pl, int c)
{
    bool stream = c == stream_list(pl);
    plan_shape shape = list_shape(pl, c);
    int32_t block = plan_shape_block(shape);
    char suffix[64];
    snprintf(suffix, sizeof suffix, "list%d_%s%d", c, stream ? "stream" : plan_shape_policy(shape),
             block);
    begin_kernel(pl, suffix, "list", shape, PLAN_CTA_THREADS);
    ir_attr_set_str(pl->m, pl->func, "sw.policy", plan_shape_policy(shape));
    set_int(pl, "sw.list", c);
    set_int(pl, "sw.tile", block);
    ir_attr_set_str(pl->m, pl->func, "sw.overflow", stream ? "stream" : "none");
    ir_attr_set_str(pl->m, pl->func, "sw.link", section_link(pl, c));
    ir_builder b = kernel_body(pl);
    ir_value pid = grid_query(&b, IR_PROGRAM_ID), nprog = grid_query(&b, IR_NUM_PROGRAMS);
    ir_value count = list_count(pl, &b, c), base = list_base(pl, &b, c);
    ir_op *loop = irb_for(&b, pid, count, nprog, NULL, 0);
    ir_builder body = irb_at_end(pl->m, loop->regions[0], b.loc);
    ir_value t = loop->regions[0]->args[0];
    ir_value sid = scratch_word(pl, &body, irb_binary(&body, IR_ADD, base, t));
    if (stream) {
        emit_segment_task(pl, &body, sid, 0, OVERFLOW_STREAM, block, false);
    } else {
        /* the direct kernel classified it by this very span: it fits */
        task_emitter e;
        task_emitter_init(&e, &pl->p, body, pl->map);
        task_emit_range(&e, offsets_param(pl), sid, pl->numel, pl->p.params.nhidden, NULL);
        task_emit_prologue(&e, IR_NO_VALUE);
        task_emit_single(&e, block);
        body = e.b;
    }
    irb_yield(&body, NULL, 0);
    end_kernel(pl, &b);
}

/* ---- split stages --------------------------------------------------------------- */

/* The partials a merge reads per step: one CTA's threads, one each. */
enum { MERGE_TILE = PLAN_CTA_THREADS };

/* partial[at + lane] for lanes up to `end`, `other` past it (at: a merge
 * loop's induction variable). */
static ir_value load_partials(ir_builder *in, ir_value partial, ir_value at, ir_value end, ir_value other)
{
    ir_dtype acc = (ir_dtype)ir_value_type(in->m, other).dtype;
    ir_type i64_tile = ir_type_tile(DT_I64, MERGE_TILE);
    ir_value index = irb_binary(in, IR_ADD, irb_splat(in, at, i64_tile),
                                irb_cast(in, irb_arange(in, MERGE_TILE), i64_tile));
    ir_value mask = irb_cmp(in, "lt", index, irb_splat(in, end, i64_tile));
    ir_value ptrs = irb_binary(in, IR_ADDPTR, irb_splat(in, partial, ir_type_ptr_tile(acc, MERGE_TILE)), index);
    ir_value operands[3] = {ptrs, mask, other};
    return irb(in, IR_LOAD, operands, 3, ir_type_tile(acc, MERGE_TILE));
}

/* Merges reduction r's chunk partials [first, first + n) in chunk order:
 * tiles of the CTA's threads, combined, then reduced. */
static ir_value merge_partials(planner *pl, ir_builder *b, int r, ir_value first, ir_value n)
{
    const ir_op *reduce = pl->p.ops[pl->p.reduction_op[r]];
    const char *kind = ir_attr_get(reduce, "kind")->s;
    ir_dtype acc = task_reduction_acc(&pl->p, r);
    ir_scalar identity;
    ir_eval_reduce_identity(kind, acc, &identity);
    ir_value init = irb_const(b, ir_type_tile(acc, MERGE_TILE), identity);
    ir_value end = irb_binary(b, IR_ADD, first, n);
    ir_op *loop = irb_for(b, first, end, irb_int(b, DT_I64, MERGE_TILE), &init, 1);
    ir_block *body = loop->regions[0];
    ir_builder in = irb_at_end(pl->m, body, b->loc);
    ir_value x = load_partials(&in, pl->partial[r], body->args[0], end, init);
    ir_value next = irb_binary(&in, ir_reduce_combine_op(kind), body->args[1], x);
    irb_yield(&in, &next, 1);
    ir_value total = irb(b, IR_REDUCE, &loop->results[0], 1, ir_type_scalar(acc));
    ir_attr_set_str(pl->m, pl->m->values[total].def, "kind", kind);
    return total;
}

/* The merged sum of an online pair (rmax, rsum) over chunk partials [first,
 * first + n), in chunk order: each chunk's sum of exp(x - its maximum)
 * rescaled to the segment's maximum `top`; NaN when that is -inf and the
 * segment is not empty (every element -inf: exp(x - max) is NaN for each,
 * as the two stages give; an empty segment's sum is 0). */
static ir_value merge_online(planner *pl, ir_builder *b, int rmax, int rsum, ir_value first, ir_value n,
                             ir_value top, ir_value nonempty)
{
    ir_dtype acc = task_reduction_acc(&pl->p, rsum);
    ir_type acc_tile = ir_type_tile(acc, MERGE_TILE);
    ir_value init = irb_const(b, acc_tile, (ir_scalar){.f = 0.0});
    ir_value lowest = irb_const(b, acc_tile, (ir_scalar){.f = -INFINITY});
    ir_value end = irb_binary(b, IR_ADD, first, n);
    ir_op *loop = irb_for(b, first, end, irb_int(b, DT_I64, MERGE_TILE), &init, 1);
    ir_block *body = loop->regions[0];
    ir_builder in = irb_at_end(pl->m, body, b->loc);
    ir_value m = load_partials(&in, pl->partial[rmax], body->args[0], end, lowest);
    ir_value d = load_partials(&in, pl->partial[rsum], body->args[0], end, init);
    ir_value part = task_online_rescale(&in, m, d, irb_splat(&in, top, acc_tile));
    ir_value next = irb_binary(&in, IR_ADD, body->args[1], part);
    irb_yield(&in, &next, 1);
    ir_value total = irb(b, IR_REDUCE, &loop->results[0], 1, ir_type_scalar(acc));
    ir_attr_set_str(pl->m, pl->m->values[total].def, "kind", "sum");
    ir_value low = irb_const(b, ir_type_scalar(acc), (ir_scalar){.f = -INFINITY});
    ir_value nan = irb_const(b, ir_type_scalar(acc), (ir_scalar){.f = NAN});
    ir_value all_low = irb_binary(b, IR_AND, irb_cmp(b, "eq", top, low), nonempty);
    return irb_select(b, all_low, nan, total);
}

/* The merged result of every reduction of stages before k, from the
 * scratch, and the scalar work after those stages (pure parts only: the
 * stores ran when those stages merged). */
static void restore_earlier_stages(planner *pl, task_emitter *e, int32_t k, ir_value j)
{
    for (int32_t s = 0; s < k; s++) {
        for (int r = 0; r < pl->p.nreductions; r++)
            if (pl->p.place[pl->p.reduction_op[r]] == s)
                task_finish_reduction(e, r, irb_load_at(&e->b, pl->merged[r], j));
        task_emit_post(e, s, true);
    }
}

/* One chunk c of split segment j (list index) at stage k. */
static void emit_chunk(planner *pl, ir_builder *b, int32_t k, ir_value j, ir_value sid, ir_value task,
                       ir_value c, ir_value nch, ir_value seg_start, ir_value seg_end)
{
    task_program *p = &pl->p;
    task_emitter e;
    task_emitter_init(&e, p, *b, pl->map);
    e.sid = sid, e.start = seg_start, e.end = seg_end;
    ir_value once = IR_NO_VALUE;
    if (k == 0)
        once = irb_cmp(&e.b, "eq", c, irb_int(&e.b, DT_I64, 0));
    task_emit_prologue(&e, once);
    restore_earlier_stages(pl, &e, k, j);
    ir_builder *eb = &e.b;
    ir_value cstart = irb_binary(eb, IR_ADD, seg_start, irb_binary(eb, IR_MUL, c, pl->chunk));
    e.start = cstart;
    e.end = irb_binary(eb, IR_MINIMUM, irb_binary(eb, IR_ADD, cstart, pl->chunk), seg_end);
    ir_value *partial = arena_alloc(pl->m->ar, sizeof(ir_value) * (size_t)(p->nreductions + 1));
    int rmax = -1, rsum = -1;
    bool online = task_online_pair(p, k, &rmax, &rsum); /* stages k and k + 1 in one pass */
    if (online) /* two accumulator tiles: half the tile keeps the registers of one */
        task_emit_online_stage(&e, k, PLAN_STREAM_TILE / 2, &partial[0], &partial[1]);
    else
        task_emit_stage(&e, k, PLAN_STREAM_TILE, partial);
    bool reduces = task_stage_has_reductions(p, k), post = task_stage_has_post(p, k);
    if (!reduces && !post) {
        *b = e.b;
        return;
    }
    ir_value room = irb_cmp(eb, "lt", task, pl->partials_cap);
    int a = 0;
    for (int r = 0; r < p->nreductions; r++)
        if (p->place[p->reduction_op[r]] == k || (online && r == rsum))
            irb_store_at(eb, pl->partial[r], task, partial[a++], room);
    irb_op(eb, IR_FENCE, NULL, 0, NULL, 0, 0);
    ir_value ticket = i64_of(eb, irb_atomic_add_at(eb, pl->scratch,
                                                   irb_binary(eb, IR_ADD, j, irb_int(eb, DT_I64, PLAN_HEADER_WORDS)),
                                                   irb_int(eb, DT_I32, 1)));
    ir_value last = irb_cmp(eb, "eq", ticket, irb_binary(eb, IR_SUB, nch, irb_int(eb, DT_I64, 1)));
    ir_op *merge = irb_if(eb, last, NULL, 0);
    *b = e.b; /* the chunk goes on after the merge */
    e.b = irb_at_end(pl->m, merge->regions[0], b->loc);
    irb_op(&e.b, IR_FENCE, NULL, 0, NULL, 0, 0);
    ir_value first = irb_binary(&e.b, IR_SUB, task, c);
    for (int r = 0; r < p->nreductions; r++)
        if (p->place[p->reduction_op[r]] == k) {
            /* chunk partials that did not fit (bad offsets) count as nothing */
            ir_value n = irb_binary(&e.b, IR_MINIMUM, nch,
                                    irb_binary(&e.b, IR_MAXIMUM, irb_binary(&e.b, IR_SUB, pl->partials_cap, first),
                                               irb_int(&e.b, DT_I64, 0)));
            ir_value total = merge_partials(pl, &e.b, r, first, n);
            irb_store_at(&e.b, pl->merged[r], j, total, IR_NO_VALUE);
            task_finish_reduction(&e, r, total);
            if (online) {
                ir_value sum = merge_online(pl, &e.b, rmax, rsum, first, n, total,
                                            irb_cmp(&e.b, "lt", seg_start, seg_end));
                irb_store_at(&e.b, pl->merged[rsum], j, sum, IR_NO_VALUE);
                task_finish_reduction(&e, rsum, sum);
            }
        }
    irb_store_at(&e.b, pl->scratch, irb_binary(&e.b, IR_ADD, j, irb_int(&e.b, DT_I64, PLAN_HEADER_WORDS)),
                 irb_int(&e.b, DT_I32, 0), IR_NO_VALUE);
    task_emit_post(&e, k, false);
    if (online)
        task_emit_post(&e, k + 1, false);
    irb_yield(&e.b, NULL, 0);
    ir_builder other = irb_at_end(pl->m, merge->regions[1], b->loc);
    irb_yield(&other, NULL, 0);
}

/* The split segment chunk t belongs to: the last slot whose first chunk is
 * at most t (binary search over the chunk bases, which grow with slots). */
static ir_value find_split_segment(planner *pl, ir_builder *b, ir_value t, ir_value nsplit)
{
    ir_value zero = irb_int(b, DT_I64, 0);
    ir_value bounds[2] = {zero, nsplit};
    ir_op *search = irb_for(b, zero, irb_int(b, DT_I64, SPLIT_SLOT_SHIFT + 1), irb_int(b, DT_I64, 1), bounds, 2);
    ir_block *body = search->regions[0];
    ir_builder in = irb_at_end(pl->m, body, b->loc);
    ir_value lo = body->args[1], hi = body->args[2];
    ir_value mid = irb_binary(&in, IR_SHR, irb_binary(&in, IR_ADD, lo, hi), irb_int(&in, DT_I64, 1));
    ir_value open = irb_cmp(&in, "gt", irb_binary(&in, IR_SUB, hi, lo), irb_int(&in, DT_I64, 1));
    ir_value below = irb_cmp(&in, "le", irb_load_at(&in, pl->chunk_bases, mid), t);
    ir_value next[2] = {irb_select(&in, irb_binary(&in, IR_AND, open, below), mid, lo),
                        irb_select(&in, irb_binary(&in, IR_AND, open, irb(&in, IR_NOT, &below, 1,
                                                                            ir_type_scalar(DT_I1))),
                                   mid, hi)};
    irb_yield(&in, next, 2);
    return search->results[0];
}

/* The resident threads a multiprocessor (sw.sm_threads) a split kernel
 * running an online pair asks for: 5 CTAs of 256, so at most 48 registers
 * a thread. Unasked, ptxas took 40 for the pass's pairs of tiles and
 * scheduled the second tile's loads after the first tile's first use (one
 * tile in flight, not two); with room for 48 it issues both first, as in
 * the two-tile stages (no spills). */
enum { ONLINE_SPLIT_SM_THREADS = 5 * PLAN_CTA_THREADS };

/* Stage k of every split segment: a persistent grid of CTAs over all
 * chunks of all split segments, chunk t on CTA t mod grid. With `link`
 * (a one-stage program under a schedule with list sections), plan-link
 * makes it the last section of <kernel>__lists, so one persistent launch
 * runs the lists and the split chunks: the chunks loop over whatever grid
 * that kernel gets, and the merge (the last chunk's ticket) needs no
 * grid-wide order, as there is no later stage to wait for it. */
static void build_split_stage(planner *pl, int32_t k, bool link, bool reset)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, "split%d", k);
    begin_kernel(pl, suffix, "split", (plan_shape){PLAN_CTA_THREADS, 1}, PLAN_CTA_THREADS);
    ir_attr_set_str(pl->m, pl->func, "sw.policy", "split");
    set_int(pl, "sw.stage", k);
    set_int(pl, "sw.tile", PLAN_STREAM_TILE);
    if (link)
        ir_attr_set_str(pl->m, pl->func, "sw.link", "lists");
    int rmax, rsum;
    if (task_online_pair(&pl->p, k, &rmax, &rsum))
        set_int(pl, "sw.sm_threads", ONLINE_SPLIT_SM_THREADS);
    ir_builder b = kernel_body(pl);
    ir_value pid = grid_query(&b, IR_PROGRAM_ID), nprog = grid_query(&b, IR_NUM_PROGRAMS);
    int sl = split_list(pl);
    ir_value list = list_base(pl, &b, sl);
    /* linked after the list sections: no split chunks can exist when they
     * have no room (launch.c: nothing is split), and then the counter is
     * not read (list_count) */
    ir_value packed;
    if (link) {
        ir_builder then;
        ir_op *read = begin_read_if(pl, &b, irb_cmp(&b, "gt", pl->partials_cap, irb_int(&b, DT_I64, 0)), &then);
        ir_value word = irb_load_at(&then, pl->scratch64, irb_int(&then, DT_I64, 0));
        irb_yield(&then, &word, 1);
        packed = read->results[0];
    } else {
        packed = irb_load_at(&b, pl->scratch64, irb_int(&b, DT_I64, 0));
    }
    ir_value nsplit = irb_binary(&b, IR_MINIMUM, irb_binary(&b, IR_SHR, packed, irb_int(&b, DT_I64, SPLIT_SLOT_SHIFT)),
                                 pl->cap[sl]);
    ir_value total = irb_binary(&b, IR_AND, packed, irb_int(&b, DT_I64, ((int64_t)1 << SPLIT_SLOT_SHIFT) - 1));
    total = irb_binary(&b, IR_MINIMUM, total, pl->partials_cap);
    /* chunks reserved by segments that found no room (bad offsets) have no
     * segment: only chunks of stored segments run */
    ir_op *tasks = irb_for(&b, pid, total, nprog, NULL, 0);
    ir_block *tbody = tasks->regions[0];
    ir_builder in = irb_at_end(pl->m, tbody, b.loc);
    ir_value t = tbody->args[0];
    ir_value j = find_split_segment(pl, &in, t, nsplit);
    ir_value sid = scratch_word(pl, &in, irb_binary(&in, IR_ADD, list, j));
    ir_value c = irb_binary(&in, IR_SUB, t, irb_load_at(&in, pl->chunk_bases, j));
    task_emitter e;
    task_emitter_init(&e, &pl->p, in, pl->map);
    task_emit_range(&e, offsets_param(pl), sid, pl->numel, pl->p.params.nhidden, NULL);
    in = e.b;
    ir_value nch = chunk_count(pl, &in, irb_binary(&in, IR_SUB, e.end, e.start));
    ir_value real_chunk = irb_binary(&in, IR_AND, irb_cmp(&in, "ge", c, irb_int(&in, DT_I64, 0)),
                                     irb_cmp(&in, "lt", c, nch));
    e.b = in;
    ir_value span = task_span(&e, SEGMENT_ALIGN);
    in = e.b;
    real_chunk = irb_binary(&in, IR_AND, real_chunk,
                            split_fits(pl, &in, irb_load_at(&in, pl->chunk_bases, j), span));
    ir_op *real = irb_if(&in, real_chunk, NULL, 0);
    ir_builder run = irb_at_end(pl->m, real->regions[0], b.loc);
    emit_chunk(pl, &run, k, j, sid, t, c, nch, e.start, e.end);
    irb_yield(&run, NULL, 0);
    ir_builder skip = irb_at_end(pl->m, real->regions[1], b.loc);
    irb_yield(&skip, NULL, 0);
    irb_yield(&in, NULL, 0);
    if (reset) /* the last split stage, in a kernel of its own */
        emit_reset(pl, &b, 0, true, -1);
    end_kernel(pl, &b);
}

/* ---- the schedules ---------------------------------------------------------------- */

static int pointee_bytes(const planner *pl, ir_value ptr)
{
    return ir_dtypes[ir_value_type(pl->m, ptr).dtype].bytes;
}

static void count_scalar_stores(planner *pl, const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        if (op->kind == IR_STORE && ir_value_type(pl->m, op->operands[0]).kind == TY_PTR)
            pl->segment_bytes += pointee_bytes(pl, op->operands[0]);
        for (int r = 0; r < op->nregions; r++)
            count_scalar_stores(pl, op->regions[r]);
    }
}

static void count_traffic(planner *pl)
{
    const task_program *p = &pl->p;
    pl->segment_bytes = ir_dtypes[ir_value_type(pl->m, ir_func_body(p->func)->args[p->offsets_param]).dtype].bytes;
    for (int i = 0; i < p->nops; i++) {
        const ir_op *op = p->ops[i];
        if (op->kind == IR_LOAD_SEGMENT)
            pl->read_bytes += ir_dtypes[ir_value_type(pl->m, op->results[0]).dtype].bytes;
        else if (op->kind == IR_STORE_SEGMENT)
            pl->write_bytes += pointee_bytes(pl, op->operands[0]);
    }
    count_scalar_stores(pl, ir_func_body(p->func));
}

static bool in_policy(plan_shape s, const char *policy) { return !strcmp(plan_shape_policy(s), policy); }

/* The CTA streamers: the narrow one (CTA_STREAMER_THREADS threads of
 * CTA_STREAMER_SLOTS elements), and the widest CTA shape when its tile is
 * longer. Forced, the narrow one of a one-stage program that reads one
 * segment buffer (live_values 1: what was measured) asks for
 * CTA_STREAMER_SM_THREADS resident threads a multiprocessor (sw.sm_threads:
 * 32 registers). On the H200, side by side (schedule="cta", sums over
 * uniform lengths, bench/results/variants-2026-12-02u-h200.txt): mean 1024
 * 66.9% -> 76.2% of the copy bandwidth, 2048 82.7% -> 87.6%, 4096
 * unchanged (87.4%). Auto's narrow streamer, which also appends to the
 * lists and splits, spilled at 32 registers and lost uniform lengths of
 * mean 4096 (85.6% -> 81.6%), and a softmax's spilled too: they keep what
 * ptxas takes (33-40 registers, 12 CTAs). */
static void cta_streamers(planner *pl, overflow over)
{
    pl->sm_threads = over == OVERFLOW_STREAM && live_values(&pl->p) == 1 ? CTA_STREAMER_SM_THREADS : 0;
    build_direct(pl, (plan_shape){CTA_STREAMER_THREADS, CTA_STREAMER_SLOTS}, over, true, 1);
    pl->sm_threads = 0;
    plan_shape widest = pl->shapes[pl->nshapes - 1];
    if (widest.group > 32 && plan_shape_block(widest) > CTA_STREAMER_THREADS * CTA_STREAMER_SLOTS)
        build_direct(pl, widest, over, true, 1);
}

/* Direct kernels of `schedule`: AUTO's take the shapes up to a warp of
 * DIRECT_SLOTS-slot threads (the launch picks one by the mean length; a
 * direct task streams segments of up to DIRECT_STREAM_TILES tiles, longer
 * ones go to the lists); the forced sub-warp and warp ones every shape of
 * their policy, streaming what does not fit; the forced CTA ones the CTA
 * streamers (cta_streamers). */
static void build_schedule(planner *pl, plan_schedule schedule)
{
    const char *forced = schedule == PLAN_SUBWARP ? "subwarp" : schedule == PLAN_WARP ? "warp" : NULL;
    if (schedule == PLAN_CTA) {
        cta_streamers(pl, OVERFLOW_STREAM);
        return;
    }
    if (forced) {
        for (int i = 0; i < pl->nshapes; i++)
            if (in_policy(pl->shapes[i], forced))
                build_direct(pl, pl->shapes[i], OVERFLOW_STREAM, false, 1);
        return;
    }
    pl->link_split = schedule != PLAN_SPLIT && pl->p.nstages == 1;
    if (schedule == PLAN_AUTO) {
        int warp = -1, subwarp = -1;
        for (int i = 0; i < pl->nshapes; i++)
            if (pl->shapes[i].group <= 32 && pl->shapes[i].slots <= DIRECT_SLOTS) {
                if (i == 0) /* first, for means of at most one element (launch.c) */
                    build_direct(pl, (plan_shape){1, 1}, OVERFLOW_STREAM_THEN_LISTS, false, DIRECT_BATCH_ONE_ELEMENT);
                build_direct(pl, pl->shapes[i], OVERFLOW_STREAM_THEN_LISTS, false, 1);
                *(pl->shapes[i].group < 32 ? &subwarp : &warp) = i;
            }
        /* the streamer, for means past every direct tile: the widest
         * sub-warp shape for a one-stage program (two segments a warp keep
         * twice the loads in flight; the H200 measured a sum over segments
         * of 256 .. 2048 elements at 79% of copy on half warps, 72% on
         * warps of 4-element lanes), the warp's for a program of several
         * stages (a group loops once per stage while the whole warp waits
         * for it) */
        int streamer = pl->p.nstages == 1 && subwarp >= 0 ? subwarp : warp;
        if (streamer >= 0)
            build_direct(pl, pl->shapes[streamer], OVERFLOW_STREAM_THEN_LISTS, true, 1);
        /* and a one-stage program's wide warp streamer, from a mean of
         * WIDE_WARP_STREAM_FROM */
        for (int i = 0; i < pl->nshapes && pl->p.nstages == 1; i++)
            if (pl->shapes[i].group == 32 && pl->shapes[i].slots == WIDE_WARP_SLOTS) {
                pl->stream_from = WIDE_WARP_STREAM_FROM;
                build_direct(pl, pl->shapes[i], OVERFLOW_STREAM_THEN_LISTS, true, 1);
                pl->stream_from = 0;
            }
        /* the flat kernel, for short segments of a one-stage program */
        plan_build_flat(pl);
        /* and the CTA streamers, for long segments: the narrow one, and
         * the widest CTA shape when its tile is longer. From a mean of
         * twice the wide one's tile (256 threads of 16 elements, 4096;
         * 8192 and up) the launch takes the wide one: each task keeps 8192
         * elements in flight (its pairs), the grid has a quarter of the
         * CTAs, and there are fewer waves of whole segments to end on a
         * ragged tail. Side by side on the H200, uniform lengths of mean
         * 16384: sums 80.0% -> 83.1% of the copy bandwidth, softmax 45.9%
         * -> 57.6%; mean 65536 (1024 segments, drawn afresh for each
         * variant, so noisier): 64.5-74.0% -> 79.1%, softmax 30.8-35.6% ->
         * 37.7%. Held to 4 CTAs a multiprocessor (64 registers, from 78)
         * it spilled and lost: 78.3% / 57.7% and 65.1% / 32.7%
         * (bench/results/variants-2026-12-02p-h200.txt). */
        cta_streamers(pl, OVERFLOW_STREAM_THEN_LISTS);
    } else {
        build_direct(pl, (plan_shape){0, 0}, OVERFLOW_LISTS, false, 1);
    }
    /* a one-stage program's split stage is a section of the lists kernel
     * (one launch fewer; both are usually empty); a program of several
     * stages keeps one kernel per stage: each merge must finish before the
     * next stage reads its result, a grid-wide order only a new launch
     * gives */
    bool link_split = pl->link_split;
    if (schedule != PLAN_SPLIT) {
        uint32_t narrow = 0, wide = 0;
        for (int c = 0; c <= stream_list(pl); c++) {
            build_list_section(pl, c);
            *(strcmp(section_link(pl, c), "lists") ? &wide : &narrow) |= 1u << c;
        }
        /* each linked kernel ends by clearing its lists' counts (and the
         * split counter, when the split stage is linked into it) */
        if (narrow)
            build_reset_section(pl, "lists", narrow, link_split);
        if (wide)
            build_reset_section(pl, "lists_wide", wide, false);
    }
    int rmax, rsum;
    for (int32_t k = 0; k < pl->p.nstages; k++) {
        bool online = task_online_pair(&pl->p, k, &rmax, &rsum);
        build_split_stage(pl, k, link_split, !link_split && k + 1 + online >= pl->p.nstages);
        if (online)
            k++; /* stage k + 1 ran with k */
    }
}

static void strip_stage_attrs(ir_block *b)
{
    for (ir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nattrs; i++)
            if (!strcmp(op->attrs[i].name, "stage")) {
                op->attrs[i] = op->attrs[op->nattrs - 1];
                op->nattrs--;
                break;
            }
        for (int r = 0; r < op->nregions; r++)
            strip_stage_attrs(op->regions[r]);
    }
}

static bool plan_func(ir_module *m, ir_op *func, plan_schedule schedule, diag *d)
{
    planner pl = {.m = m, .d = d, .anchor = func, .name = ir_func_name(func), .direct_form = TASK_STREAM_PAIRS};
    if (!task_program_analyse(m, func, &pl.p, d))
        return false;
    if (!pl.p.params.is_segment_program)
        return true;
    pl.nshapes = plan_shapes(live_values(&pl.p), pl.shapes);
    /* kernels after linking: the direct kernels (a forced schedule's, at
     * most one a shape; auto's, those of the shapes up to a warp of
     * DIRECT_SLOTS and at most MAX_EXTRA_DIRECT more), two list kernels,
     * one split kernel per stage; past the launch's table, say so before
     * building any */
    int most = PLAN_MAX_KERNELS - 2 - (pl.nshapes + MAX_EXTRA_DIRECT);
    if (pl.p.nstages > most) {
        diag_error_at(d, DIAG_COMPILE, &m->src, func->loc,
                      "a segment program of %d stages (dependent reductions and stores) is more "
                      "than a schedule can run: at most %d", (int)pl.p.nstages, most);
        return false;
    }
    count_traffic(&pl);
    pl.nlists = pl.nshapes + 2;
    build_schedule(&pl, schedule);
    for (ir_op *op = m->body->first; op; op = op->next)
        if (op->kind == IR_FUNC && op != func)
            strip_stage_attrs(ir_func_body(op));
    ir_op_unlink(func);
    return !diag_failed(d);
}

static bool plan_module(ir_module *m, diag *d, void *context)
{
    plan_schedule schedule = *(const plan_schedule *)context;
    int n = 0;
    for (ir_op *f = m->body->first; f; f = f->next)
        n++;
    ir_op **funcs = arena_alloc(m->ar, sizeof(ir_op *) * (size_t)(n + 1));
    n = 0; /* the programs as they are now: planning inserts kernels among them */
    for (ir_op *f = m->body->first; f; f = f->next)
        if (f->kind == IR_FUNC && !ir_attr_get(f, "simt.num_threads") && !ir_attr_get(f, "sw.task"))
            funcs[n++] = f;
    for (int i = 0; i < n; i++)
        if (!plan_func(m, funcs[i], schedule, d))
            return false;
    return true;
}

bool plan_build(ir_module *m, plan_schedule schedule, diag *d)
{
    return pass_guarded_with(m, d, plan_module, &schedule);
}
