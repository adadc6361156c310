/* SPDX-License-Identifier: BSD-3-Clause */
/* kill_rank: a rank dies by SIGKILL in the middle of a job.
 * Run by kill_rank.sh with 4 ranks: all ranks exchange 64 KiB messages
 * with both ring neighbours in a loop; the victim rank (argv[1], default
 * 2) kills itself after 0.5 s while transfers are in flight.  The
 * launcher must notice, end the job with a non-zero exit status within a
 * few seconds, name the dead rank on stderr, and leave no shared memory
 * behind.  The survivors never return from MPI (their peer is gone); if
 * the loop ever ends on its own (20 s) the program exits 0 without "No
 * Errors", which the driver reports as a failure. */
#include "lc_test.h"
#include <signal.h>

#define LEN (64 * 1024)

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int victim = argc > 1 ? atoi(argv[1]) : 2;
    if (victim < 0 || victim >= size)
        LC_FATAL("victim rank %d out of range (size %d)", victim, size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char *out[2], *in[2];
    for (int i = 0; i < 2; i++) {
        out[i] = lc_malloc(LEN);
        in[i] = lc_malloc(LEN);
        memset(out[i], rank, LEN);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    long iter = 0;
    while (MPI_Wtime() - t0 < 20.0) {
        MPI_Request req[4];
        LC_MPI(MPI_Irecv(in[0], LEN, MPI_BYTE, prev, 0, MPI_COMM_WORLD, &req[0]));
        LC_MPI(MPI_Irecv(in[1], LEN, MPI_BYTE, next, 1, MPI_COMM_WORLD, &req[1]));
        LC_MPI(MPI_Isend(out[0], LEN, MPI_BYTE, next, 0, MPI_COMM_WORLD, &req[2]));
        LC_MPI(MPI_Isend(out[1], LEN, MPI_BYTE, prev, 1, MPI_COMM_WORLD, &req[3]));
        if (rank == victim && MPI_Wtime() - t0 > 0.5)
            raise(SIGKILL); /* with its sends and receives in flight */
        LC_MPI(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        iter++;
    }
    fprintf(stderr, "[rank %d] kill_rank: loop ran 20 s (%ld iterations): nobody was killed?\n",
            rank, iter);
    MPI_Finalize();
    return 0;
}
