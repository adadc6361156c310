/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_am.c — the active-message path: one message per operation on the
 * window's private communicator, served by the target's progress engine.
 *
 * Origin: for every request it first posts the receive of the answer
 * (the fetched data, or 0 bytes), then sends header + data as one
 * message with tag REQ.  Answers from one target come back in the order
 * of the requests and receives from one source match in posting order,
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
    int rc = lc_pt2pt_am_register(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_REQ, lc_rma_on_req, win);
    if (rc != MPI_SUCCESS) return rc;
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
    lc_list_remove(&win->active_link);
    lc_list_init(&win->active_link);
    while (!lc_list_empty(&win->inq)) { /* nothing should be left: all were answered */
        lc_rma_in_t *in = (lc_rma_in_t *)win->inq.next;
        lc_pt2pt_wait(in->req);
        lc_request_release(in->req);
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

/* The receive of a request's answer, tracked until the request's flush
 * (a result to unpack is the window's until then; dropped on failure).
 * The caller reserved room for it in the target's queue and, with a user
 * request, made the answer's completion hook (lc_rma_user_hook) before
 * sending anything: the hook is on the receive before it is posted (at
 * MPI_THREAD_MULTIPLE another thread's progress pass, outside the
 * section, may complete it as soon as it is posted, and a hook set
 * afterwards could be missed or run twice: lc_request_complete reads it
 * once around the completion flag). */
static int lc_rma_post_answer(lc_rma_win_t *win, void *result, size_t result_bytes, int target, lc_request_t *user,
                              const lc_rma_unpack_t *unpack, void (*hook)(lc_request_t *), void *arg)
{
    lc_request_t *rreq = NULL;
    if (unpack) lc_dt_retain(unpack->t); /* before the hook can run: it releases it */
    int rc =
        lc_pt2pt_irecv_hooked(result, result_bytes, target, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT, hook, arg, &rreq);
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
    return MPI_SUCCESS;
}

int lc_rma_am_send(lc_rma_win_t *win, const lc_rma_pkt_t *pkt, int target, const void *data, size_t data_bytes,
                   const void *data2, size_t data2_bytes, void *result, size_t result_bytes, lc_request_t *user,
                   const lc_rma_unpack_t *unpack)
{
    size_t len = sizeof *pkt + data_bytes + data2_bytes;
    /* Room for the answer's receive and our send, and the user request's
     * hook, before anything is sent or posted: what can fail for want of
     * memory fails here, with nothing sent (a request sent without its
     * answer's receive would leave that answer to the next receive). */
    void (*hook)(lc_request_t *) = NULL;
    void *arg = NULL;
    int rc = lc_rma_outq_reserve(win, target, 2);
    if (rc == MPI_SUCCESS && user) rc = lc_rma_user_hook(user, unpack ? result : NULL, unpack, &hook, &arg);
    if (rc != MPI_SUCCESS) {
        if (unpack) free(result);
        return rc;
    }
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
                              LC_CTX_PT2PT) == MPI_SUCCESS) {
            /* The answer arrives in a progress pass, none runs before the
             * receive is posted: posting it now is as early as needed. */
            return lc_rma_post_answer(win, result, result_bytes, target, user, unpack, hook, arg);
        }
        /* No room now: the general way below (queued behind the ring). */
    }
    char *buf = malloc(len);
    if (!buf) {
        lc_rma_answer_drop(result, unpack, hook, arg);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a one-sided request of %zu bytes", len);
    }
    memcpy(buf, pkt, sizeof *pkt);
    if (data_bytes) memcpy(buf + sizeof *pkt, data, data_bytes);
    if (data2_bytes) memcpy(buf + sizeof *pkt + data_bytes, data2, data2_bytes);
    lc_request_t *sreq = NULL;
    rc = lc_rma_post_answer(win, result, result_bytes, target, user, unpack, hook, arg);
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_isend(buf, len, target, LC_RMA_TAG_REQ, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq);
    if (rc != MPI_SUCCESS) {
        free(buf);
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
    /* Room for the request's two and the data's send first: the data
     * must follow a request that went out. */
    int rc = lc_rma_outq_reserve(win, target, 3);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_rma_am_send(win, &hdr, target, NULL, 0, NULL, 0, NULL, 0, user, NULL);
    if (rc != MPI_SUCCESS) return rc;
    /* Sent after its request on the same FIFO channel: the target, which
     * posts the receive when it takes the request, matches the data of
     * one origin's puts in the order of their requests.  The caller's
     * buffer is read until the send completes (flush waits for it). */
    lc_request_t *sreq = NULL;
    rc = lc_pt2pt_isend(origin, bytes, target, LC_RMA_TAG_DATA, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &sreq);
    if (rc == MPI_SUCCESS) lc_rma_outq_push(win, sreq, NULL, target, NULL);
    return rc;
}

