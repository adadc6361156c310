/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_alltoallv_pairwise.c — alltoallv by pairwise exchange: at step
 * s rank r sends to r+s and receives from r-s, each block at its own
 * displacement.  MPI_IN_PLACE (the send blocks are the receive layout)
 * works on a copy of the part of the receive buffer the blocks cover.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_alltoallv_pairwise(const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf, const lc_vec_t *rv,
                               size_t resize, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf, *copy = NULL;
    const char *sb = sbuf;
    /* Send block i is at sb + soff(i); in place, soff is the receive
     * displacement shifted by the start of the copied range. */
    ptrdiff_t shift = 0;
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
        for (int i = 0; i < p; i++) {
            if (lc_vec_count(rv, i) == 0) continue;
            ptrdiff_t at = lc_vec_offset(rv, i, resize);
            ptrdiff_t end = at + (ptrdiff_t)(lc_vec_count(rv, i) * resize);
            if (at < lo) lo = at;
            if (end > hi) hi = end;
        }
        if (lo > hi) lo = hi = 0; /* nothing to exchange */
        copy = lc_coll_alloc((size_t)(hi - lo), &rc);
        if (!copy) return rc;
        if (hi > lo) memcpy(copy, rb + lo, (size_t)(hi - lo));
        sb = copy;
        shift = lo;
        sv = rv;
        sesize = resize;
    }
#define LC_SPTR(i) (sb + lc_vec_offset(sv, i, sesize) - shift)
#define LC_SLEN(i) (lc_vec_count(sv, i) * sesize)
#define LC_RPTR(i) (rb + lc_vec_offset(rv, i, resize))
#define LC_RLEN(i) (lc_vec_count(rv, i) * resize)
    rc = lc_coll_copy(LC_RPTR(r), LC_RLEN(r), LC_SPTR(r), LC_SLEN(r));
    for (int s = 1; s < p && rc == MPI_SUCCESS; s++) {
        int dst = lc_coll_mod((long)r + s, p), src = lc_coll_mod((long)r - s, p);
        rc = lc_coll_sendrecv(LC_SPTR(dst), LC_SLEN(dst), dst, LC_RPTR(src), LC_RLEN(src), src, LC_TAG_ALLTOALLV,
                              comm);
    }
#undef LC_SPTR
#undef LC_SLEN
#undef LC_RPTR
#undef LC_RLEN
    free(copy);
    return rc;
}
