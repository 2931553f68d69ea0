/* emit.c - the PTX emitter's driver: SIMT IR (docs/simt.md) -> one .entry.
 * Requires the module's first func.func to carry simt.num_threads (SIMT
 * IR); guarantees PTX that ptxas accepts for the target, or a diagnostic.
 * Here: registers, labels, the template expander, structured control flow
 * (sw.for, sw.if, sw.yield), parameters, and binding .version/.target and
 * the register declarations after the body has been emitted. */
#include "ptx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registers, labels, lines ------------------------------------------ */

static const char *const class_prefix[RC_COUNT] = {"%p", "%h", "%r", "%f", "%rd", "%fd"};
static const char *const class_decl[RC_COUNT] = {".pred", ".b16", ".b32", ".f32", ".b64", ".f64"};
static const char *const class_mov[RC_COUNT] = {"pred", "b16", "b32", "f32", "b64", "f64"};

const char *ptx_reg_name(ptx_reg r, char *buf)
{
    snprintf(buf, 16, "%s%d", class_prefix[PTX_REG_CLASS(r)], PTX_REG_NUM(r));
    return buf;
}

ptx_reg ptx_new_reg(ptx_emitter *e, ptx_class cls)
{
    return PTX_REG(cls, ++e->nregs[cls]);
}

int ptx_new_label(ptx_emitter *e) { return ++e->nlabels; }

void ptx_need_version(ptx_emitter *e, int v)
{
    if (v > e->need_version)
        e->need_version = v;
}

void ptx_line(ptx_emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_putc(&e->body, '\t');
    sb_vprintf(&e->body, fmt, ap);
    sb_putc(&e->body, '\n');
    va_end(ap);
}

void ptx_label(ptx_emitter *e, int label) { sb_printf(&e->body, "$L__%d:\n", label); }

void ptx_mov(ptx_emitter *e, ptx_reg dst, ptx_reg src)
{
    if (dst == src)
        return;
    if (PTX_REG_CLASS(dst) != PTX_REG_CLASS(src))
        sw_unreachable(e->d, "PTX move between register classes %d and %d", (int)PTX_REG_CLASS(dst),
                       (int)PTX_REG_CLASS(src));
    char a[16], b[16];
    ptx_line(e, "mov.%s %s, %s;", class_mov[PTX_REG_CLASS(dst)], ptx_reg_name(dst, a),
             ptx_reg_name(src, b));
}

