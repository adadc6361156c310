/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_self_poll.c: rank 0 is the passive target every other rank
 * accumulates into, and itself calls nothing but one-sided operations
 * on its own memory and flush (then, second round, nothing but
 * MPI_Win_sync and loads) until their updates arrive.  On the
 * active-message path those calls are rank 0's only progress: they must
 * serve the queue (MPICH's linked_list_bench_lock_all hung that way).
 * Rank 0 gives up after 30 s and aborts the job rather than hang.
 * arg "create": MPI_Win_create instead of a dynamic window. */
#include "lc_test.h"

#define LIMIT_S 30.0

static void give_up_after(double t0, const char *what, long seen, long want)
{
    if (MPI_Wtime() - t0 < LIMIT_S) return;
    LC_CHECK(0, "%s: after %.0f s rank 0 saw %ld of %ld updates (no progress while it polls itself)", what, LIMIT_S,
             seen, want);
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int create = argc > 1 && strcmp(argv[1], "create") == 0;
    static long cell[2]; /* [0]: Fetch_and_op round, [1]: Accumulate round */
    MPI_Win win;
    MPI_Aint base = 0;
    if (create) {
        MPI_Win_create(cell, sizeof cell, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, cell, sizeof cell);
        MPI_Get_address(cell, &base);
        MPI_Bcast(&base, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    }
    MPI_Aint at0 = create ? 0 : base, at1 = create ? 1 : base + (MPI_Aint)sizeof(long);
    long want = size - 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);

    /* Round 1: the others add 1 each with Fetch_and_op; rank 0 reads its
     * own cell with Fetch_and_op(MPI_NO_OP) + flush. */
    if (rank == 0) {
        double t0 = MPI_Wtime();
        long seen = 0, zero = 0;
        while (seen < want) {
            MPI_Fetch_and_op(&zero, &seen, MPI_LONG, 0, at0, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
            give_up_after(t0, "fetch_and_op + flush", seen, want);
        }
        LC_CHECK(seen == want, "round 1: %ld updates, expected %ld", seen, want);
    } else {
        long one = 1, old;
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, at0, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Round 2: the others Accumulate(MPI_SUM) their rank once rank 0
     * says it is polling (a message it sent before, so nothing of theirs
     * can arrive while it is still in another call); rank 0 polls with
     * MPI_Win_sync and a load, nothing else.  The unified model makes
     * the updates visible at a Win_sync (MPI 4.1 §12.7); MPICH 4.0.2's
     * Win_sync makes no progress on its active-message path and hangs
     * here, so it skips this round. */
    int sync_round = !lc_library_is_mpich();
    MPI_Win_lock_all(0, win);
    if (rank == 0 && sync_round) {
        long total = (long)size * (size - 1) / 2, seen = 0;
        for (int r = 1; r < size; r++) MPI_Send(NULL, 0, MPI_BYTE, r, 7, MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        while (seen < total) {
            MPI_Win_sync(win);
            seen = __atomic_load_n(&cell[1], __ATOMIC_RELAXED);
            give_up_after(t0, "win_sync", seen, total);
        }
        LC_CHECK(seen == total, "round 2: sum %ld, expected %ld", seen, total);
    } else if (sync_round) {
        long mine = rank;
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Accumulate(&mine, 1, MPI_LONG, 0, at1, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (!create) MPI_Win_detach(win, cell);
    MPI_Win_free(&win);
    return lc_finish();
}
