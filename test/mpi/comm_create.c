/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_create: communicators from groups and the communicator's own
 * properties.  MPI_Comm_create with the even ranks (odd ranks get
 * MPI_COMM_NULL), MPI_Comm_create_group called by the odd ranks only
 * (the even ranks meanwhile create their own), messages and a collective
 * on each result; MPI_Comm_dup(_with_info) and the hints MPI_Comm_get_info
 * returns; names (set, get, not inherited by a duplicate); test_inter;
 * errors: a group that is not a subgroup (MPI_ERR_GROUP), MPI_GROUP_NULL,
 * MPI_INFO_NULL to set_info (MPI_ERR_INFO, MPICH: MPI_ERR_ARG). */
#include "lc_test.h"

static void expect_class(int rc, int cls, const char *call)
{
    int got = lc_class_of(rc);
    LC_CHECK(got == cls, "%s: class %d (%s), expected %d (%s)", call, got, lc_class_name(got), cls,
             lc_class_name(cls));
}
#define EXPECT(call, cls) expect_class((call), cls, #call)

/* newcomm holds world ranks want[0..n) in order: check rank, size, a ring
 * exchange and an allreduce of the world ranks. */
static void check_comm(MPI_Comm c, int n, const int *want, const char *what)
{
    int size, rank, me = lc_world_rank();
    LC_MPI(MPI_Comm_size(c, &size));
    LC_MPI(MPI_Comm_rank(c, &rank));
    LC_CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    LC_CHECK(rank >= 0 && rank < n && want[rank] == me, "%s: rank %d does not hold world rank %d", what, rank, me);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    LC_MPI(MPI_Sendrecv(&me, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, c, MPI_STATUS_IGNORE));
    LC_CHECK(got == want[prev], "%s: from rank %d got world rank %d, expected %d", what, prev, got, want[prev]);
    int sum = 0, expect = 0;
    for (int i = 0; i < n; i++) expect += want[i];
    LC_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
    LC_CHECK(sum == expect, "%s: allreduce gave %d, expected %d", what, sum, expect);
}

