/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_am.c — the active-message path: one message per operation on the
 * window's private communicator, served by the target's progress engine.
 *
 * Origin: for every request it first registers the answer it expects
 * (the fetched data, or 0 bytes; lc_rma_answer.c), then sends header +
 * data as one message with tag REQ.  Answers from one target come back in
 * the order of the requests and are matched per target in that order,
 * so each answer lands in the right buffer; an operation is complete at
 * the target when its answer arrived (flush waits for them).
 *
 * A request that fits one eager packet goes out straight from the
 * caller's buffers when the channel has room (no copy, no send request).
 *
 * Target: a request that arrives whole in one eager packet is applied in
 * the packet handler (lc_rma_on_req, registered with the pt2pt engine for
 * the window's REQ tag) and answered from the cell it arrived in, when
 * nothing arrived before it waits in the queue below.  Otherwise
 * the progress hook takes every arrived REQ message (Mprobe +
 * Imrecv into a buffer of its size) into a FIFO per window and applies
 * the head as soon as its data is in, one at a time: operations apply in
 * arrival order, so accumulates from one origin keep their order
 * (same_op_no_op ordering) and each is atomic with respect to all other
 * one-sided operations (this process applies them alone).  Lock requests
 * that cannot be granted wait in a list, out of the FIFO.
 */
#include "coll/lc_op.h"
#include "datatype/lc_dt.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"

#include <stdlib.h>
#include <string.h>

static lc_list_t lc_rma_active = { &lc_rma_active, &lc_rma_active }; /* windows on this path */
static int lc_rma_in_hook;                                           /* re-entry guard */

static int lc_rma_progress(void);
static bool lc_rma_on_req(void *arg, int src, bool eager, const void *payload, size_t len);
static int lc_rma_take_arrived(lc_rma_win_t *win);

int lc_rma_am_enable(lc_rma_win_t *win)
{
    int rc = lc_rma_answer_enable(win);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_pt2pt_am_register(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_REQ, lc_rma_on_req, win);
    if (rc != MPI_SUCCESS) {
        lc_rma_answer_disable(win);
        return rc;
    }
    lc_list_push_back(&lc_rma_active, &win->active_link);
    lc_progress_hook_set(LC_PROGRESS_HOOK_RMA, lc_rma_progress);
    /* A request that arrived before the handler did is queued: later ones
     * must wait behind it (no progress ran between the two calls). */
    win->am_queued += lc_rma_take_arrived(win);
    return MPI_SUCCESS;
}

void lc_rma_am_disable(lc_rma_win_t *win)
{
    lc_pt2pt_am_unregister(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_REQ);
    lc_rma_answer_disable(win);
    lc_list_remove(&win->active_link);
    lc_list_init(&win->active_link);
    while (!lc_list_empty(&win->inq)) { /* nothing should be left: all were answered */
        lc_rma_in_t *in = (lc_rma_in_t *)win->inq.next;
        if (in->req) {
            lc_pt2pt_wait(in->req);
            lc_request_release(in->req);
        }
        lc_list_remove(&in->link);
        free(in->buf);
        free(in);
    }
    while (!lc_list_empty(&win->waiters)) {
        lc_list_t *w = win->waiters.next;
        lc_list_remove(w);
        free(w);
    }
    if (lc_list_empty(&lc_rma_active)) lc_progress_hook_set(LC_PROGRESS_HOOK_RMA, NULL);
}

/* Give up an answer's result before its receive is posted: the hook's
 * (lc_rma_user_hook) or, without one, the packed buffer. */
static void lc_rma_answer_drop(void *result, const lc_rma_unpack_t *unpack, void (*hook)(lc_request_t *), void *arg)
{
    if (hook)
        lc_rma_user_unhook(arg, hook);
    else if (unpack)
        free(result);
}

/* The answer a request is to get, registered and tracked until the
 * request's flush (a result to unpack is the window's until then; dropped
 * on failure), before the request is sent: at MPI_THREAD_MULTIPLE
 * another thread's progress pass may take the answer as soon as the
 * request is out.  The caller reserved room in the target's queue and,
 * with a user request, made the answer's completion hook
 * (lc_rma_user_hook): the hook is on the request before anything can
 * complete it (lc_request_complete reads it once around the flag). */
static int lc_rma_expect_answer(lc_rma_win_t *win, void *result, size_t result_bytes, int target, lc_request_t *user,
                                const lc_rma_unpack_t *unpack, void (*hook)(lc_request_t *), void *arg,
                                lc_request_t **rreq_p)
{
    lc_request_t *rreq = NULL;
    if (unpack) lc_dt_retain(unpack->t); /* before the hook can run: it releases it */
    int rc = lc_rma_answer_expect(win, target, result, result_bytes, hook, arg, &rreq);
    if (rc != MPI_SUCCESS) {
        if (unpack) lc_dt_release(unpack->t);
        lc_rma_answer_drop(result, unpack, hook, arg);
        return rc;
    }
    /* With a user request the hook unpacks; else the release at the
     * flush (lc_rma_outq.c).  Room was reserved: this cannot fail. */
    bool flush_unpacks = unpack && !user;
    lc_rma_out_t *o = lc_rma_outq_push(win, rreq, flush_unpacks ? result : NULL, target, flush_unpacks ? unpack : NULL);
    if (win->sample_next) { /* timed from here: the request leaves next */
        o->sample = win->sample_next;
        o->t0 = lc_time_now();
    }
    *rreq_p = rreq;
    return MPI_SUCCESS;
}

/* Its request could not be sent: the answer is expected no more (nothing
 * was sent since it was registered, so it is the newest of the target's
 * answers and of its queue). */
static void lc_rma_unexpect_answer(lc_rma_win_t *win, lc_request_t *rreq, void *result, int target,
                                   const lc_rma_unpack_t *unpack, void (*hook)(lc_request_t *), void *arg)
{
    lc_rma_outq_unpush(win, target);
    lc_rma_answer_unexpect(win, target, rreq);
    if (unpack) lc_dt_release(unpack->t);
    lc_rma_answer_drop(result, unpack, hook, arg);
}

int lc_rma_am_send(lc_rma_win_t *win, const lc_rma_pkt_t *pkt, int target, const void *data, size_t data_bytes,
                   const void *data2, size_t data2_bytes, void *result, size_t result_bytes, lc_request_t *user,
                   const lc_rma_unpack_t *unpack)
{
    size_t len = sizeof *pkt + data_bytes + data2_bytes;
    /* Room for the answer and our send, and the user request's hook,
     * before anything is sent or registered: what can fail for want of
     * memory fails here, with nothing sent. */
    void (*hook)(lc_request_t *) = NULL;
    void *arg = NULL;
    int rc = lc_rma_outq_reserve(win, target, 2);
    if (rc == MPI_SUCCESS && user) rc = lc_rma_user_hook(user, unpack ? result : NULL, unpack, &hook, &arg);
    if (rc != MPI_SUCCESS) {
        if (unpack) free(result);
        return rc;
    }
    lc_request_t *rreq = NULL;
    rc = lc_rma_expect_answer(win, result, result_bytes, target, user, unpack, hook, arg, &rreq);
    if (rc != MPI_SUCCESS) return rc;
    if (len <= LC_RMA_AM_INLINE) {
        /* One eager packet straight from our buffers when the ring has
         * room (a CAS's two values joined on the stack). */
        char tmp[LC_RMA_AM_INLINE];
        const void *d = data;
        if (data2_bytes) { /* CAS: new value, then comparand */
            memcpy(tmp, data, data_bytes);
            memcpy(tmp + data_bytes, data2, data2_bytes);
            d = tmp;
        }
        if (lc_pt2pt_try_send(pkt, sizeof *pkt, d, data_bytes + data2_bytes, target, LC_RMA_TAG_REQ, win->comm,
                              LC_CTX_PT2PT) == MPI_SUCCESS)
            return MPI_SUCCESS;
        /* No room now: the general way below (queued behind the ring). */
    }
    char *buf = malloc(len);
    lc_request_t *sreq = NULL;
    if (!buf) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a one-sided request of %zu bytes", len);
    } else {
        memcpy(buf, pkt, sizeof *pkt);
        if (data_bytes) memcpy(buf + sizeof *pkt, data, data_bytes);
        if (data2_bytes) memcpy(buf + sizeof *pkt + data_bytes, data2, data2_bytes);
        rc = lc_pt2pt_isend(buf, len, target, LC_RMA_TAG_REQ, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq);
    }
    if (rc != MPI_SUCCESS) {
        free(buf);
        lc_rma_unexpect_answer(win, rreq, result, target, unpack, hook, arg);
        return rc;
    }
    lc_rma_outq_push(win, sreq, buf, target, NULL);
    return MPI_SUCCESS;
}

