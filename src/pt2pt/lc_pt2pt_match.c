/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_match.c — the receive side: posted and unexpected queues,
 * matching, and delivery of eager and rendezvous messages, including the
 * DATA fragments of the two-copy pipeline.
 *
 * Both queues are FIFO lists: a message matches the oldest posted receive
 * that accepts it, and a receive takes the oldest unexpected message it
 * accepts — which, with FIFO channels, is MPI's non-overtaking rule.
 *
 * There is one pair of queues per context slot (a communicator's, see
 * lc_comm.h), not one per process: a message only ever matches a receive
 * of its own context id, so a search never needs to look at another
 * communicator's entries, and the relative order of the entries of one
 * context id — the only order matching depends on — is the order they
 * had in the one process-wide pair.  All context ids of a slot (point-to-
 * point, collective, partitioned streams) share its pair: lc_matches still
 * compares the whole id.  The table is indexed by the context id of the
 * packet, never through a communicator object: a message may arrive
 * before this process has created the communicator it belongs to, and
 * MPI_Comm_connect's root pair borrows MPI_COMM_WORLD's context.
 * At MPI_THREAD_MULTIPLE each pair has its lock (lc_lock.h), held only
 * around the queue operation — a search and the unlink or the push that
 * follows it — never around a delivery: the entry matched is unlinked
 * under the lock and then belongs to the thread that matched it, which
 * copies the data, answers the sender and completes the request with no
 * queue lock held (so no callback runs under one).  An arriving packet is
 * matched while its ring's rx lock is held (lc_shm_poll), so two packets
 * of one source on one context are matched in ring order.  Below
 * MULTIPLE no lock is taken (docs/architecture.md "Threads").
 */
#include "pt2pt/lc_park.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "pt2pt/lc_pt2pt_split.h"
#include "util/lc_error.h"
#include "util/lc_params.h"

#include <stdlib.h>
#include <string.h>

typedef struct lc_match_queues {
    lc_list_t posted;     /* receives waiting for a message, FIFO */
    lc_list_t unexpected; /* messages waiting for a receive (lc_unexp_t), FIFO */
    lc_leaf_lock_t lock;  /* both lists, at MULTIPLE: a leaf lock (lc_lock.h) — under it only
                           * the lists, counters, malloc and the request pool's leaf lock; the
                           * matched request is delivered and completed after the unlock */
    int am;               /* active-message handlers on this slot's contexts (lc_pt2pt_am.c) */
} lc_match_queues_t;

/* The pair's lock at MULTIPLE (the flag is set once, before a second
 * thread is in MPI); returns whether it was taken, for lc_mq_unlock.
 * The two hot paths (a packet's arrival, a receive's posting) are written
 * once with `mt` and instantiated twice, the unlocked one with the
 * constant 0: below MULTIPLE it is the code of before (with the lock
 * calls in it, the compiler saved six registers on every call). */
static inline int lc_mq_lock(lc_match_queues_t *q, int mt)
{
    if (!mt) return 0;
    lc_leaf_acquire(&q->lock);
    return 1;
}

static inline void lc_mq_unlock(lc_match_queues_t *q, int held)
{
    if (held) lc_leaf_release(&q->lock);
}

/* [slot]: every slot of the context-id mask (LC_CTX_WORDS x 64), 80 KiB. */
#define LC_MATCH_SLOTS (LC_CTX_WORDS * 64)
static lc_match_queues_t lc_match_q[LC_MATCH_SLOTS];
lc_pt2pt_stats_t lc_pt2pt_stats;

void lc_pt2pt_match_init(void)
{
    /* Once per process: MPI_Finalize empties the unexpected queues, and a
     * receive the application left posted stays where it was, as it did
     * in the process-wide list (a later session's init must not cut it
     * out of a list it is still linked into). */
    static bool done;
    if (done) return;
    for (int i = 0; i < LC_MATCH_SLOTS; i++) {
        lc_list_init(&lc_match_q[i].posted);
        lc_list_init(&lc_match_q[i].unexpected);
    }
    done = true;
}

/* The queues of context id `ctx`: its slot is ctx >> 2 below the
 * partitioned-stream bits (lc_comm.h), so a slot's point-to-point,
 * collective and partitioned ids meet in one pair.  Any 32-bit id a peer
 * sends maps to some slot: a bogus one lands in a pair nobody searches for
 * it, as it landed in the one list before. */
