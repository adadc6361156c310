/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_bsend: MPI_THREAD_MULTIPLE, the buffered sends, the `_c`
 * large-count forms and Isendrecv outside the process-wide section
 * (issue 14; src/mpi/lc_mpi_fast.h, src/mpi/lc_mpi_bsend_pool.c):
 *  1. Not behind the section: one thread holds it (inside a user
 *     operation of MPI_Reduce_local, which runs in it) until another
 *     thread has done Bsend, Bsend_c, Ibsend, Ibsend_c, Isendrecv,
 *     Isendrecv_replace_c, Send_c/Recv_c, Sendrecv_c, Sendrecv_replace_c,
 *     Isend_c/Irecv_c + Wait to itself, or 10 s went by (a failure: one
 *     of them waited for the section).  Shared-memory/self peers only.
 *  2. Threads 1..T-1 Bsend / Ibsend (int and `_c` forms, 8 B to 12 KiB)
 *     to the thread of the same number on the right-hand rank, through
 *     the one attached buffer, while thread 0 of rank 0 detaches it, scribbles over
 *     it and attaches the other of two buffers, flushes and iflushes, on
 *     a schedule.  A send that finds no room or no buffer (MPI_ERR_BUFFER,
 *     errors returned) is retried.  Every message is checksummed and
 *     numbered: a block another thread's reservation overlapped, or a
 *     buffer detached while a message still left it, fails the check.
 *     Then each worker swaps messages with its neighbours by Isendrecv,
 *     Isendrecv_c, Isendrecv_replace(_c), while the others may still send.
 * Args: threads per rank (2..MAXT); "nohold" to leave part 1 out (with
 * ofi peers every call takes the section, as it must). */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <string.h>
#include <time.h>

#define MAXT 8
#define NMSG 300     /* messages per worker thread at least */
#define MINROUNDS 20 /* and until thread 0 has detached this often */
#define NSWAP 40
#define MAXLEN 12288                              /* bytes of a message at most */
#define BUFSZ (8 * (MAXLEN + MPI_BSEND_OVERHEAD)) /* each of the two buffers */

static int rank, size, right, left, nthreads, hold = 1;
static MPI_Comm own[MAXT], swapc[MAXT];
static atomic_int workers_left, rounds_done;
static char *bufs[2];

/* Message `i` of thread t from rank src: its length and contents. */
static int msg_len(int t, int i)
{
    static const int lens[] = { 8, 64, 512, 2000, 4096, 100, MAXLEN, 24, 7000 };
    return lens[(t * 7 + i) % (int)(sizeof lens / sizeof lens[0])];
}

static void fill(int32_t *m, int len, int src, int t, int i)
{
    for (int k = 0; k < len / 4; k++) m[k] = lc_pattern(src * MAXT + t, i, k);
}

static int check(const int32_t *m, int len, int src, int t, int i)
{
    for (int k = 0; k < len / 4; k++)
        if (m[k] != lc_pattern(src * MAXT + t, i, k)) return k;
    return -1;
}

/* ---- 1: while another thread holds the section ----------------------- */

