/* cpu_values.c - the CPU executors' value ops: elementwise arithmetic and
 * math, cmp, select, cast, splat, sw.reduce and simt.vreduce, over all
 * lanes of a slot (one program's tile, or every thread's slots of a CTA).
 * Requires operands whose slots cpu_setup.c checked (same length as the
 * result, pointer-ness as the op says); guarantees results bit for bit
 * equal to scalar.h's. */
#include "cpu_internal.h"

#include <string.h>

/* Every op has one generic loop that calls scalar.h per element: that loop
 * is the definition. The fast loops below cover the hot (op, dtype) pairs
 * with the same arithmetic written inline, and are skipped when
 * c->generic_only is set so the two can be compared (test_cpu_exec does). */

/* The low 32 bits of u as a sign-extended int32 (no implementation-defined
 * narrowing conversion). */
static inline int64_t sext32(uint64_t u)
{
    return (int64_t)((u & 0xffffffffu) ^ 0x80000000u) - (int64_t)0x80000000u;
}

static inline int64_t wrap64(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* ---- binary ------------------------------------------------------------- */

#define FAST_LOOP(field, expr)              \
    do {                                    \
        for (int32_t i = 0; i < n; i++)     \
            o[i].field = (expr);            \
        return true;                        \
    } while (0)

/* f32 results are the double result rounded once to float: for + - * /
 * that is the IEEE f32 result (double has more than 2*24+2 bits), and it is
 * exactly what scalar.h computes. */
static bool fast_binary(ir_op_kind kind, ir_dtype dt, const ir_scalar *a, const ir_scalar *b,
                        ir_scalar *o, int32_t n)
{
    switch (dt) {
    case DT_F32:
        switch (kind) {
        case IR_ADD: FAST_LOOP(f, (double)(float)(a[i].f + b[i].f));
        case IR_SUB: FAST_LOOP(f, (double)(float)(a[i].f - b[i].f));
        case IR_MUL: FAST_LOOP(f, (double)(float)(a[i].f * b[i].f));
        case IR_DIV: FAST_LOOP(f, (double)(float)(a[i].f / b[i].f));
        default: return false;
        }
    case DT_F64:
        switch (kind) {
        case IR_ADD: FAST_LOOP(f, a[i].f + b[i].f);
        case IR_SUB: FAST_LOOP(f, a[i].f - b[i].f);
        case IR_MUL: FAST_LOOP(f, a[i].f * b[i].f);
        case IR_DIV: FAST_LOOP(f, a[i].f / b[i].f);
        default: return false;
        }
    case DT_I32:
        switch (kind) {
        case IR_ADD: FAST_LOOP(i, sext32((uint64_t)a[i].i + (uint64_t)b[i].i));
        case IR_SUB: FAST_LOOP(i, sext32((uint64_t)a[i].i - (uint64_t)b[i].i));
        case IR_MUL: FAST_LOOP(i, sext32((uint64_t)a[i].i * (uint64_t)b[i].i));
        default: return false;
        }
    case DT_I64:
        switch (kind) {
        case IR_ADD: FAST_LOOP(i, wrap64((uint64_t)a[i].i + (uint64_t)b[i].i));
        case IR_SUB: FAST_LOOP(i, wrap64((uint64_t)a[i].i - (uint64_t)b[i].i));
        case IR_MUL: FAST_LOOP(i, wrap64((uint64_t)a[i].i * (uint64_t)b[i].i));
        default: return false;
        }
    default: return false;
    }
}

static bool exec_binary(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r);
    const ir_scalar *a = cpu_vals(c, op->operands[0]), *b = cpu_vals(c, op->operands[1]);
    ir_scalar *o = cpu_vals(c, r);
    if (!c->generic_only && fast_binary(op->kind, dt, a, b, o, n))
        return true;
    for (int32_t i = 0; i < n; i++)
        if (!ir_eval_binary(op->kind, dt, a[i], b[i], &o[i]))
            return cpu_internal(c, op, "no scalar semantics for this dtype");
    return true;
}

