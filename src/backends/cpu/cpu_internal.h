/* cpu_internal.h - what the two CPU executors share: value storage, argument
 * binding, elementwise ops, bounds-checked memory and structured control
 * flow (cpu_setup.c, cpu_values.c, cpu_exec.c), and the SIMT-only ops
 * (simt_exec.c).
 *
 * Every SSA value of the kernel owns one fixed slot in a slab allocated once
 * per launch. The semantic executor runs one program at a time, so a slot
 * holds `len` lanes (1 for scalars, N for a tile). The SIMT executor runs
 * the T threads of one CTA in lockstep, so a slot holds every thread's copy
 * side by side, thread-major: a scalar is T lanes (lane t is thread t's
 * value) and a vector<VxT> is T*V lanes (lane t*V+j is slot j of thread t).
 * Either way an elementwise op is one loop over all lanes, and lane order is
 * (thread, slot) order. Each lane is an ir_scalar, or a cpu_ptr for
 * pointer-typed values. Because the IR is SSA with structured control flow,
 * the slot of a value always holds its most recent definition, which is
 * exactly the one every use sees; programs, CTAs and loop iterations simply
 * overwrite the slots, so a launch of any size allocates nothing per
 * program.
 *
 * Segment programs (docs/segments.md) add two kinds of value. A view
 * (!sw.segment<T>) is one cpu_segment in a fixed slot. A segment value
 * (tensor<?xT>) is a run of `seg_len` lanes, the length of this program's
 * segment, known only once the program's first sw.segment has run; such
 * values live in a per-launch scratch (cpu_segment.c) that grows to the
 * longest segment seen so far and is shared by values whose lifetimes do
 * not overlap. Its slots move only when it grows, at an sw.segment, before
 * the program has computed any segment value.
 */
#ifndef SWAGE_CPU_INTERNAL_H
#define SWAGE_CPU_INTERNAL_H

#include "cpu_exec.h"
#include "../../ir/scalar.h"

/* A pointer: which kernel argument it points into and an element offset
 * that may be anything; it is only checked against the argument's nelems
 * when a load or store uses it, so pointer arithmetic can never touch
 * memory. */
typedef struct cpu_ptr {
    int64_t off;
    int32_t arg;
    int32_t reserved;
} cpu_ptr;

/* A buffer the journal (cpu_journal.c) watches: a bit per
 * CPU_JOURNAL_BLOCK-byte block, set once the block's old bytes are saved. */
typedef struct cpu_region {
    unsigned char *data;
    size_t bytes;
    size_t blocks;
    uint8_t *saved; /* NULL until the first write */
} cpu_region;

/* What the executor knows about each kernel argument. */
typedef struct cpu_buffer {
    unsigned char *data;
    int64_t nelems;
    ir_dtype dt;  /* the pointee dtype; DT_VOID for scalar parameters */
    int elsize;
    cpu_region *region; /* its journal region; NULL for scalars, scratch and empty buffers */
} cpu_buffer;

/* A view of one segment (the slot of an !sw.segment<T> value): offsets
 * [start, end) of segment `sid`, validated against the values buffer; its
 * element i is element base + i of argument values_arg. */
typedef struct cpu_segment {
    int64_t start, end;
    int64_t base;
    int64_t sid;
    int32_t values_arg, offsets_arg;
} cpu_segment;

#define CPU_SEGVAL_SLOT (SIZE_MAX - 1)

typedef struct cpu_simt cpu_simt; /* simt_exec.c: shared memory and its race tracking */
typedef struct cpu_seg_scratch cpu_seg_scratch; /* cpu_segment.c: segment value storage */

