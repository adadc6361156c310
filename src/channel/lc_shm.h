/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm.h — shared-memory rings between the processes of one host.
 *
 * Every process owns one segment holding one single-producer/single-
 * consumer ring per local sender.  A ring is an array of fixed-size cells;
 * each cell starts with a 64-bit sequence number that carries both
 * ownership and ordering (the scheme of Vyukov's bounded queue):
 *
 *   seq == pos            cell is free for the sender's write number pos
 *   seq == pos + 1        cell holds packet number pos for the receiver
 *   seq == pos + ncells   receiver released it: free for write pos + ncells
 *
 * Sender and receiver positions live in private memory (lc_peer_t), so the
 * only cache lines that move between the two cores are the cells
 * themselves; an 8-byte message is one line (8 B seq + 24 B header +
 * payload from byte 32).  No lock, no system call, no allocation.
 */
#ifndef LC_SHM_H
#define LC_SHM_H

#include "channel/lc_channel.h"

#include <stdatomic.h>
#include <string.h>

#define LC_SHM_CELL_HDR 32 /* sequence + packet header */

typedef struct lc_shm_cell {
    _Atomic uint64_t seq;
    lc_pkt_hdr_t hdr;
    /* payload follows at offset LC_SHM_CELL_HDR */
} lc_shm_cell_t;

_Static_assert(sizeof(lc_shm_cell_t) == LC_SHM_CELL_HDR, "cell header must be 32 bytes");

static inline lc_shm_cell_t *lc_shm_cell(char *cells, uint64_t pos, uint64_t mask, uint32_t cell_size)
{
    return (lc_shm_cell_t *)(cells + (pos & mask) * cell_size);
}

/* Fast path of a send: one packet into the peer's ring, or LC_AGAIN when
 * the ring is full.  The caller guarantees prelen + datalen fits a cell. */
LC_INLINE int lc_shm_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                              const void *data, size_t datalen)
{
    uint64_t pos = peer->shm.tx_pos;
    lc_shm_cell_t *cell = lc_shm_cell(peer->shm.tx_cells, pos, peer->shm.tx_mask, peer->shm.tx_cell_size);
    /* Acquire: the receiver's reads of this cell's previous contents
     * happened before it released the cell to us. */
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos) return LC_AGAIN;
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)(prelen + datalen);
    char *payload = (char *)cell + LC_SHM_CELL_HDR;
    if (prelen) memcpy(payload, pre, prelen);
    if (datalen) memcpy(payload + prelen, data, datalen);
    /* Release: header and payload are visible before the receiver sees
     * the new sequence number. */
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    peer->shm.tx_pos = pos + 1;
    return LC_OK;
}

/* Segment of this process: rings for `nsenders` local senders. */
typedef struct lc_shm_segment {
    char name[512];     /* shm_open name, "/locus-<kvsname>-<rank>-<token>" (LOCUS_SHM_DIR/... there) */
    void *base;
    uint64_t token;     /* random part of the name */
    uint64_t key;       /* random key in the header, checked at attach */
    size_t size;
    uint32_t cell_size, ncells, nrings;
    int unlinked;
} lc_shm_segment_t;

/* Create and initialise this process's segment (all cells free).
 * Returns 0, or -1 after logging why (and what to do). */
int lc_shm_segment_create(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                          uint32_t cell_size, uint32_t ncells);
/* Memory placement of a new segment: called on the mapping before any of
 * its pages exists, so that the policy it sets (e.g. a NUMA node) decides
 * where they are allocated.  Returns what lc_shm_segment_create_placed
 * hands back in `placed` (the caller's convention, e.g. 1 applied). */
typedef int (*lc_shm_place_fn)(void *addr, size_t len, void *arg);
/* lc_shm_segment_create with a placement hook (NULL: none).  Without one,
 * or if it sets no policy, the pages are allocated by this process — the
 * segment's receiver — when it creates the segment (first touch: its
 * current node). */
int lc_shm_segment_create_placed(lc_shm_segment_t *seg, const char *kvsname, int rank, uint32_t nsenders,
                                 uint32_t cell_size, uint32_t ncells, lc_shm_place_fn place, void *arg,
                                 int *placed);
/* What a peer needs to find and trust a segment: its name's random token
 * and its header's key, 32 hex digits (buf of at least 33 bytes).  It is
 * published only through the job's PMI key/value space. */
