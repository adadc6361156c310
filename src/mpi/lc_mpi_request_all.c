/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_request_all.c — MPI_Waitall and MPI_Testall, and the resolution of a
 * request array that every call on several requests starts with
 * (lc_check_array).
 */
#include "mpi/lc_mpi_request_finish.h"
#include "pt2pt/lc_park.h"

#include <stdlib.h>

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
int lc_check_array(int count, const MPI_Request reqs[], lc_request_t **local, lc_request_t ***out_p, bool dups_ok)
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

int lc_all_complete(lc_request_t **r, int count)
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

/* What a Waitall parked at MULTIPLE is woken by (pt2pt/lc_park.h): the
 * last request not yet complete, r[from] (the first) included.  A window
 * of requests from one peer completes in order, so keyed to the last the
 * thread is woken once for the whole window rather than once per pass
 * that completes a few; woken early (the last completed first), it keys
 * to the next.  Computed after the thread armed, so a key that is still
 * the one it armed with was incomplete after its fence. */
static const void *lc_all_key(lc_request_t **r, int count, int from)
{
    for (int i = count - 1; i > from; i--) {
        lc_request_t *t = r[i] ? lc_request_target(r[i]) : NULL;
        if (t && !lc_mpi_request_ready(t)) return lc_mpi_request_key(t);
    }
    return lc_mpi_request_key(lc_request_target(r[from]));
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
        /* r[done]: the first not complete (lc_all_complete_from stopped
         * at it). */
        if (!lc_progress()) lc_progress_idle_wait_for(lc_all_key(r, count, done));
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
