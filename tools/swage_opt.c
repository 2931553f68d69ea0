/* swage_opt.c - swage-opt: parse textual IR, verify it, run passes, print
 * it (the lit/FileCheck driver). Requires nothing; exits 0 when every input
 * chunk succeeded, 1 when one failed (its diagnostic on stderr), 2 on a
 * usage error. */
#include "swage.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    const char *input;       /* path, or "-" for stdin */
    char *passes;            /* comma list, malloc'd (NULL: none) */
    const char *print_after; /* "all" or a comma list */
    int locations;
    int split;
    int ptx_sm; /* --emit-ptx=sm_NN: print PTX for sm_NN instead of IR */
} options;

static void usage(FILE *out)
{
    fputs("usage: swage-opt [FILE|-] [options]\n"
          "Parses Swage IR (MLIR text), verifies it, runs passes and prints the result.\n"
          "\n"
          "  --passes=a,b             run these passes in order\n"
          "  --pass NAME, --pass=NAME append one pass (repeatable)\n"
          "  --print-after=all|a,b    print the IR after these passes, before the result\n"
          "  --mlir-print-debuginfo   print loc(...) on every op\n"
          "  --split-input-file       process each '// -----' chunk on its own\n"
          "  --emit-ptx=sm_NN         print the (SIMT) kernel as PTX for sm_NN instead of IR\n"
          "  --list-passes            list the passes and exit\n"
          "  --version                print the version and exit\n"
          "  -h, --help               show this help\n",
          out);
}

static void list_passes(void)
{
    for (const pass_info *p = pass_table; p->name; p++)
        printf("  %-10s %s\n", p->name, p->summary);
}

/* Appends a pass (or a comma list of them) to o->passes. */
static bool add_passes(options *o, const char *list)
{
    size_t old = o->passes ? strlen(o->passes) : 0, n = strlen(list);
    char *p = realloc(o->passes, old + n + 2);
    if (!p)
        return false;
    if (old)
        p[old++] = ',';
    memcpy(p + old, list, n + 1);
    o->passes = p;
    return true;
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("swage-opt %s\n", swageVersionString());
            return 0;
        } else if (!strcmp(a, "--list-passes")) {
            list_passes();
            return 0;
        } else if (starts_with(a, "--passes=")) {
            ok = add_passes(o, a + 9);
        } else if (starts_with(a, "--pass=")) {
            ok = add_passes(o, a + 7);
        } else if (!strcmp(a, "--pass") || !strcmp(a, "--passes")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "swage-opt: %s needs a pass name\n", a);
                return 2;
            }
            ok = add_passes(o, argv[++i]);
        } else if (starts_with(a, "--print-after=")) {
            o->print_after = a + 14;
        } else if (!strcmp(a, "--mlir-print-debuginfo")) {
            o->locations = 1;
        } else if (!strcmp(a, "--split-input-file")) {
            o->split = 1;
        } else if (starts_with(a, "--emit-ptx=")) {
            const char *v = a + 11;
            char *end;
            long sm = strtol(starts_with(v, "sm_") ? v + 3 : v, &end, 10);
            if (*end || sm <= 0 || sm > 1000) {
                fprintf(stderr, "swage-opt: --emit-ptx wants a target like sm_90, not '%s'\n", v);
                return 2;
            }
            o->ptx_sm = (int)sm;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "swage-opt: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (o->input) {
            fprintf(stderr, "swage-opt: more than one input file ('%s' and '%s')\n", o->input, a);
            return 2;
        } else {
            o->input = a;
        }
        if (!ok) {
            fprintf(stderr, "swage-opt: out of memory\n");
            return 1;
        }
    }
    if (!o->input)
        o->input = "-";
    return -1;
}

