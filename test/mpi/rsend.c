/* SPDX-License-Identifier: BSD-3-Clause */
/* rsend: ready mode.  The receiver posts its receives first and then
 * tells the sender (zero-byte message); only then the sender uses
 * MPI_Rsend / MPI_Irsend.  Small and rendezvous sizes, every rank pair
 * in a ring plus a rank to itself. */
#include "lc_test.h"

static const int sizes[] = {0, 1, 1000, 100000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();

    for (int shift = 0; shift < (size > 1 ? 2 : 1); shift++) {
        /* shift 0: to self; shift 1: ring */
        int next = (rank + shift) % size, prev = (rank + size - shift) % size;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k];
            int32_t *sbuf = lc_malloc(sizeof(int32_t) * (size_t)n * 2);
            int32_t *rbuf = lc_malloc(sizeof(int32_t) * (size_t)n * 2);
            for (int i = 0; i < 2 * n; i++)
                sbuf[i] = lc_pattern(rank, k, i);
            MPI_Request rreq[2], sreq, ready_req;
            MPI_Status st[2];
            LC_MPI(MPI_Irecv(rbuf, n, MPI_INT, prev, 10, MPI_COMM_WORLD, &rreq[0]));
            LC_MPI(MPI_Irecv(rbuf + n, n, MPI_INT, prev, 11, MPI_COMM_WORLD, &rreq[1]));
            /* "my receives are posted" to prev; wait for next's */
            LC_MPI(MPI_Isend(NULL, 0, MPI_BYTE, prev, 12, MPI_COMM_WORLD, &ready_req));
            LC_MPI(MPI_Recv(NULL, 0, MPI_BYTE, next, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            LC_MPI(MPI_Irsend(sbuf + n, n, MPI_INT, next, 11, MPI_COMM_WORLD, &sreq));
            /* blocking Rsend, also to self: its receive is posted, so MPI's
             * progress rule says it completes */
            LC_MPI(MPI_Rsend(sbuf, n, MPI_INT, next, 10, MPI_COMM_WORLD));
            LC_MPI(MPI_Waitall(2, rreq, st));
            LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            LC_MPI(MPI_Wait(&ready_req, MPI_STATUS_IGNORE));
            for (int m = 0; m < 2; m++) {
                int c = -1;
                LC_MPI(MPI_Get_count(&st[m], MPI_INT, &c));
                LC_CHECK(c == n && st[m].MPI_SOURCE == prev && st[m].MPI_TAG == 10 + m,
                         "%s of %d ints: count %d source %d tag %d", m ? "Irsend" : "Rsend", n, c,
                         st[m].MPI_SOURCE, st[m].MPI_TAG);
            }
            for (int i = 0; i < 2 * n; i++)
                if (rbuf[i] != lc_pattern(prev, k, i)) {
                    LC_CHECK(0, "%s of %d ints: int %d is %d, expected %d",
                             i < n ? "Rsend" : "Irsend", n, i % n, rbuf[i], lc_pattern(prev, k, i));
                    break;
                }
            free(sbuf);
            free(rbuf);
        }
    }
    return lc_finish();
}
