/* SPDX-License-Identifier: BSD-3-Clause */
/* objmodel2_errors: the error classes of the functions of issue 11's
 * second phase, with MPI_ERRORS_RETURN: bad graphs (MPI_ERR_ARG), ranks
 * outside a graph (MPI_ERR_RANK), the wrong kind of topology
 * (MPI_ERR_TOPOLOGY), bad counts and types in neighbourhood collectives
 * and Alltoallw (MPI_ERR_COUNT, MPI_ERR_TYPE), bad Isendrecv arguments
 * (MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_TAG), MPI_Grequest_complete of
 * MPI_REQUEST_NULL (MPI_ERR_REQUEST), MPI_Alloc_mem with a bad info
 * (MPI_ERR_INFO).  Each failed call leaves the job able to go on. */
#include "lc_test.h"

#define EXPECT(call, cls)                                                                                              \
    do {                                                                                                               \
        int got_ = lc_class_of(call);                                                                                  \
        LC_CHECK(got_ == (cls), "%s: class %s, expected %s", #call, lc_class_name(got_), lc_class_name(cls));          \
    } while (0)

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int size;
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int mpich = lc_library_is_mpich();
    int index[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, edges[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    MPI_Comm g = MPI_COMM_NULL, d = MPI_COMM_NULL;

    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g), MPI_ERR_ARG);
    edges[0] = size + 3;
    EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g), MPI_ERR_ARG);
    int src[1] = { size + 2 }, dst[1] = { 0 };
    if (!mpich) /* MPICH 4.0.2 does not check the ranks */
        EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &d),
               MPI_ERR_ARG);
    EXPECT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &d),
           MPI_ERR_ARG);

    /* a graph where every node is its own neighbour (symmetric, as the
     * neighbourhood collectives need) */
    edges[0] = 0;
    LC_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    int n, nb[4], x[8] = { 0 }, y[8];
    EXPECT(MPI_Graph_neighbors_count(g, size, &n), MPI_ERR_RANK);
    EXPECT(MPI_Graph_neighbors(g, -1, 4, nb), MPI_ERR_RANK);
    EXPECT(MPI_Dist_graph_neighbors_count(g, &n, &n, &n), MPI_ERR_TOPOLOGY);
    EXPECT(MPI_Neighbor_alltoall(x, -1, MPI_INT, y, 1, MPI_INT, g), MPI_ERR_COUNT);
    EXPECT(MPI_Neighbor_allgather(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, g), MPI_ERR_TYPE);
    if (!mpich) /* MPICH 4.0.2 crashes */
        EXPECT(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, g), MPI_ERR_BUFFER);
    /* still usable after the errors */
    LC_MPI(MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, g));
    LC_MPI(MPI_Comm_free(&g));

    int cnt[64], dis[64];
    MPI_Datatype ty[64];
    for (int i = 0; i < 64; i++) {
        cnt[i] = i == size - 1 ? -1 : 0;
        dis[i] = 0;
        ty[i] = MPI_INT;
    }
    if (size <= 64) EXPECT(MPI_Alltoallw(x, cnt, dis, ty, y, cnt, dis, ty, MPI_COMM_WORLD), MPI_ERR_COUNT);

    MPI_Request r;
    EXPECT(MPI_Isendrecv(x, 1, MPI_INT, size, 0, y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    EXPECT(MPI_Isendrecv(x, -1, MPI_INT, 0, 0, y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Isendrecv_replace(x, 1, MPI_INT, 0, -5, 0, 0, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    EXPECT(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    void *m;
    EXPECT(MPI_Alloc_mem(10, (MPI_Info)0x12345, &m), MPI_ERR_INFO);
    return lc_finish();
}
