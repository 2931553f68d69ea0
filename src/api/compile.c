/* compile.c - swageKernelCompile and the process-wide compile cache; kernel
 * queries, MLIR emission and CPU launch. A cached kernel is immutable after
 * it is published, so every query and launch may run on many threads. */
#include "api_internal.h"
#include "../frontend/ast.h"
#include "../frontend/irgen.h"
#include "../passes/lower_segments.h"
#include "../passes/passes.h"
#include "../backends/cpu/cpu_exec.h"
#include "../ir/scalar.h"

#include <math.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { CACHE_BUCKETS = 256 };
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static swage_kernel *cache[CACHE_BUCKETS];
static int64_t cached_kernels; /* under cache_lock */

static void key_put(strbuf *sb, const char *s)
{
    /* Length-prefixed fields: no separator can be confused with content. */
    size_t n = s ? strlen(s) : 0;
    sb_printf(sb, "%zu:", n);
    if (n)
        sb_putn(sb, s, n);
}

/* The source's bytes: source_length of them, or up to its NUL when 0. */
static size_t source_length(const swage_kernel_spec *s)
{
    return s->source_length ? s->source_length : strlen(s->source);
}

static char *spec_key(const swage_kernel_spec *s, size_t *len)
{
    strbuf sb;
    sb_init(&sb);
    /* All source_length bytes: a source with a NUL byte must not find the
     * kernel of the text before it. */
    sb_printf(&sb, "%zu:", source_length(s));
    sb_putn(&sb, s->source, source_length(s));
    key_put(&sb, s->file_name);
    key_put(&sb, s->kernel_name);
    key_put(&sb, s->signature);
    key_put(&sb, s->constexprs);
    sb_printf(&sb, "%d:%d:%d", s->first_line, s->extract != 0, s->num_threads);
    for (int i = 0; i < s->nfunctions; i++) {
        const swage_function_source *f = &s->functions[i];
        size_t n = f->source_length ? f->source_length : strlen(f->source);
        key_put(&sb, f->name);
        sb_printf(&sb, "%zu:", n);
        sb_putn(&sb, f->source, n);
        key_put(&sb, f->file_name);
        sb_printf(&sb, "%d;", f->first_line);
    }
    *len = sb.len;
    if (sb.oom) {
        sb_free(&sb);
        return NULL;
    }
    return sb_take(&sb);
}

static swage_kernel *cache_find(const char *key, size_t len, uint64_t hash)
{
    for (swage_kernel *k = cache[hash % CACHE_BUCKETS]; k; k = k->next)
        if (k->hash == hash && k->key_len == len && !memcmp(k->key, key, len))
            return k;
    return NULL;
}

static void kernel_destroy(swage_kernel *k)
{
    if (!k)
        return;
    pthread_mutex_destroy(&k->lock);
    arena ar = k->ar;
    arena_free(&ar);
}

