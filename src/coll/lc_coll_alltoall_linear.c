/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_alltoall_linear.c — alltoall with every send and receive posted
 * at once: one round of latency, the choice for small blocks where the
 * pairwise exchange would pay p-1 round trips.  Peers are visited from
 * r+1 (sends) and r-1 (receives) outwards so that not every rank
 * targets rank 0 first.  MPI_IN_PLACE works on a copy of the receive
 * buffer.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_alltoall_linear(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf, *copy = NULL;
    lc_request_t **reqs = NULL;
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        copy = lc_coll_alloc((size_t)p * rbytes, &rc);
        if (!copy) return rc;
        memcpy(copy, rb, (size_t)p * rbytes);
        sbuf = copy;
        sbytes = rbytes;
    }
    const char *sb = sbuf;
    rc = lc_coll_copy(rb + (size_t)r * rbytes, rbytes, sb + (size_t)r * sbytes, sbytes);
    if (rc != MPI_SUCCESS || p == 1) goto out;
    reqs = lc_coll_alloc(2 * (size_t)p * sizeof(*reqs), &rc);
    if (!reqs) goto out;
    int n = 0;
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int src = lc_coll_mod((long)r - s, p);
        rc = lc_coll_irecv(rb + (size_t)src * rbytes, rbytes, src, LC_TAG_ALLTOALL, comm, &reqs[n++]);
    }
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int dst = lc_coll_mod((long)r + s, p);
        rc = lc_coll_isend(sb + (size_t)dst * sbytes, sbytes, dst, LC_TAG_ALLTOALL, comm, &reqs[n++]);
    }
    rc = lc_coll_waitall(n, reqs, rc);
out:
    free(reqs);
    free(copy);
    return rc;
}
