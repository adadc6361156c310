/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_bcast.c — the nonblocking broadcast as a schedule.
 *
 * "binomial": on ranks relative to the root, receive from the parent
 * (v minus its lowest set bit), then, in the next round, send to every
 * child at once, largest subtree first.  "linear": the root sends to
 * every rank in one round.  The table's "scatter_allgather" (long
 * messages, 8 ranks or more) has no schedule form yet: binomial runs.
 */
#include "coll/lc_icoll.h"

#include <string.h>

int lc_icoll_bcast(lc_sched_t *s, const char *alg, void *buf, size_t bytes, int root, lc_comm_t *comm)
{
    unsigned p = (unsigned)comm->size, v = (unsigned)lc_coll_rel(comm->rank, root, comm->size);
    if (strcmp(alg, "linear") == 0) {
        if (v != 0) return lc_sched_recv(s, buf, bytes, root);
        for (unsigned i = 1; i < p; i++) LC_SCHED_TRY(lc_sched_send(s, buf, bytes, lc_coll_abs((int)i, root, (int)p)));
        return MPI_SUCCESS;
    }
    unsigned mask = 1;
    for (; mask < p; mask <<= 1) {
        if (v & mask) {
            LC_SCHED_TRY(lc_sched_recv(s, buf, bytes, lc_coll_abs((int)(v - mask), root, (int)p)));
            LC_SCHED_TRY(lc_sched_fence(s));
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < p) LC_SCHED_TRY(lc_sched_send(s, buf, bytes, lc_coll_abs((int)(v + mask), root, (int)p)));
    return MPI_SUCCESS;
}
