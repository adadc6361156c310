/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_bcast_binomial.c — broadcast down a binomial tree.
 *
 * On ranks relative to the root, rank v receives from v minus its lowest
 * set bit and sends to v + 2^k for every 2^k below that bit (largest
 * first, so the biggest subtrees start earliest).  ceil(log2 p) rounds;
 * each rank sends the whole message to each child: the choice for small
 * messages.
 */
#include "coll/lc_coll_impl.h"

int lc_coll_bcast_binomial(void *buf, size_t bytes, int root, lc_comm_t *comm)
{
    unsigned p = (unsigned)comm->size, v = (unsigned)lc_coll_rel(comm->rank, root, comm->size);
    int rc = MPI_SUCCESS;
    unsigned mask = 1;
    for (; mask < p; mask <<= 1) {
        if (v & mask) {
            rc = lc_coll_recv(buf, bytes, lc_coll_abs((int)(v - mask), root, (int)p), LC_TAG_BCAST, comm);
            if (rc != MPI_SUCCESS) return rc;
            break;
        }
    }
    /* Children v + m for every m below v's lowest bit (the root: below
     * the first power of two >= p); at most 32 of them. */
    lc_request_t *reqs[32];
    int n = 0;
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
        if (v + mask < p)
            rc = lc_coll_isend(buf, bytes, lc_coll_abs((int)(v + mask), root, (int)p), LC_TAG_BCAST, comm,
                               &reqs[n++]);
    }
    return lc_coll_waitall(n, reqs, rc);
}
