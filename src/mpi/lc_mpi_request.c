/*
 * lc_mpi_request.c — completion of user requests: Wait/Test and their
 * all/any/some variants, Cancel, Request_free, Request_get_status,
 * Start/Startall.
 *
 * A persistent request (Send_init/Recv_init) stays allocated while
 * inactive; Start creates an instance (`active`) that completion
 * consumes.  "Null or inactive" requests complete at once with an empty
 * status, as MPI 4.1 §3.7.3 says.
 */
#include "mpi/lc_mpi_request.h"

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

/* Validate a handle.  *req_p = NULL for MPI_REQUEST_NULL. */
static int lc_request_check(MPI_Request handle, lc_request_t **req_p)
{
    if (handle == MPI_REQUEST_NULL) {
        *req_p = NULL;
        return MPI_SUCCESS;
    }
    lc_request_t *req = lc_request_lookup(handle);
    if (!req || req->kind == LC_REQ_MESSAGE || req->user_freed)
        return lc_error(MPI_ERR_REQUEST, "%#x is not an active request handle (already completed or freed?)",
                        (unsigned)handle);
    *req_p = req;
    return MPI_SUCCESS;
}

/* The request whose completion the user waits for: the persistent
 * request's instance, or itself.  NULL when inactive. */
static inline lc_request_t *lc_request_target(lc_request_t *req)
{
    if (req->kind == LC_REQ_PSEND || req->kind == LC_REQ_PRECV) return req->active;
    return req;
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
    if (!t->complete) return 0;
    *err_p = t->st_error;
    if (status != MPI_STATUS_IGNORE) lc_request_status(t, status);
    lc_request_release(t);
    if (t == req) *handle = MPI_REQUEST_NULL;
    else req->active = NULL;
    return 1;
}

static int lc_wait_finish(MPI_Request *handle, MPI_Status *status, const char *func)
{
    lc_request_t *req = NULL;
    int rc = lc_request_check(*handle, &req);
    if (rc) return lc_mpi_error(NULL, func, rc);
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (t) lc_pt2pt_wait(t);
    lc_comm_t *comm = t ? t->comm : NULL;
    int err;
    lc_request_try_finish(handle, req, status, &err);
    return err ? lc_mpi_error(comm, func, err) : MPI_SUCCESS;
}

LC_API int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request) return lc_mpi_error(NULL, "MPI_Wait", lc_error(MPI_ERR_REQUEST, "request is NULL"));
    return lc_wait_finish(request, status, "MPI_Wait");
}
LC_MPI_ALIAS(Wait);

LC_API int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag)
        return lc_mpi_error(NULL, "MPI_Test", lc_error(MPI_ERR_ARG, "request or flag is NULL"));
    lc_request_t *req = NULL;
    int rc = lc_request_check(*request, &req);
    if (rc) return lc_mpi_error(NULL, "MPI_Test", rc);
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    lc_comm_t *comm = t ? t->comm : NULL;
    if (t && !t->complete) lc_progress();
    int err;
    *flag = lc_request_try_finish(request, req, status, &err);
    return err ? lc_mpi_error(comm, "MPI_Test", err) : MPI_SUCCESS;
}
LC_MPI_ALIAS(Test);

/* Request arrays up to this size are resolved into the caller's stack
 * buffer: Waitall of a window of sends must not cost a malloc. */
#define LC_REQ_LOCAL 64