typedef struct cpu_ctx {
    const ir_module *m;
    diag *d;
    const ir_op *func;
    const cpu_arg *args;
    int nargs;
    cpu_buffer *bufs;     /* per argument */
    size_t *offset;       /* per value: byte offset of its slot in the slab, SIZE_MAX if none,
                             CPU_SEGVAL_SLOT for a segment value */
    void **slot;          /* per value id: its lanes; NULL outside the func */
    unsigned char *slab;  /* owns every slot */
    int64_t grid[3];
    int64_t pid[3];       /* the running program (the CTA's block id at SIMT level) */
    int32_t threads;      /* 1 for the semantic executor, T (simt.num_threads) at SIMT level */
    cpu_simt *simt;       /* NULL for the semantic executor */
    /* SIMT level: which threads run the ops being executed (control flow
     * may diverge: a thread outside a taken branch or past its last loop
     * iteration is inactive there). NULL means every thread. Memory ops
     * skip inactive threads; values they compute are never observed. */
    uint8_t *active;
    uint8_t *ctl;         /* scratch for nested control flow: `ctl_used` of `ctl_cap` bytes */
    size_t ctl_used, ctl_cap;
    bool generic_only;    /* SWAGE_CPU_GENERIC set: skip the per-dtype fast loops */
    bool segment_program; /* the func has sw.segment_id: one program per segment */
    int32_t seg_len;      /* lanes of every segment value in this program; -1 before its
                             first sw.segment has run */
    cpu_seg_scratch *seg; /* NULL when the func has no segment values */
    cpu_journal *journal; /* what the launch overwrote (cpu_journal.c) */
    const volatile int *cancel; /* the thread's cancel flag, or NULL */
} cpu_ctx;

static inline ir_scalar *cpu_vals(const cpu_ctx *c, ir_value v) { return (ir_scalar *)c->slot[v]; }
static inline cpu_ptr *cpu_ptrs(const cpu_ctx *c, ir_value v) { return (cpu_ptr *)c->slot[v]; }
/* Elements per program/thread: a tile's or vector's length, the segment's
 * length for a segment value, 1 otherwise. */
static inline int32_t cpu_slots(const cpu_ctx *c, ir_value v)
{
    ir_type t = c->m->values[v].type;
    if (t.kind == TY_TILE || t.kind == TY_VEC)
        return t.len;
    return t.kind == TY_SEGVAL ? c->seg_len : 1;
}
static inline bool cpu_is_segval(const cpu_ctx *c, ir_value v) { return c->m->values[v].type.kind == TY_SEGVAL; }
/* Lanes in the value's slot: slots times threads (cpu_setup.c checked that
 * this fits an int32 for every value). */
static inline int32_t cpu_len(const cpu_ctx *c, ir_value v) { return cpu_slots(c, v) * c->threads; }
static inline ir_dtype cpu_dtype(const cpu_ctx *c, ir_value v) { return (ir_dtype)c->m->values[v].type.dtype; }
static inline bool cpu_is_ptr(const cpu_ctx *c, ir_value v) { return ir_type_is_ptrlike(c->m->values[v].type); }
/* Whether thread t runs the current op (always, for the semantic executor). */
static inline bool cpu_thread_active(const cpu_ctx *c, int32_t t) { return !c->active || c->active[t]; }

/* sw_unreachable with the op's name; always returns false. */
bool cpu_internal(cpu_ctx *c, const ir_op *op, const char *what);
/* "file:line:col" of loc in the user's file (or "unknown location"). */
const char *cpu_loc_text(const cpu_ctx *c, src_loc loc, char buf[256]);
/* The name of parameter `index` for messages ("?" when it has none). */
const char *cpu_param_name(const cpu_ctx *c, int index);

/* cpu_setup.c: checks the argument count, binds the arguments, gives every
 * value its slot after checking what memory safety depends on (operand
 * lengths, pointer-ness, attributes the executor reads), and evaluates the
 * values that do not depend on the program. c->m, d, func, args, nargs,
 * grid, threads and simt must be set. cpu_release frees what it allocated
 * (also after a failed cpu_prepare). */
bool cpu_prepare(cpu_ctx *c);
void cpu_release(cpu_ctx *c);
/* Copies v's lanes from src to dst (values of one type); the _active form
 * copies only the lanes of active threads. */
