/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_recv_stack: MPI_THREAD_MULTIPLE blocking receives completed by
 * another thread, many times over.  Locus keeps a blocking MPI_Recv's
 * request on the receiving call's stack (lc_pt2pt_recv): whatever thread
 * completes it must not touch it once its flag is set, since the receiver
 * may return at once and its frame be reused.  Under AddressSanitizer with
 * detect_stack_use_after_return=1 (the testlist's runs set it) such a
 * touch is reported; without it, the checks below see a wrong value or
 * status when a reused frame was written.
 *  1. Self: one thread sends 8 B messages (and every 8th a larger one,
 *     64 KiB to 1 MiB: rendezvous) to its own process while the main thread receives each with
 *     MPI_Recv: the self channel delivers in the sending thread, which
 *     completes the receive when it was posted first.
 *  2. Pairs of ranks ping-pong (the same sizes) with blocking
 *     calls while a second thread of each rank makes progress passes
 *     (MPI_Iprobe on another communicator), which complete the receives
 *     the main thread waits for whenever it gets to the ring first.
 *  3. Truncation (eager and rendezvous) with MPI_ERRORS_RETURN: the
 *     error class, the status and the bytes that fit. */
#include "lc_test.h"
#include "lc_test_threads.h"

#include <stdlib.h>
#include <string.h>

#define BIG (1 << 20)

static int rank, size;
static atomic_int stop;

/* Reuses the stack below the caller: a frame of a returned receive is
 * written over (what a later call would do to it anyway). */
static __attribute__((noinline)) void scribble(void)
{
    volatile char junk[2048];
    for (int i = 0; i < (int)sizeof(junk); i += 64) junk[i] = (char)i;
}

/* The bytes of message `it` of `n` bytes. */
static void fill(unsigned char *b, size_t n, int it)
{
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(it * 7 + i * 13);
}

static int same(const unsigned char *b, size_t n, int it)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(it * 7 + i * 13)) return 0;
    return 1;
}

static size_t msg_size(int it)
{
    static const size_t sizes[] = { 8, 8, 8, 1024, 8, 8, 8, 65536, 8, 8, 8, 1024, 8, 8, 8, 262144 };
    return it % 64 == 63 ? BIG : sizes[it % 16];
}

/* 1: the sending thread of the self part. */
typedef struct {
    MPI_Comm comm;
    int iters;
} self_arg_t;

static void *self_send(void *p)
{
    self_arg_t *a = p;
    unsigned char *b = malloc(BIG);
    for (int it = 0; it < a->iters; it++) {
        size_t n = msg_size(it);
        fill(b, n, it);
        TCHECK(MPI_Send(b, (int)n, MPI_BYTE, 0, it & 0x7fff, a->comm) == MPI_SUCCESS, "self send %d", it);
    }
    free(b);
    return NULL;
}

static void part_self(int iters)
{
    self_arg_t a;
    LC_MPI(MPI_Comm_dup(MPI_COMM_SELF, &a.comm));
    a.iters = iters;
    unsigned char *b = malloc(BIG);
    pthread_t th;
    if (pthread_create(&th, NULL, self_send, &a) != 0) LC_FATAL("pthread_create failed");
    for (int it = 0; it < iters; it++) {
        size_t n = msg_size(it);
        MPI_Status st;
        int count = -1;
        b[0] = b[n - 1] = 0xff;
        int rc = MPI_Recv(b, BIG, MPI_BYTE, it & 1 ? MPI_ANY_SOURCE : 0, it & 0x7fff, a.comm, &st);
        scribble();
        MPI_Get_count(&st, MPI_BYTE, &count);
        TCHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == 0 && st.MPI_TAG == (it & 0x7fff) && count == (int)n &&
                   same(b, n, it),
               "self receive %d: rc %d source %d tag %d count %d (want %zu)", it, rc, st.MPI_SOURCE, st.MPI_TAG,
               count, n);
    }
    pthread_join(th, NULL);
    free(b);
    LC_MPI(MPI_Comm_free(&a.comm));
}

/* 2: the progress thread of a rank in the pair part. */
static void *poll_progress(void *p)
{
    MPI_Comm c = *(MPI_Comm *)p;
    int flag;
    while (!atomic_load(&stop)) TCHECK(MPI_Iprobe(MPI_ANY_SOURCE, 999, c, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag, "iprobe");
    return NULL;
}

static void part_pairs(int iters)
{
    MPI_Comm other;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    int peer = rank ^ 1;
    atomic_store(&stop, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, poll_progress, &other) != 0) LC_FATAL("pthread_create failed");
    unsigned char *b = malloc(BIG);
    if (peer < size) {
        for (int it = 0; it < iters; it++) {
            size_t n = msg_size(it);
            for (int turn = 0; turn < 2; turn++) {
                if ((rank & 1) == turn) {
                    fill(b, n, it);
                    LC_MPI(MPI_Send(b, (int)n, MPI_BYTE, peer, it & 0x7fff, MPI_COMM_WORLD));
                } else {
                    MPI_Status st;
                    int count = -1;
                    int rc = MPI_Recv(b, BIG, MPI_BYTE, it & 2 ? MPI_ANY_SOURCE : peer, it & 0x7fff, MPI_COMM_WORLD,
                                      &st);
                    scribble();
                    MPI_Get_count(&st, MPI_BYTE, &count);
                    TCHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == peer && st.MPI_TAG == (it & 0x7fff) &&
                               count == (int)n && same(b, n, it),
                           "receive %d from %d: rc %d source %d tag %d count %d (want %zu)", it, peer, rc,
                           st.MPI_SOURCE, st.MPI_TAG, count, n);
                }
            }
        }
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    free(b);
    LC_MPI(MPI_Comm_free(&other));
}

/* 3: a message larger than the receive, eager and rendezvous. */
static void part_truncate(void)
{
    MPI_Comm c;
    LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    LC_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int peer = rank ^ 1;
    unsigned char *b = malloc(BIG);
    static const size_t sent[] = { 16, BIG };
    if (peer < size) {
        for (int k = 0; k < 2; k++) {
            size_t n = sent[k], fits = n / 2;
            if (rank & 1) {
                fill(b, n, k);
                LC_MPI(MPI_Send(b, (int)n, MPI_BYTE, peer, 5, c));
            } else {
                MPI_Status st;
                int count = -1, cls = -1;
                memset(b, 0, BIG);
                int rc = MPI_Recv(b, (int)fits, MPI_BYTE, peer, 5, c, &st);
                MPI_Error_class(rc, &cls);
                MPI_Get_count(&st, MPI_BYTE, &count);
                LC_CHECK(cls == MPI_ERR_TRUNCATE, "%zu B into %zu: error class %d, want MPI_ERR_TRUNCATE", n, fits, cls);
                LC_CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 5 && count == (int)fits && same(b, fits, k) &&
                          b[fits] == 0,
                      "%zu B into %zu: source %d tag %d count %d", n, fits, st.MPI_SOURCE, st.MPI_TAG, count);
            }
        }
    }
    free(b);
    LC_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    lc_threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    if (iters < 16) LC_FATAL("iterations: at least 16");
    part_self(iters);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    part_pairs(iters);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    part_truncate();
    return lc_threads_finish();
}
