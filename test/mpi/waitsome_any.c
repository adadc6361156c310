/* SPDX-License-Identifier: BSD-3-Clause */
/* waitsome_any: the multiple-completion calls.
 *  - On arrays of only MPI_REQUEST_NULL (and count 0): Waitany/Testany
 *    give index MPI_UNDEFINED (Testany flag true), Waitsome/Testsome
 *    give outcount MPI_UNDEFINED, Testall flag true, Waitall returns.
 *  - Receiver posts NR receives with distinct tags, interleaved with
 *    MPI_REQUEST_NULL slots; the sender sends one tag at a time in a
 *    scrambled order and waits for an acknowledgement, so exactly one
 *    receive can complete: Waitany/Testany must return that slot (and
 *    set it to MPI_REQUEST_NULL), Waitsome/Testsome exactly that one,
 *    Testall false until the last.  Pairs of ranks (0,1), (2,3), ...; an
 *    odd last rank does both roles with itself. */
#include "lc_test.h"

#define NR 8
#define SLOTS (2 * NR)

enum { USE_WAITANY, USE_TESTANY, USE_WAITSOME, USE_TESTSOME, NMETHODS };
static const char *method_name[] = {"MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome"};

static void null_arrays(void)
{
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[3];
    int idx = 5, flag = 5, outcount = 5, idxs[3];
    LC_MPI(MPI_Waitany(3, reqs, &idx, &st));
    LC_CHECK(idx == MPI_UNDEFINED, "MPI_Waitany on null requests gave index %d", idx);
    LC_MPI(MPI_Waitany(0, reqs, &idx, MPI_STATUS_IGNORE));
    LC_CHECK(idx == MPI_UNDEFINED, "MPI_Waitany with count 0 gave index %d", idx);
    idx = 5;
    LC_MPI(MPI_Testany(3, reqs, &idx, &flag, &st));
    LC_CHECK(idx == MPI_UNDEFINED && flag == 1, "MPI_Testany on null requests: index %d flag %d",
             idx, flag);
    LC_MPI(MPI_Waitsome(3, reqs, &outcount, idxs, sts));
    LC_CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome on null requests gave outcount %d", outcount);
    outcount = 5;
    LC_MPI(MPI_Testsome(3, reqs, &outcount, idxs, MPI_STATUSES_IGNORE));
    LC_CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome on null requests gave outcount %d", outcount);
    flag = 5;
    LC_MPI(MPI_Testall(3, reqs, &flag, sts));
    LC_CHECK(flag == 1, "MPI_Testall on null requests gave flag %d", flag);
    LC_MPI(MPI_Waitall(3, reqs, sts));
    LC_MPI(MPI_Waitall(0, reqs, MPI_STATUSES_IGNORE));
    flag = 5;
    LC_MPI(MPI_Test(&reqs[0], &flag, &st));
    LC_CHECK(flag == 1, "MPI_Test on MPI_REQUEST_NULL gave flag %d", flag);
}

/* Complete exactly one request (the one expected) with method m;
 * returns its slot or -1. */
static int complete_one(int m, MPI_Request *reqs, MPI_Status *st)
{
    int idx = -1, flag = 0, outcount = 0, idxs[SLOTS];
    MPI_Status sts[SLOTS];
    double t0 = MPI_Wtime();
    switch (m) {
    case USE_WAITANY:
        LC_MPI(MPI_Waitany(SLOTS, reqs, &idx, st));
        return idx;
    case USE_TESTANY:
        while (!flag && MPI_Wtime() - t0 < 30.0)
            LC_MPI(MPI_Testany(SLOTS, reqs, &idx, &flag, st));
        LC_CHECK(flag && idx != MPI_UNDEFINED, "MPI_Testany found nothing within 30 s");
        return flag ? idx : -1;
    case USE_WAITSOME:
        LC_MPI(MPI_Waitsome(SLOTS, reqs, &outcount, idxs, sts));
        break;
    case USE_TESTSOME:
        while (outcount == 0 && MPI_Wtime() - t0 < 30.0)
            LC_MPI(MPI_Testsome(SLOTS, reqs, &outcount, idxs, sts));
        break;
    }
    LC_CHECK(outcount == 1, "%s completed %d requests, expected exactly 1", method_name[m],
             outcount);
    if (outcount < 1 || outcount == MPI_UNDEFINED)
        return -1;
    *st = sts[0];
    return idxs[0];
}

