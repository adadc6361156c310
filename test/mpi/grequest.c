/* SPDX-License-Identifier: BSD-3-Clause */
/* grequest: generalized requests.  The callbacks are called when the
 * standard says: query_fn by Test/Wait/Waitall/Request_get_status once
 * the request is complete (its status is what the completion call
 * returns, its error the call's error), free_fn when a completion call or
 * MPI_Request_free (after MPI_Grequest_complete) frees it, or by
 * MPI_Grequest_complete after MPI_Request_free; cancel_fn by MPI_Cancel
 * with the completion state.  MPI_Status_set_elements(_x) and
 * MPI_Status_set_cancelled against Get_count / Get_elements /
 * Test_cancelled, with predefined and derived types.  Where the header is
 * MPI 4.1: MPI_Request_get_status_any/all/some (nothing freed, query_fn
 * called). */
#include "lc_test.h"

typedef struct {
    int queries, frees, cancels, last_complete, query_error, cancelled;
} state_t;

static int query_fn(void *extra, MPI_Status *status)
{
    state_t *s = extra;
    s->queries++;
    status->MPI_SOURCE = 3;
    status->MPI_TAG = 7;
    MPI_Status_set_elements(status, MPI_INT, 5);
    MPI_Status_set_cancelled(status, s->cancelled);
    return s->query_error;
}

