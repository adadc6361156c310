/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_park.h — MPI_THREAD_MULTIPLE: waiting threads that park when the
 * process's threads in waits outnumber its cores (docs/architecture.md
 * "Threads", "Parking").
 *
 * A wait at MULTIPLE (lc_progress_idle_wait after a fruitless pass) counts
 * its thread in until the wait ends (lc_park_wait_end).  While the count is
 * at most the cores of the process's affinity mask, a fruitless pass
 * yields as before.  Above it one waiting thread is the poller (it keeps
 * making passes and yielding) and the others sleep on a process-private
 * futex word, woken when a request completes or an unexpected message is
 * queued (lc_park_notify, any thread), when the poller's wait ends, or
 * when the count falls back to the cores.
 *
 * No lost wake-up (the proof is in lc_park.c): a parker reads the word,
 * then arms (seq_cst), then a fence, and only then looks at its condition
 * (the wait loop's next check) before it sleeps on the value it read; a
 * notifier publishes the completion, fences, and bumps the word when it
 * finds the parkers armed.
 *
 * Below MULTIPLE none of this is reached: the wait loops call it only
 * after a fruitless pass at MULTIPLE, and lc_park_wait_end is one
 * thread-local load after a wait that idled.
 */
#ifndef LC_PARK_H
#define LC_PARK_H

#include "util/lc_util.h"

#include <stdatomic.h>
#include <stdint.h>

/* 1 while a parked thread may sleep on the word (set by parkers, cleared
 * by the exchange of the notifier that bumps the word).  Its own line. */
extern LC_HIDDEN _Atomic uint32_t lc_park_armed;
/* This thread is counted among the threads in waits. */
extern _Thread_local unsigned char lc_park_in_wait __attribute__((tls_model("initial-exec")));

/* When MULTIPLE is granted: the cores of this process's affinity mask
 * (read once). */
void lc_park_init(void);

/* A wait's fruitless pass at MULTIPLE: count this thread in, then yield,
 * poll or park (see above). */
void lc_park_idle(void);

/* The wait is over (called after every loop that may have called
 * lc_park_idle): count out; a poller hands its role over. */
void lc_park_leave(void);
static inline void lc_park_wait_end(void)
{
    if (lc_unlikely(lc_park_in_wait)) lc_park_leave();
}

/* Wake every parked thread (the armed flag was seen set). */
LC_NOINLINE void lc_park_wake(void);

/* After something a parked waiter may wait for became visible (a
 * request's completion flag, an unexpected message in its queue): the
 * fence orders that store before the load of `armed`, and pairs with the
 * parker's fence between arming and looking at its condition. */
static inline void lc_park_notify(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (lc_unlikely(atomic_load_explicit(&lc_park_armed, memory_order_relaxed))) lc_park_wake();
}

/* Inside a progress pass of this thread (lc_progress_mt): a completion or
 * a queued message only notes itself (lc_park_noted), and the pass
 * notifies once at its end — one wake per fruitful pass, not one per
 * message of a window.  Outside a pass (a send to self delivered inline,
 * MPI_Cancel) it notifies at once. */
extern _Thread_local unsigned char lc_park_in_pass __attribute__((tls_model("initial-exec")));
extern _Thread_local unsigned char lc_park_noted __attribute__((tls_model("initial-exec")));
static inline void lc_park_note(void)
{
    if (lc_park_in_pass)
        lc_park_noted = 1;
    else
        lc_park_notify();
}

#endif