static int lc_check_array(int count, const MPI_Request reqs[], const char *func, lc_request_t **local,
                          lc_request_t ***out_p)
{
    if (count < 0) return lc_mpi_error(NULL, func, lc_error(MPI_ERR_COUNT, "count %d is negative", count));
    if (count > 0 && !reqs)
        return lc_mpi_error(NULL, func, lc_error(MPI_ERR_REQUEST, "array_of_requests is NULL"));
    lc_request_t **out = count <= LC_REQ_LOCAL ? local : malloc(sizeof(*out) * (size_t)count);
    if (!out) return lc_mpi_error(NULL, func, lc_error(MPI_ERR_NO_MEM, "out of memory"));
    for (int i = 0; i < count; i++) {
        int rc = lc_request_check(reqs[i], &out[i]);
        if (rc) {
            if (out != local) free(out);
            return lc_mpi_error(NULL, func, rc);
        }
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

/* Shared by Waitall (block = 1) and Testall. */
static int lc_all(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[], int block, const char *func)
{
    lc_request_t **r, *local[LC_REQ_LOCAL];
    int rc = lc_check_array(count, reqs, func, local, &r);
    if (rc) return rc;
    for (;;) {
        int done = 1;
        for (int i = 0; i < count && done; i++) {
            lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
            done = !t || t->complete;
        }
        if (done) break;
        if (!block) {
            lc_progress();
            *flag = 0;
            lc_array_release(r, local);
            return MPI_SUCCESS;
        }
        if (!lc_progress()) lc_progress_idle();
    }
    int any_err = 0;
    lc_comm_t *comm = NULL;
    for (int i = 0; i < count; i++) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (t && t->st_error) comm = t->comm;
        int err;
        lc_request_try_finish(&reqs[i], r[i], lc_status_at(statuses, i), &err);
        if (statuses != MPI_STATUSES_IGNORE) statuses[i].MPI_ERROR = err;
        if (err) any_err = 1;
    }
    lc_array_release(r, local);
    if (flag) *flag = 1;
    if (any_err)
        return lc_mpi_error(comm, func, lc_error(MPI_ERR_IN_STATUS, "one or more requests failed: see the statuses"));
    return MPI_SUCCESS;
}

LC_API int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    return lc_all(count, array_of_requests, NULL, array_of_statuses, 1, "MPI_Waitall");
}
LC_MPI_ALIAS(Waitall);

LC_API int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    if (!flag) return lc_mpi_error(NULL, "MPI_Testall", lc_error(MPI_ERR_ARG, "flag is NULL"));
    return lc_all(count, array_of_requests, flag, array_of_statuses, 0, "MPI_Testall");
}
LC_MPI_ALIAS(Testall);

/* Shared by Waitany and Testany. */
static int lc_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status, int block,
                  const char *func)
{
    if (!indx) return lc_mpi_error(NULL, func, lc_error(MPI_ERR_ARG, "indx is NULL"));
    lc_request_t **r, *local[LC_REQ_LOCAL];
    int rc = lc_check_array(count, reqs, func, local, &r);
    if (rc) return rc;
    int first = 1;
    for (;;) {
        int active = 0;
        for (int i = 0; i < count; i++) {
            lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
            if (!t) continue;
            active = 1;
            if (!t->complete) continue;
            lc_comm_t *comm = t->comm;
            int err;
            lc_request_try_finish(&reqs[i], r[i], status, &err);
            *indx = i;
            if (flag) *flag = 1;
            lc_array_release(r, local);
            return err ? lc_mpi_error(comm, func, err) : MPI_SUCCESS;
        }
        if (!active) {
            *indx = MPI_UNDEFINED;
            if (flag) *flag = 1;
            if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
            lc_array_release(r, local);
            return MPI_SUCCESS;
        }
        if (!block && !first) {
            *indx = MPI_UNDEFINED;
            *flag = 0;
            lc_array_release(r, local);
            return MPI_SUCCESS;
        }
        first = 0;
        if (!lc_progress() && block) lc_progress_idle();
    }
}

LC_API int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    return lc_any(count, array_of_requests, indx, NULL, status, 1, "MPI_Waitany");
}
LC_MPI_ALIAS(Waitany);

LC_API int PMPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status)
{
    if (!flag) return lc_mpi_error(NULL, "MPI_Testany", lc_error(MPI_ERR_ARG, "flag is NULL"));
    return lc_any(count, array_of_requests, indx, flag, status, 0, "MPI_Testany");
}
LC_MPI_ALIAS(Testany);

