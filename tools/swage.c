/* swage.c - the `swage` command line, built on the public API only.
 *
 *   swage compile FILE --kernel NAME [--signature 'x_ptr=*f32,n=i32']
 *                 [--constexpr BLOCK=128 ...] [--constexprs 'BLOCK=128,...']
 *                 [--emit=mlir|ptx] [--stage=source|semantic|simt] [--sm=90]
 *                 [--mlir-print-debuginfo]
 *   swage --version
 *   swage --help
 *
 * Exit status: 0 on success, 1 when the kernel does not compile (the
 * rendered diagnostic goes to stderr), 2 on bad usage.
 */
#include "swage.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] =
    "usage: swage compile FILE --kernel NAME [--signature SIG] [--constexpr NAME=VALUE ...]\n"
    "                    [--constexprs LIST] [--emit=mlir|ptx] [--stage=source|semantic|simt]\n"
    "                    [--sm=N] [--mlir-print-debuginfo]\n"
    "       swage --version | --help\n";

static const char help_text[] =
    "\n"
    "Compiles one Swage kernel from a Python file and prints its IR.\n"
    "\n"
    "  FILE                    a .py file; the kernel is found in it by name\n"
    "  --kernel NAME           the kernel's function name (required)\n"
    "  --signature SIG         types of the runtime parameters: 'x_ptr=*f32,n=i32'\n"
    "                          ('*' marks a pointer; i1 i8 u8 i32 i64 f16 bf16 f32 f64)\n"
    "  --constexpr NAME=VALUE  value of one sl.constexpr parameter (repeatable): an int,\n"
    "                          a float, True/False, a dtype (float16), a quoted string\n"
    "                          (ACT=\"'relu'\" in the shell; escapes \\\\ \\' \\\" \\n \\t \\xHH),\n"
    "                          None, or a tuple of these: SHAPE='(16, 32)'\n"
    "  --constexprs LIST       several at once: 'BLOCK=128,EPS=1e-5,FLAG=True' (commas\n"
    "                          inside quotes and parentheses belong to the value)\n"
    "  --emit=WHAT             mlir (default): the IR at --stage; ptx: PTX for --sm\n"
    "  --stage=STAGE           source: straight from the frontend;\n"
    "                          semantic (default): after the default pass pipeline;\n"
    "                          simt: one CTA's per-thread program (docs/simt.md)\n"
    "  --sm=N                  compute capability for --emit=ptx, 10*major+minor (default 90)\n"
    "  --mlir-print-debuginfo  append loc(\"file\":line:col) to every op\n"
    "  --version               print the version and exit\n"
    "  --help                  print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 compile error (diagnostic on stderr), 2 bad usage.\n";

/* Exit status 2 with a one-line reason and the usage. */
static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "swage: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_line);
    return 2;
}

/* Reads a whole file into a malloc'd NUL-terminated buffer, or NULL; its
 * length in *length (the file may hold NUL bytes of its own). */
static char *read_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text) {
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
        if (len + 1 == cap) {
            char *grown = realloc(text, cap * 2);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!text || failed) {
        free(text);
        return NULL;
    }
    text[len] = 0;
    *length = len;
    return text;
}

/* Appends `item` to the comma-separated list *list (malloc'd). */
static int append_item(char **list, const char *item)
{
    size_t old = *list ? strlen(*list) : 0, add = strlen(item);
    char *grown = realloc(*list, old + add + 2);
    if (!grown)
        return 0;
    if (old)
        grown[old++] = ',';
    memcpy(grown + old, item, add + 1);
    *list = grown;
    return 1;
}

