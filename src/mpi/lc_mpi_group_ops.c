/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_group_ops.c — groups made from groups (MPI 4.1 §7.3.2):
 * union, intersection, difference, incl, excl, range_incl, range_excl.
 *
 * Each builds the member list in the order the standard gives (first
 * group's order, then the second's for a union; the ranks' order for
 * incl), then lc_group_publish names it (MPI_GROUP_EMPTY when empty).
 */
#include "mpi/lc_mpi_group.h"

#include <stdlib.h>

/* The three set operations: which members of a, then of b, to keep. */
typedef enum { LC_GROUP_UNION, LC_GROUP_INTERSECTION, LC_GROUP_DIFFERENCE } lc_group_setop_t;

static int lc_group_setop(const lc_group_t *a, const lc_group_t *b, lc_group_setop_t op, MPI_Group *out_p)
{
    int rc = MPI_SUCCESS, n = 0;
    int *in_b = lc_group_rank_map(b, &rc);
    if (!in_b) return rc;
    int *in_a = op == LC_GROUP_UNION ? lc_group_rank_map(a, &rc) : NULL;
    int *world = malloc(sizeof(int) * (size_t)(a->size + b->size + 1));
    lc_group_t *g = NULL;
    if ((op == LC_GROUP_UNION && !in_a) || !world) {
        if (rc == MPI_SUCCESS) rc = lc_error(MPI_ERR_NO_MEM, "out of memory combining two groups");
        goto out;
    }
    for (int i = 0; i < a->size; i++) {
        bool member_b = in_b[a->world[i]] >= 0;
        if (op == LC_GROUP_UNION || (op == LC_GROUP_INTERSECTION) == member_b) world[n++] = a->world[i];
    }
    if (op == LC_GROUP_UNION)
        for (int i = 0; i < b->size; i++)
            if (in_a[b->world[i]] < 0) world[n++] = b->world[i];
    rc = lc_group_new(n, world, &g);
    if (rc == MPI_SUCCESS) g->session = a->session ? a->session : b->session;
    if (rc == MPI_SUCCESS) rc = lc_group_publish(g, out_p);
out:
    free(in_a);
    free(in_b);
    free(world);
    return rc;
}

static int lc_group_binary(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, lc_group_setop_t op,
                           const char *func)
{
    lc_group_t *a, *b;
    int rc;
    LC_TRY(lc_check_group(group1, &a));
    LC_TRY(lc_check_group(group2, &b));
    LC_TRY(lc_check_ptr(newgroup, "newgroup"));
    LC_TRY(lc_group_setop(a, b, op, newgroup));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return lc_group_binary(group1, group2, newgroup, LC_GROUP_UNION, "MPI_Group_union");
}
LC_MPI_ALIAS(Group_union);

LC_API int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return lc_group_binary(group1, group2, newgroup, LC_GROUP_INTERSECTION, "MPI_Group_intersection");
}
LC_MPI_ALIAS(Group_intersection);

LC_API int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return lc_group_binary(group1, group2, newgroup, LC_GROUP_DIFFERENCE, "MPI_Group_difference");
}
LC_MPI_ALIAS(Group_difference);

/* Mark ranks[0..n) in `seen` (g->size entries): each must be a rank of g,
 * and none may repeat.  `what` names the argument in messages. */
static int lc_group_mark(const lc_group_t *g, int n, const int *ranks, bool *seen, const char *what)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return lc_error(MPI_ERR_RANK, "%s[%d] = %d is not a rank of the group (size %d)", what, i, r, g->size);
        if (seen[r]) return lc_error(MPI_ERR_RANK, "%s[%d] = %d appears twice: the ranks must be distinct", what, i, r);
        seen[r] = true;
    }
    return MPI_SUCCESS;
}

/* incl keeps ranks[] in their order; excl keeps the unmarked ranks in
 * group order. */