/* The whole input as a NUL-terminated string (malloc'd), or NULL. */
static char *read_input(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    if (f != stdin)
        fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

/* IR text is a C string for the library: a NUL byte would silently end it.
 * Reports one as a diagnostic at the byte (the line up to it and a caret)
 * and returns false. */
static bool check_no_nul(const char *text, size_t len, const char *file_name)
{
    const char *nul = memchr(text, 0, len);
    if (!nul)
        return true;
    const char *line_start = text;
    int line = 1;
    for (const char *p = text; p < nul; p++)
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
    int col = (int)(nul - line_start) + 1;
    fprintf(stderr, "%s:%d:%d: error: the input contains a NUL byte (byte %zu); IR text cannot "
                    "contain null bytes\n    %.*s\n    %*s^\n", file_name, line, col,
            (size_t)(nul - text), col - 1, line_start, col - 1, "");
    return false;
}

/* Runs one chunk; prints its result to stdout or its error to stderr. */
static bool run_chunk(const options *o, const char *text, const char *file_name)
{
    char *out = NULL;
    swage_error *err = NULL;
    swage_status st = o->ptx_sm ? swageIrEmitPtx(text, file_name, o->passes, o->ptx_sm, &out, &err)
                                : swageIrRunPasses(text, file_name, o->passes, o->print_after,
                                                   o->locations, &out, &err);
    if (st != SWAGE_OK) {
        fputs(swageErrorRendered(err), stderr);
        swageErrorDestroy(err);
        return false;
    }
    fputs(out, stdout);
    swageFree(out);
    return true;
}

/* A split marker: a line that is "// -----" once blanks are trimmed. */
static bool is_marker(const char *line, size_t n)
{
    while (n && (*line == ' ' || *line == '\t'))
        line++, n--;
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        n--;
    return n == 8 && !memcmp(line, "// -----", 8);
}

/* Runs text[start, end) as one chunk, prefixed by first_line - 1 newlines
 * so that its diagnostics keep the whole file's line numbers. */
static bool run_piece(const options *o, const char *text, size_t start, size_t end, size_t first_line,
                      const char *file_name)
{
    size_t pad = first_line - 1, body = end - start;
    char *chunk = malloc(pad + body + 1);
    if (!chunk) {
        fprintf(stderr, "swage-opt: out of memory\n");
        return false;
    }
    memset(chunk, '\n', pad);
    memcpy(chunk + pad, text + start, body);
    chunk[pad + body] = 0;
    fflush(stdout);
    bool ok = run_chunk(o, chunk, file_name);
    fflush(stderr);
    free(chunk);
    return ok;
}

static bool run_split(const options *o, const char *text, size_t len, const char *file_name)
{
    bool all_ok = true;
    size_t chunk_start = 0, chunk_line = 1, line = 1;
    for (size_t pos = 0, eol; pos < len; pos = eol + 1, line++) {
        eol = pos;
        while (eol < len && text[eol] != '\n')
            eol++;
        if (!is_marker(text + pos, eol - pos))
            continue;
        all_ok &= run_piece(o, text, chunk_start, pos, chunk_line, file_name);
        fputs("// -----\n", stdout);
        chunk_start = eol < len ? eol + 1 : len;
        chunk_line = line + 1;
    }
    all_ok &= run_piece(o, text, chunk_start, len, chunk_line, file_name);
    return all_ok;
}

int main(int argc, char **argv)
{
    options o = {0};
    int status = parse_args(argc, argv, &o);
    if (status >= 0) {
        free(o.passes);
        return status;
    }
    size_t len = 0;
    char *text = read_input(o.input, &len);
    if (!text) {
        fprintf(stderr, "swage-opt: cannot read '%s'\n", o.input);
        free(o.passes);
        return 1;
    }
    const char *file_name = strcmp(o.input, "-") ? o.input : "<stdin>";
    bool ok = check_no_nul(text, len, file_name) &&
              (o.split ? run_split(&o, text, len, file_name) : run_chunk(&o, text, file_name));
    free(text);
    free(o.passes);
    return ok ? 0 : 1;
}
