/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_comm.c — communicator objects and their handle table. */
#include "pt2pt/lc_comm.h"
#include "coord/lc_world.h"

#include "util/lc_lock.h"

#include <stdlib.h>
#include <string.h>

#define LC_COMM_DYNAMIC_KIND 0x84000000u
#define LC_COMM_INDEX_MASK 0x03ffffffu

lc_comm_t *lc_comm_builtin[2];
lc_comm_destroy_fn_t *lc_comm_destroy_hook;
static uint64_t lc_ctx_free[LC_CTX_WORDS];

static void lc_ctx_mark(int slot, int used)
{
    if (used) lc_ctx_free[slot / 64] &= ~(1ull << (slot % 64));
    else lc_ctx_free[slot / 64] |= 1ull << (slot % 64);
}

const uint64_t *lc_comm_ctx_free_mask(void) { return lc_ctx_free; }

void lc_comm_ctx_hold(int slot, int taken) { lc_ctx_mark(slot, taken); }

void lc_comm_ctx_hold_words(const uint64_t *mask, int taken)
{
    for (int w = 0; w < LC_CTX_WORDS; w++)
        lc_ctx_free[w] = taken ? lc_ctx_free[w] & ~mask[w] : lc_ctx_free[w] | mask[w];
}

void lc_comm_ctx_reset(void) { memset(lc_ctx_free, 0xff, sizeof(lc_ctx_free)); }
/* Dynamic communicators by index, in blocks that never move: block b
 * holds 16 << b slots from index 16 * (2^b - 1).  At MPI_THREAD_MULTIPLE
 * a call on the shared-memory fast path looks a handle up outside the
 * section while a creation inside it may grow the table: growing adds a
 * block (published by a release store of the length) and moves nothing,
 * and a slot is published with a release store (read with acquire).
 * Blocks are freed only at MPI_Finalize. */
#define LC_COMM_BLOCKS 23 /* 16 * (2^23 - 1) > LC_COMM_INDEX_MASK */
static lc_comm_t **lc_comm_blocks[LC_COMM_BLOCKS];
static int lc_comm_table_len; /* slots in the blocks allocated so far */

static inline lc_comm_t **lc_comm_slot(unsigned idx)
{
    unsigned b = 31u - (unsigned)__builtin_clz((idx >> 4) + 1);
    return &lc_comm_blocks[b][idx - 16u * ((1u << b) - 1)];
}

static inline lc_comm_t *lc_comm_at(unsigned idx)
{
    return __atomic_load_n(lc_comm_slot(idx), __ATOMIC_ACQUIRE);
}

static inline void lc_comm_set(unsigned idx, lc_comm_t *c)
{
    __atomic_store_n(lc_comm_slot(idx), c, __ATOMIC_RELEASE);
}

/* One more block; the new length published last. */
static int lc_comm_table_grow(void)
{
    int len = lc_comm_table_len;
    unsigned b = 31u - (unsigned)__builtin_clz(((unsigned)len >> 4) + 1);
    if (b >= LC_COMM_BLOCKS) return -1;
    lc_comm_t **blk = calloc((size_t)16 << b, sizeof(*blk));
    if (!blk) return -1;
    lc_comm_blocks[b] = blk;
    __atomic_store_n(&lc_comm_table_len, len + (16 << b), __ATOMIC_RELEASE);
    return 0;
}

lc_comm_t *lc_comm_create(int slot, int rank, int size, const int *world_ranks, MPI_Comm builtin_handle)
{
    lc_comm_t *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->world_ranks = malloc(sizeof(int) * (size_t)size);
    c->peers = malloc(sizeof(lc_peer_t *) * (size_t)size);
    if (!c->world_ranks || !c->peers) goto err;
    memcpy(c->world_ranks, world_ranks, sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) c->peers[i] = &lc_world.peers[world_ranks[i]];
    c->rank = rank;
    c->size = size;
    c->peer_count = size;
    c->context_slot = slot;
    c->ctx = (uint32_t)slot << 2; /* see LC_CTX_PART: below 1 << LC_CTX_PART_SHIFT */
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->refcount = 1;
    lc_ctx_mark(slot, 1);

    if (builtin_handle != MPI_COMM_NULL) {
        c->handle = builtin_handle;
        lc_comm_builtin[(unsigned)builtin_handle & 1] = c;
        return c;
    }
    int idx = 0;
    while (idx < lc_comm_table_len && lc_comm_at((unsigned)idx)) idx++;
    if (idx == lc_comm_table_len && lc_comm_table_grow() != 0) goto err;
    lc_comm_set((unsigned)idx, c);
    c->handle = (MPI_Comm)(LC_COMM_DYNAMIC_KIND | (unsigned)idx);
    return c;
err:
    free(c->world_ranks);
    free(c->peers);
    free(c);
    return NULL;
}

