/* cse.c - requires verified IR; guarantees verified IR in which no pure op repeats an equal op that dominates it.
 *
 * Equal means same kind, operands (either order for commutative ops),
 * attributes and result types; constants are equal when type and value bits
 * are. Dominating means earlier in the same block, or in an enclosing block
 * before the op that holds the region. Replaced ops are unlinked. */
#include "passes.h"

#include "../ir/scalar.h"

#include <string.h>

/* The ops available for reuse at the current point, innermost scope last.
 * A quadratic scan over them is enough: kernels are small, and each
 * candidate is rejected on its hash before any real comparison. */
typedef struct available {
    ir_op *op;
    uint64_t hash;
} available;

typedef struct cse_state {
    ir_module *m;
    available *avail;
    int32_t navail, capavail;
    bool changed;
} cse_state;

static bool is_candidate(const ir_op *op)
{
    return (ir_ops[op->kind].flags & F_PURE) && op->nregions == 0 && op->nresults > 0;
}

/* A constant's value as its result's dtype reads it, so that `true` and
 * `1 : i1`, or 1.0 written two ways, compare equal. */
static bool constant_value(const ir_module *m, const ir_op *op, ir_scalar *out)
{
    const ir_attr *a = ir_attr_get(op, "value");
    ir_type t = ir_value_type(m, op->results[0]);
    if (!a || op->nattrs != 1 || ir_type_is_ptrlike(t) ||
        (a->kind != ATTR_INT && a->kind != ATTR_FLOAT && a->kind != ATTR_BOOL))
        return false;
    *out = ir_scalar_from_attr((ir_dtype)t.dtype, a);
    return true;
}

static bool attr_eq(const ir_attr *a, const ir_attr *b)
{
    if (a->kind != b->kind || !ir_type_eq(a->type, b->type))
        return false;
    switch (a->kind) {
    case ATTR_INT:
    case ATTR_BOOL: return a->i == b->i;
    case ATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0; /* -0.0 != 0.0, NaN == NaN */
    case ATTR_STR: return (a->s && b->s) ? !strcmp(a->s, b->s) : a->s == b->s;
    case ATTR_TYPE: return true;
    }
    return false;
}

/* Attribute sets compare by name, in any order. */
static bool attrs_eq(const ir_op *a, const ir_op *b)
{
    if (a->nattrs != b->nattrs)
        return false;
    for (int i = 0; i < a->nattrs; i++) {
        const ir_attr *other = ir_attr_get(b, a->attrs[i].name);
        if (!other || !attr_eq(&a->attrs[i], other))
            return false;
    }
    return true;
}

static bool operands_eq(const ir_op *a, const ir_op *b)
{
    if (a->noperands != b->noperands)
        return false;
    if (a->noperands == 2 && (ir_ops[a->kind].flags & F_COMM) &&
        a->operands[0] == b->operands[1] && a->operands[1] == b->operands[0])
        return true;
    for (int i = 0; i < a->noperands; i++)
        if (a->operands[i] != b->operands[i])
            return false;
    return true;
}

static bool ops_eq(const ir_module *m, const ir_op *a, const ir_op *b)
{
    if (a->kind != b->kind || a->nresults != b->nresults)
        return false;
    for (int i = 0; i < a->nresults; i++)
        if (!ir_type_eq(ir_value_type(m, a->results[i]), ir_value_type(m, b->results[i])))
            return false;
    if (a->kind == IR_CONSTANT) {
        ir_scalar x, y;
        if (constant_value(m, a, &x) && constant_value(m, b, &y))
            return memcmp(&x, &y, sizeof x) == 0;
    }
    return operands_eq(a, b) && attrs_eq(a, b);
}

/* Hash of what ops_eq compares, insensitive to operand order for
 * commutative ops and to attribute order and spelling. */
static uint64_t op_hash(const ir_module *m, const ir_op *op)
{
    uint64_t h = hash_bytes(&op->kind, sizeof op->kind, 0);
    for (int i = 0; i < op->nresults; i++) {
        ir_type t = ir_value_type(m, op->results[i]);
        int32_t fields[4] = {t.kind, t.dtype, t.ptr_elem, t.len}; /* not `reserved` */
        h = hash_bytes(fields, sizeof fields, h);
    }
    if (op->kind == IR_CONSTANT) {
        ir_scalar s;
        if (constant_value(m, op, &s))
            return hash_bytes(&s, sizeof s, h);
        return h;
    }
    uint64_t operand_mix = 0;
    bool comm = (ir_ops[op->kind].flags & F_COMM) != 0;
    for (int i = 0; i < op->noperands; i++) {
        uint64_t v = hash_bytes(&op->operands[i], sizeof op->operands[i], comm ? 0 : (uint64_t)i + 1);
        operand_mix = comm ? operand_mix + v : operand_mix * 31 + v;
    }
    return hash_bytes(&operand_mix, sizeof operand_mix, h);
}

static ir_op *find_equal(const cse_state *s, const ir_op *op, uint64_t h)
{
    for (int32_t i = 0; i < s->navail; i++)
        if (s->avail[i].hash == h && ops_eq(s->m, s->avail[i].op, op))
            return s->avail[i].op;
    return NULL;
}

/* Ops of a block stay available in the regions nested in it (those regions
 * are dominated by everything before the op that holds them) and are
 * dropped when the block ends. */
static void cse_block(cse_state *s, ir_block *b)
{
    int32_t scope_start = s->navail;
    for (ir_op *op = b->first, *next; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++) {
            int32_t before = s->navail;
            cse_block(s, op->regions[r]);
            s->navail = before;
        }
        if (!is_candidate(op))
            continue;
        uint64_t h = op_hash(s->m, op);
        ir_op *same = find_equal(s, op, h);
        if (same) {
            for (int i = 0; i < op->nresults; i++)
                ir_replace_all_uses(s->m, op->results[i], same->results[i]);
            ir_op_unlink(op);
            s->changed = true;
            continue;
        }
        available a = {op, h};
        VEC_PUSH(s->m->ar, s->avail, s->navail, s->capavail, a);
    }
    s->navail = scope_start;
}

bool pass_cse(ir_module *m, diag *d)
{
    (void)d;
    cse_state s = {.m = m};
    cse_block(&s, m->body);
    return true;
}
