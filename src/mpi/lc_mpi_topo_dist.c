/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_topo_dist.c — distributed graph topologies (MPI 4.1 §8.5.4):
 * MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create and the
 * neighbour queries.
 *
 * A rank keeps only its own in- and out-edges (lc_graph_t with kind
 * MPI_DIST_GRAPH).  MPI_Dist_graph_create lets any rank name any edge, so
 * the edges are first made known to everyone (an allgather of counts and
 * an allgatherv of (source, destination, weight) triples: simple, and
 * O(total edges) per rank, which is fine for the graphs a job describes
 * this way); each rank then keeps its own, in the order of the
 * contributing rank and its arguments, the same order on both ends of an
 * edge.  Ranks are not reordered.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"
#include "coll/lc_coll.h"

#include <stdlib.h>
#include <string.h>

/* Each of the n ranks[] names a rank of comm (`what` names the array). */
static int lc_dist_check_ranks(const lc_comm_t *c, int n, const int ranks[], const char *what)
{
    if (n > 0) {
        int rc = lc_check_ptr(ranks, what);
        if (rc != MPI_SUCCESS) return rc;
    }
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return lc_error(MPI_ERR_ARG, "%s[%d] = %d is not a rank of the communicator (size %d)", what, i, ranks[i],
                            c->size);
    return MPI_SUCCESS;
}

/* weights may be MPI_UNWEIGHTED, or MPI_WEIGHTS_EMPTY when n is 0; else
 * it must be an array. */
static int lc_dist_check_weights(int n, const int weights[], const char *what)
{
    if (weights == MPI_UNWEIGHTED || (n == 0 && weights == MPI_WEIGHTS_EMPTY)) return MPI_SUCCESS;
    if (weights == MPI_WEIGHTS_EMPTY)
        return lc_error(MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY but there are %d edges", what, n);
    if (n > 0 && !weights) return lc_error(MPI_ERR_ARG, "%s is NULL (pass MPI_UNWEIGHTED for no weights)", what);
    return MPI_SUCCESS;
}

/* The new communicator (same ranks as c) with topology g; g is consumed. */
static int lc_dist_attach(lc_comm_t *c, lc_graph_t *g, MPI_Comm *out)
{
    lc_comm_t *n;
    if (!g) return lc_error(MPI_ERR_NO_MEM, "out of memory for a distributed graph topology");
    int rc = lc_mpi_comm_derive(c, c->rank, c->size, c->world_ranks, &n);
    if (rc != MPI_SUCCESS) {
        free(g);
        return rc;
    }
    n->graph = g;
    *out = n->handle;
    return MPI_SUCCESS;
}

LC_API int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree, const int destinations[],
                                           const int destweights[], MPI_Info info, int reorder,
                                           MPI_Comm *comm_dist_graph)
{
    (void)info, (void)reorder; /* no hint changes what Locus does; ranks keep their order */
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm_old, &c));
    LC_TRY(lc_check_intra(c, "a distributed graph topology"));
    LC_TRY(lc_check_ptr(comm_dist_graph, "comm_dist_graph"));
    if (indegree < 0 || outdegree < 0)
        LC_TRY(lc_error(MPI_ERR_ARG, "indegree %d or outdegree %d is negative", indegree, outdegree));
    LC_TRY(lc_dist_check_ranks(c, indegree, sources, "sources"));
    LC_TRY(lc_dist_check_ranks(c, outdegree, destinations, "destinations"));
    LC_TRY(lc_dist_check_weights(indegree, sourceweights, "sourceweights"));
    LC_TRY(lc_dist_check_weights(outdegree, destweights, "destweights"));
    bool weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    lc_graph_t *g = lc_graph_alloc(MPI_DIST_GRAPH, 0, 0, indegree, outdegree, weighted);
    if (g) {
        if (indegree) memcpy(g->sources, sources, sizeof(int) * (size_t)indegree);
        if (outdegree) memcpy(g->dests, destinations, sizeof(int) * (size_t)outdegree);
        if (weighted && indegree) memcpy(g->sourceweights, sourceweights, sizeof(int) * (size_t)indegree);
        if (weighted && outdegree) memcpy(g->destweights, destweights, sizeof(int) * (size_t)outdegree);
    }
    LC_TRY(lc_dist_attach(c, g, comm_dist_graph));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Dist_graph_create_adjacent", rc);
}
LC_MPI_ALIAS(Dist_graph_create_adjacent);

