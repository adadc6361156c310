/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_thread.h — MPI_THREAD_MULTIPLE: the one critical section.
 *
 * When the job asked for MPI_THREAD_MULTIPLE, every MPI call (the wrapper
 * generated from api/mpi_functions.txt, src/mpi/lc_mpi_wrap.c in the
 * build tree) runs inside one process-wide critical section: the progress
 * engine, the request pool, the matching queues, the channels' rings and
 * every handle table are touched by one thread at a time.  A blocking
 * wait leaves the critical section while it yields (lc_thread_yield, from
 * lc_progress_idle), so another thread's call can run and, for instance,
 * send the message the waiting thread receives; when the process's
 * waiting threads outnumber its cores, all but one of them park instead
 * (src/pt2pt/lc_park.h).
 *
 * At the other levels nothing is taken: the wrapper tests one flag and
 * tail-calls the implementation.  docs/architecture.md "Threads".
 */
#ifndef LC_THREAD_H
#define LC_THREAD_H

#include "util/lc_util.h"

#include <stdatomic.h>

/* Set (to 1) once, when MPI_Init_thread or MPI_Session_init granted
 * MPI_THREAD_MULTIPLE; never cleared.  Relaxed loads: it changes before
 * the application has a second thread in MPI (a thread that saw 0 takes
 * no lock and its call never leaves a critical section it did not
 * enter: the depth below is per thread). */
extern atomic_int lc_thread_multiple;

static inline int lc_thread_locking(void)
{
    return atomic_load_explicit(&lc_thread_multiple, memory_order_relaxed);
}

/* Every MPI call runs in the critical section (the generated wrappers
 * test this): MULTIPLE was granted, or the asynchronous progress thread
 * runs.  With the thread alone (the application asked for less than
 * MULTIPLE) the section is all the locking there is: every access to the
 * library's state is inside it — the application's calls (no fast path
 * outside it, LC_NOFAST_ASYNC) and the thread's passes — so the request
 * pool, matching, sends and counters keep their single-threaded code
 * (lc_thread_locking() stays 0) and the mutex's acquire/release orders
 * them between the two threads.  Set once, like lc_thread_multiple,
 * before a second thread is in MPI; never cleared. */
extern atomic_int lc_thread_sectioned;

static inline int lc_thread_calls_locked(void)
{
    return atomic_load_explicit(&lc_thread_sectioned, memory_order_relaxed);
}

/* Process-wide counters that a call may update outside the critical
 * section once the shared-memory path runs without it (docs/
 * architecture.md "Threads": lc_progress_passes, the request pool's
 * counts, pending peers, lc_pt2pt_stats, a communicator's refcount).
 * Plain integers, updated with GCC's __atomic built-ins (which TSan
 * understands) at MULTIPLE only, decided once at init by the flag above:
 * there an atomic read-modify-write (relaxed: they count, they order
 * nothing; a reader that needs an order gets it from a lock or from a
 * request's completion flag); below it the plain `x += d` of before, one
 * read-modify-write instruction — an _Atomic object's relaxed load and
 * store cost two more instructions per site, which compilers do not fuse.
 * The cost below MULTIPLE is the flag's load and a well-predicted branch.
 * p is evaluated more than once: pass a plain lvalue's address. */
#define lc_count_add_mt(mt, p, d)                                                                                      \
    do {                                                                                                               \
        if (mt)                                                                                                        \
            __atomic_fetch_add((p), (d), __ATOMIC_RELAXED);                                                            \
        else                                                                                                           \
            *(p) += (d);                                                                                               \
    } while (0)
#define lc_count_add(p, d) lc_count_add_mt(lc_unlikely(lc_thread_locking()), p, d)
/* A function that updates several such counters reads the flag once and
 * passes it to lc_count_add_mt (the request pool does). */
/* The same, returning the new value (a reference count's release: only
 * the thread that takes it to 0 destroys). acq_rel at MULTIPLE: the
 * destroying thread must see every other holder's writes. */
#define lc_count_add_fetch_mt(mt, p, d) ((mt) ? __atomic_add_fetch((p), (d), __ATOMIC_ACQ_REL) : (*(p) += (d)))
#define lc_count_add_fetch(p, d) lc_count_add_fetch_mt(lc_unlikely(lc_thread_locking()), p, d)
/* A relaxed read of such a counter (from any thread). */
#define lc_count_get(p) __atomic_load_n((p), __ATOMIC_RELAXED)
/* *p = max(*p, v): a high-water mark (a compare-and-swap loop at
 * MULTIPLE, so that two raisers do not lower each other's mark). */
