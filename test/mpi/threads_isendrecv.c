/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_isendrecv: MPI_THREAD_MULTIPLE, the completions of
 * MPI_Isendrecv and MPI_Isendrecv_replace requests outside the
 * process-wide section (issue 14; src/mpi/lc_mpi_fast.h, lc_fast_pair):
 *  1. Not behind the section: thread 0 holds it (inside a user operation
 *     of MPI_Reduce_local, which runs in it) until thread 1 has completed
 *     pairs with the neighbours by MPI_Wait, MPI_Test, MPI_Waitall,
 *     MPI_Waitany, MPI_Waitsome, MPI_Testall, MPI_Testany, MPI_Testsome
 *     and MPI_Request_free, or 10 s went by (a failure: one of them waited
 *     for the section).  Shared-memory/self peers only.
 *  2. Every thread swaps numbered, checksummed messages with the thread
 *     of the same number on both neighbours, by Isendrecv and
 *     Isendrecv_replace (int and `_c` forms) completed by Wait, Test,
 *     Waitall and Waitany in turn, all threads at once; the statuses name
 *     the right source and tag.
 * Args: threads per rank (2..MAXT); then "nohold" to leave part 1 out
 * (with ofi peers every call takes the section, as it must) and/or
 * "nostatus" not to check the statuses (MPICH 4.0.2 leaves an Isendrecv
 * request's status unset; with "nohold,nostatus" it passes the rest). */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <string.h>
#include <time.h>

#define MAXT 8
#define NSWAP 200
#define LEN 32 /* int32 per message: 128 B */

static int rank, size, right, left, nthreads, hold = 1, statuses = 1;
static MPI_Comm own[MAXT];

static void fill(int32_t *m, int src, int t, int i)
{
    for (int k = 0; k < LEN; k++) m[k] = lc_pattern(src * MAXT + t, i, k);
}

static int check(const int32_t *m, int src, int t, int i)
{
    for (int k = 0; k < LEN; k++)
        if (m[k] != lc_pattern(src * MAXT + t, i, k)) return k;
    return -1;
}

/* Post pair i of thread t: send message i to the right, receive the
 * left's message i (tag i); replace form when `rep` (the message is
 * filled into r first, and r's contents are swapped). */
static void post(int t, int i, int rep, int32_t *s, int32_t *r, MPI_Request *q)
{
    if (rep) {
        fill(r, rank, t, i);
        if (i & 1)
            LC_MPI(MPI_Isendrecv_replace_c(r, LEN, MPI_INT32_T, right, i, left, i, own[t], q));
        else
            LC_MPI(MPI_Isendrecv_replace(r, LEN, MPI_INT32_T, right, i, left, i, own[t], q));
        return;
    }
    fill(s, rank, t, i);
    if (i & 1)
        LC_MPI(MPI_Isendrecv_c(s, LEN, MPI_INT32_T, right, i, r, LEN, MPI_INT32_T, left, i, own[t], q));
    else
        LC_MPI(MPI_Isendrecv(s, LEN, MPI_INT32_T, right, i, r, LEN, MPI_INT32_T, left, i, own[t], q));
}

static void verify(const char *how, int t, int i, const int32_t *r, const MPI_Status *st)
{
    int k = check(r, left, t, i);
    TCHECK(k < 0, "%s: thread %d pair %d from rank %d: word %d wrong", how, t, i, left, k);
    if (statuses && st != MPI_STATUS_IGNORE)
        TCHECK(st->MPI_SOURCE == left && st->MPI_TAG == i, "%s: thread %d pair %d: status source %d tag %d", how, t, i,
               st->MPI_SOURCE, st->MPI_TAG);
}

/* ---- 1: while another thread holds the section ----------------------- */

/* Each completion call in turn on fresh pairs (i counts them). */
static void part1_other(void)
{
    int32_t s[4][LEN], r[4][LEN];
    MPI_Request q[4];
    MPI_Status st[4];
    int i = 0, idx, flag, n, ids[4];
    lc_hold_wait_held();

    post(1, i, 0, s[0], r[0], &q[0]);
    LC_MPI(MPI_Wait(&q[0], &st[0]));
    verify("Wait", 1, i++, r[0], &st[0]);

    post(1, i, 1, s[0], r[0], &q[0]);
    do LC_MPI(MPI_Test(&q[0], &flag, &st[0]));
    while (!flag);
    verify("Test", 1, i++, r[0], &st[0]);

    for (int k = 0; k < 3; k++) post(1, i + k, k == 1, s[k], r[k], &q[k]);
    LC_MPI(MPI_Waitall(3, q, st));
    for (int k = 0; k < 3; k++) verify("Waitall", 1, i + k, r[k], &st[k]);
    i += 3;

    for (int k = 0; k < 2; k++) post(1, i + k, k, s[k], r[k], &q[k]);
    for (int got = 0; got < 2; got++) {
        LC_MPI(MPI_Waitany(2, q, &idx, &st[0]));
        TCHECK(idx == 0 || idx == 1, "Waitany: index %d", idx);
        if (idx == 0 || idx == 1) verify("Waitany", 1, i + idx, r[idx], &st[0]);
    }
    i += 2;

    for (int k = 0; k < 2; k++) post(1, i + k, k, s[k], r[k], &q[k]);
    for (int got = 0; got < 2; got += n) {
        LC_MPI(MPI_Waitsome(2, q, &n, ids, st));
        for (int k = 0; k < n; k++) verify("Waitsome", 1, i + ids[k], r[ids[k]], &st[k]);
    }
    i += 2;

    for (int k = 0; k < 2; k++) post(1, i + k, k, s[k], r[k], &q[k]);
    do LC_MPI(MPI_Testall(2, q, &flag, st));
    while (!flag);
    for (int k = 0; k < 2; k++) verify("Testall", 1, i + k, r[k], &st[k]);
    i += 2;

    for (int k = 0; k < 2; k++) post(1, i + k, k, s[k], r[k], &q[k]);
    for (int got = 0; got < 2;) {
        LC_MPI(MPI_Testany(2, q, &idx, &flag, &st[0]));
        if (flag && idx != MPI_UNDEFINED) {
            verify("Testany", 1, i + idx, r[idx], &st[0]);
            got++;
        }
    }
    i += 2;

    for (int k = 0; k < 2; k++) post(1, i + k, k, s[k], r[k], &q[k]);
    for (int got = 0; got < 2; got += n) {
        LC_MPI(MPI_Testsome(2, q, &n, ids, st));
        for (int k = 0; k < n; k++) verify("Testsome", 1, i + ids[k], r[ids[k]], &st[k]);
    }
    i += 2;

    /* Request_free: Locus waits for both halves before it returns; the
     * received data is checked after a barrier-free handshake below. */
    post(1, i, 0, s[0], r[0], &q[0]);
    LC_MPI(MPI_Request_free(&q[0]));
    lc_hold_release();
    /* The freed pair's message has arrived once the next pair (same
     * sender, same communicator, later) has: non-overtaking. */
    post(1, i + 1, 0, s[1], r[1], &q[1]);
    LC_MPI(MPI_Wait(&q[1], &st[1]));
    verify("Request_free", 1, i, r[0], MPI_STATUS_IGNORE);
    verify("Wait after Request_free", 1, i + 1, r[1], &st[1]);
}

/* ---- 2: every thread at once ----------------------------------------- */

static void part2(int t)
{
    int32_t s[2][LEN], r[2][LEN];
    MPI_Request q[2];
    MPI_Status st[2];
    for (int i = 100; i < 100 + NSWAP; i += 2) {
        int flag, idx;
        post(t, i, (i / 2) & 1, s[0], r[0], &q[0]);
        post(t, i + 1, (i / 4) & 1, s[1], r[1], &q[1]);
        switch ((i / 2) % 4) {
        case 0:
            LC_MPI(MPI_Wait(&q[0], &st[0]));
            LC_MPI(MPI_Wait(&q[1], &st[1]));
            break;
        case 1:
            do LC_MPI(MPI_Test(&q[1], &flag, &st[1]));
            while (!flag);
            do LC_MPI(MPI_Test(&q[0], &flag, &st[0]));
            while (!flag);
            break;
        case 2:
            LC_MPI(MPI_Waitall(2, q, st));
            break;
        default:
            for (int got = 0; got < 2; got++) {
                MPI_Status one;
                LC_MPI(MPI_Waitany(2, q, &idx, &one));
                if (idx == 0 || idx == 1) st[idx] = one;
            }
        }
        verify("part 2", t, i, r[0], &st[0]);
        verify("part 2", t, i + 1, r[1], &st[1]);
    }
}

static pthread_barrier_t bar;

static void *body(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t == 0 && hold)
        lc_hold_section("a completion of an Isendrecv request");
    else if (t == 1 && hold)
        part1_other();
    pthread_barrier_wait(&bar);
    part2(t);
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
    if (argc > 2 && strstr(argv[2], "nohold")) hold = 0;
    if (argc > 2 && strstr(argv[2], "nostatus")) statuses = 0;
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    lc_threads_run(nthreads, body);
    pthread_barrier_destroy(&bar);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&own[t]));
    return lc_threads_finish();
}
