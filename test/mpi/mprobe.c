/* SPDX-License-Identifier: BSD-3-Clause */
/* mprobe: matched probe and receive.  MPI_Mprobe/MPI_Improbe remove the
 * message from matching: a later probe or receive with the same
 * envelope sees the next message, not the matched one; MPI_Mrecv and
 * MPI_Imrecv then receive exactly the matched message (also rendezvous
 * sizes) and set the handle to MPI_MESSAGE_NULL.  MPI_Improbe with no
 * message returns flag 0; with MPI_PROC_NULL the message is
 * MPI_MESSAGE_NO_PROC and receiving it yields an empty PROC_NULL status. */
#include "lc_test.h"

#define BIG 150000

static void check_payload(const int32_t *buf, int n, int src, int k, const char *how)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != lc_pattern(src, k, i)) {
            LC_CHECK(0, "%s: message %d from %d: int %d is %d, expected %d", how, k, src, i,
                     buf[i], lc_pattern(src, k, i));
            return;
        }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int flag = -1;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    LC_MPI(MPI_Improbe(MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, &flag, &msg, &st));
    LC_CHECK(flag == 0, "MPI_Improbe matched a message on tag 777 that was never sent");

    /* four messages to next, same tag: small, big, small, big */
    enum { NM = 4 };
    int n_of[NM] = {5, BIG / 4, 7, BIG / 4 + 1};
    int32_t *sbuf[NM];
    MPI_Request sreq[NM];
    for (int k = 0; k < NM; k++) {
        sbuf[k] = lc_malloc(sizeof(int32_t) * (size_t)n_of[k]);
        for (int i = 0; i < n_of[k]; i++)
            sbuf[k][i] = lc_pattern(rank, k, i);
        LC_MPI(MPI_Isend(sbuf[k], n_of[k], MPI_INT, next, 3, MPI_COMM_WORLD, &sreq[k]));
    }

    /* message 0 via Mprobe; then an ordinary probe must see message 1 */
    LC_MPI(MPI_Mprobe(prev, 3, MPI_COMM_WORLD, &msg, &st));
    int c0 = -1;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &c0));
    LC_CHECK(c0 == n_of[0] && st.MPI_SOURCE == prev && st.MPI_TAG == 3,
             "Mprobe: count %d source %d tag %d, expected %d %d 3", c0, st.MPI_SOURCE, st.MPI_TAG,
             n_of[0], prev);
    LC_CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "Mprobe gave no message handle");
    MPI_Status pst;
    LC_MPI(MPI_Probe(prev, 3, MPI_COMM_WORLD, &pst));
    int c1 = -1;
    LC_MPI(MPI_Get_count(&pst, MPI_INT, &c1));
    LC_CHECK(c1 == n_of[1], "after Mprobe, MPI_Probe saw %d ints: the matched message (%d) is "
             "still matchable, expected the next one (%d)", c1, n_of[0], n_of[1]);

    /* message 1 via Improbe (poll), message 0 is still held by msg */
    MPI_Message msg1 = MPI_MESSAGE_NULL;
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 30.0)
        LC_MPI(MPI_Improbe(prev, 3, MPI_COMM_WORLD, &flag, &msg1, &st));
    if (!flag)
        LC_FATAL("MPI_Improbe did not match message 1 within 30 s");
    LC_MPI(MPI_Get_count(&st, MPI_INT, &c1));
    LC_CHECK(c1 == n_of[1], "Improbe matched %d ints, expected %d", c1, n_of[1]);

    /* receive them in the opposite order to matching */
    int32_t *r1 = lc_malloc(sizeof(int32_t) * (size_t)n_of[1]);
    MPI_Request rreq;
    LC_MPI(MPI_Imrecv(r1, n_of[1], MPI_INT, &msg1, &rreq));
    LC_CHECK(msg1 == MPI_MESSAGE_NULL, "MPI_Imrecv did not set the message to MPI_MESSAGE_NULL");
    LC_MPI(MPI_Wait(&rreq, &st));
    LC_MPI(MPI_Get_count(&st, MPI_INT, &c1));
    LC_CHECK(c1 == n_of[1] && st.MPI_SOURCE == prev && st.MPI_TAG == 3,
             "Imrecv status count %d source %d tag %d", c1, st.MPI_SOURCE, st.MPI_TAG);
    check_payload(r1, n_of[1], prev, 1, "Imrecv");

    int32_t r0[8];
    LC_MPI(MPI_Mrecv(r0, 8, MPI_INT, &msg, &st));
    LC_CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv did not set the message to MPI_MESSAGE_NULL");
    LC_MPI(MPI_Get_count(&st, MPI_INT, &c0));
    LC_CHECK(c0 == n_of[0], "Mrecv got %d ints, expected %d", c0, n_of[0]);
    check_payload(r0, n_of[0], prev, 0, "Mrecv");

    /* messages 2 and 3: Mprobe with wildcards, Mrecv with STATUS_IGNORE */
    for (int k = 2; k < NM; k++) {
        LC_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        int c = -1;
        LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
        LC_CHECK(c == n_of[k] && st.MPI_SOURCE == prev, "Mprobe(ANY) for message %d: %d ints "
                 "from %d, expected %d from %d", k, c, st.MPI_SOURCE, n_of[k], prev);
        int32_t *r = lc_malloc(sizeof(int32_t) * (size_t)n_of[k]);
        LC_MPI(MPI_Mrecv(r, n_of[k], MPI_INT, &msg, MPI_STATUS_IGNORE));
        check_payload(r, n_of[k], prev, k, "Mrecv after Mprobe(ANY)");
        free(r);
    }
    LC_MPI(MPI_Waitall(NM, sreq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NM; k++)
        free(sbuf[k]);
    free(r1);

    /* MPI_PROC_NULL */
    LC_MPI(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
    LC_CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) gave message %#x, expected "
             "MPI_MESSAGE_NO_PROC", (unsigned)msg);
    int x = 42;
    LC_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
    int cnt = -1;
    LC_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    LC_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && x == 42,
             "Mrecv of MPI_MESSAGE_NO_PROC: source %d tag %d count %d value %d", st.MPI_SOURCE,
             st.MPI_TAG, cnt, x);
    LC_CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(MPI_MESSAGE_NO_PROC) left message %#x", (unsigned)msg);
    flag = 0;
    LC_MPI(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &msg, &st));
    LC_CHECK(flag == 1 && msg == MPI_MESSAGE_NO_PROC,
             "Improbe(MPI_PROC_NULL): flag %d message %#x", flag, (unsigned)msg);
    if (flag && msg == MPI_MESSAGE_NO_PROC) {
        LC_MPI(MPI_Imrecv(&x, 1, MPI_INT, &msg, &rreq));
        LC_MPI(MPI_Wait(&rreq, &st));
        LC_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && x == 42,
                 "Imrecv of MPI_MESSAGE_NO_PROC: source %d value %d", st.MPI_SOURCE, x);
    }
    return lc_finish();
}
