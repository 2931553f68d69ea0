/* atomic.c - the rules and the per-element meaning of the atomic ops
 * (atomic.h). Requires dtypes and kinds that the verifier accepted;
 * guarantees the canonical representation of scalar.h for every old value
 * and never invokes C UB. */
#include "atomic.h"

#include <string.h>

const char *const ir_atomic_kind_names[IR_ATOM_KIND_COUNT + 1] = {
    [IR_ATOM_ADD] = "add", [IR_ATOM_MAX] = "max", [IR_ATOM_MIN] = "min", [IR_ATOM_AND] = "and",
    [IR_ATOM_OR] = "or",   [IR_ATOM_XOR] = "xor", [IR_ATOM_XCHG] = "xchg", [IR_ATOM_KIND_COUNT] = NULL,
};

const char *const ir_atomic_sems[] = {"relaxed", "acquire", "release", "acq_rel", NULL};
const char *const ir_atomic_scopes[] = {"cta", "gpu", "sys", NULL};

ir_atomic_kind ir_atomic_kind_from_name(const char *name)
{
    for (int k = 0; name && k < IR_ATOM_KIND_COUNT; k++)
        if (!strcmp(name, ir_atomic_kind_names[k]))
            return (ir_atomic_kind)k;
    return IR_ATOM_KIND_COUNT;
}

static bool in_list(const char *s, const char *const *list)
{
    for (; s && *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

bool ir_atomic_sem_valid(const char *sem) { return in_list(sem, ir_atomic_sems); }
bool ir_atomic_scope_valid(const char *scope) { return in_list(scope, ir_atomic_scopes); }

bool ir_atomic_rmw_dtype_ok(ir_atomic_kind kind, ir_dtype dt)
{
    bool wide_int = dt == DT_I32 || dt == DT_U32 || dt == DT_I64 || dt == DT_U64;
    bool wide_float = dt == DT_F32 || dt == DT_F64;
    switch (kind) {
    case IR_ATOM_ADD: return wide_int || wide_float || dt == DT_F16;
    case IR_ATOM_MAX:
    case IR_ATOM_MIN:
    case IR_ATOM_XCHG: return wide_int || wide_float;
    case IR_ATOM_AND:
    case IR_ATOM_OR:
    case IR_ATOM_XOR: return wide_int;
    default: return false;
    }
}

bool ir_atomic_cas_dtype_ok(ir_dtype dt)
{
    return dt == DT_I32 || dt == DT_U32 || dt == DT_I64 || dt == DT_U64 || dt == DT_F16 ||
           dt == DT_BF16 || dt == DT_F32 || dt == DT_F64;
}

const char *ir_atomic_dtypes_text(ir_atomic_kind kind, bool mlir)
{
    switch (kind) {
    case IR_ATOM_ADD:
        return mlir ? "i32, ui32, i64, ui64, f16, f32 or f64"
                    : "int32, uint32, int64, uint64, float16, float32 or float64";
    case IR_ATOM_MAX:
    case IR_ATOM_MIN:
    case IR_ATOM_XCHG:
        return mlir ? "i32, ui32, i64, ui64, f32 or f64"
                    : "int32, uint32, int64, uint64, float32 or float64";
    case IR_ATOM_AND:
    case IR_ATOM_OR:
    case IR_ATOM_XOR: return mlir ? "i32, ui32, i64 or ui64" : "int32, uint32, int64 or uint64";
    default:
        return mlir ? "i32, ui32, i64, ui64, f16, bf16, f32 or f64"
                    : "int32, uint32, int64, uint64, float16, bfloat16, float32 or float64";
    }
}

/* The element's bit pattern, zero-extended (2, 4 or 8 bytes). */
static uint64_t bits_at(const void *mem, int bytes)
{
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (bytes) {
    case 2: memcpy(&b16, mem, 2); return b16;
    case 4: memcpy(&b32, mem, 4); return b32;
    default: memcpy(&b64, mem, 8); return b64;
    }
}

/* The bit pattern a value of dt has in memory. */
static uint64_t bits_of(ir_dtype dt, ir_scalar v)
{
    unsigned char buf[8];
    ir_scalar_store(dt, buf, v);
    return bits_at(buf, ir_dtypes[dt].bytes);
}

/* A key whose unsigned order is IEEE totalOrder on float patterns of
 * `bits` bits: negative patterns reversed below the positive ones. */
static uint64_t total_order_key(uint64_t b, int bits)
{
    uint64_t sign = UINT64_C(1) << (bits - 1);
    uint64_t all = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    return (b & sign) ? ~b & all : b | sign;
}

ir_scalar ir_atomic_rmw_apply(ir_atomic_kind kind, ir_dtype dt, void *mem, ir_scalar value)
{
    ir_scalar old = ir_scalar_load(dt, mem), next = old;
    bool is_float = ir_dtype_is_float(dt);
    switch (kind) {
    case IR_ATOM_ADD: (void)ir_eval_binary(IR_ADD, dt, old, value, &next); break;
    case IR_ATOM_AND: (void)ir_eval_binary(IR_AND, dt, old, value, &next); break;
    case IR_ATOM_OR: (void)ir_eval_binary(IR_OR, dt, old, value, &next); break;
    case IR_ATOM_XOR: (void)ir_eval_binary(IR_XOR, dt, old, value, &next); break;
    case IR_ATOM_XCHG: next = value; break;
    case IR_ATOM_MAX:
    case IR_ATOM_MIN:
        if (is_float) {
            int bits = ir_dtypes[dt].bits;
            uint64_t mk = total_order_key(bits_at(mem, ir_dtypes[dt].bytes), bits);
            uint64_t vk = total_order_key(bits_of(dt, value), bits);
            bool take = kind == IR_ATOM_MAX ? vk > mk : vk < mk;
            if (!take)
                return old; /* memory keeps its exact bits */
            next = value;
        } else {
            (void)ir_eval_binary(kind == IR_ATOM_MAX ? IR_MAXIMUM : IR_MINIMUM, dt, old, value, &next);
        }
        break;
    default: return old;
    }
    ir_scalar_store(dt, mem, next);
    return old;
}

ir_scalar ir_atomic_cas_apply(ir_dtype dt, void *mem, ir_scalar cmp, ir_scalar value)
{
    ir_scalar old = ir_scalar_load(dt, mem);
    if (bits_at(mem, ir_dtypes[dt].bytes) == bits_of(dt, cmp))
        ir_scalar_store(dt, mem, value);
    return old;
}
