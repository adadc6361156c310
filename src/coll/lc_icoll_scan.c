/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_scan.c — the nonblocking inclusive and exclusive scans as
 * schedules: recursive doubling as in lc_coll_scan_recursive_doubling.c
 * and lc_coll_exscan_recursive_doubling.c (same operand order: lower op
 * higher), one exchange of partial results per round, its reductions
 * opening the next.  The table's "linear" (override only) runs as
 * recursive doubling too.
 */
#include "coll/lc_icoll.h"

static int lc_icoll_scan_any(lc_sched_t *s, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                             bool exclusive, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (!exclusive && sbuf != MPI_IN_PLACE) LC_SCHED_TRY(lc_sched_copy(s, rbuf, sbuf, bytes));
    if (p == 1 || bytes == 0) return MPI_SUCCESS;
    char *partial = lc_sched_alloc(s, 2 * bytes, &rc), *tmp = partial + bytes;
    if (!partial) return rc;
    const void *mine = exclusive && sbuf != MPI_IN_PLACE ? sbuf : rbuf;
    LC_SCHED_TRY(lc_sched_copy(s, partial, mine, bytes)); /* before rbuf is written */
    bool have_result = false;
    for (unsigned mask = 1; mask < (unsigned)p; mask <<= 1) {
        unsigned peer = (unsigned)r ^ mask;
        if (peer >= (unsigned)p) continue;
        LC_SCHED_TRY(lc_sched_recv(s, tmp, bytes, (int)peer));
        LC_SCHED_TRY(lc_sched_send(s, partial, bytes, (int)peer));
        LC_SCHED_TRY(lc_sched_fence(s));
        bool lower = peer < (unsigned)r;
        if (exclusive && lower) {
            if (have_result)
                LC_SCHED_TRY(lc_sched_reduce(s, tmp, rbuf, count, dt, op, true, false));
            else
                LC_SCHED_TRY(lc_sched_copy(s, rbuf, tmp, bytes));
            have_result = true;
        }
        /* partial = tmp op partial (lower) or partial op tmp, via tmp */
        LC_SCHED_TRY(lc_sched_reduce(s, tmp, partial, count, dt, op, lower, false));
        if (!exclusive && lower) LC_SCHED_TRY(lc_sched_reduce(s, tmp, rbuf, count, dt, op, true, false));
    }
    return MPI_SUCCESS;
}

int lc_icoll_scan(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                  MPI_Op op, lc_comm_t *comm)
{
    (void)alg;
    return lc_icoll_scan_any(s, sbuf, rbuf, count, dt, op, false, comm);
}

int lc_icoll_exscan(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                    MPI_Op op, lc_comm_t *comm)
{
    (void)alg;
    return lc_icoll_scan_any(s, sbuf, rbuf, count, dt, op, true, comm);
}
