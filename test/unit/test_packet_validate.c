/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of what a peer's packet can and cannot do (issue 12, point 4).
 *
 * 1. The decoders (lc_pkt_decode.h) on crafted ring cells, pool cells and
 *    network packets: each bad field gets its refusal, good packets pass
 *    with their payload where it belongs and control payloads copied.
 * 2. The engine's checks on the decoded copies (lc_pt2pt_*.c), through
 *    the self channel: a DATA fragment or control packet naming a request
 *    not waiting for it, a message claiming another rank as its source.
 * 3. Real rings (lc_shm_poll over a segment): a forged cell ends the
 *    process with exit code LC_PEER_FAULT_EXIT and one message naming the
 *    peer, the channel and the field — not a crash.
 * 2 and 3 run in forked children whose stderr is checked.
 */
#include "channel/lc_pkt_decode.h"
#include "channel/lc_shm.h"
#include "coord/lc_world.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_unit_check.h"

#define CELL 128
#define POOL_CELLS 4
#define POOL_CELL 1024

#define BIG_CELLS 2
#define BIG_CELL 4096

static _Alignas(64) char pool[POOL_CELLS * POOL_CELL];
static _Alignas(64) char big[BIG_CELLS * BIG_CELL];
static const lc_shm_rx_ctx_t shm_ctx = { .cell_size = CELL,
                                         .pool_cells = POOL_CELLS,
                                         .pool_cell_size = POOL_CELL,
                                         .pool = pool,
                                         .big_cells = BIG_CELLS,
                                         .big_cell_size = BIG_CELL,
                                         .big = big };

/* A ring cell holding hdr (+ payload bytes). */
static void make_cell(char *cell, const lc_pkt_hdr_t *hdr, const void *payload, size_t n)
{
    memset(cell, 0, CELL);
    memcpy(cell + 8, hdr, sizeof(*hdr));
    if (n) memcpy(cell + LC_SHM_CELL_HDR, payload, n);
}

/* Decode a ring cell; `want` NULL: must pass, else a word of the refusal. */
static void expect_cell(int line, const lc_pkt_hdr_t *hdr, const void *payload, size_t n, const char *want)
{
    _Alignas(64) char cell[CELL];
    make_cell(cell, hdr, payload, n);
    lc_pkt_in_t in;
    char why[160];
    const char *r = lc_shm_decode(cell, &shm_ctx, &in, why, sizeof(why));
    if (!want && r) {
        fprintf(stderr, "FAILED (line %d): a good cell was refused: %s\n", line, r);
        failures++;
    } else if (want && (!r || !strstr(r, want))) {
        fprintf(stderr, "FAILED (line %d): expected a refusal with \"%s\", got %s\n", line, want, r ? r : "success");
        failures++;
    }
}
#define CELL_OK(h, p, n) expect_cell(__LINE__, h, p, n, NULL)
#define CELL_BAD(h, p, n, w) expect_cell(__LINE__, h, p, n, w)

