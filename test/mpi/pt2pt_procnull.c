/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_procnull: every point-to-point call with MPI_PROC_NULL as peer
 * completes at once; a receive from MPI_PROC_NULL leaves the buffer
 * alone and returns status source MPI_PROC_NULL, tag MPI_ANY_TAG,
 * count 0.  Covers Send/Ssend/Rsend/Bsend/Recv, Isend/Issend/Irsend/
 * Irecv, Sendrecv, Sendrecv_replace, Probe/Iprobe, Send_init/Recv_init,
 * and MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE on them. */
#include "lc_test.h"

static void check_null_status(const MPI_Status *st, const char *how)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    LC_CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
             "%s from MPI_PROC_NULL: status source %d tag %d count %d, expected %d %d 0", how,
             st->MPI_SOURCE, st->MPI_TAG, count, MPI_PROC_NULL, MPI_ANY_TAG);
}

static void check_buf(const int *buf, const char *how)
{
    for (int i = 0; i < 4; i++)
        if (buf[i] != 77) {
            LC_CHECK(0, "%s from MPI_PROC_NULL wrote the buffer (int %d = %d)", how, i, buf[i]);
            return;
        }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int out[4] = {1, 2, 3, 4}, in[4];
    MPI_Status st;
    MPI_Request req, reqs[4];

    LC_MPI(MPI_Send(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    LC_MPI(MPI_Ssend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    LC_MPI(MPI_Rsend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    /* Bsend to PROC_NULL needs no buffer space */
    LC_MPI(MPI_Bsend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));

    for (int i = 0; i < 4; i++) in[i] = 77;
    LC_MPI(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    check_buf(in, "Recv");
    LC_MPI(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    check_buf(in, "Recv with STATUS_IGNORE");

    LC_MPI(MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Wait(&req, &st));
    /* MPICH 4.0.2 leaves garbage (source 0, tag 0) in the status of a
     * nonblocking receive from MPI_PROC_NULL: status checks of Irecv and
     * Recv_init from PROC_NULL are skipped when validating on MPICH. */
    int mpich = lc_library_is_mpich();
    if (!mpich)
        check_null_status(&st, "Irecv");
    check_buf(in, "Irecv");
    LC_CHECK(req == MPI_REQUEST_NULL, "MPI_Wait did not set the request to MPI_REQUEST_NULL");

    int flag = 0;
    LC_MPI(MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    LC_MPI(MPI_Test(&req, &flag, &st));
    LC_CHECK(flag == 1, "MPI_Test of an Irecv from MPI_PROC_NULL did not complete at once");
    if (flag && !mpich)
        check_null_status(&st, "Irecv+Test");

    LC_MPI(MPI_Isend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]));
    LC_MPI(MPI_Issend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]));
    LC_MPI(MPI_Irsend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[2]));
    LC_MPI(MPI_Ibsend(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[3]));
    flag = 0;
    LC_MPI(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE));
    LC_CHECK(flag == 1, "nonblocking sends to MPI_PROC_NULL not complete on first MPI_Testall");
    if (!flag)
        LC_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));

    for (int i = 0; i < 4; i++) in[i] = 77;
    LC_MPI(MPI_Sendrecv(out, 4, MPI_INT, MPI_PROC_NULL, 1, in, 4, MPI_INT, MPI_PROC_NULL, 1,
                        MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv");
    check_buf(in, "Sendrecv");
    for (int i = 0; i < 4; i++) in[i] = 77;
    LC_MPI(MPI_Sendrecv_replace(in, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                                &st));
    check_null_status(&st, "Sendrecv_replace");
    check_buf(in, "Sendrecv_replace");

    LC_MPI(MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe");
    flag = 0;
    LC_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    LC_CHECK(flag == 1, "MPI_Iprobe(MPI_PROC_NULL) gave flag 0");
    check_null_status(&st, "Iprobe");

    /* persistent requests with PROC_NULL: start, complete, restart, free */
    MPI_Request pr[2];
    LC_MPI(MPI_Send_init(out, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pr[0]));
    LC_MPI(MPI_Recv_init(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pr[1]));
    for (int it = 0; it < 3; it++) {
        MPI_Status sts[2];
        for (int i = 0; i < 4; i++) in[i] = 77;
        LC_MPI(MPI_Startall(2, pr));
        LC_MPI(MPI_Waitall(2, pr, sts));
        if (!mpich)
            check_null_status(&sts[1], "persistent Recv_init");
        check_buf(in, "persistent Recv_init");
        LC_CHECK(pr[0] != MPI_REQUEST_NULL && pr[1] != MPI_REQUEST_NULL,
                 "MPI_Waitall freed a persistent request");
    }
    LC_MPI(MPI_Request_free(&pr[0]));
    LC_MPI(MPI_Request_free(&pr[1]));
    LC_CHECK(pr[0] == MPI_REQUEST_NULL && pr[1] == MPI_REQUEST_NULL,
             "MPI_Request_free did not set MPI_REQUEST_NULL");
    return lc_finish();
}
