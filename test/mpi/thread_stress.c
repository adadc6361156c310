/* SPDX-License-Identifier: BSD-3-Clause */
/* thread_stress: MPI_THREAD_MULTIPLE under load.  argv[1] threads per rank
 * (default 4), argv[2] "stress" for at least 10^5 messages in the job
 * (else a short run for CI).  Every thread, each iteration:
 *  A. its own duplicate of MPI_COMM_WORLD: W messages to every other rank
 *     (three tags), all received with MPI_ANY_SOURCE + MPI_ANY_TAG;
 *  B. the shared communicator: 2 messages to the right neighbour with tag t,
 *     received by MPI_Probe+MPI_Recv and by MPI_Mprobe+MPI_Mrecv; one
 *     message to every other rank with tag 100+t, received with
 *     MPI_ANY_SOURCE by MPI_Mprobe or an MPI_Improbe loop;
 *  C. the shared communicator, tag 200+t: K Isend/Irecv pairs that the
 *     NEXT thread of the rank completes (receives by MPI_Waitany, sends by
 *     MPI_Testsome);
 *  D. an MPI_Allreduce on its own duplicate.
 * Sizes run from 0 B past both eager limits (8000 B shm, 64 KiB ofi).
 * Each stream (comm, source, tag class) is numbered by the receiver: the
 * n-th message must have the size, tag and bytes the sender gave its n-th
 * message, so a lost, doubled, reordered or corrupt message fails; the
 * totals are compared at the end and nothing may be left to receive.
 * Deadlock freedom: in every phase a thread posts all its sends before it
 * blocks, so the earliest (iteration, phase) any thread waits in only
 * needs sends that are already posted. */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <sched.h>

#define MAXT 8
#define MAXP 8
#define W 4
#define K 4
#define MAXLEN 70000
#define STRESS_TOTAL 100000L

static const int lens[] = { 0, 1, 8, 64, 1000, 7900, 8001, 20000, 66000, 70000 };
#define NLENS ((int)(sizeof lens / sizeof lens[0]))

static int rank, size, nthreads, iters;
static MPI_Comm dups[MAXT], shared;
static pthread_barrier_t tbar;
static atomic_long nrecv;

/* Phase C: requests and buffers one thread posts and the next completes;
 * [iteration parity] so a thread never reposts a slot still being waited. */
static MPI_Request c_rreq[2][MAXT][K], c_sreq[2][MAXT][K];
static unsigned char *c_rbuf[2][MAXT][K], *c_sbuf[2][MAXT][K];

static int len_of(long seq, int src) { return lens[(seq + src) % NLENS]; }
static int seed_of(int src, int t, int phase) { return (src * MAXT + t) * 4 + phase; }

static void fill(unsigned char *b, int n, int seed, long seq)
{
    for (int k = 0; k < n; k++) b[k] = (unsigned char)(lc_pattern(seed, (int)seq, k) >> 3);
}

static int same(const unsigned char *b, int n, int seed, long seq)
{
    for (int k = 0; k < n; k++)
        if (b[k] != (unsigned char)(lc_pattern(seed, (int)seq, k) >> 3)) return 0;
    return 1;
}

/* One received message against what stream position seq should hold. */
static void check_msg(const char *what, int t, const unsigned char *buf, const MPI_Status *st, int src, int tag,
                      int seed, long seq)
{
    int cnt = -1, n = len_of(seq, src);
    MPI_Get_count(st, MPI_BYTE, &cnt);
    TCHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && cnt == n,
           "%s thread %d msg %ld: source %d tag %d count %d, expected %d %d %d", what, t, seq, st->MPI_SOURCE,
           st->MPI_TAG, cnt, src, tag, n);
    if (cnt == n) TCHECK(same(buf, n, seed, seq), "%s thread %d msg %ld from %d: payload differs", what, t, seq, src);
    atomic_fetch_add(&nrecv, 1);
}

struct tstate {
    int t;
    unsigned char *sbuf[W * MAXP + MAXP + 2], *rbuf;
    long a_sseq[MAXP], a_rseq[MAXP]; /* A: per peer */
    long b_sseq, b_rseq;             /* B: to right / from left, tag t */
    long m_sseq[MAXP], m_rseq[MAXP]; /* B: tag 100+t, per peer */
};