static inline lc_match_queues_t *lc_match_queues(uint32_t ctx)
{
    return &lc_match_q[(ctx & ((1u << LC_CTX_PART_SHIFT) - 1)) >> 2];
}

/* An unexpected message leaves the queue (matched, probed away, dropped). */
static inline void lc_unexp_unlink(lc_unexp_t *u)
{
    lc_list_remove(&u->link);
    lc_count_add(&lc_pt2pt_stats.unexp_len, -1ul);
}

static inline bool lc_matches(uint32_t want_ctx, int want_src, int want_tag, uint32_t ctx, int src, int tag)
{
    return ctx == want_ctx && (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

static inline uint32_t lc_req_ctx(const lc_request_t *req)
{
    return req->comm->ctx + req->ctx_kind;
}

static void lc_deliver_rndv(lc_request_t *req, lc_peer_t *from, int src, uint8_t flags, uint32_t sreq, size_t size,
                            size_t n, uint64_t addr, uint64_t key, uint32_t nblocks, double t_rts);

/* What is wrong with a matched message, out of line: a source that is
 * not its channel's rank in the communicator (a peer cannot pass its
 * messages off as another rank's; the decoders checked src >= 0), or a
 * message larger than the receive (MPI_ERR_TRUNCATE in the status). */
static LC_NOINLINE __attribute__((cold)) void lc_deliver_odd(lc_request_t *req, lc_peer_t *from, int src, int tag,
                                                             size_t size)
{
    const lc_comm_t *comm = req->comm;
    if ((unsigned)src >= (unsigned)comm->peer_count || comm->peers[src] != from)
        lc_peer_fault(from, "a message on context %#x claims to come from rank %d of a communicator of %d ranks",
                      lc_req_ctx(req), src, comm->peer_count);
    if (size > req->bytes)
        req->st_error = lc_error(MPI_ERR_TRUNCATE,
                                 "message of %zu bytes from rank %d (tag %d) is larger than the receive "
                                 "buffer (%zu bytes); post a larger receive",
                                 size, src, tag, req->bytes);
}

/* Every delivery's start: the checks, the status; the bytes to place. */
LC_INLINE size_t lc_deliver_status(lc_request_t *req, lc_peer_t *from, int src, int tag, size_t size)
{
    const lc_comm_t *comm = req->comm;
    if (lc_unlikely((unsigned)src >= (unsigned)comm->peer_count || comm->peers[src] != from || size > req->bytes))
        lc_deliver_odd(req, from, src, tag, size);
    req->peer = from;
    req->st_source = src;
    req->st_tag = tag;
    req->msg_size = size;
    size_t n = size > req->bytes ? req->bytes : size;
    req->st_bytes = n;
    return n;
}

/* An eager message's delivery, inline in the matching of an arrived
 * packet (the 8 B round trip's path) and in lc_deliver. */
LC_INLINE void lc_deliver_eager(lc_request_t *req, lc_peer_t *from, int src, int tag, uint8_t flags, uint32_t sreq,
                                size_t size, const void *data)
{
    size_t n = lc_deliver_status(req, from, src, tag, size);
    if (n) {
        if (lc_likely(!req->rcur))
            lc_copy_short(req->buf, data, n);
        else
            lc_dt_cursor_unpack(req->rcur, data, n);
    }
    if (lc_unlikely(flags & LC_PKT_FLAG_SYNC)) lc_pt2pt_send_ctl(from, LC_PKT_ACK, sreq, 0);
    lc_request_complete(req);
}

/* A rendezvous message matched by a blocking receive's local request
 * (lc_request_init_local, lc_pt2pt_recv): the receive is named in the
 * packets that follow (CTS, DATA, the split copy's FIN), which a local
 * request cannot be, so the operation moves to a pool request, which its
 * owner waits for and releases.  Returns that request (the local one is
 * not touched again), or NULL when none could be had: then the sender is
 * told the message is done (a FIN: it must not wait for ever) and the
 * receive completes with MPI_ERR_NO_MEM, its data not placed. */
static LC_NOINLINE __attribute__((cold)) lc_request_t *lc_deliver_hand_off(lc_request_t *local, lc_peer_t *from,
                                                                           int src, int tag, uint32_t sreq)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_RECV);
    if (!req) {
        local->st_source = src;
        local->st_tag = tag;
        local->st_error = lc_error(MPI_ERR_NO_MEM,
                                   "cannot allocate a request for a rendezvous message from rank %d (tag %d): "
                                   "the message is lost",
                                   src, tag);
        lc_pt2pt_send_ctl(from, LC_PKT_FIN, sreq, 0);
        lc_request_complete(local);
        return NULL;
    }
    /* What a receive carries into its delivery: a local request is a
     * contiguous one (no cursor, no hook) that holds no communicator (its
     * owner's call does, until it returns). */
    req->buf = local->buf;
    req->bytes = local->bytes;
    req->rank = local->rank;
    req->tag = local->tag;
    req->comm = local->comm;
    req->ctx_kind = local->ctx_kind;
    lc_request_hand_off(local, req);
    return req;
}

