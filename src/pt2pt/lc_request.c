/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_request.c — the request pool. */
#include "pt2pt/lc_request.h"
#include "pt2pt/lc_pt2pt.h"
#include "util/lc_util.h"

#include <stdlib.h>
#include <string.h>

#define LC_REQ_BLOCK_SHIFT 10
#define LC_REQ_BLOCK (1u << LC_REQ_BLOCK_SHIFT)
#define LC_REQ_MAX_BLOCKS ((LC_REQUEST_INDEX_MASK + 1) / LC_REQ_BLOCK)

static lc_request_t **lc_req_blocks;
static uint32_t lc_req_nblocks;
static uint32_t *lc_req_free;      /* stack of free indices */
static uint32_t lc_req_nfree;

/* Out of line: inlined, its calls made the allocation's fast path save
 * and restore six registers on every call. */
static LC_NOINLINE int lc_request_grow(void)
{
    if (lc_req_nblocks >= LC_REQ_MAX_BLOCKS) return -1;
    lc_request_t **blocks = realloc(lc_req_blocks, sizeof(*blocks) * (lc_req_nblocks + 1));
    if (!blocks) return -1;
    lc_req_blocks = blocks;
    lc_request_t *blk = calloc(LC_REQ_BLOCK, sizeof(lc_request_t));
    uint32_t *fr = realloc(lc_req_free, sizeof(uint32_t) * (lc_req_nblocks + 1) * LC_REQ_BLOCK);
    if (!blk || !fr) {
        free(blk);
        if (fr) lc_req_free = fr;
        return -1;
    }
    lc_req_free = fr;
    lc_req_blocks[lc_req_nblocks] = blk;
    uint32_t base = lc_req_nblocks * LC_REQ_BLOCK;
    /* Push in reverse so low indices come out first; index 0 never does. */
    for (uint32_t i = LC_REQ_BLOCK; i-- > 0;) {
        blk[i].index = base + i;
        if (base + i) lc_req_free[lc_req_nfree++] = base + i;
    }
    lc_req_nblocks++;
    return 0;
}

/* The slot of `name` (a handle's or a reference's low bits) if it is in
 * use in generation `gen` (compared under `gmask`). */
static inline lc_request_t *lc_request_live(uint32_t name, uint32_t gen, uint32_t gmask)
{
    uint32_t index = name & LC_REQUEST_INDEX_MASK;
    uint32_t b = index >> LC_REQ_BLOCK_SHIFT;
    if (lc_unlikely(b >= lc_req_nblocks)) return NULL;
    lc_request_t *r = &lc_req_blocks[b][index & (LC_REQ_BLOCK - 1)];
    return lc_likely(r->in_use && (r->gen & gmask) == gen) ? r : NULL;
}

lc_request_t *lc_request_lookup(MPI_Request handle)
{
    uint32_t h = (uint32_t)handle;
    if ((h & LC_REQUEST_KIND_MASK) != LC_REQUEST_KIND) return NULL;
    return lc_request_live(h, (h >> LC_REQUEST_INDEX_BITS) & LC_REQUEST_HGEN_MASK, LC_REQUEST_HGEN_MASK);
}

lc_request_t *lc_request_by_ref(uint32_t ref)
{
    return lc_request_live(ref, (ref >> LC_REQUEST_INDEX_BITS) & LC_REQUEST_WGEN_MASK, LC_REQUEST_WGEN_MASK);
}

int lc_request_incomplete;
unsigned lc_request_started;
unsigned lc_request_completions;
#define LC_REQ_COUNTED ((1u << LC_REQ_SEND) | (1u << LC_REQ_RECV) | (1u << LC_REQ_COLL) | (1u << LC_REQ_PART_ROUND))

static inline void lc_request_uncount(lc_request_t *req)
{
    lc_request_incomplete -= req->counted;
    req->counted = 0;
}

/* An unaligned 16-byte vector: SSE2 stores, which every x86-64 has. */
typedef long long lc_req_zero16 __attribute__((vector_size(16), aligned(8), may_alias));
_Static_assert(sizeof(lc_request_t) % 16 == 0 || sizeof(lc_request_t) % 16 == 8,
               "a request is a whole number of words (the tail store below is one word)");

