/* ptx_simt.c - every op that is not control flow, through one table from op
 * kind to emitter: constants, splat, addptr, elementwise ops (slot by slot,
 * via ptx_ops.c), and the SIMT ops of docs/simt.md (thread and block ids,
 * tile indices, global loads/stores with run-time vectorisation, per-thread
 * reductions, warp shuffles, shared memory, barriers). Requires SIMT IR;
 * an op without an entry is an internal error naming it. */
#include "ptx_internal.h"
#include "../../ir/scalar.h"

#include <stdlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef bool (*op_emitter)(ptx_emitter *e, const ir_op *op);

static ir_dtype elem_dtype(const ptx_emitter *e, ir_value v)
{
    return (ir_dtype)ir_value_type(e->m, v).dtype;
}

static int64_t int_attr(ptx_emitter *e, const ir_op *op, const char *name, int64_t fallback,
                        bool required)
{
    const ir_attr *a = ir_attr_get(op, name);
    if (a && a->kind == ATTR_INT)
        return a->i;
    if (required)
        sw_unreachable(e->d, "%s has no integer attribute '%s'", ir_ops[op->kind].name, name);
    return fallback;
}

/* ---- values from nowhere, shapes, pointers --------------------------------- */

static bool emit_constant(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->results[0]);
    ir_dtype dt = (ir_dtype)t.dtype;
    ir_scalar s = ir_scalar_from_attr(dt, ir_attr_get(op, "value"));
    ptx_reg r = ptx_new_reg(e, ptx_dtype_class(dt));
    char n[16];
    ptx_reg_name(r, n);
    float f = (float)s.f;
    uint32_t u32;
    uint64_t u64;
    switch (dt) {
    case DT_I1: ptx_line(e, "mov.pred %s, %d;", n, s.i ? 1 : 0); break;
    case DT_I8: case DT_U8: case DT_I16: case DT_U16: case DT_I32: case DT_U32:
        ptx_line(e, "mov.b32 %s, 0x%08X;", n, (unsigned)(uint32_t)(uint64_t)s.i);
        break;
    case DT_I64: case DT_U64: ptx_line(e, "mov.b64 %s, 0x%016llX;", n, (unsigned long long)(uint64_t)s.i); break;
    case DT_F16: ptx_line(e, "mov.b16 %s, 0x%04X;", n, (unsigned)ir_f32_to_f16(f)); break;
    case DT_BF16: ptx_line(e, "mov.b16 %s, 0x%04X;", n, (unsigned)ir_f32_to_bf16(f)); break;
    case DT_F32:
        memcpy(&u32, &f, 4);
        ptx_line(e, "mov.f32 %s, 0f%08X;", n, (unsigned)u32);
        break;
    case DT_F64:
        memcpy(&u64, &s.f, 8);
        ptx_line(e, "mov.f64 %s, 0d%016llX;", n, (unsigned long long)u64);
        break;
    default: sw_unreachable(e->d, "sw.constant of a type without a PTX register"); break;
    }
    int slots = ptx_slots(t);
    ptx_reg *regs = arena_alloc(&e->ar, sizeof *regs * (size_t)slots);
    for (int i = 0; i < slots; i++)
        regs[i] = r; /* a splat shares one register */
    ptx_alias(e, op->results[0], regs);
    return true;
}

static bool emit_splat(ptx_emitter *e, const ir_op *op)
{
    ptx_reg r = ptx_regs(e, op->operands[0])[0];
    int slots = ptx_slots(ir_value_type(e->m, op->results[0]));
    ptx_reg *regs = arena_alloc(&e->ar, sizeof *regs * (size_t)slots);
    for (int i = 0; i < slots; i++)
        regs[i] = r;
    ptx_alias(e, op->results[0], regs);
    return true;
}

static bool emit_addptr(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->results[0]);
    int bytes = ir_dtypes[t.dtype].bytes;
    ptx_reg *p = ptx_regs(e, op->operands[0]), *off = ptx_regs(e, op->operands[1]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int i = 0; i < ptx_slots(t); i++) {
        char dn[16], pn[16], on[16], tn[16];
        ptx_reg_name(ptx_new_reg(e, RC_B64), tn);
        if (PTX_REG_CLASS(off[i]) == RC_B64)
            ptx_line(e, "mul.lo.s64 %s, %s, %d;", tn, ptx_reg_name(off[i], on), bytes);
        else
            ptx_line(e, "mul.wide.s32 %s, %s, %d;", tn, ptx_reg_name(off[i], on), bytes);
        ptx_line(e, "add.s64 %s, %s, %s;", ptx_reg_name(d[i], dn), ptx_reg_name(p[i], pn), tn);
    }
    return true;
}

/* ---- elementwise ops and casts, slot by slot -------------------------------------- */

static bool emit_elementwise_op(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->results[0]);
    ir_dtype dt = op->kind == IR_CMP ? elem_dtype(e, op->operands[0]) : (ir_dtype)t.dtype;
    if (ir_type_is_ptrlike(t)) /* an sw.select of pointers (sl.join of pointer tiles): b64 registers */
        dt = DT_U64;
    const ir_attr *pred = ir_attr_get(op, "predicate");
    const char *predicate = pred && pred->kind == ATTR_STR ? pred->s : NULL;
    /* sw.div {approx} on f32 and sw.exp {approx} on f32/f16/bf16 take
     * Triton's approximations (ptx_ops.c); a 16-bit division stays
     * correctly rounded (its result keeps its dtype, where Triton's is
     * float32). */
    const ir_attr *approx = ir_attr_get(op, "approx");
    if (approx && approx->kind == ATTR_BOOL && approx->i &&
        ((op->kind == IR_DIV && dt == DT_F32) || op->kind == IR_EXP))
        predicate = "approx";
    ptx_reg *srcs[3] = {NULL, NULL, NULL};
    for (int i = 0; i < op->noperands && i < 3; i++)
        srcs[i] = ptx_regs(e, op->operands[i]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int j = 0; j < ptx_slots(t); j++) {
        ptx_reg in[3] = {0, 0, 0};
        for (int i = 0; i < op->noperands && i < 3; i++)
            in[i] = srcs[i][j];
        if (!ptx_emit_elementwise(e, op->kind, predicate, dt, d[j], in))
            return false;
    }
    return true;
}

static bool emit_cast(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->results[0]);
    ir_dtype from = elem_dtype(e, op->operands[0]);
    ptx_reg *s = ptx_regs(e, op->operands[0]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int j = 0; j < ptx_slots(t); j++)
        ptx_emit_cast(e, from, (ir_dtype)t.dtype, d[j], s[j]);
    return true;
}

