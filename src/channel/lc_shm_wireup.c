/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_wireup.c — how the shared-memory channel sets up its peers: our
 * segment (created at open), each peer's segment (mapped at connect), and
 * the list of rings progress polls (at start).  The coordinator decides
 * which peers to try and what a failure means; the segments and the
 * per-peer ring state are this channel's alone.  The ring protocol is in
 * lc_shm.h, the segments in lc_shm.c.
 */
#include "channel/lc_shm.h"
#include "channel/lc_shm_split.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    lc_peer_t *peers;          /* the world-rank-indexed table of lc_shm_open */
    int size;
    char kvsname[256];
    lc_shm_segment_t mine;     /* our rings: we read them */
    lc_shm_segment_t *theirs;  /* [size]: the segment of each connected peer */
    lc_peer_t **rx;            /* [size]: the connected peers, whose rings we poll */
} lc_shm_wire;

uint32_t lc_shm_cell_size(void)
{
    size_t p = lc_params.shm_ring_cell_size > (64u << 20) ? (64u << 20) : lc_params.shm_ring_cell_size;
    size_t cell = p < 64 ? 64 : (p + 63) & ~(size_t)63;
    return (uint32_t)cell;
}

uint32_t lc_shm_pool_cell_size(void)
{
    size_t p = lc_params.shm_cell_size > (64u << 20) ? (64u << 20) : lc_params.shm_cell_size;
    size_t cell = p < 256 ? 256 : (p + 63) & ~(size_t)63;
    return (uint32_t)cell;
}

uint32_t lc_shm_pool_cells(void)
{
    long n = lc_params.shm_pool_cells;
    return n < 1 ? 1 : n > 65536 ? 65536 : (uint32_t)n;
}

size_t lc_shm_packet_max(void)
{
    return lc_shm_pool_cell_size() - LC_SHM_POOL_HDR;
}

uint32_t lc_shm_ring_cells(void)
{
    long want = lc_params.shm_ring_cells < 2 ? 2 : lc_params.shm_ring_cells;
    uint32_t n = 1;
    while (n < want && n < (1u << 20)) n <<= 1;
    return n;
}

int lc_shm_open(lc_peer_t *peers, int rank, int size, const char *kvsname, uint32_t nsenders,
                lc_shm_place_fn place, void *arg, int *placed, char *card, size_t cardlen)
{
    lc_shm_wire.theirs = calloc((size_t)size, sizeof(lc_shm_segment_t));
    lc_shm_wire.rx = calloc((size_t)size, sizeof(lc_peer_t *));
    if (!lc_shm_wire.theirs || !lc_shm_wire.rx) {
        lc_log_error("shared memory: out of memory for the segments of %d peers", size);
        return LC_ERROR;
    }
    lc_shm_wire.peers = peers;
    lc_shm_wire.size = size;
    snprintf(lc_shm_wire.kvsname, sizeof(lc_shm_wire.kvsname), "%s", kvsname);
    lc_shm_geometry_t g;
    lc_shm_geometry_default(nsenders, &g);
    if (lc_shm_segment_create_geom(&lc_shm_wire.mine, kvsname, rank, &g, place, arg, placed) != 0)
        return LC_ERROR;
    lc_shm_pool_init(&lc_shm_wire.mine);
    lc_shm_segment_card(&lc_shm_wire.mine, card, cardlen);
    return LC_OK;
}

