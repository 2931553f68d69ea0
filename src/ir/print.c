/* print.c - writes a module as MLIR text (docs/ir-format.md). Requires any
 * module, verified or not (dumps of broken IR help debugging); guarantees
 * that the text of a verified module parses back into a module that prints
 * identically, locations included when they are printed. */
#include "ir.h"
#include "scalar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
    const ir_module *m;
    strbuf *out;
    bool locations;
    int32_t *num;      /* per value: its %N, or -1 when it has none */
    const char **name; /* per value: the parameter name it prints as, or NULL */
    int32_t next;      /* the next free %N */
} printer;

static bool value_ok(const printer *p, ir_value v) { return v >= 0 && v < p->m->nvalues; }

/* ---- output -------------------------------------------------------------- */

/* sb_putn with the common case (room in the buffer) inline: a module's text
 * is made of many short pieces. */
static inline void put_n(strbuf *out, const char *s, size_t n)
{
    if (!out->oom && out->len + n < out->cap) {
        memcpy(out->data + out->len, s, n);
        out->len += n;
        out->data[out->len] = 0;
    } else {
        sb_putn(out, s, n);
    }
}

static inline void put_c(strbuf *out, char c) { put_n(out, &c, 1); }
static inline void put_s(strbuf *out, const char *s) { put_n(out, s, strlen(s)); }

static void put_int(strbuf *out, int64_t v)
{
    char buf[24];
    put_n(out, buf, ir_int_text(v, buf));
}

static void put_type(strbuf *out, ir_type t)
{
    char buf[64];
    put_n(out, buf, ir_type_text(t, buf));
}

/* ---- numbering ---------------------------------------------------------- */

