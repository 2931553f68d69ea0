/* link.c - requires verified SIMT IR; guarantees verified SIMT IR in which
 * the list sections of each planned kernel (functions with sw.task =
 * "list", named <kernel>__list<c>_..., with sw.link = "<name>") are one
 * function per link name, <kernel>__<name>, that runs its sections one
 * after the other: a single persistent launch serves all their lists,
 * however many are empty. The sections (and the reset) run only when the
 * kernel's work word in the scratch header (plan.h) is raised, which the
 * first append to any of its lists does: an empty launch reads one word.
 *
 * A split stage (sw.task = "split", <kernel>__split<k>) that carries
 * sw.link joins its kernel's group as the last section (the planner links
 * a one-stage program's only split stage into <kernel>__lists: one
 * persistent launch for the lists and the split chunks). The linked kernel
 * then says so: sw.lists includes the split list (the last list, after
 * the sw.list_tiles lists and the stream list) and sw.split_stage names
 * the stage. At most one split stage joins a group: a later stage reads
 * what the one before it merged, which only a new launch orders.
 *
 * Sections may have different threads per program (a lane, a warp, the
 * CTA) but share the CTA size and the parameters; each section's ops keep
 * their own thread-id arithmetic, and a section that uses shared memory
 * brackets every use with barriers (docs/simt.md), so running sections in
 * sequence needs nothing between them. The linked kernel's shared memory
 * is its largest section's. */
#include "plan.h"
#include "launch.h"
#include "../passes/passes.h"
#include "../ir/builder.h"

#include <string.h>

static bool has_task(const ir_op *f, const char *task)
{
    const ir_attr *t = ir_attr_get(f, "sw.task");
    return f->kind == IR_FUNC && t && t->kind == ATTR_STR && !strcmp(t->s, task) &&
           ir_attr_get(f, "simt.num_threads");
}

static bool is_section(const ir_op *f) { return has_task(f, "list"); }

/* The section that ends a linked kernel, after the split stage too: it
 * leaves the scratch header clean (task_kernels.c, emit_reset). */
static bool is_reset(const ir_op *f) { return ir_attr_get(f, "sw.reset") != NULL; }

/* A split stage that joins a group of list sections. */
static bool is_split_section(const ir_op *f) { return has_task(f, "split") && ir_attr_get(f, "sw.link"); }

/* The linked kernel's name: the section's up to "__list". */
static size_t base_length(const char *name)
{
    const char *at = strstr(name, "__list");
    return at ? (size_t)(at - name) : strlen(name);
}

static const char *link_name(const ir_op *f)
{
    const ir_attr *a = ir_attr_get(f, "sw.link");
    return a && a->kind == ATTR_STR ? a->s : "lists";
}

static int64_t int_attr(const ir_op *f, const char *name)
{
    const ir_attr *a = ir_attr_get(f, name);
    return a && a->kind == ATTR_INT ? a->i : 0;
}

/* The split list's index: after one list per tile of sw.list_tiles and the
 * stream list (launch.c reads the lists the same way). */
static int64_t split_list(const ir_op *f)
{
    const ir_attr *a = ir_attr_get(f, "sw.list_tiles");
    int64_t tiles = 0;
    if (a && a->kind == ATTR_STR && a->s[0]) {
        tiles = 1;
        for (const char *c = a->s; *c; c++)
            tiles += *c == ',';
    }
    return tiles + 1;
}

/* Makes linked kernel f's body `if (scratch[word] != 0) { } return`, in
 * SIMT form (a uniform load: one slot); returns the if's yield, before
 * which the sections go. */
static ir_op *guard_work(ir_module *m, ir_op *f, int word)
{
    ir_block *body = ir_func_body(f);
    ir_value scratch = IR_NO_VALUE;
    for (int i = 0; i < body->nargs; i++)
        if (m->values[body->args[i]].name && !strcmp(m->values[body->args[i]].name, "__scratch"))
            scratch = body->args[i];
    ir_builder b = irb_before(m, body->last);
    ir_value at = irb_binary(&b, IR_ADDPTR, scratch, irb_int(&b, DT_I64, word));
    ir_value ptrs = irb_splat(&b, at, ir_type_ptr_vec(DT_I32, 1));
    ir_value slot = irb(&b, IR_SIMT_LOAD, &ptrs, 1, ir_type_vec(DT_I32, 1));
    ir_attr_set_int(m, m->values[slot].def, "vec", ir_type_scalar(DT_I32), 1);
    ir_value value = irb(&b, IR_SIMT_VREDUCE, &slot, 1, ir_type_scalar(DT_I32));
    ir_attr_set_str(m, m->values[value].def, "kind", "max");
    ir_op *work = irb_if(&b, irb_cmp(&b, "ne", value, irb_int(&b, DT_I32, 0)), NULL, 0);
    ir_builder idle = irb_at_end(m, work->regions[1], f->loc);
    irb_yield(&idle, NULL, 0);
    ir_builder run = irb_at_end(m, work->regions[0], f->loc);
    irb_yield(&run, NULL, 0);
    return work->regions[0]->last;
}