static const char *print_text(swage_kernel *k, bool locations)
{
    strbuf sb;
    sb_init(&sb);
    ir_print_options o = {.locations = locations};
    ir_print_module(k->module, &o, &sb);
    const char *t = arena_strndup(&k->ar, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return t;
}

static void record_params(swage_kernel *k, const irgen_result *r)
{
    k->nparams = r->nparams;
    k->params = arena_alloc(&k->ar, sizeof(kernel_param) * (size_t)(r->nparams + 1));
    for (int i = 0; i < r->nparams; i++) {
        kernel_param *p = &k->params[i];
        p->name = arena_strdup(&k->ar, r->params[i].name);
        p->is_constexpr = r->params[i].is_constexpr;
        if (p->is_constexpr) {
            p->type = "";
            continue;
        }
        k->nruntime++;
        strbuf sb;
        sb_init(&sb);
        spec_print_type(r->params[i].type, &sb);
        p->type = arena_strndup(&k->ar, sb.data ? sb.data : "", sb.len);
        sb_free(&sb);
    }
}

/* What launching a segment program needs (docs/segments.md): the offsets
 * argument gives the grid, and the schedule's hidden parameters are filled
 * from the buffer arguments' element counts. Block arguments of the
 * semantic function are the runtime parameters, in order. */
static bool record_segments(swage_kernel *k, diag *d)
{
    segment_params sp;
    if (!segments_params(k->module, ir_module_func(k->module), &sp, d))
        return false;
    k->is_segment = sp.is_segment_program;
    k->segment_offsets = sp.offsets;
    k->nhidden = sp.nhidden;
    k->hidden_source = sp.hidden_source;
    return true;
}

static swage_kernel *compile_into(swage_kernel *k, const swage_kernel_spec *spec, diag *d);

/* A NUL byte would end the text for every C string function after this
 * point (and for the C library that wrote the caller's buffer): the source
 * must have none. The diagnostic shows the line up to the byte, with the
 * caret on it. */
static bool check_no_nul(source_file *file, diag *d)
{
    const char *nul = memchr(file->text, 0, file->length);
    if (!nul)
        return true;
    src_loc loc = {1, 1};
    for (const char *p = file->text; p < nul; p++) {
        if (*p == '\n') {
            loc.line++;
            loc.col = 1;
        } else {
            loc.col++;
        }
    }
    source_file upto = *file;
    upto.length = (size_t)(nul - file->text);
    diag_error_at(d, DIAG_COMPILE, &upto, loc, "the source contains a NUL byte (byte %zu); Python "
                  "source cannot contain null bytes", upto.length);
    return false;
}

/* Compiles into a fresh kernel; returns NULL with d set. */
static swage_kernel *compile_fresh(const swage_kernel_spec *spec, diag *d)
{
    swage_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return NULL;
    }
    arena_init(&k->ar);
    /* The kernel's memory lives in its own arena; the record itself moves
     * into it so that one arena_free releases everything. */
    swage_kernel *rec = arena_alloc(&k->ar, sizeof *rec);
    rec->ar = k->ar;
    pthread_mutex_init(&rec->lock, NULL);
    free(k);
    return compile_into(rec, spec, d);
}

/* The functions the kernel may call, copied into the kernel's arena. */
static bool function_table(arena *a, const swage_kernel_spec *spec, const source_file *file,
                           irgen_functions *out, diag *d)
{
    int n = spec->nfunctions;
    const char **names = arena_alloc(a, sizeof(char *) * (size_t)(n + 1));
    source_file *sources = arena_alloc(a, sizeof(source_file) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        const swage_function_source *f = &spec->functions[i];
        size_t length = f->source_length ? f->source_length : strlen(f->source);
        names[i] = arena_strdup(a, f->name);
        sources[i] = (source_file){
            .name = arena_strdup(a, f->file_name ? f->file_name : "<kernel>"),
            .text = arena_strndup(a, f->source, length),
            .length = length,
            .first_line = f->first_line > 0 ? f->first_line : 1,
        };
        if (!names[i] || !sources[i].name || !sources[i].text) {
            diag_error(d, DIAG_NOMEM, "out of memory");
            return false;
        }
        if (!check_no_nul(&sources[i], d))
            return false;
    }
    *out = (irgen_functions){.n = n, .names = names, .sources = sources, .file = file};
    return true;
}

