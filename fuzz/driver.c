/* driver.c - a small, self-contained mutation fuzzer for the targets of
 * fuzz.h (no libFuzzer needed: any C11 compiler with pthreads).
 *
 *   fuzz_NAME [options] FILE...     replay each file once (regressions)
 *   fuzz_NAME [options]             fuzz
 *
 *   --seed=N        the random seed (default 1); printed, and the same seed
 *                   runs the same inputs in the same order
 *   --time=S        stop after S seconds (default 10)
 *   --runs=N        stop after N mutated inputs (0: no limit; when both are
 *                   given, whichever comes first)
 *   --corpus=PATH   seed inputs: a folder of files, or a file of seeds each
 *                   ended by a line "=====seed=====" (repeatable)
 *   --findings=DIR  where a finding's input is saved (default fuzz-findings)
 *   --hang=S        an input running longer than S seconds is a finding
 *                   (default 30)
 *   --verbose       print every input's size and whether it was kept
 *
 * Mutations: bit flips, interesting bytes, inserted and deleted bytes and
 * ranges, the target's dictionary tokens, interesting numbers (the limits
 * of i8, i32, i64 and the float types), line deletion, duplication and
 * swapping, indentation, and splicing with another corpus entry; one to
 * eight of them stacked. When the library is built with
 * -fsanitize-coverage=trace-pc, a mutated input that reaches new code
 * (edge hits, bucketed as AFL does) joins the corpus.
 */
#include "fuzz.h"
#include "swage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- sanitizer hooks (weak: absent without the sanitizers) ---------------- */

extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/* ---- coverage -------------------------------------------------------------- */

enum { COV_BITS = 16, COV_SIZE = 1 << COV_BITS };
static uint8_t cov_map[COV_SIZE];    /* this input's edge hits */
static uint8_t cov_seen[COV_SIZE];   /* bucket bits seen so far */
static volatile int cov_on;
static _Thread_local uintptr_t cov_prev;
static uintptr_t cov_base;
static bool cov_instrumented;

/* Called by -fsanitize-coverage=trace-pc code on every basic block. The
 * return address, relative to a function of this executable (so that
 * address-space randomisation changes nothing), names the block; pairs of
 * consecutive blocks are counted as edges. */
void __sanitizer_cov_trace_pc(void)
{
    cov_instrumented = true;
    if (!cov_on)
        return;
    uintptr_t pc = (uintptr_t)__builtin_return_address(0) - cov_base;
    uintptr_t cur = (uintptr_t)(((uint64_t)pc * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - COV_BITS));
    uint8_t *slot = &cov_map[(cur ^ cov_prev) & (COV_SIZE - 1)];
    if (*slot < 255)
        (*slot)++;
    cov_prev = cur >> 1;
}

void fuzz_coverage(bool on) { cov_on = on; }

static uint8_t bucket(uint8_t hits)
{
    return hits == 0 ? 0 : hits == 1 ? 1 : hits == 2 ? 2 : hits == 3 ? 4 : hits < 8 ? 8 : hits < 16 ? 16 : hits < 32 ? 32 : hits < 128 ? 64 : 128;
}

/* Folds this input's map into the seen bits; true when anything is new. */
static bool cov_merge(void)
{
    bool fresh = false;
    for (size_t i = 0; i < COV_SIZE; i++) {
        if (!cov_map[i])
            continue;
        uint8_t b = bucket(cov_map[i]);
        if (b & ~cov_seen[i]) {
            cov_seen[i] |= b;
            fresh = true;
        }
    }
    return fresh;
}

static size_t cov_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < COV_SIZE; i++)
        n += cov_seen[i] != 0;
    return n;
}

/* ---- deterministic randomness (splitmix64) ---------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* ---- the current input, the clock, the watchdog ----------------------------- */

static const uint8_t *cur_data;
static size_t cur_len;
static const char *findings_dir = "fuzz-findings";
static const char *program;
static char finding_path[4096];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The file a finding for the current input goes to (async-signal-safe:
 * no allocation). */
