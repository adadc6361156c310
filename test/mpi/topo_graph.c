/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_graph: graph and distributed graph topologies.  MPI_Graph_create
 * of a ring with chords (and of a graph smaller than the communicator:
 * MPI_COMM_NULL outside), its queries (Topo_test, Graphdims_get,
 * Graph_get, Graph_neighbors(_count)) against the description,
 * MPI_Graph_map / MPI_Cart_map; MPI_Dist_graph_create_adjacent weighted
 * and MPI_UNWEIGHTED, MPI_Dist_graph_create with every edge named by
 * rank 0 and with each rank naming its own out-edges, both checked with
 * Dist_graph_neighbors(_count) (as sets with weights: the order of
 * MPI_Dist_graph_create's neighbours is not fixed); MPI_Comm_dup keeps
 * the topology; errors (MPI_ERR_TOPOLOGY) on the wrong kind. */
#include "lc_test.h"

#include <stdlib.h>

/* Ring 0..n-1, each node also linked to the node halfway round (when n > 3). */
static int ring_graph(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        if (n > 1) {
            edges[e++] = (i + 1) % n;
            edges[e++] = (i + n - 1) % n;
        }
        if (n > 3) edges[e++] = (i + n / 2) % n;
        index[i] = e;
    }
    return e;
}

static void check_graph(MPI_Comm g, int n, const int *index, const int *edges, int nedges)
{
    int st, nn, ne, r;
    LC_MPI(MPI_Topo_test(g, &st));
    LC_CHECK(st == MPI_GRAPH, "Topo_test = %d, expected MPI_GRAPH", st);
    LC_MPI(MPI_Graphdims_get(g, &nn, &ne));
    LC_CHECK(nn == n && ne == nedges, "Graphdims_get = %d, %d; expected %d, %d", nn, ne, n, nedges);
    int *gi = lc_malloc(sizeof(int) * (size_t)n), *ge = lc_malloc(sizeof(int) * (size_t)(nedges + 1));
    LC_MPI(MPI_Graph_get(g, n, nedges, gi, ge));
    for (int i = 0; i < n; i++) LC_CHECK(gi[i] == index[i], "Graph_get index[%d] = %d", i, gi[i]);
    for (int i = 0; i < nedges; i++) LC_CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d", i, ge[i]);
    LC_MPI(MPI_Comm_rank(g, &r));
    for (int node = 0; node < n; node++) {
        int cnt, nb[8], first = node ? index[node - 1] : 0;
        LC_MPI(MPI_Graph_neighbors_count(g, node, &cnt));
        LC_CHECK(cnt == index[node] - first, "Graph_neighbors_count(%d) = %d", node, cnt);
        LC_MPI(MPI_Graph_neighbors(g, node, 8, nb));
        for (int k = 0; k < cnt && k < 8; k++)
            LC_CHECK(nb[k] == edges[first + k], "Graph_neighbors(%d)[%d] = %d", node, k, nb[k]);
    }
    free(gi);
    free(ge);
}

/* Does (src, w) occur among the k pairs? Each match is used once. */
static int take(int *srcs, int *ws, int k, int src, int w, int weighted)
{
    for (int i = 0; i < k; i++)
        if (srcs[i] == src && (!weighted || ws[i] == w)) {
            srcs[i] = -1;
            return 1;
        }
    return 0;
}

/* The graph "rank r -> r+1 (weight 10r+1) and r -> r+2 (weight 10r+2)" on
 * size ranks (no edges that would wrap onto the same rank twice for small
 * sizes are special-cased: duplicates are allowed in MPI). */
