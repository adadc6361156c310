/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the shared-memory footprint (issue 13): the formula
 * (lc_shm_segment_bytes) is what a created segment really occupies, the
 * defaults meet the targets (<= 64 MiB at 64 ranks, <= 512 MiB
 * at 256, linear in the rank count but for the small rings), and the
 * send pool works: packets larger than a ring cell go through the
 * sender's pool and arrive intact, pool cells come back, and a packet
 * naming a pool cell out of bounds is refused (the receiver exits with a
 * protocol error instead of reading outside the segment).
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

#define MIB (1024.0 * 1024.0)

static int got, bad;
static void on_packet(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    const unsigned char *p = payload;
    size_t want = 100 + (size_t)hdr->tag * 37;
    if (hdr->flags != 0 || hdr->len != want) bad++;
    for (size_t i = 0; i < hdr->len && !bad; i++)
        if (p[i] != (unsigned char)(hdr->tag + i)) bad++;
    got++;
}

static void pool_round_trip(const char *kvs)
{
    /* One process plays both ends: its segment has 1 ring (written by
     * itself) and a pool of 4 cells of 1 KiB. */
    lc_shm_geometry_t g = { .nrings = 1, .cell_size = 64, .ncells = 8, .pool_cell_size = 1024, .pool_cells = 4 };
    lc_shm_segment_t seg, peer_seg;
    char card[LC_SHM_CARD_LEN], why[256];
    CHECK(lc_shm_segment_create_geom(&seg, kvs, 0, &g, NULL, NULL, NULL) == 0);
    lc_shm_segment_card(&seg, card, sizeof(card));
    if (lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0) {
        fprintf(stderr, "attach: %s\n", why);
        exit(1);
    }
    lc_shm_segment_unlink(&seg);
    CHECK(peer_seg.pool_cells == 4 && peer_seg.pool_cell_size == 1024);
    struct stat st;
    (void)st;
    lc_shm_pool_init(&seg);
    lc_peer_t peer;
    memset(&peer, 0, sizeof(peer));
    peer.shm.tx_cells = lc_shm_segment_ring(&peer_seg, 0);
    peer.shm.tx_mask = 7;
    peer.shm.tx_cell_size = 64;
    peer.shm.rx_cells = lc_shm_segment_ring(&seg, 0);
    peer.shm.rx_pool = lc_shm_segment_pool(&peer_seg);
    peer.shm.rx_pool_cells = peer_seg.pool_cells;
    peer.shm.rx_pool_cell_size = peer_seg.pool_cell_size;
    lc_peer_t *rxp = &peer;
    lc_shm_set_rx_peers(&rxp, 1, 8, 64);
    lc_channel_recv_handler = on_packet;
    unsigned char buf[1024];
    int sent = 0, full = 0;
    for (int t = 0; t < 24; t++) {
        size_t len = 100 + (size_t)t * 37; /* 100..951: all through the pool */
        for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(t + i);
        lc_pkt_hdr_t hdr = { .kind = LC_PKT_EAGER, .tag = t };
        while (lc_shm_try_send(&peer, &hdr, buf, 16, buf + 16, len - 16) != LC_OK) {
            full++; /* 4 pool cells: the 5th send waits for a poll */
            lc_shm_poll();
        }
        sent++;
    }
    while (got < sent) lc_shm_poll();
    CHECK(got == 24 && bad == 0 && full > 0);

    /* A forged packet: a pool index out of bounds. */
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        lc_shm_cell_t *cell = lc_shm_cell(peer.shm.tx_cells, peer.shm.tx_pos, 7, 64);
        cell->hdr = (lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .flags = LC_SHM_FLAG_POOL, .len = 10 };
        uint32_t index = 4;
        memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
        atomic_store(&cell->seq, peer.shm.tx_pos + 1);
        lc_shm_poll();
        _exit(0); /* not reached: lc_fatal */
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
    lc_shm_set_rx_peers(NULL, 0, 2, 64);
    lc_shm_pool_init(NULL);
    lc_shm_segment_detach(&peer_seg);
    lc_shm_segment_detach(&seg);
}

