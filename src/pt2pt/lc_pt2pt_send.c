/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_send.c — the send side: eager and rendezvous packets, the
 * per-peer pending queues, control packets (CTS/FIN/ACK) going out, and
 * the ones that come back to a sender (CTS, FIN, ACK).
 */
#include "channel/lc_shm.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "pt2pt/lc_pt2pt_split.h"
#include "util/lc_error.h"
#include "util/lc_params.h"

#include <stdlib.h>
#include <string.h>

int lc_pt2pt_pending_peers;

/* MPI_THREAD_MULTIPLE: a shm peer's send side (its ring and `pending`)
 * under its tx lock (lc_channel.h), held from the look at `pending` to
 * the packet in the ring or the request in the queue, so that two threads
 * sending to one peer keep each one's order and neither overtakes a
 * queued send.  The self peer's too: the self channel delivers inline in
 * the sending thread, whose handlers answer it (CTS, DATA, FIN: the lock
 * is recursive) and whose `pending` queue (used when a staging
 * allocation fails) the fast path may reach outside the section.  Other
 * channels (ofi, IVSHMEM) stay under the process-wide section.  Returns
 * whether it took the lock, for lc_tx_unlock. */
static inline int lc_tx_lockable(const lc_peer_t *peer)
{
    return peer->kind == LC_CHANNEL_SHM || peer->kind == LC_CHANNEL_SELF;
}

static inline int lc_tx_lock(lc_peer_t *peer)
{
    if (lc_likely(!lc_thread_locking()) || !lc_tx_lockable(peer)) return 0;
    lc_lock_acquire(&peer->tx_lock);
    return 1;
}

static inline void lc_tx_unlock(lc_peer_t *peer, int held)
{
    if (held) lc_lock_release(&peer->tx_lock);
}

/* A rendezvous send to a calibrating peer finished (lc_pick_choose
 * counts those in flight).  Atomic at MULTIPLE: the count is raised under
 * the peer's tx lock and lowered by whichever thread handles the FIN. */
static inline void lc_pick_sent(lc_peer_t *peer)
{
    if (lc_unlikely(peer->pick.calibrate) && lc_count_get(&peer->pick.sending)) lc_count_add(&peer->pick.sending, -1u);
}

LC_INLINE int lc_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                          const void *data, size_t datalen)
{
    if (lc_likely(peer->kind == LC_CHANNEL_SHM))
        return lc_shm_try_send(peer, hdr, pre, prelen, data, datalen);
    return peer->ops->try_send(peer, hdr, pre, prelen, data, datalen);
}

/* n bytes of the message from offset off as the data of one packet: from
 * the buffer, or, for a derived-datatype send that was not packed, from
 * its cursor straight into the shm cell (lc_pt2pt_typed.c: only shm peers
 * get such sends; the cursor is always at off, since packets go out in
 * order and one that does not go out leaves it in place). */
LC_INLINE int lc_send_data(lc_request_t *req, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen, size_t off,
                           size_t n)
{
    if (lc_unlikely(req->rcur != NULL)) return lc_shm_try_send_cursor(req->peer, hdr, pre, prelen, req->rcur, n);
    return lc_try_send(req->peer, hdr, pre, prelen, (const char *)req->buf + off, n);
}

void lc_pt2pt_enqueue(lc_peer_t *peer, lc_pending_t *p)
{
    if (lc_list_empty(&peer->pending)) lc_count_add(&lc_pt2pt_pending_peers, 1);
    lc_list_push_back(&peer->pending, &p->link);
}

void lc_pt2pt_send_ctl(lc_peer_t *peer, lc_pkt_kind_t kind, uint32_t sreq, uint32_t rreq)
{
    lc_pt2pt_send_ctl_flags(peer, kind, 0, sreq, rreq);
}

void lc_pt2pt_send_ctl_flags(lc_peer_t *peer, lc_pkt_kind_t kind, uint8_t flags, uint32_t sreq, uint32_t rreq)
{
    lc_pt2pt_send_ctl_tag(peer, kind, flags, 0, sreq, rreq);
}

void lc_pt2pt_send_ctl_tag(lc_peer_t *peer, lc_pkt_kind_t kind, uint8_t flags, int32_t tag, uint32_t sreq,
                           uint32_t rreq)
{
    lc_pkt_hdr_t hdr = { .kind = (uint8_t)kind, .flags = flags, .tag = tag };
    lc_pkt_ctl_t ctl = { .sreq = sreq, .rreq = rreq };
    int held = lc_tx_lock(peer);
    if (lc_list_empty(&peer->pending) && lc_try_send(peer, &hdr, &ctl, sizeof(ctl), NULL, 0) == LC_OK) {
        lc_tx_unlock(peer, held);
        return;
    }
    lc_ctl_pending_t *c = malloc(sizeof(*c));
    if (!c) lc_fatal("out of memory queueing a control packet for rank %d", peer->world_rank);
    c->pend.is_ctl = 1;
    c->hdr = hdr;
    c->ctl = ctl;
    lc_pt2pt_enqueue(peer, &c->pend);
    lc_tx_unlock(peer, held);
}