/* Same-width reinterpretation: one mov of the width between register
 * classes (f32 %f <-> i32 %r, f64 %fd <-> i64 %rd, f16 <-> bf16 %h);
 * the 8- and 16-bit integers live widened in %r: between two of them the
 * wrapping conversion, and to/from the 16-bit floats' %h one cvt that
 * narrows, or widens as the integer is held (sign- or zero-extended). */
static bool emit_bitcast(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->results[0]);
    ptx_reg *s = ptx_regs(e, op->operands[0]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    int bits = ir_dtypes[t.dtype].bits;
    char dn[16], sn[16];
    ir_dtype from = elem_dtype(e, op->operands[0]);
    ir_dtype to = (ir_dtype)t.dtype;
    bool from_int = !ir_dtype_is_float(from), to_int = !ir_dtype_is_float(to);
    for (int j = 0; j < ptx_slots(t); j++) {
        ptx_reg_name(d[j], dn);
        ptx_reg_name(s[j], sn);
        if (bits <= 16 && from_int && to_int)
            ptx_emit_cast(e, from, to, d[j], s[j]);
        else if (bits == 16 && from_int)
            ptx_line(e, "cvt.u16.u32 %s, %s;", dn, sn);
        else if (bits == 16 && to_int)
            ptx_line(e, "cvt.%s.%s %s, %s;", to == DT_I16 ? "s32" : "u32", to == DT_I16 ? "s16" : "u16",
                     dn, sn);
        else
            ptx_line(e, "mov.b%d %s, %s;", bits, dn, sn);
    }
    return true;
}

/* ---- threads and blocks ------------------------------------------------------------- */

static bool emit_special(ptx_emitter *e, const ir_op *op, const char *reg)
{
    int64_t axis = op->kind == IR_SIMT_THREAD_ID ? 0 : int_attr(e, op, "axis", 0, true);
    if (axis < 0 || axis > 2)
        sw_unreachable(e->d, "%s axis %lld is outside 0..2", ir_ops[op->kind].name, (long long)axis);
    char d[16];
    ptx_line(e, "mov.u32 %s, %%%s.%c;", ptx_reg_name(ptx_define(e, op->results[0])[0], d), reg,
             "xyz"[axis]);
    return true;
}

static bool emit_thread_id(ptx_emitter *e, const ir_op *op) { return emit_special(e, op, "tid"); }
static bool emit_block_id(ptx_emitter *e, const ir_op *op) { return emit_special(e, op, "ctaid"); }
static bool emit_grid_dim(ptx_emitter *e, const ir_op *op) { return emit_special(e, op, "nctaid"); }

/* Slot j = start + (j / c) * c * owners + (tid mod owners) * c + j mod c,
 * with c = ir_simt_chunk(V) and owners = len / V (docs/simt.md). */
static bool emit_tile_index(ptx_emitter *e, const ir_op *op)
{
    int64_t len = int_attr(e, op, "len", 0, true), start = int_attr(e, op, "start", 0, false);
    int v = ptx_slots(ir_value_type(e->m, op->results[0]));
    int64_t lanes = len / v;
    if (len < 1 || lanes < 1 || lanes * v != len)
        sw_unreachable(e->d, "simt.tile_index len %lld does not split into %d slots", (long long)len, v);
    int c = ir_simt_chunk(v);
    ptx_reg *d = ptx_define(e, op->results[0]);
    char tid[16], base[16], dn[16];
    ptx_reg_name(ptx_new_reg(e, RC_B32), tid);
    ptx_reg_name(ptx_new_reg(e, RC_B32), base);
    ptx_line(e, "mov.u32 %s, %%tid.x;", tid);
    if ((lanes & (lanes - 1)) == 0)
        ptx_line(e, "and.b32 %s, %s, %lld;", tid, tid, (long long)(lanes - 1));
    else
        ptx_line(e, "rem.u32 %s, %s, %lld;", tid, tid, (long long)lanes);
    ptx_line(e, "mad.lo.s32 %s, %s, %d, %lld;", base, tid, c, (long long)start);
    for (int j = 0; j < v; j++)
        ptx_line(e, "add.s32 %s, %s, %lld;", ptx_reg_name(d[j], dn), base,
                 (long long)ir_simt_element(len, v, 0, 0, j));
    return true;
}

/* ---- memory ----------------------------------------------------------------------------- */

/* The ld/st type of one element (i1 travels as a byte through a b32). */
static const char *mem_type(ir_dtype dt, bool load)
{
    switch (dt) {
    case DT_I8: return load ? "s8" : "u8";
    case DT_I1: case DT_U8: return "u8";
    case DT_I16: return load ? "s16" : "u16";
    case DT_U16: return "u16";
    case DT_I32: return "s32";
    case DT_U32: return "u32";
    case DT_I64: return "s64";
    case DT_U64: return "u64";
    case DT_F16: case DT_BF16: return "b16";
    case DT_F32: return "f32";
    default: return "f64";
    }
}

/* `guard` is "" or "@%pN " (a predicated access). */
static void load_elem(ptx_emitter *e, const char *guard, const char *space, ir_dtype dt, ptx_reg dst,
                      const char *addr)
{
    char dn[16], tn[16];
    ptx_reg_name(dst, dn);
    if (dt == DT_I1) {
        ptx_reg_name(ptx_new_reg(e, RC_B32), tn);
        ptx_line(e, "%sld.%s.u8 %s, [%s];", guard, space, tn, addr);
        ptx_line(e, "%ssetp.ne.s32 %s, %s, 0;", guard, dn, tn);
    } else {
        ptx_line(e, "%sld.%s.%s %s, [%s];", guard, space, mem_type(dt, true), dn, addr);
    }
}

static void store_elem(ptx_emitter *e, const char *guard, const char *space, ir_dtype dt, ptx_reg val,
                       const char *addr)
{
    char vn[16], tn[16];
    ptx_reg_name(val, vn);
    if (dt == DT_I1) {
        ptx_reg_name(ptx_new_reg(e, RC_B32), tn);
        ptx_line(e, "selp.b32 %s, 1, 0, %s;", tn, vn);
        ptx_line(e, "%sst.%s.u8 [%s], %s;", guard, space, addr, tn);
    } else {
        ptx_line(e, "%sst.%s.%s [%s], %s;", guard, space, mem_type(dt, false), addr, vn);
    }
}

static const char *guard_of(ptx_reg mask, char buf[24])
{
    char m[16];
    if (!mask)
        return "";
    snprintf(buf, 24, "@%s ", ptx_reg_name(mask, m));
    return buf;
}

/* The per-slot path of slots [first, first+n): masked-off slots of a load
 * keep `other`. */
