/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_outq.c — the requests of ours in flight on the active-message
 * path (answers we expect, sends whose buffer we free), one FIFO per
 * target, and the flush that waits for them.
 *
 * One FIFO per target (and one for the answers this rank sends as a
 * target) so that MPI_Win_flush(target) costs O(that target's
 * operations): with one queue for the window, a flush of target A walked
 * every request in flight, and with 10^4 accumulates waiting at a target
 * B that is not in MPI each flush of A visited all 10^4.
 *
 * Room is reserved before anything is posted (lc_rma_outq_reserve): the
 * push after a receive or send is posted cannot fail, so no posted
 * request is ever left untracked (its result buffer leaked, its request
 * never released, flush not waiting for it).
 *
 * Answers from one target come back mostly in request order (FIFO
 * channels), so completed requests are released from each queue's front
 * (lc_rma_outq_reap_front) without a scan.
 */
#include "datatype/lc_dt.h"
#include "rma/lc_rma_impl.h"

#include <stdlib.h>
#include <string.h>

/* The queue of `target` (>= 0), or of our own answers (LC_RMA_ANSWERS). */
static lc_rma_outq_t *lc_rma_outq_of(lc_rma_win_t *win, int target)
{
    return &win->outq[target >= 0 ? target : win->comm->size];
}

int lc_rma_outq_init(lc_rma_win_t *win)
{
    int n = win->comm->size + 1;
    win->outq = calloc((size_t)n, sizeof *win->outq);
    win->busy = malloc((size_t)n * sizeof *win->busy);
    if (!win->outq || !win->busy) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window of %d ranks", n - 1);
    for (int i = 0; i < n; i++) win->outq[i].busy_at = -1;
    return MPI_SUCCESS;
}

static void lc_rma_release(lc_rma_win_t *win, lc_rma_out_t *o, int *err_p);
static void lc_rma_outq_settle(lc_rma_win_t *win, lc_rma_outq_t *q);
static void lc_rma_outq_reap_front(lc_rma_win_t *win, lc_rma_outq_t *q, int *err_p);

/* Every request still tracked is released: MPI_Win_free drained them all
 * (lc_rma_win_free), so this finds only completed ones, which the passes
 * had not reaped (a pass reaps from 64 in flight); answers expected and
 * never come (a window freed with operations in flight, erroneous) are
 * completed with an error first, and a send still in flight is waited
 * for, as its buffer is freed here.  Before, the arrays were freed with
 * the requests in them: their pool slots, result and answer buffers
 * leaked, and a late completion wrote into a request no one released. */
void lc_rma_outq_fini(lc_rma_win_t *win)
{
    if (win->outq) {
        lc_rma_answer_drop_all(win);
        int err = MPI_SUCCESS;
        for (int i = 0; i <= win->comm->size; i++) {
            lc_rma_outq_t *q = &win->outq[i];
            for (int j = q->head; j < q->n; j++) {
                while (!q->out[j].req->complete) lc_rma_idle();
                lc_rma_release(win, &q->out[j], &err);
            }
            free(q->out);
            free(q->ans);
        }
    }
    free(win->outq);
    free(win->busy);
    win->outq = NULL;
    win->busy = NULL;
}

int lc_rma_outq_tracked(const lc_rma_win_t *win)
{
    return win->ntracked;
}

/* Room for k more answers expected from a target: the ring grows into a
 * new array, its entries copied oldest first. */
static int lc_rma_ans_reserve(lc_rma_outq_t *q, int k)
{
    if (q->acap - q->an >= k) return MPI_SUCCESS;
    int cap = q->acap ? q->acap : 8;
    while (cap - q->an < k) cap *= 2;
    lc_request_t **a = malloc((size_t)cap * sizeof *a);
    if (!a) return lc_error(MPI_ERR_NO_MEM, "out of memory tracking one-sided operations");
    for (int i = 0; i < q->an; i++) a[i] = q->ans[(q->ahead + i) % q->acap];
    free(q->ans);
    q->ans = a;
    q->ahead = 0;
    q->acap = cap;
    return MPI_SUCCESS;
}