/* This rank's edges as (source, destination, weight) triples; *ne_p of them. */
static int lc_dist_local_edges(const lc_comm_t *c, int n, const int sources[], const int degrees[],
                               const int destinations[], const int weights[], int **triples_p, int *ne_p)
{
    long ne = 0;
    int rc;
    if (n < 0) return lc_error(MPI_ERR_ARG, "n %d is negative", n);
    if ((rc = lc_dist_check_ranks(c, n, sources, "sources")) != MPI_SUCCESS) return rc;
    if (n > 0 && (rc = lc_check_ptr(degrees, "degrees")) != MPI_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0) return lc_error(MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
        ne += degrees[i];
        if (ne > (INT32_MAX / 3)) return lc_error(MPI_ERR_ARG, "too many edges (%ld) in one call", ne);
    }
    if ((rc = lc_dist_check_ranks(c, (int)ne, destinations, "destinations")) != MPI_SUCCESS) return rc;
    if ((rc = lc_dist_check_weights((int)ne, weights, "weights")) != MPI_SUCCESS) return rc;
    int *t = malloc(sizeof(int) * 3 * (size_t)(ne ? ne : 1));
    if (!t) return lc_error(MPI_ERR_NO_MEM, "out of memory for %ld edges", ne);
    bool weighted = weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            t[3 * k] = sources[i];
            t[3 * k + 1] = destinations[k];
            t[3 * k + 2] = weighted ? weights[k] : 1;
        }
    *triples_p = t;
    *ne_p = (int)ne;
    return MPI_SUCCESS;
}

/* Keep the edges of `all` (total triples) that end or start here. */
static lc_graph_t *lc_dist_select(int me, const int *all, size_t total, bool weighted)
{
    int in = 0, out = 0;
    for (size_t k = 0; k < total; k++) {
        in += all[3 * k + 1] == me;
        out += all[3 * k] == me;
    }
    lc_graph_t *g = lc_graph_alloc(MPI_DIST_GRAPH, 0, 0, in, out, weighted);
    if (!g) return NULL;
    in = out = 0;
    for (size_t k = 0; k < total; k++) {
        if (all[3 * k + 1] == me) {
            if (weighted) g->sourceweights[in] = all[3 * k + 2];
            g->sources[in++] = all[3 * k];
        }
        if (all[3 * k] == me) {
            if (weighted) g->destweights[out] = all[3 * k + 2];
            g->dests[out++] = all[3 * k + 1];
        }
    }
    return g;
}

/* Every rank's triples, concatenated in rank order. */
static int lc_dist_gather(lc_comm_t *c, const int *mine, int ne, int **all_p, size_t *total_p)
{
    int p = c->size, *counts = malloc(sizeof(int) * 2 * (size_t)p), *all = NULL, rc;
    if (!counts) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    int *displs = counts + p, n3 = 3 * ne;
    rc = lc_coll_allgather(&n3, 1, MPI_INT, counts, 1, MPI_INT, c);
    size_t total = 0;
    for (int i = 0; rc == MPI_SUCCESS && i < p; i++) {
        if (total + (size_t)counts[i] > INT32_MAX) {
            rc = lc_error(MPI_ERR_ARG, "the graph has more edges than Locus can exchange in one call");
            break;
        }
        displs[i] = (int)total;
        total += (size_t)counts[i];
    }
    if (rc == MPI_SUCCESS && !(all = malloc(sizeof(int) * (total ? total : 1))))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for %zu edges", total / 3);
    if (rc == MPI_SUCCESS) {
        lc_vec_t rv = lc_vec_int(counts, displs);
        rc = lc_coll_allgatherv(mine, (size_t)n3, MPI_INT, all, &rv, MPI_INT, c);
    }
    free(counts);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *all_p = all;
    *total_p = total / 3;
    return MPI_SUCCESS;
}

