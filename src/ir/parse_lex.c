/* parse_lex.c - tokens of the IR text and syntax-error reporting. Requires a
 * source_file whose text holds `length` bytes (NULs and any other byte
 * allowed); guarantees tokens that lie inside the text, 1-based line:col
 * positions, and a caret diagnostic plus longjmp for every bad character. */
#include "parse_internal.h"

#include <stdio.h>
#include <string.h>

void lex_init(lexer *lx, const source_file *src, diag *d, jmp_buf *fail)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->p = src->text ? src->text : "";
    lx->end = lx->p + (src->text ? src->length : 0);
    lx->line_start = lx->p;
    lx->line = 1;
    lx->after_last = (src_loc){1, 1};
    lx->d = d;
    lx->fail = fail;
}

_Noreturn void lex_error(lexer *lx, src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(lx->d, DIAG_COMPILE, lx->src, loc, fmt, ap);
    va_end(ap);
    longjmp(*lx->fail, 1);
}

static src_loc here(const lexer *lx, const char *p)
{
    size_t col = (size_t)(p - lx->line_start) + 1;
    return (src_loc){lx->line, col > INT32_MAX ? INT32_MAX : (int32_t)col};
}

bool tok_is(const token *t, tok_kind kind, const char *text)
{
    return t->kind == kind && (!text || (strlen(text) == t->len && !memcmp(text, t->start, t->len)));
}

/* ---- character classes ---------------------------------------------------- */

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
/* MLIR suffix-id characters: %x_1, %a.b, %$c, %-d. */
static bool is_suffix_char(char c) { return is_alpha(c) || is_digit(c) || c == '$' || c == '.' || c == '_' || c == '-'; }
static bool is_bare_char(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }

/* ---- the scanner ------------------------------------------------------------ */

static void skip_space(lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->p++;
            lx->line++;
            lx->line_start = lx->p;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else {
            return;
        }
    }
}

/* The text after a sigil: digits only when it starts with a digit (so
 * %12#0 splits at '#'), else a suffix-id. */
static const char *scan_suffix_id(lexer *lx, const char *p, char sigil)
{
    if (p < lx->end && is_digit(*p)) {
        while (p < lx->end && is_digit(*p))
            p++;
        return p;
    }
    if (p >= lx->end || !is_suffix_char(*p)) {
        const char *what = sigil == '%' ? "value name" : "block name";
        lex_error(lx, here(lx, p), "expected %s after '%c'", what, sigil);
    }
    while (p < lx->end && is_suffix_char(*p))
        p++;
    return p;
}

static const char *scan_string(lexer *lx, const char *p)
{
    const char *open = p++;
    while (p < lx->end && *p != '"') {
        if (*p == '\n' || *p == '\r')
            break;
        if (*p == '\\' && p + 1 < lx->end && p[1] != '\n')
            p++;
        p++;
    }
    if (p >= lx->end || *p != '"')
        lex_error(lx, here(lx, open), "unterminated string literal");
    return p + 1;
}

static const char *scan_number(lexer *lx, const char *p, tok_kind *kind)
{
    *kind = T_INT;
    if (p[0] == '0' && p + 2 < lx->end && (p[1] == 'x' || p[1] == 'X') && is_hex(p[2])) {
        p += 2;
        while (p < lx->end && is_hex(*p))
            p++;
        return p;
    }
    while (p < lx->end && is_digit(*p))
        p++;
    if (p < lx->end && *p == '.') {
        *kind = T_FLOAT;
        p++;
        while (p < lx->end && is_digit(*p))
            p++;
    }
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < lx->end && (*q == '+' || *q == '-'))
            q++;
        if (q < lx->end && is_digit(*q)) {
            *kind = T_FLOAT;
            p = q;
            while (p < lx->end && is_digit(*p))
                p++;
        }
    }
    return p;
}

