/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the big cells (issue 13): pipeline fragments larger than a
 * pool cell go through the sender's big cells and arrive intact (a
 * checksum per fragment), in order, mixed with pooled and inline packets;
 * when every big cell is in flight a fragment waits (LC_AGAIN) and goes
 * once the receiver polled; the count follows the job size; and what a
 * peer writes is checked: a segment header whose big cells do not fit is
 * refused at attach, a forged big-cell index, length or kind ends the
 * receiver with a protocol error (exit LC_PEER_FAULT_EXIT, not a crash
 * or a read outside the segment).
 */
#include "channel/lc_shm.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

#define POOL_CELL 1024
#define BIG_CELL 8192
#define NBIG 3

static int got, bad, in_big;
static uint64_t next_off;

/* The bytes of fragment offset `off`: a function of the offset, so a
 * misplaced or stale fragment fails the comparison. */
static unsigned char byte_at(uint64_t off, size_t i)
{
    return (unsigned char)((off * 2654435761u + i * 7 + (i >> 8)) & 0xff);
}

static void on_packet(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    if (hdr->kind != LC_PKT_DATA || hdr->flags != 0 || hdr->len <= sizeof(lc_pkt_data_t)) {
        bad++;
        return;
    }
    lc_pkt_data_t d;
    memcpy(&d, payload, sizeof(d));
    size_t n = hdr->len - sizeof(d);
    const unsigned char *p = (const unsigned char *)payload + sizeof(d);
    if (d.offset != next_off) bad++;
    uint32_t sum = 0, want = 0;
    for (size_t i = 0; i < n; i++) {
        sum = sum * 31 + p[i];
        want = want * 31 + byte_at(d.offset, i);
    }
    if (sum != want || d.rreq != (uint32_t)(n & 0xffff)) bad++;
    if (n > POOL_CELL - 64 - sizeof(d)) in_big++;
    next_off = d.offset + n;
    got++;
}

/* One process plays both ends over a segment of one ring: 8 cells of
 * 64 B, a pool of 4 x 1 KiB, NBIG big cells of 8 KiB. */
static lc_shm_segment_t seg, peer_seg;
static lc_peer_t peer;

static void setup(const char *kvs)
{
    lc_shm_geometry_t g = { .nrings = 1,
                            .cell_size = 64,
                            .ncells = 8,
                            .pool_cell_size = POOL_CELL,
                            .pool_cells = 4,
                            .big_cell_size = BIG_CELL,
                            .big_cells = NBIG };
    char card[LC_SHM_CARD_LEN], why[256];
    CHECK(lc_shm_segment_create_geom(&seg, kvs, 0, &g, NULL, NULL, NULL) == 0);
    lc_shm_segment_card(&seg, card, sizeof(card));
    if (lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0) {
        fprintf(stderr, "attach: %s\n", why);
        exit(1);
    }
    CHECK(peer_seg.big_cells == NBIG && peer_seg.big_cell_size == BIG_CELL);
    CHECK(lc_shm_segment_big(&peer_seg) == lc_shm_segment_pool(&peer_seg) + 4 * POOL_CELL);
    lc_shm_pool_init(&seg);
    memset(&peer, 0, sizeof(peer));
    peer.shm.tx_cells = lc_shm_segment_ring(&peer_seg, 0);
    peer.shm.tx_mask = 7;
    peer.shm.tx_cell_size = 64;
    peer.shm.rx_cells = lc_shm_segment_ring(&seg, 0);
    peer.shm.rx_pool = lc_shm_segment_pool(&peer_seg);
    peer.shm.rx_pool_cells = peer_seg.pool_cells;
    peer.shm.rx_pool_cell_size = peer_seg.pool_cell_size;
    peer.shm.rx_big = lc_shm_segment_big(&peer_seg);
    peer.shm.rx_big_cells = peer_seg.big_cells;
    peer.shm.rx_big_cell_size = peer_seg.big_cell_size;
    static lc_peer_t *rxp = &peer;
    lc_shm_set_rx_peers(&rxp, 1, 8, 64);
    lc_channel_recv_handler = on_packet;
}

