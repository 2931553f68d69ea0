/* simt_exec.c - the CPU SIMT executor (cpu_simt_launch, docs/simt.md): the
 * T threads of each CTA run in lockstep, op by op, over the shared slots of
 * cpu_internal.h; this file adds the SIMT-only ops (ids, tile indices,
 * simt.load/store, vreduce, warp shuffles, shared memory, barriers).
 * Requires a verified SIMT module; guarantees the semantic executor's
 * memory safety and reports, as DIAG_INTERNAL errors at the op, what would
 * be a lowering bug on a GPU: divergent control flow, a broken `vec`
 * promise, shared memory out of range, misaligned or never written, and
 * shared memory races (since the last barrier, a thread reads a byte
 * another thread wrote, writes a byte another thread read, or writes a
 * different value over another thread's write). */
#include "cpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARP = 32, MAX_SMEM_BYTES = 1 << 24, SIMT_EXEC_MAX_WARPS = 32 };

/* Race tracking for one byte of shared memory since the last barrier:
 * who wrote it and the first two distinct threads that read it (two are
 * enough to name a reader other than any given writer). */
typedef struct smem_byte {
    int32_t writer;     /* -1: not written since the last barrier */
    int32_t reader[2];  /* -1: none */
    int32_t written;    /* written at all in this CTA (else reading it is a bug) */
} smem_byte;

struct cpu_simt {
    int64_t smem_bytes;
    unsigned char *smem;
    smem_byte *track;
    int64_t phase_lo, phase_hi; /* bytes touched since the last barrier */
    int64_t cta_lo, cta_hi;     /* bytes touched in this CTA */
};

bool cpu_is_simt_op(ir_op_kind kind)
{
    switch (kind) {
    case IR_SIMT_THREAD_ID: case IR_SIMT_BLOCK_ID: case IR_SIMT_GRID_DIM: case IR_SIMT_TILE_INDEX:
    case IR_SIMT_LOAD: case IR_SIMT_STORE: case IR_SIMT_VREDUCE: case IR_SIMT_SHFL_XOR: case IR_SIMT_SHFL_UP:
    case IR_SIMT_SHFL_IDX: case IR_SIMT_SHFL_LANE: case IR_SIMT_VSLOTS: case IR_SIMT_ATOMIC_RMW: case IR_SIMT_ATOMIC_CAS: case IR_SIMT_FENCE:
    case IR_SIMT_SMEM_STORE: case IR_SIMT_SMEM_LOAD: case IR_SIMT_BARRIER: case IR_SIMT_WARP_BARRIER:
    case IR_SIMT_PRINT:
        return true;
    default:
        return false;
    }
}

static int64_t attr_int(const ir_op *op, const char *name, int64_t dflt)
{
    const ir_attr *a = ir_attr_get(op, name);
    return a && a->kind == ATTR_INT ? a->i : dflt;
}

static bool has_int_attr(const ir_op *op, const char *name, int64_t lo, int64_t hi)
{
    const ir_attr *a = ir_attr_get(op, name);
    return a && a->kind == ATTR_INT && a->i >= lo && a->i <= hi;
}

