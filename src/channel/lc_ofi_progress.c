/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_progress.c — the receive side of the ofi channel and its part of
 * the progress engine: completions, in-order delivery per peer, credit
 * returns, and `pull` (fi_read of a rendezvous buffer; `pullv`, fi_readv
 * straight into a derived datatype's receive segments).
 *
 * Completions are read into a FIFO of arrived buffers before any is
 * delivered.  A delivery may call `pull`, which must read the completion
 * queue while it waits for its fi_read; arrivals it sees then are queued
 * behind the others instead of being delivered from inside a delivery, so
 * the engine's handler is never re-entered and packets keep their order.
 */
#include "channel/lc_ofi_impl.h"
#include "channel/lc_pkt_decode.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LC_OFI_CQ_BATCH 16
#define LC_OFI_POLL_BATCH 64 /* deliveries per poll: other channels get their turn */
/* A pull is cut into reads of LC_OFI_READ_CHUNK bytes, LC_OFI_READS of
 * them in flight: with tcp;ofi_rxm one 1 MiB read took ~580 us on
 * loopback, eight concurrent 128 KiB reads ~200 us (docs/ofi.md). */
#define LC_OFI_READS 8
#define LC_OFI_READ_CHUNK ((size_t)128 << 10)
/* Local segments of one read (fi_readv into a derived datatype's receive
 * buffer), capped further by the provider's tx iov_limit. */
#define LC_OFI_READ_IOV 16
/* Scatter reads only when each carries at least this much (not measured
 * yet: half a LC_OFI_READ_CHUNK; below it a bounce and a scatter). */
#define LC_OFI_READV_MIN ((size_t)64 << 10)

typedef struct lc_ofi_read {
    lc_ofi_ctx_t ctx;
    int busy;
    int failed;      /* libfabric error code of a failed read */
    char why[160];
    struct iovec iov[LC_OFI_READ_IOV]; /* its local segments, kept while it is in flight */
} lc_ofi_read_t;

int lc_ofi_post_rx(lc_ofi_buf_t *b)
{
    ssize_t rc = fi_recv(lc_ofi.ep, b->data, lc_ofi.slot, b->desc, FI_ADDR_UNSPEC, &b->ctx.fi);
    if (lc_likely(rc == 0)) return LC_OK;
    if (rc != -FI_EAGAIN)
        lc_fatal("network channel: cannot post a receive buffer (fi_recv: %s, %s)", lc_ofi_strerror(rc),
                 lc_ofi.describe);
    return LC_AGAIN;
}

/* Post the consumed buffers again.  A buffer that held a regular packet
 * of rank b->peer becomes a credit owed to that rank only now that it is
 * posted; buffers the provider refuses stay listed for the next poll. */
static LC_NOINLINE void lc_ofi_repost(void)
{
    while (lc_ofi.repost) {
        lc_ofi_buf_t *b = lc_ofi.repost;
        if (lc_ofi_post_rx(b) != LC_OK) return;
        lc_ofi.repost = b->next;
        if (b->peer < 0) continue;
        lc_peer_t *peer = &lc_ofi.peers[b->peer];
        if (++peer->ofi.owed >= lc_ofi.credit_threshold && !peer->ofi.state->credit_queued) {
            peer->ofi.state->credit_queued = 1;
            lc_ofi.credit_list[lc_ofi.ncredit++] = peer->world_rank;
        }
    }
}

static LC_NOINLINE void lc_ofi_cq_error(void)
{
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof(err));
    ssize_t n = fi_cq_readerr(lc_ofi.cq, &err, 0);
    if (n < 0) {
        if (n == -FI_EAGAIN) return;
        lc_fatal("network channel: cannot read the error completion (%s)", lc_ofi_strerror(n));
    }
    lc_ofi_ctx_t *ctx = err.op_context;
    char provmsg[256];
    provmsg[0] = 0;
    const char *pm = fi_cq_strerror(lc_ofi.cq, err.prov_errno, err.err_data, provmsg, sizeof(provmsg));
    if (!pm) pm = "";
    int peer = -1;
    const char *what = "an operation";
    if (ctx && ctx->type == LC_OFI_CTX_TX) {
        lc_ofi_buf_t *b = (lc_ofi_buf_t *)ctx;
        peer = b->peer;
        what = "a send";
        b->next = lc_ofi.tx_free;
        lc_ofi.tx_free = b;
        lc_ofi.tx_busy--;
    } else if (ctx && ctx->type == LC_OFI_CTX_READ) {
        /* The pull says which rank, and reports it to the engine. */
        lc_ofi_read_t *rd = (lc_ofi_read_t *)ctx;
        rd->busy = 0;
        rd->failed = err.err ? err.err : FI_EIO;
        snprintf(rd->why, sizeof(rd->why), "%s%s%s", fi_strerror(rd->failed), pm[0] ? ": " : "", pm);
        return;
    } else if (ctx && ctx->type == LC_OFI_CTX_RMA) {
        lc_ofi_rma_done(ctx, err.err ? err.err : FI_EIO, pm); /* the window's flush reports it */
        return;
    } else if (ctx && ctx->type == LC_OFI_CTX_RX) {
        what = "a receive";
        if (err.err == FI_ECANCELED || lc_ofi.closing) return;
    }
    if (lc_ofi.closing) return; /* a peer that left first; the goodbye deadline covers it */
    if (peer >= 0)
        lc_fatal("network channel: %s to rank %d (host %s) failed: %s %s. The rank or its host may have "
                 "died, or this host cannot reach it (%s): check the network between the hosts, or choose "
                 "the interface with LOCUS_OFI_IFACE", what, peer, lc_ofi.peers[peer].ofi.state ? lc_ofi.peers[peer].ofi.state->host : "?",
                 fi_strerror(err.err), pm, lc_ofi.describe);
    lc_fatal("network channel: %s failed: %s %s (%s)", what, fi_strerror(err.err), pm, lc_ofi.describe);
}