/* Shared by Waitsome and Testsome. */
static int lc_some(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[], int block,
                   const char *func)
{
    if (!outcount || (incount > 0 && !indices))
        return lc_mpi_error(NULL, func, lc_error(MPI_ERR_ARG, "outcount or array_of_indices is NULL"));
    lc_request_t **r, *local[LC_REQ_LOCAL];
    int rc = lc_check_array(incount, reqs, func, local, &r);
    if (rc) return rc;
    int first = 1;
    for (;;) {
        int active = 0, n = 0, any_err = 0;
        lc_comm_t *comm = NULL;
        for (int i = 0; i < incount; i++) {
            lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
            if (!t) continue;
            active = 1;
            if (!t->complete) continue;
            if (t->st_error) comm = t->comm;
            int err;
            lc_request_try_finish(&reqs[i], r[i], lc_status_at(statuses, n), &err);
            if (statuses != MPI_STATUSES_IGNORE) statuses[n].MPI_ERROR = err;
            if (err) any_err = 1;
            indices[n++] = i;
        }
        if (!active || n || (!block && !first)) {
            *outcount = active ? n : MPI_UNDEFINED;
            lc_array_release(r, local);
            if (any_err)
                return lc_mpi_error(comm, func, lc_error(MPI_ERR_IN_STATUS, "one or more requests failed: see the statuses"));
            return MPI_SUCCESS;
        }
        first = 0;
        if (!lc_progress() && block) lc_progress_idle();
    }
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
    if (!flag) return lc_mpi_error(NULL, "MPI_Request_get_status", lc_error(MPI_ERR_ARG, "flag is NULL"));
    lc_request_t *req = NULL;
    int rc = lc_request_check(request, &req);
    if (rc) return lc_mpi_error(NULL, "MPI_Request_get_status", rc);
    lc_request_t *t = req ? lc_request_target(req) : NULL;
    if (t && !t->complete) lc_progress();
    if (!t) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) lc_status_empty(status);
    } else {
        *flag = t->complete;
        if (t->complete && status != MPI_STATUS_IGNORE) lc_request_status(t, status);
    }
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Request_get_status);

LC_API int PMPI_Cancel(MPI_Request *request)
{
    if (!request) return lc_mpi_error(NULL, "MPI_Cancel", lc_error(MPI_ERR_REQUEST, "request is NULL"));
    lc_request_t *req = NULL;
    int rc = lc_request_check(*request, &req);
    if (!rc && !req) rc = lc_error(MPI_ERR_REQUEST, "cannot cancel MPI_REQUEST_NULL");
    if (rc) return lc_mpi_error(NULL, "MPI_Cancel", rc);
    /* Receives not yet matched are cancelled; any other operation
     * completes normally, which MPI allows (Test_cancelled says false). */
    lc_pt2pt_cancel(req);
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Cancel);

LC_API int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return lc_mpi_error(NULL, "MPI_Test_cancelled", lc_error(MPI_ERR_ARG, "status or flag is NULL/ignored"));
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Test_cancelled);

LC_API int PMPI_Request_free(MPI_Request *request)
{
    if (!request) return lc_mpi_error(NULL, "MPI_Request_free", lc_error(MPI_ERR_REQUEST, "request is NULL"));
    lc_request_t *req = NULL;
    int rc = lc_request_check(*request, &req);
    if (!rc && !req) rc = lc_error(MPI_ERR_REQUEST, "cannot free MPI_REQUEST_NULL");
    if (rc) return lc_mpi_error(NULL, "MPI_Request_free", rc);
    lc_request_t *t = lc_request_target(req);
    if (t && t != req) {           /* persistent with a running instance */
        if (t->complete) lc_request_release(t);
        else t->user_freed = 1;
        lc_request_release(req);
    } else if (t && !t->complete) { /* running: released when it completes */
        t->user_freed = 1;
    } else {
        lc_request_release(req);
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Request_free);

LC_API int PMPI_Start(MPI_Request *request)
{
    if (!request) return lc_mpi_error(NULL, "MPI_Start", lc_error(MPI_ERR_REQUEST, "request is NULL"));
    lc_request_t *req = NULL;
    int rc = lc_request_check(*request, &req);
    if (!rc && (!req || (req->kind != LC_REQ_PSEND && req->kind != LC_REQ_PRECV)))
        rc = lc_error(MPI_ERR_REQUEST, "MPI_Start needs a persistent request (from MPI_Send_init/MPI_Recv_init)");
    if (!rc && req->active) rc = lc_error(MPI_ERR_REQUEST, "the persistent request is already active");
    if (rc) return lc_mpi_error(NULL, "MPI_Start", rc);
    if (req->mode == LC_MODE_BUFFERED) return lc_mpi_bsend_start(req);
    rc = lc_pt2pt_start(req);
    if (rc) return lc_mpi_error(req->comm, "MPI_Start", rc);
    lc_request_hold_comm(req->active); /* outlives the persistent request after Request_free */
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Start);

LC_API int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0) return lc_mpi_error(NULL, "MPI_Startall", lc_error(MPI_ERR_COUNT, "count %d is negative", count));
    for (int i = 0; i < count; i++) {
        int rc = PMPI_Start(&array_of_requests[i]);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}
LC_MPI_ALIAS(Startall);
