/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_dynamic.c: Win_create_dynamic, Win_attach of two regions, their
 * addresses exchanged with MPI_Get_address, Put/Get/Fetch_and_op to them
 * under lock_all, then Win_detach. */
#include "lc_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int a[8] = { 0 }, b[4] = { 0 };
    MPI_Win_attach(win, a, sizeof a);
    MPI_Win_attach(win, b, sizeof b);
    MPI_Aint mine[2], *all = malloc(2 * (size_t)size * sizeof(MPI_Aint));
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_lock_all(0, win);
    int v[8];
    for (int i = 0; i < 8; i++) v[i] = rank * 10 + i;
    MPI_Put(v, 8, MPI_INT, right, all[2 * right], 8, MPI_INT, win);
    int one = 1, prev;
    MPI_Fetch_and_op(&one, &prev, MPI_INT, 0, all[1] + sizeof(int), MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int i = 0; i < 8; i++) LC_CHECK(a[i] == left * 10 + i, "a[%d] = %d, expected %d", i, a[i], left * 10 + i);
    int got[8];
    MPI_Get(got, 8, MPI_INT, left, all[2 * left], 8, MPI_INT, win);
    MPI_Win_flush(left, win);
    int ll = (left + size - 1) % size;
    for (int i = 0; i < 8; i++) LC_CHECK(got[i] == ll * 10 + i, "got[%d] = %d", i, got[i]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) LC_CHECK(b[1] == size, "fetch_and_op total %d, expected %d", b[1], size);
    MPI_Win_detach(win, a);
    MPI_Win_detach(win, b);
    MPI_Win_free(&win);
    free(all);
    return lc_finish();
}
