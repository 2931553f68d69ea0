/* ptx_atomic.c - simt.atomic_rmw and simt.atomic_cas as PTX: one native
 * `atom` per slot (`red` when the old value is unused and the order allows
 * it), with the op's memory order and scope as qualifiers
 * (atom.acq_rel.gpu.global.add.u32). Masked-off slots issue no access and
 * read 0. Float max and min are the pair of integer atomics that orders
 * floats as IEEE totalOrder (src/ir/atomic.h): a value whose sign bit is
 * clear takes the signed max (min) of the bit patterns, one whose sign bit
 * is set the unsigned min (max). An integer add of a constant whose old
 * value is used, under relaxed order, is aggregated over the warp's lanes
 * that add to the same address (aggregated_add). Requires verified SIMT
 * IR. */
#include "ptx_internal.h"
#include "../../ir/atomic.h"

#include <stdio.h>
#include <string.h>

static const char *str_attr(ptx_emitter *e, const ir_op *op, const char *name)
{
    const ir_attr *a = ir_attr_get(op, name);
    if (!a || a->kind != ATTR_STR || !a->s) {
        sw_unreachable(e->d, "%s has no string attribute '%s'", ir_ops[op->kind].name, name);
        return "";
    }
    return a->s;
}

/* The instruction suffix after the op: its PTX type for an integer or
 * float add, exchange or bitwise op of dtype dt. */
static const char *rmw_suffix(ir_atomic_kind kind, ir_dtype dt)
{
    bool wide = ir_dtypes[dt].bits == 64;
    switch (kind) {
    case IR_ATOM_ADD:
        switch (dt) {
        case DT_I32: case DT_U32: return "add.u32";
        case DT_I64: case DT_U64: return "add.u64";
        case DT_F16: return "add.noftz.f16";
        case DT_F32: return "add.f32";
        default: return "add.f64";
        }
    case IR_ATOM_AND: return wide ? "and.b64" : "and.b32";
    case IR_ATOM_OR: return wide ? "or.b64" : "or.b32";
    case IR_ATOM_XOR: return wide ? "xor.b64" : "xor.b32";
    case IR_ATOM_XCHG: return wide ? "exch.b64" : "exch.b32";
    case IR_ATOM_MAX:
        if (ir_dtype_is_unsigned(dt))
            return wide ? "max.u64" : "max.u32";
        return wide ? "max.s64" : "max.s32";
    default:
        if (ir_dtype_is_unsigned(dt))
            return wide ? "min.u64" : "min.u32";
        return wide ? "min.s64" : "min.s32";
    }
}

/* One atom (or red, when `d` is 0) under `guard`: "atom.SEM.SCOPE.global.SUFFIX d, [a], b;". */
static void atom_line(ptx_emitter *e, const char *guard, const char *qual, const char *suffix,
                      ptx_reg d, ptx_reg a, ptx_reg b)
{
    char dn[16], an[16], bn[16];
    ptx_reg_name(a, an);
    ptx_reg_name(b, bn);
    if (d)
        ptx_line(e, "%satom.%s.global.%s %s, [%s], %s;", guard, qual, suffix, ptx_reg_name(d, dn), an, bn);
    else
        ptx_line(e, "%sred.%s.global.%s [%s], %s;", guard, qual, suffix, an, bn);
}

/* The guard "@p " of a predicate register, or "" for none. */
static const char *guard_text(ptx_reg p, char buf[24])
{
    char n[16];
    if (!p)
        return "";
    snprintf(buf, 24, "@%s ", ptx_reg_name(p, n));
    return buf;
}

/* Float max/min of one slot: the bits of the value pick the signed or the
 * unsigned integer atomic (each under its own predicate, and-ed with the
 * slot's mask); the old bits move back into the float register d. */
static void float_minmax(ptx_emitter *e, bool max, ir_dtype dt, const char *qual, ptx_reg d, ptx_reg a,
                         ptx_reg value, ptx_reg mask)
{
    bool wide = dt == DT_F64;
    ptx_class cls = wide ? RC_B64 : RC_B32;
    int bits = wide ? 64 : 32;
    ptx_reg vb = ptx_new_reg(e, cls), old = d ? ptx_new_reg(e, cls) : 0;
    ptx_reg pos = ptx_new_reg(e, RC_PRED), neg = ptx_new_reg(e, RC_PRED);
    char vn[16], xn[16], pn[16], nn[16], mn[16], g[24];
    ptx_line(e, "mov.b%d %s, %s;", bits, ptx_reg_name(vb, vn), ptx_reg_name(value, xn));
    ptx_line(e, "setp.ge.s%d %s, %s, 0;", bits, ptx_reg_name(pos, pn), vn);
    ptx_line(e, "setp.lt.s%d %s, %s, 0;", bits, ptx_reg_name(neg, nn), vn);
    if (mask) {
        ptx_reg_name(mask, mn);
        ptx_line(e, "and.pred %s, %s, %s;", pn, pn, mn);
        ptx_line(e, "and.pred %s, %s, %s;", nn, nn, mn);
        if (d)
            ptx_line(e, "mov.b%d %s, 0;", bits, ptx_reg_name(old, xn));
    }
    char sgn[16], uns[16];
    snprintf(sgn, sizeof sgn, "%s.s%d", max ? "max" : "min", bits);
    snprintf(uns, sizeof uns, "%s.u%d", max ? "min" : "max", bits);
    atom_line(e, guard_text(pos, g), qual, sgn, old, a, vb);
    atom_line(e, guard_text(neg, g), qual, uns, old, a, vb);
    if (d)
        ptx_line(e, "mov.b%d %s, %s;", bits, ptx_reg_name(d, vn), ptx_reg_name(old, xn));
}

