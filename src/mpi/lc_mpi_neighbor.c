/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_neighbor.c — the neighbourhood collectives (MPI 4.1 §8.6):
 * MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v,w), blocking,
 * nonblocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init),
 * each with its large-count `_c` form.
 *
 * Every form is reduced to one exchange of byte blocks with the in- and
 * out-neighbours (lc_coll_neighbor_alltoallw, which a schedule captures
 * for the nonblocking and persistent forms): the send side has one block
 * per out-neighbour (allgather: the same block for all), the receive side
 * one per in-neighbour.  Derived datatypes are staged block by block
 * (lc_mpi_blocks_stage.c); blocks of MPI_PROC_NULL neighbours are left
 * untouched.
 */
#include "mpi/lc_mpi_blocks.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_icoll.h"
#include "mpi/lc_mpi_stage.h"

#include <stdlib.h>

static int lc_neighbor(MPI_Comm comm, const lc_blocks_t *s, const lc_blocks_t *r, const char *func)
{
    lc_comm_t *c = NULL;
    size_t *sb = NULL;
    lc_nbrs_t nb = { 0 };
    lc_blocks_stage_t ss = { 0 }, rs = { 0 };
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
    {
        /* Overlapping blocks of MPI_PROC_NULL neighbours are harmless (never
         * touched): the neighbours are looked up only when blocks meet. */
        lc_alias_side_t as = { .buf = s->buf, .n = out, .blocks = s, .bytes = sb, .off = so, .same = s->same };
        lc_alias_side_t ar = { .buf = r->buf, .n = in, .blocks = r, .bytes = rb, .off = ro };
        bool overlap;
        LC_TRY(lc_check_apart_sides(&as, &ar, &overlap));
        if (overlap) {
            LC_TRY(lc_coll_neighbors(c, &nb));
            as.peers = nb.dst;
            ar.peers = nb.src;
            LC_TRY(lc_check_apart_sides(&as, &ar, NULL));
        }
    }
    const void *sbase = s->buf, *rbase = r->buf;
    if (lc_blocks_derived(s, out) || lc_blocks_derived(r, in)) {
        if (!nb.own && !nb.src && !nb.dst) LC_TRY(lc_coll_neighbors(c, &nb));
        LC_TRY(lc_blocks_stage(&ss, s, out, nb.dst, LC_STAGE_IN, false, sb, so, &sbase));
        LC_TRY(lc_blocks_stage(&rs, r, in, nb.src, LC_STAGE_OUT, false, rb, ro, &rbase));
    }
    LC_TRY(lc_coll_neighbor_alltoallw(sbase, sb, so, (void *)rbase, rb, ro, c));
    lc_blocks_stage_free(&ss);
    LC_TRY(lc_blocks_stage_finish(&rs));
    free(nb.own);
    free(sb);
    return MPI_SUCCESS;
err:
    lc_blocks_stage_free(&ss);
    lc_blocks_stage_free(&rs);
    free(nb.own);
    free(sb);
    return lc_mpi_error(c, func, rc);
}

/* The nonblocking (info unused, persistent false) and persistent forms. */
static int lc_neighbor_start(MPI_Comm comm, const lc_blocks_t *s, const lc_blocks_t *r, MPI_Info info,
                             MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_neighbor(comm, s, r, func));
}

/* One count and type: `same` for allgather's send block. */
static inline lc_blocks_t lc_uniform(const void *buf, MPI_Count count, MPI_Datatype dt, bool same, const char *side)
{
    return (
        lc_blocks_t){ .kind = LC_BLOCKS_UNIFORM, .buf = buf, .count = count, .type = dt, .same = same, .side = side };
}

/* Counts and element displacements with one type (the v forms). */
static inline lc_blocks_t lc_nv(const void *buf, const int *ic, const MPI_Count *wc, const int *id, const MPI_Aint *wd,
                                MPI_Datatype dt, const char *side)
{
    return (lc_blocks_t){ .kind = LC_BLOCKS_V,
                          .buf = buf,
                          .icounts = ic,
                          .wcounts = wc,
                          .idispls = id,
                          .wdispls = wd,
                          .type = dt,
                          .side = side };
}

/* Counts, byte displacements and types (the w forms). */
static inline lc_blocks_t lc_nw(const void *buf, const int *ic, const MPI_Count *wc, const MPI_Aint *wd,
                                const MPI_Datatype *types, const char *side)
{
    return (lc_blocks_t){
        .kind = LC_BLOCKS_W, .buf = buf, .icounts = ic, .wcounts = wc, .wdispls = wd, .types = types, .side = side
    };
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
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, displs, NULL, recvtype, "recv");
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_allgatherv");
}
LC_MPI_ALIAS(Neighbor_allgatherv);

