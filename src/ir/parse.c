/* parse.c - reads the IR text (docs/ir-format.md) into a module. Requires
 * any bytes; guarantees either a module whose values are all defined before
 * use with correct scoping (ir_verify checks the rest), or NULL with one
 * caret diagnostic at the offending token. Never crashes; region nesting is
 * bounded, so recursion is too. */
#include "parse_internal.h"
#include "scalar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_DEPTH = 256,           /* nested regions */
    MAX_GROUP = 1 << 20,       /* results in one %N:k group */
};

/* A defined value name. Entries form a stack (regions pop what they
 * defined) threaded through hash buckets; the newest definition of a name
 * heads its bucket chain, so popping in stack order restores the chains. */
typedef struct name_entry {
    const char *name; /* into the IR text, without the '%' */
    size_t len;
    ir_op *op;        /* defining op (result group), or NULL for a block argument */
    int32_t first;    /* op: index of the group's first result; else the value */
    int32_t count;    /* values in the group */
    int32_t next;     /* next entry in the bucket chain, or -1 */
    uint32_t bucket;
    src_loc loc;
} name_entry;

typedef struct parser {
    lexer lx;
    token tok;
    source_file text;  /* the IR text (an arena copy), for caret diagnostics */
    ir_module *m;
    arena tmp;         /* scratch for this parse, freed at its end */
    name_entry *names;
    int32_t nnames, capnames;
    int32_t *buckets;
    uint32_t nbuckets;
    int32_t visible_from; /* entries below belong to an enclosing isolated scope */
    int depth;
    bool file_locs;       /* some op carried loc("file":L:C) */
    ir_op **unlocated;    /* ops whose loc is their position in the text */
    int32_t nunlocated, capunlocated;
} parser;

/* ---- errors and tokens ------------------------------------------------------ */

