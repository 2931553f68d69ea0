/* extract.c - extract_kernel_source: one decorated def of a .py file, with real line numbers. */
#include "ast.h"

#include <string.h>

/* A line-by-line scan of Python text that knows which physical lines start a
 * logical line: not inside a string, brackets, or after a backslash. It is a
 * best-effort tokenizer: enough to skip strings, comments and brackets. */
typedef struct line_scanner {
    const char *text, *end;
    const char *p;      /* start of the next physical line */
    int line;           /* its 1-based number */
    char quote;         /* open string's quote character, 0 when none */
    bool triple;
    int depth;          /* open brackets */
    bool continued;     /* the previous line ended with a backslash */
} line_scanner;

typedef enum line_kind { LINE_BLANK, LINE_COMMENT, LINE_DECORATOR, LINE_CODE } line_kind;

typedef struct scanned_line {
    const char *start, *next; /* this line's first byte; the next line's first byte */
    int number;
    bool logical_start;       /* begins a logical line */
    line_kind kind;           /* meaningful when logical_start */
    int indent;               /* columns, a tab advancing to a multiple of 8 */
} scanned_line;

static void scanner_init(line_scanner *s, const char *text, size_t length, const char *from,
                         int line)
{
    memset(s, 0, sizeof *s);
    s->text = text;
    s->end = text + length;
    s->p = from;
    s->line = line;
}

static bool scan_line(line_scanner *s, scanned_line *out)
{
    if (s->p >= s->end)
        return false;
    const char *q = s->p;
    out->start = q;
    out->number = s->line;
    out->logical_start = !s->quote && s->depth == 0 && !s->continued;
    out->indent = 0;
    while (q < s->end && (*q == ' ' || *q == '\t' || *q == '\f')) {
        out->indent = *q == '\t' ? (out->indent / 8 + 1) * 8 : *q == ' ' ? out->indent + 1 : 0;
        if (out->indent > 1000000)
            out->indent = 1000000;
        q++;
    }
    out->kind = (q >= s->end || *q == '\n' || *q == '\r') ? LINE_BLANK
              : *q == '#'                                 ? LINE_COMMENT
              : *q == '@'                                 ? LINE_DECORATOR
                                                          : LINE_CODE;
    s->continued = false;
    q = s->p;
    while (q < s->end && *q != '\n') {
        char c = *q;
        if (s->quote) {
            if (c == '\\') {
                if (q + 1 < s->end && q[1] == '\n') {
                    q++;
                    break; /* the string goes on to the next line */
                }
                q += q + 1 < s->end ? 2 : 1;
                continue;
            }
            if (c == s->quote) {
                if (!s->triple) {
                    s->quote = 0;
                } else if (s->end - q >= 3 && q[1] == c && q[2] == c) {
                    s->quote = 0;
                    q += 2;
                }
            }
            q++;
            continue;
        }
        if (c == '#') {
            while (q < s->end && *q != '\n')
                q++;
            break;
        }
        if (c == '\'' || c == '"') {
            s->quote = c;
            s->triple = s->end - q >= 3 && q[1] == c && q[2] == c;
            q += s->triple ? 3 : 1;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            s->depth++;
        else if ((c == ')' || c == ']' || c == '}') && s->depth > 0)
            s->depth--;
        else if (c == '\\' && (q + 1 >= s->end || q[1] == '\n' ||
                               (q[1] == '\r' && q + 2 < s->end && q[2] == '\n')))
            s->continued = true;
        q++;
    }
    if (s->quote && !s->triple && !(q > s->p && q < s->end && q[-1] == '\\'))
        s->quote = 0; /* an unterminated one-line string ends with its line */
    if (q < s->end)
        q++; /* the newline */
    out->next = q;
    s->p = q;
    s->line++;
    return true;
}

/* Whether the logical line at `l` is `def <name>(` (or `async def <name>(`). */
static bool is_def_of(const scanned_line *l, const char *end, const char *name)
{
    const char *q = l->start;
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\f'))
        q++;
    if (end - q > 6 && memcmp(q, "async", 5) == 0 && (q[5] == ' ' || q[5] == '\t')) {
        q += 5;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
    }
    if (end - q < 4 || memcmp(q, "def", 3) != 0 || (q[3] != ' ' && q[3] != '\t'))
        return false;
    q += 3;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    size_t n = strlen(name);
    if ((size_t)(end - q) < n || memcmp(q, name, n) != 0)
        return false;
    q += n;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    return q < end && *q == '(';
}

bool extract_kernel_source(const source_file *file, const char *kernel_name, source_file *out,
                           diag *d)
{
    const char *fname = file && file->name ? file->name : "<source>";
    if (!kernel_name || !*kernel_name) {
        diag_error(d, DIAG_COMPILE, "no kernel name given to look for in %s", fname);
        return false;
    }
    if (!file || !file->text) {
        diag_error(d, DIAG_COMPILE, "no kernel named '%s' in %s", kernel_name, fname);
        return false;
    }
    /* Pass 1: the def at the smallest indentation (the last one there, as
     * Python binds the last definition), with its decorator run. */
    line_scanner s;
    scanner_init(&s, file->text, file->length, file->text, 1);
    scanned_line l;
    const char *run_start = NULL; /* first decorator of the run just above */
    int run_line = 0, run_indent = -1;
    const char *best_start = NULL, *best_def = NULL;
    int best_line = 0, best_indent = -1;
    while (scan_line(&s, &l)) {
        if (!l.logical_start || l.kind == LINE_BLANK || l.kind == LINE_COMMENT)
            continue;
        if (l.kind == LINE_DECORATOR) {
            if (!run_start || run_indent != l.indent) {
                run_start = l.start;
                run_line = l.number;
                run_indent = l.indent;
            }
            continue;
        }
        if (is_def_of(&l, s.end, kernel_name) && (best_indent < 0 || l.indent <= best_indent)) {
            bool decorated = run_start && run_indent == l.indent;
            best_start = decorated ? run_start : l.start;
            best_line = decorated ? run_line : l.number;
            best_def = l.start;
            best_indent = l.indent;
        }
        run_start = NULL;
    }
    if (!best_def) {
        diag_error(d, DIAG_COMPILE, "no kernel named '%s' in %s", kernel_name, fname);
        return false;
    }
    /* Pass 2: from the def to the last significant line of its body. */
    scanner_init(&s, file->text, file->length, best_def, 0);
    const char *stop = best_def;
    bool first = true, significant = false;
    while (scan_line(&s, &l)) {
        if (l.logical_start) {
            significant = l.kind != LINE_BLANK && l.kind != LINE_COMMENT;
            if (!first && significant && l.indent <= best_indent)
                break;
            first = false;
        }
        if (significant)
            stop = l.next;
    }
    int base = file->first_line > 0 ? file->first_line : 1;
    out->name = file->name;
    out->text = best_start;
    out->length = (size_t)(stop - best_start);
    out->first_line = base + best_line - 1;
    return true;
}