/* Matches "--name VALUE" and "--name=VALUE"; advances *i past what it used.
 * Returns 1 and sets *value on a match, 0 when argv[*i] is another option,
 * -1 when the option is given without its value. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != 0)
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

static int run_compile(int argc, char **argv)
{
    const char *file = NULL, *kernel_name = NULL, *signature = NULL, *emit = "mlir";
    const char *stage_name = "semantic";
    const char *sm_text = "90";
    char *constexprs = NULL;
    int locations = 0, status = 2;

    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int m;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            printf("%s%s", usage_line, help_text);
            status = 0;
            goto done;
        } else if (!strcmp(arg, "--mlir-print-debuginfo")) {
            locations = 1;
        } else if ((m = option_value(argc, argv, &i, "--kernel", &value)) != 0) {
            if (m < 0)
                goto missing_value;
            kernel_name = value;
        } else if ((m = option_value(argc, argv, &i, "--signature", &value)) != 0) {
            if (m < 0)
                goto missing_value;
            signature = value;
        } else if ((m = option_value(argc, argv, &i, "--constexprs", &value)) != 0 ||
                   (m = option_value(argc, argv, &i, "--constexpr", &value)) != 0) {
            if (m < 0)
                goto missing_value;
            if (*value && !append_item(&constexprs, value)) {
                fprintf(stderr, "swage: out of memory\n");
                status = 1;
                goto done;
            }
        } else if ((m = option_value(argc, argv, &i, "--emit", &value)) != 0) {
            if (m < 0)
                goto missing_value;
            emit = value;
        } else if ((m = option_value(argc, argv, &i, "--sm", &value)) != 0) {
            if (m < 0)
                return usage_error("%s", "--sm needs a value");
            sm_text = value;
        } else if ((m = option_value(argc, argv, &i, "--stage", &value)) != 0) {
            if (m < 0)
                goto missing_value;
            stage_name = value;
        } else if (arg[0] == '-' && arg[1] != 0) {
            status = usage_error("unknown option '%s'", arg);
            goto done;
        } else if (file) {
            status = usage_error("more than one input file ('%s')", arg);
            goto done;
        } else {
            file = arg;
        }
        continue;
    missing_value:
        status = usage_error("option '%s' needs a value", arg);
        goto done;
    }

    if (!file) {
        status = usage_error("%s", "compile needs an input FILE");
        goto done;
    }
    if (!kernel_name) {
        status = usage_error("%s", "compile needs --kernel NAME");
        goto done;
    }
    bool want_ptx = !strcmp(emit, "ptx");
    if (!want_ptx && strcmp(emit, "mlir") != 0) {
        status = usage_error("unknown --emit=%s (expected mlir or ptx)", emit);
        goto done;
    }
    char *sm_end = NULL;
    long sm = strtol(sm_text, &sm_end, 10);
    if (!*sm_text || *sm_end || sm < 50 || sm > 200) {
        status = usage_error("--sm=%s is not a compute capability such as 90", sm_text);
        goto done;
    }
    swage_stage stage;
    if (!strcmp(stage_name, "source")) {
        stage = SWAGE_STAGE_SOURCE;
    } else if (!strcmp(stage_name, "semantic")) {
        stage = SWAGE_STAGE_SEMANTIC;
    } else if (!strcmp(stage_name, "simt")) {
        stage = SWAGE_STAGE_SIMT;
    } else {
        status = usage_error("unknown stage '%s' (expected source, semantic or simt)", stage_name);
        goto done;
    }

    size_t source_length = 0;
    char *source = read_file(file, &source_length);
    if (!source) {
        fprintf(stderr, "swage: cannot read '%s': %s\n", file, strerror(errno ? errno : EIO));
        status = 1;
        goto done;
    }
    swage_kernel_spec spec = {
        .source = source,
        .file_name = file,
        .first_line = 1,
        .kernel_name = kernel_name,
        .signature = signature,
        .constexprs = constexprs,
        .extract = 1,
        .source_length = source_length,
    };
    swage_kernel *kernel = NULL;
    swage_error *error = NULL;
    char *text = NULL;
    if (swageKernelCompile(&spec, &kernel, &error) != SWAGE_OK ||
        (want_ptx ? swageKernelEmitPtx(kernel, (int)sm, &text, &error)
                  : swageKernelEmitMlir(kernel, stage, locations, &text, &error)) != SWAGE_OK) {
        const char *rendered = swageErrorRendered(error);
        size_t n = strlen(rendered);
        fprintf(stderr, "%s%s", rendered, n && rendered[n - 1] == '\n' ? "" : "\n");
        swageErrorDestroy(error);
        status = 1;
    } else {
        fputs(text, stdout);
        status = fflush(stdout) == 0 ? 0 : 1;
    }
    swageFree(text);
    free(source);
done:
    free(constexprs);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "missing command");
    const char *command = argv[1];
    if (!strcmp(command, "--help") || !strcmp(command, "-h") || !strcmp(command, "help")) {
        printf("%s%s", usage_line, help_text);
        return 0;
    }
    if (!strcmp(command, "--version")) {
        printf("swage %s\n", swageVersionString());
        return 0;
    }
    if (!strcmp(command, "compile"))
        return run_compile(argc, argv);
    return usage_error("unknown command '%s'", command);
}
