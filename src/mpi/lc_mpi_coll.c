/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll.c — the collective operations of the MPI API with one count
 * per rank (barrier, bcast, reductions, gather/scatter, allgather,
 * alltoall, scans): argument checks, then src/coll does the work.  Each
 * has its large-count `_c` twin.  Vector forms: lc_mpi_coll_vector.c.
 */
#include "mpi/lc_mpi_inter.h"
#include "mpi/lc_mpi_stage.h"

LC_API int PMPI_Barrier(MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_barrier(c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_coll_barrier(c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Barrier", rc);
}
LC_MPI_ALIAS(Barrier);

int lc_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_bcast(buffer, count, datatype, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    LC_TRY(lc_check_not_in_place(buffer, "buffer", ""));
    LC_TRY(lc_check_side(buffer, count, datatype));
    LC_TRY(lc_stage_bcast(buffer, (size_t)count, datatype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    LC_TRY(lc_check_reduction(count, datatype, op));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_buf(recvbuf, count, datatype));
        LC_TRY(lc_check_apart(sendbuf, count, datatype, recvbuf, count, datatype));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_stage_reduce(sendbuf, recvbuf, (size_t)count, datatype, op, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_allreduce(sendbuf, recvbuf, count, datatype, op, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_apart(sendbuf, count, datatype, recvbuf, count, datatype));
    LC_TRY(lc_stage_allreduce(sendbuf, recvbuf, (size_t)count, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, recvtype, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    if (c->rank == root) /* root's block too: in place is MPI_IN_PLACE */
        LC_TRY(lc_check_apart(sendbuf, sendcount, sendtype, recvbuf, recvcount * c->size, recvtype));
    LC_TRY(lc_stage_gather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_scatter(sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount, recvtype, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", ""));
        LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    } else {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", LC_NOT_ROOT));
    }
    if (recvbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (c->rank == root) LC_TRY(lc_check_apart(sendbuf, sendcount * c->size, sendtype, recvbuf, recvcount, recvtype));
    LC_TRY(lc_stage_scatter(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, recvtype, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_check_apart(sendbuf, sendcount, sendtype, recvbuf, recvcount * c->size, recvtype));
    LC_TRY(lc_stage_allgather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_alltoall(sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount, NULL, recvtype, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (sendbuf != MPI_IN_PLACE) {
        LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
        LC_TRY(lc_check_apart(sendbuf, sendcount * c->size, sendtype, recvbuf, recvcount * c->size, recvtype));
    }
    LC_TRY(lc_stage_alltoall(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        lc_vec_t rv = { .counts = NULL, .displs = NULL, .uniform = recvcount < 0 ? 0 : (size_t)recvcount };
        LC_TRY(lc_check_count(recvcount));
        LC_TRY(lc_inter_reduce_scatter(sendbuf, recvbuf, &rv, datatype, op, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_reduction(recvcount, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, recvcount, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, recvcount, datatype));
    LC_TRY(lc_check_apart(sendbuf, recvcount * c->size, datatype, recvbuf, recvcount, datatype));
    LC_TRY(lc_stage_reduce_scatter_block(sendbuf, recvbuf, (size_t)recvcount, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_intra(c, "MPI_Scan"));
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_apart(sendbuf, count, datatype, recvbuf, count, datatype));
    LC_TRY(lc_stage_scan(sendbuf, recvbuf, (size_t)count, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_intra(c, "MPI_Exscan"));
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    /* recvbuf is not significant on rank 0, unless it holds the input. */
    if (c->rank != 0 || sendbuf == MPI_IN_PLACE) LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_apart(sendbuf, count, datatype, recvbuf, count, datatype));
    LC_TRY(lc_stage_exscan(sendbuf, recvbuf, (size_t)count, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* ---- the API entry points and their large-count (`_c`) twins ---------------- */

LC_API int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return lc_bcast(buffer, count, datatype, root, comm, "MPI_Bcast");
}
LC_MPI_ALIAS(Bcast);

LC_API int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return lc_bcast(buffer, count, datatype, root, comm, "MPI_Bcast_c");
}
LC_MPI_ALIAS(Bcast_c);

LC_API int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm)
{
    return lc_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce");
}
LC_MPI_ALIAS(Reduce);

LC_API int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         int root, MPI_Comm comm)
{
    return lc_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce_c");
}
LC_MPI_ALIAS(Reduce_c);

LC_API int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm)
{
    return lc_allreduce(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Allreduce");
}
LC_MPI_ALIAS(Allreduce);

LC_API int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm)
{
    return lc_allreduce(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Allreduce_c");
}
LC_MPI_ALIAS(Allreduce_c);

LC_API int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return lc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Gather");
}
LC_MPI_ALIAS(Gather);

LC_API int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return lc_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Gather_c");
}
LC_MPI_ALIAS(Gather_c);

LC_API int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return lc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatter");
}
LC_MPI_ALIAS(Scatter);

LC_API int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return lc_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatter_c");
}
LC_MPI_ALIAS(Scatter_c);

LC_API int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "MPI_Allgather");
}
LC_MPI_ALIAS(Allgather);

LC_API int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "MPI_Allgather_c");
}
LC_MPI_ALIAS(Allgather_c);

LC_API int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "MPI_Alltoall");
}
LC_MPI_ALIAS(Alltoall);

LC_API int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return lc_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "MPI_Alltoall_c");
}
LC_MPI_ALIAS(Alltoall_c);

LC_API int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm)
{
    return lc_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, "MPI_Reduce_scatter_block");
}
LC_MPI_ALIAS(Reduce_scatter_block);

LC_API int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm)
{
    return lc_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, "MPI_Reduce_scatter_block_c");
}
LC_MPI_ALIAS(Reduce_scatter_block_c);

LC_API int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return lc_scan(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Scan");
}
LC_MPI_ALIAS(Scan);

LC_API int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    return lc_scan(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Scan_c");
}
LC_MPI_ALIAS(Scan_c);

LC_API int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return lc_exscan(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Exscan");
}
LC_MPI_ALIAS(Exscan);

LC_API int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm)
{
    return lc_exscan(sendbuf, recvbuf, count, datatype, op, comm, "MPI_Exscan_c");
}
LC_MPI_ALIAS(Exscan_c);