void cpu_copy_value(cpu_ctx *c, ir_value dst, ir_value src);
void cpu_copy_value_active(cpu_ctx *c, ir_value dst, ir_value src);

/* cpu_values.c: runs one op that computes values from values (elementwise
 * arithmetic and math, cmp, select, cast, splat, sw.reduce and
 * simt.vreduce). A splat repeats each of its operand's lanes over one
 * thread's slots; a reduction combines each thread's slots into its one
 * result lane. Returns false with c->d set on failure; operands were
 * checked by cpu_setup.c. */
bool cpu_exec_value_op(cpu_ctx *c, const ir_op *op);
/* sw.print / simt.print (cpu_print.c): writes the values to stdout. */
bool cpu_exec_print(cpu_ctx *c, const ir_op *op);
/* True for the op kinds cpu_exec_value_op runs. */
bool cpu_is_value_op(ir_op_kind kind);

/* cpu_exec.c: runs b's ops; *term gets its terminator (sw.yield /
 * func.return). At SIMT level every sw.if condition and sw.for bound must
 * be uniform over the threads (a DIAG_INTERNAL error otherwise). */
bool cpu_exec_block(cpu_ctx *c, const ir_block *b, const ir_op **term);
/* Bounds-checked loads and stores of sw.load/sw.store and simt.load/
 * simt.store: masked-off lanes (and lanes of inactive threads) take
 * `other` / write nothing; every active lane of a store is checked before
 * any is written; lanes are written in (thread, slot) order, so the last
 * writer wins. The atomics (sw.atomic_rmw, sw.atomic_cas and their SIMT
 * forms): every active lane checked, then each applies its atomic
 * (src/ir/atomic.h) slot by slot, the lanes of a slot in thread order
 * (element order for the semantic executor), and gets the element's old
 * value (masked-off lanes get 0). */
bool cpu_exec_load(cpu_ctx *c, const ir_op *op);
bool cpu_exec_store(cpu_ctx *c, const ir_op *op);
bool cpu_exec_atomic(cpu_ctx *c, const ir_op *op);
/* Checks what both launch entry points take (a module with a func, a grid
 * of sizes 0..INT32_MAX, an argument array) and initialises c for a
 * semantic launch (threads 1, no SIMT state); false with d set. `who`
 * names the entry point in messages. */
bool cpu_init_launch(cpu_ctx *c, const ir_module *m, const int64_t grid[3], const cpu_arg *args,
                     int nargs, diag *d, const char *who);
/* Runs the func body once per program (per CTA at SIMT level), program ids
 * row-major with axis 0 fastest. */
bool cpu_run_grid(cpu_ctx *c);
/* The launch's journal: `shared`, or a new one of its own (*own; false with
 * c->d set when out of memory). cpu_launch_finish rolls its own back when
 * the launch failed (a shared one is the caller's to roll back) and frees
 * it. */
bool cpu_launch_journal(cpu_ctx *c, cpu_journal *shared, cpu_journal **own);
void cpu_launch_finish(cpu_ctx *c, cpu_journal *own, bool ok);

/* Reports an out-of-bounds access of argument p.arg at element p.off (the
 * message names the program, or the segment in a segment program, and at
 * SIMT level the thread holding `lane`); returns false. */
bool cpu_out_of_bounds(cpu_ctx *c, const ir_op *op, cpu_ptr p, int32_t lane, int32_t slots);

/* cpu_journal.c: the journal of what a launch overwrites (cpu_exec.h).
 * cpu_journal_region finds or adds the region of a buffer (NULL when out of
 * memory); cpu_journal_save copies block `block` of argument arg's buffer
 * aside (false with c->d set when out of memory). Every write into an
 * argument buffer calls cpu_journal_note (one element) or
 * cpu_journal_note_range (n elements from `first`) first. */
