/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pick_model.h - the modelled pair the pick's unit tests drive
 * (test_pt2pt_pick*.c): a fresh peer, lone pipelined messages and
 * samples, and windows of the bw benchmark with each message going the
 * way lc_pick_choose says, timed by a model of the two protocols.  One
 * test program includes it (its state is static).
 */
#ifndef LC_PICK_MODEL_H
#define LC_PICK_MODEL_H

#include "coord/lc_world.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_unit_check.h"

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)

/* A peer whose CMA works (its pick afresh), on a host with as many ranks
 * as cores: the pipeline is a candidate. */
static inline void fresh_peer(lc_peer_t *p)
{
    p->can_pull = true;
    lc_world.local_size = 2;
    lc_world.usable_cores = 2;
    lc_peer_pick_reset(p, true);
}

/* Both pipeline variants have their first samples: one is chosen. */
static inline bool variant_decided(const lc_pick_class_t *c)
{
    return c->var_n[0] >= 3 && c->var_n[1] >= 3;
}

/* One lone pipelined message of `size` bytes that took `seconds`, as
 * lc_deliver and lc_pt2pt_on_data drive it: its sample and the watch both
 * see that time. */
static inline void pipe_msg(lc_peer_t *p, int how, size_t size, double seconds)
{
    lc_request_t req = { .msg_size = size };
    double now = lc_time_now();
    lc_pick_pipe_start(p, &req, how, now - seconds, false);
    if (p->pick.watching == 1) p->pick.watch_since = now - seconds;
    lc_pick_pipe_done(p, &req);
    CHECK(req.pick_t0 == 0);
}

static inline void pipe_sample(lc_peer_t *p, size_t size, double seconds)
{
    int how = lc_pick_choose(p, size, 0, true);
    CHECK((how & ~LC_PICK_NT) == (LC_PICK_PIPE | LC_PICK_SAMPLE)); /* either variant (learnt below) */
    pipe_msg(p, how, size, seconds);
    CHECK(!p->pick.sampling && p->pick.pipelining == 0);
}

/* Pipelined messages stall_at, stall_at + 16, ... (stall_n of them) of
 * the next window waited stall_s longer each: a rank that lost its core. */
static int stall_at = -1, stall_n = 1;
static double stall_s;

/* A window of `n` messages of `size` bytes posted at once, as the bw
 * benchmark makes them: each goes the way lc_pick_choose says; a pull
 * takes size / pull_bw then and there; the pipelined ones are pending
 * together until the end and move at win_bw (several), lone_bw (one
 * alone), after the pulls in between (the receiver does one or the
 * other).  A pipeline sample among them is timed as lone.  Returns the
 * number pipelined. */
/* Messages from late_rts_from on of a window had their RTS queued behind
 * a full ring: each went out as the receiver's pull of one before freed a
 * cell, 0.5x or 1.05x CMA's time after the one before it, by turns. */
static int late_rts_from = 64;

/* The rates of a modelled pair (bytes/s): the pipeline's windows and lone
 * messages for each variant ([0] normal stores, [1] non-temporal), CMA
 * alone and CMA's pulls back to back in a window (pwin; 0: as alone). */
typedef struct rates {
    double win[2], lone[2], pull, pwin;
} rates_t;
/* Split pulls (LC_PICK_SPLIT, lc_pt2pt_pick_split.c) alone and back to
 * back in a window (bytes/s; 0: as one core's), and the pulls
 * pipe_window_v made split. */
static double model_split_pull, model_split_win;
static int model_split;

/* As pipe_window below, each pipelined message in the variant its CTS
 * asks for; a window moves at the rate of the variant most of its
 * messages take.  `nt_p` (if not NULL) counts the messages pipelined
 * non-temporally. */
/* The modelled time of the windows pipe_window_v ran (seconds): its pulls
 * at their rates, its pipelined messages at the window rate of their
 * variant (one alone: the lone rate). */
static double model_t;
/* What the pick costs the receiver per pull on top of the copy (seconds):
 * [0] untimed, [1] timed (two clock reads and the figures' bookkeeping);
 * 0 unless a case models it (pick_cost).  model_timed counts the timed
 * pulls. */
static double model_pick_cost[2];
static int model_timed;
/* Session 22 (0: off).  mix_bw: the first mix_pulls windowed pulls of a
 * window made while one of its messages is being pipelined move at this
 * rate (the receiver drains that message's fragments between them).
 * ramp_bw: the first 16 (a watch period) pipelined messages of a window
 * move at this rate (the pipeline's start, its pool filling). */
static double mix_bw, ramp_bw;
static int mix_pulls;

