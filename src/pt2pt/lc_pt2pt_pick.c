/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick.c — single copy (CMA) or the two-copy pipeline, measured
 * per pair (issue 13), when LOCUS_CMA_THRESHOLD is auto.
 *
 * Which one is faster depends on where the two ranks' cores sit, which a
 * VM cannot see: when they share a cache the pipeline's two copies run in
 * parallel out of a pool that stays in it (36-45 GB/s measured), when they
 * do not the lines of every fragment cross between caches twice and one
 * CMA copy wins on a window of messages, while a lone message still goes
 * faster through the pipeline (docs/performance.md, "CMA or pipeline").
 *
 * The receiver picks the protocol of a rendezvous (it pulls and sends
 * FIN, or sends CTS), so it measures: for each peer and size class
 * (64-256 KiB, 256 KiB-1 MiB, 1-4 MiB, larger) it times its first
 * messages both ways, from the moment the receiver takes the RTS to the
 * end of the pull or the last fragment, plus the fastest transit of an RTS
 * seen from that peer (the RTS carries the sender's CLOCK_MONOTONIC: same
 * kernel, since CMA works; added when the figures are made, so that
 * samples taken before it was known are not charged a queue's wait).  A receiver that was not running when an RTS
 * came thus does not count against the protocol that sample tried (under
 * load that made CMA samples read "0.0 GB/s" and chose the pipeline, whose
 * windows then crawled at 35 MB/s).  Only messages whose receive was
 * posted when the RTS arrived are timed.  A pipeline sample also
 * needs no other message from that peer being pipelined when it starts
 * (else it would time a queue), and while it runs every other candidate
 * from that peer is pipelined too, untimed (a pull would stop the
 * receiver from draining the sample's fragments) — unless the class's
 * windows were already measured slower through the pipeline than by CMA
 * (lc_pick_windows_slow: then they are pulled, and the sample waits).
 * The best of LC_PICK_SAMPLES of each is kept: on a shared machine the
 * best is the run nobody interrupted.  Then, per class:
 *
 *   pipeline > LC_PICK_PIPE_MARGIN x CMA   the pipeline, always;
 *   pipeline > CMA                         the pipeline for a lone
 *       message, CMA when another one from the peer is being pipelined
 *       (a window: CMA needs no fragment to pass through the one pool);
 *   else                                   CMA.
 *
 * That table guesses a window from lone samples; once the class has a
 * window figure of its own it follows that instead (lc_pick_rule, session
 * 13): the chosen pipeline's watch (below) times every LC_PICK_WATCH_MSGS
 * pipelined messages, and a period that saw one class only and no pull
 * from the peer (the first window does: a pipeline sample in flight keeps
 * the rest of the window on the pipeline) is that class's window rate.
 * Windows then take the pipeline when it beats CMA's samples, lone
 * messages too if their samples beat CMA's, else CMA for a lone message
 * and the pipeline in a window (LC_PICK_CHOSE_PIPE_WIN; a window is told
 * by the RTS stamps, whichever way the message before went:
 * lc_pick_in_window).
 *
 * When the host's ranks outnumber its cores, CMA without measuring (the
 * pipeline needs sender and receiver running at the same moment); with
 * progress threads, when ranks plus threads do (lc_pick_no_pipe).
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
 * none: lc_pick_watch).  And every decision lasts
 * LC_PICK_RETRY messages of its class, then the class is sampled afresh:
 * a placement or a load that changes is followed both ways, and three
 * unlucky samples (first pulls of 64 KiB measured at 0.2-0.3 GB/s on a
 * quiet host, 2026-11-26, against 9 GB/s once warm) do not decide for the
 * life of the job.
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
 *
 * Nor does a typed message feed the samples (pipe_bw, pull_bw):
 * lc_pick_choose is told it is not `timed`.  A packing-bound sample
 * understates both protocols, and not alike (a block-list pull pays per
 * segment, the pipeline packs in parallel with the unpack), so the class's
 * figures stay those of contiguous messages, and the typed ones follow the
 * class's decision (lc_pick_list weighs a block list against those same
 * figures).
 *
 * A decision is not final (session 11).  The first samples of a class can
 * all be unlucky one way: first pulls into pages never touched, a peer
 * descheduled while the pipeline samples ran.  A ping-pong of one message
 * at a time then kept the slower protocol for all its 4,096 messages, and
 * a whole run read "all slow" (the 1-4 MiB class flipped between runs on
 * the quiet host: 1 MiB auto 10.6-12.8 GB/s against forced CMA's 12.1-13.2).
 * So once decided, every message that can be timed still is (two clock
 * reads; a pipeline one only when it is lone), every LC_PICK_PROBE-th such
 * message goes the other way as a probe, and each protocol's figure is the
 * best of its recent samples (this round of LC_PICK_SAMPLES and the one
 * before; a round ends for both protocols at once, when each has
 * LC_PICK_SAMPLES in it, so both figures cover the same stretch of time
 * however rarely one is probed), so old luck ages out.  After each
 * sample the class is decided again by the same table, with LC_PICK_HYST
 * of hysteresis around each boundary so that two protocols within noise
 * of each other do not swap on every probe.  A probe costs at most
 * 1/LC_PICK_PROBE of the messages going the slower way (0.6x: under
 * 2 %); a protocol that sampled much
 * slower is probed more rarely (lc_pick_probe_every: ~2 % again).  A
 * class demoted for a crawling pipeline takes no pipeline probes (lone
 * probes looked fine while the windows crawled) until LC_PICK_RETRY
 * samples it afresh.  Windows that go by CMA on a window figure take a
 * window probe now and then (one window pipelined whole, ~2 % of the
 * time: lc_pick_win_probe), so that their figure ages as CMA's does.
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
 *
 * Both sides agree by construction: the sender does what the receiver's
 * CTS or FIN says, and each direction of a pair is decided by its own
 * receiver.
 */
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LC_PICK_SAMPLES 3
/* Lead the pipeline needs on lone messages to be used for windows too.
 * Where it does not share a cache (this VM, 2026-11-26, quiet) CMA moved
 * windows of 64 KiB-4 MiB 1.37-1.6x faster while the pipeline was ~1.4x
 * faster for a lone 64 KiB message; on a busy host the pipeline's windows
 * collapse (every full pool waits for a time slice: 1 MiB at 28 MB/s
 * against CMA's 1.2 GB/s) while its best lone samples still looked 1.35x
 * CMA.  Where the cores share a cache the pipeline was 3.5-4.5x CMA,
 * windowed (docs/performance.md "CMA or pipeline"). */
#define LC_PICK_PIPE_MARGIN 1.5
/* Samples longer than this are not believed (a clock from another time namespace). */
#define LC_PICK_SAMPLE_MAX 10.0
/* A chosen pipeline is judged every LC_PICK_WATCH_MSGS messages it moved,
 * and given up for CMA below LC_PICK_DEMOTE x CMA's best sample: well below
 * the LC_PICK_PIPE_MARGIN it needed, so a pipeline near its samples is never
 * flipped back and forth by noise. */
#define LC_PICK_WATCH_MSGS 16
#define LC_PICK_DEMOTE 0.5
/* Watch periods in a row that must read under LC_PICK_DEMOTE x CMA before
 * the class is demoted.  One stall of a rank (a time slice lost to another
 * process: ms, where 16 messages of 64 KiB-4 MiB take 0.1-3 ms) lies
 * between two completions, so within one period; a starved pipeline is
 * slow period after period.  Session 14: one such period demoted a class
 * moving 25-30 GB/s to CMA for LC_PICK_RETRY messages in 2 runs of 11. */
#define LC_PICK_DEMOTE_PERIODS 2
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
/* What one remote segment of a block-list pull costs the kernel on top of
 * the copy (process_vm_readv pins the pages of each remote iovec with a
 * call of its own).  Measured on this VM (2026-11-26, quiet, one
 * process_vm_readv of 512 KiB, both sides scattered, blocks on their own
 * pages): 0.45 us per segment at 64 B, 0.37 at 512 B, 0.31 at 1 KiB,
 * 0.25 at 2 KiB, 0.15-0.2 from 4 KiB on, against 40 us for the whole
 * 512 KiB contiguous (13 GB/s); scattering only the local side costs
 * nearly nothing from 2 KiB.  So a 256^3 face's y rows (2 KiB) pulled
 * with the list ran at 4-5 GB/s where the pipeline ran at 10-12. */
#define LC_PICK_SEG_COST 0.25e-6
/* Guesses for a class not sampled yet (GB/s seen on this VM, quiet). */
#define LC_PICK_GUESS_PULL_BW 12e9
#define LC_PICK_GUESS_PIPE_BW 10e9

typedef enum lc_pick_choice {
    LC_PICK_UNDECIDED = 0,
    LC_PICK_CHOSE_PULL,
    LC_PICK_CHOSE_PIPE,      /* always */
    LC_PICK_CHOSE_PIPE_LONE, /* for a lone message; CMA while another is pipelined */
    LC_PICK_CHOSE_PIPE_WIN,  /* in a window (lc_pick_in_window); CMA for a lone message */
} lc_pick_choice_t;

static const char *const lc_pick_class_name[LC_PICK_CLASSES] = { "64 KiB-256 KiB", "256 KiB-1 MiB", "1-4 MiB",
                                                                  "4 MiB and more" };

/* No pipeline: the host's ranks outnumber its cores, or with progress
 * threads (LOCUS_ASYNC_PROGRESS) ranks and threads do.  The pipeline
 * needs sender and receiver running at once — with the thread, both
 * ranks' threads while the applications compute —, CMA only the
 * receiver.  (2 ranks + threads on 2 cores, 1 MiB Iallreduce: the
 * receiver of an RTS that came before its own send started picked the
 * pipeline, and the sender's side streamed only when its application
 * reached MPI_Wait, h4 2026-11-26.) */
static bool lc_pick_no_pipe(void)
{
    return lc_world.local_size > lc_world.usable_cores ||
           (lc_thread_async && 2 * lc_world.local_size > lc_world.usable_cores);
}

static lc_pick_class_t *lc_pick_class(lc_peer_t *p, size_t size)
{
    int c = 0;
    for (size_t s = size >> 18; s && c < LC_PICK_CLASSES - 1; s >>= 2) c++; /* 256 KiB, 1 MiB, 4 MiB */
    return &p->pick.cls[c];
}

/* How often to try the way not chosen, moving at `other` against the
 * chosen's `chosen` (bytes/s). */
static uint32_t lc_pick_every(double chosen, double other)
{
    if (!(other > 0) || chosen <= other) return LC_PICK_PROBE;
    double n = LC_PICK_PROBE_COST * (chosen / other - 1.0);
    return n < LC_PICK_PROBE ? LC_PICK_PROBE : n > LC_PICK_PROBE_MAX ? LC_PICK_PROBE_MAX : (uint32_t)n;
}

static uint32_t lc_pick_probe_every(const lc_pick_class_t *c, bool pipe)
{
    return pipe ? lc_pick_every(c->pipe_bw, c->pull_bw) : lc_pick_every(c->pull_bw, c->pipe_bw);
}

/* The class's windows are known to be slower through the pipeline than
 * CMA's samples: then the rest of a window does not follow a pipeline
 * sample onto the pipeline.  Session 14: in the host's slow mode (windows
 * at 3.5-5 GB/s, CMA 12-13) each of the 3 first pipeline samples took its
 * window of 64 with it, 3 of the bw benchmark's 22 windows per size at
 * 1/3 of CMA's speed: auto read 0.74-0.82x forced CMA.  The first window
 * still follows (it gives the window figure); the later samples wait out
 * the window's pulls and read low, which only pushes a class whose windows
 * are slow anyway towards CMA (a lone message, as in a ping-pong, has no
 * pulls around it to wait for). */
static bool lc_pick_windows_slow(const lc_pick_class_t *c)
{
    return c->win_bw > 0 && c->n_pull > 0 && c->win_bw < c->pull_bw;
}

/* How long after the one before the sender stamped this candidate's RTS
 * (0: unknown — no stamp, or not after the last one), remembering its
 * stamp for the next.  Passed to lc_pick_decide rather than kept in the
 * peer: it belongs to one message, and a gap left in the peer would be
 * read by whatever lc_pick_choose came next. */
static double lc_pick_rts_gap(lc_peer_pick_t *k, double t_rts)
{
    double gap = t_rts > 0 && k->last_rts > 0 && t_rts > k->last_rts ? t_rts - k->last_rts : 0;
    if (t_rts > 0) k->last_rts = t_rts;
    return gap;
}

/* Part of a window, whichever way its first message went: another message
 * from the peer is being pipelined, or the sender posted this one sooner
 * (`gap`) after the one before than CMA moves a message of its size (it
 * did not wait for that one: a ping-pong's sender does).  Session 15, the
 * host's fast mode, 64 KiB, SHOW_CHANNELS: "CMA 10.6 GB/s, pipeline 5.8
 * GB/s, windows 12.7: CMA" — a lone message cannot overlap its two
 * copies, a window overlaps one message's copy-out with the next one's
 * copy-in; the lone figure (under 1/1.5 of CMA) sent the windows to CMA
 * too. */
static bool lc_pick_in_window(const lc_peer_pick_t *k, const lc_pick_class_t *c, size_t size, double gap)
{
    return k->pipelining != 0 || (gap > 0 && c->pull_bw > 0 && gap < (double)size / c->pull_bw);
}

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
#define LC_PICK_WIN_PROBE_MIN 4
/* A window's start, for counting windows: the first message in a window
 * after one that followed the message before it by more than
 * LC_PICK_LONE_GAP x what CMA takes to move it (or came unstamped).  A
 * message in the middle of a window can fall out of lc_pick_in_window
 * (session 16, 64 KiB, a class that pulls: a trace counted 3-5 starts per
 * window of 64 when every re-entry counted, the windows' first RTSs
 * 210-390 us apart, the boundary 7.7 us) — likely the RTSs that found the
 * ring full, which go out as the receiver's pulls free cells, about one
 * pull apart. */
#define LC_PICK_LONE_GAP 4.0
static uint32_t lc_pick_win_every(const lc_pick_class_t *c)
{
    if (!(c->pull_bw > c->win_bw)) return LC_PICK_WIN_PROBE_MIN;
    double n = LC_PICK_PROBE_COST * (c->pull_bw / c->win_bw - 1.0);
    return n < LC_PICK_WIN_PROBE_MIN ? LC_PICK_WIN_PROBE_MIN : n > LC_PICK_PROBE_MAX ? LC_PICK_PROBE_MAX : (uint32_t)n;
}

/* Is this message of class c (in a window: `win`; the first of its window
 * found in one: `start`) part of a window probe?  A probe starts with the
 * first message of a window that would be pulled, and the window's later
 * messages follow it until one is not in the window. */
static bool lc_pick_win_probe(lc_peer_pick_t *k, lc_pick_class_t *c, bool win, bool start)
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
    }
    return true;
}

