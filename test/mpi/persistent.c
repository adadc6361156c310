/* SPDX-License-Identifier: BSD-3-Clause */
/* persistent: MPI_Send_init / MPI_Recv_init requests reused over many
 * iterations with MPI_Start and MPI_Startall, completed by Wait, Test,
 * Waitall, Waitany; the buffer contents are read at each Start (new
 * data every round); an inactive persistent request behaves like a null
 * one in Waitany/Testall; MPI_Request_get_status does not deactivate;
 * MPI_Request_free of an inactive request; Isend + MPI_Request_free
 * (the message is still delivered). */
#include "lc_test.h"

#define ITERS 20
#define N 3000 /* ints: one eager-ish ring and one bigger */

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static int32_t sbuf[2][N], rbuf[2][N];
    static const int n_of[2] = {4, N};
    MPI_Request reqs[4];

    LC_MPI(MPI_Recv_init(rbuf[0], n_of[0], MPI_INT, prev, 0, MPI_COMM_WORLD, &reqs[0]));
    LC_MPI(MPI_Recv_init(rbuf[1], n_of[1], MPI_INT, prev, 1, MPI_COMM_WORLD, &reqs[1]));
    LC_MPI(MPI_Send_init(sbuf[0], n_of[0], MPI_INT, next, 0, MPI_COMM_WORLD, &reqs[2]));
    LC_MPI(MPI_Send_init(sbuf[1], n_of[1], MPI_INT, next, 1, MPI_COMM_WORLD, &reqs[3]));

    /* inactive persistent requests: Waitany gives MPI_UNDEFINED, Testall true */
    int idx = 5, flag = 5;
    LC_MPI(MPI_Waitany(4, reqs, &idx, MPI_STATUS_IGNORE));
    LC_CHECK(idx == MPI_UNDEFINED, "MPI_Waitany on inactive persistent requests gave %d", idx);
    LC_MPI(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE));
    LC_CHECK(flag == 1, "MPI_Testall on inactive persistent requests gave %d", flag);
    for (int i = 0; i < 4; i++)
        LC_CHECK(reqs[i] != MPI_REQUEST_NULL, "completion call freed inactive persistent request %d",
                 i);

    for (int it = 0; it < ITERS; it++) {
        for (int m = 0; m < 2; m++)
            for (int i = 0; i < n_of[m]; i++) {
                sbuf[m][i] = lc_pattern(rank, it * 2 + m, i);
                rbuf[m][i] = -1;
            }
        MPI_Status sts[4];
        switch (it % 4) {
        case 0: /* Startall + Waitall */
            LC_MPI(MPI_Startall(4, reqs));
            LC_MPI(MPI_Waitall(4, reqs, sts));
            break;
        case 1: /* Start each, Wait each (receives first) */
            for (int i = 0; i < 4; i++)
                LC_MPI(MPI_Start(&reqs[i]));
            for (int i = 0; i < 4; i++)
                LC_MPI(MPI_Wait(&reqs[i], &sts[i]));
            break;
        case 2: { /* sends first, then receives; complete with Test loops */
            for (int i = 3; i >= 0; i--)
                LC_MPI(MPI_Start(&reqs[i]));
            for (int i = 0; i < 4; i++) {
                flag = 0;
                double t0 = MPI_Wtime();
                while (!flag && MPI_Wtime() - t0 < 30.0)
                    LC_MPI(MPI_Test(&reqs[i], &flag, &sts[i]));
                if (!flag)
                    LC_FATAL("persistent request %d not complete after 30 s", i);
            }
            break;
        }
        case 3: { /* Startall, Request_get_status until done, then Waitany x4 */
            LC_MPI(MPI_Startall(4, reqs));
            flag = 0;
            double t0 = MPI_Wtime();
            while (!flag && MPI_Wtime() - t0 < 30.0)
                LC_MPI(MPI_Request_get_status(reqs[1], &flag, &sts[1]));
            LC_CHECK(flag, "Request_get_status never saw the receive complete");
            int done[4] = {0, 0, 0, 0};
            for (int k = 0; k < 4; k++) {
                MPI_Status s;
                LC_MPI(MPI_Waitany(4, reqs, &idx, &s));
                if (idx < 0 || idx >= 4 || done[idx]) {
                    LC_CHECK(0, "MPI_Waitany round %d gave index %d", k, idx);
                    continue;
                }
                done[idx] = 1;
                sts[idx] = s;
            }
            /* all four now inactive */
            LC_MPI(MPI_Waitany(4, reqs, &idx, MPI_STATUS_IGNORE));
            LC_CHECK(idx == MPI_UNDEFINED, "MPI_Waitany after all completed gave %d", idx);
            break;
        }
        }
        for (int i = 0; i < 4; i++)
            LC_CHECK(reqs[i] != MPI_REQUEST_NULL, "iteration %d freed persistent request %d", it, i);
        for (int m = 0; m < 2; m++) {
            int c = -1;
            LC_MPI(MPI_Get_count(&sts[m], MPI_INT, &c));
            LC_CHECK(c == n_of[m] && sts[m].MPI_SOURCE == prev && sts[m].MPI_TAG == m,
                     "iteration %d receive %d: count %d source %d tag %d", it, m, c,
                     sts[m].MPI_SOURCE, sts[m].MPI_TAG);
            for (int i = 0; i < n_of[m]; i++)
                if (rbuf[m][i] != lc_pattern(prev, it * 2 + m, i)) {
                    LC_CHECK(0, "iteration %d receive %d: int %d is %d, expected %d (stale data?)",
                             it, m, i, rbuf[m][i], lc_pattern(prev, it * 2 + m, i));
                    break;
                }
        }
    }
    for (int i = 0; i < 4; i++) {
        LC_MPI(MPI_Request_free(&reqs[i]));
        LC_CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Request_free left request %d non-null", i);
    }

    /* Isend + Request_free: delivered anyway */
    int32_t v = lc_pattern(rank, 99, 0), got = -1;
    MPI_Request r;
    LC_MPI(MPI_Isend(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &r));
    LC_MPI(MPI_Request_free(&r));
    LC_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free of an active Isend left it non-null");
    LC_MPI(MPI_Recv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    LC_CHECK(got == lc_pattern(prev, 99, 0), "message of a freed Isend: got %d, expected %d", got,
             lc_pattern(prev, 99, 0));
    /* v must stay valid until we know it was sent: the barrier after
     * every rank received ensures that */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return lc_finish();
}