/* Compiles into k (which owns its arena); frees k and returns NULL on error. */
static swage_kernel *compile_into(swage_kernel *k, const swage_kernel_spec *spec, diag *d)
{

    jmp_buf bail;
    d->bail = &bail;
    if (setjmp(bail)) {
        d->bail = NULL;
        kernel_destroy(k);
        return NULL;
    }
    arena *a = &k->ar;
    size_t length = source_length(spec);
    source_file file = {
        .name = arena_strdup(a, spec->file_name ? spec->file_name : "<kernel>"),
        .text = arena_strndup(a, spec->source, length),
        .length = length,
        .first_line = spec->first_line > 0 ? spec->first_line : 1,
    };
    if (!file.name || !file.text) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        goto fail;
    }
    if (!check_no_nul(&file, d))
        goto fail;
    source_file src = file;
    if (spec->extract) {
        if (!spec->kernel_name || !*spec->kernel_name) {
            diag_error(d, DIAG_ARGUMENT, "a kernel name is needed to find a kernel in a whole file");
            goto fail;
        }
        if (!extract_kernel_source(&file, spec->kernel_name, &src, d))
            goto fail;
    }
    ast_func *fn = parse_kernel(a, &src, d);
    if (!fn)
        goto fail;
    if (spec->kernel_name && *spec->kernel_name && strcmp(fn->name, spec->kernel_name)) {
        diag_error(d, DIAG_ARGUMENT, "the source defines '%s', not '%s'", fn->name, spec->kernel_name);
        goto fail;
    }
    kernel_spec ks;
    if (!spec_parse(a, spec->signature, spec->constexprs, &ks, d))
        goto fail;
    irgen_functions fns = {0};
    if (!function_table(a, spec, spec->extract ? &file : NULL, &fns, d))
        goto fail;
    irgen_result r;
    if (!irgen_kernel_calls(a, &src, fn, &ks, &fns, &r, d))
        goto fail;
    k->module = r.module;
    k->name = fn->name;
    record_params(k, &r);
    diag vd;
    diag_init(&vd);
    if (!ir_verify(k->module, &vd)) {
        /* vd's strings are malloc'd: free them before sw_unreachable unwinds. */
        const char *why = arena_strdup(a, vd.message ? vd.message : "?");
        diag_clear(&vd);
        sw_unreachable(d, "the frontend produced invalid IR: %s", why ? why : "?");
        goto fail;
    }
    k->stage_text[SWAGE_STAGE_SOURCE][0] = print_text(k, false);
    k->stage_text[SWAGE_STAGE_SOURCE][1] = print_text(k, true);
    if (!pass_run_default(k->module, NULL, d) || !record_segments(k, d))
        goto fail;
    if (spec->num_threads && !k->is_segment) /* the CTA lower-simt makes (docs/simt.md) */
        ir_attr_set_int(k->module, ir_module_func(k->module), "sw.block_threads", ir_type_scalar(DT_I32),
                        spec->num_threads);
    k->stage_text[SWAGE_STAGE_SEMANTIC][0] = print_text(k, false);
    k->stage_text[SWAGE_STAGE_SEMANTIC][1] = print_text(k, true);
    d->bail = NULL;
    return k;
fail:
    d->bail = NULL;
    kernel_destroy(k);
    return NULL;
}

SWAGE_API swage_status swageKernelCompile(const swage_kernel_spec *spec, swage_kernel **kernel,
                                          swage_error **error)
{
    if (!spec || !kernel || !spec->source)
        return api_fail_argument(error, "swageKernelCompile needs a spec with source text and a "
                                        "place for the kernel");
    if (spec->nfunctions < 0 || (spec->nfunctions > 0 && !spec->functions))
        return api_fail_argument(error, "swageKernelCompile: nfunctions is %d but functions is %s",
                                 spec->nfunctions, spec->functions ? "set" : "NULL");
    for (int i = 0; i < spec->nfunctions; i++)
        if (!spec->functions[i].name || !spec->functions[i].source)
            return api_fail_argument(error, "swageKernelCompile: function #%d needs a name and "
                                            "source text", i);
    if (spec->num_threads && (spec->num_threads < 32 || spec->num_threads > 1024 ||
                              (spec->num_threads & (spec->num_threads - 1))))
        return api_fail_argument(error, "swageKernelCompile: num_threads is %d; it is 0 (the "
                                        "compiler chooses) or a power of two in 32..1024 (num_warps "
                                        "1..32)", spec->num_threads);
    *kernel = NULL;
    size_t len;
    char *key = spec_key(spec, &len);
    if (!key)
        return api_fail_argument(error, "out of memory");
    uint64_t hash = hash_bytes(key, len, 0);

    pthread_mutex_lock(&cache_lock);
    swage_kernel *hit = cache_find(key, len, hash);
    if (hit)
        hit->refs++; /* the caller's reference (swageKernelRelease) */
    pthread_mutex_unlock(&cache_lock);
    if (hit) {
        free(key);
        *kernel = hit;
        return SWAGE_OK;
    }

    diag d;
    diag_init(&d);
    swage_kernel *k = compile_fresh(spec, &d);
    if (!k) {
        free(key);
        return api_fail(error, &d);
    }
    k->key = arena_strndup(&k->ar, key, len);
    k->key_len = len;
    k->hash = hash;
    free(key);

    pthread_mutex_lock(&cache_lock);
    hit = cache_find(k->key, k->key_len, hash);
    if (hit) {
        hit->refs++;
    } else {
        k->refs = 1;
        k->next = cache[hash % CACHE_BUCKETS];
        cache[hash % CACHE_BUCKETS] = k;
        cached_kernels++;
    }
    pthread_mutex_unlock(&cache_lock);
    if (hit) {
        /* Another thread published the same specialisation first. */
        kernel_destroy(k);
        k = hit;
    }
    *kernel = k;
    return SWAGE_OK;
}

