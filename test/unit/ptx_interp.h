/* ptx_interp.h - an interpreter of the PTX that Swage emits for elementwise
 * math, for measuring the accuracy of the software sequences of ptx_math.c
 * and ptx_f64.h without a GPU: one thread at a time, each instruction with
 * the meaning the PTX ISA gives it (fma, div, sqrt and rcp correctly
 * rounded; cvt's rounding modes; min/max returning the number when one
 * operand is NaN), global memory as host memory. It knows the instructions
 * those sequences and the load/compute/store kernels around them use, and
 * reports any other (and any float32 .approx instruction, whose result it
 * cannot know) instead of guessing. pi_parse_ideal accepts ex2.approx.f32
 * and div.full.f32 as their ideal: 2^x and x / y correctly rounded, so
 * that what a sequence adds to the hardware instruction's own documented
 * error can be measured. */
#ifndef SWAGE_TEST_PTX_INTERP_H
#define SWAGE_TEST_PTX_INTERP_H

#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PI_MAX_OPS = 5, PI_CLASSES = 7 };

typedef enum pi_type { PT_NONE, PT_PRED, PT_B32, PT_S32, PT_U32, PT_B64, PT_S64, PT_U64, PT_F32, PT_F64 } pi_type;

typedef enum pi_kind { PK_NONE, PK_REG, PK_IMM, PK_MEM, PK_LABEL, PK_TID, PK_CTAID } pi_kind;

typedef struct pi_operand {
    pi_kind kind;
    int cls, num;     /* PK_REG, PK_MEM base (cls < 0: absolute address in imm) */
    uint64_t imm;     /* PK_IMM bits; PK_MEM offset or address; PK_LABEL index */
} pi_operand;

typedef struct pi_insn {
    char op[16];      /* the first part: "fma", "cvt", "setp" ... */
    char mod[16];     /* cvt/setp/testp/mul/ld modifier: "rni", "lt", "finite", "wide", "hi" ... */
    pi_type t, t2;    /* the (destination) type, and cvt's source type */
    bool cc;          /* add.cc / addc.cc */
    int guard;        /* predicate register number, 0: none */
    bool guard_neg;
    int nops;
    pi_operand ops[PI_MAX_OPS];
} pi_insn;

typedef struct pi_program {
    pi_insn *insns;
    int n, cap;
    char labels[256][24];
    int label_at[256];
    int nlabels;
    char consts[8][48]; /* .const arrays: name and words */
    uint64_t *const_words[8];
    int nconsts;
    char error[256];
    bool ideal; /* ex2.approx.f32 and div.full.f32 as their correctly rounded ideal */
} pi_program;

static inline int pi_class(const char *name, int *num)
{
    static const char *const prefixes[PI_CLASSES] = {"%rd", "%fd", "%p", "%r", "%f", "%h", "%l"};
    for (int c = 0; c < PI_CLASSES; c++) {
        size_t n = strlen(prefixes[c]);
        if (!strncmp(name, prefixes[c], n) && name[n] >= '0' && name[n] <= '9') {
            *num = atoi(name + n);
            return c;
        }
    }
    return -1;
}

static inline pi_type pi_type_of(const char *s)
{
    static const struct { const char *n; pi_type t; } types[] = {
        {"pred", PT_PRED}, {"b32", PT_B32}, {"s32", PT_S32}, {"u32", PT_U32}, {"b64", PT_B64},
        {"s64", PT_S64}, {"u64", PT_U64}, {"f32", PT_F32}, {"f64", PT_F64}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].n, s))
            return types[i].t;
    return PT_NONE;
}

static inline int pi_label(pi_program *p, const char *name)
{
    /* a label as stored: at most sizeof labels[0] - 1 characters */
    char key[sizeof p->labels[0]];
    size_t n = strlen(name);
    if (n > sizeof key - 1)
        n = sizeof key - 1;
    memcpy(key, name, n);
    key[n] = 0;
    for (int i = 0; i < p->nlabels; i++)
        if (!strcmp(p->labels[i], key))
            return i;
    if (p->nlabels == 256)
        return 0;
    memcpy(p->labels[p->nlabels], key, n + 1);
    p->label_at[p->nlabels] = -1;
    return p->nlabels++;
}

