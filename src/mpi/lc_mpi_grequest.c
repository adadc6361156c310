/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_grequest.c — generalized requests (MPI 4.1 §13.2):
 * MPI_Grequest_start / MPI_Grequest_complete, the status setters their
 * query functions use (MPI_Status_set_elements(_x),
 * MPI_Status_set_cancelled), and the completion of the MPI layer's
 * composite requests (generalized ones and Isendrecv's pairs) that
 * lc_mpi_request.c calls.
 *
 * A generalized request is an LC_REQ_GREQ request whose `ext` holds the
 * user's callbacks.  The user completes it; nothing in the progress
 * engine does.  The callbacks run as the standard says: query_fn when a
 * completion call (Wait/Test and their array forms) or
 * MPI_Request_get_status reports it complete, then free_fn when the
 * completion call frees it, or at MPI_Request_free (if complete), or at
 * MPI_Grequest_complete (if freed before); cancel_fn at MPI_Cancel with
 * whether it has completed.
 */
#include "mpi/lc_mpi_dt.h"
#include "mpi/lc_mpi_request.h"
#include "pt2pt/lc_park.h"

#include <stdlib.h>
#include <string.h>

typedef struct lc_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
} lc_greq_t;

LC_API int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    lc_greq_t *g = NULL;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_request_out(request));
    if (!query_fn || !free_fn || !cancel_fn)
        LC_TRY(lc_error(MPI_ERR_ARG, "query_fn, free_fn and cancel_fn must all be functions"));
    if (!(g = malloc(sizeof(*g)))) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a generalized request"));
    *g = (lc_greq_t){ query_fn, free_fn, cancel_fn, extra_state };
    lc_request_t *req = lc_request_alloc(LC_REQ_GREQ);
    if (!req) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    req->ext = g;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    *request = lc_request_handle(req);
    return MPI_SUCCESS;
err:
    free(g);
    return lc_mpi_error(NULL, "MPI_Grequest_start", rc);
}
LC_MPI_ALIAS(Grequest_start);

/* free_fn, then the request and its record. */
static int lc_greq_free(lc_request_t *req)
{
    lc_greq_t *g = req->ext;
    int rc = g->free_fn(g->extra_state);
    free(g);
    req->ext = NULL;
    lc_request_release(req);
    return rc;
}

LC_API int PMPI_Grequest_complete(MPI_Request request)
{
    int rc;
    LC_TRY(lc_check_initialized());
    /* The handle stays usable here after MPI_Request_free (user_freed):
     * the standard lets the user complete a request it has freed. */
    lc_request_t *req = lc_request_lookup(request);
    if (!req || req->kind != LC_REQ_GREQ)
        LC_TRY(
            lc_error(MPI_ERR_REQUEST, "%#x is not a generalized request (from MPI_Grequest_start)", (unsigned)request));
    if (req->complete) LC_TRY(lc_error(MPI_ERR_REQUEST, "the generalized request is already complete"));
    req->state = LC_ST_DONE;
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    /* A thread parked in its wait for this request (lc_park.h). */
    if (lc_thread_locking()) lc_park_notify(req);
    if (req->user_freed) LC_TRY(lc_greq_free(req));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Grequest_complete", rc);
}
LC_MPI_ALIAS(Grequest_complete);

/* ---- the MPI layer's composite requests --------------------------------- */

bool lc_mpi_request_ready(const lc_request_t *t)
{
    return t->complete && (!t->partner || t->partner->complete);
}

const void *lc_mpi_request_key(const lc_request_t *t)
{
    if (!atomic_load_explicit(&t->complete, memory_order_relaxed)) return t;
    return t->partner;
}

void lc_mpi_request_wait(lc_request_t *t)
{
    while (!lc_mpi_request_ready(t))
        if (!lc_progress()) lc_progress_idle_wait_for(lc_mpi_request_key(t));
    lc_park_wait_end();
}

