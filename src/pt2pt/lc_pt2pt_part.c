/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_part.c — partitioned communication (MPI 4.1 chapter 4):
 * MPI_Psend_init/MPI_Precv_init requests, their rounds, Pready, Parrived.
 *
 * Matching happens once per pair, in the order of initialization (MPI 4.1
 * §4.2): Psend_init sends a 16-byte hello (its stream number and its
 * partition layout) on the communicator's partitioned context, stream 0,
 * with the user's tag; Precv_init posts the receive for it.  The engine's
 * FIFO matching per (context, source, tag) pairs the n-th Psend_init with
 * the n-th Precv_init, whatever happens later.
 *
 * Data moves per partition, as early as the user readies it: each Pready
 * sends that partition at once as an ordinary message (eager or
 * rendezvous, derived types through the typed paths) on the pair's own
 * stream (LC_CTX_PART + stream, tag = send partition).  The receiver posts
 * one receive per *send* partition when the round starts (or when the
 * hello arrives, if later), each into its byte range of the receive
 * buffer, so the two sides may partition differently.  A receive
 * partition has arrived when every send partition overlapping its bytes
 * has.  A sender may run ahead into its next round: those partitions wait
 * in the unexpected queue until the receiver starts its round, and since
 * each round has exactly one message per (stream, partition), FIFO
 * matching keeps rounds apart.
 *
 * Each round is a request of its own (LC_REQ_PART_ROUND, the persistent
 * request's `active`), so Wait/Test and the array forms complete it like
 * any other.  A progress hook (LC_PROGRESS_HOOK_PART) runs while rounds
 * are in flight: it posts the receives of rounds whose hello came late,
 * reaps the partitions' requests and completes the round.
 *
 * Streams are numbered per communicator by the sending process (1..
 * LC_CTX_PART_STREAMS, wrapping): a stream is told apart by (source,
 * stream), so only a sender with that many partitioned sends alive on one
 * communicator could confuse two of them.
 */
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What the sender tells the receiver once, at initialization. */
typedef struct lc_part_hello {
    uint32_t stream; /* the pair's stream, 1..LC_CTX_PART_STREAMS */
    uint32_t parts;  /* send partitions */
    uint64_t pbytes; /* packed bytes per send partition */
} lc_part_hello_t;

typedef struct lc_part {
    lc_list_t link;      /* in lc_part_running while a round is in flight */
    lc_request_t *round; /* the round in flight (NULL once it completed) */
    bool send;
    uintptr_t buf;   /* the user's buffer (may be MPI_BOTTOM) */
    int parts;       /* this side's partitions */
    MPI_Count count; /* items per partition */
    lc_dt_t *udt;    /* derived type (a reference) or NULL: bytes */
    size_t pbytes, pstride;
    int rank, tag;
    lc_comm_t *comm;       /* held by the persistent request */
    lc_part_hello_t hello; /* send: what hreq sends; recv: what it received */
    lc_request_t *hreq;    /* the hello send or receive; NULL once reaped */
    uint32_t stream;       /* 0 until known (receiver: from the hello) */
    int nsubs;             /* send: parts; recv: the sender's parts (0 until known) */
    size_t spbytes;        /* recv: the sender's bytes per partition */
    lc_request_t **subs;   /* [nsubs] this round's partition requests, NULL when reaped */
    uint8_t *done;         /* [nsubs] send: readied this round; recv: arrived */
    int nready;            /* send: partitions readied this round */
    int pending;           /* subs posted and not reaped */
    bool posted;           /* recv: this round's receives are posted */
    int err;               /* first error of the round */
    size_t got;            /* recv: bytes received this round */
} lc_part_t;

static lc_list_t lc_part_running = { &lc_part_running, &lc_part_running };

static inline int lc_part_ctx(const lc_part_t *p)
{
    return LC_CTX_PART + (int)(p->stream << LC_CTX_PART_SHIFT);
}

/* Allocate subs[] and done[] for n partition requests. */
static int lc_part_alloc_subs(lc_part_t *p, int n)
{
    p->subs = calloc((size_t)(n ? n : 1), sizeof(*p->subs));
    p->done = calloc((size_t)(n ? n : 1), 1);
    if (!p->subs || !p->done) return lc_error(MPI_ERR_NO_MEM, "out of memory for the state of %d partitions", n);
    p->nsubs = n;
    return MPI_SUCCESS;
}

static void lc_part_destroy(lc_part_t *p)
{
    if (p->udt) lc_dt_release(p->udt);
    free(p->subs);
    free(p->done);
    free(p);
}

int lc_part_init(bool send, void *buf, int parts, MPI_Count count, lc_dt_t *udt, size_t pbytes, size_t pstride,
                 int rank, int tag, lc_comm_t *comm, lc_request_t **req_p)
{
    lc_part_t *p = calloc(1, sizeof(*p));
    lc_request_t *req = lc_request_alloc(send ? LC_REQ_PART_SEND : LC_REQ_PART_RECV);
    int rc = MPI_SUCCESS;
    if (!p || !req) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a partitioned request");
        goto err;
    }
    *p = (lc_part_t){ .send = send,
                      .buf = (uintptr_t)buf,
                      .parts = parts,
                      .count = count,
                      .udt = udt,
                      .pbytes = pbytes,
                      .pstride = pstride,
                      .rank = rank,
                      .tag = tag,
                      .comm = comm };
    lc_list_init(&p->link);
    if (udt) lc_dt_retain(udt);
    req->part = p;
    req->comm = comm;
    req->rank = rank;
    req->tag = tag;
    if (send && (rc = lc_part_alloc_subs(p, parts))) goto err;
    if (rank != MPI_PROC_NULL) {
        if (send) {
            p->stream = 1 + comm->part_seq++ % LC_CTX_PART_STREAMS;
            p->hello = (lc_part_hello_t){ .stream = p->stream, .parts = (uint32_t)parts, .pbytes = pbytes };
            rc = lc_pt2pt_isend(&p->hello, sizeof(p->hello), rank, tag, comm, LC_CTX_PART, LC_MODE_STANDARD, &p->hreq);
        } else {
            rc = lc_pt2pt_irecv(&p->hello, sizeof(p->hello), rank, tag, comm, LC_CTX_PART, &p->hreq);
        }
        if (rc) goto err;
    }
    *req_p = req;
    return MPI_SUCCESS;
err:
    if (req) lc_request_release(req);
    if (p) lc_part_destroy(p);
    return rc;
}

