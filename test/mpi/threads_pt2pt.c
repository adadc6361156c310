/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_pt2pt: MPI_THREAD_MULTIPLE point-to-point.  argv[1] threads per
 * rank (default 4).  Every thread at once:
 *  1. a ring on MPI_COMM_WORLD with its own tag (Isend right, Recv left),
 *     sizes from 8 B to 64 KiB (eager and rendezvous);
 *  2. a ring on its own duplicate of MPI_COMM_WORLD received with
 *     MPI_ANY_SOURCE and MPI_ANY_TAG (the tag says the message number);
 *  3. thread to thread inside the rank on MPI_COMM_SELF: thread t sends to
 *     thread t+1 (tag = receiver), blocking Send and Recv.
 * Every message is checksummed; a wrong byte, source or tag fails. */
#include "lc_test.h"
#include "lc_test_threads.h"

#define NMSG 300
#define MAXT 16

static int rank, size, nthreads;
static MPI_Comm dups[MAXT];


static size_t msg_len(int i)
{
    static const size_t lens[] = { 8, 100, 1024, 9000, 65536 };
    return lens[i % 5] / sizeof(int32_t);
}

static void fill(int32_t *b, size_t n, int src, int msg, int t)
{
    for (size_t k = 0; k < n; k++) b[k] = lc_pattern(src * MAXT + t, msg, (long)k);
}

static int check(const int32_t *b, size_t n, int src, int msg, int t)
{
    for (size_t k = 0; k < n; k++)
        if (b[k] != lc_pattern(src * MAXT + t, msg, (long)k)) return 0;
    return 1;
}

static void ring(int t, MPI_Comm comm, int any)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int32_t *out = lc_malloc(65536), *in = lc_malloc(65536);
    for (int i = 0; i < NMSG; i++) {
        size_t n = msg_len(i + t);
        MPI_Request rq;
        MPI_Status st;
        fill(out, n, rank, i, t);
        int stag = any ? i % 1000 : t;
        LC_MPI(MPI_Isend(out, (int)n, MPI_INT32_T, right, stag, comm, &rq));
        LC_MPI(MPI_Recv(in, 16384, MPI_INT32_T, any ? MPI_ANY_SOURCE : left, any ? MPI_ANY_TAG : t, comm, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT32_T, &cnt);
        TCHECK(st.MPI_SOURCE == left && st.MPI_TAG == stag && cnt == (int)n,
               "thread %d msg %d (%s): source %d tag %d count %d, expected %d %d %zu", t, i,
               any ? "any" : "tagged", st.MPI_SOURCE, st.MPI_TAG, cnt, left, stag, n);
        TCHECK(check(in, n, left, i, t), "thread %d msg %d: payload differs", t, i);
        LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
    free(out);
    free(in);
}

static void self_chain(int t)
{
    int to = (t + 1) % nthreads, from = (t + nthreads - 1) % nthreads;
    int32_t *out = lc_malloc(65536), *in = lc_malloc(65536);
    for (int i = 0; i < NMSG / 3; i++) {
        size_t n = msg_len(i);
        fill(out, n, 0, i, t);
        MPI_Request rq;
        MPI_Status st;
        /* Post the receive first so a blocking rendezvous Send from the
         * previous thread always has a partner. */
        LC_MPI(MPI_Irecv(in, 16384, MPI_INT32_T, 0, t, MPI_COMM_SELF, &rq));
        LC_MPI(MPI_Send(out, (int)n, MPI_INT32_T, 0, to, MPI_COMM_SELF));
        LC_MPI(MPI_Wait(&rq, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT32_T, &cnt);
        TCHECK(cnt == (int)n && check(in, n, 0, i, from), "thread %d self msg %d: count %d (expected %zu) or payload",
               t, i, cnt, n);
    }
    free(out);
    free(in);
}

static void *body(void *p)
{
    int t = (int)(intptr_t)p;
    ring(t, MPI_COMM_WORLD, 0);
    ring(t, dups[t], 1);
    if (nthreads > 1) self_chain(t);
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
    lc_threads_run(nthreads, body);
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&dups[t]));
    return lc_threads_finish();
}
