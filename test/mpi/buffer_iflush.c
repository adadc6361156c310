/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * buffer_iflush: MPI 4.1's nonblocking buffer flushes and session buffers
 * (§3.6) — MPI_Comm_iflush_buffer, MPI_Buffer_iflush,
 * MPI_Session_attach_buffer(_c)/detach_buffer(_c), MPI_Session_flush_buffer,
 * MPI_Session_iflush_buffer.
 *
 * Rank 0 buffers large messages (rendezvous: each stays in the buffer until
 * rank 1 posts its receive) and rank 1 receives them only when told to, so
 * an iflush request must stay incomplete under MPI_Test polling until the
 * messages pending at the call have been received, must then complete
 * without the messages buffered after it, and two iflushes on one buffer
 * complete each at its own point.  Also: MPI_Request_free of a pending
 * iflush, an iflush with nothing pending, MPI_BUFFER_AUTOMATIC.
 * Sessions: a communicator made from a session's process set (and its
 * dup) sends from the session's buffer, MPI_COMM_WORLD does not;
 * MPI_Session_finalize flushes a buffer that still holds a message.
 * Errors: second attach, detach with none, null handles and requests.
 * Other ranks only take part in the collective calls.  MPICH 4.0.2 has
 * none of these functions: Locus only.
 */
#include "lc_test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Built against an older mpi.h (MPICH 4.0.2 in validate_with_mpich.sh):
 * it has no MPI 4.1 buffering functions, so the program only says so. */
#if !(MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1))
int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    if (lc_world_rank() == 0) fprintf(stderr, "this mpi.h has no MPI 4.1 buffering functions: nothing tested\n");
    return lc_finish();
}
#else

#define BIG (256 * 1024) /* ints: 1 MiB, far above every eager limit */
#define SLOT ((int)(BIG * sizeof(int)) + MPI_BSEND_OVERHEAD)
#define POLLS 50
#define GO 1000 /* tags of the "receive now" messages */

static int *msg;

static void bsend(MPI_Comm comm, int tag)
{
    for (int i = 0; i < BIG; i++) msg[i] = lc_pattern(0, tag, i);
    LC_MPI(MPI_Bsend(msg, BIG, MPI_INT, 1, tag, comm));
}