int lc_rma_am_put_stream(lc_rma_win_t *win, const lc_rma_pkt_t *pkt, int target, const void *origin, size_t bytes,
                         lc_request_t *user)
{
    lc_rma_pkt_t hdr = *pkt;
    hdr.flags |= LC_RMA_F_STREAM;
    /* Room for the request's two and the data's send, and the data's
     * send request, first: the data must follow a request that went out. */
    int rc = lc_rma_outq_reserve(win, target, 3);
    if (rc != MPI_SUCCESS) return rc;
    lc_request_t *sreq =
        lc_pt2pt_send_request(origin, bytes, target, LC_RMA_TAG_DATA, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD);
    if (!sreq) return lc_error(MPI_ERR_NO_MEM, "cannot allocate the send of a one-sided put's data");
    rc = lc_rma_am_send(win, &hdr, target, NULL, 0, NULL, 0, NULL, 0, user, NULL);
    if (rc != MPI_SUCCESS) {
        lc_request_release(sreq);
        return rc;
    }
    /* Sent after its request on the same FIFO channel: the target, which
     * posts the receive when it takes the request, matches the data of
     * one origin's puts in the order of their requests.  The caller's
     * buffer is read until the send completes (flush waits for it). */
    lc_pt2pt_send_start(sreq);
    lc_rma_outq_push(win, sreq, NULL, target, NULL);
    return MPI_SUCCESS;
}

