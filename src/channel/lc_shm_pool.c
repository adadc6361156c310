/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_pool.c — the send pool of this process (issue 13).
 *
 * Per-pair rings hold small cells only (the latency path); a packet that
 * does not fit one — an eager message above ~100 bytes, a pipeline
 * fragment — is written into a free cell of the sender's own pool, which
 * lives in the sender's segment, and the ring cell carries its index
 * (lc_shm.h).  The pool is shared by all the sender's receivers, so its
 * size does not grow with the rank count: memory per rank is
 * N x (small ring) + pool, not N x (large ring).
 *
 * Ownership of a pool cell, in its `busy` word:
 *   0  free: only the owner (sender) may take it;
 *   1  taken: the owner wrote a payload and published the ring packet;
 *      only the receiver of that packet touches it, and clears it (with
 *      release) when its handler is done.
 * The owner takes cells in round-robin order from a private cursor: cells
 * come back roughly in the order they were sent, so the next cell is
 * usually free and a full scan happens only when the pool is exhausted.
 * A peer that clears a cell it does not hold only corrupts data of this
 * job (same user); it cannot make anyone access memory out of bounds,
 * since indexes and lengths are checked on receipt (lc_shm_poll_pooled).
 */
#include "channel/lc_shm.h"

static struct {
    char *base;        /* first pool cell, NULL: no pool */
    uint32_t ncells;
    uint32_t cell_size;
    uint32_t cursor;   /* next cell to try */
} lc_shm_pool;

void lc_shm_pool_init(const lc_shm_segment_t *seg)
{
    lc_shm_pool.base = seg ? lc_shm_segment_pool(seg) : NULL;
    lc_shm_pool.ncells = lc_shm_pool.base ? seg->pool_cells : 0;
    lc_shm_pool.cell_size = lc_shm_pool.base ? seg->pool_cell_size : 0;
    lc_shm_pool.cursor = 0;
}

/* A free pool cell, marked taken, or NULL when every cell is in flight. */
static lc_shm_pool_cell_t *lc_shm_pool_take(void)
{
    for (uint32_t k = 0; k < lc_shm_pool.ncells; k++) {
        uint32_t i = lc_shm_pool.cursor + k;
        if (i >= lc_shm_pool.ncells) i -= lc_shm_pool.ncells;
        lc_shm_pool_cell_t *c = (lc_shm_pool_cell_t *)(lc_shm_pool.base + (size_t)i * lc_shm_pool.cell_size);
        /* Acquire: the previous receiver's reads of the payload happened
         * before it cleared busy. */
        if (atomic_load_explicit(&c->busy, memory_order_acquire) == 0) {
            /* Relaxed: published by the ring packet's release. */
            atomic_store_explicit(&c->busy, 1, memory_order_relaxed);
            lc_shm_pool.cursor = i + 1 == lc_shm_pool.ncells ? 0 : i + 1;
            return c;
        }
    }
    return NULL;
}

int lc_shm_try_send_pooled(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           const void *data, size_t datalen)
{
    size_t len = prelen + datalen;
    if (len > (size_t)lc_shm_pool.cell_size - LC_SHM_POOL_HDR || !lc_shm_pool.base)
        lc_fatal("internal: a %zu-byte packet for rank %d fits neither a ring cell nor a pool cell", len,
                 peer->world_rank);
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    /* The ring slot first: a pool cell is taken only when the packet can
     * go out at once, so none is held by a packet that waits. */
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    lc_shm_pool_cell_t *pc = lc_shm_pool_take();
    if (!pc) return LC_AGAIN;
    char *payload = (char *)pc + LC_SHM_POOL_HDR;
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen) memcpy(payload + prelen, data, datalen);
    uint32_t index = (uint32_t)(((char *)pc - lc_shm_pool.base) / lc_shm_pool.cell_size);
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    cell->hdr.flags |= LC_SHM_FLAG_POOL;
    memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
    /* Release: pool payload, busy, header and index are visible before
     * the receiver sees the new sequence number. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    if (lc_unlikely(peer->shm.tx_bell)) lc_shm_bell_after_send(peer);
    return LC_OK;
}

/* A packet whose data is packed from a datatype cursor straight into the
 * ring cell or a pool cell (a derived-datatype send: no stage buffer).
 * Nothing is packed unless the packet goes out, so on LC_AGAIN the cursor
 * has not moved. */
int lc_shm_try_send_cursor(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           lc_dt_cursor_t *cur, size_t datalen)
{
    size_t len = prelen + datalen;
    bool pooled = len > peer->shm.tx_cell_size - LC_SHM_CELL_HDR;
    if (pooled && (len > (size_t)lc_shm_pool.cell_size - LC_SHM_POOL_HDR || !lc_shm_pool.base))
        lc_fatal("internal: a %zu-byte packet for rank %d fits neither a ring cell nor a pool cell", len,
                 peer->world_rank);
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    char *payload = (char *)cell + LC_SHM_CELL_HDR;
    lc_shm_pool_cell_t *pc = NULL;
    if (pooled) {
        if (!(pc = lc_shm_pool_take())) return LC_AGAIN;
        payload = (char *)pc + LC_SHM_POOL_HDR;
    }
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen && lc_dt_cursor_pack(cur, payload + prelen, datalen) != datalen)
        lc_fatal("internal: a datatype cursor for rank %d ran out before %zu bytes", peer->world_rank, datalen);
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    if (pooled) {
        uint32_t index = (uint32_t)(((char *)pc - lc_shm_pool.base) / lc_shm_pool.cell_size);
        cell->hdr.flags |= LC_SHM_FLAG_POOL;
        memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
    }
    /* Release: as in lc_shm_try_send(_pooled). */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    if (lc_unlikely(peer->shm.tx_bell)) lc_shm_bell_after_send(peer);
    return LC_OK;
}
