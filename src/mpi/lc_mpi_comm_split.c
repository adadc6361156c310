/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm_split.c — MPI_Comm_split and MPI_Comm_split_type.
 *
 * MPI_COMM_TYPE_SHARED groups the ranks that Locus *proved* can share
 * memory: a peer is one when wire-up chose the shared-memory channel for
 * it (same kernel and user, and both sides attached each other's
 * segment), so two containers that share a segment directory land in one
 * communicator, while ranks that LOCUS_NET_FORCE or LOCUS_NET_BLOCK sends
 * through the network do not.  MPI_COMM_TYPE_HW_GUIDED takes the level
 * from the info key "mpi_hw_resource_type": "mpi_shared_memory" (the same
 * groups) or "NUMANode" (those groups cut by NUMA node, from hwloc);
 * MPI_COMM_TYPE_HW_UNGUIDED takes the first of these levels that splits
 * the communicator into strict subsets.  MPI_COMM_TYPE_RESOURCE_GUIDED
 * (MPI 4.1) takes "mpi_hw_resource_type" as HW_GUIDED does, else the
 * info key "mpi_pset_name": the members of c in that process set
 * ("mpi://WORLD": all of c; "mpi://SELF": each process alone; names
 * compared without case, as the session calls do).  A guided type whose
 * info names nothing Locus knows gives MPI_COMM_NULL (MPI 4.1 §7.4.2).
 */
#include "mpi/lc_mpi_comm.h"
#include "coll/lc_coll.h"
#include "locality/lc_topo.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_info.h"
#include "util/lc_params.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct lc_split_entry {
    int color, key, rank;
} lc_split_entry_t;

static int lc_split_cmp(const void *a, const void *b)
{
    const lc_split_entry_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The ranks of `c` that chose this rank's color, by key then rank
 * (collective: an allgather).  *members_p: malloc'd, *n_p entries (0 for
 * MPI_UNDEFINED). */
static int lc_split_members(lc_comm_t *c, int color, int key, lc_split_entry_t **members_p, int *n_p)
{
    int rc = MPI_SUCCESS, mine[2] = { color, key }, n = 0;
    int *all = malloc(sizeof(int) * 2 * (size_t)c->size);
    lc_split_entry_t *members = malloc(sizeof(*members) * (size_t)c->size);
    if (!all || !members) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory splitting a communicator of size %d", c->size);
        goto out;
    }
    rc = lc_coll_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c);
    if (rc != MPI_SUCCESS) goto out;
    for (int r = 0; r < c->size; r++)
        if (color != MPI_UNDEFINED && all[2 * r] == color)
            members[n++] = (lc_split_entry_t){ all[2 * r], all[2 * r + 1], r };
    qsort(members, (size_t)n, sizeof(*members), lc_split_cmp);
    *members_p = members;
    *n_p = n;
    members = NULL;
out:
    free(all);
    free(members);
    return rc;
}

/* The new communicator of the members (collective over c: every rank
 * takes part in the context agreement; n = 0 gives *out_p NULL). */
static int lc_split_make(lc_comm_t *c, const lc_split_entry_t *members, int n, lc_comm_t **out_p)
{
    int *world = malloc(sizeof(int) * (size_t)(n + 1)), me = 0;
    if (!world) return lc_error(MPI_ERR_NO_MEM, "out of memory splitting a communicator of size %d", c->size);
    for (int i = 0; i < n; i++) {
        world[i] = c->world_ranks[members[i].rank];
        if (members[i].rank == c->rank) me = i;
    }
    int rc = lc_mpi_comm_derive(c, me, n, world, out_p);
    free(world);
    return rc;
}

int lc_mpi_comm_split_intra(lc_comm_t *c, int color, int key, lc_comm_t **out_p)
{
    lc_split_entry_t *members = NULL;
    int n = 0;
    int rc = lc_split_members(c, color, key, &members, &n);
    if (rc == MPI_SUCCESS) rc = lc_split_make(c, members, n, out_p);
    free(members);
    return rc;
}