/* Links the sections that follow `first` and share its base name. */
static bool link_group(ir_module *m, ir_op *first, diag *d)
{
    const char *name = ir_func_name(first);
    size_t n = base_length(name);
    strbuf sb;
    sb_init(&sb);
    sb_putn(&sb, name, n);
    sb_puts(&sb, "__");
    sb_puts(&sb, link_name(first));
    ir_op *linked = ir_op_create(m, IR_FUNC, first->loc, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(m, linked, "sym_name", sb.data ? sb.data : "lists");
    sb_free(&sb);
    ir_attr_set_str(m, linked, "sw.task", "lists");
    ir_attr_set(m, linked, ir_attr_get(first, "sw.list_tiles"));
    ir_attr_set_int(m, linked, "simt.num_threads", ir_type_scalar(DT_I32), int_attr(first, "simt.num_threads"));
    ir_insert_before(first, linked);
    ir_block *body = ir_func_body(linked), *params = ir_func_body(first);
    for (int i = 0; i < params->nargs; i++)
        ir_block_add_arg(m, body, ir_value_type(m, params->args[i]), m->values[params->args[i]].name);
    ir_op *ret = ir_op_create(m, IR_RETURN, first->loc, NULL, 0, NULL, 0, 0);
    ir_block_append(body, ret);

    /* the sections, and the words of the scratch header that count their
     * lists (task_kernels.c: word 1 + c counts list c) */
    ir_op *members[PLAN_MAX_LISTS + 2]; /* the list sections, then a split stage, then the reset */
    int nmembers = 0;
    ir_op *reset = NULL;
    for (ir_op *f = linked->next; f; f = f->next)
        if (is_section(f) && !strncmp(ir_func_name(f), name, n) && !strncmp(ir_func_name(f) + n, "__list", 6) &&
            !strcmp(link_name(f), link_name(first))) {
            if (is_reset(f)) {
                if (reset) {
                    sw_unreachable(d, "plan-link: two reset sections for %s", ir_func_name(first));
                    return false;
                }
                reset = f;
                continue;
            }
            if (nmembers == PLAN_MAX_LISTS) {
                sw_unreachable(d, "plan-link: more than %d sections for %s", PLAN_MAX_LISTS, ir_func_name(first));
                return false;
            }
            members[nmembers++] = f;
        }
    /* then the split stage that links here, if any: at most one */
    ir_op *split = NULL;
    for (ir_op *f = m->body->first; f; f = f->next)
        if (is_split_section(f) && !strncmp(ir_func_name(f), name, n) &&
            !strncmp(ir_func_name(f) + n, "__split", 7) && !strcmp(link_name(f), link_name(first))) {
            if (split) {
                sw_unreachable(d, "plan-link: split stages %s and %s both link into %s", ir_func_name(split),
                               ir_func_name(f), ir_func_name(linked));
                return false;
            }
            split = f;
        }
    /* The sections run one after another, each reading its list's count
     * when it starts, and only when the group's work word is raised (the
     * first append to each of its lists raises it, the reset clears it): an empty
     * launch reads that one word and ends, where the sections' setup alone
     * took about 500 instructions a warp. (A guard that read every count
     * first and skipped the sections when all were zero took the lists
     * kernel of a sum from 80 to 94 registers, one CTA a multiprocessor
     * fewer: bimodal sums fell from 58.6% to 49.8% of copy on the H200,
     * bench/results/variants-2026-12-02h-h200.txt.) */
    ir_op *end_of_sections = guard_work(m, linked, plan_work_word(link_name(first)));

    int64_t smem = 0, sections = 0;
    strbuf served;
    sb_init(&served);
    if (split)
        members[nmembers++] = split; /* last but the reset */
    if (reset)
        members[nmembers++] = reset;
    for (int member = 0; member < nmembers; member++) {
        ir_op *f = members[member];
        ir_block *sb_body = ir_func_body(f);
        if (sb_body->nargs != body->nargs || int_attr(f, "simt.num_threads") != int_attr(linked, "simt.num_threads")) {
            sw_unreachable(d, "plan-link: section %s does not match %s's parameters or CTA size",
                           ir_func_name(f), ir_func_name(first));
            sb_free(&served);
            return false;
        }
        for (int i = 0; i < sb_body->nargs; i++)
            ir_replace_uses_in_block(m, sb_body, sb_body->args[i], body->args[i]);
        for (ir_op *op = sb_body->first, *after; op; op = after) {
            after = op->next;
            if (op->kind == IR_RETURN)
                continue;
            ir_op_unlink(op);
            ir_insert_before(end_of_sections, op);
        }
        if (int_attr(f, "simt.smem_bytes") > smem)
            smem = int_attr(f, "simt.smem_bytes");
        if (f != reset) {
            sb_printf(&served, "%s%lld", sections ? "," : "",
                      (long long)(f == split ? split_list(first) : int_attr(f, "sw.list")));
            sections++;
        }
        if (f == split)
            ir_attr_set_int(m, linked, "sw.split_stage", ir_type_scalar(DT_I32), int_attr(f, "sw.stage"));
        ir_op_unlink(f);
    }
    ir_attr_set_int(m, linked, "simt.smem_bytes", ir_type_scalar(DT_I32), smem);
    ir_attr_set_int(m, linked, "sw.sections", ir_type_scalar(DT_I32), sections);
    ir_attr_set_str(m, linked, "sw.lists", served.data ? served.data : "");
    sb_free(&served);
    return true;
}

static bool link_module(ir_module *m, diag *d)
{
    for (;;) {
        ir_op *f = m->body->first;
        while (f && !is_section(f))
            f = f->next;
        if (!f)
            return true;
        if (!link_group(m, f, d))
            return false;
    }
}

bool plan_link(ir_module *m, diag *d) { return pass_guarded(m, d, link_module); }
bool pass_plan_link(ir_module *m, diag *d) { return plan_link(m, d); }