/* A message of `total` bytes in DATA fragments of at most `chunk`. */
static void stream(uint64_t total, size_t chunk, int *waits)
{
    static unsigned char buf[BIG_CELL];
    uint64_t off = 0;
    int sent = 0;
    while (off < total) {
        size_t n = total - off < chunk ? (size_t)(total - off) : chunk;
        for (size_t i = 0; i < n; i++) buf[i] = byte_at(off, i);
        lc_pkt_hdr_t hdr = { .kind = LC_PKT_DATA };
        lc_pkt_data_t d = { .rreq = (uint32_t)(n & 0xffff), .offset = off };
        while (lc_shm_try_send(&peer, &hdr, &d, sizeof(d), buf, n) != LC_OK) {
            (*waits)++;
            lc_shm_poll();
        }
        off += n;
        sent++;
    }
    while (got < sent) lc_shm_poll();
}

static void teardown(void)
{
    lc_shm_set_rx_peers(NULL, 0, 2, 64);
    lc_shm_pool_init(NULL);
    lc_shm_segment_detach(&peer_seg);
    lc_shm_segment_detach(&seg);
}

/* A forged packet in the ring of the segment we read: the receiver must
 * end with an error, not read. */
static void expect_fault(uint8_t kind, uint32_t len, uint32_t index)
{
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        lc_shm_cell_t *cell = lc_shm_cell(peer.shm.tx_cells, peer.shm.tx_pos, 7, 64);
        cell->hdr = (lc_pkt_hdr_t){ .kind = kind, .flags = LC_SHM_FLAG_POOL | LC_SHM_FLAG_BIG, .len = len };
        memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
        atomic_store(&cell->seq, peer.shm.tx_pos + 1);
        lc_shm_poll();
        _exit(0); /* not reached: a protocol error ends the process */
    }
    int status = 0;
    waitpid(child, &status, 0);
    /* A protocol error (lc_peer_fault's exit code), not a crash. */
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == LC_PEER_FAULT_EXIT,
           "forged big cell (kind %u, len %u, index %u): %s %d, not the protocol error's exit %d", kind, len, index,
           WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
           LC_PEER_FAULT_EXIT);
}