LC_API int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    if (color < 0 && color != MPI_UNDEFINED)
        LC_TRY(lc_error(MPI_ERR_ARG, "color %d is negative (use MPI_UNDEFINED to opt out)", color));
    if (c->remote_world)
        LC_TRY(lc_inter_split(c, color, key, &n));
    else
        LC_TRY(lc_mpi_comm_split_intra(c, color, key, &n));
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_split", rc);
}
LC_MPI_ALIAS(Comm_split);

/* ---- MPI_Comm_split_type ------------------------------------------------- */

/* Rank r of c can share memory with this process: itself, or a peer that
 * wire-up gave the shared-memory channel. */
static bool lc_split_shares_memory(const lc_comm_t *c, int r)
{
    lc_channel_kind_t kind = c->peers[r]->kind;
    return kind == LC_CHANNEL_SELF || kind == LC_CHANNEL_SHM;
}

/* The hardware levels Locus can split by, coarsest first. */
typedef enum { LC_LEVEL_NONE, LC_LEVEL_SHARED, LC_LEVEL_NUMA, LC_LEVEL_PSET } lc_split_level_t;

static const char *lc_split_level_name(lc_split_level_t level)
{
    return level == LC_LEVEL_SHARED ? "mpi_shared_memory" : "NUMANode";
}

/* This rank's color at `level`: the lowest rank of c it shares memory
 * with (for NUMA, times the node count plus its NUMA node), or
 * MPI_UNDEFINED when the level does not place it (a rank whose cpus span
 * several NUMA nodes). */
static int lc_split_color(const lc_comm_t *c, lc_split_level_t level)
{
    int leader = 0;
    while (!lc_split_shares_memory(c, leader)) leader++; /* ends at c->rank at the latest */
    if (level == LC_LEVEL_SHARED) return leader;
    bool loaded = lc_topo_loaded();
    if (!lc_params.numa || (!loaded && lc_topo_load() != 0)) return MPI_UNDEFINED; /* LOCUS_NUMA=0: no topology */
    int node = lc_topo_node_of_self();
    if (!loaded) lc_topo_unload();
    if (node < 0 || node >= LC_TOPO_MAX_NODES) return MPI_UNDEFINED;
    return leader * LC_TOPO_MAX_NODES + node;
}

/* RESOURCE_GUIDED with "mpi_pset_name" (and no "mpi_hw_resource_type"):
 * the process set it names, or NULL. */
static const char *lc_split_pset_name(int type, const lc_info_t *info)
{
    if (type != MPI_COMM_TYPE_RESOURCE_GUIDED || !info || lc_info_get(info, "mpi_hw_resource_type")) return NULL;
    return lc_info_get(info, "mpi_pset_name");
}

/* This rank's color for a process-set split: the same for every member of
 * mpi://WORLD, its own world rank for mpi://SELF, MPI_UNDEFINED for a name
 * Locus has no process set of. */
static int lc_split_pset_color(const char *name)
{
    if (name && strcasecmp(name, "mpi://WORLD") == 0) return 0;
    if (name && strcasecmp(name, "mpi://SELF") == 0) return lc_world.rank;
    return MPI_UNDEFINED;
}

/* The level an info object asks for (HW_GUIDED, RESOURCE_GUIDED); NONE
 * when it names none Locus knows. */
static lc_split_level_t lc_split_guided_level(int type, const lc_info_t *info)
{
    const char *v = info ? lc_info_get(info, "mpi_hw_resource_type") : NULL;
    if (!v) return lc_split_pset_name(type, info) ? LC_LEVEL_PSET : LC_LEVEL_NONE;
    if (strcmp(v, "mpi_shared_memory") == 0) return LC_LEVEL_SHARED;
    if (strcasecmp(v, "NUMANode") == 0 || strcasecmp(v, "numa") == 0) return LC_LEVEL_NUMA;
    return LC_LEVEL_NONE;
}