bool ptx_compile_error(ptx_emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    src_loc loc = e->op ? e->op->loc : (src_loc){0, 0};
    diag_verror_at(e->d, DIAG_COMPILE, &e->m->src, loc, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- the template expander ------------------------------------------------ */

enum { TEMPS = 16 };
/* The threads a sub-warp streamer (auto's direct kernel for segments of
 * several tiles, of a one-stage program) asks ptxas to fit on one
 * multiprocessor, as .minnctapersm: 1536 holds a 128-thread kernel to 40
 * registers (a sum's took 44 unasked: 40 resident warps instead of 48).
 * On the H200, side by side (bench/results/variants-2026-12-02i-h200.txt):
 * medium-uniform sums 70.8% -> 77.0% of the copy bandwidth, bimodal 60.9%
 * -> 62.8%; 2048 (32 registers, a few spilled) lost medium-uniform
 * (68.3% sums). A warp streamer (the wide one of a one-stage program,
 * 16 elements a lane in flight, task_kernels.c; that of a program of
 * several stages, which holds a value across stages) asks for 1280, 48
 * registers: at 40 a softmax's spilled, and medium-uniform softmax rose
 * from 63.6% to 70.0% at 48, uniform lengths of mean 1024 from 63.8% to
 * 70.6%, the others unchanged; 1024 (64 registers) gave 71.4% and 70.6%,
 * bimodal 55.0% -> 53.2% (bench/results/variants-2026-12-02p-h200.txt). */
enum { STREAMER_SM_THREADS = 1536, WARP_STREAMER_SM_THREADS = 1280 };
/* The threads a persistent lists kernel asks ptxas to fit on one
 * multiprocessor: 1024 holds its CTAs of 256 to 64 registers (a sum's
 * took 73 unasked, three CTAs instead of four; a few bytes spill). On the
 * H200, side by side (bench/results/variants-2026-12-02l-h200.txt):
 * bimodal sums 62.5% -> 66.3% of the copy bandwidth, uniform lengths of
 * mean 2^16 63.6% -> 68.5% and 2^20 49.3% -> 52.9% (their split chunks
 * run in it); 1280 (48 registers, more spilled) lost everywhere, and so
 * did the flat kernel at 64 or 48 registers (tiny-uniform sums 53.9% ->
 * 51.7% and 43.8%). */
enum { LISTS_SM_THREADS = 1024 };

/* The CTAs a kernel asks ptxas to fit on one multiprocessor (0: none). */
static long long min_ctas_per_sm(const ir_op *func, long long threads)
{
    const ir_attr *group = ir_attr_get(func, "sw.program_threads");
    const ir_attr *task = ir_attr_get(func, "sw.task");
    const ir_attr *asked = ir_attr_get(func, "sw.sm_threads"); /* the planner's (task_kernels.c) */
    if (threads <= 0)
        return 0;
    if (asked && asked->kind == ATTR_INT)
        return asked->i >= threads ? asked->i / threads : 0;
    if (ir_attr_get(func, "sw.stream_form") && group && group->kind == ATTR_INT && group->i <= 32) {
        /* a sub-warp or warp streamer: its pairs of tiles in flight
         * would otherwise take registers at the cost of occupancy */
        long long sm_threads = group->i < 32 ? STREAMER_SM_THREADS : WARP_STREAMER_SM_THREADS;
        return threads <= sm_threads ? sm_threads / threads : 0;
    }
    if (task && task->kind == ATTR_STR && strcmp(task->s, "lists") == 0 && threads <= LISTS_SM_THREADS)
        return LISTS_SM_THREADS / threads;
    return 0;
}

typedef struct expansion {
    ptx_emitter *e;
    const ptx_operands *ops;
    ptx_reg temps[RC_COUNT][TEMPS];
    int labels[TEMPS];
    char line[256];
    size_t len;
} expansion;

static void put_text(expansion *x, const char *s)
{
    size_t n = strlen(s);
    if (x->len + n >= sizeof x->line)
        sw_unreachable(x->e->d, "PTX template line too long");
    memcpy(x->line + x->len, s, n);
    x->len += n;
    x->line[x->len] = 0;
}

/* A temporary's or label's index: one hex digit, or -1. */
static int temp_index(char digit)
{
    if (digit >= '0' && digit <= '9')
        return digit - '0';
    if (digit >= 'a' && digit <= 'f')
        return digit - 'a' + 10;
    return -1;
}

static ptx_reg temp(expansion *x, ptx_class cls, char digit)
{
    int i = temp_index(digit);
    if (i < 0 || i >= TEMPS)
        sw_unreachable(x->e->d, "PTX template temporary '%c' out of range", digit);
    if (!x->temps[cls][i])
        x->temps[cls][i] = ptx_new_reg(x->e, cls);
    return x->temps[cls][i];
}

static ptx_reg operand(expansion *x, char which)
{
    const ptx_operands *o = x->ops;
    ptx_reg r = which == 'd' ? o->d : which == 'a' ? o->a : which == 'b' ? o->b : o->c;
    if (!r)
        sw_unreachable(x->e->d, "PTX template uses $%c, which this op does not provide", which);
    return r;
}

static const char *type_name(expansion *x, char which)
{
    const ptx_operands *o = x->ops;
    const char *s = which == 'T' ? o->T : which == 'B' ? o->B : o->U;
    if (!s)
        sw_unreachable(x->e->d, "PTX template uses $%c without a type", which);
    return s;
}

/* Expands one `$` placeholder at p (p[0] == '$'); returns the characters used. */
static int placeholder(expansion *x, const char *p)
{
    char buf[24];
    char c = p[1];
    switch (c) {
    case 'd': case 'a': case 'b': case 'c':
        put_text(x, ptx_reg_name(operand(x, c), buf));
        return 2;
    case 'T': case 'B': case 'U':
        put_text(x, type_name(x, c));
        return 2;
    case 'L': {
        int i = temp_index(p[2]);
        if (i < 0 || i >= TEMPS)
            sw_unreachable(x->e->d, "PTX template label out of range");
        if (!x->labels[i])
            x->labels[i] = ptx_new_label(x->e);
        snprintf(buf, sizeof buf, "$L__%d", x->labels[i]);
        put_text(x, buf);
        return 3;
    }
    default: break;
    }
    static const char kinds[] = "prhfle";
    static const ptx_class kind_class[] = {RC_PRED, RC_B32, RC_B16, RC_F32, RC_B64, RC_F64};
    const char *k = c ? strchr(kinds, c) : NULL;
    if (c == 't')
        put_text(x, ptx_reg_name(temp(x, x->ops->tclass, p[2]), buf));
    else if (k)
        put_text(x, ptx_reg_name(temp(x, kind_class[k - kinds], p[2]), buf));
    else
        sw_unreachable(x->e->d, "unknown PTX template placeholder '$%c'", c ? c : '?');
    return 3;
}

void ptx_expand(ptx_emitter *e, const char *tmpl, const ptx_operands *ops)
{
    expansion x;
    memset(&x, 0, sizeof x);
    x.e = e;
    x.ops = ops;
    for (const char *p = tmpl; *p;) {
        if (*p == '$') {
            p += placeholder(&x, p);
        } else if (*p == ';') {
            sb_printf(&e->body, "\t%s;\n", x.line);
            x.len = 0;
            x.line[0] = 0;
            p++;
        } else if (*p == ':') {
            sb_printf(&e->body, "%s:\n", x.line);
            x.len = 0;
            x.line[0] = 0;
            p++;
        } else if ((*p == ' ' || *p == '\n') && x.len == 0) {
            p++; /* indentation between instructions */
        } else {
            char ch[2] = {*p++, 0};
            put_text(&x, ch);
        }
    }
    if (x.len)
        sw_unreachable(e->d, "PTX template does not end with ';': %s", tmpl);
}

/* ---- value registers ------------------------------------------------------- */

int ptx_slots(ir_type t) { return t.kind == TY_VEC ? t.len : 1; }

ptx_class ptx_class_of(ir_type t)
{
    if (t.kind == TY_PTR || ((t.kind == TY_VEC || t.kind == TY_TILE) && t.ptr_elem))
        return RC_B64;
    return ptx_dtype_class((ir_dtype)t.dtype);
}

ptx_reg *ptx_define(ptx_emitter *e, ir_value v)
{
    ir_type t = ir_value_type(e->m, v);
    if (t.kind == TY_TILE || t.kind == TY_VOID)
        sw_unreachable(e->d, "value %d of a SIMT function has no per-thread type", (int)v);
    int n = ptx_slots(t);
    ptx_reg *slots = arena_alloc(&e->ar, sizeof *slots * (size_t)n);
    ptx_class cls = ptx_class_of(t);
    for (int i = 0; i < n; i++)
        slots[i] = ptx_new_reg(e, cls);
    e->vals[v] = slots;
    return slots;
}

void ptx_alias(ptx_emitter *e, ir_value v, ptx_reg *slots) { e->vals[v] = slots; }

ptx_reg *ptx_regs(ptx_emitter *e, ir_value v)
{
    if (v < 0 || v >= e->m->nvalues || !e->vals[v])
        sw_unreachable(e->d, "PTX emitter: value %d used before it was emitted", (int)v);
    return e->vals[v];
}

/* ---- structured control flow ------------------------------------------------ */

static bool emit_block(ptx_emitter *e, const ir_block *b, ptx_reg *const *targets, int ntargets);

/* The sw.yield of a region: a parallel copy of the yielded values into the
 * registers of the enclosing op's results (a swap must not clobber). */
static void emit_yield(ptx_emitter *e, const ir_op *y, ptx_reg *const *targets, int ntargets)
{
    if (y->noperands != ntargets)
        sw_unreachable(e->d, "sw.yield passes %d values to %d results", (int)y->noperands, ntargets);
    int total = 0;
    for (int i = 0; i < ntargets; i++)
        total += ptx_slots(ir_value_type(e->m, y->operands[i]));
    ptx_reg *dst = arena_alloc(&e->ar, sizeof *dst * (size_t)(total + 1));
    ptx_reg *src = arena_alloc(&e->ar, sizeof *src * (size_t)(total + 1));
    int n = 0;
    for (int i = 0; i < ntargets; i++) {
        ptx_reg *s = ptx_regs(e, y->operands[i]);
        int k = ptx_slots(ir_value_type(e->m, y->operands[i]));
        for (int j = 0; j < k; j++, n++) {
            dst[n] = targets[i][j];
            src[n] = s[j];
        }
    }
    bool overlap = false;
    for (int i = 0; i < n && !overlap; i++)
        for (int j = 0; j < n; j++)
            if (i != j && dst[i] == src[j])
                overlap = true;
    for (int i = 0; i < n; i++) {
        if (overlap && dst[i] != src[i]) {
            ptx_reg t = ptx_new_reg(e, PTX_REG_CLASS(src[i]));
            ptx_mov(e, t, src[i]);
            src[i] = t;
        }
    }
    for (int i = 0; i < n; i++)
        ptx_mov(e, dst[i], src[i]);
}

static ptx_reg to_b64(ptx_emitter *e, ptx_reg r)
{
    if (PTX_REG_CLASS(r) == RC_B64)
        return r;
    ptx_reg w = ptx_new_reg(e, RC_B64);
    char a[16], b[16];
    ptx_line(e, "cvt.s64.s32 %s, %s;", ptx_reg_name(w, a), ptx_reg_name(r, b));
    return w;
}

/* Trip count of range(lb, ub, step) for a constant step, as an unsigned
 * count (exact for every width and sign; a zero step runs no iterations):
 * 1 + (hi - lo - 1) / |step| when hi > lo, else 0. Two 32-bit bounds give
 * a 32-bit count (hi - lo - 1 < 2^32 unsigned, so the count is below
 * 2^32); wider ones a 64-bit count. A power-of-two step shifts: ptxas
 * calls a 64-bit division routine (about 80 instructions) even for a
 * constant divisor. */
static ptx_reg emit_trip_count(ptx_emitter *e, ptx_reg lb, ptx_reg ub, int64_t s)
{
    bool narrow = PTX_REG_CLASS(lb) == RC_B32 && PTX_REG_CLASS(ub) == RC_B32;
    const char *w = narrow ? "32" : "64";
    ptx_reg n = ptx_new_reg(e, narrow ? RC_B32 : RC_B64);
    ptx_reg l = narrow ? lb : to_b64(e, lb), u = narrow ? ub : to_b64(e, ub);
    char nn[16], lo[16], hi[16], t[16], p[16];
    ptx_reg_name(n, nn);
    if (s == 0) {
        ptx_line(e, "mov.b%s %s, 0;", w, nn);
        return n;
    }
    ptx_reg_name(s > 0 ? u : l, hi);
    ptx_reg_name(s > 0 ? l : u, lo);
    ptx_reg_name(ptx_new_reg(e, narrow ? RC_B32 : RC_B64), t);
    ptx_reg_name(ptx_new_reg(e, RC_PRED), p);
    uint64_t mag = s > 0 ? (uint64_t)s : (uint64_t)0 - (uint64_t)s;
    ptx_line(e, "setp.gt.s%s %s, %s, %s;", w, p, hi, lo);
    ptx_line(e, "sub.s%s %s, %s, %s;", w, t, hi, lo);
    if (narrow && mag > UINT32_MAX) {
        /* hi - lo - 1 < 2^32 <= |step|: one iteration */
        ptx_line(e, "mov.b32 %s, 1;", t);
    } else if (mag != 1) {
        ptx_line(e, "sub.s%s %s, %s, 1;", w, t, t);
        if ((mag & (mag - 1)) == 0) {
            int k = 0;
            while ((mag >> k) != 1)
                k++;
            ptx_line(e, "shr.u%s %s, %s, %d;", w, t, t, k);
        } else {
            ptx_line(e, "div.u%s %s, %s, %llu;", w, t, t, (unsigned long long)mag);
        }
        ptx_line(e, "add.s%s %s, %s, 1;", w, t, t);
    }
    ptx_line(e, "selp.b%s %s, %s, 0, %s;", w, nn, t, p);
    return n;
}

/* A run-time step (a grid-stride loop, say) takes no division: the loop
 * runs while the induction variable has not passed the bound, and goes on
 * after an iteration while the distance left (unsigned: exact, as the
 * variable is strictly before the bound) exceeds the step's magnitude --
 * the same iterations as the trip count, with no overflow at the ends of
 * the range. */
typedef struct dynamic_step {
    ptx_reg ub, mag, up;  /* b64 bound, b64 |step|, pred step > 0 */
} dynamic_step;

static dynamic_step emit_dynamic_guard(ptx_emitter *e, ptx_reg lb, ptx_reg ub, ptx_reg step, ptx_reg run)
{
    dynamic_step d = {.ub = to_b64(e, ub), .mag = ptx_new_reg(e, RC_B64), .up = ptx_new_reg(e, RC_PRED)};
    ptx_reg l = to_b64(e, lb), c = to_b64(e, step);
    ptx_reg down = ptx_new_reg(e, RC_PRED), t = ptx_new_reg(e, RC_PRED);
    char cn[16], un[16], dn[16], ln[16], bn[16], mn[16], tn[16], rn[16];
    ptx_reg_name(c, cn), ptx_reg_name(d.up, un), ptx_reg_name(down, dn), ptx_reg_name(l, ln);
    ptx_reg_name(d.ub, bn), ptx_reg_name(d.mag, mn), ptx_reg_name(t, tn), ptx_reg_name(run, rn);
    ptx_line(e, "setp.gt.s64 %s, %s, 0;", un, cn);
    ptx_line(e, "setp.lt.s64 %s, %s, 0;", dn, cn);
    ptx_line(e, "neg.s64 %s, %s;", mn, cn);
    ptx_line(e, "selp.b64 %s, %s, %s, %s;", mn, cn, mn, un);
    ptx_line(e, "setp.lt.s64 %s, %s, %s;", rn, ln, bn);
    ptx_line(e, "and.pred %s, %s, %s;", rn, rn, un);
    ptx_line(e, "setp.gt.s64 %s, %s, %s;", tn, ln, bn);
    ptx_line(e, "and.pred %s, %s, %s;", tn, tn, dn);
    ptx_line(e, "or.pred %s, %s, %s;", rn, rn, tn);
    return d;
}

/* again = |ub - iv| > |step|, before the increment */
static void emit_dynamic_again(ptx_emitter *e, const dynamic_step *d, ptx_reg iv, ptx_reg again)
{
    ptx_reg i = to_b64(e, iv), a = ptx_new_reg(e, RC_B64), b = ptx_new_reg(e, RC_B64);
    char in[16], an[16], bn[16], un[16], mn[16], gn[16], upn[16];
    ptx_reg_name(i, in), ptx_reg_name(a, an), ptx_reg_name(b, bn), ptx_reg_name(d->ub, un);
    ptx_reg_name(d->mag, mn), ptx_reg_name(again, gn), ptx_reg_name(d->up, upn);
    ptx_line(e, "sub.s64 %s, %s, %s;", an, un, in);
    ptx_line(e, "sub.s64 %s, %s, %s;", bn, in, un);
    ptx_line(e, "selp.b64 %s, %s, %s, %s;", an, an, bn, upn);
    ptx_line(e, "setp.gt.u64 %s, %s, %s;", gn, an, mn);
}

/* sw.for: a counted do-while loop behind a zero-trip guard. The induction
 * variable and the carried values live in the body arguments' registers,
 * which are also the loop's results once it exits. */
static bool emit_for(ptx_emitter *e, const ir_op *op)
{
    const ir_block *body = op->regions[0];
    int ncarried = op->noperands - 3;
    if (ncarried < 0 || body->nargs != ncarried + 1 || op->nresults != ncarried)
        sw_unreachable(e->d, "malformed sw.for");
    ptx_reg lb = ptx_regs(e, op->operands[0])[0], ub = ptx_regs(e, op->operands[1])[0];
    ptx_reg step = ptx_regs(e, op->operands[2])[0];
    ptx_reg iv = ptx_define(e, body->args[0])[0];
    ptx_reg **carried = arena_alloc(&e->ar, sizeof *carried * (size_t)(ncarried + 1));
    for (int i = 0; i < ncarried; i++) {
        carried[i] = ptx_define(e, body->args[i + 1]);
        ptx_reg *init = ptx_regs(e, op->operands[i + 3]);
        for (int j = 0; j < ptx_slots(ir_value_type(e->m, body->args[i + 1])); j++)
            ptx_mov(e, carried[i][j], init[j]);
        ptx_alias(e, op->results[i], carried[i]);
    }
    ptx_mov(e, iv, lb);
    const ir_attr *c;
    bool constant = ir_value_constant(e->m, op->operands[2], &c) && c->kind == ATTR_INT;
    ptx_reg n = {0}, p = ptx_new_reg(e, RC_PRED);
    dynamic_step dyn = {0};
    int head = ptx_new_label(e), done = ptx_new_label(e);
    char nn[16], pn[16], ivn[16], st[16];
    ptx_reg_name(p, pn);
    if (constant) {
        n = emit_trip_count(e, lb, ub, c->i);
        ptx_line(e, "setp.eq.s%s %s, %s, 0;", PTX_REG_CLASS(n) == RC_B32 ? "32" : "64", pn,
                 ptx_reg_name(n, nn));
        ptx_line(e, "@%s bra $L__%d;", pn, done);
    } else {
        dyn = emit_dynamic_guard(e, lb, ub, step, p);
        ptx_line(e, "@!%s bra $L__%d;", pn, done);
    }
    ptx_label(e, head);
    if (!emit_block(e, body, carried, ncarried))
        return false;
    e->op = op;
    if (!constant)
        emit_dynamic_again(e, &dyn, iv, p);
    const char *w = PTX_REG_CLASS(iv) == RC_B64 ? "s64" : "s32";
    ptx_line(e, "add.%s %s, %s, %s;", w, ptx_reg_name(iv, ivn), ivn, ptx_reg_name(step, st));
    if (constant) {
        const char *nw = PTX_REG_CLASS(n) == RC_B32 ? "32" : "64";
        ptx_line(e, "sub.s%s %s, %s, 1;", nw, nn, nn);
        ptx_line(e, "setp.ne.s%s %s, %s, 0;", nw, pn, nn);
    }
    ptx_line(e, "@%s bra $L__%d;", pn, head);
    ptx_label(e, done);
    return true;
}

/* sw.while: the condition lives in a predicate register that the body's
 * sw.yield rewrites with the next condition, as it rewrites the carried
 * values' registers (which are the results'). */
static bool emit_while(ptx_emitter *e, const ir_op *op)
{
    const ir_block *body = op->regions[0];
    int ncarried = op->noperands - 1;
    if (ncarried < 0 || body->nargs != ncarried || op->nresults != ncarried)
        sw_unreachable(e->d, "malformed sw.while");
    ptx_reg **targets = arena_alloc(&e->ar, sizeof *targets * (size_t)(ncarried + 1));
    ptx_reg cond0 = ptx_regs(e, op->operands[0])[0];
    targets[0] = arena_alloc(&e->ar, sizeof **targets);
    targets[0][0] = ptx_new_reg(e, PTX_REG_CLASS(cond0));
    ptx_mov(e, targets[0][0], cond0);
    for (int i = 0; i < ncarried; i++) {
        targets[1 + i] = ptx_define(e, body->args[i]);
        ptx_reg *init = ptx_regs(e, op->operands[1 + i]);
        for (int j = 0; j < ptx_slots(ir_value_type(e->m, body->args[i])); j++)
            ptx_mov(e, targets[1 + i][j], init[j]);
        ptx_alias(e, op->results[i], targets[1 + i]);
    }
    int head = ptx_new_label(e), done = ptx_new_label(e);
    char pn[16];
    ptx_reg_name(targets[0][0], pn);
    ptx_line(e, "@!%s bra $L__%d;", pn, done);
    ptx_label(e, head);
    if (!emit_block(e, body, targets, ncarried + 1))
        return false;
    e->op = op;
    ptx_line(e, "@%s bra $L__%d;", pn, head);
    ptx_label(e, done);
    return true;
}

/* sw.if: a branch around each region; both write the results' registers. */
static bool emit_if(ptx_emitter *e, const ir_op *op)
{
    ptx_reg **results = arena_alloc(&e->ar, sizeof *results * (size_t)(op->nresults + 1));
    for (int i = 0; i < op->nresults; i++)
        results[i] = ptx_define(e, op->results[i]);
    int other = ptx_new_label(e), done = ptx_new_label(e);
    char c[16];
    ptx_line(e, "@!%s bra $L__%d;", ptx_reg_name(ptx_regs(e, op->operands[0])[0], c), other);
    if (!emit_block(e, op->regions[0], results, op->nresults))
        return false;
    ptx_line(e, "bra $L__%d;", done);
    ptx_label(e, other);
    if (!emit_block(e, op->regions[1], results, op->nresults))
        return false;
    ptx_label(e, done);
    return true;
}

/* Whether operand `index` of `user` is the mask of a simt.load/simt.store
 * that computes each bit again from the compare's operands (emit_memory:
 * a vector access, vec > 1 over two or more slots, its mask an sw.cmp of
 * its block) and so never reads the compare's registers. */
static bool remat_mask_use(const ir_module *m, const ir_op *user, int index)
{
    bool load = user->kind == IR_SIMT_LOAD, store = user->kind == IR_SIMT_STORE;
    if (!(load || store) || user->noperands != 3 || index != (load ? 1 : 2))
        return false;
    const ir_attr *vec = ir_attr_get(user, "vec");
    return vec && vec->kind == ATTR_INT && vec->i > 1 && ptx_slots(ir_value_type(m, user->operands[0])) >= 2;
}

/* An sw.cmp whose uses are all in its block and one of them a vector
 * access's mask (which takes its bits from the compare's operands at the
 * access) is emitted just before its first other use, or not at all: its
 * predicates no longer live across the accesses' branches (ptxas moved
 * them through general registers, P2R / ISETP a bit: the layer norm's
 * where(cols < N, x - mean, 0) after the masked load of x). */
static bool deferrable_cmp(const ir_module *m, const ir_op *op, const ir_block *b)
{
    const ir_attr *pred = ir_attr_get(op, "predicate");
    if (op->kind != IR_CMP || op->nresults != 1 || !pred || pred->kind != ATTR_STR)
        return false;
    bool remat = false;
    for (const ir_use *u = ir_value_uses(m, op->results[0]); u; u = u->next) {
        if (u->user->parent != b)
            return false;
        remat |= remat_mask_use(m, u->user, ir_use_index(u));
    }
    return remat;
}

/* Whether op reads v other than as a rematerialised access mask. */
static bool reads_regs(const ir_module *m, const ir_op *op, ir_value v)
{
    for (int i = 0; i < op->noperands; i++)
        if (op->operands[i] == v && !remat_mask_use(m, op, i))
            return true;
    return false;
}

#define MAX_DEFERRED 8

static bool emit_block(ptx_emitter *e, const ir_block *b, ptx_reg *const *targets, int ntargets)
{
    const ir_op *deferred[MAX_DEFERRED];
    int ndeferred = 0;
    for (const ir_op *op = b->first; op; op = op->next) {
        /* the deferred compares this op reads, in their order */
        for (int i = 0; i < ndeferred; i++) {
            if (!reads_regs(e->m, op, deferred[i]->results[0]))
                continue;
            e->op = deferred[i];
            if (!ptx_emit_simple_op(e, deferred[i]) || diag_failed(e->d))
                return false;
            memmove(&deferred[i], &deferred[i + 1], sizeof *deferred * (size_t)(ndeferred - i - 1));
            ndeferred--, i--;
        }
        e->op = op;
        if (ndeferred < MAX_DEFERRED && deferrable_cmp(e->m, op, b)) {
            ptx_define(e, op->results[0]); /* registers the accesses never read */
            deferred[ndeferred++] = op;
            continue;
        }
        bool ok = true;
        switch (op->kind) {
        case IR_FOR: ok = emit_for(e, op); break;
        case IR_IF: ok = emit_if(e, op); break;
        case IR_WHILE: ok = emit_while(e, op); break;
        case IR_YIELD:
            if (!targets && ntargets == 0 && op->noperands > 0)
                sw_unreachable(e->d, "sw.yield outside sw.for/sw.if");
            emit_yield(e, op, targets, ntargets);
            break;
        case IR_RETURN: ptx_line(e, "ret;"); break;
        default: ok = ptx_emit_simple_op(e, op); break;
        }
        if (!ok || diag_failed(e->d))
            return false;
    }
    /* any left are read by no op: the accesses computed their bits */
    return true;
}

/* ---- parameters -------------------------------------------------------------- */

/* The .param type of a parameter and the ld.param type that reads it. */
static const char *param_type(ir_type t)
{
    if (t.kind == TY_PTR)
        return "u64";
    static const char *const names[DT_COUNT] = {
        [DT_I1] = "u8", [DT_I8] = "s8", [DT_U8] = "u8", [DT_I16] = "s16", [DT_U16] = "u16",
        [DT_I32] = "s32", [DT_U32] = "u32", [DT_I64] = "s64", [DT_U64] = "u64",
        [DT_F16] = "b16", [DT_BF16] = "b16", [DT_F32] = "f32", [DT_F64] = "f64",
    };
    return t.kind == TY_SCALAR && t.dtype < DT_COUNT ? names[t.dtype] : NULL;
}

static void emit_param_loads(ptx_emitter *e, const char *name, const ir_block *body, strbuf *decl)
{
    for (int i = 0; i < body->nargs; i++) {
        ir_type t = ir_value_type(e->m, body->args[i]);
        const char *pt = param_type(t);
        if (!pt)
            sw_unreachable(e->d, "parameter %d of %s has no PTX parameter type", i, name);
        sb_printf(decl, "%s\t.param .%s %s_param_%d", i ? ",\n" : "", pt, name, i);
        ptx_reg r = ptx_define(e, body->args[i])[0];
        char a[16], b[16];
        if (t.kind == TY_PTR) {
            ptx_reg raw = ptx_new_reg(e, RC_B64);
            ptx_line(e, "ld.param.u64 %s, [%s_param_%d];", ptx_reg_name(raw, a), name, i);
            ptx_line(e, "cvta.to.global.u64 %s, %s;", ptx_reg_name(r, b), a);
        } else if (t.dtype == DT_I1) {
            ptx_reg raw = ptx_new_reg(e, RC_B32);
            ptx_line(e, "ld.param.u8 %s, [%s_param_%d];", ptx_reg_name(raw, a), name, i);
            ptx_line(e, "setp.ne.s32 %s, %s, 0;", ptx_reg_name(r, b), a);
        } else {
            ptx_line(e, "ld.param.%s %s, [%s_param_%d];", pt, ptx_reg_name(r, a), name, i);
        }
    }
    if (body->nargs)
        sb_putc(decl, '\n');
}

/* ---- targets and the module -------------------------------------------------- */

/* The PTX ISA version each supported target first appeared in. */
static const struct { int sm, version; } targets[] = {
    {80, 70}, {86, 71}, {87, 74}, {89, 78}, {90, 78}, {100, 86}, {120, 87},
};

static bool valid_identifier(const char *s)
{
    if (!s || !*s)
        return false;
    bool lead_ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '$';
    if (!lead_ok)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '$'))
            return false;
    return (s[0] != '_' && s[0] != '$') || s[1] != 0; /* "_" alone is not one */
}