static int lc_pick_decide(lc_peer_t *from, size_t size, double gap, bool timed)
{
    lc_pick_class_t *c = lc_pick_class(from, size);
    lc_peer_pick_t *k = &from->pick;
    /* A window: another message from the peer being pipelined, or a
     * rendezvous send of ours to it in flight (an exchange: Sendrecv, a
     * 2-rank Alltoall).  In an exchange both directions would pipeline
     * at once, each core copying every fragment of both (in and out),
     * where a pull is one copy each: 2 ranks, Ialltoall of 1 MiB, 91-95 us
     * against 53 (h6, 2026-11-26). */
    /* `sending` is the send side's (tx lock at MULTIPLE): an atomic read. */
    uint32_t sending = lc_count_get(&k->sending);
    bool busy = k->pipelining != 0 || sending != 0;
    if (c->choice != LC_PICK_UNDECIDED && lc_unlikely(++c->uses >= LC_PICK_RETRY))
        memset(c, 0, sizeof(*c)); /* sample both ways again */
    bool win = lc_pick_in_window(k, c, size, gap), start = win && !k->win_seen;
    if (start)
        k->win_seen = true;
    else if (!win && (gap == 0 || c->pull_bw == 0 || gap > LC_PICK_LONE_GAP * (double)size / c->pull_bw))
        k->win_seen = false;
    if (c->choice != LC_PICK_UNDECIDED) {
        if (lc_pick_win_probe(k, c, win, start)) return LC_PICK_PIPE;
        bool pipe = c->choice == LC_PICK_CHOSE_PIPE || (c->choice == LC_PICK_CHOSE_PIPE_LONE && !busy) ||
                    (c->choice == LC_PICK_CHOSE_PIPE_WIN && !sending && win);
        if (!timed) return pipe ? LC_PICK_PIPE : LC_PICK_PULL;
        /* The protocol not chosen, now and then: a pipeline probe only for
         * a lone message (as a first sample), none for a demoted class. */
        if (++c->since_probe >= lc_pick_probe_every(c, pipe) && !busy && !k->sampling && !(pipe == false && c->demoted)) {
            c->since_probe = 0;
            if (pipe) return LC_PICK_PULL | LC_PICK_SAMPLE;
            k->sampling = true;
            return LC_PICK_PIPE | LC_PICK_SAMPLE;
        }
        if (!pipe) return LC_PICK_PULL | LC_PICK_SAMPLE;
        if (busy || k->sampling) return LC_PICK_PIPE;
        k->sampling = true;
        return LC_PICK_PIPE | LC_PICK_SAMPLE;
    }
    /* Nothing to measure (lc_pick_no_pipe). */
    if (lc_pick_no_pipe()) {
        c->choice = LC_PICK_CHOSE_PULL;
        c->demoted = 1; /* as a crawling pipeline: no pipeline probes, no second thoughts */
        return LC_PICK_PULL;
    }
    /* Undecided: a pipeline sample in flight keeps the rest on the
     * pipeline (a pull would hold up the sample's fragments), until the
     * class's windows have been measured slower through the pipeline than
     * CMA's samples (lc_pick_windows_slow); a message that cannot be timed
     * (derived datatype, unexpected, truncated) goes as a PIPE_LONE class
     * would. */
    if (k->sampling) {
        if (!lc_pick_windows_slow(c)) return LC_PICK_PIPE;
        return timed && c->n_pull < LC_PICK_SAMPLES ? (LC_PICK_PULL | LC_PICK_SAMPLE) : LC_PICK_PULL;
    }
    if (!timed) return busy ? LC_PICK_PULL : LC_PICK_PIPE;
    if (c->n_pipe <= c->n_pull && c->n_pipe < LC_PICK_SAMPLES && !busy) {
        k->sampling = true;
        return LC_PICK_PIPE | LC_PICK_SAMPLE;
    }
    return c->n_pull < LC_PICK_SAMPLES ? (LC_PICK_PULL | LC_PICK_SAMPLE) : LC_PICK_PULL;
}