static inline bool pi_operand_parse(pi_program *p, char *s, pi_operand *o)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    memset(o, 0, sizeof *o);
    if (s[0] == '[') {
        o->kind = PK_MEM;
        char *plus = strchr(s, '+'), *end = strchr(s, ']');
        if (!end)
            return false;
        *end = 0;
        if (plus) {
            *plus = 0;
            o->imm = (uint64_t)strtoll(plus + 1, NULL, 0);
        }
        o->cls = pi_class(s + 1, &o->num);
        if (o->cls < 0) /* a symbol: parameters are numbered by their suffix */
            o->imm += (uint64_t)atoi(strrchr(s + 1, '_') + 1);
        return true;
    }
    if (!strcmp(s, "%tid.x")) {
        o->kind = PK_TID;
        return true;
    }
    if (!strcmp(s, "%ctaid.x")) {
        o->kind = PK_CTAID;
        return true;
    }
    if (s[0] == '%') {
        o->kind = PK_REG;
        o->cls = pi_class(s, &o->num);
        return o->cls >= 0;
    }
    if (s[0] == '$') {
        o->kind = PK_LABEL;
        o->imm = (uint64_t)pi_label(p, s);
        return true;
    }
    o->kind = PK_IMM;
    if (s[0] == '0' && (s[1] == 'd' || s[1] == 'f'))
        o->imm = strtoull(s + 2, NULL, 16);
    else if ((s[0] >= '0' && s[0] <= '9') || s[0] == '-')
        o->imm = (uint64_t)strtoll(s, NULL, 0);
    else { /* a .const array's name: its index, as an address tag */
        for (int i = 0; i < p->nconsts; i++)
            if (!strcmp(p->consts[i], s))
                o->imm = ((uint64_t)(i + 1) << 56);
        if (!o->imm)
            return false;
    }
    return true;
}

/* Reads ".const .align 8 .b64 NAME[n] = {w, w, ...};" arrays. */
static inline void pi_parse_consts(pi_program *p, const char *text)
{
    const char *c = text;
    while ((c = strstr(c, ".const .align 8 .b64 ")) && p->nconsts < 8) {
        c += strlen(".const .align 8 .b64 ");
        const char *br = strchr(c, '[');
        snprintf(p->consts[p->nconsts], sizeof p->consts[0], "%.*s", (int)(br - c), c);
        int n = atoi(br + 1);
        uint64_t *w = calloc((size_t)n, sizeof *w);
        const char *q = strchr(br, '{') + 1;
        for (int i = 0; i < n; i++) {
            char *end;
            w[i] = strtoull(q, &end, 0);
            q = end;
            while (*q == ',' || *q == ' ' || *q == '\n' || *q == '\t')
                q++;
        }
        p->const_words[p->nconsts++] = w;
    }
}

static inline bool pi_fail(pi_program *p, const char *what, const char *line)
{
    snprintf(p->error, sizeof p->error, "%s: %.200s", what, line);
    return false;
}

