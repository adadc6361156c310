/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_sync_errors.c: synchronisation calls out of their epoch return
 * MPI_ERR_RMA_SYNC under MPI_ERRORS_RETURN, the program goes on, and the
 * lock state is what it was:
 *   - flush, flush_all, flush_local, flush_local_all with no lock held,
 *     and inside a fence epoch (the library before flushed and returned
 *     MPI_SUCCESS);
 *   - unlock without a lock, a second unlock, unlock of a target locked
 *     through another window, unlock of one target inside lock_all,
 *     unlock_all without lock_all, complete without start, wait and test
 *     without post;
 *   - while rank 1 holds a shared lock on rank 0, rank 2's unlock of
 *     rank 0 (which it never locked) leaves that lock held: rank 2's
 *     exclusive lock, asked for next, is not granted before rank 1 has
 *     read the cell and unlocked (rank 1 sees the old value after 200 ms).
 * arg: create (default), allocate or dynamic. */
#include "lc_test.h"

#include <unistd.h>

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

#define SYNC(call, what)                                                                                               \
    do {                                                                                                               \
        int rc_ = (call);                                                                                              \
        LC_CHECK(cls(rc_) == MPI_ERR_RMA_SYNC, "%s returned %s, not MPI_ERR_RMA_SYNC", what, lc_err_str(rc_));         \
    } while (0)

static void flushes_refused(MPI_Win win, int target, const char *when)
{
    char what[128];
    snprintf(what, sizeof what, "MPI_Win_flush %s", when);
    SYNC(MPI_Win_flush(target, win), what);
    snprintf(what, sizeof what, "MPI_Win_flush_all %s", when);
    SYNC(MPI_Win_flush_all(win), what);
    snprintf(what, sizeof what, "MPI_Win_flush_local %s", when);
    SYNC(MPI_Win_flush_local(target, win), what);
    snprintf(what, sizeof what, "MPI_Win_flush_local_all %s", when);
    SYNC(MPI_Win_flush_local_all(win), what);
}

static MPI_Win make_win(const char *kind, int **mem_p, MPI_Aint *disp_p)
{
    MPI_Win win;
    *disp_p = 0;
    if (strcmp(kind, "allocate") == 0) {
        LC_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, mem_p, &win));
    } else if (strcmp(kind, "dynamic") == 0) {
        *mem_p = lc_malloc(4 * sizeof(int));
        LC_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        LC_MPI(MPI_Win_attach(win, *mem_p, 4 * sizeof(int)));
        MPI_Aint a;
        MPI_Get_address(*mem_p, &a);
        LC_MPI(MPI_Bcast(&a, 1, MPI_AINT, 0, MPI_COMM_WORLD)); /* rank 0's: the only target with data */
        *disp_p = a;
    } else {
        *mem_p = lc_malloc(4 * sizeof(int));
        LC_MPI(MPI_Win_create(*mem_p, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    for (int i = 0; i < 4; i++) (*mem_p)[i] = 0;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return win;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    const char *kind = argc > 1 ? argv[1] : "create";
    if (size < 3) LC_FATAL("run with 3 ranks or more");
    int *mem, *mem2;
    MPI_Aint disp, disp2;
    MPI_Win win = make_win(kind, &mem, &disp), win2 = make_win(kind, &mem2, &disp2);
    int peer = (rank + 1) % size;

    /* No epoch at all. */
    flushes_refused(win, peer, "with no lock held");
    SYNC(MPI_Win_unlock(peer, win), "MPI_Win_unlock without MPI_Win_lock");
    SYNC(MPI_Win_unlock_all(win), "MPI_Win_unlock_all without MPI_Win_lock_all");
    SYNC(MPI_Win_complete(win), "MPI_Win_complete without MPI_Win_start");
    SYNC(MPI_Win_wait(win), "MPI_Win_wait without MPI_Win_post");
    int flag = -1;
    SYNC(MPI_Win_test(win, &flag), "MPI_Win_test without MPI_Win_post");

    /* A fence epoch is not a passive-target one. */
    LC_MPI(MPI_Win_fence(0, win));
    flushes_refused(win, peer, "inside a fence epoch");
    LC_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

    /* Double unlock; a target locked through the other window. */
    LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    SYNC(MPI_Win_unlock(peer, win2), "MPI_Win_unlock of a rank locked through another window");
    flushes_refused(win2, peer, "of a rank locked through another window");
    LC_MPI(MPI_Win_flush(peer, win));
    LC_MPI(MPI_Win_unlock(peer, win));
    SYNC(MPI_Win_unlock(peer, win), "a second MPI_Win_unlock");
    flushes_refused(win, peer, "after the unlock");

    /* Inside lock_all: no unlock of one target; flushes are fine. */
    LC_MPI(MPI_Win_lock_all(0, win));
    SYNC(MPI_Win_unlock(peer, win), "MPI_Win_unlock inside MPI_Win_lock_all");
    LC_MPI(MPI_Win_flush(peer, win));
    LC_MPI(MPI_Win_flush_all(win));
    LC_MPI(MPI_Win_unlock_all(win));
    SYNC(MPI_Win_unlock_all(win), "a second MPI_Win_unlock_all");
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* Rank 1 holds a shared lock on rank 0; rank 2 unlocks rank 0
     * without holding anything, then asks for an exclusive lock and puts
     * 42 into the cell; rank 1 must still read 0 200 ms later. */
    if (rank == 1) LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 2) {
        SYNC(MPI_Win_unlock(0, win), "MPI_Win_unlock of rank 0 held by another rank only");
        LC_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
        int v = 42;
        LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        LC_MPI(MPI_Put(&v, 1, MPI_INT, 0, disp, 1, MPI_INT, win));
        LC_MPI(MPI_Win_unlock(0, win));
    } else if (rank == 1) {
        LC_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        usleep(200000); /* time for rank 2's exclusive lock to be granted, were it wrongly */
        int got = -1;
        LC_MPI(MPI_Get(&got, 1, MPI_INT, 0, disp, 1, MPI_INT, win));
        LC_MPI(MPI_Win_flush(0, win));
        LC_CHECK(got == 0, "rank 0's cell is %d while rank 1 holds a shared lock (an exclusive lock got in)", got);
        LC_MPI(MPI_Win_unlock(0, win));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) LC_CHECK(mem[0] == 42, "rank 0's cell is %d after the exclusive put, not 42", mem[0]);

    if (strcmp(kind, "dynamic") == 0) {
        LC_MPI(MPI_Win_detach(win, mem));
        LC_MPI(MPI_Win_detach(win2, mem2));
    }
    LC_MPI(MPI_Win_free(&win));
    LC_MPI(MPI_Win_free(&win2));
    if (strcmp(kind, "allocate") != 0) {
        free(mem);
        free(mem2);
    }
    return lc_finish();
}