static void test_create(MPI_Group world, int size)
{
    int evens[32], odds[32], ne = 0, no = 0, me = lc_world_rank();
    for (int i = 0; i < size; i++) {
        if (i % 2) odds[no++] = i;
        else evens[ne++] = i;
    }
    MPI_Group ge, go;
    LC_MPI(MPI_Group_incl(world, ne, evens, &ge));
    LC_MPI(MPI_Group_incl(world, no, odds, &go));
    MPI_Comm c;
    LC_MPI(MPI_Comm_create(MPI_COMM_WORLD, ge, &c));
    if (me % 2) {
        LC_CHECK(c == MPI_COMM_NULL, "MPI_Comm_create gave a non-member %#x", (unsigned)c);
    } else {
        check_comm(c, ne, evens, "MPI_Comm_create(evens)");
        LC_MPI(MPI_Comm_free(&c));
    }
    /* Each half makes its communicator with MPI_Comm_create_group, only
     * its members calling, the two halves at the same time. */
    LC_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, me % 2 ? go : ge, me % 2 ? 11 : 22, &c));
    check_comm(c, me % 2 ? no : ne, me % 2 ? odds : evens, "MPI_Comm_create_group(half)");
    /* and a group reversed, from the new communicator (a subgroup of it) */
    MPI_Group cg, rev;
    LC_MPI(MPI_Comm_group(c, &cg));
    int n, idx[32], wr[32];
    LC_MPI(MPI_Group_size(cg, &n));
    for (int i = 0; i < n; i++) idx[i] = n - 1 - i;
    LC_MPI(MPI_Group_incl(cg, n, idx, &rev));
    int *src = me % 2 ? odds : evens;
    for (int i = 0; i < n; i++) wr[i] = src[n - 1 - i];
    MPI_Comm r;
    LC_MPI(MPI_Comm_create_group(c, rev, 0, &r));
    check_comm(r, n, wr, "MPI_Comm_create_group(reversed)");
    int result;
    LC_MPI(MPI_Comm_compare(c, r, &result));
    LC_CHECK(result == (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(half, reversed) = %d", result);
    LC_MPI(MPI_Comm_free(&r));
    LC_MPI(MPI_Group_free(&rev));
    LC_MPI(MPI_Group_free(&cg));
    /* errors: world's group is no subgroup of a half (when there are two) */
    if (size > 1) {
        LC_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
        MPI_Comm bad = MPI_COMM_NULL;
        EXPECT(MPI_Comm_create(c, world, &bad), MPI_ERR_GROUP);
        LC_CHECK(bad == MPI_COMM_NULL, "failed MPI_Comm_create wrote %#x", (unsigned)bad);
    }
    LC_MPI(MPI_Comm_free(&c));
    LC_MPI(MPI_Group_free(&ge));
    LC_MPI(MPI_Group_free(&go));
}

static void test_names_and_info(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, flag, inter = -1;
    LC_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    LC_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name is \"%s\" (%d)", name, len);
    LC_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    LC_CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name is \"%s\"", name);
    MPI_Info info, used;
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_Comm d, e;
    LC_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
    LC_MPI(MPI_Info_free(&info));
    LC_MPI(MPI_Comm_set_name(d, "dup with info"));
    LC_MPI(MPI_Comm_get_name(d, name, &len));
    LC_CHECK(strcmp(name, "dup with info") == 0 && len == 13, "name is \"%s\" (%d)", name, len);
    LC_MPI(MPI_Comm_test_inter(d, &inter));
    LC_CHECK(inter == 0, "MPI_Comm_test_inter on an intracommunicator: %d", inter);
    /* MPI 4: a duplicate carries the hints but not the name */
    LC_MPI(MPI_Comm_dup(d, &e));
    LC_MPI(MPI_Comm_get_name(e, name, &len));
    LC_CHECK(len == 0 && name[0] == 0, "a duplicate inherited the name \"%s\"", name);
    char value[MPI_MAX_INFO_VAL + 1];
    LC_MPI(MPI_Comm_get_info(e, &used));
    LC_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, value, &flag));
    if (!lc_library_is_mpich()) /* MPICH 4.0.2 returns its own values of the hints it knows */
        LC_CHECK(flag && strcmp(value, "true") == 0, "duplicate's hints: flag %d value \"%s\"", flag,
                 flag ? value : "");
    LC_MPI(MPI_Info_free(&used));
    /* set_info replaces; get_info returns a new object every time */
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "locus_test_hint", "42"));
    LC_MPI(MPI_Comm_set_info(e, info));
    LC_MPI(MPI_Info_free(&info));
    LC_MPI(MPI_Comm_get_info(e, &used));
    LC_MPI(MPI_Info_get(used, "locus_test_hint", MPI_MAX_INFO_VAL, value, &flag));
    if (!lc_library_is_mpich())
        LC_CHECK(flag && strcmp(value, "42") == 0, "hint after set_info: flag %d", flag);
    LC_MPI(MPI_Info_free(&used));
    LC_MPI(MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN));
    int cls = lc_class_of(MPI_Comm_set_info(e, MPI_INFO_NULL));
    LC_CHECK(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "MPI_Comm_set_info(MPI_INFO_NULL): class %d", cls);
    MPI_Comm x = MPI_COMM_NULL;
    EXPECT(MPI_Comm_create(e, MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    LC_MPI(MPI_Comm_free(&e));
    LC_MPI(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int size = lc_world_size();
    if (size > 32) LC_FATAL("this test handles up to 32 ranks");
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Group world;
    LC_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    test_create(world, size);
    test_names_and_info();
    LC_MPI(MPI_Group_free(&world));
    return lc_finish();
}