/* The one delivery routine: `data` is the eager payload (EAGER); `addr`
 * and `key` name the sender's buffer (RTS), or with LC_PKT_FLAG_LIST its
 * block list of `nblocks` entries; `t_rts` when the RTS left the sender
 * (lc_time_now() on the same kernel), for a message matched on arrival
 * from a calibrating peer, else 0. */
static void lc_deliver(lc_request_t *req, lc_peer_t *from, int src, int tag, uint8_t kind, uint8_t flags, uint32_t sreq,
                       size_t size, uint64_t addr, uint64_t key, uint32_t nblocks, const void *data, double t_rts)
{
    if (kind == LC_PKT_EAGER) {
        lc_deliver_eager(req, from, src, tag, flags, sreq, size, data);
        return;
    }
    if (lc_unlikely(lc_request_is_local(req)) && !(req = lc_deliver_hand_off(req, from, src, tag, sreq))) return;
    size_t n = lc_deliver_status(req, from, src, tag, size);
    /* MPI_THREAD_MULTIPLE: the peer's protocol pick (`from->pick`, its
     * calibration samples) is the peer's receive side's state: a ring's
     * drain holds rx_lock already (recursive); a receive that matched an
     * unexpected RTS takes it here, so that two threads never update it
     * at once.  Safe to wait for: this thread holds no other lock (the
     * queue's was dropped), and a holder of rx_lock never waits for one
     * we hold. */
    int rx_held = lc_unlikely(lc_thread_locking()) && from->kind == LC_CHANNEL_SHM;
    if (rx_held) lc_lock_acquire(&from->rx_lock);
    lc_deliver_rndv(req, from, src, flags, sreq, size, n, addr, key, nblocks, t_rts);
    if (rx_held) lc_lock_release(&from->rx_lock);
}