/* Both variants have their first LC_PICK_SAMPLES: the class has chosen
 * one (var_n counts no further, and is cleared only with the class). */
static bool lc_pick_variant_decided(const lc_pick_class_t *c)
{
    return c->var_n[0] >= LC_PICK_SAMPLES && c->var_n[1] >= LC_PICK_SAMPLES;
}

/* The pipeline's variant for a message lc_pick_decide pipelines: the
 * class's, except that its samples learn both (alternating, normal stores
 * first, until each has LC_PICK_SAMPLES) and then probe the variant not
 * chosen every LC_PICK_PROBE-th sample, more rarely when it sampled much
 * slower (lc_pick_every).  A probe is a lone message (every pipeline
 * sample is), and costs at most the 40 % non-temporal stores lose where
 * the cores share a cache (1 MiB windows 30.6 -> 17.7 GB/s) on 1 in
 * LC_PICK_PROBE..LC_PICK_PROBE_MAX pipeline samples.  LOCUS_SHM_BIG_NT
 * forces the variant on the sender's side: nothing to learn. */
static int lc_pick_variant(lc_peer_t *from, size_t size, int how)
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

int lc_pick_choose(lc_peer_t *from, size_t size, double t_rts, bool timed)
{
    int how = lc_pick_decide(from, size, lc_pick_rts_gap(&from->pick, t_rts), timed);
    if (!(how & LC_PICK_PULL)) how = lc_pick_variant(from, size, how);
    /* A pull while a pipelined receive is pending stops the receiver from
     * draining its fragments: the watch period then times the two
     * protocols interleaved, not the pipeline (lc_pick_watch). */
    if ((how & LC_PICK_PULL) && from->pick.watching) from->pick.watch_mixed = true;
    return how;
}

