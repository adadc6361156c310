/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_universe.c — the peer table grows without moving (lc_universe.h):
 * world entries start unreached, appended peers get consecutive ids after
 * the world's, earlier pointers stay valid and their contents untouched,
 * concurrent appends get distinct ids, a concurrent reader never sees an
 * id counted before its entry is written, and a full table says so.
 */
#include "coord/lc_universe.h"
#include "coord/lc_world.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lc_unit_check.h"

#define NTHREADS 4
#define PER_THREAD 1000

static int ids[NTHREADS][PER_THREAD];

static atomic_int adders_done;
static int reader_bad = -1;

/* Walks the table as the pt2pt drain does, without a lock, while peers
 * are appended: every entry counted must already be written. */
static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&adders_done)) {
        int n = lc_world.universe_size;
        for (int i = 0; i < n; i++) {
            const lc_peer_t *p = &lc_world.peers[i];
            if (p->world_rank != i || p->pending.next == NULL) {
                reader_bad = i;
                return NULL;
            }
        }
    }
    return NULL;
}

static void *adder(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) ids[t][i] = lc_universe_add();
    return NULL;
}

int main(void)
{
    const int size = 5;
    CHECKF(lc_universe_create(size) == LC_OK, "create");
    CHECKF(lc_world.universe_size == size, "universe size %d", (int)lc_world.universe_size);
    CHECKF(lc_world.peer_capacity == size + LC_UNIVERSE_EXTRA, "capacity %d", lc_world.peer_capacity);
    CHECKF(((uintptr_t)lc_world.peers % _Alignof(lc_peer_t)) == 0, "table misaligned");
    for (int r = 0; r < size; r++) {
        lc_peer_t *p = &lc_world.peers[r];
        CHECKF(p->world_rank == r && p->kind == LC_CHANNEL_NONE && p->ops == &lc_channel_self_ops,
              "world entry %d not an unreached peer", r);
        CHECKF(lc_list_empty(&p->pending), "world entry %d has pending work", r);
    }

    /* A pointer taken now stays valid and its entry untouched. */
    lc_peer_t *first = &lc_world.peers[2];
    first->eager_limit = 12345;
    int a = lc_universe_add();
    CHECKF(a == size, "first appended id %d, expected %d", a, size);
    CHECKF(lc_world.peers[a].world_rank == a && lc_world.peers[a].kind == LC_CHANNEL_NONE,
          "appended entry not an unreached peer");

    pthread_t th[NTHREADS], rd;
    pthread_create(&rd, NULL, reader, NULL);
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, adder, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    atomic_store(&adders_done, 1);
    pthread_join(rd, NULL);
    CHECKF(reader_bad < 0, "a reader saw entry %d counted before it was written", reader_bad);
    char *seen = calloc((size_t)lc_world.peer_capacity, 1);
    for (int t = 0; t < NTHREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            int id = ids[t][i];
            CHECKF(id > a && id < lc_world.peer_capacity, "id %d out of range", id);
            if (id > a && id < lc_world.peer_capacity) {
                CHECKF(!seen[id], "id %d given twice", id);
                seen[id] = 1;
                CHECKF(lc_world.peers[id].world_rank == id, "entry %d names %d", id, lc_world.peers[id].world_rank);
            }
        }
    free(seen);
    CHECKF(first == &lc_world.peers[2] && first->eager_limit == 12345, "an earlier entry changed");
    CHECKF(lc_world.universe_size == size + 1 + NTHREADS * PER_THREAD, "universe size %d",
          (int)lc_world.universe_size);

    /* Fill it: the last id is capacity - 1, then -1, and the count stays. */
    int last = -1;
    while (lc_world.universe_size < lc_world.peer_capacity) last = lc_universe_add();
    CHECKF(last == lc_world.peer_capacity - 1, "last id %d", last);
    CHECKF(lc_universe_add() == -1, "a full table gave an id");
    CHECKF(lc_world.universe_size == lc_world.peer_capacity, "count moved past a full table");

    lc_universe_destroy();
    CHECKF(lc_world.peers == NULL && lc_world.universe_size == 0, "destroy left state");
    if (failures) return 1;
    printf("universe: ok\n");
    return 0;
}
