/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request.c — completion of user requests: Wait/Test and their
 * all/any/some variants, Cancel, Request_free, Request_get_status (and
 * MPI 4.1's _any/_all/_some forms, which free nothing).
 * Composite requests (generalized requests, Isendrecv) are completed,
 * cancelled and freed through lc_mpi_grequest.c.
 *
 * A persistent request (Send_init/Recv_init, Psend_init/Precv_init) stays allocated while
 * inactive; Start creates an instance (`active`) that completion
 * consumes (Start/Startall: lc_mpi_start.c).  "Null or inactive" requests
 * complete at once with an empty status, as MPI 4.1 §3.7.3 says.
 */
#include "mpi/lc_mpi_request.h"

#include "mpi/lc_mpi_fast.h"
#include "pt2pt/lc_park.h"

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
static int lc_request_check(MPI_Request handle, lc_request_t **req_p)
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
static void lc_err_comm_hold(lc_comm_t **slot, lc_comm_t *c)
{
    if (c) lc_comm_retain(c);
    if (*slot) lc_comm_release(*slot);
    *slot = c;
}

/* Let go of a communicator held by lc_err_comm_hold. */
static void lc_err_comm_drop(lc_comm_t *c)
{
    if (c) lc_comm_release(c);
}

/* lc_mpi_error on a held communicator, let go afterwards. */
static int lc_err_comm_report(lc_comm_t *c, const char *func, int rc)
{
    rc = lc_mpi_error(c, func, rc);
    lc_err_comm_drop(c);
    return rc;
}

/* If the request is complete (or null/inactive), fill status, free or
 * deactivate it and return 1.  *err_p gets the operation's error. */
static int lc_request_try_finish(MPI_Request *handle, lc_request_t *req, MPI_Status *status, int *err_p)
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
    if (instance) req->active = NULL;
    else *handle = MPI_REQUEST_NULL;
    return 1;
}

/* The error of a multiple-completion call when an operation failed (its
 * own error is in its status). */
#define LC_IN_STATUS_TEXT "one or more requests failed: see the statuses"

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
 * looked the request up to decide: not looked up twice. */
int lc_mpi_wait_found(lc_request_t *req, MPI_Request *request, MPI_Status *status)
{
    return lc_wait_found(req, request, status);
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

/* Request arrays up to this size are resolved into the caller's stack
 * buffer: Waitall of a window of sends must not cost a malloc. */
#define LC_REQ_LOCAL 64

/* Clear the duplicate marks of the first n entries. */
static void lc_array_unmark(lc_request_t **out, int n)
{
    for (int i = 0; i < n; i++)
        if (out[i]) out[i]->marked = 0;
}

/* Resolve reqs[count] into *out_p (`local` or a malloc'ed array: release
 * with lc_array_release).  A request named twice is an error: completing
 * it twice would release its slot twice (an erroneous program; the
 * _get_status_ calls, which complete nothing, pass `dups_ok`).  Each
 * request carries a mark while the array is checked: one pass, no search. */
static int lc_check_array(int count, const MPI_Request reqs[], lc_request_t **local, lc_request_t ***out_p,
                          bool dups_ok)
{
    if (count < 0) return lc_error(MPI_ERR_COUNT, "count %d is negative", count);
    if (count > 0 && !reqs) return lc_error(MPI_ERR_REQUEST, "array_of_requests is NULL");
    lc_request_t **out = count <= LC_REQ_LOCAL ? local : malloc(sizeof(*out) * (size_t)count);
    if (!out) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d request pointers", count);
    int i, rc = MPI_SUCCESS;
    for (i = 0; i < count; i++) {
        rc = lc_request_check(reqs[i], &out[i]);
        if (rc) break;
        if (dups_ok || !out[i]) continue;
        if (lc_unlikely(out[i]->marked)) {
            int first = 0;
            while (out[first] != out[i]) first++;
            rc = lc_error(MPI_ERR_REQUEST, "array_of_requests[%d] and [%d] are the same request (%#x)", first, i,
                          (unsigned)reqs[i]);
            break;
        }
        out[i]->marked = 1;
    }
    if (!dups_ok) lc_array_unmark(out, i);
    if (rc) {
        if (out != local) free(out);
        return rc;
    }
    *out_p = out;
    return MPI_SUCCESS;
}

static inline void lc_array_release(lc_request_t **r, lc_request_t **local)
{
    if (r != local) free(r);
}

static inline MPI_Status *lc_status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Whether r[*from..count) are all complete; *from moves past the ones
 * found complete, which stay so for the rest of the call (nothing but
 * this call finishes them), so a wait's passes do not check them again:
 * a window of n requests costs O(n) checks over the whole wait instead
 * of O(n) per progress pass. */
static int lc_all_complete_from(lc_request_t **r, int count, int *from)
{
    for (int i = *from; i < count; i++, *from = i) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (t && !lc_mpi_request_ready(t)) return 0;
    }
    return 1;
}