static void recv_check(MPI_Comm comm, int tag)
{
    LC_MPI(MPI_Recv(msg, BIG, MPI_INT, 0, tag, comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i++)
        if (msg[i] != lc_pattern(0, tag, i)) {
            LC_CHECK(0, "tag %d: element %d is %d, expected %d", tag, i, msg[i], lc_pattern(0, tag, i));
            break;
        }
}

static void go(int step)
{
    LC_MPI(MPI_Send(&step, 1, MPI_INT, 1, GO + step, MPI_COMM_WORLD));
}

static void wait_go(int step)
{
    int got;
    LC_MPI(MPI_Recv(&got, 1, MPI_INT, 0, GO + step, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* MPI_Test `polls` times: the request must stay pending. */
static void expect_pending(MPI_Request *req, const char *what)
{
    int flag = 0;
    for (int i = 0; i < POLLS && !flag; i++) LC_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    LC_CHECK(!flag, "%s completed while its messages were still in the buffer", what);
}

/* MPI_Test until complete (at most 30 s: a flush that waits for messages
 * sent after it, or for nothing to come, would hang here). */
static void expect_done(MPI_Request *req, const char *what)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 30) LC_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    if (!flag) LC_FATAL("%s did not complete within 30 s after its messages were received", what);
    LC_CHECK(*req == MPI_REQUEST_NULL, "%s: MPI_Test left the request handle set", what);
}

/* 1: two iflushes on one communicator's buffer, and a message after them. */
static void comm_iflush(int rank)
{
    MPI_Comm dup;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    char *buf = lc_malloc(5 * (size_t)SLOT);
    if (rank == 0) {
        MPI_Request a, b, c;
        void *back;
        int n;
        LC_MPI(MPI_Comm_attach_buffer(dup, buf, 5 * SLOT));
        bsend(dup, 0);
        bsend(dup, 1);
        LC_MPI(MPI_Comm_iflush_buffer(dup, &a));
        bsend(dup, 2);
        bsend(dup, 3);
        LC_MPI(MPI_Comm_iflush_buffer(dup, &b));
        bsend(dup, 4); /* after both: neither waits for it */
        expect_pending(&a, "Comm_iflush_buffer A");
        expect_pending(&b, "Comm_iflush_buffer B");
        go(1); /* rank 1 receives 0 and 1 */
        expect_done(&a, "Comm_iflush_buffer A");
        expect_pending(&b, "Comm_iflush_buffer B");
        go(2); /* 2 and 3 */
        expect_done(&b, "Comm_iflush_buffer B");
        LC_MPI(MPI_Comm_iflush_buffer(dup, &c));
        expect_pending(&c, "Comm_iflush_buffer C");
        go(3); /* 4 */
        LC_MPI(MPI_Wait(&c, MPI_STATUS_IGNORE));
        /* nothing pending: complete at once */
        LC_MPI(MPI_Comm_iflush_buffer(dup, &c));
        int flag = 0;
        LC_MPI(MPI_Test(&c, &flag, MPI_STATUS_IGNORE));
        LC_CHECK(flag, "Comm_iflush_buffer with nothing pending did not complete at the first MPI_Test");
        LC_MPI(MPI_Comm_detach_buffer(dup, &back, &n));
        LC_CHECK(back == buf && n == 5 * SLOT, "detach gave %p/%d", back, n);
    } else if (rank == 1) {
        wait_go(1);
        recv_check(dup, 0);
        recv_check(dup, 1);
        wait_go(2);
        recv_check(dup, 2);
        recv_check(dup, 3);
        wait_go(3);
        recv_check(dup, 4);
    }
    free(buf);
    LC_MPI(MPI_Comm_free(&dup));
}

/* 2: the process's buffer (MPI_BUFFER_AUTOMATIC): MPI_Buffer_iflush with
 * MPI_Wait, then one freed while pending. */
static void buffer_iflush(int rank)
{
    if (rank == 0) {
        MPI_Request r;
        void *back;
        int n;
        LC_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
        bsend(MPI_COMM_WORLD, 10);
        bsend(MPI_COMM_WORLD, 11);
        LC_MPI(MPI_Buffer_iflush(&r));
        expect_pending(&r, "Buffer_iflush");
        go(4);
        LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        bsend(MPI_COMM_WORLD, 12);
        LC_MPI(MPI_Buffer_iflush(&r));
        LC_MPI(MPI_Request_free(&r)); /* released when the message has left */
        LC_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
        go(5);
        LC_MPI(MPI_Buffer_flush());
        LC_MPI(MPI_Buffer_detach(&back, &n));
        LC_CHECK(back == MPI_BUFFER_AUTOMATIC, "detach gave %p, expected MPI_BUFFER_AUTOMATIC", back);
    } else if (rank == 1) {
        wait_go(4);
        recv_check(MPI_COMM_WORLD, 10);
        recv_check(MPI_COMM_WORLD, 11);
        wait_go(5);
        recv_check(MPI_COMM_WORLD, 12);
    }
}

/* 3: a session's buffer serves the communicators made from its groups. */
static void session_buffer(int rank)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm sc, sdup;
    MPI_Request r;
    void *back;
    int n, rc, one = 1;
    MPI_Count nc;
    char *buf = lc_malloc(2 * (size_t)SLOT);
    LC_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    LC_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    LC_MPI(MPI_Comm_create_from_group(g, "locus.test.buffer_iflush", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
    LC_MPI(MPI_Group_free(&g));
    LC_MPI(MPI_Comm_dup(sc, &sdup));
    if (rank == 0) {
        LC_MPI(MPI_Session_attach_buffer(s, buf, 2 * SLOT));
        rc = MPI_Session_attach_buffer(s, buf, 2 * SLOT);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "second session attach: class %s", lc_class_name(lc_class_of(rc)));
        /* No process or communicator buffer: only the session's can serve. */
        rc = MPI_Bsend(&one, 1, MPI_INT, 1, 30, MPI_COMM_WORLD);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "Bsend on MPI_COMM_WORLD used the session's buffer: class %s",
                 lc_class_name(lc_class_of(rc)));
        bsend(sc, 20);
        bsend(sdup, 21);
        LC_MPI(MPI_Session_iflush_buffer(s, &r));
        expect_pending(&r, "Session_iflush_buffer");
        go(6);
        expect_done(&r, "Session_iflush_buffer");
        LC_MPI(MPI_Session_flush_buffer(s));
        LC_MPI(MPI_Session_detach_buffer(s, &back, &n));
        LC_CHECK(back == buf && n == 2 * SLOT, "session detach gave %p/%d", back, n);
        rc = MPI_Session_detach_buffer(s, &back, &n);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_BUFFER, "session detach with none attached: class %s",
                 lc_class_name(lc_class_of(rc)));
        LC_MPI(MPI_Session_attach_buffer_c(s, buf, (MPI_Count)SLOT));
        LC_MPI(MPI_Session_detach_buffer_c(s, &back, &nc));
        LC_CHECK(back == buf && nc == SLOT, "session detach_c gave %p/%lld", back, (long long)nc);
        /* Left attached with a message in it: MPI_Session_finalize flushes. */
        LC_MPI(MPI_Session_attach_buffer(s, buf, 2 * SLOT));
        bsend(sdup, 22);
    } else if (rank == 1) {
        wait_go(6);
        recv_check(sc, 20);
        recv_check(sdup, 21);
        recv_check(sdup, 22);
    }
    LC_MPI(MPI_Comm_free(&sdup));
    LC_MPI(MPI_Comm_free(&sc));
    LC_MPI(MPI_Session_finalize(&s));
    free(buf);
}