#define lc_count_max(p, v)                                                                                             \
    do {                                                                                                               \
        __typeof__(*(p)) lc_cm_v_ = (v);                                                                               \
        if (lc_unlikely(lc_thread_locking())) {                                                                        \
            __typeof__(*(p)) lc_cm_o_ = __atomic_load_n((p), __ATOMIC_RELAXED);                                        \
            while (lc_cm_o_ < lc_cm_v_ &&                                                                              \
                   !__atomic_compare_exchange_n((p), &lc_cm_o_, lc_cm_v_, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))      \
                ;                                                                                                      \
        } else if (*(p) < lc_cm_v_) {                                                                                  \
            *(p) = lc_cm_v_;                                                                                           \
        }                                                                                                              \
    } while (0)

/* Enter / leave the critical section; recursive (a user callback called
 * inside an MPI call may call MPI again). */
void lc_thread_enter(void);
void lc_thread_leave(void);

/* In a wait: let other threads run.  Leaves the critical section around
 * sched_yield when this thread holds it once (an MPI call's own wait);
 * inside a nested call (a callback's wait) the outer call's state may be
 * mid-update, so the section is kept and this only yields. */
void lc_thread_yield(void);

/* This thread holds the critical section (for assertions, and for a
 * completion at MULTIPLE: callbacks run only inside it). */
int lc_thread_held(void);
/* How many times this thread holds it (0: not at all; above 1: inside a
 * callback of an MPI call, which must not leave it). */
int lc_thread_nesting(void);

/* --- Asynchronous progress (LOCUS_ASYNC_PROGRESS, src/pt2pt/lc_async.c) ---
 *
 * The progress thread must know whether an application thread is inside
 * an MPI call: that thread drives progress itself (a wait polls), so the
 * progress thread stays out of its way instead of contending for the
 * section.  While lc_thread_async is set, every outermost enter of an
 * application thread counts itself in lc_thread_inside (before it locks:
 * one waiting for the lock counts too) and every outermost leave counts
 * itself out and then, still holding the section, calls
 * lc_thread_on_leave, which decides whether the progress thread must be
 * woken (the call left work pending) and returns nonzero if so; the
 * leave then unlocks and calls lc_thread_after_leave (the futex wake).
 * They are set once, before the progress thread exists and while no
 * other thread is in MPI (MPI_Init). */
extern atomic_int lc_thread_inside;
extern int lc_thread_async;
/* The application was granted MPI_THREAD_MULTIPLE (lc_thread_multiple
 * may be set for the progress thread alone). */
extern int lc_thread_app_multiple;
/* What keeps the point-to-point calls of src/mpi/lc_mpi_fast.h in the
 * section: one bit per reason, so that their wrappers test one word
 * instead of four flags (callgrind: ~9 instructions per call).  Bits are
 * set and cleared where the reason starts and ends — all inside the
 * section or at init, before a second thread is in MPI — by atomic or/and
 * (writers are serialized anyway; the atomics keep a relaxed reader's
 * load race-free); readers load it relaxed: a call that raced an ofi
 * endpoint's opening runs on the shared-memory path it was asked for. */
enum {
    LC_NOFAST_SINGLE = 1u,  /* the application has not been granted MULTIPLE */
    LC_NOFAST_ASYNC = 2u,   /* the progress thread runs (its accounting is the section's) */
    LC_NOFAST_OFI = 4u,     /* an ofi endpoint is open */
    LC_NOFAST_IVSHMEM = 8u, /* IVSHMEM peers are polled */
};
extern unsigned lc_thread_nofast;
static inline void lc_thread_nofast_set(unsigned bit, int on)
{
    if (on)
        __atomic_fetch_or(&lc_thread_nofast, bit, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&lc_thread_nofast, ~bit, __ATOMIC_RELAXED);
}
extern int (*lc_thread_on_leave)(void);
extern void (*lc_thread_after_leave)(void);
/* With the progress thread: its doorbell's "wanted" word
 * (src/channel/lc_shm_bell.h), cleared by an outermost enter — the
 * application polls itself now, so peers need not ring the thread. */
extern _Atomic uint32_t *lc_thread_bell_wanted;

/* The progress thread's own enter / leave: not counted, no hook. */
void lc_thread_enter_progress(void);
void lc_thread_leave_progress(void);
/* Enter the section if it is free or already this thread's: 1 (leave
 * with lc_thread_leave_progress), else 0, never waiting.  A call that
 * runs outside the section at MULTIPLE (the shared-memory fast path,
 * docs/architecture.md "Threads") does the section's share of a
 * progress pass only this way: a thread that finds it held leaves that
 * share to the holder. */
int lc_thread_try_enter(void);

/* Leave the section completely (any depth) and return the depth, so that
 * a thread can wait for another one that needs the section (MPI_Finalize
 * joining the progress thread); lc_thread_resume takes it back. */
int lc_thread_suspend(void);
void lc_thread_resume(int depth);

#endif