static bool is_id_punct(char c) { return c == '$' || c == '.' || c == '_' || c == '-'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A parameter keeps its source name when it is an MLIR suffix-id that
 * cannot be mistaken for a number: a letter or [$._-], then letters,
 * digits and [$._-]. All-digit names would collide with %N numbering. */
static bool is_param_name(const char *s)
{
    if (!s || !(is_alpha(s[0]) || is_id_punct(s[0])))
        return false;
    for (const char *c = s; *c; c++)
        if (!(is_alpha(*c) || is_digit(*c) || is_id_punct(*c)))
            return false;
    return true;
}

static bool is_pretty_func(const ir_op *op)
{
    return op->kind == IR_FUNC && op->noperands == 0 && op->nresults == 0 && op->nregions == 1 &&
           op->regions[0];
}

static void number_block(printer *p, const ir_block *b);

/* A parameter prints as its name when the name is a valid one that no
 * earlier parameter of the function already took; the names taken are
 * kept in a hash set (open addressing over 2 * nargs slots). */
static void number_params(printer *p, const ir_block *b)
{
    uint32_t nslots = 16;
    while (nslots < 2u * (uint32_t)b->nargs)
        nslots *= 2;
    const char **taken = calloc(nslots, sizeof *taken);
    if (!taken) {
        p->out->oom = true;
        return;
    }
    for (int i = 0; i < b->nargs; i++) {
        ir_value v = b->args[i];
        if (!value_ok(p, v))
            continue;
        const char *name = p->m->values[v].name;
        bool unique = is_param_name(name);
        if (unique) {
            uint32_t h = (uint32_t)hash_bytes(name, strlen(name), 0) & (nslots - 1);
            for (; taken[h] && unique; h = (h + 1) & (nslots - 1))
                unique = strcmp(taken[h], name) != 0;
            if (unique)
                taken[h] = name;
        }
        if (unique)
            p->name[v] = name;
        else
            p->num[v] = p->next++;
    }
    free(taken);
}

static void number_op(printer *p, const ir_op *op)
{
    if (is_pretty_func(op)) {
        number_params(p, op->regions[0]);
        number_block(p, op->regions[0]);
        return;
    }
    if (op->nresults > 0) {
        int32_t n = p->next++;
        for (int i = 0; i < op->nresults; i++)
            if (value_ok(p, op->results[i]))
                p->num[op->results[i]] = n;
    }
    for (int r = 0; r < op->nregions; r++) {
        const ir_block *b = op->regions[r];
        if (!b)
            continue;
        for (int i = 0; i < b->nargs; i++)
            if (value_ok(p, b->args[i]))
                p->num[b->args[i]] = p->next++;
        number_block(p, b);
    }
}

static void number_block(printer *p, const ir_block *b)
{
    for (const ir_op *op = b->first; op; op = op->next)
        number_op(p, op);
}

/* ---- atoms -------------------------------------------------------------- */

static void indent(printer *p, int level)
{
    static const char spaces[] = "                                ";
    for (int n = 2 * level; n > 0; n -= (int)sizeof spaces - 1)
        put_n(p->out, spaces, (size_t)(n < (int)sizeof spaces - 1 ? n : (int)sizeof spaces - 1));
}

static void print_value(printer *p, ir_value v)
{
    if (!value_ok(p, v)) {
        sb_printf(p->out, "%%<invalid:%d>", (int)v);
        return;
    }
    if (p->name[v]) {
        put_c(p->out, '%');
        put_s(p->out, p->name[v]);
        return;
    }
    if (p->num[v] < 0) {
        /* Defined by an op that is no longer in the module: broken IR. */
        sb_printf(p->out, "%%<detached:%d>", (int)v);
        return;
    }
    const ir_op *def = p->m->values[v].def;
    put_c(p->out, '%');
    put_int(p->out, p->num[v]);
    if (def && def->nresults > 1) {
        put_c(p->out, '#');
        put_int(p->out, p->m->values[v].index);
    }
}

static void print_value_type(printer *p, ir_value v)
{
    if (value_ok(p, v))
        put_type(p->out, p->m->values[v].type);
    else
        put_s(p->out, "<<invalid>>");
}

/* MLIR string literal: printable ASCII as is, '"' and '\' escaped, every
 * other byte as \XX. */
static void print_string(strbuf *out, const char *s)
{
    put_c(out, '"');
    const unsigned char *c = (const unsigned char *)s;
    while (c && *c) {
        const unsigned char *run = c; /* printable bytes go out in one piece */
        while (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\')
            c++;
        put_n(out, (const char *)run, (size_t)(c - run));
        if (!*c)
            break;
        if (*c == '"' || *c == '\\')
            sb_printf(out, "\\%c", *c);
        else
            sb_printf(out, "\\%02X", *c);
        c++;
    }
    put_c(out, '"');
}

/* Bare identifiers as MLIR's lexer reads them: [a-zA-Z_][a-zA-Z0-9_$.]*. */
static bool is_bare_id(const char *s)
{
    if (!s || !(is_alpha(s[0]) || s[0] == '_'))
        return false;
    for (const char *c = s; *c; c++)
        if (!(is_alpha(*c) || is_digit(*c) || *c == '_' || *c == '$' || *c == '.'))
            return false;
    return true;
}

static void print_name(strbuf *out, const char *s)
{
    if (is_bare_id(s))
        put_s(out, s);
    else
        print_string(out, s ? s : "");
}

/* ---- floats ------------------------------------------------------------- */

static bool same_double(double a, double b)
{
    return a == b && signbit(a) == signbit(b);
}

/* The value an attribute of dtype dt denotes (f32 attributes built from a
 * double like 0.1 mean the f32 nearest to it). */
static double round_to(ir_dtype dt, double v)
{
    return dt == DT_F64 ? v : ir_scalar_from_float(dt, v).f;
}

/* The float's bits as MLIR writes non-finite values: 0x7F800000 for f32. */
static void print_float_bits(strbuf *out, ir_dtype dt, double v)
{
    switch (dt) {
    case DT_F16: sb_printf(out, "0x%04X", (unsigned)ir_f32_to_f16((float)v)); break;
    case DT_BF16: sb_printf(out, "0x%04X", (unsigned)ir_f32_to_bf16((float)v)); break;
    case DT_F32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        sb_printf(out, "0x%08X", (unsigned)u);
        break;
    }
    default: {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        sb_printf(out, "0x%016llX", (unsigned long long)u);
        break;
    }
    }
}

/* Shortest "%.Ng" text, N from the format's guaranteed-exact digit count
 * up to the count that always round-trips, whose value in dt is v; with a
 * '.' always present (MLIR's lexer needs it: "1e+30" becomes "1.0e+30"). */
static void print_float_value(strbuf *out, ir_dtype dt, double v)
{
    v = round_to(dt, v);
    if (!isfinite(v)) {
        print_float_bits(out, dt, v);
        return;
    }
    int lo = 15, hi = 17;
    switch (dt) {
    case DT_F16: lo = 3, hi = 5; break;
    case DT_BF16: lo = 2, hi = 4; break;
    case DT_F32: lo = 6, hi = 9; break;
    default: break;
    }
    char text[64];
    /* f16/bf16 start at few digits, where %g would write 65504 as 6.55e+04;
     * small integers read better exact, and "%.0f" is exact for them. */
    if (v == floor(v) && fabs(v) < 1e6) {
        snprintf(text, sizeof text, "%.0f.0", v);
        put_s(out, text);
        return;
    }
    for (int prec = lo; prec <= 17; prec++) {
        if (prec > hi && prec < 17)
            continue; /* beyond the guarantee only %.17g is worth a try */
        snprintf(text, sizeof text - 3, "%.*g", prec, v);
        if (same_double(round_to(dt, strtod(text, NULL)), v)) {
            char *e = strchr(text, 'e');
            if (!strchr(text, '.')) {
                if (e) {
                    memmove(e + 2, e, strlen(e) + 1);
                    e[0] = '.', e[1] = '0';
                } else {
                    strcat(text, ".0");
                }
            }
            put_s(out, text);
            return;
        }
    }
    print_float_bits(out, dt, v); /* unreachable for IEEE formats */
}

/* ---- attributes --------------------------------------------------------- */

/* Untyped literals mean i64 and f64 in MLIR; print the type explicitly so
 * that a parsed module prints like the one that was built. */
static ir_type int_attr_type(const ir_attr *a)
{
    return a->type.kind == TY_VOID ? ir_type_scalar(DT_I64) : a->type;
}

static void print_attr_value(printer *p, const ir_attr *a)
{
    strbuf *out = p->out;
    switch (a->kind) {
    case ATTR_INT:
        if (a->type.kind == TY_SCALAR && a->type.dtype == DT_U64 && a->i < 0) {
            /* a ui64 from 2^63 up, held as its bits: its unsigned value */
            sb_printf(out, "%llu", (unsigned long long)(uint64_t)a->i);
        } else {
            put_int(out, a->i);
        }
        put_s(out, " : ");
        put_type(out, int_attr_type(a));
        break;
    case ATTR_FLOAT: {
        bool is_float = a->type.kind == TY_SCALAR && ir_dtype_is_float((ir_dtype)a->type.dtype);
        ir_dtype dt = is_float ? (ir_dtype)a->type.dtype : DT_F64;
        print_float_value(out, dt, a->f);
        put_s(out, " : ");
        put_type(out, is_float ? a->type : ir_type_scalar(DT_F64));
        break;
    }
    case ATTR_STR: print_string(out, a->s ? a->s : ""); break;
    case ATTR_BOOL: put_s(out, a->i ? "true" : "false"); break;
    case ATTR_TYPE: put_type(out, a->type); break;
    default: put_s(out, "<<bad attribute>>"); break;
    }
}

static int attr_cmp(const void *a, const void *b)
{
    const ir_attr *x = *(const ir_attr *const *)a, *y = *(const ir_attr *const *)b;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Prints " {a = 1 : i32, b = ...}" in name order; `skip` (may be NULL) is
 * left out. Prints nothing when no attribute remains. */
static void print_attr_dict(printer *p, const ir_op *op, const ir_attr *skip, const char *lead)
{
    int n = 0;
    for (int i = 0; i < op->nattrs; i++)
        n += &op->attrs[i] != skip;
    if (n == 0)
        return;
    /* Most ops have an attribute or two: no allocation for them. */
    const ir_attr *few[8];
    const ir_attr **sorted = n <= 8 ? few : malloc(sizeof *sorted * (size_t)n);
    if (!sorted) {
        p->out->oom = true;
        return;
    }
    n = 0;
    for (int i = 0; i < op->nattrs; i++)
        if (&op->attrs[i] != skip)
            sorted[n++] = &op->attrs[i];
    if (n > 1)
        qsort(sorted, (size_t)n, sizeof *sorted, attr_cmp);
    put_s(p->out, lead);
    put_c(p->out, '{');
    for (int i = 0; i < n; i++) {
        if (i)
            put_s(p->out, ", ");
        print_name(p->out, sorted[i]->name ? sorted[i]->name : "");
        put_s(p->out, " = ");
        print_attr_value(p, sorted[i]);
    }
    put_c(p->out, '}');
    if (sorted != few)
        free(sorted);
}

static void print_loc(printer *p, const ir_op *op)
{
    if (!p->locations)
        return;
    if (op->loc.line <= 0) {
        put_s(p->out, " loc(unknown)");
        return;
    }
    const source_file *src = &p->m->src;
    long line = (long)op->loc.line + (src->first_line > 0 ? src->first_line : 1) - 1;
    put_s(p->out, " loc(");
    print_string(p->out, src->name ? src->name : "<unknown>");
    put_c(p->out, ':');
    put_int(p->out, line);
    put_c(p->out, ':');
    put_int(p->out, op->loc.col);
    put_c(p->out, ')');
}

/* ---- ops ---------------------------------------------------------------- */

static void print_op(printer *p, const ir_op *op, int level);

static void print_block_ops(printer *p, const ir_block *b, int level)
{
    for (const ir_op *op = b->first; op; op = op->next)
        print_op(p, op, level);
}

static void print_func(printer *p, const ir_op *op, int level)
{
    const ir_block *body = op->regions[0];
    const ir_attr *sym = ir_attr_get(op, "sym_name");
    if (sym && sym->kind != ATTR_STR)
        sym = NULL; /* printed in the attribute dictionary instead */
    indent(p, level);
    put_s(p->out, "func.func @");
    print_name(p->out, sym && sym->s ? sym->s : "");
    put_c(p->out, '(');
    for (int i = 0; i < body->nargs; i++) {
        if (i)
            put_s(p->out, ", ");
        print_value(p, body->args[i]);
        put_s(p->out, ": ");
        print_value_type(p, body->args[i]);
    }
    put_c(p->out, ')');
    print_attr_dict(p, op, sym, " attributes ");
    put_s(p->out, " {\n");
    print_block_ops(p, body, level + 1);
    indent(p, level);
    put_c(p->out, '}');
    print_loc(p, op);
    put_c(p->out, '\n');
}

static void print_region(printer *p, const ir_block *b, int level)
{
    put_s(p->out, "{\n");
    if (b && b->nargs > 0) {
        indent(p, level);
        put_s(p->out, "^bb0(");
        for (int i = 0; i < b->nargs; i++) {
            if (i)
                put_s(p->out, ", ");
            print_value(p, b->args[i]);
            put_s(p->out, ": ");
            print_value_type(p, b->args[i]);
        }
        put_s(p->out, "):\n");
    }
    if (b)
        print_block_ops(p, b, level + 1);
    indent(p, level);
    put_c(p->out, '}');
}

static void print_op(printer *p, const ir_op *op, int level)
{
    if (is_pretty_func(op)) {
        print_func(p, op, level);
        return;
    }
    indent(p, level);
    if (op->nresults > 0) {
        ir_value r0 = op->results[0];
        int32_t n = value_ok(p, r0) ? p->num[r0] : -1;
        put_c(p->out, '%');
        put_int(p->out, n);
        if (op->nresults > 1) {
            put_c(p->out, ':');
            put_int(p->out, op->nresults);
        }
        put_s(p->out, " = ");
    }
    print_string(p->out, (unsigned)op->kind < IR_OP_COUNT ? ir_ops[op->kind].name : "<unknown-op>");
    put_c(p->out, '(');
    for (int i = 0; i < op->noperands; i++) {
        if (i)
            put_s(p->out, ", ");
        print_value(p, op->operands[i]);
    }
    put_c(p->out, ')');
    if (op->nregions > 0) {
        put_s(p->out, " (");
        for (int r = 0; r < op->nregions; r++) {
            if (r)
                put_s(p->out, ", ");
            print_region(p, op->regions[r], level);
        }
        put_c(p->out, ')');
    }
    print_attr_dict(p, op, NULL, " ");
    put_s(p->out, " : (");
    for (int i = 0; i < op->noperands; i++) {
        if (i)
            put_s(p->out, ", ");
        print_value_type(p, op->operands[i]);
    }
    put_s(p->out, ") -> ");
    if (op->nresults == 1) {
        print_value_type(p, op->results[0]);
    } else {
        put_c(p->out, '(');
        for (int i = 0; i < op->nresults; i++) {
            if (i)
                put_s(p->out, ", ");
            print_value_type(p, op->results[i]);
        }
        put_c(p->out, ')');
    }
    print_loc(p, op);
    put_c(p->out, '\n');
}

void ir_print_module(const ir_module *m, const ir_print_options *opts, strbuf *out)
{
    printer p = {.m = m, .out = out, .locations = opts && opts->locations};
    size_t n = (size_t)(m->nvalues > 0 ? m->nvalues : 1);
    p.num = malloc(sizeof *p.num * n);
    p.name = calloc(n, sizeof *p.name);
    if (!p.num || !p.name) {
        free(p.num);
        free((void *)p.name);
        out->oom = true;
        return;
    }
    for (int32_t i = 0; i < m->nvalues; i++)
        p.num[i] = -1;
    if (m->body)
        number_block(&p, m->body);
    put_s(out, "module {\n");
    if (m->body)
        print_block_ops(&p, m->body, 1);
    put_s(out, "}\n");
    free(p.num);
    free((void *)p.name);
}