static void errors(void)
{
    MPI_Request r;
    char b[64];
    int rc = MPI_Comm_iflush_buffer(MPI_COMM_NULL, &r);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "Comm_iflush_buffer(MPI_COMM_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Comm_iflush_buffer(MPI_COMM_WORLD, NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_REQUEST, "Comm_iflush_buffer(request NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Buffer_iflush(NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_REQUEST, "Buffer_iflush(NULL): class %s", lc_class_name(lc_class_of(rc)));
    rc = MPI_Session_iflush_buffer(MPI_SESSION_NULL, &r);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_SESSION, "Session_iflush_buffer(MPI_SESSION_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Session_attach_buffer(MPI_SESSION_NULL, b, (int)sizeof(b));
    LC_CHECK(lc_class_of(rc) == MPI_ERR_SESSION, "Session_attach_buffer(MPI_SESSION_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Session_flush_buffer(MPI_SESSION_NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_SESSION, "Session_flush_buffer(MPI_SESSION_NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    MPI_Session s;
    LC_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    rc = MPI_Session_attach_buffer(s, b, -1);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "Session_attach_buffer(size -1): class %s",
             lc_class_name(lc_class_of(rc)));
    rc = MPI_Session_iflush_buffer(s, NULL);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_REQUEST, "Session_iflush_buffer(request NULL): class %s",
             lc_class_name(lc_class_of(rc)));
    LC_MPI(MPI_Session_iflush_buffer(s, &r)); /* none attached: complete */
    LC_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Session_finalize(&s));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank();
    if (lc_world_size() < 2) LC_FATAL("run with at least 2 ranks");
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    msg = lc_malloc(sizeof(int) * BIG);
    comm_iflush(rank);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    buffer_iflush(rank);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    session_buffer(rank);
    errors();
    free(msg);
    return lc_finish();
}
#endif