static void part1_other(void)
{
    MPI_Comm c = own[1];
    int32_t s[8][16], r[8][16], rep[16];
    MPI_Request q[6];
    MPI_Status st;
    lc_hold_wait_held();
    for (int k = 0; k < 8; k++) fill(s[k], 64, rank, 1, k);
    LC_MPI(MPI_Bsend(s[0], 16, MPI_INT32_T, rank, 0, c));
    LC_MPI(MPI_Bsend_c(s[1], 16, MPI_INT32_T, rank, 1, c));
    LC_MPI(MPI_Ibsend(s[2], 16, MPI_INT32_T, rank, 2, c, &q[0]));
    LC_MPI(MPI_Ibsend_c(s[3], 16, MPI_INT32_T, rank, 3, c, &q[1]));
    LC_MPI(MPI_Isendrecv(s[4], 16, MPI_INT32_T, rank, 4, r[4], 16, MPI_INT32_T, rank, 4, c, &q[2]));
    memcpy(rep, s[5], sizeof rep);
    LC_MPI(MPI_Isendrecv_replace_c(rep, 16, MPI_INT32_T, rank, 5, rank, 5, c, &q[3]));
    LC_MPI(MPI_Send_c(s[6], 16, MPI_INT32_T, rank, 6, c));
    LC_MPI(MPI_Recv_c(r[6], 16, MPI_INT32_T, rank, 6, c, &st));
    LC_MPI(MPI_Sendrecv_c(s[7], 16, MPI_INT32_T, rank, 7, r[7], 16, MPI_INT32_T, rank, 7, c, &st));
    LC_MPI(MPI_Sendrecv_replace_c(r[7], 16, MPI_INT32_T, rank, 8, rank, 8, c, &st));
    LC_MPI(MPI_Irecv_c(r[5], 16, MPI_INT32_T, rank, 9, c, &q[4]));
    LC_MPI(MPI_Isend_c(s[5], 16, MPI_INT32_T, rank, 9, c, &q[5]));
    LC_MPI(MPI_Wait(&q[5], MPI_STATUS_IGNORE));
    LC_MPI(MPI_Wait(&q[4], MPI_STATUS_IGNORE));
    for (int k = 0; k < 4; k++) LC_MPI(MPI_Recv(r[k], 16, MPI_INT32_T, rank, k, c, &st));
    lc_hold_release();
    /* Outside the section's hold from here: the Isendrecv requests (their
     * Wait takes the section) and the checks. */
    LC_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 8; k++) TCHECK(check(r[k], 64, rank, 1, k) < 0, "part 1: message %d corrupt", k);
    TCHECK(check(rep, 64, rank, 1, 5) < 0, "part 1: Isendrecv_replace_c's buffer corrupt");
}

/* ---- 2: buffered sends beside attach/detach -------------------------- */

/* A buffered send of message i, retried while the buffer is full or
 * detached; the four forms in turn. */
static void bsend_one(int t, int tag, const int32_t *m, int len)
{
    lc_threads_bsend(tag >> 1, m, len, right, tag, own[t], t, tag >> 1);
}

/* Swap message i with the neighbours by one of the Isendrecv forms. */
static void swap_one(int t, int i)
{
    MPI_Comm c = swapc[t];
    int32_t s[32], r[32];
    MPI_Request q;
    MPI_Status st;
    fill(s, 128, rank, t, 100000 + i);
    switch (i % 4) {
    case 0:
        LC_MPI(MPI_Isendrecv(s, 32, MPI_INT32_T, right, 50000, r, 32, MPI_INT32_T, left, 50000, c, &q));
        break;
    case 1:
        LC_MPI(MPI_Isendrecv_c(s, 32, MPI_INT32_T, right, 50000, r, 32, MPI_INT32_T, left, 50000, c, &q));
        break;
    case 2:
        memcpy(r, s, sizeof r);
        LC_MPI(MPI_Isendrecv_replace(r, 32, MPI_INT32_T, right, 50000, left, 50000, c, &q));
        break;
    default:
        memcpy(r, s, sizeof r);
        LC_MPI(MPI_Isendrecv_replace_c(r, 32, MPI_INT32_T, right, 50000, left, 50000, c, &q));
        break;
    }
    LC_MPI(MPI_Wait(&q, &st));
    TCHECK(st.MPI_SOURCE == left && st.MPI_TAG == 50000, "thread %d swap %d: status %d/%d", t, i, st.MPI_SOURCE,
           st.MPI_TAG);
    int bad = check(r, 128, left, t, 100000 + i);
    TCHECK(bad < 0, "thread %d swap %d: word %d wrong", t, i, bad);
}

/* Sends and receives until it has sent NMSG messages and thread 0 has
 * done MINROUNDS detach rounds; the tag says which message (and whether
 * it is the sender's last), so the receiving thread on the right needs
 * no count agreed in advance.  Then NSWAP Isendrecv swaps. */
