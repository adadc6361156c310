/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_order: MPI's non-overtaking rule.  For every ordered pair of
 * ranks (by rounds: send to rank+k, receive from rank-k) a sender sends
 * NMSG messages whose sizes cycle from 0 bytes through eager sizes to
 * rendezvous sizes; the receiver must get them in sending order:
 *   - windows of pre-posted MPI_Irecv on the same tag,
 *   - windows received with MPI_ANY_TAG while the sender alternates tags,
 *   - blocking MPI_Sendrecv windows;
 * then a small message must be receivable before a large one sent
 * earlier on a different tag (tags select, they do not queue). */
#include "lc_test.h"

#define NMSG 48
#define WINDOW 8
static const int sizes[] = {0, 4, 100, 1024, 8000, 70000, 300000, 16};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXBYTES 300000

static int msg_bytes(int k) { return sizes[k % NSIZES]; }

static void fill(int32_t *buf, int src, int k)
{
    for (int i = 0; i < msg_bytes(k) / 4; i++)
        buf[i] = lc_pattern(src, k, i);
}

static void check(const int32_t *buf, const MPI_Status *st, int src, int k, int tag,
                  const char *how)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != msg_bytes(k) || st->MPI_SOURCE != src || st->MPI_TAG != tag) {
        LC_CHECK(0, "%s: message %d from %d: got %d bytes from %d tag %d, expected %d bytes tag %d",
                 how, k, src, count, st->MPI_SOURCE, st->MPI_TAG, msg_bytes(k), tag);
        return;
    }
    for (int i = 0; i < msg_bytes(k) / 4; i++)
        if (buf[i] != lc_pattern(src, k, i)) {
            LC_CHECK(0, "%s: message %d from %d: int %d is %d, expected %d (overtaken?)", how, k,
                     src, i, buf[i], lc_pattern(src, k, i));
            return;
        }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int32_t *sbuf[WINDOW], *rbuf[WINDOW];
    for (int w = 0; w < WINDOW; w++) {
        sbuf[w] = lc_malloc(MAXBYTES);
        rbuf[w] = lc_malloc(MAXBYTES);
    }

    /* round 0 is the self pair: every rank sends to itself */
    for (int round = 0; round < size; round++) {
        int dest = (rank + round) % size, src = (rank + size - round) % size;
        for (int base = 0; base < NMSG; base += WINDOW) {
            int mode = (base / WINDOW) % 3; /* 0: same tag, 1: ANY_TAG, 2: Sendrecv */
            if (mode == 2) {
                for (int k = base; k < base + WINDOW; k++) {
                    MPI_Status st;
                    fill(sbuf[0], rank, k);
                    LC_MPI(MPI_Sendrecv(sbuf[0], msg_bytes(k), MPI_BYTE, dest, 5, rbuf[0],
                                        MAXBYTES, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st));
                    check(rbuf[0], &st, src, k, 5, "Sendrecv");
                }
                continue;
            }
            MPI_Request rreq[WINDOW], sreq[WINDOW];
            MPI_Status rst[WINDOW];
            for (int w = 0; w < WINDOW; w++)
                LC_MPI(MPI_Irecv(rbuf[w], MAXBYTES, MPI_BYTE, src, mode == 1 ? MPI_ANY_TAG : 7,
                                 MPI_COMM_WORLD, &rreq[w]));
            for (int w = 0; w < WINDOW; w++) {
                int k = base + w;
                fill(sbuf[w], rank, k);
                int tag = mode == 1 ? 100 + k % 2 : 7;
                LC_MPI(MPI_Isend(sbuf[w], msg_bytes(k), MPI_BYTE, dest, tag, MPI_COMM_WORLD,
                                 &sreq[w]));
            }
            LC_MPI(MPI_Waitall(WINDOW, rreq, rst));
            LC_MPI(MPI_Waitall(WINDOW, sreq, MPI_STATUSES_IGNORE));
            for (int w = 0; w < WINDOW; w++) {
                int k = base + w;
                check(rbuf[w], &rst[w], src, k, mode == 1 ? 100 + k % 2 : 7,
                      mode == 1 ? "Irecv ANY_TAG" : "Irecv");
            }
        }

        /* large message on tag 1 then small on tag 2; receive 2 first */
        MPI_Request sreq[2];
        MPI_Status st;
        fill(sbuf[0], rank, 6); /* 300000 bytes */
        fill(sbuf[1], rank, 1); /* 4 bytes */
        LC_MPI(MPI_Isend(sbuf[0], msg_bytes(6), MPI_BYTE, dest, 1, MPI_COMM_WORLD, &sreq[0]));
        LC_MPI(MPI_Isend(sbuf[1], msg_bytes(1), MPI_BYTE, dest, 2, MPI_COMM_WORLD, &sreq[1]));
        LC_MPI(MPI_Recv(rbuf[1], MAXBYTES, MPI_BYTE, src, 2, MPI_COMM_WORLD, &st));
        check(rbuf[1], &st, src, 1, 2, "tag 2 before tag 1");
        LC_MPI(MPI_Recv(rbuf[0], MAXBYTES, MPI_BYTE, src, 1, MPI_COMM_WORLD, &st));
        check(rbuf[0], &st, src, 6, 1, "tag 1 after tag 2");
        LC_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    }
    for (int w = 0; w < WINDOW; w++) {
        free(sbuf[w]);
        free(rbuf[w]);
    }
    return lc_finish();
}
