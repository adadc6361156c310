/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_pullwin.c — CMA's window figure (session 19): the rate of
 * pulls back to back in windows, which the pipeline's window figure
 * (lc_pt2pt_pick_watch.c) is weighed against, and CMA window probes that
 * renew it where windows take the pipeline.
 *
 * Why: until session 19 a class's windows were decided by the
 * pipeline's window rate against CMA's *lone* samples (a pull timed from
 * the receiver's taking the RTS, plus the fastest RTS transit).  On the
 * session-19 machine (Xeon model 207, 2 MiB L2 per vCPU, a cache line
 * handed between the two vCPUs in 138 ns) a window of 64 KiB pulls moved
 * about twice CMA's lone figure: SHOW_CHANNELS read "CMA 7.7 GB/s,
 * pipeline 2.6 GB/s, windows 13.2: CMA alone, pipeline in a window" while
 * forced CMA moved those windows at 18.0 GB/s (quiet, median of 9): the
 * windows went to the slower protocol, auto 0.73x the better forced one.
 * A lone figure is the pull plus the fastest RTS transit seen (sender's
 * stamp to the receiver taking it), and a window overlaps the transit:
 * a trace of every pull there (the bw benchmark at load 16) read 3.4-3.6
 * us per 64 KiB pull alone or in a window (18-19 GB/s) and a fastest
 * transit of 1.5-2.1 us, so the lone figure was about half of what the
 * pulls themselves moved, while the pipeline's window figure overlaps
 * its transit too.  So a window of pulls is measured as one: like the
 * pipeline's watch, bytes over the time the receiver was busy with the
 * window.
 *
 * The clock.  A windowed pull (LC_PICK_WIN, from lc_pick_choose) counts
 * from the end of the pull before it when its RTS had arrived by then
 * (its stamp plus the fastest transit is not later than that end: the
 * receiver went from one to the next, and the FIN, completion and
 * matching in between are the window's cost), else from the moment the
 * receiver took its RTS (the receiver was waiting for the sender, which
 * the pipeline's watch does not count either: its clock stops when no
 * pipelined receive is pending).  A period is LC_PICK_WATCH_MSGS windowed
 * pulls of one class.  A lone pull (the first of a window) is not
 * counted: it gives the chain its start.  A pull made while a pipelined
 * receive from the peer is pending counts (a window whose first message
 * went by the pipeline: the pulls are the rest of the window); the
 * receiver takes that message's fragments between the pulls, whose bytes
 * are not added, so the figure reads low, never high.  The
 * figure is the best of this round of LC_PICK_SAMPLES periods and the one
 * before, as the pipeline's.
 *
 * Where windows take the pipeline (LC_PICK_CHOSE_PIPE or _PIPE_WIN on a
 * window figure) no window is pulled by itself, so now and then a whole
 * window is (a CMA window probe): the next window once the pipeline's
 * window figure exists and CMA has none, then spaced by what one costs,
 * as the pipeline's window probes (lc_pt2pt_pick_winprobe.c) are.
 */
#include "pt2pt/lc_pt2pt_pick.h"

/* A period of windowed pulls (of CMA's variant `split`) is over: its
 * rate joins class c's rounds, and its variant's
 * (lc_pt2pt_pick_split.c), whose chosen one's figure is CMA's once the
 * variant is decided. */
static void lc_pick_pullwin_period(const lc_peer_t *from, lc_pick_class_t *c, bool split, double rate)
{
    if (rate > c->pwin_round_best) c->pwin_round_best = rate;
    if (++c->pwin_round_n >= LC_PICK_SAMPLES) {
        c->pwin_last_best = c->pwin_round_best;
        c->pwin_round_best = 0;
        c->pwin_round_n = 0;
    }
    lc_pick_split_period(from, c, split, rate);
    c->pwin_bw =
        lc_pick_split_cma_win(c, c->pwin_round_best > c->pwin_last_best ? c->pwin_round_best : c->pwin_last_best);
    lc_pick_redecide(from, c);
}

void lc_pick_pull_done(lc_peer_t *from, size_t size, int how, double t_go, double t_end)
{
    lc_peer_pick_t *k = &from->pick;
    if (how & LC_PICK_SAMPLE) {
        /* A lone pull is also a sample of its CMA variant (session 23,
         * lc_pt2pt_pick_split.c; a windowed one is part of a period):
         * first, so that the class's decision below sees the lone
         * variants complete (lc_pick_redecide waits for them). */
        double dt = t_end - t_go;
        if (!(how & LC_PICK_WIN) && dt > 0 && dt < LC_PICK_SAMPLE_MAX)
            lc_pick_split_lone_sample(from, lc_pick_class(from, size), (how & LC_PICK_SPLIT) != 0, (double)size,
                                      (double)size / dt);
        lc_pick_sample(from, size, LC_PICK_PULL, dt);
    }
    double prev = k->pull_end, rts = k->pull_rts;
    k->pull_end = t_end;
    k->pull_rts = 0;
    if (!(how & LC_PICK_WIN) || !(t_end > t_go)) return;
    lc_pick_class_t *c = lc_pick_class(from, size);
    uint8_t cls = (uint8_t)(1 + (c - k->cls));
    /* Back to back: this RTS was there when the pull before ended. */
    bool chained = prev > 0 && prev <= t_go && rts > 0 && rts + k->transit <= prev;
    double dt = t_end - (chained ? prev : t_go);
    uint8_t split = (how & LC_PICK_SPLIT) != 0;
    if (k->pw_cls != cls || k->pw_split != split) { /* another class's or variant's period: start afresh */
        k->pw_cls = cls;
        k->pw_split = split;
        k->pw_bytes = k->pw_time = 0;
        k->pw_msgs = 0;
    }
    k->pw_bytes += (double)size;
    k->pw_time += dt;
    if (++k->pw_msgs < LC_PICK_WATCH_MSGS) return;
    double rate = k->pw_time > 0 ? k->pw_bytes / k->pw_time : 0;
    k->pw_bytes = k->pw_time = 0;
    k->pw_msgs = 0;
    if (rate > 0) lc_pick_pullwin_period(from, c, split, rate);
}

/* Windows between CMA window probes of class c: the next one while CMA
 * has no window figure of its own; else one whose cost (a window at CMA's
 * rate instead of the pipeline's: win_bw / lc_pick_cma_win - 1 windows' time)
 * is ~1/LC_PICK_PROBE_COST of the time, at least LC_PICK_WIN_PROBE_MIN
 * windows apart, at most LC_PICK_PROBE_MAX. */
static uint32_t lc_pick_pull_every(const lc_pick_class_t *c)
{
    /* Session 22: nor while one of CMA's variants has no figure yet
     * (lc_pt2pt_pick_split.c). */
    if (!(c->pwin_bw > 0) || lc_pick_split_learning(c)) return 1;
    double cma = lc_pick_cma_win(c);
    if (!(c->win_bw > cma)) return LC_PICK_WIN_PROBE_MIN;
    double n = LC_PICK_PROBE_COST * (c->win_bw / cma - 1.0);
    return n < LC_PICK_WIN_PROBE_MIN ? LC_PICK_WIN_PROBE_MIN : n > LC_PICK_PROBE_MAX ? LC_PICK_PROBE_MAX : (uint32_t)n;
}

/* A probe starts with the first message of a window that would be
 * pipelined, and the window's later messages follow it until one is not
 * in the window.  None during an exchange (`sending`: both directions
 * would pull and pipeline at once), none for a demoted class, none
 * without the pipeline's window figure (then the windows did not go by
 * the pipeline on a window figure). */
bool lc_pick_pull_probe(lc_peer_pick_t *k, lc_pick_class_t *c, bool win, bool start)
{
    uint8_t me = (uint8_t)(1 + (c - k->cls));
    if (k->pull_probe != 0) {
        if (k->pull_probe == me && win) return true;
        k->pull_probe = 0; /* over: a lone message, or another class's */
    }
    if (!start || lc_count_get(&k->sending) || c->demoted || !(c->win_bw > 0) ||
        (c->choice != LC_PICK_CHOSE_PIPE && c->choice != LC_PICK_CHOSE_PIPE_WIN))
        return false;
    if (++c->pwin_since_probe < lc_pick_pull_every(c)) return false;
    c->pwin_since_probe = 0;
    k->pull_probe = me;
    return true;
}
