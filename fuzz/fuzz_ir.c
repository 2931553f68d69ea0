/* fuzz_ir.c - the IR text parser, the verifier and the passes.
 *
 * Input: MLIR text (swage-opt's input). Every input that parses and
 * verifies must print back the same through print -> parse -> print (with
 * and without locations); then two pass pipelines, picked from the input's
 * hash among those below (and the one a first line "// passes: LIST"
 * names), run on it, and a third emits PTX. Whatever a pipeline returns
 * must itself print back the same.
 *
 * Findings: an internal error (a pass that produces invalid IR, a broken
 * invariant); printed IR that does not parse back or prints differently;
 * and whatever the sanitizers and the driver catch.
 */
#include "fuzz.h"
#include "swage.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pipelines[] = {
    "fold", "cse", "dce", "stages", "fold,cse,fold,dce,stages", "lower-simt",
    "fold,cse,dce,lower-simt", "lower-segments,lower-simt,plan-link",
    "lower-segments-subwarp,lower-simt,plan-link", "lower-segments-warp,lower-simt,plan-link",
    "lower-segments-cta,lower-simt", "lower-segments-split,lower-simt,plan-link",
    "lower-segments-persistent,lower-simt,plan-link", "stages,lower-segments", "plan-link",
};
enum { NPIPELINES = sizeof pipelines / sizeof pipelines[0] };

/* The op names and types come from the IR's own tables (see init). */
static const char *dict[IR_OP_COUNT + DT_COUNT * 3 + 64];

static void init(void)
{
    static const char *const extra[] = {
        "module {\n", "func.func @f(", ") {\n", "}\n", "\"func.return\"() : () -> ()\n", "%0",
        "%1", "%a", "^bb0(", "({\n", "}, {\n", "})", " : (", ") -> ", "()", "!sw.ptr<f32>",
        "!sw.ptr<i64>", "tensor<64xf32>", "tensor<?xf32>", "tensor<4x!sw.ptr<f32>>",
        "!sw.segment<f32>", "{value = ", " : i32}", " : i64}", " : f32}", "true", "false",
        "{axis = 0 : i32}", "{kind = \"sum\"}", "{predicate = \"lt\"}", "attributes {",
        "simt.num_threads = 128 : i32", "sw.block_threads = 64 : i32", "loc(\"f.py\":1:2)",
        "// -----\n", "0x7F800000", "\"", "#",
        "{kind = \"add\", scope = \"gpu\", sem = \"relaxed\"}", "{scope = \"sys\", sem = \"acquire\"}",
        "\"xchg\"", "\"acq_rel\"", NULL,
    };
    size_t n = 0;
    for (int k = 0; k < IR_OP_COUNT; k++)
        dict[n++] = ir_ops[k].name;
    for (int d = 1; d < DT_COUNT; d++)
        dict[n++] = ir_dtypes[d].name;
    for (size_t i = 0; extra[i]; i++)
        dict[n++] = extra[i];
    dict[n] = NULL;
}

/* What the inputs reached, for the report. */
static long inputs, verified, pipelines_ok;

static void report(void)
{
    printf("fuzz_ir: %ld inputs: %ld parsed and verified, %ld pipelines ran through\n", inputs,
           verified, pipelines_ok);
}

static void check(const char *what, swage_status st, swage_error **ep)
{
    swage_error *e = *ep; /* read after the call has set it */
    *ep = NULL;
    if (st == SWAGE_ERROR_INTERNAL)
        fuzz_fail("%s: internal error: %s", what, swageErrorRendered(e));
    swageErrorDestroy(e);
}

/* text was printed by swage: it must parse, verify and print the same. */
static void roundtrip(const char *what, const char *text, int locations)
{
    char *again = NULL;
    swage_error *e = NULL;
    swage_status st = swageIrRunPasses(text, "printed.mlir", NULL, NULL, locations, &again, &e);
    if (st != SWAGE_OK)
        fuzz_fail("%s: the printed IR does not parse back: %s\n%s", what, swageErrorRendered(e), text);
    if (strcmp(again, text))
        fuzz_fail("%s: print -> parse -> print differs:\n%s--- printed again:\n%s", what, text, again);
    swageFree(again);
}

static void run(const uint8_t *data, size_t n)
{
    char *text = fuzz_strndup(data, n);
    inputs++;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ data[i]) * 1099511628211ULL;
    for (int locations = 0; locations < 2; locations++) {
        char *printed = NULL;
        swage_error *e = NULL;
        swage_status st = swageIrRunPasses(text, "fuzz.mlir", NULL, NULL, locations, &printed, &e);
        check("parse", st, &e);
        if (st != SWAGE_OK) {
            free(text);
            return; /* it does not verify: nothing more to check */
        }
        roundtrip("print -> parse -> print", printed, locations);
        swageFree(printed);
    }
    verified++;
    /* A first line "// passes: LIST" adds that pipeline (regression files
     * name the one they need). */
    char *named = NULL;
    if (n > 11 && !memcmp(text, "// passes: ", 11)) {
        size_t end = strcspn(text + 11, "\n");
        named = fuzz_strndup((const uint8_t *)text + 11, end);
    }
    for (int i = named ? -1 : 0; i < 2; i++) {
        const char *passes = i < 0 ? named : pipelines[(h >> (i * 8)) % NPIPELINES];
        char *out = NULL;
        swage_error *e = NULL;
        swage_status st = swageIrRunPasses(text, "fuzz.mlir", passes, NULL, (int)(h >> 20) & 1, &out, &e);
        check(passes, st, &e);
        pipelines_ok += st == SWAGE_OK;
        if (st == SWAGE_OK)
            roundtrip(passes, out, (int)(h >> 20) & 1);
        swageFree(out);
    }
    free(named);
    static const char *const to_ptx[] = {"", "lower-simt", "fold,cse,dce,lower-simt",
                                         "lower-segments,lower-simt,plan-link"};
    static const int sms[] = {90, 80, 70};
    char *ptx = NULL;
    swage_error *e = NULL;
    check("PTX", swageIrEmitPtx(text, "fuzz.mlir", to_ptx[(h >> 24) % 4], sms[(h >> 28) % 3], &ptx, &e), &e);
    swageFree(ptx);
    free(text);
}

const fuzz_target fuzz_this = {
    .name = "ir",
    .ext = ".mlir",
    .max_len = 16384,
    .dict = dict,
    .init = init,
    .run = run,
    .report = report,
};