/* The receiver learns the sender's stream and layout from the hello. */
static int lc_part_take_hello(lc_part_t *p)
{
    lc_request_t *h = p->hreq;
    int rc = h->st_error;
    if (!rc && (h->st_bytes != sizeof(p->hello) || p->hello.stream == 0))
        rc = lc_error(MPI_ERR_INTERN, "malformed partitioned handshake from rank %d (%zu bytes)", p->rank, h->st_bytes);
    lc_request_release(h);
    p->hreq = NULL;
    if (rc) return rc;
    p->stream = p->hello.stream;
    p->spbytes = (size_t)p->hello.pbytes;
    return lc_part_alloc_subs(p, (int)p->hello.parts);
}

/* Post this round's receives, one per send partition, each into its bytes
 * of the receive buffer (clipped to it: a longer send is truncated). */
static int lc_part_post(lc_part_t *p)
{
    size_t total = (size_t)p->parts * p->pbytes;
    p->posted = true;
    memset(p->done, 0, (size_t)p->nsubs);
    for (int i = 0; i < p->nsubs; i++) {
        size_t off = (size_t)i * p->spbytes, n = 0;
        if (off < total)
            n = total - off < p->spbytes ? total - off : p->spbytes;
        else
            off = total;
        int rc = p->udt ? lc_pt2pt_irecv_dt_range((void *)p->buf, (MPI_Count)p->parts * p->count, p->udt, off, n,
                                                  p->rank, i, p->comm, lc_part_ctx(p), &p->subs[i])
                        : lc_pt2pt_irecv((void *)(p->buf + off), n, p->rank, i, p->comm, lc_part_ctx(p), &p->subs[i]);
        if (rc) return rc; /* the receives already posted are reaped as usual */
        p->pending++;
    }
    return MPI_SUCCESS;
}

