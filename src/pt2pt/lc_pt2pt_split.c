/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_split.c — the split copy (issue 13): both cores move one large
 * CMA message.
 *
 * Why: a CMA pull is one core's copy (~16 GB/s here); in a window of
 * nonblocking sends the sender's core sits in its Waitall meanwhile.  With
 * the split, the receiver that matched an RTS pulls chunks from the front
 * of the message (process_vm_readv) while the sender, when its progress
 * sees the CTS, pushes chunks from the back into the receiver's buffer
 * (process_vm_writev).
 *
 * Protocol (only shm peers whose CMA probe succeeded; contiguous receive
 * buffer, plain RTS; LOCUS_CMA_SPLIT):
 *   1. The receiver takes a free claim slot of its own segment
 *      (lc_shm_split.h: refs 0 -> 2), writes chunk size, its buffer and
 *      the length to place (min(message, posted receive): the sender's
 *      writes never leave the posted buffer), and the claim word
 *      [0, nchunks).  It sends CTS | LC_PKT_FLAG_SPLIT naming the slot
 *      (hdr.tag) and the receive (rreq); the ring cell's release store
 *      publishes the slot's fields to the sender's acquire load of it.
 *   2. Receiver: claims the lowest chunk (CAS lo -> lo + 1), pulls it,
 *      adds its bytes to `done`; again until nothing is left.  It never
 *      waits for the sender: a sender that is not in MPI leaves every
 *      chunk to it (the split is opportunistic).
 *   3. Sender, on the CTS: checks the slot index and the length against
 *      its own message, claims the highest chunk (CAS hi -> hi - 1),
 *      pushes it, adds to `done`; again until nothing is left.
 *   4. Whichever add brings `done` to the length completes: the receiver
 *      completes its receive and sends FIN as after a pull; the sender
 *      completes its send and sends FIN | LC_PKT_FLAG_SPLIT naming the
 *      receive, which the receiver then completes.  Exactly one add reaches
 *      the length, so each side completes once.
 *   5. Each side drops its slot reference (release) after its last access;
 *      the receiver reuses a slot only when both are dropped (acquire CAS
 *      0 -> 2), so a late sender never reads a slot reused for another
 *      message.
 * Ordering: `done` adds are acq_rel; a copy's system call has returned
 * (the data is in the receiver's pages) before its add, so the side that
 * sees the total also sees (and, for the FIN, publishes) every byte.
 */
#include "channel/lc_cma.h"
#include "channel/lc_shm_split.h"
#include "pt2pt/lc_pt2pt_impl.h"
#include "pt2pt/lc_pt2pt_split.h"
#include "util/lc_error.h"
#include "util/lc_params.h"

#include <string.h>

static inline uint64_t lc_split_word(uint32_t lo, uint32_t hi)
{
    return (uint64_t)hi << 32 | lo;
}

/* Claim a chunk from the front (receiver) or the back (sender); false
 * when none is left.  Relaxed load and CAS: the claim only decides who
 * copies; the bytes are ordered by `done` and the FIN. */
static bool lc_split_claim(lc_shm_split_slot_t *s, bool back, uint32_t nchunks, uint32_t *idx_p)
{
    uint64_t w = atomic_load_explicit(&s->claim, memory_order_relaxed);
    for (;;) {
        uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
        /* hi beyond the chunks is a corrupt slot: take nothing. */
        if (lo >= hi || hi > nchunks) return false;
        uint64_t nw = back ? lc_split_word(lo, hi - 1) : lc_split_word(lo + 1, hi);
        if (atomic_compare_exchange_weak_explicit(&s->claim, &w, nw, memory_order_relaxed, memory_order_relaxed)) {
            *idx_p = back ? hi - 1 : lo;
            return true;
        }
    }
}

/* Account n bytes placed; true when this add placed the last of len. */
static bool lc_split_done(lc_shm_split_slot_t *s, uint64_t n, uint64_t len, bool *failed_p)
{
    uint64_t now = atomic_fetch_add_explicit(&s->done, n, memory_order_acq_rel) + n;
    if (failed_p) *failed_p = (now & LC_SHM_SPLIT_FAILED) != 0;
    return (now & ~LC_SHM_SPLIT_FAILED) == len;
}

static lc_shm_split_slot_t *lc_split_take_slot(lc_peer_t *from, uint32_t *index_p)
{
    lc_shm_split_slot_t *slots = from->shm.rx_split;
    for (uint32_t i = 0; i < LC_SHM_SPLIT_SLOTS; i++) {
        uint32_t free_refs = 0;
        /* Acquire: both sides' accesses of the slot's last use happened
         * before their releasing decrements. */
        if (atomic_load_explicit(&slots[i].refs, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&slots[i].refs, &free_refs, 2, memory_order_acquire,
                                                    memory_order_relaxed)) {
            *index_p = i;
            return &slots[i];
        }
    }
    return NULL;
}

bool lc_pt2pt_split_eligible(const lc_peer_t *from, size_t n)
{
    return lc_params.cma_split && from->kind == LC_CHANNEL_SHM && from->shm.rx_split && from->shm.tx_split &&
           n > lc_params.cma_split_chunk && n / lc_params.cma_split_chunk < UINT32_MAX;
}

/* A lone split pull timed as a calibration sample (req->pick_how, set by
 * lc_deliver_rndv) completes: its sample, from the receiver's taking the
 * RTS to now.  Session 23: a pull's own part ends up to a chunk before
 * the sender's last push (at 256 KiB, two chunks, half the message);
 * for a lone message the receive's completion is what counts.  Called
 * under the receive side's lock as the ring's drain (the pick's state).
 * Not when a side's copy failed. */
static void lc_split_sample(lc_peer_t *from, lc_request_t *req, size_t n, bool failed)
{
    int how = req->pick_how;
    double t0 = req->pick_t0;
    req->pick_how = 0;
    req->pick_t0 = 0;
    if (how && !failed && from->pick.calibrate) lc_pick_pull_done(from, n, how, t0, lc_time_now());
}

bool lc_pt2pt_split_recv(lc_request_t *req, lc_peer_t *from, int src, uint32_t sreq, uint64_t addr, size_t n,
                         bool *ok_p)
{
    size_t chunk = lc_params.cma_split_chunk;
    uint32_t nchunks = (uint32_t)((n + chunk - 1) / chunk);
    uint32_t index;
    lc_shm_split_slot_t *s = lc_split_take_slot(from, &index);
    if (!s) return false; /* all slots wait for late senders: pull it alone */
    s->chunk = (uint32_t)chunk;
    s->raddr = (uint64_t)(uintptr_t)req->buf;
    s->len = n;
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    atomic_store_explicit(&s->claim, lc_split_word(0, nchunks), memory_order_relaxed);
    /* Before the CTS: the sender's FIN may be handled by the next poll of
     * this ring (never before we return: the ring is ours while we deliver). */
    req->state = LC_ST_RECV_SPLIT;
    lc_count_add(&lc_pt2pt_stats.rndv_split, 1ul);
    lc_pt2pt_send_ctl_tag(from, LC_PKT_CTS, LC_PKT_FLAG_SPLIT, (int32_t)index, sreq, lc_request_ref(req));

    bool last = false, failed = false, mine_failed = false;
    uint64_t mine = 0;
    uint32_t idx;
    while (!last && lc_split_claim(s, false, nchunks, &idx)) {
        size_t off = (size_t)idx * chunk;
        size_t len = n - off < chunk ? n - off : chunk;
        if (from->ops->pull(from, (char *)req->buf + off, addr + off, 0, len) != LC_OK) mine_failed = true;
        mine += len;
        last = lc_split_done(s, len, n, &failed);
    }
    /* Release: our last access of the slot precedes its reuse. */
    atomic_fetch_sub_explicit(&s->refs, 1, memory_order_release);
    lc_count_add(&lc_pt2pt_stats.rndv_split_pushed, (unsigned long)(n - mine));
    *ok_p = !mine_failed;
    if (mine_failed)
        req->st_error = lc_error(MPI_ERR_OTHER, "single-copy transfer from rank %d failed (split copy)", src);
    if (!last) {
        if (mine_failed) req->pick_how = 0;
        return true; /* the sender places the last chunk: its FIN completes us (and times a sample) */
    }
    if (failed && !mine_failed)
        req->st_error = lc_error(MPI_ERR_OTHER, "rank %d failed to write its part of a split copy", src);
    lc_split_sample(from, req, n, failed || mine_failed);
    lc_pt2pt_send_ctl(from, LC_PKT_FIN, sreq, 0);
    lc_request_complete(req);
    return true;
}

bool lc_pt2pt_split_send(lc_peer_t *from, lc_request_t *req, const lc_pkt_hdr_t *hdr, uint32_t rreq)
{
    /* Only a shm peer has slots; a CTS | SPLIT from anyone else, or
     * naming no slot, is the peer's fault. */
    if (from->kind != LC_CHANNEL_SHM || !from->shm.tx_split || hdr->tag < 0 || hdr->tag >= LC_SHM_SPLIT_SLOTS)
        lc_peer_fault(from, "its split CTS names claim slot %d (it has %d, and only a shared-memory peer has any)",
                      (int)hdr->tag, LC_SHM_SPLIT_SLOTS);
    lc_shm_split_slot_t *s = &from->shm.tx_split[hdr->tag];
    lc_count_add(&lc_pt2pt_stats.rndv_split_sent, 1ul);
    /* One read of the fields the receiver wrote before its CTS (the
     * ring's acquire load made them visible). */
    uint64_t chunk = s->chunk, raddr = s->raddr, len = s->len;
    /* Bounds: the receiver names at most its posted buffer, and we read
     * at most our own message: a length beyond it, a chunk of 0, or a
     * typed send (its buf is a block list) and we take no chunk at all;
     * the receiver then pulls everything (or pulls what it may). */
    bool ok = chunk && len && len <= req->bytes && !req->rcur && len / chunk < UINT32_MAX;
    uint32_t nchunks = ok ? (uint32_t)((len + chunk - 1) / chunk) : 0;
    bool last = false, failed = false;
    uint32_t idx;
    while (ok && !last && lc_split_claim(s, true, nchunks, &idx)) {
        uint64_t off = (uint64_t)idx * chunk;
        uint64_t n = len - off < chunk ? len - off : chunk;
        if (lc_cma_push(from, raddr + off, (const char *)req->buf + off, n) != LC_OK) {
            failed = true;
            /* Before the add, so the side whose add is last sees it. */
            atomic_fetch_or_explicit(&s->done, LC_SHM_SPLIT_FAILED, memory_order_relaxed);
        }
        last = lc_split_done(s, n, len, NULL);
    }
    atomic_fetch_sub_explicit(&s->refs, 1, memory_order_release);
    if (!last) return false; /* the receiver's FIN completes the send */
    lc_pt2pt_send_ctl_flags(from, LC_PKT_FIN, LC_PKT_FLAG_SPLIT, failed ? 1 : 0, rreq);
    return true;
}

void lc_pt2pt_split_fin(lc_peer_t *from, const lc_pkt_ctl_t *ctl)
{
    lc_request_t *req =
        lc_pt2pt_wire_request(from, ctl->rreq, LC_REQ_RECV, LC_REQ_STATE_BIT(LC_ST_RECV_SPLIT), "FIN (split copy)");
    if (ctl->sreq && req->st_error == MPI_SUCCESS)
        req->st_error = lc_error(MPI_ERR_OTHER, "rank %d failed to write its part of a split copy", req->st_source);
    if (req->pick_how) lc_split_sample(from, req, req->msg_size, ctl->sreq != 0);
    lc_request_complete(req);
}
