/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_split.c — CMA's two variants, learnt per pair and size
 * class beside CMA and the pipeline (lc_pt2pt_pick.c): one core's pull,
 * or the split copy (lc_pt2pt_split.c: the receiver pulls chunks from the
 * front while the sender, if it is in MPI, pushes them from the back).
 *
 * Why (session 22): the split moves a window of large messages up to
 * twice as fast as one core's pull where the sender waits in MPI (the
 * bw benchmark's Waitall: quiet A/B on the session-21 Xeon, 1 MiB
 * 1.87-2.82x, 4 MiB 1.52-2.06x, 256 KiB 0.81-1.30x), and not at all where
 * the sender computes (it leaves every chunk to the receiver) or where the
 * two cores are one (a busy host).  A threshold cannot say which; a
 * measurement in the application's own pattern can.  Until session 22 the
 * pick's timed pulls were never split, so CMA was weighed against the
 * pipeline on one core's copy: 4 MiB windows went to the pipeline (11.1
 * GB/s) while split pulls moved 17.2, and at 1 MiB every fourth pull (the
 * timed ones) went unsplit (auto 17.7 against 31.5 forced).
 *
 * What is measured: CMA's window figure (lc_pt2pt_pick_pullwin.c), bytes
 * over the receiver's time in periods of LC_PICK_WATCH_MSGS windowed pulls
 * back to back, now per variant: every pull of a period takes the
 * period's variant.  A split pull is timed to the end of the receiver's
 * part (its loop claims until no chunk is left; the sender may still be
 * pushing its last claimed chunk, which in a window overlaps the next
 * message's pull), so the figure is what the pair moves in windows with
 * the sender as it behaves here.  While the class learns, periods
 * alternate between the variants (one core's first) until each has
 * LC_PICK_SAMPLES; then the variant with the better figure is the
 * class's, the split only when it beats one core's by LC_PICK_HYST (and
 * back only when it falls behind by as much), and every
 * LC_PICK_PROBE-th period (more rarely when it moved much slower:
 * lc_pick_every) tries the other.  Figures age in rounds as the
 * protocols' do (lc_pt2pt_pick_rounds.c).  Once the variant is decided,
 * CMA's window figure that the pipeline's windows are weighed against is
 * the chosen variant's (lc_pick_split_cma_win); before, the best period
 * of either (the variant will go to the faster one).
 *
 * CMA's windows count as unmeasured until both variants have their
 * periods (lc_pick_split_learning): the rest of a window after a pipeline
 * sample is pulled, and a class whose windows went to the pipeline
 * pulls its next windows whole (CMA window probes), so that the pipeline
 * is weighed against the split before the windows settle on it (a model
 * of the session-21 4 MiB figures: the pipeline's windows at 11.1 GB/s
 * beat one core's 9 at the class's first decision, and the split, 17.2,
 * was first measured by a probe 11 windows later).
 *
 * The untimed windowed pulls take the class's variant.  Lone pulls
 * (session 23) have a choice of their own, made the same way on the lone
 * timed pulls of each variant (ls_*, lsplit): a ping-pong's messages, or
 * a collective's, never make a window, so until then they were never
 * split (2 ranks, lat, the lead's quiet runs: 1 MiB one core's 75-88 us,
 * split forced 44-100, auto 90-138; 4 MiB 424-441 against 265-350).  A
 * lone split pull is timed to the receive's completion (match.c,
 * lc_pt2pt_split.c: lc_split_sample), not to the end of the receiver's
 * part: alone, nothing overlaps the sender's last chunk.  An untimed lone
 * pull takes the lone choice once there is one, else the windows'.  Pulls
 * that cannot be split (smaller than two chunks, a derived datatype, a
 * peer without claim slots, all slots busy) go by one core and are timed
 * as such.  The receiver decides and its CTS (LC_PKT_FLAG_SPLIT) tells
 * the sender, so both sides of the pair agree by construction.
 * LOCUS_CMA_SPLIT=0 never splits; a size splits every pull from it
 * (forced: nothing is learnt); auto (the default) is this file.
 */
#include "pt2pt/lc_pt2pt_pick.h"
#include "pt2pt/lc_pt2pt_split.h"
#include "util/lc_params.h"

#include <stdio.h>

/* Both variants have their first LC_PICK_SAMPLES periods. */
static bool lc_pick_split_decided(const lc_pick_class_t *c)
{
    return c->sv_n[0] >= LC_PICK_SAMPLES && c->sv_n[1] >= LC_PICK_SAMPLES;
}

/* The variant of a new period of class c's windowed pulls. */
static bool lc_pick_split_next(lc_pick_class_t *c)
{
    if (!lc_pick_split_decided(c)) return c->sv_n[1] < c->sv_n[0];
    if (++c->sv_since_probe >= lc_pick_every(c->sv_bw[c->split], c->sv_bw[!c->split])) {
        c->sv_since_probe = 0;
        return !c->split;
    }
    return c->split;
}

/* Lone pulls (session 23): both variants have their first
 * LC_PICK_SAMPLES lone timed pulls. */
static bool lc_pick_split_lone_decided(const lc_pick_class_t *c)
{
    return c->ls_n[0] >= LC_PICK_SAMPLES && c->ls_n[1] >= LC_PICK_SAMPLES;
}

/* A class whose windows chose their variant gives it to its lone pulls
 * too (the first of each window, mostly): 2 ranks, bw at 256 KiB under
 * chrt, lone pulls learnt on their own ("alone one core 20.0 GB/s, split
 * 11.1": the sender still posting its window leaves the first message
 * to the receiver) moved the windows at 20-21 GB/s against 25-31 when
 * they took the windows' split, in 11 runs of 11 alternated. */
bool lc_pick_split_lone_learning(const lc_pick_class_t *c)
{
    return c->sv_able && lc_params.cma_split == LC_PARAM_SIZE_AUTO && !lc_pick_split_lone_decided(c) &&
           !lc_pick_split_decided(c);
}

/* The variant of a lone pull of class c (`how`: lc_pick_decide's).
 * Timed ones (LC_PICK_SAMPLE) learn the variants in runs, not by turns:
 * one core's first until it has LC_PICK_SAMPLES, then the split's; once
 * decided, the variant not chosen comes as a run of LC_PICK_LONE_PROBE
 * pulls, LC_PICK_LONE_PROBE times as far apart as lc_pick_every says for
 * one (2 % of the time).
 * Why runs: the variants leave the buffers' lines in different caches
 * (the sender writes half of a split message, one core's pull leaves all
 * of it in the receiver's), and a pull after one of the other variant
 * pays for moving them.  2 ranks, lat at 256 KiB under chrt, variants by
 * turns: split samples 16-24 us, one core's 18-20, where the split
 * forced moves a message in 7-8 us and one core's in 12-13 (a trace of
 * every sample); decided on them, 2 runs of 3 chose one core.  The best
 * of a run is one that found the lines where its variant leaves them.
 * An untimed one (an unexpected message's) takes the lone choice once
 * there is one, else the windows' (what every lone pull took until
 * session 23). */
#define LC_PICK_LONE_PROBE 2
static bool lc_pick_split_lone(lc_pick_class_t *c, int how)
{
    if (lc_pick_split_decided(c)) return c->split; /* the windows' (lc_pick_split_lone_learning) */
    if (!lc_pick_split_lone_decided(c)) return (how & LC_PICK_SAMPLE) ? c->ls_n[0] >= LC_PICK_SAMPLES : c->split;
    if (!(how & LC_PICK_SAMPLE)) return c->lsplit;
    if (c->ls_probe) {
        c->ls_probe--;
        return !c->lsplit;
    }
    /* Spaced by what the run costs: LC_PICK_LONE_PROBE pulls at the other
     * variant's rate (its first also moves the lines back). */
    if (++c->ls_since_probe >= LC_PICK_LONE_PROBE * lc_pick_every(c->ls_bw[c->lsplit], c->ls_bw[!c->lsplit])) {
        c->ls_since_probe = 0;
        c->ls_probe = LC_PICK_LONE_PROBE - 1;
        return !c->lsplit;
    }
    return c->lsplit;
}

void lc_pick_split_note(lc_peer_t *from, size_t size)
{
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (lc_unlikely(!c->sv_able) && lc_params.cma_split == LC_PARAM_SIZE_AUTO && lc_pt2pt_split_eligible(from, size))
        c->sv_able = 1;
}

bool lc_pick_split_learning(const lc_pick_class_t *c)
{
    return c->sv_able && !lc_pick_split_decided(c);
}

int lc_pick_split(lc_peer_t *from, size_t size, int how)
{
    if (!(how & LC_PICK_PULL) || !lc_pt2pt_split_eligible(from, size)) return how;
    if (lc_params.cma_split != LC_PARAM_SIZE_AUTO) return lc_pt2pt_split_forced(size) ? how | LC_PICK_SPLIT : how;
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (!(how & LC_PICK_WIN)) return lc_pick_split_lone(c, how) ? how | LC_PICK_SPLIT : how;
    /* A timed windowed pull: its period's variant, chosen as the period
     * starts (the period restarts with another class: pullwin.c). */
    lc_peer_pick_t *k = &from->pick;
    uint8_t cls = (uint8_t)(1 + (c - k->cls));
    if (k->pw_msgs == 0 || k->pw_cls != cls) k->pw_split = lc_pick_split_next(c);
    return k->pw_split ? how | LC_PICK_SPLIT : how;
}

static void lc_pick_show_split(const lc_peer_t *from, const lc_pick_class_t *c, bool changed)
{
    if (!lc_params.show_channels) return;
    fprintf(stderr,
            "locus[%d]: from rank %d, %s: CMA windows one core %.1f GB/s, split with the sender %.1f GB/s "
            "(best of the last %d-%d periods): %s%s\n",
            lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->sv_bw[0] / 1e9, c->sv_bw[1] / 1e9,
            LC_PICK_SAMPLES, 2 * LC_PICK_SAMPLES, c->split ? "split" : "one core",
            changed ? " (changed on newer periods)" : "");
}

void lc_pick_split_period(const lc_peer_t *from, lc_pick_class_t *c, bool split, double rate)
{
    if (lc_params.cma_split != LC_PARAM_SIZE_AUTO) return; /* forced or off: nothing to learn */
    lc_pick_rounds_t r = { c->sv_round_best, c->sv_last_best, c->sv_round_size,
                           c->sv_last_size,  c->sv_round_n,   &c->sv_round_msgs };
    /* Window rates: no transit to add (the size is then irrelevant). */
    lc_pick_round_add(r, split, 1.0, rate, 0, c->sv_bw);
    bool first = !lc_pick_split_decided(c);
    if (c->sv_n[split] < LC_PICK_SAMPLES) c->sv_n[split]++;
    if (!lc_pick_split_decided(c)) return;
    bool want = c->split ? c->sv_bw[1] * LC_PICK_HYST >= c->sv_bw[0] : c->sv_bw[1] > LC_PICK_HYST * c->sv_bw[0];
    if (want == (c->split != 0)) {
        if (first) lc_pick_show_split(from, c, false);
        return;
    }
    c->split = want;
    lc_pick_show_split(from, c, !first);
}

double lc_pick_split_cma_win(const lc_pick_class_t *c, double pwin)
{
    if (lc_params.cma_split != LC_PARAM_SIZE_AUTO || !lc_pick_split_decided(c) || !(c->sv_bw[c->split] > 0))
        return pwin;
    return c->sv_bw[c->split];
}

static void lc_pick_show_split_lone(const lc_peer_t *from, const lc_pick_class_t *c, bool changed)
{
    if (!lc_params.show_channels) return;
    fprintf(stderr,
            "locus[%d]: from rank %d, %s: CMA alone one core %.1f GB/s, split with the sender %.1f GB/s "
            "(best of the last %d-%d): %s%s\n",
            lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->ls_bw[0] / 1e9, c->ls_bw[1] / 1e9,
            LC_PICK_SAMPLES, 2 * LC_PICK_SAMPLES, c->lsplit ? "split" : "one core",
            changed ? " (changed on newer samples)" : "");
}

void lc_pick_split_lone_sample(const lc_peer_t *from, lc_pick_class_t *c, bool split, double size, double bw)
{
    if (lc_params.cma_split != LC_PARAM_SIZE_AUTO || !c->sv_able) return; /* forced, off, or never eligible */
    lc_pick_rounds_t r = { c->ls_round_best, c->ls_last_best, c->ls_round_size,
                           c->ls_last_size,  c->ls_round_n,   &c->ls_round_msgs };
    /* With the RTS transit, as CMA's lone figure against the pipeline's. */
    lc_pick_round_add(r, split, size, bw, from->pick.transit, c->ls_bw);
    bool first = !lc_pick_split_lone_decided(c);
    if (c->ls_n[split] < LC_PICK_SAMPLES) c->ls_n[split]++;
    if (!lc_pick_split_lone_decided(c)) return;
    bool want = c->lsplit ? c->ls_bw[1] * LC_PICK_HYST >= c->ls_bw[0] : c->ls_bw[1] > LC_PICK_HYST * c->ls_bw[0];
    if (want == (c->lsplit != 0)) {
        if (first) lc_pick_show_split_lone(from, c, false);
        return;
    }
    c->lsplit = want;
    lc_pick_show_split_lone(from, c, !first);
}
