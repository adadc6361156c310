/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_basic.c: Put, Get, Accumulate, Get_accumulate, Fetch_and_op and
 * Compare_and_swap under MPI_Win_fence, on windows of every flavor that
 * holds memory (Win_create, Win_allocate) and on a dynamic window; exact
 * expected values. */
#include "lc_test.h"

#define N 64

static void run(MPI_Win win, int *mem, int rank, int size, const char *what)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[N], got[N];
    for (int i = 0; i < N; i++) mem[i] = -1;
    MPI_Win_fence(0, win);
    /* put my pattern into my right neighbour's first half */
    for (int i = 0; i < N / 2; i++) src[i] = rank * 1000 + i;
    MPI_Put(src, N / 2, MPI_INT, right, 0, N / 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N / 2; i++)
        LC_CHECK(mem[i] == left * 1000 + i, "%s put: mem[%d] = %d, expected %d", what, i, mem[i], left * 1000 + i);
    /* get the left neighbour's first half back */
    MPI_Get(got, N / 2, MPI_INT, left, 0, N / 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    int ll = (left + size - 1) % size;
    for (int i = 0; i < N / 2; i++)
        LC_CHECK(got[i] == ll * 1000 + i, "%s get: got[%d] = %d, expected %d", what, i, got[i], ll * 1000 + i);
    /* everyone accumulates into rank 0's second half: SUM, then MAX */
    for (int i = 0; i < N / 2; i++) mem[N / 2 + i] = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < N / 2; i++) src[i] = rank + i;
    MPI_Accumulate(src, N / 2, MPI_INT, 0, N / 2, N / 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        for (int i = 0; i < N / 2; i++) {
            int want = size * (size - 1) / 2 + size * i;
            LC_CHECK(mem[N / 2 + i] == want, "%s acc sum: [%d] = %d, expected %d", what, i, mem[N / 2 + i], want);
        }
    MPI_Accumulate(src, N / 2, MPI_INT, 0, N / 2, N / 2, MPI_INT, MPI_MAX, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        for (int i = 0; i < N / 2; i++) {
            int want = size * (size - 1) / 2 + size * i;
            if (size - 1 + i > want) want = size - 1 + i;
            LC_CHECK(mem[N / 2 + i] == want, "%s acc max: [%d] = %d, expected %d", what, i, mem[N / 2 + i], want);
        }
    /* Get_accumulate with MPI_NO_OP reads; with MPI_REPLACE swaps */
    int one = rank, old = -5;
    MPI_Get_accumulate(NULL, 0, MPI_INT, got, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    LC_CHECK(got[0] == rank * 1000, "%s get_acc no_op: %d, expected %d", what, got[0], rank * 1000);
    MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    LC_CHECK(old == rank * 1000 + 1, "%s get_acc replace: old %d, expected %d", what, old, rank * 1000 + 1);
    LC_CHECK(mem[1] == left, "%s get_acc replace: mem[1] = %d, expected %d", what, mem[1], left);
    /* Fetch_and_op SUM on rank 0's mem[2] from everyone: the old values
     * are distinct multiples and the total is exact. */
    if (rank == 0) mem[2] = 0;
    MPI_Win_fence(0, win);
    int inc = 1 << rank, prev = -1;
    MPI_Fetch_and_op(&inc, &prev, MPI_INT, 0, 2, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        LC_CHECK(mem[2] == (1 << size) - 1, "%s fetch_and_op: total %d, expected %d", what, mem[2], (1 << size) - 1);
    LC_CHECK(prev >= 0 && (prev & inc) == 0, "%s fetch_and_op: previous %d already has my bit", what, prev);
    /* Compare_and_swap: one rank wins the slot */
    if (rank == 0) mem[3] = -1;
    MPI_Win_fence(0, win);
    int cmp = -1, mine = rank, res = -7;
    MPI_Compare_and_swap(&mine, &cmp, &res, MPI_INT, 0, 3, win);
    MPI_Win_fence(0, win);
    int won = res == -1, wins = 0;
    MPI_Allreduce(&won, &wins, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    LC_CHECK(wins == 1, "%s compare_and_swap: %d winners", what, wins);
    /* doubles: accumulate and PROD */
    double d = 2.0;
    MPI_Win_fence(0, win);
    if (rank == 0) ((double *)(mem + 4))[0] = 1.0;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 4, 1, MPI_DOUBLE, MPI_PROD, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        LC_CHECK(((double *)(mem + 4))[0] == (double)(1 << size), "%s acc prod: %g", what, ((double *)(mem + 4))[0]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size > 16) LC_FATAL("at most 16 ranks");
    int *mem = malloc(N * sizeof(int));
    MPI_Win win;
    MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(win, mem, rank, size, "create");
    MPI_Win_free(&win);
    free(mem);

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    run(win, mem, rank, size, "allocate");
    int flag = 0, *flavor = NULL;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    LC_CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "flavor attribute");
    MPI_Win_free(&win);
    LC_CHECK(win == MPI_WIN_NULL, "Win_free did not set MPI_WIN_NULL");
    return lc_finish();
}