static void access_slots(ptx_emitter *e, bool load, ir_dtype dt, int first, int n, const ptx_reg *ptrs,
                         const ptx_reg *vals, const ptx_reg *mask, const ptx_reg *other)
{
    for (int j = first; j < first + n; j++) {
        char g[24], addr[16];
        ptx_reg_name(ptrs[j], addr);
        const char *guard = guard_of(mask ? mask[j] : 0, g);
        if (load && other)
            ptx_mov(e, vals[j], other[j]);
        if (load)
            load_elem(e, guard, "global", dt, vals[j], addr);
        else
            store_elem(e, guard, "global", dt, vals[j], addr);
    }
}

/* "ld.global.v4.f32 {a, b, c, d}, [base+off];" and the store alike. */
static void vector_access(ptx_emitter *e, bool load, const char *ty, int n, const ptx_reg *regs,
                          const char *base, int off)
{
    char list[160] = "", rn[16];
    size_t len = 0;
    for (int j = 0; j < n; j++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "",
                                ptx_reg_name(regs[j], rn));
    char shape[16] = "", operand[176];
    if (n > 1) {
        snprintf(shape, sizeof shape, ".v%d", n);
        snprintf(operand, sizeof operand, "{%s}", list);
    } else {
        snprintf(operand, sizeof operand, "%s", list);
    }
    if (load)
        ptx_line(e, "ld.global%s.%s %s, [%s+%d];", shape, ty, operand, base, off);
    else
        ptx_line(e, "st.global%s.%s [%s+%d], %s;", shape, ty, base, off, operand);
}

/* Bytes or halves of b32 `word` <-> elements vals[0..per-1] (f16/bf16
 * halves in b16 registers; i16/ui16 sign/zero-extended in b32 ones). */
static void unpack_word(ptx_emitter *e, ir_dtype dt, ptx_reg word, const ptx_reg *vals, int per)
{
    char w[16], a[16], b[16], t[16];
    ptx_reg_name(word, w);
    int bits = 8 * ir_dtypes[dt].bytes;
    if (ir_dtype_is_float(dt) && bits == 16) {
        ptx_line(e, "mov.b32 {%s, %s}, %s;", ptx_reg_name(vals[0], a), ptx_reg_name(vals[1], b), w);
        return;
    }
    for (int j = 0; j < per; j++) {
        ptx_reg_name(vals[j], a);
        if (dt == DT_I1) {
            ptx_reg_name(ptx_new_reg(e, RC_B32), t);
            ptx_line(e, "bfe.u32 %s, %s, %d, 8;", t, w, 8 * j);
            ptx_line(e, "setp.ne.s32 %s, %s, 0;", a, t);
        } else {
            ptx_line(e, "bfe.%s32 %s, %s, %d, %d;", ir_dtypes[dt].is_signed ? "s" : "u", a, w,
                     bits * j, bits);
        }
    }
}

static void pack_word(ptx_emitter *e, ir_dtype dt, ptx_reg word, const ptx_reg *vals, int per)
{
    char w[16], a[16], b[16];
    ptx_reg_name(word, w);
    int bits = 8 * ir_dtypes[dt].bytes;
    if (ir_dtype_is_float(dt) && bits == 16) {
        ptx_line(e, "mov.b32 %s, {%s, %s};", w, ptx_reg_name(vals[0], a), ptx_reg_name(vals[1], b));
        return;
    }
    ptx_line(e, "mov.b32 %s, 0;", w);
    for (int j = 0; j < per; j++) {
        ptx_reg_name(vals[j], a);
        if (dt == DT_I1) {
            ptx_reg_name(ptx_new_reg(e, RC_B32), b);
            ptx_line(e, "selp.b32 %s, 1, 0, %s;", b, a);
            memcpy(a, b, sizeof a);
        }
        ptx_line(e, "bfi.b32 %s, %s, %s, %d, %d;", w, a, w, bits * j, bits);
    }
}

/* One aligned, fully unmasked group of k slots as accesses of up to 16
 * bytes. Elements of 1 or 2 bytes travel packed in b32 words (a lone pair
 * of bytes in one u16). */
static void access_group_vector(ptx_emitter *e, bool load, ir_dtype dt, int first, int k,
                                const ptx_reg *ptrs, const ptx_reg *vals)
{
    int eb = ir_dtypes[dt].bytes, total = k * eb, chunk = total < 16 ? total : 16;
    char base[16];
    ptx_reg_name(ptrs[first], base);
    for (int off = 0; off < total; off += chunk) {
        const ptx_reg *v = vals + first + off / eb;
        if (eb >= 4) {
            vector_access(e, load, mem_type(dt, load), chunk / eb, v, base, off);
            continue;
        }
        int nwords = chunk < 4 ? 1 : chunk / 4, per = chunk < 4 ? chunk / eb : 4 / eb;
        ptx_reg words[4];
        for (int i = 0; i < nwords; i++)
            words[i] = ptx_new_reg(e, RC_B32);
        const char *ty = chunk < 4 ? "u16" : "b32";
        if (!load)
            for (int i = 0; i < nwords; i++)
                pack_word(e, dt, words[i], v + i * per, per);
        vector_access(e, load, ty, nwords, words, base, off);
        if (load)
            for (int i = 0; i < nwords; i++)
                unpack_word(e, dt, words[i], v + i * per, per);
    }
}

/* A mask made by sw.cmp (or sw.and of an sw.cmp and another value) in the
 * memory op's own block: its bits are computed again where they are
 * needed (setp from the compare's operands), so that no predicate lives
 * from the compare to the accesses (ptxas keeps at most 7 in predicate
 * registers and moves the rest through general ones: two instructions a
 * bit). With vec_mask one operand ascends by one a slot within each group
 * and the other is uniform (lower-simt's promise): the emitter takes them
 * as a splat or constant and the other, and computes the ascending one
 * from the group's first slot, so only that slot's value stays live. */
typedef struct mask_remat {
    const char *predicate;
    ir_dtype dt;
    const ptx_reg *a, *b, *also; /* compare operands; and-ed bits (or NULL) */
    int ascending;               /* 0 or 1: that operand ascends (vec_mask); -1: none known */
} mask_remat;

static bool is_uniform_def(const ptx_emitter *e, ir_value v)
{
    const ir_op *def = e->m->values[v].def;
    return def && (def->kind == IR_SPLAT || def->kind == IR_CONSTANT);
}

