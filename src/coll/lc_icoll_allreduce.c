/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_allreduce.c — the nonblocking allreduce as a schedule:
 * recursive doubling as in lc_coll_allreduce_recursive_doubling.c (the
 * first 2*rem ranks pair up, the 2^k others exchange whole vectors, the
 * odd ranks hand the result back), with the same operand order, so a
 * nonblocking result has the blocking one's bits.  Each exchange is a
 * round; its reduction opens the next.  The table's "ring" (long vectors,
 * 3 ranks or more) has no schedule form yet: recursive doubling runs.
 */
#include "coll/lc_icoll.h"

int lc_icoll_allreduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                       MPI_Op op, lc_comm_t *comm)
{
    (void)alg;
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (sbuf != MPI_IN_PLACE) LC_SCHED_TRY(lc_sched_copy(s, rbuf, sbuf, bytes));
    if (p == 1) return MPI_SUCCESS;
    bool ordered = !lc_op_is_predefined(op);
    void *tmp = lc_sched_alloc(s, bytes, &rc);
    if (!tmp) return rc;

    int pof2 = lc_coll_pof2_floor(p), rem = p - pof2, newrank;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            LC_SCHED_TRY(lc_sched_send(s, rbuf, bytes, r + 1));
            newrank = -1;
        } else {
            LC_SCHED_TRY(lc_sched_recv(s, tmp, bytes, r - 1));
            LC_SCHED_TRY(lc_sched_fence(s));
            LC_SCHED_TRY(lc_sched_reduce(s, tmp, rbuf, count, dt, op, true, ordered)); /* r-1 op r */
            newrank = r / 2;
        }
        LC_SCHED_TRY(lc_sched_fence(s));
    } else {
        newrank = r - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newpeer = newrank ^ mask;
            int peer = newpeer < rem ? newpeer * 2 + 1 : newpeer + rem;
            LC_SCHED_TRY(lc_sched_recv(s, tmp, bytes, peer));
            LC_SCHED_TRY(lc_sched_send(s, rbuf, bytes, peer));
            LC_SCHED_TRY(lc_sched_fence(s));
            /* Predefined: peer's op mine on both sides (bitwise
             * commutative); a user operation: lower op higher. */
            LC_SCHED_TRY(lc_sched_reduce(s, tmp, rbuf, count, dt, op, !ordered || peer < r, ordered));
        }
        LC_SCHED_TRY(lc_sched_fence(s));
    }
    if (r < 2 * rem) {
        if (r % 2) LC_SCHED_TRY(lc_sched_send(s, rbuf, bytes, r - 1));
        else LC_SCHED_TRY(lc_sched_recv(s, rbuf, bytes, r + 1));
    }
    return MPI_SUCCESS;
}
