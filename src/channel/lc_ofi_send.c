/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_send.c — the send side of the ofi channel: one packet per
 * try_send, inject for the tiny ones, a bounce buffer otherwise; credit
 * and goodbye packets; registration of rendezvous send buffers.
 *
 * Nothing here allocates or waits: out of credits, out of bounce buffers
 * or a provider queue that is full all return LC_AGAIN, and the engine
 * retries from lc_progress (which also drives the provider).
 */
#include "channel/lc_ofi_impl.h"

#include <stdlib.h>
#include <string.h>

/* Everything we owe the peer rides along (at most what the 8-bit field
 * holds; credits are capped at 255 so that is all of it). */
LC_INLINE uint8_t lc_ofi_owed_now(const lc_peer_t *peer)
{
    return (uint8_t)(peer->ofi.owed > 255 ? 255 : peer->ofi.owed);
}

LC_INLINE void lc_ofi_sent(lc_peer_t *peer, uint8_t credits)
{
    peer->ofi.tx_seq++;
    peer->ofi.owed -= credits;
    peer->ofi.state->talked = 1;
    peer->ofi.state->reached = 1;
}

static LC_NOINLINE void lc_ofi_send_failed(const lc_peer_t *peer, ssize_t rc)
{
    lc_fatal("network channel: sending to rank %d (host %s) failed: %s (%s). The rank or its host may have "
             "died, or this host cannot reach it: check the network between the hosts, or choose the "
             "interface with LOCUS_OFI_IFACE", peer->world_rank, peer->ofi.state->host, lc_ofi_strerror(rc),
             lc_ofi.describe);
}

/* Register the buffer an RTS names so the peer can fi_read it, and put
 * the key (and, without FI_MR_VIRT_ADDR, the offset 0) into the RTS. */
static int lc_ofi_expose(lc_peer_t *peer, lc_pkt_rts_t *rts)
{
    lc_ofi_exposed_t *e = malloc(sizeof(*e));
    if (!e) lc_fatal("out of memory registering a rendezvous buffer for rank %d", peer->world_rank);
    int rc = lc_ofi_mr_reg((const void *)(uintptr_t)rts->addr, rts->size, FI_REMOTE_READ, &e->mr);
    if (rc)
        lc_fatal("network channel: cannot register the %llu-byte send buffer at %p for rank %d to read "
                 "(fi_mr_reg: %s); set LOCUS_OFI_RMA=0 to stream large messages through bounce buffers "
                 "instead", (unsigned long long)rts->size, (void *)(uintptr_t)rts->addr, peer->world_rank,
                 lc_ofi_strerror(rc));
    e->sreq = rts->sreq;
    e->next = peer->ofi.state->exposed;
    peer->ofi.state->exposed = e;
    rts->key = fi_mr_key(e->mr);
    if (!lc_ofi.mr_virt_addr) rts->addr = 0;
    return 0;
}

void lc_ofi_unexpose(lc_peer_t *peer, uint32_t sreq)
{
    for (lc_ofi_exposed_t **pp = &peer->ofi.state->exposed; *pp; pp = &(*pp)->next) {
        lc_ofi_exposed_t *e = *pp;
        if (e->sreq != sreq) continue;
        *pp = e->next;
        fi_close(&e->mr->fid);
        free(e);
        return;
    }
}

/* An RTS that could not leave: its registration goes too (the engine
 * will try the whole packet again). */
static void lc_ofi_unexpose_last(lc_peer_t *peer)
{
    lc_ofi_exposed_t *e = peer->ofi.state->exposed;
    peer->ofi.state->exposed = e->next;
    fi_close(&e->mr->fid);
    free(e);
}

static inline void lc_ofi_fill(char *buf, const lc_ofi_wire_t *w, const lc_pkt_hdr_t *hdr, const void *pre,
                               size_t prelen, const void *data, size_t datalen)
{
    memcpy(buf, w, sizeof(*w));
    lc_pkt_hdr_t *h = (lc_pkt_hdr_t *)(buf + sizeof(*w));
    *h = *hdr;
    h->len = (uint32_t)(prelen + datalen);
    char *payload = buf + LC_OFI_HDR;
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen) memcpy(payload + prelen, data, datalen);
}