/* ---- ternary (sw.fma) ------------------------------------------------------ */

static bool exec_ternary(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r);
    const ir_scalar *a = cpu_vals(c, op->operands[0]), *b = cpu_vals(c, op->operands[1]);
    const ir_scalar *x = cpu_vals(c, op->operands[2]);
    ir_scalar *o = cpu_vals(c, r);
    for (int32_t i = 0; i < n; i++)
        if (!ir_eval_ternary(op->kind, dt, a[i], b[i], x[i], &o[i]))
            return cpu_internal(c, op, "no scalar semantics for this dtype");
    return true;
}

/* ---- cmp ---------------------------------------------------------------- */

typedef enum cmp_pred { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_BAD } cmp_pred;

static cmp_pred parse_pred(const char *s)
{
    static const char *const names[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    for (int p = 0; s && p < CMP_BAD; p++)
        if (!strcmp(s, names[p]))
            return (cmp_pred)p;
    return CMP_BAD;
}

#define CMP_LOOPS(field)                                                     \
    switch (pred) {                                                          \
    case CMP_LT: FAST_LOOP(i, a[i].field < b[i].field);                      \
    case CMP_LE: FAST_LOOP(i, a[i].field <= b[i].field);                     \
    case CMP_GT: FAST_LOOP(i, a[i].field > b[i].field);                      \
    case CMP_GE: FAST_LOOP(i, a[i].field >= b[i].field);                     \
    case CMP_EQ: FAST_LOOP(i, a[i].field == b[i].field);                     \
    case CMP_NE: FAST_LOOP(i, a[i].field != b[i].field);                     \
    default: return false;                                                   \
    }

/* Canonical integers of every dtype compare as int64 and floats with C's
 * IEEE operators, as ir_eval_cmp does. */
static bool fast_cmp(cmp_pred pred, bool is_float, const ir_scalar *a, const ir_scalar *b,
                     ir_scalar *o, int32_t n)
{
    if (is_float)
        CMP_LOOPS(f)
    CMP_LOOPS(i)
}

static bool exec_cmp(cpu_ctx *c, const ir_op *op)
{
    const ir_attr *pa = ir_attr_get(op, "predicate");
    const char *pred = pa && pa->kind == ATTR_STR ? pa->s : NULL;
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, op->operands[0]);
    int32_t n = cpu_len(c, r);
    const ir_scalar *a = cpu_vals(c, op->operands[0]), *b = cpu_vals(c, op->operands[1]);
    ir_scalar *o = cpu_vals(c, r);
    /* the fast loop compares int64: not for ui64, whose values from 2^63 up read as negative */
    if (!c->generic_only && dt != DT_U64 && fast_cmp(parse_pred(pred), ir_dtype_is_float(dt), a, b, o, n))
        return true;
    for (int32_t i = 0; i < n; i++) {
        int v = ir_eval_cmp(pred, dt, a[i], b[i]);
        if (v < 0)
            return cpu_internal(c, op, "bad predicate");
        o[i].i = v;
    }
    return true;
}

/* ---- unary, cast -------------------------------------------------------- */

static bool exec_unary(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r);
    const ir_scalar *a = cpu_vals(c, op->operands[0]);
    ir_scalar *o = cpu_vals(c, r);
    for (int32_t i = 0; i < n; i++)
        if (!ir_eval_unary(op->kind, dt, a[i], &o[i]))
            return cpu_internal(c, op, "no scalar semantics for this dtype");
    return true;
}

static bool exec_cast(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    ir_dtype from = cpu_dtype(c, op->operands[0]), to = cpu_dtype(c, r);
    int32_t n = cpu_len(c, r);
    const ir_scalar *a = cpu_vals(c, op->operands[0]);
    ir_scalar *o = cpu_vals(c, r);
    for (int32_t i = 0; i < n; i++)
        o[i] = op->kind == IR_BITCAST ? ir_eval_bitcast(from, to, a[i]) : ir_eval_cast(from, to, a[i]);
    return true;
}

