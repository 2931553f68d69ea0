/* cpu_journal.c - what a CPU launch overwrote in its argument buffers, to
 * put back when it fails (cpu_exec.h), and the calling thread's cancel
 * flag.
 *
 * A journal knows each buffer it has seen as a region (its bytes and a bit
 * per CPU_JOURNAL_BLOCK-byte block: saved or not). Before the first write
 * into a block, the block's bytes are copied aside (cpu_journal_save); the
 * copies live in 1 MiB chunks, and a list of saved blocks in the order they
 * were saved. Rolling back copies every saved block back, newest first:
 * each byte then ends up with the copy made before anything wrote it, even
 * when buffers overlap (a block saved through one buffer after another
 * buffer wrote into it is restored before that other buffer's older copy).
 * Requires that nothing writes into a journaled buffer without
 * cpu_journal_note first; guarantees no allocation for buffers that are
 * only read. */
#include "cpu_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Chunks of copies; up to POOL_CHUNKS of them are kept between launches
 * (process-wide, under pool_lock), so a launch that writes less than that
 * takes its copies from memory already mapped instead of faulting in fresh
 * pages every time. */
enum { CHUNK_BYTES = 1 << 20, POOL_CHUNKS = 8 };

typedef struct saved_block {
    unsigned char *at;   /* where the bytes came from */
    unsigned char *copy; /* their copy, in a chunk */
    size_t len;
} saved_block;

typedef struct chunk {
    struct chunk *next;
    size_t used;
    unsigned char data[];
} chunk;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static chunk *pool;
static int pooled;

static chunk *chunk_new(void)
{
    pthread_mutex_lock(&pool_lock);
    chunk *c = pool;
    if (c) {
        pool = c->next;
        pooled--;
    }
    pthread_mutex_unlock(&pool_lock);
    return c ? c : malloc(sizeof *c + CHUNK_BYTES);
}

/* Frees a list of chunks, keeping what fits in the pool. */
static void chunks_free(chunk *c)
{
    while (c) {
        chunk *next = c->next;
        pthread_mutex_lock(&pool_lock);
        bool keep = pooled < POOL_CHUNKS;
        if (keep) {
            c->next = pool;
            pool = c;
            pooled++;
        }
        pthread_mutex_unlock(&pool_lock);
        if (!keep)
            free(c);
        c = next;
    }
}

struct cpu_journal {
    cpu_region **regions; /* each allocated on its own: cpu_buffer points at it */
    int nregions, cap_regions;
    saved_block *saved;
    size_t nsaved, cap_saved;
    chunk *chunks; /* newest first */
};

cpu_journal *cpu_journal_new(void) { return calloc(1, sizeof(cpu_journal)); }

void cpu_journal_rollback(cpu_journal *j)
{
    if (!j)
        return;
    for (size_t i = j->nsaved; i-- > 0;)
        memcpy(j->saved[i].at, j->saved[i].copy, j->saved[i].len);
    j->nsaved = 0;
    for (int r = 0; r < j->nregions; r++)
        if (j->regions[r]->saved)
            memset(j->regions[r]->saved, 0, (j->regions[r]->blocks + 7) / 8);
    chunks_free(j->chunks);
    j->chunks = NULL;
}

void cpu_journal_free(cpu_journal *j)
{
    if (!j)
        return;
    for (int r = 0; r < j->nregions; r++) {
        free(j->regions[r]->saved);
        free(j->regions[r]);
    }
    free(j->regions);
    free(j->saved);
    chunks_free(j->chunks);
    free(j);
}

cpu_region *cpu_journal_region(cpu_journal *j, unsigned char *data, size_t bytes)
{
    for (int r = 0; r < j->nregions; r++)
        if (j->regions[r]->data == data && j->regions[r]->bytes == bytes)
            return j->regions[r];
    if (j->nregions == j->cap_regions) {
        int cap = j->cap_regions ? 2 * j->cap_regions : 8;
        cpu_region **grown = realloc(j->regions, sizeof *grown * (size_t)cap);
        if (!grown)
            return NULL;
        j->regions = grown;
        j->cap_regions = cap;
    }
    cpu_region *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->data = data;
    r->bytes = bytes;
    r->blocks = (bytes + CPU_JOURNAL_BLOCK - 1) >> CPU_JOURNAL_SHIFT;
    j->regions[j->nregions++] = r;
    return r;
}

/* Room for len more bytes of copies. */
static unsigned char *take(cpu_journal *j, size_t len)
{
    chunk *c = j->chunks;
    if (!c || CHUNK_BYTES - c->used < len) {
        c = chunk_new();
        if (!c)
            return NULL;
        c->next = j->chunks;
        c->used = 0;
        j->chunks = c;
    }
    unsigned char *at = c->data + c->used;
    c->used += len;
    return at;
}

bool cpu_journal_save(cpu_ctx *c, int32_t arg, size_t block)
{
    cpu_journal *j = c->journal;
    cpu_region *r = c->bufs[arg].region;
    if (block >= r->blocks)
        return cpu_internal(c, NULL, "a journaled write past the end of its buffer");
    if (!r->saved && !(r->saved = calloc((r->blocks + 7) / 8, 1)))
        goto nomem;
    if (j->nsaved == j->cap_saved) {
        size_t cap = j->cap_saved ? 2 * j->cap_saved : 64;
        saved_block *grown = realloc(j->saved, sizeof *grown * cap);
        if (!grown)
            goto nomem;
        j->saved = grown;
        j->cap_saved = cap;
    }
    size_t start = block << CPU_JOURNAL_SHIFT;
    size_t len = r->bytes - start < CPU_JOURNAL_BLOCK ? r->bytes - start : CPU_JOURNAL_BLOCK;
    unsigned char *copy = take(j, len);
    if (!copy)
        goto nomem;
    memcpy(copy, r->data + start, len);
    j->saved[j->nsaved++] = (saved_block){.at = r->data + start, .copy = copy, .len = len};
    r->saved[block >> 3] |= (uint8_t)(1u << (block & 7));
    return true;
nomem:
    diag_error(c->d, DIAG_NOMEM,
               "out of memory keeping a copy of what the launch overwrites (%zu blocks of %d bytes "
               "so far); nothing it wrote stays",
               j->nsaved, (int)CPU_JOURNAL_BLOCK);
    return false;
}

bool cpu_journal_note_range(cpu_ctx *c, int32_t arg, int64_t first, int64_t n)
{
    if (n <= 0 || !c->bufs[arg].region)
        return true;
    size_t el = (size_t)c->bufs[arg].elsize;
    size_t lo = ((size_t)first * el) >> CPU_JOURNAL_SHIFT;
    size_t hi = ((size_t)(first + n) * el - 1) >> CPU_JOURNAL_SHIFT;
    for (size_t b = lo; b <= hi; b++)
        if (!cpu_journal_saved(c->bufs[arg].region, b) && !cpu_journal_save(c, arg, b))
            return false;
    return true;
}

/* ---- the cancel flag ------------------------------------------------------- */

static _Thread_local const volatile int *cancel_flag;

const volatile int *cpu_set_cancel_flag(const volatile int *flag)
{
    const volatile int *old = cancel_flag;
    cancel_flag = flag;
    return old;
}

const volatile int *cpu_cancel_flag(void) { return cancel_flag; }

bool cpu_interrupted(cpu_ctx *c)
{
    diag_error(c->d, DIAG_INTERRUPTED,
               "the CPU launch of '%s' was interrupted (its cancel flag was set); every argument "
               "buffer is as it was before the launch",
               ir_func_name(c->func));
    return false;
}
