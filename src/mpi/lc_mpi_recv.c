/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_recv.c — MPI_Recv and MPI_Irecv: argument checks, then the pt2pt
 * engine.
 *
 * Each function has its large-count twin (MPI 4 `_c`: MPI_Count counts);
 * both call one helper that takes MPI_Count.
 */
#include "mpi/lc_mpi_request.h"

#include "mpi/lc_mpi_fast.h"

/* Inline in MPI_Recv and MPI_Recv_c: their whole body (one call fewer on
 * the 8 B round trip, and `func` a constant, not a register kept across
 * the receive). */
LC_INLINE int lc_recv(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                      MPI_Status *status, const char *func)
{
    lc_comm_t *c;
    int rc;
    LC_TRY(lc_check_recv(buf, count, dt, source, tag, comm, &c));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    if (lc_likely(!t))
        LC_TRY(lc_pt2pt_recv(buf, lc_bytes(count, dt), source, tag, c, LC_CTX_PT2PT, status));
    else
        LC_TRY(lc_pt2pt_recv_dt(buf, count, t, source, tag, c, LC_CTX_PT2PT, status));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

static int lc_irecv(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Request *request, const char *func)
{
    lc_comm_t *c;
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_recv(buf, count, dt, source, tag, comm, &c));
    LC_TRY(lc_check_request_out(request));
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    if (lc_likely(!t)) {
        /* Holds the communicator itself (lc_pt2pt.h). */
        LC_TRY(lc_pt2pt_irecv_user_p(buf, lc_bytes(count, dt), source, tag, c, &req));
        *request = lc_request_handle(req);
        return MPI_SUCCESS;
    }
    LC_TRY(lc_pt2pt_irecv_dt(buf, count, t, source, tag, c, LC_CTX_PT2PT, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

/* The MPI_THREAD_MULTIPLE wrappers' fast path (lc_mpi_fast.h): c found,
 * count not negative, a builtin datatype's handle shape (no typed path). */
int lc_mpi_recv_found(lc_comm_t *c, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                      MPI_Status *status)
{
    int rc;
    (void)comm;
    LC_TRY(lc_check_peer_args(c, buf, count, dt, source, tag, true));
    LC_TRY(lc_pt2pt_recv(buf, lc_bytes(count, dt), source, tag, c, LC_CTX_PT2PT, status));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Recv", rc);
}

int lc_mpi_irecv_found(lc_comm_t *c, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    lc_request_t *req;
    int rc;
    (void)comm;
    LC_TRY(lc_check_peer_args(c, buf, count, dt, source, tag, true));
    LC_TRY(lc_check_request_out(request));
    /* Holds the communicator itself (lc_pt2pt.h). */
    LC_TRY(lc_pt2pt_irecv_user_p(buf, lc_bytes(count, dt), source, tag, c, &req));
    *request = lc_request_handle(req);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Irecv", rc);
}

LC_API int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Status *status)
{
    return lc_recv(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}
LC_MPI_ALIAS(Recv);

LC_API int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    return lc_recv(buf, count, datatype, source, tag, comm, status, "MPI_Recv_c");
}
LC_MPI_ALIAS(Recv_c);

LC_API int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                      MPI_Request *request)
{
    return lc_irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}
LC_MPI_ALIAS(Irecv);

LC_API int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    return lc_irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv_c");
}
LC_MPI_ALIAS(Irecv_c);