static void save_current(void)
{
    mkdir(findings_dir, 0777);
    uint64_t h = fnv(cur_data, cur_len, UINT64_C(1469598103934665603));
    char hex[17];
    for (int i = 15; i >= 0; i--, h >>= 4)
        hex[i] = "0123456789abcdef"[h & 15];
    hex[16] = 0;
    snprintf(finding_path, sizeof finding_path, "%s/%s-%s%s", findings_dir, fuzz_this.name, hex,
             fuzz_this.ext);
    int fd = open(finding_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t done = 0;
        while (done < cur_len) {
            ssize_t w = write(fd, cur_data + done, cur_len - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        close(fd);
    }
}

static void say_saved(void)
{
    char line[4300];
    int n = snprintf(line, sizeof line,
                     "fuzz_%s: the input is saved as %s\nfuzz_%s: replay it with: %s %s\n"
                     "fuzz_%s: once fixed, move it to fuzz/regressions/%s/ so that every test "
                     "run replays it\n",
                     fuzz_this.name, finding_path, fuzz_this.name, program, finding_path,
                     fuzz_this.name, fuzz_this.name);
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static volatile int replaying;

void fuzz_fail(const char *fmt, ...)
{
    cov_on = 0;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\nfuzz_%s: FINDING: ", fuzz_this.name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (!replaying) {
        save_current();
        say_saved();
    }
    fflush(stderr);
    exit(1);
}

static void on_death(void)
{
    if (cur_data && !replaying) {
        save_current();
        say_saved();
    }
}

static void on_signal(int sig)
{
    on_death();
    signal(sig, SIG_DFL);
    raise(sig);
}

static volatile int cancel_flag;
static volatile double run_started, deadline;
static double hang_limit = 30;

void fuzz_deadline(int ms)
{
    cancel_flag = 0;
    deadline = ms > 0 ? now() + ms / 1000.0 : 0;
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double t = now(), d = deadline, s = run_started;
        if (d > 0 && t > d)
            cancel_flag = 1;
        if (s > 0 && t - s > hang_limit) {
            fprintf(stderr, "\nfuzz_%s: FINDING: an input ran longer than %g s\n", fuzz_this.name,
                    hang_limit);
            if (!replaying) {
                save_current();
                say_saved();
            }
            _exit(1);
        }
    }
    return NULL;
}

char *fuzz_strndup(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) {
        fprintf(stderr, "fuzz: out of memory\n");
        exit(2);
    }
    memcpy(s, data, n);
    s[n] = 0;
    return s;
}

/* ---- running one input --------------------------------------------------------- */

static size_t heap_bytes(void)
{
    return __sanitizer_get_current_allocated_bytes ? __sanitizer_get_current_allocated_bytes() : 0;
}

/* Runs an input with coverage on; true when it reached new coverage. A
 * heap that grows over an input, and again when the input runs a second
 * time (so not a one-time initialisation), is a leak. */
static bool run_input(const uint8_t *data, size_t n)
{
    cur_data = data;
    cur_len = n;
    memset(cov_map, 0, sizeof cov_map);
    cov_prev = 0;
    size_t before = heap_bytes();
    cancel_flag = 0;
    run_started = now();
    cov_on = 1;
    fuzz_this.run(data, n);
    cov_on = 0;
    deadline = 0;
    size_t after = heap_bytes();
    bool fresh = cov_merge();
    if (after > before) {
        before = heap_bytes();
        fuzz_this.run(data, n);
        deadline = 0;
        after = heap_bytes();
        if (after > before)
            fuzz_fail("%zu heap bytes stay allocated after the input (a leak)", after - before);
    }
    run_started = 0;
    return fresh;
}

/* ---- the corpus ------------------------------------------------------------------ */

typedef struct entry {
    uint8_t *data;
    size_t len;
} entry;

static entry *corpus;
static size_t ncorpus, capcorpus;

static void corpus_add(const uint8_t *data, size_t n)
{
    if (ncorpus == capcorpus) {
        capcorpus = capcorpus ? capcorpus * 2 : 256;
        corpus = realloc(corpus, capcorpus * sizeof *corpus);
        if (!corpus) {
            fprintf(stderr, "fuzz: out of memory\n");
            exit(2);
        }
    }
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) {
        fprintf(stderr, "fuzz: out of memory\n");
        exit(2);
    }
    memcpy(copy, data, n);
    corpus[ncorpus++] = (entry){copy, n};
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static const char SEPARATOR[] = "=====seed=====\n";

/* A seeds file: each seed ends with a separator line. A file without one
 * is one seed. */
static void add_file(const char *path)
{
    size_t n;
    uint8_t *data = read_whole(path, &n);
    if (!data) {
        fprintf(stderr, "fuzz: cannot read %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t sep = sizeof SEPARATOR - 1, start = 0;
    bool bundle = false;
    for (size_t i = 0; i + sep <= n; i++) {
        if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, SEPARATOR, sep)) {
            corpus_add(data + start, i - start);
            start = i + sep;
            i = start - 1;
            bundle = true;
        }
    }
    if (!bundle)
        corpus_add(data, n);
    free(data);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's regular files, in name order (deterministic). */
static void add_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz: no corpus at %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    DIR *dir = opendir(path);
    if (!dir)
        return;
    char **names = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(len);
        snprintf(names[count], len, "%s/%s", path, e->d_name);
        count++;
    }
    closedir(dir);
    if (count)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            add_file(names[i]);
        free(names[i]);
    }
    free(names);
}

