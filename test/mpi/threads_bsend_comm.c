/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_bsend_comm: MPI_THREAD_MULTIPLE, buffered sends through a
 * communicator's and a session's buffer (MPI 4.1 Comm_attach_buffer,
 * Session_attach_buffer) outside the process-wide section (issue 14;
 * src/mpi/lc_mpi_fast.h, lc_mpi_bsend_comm.c).  No process buffer is
 * attached, so a send that used the wrong pool fails (MPI_ERR_BUFFER).
 *  1. Not behind the section: thread 0 holds it (inside a user operation
 *     of MPI_Reduce_local, which runs in it) until thread 1 has done
 *     Bsend, Bsend_c, Ibsend, Ibsend_c on a communicator with its own
 *     buffer and on one made from a session that has a buffer, and
 *     received them, or 10 s went by (a failure: one of them waited for
 *     the section).  Shared-memory/self peers only.
 *  2. Threads 1..T-1 Bsend / Ibsend (int and `_c` forms, 8 B to 12 KiB,
 *     NMSG each) to the thread of the same number on the right-hand rank,
 *     all through the one communicator's buffer, while thread 0 of rank 0
 *     detaches it, scribbles over it and attaches the other of two
 *     buffers, flushes and iflushes it, on a schedule; rank 0's workers
 *     send message i only after round i * MINROUNDS / NMSG, so that the
 *     rounds happen while messages are in flight.  A send that finds
 *     no room or no buffer (MPI_ERR_BUFFER, errors returned) is retried.
 *     Every message is numbered and checksummed: a block another thread's
 *     reservation overlapped, or a buffer detached while a message still
 *     left it, fails the check.
 * Args: threads per rank (2..MAXT); "nohold" to leave part 1 out (with
 * ofi peers every call takes the section, as it must). */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <string.h>
#include <time.h>

#define MAXT 8
#define NMSG 300
#define MINROUNDS 20                              /* detach rounds while rank 0's workers send */
#define MAXLEN 12288                              /* bytes of a message at most */
#define BUFSZ (8 * (MAXLEN + MPI_BSEND_OVERHEAD)) /* each of the two buffers */

static int rank, size, right, left, nthreads, hold = 1;
static MPI_Comm bc, sc; /* the communicator with a buffer; the session's */
static MPI_Session ses;
static atomic_int workers_left, rounds_done;
static char *bufs[2], *sbuf;

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

/* The four forms on c, tags 0..3, to the right. */
static void part1_sends(MPI_Comm c, int32_t s[4][16])
{
    MPI_Request q[2];
    LC_MPI(MPI_Bsend(s[0], 16, MPI_INT32_T, right, 0, c));
    LC_MPI(MPI_Bsend_c(s[1], 16, MPI_INT32_T, right, 1, c));
    LC_MPI(MPI_Ibsend(s[2], 16, MPI_INT32_T, right, 2, c, &q[0]));
    LC_MPI(MPI_Ibsend_c(s[3], 16, MPI_INT32_T, right, 3, c, &q[1]));
    LC_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    LC_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
}

static void part1_other(void)
{
    int32_t s[2][4][16], r[16];
    MPI_Comm cs[2] = { bc, sc };
    lc_hold_wait_held();
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 4; k++) fill(s[c][k], 64, rank, 1, 10 * c + k);
        part1_sends(cs[c], s[c]);
    }
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++) {
            LC_MPI(MPI_Recv(r, 16, MPI_INT32_T, left, k, cs[c], MPI_STATUS_IGNORE));
            TCHECK(check(r, 64, left, 1, 10 * c + k) < 0, "part 1: %s message %d corrupt",
                   c ? "session" : "communicator", k);
        }
    lc_hold_release();
}

/* ---- 2: buffered sends beside the communicator's attach/detach -------- */

static void bsend_one(int t, int i, const int32_t *m, int len)
{
    lc_threads_bsend(i, m, len, right, i * MAXT + t, bc, t, i);
}

