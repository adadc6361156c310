/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_alltoallw_pairwise.c — alltoallw (every block its own size and
 * byte displacement) by pairwise exchange: at step s rank r sends to r+s
 * and receives from r-s.  With MPI_IN_PLACE the send blocks are the
 * receive blocks: the range of the receive buffer they cover is copied
 * first, and blocks are sent from the copy.  Buffers may be MPI_BOTTOM
 * with absolute displacements (lc_coll_at).
 */
#include "coll/lc_icoll.h"

#include <stdlib.h>

/* The range [*lo, *hi) of the p blocks, relative to the buffer. */
void lc_coll_alltoallw_span(int p, const size_t *bytes, const ptrdiff_t *off, ptrdiff_t *lo_p, ptrdiff_t *hi_p)
{
    ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
    for (int i = 0; i < p; i++) {
        if (bytes[i] == 0) continue;
        if (off[i] < lo) lo = off[i];
        if (off[i] + (ptrdiff_t)bytes[i] > hi) hi = off[i] + (ptrdiff_t)bytes[i];
    }
    if (lo > hi) lo = hi = 0;
    *lo_p = lo;
    *hi_p = hi;
}

int lc_coll_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf, const size_t *rbytes,
                      const ptrdiff_t *roff, lc_comm_t *comm)
{
    if (lc_unlikely(lc_coll_capture != NULL)) {
        lc_sched_t *s = lc_coll_capture;
        lc_coll_capture = NULL;
        return lc_icoll_alltoallw(s, sbuf, sbytes, soff, rbuf, rbytes, roff, comm);
    }
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf, *copy = NULL;
    const char *sb = sbuf;
    ptrdiff_t shift = 0; /* send block i is at sb + soff[i] - shift */
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        ptrdiff_t lo, hi;
        lc_coll_alltoallw_span(p, rbytes, roff, &lo, &hi);
        copy = lc_coll_alloc((size_t)(hi - lo), &rc);
        if (!copy) return rc;
        if (hi > lo) memcpy(copy, lc_coll_at(rb, lo), (size_t)(hi - lo));
        sb = copy;
        shift = lo;
        sbytes = rbytes;
        soff = roff;
    }
    rc = lc_coll_copy(lc_coll_at(rb, roff[r]), rbytes[r], lc_coll_at(sb, soff[r] - shift), sbytes[r]);
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int dst = lc_coll_mod((long)r + s, p), src = lc_coll_mod((long)r - s, p);
        rc = lc_coll_sendrecv(lc_coll_at(sb, soff[dst] - shift), sbytes[dst], dst, lc_coll_at(rb, roff[src]),
                              rbytes[src], src, LC_TAG_ALLTOALLW, comm);
    }
    free(copy);
    return rc;
}