/* ---- target side ------------------------------------------------------ */

bool lc_rma_am_try_lock(lc_rma_win_t *win, int source, int exclusive)
{
    if (win->lock_excl || (exclusive && win->lock_shared)) return false;
    if (exclusive)
        win->lock_excl = source + 1;
    else
        win->lock_shared++;
    win->holds[source] = exclusive ? 2 : 1;
    return true;
}

/* Grant the waiters that fit now, in arrival order; a grant whose
 * answer cannot be prepared (no memory) waits, and the next pass tries
 * again (lc_rma_serve_win). */
static void lc_rma_grant_waiters(lc_rma_win_t *win)
{
    while (!lc_list_empty(&win->waiters)) {
        lc_rma_waiter_t *w = (lc_rma_waiter_t *)win->waiters.next;
        if (win->lock_excl || (w->exclusive && win->lock_shared)) break;
        if (lc_rma_answer_prepare(win, w->source, 0, NULL) != MPI_SUCCESS) break;
        lc_rma_am_try_lock(win, w->source, w->exclusive);
        lc_list_remove(&w->link);
        lc_rma_answer_send(win, w->source, NULL, 0);
        free(w);
    }
}

static void lc_rma_unlock_state(lc_rma_win_t *win, int source)
{
    if (win->holds[source] == 2 && win->lock_excl == source + 1)
        win->lock_excl = 0;
    else if (win->holds[source] == 1 && win->lock_shared > 0)
        win->lock_shared--;
    win->holds[source] = 0;
}

void lc_rma_am_unlock_local(lc_rma_win_t *win, int source)
{
    lc_rma_unlock_state(win, source);
    lc_rma_grant_waiters(win);
}

