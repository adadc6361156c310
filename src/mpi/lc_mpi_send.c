/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_send.c — MPI_Send, Ssend, Rsend and their nonblocking forms
 * (Isend, Issend, Irsend): argument checks, then the pt2pt engine (its
 * typed forms for derived datatypes).
 *
 * Each function has its large-count twin (MPI 4 `_c`: MPI_Count counts);
 * both call one helper that takes MPI_Count.
 */
#include "mpi/lc_mpi_request.h"

#include "mpi/lc_mpi_fast.h"

/* Inline in each blocking send (MPI_Send, Ssend, Rsend and their `_c`
 * forms): one call fewer on the 8 B round trip, and `mode` and `func`
 * constants. */
LC_INLINE int lc_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                      lc_send_mode_t mode, const char *func)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    if (lc_likely(!t))
        LC_TRY(lc_pt2pt_send(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, mode));
    else
        LC_TRY(lc_pt2pt_send_dt(buf, count, t, dest, tag, c, LC_CTX_PT2PT, mode));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_isend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    lc_send_mode_t mode, MPI_Request *request, const char *func)
{
    lc_comm_t *c;
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    if (lc_likely(!t))
        LC_TRY(lc_pt2pt_isend(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, mode, &req));
    else
        LC_TRY(lc_pt2pt_isend_dt(buf, count, t, dest, tag, c, LC_CTX_PT2PT, mode, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* The MPI_THREAD_MULTIPLE wrappers' fast path (lc_mpi_fast.h): c found,
 * count not negative, a builtin datatype's handle shape (no typed path). */
int lc_mpi_send_found(lc_comm_t *c, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    int rc;
    (void)comm;
    LC_TRY(lc_check_peer_args(c, buf, count, dt, dest, tag, false));
    LC_TRY(lc_pt2pt_send(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Send", rc);
}

int lc_mpi_isend_found(lc_comm_t *c, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    lc_request_t *req;
    int rc;
    (void)comm;
    LC_TRY(lc_check_peer_args(c, buf, count, dt, dest, tag, false));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_pt2pt_isend(buf, lc_bytes(count, dt), dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Isend", rc);
}

LC_API int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, "MPI_Send");
}
LC_MPI_ALIAS(Send);

LC_API int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, "MPI_Send_c");
}
LC_MPI_ALIAS(Send_c);

LC_API int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, "MPI_Ssend");
}
LC_MPI_ALIAS(Ssend);

LC_API int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, "MPI_Ssend_c");
}
LC_MPI_ALIAS(Ssend_c);

LC_API int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_READY, "MPI_Rsend");
}
LC_MPI_ALIAS(Rsend);

LC_API int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_send(buf, count, datatype, dest, tag, comm, LC_MODE_READY, "MPI_Rsend_c");
}
LC_MPI_ALIAS(Rsend_c);

LC_API int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, request, "MPI_Isend");
}
LC_MPI_ALIAS(Isend);

LC_API int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_STANDARD, request, "MPI_Isend_c");
}
LC_MPI_ALIAS(Isend_c);

LC_API int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request, "MPI_Issend");
}
LC_MPI_ALIAS(Issend);

LC_API int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_SYNC, request, "MPI_Issend_c");
}
LC_MPI_ALIAS(Issend_c);

LC_API int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_READY, request, "MPI_Irsend");
}
LC_MPI_ALIAS(Irsend);

LC_API int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return lc_isend(buf, count, datatype, dest, tag, comm, LC_MODE_READY, request, "MPI_Irsend_c");
}
LC_MPI_ALIAS(Irsend_c);
