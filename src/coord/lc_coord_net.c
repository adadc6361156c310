/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord_net.c — wire-up's network peers: every address it may need,
 * read at once after fence 2, and the peers connected or admitted with
 * them.
 *
 * Every rank that opens its ofi endpoint publishes `lc-ofi-<rank>` before
 * fence 2.  One get per network peer made N-1 round trips per rank through
 * the launcher's single-threaded server when every peer is on another
 * host (N^2 in all: 4,032 requests at 64 ranks with LOCUS_NET_FORCE).  The
 * set of ranks whose address may be wanted is known once the plans are
 * made — the network peers, and the uncertain (other namespace) ones that
 * may fall back to the network after the agree phase — so all of them are
 * read with lc_pmi_get_ranks (a few requests under Locus's mpiexec; one
 * get each elsewhere) and kept until wire-up ends: a fallback peer's
 * address, read before fence 3 to admit it, is not read a second time to
 * connect it.
 */
#include "coord/lc_coord_impl.h"
#include "channel/lc_ofi.h"
#include "pmi/lc_pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lc_pmi_get_ranks's callback: rank r's address (NULL: it published none). */
static int lc_coord_addr_take(int r, const char *val, void *arg)
{
    lc_coord_addrs_t *a = arg;
    if (val == NULL) return 0; /* the caller says it if the address is needed */
    if (strlen(val) >= LC_OFI_ADDR_TEXT_MAX) {
        lc_log_error("wire-up: rank %d published a network address of %zu characters (at most %d)", r, strlen(val),
                     LC_OFI_ADDR_TEXT_MAX - 1);
        return LC_ERROR;
    }
    a->addr[r] = strdup(val);
    if (!a->addr[r]) {
        lc_log_error("wire-up: out of memory for rank %d's network address", r);
        return LC_ERROR;
    }
    return 0;
}

int lc_coord_addrs_fetch(lc_coord_addrs_t *a, int size, const int *ranks, int n)
{
    a->size = size;
    a->addr = calloc((size_t)size, sizeof(*a->addr));
    if (!a->addr) {
        lc_log_error("wire-up: out of memory for %d peers' network addresses", size);
        return LC_ERROR;
    }
    return lc_pmi_get_ranks("lc-ofi-", ranks, n, lc_coord_addr_take, a) == 0 ? 0 : LC_ERROR; /* said why */
}

void lc_coord_addrs_free(lc_coord_addrs_t *a)
{
    if (a->addr)
        for (int r = 0; r < a->size; r++) free(a->addr[r]);
    free(a->addr);
    a->addr = NULL;
    a->size = 0;
}

int lc_coord_connect_net(const lc_coord_addrs_t *a, const lc_identity_t *ids, int r, const char *cause)
{
    char why[256];
    const lc_identity_t *id = &ids[r];
    const char *addr = r < a->size ? a->addr[r] : NULL;
    if (!addr) {
        lc_log_error("rank %d (host %s) published no network address, so this rank cannot reach it; "
                     "were the ranks started with different LOCUS_NET_FORCE / LOCUS_NET_BLOCK settings?",
                     r, id->host);
        return LC_ERROR;
    }
    lc_peer_t *p = &lc_world.peers[r];
    if (lc_ofi_connect(p, addr, id->host, why, sizeof(why)) != 0) {
        lc_log_error("cannot reach rank %d (host %s) through the network channel: %s", r, id->host, why);
        return LC_ERROR;
    }
    char via[sizeof(p->reason)];
    snprintf(via, sizeof(via), "%s", p->reason);
    snprintf(p->reason, sizeof(p->reason), "%.180s; %.70s", cause, via);
    return 0;
}

/* An uncertain pair may fall back to the network after the third fence,
 * when the peer may already send: its address goes into the address
 * vector now, so that none of its packets comes from outside it (such
 * packets are dropped: lc_ofi_arrived). */
int lc_coord_admit_net(const lc_coord_addrs_t *a, const lc_identity_t *ids, int r)
{
    char why[256];
    const char *addr = r < a->size ? a->addr[r] : NULL;
    if (!addr) return 0; /* lc_agree_pair says it if the network is needed */
    if (lc_ofi_admit(r, addr, why, sizeof(why)) != 0) {
        lc_log_error("cannot reach rank %d (host %s) through the network channel: %s", r, ids[r].host, why);
        return LC_ERROR;
    }
    return 0;
}
