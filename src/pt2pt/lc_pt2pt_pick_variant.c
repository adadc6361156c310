/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_variant.c — the pipeline's variants, learnt per pair and
 * size class beside CMA and the pipeline (lc_pt2pt_pick.c).
 *
 * The pipeline has two variants (session 15): fragments written into the
 * big cells with normal stores, or with non-temporal ones that leave the
 * lines in memory rather than dirty in the sender's cache
 * (lc_copy_nt.c).  Where the two cores share a cache the first wins (1
 * MiB windows 30.6 GB/s against 17.7), where they do not the second (5.4
 * against 20.4, CMA ~12.5: docs/performance.md).  So the pipeline's
 * samples are also samples of their variant: while the class learns they
 * alternate (normal stores first), then every LC_PICK_PROBE-th (or rarer)
 * tries the variant not chosen; the variant with the better recent best
 * is the class's (with LC_PICK_HYST; rounds as the protocols'), and the
 * pipeline's figure against CMA is its better variant's.  A change of
 * variant drops the window figure (it was the other variant's) and
 * re-learns the class's pipeline.  The receiver's choice goes to the
 * sender in the CTS (LC_PKT_FLAG_NT), which sets lc_shm_set_big_nt while
 * that message streams.  LOCUS_SHM_BIG_NT=1 forces the variant on the
 * sender's side, and nothing is learnt.
 */
#include "pt2pt/lc_pt2pt_pick.h"
#include "util/lc_params.h"

#include <stdio.h>

/* The pipeline's variant for a message lc_pick_decide pipelines: the
 * class's, except that its samples learn both (alternating, normal stores
 * first, until each has LC_PICK_SAMPLES) and then probe the variant not
 * chosen every LC_PICK_PROBE-th sample, more rarely when it sampled much
 * slower (lc_pick_every).  A probe is a lone message (every pipeline
 * sample is), and costs at most the 40 % non-temporal stores lose where
 * the cores share a cache (1 MiB windows 30.6 -> 17.7 GB/s) on 1 in
 * LC_PICK_PROBE..LC_PICK_PROBE_MAX pipeline samples.  LOCUS_SHM_BIG_NT
 * forces the variant on the sender's side: nothing to learn. */
int lc_pick_variant(lc_peer_t *from, size_t size, int how)
{
    if (lc_params.shm_big_nt) return how;
    lc_pick_class_t *c = lc_pick_class(from, size);
    bool nt = c->nt;
    if (how & LC_PICK_SAMPLE) {
        if (!lc_pick_variant_decided(c)) {
            nt = c->var_n[1] < c->var_n[0];
        } else if (++c->var_since_probe >= lc_pick_every(c->var_bw[nt], c->var_bw[!nt])) {
            c->var_since_probe = 0;
            nt = !nt;
        }
    }
    return nt ? how | LC_PICK_NT : how;
}

static void lc_pick_show_variant(const lc_peer_t *from, const lc_pick_class_t *c, bool changed)
{
    if (!lc_params.show_channels) return;
    fprintf(stderr,
            "locus[%d]: from rank %d, %s: pipeline fragments stored normally %.1f GB/s, non-temporal %.1f GB/s "
            "(best of the last %d-%d): %s%s\n",
            lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->var_bw[0] / 1e9,
            c->var_bw[1] / 1e9, LC_PICK_SAMPLES, 2 * LC_PICK_SAMPLES, c->nt ? "non-temporal" : "normal stores",
            changed ? " (changed on newer samples)" : "");
}

/* A pipeline sample of variant `nt` at `bw`: the variants' figures, and
 * the class's variant once both have their first LC_PICK_SAMPLES.
 * Non-temporal only when it beats normal stores by LC_PICK_HYST, and back
 * only when it falls behind by as much: within noise of each other normal
 * stores keep the lines in the cache a receiver on the same one reads
 * from (and where both are one copy — no big cells, not x86-64 — they
 * are).  A change re-measures the pipeline's windows: the window figure
 * was the old variant's (1 MiB windows where the cores share no cache:
 * 5.4 GB/s normal, 20.4 non-temporal), so it is dropped and the class
 * learns its pipeline afresh (its CMA samples kept), the first window
 * following a sample onto the pipeline as at the start. */
void lc_pick_variant_sample(const lc_peer_t *from, lc_pick_class_t *c, bool nt, double size, double bw)
{
    lc_pick_rounds_t r = { c->var_round_best, c->var_last_best, c->var_round_size, c->var_last_size,
                           c->var_round_n, &c->var_round_msgs };
    lc_pick_round_add(r, nt, size, bw, from->pick.transit, c->var_bw);
    bool first = !lc_pick_variant_decided(c); /* this sample may complete the first decision */
    if (c->var_n[nt] < LC_PICK_SAMPLES) c->var_n[nt]++;
    if (!lc_pick_variant_decided(c)) return;
    bool want = c->nt ? c->var_bw[1] * LC_PICK_HYST >= c->var_bw[0] : c->var_bw[1] > LC_PICK_HYST * c->var_bw[0];
    if (want == c->nt) {
        if (first) lc_pick_show_variant(from, c, false);
        return;
    }
    c->nt = want;
    lc_pick_show_variant(from, c, !first);
    if (c->demoted) return; /* CMA until LC_PICK_RETRY */
    c->win_bw = c->win_round_best = c->win_last_best = 0;
    c->win_round_n = 0;
    c->n_pipe = 0;
    if (c->choice != LC_PICK_UNDECIDED) c->flips++;
    c->choice = LC_PICK_UNDECIDED;
}