int lc_ofi_cq_drain(void)
{
    struct fi_cq_msg_entry e[LC_OFI_CQ_BATCH];
    fi_addr_t src[LC_OFI_CQ_BATCH];
    ssize_t n = lc_ofi.has_source ? fi_cq_readfrom(lc_ofi.cq, e, LC_OFI_CQ_BATCH, src)
                                  : fi_cq_read(lc_ofi.cq, e, LC_OFI_CQ_BATCH);
    if (lc_likely(n == -FI_EAGAIN)) return 0;
    if (n == -FI_EAVAIL) {
        lc_ofi_cq_error();
        return 1;
    }
    if (n < 0) lc_fatal("network channel: fi_cq_read: %s (%s)", lc_ofi_strerror(n), lc_ofi.describe);
    for (ssize_t i = 0; i < n; i++) {
        lc_ofi_ctx_t *ctx = e[i].op_context;
        if (!ctx) continue;
        switch (ctx->type) {
        case LC_OFI_CTX_RX: {
            lc_ofi_buf_t *b = (lc_ofi_buf_t *)ctx;
            b->len = (uint32_t)e[i].len;
            b->src = lc_ofi.has_source ? src[i] : FI_ADDR_NOTAVAIL;
            /* Never overflows: each posted buffer completes at most once
             * before it is delivered and posted again. */
            uint32_t tail = (lc_ofi.fifo_head + lc_ofi.fifo_count) % lc_ofi.nrx;
            lc_ofi.fifo[tail] = b;
            lc_ofi.fifo_count++;
            break;
        }
        case LC_OFI_CTX_TX: {
            lc_ofi_buf_t *b = (lc_ofi_buf_t *)ctx;
            b->next = lc_ofi.tx_free;
            lc_ofi.tx_free = b;
            lc_ofi.tx_busy--;
            break;
        }
        case LC_OFI_CTX_READ:
            ((lc_ofi_read_t *)ctx)->busy = 0;
            break;
        case LC_OFI_CTX_RMA:
            lc_ofi_rma_done(ctx, 0, NULL);
            break;
        }
    }
    return (int)n;
}

/* Delivered: the buffer goes back to the provider at the start of the
 * next poll (lc_ofi_repost), not now — fi_recv stays off the path between
 * a packet's arrival and the return of the receive it completes.  `owner`
 * is the rank to credit for it, -1 for a credit-only or goodbye packet
 * (those ride on the spare buffers and earn no credit). */