lc_comm_t *lc_comm_create_inter(int slot, int rank, int size, const int *world_ranks, int remote_size,
                                const int *remote_world, lc_comm_t *local)
{
    int *rw = malloc(sizeof(int) * (size_t)(remote_size + 1));
    lc_peer_t **peers = malloc(sizeof(lc_peer_t *) * (size_t)(remote_size + 1));
    lc_comm_t *c = rw && peers ? lc_comm_create(slot, rank, size, world_ranks, MPI_COMM_NULL) : NULL;
    if (!c) {
        free(rw);
        free(peers);
        if (local) lc_comm_free_handle(local);
        return NULL;
    }
    memcpy(rw, remote_world, sizeof(int) * (size_t)remote_size);
    for (int i = 0; i < remote_size; i++) peers[i] = &lc_world.peers[remote_world[i]];
    free(c->peers);
    c->peers = peers;
    c->peer_count = remote_size;
    c->remote_world = rw;
    c->local = local;
    return c;
}

static void lc_comm_unpublish(lc_comm_t *c)
{
    unsigned h = (unsigned)c->handle;
    if ((h & ~LC_COMM_INDEX_MASK) == LC_COMM_DYNAMIC_KIND) {
        if (lc_comm_at(h & LC_COMM_INDEX_MASK) == c) lc_comm_set(h & LC_COMM_INDEX_MASK, NULL);
    } else if (lc_comm_builtin[h & 1] == c) {
        lc_comm_builtin[h & 1] = NULL;
    }
}

void lc_comm_destroy(lc_comm_t *c)
{
    if (lc_comm_destroy_hook) lc_comm_destroy_hook(c);
    lc_comm_unpublish(c);
    lc_ctx_mark(c->context_slot, 0);
    if (c->local) lc_comm_free_handle(c->local);
    free(c->remote_world);
    free(c->world_ranks);
    free(c->peers);
    free(c->cart);
    free(c->graph);
    free(c);
}

/* Communicators whose destruction waits for the section's holder, pushed
 * and taken under a small lock of lc_lock.h (as the request pool's
 * deferred lists; held for a few instructions, maybe under a fine lock).
 * The head is stored relaxed: the lock orders the list; the lock-free
 * look of lc_comm_deferred_any is a hint, and a push it misses is seen at
 * the holder's next pass. */
static lc_comm_t *lc_comm_deferred;
static lc_lock_t lc_comm_defer_lock;

void lc_comm_destroy_mt(lc_comm_t *c)
{
    if (lc_thread_held() && lc_lock_nheld == 0) {
        lc_comm_destroy(c);
        return;
    }
    lc_lock_acquire(&lc_comm_defer_lock);
    c->defer_next = lc_comm_deferred;
    __atomic_store_n(&lc_comm_deferred, c, __ATOMIC_RELAXED);
    lc_lock_release(&lc_comm_defer_lock);
}

bool lc_comm_deferred_any(void)
{
    return __atomic_load_n(&lc_comm_deferred, __ATOMIC_RELAXED) != NULL;
}

int lc_comm_run_deferred(void)
{
    if (lc_likely(__atomic_load_n(&lc_comm_deferred, __ATOMIC_RELAXED) == NULL) || lc_lock_nheld != 0) return 0;
    lc_lock_acquire(&lc_comm_defer_lock);
    lc_comm_t *list = lc_comm_deferred;
    __atomic_store_n(&lc_comm_deferred, NULL, __ATOMIC_RELAXED);
    lc_lock_release(&lc_comm_defer_lock);
    int n = 0;
    for (; list; n++) {
        lc_comm_t *next = list->defer_next;
        lc_comm_destroy(list);
        list = next;
    }
    return n;
}

void lc_comm_release(lc_comm_t *c)
{
    lc_comm_release_mt(c, lc_unlikely(lc_thread_locking()));
}

void lc_comm_free_handle(lc_comm_t *c)
{
    lc_comm_unpublish(c);
    lc_comm_release(c);
}

lc_comm_t *lc_comm_lookup_slow(MPI_Comm handle)
{
    unsigned h = (unsigned)handle;
    if (h == 0x44000000u || h == 0x44000001u) return lc_comm_builtin[h & 1];
    if ((h & ~LC_COMM_INDEX_MASK) != LC_COMM_DYNAMIC_KIND) return NULL;
    unsigned idx = h & LC_COMM_INDEX_MASK;
    return idx < (unsigned)__atomic_load_n(&lc_comm_table_len, __ATOMIC_ACQUIRE) ? lc_comm_at(idx) : NULL;
}

void lc_comm_destroy_all(void)
{
    /* Intercommunicators first: each frees its hidden local communicator. */
    for (int i = 0; i < lc_comm_table_len; i++) {
        lc_comm_t *c = lc_comm_at((unsigned)i);
        if (c && c->local) lc_comm_destroy(c);
    }
    for (int i = 0; i < lc_comm_table_len; i++) {
        lc_comm_t *c = lc_comm_at((unsigned)i);
        if (c) lc_comm_destroy(c);
    }
    for (int b = 0; b < LC_COMM_BLOCKS; b++) {
        free(lc_comm_blocks[b]);
        lc_comm_blocks[b] = NULL;
    }
    lc_comm_table_len = 0;
    for (int i = 0; i < 2; i++)
        if (lc_comm_builtin[i]) lc_comm_destroy(lc_comm_builtin[i]);
}