LC_API int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                  const int destinations[], const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph)
{
    (void)info, (void)reorder;
    lc_comm_t *c = NULL;
    int *mine = NULL, *all = NULL, ne = 0, rc;
    size_t total = 0;
    LC_TRY(lc_check_comm(comm_old, &c));
    LC_TRY(lc_check_intra(c, "a distributed graph topology"));
    LC_TRY(lc_check_ptr(comm_dist_graph, "comm_dist_graph"));
    /* A bad argument on one rank leaves the others in the exchange: the
     * error is fatal by default, as with any collective. */
    LC_TRY(lc_dist_local_edges(c, n, sources, degrees, destinations, weights, &mine, &ne));
    LC_TRY(lc_dist_gather(c, mine, ne, &all, &total));
    LC_TRY(lc_dist_attach(c, lc_dist_select(c->rank, all, total, weights != MPI_UNWEIGHTED), comm_dist_graph));
    free(mine);
    free(all);
    return MPI_SUCCESS;
err:
    free(mine);
    free(all);
    return lc_mpi_error(c, "MPI_Dist_graph_create", rc);
}
LC_MPI_ALIAS(Dist_graph_create);

/* The communicator's distributed graph topology. */
static int lc_dist_of(MPI_Comm comm, lc_comm_t **c_p, const lc_graph_t **g_p)
{
    int rc = lc_check_comm(comm, c_p);
    if (rc != MPI_SUCCESS) return rc;
    *g_p = (*c_p)->graph;
    if (!*g_p || (*g_p)->kind != MPI_DIST_GRAPH)
        return lc_error(MPI_ERR_TOPOLOGY, "the communicator has no distributed graph topology (make one with "
                                          "MPI_Dist_graph_create or MPI_Dist_graph_create_adjacent)");
    return MPI_SUCCESS;
}

LC_API int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc;
    LC_TRY(lc_dist_of(comm, &c, &g));
    LC_TRY(lc_check_ptr(indegree, "indegree"));
    LC_TRY(lc_check_ptr(outdegree, "outdegree"));
    LC_TRY(lc_check_ptr(weighted, "weighted"));
    *indegree = g->indegree;
    *outdegree = g->outdegree;
    *weighted = g->sourceweights != NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Dist_graph_neighbors_count", rc);
}
LC_MPI_ALIAS(Dist_graph_neighbors_count);

LC_API int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                     int maxoutdegree, int destinations[], int destweights[])
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc;
    LC_TRY(lc_dist_of(comm, &c, &g));
    if (maxindegree < 0 || maxoutdegree < 0)
        LC_TRY(lc_error(MPI_ERR_ARG, "maxindegree %d or maxoutdegree %d is negative", maxindegree, maxoutdegree));
    int ni = maxindegree < g->indegree ? maxindegree : g->indegree;
    int no = maxoutdegree < g->outdegree ? maxoutdegree : g->outdegree;
    if (ni > 0) LC_TRY(lc_check_ptr(sources, "sources"));
    if (no > 0) LC_TRY(lc_check_ptr(destinations, "destinations"));
    if (ni > 0) memcpy(sources, g->sources, sizeof(int) * (size_t)ni);
    if (no > 0) memcpy(destinations, g->dests, sizeof(int) * (size_t)no);
    /* Weights only where the graph has them and the caller wants them. */
    bool want_in = sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY;
    bool want_out = destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY;
    if (g->sourceweights && want_in && ni > 0) memcpy(sourceweights, g->sourceweights, sizeof(int) * (size_t)ni);
    if (g->destweights && want_out && no > 0) memcpy(destweights, g->destweights, sizeof(int) * (size_t)no);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Dist_graph_neighbors", rc);
}
LC_MPI_ALIAS(Dist_graph_neighbors);
