/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_shared.c: Win_allocate_shared on MPI_COMM_TYPE_SHARED,
 * Win_shared_query, direct loads and stores into a neighbour's memory
 * with Win_sync + barrier, contiguity, and Put/Accumulate on the same
 * window under lock_all; a window where odd ranks give size 0: their
 * segments query as size 0 at NULL (as in MPICH), MPI_PROC_NULL gives
 * rank 0's, and puts into the even ranks' land. */
#include "lc_test.h"

#define N 16

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int rank, size;
    MPI_Comm_rank(shm, &rank);
    MPI_Comm_size(shm, &size);
    int *mine = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, shm, &mine, &win);
    MPI_Aint sz;
    int du;
    int *base0 = NULL;
    MPI_Win_shared_query(win, 0, &sz, &du, &base0);
    LC_CHECK(sz == N * (MPI_Aint)sizeof(int) && du == (int)sizeof(int), "query: size %ld unit %d", (long)sz, du);
    LC_CHECK(mine == base0 + rank * N, "not contiguous: mine %p, rank 0's %p", (void *)mine, (void *)base0);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *rp = NULL;
    MPI_Win_shared_query(win, right, &sz, &du, &rp);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < N; i++) rp[i] = rank * 100 + i; /* direct stores into the neighbour */
    MPI_Win_sync(win);
    MPI_Barrier(shm);
    MPI_Win_sync(win);
    for (int i = 0; i < N; i++)
        LC_CHECK(mine[i] == left * 100 + i, "direct store: mine[%d] = %d, expected %d", i, mine[i], left * 100 + i);
    MPI_Barrier(shm);
    /* accumulate from everyone into rank 0's element 0, then read it */
    if (rank == 0) mine[0] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(shm);
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Barrier(shm);
    int v = -1;
    MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    LC_CHECK(v == size, "accumulate total %d, expected %d", v, size);
    MPI_Win_unlock_all(win);
    /* Passive target while the target computes: rank 0 writes a flag into
     * the last rank's memory under a shared lock; the last rank, in a
     * shared epoch of its own, spins on it with MPI_Win_sync only (no call
     * that progresses).  The standard lets an MPI need the target's
     * progress here (MPICH does: there the target also probes). */
    int last = size - 1;
    MPI_Barrier(shm);
    if (rank == last && size > 1) MPI_Win_lock(MPI_LOCK_SHARED, last, 0, win);
    MPI_Barrier(shm);
    if (rank == 0 && size > 1) {
        int flag42 = 42;
        MPI_Win_lock(MPI_LOCK_SHARED, last, 0, win);
        MPI_Put(&flag42, 1, MPI_INT, last, 1, 1, MPI_INT, win);
        MPI_Win_unlock(last, win);
    }
    if (rank == last && size > 1) {
        double t0 = MPI_Wtime();
        volatile int *f = &mine[1];
        while (*f != 42 && MPI_Wtime() - t0 < 20) {
            MPI_Win_sync(win);
            if (lc_library_is_mpich()) {
                int pf;
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shm, &pf, MPI_STATUS_IGNORE);
            }
        }
        LC_CHECK(*f == 42, "the flag did not arrive while the target computed");
        MPI_Win_unlock(last, win);
    }
    MPI_Barrier(shm);
    int flag = 0, *model = NULL;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    LC_CHECK(flag && *model == MPI_WIN_UNIFIED, "memory model");
    MPI_Win_free(&win);

    /* odd ranks: no memory (MPICH's rma/win_shared_noncontig_put) */
    MPI_Aint my = rank % 2 ? 0 : N * (MPI_Aint)sizeof(int);
    MPI_Info noncontig;
    MPI_Info_create(&noncontig);
    MPI_Info_set(noncontig, "alloc_shared_noncontig", "true");
    for (int pass = 0; pass < 2; pass++) {
        MPI_Win_allocate_shared(my, sizeof(int), pass ? noncontig : MPI_INFO_NULL, shm, &mine, &win);
        int even = rank + 2 >= size ? 0 : rank + 2; /* the next even rank, or 0 */
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        if (rank % 2 == 0)
            for (int i = 0; i < N; i++) {
                int x = rank * 1000 + i;
                MPI_Put(&x, 1, MPI_INT, even, i, 1, MPI_INT, win);
            }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        for (int r = 0; r < size; r++) {
            int *b = (int *)&sz; /* (anything but NULL) */
            MPI_Win_shared_query(win, r, &sz, &du, &b);
            if (r % 2) {
                LC_CHECK(sz == 0 && b == NULL, "pass %d: rank %d's empty segment: size %ld at %p, expected 0 at NULL",
                         pass, r, (long)sz, (void *)b);
                continue;
            }
            LC_CHECK(sz == N * (MPI_Aint)sizeof(int) && b, "pass %d: rank %d's segment: size %ld at %p", pass, r,
                     (long)sz, (void *)b);
            int from = r - 2 >= 0 ? r - 2 : (size - 1) / 2 * 2; /* the even rank that puts into r */
            for (int i = 0; b && i < N; i++)
                LC_CHECK(b[i] == from * 1000 + i, "pass %d: rank %d's int %d = %d, expected %d", pass, r, i, b[i],
                         from * 1000 + i);
        }
        int *b0 = NULL, *bn = NULL;
        MPI_Win_shared_query(win, 0, &sz, &du, &b0);
        MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &bn);
        LC_CHECK(bn == b0 && sz == N * (MPI_Aint)sizeof(int), "pass %d: MPI_PROC_NULL gave %p size %ld, rank 0 %p",
                 pass, (void *)bn, (long)sz, (void *)b0);
        MPI_Win_free(&win);
    }
    MPI_Info_free(&noncontig);
    MPI_Comm_free(&shm);
    return lc_finish();
}
