/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_rooted_stream: thousands of back-to-back rooted collectives with
 * nothing in between — MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce
 * (MPI_SUM, and a non-commutative user operation), MPI_Scatterv,
 * MPI_Gatherv — with the root, the size (1 int to past 4 KiB, so the
 * short-message and long-message algorithms alternate) and the
 * communicator (world, world reversed) changing call by call, and
 * stretches of the nonblocking forms (MPI_Ibcast ... MPI_Ireduce, each
 * completed at once).  A root that returns as soon as its sends are
 * queued runs ahead of the others by many calls; every value every rank
 * receives is checked, so a message matched to the wrong call, root or
 * communicator shows.
 * Argument "quick": a third of the calls (8 oversubscribed ranks). */
#include "lc_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_BCAST, K_SCATTER, K_GATHER, K_REDUCE_SUM, K_REDUCE_AFFINE, K_SCATTERV, K_GATHERV, K_COUNT };
static const char *const knames[K_COUNT] = { "MPI_Bcast",          "MPI_Scatter",  "MPI_Gather", "MPI_Reduce(SUM)",
                                             "MPI_Reduce(affine)", "MPI_Scatterv", "MPI_Gatherv" };
/* ints per rank (per block); 1024 ints = 4 KiB, 1500 ints is past it */
static const int sizes[] = { 1, 2, 16, 100, 1024, 1500, 3 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* The value rank `who` contributes at position j of call `it`. */
static int32_t val(int who, int it, long j)
{
    return lc_pattern(who, it, j);
}

/* Affine maps x -> a x + b over unsigned 32-bit integers; (u op v)(x) =
 * u(v(x)) is associative and not commutative, so a reduction that
 * combines operands out of rank order gets a different result. */
typedef struct {
    uint32_t a, b;
} affine_t;
static affine_t compose(affine_t u, affine_t v)
{
    return (affine_t){ u.a * v.a, u.a * v.b + u.b };
}
static affine_t aff_of(int who, int it, long j)
{
    uint32_t x = (uint32_t)val(who, it, j);
    return (affine_t){ x | 1u, x >> 3 };
}
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    affine_t *u = in, *v = inout;
    for (int i = 0; i < *len; i++) v[i] = compose(u[i], v[i]); /* inout = in op inout */
}

/* The blocking call, or (nb) the nonblocking one completed at once. */
#define COLL(blocking, nonblocking)                                                                                    \
    do {                                                                                                               \
        if (nb) {                                                                                                      \
            LC_MPI(nonblocking);                                                                                       \
            LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                                                  \
        } else {                                                                                                       \
            LC_MPI(blocking);                                                                                          \
        }                                                                                                              \
    } while (0)

