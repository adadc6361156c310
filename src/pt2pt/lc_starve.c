/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_starve.c — LOCUS_POLL=auto beside other jobs.
 *
 * At MPI_Init the auto mode compares this job's ranks on the host with
 * the cores they may run on; it cannot see other jobs.  Beside other
 * sessions' busy processes a spinning wait is preempted for whole time
 * slices while the peer it waits for may be off its core as long: 2-rank
 * 8 B round trips of 6–12 ms median (docs/architecture.md, "Progress and
 * waiting").  sched_yield is no cure: under the scheduler's autogroups
 * it passes the core only within the yielder's session, so beside busy
 * sessions each yield can hand them whole slices (0.3–1.4 ms median with
 * ranks in sessions of their own).  Sleeping on the doorbell is: the busy process
 * runs while we sleep, and the peer's ring wakes us with the wake-up
 * preference of a sleeper (median 0.3–10 µs).
 *
 * So the waiting thread looks, every LC_STARVE_SPINS fruitless passes,
 * at its own involuntary context switches (getrusage RUSAGE_THREAD,
 * ru_nivcsw: the kernel took the core while it was runnable).  A lone
 * switch says little: on a quiet machine a kernel thread or a timer
 * takes the core now and then, and treating each as load put 8 B
 * ping-pongs to sleep on the doorbell, 0.65-0.88 us against 0.12-0.13
 * spinning (alternated, quiet, session 15).  A busy neighbour preempts a
 * spinner once per time slice, every few ms, so load is
 * LC_STARVE_MIN_SWITCHES switches within LC_STARVE_WINDOW seconds; then
 * the waits sleep on the doorbell (lc_progress_sleep: up to 1 ms, rung by
 * the peer's next packet).  A sleeping thread switches voluntarily, so
 * after LC_STARVE_SLEEPS fruitless passes the look is taken again: no
 * involuntary switch in between, and the waits spin again (until the
 * next preemptions show the load is still there).
 *
 * Cost: one system call (~0.3 µs) per LC_STARVE_SPINS fruitless passes
 * (tens of ns each) while spinning; nothing on a pass that found work.
 * The peers ring our doorbell (a fence and a load per shared-memory
 * packet) only while our bell's `pressed` says so; otherwise a packet
 * costs them one relaxed load of it (lc_shm_bell_check).
 *
 * State is per process and read by whichever thread waits: at
 * MPI_THREAD_SERIALIZED two threads' counts mix, which costs at most one
 * needless round of sleeps.  At MPI_THREAD_MULTIPLE the waits leave the
 * critical section instead and never come here.
 */
#include "pt2pt/lc_starve.h"
#include "channel/lc_shm_bell.h"
#include "util/lc_util.h"

#include <sys/resource.h>

/* Fruitless spinning passes between looks. */
#define LC_STARVE_SPINS 2048
/* Fruitless sleeping passes between looks. */
#define LC_STARVE_SLEEPS 256
/* Load: this many involuntary switches within the window (a busy
 * neighbour's time slices are a few ms: 3 in 50 ms is 60 a second,
 * beyond what kernel threads and timers take from a quiet core). */
#define LC_STARVE_MIN_SWITCHES 3
#define LC_STARVE_WINDOW 0.05

static struct {
    unsigned left; /* passes until the next look */
    int pressed;   /* the waits sleep: load seen, not yet gone */
    long nivcsw;   /* involuntary switches at the last look */
    long base;     /* ... at the start of the window (spinning) */
    double since;  /* when the window started (s; 0: not yet) */
} lc_starve = { .left = LC_STARVE_SPINS };

static long lc_starve_nivcsw(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
    return ru.ru_nivcsw;
}

int lc_starve_pressed(void)
{
    if (--lc_starve.left != 0) return lc_starve.pressed;
    long now = lc_starve_nivcsw();
    double t = lc_time_now();
    int pressed;
    if (lc_starve.pressed) {
        pressed = now != lc_starve.nivcsw; /* preempted even while sleeping: still loaded */
    } else {
        if (lc_starve.since == 0) /* the first look, or the first since the load went */
            lc_starve.base = now, lc_starve.since = t;
        else if (t - lc_starve.since > LC_STARVE_WINDOW)
            lc_starve.base = lc_starve.nivcsw, lc_starve.since = t;
        pressed = now - lc_starve.base >= LC_STARVE_MIN_SWITCHES;
    }
    lc_starve.nivcsw = now;
    if (pressed != lc_starve.pressed) {
        /* Peers ring our doorbell only while this says so (lc_shm_bell.h).
         * seq_cst: before the first sleep's store of wanted. */
        atomic_store_explicit(&lc_shm_bell_own()->pressed, (uint32_t)pressed, memory_order_seq_cst);
        lc_starve.pressed = pressed;
        lc_starve.since = 0;
    }
    lc_starve.left = lc_starve.pressed ? LC_STARVE_SLEEPS : LC_STARVE_SPINS;
    return lc_starve.pressed;
}
