/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads_wake.c — a completion wakes the parked thread that waits for it,
 * not every parked thread (docs/architecture.md "Threads", "Parking").
 *
 * Every rank pins itself to one CPU before MPI_Init_thread, so that T
 * threads (argv[1], default 4) waiting at once are more than the cores of
 * the process's mask.  Rank 0's threads 1..T-1 wait in MPI_Recv for one
 * message each that rank 1 sends only at the end; meanwhile rank 0's
 * thread 0 makes ROUNDS round trips with rank 1 (MPI_Send, then MPI_Recv;
 * MPI_Waitall of an Isend and an Irecv every other round).  Of the
 * waiting threads one polls and the others park; each of thread 0's
 * completions needs a wake only for thread 0.  A wake of a parked idle
 * thread shows as a voluntary context switch of it (it finds nothing and
 * sleeps again), so the idle threads' voluntary switches over their wait
 * (getrusage(RUSAGE_THREAD)) must stay far below ROUNDS: with one wake
 * for all they were about one per round trip per parked thread.  Ranks
 * past the first pair sit out.
 */
#include "lc_test.h"
#include "lc_test_cpu.h"
#include "lc_test_threads.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAXT 16
#define ROUNDS 2000
/* Voluntary switches allowed to all idle threads together: the 0.5 s
 * backstop of each parked thread and the poller's hand-offs, with room. */
#define MAX_IDLE_SWITCHES (ROUNDS / 10)

static int rank, nthreads;
static pthread_barrier_t bar;
static long idle_switches[MAXT];

static long vol_switches(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

/* Rank 0's thread 0: the round trips (payload round * 31 + 7 and back
 * plus one), once the idle threads are in their waits. */
static void round_trips(void)
{
    struct timespec ts = { 0, 50 * 1000000L };
    nanosleep(&ts, NULL);
    for (int round = 0; round < ROUNDS; round++) {
        int out = round * 31 + 7, in = -1;
        if (round % 2) {
            MPI_Request rq[2];
            MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE: gcc warns on the array of size 0 */
            LC_MPI(MPI_Irecv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &rq[0]));
            LC_MPI(MPI_Isend(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &rq[1]));
            LC_MPI(MPI_Waitall(2, rq, sts));
        } else {
            LC_MPI(MPI_Send(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
            LC_MPI(MPI_Recv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        TCHECK(in == out + 1, "round %d: got %d, expected %d", round, in, out + 1);
    }
}

static void *rank0_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&bar);
    if (t == 0) {
        round_trips();
        return NULL;
    }
    int m = -1;
    long s0 = vol_switches();
    LC_MPI(MPI_Recv(&m, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    idle_switches[t] = vol_switches() - s0;
    TCHECK(m == 1000 + t, "idle thread %d: got %d", t, m);
    return NULL;
}

static void rank1(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        int v;
        LC_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v++;
        LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    }
    for (int t = 1; t < nthreads; t++) {
        int v = 1000 + t;
        LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    lc_test_pin_first_cpu();
    lc_threads_init(&argc, &argv);
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    LC_CHECK(size >= 2, "threads_wake needs 2 ranks, has %d", size);
    LC_CHECK(nthreads >= 3, "threads_wake needs 3 threads or more (two idle), has %d", nthreads);
    if (size >= 2 && nthreads >= 3) {
        pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
        if (rank == 0) {
            lc_threads_run(nthreads, rank0_thread);
            long sum = 0;
            printf("rank 0: voluntary switches of the idle threads over %d round trips:", ROUNDS);
            for (int t = 1; t < nthreads; t++) {
                printf(" %ld", idle_switches[t]);
                sum += idle_switches[t];
            }
            printf(" (sum %ld, at most %d)\n", sum, MAX_IDLE_SWITCHES);
            LC_CHECK(sum <= MAX_IDLE_SWITCHES,
                     "threads parked for their own messages were woken %ld times by %d completions for another "
                     "thread",
                     sum, ROUNDS);
        } else if (rank == 1)
            rank1();
        pthread_barrier_destroy(&bar);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return lc_threads_finish();
}
