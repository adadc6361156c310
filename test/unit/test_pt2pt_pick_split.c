/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of CMA's variants in the pick (src/pt2pt/lc_pt2pt_pick_split.c):
 * the bw benchmark's windows on a modelled pair (lc_pick_model.h) whose
 * split pulls (receiver and sender copying one message together) move
 * faster, or slower, than one core's; the split weighed against the
 * pipeline; LOCUS_CMA_SPLIT forced and off; which pulls may be split;
 * and (session 23) lone messages, a ping-pong's, learning the split too.
 */
#include "channel/lc_shm_split.h"
#include "lc_pick_model.h"

static lc_shm_split_slot_t slots[LC_SHM_SPLIT_SLOTS];

/* A fresh calibrating peer that has claim slots (a shm peer: the split
 * is possible), LOCUS_CMA_SPLIT `split`. */
static void split_peer(lc_peer_t *p, size_t split)
{
    fresh_peer(p);
    p->kind = LC_CHANNEL_SHM;
    p->shm.rx_split = p->shm.tx_split = slots;
    lc_params.cma_split = split;
    lc_params.cma_split_chunk = 128 * KiB;
    model_split_pull = model_split_win = 0;
}

/* The bw benchmark's 22 windows of 64 at `size` on rates x and split
 * pulls at `split_bw` (alone and in windows); returns the pulls of
 * windows [from, 22) that were split, *pulled_p all pulls there. */
static int bw_split_run(lc_peer_t *p, size_t size, const rates_t *x, double split_bw, int from, int *pulled_p,
                        int *piped_p)
{
    model_split_pull = model_split_win = split_bw;
    int split = 0, pulled = 0, piped = 0;
    for (int w = 0; w < 22; w++) {
        int s0 = model_split;
        int n = pipe_window_v(p, size, 64, x, NULL);
        if (w >= from) {
            split += model_split - s0;
            pulled += 64 - n;
            piped += n;
        }
    }
    *pulled_p = pulled;
    if (piped_p) *piped_p = piped;
    return split;
}

/* Session 21's lead A/B (quiet, the session-21 Xeon): at 4 MiB the
 * pipeline's windows 11.1 GB/s, one core's pulls ~9 (CMA forced without
 * the split 1.52-2.06x slower than with it), split pulls 17.2; auto took
 * the pipeline (its timed pulls were never split).  Now CMA's windows are
 * timed both ways: the class pulls, and splits its pulls. */
static void split_faster_4m(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[3];
    const rates_t x = { { 11.1e9, 11.1e9 }, { 6e9, 6e9 }, 9e9, 9e9 };
    int pulled, piped;
    int split = bw_split_run(&r, 4 * MiB, &x, 17.2e9, 4, &pulled, &piped);
    printf("split_faster_4m: windows 4-21: %d pulled (%d split), %d pipelined; CMA windows one core %.1f, split "
           "%.1f, pipeline %.1f GB/s\n",
           pulled, split, piped, c->sv_bw[0] / 1e9, c->sv_bw[1] / 1e9, c->win_bw / 1e9);
    CHECK(c->choice == 1 /* CMA */ && c->split == 1);
    CHECK(c->sv_bw[1] > 17e9 && c->sv_bw[0] < 9.1e9 && c->pwin_bw > 17e9);
    /* Windows 4-21: all pulled but for probes, all split but for the
     * probes of one core's pull (none: every 32+ periods) and, since
     * session 23, the lone first pulls of some windows while the lone
     * variants learn (6 of each, one a window; the model times a lone
     * split pull at the split's window rate, which the bw benchmark's
     * Waitall would give it). */
    CHECK(piped <= 2 * 64 + 4 && split >= pulled - 6);
}

/* 1 MiB, the same A/B: one core's windows 11-16 GB/s, the split's 27-37,
 * the pipeline's ~17 (auto 17.7 against split CMA forced 31.5). */
static void split_faster_1m(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 17e9, 17e9 }, { 8e9, 8e9 }, 13e9, 14e9 };
    int pulled, piped;
    int split = bw_split_run(&r, MiB, &x, 31e9, 4, &pulled, &piped);
    printf("split_faster_1m: windows 4-21: %d pulled (%d split), %d pipelined\n", pulled, split, piped);
    CHECK(c->choice == 1 /* CMA */ && c->split == 1 && c->pwin_bw > 30e9);
    CHECK(piped <= 2 * 64 + 4 && split >= pulled - 6); /* as split_faster_4m */
}