static bool remat_of(ptx_emitter *e, const ir_op *op, ir_value mask, bool vec_mask, mask_remat *r)
{
    const ir_op *def = e->m->values[mask].def;
    if (!def || def->parent != op->parent)
        return false;
    r->also = NULL;
    if (def->kind == IR_AND) {
        /* with vec_mask, lower-simt put the deciding compare first */
        const ir_op *x = e->m->values[def->operands[0]].def, *y = e->m->values[def->operands[1]].def;
        int which = x && x->kind == IR_CMP && x->parent == op->parent ? 0
                    : !vec_mask && y && y->kind == IR_CMP && y->parent == op->parent ? 1 : -1;
        if (which < 0)
            return false;
        r->also = ptx_regs(e, def->operands[1 - which]);
        def = which ? y : x;
    }
    const ir_attr *pred = ir_attr_get(def, "predicate");
    if (def->kind != IR_CMP || !pred || pred->kind != ATTR_STR)
        return false;
    r->predicate = pred->s;
    r->dt = elem_dtype(e, def->operands[0]);
    r->a = ptx_regs(e, def->operands[0]);
    r->b = ptx_regs(e, def->operands[1]);
    bool ua = is_uniform_def(e, def->operands[0]), ub = is_uniform_def(e, def->operands[1]);
    r->ascending = vec_mask && (r->dt == DT_I32 || r->dt == DT_I64) && ua != ub ? (ua ? 1 : 0) : -1;
    return true;
}

/* Slot j's mask bit (j in the group from `first`): a fresh predicate when
 * it can be recomputed, else the mask's own register. */
static ptx_reg mask_bit(ptx_emitter *e, const mask_remat *r, const ptx_reg *mask, int first, int j)
{
    if (!r)
        return mask[j];
    ptx_reg bit = ptx_new_reg(e, RC_PRED);
    ptx_reg in[3] = {r->a[j], r->b[j], 0};
    if (r->ascending >= 0) {
        const ptx_reg *asc = r->ascending ? r->b : r->a, *uni = r->ascending ? r->a : r->b;
        ptx_reg x = asc[first];
        if (j > first) {
            char xn[16], fn[16];
            bool wide = r->dt == DT_I64;
            x = ptx_new_reg(e, wide ? RC_B64 : RC_B32);
            ptx_line(e, "add.s%d %s, %s, %d;", wide ? 64 : 32, ptx_reg_name(x, xn),
                     ptx_reg_name(asc[first], fn), j - first);
        }
        in[r->ascending] = x;
        in[1 - r->ascending] = uni[first];
    }
    ptx_emit_elementwise(e, IR_CMP, r->predicate, r->dt, bit, in);
    if (r->also) {
        char d[16], o[16];
        ptx_line(e, "and.pred %s, %s, %s;", ptx_reg_name(bit, d), d, ptx_reg_name(r->also[j], o));
    }
    return bit;
}

/* simt.load / simt.store. With vec = k > 1, each group of k slots checks at
 * run time that all its mask bits are set and its first address is
 * aligned to k elements, and then takes one wide access instead of k
 * predicated ones. With vec_mask ("first" / "last", docs/simt.md) the
 * group's mask is all set exactly when that slot's bit is: the check
 * reads that bit alone. The per-slot path of a group addresses its slots
 * from the group's first pointer (vec's consecutive elements), so the
 * other slots' pointers need not stay live. */
static bool emit_memory(ptx_emitter *e, const ir_op *op, bool load)
{
    ir_type pt = ir_value_type(e->m, op->operands[0]);
    ir_dtype dt = (ir_dtype)pt.dtype;
    int slots = ptx_slots(pt);
    ptx_reg *ptrs = ptx_regs(e, op->operands[0]);
    ptx_reg *vals, *mask = NULL, *other = NULL;
    if (load) {
        vals = ptx_define(e, op->results[0]);
        if (op->noperands == 3) {
            mask = ptx_regs(e, op->operands[1]);
            other = ptx_regs(e, op->operands[2]);
        }
    } else {
        vals = ptx_regs(e, op->operands[1]);
        if (op->noperands == 3)
            mask = ptx_regs(e, op->operands[2]);
    }
    int64_t k = int_attr(e, op, "vec", 1, false);
    if (k <= 1 || slots < 2) {
        access_slots(e, load, dt, 0, slots, ptrs, vals, mask, other);
        return true;
    }
    if ((k & (k - 1)) || slots % k)
        sw_unreachable(e->d, "%s vec = %lld does not split %d slots into aligned groups",
                       ir_ops[op->kind].name, (long long)k, slots);
    int eb = ir_dtypes[dt].bytes;
    const ir_attr *vm = ir_attr_get(op, "vec_mask");
    int decides = !mask || !vm || vm->kind != ATTR_STR ? -1 : !strcmp(vm->s, "first") ? 0 : (int)k - 1;
    mask_remat remat;
    const mask_remat *r =
        mask && remat_of(e, op, op->operands[load ? 1 : 2], decides >= 0, &remat) ? &remat : NULL;
    ptx_reg *slow_mask = arena_alloc(&e->ar, sizeof *slow_mask * (size_t)slots);
    ptx_reg *slow_ptrs = arena_alloc(&e->ar, sizeof *slow_ptrs * (size_t)slots);
    /* vec_all: one test for every group of the thread (the first group's
     * alignment, the deciding bit of the first or last group); when it
     * fails, each group tests itself as below. */
    const ir_attr *va = ir_attr_get(op, "vec_all");
    int all_done = -1;
    if (va && va->kind == ATTR_BOOL && va->i && slots > k && (!mask || decides >= 0)) {
        char t[16], p[16], m[16], base[16];
        ptx_reg_name(ptx_new_reg(e, RC_B64), t);
        ptx_reg_name(ptx_new_reg(e, RC_PRED), p);
        ptx_line(e, "and.b64 %s, %s, %lld;", t, ptx_reg_name(ptrs[0], base), (long long)(k * eb - 1));
        ptx_line(e, "setp.eq.s64 %s, %s, 0;", p, t);
        if (mask) {
            int g = decides == 0 ? 0 : slots - (int)k;
            ptx_line(e, "and.pred %s, %s, %s;", p, p, ptx_reg_name(mask_bit(e, r, mask, g, g + decides), m));
        }
        int each = ptx_new_label(e);
        all_done = ptx_new_label(e);
        ptx_line(e, "@!%s bra $L__%d;", p, each);
        for (int first = 0; first < slots; first += (int)k)
            access_group_vector(e, load, dt, first, (int)k, ptrs, vals);
        ptx_line(e, "bra $L__%d;", all_done);
        ptx_label(e, each);
    }
    for (int first = 0; first < slots; first += (int)k) {
        char t[16], p[16], m[16], base[16];
        ptx_reg_name(ptx_new_reg(e, RC_B64), t);
        ptx_reg_name(ptx_new_reg(e, RC_PRED), p);
        ptx_line(e, "and.b64 %s, %s, %lld;", t, ptx_reg_name(ptrs[first], base), (long long)(k * eb - 1));
        ptx_line(e, "setp.eq.s64 %s, %s, 0;", p, t);
        for (int j = first; mask && j < first + k; j++)
            if (decides < 0 || j == first + decides)
                ptx_line(e, "and.pred %s, %s, %s;", p, p, ptx_reg_name(mask_bit(e, r, mask, first, j), m));
        int slow = ptx_new_label(e), done = ptx_new_label(e);
        ptx_line(e, "@!%s bra $L__%d;", p, slow);
        access_group_vector(e, load, dt, first, (int)k, ptrs, vals);
        ptx_line(e, "bra $L__%d;", done);
        ptx_label(e, slow);
        for (int j = first; j < first + k; j++) {
            if (mask)
                slow_mask[j] = mask_bit(e, r, mask, first, j);
            slow_ptrs[j] = ptrs[first];
            if (j > first) {
                char pn[16];
                slow_ptrs[j] = ptx_new_reg(e, RC_B64);
                ptx_line(e, "add.s64 %s, %s, %d;", ptx_reg_name(slow_ptrs[j], pn), base, (j - first) * eb);
            }
        }
        access_slots(e, load, dt, first, (int)k, slow_ptrs, vals, mask ? slow_mask : NULL, other);
        ptx_label(e, done);
    }
    if (all_done >= 0)
        ptx_label(e, all_done);
    return true;
}