static bool emit_function(ptx_emitter *e, const ir_op *func, const ptx_target *target, strbuf *out)
{
    const char *name = ir_func_name(func);
    e->op = func;
    const ir_attr *threads = ir_attr_get(func, "simt.num_threads");
    const ir_attr *smem = ir_attr_get(func, "simt.smem_bytes");
    if (!threads || threads->kind != ATTR_INT)
        return ptx_compile_error(e, "func.func @%s is not SIMT IR (it has no simt.num_threads "
                                    "attribute): run lower-simt before emitting PTX",
                                 name ? name : "?");
    if (threads->i < 1 || threads->i > 1024)
        return ptx_compile_error(e, "simt.num_threads = %lld is outside 1..1024", (long long)threads->i);
    if (smem && (smem->kind != ATTR_INT || smem->i < 0 || smem->i > 227 * 1024))
        return ptx_compile_error(e, "simt.smem_bytes must be an integer in 0..232448");
    if (!valid_identifier(name))
        return ptx_compile_error(e, "kernel name '%s' is not a PTX identifier", name ? name : "");

    e->smem_bytes = smem ? (int)smem->i : 0;
    if (e->smem_bytes > 0) {
        e->smem_name = strcmp(name, "smem") ? "smem" : "smem_";
        e->smem_base = ptx_new_reg(e, RC_B32);
    }
    const ir_block *body = ir_func_body(func);
    const ir_attr *task = ir_attr_get(func, "sw.task");
    if (task && task->kind == ATTR_STR && strcmp(task->s, "direct") != 0 && e->sm >= 90) {
        /* A persistent segment task kernel (lists, split stages) is
         * launched as a programmatic dependent launch (docs/schedules.md):
         * it waits for the grid before it on the stream before touching
         * memory, and lets the next one start its CTAs as soon as all of
         * its own have started. The direct kernels, a CTA per few
         * segments, are launched plainly: the two instructions cost their
         * hundreds of thousands of CTAs more than the launch they save.
         * Nor did a launch_dependents at the start of the streamers and
         * the flat kernel help (the lists kernel's CTAs then start as the
         * last direct ones do): medium-uniform sums 76.3% -> 76.2% of the
         * copy bandwidth (bench/results/variants-2026-12-02l-h200.txt). */
        ptx_line(e, "griddepcontrol.wait;");
        ptx_line(e, "griddepcontrol.launch_dependents;");
    }
    emit_param_loads(e, name, body, &e->params);
    if (e->smem_bytes > 0) {
        char r[16];
        ptx_line(e, "mov.u32 %s, %s;", ptx_reg_name(e->smem_base, r), e->smem_name);
    }
    bool ok = emit_block(e, body, NULL, 0);

    if (ok) {
        /* the entry; the module header is bound last, by ptx_emit_module */
        sb_printf(out, ".visible .entry %s(\n%s)\n", name, e->params.data ? e->params.data : "");
        sb_printf(out, ".maxntid %lld, 1, 1\n", (long long)threads->i);
        long long min_ctas = min_ctas_per_sm(func, (long long)threads->i);
        if (min_ctas > 0)
            sb_printf(out, ".minnctapersm %lld\n", min_ctas);
        sb_puts(out, "{\n");
        for (int c = 0; c < RC_COUNT; c++)
            if (e->nregs[c])
                sb_printf(out, "\t.reg %s %s<%d>;\n", class_decl[c], class_prefix[c], e->nregs[c] + 1);
        if (e->smem_bytes > 0)
            sb_printf(out, "\t.shared .align 16 .b8 %s[%d];\n", e->smem_name, e->smem_bytes);
        if (e->print_bytes > 0)
            sb_printf(out, "\t.local .align 8 .b8 %s[%d];\n", PTX_PRINT_BUF, e->print_bytes);
        sb_putc(out, '\n');
        sb_putn(out, e->body.data ? e->body.data : "", e->body.len);
        sb_puts(out, "}\n");
    }
    return ok;
}

