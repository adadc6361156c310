/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_topo_graph.c — graph topologies (MPI 4.1 §8.5.3): MPI_Graph_create
 * and its queries, MPI_Graph_map and MPI_Cart_map.
 *
 * As for Cartesian topologies ranks are not reordered (`reorder` may be
 * ignored): node i of the graph is rank i of comm_old, and the map
 * functions say so.  The record (lc_graph_t, src/pt2pt/lc_comm.h) keeps
 * the whole graph because MPI_Graph_get returns it; the neighbourhood
 * collectives read this rank's row (sources == dests).
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"

#include <stdlib.h>
#include <string.h>

lc_graph_t *lc_graph_alloc(int kind, int nnodes, int nedges, int indegree, int outdegree, bool weighted)
{
    size_t n = (size_t)nnodes + (size_t)nedges + (size_t)indegree + (size_t)outdegree;
    if (weighted) n += (size_t)indegree + (size_t)outdegree;
    lc_graph_t *g = calloc(1, sizeof(*g) + sizeof(int) * n);
    if (!g) return NULL;
    int *p = (int *)(g + 1);
    g->kind = kind;
    g->nnodes = nnodes;
    g->nedges = nedges;
    g->indegree = indegree;
    g->outdegree = outdegree;
    g->index = p;
    g->edges = p += nnodes;
    g->sources = p += nedges;
    g->dests = p += indegree;
    p += outdegree;
    if (weighted) {
        g->sourceweights = p;
        g->destweights = p + indegree;
    }
    return g;
}

lc_graph_t *lc_graph_dup(const lc_graph_t *t)
{
    lc_graph_t *g;
    if (t->kind == MPI_GRAPH) {
        g = lc_graph_alloc(MPI_GRAPH, t->nnodes, t->nedges, 0, 0, false);
        if (!g) return NULL;
        memcpy(g->index, t->index, sizeof(int) * (size_t)t->nnodes);
        memcpy(g->edges, t->edges, sizeof(int) * (size_t)t->nedges);
        g->sources = g->dests = g->edges + (t->sources - t->edges);
        g->indegree = g->outdegree = t->indegree;
        return g;
    }
    g = lc_graph_alloc(t->kind, 0, 0, t->indegree, t->outdegree, t->sourceweights != NULL);
    if (!g) return NULL;
    memcpy(g->sources, t->sources, sizeof(int) * (size_t)t->indegree);
    memcpy(g->dests, t->dests, sizeof(int) * (size_t)t->outdegree);
    if (t->sourceweights) {
        memcpy(g->sourceweights, t->sourceweights, sizeof(int) * (size_t)t->indegree);
        memcpy(g->destweights, t->destweights, sizeof(int) * (size_t)t->outdegree);
    }
    return g;
}

/* nnodes, index[] and edges[] describe a graph of at most `size` nodes:
 * index non-decreasing from 0, every edge names a node. */
static int lc_graph_check(int size, int nnodes, const int index[], const int edges[])
{
    if (nnodes < 0 || nnodes > size)
        return lc_error(MPI_ERR_ARG, "nnodes %d is outside 0..%d (the size of the communicator)", nnodes, size);
    if (nnodes == 0) return MPI_SUCCESS;
    int rc = lc_check_ptr(index, "index");
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return lc_error(MPI_ERR_ARG,
                            "index[%d] = %d is below the index before it: index[] must be the "
                            "running total of the degrees",
                            i, index[i]);
    if (index[nnodes - 1] > 0 && (rc = lc_check_ptr(edges, "edges")) != MPI_SUCCESS) return rc;
    for (int e = 0; e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return lc_error(MPI_ERR_ARG, "edges[%d] = %d is not a node of the %d-node graph", e, edges[e], nnodes);
    return MPI_SUCCESS;
}

static lc_graph_t *lc_graph_new(int rank, int nnodes, const int index[], const int edges[])
{
    int nedges = index[nnodes - 1];
    lc_graph_t *g = lc_graph_alloc(MPI_GRAPH, nnodes, nedges, 0, 0, false);
    if (!g) return NULL;
    memcpy(g->index, index, sizeof(int) * (size_t)nnodes);
    memcpy(g->edges, edges, sizeof(int) * (size_t)nedges);
    int first = rank ? index[rank - 1] : 0;
    g->sources = g->dests = g->edges + first;
    g->indegree = g->outdegree = index[rank] - first;
    return g;
}

LC_API int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                             MPI_Comm *comm_graph)
{
    (void)reorder; /* allowed to be ignored: node i is rank i */
    lc_comm_t *c = NULL, *n = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm_old, &c));
    LC_TRY(lc_check_intra(c, "MPI_Graph_create (a graph topology)"));
    LC_TRY(lc_check_ptr(comm_graph, "comm_graph"));
    LC_TRY(lc_graph_check(c->size, nnodes, indx, edges));
    int member = c->rank < nnodes;
    LC_TRY(lc_mpi_comm_derive(c, member ? c->rank : 0, member ? nnodes : 0, c->world_ranks, &n));
    if (n && !(n->graph = lc_graph_new(n->rank, nnodes, indx, edges))) {
        lc_comm_free_handle(n);
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a graph of %d nodes", nnodes));
    }
    *comm_graph = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graph_create", rc);
}
LC_MPI_ALIAS(Graph_create);

