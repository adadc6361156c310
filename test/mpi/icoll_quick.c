/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icoll_quick.c — a call repeated with the arguments of an earlier,
 * successful one must still be checked where what the checks read is not
 * in those arguments, and must not trust a handle that now names another
 * object.  Locus restarts a repeated MPI_Ibarrier / Ibcast / Ireduce /
 * Iallreduce before any check (the quick restart, src/mpi/lc_mpi_icoll.c);
 * here each such call first runs a few times with the same arguments,
 * then comes back:
 * - with a NULL request pointer (an error, nothing started);
 * - on a communicator handle freed since (an error);
 * - with send and receive buffers aliased (an error, every time);
 * - with a derived datatype freed and another made at the same handle
 *   (where the library reuses it) with other contents: the result
 *   follows the new type;
 * - with a user operation freed and another made: the result follows it;
 * - through the large-count twin (_c) of the same call.
 * Errors return (MPI_ERRORS_RETURN on MPI_COMM_WORLD); after each failed
 * call every rank still agrees on the order of collectives.
 */
#include "lc_test.h"

#define N 8

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void op_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}

static int sb[N], rb[N], buf[N];

/* The four calls with fixed arguments, each checked. */
static void round_of_four(MPI_Comm comm, int rank, int p, int it)
{
    MPI_Request r;
    for (int i = 0; i < N; i++) {
        sb[i] = rank + i + it;
        rb[i] = -1;
        buf[i] = rank == 0 ? it * 100 + i : -1;
    }
    LC_MPI(MPI_Iallreduce(sb, rb, N, MPI_INT, MPI_SUM, comm, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        LC_CHECK(rb[i] == p * (i + it) + p * (p - 1) / 2, "it %d: allreduce[%d] = %d", it, i, rb[i]);
    LC_MPI(MPI_Ibcast(buf, N, MPI_INT, 0, comm, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) LC_CHECK(buf[i] == it * 100 + i, "it %d: bcast[%d] = %d", it, i, buf[i]);
    for (int i = 0; i < N; i++) rb[i] = -1;
    LC_MPI(MPI_Ireduce(sb, rb, N, MPI_INT, MPI_MAX, 0, comm, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (rank == 0)
        for (int i = 0; i < N; i++) LC_CHECK(rb[i] == p - 1 + i + it, "it %d: reduce[%d] = %d", it, i, rb[i]);
    LC_MPI(MPI_Ibarrier(comm, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Request r;

    for (int it = 0; it < 3; it++) round_of_four(MPI_COMM_WORLD, rank, p, it);

    /* A NULL request pointer: nowhere to put the handle. */
    LC_CHECK(MPI_Iallreduce(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) != MPI_SUCCESS,
             "Iallreduce with a NULL request succeeded");
    LC_CHECK(MPI_Ibcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD, NULL) != MPI_SUCCESS,
             "Ibcast with a NULL request succeeded");
    LC_CHECK(MPI_Ireduce(sb, rb, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, NULL) != MPI_SUCCESS,
             "Ireduce with a NULL request succeeded");
    LC_CHECK(MPI_Ibarrier(MPI_COMM_WORLD, NULL) != MPI_SUCCESS, "Ibarrier with a NULL request succeeded");
    round_of_four(MPI_COMM_WORLD, rank, p, 3); /* nothing was started: the ranks still agree */

    /* Send and receive buffers aliased without MPI_IN_PLACE: an error
     * every time, also right after the same call with apart buffers. */
    for (int k = 0; k < 2; k++) {
        LC_CHECK(MPI_Iallreduce(rb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r) != MPI_SUCCESS,
                 "Iallreduce with aliased buffers succeeded (%d)", k);
        round_of_four(MPI_COMM_WORLD, rank, p, 4 + k);
    }

    /* A communicator freed since the calls on it. */
    MPI_Comm dup, gone;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int it = 0; it < 3; it++) round_of_four(dup, rank, p, 10 + it);
    gone = dup;
    LC_MPI(MPI_Comm_free(&dup));
    LC_CHECK(MPI_Iallreduce(sb, rb, N, MPI_INT, MPI_SUM, gone, &r) != MPI_SUCCESS,
             "Iallreduce on a freed communicator succeeded");
    LC_CHECK(MPI_Ibarrier(gone, &r) != MPI_SUCCESS, "Ibarrier on a freed communicator succeeded");

    /* A derived datatype freed, another made: 2 x (2 contiguous ints),
     * then 2 x (ints 0 and 2 of 3). */
    MPI_Datatype t;
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    LC_MPI(MPI_Type_commit(&t));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < N; i++) buf[i] = rank == 0 ? 500 + it * 10 + i : -1;
        LC_MPI(MPI_Ibcast(buf, 2, t, 0, MPI_COMM_WORLD, &r));
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            int want = rank == 0 || i < 4 ? 500 + it * 10 + i : -1;
            LC_CHECK(buf[i] == want, "bcast of contiguous pairs, it %d: [%d] = %d, want %d", it, i, buf[i], want);
        }
    }
    /* The new type at the freed one's handle where the library ever
     * gives it out again (Locus: after its slot's generation wrapped,
     * some 66,000 types later; MPICH: at once), else anywhere. */
    MPI_Datatype old = t;
    LC_MPI(MPI_Type_free(&t));
    for (int tries = 0;; tries++) {
        LC_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t)); /* extent: 3 ints */
        if (t == old || tries == 200000) break;
        LC_MPI(MPI_Type_free(&t));
    }
    LC_MPI(MPI_Type_commit(&t));
    for (int i = 0; i < N; i++) buf[i] = rank == 0 ? 600 + i : -1;
    LC_MPI(MPI_Ibcast(buf, 2, t, 0, MPI_COMM_WORLD, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        int want = rank == 0 || i == 0 || i == 2 || i == 3 || i == 5 ? 600 + i : -1;
        LC_CHECK(buf[i] == want, "bcast of strided pairs: [%d] = %d, want %d", i, buf[i], want);
    }
    LC_MPI(MPI_Type_free(&t));

    /* A user operation freed, another made. */
    MPI_Op op;
    LC_MPI(MPI_Op_create(op_sum, 1, &op));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < N; i++) sb[i] = rank + i + it;
        LC_MPI(MPI_Iallreduce(sb, rb, N, MPI_INT, op, MPI_COMM_WORLD, &r));
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            LC_CHECK(rb[i] == p * (i + it) + p * (p - 1) / 2, "user sum, it %d: [%d] = %d", it, i, rb[i]);
    }
    LC_MPI(MPI_Op_free(&op));
    LC_MPI(MPI_Op_create(op_max, 1, &op));
    LC_MPI(MPI_Iallreduce(sb, rb, N, MPI_INT, op, MPI_COMM_WORLD, &r));
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) LC_CHECK(rb[i] == p - 1 + i + 2, "user max: [%d] = %d", i, rb[i]);
    LC_MPI(MPI_Op_free(&op));

    /* The large-count twin with the same arguments, in turn with the
     * int form. */
    for (int it = 0; it < 4; it++) {
        for (int i = 0; i < N; i++) {
            sb[i] = rank + i + it;
            buf[i] = rank == 0 ? it * 100 + i : -1;
        }
        if (it % 2) {
            LC_MPI(MPI_Iallreduce_c(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        } else {
            LC_MPI(MPI_Iallreduce(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        }
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            LC_CHECK(rb[i] == p * (i + it) + p * (p - 1) / 2, "_c it %d: allreduce[%d] = %d", it, i, rb[i]);
        if (it % 2) {
            LC_MPI(MPI_Ibcast_c(buf, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
        } else {
            LC_MPI(MPI_Ibcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
        }
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) LC_CHECK(buf[i] == it * 100 + i, "_c it %d: bcast[%d] = %d", it, i, buf[i]);
    }
    return lc_finish();
}
