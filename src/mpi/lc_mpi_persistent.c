/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_persistent.c — persistent point-to-point requests: MPI_Send_init,
 * Ssend_init, Rsend_init, Bsend_init, Recv_init (started by MPI_Start,
 * src/mpi/lc_mpi_start.c).
 *
 * Each function has its large-count twin (MPI 4 `_c`: MPI_Count counts);
 * both call one helper that takes MPI_Count.
 */
#include "mpi/lc_mpi_request.h"

static int lc_persistent(lc_req_kind_t kind, void *buf, MPI_Count count, MPI_Datatype dt, int rank, int tag,
                         MPI_Comm comm, lc_send_mode_t mode, MPI_Request *request, const char *func)
{
    lc_comm_t *c;
    lc_request_t *req;
    int rc;
    LC_TRY(kind == LC_REQ_PSEND ? lc_check_send(buf, count, dt, rank, tag, comm, &c)
                                : lc_check_recv(buf, count, dt, rank, tag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    if (!(req = lc_request_alloc(kind))) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    req->buf = buf;
    req->udt = lc_mpi_p2p_type(dt);
    req->bytes = lc_mpi_p2p_bytes(count, dt, req->udt);
    req->rank = rank;
    req->tag = tag;
    req->comm = c;
    req->mode = (uint8_t)mode;
    req->dtype = dt;
    req->count = count;
    if (req->udt) { /* started with the typed forms */
        lc_dt_retain(req->udt);
        req->typed = 1;
    }
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, request,
                         "MPI_Send_init");
}
LC_MPI_ALIAS(Send_init);

LC_API int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, request,
                         "MPI_Send_init_c");
}
LC_MPI_ALIAS(Send_init_c);

LC_API int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request,
                         "MPI_Ssend_init");
}
LC_MPI_ALIAS(Ssend_init);

LC_API int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request,
                         "MPI_Ssend_init_c");
}
LC_MPI_ALIAS(Ssend_init_c);

LC_API int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_READY, request,
                         "MPI_Rsend_init");
}
LC_MPI_ALIAS(Rsend_init);

LC_API int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_READY, request,
                         "MPI_Rsend_init_c");
}
LC_MPI_ALIAS(Rsend_init_c);

LC_API int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_BUFFERED, request,
                         "MPI_Bsend_init");
}
LC_MPI_ALIAS(Bsend_init);

LC_API int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_BUFFERED, request,
                         "MPI_Bsend_init_c");
}
LC_MPI_ALIAS(Bsend_init_c);

LC_API int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return lc_persistent(LC_REQ_PRECV, buf, count, datatype, source, tag, comm, LC_MODE_STANDARD, request,
                         "MPI_Recv_init");
}
LC_MPI_ALIAS(Recv_init);

LC_API int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request *request)
{
    return lc_persistent(LC_REQ_PRECV, buf, count, datatype, source, tag, comm, LC_MODE_STANDARD, request,
                         "MPI_Recv_init_c");
}
LC_MPI_ALIAS(Recv_init_c);