int lc_shm_connect(lc_peer_t *peer, const char *card, uint32_t tx_ring, uint32_t rx_ring, char *why,
                   size_t whylen)
{
    if (!lc_shm_wire.theirs || !lc_shm_wire.mine.base) {
        snprintf(why, whylen, "internal: shared-memory channel not open");
        return LC_ERROR;
    }
    lc_shm_segment_t *seg = &lc_shm_wire.theirs[peer->world_rank];
    if (lc_shm_segment_attach(seg, lc_shm_wire.kvsname, peer->world_rank, card, why, whylen) != 0) return LC_ERROR;
    /* Both ends count the same candidates (the coordinator's choice is
     * symmetric); a segment with fewer rings is not this job's. */
    if (tx_ring >= seg->nrings || rx_ring >= lc_shm_wire.mine.nrings) {
        snprintf(why, whylen, "%s has %u rings, ring %u was expected there", seg->name, seg->nrings, tx_ring);
        lc_shm_segment_detach(seg);
        return LC_ERROR;
    }
    peer->kind = LC_CHANNEL_SHM;
    peer->ops = &lc_channel_shm_ops;
    peer->shm.tx_cells = lc_shm_segment_ring(seg, tx_ring);
    peer->shm.tx_pos = 0;
    peer->shm.tx_mask = seg->ncells - 1;
    peer->shm.tx_cell_size = seg->cell_size;
    peer->shm.rx_cells = lc_shm_segment_ring(&lc_shm_wire.mine, rx_ring);
    peer->shm.rx_pos = 0;
    peer->shm.rx_pool = lc_shm_segment_pool(seg);
    peer->shm.rx_pool_cells = seg->pool_cells;
    peer->shm.rx_pool_cell_size = seg->pool_cell_size;
    peer->shm.rx_big = lc_shm_segment_big(seg);
    peer->shm.rx_big_cells = seg->big_cells;
    peer->shm.rx_big_cell_size = seg->big_cell_size;
    /* With a progress thread here, assume one at the peer too (the same
     * job's environment): its thread may sleep waiting for our packets. */
    peer->shm.tx_bell_word = (lc_shm_bell_t *)((char *)seg->base + LC_SHM_BELL_OFFSET);
    peer->shm.tx_bell = lc_params.async_progress ? LC_SHM_BELL_ALWAYS : 0;
    peer->shm.tx_split = (lc_shm_split_slot_t *)((char *)seg->base + LC_SHM_SPLIT_OFFSET);
    peer->shm.rx_split = (lc_shm_split_slot_t *)((char *)lc_shm_wire.mine.base + LC_SHM_SPLIT_OFFSET);
    lc_shm_set_big_nt(peer, lc_params.shm_big_nt != 0);
    /* A packet fills at most one of the peer's ring cells (its
     * LOCUS_SHM_RING_CELL_SIZE may differ from ours) or one cell of our
     * pool, whichever is larger; a pipeline fragment one of our big cells
     * when we have them (lc_shm_pool.c), and it is also capped by
     * LOCUS_PIPELINE_CHUNK. */
    size_t payload = peer->shm.tx_cell_size - LC_SHM_CELL_HDR;
    if (lc_shm_wire.mine.pool_cells && lc_shm_wire.mine.pool_cell_size - LC_SHM_POOL_HDR > payload)
        payload = lc_shm_wire.mine.pool_cell_size - LC_SHM_POOL_HDR;
    peer->eager_limit = lc_params.eager_limit < payload ? lc_params.eager_limit : payload;
    if (lc_shm_wire.mine.big_cells && lc_shm_wire.mine.big_cell_size - LC_SHM_POOL_HDR > payload)
        payload = lc_shm_wire.mine.big_cell_size - LC_SHM_POOL_HDR;
    peer->chunk = payload - sizeof(lc_pkt_data_t);
    if (lc_params.pipeline_chunk && lc_params.pipeline_chunk < peer->chunk) peer->chunk = lc_params.pipeline_chunk;
    return 0;
}

char *lc_shm_own_base(void)
{
    return lc_shm_wire.mine.base;
}

void lc_shm_disconnect(lc_peer_t *peer)
{
    if (lc_shm_wire.theirs) lc_shm_segment_detach(&lc_shm_wire.theirs[peer->world_rank]);
    memset(&peer->shm, 0, sizeof(peer->shm));
    peer->kind = LC_CHANNEL_NONE;
    peer->ops = NULL;
    peer->can_pull = false;
    peer->pull_min = 0;
    lc_peer_pick_reset(peer, false);
    peer->eager_limit = 0;
    peer->chunk = 0;
}

int lc_shm_peer_alive(int world_rank)
{
    if (!lc_shm_wire.theirs || world_rank < 0 || world_rank >= lc_shm_wire.size ||
        lc_shm_wire.peers[world_rank].kind != LC_CHANNEL_SHM)
        return -1;
    return lc_shm_segment_owner_alive(&lc_shm_wire.theirs[world_rank]);
}

void lc_shm_unlink(void)
{
    lc_shm_segment_unlink(&lc_shm_wire.mine);
}

void lc_shm_start(void)
{
    int n = 0;
    for (int r = 0; r < lc_shm_wire.size; r++)
        if (lc_shm_wire.peers[r].kind == LC_CHANNEL_SHM) lc_shm_wire.rx[n++] = &lc_shm_wire.peers[r];
    lc_shm_set_rx_peers(lc_shm_wire.rx, n, lc_shm_ring_cells(), lc_shm_cell_size());
}

void lc_shm_close(void)
{
    lc_shm_set_rx_peers(NULL, 0, 2, 256);
    if (lc_shm_wire.theirs)
        for (int r = 0; r < lc_shm_wire.size; r++) lc_shm_segment_detach(&lc_shm_wire.theirs[r]);
    lc_shm_pool_init(NULL);
    lc_shm_segment_detach(&lc_shm_wire.mine);
    free(lc_shm_wire.theirs);
    free(lc_shm_wire.rx);
    memset(&lc_shm_wire, 0, sizeof(lc_shm_wire));
}