static void test_shm_decoder(void)
{
    char bytes[CELL] = { 1, 2, 3 };
    /* EAGER: the fast path and its limits. */
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 3, .tag = 5 }), bytes, 3);
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = CELL - 32, .flags = LC_PKT_FLAG_SYNC }), bytes, 0);
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = CELL - 31 }), bytes, 0, "exceeds the 96 B of its ring cell");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 70000 }), bytes, 0, "EAGER length 70000 exceeds");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 0xffffffffu }), bytes, 0, "exceeds");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .flags = LC_PKT_FLAG_LIST }), bytes, 0, "unknown flags");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .tag = -1 }), bytes, 0, "negative tag");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .src = -3 }), bytes, 0, "negative rank");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .ctx = 0x80000000u }), bytes, 0, "context id");
    /* Unknown kinds. */
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = 0 }), bytes, 0, "unknown packet kind 0");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = 7 }), bytes, 0, "unknown packet kind 7");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = 255, .len = 8 }), bytes, 0, "unknown packet kind 255");

    /* RTS: exact length, block list count against flags and size. */
    lc_pkt_rts_t rts = { .size = 1000, .addr = 0x1000, .sreq = 7 };
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts) }), &rts, sizeof(rts));
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts) - 1 }), &rts, sizeof(rts), "RTS length 39");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = 0 }), &rts, sizeof(rts), "RTS length 0");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = LC_PKT_FLAG_LIST }), &rts,
             sizeof(rts), "block list of 0 entries");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = LC_PKT_FLAG_LIST | LC_PKT_FLAG_NOPULL }),
             &rts, sizeof(rts), "both with and without");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = LC_PKT_FLAG_SYNC }), &rts, sizeof(rts),
             "unknown flags");
    rts.nblocks = 1001;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = LC_PKT_FLAG_LIST }), &rts,
             sizeof(rts), "block list of 1001 entries");
    rts.nblocks = 3;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts) }), &rts, sizeof(rts), "without the list flag");
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = LC_PKT_FLAG_LIST }), &rts, sizeof(rts));

    /* Control packets: exact length, no flags (but a CTS's LC_PKT_FLAG_NT). */
    lc_pkt_ctl_t ctl = { .sreq = 1, .rreq = 2 };
    for (uint8_t k = LC_PKT_CTS; k <= LC_PKT_ACK; k++) {
        if (k == LC_PKT_DATA) continue;
        CELL_OK(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl) }), &ctl, sizeof(ctl));
        CELL_BAD(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl) - 1 }), &ctl, sizeof(ctl), "length 7, not 8");
        CELL_BAD(&((lc_pkt_hdr_t){ .kind = k, .len = 96 }), &ctl, sizeof(ctl), "length 96, not 8");
        CELL_BAD(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl), .flags = 1 }), &ctl, sizeof(ctl), "unknown flags");
        /* the pick's non-temporal variant (lc_pt2pt_pick.c): a CTS flag */
        if (k == LC_PKT_CTS)
            CELL_OK(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl), .flags = LC_PKT_FLAG_NT }), &ctl, sizeof(ctl));
        else
            CELL_BAD(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl), .flags = LC_PKT_FLAG_NT }), &ctl, sizeof(ctl),
                     "unknown flags");
        /* the split copy (lc_pt2pt_split.c): on CTS and FIN only */
        if (k == LC_PKT_CTS || k == LC_PKT_FIN)
            CELL_OK(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl), .flags = LC_PKT_FLAG_SPLIT }), &ctl, sizeof(ctl));
        else
            CELL_BAD(&((lc_pkt_hdr_t){ .kind = k, .len = sizeof(ctl), .flags = LC_PKT_FLAG_SPLIT }), &ctl,
                     sizeof(ctl), "unknown flags");
    }
    /* DATA: a length below its prefix would wrap the fragment's size. */
    lc_pkt_data_t d = { .rreq = 1, .offset = 0 };
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = sizeof(d) + 1 }), &d, sizeof(d));
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = sizeof(d) }), &d, sizeof(d), "leaves no data");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 3 }), &d, sizeof(d), "DATA length 3");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = CELL }), &d, sizeof(d), "exceeds");

    /* Pooled packets: the index and the length against the sender's pool. */
    uint32_t index = 2;
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = POOL_CELL - 64, .flags = LC_SHM_FLAG_POOL }), &index,
            sizeof(index));
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = POOL_CELL - 63, .flags = LC_SHM_FLAG_POOL }), &index,
             sizeof(index), "exceeds the 960 B of its pool cell");
    index = POOL_CELLS;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 1, .flags = LC_SHM_FLAG_POOL }), &index, sizeof(index),
             "pool cell index 4 beyond its pool of 4 cells");
    index = 0xffffffffu;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 1, .flags = LC_SHM_FLAG_POOL }), &index, sizeof(index),
             "pool cell index");

    /* Big cells (issue 13): DATA only, index and length against the
     * sender's big cells, never its pool's geometry. */
    const uint8_t bigf = LC_SHM_FLAG_POOL | LC_SHM_FLAG_BIG;
    index = 1;
    CELL_OK(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = BIG_CELL - 64, .flags = bigf }), &index, sizeof(index));
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = BIG_CELL - 63, .flags = bigf }), &index, sizeof(index),
             "exceeds the 4032 B of its big cell");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 0xffffffffu, .flags = bigf }), &index, sizeof(index),
             "of its big cell");
    index = BIG_CELLS;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 100, .flags = bigf }), &index, sizeof(index),
             "big cell index 2 beyond its 2 big cells");
    index = 0x80000000u;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 100, .flags = bigf }), &index, sizeof(index),
             "big cell index");
    index = 0;
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 100, .flags = bigf }), &index, sizeof(index),
             "EAGER packet in a big cell");
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts), .flags = bigf }), &index, sizeof(index),
             "RTS packet in a big cell");
    /* The big flag alone (no pool flag) is no channel flag a DATA may carry. */
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 50, .flags = LC_SHM_FLAG_BIG }), &index, sizeof(index),
             "unknown flags");
    /* A length a pool cell could not hold is fine in a big cell, and
     * refused in a pool cell. */
    CELL_BAD(&((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 2000, .flags = LC_SHM_FLAG_POOL }), &index, sizeof(index),
             "of its pool cell");

    /* Where the payload is, and what the engine sees. */
    _Alignas(64) char cell[CELL];
    lc_pkt_in_t in;
    char why[160];
    index = 1;
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 100, .flags = LC_SHM_FLAG_POOL }), &index,
              sizeof(index));
    CHECK(lc_shm_decode(cell, &shm_ctx, &in, why, sizeof(why)) == NULL);
    CHECK(in.pool_index == 1 && !in.pool_big && in.payload == pool + POOL_CELL + 64 && in.hdr.flags == 0);
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 3000, .flags = bigf }), &index, sizeof(index));
    CHECK(lc_shm_decode(cell, &shm_ctx, &in, why, sizeof(why)) == NULL);
    CHECK(in.pool_index == 1 && in.pool_big && in.payload == big + BIG_CELL + 64 && in.hdr.flags == 0);
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 3 }), bytes, 3);
    CHECK(lc_shm_decode(cell, &shm_ctx, &in, why, sizeof(why)) == NULL);
    CHECK(in.pool_index == UINT32_MAX && in.payload == cell + 32);
    rts.nblocks = 0;
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_RTS, .len = sizeof(rts) }), &rts, sizeof(rts));
    CHECK(lc_shm_decode(cell, &shm_ctx, &in, why, sizeof(why)) == NULL);
    memset(cell + 32, 0xee, sizeof(rts)); /* the sender rewrites the cell after the check */
    CHECK(in.payload == in.ctl && memcmp(in.ctl, &rts, sizeof(rts)) == 0);
    /* A peer without a pool (IVSHMEM) cannot send pooled packets. */
    lc_shm_rx_ctx_t nopool = { .cell_size = CELL };
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 1, .flags = LC_SHM_FLAG_POOL }), &index,
              sizeof(index));
    CHECK(lc_shm_decode(cell, &nopool, &in, why, sizeof(why)) != NULL && strstr(why, "without a pool"));
    /* Nor big ones: a sender whose segment has no big cells. */
    make_cell(cell, &((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 100, .flags = bigf }), &index, sizeof(index));
    CHECK(lc_shm_decode(cell, &nopool, &in, why, sizeof(why)) != NULL && strstr(why, "without big cells"));
}

