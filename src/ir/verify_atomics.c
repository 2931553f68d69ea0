/* verify_atomics.c - the verifier's rules for the atomic ops: sw.atomic_rmw
 * and sw.atomic_cas at the semantic level, simt.atomic_rmw and
 * simt.atomic_cas at the SIMT level (docs/ir-format.md, docs/simt.md).
 * Requires the walk of verify.c (it calls verify_atomic per op, after the
 * op's operands and results are checked and its level is known); reports
 * the first violation and returns false. */
#include "verify_internal.h"
#include "atomic.h"

#include <stdio.h>
#include <string.h>

static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(verifier *v, const ir_op *op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verify_vfail(v, op, fmt, ap);
    va_end(ap);
    return false;
}

/* A string attribute that must name one of `list` (NULL-terminated). */
static bool check_choice(verifier *v, const ir_op *op, const char *name, const char *const *list,
                         bool (*valid)(const char *))
{
    const ir_attr *a = ir_attr_get(op, name);
    if (a && a->kind == ATTR_STR && valid(a->s))
        return true;
    char choices[96] = "";
    for (const char *const *p = list; *p; p++)
        snprintf(choices + strlen(choices), sizeof choices - strlen(choices), "%s%s",
                 p == list ? "" : " ", *p);
    return fail(v, op, "'%s' needs a string attribute '%s', one of %s", name_of(op), name, choices);
}

static bool valid_kind(const char *s) { return ir_atomic_kind_from_name(s) != IR_ATOM_KIND_COUNT; }

bool verify_atomic(verifier *v, const ir_op *op)
{
    char a[64], b[64], c[64];
    bool cas = op->kind == IR_ATOMIC_CAS || op->kind == IR_SIMT_ATOMIC_CAS;
    bool simt = op->kind == IR_SIMT_ATOMIC_RMW || op->kind == IR_SIMT_ATOMIC_CAS;
    int values = cas ? 2 : 1; /* value operands after the pointer */
    if (op->noperands != 1 + values && op->noperands != 2 + values)
        return fail(v, op, "'%s' takes %d operands (%s) or %d (with a mask), got %d", name_of(op),
                    1 + values, cas ? "ptr, cmp, value" : "ptr, value", 2 + values, (int)op->noperands);
    ir_type ptr = operand_type(v, op, 0);
    if (simt ? ptr.kind != TY_VEC || !ptr.ptr_elem : !ir_type_is_ptrlike(ptr) || ptr.kind == TY_VEC)
        return fail(v, op, "'%s' operand #0 type %s must be %s", name_of(op), TY(ptr, a),
                    simt ? "a vector of pointers" : "a pointer or a tile of pointers");
    ir_type want = ir_type_like(ptr, ir_type_scalar(elem_dtype(ptr)));
    for (int i = 1; i <= values; i++) {
        ir_type t = operand_type(v, op, i);
        if (!ir_type_eq(t, want))
            return fail(v, op, "'%s' %s type %s does not match the pointee of %s (expected %s)",
                        name_of(op), cas && i == 1 ? "cmp" : "value", TY(t, a), TY(ptr, b), TY(want, c));
    }
    if (op->noperands == 2 + values) {
        ir_type mask = operand_type(v, op, 1 + values), bools = ir_type_like(ptr, ir_type_scalar(DT_I1));
        if (!ir_type_eq(mask, bools))
            return fail(v, op, "'%s' mask type %s does not match the shape of %s (expected %s)",
                        name_of(op), TY(mask, a), TY(ptr, b), TY(bools, c));
    }
    ir_type r = result_type(v, op, 0);
    if (!ir_type_eq(r, want))
        return fail(v, op, "'%s' result type %s does not match the pointee of %s (expected %s)",
                    name_of(op), TY(r, a), TY(ptr, b), TY(want, c));
    if (!cas && !check_choice(v, op, "kind", ir_atomic_kind_names, valid_kind))
        return false;
    if (!check_choice(v, op, "sem", ir_atomic_sems, ir_atomic_sem_valid) ||
        !check_choice(v, op, "scope", ir_atomic_scopes, ir_atomic_scope_valid))
        return false;
    ir_dtype dt = elem_dtype(ptr);
    if (cas ? !ir_atomic_cas_dtype_ok(dt) : !ir_atomic_rmw_dtype_ok(ir_atomic_kind_from_name(
                                                ir_attr_get(op, "kind")->s), dt)) {
        const char *kind = cas ? "compare-and-swap" : ir_attr_get(op, "kind")->s;
        return fail(v, op, "'%s' %s does not apply to %s elements (it takes %s)", name_of(op), kind,
                    ir_dtypes[dt].name, ir_atomic_dtypes_text(cas ? IR_ATOM_KIND_COUNT
                                                                  : ir_atomic_kind_from_name(kind), true));
    }
    return simt || verify_program_kind(v, op);
}
