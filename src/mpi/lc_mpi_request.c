/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request.c — completion of one user request: Wait and Test,
 * Cancel, Test_cancelled, Request_free.  The calls on several requests
 * are lc_mpi_request_all.c (Waitall, Testall), lc_mpi_request_some.c
 * (Waitany/some, Testany/some) and lc_mpi_request_status.c
 * (Request_get_status and MPI 4.1's _any/_all/_some forms, which free
 * nothing); what they share is lc_mpi_request_finish.h.
 * Composite requests (generalized requests, Isendrecv) are completed,
 * cancelled and freed through lc_mpi_grequest.c.
 *
 * A persistent request (Send_init/Recv_init, Psend_init/Precv_init) stays allocated while
 * inactive; Start creates an instance (`active`) that completion
 * consumes (Start/Startall: lc_mpi_start.c).  "Null or inactive" requests
 * complete at once with an empty status, as MPI 4.1 §3.7.3 says.
 */
#include "mpi/lc_mpi_request_finish.h"

#include "mpi/lc_mpi_fast.h"

#include <stdlib.h>
#include <string.h>

lc_request_t *lc_mpi_request_done(void)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_DONE);
    if (!req) return NULL;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    lc_request_complete(req);
    return req;
}

int lc_request_check_live(const MPI_Request *handle, const char *what, lc_request_t **req_p)
{
    int rc = lc_likely(handle != NULL) ? MPI_SUCCESS : lc_error(MPI_ERR_REQUEST, "request is NULL");
    if (!rc) rc = lc_request_check(*handle, req_p);
    if (!rc && !*req_p) rc = lc_error(MPI_ERR_REQUEST, "cannot %s MPI_REQUEST_NULL", what);
    return rc;
}

/* The request MPI_Wait may complete directly for the live handle `req`:
 * req itself or, for a persistent send, receive or collective, its
 * running instance — one operation the pool completes (a send, a
 * receive, a nonblocking collective's schedule, an already complete
 * one).  NULL for the rest, which the general path handles: an inactive
 * persistent request, a partitioned one, a generalized request, a
 * message, Isendrecv's pair (partner, ext), one the user freed (not a
 * valid handle any more). */
static inline lc_request_t *lc_request_direct(lc_request_t *req)
{
    lc_request_t *t = req;
    if (req->kind == LC_REQ_PSEND || req->kind == LC_REQ_PRECV || req->kind == LC_REQ_PCOLL) {
        if (!(t = req->active) || req->user_freed) return NULL;
    }
    bool plain = t->kind == LC_REQ_SEND || t->kind == LC_REQ_RECV || t->kind == LC_REQ_COLL || t->kind == LC_REQ_DONE;
    return plain && !t->partner && !t->ext && !t->user_freed ? t : NULL;
}

/* MPI_Wait's general path: everything but a direct request that
 * succeeded (lc_wait_found).  Out of line, so that the direct path needs
 * no stack frame for it. */
static __attribute__((noinline)) int lc_wait_general(MPI_Request *request, MPI_Status *status)
{
    lc_request_t *req = NULL;
    lc_comm_t *c = NULL;
    int rc;
    if (!request) LC_TRY(lc_error(MPI_ERR_REQUEST, "request is NULL"));
    LC_TRY(lc_request_check(*request, &req));
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (t) {
        lc_mpi_request_wait(t);
        lc_err_comm_hold(&c, t->comm);
    }
    lc_request_try_finish(request, req, status, &rc);
    LC_TRY(rc);
    lc_err_comm_drop(c);
    return MPI_SUCCESS;
err:
    return lc_err_comm_report(c, "MPI_Wait", rc);
}

/* MPI_Wait once *request has been looked up (req: lc_request_lookup's
 * answer, NULL for a null or stale handle).  The direct path (issue 14:
 * an 8-byte Iallreduce + Wait within 1.2x of Allreduce): what
 * lc_request_check, lc_mpi_request_wait and lc_request_try_finish do for
 * such a request, without their dispatch.  A failed operation takes the
 * general path (the request is complete by then: it only finishes it and
 * reports). */
LC_INLINE int lc_wait_found(lc_request_t *req, MPI_Request *request, MPI_Status *status)
{
    lc_request_t *d = lc_likely(req != NULL) ? lc_request_direct(req) : NULL;
    if (lc_likely(d != NULL)) {
        lc_pt2pt_wait(d);
        if (lc_likely(d->st_error == MPI_SUCCESS)) {
            if (status != MPI_STATUS_IGNORE) lc_request_status(d, status);
            lc_request_release(d);
            if (d != req)
                req->active = NULL; /* an instance: the persistent request stays */
            else
                *request = MPI_REQUEST_NULL;
            return MPI_SUCCESS;
        }
    }
    return lc_wait_general(request, status);
}

