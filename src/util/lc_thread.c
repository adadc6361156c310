/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_thread.c — the critical section of MPI_THREAD_MULTIPLE (lc_thread.h).
 *
 * A plain mutex plus a per-thread depth makes it recursive: only the
 * outermost enter locks, only the outermost leave unlocks.  The mutex's
 * lock/unlock order every access to the state it guards (acquire on
 * lock, release on unlock); the depth is thread-local and needs none.
 */
#include "util/lc_thread.h"
#include "util/lc_lock.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

atomic_int lc_thread_multiple;
atomic_int lc_thread_sectioned;
atomic_int lc_thread_inside;
int lc_thread_async;
int lc_thread_app_multiple;
unsigned lc_thread_nofast = LC_NOFAST_SINGLE;
int (*lc_thread_on_leave)(void);
void (*lc_thread_after_leave)(void);
_Atomic uint32_t *lc_thread_bell_wanted;

/* lc_lock.h: its address names the thread. */
_Thread_local char lc_lock_tag __attribute__((tls_model("initial-exec")));
_Thread_local unsigned lc_lock_nheld __attribute__((tls_model("initial-exec")));

static pthread_mutex_t lc_thread_cs = PTHREAD_MUTEX_INITIALIZER;
/* initial-exec: every MPI call at MULTIPLE reads it twice, and the
 * default model for a shared library costs a __tls_get_addr call each
 * time (1 % of a two-thread message-rate profile); 4 bytes of the static
 * TLS surplus, which glibc keeps for libraries loaded by dlopen too. */
static _Thread_local int lc_thread_depth __attribute__((tls_model("initial-exec")));

void lc_thread_enter(void)
{
    if (lc_thread_depth++ == 0) {
        /* Counted before locking, so that the progress thread, which
         * checks the count with the lock held, finishes its pass and
         * keeps out while this thread waits for the lock or is inside. */
        if (lc_thread_async) {
            atomic_fetch_add_explicit(&lc_thread_inside, 1, memory_order_relaxed);
            /* Written only when set: the line is the peers' to read. */
            _Atomic uint32_t *w = lc_thread_bell_wanted;
            if (w && atomic_load_explicit(w, memory_order_relaxed)) atomic_store_explicit(w, 0, memory_order_relaxed);
        }
        pthread_mutex_lock(&lc_thread_cs);
    }
}

void lc_thread_leave(void)
{
    if (--lc_thread_depth == 0) {
        if (lc_thread_async) {
            /* Count out first, sequentially consistent: the hook may
             * wake the progress thread, which must then see nobody
             * inside (src/pt2pt/lc_async.c says why no wake-up is lost). */
            atomic_fetch_sub(&lc_thread_inside, 1);
            int wake = lc_thread_on_leave();
            pthread_mutex_unlock(&lc_thread_cs);
            /* The wake-up's system call after the unlock: the woken
             * thread, which may preempt this one at once, finds the
             * section free instead of going to sleep on it. */
            if (wake) lc_thread_after_leave();
            return;
        }
        pthread_mutex_unlock(&lc_thread_cs);
    }
}

void lc_thread_enter_progress(void)
{
    if (lc_thread_depth++ == 0) pthread_mutex_lock(&lc_thread_cs);
}

void lc_thread_leave_progress(void)
{
    if (--lc_thread_depth == 0) pthread_mutex_unlock(&lc_thread_cs);
}

int lc_thread_try_enter(void)
{
    if (lc_thread_depth > 0) {
        lc_thread_depth++;
        return 1;
    }
    if (pthread_mutex_trylock(&lc_thread_cs) != 0) return 0;
    lc_thread_depth = 1;
    return 1;
}

int lc_thread_suspend(void)
{
    int depth = lc_thread_depth;
    if (depth > 0) {
        lc_thread_depth = 0;
        pthread_mutex_unlock(&lc_thread_cs);
    }
    return depth;
}

void lc_thread_resume(int depth)
{
    if (depth > 0) {
        pthread_mutex_lock(&lc_thread_cs);
        lc_thread_depth = depth;
    }
}

/* How many times a waiting thread yields and tries the section again
 * before it sleeps on the mutex (lc_thread_yield). */
#define LC_THREAD_YIELD_TRIES 64

void lc_thread_yield(void)
{
    if (lc_thread_depth == 1) {
        pthread_mutex_unlock(&lc_thread_cs);
        /* Come back by try-lock and yield, not by sleeping on the mutex:
         * a thread that finds the section held finds another thread of
         * this process inside MPI, whose passes drain the rings for this
         * thread's requests too, so it has nothing to do but give the CPU
         * away again.  Sleeping on the mutex instead costs a futex wait
         * here and a futex wake in the holder's every unlock (a waiting
         * holder unlocks once per fruitless pass), and a lock handoff that
         * bounces between the two threads on every pass.  Bounded: after
         * LC_THREAD_YIELD_TRIES a long holder (a large copy, a callback)
         * is waited for on the mutex. */
        for (int i = 0; i < LC_THREAD_YIELD_TRIES; i++) {
            sched_yield();
            if (pthread_mutex_trylock(&lc_thread_cs) == 0) return;
        }
        pthread_mutex_lock(&lc_thread_cs);
    } else {
        sched_yield();
    }
}

int lc_thread_held(void)
{
    return lc_thread_depth > 0;
}

int lc_thread_nesting(void)
{
    return lc_thread_depth;
}
