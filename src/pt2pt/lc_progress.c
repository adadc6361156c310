/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_progress.c — the progress engine and waiting.
 *
 * One pass polls the shared-memory rings and, when a network endpoint is
 * open, the ofi completion queue (incoming packets go to the handler
 * below), and pushes pending sends.  Waiting spins on passes while
 * every rank has a core; when ranks outnumber usable cores, a fruitless
 * pass yields the CPU so that the rank we wait for can run, and with
 * LOCUS_POLL=sleep, after LC_IDLE_YIELDS fruitless passes in a row, the
 * rank sleeps on its doorbell until a peer's packet rings it
 * (lc_progress_sleep).
 *
 * In the auto mode a spinning wait sleeps on its doorbell at once, no
 * yields first, while processes outside the job preempt it
 * (lc_starve.c).  An MPI_Test-like call does not: it must return —
 * except in a tight polling loop of a rank that leads a session of its
 * own, whose yields reach no other rank (lc_progress_poll_idle).
 *
 * Why sleep: sched_yield keeps a waiting rank runnable, so with 64 ranks
 * on 2 cores every rank that waits still takes its turn on a core to find
 * nothing, and the few ranks with work wait behind all of them.  A
 * sleeping rank leaves the cores to those.
 */
#include "channel/lc_ivshmem.h"
#include "channel/lc_ofi.h"
#include "channel/lc_shm.h"
#include "channel/lc_shm_bell.h"
#include "coord/lc_liveness.h"
#include "pt2pt/lc_park.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "pt2pt/lc_pt2pt_split.h"
#include "pt2pt/lc_starve.h"
#include "util/lc_dtype.h"
#include "util/lc_thread.h"

#include <sched.h>
#include <time.h>

void lc_pt2pt_init(void)
{
    lc_pt2pt_match_init();
    lc_channel_recv_handler = lc_thread_locking() ? lc_pt2pt_on_packet_locked : lc_pt2pt_on_packet_st;
}

void lc_pt2pt_threads_multiple(void)
{
    /* The predefined datatypes' index is built on first use: now, while
     * one thread is in MPI (the fast path looks types up outside the
     * section). */
    (void)lc_dtype_lookup(MPI_BYTE);
    lc_request_pool_multiple();
    lc_pt2pt_match_multiple();
    lc_pt2pt_send_multiple();
    lc_park_init();
    /* Before lc_pt2pt_init (MPI_Init_thread grants first) it sets it. */
    if (lc_channel_recv_handler) lc_channel_recv_handler = lc_pt2pt_on_packet_locked;
}

static lc_progress_hook_fn_t *lc_progress_hooks[LC_PROGRESS_HOOK_N];
static unsigned lc_progress_hooks_set; /* bit per slot in use */

void lc_progress_hook_set(lc_progress_hook_slot_t slot, lc_progress_hook_fn_t *fn)
{
    lc_progress_hooks[slot] = fn;
    /* Atomic: a pass outside the section (lc_progress_mt) reads the set
     * to decide whether to try the section for it. */
    unsigned set = fn ? lc_progress_hooks_set | 1u << slot : lc_progress_hooks_set & ~(1u << slot);
    __atomic_store_n(&lc_progress_hooks_set, set, __ATOMIC_RELAXED);
}

static int lc_progress_run_hooks(void)
{
    int events = 0;
    for (int i = 0; i < LC_PROGRESS_HOOK_N; i++) {
        lc_progress_hook_fn_t *fn = lc_progress_hooks[i];
        if (fn) events += fn();
    }
    return events;
}

unsigned lc_progress_passes;

/* A pass after the shm rings (`events` found there): the network and
 * IVSHMEM endpoints, the pending sends, the hooks (schedules,
 * partitioned, RMA), liveness.  At MPI_THREAD_MULTIPLE (mt, a constant
 * in each caller) this is the share that stays inside the section, and
 * it runs the completions and destructions that threads outside it
 * deferred too. */
