/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_gather_binomial.c — gather up a binomial tree.
 *
 * On ranks relative to the root, the subtree of rank v is the ranks
 * v .. v + min(lowbit(v), p - v) - 1.  Rank v collects its children's
 * subtrees next to its own block, in relative order, and sends the lot
 * to its parent: log2(p) rounds, the choice for small blocks.  The root
 * receives in relative order, so unless the root is rank 0 it gathers
 * into scratch space and rotates into place.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_gather_binomial(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                            lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root;
    char *rb = rbuf;
    /* Every rank's block has the same size (type signatures match):
     * what the root receives, what the others send. */
    size_t bs = is_root ? rbytes : sbytes;
    if (is_root && sbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(rb + (size_t)root * bs, bs, sbuf, sbytes);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (size == 1) return MPI_SUCCESS;

    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size);
    unsigned lowbit = v ? (v & -v) : lc_coll_pof2_floor(size) * 2u;
    unsigned span = lowbit < p - v ? lowbit : p - v; /* blocks in my subtree */
    if (span == 1) /* a leaf sends its block as it is */
        return lc_coll_send(sbuf, sbytes, lc_coll_abs((int)(v - lowbit), root, size), LC_TAG_GATHER, comm);

    /* My subtree's blocks in relative order.  At root 0 relative order is
     * rank order: gather straight into rbuf. */
    char *tmp = (is_root && root == 0) ? rb : lc_coll_alloc(span * bs, &rc);
    if (!tmp) return rc;
    if (tmp != rb && bs) memcpy(tmp, is_root ? rb + (size_t)root * bs : sbuf, bs);

    /* The children's blocks go to disjoint places: receive them all at once. */
    lc_request_t *reqs[32];
    int n = 0;
    for (unsigned mask = 1; mask < lowbit && v + mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        unsigned child = v + mask;
        unsigned cspan = mask < p - child ? mask : p - child;
        rc = lc_coll_irecv(tmp + (size_t)mask * bs, (size_t)cspan * bs, lc_coll_abs((int)child, root, size),
                           LC_TAG_GATHER, comm, &reqs[n++]);
    }
    rc = lc_coll_waitall(n, reqs, rc);
    if (rc != MPI_SUCCESS) goto out;

    if (!is_root) {
        rc = lc_coll_send(tmp, (size_t)span * bs, lc_coll_abs((int)(v - lowbit), root, size), LC_TAG_GATHER, comm);
    } else if (tmp != rb) {
        /* tmp[j] is the block of rank (root + j) mod p. */
        size_t head = (size_t)(p - (unsigned)root) * bs;
        memcpy(rb + (size_t)root * bs, tmp, head);
        memcpy(rb, tmp + head, (size_t)root * bs);
    }
out:
    if (tmp != rb) free(tmp);
    return rc;
}