/* The split slower than one core's pull (a sender that computes, or both
 * ranks on one core: its claims and slot cost a little, nobody helps):
 * one core's it is, and the pick still weighs CMA against the pipeline
 * on one core's figure. */
static void split_slower(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 10e9, 10e9 }, { 6e9, 6e9 }, 13e9, 14e9 };
    int pulled;
    int split = bw_split_run(&r, MiB, &x, 12.5e9, 6, &pulled, NULL);
    printf("split_slower: windows 6-21: %d pulled, %d split; CMA windows one core %.1f, split %.1f GB/s\n", pulled,
           split, c->sv_bw[0] / 1e9, c->sv_bw[1] / 1e9);
    CHECK(c->choice == 1 && c->split == 0 && c->pwin_bw < 14.1e9 && c->pwin_bw > 13.9e9);
    CHECK(split <= 16); /* at most one probe period */
    /* Within noise (split 1.05x one core's): the split is not taken
     * (LC_PICK_HYST). */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    bw_split_run(&r, MiB, &x, 14.7e9, 6, &pulled, NULL);
    CHECK(c->choice == 1 && c->split == 0);
}

/* Where the cores share a cache the pipeline's windows beat even the
 * split (session 11-22: 36 GB/s at 1 MiB): the pipeline. */
static void pipeline_beats_split(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 36e9, 36e9 }, { 20e9, 20e9 }, 13e9, 14e9 };
    int pulled, piped;
    bw_split_run(&r, MiB, &x, 25e9, 6, &pulled, &piped);
    printf("pipeline_beats_split: windows 6-21: %d pulled, %d pipelined; split %.1f, pipeline %.1f GB/s\n", pulled,
           piped, c->sv_bw[1] / 1e9, c->win_bw / 1e9);
    CHECK((c->choice == 2 || c->choice == 4) && c->split == 1 && piped >= 15 * 62);
}

/* The placement or the load changes: the split stops helping (the
 * sender leaves its Waitall for computation).  Its figure ages in rounds
 * and a probe period of one core's pull comes: the class goes back. */
static void split_then_not(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 10e9, 10e9 }, { 6e9, 6e9 }, 13e9, 14e9 };
    int pulled;
    bw_split_run(&r, MiB, &x, 30e9, 0, &pulled, NULL);
    CHECK(c->split == 1);
    int back = -1;
    for (int run = 0; run < 40 && back < 0; run++) {
        bw_split_run(&r, MiB, &x, 12e9, 0, &pulled, NULL);
        if (c->split == 0) back = run;
    }
    printf("split_then_not: one core's pull again after %d runs of 22 windows\n", back);
    CHECK(back >= 0 && back <= 20);
}

/* LOCUS_CMA_SPLIT forced (a size) and off; which pulls may be split. */
static void forced_and_eligible(void)
{
    static lc_peer_t r;
    /* Forced from 512 KiB: every pull from there, timed or not, nothing learnt. */
    split_peer(&r, 512 * KiB);
    const rates_t x = { { 10e9, 10e9 }, { 6e9, 6e9 }, 13e9, 14e9 };
    int pulled;
    int split = bw_split_run(&r, MiB, &x, 12e9, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == pulled && r.pick.cls[2].sv_n[0] == 0 && r.pick.cls[2].sv_n[1] == 0);
    split = bw_split_run(&r, 256 * KiB, &x, 12e9, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == 0);
    /* Off: never. */
    split_peer(&r, 0);
    split = bw_split_run(&r, MiB, &x, 30e9, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == 0);
    /* Auto, but a peer without claim slots (IVSHMEM, ofi), or a message
     * of one chunk: never split, never a split period. */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    r.shm.rx_split = r.shm.tx_split = NULL;
    split = bw_split_run(&r, MiB, &x, 30e9, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == 0 && r.pick.cls[2].sv_n[1] == 0);
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    split = bw_split_run(&r, 128 * KiB, &x, 30e9, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == 0);
    /* A pipelined message never carries LC_PICK_SPLIT (its CTS would ask
     * the sender to push into a receive that waits for fragments). */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    r.pick.cls[2].split = 1;
    for (int i = 0; i < 200; i++) {
        int how = lc_pick_choose(&r, MiB, 0, false);
        CHECK(!(how & LC_PICK_SPLIT) || (how & LC_PICK_PULL));
    }
}

