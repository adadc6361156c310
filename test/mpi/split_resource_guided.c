/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * split_resource_guided: MPI_Comm_split_type with MPI 4.1's
 * MPI_COMM_TYPE_RESOURCE_GUIDED.  No info, an info without a key it knows,
 * or a resource or process set that does not exist: MPI_COMM_NULL.
 * "mpi_hw_resource_type" = "mpi_shared_memory": the same groups as
 * MPI_COMM_TYPE_SHARED.  "mpi_pset_name" = "mpi://WORLD": every process
 * of the communicator (world and an odd/even split of it); "mpi://SELF":
 * each process alone; the new communicator's info names the set.  A rank
 * passing MPI_UNDEFINED gets MPI_COMM_NULL while the others split.
 * MPICH 4.0.2 has no MPI_COMM_TYPE_RESOURCE_GUIDED (its 4 is
 * MPIX_COMM_TYPE_NEIGHBORHOOD): Locus only.
 */
#include "lc_test.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Built against an older mpi.h (MPICH 4.0.2 in validate_with_mpich.sh):
 * it has no MPI_COMM_TYPE_RESOURCE_GUIDED, so the program only says so. */
#if !(defined(MPI_COMM_TYPE_RESOURCE_GUIDED))
int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    if (lc_world_rank() == 0) fprintf(stderr, "this mpi.h has no MPI_COMM_TYPE_RESOURCE_GUIDED: nothing tested\n");
    return lc_finish();
}
#else

static MPI_Comm split(MPI_Comm comm, int type, const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm out;
    if (key) {
        LC_MPI(MPI_Info_create(&info));
        LC_MPI(MPI_Info_set(info, key, value));
    }
    LC_MPI(MPI_Comm_split_type(comm, type, 0, info, &out));
    if (key) LC_MPI(MPI_Info_free(&info));
    return out;
}

static void expect_null(MPI_Comm comm, const char *key, const char *value)
{
    MPI_Comm c = split(comm, MPI_COMM_TYPE_RESOURCE_GUIDED, key, value);
    LC_CHECK(c == MPI_COMM_NULL, "RESOURCE_GUIDED with %s=%s gave a communicator", key ? key : "(no info)",
             value ? value : "");
    if (c != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&c));
}

static int size_of(MPI_Comm c)
{
    int n = -1;
    LC_MPI(MPI_Comm_size(c, &n));
    return n;
}

static void pset_split(MPI_Comm comm)
{
    MPI_Comm c = split(comm, MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD");
    if (c == MPI_COMM_NULL) LC_FATAL("mpi_pset_name=mpi://WORLD gave MPI_COMM_NULL");
    int result;
    LC_MPI(MPI_Comm_compare(comm, c, &result));
    LC_CHECK(result == MPI_CONGRUENT, "mpi://WORLD: comparison with the parent is %d, expected MPI_CONGRUENT", result);
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    LC_MPI(MPI_Comm_get_info(c, &used));
    LC_MPI(MPI_Info_get(used, "mpi_pset_name", MPI_MAX_INFO_VAL, value, &flag));
    LC_CHECK(flag && strcmp(value, "mpi://WORLD") == 0, "info of the new communicator: mpi_pset_name %s",
             flag ? value : "missing");
    LC_MPI(MPI_Info_free(&used));
    LC_MPI(MPI_Comm_free(&c));
    c = split(comm, MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "MPI://self");
    if (c == MPI_COMM_NULL) LC_FATAL("mpi_pset_name=MPI://self gave MPI_COMM_NULL");
    LC_CHECK(size_of(c) == 1, "mpi://SELF: size %d, expected 1", size_of(c));
    LC_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank = lc_world_rank(), size = lc_world_size();
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    expect_null(MPI_COMM_WORLD, NULL, NULL);
    expect_null(MPI_COMM_WORLD, "foo", "bar");
    expect_null(MPI_COMM_WORLD, "mpi_hw_resource_type", "@no-such-resource@");
    expect_null(MPI_COMM_WORLD, "mpi_pset_name", "mpi://NOWHERE");

    /* the hardware key: as MPI_COMM_TYPE_SHARED */
    MPI_Comm shared = split(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, NULL, NULL);
    MPI_Comm rg = split(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
    if (rg == MPI_COMM_NULL) LC_FATAL("mpi_hw_resource_type=mpi_shared_memory gave MPI_COMM_NULL");
    int result;
    LC_MPI(MPI_Comm_compare(shared, rg, &result));
    LC_CHECK(result == MPI_CONGRUENT, "mpi_shared_memory: comparison with MPI_COMM_TYPE_SHARED's is %d", result);
    LC_MPI(MPI_Comm_free(&rg));
    LC_MPI(MPI_Comm_free(&shared));

    /* process sets, on world and on a split of it */
    pset_split(MPI_COMM_WORLD);
    MPI_Comm half;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    pset_split(half);
    LC_MPI(MPI_Comm_free(&half));

    /* MPI_UNDEFINED on all but one rank (mpi4py's pattern) */
    for (int root = 0; root < size; root++) {
        MPI_Info info;
        MPI_Comm c;
        LC_MPI(MPI_Info_create(&info));
        LC_MPI(MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD"));
        LC_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == root ? MPI_COMM_TYPE_RESOURCE_GUIDED : MPI_UNDEFINED, 0,
                                   info, &c));
        LC_MPI(MPI_Info_free(&info));
        if (rank == root) {
            LC_CHECK(c != MPI_COMM_NULL && size_of(c) == 1, "root %d: expected a communicator of 1", root);
            if (c != MPI_COMM_NULL) LC_MPI(MPI_Comm_free(&c));
        } else {
            LC_CHECK(c == MPI_COMM_NULL, "rank %d passed MPI_UNDEFINED but got a communicator", rank);
        }
    }
    return lc_finish();
}
#endif
