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
 * since indexes and lengths are checked on receipt (lc_shm_decode_slow).
 *
 * Big cells (issue 13): a second, small set of larger cells with the same
 * ownership rules, taken only for DATA packets (pipeline fragments) that
 * do not fit a pool cell — the engine's fragment (peer->chunk) is a big
 * cell's payload when the sender has big cells.  Few of them, because
 * every rank holds its own: they give one pair up to BIG_CELLS x 64 KiB
 * in flight and fragments 8 times larger than the pool's, which is where
 * the two-copy pipeline's speed comes from (docs/architecture.md).  When
 * all are in flight a fragment waits (LC_AGAIN) like any packet that
 * finds its ring or pool full: the receivers free them as they poll.
 */
#include "channel/lc_shm.h"
#include "util/lc_copy_nt.h"
#include "util/lc_thread.h"

/* ThreadSanitizer watches one process: a pool cell that one of our
 * threads filled, a peer process emptied and handed back (busy = 0,
 * release) and another of our threads takes and fills again is ordered
 * through that peer, which it cannot see.  Tell it, in a TSan build only:
 * a release on the cell after it is published, an acquire when it is
 * taken.  Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define lc_shm_tsan_release(p) __tsan_release((void *)(p))
#define lc_shm_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define lc_shm_tsan_release(p) ((void)(p))
#define lc_shm_tsan_acquire(p) ((void)(p))
#endif

/* One set of cells of this process's segment that it fills and its
 * receivers hand back: the pool, or the big cells. */
typedef struct lc_shm_cellset {
    char *base;        /* first cell, NULL: none */
    uint32_t ncells;
    uint32_t cell_size;
    uint32_t cursor;   /* next cell to try */
} lc_shm_cellset_t;

static lc_shm_cellset_t lc_shm_pool, lc_shm_big;

static void lc_shm_cellset_init(lc_shm_cellset_t *set, char *base, uint32_t ncells, uint32_t cell_size)
{
    set->base = base;
    set->ncells = base ? ncells : 0;
    set->cell_size = base ? cell_size : 0;
    set->cursor = 0;
}

void lc_shm_pool_init(const lc_shm_segment_t *seg)
{
    lc_shm_cellset_init(&lc_shm_pool, seg ? lc_shm_segment_pool(seg) : NULL, seg ? seg->pool_cells : 0,
                        seg ? seg->pool_cell_size : 0);
    lc_shm_cellset_init(&lc_shm_big, seg ? lc_shm_segment_big(seg) : NULL, seg ? seg->big_cells : 0,
                        seg ? seg->big_cell_size : 0);
}

/* A free cell of `set`, marked taken, or NULL when every cell is in flight.
 * At MPI_THREAD_MULTIPLE two threads sending to different peers (under
 * different tx locks) take cells of the one set at once: a cell is then
 * taken by compare-and-swap, and the cursor is only a hint (relaxed). */
static lc_shm_pool_cell_t *lc_shm_cellset_take(lc_shm_cellset_t *set)
{
    int mt = lc_unlikely(lc_thread_locking());
    uint32_t cursor = __atomic_load_n(&set->cursor, __ATOMIC_RELAXED);
    for (uint32_t k = 0; k < set->ncells; k++) {
        uint32_t i = cursor + k;
        if (i >= set->ncells) i -= set->ncells;
        lc_shm_pool_cell_t *c = (lc_shm_pool_cell_t *)(set->base + (size_t)i * set->cell_size);
        /* Acquire: the previous receiver's reads of the payload happened
         * before it cleared busy. */
        if (atomic_load_explicit(&c->busy, memory_order_acquire) != 0) continue;
        if (!mt) {
            /* Relaxed: published by the ring packet's release. */
            atomic_store_explicit(&c->busy, 1, memory_order_relaxed);
        } else {
            uint64_t free_ = 0;
            if (!atomic_compare_exchange_strong_explicit(&c->busy, &free_, 1, memory_order_acquire,
                                                         memory_order_relaxed))
                continue; /* another thread of ours took it */
        }
        __atomic_store_n(&set->cursor, i + 1 == set->ncells ? 0 : i + 1, __ATOMIC_RELAXED);
        lc_shm_tsan_acquire(&c->busy);
        return c;
    }
    return NULL;
}