static void phase_a(struct tstate *s)
{
    int t = s->t, n = 0;
    MPI_Request rq[W * MAXP];
    for (int d = 0; d < size; d++) {
        if (d == rank) continue;
        for (int w = 0; w < W; w++) {
            long j = s->a_sseq[d]++;
            fill(s->sbuf[n], len_of(j, rank), seed_of(rank, t, 0), j);
            LC_MPI(MPI_Isend(s->sbuf[n], len_of(j, rank), MPI_BYTE, d, (int)(j % 3), dups[t], &rq[n]));
            n++;
        }
    }
    for (int k = 0; k < n; k++) {
        MPI_Status st;
        LC_MPI(MPI_Recv(s->rbuf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, dups[t], &st));
        int src = st.MPI_SOURCE;
        if (src < 0 || src >= size || src == rank) {
            TCHECK(0, "A thread %d: source %d", t, src);
            continue;
        }
        long j = s->a_rseq[src]++;
        check_msg("A", t, s->rbuf, &st, src, (int)(j % 3), seed_of(src, t, 0), j);
    }
    LC_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
}

static void phase_b(struct tstate *s)
{
    int t = s->t, n = 0, right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq[MAXP + 2];
    for (int b = 0; b < 2; b++) {
        long j = s->b_sseq++;
        fill(s->sbuf[n], len_of(j, rank), seed_of(rank, t, 1), j);
        LC_MPI(MPI_Isend(s->sbuf[n], len_of(j, rank), MPI_BYTE, right, t, shared, &rq[n]));
        n++;
    }
    for (int d = 0; d < size; d++) {
        if (d == rank) continue;
        long j = s->m_sseq[d]++;
        fill(s->sbuf[n], len_of(j, rank), seed_of(rank, t, 2), j);
        LC_MPI(MPI_Isend(s->sbuf[n], len_of(j, rank), MPI_BYTE, d, 100 + t, shared, &rq[n]));
        n++;
    }
    for (int b = 0; b < 2; b++) {
        MPI_Status st;
        int cnt = 0;
        long j = s->b_rseq++;
        if (b == 0) {
            /* Probe then Recv is safe here: only this thread takes tag t
             * from left on the shared communicator. */
            LC_MPI(MPI_Probe(left, t, shared, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            TCHECK(cnt == len_of(j, left), "B probe thread %d msg %ld: count %d", t, j, cnt);
            LC_MPI(MPI_Recv(s->rbuf, MAXLEN, MPI_BYTE, left, t, shared, &st));
        } else {
            MPI_Message m;
            LC_MPI(MPI_Mprobe(left, t, shared, &m, &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            TCHECK(cnt == len_of(j, left), "B mprobe thread %d msg %ld: count %d", t, j, cnt);
            LC_MPI(MPI_Mrecv(s->rbuf, cnt, MPI_BYTE, &m, &st));
        }
        check_msg("B", t, s->rbuf, &st, left, t, seed_of(left, t, 1), j);
    }
    for (int k = 0; k < size - 1; k++) {
        MPI_Status st;
        MPI_Message m;
        int cnt = 0, flag = 0;
        if (k % 2 == 0) {
            LC_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 100 + t, shared, &m, &st));
        } else {
            for (;;) {
                LC_MPI(MPI_Improbe(MPI_ANY_SOURCE, 100 + t, shared, &flag, &m, &st));
                if (flag) break;
                sched_yield();
            }
        }
        int src = st.MPI_SOURCE;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (src < 0 || src >= size || src == rank || cnt < 0 || cnt > MAXLEN) {
            TCHECK(0, "B any thread %d: source %d count %d", t, src, cnt);
            LC_MPI(MPI_Mrecv(s->rbuf, MAXLEN, MPI_BYTE, &m, &st));
            continue;
        }
        LC_MPI(MPI_Mrecv(s->rbuf, cnt, MPI_BYTE, &m, &st));
        long j = s->m_rseq[src]++;
        check_msg("B any", t, s->rbuf, &st, src, 100 + t, seed_of(src, t, 2), j);
    }
    LC_MPI(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
}

static void phase_c(struct tstate *s, int it)
{
    int t = s->t, p = it % 2, right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int k = 0; k < K; k++) {
        long j = (long)it * K + k;
        fill(c_sbuf[p][t][k], len_of(j, rank), seed_of(rank, t, 3), j);
        LC_MPI(MPI_Isend(c_sbuf[p][t][k], len_of(j, rank), MPI_BYTE, right, 200 + t, shared, &c_sreq[p][t][k]));
    }
    for (int k = 0; k < K; k++)
        LC_MPI(MPI_Irecv(c_rbuf[p][t][k], MAXLEN, MPI_BYTE, left, 200 + t, shared, &c_rreq[p][t][k]));
    pthread_barrier_wait(&tbar);
    /* Complete thread u's requests.  Receives with one source and tag
     * match in posting order: receive k holds message it*K+k. */
    int u = (t + 1) % nthreads, seen = 0;
    for (int k = 0; k < K; k++) {
        int idx = -1;
        MPI_Status st;
        LC_MPI(MPI_Waitany(K, c_rreq[p][u], &idx, &st));
        if (idx < 0 || idx >= K || (seen & (1 << idx))) {
            TCHECK(0, "C thread %d: Waitany index %d", t, idx);
            continue;
        }
        seen |= 1 << idx;
        long j = (long)it * K + idx;
        check_msg("C", u, c_rbuf[p][u][idx], &st, left, 200 + u, seed_of(left, u, 3), j);
    }
    int done = 0, sdone = 0;
    while (done < K) {
        int outc = 0, idx[K];
        LC_MPI(MPI_Testsome(K, c_sreq[p][u], &outc, idx, MPI_STATUSES_IGNORE));
        if (outc == MPI_UNDEFINED) break;
        for (int k = 0; k < outc; k++) {
            TCHECK(idx[k] >= 0 && idx[k] < K && !(sdone & (1 << idx[k])), "C thread %d: Testsome index %d", t,
                   idx[k]);
            if (idx[k] >= 0 && idx[k] < K) sdone |= 1 << idx[k];
        }
        done += outc;
        if (outc == 0) sched_yield();
    }
    TCHECK(done == K, "C thread %d: Testsome completed %d sends of %d", t, done, K);
}

static void phase_d(struct tstate *s, int it)
{
    long v = rank * 1000L + it * 7L + s->t, sum = -1;
    LC_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, dups[s->t]));
    long want = 1000L * size * (size - 1) / 2 + (long)size * (it * 7L + s->t);
    TCHECK(sum == want, "D thread %d iteration %d: allreduce %ld, expected %ld", s->t, it, sum, want);
}

