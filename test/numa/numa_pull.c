/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How did a rendezvous message move: pulled by the receiver (CMA) or
 * pipelined through the rings with the sender's help?  Rank 0 posts an
 * MPI_Isend of `bytes` and then sleeps without calling MPI; rank 1
 * receives it.  A pull needs nothing from rank 0, so the receive ends at
 * once; the pipeline needs rank 0 to answer the CTS, so the receive waits
 * for the sleep to end.  The observed mode must be the expected one.
 *
 *   numa_pull pull|pipeline [bytes]     (2 ranks)
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLEEP_S 1.5
#define PULL_LIMIT_S 0.5 /* far below SLEEP_S, far above a 1 MiB copy */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 2 || (strcmp(argv[1], "pull") && strcmp(argv[1], "pipeline"))) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 numa_pull pull|pipeline [bytes]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int bytes = argc > 2 ? atoi(argv[2]) : 1 << 20;
    unsigned char *buf = malloc((size_t)bytes);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);
    int ok = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < bytes; i++) buf[i] = (unsigned char)(i * 7 + 3);
        MPI_Request req;
        MPI_Isend(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req);
        struct timespec ts = { (time_t)SLEEP_S, (long)((SLEEP_S - (int)SLEEP_S) * 1e9) };
        nanosleep(&ts, NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        memset(buf, 0, (size_t)bytes);
        double t0 = MPI_Wtime();
        MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double dt = MPI_Wtime() - t0;
        for (int i = 0; i < bytes; i++)
            if (buf[i] != (unsigned char)(i * 7 + 3)) {
                printf("numa_pull: byte %d corrupted\n", i);
                ok = 0;
                break;
            }
        const char *seen = dt < PULL_LIMIT_S ? "pull" : "pipeline";
        printf("numa_pull: %d bytes received in %.3f s: %s (expected %s)\n", bytes, dt, seen, argv[1]);
        if (strcmp(seen, argv[1])) ok = 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return ok ? 0 : 1;
}
