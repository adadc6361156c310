/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the CMA-or-pipeline choice (src/pt2pt/lc_pt2pt_pick.c,
 * LOCUS_CMA_THRESHOLD=auto): samples alternate, a pipeline sample only
 * for a lone message, each size class decides on its own after 3 + 3
 * samples (pipeline 1.5x CMA: always; faster: for lone messages, CMA
 * while another is pipelined; else CMA), messages that cannot be timed
 * are not, oversubscribed hosts pull at once; samples count from when the
 * receiver took the RTS (plus the fastest transit); a chosen pipeline that
 * crawls goes to CMA, and messages a datatype packs or unpacks neither
 * count in that watch nor let it time the ring while they hold it
 * (through lc_deliver too, for a cursor on either side); a decided class
 * keeps timing its messages, probes the other protocol every 32 and changes its mind when the recent best
 * samples say so (and not on noise within the hysteresis); every decision
 * is sampled afresh after 4096 messages; windows follow the pipeline's
 * measured window rate (fast windows behind lone samples near CMA's: the
 * pipeline always; slow windows behind fast lone samples: alone only),
 * a watch period with a pull in it neither demotes nor counts, and a
 * much slower protocol is probed more rarely; a window whose pipeline was
 * measured slower than CMA no longer follows a pipeline sample onto the
 * pipeline, and both protocols' figures age over the same samples'
 * rounds (a burst of slow pulls does not flip a class); one slow watch
 * period (a stall) does not demote, two in a row do; windows faster and
 * lone messages slower through the pipeline than by CMA split (windows
 * pipelined, lone messages pulled), every period of a window counts for
 * its figure, and the RTS transit is added when the figures are made; a
 * watch period judges only the class it saw alone (one of several
 * classes judges none); windows that went to CMA on a window figure get
 * window probes (counted once per window), which bring them back when
 * the pipeline's windows are fast again, also after a figure taken in a
 * burst that slowed CMA too (weighed against CMA's figure of its time);
 * and the
 * parameter: "auto" is the default, a number fixes it, "auto" is refused
 * where it is not the default.  The cases of the bw benchmark's windows,
 * the variants, the watch and the engine's side are in
 * test_pt2pt_pick_{windows,variant,watch}.c; the modelled pair they share
 * is lc_pick_model.h.
 */
#include <time.h>

#include "lc_pick_model.h"

int main(void)
{
    CHECK(lc_params_load() == 0);
    CHECK(lc_params.cma_threshold == LC_PARAM_SIZE_AUTO);
    setenv("LOCUS_CMA_THRESHOLD", "1m", 1);
    CHECK(lc_params_load() == 0 && lc_params.cma_threshold == MiB);
    setenv("LOCUS_CMA_THRESHOLD", "AUTO", 1);
    CHECK(lc_params_load() == 0 && lc_params.cma_threshold == LC_PARAM_SIZE_AUTO);
    setenv("LOCUS_EAGER_LIMIT", "auto", 1); /* its default is a number */
    CHECK(lc_params_load() == -1);
    unsetenv("LOCUS_EAGER_LIMIT");
    unsetenv("LOCUS_CMA_THRESHOLD");
    CHECK(lc_params_load() == 0);

    static lc_peer_t p;
    fresh_peer(&p);
    CHECK(p.pull_min == LC_PICK_MIN && p.pick.calibrate);

    /* 1-4 MiB: pipeline 10 GB/s, CMA 8 GB/s: faster, not by 1.5x: the
     * pipeline for a lone message, CMA for one more in a window. */
    for (int i = 0; i < 3; i++) {
        pipe_sample(&p, MiB, MiB / 10e9);
        CHECK(lc_pick_choose(&p, MiB, 0, false) == LC_PICK_PIPE); /* untimed, undecided, lone: pipeline */
        pull_sample(&p, MiB, MiB / 8e9);
    }
    CHECK(p.pick.cls[2].choice == 3);
    /* decided: a lone message is still timed (one sample at a time) */
    CHECK((lc_pick_choose(&p, 2 * MiB, 0, true) & ~LC_PICK_NT) == (LC_PICK_PIPE | LC_PICK_SAMPLE) && p.pick.sampling);
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, true) == LC_PICK_PIPE);
    p.pick.sampling = false;
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, false) == LC_PICK_PIPE);
    p.pick.pipelining = 1; /* a window: the pull is also timed as one of a window's (LC_PICK_WIN) */
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, true) == (LC_PICK_PULL | LC_PICK_SAMPLE | LC_PICK_WIN));
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, false) == LC_PICK_PULL);
    CHECK(lc_pick_choose(&p, 8 * MiB, 0, false) == LC_PICK_PULL); /* undecided, untimed, busy: CMA */
    p.pick.pipelining = 0;
    /* An exchange: a rendezvous send of ours to the peer in flight makes
     * its message to us part of a window (each direction pipelining at
     * once would copy every fragment twice on each core): CMA. */
    p.pick.sending = 1;
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, true) == (LC_PICK_PULL | LC_PICK_SAMPLE));
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, false) == LC_PICK_PULL);
    p.pick.sending = 0;
    CHECK(lc_pick_choose(&p, 2 * MiB, 0, false) == LC_PICK_PIPE);
    lc_pick_sample(&p, 8 * MiB, 1, -1.0); /* a clock from elsewhere: ignored */
    lc_pick_sample(&p, 8 * MiB, 0, 20.0);
    CHECK(p.pick.cls[3].n_pull == 0 && p.pick.cls[3].n_pipe == 0);

    /* 64-256 KiB, still undecided; a pipeline sample in flight keeps the
     * next messages on the pipeline, untimed; with another message being
     * pipelined a pipeline sample is not possible, so a pull is timed. */
    CHECK(lc_pick_choose(&p, 64 * KiB, 0, true) == (LC_PICK_PIPE | LC_PICK_SAMPLE));
    lc_request_t req = { .msg_size = 64 * KiB }, req2 = { .msg_size = 100 * KiB };
    lc_pick_pipe_start(&p, &req, LC_PICK_PIPE | LC_PICK_SAMPLE, lc_time_now() - 64 * KiB / 40e9, false);
    CHECK(lc_pick_choose(&p, 100 * KiB, 0, true) == LC_PICK_PIPE);
    lc_pick_pipe_start(&p, &req2, LC_PICK_PIPE, 0, false);
    lc_pick_pipe_done(&p, &req);
    CHECK(p.pick.pipelining == 1 && !p.pick.sampling);
    for (int i = 0; i < 3; i++) pull_sample(&p, 200 * KiB, 200 * KiB / 10e9);
    /* CMA has its 3, the pipeline is busy: a pull timed as a window's */
    CHECK(lc_pick_choose(&p, 64 * KiB, 0, true) == (LC_PICK_PULL | LC_PICK_WIN));
    lc_pick_pipe_done(&p, &req2);
    /* pipeline 40 GB/s against CMA 10 (a shared cache): the pipeline. */
    pipe_sample(&p, 128 * KiB, 128 * KiB / 40e9);
    pipe_sample(&p, 128 * KiB, 128 * KiB / 35e9);
    CHECK(p.pick.cls[0].choice == 2);
    CHECK(lc_pick_choose(&p, 255 * KiB, 0, false) == LC_PICK_PIPE);
    p.pick.pipelining = 1;
    CHECK(lc_pick_choose(&p, 255 * KiB, 0, true) == LC_PICK_PIPE); /* always; busy: not timed */
    CHECK(lc_pick_choose(&p, MiB, 0, true) & LC_PICK_PULL);        /* the other class keeps its own */
    p.pick.pipelining = 0;

    /* 256 KiB-1 MiB: CMA as fast as the pipeline: CMA. */
    for (int i = 0; i < 3; i++) {
        pipe_sample(&p, 300 * KiB, 300 * KiB / 9e9);
        pull_sample(&p, 300 * KiB, 300 * KiB / 9e9);
    }
    CHECK(p.pick.cls[1].choice == 1 && lc_pick_choose(&p, 400 * KiB, 0, true) == (LC_PICK_PULL | LC_PICK_SAMPLE));

    /* The first samples unlucky one way (a peer descheduled, pages never
     * touched): CMA read 6 GB/s, so the pipeline (8) was chosen for lone
     * messages.  The class keeps timing its pipelined messages and every
     * 32nd timed one is a CMA probe: the first probe at 13 GB/s changes
     * it to CMA; from then on pipeline probes at 8 GB/s leave it there,
     * and so do CMA samples at 12.5 (within the hysteresis of 13 against
     * the pipeline's 8: not a boundary).  When the CMA figures age out to
     * 8.5 against a pipeline at 9 (1.06x: inside the 1.12 hysteresis) it
     * stays CMA; at 10 against 8.5 it goes back to the pipeline. */
    memset(&p.pick.cls[1], 0, sizeof(p.pick.cls[1]));
    for (int i = 0; i < 3; i++) {
        pipe_sample(&p, 512 * KiB, 512 * KiB / 8e9);
        pull_sample(&p, 512 * KiB, 512 * KiB / 6e9);
    }
    lc_pick_class_t *c1 = &p.pick.cls[1];
    CHECK(c1->choice == 3 && c1->flips == 0);
    int probes = 0, n = 0;
    while (c1->choice != 1 && n < 200) { /* lone ping-pong messages */
        int how = lc_pick_choose(&p, 512 * KiB, 0, true);
        CHECK(how & LC_PICK_SAMPLE);
        n++;
        if (how & LC_PICK_PULL) {
            probes++;
            lc_pick_sample(&p, 512 * KiB, 1, 512 * KiB / 13e9);
        } else {
            pipe_msg(&p, how, 512 * KiB, 512 * KiB / 8e9);
        }
    }
    /* (on the way the watch's 16 lone messages at 8 GB/s, its first
     * window figure, beat CMA's 6 by more than the hysteresis: the
     * pipeline always) */
    CHECK(c1->choice == 1 && probes == 1 && n == 32 && c1->flips == 2 && c1->win_bw > 7.9e9);
    probes = 0;
    for (n = 0; n < 200; n++) {
        int how = lc_pick_choose(&p, 512 * KiB, 0, true);
        if (how & LC_PICK_PULL) {
            lc_pick_sample(&p, 512 * KiB, 1, 512 * KiB / 12.5e9);
        } else {
            probes++;
            pipe_msg(&p, how, 512 * KiB, 512 * KiB / 8e9);
        }
    }
    CHECK(c1->choice == 1 && probes == 6 && c1->flips == 2);
    for (n = 0; n < 6; n++) { /* two rounds of both (they end together): 13 ages out */
        lc_pick_sample(&p, 512 * KiB, 1, 512 * KiB / 8.5e9);
        lc_pick_sample(&p, 512 * KiB, 0, 512 * KiB / 9e9);
    }
    CHECK(c1->choice == 1 && c1->pull_bw < 8.6e9 && c1->pipe_bw > 8.9e9);
    lc_pick_sample(&p, 512 * KiB, 0, 512 * KiB / 10e9);
    CHECK(c1->choice == 3 && c1->flips == 3); /* windows (8) still slower than CMA: alone only */
    /* Both directions of a pair decide alike from alike samples: the
     * choice is a function of the samples only (the sender follows the
     * receiver's CTS or FIN, so each direction agrees by construction). */
    static lc_peer_t q;
    fresh_peer(&q);
    for (int i = 0; i < 3; i++) {
        pipe_sample(&q, 512 * KiB, 512 * KiB / 8e9);
        pull_sample(&q, 512 * KiB, 512 * KiB / 6e9);
    }
    CHECK(q.pick.cls[1].choice == 3);
    CHECK(lc_pick_choose(&q, 512 * KiB, 0, false) == lc_pick_choose(&p, 512 * KiB, 0, false));

    /* A receiver late to take the RTS: the sample counts from when it did,
     * plus the fastest transit seen (1 us), not the 5 ms it was away. */
    lc_pick_transit(&p, 5e-3);
    lc_pick_transit(&p, 1e-6);
    lc_pick_transit(&p, -1.0); /* a clock from elsewhere: ignored */
    CHECK(p.pick.transit == 1e-6);
    for (int i = 0; i < 3; i++) {
        pipe_sample(&p, 8 * MiB, 8 * MiB / 40e9 - 1e-6);
        pull_sample(&p, 8 * MiB, 8 * MiB / 10e9 - 1e-6);
    }
    CHECK(p.pick.cls[3].choice == 2);
    CHECK(p.pick.cls[3].pull_bw > 9.9e9 && p.pick.cls[3].pull_bw < 10.1e9);
    /* The transit is added when the figures are made: pulls taken while the
     * fastest transit seen was 75 us (a run's first RTSs queued behind each
     * other) count with the 1.8 us known later, not as 0.8 GB/s. */
    static lc_peer_t t;
    fresh_peer(&t);
    lc_pick_transit(&t, 75e-6);
    for (int i = 0; i < 3; i++) lc_pick_sample(&t, 64 * KiB, 1, 6.3e-6);
    lc_pick_transit(&t, 1.8e-6);
    for (int i = 0; i < 3; i++) lc_pick_sample(&t, 64 * KiB, 0, 64 * KiB / 12e9 - 1.8e-6);
    CHECK(t.pick.cls[0].pull_bw > 8e9 && t.pick.cls[0].pipe_bw > 11.9e9 && t.pick.cls[0].pipe_bw < 12.1e9);
    CHECK(t.pick.cls[0].choice == 3); /* 12 against 8.1: alone only (against 0.8: always) */

    /* The chosen pipeline watched: moving fast keeps it (1 GiB messages
     * at once: a descheduled test would need seconds to look slow)... */
    lc_request_t w = { .msg_size = 1024 * MiB };
    for (int i = 0; i < 16; i++) {
        lc_pick_pipe_start(&p, &w, LC_PICK_PIPE, 0, false);
        lc_pick_pipe_done(&p, &w);
    }
    CHECK(p.pick.cls[3].choice == 2 && p.pick.pipelining == 0 && p.pick.watching == 0);
    /* ...messages that a datatype packs or unpacks are not the channel's
     * rate (the x face of a 256^3 array, 8-byte elements, moves at ~0.5
     * GB/s whatever the channel): 32 of them at 0.8 GB/s, lone or two at a
     * time, demote nothing, and leave the watch's counts balanced... */
    lc_pick_class_t before[LC_PICK_CLASSES];
    memcpy(before, p.pick.cls, sizeof(before));
    p.pick.watch_msgs = 0; /* as just after a judgement */
    p.pick.watch_bytes = p.pick.watch_time = 0;
    for (int i = 0; i < 16; i++) {
        lc_request_t a = { .msg_size = 8 * MiB }, b = { .msg_size = 8 * MiB };
        lc_pick_pipe_start(&p, &a, LC_PICK_PIPE, 0, true);
        CHECK(a.pick_watch == LC_PICK_LAYOUT && p.pick.layout_bound == 1 && p.pick.watching == 0);
        if (i & 1) lc_pick_pipe_start(&p, &b, LC_PICK_PIPE, 0, true);
        nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        lc_pick_pipe_done(&p, &a);
        if (i & 1) lc_pick_pipe_done(&p, &b);
        lc_pick_pipe_start(&p, &a, LC_PICK_PIPE, 0, true); /* a small typed one is outside the watch too */
        CHECK(a.pick_watch == LC_PICK_LAYOUT);
        lc_pick_pipe_done(&p, &a);
        CHECK(a.pick_watch == LC_PICK_UNWATCHED);
    }
    CHECK(p.pick.pipelining == 0 && p.pick.watching == 0 && p.pick.layout_bound == 0);
    CHECK(p.pick.watch_msgs == 0 && p.pick.watch_bytes == 0 && p.pick.watch_time == 0);
    for (int i = 0; i < LC_PICK_CLASSES; i++)
        CHECK(p.pick.cls[i].choice == before[i].choice && !p.pick.cls[i].demoted);
    CHECK(p.pick.cls[3].choice == 2 && p.pick.cls[0].choice == 2);
    /* ...and a contiguous message waiting behind one in the ring (a halo
     * exchange posts all its faces at once) is not timed while it waits:
     * the clock stops while a layout-bound receive is pending, here all
     * the time these 16 contiguous 8 MiB messages took, 10 ms each. */
    for (int i = 0; i < 16; i++) {
        lc_request_t t = { .msg_size = 8 * MiB }, c = { .msg_size = 8 * MiB };
        lc_pick_pipe_start(&p, &t, LC_PICK_PIPE, 0, true);
        lc_pick_pipe_start(&p, &c, LC_PICK_PIPE, 0, false);
        CHECK(c.pick_watch == LC_PICK_WATCHED && p.pick.watching == 1 && p.pick.layout_bound == 1);
        nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        lc_pick_pipe_done(&p, &c);
        CHECK(i == 15 || p.pick.watch_time == 0); /* judged (and reset) at the 16th */
        lc_pick_pipe_done(&p, &t);
    }
    CHECK(p.pick.pipelining == 0 && p.pick.watching == 0 && p.pick.layout_bound == 0);
    for (int i = 0; i < LC_PICK_CLASSES; i++)
        CHECK(p.pick.cls[i].choice == before[i].choice && !p.pick.cls[i].demoted);
    /* ...a pipeline crawling at < 0.5x CMA's samples (8 MiB per 10 ms, two
     * at a time: the window's time counts once) goes to CMA... */
    for (int i = 0; i < 16; i++) { /* at least one judgement sees only these */
        lc_request_t a = { .msg_size = 8 * MiB }, b = { .msg_size = 8 * MiB };
        lc_pick_pipe_start(&p, &a, LC_PICK_PIPE, 0, false);
        lc_pick_pipe_start(&p, &b, LC_PICK_PIPE, 0, false);
        CHECK(p.pick.pipelining == 2);
        nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        lc_pick_pipe_done(&p, &a);
        lc_pick_pipe_done(&p, &b);
    }
    CHECK(p.pick.cls[3].choice == 1 && p.pick.cls[3].uses == 0);
    /* (and only it: the other classes are judged by periods of their own,
     * one_class_per_period) */
    CHECK(p.pick.cls[0].choice == 2 && p.pick.cls[1].choice == 3 && !p.pick.cls[0].demoted && !p.pick.cls[1].demoted);
    /* ...and every decision is sampled again after LC_PICK_RETRY messages. */
    int pulled = 0;
    for (int i = 0; i < 4095; i++) pulled += lc_pick_choose(&p, 8 * MiB, 0, true) == (LC_PICK_PULL | LC_PICK_SAMPLE);
    CHECK(pulled == 4095);
    CHECK(lc_pick_choose(&p, 8 * MiB, 0, true) == (LC_PICK_PIPE | LC_PICK_SAMPLE));
    CHECK(p.pick.cls[3].choice == 0 && p.pick.cls[3].n_pull == 0 && p.pick.cls[3].uses == 0);
    p.pick.sampling = false;
    /* Messages below LC_PICK_MIN always pipeline and are not watched. */
    lc_request_t small = { .msg_size = 32 * KiB };
    lc_pick_pipe_start(&p, &small, LC_PICK_PIPE, 0, false);
    CHECK(p.pick.pipelining == 1 && p.pick.watching == 0);
    lc_pick_pipe_done(&p, &small);
    CHECK(p.pick.pipelining == 0);

    /* Session 13: the same VM, run to run, pipelines windows at ~30 GB/s
     * or at 3-5, while lone samples of either read near CMA's 13.  The
     * first window (a pipeline sample in flight keeps the rest on the
     * pipeline) gives the class its window figure, and windows follow
     * it: 1 MiB lone 14 against CMA 13, windows 30: the pipeline always
     * (the 1.5x rule alone said "alone only": windows on CMA, 0.44x). */
    static lc_peer_t r;
    fresh_peer(&r);
    lc_pick_class_t *c2 = &r.pick.cls[2];
    CHECK(pipe_window(&r, MiB, 16, 30e9, 14e9, 13e9) == 16 && c2->choice == 0 && c2->win_bw > 29e9);
    for (int i = 0; i < 2; i++) {
        pull_sample(&r, MiB, MiB / 13e9);
        pipe_sample(&r, MiB, MiB / 14e9);
    }
    pull_sample(&r, MiB, MiB / 13e9);
    CHECK(c2->choice == 2 && c2->pipe_bw < 14.1e9);
    /* The next window is a CMA window probe (pulled whole: CMA's windows
     * not measured yet, session 19), then windows stay on the pipeline. */
    CHECK(pipe_window(&r, MiB, 64, 30e9, 14e9, 13e9) == 1 && c2->pwin_bw > 12e9); /* the lone first: pipelined */
    for (int i = 0; i < 8; i++) CHECK(pipe_window(&r, MiB, 64, 30e9, 14e9, 13e9) >= 63); /* a CMA probe first */
    CHECK(c2->choice == 2 && !c2->demoted);
    /* The slow mode: 4 MiB lone 17 (over 1.5x CMA's 10.6) but windows at
     * 3: the pipeline alone only, and a window's pulls around its lone
     * pipelined message do not count as the pipeline crawling (the lone
     * message waits for them: 16 windows read ~0.7 GB/s of late, which
     * demoted the class before). */
    lc_peer_pick_reset(&r, true); /* watch periods start with the window */
    lc_pick_class_t *c3 = &r.pick.cls[3];
    CHECK(pipe_window(&r, 4 * MiB, 16, 3e9, 17e9, 10.6e9) == 16 && c3->win_bw < 3.1e9);
    for (int i = 0; i < 2; i++) {
        pull_sample(&r, 4 * MiB, 4 * MiB / 10.6e9);
        pipe_sample(&r, 4 * MiB, 4 * MiB / 17e9);
    }
    pull_sample(&r, 4 * MiB, 4 * MiB / 10.6e9);
    CHECK(c3->choice == 3);
    for (int i = 0; i < 16; i++) CHECK(pipe_window(&r, 4 * MiB, 16, 3e9, 17e9, 10.6e9) == 1);
    CHECK(c3->choice == 3 && !c3->demoted && c3->win_bw < 3.1e9);
    /* A pipeline 3.5x slower than CMA is probed every ~126 messages, not
     * every 32 (each probe costs ~2.5 messages' time: 2 %, not 8 %). */
    lc_pick_class_t *c0 = &r.pick.cls[0];
    for (int i = 0; i < 3; i++) {
        pipe_sample(&r, 64 * KiB, 64 * KiB / 3e9);
        pull_sample(&r, 64 * KiB, 64 * KiB / 10.6e9);
    }
    CHECK(c0->choice == 1);
    probes = 0;
    for (n = 0; n < 1000; n++) {
        int how = lc_pick_choose(&r, 64 * KiB, 0, true);
        if (how & LC_PICK_PULL) {
            lc_pick_sample(&r, 64 * KiB, 1, 64 * KiB / 10.6e9);
        } else {
            probes++;
            pipe_msg(&r, how, 64 * KiB, 64 * KiB / 3e9);
        }
    }
    /* Lone messages only: the variant's missing lone samples (2 normal
     * and 1 non-temporal of 3 each after the alternating learning) are
     * spaced by cost too (session 23: every 32 only for a class whose
     * windows have a figure, variant_order); ~126 apart. */
    printf("probes of a pipeline 3.5x slower, lone messages: %d in 1000\n", probes);
    CHECK(c0->choice == 1 && probes == 7 && variant_decided(c0));

    /* A new class on a host where ranks outnumber cores: CMA at once. */
    memset(&p.pick.cls[3], 0, sizeof(p.pick.cls[3]));
    lc_world.local_size = 4;
    CHECK(lc_pick_choose(&p, 64 * MiB, 0, true) == LC_PICK_PULL);
    int piped = 0; /* and never a pipeline probe there */
    for (int i = 0; i < 200; i++) piped += !(lc_pick_choose(&p, 64 * MiB, 0, true) & LC_PICK_PULL);
    lc_pick_sample(&p, 64 * MiB, 0, 64 * MiB / 40e9); /* a stray pipeline figure changes nothing */
    CHECK(piped == 0 && p.pick.cls[3].choice == 1);

    /* A reset (a peer wired up again) forgets everything. */
    lc_peer_pick_reset(&p, false);
    CHECK(!p.pick.calibrate && p.pick.cls[0].choice == 0);

    if (failures) return 1;
    printf("test_pt2pt_pick: ok\n");
    return 0;
}