/* Parses the body of the first .entry in text. */
static inline bool pi_parse_as(pi_program *p, const char *text, bool ideal)
{
    memset(p, 0, sizeof *p);
    p->ideal = ideal;
    pi_parse_consts(p, text);
    const char *body = strstr(text, ".entry");
    body = body ? strchr(strchr(body, ')'), '{') : NULL;
    if (!body)
        return pi_fail(p, "no kernel body", text);
    char line[512];
    for (const char *q = body + 1; *q;) {
        const char *nl = strchr(q, '\n');
        size_t len = nl ? (size_t)(nl - q) : strlen(q);
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        q += len + (nl ? 1 : 0);
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || s[0] == '.' || s[0] == '/' || s[0] == '}')
            continue;
        size_t l = strlen(s);
        if (s[l - 1] == ':') {
            s[l - 1] = 0;
            p->label_at[pi_label(p, s)] = p->n;
            continue;
        }
        if (s[l - 1] != ';')
            return pi_fail(p, "not an instruction", s);
        s[l - 1] = 0;
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 256;
            p->insns = realloc(p->insns, sizeof *p->insns * (size_t)p->cap);
        }
        pi_insn *in = &p->insns[p->n];
        memset(in, 0, sizeof *in);
        if (s[0] == '@') {
            in->guard_neg = s[1] == '!';
            char *r = s + (in->guard_neg ? 2 : 1);
            int num;
            if (pi_class(r, &num) != 2)
                return pi_fail(p, "bad guard", line);
            in->guard = num;
            s = strchr(r, ' ');
            if (!s)
                return pi_fail(p, "bad guard", line);
            while (*s == ' ')
                s++;
        }
        char *sp = strpbrk(s, " \t");
        char opcode[64];
        snprintf(opcode, sizeof opcode, "%.*s", sp ? (int)(sp - s) : (int)strlen(s), s);
        char *parts[8] = {opcode};
        int np = 0;
        for (char *t = strtok(opcode, "."); t && np < 8; t = strtok(NULL, "."))
            parts[np++] = t;
        snprintf(in->op, sizeof in->op, "%.15s", parts[0]);
        for (int i = 1; i < np; i++) {
            pi_type t = pi_type_of(parts[i]);
            if (t != PT_NONE) {
                if (in->t == PT_NONE)
                    in->t = t;
                else
                    in->t2 = t;
            } else if (!strcmp(parts[i], "cc")) {
                in->cc = true;
            } else if (!strcmp(parts[i], "approx") || !strcmp(parts[i], "full")) {
                bool ideal = p->ideal && (!strcmp(parts[0], parts[i][0] == 'a' ? "ex2" : "div"));
                if (!ideal)
                    return pi_fail(p, "an approximate instruction", line);
            } else if (strcmp(parts[i], "to") && strcmp(parts[i], "global") && strcmp(parts[i], "param") &&
                       strcmp(parts[i], "const") && strcmp(parts[i], "uni")) {
                snprintf(in->mod, sizeof in->mod, "%.15s", parts[i]);
            }
        }
        if (sp) {
            char *rest = sp;
            for (char *t = strtok(rest, ","); t; t = strtok(NULL, ",")) {
                if (in->nops == PI_MAX_OPS || !pi_operand_parse(p, t, &in->ops[in->nops++]))
                    return pi_fail(p, "bad operand", line);
            }
        }
        p->n++;
    }
    for (int i = 0; i < p->nlabels; i++)
        if (p->label_at[i] < 0)
            return pi_fail(p, "undefined label", p->labels[i]);
    return true;
}

static inline void pi_free(pi_program *p)
{
    free(p->insns);
    for (int i = 0; i < p->nconsts; i++)
        free(p->const_words[i]);
}

/* ---- execution -------------------------------------------------------------- */

enum { PI_REGS = 4096 };

typedef struct pi_thread {
    uint64_t regs[PI_CLASSES][PI_REGS];
    uint64_t tid, ctaid;
    const uint64_t *params;
    bool carry;
} pi_thread;