/* A network packet: wire header (src, seq, credits, type) + hdr + payload. */
static size_t make_ofi(char *buf, uint8_t type, const lc_pkt_hdr_t *hdr, const void *payload, size_t n)
{
    memset(buf, 0, 8);
    buf[7] = (char)type;
    if (!hdr) return 8;
    memcpy(buf + 8, hdr, sizeof(*hdr));
    if (n) memcpy(buf + 32, payload, n);
    return 32 + n;
}

static void expect_ofi(int line, const char *buf, size_t len, const char *want)
{
    lc_pkt_in_t in;
    uint8_t type;
    char why[160];
    const char *r = lc_ofi_decode(buf, len, &type, &in, why, sizeof(why));
    if (!want && r) {
        fprintf(stderr, "FAILED (line %d): a good packet was refused: %s\n", line, r);
        failures++;
    } else if (want && (!r || !strstr(r, want))) {
        fprintf(stderr, "FAILED (line %d): expected a refusal with \"%s\", got %s\n", line, want, r ? r : "success");
        failures++;
    }
}

static void test_ofi_decoder(void)
{
    _Alignas(8) char buf[256];
    char bytes[64] = { 0 };
    size_t n = make_ofi(buf, LC_PKT_OFI_WIRE_PKT, &((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 10 }), bytes, 10);
    expect_ofi(__LINE__, buf, n, NULL);
    expect_ofi(__LINE__, buf, n + 1, "says its payload is 10 bytes");
    expect_ofi(__LINE__, buf, n - 1, "says its payload is 10 bytes");
    expect_ofi(__LINE__, buf, 20, "shorter than its header");
    expect_ofi(__LINE__, buf, 5, "shorter than its header");
    /* A length that wraps 32 + len to the bytes received. */
    n = make_ofi(buf, LC_PKT_OFI_WIRE_PKT, &((lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 0xfffffff0u }), NULL, 0);
    expect_ofi(__LINE__, buf, 16 + 32, "says its payload");
    expect_ofi(__LINE__, buf, 16, "shorter than its header");
    n = make_ofi(buf, LC_PKT_OFI_WIRE_PKT, &((lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 8 }), bytes, 8);
    expect_ofi(__LINE__, buf, n, "DATA length 8 leaves no data");
    n = make_ofi(buf, LC_PKT_OFI_WIRE_PKT, &((lc_pkt_hdr_t){ .kind = 9, .len = 0 }), NULL, 0);
    expect_ofi(__LINE__, buf, n, "unknown packet kind 9");
    expect_ofi(__LINE__, buf, make_ofi(buf, LC_PKT_OFI_WIRE_CREDIT, NULL, NULL, 0), NULL);
    expect_ofi(__LINE__, buf, make_ofi(buf, LC_PKT_OFI_WIRE_BYE, NULL, NULL, 0), NULL);
    expect_ofi(__LINE__, buf, make_ofi(buf, 0, NULL, NULL, 0), "unknown network packet type 0");
    expect_ofi(__LINE__, buf, make_ofi(buf, 6, NULL, NULL, 0), "unknown network packet type 6");
}

