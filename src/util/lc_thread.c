/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_thread.c — the critical section of MPI_THREAD_MULTIPLE (lc_thread.h).
 *
 * A futex lock plus a per-thread depth makes it recursive: only the
 * outermost enter locks, only the outermost leave unlocks.  The lock's
 * lock/unlock order every access to the state it guards (acquire on
 * lock, release on unlock); the depth is thread-local and needs none.
 */
#include "util/lc_thread.h"
#include "util/lc_lock.h"

#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/* The section's lock, a futex word: 0 free, 1 held, 2 held and a thread
 * may sleep on it (the unlock then wakes one).  glibc's default mutex
 * runs the same protocol behind a dispatch on the mutex's type: 55 of the
 * 8 B round trip's instructions per call with the progress thread
 * (callgrind), ~8 here.  Ordering: the acquiring exchange pairs with the
 * releasing one of the previous holder, so a holder sees everything its
 * predecessors wrote in the section. */
static _Atomic uint32_t lc_thread_cs;

static inline int lc_cs_try(void)
{
    uint32_t free_ = 0;
    return atomic_compare_exchange_strong_explicit(&lc_thread_cs, &free_, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static LC_NOINLINE void lc_cs_lock_slow(void)
{
    /* Marked contended before sleeping; a thread that takes it here takes
     * it as 2, so its unlock wakes the next sleeper (none is forgotten). */
    while (atomic_exchange_explicit(&lc_thread_cs, 2, memory_order_acquire) != 0)
        (void)syscall(SYS_futex, &lc_thread_cs, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

static inline void lc_cs_lock(void)
{
    if (lc_unlikely(!lc_cs_try())) lc_cs_lock_slow();
}

static inline void lc_cs_unlock(void)
{
    if (lc_unlikely(atomic_exchange_explicit(&lc_thread_cs, 0, memory_order_release) == 2))
        (void)syscall(SYS_futex, &lc_thread_cs, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
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
        lc_cs_lock();
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
            lc_cs_unlock();
            /* The wake-up's system call after the unlock: the woken
             * thread, which may preempt this one at once, finds the
             * section free instead of going to sleep on it. */
            if (wake) lc_thread_after_leave();
            return;
        }
        lc_cs_unlock();
    }
}

void lc_thread_enter_progress(void)
{
    if (lc_thread_depth++ == 0) lc_cs_lock();
}

void lc_thread_leave_progress(void)
{
    if (--lc_thread_depth == 0) lc_cs_unlock();
}

int lc_thread_try_enter(void)
{
    if (lc_thread_depth > 0) {
        lc_thread_depth++;
        return 1;
    }
    if (!lc_cs_try()) return 0;
    lc_thread_depth = 1;
    return 1;
}

int lc_thread_suspend(void)
{
    int depth = lc_thread_depth;
    if (depth > 0) {
        lc_thread_depth = 0;
        lc_cs_unlock();
    }
    return depth;
}

void lc_thread_resume(int depth)
{
    if (depth > 0) {
        lc_cs_lock();
        lc_thread_depth = depth;
    }
}

/* How many times a waiting thread yields and tries the section again
 * before it sleeps on the mutex (lc_thread_yield). */
#define LC_THREAD_YIELD_TRIES 64

void lc_thread_yield(void)
{
    if (lc_thread_depth == 1) {
        lc_cs_unlock();
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
            if (lc_cs_try()) return;
        }
        lc_cs_lock();
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
