/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_neighbor.c — the nonblocking and persistent alltoallw and
 * neighbourhood exchange as schedules: one round, every receive posted,
 * then every send (a copy for the own block of alltoallw), as the blocking
 * ones post them.  MPI_IN_PLACE alltoallw sends from a copy of the range
 * the receive blocks cover, made by the schedule's first step.
 *
 * Neighbour matching.  A schedule has one tag, so the blocking exchange's
 * per-block tags (lc_coll_neighbor.c) are not available: pairs of
 * messages between the same two ranks are told apart by order alone.  A
 * receiver posts its receives in the order of its blocks; the block a
 * send fills at its receiver is, on a Cartesian topology, the sender's
 * block index with the lowest bit flipped (towards -1 fills the
 * neighbour's "from +1" block), so the sends are posted in the order of
 * that index (j ^ 1 for j = 0, 1, ...): the n-th send to a rank then
 * meets the n-th receive it posted for this rank, also on a periodic
 * dimension of size 1 or 2 where both neighbours are one rank.  On
 * graphs both sides use the order of the edges, as the blocking one does.
 */
#include "coll/lc_icoll.h"

#include <stdlib.h>

int lc_icoll_alltoallw(lc_sched_t *s, const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                       const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    const char *sb = sbuf;
    ptrdiff_t shift = 0; /* send block i is at sb + soff[i] - shift */
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        ptrdiff_t lo, hi;
        lc_coll_alltoallw_span(p, rbytes, roff, &lo, &hi);
        char *copy = lc_sched_alloc(s, (size_t)(hi - lo), &rc);
        if (!copy) return rc;
        LC_SCHED_TRY(lc_sched_copy(s, copy, lc_coll_at(rbuf, lo), (size_t)(hi - lo)));
        sb = copy;
        shift = lo;
        sbytes = rbytes;
        soff = roff;
    } else {
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes[r], sbytes[r]));
        LC_SCHED_TRY(lc_sched_copy(s, lc_coll_at(rbuf, roff[r]), lc_coll_at(sb, soff[r]), sbytes[r]));
    }
    for (int k = 1; k < p; k++) {
        int src = lc_coll_mod((long)r - k, p);
        LC_SCHED_TRY(lc_sched_recv(s, lc_coll_at(rbuf, roff[src]), rbytes[src], src));
    }
    for (int k = 1; k < p; k++) {
        int dst = lc_coll_mod((long)r + k, p);
        LC_SCHED_TRY(lc_sched_send(s, lc_coll_at(sb, soff[dst] - shift), sbytes[dst], dst));
    }
    return MPI_SUCCESS;
}

int lc_icoll_neighbor_alltoallw(lc_sched_t *s, const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff,
                                void *rbuf, const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm)
{
    lc_nbrs_t nb;
    int rc = lc_coll_neighbors(comm, &nb);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < nb.in && rc == MPI_SUCCESS; i++)
        if (nb.src[i] != MPI_PROC_NULL) rc = lc_sched_recv(s, lc_coll_at(rbuf, roff[i]), rbytes[i], nb.src[i]);
    for (int i = 0; i < nb.out && rc == MPI_SUCCESS; i++) {
        int j = nb.cart ? (i ^ 1) : i; /* see the file head */
        if (nb.dst[j] != MPI_PROC_NULL) rc = lc_sched_send(s, lc_coll_at(sbuf, soff[j]), sbytes[j], nb.dst[j]);
    }
    free(nb.own);
    return rc;
}
