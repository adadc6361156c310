/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_unit_check.h - the one way unit tests count failed checks.
 *
 *   CHECK(cond)            report "FAILED: cond (file:line)" and count it
 *   CHECKF(cond, fmt, ...) the same with a printf-style message instead
 *
 * A test's main returns non-zero when `failures` is not 0.  One header
 * per test program (the counter is static). */
#ifndef LC_UNIT_CHECK_H
#define LC_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAILED: %s (%s:%d)\n", #cond, __FILE__, __LINE__);  \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define CHECKF(cond, ...)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#endif /* LC_UNIT_CHECK_H */