LC_API int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, displs, recvtype, "recv");
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
    lc_blocks_t s = lc_nv(sendbuf, sendcounts, NULL, sdispls, NULL, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, "recv");
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallv");
}
LC_MPI_ALIAS(Neighbor_alltoallv);

LC_API int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_blocks_t s = lc_nv(sendbuf, NULL, sendcounts, NULL, sdispls, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, "recv");
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallv_c");
}
LC_MPI_ALIAS(Neighbor_alltoallv_c);

LC_API int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = lc_nw(sendbuf, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallw");
}
LC_MPI_ALIAS(Neighbor_alltoallw);

LC_API int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = lc_nw(sendbuf, NULL, sendcounts, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, NULL, recvcounts, rdispls, recvtypes, "recv");
    return lc_neighbor(comm, &s, &r, "MPI_Neighbor_alltoallw_c");
}
LC_MPI_ALIAS(Neighbor_alltoallw_c);

/* ---- nonblocking and persistent forms ------------------------------------------ */

LC_API int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_allgather");
}
LC_MPI_ALIAS(Ineighbor_allgather);

LC_API int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_allgather_c");
}
LC_MPI_ALIAS(Ineighbor_allgather_c);

LC_API int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, displs, NULL, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_allgatherv");
}
LC_MPI_ALIAS(Ineighbor_allgatherv);

LC_API int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, displs, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_allgatherv_c");
}
LC_MPI_ALIAS(Ineighbor_allgatherv_c);

LC_API int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, false, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoall");
}
LC_MPI_ALIAS(Ineighbor_alltoall);

LC_API int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, false, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoall_c");
}
LC_MPI_ALIAS(Ineighbor_alltoall_c);

LC_API int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_nv(sendbuf, sendcounts, NULL, sdispls, NULL, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoallv");
}
LC_MPI_ALIAS(Ineighbor_alltoallv);

LC_API int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Request *request)
{
    lc_blocks_t s = lc_nv(sendbuf, NULL, sendcounts, NULL, sdispls, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoallv_c");
}
LC_MPI_ALIAS(Ineighbor_alltoallv_c);

LC_API int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                    MPI_Request *request)
{
    lc_blocks_t s = lc_nw(sendbuf, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoallw");
}
LC_MPI_ALIAS(Ineighbor_alltoallw);

LC_API int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                      MPI_Request *request)
{
    lc_blocks_t s = lc_nw(sendbuf, NULL, sendcounts, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, NULL, recvcounts, rdispls, recvtypes, "recv");
    return lc_neighbor_start(comm, &s, &r, MPI_INFO_NULL, request, false, "MPI_Ineighbor_alltoallw_c");
}
LC_MPI_ALIAS(Ineighbor_alltoallw_c);

LC_API int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_allgather_init");
}
LC_MPI_ALIAS(Neighbor_allgather_init);

LC_API int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Info info, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_allgather_init_c");
}
LC_MPI_ALIAS(Neighbor_allgather_init_c);

LC_API int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, displs, NULL, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_allgatherv_init");
}
LC_MPI_ALIAS(Neighbor_allgatherv_init);

LC_API int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, true, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, displs, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_allgatherv_init_c");
}
LC_MPI_ALIAS(Neighbor_allgatherv_init_c);

LC_API int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, false, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoall_init");
}
LC_MPI_ALIAS(Neighbor_alltoall_init);

LC_API int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *request)
{
    lc_blocks_t s = lc_uniform(sendbuf, sendcount, sendtype, false, "send");
    lc_blocks_t r = lc_uniform(recvbuf, recvcount, recvtype, false, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoall_init_c");
}
LC_MPI_ALIAS(Neighbor_alltoall_init_c);

LC_API int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *request)
{
    lc_blocks_t s = lc_nv(sendbuf, sendcounts, NULL, sdispls, NULL, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, recvcounts, NULL, rdispls, NULL, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoallv_init");
}
LC_MPI_ALIAS(Neighbor_alltoallv_init);

LC_API int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request)
{
    lc_blocks_t s = lc_nv(sendbuf, NULL, sendcounts, NULL, sdispls, sendtype, "send");
    lc_blocks_t r = lc_nv(recvbuf, NULL, recvcounts, NULL, rdispls, recvtype, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoallv_init_c");
}
LC_MPI_ALIAS(Neighbor_alltoallv_init_c);

LC_API int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Info info, MPI_Request *request)
{
    lc_blocks_t s = lc_nw(sendbuf, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoallw_init");
}
LC_MPI_ALIAS(Neighbor_alltoallw_init);

LC_API int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Info info, MPI_Request *request)
{
    lc_blocks_t s = lc_nw(sendbuf, NULL, sendcounts, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_nw(recvbuf, NULL, recvcounts, rdispls, recvtypes, "recv");
    return lc_neighbor_start(comm, &s, &r, info, request, true, "MPI_Neighbor_alltoallw_init_c");
}
LC_MPI_ALIAS(Neighbor_alltoallw_init_c);