/* ---- the engine's checks, and the end of the process ------------------ */

/* Run fn in a child; its exit code (or 128 + signal), its stderr in err. */
static int in_child(void (*fn)(void), char *err, size_t errlen)
{
    int p[2];
    if (pipe(p) != 0) return -1;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 2);
        fn();
        _exit(0);
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < errlen && (r = read(p[0], err + got, errlen - 1 - got)) > 0) got += (size_t)r;
    err[got] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void expect_fault(int line, void (*fn)(void), const char *want)
{
    char err[2048];
    int rc = in_child(fn, err, sizeof(err));
    const char *head = "rank 0 received a malformed packet from rank 0 (world) on self: ";
    if (rc != LC_PEER_FAULT_EXIT || !strstr(err, head) || !strstr(err, want) || !strstr(err, "; ending the job")) {
        fprintf(stderr, "FAILED (line %d): exit %d, expected %d with \"%s\"; stderr:\n%s\n", line, rc,
                LC_PEER_FAULT_EXIT, want, err);
        failures++;
    }
}

static lc_peer_t self;
static lc_comm_t *comm;

static void setup(void)
{
    self.kind = LC_CHANNEL_SELF;
    self.ops = &lc_channel_self_ops;
    self.can_pull = true;
    self.pull_min = 0;
    self.eager_limit = 64;
    self.chunk = 100;
    lc_list_init(&self.pending);
    lc_world.rank = 0;
    lc_world.size = 1;
    lc_world.universe_size = 1;
    lc_world.peers = &self;
    lc_log_rank = 0;
    lc_pt2pt_init();
    int zero = 0;
    comm = lc_comm_create(0, 0, 1, &zero, MPI_COMM_WORLD);
}

