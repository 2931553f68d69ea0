/* pipeline.c - requires IR parsed or built through ir.h; guarantees that a pipeline returning true leaves IR that ir_verify accepts.
 *
 * The pass table and the pass manager. Input that does not verify is the
 * user's error; IR that stops verifying after a pass is an internal error
 * naming that pass. */
#include "passes.h"

#include <string.h>

const pass_info pass_table[] = {
    {"fold", "constant folding and algebraic simplification, to a fixed point", pass_fold},
    {"dce", "remove unused pure ops and loads, empty sw.if and side-effect-free sw.for", pass_dce},
    {"cse", "merge equal pure ops and equal constants within dominating scopes", pass_cse},
    {"stages", "stage analysis of segment programs: `stage` on ops, `sw.stages` on functions",
     pass_stages},
    {"lower-simt", "semantic tile IR -> SIMT IR: one CTA's per-thread program (docs/simt.md)",
     pass_lower_simt},
    {"lower-segments", "segment programs -> the task kernels of the automatic schedule",
     pass_lower_segments},
    {"lower-segments-subwarp", "segment programs -> task kernels, every segment on 1..16 lanes",
     pass_lower_segments_subwarp},
    {"lower-segments-warp", "segment programs -> task kernels, every segment on a warp",
     pass_lower_segments_warp},
    {"lower-segments-cta", "segment programs -> task kernels, every segment on a CTA",
     pass_lower_segments_cta},
    {"lower-segments-split", "segment programs -> task kernels, every segment split over CTAs",
     pass_lower_segments_split},
    {"lower-segments-persistent", "segment programs -> task kernels, every segment through lists",
     pass_lower_segments_persistent},
    {"plan-link", "SIMT task kernels: link each schedule's list sections into one kernel",
     pass_plan_link},
    {NULL, NULL, NULL},
};

/* Looks up the n bytes at name (a whole name, or one item of a comma list). */
static const pass_info *lookup_n(const char *name, size_t n)
{
    for (const pass_info *p = pass_table; p->name; p++)
        if (strlen(p->name) == n && !memcmp(p->name, name, n))
            return p;
    return NULL;
}

const pass_info *pass_lookup(const char *name)
{
    return name ? lookup_n(name, strlen(name)) : NULL;
}

static void report_unknown(diag *d, const char *name, size_t n)
{
    strbuf known;
    sb_init(&known);
    for (const pass_info *p = pass_table; p->name; p++)
        sb_printf(&known, "%s%s", p == pass_table ? "" : ", ", p->name);
    diag_error(d, DIAG_ARGUMENT, "unknown pass '%.*s' (known: %s)", (int)n, name,
               known.data ? known.data : "");
    sb_free(&known);
}

static bool is_space(char c) { return c == ' ' || c == '\t'; }

/* One item of a comma-separated list, blanks trimmed. */
typedef struct list_item {
    const char *text;
    size_t len;
} list_item;

/* Reads the next non-empty item at *cursor; false at the end of the list.
 * Empty items ("fold,,dce", a trailing comma) are skipped. */
static bool next_item(const char **cursor, list_item *item)
{
    const char *p = *cursor;
    while (*p) {
        while (is_space(*p))
            p++;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        while (end > start && is_space(end[-1]))
            end--;
        if (*p == ',')
            p++;
        if (end > start) {
            item->text = start;
            item->len = (size_t)(end - start);
            *cursor = p;
            return true;
        }
    }
    *cursor = p;
    return false;
}

static bool is_all(const char *list)
{
    const char *cursor = list;
    list_item item;
    return next_item(&cursor, &item) && item.len == 3 && !memcmp(item.text, "all", 3) &&
           !next_item(&cursor, &item);
}

/* Checks that every name in a print-after list is a pass (or the list is
 * "all"), so that a typo is an error rather than a dump that never comes. */
static bool check_print_after(const char *list, diag *d)
{
    if (is_all(list))
        return true;
    const char *cursor = list;
    list_item item;
    while (next_item(&cursor, &item)) {
        if (!lookup_n(item.text, item.len)) {
            report_unknown(d, item.text, item.len);
            return false;
        }
    }
    return true;
}

