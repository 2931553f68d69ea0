/* passes.h - the pass manager and the passes over the semantic IR.
 *
 * A pass takes a verified module and leaves a verified module (the manager
 * re-verifies after every pass and reports a failure as an internal error
 * naming the pass). Passes never free memory; they may create values and ops
 * in the module arena. One pass per file under src/passes/, each opening with
 * its contract.
 */
#ifndef SWAGE_PASSES_H
#define SWAGE_PASSES_H

#include "../ir/ir.h"

typedef bool (*pass_fn)(ir_module *m, diag *d);

typedef struct pass_info {
    const char *name;    /* the command-line name: "fold", "dce" */
    const char *summary; /* one line for --help */
    pass_fn run;
} pass_info;

/* NULL-terminated table of every pass, in a stable order. */
extern const pass_info pass_table[];
const pass_info *pass_lookup(const char *name);

typedef struct pass_options {
    /* Names of passes after which to dump the module to `dump`, comma
     * separated, or "all". NULL: no dumps. Each dump is the line
     * "// -----// IR Dump After <pass> //----- //" followed by the module
     * text, which parses back. */
    const char *print_after;
    strbuf *dump;
    bool print_locations;
} pass_options;

/* Runs body(m, d); an internal error (sw_unreachable) inside it lands here
 * when the caller installed no bail point, so the body never continues
 * past one. Returns false when body fails or reported anything. */
bool pass_guarded(ir_module *m, diag *d, pass_fn body);
/* The same for a body that takes a context. */
bool pass_guarded_with(ir_module *m, diag *d, bool (*body)(ir_module *, diag *, void *), void *context);

/* Runs the named passes in order (opts may be NULL). Every name is checked
 * before anything runs: an unknown one is a DIAG_ARGUMENT error. The module
 * is verified before the first pass and after each one; invalid IR after a
 * pass is a DIAG_INTERNAL error naming the pass. Returns false with d set on
 * failure. */
bool pass_run_pipeline(ir_module *m, const char *const *names, int n, const pass_options *opts,
                       diag *d);
/* The default optimisation pipeline run after irgen: fold, cse, fold, dce,
 * stages. */
bool pass_run_default(ir_module *m, const pass_options *opts, diag *d);

/* The passes (one file each). */
bool pass_fold(ir_module *m, diag *d); /* fold.c: constant folding and simplification */
bool pass_dce(ir_module *m, diag *d);  /* dce.c: remove unused pure ops and dead regions */
bool pass_cse(ir_module *m, diag *d);  /* cse.c: merge equal pure ops and equal constants */
/* stages.c: the stage analysis of segment programs (docs/segments.md):
 * records `stage` on their ops and `sw.stages` on their functions. */
bool pass_stages(ir_module *m, diag *d);
/* lower_simt.c: rewrites a verified semantic module in place into SIMT IR
 * (docs/simt.md); lower a clone to keep the semantic module. */
bool pass_lower_simt(ir_module *m, diag *d);
/* lower_segments.c: replaces every segment program of a verified module by
 * the task kernels of a schedule (src/plan/, docs/schedules.md): the
 * automatic one, or a forced one; lower a clone to keep the segment program
 * for the semantic executor. */
bool pass_lower_segments(ir_module *m, diag *d);
bool pass_lower_segments_subwarp(ir_module *m, diag *d);
bool pass_lower_segments_warp(ir_module *m, diag *d);
bool pass_lower_segments_cta(ir_module *m, diag *d);
bool pass_lower_segments_split(ir_module *m, diag *d);
bool pass_lower_segments_persistent(ir_module *m, diag *d);
/* plan-link (src/plan/link.c): after lower-simt, links each schedule's list
 * sections (and a one-stage program's split stage, last) into persistent
 * kernels. */
bool pass_plan_link(ir_module *m, diag *d);

#endif