static int lc_all_complete(lc_request_t **r, int count)
{
    int from = 0;
    return lc_all_complete_from(r, count, &from);
}

/* Finish every request of a complete set; MPI_ERR_IN_STATUS (on the
 * communicator of a failed one, *comm_p) if any failed. */
static int lc_all_finish(lc_request_t **r, int count, MPI_Request reqs[], MPI_Status statuses[], lc_comm_t **comm_p)
{
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (t && t->st_error) lc_err_comm_hold(comm_p, t->comm);
        int err;
        lc_request_try_finish(&reqs[i], r[i], lc_status_at(statuses, i), &err);
        if (statuses != MPI_STATUSES_IGNORE) statuses[i].MPI_ERROR = err;
        if (err) any_err = 1;
    }
    return any_err ? lc_error(MPI_ERR_IN_STATUS, LC_IN_STATUS_TEXT) : MPI_SUCCESS;
}

/* Shared by Waitall (block = 1) and Testall (flag set). */
static int lc_all(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[], int block, const char *func)
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    lc_comm_t *c = NULL;
    int rc;
    if (!block) LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_check_array(count, reqs, local, &r, false));
    int done = 0;
    while (!lc_all_complete_from(r, count, &done)) {
        if (!block) {
            lc_progress_test();
            *flag = 0;
            lc_array_release(r, local);
            return MPI_SUCCESS;
        }
        if (!lc_progress()) lc_progress_idle_wait();
    }
    lc_park_wait_end();
    rc = lc_all_finish(r, count, reqs, statuses, &c);
    lc_array_release(r, local);
    if (flag) *flag = 1;
    LC_TRY(rc);
    lc_err_comm_drop(c);
    return MPI_SUCCESS;
err:
    return lc_err_comm_report(c, func, rc);
}

LC_API int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    return lc_all(count, array_of_requests, NULL, array_of_statuses, 1, "MPI_Waitall");
}
LC_MPI_ALIAS(Waitall);

LC_API int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    return lc_all(count, array_of_requests, flag, array_of_statuses, 0, "MPI_Testall");
}
LC_MPI_ALIAS(Testall);

/* One pass of Waitany/Testany over r[count]: 1 when the call is over
 * (*indx, *status and *err_p set: a request finished, or none is
 * active), 0 when nothing is complete yet. */
static int lc_any_pass(lc_request_t **r, int count, MPI_Request reqs[], int *indx, MPI_Status *status, int *err_p,
                       lc_comm_t **comm_p)
{
    int active = 0;
    *err_p = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (!t) continue;
        active = 1;
        if (!lc_mpi_request_ready(t)) continue;
        lc_err_comm_hold(comm_p, t->comm);
        lc_request_try_finish(&reqs[i], r[i], status, err_p);
        *indx = i;
        return 1;
    }
    if (active) return 0;
    *indx = MPI_UNDEFINED;
    if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
    return 1;
}

