/* SPDX-License-Identifier: BSD-3-Clause */
/* pt2pt_split: the split copy (LOCUS_CMA_SPLIT, src/pt2pt/lc_pt2pt_split.c),
 * where the receiver pulls a large message's front while the sender
 * pushes its back.  Run with LOCUS_CMA_THRESHOLD=0, LOCUS_CMA_SPLIT and
 * LOCUS_CMA_SPLIT_CHUNK=128k (the sizes below sit around its chunks), and
 * LOCUS_POLL=yield: a wait that sleeps on the doorbell under foreign load
 * (auto) may sleep through a whole split, which the last part checks.
 *  1. sizes around the chunk boundaries, both directions at once;
 *  2. a window of 64 messages in flight per direction (more than the 48
 *     claim slots: the rest are pulled alone);
 *  3. MPI_ANY_SOURCE receives from every other rank;
 *  4. truncation: a receive smaller than the message reports
 *     MPI_ERR_TRUNCATE with its buffer filled and nothing written past it;
 *  5. a sender waiting in MPI_Wait while the receiver starts late pushes
 *     part of the message (locus_rndv_split_pushed_bytes grows).
 * MPI_T's locus_rndv_split_msgs must count the split messages: without
 * the split copy the counter does not exist and the test fails. */
#include "lc_test.h"

#include <unistd.h>

#define CHUNK (128L * 1024)
#define WINDOW 64
#define WIN_BYTES (256L * 1024 + 1)

static const long sizes[] = { CHUNK + 1,         2 * CHUNK - 1,       2 * CHUNK,  2 * CHUNK + 1,
                              3 * CHUNK + 4095,  1048576,             1048576 + 3, 4194304 - 1,
                              4194304 + 4097 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSIZE (16777216L + 3)
#define HELP_BYTES MAXSIZE

static unsigned char byte_of(int src, long salt, long i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)src << 48) ^ (uint64_t)salt * 0x100000001b3ull;
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

static void fill(unsigned char *b, long n, int src, long salt)
{
    for (long i = 0; i < n; i++) b[i] = byte_of(src, salt, i);
}

static int check(const unsigned char *b, long n, int src, long salt, const char *what)
{
    for (long i = 0; i < n; i++)
        if (b[i] != byte_of(src, salt, i)) {
            LC_CHECK(0, "%s: %ld bytes from %d, first wrong byte at offset %ld (chunk %ld)", what, n, src, i,
                     i / CHUNK);
            return 0;
        }
    return 1;
}

typedef struct {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle split, pushed, pull;
    int ok;
} counters_t;

static void counters_open(counters_t *c)
{
    int isplit, ipushed, ipull, n;
    c->ok = MPI_T_pvar_get_index("locus_rndv_split_msgs", MPI_T_PVAR_CLASS_COUNTER, &isplit) == MPI_SUCCESS &&
            MPI_T_pvar_get_index("locus_rndv_split_pushed_bytes", MPI_T_PVAR_CLASS_COUNTER, &ipushed) ==
                MPI_SUCCESS &&
            MPI_T_pvar_get_index("locus_rndv_pull_msgs", MPI_T_PVAR_CLASS_COUNTER, &ipull) == MPI_SUCCESS;
    LC_CHECK(c->ok, "MPI_T has no locus_rndv_split_msgs / locus_rndv_split_pushed_bytes counter");
    if (!c->ok) return;
    LC_MPI(MPI_T_pvar_session_create(&c->s));
    LC_MPI(MPI_T_pvar_handle_alloc(c->s, isplit, NULL, &c->split, &n));
    LC_MPI(MPI_T_pvar_handle_alloc(c->s, ipushed, NULL, &c->pushed, &n));
    LC_MPI(MPI_T_pvar_handle_alloc(c->s, ipull, NULL, &c->pull, &n));
    LC_MPI(MPI_T_pvar_start(c->s, MPI_T_PVAR_ALL_HANDLES));
}

static unsigned long counter(counters_t *c, MPI_T_pvar_handle h)
{
    unsigned long v = 0;
    if (c->ok) LC_MPI(MPI_T_pvar_read(c->s, h, &v));
    return v;
}

/* 1: every size, each rank exchanging with its partner both ways at once. */
static void sizes_both_ways(unsigned char *sbuf, unsigned char *rbuf, int rank, int partner)
{
    for (int k = 0; k < NSIZES; k++) {
        long n = sizes[k];
        fill(sbuf, n, rank, n);
        memset(rbuf, 0xEE, (size_t)n);
        MPI_Request rq[2];
        LC_MPI(MPI_Irecv(rbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &rq[0]));
        LC_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, partner, k, MPI_COMM_WORLD, &rq[1]));
        LC_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        check(rbuf, n, partner, n, "both ways");
    }
}

