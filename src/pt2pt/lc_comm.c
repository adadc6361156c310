/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_comm.c — communicator objects and their handle table. */
#include "pt2pt/lc_comm.h"
#include "coord/lc_world.h"

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
static lc_comm_t **lc_comm_table;   /* dynamic communicators by index */
static int lc_comm_table_len;

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
    while (idx < lc_comm_table_len && lc_comm_table[idx]) idx++;
    if (idx == lc_comm_table_len) {
        int n = lc_comm_table_len ? 2 * lc_comm_table_len : 16;
        lc_comm_t **t = realloc(lc_comm_table, sizeof(*t) * (size_t)n);
        if (!t) goto err;
        memset(t + lc_comm_table_len, 0, sizeof(*t) * (size_t)(n - lc_comm_table_len));
        lc_comm_table = t;
        lc_comm_table_len = n;
    }
    lc_comm_table[idx] = c;
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
        if (lc_comm_table[h & LC_COMM_INDEX_MASK] == c) lc_comm_table[h & LC_COMM_INDEX_MASK] = NULL;
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

void lc_comm_release(lc_comm_t *c)
{
    if (--c->refcount == 0) lc_comm_destroy(c);
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
    return idx < (unsigned)lc_comm_table_len ? lc_comm_table[idx] : NULL;
}

void lc_comm_destroy_all(void)
{
    /* Intercommunicators first: each frees its hidden local communicator. */
    for (int i = 0; i < lc_comm_table_len; i++)
        if (lc_comm_table[i] && lc_comm_table[i]->local) lc_comm_destroy(lc_comm_table[i]);
    for (int i = 0; i < lc_comm_table_len; i++)
        if (lc_comm_table[i]) lc_comm_destroy(lc_comm_table[i]);
    free(lc_comm_table);
    lc_comm_table = NULL;
    lc_comm_table_len = 0;
    for (int i = 0; i < 2; i++)
        if (lc_comm_builtin[i]) lc_comm_destroy(lc_comm_builtin[i]);
}
