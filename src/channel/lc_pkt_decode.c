/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pkt_decode.c — the packet decoders of the channels (see
 * lc_pkt_decode.h for what is checked here and what the engine checks).
 * Self-contained: the fuzz target compiles this file alone.
 */
#include "channel/lc_pkt_decode.h"

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4))) static const char *lc_pkt_bad(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return why;
}

static const char *lc_pkt_kind_name(uint8_t kind)
{
    static const char *const names[] = { "?", "EAGER", "RTS", "CTS", "DATA", "FIN", "ACK" };
    return kind <= LC_PKT_ACK ? names[kind] : "?";
}

const char *lc_pkt_decode_slow(const lc_pkt_hdr_t *hdr, const char *payload, size_t room, const char *where,
                               lc_pkt_in_t *out, char *why, size_t whylen)
{
    if (hdr != &out->hdr) out->hdr = *hdr;
    const lc_pkt_hdr_t *h = &out->hdr;
    if (h->kind < LC_PKT_EAGER || h->kind > LC_PKT_ACK)
        return lc_pkt_bad(why, whylen, "unknown packet kind %u", (unsigned)h->kind);
    const char *kind = lc_pkt_kind_name(h->kind);
    if (h->len > room)
        return lc_pkt_bad(why, whylen, "%s length %u exceeds the %zu B of its %s", kind, (unsigned)h->len, room,
                          where);
    uint8_t allowed = h->kind == LC_PKT_EAGER ? LC_PKT_EAGER_FLAGS
                      : h->kind == LC_PKT_RTS ? LC_PKT_RTS_FLAGS
                      : h->kind == LC_PKT_CTS ? LC_PKT_CTS_FLAGS
                      : h->kind == LC_PKT_FIN ? LC_PKT_FIN_FLAGS
                                              : 0;
    if (h->flags & ~allowed) return lc_pkt_bad(why, whylen, "%s with unknown flags %#x", kind, (unsigned)h->flags);
    out->payload = payload;
    switch ((lc_pkt_kind_t)h->kind) {
    case LC_PKT_EAGER:
    case LC_PKT_RTS:
        if (h->tag < 0) return lc_pkt_bad(why, whylen, "%s with negative tag %d", kind, (int)h->tag);
        if (h->src < 0) return lc_pkt_bad(why, whylen, "%s from negative rank %d", kind, (int)h->src);
        if ((int32_t)h->ctx < 0) return lc_pkt_bad(why, whylen, "%s with context id %#x out of range", kind, h->ctx);
        if (h->kind == LC_PKT_EAGER) return NULL;
        if (h->len != sizeof(lc_pkt_rts_t))
            return lc_pkt_bad(why, whylen, "RTS length %u, not %zu", (unsigned)h->len, sizeof(lc_pkt_rts_t));
        {
            lc_pkt_rts_t rts;
            memcpy(&rts, payload, sizeof(rts)); /* the one read of the payload */
            memcpy(out->ctl, &rts, sizeof(rts));
            out->payload = out->ctl;
            if ((h->flags & LC_PKT_FLAG_LIST) && (h->flags & LC_PKT_FLAG_NOPULL))
                return lc_pkt_bad(why, whylen, "RTS both with and without a block list");
            /* A sender's list has at most one entry per byte of the message
             * (lc_typed_block_list keeps segments of LC_TYPED_LIST_MIN_SEG). */
            if ((h->flags & LC_PKT_FLAG_LIST) ? rts.nblocks == 0 || rts.nblocks > rts.size : rts.nblocks != 0)
                return lc_pkt_bad(why, whylen, "RTS of %llu bytes names a block list of %u entries%s",
                                  (unsigned long long)rts.size, rts.nblocks,
                                  (h->flags & LC_PKT_FLAG_LIST) ? "" : " without the list flag");
        }
        return NULL;
    case LC_PKT_CTS:
    case LC_PKT_FIN:
    case LC_PKT_ACK:
        if (h->len != sizeof(lc_pkt_ctl_t))
            return lc_pkt_bad(why, whylen, "%s length %u, not %zu", kind, (unsigned)h->len, sizeof(lc_pkt_ctl_t));
        memcpy(out->ctl, payload, sizeof(lc_pkt_ctl_t));
        out->payload = out->ctl;
        return NULL;
    case LC_PKT_DATA:
        /* Below the prefix, the fragment's length (len - prefix) would wrap. */
        if (h->len <= sizeof(lc_pkt_data_t))
            return lc_pkt_bad(why, whylen, "DATA length %u leaves no data after its %zu-byte prefix",
                              (unsigned)h->len, sizeof(lc_pkt_data_t));
        return NULL;
    }
    return lc_pkt_bad(why, whylen, "unknown packet kind %u", (unsigned)h->kind);
}

