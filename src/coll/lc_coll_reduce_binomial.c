/*
 * lc_coll_reduce_binomial.c — reduce up a binomial tree.
 *
 * On ranks relative to the root, rank v folds in the partial results of
 * its children v + 1, v + 2, v + 4, ... (each the reduction of that
 * child's subtree) in that fixed order, then sends its own partial result
 * to its parent v minus its lowest set bit.  ceil(log2 p) rounds; the
 * choice for short vectors.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_reduce_binomial(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                            lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root;
    size_t bytes = count * lc_dtype_size(dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf; /* MPI_IN_PLACE only at the root */
    if (size == 1) return lc_coll_copy(rbuf, bytes, mine, bytes);

    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size);
    lc_op_fn_t *fn = lc_op_kernel(op, dt);
    /* A rank has children iff v is even and v + 1 exists.  Only those
     * need an accumulator (the root's is rbuf) and a receive buffer; a
     * leaf sends its input as it is. */
    bool has_children = (v & 1) == 0 && v + 1 < p;
    void *acc = NULL, *tmp = NULL;
    if (has_children) {
        tmp = lc_coll_alloc(bytes, &rc);
        if (!tmp) goto out;
        if (is_root) {
            acc = rbuf;
        } else {
            acc = lc_coll_alloc(bytes, &rc);
            if (!acc) goto out;
        }
        if (acc != mine && bytes) memcpy(acc, mine, bytes);
    }

    for (unsigned mask = 1; mask < p; mask <<= 1) {
        if (v & mask) {
            rc = lc_coll_send(acc ? acc : mine, bytes, lc_coll_abs((int)(v - mask), root, size), LC_TAG_REDUCE,
                              comm);
            break;
        }
        unsigned child = v | mask;
        if (child < p) {
            rc = lc_coll_recv(tmp, bytes, lc_coll_abs((int)child, root, size), LC_TAG_REDUCE, comm);
            if (rc != MPI_SUCCESS) break;
            fn(tmp, acc, count); /* acc = child's subtree op acc */
        }
    }
out:
    if (acc != rbuf) free(acc);
    free(tmp);
    return rc;
}