/* ---- shape: splat, select ----------------------------------------------- */

/* Each operand lane (one per thread) fills that thread's slots. */
static bool exec_splat(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    int32_t per = cpu_slots(c, r), threads = c->threads;
    if (ir_type_is_ptrlike(c->m->values[r].type)) {
        const cpu_ptr *p = cpu_ptrs(c, op->operands[0]);
        cpu_ptr *o = cpu_ptrs(c, r);
        for (int32_t t = 0; t < threads; t++)
            for (int32_t j = 0; j < per; j++)
                o[t * per + j] = p[t];
    } else {
        const ir_scalar *s = cpu_vals(c, op->operands[0]);
        ir_scalar *o = cpu_vals(c, r);
        for (int32_t t = 0; t < threads; t++)
            for (int32_t j = 0; j < per; j++)
                o[t * per + j] = s[t];
    }
    return true;
}

/* Select only moves elements, so one loop per element kind is both the
 * generic and the fast path. */
static bool exec_select(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->results[0];
    int32_t n = cpu_len(c, r);
    const ir_scalar *cond = cpu_vals(c, op->operands[0]);
    if (ir_type_is_ptrlike(c->m->values[r].type)) {
        const cpu_ptr *a = cpu_ptrs(c, op->operands[1]), *b = cpu_ptrs(c, op->operands[2]);
        cpu_ptr *o = cpu_ptrs(c, r);
        for (int32_t i = 0; i < n; i++)
            o[i] = cond[i].i ? a[i] : b[i];
    } else {
        const ir_scalar *a = cpu_vals(c, op->operands[1]), *b = cpu_vals(c, op->operands[2]);
        ir_scalar *o = cpu_vals(c, r);
        for (int32_t i = 0; i < n; i++)
            o[i] = cond[i].i ? a[i] : b[i];
    }
    return true;
}

/* ---- reduce ------------------------------------------------------------- */

/* Reduces each thread's slots (a whole tile in the semantic executor) to
 * its one result lane. Float sum and prod accumulate in double, in slot
 * order, and round to the dtype once at the end: for f16/bf16/f32 tiles
 * that is at least as exact as any order a GPU may add in, so a backend is
 * checked against a tolerance around this result, never the other way
 * round. (f64 rounds at every step, as any f64 backend does.) Integer sums
 * and products wrap, and max/min combine through scalar.h, NaN-propagating,
 * starting from slot 0: one slot comes back unchanged, NaN payload and all
 * (lower-simt turns a scalar load into a one-slot simt.vreduce max). */
static bool exec_reduce(cpu_ctx *c, const ir_op *op)
{
    const ir_attr *ka = ir_attr_get(op, "kind");
    const char *kind = ka && ka->kind == ATTR_STR ? ka->s : NULL;
    ir_value x = op->operands[0], r = op->results[0];
    ir_dtype dt = cpu_dtype(c, x);
    int32_t n = cpu_slots(c, x);
    bool sum = kind && !strcmp(kind, "sum"), prod = kind && !strcmp(kind, "prod");
    ir_scalar identity;
    if (!ir_eval_reduce_identity(kind, dt, &identity))
        return cpu_internal(c, op, "unknown reduction kind");
    for (int32_t t = 0; t < c->threads; t++) {
        const ir_scalar *v = cpu_vals(c, x) + (size_t)t * (size_t)n;
        ir_scalar *out = cpu_vals(c, r) + t;
        if (ir_dtype_is_float(dt) && (sum || prod)) {
            double acc = sum ? 0.0 : 1.0;
            for (int32_t i = 0; i < n; i++)
                acc = sum ? acc + v[i].f : acc * v[i].f;
            *out = ir_scalar_from_float(dt, acc);
            continue;
        }
        ir_scalar acc = n > 0 ? v[0] : identity;
        for (int32_t i = 1; i < n; i++)
            if (!ir_eval_reduce_combine(kind, dt, acc, v[i], &acc))
                return cpu_internal(c, op, "no combine for this dtype");
        *out = acc;
    }
    return true;
}