int main(void)
{
    lc_params_load_for(LC_PARAM_RANKS);
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "unitbig%d", (int)getpid());

    /* The count by job size, and the parameters. */
    CHECK(lc_shm_big_cell_size() == 65536);
    CHECK(lc_shm_big_cells(2) == 16 && lc_shm_big_cells(16) == 16 && lc_shm_big_cells(17) == 8 &&
          lc_shm_big_cells(32) == 8 && lc_shm_big_cells(33) == 4 && lc_shm_big_cells(256) == 4);
    setenv("LOCUS_SHM_BIG_CELLS", "0", 1);
    lc_params_load_for(LC_PARAM_RANKS);
    CHECK(lc_shm_big_cells(2) == 0);
    setenv("LOCUS_SHM_BIG_CELLS", "5", 1);
    setenv("LOCUS_SHM_BIG_CELL_SIZE", "8k", 1); /* not larger than a pool cell: none */
    lc_params_load_for(LC_PARAM_RANKS);
    CHECK(lc_shm_big_cells(2) == 0);
    setenv("LOCUS_SHM_BIG_CELL_SIZE", "128k", 1);
    lc_params_load_for(LC_PARAM_RANKS);
    CHECK(lc_shm_big_cells(300) == 5 && lc_shm_big_cell_size() == 131072);
    unsetenv("LOCUS_SHM_BIG_CELLS");
    unsetenv("LOCUS_SHM_BIG_CELL_SIZE");
    lc_params_load_for(LC_PARAM_RANKS);

    setup(kvs);
    /* 1 MiB in full big-cell fragments: NBIG in flight, then waits. */
    int waits = 0;
    size_t chunk = BIG_CELL - 64 - sizeof(lc_pkt_data_t);
    stream(1 << 20, chunk, &waits);
    CHECKF(got == (int)((1u << 20) / chunk + 1) && bad == 0, "got %d fragments, %d bad", got, bad);
    CHECKF(in_big == got - 1 || in_big == got, "%d of %d fragments in big cells", in_big, got);
    CHECKF(waits > 0, "never waited: %d big cells should run out", NBIG);
    /* The same with non-temporal stores (lc_copy_nt; lc_shm_connect sets
     * tx_big_nt from LOCUS_SHM_BIG_NT): whole fragments, then odd ones (a
     * tail in every fragment). */
    lc_shm_set_big_nt(&peer, true);
    for (size_t c = chunk; c + 200 > chunk; c -= 101) {
        got = 0, bad = 0, in_big = 0, next_off = 0;
        stream(1 << 20, c, &waits);
        CHECKF(got == (int)(((1u << 20) + c - 1) / c) && bad == 0 && in_big >= got - 1,
               "non-temporal, fragments of %zu: got %d, %d bad, %d in big cells", c, got, bad, in_big);
    }
    lc_shm_set_big_nt(&peer, false);
    /* Every big cell came back: NBIG fragments go out without a poll. */
    got = 0, next_off = 0;
    static unsigned char buf[BIG_CELL];
    for (int i = 0; i < NBIG; i++) {
        for (size_t k = 0; k < chunk; k++) buf[k] = byte_at((uint64_t)i * chunk, k);
        lc_pkt_hdr_t hdr = { .kind = LC_PKT_DATA };
        lc_pkt_data_t d = { .rreq = (uint32_t)(chunk & 0xffff), .offset = (uint64_t)i * chunk };
        CHECK(lc_shm_try_send(&peer, &hdr, &d, sizeof(d), buf, chunk) == LC_OK);
    }
    lc_pkt_hdr_t hdr = { .kind = LC_PKT_DATA };
    lc_pkt_data_t d = { .rreq = (uint32_t)(chunk & 0xffff), .offset = (uint64_t)NBIG * chunk };
    CHECK(lc_shm_try_send(&peer, &hdr, &d, sizeof(d), buf, chunk) == LC_AGAIN); /* exhausted */
    /* ... while a fragment that fits the pool still goes (the pool is not the big cells). */
    size_t small = POOL_CELL - 64 - sizeof(lc_pkt_data_t);
    for (size_t k = 0; k < small; k++) buf[k] = byte_at((uint64_t)NBIG * chunk, k);
    d.rreq = (uint32_t)(small & 0xffff);
    CHECK(lc_shm_try_send(&peer, &hdr, &d, sizeof(d), buf, small) == LC_OK);
    while (got < NBIG + 1) lc_shm_poll();
    CHECK(bad == 0);
    /* Fragment sizes of every kind in one message: inline, pool, big. */
    got = 0, next_off = 0, waits = 0;
    uint64_t total = 0;
    size_t sizes[] = { 10, chunk, 500, small, small + 1, 7000, chunk };
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        for (size_t k = 0; k < n; k++) buf[k] = byte_at(total, k);
        lc_pkt_data_t dd = { .rreq = (uint32_t)(n & 0xffff), .offset = total };
        while (lc_shm_try_send(&peer, &hdr, &dd, sizeof(dd), buf, n) != LC_OK) lc_shm_poll();
        total += n;
    }
    while (got < 7) lc_shm_poll();
    CHECKF(bad == 0 && next_off == total, "mixed fragments: %d bad, %llu of %llu bytes", bad,
           (unsigned long long)next_off, (unsigned long long)total);

    /* Forged packets in big cells. */
    expect_fault(LC_PKT_DATA, 100, NBIG);        /* index beyond the big cells */
    expect_fault(LC_PKT_DATA, 100, 0xffffffffu); /* far beyond */
    expect_fault(LC_PKT_DATA, BIG_CELL - 63, 0); /* longer than a big cell */
    expect_fault(LC_PKT_EAGER, 100, 0);          /* not a pipeline fragment */
    teardown();

    /* A header that claims big cells its segment does not hold. */
    setup(kvs);
    lc_shm_segment_detach(&peer_seg);
    char card[LC_SHM_CARD_LEN], why[256];
    lc_shm_segment_card(&seg, card, sizeof(card));
    uint32_t *big_cells = (uint32_t *)((char *)seg.base + 40); /* lc_shm_seg_hdr_t.big_cells */
    CHECK(*big_cells == NBIG);
    *big_cells = NBIG + 1;
    CHECK(lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0 && strstr(why, "big cells"));
    *big_cells = 1u << 20;
    CHECK(lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0 && strstr(why, "big cells"));
    *big_cells = NBIG;
    uint32_t *big_size = big_cells + 1;
    *big_size = BIG_CELL + 32; /* not a multiple of 64 */
    CHECK(lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) != 0 && strstr(why, "big cells"));
    *big_size = BIG_CELL;
    CHECK(lc_shm_segment_attach(&peer_seg, kvs, 0, card, why, sizeof(why)) == 0);
    lc_shm_segment_unlink(&seg);
    teardown();

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