/* ---- target side ------------------------------------------------------ */

bool lc_rma_am_try_lock(lc_rma_win_t *win, int source, int exclusive)
{
    if (win->lock_excl || (exclusive && win->lock_shared)) return false;
    if (exclusive)
        win->lock_excl = source + 1;
    else
        win->lock_shared++;
    return true;
}

static void lc_rma_answer(lc_rma_win_t *win, int source, const void *data, size_t bytes)
{
    if (source == win->comm->rank) { /* our own lock request, granted from the queue */
        win->self_granted = true;
        return;
    }
    /* Straight from `data` (the cell a request arrived in, or a stack
     * buffer) when the ring has room: nothing to allocate or track. */
    if (lc_pt2pt_try_send(NULL, 0, data, bytes, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT) == MPI_SUCCESS)
        return;
    void *copy = NULL;
    if (bytes) {
        copy = malloc(bytes);
        if (!copy) lc_fatal("out of memory answering a one-sided request (%zu bytes)", bytes);
        memcpy(copy, data, bytes);
    }
    lc_request_t *req;
    int rc = lc_rma_outq_reserve(win, -2, 1);
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_isend(copy, bytes, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &req);
    if (rc == MPI_SUCCESS) lc_rma_outq_push(win, req, copy, -2, NULL);
    if (rc != MPI_SUCCESS) lc_fatal("cannot answer a one-sided request from rank %d", source);
}

/* The answer of a GET, straight from window memory: into the ring when it
 * fits and there is room, else a send of its own from there (no copy; for
 * large data the channel's rendezvous, which the progress engine streams
 * through ring cells).  The window is read until the send completes:
 * only an erroneous program (a conflicting put or local store before its
 * next synchronisation) could tell.  Tracked, so MPI_Win_free waits. */
static void lc_rma_answer_at(lc_rma_win_t *win, int source, const char *at, size_t bytes)
{
    if (lc_pt2pt_try_send(NULL, 0, at, bytes, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT) == MPI_SUCCESS) return;
    lc_request_t *req;
    int rc = lc_rma_outq_reserve(win, -2, 1);
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_isend(at, bytes, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &req);
    if (rc == MPI_SUCCESS) lc_rma_outq_push(win, req, NULL, -2, NULL);
    if (rc != MPI_SUCCESS) lc_fatal("cannot answer a one-sided request from rank %d", source);
}

void lc_rma_am_unlock_local(lc_rma_win_t *win, int source)
{
    if (win->lock_excl == source + 1)
        win->lock_excl = 0;
    else if (win->lock_shared > 0)
        win->lock_shared--;
    /* Grant the waiters that fit now, in arrival order. */
    while (!lc_list_empty(&win->waiters)) {
        lc_rma_waiter_t *w = (lc_rma_waiter_t *)win->waiters.next;
        if (!lc_rma_am_try_lock(win, w->source, w->exclusive)) break;
        lc_list_remove(&w->link);
        lc_rma_answer(win, w->source, NULL, 0);
        free(w);
    }
}

/* Dynamic windows: whether [disp, disp + bytes) is all attached memory.
 * The span may run over several attached regions that touch or overlap
 * (two halves of one array attached separately, as MPICH's
 * win_dynamic_rma_flush_get does): from `disp`, step to the end of any
 * region holding the current byte until the span is covered.  Each step
 * moves strictly forward, and a region that helped once cannot again
 * (the position is then past its end), so at most nregions steps. */
static bool lc_rma_dyn_covered(const lc_rma_win_t *win, uint64_t disp, size_t bytes)
{
    if (bytes > UINT64_MAX - disp) return false;
    uint64_t pos = disp, end = disp + bytes;
    for (int step = 0; step <= win->nregions; step++) {
        bool in = false;
        uint64_t reach = pos;
        for (int i = 0; i < win->nregions; i++) {
            const lc_rma_region_t *r = &win->regions[i];
            uint64_t rend = r->size > UINT64_MAX - r->base ? UINT64_MAX : (uint64_t)r->base + r->size;
            /* (pos == rend counts only for an empty access, as before) */
            if (pos < r->base || pos > rend || (pos == rend && bytes)) continue;
            in = true;
            if (rend > reach) reach = rend;
        }
        if (!in) return false; /* byte `pos` is in no region */
        if (reach >= end) return true;
        pos = reach;
    }
    return false;
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
 * bad request is logged and answered with zeros, never applied. */
static void lc_rma_serve_data(lc_rma_win_t *win, int source, const lc_rma_pkt_t *pkt, const char *data, size_t len)
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
        bytes = 0; /* an empty answer: the origin's receive takes it, its buffer unchanged */
    }
    if (!why && pkt->kind == LC_RMA_GET && !pkt->nblocks) {
        lc_rma_answer_at(win, source, at, bytes);
        return;
    }
    char stackbuf[256];
    char *result = NULL;
    if (fetch) {
        result = bytes <= sizeof stackbuf ? stackbuf : malloc(bytes);
        if (!result) lc_fatal("out of memory answering a one-sided request (%zu bytes)", bytes);
        memset(result, 0, bytes);
    }
    if (!why) {
        const char *payload = data + desc;
        if (pkt->nblocks)
            lc_rma_apply_blocks(win, NULL, pkt->disp, pkt->kind, pkt->dt, pkt->op, blk, pkt->nblocks, payload, result);
        else
            lc_rma_apply(pkt->kind, pkt->dt, pkt->op, pkt->count, at, payload, payload + bytes, result);
    }
    lc_rma_answer(win, source, result, fetch ? bytes : 0);
    if (result && result != stackbuf) free(result);
}