static void deliver(uint8_t kind, const void *payload, uint32_t len)
{
    lc_pkt_hdr_t h = { .kind = kind, .len = len };
    lc_channel_recv_handler(&self, &h, payload);
}

static void data_to_nothing(void)
{
    char buf[32] = { 0 };
    lc_pkt_data_t d = { .rreq = 123456, .offset = 0 };
    memcpy(buf, &d, sizeof(d));
    deliver(LC_PKT_DATA, buf, sizeof(buf));
}

static void data_to_posted(void)
{
    int x;
    lc_request_t *r;
    lc_pt2pt_irecv(&x, sizeof(x), 0, 1, comm, LC_CTX_PT2PT, &r);
    char buf[32] = { 0 };
    lc_pkt_data_t d = { .rreq = lc_request_ref(r), .offset = 0 };
    memcpy(buf, &d, sizeof(d));
    deliver(LC_PKT_DATA, buf, sizeof(buf));
}

/* A receive in the pipeline (RECV_DATA) of a 1000-byte message. */
static lc_request_t *streaming_recv(void)
{
    static char src[1000], dst[1000];
    static lc_list_t busy; /* a non-empty pending queue: the CTS waits there */
    self.can_pull = false; /* the receiver answers CTS: the pipeline */
    lc_list_push_back(&self.pending, &busy);
    lc_request_t *r;
    lc_pt2pt_irecv(dst, sizeof(dst), 0, 1, comm, LC_CTX_PT2PT, &r);
    lc_pkt_rts_t rts = { .size = sizeof(src), .addr = (uint64_t)(uintptr_t)src, .sreq = 999999 };
    lc_pkt_hdr_t h = { .kind = LC_PKT_RTS, .len = sizeof(rts), .tag = 1 };
    /* The CTS would go back to send request 999999 on this same process
     * (no such request: a fault of its own), so it is queued instead. */
    lc_channel_recv_handler(&self, &h, &rts);
    return r;
}

static void data_wrong_offset(void)
{
    lc_pkt_data_t d = { .offset = 100 };
    char buf[64] = { 0 };
    lc_request_t *r = streaming_recv();
    d.rreq = lc_request_ref(r);
    memcpy(buf, &d, sizeof(d));
    deliver(LC_PKT_DATA, buf, sizeof(buf));
}

static void data_beyond_message(void)
{
    lc_request_t *r = streaming_recv();
    static char buf[1100];
    lc_pkt_data_t d = { .rreq = lc_request_ref(r), .offset = 0 };
    memcpy(buf, &d, sizeof(d));
    deliver(LC_PKT_DATA, buf, sizeof(buf)); /* 1084 data bytes for a 1000-byte message */
}

static void ack_for_rendezvous(void)
{
    /* An RTS nobody received yet: the send waits for FIN or CTS, not ACK. */
    static char src[1000];
    lc_request_t *s;
    lc_pt2pt_isend(src, sizeof(src), 0, 3, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s);
    lc_pkt_ctl_t ctl = { .sreq = s->index };
    deliver(LC_PKT_ACK, &ctl, sizeof(ctl));
}

static void fin_for_queued(void)
{
    /* A sync eager send waiting for its ACK: a FIN is not what it waits for. */
    int x = 1;
    lc_request_t *s;
    lc_pt2pt_isend(&x, sizeof(x), 0, 4, comm, LC_CTX_PT2PT, LC_MODE_SYNC, &s);
    lc_pkt_ctl_t ctl = { .sreq = s->index };
    deliver(LC_PKT_FIN, &ctl, sizeof(ctl));
}