/* The first packet of a send: the whole message (eager) or an RTS.  The
 * state is set *before* the packet goes out: on the self channel the
 * answer (ACK, FIN) is handled before try_send returns. */
static int lc_send_first_packet(lc_request_t *req)
{
    lc_pkt_hdr_t hdr = {
        .kind = LC_PKT_EAGER,
        .tag = req->tag,
        .ctx = req->comm->ctx + req->ctx_kind,
        .src = req->comm->rank,
    };
    if (req->bytes <= req->peer->eager_limit) {
        int sync = req->mode == LC_MODE_SYNC;
        if (sync) {
            hdr.flags = LC_PKT_FLAG_SYNC;
            req->state = LC_ST_WAIT_ACK; /* before the name is published (lc_request_ref) */
            hdr.sreq = lc_request_ref(req);
        }
        if (lc_send_data(req, &hdr, NULL, 0, 0, req->bytes) != LC_OK) {
            req->state = LC_ST_EAGER_QUEUED;
            return LC_AGAIN;
        }
        if (!sync) lc_request_complete(req);
        return LC_OK;
    }
    hdr.kind = LC_PKT_RTS;
    req->state = LC_ST_WAIT_RNDV; /* before the name is published (lc_request_ref) */
    lc_pkt_rts_t rts = { .size = req->bytes, .addr = (uint64_t)(uintptr_t)req->buf, .sreq = lc_request_ref(req) };
    if (lc_unlikely(req->peer->pick.calibrate)) /* the receiver times the protocol from here */
        rts.stamp_ns = (uint64_t)(lc_time_now() * 1e9);
    if (lc_unlikely(req->rcur != NULL)) { /* unpacked derived datatype: buf is its block list, if any */
        rts.nblocks = req->nblocks;
        hdr.flags = req->nblocks ? LC_PKT_FLAG_LIST : LC_PKT_FLAG_NOPULL;
    }
    /* lc_pick_choose counts our rendezvous sends in flight (an exchange).
     * To a shm peer, counted before the RTS leaves: at MULTIPLE its FIN
     * may be handled in another thread at once (and the request be gone
     * after lc_try_send: only `peer` is read after it).  To self, after:
     * the whole exchange runs inline in lc_try_send, and the RTS's own
     * choice must not count its message. */
    lc_peer_t *peer = req->peer;
    int cal = lc_unlikely(peer->pick.calibrate);
    int early = cal && peer->kind != LC_CHANNEL_SELF;
    if (early) lc_count_add(&peer->pick.sending, 1u);
    if (lc_try_send(peer, &hdr, &rts, sizeof(rts), NULL, 0) != LC_OK) {
        if (early) lc_count_add(&peer->pick.sending, -1u);
        req->state = LC_ST_RTS_QUEUED;
        return LC_AGAIN;
    }
    if (cal && !early) lc_count_add(&peer->pick.sending, 1u);
    return LC_OK;
}

/* Two-copy pipeline after CTS: DATA packets while the ring has room. */
static int lc_send_stream(lc_request_t *req)
{
    /* The variant the receiver's CTS asked for, or LOCUS_SHM_BIG_NT's
     * forced one.  Set per message as it (re)starts streaming: a peer's
     * sends stream one at a time, in the order of its pending queue, so
     * the per-peer switch is this message's while its fragments go out
     * (only the shm channel reads it). */
    lc_shm_set_big_nt(req->peer, req->pick_nt || lc_params.shm_big_nt);
    while (req->offset < req->bytes) {
        size_t n = req->bytes - req->offset;
        if (n > req->peer->chunk) n = req->peer->chunk;
        lc_pkt_hdr_t hdr = { .kind = LC_PKT_DATA };
        lc_pkt_data_t d = { .rreq = req->remote, .offset = req->offset };
        if (lc_send_data(req, &hdr, &d, sizeof(d), req->offset, n) != LC_OK) return LC_AGAIN;
        req->offset += n;
    }
    lc_pick_sent(req->peer);
    lc_request_complete(req);
    return LC_OK;
}