LC_INLINE void lc_ofi_consumed(lc_ofi_buf_t *b, int owner)
{
    b->peer = owner;
    b->next = lc_ofi.repost;
    lc_ofi.repost = b;
}

/* One packet whose turn it is, decoded first (lc_ofi_decode: its type,
 * and a PKT's header and lengths against what the provider delivered);
 * a malformed one ends the job (lc_peer_fault), never the rank alone. */
static void lc_ofi_deliver(lc_peer_t *peer, lc_ofi_buf_t *b)
{
    const lc_ofi_wire_t *w = (const lc_ofi_wire_t *)b->data;
    lc_pkt_in_t in;
    uint8_t type;
    char why[160];
    if (lc_unlikely(lc_ofi_decode(b->data, b->len, &type, &in, why, sizeof(why)) != NULL))
        lc_peer_fault(peer, "%s", why);
    peer->ofi.credits += w->credits;
    peer->ofi.rx_seq++;
    peer->ofi.state->reached = 1;
    switch (type) {
    case LC_OFI_WIRE_PKT: {
        /* The peer answered our RTS (read it, or asked for a stream): the
         * registration of that send buffer has served. */
        if ((in.hdr.kind == LC_PKT_FIN || in.hdr.kind == LC_PKT_CTS) && peer->ofi.state->exposed) {
            lc_pkt_ctl_t ctl;
            memcpy(&ctl, in.payload, sizeof(ctl));
            lc_ofi_unexpose(peer, ctl.sreq);
        }
        peer->ofi.state->talked = 1;
        if (lc_likely(!lc_ofi.closing)) lc_channel_recv_handler(peer, &in.hdr, in.payload);
        else lc_ofi.dropped_at_close++;
        lc_ofi_consumed(b, peer->world_rank);
        break;
    }
    case LC_OFI_WIRE_CREDIT:
        lc_ofi_consumed(b, -1);
        break;
    case LC_OFI_WIRE_BYE:
        peer->ofi.state->bye_received = 1;
        lc_ofi_consumed(b, -1);
        /* A peer of another job leaves (its MPI_Finalize): answer now,
         * so that it need not wait for our own finalize.  Nothing more
         * goes to it from here (a communicator still connected to it is
         * the program's error).  Peers of the job swap goodbyes at
         * close, as they all finalize together. */
        if ((int)peer->world_rank >= lc_ofi.size && !peer->ofi.state->bye_sent && !lc_ofi.closing &&
            lc_ofi_send_bare(peer, LC_OFI_WIRE_BYE) == LC_OK)
            peer->ofi.state->bye_sent = 1;
        break;
    case LC_OFI_WIRE_WELCOME: {
        lc_ofi_hello_body_t body;
        if (b->len < sizeof(*w) + sizeof(body))
            lc_peer_fault(peer, "a welcome of %u bytes, shorter than its body", b->len);
        memcpy(&body, b->data + sizeof(*w), sizeof(body));
        peer->ofi.remote_id = body.your_id;
        peer->ofi.state->welcomed = 1;
        peer->ofi.state->talked = 1;
        lc_ofi_consumed(b, peer->world_rank); /* it cost a credit */
        break;
    }
    default: /* HELLO comes only to a stranger buffer (lc_ofi_arrived) */
        lc_peer_fault(peer, "network packet type %u from a peer it has already met", (unsigned)w->type);
    }
}

_Static_assert(LC_PKT_OFI_WIRE == sizeof(lc_ofi_wire_t) && offsetof(lc_ofi_wire_t, type) == 7 &&
                   LC_PKT_OFI_WIRE_PKT == LC_OFI_WIRE_PKT && LC_PKT_OFI_WIRE_CREDIT == LC_OFI_WIRE_CREDIT &&
                   LC_PKT_OFI_WIRE_BYE == LC_OFI_WIRE_BYE && LC_PKT_OFI_WIRE_HELLO == LC_OFI_WIRE_HELLO &&
                   LC_PKT_OFI_WIRE_WELCOME == LC_OFI_WIRE_WELCOME,
               "lc_pkt_decode.h's view of a network packet is lc_ofi_impl.h's");