/* ---- mutations ------------------------------------------------------------------- */

static const char *const interesting_numbers[] = {
    "0", "1", "-1", "2", "3", "4", "7", "8", "16", "31", "32", "33", "63", "64", "65", "127",
    "128", "255", "256", "1023", "1024", "4096", "65504", "65520", "65536", "1048576",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616", "0x7fffffff", "0x80000000", "0xffffffffffffffff", "0b1", "0o17",
    "1.5", "0.0", "-0.0", "1e39", "3.4028235e38", "1e-45", "1e308", "1e400", "2.5e-324",
    "2**31", "2**63", "2**63-1", "-2**62*2", "(1 << 62)", "nan", "inf",
};

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void buf_reserve(buf *b, size_t n)
{
    if (n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < n)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p) {
        fprintf(stderr, "fuzz: out of memory\n");
        exit(2);
    }
    b->cap = cap;
}

static void buf_insert(buf *b, size_t at, const uint8_t *src, size_t n)
{
    if (at > b->n)
        at = b->n;
    if (!n || b->n + n > fuzz_this.max_len)
        return;
    buf_reserve(b, b->n + n);
    memmove(b->p + at + n, b->p + at, b->n - at);
    memcpy(b->p + at, src, n);
    b->n += n;
}

static void buf_erase(buf *b, size_t at, size_t n)
{
    if (at >= b->n)
        return;
    if (n > b->n - at)
        n = b->n - at;
    memmove(b->p + at, b->p + at + n, b->n - at - n);
    b->n -= n;
}

static bool is_word(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
}

/* [*start, *end) of the line holding byte at. */
static void line_at(const buf *b, size_t at, size_t *start, size_t *end)
{
    size_t s = at, e = at;
    while (s > 0 && b->p[s - 1] != '\n')
        s--;
    while (e < b->n && b->p[e] != '\n')
        e++;
    if (e < b->n)
        e++;
    *start = s;
    *end = e;
}

static const char *pick_token(void)
{
    size_t nd = 0;
    while (fuzz_this.dict && fuzz_this.dict[nd])
        nd++;
    size_t nn = sizeof interesting_numbers / sizeof interesting_numbers[0];
    size_t k = below(nd + nn);
    return k < nd ? fuzz_this.dict[k] : interesting_numbers[k - nd];
}

/* A random word (identifier, number, %name) of e: [*start, *end). */
static bool random_word(const uint8_t *p, size_t n, size_t *start, size_t *end)
{
    if (!n)
        return false;
    size_t s = below(n);
    while (s < n && !is_word(p[s]))
        s++;
    if (s == n)
        return false;
    while (s > 0 && is_word(p[s - 1]))
        s--;
    size_t e = s;
    while (e < n && is_word(p[e]))
        e++;
    *start = s;
    *end = e;
    return e - s <= 64;
}

