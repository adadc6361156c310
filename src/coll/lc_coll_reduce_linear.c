/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_reduce_linear.c — reduce: every rank sends its vector straight
 * to the root, which receives them all at once and folds them.
 *
 * The choice for short vectors on small communicators: a non-root rank
 * does one eager send and returns, and the root waits for no forwarder.
 * In a binomial tree an inner rank must be scheduled to receive, fold
 * and forward before its parent can go on; when ranks outnumber cores a
 * descheduled inner rank holds up its whole subtree (measured: the tree
 * was 2-6x slower at 4 and 8 ranks on 2 cores, docs/performance.md).
 *
 * The root folds right to left, acc = x(i) op acc for i = p-2 .. 0,
 * starting from x(p-1): that is x0 op x1 op ... op x(p-1) in rank order
 * for any associative operation, so commutative or not needs no second
 * path.  Cost at the root: p blocks of scratch, p-1 folds.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_reduce_linear(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                          lc_comm_t *comm)
{
    int p = comm->size, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf; /* MPI_IN_PLACE only at the root */
    if (comm->rank != root) return lc_coll_send(mine, bytes, root, LC_TAG_REDUCE, comm);
    if (p == 1) return lc_coll_copy(rbuf, bytes, mine, bytes);

    /* Block i of tmp holds rank i's vector; the root's own goes there too
     * (rbuf is overwritten by the fold and may be the input, in place). */
    char *tmp = lc_coll_alloc((size_t)p * bytes, &rc);
    if (!tmp) return rc;
    lc_request_t **reqs = lc_coll_alloc((size_t)p * sizeof(*reqs), &rc);
    if (!reqs) goto out;
    if (bytes) memcpy(tmp + (size_t)root * bytes, mine, bytes);
    int n = 0;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root) rc = lc_coll_irecv(tmp + (size_t)i * bytes, bytes, i, LC_TAG_REDUCE, comm, &reqs[n++]);
    rc = lc_coll_waitall(n, reqs, rc);
    if (rc != MPI_SUCCESS) goto out;
    if (bytes) memcpy(rbuf, tmp + (size_t)(p - 1) * bytes, bytes);
    for (int i = p - 2; i >= 0; i--) lc_op_apply(op, dt, tmp + (size_t)i * bytes, rbuf, count);
out:
    free(reqs);
    free(tmp);
    return rc;
}
