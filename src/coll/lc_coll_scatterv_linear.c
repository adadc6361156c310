/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_scatterv_linear.c — scatterv: the root sends each rank its
 * block from its displacement, all at once.  Only the root knows the
 * counts, so no tree can route the blocks.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_scatterv_linear(const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf, size_t rbytes, int root,
                            lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    if (comm->rank != root) return lc_coll_recv(rbuf, rbytes, root, LC_TAG_SCATTERV, comm);

    const char *sb = sbuf;
    if (rbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(rbuf, rbytes, sb + lc_vec_offset(sv, root, sesize), lc_vec_count(sv, root) * sesize);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (p == 1) return MPI_SUCCESS;
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) return rc;
    int n = 0;
    /* Zero-length blocks are still sent: the receiver does not know the
     * root's counts and always receives. */
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++) {
        int dest = lc_coll_mod((long)root + 1 + i, p);
        if (dest != root)
            rc = lc_coll_isend(sb + lc_vec_offset(sv, dest, sesize), lc_vec_count(sv, dest) * sesize, dest,
                               LC_TAG_SCATTERV, comm, &reqs[n++]);
    }
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    return rc;
}
