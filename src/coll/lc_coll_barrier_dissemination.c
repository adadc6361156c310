/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_barrier_dissemination.c — dissemination barrier.
 *
 * In round k (distance 2^k) every rank signals rank + 2^k and waits for
 * rank - 2^k.  After ceil(log2 p) rounds each rank has heard, directly or
 * through a chain, from every other rank, so none can leave before all
 * have entered.  Works for any p, no root, no extra rounds for
 * non-powers of two.
 */
#include "coll/lc_coll_impl.h"

int lc_coll_barrier_dissemination(lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    for (unsigned dist = 1; dist < (unsigned)p; dist <<= 1) {
        int rc = lc_coll_sendrecv(NULL, 0, lc_coll_mod((long)r + dist, p), NULL, 0,
                                  lc_coll_mod((long)r - dist, p), LC_TAG_BARRIER, comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
