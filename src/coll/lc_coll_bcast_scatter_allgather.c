/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_bcast_scatter_allgather.c — broadcast of large messages as a
 * binomial scatter followed by a ring allgather (van de Geijn).
 *
 * The message is cut into p blocks of ceil(bytes/p) (the last ones may
 * be short or empty); block j belongs to the rank j places after the
 * root.  The scatter hands each subtree of the binomial tree its range
 * of blocks, then the ring circulates them.  Each rank sends about
 * 2 * bytes in total instead of log2(p) * bytes for the binomial tree.
 */
#include "coll/lc_coll_impl.h"

/* Start of block j of a message of `bytes` cut into blocks of `bs`. */
static size_t lc_block_at(size_t j, size_t bs, size_t bytes)
{
    size_t at = j * bs;
    return at < bytes ? at : bytes;
}

int lc_coll_bcast_scatter_allgather(void *buf, size_t bytes, int root, lc_comm_t *comm)
{
    int size = comm->size, rc = MPI_SUCCESS;
    if (size == 1) return MPI_SUCCESS;
    unsigned p = (unsigned)size, v = (unsigned)lc_coll_rel(comm->rank, root, size);
    size_t bs = (bytes + p - 1) / p;
    char *base = buf;

    /* Scatter: receive blocks [v, v + subtree) from the parent... */
    unsigned mask = 1;
    for (; mask < p; mask <<= 1) {
        if (v & mask) {
            unsigned n = mask < p - v ? mask : p - v;
            size_t at = lc_block_at(v, bs, bytes);
            rc = lc_coll_recv(base + at, lc_block_at(v + n, bs, bytes) - at,
                              lc_coll_abs((int)(v - mask), root, size), LC_TAG_BCAST, comm);
            if (rc != MPI_SUCCESS) return rc;
            break;
        }
    }
    /* ...and pass each child the part of that range its subtree owns. */
    lc_request_t *reqs[32];
    int nreq = 0;
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
        unsigned child = v + mask;
        if (child >= p) continue;
        unsigned n = mask < p - child ? mask : p - child;
        size_t at = lc_block_at(child, bs, bytes);
        rc = lc_coll_isend(base + at, lc_block_at(child + n, bs, bytes) - at, lc_coll_abs((int)child, root, size),
                           LC_TAG_BCAST, comm, &reqs[nreq++]);
    }
    rc = lc_coll_waitall(nreq, reqs, rc);
    if (rc != MPI_SUCCESS) return rc;

    /* Allgather: the ring runs over communicator ranks, so rank i's block
     * in the layout is block rel(i) of the message. */
    lc_coll_layout_t lay;
    rc = lc_coll_layout_uniform(&lay, size, 0);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < size; i++) {
        size_t j = (size_t)lc_coll_rel(i, root, size);
        size_t at = lc_block_at(j, bs, bytes);
        lay.off[i] = (ptrdiff_t)at;
        lay.len[i] = lc_block_at(j + 1, bs, bytes) - at;
    }
    rc = lc_coll_ring_allgather(buf, &lay, LC_TAG_BCAST, comm);
    lc_coll_layout_free(&lay);
    return rc;
}