/* What the module declares before its entries, gathered from them. */
typedef struct module_decls {
    int version;
    bool two_over_pi, erf_table, erfc_table, vprintf;
    strbuf strings; /* .global format strings */
    int nstrings;
} module_decls;

/* Emits one function with a fresh emitter (registers, labels, shared
 * memory are per entry); raises md->version and sets the declarations it
 * needs. */
static bool emit_entry(const ir_module *m, const ir_op *func, const ptx_target *target, int base,
                       strbuf *out, module_decls *md, diag *d)
{
    /* Everything the emission allocates is reachable from here, so an
     * internal error (sw_unreachable longjmps) leaks nothing. */
    static const ptx_emitter zero;
    ptx_emitter *volatile e = malloc(sizeof *e);
    if (!e) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    *e = zero;
    e->m = m;
    e->d = d;
    e->sm = target->sm;
    e->need_version = base;
    arena_init(&e->ar);
    sb_init(&e->body);
    sb_init(&e->params);
    e->vals = arena_alloc(&e->ar, sizeof *e->vals * (size_t)(m->nvalues + 1));
    e->strings = &md->strings;
    e->nstrings = &md->nstrings;

    jmp_buf here;
    jmp_buf *outer = d->bail;
    volatile bool ok = false;
    d->bail = &here;
    if (!setjmp(here))
        ok = emit_function(e, func, target, out);
    d->bail = outer;
    if (ok && (e->body.oom || e->params.oom)) {
        diag_error(d, DIAG_NOMEM, "out of memory while emitting PTX");
        ok = false;
    }
    if (ok) {
        if (e->need_version > md->version)
            md->version = e->need_version;
        md->two_over_pi = md->two_over_pi || e->two_over_pi;
        md->erf_table = md->erf_table || e->erf_table;
        md->erfc_table = md->erfc_table || e->erfc_table;
        md->vprintf = md->vprintf || e->vprintf;
    }
    sb_free(&e->body);
    sb_free(&e->params);
    arena_free(&e->ar);
    free(e);
    return ok;
}

