/* SPDX-License-Identifier: BSD-3-Clause */
/* dt_sendpath: the send side of derived-datatype messages — the paths a
 * send takes without packing the whole message first (on Locus: packed
 * straight into shm cells, or pulled by the receiver through the sender's
 * block list with CMA; run with LOCUS_CMA_THRESHOLD=0 and large).
 *
 * Rank 0 sends, rank 1 receives, each message checked against a pattern:
 *  - a vector of large blocks with more blocks than one batch of the
 *    block list (600 x 1 KiB), into a contiguous receive, into a vector of
 *    another block size (768 B), and into the same vector;
 *  - a vector of blocks large enough to be read straight into (24 x
 *    40000 B: over the network fi_readv into the receive's segments, a
 *    128 KiB read ending inside a block), to and from contiguous;
 *  - a vector of small blocks (64 B at 128 B) and a struct of mixed block
 *    sizes, at eager and rendezvous sizes;
 *  - an MPI_BOTTOM-based struct over two separate allocations;
 *  - 0-byte messages (count 0, and an empty type) and a one-block type;
 *  - the sender frees its type handle right after MPI_Isend, then waits;
 *  - Isend, Wait, rewrite the buffer, send again: the second message
 *    carries the new data;
 *  - Ssend of every layout;
 *  - a typed rendezvous into a receive that is too small: MPI_ERR_TRUNCATE
 *    at the receiver, and the sender completes.
 */
#include "lc_test.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, msgno;

static void fill(unsigned char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 7 + (size_t)seed * 13 + (i >> 9));
}

/* What count items of t at buf select, in typemap order (MPI_Pack). */
static unsigned char *packed(const void *buf, int count, MPI_Datatype t, int *bytes)
{
    int sz;
    LC_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &sz));
    unsigned char *p = lc_malloc((size_t)sz + 1);
    int pos = 0;
    LC_MPI(MPI_Pack(buf, count, t, p, sz, &pos, MPI_COMM_WORLD));
    *bytes = pos;
    return p;
}

/* The memory count items of t span from buf (lb 0 types only). */
static size_t span(MPI_Datatype t, int count)
{
    MPI_Aint lb, extent, tlb, textent;
    LC_MPI(MPI_Type_get_extent(t, &lb, &extent));
    LC_MPI(MPI_Type_get_true_extent(t, &tlb, &textent));
    MPI_Aint n = count ? tlb + (MPI_Aint)(count - 1) * extent + textent : 0;
    return n > 0 ? (size_t)n : 1;
}

/* One message: st x sc from rank 0, rt x rc at rank 1 (same signature);
 * mode 0 Send, 1 Ssend, 2 Isend + free the type + Wait.  Rank 1 compares
 * the packed form of what it received with the packed form of what was
 * sent, and that nothing outside its type was written. */
