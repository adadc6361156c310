/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_alltoallw.c — MPI_Alltoallw, MPI_Ialltoallw and
 * MPI_Alltoallw_init (each with its `_c` twin) on intracommunicators:
 * every block its own count, byte displacement and datatype.  Derived
 * datatypes are staged block by block (lc_mpi_blocks_stage.c).
 * MPI_IN_PLACE as sendbuf is allowed: the send side is then the receive
 * side; with a derived type among the receive blocks, the send side is
 * made of packed copies of every receive block (a first step).
 */
#include "mpi/lc_mpi_blocks.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_icoll.h"
#include "mpi/lc_mpi_inter.h"
#include "mpi/lc_mpi_stage.h"

#include <stdlib.h>
#include <string.h>

static int lc_alltoallw(const lc_blocks_t *s, const lc_blocks_t *r, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    size_t *sb = NULL;
    lc_blocks_stage_t ss = { 0 }, rs = { 0 };
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_not_in_place(r->buf, "recvbuf", ""));
    if (c->remote_world) LC_TRY(lc_check_not_in_place(s->buf, "sendbuf", " on an intercommunicator"));
    int p = c->peer_count; /* an intercommunicator's blocks: one per remote process */
    sb = malloc((sizeof(size_t) + sizeof(ptrdiff_t)) * 2 * (size_t)p);
    if (!sb) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for %d blocks", 2 * p));
    size_t *rb = sb + p;
    ptrdiff_t *so = (ptrdiff_t *)(sb + 2 * p), *ro = so + p;
    if (s->buf != MPI_IN_PLACE) LC_TRY(lc_blocks_resolve(s, p, sb, so));
    LC_TRY(lc_blocks_resolve(r, p, rb, ro));
    LC_TRY(lc_check_apart_sides(&(lc_alias_side_t){ .buf = s->buf, .n = p, .blocks = s, .bytes = sb, .off = so },
                                &(lc_alias_side_t){ .buf = r->buf, .n = p, .blocks = r, .bytes = rb, .off = ro }, NULL));
    const void *sbase = s->buf, *rbase = r->buf;
    if (s->buf == MPI_IN_PLACE && lc_blocks_derived(r, p)) {
        memcpy(sb, rb, sizeof(*sb) * (size_t)p);
        memcpy(so, ro, sizeof(*so) * (size_t)p);
        LC_TRY(lc_blocks_stage(&ss, r, p, NULL, LC_STAGE_IN, true, sb, so, &sbase));
    } else if (s->buf != MPI_IN_PLACE) {
        LC_TRY(lc_blocks_stage(&ss, s, p, NULL, LC_STAGE_IN, false, sb, so, &sbase));
    }
    LC_TRY(lc_blocks_stage(&rs, r, p, NULL, LC_STAGE_OUT, false, rb, ro, &rbase));
    if (c->remote_world)
        LC_TRY(lc_inter_alltoallw(sbase, sb, so, (void *)rbase, rb, ro, c));
    else
        LC_TRY(lc_coll_alltoallw(sbase, sb, so, (void *)rbase, rb, ro, c));
    lc_blocks_stage_free(&ss);
    LC_TRY(lc_blocks_stage_finish(&rs));
    free(sb);
    return MPI_SUCCESS;
err:
    lc_blocks_stage_free(&ss);
    lc_blocks_stage_free(&rs);
    free(sb);
    return lc_mpi_error(c, func, rc);
}

/* One side's blocks: counts int (ic) or wide (wc), displacements int
 * (id) or wide (wd), the other of each pair NULL. */
static inline lc_blocks_t lc_w(const void *buf, const int *ic, const MPI_Count *wc, const int *id, const MPI_Aint *wd,
                               const MPI_Datatype *types, const char *side)
{
    return (lc_blocks_t){ .kind = LC_BLOCKS_W,
                          .buf = buf,
                          .icounts = ic,
                          .wcounts = wc,
                          .idispls = id,
                          .wdispls = wd,
                          .types = types,
                          .side = side };
}

/* The nonblocking (info unused, persistent false) and persistent forms. */
static int lc_alltoallw_start(const lc_blocks_t *s, const lc_blocks_t *r, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request, bool persistent, const char *func)
{
    lc_icoll_start_t st;
    int rc = lc_icoll_begin(&st, comm, info, request, persistent, func);
    if (rc != MPI_SUCCESS) return rc;
    return lc_icoll_end(&st, lc_alltoallw(s, r, comm, func));
}

LC_API int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = lc_w(sendbuf, sendcounts, NULL, sdispls, NULL, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, recvcounts, NULL, rdispls, NULL, recvtypes, "recv");
    return lc_alltoallw(&s, &r, comm, "MPI_Alltoallw");
}
LC_MPI_ALIAS(Alltoallw);

LC_API int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = lc_w(sendbuf, NULL, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, NULL, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_alltoallw(&s, &r, comm, "MPI_Alltoallw_c");
}
LC_MPI_ALIAS(Alltoallw_c);

LC_API int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    lc_blocks_t s = lc_w(sendbuf, sendcounts, NULL, sdispls, NULL, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, recvcounts, NULL, rdispls, NULL, recvtypes, "recv");
    return lc_alltoallw_start(&s, &r, comm, MPI_INFO_NULL, request, false, "MPI_Ialltoallw");
}
LC_MPI_ALIAS(Ialltoallw);

LC_API int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    lc_blocks_t s = lc_w(sendbuf, NULL, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, NULL, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_alltoallw_start(&s, &r, comm, MPI_INFO_NULL, request, false, "MPI_Ialltoallw_c");
}
LC_MPI_ALIAS(Ialltoallw_c);

LC_API int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    lc_blocks_t s = lc_w(sendbuf, sendcounts, NULL, sdispls, NULL, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, recvcounts, NULL, rdispls, NULL, recvtypes, "recv");
    return lc_alltoallw_start(&s, &r, comm, info, request, true, "MPI_Alltoallw_init");
}
LC_MPI_ALIAS(Alltoallw_init);

LC_API int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    lc_blocks_t s = lc_w(sendbuf, NULL, sendcounts, NULL, sdispls, sendtypes, "send");
    lc_blocks_t r = lc_w(recvbuf, NULL, recvcounts, NULL, rdispls, recvtypes, "recv");
    return lc_alltoallw_start(&s, &r, comm, info, request, true, "MPI_Alltoallw_init_c");
}
LC_MPI_ALIAS(Alltoallw_init_c);
