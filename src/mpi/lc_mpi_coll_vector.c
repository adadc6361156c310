/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll_vector.c — the vector collectives of the MPI API (gatherv,
 * scatterv, allgatherv, alltoallv, reduce_scatter) and their large-count
 * `_c` twins.  Both read the user's arrays in place through an lc_vec_t
 * (int or MPI_Count/MPI_Aint), so neither copies them.
 */
#include "mpi/lc_mpi_inter.h"
#include "mpi/lc_mpi_stage.h"

int lc_gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const lc_vec_t *rv, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_gather(sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
        LC_TRY(lc_check_vector(c, recvbuf, rv, "recvcounts", "displs", recvtype));
    } else {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", LC_NOT_ROOT));
    }
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    if (c->rank == root) LC_TRY(lc_check_apart_vector(sendbuf, sendcount, sendtype, recvbuf, rv, c->size, recvtype));
    LC_TRY(lc_stage_gatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, rv, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_scatterv(const void *sendbuf, const lc_vec_t *sv, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_scatter(sendbuf, 0, sv, sendtype, recvbuf, recvcount, recvtype, root, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_root(c, root));
    if (c->rank == root) {
        LC_TRY(lc_check_not_in_place(sendbuf, "sendbuf", ""));
        LC_TRY(lc_check_vector(c, sendbuf, sv, "sendcounts", "displs", sendtype));
    } else {
        LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", LC_NOT_ROOT));
    }
    if (recvbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(recvbuf, recvcount, recvtype));
    if (c->rank == root) LC_TRY(lc_check_apart_vector(recvbuf, recvcount, recvtype, sendbuf, sv, c->size, sendtype));
    LC_TRY(lc_stage_scatterv(sendbuf, sv, sendtype, recvbuf, (size_t)recvcount, recvtype, root, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const lc_vec_t *rv, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_vector(c, recvbuf, rv, "recvcounts", "displs", recvtype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_side(sendbuf, sendcount, sendtype));
    LC_TRY(lc_check_apart_vector(sendbuf, sendcount, sendtype, recvbuf, rv, c->size, recvtype));
    LC_TRY(lc_stage_allgatherv(sendbuf, (size_t)sendcount, sendtype, recvbuf, rv, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_alltoallv(const void *sendbuf, const lc_vec_t *sv, MPI_Datatype sendtype, void *recvbuf,
                        const lc_vec_t *rv, MPI_Datatype recvtype, MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_alltoall(sendbuf, 0, sv, sendtype, recvbuf, 0, rv, recvtype, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    LC_TRY(lc_check_vector(c, recvbuf, rv, "recvcounts", "rdispls", recvtype));
    if (sendbuf != MPI_IN_PLACE) LC_TRY(lc_check_vector(c, sendbuf, sv, "sendcounts", "sdispls", sendtype));
    LC_TRY(lc_check_apart_sides(&(lc_alias_side_t){ .buf = sendbuf, .n = c->size, .vec = sv, .type = sendtype },
                                &(lc_alias_side_t){ .buf = recvbuf, .n = c->size, .vec = rv, .type = recvtype }, NULL));
    LC_TRY(lc_stage_alltoallv(sendbuf, sv, sendtype, recvbuf, rv, recvtype, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_reduce_scatter(const void *sendbuf, void *recvbuf, const lc_vec_t *rv, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (c->remote_world) {
        LC_TRY(lc_inter_reduce_scatter(sendbuf, recvbuf, rv, datatype, op, c));
        return MPI_SUCCESS;
    }
    LC_TRY(lc_check_reduction(0, datatype, op));
    LC_TRY(lc_check_not_in_place(recvbuf, "recvbuf", ""));
    /* The input covers every block: with MPI_IN_PLACE it is recvbuf. */
    LC_TRY(lc_check_vector(c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, rv, "recvcounts", NULL, datatype));
    size_t mine = lc_vec_count(rv, c->rank);
    LC_TRY(lc_check_buf(recvbuf, (MPI_Count)mine, datatype));
    LC_TRY(lc_check_apart(sendbuf, (MPI_Count)lc_vec_total(rv, c->size), datatype, recvbuf, (MPI_Count)mine, datatype));
    LC_TRY(lc_stage_reduce_scatter(sendbuf, recvbuf, rv, datatype, op, c));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* ---- the API entry points -------------------------------------------------- */

LC_API int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_int(recvcounts, displs);
    return lc_gatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, root, comm, "MPI_Gatherv");
}
LC_MPI_ALIAS(Gatherv);

LC_API int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                          MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_wide(recvcounts, displs);
    return lc_gatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, root, comm, "MPI_Gatherv_c");
}
LC_MPI_ALIAS(Gatherv_c);

LC_API int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    lc_vec_t sv = lc_vec_int(sendcounts, displs);
    return lc_scatterv(sendbuf, &sv, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatterv");
}
LC_MPI_ALIAS(Scatterv);

LC_API int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm)
{
    lc_vec_t sv = lc_vec_wide(sendcounts, displs);
    return lc_scatterv(sendbuf, &sv, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatterv_c");
}
LC_MPI_ALIAS(Scatterv_c);

LC_API int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_int(recvcounts, displs);
    return lc_allgatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, comm, "MPI_Allgatherv");
}
LC_MPI_ALIAS(Allgatherv);

LC_API int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_wide(recvcounts, displs);
    return lc_allgatherv(sendbuf, sendcount, sendtype, recvbuf, &rv, recvtype, comm, "MPI_Allgatherv_c");
}
LC_MPI_ALIAS(Allgatherv_c);

LC_API int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm)
{
    lc_vec_t sv = lc_vec_int(sendcounts, sdispls), rv = lc_vec_int(recvcounts, rdispls);
    return lc_alltoallv(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, "MPI_Alltoallv");
}
LC_MPI_ALIAS(Alltoallv);

LC_API int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lc_vec_t sv = lc_vec_wide(sendcounts, sdispls), rv = lc_vec_wide(recvcounts, rdispls);
    return lc_alltoallv(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, "MPI_Alltoallv_c");
}
LC_MPI_ALIAS(Alltoallv_c);

LC_API int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_int(recvcounts, NULL);
    return lc_reduce_scatter(sendbuf, recvbuf, &rv, datatype, op, comm, "MPI_Reduce_scatter");
}
LC_MPI_ALIAS(Reduce_scatter);

LC_API int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    lc_vec_t rv = lc_vec_wide(recvcounts, NULL);
    return lc_reduce_scatter(sendbuf, recvbuf, &rv, datatype, op, comm, "MPI_Reduce_scatter_c");
}
LC_MPI_ALIAS(Reduce_scatter_c);