static bool wants_dump(const pass_options *opts, const char *pass)
{
    if (!opts || !opts->print_after || !opts->dump)
        return false;
    if (is_all(opts->print_after))
        return true;
    const char *cursor = opts->print_after;
    list_item item;
    size_t n = strlen(pass);
    while (next_item(&cursor, &item))
        if (item.len == n && !memcmp(item.text, pass, n))
            return true;
    return false;
}

bool pass_guarded_with(ir_module *m, diag *d, bool (*body)(ir_module *, diag *, void *), void *context)
{
    jmp_buf here;
    jmp_buf *outer = d->bail;
    if (!outer) {
        d->bail = &here;
        if (setjmp(here)) {
            d->bail = NULL;
            return false;
        }
    }
    bool ok = body(m, d, context);
    d->bail = outer;
    return ok && !diag_failed(d);
}

static bool call_pass(ir_module *m, diag *d, void *fn)
{
    pass_fn body;
    memcpy(&body, fn, sizeof body);
    return body(m, d);
}

bool pass_guarded(ir_module *m, diag *d, pass_fn body)
{
    return pass_guarded_with(m, d, call_pass, &body);
}

/* Runs one pass, guarded (pass_guarded), so a broken invariant fails the
 * pipeline instead of returning into a half-done pass. */
static bool run_pass(const pass_info *pass, ir_module *m, diag *d)
{
    bool ok = pass_guarded(m, d, pass->run);
    if (!ok && !diag_failed(d))
        diag_error(d, DIAG_INTERNAL, "pass '%s' failed without a diagnostic", pass->name);
    return ok && !diag_failed(d);
}

/* Verifies after a pass: the pass, not the user, broke anything found. */
static bool verify_after(const pass_info *pass, ir_module *m, diag *d)
{
    diag vd;
    diag_init(&vd);
    bool ok = ir_verify(m, &vd);
    if (!ok)
        diag_error(d, DIAG_INTERNAL, "pass '%s' produced invalid IR: %s", pass->name,
                   vd.message ? vd.message : "(no message)");
    diag_clear(&vd);
    return ok;
}

bool pass_run_pipeline(ir_module *m, const char *const *names, int n, const pass_options *opts,
                       diag *d)
{
    const pass_info **passes = arena_alloc(m->ar, sizeof *passes * (size_t)(n > 0 ? n : 1));
    if (!passes) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    for (int i = 0; i < n; i++) {
        passes[i] = names[i] ? pass_lookup(names[i]) : NULL;
        if (!passes[i]) {
            const char *name = names[i] ? names[i] : "(null)";
            report_unknown(d, name, strlen(name));
            return false;
        }
    }
    if (opts && opts->print_after && !check_print_after(opts->print_after, d))
        return false;
    if (opts && opts->print_after && !opts->dump) {
        diag_error(d, DIAG_ARGUMENT, "print-after needs a dump buffer");
        return false;
    }
    /* A pass may assume valid input: reject bad input as the user's error
     * before any pass could be blamed for it. */
    if (!ir_verify(m, d))
        return false;

    ir_print_options print = {.locations = opts && opts->print_locations};
    for (int i = 0; i < n; i++) {
        if (!run_pass(passes[i], m, d) || !verify_after(passes[i], m, d))
            return false;
        if (wants_dump(opts, passes[i]->name)) {
            sb_printf(opts->dump, "// -----// IR Dump After %s //----- //\n", passes[i]->name);
            ir_print_module(m, &print, opts->dump);
        }
    }
    return true;
}

/* The default pipeline. fold first turns constant expressions into
 * constants so cse sees equal values; cse exposes new folds (x - x once both
 * sides are one value); dce then sweeps everything the rewrites left unused;
 * stages last numbers the stages of segment programs on the final IR. */
bool pass_run_default(ir_module *m, const pass_options *opts, diag *d)
{
    static const char *const pipeline[] = {"fold", "cse", "fold", "dce", "stages"};
    return pass_run_pipeline(m, pipeline, 5, opts, d);
}
