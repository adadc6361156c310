/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_test_cpu.h — what the tests of waiting behaviour share (poll_yield,
 * threads_park): the calling thread's CPU time, and pinning the process
 * to one CPU so that its ranks or threads outnumber its cores.  The
 * including file defines _GNU_SOURCE (sched_setaffinity) first.
 */
#ifndef LC_TEST_CPU_H
#define LC_TEST_CPU_H

#include <sched.h>
#include <time.h>

/* CPU time of the calling thread, in ms. */
static inline double lc_test_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Pin this process to the first CPU of its affinity mask (nothing on
 * failure: the test then measures an unpinned process). */
static inline void lc_test_pin_first_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_ZERO(&set);
            CPU_SET(c, &set);
            sched_setaffinity(0, sizeof(set), &set);
            return;
        }
}

#endif
