/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_test_threads.h — what the MPI_THREAD_MULTIPLE test programs share:
 * a failure check callable from any thread, initialisation that insists
 * on MULTIPLE, running a body on T threads, and holding the
 * process-wide section from one thread while others call MPI.  Include after lc_test.h.
 */
#ifndef LC_TEST_THREADS_H
#define LC_TEST_THREADS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Failures seen by any thread; lc_threads_finish adds them to lc_errs. */
static atomic_int lc_thread_errs;

/* CHECK for threads: counts atomically, prints the first 20. */
#define TCHECK(cond, ...)                                                                     \
    do {                                                                                      \
        if (!(cond) && atomic_fetch_add(&lc_thread_errs, 1) < 20) {                           \
            fprintf(stderr, "[rank %d] FAIL line %d: ", lc_world_rank(), __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE; fatal without it. */
static inline void lc_threads_init(int *argc, char ***argv)
{
    int provided;
    LC_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    if (provided != MPI_THREAD_MULTIPLE) LC_FATAL("MPI_THREAD_MULTIPLE not provided (%d)", provided);
}

/* The thread count: argv[1] if given, else def; fatal outside 1..max. */
static inline int lc_threads_count(int argc, char **argv, int def, int max)
{
    int n = argc > 1 ? atoi(argv[1]) : def;
    if (n < 1 || n > max) LC_FATAL("threads: 1..%d", max);
    return n;
}

/* body((void *)t) on threads t = 0..n-1, all joined before it returns. */
static inline void lc_threads_run(int n, void *(*body)(void *))
{
    pthread_t th[64];
    if (n > 64) LC_FATAL("at most 64 threads");
    for (int t = 0; t < n; t++)
        if (pthread_create(&th[t], NULL, body, (void *)(intptr_t)t) != 0) LC_FATAL("pthread_create failed");
    for (int t = 0; t < n; t++) pthread_join(th[t], NULL);
}

/* lc_finish with the threads' failures counted. */
static inline int lc_threads_finish(void)
{
    lc_errs += atomic_load(&lc_thread_errs);
    return lc_finish();
}

/* A nap of `us` microseconds (nanosleep). */
static inline void lc_threads_nap_us(long us)
{
    struct timespec ts = { us / 1000000L, (us % 1000000L) * 1000L };
    nanosleep(&ts, NULL);
}

/* Holding the process-wide section (the tests that show a call runs
 * outside it): a user operation run by MPI_Reduce_local runs inside the
 * section; lc_hold_section holds it there until another thread calls
 * lc_hold_release, or for 10 s, which is a failure saying `what` waited
 * for the section.  The other thread starts once lc_hold_wait_held()
 * returns. */
static atomic_int lc_hold_in, lc_hold_done;
static const char *lc_hold_what;

static inline double lc_threads_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void lc_hold_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    atomic_store(&lc_hold_in, 1);
    double t0 = lc_threads_now();
    while (!atomic_load(&lc_hold_done) && lc_threads_now() - t0 < 10.0) lc_threads_nap_us(200);
    TCHECK(atomic_load(&lc_hold_done), "%s waited 10 s for the section held by another thread", lc_hold_what);
}

static inline void lc_hold_section(const char *what)
{
    MPI_Op op;
    int a = 1, b = 2;
    lc_hold_what = what;
    LC_MPI(MPI_Op_create(lc_hold_op, 1, &op));
    LC_MPI(MPI_Reduce_local(&a, &b, 1, MPI_INT, op));
    LC_MPI(MPI_Op_free(&op));
}

static inline void lc_hold_wait_held(void)
{
    while (!atomic_load(&lc_hold_in)) lc_threads_nap_us(100);
}

static inline void lc_hold_release(void)
{
    atomic_store(&lc_hold_done, 1);
}

/* A buffered send of `len` bytes by one of the four forms (form % 4:
 * Bsend, Bsend_c, Ibsend, Ibsend_c + Wait), retried while the buffer is
 * full or detached (MPI_ERR_BUFFER under MPI_ERRORS_RETURN), with an
 * Iprobe on `c` for progress and a nap between tries; any other error is
 * a failure of thread t's message `msg`. */
static inline void lc_threads_bsend(int form, const void *m, int len, int dest, int tag, MPI_Comm c, int t, int msg)
{
    for (int tries = 0;; tries++) {
        MPI_Request q = MPI_REQUEST_NULL;
        int rc;
        switch (form % 4) {
        case 0:
            rc = MPI_Bsend(m, len, MPI_BYTE, dest, tag, c);
            break;
        case 1:
            rc = MPI_Bsend_c(m, len, MPI_BYTE, dest, tag, c);
            break;
        case 2:
            rc = MPI_Ibsend(m, len, MPI_BYTE, dest, tag, c, &q);
            break;
        default:
            rc = MPI_Ibsend_c(m, len, MPI_BYTE, dest, tag, c, &q);
            break;
        }
        if (rc == MPI_SUCCESS) {
            if (q != MPI_REQUEST_NULL) LC_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
            return;
        }
        int cls;
        MPI_Error_class(rc, &cls);
        TCHECK(cls == MPI_ERR_BUFFER, "thread %d message %d: %s", t, msg, lc_err_str(rc));
        if (cls != MPI_ERR_BUFFER || tries > 200000) return;
        int flag;
        LC_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE)); /* progress */
        lc_threads_nap_us(50);
    }
}

#endif
