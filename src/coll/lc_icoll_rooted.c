/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_rooted.c — the nonblocking gather(v) and scatter(v) as
 * schedules: one round in which the root receives (sends) every block
 * straight from (to) its rank — the table's "linear".  Its "binomial"
 * (short blocks of gather and scatter) is in lc_icoll_tree.c.
 */
#include "coll/lc_icoll.h"

#include <string.h>

int lc_icoll_gather(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                    int root, lc_comm_t *comm)
{
    if (strcmp(alg, "binomial") == 0) return lc_icoll_gather_binomial(s, sbuf, sbytes, rbuf, rbytes, root, comm);
    int p = comm->size;
    if (comm->rank != root) return lc_sched_send(s, sbuf, sbytes, root);
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rb + (size_t)root * rbytes, sbuf, sbytes));
    }
    for (int i = 0; i < p; i++)
        if (i != root) LC_SCHED_TRY(lc_sched_recv(s, rb + (size_t)i * rbytes, rbytes, i));
    return MPI_SUCCESS;
}

int lc_icoll_gatherv(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, const lc_vec_t *rv,
                     size_t resize, int root, lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size;
    if (comm->rank != root) return lc_sched_send(s, sbuf, sbytes, root);
    char *rb = rbuf;
    if (sbuf != MPI_IN_PLACE) {
        size_t mine = lc_vec_count(rv, root) * resize;
        LC_SCHED_TRY(lc_icoll_check_fit(mine, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rb + lc_vec_offset(rv, root, resize), sbuf, sbytes));
    }
    /* Zero-length blocks are still received: senders always send. */
    for (int i = 0; i < p; i++)
        if (i != root)
            LC_SCHED_TRY(lc_sched_recv(s, rb + lc_vec_offset(rv, i, resize), lc_vec_count(rv, i) * resize, i));
    return MPI_SUCCESS;
}

int lc_icoll_scatter(lc_sched_t *s, const char *alg, const void *sbuf, size_t sbytes, void *rbuf, size_t rbytes,
                     int root, lc_comm_t *comm)
{
    if (strcmp(alg, "binomial") == 0) return lc_icoll_scatter_binomial(s, sbuf, sbytes, rbuf, rbytes, root, comm);
    int p = comm->size;
    if (comm->rank != root) return lc_sched_recv(s, rbuf, rbytes, root);
    const char *sb = sbuf;
    if (rbuf != MPI_IN_PLACE) {
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes, sbytes));
        LC_SCHED_TRY(lc_sched_copy(s, rbuf, sb + (size_t)root * sbytes, sbytes));
    }
    for (int k = 1; k < p; k++) {
        int dest = lc_coll_mod((long)root + k, p);
        LC_SCHED_TRY(lc_sched_send(s, sb + (size_t)dest * sbytes, sbytes, dest));
    }
    return MPI_SUCCESS;
}

int lc_icoll_scatterv(lc_sched_t *s, const char *alg, const void *sbuf, const lc_vec_t *sv, size_t sesize, void *rbuf,
                      size_t rbytes, int root, lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size;
    if (comm->rank != root) return lc_sched_recv(s, rbuf, rbytes, root);
    const char *sb = sbuf;
    if (rbuf != MPI_IN_PLACE) {
        size_t mine = lc_vec_count(sv, root) * sesize;
        LC_SCHED_TRY(lc_icoll_check_fit(rbytes, mine));
        LC_SCHED_TRY(lc_sched_copy(s, rbuf, sb + lc_vec_offset(sv, root, sesize), mine));
    }
    for (int k = 1; k < p; k++) {
        int dest = lc_coll_mod((long)root + k, p);
        LC_SCHED_TRY(lc_sched_send(s, sb + lc_vec_offset(sv, dest, sesize), lc_vec_count(sv, dest) * sesize, dest));
    }
    return MPI_SUCCESS;
}
