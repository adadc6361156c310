/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_coll: MPI_THREAD_MULTIPLE collectives.  argv[1] threads per rank
 * (default 3).  Each thread owns a duplicate of MPI_COMM_WORLD and runs
 * blocking and nonblocking collectives on it while the other threads run
 * theirs on their own communicators: Barrier, Bcast (small and 64 KiB),
 * Allreduce, Reduce, Allgather, Alltoall, Iallreduce; every result is
 * checked. */
#include "lc_test.h"
#include "lc_test_threads.h"

#define ITERS 60
#define MAXT 8

static int rank, size, nthreads;
static MPI_Comm comms[MAXT];


static void *body(void *p)
{
    int t = (int)(intptr_t)p;
    MPI_Comm c = comms[t];
    int *big = lc_malloc(65536), *all = lc_malloc(sizeof(int) * (size_t)size * 2);
    int *a2a_out = lc_malloc(sizeof(int) * (size_t)size), *a2a_in = lc_malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < ITERS; i++) {
        int root = (i + t) % size;
        LC_MPI(MPI_Barrier(c));

        int v = rank == root ? i * 100 + t : -1;
        LC_MPI(MPI_Bcast(&v, 1, MPI_INT, root, c));
        TCHECK(v == i * 100 + t, "thread %d iter %d: bcast got %d", t, i, v);

        int n = 65536 / (int)sizeof(int);
        for (int k = 0; k < n; k++) big[k] = rank == root ? lc_pattern(root, i, k + t) : 0;
        LC_MPI(MPI_Bcast(big, n, MPI_INT, root, c));
        int bad = 0;
        for (int k = 0; k < n; k++) bad += big[k] != lc_pattern(root, i, k + t);
        TCHECK(!bad, "thread %d iter %d: large bcast has %d wrong items", t, i, bad);

        long in = rank + i + t, sum = -1;
        LC_MPI(MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, c));
        long want = (long)size * (size - 1) / 2 + (long)size * (i + t);
        TCHECK(sum == want, "thread %d iter %d: allreduce %ld, expected %ld", t, i, sum, want);

        int mx = -1, mine = rank * 3 + t;
        LC_MPI(MPI_Reduce(&mine, &mx, 1, MPI_INT, MPI_MAX, root, c));
        if (rank == root) TCHECK(mx == (size - 1) * 3 + t, "thread %d iter %d: reduce max %d", t, i, mx);

        int pair[2] = { rank, i * 7 + t };
        LC_MPI(MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, c));
        for (int r = 0; r < size; r++)
            TCHECK(all[2 * r] == r && all[2 * r + 1] == i * 7 + t, "thread %d iter %d: allgather[%d] {%d,%d}", t,
                   i, r, all[2 * r], all[2 * r + 1]);

        for (int r = 0; r < size; r++) a2a_out[r] = rank * 1000 + r + t;
        LC_MPI(MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, c));
        for (int r = 0; r < size; r++)
            TCHECK(a2a_in[r] == r * 1000 + rank + t, "thread %d iter %d: alltoall from %d got %d", t, i, r,
                   a2a_in[r]);

        MPI_Request rq;
        long isum = -1;
        LC_MPI(MPI_Iallreduce(&in, &isum, 1, MPI_LONG, MPI_SUM, c, &rq));
        LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        TCHECK(isum == want, "thread %d iter %d: iallreduce %ld, expected %ld", t, i, isum, want);
    }
    free(big);
    free(all);
    free(a2a_out);
    free(a2a_in);
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    nthreads = lc_threads_count(argc, argv, 3, MAXT);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&comms[t]));
    return lc_threads_finish();
}