static bool emit_load(ptx_emitter *e, const ir_op *op) { return emit_memory(e, op, true); }
static bool emit_store(ptx_emitter *e, const ir_op *op) { return emit_memory(e, op, false); }

/* ---- reductions, shuffles, shared memory, barriers ---------------------------------- */

/* simt.vreduce: this thread's slots combined in slot order, in the
 * result's dtype (f16/bf16 slots may be summed into an f32 result). */
static bool emit_vreduce(ptx_emitter *e, const ir_op *op)
{
    const ir_attr *kind = ir_attr_get(op, "kind");
    static const struct { const char *name; ir_op_kind op; } combines[] = {
        {"sum", IR_ADD}, {"prod", IR_MUL}, {"max", IR_MAXIMUM}, {"min", IR_MINIMUM},
    };
    ir_op_kind combine = IR_OP_COUNT;
    for (size_t i = 0; i < sizeof combines / sizeof combines[0]; i++)
        if (kind && kind->kind == ATTR_STR && !strcmp(kind->s, combines[i].name))
            combine = combines[i].op;
    if (combine == IR_OP_COUNT)
        sw_unreachable(e->d, "simt.vreduce without a kind of sum, prod, max or min");
    ir_type in = ir_value_type(e->m, op->operands[0]);
    ir_dtype from = (ir_dtype)in.dtype, to = elem_dtype(e, op->results[0]);
    ptx_reg *x = ptx_regs(e, op->operands[0]);
    ptx_reg acc = x[0];
    if (from != to) {
        acc = ptx_new_reg(e, ptx_dtype_class(to));
        ptx_emit_cast(e, from, to, acc, x[0]);
    }
    for (int j = 1; j < ptx_slots(in); j++) {
        ptx_reg v = x[j];
        if (from != to) {
            v = ptx_new_reg(e, ptx_dtype_class(to));
            ptx_emit_cast(e, from, to, v, x[j]);
        }
        ptx_reg next = ptx_new_reg(e, ptx_dtype_class(to));
        ptx_reg pair[2] = {acc, v};
        if (!ptx_emit_elementwise(e, combine, NULL, to, next, pair))
            return false;
        acc = next;
    }
    ptx_reg *d = ptx_define(e, op->results[0]);
    ptx_mov(e, d[0], acc);
    return true;
}

/* simt.vslots: the result's slots are copies of the operand's registers. */
static bool emit_vslots(ptx_emitter *e, const ir_op *op)
{
    ir_type in = ir_value_type(e->m, op->operands[0]), out = ir_value_type(e->m, op->results[0]);
    int32_t n = ptx_slots(out);
    int32_t *slots = malloc(sizeof(int32_t) * (size_t)n);
    const ir_attr *a = ir_attr_get(op, "slots");
    if (!slots || !a || a->kind != ATTR_STR || ir_parse_slots(a->s, ptx_slots(in), slots, n) != n) {
        free(slots);
        sw_unreachable(e->d, "simt.vslots without one slot index per result slot");
        return false;
    }
    ptx_reg *x = ptx_regs(e, op->operands[0]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int32_t i = 0; i < n; i++)
        ptx_mov(e, d[i], x[slots[i]]);
    free(slots);
    return true;
}

/* simt.shfl_lane: shfl.sync.idx from the lane in a register (its low five
 * bits), the whole warp taking part. */
static bool emit_shuffle_lane(ptx_emitter *e, const ir_op *op)
{
    ir_type t = ir_value_type(e->m, op->operands[0]);
    ptx_reg *s = ptx_regs(e, op->operands[0]), *lane = ptx_regs(e, op->operands[1]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int j = 0; j < ptx_slots(t); j++) {
        char a[16], b[16], c[16];
        ptx_line(e, "shfl.sync.idx.b32 %s, %s, %s, 0x1f, 0xffffffff;", ptx_reg_name(d[j], a),
                 ptx_reg_name(s[j], b), ptx_reg_name(lane[j], c));
    }
    return true;
}

/* How one shuffle op exchanges: bfly (xor) or idx, its lane operand, and
 * its group of `width` lanes (the member mask and the segment bits of c). */
typedef struct shuffle_form {
    const char *mode;
    int64_t arg;
    int64_t width;
    char mask[16]; /* an immediate or a register holding the group's lanes */
} shuffle_form;

static void shuffle32(ptx_emitter *e, const shuffle_form *f, ptx_reg dst, ptx_reg src)
{
    char d[16], s[16];
    ptx_line(e, "shfl.sync.%s.b32 %s, %s, %lld, 0x%llx, %s;", f->mode, ptx_reg_name(dst, d),
             ptx_reg_name(src, s), (long long)f->arg,
             (unsigned long long)(((32 - f->width) << 8) | (strcmp(f->mode, "up") ? 0x1f : 0)), f->mask);
}

/* simt.shfl_xor, simt.shfl_up and simt.shfl_idx: the aligned group of `width` lanes
 * exchanges (member mask: those lanes only, so other groups of the warp
 * may be elsewhere); 64-bit values as two halves, narrower ones (not
 * produced by lower-simt) widened to b32. */
