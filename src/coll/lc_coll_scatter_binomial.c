/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_scatter_binomial.c — scatter down a binomial tree.
 *
 * The mirror of the binomial gather: on ranks relative to the root, rank
 * v receives from its parent the blocks of its whole subtree (v .. v +
 * min(lowbit(v), p - v) - 1, in relative order), keeps the first and
 * forwards each child its subtree's part.  log2(p) rounds, the choice for
 * small blocks.  A root other than rank 0 first rotates the send buffer
 * into relative order.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_scatter_binomial(const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes, int root,
                             lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    bool is_root = comm->rank == root;
    const char *sb = sbuf;
    size_t bs = is_root ? sbytes : rbytes; /* the same on every rank */
    if (is_root && rbuf != MPI_IN_PLACE) {
        rc = lc_coll_copy(rbuf, rbytes, sb + (size_t)root * bs, sbytes);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (size == 1) return MPI_SUCCESS;

    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size);
    unsigned lowbit = v ? (v & -v) : lc_coll_pof2_floor(size) * 2u;
    unsigned span = lowbit < p - v ? lowbit : p - v;
    if (span == 1) /* a leaf receives its block in place */
        return lc_coll_recv(rbuf, rbytes, lc_coll_abs((int)(v - lowbit), root, size), LC_TAG_SCATTER, comm);

    /* `blocks` holds my subtree's blocks in relative order. */
    char *tmp = NULL;
    const char *blocks = sb;
    if (!is_root || root != 0) {
        tmp = lc_coll_alloc((size_t)span * bs, &rc);
        if (!tmp) return rc;
        blocks = tmp;
    }
    if (is_root && root != 0) {
        size_t head = (size_t)(p - (unsigned)root) * bs;
        memcpy(tmp, sb + (size_t)root * bs, head);
        memcpy(tmp + head, sb, (size_t)root * bs);
    } else if (!is_root) {
        rc = lc_coll_recv(tmp, (size_t)span * bs, lc_coll_abs((int)(v - lowbit), root, size), LC_TAG_SCATTER, comm);
        if (rc != MPI_SUCCESS) goto out;
        if (bs) memcpy(rbuf, tmp, bs);
    }

    /* Largest subtree first: it has the longest way to go. */
    lc_request_t *reqs[32];
    int n = 0;
    for (unsigned mask = lowbit >> 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
        unsigned child = v + mask;
        if (child >= p) continue;
        unsigned cspan = mask < p - child ? mask : p - child;
        rc = lc_coll_isend(blocks + (size_t)mask * bs, (size_t)cspan * bs, lc_coll_abs((int)child, root, size),
                           LC_TAG_SCATTER, comm, &reqs[n++]);
    }
    rc = lc_coll_waitall(n, reqs, rc);
out:
    free(tmp);
    return rc;
}