int lc_ofi_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                    const void *data, size_t datalen)
{
    if (lc_unlikely(peer->ofi.credits == 0)) return LC_AGAIN;
    size_t len = LC_OFI_HDR + prelen + datalen;
    lc_ofi_wire_t w = { .src = peer->ofi.remote_id, .seq = peer->ofi.tx_seq,
                        .credits = lc_ofi_owed_now(peer), .type = LC_OFI_WIRE_PKT };
    lc_pkt_rts_t rts;
    int exposed = 0;
    if (hdr->kind == LC_PKT_RTS && lc_ofi.can_rma) {
        memcpy(&rts, pre, sizeof(rts));
        lc_ofi_expose(peer, &rts);
        pre = &rts;
        exposed = 1;
    }
    ssize_t rc;
    if (len <= lc_ofi.inject_size) {
        /* Tiny packet: the provider copies it, no completion, no buffer. */
        char buf[256] LC_ALIGNED(8);
        lc_ofi_fill(buf, &w, hdr, pre, prelen, data, datalen);
        rc = fi_inject(lc_ofi.ep, buf, len, peer->ofi.addr);
    } else {
        lc_ofi_buf_t *b = lc_ofi.tx_free;
        if (lc_unlikely(!b)) {
            rc = -FI_EAGAIN;
        } else {
            lc_ofi_fill(b->data, &w, hdr, pre, prelen, data, datalen);
            b->peer = peer->world_rank;
            rc = fi_send(lc_ofi.ep, b->data, len, lc_ofi.tx_desc, peer->ofi.addr, &b->ctx.fi);
            if (rc == 0) {
                lc_ofi.tx_free = b->next;
                lc_ofi.tx_busy++;
            }
        }
    }
    if (lc_unlikely(rc != 0)) {
        if (exposed) lc_ofi_unexpose_last(peer);
        if (rc != -FI_EAGAIN) lc_ofi_send_failed(peer, rc);
        if (!peer->ofi.state->reached) lc_ofi_stalled(peer);
        return LC_AGAIN;
    }
    peer->ofi.credits--;
    lc_ofi_sent(peer, w.credits);
    return LC_OK;
}

int lc_ofi_send_bare(lc_peer_t *peer, uint8_t type)
{
    lc_ofi_wire_t w = { .src = peer->ofi.remote_id, .seq = peer->ofi.tx_seq,
                        .credits = lc_ofi_owed_now(peer), .type = type };
    ssize_t rc;
    if (type == LC_OFI_WIRE_BYE) {
        /* A tracked send: its completion tells the closing endpoint that
         * the goodbye (and all before it) left. */
        lc_ofi_buf_t *b = lc_ofi.tx_free;
        if (!b) return LC_AGAIN;
        memcpy(b->data, &w, sizeof(w));
        b->peer = peer->world_rank;
        rc = fi_send(lc_ofi.ep, b->data, sizeof(w), lc_ofi.tx_desc, peer->ofi.addr, &b->ctx.fi);
        if (rc == 0) {
            lc_ofi.tx_free = b->next;
            lc_ofi.tx_busy++;
        }
    } else {
        rc = fi_inject(lc_ofi.ep, &w, sizeof(w), peer->ofi.addr);
    }
    if (rc == -FI_EAGAIN) {
        if (!peer->ofi.state->reached) lc_ofi_stalled(peer);
        return LC_AGAIN;
    }
    if (rc) {
        if (lc_ofi.closing) return LC_OK; /* the peer is gone: nothing left to say */
        lc_ofi_send_failed(peer, rc);
    }
    lc_ofi_sent(peer, w.credits);
    return LC_OK;
}

int lc_ofi_send_intro(lc_peer_t *peer, uint8_t type, const lc_ofi_hello_body_t *body, const char *text)
{
    bool hello = type == LC_OFI_WIRE_HELLO;
    /* A welcome is the first packet of its pair and costs a credit (the
     * receiver credits it back); a hello lands in a stranger buffer. */
    if (!hello && peer->ofi.credits == 0) return LC_AGAIN;
    lc_ofi_wire_t w = { .src = hello ? UINT32_MAX : peer->ofi.remote_id, .seq = hello ? 0 : peer->ofi.tx_seq,
                        .credits = hello ? 0 : lc_ofi_owed_now(peer), .type = type };
    size_t tlen = text ? strlen(text) + 1 : 0, len = sizeof(w) + sizeof(*body) + tlen;
    if (len > lc_ofi.slot) lc_fatal("network channel: an address of %zu bytes does not fit a packet", tlen);
    lc_ofi_buf_t *b = lc_ofi.tx_free;
    if (!b) return LC_AGAIN;
    memcpy(b->data, &w, sizeof(w));
    memcpy(b->data + sizeof(w), body, sizeof(*body));
    if (tlen) memcpy(b->data + sizeof(w) + sizeof(*body), text, tlen);
    b->peer = peer->world_rank;
    ssize_t rc = fi_send(lc_ofi.ep, b->data, len, lc_ofi.tx_desc, peer->ofi.addr, &b->ctx.fi);
    if (rc == -FI_EAGAIN) {
        if (!peer->ofi.state->reached) lc_ofi_stalled(peer);
        return LC_AGAIN;
    }
    if (rc) lc_ofi_send_failed(peer, rc);
    lc_ofi.tx_free = b->next;
    lc_ofi.tx_busy++;
    if (!hello) {
        peer->ofi.credits--;
        lc_ofi_sent(peer, w.credits);
    }
    return LC_OK;
}

void lc_ofi_flush_credits(void)
{
    int keep = 0;
    for (int i = 0; i < lc_ofi.ncredit; i++) {
        lc_peer_t *peer = &lc_ofi.peers[lc_ofi.credit_list[i]];
        /* A packet since queueing may have carried them already; after
         * our goodbye the peer expects nothing more. */
        if (peer->ofi.owed < lc_ofi.credit_threshold || peer->ofi.state->bye_sent ||
            lc_ofi_send_bare(peer, LC_OFI_WIRE_CREDIT) == LC_OK) {
            peer->ofi.state->credit_queued = 0;
            continue;
        }
        lc_ofi.credit_list[keep++] = lc_ofi.credit_list[i];
    }
    lc_ofi.ncredit = keep;
}
