/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_barrier.c — the nonblocking barrier as a schedule, with the
 * blocking table's algorithms:
 *   linear         every other rank sends rank 0 an empty message and
 *                  waits for its reply; rank 0 replies once all are in
 *                  (lc_coll_barrier_linear.c);
 *   dissemination  one round per power of two below p, each an empty
 *                  message to r + 2^k and one from r - 2^k.
 */
#include "coll/lc_icoll.h"

#include <string.h>

static char none; /* zero-byte messages still need an address */

static int lc_icoll_barrier_linear(lc_sched_t *s, lc_comm_t *comm)
{
    int p = comm->size;
    if (p == 1) return MPI_SUCCESS;
    if (comm->rank != 0) {
        LC_SCHED_TRY(lc_sched_send(s, &none, 0, 0));
        LC_SCHED_TRY(lc_sched_recv(s, &none, 0, 0));
        return MPI_SUCCESS;
    }
    for (int i = 1; i < p; i++) LC_SCHED_TRY(lc_sched_recv(s, &none, 0, i));
    LC_SCHED_TRY(lc_sched_fence(s));
    for (int i = 1; i < p; i++) LC_SCHED_TRY(lc_sched_send(s, &none, 0, i));
    return MPI_SUCCESS;
}

int lc_icoll_barrier(lc_sched_t *s, const char *alg, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank;
    if (strcmp(alg, "linear") == 0) return lc_icoll_barrier_linear(s, comm);
    for (int k = 1; k < p; k <<= 1) {
        LC_SCHED_TRY(lc_sched_recv(s, &none, 0, lc_coll_mod((long)r - k, p)));
        LC_SCHED_TRY(lc_sched_send(s, &none, 0, lc_coll_mod((long)r + k, p)));
        LC_SCHED_TRY(lc_sched_fence(s));
    }
    return MPI_SUCCESS;
}
