/* SPDX-License-Identifier: BSD-3-Clause */
/* match_comms: matching with many communicators carrying traffic at once
 * (issue 14: the posted and unexpected queues are kept per communicator).
 * Every rank sends to the next one, on NC duplicates of MPI_COMM_WORLD,
 * interleaved: message k goes on communicator k % NC with tag k % 3 and
 * carries k.  The receiver takes them
 *  - unexpected, posting wildcard receives (ANY_SOURCE, ANY_TAG) on the
 *    communicators in reverse order: each gets the oldest message of its
 *    own communicator, never another's (non-overtaking per communicator);
 *  - posted first, in reverse order, then the sends: the same;
 *  - by MPI_Iprobe on an idle communicator (must see nothing while the
 *    others hold messages), MPI_Improbe + MPI_Mrecv on a busy one;
 *  - with a receive cancelled on one communicator while others are posted;
 *  - with collectives on the same communicators while point-to-point
 *    messages with the same tags wait unexpected there;
 *  - after freeing half the communicators and creating new ones (their
 *    context slots are reused): no stale message or receive crosses over.
 * Sizes alternate 8 B and 40 KB (eager and rendezvous). */
#include "lc_test.h"

#define NC 12
#define PER 5 /* messages per communicator per round */
#define BIGN 10000

static MPI_Comm comms[NC];
static int rank, size, next, prev;

static int nints(int k) { return k % 2 ? BIGN : 2; }

static void fill(int32_t *b, int k)
{
    for (int i = 0; i < nints(k); i++) b[i] = lc_pattern(rank, k, i);
}

static void check_msg(const int32_t *b, const MPI_Status *st, int c, int k, const char *how)
{
    int n = 0;
    MPI_Get_count(st, MPI_INT32_T, &n);
    LC_CHECK(st->MPI_SOURCE == prev, "%s: comm %d: source %d, expected %d", how, c, st->MPI_SOURCE, prev);
    LC_CHECK(st->MPI_TAG == k % 3, "%s: comm %d: tag %d, expected %d (message %d)", how, c, st->MPI_TAG, k % 3, k);
    LC_CHECK(n == nints(k), "%s: comm %d: %d ints, expected %d (message %d)", how, c, n, nints(k), k);
    for (int i = 0; i < n && i < nints(k); i++)
        if (b[i] != lc_pattern(prev, k, i)) {
            LC_CHECK(0, "%s: comm %d: int %d of message %d is %d, expected %d", how, c, i, k, b[i],
                     lc_pattern(prev, k, i));
            return;
        }
}

/* Send NC*PER messages to next, interleaved over the communicators. */
static void send_round(MPI_Request *sr, int32_t **sb)
{
    for (int k = 0; k < NC * PER; k++) {
        fill(sb[k], k);
        LC_MPI(MPI_Isend(sb[k], nints(k), MPI_INT32_T, next, k % 3, comms[k % NC], &sr[k]));
    }
}

/* Receive them with wildcards, the last communicator first. */
static void recv_round(int posted_first, MPI_Request *sr, int32_t **sb, int32_t **rb, const char *how)
{
    MPI_Request rr[NC * PER];
    MPI_Status st[NC * PER];
    if (!posted_first) {
        send_round(sr, sb);
        /* Let the messages arrive before any receive exists. */
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int flag = 0;
        for (int i = 0; i < 100 && !flag; i++)
            LC_MPI(MPI_Iprobe(prev, (NC * PER - 1) % 3, comms[(NC * PER - 1) % NC], &flag, MPI_STATUS_IGNORE));
    }
    for (int c = NC - 1; c >= 0; c--)
        for (int j = 0; j < PER; j++) {
            int k = j * NC + c; /* the j-th message of communicator c */
            LC_MPI(MPI_Irecv(rb[k], BIGN, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[c], &rr[k]));
        }
    if (posted_first) {
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        send_round(sr, sb);
    }
    LC_MPI(MPI_Waitall(NC * PER, sr, st)); /* not MPI_STATUSES_IGNORE: MPICH's header makes gcc warn */
    LC_MPI(MPI_Waitall(NC * PER, rr, st));
    for (int k = 0; k < NC * PER; k++) check_msg(rb[k], &st[k], k % NC, k, how);
}