/* ---- setup checks ---------------------------------------------------------- */

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool cpu_simt_check_op(cpu_ctx *c, const ir_op *op)
{
    ir_value r = op->nresults ? op->results[0] : IR_NO_VALUE;
    switch (op->kind) {
    case IR_SIMT_THREAD_ID:
        if (cpu_slots(c, r) != 1 || !ir_dtype_is_int(cpu_dtype(c, r)) || cpu_dtype(c, r) == DT_I1)
            return cpu_internal(c, op, "a thread id is an integer scalar");
        return true;
    case IR_SIMT_BLOCK_ID:
    case IR_SIMT_GRID_DIM:
        if (!has_int_attr(op, "axis", 0, 2))
            return cpu_internal(c, op, "axis must be 0, 1 or 2");
        if (cpu_slots(c, r) != 1 || !ir_dtype_is_int(cpu_dtype(c, r)) || cpu_dtype(c, r) == DT_I1)
            return cpu_internal(c, op, "a block id or grid size is an integer scalar");
        return true;
    case IR_SIMT_TILE_INDEX: {
        int32_t v = cpu_slots(c, r);
        if (!has_int_attr(op, "len", 1, INT32_MAX) || !ir_attr_get(op, "start") ||
            ir_attr_get(op, "start")->kind != ATTR_INT)
            return cpu_internal(c, op, "simt.tile_index needs integer attributes len >= 1 and start");
        if (cpu_dtype(c, r) != DT_I32 || v < 1 || attr_int(op, "len", 1) % v != 0)
            return cpu_internal(c, op, "simt.tile_index gives vector<Vxi32> with V dividing len");
        return true;
    }
    case IR_SIMT_LOAD:
    case IR_SIMT_STORE: {
        int64_t vec = attr_int(op, "vec", 1);
        if ((ir_attr_get(op, "vec") && !has_int_attr(op, "vec", 1, INT32_MAX)) || !is_pow2(vec) ||
            cpu_slots(c, op->operands[0]) % vec != 0)
            return cpu_internal(c, op, "attribute vec must be a power of two dividing the slot count");
        return true;
    }
    case IR_SIMT_VREDUCE:
        return true; /* checked with sw.reduce */
    case IR_SIMT_SHFL_XOR:
    case IR_SIMT_SHFL_UP:
    case IR_SIMT_SHFL_IDX: {
        bool xor = op->kind != IR_SIMT_SHFL_IDX;
        int bits = ir_dtypes[cpu_dtype(c, r)].bits;
        int64_t width = attr_int(op, "width", WARP);
        if (!is_pow2(width) || width > WARP)
            return cpu_internal(c, op, "a shuffle's width must be a power of two in 1..32");
        if (xor ? !has_int_attr(op, "offset", 1, width - 1) : !has_int_attr(op, "lane", 0, width - 1))
            return cpu_internal(c, op, "a shuffle's offset or lane must stay inside its width");
        if (cpu_slots(c, r) != cpu_slots(c, op->operands[0]) || (bits != 32 && bits != 64 && bits != 16) ||
            cpu_dtype(c, r) != cpu_dtype(c, op->operands[0]) || cpu_is_ptr(c, r))
            return cpu_internal(c, op, "a shuffle moves 16-, 32- or 64-bit numbers");
        return true;
    }
    case IR_SIMT_SHFL_LANE:
        if (cpu_slots(c, r) != cpu_slots(c, op->operands[0]) || cpu_slots(c, op->operands[1]) != cpu_slots(c, r) ||
            ir_dtypes[cpu_dtype(c, r)].bits != 32 || cpu_dtype(c, r) != cpu_dtype(c, op->operands[0]) ||
            cpu_dtype(c, op->operands[1]) != DT_I32 || cpu_is_ptr(c, r))
            return cpu_internal(c, op, "simt.shfl_lane moves 32-bit numbers from an i32 lane");
        return true;
    case IR_SIMT_VSLOTS: {
        const ir_attr *s = ir_attr_get(op, "slots");
        int32_t n = cpu_slots(c, r), *buf = malloc(sizeof(int32_t) * (size_t)n);
        int32_t got = buf && s && s->kind == ATTR_STR ? ir_parse_slots(s->s, cpu_slots(c, op->operands[0]), buf, n) : -1;
        free(buf);
        if (got != n || cpu_dtype(c, r) != cpu_dtype(c, op->operands[0]) ||
            cpu_is_ptr(c, r) != cpu_is_ptr(c, op->operands[0]))
            return cpu_internal(c, op, "simt.vslots needs one slot index per result slot");
        return true;
    }
    case IR_SIMT_ATOMIC_RMW:
    case IR_SIMT_ATOMIC_CAS: /* checked with the semantic atomics */
    case IR_SIMT_FENCE:
        return true;
    case IR_SIMT_SMEM_STORE:
    case IR_SIMT_SMEM_LOAD: {
        bool store = op->kind == IR_SIMT_SMEM_STORE;
        if (!has_int_attr(op, "offset", 0, INT32_MAX))
            return cpu_internal(c, op, "shared memory offset must be an integer >= 0");
        if (store && op->noperands != 2 && op->noperands != 3)
            return cpu_internal(c, op, "simt.smem_store takes (index, value[, mask])");
        ir_dtype idx = cpu_dtype(c, op->operands[0]);
        int32_t slots = cpu_slots(c, op->operands[0]);
        if (!ir_dtype_is_int(idx) || idx == DT_I1 ||
            (store && op->noperands == 3 && cpu_dtype(c, op->operands[2]) != DT_I1) ||
            cpu_slots(c, store ? op->operands[1] : r) != slots)
            return cpu_internal(c, op, "shared memory ops take an integer index, values of its shape "
                                       "and an i1 mask");
        return true;
    }
    case IR_SIMT_BARRIER:
    case IR_SIMT_WARP_BARRIER:
    case IR_SIMT_PRINT:
        return true;
    default:
        return cpu_internal(c, op, "not a SIMT op");
    }
}

