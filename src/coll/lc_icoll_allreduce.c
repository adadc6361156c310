/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_icoll_allreduce.c — the nonblocking allreduce as a schedule:
 * recursive doubling as in lc_coll_allreduce_recursive_doubling.c (the
 * first 2*rem ranks pair up, the 2^k others exchange whole vectors, the
 * odd ranks hand the result back), with the same operand order, so a
 * nonblocking result has the blocking one's bits.  Each exchange is a
 * round; its reduction opens the next.  "ring" (the table's choice for
 * long vectors): the ring reduce-scatter and allgather of lc_coll_ring.c,
 * one round per step, same blocks, buffers and operand order.
 */
#include "coll/lc_icoll.h"

#include <string.h>

/* Ring reduce-scatter then ring allgather into rbuf, reading the input
 * `in` (sbuf, or rbuf in place) where it is, with lc_coll_ring.c's
 * buffers and operand order: out of place each partial result is
 * received into its block of rbuf and folded as mine op partial; in
 * place it is received into scratch and folded as partial op mine for a
 * predefined operation (the same bits), mine op partial for a user one. */
static int lc_icoll_allreduce_ring(lc_sched_t *s, const void *in, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                   lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc;
    size_t esize = lc_dtype_size(dt);
    bool in_place = in == rbuf;
    lc_coll_layout_t lay;
    LC_SCHED_TRY(lc_coll_layout_split(&lay, p, count, esize));
    char *mem = lc_sched_alloc(s, (size_t)p * (sizeof(ptrdiff_t) + sizeof(size_t)), &rc);
    char *tmp = mem && in_place ? lc_sched_alloc(s, lc_coll_layout_max_len(&lay), &rc) : mem;
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
    const char *mine = in;
    bool strict = !lc_op_is_predefined(op);
    int right = lc_coll_mod((long)r + 1, p), left = lc_coll_mod((long)r - 1, p);
    for (int k = 0; k < p - 1; k++) {
        int sb = lc_coll_mod((long)r - k - 1, p), rb = lc_coll_mod((long)r - k - 2, p);
        char *into = in_place ? tmp : base + off[rb];
        LC_SCHED_TRY(lc_sched_recv(s, into, len[rb], left));
        LC_SCHED_TRY(lc_sched_send(s, (k == 0 ? mine : base) + off[sb], len[sb], right));
        LC_SCHED_TRY(lc_sched_fence(s));
        if (in_place) /* predefined: dst = tmp op dst; user: dst = dst op tmp, through tmp */
            LC_SCHED_TRY(lc_sched_reduce(s, tmp, base + off[rb], len[rb] / esize, dt, op, false, strict));
        else /* dst = mine op dst; `lower` never writes src */
            LC_SCHED_TRY(lc_sched_reduce(s, (void *)(mine + off[rb]), into, len[rb] / esize, dt, op, true, false));
    }
    return lc_icoll_ring_allgather(s, base, off, len, comm);
}

int lc_icoll_allreduce(lc_sched_t *s, const char *alg, const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt,
                       MPI_Op op, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (strcmp(alg, "ring") == 0 && p > 1)
        return lc_icoll_allreduce_ring(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, comm);
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
        if (r % 2)
            LC_SCHED_TRY(lc_sched_send(s, rbuf, bytes, r - 1));
        else
            LC_SCHED_TRY(lc_sched_recv(s, rbuf, bytes, r + 1));
    }
    return MPI_SUCCESS;
}
