/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_bcast_linear.c — broadcast: the root sends the whole message to
 * every other rank directly.  p-1 sends from the root instead of a tree
 * of depth log2 p: no rank waits for a forwarder, which matters for short
 * messages when ranks outnumber cores (a forwarder that is descheduled
 * holds up its whole subtree).
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_bcast_linear(void *buf, size_t bytes, int root, lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (comm->rank != root) return lc_coll_recv(buf, bytes, root, LC_TAG_BCAST, comm);
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = lc_coll_isend(buf, bytes, lc_coll_mod((long)root + i, p), LC_TAG_BCAST, comm, &reqs[n++]);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
