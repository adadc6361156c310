/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_comms: MPI_THREAD_MULTIPLE, threads on different communicators
 * at once — the shared-memory path's finer locking (issue 14;
 * docs/architecture.md "Threads": per-slot queue lock, per-peer tx lock
 * and rx try-lock, the send pool's cells taken by compare-and-swap).
 * argv[1] threads per rank (default 4).  Thread t of rank r pairs with
 * rank r ^ m(t), m(t) = 1 + t mod (size - 1) when the size is a power of
 * two (else 1): with 4 ranks a rank's threads send to different peers at
 * once, under different tx locks.  Thread t of a pair of ranks:
 *  1. on its own duplicate communicator, a burst of Isends (a window of
 *     W) answered by Irecvs from the partner's thread t, then Waitall;
 *  2. the same received with MPI_ANY_SOURCE / MPI_ANY_TAG;
 *  3. on one communicator shared by all threads, tag = t, blocking
 *     Send / Recv alternated with Test loops.
 * Every message carries (rank, thread, number) and a checksummed
 * payload; it must come in order per source, communicator and tag (MPI's
 * non-overtaking rule) and intact.  Small (eager, in the ring cell) and
 * pooled sizes, so that two threads fill one ring at once and rings are
 * drained by whichever thread holds them. */
#include "lc_test.h"
#include "lc_test_threads.h"

#include <string.h>

#define MAXT 16
#define NMSG 600
#define W 16

static int rank, size, partners[MAXT], nthreads;
static MPI_Comm own[MAXT], shared;

/* Words in message i of thread t: 2 .. 130 (8 B .. 520 B). */
static size_t msg_words(int i, int t) { return 2 + (size_t)((i * 7 + t * 13) % 129); }

static void fill(int32_t *b, size_t n, int src, int t, int i)
{
    b[0] = (src * MAXT + t) << 16 | (i & 0xffff);
    b[1] = i;
    for (size_t k = 2; k < n; k++) b[k] = lc_pattern(src * MAXT + t, i, (long)k);
}

/* The message's number, or -1 when its header or payload is wrong. */
static int check(const int32_t *b, size_t n, int src, int t)
{
    int i = b[1];
    if (n < 2 || b[0] != ((src * MAXT + t) << 16 | (i & 0xffff)) || msg_words(i, t) != n) return -1;
    for (size_t k = 2; k < n; k++)
        if (b[k] != lc_pattern(src * MAXT + t, i, (long)k)) return -1;
    return i;
}

/* Phases 1 and 2: windows of W Irecv + W Isend, Waitall. */
static void window(int t, MPI_Comm comm, int any)
{
    int partner = partners[t];
    int32_t *out = lc_malloc(W * 130 * sizeof(int32_t)), *in = lc_malloc(W * 130 * sizeof(int32_t));
    int expect = 0;
    for (int base = 0; base < NMSG; base += W) {
        MPI_Request rq[2 * W];
        MPI_Status st[2 * W];
        for (int j = 0; j < W; j++)
            LC_MPI(MPI_Irecv(in + j * 130, 130, MPI_INT32_T, any ? MPI_ANY_SOURCE : partner, any ? MPI_ANY_TAG : t,
                             comm, &rq[j]));
        for (int j = 0; j < W; j++) {
            int i = base + j;
            size_t n = msg_words(i, t);
            fill(out + j * 130, n, rank, t, i);
            LC_MPI(MPI_Isend(out + j * 130, (int)n, MPI_INT32_T, partner, any ? i % 1000 : t, comm, &rq[W + j]));
        }
        LC_MPI(MPI_Waitall(2 * W, rq, st));
        for (int j = 0; j < W; j++) {
            int cnt = -1;
            MPI_Get_count(&st[j], MPI_INT32_T, &cnt);
            int i = check(in + j * 130, (size_t)cnt, partner, t);
            TCHECK(i == expect && st[j].MPI_SOURCE == partner && st[j].MPI_TAG == (any ? i % 1000 : t),
                   "thread %d %s: message %d of %d words from %d tag %d, expected message %d", t,
                   any ? "any" : "own", i, cnt, st[j].MPI_SOURCE, st[j].MPI_TAG, expect);
            expect++;
        }
    }
    free(out);
    free(in);
}

/* Phase 3: the shared communicator, tag t; the lower rank of a pair sends first. */
static void pingpong(int t)
{
    int partner = partners[t];
    int32_t out[130], in[130];
    for (int i = 0; i < NMSG / 4; i++) {
        size_t n = msg_words(i, t);
        fill(out, n, rank, t, i);
        MPI_Status st;
        for (int turn = 0; turn < 2; turn++) {
            if ((turn == 0) == (rank < partner)) {
                LC_MPI(MPI_Send(out, (int)n, MPI_INT32_T, partner, t, shared));
            } else if (i % 2) {
                LC_MPI(MPI_Recv(in, 130, MPI_INT32_T, partner, t, shared, &st));
            } else {
                MPI_Request r;
                int done = 0;
                LC_MPI(MPI_Irecv(in, 130, MPI_INT32_T, partner, t, shared, &r));
                while (!done) LC_MPI(MPI_Test(&r, &done, &st));
            }
        }
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT32_T, &cnt);
        TCHECK(check(in, (size_t)cnt, partner, t) == i && st.MPI_TAG == t,
               "thread %d shared: message %d (%d words, tag %d) wrong", t, i, cnt, st.MPI_TAG);
    }
}

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    window(t, own[t], 0);
    window(t, own[t], 1);
    pingpong(t);
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) LC_FATAL("an even number of ranks");
    int pow2 = (size & (size - 1)) == 0;
    for (int t = 0; t < nthreads; t++) partners[t] = rank ^ (pow2 ? 1 + t % (size - 1) : 1);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&own[t]);
    MPI_Comm_free(&shared);
    return lc_threads_finish();
}