static bool emit_shuffle(ptx_emitter *e, const ir_op *op)
{
    bool idx = op->kind == IR_SIMT_SHFL_IDX;
    shuffle_form f = {.mode = op->kind == IR_SIMT_SHFL_XOR ? "bfly" : idx ? "idx" : "up"};
    f.width = int_attr(e, op, "width", 32, false);
    f.arg = int_attr(e, op, idx ? "lane" : "offset", 0, true);
    if (f.width < 1 || f.width > 32 || (f.width & (f.width - 1)) || f.arg < 0 || f.arg >= f.width)
        sw_unreachable(e->d, "%s lane %lld or width %lld out of range", ir_ops[op->kind].name,
                       (long long)f.arg, (long long)f.width);
    if (f.width == 32) {
        snprintf(f.mask, sizeof f.mask, "0xffffffff");
    } else {
        char lane[16];
        ptx_reg_name(ptx_new_reg(e, RC_B32), lane);
        ptx_reg_name(ptx_new_reg(e, RC_B32), f.mask);
        ptx_line(e, "mov.u32 %s, %%laneid;", lane);
        ptx_line(e, "and.b32 %s, %s, %lld;", lane, lane, (long long)(32 - f.width));
        ptx_line(e, "shl.b32 %s, 0x%llx, %s;", f.mask, (unsigned long long)((1ull << f.width) - 1), lane);
    }
    ir_type t = ir_value_type(e->m, op->operands[0]);
    ptx_reg *s = ptx_regs(e, op->operands[0]);
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int j = 0; j < ptx_slots(t); j++) {
        ptx_class cls = PTX_REG_CLASS(s[j]);
        if (cls == RC_B32 || cls == RC_F32) {
            shuffle32(e, &f, d[j], s[j]);
            continue;
        }
        char a[16], b[16], c[16];
        ptx_reg lo = ptx_new_reg(e, RC_B32), lo2 = ptx_new_reg(e, RC_B32);
        if (cls == RC_B64 || cls == RC_F64) {
            ptx_reg hi = ptx_new_reg(e, RC_B32), hi2 = ptx_new_reg(e, RC_B32);
            ptx_line(e, "mov.b64 {%s, %s}, %s;", ptx_reg_name(lo, a), ptx_reg_name(hi, b),
                     ptx_reg_name(s[j], c));
            shuffle32(e, &f, lo2, lo);
            shuffle32(e, &f, hi2, hi);
            ptx_line(e, "mov.b64 %s, {%s, %s};", ptx_reg_name(d[j], c), ptx_reg_name(lo2, a),
                     ptx_reg_name(hi2, b));
        } else if (cls == RC_B16) {
            ptx_line(e, "cvt.u32.u16 %s, %s;", ptx_reg_name(lo, a), ptx_reg_name(s[j], b));
            shuffle32(e, &f, lo2, lo);
            ptx_line(e, "cvt.u16.u32 %s, %s;", ptx_reg_name(d[j], b), ptx_reg_name(lo2, a));
        } else {
            ptx_line(e, "selp.b32 %s, 1, 0, %s;", ptx_reg_name(lo, a), ptx_reg_name(s[j], b));
            shuffle32(e, &f, lo2, lo);
            ptx_line(e, "setp.ne.s32 %s, %s, 0;", ptx_reg_name(d[j], b), ptx_reg_name(lo2, a));
        }
    }
    return true;
}

static bool emit_fence(ptx_emitter *e, const ir_op *op)
{
    (void)op;
    ptx_line(e, "fence.acq_rel.gpu;");
    return true;
}

/* The shared address of element `index` (i32) of size `bytes`, before the
 * op's constant byte offset (which rides in the address as [a+offset]). */
static ptx_reg smem_address(ptx_emitter *e, const ir_op *op, ptx_reg index, int bytes)
{
    if (!e->smem_name)
        sw_unreachable(e->d, "%s in a function without simt.smem_bytes", ir_ops[op->kind].name);
    ptx_reg a = ptx_new_reg(e, RC_B32);
    char an[16], in[16], bn[16];
    ptx_line(e, "mad.lo.s32 %s, %s, %d, %s;", ptx_reg_name(a, an), ptx_reg_name(index, in), bytes,
             ptx_reg_name(e->smem_base, bn));
    return a;
}

/* Scalars, or vectors accessed slot by slot. */
static bool emit_smem_store(ptx_emitter *e, const ir_op *op)
{
    ir_dtype dt = elem_dtype(e, op->operands[1]);
    int64_t offset = int_attr(e, op, "offset", 0, false);
    int slots = ptx_slots(ir_value_type(e->m, op->operands[0]));
    for (int j = 0; j < slots; j++) {
        ptx_reg a = smem_address(e, op, ptx_regs(e, op->operands[0])[j], ir_dtypes[dt].bytes);
        char g[24], addr[40], an[16];
        snprintf(addr, sizeof addr, "%s+%lld", ptx_reg_name(a, an), (long long)offset);
        ptx_reg mask = op->noperands == 3 ? ptx_regs(e, op->operands[2])[j] : 0;
        store_elem(e, guard_of(mask, g), "shared", dt, ptx_regs(e, op->operands[1])[j], addr);
    }
    return true;
}

static bool emit_smem_load(ptx_emitter *e, const ir_op *op)
{
    ir_dtype dt = elem_dtype(e, op->results[0]);
    int64_t offset = int_attr(e, op, "offset", 0, false);
    int slots = ptx_slots(ir_value_type(e->m, op->operands[0]));
    ptx_reg *d = ptx_define(e, op->results[0]);
    for (int j = 0; j < slots; j++) {
        ptx_reg a = smem_address(e, op, ptx_regs(e, op->operands[0])[j], ir_dtypes[dt].bytes);
        char addr[40], an[16];
        snprintf(addr, sizeof addr, "%s+%lld", ptx_reg_name(a, an), (long long)offset);
        load_elem(e, "", "shared", dt, d[j], addr);
    }
    return true;
}

static bool emit_barrier(ptx_emitter *e, const ir_op *op)
{
    (void)op;
    ptx_line(e, "bar.sync 0;");
    return true;
}

static bool emit_warp_barrier(ptx_emitter *e, const ir_op *op)
{
    (void)op;
    ptx_line(e, "bar.warp.sync -1;");
    return true;
}

/* ---- sl.device_print: vprintf ----------------------------------------------------------
 *
 * simt.print writes the lines the CPU executors write (docs/language.md,
 * "Printing"), one vprintf call per line: each tile element from the first
 * thread holding it (tid < len / V; a scalar from thread 0), its format
 * string (the prefix baked in, '%' doubled) a module-level .global string,
 * its arguments packed by CUDA's printf ABI into a .local buffer: the
 * program id's three u32, the element index (u32), then the value (a
 * double for floats, u32/s32 or 64 bits for integers, bits for hex=True),
 * each aligned to its size. int1 picks one of two strings (True/False).
 * The driver links vprintf itself when it loads the module. */

/* The element count of operand k (0: a scalar), from the op's "lens". */
static int64_t print_len(const ir_op *op, int k)
{
    const ir_attr *a = ir_attr_get(op, "lens");
    const char *p = a && a->kind == ATTR_STR ? a->s : NULL;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return p ? strtoll(p, NULL, 10) : 0;
}

