/* SPDX-License-Identifier: BSD-3-Clause */
/* A realloc that fails on demand, for tests of the library's paths when
 * memory runs out (rma_track_nomem, rma_target_nomem): set fail_realloc
 * and every realloc of a nonzero size returns NULL.  Interposed over
 * libc's by symbol, so the library's own reallocs fail too.  The test
 * defines _GNU_SOURCE (RTLD_NEXT) before its first include. */
#ifndef LC_TEST_REALLOC_H
#define LC_TEST_REALLOC_H

#include <dlfcn.h>
#include <stddef.h>

static volatile int fail_realloc;

void *realloc(void *p, size_t n)
{
    static void *(*next)(void *, size_t);
    if (!next) next = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    if (fail_realloc && n > 0) return NULL;
    return next(p, n);
}

#endif
