/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_match_comms.c - the cost of matching when many communicators carry
 * traffic at once (issue 14: per-communicator queues).  Standard MPI
 * only, so the same source builds with any MPI's mpicc.  Two ranks,
 * C duplicates of MPI_COMM_WORLD, a window of W 8 B messages on each.
 *
 * -m posted (default): rank 1 posts W MPI_Irecv on every communicator,
 * communicator 0 first, then tells rank 0 to go; rank 0 sends W messages
 * on every communicator, the last communicator first.  With one
 * process-wide posted queue the message for communicator c is compared
 * with every receive still posted on the communicators before it.
 * -m unexp: rank 0 sends first (communicator 0 first) and a 0 B marker on
 * MPI_COMM_WORLD; rank 1 waits for the marker, so the messages it found
 * on the way are unexpected, then posts its receives, the last
 * communicator first.  Each iteration ends with an MPI_Barrier.
 *
 * Usage: lc_match_comms [-C comms] [-w window] [-i iters] [-m posted|unexp]
 * Output: one line: mode, comms, window, messages, seconds, ns per message.
 * For instruction counts run rank 1 under callgrind and read the
 * inclusive cost of the receive side (Locus: lc_pt2pt_on_message and
 * lc_pt2pt_irecv_post), which does not depend on how long a wait spun.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXC 1024
#define MAXW 64

int main(int argc, char **argv)
{
    int rank, size, ncomm = 64, window = 8, unexp = 0, c;
    long iters = 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((c = getopt(argc, argv, "C:w:i:m:")) != -1) {
        switch (c) {
        case 'C': ncomm = atoi(optarg); break;
        case 'w': window = atoi(optarg); break;
        case 'i': iters = atol(optarg); break;
        case 'm': unexp = strcmp(optarg, "unexp") == 0; break;
        default:
            if (rank == 0) fprintf(stderr, "usage: lc_match_comms [-C comms] [-w window] [-i iters] [-m posted|unexp]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (size != 2 || ncomm < 1 || ncomm > MAXC || window < 1 || window > MAXW) {
        if (rank == 0) fprintf(stderr, "lc_match_comms: 2 ranks, 1 <= C <= %d, 1 <= w <= %d\n", MAXC, MAXW);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)ncomm);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)ncomm * window);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)ncomm * window);
    long *buf = calloc((size_t)ncomm * window, sizeof(long));
    if (!comms || !rq || !sts || !buf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < ncomm; i++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    long bad = 0;
    double t0 = 0;
    for (long it = -1; it < iters; it++) { /* iteration -1: warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        if (it == 0) t0 = MPI_Wtime();
        int n = 0;
        if (rank == 1 && !unexp) {
            for (int i = 0; i < ncomm; i++)
                for (int k = 0; k < window; k++, n++)
                    MPI_Irecv(&buf[n], 1, MPI_LONG, 0, k, comms[i], &rq[n]);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        } else if (rank == 0 && !unexp) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = ncomm - 1; i >= 0; i--)
                for (int k = 0; k < window; k++, n++) {
                    long v = it * MAXC * MAXW + i * MAXW + k;
                    MPI_Send(&v, 1, MPI_LONG, 1, k, comms[i]);
                }
        } else if (rank == 0) {
            for (int i = 0; i < ncomm; i++)
                for (int k = 0; k < window; k++) {
                    long v = it * MAXC * MAXW + i * MAXW + k;
                    MPI_Send(&v, 1, MPI_LONG, 1, k, comms[i]);
                }
            MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = ncomm - 1; i >= 0; i--)
                for (int k = 0; k < window; k++)
                    MPI_Irecv(&buf[i * window + k], 1, MPI_LONG, 0, k, comms[i], &rq[i * window + k]);
        }
        if (rank == 1) {
            MPI_Waitall(ncomm * window, rq, sts); /* not MPI_STATUSES_IGNORE: MPICH's header makes gcc warn */
            for (int i = 0; i < ncomm; i++)
                for (int k = 0; k < window; k++)
                    if (buf[i * window + k] != it * MAXC * MAXW + i * MAXW + k) bad++;
        }
    }
    double el = MPI_Wtime() - t0;
    if (rank == 1) {
        double msgs = (double)iters * ncomm * window;
        printf("mode=%s comms=%d window=%d messages=%.0f seconds=%.4f ns_per_msg=%.1f bad=%ld\n",
               unexp ? "unexp" : "posted", ncomm, window, msgs, el, el / msgs * 1e9, bad);
    }
    for (int i = 0; i < ncomm; i++) MPI_Comm_free(&comms[i]);
    free(comms);
    free(rq);
    free(sts);
    free(buf);
    MPI_Finalize();
    return bad != 0;
}