/* The split copy's packets from a peer without claim slots (the self
 * channel here), or for a receive that is not in a split. */
static void split_cts_without_slots(void)
{
    static char src[1000];
    lc_request_t *s;
    lc_pt2pt_isend(src, sizeof(src), 0, 5, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s);
    lc_pkt_ctl_t ctl = { .sreq = lc_request_ref(s), .rreq = 1 };
    lc_pkt_hdr_t h = { .kind = LC_PKT_CTS, .flags = LC_PKT_FLAG_SPLIT, .len = sizeof(ctl), .tag = 3 };
    lc_channel_recv_handler(&self, &h, &ctl);
}

static void split_fin_to_posted(void)
{
    int x;
    lc_request_t *r;
    lc_pt2pt_irecv(&x, sizeof(x), 0, 6, comm, LC_CTX_PT2PT, &r);
    lc_pkt_ctl_t ctl = { .rreq = lc_request_ref(r) };
    lc_pkt_hdr_t h = { .kind = LC_PKT_FIN, .flags = LC_PKT_FLAG_SPLIT, .len = sizeof(ctl) };
    lc_channel_recv_handler(&self, &h, &ctl);
}

static void cts_to_receive(void)
{
    int x;
    lc_request_t *r;
    lc_pt2pt_irecv(&x, sizeof(x), 0, 1, comm, LC_CTX_PT2PT, &r);
    lc_pkt_ctl_t ctl = { .sreq = r->index };
    deliver(LC_PKT_CTS, &ctl, sizeof(ctl));
}

static void forged_source(void)
{
    int x = 0, y = 7;
    lc_request_t *r;
    lc_pt2pt_irecv(&x, sizeof(x), MPI_ANY_SOURCE, MPI_ANY_TAG, comm, LC_CTX_PT2PT, &r);
    lc_pkt_hdr_t h = { .kind = LC_PKT_EAGER, .len = sizeof(y), .src = 5, .ctx = comm->ctx };
    lc_channel_recv_handler(&self, &h, &y);
}

static void unknown_kind(void)
{
    deliver(42, "", 0);
}

/* A legitimate truncated rendezvous through the pipeline still ends in
 * MPI_ERR_TRUNCATE, and the checks pass every fragment. */
static void test_pipeline_ok(void)
{
    enum { N = 5000 };
    char *src = malloc(N), *dst = calloc(1, N);
    for (int i = 0; i < N; i++) src[i] = (char)(i * 7);
    self.can_pull = false;
    lc_request_t *r, *s;
    lc_pt2pt_irecv(dst, N - 100, 0, 2, comm, LC_CTX_PT2PT, &r);
    lc_pt2pt_isend(src, N, 0, 2, comm, LC_CTX_PT2PT, LC_MODE_STANDARD, &s);
    lc_pt2pt_wait(s);
    lc_pt2pt_wait(r);
    CHECK((r->st_error & 0xff) == MPI_ERR_TRUNCATE && memcmp(src, dst, N - 100) == 0);
    lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
    lc_pt2pt_wait_release(r, MPI_STATUS_IGNORE);
    self.can_pull = true;
    free(src);
    free(dst);
}

/* ---- real rings -------------------------------------------------------- */

static lc_shm_segment_t seg;
static char kvs[64];

static void on_packet_never(lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    (void)from;
    (void)payload;
    fprintf(stderr, "handler reached with a packet of kind %u, %u bytes\n", hdr->kind, hdr->len);
    _exit(9);
}

