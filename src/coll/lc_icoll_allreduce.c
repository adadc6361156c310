/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_allreduce.c — the nonblocking allreduce as a schedule:
 * recursive doubling as in lc_coll_allreduce_recursive_doubling.c (the
 * first 2*rem ranks pair up, the 2^k others exchange whole vectors, the
 * odd ranks hand the result back), with the same operand order, so a
 * nonblocking result has the blocking one's bits.  Each exchange is a
 * round; its reduction opens the next.  "ring" (the table's choice for
 * long vectors from 3 ranks): the ring reduce-scatter and allgather of
 * lc_coll_ring.c, one round per step, same blocks and operand order.
 */
#include "coll/lc_icoll.h"

#include <string.h>

/* Ring reduce-scatter then ring allgather on rbuf (already the input). */
static int lc_icoll_allreduce_ring(lc_sched_t *s, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc;
    size_t esize = lc_dtype_size(dt);
    lc_coll_layout_t lay;
    LC_SCHED_TRY(lc_coll_layout_split(&lay, p, count, esize));
    char *mem = lc_sched_alloc(s, (size_t)p * (sizeof(ptrdiff_t) + sizeof(size_t)), &rc);
    char *tmp = mem ? lc_sched_alloc(s, lc_coll_layout_max_len(&lay), &rc) : NULL;
    if (!tmp) {
        lc_coll_layout_free(&lay);
        return rc;
    }
    ptrdiff_t *off = (ptrdiff_t *)mem;
    size_t *len = (size_t *)(mem + (size_t)p * sizeof(ptrdiff_t));
    memcpy(off, lay.off, (size_t)p * sizeof(ptrdiff_t));
    memcpy(len, lay.len, (size_t)p * sizeof(size_t));
    lc_coll_layout_free(&lay);
    char *base = rbuf;
    int right = lc_coll_mod((long)r + 1, p), left = lc_coll_mod((long)r - 1, p);
    for (int k = 0; k < p - 1; k++) {
        int sb = lc_coll_mod((long)r - k - 1, p), rb = lc_coll_mod((long)r - k - 2, p);
        LC_SCHED_TRY(lc_sched_recv(s, tmp, len[rb], left));
        LC_SCHED_TRY(lc_sched_send(s, base + off[sb], len[sb], right));
        LC_SCHED_TRY(lc_sched_fence(s));
        LC_SCHED_TRY(lc_sched_reduce(s, tmp, base + off[rb], len[rb] / esize, dt, op, true, false));
    }
    return lc_icoll_ring_allgather(s, base, off, len, comm);
}

int lc_icoll_allreduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                       MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (sbuf != MPI_IN_PLACE) LC_SCHED_TRY(lc_sched_copy(s, rbuf, sbuf, bytes));
    if (p == 1) return MPI_SUCCESS;
    if (strcmp(alg, "ring") == 0) return lc_icoll_allreduce_ring(s, rbuf, count, dt, op, comm);
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
        if (r % 2)
            LC_SCHED_TRY(lc_sched_send(s, rbuf, bytes, r - 1));
        else
            LC_SCHED_TRY(lc_sched_recv(s, rbuf, bytes, r + 1));
    }
    return MPI_SUCCESS;
}
