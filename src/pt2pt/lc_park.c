/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_park.c — waiting threads that park at MPI_THREAD_MULTIPLE when the
 * process's threads in waits outnumber its cores (lc_park.h;
 * docs/architecture.md "Threads", "Parking").
 *
 * Why: a wait at MULTIPLE leaves the section and yields after every
 * fruitless pass, so every waiting thread stays runnable.  With a rank
 * bound to one core and two threads waiting, the core flips between the
 * two on every pass and the rank they wait for gets what is left.  Here,
 * once the threads in waits outnumber the cores, one of them (the poller)
 * makes the passes for all — a pass drains every ring and completes every
 * thread's requests — and the others sleep until something they may wait
 * for happens.  At or below the cores nothing changes: a thread per core
 * polls, and a handoff through a futex costs more than a yield (session
 * 18's always-park experiment: unbound 2 pairs 2x slower).
 *
 * State (process-wide; only threads at MULTIPLE touch it):
 *   lc_park_waiting  threads counted in waits (lc_park_in_wait set)
 *   lc_park_poller   the poller's lc_lock_self(), or 0
 *   lc_park_seq      the futex word: bumped by every wake
 *   lc_park_armed    1 when some parker may sleep on lc_park_seq
 *
 * No lost wake-up.  A parker, in one call of lc_park_idle, reads the word
 * (S, seq_cst), stores armed = 1 (A, seq_cst), fences (F1), returns; its
 * wait loop then looks at its condition (C: the request's flag, the
 * queue) and makes a pass, and the next call sleeps on the value S read
 * (the kernel compares it under the futex bucket's lock).  A notifier
 * publishes what the waiter looks for (W), fences (F2), loads armed (R);
 * if R sees 1, lc_park_wake exchanges armed to 0 (X) and, if that read 1,
 * bumps the word (B) and wakes every sleeper.  Either F2 precedes F1 in
 * the fences' total order, and then C sees W (the waiter does not sleep),
 * or F1 precedes F2, and R sees A or a later store: A's 1 (this notifier
 * or one that beat it to X bumps) or a later X's 0 (that notifier bumps).
 * In every case some B follows an X that read A or later, so S precedes
 * A precedes X precedes B in the seq_cst order: S did not read B, the
 * sleep's compare fails or the sleeper is queued before B's wake.  The
 * poller's hand-off is the same pattern: it stores poller = 0, fences and
 * looks at armed, while a parker arms before it looks at the poller.
 *
 * A sleep is bounded (LC_PARK_SLEEP_NS) as a backstop for a condition no
 * notifier names; the waits that park (lc_progress_idle_wait's callers)
 * end by a completion or a queued message, which notify.
 */
#include "pt2pt/lc_park.h"
#include "util/lc_lock.h"
#include "util/lc_thread.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A parked thread looks again after this long without a wake. */
#define LC_PARK_SLEEP_NS 500000000L

/* Separate lines: armed is read by every completion at MULTIPLE, the
 * others are written by waits. */
LC_HIDDEN _Atomic uint32_t lc_park_armed __attribute__((aligned(64)));
static _Atomic uint32_t lc_park_seq __attribute__((aligned(64)));
static atomic_int lc_park_waiting __attribute__((aligned(64)));
static atomic_uintptr_t lc_park_poller;
/* The cores of the affinity mask at init; INT_MAX until then (no parking). */
static int lc_park_cores = INT_MAX;

_Thread_local unsigned char lc_park_in_wait __attribute__((tls_model("initial-exec")));
_Thread_local unsigned char lc_park_in_pass __attribute__((tls_model("initial-exec")));
_Thread_local unsigned char lc_park_noted __attribute__((tls_model("initial-exec")));
/* The word's value read at this thread's last arming (lc_park_have_seen):
 * what the next sleep compares. */
static _Thread_local uint32_t lc_park_seen __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned char lc_park_have_seen __attribute__((tls_model("initial-exec")));

void lc_park_init(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
    lc_park_cores = n > 0 ? n : 1;
}

void lc_park_wake(void)
{
    /* X then B (the file's head): one notifier per arming pays the
     * system call, the others find armed already 0. */
    if (atomic_exchange_explicit(&lc_park_armed, 0, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&lc_park_seq, 1, memory_order_seq_cst);
        (void)syscall(SYS_futex, &lc_park_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    }
}

/* S, A, F1: what the next sleep compares, and the notifiers told. */
static void lc_park_arm(void)
{
    lc_park_seen = atomic_load_explicit(&lc_park_seq, memory_order_seq_cst);
    atomic_store_explicit(&lc_park_armed, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    lc_park_have_seen = 1;
}

static void lc_park_sleep(void)
{
    /* Outside the section: a parked thread holds nothing another thread
     * needs (no fine lock either: lc_park_idle checked). */
    int depth = lc_thread_suspend();
    struct timespec t = { 0, LC_PARK_SLEEP_NS };
    (void)syscall(SYS_futex, &lc_park_seq, FUTEX_WAIT_PRIVATE, lc_park_seen, &t, NULL, 0);
    lc_thread_resume(depth);
}

void lc_park_idle(void)
{
    if (!lc_park_in_wait) {
        lc_park_in_wait = 1;
        lc_park_have_seen = 0;
        atomic_fetch_add_explicit(&lc_park_waiting, 1, memory_order_relaxed);
    }
    uintptr_t me = lc_lock_self();
    /* Relaxed: a stale count costs one pass of the other mode. */
    int over = atomic_load_explicit(&lc_park_waiting, memory_order_relaxed) > lc_park_cores;
    /* A nested wait (a callback's, inside an MPI call) keeps the section:
     * it cannot park, as it cannot leave the section to yield. */
    if (!over || lc_thread_nesting() > 1 || lc_lock_nheld != 0) {
        lc_park_have_seen = 0;
        lc_thread_yield();
        return;
    }
    uintptr_t p = atomic_load_explicit(&lc_park_poller, memory_order_seq_cst);
    if (p == me || (p == 0 && atomic_compare_exchange_strong_explicit(&lc_park_poller, &p, me, memory_order_seq_cst,
                                                                      memory_order_relaxed))) {
        lc_park_have_seen = 0;
        lc_thread_yield();
        return;
    }
    /* Armed by the previous call (then this thread's loop looked at its
     * condition after F1), so sleep; the first call only arms. */
    if (lc_park_have_seen) lc_park_sleep();
    lc_park_arm();
}

void lc_park_leave(void)
{
    lc_park_in_wait = 0;
    lc_park_have_seen = 0;
    int left = atomic_fetch_sub_explicit(&lc_park_waiting, 1, memory_order_relaxed) - 1;
    uintptr_t me = lc_lock_self();
    int was_poller = atomic_load_explicit(&lc_park_poller, memory_order_relaxed) == me;
    if (was_poller) atomic_store_explicit(&lc_park_poller, 0, memory_order_seq_cst);
    /* The poller's hand-off (a parker takes the role when it wakes), or
     * the count back at the cores (the parkers yield again). */
    if (was_poller || left == lc_park_cores) lc_park_notify();
}