/* ---- ids and tile indices ---------------------------------------------------- */

bool cpu_simt_eval_invariant(cpu_ctx *c, const ir_op *op)
{
    if (op->kind != IR_SIMT_THREAD_ID && op->kind != IR_SIMT_GRID_DIM && op->kind != IR_SIMT_TILE_INDEX)
        return false;
    ir_value r = op->results[0];
    ir_dtype dt = cpu_dtype(c, r);
    ir_scalar *o = cpu_vals(c, r);
    int32_t T = c->threads;
    if (op->kind == IR_SIMT_THREAD_ID) {
        for (int32_t t = 0; t < T; t++)
            o[t] = ir_scalar_from_int(dt, t);
    } else if (op->kind == IR_SIMT_GRID_DIM) {
        ir_scalar g = ir_scalar_from_int(dt, c->grid[attr_int(op, "axis", 0)]);
        for (int32_t t = 0; t < T; t++)
            o[t] = g;
    } else {
        /* the layout of docs/simt.md: chunks of consecutive elements */
        int32_t v = cpu_slots(c, r);
        int64_t len = attr_int(op, "len", 1), start = attr_int(op, "start", 0);
        for (int32_t t = 0; t < T; t++)
            for (int32_t j = 0; j < v; j++)
                o[(int64_t)t * v + j] = ir_scalar_from_int(dt, ir_simt_element(len, v, start, t, j));
    }
    return true;
}

/* ---- global memory ------------------------------------------------------------- */

/* `vec = k` promises that every aligned group of k slots addresses k
 * consecutive elements of one buffer; the PTX emitter relies on it for the
 * groups whose mask bits are all set (one wide access) and for the set
 * slots of the others (addressed from the group's first pointer), so those
 * are checked here, and so is `vec_mask` (the group's mask is all set
 * exactly when its first / last bit is), on which the emitter decides a
 * group's wide access. */
/* `vec_all`: one test decides every group of a thread on the GPU, so its
 * groups' first pointers are in one buffer, a multiple of k elements from
 * the first group's (equally aligned), and with vec_mask the thread's mask
 * is all set exactly when the bit of its first slot ("first") or last
 * slot ("last") is. */
static bool check_vec_all(cpu_ctx *c, const ir_op *op, const cpu_ptr *p, const ir_scalar *mask, int64_t k)
{
    const ir_attr *all = ir_attr_get(op, "vec_all"), *vm = ir_attr_get(op, "vec_mask");
    if (!all || all->kind != ATTR_BOOL || !all->i)
        return true;
    int32_t v = cpu_slots(c, op->operands[0]);
    bool last = !(vm && vm->kind == ATTR_STR && !strcmp(vm->s, "first"));
    char loc[256];
    for (int32_t t = 0; t < c->threads; t++) {
        if (!cpu_thread_active(c, t))
            continue;
        const cpu_ptr *q = p + (int64_t)t * v;
        for (int32_t g = (int32_t)k; g < v; g += (int32_t)k)
            if (q[g].arg != q[0].arg || (q[g].off - q[0].off) % k != 0) {
                diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                              "%s breaks its vec_all promise at %s: slot %d of thread %d is not a "
                              "multiple of %lld elements from slot 0 in one buffer",
                              ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc), (int)g, (int)t,
                              (long long)k);
                return false;
            }
        if (!mask)
            continue;
        const ir_scalar *m = mask + (int64_t)t * v;
        bool every = true;
        for (int32_t j = 0; j < v; j++)
            every = every && m[j].i;
        int32_t decides = last ? v - 1 : 0;
        if (every != (m[decides].i != 0)) {
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "%s breaks its vec_all promise at %s: the mask of thread %d is %s set while "
                          "slot %d's bit is %s",
                          ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc), (int)t,
                          every ? "all" : "not all", (int)decides, m[decides].i ? "set" : "clear");
            return false;
        }
    }
    return true;
}

