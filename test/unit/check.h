/* check.h - the C unit tests' CHECK(cond, fmt, ...): counts a pass, or
 * counts a failure and prints file, line and the message. Each test
 * reports "N passed, N failed" from `passed` and `failed`. */
#ifndef SWAGE_TEST_CHECK_H
#define SWAGE_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                        \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
        }                                                                      \
    } while (0)

#endif
