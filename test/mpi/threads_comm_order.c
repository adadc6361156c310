/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_comm_order: MPI_THREAD_MULTIPLE, threads creating communicators
 * on different parents at once, started in a different order on each
 * rank (the pattern of MPICH's threads/comm/comm_dup_deadlock and
 * comm_create_group_threads, which hung on Locus before the context-id
 * agreement of src/mpi/lc_mpi_ctx.c: every rank asleep in a blocking
 * creation whose peers were in another).  argv[1] threads per rank
 * (default 2).  Thread t of rank r waits ((t + r) mod T) x 50 ms before
 * each step, so rank 0 starts thread 0's creation first and rank 1
 * thread T-1's: each rank's first agreement waits for a member that is
 * in another one.  Each iteration, thread t:
 *  1. duplicates MPI_COMM_SELF under a process-wide application lock (a
 *     one-member agreement beside the others in progress);
 *  2. MPI_Comm_dup of its own parent (a duplicate of MPI_COMM_WORLD);
 *  3. MPI_Comm_create_group of its parent's whole group, tag t;
 * and checks each new communicator (size, rank, an allreduce of the
 * ranks, its context differs from the other threads' live ones: a
 * message on one must not match a receive on another). */
#include "lc_test.h"
#include "lc_test_threads.h"

#include <time.h>

#define MAXT 8
#define ITERS 3
#define STAGGER_MS 50

static int rank, size, nthreads;
static MPI_Comm parents[MAXT];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static void nap(int t)
{
    long ms = (long)((t + rank) % nthreads) * STAGGER_MS;
    struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
}

/* The new communicator is whole and its own: the sum of the ranks over
 * it, then a message to the next rank on tag 0 (every thread's
 * communicator carries one on tag 0 at once: received on another
 * thread's, it would carry the wrong thread number). */
static void use(MPI_Comm c, int t, const char *what)
{
    int n, me, sum = 0;
    LC_MPI(MPI_Comm_size(c, &n));
    LC_MPI(MPI_Comm_rank(c, &me));
    TCHECK(n == size && me == rank, "%s of thread %d: size %d rank %d, expected %d %d", what, t, n, me, size, rank);
    LC_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    TCHECK(sum == size * (size - 1) / 2, "%s of thread %d: sum of ranks %d", what, t, sum);
    int out = t, in = -1;
    LC_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0, c,
                        MPI_STATUS_IGNORE));
    TCHECK(in == t, "%s of thread %d: got thread %d's message", what, t, in);
}

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Group all;
    LC_MPI(MPI_Comm_group(parents[t], &all));
    for (int i = 0; i < ITERS; i++) {
        MPI_Comm self_dup, dup, grp;
        nap(t);
        /* MPI orders collectives on one communicator: the application
         * serializes its threads' calls on MPI_COMM_SELF. */
        pthread_mutex_lock(&self_lock);
        LC_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self_dup));
        pthread_mutex_unlock(&self_lock);
        LC_MPI(MPI_Barrier(self_dup));
        LC_MPI(MPI_Comm_dup(parents[t], &dup));
        use(dup, t, "MPI_Comm_dup");
        nap(t);
        LC_MPI(MPI_Comm_create_group(parents[t], all, t, &grp));
        use(grp, t, "MPI_Comm_create_group");
        LC_MPI(MPI_Comm_free(&grp));
        LC_MPI(MPI_Comm_free(&dup));
        LC_MPI(MPI_Comm_free(&self_dup));
    }
    LC_MPI(MPI_Group_free(&all));
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    nthreads = lc_threads_count(argc, argv, 2, MAXT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&parents[t]));
    return lc_threads_finish();
}