/* A module-level .global string of text and its NUL; returns its name's number. */
static int print_string(ptx_emitter *e, const char *text)
{
    int n = (*e->nstrings)++;
    size_t len = strlen(text);
    sb_printf(e->strings, ".global .align 1 .b8 __swage_fmt_%d[%zu] = {", n, len + 1);
    for (size_t i = 0; i <= len; i++)
        sb_printf(e->strings, "%d%s", (unsigned char)text[i], i < len ? (i % 24 == 23 ? ",\n\t" : ", ") : "};\n\n");
    return n;
}

/* The printf conversion of a value of dt. */
static const char *print_conversion(ir_dtype dt, bool hex)
{
    if (hex) {
        switch (ir_dtypes[dt].bits) {
        case 64: return "0x%016llx";
        case 32: return "0x%08x";
        case 16: return "0x%04x";
        default: return "0x%02x"; /* i1, i8, ui8: two digits, as the CPU executors */
        }
    }
    switch (dt) {
    case DT_I64: return "%lld";
    case DT_F64: return "%.17g";
    case DT_F16: case DT_BF16: case DT_F32: return "%.9g";
    default: return "%d";
    }
}

/* One line's format: the program id, the index, the prefix and value. */
static char *print_format(ptx_emitter *e, const char *prefix, int k, int nops, bool indexed, const char *value)
{
    strbuf f;
    sb_init(&f);
    sb_printf(&f, "pid (%%d, %%d, %%d) idx (%s) ", indexed ? "%d" : "");
    for (const char *p = prefix; *p; p++)
        sb_puts(&f, *p == '%' ? "%%" : (char[2]){*p, 0});
    if (nops > 1)
        sb_printf(&f, "(operand %d) ", k);
    sb_printf(&f, "%s\n", value);
    char *text = arena_strdup(&e->ar, f.data ? f.data : "");
    sb_free(&f);
    return text;
}

static bool emit_print(ptx_emitter *e, const ir_op *op)
{
    const ir_attr *pa = ir_attr_get(op, "prefix"), *ha = ir_attr_get(op, "hex");
    const char *prefix = pa && pa->kind == ATTR_STR ? pa->s : "";
    bool hex = ha && ha->kind == ATTR_INT && ha->i != 0;
    char r0[16], r1[16];
    e->vprintf = true;
    e->print_bytes = 24;
    ptx_reg tid = ptx_new_reg(e, RC_B32), pid[3];
    ptx_line(e, "mov.u32 %s, %%tid.x;", ptx_reg_name(tid, r0));
    for (int a = 0; a < 3; a++) {
        pid[a] = ptx_new_reg(e, RC_B32);
        ptx_line(e, "mov.u32 %s, %%ctaid.%c;", ptx_reg_name(pid[a], r0), "xyz"[a]);
    }
    ptx_reg args = ptx_new_reg(e, RC_B64), fmt = ptx_new_reg(e, RC_B64);
    for (int k = 0; k < op->noperands; k++) {
        ir_value v = op->operands[k];
        ir_type t = ir_value_type(e->m, v);
        ir_dtype dt = (ir_dtype)t.dtype;
        ptx_reg *regs = ptx_regs(e, v);
        int64_t len = print_len(op, k);
        int slots = ptx_slots(t), c = ir_simt_chunk(slots);
        int64_t owners = len ? len / slots : 1;
        int strings[2];
        if (dt == DT_I1 && !hex) {
            strings[0] = print_string(e, print_format(e, prefix, k, op->noperands, len > 0, "False"));
            strings[1] = print_string(e, print_format(e, prefix, k, op->noperands, len > 0, "True"));
        } else {
            strings[0] = strings[1] = print_string(e, print_format(e, prefix, k, op->noperands, len > 0,
                                                                   print_conversion(dt, hex)));
        }
        bool wide = dt == DT_I64 || dt == DT_F64 || (!hex && ir_dtype_is_float(dt));
        int value_at = wide ? 16 : len ? 16 : 12;
        for (int j = 0; j < (len ? slots : 1); j++) {
            /* the first thread holding element (j / c) c owners + tid c + j mod c */
            int skip = ptx_new_label(e);
            ptx_reg go = ptx_new_reg(e, RC_PRED);
            ptx_line(e, "setp.lt.u32 %s, %s, %lld;", ptx_reg_name(go, r0), ptx_reg_name(tid, r1),
                     (long long)owners);
            ptx_line(e, "@!%s bra $L__%d;", ptx_reg_name(go, r0), skip);
            for (int a = 0; a < 3; a++)
                ptx_line(e, "st.local.u32 [%s+%d], %s;", PTX_PRINT_BUF, 4 * a, ptx_reg_name(pid[a], r0));
            if (len) {
                ptx_reg idx = ptx_new_reg(e, RC_B32);
                ptx_line(e, "mad.lo.s32 %s, %s, %d, %lld;", ptx_reg_name(idx, r0), ptx_reg_name(tid, r1), c,
                         (long long)((j / c) * c * owners + j % c));
                ptx_line(e, "st.local.u32 [%s+12], %s;", PTX_PRINT_BUF, r0);
            }
            ptx_reg x = regs[j];
            if (dt == DT_I1) {
                if (hex) {
                    ptx_reg b = ptx_new_reg(e, RC_B32);
                    ptx_line(e, "selp.u32 %s, 1, 0, %s;", ptx_reg_name(b, r0), ptx_reg_name(x, r1));
                    ptx_line(e, "st.local.u32 [%s+%d], %s;", PTX_PRINT_BUF, value_at, r0);
                }
            } else if (hex) {
                ptx_reg b = ptx_new_reg(e, wide ? RC_B64 : RC_B32);
                ptx_reg_name(b, r0);
                ptx_reg_name(x, r1);
                if (dt == DT_F16 || dt == DT_BF16)
                    ptx_line(e, "cvt.u32.u16 %s, %s;", r0, r1);
                else if (dt == DT_I8 || dt == DT_U8)
                    ptx_line(e, "and.b32 %s, %s, 255;", r0, r1);
                else
                    ptx_line(e, "mov.b%d %s, %s;", wide ? 64 : 32, r0, r1);
                ptx_line(e, "st.local.b%d [%s+%d], %s;", wide ? 64 : 32, PTX_PRINT_BUF, value_at, r0);
            } else if (ir_dtype_is_float(dt)) {
                ptx_reg d = x;
                if (dt != DT_F64) {
                    d = ptx_new_reg(e, RC_F64);
                    ptx_emit_cast(e, dt, DT_F64, d, x);
                }
                ptx_line(e, "st.local.f64 [%s+%d], %s;", PTX_PRINT_BUF, value_at, ptx_reg_name(d, r0));
            } else {
                ptx_line(e, "st.local.b%d [%s+%d], %s;", dt == DT_I64 ? 64 : 32, PTX_PRINT_BUF, value_at,
                         ptx_reg_name(x, r0));
            }
            ptx_reg_name(fmt, r0);
            if (strings[0] == strings[1]) {
                ptx_line(e, "mov.u64 %s, __swage_fmt_%d;", r0, strings[0]);
            } else {
                ptx_reg f1 = ptx_new_reg(e, RC_B64);
                ptx_line(e, "mov.u64 %s, __swage_fmt_%d;", ptx_reg_name(f1, r1), strings[1]);
                ptx_line(e, "mov.u64 %s, __swage_fmt_%d;", r0, strings[0]);
                char r2[16];
                ptx_line(e, "selp.b64 %s, %s, %s, %s;", r0, r1, r0, ptx_reg_name(x, r2));
            }
            ptx_line(e, "cvta.global.u64 %s, %s;", r0, r0);
            ptx_line(e, "mov.u64 %s, %s;", ptx_reg_name(args, r1), PTX_PRINT_BUF);
            ptx_line(e, "cvta.local.u64 %s, %s;", r1, r1);
            ptx_line(e, "{");
            ptx_line(e, ".param .b64 fmt;");
            ptx_line(e, "st.param.b64 [fmt], %s;", r0);
            ptx_line(e, ".param .b64 args;");
            ptx_line(e, "st.param.b64 [args], %s;", r1);
            ptx_line(e, ".param .b32 written;");
            ptx_line(e, "call (written), vprintf, (fmt, args);"); /* divergent: not .uni */
            ptx_line(e, "}");
            ptx_label(e, skip);
        }
    }
    return true;
}

