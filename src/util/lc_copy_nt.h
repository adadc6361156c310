/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_copy_nt.h — a copy whose stores bypass the writer's cache (issue 13).
 *
 * For the pipeline's big cells: a fragment the sender writes with normal
 * stores sits dirty in the sender's cache, and the receiver's copy-out
 * fetches every line of it from there.  Where the two cores share no
 * cache that is a cross-cache transfer per line, latency-bound
 * (docs/performance.md, "Non-temporal big cells").  Written with
 * non-temporal stores the lines go to memory instead and the receiver
 * reads clean lines, as a CMA pull does.  Where the cores share a cache
 * it is slower (the lines leave the shared cache), so callers choose.
 */
#ifndef LC_COPY_NT_H
#define LC_COPY_NT_H

#include <stddef.h>

/* Copy n bytes from src to dst (not overlapping), the whole 64-byte lines
 * of dst with non-temporal stores, the partial lines at either end with
 * memcpy.  Ordering: on return every store of the copy is ordered before
 * any later store of this thread (the routine ends with a store fence),
 * so a release store that publishes dst afterwards is enough for a
 * reader that acquires it.  Without non-temporal stores (not x86-64, or
 * n too small to hold a whole line) it is memcpy. */
void lc_copy_nt(void *dst, const void *src, size_t n);

/* 1 when lc_copy_nt has non-temporal stores on this build, else 0. */
int lc_copy_nt_native(void);

#endif /* LC_COPY_NT_H */