swage_kernel *api_kernel_compile_uncached(const swage_kernel_spec *spec, swage_error **error)
{
    if (!spec || !spec->source) {
        api_fail_argument(error, "a spec with source text is needed");
        return NULL;
    }
    diag d;
    diag_init(&d);
    swage_kernel *k = compile_fresh(spec, &d);
    if (!k)
        api_fail(error, &d);
    return k;
}

void api_kernel_destroy(swage_kernel *k) { kernel_destroy(k); }

SWAGE_API int swageKernelNumParams(const swage_kernel *k) { return k ? k->nparams : 0; }

static const kernel_param *param_at(const swage_kernel *k, int i)
{
    return k && i >= 0 && i < k->nparams ? &k->params[i] : NULL;
}

SWAGE_API const char *swageKernelParamName(const swage_kernel *k, int i)
{
    const kernel_param *p = param_at(k, i);
    return p ? p->name : NULL;
}

SWAGE_API int swageKernelParamIsConstexpr(const swage_kernel *k, int i)
{
    const kernel_param *p = param_at(k, i);
    return p ? p->is_constexpr : 0;
}

SWAGE_API const char *swageKernelParamType(const swage_kernel *k, int i)
{
    const kernel_param *p = param_at(k, i);
    return p ? p->type : NULL;
}

SWAGE_API const char *swageKernelName(const swage_kernel *k) { return k ? k->name : NULL; }

SWAGE_API void swageKernelRelease(swage_kernel *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&cache_lock);
    bool last = k->refs > 0 && --k->refs == 0;
    if (last) {
        swage_kernel **at = &cache[k->hash % CACHE_BUCKETS];
        while (*at && *at != k)
            at = &(*at)->next;
        if (*at)
            *at = k->next;
        cached_kernels--;
    }
    pthread_mutex_unlock(&cache_lock);
    if (last)
        kernel_destroy(k);
}

SWAGE_API int64_t swageKernelCacheCount(void)
{
    pthread_mutex_lock(&cache_lock);
    int64_t n = cached_kernels;
    pthread_mutex_unlock(&cache_lock);
    return n;
}

SWAGE_API int swageKernelSegmentOffsetsParam(const swage_kernel *k)
{
    return k && k->is_segment ? k->segment_offsets : -1;
}

SWAGE_API int swageKernelNumHiddenParams(const swage_kernel *k) { return k ? k->nhidden : 0; }

SWAGE_API int swageKernelHiddenParamSource(const swage_kernel *k, int i)
{
    return k && i >= 0 && i < k->nhidden ? k->hidden_source[i] : -1;
}

SWAGE_API swage_status swageKernelEmitMlir(const swage_kernel *k, swage_stage stage, int locations,
                                           char **text, swage_error **error)
{
    return swageKernelEmitMlirSchedule(k, stage, SWAGE_SCHEDULE_AUTO, locations, text, error);
}