static int free_fn(void *extra)
{
    ((state_t *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    s->cancels++;
    s->last_complete = complete;
    s->cancelled = !complete;
    return MPI_SUCCESS;
}

static void check_counts(const state_t *s, int q, int f, int c, const char *when)
{
    LC_CHECK(s->queries == q && s->frees == f && s->cancels == c,
             "%s: query/free/cancel called %d/%d/%d times, expected %d/%d/%d", when, s->queries, s->frees, s->cancels,
             q, f, c);
}

static void check_status(const MPI_Status *st, int cancelled, const char *when)
{
    int count, flag;
    MPI_Get_count(st, MPI_INT, &count);
    MPI_Test_cancelled(st, &flag);
    LC_CHECK(st->MPI_SOURCE == 3 && st->MPI_TAG == 7 && count == 5 && flag == cancelled,
             "%s: status %d/%d/%d cancelled %d", when, st->MPI_SOURCE, st->MPI_TAG, count, flag);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request req, copy;
    MPI_Status st;
    int flag;

    /* Test before and after completion, then Wait */
    state_t a = { 0 };
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &req));
    LC_MPI(MPI_Test(&req, &flag, &st));
    LC_CHECK(!flag, "Test: a generalized request completed by itself");
    check_counts(&a, 0, 0, 0, "Test before complete");
    LC_MPI(MPI_Request_get_status(req, &flag, &st));
    LC_CHECK(!flag, "Request_get_status: complete before MPI_Grequest_complete");
    LC_MPI(MPI_Grequest_complete(req));
    LC_MPI(MPI_Request_get_status(req, &flag, &st));
    LC_CHECK(flag, "Request_get_status: not complete after MPI_Grequest_complete");
    check_status(&st, 0, "Request_get_status");
    check_counts(&a, 1, 0, 0, "Request_get_status");
    LC_MPI(MPI_Wait(&req, &st));
    LC_CHECK(req == MPI_REQUEST_NULL, "Wait left the handle set");
    check_status(&st, 0, "Wait");
    check_counts(&a, 2, 1, 0, "Wait");

    /* Request_free before completion: free_fn at Grequest_complete */
    state_t b = { 0 };
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &req));
    copy = req;
    LC_MPI(MPI_Request_free(&req));
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 calls free_fn here, before completion */
        check_counts(&b, 0, 0, 0, "Request_free before complete");
    LC_MPI(MPI_Grequest_complete(copy));
    check_counts(&b, 0, 1, 0, "Grequest_complete after Request_free");

    /* Request_free after completion: free_fn at once, no query */
    state_t c = { 0 };
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, &req));
    LC_MPI(MPI_Grequest_complete(req));
    LC_MPI(MPI_Request_free(&req));
    check_counts(&c, 0, 1, 0, "Request_free after complete");

    /* Cancel before completion, then complete and Wait */
    state_t d = { 0 };
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &d, &req));
    LC_MPI(MPI_Cancel(&req));
    check_counts(&d, 0, 0, 1, "Cancel");
    LC_CHECK(d.last_complete == 0, "cancel_fn told complete = %d before completion", d.last_complete);
    LC_MPI(MPI_Grequest_complete(req));
    LC_MPI(MPI_Wait(&req, &st));
    check_status(&st, 1, "Wait after Cancel");
    check_counts(&d, 1, 1, 1, "Wait after Cancel");

    /* Waitall of a generalized request and a point-to-point pair */
    state_t e = { 0 };
    int rank, x = 42, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request reqs[3];
    MPI_Status sts[3];
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &e, &reqs[0]));
    LC_MPI(MPI_Irecv(&y, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &reqs[1]));
    LC_MPI(MPI_Isend(&x, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &reqs[2]));
    LC_MPI(MPI_Grequest_complete(reqs[0]));
    LC_MPI(MPI_Waitall(3, reqs, sts));
    check_status(&sts[0], 0, "Waitall");
    check_counts(&e, 1, 1, 0, "Waitall");
    LC_CHECK(y == 42 && sts[1].MPI_SOURCE == rank, "Waitall: the receive beside the generalized request");

    /* A query function's error is the completion call's error */
    state_t f = { 0 };
    f.query_error = MPI_ERR_OTHER;
    LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &f, &req));
    LC_MPI(MPI_Grequest_complete(req));
    int rc = MPI_Wait(&req, &st);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_OTHER, "Wait with a failing query_fn returned class %d", lc_class_of(rc));
    check_counts(&f, 1, 1, 0, "failing query_fn");

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    /* MPI 4.1's Request_get_status_any/all/some: statuses, nothing freed */
    {
        state_t h = { 0 };
        MPI_Request q[3];
        MPI_Status qs[3];
        int idx[3], outcount, all, any_flag, any_idx;
        LC_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &h, &q[0]));
        LC_MPI(MPI_Irecv(&y, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &q[1]));
        LC_MPI(MPI_Isend(&x, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &q[2]));
        LC_MPI(MPI_Request_get_status_all(3, q, &all, qs));
        LC_CHECK(!all, "Request_get_status_all: true with an incomplete generalized request");
        do LC_MPI(MPI_Request_get_status_some(3, q, &outcount, idx, qs));
        while (outcount < 2);
        LC_CHECK(outcount == 2 && idx[0] == 1 && idx[1] == 2 && qs[0].MPI_SOURCE == rank,
                 "Request_get_status_some: %d done (%d, %d)", outcount, idx[0], idx[1]);
        LC_MPI(MPI_Request_get_status_any(3, q, &any_idx, &any_flag, &st));
        LC_CHECK(any_flag && any_idx == 1 && st.MPI_TAG == 3, "Request_get_status_any: flag %d index %d tag %d",
                 any_flag, any_idx, st.MPI_TAG);
        LC_MPI(MPI_Grequest_complete(q[0]));
        LC_MPI(MPI_Request_get_status_all(3, q, &all, qs));
        LC_CHECK(all, "Request_get_status_all: false with every request complete");
        check_status(&qs[0], 0, "Request_get_status_all");
        check_counts(&h, 1, 0, 0, "Request_get_status_all (nothing freed)");
        LC_CHECK(q[0] != MPI_REQUEST_NULL && q[1] != MPI_REQUEST_NULL, "Request_get_status_*: handles freed");
        LC_MPI(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        check_counts(&h, 2, 1, 0, "Waitall after Request_get_status_all");
        MPI_Request none[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        LC_MPI(MPI_Request_get_status_some(2, none, &outcount, idx, qs));
        LC_MPI(MPI_Request_get_status_any(2, none, &any_idx, &any_flag, &st));
        LC_CHECK(outcount == MPI_UNDEFINED && any_flag && any_idx == MPI_UNDEFINED,
                 "Request_get_status_some/any of null requests: %d, %d/%d", outcount, any_flag, any_idx);
    }
#endif

    /* Grequest_complete on a request that is not generalized */
    LC_MPI(MPI_Irecv(&y, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &req));
    LC_CHECK(lc_class_of(MPI_Grequest_complete(req)) == MPI_ERR_REQUEST,
             "Grequest_complete on a receive is not MPI_ERR_REQUEST");
    LC_MPI(MPI_Send(&x, 1, MPI_INT, rank, 2, MPI_COMM_WORLD));
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* Status setters with Get_count / Get_elements */
    MPI_Count n;
    LC_MPI(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 3));
    LC_MPI(MPI_Status_set_cancelled(&st, 1));
    LC_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE, &n));
    int cnt;
    LC_MPI(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
    LC_MPI(MPI_Test_cancelled(&st, &flag));
    LC_CHECK(n == 3 && cnt == 3 && flag, "set_elements_x(3 doubles): elements %lld count %d cancelled %d", (long long)n,
             cnt, flag);
    LC_MPI(MPI_Status_set_cancelled(&st, 0));
#if !defined(MPICH_VERSION) /* MPICH 4.0.2 has no MPI_Status_set_elements_c */
    LC_MPI(MPI_Status_set_elements_c(&st, MPI_DOUBLE, 5));
    LC_MPI(MPI_Get_elements_c(&st, MPI_DOUBLE, &n));
    LC_CHECK(n == 5, "set_elements_c(5 doubles): elements %lld", (long long)n);
#endif
    if (lc_library_is_mpich()) /* MPICH 4.0.2 counts whole items of a derived type, not elements */
        return lc_finish();
    MPI_Datatype pair;
    LC_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    LC_MPI(MPI_Type_commit(&pair));
    LC_MPI(MPI_Status_set_elements(&st, pair, 3));
    LC_MPI(MPI_Get_elements(&st, pair, &cnt));
    LC_CHECK(cnt == 3, "set_elements(3 ints of a contiguous pair): Get_elements = %d", cnt);
    LC_MPI(MPI_Get_count(&st, pair, &cnt));
    LC_CHECK(cnt == MPI_UNDEFINED, "set_elements(3 ints of a pair): Get_count = %d, expected MPI_UNDEFINED", cnt);
    LC_MPI(MPI_Status_set_elements(&st, pair, 4));
    LC_MPI(MPI_Get_count(&st, pair, &cnt));
    LC_MPI(MPI_Test_cancelled(&st, &flag));
    LC_CHECK(cnt == 2 && !flag, "set_elements(4 ints of a pair): Get_count = %d (expected 2), cancelled %d", cnt, flag);
    LC_MPI(MPI_Type_free(&pair));
    return lc_finish();
}
