/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_reduce_scatter_reduce_scatterv.c — reduce_scatter as a binomial
 * reduce of the whole vector to rank 0, then rank 0 sends every rank its
 * block.  log2(p) + 1 rounds: the choice for short vectors.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_reduce_scatter_reduce_scatterv(const void *sbuf, void *rbuf, const lc_vec_t *rv, MPI_Datatype dt,
                                           MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t esize = lc_dtype_size(dt), total = lc_vec_total(rv, p);
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf; /* in place: the whole vector is in rbuf */
    if (p == 1) return lc_coll_copy(rbuf, total * esize, input, total * esize);

    char *sum = NULL;
    lc_request_t **reqs = NULL;
    if (r == 0) {
        sum = lc_coll_alloc(total * esize, &rc);
        if (!sum) return rc;
    }
    rc = lc_coll_reduce_binomial(input, sum, total, dt, op, 0, comm);
    if (rc != MPI_SUCCESS) goto out;

    if (r != 0) {
        rc = lc_coll_recv(rbuf, lc_vec_count(rv, r) * esize, 0, LC_TAG_REDUCE_SCATTER, comm);
        goto out;
    }
    reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) goto out;
    int n = 0;
    size_t at = lc_vec_count(rv, 0) * esize;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        size_t len = lc_vec_count(rv, i) * esize;
        rc = lc_coll_isend(sum + at, len, i, LC_TAG_REDUCE_SCATTER, comm, &reqs[n++]);
        at += len;
    }
    /* Rank 0's own block last: in place, rbuf was the input until now. */
    if (rc == MPI_SUCCESS && lc_vec_count(rv, 0)) memcpy(rbuf, sum, lc_vec_count(rv, 0) * esize);
    rc = lc_coll_waitall(n, reqs, rc);
out:
    free(reqs);
    free(sum);
    return rc;
}
