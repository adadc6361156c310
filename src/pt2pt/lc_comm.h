/*
 * lc_comm.h — communicators.
 *
 * A communicator is a group (comm rank -> world rank -> peer) and a pair
 * of context ids: `ctx` for point-to-point and `ctx + 1` for collectives,
 * so that user messages can never match collective traffic.  Handles
 * follow MPICH's encoding: builtin 0x44000000 (WORLD), 0x44000001 (SELF),
 * others 0x84000000 | index.
 */
#ifndef LC_COMM_H
#define LC_COMM_H

#include "channel/lc_channel.h"

#include <mpi.h>
#include <stdint.h>

typedef struct lc_comm {
    MPI_Comm handle;
    uint32_t ctx;            /* even; collectives use ctx + 1 */
    int rank, size;
    int *world_ranks;        /* [size] */
    lc_peer_t **peers;       /* [size] */
    MPI_Errhandler errhandler;
    int context_slot;        /* bit in the context-id mask (freed with the comm) */
    char name[MPI_MAX_OBJECT_NAME];
} lc_comm_t;

#define LC_CTX_PT2PT 0
#define LC_CTX_COLL 1

/* Create a communicator of `size` ranks (world_ranks is copied) with
 * context slot `slot`.  Builtin handles for WORLD and SELF. Returns NULL
 * when out of memory. */
lc_comm_t *lc_comm_create(int slot, int rank, int size, const int *world_ranks, MPI_Comm builtin_handle);
void lc_comm_destroy(lc_comm_t *comm);

/* Handle -> object; NULL for MPI_COMM_NULL, freed or invalid handles. */
lc_comm_t *lc_comm_lookup_slow(MPI_Comm handle);
extern lc_comm_t *lc_comm_builtin[2];

static inline lc_comm_t *lc_comm_lookup(MPI_Comm handle)
{
    if ((unsigned)handle == 0x44000000u) return lc_comm_builtin[0];
    return lc_comm_lookup_slow(handle);
}

/* Destroy every communicator still alive (MPI_Finalize). */
void lc_comm_destroy_all(void);

#endif
