/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_comm.h — communicators.
 *
 * A communicator is a group (comm rank -> world rank -> peer) and its
 * context ids: `ctx` for point-to-point, `ctx + 1` for collectives and
 * `ctx + 2` (+ a stream number) for partitioned communication, so that
 * user messages can never match collective or partitioned traffic.  Handles
 * follow MPICH's encoding: builtin 0x44000000 (WORLD), 0x44000001 (SELF),
 * others 0x84000000 | index.
 */
#ifndef LC_COMM_H
#define LC_COMM_H

#include "channel/lc_channel.h"

#include "util/lc_thread.h"

#include <mpi.h>
#include <stdint.h>

/* A Cartesian topology (MPI_Cart_create): dims[ndims], periods[ndims],
 * one allocation with the struct. */
typedef struct lc_cart {
    int ndims;
    int *dims, *periods;
} lc_cart_t;

/* A graph (MPI_Graph_create) or distributed graph (MPI_Dist_graph_create*)
 * topology, one allocation with its arrays.  sources/dests are this
 * rank's in- and out-neighbours (comm ranks) in the order the
 * neighbourhood collectives use; for MPI_GRAPH both are its row of
 * edges[] and index/edges describe the whole graph (MPI_Graph_get). */
typedef struct lc_graph {
    int kind;           /* MPI_GRAPH or MPI_DIST_GRAPH */
    int nnodes, nedges; /* MPI_GRAPH only: index[nnodes], edges[nedges] */
    int *index, *edges;
    int indegree, outdegree;
    int *sources, *dests;
    int *sourceweights, *destweights; /* MPI_DIST_GRAPH; NULL when unweighted */
} lc_graph_t;

typedef struct lc_comm {
    MPI_Comm handle;
    uint32_t ctx;            /* slot << 2: + LC_CTX_COLL for collectives, + LC_CTX_PART... */
    int rank, size;
    int *world_ranks;        /* [size]: the (local) group */
    lc_peer_t **peers;       /* [peer_count]: where point-to-point rank r goes */
    int peer_count;          /* size; an intercommunicator's remote group size */
    /* Intercommunicator (MPI 4.1 §7.6): size/rank/world_ranks are the local
     * group, peers[] and remote_world[] the remote group, so point-to-point
     * takes a rank of the remote group with no extra test.  `local` is a
     * hidden intracommunicator of the local group (its own context id) for
     * the local steps of collectives and agreements.  remote_world NULL:
     * an intracommunicator. */
    int *remote_world;       /* [peer_count] */
    struct lc_comm *local;
    MPI_Errhandler errhandler;
    int context_slot;        /* bit in the context-id mask (freed with the object) */
    struct lc_comm *defer_next; /* lc_comm_destroy_mt's list */
    int refcount;            /* the handle + requests in flight (MPI 4.1 §7.4.3: pending
                                operations on a freed communicator complete normally) */
    lc_cart_t *cart;         /* NULL: no topology */
    lc_graph_t *graph;       /* NULL: no graph topology (never set together with cart) */
    uint32_t sched_seq;      /* nonblocking/persistent collectives started so far: their tags */
    void *sched_memo;        /* memoized schedules (src/coll/lc_sched_memo.c), NULL: none */
    uint32_t ctx_seq;        /* context-id agreements started on it (src/mpi/lc_mpi_ctx.c) */
    uint32_t part_seq;       /* partitioned sends initialized so far: their streams (lc_pt2pt_part.c) */
    char name[MPI_MAX_OBJECT_NAME];
    /* Owned by the MPI layer (src/mpi), released by lc_comm_destroy_hook: */
    void *attrs;             /* cached attributes (lc_attr_list), NULL: none */
    void *info;              /* hints given by the user (lc_info_t), NULL: none */
    uint32_t session;        /* id of the session it derives from (its buffered sends may use
                                the session's buffer); 0: none (the World Model) */
    void *bsend_pool;        /* its buffered-send pool (lc_mpi_bsend_comm.c), made at its first
                                MPI_Comm_attach_buffer and kept, attached or not, until the
                                communicator is destroyed: a buffered send outside the section
                                loads it with acquire (MULTIPLE), so it never moves or goes
                                while the communicator is usable; NULL: never attached */
} lc_comm_t;

