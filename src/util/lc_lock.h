/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_lock.h — the small locks of MPI_THREAD_MULTIPLE's finer locking:
 * a matching queue pair's, a shared-memory peer's send side and receive
 * ring (docs/architecture.md "Threads").  Taken only at MULTIPLE (the
 * callers test lc_thread_locking() once); below it they cost nothing.
 *
 * Recursive, by owner: a thread that holds one may take it again (a
 * request's completion inside a send may run a callback that sends to the
 * same peer; a wait inside a callback polls the ring being drained), as
 * the one section of lc_thread.c is.  The critical sections are short (a
 * queue operation, one packet into a ring, a batch of packets out), so a
 * waiter spins a little, then yields the CPU: on an oversubscribed node
 * the holder may be preempted, and spinning would only keep it off.
 *
 * Ordering: the acquiring compare-and-swap pairs with the releasing store
 * of the previous owner, so a holder sees everything its predecessors
 * wrote under the lock.  `depth` is written by the owner only.
 */
#ifndef LC_LOCK_H
#define LC_LOCK_H

#include "util/lc_util.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct lc_lock {
    atomic_uintptr_t owner; /* 0, or the holder's lc_lock_self() */
    unsigned depth;         /* the owner's nesting */
} lc_lock_t;

/* A per-thread address that names the thread (lc_thread.c). */
extern _Thread_local char lc_lock_tag __attribute__((tls_model("initial-exec")));
static inline uintptr_t lc_lock_self(void)
{
    return (uintptr_t)&lc_lock_tag;
}
/* How many of these locks this thread holds (outermost takes): a thread
 * that holds any must not run user code or wait for the section's
 * holder's callbacks — a completion's callbacks are deferred then
 * (lc_request.c, lc_comm.c). */
extern _Thread_local unsigned lc_lock_nheld __attribute__((tls_model("initial-exec")));

/* Take it if free or already ours: 1, else 0 (never waits). */
static inline int lc_lock_try(lc_lock_t *l)
{
    uintptr_t me = lc_lock_self(), seen = 0;
    /* The free lock first: it is the common case, and a failed exchange
     * hands back the owner it saw, so the recursive case needs no load of
     * its own (one look at the owner word instead of a load and then the
     * exchange; callgrind: 2-3 instructions fewer per take). */
    if (lc_likely(atomic_compare_exchange_strong_explicit(&l->owner, &seen, me, memory_order_acquire,
                                                          memory_order_relaxed))) {
        l->depth = 1;
        lc_lock_nheld++;
        return 1;
    }
    /* Only this thread ever stores `me` there, so seeing it (relaxed, from
     * the failed exchange) means this thread holds the lock. */
    if (seen == me) {
        l->depth++;
        return 1;
    }
    return 0;
}

/* Spins before a waiter yields the CPU to the (perhaps preempted) holder. */
#define LC_LOCK_SPINS 64

static inline void lc_lock_acquire(lc_lock_t *l)
{
    if (lc_likely(lc_lock_try(l))) return;
    for (unsigned i = 0;; i++) {
        if (i < LC_LOCK_SPINS)
            lc_cpu_relax();
        else
            sched_yield();
        if (atomic_load_explicit(&l->owner, memory_order_relaxed) == 0 && lc_lock_try(l)) return;
    }
}

static inline void lc_lock_release(lc_lock_t *l)
{
    if (--l->depth == 0) {
        lc_lock_nheld--;
        atomic_store_explicit(&l->owner, 0, memory_order_release);
    }
}

/* A leaf lock: not recursive and not counted in lc_lock_nheld, for a
 * critical section of a few instructions that takes no other lock but
 * leaf ones, runs no callback and completes no request (so nothing under
 * it can need to know that a fine lock is held, and nothing can take it
 * twice): the request pool's free stack, a matching queue pair.  Half the
 * instructions of lc_lock_t's take and release (no owner tag, depth or
 * count: callgrind, one self Irecv+Send+Wait at MULTIPLE takes four), the
 * same one locked exchange.  Ordering as lc_lock_t's: the acquiring
 * exchange pairs with the previous holder's releasing store. */
typedef struct lc_leaf_lock {
    atomic_int held; /* 0 free, 1 held */
} lc_leaf_lock_t;

static inline void lc_leaf_acquire(lc_leaf_lock_t *l)
{
    if (lc_likely(!atomic_exchange_explicit(&l->held, 1, memory_order_acquire))) return;
    for (unsigned i = 0;; i++) {
        if (i < LC_LOCK_SPINS)
            lc_cpu_relax();
        else
            sched_yield();
        if (!atomic_load_explicit(&l->held, memory_order_relaxed) &&
            !atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
            return;
    }
}

static inline void lc_leaf_release(lc_leaf_lock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif
