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

#include <pthread.h>
#include <sched.h>

atomic_int lc_thread_multiple;

static pthread_mutex_t lc_thread_cs = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int lc_thread_depth;

void lc_thread_enter(void)
{
    if (lc_thread_depth++ == 0) pthread_mutex_lock(&lc_thread_cs);
}

void lc_thread_leave(void)
{
    if (--lc_thread_depth == 0) pthread_mutex_unlock(&lc_thread_cs);
}

void lc_thread_yield(void)
{
    if (lc_thread_depth == 1) {
        pthread_mutex_unlock(&lc_thread_cs);
        sched_yield();
        pthread_mutex_lock(&lc_thread_cs);
    } else {
        sched_yield();
    }
}

int lc_thread_held(void)
{
    return lc_thread_depth > 0;
}