LC_INLINE int lc_progress_section_share(int events, int mt)
{
    if (lc_ofi_active) events += lc_ofi_poll();
    if (lc_ivshmem_active) events += lc_ivshmem_poll();
    if (lc_count_get(&lc_pt2pt_pending_peers)) events += lc_pt2pt_drain_pending(1);
    if (lc_unlikely(lc_progress_hooks_set != 0)) events += lc_progress_run_hooks();
    if (mt) {
        events += lc_request_run_deferred();
        events += lc_comm_run_deferred();
    }
    /* A fruitless pass: now and then, is whoever we wait for still alive? */
    if (!events) lc_liveness_tick();
    return events;
}

/* A thread outside the section tries it only when its share has work:
 * an endpoint to poll, hooks, deferred completions or destructions — or,
 * every LC_LIVENESS_PASSES fruitless passes of this thread, liveness
 * (lc_liveness_look, which itself looks at most every 0.1 s).  Trying it
 * on every pass made every thread write the section mutex's line. */
static _Thread_local unsigned lc_progress_idle_mt __attribute__((tls_model("initial-exec")));

static inline int lc_progress_section_wanted(int events)
{
    if (__atomic_load_n(&lc_ofi_active, __ATOMIC_RELAXED) || __atomic_load_n(&lc_ivshmem_active, __ATOMIC_RELAXED) ||
        __atomic_load_n(&lc_progress_hooks_set, __ATOMIC_RELAXED) || lc_request_deferred_any() ||
        lc_comm_deferred_any())
        return 1;
    if (events) return 0;
    if (++lc_progress_idle_mt < LC_LIVENESS_PASSES) return 0;
    lc_progress_idle_mt = 0;
    return 2;
}

/* MPI_THREAD_MULTIPLE, where a thread may make the pass outside the
 * section (the shared-memory fast path of Send/Recv/Wait/...): the shm
 * rings by their rx try-locks and the pending sends to shm and self peers
 * under their tx locks, by any thread; the rest by the thread that holds
 * the section or takes it by try-lock — one that finds it held leaves it
 * to the holder, whose passes run it. */
static inline int lc_progress_mt_pass(void)
{
    /* Read by the asynchronous progress thread only (lc_async.c): at the
     * application's MULTIPLE without it, one more line every thread would
     * write on every pass. */
    if (lc_thread_async) __atomic_fetch_add(&lc_progress_passes, 1u, __ATOMIC_RELAXED);
    int events = lc_shm_poll();
    if (lc_thread_held()) return lc_progress_section_share(events, 1);
    if (lc_count_get(&lc_pt2pt_pending_peers)) events += lc_pt2pt_drain_pending(0);
    int want = lc_progress_section_wanted(events);
    if (!want || !lc_thread_try_enter()) return events;
    if (want == 2) lc_liveness_look();
    events = lc_progress_section_share(events, 1);
    lc_thread_leave_progress();
    return events;
}

/* The pass, with the completions and queued messages it made noted and
 * announced once at its end to threads parked in waits (lc_park.h): the
 * fence of lc_park_notify follows every flag the pass stored.  Nested
 * passes (a callback's wait inside the section's share) leave it to the
 * outermost. */
static LC_NOINLINE int lc_progress_mt(void)
{
    unsigned char outer = !lc_park_in_pass;
    lc_park_in_pass = 1;
    int events = lc_progress_mt_pass();
    if (outer) {
        lc_park_in_pass = 0;
        lc_park_pass_end();
    }
    return events;
}

int lc_progress(void)
{
    if (lc_unlikely(lc_thread_locking())) return lc_progress_mt();
    lc_progress_passes++;
    return lc_progress_section_share(lc_shm_poll(), 0);
}

int lc_progress_pending(void)
{
    return lc_count_get(&lc_request_incomplete) > 0 || lc_count_get(&lc_pt2pt_pending_peers) > 0 ||
           lc_progress_hooks_set != 0;
}