/* ---- dispatch ------------------------------------------------------------ */

bool cpu_is_value_op(ir_op_kind kind)
{
    switch (kind) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_FLOORDIV: case IR_MOD:
    case IR_IDIV: case IR_REM: case IR_UMULHI:
    case IR_MINIMUM: case IR_MAXIMUM: case IR_AND: case IR_OR: case IR_XOR: case IR_SHL:
    case IR_SHR: case IR_CMP: case IR_SELECT: case IR_NEG: case IR_NOT: case IR_ABS:
    case IR_EXP: case IR_EXP2: case IR_LOG: case IR_LOG2: case IR_SQRT: case IR_RSQRT:
    case IR_FLOOR: case IR_CEIL: case IR_SIN: case IR_COS: case IR_SIGMOID: case IR_ERF:
    case IR_TRUNC: case IR_ROUND: case IR_RINT: case IR_TAN: case IR_ASIN: case IR_ACOS:
    case IR_ATAN: case IR_SINH: case IR_COSH: case IR_TANH: case IR_ASINH: case IR_ACOSH:
    case IR_ATANH: case IR_EXPM1: case IR_LOG1P: case IR_LOG10: case IR_EXP10: case IR_CBRT:
    case IR_ERFC: case IR_ATAN2: case IR_POW: case IR_HYPOT: case IR_FMOD: case IR_COPYSIGN:
    case IR_FMA: case IR_CAST: case IR_BITCAST:
    case IR_SPLAT: case IR_REDUCE: case IR_SIMT_VREDUCE:
        return true;
    default:
        return false;
    }
}

bool cpu_exec_value_op(cpu_ctx *c, const ir_op *op)
{
    switch (op->kind) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_FLOORDIV: case IR_MOD:
    case IR_IDIV: case IR_REM: case IR_UMULHI:
    case IR_MINIMUM: case IR_MAXIMUM: case IR_AND: case IR_OR: case IR_XOR: case IR_SHL:
    case IR_SHR: case IR_ATAN2: case IR_POW: case IR_HYPOT: case IR_FMOD: case IR_COPYSIGN:
        return exec_binary(c, op);
    case IR_FMA: return exec_ternary(c, op);
    case IR_CMP: return exec_cmp(c, op);
    case IR_SELECT: return exec_select(c, op);
    case IR_NEG: case IR_NOT: case IR_ABS: case IR_EXP: case IR_EXP2: case IR_LOG:
    case IR_LOG2: case IR_SQRT: case IR_RSQRT: case IR_FLOOR: case IR_CEIL: case IR_SIN:
    case IR_COS: case IR_SIGMOID: case IR_ERF: case IR_TRUNC: case IR_ROUND: case IR_RINT:
    case IR_TAN: case IR_ASIN: case IR_ACOS: case IR_ATAN: case IR_SINH: case IR_COSH:
    case IR_TANH: case IR_ASINH: case IR_ACOSH: case IR_ATANH: case IR_EXPM1: case IR_LOG1P:
    case IR_LOG10: case IR_EXP10: case IR_CBRT: case IR_ERFC:
        return exec_unary(c, op);
    case IR_CAST:
    case IR_BITCAST: return exec_cast(c, op);
    case IR_SPLAT: return exec_splat(c, op);
    case IR_REDUCE:
        if (ir_attr_get(op, "axis"))
            return cpu_shape_exec_reduce(c, op);
        return exec_reduce(c, op);
    case IR_SIMT_VREDUCE: return exec_reduce(c, op);
    default: return cpu_internal(c, op, "not a value op");
    }
}
