/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_exscan_linear.c — exclusive scan along the chain 0 -> 1 -> ...:
 * rank r receives the reduction of ranks 0..r-1 (its result), folds in
 * its own vector and passes that on.  Rank 0's receive buffer is left
 * untouched.  For long vectors.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_exscan_linear(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                          lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (r == 0) return lc_coll_send(mine, bytes, 1, LC_TAG_EXSCAN, comm);

    /* prefix: ranks 0..r-1; next: ranks 0..r (only if someone is above). */
    char *prefix = lc_coll_alloc(2 * bytes, &rc), *next = prefix + bytes;
    if (!prefix) return rc;
    rc = lc_coll_recv(prefix, bytes, r - 1, LC_TAG_EXSCAN, comm);
    if (rc == MPI_SUCCESS && r < p - 1) {
        memcpy(next, mine, bytes); /* in place, mine is rbuf: read it before it is overwritten */
        lc_op_apply(op, dt, prefix, next, count);
        rc = lc_coll_send(next, bytes, r + 1, LC_TAG_EXSCAN, comm);
    }
    if (rc == MPI_SUCCESS) memcpy(rbuf, prefix, bytes);
    free(prefix);
    return rc;
}