SWAGE_API swage_status swageKernelEmitMlirSchedule(const swage_kernel *k, swage_stage stage, int schedule,
                                                   int locations, char **text, swage_error **error)
{
    if (!k || !text)
        return api_fail_argument(error, "swageKernelEmitMlir needs a kernel and a place for the text");
    const char *t;
    if (stage == SWAGE_STAGE_SOURCE || stage == SWAGE_STAGE_SEMANTIC) {
        t = k->stage_text[stage][locations != 0];
    } else if (stage == SWAGE_STAGE_SIMT || stage == SWAGE_STAGE_PLAN) {
        if (schedule < 0 || schedule >= KERNEL_VARIANTS || (!k->is_segment && schedule != 0))
            return api_fail_argument(error, "schedule %d does not apply to %s (%s)", schedule, k->name,
                                     k->is_segment ? "schedules are 0..5" : "a grid program has one form");
        if (stage == SWAGE_STAGE_PLAN && !k->is_segment)
            return api_fail_argument(error, "%s is a grid program: it has no plan (only segment "
                                     "programs are planned)", k->name);
        diag d;
        diag_init(&d);
        /* the lazy forms are built under the kernel's lock */
        kernel_variant *v = api_kernel_variant((swage_kernel *)k, schedule, &d);
        if (!v)
            return api_fail(error, &d);
        t = stage == SWAGE_STAGE_PLAN ? v->plan_text[locations != 0] : v->simt_text[locations != 0];
    } else {
        return api_fail_argument(error, "unknown IR stage %d (expected source, semantic, simt or plan)",
                                 (int)stage);
    }
    size_t n = strlen(t);
    *text = malloc(n + 1);
    if (!*text)
        return api_fail_argument(error, "out of memory");
    memcpy(*text, t, n + 1);
    return SWAGE_OK;
}

/* A scalar for a float16, bfloat16 or float32 parameter must not turn a
 * finite value into inf there (1e39 for a float32): an error, as an int
 * that does not fit is in the Python layer. inf and NaN pass as they are. */
static swage_status check_float_args(const swage_kernel *k, const swage_arg *args, int nargs,
                                     swage_error **error)
{
    const ir_op *func = ir_module_func(k->module);
    const ir_block *body = func ? ir_func_body(func) : NULL;
    for (int i = 0; body && i < nargs && i < body->nargs; i++) {
        ir_type t = ir_value_type(k->module, body->args[i]);
        ir_dtype dt = (ir_dtype)t.dtype;
        if (t.kind != TY_SCALAR || !ir_dtype_is_float(dt) || dt == DT_F64)
            continue;
        double value;
        ir_scalar s;
        if (args[i].kind == SWAGE_ARG_FLOAT) {
            value = args[i].f;
            s = ir_scalar_from_float(dt, value);
        } else if (args[i].kind == SWAGE_ARG_INT) {
            value = (double)args[i].i;
            s = ir_scalar_from_int(dt, args[i].i);
        } else {
            continue;
        }
        if (isinf(s.f) && isfinite(value))
            return api_fail_argument(error, "argument '%s' of %s = %g does not fit in %s",
                                     api_runtime_param_name(k, i), k->name, value, ir_dtypes[dt].py);
    }
    return SWAGE_OK;
}

swage_status api_check_launch(const swage_kernel *k, const int64_t grid[3], const swage_arg *args,
                              int nargs, swage_error **error)
{
    if (!k || !grid || (nargs > 0 && !args))
        return api_fail_argument(error, "a launch needs a kernel, a grid and arguments");
    if (nargs != k->nruntime)
        return api_fail_argument(error, "%s takes %d runtime argument%s, got %d", k->name, k->nruntime,
                                 k->nruntime == 1 ? "" : "s", nargs);
    for (int i = 0; i < 3; i++)
        if (grid[i] < 0)
            return api_fail_argument(error, "grid extent %d of %s is negative (%lld)", i, k->name,
                                     (long long)grid[i]);
    if (k->is_segment && (grid[1] != 1 || grid[2] != 1))
        return api_fail_argument(error, "kernel '%s' is a segment program: it runs on a grid of "
                                 "(segments, 1, 1), got (%lld, %lld, %lld)", k->name,
                                 (long long)grid[0], (long long)grid[1], (long long)grid[2]);
    return check_float_args(k, args, nargs, error);
}