static void probe_cancel_coll(int32_t **sb, int32_t **rb)
{
    /* comm 0 idle, comm 1 holds two messages (tags 0, 1), comm 2 one. */
    MPI_Request sr[3];
    fill(sb[0], 0);
    fill(sb[1], 1);
    fill(sb[2], 2);
    LC_MPI(MPI_Isend(sb[0], nints(0), MPI_INT32_T, next, 0, comms[1], &sr[0]));
    LC_MPI(MPI_Isend(sb[1], nints(1), MPI_INT32_T, next, 1, comms[1], &sr[1]));
    LC_MPI(MPI_Isend(sb[2], nints(2), MPI_INT32_T, next, 2, comms[2], &sr[2]));
    int flag = 0;
    MPI_Status st;
    while (!flag) LC_MPI(MPI_Iprobe(prev, 2, comms[2], &flag, MPI_STATUS_IGNORE));
    LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[0], &flag, &st));
    LC_CHECK(!flag, "MPI_Iprobe on an idle communicator saw a message (tag %d) of another", st.MPI_TAG);
    /* A collective on comm 1 while its point-to-point messages wait, and
     * on comm 3 while a wildcard receive is posted there: collective
     * traffic shares the communicator's queues but never matches it. */
    MPI_Request wr;
    LC_MPI(MPI_Irecv(rb[3], BIGN, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[3], &wr));
    int v = rank, sum = 0;
    LC_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[1]));
    LC_CHECK(sum == size * (size - 1) / 2, "allreduce on a busy communicator: %d", sum);
    sum = 0;
    LC_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[3]));
    LC_CHECK(sum == size * (size - 1) / 2, "allreduce beside a wildcard receive: %d", sum);
    LC_MPI(MPI_Barrier(comms[3]));
    fill(sb[3], 3);
    LC_MPI(MPI_Send(sb[3], nints(3), MPI_INT32_T, next, 0, comms[3]));
    LC_MPI(MPI_Wait(&wr, &st));
    check_msg(rb[3], &st, 3, 3, "wildcard receive beside collectives");
    /* Cancel a receive on comm 0 posted while comm 1/2 receives are posted. */
    MPI_Request cr, r2;
    LC_MPI(MPI_Irecv(rb[5], BIGN, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[0], &cr));
    LC_MPI(MPI_Irecv(rb[2], BIGN, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[2], &r2));
    LC_MPI(MPI_Cancel(&cr));
    LC_MPI(MPI_Wait(&cr, &st));
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    LC_CHECK(cancelled, "a receive posted on an idle communicator was not cancelled");
    LC_MPI(MPI_Wait(&r2, &st));
    check_msg(rb[2], &st, 2, 2, "comm 2 after a cancel on comm 0");
    /* Matched probe on comm 1: the oldest (tag 0), then the receive gets tag 1. */
    MPI_Message m;
    LC_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[1], &m, &st));
    LC_CHECK(st.MPI_TAG == 0, "MPI_Mprobe on comm 1 matched tag %d, expected the older tag 0", st.MPI_TAG);
    LC_MPI(MPI_Mrecv(rb[0], BIGN, MPI_INT32_T, &m, &st));
    check_msg(rb[0], &st, 1, 0, "Mrecv");
    LC_MPI(MPI_Recv(rb[1], BIGN, MPI_INT32_T, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[1], &st));
    check_msg(rb[1], &st, 1, 1, "Recv after Mprobe");
    MPI_Status sst[3];
    LC_MPI(MPI_Waitall(3, sr, sst));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    rank = lc_world_rank();
    size = lc_world_size();
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    int32_t *sb[NC * PER], *rb[NC * PER];
    MPI_Request sr[NC * PER];
    for (int k = 0; k < NC * PER; k++) {
        sb[k] = lc_malloc(sizeof(int32_t) * BIGN);
        rb[k] = lc_malloc(sizeof(int32_t) * BIGN);
    }
    for (int c = 0; c < NC; c++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]));

    recv_round(0, sr, sb, rb, "unexpected");
    recv_round(1, sr, sb, rb, "posted");
    probe_cancel_coll(sb, rb);

    /* Free every other communicator with a receive still posted on the
     * survivors; new ones take the freed slots. */
    MPI_Request keep;
    int32_t *kb = lc_malloc(sizeof(int32_t) * BIGN);
    LC_MPI(MPI_Irecv(kb, BIGN, MPI_INT32_T, MPI_ANY_SOURCE, 7, comms[1], &keep));
    for (int c = 0; c < NC; c += 2) LC_MPI(MPI_Comm_free(&comms[c]));
    for (int c = 0; c < NC; c += 2) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]));
    recv_round(0, sr, sb, rb, "unexpected, slots reused");
    int flag = 0;
    LC_MPI(MPI_Test(&keep, &flag, MPI_STATUS_IGNORE));
    LC_CHECK(!flag, "a receive for tag 7 on comm 1 completed though nothing was sent with tag 7");
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every rank tested before any tag 7 goes out */
    fill(sb[0], 0);
    LC_MPI(MPI_Send(sb[0], nints(0), MPI_INT32_T, next, 7, comms[1]));
    MPI_Status st;
    LC_MPI(MPI_Wait(&keep, &st));
    LC_CHECK(st.MPI_TAG == 7 && st.MPI_SOURCE == prev && kb[0] == lc_pattern(prev, 0, 0) &&
                 kb[1] == lc_pattern(prev, 0, 1),
             "tag 7 receive: source %d tag %d, payload %d %d", st.MPI_SOURCE, st.MPI_TAG, kb[0], kb[1]);

    free(kb);
    for (int c = 0; c < NC; c++) LC_MPI(MPI_Comm_free(&comms[c]));
    for (int k = 0; k < NC * PER; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    return lc_finish();
}