static bool check_vec_promise(cpu_ctx *c, const ir_op *op, const cpu_ptr *p, const ir_scalar *mask)
{
    int64_t k = attr_int(op, "vec", 1);
    if (k == 1)
        return true;
    int32_t v = cpu_slots(c, op->operands[0]), n = cpu_len(c, op->operands[0]);
    const ir_attr *vm = ir_attr_get(op, "vec_mask");
    int32_t decides = vm && vm->kind == ATTR_STR && !strcmp(vm->s, "first") ? 0 : (int32_t)k - 1;
    for (int32_t g = 0; g < n; g += (int32_t)k) {
        bool ok = true, active = cpu_thread_active(c, g / v), all = true;
        for (int32_t j = 0; mask && j < k; j++)
            all = all && mask[g + j].i;
        if (vm && mask && active && all != (mask[g + decides].i != 0)) {
            char loc[256];
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "%s breaks its vec_mask = \"%s\" promise at %s: the mask of slots %d..%d of "
                          "thread %d is %s set while slot %d's bit is %s",
                          ir_ops[op->kind].name, vm->s, cpu_loc_text(c, op->loc, loc), (int)(g % v),
                          (int)(g % v + k - 1), (int)(g / v), all ? "all" : "not all",
                          (int)(g % v + decides), mask[g + decides].i ? "set" : "clear");
            return false;
        }
        for (int32_t j = 1; active && j < k; j++)
            if (!mask || mask[g + j].i)
                ok = ok && p[g + j].arg == p[g].arg && p[g + j].off == p[g].off + j;
        if (!ok) {
            char loc[256];
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "%s breaks its vec = %lld promise at %s: slots %d..%d of thread %d do not "
                          "address consecutive elements of one buffer",
                          ir_ops[op->kind].name, (long long)k, cpu_loc_text(c, op->loc, loc),
                          (int)(g % v), (int)(g % v + k - 1), (int)(g / v));
            return false;
        }
    }
    return check_vec_all(c, op, p, mask, k);
}

static bool exec_load(cpu_ctx *c, const ir_op *op)
{
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[1]) : NULL;
    return check_vec_promise(c, op, cpu_ptrs(c, op->operands[0]), mask) && cpu_exec_load(c, op);
}

static bool exec_store(cpu_ctx *c, const ir_op *op)
{
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    return check_vec_promise(c, op, cpu_ptrs(c, op->operands[0]), mask) && cpu_exec_store(c, op);
}

/* ---- warp shuffles ------------------------------------------------------------- */

/* Whether every thread of active thread t's aligned group of `width` lanes
 * (in the CTA) runs op, which all of them must (shfl.sync with the group
 * as its member mask, bar.warp.sync): else the GPU's behaviour is
 * undefined -- a lowering bug, reported as an internal error naming what
 * thread t does. */
static bool group_runs(cpu_ctx *c, const ir_op *op, int32_t t, int32_t width, const char *what)
{
    int32_t base = t & ~(width - 1);
    for (int32_t u = base; u < base + width && u < c->threads; u++)
        if (!cpu_thread_active(c, u)) {
            char loc[256];
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "%s at %s: thread %d %s within lanes %d..%d, but thread %d does not run it "
                          "(divergent control flow)", ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc),
                          (int)t, what, (int)base, (int)(base + width - 1), (int)u);
            return false;
        }
    return true;
}

/* A shuffle within aligned groups of `width` lanes (shfl.sync with the
 * group as its member mask): every lane of the group of an active thread
 * must be active too, or the GPU's behaviour is undefined -- a lowering
 * bug, reported as an internal error. simt.shfl_xor: lane l reads lane
 * l ^ offset; simt.shfl_idx: every lane reads lane `lane` of its group. */
