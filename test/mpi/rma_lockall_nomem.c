/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_lockall_nomem.c: an MPI_Win_lock_all that one target cannot grant
 * (no memory there: its realloc fails, so it cannot make room to answer)
 * fails with MPI_ERR_NO_MEM and leaves no lock held anywhere: rank 0's
 * exclusive lock on rank 1, which granted its share, is granted next.
 * Rank 2 (the failing target, Win_create memory: active messages, CMA
 * off) has realloc fail before it answered anything on the window.  On
 * the library before, rank 1 kept rank 0's shared lock for good and the
 * exclusive lock waited until the test's 20 s limit. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include "lc_test.h"

#include "lc_test_realloc.h"

#include <signal.h>
#include <unistd.h>

static void too_long(int sig)
{
    (void)sig;
    static const char msg[] = "rma_lockall_nomem: rank 0's exclusive lock on rank 1 not granted in 20 s (the failed "
                              "lock_all left its shared lock held)\n";
    write(2, msg, sizeof msg - 1);
    _exit(1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size != 3) LC_FATAL("run with 3 ranks");
    if (lc_library_is_mpich()) { /* needs a library that grows its queues with realloc */
        if (rank == 0) printf("No Errors\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long mem[4] = { 0 };
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 2) fail_realloc = 1;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        int rc = MPI_Win_lock_all(0, win), cls = 0;
        MPI_Error_class(rc, &cls);
        LC_CHECK(cls == MPI_ERR_NO_MEM, "MPI_Win_lock_all returned %s, not MPI_ERR_NO_MEM", lc_err_str(rc));
        rc = MPI_Win_unlock_all(win);
        MPI_Error_class(rc, &cls);
        LC_CHECK(cls == MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all after a failed lock_all returned %s", lc_err_str(rc));
        signal(SIGALRM, too_long);
        alarm(20);
        long v = 7;
        LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        LC_MPI(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
        LC_MPI(MPI_Win_unlock(1, win));
        alarm(0);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    fail_realloc = 0;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) LC_CHECK(mem[0] == 7, "rank 1's element is %ld, not 7", mem[0]);
    /* Rank 2 can answer again: a full lock_all works. */
    if (rank == 0) {
        LC_MPI(MPI_Win_lock_all(0, win));
        LC_MPI(MPI_Win_unlock_all(win));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Win_free(&win));
    return lc_finish();
}