/* Forge the next cell of ring 0 of our segment as a peer would, and poll. */
static void poll_forged(const lc_pkt_hdr_t *hdr, uint32_t index)
{
    char *ring = lc_shm_segment_ring(&seg, 0);
    lc_shm_cell_t *cell = (lc_shm_cell_t *)ring;
    memcpy(&cell->hdr, hdr, sizeof(*hdr));
    memcpy((char *)cell + LC_SHM_CELL_HDR, &index, sizeof(index));
    atomic_store_explicit(&cell->seq, 1, memory_order_release);
    static lc_peer_t rx;
    rx = (lc_peer_t){ .world_rank = 1, .kind = LC_CHANNEL_SHM, .ops = &lc_channel_shm_ops };
    rx.shm.rx_cells = ring;
    rx.shm.rx_pool = lc_shm_segment_pool(&seg);
    rx.shm.rx_pool_cells = seg.pool_cells;
    rx.shm.rx_pool_cell_size = seg.pool_cell_size;
    lc_peer_t *rxp = &rx;
    lc_channel_recv_handler = on_packet_never;
    lc_shm_set_rx_peers(&rxp, 1, seg.ncells, seg.cell_size);
    lc_shm_poll();
}

static void ring_eager_too_long(void)
{
    poll_forged(&(lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 70000 }, 0);
}

static void ring_pool_index(void)
{
    poll_forged(&(lc_pkt_hdr_t){ .kind = LC_PKT_EAGER, .len = 10, .flags = LC_SHM_FLAG_POOL }, 99999);
}

static void ring_data_wraps(void)
{
    poll_forged(&(lc_pkt_hdr_t){ .kind = LC_PKT_DATA, .len = 4 }, 0);
}

static void expect_ring_fault(int line, void (*fn)(void), const char *want)
{
    char err[2048];
    int rc = in_child(fn, err, sizeof(err));
    if (rc != LC_PEER_FAULT_EXIT || !strstr(err, "rank 0 received a malformed packet from rank 1 (world) on shm: ") ||
        !strstr(err, want)) {
        fprintf(stderr, "FAILED (line %d): exit %d, expected %d with \"%s\"; stderr:\n%s\n", line, rc,
                LC_PEER_FAULT_EXIT, want, err);
        failures++;
    }
}

static void test_rings(void)
{
    snprintf(kvs, sizeof(kvs), "unitpv%d", (int)getpid());
    lc_shm_geometry_t g = { .nrings = 1, .cell_size = CELL, .ncells = 4, .pool_cell_size = POOL_CELL, .pool_cells = 4 };
    if (lc_shm_segment_create_geom(&seg, kvs, 0, &g, NULL, NULL, NULL) != 0) {
        failures++;
        return;
    }
    lc_shm_segment_unlink(&seg);
    expect_ring_fault(__LINE__, ring_eager_too_long, "EAGER length 70000 exceeds the 96 B of its ring cell");
    expect_ring_fault(__LINE__, ring_pool_index, "pool cell index 99999 beyond its pool of 4 cells");
    expect_ring_fault(__LINE__, ring_data_wraps, "DATA length 4 leaves no data");
    lc_shm_segment_detach(&seg);
}

int main(void)
{
    test_shm_decoder();
    test_ofi_decoder();
    setup();
    test_pipeline_ok();
    expect_fault(__LINE__, data_to_nothing, "names receive request 0x1e240: no request of that name is in flight");
    expect_fault(__LINE__, data_to_posted, "its DATA names receive request");
    expect_fault(__LINE__, data_wrong_offset, "which expects offset");
    expect_fault(__LINE__, data_beyond_message, "DATA of 1084 bytes at offset 0");
    expect_fault(__LINE__, ack_for_rendezvous, "its ACK names send request");
    expect_fault(__LINE__, fin_for_queued, "its FIN names send request");
    expect_fault(__LINE__, cts_to_receive, "names send request");
    expect_fault(__LINE__, split_cts_without_slots, "its split CTS names claim slot 3");
    expect_fault(__LINE__, split_fin_to_posted, "its FIN (split copy) names receive request");
    expect_fault(__LINE__, forged_source, "claims to come from rank 5 of a communicator of 1 ranks");
    expect_fault(__LINE__, unknown_kind, "unknown packet kind 42");
    test_rings();
    if (!failures) printf("packet validation: every forged field refused, good packets pass\n");
    return failures ? 1 : 0;
}