static void lc_deliver_rndv(lc_request_t *req, lc_peer_t *from, int src, uint8_t flags, uint32_t sreq, size_t size,
                            size_t n, uint64_t addr, uint64_t key, uint32_t nblocks, double t_rts)
{
    /* Rendezvous: pull in one copy where the channel proved it can, else
     * ask the sender to pipeline the data through the ring.  A derived-
     * datatype send that was not packed offers its block list, or nothing
     * to pull (lc_pt2pt_typed.c). */
    int how = LC_PICK_PIPE;
    if (from->can_pull && size >= from->pull_min && !(flags & LC_PKT_FLAG_NOPULL) &&
        (!(flags & LC_PKT_FLAG_LIST) || from->ops->pull_list)) {
        if (lc_likely(!from->pick.calibrate)) {
            how = LC_PICK_PULL;
        } else {
            how =
                lc_pick_choose(from, size, t_rts, t_rts > 0 && !req->rcur && !(flags & LC_PKT_FLAG_LIST) && n == size);
        }
    }
    /* A block list costs the kernel a page pin per remote segment: with
     * many small ones the pipeline (which the sender can still run from
     * its cursor) is faster, as the receiver judges from its samples. */
    if ((how & LC_PICK_PULL) && (flags & LC_PKT_FLAG_LIST) && from->pick.calibrate &&
        !lc_pick_list(from, size, nblocks))
        how = LC_PICK_PIPE;
    double t_go = 0;
    if (lc_unlikely(how & (LC_PICK_SAMPLE | LC_PICK_WIN))) {
        t_go = lc_time_now();
        lc_pick_transit(from, t_go - t_rts);
    }
    if (how & LC_PICK_PULL) {
        lc_count_add(&lc_pt2pt_stats.rndv_pull, 1ul);
        lc_count_add(&lc_pt2pt_stats.rndv_pull_bytes, (unsigned long)n);
        /* The split copy into a contiguous buffer, the sender helping if
         * it can (lc_pt2pt_split.c): where the pick chose it
         * (LC_PICK_SPLIT, lc_pt2pt_pick_split.c), or for every pull from
         * LOCUS_CMA_SPLIT bytes when that is a size.  A timed one is timed
         * to the end of the receiver's part (the sender's last chunk may
         * still be on its way: at most one chunk, overlapped in a window
         * by the next message's). */
        bool split = from->pick.calibrate ? (how & LC_PICK_SPLIT) != 0 : lc_pt2pt_split_forced(n);
        if (lc_unlikely(split) && !req->rcur && !(flags & (LC_PKT_FLAG_LIST | LC_PKT_FLAG_NOPULL)) &&
            lc_pt2pt_split_eligible(from, n)) {
            bool ok = false;
            /* A lone timed one is timed to the receive's completion
             * (lc_pt2pt_split.c: here, or at the sender's FIN | SPLIT):
             * alone, waiting for the sender's last chunk is its cost. */
            bool lone = (how & (LC_PICK_SAMPLE | LC_PICK_WIN)) == LC_PICK_SAMPLE;
            req->pick_how = lone ? (uint8_t)how : 0;
            req->pick_t0 = lone ? t_go : 0;
            if (lc_pt2pt_split_recv(req, from, src, sreq, addr, n, &ok)) {
                /* req may be complete (and freed by another thread): not read again */
                if (ok && !lone && (how & (LC_PICK_SAMPLE | LC_PICK_WIN)))
                    lc_pick_pull_done(from, n, how, t_go, lc_time_now());
                return;
            }
            req->pick_how = 0;
            req->pick_t0 = 0;
        }
        how &= ~LC_PICK_SPLIT; /* a slot was not free, or the pull cannot be split: one core's */
        int rc = LC_OK;
        if (!n)
            rc = LC_OK;
        else if (lc_unlikely(flags & LC_PKT_FLAG_LIST))
            rc = lc_pt2pt_pull_list(from, req->buf, req->rcur, addr, nblocks, n);
        else
            rc = lc_likely(!req->rcur) ? from->ops->pull(from, req->buf, addr, key, n)
                                       : lc_pt2pt_pull_typed(from, req->rcur, addr, key, n);
        if (rc != LC_OK)
            req->st_error = lc_error(MPI_ERR_OTHER, "single-copy transfer from rank %d failed", src);
        else if (how & (LC_PICK_SAMPLE | LC_PICK_WIN))
            lc_pick_pull_done(from, n, how, t_go, lc_time_now());
        lc_pt2pt_send_ctl(from, LC_PKT_FIN, sreq, 0);
        lc_request_complete(req);
        return;
    }
    lc_count_add(&lc_pt2pt_stats.rndv_pipe, 1ul);
    lc_count_add(&lc_pt2pt_stats.rndv_pipe_bytes, (unsigned long)n);
    req->state = LC_ST_RECV_DATA;
    req->offset = 0;
    if (lc_unlikely(from->pick.calibrate))
        lc_pick_pipe_start(from, req, how, t_go,
                           req->rcur != NULL || (flags & (LC_PKT_FLAG_LIST | LC_PKT_FLAG_NOPULL)) != 0);
    lc_pt2pt_send_ctl_flags(from, LC_PKT_CTS, (how & LC_PICK_NT) ? LC_PKT_FLAG_NT : 0, sreq, lc_request_ref(req));
}

void lc_pt2pt_deliver_unexp(lc_request_t *req, lc_unexp_t *u)
{
    lc_deliver(req, u->from, u->src, u->tag, u->kind, u->flags, u->sreq, u->size, u->addr, u->key, u->nblocks,
               u->data, 0);
}