/* Fruitless passes (each followed by a yield) before a wait sleeps. */
#define LC_IDLE_YIELDS 8

/* Fruitless passes in a row, counted here rather than in lc_progress (no
 * store on the message path): a wait calls lc_progress_idle after each
 * fruitless pass only, so an idle that follows the previous one by more
 * than one pass had a fruitful pass in between. */
static unsigned lc_idle_streak, lc_idle_last_pass;

static int lc_idle_long(void)
{
    unsigned passes = lc_count_get(&lc_progress_passes);
    lc_idle_streak = passes == lc_idle_last_pass + 1 ? lc_idle_streak + 1 : 1;
    lc_idle_last_pass = passes;
    return lc_idle_streak >= LC_IDLE_YIELDS;
}
/* A sleep's limit: what wakes the rank but a shared-memory packet (a
 * liveness check, a peer that does not ring) is at most this late. */
#define LC_IDLE_SLEEP_NS 1000000L
/* A polling loop's sleeps (lc_progress_poll_idle): the call must return,
 * so the first is short (the kernel's default timer slack); each one in
 * the same loop doubles, up to a wait's LC_IDLE_SLEEP_NS (a packet rings
 * the sleeper awake sooner).  Each wake costs the CPU a few µs, which at
 * 50 µs alone was 13–21 % of the core (poll_yield, load 28). */
#define LC_POLL_SLEEP_NS 50000L
/* Fruitless polls closer than this to the one before make a polling loop
 * (an application that computes between its MPI_Test calls does not). */
#define LC_POLL_TIGHT_NS 20000L

/* Sleep on our doorbell until a shared-memory peer's next packet rings it
 * (lc_shm_bell.h: wanted = 1, read the bell, poll once more, sleep on the
 * value read — no packet published after the poll goes unrung).  Only
 * when every wake-up source is such a packet: no network or IVSHMEM
 * endpoint (their completions ring nothing) and no send waiting for ring
 * or pool space (the receiver's draining rings nothing either). */
static void lc_progress_sleep(long limit_ns)
{
    lc_shm_bell_t *b = lc_shm_bell_own();
    atomic_store_explicit(&b->wanted, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* the store before the poll's loads */
    uint32_t v = atomic_load_explicit(&b->bell, memory_order_relaxed);
    if (lc_progress() != 0) {
        lc_idle_streak = 0; /* it found something: yield again first */
    } else {
        lc_idle_last_pass = lc_count_get(&lc_progress_passes); /* this pass is the streak's, not a gap in it */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += limit_ns;
        if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
        lc_shm_bell_wait(b, v, &t);
    }
    atomic_store_explicit(&b->wanted, 0, memory_order_relaxed);
}

/* MPI_THREAD_MULTIPLE: every wait comes here after a fruitless pass;
 * leaving the critical section lets the thread that will satisfy this
 * wait (possibly in this process) make its call.  Not needed when the
 * section is on only for the asynchronous progress thread (the
 * application asked for less than MULTIPLE): that thread keeps out while
 * an application thread is inside MPI (lc_async.c). */
static inline int lc_progress_idle_leaves_section(void)
{
    return lc_unlikely(lc_thread_locking()) && (!lc_thread_async || lc_thread_app_multiple);
}

/* Every wake source is a shared-memory peer's packet, which rings the
 * doorbell: no blocked send, no network or IVSHMEM endpoint. */
static inline int lc_progress_may_sleep(void)
{
    return !lc_count_get(&lc_pt2pt_pending_peers) && !lc_ofi_active && !lc_ivshmem_active;
}

void lc_progress_idle(void)
{
    if (lc_progress_idle_leaves_section())
        lc_thread_yield();
    else if (lc_world.sleep_when_idle && lc_progress_may_sleep() && lc_idle_long())
        lc_progress_sleep(LC_IDLE_SLEEP_NS);
    else if (lc_world.starve_when_idle && lc_progress_may_sleep() && lc_starve_pressed())
        lc_progress_sleep(LC_IDLE_SLEEP_NS);
    else if (lc_world.yield_when_idle)
        sched_yield();
    else
        lc_cpu_relax();
}

/* A wait that counts itself among the threads in waits and may park
 * (lc_park.h): at MULTIPLE where a wait leaves the section, lc_park_idle
 * instead of the yield; elsewhere lc_progress_idle.  The loop calls
 * lc_park_wait_end when it is over.  `key`: the request whose completion
 * the wait needs next (a parked thread is woken by that completion
 * only), or NULL (woken by any completion or queued message). */
void lc_progress_idle_wait_for(const void *key)
{
    if (lc_progress_idle_leaves_section())
        lc_park_idle(key);
    else
        lc_progress_idle();
}

void lc_progress_idle_wait(void)
{
    lc_progress_idle_wait_for(NULL);
}

/* Fruitless polls in a row, each starting within LC_POLL_TIGHT_NS of the
 * end of the one before (lc_poll_end: after its yield or sleep): a
 * polling loop.  Touched only where waits sleep and only by the thread
 * that holds the process (not at MULTIPLE: lc_progress_poll_idle). */
static struct timespec lc_poll_end;
static long lc_poll_nap = LC_POLL_SLEEP_NS;

static long lc_poll_since_end(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - lc_poll_end.tv_sec) * 1000000000L + (now.tv_nsec - lc_poll_end.tv_nsec);
}

