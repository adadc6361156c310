/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick_watch.c — the watch of a chosen pipeline (the pick,
 * lc_pt2pt_pick.c): watch periods of LC_PICK_WATCH_MSGS pipelined
 * messages from a peer give the class they saw alone its window figure
 * and judge its choice (demotion to CMA).  lc_pick_pipe_start and
 * lc_pick_pipe_done bracket every pipelined receive from a calibrating
 * peer and end the pipeline samples lc_pick_choose asked for.
 *
 * A chosen pipeline stays watched: the bytes it delivers over the time
 * some pipelined contiguous receive from the peer is pending (a window
 * counts once; datatypes: below; a period in which the receiver also
 * pulled from the peer counts not at all: the pipelined message waited
 * out the pulls).
 * When that rate falls below LC_PICK_DEMOTE x the CMA samples (the pipeline
 * needs both ranks running; a busy host starves it, CMA needs only the
 * receiver) for LC_PICK_DEMOTE_PERIODS periods in a row, the class goes to
 * CMA (one slow period is a stall, not a crawl).  A period judges only the
 * class it saw alone (session 16; a period of several classes judges
 * none: lc_pick_watch).
 *
 * The watch judges the channel, not a datatype's layout (session 13).  A
 * receive that a datatype cursor unpacks (req->rcur), or whose sender
 * packs it from one (the RTS says LC_PKT_FLAG_LIST or LC_PKT_FLAG_NOPULL:
 * the sender's cursor fills every pipeline cell), moves at the rate of its
 * layout: the x face of a 256^3 double array, 8-byte elements, packs at
 * ~0.5 GB/s whatever the channel.  Counted, such messages read as "the
 * pipeline moved 2.6 GB/s of late, CMA sampled 6.5" and sent every class
 * to CMA for LC_PICK_RETRY messages — the y and z faces that followed
 * moved at 2-11 GB/s on CMA instead of 20-31 on the pipeline.  So they
 * are not counted, on either side: their bytes are not added, and while
 * one is pending the watch's clock stops (a contiguous message behind it
 * in the one ring waits for its packing; a halo exchange posts all its
 * faces at once).  Whether a receive is watched is decided once, at
 * lc_pick_pipe_start, and kept in the request (req->pick_watch), so
 * lc_pick_pipe_done undoes exactly what the start did.  The bytes of a
 * watched message that moved partly while the clock stood are counted in
 * full: the rate reads high, never low, so a mixed window never demotes
 * (traffic that always mixes is judged by the samples and LC_PICK_RETRY
 * alone).  A finer rule (count a type with large blocks: the y face's
 * 2 KiB rows pack at memcpy speed) was not taken: a type's packing rate
 * depends on its block sizes, alignment and caches in ways one threshold
 * against contiguous CMA samples does not capture, and the contiguous
 * messages are enough to see a starved pipeline.
 */
#include "pt2pt/lc_pt2pt_pick.h"
#include "util/lc_params.h"

#include <math.h>
#include <stdio.h>

/* A chosen pipeline is judged every LC_PICK_WATCH_MSGS messages it moved
 * (lc_pt2pt_pick.h), and given up for CMA below LC_PICK_DEMOTE x CMA's best
 * sample: well below the LC_PICK_PIPE_MARGIN it needed, so a pipeline near
 * its samples is never flipped back and forth by noise. */
#define LC_PICK_DEMOTE 0.5
/* Watch periods in a row that must read under LC_PICK_DEMOTE x CMA before
 * the class is demoted.  One stall of a rank (a time slice lost to another
 * process: ms, where 16 messages of 64 KiB-4 MiB take 0.1-3 ms) lies
 * between two completions, so within one period; a starved pipeline is
 * slow period after period.  Session 14: one such period demoted a class
 * moving 25-30 GB/s to CMA for LC_PICK_RETRY messages in 2 runs of 11. */
#define LC_PICK_DEMOTE_PERIODS 2

/* The watch's clock runs while some watched receive is pending and no
 * layout-bound one is: called before either count changes, it adds the
 * time since the last change if the clock was running. */
static void lc_pick_watch_clock(lc_peer_pick_t *k)
{
    double now = lc_time_now();
    if (k->watching != 0 && k->layout_bound == 0) k->watch_time += now - k->watch_since;
    k->watch_since = now;
}

/* A watched message of `size` bytes started or ended in this watch
 * period: the period's class is its, unless another's did too.  Both ends
 * count (session 15): a window's 64 messages all start in its first
 * period, so marking starts only gave the class its first period as the
 * window figure, the one that pays the window's start-up (64 KiB, fast
 * mode, SHOW_CHANNELS: the class decided on "windows 6.6", its second
 * window's first period, while that window's other three read 11.2-11.7). */
static void lc_pick_watch_saw(lc_peer_t *from, size_t size)
{
    lc_peer_pick_t *k = &from->pick;
    uint8_t cls = (uint8_t)(1 + (lc_pick_class(from, size) - k->cls));
    k->watch_cls = k->watch_cls == 0 || k->watch_cls == cls ? cls : 0xff;
}

void lc_pick_pipe_start(lc_peer_t *from, lc_request_t *req, int how, double t_go, bool typed)
{
    lc_peer_pick_t *k = &from->pick;
    k->pipelining++;
    /* Decided once and kept in the request: lc_pick_pipe_done must undo
     * exactly what this did, whatever changes in between. */
    req->pick_watch = typed ? LC_PICK_LAYOUT : req->msg_size >= LC_PICK_MIN ? LC_PICK_WATCHED : LC_PICK_UNWATCHED;
    if (req->pick_watch != LC_PICK_UNWATCHED) {
        lc_pick_watch_clock(k);
        if (req->pick_watch == LC_PICK_LAYOUT) {
            k->layout_bound++;
        } else {
            if (++k->watching > 1) k->watch_win = true;
            lc_pick_watch_saw(from, req->msg_size);
        }
    }
    req->pick_t0 = (how & LC_PICK_SAMPLE) ? t_go : 0;
    req->pick_nt = (how & LC_PICK_NT) != 0;
}