/* Session 23: lone messages (a ping-pong: lc_osu_pt2pt -t lat, 10
 * warm-up and 100 timed round trips at large sizes), each posted long
 * after the one before: lone pulls at `pull` (one core) or `split_bw`
 * (split; 0: as one core's), lone pipelined messages at x->lone.  Each
 * goes the way lc_pick_choose says; a timed pull is timed as match.c and
 * lc_pt2pt_split.c time it (to the receive's completion).  Returns the
 * pulls of messages [from, n) that were split, *pulled_p all pulls there;
 * *t_p (if not NULL) gets their modelled time. */
/* The first cold_n split pulls of a lat_run move at cold_bw (a first
 * touch: the sender not yet in its Send, pages faulted in). */
static int cold_n;
static double cold_bw;

static int lat_run(lc_peer_t *p, size_t size, const rates_t *x, double split_bw, int n, int from, int *pulled_p,
                   double *t_p)
{
    int cold = cold_n;
    static double t_rts = 1e6; /* the sender's stamps, a second apart: never a window */
    int split = 0, pulled = 0;
    double t = 0;
    for (int i = 0; i < n; i++) {
        t_rts += 1.0;
        int how = lc_pick_choose(p, size, t_rts, true);
        double dt;
        if (how & LC_PICK_PULL) {
            CHECK(!(how & (LC_PICK_WIN | LC_PICK_NT)));
            dt = (double)size / ((how & LC_PICK_SPLIT) && split_bw > 0 ? split_bw : x->pull);
            if ((how & LC_PICK_SPLIT) && cold > 0) cold--, dt = (double)size / cold_bw;
            if (how & LC_PICK_SAMPLE) lc_pick_pull_done(p, size, how, t_rts, t_rts + dt);
            if (i >= from) pulled++, split += !!(how & LC_PICK_SPLIT);
        } else {
            CHECK(!(how & LC_PICK_SPLIT));
            dt = (double)size / x->lone[!!(how & LC_PICK_NT)];
            pipe_msg(p, how, size, dt);
        }
        if (i >= from) t += dt;
    }
    *pulled_p = pulled;
    if (t_p) *t_p = t;
    return split;
}

/* The lead's quiet ping-pong (session 23 brief, 2 ranks, one-way us): 1
 * MiB one core's pull 75-88, split 44 (a sender in MPI_Send helps), the
 * pipeline 101-116.  Until session 23 lone pulls took the windows'
 * variant, and a ping-pong has no windows: never split.  Now the lone
 * pulls learn it within the warm-up, and the timed ones are split but
 * for the probes; their time within 5 % of the split forced. */
static void lone_split_faster(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 9e9, 9e9 }, { 9e9, 9e9 }, 12e9, 0 };
    int pulled;
    double t;
    int split = lat_run(&r, MiB, &x, 24e9, 110, 10, &pulled, &t);
    double forced = 100 * (double)MiB / 24e9;
    printf("lone_split_faster: timed 100: %d pulled (%d split); one core %.1f, split %.1f GB/s; %.3fx the split "
           "forced\n",
           pulled, split, c->ls_bw[0] / 1e9, c->ls_bw[1] / 1e9, t / forced);
    CHECK(c->choice == 1 /* CMA */ && c->lsplit == 1 && c->split == 0 /* the windows' own, unlearnt */);
    CHECK(pulled >= 95 && split >= pulled - 4);
    CHECK(t < 1.05 * forced);
    /* 256 KiB (two chunks): one core's 13.4-19.7 us, split 8.3-11.8. */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    c = &r.pick.cls[1];
    split = lat_run(&r, 256 * KiB, &x, 28e9, 110, 10, &pulled, &t);
    printf("lone_split_faster: 256 KiB: timed 100: %d pulled (%d split); %.3fx the split forced\n", pulled, split,
           t / (100 * (double)(256 * KiB) / 28e9));
    CHECK(c->choice == 1 && c->lsplit == 1 && split >= pulled - 4 && t < 1.05 * 100 * (double)(256 * KiB) / 28e9);
}

/* The pipeline beats one core's lone pull but not the split (lone
 * pipeline 15 GB/s, one core 12, split 25): CMA's lone figure is its
 * split's, so the class pulls (split) instead of pipelining lone
 * messages (main: "pipeline alone, CMA in a window"). */
static void lone_split_beats_pipeline(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[3];
    const rates_t x = { { 15e9, 15e9 }, { 15e9, 15e9 }, 12e9, 0 };
    int pulled;
    double t;
    int split = lat_run(&r, 4 * MiB, &x, 25e9, 110, 10, &pulled, &t);
    printf("lone_split_beats_pipeline: timed 100: %d pulled (%d split), %.3fx the split forced\n", pulled, split,
           t / (100 * 4.0 * (double)MiB / 25e9));
    CHECK(c->choice == 1 && c->lsplit == 1 && pulled >= 95 && split >= pulled - 4);
    CHECK(t < 1.05 * 100 * 4.0 * (double)MiB / 25e9);
}