static int lc_group_select(const lc_group_t *g, int n, const int *ranks, bool include, const char *what,
                           MPI_Group *out_p)
{
    int rc = MPI_SUCCESS, m = 0;
    bool *seen = calloc((size_t)g->size + 1, sizeof(bool));
    int *world = malloc(sizeof(int) * (size_t)(g->size + 1));
    lc_group_t *out = NULL;
    if (!seen || !world) {
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory selecting from a group of %d", g->size);
        goto done;
    }
    rc = lc_group_mark(g, n, ranks, seen, what);
    if (rc != MPI_SUCCESS) goto done;
    if (include)
        for (int i = 0; i < n; i++) world[m++] = g->world[ranks[i]];
    else
        for (int r = 0; r < g->size; r++)
            if (!seen[r]) world[m++] = g->world[r];
    rc = lc_group_new(m, world, &out);
    if (rc == MPI_SUCCESS) out->session = g->session;
    if (rc == MPI_SUCCESS) rc = lc_group_publish(out, out_p);
done:
    free(seen);
    free(world);
    return rc;
}

static int lc_group_list(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup, bool include,
                         const char *func)
{
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(newgroup, "newgroup"));
    if (n < 0 || n > g->size)
        LC_TRY(lc_error(MPI_ERR_ARG, "n = %d is outside 0..%d (the group's size)", n, g->size));
    if (n > 0) LC_TRY(lc_check_ptr(ranks, "ranks"));
    LC_TRY(lc_group_select(g, n, ranks, include, "ranks", newgroup));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return lc_group_list(group, n, ranks, newgroup, true, "MPI_Group_incl");
}
LC_MPI_ALIAS(Group_incl);

LC_API int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return lc_group_list(group, n, ranks, newgroup, false, "MPI_Group_excl");
}
LC_MPI_ALIAS(Group_excl);

/* Expand n triplets (first, last, stride) into the ranks they name, in
 * order, into *ranks_p (malloc'd; *count_p of them).  A triplet names
 * first, first+stride, ... while not past last; each must be a rank of g. */
static int lc_group_expand_ranges(const lc_group_t *g, int n, int ranges[][3], int **ranks_p, int *count_p)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) return lc_error(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return lc_error(MPI_ERR_RANK, "ranges[%d] = (%d, %d, %d) names a rank outside 0..%d", i, first, last,
                            stride, g->size - 1);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return lc_error(MPI_ERR_ARG, "ranges[%d] = (%d, %d, %d) runs away from its end: the stride's sign must "
                                         "lead from first to last", i, first, last, stride);
        total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return lc_error(MPI_ERR_RANK, "the ranges name more ranks than the group has (%d): a rank repeats",
                            g->size);
    }
    int *ranks = malloc(sizeof(int) * (size_t)(total + 1)), k = 0;
    if (!ranks) return lc_error(MPI_ERR_NO_MEM, "out of memory expanding %d rank ranges", n);
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) ranks[k++] = (int)r;
    }
    *ranks_p = ranks;
    *count_p = k;
    return MPI_SUCCESS;
}

static int lc_group_ranges(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, bool include,
                           const char *func)
{
    lc_group_t *g;
    int *ranks = NULL, count = 0;
    int rc;
    LC_TRY(lc_check_group(group, &g));
    LC_TRY(lc_check_ptr(newgroup, "newgroup"));
    if (n < 0) LC_TRY(lc_error(MPI_ERR_ARG, "n = %d is negative", n));
    if (n > 0) LC_TRY(lc_check_ptr(ranges, "ranges"));
    LC_TRY(lc_group_expand_ranges(g, n, ranges, &ranks, &count));
    LC_TRY(lc_group_select(g, count, ranks, include, "the ranks of ranges", newgroup));
    free(ranks);
    return MPI_SUCCESS;
err:
    free(ranks);
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return lc_group_ranges(group, n, ranges, newgroup, true, "MPI_Group_range_incl");
}
LC_MPI_ALIAS(Group_range_incl);

LC_API int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return lc_group_ranges(group, n, ranges, newgroup, false, "MPI_Group_range_excl");
}
LC_MPI_ALIAS(Group_range_excl);
