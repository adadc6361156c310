/* SPDX-License-Identifier: BSD-3-Clause */
/* cancel: cancelling receives.  A pending MPI_Irecv (specific source or
 * MPI_ANY_SOURCE) that is cancelled completes with MPI_Test_cancelled
 * true, and does not steal the message sent afterwards on its envelope;
 * a receive that already completed cannot be cancelled (Test_cancelled
 * false, data intact); a started persistent receive can be cancelled and
 * restarted.  Uses MPI_Request_get_status to see completion without
 * freeing the request, and on MPI_REQUEST_NULL (empty status). */
#include "lc_test.h"

static int wait_complete(MPI_Request *req, MPI_Status *st, const char *what)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 30.0)
        LC_MPI(MPI_Request_get_status(*req, &flag, st));
    if (!flag)
        LC_FATAL("%s: request not complete after 30 s", what);
    return flag;
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request req;
    MPI_Status st;
    int flag = -1, x = -1;

    /* Request_get_status on MPI_REQUEST_NULL: flag true, empty status */
    st.MPI_SOURCE = 55;
    st.MPI_TAG = 55;
    st.MPI_ERROR = 55;
    LC_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    LC_CHECK(flag == 1 && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
             "Request_get_status(MPI_REQUEST_NULL): flag %d source %d tag %d, expected 1 %d %d",
             flag, st.MPI_SOURCE, st.MPI_TAG, MPI_ANY_SOURCE, MPI_ANY_TAG);

    /* 1: cancel pending receives: specific source and ANY_SOURCE */
    for (int any = 0; any < 2; any++) {
        LC_MPI(MPI_Irecv(&x, 1, MPI_INT, any ? MPI_ANY_SOURCE : prev, 100 + any, MPI_COMM_WORLD,
                         &req));
        LC_MPI(MPI_Cancel(&req));
        LC_CHECK(req != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
        LC_MPI(MPI_Wait(&req, &st));
        flag = -1;
        LC_MPI(MPI_Test_cancelled(&st, &flag));
        LC_CHECK(flag == 1, "cancelled pending Irecv (%s): MPI_Test_cancelled gave %d",
                 any ? "ANY_SOURCE" : "specific source", flag);
    }
    /* no rank sends until every rank's cancels completed: otherwise a
     * message could legitimately match a receive before its cancel */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* the cancelled receives must not consume messages sent now */
    /* (nonblocking sends throughout: a rank may be sending to itself,
     * and MPI does not promise to buffer a blocking send) */
    int out = lc_pattern(rank, 1, 0);
    MPI_Request sreq[2];
    LC_MPI(MPI_Isend(&out, 1, MPI_INT, next, 100, MPI_COMM_WORLD, &sreq[0]));
    LC_MPI(MPI_Isend(&out, 1, MPI_INT, next, 101, MPI_COMM_WORLD, &sreq[1]));
    for (int tag = 100; tag <= 101; tag++) {
        x = -1;
        LC_MPI(MPI_Recv(&x, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
        LC_CHECK(x == lc_pattern(prev, 1, 0), "message on tag %d after cancel: got %d, expected %d",
                 tag, x, lc_pattern(prev, 1, 0));
    }
    LC_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));

    /* 2: cancel with MPI_Test polling */
    LC_MPI(MPI_Irecv(&x, 1, MPI_INT, prev, 200, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Cancel(&req));
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 30.0)
        LC_MPI(MPI_Test(&req, &flag, &st));
    LC_CHECK(flag == 1, "cancelled Irecv never completed under MPI_Test");
    if (flag) {
        LC_CHECK(req == MPI_REQUEST_NULL, "MPI_Test did not free the completed request");
        int c = 0;
        LC_MPI(MPI_Test_cancelled(&st, &c));
        LC_CHECK(c == 1, "cancelled Irecv completed by MPI_Test: Test_cancelled gave %d", c);
    }

    /* 3: a receive that already completed is not cancelled */
    LC_MPI(MPI_Irecv(&x, 1, MPI_INT, prev, 300, MPI_COMM_WORLD, &req));
    out = lc_pattern(rank, 3, 0);
    LC_MPI(MPI_Isend(&out, 1, MPI_INT, next, 300, MPI_COMM_WORLD, &sreq[0]));
    wait_complete(&req, &st, "matched Irecv");
    LC_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    LC_MPI(MPI_Cancel(&req));
    LC_MPI(MPI_Wait(&req, &st));
    flag = -1;
    LC_MPI(MPI_Test_cancelled(&st, &flag));
    LC_CHECK(flag == 0, "Irecv that had completed reports cancelled after MPI_Cancel");
    LC_CHECK(x == lc_pattern(prev, 3, 0) && st.MPI_SOURCE == prev && st.MPI_TAG == 300,
             "completed-then-cancelled Irecv: value %d source %d tag %d", x, st.MPI_SOURCE,
             st.MPI_TAG);

    /* 4: persistent receive: start, cancel, restart, receive */
    LC_MPI(MPI_Recv_init(&x, 1, MPI_INT, prev, 400, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Start(&req));
    LC_MPI(MPI_Cancel(&req));
    LC_MPI(MPI_Wait(&req, &st));
    flag = -1;
    LC_MPI(MPI_Test_cancelled(&st, &flag));
    LC_CHECK(flag == 1, "cancelled persistent receive: Test_cancelled gave %d", flag);
    LC_CHECK(req != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Start(&req));
    out = lc_pattern(rank, 4, 0);
    LC_MPI(MPI_Isend(&out, 1, MPI_INT, next, 400, MPI_COMM_WORLD, &sreq[0]));
    LC_MPI(MPI_Wait(&req, &st));
    LC_MPI(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    flag = -1;
    LC_MPI(MPI_Test_cancelled(&st, &flag));
    LC_CHECK(flag == 0 && x == lc_pattern(prev, 4, 0),
             "restarted persistent receive: cancelled %d value %d, expected 0 %d", flag, x,
             lc_pattern(prev, 4, 0));
    LC_MPI(MPI_Request_free(&req));

    /* 5: many pending receives, cancel every other one, then satisfy
     * the rest: each surviving receive gets its own message */
    enum { NR = 16 };
    int vals[NR];
    MPI_Request reqs[NR];
    MPI_Status sts[NR], csts[NR / 2];
    for (int i = 0; i < NR; i++) {
        vals[i] = -1;
        LC_MPI(MPI_Irecv(&vals[i], 1, MPI_INT, prev, 500, MPI_COMM_WORLD, &reqs[i]));
    }
    for (int i = 0; i < NR; i += 2) {
        LC_MPI(MPI_Cancel(&reqs[i]));
        LC_MPI(MPI_Wait(&reqs[i], &csts[i / 2]));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int outs[NR / 2];
    MPI_Request sreqs[NR / 2];
    for (int i = 0; i < NR / 2; i++) {
        outs[i] = lc_pattern(rank, 500 + i, 0);
        LC_MPI(MPI_Isend(&outs[i], 1, MPI_INT, next, 500, MPI_COMM_WORLD, &sreqs[i]));
    }
    /* the cancelled ones are MPI_REQUEST_NULL now: Waitall skips them
     * (and gives them an empty status, hence csts[]) */
    LC_MPI(MPI_Waitall(NR, reqs, sts));
    LC_MPI(MPI_Waitall(NR / 2, sreqs, MPI_STATUSES_IGNORE));
    int k = 0;
    for (int i = 0; i < NR; i++) {
        flag = -1;
        LC_MPI(MPI_Test_cancelled(i % 2 == 0 ? &csts[i / 2] : &sts[i], &flag));
        if (i % 2 == 0) {
            LC_CHECK(flag == 1, "pending receive %d of %d was not cancelled", i, NR);
        } else {
            LC_CHECK(flag == 0 && vals[i] == lc_pattern(prev, 500 + k, 0),
                     "surviving receive %d: cancelled %d value %d, expected message %d (%d)", i,
                     flag, vals[i], k, lc_pattern(prev, 500 + k, 0));
            k++;
        }
    }
    (void)size;
    return lc_finish();
}
