/* support.h - arena, growable string buffer, diagnostics, internal errors.
 *
 * Everything a compilation allocates lives in one arena and is freed at once;
 * passes never free. User-facing problems become a `diag` (file:line:col, the
 * source line and a caret); broken compiler invariants go to `sw_unreachable`
 * which records __FILE__:__LINE__ into the diagnostic sink and longjmps out of
 * the compilation, so the library never aborts the host process.
 */
#ifndef SWAGE_SUPPORT_H
#define SWAGE_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ---- arena ------------------------------------------------------------ */

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    arena_chunk *head;
    size_t used_in_head;
    size_t bytes_total; /* for statistics and tests */
} arena;

void arena_init(arena *a);
void arena_free(arena *a);                  /* frees every allocation at once */
void *arena_alloc(arena *a, size_t size);   /* zeroed, 16-byte aligned */
void *arena_realloc(arena *a, void *old, size_t old_size, size_t new_size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Growable array in an arena: `ptr`, `len`, `cap` fields of any struct. */
#define VEC_PUSH(ar, vec, len, cap, item)                                      \
    do {                                                                       \
        if ((len) == (cap)) {                                                  \
            size_t vec_newcap_ = (cap) ? (size_t)(cap) * 2 : 8;                \
            (vec) = arena_realloc((ar), (vec), sizeof(*(vec)) * (size_t)(cap), \
                                  sizeof(*(vec)) * vec_newcap_);               \
            (cap) = vec_newcap_;                                               \
        }                                                                      \
        (vec)[(len)++] = (item);                                               \
    } while (0)

/* ---- string buffer (malloc-backed, for output text) ------------------- */

typedef struct strbuf {
    char *data;
    size_t len, cap;
    bool oom; /* set once an allocation failed; contents then truncated */
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_putc(strbuf *sb, char c);
void sb_puts(strbuf *sb, const char *s);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
char *sb_take(strbuf *sb); /* returns malloc'd NUL-terminated text; sb reset */

/* ---- diagnostics ------------------------------------------------------ */

/* A source file as the diagnostics see it: the user's real file name, the
 * text we parsed, and the line number of its first line in that file (a
 * kernel taken from the middle of a .py file starts at, say, line 40). */
typedef struct source_file {
    const char *name;
    const char *text;
    size_t length;
    int first_line;
} source_file;

/* Position in the text we parsed: 1-based line within `text`, 1-based col. */
typedef struct src_loc {
    int32_t line;
    int32_t col;
} src_loc;

typedef enum diag_kind {
    DIAG_NONE = 0,
    DIAG_COMPILE,   /* the user's kernel or IR is wrong */
    DIAG_ARGUMENT,  /* a bad argument to an API call */
    DIAG_RUNTIME,   /* execution failed (out-of-bounds access, ...) */
    DIAG_INTERNAL,  /* a compiler invariant broke: a Swage bug */
    DIAG_NOMEM,
    DIAG_INTERRUPTED, /* a CPU launch stopped by its cancel flag (src/backends/cpu/cpu_exec.h) */
} diag_kind;

/* The first error wins; later ones are dropped (one clear message). */
typedef struct diag {
    diag_kind kind;
    char *message;  /* the plain sentence, malloc'd */
    char *rendered; /* "file:line:col: error: msg\n  source line\n  ^", malloc'd */
    char *file;     /* malloc'd, may be NULL */
    int line, col;  /* in the user's file (first_line applied); 0 if unknown */
    jmp_buf *bail;  /* where sw_unreachable / diag_fatal jump, if set */
} diag;

void diag_init(diag *d);
void diag_clear(diag *d); /* frees the strings */
bool diag_failed(const diag *d);
/* Report at a source location (src may be NULL for location-free errors). */
void diag_error_at(diag *d, diag_kind kind, const source_file *src, src_loc loc,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diag_verror_at(diag *d, diag_kind kind, const source_file *src, src_loc loc,
                    const char *fmt, va_list ap);
void diag_error(diag *d, diag_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Move the contents of `from` into `to` (to must be empty or is overwritten). */
void diag_move(diag *to, diag *from);

/* Internal invariant failure: records "internal error at file:line: msg" in
 * the diag and longjmps to d->bail when set; returns otherwise. */
void sw_internal_error(diag *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define sw_unreachable(d, ...) sw_internal_error((d), __FILE__, __LINE__, __VA_ARGS__)

/* Small helpers. */
uint64_t hash_bytes(const void *data, size_t n, uint64_t seed);

/* The candidate that `name` is most likely a misspelling of, for "did you
 * mean ...?" hints: the nearest by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, ignoring case), when that distance
 * is at most a third of the name's length (at least 1), or a candidate that
 * starts with `name` or that `name` starts with (4 characters or more).
 * NULL when none is close; `name` itself never counts. NULL entries of
 * `candidates` are skipped. */
const char *closest_name(const char *name, const char *const *candidates, size_t n);

#endif