/* Held packets sit at seq & (ring - 1), ring a power of two >= window:
 * 2^16 is a multiple of it, so the slot of a sequence number stays the
 * same across the wrap of the 16-bit counter. */
static uint32_t lc_ofi_hold_ring(void)
{
    uint32_t r = 1;
    while (r < lc_ofi.window) r <<= 1;
    return r;
}

lc_ofi_stranger_fn *lc_ofi_stranger_hook;

/* A hello from a process we may not know: the MPI layer adds it as a
 * peer (connected through lc_ofi_connect: its receive buffers posted)
 * and we welcome it with our id for it.  The buffer was a stranger
 * buffer: it goes back without earning a credit. */
static LC_NOINLINE void lc_ofi_on_hello(lc_ofi_buf_t *b)
{
    const lc_ofi_wire_t *w = (const lc_ofi_wire_t *)b->data;
    lc_ofi_hello_body_t body;
    size_t off = sizeof(*w) + sizeof(body);
    if (b->len <= off || b->data[b->len - 1] != '\0') {
        lc_log_warn("network channel: ignored a malformed hello (%u bytes)", b->len);
        lc_ofi_consumed(b, -1);
        return;
    }
    memcpy(&body, b->data + sizeof(*w), sizeof(body));
    lc_peer_t *peer = lc_ofi_stranger_hook ? lc_ofi_stranger_hook(b->data + off, body.cookie) : NULL;
    lc_ofi_consumed(b, -1);
    if (!peer) return; /* the hook said why */
    peer->ofi.remote_id = body.your_id;
    lc_ofi_hello_body_t answer = { .your_id = (uint32_t)peer->world_rank, .cookie = body.cookie };
    while (lc_ofi_send_intro(peer, LC_OFI_WIRE_WELCOME, &answer, NULL) != LC_OK) {
        lc_ofi_cq_drain(); /* frees send buffers; arrivals queue behind this delivery */
        if (lc_ofi.yield_when_idle) sched_yield();
    }
}

/* A packet no peer of ours can be made to answer for: from a process
 * outside the address vector (the provider, asked for FI_SOURCE, names
 * no sender: another job's process, or any local user who reached our
 * port), or one whose sender we cannot name.  It is never delivered:
 * its buffer goes back without earning a credit, and the rank goes on —
 * ending the job would hand whoever can reach the port a switch that
 * stops it.  Said for the first few and then at every power of two, so
 * that a flood cannot fill the log.  No rank of the job sends from
 * outside the vector: wire-up and connect/accept insert every peer
 * before it may send (lc_ofi_admit, docs/security.md). */
static LC_NOINLINE void lc_ofi_stranger(lc_ofi_buf_t *b, const char *who)
{
    const lc_ofi_wire_t *w = (const lc_ofi_wire_t *)b->data;
    uint64_t n = ++lc_ofi.strangers;
    if (n <= 4 || (n & (n - 1)) == 0) {
        if (b->len >= sizeof(*w))
            lc_log_warn("network channel: dropped a packet of %u bytes (type %u, claiming to come from sender id %u) %s; "
                        "%llu dropped so far",
                        b->len, (unsigned)w->type, w->src, who, (unsigned long long)n);
        else
            lc_log_warn("network channel: dropped a packet of %u bytes %s; %llu dropped so far", b->len, who,
                        (unsigned long long)n);
    }
    lc_ofi_consumed(b, -1);
}

/* The peer (world or met later) the provider names as the sender of `b`
 * (FI_SOURCE), connected or only admitted; NULL if none. */
static const lc_peer_t *lc_ofi_sender(const lc_ofi_buf_t *b)
{
    for (uint32_t r = 0; r < lc_ofi.id_limit; r++) {
        const lc_peer_t *p = &lc_ofi.peers[r];
        if (p->kind == LC_CHANNEL_OFI && p->ofi.addr == b->src) return p;
    }
    for (int r = 0; r < lc_ofi.size; r++)
        if (lc_ofi.state[r].admitted && lc_ofi.state[r].admitted_addr == b->src) return &lc_ofi.peers[r];
    return NULL;
}