/* A block list is pulled in one copy, but every remote segment adds
 * LC_PICK_SEG_COST to the time of the contiguous pull; the pipeline packs
 * and unpacks at about its contiguous speed (both copies run at once), so
 * the list is worth it only with few, large segments.  The rates are the
 * class's samples (contiguous messages), else the guesses.  Where the
 * pipeline is not an option (ranks outnumber cores, or it crawled and was
 * demoted) the list is always pulled. */
bool lc_pick_list(lc_peer_t *from, size_t size, uint32_t nblocks)
{
    if (lc_pick_no_pipe()) return true;
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (c->demoted) return true;
    double pull_bw = c->pull_bw > 0 ? c->pull_bw : LC_PICK_GUESS_PULL_BW;
    double pipe_bw = c->pipe_bw > 0 ? c->pipe_bw : LC_PICK_GUESS_PIPE_BW;
    double t_list = (double)size / pull_bw + (double)nblocks * LC_PICK_SEG_COST;
    return (double)size / t_list >= pipe_bw;
}

void lc_pick_transit(lc_peer_t *from, double transit)
{
    if (!(transit >= 0 && transit < LC_PICK_SAMPLE_MAX)) return; /* a clock from elsewhere */
    if (from->pick.transit == 0 || transit < from->pick.transit) from->pick.transit = transit;
}

