/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allgather_ring.c — allgather around the ring, for large blocks:
 * p-1 steps, each rank sends and receives one block per step, so every
 * block crosses each link at most once.
 */
#include "coll/lc_coll_impl.h"

int lc_coll_allgather_ring(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, rc;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy((char *)rbuf + (size_t)comm->rank * rbytes, rbytes, sbuf, sbytes);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return MPI_SUCCESS;
    lc_coll_layout_t lay;
    rc = lc_coll_layout_uniform(&lay, p, rbytes);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_coll_ring_allgather(rbuf, &lay, LC_TAG_ALLGATHER, comm);
    lc_coll_layout_free(&lay);
    return rc;
}
