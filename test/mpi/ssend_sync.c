/* SPDX-License-Identifier: BSD-3-Clause */
/* ssend_sync: synchronous mode.  MPI_Issend must not complete before the
 * receiver has matched it: rank A issues an Issend to B, and B posts the
 * matching receive only after A has polled MPI_Test for 200 ms without
 * completion and told B so (on another tag).  Then MPI_Ssend blocks
 * until the receive is posted (the receiver waits 200 ms after A's last
 * message before receiving), for a small and a large message, and a
 * 0-byte Ssend is still synchronous. */
#include "lc_test.h"
#include <time.h>

#define HOLD 0.2 /* seconds the receiver holds back */

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void pair(int a, int b, int rank, int n)
{
    int32_t *buf = lc_malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    int32_t go = 1;
    if (rank == a) {
        for (int i = 0; i < n; i++)
            buf[i] = lc_pattern(a, n, i);
        /* Issend: stays incomplete while B has no receive posted */
        MPI_Request req;
        LC_MPI(MPI_Issend(buf, n, MPI_INT, b, 1, MPI_COMM_WORLD, &req));
        int flag = 0;
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < HOLD) {
            LC_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                LC_CHECK(0, "MPI_Issend of %d ints to %d completed before any receive was posted",
                         n, b);
                break;
            }
        }
        LC_MPI(MPI_Send(&go, 1, MPI_INT, b, 2, MPI_COMM_WORLD));
        if (!flag)
            LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

        /* Ssend: blocks until B receives, which B does HOLD after it got
         * our "go", sent after t1: so the Ssend cannot end before t1+HOLD */
        double t1 = MPI_Wtime();
        LC_MPI(MPI_Send(&go, 1, MPI_INT, b, 3, MPI_COMM_WORLD));
        LC_MPI(MPI_Ssend(buf, n, MPI_INT, b, 4, MPI_COMM_WORLD));
        double dt = MPI_Wtime() - t1;
        LC_CHECK(dt >= HOLD * 0.99, "MPI_Ssend of %d ints returned %.3f s after the receiver was "
                 "told to wait %.3f s before posting its receive", n, dt, HOLD);
    } else if (rank == b) {
        MPI_Status st;
        LC_MPI(MPI_Recv(&go, 1, MPI_INT, a, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Recv(buf, n, MPI_INT, a, 1, MPI_COMM_WORLD, &st));
        int c = -1;
        LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
        LC_CHECK(c == n, "Issend message: %d ints, expected %d", c, n);
        for (int i = 0; i < c && i < n; i++)
            if (buf[i] != lc_pattern(a, n, i)) {
                LC_CHECK(0, "Issend message int %d is %d, expected %d", i, buf[i],
                         lc_pattern(a, n, i));
                break;
            }
        LC_MPI(MPI_Recv(&go, 1, MPI_INT, a, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        nap(HOLD);
        LC_MPI(MPI_Recv(buf, n, MPI_INT, a, 4, MPI_COMM_WORLD, &st));
        LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
        LC_CHECK(c == n, "Ssend message: %d ints, expected %d", c, n);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    if (size < 2)
        LC_FATAL("ssend_sync needs at least 2 ranks");
    static const int ns[] = {0, 1, 100000};
    /* pairs (0,1) and, if there are more ranks, (size-1, 2) in the other
     * direction at the same time */
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        pair(0, 1, rank, ns[k]);
        if (size >= 3)
            pair(size - 1, 2 % size == size - 1 ? 1 : 2, rank, ns[k]);
    }
    return lc_finish();
}
