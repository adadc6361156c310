/* SPDX-License-Identifier: BSD-3-Clause */
/* An MPI program built with MPICH's mpicc.mpich: proves that our mpiexec serves
 * the PMI wire protocol MPICH's own client speaks.  With an argument, rank 1
 * calls MPI_Abort(MPI_COMM_WORLD, 7). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("hello from %d of %d sum %d\n", rank, size, sum);
    if (argc > 1 && rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Finalize();
    return 0;
}
