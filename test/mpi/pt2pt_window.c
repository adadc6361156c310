/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_window: windows of Isend/Irecv of large messages around the sizes
 * where the rendezvous protocol changes (64 KiB, 256 KiB, 1 MiB, 4 MiB:
 * the calibration classes of LOCUS_CMA_THRESHOLD=auto, issue 13), each
 * rank sending to rank+1 and receiving from rank-1.  Rounds alternate a
 * lone message with a window of 4 (the calibration times only lone
 * pipelined messages), and receives posted before the sends with sends
 * that arrive unexpected.  Every message has its own buffer and its own
 * pseudo-random bytes; the receiver checks a checksum and every byte.
 * The testlist runs it with the protocol automatic, CMA forced, the
 * pipeline forced and CMA off, at 2 and 4 ranks. */
#include "lc_test.h"

static const long sizes[] = {65535,  65536,  65537,   262143,  262144, 1048575,
                             1048576, 1048577, 4194303, 4194304, 4194305};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define WINDOW 4
#define ROUNDS 8
#define MAXSIZE 4194305L

/* xorshift stream seeded by (sender, size, round, slot) */
static void gen(unsigned char *buf, long n, int src, long len, int round, int slot)
{
    uint64_t x = 0x9E3779B97F4A7C15ull ^ ((uint64_t)src << 40) ^ (uint64_t)len ^ ((uint64_t)round << 24) ^
                 ((uint64_t)slot << 32);
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *sbuf[WINDOW], *rbuf[WINDOW], *want = lc_malloc(MAXSIZE);
    for (int w = 0; w < WINDOW; w++) {
        sbuf[w] = lc_malloc(MAXSIZE);
        rbuf[w] = lc_malloc(MAXSIZE);
    }
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s];
        for (int round = 0; round < ROUNDS; round++) {
            int nw = round % 2 ? WINDOW : 1;
            int unexpected = (round / 2) % 2; /* sends first, receives after a barrier */
            MPI_Request rq[2 * WINDOW];
            uint64_t sent[WINDOW], got[WINDOW];
            for (int w = 0; w < nw; w++) {
                gen(sbuf[w], n, rank, n, round, w);
                memset(rbuf[w], 0, (size_t)n);
            }
            if (!unexpected)
                for (int w = 0; w < nw; w++)
                    LC_MPI(MPI_Irecv(rbuf[w], (int)n, MPI_BYTE, from, w, MPI_COMM_WORLD, &rq[w]));
            for (int w = 0; w < nw; w++)
                LC_MPI(MPI_Isend(sbuf[w], (int)n, MPI_BYTE, to, w, MPI_COMM_WORLD, &rq[WINDOW + w]));
            if (unexpected) {
                LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
                for (int w = 0; w < nw; w++)
                    LC_MPI(MPI_Irecv(rbuf[w], (int)n, MPI_BYTE, from, w, MPI_COMM_WORLD, &rq[w]));
            }
            LC_MPI(MPI_Waitall(nw, rq, MPI_STATUSES_IGNORE));
            LC_MPI(MPI_Waitall(nw, rq + WINDOW, MPI_STATUSES_IGNORE));
            for (int w = 0; w < nw; w++) sent[w] = lc_checksum(sbuf[w], (size_t)n);
            LC_MPI(MPI_Sendrecv(sent, nw * 8, MPI_BYTE, to, 99, got, nw * 8, MPI_BYTE, from, 99, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE));
            for (int w = 0; w < nw; w++) {
                uint64_t sum = lc_checksum(rbuf[w], (size_t)n);
                LC_CHECK(sum == got[w], "%ld bytes, round %d, message %d from %d: checksum %#llx, sender's %#llx", n,
                         round, w, from, (unsigned long long)sum, (unsigned long long)got[w]);
                gen(want, n, from, n, round, w);
                for (long i = 0; i < n; i++)
                    if (rbuf[w][i] != want[i]) {
                        LC_CHECK(0, "%ld bytes, round %d, message %d from %d: first wrong byte at %ld (%d, expected %d)",
                                 n, round, w, from, i, rbuf[w][i], want[i]);
                        break;
                    }
            }
        }
    }
    for (int w = 0; w < WINDOW; w++) {
        free(sbuf[w]);
        free(rbuf[w]);
    }
    free(want);
    return lc_finish();
}