static _Noreturn void error_at(parser *p, src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void error_at(parser *p, src_loc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lex_error(&p->lx, loc, "%s", msg);
}

static void advance(parser *p) { p->tok = lex_next(&p->lx); }

static bool at(const parser *p, tok_kind kind) { return p->tok.kind == kind; }

/* The token after the current one, without consuming anything (the lexer
 * is a plain value, so a copy scans ahead). */
static token peek(const parser *p)
{
    lexer ahead = p->lx;
    return lex_next(&ahead);
}
static bool at_word(const parser *p, const char *word) { return tok_is(&p->tok, T_BARE, word); }

/* "expected X" at the current token; at the end of input, says so, since
 * there is no token for the caret to point at. */
static _Noreturn void expected(parser *p, const char *what)
{
    error_at(p, p->tok.loc, "expected %s%s", what, at(p, T_EOF) ? ", found end of input" : "");
}

static token expect(parser *p, tok_kind kind, const char *what)
{
    if (!at(p, kind))
        expected(p, what);
    token t = p->tok;
    advance(p);
    return t;
}

/* Closes a bracket; names the opener when it is on another line (Lua's
 * "expected ')' (to close '(' at line 3)"). */
static void expect_close(parser *p, tok_kind kind, const char *closer, const token *open)
{
    if (at(p, kind)) {
        advance(p);
        return;
    }
    char what[96];
    if (open->loc.line != p->tok.loc.line)
        snprintf(what, sizeof what, "'%s' (to close '%.*s' at line %d)", closer, (int)open->len,
                 open->start, (int)open->loc.line);
    else
        snprintf(what, sizeof what, "'%s'", closer);
    expected(p, what);
}

static char *token_text(parser *p, const token *t, size_t skip)
{
    return arena_strndup(&p->tmp, t->start + skip, t->len - skip);
}

/* Digits of an INT token, decimal or 0x hex; false when it overflows. */
static bool int_value(const token *t, uint64_t *out)
{
    const char *s = t->start, *e = t->start + t->len;
    unsigned base = 10;
    if (t->len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2;
    uint64_t v = 0;
    for (; s < e; s++) {
        unsigned d = *s <= '9' ? (unsigned)(*s - '0') : (unsigned)((*s | 0x20) - 'a' + 10);
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

static bool is_hex_token(const token *t)
{
    return t->kind == T_INT && t->len > 2 && (t->start[1] == 'x' || t->start[1] == 'X');
}

/* A small non-negative decimal (line, column, count, result number). */
static int32_t small_int(parser *p, const char *what, int32_t max)
{
    uint64_t v;
    if (!at(p, T_INT) || is_hex_token(&p->tok))
        expected(p, what);
    if (!int_value(&p->tok, &v) || v > (uint64_t)max)
        error_at(p, p->tok.loc, "%s is too large (at most %d)", what, (int)max);
    advance(p);
    return (int32_t)v;
}

/* ---- value names ------------------------------------------------------------- */

static uint32_t bucket_of(const parser *p, const char *s, size_t n)
{
    return (uint32_t)hash_bytes(s, n, 0) & (p->nbuckets - 1);
}

static name_entry *lookup(parser *p, const char *s, size_t n)
{
    for (int32_t i = p->buckets[bucket_of(p, s, n)]; i >= 0; i = p->names[i].next) {
        name_entry *e = &p->names[i];
        if (e->len == n && !memcmp(e->name, s, n))
            return i >= p->visible_from ? e : NULL;
    }
    return NULL;
}

/* Defines the name of token t (a %name) as `count` values. */
static void define(parser *p, const token *t, ir_op *op, int32_t first, int32_t count)
{
    const char *s = t->start + 1;
    size_t n = t->len - 1;
    name_entry *old = lookup(p, s, n);
    if (old)
        error_at(p, t->loc, "redefinition of value '%%%.*s' (first defined at line %d)", (int)n, s,
                 (int)old->loc.line);
    uint32_t b = bucket_of(p, s, n);
    name_entry e = {s, n, op, first, count, p->buckets[b], b, t->loc};
    VEC_PUSH(&p->tmp, p->names, p->nnames, p->capnames, e);
    p->buckets[b] = p->nnames - 1;
}

static void pop_names(parser *p, int32_t mark)
{
    while (p->nnames > mark) {
        name_entry *e = &p->names[--p->nnames];
        p->buckets[e->bucket] = e->next;
    }
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return n > 0;
}

typedef struct value_use {
    ir_value v;
    token name;
} value_use;

/* %name or %name#k. */
static value_use parse_use(parser *p)
{
    value_use u = {IR_NO_VALUE, p->tok};
    expect(p, T_PERCENT, "a value (%name)");
    int32_t index = 0;
    bool has_index = at(p, T_HASH);
    if (has_index) {
        token h = p->tok;
        if (h.len < 2 || !all_digits(h.start + 1, h.len - 1))
            error_at(p, h.loc, "expected a result number after '#'");
        uint64_t k = 0;
        for (size_t i = 1; i < h.len && k <= (uint64_t)MAX_GROUP; i++)
            k = k * 10 + (uint64_t)(h.start[i] - '0');
        index = k > (uint64_t)MAX_GROUP ? MAX_GROUP : (int32_t)k;
        advance(p);
    }
    const char *s = u.name.start + 1;
    int n = (int)(u.name.len - 1);
    name_entry *e = lookup(p, s, (size_t)n);
    if (!e)
        error_at(p, u.name.loc, "use of undefined value '%%%.*s'", n, s);
    if (index >= e->count)
        error_at(p, u.name.loc, "'%%%.*s' has %d result%s; there is no #%d", n, s, (int)e->count,
                 e->count == 1 ? "" : "s", (int)index);
    u.v = e->op ? e->op->results[e->first + index] : e->first;
    return u;
}

/* ---- types ------------------------------------------------------------------ */

static bool scalar_named(const char *s, size_t n, ir_dtype *dt)
{
    for (int i = 1; i < DT_COUNT; i++)
        if (strlen(ir_dtypes[i].name) == n && !memcmp(ir_dtypes[i].name, s, n)) {
            *dt = (ir_dtype)i;
            return true;
        }
    return false;
}

static _Noreturn void unknown_type(parser *p, src_loc loc, const char *s, size_t n)
{
    error_at(p, loc,
             "unknown type '%.*s' (types are i1 i8 ui8 i16 ui16 i32 ui32 i64 ui64 f16 bf16 f32 f64, "
             "!sw.ptr<T>, !sw.segment<T>, tensor<NxT> and tensor<?xT>)",
             (int)(n > 40 ? 40 : n), s);
}

/* !sw.ptr<T> or !sw.segment<T>: the two dialect types, each of one scalar. */
static ir_type parse_ptr(parser *p)
{
    token bang = p->tok;
    bool segment = tok_is(&bang, T_BANG, "!sw.segment");
    if (!segment && !tok_is(&bang, T_BANG, "!sw.ptr"))
        unknown_type(p, bang.loc, bang.start, bang.len);
    advance(p);
    token open = expect(p, T_LESS, segment ? "'<' after '!sw.segment'" : "'<' after '!sw.ptr'");
    ir_dtype dt;
    if (!at(p, T_BARE) || !scalar_named(p->tok.start, p->tok.len, &dt))
        expected(p, segment ? "a scalar type as the element of !sw.segment"
                            : "a scalar type as the pointee of !sw.ptr");
    advance(p);
    expect_close(p, T_GREATER, ">", &open);
    return segment ? ir_type_segment(dt) : ir_type_ptr(dt);
}

/* tensor<NxT> or tensor<MxNxT> ... (a tile of 1 to IR_MAX_RANK
 * dimensions), tensor<?xT> (a segment value: one element per element of
 * the program's segment) or vector<NxT> (a SIMT per-thread vector): each
 * dimension >= 1, element a scalar or !sw.ptr<T> (a segment value holds
 * numbers only). */
static ir_type parse_shaped(parser *p)
{
    bool is_vec = at_word(p, "vector");
    const char *kw = is_vec ? "vector" : "tensor";
    advance(p); /* tensor / vector */
    token open = expect(p, T_LESS, is_vec ? "'<' after 'vector'" : "'<' after 'tensor'");
    bool dynamic = at(p, T_QUESTION);
    uint64_t n = 0;
    if (dynamic) {
        if (is_vec)
            error_at(p, p->tok.loc, "dynamic vector dimensions are not supported");
    } else {
        if (!at(p, T_INT)) {
            char what[32];
            snprintf(what, sizeof what, "a %s dimension", kw);
            expected(p, what);
        }
        /* The lexer reads "0xf32" as a hex number; its dimension is 0. */
        if (!is_hex_token(&p->tok) && !int_value(&p->tok, &n))
            n = UINT64_MAX;
        if (n == 0)
            error_at(p, p->tok.loc, "%s dimension must be at least 1", kw);
        if (n > INT32_MAX)
            error_at(p, p->tok.loc, "%s dimension is too large (at most %d)", kw, INT32_MAX);
    }
    advance(p);
    /* "128xf32" lexes as 128 and "xf32"; "128x!sw.ptr<f32>" as 128, "x", "!sw.ptr". */
    token x = p->tok;
    if (x.kind != T_BARE || x.start[0] != 'x') {
        char what[48];
        snprintf(what, sizeof what, "'x' after the %s dimension", kw);
        expected(p, what);
    }
    ir_dtype dt;
    bool ptr = false;
    /* More dimensions: "16x32xf32" lexes as 16 and "x32xf32". */
    int32_t dims[IR_MAX_RANK] = {(int32_t)n};
    int rank = 1;
    if (x.len > 1 && x.start[1] >= '0' && x.start[1] <= '9') {
        if (is_vec || dynamic)
            error_at(p, (src_loc){x.loc.line, x.loc.col + 1}, "only 1-D %ss are supported", kw);
        size_t i = 0;
        while (i + 1 < x.len && x.start[i] == 'x' && x.start[i + 1] >= '0' && x.start[i + 1] <= '9') {
            src_loc at = {x.loc.line, x.loc.col + (int)i + 1};
            uint64_t d = 0;
            i++;
            while (i < x.len && x.start[i] >= '0' && x.start[i] <= '9') {
                d = d > (uint64_t)INT32_MAX ? d : d * 10 + (uint64_t)(x.start[i] - '0');
                i++;
            }
            if (rank == IR_MAX_RANK)
                error_at(p, at, "tensors of more than %d dimensions are not supported", IR_MAX_RANK);
            if (d == 0)
                error_at(p, at, "%s dimension must be at least 1", kw);
            if (d > INT32_MAX)
                error_at(p, at, "%s dimension is too large (at most %d)", kw, INT32_MAX);
            dims[rank++] = (int32_t)d;
        }
        if (i >= x.len || x.start[i] != 'x') {
            char what[48];
            snprintf(what, sizeof what, "'x' after the %s dimension", kw);
            error_at(p, (src_loc){x.loc.line, x.loc.col + (int)i}, "expected %s", what);
        }
        int64_t total = 1;
        for (int k = 0; k < rank; k++) {
            total *= dims[k];
            if (total > INT32_MAX) {
                error_at(p, x.loc, "%s of %d dimensions has more than %d elements", kw, rank, INT32_MAX);
                break;
            }
        }
        x.start += i;
        x.len -= i;
        x.loc.col += (int)i;
    }
    if (x.len == 1) {
        advance(p);
        if (at(p, T_BANG)) {
            token elem = p->tok;
            ir_type et = parse_ptr(p);
            if (et.kind != TY_PTR || dynamic)
                error_at(p, elem.loc, "a %s<%sx...> element must be a scalar type%s", kw,
                         dynamic ? "?" : "N", dynamic ? "" : " or !sw.ptr<T>");
            dt = (ir_dtype)et.dtype;
            ptr = true;
        } else if (at(p, T_BARE) && scalar_named(p->tok.start, p->tok.len, &dt)) {
            advance(p);
        } else {
            char what[48];
            snprintf(what, sizeof what, "a %s element type", kw);
            expected(p, what);
        }
    } else {
        src_loc elem_at = {x.loc.line, x.loc.col + 1};
        if (!scalar_named(x.start + 1, x.len - 1, &dt))
            unknown_type(p, elem_at, x.start + 1, x.len - 1);
        advance(p);
    }
    expect_close(p, T_GREATER, ">", &open);
    if (dynamic)
        return ir_type_segval(dt);
    if (is_vec)
        return ptr ? ir_type_ptr_vec(dt, (int32_t)n) : ir_type_vec(dt, (int32_t)n);
    return ir_type_tile_shape(dt, ptr, rank, dims);
}

static bool at_type(const parser *p)
{
    ir_dtype dt;
    return (at(p, T_BARE) && (scalar_named(p->tok.start, p->tok.len, &dt) || at_word(p, "tensor") ||
                           at_word(p, "vector"))) ||
           at(p, T_BANG);
}

static ir_type parse_type(parser *p)
{
    if (at_word(p, "tensor") || at_word(p, "vector"))
        return parse_shaped(p);
    if (at(p, T_BANG))
        return parse_ptr(p);
    ir_dtype dt;
    if (at(p, T_BARE)) {
        if (!scalar_named(p->tok.start, p->tok.len, &dt))
            unknown_type(p, p->tok.loc, p->tok.start, p->tok.len);
        advance(p);
        return ir_type_scalar(dt);
    }
    expected(p, "a type");
}

typedef struct type_list {
    ir_type *types;
    int32_t n, cap;
    token open;
} type_list;

/* '(' [type {',' type}] ')' */
static type_list parse_type_list(parser *p, const char *what)
{
    type_list l = {0};
    l.open = expect(p, T_LPAREN, what);
    if (!at(p, T_RPAREN)) {
        for (;;) {
            ir_type t = parse_type(p);
            VEC_PUSH(&p->tmp, l.types, l.n, l.cap, t);
            if (!at(p, T_COMMA))
                break;
            advance(p);
        }
    }
    expect_close(p, T_RPAREN, ")", &l.open);
    return l;
}

/* ---- attributes ------------------------------------------------------------- */

static double round_to(ir_dtype dt, double v)
{
    return dt == DT_F64 ? v : ir_scalar_from_float(dt, v).f;
}

/* The float whose bits are `bits` in dt (MLIR's hex form, e.g. 0x7F800000 : f32). */
static double float_of_bits(ir_dtype dt, uint64_t bits)
{
    switch (dt) {
    case DT_F16: return ir_f16_to_f32((uint16_t)bits);
    case DT_BF16: return ir_bf16_to_f32((uint16_t)bits);
    case DT_F32: {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default: {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    }
}

/* A number literal with its optional ": type" (untyped: i64 or f64). */
static void number_attr(parser *p, ir_attr *a, const token *num, bool neg, ir_type ty, src_loc ty_at)
{
    char tytext[64];
    if (ty.kind == TY_VOID)
        ty = ir_type_scalar(num->kind == T_INT ? DT_I64 : DT_F64);
    if (ty.kind != TY_SCALAR)
        error_at(p, ty_at, "a number attribute needs a scalar type, not %s", ir_type_str(ty, tytext));
    ir_dtype dt = (ir_dtype)ty.dtype;
    int bits = ir_dtypes[dt].bits;
    a->type = ty;
    if (ir_dtype_is_float(dt)) {
        a->kind = ATTR_FLOAT;
        if (is_hex_token(num)) {
            uint64_t v;
            if (neg)
                error_at(p, num->loc, "a hex float bit pattern cannot be negative");
            if (!int_value(num, &v) || (bits < 64 && v >> bits))
                error_at(p, num->loc, "hex literal does not fit in the %d bits of %s", bits,
                         ir_dtypes[dt].name);
            a->f = float_of_bits(dt, v);
            return;
        }
        double v = strtod(token_text(p, num, 0), NULL);
        a->f = round_to(dt, neg ? -v : v);
        return;
    }
    if (num->kind == T_FLOAT)
        error_at(p, ty_at, "a float literal needs a float type, not %s", ir_dtypes[dt].name);
    a->kind = ATTR_INT;
    uint64_t u;
    if (!int_value(num, &u))
        error_at(p, num->loc, "integer literal is too large");
    if (is_hex_token(num)) {
        /* A bit pattern of the type's width, as MLIR reads 0xFF : i8 (-1). */
        if (neg || (bits < 64 && u >> bits))
            error_at(p, num->loc, "hex literal does not fit in the %d bits of %s", bits,
                     ir_dtypes[dt].name);
        a->i = ir_scalar_from_int(dt, (int64_t)u).i;
        return;
    }
    /* Decimal: the type's own range (i1 is 0 or 1; ui8 0..255). */
    bool is_signed = ir_dtypes[dt].is_signed;
    uint64_t max_pos = dt == DT_I1      ? 1
                       : is_signed      ? (UINT64_C(1) << (bits - 1)) - 1
                       : bits >= 64     ? UINT64_MAX
                                        : (UINT64_C(1) << bits) - 1;
    uint64_t max_neg = is_signed ? UINT64_C(1) << (bits - 1) : 0;
    if ((!neg && u > max_pos) || (neg && u > max_neg))
        error_at(p, num->loc, "integer %s%.*s does not fit in %s", neg ? "-" : "", (int)num->len,
                 num->start, ir_dtypes[dt].name);
    if (neg)
        a->i = u == UINT64_C(1) << 63 ? INT64_MIN : -(int64_t)u;
    else
        a->i = ir_scalar_from_uint(dt, u).i; /* ui64 from 2^63 up: its bits */
}

static void parse_attr_value(parser *p, ir_attr *a)
{
    bool neg = at(p, T_MINUS);
    if (neg) {
        advance(p);
        if (!at(p, T_INT) && !at(p, T_FLOAT))
            expected(p, "a number after '-'");
    }
    if (at(p, T_INT) || at(p, T_FLOAT)) {
        token num = p->tok;
        advance(p);
        ir_type ty = ir_type_void();
        src_loc ty_at = num.loc;
        if (at(p, T_COLON)) {
            advance(p);
            ty_at = p->tok.loc;
            ty = parse_type(p);
        }
        number_attr(p, a, &num, neg, ty, ty_at);
    } else if (at_word(p, "true") || at_word(p, "false")) {
        a->kind = ATTR_BOOL;
        a->type = ir_type_scalar(DT_I1);
        a->i = at_word(p, "true");
        advance(p);
    } else if (at(p, T_STRING)) {
        a->kind = ATTR_STR;
        a->s = lex_string_value(&p->lx, &p->tmp, &p->tok);
        advance(p);
    } else if (at_type(p)) {
        a->kind = ATTR_TYPE;
        a->type = parse_type(p);
    } else if (at_word(p, "none")) {
        a->kind = ATTR_TYPE;
        a->type = ir_type_void();
        advance(p);
    } else if (at(p, T_LSQUARE)) {
        error_at(p, p->tok.loc, "array attributes are not supported");
    } else {
        expected(p, "an attribute value");
    }
}

typedef struct attr_list {
    ir_attr *attrs;
    int32_t n, cap;
    int32_t *slots;   /* hash index of the names: attribute + 1, 0 when free */
    uint32_t nslots;  /* a power of two, at least twice n */
} attr_list;

/* Adds a's name to l's index; false when l already has an attribute of
 * that name. */
static bool index_attr_name(parser *p, attr_list *l, const char *name)
{
    if (2 * (uint32_t)(l->n + 1) > l->nslots) {
        uint32_t n = l->nslots ? l->nslots * 2 : 16;
        l->slots = arena_alloc(&p->tmp, sizeof(int32_t) * n);
        l->nslots = n;
        for (int32_t i = 0; i < l->n; i++) {
            uint32_t h = (uint32_t)hash_bytes(l->attrs[i].name, strlen(l->attrs[i].name), 0) & (n - 1);
            while (l->slots[h])
                h = (h + 1) & (n - 1);
            l->slots[h] = i + 1;
        }
    }
    uint32_t mask = l->nslots - 1;
    uint32_t h = (uint32_t)hash_bytes(name, strlen(name), 0) & mask;
    for (; l->slots[h]; h = (h + 1) & mask)
        if (!strcmp(l->attrs[l->slots[h] - 1].name, name))
            return false;
    l->slots[h] = l->n + 1; /* the index the caller's push gives it */
    return true;
}

/* '{' [name '=' value {',' name '=' value}] '}' */
static attr_list parse_attr_dict(parser *p)
{
    attr_list l = {0};
    token open = expect(p, T_LBRACE, "'{' to start an attribute dictionary");
    while (!at(p, T_RBRACE)) {
        token name = p->tok;
        ir_attr a = {0};
        if (at(p, T_BARE))
            a.name = token_text(p, &name, 0);
        else if (at(p, T_STRING))
            a.name = lex_string_value(&p->lx, &p->tmp, &name);
        else
            expected(p, "an attribute name");
        if (!index_attr_name(p, &l, a.name))
            error_at(p, name.loc, "duplicate attribute '%s'", a.name);
        advance(p);
        expect(p, T_EQUAL, "'=' after the attribute name");
        parse_attr_value(p, &a);
        VEC_PUSH(&p->tmp, l.attrs, l.n, l.cap, a);
        if (!at(p, T_COMMA))
            break;
        advance(p);
    }
    expect_close(p, T_RBRACE, "}", &open);
    return l;
}

/* ---- locations ---------------------------------------------------------------- */

typedef struct parsed_loc {
    bool present; /* a loc(...) was written */
    bool known;   /* it was "file":L:C */
    src_loc at;
    const char *file;
} parsed_loc;

static parsed_loc parse_opt_loc(parser *p)
{
    parsed_loc l = {0};
    if (!at_word(p, "loc"))
        return l;
    l.present = true;
    advance(p);
    token open = expect(p, T_LPAREN, "'(' after 'loc'");
    if (at_word(p, "unknown")) {
        advance(p);
    } else if (at(p, T_STRING)) {
        l.file = lex_string_value(&p->lx, &p->tmp, &p->tok);
        advance(p);
        if (at(p, T_COLON)) { /* "file":L:C; a bare "name" is a name location: unknown */
            advance(p);
            l.at.line = small_int(p, "a line number", INT32_MAX);
            expect(p, T_COLON, "':' and a column number");
            l.at.col = small_int(p, "a column number", INT32_MAX);
            l.known = l.at.line > 0;
        }
    } else if (at(p, T_HASH)) {
        error_at(p, p->tok.loc, "location aliases (#loc) are not supported");
    } else {
        expected(p, "'unknown' or \"file\":line:col in loc(...)");
    }
    expect_close(p, T_RPAREN, ")", &open);
    return l;
}

/* Without loc(...) an op is placed at its position in the IR text; with
 * loc("file":L:C) at that place in the user's file, which then becomes the
 * module's source (no text: diagnostics print file:L:C without a caret). */
static void apply_loc(parser *p, ir_op *op, const parsed_loc *l, src_loc text_at)
{
    if (!l->present) {
        op->loc = text_at;
        VEC_PUSH(&p->tmp, p->unlocated, p->nunlocated, p->capunlocated, op);
        return;
    }
    op->loc = l->known ? l->at : (src_loc){0, 0};
    if (l->known && !p->file_locs) {
        p->file_locs = true;
        p->m->src.name = arena_strdup(p->m->ar, l->file);
        p->m->src.text = NULL;
        p->m->src.length = 0;
        p->m->src.first_line = 1;
    }
}

/* ---- ops and regions ------------------------------------------------------------ */

static ir_op *parse_op(parser *p);

static void enter(parser *p, const token *open)
{
    if (++p->depth > MAX_DEPTH)
        error_at(p, open->loc, "regions are nested too deeply (more than %d levels)", MAX_DEPTH);
}

/* Ops up to the closing '}' of `open`, appended to b. */
static void parse_block_body(parser *p, ir_block *b, const token *open)
{
    while (!at(p, T_RBRACE) && !at(p, T_EOF)) {
        if (at(p, T_CARET))
            error_at(p, p->tok.loc, "a region holds one block; a second block label is not supported");
        ir_block_append(b, parse_op(p));
    }
    expect_close(p, T_RBRACE, "}", open);
}

/* '(' %name ':' type [loc] {',' ...} ')': block arguments or parameters.
 * Parameters (named) keep their source names as printing hints. */
static void parse_block_args(parser *p, ir_block *b, bool named)
{
    token open = expect(p, T_LPAREN, "'('");
    while (!at(p, T_RPAREN)) {
        token name = expect(p, T_PERCENT, "an argument name (%name)");
        expect(p, T_COLON, "':' and the argument's type");
        ir_type t = parse_type(p);
        if (at(p, T_LBRACE))
            error_at(p, p->tok.loc, "argument attributes are not supported");
        parse_opt_loc(p);
        const char *hint = NULL;
        if (named && !all_digits(name.start + 1, name.len - 1))
            hint = token_text(p, &name, 1);
        ir_value v = ir_block_add_arg(p->m, b, t, hint);
        define(p, &name, NULL, v, 1);
        if (!at(p, T_COMMA))
            break;
        advance(p);
    }
    expect_close(p, T_RPAREN, ")", &open);
}

/* '{' [^bb0[(args)] ':'] ops '}'. An isolated region (a function body)
 * sees no value of the enclosing scopes. */
static ir_block *parse_region(parser *p, bool isolated, bool named_args)
{
    token open = expect(p, T_LBRACE, "'{' to start a region");
    enter(p, &open);
    int32_t mark = p->nnames, outer_visible = p->visible_from;
    if (isolated)
        p->visible_from = mark;
    ir_block *b = ir_block_create(p->m);
    if (at(p, T_CARET)) {
        advance(p);
        if (at(p, T_LPAREN))
            parse_block_args(p, b, named_args);
        expect(p, T_COLON, "':' after the block label");
    }
    parse_block_body(p, b, &open);
    pop_names(p, mark);
    p->visible_from = outer_visible;
    p->depth--;
    return b;
}

static void attach_regions(parser *p, ir_op *op, ir_block **regions, int32_t n)
{
    op->nregions = n;
    op->regions = arena_alloc(p->m->ar, sizeof(ir_block *) * (size_t)(n ? n : 1));
    for (int32_t i = 0; i < n; i++) {
        op->regions[i] = regions[i];
        regions[i]->parent_op = op;
    }
}

static void set_attrs(parser *p, ir_op *op, const attr_list *l)
{
    ir_attr_set_all(p->m, op, l->attrs, l->n);
}

/* func.func [private] @name(%a: T, ...) [attributes {...}] { ops } [loc] */
static ir_op *parse_func(parser *p)
{
    token kw = p->tok;
    advance(p);
    if (at_word(p, "private") || at_word(p, "public") || at_word(p, "nested"))
        advance(p);
    token sym = p->tok;
    if (!at(p, T_AT))
        expected(p, "a function name (@name) after 'func.func'");
    const char *name = sym.start[1] == '"' ? lex_string_value(&p->lx, &p->tmp, &sym)
                                           : token_text(p, &sym, 1);
    advance(p);
    int32_t mark = p->nnames, outer_visible = p->visible_from;
    p->visible_from = mark;
    ir_block *body = ir_block_create(p->m);
    if (!at(p, T_LPAREN))
        expected(p, "'(' to start the parameter list");
    parse_block_args(p, body, true);
    if (at(p, T_ARROW))
        error_at(p, p->tok.loc, "'func.func' results are not supported: kernels return nothing");
    attr_list attrs = {0};
    if (at_word(p, "attributes")) {
        advance(p);
        attrs = parse_attr_dict(p);
    }
    token open = expect(p, T_LBRACE, "'{' to start the function body");
    enter(p, &open);
    if (at(p, T_CARET))
        error_at(p, p->tok.loc,
                 "the body of 'func.func' takes its arguments from the signature; "
                 "remove the block label");
    parse_block_body(p, body, &open);
    p->depth--;
    pop_names(p, mark);
    p->visible_from = outer_visible;
    parsed_loc loc = parse_opt_loc(p);

    ir_op *op = ir_op_create(p->m, IR_FUNC, kw.loc, NULL, 0, NULL, 0, 0);
    attach_regions(p, op, &body, 1);
    ir_attr_set_str(p->m, op, "sym_name", name);
    set_attrs(p, op, &attrs);
    apply_loc(p, op, &loc, kw.loc);
    return op;
}

/* return / func.return [loc]: the pretty form, with no operands. */
static ir_op *parse_return(parser *p)
{
    token kw = p->tok;
    advance(p);
    parsed_loc loc = parse_opt_loc(p);
    ir_op *op = ir_op_create(p->m, IR_RETURN, kw.loc, NULL, 0, NULL, 0, 0);
    apply_loc(p, op, &loc, kw.loc);
    return op;
}

typedef struct result_group {
    token name;
    int32_t count;
} result_group;

/* [%a[:k], ... =] "dialect.op"(uses) [({...}, ...)] [{attrs}] : (types) -> types [loc] */
static ir_op *parse_generic(parser *p)
{
    result_group *groups = NULL;
    int32_t ngroups = 0, capgroups = 0, nnamed = 0;
    token first = p->tok;
    if (at(p, T_PERCENT)) {
        for (;;) {
            result_group g = {expect(p, T_PERCENT, "a result name (%name)"), 1};
            if (at(p, T_COLON)) {
                advance(p);
                g.count = small_int(p, "a result count after ':'", MAX_GROUP);
                if (g.count < 1)
                    error_at(p, g.name.loc, "a result group needs at least one result");
            }
            VEC_PUSH(&p->tmp, groups, ngroups, capgroups, g);
            nnamed += g.count;
            if (nnamed > MAX_GROUP)
                error_at(p, g.name.loc, "too many results");
            if (!at(p, T_COMMA))
                break;
            advance(p);
        }
        expect(p, T_EQUAL, "'=' after the result names");
    }
    token name_tok = p->tok;
    if (!at(p, T_STRING))
        expected(p, "an operation name (a quoted string such as \"sw.add\")");
    const char *name = lex_string_value(&p->lx, &p->tmp, &name_tok);
    ir_op_kind kind = ir_op_kind_from_name(name, strlen(name));
    if (kind == IR_OP_COUNT)
        error_at(p, name_tok.loc, "unknown operation '%s'", name);
    advance(p);

    value_use *uses = NULL;
    int32_t nuses = 0, capuses = 0;
    token open = expect(p, T_LPAREN, "'(' to start the operand list");
    while (!at(p, T_RPAREN)) {
        value_use u = parse_use(p);
        VEC_PUSH(&p->tmp, uses, nuses, capuses, u);
        if (!at(p, T_COMMA))
            break;
        advance(p);
    }
    expect_close(p, T_RPAREN, ")", &open);

    ir_block **regions = NULL;
    int32_t nregions = 0, capregions = 0;
    /* "(" then "{" starts the region list; "(" alone is a missing ':'. */
    if (at(p, T_LPAREN) && peek(p).kind == T_LBRACE) {
        token ropen = p->tok;
        advance(p);
        for (;;) {
            ir_block *b = parse_region(p, kind == IR_FUNC, kind == IR_FUNC);
            VEC_PUSH(&p->tmp, regions, nregions, capregions, b);
            if (!at(p, T_COMMA))
                break;
            advance(p);
        }
        expect_close(p, T_RPAREN, ")", &ropen);
    }
    if (at(p, T_LSQUARE))
        error_at(p, p->tok.loc, "successor blocks are not supported (a region holds one block)");
    if (at(p, T_LESS))
        error_at(p, p->tok.loc, "op properties (<{...}>) are not supported; use an attribute dictionary");
    attr_list attrs = {0};
    if (at(p, T_LBRACE))
        attrs = parse_attr_dict(p);
    expect(p, T_COLON, "':' and the op's type, such as ': (i32, i32) -> i32'");
    type_list ins = parse_type_list(p, "'(' to start the operand types");
    expect(p, T_ARROW, "'->' and the result types");
    type_list outs = {0};
    if (at(p, T_LPAREN)) {
        outs = parse_type_list(p, "'('");
    } else {
        ir_type t = parse_type(p);
        VEC_PUSH(&p->tmp, outs.types, outs.n, outs.cap, t);
    }
    parsed_loc loc = parse_opt_loc(p);

    if (ins.n != nuses)
        error_at(p, ins.open.loc, "'%s' has %d operand%s but its type lists %d", name, (int)nuses,
                 nuses == 1 ? "" : "s", (int)ins.n);
    for (int32_t i = 0; i < nuses; i++) {
        ir_type have = ir_value_type(p->m, uses[i].v);
        if (!ir_type_eq(have, ins.types[i])) {
            char a[64], b[64];
            error_at(p, uses[i].name.loc, "use of value '%.*s' expects type %s but it has type %s",
                     (int)uses[i].name.len, uses[i].name.start, ir_type_str(ins.types[i], a),
                     ir_type_str(have, b));
        }
    }
    if (ngroups > 0 && nnamed != outs.n)
        error_at(p, first.loc, "'%s' defines %d result%s but its type lists %d", name, (int)nnamed,
                 nnamed == 1 ? "" : "s", (int)outs.n);

    ir_value *operands = arena_alloc(&p->tmp, sizeof(ir_value) * (size_t)(nuses ? nuses : 1));
    for (int32_t i = 0; i < nuses; i++)
        operands[i] = uses[i].v;
    ir_op *op = ir_op_create(p->m, kind, name_tok.loc, operands, nuses, outs.types, outs.n, 0);
    attach_regions(p, op, regions, nregions);
    set_attrs(p, op, &attrs);
    apply_loc(p, op, &loc, name_tok.loc);
    int32_t next = 0;
    for (int32_t g = 0; g < ngroups; g++) {
        define(p, &groups[g].name, op, next, groups[g].count);
        next += groups[g].count;
    }
    return op;
}

static ir_op *parse_op(parser *p)
{
    if (at_word(p, "func.func"))
        return parse_func(p);
    if (at_word(p, "return") || at_word(p, "func.return"))
        return parse_return(p);
    if (at_word(p, "module"))
        error_at(p, p->tok.loc, "a 'module' cannot be nested");
    if (at(p, T_PERCENT) || at(p, T_STRING))
        return parse_generic(p);
    expected(p, "an operation");
}

/* module [@name] [attributes {...}] { ops } [loc], or bare top-level ops. */
static void parse_top(parser *p)
{
    if (!at_word(p, "module")) {
        while (!at(p, T_EOF))
            ir_block_append(p->m->body, parse_op(p));
        return;
    }
    advance(p);
    if (at(p, T_AT))
        advance(p);
    if (at_word(p, "attributes")) {
        advance(p);
        parse_attr_dict(p);
    }
    token open = expect(p, T_LBRACE, "'{' after 'module'");
    parse_block_body(p, p->m->body, &open);
    parse_opt_loc(p);
    if (!at(p, T_EOF))
        expected(p, "the end of input after the module");
}

/* Runs the grammar under a longjmp guard; the parser lives in the caller's
 * frame so nothing local to this function changes after setjmp. */
static bool parse_guarded(parser *p, diag *d)
{
    jmp_buf fail;
    lex_init(&p->lx, &p->text, d, &fail);
    if (setjmp(fail))
        return false;
    advance(p);
    parse_top(p);
    return true;
}

ir_module *ir_parse_module(arena *a, const source_file *src, diag *d)
{
    parser p;
    memset(&p, 0, sizeof p);
    size_t length = src && src->text ? src->length : 0;
    p.text.name = arena_strdup(a, src && src->name ? src->name : "<ir>");
    p.text.text = arena_strndup(a, length ? src->text : "", length);
    p.text.length = length;
    p.text.first_line = src ? src->first_line : 1;
    p.m = ir_module_create(a, &p.text);
    arena_init(&p.tmp);
    p.nbuckets = 64;
    while (p.nbuckets < (1u << 20) && p.nbuckets < length / 8)
        p.nbuckets *= 2;
    p.buckets = arena_alloc(&p.tmp, sizeof(int32_t) * p.nbuckets);
    for (uint32_t i = 0; i < p.nbuckets; i++)
        p.buckets[i] = -1;

    bool ok = parse_guarded(&p, d);
    if (ok && p.file_locs) {
        /* Positions in the IR text mean nothing in the user's file. */
        for (int32_t i = 0; i < p.nunlocated; i++)
            p.unlocated[i]->loc = (src_loc){0, 0};
    }
    arena_free(&p.tmp);
    return ok ? p.m : NULL;
}