/* What a rank contributes to a split_type call: its key, the split_type it
 * passed, and its color at each level (MPI_UNDEFINED where the level does
 * not place it). */
enum { LC_SPLIT_KEY, LC_SPLIT_TYPE, LC_SPLIT_SHARED, LC_SPLIT_NUMA, LC_SPLIT_PSET, LC_SPLIT_N };

static int lc_split_level_slot(lc_split_level_t level)
{
    if (level == LC_LEVEL_PSET) return LC_SPLIT_PSET;
    return level == LC_LEVEL_SHARED ? LC_SPLIT_SHARED : LC_SPLIT_NUMA;
}

/* Ranks of c that passed this rank's split_type and whose color at
 * `level` is this rank's (none when it is MPI_UNDEFINED), sorted by key
 * then rank. */
static int lc_split_pick(const lc_comm_t *c, const int *all, lc_split_level_t level, lc_split_entry_t *members)
{
    const int *me = all + LC_SPLIT_N * c->rank;
    int slot = lc_split_level_slot(level), color = me[slot], n = 0;
    if (color == MPI_UNDEFINED) return 0;
    for (int r = 0; r < c->size; r++) {
        const int *e = all + LC_SPLIT_N * r;
        if (e[slot] == color && e[LC_SPLIT_TYPE] == me[LC_SPLIT_TYPE])
            members[n++] = (lc_split_entry_t){ color, e[LC_SPLIT_KEY], r };
    }
    qsort(members, (size_t)n, sizeof(*members), lc_split_cmp);
    return n;
}

/* The level this rank's split_type asks for; NONE for MPI_UNDEFINED or a
 * guided request naming no level Locus knows.  HW_UNGUIDED: the first
 * level whose groups are strict subsets of c (groups are disjoint, so
 * when this rank's group is all of c every rank's is). */
static lc_split_level_t lc_split_level(const lc_comm_t *c, int type, const lc_info_t *info, const int *all,
                                       lc_split_entry_t *scratch)
{
    if (type == MPI_COMM_TYPE_SHARED) return LC_LEVEL_SHARED;
    if (type == MPI_COMM_TYPE_HW_GUIDED || type == MPI_COMM_TYPE_RESOURCE_GUIDED)
        return lc_split_guided_level(type, info);
    if (type != MPI_COMM_TYPE_HW_UNGUIDED) return LC_LEVEL_NONE;
    for (lc_split_level_t level = LC_LEVEL_SHARED; level <= LC_LEVEL_NUMA; level++) {
        int n = lc_split_pick(c, all, level, scratch);
        if (n > 0 && n < c->size) return level;
    }
    return LC_LEVEL_NONE;
}

/* The new communicator of one split_type call, with the level it used in
 * its hints (MPI 4.1 §7.4.2 asks for that under the guided types).
 * Every rank makes the same collective calls whatever split_type it passed
 * (MPI_UNDEFINED on some ranks is allowed): one allgather of every rank's
 * colors at every level, one allreduce, the context agreement.
 * Every member of a group must share memory with every other: when the
 * channel choice is not transitive (possible only with unusual container
 * set-ups) all ranks fall back to groups of one, and rank 0 says so. */
