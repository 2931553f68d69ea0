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
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *item = p;
        size_t len = n;
        trim(&item, &len);
        p = comma ? comma + 1 : p + n;
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
        if (types ? !spec_parse_type(val, vlen, &e.type) : !spec_parse_value(val, vlen, &e.value)) {
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
                                   "bool or dtype",
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