/* Dynamic windows: whether [disp, disp + bytes) is all attached memory. */
static bool lc_rma_dyn_covered(const lc_rma_win_t *win, uint64_t disp, size_t bytes)
{
    return lc_rma_regions_cover(win->regions, win->nregions, disp, bytes);
}

char *lc_rma_am_addr(lc_rma_win_t *win, uint64_t disp, size_t bytes)
{
    if (win->flavor == LC_RMA_DYNAMIC) return lc_rma_dyn_covered(win, disp, bytes) ? (char *)(uintptr_t)disp : NULL;
    if (disp > win->size || bytes > win->size - disp) return NULL;
    return (char *)win->base + disp;
}

/* Apply one data request of `len` bytes.  Nothing in it is trusted: the
 * lengths it claims must fit the message, the type must be predefined,
 * and every byte it touches must lie in our window memory (issue 12); a
 * bad request is logged and answered with zeros, never applied.  What
 * the answer needs is taken before anything is applied: without it the
 * request is answered FAIL (not applied), or LC_AGAIN when not even that
 * goes out now (nothing done: serve it again later). */
static int lc_rma_serve_data(lc_rma_win_t *win, int source, const lc_rma_pkt_t *pkt, const char *data, size_t len)
{
    bool fetch = pkt->kind == LC_RMA_GET || pkt->kind == LC_RMA_GACC || pkt->kind == LC_RMA_CAS;
    bool sends = pkt->kind != LC_RMA_GET && !(pkt->kind == LC_RMA_GACC && pkt->op == MPI_NO_OP);
    /* Elements of a derived target type (blocks) travel packed: a padded
     * pair without its padding. */
    size_t esz = !lc_dtype_valid(pkt->dt) ? 0 : pkt->nblocks ? lc_rma_packed_size(pkt->dt) : lc_dtype_size(pkt->dt);
    size_t bytes = 0, desc = 0;
    const char *why = NULL;
    if (esz == 0 || (pkt->kind != LC_RMA_PUT && pkt->kind != LC_RMA_GET && pkt->op != MPI_REPLACE &&
                     pkt->op != MPI_NO_OP && !lc_op_is_predefined(pkt->op)))
        why = "its datatype or operation is not predefined";
    else if (pkt->kind < LC_RMA_PUT || pkt->kind > LC_RMA_CAS || (pkt->kind == LC_RMA_CAS && pkt->nblocks))
        why = "it is not a data operation";
    else if (__builtin_mul_overflow((size_t)pkt->count, esz, &bytes) ||
             __builtin_mul_overflow((size_t)pkt->nblocks, sizeof(lc_rma_blk_t), &desc) || desc > len ||
             (sends && bytes > (len - desc) / (pkt->kind == LC_RMA_CAS ? 2 : 1)))
        why = "its lengths do not match the message"; /* (a GET's bytes are bounded by the window below) */
    char *at = NULL;
    const lc_rma_blk_t *blk = (const lc_rma_blk_t *)data; /* 8-aligned: malloc'd buffer + 32-byte header */
    if (!why && !pkt->nblocks && !(at = lc_rma_am_addr(win, pkt->disp, bytes)))
        why = "its bytes are outside this rank's window memory";
    if (!why && pkt->nblocks &&
        !lc_rma_blocks_valid(win, pkt->disp, blk, pkt->nblocks, lc_rma_block_unit(pkt->dt), bytes))
        why = "its datatype's blocks do not lie in this rank's window memory";
    if (why) {
        lc_log_error("one-sided request from rank %d (%llu elements at %#llx): ignored, %s", source,
                     (unsigned long long)pkt->count, (unsigned long long)pkt->disp, why);
        bytes = 0; /* an empty answer: the origin's answer takes it, its buffer unchanged */
    }
    /* A GET's answer comes straight from window memory: no result buffer. */
    bool direct_get = !why && pkt->kind == LC_RMA_GET && !pkt->nblocks;
    char *result = NULL;
    int rc = lc_rma_answer_prepare(win, source, fetch && !direct_get ? bytes : 0, &result);
    if (rc != MPI_SUCCESS) return lc_rma_answer_fail(win, source, MPI_ERR_NO_MEM);
    if (direct_get) {
        lc_rma_answer_send(win, source, at, bytes);
        return MPI_SUCCESS;
    }
    if (fetch && bytes) memset(result, 0, bytes);
    if (!why) {
        const char *payload = data + desc;
        /* A window whose origins apply accumulates by CMA: ours hold our
         * line too, so the two never interleave (lc_rma_cmaacc.c). */
        bool lock = win->cma_acc && pkt->kind != LC_RMA_PUT && pkt->kind != LC_RMA_GET;
        int rc2 = MPI_SUCCESS;
        if (lock) lc_rma_cmaacc_lock(win, win->comm->rank);
        if (pkt->nblocks)
            rc2 = lc_rma_apply_blocks(win, NULL, pkt->disp, pkt->kind, pkt->dt, pkt->op, blk, pkt->nblocks, payload,
                                      result);
        else
            lc_rma_apply(pkt->kind, pkt->dt, pkt->op, pkt->count, at, payload, payload + bytes, result);
        if (lock) lc_rma_cmaacc_unlock(win, win->comm->rank);
        /* (no memory to gather pairs: nothing applied, answered FAIL) */
        if (rc2 != MPI_SUCCESS) return lc_rma_answer_fail(win, source, MPI_ERR_NO_MEM);
    }
    lc_rma_answer_send(win, source, result, fetch ? bytes : 0);
    return MPI_SUCCESS;
}