/* The provider says the packet came from another peer than the one its
 * header names (FI_SOURCE): the real sender forged it. */
static LC_NOINLINE void lc_ofi_impostor(lc_ofi_buf_t *b, const lc_peer_t *claimed)
{
    const lc_peer_t *p = lc_ofi_sender(b);
    if (p)
        lc_peer_fault(p, "its packet claims to come from rank %d (the provider says it came from rank %d)",
                      claimed->world_rank, p->world_rank);
    lc_ofi_stranger(b, "from an address in the address vector that is no current peer's");
}

/* The wire header's sender id names no connected peer, or the packet is
 * shorter than that header.  The provider tells who sent it (FI_SOURCE):
 * that peer's fault — it ends the job, cleanly; otherwise nobody can be
 * named and the packet is dropped. */
static LC_NOINLINE void lc_ofi_bad_sender(lc_ofi_buf_t *b)
{
    const lc_ofi_wire_t *w = (const lc_ofi_wire_t *)b->data;
    const lc_peer_t *p = lc_ofi.has_source ? lc_ofi_sender(b) : NULL;
    if (p && b->len < sizeof(*w))
        lc_peer_fault(p, "a network packet of %u bytes, shorter than its %zu-byte header", b->len, sizeof(*w));
    if (p)
        lc_peer_fault(p, "its network packet names sender id %u, which is no peer connected to rank %d", w->src,
                      lc_ofi.rank);
    lc_ofi_stranger(b, lc_ofi.has_source ? "from an address in the address vector that is no current peer's"
                                         : "naming no connected peer as its sender (the provider does not say who "
                                           "sent it: no FI_SOURCE)");
}

void lc_ofi_arrived(lc_ofi_buf_t *b)
{
    const lc_ofi_wire_t *w = (const lc_ofi_wire_t *)b->data;
    if (lc_unlikely(b->len >= sizeof(*w) && w->type == LC_OFI_WIRE_HELLO)) {
        lc_ofi_on_hello(b);
        return;
    }
    if (lc_unlikely(lc_ofi.has_source && b->src == FI_ADDR_NOTAVAIL)) {
        lc_ofi_stranger(b, "from a process outside the address vector (no peer of this rank: another process "
                           "reached this rank's network endpoint)");
        return;
    }
    if (lc_unlikely(b->len < sizeof(*w) || w->src >= lc_ofi.id_limit ||
                    lc_ofi.peers[w->src].kind != LC_CHANNEL_OFI)) {
        lc_ofi_bad_sender(b);
        return;
    }
    lc_peer_t *peer = &lc_ofi.peers[w->src];
    if (lc_unlikely(b->src != FI_ADDR_NOTAVAIL && b->src != peer->ofi.addr)) {
        lc_ofi_impostor(b, peer);
        return;
    }
    lc_ofi_peer_t *st = peer->ofi.state;
    if (lc_likely(w->seq == peer->ofi.rx_seq)) {
        lc_ofi_deliver(peer, b);
        if (lc_likely(st->nheld == 0)) return;
        /* The packet that opened a gap came: deliver what waited on it. */
        uint32_t mask = lc_ofi_hold_ring() - 1;
        for (;;) {
            lc_ofi_buf_t **slot = &st->held[peer->ofi.rx_seq & mask];
            lc_ofi_buf_t *next = *slot;
            if (!next) break;
            *slot = NULL;
            st->nheld--;
            lc_ofi_deliver(peer, next);
        }
        return;
    }
    /* Ahead of its turn: only a provider without send-after-send order
     * does that, and never by more than the window. */
    uint16_t ahead = (uint16_t)(w->seq - peer->ofi.rx_seq);
    if (ahead >= lc_ofi.window)
        lc_peer_fault(peer, "packet number %u while %u was due (beyond the reorder window of %u)", (unsigned)w->seq,
                      (unsigned)peer->ofi.rx_seq, (unsigned)lc_ofi.window);
    uint32_t ring = lc_ofi_hold_ring();
    if (!st->held) {
        st->held = calloc(ring, sizeof(*st->held));
        if (!st->held) lc_fatal("out of memory for the reorder window of rank %d", peer->world_rank);
    }
    st->held[w->seq & (ring - 1)] = b;
    st->nheld++;
}

