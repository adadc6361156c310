/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_scan_linear.c — inclusive scan along the chain 0 -> 1 -> ...:
 * each rank receives the prefix of the ranks below, folds in its own
 * vector and passes it on.  p-1 steps of latency but each vector crosses
 * one link once; for long vectors.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_scan_linear(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (sbuf != MPI_IN_PLACE && bytes) memcpy(rbuf, sbuf, bytes);
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    if (r > 0) {
        void *prefix = lc_coll_alloc(bytes, &rc);
        if (!prefix) return rc;
        rc = lc_coll_recv(prefix, bytes, r - 1, LC_TAG_SCAN, comm);
        if (rc == MPI_SUCCESS) lc_op_apply(op, dt, prefix, rbuf, count);
        free(prefix);
    }
    if (rc == MPI_SUCCESS && r < p - 1) rc = lc_coll_send(rbuf, bytes, r + 1, LC_TAG_SCAN, comm);
    return rc;
}