int lc_mpi_request_query(lc_request_t *t, MPI_Status *status)
{
    if (t->kind == LC_REQ_GREQ) {
        lc_greq_t *g = t->ext;
        MPI_Status local;
        MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
        lc_status_empty(st); /* what the query function leaves alone reads as empty */
        return g->query_fn(g->extra_state, st);
    }
    if (status != MPI_STATUS_IGNORE) lc_request_status(t, status);
    if (t->st_error) return t->st_error;
    return t->partner ? t->partner->st_error : MPI_SUCCESS;
}

int lc_mpi_request_finish(lc_request_t *t, MPI_Status *status)
{
    int err = lc_mpi_request_query(t, status);
    if (t->kind == LC_REQ_GREQ) {
        int e = lc_greq_free(t);
        return err != MPI_SUCCESS ? err : e;
    }
    if (t->partner) lc_request_release(t->partner);
    free(t->ext); /* Isendrecv_replace's copy of the data it sent */
    lc_request_release(t);
    return err;
}

int lc_mpi_request_cancel(lc_request_t *req)
{
    if (req->kind == LC_REQ_GREQ) {
        lc_greq_t *g = req->ext;
        return g->cancel_fn(g->extra_state, req->complete);
    }
    /* Receives not yet matched are cancelled; any other operation (and
     * Isendrecv's send half) completes normally, which MPI allows. */
    lc_pt2pt_cancel(req);
    return MPI_SUCCESS;
}

int lc_mpi_request_free(lc_request_t *req)
{
    if (req->kind == LC_REQ_GREQ) {
        if (req->complete) return lc_greq_free(req);
        req->user_freed = 1; /* freed by MPI_Grequest_complete */
        return MPI_SUCCESS;
    }
    /* Isendrecv: its halves and copy are freed together, so wait for both
     * (the standard lets Request_free return first; this one does not). */
    lc_mpi_request_wait(req);
    lc_mpi_request_finish(req, MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
}

/* ---- status setters ------------------------------------------------------ */

static void lc_status_put_bytes(MPI_Status *s, MPI_Count bytes)
{
    int cancelled = s->count_hi_and_cancelled & 1;
    s->count_lo = (int)(uint32_t)bytes;
    s->count_hi_and_cancelled = (int)(((uint64_t)bytes >> 32) << 1) | cancelled;
}

/* The byte count for which MPI_Get_elements(status, t) gives `count`. */
static MPI_Count lc_status_bytes_for(const lc_dt_t *t, MPI_Count count)
{
    MPI_Count per = t->size; /* what point-to-point moves per item (lc_mpi_p2p_type) */
    MPI_Count n = t->n_elements > 0 ? t->n_elements : 1;
    if (count % n == 0 || t->layout == LC_DT_L_BASIC) return count / n * per;
    /* Part of an item of a derived or pair type: the fewest bytes that hold
     * `count` basic elements (the element count grows with the bytes). */
    MPI_Count lo = count / n * per, hi = lo + per;
    while (lo < hi) {
        MPI_Count mid = lo + (hi - lo) / 2;
        if (lc_dt_elements(t, mid) < count)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int lc_status_set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count, const char *func)
{
    lc_dt_t *t;
    int rc;
    LC_TRY(lc_check_initialized());
    if (!status || status == MPI_STATUS_IGNORE) LC_TRY(lc_error(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE"));
    LC_TRY(lc_mpi_dt_arg(datatype, &t));
    if (count < 0) LC_TRY(lc_error(MPI_ERR_COUNT, "count %lld is negative", (long long)count));
    lc_status_put_bytes(status, lc_status_bytes_for(t, count));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return lc_status_set_elements(status, datatype, count, "MPI_Status_set_elements");
}
LC_MPI_ALIAS(Status_set_elements);

LC_API int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return lc_status_set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
LC_MPI_ALIAS(Status_set_elements_x);

LC_API int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return lc_status_set_elements(status, datatype, count, "MPI_Status_set_elements_c");
}
LC_MPI_ALIAS(Status_set_elements_c);

LC_API int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc;
    LC_TRY(lc_check_initialized());
    if (!status || status == MPI_STATUS_IGNORE) LC_TRY(lc_error(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE"));
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Status_set_cancelled", rc);
}
LC_MPI_ALIAS(Status_set_cancelled);
