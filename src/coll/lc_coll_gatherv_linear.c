/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_gatherv_linear.c — gatherv: every rank sends its block straight
 * to the root, which receives each at its displacement.  Only the root
 * knows the counts, so no tree can route the blocks.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_gatherv_linear(const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv, size_t resize, int root,
                           lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (comm->rank != root) return lc_coll_send(sbuf, sbytes, root, LC_TAG_GATHERV, comm);

    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(rb + lc_vec_offset(rv, root, resize), lc_vec_count(rv, root) * resize, sbuf, sbytes);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return MPI_SUCCESS;
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    /* Zero-length blocks are still received: the sender does not know
     * the root's counts and always sends. */
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = lc_coll_irecv(rb + lc_vec_offset(rv, i, resize), lc_vec_count(rv, i) * resize, i, LC_TAG_GATHERV,
                               comm, &reqs[n++]);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
