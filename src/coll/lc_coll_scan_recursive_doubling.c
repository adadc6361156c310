/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_scan_recursive_doubling.c — inclusive scan by recursive
 * doubling.
 *
 * Rank r keeps `partial`, the reduction over the aligned group of 2^k
 * ranks containing it (cut at p).  At step k it swaps partials with
 * r ^ 2^k; a partner below r contributes a whole group of lower ranks to
 * r's prefix.  ceil(log2 p) steps for any p.  Operands are combined in
 * rank order (lower op higher), as non-commutative operations need.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_scan_recursive_doubling(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                    lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (sbuf != MPI_IN_PLACE && bytes) memcpy(rbuf, sbuf, bytes);
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    char *partial = lc_coll_alloc(2 * bytes, &rc), *tmp = partial + bytes;
    if (!partial) return rc;
    memcpy(partial, rbuf, bytes);
    for (unsigned mask = 1; mask < (unsigned)p; mask <<= 1) {
        unsigned peer = (unsigned)r ^ mask;
        if (peer >= (unsigned)p) continue;
        rc = lc_coll_sendrecv(partial, bytes, (int)peer, tmp, bytes, (int)peer, LC_TAG_SCAN, comm);
        if (rc != MPI_SUCCESS) break;
        lc_coll_fold_ordered(op, dt, tmp, partial, count, peer < (unsigned)r, bytes);
        if (peer < (unsigned)r) lc_op_apply(op, dt, tmp, rbuf, count); /* lower ranks join the prefix */
    }
    free(partial);
    return rc;
}
