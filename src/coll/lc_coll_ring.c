/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_ring.c — reduce-scatter and allgather around a ring.
 *
 * Each of the p-1 steps moves one block to the right neighbour while the
 * left neighbour's block arrives, so every link carries (p-1)/p of the
 * vector in total: bandwidth-optimal, latency linear in p.  Used for
 * large vectors by allreduce, reduce, reduce_scatter, allgather(v) and
 * bcast.
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

/* At step s, rank r sends block r-s-1 and receives block r-s-2, which it
 * folds its own input into and sends on at step s+1.  After p-1 steps
 * the last block received, r-p = r, has passed through every rank: it is
 * complete at r.  The reduction of block b starts at rank b+1 and follows
 * the ring, a fixed order that does not depend on timing, but not rank
 * order: only commutative operations may use the ring.
 *
 * Each rank reads each block of its input once, so the input is never
 * copied as a whole: out of place, a partial result is received straight
 * into its block of `work` and the input folded into it there (work =
 * mine op partial); the first send reads the input itself.  In place
 * (in == work) a partial needs scratch: a predefined operation folds
 * work = partial op mine, which has the same bits (they are commutative
 * bit for bit, lc_coll_allreduce_recursive_doubling.c); a user operation
 * computes mine op partial in the scratch and copies it back, so that
 * both forms take the operands in the same order.  The nonblocking
 * allreduce (lc_icoll_allreduce.c) makes the same choices.  Out of
 * place, `last` (when not NULL) receives block r's result instead of
 * work: reduce_scatter's own output, with no copy afterwards. */
int lc_coll_ring_reduce_scatter(const void *in, void *work, void *last, const lc_coll_layout_t *lay, MPI_Datatype dt,
                                MPI_Op op, int tag, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    if (p == 1) return MPI_SUCCESS;
    size_t esize = lc_dtype_size(dt);
    bool in_place = in == work;
    char *tmp = NULL;
    if (in_place && !(tmp = lc_coll_alloc(lc_coll_layout_max_len(lay), &rc))) return rc;
    const char *mine = in;
    char *base = work;
    int right = lc_coll_mod(r + 1, p), left = lc_coll_mod(r - 1, p);
    for (int s = 0; s < p - 1; s++) {
        int sb = lc_coll_mod((long)r - s - 1, p), rb = lc_coll_mod((long)r - s - 2, p);
        const char *from = (s == 0 ? mine : base) + lay->off[sb];
        char *into = in_place ? tmp : s == p - 2 && last ? last : base + lay->off[rb];
        size_t count = lay->len[rb] / esize;
        rc = lc_coll_sendrecv(from, lay->len[sb], right, into, lay->len[rb], left, tag, comm);
        if (rc != MPI_SUCCESS) break;
        if (!in_place) {
            lc_op_apply(op, dt, mine + lay->off[rb], into, count); /* mine op partial */
        } else if (lc_op_is_predefined(op)) {
            lc_op_apply(op, dt, tmp, base + lay->off[rb], count); /* partial op mine: the same bits */
        } else {
            lc_op_apply(op, dt, base + lay->off[rb], tmp, count); /* mine op partial */
            memcpy(base + lay->off[rb], tmp, lay->len[rb]);
        }
    }
    free(tmp);
    return rc;
}

/* At step s, rank r sends block r-s (its own at s = 0, then the one it
 * just received) and receives block r-s-1. */
int lc_coll_ring_allgather_from(void *buf, const lc_coll_layout_t *lay, int first, int tag, lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    char *base = buf;
    int right = lc_coll_mod(r + 1, p), left = lc_coll_mod(r - 1, p);
    for (int s = first; s < p - 1 && rc == MPI_SUCCESS; s++) {
        int sb = lc_coll_mod((long)r - s, p), rb = lc_coll_mod((long)r - s - 1, p);
        rc = lc_coll_sendrecv(base + lay->off[sb], lay->len[sb], right, base + lay->off[rb], lay->len[rb], left,
                              tag, comm);
    }
    return rc;
}

int lc_coll_ring_allgather(void *buf, const lc_coll_layout_t *lay, int tag, lc_comm_t *comm)
{
    return lc_coll_ring_allgather_from(buf, lay, 0, tag, comm);
}
