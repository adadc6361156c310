/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_pick.c — single copy (CMA) or the two-copy pipeline, measured
 * per pair (issue 13), when LOCUS_CMA_THRESHOLD is auto.
 *
 * Which one is faster depends on where the two ranks' cores sit, which a
 * VM cannot see: when they share a cache the pipeline's two copies run in
 * parallel out of a pool that stays in it (36-45 GB/s measured), when they
 * do not the lines of every fragment cross between caches twice and one
 * CMA copy wins (docs/performance.md, "CMA or pipeline").  So the receiver
 * (who picks the protocol of a rendezvous: it pulls and sends FIN, or
 * sends CTS) times its first messages from each peer both ways and keeps
 * CMA unless the pipeline is clearly faster (LC_PICK_PIPE_MARGIN), per
 * size class (64-256 KiB, 256 KiB-1 MiB, 1-4 MiB, larger: cache effects
 * change the winner with size).  When the host's ranks outnumber its
 * cores, CMA without measuring.
 *
 * A sample is what the receiver can time alone: a pull's duration, or a
 * pipelined message's from CTS to its last fragment.  A pipeline sample
 * counts only if no other receive from the same peer was being pipelined
 * when its CTS went out (else it would time the queue), and while it runs
 * every other candidate from that peer is pipelined too, untimed (a pull
 * would stop the receiver from draining the sample's fragments).  The
 * best of LC_PICK_SAMPLES of each is kept: on a shared machine the best
 * is the run nobody interrupted.  Samples alternate, pipeline first; when
 * the pipeline cannot be timed (a window of messages in flight) the
 * message is pulled and timed instead, so a class whose pipeline never
 * gets a quiet moment still decides once the pipeline gets one.
 *
 * Both sides agree by construction: the sender does what the receiver's
 * CTS or FIN says, and each direction of a pair is decided by its own
 * receiver.  A decision is for the life of the job (no drift correction).
 */
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <string.h>

#define LC_PICK_SAMPLES 3
/* The pipeline must be this much faster on lone messages to be chosen.
 * A lone-message sample sees neither what CMA gains with a window of
 * messages in flight (on this VM, quiet: 1.37-1.6x the pipeline's
 * windowed bandwidth at 64 KiB-4 MiB) nor what the pipeline loses when
 * sender and receiver are not running at the same moment (busy host:
 * every full pool waits for a time slice; windowed 1 MiB fell to 28 MB/s
 * against CMA's 1.2 GB/s), while its best-of-3 lone samples still showed
 * it 1.35x CMA.  The placements measured differ far more than the margin
 * (pipeline 3.5-4.5x CMA where the two cores share a cache),
 * docs/performance.md "CMA or pipeline". */
#define LC_PICK_PIPE_MARGIN 1.5

typedef enum lc_pick_choice { LC_PICK_UNDECIDED = 0, LC_PICK_CHOSE_PULL, LC_PICK_CHOSE_PIPE } lc_pick_choice_t;

static const char *const lc_pick_class_name[LC_PICK_CLASSES] = { "64 KiB-256 KiB", "256 KiB-1 MiB", "1-4 MiB",
                                                                  "4 MiB and more" };

static lc_pick_class_t *lc_pick_class(lc_peer_t *p, size_t size)
{
    int c = 0;
    for (size_t s = size >> 18; s && c < LC_PICK_CLASSES - 1; s >>= 2) c++; /* 256 KiB, 1 MiB, 4 MiB */
    return &p->pick.cls[c];
}

int lc_pick_choose(lc_peer_t *from, size_t size, bool plain)
{
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (c->choice != LC_PICK_UNDECIDED) return c->choice == LC_PICK_CHOSE_PULL ? LC_PICK_PULL : LC_PICK_PIPE;
    /* Ranks outnumber cores: the pipeline needs sender and receiver
     * running at once, CMA only the receiver.  Nothing to measure. */
    if (lc_world.local_size > lc_world.usable_cores) {
        c->choice = LC_PICK_CHOSE_PULL;
        return LC_PICK_PULL;
    }
    /* Undecided.  A derived-datatype message is not timed (its speed is
     * the datatype's): the pipeline, as before calibration existed. */
    if (!plain || from->pick.sampling) return LC_PICK_PIPE;
    if (c->n_pipe <= c->n_pull && c->n_pipe < LC_PICK_SAMPLES && from->pick.pipelining == 0) {
        from->pick.sampling = true;
        return LC_PICK_PIPE | LC_PICK_SAMPLE;
    }
    return c->n_pull < LC_PICK_SAMPLES ? (LC_PICK_PULL | LC_PICK_SAMPLE) : LC_PICK_PULL;
}

void lc_pick_sample(lc_peer_t *from, size_t size, int pulled, double seconds)
{
    lc_pick_class_t *c = lc_pick_class(from, size);
    if (c->choice != LC_PICK_UNDECIDED) return;
    double bw = (double)size / (seconds > 1e-9 ? seconds : 1e-9);
    if (pulled) {
        if (bw > c->pull_bw) c->pull_bw = bw;
        c->n_pull++;
    } else {
        if (bw > c->pipe_bw) c->pipe_bw = bw;
        c->n_pipe++;
    }
    if (c->n_pull < LC_PICK_SAMPLES || c->n_pipe < LC_PICK_SAMPLES) return;
    c->choice = c->pipe_bw > LC_PICK_PIPE_MARGIN * c->pull_bw ? LC_PICK_CHOSE_PIPE : LC_PICK_CHOSE_PULL;
    if (lc_params.show_channels)
        fprintf(stderr, "locus[%d]: from rank %d, %s: CMA %.1f GB/s, pipeline %.1f GB/s (best of %d): %s\n",
                lc_log_rank, from->world_rank, lc_pick_class_name[c - from->pick.cls], c->pull_bw / 1e9,
                c->pipe_bw / 1e9, LC_PICK_SAMPLES, c->choice == LC_PICK_CHOSE_PULL ? "CMA" : "pipeline");
}

void lc_pick_pipe_done(lc_peer_t *from, lc_request_t *req)
{
    from->pick.pipelining--;
    if (req->pick_t0 != 0) {
        lc_pick_sample(from, req->msg_size, 0, lc_time_now() - req->pick_t0);
        req->pick_t0 = 0;
        from->pick.sampling = false;
    }
}