/* The set a packet of `len` bytes and kind `kind` goes through: the pool
 * when it fits a pool cell, the big cells for a DATA packet that fits
 * one; anything else is the engine's mistake (its packets are sized by
 * peer->eager_limit and peer->chunk, which lc_shm_connect derived from
 * these cells). */
static lc_shm_cellset_t *lc_shm_cellset_for(const lc_peer_t *peer, uint8_t kind, size_t len)
{
    if (lc_likely(lc_shm_pool.base && len <= (size_t)lc_shm_pool.cell_size - LC_SHM_POOL_HDR)) return &lc_shm_pool;
    if (kind == LC_PKT_DATA && lc_shm_big.base && len <= (size_t)lc_shm_big.cell_size - LC_SHM_POOL_HDR)
        return &lc_shm_big;
    lc_fatal("internal: a %zu-byte packet for rank %d fits neither a ring cell nor a pool or big cell", len,
             peer->world_rank);
}

/* Publish a packet whose payload is in cell `pc` of `set`: the ring cell
 * carries the header, the flags and the cell's index. */
static void lc_shm_publish_pooled(lc_peer_t *peer, lc_shm_cell_t *cell, uint64_t pos, const lc_shm_cellset_t *set,
                                  const lc_shm_pool_cell_t *pc, const lc_pkt_hdr_t *hdr, size_t len)
{
    uint32_t index = (uint32_t)(((const char *)pc - set->base) / set->cell_size);
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    cell->hdr.flags |= set == &lc_shm_big ? LC_SHM_FLAG_POOL | LC_SHM_FLAG_BIG : LC_SHM_FLAG_POOL;
    memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
    /* Release: the cell's payload, busy, header and index are visible
     * before the receiver sees the new sequence number. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    lc_shm_bell_check(peer);
}

int lc_shm_try_send_pooled(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           const void *data, size_t datalen)
{
    size_t len = prelen + datalen;
    lc_shm_cellset_t *set = lc_shm_cellset_for(peer, hdr->kind, len);
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    /* The ring slot first: a pool cell is taken only when the packet can
     * go out at once, so none is held by a packet that waits. */
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    lc_shm_pool_cell_t *pc = lc_shm_cellset_take(set);
    if (!pc) return LC_AGAIN;
    char *payload = (char *)pc + LC_SHM_POOL_HDR;
    if (prelen) memcpy(payload, pre, prelen);
    /* A fragment in a big cell, to a peer set so (LOCUS_SHM_BIG_NT):
     * non-temporal stores, so the receiver reads clean lines from memory
     * rather than dirty ones from our cache (lc_copy_nt.h); its closing
     * fence orders them before the release store that publishes the cell. */
    if (set == &lc_shm_big && peer->shm.tx_big_nt)
        lc_copy_nt(payload + prelen, data, datalen);
    else if (datalen)
        memcpy(payload + prelen, data, datalen);
    lc_shm_publish_pooled(peer, cell, pos, set, pc, hdr, len);
    lc_shm_tsan_release(&pc->busy);
    return LC_OK;
}

/* A packet whose data is packed from a datatype cursor straight into the
 * ring cell or a pool (or big) cell (a derived-datatype send: no stage
 * buffer).  Nothing is packed unless the packet goes out, so on LC_AGAIN
 * the cursor has not moved. */
int lc_shm_try_send_cursor(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                           lc_dt_cursor_t *cur, size_t datalen)
{
    size_t len = prelen + datalen;
    bool pooled = len > peer->shm.tx_cell_size - LC_SHM_CELL_HDR;
    lc_shm_cellset_t *set = pooled ? lc_shm_cellset_for(peer, hdr->kind, len) : NULL;
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    char *payload = (char *)cell + LC_SHM_CELL_HDR;
    lc_shm_pool_cell_t *pc = NULL;
    if (pooled) {
        if (!(pc = lc_shm_cellset_take(set))) return LC_AGAIN;
        payload = (char *)pc + LC_SHM_POOL_HDR;
    }
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen && lc_dt_cursor_pack(cur, payload + prelen, datalen) != datalen)
        lc_fatal("internal: a datatype cursor for rank %d ran out before %zu bytes", peer->world_rank, datalen);
    if (pooled) {
        lc_shm_publish_pooled(peer, cell, pos, set, pc, hdr, len);
        return LC_OK;
    }
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    /* Release: as in lc_shm_try_send. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    lc_shm_bell_check(peer);
    return LC_OK;
}
