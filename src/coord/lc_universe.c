/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_universe.c — the peer table that grows without moving (see
 * lc_universe.h), and the process-wide lc_world it belongs to.
 */
#include "coord/lc_universe.h"
#include "coord/lc_world.h"
#include "util/lc_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

lc_world_t lc_world;

static size_t lc_universe_bytes;
static pthread_mutex_t lc_universe_lock = PTHREAD_MUTEX_INITIALIZER;

void lc_universe_reset_peer(lc_peer_t *p, int id)
{
    memset(p, 0, sizeof(*p));
    p->world_rank = id;
    p->kind = LC_CHANNEL_NONE;
    p->ops = &lc_channel_self_ops;
    snprintf(p->reason, sizeof(p->reason), "not on this host");
    lc_list_init(&p->pending);
}

int lc_universe_create(int size)
{
    size_t cap = (size_t)size + LC_UNIVERSE_EXTRA;
    size_t bytes = cap * sizeof(lc_peer_t);
    /* Address space only: untouched pages cost nothing (an anonymous
     * mapping reads as zeros and is page-aligned, which is more than
     * lc_peer_t's 64-byte alignment asks). */
    void *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (table == MAP_FAILED) {
        lc_log_error("wire-up: cannot reserve a peer table for %zu peers (%zu bytes)", cap, bytes);
        return LC_ERROR;
    }
    lc_world.peers = table;
    lc_universe_bytes = bytes;
    lc_world.peer_capacity = (int)cap;
    for (int r = 0; r < size; r++) lc_universe_reset_peer(&lc_world.peers[r], r);
    atomic_store_explicit(&lc_world.universe_size, size, memory_order_relaxed);
    return LC_OK;
}

int lc_universe_add(void)
{
    /* Appenders take turns; readers (e.g. the pt2pt pending drain, which
     * walks peers[0..universe_size)) take no lock: the entry is written
     * in full before the release store makes it count, so a reader that
     * sees the new size (acquire; a plain read of the _Atomic is
     * seq_cst) sees an initialized entry, and never an id beyond the
     * table. */
    pthread_mutex_lock(&lc_universe_lock);
    int id = atomic_load_explicit(&lc_world.universe_size, memory_order_relaxed);
    if (id >= lc_world.peer_capacity) {
        pthread_mutex_unlock(&lc_universe_lock);
        lc_log_error("dynamic processes: the peer table is full (%d peers)", lc_world.peer_capacity);
        return -1;
    }
    lc_universe_reset_peer(&lc_world.peers[id], id);
    atomic_store_explicit(&lc_world.universe_size, id + 1, memory_order_release);
    pthread_mutex_unlock(&lc_universe_lock);
    return id;
}

void lc_universe_destroy(void)
{
    if (lc_world.peers) munmap(lc_world.peers, lc_universe_bytes);
    lc_world.peers = NULL;
    lc_universe_bytes = 0;
    lc_world.peer_capacity = 0;
    atomic_store_explicit(&lc_world.universe_size, 0, memory_order_relaxed);
}
