/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pkt_decode.h — the decoders of arrived packets (issue 12, point 4).
 *
 * Nothing a peer writes is trusted: a channel hands a packet to the
 * engine only after its decoder took one private copy of the header (and
 * of a control packet's fixed payload), and checked every field the
 * channel can check without the engine's state:
 *
 *   - the kind is one of lc_pkt_kind_t, the flags are the ones that kind
 *     may carry;
 *   - the payload length fits the room the packet came in (ring cell,
 *     pool cell, network packet) and is what the kind needs (a control
 *     packet's fixed size, a DATA fragment's prefix and at least a byte);
 *   - tag and context id are what Locus's senders can produce (>= 0,
 *     < 2^31), the sender's rank is not negative;
 *   - an RTS's block-list count agrees with its flags and its size;
 *   - shm: a pool cell's index and length lie in the sender's pool as
 *     validated at attach; a big cell's in its big cells, and only a DATA
 *     packet comes in one.
 *
 * What needs the engine's state (the request a control packet names, a
 * DATA fragment's offset against its receive, the sender's rank against
 * the communicator) is checked by the pt2pt handlers on the copies.
 *
 * Each decoder takes (bytes, length or room, the receiver's context) and
 * returns NULL (decoded into *out) or the reason, written into `why`.
 * They call nothing outside this header and lc_pkt_decode.c, so the unit
 * test and the libFuzzer target (test/fuzz/fuzz_packets.c) compile them
 * as they are.
 *
 * Fast path: a small eager packet in a ring cell costs the one 24-byte
 * copy and three compares (lc_shm_decode_fast, inline); everything else
 * goes through the out-of-line decoders.
 */
#ifndef LC_PKT_DECODE_H
#define LC_PKT_DECODE_H

#include "channel/lc_channel.h"

#include <stdbool.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "lc_shm_decode_fast reads kind and flags as one word");

/* A decoded packet: private copies, and where the payload is. */
typedef struct lc_pkt_in {
    lc_pkt_hdr_t hdr;        /* the copy the engine sees (channel flags cleared) */
    const char *payload;     /* EAGER, DATA: in the cell / buffer it came in; else `ctl` */
    uint32_t pool_index;     /* shm: the sender's pool (or big) cell holding the payload, or UINT32_MAX */
    bool pool_big;           /* shm: pool_index is of a big cell */
    _Alignas(8) char ctl[48]; /* RTS, CTS, FIN, ACK: the fixed payload, copied once */
} lc_pkt_in_t;

_Static_assert(sizeof(lc_pkt_rts_t) <= sizeof(((lc_pkt_in_t *)0)->ctl) && sizeof(lc_pkt_ctl_t) <= sizeof(((lc_pkt_in_t *)0)->ctl), "control payloads fit lc_pkt_in_t.ctl");

/* What a shm receiver knows about one sending peer: the room of its ring
 * cells (ours) and the geometry of its send pool (checked at attach; 0
 * cells: no pool, e.g. IVSHMEM). */
typedef struct lc_shm_rx_ctx {
    uint32_t cell_size;      /* ring cell, header included */
    uint32_t pool_cells;
    uint32_t pool_cell_size; /* pool cell, its LC_SHM_POOL_HDR included */
    const char *pool;        /* first pool cell */
    uint32_t big_cells;      /* its big cells (0: none), the same way */
    uint32_t big_cell_size;
    const char *big;
} lc_shm_rx_ctx_t;

/* Layout constants shared with lc_shm.h (which includes datatype headers
 * the fuzzer does not need). */
#define LC_PKT_SHM_CELL_HDR 32
#define LC_PKT_SHM_POOL_HDR 64
#define LC_PKT_SHM_FLAG_POOL 0x80
#define LC_PKT_SHM_FLAG_BIG 0x40

/* Flags each kind may carry. */
#define LC_PKT_EAGER_FLAGS LC_PKT_FLAG_SYNC
#define LC_PKT_RTS_FLAGS (LC_PKT_FLAG_LIST | LC_PKT_FLAG_NOPULL)
#define LC_PKT_CTS_FLAGS (LC_PKT_FLAG_NT | LC_PKT_FLAG_SPLIT)
#define LC_PKT_FIN_FLAGS LC_PKT_FLAG_SPLIT

/* The general decoder behind every channel's: `hdr` is the private copy
 * of the header, `payload` where its hdr.len payload bytes are, `room`
 * how many bytes that place holds, `where` its name in a message ("ring
 * cell").  hdr may be &out->hdr. */
const char *lc_pkt_decode_slow(const lc_pkt_hdr_t *hdr, const char *payload, size_t room, const char *where,
                               lc_pkt_in_t *out, char *why, size_t whylen);

/* shm and IVSHMEM, out of line: a packet the inline test below does not
 * pass (pooled, control, DATA, or malformed); out->hdr is already the
 * copy lc_shm_decode_fast took. */
const char *lc_shm_decode_slow(const void *cell, const lc_shm_rx_ctx_t *ctx, lc_pkt_in_t *out, char *why,
                               size_t whylen);

/* The fast path of lc_shm_decode, for a receiver's poll loop: a small
 * eager packet in the ring cell (the header copied into out->hdr, once).
 * False: anything else, for lc_shm_decode_slow on that same copy.  Kind
 * and flags are one 16-bit compare, the three signed fields one more. */
static inline __attribute__((always_inline)) bool lc_shm_decode_fast(const void *cell, uint32_t cell_size,
                                                                     lc_pkt_in_t *out)
{
    /* The one read of the header: the sender can still write the cell. */
    memcpy(&out->hdr, (const char *)cell + 8, sizeof(out->hdr));
    uint16_t kind_flags;
    memcpy(&kind_flags, &out->hdr, sizeof(kind_flags)); /* kind, then flags (little-endian) */
    return __builtin_expect((kind_flags & (uint16_t)~(LC_PKT_EAGER_FLAGS << 8)) == LC_PKT_EAGER &&
                                out->hdr.len <= cell_size - LC_PKT_SHM_CELL_HDR &&
                                (out->hdr.tag | out->hdr.src | (int32_t)out->hdr.ctx) >= 0,
                            1);
}

/* shm and IVSHMEM: the ring cell `cell` (ctx->cell_size bytes, sequence
 * included) of a sender whose context is `ctx`.  A pooled packet's
 * payload is in the sender's pool cell out->pool_index. */
static inline const char *lc_shm_decode(const void *cell, const lc_shm_rx_ctx_t *ctx, lc_pkt_in_t *out, char *why,
                                        size_t whylen)
{
    if (lc_shm_decode_fast(cell, ctx->cell_size, out)) {
        out->payload = (const char *)cell + LC_PKT_SHM_CELL_HDR;
        out->pool_index = UINT32_MAX;
        out->pool_big = false;
        return NULL;
    }
    return lc_shm_decode_slow(cell, ctx, out, why, whylen);
}

/* The network channel's packet (lc_ofi_progress.c): `len` bytes received
 * in a buffer, an 8-byte wire header (sender, sequence, credits, type)
 * first.  Its type in *type (LC_PKT_OFI_WIRE_*); a PKT is decoded into
 * *out.  The sender's rank is lc_ofi_arrived's business. */
#define LC_PKT_OFI_WIRE 8
#define LC_PKT_OFI_WIRE_PKT 1
#define LC_PKT_OFI_WIRE_CREDIT 2
#define LC_PKT_OFI_WIRE_BYE 3
#define LC_PKT_OFI_WIRE_HELLO 4
#define LC_PKT_OFI_WIRE_WELCOME 5
const char *lc_ofi_decode(const void *bytes, size_t len, uint8_t *type, lc_pkt_in_t *out, char *why,
                          size_t whylen);

#endif