/* ints rank r sends/receives in a v-call of base size n */
static int vcount(int n, int r)
{
    return (n + r) % 7 == 0 ? 0 : n + r % 3;
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    int iters = quick ? 700 : 2100;
    int wr, np;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
    MPI_Comm comms[2] = { MPI_COMM_WORLD, MPI_COMM_NULL };
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, np - wr, &comms[1])); /* reversed */
    MPI_Datatype aff_t;
    MPI_Op aff_op;
    LC_MPI(MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_t));
    LC_MPI(MPI_Type_commit(&aff_t));
    LC_MPI(MPI_Op_create(affine_op, 0, &aff_op));

    size_t maxn = 1500 + 8;
    int32_t *sbuf = lc_malloc(maxn * (size_t)np * sizeof(int32_t) * 2);
    int32_t *rbuf = lc_malloc(maxn * (size_t)np * sizeof(int32_t) * 2);
    int *counts = lc_malloc((size_t)np * sizeof(int)), *displs = lc_malloc((size_t)np * sizeof(int));
    const int32_t poison = (int32_t)0xDEADBEEF;

    for (int it = 0; it < iters; it++) {
        int kind = it % K_COUNT, n = sizes[(it / K_COUNT) % NSIZES];
        MPI_Comm comm = comms[(it / 5) % 2];
        int me, root;
        LC_MPI(MPI_Comm_rank(comm, &me));
        root = (int)(((unsigned)it * 2654435761u) >> 7) % np;
        int bad = 0, nb = (it / 49) % 3 == 2; /* every third stretch nonblocking */
        long first = -1;
        MPI_Request rq;
        switch (kind) {
        case K_BCAST:
            for (long j = 0; j < n; j++) sbuf[j] = me == root ? val(root, it, j) : poison;
            COLL(MPI_Bcast(sbuf, n, MPI_INT32_T, root, comm), MPI_Ibcast(sbuf, n, MPI_INT32_T, root, comm, &rq));
            for (long j = 0; j < n; j++)
                if (sbuf[j] != val(root, it, j) && !bad++) first = j;
            break;
        case K_SCATTER:
            if (me == root)
                for (int r = 0; r < np; r++)
                    for (long j = 0; j < n; j++) sbuf[(long)r * n + j] = val(r, it, j);
            for (long j = 0; j < n + 1; j++) rbuf[j] = poison;
            COLL(MPI_Scatter(sbuf, n, MPI_INT32_T, rbuf, n, MPI_INT32_T, root, comm),
                 MPI_Iscatter(sbuf, n, MPI_INT32_T, rbuf, n, MPI_INT32_T, root, comm, &rq));
            for (long j = 0; j < n; j++)
                if (rbuf[j] != val(me, it, j) && !bad++) first = j;
            if (rbuf[n] != poison && !bad++) first = n;
            break;
        case K_GATHER:
            for (long j = 0; j < n; j++) sbuf[j] = val(me, it, j);
            for (long j = 0; j < (long)n * np; j++) rbuf[j] = poison;
            COLL(MPI_Gather(sbuf, n, MPI_INT32_T, rbuf, n, MPI_INT32_T, root, comm),
                 MPI_Igather(sbuf, n, MPI_INT32_T, rbuf, n, MPI_INT32_T, root, comm, &rq));
            if (me == root)
                for (int r = 0; r < np; r++)
                    for (long j = 0; j < n; j++)
                        if (rbuf[(long)r * n + j] != val(r, it, j) && !bad++) first = (long)r * n + j;
            break;
        case K_REDUCE_SUM:
            for (long j = 0; j < n; j++) {
                sbuf[j] = val(me, it, j) & 0xFFFF;
                rbuf[j] = poison;
            }
            COLL(MPI_Reduce(sbuf, rbuf, n, MPI_INT32_T, MPI_SUM, root, comm),
                 MPI_Ireduce(sbuf, rbuf, n, MPI_INT32_T, MPI_SUM, root, comm, &rq));
            if (me == root)
                for (long j = 0; j < n; j++) {
                    int32_t want = 0;
                    for (int r = 0; r < np; r++) want += val(r, it, j) & 0xFFFF;
                    if (rbuf[j] != want && !bad++) first = j;
                }
            break;
        case K_REDUCE_AFFINE: {
            affine_t *s = (affine_t *)sbuf, *d = (affine_t *)rbuf;
            for (long j = 0; j < n; j++) {
                s[j] = aff_of(me, it, j);
                d[j] = (affine_t){ 0, 0 };
            }
            COLL(MPI_Reduce(s, d, n, aff_t, aff_op, root, comm), MPI_Ireduce(s, d, n, aff_t, aff_op, root, comm, &rq));
            if (me == root)
                for (long j = 0; j < n; j++) {
                    affine_t want = aff_of(np - 1, it, j); /* x0 op x1 op ... op x(p-1) */
                    for (int r = np - 2; r >= 0; r--) want = compose(aff_of(r, it, j), want);
                    if ((d[j].a != want.a || d[j].b != want.b) && !bad++) first = j;
                }
            break;
        }
        case K_SCATTERV: {
            /* blocks laid out in reverse rank order, one int of gap */
            long at = 0;
            for (int r = np - 1; r >= 0; r--) {
                counts[r] = vcount(n, r);
                displs[r] = (int)at;
                at += counts[r] + 1;
            }
            if (me == root)
                for (int r = 0; r < np; r++)
                    for (long j = 0; j < counts[r]; j++) sbuf[displs[r] + j] = val(r, it, j);
            int mine = counts[me];
            for (long j = 0; j < mine + 1; j++) rbuf[j] = poison;
            LC_MPI(MPI_Scatterv(sbuf, counts, displs, MPI_INT32_T, rbuf, mine, MPI_INT32_T, root, comm));
            for (long j = 0; j < mine; j++)
                if (rbuf[j] != val(me, it, j) && !bad++) first = j;
            if (rbuf[mine] != poison && !bad++) first = mine;
            break;
        }
        case K_GATHERV: {
            long at = 0;
            for (int r = np - 1; r >= 0; r--) {
                counts[r] = vcount(n, r);
                displs[r] = (int)at;
                at += counts[r] + 1;
            }
            for (long j = 0; j < counts[me]; j++) sbuf[j] = val(me, it, j);
            for (long j = 0; j < at; j++) rbuf[j] = poison;
            LC_MPI(MPI_Gatherv(sbuf, counts[me], MPI_INT32_T, rbuf, counts, displs, MPI_INT32_T, root, comm));
            if (me == root)
                for (int r = 0; r < np; r++) {
                    for (long j = 0; j < counts[r]; j++)
                        if (rbuf[displs[r] + j] != val(r, it, j) && !bad++) first = displs[r] + j;
                    if (rbuf[displs[r] + counts[r]] != poison && !bad++) first = displs[r] + counts[r];
                }
            break;
        }
        }
        LC_CHECK(bad == 0, "call %d: %s%s of %d ints from root %d on %s: %d wrong values at rank %d, first at %ld", it,
                 nb && kind < K_SCATTERV ? "nonblocking " : "", knames[kind], n, root,
                 comm == MPI_COMM_WORLD ? "world" : "reversed world", bad, me, first);
    }

    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    LC_MPI(MPI_Op_free(&aff_op));
    LC_MPI(MPI_Type_free(&aff_t));
    LC_MPI(MPI_Comm_free(&comms[1]));
    return lc_finish();
}
