/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_barrier.c — the nonblocking barrier as a schedule: the
 * dissemination algorithm (the blocking table's only one), one round per
 * power of two below p, each an empty message to r + 2^k and one from
 * r - 2^k.
 */
#include "coll/lc_icoll.h"

int lc_icoll_barrier(lc_sched_t *s, const char *alg, lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size, r = comm->rank;
    static char none; /* zero-byte messages still need an address */
    for (int k = 1; k < p; k <<= 1) {
        LC_SCHED_TRY(lc_sched_recv(s, &none, 0, lc_coll_mod((long)r - k, p)));
        LC_SCHED_TRY(lc_sched_send(s, &none, 0, lc_coll_mod((long)r + k, p)));
        LC_SCHED_TRY(lc_sched_fence(s));
    }
    return MPI_SUCCESS;
}