static int lc_split_type(lc_comm_t *c, int type, int key, const lc_info_t *info, lc_comm_t **out_p)
{
    /* Only the hardware types can use the NUMA level, and a rank's colors
     * matter only to ranks that passed its type (lc_split_pick): the others
     * need not load the topology. */
    bool hw =
        type == MPI_COMM_TYPE_HW_GUIDED || type == MPI_COMM_TYPE_HW_UNGUIDED || type == MPI_COMM_TYPE_RESOURCE_GUIDED;
    const char *pset = lc_split_pset_name(type, info);
    int mine[LC_SPLIT_N] = { key, type, lc_split_color(c, LC_LEVEL_SHARED),
                             hw && !pset ? lc_split_color(c, LC_LEVEL_NUMA) : MPI_UNDEFINED,
                             lc_split_pset_color(pset) };
    int *all = malloc(sizeof(int) * LC_SPLIT_N * (size_t)c->size), ok = 1, all_ok = 1, n = 0, rc;
    lc_split_entry_t *members = malloc(sizeof(*members) * (size_t)c->size);
    if (!all || !members) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory splitting a communicator of size %d", c->size);
        goto out;
    }
    rc = lc_coll_allgather(mine, LC_SPLIT_N, MPI_INT, all, LC_SPLIT_N, MPI_INT, c);
    if (rc != MPI_SUCCESS) goto out;
    for (int r = 0; r < c->size; r++)
        if (all[LC_SPLIT_N * r + LC_SPLIT_SHARED] == mine[LC_SPLIT_SHARED]) ok &= lc_split_shares_memory(c, r);
    rc = lc_coll_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, c);
    if (rc != MPI_SUCCESS) goto out;
    lc_split_level_t level = lc_split_level(c, type, info, all, members);
    if (level != LC_LEVEL_NONE) n = lc_split_pick(c, all, level, members);
    if (!all_ok) {
        if (c->rank == 0)
            lc_log_warn("MPI_Comm_split_type: the ranks that share memory do not form disjoint groups (a rank "
                        "shares memory with two ranks that cannot share with each other); each rank gets a "
                        "communicator of its own");
        if (n > 0) members[0] = (lc_split_entry_t){ 0, key, c->rank };
        n = n > 0 ? 1 : 0;
    }
    rc = lc_split_make(c, members, n, out_p);
    if (rc != MPI_SUCCESS || !*out_p || type == MPI_COMM_TYPE_SHARED) goto out;
    lc_info_t *hints = NULL;
    rc = lc_info_new(&hints);
    if (rc == MPI_SUCCESS && level == LC_LEVEL_PSET)
        rc = lc_info_set(hints, "mpi_pset_name", pset);
    else if (rc == MPI_SUCCESS)
        rc = lc_info_set(hints, "mpi_hw_resource_type", lc_split_level_name(level));
    (*out_p)->info = hints;
    if (rc != MPI_SUCCESS) lc_comm_free_handle(*out_p);
out:
    free(all);
    free(members);
    return rc;
}

/* On an intercommunicator (MPI_COMM_TYPE_SHARED or MPI_UNDEFINED): the
 * processes of both groups that share memory form the new one, as
 * MPI_Comm_split on it would with a color naming the memory domain -- the
 * lowest world rank this process shares memory with, the same number in
 * both groups. */
static int lc_split_type_inter(lc_comm_t *c, int type, int key, lc_comm_t **out_p)
{
    if (type != MPI_COMM_TYPE_SHARED && type != MPI_UNDEFINED)
        return lc_error(MPI_ERR_COMM, "MPI_Comm_split_type on an intercommunicator: only MPI_COMM_TYPE_SHARED "
                                      "(or MPI_UNDEFINED) is supported yet, not the hardware split types");
    int color = MPI_UNDEFINED;
    for (int w = 0; type == MPI_COMM_TYPE_SHARED && color == MPI_UNDEFINED; w++)
        if (lc_world.peers[w].kind == LC_CHANNEL_SELF || lc_world.peers[w].kind == LC_CHANNEL_SHM) color = w;
    return lc_inter_split(c, color, key, out_p);
}

LC_API int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    lc_comm_t *c = NULL, *n = NULL;
    lc_info_t *i;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_info_or_null(info, &i));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
        split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_COMM_TYPE_RESOURCE_GUIDED)
        LC_TRY(lc_error(MPI_ERR_ARG,
                        "split_type %d is not MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                        "MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED or MPI_UNDEFINED",
                        split_type));
    if (c->remote_world)
        LC_TRY(lc_split_type_inter(c, split_type, key, &n));
    else
        LC_TRY(lc_split_type(c, split_type, key, i, &n));
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_split_type", rc);
}
LC_MPI_ALIAS(Comm_split_type);
