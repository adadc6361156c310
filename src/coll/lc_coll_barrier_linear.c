/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_barrier_linear.c — fan-in/fan-out barrier through rank 0.
 *
 * Every other rank sends rank 0 an empty message and waits for an empty
 * reply; rank 0 waits for all p-1 arrivals, then releases everyone.  Two
 * message latencies, like the dissemination barrier at 4 ranks, and the
 * rank that leaves first is rank 0: its releases are eager sends that
 * complete locally, so it is out while the others are still receiving.
 *
 * Why the exit order matters: the commonest thing after a barrier is a
 * rooted collective from rank 0 (a broadcast of the next input, a
 * scatter of work).  If rank 0 leaves last, every other rank waits inside
 * that collective for the root to catch up; if it leaves first, its data
 * is on its way before the others look for it (docs/performance.md,
 * coll4).  Used on small communicators only (lc_coll_select.c): rank 0
 * handles 2(p-1) messages, where dissemination gives every rank 2 log2 p.
 *
 * Consecutive barriers cannot mix: rank 0 only posts the receives of the
 * next barrier after its releases of this one, and messages between one
 * pair stay in order.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_barrier_linear(lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (p == 1) return MPI_SUCCESS;
    if (comm->rank != 0) {
        rc = lc_coll_send(NULL, 0, 0, LC_TAG_BARRIER, comm);
        if (rc != MPI_SUCCESS) return rc;
        return lc_coll_recv(NULL, 0, 0, LC_TAG_BARRIER, comm);
    }
    lc_request_t **reqs = lc_coll_alloc((size_t)(p - 1) * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = lc_coll_irecv(NULL, 0, i, LC_TAG_BARRIER, comm, &reqs[n++]);
    rc = lc_coll_waitall(n, reqs, rc);
    n = 0;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = lc_coll_isend(NULL, 0, i, LC_TAG_BARRIER, comm, &reqs[n++]);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
