/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_group.h — process groups (MPI 4.1 §7.3): an ordered list of
 * processes, each named by its rank in MPI_COMM_WORLD.
 *
 * Groups are local objects: no call on them communicates.  Every group a
 * user holds is its own object (MPI_Comm_group makes a new one each time),
 * freed by MPI_Group_free.  An empty result is MPI_GROUP_EMPTY, a builtin
 * object that is never freed.  Handles: 0x88000000 | index (MPICH's
 * direct group handles); MPI_GROUP_EMPTY is 0x48000000.
 */
#ifndef LC_MPI_GROUP_H
#define LC_MPI_GROUP_H

#include "mpi/lc_mpi.h"

typedef struct lc_group {
    int size;
    int rank;   /* this process's rank in the group; MPI_UNDEFINED when not a member */
    int *world; /* [size]: world rank of each member, in group order */
    uint32_t session; /* id of the session it comes from (Group_from_session_pset, or a group
                         or communicator made from one); 0: none */
} lc_group_t;

/* A group with the members world[0..size) (copied).  MPI error code. */
int lc_group_new(int size, const int *world, lc_group_t **group_p);
/* Give the group a handle (MPI_GROUP_EMPTY, and the object freed, when it
 * is empty).  On failure the object is freed.  MPI error code. */
int lc_group_publish(lc_group_t *group, MPI_Group *handle_p);
/* The group of a handle: MPI_ERR_GROUP for MPI_GROUP_NULL or a handle that
 * names no group (also checks that MPI is initialized). */
int lc_check_group(MPI_Group handle, lc_group_t **group_p);
/* rank_of[w] = rank in `group` of world rank w, or -1: an array of
 * lc_world.size entries to free.  NULL (and *rc set) when out of memory. */
int *lc_group_rank_map(const lc_group_t *group, int *rc);
/* Free every group still alive (MPI_Finalize). */
void lc_group_fini(void);

#endif