/* The receive of a streamed PUT's data, straight into window memory, or
 * NULL when no request could be had (nothing done: tried again later).
 * The header is checked as in lc_rma_serve_data; a bad one is logged and
 * its data received into nothing (every fragment consumed, the origin's
 * send completes), then answered as any other. */
static lc_request_t *lc_rma_stream_recv(lc_rma_win_t *win, int source, const lc_rma_pkt_t *pkt)
{
    size_t esz = lc_dtype_valid(pkt->dt) ? lc_dtype_size(pkt->dt) : 0, bytes = 0;
    char *at = NULL;
    const char *why = NULL;
    if (pkt->kind != LC_RMA_PUT || pkt->nblocks || esz == 0)
        why = "only a contiguous put of a predefined type can stream its data";
    else if (__builtin_mul_overflow((size_t)pkt->count, esz, &bytes))
        why = "its length overflows";
    else if (!(at = lc_rma_am_addr(win, pkt->disp, bytes)))
        why = "its bytes are outside this rank's window memory";
    if (why) {
        lc_log_error("one-sided request from rank %d (%llu elements at %#llx): ignored, %s", source,
                     (unsigned long long)pkt->count, (unsigned long long)pkt->disp, why);
        at = NULL;
        bytes = 0;
    }
    lc_request_t *req = NULL;
    if (lc_pt2pt_irecv(at, bytes, source, LC_RMA_TAG_DATA, win->comm, LC_CTX_PT2PT, &req) != MPI_SUCCESS) return NULL;
    return req;
}

/* Serve one whole request: MPI_SUCCESS when it was served (applied and
 * answered, or answered FAIL), LC_AGAIN when it could not be yet
 * (nothing done). */
