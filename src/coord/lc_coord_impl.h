/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord_impl.h — shared by the coordinator's files only: the texts
 * wire-up writes into each peer's `reason` and the LOCUS_SHOW_CHANNELS
 * report (lc_coord_show.c).
 */
#ifndef LC_COORD_IMPL_H
#define LC_COORD_IMPL_H

#include "coord/lc_coord.h"
#include "locality/lc_locality.h"

/* Why rank r goes through the network: another host, or the network
 * forced on this one (LOCUS_NET_FORCE / LOCUS_NET_BLOCK). */
void lc_coord_reason_network(const lc_identity_t *ids, int me, int r, char *buf, size_t len);
/* The shared-memory domains (directory dev:ino) of a peer and ours, for
 * the reason of a failed proof: equal domains point at permissions or a
 * vanished segment, different ones at a directory that is not shared
 * (private /dev/shm, LOCUS_SHM_DIR not bind-mounted). */
void lc_coord_reason_domains(const lc_identity_t *peer, const lc_identity_t *me, char *buf, size_t len);
/* The NUMA relation of a shm pair (nodes `mine`, `theirs`) and, if the
 * peer can be pulled from, the threshold it pulls from. */
void lc_coord_reason_numa(int mine, int theirs, const lc_peer_t *p, char *buf, size_t len);

/* LOCUS_SHOW_CHANNELS: every rank publishes its row of the channel
 * matrix (a PMI fence: all ranks call it); rank 0 prints the matrix, its
 * reasons, its NUMA view and `ring_placement` (where its rings went). */
void lc_coord_show_channels(const char *ring_placement);

#endif