/* The table of the model, with hysteresis around the boundaries the
 * class would cross when it is decided already.
 *
 * With a window's rate of the pipeline measured (win_bw, lc_pick_watch),
 * windows follow it rather than the LC_PICK_PIPE_MARGIN guess: a lone
 * sample says little about a window, both ways (session 13, the same
 * quiet VM run to run: windows of 1 MiB at ~30 GB/s through the pipeline
 * while lone samples read about CMA's 13, so the window rule kept the
 * windows on CMA, 0.44x; or windows at 3-5 GB/s).  Windows faster through
 * the pipeline: the pipeline always, unless a lone message is much slower
 * through it (then CMA for a lone message, the pipeline in a window:
 * LC_PICK_CHOSE_PIPE_WIN); windows faster by CMA: the pipeline for a
 * lone message if its samples say so, CMA in a window. */
static uint8_t lc_pick_rule(const lc_pick_class_t *c)
{
    double pull = c->pull_bw > 0 ? c->pull_bw : 1e-9;
    double r = c->pipe_bw / pull;
    double lo = 1.0, hi = LC_PICK_PIPE_MARGIN;
    switch (c->choice) {
    case LC_PICK_CHOSE_PULL: lo *= LC_PICK_HYST, hi *= LC_PICK_HYST; break;
    case LC_PICK_CHOSE_PIPE: lo /= LC_PICK_HYST, hi /= LC_PICK_HYST; break;
    case LC_PICK_CHOSE_PIPE_LONE: lo /= LC_PICK_HYST, hi *= LC_PICK_HYST; break;
    case LC_PICK_CHOSE_PIPE_WIN: lo *= LC_PICK_HYST, hi *= LC_PICK_HYST; break;
    default: break;
    }
    if (c->win_bw > 0) {
        double rw = c->win_bw / pull;
        double wlo = c->choice == LC_PICK_CHOSE_PIPE || c->choice == LC_PICK_CHOSE_PIPE_WIN ? 1.0 / LC_PICK_HYST
                     : c->choice == LC_PICK_UNDECIDED                                      ? 1.0
                                                                                           : LC_PICK_HYST;
        /* Windows faster through the pipeline: there; a lone message the
         * way its own samples say (session 15: with the 1/1.5 margin here
         * a 64 KiB class whose lone messages sampled 0.55x CMA sent its
         * windows, 1.2x faster through the pipeline, to CMA too). */
        if (rw > wlo) return r > lo ? LC_PICK_CHOSE_PIPE : LC_PICK_CHOSE_PIPE_WIN;
        return r > lo ? LC_PICK_CHOSE_PIPE_LONE : LC_PICK_CHOSE_PULL;
    }
    return r > hi ? LC_PICK_CHOSE_PIPE : r > lo ? LC_PICK_CHOSE_PIPE_LONE : LC_PICK_CHOSE_PULL;
}