/* Judge class c's chosen pipeline by a watch period of its own that
 * moved `rate` (bytes/s): LC_PICK_DEMOTE_PERIODS of them in a row under
 * LC_PICK_DEMOTE x its CMA figure send it to CMA. */
static void lc_pick_judge(const lc_peer_t *from, lc_pick_class_t *c, double rate)
{
    if ((c->choice != LC_PICK_CHOSE_PIPE && c->choice != LC_PICK_CHOSE_PIPE_LONE &&
         c->choice != LC_PICK_CHOSE_PIPE_WIN) ||
        rate >= LC_PICK_DEMOTE * c->pull_bw) {
        c->slow_watch = 0;
        return;
    }
    if (++c->slow_watch < LC_PICK_DEMOTE_PERIODS) return; /* one stall: wait for the next period */
    c->slow_watch = 0;
    c->choice = LC_PICK_CHOSE_PULL;
    c->demoted = 1;
    c->uses = 0;
    if (lc_params.show_channels)
        fprintf(stderr, "locus[%d]: from rank %d, %s: the pipeline moved %.2f GB/s of late, CMA sampled %.1f: CMA\n",
                lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], rate / 1e9, c->pull_bw / 1e9);
}

/* The end of a watch period: what the pipeline moved in it is the window
 * figure of the class the period saw alone, and judges that class's
 * choice (lc_pick_judge).  A period with a pull in it says nothing of the
 * pipeline (in a window of a "pipeline alone" class the lone pipelined
 * message waits out the pulls of all the others: it read 1/64 of CMA and
 * demoted the class).
 *
 * Nor does a period that saw several classes judge any of them (session
 * 16): its rate is theirs together, and each class's figure against CMA
 * is its own.  Judged against every class that chose a pipeline, one
 * period at the end of the bw benchmark's 4 MiB windows (fast mode, 1.85
 * GB/s) demoted all three of a peer's classes to CMA at once, the 64 KiB
 * and 1 MiB ones on no period of theirs.  A mixed period leaves every
 * class's count of slow periods as it was: "in a row" counts a class's
 * own periods.  Traffic whose every period mixes classes is then judged
 * by its samples and LC_PICK_RETRY only, as typed traffic is. */
static void lc_pick_watch(lc_peer_t *from)
{
    lc_peer_pick_t *k = &from->pick;
    double rate = k->watch_time > 0 ? k->watch_bytes / k->watch_time : HUGE_VAL;
    /* A period of lone messages (pipeline probes) is no window's: its
     * rate joins win_bw's rounds as before, not the mean. */
    double bytes = k->watch_win ? k->watch_bytes : 0, time = k->watch_win ? k->watch_time : 0;
    bool mixed = k->watch_mixed;
    k->watch_win = k->watching > 1;
    uint8_t cls = k->watch_cls;
    k->watch_msgs = 0;
    k->watch_bytes = k->watch_time = 0;
    k->watch_mixed = false;
    k->watch_cls = 0;
    if (mixed || cls < 1 || cls > LC_PICK_CLASSES) return; /* several classes: 0xff */
    lc_pick_class_t *c = &k->cls[cls - 1];
    if (rate < HUGE_VAL) {
        if (rate > c->win_round_best) c->win_round_best = rate;
        c->win_round_bytes += bytes;
        c->win_round_time += time;
        if (++c->win_round_n >= LC_PICK_SAMPLES) {
            c->win_last_best = c->win_round_best;
            c->win_round_best = 0;
            c->win_round_n = 0;
            c->win_last_bytes = c->win_round_bytes;
            c->win_last_time = c->win_round_time;
            c->win_round_bytes = c->win_round_time = 0;
        }
        c->win_bw = c->win_round_best > c->win_last_best ? c->win_round_best : c->win_last_best;
        c->win_pull_bw = c->pull_bw; /* the window probes' yardstick (lc_pick_win_every) */
        c->win_pwin_bw = c->pwin_bw;
        lc_pick_redecide(from, c);
    }
    lc_pick_judge(from, c, rate);
}

void lc_pick_pipe_done(lc_peer_t *from, lc_request_t *req)
{
    lc_peer_pick_t *k = &from->pick;
    k->pipelining--;
    uint8_t watch = req->pick_watch;
    double t0 = req->pick_t0;
    req->pick_watch = LC_PICK_UNWATCHED;
    req->pick_t0 = 0;
    if (t0 != 0) k->sampling = false; /* the sample ends with its message, whatever it was */
    if (watch == LC_PICK_UNWATCHED) return;
    lc_pick_watch_clock(k);
    if (watch == LC_PICK_LAYOUT) { /* never a sample: lc_pick_choose does not time a typed message */
        k->layout_bound--;
        return;
    }
    k->watch_bytes += (double)req->msg_size; /* one pending all along: a window counts once */
    k->watching--;
    lc_pick_watch_saw(from, req->msg_size);
    if (t0 != 0) lc_pick_sample(from, req->msg_size, req->pick_nt ? LC_PICK_NT : LC_PICK_PIPE, k->watch_since - t0);
    if (++k->watch_msgs >= LC_PICK_WATCH_MSGS) lc_pick_watch(from);
}
