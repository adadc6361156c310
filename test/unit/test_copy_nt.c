/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of lc_copy_nt (src/util/lc_copy_nt.c): every alignment of
 * source and destination within a cache line, lengths around the line
 * boundaries (no whole line, exactly one, one plus a byte, many), and a
 * pipeline fragment's size: the destination holds the source's bytes and
 * not one byte before or after it changed.
 */
#include "util/lc_copy_nt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

#define GUARD 192
#define MAXLEN (64 * 1024 + 200)

static unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131 + seed * 17 + (i >> 7)) & 0xff);
}

static void one(unsigned char *dbuf, unsigned char *sbuf, size_t doff, size_t soff, size_t n, unsigned seed)
{
    unsigned char *dst = dbuf + GUARD + doff, *src = sbuf + soff;
    memset(dbuf, 0xa5, GUARD + 64 + MAXLEN + GUARD);
    for (size_t i = 0; i < n; i++) src[i] = pattern(i, seed);
    lc_copy_nt(dst, src, n);
    size_t bad_at = SIZE_MAX;
    for (size_t i = 0; i < n && bad_at == SIZE_MAX; i++)
        if (dst[i] != pattern(i, seed)) bad_at = i;
    CHECKF(bad_at == SIZE_MAX, "dst+%zu src+%zu len %zu: byte %zu differs", doff, soff, n, bad_at);
    size_t before = 0, after = 0;
    for (size_t i = 0; i < GUARD + doff; i++) before += dbuf[i] != 0xa5;
    for (unsigned char *p = dst + n; p < dbuf + GUARD + 64 + MAXLEN + GUARD; p++) after += *p != 0xa5;
    CHECKF(before == 0 && after == 0, "dst+%zu src+%zu len %zu: %zu bytes before, %zu after it written", doff, soff, n,
           before, after);
}

int main(void)
{
    /* 64-byte aligned buffers, so that doff/soff are the offsets within a
     * line (C11's aligned_alloc wants a size that is a multiple of 64). */
    unsigned char *dbuf = aligned_alloc(64, (GUARD + 64 + MAXLEN + GUARD + 63) / 64 * 64);
    unsigned char *sbuf = aligned_alloc(64, (64 + MAXLEN + 64 + 63) / 64 * 64);
    if (!dbuf || !sbuf) return 1;
    static const size_t lens[] = { 0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 1000, 4096 };
    unsigned seed = 1;
    for (size_t doff = 0; doff < 64; doff++)
        for (size_t soff = 0; soff < 64; soff += (doff % 7 == 0 ? 1 : 13))
            for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) one(dbuf, sbuf, doff, soff, lens[k], seed++);
    /* A big cell's payload (64 KiB cell minus its header and the DATA
     * prefix) at the offsets the pipeline uses, and the largest length. */
    one(dbuf, sbuf, 0, 0, 65536 - 64 - 16, seed++);
    one(dbuf, sbuf, 16, 8, 65536 - 64 - 16, seed++);
    one(dbuf, sbuf, 63, 1, MAXLEN, seed++);
    printf("lc_copy_nt: %s stores, %d failures\n", lc_copy_nt_native() ? "non-temporal" : "plain", failures);
    free(dbuf);
    free(sbuf);
    return failures != 0;
}