/* The receive of a streamed PUT's data, straight into window memory.
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
    if (lc_pt2pt_irecv(at, bytes, source, LC_RMA_TAG_DATA, win->comm, LC_CTX_PT2PT, &req) != MPI_SUCCESS)
        lc_fatal("cannot receive a one-sided put from rank %d", source);
    return req;
}

static void lc_rma_serve(lc_rma_win_t *win, int source, const char *msg, size_t len)
{
    lc_rma_pkt_t pkt;
    if (len < sizeof pkt) {
        lc_log_error("one-sided request from rank %d of %zu bytes is shorter than a header; ignored", source, len);
        return;
    }
    memcpy(&pkt, msg, sizeof pkt);
    if (pkt.kind == LC_RMA_LOCK) {
        int excl = pkt.lock_type == MPI_LOCK_EXCLUSIVE - 234;
        if (lc_rma_am_try_lock(win, source, excl)) {
            lc_rma_answer(win, source, NULL, 0);
        } else {
            lc_rma_waiter_t *w = malloc(sizeof *w);
            if (!w) lc_fatal("out of memory queueing a lock request");
            w->source = source;
            w->exclusive = excl;
            lc_list_push_back(&win->waiters, &w->link);
        }
        return;
    }
    if (pkt.kind == LC_RMA_UNLOCK) {
        lc_rma_am_unlock_local(win, source);
        lc_rma_answer(win, source, NULL, 0);
        return;
    }
    lc_rma_serve_data(win, source, &pkt, msg + sizeof pkt, len - sizeof pkt);
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
        if (!in) lc_fatal("out of memory receiving a one-sided put from rank %d", src);
        *in = (lc_rma_in_t){ .buf = NULL, .len = 0, .source = src, .streaming = true };
        in->req = lc_rma_stream_recv(win, src, payload);
        lc_list_push_back(&win->inq, &in->link);
        win->am_queued++;
        return true;
    }
    lc_rma_serve(win, src, payload, len);
    return true;
}

/* Move every arrived request into the queue: how many. */
static int lc_rma_take_arrived(lc_rma_win_t *win)
{
    int events = 0;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        lc_request_t *msg = NULL;
        lc_pt2pt_iprobe_arrived(MPI_ANY_SOURCE, LC_RMA_TAG_REQ, win->comm, &flag, &st, &msg);
        if (!flag) break;
        size_t len = (size_t)(uint32_t)st.count_lo | ((size_t)((unsigned)st.count_hi_and_cancelled >> 1) << 32);
        lc_rma_in_t *in = malloc(sizeof *in);
        char *buf = malloc(len ? len : 1);
        if (!in || !buf) lc_fatal("out of memory receiving a one-sided request of %zu bytes", len);
        in->buf = buf;
        in->len = len;
        in->source = st.MPI_SOURCE;
        in->streaming = false;
        if (lc_pt2pt_imrecv(buf, len, msg, &in->req) != MPI_SUCCESS)
            lc_fatal("cannot receive a one-sided request from rank %d", st.MPI_SOURCE);
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
    while (!lc_list_empty(&win->inq)) { /* apply in arrival order */
        lc_rma_in_t *in = (lc_rma_in_t *)win->inq.next;
        if (!in->req->complete) break;
        lc_request_release(in->req);
        lc_rma_pkt_t pkt;
        if (!in->streaming && in->len >= sizeof pkt &&
            (memcpy(&pkt, in->buf, sizeof pkt), pkt.flags & LC_RMA_F_STREAM)) {
            /* A streamed put's request: now its data, in place. */
            in->req = lc_rma_stream_recv(win, in->source, &pkt);
            in->streaming = true;
            events++;
            continue;
        }
        lc_list_remove(&in->link);
        if (win->am_queued > 0) win->am_queued--;
        if (in->streaming)
            lc_rma_answer(win, in->source, NULL, 0); /* its data is in */
        else
            lc_rma_serve(win, in->source, in->buf, in->len);
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
