/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_impl.h — shared between the engine's own files only.
 */
#ifndef LC_PT2PT_IMPL_H
#define LC_PT2PT_IMPL_H

#include "pt2pt/lc_pt2pt.h"
#include "pt2pt/lc_park.h"
#include "datatype/lc_dt.h"

/* A control packet (CTS/FIN/ACK) that found the ring full. */
typedef struct lc_ctl_pending {
    lc_pending_t pend;
    lc_pkt_hdr_t hdr;
    lc_pkt_ctl_t ctl;
} lc_ctl_pending_t;

/* An arrived message no receive matched yet. */
typedef struct lc_unexp {
    lc_list_t link;
    lc_peer_t *from;
    uint32_t ctx;
    int src, tag;
    uint8_t kind;      /* LC_PKT_EAGER or LC_PKT_RTS */
    uint8_t flags;
    uint32_t sreq;     /* SYNC eager or RTS: sender's request */
    size_t size;
    uint64_t addr;     /* RTS */
    uint64_t key;      /* RTS: remote-access key (ofi) */
    uint32_t nblocks;  /* RTS with LC_PKT_FLAG_LIST: entries of the sender's block list at addr */
    char data[];       /* EAGER payload */
} lc_unexp_t;

/* Number of peers with a non-empty pending queue (progress skips the
 * scan when zero). */
extern int lc_pt2pt_pending_peers;

/* Send a control packet now or queue it behind the peer's pending work. */
void lc_pt2pt_send_ctl(lc_peer_t *peer, lc_pkt_kind_t kind, uint32_t sreq, uint32_t rreq);
/* The same with header flags (a CTS with LC_PKT_FLAG_NT). */
void lc_pt2pt_send_ctl_flags(lc_peer_t *peer, lc_pkt_kind_t kind, uint8_t flags, uint32_t sreq, uint32_t rreq);
/* The same with hdr.tag set (a CTS | LC_PKT_FLAG_SPLIT: the claim slot). */
void lc_pt2pt_send_ctl_tag(lc_peer_t *peer, lc_pkt_kind_t kind, uint8_t flags, int32_t tag, uint32_t sreq,
                           uint32_t rreq);
/* Append a send request to the peer's pending queue. */
void lc_pt2pt_enqueue(lc_peer_t *peer, lc_pending_t *p);
/* Push what the peers' pending queues hold while their rings have room.
 * all = 0: only the peers whose send side has a tx lock (shm, self), for
 * a pass outside the section at MULTIPLE (lc_progress_mt). */
int lc_pt2pt_drain_pending(int all);
/* A packet from `from` names one of our requests by its wire reference
 * (lc_request_ref: index and generation).  It is accepted only if it names
 * a request alive in that generation, of `kind` (LC_REQ_SEND or
 * LC_REQ_RECV), issued to `from` (req->peer), in one of `states` (a mask
 * of LC_REQ_STATE_BIT): the request and the protocol step it waits for.
 * lc_pt2pt_wire_check returns NULL with *why_p saying what did not fit;
 * lc_pt2pt_wire_request treats that as the peer's fault (`pkt` names the
 * packet kind): lc_peer_fault (src/channel/lc_channel_fault.c), which ends the job. */
#define LC_REQ_STATE_BIT(st) (1u << (st))
lc_request_t *lc_pt2pt_wire_check(const lc_peer_t *from, uint32_t ref, lc_req_kind_t kind, unsigned states,
                                   const char **why_p);
lc_request_t *lc_pt2pt_wire_request(const lc_peer_t *from, uint32_t ref, lc_req_kind_t kind, unsigned states,
                                    const char *pkt);

/* Packet handlers, one per side (lc_pt2pt_on_packet_* dispatch on the kind).
 * Send side (lc_pt2pt_send.c): CTS starts the pipeline, FIN and ACK
 * complete the send. */
void lc_pt2pt_on_sender_ctl(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);
/* Receive side (lc_pt2pt_match.c): an EAGER or RTS is matched against the
 * posted queue, else queued as unexpected; a DATA fragment is copied into
 * the receive it names.  The channels' receive handler
 * (lc_channel_recv_handler) of each level, also there: every arrived
 * packet, to the side that handles its kind. */
void lc_pt2pt_on_packet_st(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);
void lc_pt2pt_on_packet_locked(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);
void lc_pt2pt_on_data(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);
/* Set up the per-context posted/unexpected queues (lc_pt2pt_match.c); once
 * per process, before the first packet can arrive (lc_pt2pt_init). */
void lc_pt2pt_match_init(void);
/* Post a receive request whose buffer (buf, bytes, or rcur) is set: match
 * an unexpected message or join the posted queue (lc_pt2pt_typed.c fills
 * in a cursor first). */
extern LC_HIDDEN void (*lc_pt2pt_irecv_post_p)(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind);
static inline void lc_pt2pt_irecv_post(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind)
{
    lc_pt2pt_irecv_post_p(req, source, tag, comm, ctx_kind);
}
/* The locked instances of the matching side and of the blocking send
 * (lc_pt2pt_threads_multiple). */
void lc_pt2pt_match_multiple(void);
/* An active-message handler added (d = 1) or removed (-1) on context ctx
 * (lc_pt2pt_am.c): a ring drained outside the section enters it for
 * packets on such a context. */