int main(void)
{
    lc_params_load_for(LC_PARAM_RANKS);
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "unitfoot%d", (int)getpid());

    /* Defaults: 32 ring cells of 128 B, a pool of 32 cells of 8 KiB, and
     * 4 big cells of 64 KiB beyond 32 ranks. */
    lc_shm_geometry_t g;
    lc_shm_geometry_default(64, &g);
    CHECK(g.nrings == 64 && g.ncells == 32 && g.cell_size == 128 && g.pool_cells == 32 && g.pool_cell_size == 8192);
    CHECK(g.big_cells == 4 && g.big_cell_size == 65536);
    CHECK(lc_shm_segment_bytes(&g) == 4096 + 64 * 32 * 128 + 32 * 8192 + 4 * 65536);
    /* Big cells follow the pool. */
    lc_shm_geometry_t withbig = { .nrings = 3,
                                  .cell_size = 64,
                                  .ncells = 2,
                                  .pool_cell_size = 256,
                                  .pool_cells = 1,
                                  .big_cell_size = 1024,
                                  .big_cells = 3 };
    CHECK(lc_shm_segment_bytes(&withbig) == 4096 + 4096 + 256 + 3 * 1024);
    /* Ring bytes round up to a page before the pool. */
    lc_shm_geometry_t odd = { .nrings = 3, .cell_size = 64, .ncells = 2, .pool_cell_size = 256, .pool_cells = 1 };
    CHECK(lc_shm_segment_bytes(&odd) == 4096 + 4096 + 256);
    lc_shm_geometry_t nopool = { .nrings = 2, .cell_size = 1024, .ncells = 8 };
    CHECK(lc_shm_segment_bytes(&nopool) == 4096 + 16384);
    double at16 = lc_shm_host_bytes(16) / MIB, at64 = lc_shm_host_bytes(64) / MIB,
           at256 = lc_shm_host_bytes(256) / MIB;
    printf("default footprint: 16 ranks %.1f MiB, 64 ranks %.1f MiB, 256 ranks %.1f MiB\n", at16, at64, at256);
    CHECK(at64 <= 64.0);
    CHECK(at256 <= 512.0);
    /* docs/architecture.md's figures: 21 / 48 / 385 MiB. */
    CHECK(lc_shm_host_bytes(16) == 16ull * (4096 + 16 * 4096 + 32 * 8192 + 16 * 65536));
    CHECK(lc_shm_host_bytes(64) == 64ull * (4096 + 64 * 4096 + 32 * 8192 + 4 * 65536));
    CHECK(lc_shm_host_bytes(256) == 256ull * (4096 + 256 * 4096 + 32 * 8192 + 4 * 65536));
    CHECK(lc_shm_host_bytes(2) < 3 * MIB);

    /* What the formula says is what a segment takes. */
    lc_shm_segment_t seg;
    lc_shm_geometry_default(5, &g);
    CHECK(lc_shm_segment_create_geom(&seg, kvs, 1, &g, NULL, NULL, NULL) == 0);
    struct stat st;
    char path[600];
    snprintf(path, sizeof(path), "%s", seg.name);
    CHECK(stat(path, &st) == 0);
    {
        CHECK((size_t)st.st_size == lc_shm_segment_bytes(&g));
        CHECK((uint64_t)st.st_blocks * 512 >= lc_shm_segment_bytes(&g)); /* fallocate: all of it, at once */
    }
    CHECK(seg.pool_cells == 32 && lc_shm_segment_pool(&seg) != NULL);
    CHECK(seg.big_cells == 16 && lc_shm_segment_big(&seg) == lc_shm_segment_pool(&seg) + 32 * 8192);
    lc_shm_segment_detach(&seg);

    /* Parameters move it. */
    setenv("LOCUS_SHM_POOL_CELLS", "8", 1);
    setenv("LOCUS_SHM_RING_CELL_SIZE", "100", 1); /* rounded up to 128 */
    lc_params_load_for(LC_PARAM_RANKS);
    lc_shm_geometry_default(4, &g);
    CHECK(g.pool_cells == 8 && g.cell_size == 128);
    CHECK(lc_shm_host_bytes(4) == 4 * (uint64_t)(4096 + 4096 * 4 + 8 * 8192 + 16 * 65536));
    unsetenv("LOCUS_SHM_POOL_CELLS");
    unsetenv("LOCUS_SHM_RING_CELL_SIZE");
    lc_params_load_for(LC_PARAM_RANKS);

    pool_round_trip(kvs);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
