/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request_finish.h — what the completion calls share: checking a
 * request handle, the request a wait is for, finishing a complete one,
 * the communicator an error goes to, and request arrays.  Included by
 * lc_mpi_request.c (Wait, Test, Cancel, Request_free),
 * lc_mpi_request_all.c (Waitall, Testall), lc_mpi_request_some.c
 * (Waitany/some, Testany/some) and lc_mpi_request_status.c
 * (Request_get_status and its _any/_all/_some forms).  Inline: Wait's and
 * Test's paths compile as they did when these were one file's statics.
 */
#ifndef LC_MPI_REQUEST_FINISH_H
#define LC_MPI_REQUEST_FINISH_H

#include "mpi/lc_mpi_request.h"

#include <stdbool.h>
#include <stdlib.h>

/* Validate a handle already looked up (found: lc_request_lookup's
 * answer; anything for MPI_REQUEST_NULL).  *req_p = NULL for
 * MPI_REQUEST_NULL. */
LC_INLINE int lc_request_check_found(MPI_Request handle, lc_request_t *req, lc_request_t **req_p)
{
    if (handle == MPI_REQUEST_NULL) {
        *req_p = NULL;
        return MPI_SUCCESS;
    }
    if (!req || req->kind == LC_REQ_MESSAGE || req->user_freed)
        return lc_error(MPI_ERR_REQUEST, "%#x is not an active request handle (already completed or freed?)",
                        (unsigned)handle);
    *req_p = req;
    return MPI_SUCCESS;
}

/* Validate a handle.  *req_p = NULL for MPI_REQUEST_NULL. */
static inline int lc_request_check(MPI_Request handle, lc_request_t **req_p)
{
    return lc_request_check_found(handle, handle == MPI_REQUEST_NULL ? NULL : lc_request_lookup(handle), req_p);
}

/* The request whose completion the user waits for: the persistent
 * request's instance, or itself.  NULL when inactive. */
static inline lc_request_t *lc_request_target(lc_request_t *req)
{
    if (req->kind == LC_REQ_PSEND || req->kind == LC_REQ_PRECV || req->kind == LC_REQ_PCOLL ||
        req->kind == LC_REQ_PART_SEND || req->kind == LC_REQ_PART_RECV)
        return req->active;
    return req;
}

/* The communicator a failed request's error goes to is held across the
 * request's release: MPI_Comm_free before the wait is legal, and the
 * request's reference may be the communicator's last (its error handler
 * would then run on freed memory). */
static inline void lc_err_comm_hold(lc_comm_t **slot, lc_comm_t *c)
{
    if (c) lc_comm_retain(c);
    if (*slot) lc_comm_release(*slot);
    *slot = c;
}

/* Let go of a communicator held by lc_err_comm_hold. */
static inline void lc_err_comm_drop(lc_comm_t *c)
{
    if (c) lc_comm_release(c);
}

/* lc_mpi_error on a held communicator, let go afterwards. */
static inline int lc_err_comm_report(lc_comm_t *c, const char *func, int rc)
{
    rc = lc_mpi_error(c, func, rc);
    lc_err_comm_drop(c);
    return rc;
}

/* If the request is complete (or null/inactive), fill status, free or
 * deactivate it and return 1.  *err_p gets the operation's error. */
static inline int lc_request_try_finish(MPI_Request *handle, lc_request_t *req, MPI_Status *status, int *err_p)
{
    *err_p = MPI_SUCCESS;
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (!t) {
        if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
        return 1;
    }
    if (!lc_mpi_request_ready(t)) return 0;
    bool instance = t != req; /* a persistent request's: the request itself stays */
    *err_p = lc_mpi_request_finish(t, status);
    if (instance)
        req->active = NULL;
    else
        *handle = MPI_REQUEST_NULL;
    return 1;
}

/* The error of a multiple-completion call when an operation failed (its
 * own error is in its status). */
#define LC_IN_STATUS_TEXT "one or more requests failed: see the statuses"

/* Request arrays up to this size are resolved into the caller's stack
 * buffer: Waitall of a window of sends must not cost a malloc. */
#define LC_REQ_LOCAL 64

static inline void lc_array_release(lc_request_t **r, lc_request_t **local)
{
    if (r != local) free(r);
}

static inline MPI_Status *lc_status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Resolve reqs[count] into *out_p (`local` or a malloc'ed array: release
 * with lc_array_release).  A request named twice is an error: completing
 * it twice would release its slot twice (an erroneous program; the
 * _get_status_ calls, which complete nothing, pass `dups_ok`).  Each
 * request carries a mark while the array is checked: one pass, no search. */
int lc_check_array(int count, const MPI_Request reqs[], lc_request_t **local, lc_request_t ***out_p, bool dups_ok);

/* Whether every request of r[count] (NULL entries: null handles) is
 * complete (lc_mpi_request_all.c). */
int lc_all_complete(lc_request_t **r, int count);

#endif