bool ptx_emit_module(const ir_module *m, const ptx_target *target, strbuf *out, diag *d)
{
    const ir_op *first = m ? ir_module_func(m) : NULL;
    if (!first) {
        diag_error(d, DIAG_ARGUMENT, "the module has no func.func to emit as PTX");
        return false;
    }
    int base = 0;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (target && targets[i].sm == target->sm)
            base = targets[i].version;
    if (!base) {
        diag_error(d, DIAG_ARGUMENT, "the PTX emitter does not support sm_%d (supported: sm_80, "
                   "sm_86, sm_87, sm_89, sm_90, sm_100, sm_120)", target ? target->sm : 0);
        return false;
    }
    strbuf entries;
    sb_init(&entries);
    module_decls md = {.version = base};
    sb_init(&md.strings);
    bool ok = true;
    for (const ir_op *f = first; ok && f; f = f->next)
        if (f->kind == IR_FUNC)
            ok = emit_entry(m, f, target, base, &entries, &md, d);
    int version = md.version;
    if (ok && target->ptx_version) {
        if (target->ptx_version < version) {
            diag_error(d, DIAG_ARGUMENT, "PTX ISA %d.%d is too old for this kernel on sm_%d "
                       "(it needs %d.%d)", target->ptx_version / 10, target->ptx_version % 10,
                       target->sm, version / 10, version % 10);
            ok = false;
        }
        version = target->ptx_version;
    }
    if (ok && (entries.oom || md.strings.oom)) {
        diag_error(d, DIAG_NOMEM, "out of memory while emitting PTX");
        ok = false;
    }
    if (ok) {
        /* Bound last: the version, the target, then the declarations. */
        sb_printf(out, "//\n// Generated by Swage from SIMT IR: kernel %s\n//\n\n", ir_func_name(first));
        sb_printf(out, ".version %d.%d\n.target sm_%d\n.address_size 64\n\n", version / 10,
                  version % 10, target->sm);
        if (md.two_over_pi)
            sb_puts(out, ptx_two_over_pi_decl);
        if (md.erf_table)
            sb_puts(out, ptx_erf_table_decl);
        if (md.erfc_table)
            sb_puts(out, ptx_erfc_table_decl);
        if (md.vprintf)
            sb_puts(out, PTX_VPRINTF_DECL);
        sb_putn(out, md.strings.data ? md.strings.data : "", md.strings.len);
        sb_putn(out, entries.data ? entries.data : "", entries.len);
    }
    sb_free(&entries);
    sb_free(&md.strings);
    if (!ok && !diag_failed(d))
        diag_error(d, DIAG_INTERNAL, "PTX emission failed without a diagnostic");
    return ok;
}
