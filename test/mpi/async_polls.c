/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * async_polls.c — with LOCUS_ASYNC_PROGRESS=1, an application that polls
 * (MPI_Test every few microseconds of computing while a 1 MiB Iallreduce
 * or Ialltoall runs) drives progress itself and the progress thread
 * keeps out: its passes between the Tests preempted the computing ranks
 * (2 ranks on 2 cores) and held the section the next call waited for;
 * overlap 12-17 % against 59-78 % without the thread (session 22,
 * docs/architecture.md "Asynchronous progress").
 *
 * Counted in CPU time, not wall time: the share of the progress work done
 * inside the application's MPI_Test calls (this thread's
 * CLOCK_THREAD_CPUTIME_ID around each Test) against the CPU time of the
 * task named "locus-progress" (/proc/self/task/TID/schedstat), per
 * batch of 10 operations, the best of 20 batches counting: a loaded machine
 * that deschedules the polling rank for longer than twice its polls'
 * interval lets the thread take over, as it should, and some batch is
 * spared.  Quiet (2 ranks, 2 cores, polls every 20 us), session 21's
 * thread did 60-80 % of it (Tests 37-39 % for Iallreduce, 20-29 % for
 * Ialltoall at best), session 22's 5-30 %; at load 10-12, Iallreduce's
 * Tests 27-58 % against 70-84 % (at load 20, 25-33 % against 67-90 %).
 * Every rank must reach the bound, so the worse rank counts: main's
 * 25-45 % in 5 runs at load 10-20, this branch's 61-91 % in 16 runs at
 * load 10-27.  The bound, checked for Iallreduce: 55 % in the Tests
 * (Ialltoall's figures are printed).  Results are checked too.  Without the variable (or another
 * library) only the results are checked.
 */
#include "lc_test.h"
#include "lc_test_progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define OPS 200
#define COUNT (1 << 18) /* floats: 1 MiB */
#define POLL_US 20.0
#define BATCHES 20
#define BOUND_PCT 55

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Nanoseconds this process's progress thread has run, or -1 when there
 * is none. */
static long long progress_cpu_ns(void)
{
    FILE *f = lc_test_progress_open("schedstat");
    if (!f) return -1;
    long long ns;
    if (fscanf(f, "%lld", &ns) != 1) ns = -1;
    fclose(f);
    return ns;
}

static volatile double sink;
static double test_cpu; /* this thread's CPU seconds inside MPI_Test */

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Compute, calling MPI_Test every POLL_US, until the operation is done. */
static void poll_until_done(MPI_Request *req)
{
    int done = 0;
    double x = 1.0;
    while (!done) {
        double t0 = now();
        while (now() - t0 < POLL_US * 1e-6)
            for (int i = 0; i < 50; i++) x = x * 1.0000001 + 1e-9;
        double c = cpu_now();
        LC_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        test_cpu += cpu_now() - c;
    }
    sink = x;
}

static void loop(int op, int n, float *sb, float *rb, int rank, int size)
{
    for (int i = 0; i < n; i++) {
        MPI_Request req;
        for (int k = 0; k < 4; k++) sb[k * (COUNT / 4)] = (float)(rank + i);
        if (op == 0)
            LC_MPI(MPI_Iallreduce(sb, rb, COUNT, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req));
        else
            LC_MPI(MPI_Ialltoall(sb, COUNT / size, MPI_FLOAT, rb, COUNT / size, MPI_FLOAT, MPI_COMM_WORLD, &req));
        poll_until_done(&req);
        if (op == 0) {
            float want = (float)(size * i) + (float)size * (float)(size - 1) / 2, one = (float)size;
            LC_CHECK(rb[0] == want && rb[1] == one && rb[COUNT - 1] == one, "iallreduce %d: %g %g %g", i, rb[0], rb[1],
                     rb[COUNT - 1]);
        } else {
            int blk = COUNT / size;
            for (int r = 0; r < size; r++) {
                /* Block r came from rank r: its sb[rank * blk...]. */
                float want = (rank * blk) % (COUNT / 4) == 0 ? (float)(r + i) : 1.0f;
                LC_CHECK(rb[r * blk] == want && rb[r * blk + 1] == 1.0f, "ialltoall %d block %d: %g", i, r,
                         rb[r * blk]);
            }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    const char *v = getenv("LOCUS_ASYNC_PROGRESS");
    int counted = v && atoi(v) > 0 && !lc_library_is_mpich();
    const char *name[2] = { "iallreduce", "ialltoall" };
    float *sb = malloc(COUNT * sizeof(float)), *rb = malloc(COUNT * sizeof(float));
    LC_CHECK(sb && rb, "malloc");
    for (int i = 0; i < COUNT; i++) sb[i] = 1.0f;
    /* The thread names itself when it first runs (maybe after MPI_Init). */
    for (int i = 0; counted && i < 2000 && progress_cpu_ns() < 0; i++) usleep(5000);
    for (int op = 0; op < 2; op++) {
        loop(op, OPS / 10, sb, rb, rank, size); /* warm-up: the memo, the polls' interval */
        /* The batch where the thread ran least: other load (a computing
         * rank descheduled for a slice lets the thread take over, as it
         * should) spares some batch. */
        double best = 0, best_thread = 0, best_test = 0, wall = 0;
        int bad = 0;
        for (int b = 0; b < BATCHES; b++) {
            LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
            long long c0 = progress_cpu_ns();
            double t0 = now();
            test_cpu = 0;
            loop(op, OPS / BATCHES, sb, rb, rank, size);
            wall += now() - t0;
            long long c1 = progress_cpu_ns();
            if (c0 < 0 || c1 < 0) bad = 1;
            /* The share of the progress work (CPU time) done in the
             * application's Tests: the rest is the thread's. */
            double share = test_cpu / (test_cpu + (double)(c1 - c0) * 1e-9);
            if (share > best) {
                best = share;
                best_thread = (double)(c1 - c0) * 1e-3 / (OPS / BATCHES);
                best_test = test_cpu * 1e6 / (OPS / BATCHES);
            }
        }
        if (!counted) continue;
        LC_CHECK(!bad, "no task named locus-progress with LOCUS_ASYNC_PROGRESS=%s", v);
        if (bad) continue;
        printf("rank %d: %s: %d operations polled by MPI_Test in %.1f ms (%.1f us each); best batch of %d: "
               "%.0f %% of the progress CPU in the Tests (%.1f us per operation; the thread %.1f; bound %d %%)\n",
               rank, name[op], OPS, wall * 1e3, wall / OPS * 1e6, OPS / BATCHES, 100 * best, best_test, best_thread,
               BOUND_PCT);
        /* Ialltoall's figures are closer (session 21: 35-45 % loaded): printed only. */
        if (op == 0)
            LC_CHECK(100 * best >= BOUND_PCT,
                     "%s polled by MPI_Test: at best %.0f %% of the progress CPU in the Tests (less than %d %%: the "
                     "thread made passes while the application polled)",
                     name[op], 100 * best, BOUND_PCT);
    }
    free(sb);
    free(rb);
    return lc_finish();
}
