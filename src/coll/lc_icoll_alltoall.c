/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_alltoall.c — the nonblocking alltoall(v) as schedules: one
 * round with every receive posted, then every send, in the pairwise
 * order (to r + k, from r - k) so that no rank is everyone's first
 * target.  Both of the table's algorithms ("linear", "pairwise") post
 * everything at once here; a round per step would only add latency when
 * nothing waits on the result in between.  MPI_IN_PLACE sends from a copy
 * of the receive blocks, made by the schedule's first step.
 */
#include "coll/lc_icoll.h"

#include <stdint.h>

int lc_icoll_alltoall(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                      lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf;
    const char *sb = sbuf;
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        char *copy = lc_sched_alloc(s, (size_t)p * rbytes, &rc);
        if (!copy) return rc;
        LC_SCHED_TRY(lc_sched_copy(s, copy, rb, (size_t)p * rbytes));
        sb = copy;
        sbytes = rbytes;
    }
    LC_SCHED_TRY(lc_icoll_check_fit(rbytes, sbytes));
    LC_SCHED_TRY(lc_sched_copy(s, rb + (size_t)r * rbytes, sb + (size_t)r * sbytes, sbytes));
    for (int k = 1; k < p; k++) {
        int src = lc_coll_mod((long)r - k, p);
        LC_SCHED_TRY(lc_sched_recv(s, rb + (size_t)src * rbytes, rbytes, src));
    }
    for (int k = 1; k < p; k++) {
        int dst = lc_coll_mod((long)r + k, p);
        LC_SCHED_TRY(lc_sched_send(s, sb + (size_t)dst * sbytes, sbytes, dst));
    }
    return MPI_SUCCESS;
}

int lc_icoll_alltoallv(lc_sched_t *s, const char *alg, const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf,
                       const lc_vec_t *rv, size_t resize, lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *rb = rbuf;
    const char *sb = sbuf;
    ptrdiff_t shift = 0;
    if (sbuf == MPI_IN_PLACE) {
        if (p == 1) return MPI_SUCCESS;
        ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
        for (int i = 0; i < p; i++) {
            if (lc_vec_count(rv, i) == 0) continue;
            ptrdiff_t at = lc_vec_offset(rv, i, resize), end = at + (ptrdiff_t)(lc_vec_count(rv, i) * resize);
            if (at < lo) lo = at;
            if (end > hi) hi = end;
        }
        if (lo > hi) lo = hi = 0;
        char *copy = lc_sched_alloc(s, (size_t)(hi - lo), &rc);
        if (!copy) return rc;
        LC_SCHED_TRY(lc_sched_copy(s, copy, rb + lo, (size_t)(hi - lo)));
        sb = copy;
        shift = lo;
        sv = rv;
        sesize = resize;
    }
#define LC_SPTR(i) (sb + lc_vec_offset(sv, i, sesize) - shift)
#define LC_SLEN(i) (lc_vec_count(sv, i) * sesize)
#define LC_RPTR(i) (rb + lc_vec_offset(rv, i, resize))
#define LC_RLEN(i) (lc_vec_count(rv, i) * resize)
    LC_SCHED_TRY(lc_icoll_check_fit(LC_RLEN(r), LC_SLEN(r)));
    if (sbuf != MPI_IN_PLACE) LC_SCHED_TRY(lc_sched_copy(s, LC_RPTR(r), LC_SPTR(r), LC_SLEN(r)));
    for (int k = 1; k < p; k++) {
        int src = lc_coll_mod((long)r - k, p);
        LC_SCHED_TRY(lc_sched_recv(s, LC_RPTR(src), LC_RLEN(src), src));
    }
    for (int k = 1; k < p; k++) {
        int dst = lc_coll_mod((long)r + k, p);
        LC_SCHED_TRY(lc_sched_send(s, LC_SPTR(dst), LC_SLEN(dst), dst));
    }
#undef LC_SPTR
#undef LC_SLEN
#undef LC_RPTR
#undef LC_RLEN
    return MPI_SUCCESS;
}
