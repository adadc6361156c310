/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allgatherv_ring.c — allgatherv around the ring: p-1 steps, one
 * block per step in each direction, each block at its displacement.
 * Every rank knows all the counts, so block sizes agree on both ends.
 */
#include "coll/lc_coll_impl.h"

int lc_coll_allgatherv_ring(const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv, size_t resize,
                            lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc;
    lc_coll_layout_t lay;
    rc = lc_coll_layout_vector(&lay, p, rv, resize);
    if (rc != MPI_SUCCESS) return rc;
    if (sbuf != MPI_IN_PLACE) rc = lc_coll_copy((char *)rbuf + lay.off[r], lay.len[r], sbuf, sbytes);
    if (rc == MPI_SUCCESS && p > 1) rc = lc_coll_ring_allgather(rbuf, &lay, LC_TAG_ALLGATHERV, comm);
    lc_coll_layout_free(&lay);
    return rc;
}
