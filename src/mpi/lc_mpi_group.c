/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_group.c — the group object and its queries: MPI_Group_size,
 * _rank, _translate_ranks, _compare, _free, and MPI_Comm_group.  The
 * constructors that combine groups are in lc_mpi_group_ops.c.
 */
#include "mpi/lc_mpi_group.h"
#include "util/lc_handle.h"

#include <stdlib.h>
#include <string.h>

static lc_handle_table_t lc_groups = LC_HANDLE_TABLE_INIT(0x88000000u, 0x03ffffffu);
static lc_group_t lc_group_empty = { .size = 0, .rank = MPI_UNDEFINED, .world = NULL };

static void lc_group_destroy(lc_group_t *g)
{
    if (g == &lc_group_empty) return;
    free(g->world);
    free(g);
}

int lc_group_new(int size, const int *world, lc_group_t **group_p)
{
    lc_group_t *g = calloc(1, sizeof(*g));
    int *w = malloc(sizeof(int) * (size_t)(size ? size : 1));
    if (!g || !w) {
        free(g);
        free(w);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a group of %d processes", size);
    }
    g->size = size;
    g->world = w;
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < size; i++) {
        w[i] = world[i];
        if (world[i] == lc_world.rank) g->rank = i;
    }
    *group_p = g;
    return MPI_SUCCESS;
}

int lc_group_publish(lc_group_t *g, MPI_Group *handle_p)
{
    if (g->size == 0) {
        lc_group_destroy(g);
        *handle_p = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    int rc = lc_handle_add(&lc_groups, g, handle_p);
    if (rc != MPI_SUCCESS) lc_group_destroy(g);
    return rc;
}

int lc_check_group(MPI_Group handle, lc_group_t **group_p)
{
    int rc = lc_check_initialized();
    if (rc != MPI_SUCCESS) return rc;
    if (handle == MPI_GROUP_EMPTY) {
        *group_p = &lc_group_empty;
        return MPI_SUCCESS;
    }
    lc_group_t *g = lc_handle_get(&lc_groups, handle);
    if (lc_likely(g != NULL)) {
        *group_p = g;
        return MPI_SUCCESS;
    }
    if (handle == MPI_GROUP_NULL) return lc_error(MPI_ERR_GROUP, "the group is MPI_GROUP_NULL");
    return lc_error(MPI_ERR_GROUP, "%#x is not a valid group (freed, or not a group)", (unsigned)handle);
}

int *lc_group_rank_map(const lc_group_t *g, int *rc)
{
    /* Indexed by universe id (lc_universe.h): world ranks and peers met later. */
    int n = lc_world.universe_size;
    int *map = malloc(sizeof(int) * (size_t)n);
    if (!map) {
        *rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a rank map of %d processes", n);
        return NULL;
    }
    memset(map, 0xff, sizeof(int) * (size_t)n); /* -1 */
    for (int i = 0; i < g->size; i++) map[g->world[i]] = i;
    return map;
}

void lc_group_fini(void)
{
    for (int i = 0; i < lc_groups.len; i++) {
        lc_group_t *g = lc_handle_slot(&lc_groups, i);
        if (g) lc_group_destroy(g);
    }
    lc_handle_table_reset(&lc_groups);
}

LC_API int PMPI_Group_size(MPI_Group group, int *size)
{
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(size, "size"));
    *size = g->size;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Group_size", rc);
}
LC_MPI_ALIAS(Group_size);

LC_API int PMPI_Group_rank(MPI_Group group, int *rank)
{
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(rank, "rank"));
    *rank = g->rank;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Group_rank", rc);
}
LC_MPI_ALIAS(Group_rank);

static int lc_group_translate(const lc_group_t *a, int n, const int *ranks1, const lc_group_t *b, int *ranks2)
{
    for (int i = 0; i < n; i++)
        if ((ranks1[i] < 0 || ranks1[i] >= a->size) && ranks1[i] != MPI_PROC_NULL)
            return lc_error(MPI_ERR_RANK, "ranks1[%d] = %d is not a rank of group1 (size %d) or MPI_PROC_NULL", i,
                            ranks1[i], a->size);
    int rc = MPI_SUCCESS;
    int *map = lc_group_rank_map(b, &rc);
    if (!map) return rc;
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        ranks2[i] = r == MPI_PROC_NULL ? MPI_PROC_NULL : map[a->world[r]] < 0 ? MPI_UNDEFINED : map[a->world[r]];
    }
    free(map);
    return MPI_SUCCESS;
}

LC_API int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    lc_group_t *a, *b;
    int rc;
    LC_TRY(lc_check_group(group1, &a));
    LC_TRY(lc_check_group(group2, &b));
    if (n < 0) LC_TRY(lc_error(MPI_ERR_ARG, "n = %d is negative", n));
    if (n > 0) LC_TRY(lc_check_ptr(ranks1, "ranks1"));
    if (n > 0) LC_TRY(lc_check_ptr(ranks2, "ranks2"));
    LC_TRY(lc_group_translate(a, n, ranks1, b, ranks2));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Group_translate_ranks", rc);
}
LC_MPI_ALIAS(Group_translate_ranks);

/* MPI_IDENT: same members in the same order; MPI_SIMILAR: same members. */
static int lc_group_compare(const lc_group_t *a, const lc_group_t *b, int *result)
{
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (a->size == 0 || !memcmp(a->world, b->world, sizeof(int) * (size_t)a->size)) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    int *map = lc_group_rank_map(b, &rc);
    if (!map) return rc;
    *result = MPI_SIMILAR;
    for (int i = 0; i < a->size; i++)
        if (map[a->world[i]] < 0) *result = MPI_UNEQUAL;
    free(map);
    return MPI_SUCCESS;
}

LC_API int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    lc_group_t *a, *b;
    int rc;
    LC_TRY(lc_check_group(group1, &a));
    LC_TRY(lc_check_group(group2, &b));
    LC_TRY(lc_check_ptr(result, "result"));
    LC_TRY(lc_group_compare(a, b, result));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Group_compare", rc);
}
LC_MPI_ALIAS(Group_compare);

LC_API int PMPI_Group_free(MPI_Group *group)
{
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_ptr(group, "group"));
    LC_TRY(lc_check_group(*group, &g));
    /* MPI_GROUP_EMPTY is returned by group constructors, so freeing it is
     * allowed; only the handle is nulled. */
    if (g != &lc_group_empty) {
        lc_handle_remove(&lc_groups, *group);
        lc_group_destroy(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Group_free", rc);
}
LC_MPI_ALIAS(Group_free);

LC_API int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    lc_comm_t *c = NULL;
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(group, "group"));
    LC_TRY(lc_group_new(c->size, c->world_ranks, &g));
    g->session = c->session;
    LC_TRY(lc_group_publish(g, group));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_group", rc);
}
LC_MPI_ALIAS(Comm_group);