/* ---- the table ---------------------------------------------------------------------------- */

static const op_emitter emitters[IR_OP_COUNT] = {
    [IR_CONSTANT] = emit_constant,
    [IR_SPLAT] = emit_splat,
    [IR_CAST] = emit_cast,
    [IR_BITCAST] = emit_bitcast,
    [IR_ADDPTR] = emit_addptr,
    [IR_ADD] = emit_elementwise_op,
    [IR_SUB] = emit_elementwise_op,
    [IR_MUL] = emit_elementwise_op,
    [IR_DIV] = emit_elementwise_op,
    [IR_FLOORDIV] = emit_elementwise_op,
    [IR_MOD] = emit_elementwise_op,
    [IR_IDIV] = emit_elementwise_op,
    [IR_REM] = emit_elementwise_op,
    [IR_UMULHI] = emit_elementwise_op,
    [IR_MINIMUM] = emit_elementwise_op,
    [IR_MAXIMUM] = emit_elementwise_op,
    [IR_AND] = emit_elementwise_op,
    [IR_OR] = emit_elementwise_op,
    [IR_XOR] = emit_elementwise_op,
    [IR_SHL] = emit_elementwise_op,
    [IR_SHR] = emit_elementwise_op,
    [IR_CMP] = emit_elementwise_op,
    [IR_SELECT] = emit_elementwise_op,
    [IR_NEG] = emit_elementwise_op,
    [IR_NOT] = emit_elementwise_op,
    [IR_ABS] = emit_elementwise_op,
    [IR_EXP] = emit_elementwise_op,
    [IR_EXP2] = emit_elementwise_op,
    [IR_LOG] = emit_elementwise_op,
    [IR_LOG2] = emit_elementwise_op,
    [IR_SQRT] = emit_elementwise_op,
    [IR_RSQRT] = emit_elementwise_op,
    [IR_FLOOR] = emit_elementwise_op,
    [IR_CEIL] = emit_elementwise_op,
    [IR_SIN] = emit_elementwise_op,
    [IR_COS] = emit_elementwise_op,
    [IR_SIGMOID] = emit_elementwise_op,
    [IR_ERF] = emit_elementwise_op,
    [IR_TRUNC] = emit_elementwise_op,
    [IR_ROUND] = emit_elementwise_op,
    [IR_RINT] = emit_elementwise_op,
    [IR_TAN] = emit_elementwise_op,
    [IR_ASIN] = emit_elementwise_op,
    [IR_ACOS] = emit_elementwise_op,
    [IR_ATAN] = emit_elementwise_op,
    [IR_SINH] = emit_elementwise_op,
    [IR_COSH] = emit_elementwise_op,
    [IR_TANH] = emit_elementwise_op,
    [IR_ASINH] = emit_elementwise_op,
    [IR_ACOSH] = emit_elementwise_op,
    [IR_ATANH] = emit_elementwise_op,
    [IR_EXPM1] = emit_elementwise_op,
    [IR_LOG1P] = emit_elementwise_op,
    [IR_LOG10] = emit_elementwise_op,
    [IR_EXP10] = emit_elementwise_op,
    [IR_CBRT] = emit_elementwise_op,
    [IR_ERFC] = emit_elementwise_op,
    [IR_ATAN2] = emit_elementwise_op,
    [IR_POW] = emit_elementwise_op,
    [IR_HYPOT] = emit_elementwise_op,
    [IR_FMOD] = emit_elementwise_op,
    [IR_COPYSIGN] = emit_elementwise_op,
    [IR_FMA] = emit_elementwise_op,
    [IR_SIMT_THREAD_ID] = emit_thread_id,
    [IR_SIMT_BLOCK_ID] = emit_block_id,
    [IR_SIMT_GRID_DIM] = emit_grid_dim,
    [IR_SIMT_TILE_INDEX] = emit_tile_index,
    [IR_SIMT_LOAD] = emit_load,
    [IR_SIMT_STORE] = emit_store,
    [IR_SIMT_VREDUCE] = emit_vreduce,
    [IR_SIMT_VSLOTS] = emit_vslots,
    [IR_SIMT_SHFL_XOR] = emit_shuffle,
    [IR_SIMT_SHFL_IDX] = emit_shuffle,
    [IR_SIMT_SHFL_LANE] = emit_shuffle_lane,
    [IR_SIMT_SHFL_UP] = emit_shuffle,
    [IR_SIMT_ATOMIC_RMW] = ptx_emit_atomic,
    [IR_SIMT_ATOMIC_CAS] = ptx_emit_atomic,
    [IR_SIMT_FENCE] = emit_fence,
    [IR_SIMT_SMEM_STORE] = emit_smem_store,
    [IR_SIMT_SMEM_LOAD] = emit_smem_load,
    [IR_SIMT_BARRIER] = emit_barrier,
    [IR_SIMT_WARP_BARRIER] = emit_warp_barrier,
    [IR_SIMT_PRINT] = emit_print,
};

bool ptx_emit_simple_op(ptx_emitter *e, const ir_op *op)
{
    op_emitter emit = op->kind < IR_OP_COUNT ? emitters[op->kind] : NULL;
    if (!emit) {
        sw_unreachable(e->d, "the PTX emitter cannot render '%s' (not an op of SIMT IR)",
                       op->kind < IR_OP_COUNT ? ir_ops[op->kind].name : "?");
        return false;
    }
    return emit(e, op);
}
