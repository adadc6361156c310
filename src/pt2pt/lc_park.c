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
 * thread's requests — and the others sleep until something they wait for
 * happens.  At or below the cores (the process's share of the host's:
 * lc_park_init) nothing changes: a thread per core polls, and a handoff
 * through a futex costs more than a yield (session 18's always-park
 * experiment, every wake waking all: unbound 2 pairs 2x slower).
 *
 * Why a slot per parked thread (session 20): with one word for all, every
 * fruitful pass woke every parked thread, and all but the one whose
 * request completed found nothing and slept again — a futex wake and two
 * switches per parked thread per window (unbound 4 pairs on their own
 * communicators were 15–30 % slower parked than yielding).  Now a parker
 * names the request it waits for (its key) and a completion wakes only
 * the slots keyed to it (or keyed NULL: waits for anything).
 *
 * Why a parker moves to its poller's CPU (session 21): 2 ranks of 2
 * waiting threads on 2 unbound cores ran at 4.6–6.8 M msg/s when the
 * kernel kept each process's threads on one core (the poller and its
 * parked sibling taking turns there) and at 1.3–2.3 M when it put one
 * thread of each process on each core (perf sched: for 30 % of the time
 * both cores ran one process's threads while the other process waited;
 * pinned that way, 2.0 M against 6.0 M, and still 2.4–3.3 M with every
 * thread polling: a window's answer then needs a switch between
 * processes on a core).  Nothing moved the threads back: each core had
 * two.  So a thread about to park on another CPU than its process's
 * poller's (the poller publishes sched_getcpu() as it polls) restricts
 * itself to the poller's CPU until its wait ends (lc_park_follow; its own
 * mask is put back in lc_park_leave): woken there, it takes turns with
 * its own poller, and the other CPU is left to the other process — whose
 * poller the kernel moves there when that CPU idles, as a parked thread
 * can no longer go.  A thread already on its poller's CPU (a rank bound
 * to one core, or the good placement) makes no system call.
 *
 * State (process-wide; only threads at MULTIPLE touch it):
 *   lc_park_waiting  threads counted in waits (lc_park_in_wait set)
 *   lc_park_poller   the poller's lc_lock_self(), or 0
 *   lc_park_poller_cpu the CPU the poller last polled on, or -1 (relaxed:
 *                    a stale CPU only moves a parker where it need not be)
 *   lc_park_slots[i] its futex word (bumped by every wake of the slot) and
 *                    the key its parker waits for
 *   lc_park_armed    bit i: slot i's parker may sleep on its word
 *   lc_park_used     bit i: slot i belongs to a thread's wait.  The last
 *                    slot is never owned: threads beyond the others share
 *                    it, keyed NULL (woken by everything).
 *
 * No lost wake-up.  A parker, in one call of lc_park_idle, reads its word
 * (S, seq_cst), stores its key K (seq_cst), sets its bit of armed (A,
 * seq_cst RMW), fences (F1), returns; its wait loop then looks at its
 * condition (C: K's flag, the queue) and makes a pass, and the next call
 * sleeps on the value S read — the kernel compares it under the futex
 * bucket's lock — only if its key is still K (a Waitall that moved on to
 * its next request re-arms first).  A notifier publishes what the waiter
 * looks for (W: the flag of request K, or a queued message), fences (F2),
 * loads armed (R) and the key of every slot R shows armed; for a slot
 * whose key it matches it clears the bit (X, RMW) and, if that read it
 * set, bumps the slot's word (B) and wakes its sleepers.  Either F2
 * precedes F1 in the fences' total order, and then C sees W (the waiter
 * does not sleep), or F1 precedes F2, and R sees A or a later store, and
 * the key load sees K (stored before A) or a later key of a later arming
 * (whose own check then covers it): the bit set by A (this notifier or
 * one that beat it to X bumps) or a later X's clear (that notifier
 * bumps).  In every case some B follows an X that read A or later, so S
 * precedes A precedes X precedes B in the seq_cst order: S did not read
 * B, the sleep's compare fails or the sleeper is queued before B's wake.
 * The poller's hand-off is the same pattern with the key LC_PARK_ALL: it
 * stores poller = 0, fences and looks at armed, while a parker arms
 * before it looks at the poller.
 *
 * A sleep is bounded (LC_PARK_SLEEP_NS) as a backstop for a condition no
 * notifier names; the waits that park (lc_progress_idle_wait's callers)
 * end by a completion or a queued message, which notify.
 */
#include "pt2pt/lc_park.h"
#include "coord/lc_world.h"
#include "util/lc_lock.h"
#include "util/lc_params.h"
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
/* Slots: one per thread parked at once, the last shared. */
#define LC_PARK_SLOTS 64
#define LC_PARK_SHARED (LC_PARK_SLOTS - 1)

/* A slot on a line of its own: its parker and its notifiers share it. */
typedef struct {
    _Atomic uint32_t seq;
    _Atomic(const void *) key;
} __attribute__((aligned(64))) lc_park_slot_t;

/* Separate lines: armed is read by every completion at MULTIPLE, the
 * others are written by waits. */
LC_HIDDEN _Atomic uint64_t lc_park_armed __attribute__((aligned(64)));
static _Atomic uint64_t lc_park_used __attribute__((aligned(64)));
static atomic_int lc_park_waiting __attribute__((aligned(64)));
static atomic_uintptr_t lc_park_poller;
/* The CPU the poller last polled on (sched_getcpu), or -1. */
static atomic_int lc_park_poller_cpu = -1;
static lc_park_slot_t lc_park_slots[LC_PARK_SLOTS];
/* The cores this process's waits may keep busy (lc_park_init); INT_MAX until
 * then (no parking). */
static int lc_park_cores = INT_MAX;

_Thread_local unsigned char lc_park_in_wait __attribute__((tls_model("initial-exec")));
_Thread_local unsigned char lc_park_in_pass __attribute__((tls_model("initial-exec")));
_Thread_local unsigned lc_park_noted __attribute__((tls_model("initial-exec")));
_Thread_local const void *lc_park_noted_key[LC_PARK_NOTES] __attribute__((tls_model("initial-exec")));
/* This wait's slot (-1: none yet), the key and the word's value of its
 * last arming (lc_park_have_seen): what the next sleep compares. */
static _Thread_local int lc_park_slot = -1;
static _Thread_local const void *lc_park_key;
static _Thread_local uint32_t lc_park_seen __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned char lc_park_have_seen __attribute__((tls_model("initial-exec")));
/* This thread moved itself to the poller's CPU for its wait (lc_park_follow):
 * its own mask before, put back when the wait ends. */
static _Thread_local unsigned char lc_park_moved __attribute__((tls_model("initial-exec")));
static _Thread_local cpu_set_t lc_park_mask;

/* The cores this process's waits may keep busy: its affinity mask's, and
 * no more than its share of the host's (the union of the host's ranks'
 * masks over the ranks, at least 1).  Why the share (session 20): with 2
 * ranks of 2 waiting threads each on 2 cores every process saw 2 waiting
 * threads on its 2 cores and yielded, so 4 threads stayed runnable on 2
 * cores and the rate hung on how the kernel placed them (unbound 2 pairs
 * 61 k–744 k msg/s at load 19); parked at 1 per process, 2 pollers and
 * woken owners (docs/architecture.md "Parking"). */
void lc_park_init(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
    if (n < 1) n = 1;
    if (lc_world.local_size > 1 && lc_world.usable_cores > 0) {
        int share = lc_world.usable_cores / lc_world.local_size;
        if (share < 1) share = 1;
        if (share < n) n = share;
    }
    lc_park_cores = n;
}

/* Does a notifier's key list wake a slot keyed `k`? */
static int lc_park_matches(const void *k, const void *const *keys, unsigned n)
{
    if (k == NULL || n > LC_PARK_NOTES) return 1;
    for (unsigned i = 0; i < n; i++)
        if (keys[i] == k || keys[i] == LC_PARK_ALL) return 1;
    return 0;
}

void lc_park_wake(const void *const *keys, unsigned n)
{
    if (keys == NULL) keys = lc_park_noted_key;
    uint64_t m = atomic_load_explicit(&lc_park_armed, memory_order_seq_cst);
    while (m) {
        int i = __builtin_ctzll(m);
        uint64_t bit = 1ull << i;
        m &= m - 1;
        if (!lc_park_matches(atomic_load_explicit(&lc_park_slots[i].key, memory_order_seq_cst), keys, n)) continue;
        /* X then B (the file's head): one notifier per arming pays the
         * system call, the others find the bit already clear. */
        if (atomic_fetch_and_explicit(&lc_park_armed, ~bit, memory_order_seq_cst) & bit) {
            atomic_fetch_add_explicit(&lc_park_slots[i].seq, 1, memory_order_seq_cst);
            (void)syscall(SYS_futex, &lc_park_slots[i].seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        }
    }
}

/* A slot for this wait: a free one of its own, or the shared one. */
static int lc_park_claim(void)
{
    uint64_t u = atomic_load_explicit(&lc_park_used, memory_order_relaxed);
    for (;;) {
        uint64_t free = ~u & ((1ull << LC_PARK_SHARED) - 1);
        if (!free) return LC_PARK_SHARED;
        int i = __builtin_ctzll(free);
        if (atomic_compare_exchange_weak_explicit(&lc_park_used, &u, u | (1ull << i), memory_order_relaxed,
                                                  memory_order_relaxed))
            return i;
    }
}

/* S, K, A, F1: what the next sleep compares, and the notifiers told. */
static void lc_park_arm(const void *key)
{
    if (lc_park_slot < 0) lc_park_slot = lc_park_claim();
    int i = lc_park_slot;
    if (i == LC_PARK_SHARED) key = NULL;
    lc_park_slot_t *s = &lc_park_slots[i];
    lc_park_seen = atomic_load_explicit(&s->seq, memory_order_seq_cst);
    atomic_store_explicit(&s->key, key, memory_order_seq_cst);
    atomic_fetch_or_explicit(&lc_park_armed, 1ull << i, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    lc_park_key = key;
    lc_park_have_seen = 1;
}

/* This thread will not sleep before it arms again (it polls or yields
 * now): its own slot stops drawing wakes (a futex call each, for no
 * sleeper).  The shared slot stays armed for the others on it. */
static void lc_park_disarm(void)
{
    lc_park_have_seen = 0;
    int i = lc_park_slot;
    if (i >= 0 && i != LC_PARK_SHARED) atomic_fetch_and_explicit(&lc_park_armed, ~(1ull << i), memory_order_relaxed);
}

static void lc_park_sleep(void)
{
    /* Outside the section: a parked thread holds nothing another thread
     * needs (no fine lock either: lc_park_idle checked). */
    int depth = lc_thread_suspend();
    struct timespec t = { 0, LC_PARK_SLEEP_NS };
    (void)syscall(SYS_futex, &lc_park_slots[lc_park_slot].seq, FUTEX_WAIT_PRIVATE, lc_park_seen, &t, NULL, 0);
    lc_thread_resume(depth);
}

/* A thread about to park on another CPU than its poller's moves to the
 * poller's CPU for the rest of its wait (docs/architecture.md "Parking",
 * session 21): woken there, it takes turns with its own process's poller
 * instead of sharing a core with the other process's. */
static void lc_park_follow(void)
{
    int pc = atomic_load_explicit(&lc_park_poller_cpu, memory_order_relaxed);
    if (!lc_params.park_follow || pc < 0 || pc >= CPU_SETSIZE || lc_park_moved || sched_getcpu() == pc) return;
    if (sched_getaffinity(0, sizeof(lc_park_mask), &lc_park_mask) != 0 || !CPU_ISSET(pc, &lc_park_mask)) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(pc, &one);
    if (sched_setaffinity(0, sizeof(one), &one) == 0) lc_park_moved = 1;
}

/* The poller says where it polls (a store only when that changed). */
static void lc_park_poller_here(void)
{
    int cpu = sched_getcpu();
    if (atomic_load_explicit(&lc_park_poller_cpu, memory_order_relaxed) != cpu)
        atomic_store_explicit(&lc_park_poller_cpu, cpu, memory_order_relaxed);
}

void lc_park_idle(const void *key)
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
        if (lc_park_have_seen) lc_park_disarm();
        lc_thread_yield();
        return;
    }
    uintptr_t p = atomic_load_explicit(&lc_park_poller, memory_order_seq_cst);
    if (p == me || (p == 0 && atomic_compare_exchange_strong_explicit(&lc_park_poller, &p, me, memory_order_seq_cst,
                                                                      memory_order_relaxed))) {
        if (lc_park_have_seen) lc_park_disarm();
        lc_park_poller_here();
        lc_thread_yield();
        return;
    }
    lc_park_follow();
    /* Armed for this key by the previous call (then this thread's loop
     * looked at its condition after F1), so sleep; otherwise (the first
     * call, or the wait moved on to another request) only arm. */
    if (lc_park_have_seen && (lc_park_key == key || lc_park_slot == LC_PARK_SHARED)) lc_park_sleep();
    lc_park_arm(key);
}

void lc_park_leave(void)
{
    lc_park_in_wait = 0;
    if (lc_park_moved) {
        lc_park_moved = 0;
        (void)sched_setaffinity(0, sizeof(lc_park_mask), &lc_park_mask);
    }
    lc_park_have_seen = 0;
    int i = lc_park_slot;
    if (i >= 0) {
        /* An own slot is disarmed so that completions stop looking at
         * it; a notifier already past its look may still bump the word (a
         * spurious wake of the slot's next owner, which looks again).  The
         * shared slot stays armed: other threads may sleep on it. */
        lc_park_slot = -1;
        if (i != LC_PARK_SHARED) {
            atomic_fetch_and_explicit(&lc_park_armed, ~(1ull << i), memory_order_relaxed);
            atomic_fetch_and_explicit(&lc_park_used, ~(1ull << i), memory_order_release);
        }
    }
    int left = atomic_fetch_sub_explicit(&lc_park_waiting, 1, memory_order_relaxed) - 1;
    uintptr_t me = lc_lock_self();
    int was_poller = atomic_load_explicit(&lc_park_poller, memory_order_relaxed) == me;
    if (was_poller) atomic_store_explicit(&lc_park_poller, 0, memory_order_seq_cst);
    /* The poller's hand-off (a parker takes the role when it wakes), or
     * the count back at the cores (the parkers yield again). */
    if (was_poller || left == lc_park_cores) lc_park_notify(LC_PARK_ALL);
}
