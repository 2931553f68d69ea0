/* spec.c - parses signature and constexpr strings into a kernel_spec;
 * reports malformed entries as DIAG_ARGUMENT errors naming them. */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

bool spec_parse_type(const char *text, size_t len, ir_type *out)
{
    trim(&text, &len);
    bool ptr = false;
    if (len && text[0] == '*') {
        ptr = true;
        text++;
        len--;
        trim(&text, &len);
    }
    ir_dtype dt = ir_dtype_from_name(text, len);
    if (dt == DT_VOID)
        return false;
    *out = ptr ? ir_type_ptr(dt) : ir_type_scalar(dt);
    return true;
}

void spec_print_type(ir_type t, strbuf *out)
{
    if (t.kind == TY_PTR)
        sb_putc(out, '*');
    const char *name = ir_dtypes[t.dtype].name;
    if (name[0] == 'u') { /* "ui16" -> "u16", the signature's spelling */
        sb_putc(out, 'u');
        name += 2;
    }
    sb_puts(out, name);
}

/* An integer in the syntax strtoll reads (sign, then decimal digits or a 0x
 * or 0 prefix): such a value is an int, never a float, however long. */
static bool int_syntax(const char *text, size_t len)
{
    size_t i = 0;
    if (i < len && (text[i] == '+' || text[i] == '-'))
        i++;
    bool hex = len - i > 2 && text[i] == '0' && (text[i + 1] | 32) == 'x';
    if (hex)
        i += 2;
    if (i == len)
        return false;
    for (; i < len; i++)
        if (!(hex ? isxdigit((unsigned char)text[i]) : isdigit((unsigned char)text[i])))
            return false;
    return true;
}

bool spec_parse_value(const char *text, size_t len, const_value *out)
{
    trim(&text, &len);
    if (int_syntax(text, len) && len > 63)
        return false; /* far beyond int64, and no float */
    if (!len || len > 63)
        return false;
    char buf[64];
    memcpy(buf, text, len);
    buf[len] = 0;
    memset(out, 0, sizeof *out);
    if (!strcmp(buf, "True") || !strcmp(buf, "true")) {
        out->kind = CONST_BOOL;
        out->i = 1;
        return true;
    }
    if (!strcmp(buf, "False") || !strcmp(buf, "false")) {
        out->kind = CONST_BOOL;
        return true;
    }
    ir_dtype dt = ir_dtype_from_name(buf, len);
    if (dt != DT_VOID) {
        out->kind = CONST_DTYPE;
        out->i = dt;
        return true;
    }
    char *end = NULL;
    errno = 0;
    long long v = strtoll(buf, &end, 0);
    if (end && *end == 0 && errno == 0 && end != buf) {
        out->kind = CONST_INT;
        out->i = v;
        return true;
    }
    if (int_syntax(buf, len))
        return false; /* beyond int64: not silently a float */
    errno = 0;
    double f = strtod(buf, &end);
    if (end && *end == 0 && end != buf) {
        out->kind = CONST_FLOAT;
        out->f = f;
        return true;
    }
    return false;
}

/* ---- strings, None and tuples (spec_parse_value_ex) ---- */

#define SPEC_MAX_DEPTH 16

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 32);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A quoted string at t[*pos] ('...' or "..."); decodes its escapes. */
static bool parse_string(arena *a, const char *t, size_t n, size_t *pos, const_value *out)
{
    char q = t[*pos];
    size_t i = *pos + 1, end = i;
    while (end < n && t[end] != q) /* the closing quote bounds the text */
        end += t[end] == '\\' ? 2 : 1;
    char *buf = arena_alloc(a, end - i + 1);
    size_t len = 0;
    for (;; i++) {
        if (i >= n)
            return false; /* unterminated */
        char c = t[i];
        if (c == q)
            break;
        if (c == '\\') {
            if (++i >= n)
                return false;
            switch (t[i]) {
            case '\\': c = '\\'; break;
            case '\'': c = '\''; break;
            case '"': c = '"'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'x': {
                int hi = i + 1 < n ? hex_digit(t[i + 1]) : -1;
                int lo = i + 2 < n ? hex_digit(t[i + 2]) : -1;
                if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                    return false; /* a NUL would end the text */
                c = (char)(hi * 16 + lo);
                i += 2;
                break;
            }
            default: return false;
            }
        } else if (c == 0) {
            return false;
        }
        buf[len++] = c;
    }
    buf[len] = 0;
    memset(out, 0, sizeof *out);
    out->kind = CONST_STR;
    out->s = buf;
    *pos = i + 1;
    return true;
}

static void skip_space(const char *t, size_t n, size_t *pos)
{
    while (*pos < n && isspace((unsigned char)t[*pos]))
        (*pos)++;
}

