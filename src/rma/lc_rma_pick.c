/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_pick.c — active message or CMA for a contiguous MPI_Put/MPI_Get
 * on a window over user memory (MPI_Win_create) to a peer CMA reaches,
 * measured per pair and size class when LOCUS_RMA_AM_MAX is auto.
 *
 * The two ways cost differently and which is cheaper depends on the
 * machine, the placement and the load:
 *  - an active message is a round trip through the shared-memory rings
 *    (the target's progress engine applies it and answers; larger data
 *    streams through ring cells, lc_rma_am.c): a few hundred ns for a
 *    few bytes while the target is inside MPI, plus two copies per byte,
 *    and as long as the target computes outside MPI when it is not;
 *  - CMA is one process_vm_writev/readv: a system call and page pinning
 *    (about 1.5 us here) plus one copy, without the target.
 * Session 10 fixed the cutoff at 512 B from one series of runs; the
 * quiet runs of session 11 showed active messages 4x faster at 1 KiB.
 *
 * So the origin measures, per peer and size class (<= 64 B, 256 B, 1 KiB,
 * 4 KiB, 16 KiB, 64 KiB; larger ones always CMA, point-to-point's pick
 * decides there): its first operations of a class alternate between the
 * two ways; a CMA sample is the system call's time, an active-message
 * sample the time from the request to its answer, taken only when
 * nothing else of the window was in flight (else it would time a queue)
 * and read when a flush or wait sees the answer.  With LC_RMA_PICK_SAMPLES
 * of each (the best of each kept: on a shared machine the best is the
 * run nobody interrupted), the class goes the cheaper way; a class whose
 * active messages never could be timed (always queued) goes to CMA after
 * LC_RMA_PICK_TRIES operations.  Every decision lasts LC_RMA_PICK_RETRY
 * operations of its class, then the class is sampled afresh: a target
 * that now computes outside MPI makes active messages slow (their
 * samples long), and CMA takes over.
 *
 * A fixed LOCUS_RMA_AM_MAX overrides it all: up to that size active
 * messages, above CMA (0: always CMA).
 *
 * State: one table per peer (by universe id), made at its first use,
 * touched only under the library's critical section like the rest of
 * the engine.
 */
#include "rma/lc_rma_impl.h"
#include "coord/lc_world.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LC_RMA_PICK_SAMPLES 5
#define LC_RMA_PICK_TRIES 32
#define LC_RMA_PICK_RETRY 4096

enum { LC_RMA_PICK_UNDECIDED = 0, LC_RMA_PICK_AM, LC_RMA_PICK_CMA };

typedef struct lc_rma_pick_cls {
    double am_best, cma_best; /* seconds, best sample; valid when *_n > 0 */
    uint8_t am_n, cma_n;      /* samples taken since the class was last reset */
    uint8_t choice;           /* LC_RMA_PICK_* */
    uint8_t told;             /* the last choice LOCUS_SHOW_CHANNELS printed */
    uint8_t tries;            /* operations while undecided */
    uint32_t uses;            /* operations since decided */
} lc_rma_pick_cls_t;

typedef struct lc_rma_pick_peer {
    lc_rma_pick_cls_t cls[LC_RMA_PICK_CLASSES];
} lc_rma_pick_peer_t;

static const char *lc_rma_pick_class_name(int c);

static lc_rma_pick_peer_t **lc_rma_picks; /* [lc_rma_npicks], by universe id */
static int lc_rma_npicks;

int lc_rma_pick_class(size_t bytes)
{
    if (bytes > LC_RMA_PICK_MAX) return -1;
    int c = 0;
    for (size_t s = bytes > 64 ? (bytes - 1) >> 6 : 0; s; s >>= 2) c++; /* 64, 256, 1 Ki, 4 Ki, 16 Ki, 64 Ki */
    return c;
}

