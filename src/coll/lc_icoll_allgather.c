/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_allgather.c — the nonblocking allgather(v) as schedules.
 *
 * "ring" (the table's choice for long blocks, and allgatherv's only one):
 * p - 1 rounds; in round k a rank sends block r - k to r + 1 and receives
 * block r - k - 1 from r - 1.  For short blocks the table picks "bruck",
 * which has no schedule form yet; a direct exchange runs instead: one
 * round in which every rank sends its block to every other (p - 1
 * messages each way, as many bytes as the ring, one round of latency).
 */
#include "coll/lc_icoll.h"

#include <string.h>

/* Blocks at off[i], len[i] bytes of rbuf; rank r's own is in place. */
static int lc_icoll_allgather_blocks(lc_sched_t *s, bool ring, char *rb, const ptrdiff_t *off, const size_t *len,
                                     lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    if (!ring) {
        for (int k = 1; k < p; k++) {
            int src = lc_coll_mod((long)r - k, p);
            LC_SCHED_TRY(lc_sched_recv(s, rb + off[src], len[src], src));
        }
        for (int k = 1; k < p; k++) {
            int dst = lc_coll_mod((long)r + k, p);
            LC_SCHED_TRY(lc_sched_send(s, rb + off[r], len[r], dst));
        }
        return MPI_SUCCESS;
    }
    return lc_icoll_ring_allgather(s, rb, off, len, comm);
}

int lc_icoll_ring_allgather(lc_sched_t *s, char *rb, const ptrdiff_t *off, const size_t *len, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    int right = lc_coll_mod((long)r + 1, p), left = lc_coll_mod((long)r - 1, p);
    for (int k = 0; k < p - 1; k++) {
        int sb = lc_coll_mod((long)r - k, p), rbk = lc_coll_mod((long)r - k - 1, p);
        LC_SCHED_TRY(lc_sched_recv(s, rb + off[rbk], len[rbk], left));
        LC_SCHED_TRY(lc_sched_send(s, rb + off[sb], len[sb], right));
        LC_SCHED_TRY(lc_sched_fence(s));
    }
    return MPI_SUCCESS;
}

static int lc_icoll_layout(lc_sched_t *s, int p, ptrdiff_t **off_p, size_t **len_p)
{
    int rc;
    char *mem = lc_sched_alloc(s, (size_t)p * (sizeof(ptrdiff_t) + sizeof(size_t)), &rc);
    if (!mem) return rc;
    *off_p = (ptrdiff_t *)mem;
    *len_p = (size_t *)(mem + (size_t)p * sizeof(ptrdiff_t));
    return MPI_SUCCESS;
}

int lc_icoll_allgather(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                       lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rb + (size_t)r * rbytes, sbuf, sbytes));
    }
    if (p == 1) return MPI_SUCCESS;
    ptrdiff_t *off = NULL;
    size_t *len = NULL;
    LC_SCHED_TRY(lc_icoll_layout(s, p, &off, &len));
    for (int i = 0; i < p; i++) {
        off[i] = (ptrdiff_t)((size_t)i * rbytes);
        len[i] = rbytes;
    }
    return lc_icoll_allgather_blocks(s, strcmp(alg, "ring") == 0, rb, off, len, comm);
}

int lc_icoll_allgatherv(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv,
                        size_t resize, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(lc_vec_count(rv, r) * resize, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rb + lc_vec_offset(rv, r, resize), sbuf, sbytes));
    }
    if (p == 1) return MPI_SUCCESS;
    ptrdiff_t *off = NULL;
    size_t *len = NULL;
    LC_SCHED_TRY(lc_icoll_layout(s, p, &off, &len));
    for (int i = 0; i < p; i++) {
        off[i] = lc_vec_offset(rv, i, resize);
        len[i] = lc_vec_count(rv, i) * resize;
    }
    return lc_icoll_allgather_blocks(s, strcmp(alg, "ring") == 0, rb, off, len, comm);
}
