/* SPDX-License-Identifier: BSD-3-Clause */
/* large_msg: message sizes from 0 bytes (also with a NULL buffer) up to
 * 16 MiB, around the usual eager/rendezvous and pipeline boundaries.
 * Ring exchange (rank -> rank+1) with Isend/Irecv both ways at once,
 * blocking Send/Recv between pairs, and Sendrecv_replace at 16 MiB.
 * Each message carries pseudo-random bytes; the receiver compares a
 * checksum of what arrived with the checksum the sender sends
 * separately, and every byte with the expected stream. */
#include "lc_test.h"

static const long sizes[] = {0,     1,          4095,    4096,    4097,    65535, 65536,
                             65537, 1048576 + 3, 4194304, 16777216};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSIZE 16777216L

/* xorshift stream seeded by (sender, size): cheap, and a byte shifted
 * or duplicated anywhere is caught */
static void gen(unsigned char *buf, long n, int src, long len)
{
    uint64_t x = 0x9E3779B97F4A7C15ull ^ ((uint64_t)src << 40) ^ (uint64_t)len;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
}

static void verify(const unsigned char *got, unsigned char *want, long n, int src,
                   uint64_t sent_sum, const char *how)
{
    uint64_t sum = lc_checksum(got, (size_t)n);
    LC_CHECK(sum == sent_sum, "%s %ld bytes from %d: checksum %#llx, sender's %#llx", how, n, src,
             (unsigned long long)sum, (unsigned long long)sent_sum);
    gen(want, n, src, n);
    for (long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            LC_CHECK(0, "%s %ld bytes from %d: first wrong byte at offset %ld (%d, expected %d)",
                     how, n, src, i, got[i], want[i]);
            return;
        }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char *sbuf = lc_malloc(MAXSIZE), *rbuf = lc_malloc(MAXSIZE + 16),
                  *want = lc_malloc(MAXSIZE);

    /* 0 bytes from a NULL buffer */
    MPI_Status st;
    MPI_Request rq[2];
    LC_MPI(MPI_Irecv(NULL, 0, MPI_BYTE, prev, 1, MPI_COMM_WORLD, &rq[0]));
    LC_MPI(MPI_Isend(NULL, 0, MPI_BYTE, next, 1, MPI_COMM_WORLD, &rq[1]));
    LC_MPI(MPI_Wait(&rq[0], &st));
    LC_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    int c = -1;
    LC_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
    LC_CHECK(c == 0 && st.MPI_SOURCE == prev, "0-byte NULL message: count %d source %d", c,
             st.MPI_SOURCE);

    for (int k = 0; k < NSIZES; k++) {
        long n = sizes[k];
        gen(sbuf, n, rank, n);
        uint64_t sum = lc_checksum(sbuf, (size_t)n), peer_sum = 0;
        /* ring, nonblocking, both directions in flight at once */
        memset(rbuf, 0xA5, (size_t)n + 16);
        LC_MPI(MPI_Irecv(rbuf, (int)n + 16, MPI_BYTE, prev, 2, MPI_COMM_WORLD, &rq[0]));
        LC_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, next, 2, MPI_COMM_WORLD, &rq[1]));
        LC_MPI(MPI_Sendrecv(&sum, 1, MPI_UINT64_T, next, 3, &peer_sum, 1, MPI_UINT64_T, prev, 3,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Status sts[2];
        LC_MPI(MPI_Waitall(2, rq, sts));
        LC_MPI(MPI_Get_count(&sts[0], MPI_BYTE, &c));
        LC_CHECK(c == n, "ring Isend/Irecv: received %d bytes, sent %ld", c, n);
        verify(rbuf, want, n, prev, peer_sum, "ring Isend/Irecv");
        for (int i = 0; i < 16; i++)
            if (rbuf[n + i] != 0xA5) {
                LC_CHECK(0, "ring Isend/Irecv of %ld bytes wrote past the message", n);
                break;
            }

        /* blocking Send/Recv between pairs (0,1), (2,3), ...: even
         * ranks send first */
        int partner = rank ^ 1;
        if (partner < size) {
            if (rank % 2 == 0) {
                LC_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, partner, 4, MPI_COMM_WORLD));
                LC_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, 4, MPI_COMM_WORLD, &st));
            } else {
                LC_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, 4, MPI_COMM_WORLD, &st));
                LC_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, partner, 4, MPI_COMM_WORLD));
            }
            gen(want, n, partner, n);
            verify(rbuf, want, n, partner, lc_checksum(want, (size_t)n), "blocking Send/Recv");
        }
    }

    /* Sendrecv_replace of the largest size around the ring */
    long n = MAXSIZE;
    gen(rbuf, n, rank, n);
    LC_MPI(MPI_Sendrecv_replace(rbuf, (int)n, MPI_BYTE, next, 5, prev, 5, MPI_COMM_WORLD, &st));
    LC_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
    LC_CHECK(c == n && st.MPI_SOURCE == prev, "Sendrecv_replace: %d bytes from %d", c,
             st.MPI_SOURCE);
    gen(sbuf, n, prev, n);
    verify(rbuf, want, n, prev, lc_checksum(sbuf, (size_t)n), "Sendrecv_replace");

    /* the same 16 MiB as 4 Mi ints through MPI_INT (count != bytes) */
    int32_t *ibuf = (int32_t *)sbuf, *ir = (int32_t *)rbuf;
    for (long i = 0; i < n / 4; i++)
        ibuf[i] = lc_pattern(rank, 6, i);
    LC_MPI(MPI_Sendrecv(ibuf, (int)(n / 4), MPI_INT, next, 6, ir, (int)(n / 4), MPI_INT, prev, 6,
                        MPI_COMM_WORLD, &st));
    LC_MPI(MPI_Get_count(&st, MPI_INT, &c));
    LC_CHECK(c == n / 4, "16 MiB of MPI_INT: count %d, expected %ld", c, n / 4);
    for (long i = 0; i < n / 4; i++)
        if (ir[i] != lc_pattern(prev, 6, i)) {
            LC_CHECK(0, "16 MiB of MPI_INT: int %ld is %d, expected %d", i, ir[i],
                     lc_pattern(prev, 6, i));
            break;
        }
    free(sbuf);
    free(rbuf);
    free(want);
    return lc_finish();
}
