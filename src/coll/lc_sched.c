/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_sched.c — the schedule engine: building steps, running rounds from
 * the progress engine, completing the request (see lc_sched.h).
 */
#include "coll/lc_sched.h"
#include "coll/lc_op.h"
#include "coll/lc_coll_impl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

lc_sched_t *lc_coll_capture;

static lc_list_t lc_sched_running = { &lc_sched_running, &lc_sched_running };
static int lc_sched_nrunning;
static int lc_sched_in_progress; /* a user operation may call MPI: no re-entry */
/* A running schedule waits only for its round's sends and receives, and
 * every one of them completes through lc_request_complete: a pass in
 * which lc_request_completions has not moved since the last look can
 * change nothing (a waiting rank's poll loop would otherwise scan every
 * round's steps on every poll — a third of its instructions, 2 ranks,
 * Iallreduce of 8 B).  lc_sched_kick: a schedule was listed without its
 * first round started (lc_sched_start inside the engine). */
static unsigned lc_sched_seen;
static int lc_sched_kick;

static int lc_sched_progress(void);

/* Freed schedules are kept (up to LC_SCHED_CACHE) with their step and
 * buffer arrays and one small scratch buffer, so that a loop of short
 * nonblocking collectives does not call malloc: the Iallreduce of 8 bytes
 * should cost what Allreduce costs. */
#define LC_SCHED_CACHE 16
#define LC_SCHED_SPARE_MAX (64 * 1024) /* larger scratch goes back to malloc */
static lc_sched_t *lc_sched_cache[LC_SCHED_CACHE];
static int lc_sched_ncached;

lc_sched_t *lc_sched_new(lc_comm_t *comm)
{
    lc_sched_t *s;
    if (lc_sched_ncached) {
        s = lc_sched_cache[--lc_sched_ncached];
        memset(s, 0, offsetof(lc_sched_t, ops)); /* the arrays and the spare stay */
    } else if (!(s = calloc(1, sizeof(*s)))) {
        return NULL;
    }
    lc_list_init(&s->link);
    s->comm = comm;
    return s;
}

void lc_sched_take_tag(lc_sched_t *s)
{
    s->tag = LC_SCHED_TAG | (int)(s->comm->sched_seq++ & LC_SCHED_TAG_MASK);
}

void lc_sched_free(lc_sched_t *s)
{
    if (!s) return;
    for (lc_sched_hook_t *h = s->hooks; h; h = h->next) h->fn(h->arg);
    s->hooks = NULL;
    for (int i = 0; i < s->nops; i++)
        if (s->ops[i].kind == LC_SOP_REDUCE) lc_op_user_release(s->ops[i].op);
    /* Keep the largest small buffer as the spare scratch. */
    for (int i = 0; i < s->nbufs; i++) {
        size_t n = s->buf_bytes[i];
        if (n <= LC_SCHED_SPARE_MAX && n > s->spare_bytes && lc_sched_ncached < LC_SCHED_CACHE) {
            free(s->spare);
            s->spare = s->bufs[i];
            s->spare_bytes = n;
        } else {
            free(s->bufs[i]);
        }
    }
    s->nbufs = 0;
    if (lc_sched_ncached < LC_SCHED_CACHE) {
        lc_sched_cache[lc_sched_ncached++] = s;
        return;
    }
    free(s->spare);
    free(s->buf_bytes);
    free(s->bufs);
    free(s->ops);
    free(s);
}

static void lc_sched_drop(void *p)
{
    lc_sched_t *s = p;
    if (--s->refs <= 0) lc_sched_free(s);
}

void lc_sched_init(void)
{
    lc_request_sched_drop = lc_sched_drop;
}

void *lc_sched_alloc(lc_sched_t *s, size_t bytes, int *rc)
{
    if (s->nbufs == s->bufcap) {
        int cap = s->bufcap ? 2 * s->bufcap : 4;
        void **bufs = realloc(s->bufs, sizeof(*bufs) * (size_t)cap);
        if (bufs) s->bufs = bufs;
        size_t *sizes = bufs ? realloc(s->buf_bytes, sizeof(*sizes) * (size_t)cap) : NULL;
        if (!sizes) {
            *rc = lc_error(MPI_ERR_NO_MEM, "out of memory for the buffers of a nonblocking collective");
            return NULL;
        }
        s->buf_bytes = sizes;
        s->bufcap = cap;
    }
    void *p;
    if (s->spare && bytes <= s->spare_bytes) {
        p = s->spare;
        bytes = s->spare_bytes;
        s->spare = NULL;
        s->spare_bytes = 0;
        *rc = MPI_SUCCESS;
    } else if (!(p = lc_coll_alloc(bytes, rc))) {
        return NULL;
    }
    s->bufs[s->nbufs] = p;
    s->buf_bytes[s->nbufs++] = bytes;
    return p;
}

