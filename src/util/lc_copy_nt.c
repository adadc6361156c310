/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_copy_nt.c — memcpy with non-temporal stores (lc_copy_nt.h).
 *
 * x86-64 only, with SSE2 (part of the base ISA, so no CPU check): the
 * destination's whole cache lines are written 16 bytes at a time with
 * MOVNTDQ, four per line, so each line fills one write-combining buffer
 * and goes to memory whole (a partial line written non-temporally costs a
 * read-modify-write in memory).  The head up to the first line boundary
 * of dst and the tail after the last one are memcpy: those lines may be
 * shared with other data (a cell's header, the next fragment), and normal
 * stores keep them coherent the usual way.  The source may have any
 * alignment (unaligned loads).
 *
 * Memory ordering: non-temporal stores are weakly ordered — a later
 * normal store (the ring cell's sequence number, a release store that on
 * x86 is a plain MOV) can become visible before them.  The SFENCE at the
 * end orders them before every later store, which is what lets the
 * caller publish with a release store as it does after memcpy.
 */
#include "util/lc_copy_nt.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && !defined(LC_COPY_NT_SCALAR) /* the latter: to test the fallback here */
#include <emmintrin.h>

void lc_copy_nt(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (n < head + 64) { /* no whole line of dst */
        memcpy(d, s, n);
        return;
    }
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    size_t lines = n / 64;
    for (size_t i = 0; i < lines; i++, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n % 64);
    /* The streamed lines before any later store (see above). */
    _mm_sfence();
}

int lc_copy_nt_native(void)
{
    return 1;
}

#else /* no non-temporal stores here: a plain copy, ordered like memcpy */

void lc_copy_nt(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

int lc_copy_nt_native(void)
{
    return 0;
}

#endif