/* Whether slot adds of `op` may be aggregated: an integer add of a
 * constant (the same in every lane) whose old value is used, under relaxed
 * order, on a target with match.any (sm_70). */
static bool aggregable(ptx_emitter *e, const ir_op *op, ir_atomic_kind kind, ir_dtype dt, const char *sem, bool used)
{
    const ir_op *value = e->m->values[op->operands[1]].def;
    return op->kind == IR_SIMT_ATOMIC_RMW && kind == IR_ATOM_ADD && used && e->sm >= 70 &&
           !strcmp(sem, "relaxed") && (dt == DT_I32 || dt == DT_U32 || dt == DT_I64 || dt == DT_U64) &&
           value && value->kind == IR_CONSTANT;
}

/* One slot's add of the constant in `value` as one atom per address per
 * warp: the lanes here whose (unmasked) slots hit the same address
 * (match.any) elect the lowest as leader, which adds the constant times
 * their count; each lane then reads the leader's old value (shfl) plus the
 * constant times its rank among them. That is the old value of one order
 * of the lanes' adds, as the atomics one by one would give, with one
 * memory operation where there were up to 32 on one word (many segments of
 * a warp appending to the same list). Masked-off lanes key on address 0
 * (no global address), never lead, and read 0. */
static void aggregated_add(ptx_emitter *e, const char *qual, bool wide, ptx_reg d, ptx_reg a, ptx_reg value,
                           ptx_reg mask)
{
    ptx_reg am = ptx_new_reg(e, RC_B32), key = ptx_new_reg(e, RC_B64), grp = ptx_new_reg(e, RC_B32);
    ptx_reg below = ptx_new_reg(e, RC_B32), rank = ptx_new_reg(e, RC_B32), count = ptx_new_reg(e, RC_B32);
    ptx_reg src = ptx_new_reg(e, RC_B32), lead = ptx_new_reg(e, RC_PRED);
    ptx_class cls = wide ? RC_B64 : RC_B32;
    ptx_reg total = ptx_new_reg(e, cls), old = ptx_new_reg(e, cls), base = ptx_new_reg(e, cls);
    char amn[16], kn[16], gn[16], bn[16], rn[16], cn[16], sn[16], ln[16], tn[16], on[16], ban[16];
    char an[16], vn[16], mn[16], dn[16];
    ptx_reg_name(am, amn), ptx_reg_name(key, kn), ptx_reg_name(grp, gn), ptx_reg_name(below, bn);
    ptx_reg_name(rank, rn), ptx_reg_name(count, cn), ptx_reg_name(src, sn), ptx_reg_name(lead, ln);
    ptx_reg_name(total, tn), ptx_reg_name(old, on), ptx_reg_name(base, ban);
    ptx_reg_name(a, an), ptx_reg_name(value, vn), ptx_reg_name(d, dn);
    const char *u = wide ? "u64" : "u32";
    ptx_line(e, "activemask.b32 %s;", amn);
    if (mask)
        ptx_line(e, "selp.b64 %s, %s, 0, %s;", kn, an, ptx_reg_name(mask, mn));
    else
        ptx_line(e, "mov.b64 %s, %s;", kn, an);
    ptx_line(e, "match.any.sync.b64 %s, %s, %s;", gn, kn, amn);
    ptx_line(e, "mov.u32 %s, %%lanemask_lt;", bn);
    ptx_line(e, "and.b32 %s, %s, %s;", bn, bn, gn);
    ptx_line(e, "popc.b32 %s, %s;", rn, bn);
    ptx_line(e, "popc.b32 %s, %s;", cn, gn);
    ptx_line(e, "setp.eq.u32 %s, %s, 0;", ln, rn);
    if (mask)
        ptx_line(e, "and.pred %s, %s, %s;", ln, ln, mn);
    if (wide) {
        ptx_line(e, "cvt.u64.u32 %s, %s;", tn, cn);
        ptx_line(e, "mul.lo.u64 %s, %s, %s;", tn, tn, vn);
    } else {
        ptx_line(e, "mul.lo.u32 %s, %s, %s;", tn, cn, vn);
    }
    ptx_line(e, "mov.b%d %s, 0;", wide ? 64 : 32, on);
    ptx_line(e, "@%s atom.%s.global.add.%s %s, [%s], %s;", ln, qual, u, on, an, tn);
    /* the leader: the group's lowest lane */
    ptx_line(e, "brev.b32 %s, %s;", sn, gn);
    ptx_line(e, "clz.b32 %s, %s;", sn, sn);
    if (wide) {
        ptx_reg lo = ptx_new_reg(e, RC_B32), hi = ptx_new_reg(e, RC_B32), r64 = ptx_new_reg(e, RC_B64);
        char lon[16], hin[16], r64n[16];
        ptx_reg_name(lo, lon), ptx_reg_name(hi, hin), ptx_reg_name(r64, r64n);
        ptx_line(e, "mov.b64 {%s, %s}, %s;", lon, hin, on);
        ptx_line(e, "shfl.sync.idx.b32 %s, %s, %s, 0x1f, %s;", lon, lon, sn, gn);
        ptx_line(e, "shfl.sync.idx.b32 %s, %s, %s, 0x1f, %s;", hin, hin, sn, gn);
        ptx_line(e, "mov.b64 %s, {%s, %s};", ban, lon, hin);
        ptx_line(e, "cvt.u64.u32 %s, %s;", r64n, rn);
        ptx_line(e, "mad.lo.u64 %s, %s, %s, %s;", dn, r64n, vn, ban);
    } else {
        ptx_line(e, "shfl.sync.idx.b32 %s, %s, %s, 0x1f, %s;", ban, on, sn, gn);
        ptx_line(e, "mad.lo.u32 %s, %s, %s, %s;", dn, rn, vn, ban);
    }
    if (mask)
        ptx_line(e, "selp.b%d %s, %s, 0, %s;", wide ? 64 : 32, dn, dn, mn);
}