/* The fast path of MPI_Wait's wrapper at MULTIPLE (lc_mpi_fast.h), which
 * looked the request up to decide: not looked up twice.  It let through
 * NULL (MPI_REQUEST_NULL), a plain send or receive — its own target, so
 * lc_request_direct's dispatch is not needed — or Isendrecv's pair, which
 * takes the general path (lc_mpi_request_wait waits for both halves). */
int lc_mpi_wait_found(lc_request_t *req, MPI_Request *request, MPI_Status *status)
{
    if (lc_likely(req != NULL && req->partner == NULL)) {
        lc_pt2pt_wait(req);
        if (lc_likely(req->st_error == MPI_SUCCESS)) {
            if (status != MPI_STATUS_IGNORE) lc_request_status(req, status);
            lc_request_release(req);
            *request = MPI_REQUEST_NULL;
            return MPI_SUCCESS;
        }
    }
    return lc_wait_general(request, status);
}

LC_API int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (lc_unlikely(!request)) return lc_wait_general(request, status);
    return lc_wait_found(lc_request_lookup(*request), request, status);
}
LC_MPI_ALIAS(Wait);

/* MPI_Test once *request has been looked up (found: lc_request_lookup's
 * answer, anything when request is NULL or *request MPI_REQUEST_NULL). */
LC_INLINE int lc_test_found(lc_request_t *found, MPI_Request *request, int *flag, MPI_Status *status)
{
    lc_request_t *req = NULL;
    lc_comm_t *c = NULL;
    int rc;
    if (!request) LC_TRY(lc_error(MPI_ERR_REQUEST, "request is NULL"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_request_check_found(*request, found, &req));
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (t) lc_err_comm_hold(&c, t->comm);
    if (t && !lc_mpi_request_ready(t)) lc_progress_test();
    *flag = lc_request_try_finish(request, req, status, &rc);
    LC_TRY(rc);
    lc_err_comm_drop(c);
    return MPI_SUCCESS;
err:
    return lc_err_comm_report(c, "MPI_Test", rc);
}

/* The fast path of MPI_Test's wrapper at MULTIPLE (lc_mpi_fast.h), with
 * the request it looked up to decide. */
int lc_mpi_test_found(lc_request_t *req, MPI_Request *request, int *flag, MPI_Status *status)
{
    return lc_test_found(req, request, flag, status);
}

LC_API int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    lc_request_t *found = request && *request != MPI_REQUEST_NULL ? lc_request_lookup(*request) : NULL;
    return lc_test_found(found, request, flag, status);
}
LC_MPI_ALIAS(Test);

LC_API int PMPI_Cancel(MPI_Request *request)
{
    lc_request_t *req = NULL;
    int rc;
    LC_TRY(lc_request_check_live(request, "cancel", &req));
    LC_TRY(lc_mpi_request_cancel(req));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Cancel", rc);
}
LC_MPI_ALIAS(Cancel);

LC_API int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    int rc;
    if (status == MPI_STATUS_IGNORE) LC_TRY(lc_error(MPI_ERR_ARG, "status is MPI_STATUS_IGNORE"));
    LC_TRY(lc_check_ptr(status, "status"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Test_cancelled", rc);
}
LC_MPI_ALIAS(Test_cancelled);

LC_API int PMPI_Request_free(MPI_Request *request)
{
    lc_request_t *req = NULL;
    int rc;
    LC_TRY(lc_request_check_live(request, "free", &req));
    lc_request_t *t = lc_request_target(req);
    if (req->kind == LC_REQ_PART_SEND || req->kind == LC_REQ_PART_RECV) { /* lc_pt2pt_part.c */
        LC_TRY(lc_part_free(req));
    } else if (req->kind == LC_REQ_GREQ || req->partner) { /* composite (lc_mpi_grequest.c) */
        LC_TRY(lc_mpi_request_free(req));
    } else if (t && t != req) {           /* persistent with a running instance */
        if (atomic_load_explicit(&t->complete, memory_order_acquire))
            lc_request_release(t);
        else
            lc_request_free_running(t);
        lc_request_release(req);
    } else if (t && !atomic_load_explicit(&t->complete, memory_order_acquire)) {
        lc_request_free_running(t); /* running: released when it completes */
    } else {
        lc_request_release(req);
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Request_free", rc);
}
LC_MPI_ALIAS(Request_free);