cpu_region *cpu_journal_region(cpu_journal *j, unsigned char *data, size_t bytes);
bool cpu_journal_save(cpu_ctx *c, int32_t arg, size_t block);
bool cpu_journal_note_range(cpu_ctx *c, int32_t arg, int64_t first, int64_t n);
static inline bool cpu_journal_saved(const cpu_region *r, size_t block)
{
    return r->saved && (r->saved[block >> 3] >> (block & 7) & 1);
}
static inline bool cpu_journal_note(cpu_ctx *c, int32_t arg, int64_t elem)
{
    const cpu_buffer *b = &c->bufs[arg];
    size_t block = ((size_t)elem * (size_t)b->elsize) >> CPU_JOURNAL_SHIFT;
    return !b->region || cpu_journal_saved(b->region, block) || cpu_journal_save(c, arg, block);
}
/* The calling thread's cancel flag (cpu_set_cancel_flag). */
const volatile int *cpu_cancel_flag(void);
/* Whether the launch must stop now; reports DIAG_INTERRUPTED then. */
bool cpu_interrupted(cpu_ctx *c);
static inline bool cpu_cancelled(cpu_ctx *c)
{
    return c->cancel && __atomic_load_n((const int *)c->cancel, __ATOMIC_RELAXED) && !cpu_interrupted(c);
}

/* cpu_segment.c: segment programs (docs/segments.md). */
bool cpu_is_segment_op(ir_op_kind kind);
/* Setup checks of a segment op (operand kinds, dtypes, attributes). */
bool cpu_segment_check_op(cpu_ctx *c, const ir_op *op);
/* After every value has its slot: gives each segment value a scratch slot
 * (values whose lifetimes overlap get different ones) and allocates the
 * scratch. Frees with cpu_segment_release. */
bool cpu_segment_prepare(cpu_ctx *c);
void cpu_segment_release(cpu_ctx *c);
/* A segment program runs on a grid of (segments, 1, 1). */
bool cpu_segment_check_grid(cpu_ctx *c);
/* Runs sw.segment_id, sw.segment, sw.segment_length, sw.load_segment,
 * sw.store_segment, and sw.constant of a segment value. */
bool cpu_segment_exec_op(cpu_ctx *c, const ir_op *op);
/* An op that makes a segment value before the program knows its segment
 * (an internal error: the verifier's dominance rules exclude it). */
bool cpu_segment_unknown_length(cpu_ctx *c, const ir_op *op);

/* cpu_scan.c: sw.scan, sw.reduce_fn, sw.histogram and sw.gather (semantic
 * level only): their setup checks and their execution. */
bool cpu_is_scan_op(ir_op_kind kind);
bool cpu_scan_check_op(cpu_ctx *c, const ir_op *op);
bool cpu_scan_exec_op(cpu_ctx *c, const ir_op *op);

/* cpu_shape.c: sw.broadcast, sw.reshape, sw.trans and sw.reduce {axis}
 * (semantic level only): their setup checks and their execution. */
bool cpu_is_shape_op(ir_op_kind kind);
bool cpu_shape_check_op(cpu_ctx *c, const ir_op *op);
bool cpu_shape_exec_op(cpu_ctx *c, const ir_op *op);
bool cpu_shape_check_reduce(cpu_ctx *c, const ir_op *op);
bool cpu_shape_exec_reduce(cpu_ctx *c, const ir_op *op);

/* simt_exec.c: the SIMT-only ops (docs/simt.md). */
bool cpu_is_simt_op(ir_op_kind kind);
/* Setup checks of a simt.* op beyond the generic ones (attributes, dtypes). */
bool cpu_simt_check_op(cpu_ctx *c, const ir_op *op);
/* Evaluates a launch-invariant SIMT op (thread_id, grid_dim, tile_index);
 * false when op is not one. */
bool cpu_simt_eval_invariant(cpu_ctx *c, const ir_op *op);
bool cpu_simt_exec_op(cpu_ctx *c, const ir_op *op);
/* Starts a CTA: its shared memory holds nothing readable yet. */
void cpu_simt_begin_cta(cpu_ctx *c);

#endif
