/* support.c - arena, string buffer and diagnostics (see support.h). */
#include "support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

struct arena_chunk {
    arena_chunk *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void arena_init(arena *a) { memset(a, 0, sizeof *a); }

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

void *arena_alloc(arena *a, size_t size)
{
    size = align16(size ? size : 1);
    if (!a->head || a->used_in_head + size > a->head->size) {
        size_t chunk = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
        arena_chunk *c = malloc(sizeof(arena_chunk) + chunk);
        if (!c)
            return NULL;
        c->size = chunk;
        if (a->head && size > ARENA_CHUNK / 4) {
            /* Big allocation: keep it behind the current chunk, which
             * still has room for small ones. */
            c->next = a->head->next;
            a->head->next = c;
            a->bytes_total += chunk;
            memset(c->data, 0, size);
            return c->data;
        }
        c->next = a->head;
        a->head = c;
        a->used_in_head = 0;
        a->bytes_total += chunk;
    }
    void *p = a->head->data + a->used_in_head;
    a->used_in_head += size;
    memset(p, 0, size);
    return p;
}

void *arena_realloc(arena *a, void *old, size_t old_size, size_t new_size)
{
    void *p = arena_alloc(a, new_size);
    if (p && old && old_size)
        memcpy(p, old, old_size < new_size ? old_size : new_size);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(arena *a, const char *fmt, ...)
{
    strbuf sb;
    sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    char *p = arena_strndup(a, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return p;
}

/* ---- string buffer ---------------------------------------------------- */

void sb_init(strbuf *sb) { memset(sb, 0, sizeof *sb); }
void sb_free(strbuf *sb)
{
    free(sb->data);
    memset(sb, 0, sizeof *sb);
}

static bool sb_reserve(strbuf *sb, size_t extra)
{
    if (sb->oom)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->oom = true;
        return false;
    }
    sb->data = p;
    sb->cap = cap;
    return true;
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = 0;
}
void sb_putc(strbuf *sb, char c) { sb_putn(sb, &c, 1); }
void sb_puts(strbuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0 && sb_reserve(sb, (size_t)n)) {
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
        sb->len += (size_t)n;
    }
    va_end(ap2);
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

char *sb_take(strbuf *sb)
{
    char *p = sb->data;
    if (!p) {
        p = malloc(1);
        if (p)
            p[0] = 0;
    }
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return p;
}

/* ---- diagnostics ------------------------------------------------------ */

void diag_init(diag *d) { memset(d, 0, sizeof *d); }

void diag_clear(diag *d)
{
    free(d->message);
    free(d->rendered);
    free(d->file);
    jmp_buf *bail = d->bail;
    memset(d, 0, sizeof *d);
    d->bail = bail;
}

bool diag_failed(const diag *d) { return d->kind != DIAG_NONE; }

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

/* Finds line `line` (1-based) of src; returns its start and length. */
static const char *source_line(const source_file *src, int line, size_t *len)
{
    const char *p = src->text, *end = src->text + src->length;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n')
            l++;
    if (p >= end && line > 1) {
        *len = 0;
        return NULL;
    }
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r')
        q++;
    *len = (size_t)(q - p);
    return p;
}

void diag_verror_at(diag *d, diag_kind kind, const source_file *src, src_loc loc,
                    const char *fmt, va_list ap)
{
    if (d->kind != DIAG_NONE)
        return; /* first error wins */
    strbuf msg;
    sb_init(&msg);
    sb_vprintf(&msg, fmt, ap);
    d->kind = kind;
    d->message = sb_take(&msg);

    strbuf out;
    sb_init(&out);
    if (src && src->name && loc.line > 0) {
        int user_line = loc.line + (src->first_line > 0 ? src->first_line - 1 : 0);
        d->file = dup_or_null(src->name);
        d->line = user_line;
        d->col = loc.col;
        sb_printf(&out, "%s:%d:%d: error: %s\n", src->name, user_line, loc.col,
                  d->message ? d->message : "");
        size_t n = 0;
        const char *text = src->text ? source_line(src, loc.line, &n) : NULL;
        if (text) {
            sb_puts(&out, "    ");
            sb_putn(&out, text, n);
            sb_puts(&out, "\n    ");
            for (int i = 1; i < loc.col && (size_t)(i - 1) < n; i++)
                sb_putc(&out, text[i - 1] == '\t' ? '\t' : ' ');
            sb_puts(&out, "^\n");
        }
    } else {
        sb_printf(&out, "error: %s\n", d->message ? d->message : "");
    }
    d->rendered = sb_take(&out);
}

void diag_error_at(diag *d, diag_kind kind, const source_file *src, src_loc loc,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(d, kind, src, loc, fmt, ap);
    va_end(ap);
}

void diag_error(diag *d, diag_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    src_loc none = {0, 0};
    diag_verror_at(d, kind, NULL, none, fmt, ap);
    va_end(ap);
}

void diag_move(diag *to, diag *from)
{
    jmp_buf *bail = to->bail;
    free(to->message);
    free(to->rendered);
    free(to->file);
    *to = *from;
    to->bail = bail;
    jmp_buf *fb = from->bail;
    memset(from, 0, sizeof *from);
    from->bail = fb;
}

void sw_internal_error(diag *d, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "internal compiler error at %s:%d: ", file, line);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    char *text = sb_take(&sb);
    diag_error(d, DIAG_INTERNAL, "%s", text ? text : "internal compiler error");
    free(text);
    if (d->bail)
        longjmp(*d->bail, 1);
}

uint64_t hash_bytes(const void *data, size_t n, uint64_t seed)
{
    /* FNV-1a, 64-bit. */
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Optimal-string-alignment distance of a and b, case-insensitive, or
 * limit + 1 when it exceeds limit (names are short: a row of 64 is plenty). */
static size_t name_distance(const char *a, const char *b, size_t limit)
{
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX)
        return limit + 1;
    if ((n > m ? n - m : m - n) > limit)
        return limit + 1;
    size_t rows[3][MAX + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

const char *closest_name(const char *name, const char *const *candidates, size_t n)
{
    size_t len = strlen(name);
    size_t limit = len / 3 ? len / 3 : 1;
    const char *best = NULL;
    size_t best_distance = limit + 1;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        if (!c || !strcmp(c, name))
            continue;
        size_t d = name_distance(name, c, limit);
        if (d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    if (best || len < 4)
        return best;
    for (size_t i = 0; i < n; i++) {
        const char *c = candidates[i];
        size_t clen = c ? strlen(c) : 0;
        if (c && strcmp(c, name) && clen >= 4 &&
            (!strncmp(c, name, len < clen ? len : clen)))
            return c;
    }
    return NULL;
}