static void mutate_once(buf *b)
{
    static const uint8_t special[] = {0, 0xff, 0x80, '\n', '\r', '\t', ' ', '0', '9', '(', ')', ':', ',',
                                      '"', '\'', '#', '\\', '%', '{', '}', '<', '>', '=', '-'};
    size_t at = below(b->n + 1);
    switch (below(16)) {
    case 13: case 14: { /* a word replaced by a word of this or another input */
        const entry *o = below(2) ? &corpus[below(ncorpus)] : NULL;
        size_t s1, e1, s2, e2;
        if (!random_word(b->p, b->n, &s1, &e1) ||
            !random_word(o ? o->data : b->p, o ? o->len : b->n, &s2, &e2))
            break;
        uint8_t word[64];
        memcpy(word, (o ? o->data : b->p) + s2, e2 - s2);
        buf_erase(b, s1, e1 - s1);
        buf_insert(b, s1, word, e2 - s2);
        break;
    }
    case 15: { /* an operator replaced by another */
        static const char ops[] = "+-*/%<>&|^~=!";
        for (size_t tries = 0; tries < 16 && b->n; tries++) {
            size_t i = below(b->n);
            if (memchr(ops, b->p[i], sizeof ops - 1)) {
                b->p[i] = (uint8_t)ops[below(sizeof ops - 1)];
                break;
            }
        }
        break;
    }
    case 0: /* a bit */
        if (b->n)
            b->p[below(b->n)] ^= (uint8_t)(1u << below(8));
        break;
    case 1: /* an interesting byte */
        if (b->n)
            b->p[below(b->n)] = special[below(sizeof special)];
        break;
    case 2: { /* an inserted byte */
        uint8_t c = below(4) ? (uint8_t)(32 + below(95)) : special[below(sizeof special)];
        buf_insert(b, at, &c, 1);
        break;
    }
    case 3: /* a deleted range */
        buf_erase(b, at, 1 + below(below(4) ? 4 : 64));
        break;
    case 4: { /* a duplicated range */
        if (!b->n)
            break;
        size_t from = below(b->n), len = 1 + below(32);
        if (len > b->n - from)
            len = b->n - from;
        uint8_t tmp[32];
        memcpy(tmp, b->p + from, len);
        buf_insert(b, at, tmp, len);
        break;
    }
    case 5: { /* a token inserted */
        const char *t = pick_token();
        buf_insert(b, at, (const uint8_t *)t, strlen(t));
        break;
    }
    case 6: case 7: { /* a word or number replaced by a token */
        if (!b->n)
            break;
        size_t s = below(b->n);
        while (s < b->n && !is_word(b->p[s]))
            s++;
        size_t e = s;
        while (e < b->n && is_word(b->p[e]))
            e++;
        const char *t = pick_token();
        buf_erase(b, s, e - s);
        buf_insert(b, s, (const uint8_t *)t, strlen(t));
        break;
    }
    case 8: { /* a line deleted or duplicated */
        if (!b->n)
            break;
        size_t s, e;
        line_at(b, below(b->n), &s, &e);
        if (below(2)) {
            buf_erase(b, s, e - s);
        } else if (e - s <= 512) {
            uint8_t tmp[512];
            memcpy(tmp, b->p + s, e - s);
            size_t s2, e2;
            line_at(b, below(b->n), &s2, &e2);
            buf_insert(b, s2, tmp, e - s);
        }
        break;
    }
    case 9: { /* two lines swapped (the earlier moved after the later) */
        if (!b->n)
            break;
        size_t s1, e1, s2, e2;
        line_at(b, below(b->n), &s1, &e1);
        line_at(b, below(b->n), &s2, &e2);
        if (e1 - s1 > 512 || s2 < e1)
            break;
        uint8_t tmp[512];
        size_t len = e1 - s1;
        memcpy(tmp, b->p + s1, len);
        buf_insert(b, e2, tmp, len);
        buf_erase(b, s1, len);
        break;
    }
    case 10: { /* indentation changed */
        if (!b->n)
            break;
        size_t s, e;
        line_at(b, below(b->n), &s, &e);
        if (below(2))
            buf_insert(b, s, (const uint8_t *)"    ", 4);
        else if (e - s >= 4 && !memcmp(b->p + s, "    ", 4))
            buf_erase(b, s, 4);
        break;
    }
    default: { /* spliced with another entry */
        const entry *o = &corpus[below(ncorpus)];
        if (!o->len)
            break;
        size_t from = below(o->len), len = 1 + below(o->len - from);
        if (below(2)) {
            buf_insert(b, at, o->data + from, len);
        } else {
            b->n = at;
            buf_insert(b, at, o->data + from, len);
        }
        break;
    }
    }
}

/* ---- main ---------------------------------------------------------------------- */

static bool flag_value(const char *arg, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) || arg[n] != '=')
        return false;
    *value = arg + n + 1;
    return true;
}

static void usage(void)
{
    fprintf(stderr, "usage: %s [--seed=N] [--time=S] [--runs=N] [--corpus=PATH]... "
                    "[--findings=DIR] [--hang=S] [--verbose] [FILE...]\n", program);
    exit(2);
}

