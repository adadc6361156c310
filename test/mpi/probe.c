/* SPDX-License-Identifier: BSD-3-Clause */
/* probe: MPI_Probe and MPI_Iprobe.  Every rank sends its right
 * neighbour messages of unknown size (0 B .. 200 KB, eager and
 * rendezvous); the receiver learns source, tag and size from the probe,
 * allocates exactly that, and receives.  A probe does not consume: a
 * second probe sees the same message.  Iprobe on a tag nobody sends
 * returns flag 0; Iprobe eventually sees a message that was sent. */
#include "lc_test.h"

static const int sizes[] = {0, 3, 1000, 65536, 200000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* nobody ever sends tag 999 */
    int flag = -1;
    MPI_Status st;
    LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &st));
    LC_CHECK(flag == 0, "MPI_Iprobe found a message on tag 999 that was never sent");

    MPI_Request sreq[NSIZES];
    char *sbuf[NSIZES];
    for (int k = 0; k < NSIZES; k++) {
        sbuf[k] = lc_malloc((size_t)sizes[k]);
        for (int i = 0; i < sizes[k]; i++)
            sbuf[k][i] = (char)(lc_pattern(rank, k, i) & 0x7f);
        /* tags in reverse order of sending, so probing by tag picks out
         * a message that is not the oldest */
        LC_MPI(MPI_Isend(sbuf[k], sizes[k], MPI_CHAR, next, 10 + NSIZES - k, MPI_COMM_WORLD,
                         &sreq[k]));
    }

    for (int k = 0; k < NSIZES; k++) {
        int tag = 10 + NSIZES - k;
        MPI_Status st2;
        int count = -1;
        if (k % 2 == 0) {
            /* by tag, then again with wildcards restricted to what is left */
            LC_MPI(MPI_Probe(prev, tag, MPI_COMM_WORLD, &st));
        } else {
            double t0 = MPI_Wtime();
            flag = 0;
            while (!flag && MPI_Wtime() - t0 < 30.0)
                LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st));
            if (!flag)
                LC_FATAL("MPI_Iprobe did not see message %d (tag %d) within 30 s", k, tag);
        }
        LC_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
        LC_CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == tag && count == sizes[k],
                 "probe for message %d: source %d tag %d count %d, expected %d %d %d", k,
                 st.MPI_SOURCE, st.MPI_TAG, count, prev, tag, sizes[k]);
        /* probing again must find the same message */
        LC_MPI(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st2));
        int count2 = -1;
        LC_MPI(MPI_Get_count(&st2, MPI_CHAR, &count2));
        LC_CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && count2 == count,
                 "second probe for message %d differs: source %d count %d vs %d %d", k,
                 st2.MPI_SOURCE, count2, st.MPI_SOURCE, count);

        char *rbuf = lc_malloc((size_t)(count > 0 ? count : 0));
        LC_MPI(MPI_Recv(rbuf, count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
        LC_MPI(MPI_Get_count(&st2, MPI_CHAR, &count2));
        LC_CHECK(count2 == sizes[k], "received %d chars of message %d, expected %d", count2, k,
                 sizes[k]);
        for (int i = 0; i < count2 && i < sizes[k]; i++)
            if (rbuf[i] != (char)(lc_pattern(prev, k, i) & 0x7f)) {
                LC_CHECK(0, "message %d byte %d is %d, expected %d", k, i, rbuf[i],
                         lc_pattern(prev, k, i) & 0x7f);
                break;
            }
        free(rbuf);
    }
    LC_MPI(MPI_Waitall(NSIZES, sreq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < NSIZES; k++)
        free(sbuf[k]);

    /* everything was received: nothing left to probe (after all ranks
     * are done receiving) */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    flag = -1;
    LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    LC_CHECK(flag == 0, "MPI_Iprobe found a message after all were received");
    return lc_finish();
}
