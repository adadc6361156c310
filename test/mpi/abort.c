/* SPDX-License-Identifier: BSD-3-Clause */
/* abort: MPI_Abort from one rank ends the whole job.  The last rank
 * calls MPI_Abort(MPI_COMM_WORLD, 7) while the others are blocked in a
 * receive from it that will never be satisfied.  Run with
 * expect=failure: the job must exit non-zero within a few seconds with
 * no rank left behind.  If MPI_Abort returned, the program says so and
 * exits 0 without "No Errors", which the runner reports as a failure. */
#include "lc_test.h"

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "[rank %d] MPI_Abort returned\n", rank);
        return 0;
    }
    int x;
    LC_MPI(MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fprintf(stderr, "[rank %d] a receive from the aborting rank completed\n", rank);
    return 0;
}
