/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_world.h — process-wide state of the library after wire-up: who we
 * are, the peer table, and how waits behave.
 */
#ifndef LC_WORLD_H
#define LC_WORLD_H

#include "channel/lc_channel.h"

typedef struct lc_world {
    int rank, size;
    int local_size;          /* ranks on this host (shared-memory peers + self) */
    int usable_cores;        /* CPUs in our affinity mask */
    int yield_when_idle;     /* waits call sched_yield (oversubscribed or LOCUS_POLL=yield) */
    int sleep_when_idle;     /* ... and then sleep on the doorbell (oversubscribed or LOCUS_POLL=sleep) */
    int starve_when_idle;    /* spinning waits sleep on the doorbell while foreign load
                              * preempts them (auto, not oversubscribed: lc_starve.c) */
    lc_peer_t *peers;        /* indexed by universe id: world ranks, then peers met later
                              * (lc_universe.h); never moves */
    _Atomic int universe_size; /* valid entries of peers (>= size) */
    int peer_capacity;       /* entries reserved */
    char kvsname[256];
    char hostname[256];
} lc_world_t;

extern lc_world_t lc_world;

#endif
