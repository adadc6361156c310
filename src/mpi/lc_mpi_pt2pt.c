/*
 * lc_mpi_pt2pt.c — MPI point-to-point functions: argument checks, then
 * the pt2pt engine (all sizes in bytes: every datatype is predefined and
 * contiguous).
 */
#include "mpi/lc_mpi_request.h"

#include <stdlib.h>
#include <string.h>

static int lc_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   lc_send_mode_t mode, const char *func)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    LC_TRY(lc_pt2pt_send(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, mode));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* A NULL request pointer is MPI_ERR_REQUEST: there is nowhere to put the handle. */
static int lc_check_request_out(const MPI_Request *request)
{
    return lc_likely(request != NULL) ? MPI_SUCCESS : lc_error(MPI_ERR_REQUEST, "request is NULL");
}

static int lc_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    lc_send_mode_t mode, MPI_Request *request, const char *func)
{
    lc_comm_t *c;
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_pt2pt_isend(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, mode, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, "MPI_Send");
}
LC_MPI_ALIAS(Send);

LC_API int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, "MPI_Ssend");
}
LC_MPI_ALIAS(Ssend);

LC_API int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_READY, "MPI_Rsend");
}
LC_MPI_ALIAS(Rsend);

LC_API int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, request, "MPI_Isend");
}
LC_MPI_ALIAS(Isend);

LC_API int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request, "MPI_Issend");
}
LC_MPI_ALIAS(Issend);

LC_API int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_READY, request, "MPI_Irsend");
}
LC_MPI_ALIAS(Irsend);

LC_API int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Status *status)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_recv(buf, count, datatype, source, tag, comm, &c));
    LC_TRY(lc_pt2pt_recv(buf, lc_bytes(count, datatype), source, tag, c, LC_CTX_PT2PT, status));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Recv", rc);
}
LC_MPI_ALIAS(Recv);

LC_API int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    lc_comm_t *c;
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_recv(buf, count, datatype, source, tag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_pt2pt_irecv(buf, lc_bytes(count, datatype), source, tag, c, LC_CTX_PT2PT, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Irecv", rc);
}
LC_MPI_ALIAS(Irecv);

/* The rest of a send-receive once its receive `rreq` is posted: send, then
 * wait for both.  A send that cannot start withdraws the receive, which
 * must not fill the buffer later. */
static int lc_sendrecv_finish(const void *sendbuf, size_t bytes, int dest, int tag, lc_comm_t *c,
                              lc_request_t *rreq, MPI_Status *status)
{
    lc_request_t *sreq;
    int rc = lc_pt2pt_isend(sendbuf, bytes, dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq);
    if (rc) {
        lc_pt2pt_cancel(rreq);
        lc_pt2pt_wait_release(rreq, MPI_STATUS_IGNORE);
        return rc;
    }
    int serr = lc_pt2pt_wait_release(sreq, MPI_STATUS_IGNORE);
    int rerr = lc_pt2pt_wait_release(rreq, status);
    return rerr ? rerr : serr;
}

LC_API int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status)
{
    lc_comm_t *c;
    lc_request_t *rreq;
    int rc;
    LC_TRY(lc_check_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, &c));
    LC_TRY(lc_pt2pt_irecv(recvbuf, lc_bytes(recvcount, recvtype), source, recvtag, c, LC_CTX_PT2PT, &rreq));
    LC_TRY(lc_sendrecv_finish(sendbuf, lc_bytes(sendcount, sendtype), dest, sendtag, c, rreq, status));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Sendrecv", rc);
}
LC_MPI_ALIAS(Sendrecv);

LC_API int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    lc_comm_t *c;
    lc_request_t *rreq;
    void *copy = NULL;
    int rc;
    LC_TRY(lc_check_send(buf, count, datatype, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(buf, count, datatype, source, recvtag, comm, &c));
    size_t bytes = lc_bytes(count, datatype);
    if (!(copy = malloc(bytes ? bytes : 1)))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte staging buffer", bytes));
    memcpy(copy, buf, bytes);
    LC_TRY(lc_pt2pt_irecv(buf, bytes, source, recvtag, c, LC_CTX_PT2PT, &rreq));
    LC_TRY(lc_sendrecv_finish(copy, bytes, dest, sendtag, c, rreq, status));
    free(copy);
    return MPI_SUCCESS;
err:
    free(copy);
    return lc_mpi_error(c, "MPI_Sendrecv_replace", rc);
}
LC_MPI_ALIAS(Sendrecv_replace);

