/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allreduce_recursive_doubling.c — allreduce by recursive
 * doubling, for short vectors.
 *
 * With p = 2^k + rem, the first 2*rem ranks pair up first: each even one
 * hands its vector to the odd one above it and sits out.  The remaining
 * 2^k ranks exchange whole vectors with the rank whose (renumbered) index
 * differs in bit i, for i = 0..k-1, and reduce.  Finally the odd ranks
 * return the result to the ranks that sat out.  log2(p) + 2 steps.
 *
 * Both partners of an exchange compute a op b and b op a; the predefined
 * operations are commutative bit for bit (IEEE + and * included), so
 * every rank ends with the same bits.  A user operation may not be (not
 * commutative at all, or not bit for bit): then both partners compute
 * lower op higher.  The renumbering keeps rank order (pairs merge
 * neighbours), so a partial result always covers consecutive ranks and
 * the whole is x0 op x1 op ... op x(p-1).
 */
#include "coll/lc_coll_impl.h"

#include <stdlib.h>

int lc_coll_allreduce_recursive_doubling(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                                         lc_comm_t *comm)
{
    int p = comm->size, r = comm->rank, rc = MPI_SUCCESS;
    size_t bytes = count * lc_dtype_size(dt);
    if (sbuf != MPI_IN_PLACE && bytes) memcpy(rbuf, sbuf, bytes);
    if (p == 1) return MPI_SUCCESS;
    bool ordered = !lc_op_is_predefined(op);
    void *tmp = lc_coll_alloc(bytes, &rc);
    if (!tmp) return rc;

    int pof2 = lc_coll_pof2_floor(p), rem = p - pof2, newrank;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            rc = lc_coll_send(rbuf, bytes, r + 1, LC_TAG_ALLREDUCE, comm);
            newrank = -1;
        } else {
            rc = lc_coll_recv(tmp, bytes, r - 1, LC_TAG_ALLREDUCE, comm);
            if (rc == MPI_SUCCESS) lc_op_apply(op, dt, tmp, rbuf, count); /* r-1 op r */
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    if (rc != MPI_SUCCESS) goto out;

    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newpeer = newrank ^ mask;
            int peer = newpeer < rem ? newpeer * 2 + 1 : newpeer + rem;
            rc = lc_coll_sendrecv(rbuf, bytes, peer, tmp, bytes, peer, LC_TAG_ALLREDUCE, comm);
            if (rc != MPI_SUCCESS) goto out;
            if (!ordered || peer < r) {
                lc_op_apply(op, dt, tmp, rbuf, count); /* peer's op mine */
            } else {
                lc_op_apply(op, dt, rbuf, tmp, count); /* mine op peer's */
                memcpy(rbuf, tmp, bytes);
            }
        }
    }

    if (r < 2 * rem) {
        if (r % 2) rc = lc_coll_send(rbuf, bytes, r - 1, LC_TAG_ALLREDUCE, comm);
        else rc = lc_coll_recv(rbuf, bytes, r + 1, LC_TAG_ALLREDUCE, comm);
    }
out:
    free(tmp);
    return rc;
}
