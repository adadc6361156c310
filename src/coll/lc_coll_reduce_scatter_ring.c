/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_reduce_scatter_ring.c — reduce_scatter around the ring: p-1
 * steps, each moving one block, so each rank sends and receives about
 * the vector length once and reduces only 1/p of it.  The choice for
 * long vectors, and at 2 ranks for all (one exchange, where reduce +
 * scatterv takes two steps).
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_reduce_scatter_ring(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt, MPI_Op op,
                                lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc;
    size_t esize = lc_dtype_size(dt), total = lc_vec_total(rv, p);
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (p == 1) return lc_coll_copy(rbuf, total * esize, input, total * esize);

    /* The partial results go to scratch, the input is read where it is.
     * Out of place this rank's block is reduced straight into rbuf (at 2
     * ranks no scratch at all); in place the result must end at the start
     * of rbuf, which is input: copied there after the ring has read all
     * of it. */
    bool in_place = sbuf == MPI_IN_PLACE;
    char *acc = NULL;
    if ((p > 2 || in_place) && !(acc = lc_coll_alloc(total * esize, &rc))) return rc;
    lc_coll_layout_t lay;
    lc_vec_t packed = *rv;
    packed.displs = NULL; /* the blocks lie one after another in the vector */
    rc = lc_coll_layout_vector(&lay, p, &packed, esize);
    if (rc != MPI_SUCCESS) goto out;
    rc = lc_coll_ring_reduce_scatter(input, acc, in_place ? NULL : rbuf, &lay, dt, op, LC_TAG_REDUCE_SCATTER, comm);
    if (rc == MPI_SUCCESS && in_place && lay.len[r]) memcpy(rbuf, acc + lay.off[r], lay.len[r]);
    lc_coll_layout_free(&lay);
out:
    free(acc);
    return rc;
}
