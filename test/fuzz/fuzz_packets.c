/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the packet decoders (src/channel/lc_pkt_decode.c,
 * issue 12 point 4): whatever bytes a peer puts in a ring cell, a pool
 * index or a network packet, a decoder either refuses them or hands the
 * engine a header whose payload lies entirely inside the memory the
 * packet came in.  Every buffer is allocated at its exact size, so that
 * AddressSanitizer catches a read one byte past it; on success the whole
 * payload is read.
 *
 * Input: byte 0 chooses the channel (even: shm ring cell, odd: network
 * packet); for shm, byte 1 picks the ring cell size (64 x (1 + b % 4))
 * and the rest is the cell (shorter input: zeros after it).
 *
 * Built with clang only (test/fuzz/CMakeLists.txt), run by ctest
 * fuzz.packets for 20 s from the seeds in corpus/.
 */
#include "channel/lc_pkt_decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POOL_CELLS 3
#define POOL_CELL 256
#define BIG_CELLS 2
#define BIG_CELL 512

static volatile unsigned sink;

static void touch(const char *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++) s += (unsigned char)p[i];
    sink += s;
}

static void check(const lc_pkt_in_t *in)
{
    if (in->payload == in->ctl) {
        if (in->hdr.len > sizeof(in->ctl)) abort();
        touch(in->ctl, in->hdr.len);
    } else {
        touch(in->payload, in->hdr.len);
    }
    if (in->hdr.kind < LC_PKT_EAGER || in->hdr.kind > LC_PKT_ACK) abort();
    if (in->hdr.kind == LC_PKT_DATA && in->hdr.len <= sizeof(lc_pkt_data_t)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    lc_pkt_in_t in;
    char why[160];
    if (data[0] & 1) { /* a network packet of exactly the bytes given */
        char *buf = malloc(size - 1 ? size - 1 : 1);
        memcpy(buf, data + 1, size - 1);
        uint8_t type;
        if (!lc_ofi_decode(buf, size - 1, &type, &in, why, sizeof(why)) && type == LC_PKT_OFI_WIRE_PKT) check(&in);
        free(buf);
        return 0;
    }
    if (size < 2) return 0;
    uint32_t cell_size = 64u * (1u + data[1] % 4u);
    char *cell = malloc(cell_size);
    char *pool = malloc(POOL_CELLS * POOL_CELL), *big = malloc(BIG_CELLS * BIG_CELL);
    memset(cell, 0, cell_size);
    memset(pool, 0x5a, POOL_CELLS * POOL_CELL);
    memset(big, 0xa5, BIG_CELLS * BIG_CELL);
    size_t n = size - 2 < cell_size ? size - 2 : cell_size;
    memcpy(cell, data + 2, n);
    lc_shm_rx_ctx_t ctx = { .cell_size = cell_size,
                            .pool_cells = POOL_CELLS,
                            .pool_cell_size = POOL_CELL,
                            .pool = pool,
                            .big_cells = BIG_CELLS,
                            .big_cell_size = BIG_CELL,
                            .big = big };
    if (data[0] & 2) ctx.pool_cells = 0; /* a peer without a pool (IVSHMEM) */
    if (data[0] & 4) ctx.big_cells = 0;  /* a peer without big cells */
    if (!lc_shm_decode(cell, &ctx, &in, why, sizeof(why))) {
        check(&in);
        if (in.pool_big && in.hdr.kind != LC_PKT_DATA) abort();
    }
    free(big);
    free(pool);
    free(cell);
    return 0;
}
