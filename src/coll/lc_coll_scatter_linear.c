/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_scatter_linear.c — scatter: the root sends each rank its block
 * directly, all at once.  Each block crosses one link once: better than
 * the binomial tree for large blocks.  The root copies its own block
 * while the receivers pull theirs.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_scatter_linear(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root, lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (comm->rank != root) return lc_coll_recv(rbuf, rbytes, root, LC_TAG_SCATTER, comm);

    const char *sb = sbuf;
    const void *own = sb + (size_t)root * sbytes;
    if (rbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(NULL, rbytes, NULL, sbytes); /* does it fit? (copies nothing) */
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return rbuf == MPI_IN_PLACE ? MPI_SUCCESS : lc_coll_copy(rbuf, rbytes, own, sbytes);
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
        int dest = lc_coll_mod((long)root + 1 + i, p); /* nearest first, spreads the load */
        if (dest != root) rc = lc_coll_isend(sb + (size_t)dest * sbytes, sbytes, dest, LC_TAG_SCATTER, comm, &reqs[n++]);
    }
    /* The root's own block is copied after the sends are posted: a
     * receiver pulls its block (CMA) while the root copies. */
    if (rc == MPI_SUCCESS && rbuf != MPI_IN_PLACE) lc_coll_copy(rbuf, rbytes, own, sbytes);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
