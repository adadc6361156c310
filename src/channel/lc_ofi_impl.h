/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_impl.h — state shared by the files of the ofi channel only
 * (lc_ofi_ep.c: setup and teardown; lc_ofi_send.c: try_send and the
 * registration of rendezvous buffers; lc_ofi_progress.c: completions,
 * delivery, credit returns, pull).
 *
 * Wire format of a packet (one FI_MSG message into one bounce buffer):
 *
 *   lc_ofi_wire_t (8 B) | lc_pkt_hdr_t (24 B) | payload (<= packet size)
 *
 * Credit-only and goodbye packets are the 8-byte wire header alone.
 *
 * Flow-control invariant, per (sender S, receiver R) and credit limit C:
 *   credits S may spend + S's packets not yet consumed by R
 *   + credits R owes S + credits in flight from R to S            == C
 * R posts C + 2 buffers per peer into one shared receive pool.  Regular
 * packets need a credit.  A credit-only packet needs none: R sends one
 * only when it owes at least ceil(C/2), and carries all it owes, so by
 * the invariant at most two can be unprocessed at S at any time — the
 * "+ 2".  A delivered packet's buffer is posted again at the start of the
 * next poll, and only a posted buffer is credited back, so no buffer is
 * ever missing for a packet that may arrive.  (Two unposted credit-only
 * buffers are the most there can be: a third credit packet needs packets
 * that need the credits of the second, delivered by a poll that first
 * posts the buffer of the first.)
 */
#ifndef LC_OFI_IMPL_H
#define LC_OFI_IMPL_H

#include "channel/lc_ofi.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define LC_OFI_FI_VERSION FI_VERSION(1, 9)

/* libfabric is loaded on first use (lc_ofi_dl.c): NULL once it is, else
 * why it could not be (the loader's message). */
const char *lc_ofi_dl_why(void);

enum lc_ofi_wire_type {
    LC_OFI_WIRE_PKT = 1, /* an engine packet follows */
    LC_OFI_WIRE_CREDIT,  /* credits only; uses no credit */
    LC_OFI_WIRE_BYE,     /* the sender closes: nothing follows from it */
    LC_OFI_WIRE_HELLO,   /* a process of another job introduces itself (lc_ofi_hello): not
                          * sequenced, no credit, lands in a stranger buffer */
    LC_OFI_WIRE_WELCOME, /* the answer to a hello: the first packet of the pair, costs a credit */
};

/* What follows the wire header of a hello (then the sender's address
 * text, NUL-terminated) and of a welcome. */
typedef struct lc_ofi_hello_body {
    uint32_t your_id; /* the id the sender gave the receiver (the `src` to use) */
    uint32_t cookie;  /* the caller's (the MPI layer: the port id) */
} lc_ofi_hello_body_t;

/* Receive buffers kept posted for hellos of processes we do not know yet. */
#define LC_OFI_STRANGER_BUFS 8

typedef struct lc_ofi_wire {
    uint32_t src;     /* the sender's id in the receiver's table (its world rank within a job) */
    uint16_t seq;     /* per (sender, receiver) packet number, mod 2^16 */
    uint8_t credits;  /* receive buffers of ours the sender has freed */
    uint8_t type;     /* lc_ofi_wire_type */
} lc_ofi_wire_t;

#define LC_OFI_HDR (sizeof(lc_ofi_wire_t) + sizeof(lc_pkt_hdr_t))
/* Smallest packet payload the receive-pool budget shrinks packets to
 * before it shrinks credits (LOCUS_OFI_EAGER_LIMIT may set less). */
#define LC_OFI_PACKET_FLOOR ((size_t)16 << 10)
_Static_assert(LC_OFI_HDR == 32, "ofi packet header must be 32 bytes (payload 8-byte aligned)");

/* What a completion's context points at.  Every context begins with the
 * provider's scratch space (FI_CONTEXT2 mode) and then our type. */
enum lc_ofi_ctx_type { LC_OFI_CTX_RX = 1, LC_OFI_CTX_TX, LC_OFI_CTX_READ, LC_OFI_CTX_RMA };

typedef struct lc_ofi_ctx {
    struct fi_context2 fi;
    uint8_t type;
} lc_ofi_ctx_t;

