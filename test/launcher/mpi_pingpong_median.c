/* SPDX-License-Identifier: BSD-3-Clause */
/* 8 B ping-pong between ranks 0 and 1 for SECONDS of wall time (argv[1],
 * default 1): rank 0 prints "MEDIAN <µs> N <round trips>", the median of
 * half round trips.  For t_foreign_load.sh: a median, not a mean, so a
 * few preemptions do not decide; a spinning wait beside busy processes
 * loses whole time slices per round trip, and then the median does. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2000000

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double secs = argc > 1 ? atof(argv[1]) : 1.0;
    double *t = rank == 0 ? malloc(sizeof(double) * MAXN) : NULL;
    char buf[8] = {0};
    int n = 0, go = 1;

    if (rank == 0 && !t) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    while (go) {
        if (rank == 0) {
            double s = MPI_Wtime();
            go = s - t0 < secs && n < MAXN;
            buf[0] = (char)go; /* the last round trip tells rank 1 to stop */
            MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t[n++] = (MPI_Wtime() - s) * 1e6 / 2;
        } else if (rank == 1) {
            MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            go = buf[0];
            MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        } else {
            go = 0;
        }
    }
    if (rank == 0) {
        qsort(t, (size_t)n, sizeof(double), cmp);
        printf("MEDIAN %.2f N %d\n", t[n / 2], n);
        free(t);
    }
    MPI_Finalize();
    return 0;
}
