/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_rest: MPI_THREAD_MULTIPLE, the point-to-point calls the
 * shared-memory fast path took out of the section in session 18 (issue
 * 14; src/mpi/lc_mpi_fast.h), each family from several threads at once:
 *  1. Waitany / Waitsome / Testany / Testsome: each thread, on its own
 *     communicator, completes a window of sends and receives with one of
 *     them while the other threads post and complete theirs (the one
 *     request pool): every index exactly once, data and status right.
 *  2. Mprobe + Mrecv (and Improbe + Imrecv) with ANY_SOURCE / ANY_TAG on
 *     one shared communicator: every thread of every rank sends to every
 *     rank (itself included); the receiving threads take a fixed quota
 *     each.  Every message must be received exactly once, and the
 *     messages of one sending thread (one tag) in its order as seen by
 *     each receiving thread.
 *  3. Sendrecv and Sendrecv_replace, one tag per thread, shared
 *     communicator; Probe and Iprobe before a Recv on the thread's own
 *     communicator.
 *  4. Ssend / Issend: the send must not complete before the receiver
 *     posts its receive (it posts only after a "go" message sent when the
 *     sender has seen its Issend incomplete for a while); Rsend / Irsend
 *     after the receiver said its receive is posted.
 *  5. Cancel of a receive nothing matches, Request_free of sends in
 *     flight (the receiver checks the data).
 * Arg: threads per rank (<= MAXT). */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <string.h>
#include <time.h>

#define MAXT 8
#define WIN 16
#define ROUNDS 20
#define NMSG 40 /* part 2: messages per (sending thread, destination) */
#define MAXR 8  /* ranks part 2 keeps a table for */

static int rank, size, right, left, nthreads;
static MPI_Comm shared, shared3; /* part 2, part 3: other ranks may still be in part 2 */
static MPI_Comm own[MAXT];

static void nap_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---- 1: Waitany / Waitsome / Testany / Testsome --------------------- */

/* Complete all n requests of r with the thread's own call; done[i] counts
 * how often index i was reported. */
static void complete_all(int t, MPI_Request *r, int n, MPI_Status *st, int *done)
{
    int left_n = n;
    while (left_n > 0) {
        int idx = -1, flag = 0, out = 0, ids[2 * WIN];
        MPI_Status s1, ss[2 * WIN];
        switch (t % 4) {
        case 0:
            LC_MPI(MPI_Waitany(n, r, &idx, &s1));
            flag = 1;
            break;
        case 1:
            LC_MPI(MPI_Waitsome(n, r, &out, ids, ss));
            break;
        case 2:
            LC_MPI(MPI_Testany(n, r, &idx, &flag, &s1));
            break;
        default:
            LC_MPI(MPI_Testsome(n, r, &out, ids, ss));
            break;
        }
        if (t % 2 == 0) { /* any */
            if (!flag) continue;
            TCHECK(idx >= 0 && idx < n, "thread %d: any gave index %d", t, idx);
            if (idx < 0 || idx >= n) return;
            TCHECK(r[idx] == MPI_REQUEST_NULL, "thread %d: index %d not freed", t, idx);
            done[idx]++;
            st[idx] = s1;
            left_n--;
        } else { /* some */
            TCHECK(out != MPI_UNDEFINED && out >= 0 && out <= n, "thread %d: some gave outcount %d", t, out);
            if (out == MPI_UNDEFINED || out < 0 || out > n) return;
            for (int k = 0; k < out; k++) {
                TCHECK(ids[k] >= 0 && ids[k] < n, "thread %d: some gave index %d", t, ids[k]);
                if (ids[k] < 0 || ids[k] >= n) return;
                done[ids[k]]++;
                st[ids[k]] = ss[k];
            }
            left_n -= out;
        }
    }
    /* All null now: the any/some forms say so. */
    int idx = 0, out = 0, ids[1], flag = 0;
    if (t % 2 == 0) {
        LC_MPI(MPI_Testany(n, r, &idx, &flag, MPI_STATUS_IGNORE));
        TCHECK(flag && idx == MPI_UNDEFINED, "thread %d: Testany on nulls gave flag %d index %d", t, flag, idx);
    } else {
        LC_MPI(MPI_Waitsome(n, r, &out, ids, MPI_STATUSES_IGNORE));
        TCHECK(out == MPI_UNDEFINED, "thread %d: Waitsome on nulls gave %d", t, out);
    }
}

