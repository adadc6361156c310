/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_fatal: MPI_ERRORS_ARE_FATAL is the default.  Rank 0 sends to
 * an invalid rank on a dup of MPI_COMM_WORLD (which inherits the fatal
 * handler); the others wait in a barrier rank 0 never reaches.  Run with
 * expect=failure: the job must end non-zero within a few seconds.  If
 * the bad send returns, the program says so and exits 0 without "No
 * Errors", which the runner reports as a failure. */
#include "lc_test.h"

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    MPI_Comm dup;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (rank == 0) {
        int x = 1;
        int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup);
        fprintf(stderr, "[rank 0] MPI_Send to invalid rank %d returned %d instead of aborting\n",
                size + 5, rc);
        return 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "[rank %d] barrier completed without rank 0\n", rank);
    return 0;
}
