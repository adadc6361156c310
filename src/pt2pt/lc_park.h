/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_park.h — MPI_THREAD_MULTIPLE: waiting threads that park when the
 * process's threads in waits outnumber its cores (docs/architecture.md
 * "Threads", "Parking").
 *
 * A wait at MULTIPLE (lc_progress_idle_wait after a fruitless pass) counts
 * its thread in until the wait ends (lc_park_wait_end).  While the count is
 * at most the process's cores (its affinity mask's, at most its share of
 * the host's: lc_park_init), a fruitless pass yields as before.  Above it one waiting thread is the poller (it keeps
 * making passes and yielding) and the others sleep, each on a futex word
 * of its own (a slot), with the key of what it waits for: the request
 * whose completion ends (or advances) its wait, or NULL for "anything"
 * (Waitany, Probe, ...).  A completion wakes only the parked threads whose
 * key is that request or NULL; a queued message only those keyed NULL;
 * the poller's hand-off and the count falling back to the cores wake all.
 * A thread that parks on another CPU than its poller's moves to the
 * poller's CPU until its wait ends (its own mask back then), so that a
 * process's waiting threads take turns on one core.
 *
 * No lost wake-up (the proof is in lc_park.c): a parker reads its word,
 * stores its key, arms (seq_cst), then a fence, and only then looks at its
 * condition (the wait loop's next check) before it sleeps on the value it
 * read; a notifier publishes the completion, fences, and bumps the word of
 * every armed slot whose key it matches.
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

/* Keys a notifier passes besides a request: every parked thread, or only
 * those waiting for anything (a queued message: MPI_Probe).  No request
 * lives at these addresses. */
#define LC_PARK_ALL ((const void *)1)
#define LC_PARK_QUEUED ((const void *)2)

/* Bit i set while parked slot i may sleep on its word (set by its parker,
 * cleared by the notifier that bumps the word).  Its own line. */
extern LC_HIDDEN _Atomic uint64_t lc_park_armed;
/* This thread is counted among the threads in waits. */
extern _Thread_local unsigned char lc_park_in_wait __attribute__((tls_model("initial-exec")));

/* When MULTIPLE is granted: the cores of this process's affinity mask
 * (read once). */
void lc_park_init(void);

/* A wait's fruitless pass at MULTIPLE: count this thread in, then yield,
 * poll or park (see above) until `key` completes (NULL: until anything
 * does). */
void lc_park_idle(const void *key);

/* The wait is over (called after every loop that may have called
 * lc_park_idle): count out; a poller hands its role over. */
void lc_park_leave(void);
static inline void lc_park_wait_end(void)
{
    if (lc_unlikely(lc_park_in_wait)) lc_park_leave();
}

/* Wake the armed slots that `n` keys match (the calling thread's noted
 * keys when `keys` is NULL; n above LC_PARK_NOTES: every slot). */
LC_NOINLINE void lc_park_wake(const void *const *keys, unsigned n);

/* After something a parked waiter may wait for became visible (a
 * request's completion flag, an unexpected message in its queue): the
 * fence orders that store before the load of `armed`, and pairs with the
 * parker's fence between arming and looking at its condition. */
static inline void lc_park_notify(const void *key)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (lc_unlikely(atomic_load_explicit(&lc_park_armed, memory_order_relaxed))) lc_park_wake(&key, 1);
}

/* Inside a progress pass of this thread (lc_progress_mt): a completion or
 * a queued message only notes its key (up to LC_PARK_NOTES, then the pass
 * wakes every slot), and the pass notifies once at its end
 * (lc_park_pass_end) — one wake per fruitful pass, not one per message of
 * a window.  Outside a pass (a send to self delivered inline,
 * MPI_Cancel) it notifies at once. */
#define LC_PARK_NOTES 128
extern _Thread_local unsigned char lc_park_in_pass __attribute__((tls_model("initial-exec")));
extern _Thread_local unsigned lc_park_noted __attribute__((tls_model("initial-exec")));
extern _Thread_local const void *lc_park_noted_key[LC_PARK_NOTES] __attribute__((tls_model("initial-exec")));
static inline void lc_park_note(const void *key)
{
    if (lc_park_in_pass) {
        unsigned n = lc_park_noted;
        if (lc_likely(n < LC_PARK_NOTES)) lc_park_noted_key[n] = key;
        lc_park_noted = n + 1;
    } else
        lc_park_notify(key);
}

/* The end of the outermost pass: its noted keys, announced. */
static inline void lc_park_pass_end(void)
{
    unsigned n = lc_park_noted;
    if (!n) return;
    lc_park_noted = 0;
    atomic_thread_fence(memory_order_seq_cst);
    if (lc_unlikely(atomic_load_explicit(&lc_park_armed, memory_order_relaxed))) lc_park_wake(NULL, n);
}

#endif
