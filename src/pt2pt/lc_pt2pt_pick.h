/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick.h — what the pick's files share (CMA or the pipeline per
 * pair and size class, issue 13; the model is described in
 * lc_pt2pt_pick.c): its constants, a class's choices, and the functions
 * one of its files calls in another.  Only the pick's files include it;
 * the rest of the engine calls the lc_pick_* entry points declared in
 * lc_pt2pt_impl.h.
 *
 *   lc_pt2pt_pick.c           the decision per message and per class
 *   lc_pt2pt_pick_rounds.c    rounds of samples: figures that age alike
 *   lc_pt2pt_pick_variant.c   the pipeline's variants (normal or
 *                             non-temporal stores)
 *   lc_pt2pt_pick_winprobe.c  window probes: windows that went by CMA
 *                             try the pipeline now and then
 *   lc_pt2pt_pick_watch.c     watch periods: a chosen pipeline's rate,
 *                             window figures, demotion
 *   lc_pt2pt_pick_pullwin.c   CMA's window figure: pulls back to back
 *                             in windows, and CMA window probes
 *   lc_pt2pt_pick_split.c     CMA's variants (one core's pull or the
 *                             split copy with the sender)
 */
#ifndef LC_PT2PT_PICK_H
#define LC_PT2PT_PICK_H

#include "pt2pt/lc_pt2pt_impl.h"

#define LC_PICK_SAMPLES 3
/* Samples longer than this are not believed (a clock from another time namespace). */
#define LC_PICK_SAMPLE_MAX 10.0
/* Lead the pipeline needs on lone messages to be used for windows too.
 * Where it does not share a cache (this VM, 2026-11-26, quiet) CMA moved
 * windows of 64 KiB-4 MiB 1.37-1.6x faster while the pipeline was ~1.4x
 * faster for a lone 64 KiB message; on a busy host the pipeline's windows
 * collapse (every full pool waits for a time slice: 1 MiB at 28 MB/s
 * against CMA's 1.2 GB/s) while its best lone samples still looked 1.35x
 * CMA.  Where the cores share a cache the pipeline was 3.5-4.5x CMA,
 * windowed (docs/performance.md "CMA or pipeline"). */
#define LC_PICK_PIPE_MARGIN 1.5
/* Messages of a decided class before it is sampled again. */
#define LC_PICK_RETRY 4096
/* Every LC_PICK_PROBE-th timed message of a decided class tries the
 * protocol not chosen, or more rarely when the other one sampled much
 * slower: a probe costs about (chosen / other - 1) messages' time, kept
 * under 1/LC_PICK_PROBE_COST of the time (2 %) up to LC_PICK_PROBE_MAX.
 * (Session 13, a quiet host whose pipeline ran at 3 GB/s against CMA's
 * 10.6: a pipeline probe every 32 64 KiB messages alone was 8 %.) */
#define LC_PICK_PROBE 32
#define LC_PICK_PROBE_COST 50.0
#define LC_PICK_PROBE_MAX 1024
/* A decided class moves across a boundary of the table (pipeline/CMA =
 * 1 or LC_PICK_PIPE_MARGIN) only when the ratio passes it by this factor. */
#define LC_PICK_HYST 1.12
/* Watch periods: a figure of windows (the pipeline's, lc_pt2pt_pick_watch.c;
 * CMA's, lc_pt2pt_pick_pullwin.c) is made every LC_PICK_WATCH_MSGS
 * messages of a window. */
#define LC_PICK_WATCH_MSGS 16
/* Window probes (a window sent whole the way its class does not take
 * windows) come at least this many windows apart. */
#define LC_PICK_WIN_PROBE_MIN 4
/* A decided class that pulls times its windowed pulls in runs of
 * LC_PICK_WATCH_MSGS, about one in LC_PICK_TIME_EVERY of them
 * (lc_pt2pt_pick.c, lc_pick_pull_timed). */
#define LC_PICK_TIME_EVERY 4

typedef enum lc_pick_choice {
    LC_PICK_UNDECIDED = 0,
    LC_PICK_CHOSE_PULL,
    LC_PICK_CHOSE_PIPE,      /* always */
    LC_PICK_CHOSE_PIPE_LONE, /* for a lone message; CMA while another is pipelined */
    LC_PICK_CHOSE_PIPE_WIN,  /* in a window (lc_pick_in_window); CMA for a lone message */
} lc_pick_choice_t;

