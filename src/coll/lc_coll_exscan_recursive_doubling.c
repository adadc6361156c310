/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_exscan_recursive_doubling.c — exclusive scan by recursive
 * doubling: as the inclusive scan, but rank r's own vector only enters
 * `partial`, never its result.  The first contribution from below is
 * copied rather than reduced (there is no identity element to start
 * from), and rank 0 never gets one, so its receive buffer is left
 * untouched as MPI requires.  Operands are combined in rank order.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_exscan_recursive_doubling(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                      lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    char *partial = lc_coll_alloc(2 * bytes, &rc), *tmp = partial + bytes;
    if (!partial) return rc;
    memcpy(partial, sbuf == MPI_IN_PLACE ? rbuf : sbuf, bytes); /* before rbuf is written */
    bool have_result = false;
    for (unsigned mask = 1; mask < (unsigned)p; mask <<= 1) {
        unsigned peer = (unsigned)r ^ mask;
        if (peer >= (unsigned)p) continue;
        rc = lc_coll_sendrecv(partial, bytes, (int)peer, tmp, bytes, (int)peer, LC_TAG_EXSCAN, comm);
        if (rc != MPI_SUCCESS) break;
        if (peer < (unsigned)r) {
            if (have_result) lc_op_apply(op, dt, tmp, rbuf, count);
            else memcpy(rbuf, tmp, bytes);
            have_result = true;
        }
        lc_coll_fold_ordered(op, dt, tmp, partial, count, peer < (unsigned)r, bytes);
    }
    free(partial);
    return rc;
}