static void exchange(const char *what, MPI_Datatype st, int sc, MPI_Datatype rt, int rc, int mode)
{
    int tag = ++msgno;
    if (rank == 0) {
        size_t n = span(st, sc);
        unsigned char *s = lc_malloc(n);
        fill(s, n, tag);
        MPI_Datatype t = st;
        if (mode == 2) {
            LC_MPI(MPI_Type_dup(st, &t));
            LC_MPI(MPI_Type_commit(&t));
        }
        if (mode == 0) LC_MPI(MPI_Send(s, sc, t, 1, tag, MPI_COMM_WORLD));
        else if (mode == 1) LC_MPI(MPI_Ssend(s, sc, t, 1, tag, MPI_COMM_WORLD));
        else {
            MPI_Request r;
            LC_MPI(MPI_Isend(s, sc, t, 1, tag, MPI_COMM_WORLD, &r));
            LC_MPI(MPI_Type_free(&t)); /* the send keeps what it needs */
            LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        free(s);
        return;
    }
    size_t sn = span(st, sc), rn = span(rt, rc);
    unsigned char *s = lc_malloc(sn), *r = lc_malloc(rn), *blank = lc_malloc(rn);
    fill(s, sn, tag);
    memset(r, 0xee, rn);
    memset(blank, 0xee, rn);
    MPI_Status status;
    LC_MPI(MPI_Recv(r, rc, rt, 0, tag, MPI_COMM_WORLD, &status));
    int sb, rb, cnt;
    unsigned char *want = packed(s, sc, st, &sb), *got = packed(r, rc, rt, &rb);
    LC_CHECK(sb == rb && memcmp(want, got, (size_t)sb) == 0, "%s (mode %d): %d bytes arrived wrong", what, mode, sb);
    LC_MPI(MPI_Get_count(&status, MPI_BYTE, &cnt));
    LC_CHECK(cnt == sb, "%s: MPI_Get_count says %d bytes, %d were sent", what, cnt, sb);
    /* nothing outside the receive type: unpack the blank's packed form
     * over a copy of what arrived must change nothing */
    unsigned char *again = lc_malloc(rn);
    memcpy(again, blank, rn);
    int pos = 0;
    LC_MPI(MPI_Unpack(got, rb, &pos, again, rc, rt, MPI_COMM_WORLD));
    LC_CHECK(memcmp(again, r, rn) == 0, "%s: bytes outside the receive type were written", what);
    free(s), free(r), free(blank), free(want), free(got), free(again);
}

/* Isend, Wait, new data in the same buffer, Isend again. */
static void reuse_after_wait(MPI_Datatype t, int count)
{
    size_t n = span(t, count);
    unsigned char *b = lc_malloc(n);
    int tag = ++msgno;
    if (rank == 0) {
        for (int round = 0; round < 2; round++) {
            MPI_Request r;
            fill(b, n, tag + round);
            LC_MPI(MPI_Isend(b, count, t, 1, tag, MPI_COMM_WORLD, &r));
            LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    } else {
        unsigned char *e = lc_malloc(n);
        for (int round = 0; round < 2; round++) {
            memset(b, 0, n);
            LC_MPI(MPI_Recv(b, count, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            fill(e, n, tag + round);
            int x, y;
            unsigned char *pb = packed(b, count, t, &x), *pe = packed(e, count, t, &y);
            LC_CHECK(x == y && memcmp(pb, pe, (size_t)x) == 0, "buffer reuse: message %d carries stale data", round);
            free(pb), free(pe);
        }
        free(e);
    }
    free(b);
}

/* Two separate allocations described by absolute addresses. */
static void bottom_struct(size_t len, int mode)
{
    int tag = ++msgno;
    unsigned char *a = lc_malloc(len), *b = lc_malloc(len / 2);
    memset(a, 0, len);
    memset(b, 0, len / 2);
    MPI_Aint d[2];
    int bl[2] = { (int)(len / 2), (int)len };
    MPI_Datatype bt[2] = { MPI_BYTE, MPI_BYTE }, t;
    LC_MPI(MPI_Get_address(b, &d[0])); /* b first: packed order is not address order */
    LC_MPI(MPI_Get_address(a, &d[1]));
    LC_MPI(MPI_Type_create_struct(2, bl, d, bt, &t));
    LC_MPI(MPI_Type_commit(&t));
    if (rank == 0) {
        fill(a, len, tag);
        fill(b, len / 2, tag + 1);
        if (mode) LC_MPI(MPI_Ssend(MPI_BOTTOM, 1, t, 1, tag, MPI_COMM_WORLD));
        else LC_MPI(MPI_Send(MPI_BOTTOM, 1, t, 1, tag, MPI_COMM_WORLD));
    } else {
        LC_MPI(MPI_Recv(MPI_BOTTOM, 1, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        unsigned char *ea = lc_malloc(len), *eb = lc_malloc(len / 2);
        fill(ea, len, tag);
        fill(eb, len / 2, tag + 1);
        LC_CHECK(memcmp(a, ea, len) == 0 && memcmp(b, eb, len / 2) == 0, "MPI_BOTTOM struct of %zu bytes arrived wrong",
                 len + len / 2);
        free(ea), free(eb);
    }
    LC_MPI(MPI_Type_free(&t));
    free(a), free(b);
}

static void truncated(MPI_Datatype t, int count)
{
    int tag = ++msgno;
    size_t n = span(t, count);
    unsigned char *b = lc_malloc(n);
    fill(b, n, tag);
    if (rank == 0) {
        LC_MPI(MPI_Send(b, count, t, 1, tag, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        int rc = MPI_Recv(b, count - 1, t, 0, tag, MPI_COMM_WORLD, &st);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_TRUNCATE, "a too-small typed receive returned %s, not MPI_ERR_TRUNCATE",
                 lc_err_str(rc));
    }
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) LC_FATAL("dt_sendpath needs 2 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Datatype big, big768, small, mixed, empty, one, contig, wide;
    LC_MPI(MPI_Type_vector(600, 1024, 2048, MPI_BYTE, &big));        /* 600 blocks: > one list batch */
    LC_MPI(MPI_Type_vector(800, 768, 1000, MPI_BYTE, &big768));      /* same 614400 bytes, other blocks */
    LC_MPI(MPI_Type_vector(8192, 64, 128, MPI_BYTE, &small));        /* 512 KiB of 64 B blocks */
    int mbl[3] = { 3, 700, 1 };
    MPI_Aint md[3] = { 0, 64, 8000 };
    MPI_Datatype mt[3] = { MPI_INT, MPI_BYTE, MPI_DOUBLE };
    LC_MPI(MPI_Type_create_struct(3, mbl, md, mt, &mixed));          /* 720 bytes in 3 blocks, extent 8008 */
    LC_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    int obl = 4096;
    MPI_Aint od = 24;
    LC_MPI(MPI_Type_create_hindexed(1, &obl, &od, MPI_BYTE, &one));   /* one block, not at the origin */
    LC_MPI(MPI_Type_contiguous(614400, MPI_BYTE, &contig));
    LC_MPI(MPI_Type_vector(24, 40000, 50000, MPI_BYTE, &wide));      /* 960000 bytes in large blocks */
    MPI_Datatype all[] = { big, big768, small, mixed, empty, one, contig, wide };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) LC_MPI(MPI_Type_commit(&all[i]));
    big = all[0], big768 = all[1], small = all[2], mixed = all[3], empty = all[4], one = all[5], contig = all[6];
    wide = all[7];

    for (int mode = 0; mode < 3; mode++) {
        exchange("600 x 1 KiB -> contiguous", big, 1, MPI_BYTE, 614400, mode);
        exchange("600 x 1 KiB -> 800 x 768 B", big, 1, big768, 1, mode);
        exchange("600 x 1 KiB -> same", big, 1, big, 1, mode);
        exchange("3 x 600 x 1 KiB -> same", big, 3, big, 3, mode);
        exchange("contiguous -> 600 x 1 KiB", contig, 1, big, 1, mode);
        exchange("24 x 40000 B -> same", wide, 1, wide, 1, mode);
        exchange("contiguous -> 24 x 40000 B", MPI_BYTE, 960000, wide, 1, mode);
        exchange("24 x 40000 B -> contiguous", wide, 1, MPI_BYTE, 960000, mode);
        exchange("64 B / 128 B 512 KiB", small, 1, small, 1, mode);
        exchange("64 B / 128 B 512 KiB -> contiguous", small, 1, MPI_BYTE, 512 * 1024, mode);
        exchange("struct x 1 (eager)", mixed, 1, mixed, 1, mode);
        exchange("struct x 12 (pool)", mixed, 12, mixed, 12, mode);
        exchange("struct x 1500 (rendezvous)", mixed, 1500, mixed, 1500, mode);
        exchange("count 0", big, 0, big, 0, mode);
        exchange("empty type", empty, 5, empty, 5, mode);
        exchange("one block", one, 1, one, 1, mode);
        exchange("one block x 300", one, 300, MPI_BYTE, 300 * 4096, mode);
        bottom_struct(300000, mode == 1);
        bottom_struct(100, mode == 1);
    }
    reuse_after_wait(big, 2);
    reuse_after_wait(small, 1);
    reuse_after_wait(mixed, 3);
    truncated(big, 3);
    truncated(small, 2);
    /* the connection still works after the truncation */
    exchange("after truncation", big, 1, big, 1, 0);
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) LC_MPI(MPI_Type_free(&all[i]));
    return lc_finish();
}
