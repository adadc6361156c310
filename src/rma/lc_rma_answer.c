/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_answer.c — the answers of the active-message path, both sides.
 *
 * Origin: an answer (tag RESP: the fetched data or nothing; tag FAIL: the
 * target did not apply the request) is matched per target, not in pt2pt
 * matching.  A target answers its requests in the order they arrived,
 * which for one origin is the order they were sent (FIFO channels; a
 * request the target cannot serve yet holds back every later one), so
 * the next answer from target t is for the oldest answer still expected
 * from t: a ring per target (lc_rma_outq_t.ans), and the packet handler
 * below takes the answer there in O(1).  Before, every answer's receive
 * was posted in the window communicator's one list, and an answer from A
 * was matched past every receive posted for B's answers (accumulate +
 * flush(A) 61-129 us with 10^4 in flight at B).  An answer that came as a
 * rendezvous (a large GET) gets its receive posted in matching at its
 * arrival, where it is the only one of its kind and matches at once.
 * The expected answer is registered before its request is sent: at
 * MPI_THREAD_MULTIPLE another thread's progress could otherwise take the
 * answer first.  An answer nobody expects (a peer's bogus packet) is
 * logged and dropped, never matched to anything.
 *
 * Target: what an answer needs is taken before the request is applied
 * (lc_rma_answer_prepare): room in the queue of answers we send and the
 * buffer its result is made in.  When that fails the request is not
 * applied and the origin gets a FAIL answer (MPI_ERR_NO_MEM reaches the
 * flush or request that waits for it), or, when not even that goes out
 * now, the request is served again later; the window stays usable.
 */
#include "rma/lc_rma_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- origin --------------------------------------------------------------- */

static bool lc_rma_on_answer(void *arg, int src, bool eager, const void *payload, size_t len);
static bool lc_rma_on_fail(void *arg, int src, bool eager, const void *payload, size_t len);

int lc_rma_answer_enable(lc_rma_win_t *win)
{
    int rc = lc_pt2pt_am_register(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_RESP, lc_rma_on_answer, win);
    if (rc == MPI_SUCCESS) {
        rc = lc_pt2pt_am_register(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_FAIL, lc_rma_on_fail, win);
        if (rc != MPI_SUCCESS) lc_pt2pt_am_unregister(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_RESP);
    }
    return rc;
}

void lc_rma_answer_disable(lc_rma_win_t *win)
{
    lc_pt2pt_am_unregister(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_RESP);
    lc_pt2pt_am_unregister(win->comm, LC_CTX_PT2PT, LC_RMA_TAG_FAIL);
}

int lc_rma_answer_expect(lc_rma_win_t *win, int target, void *result, size_t bytes, void (*hook)(lc_request_t *),
                         void *arg, lc_request_t **req_p)
{
    lc_request_t *req = lc_pt2pt_recv_request(result, bytes, hook, arg);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "cannot allocate the request of a one-sided answer");
    /* What a posted receive would hold (lc_pt2pt_recv_start posts it
     * with these if the answer comes as a rendezvous). */
    req->rank = target;
    req->tag = LC_RMA_TAG_RESP;
    req->comm = win->comm;
    req->ctx_kind = LC_CTX_PT2PT;
    lc_rma_outq_t *q = &win->outq[target];
    /* Room was reserved (lc_rma_outq_reserve) */
    q->ans[(q->ahead + q->an) % q->acap] = req;
    q->an++;
    *req_p = req;
    return MPI_SUCCESS;
}

void lc_rma_answer_unexpect(lc_rma_win_t *win, int target, lc_request_t *req)
{
    lc_rma_outq_t *q = &win->outq[target];
    /* Nothing was sent since it was registered: it is the newest. */
    if (q->an == 0 || q->ans[(q->ahead + q->an - 1) % q->acap] != req)
        lc_fatal("one-sided answer taken back is not the newest of rank %d", target);
    q->an--;
    req->on_complete = NULL; /* never completed: its hook's owner undoes it */
    lc_request_release(req);
}

/* The oldest answer expected from `src` (the AM dispatch checked that src
 * is the packet's channel's rank in the communicator), or NULL. */
static lc_request_t *lc_rma_answer_take(lc_rma_win_t *win, int src, const char *what)
{
    lc_rma_outq_t *q = (unsigned)src < (unsigned)win->comm->size ? &win->outq[src] : NULL;
    if (!q || q->an == 0) {
        lc_log_error("a one-sided %s from rank %d, which has no request of ours to answer: ignored", what, src);
        return NULL;
    }
    lc_request_t *req = q->ans[q->ahead];
    q->ahead = (q->ahead + 1) % q->acap;
    q->an--;
    return req;
}

static void lc_rma_answer_complete(lc_request_t *req, int src, size_t size, size_t n)
{
    req->st_source = src;
    req->st_tag = LC_RMA_TAG_RESP;
    req->msg_size = size;
    req->st_bytes = n;
    lc_request_complete(req); /* runs a user request's hook (lc_rma_user.c) */
}