static int lc_rma_serve(lc_rma_win_t *win, int source, const char *msg, size_t len)
{
    lc_rma_pkt_t pkt;
    if (len < sizeof pkt) {
        lc_log_error("one-sided request from rank %d of %zu bytes is shorter than a header; ignored", source, len);
        return MPI_SUCCESS;
    }
    memcpy(&pkt, msg, sizeof pkt);
    if (pkt.kind == LC_RMA_LOCK) {
        int excl = pkt.lock_type == MPI_LOCK_EXCLUSIVE - 234;
        if (lc_rma_answer_prepare(win, source, 0, NULL) != MPI_SUCCESS)
            return lc_rma_answer_fail(win, source, MPI_ERR_NO_MEM); /* not granted, not queued */
        if (lc_rma_am_try_lock(win, source, excl)) {
            lc_rma_answer_send(win, source, NULL, 0);
        } else {
            lc_rma_waiter_t *w = malloc(sizeof *w);
            if (!w) return lc_rma_answer_fail(win, source, MPI_ERR_NO_MEM);
            w->source = source;
            w->exclusive = excl;
            lc_list_push_back(&win->waiters, &w->link);
        }
        return MPI_SUCCESS;
    }
    if (pkt.kind == LC_RMA_UNLOCK && !win->holds[source]) {
        /* The origin checks its epochs, so only a peer's bogus packet or
         * the undo of a lock_all that failed half-way (lc_rma_lock_all)
         * comes here: the holders keep what they hold. */
        if (!(pkt.flags & LC_RMA_F_UNDO))
            lc_log_warn("one-sided unlock from rank %d, which holds no lock on this rank: not applied", source);
        return lc_rma_answer_fail(win, source, MPI_ERR_RMA_SYNC);
    }
    if (pkt.kind == LC_RMA_UNLOCK) {
        /* Never failed (the origin's epoch ends whatever it hears, and it
         * may wait for this answer before it lets us have memory again):
         * without room for a queued answer, one straight into the ring;
         * only when that is full too it waits (the lock held meanwhile). */
        if (lc_rma_answer_prepare(win, source, 0, NULL) == MPI_SUCCESS) {
            lc_rma_unlock_state(win, source);
            lc_rma_answer_send(win, source, NULL, 0); /* (the room prepared is this answer's) */
        } else if (lc_pt2pt_try_send(NULL, 0, NULL, 0, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT) ==
                   MPI_SUCCESS) {
            lc_rma_unlock_state(win, source);
        } else {
            return LC_AGAIN;
        }
        lc_rma_grant_waiters(win);
        return MPI_SUCCESS;
    }
    return lc_rma_serve_data(win, source, &pkt, msg + sizeof pkt, len - sizeof pkt);
}

/* A request as it arrives (inside a progress pass): served here when it
 * came whole and nothing waits before it; else counted and left to be
 * matched, probed and queued (lc_rma_serve_win). */
static bool lc_rma_on_req(void *arg, int src, bool eager, const void *payload, size_t len)
{
    lc_rma_win_t *win = arg;
    /* The data is used in place, as its elements' type: 8-aligned in shm
     * cells (64-byte cell, 32-byte headers); anything else is copied. */
    _Alignas(16) char tmp[LC_RMA_AM_INLINE];
    if (!eager || win->am_queued || (((uintptr_t)payload & 15) && len > sizeof tmp)) {
        win->am_queued++;
        return false;
    }
    if ((uintptr_t)payload & 15) {
        memcpy(tmp, payload, len);
        payload = tmp;
    }
    if (len >= sizeof(lc_rma_pkt_t) && (((const lc_rma_pkt_t *)payload)->flags & LC_RMA_F_STREAM)) {
        /* Its data follows: received into the window from here (posting a
         * receive is allowed in the handler: it only links it), answered
         * when in.  Everything after it waits behind it (am_queued), so
         * answers keep the order of requests. */
        lc_rma_in_t *in = malloc(sizeof *in);
        lc_request_t *req = in ? lc_rma_stream_recv(win, src, payload) : NULL;
        if (!req) { /* no memory now: queued as a message, served later */
            free(in);
            win->am_queued++;
            return false;
        }
        *in = (lc_rma_in_t){ .req = req, .buf = NULL, .len = 0, .source = src, .streaming = true };
        lc_list_push_back(&win->inq, &in->link);
        win->am_queued++;
        return true;
    }
    if (lc_rma_serve(win, src, payload, len) == LC_AGAIN) { /* queued as a message, served later */
        win->am_queued++;
        return false;
    }
    return true;
}

