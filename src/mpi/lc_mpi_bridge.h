/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bridge.h — the exchange between the two groups of an
 * intercommunicator being made (lc_mpi_bridge.c), used by
 * lc_mpi_intercomm.c: Intercomm_create(_from_groups), dup, merge, split,
 * accept/connect/join.
 */
#ifndef LC_MPI_BRIDGE_H
#define LC_MPI_BRIDGE_H

#include "mpi/lc_mpi_comm.h"

#include <stdbool.h>

typedef struct lc_bridge {
    /* the link: rank lleader of lc talks to rank rleader of bridge
     * (ctx_kind, tag); bridge NULL / rleader -1 at the other members */
    lc_comm_t *lc, *bridge;
    int lleader, rleader, ctx_kind, tag;
    int rsize, rflag;
    int *rworld;      /* [rsize]: the remote group (owned) */
    lc_ctx_key_t key; /* this creation's context-id agreement, the same on both groups */
    /* The agreement, begun by lc_bridge_open, whose first round rode on
     * the leaders' header swap: its offer still held and both groups'
     * results (first[0] this group's AND, first[1] the remote one's)
     * until lc_bridge_agree or lc_bridge_abandon ends it.  Linked into
     * lc_mpi_ctx.c's list: the struct must not move meanwhile. */
    lc_ctx_agreement_t agreement;
    uint64_t first[2][LC_CTX_WORDS + 1];
} lc_bridge_t;

/* Collective over lc (and, through the leaders, over the remote group):
 * each leader sends its group's size, `flag` and member list, half of
 * the agreement key and its group's first-round offer (the AND of its
 * members' offers) to the other and broadcasts what it got: the
 * context-id agreement's first round costs no leader round trip of its
 * own.
 * `lrc`: the leader's own argument checks (an error there is passed to
 * every local member instead of exchanging, so none waits).  rmap
 * (between jobs, lc_mpi_xconnect.c): member lists travel as comm ranks
 * and rmap[remote comm rank] (rmap_n entries) is the remote member's id
 * here.  On success b->rworld is owned by the caller (free it) and the
 * agreement is in progress: the caller must end it with lc_bridge_agree
 * or lc_bridge_abandon, without waiting on anything before (its first
 * offer is held meanwhile). */
int lc_bridge_open(lc_comm_t *lc, int lleader, lc_comm_t *bridge, int rleader, int ctx_kind, int tag, int flag, int lrc,
                   const int *rmap, int rmap_n, lc_bridge_t *b);

/* Collective over both groups, after lc_bridge_open: the rest of the
 * context-id agreement (lc_mpi_ctx.c) of the new communicator, deciding
 * first on the round lc_bridge_open carried.  *islot_p: a slot
 * free on every member of both groups; with local_too also *lslot_p, one
 * free on every member of the local group, not *islot_p (an
 * intercommunicator's hidden local intracommunicator).  The caller takes
 * them (creates the communicators) before it waits on anything.  MPI
 * error code. */
int lc_bridge_agree(lc_bridge_t *b, bool local_too, int *islot_p, int *lslot_p);
/* End the agreement without a decision (every member of both groups
 * abandons it alike: an argument check all of them made). */
void lc_bridge_abandon(lc_bridge_t *b);

#endif
