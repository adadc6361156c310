/*
 * lc_mpi_coll.c — the collective operations of the MPI API: argument
 * checks, then src/coll does the work.
 *
 * Which arguments are checked follows where the standard says they are
 * significant: receive arguments of gather-like calls only at the root,
 * send arguments of scatter-like calls only at the root, send arguments
 * not at all where MPI_IN_PLACE replaces them.  MPI_IN_PLACE is accepted
 * only where the standard allows it.
 */
#include "mpi/lc_mpi.h"
#include "coll/lc_coll.h"

/* count, datatype and buffer of one side of a transfer */
static int lc_check_side(const void *buf, MPI_Count count, MPI_Datatype dt)
{
    int rc = lc_check_count(count);
    if (rc == MPI_SUCCESS) rc = lc_check_dtype(dt);
    if (rc == MPI_SUCCESS) rc = lc_check_buf(buf, count, dt);
    return rc;
}

/* `where` completes the message: "" or " on a rank other than the root" */
static int lc_check_not_in_place(const void *buf, const char *what, const char *where)
{
    if (lc_likely(buf != MPI_IN_PLACE)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_BUFFER, "%s cannot be MPI_IN_PLACE%s", what, where);
}
#define LC_NOT_ROOT " on a rank other than the root"

/* The same buffer as input and output must be asked for with MPI_IN_PLACE. */
static int lc_check_not_aliased(const void *sbuf, const void *rbuf, size_t bytes)
{
    if (lc_likely(sbuf != rbuf || bytes == 0 || sbuf == MPI_IN_PLACE)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer: pass MPI_IN_PLACE as sendbuf instead");
}

/* counts[size] (and displs[size] unless `displs_name` is NULL) of a vector
 * collective, and the buffer they describe. */
static int lc_check_vector(const lc_comm_t *comm, const void *buf, const int *counts, const char *counts_name,
                           const int *displs, const char *displs_name, MPI_Datatype dt)
{
    if (!counts) return lc_error(MPI_ERR_ARG, "%s is NULL", counts_name);
    if (displs_name && !displs) return lc_error(MPI_ERR_ARG, "%s is NULL", displs_name);
    int rc = lc_check_dtype(dt);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < comm->size; i++) {
        if (counts[i] < 0) return lc_error(MPI_ERR_COUNT, "%s[%d] = %d is negative", counts_name, i, counts[i]);
        rc = lc_check_buf(buf, counts[i], dt);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* count, datatype and operation of a reduction */
static int lc_check_reduction(MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    int rc = lc_check_count(count);
    if (rc == MPI_SUCCESS) rc = lc_check_dtype(dt);
    if (rc == MPI_SUCCESS) rc = lc_check_op(op, dt);
    return rc;
}

LC_API int PMPI_Barrier(MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_coll_barrier(c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Barrier", rc);
}
LC_MPI_ALIAS(Barrier);

static int lc_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    LC_TRY(lc_check_not_in_place(buffer, "buffer", ""));
    LC_TRY(lc_check_side(buffer, count, datatype));
    LC_TRY(lc_coll_bcast(buffer, (size_t)count, datatype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    LC_TRY(lc_check_reduction(count, datatype, op));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_buf(recvbuf, count, datatype));
        LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(count, datatype)));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_coll_reduce(sendbuf, recvbuf, (size_t)count, datatype, op, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(count, datatype)));
    LC_TRY(lc_coll_allreduce(sendbuf, recvbuf, (size_t)count, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_coll_gather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_vector(c, recvbuf, recvcounts, "recvcounts", displs, "displs", recvtype));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_coll_gatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Gatherv", rc);
}
LC_MPI_ALIAS(Gatherv);

static int lc_scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", ""));
        LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    } else {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", LC_NOT_ROOT));
    }
    if (recvbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    LC_TRY(lc_coll_scatter(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", ""));
        LC_TRY(lc_check_vector(c, sendbuf, sendcounts, "sendcounts", displs, "displs", sendtype));
    } else {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", LC_NOT_ROOT));
    }
    if (recvbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    LC_TRY(lc_coll_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Scatterv", rc);
}
LC_MPI_ALIAS(Scatterv);

static int lc_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_coll_allgather(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_vector(c, recvbuf, recvcounts, "recvcounts", displs, "displs", recvtype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_coll_allgatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Allgatherv", rc);
}
LC_MPI_ALIAS(Allgatherv);

static int lc_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (sendbuf != MPI_IN_PLACE) {
        LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
        LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(recvcount, recvtype)));
    }
    LC_TRY(lc_coll_alltoall(sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_vector(c, recvbuf, recvcounts, "recvcounts", rdispls, "rdispls", recvtype));
    if (sendbuf != MPI_IN_PLACE)
        LC_TRY(lc_check_vector(c, sendbuf, sendcounts, "sendcounts", sdispls, "sdispls", sendtype));
    LC_TRY(lc_coll_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Alltoallv", rc);
}
LC_MPI_ALIAS(Alltoallv);

LC_API int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_reduction(0, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    /* The input covers every block: with MPI_IN_PLACE it is recvbuf. */
    LC_TRY(lc_check_vector(c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvcounts, "recvcounts", NULL, NULL,
                           datatype));
    LC_TRY(lc_check_buf(recvbuf, recvcounts[c->rank], datatype));
    LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(recvcounts[c->rank], datatype)));
    LC_TRY(lc_coll_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Reduce_scatter", rc);
}
LC_MPI_ALIAS(Reduce_scatter);

static int lc_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_reduction(recvcount, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, recvcount, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, recvcount, datatype));
    LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(recvcount, datatype)));
    LC_TRY(lc_coll_reduce_scatter_block(sendbuf, recvbuf, (size_t)recvcount, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(count, datatype)));
    LC_TRY(lc_coll_scan(sendbuf, recvbuf, (size_t)count, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    /* recvbuf is not significant on rank 0, unless it holds the input. */
    if (c->rank != 0 || sendbuf == MPI_IN_PLACE) LC_TRY(lc_check_buf(recvbuf, count, datatype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_buf(sendbuf, count, datatype));
    LC_TRY(lc_check_not_aliased(sendbuf, recvbuf, lc_bytes(count, datatype)));
    LC_TRY(lc_coll_exscan(sendbuf, recvbuf, (size_t)count, datatype, op, c));
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
