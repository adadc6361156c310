/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c — the job `make run` starts: a token travels around the ranks
 * (each adds its rank), then ranks 0 and 1 play ping-pong with 8-byte and
 * 1 MiB messages and report the time, and an allreduce checks the sum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);

    long token = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("ring: the token went around %d ranks on %s and came back as %ld (expected %ld)\n", size, host,
               token, (long)size * (size - 1) / 2);
    } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    }

    if (size > 1) {
        size_t sizes[2] = { 8, 1 << 20 };
        char *buf = calloc(1, 1 << 20);
        for (int s = 0; s < 2; s++) {
            int iters = s == 0 ? 10000 : 200;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters && rank < 2; i++) {
                if (rank == 0) {
                    MPI_Send(buf, (int)sizes[s], MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)sizes[s], MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)sizes[s], MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)sizes[s], MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            double half_rtt = (MPI_Wtime() - t0) / iters / 2;
            if (rank == 0)
                printf("ping-pong 0<->1: %7zu bytes in %8.2f us one way (%.0f MB/s)\n", sizes[s], half_rtt * 1e6,
                       (double)sizes[s] / half_rtt / 1e6);
        }
        free(buf);
    }

    long sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("allreduce: sum of ranks = %ld (expected %ld)\n", sum, (long)size * (size - 1) / 2);
    int ok = token == (long)size * (size - 1) / 2 || rank != 0;
    MPI_Finalize();
    return ok && sum == (long)size * (size - 1) / 2 ? 0 : 1;
}
