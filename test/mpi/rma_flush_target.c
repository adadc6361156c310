/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_flush_target.c: MPI_Win_flush(target) costs what that target has in
 * flight, not what the window has (MPI 4.1 §12.5.4: flush completes the
 * operations to one target only).
 *
 * Rank 0 (origin), rank 1 (B) and rank 2 (A) share a window over user
 * memory (MPI_Win_create: active messages for accumulates).  B polls a
 * flag in a shared-memory window and calls nothing else meanwhile, so the
 * N accumulates rank 0 sends it stay in flight; A serves requests from a
 * barrier.  Rank 0 times, in its thread's CPU time:
 *  - K flushes of itself (nothing of its own in flight), before and while
 *    B's N are in flight: the second must cost at most RATIO times the
 *    first plus SLACK_US (a window with one queue walked all N in each:
 *    ~10-50 us a flush here, against ~0.5-2 without);
 *  - K/10 accumulates to A each followed by MPI_Win_flush(A), the same
 *    two ways, in batches of 10: the cheapest batch per operation with
 *    B's N in flight must cost at most RATIO times the cheapest without
 *    plus SLACK_A_US (a round trip to a scheduled-out A only adds: the
 *    cheapest batch is the cost).  A's answers were matched past every
 *    receive posted for B's answers (one list per communicator): ~90 us
 *    per accumulate + flush(A) against ~1.5 without;
 * then it raises the flag, flushes B, and every value is checked.
 * Arguments: N (default 10000), K (default 2000). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT, sched_setaffinity (also set by the build) */
#endif
#include "lc_test.h"
#include "lc_test_cpu.h"

#include <sched.h>

#define RATIO 4.0
#define SLACK_US 5.0
#define SLACK_A_US 15.0
#define BATCH 10

/* rank 0's CPU ms for k flushes of `target`, each after an accumulate of
 * 1 to mem[slot] of `target` unless target is rank 0 itself. */
static double flushes(MPI_Win win, int target, int k, long slot)
{
    long one = 1;
    double t0 = lc_test_cpu_ms();
    for (int i = 0; i < k; i++) {
        if (target != 0) LC_MPI(MPI_Accumulate(&one, 1, MPI_LONG, target, slot, 1, MPI_LONG, MPI_SUM, win));
        LC_MPI(MPI_Win_flush(target, win));
    }
    return lc_test_cpu_ms() - t0;
}

/* rank 0's CPU us per accumulate + flush(target) in the cheapest of
 * k / BATCH batches. */
static double flushes_min(MPI_Win win, int target, int k)
{
    double best = 1e30;
    for (int b = 0; b < k / BATCH; b++) {
        double us = 1e3 * flushes(win, target, BATCH, 0) / BATCH;
        if (us < best) best = us;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int n = argc > 1 ? atoi(argv[1]) : 10000, k = argc > 2 ? atoi(argv[2]) : 2000;
    if (size != 3) LC_FATAL("run with 3 ranks (origin, B, A), not %d", size);
    MPI_Comm node;
    int nsize = 0;
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    if (nsize != size) {
        if (rank == 0) printf("rma_flush_target: SKIP: the ranks do not share memory (the flag needs it)\n");
        MPI_Finalize();
        return 77;
    }
    /* The flag B polls: rank 0's int of a shared window. */
    MPI_Win fwin;
    int *flag = NULL;
    LC_MPI(MPI_Win_allocate_shared(rank == 0 ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, node, &flag, &fwin));
    MPI_Aint fsz;
    int fdu;
    LC_MPI(MPI_Win_shared_query(fwin, 0, &fsz, &fdu, &flag));
    if (rank == 0) __atomic_store_n(flag, 0, __ATOMIC_RELEASE);

    long *mem = lc_malloc(2 * sizeof(long));
    mem[0] = mem[1] = 0;
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, 2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    if (rank == 0) LC_MPI(MPI_Win_lock_all(0, win));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the flag is 0 and the epoch open */

    if (rank == 0) {
        double self0 = flushes(win, 0, k, 0), a0 = flushes_min(win, 2, k / 10);
        long one = 1;
        for (int i = 0; i < n; i++) LC_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 1, 1, 1, MPI_LONG, MPI_SUM, win));
        double self1 = flushes(win, 0, k, 0), a1 = flushes_min(win, 2, k / 10);
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE); /* B may serve now */
        LC_MPI(MPI_Win_flush(1, win));
        LC_MPI(MPI_Win_unlock_all(win));
        double us0 = 1e3 * self0 / k, us1 = 1e3 * self1 / k;
        printf("rma_flush_target: CPU per flush(self) %.2f us, with %d in flight at B %.2f us; "
               "accumulate + flush(A) %.2f / %.2f us\n",
               us0, n, us1, a0, a1);
        LC_CHECK(us1 <= RATIO * us0 + SLACK_US,
                 "flush(self) cost %.2f us with %d operations in flight at another target, %.2f us without", us1, n,
                 us0);
        LC_CHECK(a1 <= RATIO * a0 + SLACK_A_US,
                 "accumulate + flush(A) cost %.2f us with %d operations in flight at another target, %.2f us without",
                 a1, n, a0);
    } else if (rank == 1) {
        while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) sched_yield(); /* nothing of MPI meanwhile */
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) LC_CHECK(mem[1] == n, "B holds %ld, not the %d accumulates of rank 0", mem[1], n);
    if (rank == 2)
        LC_CHECK(mem[0] == 2 * (k / 10 / BATCH * BATCH), "A holds %ld, not the %d accumulates of rank 0", mem[0],
                 2 * (k / 10 / BATCH * BATCH));
    LC_MPI(MPI_Win_free(&win));
    LC_MPI(MPI_Win_free(&fwin));
    MPI_Comm_free(&node);
    free(mem);
    return lc_finish();
}
