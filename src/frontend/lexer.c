/* lexer.c - Python tokens of a kernel; never reads past src->length; reports one error. */
#include "lexer.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *text;
    tok_kind kind;
} keyword_table[] = {
#define LEX_ROW_(id, text) {text, TOK_##id},
    LEX_KEYWORDS(LEX_ROW_)
#undef LEX_ROW_
};

static const struct {
    const char *text;
    size_t len;
    tok_kind kind;
} operator_table[] = {
#define LEX_ROW_(id, text) {text, sizeof(text) - 1, TOK_##id},
    LEX_OPERATORS(LEX_ROW_)
#undef LEX_ROW_
};

const char *lex_py_kind_text(tok_kind kind)
{
    switch (kind) {
    case TOK_EOF: return "end of file";
    case TOK_ERROR: return "invalid token";
    case TOK_NEWLINE: return "end of line";
    case TOK_INDENT: return "indent";
    case TOK_DEDENT: return "unindent";
    case TOK_NAME: return "name";
    case TOK_INT: return "integer";
    case TOK_FLOAT: return "number";
    case TOK_STRING: return "string";
    default: break;
    }
    for (size_t i = 0; i < sizeof keyword_table / sizeof keyword_table[0]; i++)
        if (keyword_table[i].kind == kind)
            return keyword_table[i].text;
    for (size_t i = 0; i < sizeof operator_table / sizeof operator_table[0]; i++)
        if (operator_table[i].kind == kind)
            return operator_table[i].text;
    return "token";
}

void lex_py_init(lexer *lx, arena *a, const source_file *src, diag *d)
{
    memset(lx, 0, sizeof *lx);
    lx->a = a;
    lx->src = src;
    lx->d = d;
    lx->p = src->text ? src->text : "";
    lx->end = lx->p + (src->text ? src->length : 0);
    lx->line_start = lx->p;
    lx->line = 1;
    lx->at_line_start = true;
    lx->last_end = (src_loc){1, 1};
}

/* ---- small helpers ------------------------------------------------------ */

static src_loc loc_at(const lexer *lx, const char *q)
{
    ptrdiff_t col = q - lx->line_start + 1;
    return (src_loc){lx->line, col > INT32_MAX ? INT32_MAX : (int32_t)col};
}