int lc_rma_outq_reserve(lc_rma_win_t *win, int target, int k)
{
    lc_rma_outq_t *q = lc_rma_outq_of(win, target);
    if (target >= 0) {
        int rc = lc_rma_ans_reserve(q, k);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (q->cap - q->n >= k) return MPI_SUCCESS;
    /* Completed requests at the front give their room first (a target
     * that never flushes reaps only from 64 in flight, lc_rma_outq_pass;
     * an error is kept for the next flush). */
    lc_rma_outq_reap_front(win, q, &win->pass_err);
    if (q->cap - q->n >= k) return MPI_SUCCESS;
    if (q->head > 0) { /* room at the front first */
        memmove(q->out, q->out + q->head, (size_t)(q->n - q->head) * sizeof *q->out);
        q->n -= q->head;
        q->head = 0;
        if (q->cap - q->n >= k) return MPI_SUCCESS;
    }
    int cap = q->cap ? q->cap : 8;
    while (cap - q->n < k) cap *= 2;
    lc_rma_out_t *o = realloc(q->out, (size_t)cap * sizeof *o);
    if (!o) return lc_error(MPI_ERR_NO_MEM, "out of memory tracking one-sided operations");
    q->out = o;
    q->cap = cap;
    return MPI_SUCCESS;
}

lc_rma_out_t *lc_rma_outq_push(lc_rma_win_t *win, lc_request_t *req, void *buf, int target,
                               const lc_rma_unpack_t *unpack)
{
    lc_rma_outq_t *q = lc_rma_outq_of(win, target);
    if (q->n == q->cap) lc_fatal("one-sided request tracked without room reserved (target %d)", target);
    if (q->busy_at < 0) { /* becomes non-empty */
        q->busy_at = win->nbusy;
        win->busy[win->nbusy++] = (int)(q - win->outq);
    }
    lc_rma_out_t *o = &q->out[q->n++];
    *o = (lc_rma_out_t){ req, buf, target, 0, 0.0, unpack ? *unpack : (lc_rma_unpack_t){ 0 } };
    win->ntracked++;
    return o;
}

void lc_rma_outq_unpush(lc_rma_win_t *win, int target)
{
    lc_rma_outq_t *q = lc_rma_outq_of(win, target);
    q->n--;
    win->ntracked--;
    lc_rma_outq_settle(win, q);
}

/* Release one completed request (answers of ours included). */
static void lc_rma_release(lc_rma_win_t *win, lc_rma_out_t *o, int *err_p)
{
    if (o->req->st_error && !*err_p) *err_p = o->req->st_error;
    if (o->sample) lc_rma_pick_sample(win, o->target, o->sample, true, lc_time_now() - o->t0);
    lc_request_release(o->req);
    if (o->unpack.t) { /* a derived result type: the answer came packed */
        lc_dt_t *t = o->unpack.t;
        lc_dt_unpack(t, o->unpack.count, o->unpack.buf, 0, o->buf, (size_t)(o->unpack.count * t->size));
        lc_dt_release(t);
    }
    free(o->buf);
    win->ntracked--;
}

/* An emptied queue leaves the busy list (swapped with the last). */
static void lc_rma_outq_settle(lc_rma_win_t *win, lc_rma_outq_t *q)
{
    if (q->head != q->n) return;
    q->head = q->n = 0;
    if (q->busy_at < 0) return;
    int last = win->busy[--win->nbusy];
    win->busy[q->busy_at] = last;
    win->outq[last].busy_at = q->busy_at;
    q->busy_at = -1;
}

/* Release the completed requests at a queue's front: O(1) per pass while
 * its front is in flight (a scan of every request per progress pass made
 * 100,000 puts before a flush quadratic: 96 % of the origin's time). */
static void lc_rma_outq_reap_front(lc_rma_win_t *win, lc_rma_outq_t *q, int *err_p)
{
    while (q->head < q->n && q->out[q->head].req->complete) lc_rma_release(win, &q->out[q->head++], err_p);
    lc_rma_outq_settle(win, q);
}

/* Release every completed request of a queue, wherever it is. */
static void lc_rma_outq_reap(lc_rma_win_t *win, lc_rma_outq_t *q, int *err_p)
{
    int j = q->head;
    for (int i = q->head; i < q->n; i++) {
        if (q->out[i].req->complete)
            lc_rma_release(win, &q->out[i], err_p);
        else
            q->out[j++] = q->out[i];
    }
    q->n = j;
    lc_rma_outq_settle(win, q);
}

/* Whether a request of the queue is still in flight. */
static bool lc_rma_outq_in_flight(const lc_rma_outq_t *q)
{
    for (int i = q->head; i < q->n; i++)
        if (!q->out[i].req->complete) return true;
    return false;
}

void lc_rma_outq_pass(lc_rma_win_t *win)
{
    /* A target that never flushes still frees the answers it sent, an
     * origin the requests that completed (an error is kept for the next
     * flush).  O(1) amortized per busy queue. */
    if (win->ntracked < 64) return;
    for (int i = win->nbusy - 1; i >= 0; i--) /* from the end: settling moves the last into i */
        lc_rma_outq_reap_front(win, &win->outq[win->busy[i]], &win->pass_err);
}

/* Wait for one queue.  The wait releases from the front (the in-flight
 * test stops at the first request still out); one whole reap at the end
 * releases what completed behind a slower request and reports its
 * error.  The progress pass in lc_rma_idle may serve requests and track
 * new answers of ours (reallocating a queue): nothing here holds a
 * pointer into a queue's array across it. */
static void lc_rma_outq_wait(lc_rma_win_t *win, int slot, int *err_p)
{
    for (;;) {
        lc_rma_outq_reap_front(win, &win->outq[slot], err_p);
        if (!lc_rma_outq_in_flight(&win->outq[slot])) break;
        lc_rma_idle();
    }
    lc_rma_outq_reap(win, &win->outq[slot], err_p);
}

int lc_rma_am_flush(lc_rma_win_t *win, int target)
{
    int err = MPI_SUCCESS;
    /* One progress pass even when nothing of ours is in flight (own
     * memory, CMA, a repeated flush): the flushing rank may be the
     * passive target others wait for, polling its own memory with
     * one-sided calls and flush and calling nothing else — MPICH's
     * linked_list_bench_lock_all chases the list's tail on rank 0 itself
     * while rank 1's append to that element waits in rank 0's queue.
     * Without this pass neither ever moves. */
    lc_progress();
    if (target >= 0) {
        lc_rma_outq_wait(win, target, &err);
    } else {
        /* Every busy queue, our answers' included (MPI_Win_free and fence
         * wait for those too).  A wait empties its queue (settling moves
         * the last busy one into its place) and its passes may fill new
         * ones: scan again after any wait, until a scan finds nothing in
         * flight (a scan reaps as it goes, from the end, so what settling
         * moves down was seen already). */
        for (bool again = true; again;) {
            again = false;
            for (int i = win->nbusy - 1; i >= 0; i--) {
                if (i >= win->nbusy) continue;
                int slot = win->busy[i];
                if (lc_rma_outq_in_flight(&win->outq[slot])) {
                    lc_rma_outq_wait(win, slot, &err);
                    again = true;
                } else {
                    lc_rma_outq_reap(win, &win->outq[slot], &err);
                }
            }
        }
    }
    /* A failure a progress pass released before this flush came. */
    if (win->pass_err) {
        if (err == MPI_SUCCESS) err = win->pass_err;
        win->pass_err = MPI_SUCCESS;
    }
    return err;
}