static int lc_poll_tight(void)
{
    long gap = lc_poll_since_end();
    int streak = lc_idle_long(); /* counted always, so the streak stays exact */
    return streak && gap < LC_POLL_TIGHT_NS;
}

/* An application that loops on MPI_Test (Testany, Iprobe, ...) waits in
 * a loop the library cannot see.  When ranks outnumber cores, such a call
 * that found nothing gives the core away as a wait's fruitless pass does
 * — otherwise the polling rank spends its whole time slice finding
 * nothing while the rank it waits for cannot run (icoll at 16 ranks on 2
 * cores: half its CPU in fruitless MPI_Testany calls).  A yield first;
 * where waits sleep, a tight loop of fruitless polls then sleeps on the
 * doorbell for at most LC_POLL_SLEEP_NS (a packet rings it awake sooner):
 * a yield reaches only this rank's own session, and each rank has one of
 * its own (lc_set_wait_policy).  Short, as the call must return; an
 * application that computes between its polls never sleeps here.  Ranks
 * with a core each do not yield. */
void lc_progress_poll_idle(void)
{
    if (!lc_world.yield_when_idle) return;
    if (lc_progress_idle_leaves_section())
        lc_thread_yield();
    else if (lc_world.sleep_when_idle && lc_progress_may_sleep()) {
        if (lc_poll_tight()) {
            lc_progress_sleep(lc_poll_nap);
            if (lc_poll_nap < LC_IDLE_SLEEP_NS) lc_poll_nap *= 2;
        } else {
            lc_poll_nap = LC_POLL_SLEEP_NS;
            sched_yield();
        }
        clock_gettime(CLOCK_MONOTONIC, &lc_poll_end);
    } else {
        sched_yield();
    }
}

unsigned lc_progress_tests;

int lc_progress_test(void)
{
    if (lc_unlikely(lc_thread_async)) lc_progress_tests++; /* the section is held (lc_async.c) */
    int events = lc_progress();
    if (!events) lc_progress_poll_idle();
    return events;
}

void lc_pt2pt_wait(lc_request_t *req)
{
    lc_pt2pt_wait_inline(req);
}

int lc_pt2pt_wait_release(lc_request_t *req, MPI_Status *status)
{
    lc_pt2pt_wait(req);
    int err = req->st_error;
    if (status != MPI_STATUS_IGNORE) lc_request_status(req, status);
    lc_request_release(req);
    return err;
}

int lc_pt2pt_waitall_release(int n, lc_request_t **reqs)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int e = lc_pt2pt_wait_release(reqs[i], MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS) err = e;
    }
    return err;
}