/* The round is over: its status, its completion, off the running list. */
static void lc_part_finish_round(lc_part_t *p)
{
    lc_request_t *r = p->round;
    r->st_source = p->send ? MPI_ANY_SOURCE : p->rank;
    r->st_tag = p->send ? MPI_ANY_TAG : p->tag;
    r->st_bytes = p->send ? 0 : p->got;
    r->st_error = p->err;
    p->round = NULL;
    lc_list_remove(&p->link);
    if (lc_list_empty(&lc_part_running)) lc_progress_hook_set(LC_PROGRESS_HOOK_PART, NULL);
    lc_request_complete(r);
}

/* One pass over a running round: events (requests reaped, receives posted). */
static int lc_part_advance(lc_part_t *p)
{
    int events = 0;
    if (!p->send && !p->posted) {
        int rc = MPI_SUCCESS;
        if (!p->stream) {
            if (p->hreq && !p->hreq->complete) return 0; /* the sender's hello is not here yet */
            rc = p->hreq ? lc_part_take_hello(p)
                         : lc_error(MPI_ERR_OTHER,
                                    "the partitioned handshake with rank %d failed in an earlier "
                                    "round; free the request",
                                    p->rank);
        }
        if (!rc) rc = lc_part_post(p);
        if (rc && !p->err) p->err = rc;
        p->posted = true;
        events++;
    }
    for (int i = 0; p->pending && i < p->nsubs; i++) {
        lc_request_t *s = p->subs[i];
        if (!s || !s->complete) continue;
        if (s->st_error && !p->err) p->err = s->st_error;
        if (!p->send) {
            p->got += s->st_bytes;
            p->done[i] = 1;
        }
        lc_request_release(s);
        p->subs[i] = NULL;
        p->pending--;
        events++;
    }
    if (!p->pending && (p->send ? p->nready == p->parts : p->posted)) lc_part_finish_round(p);
    return events;
}

static int lc_part_hook(void)
{
    int events = 0;
    lc_list_for_each (it, &lc_part_running) events += lc_part_advance(lc_container_of(it, lc_part_t, link));
    return events;
}

int lc_part_start(lc_request_t *preq)
{
    lc_part_t *p = preq->part;
    lc_request_t *r = lc_request_alloc(LC_REQ_PART_ROUND);
    if (!r) return lc_error(MPI_ERR_NO_MEM, "out of requests");
    r->comm = p->comm;
    r->rank = p->rank;
    r->tag = p->tag;
    lc_request_hold_comm(r); /* outlives the persistent request after Request_free */
    preq->active = p->round = r;
    p->nready = 0;
    p->err = MPI_SUCCESS;
    p->got = 0;
    p->posted = false;
    if (p->send) memset(p->done, 0, (size_t)p->nsubs);
    if (p->rank == MPI_PROC_NULL) { /* nothing to move: complete, every partition arrived */
        p->round = NULL;
        r->st_source = MPI_PROC_NULL;
        r->st_tag = MPI_ANY_TAG;
        lc_request_complete(r);
        return MPI_SUCCESS;
    }
    if (lc_list_empty(&lc_part_running)) lc_progress_hook_set(LC_PROGRESS_HOOK_PART, lc_part_hook);
    lc_list_push_back(&lc_part_running, &p->link);
    if (!p->send) lc_part_advance(p); /* post the receives now if the hello is here */
    return MPI_SUCCESS;
}

/* An active round of this partitioned request, and partition i in range. */
static int lc_part_check_index(const lc_request_t *preq, int i, const char *what)
{
    const lc_part_t *p = preq->part;
    if (!preq->active)
        return lc_error(MPI_ERR_REQUEST, "the partitioned request is not active: call MPI_Start before %s", what);
    if (i < 0 || i >= p->parts)
        return lc_error(MPI_ERR_ARG, "partition %d is out of range for a request of %d partitions", i, p->parts);
    return MPI_SUCCESS;
}

