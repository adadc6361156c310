/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_send.c — the send side: eager and rendezvous packets, the
 * per-peer pending queues, control packets (CTS/FIN/ACK) going out, and
 * the ones that come back to a sender (CTS, FIN, ACK).
 */
#include "channel/lc_shm.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "util/lc_error.h"
#include "util/lc_params.h"

#include <stdlib.h>
#include <string.h>

int lc_pt2pt_pending_peers;

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
    if (lc_list_empty(&peer->pending)) lc_pt2pt_pending_peers++;
    lc_list_push_back(&peer->pending, &p->link);
}

void lc_pt2pt_send_ctl(lc_peer_t *peer, lc_pkt_kind_t kind, uint32_t sreq, uint32_t rreq)
{
    lc_pt2pt_send_ctl_flags(peer, kind, 0, sreq, rreq);
}

void lc_pt2pt_send_ctl_flags(lc_peer_t *peer, lc_pkt_kind_t kind, uint8_t flags, uint32_t sreq, uint32_t rreq)
{
    lc_pkt_hdr_t hdr = { .kind = (uint8_t)kind, .flags = flags };
    lc_pkt_ctl_t ctl = { .sreq = sreq, .rreq = rreq };
    if (lc_list_empty(&peer->pending) && lc_try_send(peer, &hdr, &ctl, sizeof(ctl), NULL, 0) == LC_OK)
        return;
    lc_ctl_pending_t *c = malloc(sizeof(*c));
    if (!c) lc_fatal("out of memory queueing a control packet for rank %d", peer->world_rank);
    c->pend.is_ctl = 1;
    c->hdr = hdr;
    c->ctl = ctl;
    lc_pt2pt_enqueue(peer, &c->pend);
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
            hdr.sreq = lc_request_ref(req);
            req->state = LC_ST_WAIT_ACK;
        }
        if (lc_send_data(req, &hdr, NULL, 0, 0, req->bytes) != LC_OK) {
            req->state = LC_ST_EAGER_QUEUED;
            return LC_AGAIN;
        }
        if (!sync) lc_request_complete(req);
        return LC_OK;
    }
    hdr.kind = LC_PKT_RTS;
    lc_pkt_rts_t rts = { .size = req->bytes, .addr = (uint64_t)(uintptr_t)req->buf, .sreq = lc_request_ref(req) };
    if (lc_unlikely(req->peer->pick.calibrate)) /* the receiver times the protocol from here */
        rts.stamp_ns = (uint64_t)(lc_time_now() * 1e9);
    if (lc_unlikely(req->rcur != NULL)) { /* unpacked derived datatype: buf is its block list, if any */
        rts.nblocks = req->nblocks;
        hdr.flags = req->nblocks ? LC_PKT_FLAG_LIST : LC_PKT_FLAG_NOPULL;
    }
    req->state = LC_ST_WAIT_RNDV;
    if (lc_try_send(req->peer, &hdr, &rts, sizeof(rts), NULL, 0) != LC_OK) {
        req->state = LC_ST_RTS_QUEUED;
        return LC_AGAIN;
    }
    if (lc_unlikely(req->peer->pick.calibrate)) req->peer->pick.sending++; /* lc_pick_choose: an exchange */
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
    if (lc_unlikely(req->peer->pick.calibrate) && req->peer->pick.sending) req->peer->pick.sending--;
    lc_request_complete(req);
    return LC_OK;
}

static int lc_drain_peer(lc_peer_t *peer)
{
    int events = 0;
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
            int rc = req->state == LC_ST_STREAMING ? lc_send_stream(req) : lc_send_first_packet(req);
            if (rc != LC_OK) break;
            lc_list_remove(first);
        }
        events++;
    }
    if (lc_list_empty(&peer->pending)) lc_pt2pt_pending_peers--;
    return events;
}

int lc_pt2pt_drain_pending(void)
{
    int events = 0;
    int n = lc_world.universe_size; /* peers added later may queue too */
    for (int i = 0; i < n && lc_pt2pt_pending_peers; i++) {
        lc_peer_t *peer = &lc_world.peers[i];
        if (!lc_list_empty(&peer->pending)) events += lc_drain_peer(peer);
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
        if (!ack && lc_unlikely(from->pick.calibrate) && from->pick.sending) from->pick.sending--;
        lc_request_complete(req);
        return;
    }
    req->remote = ctl.rreq;
    req->pick_nt = (hdr->flags & LC_PKT_FLAG_NT) != 0;
    req->offset = 0;
    req->state = LC_ST_STREAMING;
    if (!lc_list_empty(&from->pending) || lc_send_stream(req) != LC_OK) lc_pt2pt_enqueue(from, &req->pend);
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
    req->peer = req->comm->peers[dest];
    if (!lc_list_empty(&req->peer->pending) || lc_send_first_packet(req) != LC_OK)
        lc_pt2pt_enqueue(req->peer, &req->pend);
}

int lc_pt2pt_try_send(const void *pre, size_t prelen, const void *buf, size_t bytes, int dest, int tag,
                      lc_comm_t *comm, int ctx_kind)
{
    lc_peer_t *peer = comm->peers[dest];
    if (prelen + bytes > peer->eager_limit || !lc_list_empty(&peer->pending)) return LC_AGAIN;
    lc_pkt_hdr_t hdr = {
        .kind = LC_PKT_EAGER,
        .tag = tag,
        .ctx = comm->ctx + (uint32_t)ctx_kind,
        .src = comm->rank,
    };
    return lc_try_send(peer, &hdr, pre, prelen, buf, bytes) == LC_OK ? MPI_SUCCESS : LC_AGAIN;
}

int lc_pt2pt_send(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                  lc_send_mode_t mode)
{
    /* Fast path: a small standard send straight into the ring. */
    if (lc_likely(mode != LC_MODE_SYNC && dest >= 0)) {
        lc_peer_t *peer = comm->peers[dest];
        if (lc_likely(bytes <= peer->eager_limit && lc_list_empty(&peer->pending))) {
            lc_pkt_hdr_t hdr = {
                .kind = LC_PKT_EAGER,
                .tag = tag,
                .ctx = comm->ctx + (uint32_t)ctx_kind,
                .src = comm->rank,
            };
            if (lc_likely(lc_try_send(peer, &hdr, NULL, 0, buf, bytes) == LC_OK)) return MPI_SUCCESS;
        }
    }
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_isend(buf, bytes, dest, tag, comm, ctx_kind, mode, &req);
    if (rc != MPI_SUCCESS) return rc;
    return lc_pt2pt_wait_release(req, MPI_STATUS_IGNORE);
}
