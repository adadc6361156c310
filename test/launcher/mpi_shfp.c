/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_shfp FILE [GO]: every rank writes one int through the shared file
 * pointer of FILE, twice, and checks the pointer's final position.  With
 * GO, rank 0 says "READY" after the first round and all wait until the
 * file GO exists (up to 60 s) — a job that holds its side file open, to be
 * killed or left alive by test/launcher/t_io_shfp.sh (issue 12, point 7).
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, v;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: mpi_shfp FILE [GO]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_File fh;
    MPI_Status st;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    v = rank;
    if (MPI_File_write_shared(fh, &v, 1, MPI_INT, &st) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 2) {
        if (rank == 0) {
            printf("READY\n");
            fflush(stdout);
        }
        for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++) usleep(10000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_write_shared(fh, &v, 1, MPI_INT, &st) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    int bad = pos != (MPI_Offset)(2 * size * (int)sizeof(int));
    if (bad) fprintf(stderr, "rank %d: shared position %lld, expected %d\n", rank, (long long)pos, 2 * size * 4);
    MPI_File_close(&fh);
    MPI_Finalize();
    if (rank == 0 && !bad) printf("No Errors\n");
    return bad;
}
