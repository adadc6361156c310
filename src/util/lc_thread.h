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
 * send the message the waiting thread receives.
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

/* Enter / leave the critical section; recursive (a user callback called
 * inside an MPI call may call MPI again). */
void lc_thread_enter(void);
void lc_thread_leave(void);

/* In a wait: let other threads run.  Leaves the critical section around
 * sched_yield when this thread holds it once (an MPI call's own wait);
 * inside a nested call (a callback's wait) the outer call's state may be
 * mid-update, so the section is kept and this only yields. */
void lc_thread_yield(void);

/* This thread holds the critical section (for assertions). */
int lc_thread_held(void);

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
extern int (*lc_thread_on_leave)(void);
extern void (*lc_thread_after_leave)(void);
/* With the progress thread: its doorbell's "wanted" word
 * (src/channel/lc_shm_bell.h), cleared by an outermost enter — the
 * application polls itself now, so peers need not ring the thread. */
extern _Atomic uint32_t *lc_thread_bell_wanted;

/* The progress thread's own enter / leave: not counted, no hook. */
void lc_thread_enter_progress(void);
void lc_thread_leave_progress(void);

/* Leave the section completely (any depth) and return the depth, so that
 * a thread can wait for another one that needs the section (MPI_Finalize
 * joining the progress thread); lc_thread_resume takes it back. */
int lc_thread_suspend(void);
void lc_thread_resume(int depth);

#endif
