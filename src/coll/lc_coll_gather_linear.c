/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_gather_linear.c — gather: every rank sends its block straight
 * to the root, which receives them all at once.  Each block crosses one
 * link once, which beats the binomial tree (log2(p) copies of the data
 * near the root) once blocks are large.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_gather_linear(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root, lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (comm->rank != root) return lc_coll_send(sbuf, sbytes, root, LC_TAG_GATHER, comm);

    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(NULL, rbytes, NULL, sbytes); /* does it fit? (copies nothing) */
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1)
        return sbuf == MPI_IN_PLACE ? MPI_SUCCESS : lc_coll_copy(rb + (size_t)root * rbytes, rbytes, sbuf, sbytes);
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root) rc = lc_coll_irecv(rb + (size_t)i * rbytes, rbytes, i, LC_TAG_GATHER, comm, &reqs[n++]);
    /* The root's own block is copied after the receives are posted, so
     * that senders' fragments and split pushes can flow meanwhile. */
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE) lc_coll_copy(rb + (size_t)root * rbytes, rbytes, sbuf, sbytes);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
