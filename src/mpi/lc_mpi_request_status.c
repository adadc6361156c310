/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request_status.c — MPI_Request_get_status and MPI 4.1's _any, _all and
 * _some forms: the status of complete requests, none of them freed.
 */
#include "mpi/lc_mpi_request_finish.h"

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
