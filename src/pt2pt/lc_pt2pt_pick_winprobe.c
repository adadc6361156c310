/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_winprobe.c — window probes (session 16): a class whose
 * windows go by CMA on a window figure sends one window through the
 * pipeline whole now and then, so that the figure can come back after a
 * load burst.  lc_pick_decide (lc_pt2pt_pick.c) asks for each message;
 * the probe's watch periods (lc_pt2pt_pick_watch.c) renew the figure.
 */
#include "pt2pt/lc_pt2pt_pick.h"

/* Windows of a decided class that go by CMA although the class has a
 * window figure of its pipeline (the figure said CMA, or the class's lone
 * messages take the pipeline and a window's others are pulled): every so
 * many of them, one window goes through the pipeline whole (a window
 * probe), and its watch periods renew the window figure.  Without them
 * that figure stayed as it was when the windows left the pipeline, while
 * CMA's was renewed with every pull: session 16, 64 KiB, the host's fast
 * mode, a trace of every choice: a load burst took the window figure to
 * 6.8 GB/s against CMA's 8.6, and windows 7-21 of 22 were all pulled
 * (9.2 GB/s for the run) with nothing left to notice the pipeline's
 * windows moving 11-19 again.  Spaced as the protocols' probes, by what
 * one costs: a window at win_bw instead of pull_bw costs (pull_bw / win_bw
 * - 1) windows' time, so one every LC_PICK_PROBE_COST x that many windows
 * (~2 %), at least LC_PICK_WIN_PROBE_MIN apart, at most LC_PICK_PROBE_MAX:
 * where windows were measured much slower (the slow mode: 3.5 against
 * 12.7 GB/s at 1 MiB, one in 130 windows) they hardly ever come; near the
 * boundary (9 against 10) one in 5.  None for a demoted class (its
 * pipeline crawled) or one without a window figure (lone samples say
 * little of windows: a pipeline whose lone samples looked 1.35x CMA
 * moved windows at 1/40 of it under load, session 9). */
/* The spacing weighs the window figure against CMA's figure of its own
 * time (win_pull_bw) when CMA's has risen since: a burst of load slows
 * both protocols, and CMA's figure is renewed by every pull while the
 * window figure waits for a probe.  Session 17, a trace at 64 KiB in the
 * fast mode: windows 1.7 GB/s while the pulls read 2.0, then pulls at 9.8
 * within a window; spaced by 9.8 / 1.7 no probe came in the run (one per
 * 238 windows), by 2.0 / 1.7 one comes 4-8 windows later and renews the
 * figure (unit case window_probe_burst: windows at 13.8 go back to the
 * pipeline; in the trace they came back only with a change of variant,
 * docs/performance.md "Session 17").  In the slow mode
 * the windows read slower than CMA at the same time (3.5 against 12.7
 * GB/s at 1 MiB), and the spacing is what it was.  A figure made before
 * any pull (win_pull_bw 0, the class's first window) is weighed against
 * CMA's as it is. */
static uint32_t lc_pick_win_every(const lc_pick_class_t *c)
{
    double pull = c->win_pull_bw > 0 && c->win_pull_bw < c->pull_bw ? c->win_pull_bw : c->pull_bw;
    /* Session 19: once CMA has a window figure of its own (pwin_bw,
     * lc_pt2pt_pick_pullwin.c) that is what a window at win_bw costs
     * against, by the same rule (its value of the window figure's time
     * when it has risen since).  Against the lone figure (7.7-9.1 GB/s at
     * 64 KiB on the session-19 Xeon, where CMA's windows move 18) windows
     * at 13 looked faster than CMA and a probe came every 4 windows. */
    if (c->win_pwin_bw > 0) pull = c->win_pwin_bw < c->pwin_bw ? c->win_pwin_bw : c->pwin_bw;
    /* Session 20: a window figure made before CMA had one of its own
     * (the class's first windows) is weighed against CMA's as it is now,
     * not against the lone figure (12.7 GB/s at 64 KiB on the session-19
     * Xeon, with the RTS transit): against that one windows at 12.9 looked
     * faster than CMA's 18 and a whole window went by the pipeline 4
     * windows after the decision. */
    else if (c->pwin_bw > 0)
        pull = lc_pick_cma_win(c);
    /* What a probe window moves: the mean of the recent watch periods
     * (session 22), not their best (win_bw, which decides). */
    double win = lc_pick_win_mean(c);
    if (!(pull > win)) return LC_PICK_WIN_PROBE_MIN;
    double n = LC_PICK_PROBE_COST * (pull / win - 1.0);
    return n < LC_PICK_WIN_PROBE_MIN ? LC_PICK_WIN_PROBE_MIN : n > LC_PICK_PROBE_MAX ? LC_PICK_PROBE_MAX : (uint32_t)n;
}

/* Is this message of class c (in a window: `win`; the first of its window
 * found in one: `start`) part of a window probe?  A probe starts with the
 * first message of a window that would be pulled, and the window's later
 * messages follow it until one is not in the window. */
bool lc_pick_win_probe(lc_peer_pick_t *k, lc_pick_class_t *c, bool win, bool start)
{
    uint8_t me = (uint8_t)(1 + (c - k->cls));
    if (k->win_probe != 0) {
        if (k->win_probe == me && win) return true;
        if (k->win_probe == me || k->pipelining == 0) k->win_probe = 0; /* over (another class's: done) */
    }
    if (!start || k->win_probe || lc_count_get(&k->sending) || c->demoted || !(c->win_bw > 0) ||
        (c->choice != LC_PICK_CHOSE_PULL && c->choice != LC_PICK_CHOSE_PIPE_LONE))
        return false;
    if (++c->win_since_probe < lc_pick_win_every(c)) return false;
    c->win_since_probe = 0;
    k->win_probe = me;
    /* Its watch periods are the window's own: a partial period (lone
     * probes long before) would dilute them. */
    if (k->watching == 0) {
        k->watch_msgs = 0;
        k->watch_bytes = k->watch_time = 0;
        k->watch_cls = 0;
        k->watch_mixed = false;
        k->watch_win = false;
    }
    return true;
}
