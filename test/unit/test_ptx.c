/* test_ptx.c - unit tests of the PTX emitter: hand-written SIMT IR (vector
 * add, vectorised loads and stores of every width, reductions with
 * shuffles and shared memory, loops, branches, 2-D grids) and generated
 * matrices (every elementwise op and comparison on every dtype, every cast)
 * -> PTX for sm_90 and sm_80, checked for key instructions and assembled
 * by ptxas: $SWAGE_PTXAS when set (`make test` sets it to the machine's
 * ptxas or to the one it installed from PyPI; "none" skips the assembly),
 * else the first on PATH, else $CUDA_HOME/bin or /usr/local/cuda/bin.
 * Without ptxas it says so loudly, and counts a failure only when
 * SWAGE_REQUIRE_PTXAS=1. Last line: "N passed, N failed". */
#include "ptx_kernels.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) {                                                                      \
            passed++;                                                                    \
        } else {                                                                         \
            failed++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

/* ---- ptxas ---------------------------------------------------------------------- */

static char ptxas[512];

static bool executable(const char *path) { return access(path, X_OK) == 0; }

static void find_ptxas(void)
{
    const char *given = getenv("SWAGE_PTXAS");
    if (given && !strcmp(given, "none")) { /* make test PTXAS=none: no assembly */
        ptxas[0] = 0;
        return;
    }
    if (given && *given) {
        snprintf(ptxas, sizeof ptxas, "%s", given);
        if (!executable(ptxas)) {
            printf("SWAGE_PTXAS=%s is not an executable file\n", given);
            ptxas[0] = 0;
        }
        return;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        snprintf(ptxas, sizeof ptxas, "%.*s/ptxas", (int)n, path);
        if (n && executable(ptxas))
            return;
        path = end ? end + 1 : NULL;
    }
    const char *home = getenv("CUDA_HOME");
    snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", home ? home : "/usr/local/cuda");
    if (executable(ptxas))
        return;
    snprintf(ptxas, sizeof ptxas, "/usr/local/cuda/bin/ptxas");
    if (!executable(ptxas))
        ptxas[0] = 0;
}

static void print_numbered(const char *text)
{
    int line = 1;
    fprintf(stderr, "%5d  ", line);
    for (const char *p = text; *p; p++) {
        fputc(*p, stderr);
        if (*p == '\n' && p[1])
            fprintf(stderr, "%5d  ", ++line);
    }
}

/* Runs ptxas -arch=sm_<sm> on the text; prints its complaint and the PTX on failure. */
static bool assemble(const char *what, const char *ptx, int sm)
{
    if (!ptxas[0])
        return true;
    char path[] = "/tmp/swage-test-ptx-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return false;
    }
    size_t n = strlen(ptx);
    bool wrote = write(fd, ptx, n) == (ssize_t)n;
    close(fd);
    char cmd[1200], out[8192] = "";
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d -o /dev/null '%s' 2>&1", ptxas, sm, path);
    FILE *p = wrote ? popen(cmd, "r") : NULL;
    size_t len = 0;
    while (p && len + 1 < sizeof out) {
        size_t got = fread(out + len, 1, sizeof out - 1 - len, p);
        if (!got)
            break;
        len += got;
    }
    out[len] = 0;
    int status = p ? pclose(p) : -1;
    unlink(path);
    bool ok = status == 0 && !strstr(out, "error");
    if (!ok) {
        fprintf(stderr, "ptxas -arch=sm_%d rejected %s:\n%s\n---- PTX ----\n", sm, what, out);
        print_numbered(ptx);
    }
    return ok;
}

/* ---- helpers ------------------------------------------------------------------------ */

/* Emits for sm (PTX version chosen by the emitter), checks success and
 * ptxas; returns the text (caller frees) or NULL. */
static char *compile_for(const char *what, const char *mlir, int sm)
{
    diag d;
    diag_init(&d);
    char *text = emit_ptx_text(mlir, sm, 0, true, &d);
    CHECK(text != NULL);
    if (!text) {
        fprintf(stderr, "%s (sm_%d): %s\n", what, sm, d.rendered ? d.rendered : d.message);
        diag_clear(&d);
        return NULL;
    }
    diag_clear(&d);
    CHECK(assemble(what, text, sm));
    return text;
}

/* Compiles for sm_90 and sm_80; checks that every needle (NULL-terminated
 * list) occurs in both texts. */
