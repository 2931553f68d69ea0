/* irgen_atomics.c - the atomic built-ins, as Triton's: sl.atomic_add,
 * atomic_max, atomic_min, atomic_and, atomic_or, atomic_xor, atomic_xchg
 * (pointer, val, mask=None, sem=None, scope=None) and sl.atomic_cas
 * (pointer, cmp, val, sem=None, scope=None), each returning the old
 * values. Requires a live irgen; guarantees one sw.atomic_rmw or
 * sw.atomic_cas whose values have the pointee's dtype and the pointer's
 * shape, with the kind, sem and scope attributes the verifier accepts, or
 * an error at the offending argument (docs/language.md, "Atomics"). */
#include "irgen_internal.h"
#include "../ir/atomic.h"

#include <stdio.h>
#include <string.h>

/* sem= or scope=: None (Triton's default) or a string literal naming one
 * of `allowed`. */
static bool string_choice(irgen *g, const char *who, const ast_expr *a, const char *param,
                          const char *const *allowed, const char *dflt, const char **out)
{
    *out = dflt;
    if (!a || a->kind == AST_NONE)
        return true;
    char list[96] = "";
    for (const char *const *p = allowed; *p; p++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", p == allowed ? "" : ", ", *p);
    if (a->kind != AST_STRING) {
        ig_error(g, a->loc, "%s of sl.%s must be a string literal: one of %s", param, who, list);
        return false;
    }
    for (const char *const *p = allowed; *p; p++)
        if (!strcmp(a->name ? a->name : "", *p)) {
            *out = *p;
            return true;
        }
    ig_error(g, a->loc, "%s '%.40s' is not supported by sl.%s; it must be one of %s (as in Triton)",
             param, a->name ? a->name : "", who, list);
    return false;
}

/* A value operand (val or cmp) as the pointee's dtype in the pointer's
 * shape: constants and values of another dtype convert as .to() does (as
 * Triton casts them). */
static ir_value atomic_operand(irgen *g, const char *who, const char *param, const ast_expr *a, gval v,
                               ir_type pt)
{
    char b1[64], b2[64];
    ir_type et = ir_type_scalar((ir_dtype)pt.dtype);
    ir_value x;
    if (v.kind == GV_ERROR)
        return IR_NO_VALUE;
    if (v.kind == GV_CONST && v.c.kind != CONST_DTYPE) {
        if (v.c.kind == CONST_FLOAT && !ir_dtype_is_float(et.dtype))
            x = ig_cast(g, a->loc, ig_materialize(g, a->loc, v.c, ir_type_scalar(DT_F32)), et.dtype);
        else
            x = ig_materialize(g, a->loc, v.c, et);
    } else {
        x = ig_to_ir(g, a->loc, v, ir_type_void());
        if (x == IR_NO_VALUE)
            return x;
        ir_type xt = ir_value_type(g->m, x);
        if (ig_is_segment_type(xt)) {
            ig_error(g, a->loc, "'%s' of sl.%s cannot be a %s: atomics are for grid programs", param,
                     who, ig_type_name(xt, b1));
            return IR_NO_VALUE;
        }
        if (ir_type_is_ptrlike(xt)) {
            ig_error(g, a->loc, "'%s' of sl.%s must be a number, not a %s", param, who,
                     ig_type_name(xt, b1));
            return IR_NO_VALUE;
        }
        if (xt.kind == TY_TILE && pt.kind != TY_TILE) {
            ig_error(g, a->loc, "'%s' of sl.%s is a %s but the pointer is a single pointer; offset "
                                "the pointer by a tile first", param, who, ig_type_name(xt, b1));
            return IR_NO_VALUE;
        }
        if (xt.kind == TY_TILE && !ir_type_eq(ir_type_like(xt, ir_type_elem(pt)), pt)) {
            ir_type common;
            if (!ig_common_shape(g, a->loc, xt, pt, &common, "atomic") || common.len != pt.len) {
                if (!ig_failed(g))
                    ig_error(g, a->loc, "shape mismatch: '%s' of sl.%s is a %s and the pointer a %s",
                             param, who, ig_type_name(xt, b1), ig_type_name(pt, b2));
                return IR_NO_VALUE;
            }
        }
        if (xt.dtype != et.dtype)
            x = ig_cast(g, a->loc, x, et.dtype);
    }
    return x == IR_NO_VALUE ? x : ig_broadcast(g, a->loc, x, pt);
}

gval ig_atomic_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                       const gval *self)
{
    char buf[64];
    const char *who = name;
    bool cas = !strcmp(name, "atomic_cas");
    ir_atomic_kind kind = cas ? IR_ATOM_KIND_COUNT : ir_atomic_kind_from_name(name + strlen("atomic_"));
    if (!cas && kind == IR_ATOM_KIND_COUNT) {
        sw_unreachable(g->d, "no lowering for sl.%s", name);
        return (gval){0};
    }
    /* arguments: pointer, (cmp,) val, then mask (not for cas), sem, scope */
    int nvals = cas ? 2 : 1;
    const ast_expr *mask_arg = cas ? NULL : args[2];
    const ast_expr *sem_arg = args[3], *scope_arg = args[4];
    const char *sem, *scope;
    if (!string_choice(g, who, sem_arg, "sem", ir_atomic_sems, "acq_rel", &sem) ||
        !string_choice(g, who, scope_arg, "scope", ir_atomic_scopes, "gpu", &scope) ||
        !ig_note_atomic(g, call->loc, who))
        return (gval){0};

    /* evaluated in the call's order: pointer (unless the method's self),
     * (cmp,) val, mask */
    gval p = self ? *self : ig_expr(g, args[0]);
    if (p.kind == GV_ERROR)
        return p;
    gval vals[2];
    for (int i = 0; i < nvals; i++)
        if ((vals[i] = ig_expr(g, args[1 + i])).kind == GV_ERROR)
            return vals[i];
    gval m = mask_arg ? ig_expr(g, mask_arg) : (gval){.kind = GV_NONE};
    ir_value ptr, mask;
    if (!ig_ptr_and_mask(g, who, args[0], p, mask_arg, m, &ptr, &mask))
        return (gval){0};

    ir_type pt = ir_value_type(g->m, ptr);
    ir_dtype dt = (ir_dtype)pt.dtype;
    if (cas ? !ir_atomic_cas_dtype_ok(dt) : !ir_atomic_rmw_dtype_ok(kind, dt))
        return ig_error(g, args[0]->loc, "sl.%s needs a pointer to %s, not a %s", who,
                        ir_atomic_dtypes_text(kind, false), ig_type_name(pt, buf));

    ir_value ops[4];
    ops[0] = ptr;
    for (int i = 0; i < nvals; i++) {
        /* a tile value makes the atomic a tile op: a scalar pointer cannot take it */
        ops[1 + i] = atomic_operand(g, who, cas && i == 0 ? "cmp" : "val", args[1 + i], vals[i], pt);
        if (ops[1 + i] == IR_NO_VALUE)
            return (gval){0};
    }
    int n = 1 + nvals;
    if (mask != IR_NO_VALUE)
        ops[n++] = mask;
    ir_type rt = ir_type_like(pt, ir_type_scalar(dt));
    ir_value old = ig_emit1(g, cas ? IR_ATOMIC_CAS : IR_ATOMIC_RMW, call->loc, ops, n, rt);
    if (old == IR_NO_VALUE)
        return (gval){0};
    ir_op *op = g->m->values[old].def;
    if (!cas)
        ir_attr_set_str(g->m, op, "kind", ir_atomic_kind_names[kind]);
    ir_attr_set_str(g->m, op, "sem", sem);
    ir_attr_set_str(g->m, op, "scope", scope);
    return gv_ir(old);
}
