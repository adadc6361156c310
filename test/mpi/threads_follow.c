/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads_follow.c — a thread that parks moves to its process's poller's
 * CPU for the rest of its wait, and gets its own CPU mask back when the
 * wait ends (docs/architecture.md "Threads", "Parking", session 21).
 *
 * Why: 2 ranks x 2 threads on 2 unbound cores ran 2–3x slower whenever
 * the kernel put one thread of each process on each core; a parked thread
 * woken on the core it slept on stayed there.  Moving the parker to its
 * poller's core lets each process gather on one core.
 *
 * Every rank masks itself to the first two CPUs a, b of its mask before
 * MPI_Init_thread (the host's usable cores are then 2, each rank's share
 * 1, so 2 waiting threads park).  In each of TRIALS rounds rank 0's
 * threads 0 and 2, pinned to CPU a, wait in MPI_Recv (one of them polls,
 * on a); then thread 1, unpinned but started on CPU b, waits in MPI_Recv
 * for a message rank 1 sends DELAY_MS later, and parks.  When its receive
 * returns it must be on CPU a (woken where its poller is) in at least
 * TRIALS - 1 rounds — without the move it slept and woke on b, which
 * nothing else kept busy — and its affinity mask must be {a, b} again
 * in every round.  Ranks past the first pair sit out.
 */
#include "lc_test.h"
#include "lc_test_threads.h"

#include <sched.h>
#include <stdbool.h>
#include <string.h>

#define NT 3
#define TRIALS 5
#define DELAY_MS 200
#define TAG_GO 9

static int rank, cpus[2];
static pthread_barrier_t bar;
static int on_a;

/* The first two CPUs of this process's mask, and the process masked to
 * them; false when it has fewer. */
static bool mask_two_cpus(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return false;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set)) cpus[n++] = c;
    if (n < 2) return false;
    CPU_ZERO(&set);
    CPU_SET(cpus[0], &set);
    CPU_SET(cpus[1], &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static int set_cpus(int first, int n)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = first; i < first + n; i++) CPU_SET(cpus[i], &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *rank0_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t != 1) TCHECK(set_cpus(0, 1) == 0, "thread %d: cannot pin to CPU %d", t, cpus[0]);
    for (int trial = 0; trial < TRIALS; trial++) {
        int v = -1;
        pthread_barrier_wait(&bar);
        if (t != 1) {
            LC_MPI(MPI_Recv(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            TCHECK(v == trial * 10 + t, "thread %d trial %d: got %d", t, trial, v);
            continue;
        }
        /* Onto CPU b, then the mask {a, b} back: the thread stays on b
         * until something moves it. */
        TCHECK(set_cpus(1, 1) == 0 && set_cpus(0, 2) == 0, "thread 1: cannot set its mask");
        lc_threads_nap_us(50 * 1000); /* threads 0 and 2 are in their waits, one polls */
        LC_MPI(MPI_Send(&trial, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD));
        LC_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int cpu = sched_getcpu();
        cpu_set_t set;
        CPU_ZERO(&set);
        TCHECK(pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0, "thread 1: no mask");
        TCHECK(v == trial * 10 + 1, "thread 1 trial %d: got %d", trial, v);
        TCHECK(CPU_COUNT(&set) == 2 && CPU_ISSET(cpus[0], &set) && CPU_ISSET(cpus[1], &set),
               "trial %d: thread 1's mask after its wait has %d CPUs, not {%d, %d}", trial, CPU_COUNT(&set), cpus[0],
               cpus[1]);
        printf("trial %d: thread 1 waited on CPU %d, woke on CPU %d\n", trial, cpus[1], cpu);
        if (cpu == cpus[0]) on_a++;
    }
    return NULL;
}

static void rank1(void)
{
    for (int trial = 0; trial < TRIALS; trial++) {
        int go = -1;
        LC_MPI(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        lc_threads_nap_us(DELAY_MS * 1000L);
        int v = trial * 10 + 1;
        LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
        lc_threads_nap_us(20 * 1000);
        for (int t = 0; t < NT; t += 2) {
            v = trial * 10 + t;
            LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, t, MPI_COMM_WORLD));
        }
    }
}

int main(int argc, char **argv)
{
    bool two = mask_two_cpus();
    lc_threads_init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    LC_CHECK(size >= 2, "threads_follow needs 2 ranks, has %d", size);
    int all_two = 0, me_two = two;
    LC_MPI(MPI_Allreduce(&me_two, &all_two, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!all_two) {
        if (rank == 0) printf("threads_follow: SKIP: a rank has fewer than 2 CPUs\n");
        MPI_Finalize();
        return 77;
    }
    if (rank == 0 && size >= 2) {
        pthread_barrier_init(&bar, NULL, NT);
        lc_threads_run(NT, rank0_thread);
        pthread_barrier_destroy(&bar);
        printf("rank 0: thread 1 woke on its poller's CPU %d in %d of %d trials (at least %d)\n", cpus[0], on_a, TRIALS,
               TRIALS - 1);
        LC_CHECK(on_a >= TRIALS - 1,
                 "a thread parked on CPU %d while its process's poller polled on CPU %d woke on the poller's CPU in "
                 "%d of %d trials: parked threads do not follow their poller",
                 cpus[1], cpus[0], on_a, TRIALS);
    } else if (rank == 1)
        rank1();
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return lc_threads_finish();
}