static void part1(int t)
{
    MPI_Comm c = own[t];
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Request r[2 * WIN];
        MPI_Status st[2 * WIN];
        int in[WIN][3], out[WIN][3], done[2 * WIN] = { 0 };
        /* receives and sends interleaved, so a completion call meets both kinds */
        for (int k = 0; k < WIN; k++) {
            in[k][0] = in[k][1] = in[k][2] = -1;
            out[k][0] = rank, out[k][1] = t, out[k][2] = round * WIN + k;
            LC_MPI(MPI_Irecv(in[k], 3, MPI_INT, left, k, c, &r[2 * k]));
            LC_MPI(MPI_Isend(out[k], 3, MPI_INT, right, k, c, &r[2 * k + 1]));
        }
        complete_all(t, r, 2 * WIN, st, done);
        for (int i = 0; i < 2 * WIN; i++)
            TCHECK(done[i] == 1, "thread %d round %d: index %d reported %d times", t, round, i, done[i]);
        for (int k = 0; k < WIN; k++) {
            TCHECK(in[k][0] == left && in[k][1] == t && in[k][2] == round * WIN + k,
                   "thread %d round %d recv %d: got {%d,%d,%d}", t, round, k, in[k][0], in[k][1], in[k][2]);
            TCHECK(st[2 * k].MPI_SOURCE == left && st[2 * k].MPI_TAG == k, "thread %d recv %d: status %d/%d", t, k,
                   st[2 * k].MPI_SOURCE, st[2 * k].MPI_TAG);
        }
    }
}

/* ---- 2: Mprobe / Mrecv, ANY_SOURCE, exactly once -------------------- */

static atomic_int got[MAXR][MAXT][NMSG];

static void part2_send(int t, MPI_Request *r)
{
    static int vals[MAXT][MAXR][NMSG][2];
    int n = 0;
    for (int m = 0; m < NMSG; m++)
        for (int d = 0; d < size; d++) {
            int dest = (rank + d) % size;
            vals[t][dest][m][0] = rank * 100000 + t * 1000 + m;
            vals[t][dest][m][1] = ~vals[t][dest][m][0];
            LC_MPI(MPI_Isend(vals[t][dest][m], 2, MPI_INT, dest, t, shared, &r[n++]));
        }
}

static void part2(int t)
{
    static MPI_Request sreq[MAXT][MAXR * NMSG];
    part2_send(t, sreq[t]);
    int last[MAXR][MAXT];
    for (int s = 0; s < MAXR; s++)
        for (int u = 0; u < MAXT; u++) last[s][u] = -1;
    /* Every rank receives size * nthreads * NMSG messages; each receiving
     * thread takes an equal share, so none blocks for ever. */
    int quota = size * NMSG;
    for (int i = 0; i < quota; i++) {
        MPI_Message msg;
        MPI_Status st;
        int v[2] = { -1, -1 }, cnt = -1;
        if (i % 2 == 0) {
            LC_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shared, &msg, &st));
        } else {
            for (int flag = 0; !flag;) LC_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, shared, &flag, &msg, &st));
        }
        MPI_Get_count(&st, MPI_INT, &cnt);
        TCHECK(cnt == 2, "thread %d: probed count %d", t, cnt);
        if (i % 3 == 0) {
            MPI_Request rq;
            LC_MPI(MPI_Imrecv(v, 2, MPI_INT, &msg, &rq));
            LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            LC_MPI(MPI_Mrecv(v, 2, MPI_INT, &msg, MPI_STATUS_IGNORE));
        }
        TCHECK(msg == MPI_MESSAGE_NULL, "thread %d: message handle not nulled", t);
        int src = v[0] / 100000, th = v[0] / 1000 % 100, m = v[0] % 1000;
        if (v[1] != ~v[0] || src != st.MPI_SOURCE || th != st.MPI_TAG || src < 0 || src >= size || th < 0 ||
            th >= nthreads || m < 0 || m >= NMSG) {
            TCHECK(0, "thread %d: bad message {%d,%d} from %d tag %d", t, v[0], v[1], st.MPI_SOURCE, st.MPI_TAG);
            continue;
        }
        int prev = atomic_fetch_add(&got[src][th][m], 1);
        TCHECK(prev == 0, "thread %d: message %d of rank %d thread %d received twice", t, m, src, th);
        /* one sending thread's messages (one tag) keep their order */
        TCHECK(m > last[src][th], "thread %d: message %d of rank %d thread %d after %d", t, m, src, th, last[src][th]);
        last[src][th] = m;
    }
    LC_MPI(MPI_Waitall(size * NMSG, sreq[t], MPI_STATUSES_IGNORE));
}