static lc_rma_pick_cls_t *lc_rma_pick_get(const lc_peer_t *peer, int c)
{
    int id = (int)(peer - lc_world.peers);
    if (id >= lc_rma_npicks) {
        int n = lc_world.peer_capacity > id ? lc_world.peer_capacity : id + 1;
        lc_rma_pick_peer_t **t = realloc(lc_rma_picks, (size_t)n * sizeof *t);
        if (!t) return NULL; /* then CMA, unmeasured */
        memset(t + lc_rma_npicks, 0, (size_t)(n - lc_rma_npicks) * sizeof *t);
        lc_rma_picks = t;
        lc_rma_npicks = n;
    }
    if (!lc_rma_picks[id] && !(lc_rma_picks[id] = calloc(1, sizeof(lc_rma_pick_peer_t)))) return NULL;
    return &lc_rma_picks[id]->cls[c];
}

bool lc_rma_pick_am(lc_rma_win_t *win, int target, size_t bytes, int *sample_p)
{
    *sample_p = 0;
    if (lc_params.rma_am_max != LC_PARAM_SIZE_AUTO) return bytes <= lc_params.rma_am_max;
    int c = lc_rma_pick_class(bytes);
    if (c < 0) return false;
    lc_rma_pick_cls_t *k = lc_rma_pick_get(win->comm->peers[target], c);
    if (!k) return false;
    if (k->choice != LC_RMA_PICK_UNDECIDED) {
        if (lc_likely(++k->uses < LC_RMA_PICK_RETRY)) return k->choice == LC_RMA_PICK_AM;
        uint8_t told = k->told;
        memset(k, 0, sizeof *k); /* sample both ways again */
        k->told = told;
    }
    /* Alternate while sampling; an active message is timed only when
     * nothing else of this window is in flight. */
    bool am = k->am_n < LC_RMA_PICK_SAMPLES && (k->cma_n >= LC_RMA_PICK_SAMPLES || !(k->tries & 1));
    if (++k->tries >= LC_RMA_PICK_TRIES) { /* active messages could not be timed: stay with CMA */
        k->choice = k->am_n && k->am_best <= k->cma_best ? LC_RMA_PICK_AM : LC_RMA_PICK_CMA;
        k->uses = 0;
        return k->choice == LC_RMA_PICK_AM;
    }
    if (am) {
        if (win->ntracked == 0) *sample_p = c + 1;
    } else {
        *sample_p = c + 1;
    }
    return am;
}

void lc_rma_pick_sample(lc_rma_win_t *win, int target, int sample, bool am, double seconds)
{
    lc_rma_pick_cls_t *k = lc_rma_pick_get(win->comm->peers[target], sample - 1);
    if (!k || k->choice != LC_RMA_PICK_UNDECIDED) return;
    if (am) {
        if (!k->am_n || seconds < k->am_best) k->am_best = seconds;
        if (k->am_n < 255) k->am_n++;
    } else {
        if (!k->cma_n || seconds < k->cma_best) k->cma_best = seconds;
        if (k->cma_n < 255) k->cma_n++;
    }
    if (k->am_n >= LC_RMA_PICK_SAMPLES && k->cma_n >= LC_RMA_PICK_SAMPLES) {
        k->choice = k->am_best <= k->cma_best ? LC_RMA_PICK_AM : LC_RMA_PICK_CMA;
        k->uses = 0;
        if (lc_params.show_channels && k->told != k->choice)
            fprintf(stderr,
                    "locus[%d]: one-sided puts/gets of %s to rank %d: %s (active message %.2f us, CMA %.2f us, "
                    "best of %d)\n",
                    lc_log_rank, lc_rma_pick_class_name(sample - 1), target,
                    k->choice == LC_RMA_PICK_AM ? "active messages" : "CMA", k->am_best * 1e6, k->cma_best * 1e6,
                    LC_RMA_PICK_SAMPLES);
        k->told = k->choice;
    }
}

static const char *lc_rma_pick_class_name(int c)
{
    static const char *const names[LC_RMA_PICK_CLASSES] = { "<= 64 B",       "65-256 B",       "257 B-1 KiB",
                                                            "1 KiB+1-4 KiB", "4 KiB+1-16 KiB", "16 KiB+1-64 KiB" };
    return c >= 0 && c < LC_RMA_PICK_CLASSES ? names[c] : "?";
}
