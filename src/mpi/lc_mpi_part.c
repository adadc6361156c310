/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_part.c — partitioned communication (MPI 4.1 chapter 4):
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready, MPI_Pready_range,
 * MPI_Pready_list, MPI_Parrived.  The requests are started by
 * MPI_Start/Startall (lc_mpi_start.c) and completed by the Wait/Test family
 * (lc_mpi_request.c); the engine is src/pt2pt/lc_pt2pt_part.c.
 * MPI 4.1 has no large-count forms of these (count is already MPI_Count).
 */
#include "mpi/lc_mpi_info.h"
#include "mpi/lc_mpi_request.h"

#include <stdint.h>

static int lc_part_init_mpi(bool send, void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int rank, int tag,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request, const char *func)
{
    lc_comm_t *c = NULL;
    lc_info_t *inf;
    lc_request_t *req;
    MPI_Count total;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (partitions < 1)
        LC_TRY(lc_error(MPI_ERR_ARG, "partitions is %d; a partitioned request needs at least one", partitions));
    LC_TRY(lc_check_count(count));
    if (__builtin_mul_overflow(count, (MPI_Count)partitions, &total))
        LC_TRY(lc_error(MPI_ERR_COUNT, "%d partitions of %lld items overflow", partitions, (long long)count));
    LC_TRY(send ? lc_check_send(buf, total, dt, rank, tag, comm, &c)
                : lc_check_recv(buf, total, dt, rank, tag, comm, &c));
    if (!send && rank == MPI_ANY_SOURCE)
        LC_TRY(lc_error(MPI_ERR_RANK, "MPI_ANY_SOURCE is not allowed in MPI_Precv_init: name the sender"));
    if (!send && tag == MPI_ANY_TAG)
        LC_TRY(lc_error(MPI_ERR_TAG, "MPI_ANY_TAG is not allowed in MPI_Precv_init: give the sender's tag"));
    LC_TRY(lc_check_info_or_null(info, &inf));
    LC_TRY(lc_check_request_out(request));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    size_t pbytes = lc_mpi_p2p_bytes(count, dt, t);
    size_t pstride = t ? (size_t)count * (size_t)lc_dt_extent(t) : pbytes;
    LC_TRY(lc_part_init(send, buf, partitions, count, t, pbytes, pstride, rank, tag, c, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_part_init_mpi(true, (void *)buf, partitions, count, datatype, dest, tag, comm, info, request,
                            "MPI_Psend_init");
}
LC_MPI_ALIAS(Psend_init);

LC_API int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return lc_part_init_mpi(false, buf, partitions, count, datatype, source, tag, comm, info, request,
                            "MPI_Precv_init");
}
LC_MPI_ALIAS(Precv_init);

/* The partitioned request of kind `kind` behind a handle. */
static int lc_part_lookup(MPI_Request handle, lc_req_kind_t kind, lc_request_t **req_p)
{
    lc_request_t *req = handle == MPI_REQUEST_NULL ? NULL : lc_request_lookup(handle);
    if (!req || req->user_freed) return lc_error(MPI_ERR_REQUEST, "%#x is not a live request handle", (unsigned)handle);
    if (req->kind != kind)
        return lc_error(MPI_ERR_REQUEST, "%#x is not a partitioned %s request (from %s)", (unsigned)handle,
                        kind == LC_REQ_PART_SEND ? "send" : "receive",
                        kind == LC_REQ_PART_SEND ? "MPI_Psend_init" : "MPI_Precv_init");
    *req_p = req;
    return MPI_SUCCESS;
}

/* Pready and Pready_range: partitions low..high of an active send. */
static int lc_part_ready_range(MPI_Request request, int low, int high, const char *func)
{
    lc_request_t *req;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_part_lookup(request, LC_REQ_PART_SEND, &req));
    c = req->comm;
    LC_TRY(lc_part_pready(req, low, high));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Pready(int partition, MPI_Request request)
{
    return lc_part_ready_range(request, partition, partition, "MPI_Pready");
}
LC_MPI_ALIAS(Pready);

LC_API int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    return lc_part_ready_range(request, partition_low, partition_high, "MPI_Pready_range");
}
LC_MPI_ALIAS(Pready_range);

LC_API int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    lc_request_t *req;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_part_lookup(request, LC_REQ_PART_SEND, &req));
    c = req->comm;
    if (length < 0) LC_TRY(lc_error(MPI_ERR_ARG, "length %d is negative", length));
    if (length > 0) LC_TRY(lc_check_ptr(array_of_partitions, "array_of_partitions"));
    LC_TRY(lc_part_pready_list(req, length, array_of_partitions));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Pready_list", rc);
}
LC_MPI_ALIAS(Pready_list);

LC_API int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    lc_request_t *req;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_part_lookup(request, LC_REQ_PART_RECV, &req));
    c = req->comm;
    LC_TRY(lc_part_arrived(req, partition, flag));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Parrived", rc);
}
LC_MPI_ALIAS(Parrived);