int lc_ofi_poll(void)
{
    if (lc_ofi.repost) lc_ofi_repost();
    lc_ofi_cq_drain();
    if (lc_ofi.delivering) return 0; /* from inside a delivery: the outer poll delivers */
    int n = 0;
    if (lc_ofi.fifo_count) {
        lc_ofi.delivering = 1;
        while (lc_ofi.fifo_count && n < LC_OFI_POLL_BATCH) {
            lc_ofi_buf_t *b = lc_ofi.fifo[lc_ofi.fifo_head];
            lc_ofi.fifo_head = (lc_ofi.fifo_head + 1) % lc_ofi.nrx;
            lc_ofi.fifo_count--;
            lc_ofi_arrived(b);
            n++;
        }
        lc_ofi.delivering = 0;
    }
    if (lc_ofi.ncredit) lc_ofi_flush_credits();
    return n;
}

/* ---- pull ------------------------------------------------------------- */

/* Where the next read starts: segment `i` of the local iovec, `off` bytes in. */
typedef struct lc_ofi_iov_pos {
    int i;
    size_t off;
} lc_ofi_iov_pos_t;

/* The pieces of the next read: at most `max` segments and `chunk` bytes
 * from *pos on, within `left` bytes; *pos moves past them. */
static int lc_ofi_read_pieces(const struct iovec *local, int nlocal, lc_ofi_iov_pos_t *pos, size_t chunk, size_t left,
                              int max, struct iovec *out, size_t *bytes_p)
{
    int k = 0;
    size_t bytes = 0;
    while (k < max && bytes < chunk && bytes < left && pos->i < nlocal) {
        size_t n = local[pos->i].iov_len - pos->off;
        if (n > chunk - bytes) n = chunk - bytes;
        if (n > left - bytes) n = left - bytes;
        if (n) {
            out[k].iov_base = (char *)local[pos->i].iov_base + pos->off;
            out[k].iov_len = n;
            k++;
            bytes += n;
        }
        pos->off += n;
        if (pos->off == local[pos->i].iov_len) {
            pos->i++;
            pos->off = 0;
        }
    }
    *bytes_p = bytes;
    return k;
}

/* len bytes of the peer's registered memory at `remote` (key `key`) into
 * the local segments, which `desc` covers (NULL unless FI_MR_LOCAL): reads
 * of at most LC_OFI_READ_CHUNK bytes and the provider's iov_limit
 * segments each (fi_readv), LC_OFI_READS of them in flight. */