token lex_next(lexer *lx)
{
    skip_space(lx);
    token t = {.kind = T_EOF, .start = lx->p, .len = 0, .loc = here(lx, lx->p)};
    if (lx->p >= lx->end) {
        t.loc = lx->after_last;
        return t;
    }
    const char *p = lx->p;
    char c = *p;
    switch (c) {
    case '(': t.kind = T_LPAREN, p++; break;
    case ')': t.kind = T_RPAREN, p++; break;
    case '{': t.kind = T_LBRACE, p++; break;
    case '}': t.kind = T_RBRACE, p++; break;
    case '[': t.kind = T_LSQUARE, p++; break;
    case ']': t.kind = T_RSQUARE, p++; break;
    case '<': t.kind = T_LESS, p++; break;
    case '>': t.kind = T_GREATER, p++; break;
    case ',': t.kind = T_COMMA, p++; break;
    case ':': t.kind = T_COLON, p++; break;
    case '=': t.kind = T_EQUAL, p++; break;
    case '+': t.kind = T_PLUS, p++; break;
    case '?': t.kind = T_QUESTION, p++; break;
    case '*': t.kind = T_STAR, p++; break;
    case '-':
        p++;
        t.kind = T_MINUS;
        if (p < lx->end && *p == '>')
            t.kind = T_ARROW, p++;
        break;
    case '%': t.kind = T_PERCENT, p = scan_suffix_id(lx, p + 1, '%'); break;
    case '^': t.kind = T_CARET, p = scan_suffix_id(lx, p + 1, '^'); break;
    case '#':
        t.kind = T_HASH;
        p++;
        while (p < lx->end && is_suffix_char(*p))
            p++;
        break;
    case '!':
        t.kind = T_BANG;
        p++;
        while (p < lx->end && is_bare_char(*p))
            p++;
        break;
    case '@':
        t.kind = T_AT;
        p++;
        if (p < lx->end && *p == '"') {
            p = scan_string(lx, p);
        } else {
            if (p >= lx->end || !(is_alpha(*p) || *p == '_'))
                lex_error(lx, here(lx, p), "expected symbol name after '@'");
            while (p < lx->end && is_suffix_char(*p))
                p++;
        }
        break;
    case '"': t.kind = T_STRING, p = scan_string(lx, p); break;
    default:
        if (is_digit(c)) {
            p = scan_number(lx, p, &t.kind);
        } else if (is_alpha(c) || c == '_') {
            t.kind = T_BARE;
            while (p < lx->end && is_bare_char(*p))
                p++;
        } else {
            unsigned char u = (unsigned char)c;
            if (u >= 0x20 && u < 0x7f)
                lex_error(lx, t.loc, "unexpected character '%c'", c);
            lex_error(lx, t.loc, "unexpected byte 0x%02X", u);
        }
    }
    t.len = (size_t)(p - lx->p);
    lx->p = p;
    lx->after_last = here(lx, p);
    return t;
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

char *lex_string_value(lexer *lx, arena *a, const token *t)
{
    const char *s = t->start, *e = t->start + t->len;
    while (s < e && *s != '"')
        s++; /* skips the '@' of @"sym" */
    s++, e--;
    char *out = arena_alloc(a, (size_t)(e - s) + 1);
    size_t o = 0;
    for (const char *p = s; p < e; p++) {
        /* Strings never span lines: the column is the token's plus the offset. */
        src_loc at = t->loc;
        at.col += (int32_t)(p - t->start);
        if (*p != '\\') {
            if (*p == 0)
                lex_error(lx, at, "string literal contains a NUL byte");
            out[o++] = *p;
            continue;
        }
        char n = p + 1 < e ? p[1] : 0;
        if (n == '"' || n == '\\') {
            out[o++] = n;
        } else if (n == 'n') {
            out[o++] = '\n';
        } else if (n == 't') {
            out[o++] = '\t';
        } else if (is_hex(n) && p + 2 < e && is_hex(p[2])) {
            char v = (char)(hex_value(n) * 16 + hex_value(p[2]));
            if (v == 0)
                lex_error(lx, at, "string literal contains a NUL byte");
            out[o++] = v;
            p++;
        } else {
            lex_error(lx, at, "unknown escape in string literal (use \\\", \\\\, \\n, \\t or \\XX)");
        }
        p++;
    }
    out[o] = 0;
    return out;
}
