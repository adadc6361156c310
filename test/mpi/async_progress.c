/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * async_progress.c — nonblocking operations advance while the rank that
 * started them computes without calling MPI, when the library runs an
 * asynchronous progress thread (Locus: LOCUS_ASYNC_PROGRESS=1; MPICH:
 * MPICH_ASYNC_PROGRESS=1, for validating the test).
 *
 * Rank 0 starts an operation, then computes for COMPUTE seconds without
 * any MPI call (the clock is clock_gettime, not MPI_Wtime), then waits.
 * The other ranks time how long their side takes, from a barrier just
 * before.  Three cases, each needing rank 0's progress:
 *   isend      rank 0 Isends 4 MiB (rendezvous) to rank 1, which Recvs;
 *   irecv      rank 0 Irecvs 4 MiB from rank 1, which Sends (blocking);
 *   iallreduce every rank Iallreduces 1 MiB of ints; the others Wait at once.
 * Results are checked always.  The timing is asserted only when the
 * library runs such a thread (the variable above is set): the other
 * side must finish within 3/4 of COMPUTE — it takes at least COMPUTE without
 * the thread, and milliseconds with it (up to a second on this loaded
 * 2-core machine, hence the margin).
 */
#include "lc_test.h"

#include <time.h>

#define COMPUTE 3.0
#define BIG (4 << 20)
#define NRED (1 << 18)

static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void compute(double sec)
{
    double t0 = now(), x = 1.0;
    while (now() - t0 < sec)
        for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int is_locus(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    return strstr(lib, "Locus") != NULL;
}

static int async_on(void)
{
    const char *v = getenv(is_locus() ? "LOCUS_ASYNC_PROGRESS" : "MPICH_ASYNC_PROGRESS");
    return v && (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "on") == 0 || strcmp(v, "true") == 0);
}

/* Seconds the other side took; checked against the compute phase. */
static void judge(const char *what, double took, int check)
{
    if (check)
        LC_CHECK(took < 0.75 * COMPUTE, "%s: the peer's side took %.3f s while rank 0 computed %.1f s without MPI "
                 "calls: no asynchronous progress", what, took, COMPUTE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int check = async_on();
    int32_t *big = lc_malloc(BIG);
    int *in = lc_malloc(NRED * sizeof(int)), *out = lc_malloc(NRED * sizeof(int));
    MPI_Request req;
    double t0, took;

    /* isend: rank 0's progress pushes the rendezvous data. */
    for (long i = 0; i < BIG / 4; i++) big[i] = rank == 0 ? lc_pattern(0, 1, i) : 0;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        LC_MPI(MPI_Isend(big, BIG / 4, MPI_INT32_T, 1, 1, MPI_COMM_WORLD, &req));
        compute(COMPUTE);
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
        t0 = now();
        LC_MPI(MPI_Recv(big, BIG / 4, MPI_INT32_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        took = now() - t0;
        judge("isend", took, check);
        long bad = 0;
        for (long i = 0; i < BIG / 4; i++) bad += big[i] != lc_pattern(0, 1, i);
        LC_CHECK(bad == 0, "isend: %ld of %d values wrong", bad, BIG / 4);
    }

    /* irecv: rank 0's progress answers the rendezvous and takes the data. */
    for (long i = 0; i < BIG / 4; i++) big[i] = rank == 1 ? lc_pattern(1, 2, i) : 0;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        LC_MPI(MPI_Irecv(big, BIG / 4, MPI_INT32_T, 1, 2, MPI_COMM_WORLD, &req));
        compute(COMPUTE);
        LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        long bad = 0;
        for (long i = 0; i < BIG / 4; i++) bad += big[i] != lc_pattern(1, 2, i);
        LC_CHECK(bad == 0, "irecv: %ld of %d values wrong", bad, BIG / 4);
    } else if (rank == 1) {
        t0 = now();
        LC_MPI(MPI_Send(big, BIG / 4, MPI_INT32_T, 0, 2, MPI_COMM_WORLD));
        took = now() - t0;
        judge("irecv", took, check);
    }

    /* iallreduce: a schedule of several rounds through rank 0. */
    for (int i = 0; i < NRED; i++) in[i] = rank + i;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    t0 = now();
    LC_MPI(MPI_Iallreduce(in, out, NRED, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    if (rank == 0) compute(COMPUTE);
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    took = now() - t0;
    if (rank != 0) judge("iallreduce", took, check);
    long bad = 0;
    for (int i = 0; i < NRED; i++) bad += out[i] != size * (size - 1) / 2 + size * i;
    LC_CHECK(bad == 0, "iallreduce: %ld of %d values wrong", bad, NRED);

    if (rank == 0 && is_locus()) { /* MPICH reports MULTIPLE when its thread runs */
        int provided;
        LC_MPI(MPI_Query_thread(&provided));
        LC_CHECK(provided == MPI_THREAD_SINGLE, "MPI_Init: MPI_Query_thread reports %d, not MPI_THREAD_SINGLE",
                 provided);
    }
    free(big);
    free(in);
    free(out);
    return lc_finish();
}
