/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_starve.c — LOCUS_POLL=auto's decision that foreign load takes a
 * spinning wait's core (lc_starve_look, src/pt2pt/lc_starve.c), fed with
 * made-up looks at the thread: one every 100 us of spinning (2048
 * fruitless passes), its involuntary switches and CPU time.
 *
 *  - light periodic activity (a kernel thread or monitor waking at 100 Hz
 *    for 20 us, 0.2 % of the core) is no load: the waits keep spinning.
 *    Issue 13, session 20: counting switches alone slept on the doorbell
 *    there, and the 4 KiB ping-pong average went from 1.13 to 1.43 us;
 *  - a busy neighbour that shares the core (3 ms slices, half of it) is
 *    load within the 50 ms window, and stays so while it preempts the
 *    sleeping waits; the waits spin again once a look sees no switch;
 *  - a thread that sleeps of its own will (voluntary switches only) is
 *    never pressed.
 */
#include "pt2pt/lc_starve.h"
#include "lc_unit_check.h"

#define LOOK 100e-6 /* s between looks */

/* A thread's clock: wall time goes on, CPU time only while on its core. */
typedef struct sim {
    lc_starve_state_t st;
    lc_starve_sample_t s;
} sim_t;

static void sim_init(sim_t *m)
{
    *m = (sim_t){ { 0 }, { .nivcsw = 7, .cpu = 1.0, .wall = 100.0 } };
}

/* `run` s on the core, then `off` s preempted (an involuntary switch
 * when off > 0), then a look: its verdict. */
static int sim_step(sim_t *m, double run, double off)
{
    m->s.cpu += run;
    m->s.wall += run + off;
    if (off > 0) m->s.nivcsw++;
    return lc_starve_look(&m->st, &m->s);
}

int main(void)
{
    sim_t m;

    /* 2 s of spinning beside a 100 Hz x 20 us waker: never pressed. */
    sim_init(&m);
    int pressed = 0;
    for (int i = 0; i < 20000; i++) pressed += sim_step(&m, LOOK, i % 100 == 50 ? 20e-6 : 0);
    CHECKF(pressed == 0, "light periodic preemption (0.2 %% of the core) taken for load at %d looks", pressed);

    /* The same at 1 kHz x 5 us (0.5 %): still not load. */
    sim_init(&m);
    pressed = 0;
    for (int i = 0; i < 20000; i++) pressed += sim_step(&m, LOOK, i % 10 == 5 ? 5e-6 : 0);
    CHECKF(pressed == 0, "1 kHz x 5 us preemption taken for load at %d looks", pressed);

    /* A busy neighbour: 3 ms on, 3 ms off.  Pressed within 50 ms. */
    sim_init(&m);
    int first = -1;
    for (int i = 0; i < 1000 && first < 0; i++)
        if (sim_step(&m, LOOK, i % 30 == 29 ? 3e-3 : 0)) first = i;
    CHECKF(first >= 0, "a neighbour taking half of the core never seen as load");
    CHECKF(first >= 0 && first * LOOK + (first / 30) * 3e-3 < 0.05,
           "a neighbour taking half of the core seen only after %d looks", first);
    /* Sleeping now: a look after a preemption keeps it pressed, one
     * without any sends the waits back to spinning. */
    CHECK(sim_step(&m, 1e-3, 3e-3) == 1);
    CHECK(sim_step(&m, 1e-3, 0) == 0);
    /* And spinning again beside the light waker stays spinning. */
    pressed = 0;
    for (int i = 0; i < 5000; i++) pressed += sim_step(&m, LOOK, i % 100 == 50 ? 20e-6 : 0);
    CHECKF(pressed == 0, "light preemption after the load went taken for load at %d looks", pressed);

    /* Voluntary sleeps only (an application's nanosleep between waits):
     * wall time runs ahead of CPU time, but nothing preempted it. */
    sim_init(&m);
    pressed = 0;
    for (int i = 0; i < 5000; i++) {
        m.s.wall += i % 10 == 0 ? 2e-3 : 0;
        pressed += sim_step(&m, LOOK, 0);
    }
    CHECKF(pressed == 0, "voluntary sleeps taken for load at %d looks", pressed);

    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("PASS\n");
    return failures != 0;
}
