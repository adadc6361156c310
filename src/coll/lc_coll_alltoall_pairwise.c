/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_alltoall_pairwise.c — alltoall by pairwise exchange.
 *
 * At step s (1 <= s < p) rank r sends its block for r+s and receives the
 * block from r-s: p-1 steps, each rank talks to one peer at a time, so
 * no rank is flooded.  The choice for large blocks.  MPI_IN_PLACE works
 * on a copy of the receive buffer.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_alltoall_pairwise(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf, *copy = NULL;
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
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int dst = lc_coll_mod((long)r + s, p), src = lc_coll_mod((long)r - s, p);
        rc = lc_coll_sendrecv(sb + (size_t)dst * sbytes, sbytes, dst, rb + (size_t)src * rbytes, rbytes, src,
                              LC_TAG_ALLTOALL, comm);
    }
    free(copy);
    return rc;
}
