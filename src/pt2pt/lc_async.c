/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_async.c — the asynchronous progress thread (LOCUS_ASYNC_PROGRESS=1).
 *
 * One thread per process runs progress passes while operations are in
 * flight and no application thread is inside MPI, so a nonblocking
 * operation advances while the application computes.  It is just another
 * thread in MPI: every pass runs inside the critical section of
 * src/util/lc_thread.c (taken per pass, released between passes), which
 * is why the library runs with the section on whatever thread level the
 * application asked for.
 *
 * Sleeping uses a mutex of its own (lc_async_mx) and a futex word, the
 * doorbell in this rank's shared-memory segment (src/channel/
 * lc_shm_bell.h), not the critical section, so that the application
 * never waits for the thread's sleep bookkeeping.  Session 12: a peer
 * that puts a packet in one of our rings rings the doorbell when the
 * thread asked for it ("wanted") — the thread before a nap that waits
 * for data, an application call that leaves work pending (its enter
 * withdrew the request: while it is inside, it polls itself).  So the
 * thread sleeps until the data it waits for comes (an RTS to pull, the
 * FIN that completes a send and lets the schedule reduce) instead of
 * finding it at the end of a nap of up to 1 ms: traced on 2 ranks (load
 * ~10), a 1 MiB Iallreduce whose compute phase made no call left its
 * peer's RTS in the ring ~340 us, until a timed nap ended.
 * The timed naps stay as the fallback (a send waiting for ring space,
 * ofi peers, a peer without a thread).  States (lc_async_state, written
 * under lc_async_mx):
 *   RUNNING  making passes;
 *   PARKED   nothing pending (lc_progress_pending() == 0): sleeps until
 *            an application thread's outermost leave finds work pending
 *            (lc_async_on_leave rings), or stop;
 *   NAPPING  work pending, but either the passes find nothing (waiting
 *            for a peer) or the application drives progress itself: a
 *            timed sleep, 20 us doubling to 1 ms.
 *
 * The application drives progress itself when it is inside MPI (a wait
 * polls) or has made a call since the thread last looked that ran a
 * progress pass (a compute loop calling MPI_Test; lc_progress_passes
 * moved — an MPI_Comm_rank does not count): the thread then only naps,
 * without a pass.  With
 * ranks filling the cores, each pass of the thread is CPU taken from a
 * computing rank, and each pass under the section is a chance that the
 * application's next call blocks on the mutex behind it (or behind a
 * thread preempted while holding it).  On a quiet 2-core host, 2 ranks,
 * 1 MiB Iallreduce with 16 MPI_Test over the compute phase, overlap was
 * 20 % with the thread against 85 % without (session 9) when the thread
 * parked while the application was in MPI and was rung by the next leave
 * that left work pending — by design nearly every Test of such a loop —
 * and then made passes beside the computing ranks.  So the doorbell rings only
 *   - when the thread is PARKED (work appeared where there was none), or
 *   - during a long nap (>= 160 us) when the call started something (an
 *     operation, or a schedule's next round: lc_request_started grew):
 *     a started operation waits for no long nap.
 * (During a short nap such a call only asks for a pass at the nap's end,
 * lc_async_look, and restarts the back-off.)  A Test that found nothing
 * new rings nothing; the thread notices the application's calls at the
 * end of its nap and naps again, longer.
 * When the application stops calling MPI, the thread takes over within
 * one nap.  After a ring the thread makes a pass unless the caller is
 * back inside MPI already (Ibarrier + Wait in a loop): then it naps, and
 * a look that finds the application inside MPI lets the nap grow only
 * to just under the doorbell's 160 us (no reset to 20 us), so such a
 * loop costs one timed wake-up per ~160 us and no ring.  A look that
 * finds nothing pending parks only when the application made no call
 * since the previous look; otherwise it naps (a parked thread is rung by
 * the next start).  A leave that rings moves the bell under lc_async_mx
 * but makes the futex wake after it released the section (lc_thread.c):
 * the woken thread, which preempts the caller at once on full cores,
 * would otherwise find the section held and sleep on it.
 *
 * An application that polls (session 22) — MPI_Test and its kin while
 * its operation runs (lc_progress_tests moved) — gets no pass and no
 * ring from the thread until no poll came for twice the polls' usual
 * interval (lc_async_app_polls): a start or Test that rang or asked for
 * a ring was preempted at once by the woken thread, which then made the
 * operation's CMA pull and reduction under the section while the
 * application's next call waited for it; that work then landed in the
 * start, the Wait and past the compute phase instead of in the Tests
 * (2 ranks on 2 cores, 16 Tests: overlap 12-17 % with the thread, 59-78
 * % without).  An application that does not poll (start, compute, Wait)
 * resets the average to 0 and gets the thread as before.
 *
 * The thread asks the scheduler for a 100 us slice (EEVDF custom slice,
 * Linux 6.12+): a waking thread with a shorter slice than the running
 * one preempts it, so the end of a nap or a doorbell gets a core from a
 * computing application thread at once instead of at the end of its
 * slice (1.4 ms here).
 * Before napping, a few fruitless passes spin, but only when every rank
 * and its progress thread have a core each (2 * ranks <= cores): with
 * fewer cores a spin is CPU taken from a computing rank.  No
 * sched_yield phase: on a core shared with the computing
 * application thread, the fair scheduler (EEVDF) answers a yield by
 * pushing the yielder's deadline a whole slice (~1.5 ms) behind the
 * application's, so a packet that arrived meanwhile waited for it — a
 * started 8-byte Iallreduce completed in the background only after tens
 * of milliseconds (2 ranks, loaded 2-core host; 1-3 ms without the yields).
 * A nap is a sleep: its end is a wake-up, which the
 * scheduler lets preempt the computing thread.  The thread asks for a
 * timer slack of 1 us, so a 20 us nap is 20 us, not the default 70.
 *
 * No wake-up is lost.  What makes work runnable for the thread — work
 * becoming pending — happens inside an MPI call, whose outermost leave
 * runs the hook with the section held.  The thread parks only holding
 * the section, having seen nothing pending, and stores PARKED before it
 * releases the section: a later leave (the section orders them) sees
 * PARKED and rings when it left work pending.  Naps are timed: a leave
 * they do not hear delays the thread by their length at most.  The bell
 * counts rings: the thread reads it (under lc_async_mx) before it
 * publishes NAPPING or PARKED, and sleeps only while it has not moved;
 * a leave rings after storing RUNNING under the mutex, a peer after
 * publishing its packet; lc_shm_bell.h gives the order with the peers.
 */
#include "pt2pt/lc_async.h"
#include "channel/lc_shm_bell.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

enum { LC_ASYNC_RUNNING, LC_ASYNC_PARKED, LC_ASYNC_NAPPING };

/* Fruitless passes spun before napping (when threads and ranks fit the cores). */
#define LC_ASYNC_SPINS 64
#define LC_ASYNC_NAP_MIN_NS 20000L
#define LC_ASYNC_NAP_MAX_NS 1000000L
/* A nap at least this long is cut short by a leave that started
 * something and left work pending. */
#define LC_ASYNC_RING_NAP_NS 160000L
/* An application that polls (MPI_Test and its kin while an operation it
 * started runs) drives progress itself: the thread takes over only once
 * no poll came for twice the polls' usual interval (lc_async_gap_ns),
 * at least LC_ASYNC_IDLE_MIN_NS.  Intervals longer than
 * LC_ASYNC_IDLE_MAX_NS are not a polling loop: not averaged. */
#define LC_ASYNC_IDLE_MIN_NS 20000L
#define LC_ASYNC_IDLE_MAX_NS 1000000L
/* The slice asked of the scheduler (EEVDF custom slice, Linux 6.12+). */
#define LC_ASYNC_SLICE_NS 100000ULL

static pthread_t lc_async_thread;
static pthread_mutex_t lc_async_mx = PTHREAD_MUTEX_INITIALIZER;
static lc_shm_bell_t *lc_async_bell; /* where the thread sleeps (lc_shm_bell.h) */
static lc_shm_bell_t lc_async_bell_off; /* after the stop: the segment may go away */
static int lc_async_running;       /* the thread exists (the caller's side only) */
static atomic_int lc_async_state;  /* stored under lc_async_mx; loaded anywhere */
static atomic_uint lc_async_calls; /* application calls that made progress passes (wraps) */
static atomic_long lc_async_nap_ns; /* length of the current nap */
static atomic_int lc_async_look;    /* a call started something during a short nap: pass at its end */
static atomic_int lc_async_busy;    /* the current nap is one while the application drives progress */
/* Section held (a leave, or the thread after its pass): */
static unsigned lc_async_started_seen; /* lc_request_started at the last leave */
static unsigned lc_async_passes_seen;  /* lc_progress_passes after the last leave or thread pass */
static unsigned lc_async_tests_seen;   /* lc_progress_tests at the last leave */
static long lc_async_poll_ns;          /* when the last start or poll left */
static int lc_async_polls;             /* polls since the last start */
/* Written by leaves (section held), read by the thread (relaxed): */
static atomic_long lc_async_polled_ns; /* when the last start or poll of a polling application left */
static atomic_long lc_async_gap_ns;    /* its polls' usual interval (moving average; 0: it does not poll) */
static int lc_async_quit;          /* under lc_async_mx */

/* Statistics (LOCUS_DEBUG=1 prints them at MPI_Finalize): how
 * often the doorbell rang, how many naps and passes the thread made. */
static atomic_ulong lc_async_rings;
static unsigned long lc_async_naps, lc_async_passes, lc_async_busy_naps, lc_async_bell_naps;

static long lc_async_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Whether the application drives progress by polling (the thread keeps
 * out): it polls, and its last start or poll is less than twice its
 * polls' usual interval ago. */
static int lc_async_app_polls(void)
{
    long gap = atomic_load_explicit(&lc_async_gap_ns, memory_order_relaxed);
    if (gap == 0) return 0;
    long limit = 2 * gap < LC_ASYNC_IDLE_MIN_NS ? LC_ASYNC_IDLE_MIN_NS : 2 * gap;
    return lc_async_now_ns() - atomic_load_explicit(&lc_async_polled_ns, memory_order_relaxed) < limit;
}

/* A leave that started something (`fresh`) or else polled (MPI_Test and
 * its kin: lc_progress_tests moved).  Section held.  The polls' interval is
 * averaged from a start or poll to the next poll; a start after an
 * operation that saw no poll (start, compute, Wait) says the application
 * does not poll: the average goes to 0, and the thread helps as soon as
 * the application is outside MPI. */
static void lc_async_note(int fresh)
{
    long gap = atomic_load_explicit(&lc_async_gap_ns, memory_order_relaxed);
    if (fresh && lc_async_polls == 0) {
        /* Not polling (start + Wait): no clock read per start.  The next
         * poll, if one comes, only sets the reference (poll_ns 0). */
        lc_async_poll_ns = 0;
        if (gap != 0) atomic_store_explicit(&lc_async_gap_ns, 0, memory_order_relaxed);
        return;
    }
    long now = lc_async_now_ns();
    if (fresh) {
        lc_async_polls = 0;
    } else {
        long d = now - lc_async_poll_ns;
        if (lc_async_poll_ns != 0 && d <= LC_ASYNC_IDLE_MAX_NS) gap = gap == 0 ? d : gap + (d - gap) / 4;
        lc_async_polls++;
    }
    lc_async_poll_ns = now;
    atomic_store_explicit(&lc_async_gap_ns, gap, memory_order_relaxed);
    atomic_store_explicit(&lc_async_polled_ns, now, memory_order_relaxed);
}

/* An application thread's outermost leave, section held, after it
 * counted itself out of lc_thread_inside.  Returns 1 when the thread
 * must be woken: the leave makes the system call (lc_async_wake) after
 * it released the section. */
static int lc_async_on_leave(void)
{
    /* A call that made progress passes itself (a Test, a wait; not an
     * MPI_Comm_rank) counts as the application driving progress. */
    unsigned passes = lc_count_get(&lc_progress_passes);
    if (passes != lc_async_passes_seen) {
        lc_async_passes_seen = passes;
        /* Written by leaves only, which the section serializes: no
         * read-modify-write needed. */
        atomic_store_explicit(&lc_async_calls, atomic_load_explicit(&lc_async_calls, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    unsigned started = lc_count_get(&lc_request_started);
    int fresh = started != lc_async_started_seen;
    lc_async_started_seen = started;
    unsigned tests = lc_progress_tests;
    int poll = tests != lc_async_tests_seen;
    lc_async_tests_seen = tests;
    if (fresh || poll) lc_async_note(fresh);
    if (!lc_progress_pending()) return 0;
    int s = atomic_load(&lc_async_state);
    /* A polling call while the thread keeps out of the application's way
     * (a busy nap): the application drives progress, and its next Test
     * finds the peer's packet.  Asking the peers to ring would wake the
     * thread for nothing — a wake-up that preempts a computing rank on
     * full cores — and then (until session 22) a pass under the section
     * beside the computing ranks: with 2 ranks on 2 cores and 16 Tests
     * in the compute phase, 1 MiB Ialltoall overlapped 12 % with the
     * thread against 59 % without it (quiet), ~0.7 thread passes and
     * ~1 ring per operation.  The thread takes over when the Tests stop
     * (lc_async_idle_limit), and then asks for the rings itself. */
    if ((poll || fresh) && s == LC_ASYNC_NAPPING && atomic_load_explicit(&lc_async_busy, memory_order_relaxed) &&
        atomic_load_explicit(&lc_async_gap_ns, memory_order_relaxed) != 0)
        return 0;
    /* Work is left for the thread: a packet from a peer now rings it
     * (this call's enter cleared the request; lc_shm_bell.h) — unless
     * this call started something while the thread naps because the
     * application drives progress, and either the nap is long (this
     * start rings the thread, below) or an earlier start already asked
     * for a look at this nap's end (a start + Wait loop).  In such a loop
     * (session 13) the peer's packet often came between the start's
     * leave and the Wait's enter, so the peer paid a FUTEX_WAKE and the
     * thread woke for nothing (the Wait polls): 2 ranks, one wake-up per
     * ~65 us instead of per ~160 us.  The first start of a short nap
     * still asks (the application may compute after it: the packet then
     * gets the thread at once, not at the nap's end), and so does a Test
     * that left work pending (a compute loop calling MPI_Test: the thread
     * takes over between the Tests). */
    int quiet = fresh && s == LC_ASYNC_NAPPING && atomic_load_explicit(&lc_async_busy, memory_order_relaxed) &&
                (atomic_load_explicit(&lc_async_nap_ns, memory_order_relaxed) >= LC_ASYNC_RING_NAP_NS ||
                 atomic_load_explicit(&lc_async_look, memory_order_relaxed));
    if (!quiet && !atomic_load_explicit(&lc_async_bell->wanted, memory_order_relaxed))
        atomic_store(&lc_async_bell->wanted, 1);
    if (s == LC_ASYNC_RUNNING) return 0;
    if (s == LC_ASYNC_NAPPING) {
        if (!fresh) return 0; /* the nap's end looks (see the header) */
        if (atomic_load_explicit(&lc_async_nap_ns, memory_order_relaxed) < LC_ASYNC_RING_NAP_NS) {
            /* Not woken: at the nap's end it looks, and makes a pass
             * if the application is outside MPI then. */
            atomic_store_explicit(&lc_async_look, 1, memory_order_relaxed);
            return 0;
        }
    }
    int wake = 0;
    pthread_mutex_lock(&lc_async_mx);
    s = atomic_load(&lc_async_state);
    if (s == LC_ASYNC_PARKED || s == LC_ASYNC_NAPPING) {
        atomic_store(&lc_async_state, LC_ASYNC_RUNNING); /* one signal per sleep */
        atomic_fetch_add_explicit(&lc_async_rings, 1, memory_order_relaxed);
        /* The bell moves now, under the mutex (the sleeper reads it
         * under the mutex before it sleeps: it cannot miss the move);
         * the futex wake waits until the section is free. */
        lc_shm_bell_bump(lc_async_bell);
        wake = 1;
    }
    pthread_mutex_unlock(&lc_async_mx);
    return wake;
}

/* After the section's unlock, when lc_async_on_leave returned 1. */
static void lc_async_wake(void)
{
    lc_shm_bell_wake(lc_async_bell);
}

/* lc_async_mx held; PARKED already stored.  Returns with it held, 1
 * when a leave rang (0: stop). */
static int lc_async_park(void)
{
    uint32_t v = atomic_load(&lc_async_bell->bell);
    while (atomic_load(&lc_async_state) == LC_ASYNC_PARKED && !lc_async_quit) {
        /* A leave rings with the mutex held after storing RUNNING: the
         * bell moves after v was read, so the wait cannot miss it. */
        pthread_mutex_unlock(&lc_async_mx);
        lc_shm_bell_wait(lc_async_bell, v, NULL);
        pthread_mutex_lock(&lc_async_mx);
        v = atomic_load(&lc_async_bell->bell);
    }
    atomic_store(&lc_async_state, LC_ASYNC_RUNNING);
    return !lc_async_quit;
}

/* lc_async_mx held; the section held when `held` (released here).
 * Sleeps `ns` unless rung (by a leave, or by a peer's packet: the bell
 * moved from v) or stopped; returns with the mutex held, 1 when rung. */
static int lc_async_nap(long ns, int held, uint32_t v)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ns;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    lc_async_naps++;
    atomic_store_explicit(&lc_async_nap_ns, ns, memory_order_relaxed);
    /* The busy naps are the ones that do not hold the section: the
     * thread made no pass because the application drives progress. */
    atomic_store_explicit(&lc_async_busy, !held, memory_order_relaxed);
    atomic_store(&lc_async_state, LC_ASYNC_NAPPING);
    if (held) lc_thread_leave_progress();
    int rung = 0;
    while (!lc_async_quit && atomic_load(&lc_async_state) == LC_ASYNC_NAPPING) {
        pthread_mutex_unlock(&lc_async_mx);
        int r = lc_shm_bell_wait(lc_async_bell, v, &t);
        pthread_mutex_lock(&lc_async_mx);
        if (atomic_load(&lc_async_bell->bell) != v) {
            lc_async_bell_naps++;
            rung = 1;
            break;
        }
        if (r < 0) break; /* the nap's end */
    }
    rung |= atomic_load(&lc_async_state) != LC_ASYNC_NAPPING;
    atomic_store(&lc_async_state, LC_ASYNC_RUNNING);
    return rung && !lc_async_quit;
}

static long lc_async_longer(long nap)
{
    return nap * 2 < LC_ASYNC_NAP_MAX_NS ? nap * 2 : LC_ASYNC_NAP_MAX_NS;
}

/* A nap while the application drives progress (with lc_async_mx held):
 * sleep, then double the next nap, capped just under the ring threshold
 * while starts keep asking for looks.  Returns whether a leave's
 * doorbell ended it. */
static int lc_async_busy_nap(long *nap)
{
    lc_async_busy_naps++;
    int rung = lc_async_nap(*nap, 0, atomic_load(&lc_async_bell->bell));
    *nap = lc_async_longer(*nap);
    if (atomic_load_explicit(&lc_async_look, memory_order_relaxed) && *nap >= LC_ASYNC_RING_NAP_NS)
        *nap = LC_ASYNC_RING_NAP_NS - 1000;
    return rung;
}

/* Ask for a short slice: EEVDF lets a waking thread with a shorter slice
 * preempt the running one (PREEMPT_SHORT), so a nap's end or a doorbell
 * gets a core from a computing application thread at once rather than at
 * the end of that thread's slice (~1.5 ms on 2 cores).  Older kernels
 * ignore sched_runtime for SCHED_OTHER; a failure changes nothing. */
static void lc_async_short_slice(void)
{
    struct {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
    } a;
    memset(&a, 0, sizeof(a));
    a.size = 48; /* SCHED_ATTR_SIZE_VER0 */
    a.policy = SCHED_OTHER;
    a.runtime = LC_ASYNC_SLICE_NS;
    (void)syscall(SYS_sched_setattr, 0, &a, 0U);
}

static void *lc_async_main(void *arg)
{
    (void)arg;
    unsigned idle = 0; /* fruitless passes in a row */
    long nap = LC_ASYNC_NAP_MIN_NS;
    int rung = 0; /* the last sleep ended by a leave's doorbell */
    unsigned spins =
        lc_world.yield_when_idle || 2 * lc_world.local_size > lc_world.usable_cores ? 0 : LC_ASYNC_SPINS;
    unsigned seen = atomic_load_explicit(&lc_async_calls, memory_order_relaxed);
    /* Exact naps (this thread only); a failure only makes them longer. */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    lc_async_short_slice();
    (void)pthread_setname_np(pthread_self(), "locus-progress"); /* for top -H, perf */
    pthread_mutex_lock(&lc_async_mx);
    while (!lc_async_quit) {
        atomic_store(&lc_async_state, LC_ASYNC_RUNNING);
        unsigned calls = atomic_load_explicit(&lc_async_calls, memory_order_relaxed);
        /* The application made calls that ran progress passes since the
         * last look: it is active (a start + Wait loop, a compute loop
         * calling MPI_Test). */
        int active = calls != seen;
        seen = calls;
        /* The ringing leave, or one during a short nap, started
         * something: look now (its own call is not the application
         * driving progress). */
        int look = rung || atomic_exchange_explicit(&lc_async_look, 0, memory_order_relaxed);
        rung = 0;
        /* The application polls (it called MPI_Test or a wait less
         * than lc_async_idle_limit ago): it drives progress itself, even
         * when a start or a peer's packet woke the thread (session 22:
         * the thread's passes between an application's Tests cost it
         * more than they gained, see lc_async_on_leave). */
        if (atomic_load_explicit(&lc_thread_inside, memory_order_relaxed) > 0 || (active && !look) ||
            lc_async_app_polls()) {
            /* The application drives progress itself: stay out of its
             * way (no pass, no section) and look again later.  The nap
             * doubles up to 1 ms, but while starts keep asking for looks
             * (Ibarrier + Wait in a loop: nearly every nap sees one) it
             * stops just under the doorbell's threshold, so the loop's
             * next start asks for a look at the nap's end rather than
             * ringing (a futex wake in the application's call and a
             * wake-up that preempts a rank).  Session 11 restarted the
             * nap at 20 us on every such look (50,000 wake-ups a second
             * per rank on cores the ranks fill); session 12 kept it but
             * let it grow only when no look came, so a loop that began
             * while the nap was short kept it short — one wake-up per
             * 20-40 us, each preempting a rank: the slow mode of
             * Ibarrier's bimodal latency (session 13). */
            if (look && nap >= LC_ASYNC_RING_NAP_NS) nap = LC_ASYNC_RING_NAP_NS - 1000; /* a look, not a ring */
            rung = lc_async_busy_nap(&nap);
            idle = 0;
            continue;
        }
        pthread_mutex_unlock(&lc_async_mx);

        lc_thread_enter_progress();
        if (!lc_progress_pending() && active) {
            /* Nothing to do, but the application is calling MPI: nap
             * (timed) rather than park.  A parked thread is rung by the
             * next start — a futex wake in the application's call and a
             * wake-up that preempts a rank — once per operation in a
             * start + Wait loop whose gap between Wait and the next
             * start a look happened to sample. */
            lc_thread_leave_progress();
            pthread_mutex_lock(&lc_async_mx);
            rung = lc_async_busy_nap(&nap);
            idle = 0;
            continue;
        }
        if (look) nap = LC_ASYNC_NAP_MIN_NS; /* it computes: make a pass now, and look again soon */
        if (!lc_progress_pending()) {
            pthread_mutex_lock(&lc_async_mx);
            atomic_store(&lc_async_state, LC_ASYNC_PARKED);
            lc_thread_leave_progress();
            rung = lc_async_park();
            idle = 0;
            nap = LC_ASYNC_NAP_MIN_NS;
            continue;
        }
        if (atomic_load_explicit(&lc_thread_inside, memory_order_relaxed) == 0) {
            lc_async_passes++;
            int events = lc_progress();
            lc_async_passes_seen = lc_count_get(&lc_progress_passes); /* this pass is not the application's */
            if (events > 0) {
                idle = 0;
                nap = LC_ASYNC_NAP_MIN_NS;
            } else if (++idle > spins) {
                /* Ask the peers to ring, then look once more: a packet
                 * that came before the ask is found by this pass, one
                 * after it rings (lc_shm_bell.h). */
                atomic_store(&lc_async_bell->wanted, 1);
                uint32_t v = atomic_load(&lc_async_bell->bell);
                int late = lc_progress();
                lc_async_passes_seen = lc_count_get(&lc_progress_passes); /* the thread's, as above */
                if (late > 0) {
                    idle = 0;
                    nap = LC_ASYNC_NAP_MIN_NS;
                    lc_thread_leave_progress();
                    pthread_mutex_lock(&lc_async_mx);
                    continue;
                }
                pthread_mutex_lock(&lc_async_mx);
                rung = lc_async_nap(nap, 1, v); /* releases the section */
                nap = rung ? LC_ASYNC_NAP_MIN_NS : lc_async_longer(nap);
                idle = 0;
                continue;
            }
        } /* else someone waits for the section: let it in, nap above */
        /* Between passes the section is free for the application. */
        lc_thread_leave_progress();
        if (idle) lc_cpu_relax();
        pthread_mutex_lock(&lc_async_mx);
    }
    pthread_mutex_unlock(&lc_async_mx);
    return NULL;
}

int lc_async_start(void)
{
    if (!lc_params.async_progress || lc_async_running) return lc_async_running;
    lc_async_bell = lc_shm_bell_own();
    atomic_store(&lc_async_bell->wanted, 0);
    lc_thread_bell_wanted = &lc_async_bell->wanted;
    lc_async_quit = 0;
    atomic_store(&lc_async_state, LC_ASYNC_RUNNING);
    /* Before the thread exists and before MPI_Init returns: from here
     * every call of the application takes the section and counts itself
     * in lc_thread_inside (pthread_create orders these for the thread). */
    lc_thread_on_leave = lc_async_on_leave;
    lc_thread_after_leave = lc_async_wake;
    lc_thread_async = 1;
    lc_thread_nofast_set(LC_NOFAST_ASYNC, 1);
    /* The section only: the structures keep the single-threaded code the
     * application's level chose (lc_thread_calls_locked, lc_thread.h).
     * Until session 23 the thread switched them to MULTIPLE's locked code
     * too, which nearly doubled a message's path for nothing (8 B
     * ping-pong, rank 0's application thread, callgrind: 744
     * instructions without the thread, 1,352 with it): no thread touches
     * them outside the section here. */
    atomic_store_explicit(&lc_thread_sectioned, 1, memory_order_relaxed);
    int rc = pthread_create(&lc_async_thread, NULL, lc_async_main, NULL);
    if (rc != 0) {
        lc_log_warn("LOCUS_ASYNC_PROGRESS: cannot start the progress thread (%s); running without it",
                    strerror(rc));
        return 0;
    }
    lc_async_running = 1;
    return 1;
}

void lc_async_stop(void)
{
    if (!lc_async_running) return;
    pthread_mutex_lock(&lc_async_mx);
    lc_async_quit = 1;
    lc_shm_bell_ring(lc_async_bell);
    pthread_mutex_unlock(&lc_async_mx);
    /* The thread may need the section to reach its check of the flag. */
    int depth = lc_thread_suspend();
    pthread_join(lc_async_thread, NULL);
    lc_thread_resume(depth);
    lc_async_running = 0;
    lc_thread_bell_wanted = NULL;
    lc_async_bell = &lc_async_bell_off;
    if (lc_params.debug)
        lc_log_warn("async progress: %lu rings, %lu naps (%lu while the application called MPI; %lu ended by "
                    "the doorbell: a ring or a peer's packet), %lu passes",
                    (unsigned long)atomic_load(&lc_async_rings), lc_async_naps, lc_async_busy_naps,
                    lc_async_bell_naps, lc_async_passes);
}