LC_INLINE void lc_on_message_mt(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload, int mt)
{
    lc_match_queues_t *q = lc_match_queues(hdr->ctx);
    int held = lc_mq_lock(q, mt);
    lc_list_for_each(it, &q->posted) {
        lc_request_t *req = lc_container_of(it, lc_request_t, pend.link);
        if (!lc_matches(lc_req_ctx(req), req->rank, req->tag, hdr->ctx, hdr->src, hdr->tag)) continue;
        lc_list_remove(it);
        /* Matched, out of the queue: no longer cancellable (lc_pt2pt_cancel
         * looks for LC_ST_POSTED under this lock); lc_deliver sets the
         * state it goes on in. */
        req->state = LC_ST_NEW;
        lc_mq_unlock(q, held);
        if (hdr->kind == LC_PKT_EAGER) {
            lc_deliver_eager(req, from, hdr->src, hdr->tag, hdr->flags, hdr->sreq, hdr->len, payload);
        } else {
            lc_pkt_rts_t rts;
            memcpy(&rts, payload, sizeof(rts));
            lc_deliver(req, from, hdr->src, hdr->tag, LC_PKT_RTS, hdr->flags, rts.sreq, rts.size, rts.addr, rts.key,
                       rts.nblocks, NULL, rts.stamp_ns * 1e-9);
        }
        return;
    }
    /* Unexpected: keep a copy of an eager payload (the ring cell is
     * reused as soon as we return). */
    size_t datalen = hdr->kind == LC_PKT_EAGER ? hdr->len : 0;
    lc_unexp_t *u = malloc(sizeof(*u) + datalen);
    if (!u)
        lc_fatal("out of memory queueing an unexpected message of %zu bytes from rank %d", datalen,
                 from->world_rank);
    u->from = from;
    u->ctx = hdr->ctx;
    u->src = hdr->src;
    u->tag = hdr->tag;
    u->kind = hdr->kind;
    u->flags = hdr->flags;
    if (hdr->kind == LC_PKT_EAGER) {
        u->sreq = hdr->sreq;
        u->size = hdr->len;
        u->addr = 0;
        u->key = 0;
        u->nblocks = 0;
        if (datalen) memcpy(u->data, payload, datalen);
    } else {
        lc_pkt_rts_t rts;
        memcpy(&rts, payload, sizeof(rts));
        u->sreq = rts.sreq;
        u->size = rts.size;
        u->addr = rts.addr;
        u->key = rts.key;
        u->nblocks = rts.nblocks;
    }
    lc_list_push_back(&q->unexpected, &u->link);
    lc_count_add(&lc_pt2pt_stats.unexp_msgs, 1ul);
    lc_count_add(&lc_pt2pt_stats.unexp_len, 1ul);
    lc_count_max(&lc_pt2pt_stats.unexp_peak, lc_count_get(&lc_pt2pt_stats.unexp_len));
    lc_mq_unlock(q, held);
    /* A thread parked in MPI_Probe/Mprobe may wait for this entry
     * (lc_park.h); after the unlock, which published it. */
    if (mt) lc_park_note(LC_PARK_QUEUED);
}

/* The two instances, inline in the packet handler of each level (below,
 * chosen once by lc_pt2pt_threads_multiple). */
LC_INLINE void lc_on_message_st(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    if (lc_unlikely(lc_pt2pt_am_count != 0) && lc_pt2pt_am_dispatch(from, hdr, payload)) return;
    lc_on_message_mt(from, hdr, payload, 0);
}

LC_INLINE void lc_on_message_locked(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    /* RMA's active messages (lc_pt2pt_am.c) run their handlers inside the
     * section: a ring drained outside it (the shared-memory fast path)
     * enters it for a packet on a context that has a handler (a window's
     * own communicator: never a user's message, so never a self-channel
     * packet of the fast path, delivered with a tx lock held).  Waiting
     * for it with this ring's rx lock held is safe: a section holder takes
     * rx locks by try-lock only. */
    if (lc_unlikely(__atomic_load_n(&lc_match_queues(hdr->ctx)->am, __ATOMIC_ACQUIRE) != 0)) {
        lc_thread_enter_progress();
        bool am = lc_pt2pt_am_dispatch(from, hdr, payload);
        lc_thread_leave_progress();
        if (am) return;
    }
    lc_on_message_mt(from, hdr, payload, 1);
}

/* Every arrived packet: to the side that handles its kind — here, in
 * the matching side's file, so that a message's matching is inline in the
 * channel's one call per packet.  Two instances (lc_pt2pt_init,
 * lc_pt2pt_threads_multiple). */