/* Shared by Waitany (block = 1) and Testany (flag set). */
static int lc_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status, int block,
                  const char *func)
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_ptr(indx, "indx"));
    if (!block) LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_check_array(count, reqs, local, &r, false));
    for (int first = 1;; first = 0) {
        if (lc_any_pass(r, count, reqs, indx, status, &rc, &c)) {
            if (flag) *flag = 1;
            break;
        }
        if (!block && !first) {
            *indx = MPI_UNDEFINED;
            *flag = 0;
            break;
        }
        if (!block)
            lc_progress_test();
        else if (!lc_progress())
            lc_progress_idle_wait();
    }
    lc_park_wait_end();
    lc_array_release(r, local);
    LC_TRY(rc);
    lc_err_comm_drop(c);
    return MPI_SUCCESS;
err:
    return lc_err_comm_report(c, func, rc);
}

LC_API int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    return lc_any(count, array_of_requests, indx, NULL, status, 1, "MPI_Waitany");
}
LC_MPI_ALIAS(Waitany);

LC_API int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status)
{
    return lc_any(count, array_of_requests, indx, flag, status, 0, "MPI_Testany");
}
LC_MPI_ALIAS(Testany);

/* One pass of Waitsome/Testsome: finish every complete request; returns
 * how many (or -1 when none is active). */
static int lc_some_pass(lc_request_t **r, int incount, MPI_Request reqs[], int indices[], MPI_Status statuses[],
                        int *any_err_p, lc_comm_t **comm_p)
{
    int active = 0, n = 0;
    for (int i = 0; i < incount; i++) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (!t) continue;
        active = 1;
        if (!lc_mpi_request_ready(t)) continue;
        if (t->st_error) lc_err_comm_hold(comm_p, t->comm);
        int err;
        lc_request_try_finish(&reqs[i], r[i], lc_status_at(statuses, n), &err);
        if (statuses != MPI_STATUSES_IGNORE) statuses[n].MPI_ERROR = err;
        if (err) *any_err_p = 1;
        indices[n++] = i;
    }
    return active ? n : -1;
}

/* Shared by Waitsome (block = 1) and Testsome. */
static int lc_some(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[], int block,
                   const char *func)
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    lc_comm_t *c = NULL;
    int rc, any_err = 0;
    LC_TRY(lc_check_ptr(outcount, "outcount"));
    if (incount > 0) LC_TRY(lc_check_ptr(indices, "array_of_indices"));
    LC_TRY(lc_check_array(incount, reqs, local, &r, false));
    for (int first = 1;; first = 0) {
        int n = lc_some_pass(r, incount, reqs, indices, statuses, &any_err, &c);
        if (n != 0 || (!block && !first)) {
            *outcount = n < 0 ? MPI_UNDEFINED : n;
            break;
        }
        if (!block)
            lc_progress_test();
        else if (!lc_progress())
            lc_progress_idle_wait();
    }
    lc_park_wait_end();
    lc_array_release(r, local);
    if (any_err) LC_TRY(lc_error(MPI_ERR_IN_STATUS, LC_IN_STATUS_TEXT));
    lc_err_comm_drop(c);
    return MPI_SUCCESS;
err:
    return lc_err_comm_report(c, func, rc);
}

LC_API int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                         MPI_Status array_of_statuses[])
{
    return lc_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 1, "MPI_Waitsome");
}
LC_MPI_ALIAS(Waitsome);

LC_API int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                         MPI_Status array_of_statuses[])
{
    return lc_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 0, "MPI_Testsome");
}
LC_MPI_ALIAS(Testsome);