#define LC_SHM_CARD_LEN 33
void lc_shm_segment_card(const lc_shm_segment_t *seg, char *buf, size_t len);
/* Map a peer's segment read-write, given the card its owner published:
 * opened without following links, a regular file of ours with mode 0600,
 * the key of the card in its header, a valid geometry that fits its size.
 * Returns 0, or -1 with the reason (naming the segment) in `why` (not
 * logged: the caller decides whether it matters). */
int lc_shm_segment_attach(lc_shm_segment_t *seg, const char *kvsname, int rank, const char *card, char *why,
                          size_t whylen);
/* n random bytes (getrandom).  0, or -1 with errno. */
int lc_shm_random(void *buf, size_t n);
/* An opened segment object is a regular file owned by us that nobody
 * else may open (no group/other permission bits).  0, or -1 with the
 * reason in `why`. */
int lc_shm_check_fd(int fd, const char *name, char *why, size_t whylen);
/* Remove the name (mappings stay valid).  Idempotent. */
void lc_shm_segment_unlink(lc_shm_segment_t *seg);
void lc_shm_segment_detach(lc_shm_segment_t *seg);
/* Start of ring `index` (the sender's local index) inside a segment. */
char *lc_shm_segment_ring(const lc_shm_segment_t *seg, uint32_t index);

/* ---- wire-up (lc_shm_wireup.c), driven by the coordinator ------------
 *
 * open (our segment) -> connect (each shm peer: attach its segment) ->
 * unlink (after the fence that follows every attach) -> start (poll the
 * connected peers' rings) -> close.  The segments are the channel's own;
 * the coordinator only decides which peers to try and what a failure
 * means. */

/* Cell size and cells per ring this process uses (LOCUS_SHM_CELL_SIZE
 * rounded up to 64 bytes, at least 256; LOCUS_SHM_RING_CELLS rounded up
 * to a power of two, at least 2). */
uint32_t lc_shm_cell_size(void);
uint32_t lc_shm_ring_cells(void);

/* Create this process's segment: `nsenders` rings, ring i written by the
 * local sender of index i (ourselves included, as in lc_shm_connect).
 * `peers` is the world-rank-indexed table of `size` peers; `place` as in
 * lc_shm_segment_create_placed (NULL: first touch), its result in
 * `placed`.  Our segment's card (lc_shm_segment_card) in `card`, for the
 * coordinator to publish.  Returns LC_OK, or LC_ERROR after logging what
 * failed and what to do. */
int lc_shm_open(lc_peer_t *peers, int rank, int size, const char *kvsname, uint32_t nsenders,
                lc_shm_place_fn place, void *arg, int *placed, char *card, size_t cardlen);
/* Make `peer` a shared-memory peer: map its segment (found and checked
 * with the card it published), write to its ring
 * `tx_ring` (our local index) and read ours `rx_ring` (its local index).
 * Sets kind, ops, eager_limit and chunk (what the peer's cells and ours
 * hold) and peer->shm; can_pull stays for a single-copy mechanism to
 * prove (lc_cma_connect).  Returns LC_OK, or LC_ERROR with the reason in
 * `why`, not logged: whether it matters is the caller's decision. */
int lc_shm_connect(lc_peer_t *peer, const char *card, uint32_t tx_ring, uint32_t rx_ring, char *why,
                   size_t whylen);
/* Undo lc_shm_connect (the pair goes another way): unmap the peer's
 * segment; kind LC_CHANNEL_NONE, no ops, nothing to pull. */
void lc_shm_disconnect(lc_peer_t *peer);
/* Remove our segment's name once every peer has mapped it (mappings stay). */
void lc_shm_unlink(void);
/* Poll the rings of every peer in the table that is connected (kind
 * LC_CHANNEL_SHM).  Call when no peer can have sent yet. */
void lc_shm_start(void);
/* Stop polling, unmap every segment, unlink ours.  Idempotent. */
void lc_shm_close(void);

/* Peers whose rings this process polls (lc_shm_start, or a test). */
void lc_shm_set_rx_peers(lc_peer_t **peers, int n, uint32_t ncells, uint32_t cell_size);
/* Hand every waiting packet (at most a bounded batch per peer) to the
 * engine's handler.  Returns the number of packets handled. */
int lc_shm_poll(void);

#endif
