/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coll_neighbor.c — the blocking neighbourhood exchange (MPI 4.1 §8.6)
 * on Cartesian, graph and distributed graph communicators: every receive
 * from an in-neighbour is posted, then every send to an out-neighbour,
 * then all are waited for.  Each rank talks only to its neighbours, so
 * there is nothing to gain from rounds or trees.
 *
 * Neighbour order.  Cartesian: for each dimension d, the rank at -1 then
 * the rank at +1 (MPI_Cart_shift(d, 1)), in both lists; MPI_PROC_NULL
 * where a non-periodic dimension ends (that block is not touched).
 * Graph: this rank's row of edges, in both lists.  Distributed graph: the
 * sources and destinations as given.
 *
 * Matching.  In a graph, two edges between the same pair of ranks are
 * told apart by order (the n-th send to a rank meets the n-th receive
 * posted for it), which one tag gives (channels are FIFO).  On a periodic
 * Cartesian dimension of size 1 or 2 the -1 and +1 neighbours are the same
 * rank, but the block a rank sends towards -1 belongs in its neighbour's
 * "from +1" block: so the tag names the receiving block, LC_TAG_NEIGHBOR
 * + (the receiver's block index), which is the sender's index with its
 * lowest bit flipped.
 */
#include "coll/lc_icoll.h"

#include <stdlib.h>

/* Tags above the collectives' enum and below LC_COLL_TAG_SUBSET. */
#define LC_TAG_NEIGHBOR 0x10000000

/* The Cartesian neighbours: 2 * ndims each way, the same list. */
static int lc_nbrs_cart(const lc_comm_t *comm, lc_nbrs_t *nb)
{
    const lc_cart_t *t = comm->cart;
    int n = 2 * t->ndims, rc;
    int *l = lc_coll_alloc(sizeof(int) * (size_t)n, &rc);
    if (!l) return rc;
    int stride = 1;
    for (int d = t->ndims - 1; d >= 0; d--) {
        int dim = t->dims[d], x = (comm->rank / stride) % dim;
        for (int k = 0; k < 2; k++) {
            int y = x + (k ? 1 : -1);
            if (t->periods[d]) y = lc_coll_mod(y, dim);
            l[2 * d + k] = (y < 0 || y >= dim) ? MPI_PROC_NULL : comm->rank + (y - x) * stride;
        }
        stride *= dim;
    }
    *nb = (lc_nbrs_t){ .in = n, .out = n, .src = l, .dst = l, .own = l, .cart = true };
    return MPI_SUCCESS;
}

int lc_coll_neighbors(const lc_comm_t *comm, lc_nbrs_t *nb)
{
    if (comm->cart) return lc_nbrs_cart(comm, nb);
    const lc_graph_t *g = comm->graph;
    if (!g)
        return lc_error(MPI_ERR_TOPOLOGY, "a neighbourhood collective needs a communicator with a topology (make "
                                          "one with MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create)");
    *nb = (lc_nbrs_t){ .in = g->indegree, .out = g->outdegree, .src = g->sources, .dst = g->dests };
    return MPI_SUCCESS;
}

int lc_coll_neighbor_degrees(const lc_comm_t *comm, int *indegree_p, int *outdegree_p)
{
    if (comm->cart) {
        *indegree_p = *outdegree_p = 2 * comm->cart->ndims;
        return MPI_SUCCESS;
    }
    lc_nbrs_t nb;
    int rc = lc_coll_neighbors(comm, &nb);
    if (rc != MPI_SUCCESS) return rc;
    *indegree_p = nb.in;
    *outdegree_p = nb.out;
    return MPI_SUCCESS;
}

int lc_coll_neighbor_alltoallw(const void *sbuf, const size_t *sbytes, const ptrdiff_t *soff, void *rbuf,
                               const size_t *rbytes, const ptrdiff_t *roff, lc_comm_t *comm)
{
    if (lc_unlikely(lc_coll_capture != NULL)) {
        lc_sched_t *s = lc_coll_capture;
        lc_coll_capture = NULL;
        return lc_icoll_neighbor_alltoallw(s, sbuf, sbytes, soff, rbuf, rbytes, roff, comm);
    }
    lc_nbrs_t nb;
    int rc = lc_coll_neighbors(comm, &nb);
    if (rc != MPI_SUCCESS) return rc;
    lc_request_t **reqs = lc_coll_alloc(sizeof(*reqs) * (size_t)(nb.in + nb.out), &rc);
    if (!reqs) {
        free(nb.own);
        return rc;
    }
    int n = 0;
    for (int i = 0; i < nb.in && rc == MPI_SUCCESS; i++) {
        if (nb.src[i] == MPI_PROC_NULL) continue;
        int tag = LC_TAG_NEIGHBOR + (nb.cart ? i : 0);
        rc = lc_coll_irecv(lc_coll_at(rbuf, roff[i]), rbytes[i], nb.src[i], tag, comm, &reqs[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    int posted_recvs = n;
    for (int j = 0; j < nb.out && rc == MPI_SUCCESS; j++) {
        if (nb.dst[j] == MPI_PROC_NULL) continue;
        int tag = LC_TAG_NEIGHBOR + (nb.cart ? (j ^ 1) : 0);
        rc = lc_coll_isend(lc_coll_at(sbuf, soff[j]), sbytes[j], nb.dst[j], tag, comm, &reqs[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    if (rc != MPI_SUCCESS) /* peers may never send now: withdraw what waits for them */
        for (int i = 0; i < posted_recvs; i++) lc_pt2pt_cancel(reqs[i]);
    rc = lc_coll_waitall(n, reqs, rc);
    free(reqs);
    free(nb.own);
    return rc;
}