static int lc_drain_peer(lc_peer_t *peer)
{
    int events = 0;
    int held = lc_tx_lock(peer);
    if (lc_list_empty(&peer->pending)) { /* another thread drained it first */
        lc_tx_unlock(peer, held);
        return 0;
    }
    while (!lc_list_empty(&peer->pending)) {
        lc_list_t *first = peer->pending.next;
        lc_pending_t *p = lc_container_of(first, lc_pending_t, link);
        if (p->is_ctl) {
            lc_ctl_pending_t *c = (lc_ctl_pending_t *)p;
            if (lc_try_send(peer, &c->hdr, &c->ctl, sizeof(c->ctl), NULL, 0) != LC_OK) break;
            lc_list_remove(first);
            free(c);
        } else {
            lc_request_t *req = lc_container_of(p, lc_request_t, pend);
            /* Out of the queue before the packet goes: a send that
             * completes may be released by its waiter at once (another
             * thread at MULTIPLE).  Back at the head if it cannot go. */
            lc_list_remove(first);
            int rc = req->state == LC_ST_STREAMING ? lc_send_stream(req) : lc_send_first_packet(req);
            if (rc != LC_OK) {
                lc_list_push_back(peer->pending.next, first); /* before the new head: the head again */
                break;
            }
        }
        events++;
    }
    if (lc_list_empty(&peer->pending)) lc_count_add(&lc_pt2pt_pending_peers, -1);
    lc_tx_unlock(peer, held);
    return events;
}

int lc_pt2pt_drain_pending(int all)
{
    int events = 0;
    int n = lc_world.universe_size; /* peers added later may queue too */
    for (int i = 0; i < n && lc_count_get(&lc_pt2pt_pending_peers); i++) {
        lc_peer_t *peer = &lc_world.peers[i];
        if (!all && !lc_tx_lockable(peer)) continue; /* the section's (lc_progress_mt) */
        events += lc_drain_peer(peer);               /* looks at `pending` under the peer's lock */
    }
    return events;
}

lc_request_t *lc_pt2pt_wire_check(const lc_peer_t *from, uint32_t ref, lc_req_kind_t kind, unsigned states,
                                   const char **why_p)
{
    lc_request_t *req = lc_request_by_ref(ref);
    const char *why = NULL;
    if (!req)
        why = "no request of that name is in flight (unknown, or completed and freed)";
    else if (req->kind != kind)
        why = "it names a request of another kind";
    else if (req->peer != from)
        why = "it names a request issued to another rank";
    else if (!(states & LC_REQ_STATE_BIT(req->state)))
        why = "the request is not waiting for this packet";
    if (why) {
        *why_p = why;
        return NULL;
    }
    return req;
}

lc_request_t *lc_pt2pt_wire_request(const lc_peer_t *from, uint32_t ref, lc_req_kind_t kind, unsigned states,
                                    const char *pkt)
{
    const char *why;
    lc_request_t *req = lc_pt2pt_wire_check(from, ref, kind, states, &why);
    if (lc_unlikely(!req))
        lc_peer_fault(from, "its %s names %s request %#x: %s", pkt, kind == LC_REQ_SEND ? "send" : "receive", ref,
                      why);
    return req;
}

/* The state a control packet may find its send request in, and the peer
 * it must come from: a request that waits for nothing of that kind (one
 * still in a pending queue, say) is never completed or restarted by a
 * peer's packet.  (Which incarnation of a request a reference names is
 * the generation number's business: lc_pt2pt_wire_request.) */
void lc_pt2pt_on_sender_ctl(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    lc_pkt_ctl_t ctl;
    memcpy(&ctl, payload, sizeof(ctl));
    /* ACK answers a synchronous eager send; CTS and FIN an RTS. */
    bool ack = hdr->kind == LC_PKT_ACK;
    lc_request_t *req =
        lc_pt2pt_wire_request(from, ctl.sreq, LC_REQ_SEND, LC_REQ_STATE_BIT(ack ? LC_ST_WAIT_ACK : LC_ST_WAIT_RNDV),
                              ack ? "ACK" : hdr->kind == LC_PKT_CTS ? "CTS" : "FIN");
    if (hdr->kind != LC_PKT_CTS) { /* FIN or ACK: the receiver has the data */
        if (!ack) lc_pick_sent(from);
        lc_request_complete(req);
        return;
    }
    if (lc_unlikely(hdr->flags & LC_PKT_FLAG_SPLIT)) { /* push our part, or nothing if it is all taken */
        if (lc_pt2pt_split_send(from, req, hdr, ctl.rreq)) {
            lc_pick_sent(from);
            lc_request_complete(req);
        }
        return;
    }
    req->remote = ctl.rreq;
    req->pick_nt = (hdr->flags & LC_PKT_FLAG_NT) != 0;
    req->offset = 0;
    req->state = LC_ST_STREAMING;
    int held = lc_tx_lock(from);
    if (!lc_list_empty(&from->pending) || lc_send_stream(req) != LC_OK) lc_pt2pt_enqueue(from, &req->pend);
    lc_tx_unlock(from, held);
}