/* The communicator's graph topology (MPI_GRAPH only). */
static int lc_graph_of(MPI_Comm comm, lc_comm_t **c_p, const lc_graph_t **g_p)
{
    int rc = lc_check_comm(comm, c_p);
    if (rc != MPI_SUCCESS) return rc;
    *g_p = (*c_p)->graph;
    if (!*g_p || (*g_p)->kind != MPI_GRAPH)
        return lc_error(MPI_ERR_TOPOLOGY, "the communicator has no graph topology (make one with MPI_Graph_create)");
    return MPI_SUCCESS;
}

LC_API int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc;
    LC_TRY(lc_graph_of(comm, &c, &g));
    LC_TRY(lc_check_ptr(nnodes, "nnodes"));
    LC_TRY(lc_check_ptr(nedges, "nedges"));
    *nnodes = g->nnodes;
    *nedges = g->nedges;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graphdims_get", rc);
}
LC_MPI_ALIAS(Graphdims_get);

LC_API int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc;
    LC_TRY(lc_graph_of(comm, &c, &g));
    if (maxindex < 0 || maxedges < 0)
        LC_TRY(lc_error(MPI_ERR_ARG, "maxindex %d or maxedges %d is negative", maxindex, maxedges));
    int ni = maxindex < g->nnodes ? maxindex : g->nnodes, ne = maxedges < g->nedges ? maxedges : g->nedges;
    if (ni > 0) LC_TRY(lc_check_ptr(indx, "index"));
    if (ne > 0) LC_TRY(lc_check_ptr(edges, "edges"));
    if (ni > 0) memcpy(indx, g->index, sizeof(int) * (size_t)ni);
    if (ne > 0) memcpy(edges, g->edges, sizeof(int) * (size_t)ne);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graph_get", rc);
}
LC_MPI_ALIAS(Graph_get);

/* Row `rank` of the graph: *first_p, *count_p in edges[]. */
static int lc_graph_row(const lc_comm_t *c, const lc_graph_t *g, int rank, int *first_p, int *count_p)
{
    if (rank < 0 || rank >= c->size) return lc_error(MPI_ERR_RANK, "rank %d is outside 0..%d", rank, c->size - 1);
    *first_p = rank ? g->index[rank - 1] : 0;
    *count_p = g->index[rank] - *first_p;
    return MPI_SUCCESS;
}

LC_API int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc, first, count;
    LC_TRY(lc_graph_of(comm, &c, &g));
    LC_TRY(lc_check_ptr(nneighbors, "nneighbors"));
    LC_TRY(lc_graph_row(c, g, rank, &first, &count));
    *nneighbors = count;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graph_neighbors_count", rc);
}
LC_MPI_ALIAS(Graph_neighbors_count);

LC_API int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    lc_comm_t *c = NULL;
    const lc_graph_t *g;
    int rc, first, count;
    LC_TRY(lc_graph_of(comm, &c, &g));
    LC_TRY(lc_graph_row(c, g, rank, &first, &count));
    if (maxneighbors < 0) LC_TRY(lc_error(MPI_ERR_ARG, "maxneighbors %d is negative", maxneighbors));
    int n = maxneighbors < count ? maxneighbors : count;
    if (n > 0) LC_TRY(lc_check_ptr(neighbors, "neighbors"));
    if (n > 0) memcpy(neighbors, g->edges + first, sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graph_neighbors", rc);
}
LC_MPI_ALIAS(Graph_neighbors);

LC_API int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(newrank, "newrank"));
    if (nnodes <= 0) LC_TRY(lc_error(MPI_ERR_ARG, "nnodes %d is not positive", nnodes));
    LC_TRY(lc_graph_check(c->size, nnodes, indx, edges));
    /* The identity mapping, as MPI_Graph_create lays the graph out. */
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Graph_map", rc);
}
LC_MPI_ALIAS(Graph_map);

LC_API int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    lc_comm_t *c = NULL;
    int rc;
    long cells = 1;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(newrank, "newrank"));
    if (ndims < 0) LC_TRY(lc_error(MPI_ERR_DIMS, "ndims %d is negative", ndims));
    if (ndims > 0) LC_TRY(lc_check_ptr(dims, "dims"));
    if (ndims > 0) LC_TRY(lc_check_ptr(periods, "periods"));
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) LC_TRY(lc_error(MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]));
        cells *= dims[i];
        if (cells > c->size)
            LC_TRY(lc_error(MPI_ERR_ARG, "the grid has more cells than the communicator has ranks (%d)", c->size));
    }
    /* The identity mapping, as MPI_Cart_create lays the grid out. */
    *newrank = c->rank < cells ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Cart_map", rc);
}
LC_MPI_ALIAS(Cart_map);