bool ptx_emit_atomic(ptx_emitter *e, const ir_op *op)
{
    bool cas = op->kind == IR_SIMT_ATOMIC_CAS;
    int nvals = cas ? 2 : 1;
    ir_type pt = ir_value_type(e->m, op->operands[0]);
    ir_dtype dt = (ir_dtype)pt.dtype;
    ir_atomic_kind kind = cas ? IR_ATOM_KIND_COUNT : ir_atomic_kind_from_name(str_attr(e, op, "kind"));
    const char *sem = str_attr(e, op, "sem"), *scope = str_attr(e, op, "scope");
    if (cas ? !ir_atomic_cas_dtype_ok(dt) : !ir_atomic_rmw_dtype_ok(kind, dt)) {
        sw_unreachable(e->d, "%s of a dtype it does not take", ir_ops[op->kind].name);
        return false;
    }
    char qual[32];
    snprintf(qual, sizeof qual, "%s.%s", sem, scope);
    ptx_reg *ptrs = ptx_regs(e, op->operands[0]);
    ptx_reg *cmps = cas ? ptx_regs(e, op->operands[1]) : NULL;
    ptx_reg *vals = ptx_regs(e, op->operands[nvals]);
    ptx_reg *mask = op->noperands == 2 + nvals ? ptx_regs(e, op->operands[1 + nvals]) : NULL;
    ptx_reg *d = ptx_define(e, op->results[0]);
    /* red has no result and no acquire side: only for an unused old value
     * under relaxed or release order (and never for exch or cas) */
    bool used = ir_value_uses(e->m, op->results[0]) != NULL;
    bool red = !used && !cas && kind != IR_ATOM_XCHG && (!strcmp(sem, "relaxed") || !strcmp(sem, "release"));
    bool aggregate = aggregable(e, op, kind, dt, sem, used);
    for (int j = 0; j < ptx_slots(pt); j++) {
        char g[24], dn[16], an[16], cn[16], vn[16];
        ptx_reg m = mask ? mask[j] : 0;
        ptx_reg dst = red ? 0 : d[j];
        if (!cas && ir_dtype_is_float(dt) && (kind == IR_ATOM_MAX || kind == IR_ATOM_MIN)) {
            float_minmax(e, kind == IR_ATOM_MAX, dt, qual, dst, ptrs[j], vals[j], m);
            continue;
        }
        if (aggregate) {
            aggregated_add(e, qual, ir_dtypes[dt].bits == 64, dst, ptrs[j], vals[j], m);
            continue;
        }
        if (m && dst)
            ptx_line(e, "mov.b%d %s, 0;", ir_dtypes[dt].bits, ptx_reg_name(dst, dn));
        if (cas) {
            ptx_line(e, "%satom.%s.global.cas.b%d %s, [%s], %s, %s;", guard_text(m, g), qual,
                     ir_dtypes[dt].bits, ptx_reg_name(dst, dn), ptx_reg_name(ptrs[j], an),
                     ptx_reg_name(cmps[j], cn), ptx_reg_name(vals[j], vn));
            continue;
        }
        atom_line(e, guard_text(m, g), qual, rmw_suffix(kind, dt), dst, ptrs[j], vals[j]);
    }
    return true;
}