static void lc_pick_show(const lc_peer_t *from, const lc_pick_class_t *c, uint8_t was)
{
    if (!lc_params.show_channels) return;
    char win[48] = "";
    if (c->win_bw > 0) snprintf(win, sizeof(win), ", windows %.1f", c->win_bw / 1e9);
    fprintf(stderr, "locus[%d]: from rank %d, %s: CMA %.1f GB/s, pipeline %.1f GB/s%s (best of the last %d-%d): %s%s\n",
            lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->pull_bw / 1e9,
            c->pipe_bw / 1e9, win, LC_PICK_SAMPLES, 2 * LC_PICK_SAMPLES,
            c->choice == LC_PICK_CHOSE_PULL       ? "CMA"
            : c->choice == LC_PICK_CHOSE_PIPE     ? "pipeline"
            : c->choice == LC_PICK_CHOSE_PIPE_WIN ? "CMA alone, pipeline in a window"
                                                  : "pipeline alone, CMA in a window",
            was == LC_PICK_UNDECIDED ? "" : " (changed on newer samples)");
}

/* Decide a class again on its figures, once it has its first samples. */
static void lc_pick_redecide(const lc_peer_t *from, lc_pick_class_t *c)
{
    if (c->n_pull < LC_PICK_SAMPLES || c->n_pipe < LC_PICK_SAMPLES) return;
    uint8_t was = c->choice;
    if (was != LC_PICK_UNDECIDED && c->demoted) return; /* CMA until LC_PICK_RETRY */
    c->choice = lc_pick_rule(c);
    if (c->choice == was) return;
    if (was != LC_PICK_UNDECIDED) c->flips++;
    lc_pick_show(from, c, was);
}

