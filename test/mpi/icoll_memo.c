/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icoll_memo.c — repeated MPI_Ibcast, MPI_Ireduce and MPI_Ibarrier with
 * arguments that change one at a time between calls on the same buffers:
 * the root, the operation, the count, the contents, the communicator (a
 * dup freed and made again).  A library that reuses the schedule built
 * for an earlier call with equal arguments (Locus's schedule memo,
 * src/coll/lc_sched_memo.c) must notice each change.  Also three
 * Ibarriers outstanding at once, again and again (one argument list,
 * three running schedules), completed in reverse order.
 * (icoll_repeat does the same for MPI_Iallreduce.)
 */
#include "lc_test.h"

#include <stdlib.h>

#define N 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int buf[N], sb[N], rb[N];
    MPI_Request req[3];

    for (int it = 0; it < 40; it++) {
        int root = (it / 2) % p, count = it % 5 == 4 ? N / 2 : N;
        /* Ibcast: root and contents change, buffer stays. */
        for (int i = 0; i < N; i++) buf[i] = rank == root ? it * 1000 + i : -1;
        LC_MPI(MPI_Ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
        LC_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        for (int i = 0; i < count; i++) LC_CHECK(buf[i] == it * 1000 + i, "it %d: bcast[%d] = %d", it, i, buf[i]);
        for (int i = count; i < N; i++) LC_CHECK(buf[i] == (rank == root ? it * 1000 + i : -1), "it %d: bcast wrote past count", it);

        /* Ireduce: root, op and count change, buffers stay. */
        MPI_Op op = it % 3 == 0 ? MPI_MAX : MPI_SUM;
        for (int i = 0; i < N; i++) {
            sb[i] = rank + i + it;
            rb[i] = -7;
        }
        LC_MPI(MPI_Ireduce(sb, rb, count, MPI_INT, op, root, MPI_COMM_WORLD, &req[0]));
        LC_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        if (rank == root) {
            for (int i = 0; i < count; i++) {
                int want = op == MPI_MAX ? p - 1 + i + it : p * (i + it) + p * (p - 1) / 2;
                LC_CHECK(rb[i] == want, "it %d: reduce[%d] = %d, want %d", it, i, rb[i], want);
            }
            for (int i = count; i < N; i++) LC_CHECK(rb[i] == -7, "it %d: reduce wrote past count", it);
        }

        /* Three Ibarriers outstanding, completed in reverse order. */
        for (int k = 0; k < 3; k++) LC_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req[k]));
        for (int k = 2; k >= 0; k--) LC_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));

        /* A new communicator each few rounds (may get the freed one's
         * address): the same call on it must still be right. */
        if (it % 4 == 0) {
            MPI_Comm dup;
            LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
            for (int k = 0; k < 3; k++) {
                int v = rank == 0 ? it + k : -1;
                LC_MPI(MPI_Ibcast(&v, 1, MPI_INT, 0, dup, &req[0]));
                LC_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
                LC_CHECK(v == it + k, "it %d: bcast on a dup gave %d", it, v);
            }
            LC_MPI(MPI_Comm_free(&dup));
        }
    }
    return lc_finish();
}