static bool parse_item(arena *a, const char *t, size_t n, size_t *pos, const_value *out, int depth)
{
    skip_space(t, n, pos);
    if (*pos >= n)
        return false;
    char c = t[*pos];
    if (c == '\'' || c == '"')
        return parse_string(a, t, n, pos, out);
    if (c == '(') {
        if (depth >= SPEC_MAX_DEPTH)
            return false;
        (*pos)++;
        const_value *items = NULL;
        int nitems = 0, cap = 0;
        bool comma = false;
        for (;;) {
            skip_space(t, n, pos);
            if (*pos < n && t[*pos] == ')')
                break;
            const_value item;
            if (!parse_item(a, t, n, pos, &item, depth + 1))
                return false;
            VEC_PUSH(a, items, nitems, cap, item);
            skip_space(t, n, pos);
            if (*pos < n && t[*pos] == ',') {
                comma = true;
                (*pos)++;
            } else if (*pos >= n || t[*pos] != ')') {
                return false;
            }
        }
        (*pos)++;
        if (nitems == 1 && !comma) { /* (5) is 5, as in Python */
            *out = items[0];
            return true;
        }
        memset(out, 0, sizeof *out);
        out->kind = CONST_TUPLE;
        out->items = items;
        out->nitems = nitems;
        return true;
    }
    size_t start = *pos;
    while (*pos < n && t[*pos] != ',' && t[*pos] != ')' && t[*pos] != '(' && t[*pos] != '\'' &&
           t[*pos] != '"')
        (*pos)++;
    const char *tok = t + start;
    size_t len = *pos - start;
    trim(&tok, &len);
    if (len == 4 && !memcmp(tok, "None", 4)) {
        memset(out, 0, sizeof *out);
        out->kind = CONST_NONE;
        return true;
    }
    return spec_parse_value(tok, len, out);
}

bool spec_parse_value_ex(arena *a, const char *text, size_t len, const_value *out)
{
    trim(&text, &len);
    size_t pos = 0;
    if (!parse_item(a, text, len, &pos, out, 0))
        return false;
    skip_space(text, len, &pos);
    return pos == len;
}

/* The end of the entry that starts at p: the next comma outside quotes and
 * parentheses, or the end of the text. */
static size_t entry_length(const char *p)
{
    int depth = 0;
    char quote = 0;
    size_t i = 0;
    for (; p[i]; i++) {
        char c = p[i];
        if (quote) {
            if (c == '\\' && p[i + 1])
                i++;
            else if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(') {
            depth++;
        } else if (c == ')') {
            depth -= depth > 0;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    return i;
}

static bool is_ident(const char *s, size_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* At most 40 characters of a value for a message ("1000000000...000 (401
 * characters)"): a message stays one short line whatever the input. */
static const char *short_text(const char *s, size_t n, char buf[80])
{
    if (n <= 40)
        snprintf(buf, 80, "%.*s", (int)n, s);
    else
        snprintf(buf, 80, "%.16s...%.8s (%zu characters)", s, s + n - 8, n);
    return buf;
}

/* Splits "a=x,b=y" and calls `entry` for each; handles errors uniformly. */
static bool parse_list(arena *a, const char *text, const char *what, kernel_spec *out, bool types,
                       diag *d)
{
    if (!text)
        return true;
    const char *p = text;
    while (*p) {
        size_t n = entry_length(p);
        const char *item = p;
        size_t len = n;
        trim(&item, &len);
        p = p[n] ? p + n + 1 : p + n;
        if (!len)
            continue;
        const char *eq = memchr(item, '=', len);
        char shown[80];
        if (!eq) {
            diag_error(d, DIAG_ARGUMENT, "%s entry '%s' is not of the form name=value", what,
                       short_text(item, len, shown));
            return false;
        }
        const char *name = item, *val = eq + 1;
        size_t nlen = (size_t)(eq - item), vlen = len - nlen - 1;
        trim(&name, &nlen);
        if (!is_ident(name, nlen)) {
            diag_error(d, DIAG_ARGUMENT, "%s entry '%s' does not start with a parameter name",
                       what, short_text(item, len, shown));
            return false;
        }
        spec_entry e = {.name = arena_strndup(a, name, nlen)};
        if (types ? !spec_parse_type(val, vlen, &e.type) : !spec_parse_value_ex(a, val, vlen, &e.value)) {
            trim(&val, &vlen);
            if (!types && int_syntax(val, vlen))
                diag_error(d, DIAG_ARGUMENT,
                           "constexpr '%s' = %s does not fit int64 (compile-time integers are "
                           "int64: -2**63 to 2**63-1)", e.name, short_text(val, vlen, shown));
            else
                diag_error(d, DIAG_ARGUMENT,
                           types ? "signature gives '%s' the unknown type '%s' (expected e.g. *f32, "
                                   "i32, f16, *bf16, i64, i1)"
                                 : "constexpr '%s' has the value '%s', which is not an int, float, "
                                   "bool, dtype, quoted string ('relu'), None or tuple ((16, 32))",
                           e.name, short_text(val, vlen, shown));
            return false;
        }
        if (types ? spec_find_type(out, e.name) : spec_find_constexpr(out, e.name)) {
            diag_error(d, DIAG_ARGUMENT, "%s gives '%s' twice", what, e.name);
            return false;
        }
        if (types)
            VEC_PUSH(a, out->types, out->ntypes, out->captypes, e);
        else
            VEC_PUSH(a, out->constexprs, out->nconstexprs, out->capconstexprs, e);
    }
    return true;
}

bool spec_parse(arena *a, const char *signature, const char *constexprs, kernel_spec *out, diag *d)
{
    memset(out, 0, sizeof *out);
    return parse_list(a, signature, "signature", out, true, d) &&
           parse_list(a, constexprs, "constexprs", out, false, d);
}

spec_entry *spec_find_type(kernel_spec *s, const char *name)
{
    for (int i = 0; i < s->ntypes; i++)
        if (!strcmp(s->types[i].name, name))
            return &s->types[i];
    return NULL;
}

spec_entry *spec_find_constexpr(kernel_spec *s, const char *name)
{
    for (int i = 0; i < s->nconstexprs; i++)
        if (!strcmp(s->constexprs[i].name, name))
            return &s->constexprs[i];
    return NULL;
}