int lc_sched_on_free(lc_sched_t *s, lc_sched_drop_fn *fn, void *arg)
{
    int rc;
    lc_sched_hook_t *h = lc_sched_alloc(s, sizeof(*h), &rc);
    if (!h) return rc;
    h->fn = fn;
    h->arg = arg;
    h->next = s->hooks;
    s->hooks = h;
    return MPI_SUCCESS;
}

static lc_sop_t *lc_sched_add(lc_sched_t *s, lc_sop_kind_t kind, int *rc)
{
    if (s->nops == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        lc_sop_t *ops = realloc(s->ops, sizeof(*ops) * (size_t)cap);
        if (!ops) {
            *rc = lc_error(MPI_ERR_NO_MEM, "out of memory for the steps of a nonblocking collective");
            return NULL;
        }
        s->ops = ops;
        s->cap = cap;
    }
    lc_sop_t *op = &s->ops[s->nops++];
    memset(op, 0, sizeof(*op));
    op->kind = (uint8_t)kind;
    *rc = MPI_SUCCESS;
    return op;
}

int lc_sched_send(lc_sched_t *s, const void *buf, size_t bytes, int peer)
{
    int rc;
    lc_sop_t *op = lc_sched_add(s, LC_SOP_SEND, &rc);
    if (op) {
        op->src = buf;
        op->bytes = bytes;
        op->peer = peer;
        op->comm = s->peer_comm ? s->peer_comm : s->comm;
    }
    return rc;
}

int lc_sched_recv(lc_sched_t *s, void *buf, size_t bytes, int peer)
{
    int rc;
    lc_sop_t *op = lc_sched_add(s, LC_SOP_RECV, &rc);
    if (op) {
        op->dst = buf;
        op->bytes = bytes;
        op->peer = peer;
        op->comm = s->peer_comm ? s->peer_comm : s->comm;
    }
    return rc;
}

int lc_sched_copy(lc_sched_t *s, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0 || dst == src) return MPI_SUCCESS;
    int rc;
    lc_sop_t *op = lc_sched_add(s, LC_SOP_COPY, &rc);
    if (op) {
        op->dst = dst;
        op->src = src;
        op->bytes = bytes;
    }
    return rc;
}

int lc_sched_reduce(lc_sched_t *s, void *src, void *dst, size_t count, MPI_Datatype dt, MPI_Op op_, bool lower,
                    bool strict)
{
    int rc;
    lc_sop_t *op = lc_sched_add(s, LC_SOP_REDUCE, &rc);
    if (op) {
        op->src = src;
        op->dst = dst;
        op->count = count;
        op->bytes = count * lc_dtype_size(dt);
        op->dt = dt;
        op->op = op_;
        lc_op_user_retain(op_); /* released by lc_sched_free */
        op->lower = lower;
        op->strict = strict;
    }
    return rc;
}

int lc_sched_call(lc_sched_t *s, lc_sched_call_fn *fn, void *arg)
{
    int rc;
    lc_sop_t *op = lc_sched_add(s, LC_SOP_CALL, &rc);
    if (op) {
        op->fn = fn;
        op->arg = arg;
    }
    return rc;
}

int lc_sched_fence(lc_sched_t *s)
{
    if (s->nops == 0 || s->ops[s->nops - 1].kind == LC_SOP_FENCE) return MPI_SUCCESS; /* no empty rounds */
    int rc;
    lc_sched_add(s, LC_SOP_FENCE, &rc);
    return rc;
}

/* ---- running ------------------------------------------------------------ */

static void lc_sched_local_reduce(lc_sop_t *op)
{
    void *src = (void *)op->src;
    if (op->lower || (!op->strict && lc_op_commutative(op->op))) {
        lc_op_apply(op->op, op->dt, src, op->dst, op->count); /* dst = src op dst */
    } else {
        lc_op_apply(op->op, op->dt, op->dst, src, op->count); /* src = dst op src */
        memcpy(op->dst, src, op->bytes);
    }
}