/* memset(r, 0, sizeof(*r)), which GCC makes a `rep stosq` of 35 words
 * at this size: its start-up costs more than the stores themselves
 * (session 12 traced Ibarrier's extra cost over Barrier partly to the
 * pool's resets, one per request: three against two; with two threads
 * sending 8 B messages it was two thirds of lc_request_alloc's profile
 * samples, 38-44 ns against 13-27 ns for the stores below on this AMD
 * EPYC).  Plain 16-byte
 * stores instead, unrolled (the count is a constant); the empty asm
 * keeps GCC's loop-pattern pass from turning the loop back into memset. */
static inline void lc_request_zero(lc_request_t *r)
{
    char *p = (char *)r;
    size_t i = 0;
#pragma GCC unroll 32
    for (; i + 16 <= sizeof(*r); i += 16) {
        *(lc_req_zero16 *)(void *)(p + i) = (lc_req_zero16){0, 0};
        __asm__("" : "+r"(p));
    }
    if (i < sizeof(*r)) *(uint64_t *)(void *)(p + i) = 0;
}

lc_request_t *lc_request_alloc(lc_req_kind_t kind)
{
    if (lc_unlikely(!lc_req_nfree) && lc_request_grow() != 0) return NULL;
    uint32_t idx = lc_req_free[--lc_req_nfree];
    lc_request_t *r = &lc_req_blocks[idx >> LC_REQ_BLOCK_SHIFT][idx & (LC_REQ_BLOCK - 1)];
    uint32_t gen = r->gen; /* the slot's life count survives the reset */
    lc_request_zero(r);
    r->index = idx;
    r->gen = gen;
    r->kind = (uint8_t)kind;
    r->in_use = 1;
    r->counted = (uint8_t)((LC_REQ_COUNTED >> kind) & 1u);
    lc_request_incomplete += r->counted;
    lc_request_started += r->counted;
    lc_list_init(&r->pend.link);
    return r;
}

void (*lc_request_sched_drop)(void *sched);

void lc_request_release(lc_request_t *req)
{
    /* Releasing twice would put the index on the free stack twice: two
     * later requests would share a slot.  The MPI layer's handle checks
     * keep users from it; this is the engine's own invariant. */
    if (lc_unlikely(!req->in_use)) lc_fatal("request %u released twice", req->index);
    if (req->sched) lc_request_sched_drop(req->sched);
    req->sched = NULL;
    if (lc_unlikely(req->udt != NULL)) lc_pt2pt_typed_drop(req);
    if (req->holds_comm) lc_comm_release(req->comm);
    req->holds_comm = 0;
    lc_request_uncount(req);
    req->in_use = 0;
    req->gen++; /* every name of this life is stale from now on */
    lc_req_free[lc_req_nfree++] = req->index;
}

void lc_request_complete(lc_request_t *req)
{
    if (lc_unlikely(req->stage != NULL || req->rcur != NULL)) lc_pt2pt_typed_done(req);
    req->state = LC_ST_DONE;
    req->complete = 1;
    lc_request_completions++;
    lc_request_uncount(req);
    if (lc_unlikely(req->on_complete != NULL)) req->on_complete(req);
    if (req->user_freed) lc_request_release(req);
}

void lc_status_set(MPI_Status *status, int source, int tag, size_t bytes, int cancelled)
{
    /* MPI_ERROR is not touched: only the multiple-completion calls set it
     * (MPI 4.1 §3.2.5), and they do so themselves. */
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    status->count_lo = (int)(uint32_t)bytes;
    /* MPICH layout: high count bits above bit 0, which is the cancel flag. */
    status->count_hi_and_cancelled = (int)(((uint64_t)bytes >> 32) << 1) | (cancelled ? 1 : 0);
}

void lc_status_empty(MPI_Status *status)
{
    lc_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
}

void lc_request_status(const lc_request_t *req, MPI_Status *status)
{
    lc_status_set(status, req->st_source, req->st_tag, req->st_bytes, req->cancelled);
}

void lc_request_pool_fini(void)
{
    for (uint32_t b = 0; b < lc_req_nblocks; b++) free(lc_req_blocks[b]);
    free(lc_req_blocks);
    free(lc_req_free);
    lc_req_blocks = NULL;
    lc_req_free = NULL;
    lc_req_nblocks = lc_req_nfree = 0;
    lc_request_incomplete = 0;
}
