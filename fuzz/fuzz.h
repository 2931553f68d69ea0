/* fuzz.h - what a fuzz target gives the fuzzing driver (fuzz/driver.c).
 *
 * A target is one C file, fuzz/fuzz_NAME.c, that defines `fuzz_this`: its
 * name, the extension of its input files, a dictionary of tokens that the
 * mutations insert, and `run`, which feeds one input to the library and
 * checks what comes back. The driver (see docs/testing.md) replays files,
 * or mutates a seed corpus for a bounded time or number of runs,
 * deterministically for a seed; coverage of the library guides it when the
 * library is built with -fsanitize-coverage=trace-pc (make fuzz).
 *
 * A finding is anything `run` calls fuzz_fail for (an internal error, IR
 * that does not print back the same), a sanitizer report, a crash, a leak
 * (heap bytes that stay after an input, measured under AddressSanitizer)
 * or an input that runs longer than the hang limit: the driver saves the
 * input in the findings folder, prints how to replay it, and exits 1.
 */
#ifndef SWAGE_FUZZ_H
#define SWAGE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_target {
    const char *name;                 /* "kernel": the binary is fuzz_kernel */
    const char *ext;                  /* of saved inputs: ".py" */
    size_t max_len;                   /* mutations keep inputs at most this long */
    const char *const *dict;          /* NULL-terminated tokens for the mutations */
    void (*init)(void);               /* once, before the first input (may be NULL) */
    void (*run)(const uint8_t *data, size_t n); /* one input (not NUL-terminated) */
    void (*report)(void);             /* prints what the inputs reached (may be NULL) */
} fuzz_target;

extern const fuzz_target fuzz_this;

/* Reports a finding for the current input and ends the process (exit 1). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Turns coverage collection off around work whose path depends on time
 * (CPU launches under a deadline), so that the inputs a seed runs stay the
 * same from run to run. */
void fuzz_coverage(bool on);

/* CPU launches of this thread after this call stop with
 * SWAGE_ERROR_INTERRUPTED once `ms` milliseconds have passed (0: no limit):
 * a kernel may legitimately loop for a long time on the CPU. */
void fuzz_deadline(int ms);

/* A C string copy of data[0, n) (malloc'd; NUL bytes in data stay, so the
 * string may look shorter). */
char *fuzz_strndup(const uint8_t *data, size_t n);

#endif
