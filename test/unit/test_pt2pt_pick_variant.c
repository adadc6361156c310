/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the pipeline's variants in the pick
 * (src/pt2pt/lc_pt2pt_pick_variant.c): normal or non-temporal stores,
 * learnt per class beside the protocols, on a modelled pair
 * (lc_pick_model.h).
 */
#include "lc_pick_model.h"

/* Session 15: "pipeline, non-temporal" as a third variant.  The host's
 * two placements at 1 MiB (session 14, GB/s, windows / lone): where the
 * two vCPUs share no cache the pipeline moves 5.4 / 5, non-temporal 20.4
 * / 18, CMA 12.3; where they share one, 30.6 / 20, 17.7 / 14, CMA 12.8.
 * The bw benchmark's run (22 windows of 64) on a fresh class learns both
 * variants and takes the better one for the windows; the worse one, much
 * slower, is probed rarely. */
static void nt_variant(void)
{
    static lc_peer_t r;
    lc_pick_class_t *c = &r.pick.cls[2];

    /* Slow placement: non-temporal best -> chosen, and windows on it. */
    const rates_t slow = { { 5.4e9, 20.4e9 }, { 5e9, 18e9 }, 12.3e9, 0 };
    fresh_peer(&r);
    int learnt_at = -1, nt = 0, piped = 0;
    for (int w = 0; w < 22; w++) {
        int n = 0, k = pipe_window_v(&r, MiB, 64, &slow, &n);
        if (getenv("PICK_DEBUG"))
            printf("w%d: piped %d nt %d choice %d nt %d var %d/%d %.1f/%.1f pipe %.1f pull %.1f win %.1f\n", w, k, n,
                   c->choice, c->nt, c->var_n[0], c->var_n[1], c->var_bw[0] / 1e9, c->var_bw[1] / 1e9,
                   c->pipe_bw / 1e9, c->pull_bw / 1e9, c->win_bw / 1e9);
        if (learnt_at < 0 && c->nt && c->choice == 2) learnt_at = w;
        if (learnt_at >= 0 && w > learnt_at) nt += n, piped += k;
    }
    printf("nt_variant: slow placement: non-temporal pipeline always from window %d; later windows %d of %d "
           "pipelined non-temporally\n",
           learnt_at, nt, piped);
    CHECK(c->nt == 1 && variant_decided(c) && c->choice == 2 /* the pipeline always */ && !c->demoted);
    CHECK(c->var_bw[1] > 17e9 && c->var_bw[0] < 5.1e9 && c->win_bw > 17e9);
    CHECK(learnt_at >= 0 && learnt_at <= 8 && piped >= (21 - learnt_at) * 63 && nt >= piped - (21 - learnt_at));

    /* Fast placement: non-temporal worst -> not chosen; the windows stay
     * on the normal pipeline (at most its 3 learning samples and a probe
     * every 32 samples, one a window, go non-temporal). */
    const rates_t fast = { { 30.6e9, 17.7e9 }, { 20e9, 14e9 }, 12.8e9, 0 };
    lc_peer_pick_reset(&r, true);
    nt = piped = 0;
    for (int w = 0; w < 22; w++) piped += pipe_window_v(&r, MiB, 64, &fast, &nt);
    printf("nt_variant: fast placement: %d of %d messages pipelined non-temporally\n", nt, piped);
    CHECK(c->nt == 0 && variant_decided(c) && c->choice == 2 && c->flips == 0);
    CHECK(nt == 3 && piped >= 21 * 63 - 3); /* one window pulled whole: CMA's window figure (session 19) */
    /* A lone message at a time (a ping-pong), the non-temporal variant
     * 4x slower than the normal one: probed every 150 samples, not 32
     * (after the first few, every 32 until its 14 GB/s from the windows
     * above ages out: two rounds, 3 probes each). */
    int probes = 0;
    for (int i = 0; i < 1000; i++) {
        int how = lc_pick_choose(&r, MiB, 0, true);
        CHECK(how & LC_PICK_SAMPLE);
        if (how & LC_PICK_PULL) {
            lc_pick_sample(&r, MiB, LC_PICK_PULL, MiB / 12.8e9);
        } else {
            probes += !!(how & LC_PICK_NT);
            pipe_msg(&r, how, MiB, MiB / ((how & LC_PICK_NT) ? 5e9 : 20e9));
        }
    }
    printf("nt_variant: non-temporal 4x slower: %d probes in 1000 lone messages\n", probes);
    CHECK(c->nt == 0 && c->choice == 2 && probes >= 5 && probes <= 10);

    /* Forced (LOCUS_SHM_BIG_NT=1): the sender writes non-temporally
     * whatever the CTS says; the receiver learns no variant. */
    lc_params.shm_big_nt = 1;
    lc_peer_pick_reset(&r, true);
    nt = 0;
    for (int w = 0; w < 4; w++) pipe_window_v(&r, MiB, 64, &slow, &nt);
    CHECK(nt == 0 && c->var_n[0] == 0 && c->var_n[1] == 0 && !variant_decided(c));
    lc_params.shm_big_nt = 0;
}

/* Session 17, the same traces: windows with normal stores at 1.7-5.2
 * GB/s, CMA 8-10, non-temporal windows 10.9-15.2 (the slow mode at 64
 * KiB); lone pipelined messages 0.2-2.4 normal, 1.8-3.5 non-temporal.
 * The windows leave the pipeline on their normal-store figure, and the
 * variant is learnt from lone pipeline probes, rare once CMA is chosen:
 * the non-temporal windows came back at windows 7-15 of 22 (modelled: 12).
 * Now the pipeline is probed every 32 timed messages until the variant
 * is decided: non-temporal windows from window 7. */
static void variant_order(void)
{
    static lc_peer_t r;
    fresh_peer(&r);
    lc_pick_class_t *c = &r.pick.cls[0];
    const rates_t slow = { { 3e9, 13.8e9 }, { 1e9, 2.4e9 }, 9.8e9, 0 };
    int back = -1, piped = 0;
    for (int w = 0; w < 22; w++) {
        int n = pipe_window_v(&r, 64 * KiB, 64, &slow, NULL);
        if (getenv("PICK_DEBUG"))
            printf("w%d: piped %d choice %d nt %d var %d/%d pull %.1f pipe %.1f win %.1f\n", w, n, c->choice, c->nt,
                   c->var_n[0], c->var_n[1], c->pull_bw / 1e9, c->pipe_bw / 1e9, c->win_bw / 1e9);
        if (w >= 2) piped += n;
        if (back < 0 && c->nt && (c->choice == 4 || c->choice == 2)) back = w;
    }
    printf("variant_order: non-temporal windows from window %d; %d of %d timed messages pipelined\n", back, piped,
           20 * 64);
    CHECK(back >= 0 && back <= 8 && c->nt == 1 && c->choice == 4 /* CMA alone, pipeline in a window */);
}

int main(void)
{
    CHECK(lc_params_load() == 0);
    nt_variant();
    variant_order();

    if (failures) return 1;
    printf("test_pt2pt_pick_variant: ok\n");
    return 0;
}