static void worker(int t)
{
    MPI_Comm c = own[t];
    int32_t *m = lc_malloc(MAXLEN), *r = lc_malloc(MAXLEN);
    int si = 0, ri = 0, sdone = 0, rdone = 0;
    while (!sdone || !rdone) {
        if (!sdone) {
            int len = msg_len(t, si);
            sdone = si + 1 >= NMSG && (rank != 0 || atomic_load(&rounds_done) >= MINROUNDS);
            fill(m, len, rank, t, si);
            bsend_one(t, 2 * si + sdone, m, len);
            memset(m, 0x5a, (size_t)len); /* the buffered copy must not depend on it */
            si++;
        }
        if (!rdone) {
            MPI_Status st;
            int rlen = msg_len(t, ri), n = 0;
            LC_MPI(MPI_Recv_c(r, MAXLEN, MPI_BYTE, left, MPI_ANY_TAG, c, &st));
            LC_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
            TCHECK(st.MPI_TAG >> 1 == ri, "thread %d: message %d arrived, want %d", t, st.MPI_TAG >> 1, ri);
            TCHECK(n == rlen, "thread %d message %d: %d bytes, want %d", t, ri, n, rlen);
            int bad = check(r, rlen, left, t, ri);
            TCHECK(bad < 0, "thread %d message %d (%d B) from rank %d: word %d is %d, want %d", t, ri, rlen, left, bad,
                   bad < 0 ? 0 : r[bad], bad < 0 ? 0 : lc_pattern(left * MAXT + t, ri, bad));
            rdone = st.MPI_TAG & 1;
            ri++;
        }
    }
    for (int i = 0; i < NSWAP; i++) swap_one(t, i);
    free(m);
    free(r);
}

/* Thread 0: detach, scribble, attach the other buffer; flushes between. */
static void detacher(void)
{
    int cur = 0, rounds = 0;
    while (atomic_load(&workers_left) > 0) {
        lc_threads_nap_us(300 + 100 * (rounds % 7));
        if (rounds % 5 == 1) LC_MPI(MPI_Buffer_flush());
        if (rounds % 5 == 3) {
            MPI_Request q;
            LC_MPI(MPI_Buffer_iflush(&q));
            LC_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        void *was = NULL;
        int sz = 0;
        LC_MPI(MPI_Buffer_detach(&was, &sz));
        TCHECK(was == bufs[cur] && sz == BUFSZ, "detach gave %p/%d, attached %p/%d", was, sz, (void *)bufs[cur], BUFSZ);
        /* Every message has left it: nothing may read it any more. */
        memset(bufs[cur], 0xee, BUFSZ);
        cur ^= 1;
        LC_MPI(MPI_Buffer_attach(bufs[cur], BUFSZ));
        rounds++;
        atomic_store(&rounds_done, rounds);
    }
    TCHECK(rounds >= MINROUNDS, "%d detach rounds", rounds);
}

static pthread_barrier_t bar;

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t == 0 && hold)
        lc_hold_section("a call of part 1");
    else if (t == 1 && hold)
        part1_other();
    pthread_barrier_wait(&bar);
    if (t == 0 && rank == 0)
        detacher();
    else if (t == 0)
        ; /* one rank detaches: two that detach at once can each wait for a
           * rendezvous message the other's threads, refused by its detach,
           * do not receive — a deadlock of the program, not of MPI */
    else {
        worker(t);
        atomic_fetch_sub(&workers_left, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    if (nthreads < 2) LC_FATAL("threads: at least 2");
    if (argc > 2 && strcmp(argv[2], "nohold") == 0) hold = 0;
    for (int t = 0; t < nthreads; t++) {
        LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
        LC_MPI(MPI_Comm_set_errhandler(own[t], MPI_ERRORS_RETURN));
        LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &swapc[t]));
    }
    bufs[0] = lc_malloc(BUFSZ);
    bufs[1] = lc_malloc(BUFSZ);
    LC_MPI(MPI_Buffer_attach(bufs[0], BUFSZ));
    atomic_store(&workers_left, nthreads - 1);
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    lc_threads_run(nthreads, body);
    pthread_barrier_destroy(&bar);
    void *was;
    int sz;
    LC_MPI(MPI_Buffer_detach(&was, &sz));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < nthreads; t++) {
        LC_MPI(MPI_Comm_free(&own[t]));
        LC_MPI(MPI_Comm_free(&swapc[t]));
    }
    free(bufs[0]);
    free(bufs[1]);
    return lc_threads_finish();
}