static inline double pi_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline uint64_t pi_b64(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static inline float pi_f32(uint64_t b) { uint32_t w = (uint32_t)b; float f; memcpy(&f, &w, 4); return f; }
static inline uint64_t pi_b32(float f) { uint32_t w; memcpy(&w, &f, 4); return w; }

static inline uint64_t pi_get(pi_thread *th, const pi_operand *o)
{
    switch (o->kind) {
    case PK_REG: return th->regs[o->cls][o->num];
    case PK_IMM: return o->imm;
    case PK_TID: return th->tid;
    case PK_CTAID: return th->ctaid;
    default: return 0;
    }
}

static inline bool pi_parse(pi_program *p, const char *text) { return pi_parse_as(p, text, false); }
static inline bool pi_parse_ideal(pi_program *p, const char *text) { return pi_parse_as(p, text, true); }

static inline void *pi_addr(pi_program *p, pi_thread *th, const pi_operand *o)
{
    if (o->cls < 0)
        return (void *)&th->params[o->imm];
    uint64_t a = th->regs[o->cls][o->num] + o->imm;
    int c = (int)(a >> 56);
    if (c > 0 && c <= p->nconsts)
        return (char *)p->const_words[c - 1] + (a & ((1ull << 56) - 1));
    return (void *)(uintptr_t)a;
}

/* Float operation on doubles (f32 operands are widened; every f32 op used
 * is exact in double and then rounded once, or is fma computed by fmaf). */
static inline bool pi_float(const char *op, const char *mod, pi_type t, const uint64_t *v, uint64_t *out)
{
    bool f32 = t == PT_F32;
    double a = f32 ? pi_f32(v[0]) : pi_f64(v[0]), b = f32 ? pi_f32(v[1]) : pi_f64(v[1]);
    double r;
    if (!strcmp(op, "add")) r = a + b;
    else if (!strcmp(op, "sub")) r = a - b;
    else if (!strcmp(op, "mul")) r = a * b;
    else if (!strcmp(op, "div")) r = a / b;
    else if (!strcmp(op, "fma")) r = f32 ? fmaf((float)a, (float)b, pi_f32(v[2])) : fma(a, b, pi_f64(v[2]));
    else if (!strcmp(op, "sqrt")) r = sqrt(a);
    else if (!strcmp(op, "rcp")) r = 1.0 / a;
    else if (!strcmp(op, "ex2")) r = (double)exp2l(a); /* only as the ideal (pi_parse_ideal) */
    else if (!strcmp(op, "neg")) r = -a;
    else if (!strcmp(op, "abs")) r = fabs(a);
    else if (!strcmp(op, "copysign")) r = copysign(b, a);
    else if (!strcmp(op, "min") || !strcmp(op, "max")) {
        bool mn = op[1] == 'i';
        if (isnan(a) || isnan(b))
            r = isnan(a) ? b : a;
        else if (a == b)
            r = mn ? (signbit(a) ? a : b) : (signbit(a) ? b : a);
        else
            r = mn ? fmin(a, b) : fmax(a, b);
    } else
        return false;
    (void)mod;
    *out = f32 ? pi_b32((float)r) : pi_b64(r);
    return true;
}

static inline double pi_round(const char *mod, double x)
{
    if (!strcmp(mod, "rni")) return nearbyint(x);
    if (!strcmp(mod, "rzi")) return trunc(x);
    if (!strcmp(mod, "rmi")) return floor(x);
    if (!strcmp(mod, "rpi")) return ceil(x);
    return x;
}

static inline bool pi_is_signed(pi_type t) { return t == PT_S32 || t == PT_S64; }
static inline bool pi_is_64(pi_type t) { return t == PT_B64 || t == PT_S64 || t == PT_U64 || t == PT_F64; }

static inline int64_t pi_sint(pi_type t, uint64_t v)
{
    return pi_is_64(t) ? (int64_t)v : pi_is_signed(t) ? (int64_t)(int32_t)(uint32_t)v : (int64_t)(uint32_t)v;
}

static inline uint64_t pi_mask(pi_type t, uint64_t v) { return pi_is_64(t) ? v : (uint32_t)v; }

static inline bool pi_cvt(const pi_insn *in, uint64_t v, uint64_t *out)
{
    pi_type dt = in->t, st = in->t2;
    bool sf = st == PT_F32 || st == PT_F64, df = dt == PT_F32 || dt == PT_F64;
    if (sf) {
        double x = st == PT_F32 ? pi_f32(v) : pi_f64(v);
        if (df) {
            double r = dt == st ? pi_round(in->mod, x) : x;
            if (dt == PT_F32 && st == PT_F64 && !strcmp(in->mod, "rz"))
                return false;
            *out = dt == PT_F32 ? pi_b32(dt == st ? (float)r : (float)x) : pi_b64(st == PT_F32 ? x : r);
            return true;
        }
        double r = pi_round(in->mod, x);
        if (isnan(r)) r = 0;
        if (dt == PT_S32) *out = (uint32_t)(int32_t)fmax(fmin(r, 2147483647.0), -2147483648.0);
        else if (dt == PT_U32) *out = (uint32_t)fmax(fmin(r, 4294967295.0), 0);
        else if (dt == PT_S64) *out = r >= 9223372036854775807.0 ? (uint64_t)INT64_MAX : r < -9223372036854775808.0 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)r;
        else return false;
        return true;
    }
    if (df) {
        double x = pi_is_signed(st) ? (double)pi_sint(st, v) : (double)pi_mask(st, v); /* rn */
        if (st == PT_U64 || st == PT_S64) {
            long double lx = st == PT_U64 ? (long double)v : (long double)(int64_t)v;
            x = (double)lx; /* one rounding: long double holds 64 bits exactly */
        }
        *out = dt == PT_F32 ? pi_b32((float)x) : pi_b64(x);
        return true;
    }
    int64_t s = pi_sint(st, v);
    *out = pi_mask(dt, (uint64_t)s);
    return true;
}

