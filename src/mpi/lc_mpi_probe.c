/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_probe.c — MPI_Probe, Iprobe, Mprobe, Improbe, and the matched
 * receives of a probed message (MPI_Mrecv, Imrecv, with their `_c`
 * large-count twins).
 */
#include "mpi/lc_mpi_request.h"
#include "pt2pt/lc_park.h"

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
    if (!*flag) lc_progress_poll_idle();
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
        if (flag) {
            lc_park_wait_end();
            return MPI_SUCCESS;
        }
        lc_progress_idle_wait();
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
    LC_TRY(lc_pt2pt_iprobe(source, tag, c, flag, status, &msg));
    if (*flag) {
        lc_request_hold_comm(msg);
        *message = (MPI_Message)lc_request_handle(msg);
    } else {
        lc_progress_poll_idle();
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
        if (rc || flag) {
            lc_park_wait_end();
            return rc;
        }
        lc_progress_idle_wait();
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
static int lc_imrecv_msg(void *buf, MPI_Count count, MPI_Datatype dt, lc_request_t *msg, lc_request_t **req_p)
{
    lc_comm_t *c = msg->comm;
    lc_comm_retain(c);
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    int rc = t ? lc_pt2pt_imrecv_dt(buf, count, t, msg, req_p) : lc_pt2pt_imrecv(buf, lc_bytes(count, dt), msg, req_p);
    lc_comm_release(c);
    return rc;
}

static int lc_imrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request,
                     const char *func)
{
    lc_request_t *msg = NULL, *req;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_message(message, &msg));
    if (msg) c = msg->comm;
    LC_TRY(lc_check_count(count));
    LC_TRY(lc_check_dtype(datatype));
    LC_TRY(lc_check_buf(buf, count, datatype));
    LC_TRY(lc_check_request_out(request));
    if (msg) c = NULL; /* the message may free its communicator: report failures on WORLD */
    LC_TRY(msg ? lc_imrecv_msg(buf, count, datatype, msg, &req) : lc_imrecv_no_proc(&req));
    *message = MPI_MESSAGE_NULL;
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_mrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status,
                    const char *func)
{
    MPI_Request req;
    int rc = lc_imrecv(buf, count, datatype, message, &req, func);
    if (rc) return rc; /* lc_imrecv ran the error handler */
    return PMPI_Wait(&req, status);
}

LC_API int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return lc_imrecv(buf, count, datatype, message, request, "MPI_Imrecv");
}
LC_MPI_ALIAS(Imrecv);

LC_API int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return lc_imrecv(buf, count, datatype, message, request, "MPI_Imrecv_c");
}
LC_MPI_ALIAS(Imrecv_c);

LC_API int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return lc_mrecv(buf, count, datatype, message, status, "MPI_Mrecv");
}
LC_MPI_ALIAS(Mrecv);

LC_API int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return lc_mrecv(buf, count, datatype, message, status, "MPI_Mrecv_c");
}
LC_MPI_ALIAS(Mrecv_c);
