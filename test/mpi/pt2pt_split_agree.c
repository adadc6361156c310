/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_split_agree: both sides of a pair agree on which messages are
 * moved by the split copy (src/pt2pt/lc_pt2pt_split.c), however it is
 * chosen — by the per-pair pick (LOCUS_CMA_SPLIT=auto with
 * LOCUS_CMA_THRESHOLD=auto: the receiver times windows of split pulls
 * against one core's, lc_pt2pt_pick_split.c) or forced.  Windows of
 * nonblocking messages of 256 KiB, 1 MiB and 4 MiB go one way, then the
 * other (the bw benchmark's pattern, where the pick learns), then a
 * ping-pong of each (lone messages, which learn it too since session 23);
 * every page of every message is checked.  Then, per direction, the receiver's count of
 * messages it split (MPI_T locus_rndv_split_msgs) must equal the sender's
 * count of sends whose receiver's CTS asked to split them
 * (locus_rndv_split_send_msgs): a sender that pushed into a message the
 * receiver did not split, or ignored one it did, shows as a difference.
 * Argument "expect-split": at least one message must have been split
 * (the forced runs). */
#include "lc_test.h"

#define WINDOW 16
#define WINDOWS 10
#define PAGE 4096L

static const long sizes[] = { 256L * 1024, 1048576, 4194304 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* A stamp in every page: which message, which page. */
static uint64_t stamp(int dir, int w, int i, long page)
{
    return (uint64_t)dir << 60 ^ (uint64_t)w << 40 ^ (uint64_t)i << 24 ^ (uint64_t)page ^ 0x5bd1e995u;
}

static int pvar(const char *name, MPI_T_pvar_session s, MPI_T_pvar_handle *h)
{
    int idx, n;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) return 0;
    LC_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, h, &n));
    return 1;
}

static unsigned long readv(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long v = 0;
    LC_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Windows of `n`-byte messages from `from` to the other rank of the pair. */
static void windows(unsigned char *buf, long n, int rank, int partner, int from, int dir)
{
    MPI_Request rq[WINDOW];
    for (int w = 0; w < WINDOWS; w++) {
        for (int i = 0; i < WINDOW; i++) {
            unsigned char *b = buf + (size_t)i * (size_t)n;
            if (rank == from) {
                for (long p = 0; p * PAGE < n; p++) {
                    uint64_t v = stamp(dir, w, i, p);
                    memcpy(b + p * PAGE, &v, sizeof(v));
                }
                LC_MPI(MPI_Isend(b, (int)n, MPI_BYTE, partner, i, MPI_COMM_WORLD, &rq[i]));
            } else {
                memset(b, 0, (size_t)n);
                LC_MPI(MPI_Irecv(b, (int)n, MPI_BYTE, partner, i, MPI_COMM_WORLD, &rq[i]));
            }
        }
        LC_MPI(MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE));
        if (rank != from)
            for (int i = 0; i < WINDOW; i++)
                for (long p = 0; p * PAGE < n; p++) {
                    uint64_t v, want = stamp(dir, w, i, p);
                    memcpy(&v, buf + (size_t)i * (size_t)n + p * PAGE, sizeof(v));
                    if (v != want) {
                        LC_CHECK(0, "%ld-byte message %d of window %d: page %ld holds %#llx, not %#llx", n, i, w, p,
                                 (unsigned long long)v, (unsigned long long)want);
                        break;
                    }
                }
        /* the bw benchmark's acknowledgement: windows do not overlap */
        LC_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, partner, 99, NULL, 0, MPI_BYTE, partner, 99, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    }
}

/* A ping-pong of `n`-byte messages (lc_osu_pt2pt -t lat's pattern):
 * every message lone, its sender in a blocking MPI_Send.  Since session
 * 23 the pick learns the split on such lone pulls too (timed to the
 * receive's completion, at the sender's FIN | SPLIT when the sender
 * placed the last chunk). */
#define ROUNDS 24
static void pingpong(unsigned char *buf, long n, int rank, int partner)
{
    int first = !(rank & 1);
    for (int r = 0; r < ROUNDS; r++)
        for (int leg = 0; leg < 2; leg++) {
            int sending = (leg == 0) == first;
            if (sending) {
                for (long p = 0; p * PAGE < n; p++) {
                    uint64_t v = stamp(2 + leg, r, 0, p);
                    memcpy(buf + p * PAGE, &v, sizeof(v));
                }
                LC_MPI(MPI_Send(buf, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD));
            } else {
                memset(buf, 0, (size_t)n);
                LC_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (long p = 0; p * PAGE < n; p++) {
                    uint64_t v, want = stamp(2 + leg, r, 0, p);
                    memcpy(&v, buf + p * PAGE, sizeof(v));
                    if (v != want) {
                        LC_CHECK(0, "ping-pong of %ld bytes, round %d: page %ld holds %#llx, not %#llx", n, r, p,
                                 (unsigned long long)v, (unsigned long long)want);
                        break;
                    }
                }
            }
        }
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) LC_FATAL("pt2pt_split_agree needs an even number of ranks, not %d", size);
    int partner = rank ^ 1, expect = argc > 1 && !strcmp(argv[1], "expect-split");
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hrecv, hsend;
    LC_MPI(MPI_T_pvar_session_create(&s));
    int ok = pvar("locus_rndv_split_msgs", s, &hrecv) && pvar("locus_rndv_split_send_msgs", s, &hsend);
    LC_CHECK(ok, "MPI_T has no locus_rndv_split_msgs / locus_rndv_split_send_msgs counter");
    if (ok) LC_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));

    unsigned char *buf = lc_malloc((size_t)WINDOW * (size_t)sizes[NSIZES - 1]);
    for (int k = 0; k < NSIZES; k++)
        for (int dir = 0; dir < 2; dir++) windows(buf, sizes[k], rank, partner, (rank & ~1) | dir, dir);
    for (int k = 0; k < NSIZES; k++) pingpong(buf, sizes[k], rank, partner);
    /* Every CTS | SPLIT was handled by its sender before the send completed
     * (the same ring carries it before the FIN), so the counts are final. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long mine[2] = { 0, 0 }, theirs[2] = { 0, 0 };
    if (ok) {
        mine[0] = readv(s, hrecv);
        mine[1] = readv(s, hsend);
    }
    LC_MPI(MPI_Sendrecv(mine, 2, MPI_UNSIGNED_LONG, partner, 7, theirs, 2, MPI_UNSIGNED_LONG, partner, 7,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    printf("pt2pt_split_agree: rank %d split %lu of the messages it received, its receiver split %lu of those it "
           "sent\n",
           rank, mine[0], mine[1]);
    LC_CHECK(mine[0] == theirs[1], "rank %d split %lu messages from rank %d, which was asked to split %lu", rank,
             mine[0], partner, theirs[1]);
    if (expect) LC_CHECK(mine[0] > 0, "rank %d split none of its messages (forced)", rank);
    free(buf);
    if (ok) LC_MPI(MPI_T_pvar_session_free(&s));
    MPI_T_finalize();
    return lc_finish();
}
