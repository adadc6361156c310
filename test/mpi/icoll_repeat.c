/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icoll_repeat.c — the same nonblocking allreduce called again and again,
 * as applications do in their iteration loops, with the arguments changed
 * a little between runs of calls: the buffers' contents (same pointers),
 * the count, the operation, the datatype, in place or not, the
 * communicator (a dup freed and made again, a split of another size that
 * may get the freed one's address).  A library that reuses what it built
 * for an earlier call with equal arguments (Locus's schedule memo,
 * src/coll/lc_sched.c) must notice every change; each result is checked
 * against the blocking MPI_Allreduce of the same inputs and against the
 * value computed here.  Also two calls outstanding at once completed in
 * the reverse order, and a persistent allreduce on the same buffers in
 * between.
 */
#include "lc_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 4096

/* a o b = a: associative, not commutative; the result is the lowest
 * rank's contribution, so operand order shows. */
static void first_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static int value(int rank, int iter, int i)
{
    return (rank + 1) * 1000 + iter * 7 + i % 13;
}

/* Fill send (or recv when in place) for this rank and iteration; expected
 * result into want. */
static void fill(int *buf, int *want, int n, MPI_Op op, MPI_Op first, int rank, int size, int iter)
{
    for (int i = 0; i < n; i++) {
        buf[i] = value(rank, iter, i);
        long acc = 0;
        for (int r = 0; r < size; r++) {
            int v = value(r, iter, i);
            if (op == MPI_SUM)
                acc += v;
            else if (op == MPI_MAX)
                acc = r == 0 || v > acc ? v : acc;
            else if (op == first && r == 0)
                acc = v;
        }
        want[i] = (int)acc;
    }
}

static void one(MPI_Comm comm, int *sbuf, int *rbuf, int *bref, int *want, int n, MPI_Op op, MPI_Op first,
                bool in_place, int iter, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *src = in_place ? rbuf : sbuf;
    fill(src, want, n, op, first, rank, size, iter);
    memcpy(bref, src, (size_t)n * sizeof(int));
    MPI_Request req;
    LC_MPI(MPI_Iallreduce(in_place ? MPI_IN_PLACE : sbuf, rbuf, n, MPI_INT, op, comm, &req));
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Allreduce(MPI_IN_PLACE, bref, n, MPI_INT, op, comm));
    for (int i = 0; i < n; i++) {
        LC_CHECK(rbuf[i] == want[i], "%s iter %d n %d: [%d] = %d, expected %d", what, iter, n, i, rbuf[i], want[i]);
        LC_CHECK(rbuf[i] == bref[i], "%s iter %d n %d: [%d] = %d, blocking gave %d", what, iter, n, i, rbuf[i],
                 bref[i]);
        if (rbuf[i] != want[i] || rbuf[i] != bref[i]) break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank = lc_world_rank();
    MPI_Op first;
    LC_MPI(MPI_Op_create(first_op, 0, &first));
    int *sbuf = lc_malloc(NMAX * sizeof(int)), *rbuf = lc_malloc(NMAX * sizeof(int));
    int *bref = lc_malloc(NMAX * sizeof(int)), *want = lc_malloc(NMAX * sizeof(int));
    int *s2 = lc_malloc(NMAX * sizeof(int)), *r2 = lc_malloc(NMAX * sizeof(int));
    const int counts[] = { 1, 3, 1, NMAX, 2, NMAX };
    const MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_SUM, MPI_SUM, MPI_MAX, MPI_SUM };
    int iter = 0;

    /* Runs of three equal calls, then a change of one argument. */
    for (int v = 0; v < 6; v++)
        for (int k = 0; k < 3; k++, iter++)
            one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, counts[v], ops[v], first, false, iter, "world");
    for (int k = 0; k < 3; k++, iter++)
        one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, 5, first, first, false, iter, "user op");
    for (int k = 0; k < 3; k++, iter++)
        one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, 5, MPI_SUM, first, true, iter, "in place");
    for (int k = 0; k < 3; k++, iter++)
        one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, 5, MPI_SUM, first, false, iter, "not in place");

    /* The same pointers with another datatype of the same size. */
    for (int k = 0; k < 3; k++, iter++) {
        float *f = (float *)rbuf, *g = (float *)sbuf;
        for (int i = 0; i < 5; i++) g[i] = 0.5f * (float)(wrank + i);
        MPI_Request req;
        LC_MPI(MPI_Iallreduce(g, f, 5, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req));
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        int size = lc_world_size();
        for (int i = 0; i < 5; i++) {
            float w = 0;
            for (int r = 0; r < size; r++) w += 0.5f * (float)(r + i);
            LC_CHECK(f[i] == w, "float iter %d: [%d] = %g, expected %g", iter, i, (double)f[i], (double)w);
        }
        one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, 5, MPI_SUM, first, false, iter, "int after float");
    }

    /* Communicators made and freed between calls: a new one may sit at
     * a freed one's address, with another size or rank. */
    for (int k = 0; k < 6; k++, iter++) {
        MPI_Comm c;
        if (k % 2 == 0)
            LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        else
            LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, lc_world_size() - wrank, &c));
        for (int j = 0; j < 2; j++)
            one(c, sbuf, rbuf, bref, want, 7, MPI_SUM, first, false, iter, k % 2 ? "split" : "dup");
        LC_MPI(MPI_Comm_free(&c));
    }

    /* Two outstanding, completed in reverse order, again and again. */
    for (int k = 0; k < 4; k++, iter++) {
        int size = lc_world_size();
        for (int i = 0; i < 9; i++) {
            sbuf[i] = value(wrank, iter, i);
            s2[i] = -value(wrank, iter, i);
        }
        MPI_Request rq[2];
        LC_MPI(MPI_Iallreduce(sbuf, rbuf, 9, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
        LC_MPI(MPI_Iallreduce(s2, r2, 9, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
        LC_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        LC_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        for (int i = 0; i < 9; i++) {
            int w = 0;
            for (int r = 0; r < size; r++) w += value(r, iter, i);
            LC_CHECK(rbuf[i] == w && r2[i] == -w, "outstanding iter %d: [%d] = %d, %d, expected %d, %d", iter, i,
                     rbuf[i], r2[i], w, -w);
        }
    }

    /* A persistent allreduce on the same buffers between nonblocking ones. */
    MPI_Request preq;
    LC_MPI(MPI_Allreduce_init(sbuf, rbuf, 11, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &preq));
    for (int k = 0; k < 4; k++, iter++) {
        one(MPI_COMM_WORLD, sbuf, rbuf, bref, want, 11, MPI_SUM, first, false, iter, "before persistent");
        fill(sbuf, want, 11, MPI_SUM, first, wrank, lc_world_size(), iter + 1000);
        LC_MPI(MPI_Start(&preq));
        LC_MPI(MPI_Wait(&preq, MPI_STATUS_IGNORE));
        for (int i = 0; i < 11; i++)
            LC_CHECK(rbuf[i] == want[i], "persistent iter %d: [%d] = %d, expected %d", iter, i, rbuf[i], want[i]);
    }
    LC_MPI(MPI_Request_free(&preq));

    LC_MPI(MPI_Op_free(&first));
    free(sbuf);
    free(rbuf);
    free(bref);
    free(want);
    free(s2);
    free(r2);
    return lc_finish();
}
