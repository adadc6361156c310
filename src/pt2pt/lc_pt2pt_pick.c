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
 * 13): the chosen pipeline's watch (lc_pt2pt_pick_watch.c) times every
 * LC_PICK_WATCH_MSGS pipelined messages, and a period that saw one class
 * only and no pull
 * from the peer (the first window does: a pipeline sample in flight keeps
 * the rest of the window on the pipeline) is that class's window rate.
 * Windows then take the pipeline when it beats CMA's windows, lone
 * messages too if their samples beat CMA's, else CMA for a lone message
 * and the pipeline in a window (LC_PICK_CHOSE_PIPE_WIN; a window is told
 * by the RTS stamps, whichever way the message before went:
 * lc_pick_in_window).  CMA's windows are timed as windows too (session
 * 19, lc_pt2pt_pick_pullwin.c: pulls back to back; a lone pull's figure
 * carries the RTS transit, which a window overlaps); until CMA has such
 * a figure its lone samples stand in for it, and the first window after
 * the pipeline's windows are measured is pulled to give it one (session
 * 20, lc_pick_windows_unmeasured).
 *
 * When the host's ranks outnumber its cores, CMA without measuring (the
 * pipeline needs sender and receiver running at the same moment); with
 * progress threads, when ranks plus threads do (lc_pick_no_pipe).
 *
 * A chosen pipeline stays watched (lc_pt2pt_pick_watch.c): when the rate
 * it delivers falls below LC_PICK_DEMOTE x the CMA samples for
 * LC_PICK_DEMOTE_PERIODS watch periods in a row, the class goes to CMA.
 * And every decision lasts
 * LC_PICK_RETRY messages of its class, then the class is sampled afresh:
 * a placement or a load that changes is followed both ways, and three
 * unlucky samples (first pulls of 64 KiB measured at 0.2-0.3 GB/s on a
 * quiet host, 2026-11-26, against 9 GB/s once warm) do not decide for the
 * life of the job.
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
 * The pipeline has two variants, normal and non-temporal stores
 * (session 15), learnt beside the protocols: lc_pt2pt_pick_variant.c;
 * so has CMA (session 22), one core's pull or the split copy with the
 * sender, learnt on CMA's window periods and (session 23) on lone pulls:
 * lc_pt2pt_pick_split.c.
 *
 * Both sides agree by construction: the sender does what the receiver's
 * CTS or FIN says, and each direction of a pair is decided by its own
 * receiver.
 */
#include "pt2pt/lc_pt2pt_pick.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <stdio.h>
#include <string.h>

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