static bool exec_shuffle(cpu_ctx *c, const ir_op *op)
{
    const ir_scalar *x = cpu_vals(c, op->operands[0]);
    ir_scalar *o = cpu_vals(c, op->results[0]);
    int32_t n = cpu_slots(c, op->results[0]);
    int32_t width = (int32_t)attr_int(op, "width", WARP);
    bool xor = op->kind == IR_SIMT_SHFL_XOR, up = op->kind == IR_SIMT_SHFL_UP;
    int32_t arg = (int32_t)attr_int(op, xor || up ? "offset" : "lane", 0);
    for (int32_t t = 0; t < c->threads; t++) {
        if (!cpu_thread_active(c, t))
            continue;
        if (!group_runs(c, op, t, width, "shuffles"))
            return false;
        int32_t base = t & ~(width - 1);
        int32_t from = xor ? t ^ arg : up ? (t - arg >= base ? t - arg : t) : base + arg;
        for (int32_t j = 0; j < n; j++)
            o[(size_t)t * n + j] = x[(size_t)from * n + j];
    }
    return true;
}

/* simt.shfl_lane: lane l reads, per slot, the slot of lane (lane[l] mod 32)
 * of its warp; every lane of the warp must run it. */
static bool exec_shuffle_lane(cpu_ctx *c, const ir_op *op)
{
    const ir_scalar *x = cpu_vals(c, op->operands[0]), *lane = cpu_vals(c, op->operands[1]);
    ir_scalar *o = cpu_vals(c, op->results[0]);
    int32_t n = cpu_slots(c, op->results[0]);
    ir_scalar *out = malloc(sizeof(ir_scalar) * (size_t)n * (size_t)c->threads + 1);
    if (!out) {
        diag_error(c->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    for (int32_t t = 0; t < c->threads; t++) {
        if (!cpu_thread_active(c, t))
            continue;
        if (!group_runs(c, op, t, WARP, "shuffles")) {
            free(out);
            return false;
        }
        int32_t base = t & ~(WARP - 1);
        for (int32_t j = 0; j < n; j++) {
            int32_t from = base + (int32_t)((uint32_t)lane[(size_t)t * n + j].i & (WARP - 1));
            out[(size_t)t * n + j] = x[(size_t)from * n + j];
        }
    }
    for (int32_t t = 0; t < c->threads; t++)
        if (cpu_thread_active(c, t))
            for (int32_t j = 0; j < n; j++)
                o[(size_t)t * n + j] = out[(size_t)t * n + j];
    free(out);
    return true;
}

/* simt.vslots: each thread's result slot i is its operand slot slots[i]. */
static bool exec_vslots(cpu_ctx *c, const ir_op *op)
{
    int32_t n = cpu_slots(c, op->results[0]), v = cpu_slots(c, op->operands[0]);
    int32_t *slots = malloc(sizeof(int32_t) * (size_t)n);
    if (!slots) {
        diag_error(c->d, DIAG_NOMEM, "out of memory");
        return false;
    }
    ir_parse_slots(ir_attr_get(op, "slots")->s, v, slots, n);
    bool ptr = cpu_is_ptr(c, op->results[0]);
    for (int32_t t = 0; t < c->threads; t++)
        for (int32_t i = 0; i < n; i++) {
            size_t to = (size_t)t * n + i, from = (size_t)t * v + slots[i];
            if (ptr)
                cpu_ptrs(c, op->results[0])[to] = cpu_ptrs(c, op->operands[0])[from];
            else
                cpu_vals(c, op->results[0])[to] = cpu_vals(c, op->operands[0])[from];
        }
    free(slots);
    return true;
}

/* ---- shared memory ------------------------------------------------------------- */

static void reset_tracking(cpu_simt *s, int64_t lo, int64_t hi, bool cta)
{
    for (int64_t b = lo; b < hi; b++) {
        s->track[b].writer = -1;
        s->track[b].reader[0] = s->track[b].reader[1] = -1;
        if (cta)
            s->track[b].written = 0;
    }
}

void cpu_simt_begin_cta(cpu_ctx *c)
{
    cpu_simt *s = c->simt;
    reset_tracking(s, s->cta_lo, s->cta_hi, true);
    s->cta_lo = s->phase_lo = s->smem_bytes;
    s->cta_hi = s->phase_hi = 0;
}

static void touch(cpu_simt *s, int64_t lo, int64_t hi)
{
    if (lo < s->phase_lo) s->phase_lo = lo;
    if (hi > s->phase_hi) s->phase_hi = hi;
    if (lo < s->cta_lo) s->cta_lo = lo;
    if (hi > s->cta_hi) s->cta_hi = hi;
}

/* The byte address thread t's access starts at, checked against the
 * shared memory size and the access's natural alignment. */
static bool smem_address(cpu_ctx *c, const ir_op *op, int32_t lane, int size, int64_t *addr)
{
    int32_t t = lane / cpu_slots(c, op->operands[0]);
    int64_t a = attr_int(op, "offset", 0) + cpu_vals(c, op->operands[0])[lane].i * (int64_t)size;
    char loc[256];
    if (a < 0 || a + size > c->simt->smem_bytes) {
        diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                      "%s out of shared memory at %s: thread %d accesses bytes %lld..%lld, outside "
                      "the %lld bytes of simt.smem_bytes",
                      ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc), (int)t, (long long)a,
                      (long long)(a + size - 1), (long long)c->simt->smem_bytes);
        return false;
    }
    if (a % size != 0) {
        diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                      "%s misaligned at %s: thread %d accesses bytes %lld..%lld, not aligned to %d",
                      ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc), (int)t, (long long)a,
                      (long long)(a + size - 1), size);
        return false;
    }
    *addr = a;
    return true;
}