LC_INLINE void lc_on_packet_mt(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload, int mt)
{
    switch ((lc_pkt_kind_t)hdr->kind) {
    case LC_PKT_EAGER:
    case LC_PKT_RTS:
        if (mt)
            lc_on_message_locked(from, hdr, payload);
        else
            lc_on_message_st(from, hdr, payload);
        return;
    case LC_PKT_DATA: lc_pt2pt_on_data(from, hdr, payload); return;
    case LC_PKT_FIN:
        if (lc_unlikely(hdr->flags & LC_PKT_FLAG_SPLIT)) { /* to a receiver: the split copy's last bytes */
            lc_pkt_ctl_t ctl;
            memcpy(&ctl, payload, sizeof(ctl));
            lc_pt2pt_split_fin(from, &ctl);
            return;
        }
        /* fall through */
    case LC_PKT_CTS:
    case LC_PKT_ACK: lc_pt2pt_on_sender_ctl(from, hdr, payload); return;
    }
    /* The channels' decoders let no other kind through (lc_pkt_decode.h). */
    lc_peer_fault(from, "unknown packet kind %u", (unsigned)hdr->kind);
}

void lc_pt2pt_on_packet_st(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    lc_on_packet_mt(from, hdr, payload, 0);
}

void lc_pt2pt_on_packet_locked(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    lc_on_packet_mt(from, hdr, payload, 1);
}

void lc_pt2pt_on_data(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    lc_pkt_data_t d;
    memcpy(&d, payload, sizeof(d)); /* the one read of the prefix */
    lc_request_t *req = lc_pt2pt_wire_request(from, d.rreq, LC_REQ_RECV, LC_REQ_STATE_BIT(LC_ST_RECV_DATA), "DATA");
    size_t n = hdr->len - sizeof(d); /* > 0: the channel's decoder checked len */
    /* A fragment of the message this receive matched, in order (channels
     * are FIFO; ofi reorders before delivery) and within the size its RTS
     * announced: nothing else may move req->offset. */
    if (lc_unlikely(d.offset != req->offset || n > req->msg_size - req->offset))
        lc_peer_fault(from, "DATA of %zu bytes at offset %llu for receive request %#x, which expects offset %zu and at most %zu bytes",
                      n, (unsigned long long)d.offset, d.rreq, req->offset, req->msg_size - req->offset);
    /* A truncated receive still consumes every fragment. */
    if (d.offset < req->bytes) {
        size_t copy = req->bytes - d.offset < n ? req->bytes - d.offset : n;
        if (lc_likely(!req->rcur)) {
            memcpy((char *)req->buf + d.offset, (const char *)payload + sizeof(d), copy);
        } else { /* fragments arrive in order (checked above): the cursor is where this one goes. */
            lc_dt_cursor_unpack(req->rcur, (const char *)payload + sizeof(d), copy);
        }
    }
    req->offset += n;
    if (req->offset >= req->msg_size) {
        if (lc_unlikely(from->pick.calibrate)) lc_pick_pipe_done(from, req);
        lc_request_complete(req);
    }
}

/* q: lc_match_queues(ctx), which the caller has at hand. */
static lc_unexp_t *lc_find_unexpected(lc_match_queues_t *q, uint32_t ctx, int src, int tag)
{
    lc_list_for_each(it, &q->unexpected) {
        lc_unexp_t *u = lc_container_of(it, lc_unexp_t, link);
        if (lc_matches(ctx, src, tag, u->ctx, u->src, u->tag)) return u;
    }
    return NULL;
}

lc_request_t *lc_pt2pt_recv_request(void *buf, size_t bytes, void (*hook)(lc_request_t *), void *arg)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_RECV);
    if (!req) return NULL;
    req->buf = buf;
    req->bytes = bytes;
    if (hook) {
        req->ext = arg;
        req->on_complete = hook;
    }
    return req;
}

void lc_pt2pt_recv_start(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind)
{
    lc_pt2pt_irecv_post(req, source, tag, comm, ctx_kind);
}

int lc_pt2pt_irecv_hooked(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                          void (*hook)(lc_request_t *), void *arg, lc_request_t **req_p)
{
    lc_request_t *req = lc_pt2pt_recv_request(buf, bytes, hook, arg);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "cannot allocate a receive request");
    *req_p = req;
    lc_pt2pt_irecv_post(req, source, tag, comm, ctx_kind);
    return MPI_SUCCESS;
}

int lc_pt2pt_irecv(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                   lc_request_t **req_p)
{
    return lc_pt2pt_irecv_hooked(buf, bytes, source, tag, comm, ctx_kind, NULL, NULL, req_p);
}

