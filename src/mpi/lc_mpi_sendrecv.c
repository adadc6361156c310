/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_sendrecv.c — MPI_Sendrecv and MPI_Sendrecv_replace.
 *
 * Each function has its large-count twin (MPI 4 `_c`: MPI_Count counts);
 * both call one helper that takes MPI_Count.
 */
#include "mpi/lc_mpi_request.h"

#include <stdlib.h>
#include <string.h>

/* The rest of a send-receive once its receive `rreq` is posted: send, then
 * wait for both.  A send that cannot start withdraws the receive, which
 * must not fill the buffer later. */
static int lc_sendrecv_finish(const void *sendbuf, MPI_Count count, MPI_Datatype dt, int dest, int tag, lc_comm_t *c,
                              lc_request_t *rreq, MPI_Status *status)
{
    lc_request_t *sreq;
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    int rc = t ? lc_pt2pt_isend_dt(sendbuf, count, t, dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq)
               : lc_pt2pt_isend(sendbuf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq);
    if (rc) {
        lc_pt2pt_cancel(rreq);
        lc_pt2pt_wait_release(rreq, MPI_STATUS_IGNORE);
        return rc;
    }
    int serr = lc_pt2pt_wait_release(sreq, MPI_STATUS_IGNORE);
    int rerr = lc_pt2pt_wait_release(rreq, status);
    return rerr ? rerr : serr;
}

static int lc_sendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status, const char *func)
{
    lc_comm_t *c;
    lc_request_t *rreq;
    int rc;
    LC_TRY(lc_check_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, &c));
    lc_dt_t *rt = lc_mpi_p2p_type(recvtype);
    if (lc_likely(!rt))
        LC_TRY(lc_pt2pt_irecv(recvbuf, lc_bytes(recvcount, recvtype), source, recvtag, c, LC_CTX_PT2PT, &rreq));
    else
        LC_TRY(lc_pt2pt_irecv_dt(recvbuf, recvcount, rt, source, recvtag, c, LC_CTX_PT2PT, &rreq));
    LC_TRY(lc_sendrecv_finish(sendbuf, sendcount, sendtype, dest, sendtag, c, rreq, status));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                               int recvtag, MPI_Comm comm, MPI_Status *status, const char *func)
{
    lc_comm_t *c;
    lc_request_t *rreq;
    void *copy = NULL;
    int rc;
    LC_TRY(lc_check_send(buf, count, datatype, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(buf, count, datatype, source, recvtag, comm, &c));
    lc_dt_t *t = lc_mpi_p2p_type(datatype);
    size_t bytes = lc_mpi_p2p_bytes(count, datatype, t);
    if (!(copy = malloc(bytes ? bytes : 1)))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte staging buffer", bytes));
    /* The outgoing message, packed (a derived or pair type) or copied. */
    if (t)
        LC_TRY(lc_dt_pack(t, count, buf, 0, copy, bytes));
    else
        memcpy(copy, buf, bytes);
    if (lc_likely(!t))
        LC_TRY(lc_pt2pt_irecv(buf, bytes, source, recvtag, c, LC_CTX_PT2PT, &rreq));
    else
        LC_TRY(lc_pt2pt_irecv_dt(buf, count, t, source, recvtag, c, LC_CTX_PT2PT, &rreq));
    LC_TRY(lc_sendrecv_finish(copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, c, rreq, status));
    free(copy);
    return MPI_SUCCESS;
err:
    free(copy);
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status)
{
    return lc_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       status, "MPI_Sendrecv");
}
LC_MPI_ALIAS(Sendrecv);

LC_API int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status)
{
    return lc_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       status, "MPI_Sendrecv_c");
}
LC_MPI_ALIAS(Sendrecv_c);

LC_API int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return lc_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
                               "MPI_Sendrecv_replace");
}
LC_MPI_ALIAS(Sendrecv_replace);

LC_API int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return lc_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
                               "MPI_Sendrecv_replace_c");
}
LC_MPI_ALIAS(Sendrecv_replace_c);