/* Rounds of samples of two ways (the protocols: [0] pipeline, [1] pull;
 * or the pipeline's variants: [0] normal stores, [1] non-temporal). */
typedef struct lc_pick_rounds {
    double *round_best, *last_best; /* best samples, without the RTS transit */
    double *round_size, *last_size; /* those samples' sizes (bytes) */
    uint8_t *round_n;
    uint32_t *round_msgs;
} lc_pick_rounds_t;

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

/* Add a sample of way w of `size` bytes at `bw` (without transit);
 * recent[] gets each way's figure, the best of this round and the one
 * before with the transit `t` added. */
static void lc_pick_round_add(lc_pick_rounds_t r, int w, double size, double bw, double t, double recent[2])
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
static void lc_pick_variant_sample(const lc_peer_t *from, lc_pick_class_t *c, bool nt, double size, double bw)
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

void lc_pick_sample(lc_peer_t *from, size_t size, int way, double seconds)
{
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (!(seconds > 0 && seconds < LC_PICK_SAMPLE_MAX)) return;
    double bw = (double)size / (seconds > 1e-9 ? seconds : 1e-9);
    bool pulled = (way & LC_PICK_PULL) != 0;
    int w = pulled ? 1 : 0;
    /* Either variant's sample is the pipeline's too: its figure is its
     * best variant's (the one it would take, once learnt). */
    if (!pulled && !lc_params.shm_big_nt) lc_pick_variant_sample(from, c, (way & LC_PICK_NT) != 0, (double)size, bw);
    double recent[2];
    lc_pick_rounds_t r = { c->round_best, c->last_best, c->round_size, c->last_size, c->round_n, &c->round_msgs };
    lc_pick_round_add(r, w, (double)size, bw, from->pick.transit, recent);
    c->pipe_bw = recent[0];
    c->pull_bw = recent[1];
    if (pulled) {
        if (c->n_pull < LC_PICK_SAMPLES) c->n_pull++;
    } else {
        if (c->n_pipe < LC_PICK_SAMPLES) c->n_pipe++;
    }
    lc_pick_redecide(from, c);
}

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
            k->watching++;
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
    bool mixed = k->watch_mixed;
    uint8_t cls = k->watch_cls;
    k->watch_msgs = 0;
    k->watch_bytes = k->watch_time = 0;
    k->watch_mixed = false;
    k->watch_cls = 0;
    if (mixed || cls < 1 || cls > LC_PICK_CLASSES) return; /* several classes: 0xff */
    lc_pick_class_t *c = &k->cls[cls - 1];
    if (rate < HUGE_VAL) {
        if (rate > c->win_round_best) c->win_round_best = rate;
        if (++c->win_round_n >= LC_PICK_SAMPLES) {
            c->win_last_best = c->win_round_best;
            c->win_round_best = 0;
            c->win_round_n = 0;
        }
        c->win_bw = c->win_round_best > c->win_last_best ? c->win_round_best : c->win_last_best;
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