int main(int argc, char **argv)
{
    program = argv[0];
    cov_base = (uintptr_t)&main;
    uint64_t seed = 1, runs = 0;
    double seconds = 10;
    bool verbose = false, time_given = false, runs_given = false;
    const char **corpora = calloc((size_t)argc + 1, sizeof *corpora);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int ncorpora = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (flag_value(argv[i], "--seed", &v))
            seed = strtoull(v, NULL, 0);
        else if (flag_value(argv[i], "--time", &v))
            seconds = strtod(v, NULL), time_given = true;
        else if (flag_value(argv[i], "--runs", &v))
            runs = strtoull(v, NULL, 0), runs_given = true;
        else if (flag_value(argv[i], "--corpus", &v))
            corpora[ncorpora++] = v;
        else if (flag_value(argv[i], "--findings", &v))
            findings_dir = v;
        else if (flag_value(argv[i], "--hang", &v))
            hang_limit = strtod(v, NULL);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (argv[i][0] == '-')
            usage();
        else
            files[nfiles++] = argv[i];
    }
    if (runs_given && !time_given)
        seconds = 0;

    if (__sanitizer_set_death_callback) {
        __sanitizer_set_death_callback(on_death);
    } else {
        signal(SIGSEGV, on_signal);
        signal(SIGBUS, on_signal);
        signal(SIGFPE, on_signal);
        signal(SIGILL, on_signal);
        signal(SIGABRT, on_signal);
    }
    swageCpuSetCancelFlag(&cancel_flag);
    pthread_t dog;
    if (pthread_create(&dog, NULL, watchdog, NULL) != 0) {
        fprintf(stderr, "fuzz: cannot start the watchdog thread\n");
        return 2;
    }
    if (fuzz_this.init)
        fuzz_this.init();

    if (nfiles) { /* replay */
        replaying = 1;
        for (int i = 0; i < nfiles; i++) {
            size_t n;
            uint8_t *data = read_whole(files[i], &n);
            if (!data) {
                fprintf(stderr, "fuzz_%s: cannot read %s\n", fuzz_this.name, files[i]);
                return 2;
            }
            fprintf(stderr, "fuzz_%s: %s\n", fuzz_this.name, files[i]);
            run_input(data, n);
            free(data);
        }
        printf("fuzz_%s: replayed %d input%s, no findings\n", fuzz_this.name, nfiles,
               nfiles == 1 ? "" : "s");
        free(corpora);
        free(files);
        return 0;
    }

    rng_state = seed;
    for (int i = 0; i < ncorpora; i++)
        add_path(corpora[i]);
    if (!ncorpus)
        corpus_add((const uint8_t *)"", 0);
    size_t nseeds = ncorpus;
    printf("fuzz_%s: seed %llu, %zu seed inputs, %s%g s%s\n", fuzz_this.name,
           (unsigned long long)seed, nseeds, runs ? "" : "for ", seconds,
           runs ? " or the runs given" : "");
    fflush(stdout);
    double start = now();
    for (size_t i = 0; i < nseeds; i++)
        run_input(corpus[i].data, corpus[i].len);
    if (!cov_instrumented)
        printf("fuzz_%s: the library is not built with -fsanitize-coverage=trace-pc: no "
               "coverage guidance (make fuzz builds it so)\n", fuzz_this.name);

    buf b = {0};
    uint64_t done = 0, digest = UINT64_C(1469598103934665603);
    double last_report = now();
    for (;;) {
        double t = now();
        if ((runs && done >= runs) || (seconds > 0 && t - start >= seconds) ||
            (!runs && seconds <= 0))
            break;
        if (t - last_report >= 15) {
            printf("fuzz_%s: %llu inputs, corpus %zu, coverage %zu edges, %.0f s\n", fuzz_this.name,
                   (unsigned long long)done, ncorpus, cov_count(), t - start);
            fflush(stdout);
            last_report = t;
        }
        const entry *e = &corpus[below(ncorpus)];
        b.n = 0;
        buf_insert(&b, 0, e->data, e->len > fuzz_this.max_len ? fuzz_this.max_len : e->len);
        int stack = 1 + (int)below(below(2) ? 2 : 8); /* mostly one or two */
        for (int k = 0; k < stack; k++)
            mutate_once(&b);
        digest = fnv(b.p, b.n, digest ^ b.n);
        bool fresh = run_input(b.p ? b.p : (const uint8_t *)"", b.n);
        if (fresh)
            corpus_add(b.p ? b.p : (const uint8_t *)"", b.n);
        if (verbose)
            printf("  %zu bytes%s\n", b.n, fresh ? ", new coverage" : "");
        done++;
    }
    if (fuzz_this.report)
        fuzz_this.report();
    printf("fuzz_%s: seed %llu: %llu inputs in %.1f s, corpus %zu -> %zu, coverage %zu edges, "
           "inputs digest %016llx, no findings\n", fuzz_this.name, (unsigned long long)seed,
           (unsigned long long)done, now() - start, nseeds, ncorpus, cov_count(),
           (unsigned long long)digest);
    free(b.p);
    for (size_t i = 0; i < ncorpus; i++)
        free(corpus[i].data);
    free(corpus);
    free(corpora);
    free(files);
    return 0;
}