const char *lc_shm_decode_slow(const void *cell, const lc_shm_rx_ctx_t *ctx, lc_pkt_in_t *out, char *why,
                               size_t whylen)
{
    /* out->hdr is lc_shm_decode's copy: never the cell's header again. */
    out->pool_index = UINT32_MAX;
    out->pool_big = false;
    if (!(out->hdr.flags & LC_PKT_SHM_FLAG_POOL))
        return lc_pkt_decode_slow(&out->hdr, (const char *)cell + LC_PKT_SHM_CELL_HDR,
                                  ctx->cell_size - LC_PKT_SHM_CELL_HDR, "ring cell", out, why, whylen);
    bool big = out->hdr.flags & LC_PKT_SHM_FLAG_BIG;
    out->hdr.flags &= (uint8_t) ~(LC_PKT_SHM_FLAG_POOL | LC_PKT_SHM_FLAG_BIG);
    uint32_t index;
    memcpy(&index, (const char *)cell + LC_PKT_SHM_CELL_HDR, sizeof(index));
    if (big) {
        /* Only pipeline fragments use big cells: anything else in one is
         * not what a Locus sender writes. */
        if (out->hdr.kind != LC_PKT_DATA)
            return lc_pkt_bad(why, whylen, "%s packet in a big cell (only DATA goes there)",
                              lc_pkt_kind_name(out->hdr.kind));
        if (!ctx->big_cells) return lc_pkt_bad(why, whylen, "a packet in a big cell from a sender without big cells");
        if (index >= ctx->big_cells)
            return lc_pkt_bad(why, whylen, "big cell index %u beyond its %u big cells", index, ctx->big_cells);
        out->pool_index = index;
        out->pool_big = true;
        const char *bc = ctx->big + (size_t)index * ctx->big_cell_size;
        return lc_pkt_decode_slow(&out->hdr, bc + LC_PKT_SHM_POOL_HDR, ctx->big_cell_size - LC_PKT_SHM_POOL_HDR,
                                  "big cell", out, why, whylen);
    }
    if (!ctx->pool_cells) return lc_pkt_bad(why, whylen, "a pooled packet from a sender without a pool");
    if (index >= ctx->pool_cells)
        return lc_pkt_bad(why, whylen, "pool cell index %u beyond its pool of %u cells", index, ctx->pool_cells);
    out->pool_index = index;
    const char *pc = ctx->pool + (size_t)index * ctx->pool_cell_size;
    return lc_pkt_decode_slow(&out->hdr, pc + LC_PKT_SHM_POOL_HDR, ctx->pool_cell_size - LC_PKT_SHM_POOL_HDR,
                              "pool cell", out, why, whylen);
}

const char *lc_ofi_decode(const void *bytes, size_t len, uint8_t *type, lc_pkt_in_t *out, char *why,
                          size_t whylen)
{
    const char *b = bytes;
    *type = 0;
    if (len < LC_PKT_OFI_WIRE) return lc_pkt_bad(why, whylen, "a packet of %zu bytes, shorter than its header", len);
    uint8_t t = (uint8_t)b[7];
    if (t < LC_PKT_OFI_WIRE_PKT || t > LC_PKT_OFI_WIRE_WELCOME)
        return lc_pkt_bad(why, whylen, "unknown network packet type %u", (unsigned)t);
    *type = t;
    if (t != LC_PKT_OFI_WIRE_PKT) return NULL;
    if (len < LC_PKT_OFI_WIRE + sizeof(lc_pkt_hdr_t))
        return lc_pkt_bad(why, whylen, "a packet of %zu bytes, shorter than its header", len);
    memcpy(&out->hdr, b + LC_PKT_OFI_WIRE, sizeof(out->hdr));
    out->pool_index = UINT32_MAX;
    out->pool_big = false;
    size_t room = len - LC_PKT_OFI_WIRE - sizeof(lc_pkt_hdr_t);
    /* The packet's length is what the provider delivered: the header must
     * say exactly that (neither past the bytes received nor short). */
    if (out->hdr.len != room)
        return lc_pkt_bad(why, whylen, "a packet of %zu bytes says its payload is %u bytes", len,
                          (unsigned)out->hdr.len);
    return lc_pkt_decode_slow(&out->hdr, b + LC_PKT_OFI_WIRE + sizeof(lc_pkt_hdr_t), room, "packet", out, why,
                              whylen);
}
