/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allgather_bruck.c — Bruck's allgather, for small blocks.
 *
 * Rank r keeps blocks in the order r, r+1, r+2, ... (mod p).  At the step
 * of distance k it sends its first min(k, p-k) blocks to r-k and appends
 * as many from r+k, whose first blocks are r+k, r+k+1, ...  After
 * ceil(log2 p) steps it holds all p blocks, then rotates them into rank
 * order.  Works for any p, unlike recursive doubling.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_allgather_bruck(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf;
    size_t bs = rbytes;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(rb + (size_t)r * bs, bs, sbuf, sbytes);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return MPI_SUCCESS;

    char *tmp = lc_coll_alloc((size_t)p * bs, &rc);
    if (!tmp) return rc;
    if (bs) memcpy(tmp, rb + (size_t)r * bs, bs);
    for (unsigned k = 1; k < (unsigned)p; k <<= 1) {
        size_t n = k < (unsigned)p - k ? k : (unsigned)p - k;
        rc = lc_coll_sendrecv(tmp, n * bs, lc_coll_mod((long)r - k, p), tmp + (size_t)k * bs, n * bs,
                              lc_coll_mod((long)r + k, p), LC_TAG_ALLGATHER, comm);
        if (rc != MPI_SUCCESS) goto out;
    }
    /* tmp[j] is the block of rank (r + j) mod p. */
    size_t head = (size_t)(p - r) * bs;
    memcpy(rb + (size_t)r * bs, tmp, head);
    memcpy(rb, tmp + head, (size_t)r * bs);
out:
    free(tmp);
    return rc;
}
