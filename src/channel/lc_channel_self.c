/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_channel_self.c — the self channel: a packet to oneself is handed to
 * the engine's handler directly, and "pull" is a memcpy in the one
 * address space.
 */
#include "channel/lc_channel.h"

#include <stdlib.h>
#include <string.h>

lc_channel_recv_func_t lc_channel_recv_handler;

static int lc_self_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                            const void *data, size_t datalen)
{
    lc_pkt_hdr_t h = *hdr;
    h.len = (uint32_t)(prelen + datalen);
    if (!datalen) {
        lc_channel_recv_handler(peer, &h, pre);
        return LC_OK;
    }
    if (!prelen) {
        lc_channel_recv_handler(peer, &h, data);
        return LC_OK;
    }
    /* Both parts: the handler wants one contiguous payload.  Only the
     * (rare) pipelined DATA packets take this path; self never does. */
    char *tmp = malloc(prelen + datalen);
    if (!tmp) return LC_AGAIN;
    memcpy(tmp, pre, prelen);
    memcpy(tmp + prelen, data, datalen);
    lc_channel_recv_handler(peer, &h, tmp);
    free(tmp);
    return LC_OK;
}

static int lc_self_pull(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len)
{
    (void)peer;
    (void)key;
    memcpy(local, (const void *)(uintptr_t)remote, len);
    return LC_OK;
}

const lc_channel_ops_t lc_channel_self_ops = {
    .name = "self",
    .try_send = lc_self_try_send,
    .pull = lc_self_pull,
};

int lc_channel_pull_unsupported(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len)
{
    (void)local; (void)remote; (void)key; (void)len;
    lc_log_error("internal: pull requested from rank %d whose channel cannot pull", peer->world_rank);
    return LC_ERROR;
}