/* ---- probes and matched receives --------------------------------------- */

static int lc_check_probe(int source, int tag, MPI_Comm comm, lc_comm_t **comm_p)
{
    *comm_p = NULL;
    int rc = lc_check_comm(comm, comm_p);
    if (!rc) rc = lc_check_rank(*comm_p, source, true);
    if (!rc) rc = lc_check_tag(tag, true);
    return rc;
}

static void lc_status_proc_null(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) lc_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
}

LC_API int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_probe(source, tag, comm, &c));
    LC_TRY(lc_check_ptr(flag, "flag"));
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        lc_status_proc_null(status);
        return MPI_SUCCESS;
    }
    lc_pt2pt_iprobe(source, tag, c, flag, status, NULL);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Iprobe", rc);
}
LC_MPI_ALIAS(Iprobe);

LC_API int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_probe(source, tag, comm, &c));
    if (source == MPI_PROC_NULL) {
        lc_status_proc_null(status);
        return MPI_SUCCESS;
    }
    for (int flag = 0;;) {
        lc_pt2pt_iprobe(source, tag, c, &flag, status, NULL);
        if (flag) return MPI_SUCCESS;
        lc_progress_idle();
    }
err:
    return lc_mpi_error(c, "MPI_Probe", rc);
}
LC_MPI_ALIAS(Probe);

LC_API int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_probe(source, tag, comm, &c));
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_check_ptr(message, "message"));
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        lc_status_proc_null(status);
        return MPI_SUCCESS;
    }
    lc_request_t *msg = NULL;
    lc_pt2pt_iprobe(source, tag, c, flag, status, &msg);
    if (*flag) {
        lc_request_hold_comm(msg);
        *message = (MPI_Message)lc_request_handle(msg);
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Improbe", rc);
}
LC_MPI_ALIAS(Improbe);

LC_API int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    for (int flag = 0;;) {
        int rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
        if (rc || flag) return rc;
        lc_progress_idle();
    }
}
LC_MPI_ALIAS(Mprobe);

/* Resolve a message handle: *msg_p is the probed message, or NULL for
 * MPI_MESSAGE_NO_PROC. */
static int lc_check_message(const MPI_Message *message, lc_request_t **msg_p)
{
    *msg_p = NULL;
    int rc = lc_check_ptr(message, "message");
    if (rc || *message == MPI_MESSAGE_NO_PROC) return rc;
    lc_request_t *msg = lc_request_lookup((MPI_Request)*message);
    if (!msg || msg->kind != LC_REQ_MESSAGE)
        return lc_error(MPI_ERR_REQUEST, "%#x is not a message from MPI_Mprobe/MPI_Improbe (already received?)",
                        (unsigned)*message);
    *msg_p = msg;
    return MPI_SUCCESS;
}

/* The receive of MPI_MESSAGE_NO_PROC: a request complete at once, from MPI_PROC_NULL. */
static int lc_imrecv_no_proc(lc_request_t **req_p)
{
    lc_request_t *req = lc_mpi_request_done();
    if (!req) return lc_error(MPI_ERR_NO_MEM, "out of requests");
    req->st_source = MPI_PROC_NULL;
    *req_p = req;
    return MPI_SUCCESS;
}

/* Receive the probed message `msg`.  The message's reference on the
 * communicator goes with the message: hold one across the hand-over to
 * the new request. */
static int lc_imrecv_msg(void *buf, size_t bytes, lc_request_t *msg, lc_request_t **req_p)
{
    lc_comm_t *c = msg->comm;
    lc_comm_retain(c);
    int rc = lc_pt2pt_imrecv(buf, bytes, msg, req_p);
    lc_comm_release(c);
    return rc;
}

LC_API int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    lc_request_t *msg = NULL, *req;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_message(message, &msg));
    if (msg) c = msg->comm;
    LC_TRY(lc_check_count(count));
    LC_TRY(lc_check_dtype(datatype));
    LC_TRY(lc_check_request_out(request));
    if (msg) c = NULL; /* the message may free its communicator: report failures on WORLD */
    LC_TRY(msg ? lc_imrecv_msg(buf, lc_bytes(count, datatype), msg, &req) : lc_imrecv_no_proc(&req));
    *message = MPI_MESSAGE_NULL;
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Imrecv", rc);
}
LC_MPI_ALIAS(Imrecv);