static void part2_check(void)
{
    for (int s = 0; s < size; s++)
        for (int u = 0; u < nthreads; u++)
            for (int m = 0; m < NMSG; m++)
                TCHECK(atomic_load(&got[s][u][m]) == 1, "message %d of rank %d thread %d received %d times", m, s, u,
                       atomic_load(&got[s][u][m]));
}

/* ---- 3: Sendrecv, Sendrecv_replace, Probe, Iprobe ------------------- */

static void part3(int t)
{
    for (int i = 0; i < 100; i++) {
        int out[2] = { rank, t * 1000 + i }, in[2] = { -1, -1 };
        MPI_Status st;
        LC_MPI(MPI_Sendrecv(out, 2, MPI_INT, right, t, in, 2, MPI_INT, left, t, shared3, &st));
        TCHECK(in[0] == left && in[1] == t * 1000 + i && st.MPI_SOURCE == left && st.MPI_TAG == t,
               "thread %d sendrecv %d: {%d,%d} from %d tag %d", t, i, in[0], in[1], st.MPI_SOURCE, st.MPI_TAG);
        int buf[2] = { rank, -(t * 1000 + i) };
        LC_MPI(MPI_Sendrecv_replace(buf, 2, MPI_INT, left, t, right, t, shared3, &st));
        TCHECK(buf[0] == right && buf[1] == -(t * 1000 + i), "thread %d replace %d: {%d,%d}", t, i, buf[0], buf[1]);
        /* Probe (blocking) then Iprobe, each before its Recv, on the own communicator */
        int v = rank * 1000 + i, w = -1, flag = 0, cnt = -1;
        MPI_Request rq;
        LC_MPI(MPI_Isend(&v, 1, MPI_INT, right, i % 7, own[t], &rq));
        if (i % 2) {
            LC_MPI(MPI_Probe(left, MPI_ANY_TAG, own[t], &st));
        } else {
            while (!flag) LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, own[t], &flag, &st));
        }
        MPI_Get_count(&st, MPI_INT, &cnt);
        TCHECK(st.MPI_SOURCE == left && st.MPI_TAG == i % 7 && cnt == 1, "thread %d probe %d: %d/%d count %d", t, i,
               st.MPI_SOURCE, st.MPI_TAG, cnt);
        LC_MPI(MPI_Recv(&w, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, own[t], MPI_STATUS_IGNORE));
        TCHECK(w == left * 1000 + i, "thread %d probed recv %d: %d", t, i, w);
        LC_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
}

/* ---- 4: Ssend / Issend / Rsend / Irsend ----------------------------- */

enum { TAG_SYNC = 100, TAG_GO = 101, TAG_READY = 102, TAG_POSTED = 103 };