/* One bounce buffer (receive or send). */
typedef struct lc_ofi_buf {
    lc_ofi_ctx_t ctx;
    int peer;                /* tx: destination rank (diagnostics); rx on the repost
                              * list: rank to credit once posted, -1 none */
    uint32_t len;            /* rx: bytes received */
    fi_addr_t src;           /* rx: the sender as the provider knows it (FI_SOURCE), or
                              * FI_ADDR_NOTAVAIL (no FI_SOURCE, or a sender not in the AV) */
    struct lc_ofi_buf *next; /* tx: free list; rx: repost list */
    char *data;
    void *desc;              /* rx: the registration of its block (FI_MR_LOCAL) */
} lc_ofi_buf_t;

/* A send buffer registered for the peer to fi_read (rendezvous). */
typedef struct lc_ofi_exposed {
    struct lc_ofi_exposed *next;
    uint32_t sreq;
    struct fid_mr *mr;
} lc_ofi_exposed_t;

/* Per-peer state beyond the hot fields in lc_peer_t. */
typedef struct lc_ofi_peer {
    char host[64];
    unsigned char addr[128];  /* the peer's endpoint address (probe, diagnostics) */
    uint32_t addrlen;
    uint8_t reached;          /* the provider took a packet for it, or one came from it */
    double stall_since;       /* first refusal before `reached` (0: none) */
    double next_check;
    lc_ofi_buf_t **held;      /* [window]: packets that arrived ahead of their turn */
    uint32_t nheld;
    lc_ofi_exposed_t *exposed;
    uint8_t credit_queued;    /* on the credit-return list */
    uint8_t talked;           /* a packet went either way: say goodbye at close */
    uint8_t bye_sent, bye_received;
    uint8_t welcomed;         /* a peer met after wire-up answered our hello */
    uint8_t retired;          /* a process that left: a new one took its address (lc_ofi_connect) */
    uint64_t incarnation;     /* the peer endpoint's random id (its address text) */
    uint8_t admitted;         /* world peer: its address is in the AV (lc_ofi_admit), connected or not */
    fi_addr_t admitted_addr;  /* ... under this fi_addr (lc_ofi_connect reuses it) */
    lc_peer_t *peer;          /* the table entry this state belongs to (set at connect) */
    struct lc_ofi_peer *next_added; /* peers met after wire-up (state allocated one by one) */
} lc_ofi_peer_t;

/* A block of receive buffers (the first at open, one more per peer met
 * after wire-up). */
typedef struct lc_ofi_rxblock {
    struct lc_ofi_rxblock *next;
    char *pool;
    lc_ofi_buf_t *bufs;
    uint32_t n;
    struct fid_mr *mr;
    void *desc;
} lc_ofi_rxblock_t;

typedef struct lc_ofi {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    char describe[256];

    /* Memory registration requirements of the provider. */
    int mr_local, mr_virt_addr, mr_prov_key, mr_endpoint;
    unsigned mr_key_bytes;    /* width of the keys we choose (no FI_MR_PROV_KEY): random (lc_ofi_ep.c) */
    struct fid_mr *tx_mr;
    void *tx_desc;

    size_t inject_size;
    size_t packet;            /* payload bytes per packet */
    size_t slot;              /* bytes per bounce buffer: LC_OFI_HDR + packet */
    uint32_t credits;         /* C */
    uint32_t window;          /* C + 2: most packets of one peer that can be unconsumed */
    uint32_t credit_threshold;/* ceil(C/2) */
    int can_rma;
    int can_write;            /* window RMA too: FI_WRITE, FI_REMOTE_WRITE, FI_REMOTE_READ */
    int has_source;           /* the provider tells each packet's sender (FI_SOURCE) */
    size_t rma_threshold;
    int yield_when_idle;

    lc_peer_t *peers;
    int rank, size;
    lc_ofi_peer_t *state;     /* [size]: world peers; peers met later: added_states */
    lc_ofi_peer_t *added_states;
    int nadded;               /* peers met after wire-up */
    uint32_t id_limit;        /* above every connected peer's id (the table is bigger) */
    char my_addr[LC_OFI_ADDR_TEXT_MAX];
    uint64_t incarnation;     /* random, never 0: tells this endpoint from an earlier one at the same address */

    lc_ofi_rxblock_t *rx_blocks;
    uint32_t nrx;             /* receive buffers in all blocks (also the fifo's capacity) */
    lc_ofi_buf_t *repost;     /* delivered buffers, posted again by the next poll */

    char *tx_pool;
    lc_ofi_buf_t *tx_bufs, *tx_free;
    uint32_t ntx, tx_busy;

    /* Arrived receive buffers in completion order, not yet delivered
     * (a pull reads completions while a delivery is in progress). */
    lc_ofi_buf_t **fifo;
    uint32_t fifo_head, fifo_count;
    int delivering;

    int *credit_list;         /* peers owing an explicit credit packet */
    int ncredit, credit_cap;

    double connect_timeout;   /* s: see lc_ofi_stalled */
    int closing;              /* teardown: engine packets are no longer delivered */
    uint64_t strangers;       /* packets dropped: from outside the AV, or from no peer we can name */
    uint64_t dropped_at_close;
} lc_ofi_t;