/* The class's first decision waits for CMA's lone variants (session 23,
 * the lead's host at 4 MiB under chrt: one core's lone pulls 9-10 GB/s,
 * the pipeline's 10-11, the split 16-17): with the first split pull cold
 * (8 GB/s), the first 3 pulls (one core, split, one core) read CMA below
 * the pipeline, and a class deciding on them pipelined its lone messages,
 * learning the split only from probes 32+ apart. */
static void lone_decision_waits(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[3];
    const rates_t x = { { 10.5e9, 10.5e9 }, { 10.5e9, 10.5e9 }, 9.5e9, 0 };
    int pulled;
    double t;
    cold_n = 1, cold_bw = 8e9;
    int split = lat_run(&r, 4 * MiB, &x, 17e9, 110, 10, &pulled, &t);
    cold_n = 0;
    printf("lone_decision_waits: timed 100: %d pulled (%d split), %.3fx the split forced; flips %u\n", pulled, split,
           t / (100 * 4.0 * (double)MiB / 17e9), c->flips);
    CHECK(c->choice == 1 && c->lsplit == 1 && c->flips == 0 && pulled >= 95 && split >= pulled - 5);
    /* The probes: the pipeline (0.62x) every 32, one core's (0.56x) in
     * runs of 2 every ~39: ~5 % here (main: 1.195x). */
    CHECK(t < 1.06 * 100 * 4.0 * (double)MiB / 17e9);
}

/* A sender that computes while its message waits (or one core for both):
 * the split only adds its claims; lone pulls stay one core's, the split
 * tried by probes only, and back to one core's when the split stops
 * helping. */
static void lone_split_slower(void)
{
    static lc_peer_t r;
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lc_pick_class_t *c = &r.pick.cls[2];
    const rates_t x = { { 9e9, 9e9 }, { 9e9, 9e9 }, 12e9, 0 };
    int pulled;
    int split = lat_run(&r, MiB, &x, 11.5e9, 110, 10, &pulled, NULL);
    printf("lone_split_slower: timed 100: %d pulled (%d split)\n", pulled, split);
    CHECK(c->choice == 1 && c->lsplit == 0 && split <= 6); /* 2 of the learning's 12, probes */
    /* Within noise (1.05x): not taken (LC_PICK_HYST). */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lat_run(&r, MiB, &x, 12.6e9, 110, 10, &pulled, NULL);
    CHECK(c->lsplit == 0);
    /* Split, then the sender stops helping: back within a few rounds. */
    split_peer(&r, LC_PARAM_SIZE_AUTO);
    lat_run(&r, MiB, &x, 24e9, 110, 0, &pulled, NULL);
    CHECK(c->lsplit == 1);
    int back = -1;
    for (int run = 0; run < 40 && back < 0; run++) {
        lat_run(&r, MiB, &x, 10e9, 110, 0, &pulled, NULL);
        if (c->lsplit == 0) back = run;
    }
    printf("lone_split_slower: one core's again after %d runs of 110\n", back);
    CHECK(back >= 0 && back <= 20);
}

/* Forced and off stay as they were for lone pulls: forced splits every
 * one from its size, off none, and neither learns. */
static void lone_forced_and_off(void)
{
    static lc_peer_t r;
    const rates_t x = { { 9e9, 9e9 }, { 9e9, 9e9 }, 12e9, 0 };
    int pulled;
    split_peer(&r, 512 * KiB);
    int split = lat_run(&r, MiB, &x, 24e9, 110, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == pulled && r.pick.cls[2].ls_n[0] == 0 && r.pick.cls[2].ls_n[1] == 0);
    split_peer(&r, 0);
    split = lat_run(&r, MiB, &x, 24e9, 110, 0, &pulled, NULL);
    CHECK(pulled > 0 && split == 0 && r.pick.cls[2].ls_n[1] == 0);
}

int main(void)
{
    CHECK(lc_params_load() == 0);
    split_faster_4m();
    split_faster_1m();
    split_slower();
    pipeline_beats_split();
    split_then_not();
    forced_and_eligible();
    lone_split_faster();
    lone_split_beats_pipeline();
    lone_decision_waits();
    lone_split_slower();
    lone_forced_and_off();
    if (failures) return 1;
    printf("test_pt2pt_pick_split: all checks passed\n");
    return 0;
}
