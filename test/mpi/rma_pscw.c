/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_pscw.c: generalized active target.  Even ranks expose their window
 * to the odd ranks (post/wait, and post/test); odd ranks start, put and
 * accumulate into every even rank, complete. */
#include "lc_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ne = (size + 1) / 2, no = size / 2, e[64], o[64];
    for (int i = 0; i < ne; i++) e[i] = 2 * i;
    for (int i = 0; i < no; i++) o[i] = 2 * i + 1;
    MPI_Group_incl(world, ne, e, &evens);
    MPI_Group_incl(world, no, o, &odds);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < 2; round++) {
        if (rank % 2 == 0) {
            MPI_Win_post(odds, 0, win);
            if (round == 0) {
                MPI_Win_wait(win);
            } else {
                int flag = 0;
                while (!flag) MPI_Win_test(win, &flag);
            }
            int want_sum = 0;
            for (int i = 0; i < no; i++) want_sum += o[i];
            LC_CHECK(mem[1] == (round + 1) * want_sum, "round %d: accumulated %d, expected %d", round, mem[1],
                     (round + 1) * want_sum);
            if (no > 0) LC_CHECK(mem[0] % 2 == 1, "round %d: put value %d is not an odd rank", round, mem[0]);
        } else {
            MPI_Win_start(evens, 0, win);
            for (int i = 0; i < ne; i++) {
                MPI_Put(&rank, 1, MPI_INT, e[i], 0, 1, MPI_INT, win);
                MPI_Accumulate(&rank, 1, MPI_INT, e[i], 1, 1, MPI_INT, MPI_SUM, win);
            }
            MPI_Win_complete(win);
        }
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    return lc_finish();
}
