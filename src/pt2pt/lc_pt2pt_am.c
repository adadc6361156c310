/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_am.c — active-message handlers: an upper layer (the one-sided
 * engine) takes packets of one (context, tag) as they arrive, in the
 * channel's packet handler, before matching.  A small request is then
 * answered from the ring cell it arrived in: no unexpected-queue copy, no
 * probe, no receive request (issue 15).
 *
 * The table is tiny (one entry per window with active messages) and the
 * engine looks at it only when it holds an entry: a message on any other
 * context pays one load.
 */
#include "pt2pt/lc_pt2pt_impl.h"

#include <stdlib.h>

typedef struct lc_am_entry {
    uint32_t ctx;
    const lc_comm_t *comm; /* whose ranks a packet's source names */
    int tag;
    lc_pt2pt_am_fn_t *fn;
    void *arg;
} lc_am_entry_t;

static lc_am_entry_t *lc_am_table;
static int lc_am_cap;
int lc_pt2pt_am_count;

int lc_pt2pt_am_register(lc_comm_t *comm, int ctx_kind, int tag, lc_pt2pt_am_fn_t *fn, void *arg)
{
    if (lc_pt2pt_am_count == lc_am_cap) {
        int cap = lc_am_cap ? 2 * lc_am_cap : 8;
        lc_am_entry_t *t = realloc(lc_am_table, (size_t)cap * sizeof *t);
        if (!t) return lc_error(MPI_ERR_NO_MEM, "out of memory registering an active-message handler");
        lc_am_table = t;
        lc_am_cap = cap;
    }
    lc_am_table[lc_pt2pt_am_count++] = (lc_am_entry_t){ comm->ctx + (uint32_t)ctx_kind, comm, tag, fn, arg };
    /* A ring drained outside the section (MULTIPLE) enters it for a packet
     * on this context (lc_on_message_locked in lc_pt2pt_match.c); the table itself is
     * read inside. */
    lc_pt2pt_match_am(comm->ctx + (uint32_t)ctx_kind, 1);
    return MPI_SUCCESS;
}

void lc_pt2pt_am_unregister(lc_comm_t *comm, int ctx_kind, int tag)
{
    uint32_t ctx = comm->ctx + (uint32_t)ctx_kind;
    for (int i = 0; i < lc_pt2pt_am_count; i++) {
        if (lc_am_table[i].ctx != ctx || lc_am_table[i].tag != tag) continue;
        lc_am_table[i] = lc_am_table[--lc_pt2pt_am_count];
        lc_pt2pt_match_am(ctx, -1);
        break;
    }
    if (!lc_pt2pt_am_count) {
        free(lc_am_table);
        lc_am_table = NULL;
        lc_am_cap = 0;
    }
}

bool lc_pt2pt_am_dispatch(const lc_peer_t *from, const lc_pkt_hdr_t *hdr, const void *payload)
{
    /* A synchronous send waits for its ACK, which matching sends: never
     * taken here (the one-sided engine sends none). */
    if (hdr->flags & LC_PKT_FLAG_SYNC) return false;
    for (int i = 0; i < lc_pt2pt_am_count; i++) {
        const lc_am_entry_t *e = &lc_am_table[i];
        if (e->ctx != hdr->ctx || e->tag != hdr->tag) continue;
        /* The handler answers and indexes per-rank state by the source:
         * it must be the rank of the packet's channel in the communicator
         * (as matching checks, lc_deliver), never a peer's say-so. */
        if ((unsigned)hdr->src >= (unsigned)e->comm->peer_count || e->comm->peers[hdr->src] != from)
            lc_peer_fault(from, "a message on context %#x claims to come from rank %d of a communicator of %d ranks",
                          hdr->ctx, hdr->src, e->comm->peer_count);
        return e->fn(e->arg, hdr->src, hdr->kind == LC_PKT_EAGER, payload, hdr->len);
    }
    return false;
}
