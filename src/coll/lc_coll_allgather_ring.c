/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allgather_ring.c — allgather around the ring, for large blocks:
 * p-1 steps, each rank sends and receives one block per step, so every
 * block crosses each link at most once.
 *
 * Out of place the first step sends this rank's block from sbuf and
 * copies it into rbuf while the neighbours move it: the copy no longer
 * delays the first send (2 ranks, 64 KiB blocks: the copy was a step of
 * its own before the exchange).
 */
#include "coll/lc_coll_impl.h"

/* Step 0 out of place: receive the left neighbour's block, send ours
 * from sbuf, copy ours into place meanwhile. */
static int lc_allgather_ring_first(const void *sbuf, size_t sbytes, char *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, left = lc_coll_mod((long)r - 1, p);
    lc_request_t *reqs[2] = { NULL, NULL };
    int rc = lc_coll_irecv(rbuf + (size_t)left * rbytes, rbytes, left, LC_TAG_ALLGATHER, comm, &reqs[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_coll_isend(sbuf, sbytes, lc_coll_mod((long)r + 1, p), LC_TAG_ALLGATHER, comm, &reqs[1]);
    if (rc != MPI_SUCCESS)
        lc_pt2pt_cancel(reqs[0]); /* the peer may never send now */
    else
        lc_coll_copy(rbuf + (size_t)r * rbytes, rbytes, sbuf, sbytes); /* fits: checked by the caller */
    return lc_coll_waitall(2, reqs, rc);
}

int lc_coll_allgather_ring(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, lc_comm_t *comm)
{
    int p = comm->size, rc;
    char *own = (char *)rbuf + (size_t)comm->rank * rbytes;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(NULL, rbytes, NULL, sbytes); /* does it fit? (copies nothing) */
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return sbuf == MPI_IN_PLACE ? MPI_SUCCESS : lc_coll_copy(own, rbytes, sbuf, sbytes);
    lc_coll_layout_t lay;
    rc = lc_coll_layout_uniform(&lay, p, rbytes);
    if (rc != MPI_SUCCESS) return rc;
    int first = 0;
    if (sbuf != MPI_IN_PLACE) {
        rc = lc_allgather_ring_first(sbuf, sbytes, rbuf, rbytes, comm);
        first = 1;
    }
    if (rc == MPI_SUCCESS) rc = lc_coll_ring_allgather_from(rbuf, &lay, first, LC_TAG_ALLGATHER, comm);
    lc_coll_layout_free(&lay);
    return rc;
}
