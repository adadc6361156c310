/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_reduce_binomial.c — reduce up a binomial tree.
 *
 * On tree ranks v, rank v folds in the partial results of its children
 * v + 1, v + 2, v + 4, ... (each the reduction of that child's subtree)
 * in that fixed order, then sends its own partial result to its parent v
 * minus its lowest set bit.  ceil(log2 p) rounds; the choice for short
 * vectors.
 *
 * A commutative operation runs on ranks relative to the root (the tree
 * ends at the root).  A non-commutative one must combine the operands in
 * rank order: the tree is built on the ranks themselves, so that a
 * child's subtree holds the ranks just above its parent's, each partial
 * result is acc op child, and rank 0 holds x0 op x1 op ... op x(p-1),
 * which it then sends to the root.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

/* Fold the children's partial results into acc (tree rank v of p), then
 * send acc to the parent unless v is the tree's root.  `ordered`: acc =
 * acc op child (via tmp, then swapped), else acc = child op acc.
 * `mine` non-NULL: acc does not hold this rank's input yet (only with a
 * predefined operation); the first child's result is received straight
 * into acc and mine folded into it, acc = mine op child, the same bits
 * as child op mine (predefined operations are commutative bit for bit),
 * so the nonblocking form (lc_icoll_reduce.c), which copies, agrees. */
static int lc_reduce_tree(void **acc, void **tmp, const void *mine, size_t count, MPI_Datatype dt, MPI_Op op,
                          unsigned v, unsigned p, int root, bool ordered, lc_comm_t *comm)
{
    size_t bytes = count * lc_dtype_size(dt);
    for (unsigned mask = 1; mask < p; mask <<= 1) {
        if (v & mask)
            return lc_coll_send(*acc, bytes, lc_coll_abs((int)(v - mask), root, comm->size), LC_TAG_REDUCE, comm);
        unsigned child = v | mask;
        if (child >= p) continue;
        int rc =
            lc_coll_recv(mine ? *acc : *tmp, bytes, lc_coll_abs((int)child, root, comm->size), LC_TAG_REDUCE, comm);
        if (rc != MPI_SUCCESS) return rc;
        if (mine) {
            lc_op_apply(op, dt, mine, *acc, count); /* acc = mine op child's subtree */
            mine = NULL;
            continue;
        }
        if (!ordered) {
            lc_op_apply(op, dt, *tmp, *acc, count); /* acc = child's subtree op acc */
            continue;
        }
        lc_op_apply(op, dt, *acc, *tmp, count); /* tmp = acc op child's subtree */
        void *t = *acc;
        *acc = *tmp;
        *tmp = t;
    }
    return MPI_SUCCESS;
}

int lc_coll_reduce_binomial(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, int root,
                            lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root, ordered = !lc_op_commutative(op);
    size_t bytes = count * lc_dtype_size(dt);
    const void *mine = sbuf == MPI_IN_PLACE ? rbuf : sbuf; /* MPI_IN_PLACE only at the root */
    if (size == 1) return lc_coll_copy(rbuf, bytes, mine, bytes);

    int tree_root = ordered ? 0 : root;
    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, tree_root, size);
    /* A rank has children iff v is even and v + 1 exists.  Only those
     * need an accumulator and a receive buffer; a leaf sends its input as
     * it is.  The commutative tree accumulates in rbuf at the root. */
    bool has_children = (v & 1) == 0 && v + 1 < p, acc_in_rbuf = !ordered && is_root;
    void *acc = (void *)mine, *tmp = NULL, *own = NULL;
    const void *fresh = NULL;
    if (has_children) {
        tmp = lc_coll_alloc(bytes, &rc);
        if (!tmp) goto out;
        acc = acc_in_rbuf ? rbuf : (own = lc_coll_alloc(bytes, &rc));
        if (!acc) goto out;
        /* The root of a predefined operation folds its input into the
         * first child's result in rbuf: no copy (lc_reduce_tree). */
        if (acc_in_rbuf && acc != mine && lc_op_is_predefined(op))
            fresh = mine;
        else if (acc != mine && bytes)
            memcpy(acc, mine, bytes);
    }
    void *scratch[2] = { tmp, own }; /* freed below whichever role they end in */
    rc = lc_reduce_tree(&acc, &tmp, fresh, count, dt, op, v, p, tree_root, ordered, comm);
    if (rc == MPI_SUCCESS && ordered && v == 0 && root != 0) {
        rc = lc_coll_send(acc, bytes, root, LC_TAG_REDUCE, comm); /* rank 0 holds the result */
    } else if (rc == MPI_SUCCESS && ordered && is_root) {
        if (root != 0) rc = lc_coll_recv(rbuf, bytes, 0, LC_TAG_REDUCE, comm);
        else if (acc != rbuf && bytes) memcpy(rbuf, acc, bytes);
    }
    tmp = scratch[0];
    own = scratch[1];
out:
    free(own);
    free(tmp);
    return rc;
}
