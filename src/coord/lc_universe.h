/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_universe.h — the peer table (lc_world.peers) as a table that grows
 * without moving.
 *
 * Ids ("universe ids"): 0..size-1 are the world ranks, filled at wire-up;
 * processes met later (spawned children, other jobs) are appended after
 * them.  Communicators, requests and the channels hold lc_peer_t
 * pointers into the table, so it never moves: its whole capacity is
 * reserved as address space at MPI_Init (an anonymous MAP_NORESERVE
 * mapping) and pages become memory only when first written.
 */
#ifndef LC_UNIVERSE_H
#define LC_UNIVERSE_H

#include "channel/lc_channel.h"

/* Peers the table can hold beyond the world's. */
#define LC_UNIVERSE_EXTRA 65536

/* Reserve the table for `size` world ranks plus LC_UNIVERSE_EXTRA, and
 * fill entries 0..size-1 as unreached peers (lc_universe_reset_peer).
 * Sets lc_world.peers, lc_world.universe_size = size, peer_capacity.
 * Returns LC_OK, or LC_ERROR after logging. */
int lc_universe_create(int size);

/* Append one unreached peer; returns its universe id, or -1 when the
 * table is full (logged).  Safe from several threads at once, and
 * against readers of lc_world.universe_size: an id counts only once its
 * entry is written (a release store after the write). */
int lc_universe_add(void);

/* An entry as wire-up starts it: no channel, nothing pending. */
void lc_universe_reset_peer(lc_peer_t *p, int id);

/* Unmap the table (after the channels closed). */
void lc_universe_destroy(void);

#endif