/* tag of the k-th message sent: a scramble of 0..NR-1 */
static int send_tag(int k) { return (k * 5 + 3) % NR; }

static void run(int m, int me, int peer, int receiver)
{
    int32_t vals[SLOTS];
    int self = me == peer;
    int32_t ack = 0;
    if (receiver || self) {
        MPI_Request reqs[SLOTS];
        /* slot 2t holds the receive for tag t, odd slots are null */
        for (int s = 0; s < SLOTS; s++) {
            vals[s] = -1;
            reqs[s] = MPI_REQUEST_NULL;
            if (s % 2 == 0)
                LC_MPI(MPI_Irecv(&vals[s], 1, MPI_INT, peer, s / 2, MPI_COMM_WORLD, &reqs[s]));
        }
        int flag = 5;
        LC_MPI(MPI_Testall(SLOTS, reqs, &flag, MPI_STATUSES_IGNORE));
        if (!self)
            LC_CHECK(flag == 0, "MPI_Testall true before anything was sent");
        for (int k = 0; k < NR; k++) {
            int tag = send_tag(k);
            MPI_Request sreq = MPI_REQUEST_NULL;
            int32_t out = lc_pattern(peer, m, tag);
            if (self)
                LC_MPI(MPI_Isend(&out, 1, MPI_INT, me, tag, MPI_COMM_WORLD, &sreq));
            MPI_Status st;
            int idx = complete_one(m, reqs, &st);
            LC_CHECK(idx == 2 * tag, "%s: message %d (tag %d) completed slot %d, expected %d",
                     method_name[m], k, tag, idx, 2 * tag);
            if (idx >= 0 && idx < SLOTS) {
                LC_CHECK(reqs[idx] == MPI_REQUEST_NULL, "%s left completed slot %d non-null",
                         method_name[m], idx);
                LC_CHECK(st.MPI_TAG == tag && st.MPI_SOURCE == peer &&
                             vals[idx] == lc_pattern(peer, m, tag),
                         "%s slot %d: tag %d source %d value %d, expected %d %d %d",
                         method_name[m], idx, st.MPI_TAG, st.MPI_SOURCE, vals[idx], tag, peer,
                         lc_pattern(peer, m, tag));
            }
            if (self)
                LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
            /* before the ack: the next message is not sent yet */
            flag = 5;
            LC_MPI(MPI_Testall(SLOTS, reqs, &flag, MPI_STATUSES_IGNORE));
            LC_CHECK(flag == (k == NR - 1), "MPI_Testall gave %d after %d of %d completions", flag,
                     k + 1, NR);
            if (!self)
                LC_MPI(MPI_Send(&ack, 1, MPI_INT, peer, 1000, MPI_COMM_WORLD));
            if (flag && k < NR - 1)
                LC_FATAL("requests completed by MPI_Testall too early; cannot go on");
        }
    } else {
        for (int k = 0; k < NR; k++) {
            int tag = send_tag(k);
            int32_t out = lc_pattern(me, m, tag);
            LC_MPI(MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD));
            LC_MPI(MPI_Recv(&ack, 1, MPI_INT, peer, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    null_arrays();
    int peer = (rank ^ 1) < size ? (rank ^ 1) : rank;
    for (int m = 0; m < NMETHODS; m++)
        for (int role = 0; role < 2; role++) /* each side receives once */
            run(m, rank, peer, (rank % 2) == role);
    return lc_finish();
}
