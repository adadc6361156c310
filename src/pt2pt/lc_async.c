/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_async.c — the asynchronous progress thread (LOCUS_ASYNC_PROGRESS=1).
 *
 * One thread per process runs progress passes while operations are in
 * flight and no application thread is inside MPI, so a nonblocking
 * operation advances while the application computes.  It is just another
 * thread in MPI: every pass runs inside the critical section of
 * src/util/lc_thread.c (taken per pass, released between passes), which
 * is why the library runs with the section on whatever thread level the
 * application asked for.
 *
 * States (lc_async_state, read and written only inside the section):
 *   RUNNING  making passes;
 *   PARKED   nothing pending (lc_progress_pending() == 0) or an
 *            application thread is inside MPI (it drives progress
 *            itself, and the section is its): sleeps on the condition
 *            variable until an application thread's outermost leave
 *            finds work pending (lc_async_on_leave), or stop;
 *   NAPPING  work pending but passes find nothing (waiting for a peer):
 *            a timed sleep, 20 us doubling to 1 ms; not woken by leaves
 *            (an application calling MPI_Test in a loop would otherwise
 *            pay a wake-up per call), only by its timeout or stop.
 * Before napping, fruitless passes back off: a few spins (unless ranks
 * outnumber cores), then sched_yield, so a full machine keeps its cores
 * for the application.
 *
 * No wake-up is lost: whatever makes work runnable for the thread —
 * work becoming pending, or the last application thread leaving MPI —
 * happens inside an MPI call, whose outermost leave runs the hook with
 * the section held; the thread decides to park with the section held and
 * releases it atomically in pthread_cond_wait.
 */
#include "pt2pt/lc_async.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

enum { LC_ASYNC_RUNNING, LC_ASYNC_PARKED, LC_ASYNC_NAPPING };

/* Fruitless passes before yielding, and before napping. */
#define LC_ASYNC_SPINS 64
#define LC_ASYNC_YIELDS 256
#define LC_ASYNC_NAP_MIN_NS 20000L
#define LC_ASYNC_NAP_MAX_NS 1000000L

static pthread_t lc_async_thread;
static pthread_cond_t lc_async_cv;
static int lc_async_running; /* the thread exists (the caller's side only) */
static int lc_async_state;   /* inside the section */
static int lc_async_quit;    /* inside the section */

/* An application thread's outermost leave, section held. */
static void lc_async_on_leave(void)
{
    if (lc_async_state == LC_ASYNC_PARKED && lc_progress_pending()) {
        lc_async_state = LC_ASYNC_RUNNING; /* one signal per sleep */
        pthread_cond_signal(&lc_async_cv);
    }
}

static void lc_async_nap(long ns)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    lc_async_state = LC_ASYNC_NAPPING;
    lc_thread_cond_wait(&lc_async_cv, &t);
    lc_async_state = LC_ASYNC_RUNNING;
}

static void *lc_async_main(void *arg)
{
    (void)arg;
    unsigned idle = 0; /* fruitless passes in a row */
    long nap = LC_ASYNC_NAP_MIN_NS;
    int spins = lc_world.yield_when_idle ? 0 : LC_ASYNC_SPINS;
    lc_thread_enter_progress();
    while (!lc_async_quit) {
        if (atomic_load_explicit(&lc_thread_inside, memory_order_relaxed) > 0 || !lc_progress_pending()) {
            lc_async_state = LC_ASYNC_PARKED;
            lc_thread_cond_wait(&lc_async_cv, NULL);
            lc_async_state = LC_ASYNC_RUNNING;
            idle = 0;
            nap = LC_ASYNC_NAP_MIN_NS;
            continue;
        }
        if (lc_progress() > 0) {
            idle = 0;
            nap = LC_ASYNC_NAP_MIN_NS;
        } else if (++idle > (unsigned)(spins + LC_ASYNC_YIELDS)) {
            lc_async_nap(nap); /* releases the section while it sleeps */
            if (nap < LC_ASYNC_NAP_MAX_NS) nap = nap * 2 < LC_ASYNC_NAP_MAX_NS ? nap * 2 : LC_ASYNC_NAP_MAX_NS;
            continue;
        }
        /* Between passes the section is free for the application. */
        lc_thread_leave_progress();
        if (idle == 0 || idle <= (unsigned)spins)
            lc_cpu_relax();
        else
            sched_yield();
        lc_thread_enter_progress();
    }
    lc_thread_leave_progress();
    return NULL;
}

int lc_async_start(void)
{
    if (!lc_params.async_progress || lc_async_running) return lc_async_running;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&lc_async_cv, &ca);
    pthread_condattr_destroy(&ca);
    lc_async_quit = 0;
    lc_async_state = LC_ASYNC_RUNNING;
    /* Before the thread exists and before MPI_Init returns: from here
     * every call of the application takes the section and counts itself
     * in lc_thread_inside (pthread_create orders these for the thread). */
    lc_thread_on_leave = lc_async_on_leave;
    lc_thread_async = 1;
    atomic_store_explicit(&lc_thread_multiple, 1, memory_order_relaxed);
    int rc = pthread_create(&lc_async_thread, NULL, lc_async_main, NULL);
    if (rc != 0) {
        lc_log_warn("LOCUS_ASYNC_PROGRESS: cannot start the progress thread (%s); running without it",
                    strerror(rc));
        return 0;
    }
    lc_async_running = 1;
    return 1;
}

void lc_async_stop(void)
{
    if (!lc_async_running) return;
    int held = lc_thread_held();
    if (!held) lc_thread_enter_progress();
    lc_async_quit = 1;
    pthread_cond_signal(&lc_async_cv);
    int depth = lc_thread_suspend(); /* the thread needs the section to see the flag */
    pthread_join(lc_async_thread, NULL);
    lc_thread_resume(depth);
    if (!held) lc_thread_leave_progress();
    lc_async_running = 0;
    pthread_cond_destroy(&lc_async_cv);
}
