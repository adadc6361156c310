/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_alltoallw.c — MPI_Alltoallw and MPI_Alltoallw_c on
 * intracommunicators: every block its own count, byte displacement and
 * datatype.  Predefined datatypes for now (derived ones are refused by
 * lc_check_dtype; they will go through the packed-bytes staging the other
 * blocking collectives get).  MPI_IN_PLACE as sendbuf is allowed: the
 * send side is then the receive side.
 */
#include "mpi/lc_mpi_blocks.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_inter.h"

#include <stdlib.h>

static int lc_alltoallw(const lc_blocks_t *s, const lc_blocks_t *r, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    size_t *sb = NULL;
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
    if (c->remote_world)
        LC_TRY(lc_inter_alltoallw(s->buf, sb, so, (void *)r->buf, rb, ro, c));
    else
        LC_TRY(lc_coll_alltoallw(s->buf, sb, so, (void *)r->buf, rb, ro, c));
    free(sb);
    return MPI_SUCCESS;
err:
    free(sb);
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lc_blocks_t s = { .kind = LC_BLOCKS_W,
                      .buf = sendbuf,
                      .icounts = sendcounts,
                      .idispls = sdispls,
                      .types = sendtypes,
                      .side = "send" };
    lc_blocks_t r = { .kind = LC_BLOCKS_W,
                      .buf = recvbuf,
                      .icounts = recvcounts,
                      .idispls = rdispls,
                      .types = recvtypes,
                      .side = "recv" };
    return lc_alltoallw(&s, &r, comm, "MPI_Alltoallw");
}
LC_MPI_ALIAS(Alltoallw);

LC_API int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
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
    return lc_alltoallw(&s, &r, comm, "MPI_Alltoallw_c");
}
LC_MPI_ALIAS(Alltoallw_c);
