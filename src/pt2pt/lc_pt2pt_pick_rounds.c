/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_rounds.c — the pick's figures (lc_pt2pt_pick.c): rounds of
 * samples of two ways, each way's figure the best of its samples in this
 * round and the last, so that old luck ages out and both ways' figures
 * cover the same stretch of time.  Used for the protocols (pipeline or
 * pull, lc_pick_sample) and for the pipeline's variants
 * (lc_pt2pt_pick_variant.c).
 */
#include "pt2pt/lc_pt2pt_pick.h"

/* End way w's round of samples. */
static void lc_pick_round_end(lc_pick_rounds_t r, int w)
{
    r.last_best[w] = r.round_best[w];
    r.last_size[w] = r.round_size[w];
    r.round_best[w] = 0;
    r.round_n[w] = 0;
    *r.round_msgs = 0;
}

/* A best sample's figure with the transit `t` added. */
static double lc_pick_with_transit(double bw, double size, double t)
{
    return bw > 0 ? size / (size / bw + t) : 0;
}

void lc_pick_round_add(lc_pick_rounds_t r, int w, double size, double bw, double t, double recent[2])
{
    /* Rounds: each figure is the best of this round and the last, so a
     * sample older than two rounds no longer counts.  A round ends for
     * both ways together, once each has LC_PICK_SAMPLES samples in it,
     * so that both figures are the best over the same stretch of time.
     * (Session 13 ended each one's round on its own 3 samples: the
     * chosen protocol, timed on every message, aged within six messages,
     * the other only with its probes, up to 1,024 messages apart; under
     * load the chosen CMA's figure fell with six unlucky pulls in a row,
     * 12.6 -> 3.3 GB/s, below a pipeline figure kept from calmer
     * moments, and a class flipped 6 times within one 4 MiB run.)  When
     * the other way is not probed (a demoted class), the chosen one's
     * round ends alone after as many samples as the rarest probes would
     * take to fill one. */
    if (bw > r.round_best[w]) r.round_best[w] = bw, r.round_size[w] = size;
    if (r.round_n[w] < UINT8_MAX) r.round_n[w]++;
    if (r.round_n[0] >= LC_PICK_SAMPLES && r.round_n[1] >= LC_PICK_SAMPLES) {
        for (int i = 0; i < 2; i++) lc_pick_round_end(r, i);
    } else if (++*r.round_msgs >= LC_PICK_SAMPLES * LC_PICK_PROBE_MAX) {
        lc_pick_round_end(r, w);
    }
    /* The fastest transit is added when the figures are made, not when a
     * sample is taken: it is only known once an RTS found the receiver
     * waiting.  Session 15, 64 KiB: a run's first RTSs wait in the ring
     * behind each other (the sender posts a window at once), so the first
     * pulls were charged a 75 us transit, 6 us pulls read 0.8 GB/s
     * (CMA "0.0-0.8 GB/s" in SHOW_CHANNELS), and the class went by those
     * until the samples aged out; the transit fell to 1.8 us by the next
     * window. */
    for (int i = 0; i < 2; i++) {
        double now = lc_pick_with_transit(r.round_best[i], r.round_size[i], t);
        double before = lc_pick_with_transit(r.last_best[i], r.last_size[i], t);
        recent[i] = now > before ? now : before;
    }
}