/* Move every arrived request into the queue: how many.  One that cannot
 * have its memory now (its buffer, its receive request, the message's
 * MPI_Message) stays where it is, and every later one behind it, until a
 * later pass: everything is taken before the message is dequeued, so no
 * failure leaves a message half taken (before, a receive request that
 * could not be had ended the job). */
static int lc_rma_take_arrived(lc_rma_win_t *win)
{
    int events = 0;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        lc_pt2pt_iprobe_arrived(MPI_ANY_SOURCE, LC_RMA_TAG_REQ, win->comm, &flag, &st, NULL);
        if (!flag) break;
        size_t len = (size_t)(uint32_t)st.count_lo | ((size_t)((unsigned)st.count_hi_and_cancelled >> 1) << 32);
        lc_rma_in_t *in = malloc(sizeof *in);
        char *buf = malloc(len ? len : 1);
        lc_request_t *req = in && buf ? lc_pt2pt_recv_request(buf, len, NULL, NULL) : NULL;
        /* The same message: the first of its kind, and only this thread
         * (the section's holder) takes them. */
        lc_request_t *msg = NULL;
        if (req) lc_pt2pt_iprobe_arrived(MPI_ANY_SOURCE, LC_RMA_TAG_REQ, win->comm, &flag, &st, &msg);
        if (!msg) {
            if (req) lc_request_release(req);
            free(in);
            free(buf);
            break;
        }
        *in = (lc_rma_in_t){ .req = req, .buf = buf, .len = len, .source = st.MPI_SOURCE, .streaming = false };
        lc_pt2pt_imrecv_post(req, msg);
        lc_list_push_back(&win->inq, &in->link);
        events++;
    }
    return events;
}

static int lc_rma_serve_win(lc_rma_win_t *win)
{
    int events = lc_rma_take_arrived(win);
    /* A target that never flushes still frees the answers it sent (an
     * error is kept for the next flush).  Request forms (MPI_Rput ...)
     * need nothing here: their answers' hooks complete them. */
    lc_rma_outq_pass(win);
    if (lc_unlikely(!lc_list_empty(&win->waiters))) lc_rma_grant_waiters(win); /* one that lacked memory */
    while (!lc_list_empty(&win->inq)) { /* apply in arrival order */
        lc_rma_in_t *in = (lc_rma_in_t *)win->inq.next;
        if (in->req) {
            if (!in->req->complete) break;
            lc_request_release(in->req);
            in->req = NULL;
        }
        lc_rma_pkt_t pkt;
        if (!in->streaming && in->len >= sizeof pkt &&
            (memcpy(&pkt, in->buf, sizeof pkt), pkt.flags & LC_RMA_F_STREAM)) {
            /* A streamed put's request: now its data, in place. */
            if (!(in->req = lc_rma_stream_recv(win, in->source, &pkt))) break; /* no memory: next pass */
            in->streaming = true;
            events++;
            continue;
        }
        /* Served, or (LC_AGAIN, no memory) left at the head for the next pass. */
        int rc;
        if (in->streaming) { /* its data is in */
            rc = lc_rma_answer_prepare(win, in->source, 0, NULL);
            if (rc == MPI_SUCCESS) lc_rma_answer_send(win, in->source, NULL, 0);
        } else {
            rc = lc_rma_serve(win, in->source, in->buf, in->len);
        }
        if (rc != MPI_SUCCESS) break;
        lc_list_remove(&in->link);
        if (win->am_queued > 0) win->am_queued--;
        free(in->buf);
        free(in);
        events++;
    }
    return events;
}

static int lc_rma_progress(void)
{
    if (lc_rma_in_hook) return 0;
    lc_rma_in_hook = 1;
    int events = 0;
    lc_list_for_each (it, &lc_rma_active)
        events += lc_rma_serve_win((lc_rma_win_t *)((char *)it - offsetof(lc_rma_win_t, active_link)));
    lc_rma_in_hook = 0;
    return events;
}
