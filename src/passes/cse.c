/* cse.c - requires verified IR; guarantees verified IR in which no pure op repeats an equal op that dominates it.
 *
 * Equal means same kind, operands (either order for commutative ops),
 * attributes and result types; constants are equal when type and value bits
 * are. Dominating means earlier in the same block, or in an enclosing block
 * before the op that holds the region. Replaced ops are unlinked. */
#include "passes.h"

#include "../ir/scalar.h"

#include <stdlib.h>
#include <string.h>

/* The ops available for reuse at the current point, innermost scope last,
 * chained by hash bucket (newest first): a scope ends by popping its ops,
 * which restores the chains. */
typedef struct available {
    ir_op *op;
    uint64_t hash;
    int32_t next; /* the next older entry of the same bucket, or -1 */
} available;

typedef struct cse_state {
    ir_module *m;
    available *avail;
    int32_t navail, capavail;
    int32_t *buckets;
    uint64_t mask; /* buckets - 1, a power of two minus one */
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

static int attr_name_cmp(const void *a, const void *b)
{
    const ir_attr *x = *(const ir_attr *const *)a, *y = *(const ir_attr *const *)b;
    return strcmp(x->name, y->name);
}

/* Attribute sets compare by name, in any order (names are unique per op).
 * Many attributes are compared in name order, so the cost stays n log n. */
static bool attrs_eq(const ir_op *a, const ir_op *b)
{
    if (a->nattrs != b->nattrs)
        return false;
    int32_t n = a->nattrs;
    if (n <= 8) {
        for (int i = 0; i < n; i++) {
            const ir_attr *other = ir_attr_get(b, a->attrs[i].name);
            if (!other || !attr_eq(&a->attrs[i], other))
                return false;
        }
        return true;
    }
    const ir_attr **sa = malloc(sizeof *sa * (size_t)n * 2);
    if (!sa)
        return false; /* not merging is always correct */
    const ir_attr **sb = sa + n;
    for (int32_t i = 0; i < n; i++) {
        sa[i] = &a->attrs[i];
        sb[i] = &b->attrs[i];
    }
    qsort(sa, (size_t)n, sizeof *sa, attr_name_cmp);
    qsort(sb, (size_t)n, sizeof *sb, attr_name_cmp);
    bool eq = true;
    for (int32_t i = 0; i < n && eq; i++)
        eq = !strcmp(sa[i]->name, sb[i]->name) && attr_eq(sa[i], sb[i]);
    free(sa);
    return eq;
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

/* Hash of what attr_eq compares, and the name. */
static uint64_t attr_hash(const ir_attr *a)
{
    uint64_t h = hash_bytes(a->name, strlen(a->name), 0);
    int32_t fields[5] = {a->kind, a->type.kind, a->type.dtype, a->type.ptr_elem, a->type.len};
    h = hash_bytes(fields, sizeof fields, h);
    switch (a->kind) {
    case ATTR_INT:
    case ATTR_BOOL: return hash_bytes(&a->i, sizeof a->i, h);
    case ATTR_FLOAT: return hash_bytes(&a->f, sizeof a->f, h);
    case ATTR_STR: return a->s ? hash_bytes(a->s, strlen(a->s), h) : h + 1;
    case ATTR_TYPE: break;
    }
    return h;
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
    }
    uint64_t operand_mix = 0;
    bool comm = (ir_ops[op->kind].flags & F_COMM) != 0;
    for (int i = 0; i < op->noperands; i++) {
        uint64_t v = hash_bytes(&op->operands[i], sizeof op->operands[i], comm ? 0 : (uint64_t)i + 1);
        operand_mix = comm ? operand_mix + v : operand_mix * 31 + v;
    }
    uint64_t attr_mix = 0; /* a sum: attribute order does not matter */
    for (int i = 0; i < op->nattrs; i++)
        attr_mix += attr_hash(&op->attrs[i]);
    h = hash_bytes(&attr_mix, sizeof attr_mix, h);
    return hash_bytes(&operand_mix, sizeof operand_mix, h);
}

/* The oldest available op equal to op, or NULL. */
static ir_op *find_equal(const cse_state *s, const ir_op *op, uint64_t h)
{
    ir_op *found = NULL;
    for (int32_t i = s->buckets[h & s->mask]; i >= 0; i = s->avail[i].next)
        if (s->avail[i].hash == h && ops_eq(s->m, s->avail[i].op, op))
            found = s->avail[i].op;
    return found;
}

static void push_available(cse_state *s, ir_op *op, uint64_t h)
{
    available a = {op, h, s->buckets[h & s->mask]};
    VEC_PUSH(s->m->ar, s->avail, s->navail, s->capavail, a);
    s->buckets[h & s->mask] = s->navail - 1;
}

static void pop_available(cse_state *s, int32_t mark)
{
    while (s->navail > mark) {
        const available *a = &s->avail[--s->navail];
        s->buckets[a->hash & s->mask] = a->next;
    }
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
            pop_available(s, before);
        }
        if (!is_candidate(op))
            continue;
        uint64_t h = op_hash(s->m, op);
        ir_op *same = find_equal(s, op, h);
        if (same) {
            for (int i = 0; i < op->nresults; i++)
                ir_replace_all_uses(s->m, op->results[i], same->results[i]);
            ir_op_erase(s->m, op);
            s->changed = true;
            continue;
        }
        push_available(s, op, h);
    }
    pop_available(s, scope_start);
}

bool pass_cse(ir_module *m, diag *d)
{
    cse_state s = {.m = m};
    /* Every available op defines a value: at most nvalues entries. */
    uint64_t nbuckets = 64;
    while (nbuckets < (uint64_t)m->nvalues)
        nbuckets *= 2;
    s.mask = nbuckets - 1;
    s.buckets = arena_alloc(m->ar, sizeof(int32_t) * nbuckets);
    if (!s.buckets) {
        diag_error(d, DIAG_NOMEM, "out of memory");
        return false;
    }
    memset(s.buckets, 0xff, sizeof(int32_t) * nbuckets); /* -1: empty */
    cse_block(&s, m->body);
    return true;
}
