/* cpu_exec.h - the CPU executors: the reference executor for the semantic
 * IR, and the SIMT executor for the per-thread IR (docs/simt.md).
 *
 * Runs the kernel (the module's first func.func) once per program over the
 * whole grid, program ids in row-major order (axis 0 fastest), on host
 * buffers, deterministically. It is the oracle every later backend is
 * checked against. Every memory access is bounds-checked against the buffer
 * it derives from: an access outside it (that the mask does not turn off) is
 * a DIAG_RUNTIME error naming the op's location, never a host crash.
 */
#ifndef SWAGE_CPU_EXEC_H
#define SWAGE_CPU_EXEC_H

#include "../../ir/ir.h"

typedef enum cpu_arg_kind { CPU_ARG_BUFFER, CPU_ARG_INT, CPU_ARG_FLOAT } cpu_arg_kind;

typedef struct cpu_arg {
    cpu_arg_kind kind;
    void *data;      /* BUFFER: host memory, elements of the parameter's pointee dtype */
    int64_t nelems;  /* BUFFER: element count (bounds for every access) */
    int64_t i;       /* INT */
    double f;        /* FLOAT */
    bool scratch;    /* BUFFER: the caller's own working memory, not journaled (below) */
} cpu_arg;

/* args are the func's block arguments in order. The module must be verified.
 * Returns false with d set (DIAG_ARGUMENT for arity/kind mismatches,
 * DIAG_RUNTIME for out-of-bounds accesses, DIAG_NOMEM, DIAG_INTERRUPTED),
 * every buffer then as it was before the call (the journal, below).
 *
 * A func with sw.segment_id is a segment program (docs/segments.md): the
 * grid is (segments, 1, 1) and program s runs segment s. Each sw.segment
 * reads offsets[sid] and offsets[sid+1] (bounds-checked like any load) and
 * checks 0 <= start <= end <= the values buffer's length, a DIAG_RUNTIME
 * error naming the segment and the offsets argument otherwise: this is the
 * CPU's offsets check. Segment values have the segment's length (0
 * included); reductions of an empty one give the identity; a
 * sw.store_segment is bounds-checked as a whole before it writes, and an
 * empty segment stores nothing. Memory for segment values grows with the
 * longest segment run so far, never more. */
bool cpu_exec_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d);

/* Runs a SIMT module (its func carries simt.num_threads = T and optionally
 * simt.smem_bytes) over the grid: CTA by CTA (block ids row-major, axis 0
 * fastest), the T threads of a CTA in lockstep, op by op, with a shared
 * memory of simt.smem_bytes bytes per CTA. Arguments, bounds checks and
 * their DIAG_RUNTIME errors are the semantic executor's (the message also
 * names the thread); when several threads or slots store to one address,
 * the last in (thread, slot) order wins. What would be a lowering bug on a
 * GPU is a DIAG_INTERNAL error at the op: a barrier or a shuffle that some
 * thread it needs does not reach (control flow may diverge between
 * threads: each branch and loop iteration runs with the threads that take
 * it, and memory ops skip the others), shared memory accessed out of range, misaligned or before any
 * thread wrote it, a shared memory race (a thread reads bytes another
 * thread wrote, writes bytes another thread read, or writes other values
 * over bytes another thread wrote, since the last simt.barrier), and a
 * simt.load/store whose `vec` promise does not hold.
 * A module without simt.num_threads is a DIAG_ARGUMENT error. */
bool cpu_simt_launch(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                     diag *d);
/* The same for one func.func of m (NULL: the first). */
bool cpu_simt_launch_func(const ir_module *m, const ir_op *func, const int64_t grid[3],
                          const cpu_arg *args, int nargs, diag *d);

/* ---- a failed launch leaves every buffer as it was -------------------------
 *
 * Every launch keeps a journal of what it overwrites: before a store, an
 * atomic or a sw.store_segment first writes into a block of
 * CPU_JOURNAL_BLOCK bytes of an argument buffer, it copies the block's old
 * bytes aside. A launch that fails for any reason (an out-of-bounds access
 * in its last program, an internal error, no memory for the journal, an
 * interrupt) puts every saved block back, newest first, before it returns:
 * every buffer then holds exactly what it held before the launch, also when
 * arguments alias. A launch that succeeds drops the journal. The cost is a
 * bit test per stored element and one copy of each block written, so the
 * memory a launch needs grows by what it writes, never by what it only
 * reads.
 *
 * Launches that succeed or fail together (the task kernels of a schedule,
 * src/plan/run_cpu.c) share one journal through the _with entry points
 * (NULL: the launch keeps its own); the caller rolls it back on failure. */
enum { CPU_JOURNAL_SHIFT = 12, CPU_JOURNAL_BLOCK = 1 << CPU_JOURNAL_SHIFT };
typedef struct cpu_journal cpu_journal;
/* NULL when out of memory. */
cpu_journal *cpu_journal_new(void);
/* Puts back every block saved since cpu_journal_new (or the last
 * rollback), newest first. */
void cpu_journal_rollback(cpu_journal *j);
void cpu_journal_free(cpu_journal *j);

bool cpu_exec_launch_with(const ir_module *m, const int64_t grid[3], const cpu_arg *args, int nargs,
                          cpu_journal *journal, diag *d);
bool cpu_simt_launch_with(const ir_module *m, const ir_op *func, const int64_t grid[3],
                          const cpu_arg *args, int nargs, cpu_journal *journal, diag *d);

/* ---- interrupts --------------------------------------------------------------
 *
 * A launch polls the calling thread's cancel flag (NULL: none) before every
 * program or CTA and every loop iteration: once it reads nonzero the launch
 * stops with a DIAG_INTERRUPTED error, its journal rolled back. The flag
 * belongs to the caller (another thread or a signal handler sets it); it is
 * read with relaxed atomic loads. Returns the thread's previous flag. */
const volatile int *cpu_set_cancel_flag(const volatile int *flag);

#endif
