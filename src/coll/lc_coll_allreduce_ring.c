/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_allreduce_ring.c — allreduce of long vectors: ring
 * reduce-scatter, then ring allgather of the reduced blocks.
 *
 * Each rank sends and receives 2 * (p-1)/p of the vector, whatever p,
 * and does 1/p of the arithmetic.  Each element is reduced on one rank
 * only and then copied, so all ranks get identical bits.  The input is
 * not copied to rbuf first: the reduce-scatter reads it where it is and
 * receives the partial results into rbuf's blocks, which the allgather
 * then overwrites (at 2 ranks: half the vector sent each way twice, half
 * reduced, nothing copied; recursive doubling copies the vector, sends
 * it whole and reduces all of it).
 */
#include "coll/lc_coll_impl.h"

int lc_coll_allreduce_ring(const void *sbuf, void *rbuf, size_t count, MPI_Datatype dt, MPI_Op op,
                           lc_comm_t *comm)
{
    int rc;
    size_t esize = lc_dtype_size(dt);
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (comm->size == 1) return lc_coll_copy(rbuf, count * esize, in, count * esize);
    lc_coll_layout_t lay;
    rc = lc_coll_layout_split(&lay, comm->size, count, esize);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_coll_ring_reduce_scatter(in, rbuf, NULL, &lay, dt, op, LC_TAG_ALLREDUCE, comm);
    if (rc == MPI_SUCCESS) rc = lc_coll_ring_allgather(rbuf, &lay, LC_TAG_ALLREDUCE, comm);
    lc_coll_layout_free(&lay);
    return rc;
}
