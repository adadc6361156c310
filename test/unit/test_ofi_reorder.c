/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the ofi channel's in-order delivery: packets handed to it
 * out of order (as a provider without send-after-send ordering could
 * deliver them) reach the engine's handler in sequence order, also across
 * the wrap of the 16-bit sequence counter; a packet further ahead than
 * the credit window is a protocol error that ends the process.
 *
 * One process: the packets are fabricated and fed to lc_ofi_arrived; the
 * endpoint is real (the delivered buffers are posted to it again).
 */
#include "lc_ofi_test.h"

#include "lc_unit_check.h"

static int got[64], ngot;

static void on_packet(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    (void)payload;
    if (ngot < 64) got[ngot++] = hdr->tag;
}

static lc_ofi_buf_t bufs[64];
static char *mem;
static int nbufs;

/* A fabricated packet from rank 1 with sequence number seq and tag. */
static lc_ofi_buf_t *packet(uint16_t seq, int tag)
{
    lc_ofi_buf_t *b = &bufs[nbufs];
    b->ctx.type = LC_OFI_CTX_RX;
    b->data = mem + (size_t)nbufs * lc_ofi.slot;
    nbufs++;
    lc_ofi_wire_t w = { .src = 1, .seq = seq, .credits = 0, .type = LC_OFI_WIRE_PKT };
    lc_pkt_hdr_t h = { .kind = LC_PKT_EAGER, .tag = tag, .len = 0 };
    memcpy(b->data, &w, sizeof(w));
    memcpy(b->data + sizeof(w), &h, sizeof(h));
    b->len = LC_OFI_HDR;
    return b;
}

static void feed(lc_peer_t *peer, uint16_t start, const int *order, int n)
{
    ngot = 0;
    peer->ofi.rx_seq = start;
    for (int i = 0; i < n; i++) lc_ofi_arrived(packet((uint16_t)(start + order[i]), order[i]));
}

static int one(const char *prov)
{
    (void)prov;
    failures = 0;
    nbufs = 0;
    lc_peer_t peers[2];
    memset(peers, 0, sizeof(peers));
    for (int r = 0; r < 2; r++) {
        peers[r].world_rank = r;
        lc_list_init(&peers[r].pending);
    }
    peers[0].kind = LC_CHANNEL_SELF;
    char addr[LC_OFI_ADDR_TEXT_MAX], why[256];
    if (lc_ofi_open(peers, 0, 2, 1, addr, sizeof(addr)) != 0) return 2;
    /* Rank 1 "is" our own endpoint: nothing is sent to it here. */
    if (lc_ofi_connect(&peers[1], addr, "self", why, sizeof(why)) != 0) {
        fprintf(stderr, "connect: %s\n", why);
        return 2;
    }
    lc_channel_recv_handler = on_packet;
    mem = calloc(64, lc_ofi.slot);
    lc_ofi.delivering = 1; /* as inside lc_ofi_poll */

    /* Gaps filled later: delivered in sequence order. */
    static const int order1[] = { 2, 0, 1, 5, 3, 4, 6 };
    feed(&peers[1], 100, order1, 7);
    CHECK(ngot == 7);
    for (int i = 0; i < ngot; i++) CHECK(got[i] == i);
    CHECK(peers[1].ofi.state->nheld == 0);

    /* Across the wrap of the 16-bit sequence number. */
    static const int order2[] = { 2, 0, 3, 1, 4 };
    feed(&peers[1], 65534, order2, 5);
    CHECK(ngot == 5);
    for (int i = 0; i < ngot; i++) CHECK(got[i] == i);
    CHECK(peers[1].ofi.rx_seq == (uint16_t)(65534 + 5));

    /* Nothing is delivered before the missing first packet arrives. */
    static const int order3[] = { 1, 2 };
    feed(&peers[1], 7, order3, 2);
    CHECK(ngot == 0 && peers[1].ofi.state->nheld == 2);
    lc_ofi_arrived(packet(7, 0));
    CHECK(ngot == 3 && got[0] == 0 && got[1] == 1 && got[2] == 2);

    /* Beyond the window: a protocol error, the process ends (exit 1). */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        peers[1].ofi.rx_seq = 10;
        lc_ofi_arrived(packet((uint16_t)(10 + lc_ofi.window), 0));
        _exit(0); /* not reached if the check works */
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);

    lc_ofi.delivering = 0;
    /* The fabricated packets never crossed the wire: no goodbye is due. */
    peers[1].ofi.state->talked = 0;
    peers[1].ofi.owed = 0;
    uint32_t window = lc_ofi.window;
    lc_ofi_close();
    free(mem);
    if (!failures) printf("reorder ok (window %u)\n", window);
    return failures ? 1 : 0;
}

int main(void)
{
    int failed = lc_t_each_provider(one);
    if (!failed) printf("ofi reorder: ok\n");
    return failed ? 1 : 0;
}
