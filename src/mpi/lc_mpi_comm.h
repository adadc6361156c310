/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_mpi_comm.h — communicator management inside the API layer. */
#ifndef LC_MPI_COMM_H
#define LC_MPI_COMM_H

#include "pt2pt/lc_comm.h"

#include <stdbool.h>

/* Create MPI_COMM_WORLD and MPI_COMM_SELF (after wire-up); `appnum` is the
 * MPI_APPNUM attribute (-1: unknown).  0 or -1. */
int lc_mpi_comm_init_builtin(int appnum);
/* The first step of MPI_Finalize: delete MPI_COMM_SELF's attributes, in
 * reverse order of setting, running their delete callbacks (MPI 4.1
 * §11.2.4).  MPI error code. */
int lc_mpi_comm_finalize_begin(void);
/* Free every communicator and the objects of the API layer (MPI_Finalize). */
void lc_mpi_comm_fini(void);

/* A communicator of `size` members (world_ranks) derived from `parent`,
 * with a context id agreed by all of parent's ranks (collective over
 * parent); size 0 for ranks that take part but are not members (*out
 * NULL).  It inherits parent's error handler.  MPI error code. */
int lc_mpi_comm_derive(lc_comm_t *parent, int rank, int size, const int *world_ranks, lc_comm_t **out);
/* The same for a communicator whose context id has been agreed already
 * (context slot `slot`). */
int lc_mpi_comm_make(lc_comm_t *parent, int slot, int rank, int size, const int *world_ranks, lc_comm_t **out);

/* MPI_Comm_split of an intracommunicator (lc_mpi_comm_split.c). */
int lc_mpi_comm_split_intra(lc_comm_t *c, int color, int key, lc_comm_t **out);

/* ---- intercommunicators (lc_mpi_intercomm.c) ---------------------------- */
/* The duplicate of intercommunicator c (same groups, new context ids). */
int lc_inter_dup(lc_comm_t *c, lc_comm_t **out);
/* MPI_Comm_split / MPI_Comm_create on an intercommunicator (MPI 2.2
 * semantics): local and remote processes of one color form the new
 * intercommunicator; NULL where either side has none of that color. */
int lc_inter_split(lc_comm_t *c, int color, int key, lc_comm_t **out);
/* Collective over lc: the intercommunicator of lc's group and the group
 * whose leader is world rank rworld, which calls this with the same tag
 * (MPI_COMM_WORLD's collective context carries the leaders' exchange).
 * lrc: the leader's own argument checks (see lc_mpi_intercomm.c).
 * Used by MPI_Comm_accept/connect/join (lc_mpi_connect.c). */
int lc_inter_connect(lc_comm_t *lc, int lleader, int rworld, int tag, int lrc, lc_comm_t **out_p);
/* The same between jobs (lc_mpi_xconnect.c): the leaders meet on `bridge`
 * (rank rleader; NULL/-1 at other members), member lists travel as comm
 * ranks and rmap[remote comm rank] (rmap_n entries) is a remote member's id. */
int lc_inter_connect_map(lc_comm_t *lc, int lleader, lc_comm_t *bridge, int rleader, int tag, const int *rmap,
                         int rmap_n, lc_comm_t **out_p);

/* Agree with the other members on a free context slot (lc_mpi_ctx.c):
 * `reduce` ANDs words[n] over the members in place (collective over
 * them); `parent` and `tag` (-1 unless Comm_create_group's) name the
 * agreement, `members` is how many take part (0: unknown, several).
 * The caller takes the slot before it waits on anything.  MPI error
 * code. */
typedef int lc_ctx_reduce_fn_t(uint64_t *words, int n, void *arg);
int lc_mpi_ctx_agree(lc_comm_t *parent, int tag, int members, lc_ctx_reduce_fn_t *reduce, void *arg, int *slot_p);

/* One agreement in progress, for the ones that run as schedules
 * (MPI_Comm_idup); lc_mpi_ctx.c says how rounds offer and why it ends.
 * begin registers it (tag as above); each round: offer fills
 * words[LC_CTX_WORDS + 1] (held until round_end), the members AND them,
 * round_end; end unregisters (idempotent: also from a schedule's free
 * hook).  Lives where its owner puts it until end. */
/* An agreement's key, compared word by word: the same on every member,
 * different for two agreements in progress that share a member
 * (lc_mpi_ctx.c says why it matters).  begin's: (parent context id,
 * tag, the parent's ctx_seq); an intercommunicator bridge's:
 * lc_mpi_bridge.c. */
typedef struct lc_ctx_key {
    uint64_t w[4];
} lc_ctx_key_t;

typedef struct lc_ctx_agreement {
    struct lc_ctx_agreement *next;
    lc_ctx_key_t key;
    bool established; /* a round came back: every member has started it */
    bool owner;       /* this round offers the whole free mask (but the reserve) */
    bool alone;       /* one member: offers the lowest free slot, defers to nobody */
    bool linked;
    uint64_t held[LC_CTX_WORDS]; /* this round's offer, marked taken */
} lc_ctx_agreement_t;
void lc_ctx_agreement_begin(lc_ctx_agreement_t *a, lc_comm_t *parent, int tag, int members);
/* The same with a key made by the caller. */
void lc_ctx_agreement_begin_key(lc_ctx_agreement_t *a, const lc_ctx_key_t *key, int members);
void lc_ctx_agreement_offer(lc_ctx_agreement_t *a, uint64_t *words);
void lc_ctx_agreement_round_end(lc_ctx_agreement_t *a);
void lc_ctx_agreement_end(lc_ctx_agreement_t *a);
/* The lowest slot of mask[LC_CTX_WORDS], -1: none. */
int lc_ctx_agreement_lowest(const uint64_t *mask);

/* The MPI_APPNUM attribute's value (-1 when unknown). */
extern int lc_mpi_appnum;

/* A Cartesian topology record (lc_mpi_topo.c); NULL when out of memory. */
lc_cart_t *lc_cart_new(int ndims, const int *dims, const int *periods);
/* A graph topology record with room for its arrays (lc_mpi_topo_graph.c;
 * weights only when `weighted`), and a copy of one; NULL when out of memory. */
lc_graph_t *lc_graph_alloc(int kind, int nnodes, int nedges, int indegree, int outdegree, bool weighted);
lc_graph_t *lc_graph_dup(const lc_graph_t *g);

#endif
