/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_starve.h — LOCUS_POLL=auto's look at foreign load: is a spinning
 * wait being preempted by processes outside this job?
 */
#ifndef LC_STARVE_H
#define LC_STARVE_H

/* Called after each fruitless pass of a wait that could sleep on the
 * doorbell, in the auto mode when this job's ranks alone do not
 * outnumber the cores.  Returns 1 when the wait should sleep (foreign
 * load), 0 when it may spin.  One decrement on all but every
 * LC_STARVE_SPINS-th call. */
int lc_starve_pressed(void);

/* ---- the decision alone (lc_starve_look), for lc_starve_pressed and the
 * unit test: what one look sees of the waiting thread. */
typedef struct lc_starve_sample {
    long nivcsw; /* involuntary context switches so far (getrusage RUSAGE_THREAD) */
    double cpu;  /* the thread's CPU time so far, s (CLOCK_THREAD_CPUTIME_ID) */
    double wall; /* monotonic time, s */
} lc_starve_sample_t;

typedef struct lc_starve_state {
    int pressed;             /* the waits sleep: load seen, not yet gone */
    int started;             /* a window is open (base valid) */
    lc_starve_sample_t last; /* the previous look */
    lc_starve_sample_t base; /* the start of the window (spinning) */
} lc_starve_state_t;

/* One look: the new pressed state from the sample `now` (taken after
 * `state->last`).  Spinning, the waits turn to sleeping when, within a
 * window of about LC_STARVE_WINDOW, the thread was preempted at least
 * LC_STARVE_MIN_SWITCHES times *and* lost at least LC_STARVE_LOST_SHARE
 * of the window's time off its core; sleeping, they spin again after a
 * look with no involuntary switch since the last (lc_starve.c). */
int lc_starve_look(lc_starve_state_t *state, const lc_starve_sample_t *now);

#endif
