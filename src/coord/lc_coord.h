/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord.h — the communication coordinator: at start-up it exchanges
 * identity records through PMI, proves which peers it can reach through
 * shared memory (and which of those allow a CMA single copy), and fills
 * the per-peer table lc_world.peers.  Nothing is decided per message.
 */
#ifndef LC_COORD_H
#define LC_COORD_H

#include "coord/lc_world.h"

/* lc_world.rank/size/kvsname must be set.  Returns LC_OK, or LC_ERROR
 * after logging what is unreachable and why. */
int lc_coord_wireup(void);
/* Unmap segments, free the peer table. */
void lc_coord_teardown(void);

/* Short label of a peer's channel for diagnostics: "self", "shm+cma", ... */
const char *lc_coord_channel_label(const lc_peer_t *peer);

#endif