static token error_token(lexer *lx, src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static token error_token(lexer *lx, src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(lx->d, DIAG_COMPILE, lx->src, loc, fmt, ap);
    va_end(ap);
    lx->failed = true;
    token t;
    memset(&t, 0, sizeof t);
    t.kind = TOK_ERROR;
    t.loc = t.end = loc;
    return t;
}

static token nomem_token(lexer *lx, src_loc loc)
{
    diag_error_at(lx->d, DIAG_NOMEM, lx->src, loc, "out of memory while reading the kernel source");
    lx->failed = true;
    token t;
    memset(&t, 0, sizeof t);
    t.kind = TOK_ERROR;
    t.loc = t.end = loc;
    return t;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_ident_char(unsigned char c) { return is_ident_start(c) || is_digit((char)c); }
static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if ((c | 32) >= 'a' && (c | 32) <= 'f')
        return (c | 32) - 'a' + 10;
    return -1;
}
static bool is_newline_at(const lexer *lx, const char *q)
{
    return q < lx->end && (*q == '\n' || (*q == '\r' && q + 1 < lx->end && q[1] == '\n'));
}

/* Consumes the newline at lx->p ("\n" or "\r\n") and starts the next line. */
static void take_newline(lexer *lx)
{
    lx->p += (*lx->p == '\r') ? 2 : 1;
    lx->line++;
    lx->line_start = lx->p;
}

static token make_token(lexer *lx, tok_kind kind, const char *start, src_loc loc)
{
    token t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.loc = loc;
    t.text = start;
    t.len = (size_t)(lx->p - start);
    t.end = loc_at(lx, lx->p);
    lx->last_end = t.end;
    lx->line_has_tokens = true;
    return t;
}

/* A character the tokenizer does not accept, described for the message. */
static token invalid_character(lexer *lx)
{
    src_loc loc = loc_at(lx, lx->p);
    unsigned char c = (unsigned char)*lx->p;
    if (c == 0)
        return error_token(lx, loc, "source code cannot contain null bytes");
    if (c == '!')
        return error_token(lx, loc, "invalid character '!'; use 'not' for logical negation");
    /* Python would end the line here, while diagnostics count '\n' only:
     * refuse rather than disagree about line numbers. */
    if (c == '\r')
        return error_token(lx, loc, "carriage return without a line feed; save the file with "
                                    "\\n or \\r\\n line endings");
    if (c < 0x80 && c >= 0x20 && c != 0x7f)
        return error_token(lx, loc, "invalid character '%c'", c);
    if (c < 0x80)
        return error_token(lx, loc, "invalid control character (byte 0x%02x)", c);
    /* Decode one UTF-8 sequence to name the character, as Python does. */
    int n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (n && c < 0xf5 && lx->end - lx->p >= n) {
        uint32_t cp = c & (0x7f >> n);
        bool ok = true;
        for (int i = 1; i < n; i++) {
            unsigned char cc = (unsigned char)lx->p[i];
            ok = ok && (cc & 0xc0) == 0x80;
            cp = (cp << 6) | (cc & 0x3f);
        }
        if (ok && cp >= (n == 3 ? 0x800u : n == 4 ? 0x10000u : 0x80u) && cp <= 0x10ffff)
            return error_token(lx, loc,
                               "invalid character '%.*s' (U+%04X); only ASCII is allowed "
                               "outside strings and comments",
                               n, lx->p, (unsigned)cp);
    }
    return error_token(lx, loc, "invalid byte 0x%02x (the source is not valid UTF-8)", c);
}

/* ---- numbers ------------------------------------------------------------ */

/* Digits of `base` with single underscores between them; returns the number
 * of digits seen, or -1 when an underscore is misplaced. */
static int scan_digits(lexer *lx, int base, bool allow_leading_underscore)
{
    int count = 0;
    bool last_underscore = false;
    while (lx->p < lx->end) {
        char c = *lx->p;
        int v = hex_value(c) >= 0 ? hex_value(c) : 99;
        if (c == '_') {
            if (last_underscore || (count == 0 && !allow_leading_underscore))
                return -1;
            last_underscore = true;
        } else if (v < base) {
            count += count < 1000000;
            last_underscore = false;
        } else {
            break;
        }
        lx->p++;
    }
    return last_underscore ? -1 : count;
}

/* CPython still accepts a keyword glued to a number (`1if x else 2`,
 * `0or 1`), with a warning; so do we. */
static bool keyword_follows(const lexer *lx)
{
    static const char *const glued[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    size_t avail = (size_t)(lx->end - lx->p);
    for (size_t i = 0; i < sizeof glued / sizeof glued[0]; i++) {
        size_t n = strlen(glued[i]);
        if (n <= avail && memcmp(lx->p, glued[i], n) == 0)
            return true;
    }
    return false;
}

static token lex_number(lexer *lx)
{
    const char *start = lx->p;
    src_loc loc = loc_at(lx, start);
    int base = 10;
    const char *base_name = "decimal";
    if (*lx->p == '0' && lx->p + 1 < lx->end) {
        char x = (char)(lx->p[1] | 32);
        base = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 10;
        base_name = base == 16 ? "hexadecimal"
                  : base == 8  ? "octal"
                  : base == 2  ? "binary"
                               : base_name;
    }
    bool is_float = false;
    if (base != 10) {
        lx->p += 2;
        if (scan_digits(lx, base, true) <= 0)
            return error_token(lx, loc, "invalid %s literal", base_name);
        /* A digit beyond the base ("0b102") is part of the bad literal. */
        if (lx->p < lx->end && is_ident_char((unsigned char)*lx->p) && !keyword_follows(lx))
            return error_token(lx, loc, "invalid %s literal", base_name);
    } else {
        int int_digits = 0;
        if (*lx->p != '.') {
            int_digits = scan_digits(lx, 10, false);
            if (int_digits < 0)
                return error_token(lx, loc, "invalid decimal literal");
        }
        if (lx->p < lx->end && *lx->p == '.') {
            is_float = true;
            lx->p++;
            if (lx->p < lx->end && is_digit(*lx->p) && scan_digits(lx, 10, false) < 0)
                return error_token(lx, loc, "invalid decimal literal");
        }
        if (lx->p < lx->end && (*lx->p | 32) == 'e' && !keyword_follows(lx)) {
            const char *q = lx->p + 1;
            if (q < lx->end && (*q == '+' || *q == '-'))
                q++;
            if (q < lx->end && is_digit(*q)) {
                is_float = true;
                lx->p = q;
                if (scan_digits(lx, 10, false) < 0)
                    return error_token(lx, loc, "invalid decimal literal");
            } else {
                return error_token(lx, loc, "invalid decimal literal (exponent without digits)");
            }
        }
        if (lx->p < lx->end && (*lx->p | 32) == 'j')
            return error_token(lx, loc, "complex literals are not supported in Swage kernels");
        if (lx->p < lx->end && !keyword_follows(lx) &&
            (is_ident_char((unsigned char)*lx->p) || (unsigned char)*lx->p >= 0x80))
            return error_token(lx, loc, "invalid decimal literal");
        if (!is_float && int_digits > 1 && *start == '0') {
            for (const char *q = start; q < lx->p; q++)
                if (*q != '0' && *q != '_')
                    return error_token(lx, loc,
                                       "leading zeros in decimal integer literals are not "
                                       "permitted; use an 0o prefix for octal integers");
        }
    }
    token t = make_token(lx, is_float ? TOK_FLOAT : TOK_INT, start, loc);
    if (is_float) {
        /* strtod honours the C locale's decimal point; spell it that way. */
        size_t n = t.len;
        char *buf = arena_alloc(lx->a, n + 8);
        if (!buf)
            return nomem_token(lx, loc);
        const char *point = localeconv()->decimal_point;
        if (!point || !*point || strlen(point) > 4)
            point = ".";
        size_t plen = strlen(point);
        char *w = buf;
        for (size_t i = 0; i < n; i++) {
            if (start[i] == '_')
                continue;
            if (start[i] == '.') {
                memcpy(w, point, plen);
                w += plen;
            } else {
                *w++ = start[i];
            }
        }
        *w = 0;
        t.fval = strtod(buf, NULL);
        return t;
    }
    uint64_t value = 0;
    bool overflow = false;
    const char *q = start + (base != 10 ? 2 : 0);
    for (; q < lx->p; q++) {
        if (*q == '_')
            continue;
        uint64_t v = (uint64_t)hex_value(*q);
        if (value > (UINT64_MAX - v) / (uint64_t)base) {
            overflow = true;
            break;
        }
        value = value * (uint64_t)base + v;
    }
    if (overflow)
        return error_token(lx, loc, "integer literal is too large (the largest is %llu, "
                                    "2**64 - 1, a uint64 as Triton types it)",
                           (unsigned long long)UINT64_MAX);
    /* From 2**63 to 2**64 - 1 a literal is a uint64, as Triton's: its bits
     * are held in ival. */
    t.u64 = value > (uint64_t)INT64_MAX;
    t.ival = (int64_t)value;
    return t;
}

/* ---- strings ------------------------------------------------------------ */

/* lx->p is at the opening quote; `start` at the prefix (if any). */
static token lex_string(lexer *lx, const char *start, bool raw)
{
    src_loc loc = loc_at(lx, start);
    char quote = *lx->p;
    bool triple = lx->end - lx->p >= 3 && lx->p[1] == quote && lx->p[2] == quote;
    lx->p += triple ? 3 : 1;
    const char *body = lx->p;
    /* Find the end first; line bookkeeping happens as we go. */
    for (;;) {
        if (lx->p >= lx->end)
            return error_token(lx, loc, triple ? "unterminated string literal (the triple-quoted "
                                                 "string opened here is never closed)"
                                               : "unterminated string literal");
        char c = *lx->p;
        if (c == '\\' && lx->p + 1 < lx->end) {
            lx->p++;
            if (is_newline_at(lx, lx->p))
                take_newline(lx);
            else if (*lx->p == '\r')
                return invalid_character(lx);
            else
                lx->p++;
            continue;
        }
        if (c == '\r' && !is_newline_at(lx, lx->p))
            return invalid_character(lx); /* Python would read a line break */
        if (c == '\n' || c == '\r') {
            if (!triple)
                return error_token(lx, loc, "unterminated string literal");
            take_newline(lx);
            continue;
        }
        if (c == quote) {
            if (!triple)
                break;
            if (lx->end - lx->p >= 3 && lx->p[1] == quote && lx->p[2] == quote)
                break;
        }
        lx->p++;
    }
    const char *body_end = lx->p;
    lx->p += triple ? 3 : 1;
    token t = make_token(lx, TOK_STRING, start, loc);
    size_t n = (size_t)(body_end - body);
    char *out = arena_alloc(lx->a, n + 1);
    if (!out)
        return nomem_token(lx, loc);
    size_t w = 0;
    for (const char *q = body; q < body_end;) {
        if (*q == '\r' && q + 1 < body_end && q[1] == '\n') { /* universal newlines */
            q++;
            continue;
        }
        if (raw || *q != '\\' || q + 1 >= body_end) {
            out[w++] = *q++;
            continue;
        }
        char e = q[1];
        q += 2;
        switch (e) {
        case '\n': break;
        case '\r': q += (q < body_end && *q == '\n'); break;
        case 'n': out[w++] = '\n'; break;
        case 't': out[w++] = '\t'; break;
        case 'r': out[w++] = '\r'; break;
        case 'a': out[w++] = '\a'; break;
        case 'b': out[w++] = '\b'; break;
        case 'f': out[w++] = '\f'; break;
        case 'v': out[w++] = '\v'; break;
        case '\\': case '\'': case '"': out[w++] = e; break;
        case 'x':
            if (body_end - q >= 2 && hex_value(q[0]) >= 0 && hex_value(q[1]) >= 0) {
                out[w++] = (char)(hex_value(q[0]) * 16 + hex_value(q[1]));
                q += 2;
            } else {
                out[w++] = '\\';
                out[w++] = e;
            }
            break;
        default:
            if (e >= '0' && e <= '7') {
                int v = e - '0';
                for (int i = 0; i < 2 && q < body_end && *q >= '0' && *q <= '7'; i++)
                    v = v * 8 + (*q++ - '0');
                out[w++] = (char)v;
            } else { /* \u, \N{...} and unknown escapes stay as written */
                out[w++] = '\\';
                out[w++] = e;
            }
        }
    }
    out[w] = 0;
    t.str = out;
    t.str_len = w;
    return t;
}

/* ---- names, operators --------------------------------------------------- */

static token lex_name(lexer *lx)
{
    const char *start = lx->p;
    src_loc loc = loc_at(lx, start);
    while (lx->p < lx->end && is_ident_char((unsigned char)*lx->p))
        lx->p++;
    size_t n = (size_t)(lx->p - start);
    if (lx->p < lx->end && (unsigned char)*lx->p >= 0x80)
        return invalid_character(lx);
    if (n <= 2 && lx->p < lx->end && (*lx->p == '\'' || *lx->p == '"')) {
        bool raw = false, fstring = false, ok = true;
        for (size_t i = 0; i < n; i++) {
            char c = (char)(start[i] | 32);
            raw |= c == 'r';
            fstring |= c == 'f' || c == 't';
            ok &= c == 'r' || c == 'b' || c == 'u' || c == 'f' || c == 't';
        }
        if (ok && n == 2 && ((start[0] | 32) == (start[1] | 32) || (start[0] | 32) == 'u' ||
                             (start[1] | 32) == 'u'))
            ok = false;
        if (ok && fstring)
            return error_token(lx, loc, "f-strings are not supported in Swage kernels");
        if (ok)
            return lex_string(lx, start, raw);
    }
    token t = make_token(lx, TOK_NAME, start, loc);
    for (size_t i = 0; i < sizeof keyword_table / sizeof keyword_table[0]; i++)
        if (strlen(keyword_table[i].text) == n && memcmp(keyword_table[i].text, start, n) == 0) {
            t.kind = keyword_table[i].kind;
            t.str = keyword_table[i].text;
            t.str_len = n;
            return t;
        }
    char *name = arena_strndup(lx->a, start, n);
    if (!name)
        return nomem_token(lx, loc);
    t.str = name;
    t.str_len = n;
    return t;
}

static token lex_operator(lexer *lx)
{
    const char *start = lx->p;
    src_loc loc = loc_at(lx, start);
    size_t avail = (size_t)(lx->end - lx->p);
    for (size_t i = 0; i < sizeof operator_table / sizeof operator_table[0]; i++) {
        size_t n = operator_table[i].len;
        if (n > avail || memcmp(operator_table[i].text, start, n) != 0)
            continue;
        tok_kind kind = operator_table[i].kind;
        bool unmatched = false;
        if (kind == TOK_LPAREN || kind == TOK_LBRACKET || kind == TOK_LBRACE) {
            if (lx->paren_depth >= LEX_MAX_PAREN)
                return error_token(lx, loc, "too many nested parentheses");
            lx->paren_depth++;
        } else if (kind == TOK_RPAREN || kind == TOK_RBRACKET || kind == TOK_RBRACE) {
            if (lx->paren_depth > 0)
                lx->paren_depth--;
            else
                unmatched = true;
        }
        lx->p += n;
        token t = make_token(lx, kind, start, loc);
        t.unmatched = unmatched;
        return t;
    }
    return invalid_character(lx);
}

/* ---- lines and indentation ---------------------------------------------- */

/* A comment ends at a newline, or at a lone '\r', which is then reported. */
static void skip_comment(lexer *lx)
{
    while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r')
        lx->p++;
}

/* At the start of a physical line: measures its indentation. Blank and
 * comment-only lines are consumed and give false. As in CPython, a backslash
 * continuation inside the indentation fixes the level at its own column,
 * unless it stands in column 0. */
static bool measure_line(lexer *lx, int *col, int *alt)
{
    const char *q = lx->p;
    int c8 = 0, c1 = 0, cont8 = 0, cont1 = 0;
    bool joined = false;
    while (q < lx->end) {
        if (*q == '\\' && is_newline_at(lx, q + 1)) {
            joined = true;
            if (!cont8) {
                cont8 = c8;
                cont1 = c1;
            }
            lx->p = q + 1;
            take_newline(lx);
            q = lx->p;
            continue;
        }
        if (*q == ' ') {
            c8++, c1++;
        } else if (*q == '\t') {
            c8 = (c8 / 8 + 1) * 8;
            c1++;
        } else if (*q == '\f') {
            c8 = c1 = 0;
        } else {
            break;
        }
        if (c8 > 1000000)
            c8 = c1 = 1000000; /* keep the arithmetic bounded */
        q++;
    }
    lx->p = q;
    if (q >= lx->end) {
        if (joined)
            error_token(lx, lx->last_end,
                        "unexpected end of file after line continuation character");
        return false;
    }
    if (cont8) {
        c8 = cont8;
        c1 = cont1;
    }
    if (*q == '#')
        skip_comment(lx);
    if (is_newline_at(lx, lx->p)) {
        take_newline(lx);
        return false;
    }
    if (lx->p >= lx->end)
        return false;
    *col = c8;
    *alt = c1;
    return true;
}

static token indent_token(lexer *lx, tok_kind kind)
{
    token t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.loc = t.end = loc_at(lx, lx->p);
    t.text = lx->p;
    return t;
}

/* Compares the new line's indentation with the stack; returns INDENT,
 * DEDENT, an error, or TOK_EOF meaning "same level, go on". */
static token indentation(lexer *lx, int col, int alt)
{
    src_loc loc = loc_at(lx, lx->p);
    if (lx->nindent == 0) {
        lx->indent[0] = col;
        lx->alt_indent[0] = alt;
        lx->nindent = 1;
        return indent_token(lx, TOK_EOF);
    }
    int top = lx->indent[lx->nindent - 1], alt_top = lx->alt_indent[lx->nindent - 1];
    if (col == top) {
        if (alt != alt_top)
            return error_token(lx, loc, "inconsistent use of tabs and spaces in indentation");
        return indent_token(lx, TOK_EOF);
    }
    if (col > top) {
        if (alt <= alt_top)
            return error_token(lx, loc, "inconsistent use of tabs and spaces in indentation");
        if (lx->nindent >= LEX_MAX_INDENT)
            return error_token(lx, loc, "too many levels of indentation");
        lx->indent[lx->nindent] = col;
        lx->alt_indent[lx->nindent] = alt;
        lx->nindent++;
        return indent_token(lx, TOK_INDENT);
    }
    int pops = 0;
    while (lx->nindent > 1 && col < lx->indent[lx->nindent - 1]) {
        lx->nindent--;
        pops++;
    }
    if (col != lx->indent[lx->nindent - 1])
        return error_token(lx, loc, "unindent does not match any outer indentation level");
    if (alt != lx->alt_indent[lx->nindent - 1])
        return error_token(lx, loc, "inconsistent use of tabs and spaces in indentation");
    lx->pending_dedents = pops - 1;
    lx->dedent_loc = loc;
    return indent_token(lx, TOK_DEDENT);
}

token lex_py_next(lexer *lx)
{
    if (lx->failed) {
        token t;
        memset(&t, 0, sizeof t);
        t.kind = TOK_ERROR;
        t.loc = t.end = lx->last_end;
        return t;
    }
    if (lx->pending_dedents > 0) {
        lx->pending_dedents--;
        token t = indent_token(lx, TOK_DEDENT);
        t.loc = t.end = lx->dedent_loc;
        return t;
    }
next_line:
    if (lx->at_line_start && lx->paren_depth == 0) {
        int col = 0, alt = 0;
        while (lx->p < lx->end && !measure_line(lx, &col, &alt)) {
        }
        if (lx->failed)
            return lex_py_next(lx); /* the error token */
        if (lx->p < lx->end) {
            lx->at_line_start = false;
            if (*lx->p == '\r' && !is_newline_at(lx, lx->p))
                return invalid_character(lx); /* before any INDENT it would cause */
            token t = indentation(lx, col, alt);
            if (t.kind != TOK_EOF)
                return t;
        }
    }
    for (;;) {
        if (lx->p >= lx->end) {
            token t;
            memset(&t, 0, sizeof t);
            t.loc = t.end = lx->last_end;
            t.text = lx->end;
            if (lx->line_has_tokens) {
                lx->line_has_tokens = false;
                lx->at_line_start = true;
                t.kind = TOK_NEWLINE;
            } else if (lx->nindent > 1) {
                lx->nindent--;
                t.kind = TOK_DEDENT;
            } else {
                t.kind = TOK_EOF;
            }
            return t;
        }
        char c = *lx->p;
        if (c == ' ' || c == '\t' || c == '\f') {
            lx->p++;
            continue;
        }
        if (c == '#') {
            skip_comment(lx);
            continue;
        }
        if (c == '\\') {
            if (lx->p + 1 >= lx->end)
                return error_token(lx, loc_at(lx, lx->p),
                                   "unexpected end of file after line continuation character");
            if (!is_newline_at(lx, lx->p + 1))
                return error_token(lx, loc_at(lx, lx->p),
                                   "unexpected character after line continuation character");
            lx->p++;
            take_newline(lx);
            if (lx->p >= lx->end)
                return error_token(lx, lx->last_end,
                                   "unexpected end of file after line continuation character");
            continue;
        }
        if (is_newline_at(lx, lx->p)) {
            token t;
            memset(&t, 0, sizeof t);
            t.loc = t.end = lx->last_end;
            t.text = lx->p;
            take_newline(lx);
            if (lx->paren_depth > 0 || !lx->line_has_tokens) {
                if (lx->paren_depth == 0) {
                    lx->at_line_start = true;
                    goto next_line; /* a line that held only a continuation */
                }
                continue;
            }
            lx->line_has_tokens = false;
            lx->at_line_start = true;
            t.kind = TOK_NEWLINE;
            return t;
        }
        unsigned char u = (unsigned char)c;
        if (is_ident_start(u))
            return lex_name(lx);
        if (is_digit(c) || (c == '.' && lx->p + 1 < lx->end && is_digit(lx->p[1])))
            return lex_number(lx);
        if (c == '\'' || c == '"')
            return lex_string(lx, lx->p, false);
        return lex_operator(lx);
    }
}
