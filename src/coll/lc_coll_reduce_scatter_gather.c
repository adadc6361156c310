/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_reduce_scatter_gather.c — reduce of long vectors as a ring
 * reduce-scatter followed by a gather of the reduced blocks at the root
 * (Rabenseifner's scheme with a ring for the first half).
 *
 * Each rank sends about 2 * bytes in total, the root receives about
 * bytes, and every rank does 1/p of the arithmetic, where the binomial
 * tree has the root reduce log2(p) whole vectors.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_reduce_scatter_gather(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                  int root, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t esize = lc_dtype_size(dt), bytes = count * esize;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (p == 1) return lc_coll_copy(rbuf, bytes, mine, bytes);

    /* The partial results land in a full-length vector, read from the
     * input where it is (no copy): rbuf itself at the root, so the
     * gathered blocks land in place. */
    char *acc = r == root ? rbuf : lc_coll_alloc(bytes, &rc);
    if (!acc) return rc;

    lc_coll_layout_t lay;
    lc_request_t **reqs = NULL;
    rc = lc_coll_layout_split(&lay, p, count, esize);
    if (rc != MPI_SUCCESS) goto out;
    rc = lc_coll_ring_reduce_scatter(mine, acc, NULL, &lay, dt, op, LC_TAG_REDUCE, comm);
    if (rc != MPI_SUCCESS) goto out_lay;

    if (r != root) {
        rc = lc_coll_send(acc + lay.off[r], lay.len[r], root, LC_TAG_REDUCE, comm);
    } else {
        reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
        if (!reqs) goto out_lay;
        int n = 0;
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            if (i != root) rc = lc_coll_irecv(acc + lay.off[i], lay.len[i], i, LC_TAG_REDUCE, comm, &reqs[n++]);
        rc = lc_coll_waitall(n, reqs, rc);
    }
out_lay:
    lc_coll_layout_free(&lay);
out:
    free(reqs);
    if (acc != (char *)rbuf) free(acc);
    return rc;
}