LC_API int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MPI_Request req;
    int rc = PMPI_Imrecv(buf, count, datatype, message, &req);
    if (rc) return rc;
    return PMPI_Wait(&req, status);
}
LC_MPI_ALIAS(Mrecv);

/* ---- persistent requests ---------------------------------------------------- */

static int lc_persistent(lc_req_kind_t kind, void *buf, int count, MPI_Datatype dt, int rank, int tag,
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
    req->bytes = lc_bytes(count, dt);
    req->rank = rank;
    req->tag = tag;
    req->comm = c;
    req->mode = (uint8_t)mode;
    req->dtype = dt;
    req->count = count;
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

LC_API int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request,
                         "MPI_Ssend_init");
}
LC_MPI_ALIAS(Ssend_init);

LC_API int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_READY, request,
                         "MPI_Rsend_init");
}
LC_MPI_ALIAS(Rsend_init);

/* Each MPI_Start copies the message into the attached buffer (see
 * lc_mpi_bsend.c), as MPI_Bsend would. */
LC_API int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    return lc_persistent(LC_REQ_PSEND, (void *)buf, count, datatype, dest, tag, comm, LC_MODE_BUFFERED, request,
                         "MPI_Bsend_init");
}
LC_MPI_ALIAS(Bsend_init);

LC_API int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request *request)
{
    return lc_persistent(LC_REQ_PRECV, buf, count, datatype, source, tag, comm, LC_MODE_STANDARD, request,
                         "MPI_Recv_init");
}
LC_MPI_ALIAS(Recv_init);

/* ---- status queries ---------------------------------------------------------- */

static int lc_status_count(const MPI_Status *status, MPI_Datatype dt, int *count, const char *func)
{
    int rc = lc_check_dtype(dt);
    if (!rc && (!status || status == MPI_STATUS_IGNORE || !count))
        rc = lc_error(MPI_ERR_ARG, "status or count is NULL/MPI_STATUS_IGNORE");
    if (rc) return lc_mpi_error(NULL, func, rc);
    uint64_t bytes = (uint32_t)status->count_lo | ((uint64_t)((unsigned)status->count_hi_and_cancelled >> 1) << 32);
    size_t size = lc_dtype_size(dt);
    if (size == 0) *count = 0;
    else if (bytes % size || bytes / size > 0x7fffffff) *count = MPI_UNDEFINED;
    else *count = (int)(bytes / size);
    return MPI_SUCCESS;
}

LC_API int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return lc_status_count(status, datatype, count, "MPI_Get_count");
}
LC_MPI_ALIAS(Get_count);

/* Elements are the basic parts of a datatype: one per item, except for
 * the value+index pair types, which hold two. */
LC_API int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    int rc = lc_status_count(status, datatype, count, "MPI_Get_elements");
    if (rc || *count == MPI_UNDEFINED) return rc;
    const lc_dtype_info_t *info = lc_dtype_lookup(datatype);
    if (info->cls == LC_DT_PAIR) *count *= 2;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Get_elements);

LC_API int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    int rc = lc_check_dtype(datatype);
    if (!rc && !size) rc = lc_error(MPI_ERR_ARG, "size is NULL");
    if (rc) return lc_mpi_error(NULL, "MPI_Type_size", rc);
    *size = (int)lc_dtype_lookup(datatype)->type_size;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Type_size);

/* Predefined datatypes pack as their items; the extent (padding of the
 * pair types included) is an upper bound, as MPI allows, and is what a
 * buffered send of the same data occupies. */
LC_API int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    lc_comm_t *c;
    int rc = lc_check_comm(comm, &c);
    if (!rc) rc = lc_check_count(incount);
    if (!rc) rc = lc_check_dtype(datatype);
    if (!rc && !size) rc = lc_error(MPI_ERR_ARG, "size is NULL");
    if (rc) return lc_mpi_error(c, "MPI_Pack_size", rc);
    size_t bytes = lc_bytes(incount, datatype);
    if (bytes > 0x7fffffff)
        return lc_mpi_error(c, "MPI_Pack_size",
                            lc_error(MPI_ERR_VALUE_TOO_LARGE, "%zu bytes do not fit an int", bytes));
    *size = (int)bytes;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Pack_size);
