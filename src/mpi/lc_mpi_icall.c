/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_icall.c — one body per collective for the calls that start it
 * as a schedule: its nonblocking form (MPI_Igather ...) and its
 * persistent one (MPI_Gather_init ...), each with its int and MPI_Count
 * (_c) twin.  The four differ only in info, persistent and the name
 * their error messages give (func), which the exported functions pass
 * (lc_mpi_icoll.c, lc_mpi_coll_init.c).  Vector counts come as an
 * lc_vec_t of the caller's arrays, int or wide.
 */
#include "mpi/lc_mpi_icoll.h"

int lc_icall_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_bcast(buffer, count, datatype, root, comm, func));
}

int lc_icall_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, func));
}

int lc_icall_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_allreduce(sendbuf, recvbuf, count, datatype, op, comm, func));
}

int lc_icall_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                    bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, func));
}

int lc_icall_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, func));
}

int lc_icall_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                       bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, func));
}

int lc_icall_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                      bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, func));
}

int lc_icall_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                                  const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, func));
}

int lc_icall_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_scan(sendbuf, recvbuf, count, datatype, op, comm, func));
}

int lc_icall_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_exscan(sendbuf, recvbuf, count, datatype, op, comm, func));
}

int lc_icall_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                     bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_gatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, root, comm, func));
}

int lc_icall_scatterv(const void *sendbuf, lc_vec_t sv, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                      bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_scatterv(sendbuf, &sv, sendtype, recvbuf, recvcount, recvtype, root, comm, func));
}

int lc_icall_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                        const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_allgatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, comm, func));
}

int lc_icall_alltoallv(const void *sendbuf, lc_vec_t sv, MPI_Datatype sendtype, void *recvbuf, lc_vec_t rv,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent,
                       const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_alltoallv(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, func));
}

int lc_icall_reduce_scatter(const void *sendbuf, void *recvbuf, lc_vec_t rv, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_reduce_scatter(sendbuf, recvbuf, &rv, datatype, op, comm, func));
}