/* 2: a window of WINDOW messages each way, distinct contents each. */
static void window(int rank, int partner)
{
    unsigned char *s = lc_malloc((size_t)WINDOW * WIN_BYTES), *r = lc_malloc((size_t)WINDOW * WIN_BYTES);
    MPI_Request rq[2 * WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        fill(s + (size_t)i * WIN_BYTES, WIN_BYTES, rank, 1000 + i);
        LC_MPI(MPI_Irecv(r + (size_t)i * WIN_BYTES, (int)WIN_BYTES, MPI_BYTE, partner, 100, MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < WINDOW; i++)
        LC_MPI(MPI_Isend(s + (size_t)i * WIN_BYTES, (int)WIN_BYTES, MPI_BYTE, partner, 100, MPI_COMM_WORLD,
                         &rq[WINDOW + i]));
    LC_MPI(MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < WINDOW; i++) check(r + (size_t)i * WIN_BYTES, WIN_BYTES, partner, 1000 + i, "window");
    free(s);
    free(r);
}

/* 3: rank 0 receives 1 MiB + 3 from every other rank with ANY_SOURCE. */
static void any_source(unsigned char *sbuf, unsigned char *rbuf, int rank, int size)
{
    long n = 1048576 + 3;
    if (rank) {
        fill(sbuf, n, rank, 77);
        LC_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, 0, 200, MPI_COMM_WORLD));
        return;
    }
    int seen = 0;
    for (int i = 1; i < size; i++) {
        MPI_Status st;
        LC_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &st));
        LC_CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size && !(seen & (1 << st.MPI_SOURCE)),
                 "ANY_SOURCE status names rank %d", st.MPI_SOURCE);
        seen |= 1 << st.MPI_SOURCE;
        check(rbuf, n, st.MPI_SOURCE, 77, "ANY_SOURCE");
    }
}

/* 4: the partner sends 1 MiB + 5 into a receive of 600 KiB + 5 (not a
 * chunk multiple) in a buffer with 64 KiB of guard after it. */
static void truncation(unsigned char *sbuf, int rank, int partner)
{
    long n = 1048576 + 5, posted = 600L * 1024 + 5, guard = 65536;
    unsigned char *r = lc_malloc((size_t)(posted + guard));
    memset(r, 0xEE, (size_t)(posted + guard));
    fill(sbuf, n, rank, 55);
    MPI_Request rq[2];
    MPI_Status st[2];
    LC_MPI(MPI_Irecv(r, (int)posted, MPI_BYTE, partner, 300, MPI_COMM_WORLD, &rq[0]));
    LC_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, partner, 300, MPI_COMM_WORLD, &rq[1]));
    int rc = MPI_Waitall(2, rq, st), cls = -1;
    MPI_Error_class(rc, &cls);
    LC_CHECK(cls == MPI_ERR_IN_STATUS, "truncated Waitall returned %s, not MPI_ERR_IN_STATUS", lc_err_str(rc));
    MPI_Error_class(st[0].MPI_ERROR, &cls);
    LC_CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: error class %d, not MPI_ERR_TRUNCATE", cls);
    MPI_Error_class(st[1].MPI_ERROR, &cls);
    LC_CHECK(cls == MPI_SUCCESS, "the send into a truncated receive: error class %d", cls);
    check(r, posted, partner, 55, "truncated");
    for (long i = posted; i < posted + guard; i++)
        if (r[i] != 0xEE) {
            LC_CHECK(0, "truncated receive of %ld bytes wrote at offset %ld", posted, i);
            break;
        }
    free(r);
}

/* 5: the receiver starts late, so its sender is already waiting: the
 * sender must push part of at least one of these messages (up to 20
 * tries: the sender's core may be taken by another job now and then). */
static void sender_helps(counters_t *c, unsigned char *sbuf, unsigned char *rbuf, int rank, int partner)
{
    long n = HELP_BYTES;
    int recv_side = rank < partner, helped = 0, all = 0;
    unsigned long before = counter(c, c->pushed);
    for (int round = 0; round < 20 && !all; round++) {
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (recv_side) {
            usleep(20000);
            LC_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, 400 + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            check(rbuf, n, partner, 400 + round, "late receiver");
            helped = counter(c, c->pushed) > before;
        } else {
            fill(sbuf, n, rank, 400 + round);
            LC_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, partner, 400 + round, MPI_COMM_WORLD));
            helped = 1;
        }
        LC_MPI(MPI_Allreduce(&helped, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    }
    LC_CHECK(helped, "rank %d: its sender pushed no byte of 20 messages of %ld bytes it sent while waiting", rank,
             n);
}

int main(int argc, char **argv)
{
    int provided;
    LC_MPI(MPI_Init(&argc, &argv));
    LC_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size % 2) LC_FATAL("pt2pt_split needs an even number of ranks, not %d", size);
    int partner = rank ^ 1;
    counters_t c;
    counters_open(&c);
    unsigned char *sbuf = lc_malloc(MAXSIZE), *rbuf = lc_malloc(MAXSIZE);

    sizes_both_ways(sbuf, rbuf, rank, partner);
    if (c.ok && counter(&c, c.pull) == 0) {
        /* Without CMA (a container without the PID namespace, ptrace
         * forbidden) nothing is pulled, so nothing can be split. */
        if (rank == 0) printf("pt2pt_split: no CMA pulls between these ranks, nothing to split; skipped\n");
        MPI_Finalize();
        return 77;
    }
    window(rank, partner);
    any_source(sbuf, rbuf, rank, size);
    truncation(sbuf, rank, partner);
    sender_helps(&c, sbuf, rbuf, rank, partner);

    unsigned long split = counter(&c, c.split);
    if (getenv("PT2PT_SPLIT_VERBOSE"))
        printf("rank %d: %lu pulls, %lu split, %lu bytes pushed by the senders\n", rank, counter(&c, c.pull), split,
               counter(&c, c.pushed));
    LC_CHECK(split >= NSIZES, "rank %d split %lu of its messages, expected at least %d", rank, split, NSIZES);
    free(sbuf);
    free(rbuf);
    if (c.ok) LC_MPI(MPI_T_pvar_session_free(&c.s));
    MPI_T_finalize();
    return lc_finish();
}