static inline bool pi_setp(const char *cmp, pi_type t, uint64_t x, uint64_t y, bool *out)
{
    if (t == PT_F32 || t == PT_F64) {
        double a = t == PT_F32 ? pi_f32(x) : pi_f64(x), b = t == PT_F32 ? pi_f32(y) : pi_f64(y);
        bool un = isnan(a) || isnan(b);
        if (!strcmp(cmp, "nan")) *out = un;
        else if (!strcmp(cmp, "num")) *out = !un;
        else if (!strcmp(cmp, "eq")) *out = a == b;
        else if (!strcmp(cmp, "ne")) *out = !un && a != b;
        else if (!strcmp(cmp, "lt")) *out = a < b;
        else if (!strcmp(cmp, "le")) *out = a <= b;
        else if (!strcmp(cmp, "gt")) *out = a > b;
        else if (!strcmp(cmp, "ge")) *out = a >= b;
        else if (!strcmp(cmp, "neu")) *out = un || a != b;
        else if (!strcmp(cmp, "ltu")) *out = un || a < b;
        else if (!strcmp(cmp, "gtu")) *out = un || a > b;
        else if (!strcmp(cmp, "equ")) *out = un || a == b;
        else return false;
        return true;
    }
    bool sg = pi_is_signed(t);
    int64_t a = pi_sint(t, x), b = pi_sint(t, y);
    uint64_t ua = pi_mask(t, x), ub = pi_mask(t, y);
    if (!strcmp(cmp, "eq")) *out = ua == ub;
    else if (!strcmp(cmp, "ne")) *out = ua != ub;
    else if (!strcmp(cmp, "lt")) *out = sg ? a < b : ua < ub;
    else if (!strcmp(cmp, "le")) *out = sg ? a <= b : ua <= ub;
    else if (!strcmp(cmp, "gt")) *out = sg ? a > b : ua > ub;
    else if (!strcmp(cmp, "ge")) *out = sg ? a >= b : ua >= ub;
    else return false;
    return true;
}

/* Runs one thread to `ret`; false (with p->error) on an instruction it
 * does not know. */