static inline int pipe_window_v(lc_peer_t *p, size_t size, int n, const rates_t *r, int *nt_p)
{
    lc_request_t req[64];
    int piped = 0, pulled = 0, sampled = -1, nts = 0;
    static double t_rts = 1.0; /* the sender's stamps: its window's RTSs 0.1 us apart, windows 1 s */
    static double pull_end;    /* the end of the receiver's last pull, on that clock */
    CHECK(n <= 64);
    t_rts += 1.0;
    double t = t_rts;
    for (int i = 0; i < n; i++) {
        t += i >= late_rts_from ? ((i & 1) ? 1.05 : 0.5) * (double)size / r->pull : 1e-7;
        int how = lc_pick_choose(p, size, t, true);
        if (how & LC_PICK_PULL) {
            CHECK(!(how & LC_PICK_NT)); /* a variant of the pipeline only */
            /* The receiver's clock is the sender's (the RTS stamps): a
             * pull starts when its RTS is there and the one before ended,
             * and takes what CMA takes alone or, after another pull of
             * the window, in a window. */
            double go = t > pull_end ? t : pull_end;
            double bw = (how & LC_PICK_WIN) && i > 0 && r->pwin > 0 ? r->pwin : r->pull;
            if (how & LC_PICK_SPLIT) {
                bw = (how & LC_PICK_WIN) && i > 0 && model_split_win > 0 ? model_split_win
                     : model_split_pull > 0                              ? model_split_pull
                                                                         : bw;
                model_split++;
            }
            if ((how & LC_PICK_WIN) && mix_bw > 0 && piped > 0 && pulled < mix_pulls) bw = mix_bw;
            pull_end = go + (double)size / bw;
            bool timed = (how & (LC_PICK_SAMPLE | LC_PICK_WIN)) != 0;
            model_t += (double)size / bw + model_pick_cost[timed];
            model_timed += timed;
            if (how & (LC_PICK_SAMPLE | LC_PICK_WIN)) lc_pick_pull_done(p, size, how, go, pull_end);
            pulled++;
            continue;
        }
        req[piped] = (lc_request_t){ .msg_size = size };
        lc_pick_pipe_start(p, &req[piped], how, lc_time_now(), false);
        CHECK(req[piped].pick_nt == !!(how & LC_PICK_NT));
        nts += !!(how & LC_PICK_NT);
        if (how & LC_PICK_SAMPLE) sampled = piped;
        piped++;
    }
    if (nt_p) *nt_p += nts;
    if (!piped) return 0;
    /* Each completion comes one message's time after the one before (the
     * watch adds up those gaps); the first also waited out the pulls. */
    int v = 2 * nts > piped;
    double win_bw = r->win[v], pull_bw = r->pull;
    double per = (double)size / (piped > 1 ? win_bw : r->lone[v]), waited = pulled * (double)size / pull_bw;
    if (sampled >= 0) req[sampled].pick_t0 = lc_time_now() - (double)size / r->lone[req[sampled].pick_nt];
    for (int i = 0; i < piped; i++) {
        double per_i = piped > 1 && ramp_bw > 0 && i < 16 /* a watch period */ ? (double)size / ramp_bw : per;
        model_t += per_i;
        p->pick.watch_since = lc_time_now() - per_i - (i == 0 ? waited : 0) -
                              (i >= stall_at && i < stall_at + 16 * stall_n && (i - stall_at) % 16 == 0 ? stall_s : 0);
        lc_pick_pipe_done(p, &req[i]);
    }
    return piped;
}

/* Both variants alike (the cases before session 15's). */
static inline int pipe_window(lc_peer_t *p, size_t size, int n, double win_bw, double lone_bw, double pull_bw)
{
    rates_t r = { { win_bw, win_bw }, { lone_bw, lone_bw }, pull_bw, 0 };
    return pipe_window_v(p, size, n, &r, NULL);
}

/* A timed pull; while another message from the peer is being pipelined
 * it is also one of a window's (LC_PICK_WIN, session 20). */
static inline void pull_sample(lc_peer_t *p, size_t size, double seconds)
{
    CHECK(lc_pick_choose(p, size, 0, true) == (LC_PICK_PULL | LC_PICK_SAMPLE | (p->pick.pipelining ? LC_PICK_WIN : 0)));
    lc_pick_sample(p, size, 1, seconds);
}

/* The bw benchmark's run of one size (lc_osu_pt2pt -t bw --quick: 2
 * warm-up and 20 timed windows of 64) on a fresh class; returns the
 * messages pipelined in windows [from, 22). */
static inline int bw_run(lc_peer_t *p, size_t size, double win_bw, double lone_bw, double pull_bw, int from)
{
    int piped = 0;
    for (int w = 0; w < 22; w++) {
        int n = pipe_window(p, size, 64, win_bw, lone_bw, pull_bw);
        if (w >= from) piped += n;
    }
    return piped;
}

#endif