LC_INLINE int lc_irecv_user_mt(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, lc_request_t **req_p,
                               int mt)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_RECV);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "cannot allocate a receive request");
    req->buf = buf;
    req->bytes = bytes;
    /* Held before it is posted: a delivery in another thread may complete
     * it at once (the release, in the waiting thread, drops it). */
    lc_count_add_mt(mt, &comm->refcount, 1);
    req->holds_comm = 1;
    *req_p = req;
    lc_pt2pt_irecv_post(req, source, tag, comm, LC_CTX_PT2PT);
    return MPI_SUCCESS;
}

static int lc_irecv_user_st(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, lc_request_t **req_p)
{
    return lc_irecv_user_mt(buf, bytes, source, tag, comm, req_p, 0);
}

static int lc_irecv_user_locked(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, lc_request_t **req_p)
{
    return lc_irecv_user_mt(buf, bytes, source, tag, comm, req_p, 1);
}

int (*lc_pt2pt_irecv_user_p)(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm,
                             lc_request_t **req_p) = lc_irecv_user_st;

LC_INLINE void lc_irecv_post_mt(lc_request_t *req, int source, int tag, uint32_t ctx, int mt)
{
    lc_match_queues_t *q = lc_match_queues(ctx);
    int held = lc_mq_lock(q, mt);
    lc_unexp_t *u = lc_find_unexpected(q, ctx, source, tag);
    if (u) {
        lc_unexp_unlink(u);
        lc_mq_unlock(q, held);
        lc_pt2pt_deliver_unexp(req, u);
        free(u);
        return;
    }
    req->state = LC_ST_POSTED;
    lc_list_push_back(&q->posted, &req->pend.link);
    lc_mq_unlock(q, held);
}

LC_INLINE void lc_irecv_post_req(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind, int mt)
{
    req->rank = source;
    req->tag = tag;
    req->comm = comm;
    req->ctx_kind = (uint32_t)ctx_kind;
    if (source == MPI_PROC_NULL) {
        req->st_source = MPI_PROC_NULL;
        req->st_tag = MPI_ANY_TAG;
        lc_request_complete(req);
        return;
    }
    /* The context id and its queues once: req's fields were just stored,
     * so the compiler would load comm->ctx again for a second call. */
    uint32_t ctx = comm->ctx + (uint32_t)ctx_kind;
    lc_irecv_post_mt(req, source, tag, ctx, mt);
}

static void lc_irecv_post_st(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind)
{
    lc_irecv_post_req(req, source, tag, comm, ctx_kind, 0);
}

static void lc_irecv_post_locked(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind)
{
    lc_irecv_post_req(req, source, tag, comm, ctx_kind, 1);
}

void (*lc_pt2pt_irecv_post_p)(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind) = lc_irecv_post_st;

void lc_pt2pt_match_am(uint32_t ctx, int d)
{
    lc_match_queues_t *q = lc_match_queues(ctx);
    /* Written inside the section only (handlers are added and removed
     * there), so a plain read of the old value; release, for the acquire
     * load of a ring drained outside it (lc_pt2pt_on_message_locked). */
    __atomic_store_n(&q->am, q->am + d, __ATOMIC_RELEASE);
}

/* The blocking receive, written once with the level `mt` and instantiated
 * twice as the posting paths are (lc_pt2pt_recv_p, set once), the post
 * and the wait inline: an 8 B round trip's receive is this one call. */
LC_INLINE int lc_recv_mt(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                         MPI_Status *status, int mt)
{
    /* On this stack (lc_request_is_local): this call waits for it and
     * returns, nothing else can name it.  A delivery in another thread
     * (MULTIPLE, the progress thread) stores its flag last with release
     * and touches nothing of it after but its address (lc_request_complete,
     * lc_request_hand_off), so once the acquire load below has seen the
     * flag, the status is readable and the frame may go. */
    lc_request_t req;
    lc_request_init_local(&req, LC_REQ_RECV, mt);
    req.buf = buf;
    req.bytes = bytes;
    lc_irecv_post_req(&req, source, tag, comm, ctx_kind, mt);
    lc_pt2pt_wait_inline(&req);
    /* The flag is final once seen (relaxed: the acquire load read it). */
    if (lc_unlikely(atomic_load_explicit(&req.complete, memory_order_relaxed) == LC_REQ_HANDED_OFF))
        return lc_pt2pt_wait_release(req.active, status); /* a rendezvous (lc_deliver_hand_off) */
    if (status != MPI_STATUS_IGNORE) lc_request_status(&req, status);
    return req.st_error;
}