static void *body(void *p)
{
    struct tstate *s = calloc(1, sizeof *s);
    if (!s) LC_FATAL("out of memory");
    s->t = (int)(intptr_t)p;
    for (int i = 0; i < W * MAXP + MAXP + 2; i++) s->sbuf[i] = lc_malloc(MAXLEN);
    s->rbuf = lc_malloc(MAXLEN);
    for (int it = 0; it < iters; it++) {
        phase_a(s);
        phase_b(s);
        phase_c(s, it);
        phase_d(s, it);
    }
    for (int i = 0; i < W * MAXP + MAXP + 2; i++) free(s->sbuf[i]);
    free(s->rbuf);
    free(s);
    return NULL;
}

/* Messages one thread of one rank receives per iteration. */
static long per_iter(void) { return W * (size - 1) + 2 + (size - 1) + K; }

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    if (size < 2 || size > MAXP) LC_FATAL("thread_stress: 2..%d ranks", MAXP);
    int stress = argc > 2 && strcmp(argv[2], "stress") == 0;
    long job_per_iter = per_iter() * nthreads * size;
    iters = stress ? (int)((STRESS_TOTAL + job_per_iter - 1) / job_per_iter) : 30;
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < nthreads; t++)
            for (int k = 0; k < K; k++) {
                c_rbuf[p][t][k] = lc_malloc(MAXLEN);
                c_sbuf[p][t][k] = lc_malloc(MAXLEN);
            }
    pthread_barrier_init(&tbar, NULL, (unsigned)nthreads);
    double t0 = MPI_Wtime();
    lc_threads_run(nthreads, body);
    double t1 = MPI_Wtime();
    pthread_barrier_destroy(&tbar);

    long mine = atomic_load(&nrecv), total = 0;
    LC_MPI(MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    LC_CHECK(mine == per_iter() * nthreads * iters, "received %ld messages, expected %ld", mine,
             per_iter() * nthreads * iters);
    if (stress) LC_CHECK(total >= STRESS_TOTAL, "only %ld messages in the job", total);
    /* Nothing may be left over (a message delivered twice). */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int c = 0; c <= nthreads; c++) {
        int flag = 0;
        MPI_Status st;
        LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c < nthreads ? dups[c] : shared, &flag, &st));
        LC_CHECK(!flag, "communicator %d: a message left over (source %d tag %d)", c, st.MPI_SOURCE, st.MPI_TAG);
    }
    if (rank == 0) printf("thread_stress: %d ranks x %d threads, %d iterations, %ld messages, %.2f s\n", size,
                          nthreads, iters, total, t1 - t0);
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < nthreads; t++)
            for (int k = 0; k < K; k++) {
                free(c_rbuf[p][t][k]);
                free(c_sbuf[p][t][k]);
            }
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&dups[t]));
    LC_MPI(MPI_Comm_free(&shared));
    return lc_threads_finish();
}