#define LC_CTX_PT2PT 0
#define LC_CTX_COLL 1
/* Partitioned communication (lc_pt2pt_part.c): ctx + LC_CTX_PART carries
 * the matching handshake of MPI_Psend_init/MPI_Precv_init (stream 0, the
 * user's tag); stream s >= 1 carries the partitions of one send/receive
 * pair, at ctx + LC_CTX_PART + (s << LC_CTX_PART_SHIFT), tag = partition.
 * Context ids of slots stay below 1 << LC_CTX_PART_SHIFT (2048 slots x 4),
 * so the sum is unique; streams take 18 bits above (LC_CTX_PART plus a
 * stream stays a positive int: the engine's ctx_kind arguments are int). */
#define LC_CTX_PART 2
#define LC_CTX_PART_SHIFT 13
#define LC_CTX_PART_STREAMS ((1u << (31 - LC_CTX_PART_SHIFT)) - 1)

/* Create a communicator of `size` ranks (world_ranks is copied) with
 * context slot `slot` (marked used until the object is destroyed).
 * Builtin handles for WORLD and SELF.  Returns NULL when out of memory. */
lc_comm_t *lc_comm_create(int slot, int rank, int size, const int *world_ranks, MPI_Comm builtin_handle);
/* An intercommunicator: local group world_ranks[size] (this process is
 * `rank`), remote group remote_world[remote_size] (copied); `local` (the
 * hidden local intracommunicator) is owned from now on, also on failure.
 * NULL when out of memory. */
lc_comm_t *lc_comm_create_inter(int slot, int rank, int size, const int *world_ranks, int remote_size,
                                const int *remote_world, lc_comm_t *local);
/* Free the object and its context slot now, whatever holds it. */
void lc_comm_destroy(lc_comm_t *comm);
/* Called by lc_comm_destroy before it frees the object, so that the MPI
 * layer can release what it hangs on a communicator (attributes, hints,
 * a user error handler).  Set once at MPI_Init; NULL: nothing to do. */
typedef void lc_comm_destroy_fn_t(lc_comm_t *comm);
extern lc_comm_destroy_fn_t *lc_comm_destroy_hook;
/* References held by requests in flight. */
static inline void lc_comm_retain(lc_comm_t *comm)
{
    lc_count_add(&comm->refcount, 1);
}
void lc_comm_release(lc_comm_t *comm);
/* MPI_THREAD_MULTIPLE: destroy a communicator whose last reference went
 * away — at once inside the section with no fine lock held, else later:
 * the destroy hook runs attribute delete callbacks (user code), which
 * need the section; a request released outside it (the fast path's
 * MPI_Wait on a communicator the user freed) leaves the destruction to
 * the section's next holder (lc_comm_run_deferred, from lc_progress). */
void lc_comm_destroy_mt(lc_comm_t *comm);
int lc_comm_run_deferred(void);
bool lc_comm_deferred_any(void);
/* The same for a caller that knows the level (`mt`, a constant in the
 * request pool's two instances). */
static inline void lc_comm_release_mt(lc_comm_t *comm, int mt)
{
    if (lc_count_add_fetch_mt(mt, &comm->refcount, -1) == 0) {
        if (mt)
            lc_comm_destroy_mt(comm);
        else
            lc_comm_destroy(comm);
    }
}
/* MPI_Comm_free: the handle stops working at once; the object lives on
 * until the last request using it is released. */
void lc_comm_free_handle(lc_comm_t *comm);

/* Context ids: a communicator owns slot s of a 2048-bit mask and the
 * context ids 4s (point-to-point), 4s+1 (collectives) and 4s+2 with the
 * streams above bit 13 (partitioned); 4s+3 is unused. */
#define LC_CTX_WORDS 32
/* This process's free slots (1 = free), for the agreement on a new slot. */
const uint64_t *lc_comm_ctx_free_mask(void);
/* Mark a free slot taken (`taken`) or free again, without a communicator:
 * MPI_Comm_idup holds the slots it offered until the agreement ends. */
void lc_comm_ctx_hold(int slot, int taken);
/* The same for every slot set in mask[LC_CTX_WORDS] (each must be free
 * when taken, held when freed). */
void lc_comm_ctx_hold_words(const uint64_t *mask, int taken);
void lc_comm_ctx_reset(void);

/* Handle -> object; NULL for MPI_COMM_NULL, freed or invalid handles. */
lc_comm_t *lc_comm_lookup_slow(MPI_Comm handle);
extern LC_HIDDEN lc_comm_t *lc_comm_builtin[2];

static inline lc_comm_t *lc_comm_lookup(MPI_Comm handle)
{
    if ((unsigned)handle == 0x44000000u) return lc_comm_builtin[0];
    return lc_comm_lookup_slow(handle);
}

/* Destroy every communicator still alive (MPI_Finalize). */
void lc_comm_destroy_all(void);

#endif