static void check_kernel(const char *what, const char *mlir, ...)
{
    char *t90 = compile_for(what, mlir, 90), *t80 = compile_for(what, mlir, 80);
    va_list ap;
    va_start(ap, mlir);
    for (const char *needle; (needle = va_arg(ap, const char *));) {
        bool ok = t90 && t80 && strstr(t90, needle) && strstr(t80, needle);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "%s: PTX lacks \"%s\"\n%s", what, needle, t90 ? t90 : "(no PTX)\n");
    }
    va_end(ap);
    free(t90);
    free(t80);
}

/* Expects emission to fail with `kind` and a message containing `text`. */
static void check_error(const char *what, const char *mlir, int sm, int version, bool verify,
                        diag_kind kind, const char *text)
{
    diag d;
    diag_init(&d);
    char *ptx = emit_ptx_text(mlir, sm, version, verify, &d);
    CHECK(ptx == NULL);
    CHECK(d.kind == kind);
    bool has = d.message && strstr(d.message, text);
    CHECK(has);
    if (ptx || d.kind != kind || !has)
        fprintf(stderr, "%s: expected error containing \"%s\", got: %s\n", what, text,
                d.message ? d.message : "(success)");
    free(ptx);
    diag_clear(&d);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- hand-written kernels ----------------------------------------------------------- */



static void test_vector_add(void)
{
    check_kernel("vector add", vector_add, ".visible .entry add_kernel(", ".param .u64 add_kernel_param_0",
                 ".param .s32 add_kernel_param_3", ".maxntid 128, 1, 1", "cvta.to.global.u64",
                 "%ctaid.x", "%tid.x", "ld.global.v4.f32", "st.global.v4.f32", "add.rn.f32",
                 "setp.lt.s32", "mul.wide.s32", "@%p", "ret;", NULL);
    char *t = compile_for("vector add", vector_add, 90);
    if (t) {
        CHECK(strstr(t, ".version 7.8\n.target sm_90\n.address_size 64"));
        CHECK(count(t, "ld.global.v4.f32") == 2); /* one per load: one group of 4 */
        CHECK(count(t, "@%p") >= 12);             /* the predicated per-slot paths */
        CHECK(strstr(t, ".shared") == NULL);
        CHECK(strstr(t, ".reg .f32 %f<"));
    }
    free(t);
    t = compile_for("vector add", vector_add, 80);
    if (t)
        CHECK(strstr(t, ".version 7.0\n.target sm_80\n"));
    free(t);
}


static void test_vector_widths(void)
{
    static const struct {
        const char *type;
        int v, k;
        const char *load, *store, *unpack;
    } cases[] = {
        {"f32", 4, 4, "ld.global.v4.f32", "st.global.v4.f32", NULL},
        {"i32", 4, 2, "ld.global.v2.s32", "st.global.v2.s32", NULL},
        {"f32", 8, 4, "ld.global.v4.f32", "st.global.v4.f32", NULL}, /* two chunks of 4 slots */
        {"f64", 4, 4, "ld.global.v2.f64", "st.global.v2.f64", NULL},
        {"i64", 2, 2, "ld.global.v2.s64", "st.global.v2.s64", NULL},
        {"f16", 8, 4, "ld.global.v2.b32", "st.global.v2.b32", "mov.b32 {"},
        {"bf16", 2, 2, "ld.global.b32", "st.global.b32", "mov.b32 {"},
        {"i8", 4, 4, "ld.global.b32", "st.global.b32", "bfe.s32"},
        {"ui8", 2, 2, "ld.global.u16", "st.global.u16", "bfe.u32"},
        {"i1", 16, 4, "ld.global.b32", "st.global.b32", "bfi.b32"},
        {"f32", 4, 1, "ld.global.f32", "st.global.f32", NULL}, /* vec = 1: per slot only */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *mlir = copy_kernel(cases[i].type, cases[i].v, cases[i].k);
        char what[64];
        snprintf(what, sizeof what, "copy vector<%dx%s> vec=%d", cases[i].v, cases[i].type, cases[i].k);
        check_kernel(what, mlir, cases[i].load, cases[i].store, cases[i].unpack, NULL);
        char *t = compile_for(what, mlir, 90);
        if (t && cases[i].k > 1)
            CHECK(count(t, "and.b64") == 2 * (cases[i].v / cases[i].k)); /* an alignment test per group */
        if (t && cases[i].k == 1)
            CHECK(strstr(t, ".v2") == NULL && strstr(t, ".v4") == NULL && strstr(t, "and.b64") == NULL);
        free(t);
        free(mlir);
    }
}


static void test_reductions(void)
{
    char *mlir = reduce_kernel("f32", "sum", "sw.add");
    check_kernel("f32 sum", mlir, "shfl.sync.bfly.b32", ", 16, 0x1f, 0xffffffff;", ", 1, 0x1f, 0xffffffff;",
                 ".shared .align 16 .b8 smem[64];", "mov.u32 %r1, smem;", "st.shared.f32", "ld.shared.f32",
                 "bar.sync 0;", "ld.global.v4.f32", NULL);
    char *t = compile_for("f32 sum", mlir, 90);
    if (t) {
        CHECK(count(t, "shfl.sync.bfly.b32") == 5);
        CHECK(count(t, "bar.sync 0;") == 2);
        CHECK(count(t, "ld.shared.f32") == 8);
    }
    free(t);
    free(mlir);

    mlir = reduce_kernel("f64", "max", "sw.maximum");
    check_kernel("f64 max", mlir, "mov.b64 {", "max.f64", "setp.nan.f64", "st.shared.f64", NULL);
    t = compile_for("f64 max", mlir, 90);
    if (t)
        CHECK(count(t, "shfl.sync.bfly.b32") == 10); /* two halves per step */
    free(t);
    free(mlir);

    mlir = reduce_kernel("i64", "sum", "sw.add");
    check_kernel("i64 sum", mlir, "mov.b64 {", "add.s64", "st.shared.s64", "ld.shared.s64", NULL);
    free(mlir);
    mlir = reduce_kernel("i32", "min", "sw.minimum");
    check_kernel("i32 min", mlir, "min.s32", "st.shared.s32", NULL);
    free(mlir);
}


static void test_loops(void)
{
    check_kernel("loops", loops, "setp.gt.s32", "shr.u32", "bra $L__", "$L__1:",
                 ".param .s64 loops_param_2", NULL);
    char *t = compile_for("loops", loops, 90);
    if (t) {
        /* the constant step -2 of 32-bit bounds shifts a 32-bit count; the
         * run-time step divides not */
        CHECK(count(t, "shr.u32") == 1);
        CHECK(count(t, "div.u") == 0);
        CHECK(count(t, "cvt.s64.s32") == 0);   /* 32-bit bounds stay 32-bit */
        CHECK(count(t, "setp.gt.u64") == 1);   /* it compares the distance left with the step */
        CHECK(count(t, "setp.ne.s32") >= 3);   /* constant-step loops count their trips down */
        CHECK(strstr(t, "add.s32") != NULL);   /* the i32 induction variables step */
        CHECK(strstr(t, "add.s64") != NULL);
    }
    free(t);
}


static void test_branches_and_grids(void)
{
    check_kernel("branches", branches, "%ctaid.y", "%nctaid.x", "%nctaid.z", "@!%p", "ld.param.u8",
                 ".param .u8 branches_param_1", ".param .b16 branches_param_2", "ld.param.b16",
                 "cvt.f32.f16", "cvt.f32.bf16", "cvt.rzi.s64.f32", "rem.u32", "mad.lo.s32",
                 "st.global.v2.s64", NULL);
    char *t = compile_for("branches", branches, 80);
    if (t)
        CHECK(strstr(t, ".version 7.1\n")); /* cvt.f32.bf16 needs PTX ISA 7.1 */
    free(t);
}

/* ---- generated matrices -------------------------------------------------------------------- */

static void test_elementwise_matrix(void)
{
    for (int i = 0; i < NDTYPES; i++) {
        ir_dtype dt = all_dtypes[i];
        int nout;
        char *mlir = gen_elementwise(dt, &nout);
        char what[64];
        snprintf(what, sizeof what, "elementwise ops on %s", dt_name(dt));
        char *t90 = compile_for(what, mlir, 90), *t80 = compile_for(what, mlir, 80);
        if (t90 && dt == DT_F32) {
            static const char *const needles[] = {
                "add.rn.f32", "sub.rn.f32", "mul.rn.f32", "div.rn.f32", "cvt.rmi.f64.f64",
                "min.NaN.f32", "max.NaN.f32", "neg.f32", "abs.f32", "ex2.approx.f32",
                "lg2.approx.f32", "sqrt.rn.f32", "sqrt.rn.f64", "rcp.rn.f64", "cvt.rmi.f32.f32",
                "cvt.rpi.f32.f32", "sin.approx.f32", "cos.approx.f32", "setp.neu.f32",
                "setp.lt.f32", "setp.ge.f32", "selp.f32", "copysign.f64"};
            for (size_t n = 0; n < sizeof needles / sizeof needles[0]; n++) {
                bool has = strstr(t90, needles[n]) != NULL;
                CHECK(has);
                if (!has)
                    fprintf(stderr, "f32 matrix lacks %s\n", needles[n]);
            }
            CHECK(strstr(t90, "div.approx") == NULL && strstr(t90, ".ftz") == NULL);
        }
        if (t90 && dt == DT_I32) {
            CHECK(strstr(t90, "mul.lo.s32") && strstr(t90, "div.s32") && strstr(t90, "rem.s32"));
            CHECK(strstr(t90, "shl.b32") && strstr(t90, "shr.s32") && strstr(t90, "not.b32"));
        }
        if (t90 && dt == DT_I8)
            CHECK(count(t90, "cvt.s32.s8") >= 8); /* wrapped after every op that can overflow */
        if (t90 && dt == DT_U8)
            CHECK(count(t90, "and.b32") >= 6);
        if (t90 && dt == DT_I1)
            CHECK(strstr(t90, "xor.pred") && strstr(t90, "and.pred") && strstr(t90, "not.pred"));
        if (t90 && (dt == DT_F16 || dt == DT_BF16)) {
            const char *fmt = dt == DT_F16 ? "f16" : "bf16";
            char down[32];
            snprintf(down, sizeof down, "cvt.rn.%s.f32", fmt);
            CHECK(strstr(t90, down) != NULL);
            CHECK(strstr(t90, "selp.b16") != NULL && strstr(t90, "xor.b16") != NULL);
        }
        if (t90 && dt == DT_I64)
            CHECK(strstr(t90, "shl.b64") && strstr(t90, "cvt.u32.u64") && strstr(t90, "rem.s64"));
        free(t90);
        free(t80);
        free(mlir);
    }
}

static void test_cast_matrix(void)
{
    for (int i = 0; i < NDTYPES; i++) {
        char *mlir = gen_casts(all_dtypes[i]);
        char what[64];
        snprintf(what, sizeof what, "casts from %s", dt_name(all_dtypes[i]));
        char *t90 = compile_for(what, mlir, 90), *t80 = compile_for(what, mlir, 80);
        if (t90 && all_dtypes[i] == DT_F64) /* round to odd before a 16-bit format */
            CHECK(strstr(t90, "cvt.rz.f32.f64") && strstr(t90, "cvt.rn.bf16.f32") &&
                  strstr(t90, "setp.nan.f64"));
        if (t90 && all_dtypes[i] == DT_F32)
            CHECK(strstr(t90, "cvt.rzi.s32.f32") && strstr(t90, "min.s32") && strstr(t90, "setp.neu.f32"));
        if (t90 && all_dtypes[i] == DT_I1)
            CHECK(strstr(t90, "selp.b16") && strstr(t90, "0x3F80") && strstr(t90, "0x3C00"));
        free(t90);
        free(t80);
        free(mlir);
    }
}

/* ---- errors and targets ------------------------------------------------------------------- */

static const char f64_math[] =
    FUNC("f64math", "%x: f64", 32, 0)
    "    %e = \"sw.exp\"(%x) : (f64) -> f64\n"
    "    %e2 = \"sw.exp2\"(%x) : (f64) -> f64\n"
    "    %l = \"sw.log\"(%x) : (f64) -> f64\n"
    "    %l2 = \"sw.log2\"(%x) : (f64) -> f64\n"
    "    %s = \"sw.sin\"(%x) : (f64) -> f64\n"
    "    %c = \"sw.cos\"(%x) : (f64) -> f64\n"
    "    %g = \"sw.sigmoid\"(%x) : (f64) -> f64\n"
    END;

static const char f64_exp[] =
    FUNC("f64exp", "%x: f64", 32, 0)
    "    %e = \"sw.exp\"(%x) : (f64) -> f64\n"
    END;

static const char semantic[] =
    "module {\n  func.func @semantic(%x: i32) {\n"
    "    %p = \"sw.program_id\"() {axis = 0 : i32} : () -> i32\n"
    END;

static const char semantic_op_in_simt[] =
    FUNC("mixed", "%x: i32", 32, 0)
    "    %p = \"sw.program_id\"() {axis = 0 : i32} : () -> i32\n"
    END;

static const char tiny[] =
    FUNC("tiny", "%out: !sw.ptr<bf16>", 32, 0)
    "    %r = \"simt.tile_index\"() {len = 32 : i32, start = 0 : i32} : () -> vector<1xi32>\n"
    "    %f = \"sw.cast\"(%r) : (vector<1xi32>) -> vector<1xf32>\n"
    "    %h = \"sw.cast\"(%f) : (vector<1xf32>) -> vector<1xbf16>\n"
    "    %os = \"sw.splat\"(%out) : (!sw.ptr<bf16>) -> vector<1x!sw.ptr<bf16>>\n"
    "    %op = \"sw.addptr\"(%os, %r) : (vector<1x!sw.ptr<bf16>>, vector<1xi32>) -> vector<1x!sw.ptr<bf16>>\n"
    "    \"simt.store\"(%op, %h) {vec = 1 : i32} : (vector<1x!sw.ptr<bf16>>, vector<1xbf16>) -> ()\n"
    END;

static void test_errors_and_targets(void)
{
    {
        /* float64 math is software (ptx_ops.c); sin and cos bring the
         * module-level table of 2/pi, and only they do */
        diag d;
        diag_init(&d);
        for (int sm = 80; sm <= 90; sm += 10) {
            char *t = emit_ptx_text(f64_math, sm, 0, true, &d);
            CHECK(t && strstr(t, ".const .align 8 .b64 __swage_two_over_pi[21] = {0x0000000000000000, "
                                 "0xA2F9836E4E441529,"));
            CHECK(t && strstr(t, "ld.const.u64") && strstr(t, "clz.b64") && strstr(t, "div.rn.f64"));
            CHECK(t && assemble(sm == 90 ? "f64 math sm_90" : "f64 math sm_80", t, sm));
            free(t);
        }
        char *t = emit_ptx_text(f64_exp, 90, 0, true, &d);
        CHECK(t && !strstr(t, "__swage_two_over_pi") && strstr(t, "fma.rn.f64"));
        CHECK(t && assemble("f64 exp", t, 90));
        free(t);
        CHECK(!diag_failed(&d));
        diag_clear(&d);
    }
    check_error("semantic IR", semantic, 90, 0, true, DIAG_COMPILE, "is not SIMT IR");
    check_error("semantic op in SIMT IR", semantic_op_in_simt, 90, 0, false, DIAG_INTERNAL, "'sw.program_id'");
    check_error("sm_75", tiny, 75, 0, true, DIAG_ARGUMENT, "does not support sm_75");
    check_error("old PTX", tiny, 90, 70, true, DIAG_ARGUMENT, "PTX ISA 7.0 is too old");

    diag d;
    diag_init(&d);
    char *t = emit_ptx_text(tiny, 90, 83, true, &d);
    CHECK(t && strstr(t, ".version 8.3\n.target sm_90\n"));
    CHECK(t && assemble("tiny at PTX 8.3", t, 90));
    free(t);
    t = emit_ptx_text(tiny, 80, 0, true, &d);
    CHECK(t && strstr(t, ".version 7.0\n.target sm_80\n")); /* f32 -> bf16 only needs 7.0 */
    CHECK(t && assemble("tiny at sm_80", t, 80));
    free(t);
    t = emit_ptx_text(tiny, 120, 0, true, &d);
    CHECK(t && strstr(t, ".version 8.7\n.target sm_120\n"));
    free(t);
    diag_clear(&d);

    /* The output buffer is appended to, never clobbered; a failed emission
     * leaves it as it was. */
    arena ar;
    arena_init(&ar);
    source_file src = {.name = "t.mlir", .text = semantic, .length = strlen(semantic), .first_line = 1};
    ir_module *m = ir_parse_module(&ar, &src, &d);
    strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "keep");
    ptx_target target = {.sm = 90};
    CHECK(m && !ptx_emit_module(m, &target, &sb, &d));
    CHECK(sb.len == 4 && !memcmp(sb.data, "keep", 4));
    sb_free(&sb);
    arena_free(&ar);
    diag_clear(&d);
}

int main(void)
{
    find_ptxas();
    if (ptxas[0]) {
        printf("using %s\n", ptxas);
    } else {
        const char *req = getenv("SWAGE_REQUIRE_PTXAS");
        bool required = req && !strcmp(req, "1");
        printf("**********************************************************\n"
               "*** ptxas not found: PTX not assembled (%s) ***\n"
               "**********************************************************\n",
               required ? "SWAGE_REQUIRE_PTXAS=1: counted as a failure" : "set SWAGE_REQUIRE_PTXAS=1 to fail");
        if (required)
            failed++;
    }
    test_vector_add();
    test_vector_widths();
    test_reductions();
    test_loops();
    test_branches_and_grids();
    test_elementwise_matrix();
    test_cast_matrix();
    test_errors_and_targets();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
