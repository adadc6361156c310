/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_return: with MPI_ERRORS_RETURN, each kind of bad argument is
 * reported as an error code of the right class and the program goes on:
 *   bad rank -> MPI_ERR_RANK, bad tag -> MPI_ERR_TAG, negative count ->
 *   MPI_ERR_COUNT, MPI_DATATYPE_NULL -> MPI_ERR_TYPE, MPI_COMM_NULL ->
 *   MPI_ERR_COMM, bad root -> MPI_ERR_ROOT, MPI_OP_NULL -> MPI_ERR_OP,
 *   NULL request pointer -> MPI_ERR_REQUEST or MPI_ERR_ARG, MPI_IN_PLACE
 *   as a point-to-point buffer -> MPI_ERR_BUFFER (not a SIGSEGV).
 * Every returned code must map to its class with MPI_Error_class and
 * have a message from MPI_Error_string.  At the end a normal exchange
 * and collective still work. */
#include "lc_test.h"

static void expect(int rc, int cls1, int cls2, const char *call)
{
    int cls = lc_class_of(rc);
    if (cls != cls1 && cls != cls2) {
        LC_CHECK(0, "%s returned %d (class %d %s), expected %s%s%s", call, rc, cls,
                 lc_class_name(cls), lc_class_name(cls1), cls2 != cls1 ? " or " : "",
                 cls2 != cls1 ? lc_class_name(cls2) : "");
        return;
    }
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    int rc2 = MPI_Error_string(rc, msg, &len);
    LC_CHECK(rc2 == MPI_SUCCESS && len > 0 && len < MPI_MAX_ERROR_STRING &&
                 (int)strlen(msg) == len,
             "MPI_Error_string(%d) for %s: rc %d length %d", rc, call, rc2, len);
}
#define EXPECT(call, cls) expect((call), cls, cls, #call)
#define EXPECT2(call, c1, c2) expect((call), c1, c2, #call)

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    MPI_Comm w = MPI_COMM_WORLD;
    /* errors on MPI_COMM_NULL have no communicator: MPI-3 raises them on
     * MPI_COMM_WORLD, MPI-4 on MPI_COMM_SELF; set both */
    LC_MPI(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    int buf[4] = {0, 0, 0, 0}, rbuf[4 * 16];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;

    /* ranks */
    EXPECT(MPI_Send(buf, 1, MPI_INT, size, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, w, &st), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, size, 0, w, &req), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, size, 0, w, &req), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, w), MPI_ERR_RANK);
    EXPECT(MPI_Probe(size, 0, w, &st), MPI_ERR_RANK);

    /* tags */
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, -1, w), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, w), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, rank, -7, w, &req), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, rank, -7, w, &st), MPI_ERR_TAG);

    /* counts */
    EXPECT(MPI_Send(buf, -1, MPI_INT, rank, 0, w), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -1, MPI_INT, rank, 0, w, &req), MPI_ERR_COUNT);
    EXPECT(MPI_Bcast(buf, -1, MPI_INT, 0, w), MPI_ERR_COUNT);

    /* datatypes */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, w), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, w, &st), MPI_ERR_TYPE);
    /* a reduction may equally blame the (op, type) pair */
    EXPECT2(MPI_Allreduce(buf, rbuf, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE, MPI_ERR_OP);
    int tsize;
    EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &tsize), MPI_ERR_TYPE);

    /* communicators */
    int x;
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    MPI_Comm nc;
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &nc), MPI_ERR_COMM);

    /* roots: every rank makes the same bad call, so no one waits */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_SUM, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, rbuf, 1, MPI_INT, size + 1, w), MPI_ERR_ROOT);
    EXPECT(MPI_Scatter(buf, 1, MPI_INT, rbuf, 1, MPI_INT, -3, w), MPI_ERR_ROOT);

    /* ops */
    EXPECT(MPI_Reduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, 0, w), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(buf, rbuf, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);

    /* requests */
    EXPECT2(MPI_Isend(buf, 1, MPI_INT, rank, 0, w, NULL), MPI_ERR_REQUEST, MPI_ERR_ARG);
    EXPECT2(MPI_Irecv(buf, 1, MPI_INT, rank, 0, w, NULL), MPI_ERR_REQUEST, MPI_ERR_ARG);
    EXPECT2(MPI_Wait(NULL, &st), MPI_ERR_REQUEST, MPI_ERR_ARG);

    /* MPI_IN_PLACE is no buffer outside collectives (was a SIGSEGV; it
     * still is in MPICH 4.0.2, which does not check: Locus only) */
    MPI_Request preq = MPI_REQUEST_NULL;
    if (!lc_library_is_mpich()) {
        EXPECT(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Isend(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &req), MPI_ERR_BUFFER);
        EXPECT(MPI_Ssend(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Rsend(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Issend(MPI_IN_PLACE, 4, MPI_INT, rank, 0, w, &req), MPI_ERR_BUFFER);
        EXPECT(MPI_Recv(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &st), MPI_ERR_BUFFER);
        EXPECT(MPI_Irecv(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &req), MPI_ERR_BUFFER);
        EXPECT(MPI_Send_init(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &preq), MPI_ERR_BUFFER);
        EXPECT(MPI_Recv_init(MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &preq), MPI_ERR_BUFFER);
        EXPECT(MPI_Sendrecv(MPI_IN_PLACE, 1, MPI_INT, rank, 0, rbuf, 1, MPI_INT, rank, 0, w, &st), MPI_ERR_BUFFER);
        EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, rank, 0, MPI_IN_PLACE, 1, MPI_INT, rank, 0, w, &st), MPI_ERR_BUFFER);
    }

    /* everything still works: a ring exchange and a collective */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out = lc_pattern(rank, 0, 0), in = -1;
    LC_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 0, &in, 1, MPI_INT, prev, 0, w, &st));
    LC_CHECK(in == lc_pattern(prev, 0, 0), "exchange after errors: got %d, expected %d", in,
             lc_pattern(prev, 0, 0));
    int sum = 0;
    LC_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, w));
    LC_CHECK(sum == size * (size - 1) / 2, "Allreduce after errors gave %d", sum);
    /* nothing was left pending by the failed calls */
    int flag = 1;
    LC_MPI(MPI_Barrier(w));
    LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, w, &flag, MPI_STATUS_IGNORE));
    LC_CHECK(flag == 0, "a failed call left a message behind");
    return lc_finish();
}
