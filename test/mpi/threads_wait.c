/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_wait: MPI_THREAD_MULTIPLE waits across threads.
 *  1. A blocking MPI_Recv (and MPI_Probe) in the main thread that only
 *     another thread of the same rank can satisfy, later: the waiting
 *     thread must not stop the other one's progress.
 *  2. One thread posts receives, another completes them with MPI_Waitany
 *     (out of order: a third thread sends them in reverse), on a ring.
 *  3. Each of several threads MPI_Mprobe/MPI_Mrecv's its own tag from the
 *     left neighbour on a shared communicator while others send.
 * MPICH 4.0.2 (ch4:ucx) never wakes a blocking wait for a message to self
 * that another thread sends (its MPI_Test sees it): on MPICH the waits
 * below poll (test/mpi/README.md); Locus gets the blocking calls. */
#include "lc_test.h"
#include "lc_test_threads.h"
#include <time.h>

#define NREQ 64
#define MAXT 8

static int rank, size, right, left;


static int is_mpich;

/* MPI_Wait, or on MPICH a loop of MPI_Test (see above). */
static void wait_req(MPI_Request *rq, MPI_Status *st)
{
    int flag = 0;
    if (!is_mpich) LC_MPI(MPI_Wait(rq, st));
    else
        while (!flag) LC_MPI(MPI_Test(rq, &flag, st));
}

static void nap_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

/* 1: the late sender. */
static void *late_send(void *p)
{
    MPI_Comm c = *(MPI_Comm *)p;
    nap_ms(50);
    int v = 4242;
    LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, 1, c));
    nap_ms(30);
    v = 4343;
    LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, 2, c));
    return NULL;
}

static void part1(void)
{
    MPI_Comm self;
    LC_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self));
    pthread_t th;
    pthread_create(&th, NULL, late_send, &self);
    int v = 0, flag = 0;
    MPI_Status st;
    if (!is_mpich) {
        LC_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, self, &st));
    } else {
        MPI_Request rq;
        LC_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 1, self, &rq));
        wait_req(&rq, &st);
    }
    TCHECK(v == 4242, "recv from another thread of this rank got %d", v);
    if (!is_mpich) LC_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, self, &st));
    else
        while (!flag) LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, self, &flag, &st));
    TCHECK(st.MPI_TAG == 2, "probe saw tag %d, expected 2", st.MPI_TAG);
    LC_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 2, self, &st));
    TCHECK(v == 4343, "second recv got %d", v);
    pthread_join(th, NULL);
    LC_MPI(MPI_Comm_free(&self));
}

/* 2: poster, waiter, sender. */
static MPI_Request reqs[NREQ];
static int bufs[NREQ];
static atomic_int posted;
static MPI_Comm c2;

static void *poster(void *p)
{
    (void)p;
    for (int k = 0; k < NREQ; k++) LC_MPI(MPI_Irecv(&bufs[k], 1, MPI_INT, left, k, c2, &reqs[k]));
    /* release: the waiter reads reqs[] after it sees the flag */
    atomic_store_explicit(&posted, 1, memory_order_release);
    return NULL;
}

static void *waiter(void *p)
{
    (void)p;
    while (!atomic_load_explicit(&posted, memory_order_acquire)) nap_ms(1);
    int seen[NREQ] = { 0 };
    for (int done = 0; done < NREQ; done++) {
        int idx = -1;
        MPI_Status st;
        if (!is_mpich) LC_MPI(MPI_Waitany(NREQ, reqs, &idx, &st));
        else
            for (int flag = 0; !flag;) LC_MPI(MPI_Testany(NREQ, reqs, &idx, &flag, &st));
        if (idx < 0 || idx >= NREQ) {
            TCHECK(0, "Waitany index %d", idx);
            break;
        }
        TCHECK(!seen[idx]++, "Waitany returned index %d twice", idx);
        TCHECK(bufs[idx] == left * 1000 + idx && st.MPI_TAG == idx && st.MPI_SOURCE == left,
               "request %d: value %d tag %d source %d", idx, bufs[idx], st.MPI_TAG, st.MPI_SOURCE);
    }
    int idx = 0;
    LC_MPI(MPI_Waitany(NREQ, reqs, &idx, MPI_STATUS_IGNORE));
    TCHECK(idx == MPI_UNDEFINED, "Waitany on all-null requests gave %d", idx);
    return NULL;
}

static void *sender(void *p)
{
    (void)p;
    int vals[NREQ];
    MPI_Request rq[NREQ];
    for (int k = NREQ - 1; k >= 0; k--) {
        vals[k] = rank * 1000 + k;
        LC_MPI(MPI_Isend(&vals[k], 1, MPI_INT, right, k, c2, &rq[k]));
        if (k % 8 == 0) nap_ms(1);
    }
    for (int k = 0; k < NREQ; k++) wait_req(&rq[k], MPI_STATUS_IGNORE);
    return NULL;
}

static void part2(void)
{
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
    pthread_t th[3];
    pthread_create(&th[0], NULL, waiter, NULL);
    pthread_create(&th[1], NULL, sender, NULL);
    pthread_create(&th[2], NULL, poster, NULL);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    LC_MPI(MPI_Comm_free(&c2));
}

/* 3: matched probes, one tag per thread, on one communicator. */
static MPI_Comm c3;
static int nthreads;

static void *mprober(void *p)
{
    int t = (int)(intptr_t)p;
    for (int i = 0; i < 50; i++) {
        int out[2] = { rank, i * 10 + t }, in[2] = { -1, -1 };
        MPI_Request rq;
        LC_MPI(MPI_Isend(out, 2, MPI_INT, right, t, c3, &rq));
        MPI_Message msg;
        MPI_Status st;
        if (!is_mpich) LC_MPI(MPI_Mprobe(left, t, c3, &msg, &st));
        else
            for (int flag = 0; !flag;) LC_MPI(MPI_Improbe(left, t, c3, &flag, &msg, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        TCHECK(cnt == 2 && st.MPI_TAG == t, "thread %d: probed count %d tag %d", t, cnt, st.MPI_TAG);
        LC_MPI(MPI_Mrecv(in, 2, MPI_INT, &msg, &st));
        TCHECK(in[0] == left && in[1] == i * 10 + t, "thread %d msg %d: got {%d,%d}", t, i, in[0], in[1]);
        wait_req(&rq, MPI_STATUS_IGNORE);
    }
    return NULL;
}

static void part3(void)
{
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c3));
    lc_threads_run(nthreads, mprober);
    LC_MPI(MPI_Comm_free(&c3));
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    is_mpich = lc_library_is_mpich();
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    nthreads = lc_threads_count(argc, argv, 4, MAXT);
    part1();
    part2();
    part3();
    return lc_threads_finish();
}
