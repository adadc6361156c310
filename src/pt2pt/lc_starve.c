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
 * spinner once per time slice, every few ms, and takes about half of the
 * core; so load is LC_STARVE_MIN_SWITCHES switches within
 * LC_STARVE_WINDOW seconds *and* at least LC_STARVE_LOST_SHARE of that
 * window spent off the core (wall time minus the thread's CPU time).
 * The count alone was not enough (issue 13, session 20): light periodic
 * activity — a kernel thread, a monitor, a harness sampling /proc —
 * preempts a spinner for microseconds many times a second, and each time
 * 3 of those fell within 50 ms the waits slept on the doorbell for at
 * least LC_STARVE_SLEEPS passes, microseconds more per message.  On a machine
 * otherwise quiet (ranks SCHED_FIFO) a 100 Hz x 20 us waker on one core
 * (0.2 % of it) moved the 4 KiB ping-pong average from 1.13 to 1.43 us
 * while the spinning mode and MPICH did not move: the run-to-run spread
 * of issue 13's 4 KiB latency.  When load is seen the waits sleep on the
 * doorbell (lc_progress_sleep: up to 1 ms, rung by the peer's next
 * packet).  A sleeping thread switches voluntarily (its lost time says
 * nothing then), so after LC_STARVE_SLEEPS fruitless passes the look is
 * taken again: no involuntary switch in between, and the waits spin
 * again (until the next preemptions show the load is still there).
 *
 * Cost: two system calls (~0.2 µs each) per LC_STARVE_SPINS fruitless
 * passes (tens of ns each) while spinning; nothing on a pass that found
 * work.
 * The peers ring our doorbell (a fence and a load per shared-memory
 * packet) only while our bell's `pressed` says so; otherwise a packet
 * costs them one relaxed load of it (lc_shm_bell_check).
 *
 * State is per process and read by whichever thread waits: at
 * MPI_THREAD_SERIALIZED two threads' counts and CPU clocks mix, which
 * costs at most one needless round of sleeps (or one missed).  At
 * MPI_THREAD_MULTIPLE the waits leave the critical section instead and
 * never come here.
 */
#include "pt2pt/lc_starve.h"
#include "channel/lc_shm_bell.h"
#include "util/lc_util.h"

#include <sys/resource.h>
#include <time.h>

/* Fruitless spinning passes between looks. */
#define LC_STARVE_SPINS 2048
/* Fruitless sleeping passes between looks. */
#define LC_STARVE_SLEEPS 256
/* Load: this many involuntary switches within the window (a busy
 * neighbour's time slices are a few ms: 3 in 50 ms is 60 a second,
 * beyond what kernel threads and timers take from a quiet core) ... */
#define LC_STARVE_MIN_SWITCHES 3
#define LC_STARVE_WINDOW 0.05
/* ... and this share of the window lost off the core: a neighbour that
 * shares the core takes about half of it, kernel threads and monitors
 * far less than 1 %.  Wall minus CPU time also counts time the thread
 * slept of its own will outside our waits (an application's nanosleep),
 * so this only ever removes looks that the count alone took for load. */
#define LC_STARVE_LOST_SHARE 0.1

int lc_starve_look(lc_starve_state_t *st, const lc_starve_sample_t *now)
{
    int pressed;
    if (st->pressed) {
        pressed = now->nivcsw != st->last.nivcsw; /* preempted even while sleeping: still loaded */
    } else {
        if (!st->started) /* the first look, or the first since the load went */
            st->base = *now, st->started = 1;
        else if (now->wall - st->base.wall > LC_STARVE_WINDOW)
            st->base = st->last;
        double lost = (now->wall - st->base.wall) - (now->cpu - st->base.cpu);
        pressed =
            now->nivcsw - st->base.nivcsw >= LC_STARVE_MIN_SWITCHES && lost >= LC_STARVE_LOST_SHARE * LC_STARVE_WINDOW;
    }
    st->last = *now;
    if (pressed != st->pressed) st->started = 0;
    st->pressed = pressed;
    return pressed;
}

static struct {
    unsigned left; /* passes until the next look */
    lc_starve_state_t st;
} lc_starve = { .left = LC_STARVE_SPINS };

static void lc_starve_sample(lc_starve_sample_t *s)
{
    struct rusage ru;
    struct timespec ts;
    s->nivcsw = getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
    /* The thread's clock, not ru_utime + ru_stime: those are updated at
     * ticks and scheduling events, so they can lag by a whole tick. */
    s->cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + ts.tv_nsec * 1e-9 : 0.0;
    s->wall = lc_time_now();
}

int lc_starve_pressed(void)
{
    if (--lc_starve.left != 0) return lc_starve.st.pressed;
    lc_starve_sample_t now;
    lc_starve_sample(&now);
    int was = lc_starve.st.pressed;
    int pressed = lc_starve_look(&lc_starve.st, &now);
    if (pressed != was) {
        /* Peers ring our doorbell only while this says so (lc_shm_bell.h).
         * seq_cst: before the first sleep's store of wanted. */
        atomic_store_explicit(&lc_shm_bell_own()->pressed, (uint32_t)pressed, memory_order_seq_cst);
    }
    lc_starve.left = pressed ? LC_STARVE_SLEEPS : LC_STARVE_SPINS;
    return pressed;
}
