/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_neighbor.c — the blocking neighbourhood collectives (MPI 4.1
 * §8.6): MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v,w), each
 * with its large-count `_c` form.
 *
 * Every form is reduced to one exchange of byte blocks with the in- and
 * out-neighbours (lc_coll_neighbor_alltoallw): the send side has one
 * block per out-neighbour (allgather: the same block for all), the
 * receive side one per in-neighbour.  Predefined datatypes (derived ones
 * are refused by lc_check_dtype until collectives stage them).
 */
#include "mpi/lc_mpi_blocks.h"
#include "mpi/lc_mpi_coll.h"

#include <stdlib.h>

static int lc_neighbor(MPI_Comm comm, const lc_blocks_t *s, const lc_blocks_t *r, const char *func)
{
    lc_comm_t *c = NULL;
    size_t *sb = NULL;
    int rc, in = 0, out = 0;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_coll_neighbor_degrees(c, &in, &out));
    LC_TRY(lc_check_not_in_place(s->buf, "sendbuf", ""));
    LC_TRY(lc_check_not_in_place(r->buf, "recvbuf", ""));
    /* sizes then offsets, send side (out) then receive side (in) */
    size_t n = (size_t)in + (size_t)out;
    sb = malloc((sizeof(size_t) + sizeof(ptrdiff_t)) * (n ? n : 1));
    if (!sb) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for %zu neighbour blocks", n));
    size_t *rb = sb + out;
    ptrdiff_t *so = (ptrdiff_t *)(sb + n), *ro = so + out;
    LC_TRY(lc_blocks_resolve(s, out, sb, so));
    LC_TRY(lc_blocks_resolve(r, in, rb, ro));
    LC_TRY(lc_coll_neighbor_alltoallw(s->buf, sb, so, (void *)r->buf, rb, ro, c));
    free(sb);
    return MPI_SUCCESS;
err:
    free(sb);
    return lc_mpi_error(c, func, rc);
}

/* One count and type: `same` for allgather's send block. */
static inline lc_blocks_t lc_uniform(const void *buf, MPI_Count count, MPI_Datatype dt, bool same, const char *side)
{
    return (
        lc_blocks_t){ .kind = LC_BLOCKS_UNIFORM, .buf = buf, .count = count, .type = dt, .same = same, .side = side };
}

static int lc_neighbor_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor(comm, &s, &r, func);
}

LC_API int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 "MPI_Neighbor_allgather");
}
LC_MPI_ALIAS(Neighbor_allgather);

LC_API int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 "MPI_Neighbor_allgather_c");
}
LC_MPI_ALIAS(Neighbor_allgather_c);

LC_API int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = {
        .kind = LC_BLOCKS_V, .buf = recvbuf, .icounts = recvcounts, .idispls = displs, .type = recvtype, .side = "recv"
    };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_allgatherv");
}
LC_MPI_ALIAS(Neighbor_allgatherv);

LC_API int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = {
        .kind = LC_BLOCKS_V, .buf = recvbuf, .wcounts = recvcounts, .wdispls = displs, .type = recvtype, .side = "recv"
    };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_allgatherv_c");
}
LC_MPI_ALIAS(Neighbor_allgatherv_c);

static int lc_neighbor_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, false, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor(comm, &s, &r, func);
}

LC_API int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                "MPI_Neighbor_alltoall");
}
LC_MPI_ALIAS(Neighbor_alltoall);

LC_API int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                "MPI_Neighbor_alltoall_c");
}
LC_MPI_ALIAS(Neighbor_alltoall_c);

LC_API int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_blocks_t s = {
        .kind = LC_BLOCKS_V, .buf = sendbuf, .icounts = sendcounts, .idispls = sdispls, .type = sendtype, .side = "send"
    };
    lc_blocks_t r = {
        .kind = LC_BLOCKS_V, .buf = recvbuf, .icounts = recvcounts, .idispls = rdispls, .type = recvtype, .side = "recv"
    };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallv");
}
LC_MPI_ALIAS(Neighbor_alltoallv);

LC_API int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_blocks_t s = {
        .kind = LC_BLOCKS_V, .buf = sendbuf, .wcounts = sendcounts, .wdispls = sdispls, .type = sendtype, .side = "send"
    };
    lc_blocks_t r = {
        .kind = LC_BLOCKS_V, .buf = recvbuf, .wcounts = recvcounts, .wdispls = rdispls, .type = recvtype, .side = "recv"
    };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallv_c");
}
LC_MPI_ALIAS(Neighbor_alltoallv_c);

LC_API int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = { .kind = LC_BLOCKS_W,
                      .buf = sendbuf,
                      .icounts = sendcounts,
                      .wdispls = sdispls,
                      .types = sendtypes,
                      .side = "send" };
    lc_blocks_t r = { .kind = LC_BLOCKS_W,
                      .buf = recvbuf,
                      .icounts = recvcounts,
                      .wdispls = rdispls,
                      .types = recvtypes,
                      .side = "recv" };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallw");
}
LC_MPI_ALIAS(Neighbor_alltoallw);

LC_API int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = { .kind = LC_BLOCKS_W,
                      .buf = sendbuf,
                      .wcounts = sendcounts,
                      .wdispls = sdispls,
                      .types = sendtypes,
                      .side = "send" };
    lc_blocks_t r = { .kind = LC_BLOCKS_W,
                      .buf = recvbuf,
                      .wcounts = recvcounts,
                      .wdispls = rdispls,
                      .types = recvtypes,
                      .side = "recv" };
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallw_c");
}
LC_MPI_ALIAS(Neighbor_alltoallw_c);
