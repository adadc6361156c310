/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm_create.c — communicators made from groups: MPI_Comm_create
 * (collective over the parent) and MPI_Comm_create_group (collective over
 * the group only: the context id is agreed among the members alone).
 */
#include "mpi/lc_mpi_comm.h"
#include "coll/lc_coll.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_group.h"

#include <stdlib.h>
#include <string.h>

/* Every member of g must be a member of c: MPI_ERR_GROUP otherwise.
 * members_p (optional): the comm rank of each group member. */
static int lc_group_in_comm(const lc_group_t *g, const lc_comm_t *c, int **members_p)
{
    int rc = MPI_SUCCESS;
    int n = lc_world.universe_size; /* world_ranks are universe ids */
    int *in_c = malloc(sizeof(int) * (size_t)n);
    int *members = malloc(sizeof(int) * (size_t)(g->size + 1));
    if (!in_c || !members) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory checking a group of %d processes", g->size);
        goto out;
    }
    for (int w = 0; w < n; w++) in_c[w] = -1;
    for (int r = 0; r < c->size; r++) in_c[c->world_ranks[r]] = r;
    for (int i = 0; i < g->size && rc == MPI_SUCCESS; i++) {
        members[i] = in_c[g->world[i]];
        if (members[i] < 0)
            rc = lc_error(MPI_ERR_GROUP, "rank %d of the group (world rank %d) is not a member of the communicator: "
                                         "the group must be a subgroup of the communicator's group",
                          i, g->world[i]);
    }
    if (rc == MPI_SUCCESS && members_p) {
        *members_p = members;
        members = NULL;
    }
out:
    free(in_c);
    free(members);
    return rc;
}

LC_API int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n = NULL;
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_group_in_comm(g, c, NULL));
    /* Every rank of comm takes part in the agreement; non-members get
     * MPI_COMM_NULL. */
    bool member = g->rank != MPI_UNDEFINED;
    /* On an intercommunicator (MPI 2.2): each side gives a subgroup of its
     * own group, and the two subgroups form the new intercommunicator. */
    if (c->remote_world) {
        LC_TRY(lc_inter_split(c, member ? 0 : MPI_UNDEFINED, member ? g->rank : 0, &n));
        *newcomm = n ? n->handle : MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    LC_TRY(lc_mpi_comm_derive(c, member ? g->rank : 0, member ? g->size : 0, g->world, &n));
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_create", rc);
}
LC_MPI_ALIAS(Comm_create);

typedef struct {
    lc_comm_t *c;
    const int *members;
    const lc_group_t *g;
    int tag;
} lc_ctx_subset_t;

/* AND over the group's members only, under their parent ranks. */
static int lc_ctx_reduce_subset(uint64_t *words, int n, void *arg)
{
    lc_ctx_subset_t *a = arg;
    return lc_coll_subset_band(words, (size_t)n, a->members, a->g->size, a->g->rank, LC_COLL_TAG_SUBSET | a->tag,
                               a->c);
}

/* The lowest context slot free on every member. */
static int lc_ctx_agree_group(lc_comm_t *c, const lc_group_t *g, int tag, int *slot_p)
{
    int *members = NULL;
    int rc = lc_group_in_comm(g, c, &members);
    if (rc != MPI_SUCCESS) return rc;
    lc_ctx_subset_t a = { .c = c, .members = members, .g = g, .tag = tag };
    rc = lc_mpi_ctx_agree(c, tag, g->size, lc_ctx_reduce_subset, &a, slot_p);
    free(members);
    return rc;
}

LC_API int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n = NULL;
    lc_group_t *g;
    int slot = 0, rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_check_tag(tag, false));
    LC_TRY(lc_check_intra(c, "MPI_Comm_create_group"));
    if (g->rank == MPI_UNDEFINED) { /* not a member: nothing to agree on */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    LC_TRY(lc_ctx_agree_group(c, g, tag & ~LC_COLL_TAG_SUBSET, &slot));
    LC_TRY(lc_mpi_comm_make(c, slot, g->rank, g->size, g->world, &n));
    *newcomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_create_group", rc);
}
LC_MPI_ALIAS(Comm_create_group);