static bool race(cpu_ctx *c, const ir_op *op, int32_t t, const char *verb, const char *other_verb,
                 int32_t other, int64_t byte)
{
    char loc[256];
    diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                  "shared memory race: thread %d %s bytes %s by thread %d without a barrier in between "
                  "(byte %lld, %s at %s)",
                  (int)t, verb, other_verb, (int)other, (long long)byte, ir_ops[op->kind].name,
                  cpu_loc_text(c, op->loc, loc));
    return false;
}

/* Every active thread is checked (range, alignment, a write after another
 * thread's read) before any byte is written. Threads then write in order;
 * a thread may overwrite bytes another thread wrote since the last barrier
 * only with the same value (a GPU would keep either write: different
 * values make the result depend on timing). */
static bool exec_smem_store(cpu_ctx *c, const ir_op *op)
{
    cpu_simt *s = c->simt;
    ir_dtype dt = cpu_dtype(c, op->operands[1]);
    int size = ir_dtypes[dt].bytes;
    const ir_scalar *val = cpu_vals(c, op->operands[1]);
    const ir_scalar *mask = op->noperands == 3 ? cpu_vals(c, op->operands[2]) : NULL;
    int32_t slots = cpu_slots(c, op->operands[0]);
    int64_t addr;
    for (int32_t i = 0; i < c->threads * slots; i++) {
        int32_t t = i / slots;
        if ((mask && !mask[i].i) || !cpu_thread_active(c, t))
            continue;
        if (!smem_address(c, op, i, size, &addr))
            return false;
        for (int64_t b = addr; b < addr + size; b++)
            for (int k = 0; k < 2; k++) {
                int32_t rd = s->track[b].reader[k];
                if (rd >= 0 && rd != t)
                    return race(c, op, t, "writes", "read", rd, b);
            }
    }
    for (int32_t i = 0; i < c->threads * slots; i++) {
        int32_t t = i / slots;
        if ((mask && !mask[i].i) || !cpu_thread_active(c, t))
            continue;
        smem_address(c, op, i, size, &addr);
        unsigned char bytes[8];
        ir_scalar_store(dt, bytes, val[i]);
        for (int64_t b = addr; b < addr + size; b++) {
            int32_t w = s->track[b].writer;
            if (w >= 0 && w != t && s->smem[b] != bytes[b - addr])
                return race(c, op, t, "writes other values to", "written", w, b);
        }
        memcpy(s->smem + addr, bytes, (size_t)size);
        for (int64_t b = addr; b < addr + size; b++)
            s->track[b].writer = t, s->track[b].written = 1;
        touch(s, addr, addr + size);
    }
    return true;
}

