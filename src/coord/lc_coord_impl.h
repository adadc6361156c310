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

/* Network addresses of the peers wire-up may reach through the network
 * (lc_coord_net.c), read in a few PMI requests after fence 2. */
typedef struct lc_coord_addrs {
    int size;
    char **addr; /* [size]: rank r's published `lc-ofi-<r>`; NULL if not asked for or none */
} lc_coord_addrs_t;
/* Read the addresses of ranks[0..n) (ascending) into *a (of `size`
 * ranks).  0, or LC_ERROR (said why); lc_coord_addrs_free either way. */
int lc_coord_addrs_fetch(lc_coord_addrs_t *a, int size, const int *ranks, int n);
void lc_coord_addrs_free(lc_coord_addrs_t *a);
/* Make rank r an ofi peer at its address; `cause` (why not shared
 * memory) starts its reason.  0, or LC_ERROR (said why: also when it
 * published no address). */
int lc_coord_connect_net(const lc_coord_addrs_t *a, const lc_identity_t *ids, int r, const char *cause);
/* Put rank r, which may fall back to the network after the agree phase,
 * into the address vector now (lc_ofi_admit); nothing if it published no
 * address.  0, or LC_ERROR (said why). */
int lc_coord_admit_net(const lc_coord_addrs_t *a, const lc_identity_t *ids, int r);

/* The agree phase (lc_coord_agree.c): what it needs of wire-up. */
typedef struct lc_agree_in {
    int rank, size;
    const bool *uncertain;         /* [size]: the pair may use shared memory if both ends mapped */
    int nuncertain;                /* how many are */
    const int *kernel;             /* the ranks on our kernel, ascending (self included) */
    int nkernel, kernel_index;     /* their number; our index among them */
    const lc_identity_t *ids;      /* [size] */
    const lc_coord_addrs_t *addrs; /* the fallbacks' network addresses (admitted before) */
} lc_agree_in_t;
/* Publish which uncertain peers' segments we mapped; fence 3; unlink our
 * segment's name; every uncertain pair that either end could not map is
 * disconnected and reached through the network.  0, or LC_ERROR (said
 * why).  Every rank calls it (the fence). */
int lc_coord_agree(const lc_agree_in_t *in);

#endif
