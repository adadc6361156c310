/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_start.c — MPI_Start and MPI_Startall: a persistent request
 * (point-to-point, partitioned or collective) gets a running instance,
 * which the Wait/Test family (lc_mpi_request.c) completes.
 */
#include "coll/lc_sched.h"
#include "mpi/lc_mpi_request.h"

/* A persistent request that is not running. */
static int lc_check_startable(const lc_request_t *req)
{
    if (req->kind != LC_REQ_PSEND && req->kind != LC_REQ_PRECV && req->kind != LC_REQ_PCOLL &&
        req->kind != LC_REQ_PART_SEND && req->kind != LC_REQ_PART_RECV)
        return lc_error(MPI_ERR_REQUEST, "MPI_Start needs a persistent request (from MPI_Send_init/MPI_Recv_init, "
                                         "MPI_Psend_init/MPI_Precv_init or a persistent collective such as "
                                         "MPI_Allreduce_init)");
    if (req->active) return lc_error(MPI_ERR_REQUEST, "the persistent request is already active");
    return MPI_SUCCESS;
}

/* MPI_Start of a checked, startable request. */
static int lc_start_checked(lc_request_t *req)
{
    int rc;
    if (req->kind == LC_REQ_PCOLL) {
        LC_TRY(lc_sched_start_instance(req)); /* the instance holds the communicator itself */
        return MPI_SUCCESS;
    }
    if (req->kind == LC_REQ_PART_SEND || req->kind == LC_REQ_PART_RECV) {
        LC_TRY(lc_part_start(req)); /* the round holds the communicator itself */
        return MPI_SUCCESS;
    }
    if (req->mode == LC_MODE_BUFFERED) return lc_mpi_bsend_start(req);
    LC_TRY(lc_pt2pt_start(req));
    lc_request_hold_comm(req->active); /* outlives the persistent request after Request_free */
    return MPI_SUCCESS;
err:
    return lc_mpi_error(req->comm, "MPI_Start", rc);
}

/* A persistent request with an object tied to it (lc_mpi_request_fin.c:
 * mpi_f08's copy of an array section): LC_FIN_START before the operation
 * starts (the copy-in, and a reference for the instance), which the
 * instance's release ends with LC_FIN_DONE (the copy-back) — at once when
 * no instance started. */
static LC_NOINLINE int lc_start_fin(lc_request_t *req)
{
    lc_req_fin_t *fin = req->fin;
    fin->fn(fin, LC_FIN_START);
    int rc = lc_start_checked(req);
    if (req->active && rc == MPI_SUCCESS)
        req->active->fin = fin;
    else
        fin->fn(fin, LC_FIN_DONE);
    return rc;
}

LC_API int PMPI_Start(MPI_Request *request)
{
    lc_request_t *req = NULL;
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_request_check_live(request, "start", &req));
    c = req->comm; /* its errors go to the request's communicator (MPI 4.1 §9.3) */
    LC_TRY(lc_check_startable(req));
    if (lc_unlikely(req->fin != NULL)) return lc_start_fin(req);
    return lc_start_checked(req);
err:
    return lc_mpi_error(c, "MPI_Start", rc);
}
LC_MPI_ALIAS(Start);

LC_API int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    int rc;
    LC_TRY(lc_check_count(count));
    if (count > 0) LC_TRY(lc_check_ptr(array_of_requests, "array_of_requests"));
    for (int i = 0; i < count; i++) {
        rc = PMPI_Start(&array_of_requests[i]);
        if (rc) return rc; /* PMPI_Start ran the error handler */
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Startall", rc);
}
LC_MPI_ALIAS(Startall);
