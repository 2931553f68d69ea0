/* ir_tools.c - swageIrRunPasses: text in, passes, text out (for swage-opt
 * and tests). Requires NUL-terminated IR text; guarantees that every
 * failure (syntax, verifier, pass, internal invariant) comes back as a
 * swage_error and that the returned text parses back. */
#include "api_internal.h"
#include "../ir/ir.h"
#include "../passes/passes.h"
#include "../backends/ptx/ptx.h"

#include <stdlib.h>
#include <string.h>

/* Everything one run owns, so the longjmp guard needs no volatile locals. */
typedef struct ir_run {
    arena ar;
    diag d;
    const char **names; /* the pass names, malloc'd copies */
    int npasses;
    strbuf out;
} ir_run;

/* Splits "fold, dce" into trimmed names; empty items are skipped. */
static bool split_passes(ir_run *run, const char *list)
{
    size_t n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    run->names = calloc(n, sizeof *run->names);
    if (!run->names)
        return false;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        while (*p && *p != ',')
            p++;
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (*p == ',')
            p++;
        if (end == start)
            continue;
        char *name = malloc((size_t)(end - start) + 1);
        if (!name)
            return false;
        memcpy(name, start, (size_t)(end - start));
        name[end - start] = 0;
        run->names[run->npasses++] = name;
    }
    return true;
}

static bool run_guarded(ir_run *run, const char *ir_text, const char *file_name, const char *passes,
                        const char *print_after, int locations, int ptx_sm)
{
    jmp_buf bail;
    run->d.bail = &bail;
    if (setjmp(bail))
        return false; /* sw_unreachable: d holds the internal error */
    source_file src = {file_name ? file_name : "<stdin>", ir_text, strlen(ir_text), 1};
    ir_module *m = ir_parse_module(&run->ar, &src, &run->d);
    if (!m || !ir_verify(m, &run->d))
        return false;
    if (passes && !split_passes(run, passes)) {
        diag_error(&run->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    pass_options opts = {
        .print_after = print_after && *print_after ? print_after : NULL,
        .dump = &run->out,
        .print_locations = locations != 0,
    };
    if (!pass_run_pipeline(m, run->names, run->npasses, &opts, &run->d))
        return false;
    if (ptx_sm) {
        ptx_target target = {.sm = ptx_sm};
        return ptx_emit_module(m, &target, &run->out, &run->d);
    }
    ir_print_options print = {.locations = locations != 0};
    ir_print_module(m, &print, &run->out);
    if (run->out.oom) {
        diag_error(&run->d, DIAG_NOMEM, "out of memory while printing the IR");
        return false;
    }
    return true;
}

static swage_status run_ir(const char *api, const char *ir_text, const char *file_name,
                           const char *passes, const char *print_after, int locations, int ptx_sm,
                           char **text, swage_error **error)
{
    if (error)
        *error = NULL;
    if (!text)
        return api_fail_argument(error, "%s: 'text' must not be NULL", api);
    *text = NULL;
    if (!ir_text)
        return api_fail_argument(error, "%s: 'ir_text' must not be NULL", api);
    ir_run run;
    memset(&run, 0, sizeof run);
    arena_init(&run.ar);
    diag_init(&run.d);
    sb_init(&run.out);
    bool ok = run_guarded(&run, ir_text, file_name, passes, print_after, locations, ptx_sm);
    run.d.bail = NULL;
    swage_status status = SWAGE_OK;
    if (ok)
        *text = sb_take(&run.out);
    else
        status = api_fail(error, &run.d);
    sb_free(&run.out);
    for (int i = 0; i < run.npasses; i++)
        free((void *)run.names[i]);
    free((void *)run.names);
    arena_free(&run.ar);
    return status;
}

SWAGE_API swage_status swageIrRunPasses(const char *ir_text, const char *file_name, const char *passes,
                                        const char *print_after, int locations, char **text,
                                        swage_error **error)
{
    return run_ir("swageIrRunPasses", ir_text, file_name, passes, print_after, locations, 0, text,
                  error);
}

SWAGE_API swage_status swageIrEmitPtx(const char *ir_text, const char *file_name, const char *passes,
                                      int sm, char **text, swage_error **error)
{
    if (sm <= 0)
        return api_fail_argument(error, "swageIrEmitPtx: sm must be a compute capability such as 90");
    return run_ir("swageIrEmitPtx", ir_text, file_name, passes, NULL, 0, sm, text, error);
}