static int lc_recv_st(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind, MPI_Status *status)
{
    return lc_recv_mt(buf, bytes, source, tag, comm, ctx_kind, status, 0);
}

static int lc_recv_locked(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                          MPI_Status *status)
{
    return lc_recv_mt(buf, bytes, source, tag, comm, ctx_kind, status, 1);
}

int (*lc_pt2pt_recv_p)(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                       MPI_Status *status) = lc_recv_st;

void lc_pt2pt_match_multiple(void)
{
    lc_pt2pt_irecv_post_p = lc_irecv_post_locked;
    lc_pt2pt_irecv_user_p = lc_irecv_user_locked;
    lc_pt2pt_recv_p = lc_recv_locked;
}

int lc_pt2pt_iprobe(int source, int tag, lc_comm_t *comm, int *flag, MPI_Status *status, lc_request_t **msg_p)
{
    lc_progress();
    return lc_pt2pt_iprobe_arrived(source, tag, comm, flag, status, msg_p);
}

int lc_pt2pt_iprobe_arrived(int source, int tag, lc_comm_t *comm, int *flag, MPI_Status *status, lc_request_t **msg_p)
{
    uint32_t ctx = comm->ctx + LC_CTX_PT2PT;
    lc_match_queues_t *q = lc_match_queues(ctx);
    int held = lc_mq_lock(q, lc_unlikely(lc_thread_locking()));
    lc_unexp_t *u = lc_find_unexpected(q, ctx, source, tag);
    *flag = u != NULL;
    if (u) {
        if (status != MPI_STATUS_IGNORE) lc_status_set(status, u->src, u->tag, u->size, 0);
        if (msg_p) {
            /* The pool's lock nests inside the queue's (it takes no other). */
            lc_request_t *msg = lc_request_alloc(LC_REQ_MESSAGE);
            if (!msg) { /* the message stays where it is, for a later probe */
                lc_mq_unlock(q, held);
                *flag = 0;
                return lc_error(MPI_ERR_NO_MEM, "cannot allocate the MPI_Message of a probed message");
            }
            lc_unexp_unlink(u);
            msg->msg = u;
            msg->comm = comm;
            *msg_p = msg;
        }
    }
    lc_mq_unlock(q, held);
    return MPI_SUCCESS;
}

int lc_pt2pt_imrecv(void *buf, size_t bytes, lc_request_t *msg, lc_request_t **req_p)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_RECV);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "cannot allocate a receive request");
    req->buf = buf;
    req->bytes = bytes;
    *req_p = req;
    lc_pt2pt_imrecv_post(req, msg);
    return MPI_SUCCESS;
}

void lc_pt2pt_imrecv_post(lc_request_t *req, lc_request_t *msg)
{
    lc_unexp_t *u = msg->msg;
    req->rank = u->src;
    req->tag = u->tag;
    req->comm = msg->comm;
    lc_request_release(msg);
    lc_pt2pt_deliver_unexp(req, u);
    free(u);
}

void lc_pt2pt_cancel(lc_request_t *req)
{
    if (req->kind == LC_REQ_PRECV || req->kind == LC_REQ_PSEND) req = req->active;
    if (!req || req->kind != LC_REQ_RECV) return;
    /* Under the queue's lock: a packet matching it in another thread's
     * ring drain takes it out and changes its state under the same lock. */
    lc_match_queues_t *q = lc_match_queues(lc_req_ctx(req));
    int held = lc_mq_lock(q, lc_unlikely(lc_thread_locking()));
    if (req->state != LC_ST_POSTED) {
        lc_mq_unlock(q, held);
        return;
    }
    lc_list_remove(&req->pend.link);
    lc_mq_unlock(q, held);
    req->cancelled = 1;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    lc_request_complete(req);
}

int lc_pt2pt_fini(void)
{
    int n = 0;
    lc_pt2pt_typed_fini();
    for (int i = 0; i < LC_MATCH_SLOTS; i++)
        lc_list_for_each(it, &lc_match_q[i].unexpected) {
            lc_unexp_t *u = lc_container_of(it, lc_unexp_t, link);
            lc_unexp_unlink(u);
            free(u);
            n++;
        }
    return n;
}