swage_status api_check_segment_grid(const swage_kernel *k, const int64_t grid[3],
                                    const swage_arg *args, swage_error **error)
{
    if (!k->is_segment || k->segment_offsets < 0)
        return SWAGE_OK;
    const swage_arg *offsets = &args[k->segment_offsets];
    const char *name = api_runtime_param_name(k, k->segment_offsets);
    if (offsets->kind != SWAGE_ARG_BUFFER)
        return api_fail_argument(error, "argument '%s' of %s holds the segment offsets and must be "
                                 "a buffer", name, k->name);
    if (offsets->nelems < 1)
        return api_fail_argument(error, "argument '%s' of %s holds the segment offsets, so it needs "
                                 "at least 1 element (segments + 1), got 0", name, k->name);
    if (grid[0] > offsets->nelems - 1)
        return api_fail_argument(error, "%s runs one program per segment, but the grid asks for "
                                 "%lld programs and the offsets '%s' (%lld elements) delimit %lld "
                                 "segments", k->name, (long long)grid[0], name,
                                 (long long)offsets->nelems, (long long)(offsets->nelems - 1));
    if (grid[0] != 0 && grid[0] != offsets->nelems - 1)
        return api_fail_argument(error, "%s is scheduled over all its segments: give the grid (%lld, 1, "
                                 "1) for the offsets '%s' (%lld elements), or 0 to run nothing, not "
                                 "%lld", k->name, (long long)(offsets->nelems - 1), name,
                                 (long long)offsets->nelems, (long long)grid[0]);
    return SWAGE_OK;
}

swage_status api_launch_args(const swage_kernel *k, const int64_t grid[3], const swage_arg *args,
                             int nargs, bool hidden, cpu_arg **out, int *nout, swage_error **error)
{
    *out = NULL;
    *nout = 0;
    swage_status st = api_check_launch(k, grid, args, nargs, error);
    if (st != SWAGE_OK)
        return st;
    int extra = hidden ? k->nhidden : 0;
    cpu_arg *cargs = calloc((size_t)(nargs + extra + 1), sizeof *cargs);
    if (!cargs)
        return api_fail_argument(error, "out of memory");
    for (int i = 0; i < nargs; i++) {
        switch (args[i].kind) {
        case SWAGE_ARG_BUFFER: cargs[i].kind = CPU_ARG_BUFFER; break;
        case SWAGE_ARG_INT: cargs[i].kind = CPU_ARG_INT; break;
        case SWAGE_ARG_FLOAT: cargs[i].kind = CPU_ARG_FLOAT; break;
        default:
            free(cargs);
            return api_fail_argument(error, "argument %d (%s) has the unknown kind %d", i,
                                     api_runtime_param_name(k, i), args[i].kind);
        }
        cargs[i].data = args[i].data;
        cargs[i].nelems = args[i].nelems;
        cargs[i].i = args[i].i;
        cargs[i].f = args[i].f;
    }
    for (int h = 0; h < extra; h++)
        cargs[nargs + h] = (cpu_arg){.kind = CPU_ARG_INT, .i = args[k->hidden_source[h]].nelems};
    *out = cargs;
    *nout = nargs + extra;
    return SWAGE_OK;
}

const char *api_runtime_param_name(const swage_kernel *k, int runtime_index)
{
    for (int i = 0, r = 0; i < k->nparams; i++)
        if (!k->params[i].is_constexpr && r++ == runtime_index)
            return k->params[i].name;
    return "?";
}

SWAGE_API swage_status swageKernelLaunchCpu(const swage_kernel *k, const int64_t grid[3],
                                            const swage_arg *args, int nargs, swage_error **error)
{
    cpu_arg *cargs;
    int ncargs;
    swage_status st = api_launch_args(k, grid, args, nargs, false, &cargs, &ncargs, error);
    if (st != SWAGE_OK)
        return st;
    diag d;
    diag_init(&d);
    bool ok = cpu_exec_launch(k->module, grid, cargs, ncargs, &d);
    free(cargs);
    return ok ? SWAGE_OK : api_fail(error, &d);
}