LC_API int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    lc_request_t *req = NULL;
    int rc;
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_request_check(request, &req));
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (t && !lc_mpi_request_ready(t)) lc_progress_test();
    if (!t) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
    } else {
        *flag = lc_mpi_request_ready(t);
        /* The operation's own error is for the completion call; a
         * generalized request's query_fn answers here too. */
        if (*flag) rc = lc_mpi_request_query(t, status);
        if (*flag && t->kind == LC_REQ_GREQ) LC_TRY(rc);
    }
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Request_get_status", rc);
}
LC_MPI_ALIAS(Request_get_status);

/* ---- MPI 4.1: the status of several requests, none freed ---------------- */

/* The status of r (a checked entry of an array) if it is complete or
 * inactive: 1, with *err_p its error; else 0. */
static int lc_peek(lc_request_t *r, MPI_Status *status, int *err_p)
{
    lc_request_t *t = r ? lc_request_target(r) : NULL;
    *err_p = MPI_SUCCESS;
    if (!t) {
        if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
        return 1;
    }
    if (!lc_mpi_request_ready(t)) return 0;
    *err_p = lc_mpi_request_query(t, status);
    return 1;
}

LC_API int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx, int *flag,
                                       MPI_Status *status)
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    int rc, err = MPI_SUCCESS, active = 0;
    LC_TRY(lc_check_ptr(indx, "indx"));
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_check_array(count, array_of_requests, local, &r, true));
    lc_progress_test();
    *flag = 0;
    *indx = MPI_UNDEFINED;
    for (int i = 0; i < count && !*flag; i++) {
        if (!r[i] || !lc_request_target(r[i])) continue;
        active = 1;
        if (lc_peek(r[i], status, &err)) {
            *flag = 1;
            *indx = i;
        }
    }
    if (!active) { /* none active: true, with an empty status (its error MPI_SUCCESS) */
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) {
            lc_status_empty(status);
            status->MPI_ERROR = MPI_SUCCESS;
        }
    }
    lc_array_release(r, local);
    LC_TRY(err);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Request_get_status_any", rc);
}
LC_MPI_ALIAS(Request_get_status_any);

LC_API int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                       MPI_Status array_of_statuses[])
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    int rc, any_err = 0;
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_check_array(count, array_of_requests, local, &r, true));
    if (!lc_all_complete(r, count)) lc_progress_test();
    *flag = lc_all_complete(r, count);
    for (int i = 0; *flag && i < count; i++) {
        int err;
        lc_peek(r[i], lc_status_at(array_of_statuses, i), &err);
        if (array_of_statuses != MPI_STATUSES_IGNORE) array_of_statuses[i].MPI_ERROR = err;
        if (err) any_err = 1;
    }
    lc_array_release(r, local);
    if (any_err) LC_TRY(lc_error(MPI_ERR_IN_STATUS, LC_IN_STATUS_TEXT));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Request_get_status_all", rc);
}
LC_MPI_ALIAS(Request_get_status_all);

LC_API int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                        int array_of_indices[], MPI_Status array_of_statuses[])
{
    lc_request_t **r = NULL, *local[LC_REQ_LOCAL];
    int rc, any_err = 0, active = 0, n = 0;
    LC_TRY(lc_check_ptr(outcount, "outcount"));
    if (incount > 0) LC_TRY(lc_check_ptr(array_of_indices, "array_of_indices"));
    LC_TRY(lc_check_array(incount, array_of_requests, local, &r, true));
    lc_progress_test();
    for (int i = 0; i < incount; i++) {
        if (!r[i] || !lc_request_target(r[i])) continue;
        active = 1;
        int err;
        if (!lc_peek(r[i], lc_status_at(array_of_statuses, n), &err)) continue;
        if (array_of_statuses != MPI_STATUSES_IGNORE) array_of_statuses[n].MPI_ERROR = err;
        if (err) any_err = 1;
        array_of_indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    lc_array_release(r, local);
    if (any_err) LC_TRY(lc_error(MPI_ERR_IN_STATUS, LC_IN_STATUS_TEXT));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Request_get_status_some", rc);
}
LC_MPI_ALIAS(Request_get_status_some);

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