/* "64 KiB-256 KiB", ..., for SHOW_CHANNELS (lc_pt2pt_pick.c). */
extern const char *const lc_pick_class_name[LC_PICK_CLASSES];

static inline lc_pick_class_t *lc_pick_class(lc_peer_t *p, size_t size)
{
    int c = 0;
    for (size_t s = size >> 18; s && c < LC_PICK_CLASSES - 1; s >>= 2) c++; /* 256 KiB, 1 MiB, 4 MiB */
    return &p->pick.cls[c];
}

/* How often to try the way not chosen, moving at `other` against the
 * chosen's `chosen` (bytes/s). */
static inline uint32_t lc_pick_every(double chosen, double other)
{
    if (!(other > 0) || chosen <= other) return LC_PICK_PROBE;
    double n = LC_PICK_PROBE_COST * (chosen / other - 1.0);
    return n < LC_PICK_PROBE ? LC_PICK_PROBE : n > LC_PICK_PROBE_MAX ? LC_PICK_PROBE_MAX : (uint32_t)n;
}

/* Both variants have their first LC_PICK_SAMPLES: the class has chosen
 * one (var_n counts no further, and is cleared only with the class). */
static inline bool lc_pick_variant_decided(const lc_pick_class_t *c)
{
    return c->var_n[0] >= LC_PICK_SAMPLES && c->var_n[1] >= LC_PICK_SAMPLES;
}

/* Decide class c again on its figures, once it has its first samples
 * (lc_pt2pt_pick.c). */
void lc_pick_redecide(const lc_peer_t *from, lc_pick_class_t *c);

/* Rounds of samples of two ways (the protocols: [0] pipeline, [1] pull;
 * or the pipeline's variants: [0] normal stores, [1] non-temporal). */
typedef struct lc_pick_rounds {
    double *round_best, *last_best; /* best samples, without the RTS transit */
    double *round_size, *last_size; /* those samples' sizes (bytes) */
    uint8_t *round_n;
    uint32_t *round_msgs;
} lc_pick_rounds_t;
/* Add a sample of way w of `size` bytes at `bw` (without transit);
 * recent[] gets each way's figure, the best of this round and the one
 * before with the transit `t` added (lc_pt2pt_pick_rounds.c). */
void lc_pick_round_add(lc_pick_rounds_t r, int w, double size, double bw, double t, double recent[2]);

/* A pipeline sample of variant `nt` at `bw` (lc_pt2pt_pick_variant.c). */
void lc_pick_variant_sample(const lc_peer_t *from, lc_pick_class_t *c, bool nt, double size, double bw);
/* The pipeline's variant for a message lc_pick_decide pipelines: `how`
 * with LC_PICK_NT or without (lc_pt2pt_pick_variant.c). */
int lc_pick_variant(lc_peer_t *from, size_t size, int how);

/* Is this message of class c (in a window: `win`; the first of its window
 * found in one: `start`) part of a window probe?
 * (lc_pt2pt_pick_winprobe.c) */
bool lc_pick_win_probe(lc_peer_pick_t *k, lc_pick_class_t *c, bool win, bool start);

/* What a class's windows are weighed against: CMA's own window figure
 * (lc_pt2pt_pick_pullwin.c), but never less than its lone figure.  A
 * window of pulls moves no slower than lone messages in the same
 * conditions (it overlaps their RTS transit, and pays between pulls
 * what a lone message pays before its pull); a window figure under the
 * lone one was taken while the receiver lost time between its pulls
 * (session 19, load 40, 1 MiB: windows of pulls 10.9-13.7 GB/s against
 * lone pulls of 16.3-17.4, and the windows went to the pipeline, whose
 * watch then crawled at 0.25 GB/s). */