static void check_dist(MPI_Comm d, int rank, int size, int weighted)
{
    int in, out, w, st;
    LC_MPI(MPI_Topo_test(d, &st));
    LC_CHECK(st == MPI_DIST_GRAPH, "Topo_test = %d, expected MPI_DIST_GRAPH", st);
    LC_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    LC_CHECK(in == 2 && out == 2, "rank %d: degrees %d, %d, expected 2, 2", rank, in, out);
    LC_CHECK(!!w == !!weighted, "rank %d: weighted = %d", rank, w);
    int s[2], sw[2], t[2], tw[2];
    LC_MPI(MPI_Dist_graph_neighbors(d, 2, s, weighted ? sw : MPI_UNWEIGHTED, 2, t, weighted ? tw : MPI_UNWEIGHTED));
    int p1 = (rank + size - 1) % size, p2 = (rank + 2 * size - 2) % size;
    LC_CHECK(take(s, sw, 2, p1, 10 * p1 + 1, weighted) && take(s, sw, 2, p2, 10 * p2 + 2, weighted),
             "rank %d: in-neighbours are not {%d, %d} with their weights", rank, p1, p2);
    LC_CHECK(take(t, tw, 2, (rank + 1) % size, 10 * rank + 1, weighted) &&
                 take(t, tw, 2, (rank + 2) % size, 10 * rank + 2, weighted),
             "rank %d: out-neighbours are not {r+1, r+2} with their weights", rank);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Graph_create over every rank */
    int *index = lc_malloc(sizeof(int) * (size_t)size), *edges = lc_malloc(sizeof(int) * 3 * (size_t)size);
    int ne = ring_graph(size, index, edges);
    MPI_Comm g, g2;
    LC_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    LC_CHECK(g != MPI_COMM_NULL, "rank %d: MPI_COMM_NULL from a graph of every rank", rank);
    check_graph(g, size, index, edges, ne);
    LC_MPI(MPI_Comm_dup(g, &g2));
    check_graph(g2, size, index, edges, ne);
    int newrank;
    LC_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
    LC_CHECK(newrank >= 0 && newrank < size, "Graph_map gave %d", newrank);
    int cdims[1] = { size }, cper[1] = { 0 };
    LC_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, cdims, cper, &newrank));
    LC_CHECK(newrank >= 0 && newrank < size, "Cart_map gave %d", newrank);
    if (size > 1) {
        cdims[0] = size - 1;
        LC_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, cdims, cper, &newrank));
        LC_CHECK(newrank == MPI_UNDEFINED || (newrank >= 0 && newrank < size - 1), "Cart_map(size-1) gave %d", newrank);
    }
    int nd, dd[1], dp[1], dc[1], in, out, w;
    LC_CHECK(lc_class_of(MPI_Cartdim_get(g, &nd)) == MPI_ERR_TOPOLOGY, "Cartdim_get(graph) not MPI_ERR_TOPOLOGY");
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 crashes in MPI_Cart_get on a graph communicator */
        LC_CHECK(lc_class_of(MPI_Cart_get(g, 1, dd, dp, dc)) == MPI_ERR_TOPOLOGY,
                 "Cart_get(graph) not MPI_ERR_TOPOLOGY");
    LC_CHECK(lc_class_of(MPI_Dist_graph_neighbors_count(g, &in, &out, &w)) == MPI_ERR_TOPOLOGY,
             "Dist_graph_neighbors_count(graph) not MPI_ERR_TOPOLOGY");
    int nn, nedges;
    LC_CHECK(lc_class_of(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &nedges)) == MPI_ERR_TOPOLOGY,
             "Graphdims_get(world) not MPI_ERR_TOPOLOGY");
    LC_MPI(MPI_Comm_free(&g2));
    LC_MPI(MPI_Comm_free(&g));

    /* A graph of size-1 nodes: the last rank is left out */
    if (size > 1) {
        ne = ring_graph(size - 1, index, edges);
        LC_MPI(MPI_Graph_create(MPI_COMM_WORLD, size - 1, index, edges, 0, &g));
        LC_CHECK((rank == size - 1) == (g == MPI_COMM_NULL), "rank %d: wrong membership of a %d-node graph", rank,
                 size - 1);
        if (g != MPI_COMM_NULL) {
            check_graph(g, size - 1, index, edges, ne);
            LC_MPI(MPI_Comm_free(&g));
        }
    }

    /* Dist_graph_create_adjacent: r -> r+1, r+2 with weights 10r+1, 10r+2 */
    int p1 = (rank + size - 1) % size, p2 = (rank + 2 * size - 2) % size;
    int srcs[2] = { p1, p2 }, sw[2] = { 10 * p1 + 1, 10 * p2 + 2 };
    int dsts[2] = { (rank + 1) % size, (rank + 2) % size }, dw[2] = { 10 * rank + 1, 10 * rank + 2 };
    MPI_Comm d, d2;
    for (int weighted = 0; weighted < 2; weighted++) {
        LC_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, weighted ? sw : MPI_UNWEIGHTED, 2, dsts,
                                              weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
        check_dist(d, rank, size, weighted);
        /* adjacent keeps the order given */
        int s[2], t[2], ws[2], wt[2];
        LC_MPI(MPI_Dist_graph_neighbors(d, 2, s, ws, 2, t, wt));
        LC_CHECK(s[0] == p1 && s[1] == p2 && t[0] == dsts[0] && t[1] == dsts[1], "adjacent: order changed");
        LC_MPI(MPI_Comm_dup(d, &d2));
        check_dist(d2, rank, size, weighted);
        LC_MPI(MPI_Comm_free(&d2));
        LC_MPI(MPI_Comm_free(&d));
    }

    /* Dist_graph_create: each rank names its own out-edges */
    int one = rank, two = 2;
    LC_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &one, &two, dsts, dw, MPI_INFO_NULL, 0, &d));
    check_dist(d, rank, size, 1);
    LC_MPI(MPI_Comm_free(&d));

    /* Dist_graph_create: rank 0 names every edge, the others none */
    int *all_src = lc_malloc(sizeof(int) * (size_t)size), *deg = lc_malloc(sizeof(int) * (size_t)size);
    int *all_dst = lc_malloc(sizeof(int) * 2 * (size_t)size), *all_w = lc_malloc(sizeof(int) * 2 * (size_t)size);
    for (int r = 0; r < size; r++) {
        all_src[r] = r;
        deg[r] = 2;
        all_dst[2 * r] = (r + 1) % size;
        all_dst[2 * r + 1] = (r + 2) % size;
        all_w[2 * r] = 10 * r + 1;
        all_w[2 * r + 1] = 10 * r + 2;
    }
    if (rank == 0)
        LC_MPI(
            MPI_Dist_graph_create(MPI_COMM_WORLD, size, all_src, deg, all_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    else
        LC_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, all_src, deg, all_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_dist(d, rank, size, 0);
    LC_CHECK(lc_class_of(MPI_Graph_neighbors_count(d, 0, &nn)) == MPI_ERR_TOPOLOGY,
             "Graph_neighbors_count(dist graph) not MPI_ERR_TOPOLOGY");
    LC_MPI(MPI_Comm_free(&d));

    /* No edges at all, weighted with MPI_WEIGHTS_EMPTY */
    LC_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, srcs, MPI_WEIGHTS_EMPTY, 0, dsts, MPI_WEIGHTS_EMPTY,
                                          MPI_INFO_NULL, 0, &d));
    LC_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    LC_CHECK(in == 0 && out == 0 && w, "empty weighted graph: %d, %d, weighted %d", in, out, w);
    LC_MPI(MPI_Comm_free(&d));

    free(index);
    free(edges);
    free(all_src);
    free(deg);
    free(all_dst);
    free(all_w);
    return lc_finish();
}