static bool exec_smem_load(cpu_ctx *c, const ir_op *op)
{
    cpu_simt *s = c->simt;
    ir_dtype dt = cpu_dtype(c, op->results[0]);
    int size = ir_dtypes[dt].bytes;
    ir_scalar *o = cpu_vals(c, op->results[0]);
    int32_t slots = cpu_slots(c, op->operands[0]);
    for (int32_t i = 0; i < c->threads * slots; i++) {
        int32_t t = i / slots;
        int64_t addr;
        if (!cpu_thread_active(c, t))
            continue;
        if (!smem_address(c, op, i, size, &addr))
            return false;
        for (int64_t b = addr; b < addr + size; b++) {
            smem_byte *tb = &s->track[b];
            if (!tb->written) {
                char loc[256];
                diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                              "%s at %s: thread %d of CTA (%lld, %lld, %lld) reads shared memory "
                              "byte %lld, which no thread of that CTA wrote",
                              ir_ops[op->kind].name, cpu_loc_text(c, op->loc, loc), (int)t,
                              (long long)c->pid[0], (long long)c->pid[1], (long long)c->pid[2],
                              (long long)b);
                return false;
            }
            if (tb->writer >= 0 && tb->writer != t)
                return race(c, op, t, "reads", "written", tb->writer, b);
            if (tb->reader[0] < 0)
                tb->reader[0] = t;
            else if (tb->reader[0] != t && tb->reader[1] < 0)
                tb->reader[1] = t;
        }
        o[i] = ir_scalar_load(dt, s->smem + addr);
        touch(s, addr, addr + size);
    }
    return true;
}

/* In lockstep every thread has arrived: what each wrote is now visible to
 * all, and the bytes may be written again. A barrier that some thread does
 * not reach (divergent control flow) would hang or misbehave on a GPU: an
 * internal error. */
static bool exec_barrier(cpu_ctx *c, const ir_op *op)
{
    for (int32_t t = 0; t < c->threads; t++)
        if (!cpu_thread_active(c, t)) {
            char loc[256];
            diag_error_at(c->d, DIAG_INTERNAL, &c->m->src, op->loc,
                          "simt.barrier at %s is not reached by thread %d (divergent control flow)",
                          cpu_loc_text(c, op->loc, loc), (int)t);
            return false;
        }
    cpu_simt *s = c->simt;
    reset_tracking(s, s->phase_lo, s->phase_hi, false);
    s->phase_lo = s->smem_bytes;
    s->phase_hi = 0;
    return true;
}

/* A warp barrier: every lane of each warp that runs it must run it (else an
 * internal error, as a shuffle's); then what those warps' threads wrote and
 * read since the last barrier is visible to all and may be written again
 * (tracking of bytes another warp touched stays). */
static bool exec_warp_barrier(cpu_ctx *c, const ir_op *op)
{
    bool arrived[SIMT_EXEC_MAX_WARPS] = {false};
    for (int32_t t = 0; t < c->threads; t++) {
        if (!cpu_thread_active(c, t))
            continue;
        if (!group_runs(c, op, t, WARP, "waits"))
            return false;
        if (t / WARP < SIMT_EXEC_MAX_WARPS)
            arrived[t / WARP] = true;
    }
    cpu_simt *s = c->simt;
    for (int64_t b = s->phase_lo; b < s->phase_hi; b++) {
        smem_byte *tb = &s->track[b];
        if (tb->writer >= 0 && tb->writer / WARP < SIMT_EXEC_MAX_WARPS && arrived[tb->writer / WARP])
            tb->writer = -1;
        for (int k = 0; k < 2; k++)
            if (tb->reader[k] >= 0 && tb->reader[k] / WARP < SIMT_EXEC_MAX_WARPS && arrived[tb->reader[k] / WARP])
                tb->reader[k] = -1;
        if (tb->reader[0] < 0 && tb->reader[1] >= 0)
            tb->reader[0] = tb->reader[1], tb->reader[1] = -1;
    }
    return true;
}

/* ---- dispatch ------------------------------------------------------------------- */

