/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll_init.c — the persistent collectives of MPI 4 (MPI_Barrier_init
 * ... MPI_Exscan_init, with their large-count `_c` twins): the schedule is
 * built once here, from the buffers and counts given now; MPI_Start runs
 * it (src/mpi/lc_mpi_start.c), as often as the user starts it.  The
 * info argument is checked; no hint is used yet.
 */
#include "mpi/lc_mpi_icoll.h"
#include "mpi/lc_mpi_inter.h"

LC_API int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, true, "MPI_Barrier_init");
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, st.c->remote_world ? lc_inter_barrier(st.c) : lc_coll_barrier(st.c));
}
LC_MPI_ALIAS(Barrier_init);

LC_API int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    return lc_icall_bcast(buffer, count, datatype, root, comm, info, request, true, "MPI_Bcast_init");
}
LC_MPI_ALIAS(Bcast_init);

LC_API int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request)
{
    return lc_icall_bcast(buffer, count, datatype, root, comm, info, request, true, "MPI_Bcast_init_c");
}
LC_MPI_ALIAS(Bcast_init_c);

LC_API int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, info, request, true, "MPI_Reduce_init");
}
LC_MPI_ALIAS(Reduce_init);

LC_API int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, info, request, true, "MPI_Reduce_init_c");
}
LC_MPI_ALIAS(Reduce_init_c);

LC_API int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_allreduce(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Allreduce_init");
}
LC_MPI_ALIAS(Allreduce_init);

LC_API int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_allreduce(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Allreduce_init_c");
}
LC_MPI_ALIAS(Allreduce_init_c);

LC_API int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request, true,
                           "MPI_Gather_init");
}
LC_MPI_ALIAS(Gather_init);

LC_API int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request)
{
    return lc_icall_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request, true,
                           "MPI_Gather_init_c");
}
LC_MPI_ALIAS(Gather_init_c);

LC_API int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request, true,
                            "MPI_Scatter_init");
}
LC_MPI_ALIAS(Scatter_init);

LC_API int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    return lc_icall_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request, true,
                            "MPI_Scatter_init_c");
}
LC_MPI_ALIAS(Scatter_init_c);

LC_API int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, true,
                              "MPI_Allgather_init");
}
LC_MPI_ALIAS(Allgather_init);

LC_API int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return lc_icall_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, true,
                              "MPI_Allgather_init_c");
}
LC_MPI_ALIAS(Allgather_init_c);

LC_API int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, true,
                             "MPI_Alltoall_init");
}
LC_MPI_ALIAS(Alltoall_init);

LC_API int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    return lc_icall_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request, true,
                             "MPI_Alltoall_init_c");
}
LC_MPI_ALIAS(Alltoall_init_c);

LC_API int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request, true,
                                         "MPI_Reduce_scatter_block_init");
}
LC_MPI_ALIAS(Reduce_scatter_block_init);

LC_API int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request)
{
    return lc_icall_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request, true,
                                         "MPI_Reduce_scatter_block_init_c");
}
LC_MPI_ALIAS(Reduce_scatter_block_init_c);

LC_API int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_scan(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Scan_init");
}
LC_MPI_ALIAS(Scan_init);

LC_API int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_scan(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Scan_init_c");
}
LC_MPI_ALIAS(Scan_init_c);

LC_API int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_exscan(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Exscan_init");
}
LC_MPI_ALIAS(Exscan_init);

LC_API int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_exscan(sendbuf, recvbuf, count, datatype, op, comm, info, request, true, "MPI_Exscan_init_c");
}
LC_MPI_ALIAS(Exscan_init_c);

LC_API int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request)
{
    return lc_icall_gatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_int(recvcounts, displs), recvtype, root, comm,
                            info, request, true, "MPI_Gatherv_init");
}
LC_MPI_ALIAS(Gatherv_init);

LC_API int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_gatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_wide(recvcounts, displs), recvtype, root,
                            comm, info, request, true, "MPI_Gatherv_init_c");
}
LC_MPI_ALIAS(Gatherv_init_c);

LC_API int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request)
{
    return lc_icall_scatterv(sendbuf, lc_vec_int(sendcounts, displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, info, request, true, "MPI_Scatterv_init");
}
LC_MPI_ALIAS(Scatterv_init);

LC_API int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_scatterv(sendbuf, lc_vec_wide(sendcounts, displs), sendtype, recvbuf, recvcount, recvtype, root,
                             comm, info, request, true, "MPI_Scatterv_init_c");
}
LC_MPI_ALIAS(Scatterv_init_c);

LC_API int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    return lc_icall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_int(recvcounts, displs), recvtype, comm,
                               info, request, true, "MPI_Allgatherv_init");
}
LC_MPI_ALIAS(Allgatherv_init);

LC_API int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_allgatherv(sendbuf, sendcount, sendtype, recvbuf, lc_vec_wide(recvcounts, displs), recvtype, comm,
                               info, request, true, "MPI_Allgatherv_init_c");
}
LC_MPI_ALIAS(Allgatherv_init_c);

LC_API int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_alltoallv(sendbuf, lc_vec_int(sendcounts, sdispls), sendtype, recvbuf,
                              lc_vec_int(recvcounts, rdispls), recvtype, comm, info, request, true,
                              "MPI_Alltoallv_init");
}
LC_MPI_ALIAS(Alltoallv_init);

LC_API int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return lc_icall_alltoallv(sendbuf, lc_vec_wide(sendcounts, sdispls), sendtype, recvbuf,
                              lc_vec_wide(recvcounts, rdispls), recvtype, comm, info, request, true,
                              "MPI_Alltoallv_init_c");
}
LC_MPI_ALIAS(Alltoallv_init_c);

LC_API int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_icall_reduce_scatter(sendbuf, recvbuf, lc_vec_int(recvcounts, NULL), datatype, op, comm, info, request,
                                   true, "MPI_Reduce_scatter_init");
}
LC_MPI_ALIAS(Reduce_scatter_init);

LC_API int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                      MPI_Request *request)
{
    return lc_icall_reduce_scatter(sendbuf, recvbuf, lc_vec_wide(recvcounts, NULL), datatype, op, comm, info, request,
                                   true, "MPI_Reduce_scatter_init_c");
}
LC_MPI_ALIAS(Reduce_scatter_init_c);