const char *const lc_pick_class_name[LC_PICK_CLASSES] = { "64 KiB-256 KiB", "256 KiB-1 MiB", "1-4 MiB",
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

/* While the pipeline's variant is not decided, a class that pulls probes
 * the pipeline every LC_PICK_PROBE timed messages whatever it costs: its
 * window figure is the normal stores' (a window follows the class's
 * variant, normal until decided), and the variant that would beat CMA in
 * a window is known only once both variants have their lone samples.
 * Session 17, traces at 64 KiB: normal-store windows 1.7-5.2 GB/s sent
 * the windows to CMA (8-10) at window 2-4; spaced by cost, the lone
 * probes decided the variant at windows 7-15 of 22, and the non-temporal
 * windows then moved 10.9-15.2.  At most 2 x LC_PICK_SAMPLES such probes
 * per class and LC_PICK_RETRY. */
/* The probes of a class that pulls are spaced against CMA's window
 * figure where it has one (lc_pick_cma_win: never below the lone one, and
 * the lone one where no window was ever pulled): the messages between
 * probes are pulled in windows, at that rate, not at the lone figure,
 * which carries the RTS transit (session 20, the session-19 Xeon at 64
 * KiB: lone pulls 12.7 GB/s, windows of pulls 18, lone pipelined messages
 * 2.8): spaced against the lone figure a probe came every 177 messages
 * and cost 19.8 us where 177 windowed pulls take 644 us, 3 % rather than
 * 2 %; against the window figure, every 271. */
/* Only for a class whose windows have a figure (session 23): where none
 * was ever measured (a ping-pong's lone messages, lc_osu_pt2pt -t lat),
 * there is no window for the variant to win, and the 3 missing samples at
 * 32 apart cost what the lone figures say, like any probe: 1 MiB, lone
 * pipeline 101-116 us against the split pull's 44, ~4 % of the bench's
 * 100 timed round trips.  Those probes are then spaced by cost (the
 * pipeline's figure is already the better of its variants' samples). */
static uint32_t lc_pick_probe_every(const lc_pick_class_t *c, bool pipe)
{
    if (!pipe && !lc_params.shm_big_nt && !lc_pick_variant_decided(c) && (c->win_bw > 0 || c->pwin_bw > 0))
        return LC_PICK_PROBE;
    return pipe ? lc_pick_every(c->pipe_bw, c->pull_bw) : lc_pick_every(lc_pick_cma_win(c), c->pipe_bw);
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
    return c->win_bw > 0 && c->n_pull > 0 && c->win_bw < lc_pick_cma_win(c);
}

/* The pipeline's windows are measured and CMA's are not: the rest of a
 * window that follows a pipeline sample is pulled, back to back, to give
 * CMA its window figure before the class decides (session 20).  Until
 * then the first windows all followed their samples onto the pipeline
 * (its window figure beat CMA's lone one, which carries the RTS transit a
 * window overlaps), and CMA's windows were measured only by a window
 * probe after the decision: on the session-19 Xeon at 64 KiB windows 0-2
 * of the bw benchmark went by the pipeline at 12.9 GB/s where CMA's
 * moved 18, the third of them timed, and the window probes were then
 * spaced against the lone figure (lc_pt2pt_pick_winprobe.c). */
static bool lc_pick_windows_unmeasured(const lc_pick_class_t *c)
{
    /* Unmeasured until a whole round of CMA periods is in (session 22,
     * h2: a first period reads low while the window's pipeline sample
     * drains) and both of CMA's variants are measured (lc_pick_split_learning). */
    return c->win_bw > 0 && (!lc_pick_pwin_round(c) || lc_pick_split_learning(c));
}

/* Is this pull of a decided class timed?  A lone one always (it gives
 * CMA's lone figure, with the RTS transit); of windowed ones, runs of
 * LC_PICK_WATCH_MSGS (one period of CMA's window figure,
 * lc_pt2pt_pick_pullwin.c), each followed by 40-55 untimed ones — about one
 * in LC_PICK_TIME_EVERY, the run's start varied (a multiplicative hash of
 * the run's number) so that the timed pulls do not fall on the same
 * places of every window of an application (windows of 64, runs every
 * 64: only the window's second to 17th pulls would ever be timed).
 *
 * Why (session 21): timing a pull costs the receiver two clock reads and
 * the figures' bookkeeping (lc_pick_pull_done, lc_pick_sample, the rounds,
 * lc_pick_redecide), ~0.1 us on the session-19 Xeon — a trace of the bw
 * benchmark at 64 KiB read each pull of a decided CMA class 100-110 ns
 * longer than forced CMA's (p10 and p50, 3.41-3.49 us against 3.30-3.39),
 * and a scratch loop of the same calls took 105 ns of CPU a message — 3 %
 * of a 3.4 us pull, on the receiver, whose pulls are a window's whole
 * cost; the learning model (pick_cost) had none of it, and auto stayed
 * 0.86-0.91x forced CMA in quiet sets where the model said 1.046x.  A
 * quarter of the windowed pulls still make CMA's figures: a round needs
 * LC_PICK_SAMPLES samples (the pipeline's probes come every 32-1024
 * messages), a window period LC_PICK_WATCH_MSGS windowed pulls.  Untimed
 * pulls still count for the probes' spacing (since_probe) and the
 * windows (win_seen). */
static bool lc_pick_pull_timed(lc_pick_class_t *c, bool win)
{
    if (!win) return true;
    if (c->pull_skip != 0) {
        c->pull_skip--;
        return false;
    }
    if (++c->pulls % LC_PICK_WATCH_MSGS == 0) {
        uint32_t h = (c->pulls / LC_PICK_WATCH_MSGS) * 2654435761u; /* Knuth's multiplicative hash */
        c->pull_skip = (LC_PICK_TIME_EVERY - 1) * LC_PICK_WATCH_MSGS - LC_PICK_WATCH_MSGS / 2 + (h >> 28);
    }
    return true;
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
        if (lc_pick_pull_probe(k, c, win, start)) return timed ? (LC_PICK_PULL | LC_PICK_SAMPLE | LC_PICK_WIN) : LC_PICK_PULL;
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
        if (!pipe)
            return lc_pick_pull_timed(c, win) ? (LC_PICK_PULL | LC_PICK_SAMPLE | (win ? LC_PICK_WIN : 0))
                                              : LC_PICK_PULL;
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
    /* A pull in a window is timed as one of a window's (LC_PICK_WIN) from
     * the start, so that CMA's window figure can exist when the class
     * decides. */
    int pwin = timed && win ? LC_PICK_WIN : 0;
    if (k->sampling) {
        if (!lc_pick_windows_slow(c) && !lc_pick_windows_unmeasured(c)) return LC_PICK_PIPE;
        return timed && c->n_pull < LC_PICK_SAMPLES ? (LC_PICK_PULL | LC_PICK_SAMPLE | pwin) : (LC_PICK_PULL | pwin);
    }
    if (!timed) return busy ? LC_PICK_PULL : LC_PICK_PIPE;
    if (c->n_pipe <= c->n_pull && c->n_pipe < LC_PICK_SAMPLES && !busy) {
        k->sampling = true;
        return LC_PICK_PIPE | LC_PICK_SAMPLE;
    }
    /* A lone pull is timed while the class still learns CMA's lone
     * variants (the decision waits for them: lc_pick_redecide). */
    bool more = c->n_pull < LC_PICK_SAMPLES || (!win && lc_pick_split_lone_learning(c));
    return more ? (LC_PICK_PULL | LC_PICK_SAMPLE | pwin) : (LC_PICK_PULL | pwin);
}

int lc_pick_choose(lc_peer_t *from, size_t size, double t_rts, bool timed)
{
    lc_pick_split_note(from, size);
    int how = lc_pick_decide(from, size, lc_pick_rts_gap(&from->pick, t_rts), timed);
    how = (how & LC_PICK_PULL) ? lc_pick_split(from, size, how) : lc_pick_variant(from, size, how);
    /* For the pull's window clock (lc_pick_pull_done, which follows this
     * call for the same message under the same lock).  A pull it will not
     * see (untimed: lc_pick_pull_timed, or a typed message) breaks the
     * chain of pulls back to back: the next timed one counts from its own
     * RTS, not from the end of a pull before the untimed ones (which would
     * charge it their time). */
    if (how & LC_PICK_WIN) from->pick.pull_rts = t_rts;
    else if ((how & LC_PICK_PULL) && !(how & LC_PICK_SAMPLE))
        from->pick.pull_end = 0;
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
        /* Window against window (session 19): CMA's own window figure
         * once it has one (lc_pt2pt_pick_pullwin.c, lc_pick_cma_win). */
        double cma_win = lc_pick_cma_win(c);
        double rw = c->win_bw / (cma_win > 0 ? cma_win : pull);
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
    char win[64] = "";
    if (c->win_bw > 0 && c->pwin_bw > 0)
        snprintf(win, sizeof(win), ", windows %.1f (CMA %.1f)", c->win_bw / 1e9, c->pwin_bw / 1e9);
    else if (c->win_bw > 0)
        snprintf(win, sizeof(win), ", windows %.1f", c->win_bw / 1e9);
    fprintf(stderr, "locus[%d]: from rank %d, %s: CMA %.1f GB/s, pipeline %.1f GB/s%s (best of the last %d-%d): %s%s\n",
            lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->pull_bw / 1e9,
            c->pipe_bw / 1e9, win, LC_PICK_SAMPLES, 2 * LC_PICK_SAMPLES,
            c->choice == LC_PICK_CHOSE_PULL       ? "CMA"
            : c->choice == LC_PICK_CHOSE_PIPE     ? "pipeline"
            : c->choice == LC_PICK_CHOSE_PIPE_WIN ? "CMA alone, pipeline in a window"
                                                  : "pipeline alone, CMA in a window",
            was == LC_PICK_UNDECIDED ? "" : " (changed on newer samples)");
}

/* Decide a class again on its figures, once it has its first samples
 * (and, for its first decision on a window figure, CMA's first round of
 * window periods: lc_pick_pwin_round). */
void lc_pick_redecide(const lc_peer_t *from, lc_pick_class_t *c)
{
    if (c->n_pull < LC_PICK_SAMPLES || c->n_pipe < LC_PICK_SAMPLES) return;
    uint8_t was = c->choice;
    /* Not before then (a class whose windows were never pulled, as a
     * ping-pong's, decides on CMA's lone figure as before). */
    if (was == LC_PICK_UNDECIDED && c->win_bw > 0 && c->pwin_bw > 0 && !lc_pick_pwin_round(c)) return;
    /* Nor, where no window was measured (a ping-pong), before CMA's lone
     * figure has both its variants (session 23: 2 ranks, lat at 4 MiB,
     * quiet: one core's pulls 9-10 GB/s, the pipeline's 10-11, the split
     * 16-17; decided on the first 3 pulls, 2 of them one core's, the
     * class pipelined lone messages and learnt the split only from
     * probes 32+ apart). */
    if (was == LC_PICK_UNDECIDED && c->win_bw == 0 && c->pwin_bw == 0 && lc_pick_split_lone_learning(c)) return;
    if (was != LC_PICK_UNDECIDED && c->demoted) return; /* CMA until LC_PICK_RETRY */
    c->choice = lc_pick_rule(c);
    if (c->choice == was) return;
    if (was != LC_PICK_UNDECIDED) c->flips++;
    lc_pick_show(from, c, was);
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