bool cpu_simt_exec_op(cpu_ctx *c, const ir_op *op)
{
    switch (op->kind) {
    case IR_SIMT_THREAD_ID:
    case IR_SIMT_GRID_DIM:
    case IR_SIMT_TILE_INDEX:
        return true; /* evaluated once per launch (cpu_simt_eval_invariant) */
    case IR_SIMT_BLOCK_ID: {
        ir_value r = op->results[0];
        ir_scalar id = ir_scalar_from_int(cpu_dtype(c, r), c->pid[attr_int(op, "axis", 0)]);
        for (int32_t t = 0; t < c->threads; t++)
            cpu_vals(c, r)[t] = id;
        return true;
    }
    case IR_SIMT_LOAD: return exec_load(c, op);
    case IR_SIMT_STORE: return exec_store(c, op);
    case IR_SIMT_VREDUCE: return cpu_exec_value_op(c, op);
    case IR_SIMT_SHFL_XOR:
    case IR_SIMT_SHFL_UP:
    case IR_SIMT_SHFL_IDX: return exec_shuffle(c, op);
    case IR_SIMT_SHFL_LANE: return exec_shuffle_lane(c, op);
    case IR_SIMT_VSLOTS: return exec_vslots(c, op);
    case IR_SIMT_ATOMIC_RMW:
    case IR_SIMT_ATOMIC_CAS: return cpu_exec_atomic(c, op);
    case IR_SIMT_FENCE: return true; /* lockstep: memory is always in order */
    case IR_SIMT_SMEM_STORE: return exec_smem_store(c, op);
    case IR_SIMT_SMEM_LOAD: return exec_smem_load(c, op);
    case IR_SIMT_BARRIER: return exec_barrier(c, op);
    case IR_SIMT_WARP_BARRIER: return exec_warp_barrier(c, op);
    case IR_SIMT_PRINT: return cpu_exec_print(c, op);
    default: return cpu_internal(c, op, "not a SIMT op");
    }
}

/* ---- launch --------------------------------------------------------------------- */

/* Reads simt.num_threads and simt.smem_bytes from the func. */
static bool read_func_attrs(cpu_ctx *c, int32_t *threads, int64_t *smem_bytes)
{
    const ir_attr *nt = ir_attr_get(c->func, "simt.num_threads");
    const ir_attr *sb = ir_attr_get(c->func, "simt.smem_bytes");
    if (!nt) {
        diag_error(c->d, DIAG_ARGUMENT,
                   "kernel '%s' is not a SIMT program: its func.func has no simt.num_threads",
                   ir_func_name(c->func));
        return false;
    }
    if (nt->kind != ATTR_INT || nt->i < WARP || nt->i > 1024 || !is_pow2(nt->i))
        return cpu_internal(c, NULL, "simt.num_threads must be a power of two in 32..1024");
    if (sb && (sb->kind != ATTR_INT || sb->i < 0 || sb->i > MAX_SMEM_BYTES))
        return cpu_internal(c, NULL, "simt.smem_bytes must be an integer in 0..16 MiB");
    *threads = (int32_t)nt->i;
    *smem_bytes = sb ? sb->i : 0;
    return true;
}

bool cpu_simt_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d)
{
    return cpu_simt_launch_func(m, NULL, grid, args, nargs, d);
}

bool cpu_simt_launch_func(const ir_module *m, const ir_op *func, const int64_t grid[3],
                          const cpu_arg *args, int nargs, diag *d)
{
    return cpu_simt_launch_with(m, func, grid, args, nargs, NULL, d);
}

bool cpu_simt_launch_with(const ir_module *m, const ir_op *func, const int64_t grid[3],
                          const cpu_arg *args, int nargs, cpu_journal *journal, diag *d)
{
    cpu_ctx c;
    cpu_journal *own;
    if (!cpu_init_launch(&c, m, grid, args, nargs, d, "cpu_simt_launch") ||
        !cpu_launch_journal(&c, journal, &own))
        return false;
    if (func)
        c.func = func;
    /* Internal errors are returned, not longjmp'd, so the storage is
     * always freed. */
    jmp_buf *bail = d->bail;
    d->bail = NULL;
    cpu_simt s = {0};
    bool ok = read_func_attrs(&c, &c.threads, &s.smem_bytes);
    if (ok) {
        s.smem = calloc((size_t)s.smem_bytes + 1, 1);
        s.track = malloc(sizeof(smem_byte) * ((size_t)s.smem_bytes + 1));
        if (!s.smem || !s.track) {
            diag_error(d, DIAG_NOMEM, "out of memory for %lld bytes of shared memory",
                       (long long)s.smem_bytes);
            ok = false;
        } else {
            s.cta_lo = 0, s.cta_hi = s.smem_bytes; /* the first CTA resets everything */
            c.simt = &s;
        }
    }
    ok = ok && cpu_prepare(&c) && cpu_run_grid(&c);
    d->bail = bail;
    cpu_release(&c);
    cpu_launch_finish(&c, own, ok);
    free(s.smem);
    free(s.track);
    return ok;
}
