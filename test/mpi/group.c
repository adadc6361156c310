/* SPDX-License-Identifier: BSD-3-Clause */
/* group: MPI_Group_* and MPI_Comm_group.  The world group and groups
 * built from it with incl/excl/range_incl/range_excl/union/intersection/
 * difference have the members, order, sizes and ranks the standard gives;
 * translate_ranks and compare agree; empty results are MPI_GROUP_EMPTY;
 * bad arguments give MPI_ERR_GROUP / MPI_ERR_RANK / MPI_ERR_ARG under
 * MPI_ERRORS_RETURN and the program goes on. */
#include "lc_test.h"

static void expect_class(int rc, int cls, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == cls, "%s: class %d (%s), expected %d (%s)", call, got, lc_class_name(got), cls,
             lc_class_name(cls));
}
#define EXPECT(call, cls) expect_class((call), cls, #call)

/* The world ranks of g's members, in group order, into out[]; returns the size. */
static int members(MPI_Group g, MPI_Group world, int *out)
{
    int n, *idx;
    LC_MPI(MPI_Group_size(g, &n));
    idx = lc_malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) idx[i] = i;
    if (n) LC_MPI(MPI_Group_translate_ranks(g, n, idx, world, out));
    free(idx);
    return n;
}

static void check_members(MPI_Group g, MPI_Group world, int n, const int *want, const char *what)
{
    int got[64];
    int m = members(g, world, got);
    LC_CHECK(m == n, "%s: size %d, expected %d", what, m, n);
    for (int i = 0; i < n && i < m; i++)
        LC_CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i], want[i]);
    int rank, me = lc_world_rank(), expect = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (want[i] == me) expect = i;
    LC_MPI(MPI_Group_rank(g, &rank));
    LC_CHECK(rank == expect, "%s: MPI_Group_rank %d, expected %d", what, rank, expect);
}

static void test_constructors(MPI_Group world, int size)
{
    MPI_Group g, h, u;
    int want[64], n = 0, result;
    /* incl in reverse order */
    int rev[64];
    for (int i = 0; i < size; i++) rev[i] = size - 1 - i;
    LC_MPI(MPI_Group_incl(world, size, rev, &g));
    check_members(g, world, size, rev, "incl reversed");
    LC_MPI(MPI_Group_compare(world, g, &result));
    LC_CHECK(result == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, reversed) = %d", result);
    /* excl of the even ranks keeps the odd ones in order */
    int evens[32], ne = 0;
    for (int i = 0; i < size; i += 2) evens[ne++] = i;
    LC_MPI(MPI_Group_excl(world, ne, evens, &h));
    n = 0;
    for (int i = 1; i < size; i += 2) want[n++] = i;
    check_members(h, world, n, want, "excl evens");
    /* union(reversed, odds) = reversed; intersection(reversed, odds) = odds in reversed order */
    LC_MPI(MPI_Group_union(g, h, &u));
    check_members(u, world, size, rev, "union");
    LC_MPI(MPI_Group_free(&u));
    LC_MPI(MPI_Group_intersection(g, h, &u));
    n = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 2) want[n++] = i;
    check_members(u, world, n, want, "intersection");
    LC_MPI(MPI_Group_free(&u));
    /* difference(world, odds) = evens; union(odds, world) = odds then evens */
    LC_MPI(MPI_Group_difference(world, h, &u));
    check_members(u, world, ne, evens, "difference");
    LC_MPI(MPI_Group_free(&u));
    LC_MPI(MPI_Group_union(h, world, &u));
    n = 0;
    for (int i = 1; i < size; i += 2) want[n++] = i;
    for (int i = 0; i < size; i += 2) want[n++] = i;
    check_members(u, world, n, want, "union(odds, world)");
    LC_MPI(MPI_Group_free(&u));
    /* empty results are MPI_GROUP_EMPTY */
    LC_MPI(MPI_Group_difference(world, world, &u));
    LC_CHECK(u == MPI_GROUP_EMPTY, "difference(world, world) is %#x, not MPI_GROUP_EMPTY", (unsigned)u);
    LC_MPI(MPI_Group_free(&u));
    LC_CHECK(u == MPI_GROUP_NULL, "freed group handle is %#x, not MPI_GROUP_NULL", (unsigned)u);
    LC_MPI(MPI_Group_incl(world, 0, NULL, &u));
    LC_CHECK(u == MPI_GROUP_EMPTY, "incl of no rank is %#x, not MPI_GROUP_EMPTY", (unsigned)u);
    LC_MPI(MPI_Group_free(&u));
    LC_MPI(MPI_Group_free(&g));
    LC_MPI(MPI_Group_free(&h));
}

