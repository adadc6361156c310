/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads_park.c — MPI_THREAD_MULTIPLE waits when a process's waiting
 * threads outnumber its cores (docs/architecture.md "Threads", "Parking"):
 * one thread polls, the others park, and a completion that lands on a
 * parked thread must wake it.
 *
 * Every rank pins itself to one CPU before MPI_Init_thread, so that T
 * threads (argv[1], default 4) waiting at once are more than the cores
 * of the process's mask whatever the machine.
 *  1. Ring: for ROUNDS rounds each thread exchanges a checksummed message
 *     of 8-520 B with the same thread of its neighbours (tag = thread),
 *     by Irecv+Send+Wait, Isend+Recv+Wait, Irecv+Isend+Waitall or
 *     Send+Probe+Recv in turn: every message intact, from the right
 *     sender and round.
 *  2. Wake-ups, pairs (2k, 2k+1; an odd last rank sits out): the even
 *     rank's T threads all wait (MPI_Recv, or MPI_Probe then MPI_Recv)
 *     for their own tag; the odd rank sends to one thread at a time and
 *     waits for its reply.  All but one of the waiting threads are parked
 *     then, and their messages are received by the poller, so each reply
 *     needs the completion's (or the queued message's) wake.  A lost
 *     wake-up costs the parked thread's backstop (0.5 s, lc_park.c): the
 *     median round trip must stay under MAX_RTT_MS.
 *  3. Parking happened: the even rank's T threads wait in MPI_Recv while
 *     the odd rank sleeps 300 ms before sending; each thread's CPU time
 *     over its wait is measured.  Threads that only yield share the core
 *     evenly; parked ones use next to none.  At least T - 1 threads must
 *     use under a fifth of the busiest thread's CPU (best of 3 tries).
 */
#include "lc_test.h"
#include "lc_test_cpu.h"
#include "lc_test_threads.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 16
#define ROUNDS 200
#define MAXN 130 /* ints per message */
#define PINGS 6  /* phase 2: messages per thread */
#define MAX_RTT_MS 150.0
#define SLEEP_MS 300

static int rank, size, left, right, nthreads;
static pthread_barrier_t bar;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Message: [rank, thread, round, n, payload..., checksum], n ints in all. */
static int msg_len(int round, int t)
{
    return 5 + (round * 7 + t * 13) % (MAXN - 5);
}

static void fill(int *m, int from, int t, int round)
{
    int n = msg_len(round, t);
    m[0] = from, m[1] = t, m[2] = round, m[3] = n;
    unsigned sum = 0; /* wraps: unsigned, not signed overflow */
    for (int i = 0; i < n - 1; i++) {
        if (i >= 4) m[i] = (int)((unsigned)from * 1000003u + (unsigned)t * 7919u + (unsigned)round * 31u + (unsigned)i);
        sum += (unsigned)m[i] * (unsigned)(i + 1);
    }
    m[n - 1] = (int)sum;
}

static void check(const int *m, const MPI_Status *st, int from, int t, int round)
{
    int n = msg_len(round, t), got;
    MPI_Get_count(st, MPI_INT, &got);
    TCHECK(got == n, "thread %d round %d: %d ints, expected %d", t, round, got, n);
    TCHECK(st->MPI_SOURCE == from && st->MPI_TAG == t, "thread %d round %d: source %d tag %d", t, round, st->MPI_SOURCE,
           st->MPI_TAG);
    if (got != n) return;
    int e[MAXN];
    fill(e, from, t, round);
    TCHECK(memcmp(e, m, sizeof(int) * (size_t)n) == 0, "thread %d round %d: message from %d differs (%d %d %d)", t,
           round, from, m[0], m[1], m[2]);
}

/* 1. The ring. */
static void *ring(void *arg)
{
    int t = (int)(intptr_t)arg;
    int out[MAXN], in[MAXN];
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request rq[2];
        MPI_Status st, sts[2];
        int n = msg_len(round, t);
        fill(out, rank, t, round);
        memset(in, 0xff, sizeof(in));
        switch (round % 4) {
        case 0:
            LC_MPI(MPI_Irecv(in, MAXN, MPI_INT, left, t, MPI_COMM_WORLD, &rq[0]));
            LC_MPI(MPI_Send(out, n, MPI_INT, right, t, MPI_COMM_WORLD));
            LC_MPI(MPI_Wait(&rq[0], &st));
            break;
        case 1:
            LC_MPI(MPI_Isend(out, n, MPI_INT, right, t, MPI_COMM_WORLD, &rq[0]));
            LC_MPI(MPI_Recv(in, MAXN, MPI_INT, left, t, MPI_COMM_WORLD, &st));
            LC_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
            break;
        case 2:
            LC_MPI(MPI_Irecv(in, MAXN, MPI_INT, left, t, MPI_COMM_WORLD, &rq[0]));
            LC_MPI(MPI_Isend(out, n, MPI_INT, right, t, MPI_COMM_WORLD, &rq[1]));
            LC_MPI(MPI_Waitall(2, rq, sts));
            st = sts[0];
            break;
        default:
            LC_MPI(MPI_Send(out, n, MPI_INT, right, t, MPI_COMM_WORLD));
            LC_MPI(MPI_Probe(left, t, MPI_COMM_WORLD, &st));
            LC_MPI(MPI_Recv(in, MAXN, MPI_INT, left, t, MPI_COMM_WORLD, &st));
            break;
        }
        check(in, &st, left, t, round);
    }
    return NULL;
}

