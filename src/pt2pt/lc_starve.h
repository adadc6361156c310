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

#endif