static int lc_part_ready_one(lc_request_t *preq, int i)
{
    lc_part_t *p = preq->part;
    int rc = lc_part_check_index(preq, i, "MPI_Pready");
    if (rc) return rc;
    if (p->done[i]) return lc_error(MPI_ERR_ARG, "partition %d is already ready in this round", i);
    p->done[i] = 1;
    p->nready++;
    if (p->rank == MPI_PROC_NULL) return MPI_SUCCESS;
    uintptr_t at = p->buf + (uintptr_t)i * p->pstride;
    rc = p->udt ? lc_pt2pt_isend_dt((const void *)at, p->count, p->udt, p->rank, i, p->comm, lc_part_ctx(p),
                                    LC_MODE_STANDARD, &p->subs[i])
                : lc_pt2pt_isend((const void *)at, p->pbytes, p->rank, i, p->comm, lc_part_ctx(p), LC_MODE_STANDARD,
                                 &p->subs[i]);
    if (rc) {
        if (!p->err) p->err = rc; /* the round completes with it */
        return rc;
    }
    p->pending++;
    return MPI_SUCCESS;
}

int lc_part_pready(lc_request_t *preq, int lo, int hi)
{
    if (lo > hi) return lc_error(MPI_ERR_ARG, "partition_low %d is above partition_high %d", lo, hi);
    int rc = lc_part_check_index(preq, lo, "MPI_Pready_range");
    if (!rc) rc = lc_part_check_index(preq, hi, "MPI_Pready_range");
    for (int i = lo; !rc && i <= hi; i++) rc = lc_part_ready_one(preq, i);
    return rc;
}

int lc_part_pready_list(lc_request_t *preq, int n, const int *list)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; !rc && k < n; k++) rc = lc_part_check_index(preq, list[k], "MPI_Pready_list");
    for (int k = 0; !rc && k < n; k++) rc = lc_part_ready_one(preq, list[k]);
    return rc;
}

int lc_part_arrived(lc_request_t *preq, int j, int *flag)
{
    lc_part_t *p = preq->part;
    if (!preq->active) { /* inactive: nothing pending */
        *flag = 1;
        return MPI_SUCCESS;
    }
    int rc = lc_part_check_index(preq, j, "MPI_Parrived");
    if (rc) return rc;
    if (p->rank == MPI_PROC_NULL || !p->round) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    lc_progress_test();
    if (!p->round) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    *flag = 0;
    if (!p->posted) return MPI_SUCCESS;
    /* The send partitions that overlap bytes [lo, hi) of receive partition j. */
    size_t lo = (size_t)j * p->pbytes, hi = lo + p->pbytes;
    size_t first = 0, last = (size_t)p->nsubs - 1; /* empty partitions: no bytes say which, so all */
    if (p->pbytes && p->spbytes) {
        first = lo / p->spbytes;
        last = (hi - 1) / p->spbytes;
    }
    if (last >= (size_t)p->nsubs) last = (size_t)p->nsubs - 1;
    for (size_t i = first; i <= last && i < (size_t)p->nsubs; i++)
        if (!p->done[i]) return MPI_SUCCESS;
    *flag = 1;
    return MPI_SUCCESS;
}

int lc_part_free(lc_request_t *preq)
{
    lc_part_t *p = preq->part;
    if (p->round)
        return lc_error(MPI_ERR_REQUEST, "cannot free a partitioned request while its round is in flight: "
                                         "ready every partition and complete it first");
    if (preq->active) lc_request_release(preq->active); /* a completed round the user never waited for */
    preq->active = NULL;
    if (p->hreq) {
        if (p->send) {
            /* The hello may still wait for ring space and points into p. */
            lc_pt2pt_wait(p->hreq);
        } else {
            lc_pt2pt_cancel(p->hreq); /* no sender matched it (or it did: complete) */
            lc_pt2pt_wait(p->hreq);
        }
        lc_request_release(p->hreq);
    }
    preq->part = NULL;
    lc_part_destroy(p);
    lc_request_release(preq);
    return MPI_SUCCESS;
}