/* 2. The even rank's waiting threads: wait, then reply. */
static void *waiter(void *arg)
{
    int t = (int)(intptr_t)arg;
    int m[MAXN];
    for (int k = 0; k < PINGS; k++) {
        MPI_Status st;
        if (k % 2) LC_MPI(MPI_Probe(rank + 1, t, MPI_COMM_WORLD, &st));
        LC_MPI(MPI_Recv(m, MAXN, MPI_INT, rank + 1, t, MPI_COMM_WORLD, &st));
        check(m, &st, rank + 1, t, k);
        LC_MPI(MPI_Send(m, 1, MPI_INT, rank + 1, t, MPI_COMM_WORLD));
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 2. The odd rank: one thread at a time, in a scrambled order. */
static void pinger(void)
{
    double rtt[PINGS * MAXT];
    int m[MAXN], nr = 0;
    for (int k = 0; k < PINGS; k++)
        for (int i = 0; i < nthreads; i++) {
            int t = (i * 3 + k) % nthreads;
            fill(m, rank, t, k);
            double t0 = now_ms();
            LC_MPI(MPI_Send(m, msg_len(k, t), MPI_INT, rank - 1, t, MPI_COMM_WORLD));
            LC_MPI(MPI_Recv(m, 1, MPI_INT, rank - 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            rtt[nr++] = now_ms() - t0;
        }
    qsort(rtt, (size_t)nr, sizeof(double), cmp_double);
    double med = rtt[nr / 2];
    printf("rank %d: round trips to waiting threads: median %.2f ms, max %.2f ms\n", rank, med, rtt[nr - 1]);
    LC_CHECK(med < MAX_RTT_MS,
             "median round trip %.2f ms to threads waiting in MPI_Recv/MPI_Probe (a lost wake-up costs 500)", med);
}

/* 3. CPU of each even-rank thread over its wait. */
static double wait_cpu[MAXT];

static void *sleeper(void *arg)
{
    int t = (int)(intptr_t)arg;
    int m;
    pthread_barrier_wait(&bar);
    double c0 = lc_test_cpu_ms();
    LC_MPI(MPI_Recv(&m, 1, MPI_INT, rank + 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    wait_cpu[t] = lc_test_cpu_ms() - c0;
    TCHECK(m == t, "thread %d: got %d", t, m);
    return NULL;
}

static int parked_threads(void)
{
    double max = 0;
    for (int t = 0; t < nthreads; t++)
        if (wait_cpu[t] > max) max = wait_cpu[t];
    int quiet = 0;
    for (int t = 0; t < nthreads; t++)
        if (wait_cpu[t] < max / 5) quiet++;
    printf("rank %d: CPU ms per waiting thread:", rank);
    for (int t = 0; t < nthreads; t++) printf(" %.1f", wait_cpu[t]);
    printf(" (%d under a fifth of the busiest)\n", quiet);
    return quiet;
}

int main(int argc, char **argv)
{
    lc_test_pin_first_cpu();
    lc_threads_init(&argc, &argv);
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    int paired = rank + 1 < size || rank % 2;

    double t0 = now_ms();
    lc_threads_run(nthreads, ring);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("ring: %d rounds x %d threads in %.0f ms\n", ROUNDS, nthreads, now_ms() - t0);

    if (paired && rank % 2 == 0) lc_threads_run(nthreads, waiter);
    if (paired && rank % 2 == 1) pinger();
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* 3: best of three; the even rank says whether to go on. */
    for (int attempt = 0, ok = 0; attempt < 3 && !ok && nthreads >= 2; attempt++) {
        if (paired && rank % 2 == 0) {
            lc_threads_run(nthreads, sleeper);
            ok = parked_threads() >= nthreads - 1;
        }
        if (paired && rank % 2 == 1) {
            struct timespec ts = { 0, SLEEP_MS * 1000000L };
            nanosleep(&ts, NULL);
            for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Send(&t, 1, MPI_INT, rank - 1, t, MPI_COMM_WORLD));
        }
        int mine = ok || !paired || rank % 2, all;
        LC_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
        ok = all;
        if (attempt == 2 && rank == 0)
            LC_CHECK(ok, "waiting threads did not park: every one used a like share of the core, 3 tries");
    }
    pthread_barrier_destroy(&bar);
    return lc_threads_finish();
}