/* An answer as it arrives (inside a progress pass). */
static bool lc_rma_on_answer(void *arg, int src, bool eager, const void *payload, size_t len)
{
    lc_rma_win_t *win = arg;
    lc_request_t *req = lc_rma_answer_take(win, src, "answer");
    if (!req) return eager; /* an RTS stays with matching (and its sender): nothing here takes it */
    if (!eager) {
        /* A rendezvous: its receive goes into matching now, where no other
         * answer's is (each is posted at its RTS and matches it at once),
         * and the packet is matched to it as we return. */
        lc_pt2pt_recv_start(req, src, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT);
        return false;
    }
    size_t n = len;
    if (lc_unlikely(len > req->bytes)) {
        n = req->bytes;
        req->st_error = lc_error(MPI_ERR_TRUNCATE,
                                 "a one-sided answer from rank %d of %zu bytes is larger than "
                                 "the %zu bytes the operation fetches",
                                 src, len, req->bytes);
    }
    if (n) memcpy(req->buf, payload, n);
    lc_rma_answer_complete(req, src, len, n);
    return true;
}

/* A FAIL answer: the target did not apply the request (its class, or
 * MPI_ERR_OTHER for a class that is none). */
static bool lc_rma_on_fail(void *arg, int src, bool eager, const void *payload, size_t len)
{
    lc_rma_win_t *win = arg;
    if (!eager || len != sizeof(int32_t)) {
        lc_log_error("a one-sided failure answer from rank %d of %zu bytes (not 4): ignored", src, len);
        return eager;
    }
    lc_request_t *req = lc_rma_answer_take(win, src, "failure answer");
    if (!req) return true;
    int32_t cls;
    memcpy(&cls, payload, sizeof cls);
    if (cls <= MPI_SUCCESS || cls > MPI_ERR_LASTCODE) cls = MPI_ERR_OTHER;
    req->st_error = lc_error(cls, "rank %d could not apply a one-sided operation of this rank%s; it was not applied",
                             src, cls == MPI_ERR_NO_MEM ? " (out of memory)" : "");
    lc_rma_answer_complete(req, src, 0, 0);
    return true;
}

void lc_rma_answer_drop_all(lc_rma_win_t *win)
{
    for (int t = 0; t < win->comm->size; t++) {
        lc_rma_outq_t *q = &win->outq[t];
        while (q->an > 0) {
            lc_request_t *req = q->ans[q->ahead];
            q->ahead = (q->ahead + 1) % q->acap;
            q->an--;
            req->st_error = lc_error(MPI_ERR_RMA_SYNC,
                                     "the window was freed before rank %d answered a one-sided "
                                     "operation",
                                     t);
            lc_rma_answer_complete(req, t, 0, 0);
        }
    }
}

/* ---- target --------------------------------------------------------------- */

int lc_rma_answer_prepare(lc_rma_win_t *win, int source, size_t bytes, char **result_p)
{
    if (source == win->comm->rank) return MPI_SUCCESS; /* our own lock: nothing is sent */
    int rc = lc_rma_outq_reserve(win, -2, 1);
    if (rc != MPI_SUCCESS) return rc;
    /* The send request too, in case the answer cannot go straight into
     * the ring: after applying nothing may fail.  Its buffer, length and
     * destination are set when it is used (lc_rma_answer_send). */
    if (!win->ans_req && !(win->ans_req = lc_pt2pt_send_request(NULL, 0, source, LC_RMA_TAG_RESP, win->comm,
                                                                LC_CTX_PT2PT, LC_MODE_STANDARD)))
        return lc_error(MPI_ERR_NO_MEM, "cannot allocate the send request answering a one-sided request of rank %d",
                        source);
    if (bytes > win->ans_cap) {
        /* Grown, not shrunk: the results of one window are alike. */
        char *b = malloc(bytes);
        if (!b)
            return lc_error(MPI_ERR_NO_MEM, "out of memory for the %zu-byte result of a one-sided request of rank %d",
                            bytes, source);
        free(win->ans_buf);
        win->ans_buf = b;
        win->ans_cap = bytes;
    }
    if (result_p) *result_p = win->ans_buf;
    return MPI_SUCCESS;
}

void lc_rma_answer_send(lc_rma_win_t *win, int source, const void *data, size_t bytes)
{
    if (source == win->comm->rank) { /* our own lock request, granted from the queue */
        win->self_granted = true;
        return;
    }
    /* Straight from `data` (the result buffer or window memory) when the
     * ring has room: nothing to allocate or track. */
    if (lc_pt2pt_try_send(NULL, 0, data, bytes, source, LC_RMA_TAG_RESP, win->comm, LC_CTX_PT2PT) == MPI_SUCCESS)
        return;
    /* A send of its own, tracked (room reserved), so MPI_Win_free waits:
     * a result buffer goes with it (freed at its release; the window
     * takes a new one next time), window memory is read until it
     * completes (only an erroneous program, a conflicting put or local
     * store before its next synchronisation, could tell). */
    void *own = bytes && data == win->ans_buf ? win->ans_buf : NULL;
    lc_request_t *req = win->ans_req; /* taken by lc_rma_answer_prepare */
    if (!req) lc_fatal("a one-sided answer to rank %d was not prepared", source);
    win->ans_req = NULL;
    req->buf = (void *)data;
    req->bytes = bytes;
    req->rank = source;
    lc_pt2pt_send_start(req);
    if (own) {
        win->ans_buf = NULL;
        win->ans_cap = 0;
    }
    lc_rma_outq_push(win, req, own, -2, NULL);
}

int lc_rma_answer_fail(lc_rma_win_t *win, int source, int cls)
{
    if (source == win->comm->rank) return LC_AGAIN; /* our own lock: retried from the queue */
    int32_t c = cls;
    return lc_pt2pt_try_send(NULL, 0, &c, sizeof c, source, LC_RMA_TAG_FAIL, win->comm, LC_CTX_PT2PT) == MPI_SUCCESS
               ? MPI_SUCCESS
               : LC_AGAIN;
}