void lc_pt2pt_match_am(uint32_t ctx, int d);
void lc_pt2pt_send_multiple(void);
/* CMA or pipeline for one rendezvous message (lc_pt2pt_pick.c).  Bit 0:
 * pull; LC_PICK_SAMPLE: time it as a calibration sample; LC_PICK_NT (a
 * pipeline only): its fragments written with non-temporal stores, which
 * the CTS tells the sender (LC_PKT_FLAG_NT); LC_PICK_SPLIT (a pull only):
 * the split copy with the sender (lc_pt2pt_split.c; the CTS says
 * LC_PKT_FLAG_SPLIT), chosen by lc_pt2pt_pick_split.c. */
enum { LC_PICK_PIPE = 0, LC_PICK_PULL = 1, LC_PICK_SAMPLE = 2, LC_PICK_NT = 4, LC_PICK_WIN = 8, LC_PICK_SPLIT = 16 };
/* For a message of `size` bytes from a peer with pick.calibrate that could
 * be pulled; `t_rts`, the sender's stamp of its RTS (0: unknown, an
 * unexpected message): how soon it followed the one before tells a window
 * from a lone message, whichever way that one went; `timed` when it may be
 * a sample: one contiguous run into one (no datatype on either side, not
 * truncated), matched as its RTS arrived, with the sender's stamp. */
int lc_pick_choose(lc_peer_t *from, size_t size, double t_rts, bool timed);
/* A message of `size` bytes offered as a block list of `nblocks` segments
 * (a derived-datatype send, LC_PKT_FLAG_LIST) that lc_pick_choose would
 * pull: is the pull still the faster way, given what the kernel charges
 * per remote segment?  False: pipeline it. */
bool lc_pick_list(lc_peer_t *from, size_t size, uint32_t nblocks);
/* The RTS of a message that may be a sample reached the receiver `transit`
 * seconds after it left the sender. */
void lc_pick_transit(lc_peer_t *from, double transit);
/* A timed sample: `size` bytes pulled (`way` has LC_PICK_PULL) or
 * pipelined (LC_PICK_NT: non-temporal fragments) in `seconds` from the
 * moment the receiver took the RTS to the end of the pull (the last
 * fragment); the fastest transit seen is added to it. */
void lc_pick_sample(lc_peer_t *from, size_t size, int way, double seconds);
/* A pull of `size` bytes that lc_pick_choose asked for (`how`) ran from
 * t_go (the receiver took the RTS) to t_end: its sample if `how` has
 * LC_PICK_SAMPLE, and, with LC_PICK_WIN, its part of CMA's window figure
 * (lc_pt2pt_pick_pullwin.c). */
void lc_pick_pull_done(lc_peer_t *from, size_t size, int how, double t_go, double t_end);
/* How a pipelined receive from a calibrating peer counts in the watch of
 * the chosen pipeline (req->pick_watch, decided once at its start). */
typedef enum lc_pick_watch {
    LC_PICK_UNWATCHED = 0, /* below LC_PICK_MIN: outside the watch */
    LC_PICK_WATCHED,       /* contiguous on both sides: its bytes and time judge the pipeline */
    LC_PICK_LAYOUT,        /* a datatype packs or unpacks it: its rate is the layout's; the clock stops */
} lc_pick_watch_t;
/* A receive from a calibrating peer goes through the pipeline (`how` from
 * lc_pick_choose, `t_go` when the receiver took the RTS; `typed`: a
 * datatype cursor unpacks it (req->rcur) or the sender packs it from one
 * (RTS flag LC_PKT_FLAG_LIST or LC_PKT_FLAG_NOPULL)), and when it completes. */
void lc_pick_pipe_start(lc_peer_t *from, lc_request_t *req, int how, double t_go, bool typed);
void lc_pick_pipe_done(lc_peer_t *from, lc_request_t *req);

/* Rendezvous pull of n bytes into a typed receive's cursor: scattered by
 * the channel's pullv (CMA) where it has one, else through a bounce buffer.
 * LC_OK or LC_ERROR (logged). */
int lc_pt2pt_pull_typed(lc_peer_t *from, struct lc_dt_cursor *cur, uint64_t addr, uint64_t key, size_t n);
/* Rendezvous pull of n bytes of a derived-datatype send that advertised
 * its block list (LC_PKT_FLAG_LIST: nblocks entries at `list` in the
 * sender's memory) into buf (cur NULL) or a typed receive's cursor: one
 * copy, scattered on both sides.  LC_OK or LC_ERROR (logged). */
int lc_pt2pt_pull_list(lc_peer_t *from, void *buf, struct lc_dt_cursor *cur, uint64_t list, uint32_t nblocks,
                       size_t n);

/* Entries of the active-message table; a packet it names goes to its
 * handler (true: consumed). */
extern int lc_pt2pt_am_count;
bool lc_pt2pt_am_dispatch(const lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload);

/* Deliver a matched message described by `u` (unexpected entry) into req. */
void lc_pt2pt_deliver_unexp(lc_request_t *req, lc_unexp_t *u);

/* Progress until `req` is complete (lc_pt2pt_wait's loop): complete at
 * once (a self message, a receive already matched) costs one load and no
 * look at the wait count; else passes, idle waits keyed by the request,
 * and the parking's end.  The acquire load that sees the flag is what
 * makes the request's status readable.  Inline for the blocking receive
 * (lc_pt2pt_match.c), whose request is on its stack. */
static inline void lc_pt2pt_wait_inline(lc_request_t *req)
{
    if (lc_likely(atomic_load_explicit(&req->complete, memory_order_acquire))) return;
    do {
        if (!lc_progress()) lc_progress_idle_wait_for(req);
    } while (!atomic_load_explicit(&req->complete, memory_order_acquire));
    lc_park_wait_end();
}

#endif
