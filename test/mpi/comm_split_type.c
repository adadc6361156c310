/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_split_type: MPI_Comm_split_type.  The expected shared-memory
 * grouping comes from the environment Locus runs in: every rank on this
 * host shares memory, unless LOCUS_NET_FORCE=1 (every peer through the
 * network: each rank by itself) or LOCUS_NET_BLOCK=N (blocks of N ranks
 * are separate hosts).  Checks MPI_COMM_TYPE_SHARED
 * (members, order by key), on a sub-communicator too; MPI_UNDEFINED;
 * MPI_COMM_TYPE_HW_GUIDED with "mpi_shared_memory" (the same groups) and
 * with a level nobody knows (MPI_COMM_NULL); MPI_COMM_TYPE_HW_UNGUIDED
 * (MPI_COMM_NULL or a strict subset carrying "mpi_hw_resource_type");
 * a bad split_type (MPI_ERR_ARG). */
#include "lc_test.h"

#include <stdbool.h>

static int block = 0; /* ranks per shared-memory group; 0: all */

static int group_of(int world_rank)
{
    return block ? world_rank / block : 0;
}

/* c holds exactly the world ranks of my group among members[0..n) (in
 * world-rank order reversed when `reversed`). */
static void check_shared(MPI_Comm c, const int *members, int n, bool reversed, const char *what)
{
    int me = lc_world_rank(), want[64], k = 0;
    for (int i = 0; i < n; i++)
        if (group_of(members[i]) == group_of(me)) want[k++] = members[i];
    if (reversed)
        for (int i = 0; i < k / 2; i++) {
            int t = want[i];
            want[i] = want[k - 1 - i];
            want[k - 1 - i] = t;
        }
    LC_CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (c == MPI_COMM_NULL) return;
    int size, rank;
    LC_MPI(MPI_Comm_size(c, &size));
    LC_MPI(MPI_Comm_rank(c, &rank));
    LC_CHECK(size == k, "%s: size %d, expected %d", what, size, k);
    int got[64];
    LC_MPI(MPI_Allgather(&me, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < k && i < size; i++)
        LC_CHECK(got[i] == want[i], "%s: rank %d is world rank %d, expected %d", what, i, got[i], want[i]);
}

static void test_shared(int size)
{
    int all[64], me = lc_world_rank();
    for (int i = 0; i < size; i++) all[i] = i;
    MPI_Comm c, half, hc;
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -me, MPI_INFO_NULL, &c));
    check_shared(c, all, size, true, "SHARED of world, key -rank");
    LC_MPI(MPI_Comm_free(&c));
    /* within the even or odd ranks */
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
    int hm[64], n = 0;
    for (int i = me % 2; i < size; i += 2) hm[n++] = i;
    LC_MPI(MPI_Comm_split_type(half, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &hc));
    check_shared(hc, hm, n, false, "SHARED of a half");
    LC_MPI(MPI_Comm_free(&hc));
    LC_MPI(MPI_Comm_free(&half));
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
    LC_CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gave %#x", (unsigned)c);
}

static void test_hw(int size)
{
    int all[64], me = lc_world_rank();
    for (int i = 0; i < size; i++) all[i] = i;
    MPI_Info info;
    MPI_Comm c;
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
    check_shared(c, all, size, false, "HW_GUIDED mpi_shared_memory");
    if (c != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&c));
    LC_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "no_such_level_anywhere"));
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, info, &c));
    LC_CHECK(c == MPI_COMM_NULL, "HW_GUIDED with an unknown level gave %#x", (unsigned)c);
    LC_MPI(MPI_Info_free(&info));
    /* UNGUIDED: MPI_COMM_NULL, or a strict subset that names its level */
    LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, MPI_INFO_NULL, &c));
    if (c != MPI_COMM_NULL) {
        int n, flag;
        char level[MPI_MAX_INFO_VAL + 1];
        LC_MPI(MPI_Comm_size(c, &n));
        LC_CHECK(n < size, "HW_UNGUIDED gave all %d ranks: not a strict subset", n);
        LC_MPI(MPI_Comm_get_info(c, &info));
        LC_MPI(MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, level, &flag));
        LC_CHECK(flag, "HW_UNGUIDED's communicator does not name its level (mpi_hw_resource_type)");
        LC_MPI(MPI_Info_free(&info));
        LC_MPI(MPI_Comm_free(&c));
    } else if (!lc_library_is_mpich()) {
        /* Locus's levels: shared memory, then NUMA node.  With more than
         * one shared-memory group the first level splits. */
        LC_CHECK(block == 0 || block >= size, "HW_UNGUIDED gave MPI_COMM_NULL though shared memory splits");
    }
}

/* One rank asks for a level, the others pass MPI_UNDEFINED (allowed; as
 * mpi4py's suite does it): the root alone gets a communicator of one. */
static void test_mixed(int size)
{
    int me = lc_world_rank();
    MPI_Info info;
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
    const int types[] = { MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED };
    for (int t = 0; t < 3; t++) {
        for (int root = 0; root < size; root++) {
            MPI_Comm c;
            LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, me == root ? types[t] : MPI_UNDEFINED, 0, info, &c));
            if (me != root) {
                LC_CHECK(c == MPI_COMM_NULL, "type %d root %d: MPI_UNDEFINED gave a communicator", types[t], root);
            } else if (c != MPI_COMM_NULL) {
                int n;
                LC_MPI(MPI_Comm_size(c, &n));
                LC_CHECK(n == 1, "type %d: root %d alone asked, got %d ranks", types[t], root, n);
                LC_MPI(MPI_Comm_free(&c));
            } else {
                LC_CHECK(types[t] == MPI_COMM_TYPE_HW_UNGUIDED, "type %d: root %d got MPI_COMM_NULL", types[t], root);
            }
        }
    }
    LC_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int size = lc_world_size();
    if (size > 64) LC_FATAL("this test handles up to 64 ranks");
    const char *force = getenv("LOCUS_NET_FORCE"), *blocks = getenv("LOCUS_NET_BLOCK");
    if (blocks && atoi(blocks) > 0) block = atoi(blocks);
    if (force && strcmp(force, "0") != 0) block = 1;
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    test_shared(size);
    test_hw(size);
    test_mixed(size);
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "split_type 12345: class %d", lc_class_of(rc));
    return lc_finish();
}
