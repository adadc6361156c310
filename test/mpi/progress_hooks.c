/* SPDX-License-Identifier: BSD-3-Clause */
/* progress_hooks: nonblocking collectives and one-sided requests served
 * by the same progress passes.  Every rank keeps an Ibarrier and an
 * Iallreduce outstanding while it locks its right neighbour's window
 * (created with MPI_Win_create: accumulates travel as requests its owner's
 * progress serves), accumulates into it and unlocks; only then does it
 * wait for the collectives.  A target sits in MPI_Wait on its own
 * collectives while its window is being used, so both kinds of work must
 * advance in one pass (two layers sharing one progress hook deadlocked). */
#include "lc_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    long *mem;
    MPI_Win win;
    LC_MPI(MPI_Alloc_mem(sizeof(long), MPI_INFO_NULL, &mem));
    *mem = 0;
    LC_MPI(MPI_Win_create(mem, sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int iter = 0; iter < 20; iter++) {
        MPI_Request reqs[2];
        long one = 1, sum = 0, mine = rank;
        LC_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]));
        LC_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[1]));
        int right = (rank + 1) % size;
        LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
        LC_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, win));
        LC_MPI(MPI_Win_unlock(right, win));
        LC_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        LC_CHECK(sum == (long)size * (size - 1) / 2, "iteration %d: Iallreduce gave %ld", iter, sum);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    LC_CHECK(*mem == 20, "my window holds %ld after 20 accumulates from my left neighbour", *mem);
    LC_MPI(MPI_Win_unlock(rank, win));
    LC_MPI(MPI_Win_free(&win));
    LC_MPI(MPI_Free_mem(mem));
    return lc_finish();
}