lc_request_t *lc_pt2pt_send_request(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                                    lc_send_mode_t mode)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_SEND);
    if (!req) return NULL;
    req->buf = (void *)buf;
    req->bytes = bytes;
    req->rank = dest;
    req->tag = tag;
    req->comm = comm;
    req->ctx_kind = (uint32_t)ctx_kind;
    req->mode = (uint8_t)mode;
    return req;
}

int lc_pt2pt_isend(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                   lc_send_mode_t mode, lc_request_t **req_p)
{
    lc_request_t *req = lc_pt2pt_send_request(buf, bytes, dest, tag, comm, ctx_kind, mode);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "cannot allocate a send request");
    *req_p = req;
    lc_pt2pt_send_start(req);
    return MPI_SUCCESS;
}

void lc_pt2pt_send_start(lc_request_t *req)
{
    int dest = req->rank;
    if (dest == MPI_PROC_NULL) {
        req->st_source = MPI_PROC_NULL;
        req->st_tag = MPI_ANY_TAG;
        lc_request_complete(req);
        return;
    }
    lc_peer_t *peer = req->comm->peers[dest];
    req->peer = peer;
    int held = lc_tx_lock(peer);
    if (!lc_list_empty(&peer->pending) || lc_send_first_packet(req) != LC_OK) lc_pt2pt_enqueue(peer, &req->pend);
    lc_tx_unlock(peer, held);
}

int lc_pt2pt_try_send(const void *pre, size_t prelen, const void *buf, size_t bytes, int dest, int tag,
                      lc_comm_t *comm, int ctx_kind)
{
    lc_peer_t *peer = comm->peers[dest];
    if (prelen + bytes > peer->eager_limit) return LC_AGAIN;
    lc_pkt_hdr_t hdr = {
        .kind = LC_PKT_EAGER,
        .tag = tag,
        .ctx = comm->ctx + (uint32_t)ctx_kind,
        .src = comm->rank,
    };
    int held = lc_tx_lock(peer);
    int rc = lc_list_empty(&peer->pending) && lc_try_send(peer, &hdr, pre, prelen, buf, bytes) == LC_OK ? MPI_SUCCESS
                                                                                                        : LC_AGAIN;
    lc_tx_unlock(peer, held);
    return rc;
}

LC_INLINE int lc_send_mt(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                         lc_send_mode_t mode, int mt)
{
    /* Fast path: a small standard send straight into the ring. */
    if (lc_likely(mode != LC_MODE_SYNC && dest >= 0)) {
        lc_peer_t *peer = comm->peers[dest];
        if (lc_likely(bytes <= peer->eager_limit)) {
            lc_pkt_hdr_t hdr = {
                .kind = LC_PKT_EAGER,
                .tag = tag,
                .ctx = comm->ctx + (uint32_t)ctx_kind,
                .src = comm->rank,
            };
            int held = mt ? lc_tx_lock(peer) : 0;
            int rc = lc_list_empty(&peer->pending) ? lc_try_send(peer, &hdr, NULL, 0, buf, bytes) : LC_AGAIN;
            lc_tx_unlock(peer, held);
            if (lc_likely(rc == LC_OK)) return MPI_SUCCESS;
        }
    }
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_isend(buf, bytes, dest, tag, comm, ctx_kind, mode, &req);
    if (rc != MPI_SUCCESS) return rc;
    return lc_pt2pt_wait_release(req, MPI_STATUS_IGNORE);
}

/* Instantiated twice, as the matching side's hot paths (lc_pt2pt_match.c),
 * and reached through lc_pt2pt_send_p (lc_pt2pt.h), set once. */
static int lc_send_st(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                      lc_send_mode_t mode)
{
    return lc_send_mt(buf, bytes, dest, tag, comm, ctx_kind, mode, 0);
}

static int lc_send_locked(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                          lc_send_mode_t mode)
{
    return lc_send_mt(buf, bytes, dest, tag, comm, ctx_kind, mode, 1);
}

int (*lc_pt2pt_send_p)(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                       lc_send_mode_t mode) = lc_send_st;

void lc_pt2pt_send_multiple(void)
{
    lc_pt2pt_send_p = lc_send_locked;
}