static void part4(int t)
{
    MPI_Comm c = own[t];
    for (int i = 0; i < 6; i++) {
        int v = rank * 1000 + i, w = -1, go = 0, flag = 0;
        MPI_Request sr, rr;
        /* Issend: not complete while the right neighbour has no receive
         * (it posts one only after our go). */
        LC_MPI(MPI_Issend(&v, 1, MPI_INT, right, TAG_SYNC, c, &sr));
        for (int k = 0; k < 10 && !flag; k++) {
            LC_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
            nap_ms(1);
        }
        TCHECK(!flag, "thread %d: Issend %d complete before the receive was posted", t, i);
        LC_MPI(MPI_Send(&go, 1, MPI_INT, right, TAG_GO, c));
        /* our side of the left neighbour's Issend */
        LC_MPI(MPI_Recv(&go, 1, MPI_INT, left, TAG_GO, c, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Recv(&w, 1, MPI_INT, left, TAG_SYNC, c, MPI_STATUS_IGNORE));
        TCHECK(w == left * 1000 + i, "thread %d: Issend %d delivered %d", t, i, w);
        if (!flag) LC_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        /* blocking Ssend, both ways at once through Irecv first */
        LC_MPI(MPI_Irecv(&w, 1, MPI_INT, left, TAG_SYNC, c, &rr));
        LC_MPI(MPI_Ssend(&v, 1, MPI_INT, right, TAG_SYNC, c));
        LC_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        TCHECK(w == left * 1000 + i, "thread %d: Ssend %d delivered %d", t, i, w);
        /* Rsend / Irsend once the receiver said its receive is posted */
        LC_MPI(MPI_Irecv(&w, 1, MPI_INT, left, TAG_READY, c, &rr));
        LC_MPI(MPI_Send(&go, 1, MPI_INT, left, TAG_POSTED, c));
        LC_MPI(MPI_Recv(&go, 1, MPI_INT, right, TAG_POSTED, c, MPI_STATUS_IGNORE));
        if (i % 2) {
            LC_MPI(MPI_Rsend(&v, 1, MPI_INT, right, TAG_READY, c));
        } else {
            LC_MPI(MPI_Irsend(&v, 1, MPI_INT, right, TAG_READY, c, &sr));
            LC_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        }
        LC_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        TCHECK(w == left * 1000 + i, "thread %d: Rsend %d delivered %d", t, i, w);
    }
}

/* ---- 5: Cancel, Request_free ---------------------------------------- */

static void part5(int t)
{
    MPI_Comm c = own[t];
    for (int i = 0; i < 20; i++) {
        int never = -1, cancelled = 0;
        MPI_Request rq;
        MPI_Status st;
        LC_MPI(MPI_Irecv(&never, 1, MPI_INT, left, 999, c, &rq));
        LC_MPI(MPI_Cancel(&rq));
        LC_MPI(MPI_Wait(&rq, &st));
        LC_MPI(MPI_Test_cancelled(&st, &cancelled));
        TCHECK(cancelled && never == -1, "thread %d: receive %d not cancelled (%d, %d)", t, i, cancelled, never);
        /* a send freed in flight: the receiver sees it all the same */
        static int vals[MAXT][20];
        vals[t][i] = rank * 1000 + i;
        LC_MPI(MPI_Isend(&vals[t][i], 1, MPI_INT, right, 7, c, &rq));
        LC_MPI(MPI_Request_free(&rq));
        TCHECK(rq == MPI_REQUEST_NULL, "thread %d: freed request not nulled", t);
        int w = -1;
        LC_MPI(MPI_Recv(&w, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
        TCHECK(w == left * 1000 + i, "thread %d: freed send %d delivered %d", t, i, w);
    }
}

static pthread_barrier_t bar;

static void *body(void *p)
{
    int t = (int)(intptr_t)p;
    part1(t);
    pthread_barrier_wait(&bar);
    part2(t);
    pthread_barrier_wait(&bar);
    part3(t);
    pthread_barrier_wait(&bar);
    part4(t);
    pthread_barrier_wait(&bar);
    part5(t);
    return NULL;
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    if (size > MAXR) LC_FATAL("at most %d ranks", MAXR);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &shared3));
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    lc_threads_run(nthreads, body);
    pthread_barrier_destroy(&bar);
    part2_check();
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < nthreads; t++) LC_MPI(MPI_Comm_free(&own[t]));
    LC_MPI(MPI_Comm_free(&shared));
    LC_MPI(MPI_Comm_free(&shared3));
    return lc_threads_finish();
}