static inline double lc_pick_cma_win(const lc_pick_class_t *c)
{
    return c->pwin_bw > c->pull_bw ? c->pwin_bw : c->pull_bw;
}
/* The rate of class c's recent windows through the pipeline as a whole:
 * bytes over time of the watch periods win_bw is the best of (win_bw
 * when there are none).  What spaces the window probes
 * (lc_pt2pt_pick_winprobe.c): a probe costs its whole window, and the
 * window's first period pays the pipeline's start.
 *
 * Why (session 22, issue 13): at 64 KiB in the bw benchmark, quiet (real-
 * time priority), a probe window's periods read 13-14, 15-16 and 16.1-
 * 16.4 GB/s against CMA's 17.4-18.0; spaced by the best (16.3: 50 x
 * (18 / 16.3 - 1) = 5) a whole window went by the pipeline every 4-5
 * windows, 20-25 % of the timed messages, and forced, the pipeline's
 * windows move 0.78-0.86x CMA's: ~5 % of the time where the rule meant
 * 2 %. */
static inline double lc_pick_win_mean(const lc_pick_class_t *c)
{
    double t = c->win_round_time + c->win_last_time;
    return t > 0 ? (c->win_round_bytes + c->win_last_bytes) / t : c->win_bw;
}

/* CMA's window figure has a whole round (LC_PICK_SAMPLES periods) behind
 * it, as the pipeline's has by the time it meets it: once CMA's windows
 * are being timed the first decision waits for it, and until then the
 * windows that follow a pipeline sample are pulled
 * (lc_pick_windows_unmeasured).
 *
 * Why (session 22, issue 13): at 64 KiB in the bw benchmark (2 warm-up
 * and 20 timed windows of 64), with the ranks at real-time priority to
 * stand in for a quiet host, a trace of every window period read the
 * pipeline's first window 2.2, 12.5, 15.5, 17.2 GB/s and, in 9 runs of
 * 10, CMA's first period alone — 16 pulls of the next window, made while
 * that window's lone pipeline sample was still draining — 15.0-16.2,
 * where its later periods read 17.4-18.0.  The class decided on that one
 * period against the best of four ("windows 17.2 (CMA 16.0): CMA alone,
 * pipeline in a window"), sent 2-4 whole timed windows through the
 * pipeline before newer periods turned it back, and auto moved 15-56 %
 * of the timed messages by the pipeline (0.4 % in the run whose first
 * CMA round was whole): auto 16.0 GB/s against forced CMA's 18.6. */
static inline bool lc_pick_pwin_round(const lc_pick_class_t *c)
{
    return c->pwin_last_best > 0;
}
/* Is this message of class c part of a CMA window probe (a window of a
 * class whose windows take the pipeline, pulled whole)? */
bool lc_pick_pull_probe(lc_peer_pick_t *k, lc_pick_class_t *c, bool win, bool start);

/* A message of `size` bytes from `from` is a candidate: note whether its
 * class could split (lc_pt2pt_pick_split.c). */
void lc_pick_split_note(lc_peer_t *from, size_t size);
/* Class c could split and has not yet measured both CMA variants'
 * windows: CMA's window figure is not final. */
bool lc_pick_split_learning(const lc_pick_class_t *c);
/* CMA's variant for a message lc_pick_decide chose (`how`): with
 * LC_PICK_SPLIT when it is to be split (lc_pt2pt_pick_split.c). */
int lc_pick_split(lc_peer_t *from, size_t size, int how);
/* A period of CMA's window figure of class c, all of variant `split`,
 * moved `rate` (bytes/s): the variants' figures and the class's choice. */
void lc_pick_split_period(const lc_peer_t *from, lc_pick_class_t *c, bool split, double rate);
/* Class c could split and has not yet the lone timed pulls of both
 * CMA variants (session 23): CMA's lone figure is not final. */
bool lc_pick_split_lone_learning(const lc_pick_class_t *c);
/* A lone timed pull of class c, of variant `split`, moved `size` bytes
 * at `bw` (bytes/s, from the receiver's taking the RTS to the receive's
 * completion): the lone variants' figures and the class's lone choice
 * (lc_pt2pt_pick_split.c). */
void lc_pick_split_lone_sample(const lc_peer_t *from, lc_pick_class_t *c, bool split, double size, double bw);
/* CMA's window figure of class c: its chosen variant's once decided,
 * else `pwin` (the best period of either). */
double lc_pick_split_cma_win(const lc_pick_class_t *c, double pwin);

#endif
