/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request_some.c — MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Testsome:
 * passes over a request array that finish the complete ones.  At
 * MPI_THREAD_MULTIPLE they run outside the section on plain requests
 * (lc_mpi_fast.h).
 */
#include "mpi/lc_mpi_request_finish.h"
#include "pt2pt/lc_park.h"

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
static int lc_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status, int block, const char *func)
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