static void test_ranges(MPI_Group world, int size)
{
    MPI_Group g;
    int want[64], n = 0;
    /* descending stride: last, last-2, ... */
    int r1[1][3] = { { size - 1, 0, -2 } };
    for (int i = size - 1; i >= 0; i -= 2) want[n++] = i;
    LC_MPI(MPI_Group_range_incl(world, 1, r1, &g));
    check_members(g, world, n, want, "range_incl (size-1, 0, -2)");
    LC_MPI(MPI_Group_free(&g));
    /* two ranges; excl keeps the rest in order */
    int r2[2][3] = { { 0, 0, 1 }, { size - 1, size - 1, 1 } };
    n = 0;
    for (int i = 1; i < size - 1; i++) want[n++] = i;
    if (size > 1) {
        LC_MPI(MPI_Group_range_excl(world, 2, r2, &g));
        check_members(g, world, n, want, "range_excl first and last");
        LC_MPI(MPI_Group_free(&g));
    }
}

static void test_translate_compare(MPI_Group world, int size)
{
    MPI_Group self, g;
    LC_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
    int r = lc_world_rank(), out[3], in[3] = { r, MPI_PROC_NULL, (r + 1) % size };
    LC_MPI(MPI_Group_translate_ranks(world, 3, in, self, out));
    LC_CHECK(out[0] == 0 && out[1] == MPI_PROC_NULL && out[2] == (size == 1 ? 0 : MPI_UNDEFINED),
             "translate to self: %d %d %d", out[0], out[1], out[2]);
    int result;
    LC_MPI(MPI_Group_compare(world, self, &result));
    LC_CHECK(result == (size == 1 ? MPI_IDENT : MPI_UNEQUAL), "compare(world, self) = %d", result);
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
    LC_MPI(MPI_Group_compare(world, g, &result));
    LC_CHECK(result == MPI_IDENT, "two MPI_Comm_group of world compare %d, not MPI_IDENT", result);
    LC_MPI(MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &result));
    LC_CHECK(result == MPI_IDENT, "MPI_GROUP_EMPTY vs itself: %d", result);
    int es = -1, er = 0;
    LC_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &es));
    LC_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &er));
    LC_CHECK(es == 0 && er == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d rank %d", es, er);
    LC_MPI(MPI_Group_free(&g));
    LC_MPI(MPI_Group_free(&self));
}

static void expect_either(int rc, int c1, int c2, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == c1 || got == c2, "%s: class %d (%s), expected %s or %s", call, got, lc_class_name(got),
             lc_class_name(c1), lc_class_name(c2));
}

static void test_errors(MPI_Group world, int size)
{
    MPI_Group g = MPI_GROUP_NULL;
    int n, out[2];
    EXPECT(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
    EXPECT(MPI_Group_incl(world, 1, (int[]){ size }, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_excl(world, 1, (int[]){ -1 }, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_translate_ranks(world, 1, (int[]){ size }, world, out), MPI_ERR_RANK);
    int bad[1][3] = { { 0, size - 1, 0 } };
    EXPECT(MPI_Group_range_incl(world, 1, bad, &g), MPI_ERR_ARG);
    /* A range that runs away from its end: MPICH and Locus refuse it. */
    int away[1][3] = { { size - 1, 0, 1 } };
    if (size > 1) EXPECT(MPI_Group_range_incl(world, 1, away, &g), MPI_ERR_ARG);
    int outside[1][3] = { { 0, size, 1 } };
    expect_either(MPI_Group_range_excl(world, 1, outside, &g), MPI_ERR_RANK, MPI_ERR_ARG,
                  "MPI_Group_range_excl(0..size)");
    EXPECT(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
    LC_CHECK(g == MPI_GROUP_NULL, "a failed constructor changed newgroup to %#x", (unsigned)g);
    /* MPICH 4.0.2 accepts a repeated rank and freeing MPI_GROUP_NULL. */
    if (!lc_library_is_mpich()) {
        if (size > 1) EXPECT(MPI_Group_incl(world, 2, (int[]){ 1, 1 }, &g), MPI_ERR_RANK);
        EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP);
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int size = lc_world_size();
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Group world;
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int ws, wr;
    LC_MPI(MPI_Group_size(world, &ws));
    LC_MPI(MPI_Group_rank(world, &wr));
    LC_CHECK(ws == size && wr == lc_world_rank(), "world group: size %d rank %d", ws, wr);
    if (size > 64) LC_FATAL("this test handles up to 64 ranks");
    test_constructors(world, size);
    test_ranges(world, size);
    test_translate_compare(world, size);
    test_errors(world, size);
    LC_MPI(MPI_Group_free(&world));
    return lc_finish();
}