static inline bool pi_run(pi_program *p, pi_thread *th)
{
    for (int pc = 0, steps = 0; pc < p->n; pc++) {
        if (++steps > 1000000)
            return pi_fail(p, "runs forever", "");
        const pi_insn *in = &p->insns[pc];
        if (in->guard && (th->regs[2][in->guard] != 0) == in->guard_neg)
            continue;
        const char *op = in->op;
        uint64_t v[PI_MAX_OPS] = {0};
        for (int i = 1; i < in->nops; i++)
            if (in->ops[i].kind != PK_MEM)
                v[i - 1] = pi_get(th, &in->ops[i]);
        const pi_operand *d = &in->ops[0];
        uint64_t *dst = d->kind == PK_REG ? &th->regs[d->cls][d->num] : NULL;
        pi_type t = in->t;
        bool f = t == PT_F32 || t == PT_F64;
        if (!strcmp(op, "ret"))
            return true;
        if (!strcmp(op, "bra")) {
            pc = p->label_at[d->imm] - 1;
            continue;
        }
        if (!strcmp(op, "st")) {
            void *a = pi_addr(p, th, &in->ops[0]);
            uint64_t x = pi_get(th, &in->ops[1]);
            if (t == PT_F64 || t == PT_B64 || t == PT_U64) memcpy(a, &x, 8);
            else { uint32_t w = (uint32_t)x; memcpy(a, &w, 4); }
            continue;
        }
        if (!dst)
            return pi_fail(p, "no destination register", op);
        if (!strcmp(op, "ld")) {
            void *a = pi_addr(p, th, &in->ops[1]);
            uint64_t x = 0;
            memcpy(&x, a, pi_is_64(t) ? 8 : 4);
            *dst = x;
        } else if (!strcmp(op, "mov") || !strcmp(op, "cvta")) {
            *dst = in->ops[1].kind == PK_REG && in->ops[1].cls == 2 ? v[0] : pi_mask(t == PT_NONE ? PT_B64 : t, v[0]);
            if (d->cls == 2)
                *dst = v[0] != 0;
        } else if (!strcmp(op, "setp")) {
            bool r;
            if (!pi_setp(in->mod, t, v[0], v[1], &r))
                return pi_fail(p, "setp", in->mod);
            *dst = r;
        } else if (!strcmp(op, "testp")) {
            double x = t == PT_F32 ? pi_f32(v[0]) : pi_f64(v[0]);
            *dst = !strcmp(in->mod, "finite") ? isfinite(x) : isinf(x);
        } else if (!strcmp(op, "selp")) {
            *dst = v[2] ? v[0] : v[1];
        } else if (!strcmp(op, "cvt")) {
            if (!pi_cvt(in, v[0], dst))
                return pi_fail(p, "cvt", in->mod);
        } else if (f && pi_float(op, in->mod, t, v, dst)) {
            /* done */
        } else if (t == PT_PRED) {
            bool a = v[0] != 0, b = v[1] != 0;
            if (!strcmp(op, "and")) *dst = a && b;
            else if (!strcmp(op, "or")) *dst = a || b;
            else if (!strcmp(op, "xor")) *dst = a != b;
            else if (!strcmp(op, "not")) *dst = !a;
            else return pi_fail(p, "predicate op", op);
        } else {
            uint64_t a = v[0], b = v[1], r;
            int64_t sa = pi_sint(t, a), sb = pi_sint(t, b);
            if (!strcmp(op, "add")) {
                r = a + b;
                if (in->cc) th->carry = pi_mask(t, r) < pi_mask(t, a);
            } else if (!strcmp(op, "addc")) {
                uint64_t c = th->carry;
                r = a + b + c;
                if (in->cc) th->carry = pi_mask(t, r) < pi_mask(t, a) || (c && pi_mask(t, r) == pi_mask(t, a));
            } else if (!strcmp(op, "sub")) r = a - b;
            else if (!strcmp(op, "mul") && !strcmp(in->mod, "wide")) {
                r = pi_is_signed(t) ? (uint64_t)(sa * sb) : pi_mask(t, a) * pi_mask(t, b);
                *dst = r;
                continue;
            } else if (!strcmp(op, "mul") && !strcmp(in->mod, "hi")) {
                __uint128_t m = (__uint128_t)pi_mask(t, a) * pi_mask(t, b);
                r = pi_is_64(t) ? (uint64_t)(m >> 64) : (uint64_t)(m >> 32);
            } else if (!strcmp(op, "mul")) r = a * b;
            else if (!strcmp(op, "mad")) r = a * b + v[2];
            else if (!strcmp(op, "div")) r = pi_is_signed(t) ? (uint64_t)(sb ? sa / sb : 0) : (pi_mask(t, b) ? pi_mask(t, a) / pi_mask(t, b) : 0);
            else if (!strcmp(op, "and")) r = a & b;
            else if (!strcmp(op, "or")) r = a | b;
            else if (!strcmp(op, "xor")) r = a ^ b;
            else if (!strcmp(op, "not")) r = ~a;
            else if (!strcmp(op, "neg")) r = (uint64_t)0 - a;
            else if (!strcmp(op, "shl")) r = b >= (pi_is_64(t) ? 64u : 32u) ? 0 : a << b;
            else if (!strcmp(op, "shr")) {
                unsigned w = pi_is_64(t) ? 64u : 32u;
                if (pi_is_signed(t)) r = (uint64_t)(b >= w ? (sa < 0 ? -1 : 0) : sa >> b);
                else r = b >= w ? 0 : pi_mask(t, a) >> b;
            } else if (!strcmp(op, "clz")) {
                uint64_t x = pi_mask(t, a);
                int n = 0;
                for (int i = pi_is_64(t) ? 63 : 31; i >= 0 && !((x >> i) & 1); i--)
                    n++;
                *dst = (uint32_t)n;
                continue;
            } else if (!strcmp(op, "min")) r = pi_is_signed(t) ? (uint64_t)(sa < sb ? sa : sb) : (pi_mask(t, a) < pi_mask(t, b) ? a : b);
            else if (!strcmp(op, "max")) r = pi_is_signed(t) ? (uint64_t)(sa > sb ? sa : sb) : (pi_mask(t, a) > pi_mask(t, b) ? a : b);
            else return pi_fail(p, "unknown instruction", op);
            *dst = pi_mask(t, r);
        }
    }
    return true;
}

#endif