static int lc_ofi_read_iov(lc_peer_t *peer, const struct iovec *local, int nlocal, uint64_t remote, uint64_t key,
                           size_t len, void *desc)
{
    size_t chunk = lc_ofi.info->ep_attr->max_msg_size;
    if (chunk > LC_OFI_READ_CHUNK) chunk = LC_OFI_READ_CHUNK;
    int max = lc_ofi.info->tx_attr->iov_limit < LC_OFI_READ_IOV ? (int)lc_ofi.info->tx_attr->iov_limit
                                                                 : LC_OFI_READ_IOV;
    if (max < 1) max = 1;
    void *descs[LC_OFI_READ_IOV];
    for (int i = 0; i < max; i++) descs[i] = desc;
    lc_ofi_read_t rd[LC_OFI_READS];
    memset(rd, 0, sizeof(rd));
    lc_ofi_iov_pos_t pos = { 0, 0 };
    size_t off = 0;
    int failed = 0, busy;
    const char *why = NULL;
    do {
        /* Keep up to LC_OFI_READS reads in flight. */
        for (int i = 0; i < LC_OFI_READS && off < len && !failed; i++) {
            if (rd[i].busy) continue;
            lc_ofi_iov_pos_t at = pos;
            size_t n = 0;
            int k = lc_ofi_read_pieces(local, nlocal, &pos, chunk, len - off, max, rd[i].iov, &n);
            if (!k) { /* the caller's segments end before len */
                why = "internal: the receive buffer's segments are shorter than the message";
                failed = 1;
                break;
            }
            rd[i].ctx.type = LC_OFI_CTX_READ;
            ssize_t rc = k == 1 ? fi_read(lc_ofi.ep, rd[i].iov[0].iov_base, n, desc, peer->ofi.addr, remote + off,
                                          key, &rd[i].ctx.fi)
                                : fi_readv(lc_ofi.ep, rd[i].iov, descs, (size_t)k, peer->ofi.addr, remote + off, key,
                                           &rd[i].ctx.fi);
            if (rc == -FI_EAGAIN) {
                pos = at;
                break;
            }
            if (rc) {
                why = lc_ofi_strerror(rc);
                failed = 1;
                break;
            }
            rd[i].busy = 1;
            off += n;
        }
        int got = lc_ofi_cq_drain();
        busy = 0;
        for (int i = 0; i < LC_OFI_READS; i++) {
            busy |= rd[i].busy;
            if (rd[i].failed && !failed) {
                failed = 1;
                why = rd[i].why;
            }
        }
        if (!got && busy) {
            if (lc_ofi.yield_when_idle) sched_yield();
            else lc_cpu_relax();
        }
    } while (busy || (off < len && !failed));
    if (failed)
        lc_log_error("network channel: reading a %zu-byte message from rank %d (host %s) failed: %s. The rank "
                     "or its host may have died, or the connection was lost", len, peer->world_rank,
                     peer->ofi.state->host, why ? why : "?");
    return failed ? LC_ERROR : LC_OK;
}

int lc_ofi_pull(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len)
{
    if (!lc_ofi.can_rma) return lc_channel_pull_unsupported(peer, local, remote, key, len);
    struct fid_mr *mr = NULL;
    void *desc = NULL;
    if (lc_ofi.mr_local) {
        int rc = lc_ofi_mr_reg(local, len, FI_READ, &mr);
        if (rc) {
            lc_log_error("network channel: cannot register the %zu-byte receive buffer for fi_read from "
                         "rank %d (fi_mr_reg: %s)", len, peer->world_rank, lc_ofi_strerror(rc));
            return LC_ERROR;
        }
        desc = fi_mr_desc(mr);
    }
    struct iovec one = { .iov_base = local, .iov_len = len };
    int rc = lc_ofi_read_iov(peer, &one, 1, remote, key, len, desc);
    if (mr) fi_close(&mr->fid);
    return rc;
}

int lc_ofi_pullv(lc_peer_t *peer, const struct iovec *local, int niov, uint64_t remote, uint64_t key, size_t len)
{
    if (!lc_ofi.can_rma) return LC_ERROR; /* can_pull is false then: never called */
    /* Straight into the segments when each read still carries at least
     * LC_OFI_READV_MIN bytes (iov_limit is 4 for tcp and net: a read per
     * 4 segments, and on tcp a read is a request and a response).
     * FI_MR_LOCAL: a registration per segment would cost more than it
     * saves.  Else read into one bounce and scatter (a copy in memory
     * costs little next to the network). */
    size_t per_read = niov ? len / (size_t)niov * (lc_ofi.info->tx_attr->iov_limit < LC_OFI_READ_IOV
                                                       ? lc_ofi.info->tx_attr->iov_limit
                                                       : LC_OFI_READ_IOV)
                           : len;
    if (!lc_ofi.mr_local && per_read >= LC_OFI_READV_MIN)
        return lc_ofi_read_iov(peer, local, niov, remote, key, len, NULL);
    char *tmp = malloc(len ? len : 1);
    if (!tmp) {
        lc_log_error("network channel: out of memory for a %zu-byte bounce buffer of a read from rank %d", len,
                     peer->world_rank);
        return LC_ERROR;
    }
    int rc = lc_ofi_pull(peer, tmp, remote, key, len);
    for (size_t i = 0, off = 0; rc == LC_OK && i < (size_t)niov && off < len; off += local[i].iov_len, i++)
        memcpy(local[i].iov_base, tmp + off, local[i].iov_len < len - off ? local[i].iov_len : len - off);
    free(tmp);
    return rc;
}
