/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_isendrecv.c — MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0),
 * with their `_c` forms.
 *
 * The request the user gets is the receive; its send half hangs on it
 * (`partner`) and the request completes when both have
 * (lc_mpi_request_ready).  Its status is the receive's.  The replace form
 * sends from a copy of the buffer taken at the call (`ext`, freed with the
 * request; packed for a derived or pair type), so the receive can land in
 * the buffer at any time.  Derived and pair types take the typed forms of
 * the engine, as MPI_Sendrecv does (lc_mpi_p2p_type).
 */
#include "mpi/lc_mpi_request.h"

#include <stdlib.h>
#include <string.h>

/* One side of the pair: count items of dt at buf. */
typedef struct lc_isr_side {
    void *buf;
    MPI_Count count;
    MPI_Datatype dt;
} lc_isr_side_t;

/* Post the pair; `copy` (owned from here on) is the replace form's. */
static int lc_isendrecv_start(lc_comm_t *c, lc_isr_side_t snd, int dest, int stag, lc_isr_side_t rcv, int source,
                              int rtag, void *copy, MPI_Request *request)
{
    lc_request_t *r = NULL, *s = NULL;
    lc_dt_t *st = lc_mpi_p2p_type(snd.dt), *rt = lc_mpi_p2p_type(rcv.dt);
    int rc = rt ? lc_pt2pt_irecv_dt(rcv.buf, rcv.count, rt, source, rtag, c, LC_CTX_PT2PT, &r)
                : lc_pt2pt_irecv(rcv.buf, lc_bytes(rcv.count, rcv.dt), source, rtag, c, LC_CTX_PT2PT, &r);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return rc;
    }
    rc = st ? lc_pt2pt_isend_dt(snd.buf, snd.count, st, dest, stag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &s)
            : lc_pt2pt_isend(snd.buf, lc_bytes(snd.count, snd.dt), dest, stag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &s);
    if (rc != MPI_SUCCESS) { /* withdraw the receive: nobody will wait for it */
        lc_pt2pt_cancel(r);
        lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
        free(copy);
        return rc;
    }
    r->partner = s;
    r->ext = copy;
    lc_mpi_request_out(r, request);
    return MPI_SUCCESS;
}

static int lc_isendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Request *request, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    lc_isr_side_t snd = { (void *)sendbuf, sendcount, sendtype }, rcv = { recvbuf, recvcount, recvtype };
    LC_TRY(lc_isendrecv_start(c, snd, dest, sendtag, rcv, source, recvtag, NULL, request));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                          MPI_Request *request)
{
    return lc_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                        comm, request, "MPI_Isendrecv");
}
LC_MPI_ALIAS(Isendrecv);

LC_API int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Request *request)
{
    return lc_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                        comm, request, "MPI_Isendrecv_c");
}
LC_MPI_ALIAS(Isendrecv_c);

static int lc_isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag, int source,
                                int recvtag, MPI_Comm comm, MPI_Request *request, const char *func)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, sendtag, comm, &c));
    LC_TRY(lc_check_recv(buf, count, dt, source, recvtag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    size_t bytes = lc_mpi_p2p_bytes(count, dt, t);
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory copying %zu bytes to send", bytes));
    if (t && (rc = lc_dt_pack(t, count, buf, 0, copy, bytes)) != MPI_SUCCESS) {
        free(copy);
        goto err;
    }
    if (!t && bytes) memcpy(copy, buf, bytes);
    lc_isr_side_t snd = { copy, (MPI_Count)bytes, MPI_BYTE }, rcv = { buf, count, dt };
    LC_TRY(lc_isendrecv_start(c, snd, dest, sendtag, rcv, source, recvtag, copy, request));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                  int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return lc_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                                "MPI_Isendrecv_replace");
}
LC_MPI_ALIAS(Isendrecv_replace);

LC_API int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return lc_isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                                "MPI_Isendrecv_replace_c");
}
LC_MPI_ALIAS(Isendrecv_replace_c);