static void worker(int t)
{
    int32_t *m = lc_malloc(MAXLEN), *r = lc_malloc(MAXLEN);
    for (int i = 0; i < NMSG; i++) {
        int len = msg_len(t, i), n = 0;
        fill(m, len, rank, t, i);
        while (rank == 0 && atomic_load(&rounds_done) < i * MINROUNDS / NMSG) lc_threads_nap_us(50);
        bsend_one(t, i, m, len);
        memset(m, 0x5a, (size_t)len); /* the buffered copy must not depend on it */
        MPI_Status st;
        LC_MPI(MPI_Recv_c(r, MAXLEN, MPI_BYTE, left, i * MAXT + t, bc, &st));
        LC_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
        TCHECK(n == len, "thread %d message %d: %d bytes, want %d", t, i, n, len);
        int bad = check(r, len, left, t, i);
        TCHECK(bad < 0, "thread %d message %d (%d B) from rank %d: word %d wrong", t, i, len, left, bad);
    }
    free(m);
    free(r);
}

static void detacher(void)
{
    int cur = 0, rounds = 0;
    while (atomic_load(&workers_left) > 0) {
        lc_threads_nap_us(300 + 100 * (rounds % 7));
        if (rounds % 5 == 1) LC_MPI(MPI_Comm_flush_buffer(bc));
        if (rounds % 5 == 3) {
            MPI_Request q;
            LC_MPI(MPI_Comm_iflush_buffer(bc, &q));
            LC_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        }
        void *was = NULL;
        int sz = 0;
        LC_MPI(MPI_Comm_detach_buffer(bc, &was, &sz));
        TCHECK(was == bufs[cur] && sz == BUFSZ, "detach gave %p/%d, attached %p/%d", was, sz, (void *)bufs[cur], BUFSZ);
        memset(bufs[cur], 0xee, BUFSZ); /* every message has left it */
        cur ^= 1;
        LC_MPI(MPI_Comm_attach_buffer(bc, bufs[cur], BUFSZ));
        atomic_store(&rounds_done, ++rounds);
    }
}

static pthread_barrier_t bar;

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t == 0 && hold)
        lc_hold_section("a buffered send on a communicator's or session's buffer");
    else if (t == 1 && hold)
        part1_other();
    pthread_barrier_wait(&bar);
    if (t == 0 && rank == 0)
        detacher();
    else if (t != 0) {
        worker(t);
        atomic_fetch_sub(&workers_left, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Group g;
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    if (nthreads < 2) LC_FATAL("threads: at least 2");
    if (argc > 2 && strcmp(argv[2], "nohold") == 0) hold = 0;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &bc));
    LC_MPI(MPI_Comm_set_errhandler(bc, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
    LC_MPI(MPI_Group_from_session_pset(ses, "mpi://WORLD", &g));
    LC_MPI(MPI_Comm_create_from_group(g, "threads_bsend_comm", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
    LC_MPI(MPI_Group_free(&g));
    bufs[0] = lc_malloc(BUFSZ);
    bufs[1] = lc_malloc(BUFSZ);
    sbuf = lc_malloc(BUFSZ);
    LC_MPI(MPI_Comm_attach_buffer(bc, bufs[0], BUFSZ));
    LC_MPI(MPI_Session_attach_buffer(ses, sbuf, BUFSZ));
    atomic_store(&workers_left, nthreads - 1);
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    lc_threads_run(nthreads, body);
    pthread_barrier_destroy(&bar);
    if (rank == 0)
        TCHECK(atomic_load(&rounds_done) >= MINROUNDS - 1, "%d detach rounds while the workers sent",
               atomic_load(&rounds_done));
    void *was;
    int sz;
    LC_MPI(MPI_Comm_detach_buffer(bc, &was, &sz));
    LC_MPI(MPI_Session_detach_buffer(ses, &was, &sz));
    TCHECK(was == sbuf && sz == BUFSZ, "session detach gave %p/%d", was, sz);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Comm_free(&bc));
    LC_MPI(MPI_Comm_free(&sc));
    LC_MPI(MPI_Session_finalize(&ses));
    free(bufs[0]);
    free(bufs[1]);
    free(sbuf);
    return lc_threads_finish();
}