extern lc_ofi_t lc_ofi;

/* Read what the completion queue holds: send buffers are freed, reads
 * counted, arrived receive buffers appended to the fifo.  Fatal (with the
 * peer named) on an error completion.  Returns completions read. */
int lc_ofi_cq_drain(void);

/* A receive buffer `b` (b->len bytes) arrived: deliver it if it is its
 * sender's next packet (then whatever waited behind it), else hold it
 * until its turn.  Delivery consumes the buffer (posts it again). */
void lc_ofi_arrived(lc_ofi_buf_t *b);

/* Post one receive buffer (again).  LC_OK, or LC_AGAIN if the provider
 * has no room now; fatal on any other error. */
int lc_ofi_post_rx(lc_ofi_buf_t *b);

/* The ops table entries (lc_channel_ofi_ops is in lc_ofi_ep.c). */
int lc_ofi_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                    const void *data, size_t datalen);
int lc_ofi_pull(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len);
/* The ops-table pullv: the same read scattered into local segments
 * (fi_readv, up to the provider's iov_limit per read). */
int lc_ofi_pullv(lc_peer_t *peer, const struct iovec *local, int niov, uint64_t remote, uint64_t key, size_t len);

/* The provider refused a packet to `peer` although it holds credits:
 * before the first packet got through this is connection set-up, which
 * may wait for a busy peer, or a peer that cannot be reached.  After
 * LOCUS_OFI_CONNECT_TIMEOUT s, probe its address and end the process
 * with a clear message if nothing answers there. */
void lc_ofi_stalled(lc_peer_t *peer);

/* Text form of a peer's address ("192.0.2.3:41234") for messages. */
void lc_ofi_addr_text(const lc_ofi_peer_t *st, char *out, size_t len);

/* Send a wire header alone (credit or goodbye).  LC_OK or LC_AGAIN. */
int lc_ofi_send_bare(lc_peer_t *peer, uint8_t type);
/* A hello or welcome: the wire header and `body` (+ `text`, NUL included,
 * may be NULL) in a tracked send buffer.  LC_OK or LC_AGAIN. */
int lc_ofi_send_intro(lc_peer_t *peer, uint8_t type, const lc_ofi_hello_body_t *body, const char *text);

/* A window operation (lc_ofi_rma.c) completed; `err` is 0 or the
 * libfabric error of its error completion (`why`: the provider's text). */
void lc_ofi_rma_done(lc_ofi_ctx_t *ctx, int err, const char *why);

/* Return the credits owed to peers on the credit list. */
void lc_ofi_flush_credits(void);

/* Release the registration of the send buffer of request sreq exposed
 * to `peer` (its CTS or FIN arrived). */
void lc_ofi_unexpose(lc_peer_t *peer, uint32_t sreq);

/* Post n more receive buffers (a new block; the fifo grows with them).
 * 0, or -1 after logging. */
int lc_ofi_grow_rx(uint32_t n);

/* Bytes per bounce buffer for a packet payload (headers, 64-byte aligned). */
size_t lc_ofi_slot(size_t packet);

/* Packet payload and credits per peer for `npeers` network peers when the
 * receive buffers ((credits + 3) per peer) must fit `pool` bytes: the
 * budget shrinks the packet from `eager` first, down to
 * LC_OFI_PACKET_FLOOR, then the credits, down to 4.  A job with few
 * network peers gets large eager messages (64 KiB in one packet instead of
 * a rendezvous: twice the bandwidth over TCP here), one with many keeps
 * its credits. */
void lc_ofi_budget(size_t eager, size_t pool, uint32_t credits, int npeers, size_t *packet,
                   uint32_t *credits_out);

/* fi_strerror for a negative libfabric return code. */
const char *lc_ofi_strerror(ssize_t rc);

/* Register [buf, buf+len) with `access`; binds to the endpoint where the
 * provider asks for it.  Returns 0 or a negative libfabric code. */
int lc_ofi_mr_reg(const void *buf, size_t len, uint64_t access, struct fid_mr **mr);

#endif
