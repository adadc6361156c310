/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_mpi_request.h — user-visible request handles (API layer). */
#ifndef LC_MPI_REQUEST_H
#define LC_MPI_REQUEST_H

#include "mpi/lc_mpi.h"

/* Return a new request to the user (handle).  It keeps its communicator
 * alive: the user may free the communicator before completing it. */
static inline void lc_mpi_request_out(lc_request_t *req, MPI_Request *handle)
{
    lc_request_hold_comm(req);
    *handle = lc_request_handle(req);
}

/* A NULL request pointer is MPI_ERR_REQUEST: there is nowhere to put the handle. */
static inline int lc_check_request_out(const MPI_Request *request)
{
    return lc_likely(request != NULL) ? MPI_SUCCESS : lc_error(MPI_ERR_REQUEST, "request is NULL");
}

/* A request handle that must be real (not MPI_REQUEST_NULL) for `what`
 * ("start", "cancel", ...): MPI_ERR_REQUEST when it is NULL, null, stale
 * or freed. */
int lc_request_check_live(const MPI_Request *handle, const char *what, lc_request_t **req_p);

/* A request that is already complete with an empty status (Ibsend,
 * operations on MPI_PROC_NULL handled in the API layer). */
lc_request_t *lc_mpi_request_done(void);

/* Completion of a request the user holds, composite ones included
 * (generalized requests, Isendrecv's pair of a receive and a send, see
 * lc_mpi_grequest.c).  `t` is the request whose completion counts (a
 * persistent request's instance).  ready: complete, both halves of a
 * pair; wait: progress until ready; query: the status (query_fn for a
 * generalized request) and the operation's error, nothing freed;
 * finish: query, then free everything (free_fn); cancel and free:
 * MPI_Cancel and MPI_Request_free of an active request. */
bool lc_mpi_request_ready(const lc_request_t *t);
/* What a wait for `t` needs to complete next (`t` or its partner): the
 * key of a thread parked in that wait (pt2pt/lc_park.h). */
const void *lc_mpi_request_key(const lc_request_t *t);
void lc_mpi_request_wait(lc_request_t *t);
int lc_mpi_request_query(lc_request_t *t, MPI_Status *status);
int lc_mpi_request_finish(lc_request_t *t, MPI_Status *status);
int lc_mpi_request_cancel(lc_request_t *req);
int lc_mpi_request_free(lc_request_t *req);

/* MPI_Start of a persistent buffered send (MPI_Bsend_init): copy into the
 * attached buffer, send from there; the instance is complete at once.
 * Returns the MPI error (already through the error handler). */
int lc_mpi_bsend_start(lc_request_t *preq);

#endif