/* Start one step; sends and receives add to `pending`. */
static int lc_sched_start_op(lc_sched_t *s, lc_sop_t *op)
{
    switch ((lc_sop_kind_t)op->kind) {
    case LC_SOP_SEND:
        s->pending++;
        return lc_coll_isend(op->src, op->bytes, op->peer, s->tag, op->comm, &op->req);
    case LC_SOP_RECV:
        s->pending++;
        return lc_coll_irecv(op->dst, op->bytes, op->peer, s->tag, op->comm, &op->req);
    case LC_SOP_COPY:
        memcpy(op->dst, op->src, op->bytes);
        return MPI_SUCCESS;
    case LC_SOP_REDUCE:
        lc_sched_local_reduce(op);
        return MPI_SUCCESS;
    case LC_SOP_CALL:
        return op->fn(op->arg);
    case LC_SOP_FENCE:
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

/* Collect the finished sends and receives of the current round. */
static void lc_sched_reap(lc_sched_t *s)
{
    for (int i = s->round_begin; i < s->pos && s->pending; i++) {
        lc_sop_t *op = &s->ops[i];
        if (!op->req || !op->req->complete) continue;
        if (op->req->st_error && !s->err) s->err = op->req->st_error;
        lc_request_release(op->req);
        op->req = NULL;
        s->pending--;
    }
}

/* After a failure no further round starts: the receives of this round
 * that have not matched are withdrawn (their senders may have failed
 * too), its sends complete normally. */
static void lc_sched_withdraw(lc_sched_t *s)
{
    for (int i = s->round_begin; i < s->pos; i++)
        if (s->ops[i].req && s->ops[i].kind == LC_SOP_RECV) lc_pt2pt_cancel(s->ops[i].req);
}

static void lc_sched_finish(lc_sched_t *s)
{
    if (s->listed) {
        lc_list_remove(&s->link);
        s->listed = false;
        if (--lc_sched_nrunning == 0) lc_progress_hook_set(LC_PROGRESS_HOOK_SCHED, NULL);
    }
    lc_request_t *req = s->req;
    s->req = NULL;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_bytes = 0;
    req->st_error = s->err;
    /* Last: completing a request the user freed releases it, and with it
     * maybe the schedule. */
    lc_request_complete(req);
}

/* Advance one schedule as far as it goes without waiting; returns the
 * number of rounds it finished. */
static int lc_sched_advance(lc_sched_t *s)
{
    int steps = 0;
    for (;;) {
        if (s->pending) {
            lc_sched_reap(s);
            if (s->pending) return steps;
        }
        steps++;
        if (s->pos == s->nops || s->err) {
            lc_sched_finish(s);
            return steps;
        }
        s->round_begin = s->pos;
        while (s->pos < s->nops) {
            lc_sop_t *op = &s->ops[s->pos++];
            if (op->kind == LC_SOP_FENCE) break;
            int rc = lc_sched_start_op(s, op);
            if (rc != MPI_SUCCESS) {
                op = &s->ops[s->pos - 1]; /* a call step may have added steps (and moved the array) */
                if (op->req == NULL && (op->kind == LC_SOP_SEND || op->kind == LC_SOP_RECV)) s->pending--;
                s->err = rc;
                lc_sched_withdraw(s);
                break;
            }
        }
    }
}

static int lc_sched_progress(void)
{
    if (lc_sched_in_progress) return 0;
    unsigned done = lc_count_get(&lc_request_completions);
    if (done == lc_sched_seen && !lc_sched_kick) return 0;
    /* Read before advancing: completions during the pass move it again. */
    lc_sched_seen = done;
    lc_sched_kick = 0;
    lc_sched_in_progress = 1;
    int steps = 0;
    lc_list_for_each (it, &lc_sched_running) steps += lc_sched_advance((lc_sched_t *)it);
    lc_sched_in_progress = 0;
    return steps;
}

void lc_sched_start(lc_sched_t *s, lc_request_t *req)
{
    s->pos = s->round_begin = s->pending = 0;
    s->err = MPI_SUCCESS;
    s->req = req;
    /* Start the first round now (sends leave before the caller computes);
     * a schedule that finishes here (one rank, or every message already
     * arrived) completes its request without ever joining the running
     * list.  Inside the engine already (a call step starting a schedule)
     * the next pass starts it. */
    if (!lc_sched_in_progress) {
        lc_sched_in_progress = 1;
        lc_sched_advance(s);
        lc_sched_in_progress = 0;
        /* Finished: req is complete and still the caller's (nobody could
         * free it yet), so s is alive too. */
        if (!s->req) return;
    } else {
        lc_sched_kick = 1;
    }
    lc_list_push_back(&lc_sched_running, &s->link);
    s->listed = true;
    if (lc_sched_nrunning++ == 0) lc_progress_hook_set(LC_PROGRESS_HOOK_SCHED, lc_sched_progress);
}

int lc_sched_launch(lc_sched_t *s, lc_req_kind_t kind, lc_request_t **req_p)
{
    lc_request_t *req = lc_request_alloc(kind);
    if (lc_unlikely(!req)) {
        /* Nothing was taken.  A schedule the memo holds (the one a memo
         * hit restarts, or one just built and kept) stays with it; only
         * a schedule nobody holds is freed here. */
        if (s->refs == 0) lc_sched_free(s);
        return lc_error(MPI_ERR_NO_MEM, "out of requests for a collective operation");
    }
    /* The tag is taken only now: a call that failed took none, so the
     * sequence stays the same on every rank. */
    lc_sched_take_tag(s);
    req->comm = s->comm;
    req->sched = s;
    s->refs++; /* the request's (a memoized schedule also has the memo's) */
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_sched_start_instance(lc_request_t *preq)
{
    lc_sched_t *s = preq->sched;
    lc_request_t *inst = lc_request_alloc(LC_REQ_COLL);
    if (!inst) return lc_error(MPI_ERR_NO_MEM, "out of requests starting a persistent collective");
    inst->comm = preq->comm;
    lc_request_hold_comm(inst); /* outlives the persistent request after Request_free */
    inst->sched = s;
    s->refs++;
    preq->active = inst;
    lc_sched_start(s, inst);
    return MPI_SUCCESS;
}
